package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"github.com/ttlkv/ttlkv/engine/query"
	"slices"

	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// prepareInsert normalises a caller's document for storage: _id first
// (an ObjectId is generated when missing), limits checked.
func prepareInsert(v any) (bson.D, error) {
	return prepareDoc(v, func() any { return bson.NewObjectID() }, func(n int) bson.D { return make(bson.D, n) })
}

// prepareDoc is prepareInsert with the generated _id taken from newID
// and a document that needs one allocated by alloc (n fields).
func prepareDoc(v any, newID func() any, alloc func(n int) bson.D) (bson.D, error) {
	d, err := document.Normalize(v)
	if err != nil {
		return nil, err
	}
	idPos := -1
	for i, e := range d {
		if e.Key == "_id" {
			idPos = i
			break
		}
	}
	switch {
	case idPos < 0:
		nd := alloc(len(d) + 1)
		nd[0] = bson.E{Key: "_id", Value: newID()}
		copy(nd[1:], d)
		d = nd
	case idPos > 0:
		nd := make(bson.D, 0, len(d))
		nd = append(nd, d[idPos])
		nd = append(nd, d[:idPos]...)
		d = append(nd, d[idPos+1:]...)
	}
	if err := document.ValidateForStorage(d); err != nil {
		return nil, err
	}
	return d, nil
}

// errMultikey is returned inside a transaction when an index must be
// marked multikey in the catalog before the write can proceed.
var errMultikey = errors.New("engine: index became multikey")

// writeCtx carries the state of one collection write transaction.
type writeCtx struct {
	c        *coll
	m        *catalog.Coll
	txn      *lsm.Txn
	multikey []*catalog.Index  // indexes to mark multikey at commit
	mkFields map[uint64]uint64 // by index id, the fields to mark with them
	// uniq maps index id + keystring to the record that last set that
	// key of a unique index in this transaction (see hasKey).
	uniq map[string]uint64
	// pre, if set, holds the committed entries of the unique keys of
	// the documents this transaction inserts (prefetchUnique).
	pre *uniqPrefetch
	// replacement says replace writes a replacement document, and
	// expiry that remove expires documents (their change events,
	// changes.go).
	replacement bool
	// touched is what the update being written logged of its modifiers
	// (query.UpdateOptions.Touched), for its change event; nil: describe
	// it as a difference of the documents.
	touched []query.Touched
	expiry  *changestream.Expiry
	// beforeRaw, if set, is the encoding of the document remove
	// deletes, stored as its change event's pre-image.
	beforeRaw []byte
	// rawOwned says the encoded documents handed to insert and replace
	// are never modified afterwards, so the transaction keeps them
	// rather than copies (lsm.Txn.SetOwned).
	rawOwned bool
	// vals is the block the TTL entry values of inserts are built in
	// (ttlValue).
	vals []byte
	// keysBuf is docKeys' result for inserts, reused.
	keysBuf [][][]byte
	// keys is the block the keys the transaction keeps are built in.
	keys keyBlock
}

// keyBlock builds keys in shared blocks: each key is a capped slice of
// a block, never written again, so a transaction may keep it; a block
// lives as long as one of its keys does. It saves an allocation a key
// on paths that build several keys a document (insert, the TTL
// monitor's deletes).
type keyBlock struct{ b []byte }

// grab returns an empty slice with room for n bytes at the end of the
// current block (a new one if it has no room).
func (kb *keyBlock) grab(n int) []byte {
	if cap(kb.b)-len(kb.b) < n {
		kb.b = make([]byte, 0, max(4<<10, n))
	}
	return kb.b[len(kb.b):len(kb.b)]
}

// keep marks k, built by appending to what grab returned, as used and
// returns it capped.
func (kb *keyBlock) keep(k []byte) []byte {
	kb.b = kb.b[:len(kb.b)+len(k)]
	return k[:len(k):len(k)]
}

