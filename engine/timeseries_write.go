package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"github.com/ttlkv/ttlkv/ts"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// tsState is a time-series collection's in-memory write state, kept in
// its coll.ext and guarded by the buckets collection's wmu: the open
// buckets and how much of each is stored. It is made on the first insert
// after Open; buckets written before are not reopened, so measurements
// arriving after a restart start new buckets (old buckets keep any
// deltas, which reads merge).
type tsState struct {
	bk   *ts.Bucketer
	opts ts.Options
	open map[bson.ObjectID]*tsOpen
}

// tsCatalogStats are the bucket catalog counters collStats lists for a
// time-series collection, under mongod's names (docs/timeseries.md
// §6.4). Like mongod's they live in memory: they start at zero when the
// collection is made or the server starts. Each counts what committed.
type tsCatalogStats struct {
	inserts      atomic.Int64 // buckets written new (numBucketInserts)
	updates      atomic.Int64 // writes adding measurements to a stored bucket (numBucketUpdates)
	forMeta      atomic.Int64 // numBucketsOpenedDueToMetadata
	forCount     atomic.Int64 // numBucketsClosedDueToCount
	forSize      atomic.Int64 // numBucketsClosedDueToSize
	forTime      atomic.Int64 // numBucketsClosedDueToTimeForward
	commits      atomic.Int64 // bucket writes that added measurements (numCommits)
	measurements atomic.Int64 // measurements those writes added (numMeasurementsCommitted)
}

// add counts a committed chunk: the bucketer's events and the writes.
func (s *tsCatalogStats) add(ev ts.Events, inserts, updates, measurements int64) {
	s.inserts.Add(inserts)
	s.updates.Add(updates)
	s.forMeta.Add(ev.OpenedForMeta)
	s.forCount.Add(ev.ClosedForCount)
	s.forSize.Add(ev.ClosedForSize)
	s.forTime.Add(ev.ClosedForTimeForward)
	s.commits.Add(inserts + updates)
	s.measurements.Add(measurements)
}

// fields renders the counters in the order mongod 7.0's
// appendExecutionStatsToBuilder appends them, leaving out those whose
// events ttlkv's bucketer does not have (docs/timeseries.md §6.4).
func (s *tsCatalogStats) fields() bson.D {
	commits, n := s.commits.Load(), s.measurements.Load()
	d := bson.D{
		{Key: "numBucketInserts", Value: int32OrLong(s.inserts.Load())},
		{Key: "numBucketUpdates", Value: int32OrLong(s.updates.Load())},
		{Key: "numBucketsOpenedDueToMetadata", Value: int32OrLong(s.forMeta.Load())},
		{Key: "numBucketsClosedDueToCount", Value: int32OrLong(s.forCount.Load())},
		{Key: "numBucketsClosedDueToSize", Value: int32OrLong(s.forSize.Load())},
		{Key: "numBucketsClosedDueToTimeForward", Value: int32OrLong(s.forTime.Load())},
		{Key: "numCommits", Value: int32OrLong(commits)},
		{Key: "numMeasurementsCommitted", Value: int32OrLong(n)},
	}
	if commits > 0 {
		d = append(d, bson.E{Key: "avgNumMeasurementsPerCommit", Value: int32OrLong(n / commits)})
	}
	return d
}

// tsOpen is the stored state of one open bucket.
type tsOpen struct {
	rid       uint64
	stored    int    // measurements stored: base plus deltas
	base      int    // measurements in the base record
	deltas    uint32 // delta records since the base (seq 0..deltas-1)
	baseBytes int    // stored size of the base record
	gen       uint64 // DB.tsRemovals when the bucket was last written
}

// tsStateOf returns c's write state for options o, making it when
// needed. The caller holds the buckets collection's wmu.
func tsStateOf(c *coll, o ts.Options) *tsState {
	st, _ := c.ext.(*tsState)
	if st == nil {
		st = &tsState{bk: ts.NewBucketer(o), opts: o, open: map[bson.ObjectID]*tsOpen{}}
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
		if _, open := st.open[id]; open {
			st.bk.Forget(id)
			delete(st.open, id)
		}
	}
}

