package engine

// Documents that outgrew their ring record (docs/capped.md, "Grown
// documents"). MongoDB 6.0+ lets an update change a capped document's
// size; the document keeps its RecordId, so its place in natural order.
// A ring record cannot grow in place, so a document that no longer fits
// its record's space is kept outside the ring, in the store under
//
//	cappedOutKey(collection, sequence, generation) = RecordKey(collection, sequence) + compact(generation)
//
// (the collection's record key space, which a capped collection does not
// otherwise use, so a drop removes the copies with everything else), and
// the record is rewritten in place, same length, as a pointer frame:
//
//	uvarint(len(ks)) ks 0x00 uvarint(generation) uvarint(len(msg)) zero padding
//
// that is, a frame whose document length is 0 (no document's encoding is
// empty), followed by the generation of the copy it names and the copy's
// length. The _id keystring stays first, so the _id index and its
// rebuild from the ring read a pointer frame as any other.
//
// Crash protocol: a copy is written (and committed) before any record
// names it, and deleted only after no record names it (the record was
// rewritten, deleted or evicted, and that write is in the ring). Each
// growth writes a copy under a new generation, so the record names either
// the old copy (or its own old document) or the new one, never a copy
// being replaced. A crash leaves at most copies that no record names,
// which Open removes (sweepCappedOutside).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Failpoints of a capped document's outside copy.
const (
	// FailpointCappedGrowOutside fires after the outside copy of a grown
	// document commits, before its ring record is rewritten to point at
	// it.
	FailpointCappedGrowOutside = "capped.grow.outside"
	// FailpointCappedOutsideDrop fires after a ring record stopped
	// naming an outside copy (rewritten by an update, deleted, or
	// evicted by an insert whose chunk the ring has written), before the
	// copy is deleted.
	FailpointCappedOutsideDrop = "capped.outside.drop"
)

// cappedMaxGen bounds an outside copy's generation, so it takes one
// byte in a pointer frame; a new copy's generation only has to differ
// from the one it replaces.
const cappedMaxGen = 127

// cappedPointer is what a pointer frame says: the generation of the
// outside copy and the copy's length (its msgpack document).
type cappedPointer struct {
	gen uint64
	n   int
}

// cappedOutKey is the store key of the outside copy of generation gen of
// ring record seq of capped collection coll.
func cappedOutKey(coll, seq, gen uint64) []byte {
	return lsm.AppendID(lsm.RecordKey(coll, seq), gen)
}

// decodeCappedOutKey returns the sequence and generation of an outside
// copy's key under coll's record prefix pre.
func decodeCappedOutKey(pre, k []byte) (seq, gen uint64, ok bool) {
	if !bytes.HasPrefix(k, pre) {
		return 0, 0, false
	}
	seq, n, ok := lsm.ReadID(k[len(pre):])
	if !ok {
		return 0, 0, false
	}
	gen, m, ok := lsm.ReadID(k[len(pre)+n:])
	if !ok || len(pre)+n+m != len(k) {
		return 0, 0, false
	}
	return seq, gen, true
}

// encodeCappedPointer returns the pointer frame of n payload bytes that
// names p, for a record whose _id keystring is ks; ok is false when it
// does not fit in n bytes.
func encodeCappedPointer(ks []byte, p cappedPointer, n int) ([]byte, bool) {
	b := make([]byte, 0, n)
	b = binary.AppendUvarint(b, uint64(len(ks)))
	b = append(b, ks...)
	b = append(b, 0)
	b = binary.AppendUvarint(b, p.gen)
	b = binary.AppendUvarint(b, uint64(p.n))
	if len(b) > n {
		return nil, false
	}
	return append(b, make([]byte, n-len(b))...), true
}

// cappedPointerFrame returns the pointer frame naming p for a new
// record whose _id keystring is ks: room for any generation and any
// document length, so a later update can point it at another copy.
func cappedPointerFrame(ks []byte, p cappedPointer) []byte {
	b, _ := encodeCappedPointer(ks, p, uvarintLen(uint64(len(ks)))+len(ks)+1+uvarintLen(cappedMaxGen)+binary.MaxVarintLen32)
	return b
}

// outsideInsert reports whether a document of n framed bytes is
// inserted outside the ring: it is larger than the collection's size, or
// than the ring file can hold (mongod 7.0 takes both, evicting every
// older document, docs/capped.md §7.3).
func (st *cappedState) outsideInsert(n int) bool {
	return int64(n) > st.opts.size || cappedRecordSize(n) > st.ring.Capacity()-capped.DataStart
}