// indexKey is lsm.IndexKey built in the block.
func (kb *keyBlock) indexKey(coll, idx uint64, ks []byte, rid uint64) []byte {
	k := kb.grab(1 + 3*binary.MaxVarintLen64 + len(ks))
	k = append(lsm.AppendID(lsm.AppendID(append(k, lsm.TagIndex), coll), idx), ks...)
	return kb.keep(lsm.AppendIndexRecordID(k, rid))
}

// recordKey is lsm.RecordKey built in the block.
func (kb *keyBlock) recordKey(coll, rid uint64) []byte {
	k := kb.grab(1 + 2*binary.MaxVarintLen64)
	return kb.keep(lsm.AppendID(lsm.AppendID(append(k, lsm.TagRecord), coll), rid))
}

// own returns val for the transaction to keep: val itself if the
// writer's encodings are owned (rawOwned) or val is empty, else a copy.
func (w *writeCtx) own(val []byte) []byte {
	if w.rawOwned || len(val) == 0 {
		return val
	}
	return append([]byte(nil), val...)
}

// dupKeyErr builds MongoDB's DuplicateKey error.
func dupKeyErr(m *catalog.Coll, ix *catalog.Index, d bson.D) error {
	kv := indexkey.Value(ix, d)
	e := document.Errorf(document.CodeDuplicateKey, "E11000 duplicate key error collection: %s index: %s dup key: %s",
		m.NS(), ix.Name, fmtValue(kv))
	e.Info = map[string]any{"keyPattern": ix.Key, "keyValue": kv}
	return e
}

// hasKey reports whether a unique index already holds ks for a record
// other than rid.
//
// Committed entries are found in a read-only snapshot, not with an
// iterator of w.txn: Badger copies and sorts every pending write of a
// read-write transaction each time one creates an iterator, which made a
// 2000-document insert chunk quadratic (benchmarks/RESULTS.md). The
// snapshot is exact because c.wmu serialises the collection's writers
// (a writer releases it once its commit is ordered, and a snapshot begun
// after that waits in Badger until the commit is applied:
// docs/batched-deletes.md §4.5);
// entries this transaction deleted are skipped (w.txn.Has), and entries
// it wrote come from w.uniq. An _id key above the collection's _id
// bound (indexkey.IDBound) needs no read.
func (w *writeCtx) hasKey(ix *catalog.Index, ks []byte, rid uint64) (bool, error) {
	if other, ok := w.uniq[uniqKey(ix, ks)]; ok && other != rid {
		live, err := w.txn.Has(lsm.IndexKey(w.m.ID, ix.ID, ks, other))
		if err != nil || live {
			return live, err
		}
	}
	if w.pre != nil {
		if u := uniqKey(ix, ks); w.pre.covered[u] {
			for _, other := range w.pre.rids[u] {
				if other == rid {
					continue
				}
				live, err := w.txn.Has(lsm.IndexKey(w.m.ID, ix.ID, ks, other))
				if err != nil || live {
					return live, err
				}
			}
			return false, nil
		}
	}
	pre := append(lsm.IndexPrefix(w.m.ID, ix.ID), ks...)
	if idBoundKept(w.m, ix) {
		if above, err := w.c.idAbove(w.m, pre); err != nil || above {
			return false, err
		}
	}
	w.c.db.stats.uniqReads.Add(1)
	var found []uint64
	err := w.c.db.store.View(func(rt *lsm.Txn) error {
		it := rt.NewIter(lsm.IterOptions{Prefix: pre, KeysOnly: true})
		defer it.Close()
		for it.Next() {
			k := it.Key()
			other, ok := lsm.IndexKeyRecordID(k, len(pre))
			if !ok {
				continue
			}
			if other != rid {
				found = append(found, other)
			}
		}
		return it.Err()
	})
	if err != nil {
		return false, err
	}
	for _, other := range found {
		live, err := w.txn.Has(lsm.IndexKey(w.m.ID, ix.ID, ks, other))
		if err != nil || live {
			return live, err
		}
	}
	return false, nil
}

func uniqKey(ix *catalog.Index, ks []byte) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], ix.ID)
	return string(b[:]) + string(ks)
}

