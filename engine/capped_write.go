package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/doc"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// insertSpecial inserts into capped collections; time-series inserts are
// not implemented here.
func (db *DB) insertSpecial(ctx context.Context, c *coll, docs []any, ordered bool) ([]any, []WriteError, error) {
	if c.m().Kind != kindCapped {
		return nil, nil, doc.Errorf(codeNotImplemented, "inserts into %s collections are not implemented yet", c.m().Kind)
	}
	return db.insertCapped(ctx, c, docs, ordered)
}

// cappedDoc is one document prepared for a capped insert.
type cappedDoc struct {
	d       bson.D
	payload []byte // framed msgpack
	ks      []byte // _id keystring
}

// prepareCapped normalises v and frames it for the ring.
func prepareCapped(m *collMeta, v any) (cappedDoc, error) {
	d, err := prepareInsert(v)
	if err != nil {
		return cappedDoc{}, err
	}
	msg, err := doc.Marshal(d)
	if err != nil {
		return cappedDoc{}, err
	}
	ks, err := cappedIDKey(m, d)
	if err != nil {
		return cappedDoc{}, err
	}
	return cappedDoc{d: d, payload: encodeCappedPayload(make([]byte, 0, len(msg)+3), msg, 0), ks: ks}, nil
}

// insertCapped appends docs to c's ring, each evicting the oldest
// records as the limits require, and indexes their _id. Ordered inserts
// stop at the first failure. The write lock is held per chunk.
func (db *DB) insertCapped(ctx context.Context, c *coll, docs []any, ordered bool) ([]any, []WriteError, error) {
	m := c.m()
	ids := make([]any, len(docs))
	var werrs []WriteError
	preps := make([]cappedDoc, len(docs))
	ok := make([]bool, len(docs))
	stopAt := len(docs)
	for i, v := range docs {
		p, err := prepareCapped(m, v)
		if err != nil {
			ue, user := asUserError(err)
			if !user {
				return nil, nil, err
			}
			werrs = append(werrs, WriteError{Index: i, Err: ue})
			if ordered {
				stopAt = i
				break
			}
			continue
		}
		preps[i], ok[i] = p, true
	}
	for i := 0; i < stopAt; {
		if err := ctxErr(ctx); err != nil {
			return ids, werrs, err
		}
		c.wmu.Lock()
		if c.dropped.Load() {
			c.wmu.Unlock()
			return ids, werrs, errDropped
		}
		st, err := cappedOf(c)
		if err != nil {
			c.wmu.Unlock()
			return ids, werrs, err
		}
		w := newCappedWriter(db, c, st)
		end := min(stopAt, i+insertChunkDocs)
		if err := w.prefetch(preps[i:end], ok[i:end]); err != nil {
			c.wmu.Unlock()
			return ids, werrs, err
		}
		stop := false
		var acked []int
		for ; i < end && !stop; i++ {
			if !ok[i] {
				continue
			}
			if err := w.insert(preps[i]); err != nil {
				ue, user := asUserError(err)
				if !user {
					w.flush()
					c.wmu.Unlock()
					return ids, werrs, err
				}
				werrs = append(werrs, WriteError{Index: i, Err: ue})
				stop = ordered
				continue
			}
			acked = append(acked, i)
		}
		err = w.flush()
		c.wmu.Unlock()
		if err != nil {
			return ids, werrs, err
		}
		for _, j := range acked {
			ids[j] = preps[j].d[0].Value
		}
		if stop {
			break
		}
	}
	sortWriteErrors(werrs)
	if ordered && len(werrs) > 1 {
		werrs = werrs[:1]
	}
	return ids, werrs, nil
}

// cappedWriter appends to one capped collection under its write lock.
// Index entries of appended documents are batched (pending) and
// committed by flush, or earlier by the evict callback, which must
// commit the deletes of evicted records' entries before it returns.
type cappedWriter struct {
	db      *DB
	c       *coll
	m       *collMeta
	st      *cappedState
	pending map[uint64]pendingID // by sequence: entries not yet committed
	byKey   map[string]uint64    // _id keystring -> sequence, inserted in this chunk
	err     error                // first failure of the evict callback
	bulk    bool                 // this append evicts a step: accept any eviction
	snap    map[string]bool      // _id keys of the chunk live at its start; nil: unknown
}