// tsForget drops the buckets ids, removed by a writer that does not hold
// bc.wmu while it reports them (the TTL reaper), from c's open set. It
// takes bc.wmu.
func tsForget(c, bc *coll, ids []bson.ObjectID) {
	if len(ids) == 0 {
		return
	}
	if h := c.db.opts.seams.tsReapForgetHook; h != nil {
		h()
	}
	bc.wmu.Lock()
	defer bc.wmu.Unlock()
	st, _ := c.ext.(*tsState)
	st.forget(ids)
}

// DB.tsRemovals counts bucket record removals staged in any buckets
// collection of the database (tsRemoveDeltas bumps it, inside the remover's transaction,
// before it commits). An insert that extends open bucket B checks that
// B's record still exists only when the count moved since B was last
// written: a remover of B stages after that write committed (it reads
// B's record, and its next delta key, which the write changed, so an
// earlier staging conflicts and is staged again), hence after the count
// was read for that write, and bumps it. With no removals (the usual
// case while loading) the check costs nothing.

// errTSBucketGone aborts an insert transaction that was to extend an
// open bucket whose record another writer removed (the TTL reaper
// reports its removals after releasing the wmu): the chunk is bucketed
// again with a fresh Bucketer.
var errTSBucketGone = errors.New("engine: open time-series bucket was removed")

// Bounds of one time-series insert transaction: measurements, the
// estimated bytes it writes, and the estimated keys it sets or deletes.
const (
	tsChunkDocs  = 20000
	tsChunkBytes = 4 << 20
	tsChunkKeys  = 20000
)

// insertSpecialTimeseries inserts measurements into time-series
// collection c (docs/timeseries.md §6.3). Each measurement gets an _id like an
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
		return nil, nil, document.Errorf(document.CodeNamespaceNotFound, "buckets collection %s.%s of time-series collection %s is missing", c.m().DB, t.buckets, c.m().NS())
	}
	ids = make([]any, len(docs))
	prepared := make([]bson.D, len(docs))
	prep := newTSPrepare(len(docs))
	metaIxs := tsMetaIndexes(bc.m())
	stopAt, err := prepareAll(len(docs), ordered, &werrs, func(i int) error {
		d, e := prep.prepare(docs[i])
		var meta any
		var hasMeta bool
		if e == nil {
			_, meta, hasMeta, e = t.opts.Split(d)
		}
		if e == nil && hasMeta {
			// A meta the buckets' indexes cannot key (two arrays: 171)
			// is this measurement's write error, not the batch's.
			e = tsCheckMetaKeys(metaIxs, meta)
		}
		if e == nil {
			prepared[i] = d
		}
		return e
	})
	if err != nil {
		return nil, nil, err
	}
	i := 0
	for i < stopAt {
		if err := ctxErr(ctx); err != nil {
			return ids, werrs, err
		}
		start := i
		var chunkErrs []WriteError
		var stop bool
		scale := 1
		i, chunkErrs, stop, err = db.tsInsertChunk(c, bc, prepared, start, stopAt, ordered, scale)
		for gone := 0; (err == errTSBucketGone && gone < 3) || (errors.Is(err, lsm.ErrTxnTooBig) && scale < 1<<10); {
			// The chunk's buckets are all new with the fresh Bucketer. A
			// chunk whose buckets outgrew one transaction (nothing of it
			// was committed) is redone with half the bounds.
			if err == errTSBucketGone {
				gone++
			} else {
				scale *= 2
			}
			i, chunkErrs, stop, err = db.tsInsertChunk(c, bc, prepared, start, stopAt, ordered, scale)
		}
		if err != nil {
			return ids, werrs, err
		}
		ackIDs(ids, prepared, start, i, chunkErrs)
		werrs = append(werrs, chunkErrs...)
		if stop {
			break
		}
	}
	return ids, finishWriteErrors(werrs, ordered), nil
}