// docKeys computes d's keys for every index, checking unique ones.
// It writes nothing, so a failure leaves the transaction unchanged.
//
// Without old (an insert) the result is valid until the next call: its
// slice is reused.
func (w *writeCtx) docKeys(d bson.D, rid uint64, old [][][]byte) ([][][]byte, error) {
	return w.docKeysAt(d, rid, old, -1)
}

// docKeysAt is docKeys for the document at position at of the chunk
// w.pre was fetched for (-1: none): its _id keys are the prefetch's.
func (w *writeCtx) docKeysAt(d bson.D, rid uint64, old [][][]byte, at int) ([][][]byte, error) {
	var all [][][]byte
	if old == nil {
		all = slices.Grow(w.keysBuf[:0], len(w.m.Indexes))[:len(w.m.Indexes)]
		w.keysBuf = all
	} else {
		all = make([][][]byte, len(w.m.Indexes))
	}
	for i, ix := range w.m.Indexes {
		var keys [][]byte
		var mk bool
		var err error
		if ix.ID == idIndexID && old == nil {
			keys = w.pre.idKeysAt(at)
		}
		if keys == nil {
			if keys, mk, err = indexkey.Of(ix, d); err != nil {
				return nil, err
			}
		}
		if mk {
			// Which fields met an array: a field no document has met
			// one on keeps bounds the planner may intersect.
			if f := indexkey.MultikeyFields(ix, d); !ix.Multikey || f&^ix.MultikeyFields != 0 {
				if !containsIx(w.multikey, ix) {
					w.multikey = append(w.multikey, ix)
				}
				if w.mkFields == nil {
					w.mkFields = map[uint64]uint64{}
				}
				w.mkFields[ix.ID] |= f
			}
		}
		if ix.Unique || ix.PrepareUnique {
			for _, k := range keys {
				if old != nil && containsKey(old[i], k) {
					continue
				}
				dup, err := w.hasKey(ix, k, rid)
				if err != nil {
					return nil, err
				}
				if dup {
					return nil, dupKeyErr(w.m, ix, d)
				}
			}
		}
		all[i] = keys
	}
	return all, nil
}

func containsIx(list []*catalog.Index, ix *catalog.Index) bool {
	for _, x := range list {
		if x == ix {
			return true
		}
	}
	return false
}

func containsKey(keys [][]byte, k []byte) bool {
	for _, x := range keys {
		if bytes.Equal(x, k) {
			return true
		}
	}
	return false
}

// insert writes a new record and its index entries. On error nothing
// of this document has been written.
func (w *writeCtx) insert(rid uint64, d bson.D, raw []byte) error {
	return w.insertAt(rid, d, raw, -1)
}

// insertAt is insert for the document at position at of the chunk
// w.pre was fetched for (docKeysAt).
func (w *writeCtx) insertAt(rid uint64, d bson.D, raw []byte, at int) error {
	keys, err := w.docKeysAt(d, rid, nil, at)
	if err != nil {
		return err
	}
	if !w.m.Clustered {
		// A clustered collection's document is its _id entry's value.
		if err := w.txn.SetOwned(w.keys.recordKey(w.m.ID, rid), w.own(raw)); err != nil {
			return err
		}
	}
	for i, ix := range w.m.Indexes {
		for _, k := range keys[i] {
			var err error
			var typed []byte
			if ix.TypeBits && mayNeedTypeBits(ix, k) && keepsTypeBits(w.m, ix) {
				// (A date's or an ObjectId's key loses nothing: not
				// looked for.)
				typed = w.typeBits(ix, d)
			}
			switch {
			case typed != nil:
				err = w.setIndexKeyOwned(ix, k, rid, typed)
			case carriesTTLValue(w.m, ix):
				// Built here: the transaction may keep it.
				err = w.setIndexKeyOwned(ix, k, rid, w.ttlValue(keys, d, raw))
			default:
				err = w.setIndexKey(ix, k, rid, untypedEntryValue(w.m, ix, d, raw))
			}
			if err != nil {
				return err
			}
		}
	}
	return w.noteInsert(d, raw)
}