// cappedPointerOf reports whether ring payload data is a pointer frame,
// and what it names.
func cappedPointerOf(data []byte) (cappedPointer, bool) {
	if cappedDeleted(data) {
		return cappedPointer{}, false
	}
	n, k := binary.Uvarint(data)
	if k <= 0 || n > uint64(len(data)-k) {
		return cappedPointer{}, false
	}
	rest := data[k+int(n):]
	if len(rest) == 0 || rest[0] != 0 {
		return cappedPointer{}, false
	}
	rest = rest[1:]
	gen, k := binary.Uvarint(rest)
	if k <= 0 || gen == 0 {
		return cappedPointer{}, false
	}
	m, k2 := binary.Uvarint(rest[k:])
	if k2 <= 0 {
		return cappedPointer{}, false
	}
	return cappedPointer{gen: gen, n: int(m)}, true
}

// cappedGrownExtra is the bytes a pointer frame of plen payload bytes,
// whose _id keystring is klen bytes long, counts beyond its payload: the
// frame the document would take in the ring, less the record's payload.
func cappedGrownExtra(klen int, p cappedPointer, plen int) int64 {
	return int64(uvarintLen(uint64(klen))+klen+uvarintLen(uint64(p.n))+p.n) - int64(plen)
}

// cappedGrown is the set of a ring's pointer records, with the extra
// bytes their documents count (capped.GrownSet): one bit a sequence, as
// cappedTombs keeps deleted records, so it costs at most half a byte a
// record between the oldest and the newest grown one and nothing when
// there is none. The extra of one record is read from its pointer frame
// when the ring evicts it.
type cappedGrown struct{ cappedTombs }

// Extra returns the extra bytes of pointer record seq, whose payload is
// p (capped.GrownSet).
func (g *cappedGrown) Extra(seq uint64, p []byte) int64 { return payloadExtra(p) }

// payloadExtra returns the bytes pointer payload p counts beyond its
// length (0 when p is not a pointer frame).
func payloadExtra(p []byte) int64 {
	ptr, ok := cappedPointerOf(p)
	if !ok {
		return 0
	}
	klen, _ := binary.Uvarint(p)
	return cappedGrownExtra(int(klen), ptr, len(p))
}

// errCappedOutsideMissing says a pointer record names an outside copy
// that the store does not hold.
var errCappedOutsideMissing = errors.New("engine: a capped record names an outside copy the store does not hold")

// outside reads the outside copy of generation gen of record seq.
func (st *cappedState) outside(seq, gen uint64) ([]byte, error) {
	var v []byte
	err := st.store.View(func(txn *lsm.Txn) error {
		var err error
		v, err = txn.Get(cappedOutKey(st.id, seq, gen))
		return err
	})
	return v, err
}

// hasOutside reports whether the store holds the outside copy of
// generation gen of record seq.
func (st *cappedState) hasOutside(seq, gen uint64) (bool, error) {
	var has bool
	err := st.store.View(func(txn *lsm.Txn) error {
		var err error
		has, err = txn.Has(cappedOutKey(st.id, seq, gen))
		return err
	})
	return has, err
}

// recordMsg returns the msgpack document of ring record rec: the one in
// its frame, or the outside copy a pointer frame names. ok is false when
// rec is a tombstone, or stopped being live (evicted, deleted) before its
// outside copy could be read: a pointer read just before an update or
// eviction replaced its copy is read again from the ring.
func (st *cappedState) recordMsg(rec capped.Record) (msg []byte, ok bool, err error) {
	for attempt := 0; ; attempt++ {
		if cappedDeleted(rec.Data) {
			return nil, false, nil
		}
		p, isPtr := cappedPointerOf(rec.Data)
		if !isPtr {
			msg, err := cappedMsg(rec.Data)
			return msg, err == nil, err
		}
		v, err := st.outside(rec.Seq, p.gen)
		if err == nil {
			return v, true, nil
		}
		if !errors.Is(err, lsm.ErrNotFound) {
			return nil, false, err
		}
		data, rerr := st.ring.Read(rec.Seq, rec.Off)
		if errors.Is(rerr, capped.ErrOverwritten) || errors.Is(rerr, capped.ErrNotFound) {
			return nil, false, nil // evicted meanwhile
		} else if rerr != nil {
			return nil, false, rerr
		}
		if st.tombs.Has(rec.Seq) {
			return nil, false, nil // an interrupted insert's, read-only (buildCappedIDIndex)
		}
		if bytes.Equal(data, rec.Data) || attempt == 16 {
			return nil, false, fmt.Errorf("%w: record %d, generation %d", errCappedOutsideMissing, rec.Seq, p.gen)
		}
		rec.Data = data
	}
}

// decodeRecord decodes the document of ring record rec (see recordMsg).
func (st *cappedState) decodeRecord(rec capped.Record) (bson.D, bool, error) {
	msg, ok, err := st.recordMsg(rec)
	if !ok || err != nil {
		return nil, false, err
	}
	d, err := document.Unmarshal(msg)
	return d, err == nil, err
}

