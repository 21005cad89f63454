package engine

// Secondary indexes on capped collections. Their entries live in Badger
// (the _id index is in memory, capped_idindex.go), keyed
// IndexKey(collection, index, keystring, ring sequence) with the
// record's 8-byte ring offset as the value, so an index scan reads
// documents from the ring (nextCappedIndex) exactly as it does for _id.
// They are written when the record is appended (cappedWriter), deleted
// when it is evicted (in one Badger commit, before the ring reuses the
// space), rewritten by an in-place update whose keys change
// (cappedReindex), built over the ring's records by createIndexes
// (buildCappedIndexes), reconciled with the ring on open
// (reconcileCappedSecondary) and checked by validate. TTL indexes stay
// refused (docs/ttl-indexes.md §1.4).

import (
	"bytes"
	"context"
	"fmt"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cappedSecondary returns m's indexes other than _id, in catalog order.
func cappedSecondary(m *catalog.Coll) []*catalog.Index {
	var out []*catalog.Index
	for _, ix := range m.Indexes {
		if ix.ID != idIndexID {
			out = append(out, ix)
		}
	}
	return out
}

// cappedKeyLive reports whether index ixID of collection collID holds
// keystring k for a live ring record (sequence >= first) other than
// self (0: none).
func cappedKeyLive(db *DB, collID, ixID uint64, k []byte, first, self uint64) (bool, error) {
	pre := append(lsm.IndexPrefix(collID, ixID), k...)
	taken := false
	err := db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: pre, KeysOnly: true})
		defer it.Close()
		for it.Next() {
			key := it.Key()
			seq, ok := lsm.IndexKeyRecordID(key, len(pre))
			if !ok {
				continue
			}
			if seq >= first && seq != self {
				taken = true
				return nil
			}
		}
		return it.Err()
	})
	return taken, err
}

// cappedMarkMultikey records in the catalog that the indexes ids of c
// became multikey, before a document that makes them so is written (a
// flag set early only makes the planner more careful), and returns the
// new catalog entry. The caller holds c.wmu.
func (db *DB) cappedMarkMultikey(c *coll, m *catalog.Coll, ids []uint64) (*catalog.Coll, error) {
	nm := m.Clone()
	for _, ix := range nm.Indexes {
		for _, id := range ids {
			if ix.ID == id {
				ix.MarkMultikey(catalog.AllFields) // (which fields: not kept for a capped collection)
			}
		}
	}
	if err := db.updateMeta(c, nm, nil); err != nil {
		return nil, err
	}
	return nm, nil
}

// buildCappedIndexes writes the entries of ixs for every record of
// capped collection c (createIndexes; the caller holds c.wmu, so the
// ring does not change meanwhile). A unique index over duplicate keys is
// 11000 and writes nothing; ixs' Multikey flags are set as found.
func (db *DB) buildCappedIndexes(ctx context.Context, c *coll, m *catalog.Coll, ixs []*catalog.Index) error {
	st, err := cappedOf(c)
	if err != nil {
		return err
	}
	uniq := make([]map[string]uint64, len(ixs))
	for i, ix := range ixs {
		if ix.Unique {
			uniq[i] = map[string]uint64{}
		}
	}
	batch := db.store.NewBatch()
	defer batch.Cancel()
	var ferr error
	n := 0
	err = st.ring.ReadRun(0, func(rec capped.Record) bool {
		if n++; n%1024 == 0 {
			if ferr = ctxErr(ctx); ferr != nil {
				return false
			}
		}
		d, ok, err := st.decodeRecord(rec)
		if err != nil {
			ferr = fmt.Errorf("engine: capped record %d at offset %d: %w", rec.Seq, rec.Off, err)
			return false
		}
		if !ok {
			return true // deleted
		}
		v := offValue(rec.Off)
		for i, ix := range ixs {
			keys, mk, err := indexkey.Of(ix, d)
			if err != nil {
				ferr = err
				return false
			}
			if mk {
				ix.MarkMultikey(indexkey.MultikeyFields(ix, d))
			}
			for _, k := range keys {
				if uniq[i] != nil {
					if other, dup := uniq[i][string(k)]; dup && other != rec.Seq {
						ferr = dupKeyErr(m, ix, d)
						return false
					}
					uniq[i][string(k)] = rec.Seq
				}
				if ferr = batch.Set(lsm.IndexKey(m.ID, ix.ID, k, rec.Seq), v); ferr != nil {
					return false
				}
			}
		}
		return true
	})
	if ferr != nil {
		return ferr
	}
	if err != nil {
		return cappedErr(c, err)
	}
	db.failpoint(FailpointIndexBuildMid)
	return batch.Flush()
}