// ttlValue returns the carried value of a TTL entry (ttlEntryValue) of
// document d, encoded as raw, whose index keys are keys: its _id
// keystring is its _id entry's key, already computed. The values of a
// transaction share blocks of w.vals; each is a capped slice, never
// written again.
func (w *writeCtx) ttlValue(keys [][][]byte, d bson.D, raw []byte) []byte {
	for i, ix := range w.m.Indexes {
		if ix.ID == idIndexID && len(keys[i]) == 1 {
			id := keys[i][0]
			if n := 1 + binary.MaxVarintLen32 + len(id); cap(w.vals)-len(w.vals) < n {
				w.vals = make([]byte, 0, max(4<<10, n))
			}
			start := len(w.vals)
			w.vals = append(w.vals, ttlEntryV1)
			w.vals = binary.AppendUvarint(w.vals, uint64(len(raw)))
			w.vals = append(w.vals, id...)
			return w.vals[start:len(w.vals):len(w.vals)]
		}
	}
	return ttlEntryValue(w.m, d, raw)
}

// typeBits returns the type bits of d's key in ix (typeBitsOf), built
// in the transaction's value blocks as ttlValue's are; nil when the key
// loses nothing.
func (w *writeCtx) typeBits(ix *catalog.Index, d bson.D) []byte {
	if cap(w.vals)-len(w.vals) < 64 {
		w.vals = make([]byte, 0, 4<<10)
	}
	start := len(w.vals)
	out, lossy := appendTypeBits(w.vals, ix, d)
	if !lossy {
		return nil
	}
	w.vals = out
	return w.vals[start:len(w.vals):len(w.vals)]
}

// setIndexKey writes one index entry with value val (entryValue),
// telling the TTL monitor about keys of TTL indexes and raising the _id
// bound (indexkey.IDBound).
func (w *writeCtx) setIndexKey(ix *catalog.Index, k []byte, rid uint64, val []byte) error {
	return w.setIndexKeyOwned(ix, k, rid, w.own(val))
}

// setIndexKeyOwned is setIndexKey with a value the transaction may
// keep.
func (w *writeCtx) setIndexKeyOwned(ix *catalog.Index, k []byte, rid uint64, val []byte) error {
	key := w.keys.indexKey(w.m.ID, ix.ID, k, rid)
	if ix.Unique || ix.PrepareUnique {
		if w.uniq == nil {
			w.uniq = map[string]uint64{}
		}
		w.uniq[uniqKey(ix, k)] = rid
	}
	if ix.TTL {
		w.c.db.ttl.NoteKey(ttlKey{Coll: w.m.ID, Index: ix.ID}, key)
	}
	if idBoundKept(w.m, ix) {
		// Before the entry is staged: the bound must cover it from now
		// on (indexkey.IDBound).
		if err := w.c.raiseIDBound(w.m, key); err != nil {
			return err
		}
	}
	return w.txn.SetOwned(key, val) // key is fresh
}