// errBulkEvict makes the evict callback refuse a small eviction for
// space, so that the insert retries it as a step (see cappedEvictStep).
var errBulkEvict = errors.New("engine: capped eviction for space: evict a step")

// cappedEvictStep is how many payload bytes an insert that finds the
// ring full evicts at once: 1/16 of the size, between 256 bytes and 4
// MiB. Evicting record by record would cost a Badger commit per insert
// (the crash protocol commits the evicted _id entries before the ring
// reuses their space); a step costs one commit per many inserts. So a
// wrapping capped collection holds between size-step and size bytes of
// documents (bounded by its file, see package capped). Evictions for
// max are never stepped: a collection at max keeps exactly max
// documents.
func cappedEvictStep(size int64) int64 { return min(max(size/16, 256), 4<<20) }

type pendingID struct {
	ks  []byte
	off int64
}

func newCappedWriter(db *DB, c *coll, st *cappedState) *cappedWriter {
	return &cappedWriter{db: db, c: c, m: c.m(), st: st, pending: map[uint64]pendingID{}, byKey: map[string]uint64{}}
}

// prefetch notes which _id keys of a chunk's documents the index held
// when the chunk started, with one index scan over their key range,
// instead of one lookup per document. It gives up (leaving per-document
// lookups) when the range holds many more entries than the chunk.
func (w *cappedWriter) prefetch(docs []cappedDoc, ok []bool) error {
	var keys [][]byte
	want := map[string]bool{}
	for i, d := range docs {
		if ok[i] {
			keys = append(keys, d.ks)
			want[string(d.ks)] = true
		}
	}
	if len(keys) < 2 {
		return nil
	}
	slices.SortFunc(keys, bytes.Compare)
	pre := lsm.IndexPrefix(w.m.ID, idIndexID)
	lo := append(append([]byte(nil), pre...), keys[0]...)
	hi := lsm.PrefixEnd(append(append([]byte(nil), pre...), keys[len(keys)-1]...))
	first := w.st.ring.FirstSeq()
	snap := map[string]bool{}
	limit := 4*len(keys) + 64
	err := w.db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: pre, Lower: lo, Upper: hi, KeysOnly: true})
		defer it.Close()
		for n := 0; it.Next(); n++ {
			if n >= limit {
				snap = nil
				return nil
			}
			k := it.Key()
			if len(k) < len(pre)+8 {
				continue
			}
			ks, seq, _ := lsm.SplitIndexKey(k)
			if seq >= first && want[string(ks)] {
				snap[string(ks)] = true
			}
		}
		return it.Err()
	})
	w.snap = snap
	return err
}

// idTaken reports whether a live document already has the _id keystring ks.
func (w *cappedWriter) idTaken(ks []byte) (bool, error) {
	first := w.st.ring.FirstSeq()
	if seq, ok := w.byKey[string(ks)]; ok && seq >= first {
		return true, nil
	}
	if w.snap != nil && !w.snap[string(ks)] {
		return false, nil // absent when the chunk began, not inserted since
	}
	pre := append(lsm.IndexPrefix(w.m.ID, idIndexID), ks...)
	taken := false
	err := w.db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: pre, KeysOnly: true})
		defer it.Close()
		for it.Next() {
			k := it.Key()
			if len(k) != len(pre)+8 {
				continue
			}
			if _, seq, _ := lsm.SplitIndexKey(k); seq >= first {
				taken = true
				return nil
			}
		}
		return it.Err()
	})
	return taken, err
}