// cappedReindex moves the secondary index entries of ring record rec
// from oldDoc's keys to newDoc's before an in-place update rewrites it:
// a key a unique index holds for another live record is 11000 and
// changes nothing; an index newDoc makes multikey is marked first. The
// entries commit before the ring is rewritten: a crash or ring failure
// in between leaves entries that reconciliation on open recomputes from
// the ring, and readers re-check every document against their filter.
// The caller holds c.wmu.
func (db *DB) cappedReindex(c *coll, st *cappedState, rec capped.Record, oldDoc, newDoc bson.D) error {
	m := c.m()
	sec := cappedSecondary(m)
	if len(sec) == 0 {
		return nil
	}
	first := st.ring.FirstSeq()
	oldKeys := make([][][]byte, len(sec))
	newKeys := make([][][]byte, len(sec))
	var mk []uint64
	for i, ix := range sec {
		oldKeys[i], _, _ = indexkey.Of(ix, oldDoc)
		keys, multi, err := indexkey.Of(ix, newDoc)
		if err != nil {
			return err
		}
		if multi && !ix.Multikey {
			mk = append(mk, ix.ID)
		}
		if ix.Unique {
			for _, k := range keys {
				if containsKey(oldKeys[i], k) {
					continue
				}
				taken, err := cappedKeyLive(db, m.ID, ix.ID, k, first, rec.Seq)
				if err != nil {
					return err
				}
				if taken {
					return dupKeyErr(m, ix, newDoc)
				}
			}
		}
		newKeys[i] = keys
	}
	if len(mk) > 0 {
		if _, err := db.cappedMarkMultikey(c, m, mk); err != nil {
			return err
		}
	}
	b := db.store.NewBatch()
	v := offValue(rec.Off)
	changed := false
	for i, ix := range sec {
		for _, k := range oldKeys[i] {
			if !containsKey(newKeys[i], k) {
				changed = true
				if err := b.Delete(lsm.IndexKey(m.ID, ix.ID, k, rec.Seq)); err != nil {
					b.Cancel()
					return err
				}
			}
		}
		for _, k := range newKeys[i] {
			if !containsKey(oldKeys[i], k) {
				changed = true
				if err := b.Set(lsm.IndexKey(m.ID, ix.ID, k, rec.Seq), v); err != nil {
					b.Cancel()
					return err
				}
			}
		}
	}
	if !changed {
		b.Cancel()
		return nil
	}
	return b.Flush()
}

// cappedSecondaryWant adds to want the entries (full Badger key -> ring
// offset) record seq at off holding d has in the secondary indexes sec,
// and reports indexes d makes multikey through mk (may be nil).
func cappedSecondaryWant(m *catalog.Coll, sec []*catalog.Index, seq uint64, off int64, d bson.D, want map[string]int64, mk func(ix *catalog.Index)) error {
	for _, ix := range sec {
		keys, multi, err := indexkey.Of(ix, d)
		if err != nil {
			return fmt.Errorf("index %s: %w", ix.Name, err)
		}
		if multi && mk != nil {
			mk(ix)
		}
		for _, k := range keys {
			want[string(lsm.IndexKey(m.ID, ix.ID, k, seq))] = off
		}
	}
	return nil
}