// replace swaps record rid's document from oldDoc to newDoc, adjusting
// only the index entries that differ.
func (w *writeCtx) replace(rid uint64, oldDoc, newDoc bson.D, raw []byte) error {
	oldKeys := make([][][]byte, len(w.m.Indexes))
	for i, ix := range w.m.Indexes {
		ks, _, err := indexkey.Of(ix, oldDoc)
		if err != nil {
			return err
		}
		oldKeys[i] = ks
	}
	newKeys, err := w.docKeys(newDoc, rid, oldKeys)
	if err != nil {
		return err
	}
	if w.m.Clustered {
		// The _id never changes: its entry, holding the document, is
		// rewritten in place.
		if err := w.txn.Set(recKey(w.m, rid, idKeyOf(w.m, oldDoc)), raw); err != nil {
			return err
		}
	} else if err := w.txn.Set(lsm.RecordKey(w.m.ID, rid), raw); err != nil {
		return err
	}
	for i, ix := range w.m.Indexes {
		if w.m.Clustered && ix.ID == idIndexID {
			continue
		}
		for _, k := range oldKeys[i] {
			if !containsKey(newKeys[i], k) {
				if err := w.txn.Delete(lsm.IndexKey(w.m.ID, ix.ID, k, rid)); err != nil {
					return err
				}
			}
		}
		for _, k := range newKeys[i] {
			if !containsKey(oldKeys[i], k) {
				if err := w.setIndexKey(ix, k, rid, entryValueFor(w.m, ix, k, newDoc, raw)); err != nil {
					return err
				}
			} else if carriesTTLValue(w.m, ix) {
				// A kept TTL entry carries the document's size: rewrite
				// it, which also makes a TTL batch that read it conflict
				// (docs/ttl-indexes.md §3). Not a new key: the monitor
				// is not told.
				if err := w.txn.SetOwned(lsm.IndexKey(w.m.ID, ix.ID, k, rid), entryValueFor(w.m, ix, k, newDoc, raw)); err != nil {
					return err
				}
			} else if keepsTypeBits(w.m, ix) && mayNeedTypeBits(ix, k) {
				// The same key from other values (1 became 1.0, a field
				// became null or missing): the type bits may differ.
				if nv := entryValueFor(w.m, ix, k, newDoc, raw); !bytes.Equal(nv, entryValueFor(w.m, ix, k, oldDoc, nil)) {
					if err := w.txn.SetOwned(lsm.IndexKey(w.m.ID, ix.ID, k, rid), nv); err != nil {
						return err
					}
				}
			}
		}
	}
	return w.noteReplace(oldDoc, newDoc, raw)
}

// remove deletes record rid and every index entry of d.
func (w *writeCtx) remove(rid uint64, d bson.D) error {
	for _, ix := range w.m.Indexes {
		keys, _, err := indexkey.Of(ix, d)
		if err != nil {
			// A stored document always produced valid keys; a change in
			// key rules must not make it undeletable.
			keys = nil
		}
		for _, k := range keys {
			// The keys are built here, so the transaction may keep them.
			if err := w.txn.DeleteOwned(lsm.IndexKey(w.m.ID, ix.ID, k, rid)); err != nil {
				return err
			}
		}
	}
	if isBucketsColl(w.m) {
		if err := w.c.db.tsRemoveDeltas(w.txn, w.m.ID, rid); err != nil {
			return err
		}
	}
	if err := w.noteDelete(d); err != nil {
		return err
	}
	if w.m.Clustered {
		return nil // the document went with its _id entry
	}
	return w.txn.DeleteOwned(lsm.RecordKey(w.m.ID, rid))
}

// commitMultikey records, in the same transaction, that indexes became
// multikey, and returns the catalog entry to publish after commit.
func (w *writeCtx) commitMultikey() (*catalog.Coll, error) {
	if len(w.multikey) == 0 {
		return nil, nil
	}
	nm := w.m.Clone()
	for _, ix := range nm.Indexes {
		for _, mk := range w.multikey {
			if mk.ID == ix.ID {
				ix.MarkMultikey(w.mkFields[ix.ID])
			}
		}
	}
	// Keep compiled partial filters.
	for i, ix := range nm.Indexes {
		ix.PartialFilter = w.m.Indexes[i].PartialFilter
	}
	return nm, putMeta(w.txn, nm)
}

// getRecord reads and decodes record rid of an unclustered collection
// in txn.
func getRecord(txn *lsm.Txn, collID, rid uint64) (bson.D, []byte, error) {
	raw, err := txn.Get(lsm.RecordKey(collID, rid))
	if err != nil {
		return nil, nil, err
	}
	d, err := document.Unmarshal(raw)
	return d, raw, err
}

// getStored reads and decodes document rid of m in txn; id is its _id
// keystring in a clustered collection (recKey).
func getStored(txn *lsm.Txn, m *catalog.Coll, rid uint64, id []byte) (bson.D, []byte, error) {
	raw, err := txn.Get(recKey(m, rid, id))
	if err != nil {
		return nil, nil, err
	}
	d, err := document.Unmarshal(raw)
	return d, raw, err
}