// insert appends one document and queues its _id entry.
func (w *cappedWriter) insert(p cappedDoc) error {
	taken, err := w.idTaken(p.ks)
	if err != nil {
		return err
	}
	if taken {
		return dupKeyErr(w.m, w.m.Indexes[0], p.d)
	}
	w.err = nil
	w.bulk = false
	lim := w.st.limits()
	seq, off, err := w.st.ring.Append(p.payload, lim, w.evict)
	if errors.Is(err, errBulkEvict) {
		// The ring is full: evict a step of bytes at once (see
		// cappedEvictStep), with one commit for all of them.
		lim.MaxDataBytes = max(w.st.ring.DataBytes()+int64(len(p.payload))-cappedEvictStep(w.st.opts.size), int64(len(p.payload)))
		w.bulk = true
		seq, off, err = w.st.ring.Append(p.payload, lim, w.evict)
	}
	if err != nil {
		if w.err != nil {
			return w.err
		}
		return cappedErr(w.c, err)
	}
	failpoint(FailpointCappedAfterAppend)
	w.pending[seq] = pendingID{ks: p.ks, off: off}
	w.byKey[string(p.ks)] = seq
	return nil
}

// evict is the ring's evict callback: it deletes the _id entries of the
// records leaving the ring, writes the pending entries of live records,
// and commits, all before the ring reuses any space.
func (w *cappedWriter) evict(recs []capped.Record) error {
	if !w.bulk && (w.st.opts.max <= 0 || w.st.ring.Count() < w.st.opts.max) {
		var n int64
		for _, r := range recs {
			n += int64(len(r.Data))
		}
		if n < cappedEvictStep(w.st.opts.size)/2 {
			return errBulkEvict
		}
	}
	b := w.db.store.NewBatch()
	for _, rec := range recs {
		if _, ok := w.pending[rec.Seq]; ok {
			delete(w.pending, rec.Seq)
			continue
		}
		d, err := decodeCappedPayload(rec.Data)
		if err != nil {
			b.Cancel()
			w.err = fmt.Errorf("engine: evicting capped record %d: %w", rec.Seq, err)
			return w.err
		}
		ks, err := cappedIDKey(w.m, d)
		if err != nil {
			b.Cancel()
			w.err = fmt.Errorf("engine: evicting capped record %d: %w", rec.Seq, err)
			return w.err
		}
		if err := b.Delete(lsm.IndexKey(w.m.ID, idIndexID, ks, rec.Seq)); err != nil {
			b.Cancel()
			w.err = err
			return err
		}
	}
	if err := w.queuePending(b); err != nil {
		b.Cancel()
		w.err = err
		return err
	}
	if err := b.Flush(); err != nil {
		w.err = err
		return err
	}
	failpoint(FailpointCappedEvict)
	clear(w.pending)
	return nil
}

func (w *cappedWriter) queuePending(b *lsm.Batch) error {
	for seq, p := range w.pending {
		if err := b.Set(lsm.IndexKey(w.m.ID, idIndexID, p.ks, seq), offValue(p.off)); err != nil {
			return err
		}
	}
	return nil
}

// flush commits the pending _id entries.
func (w *cappedWriter) flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	b := w.db.store.NewBatch()
	if err := w.queuePending(b); err != nil {
		b.Cancel()
		return err
	}
	if err := b.Flush(); err != nil {
		return err
	}
	clear(w.pending)
	return nil
}

// cappedErr maps ring errors to the engine's: a closed ring of a dropped
// collection is 175 QueryPlanKilled; errors carrying a *doc.Error
// (ErrTooLarge, ErrOverwritten, ErrSizeChanged) keep it.
func cappedErr(c *coll, err error) error {
	if errors.Is(err, capped.ErrClosed) && c.dropped.Load() {
		return doc.Errorf(doc.CodeQueryPlanKilled, "collection dropped: %s", c.m().ns())
	}
	var de *doc.Error
	if errors.As(err, &de) {
		return doc.Errorf(de.Code, "%s", de.Message)
	}
	return cappedFailedErr(c, err)
}