// dropOutside deletes the outside copy gen of record seq, which no ring
// record names any more. A failure is logged: Open removes the copy.
func (db *DB) dropOutside(st *cappedState, seq, gen uint64) {
	db.failpoint(FailpointCappedOutsideDrop)
	err := db.store.Update(func(txn *lsm.Txn) error { return txn.Delete(cappedOutKey(st.id, seq, gen)) })
	if err != nil {
		db.logf("capped: deleting the outside copy of record %d: %v (removed at the next open)", seq, err)
	}
}

// dropEvictedOutside deletes the outside copies of the records the ring
// has evicted (every copy under a sequence older than its first), after
// the chunk that evicted them is written. A failure is logged: Open
// removes the copies.
//
// The range starts where the previous one ended (st.outLow), so it does
// not walk again the deleted keys of earlier evictions.
func (db *DB) dropEvictedOutside(st *cappedState) {
	db.failpoint(FailpointCappedOutsideDrop)
	first := st.ring.FirstSeq()
	if _, err := db.store.DeleteRange(lsm.RecordKey(st.id, st.outLow), lsm.RecordKey(st.id, first)); err != nil {
		db.logf("capped: deleting the outside copies of evicted records: %v (removed at the next open)", err)
		return
	}
	st.outLow = first
}

// sweepCappedOutside removes the outside copies that no live pointer
// record names (ptrs: sequence -> generation), which a crash left
// between a copy's write and its record's rewrite, or between a record's
// rewrite, delete or eviction and its copy's delete.
func (db *DB) sweepCappedOutside(st *cappedState, ptrs map[uint64]uint64) (int, error) {
	pre := lsm.RecordPrefix(st.id)
	b := db.store.NewBatch()
	n := 0
	err := db.store.Scan(lsm.IterOptions{Prefix: pre, KeysOnly: true}, func(k, _ []byte) error {
		seq, gen, ok := decodeCappedOutKey(pre, k)
		if ok && ptrs[seq] == gen {
			return nil
		}
		n++
		return b.Delete(k)
	})
	if err == nil {
		err = b.Flush()
	} else {
		b.Cancel()
	}
	return n, err
}

// cappedGrow rewrites rec's frame to point at msg, the new document of a
// record it no longer fits: the copy is written first, under a
// generation the record does not name yet; the caller then rewrites the
// ring record with the returned pointer frame. ks is the record's _id
// keystring.
func (st *cappedState) cappedGrow(rec capped.Record, ks, msg []byte) (data []byte, gen uint64, err error) {
	gen = 1
	if p, ok := cappedPointerOf(rec.Data); ok {
		gen = p.gen%cappedMaxGen + 1
	}
	data, ok := encodeCappedPointer(ks, cappedPointer{gen: gen, n: len(msg)}, len(rec.Data))
	if !ok {
		// A record always holds its _id keystring and a document of at
		// least that _id, which is longer than a pointer's 3 to 7 bytes.
		return nil, 0, document.Errorf(document.CodeCannotGrowDocumentInCappedNS, "Cannot grow a document in a capped collection: record %d of %d bytes cannot hold a pointer", rec.Seq, len(rec.Data))
	}
	err = st.store.Update(func(txn *lsm.Txn) error { return txn.Set(cappedOutKey(st.id, rec.Seq, gen), msg) })
	return data, gen, err
}

// orphanedCopiesWarning is validate's warning for n outside copies that
// no ring record names.
func orphanedCopiesWarning(n int) string {
	return fmt.Sprintf("Detected %d outside copies of grown documents that no record names; opening the collection removes them.", n)
}

// validateRecordDoc decodes the document of live ring record rec for
// validate: the one in its frame or, when grown (p is its pointer
// frame), the outside copy p names, read directly so that a missing copy
// is not taken for a concurrent update (the caller holds the writers
// off). A document that cannot be had makes the record corrupt in res,
// as mongod counts a record that fails BSON validation; ok is false
// then.
func (st *cappedState) validateRecordDoc(rec capped.Record, p cappedPointer, grown bool, res *ValidateResult) (d bson.D, ok bool) {
	var msg []byte
	var err error
	if grown {
		msg, err = st.outside(rec.Seq, p.gen)
		if errors.Is(err, lsm.ErrNotFound) {
			res.corrupt(int64(rec.Seq), fmt.Sprintf("ring record %d at offset %d names an outside copy (generation %d) that the store does not hold", rec.Seq, rec.Off, p.gen))
			return nil, false
		}
		if err == nil {
			if d, err = document.Unmarshal(msg); err != nil {
				res.corrupt(int64(rec.Seq), fmt.Sprintf("the outside copy (generation %d) of ring record %d does not decode: %v", p.gen, rec.Seq, err))
				return nil, false
			}
			return d, true
		}
	} else if msg, err = cappedMsg(rec.Data); err == nil {
		d, err = document.Unmarshal(msg)
	}
	if err != nil {
		res.corrupt(int64(rec.Seq), fmt.Sprintf("ring record %d at offset %d does not decode: %v", rec.Seq, rec.Off, err))
		return nil, false
	}
	return d, true
}