// tsInsertChunk bucketises prepared[start:] up to the chunk bounds and
// writes, in one transaction, what changed: a base record for each new
// bucket, a delta for each open bucket that grew, and a new base (its
// deltas deleted) for each bucket whose deltas outgrew its base or that
// closed. It returns where it stopped, the measurements that failed, and
// whether an ordered insert must stop.
func (db *DB) tsInsertChunk(c *coll, bc *coll, prepared []bson.D, start, stopAt int, ordered bool, scale int) (next int, chunkErrs []WriteError, stop bool, err error) {
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
	gen := db.tsRemovals.Load()
	bm := bc.m()
	// The buckets the chunk touched, in order, and what happened to
	// them (keyed by pointer: a Bucketer never has two buckets of one
	// ID).
	var order []*ts.Bucket
	const touched, created, closed = 1, 2, 4
	flags := map[*ts.Bucket]uint8{}
	touch := func(b *ts.Bucket, f uint8) {
		old := flags[b]
		if old == 0 {
			order = append(order, b)
		}
		flags[b] = old | touched | f
	}
	bytesIn, keysIn := 0, 0
	// estimate is what a transaction may write for an existing bucket:
	// a new base (about twice the last one) and deleting its deltas.
	estimate := func(b *ts.Bucket) {
		if ob := st.open[b.ID]; ob != nil {
			bytesIn += 2*ob.baseBytes + 256
			keysIn += int(ob.deltas) + 2
		}
	}
	i := start
	// The store's limits (Badger allows 15% of a memtable per
	// transaction) bound the chunk too, with half left as headroom for
	// bucket overhead, divided by scale when a larger chunk overflowed
	// (small buckets of wide measurements write several times the
	// measurements' size).
	maxBytes := min(tsChunkBytes, int(db.store.MaxBatchSize()/2)) / scale
	maxKeys := min(tsChunkKeys, int(db.store.MaxBatchCount()/2)) / scale
	for ; i < stopAt && i-start < tsChunkDocs && bytesIn < maxBytes && keysIn < maxKeys; i++ {
		d := prepared[i]
		if d == nil {
			continue
		}
		b, isNew, e := st.bk.Insert(d)
		if e != nil {
			var fault error
			if stop, fault = writeFailed(&chunkErrs, i, e, ordered); fault != nil {
				c.ext = nil
				return start, nil, false, fault
			}
			if stop {
				i++
				break
			}
			continue
		}
		for _, cb := range st.bk.TakeClosed() {
			if f := flags[cb]; f&closed == 0 {
				if f == 0 {
					estimate(cb)
				}
				touch(cb, closed)
			}
		}
		var f uint8
		if isNew {
			f = created
			keysIn += 1 + len(bm.Indexes)
		} else if flags[b] == 0 {
			estimate(b)
		}
		touch(b, f)
		keysIn++
		bytesIn += document.Size(d)
	}
	// Whether the chunk stores a time outside 1970..2038 (docs/timeseries.md §6.8):
	// a bucket holds one exactly when its min or max time is outside
	// (its min time is a measurement's time rounded down, which stays
	// on the same side of 1970 and below the max).
	outOfRange := false
	for _, b := range order {
		outOfRange = outOfRange || ts.OutOfTTLRange(b.MinTime) || ts.OutOfTTLRange(b.MaxTime())
	}
	if h := db.opts.seams.tsBucketedHook; h != nil {
		h()
	}
	// Plan the writes outside the transaction (encoding is the costly
	// part); the new stored states apply after commit.
	type tsWrite struct {
		b      *ts.Bucket
		kind   byte // 'i' insert base, 'f' fold into a new base, 'd' append a delta
		doc    bson.D
		raw    []byte
		drop   uint32 // deltas to delete (fold)
		after  tsOpen
		closed bool
		check  bool // verify that the bucket's record still exists
		added  int  // measurements the write adds to what is stored
	}
	writes := make([]tsWrite, 0, len(order))
	// An index the user made on the buckets collection may key on what
	// grows (control.max): its buckets then keep no deltas, every write
	// a new base whose old keys are read back (tsMutableIndexes).
	mutable := tsMutableIndexes(bm, t.opts)
	for _, b := range order {
		w := tsWrite{b: b, closed: flags[b]&closed != 0}
		ob := st.open[b.ID]
		if w.added = b.Count(); ob != nil {
			w.added -= ob.stored
		}
		switch {
		case flags[b]&created != 0:
			w.kind = 'i'
			w.after = tsOpen{rid: bc.nextRID.Add(1)}
		case ob == nil:
			c.ext = nil
			return start, nil, false, document.Errorf(document.CodeInternalError, "time-series bucket %s has no record id", b.ID.Hex())
		case b.Count() == ob.stored && (ob.deltas == 0 || !w.closed):
			continue // closed with nothing to fold
		case mutable || w.closed || b.Count()-ob.base >= ob.base || ob.deltas >= tsMaxDeltas:
			w.kind, w.drop = 'f', ob.deltas
			w.after = tsOpen{rid: ob.rid}
		default:
			w.kind = 'd'
			if w.raw, err = encodeDelta(b, ob.stored); err != nil {
				c.ext = nil
				return start, nil, false, err
			}
			w.after = *ob
			w.after.stored, w.after.deltas = b.Count(), ob.deltas+1
		}
		w.check = ob != nil && ob.gen != gen
		w.after.gen = gen
		if w.kind != 'd' {
			if w.doc, err = b.CompressedDocument(t.opts); err == nil {
				w.raw, err = document.Marshal(w.doc)
			}
			if err != nil {
				c.ext = nil
				return start, nil, false, err
			}
			w.after.stored, w.after.base, w.after.baseBytes = b.Count(), b.Count(), len(w.raw)
		}
		writes = append(writes, w)
	}
	var newBM, newTM *catalog.Coll
	err = db.store.Update(func(txn *lsm.Txn) error {
		newBM, newTM = nil, nil
		w := &writeCtx{c: bc, m: bc.m(), txn: txn}
		for _, x := range writes {
			var e error
			switch x.kind {
			case 'i':
				e = w.insert(x.after.rid, x.doc, x.raw)
			case 'f':
				if x.check {
					if e = tsCheckLive(txn, w.m.ID, x.after.rid); e != nil {
						return e
					}
				}
				old := x.doc // the keys of the fixed indexes do not change
				if mutable {
					if old, _, e = getRecord(txn, w.m.ID, x.after.rid); e != nil {
						return e
					}
				}
				e = w.replace(x.after.rid, old, x.doc, x.raw)
				for seq := uint32(0); seq < x.drop && e == nil; seq++ {
					e = txn.Delete(tsDeltaKey(w.m.ID, x.after.rid, seq))
				}
			case 'd':
				if x.check {
					if e = tsCheckLive(txn, w.m.ID, x.after.rid); e != nil {
						return e
					}
				}
				e = txn.Set(tsDeltaKey(w.m.ID, x.after.rid, x.after.deltas-1), x.raw)
			}
			if e != nil {
				return e
			}
		}
		var e error
		if newTM, e = tsFlagOutOfRange(txn, m, outOfRange && !t.outOfRange); e != nil {
			return e
		}
		newBM, e = w.commitMultikey()
		return e
	})
	if err != nil {
		// The bucketer holds measurements that were not stored: start
		// afresh with new buckets (errTSBucketGone: the caller retries).
		c.ext = nil
		return start, nil, false, err
	}
	if newBM != nil {
		bc.meta.Store(newBM)
	}
	if newTM != nil {
		c.meta.Store(newTM)
	}
	var inserts, updates, added int64
	for _, x := range writes {
		after := x.after
		st.open[x.b.ID] = &after
		switch {
		case x.kind == 'i':
			inserts++
		case x.added > 0: // not a closed bucket's deltas folded
			updates++
		}
		added += int64(x.added)
	}
	c.tsStats.add(st.bk.TakeEvents(), inserts, updates, added)
	for b, f := range flags {
		if f&closed != 0 {
			delete(st.open, b.ID)
		}
	}
	return i, chunkErrs, stop, nil
}