// cappedUpdate rewrites record rid (a ring sequence) of capped collection
// c in place, from the document encoded as oldRaw to newRaw (msgpack).
func (db *DB) cappedUpdate(c *coll, rid uint64, oldRaw, newRaw []byte) error {
	st, err := cappedOf(c)
	if err != nil {
		return err
	}
	od, err := doc.Unmarshal(oldRaw)
	if err != nil {
		return err
	}
	nd, err := doc.Unmarshal(newRaw)
	if err != nil {
		return err
	}
	it := st.ring.Scan(rid, false)
	if !it.Next() || it.Record().Seq != rid {
		if it.Err() != nil {
			return cappedErr(c, it.Err())
		}
		return doc.Errorf(doc.CodeCappedPositionLost, "capped record %d no longer exists", rid)
	}
	return cappedOverwrite(c, st, it.Record(), od, nd, newRaw)
}

// cappedOverwrite replaces rec (holding oldDoc) with newDoc (encoded as
// msg). A change of the document's BSON size is 10003, as in MongoDB; so
// is the rare same-size update whose storage encoding no longer fits the
// record.
func cappedOverwrite(c *coll, st *cappedState, rec capped.Record, oldDoc, newDoc bson.D, msg []byte) error {
	if o, n := doc.Size(oldDoc), doc.Size(newDoc); o != n {
		return doc.Errorf(doc.CodeCannotGrowDocumentInCappedNS, "Cannot change the size of a document in a capped collection: %d != %d", o, n)
	}
	head := len(encodeCappedPayload(nil, msg, 0))
	pad := len(rec.Data) - head
	if pad < 0 {
		return doc.Errorf(doc.CodeCannotGrowDocumentInCappedNS, "Cannot change the size of a document in a capped collection: its stored encoding grows from %d to %d bytes", len(rec.Data), head)
	}
	if err := st.ring.Overwrite(rec.Seq, rec.Off, encodeCappedPayload(make([]byte, 0, len(rec.Data)), msg, pad)); err != nil {
		return cappedErr(c, err)
	}
	return nil
}

// applyCappedUpdates is applyUpdates for a capped collection: rids are
// ring sequences; each document is re-read from the ring and re-matched
// under the write lock, and rewritten in place.
func (db *DB) applyCappedUpdates(c *coll, rids []uint64, f *query.Filter, u *query.Update, now time.Time, returnNew bool) (matched, modified int64, last bson.D, err error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.dropped.Load() {
		return 0, 0, nil, errDropped
	}
	st, err := cappedOf(c)
	if err != nil {
		return 0, 0, nil, err
	}
	for _, seq := range rids {
		it := st.ring.Scan(seq, false)
		if !it.Next() || it.Record().Seq != seq {
			if e := it.Err(); e != nil && !errors.Is(e, capped.ErrOverwritten) {
				return matched, modified, last, cappedErr(c, e)
			}
			continue // evicted since it was selected
		}
		rec := it.Record()
		d, err := decodeCappedPayload(rec.Data)
		if err != nil {
			return matched, modified, last, err
		}
		if !f.Match(d) {
			continue
		}
		nd, err := u.Apply(d, query.UpdateOptions{Now: now})
		if err != nil {
			return matched, modified, last, err
		}
		matched++
		if returnNew {
			last = nd
		} else {
			last = d
		}
		// A no-op only when the encoding is the same ($set of 1.0 over 1
		// changes the type).
		msg, err := doc.Marshal(nd)
		if err != nil {
			return matched - 1, modified, last, err
		}
		if old, _ := cappedMsg(rec.Data); bytes.Equal(old, msg) {
			continue
		}
		if !doc.Equal(idOf(d), idOf(nd)) {
			return matched - 1, modified, last, doc.Errorf(doc.CodeImmutableField, "Performing an update on the path '_id' would modify the immutable field '_id'")
		}
		if err := doc.ValidateForStorage(nd); err != nil {
			return matched - 1, modified, last, err
		}
		if err := cappedOverwrite(c, st, rec, d, nd, msg); err != nil {
			return matched - 1, modified, last, err
		}
		modified++
	}
	return matched, modified, last, nil
}
