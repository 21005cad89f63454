package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/doc"
	"github.com/ttlkv/ttlkv/lsm"
	"github.com/ttlkv/ttlkv/ts"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// tsState is a time-series collection's in-memory write state, kept in
// its coll.ext and guarded by the buckets collection's wmu: the open
// buckets and the record ids of the buckets written so far. It is made
// on the first insert after Open; buckets written before are not
// reopened, so measurements arriving after a restart start new buckets.
type tsState struct {
	bk   *ts.Bucketer
	opts ts.Options
	rids map[bson.ObjectID]uint64 // record id of each open bucket
}

// tsStateOf returns c's write state for options o, making it when
// needed. The caller holds the buckets collection's wmu.
func tsStateOf(c *coll, o ts.Options) *tsState {
	st, _ := c.ext.(*tsState)
	if st == nil {
		st = &tsState{bk: ts.NewBucketer(o), opts: o, rids: map[bson.ObjectID]uint64{}}
		c.ext = st
	} else if st.opts != o {
		st.bk.SetOptions(o)
		st.opts = o
	}
	return st
}

// forget drops buckets that were deleted or rewritten from the open
// set, so no measurement joins a stale copy. The caller holds the
// buckets collection's wmu.
func (st *tsState) forget(ids []bson.ObjectID) {
	if st == nil {
		return
	}
	for _, id := range ids {
		if _, open := st.rids[id]; open {
			st.bk.Forget(id)
			delete(st.rids, id)
		}
	}
}

// Bounds of one time-series insert transaction: measurements, and the
// estimated bytes of bucket documents it writes.
const (
	tsChunkDocs  = 20000
	tsChunkBytes = 4 << 20
)

// insertSpecialTimeseries inserts measurements into time-series
// collection c (SPEC §6.3). Each measurement gets an _id like an
// ordinary document and must have its time field as a date (2
// BadValue). Measurements go to buckets through the collection's
// ts.Bucketer; each bucket touched is written once per transaction,
// inserted when new and replaced otherwise. Ordered inserts stop at the
// first bad measurement; unordered ones keep every valid one.
func (db *DB) insertTimeseries(ctx context.Context, c *coll, docs []any, ordered bool) (ids []any, werrs []WriteError, err error) {
	t, bc, err := db.tsParts(c)
	if err != nil {
		return nil, nil, err
	}
	if bc == nil {
		return nil, nil, doc.Errorf(doc.CodeNamespaceNotFound, "buckets collection %s.%s of time-series collection %s is missing", c.m().DB, t.buckets, c.m().ns())
	}
	ids = make([]any, len(docs))
	prepared := make([]bson.D, len(docs))
	stopAt := len(docs)
	for i, v := range docs {
		d, e := prepareInsert(v)
		if e == nil {
			_, _, _, e = t.opts.Split(d)
		}
		if e != nil {
			ue, ok := asUserError(e)
			if !ok {
				return nil, nil, e
			}
			werrs = append(werrs, WriteError{Index: i, Err: ue})
			if ordered {
				stopAt = i
				break
			}
			continue
		}
		prepared[i] = d
	}
	i := 0
	for i < stopAt {
		if err := ctxErr(ctx); err != nil {
			return ids, werrs, err
		}
		start := i
		var chunkErrs []WriteError
		var stop bool
		i, chunkErrs, stop, err = db.tsInsertChunk(c, bc, prepared, start, stopAt, ordered)
		if err != nil {
			return ids, werrs, err
		}
		for j := start; j < i; j++ {
			if prepared[j] != nil && !hasIndex(chunkErrs, j) {
				ids[j] = prepared[j][0].Value
			}
		}
		werrs = append(werrs, chunkErrs...)
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

// tsInsertChunk bucketises prepared[start:] up to the chunk bounds and
// writes the touched buckets in one transaction. It returns where it
// stopped, the measurements that failed, and whether an ordered insert
// must stop.
func (db *DB) tsInsertChunk(c *coll, bc *coll, prepared []bson.D, start, stopAt int, ordered bool) (next int, chunkErrs []WriteError, stop bool, err error) {
	bc.wmu.Lock()
	defer bc.wmu.Unlock()
	if c.dropped.Load() || bc.dropped.Load() {
		return start, nil, false, errDropped
	}
	m := c.m()
	t, err := decodeTSMeta(m)
	if err != nil {
		return start, nil, false, err
	}
	st := tsStateOf(c, t.opts)
	var order []*ts.Bucket
	dirty := map[bson.ObjectID]bool{}
	created := map[bson.ObjectID]bool{}
	outOfRange := false
	bytesIn := 0
	i := start
	for ; i < stopAt && i-start < tsChunkDocs && bytesIn < tsChunkBytes; i++ {
		d := prepared[i]
		if d == nil {
			continue
		}
		b, isNew, e := st.bk.Insert(d)
		if e != nil {
			ue, ok := asUserError(e)
			if !ok {
				c.ext = nil
				return start, nil, false, e
			}
			chunkErrs = append(chunkErrs, WriteError{Index: i, Err: ue})
			if ordered {
				i++
				stop = true
				break
			}
			continue
		}
		if !dirty[b.ID] {
			dirty[b.ID] = true
			order = append(order, b)
			bytesIn += b.Size()
		}
		if isNew {
			created[b.ID] = true
		}
		bytesIn += doc.Size(d)
		if tm, _, _, _ := t.opts.Split(d); ts.OutOfTTLRange(tm) {
			outOfRange = true
		}
	}
	closed := st.bk.TakeClosed()
	rids := make([]uint64, len(order))
	bdocs := make([]bson.D, len(order))
	raws := make([][]byte, len(order))
	for j, b := range order {
		if created[b.ID] {
			st.rids[b.ID] = bc.nextRID.Add(1)
		}
		rid, ok := st.rids[b.ID]
		if !ok {
			c.ext = nil
			return start, nil, false, doc.Errorf(doc.CodeInternalError, "time-series bucket %s has no record id", b.ID.Hex())
		}
		rids[j] = rid
		bdocs[j] = b.Document(t.opts)
		if raws[j], err = doc.Marshal(bdocs[j]); err != nil {
			c.ext = nil
			return start, nil, false, err
		}
	}
	var newBM, newTM *collMeta
	err = db.store.Update(func(txn *lsm.Txn) error {
		newBM, newTM = nil, nil
		w := &writeCtx{c: bc, m: bc.m(), txn: txn}
		for j, b := range order {
			var e error
			if created[b.ID] {
				e = w.insert(rids[j], bdocs[j], raws[j])
			} else {
				e = w.replace(rids[j], bdocs[j], bdocs[j], raws[j])
			}
			if e != nil {
				return e
			}
		}
		if outOfRange && !t.outOfRange {
			newTM = m.clone()
			newTM.Extra = set(append(bson.D(nil), m.Extra...), "outOfRange", true)
			if err := putMeta(txn, newTM); err != nil {
				return err
			}
		}
		var e error
		newBM, e = w.commitMultikey()
		return e
	})
	if err != nil {
		// The bucketer holds measurements that were not stored: start
		// afresh with new buckets.
		c.ext = nil
		return start, nil, false, err
	}
	if newBM != nil {
		bc.meta.Store(newBM)
	}
	if newTM != nil {
		c.meta.Store(newTM)
	}
	for _, b := range closed {
		delete(st.rids, b.ID)
	}
	return i, chunkErrs, stop, nil
}