// tsCheckLive returns errTSBucketGone when bucket record rid of buckets
// collection coll no longer exists. Every remover of buckets commits
// under the wmu the inserting writer holds, so what txn sees is final
// until it commits.
func tsCheckLive(txn *lsm.Txn, coll, rid uint64) error {
	ok, err := txn.Has(lsm.RecordKey(coll, rid))
	if err == nil && !ok {
		err = errTSBucketGone
	}
	return err
}

// tsFlagOutOfRange, when flag is set, records in txn that time-series
// collection m now holds measurements outside the range the TTL monitor
// expires (docs/timeseries.md) and returns m's new catalog entry to
// publish after the commit; otherwise it returns nil.
func tsFlagOutOfRange(txn *lsm.Txn, m *catalog.Coll, flag bool) (*catalog.Coll, error) {
	if !flag {
		return nil, nil
	}
	nm := m.Clone()
	nm.Extra = set(append(bson.D(nil), m.Extra...), "outOfRange", true)
	if err := putMeta(txn, nm); err != nil {
		return nil, err
	}
	return nm, nil
}

// tsMetaIndexes are the indexes of a buckets collection that read only
// its meta field.
func tsMetaIndexes(bm *catalog.Coll) []*catalog.Index {
	var out []*catalog.Index
	for _, ix := range bm.Indexes {
		onMeta := len(ix.Key) > 0
		for _, f := range ix.Key {
			if f.Key != "meta" && !strings.HasPrefix(f.Key, "meta.") {
				onMeta = false
			}
		}
		if onMeta {
			out = append(out, ix)
		}
	}
	return out
}