// reconcileCappedSecondary makes every secondary index of m match the
// ring, recomputing each live record's keys from its document: entries
// the ring does not call for (evicted records, keys an interrupted
// update changed, a wrong offset) are deleted, missing ones written, and
// an index a record makes multikey is so marked. Runs on open, before
// the collection is visible; its memory is one map entry per index key
// of the ring.
func (db *DB) reconcileCappedSecondary(c *coll, m *catalog.Coll, st *cappedState) error {
	sec := cappedSecondary(m)
	if len(sec) == 0 {
		return nil
	}
	want := map[string]int64{}
	var mk []uint64
	err := st.ring.ReadRun(0, func(rec capped.Record) bool {
		d, ok, err := st.decodeRecord(rec)
		if err != nil {
			db.logf("capped %s: record %d does not decode; left out of the secondary indexes: %v", m.NS(), rec.Seq, err)
			return true
		}
		if !ok {
			return true // deleted
		}
		if err := cappedSecondaryWant(m, sec, rec.Seq, rec.Off, d, want, func(ix *catalog.Index) {
			if !ix.Multikey && !containsU64(mk, ix.ID) {
				mk = append(mk, ix.ID)
			}
		}); err != nil {
			db.logf("capped %s: record %d: %v", m.NS(), rec.Seq, err)
		}
		return true
	})
	if err != nil {
		return err
	}
	var stale [][]byte
	err = db.store.View(func(txn *lsm.Txn) error {
		for _, ix := range sec {
			it := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(m.ID, ix.ID)})
			for it.Next() {
				k := it.Key()
				v, err := it.Value()
				if err != nil {
					it.Close()
					return err
				}
				off, ok := want[string(k)]
				if got, okOff := decodeOff(v); !ok || !okOff || got != off {
					stale = append(stale, append([]byte(nil), k...))
					continue
				}
				delete(want, string(k))
			}
			err := it.Err()
			it.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(stale) == 0 && len(want) == 0 && len(mk) == 0 {
		return nil
	}
	b := db.store.NewBatch()
	defer b.Cancel()
	for _, k := range stale {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	for k, off := range want {
		if err := b.Set([]byte(k), offValue(off)); err != nil {
			return err
		}
	}
	if err := b.Flush(); err != nil {
		return err
	}
	if len(mk) > 0 {
		nm := m.Clone()
		for _, ix := range nm.Indexes {
			if containsU64(mk, ix.ID) {
				ix.MarkMultikey(catalog.AllFields)
			}
		}
		if err := db.store.Update(func(txn *lsm.Txn) error { return putMeta(txn, nm) }); err != nil {
			return err
		}
		c.meta.Store(nm)
	}
	db.logf("capped %s: reconciled the secondary indexes with the ring: %d entries added, %d removed", m.NS(), len(want), len(stale))
	return nil
}

func containsU64(list []uint64, x uint64) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

// validateCappedSecondary compares every secondary index of m with the
// entries want (full key -> offset) computed from the ring, counting
// keys per index into res. Missing and extra entries are reported as an
// ordinary collection's (reportEntries; doc rereads the document of a
// ring record, nil when there is none); an entry naming another offset
// than its record's makes its index invalid through idxFail.
func (db *DB) validateCappedSecondary(m *catalog.Coll, want map[string]int64, res *ValidateResult, idxFail func(string, ...any), doc func(seq uint64) bson.D) {
	sec := cappedSecondary(m)
	var extra []entryDiff
	err := db.store.View(func(txn *lsm.Txn) error {
		for _, ix := range sec {
			res.KeysPerIndex[ix.Name] = 0
			prefixLen := len(lsm.IndexPrefix(m.ID, ix.ID))
			it := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(m.ID, ix.ID)})
			for it.Next() {
				res.KeysPerIndex[ix.Name]++
				k := it.Key()
				ks, seq, _ := lsm.SplitIndexKey(k)
				off, ok := want[string(k)]
				if !ok {
					extra = append(extra, entryDiff{ix: ix, ks: append([]byte(nil), ks...), size: len(k) - prefixLen, rid: seq})
					continue
				}
				delete(want, string(k))
				v, err := it.Value()
				if err != nil {
					it.Close()
					return err
				}
				if got, okOff := decodeOff(v); !okOff || got != off {
					res.badIndex(ix.Name)
					idxFail("index %s entry of ring record %d names offset %v, the record is at %d", ix.Name, seq, got, off)
				}
			}
			err := it.Err()
			it.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		idxFail("reading the secondary indexes: %v", err)
		return
	}
	var missing []entryDiff
	for k := range want {
		ks, seq, _ := lsm.SplitIndexKey([]byte(k))
		for _, ix := range sec {
			if pre := lsm.IndexPrefix(m.ID, ix.ID); bytes.HasPrefix([]byte(k), pre) {
				missing = append(missing, entryDiff{ix: ix, ks: ks, size: len(k) - len(pre), rid: seq})
				break
			}
		}
	}
	res.reportEntries(missing, extra, func(x entryDiff) bson.D { return doc(x.rid) })
}