// tsCheckMetaKeys reports the error keying a bucket of this meta value
// would meet in the meta indexes ixs.
func tsCheckMetaKeys(ixs []*catalog.Index, meta any) error {
	if len(ixs) == 0 {
		return nil
	}
	d := bson.D{{Key: "meta", Value: meta}}
	for _, ix := range ixs {
		if _, _, err := indexkey.Of(ix, d); err != nil {
			return err
		}
	}
	return nil
}

// tsMutableIndexes reports whether buckets collection bm has an index
// whose keys may change as a bucket grows: one the user created on
// system.buckets.<name> (docs/timeseries.md, "Indexes on the buckets
// collection") on anything but _id, meta and control.min.<timeField>.
// The engine's own indexes key on those alone.
func tsMutableIndexes(bm *catalog.Coll, o ts.Options) bool {
	for _, ix := range bm.Indexes {
		for _, k := range ix.Key {
			switch {
			case k.Key == "_id", k.Key == "meta", strings.HasPrefix(k.Key, "meta."),
				k.Key == "control.min."+o.TimeField:
			default:
				return true
			}
		}
	}
	return false
}

// tsFoldAllDeltas rewrites every bucket of buckets collection bc that
// has deltas as one base record and deletes its deltas, and makes the
// time-series collection's writer start new buckets: done before an
// index that tsMutableIndexes counts is built, so that from then on no
// bucket has deltas and a bucket's stored record is all of it. The
// caller holds bc's write lock.
func (db *DB) tsFoldAllDeltas(ctx context.Context, bc *coll) error {
	owner := db.bucketsTarget(bc.m().DB, bc.m().Name)
	o, ok := db.bucketsOptions(bc.m())
	if owner == nil || !ok {
		return nil
	}
	owner.ext = nil
	var rids []uint64
	err := db.store.View(func(txn *lsm.Txn) error {
		pre := lsm.IndexPrefix(bc.m().ID, tsDeltaIndexID)
		it := txn.NewIter(lsm.IterOptions{Prefix: pre, KeysOnly: true})
		defer it.Close()
		for it.Next() {
			k := it.Key()
			if len(k) < len(pre)+8 {
				continue
			}
			rid := binary.BigEndian.Uint64(k[len(pre):])
			if n := len(rids); n == 0 || rids[n-1] != rid {
				rids = append(rids, rid) // keys come in rid order
			}
		}
		return it.Err()
	})
	if err != nil {
		return err
	}
	for len(rids) > 0 {
		if err := ctxErr(ctx); err != nil {
			return err
		}
		n := min(len(rids), 64)
		batch := rids[:n]
		rids = rids[n:]
		err := db.store.Update(func(txn *lsm.Txn) error {
			w := &writeCtx{c: bc, m: bc.m(), txn: txn}
			for _, rid := range batch {
				d, b, found, err := tsLoadBucket(txn, o, w.m.ID, rid)
				if err != nil {
					return err
				} else if !found {
					continue
				}
				nd, raw, err := tsEncodeBucket(o, b)
				if err != nil {
					return err
				}
				if err := w.replace(rid, d, nd, raw); err != nil {
					return err
				}
				if err := db.tsRemoveDeltas(txn, w.m.ID, rid); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
