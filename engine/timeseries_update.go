package engine

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"github.com/ttlkv/ttlkv/ts"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Updates of time-series collections (docs/timeseries.md §6.9). Unless
// Options.TimeseriesArbitraryUpdates is set, tsCheckUpdate first refuses
// what mongod 7.0 refuses (timeseries_update_rules.go). An
// update statement unpacks the buckets its filter may touch, applies
// the update to each matching measurement and packs the result again,
// in one transaction per group of buckets:
//
//   - a bucket none of whose measurements changed is left as it is;
//   - the measurements of a changed bucket that still belong in it (the
//     same meta, a time in its range, room left) are rewritten into it,
//     with its control block computed afresh but its _id and min time
//     kept, so every measurement it holds lies in [min, min + span) and
//     bucket expiry (min + span + expireAfterSeconds) stays right; a
//     bucket left empty is removed;
//   - the others (a new meta, a time moved out of the bucket's range)
//     go into new buckets made by the ordinary bucketing rules, written
//     in the same transaction, so no measurement is ever lost or seen
//     twice.

// statementUpdater is a kind that runs update statements whole rather
// than record by record (a time-series collection's updates unpack and
// re-pack buckets).
type statementUpdater interface {
	updateStatement(ctx context.Context, db *DB, c *coll, s UpdateSpec, f *query.Filter, u *query.Update, srt *query.Sort, returnNew bool) (*UpdateResult, bson.D, error)
}

// oneDeleter is a kind that runs findAndModify's remove itself.
type oneDeleter interface {
	findOneAndDelete(ctx context.Context, db *DB, c *coll, filter, sortD bson.D) (bson.D, error)
}

func (timeseriesKind) updateStatement(ctx context.Context, db *DB, c *coll, s UpdateSpec, f *query.Filter, u *query.Update, srt *query.Sort, returnNew bool) (*UpdateResult, bson.D, error) {
	return db.updateTimeseries(ctx, c, s, f, u, srt, returnNew)
}

func (timeseriesKind) findOneAndDelete(ctx context.Context, db *DB, c *coll, filter, sortD bson.D) (bson.D, error) {
	return db.tsFindOneAndDelete(ctx, c, filter, sortD)
}

// tsMatch decides whether a measurement is to be written.
type tsMatch func(m bson.D) (bool, error)

// tsMatchTarget matches the measurements that match f and, when target
// is not nil, equal target (the measurement a sorted findAndModify
// chose).
func tsMatchTarget(f *query.Filter, target bson.D) tsMatch {
	return func(m bson.D) (bool, error) {
		if target != nil && document.Compare(m, target) != 0 {
			return false, nil
		}
		return f.MatchErr(m)
	}
}

// tsFirstInOrder returns the first measurement of time-series
// collection c matching f in sort order srt, or nil; srt nil or
// $natural: 1 is the order of the bucket scan, for which it returns
// nil, nil and the caller needs no target.
func (db *DB) tsFirstInOrder(ctx context.Context, c *coll, filter bson.D, f *query.Filter, srt *query.Sort) (target bson.D, sorted bool, err error) {
	if srt != nil {
		if dir, ok := srt.NaturalOrder(); ok && dir != 1 {
			return nil, false, document.Errorf(document.CodeBadValue, "$natural: -1 is not supported on time-series collections")
		}
	}
	if srt == nil {
		return nil, false, nil
	}
	if _, natural := srt.NaturalOrder(); natural || len(srt.Keys()) == 0 {
		return nil, false, nil
	}
	q, err := db.timeseriesQuery(c, filter, f, srt, FindOptions{Limit: 1}, nil)
	if err != nil {
		return nil, true, err
	}
	docs, err := q.nextBatch(ctx, 1)
	if err != nil || len(docs) == 0 {
		return nil, true, err
	}
	return docs[0], true, nil
}

// updateTimeseries runs update statement s, whose parsed filter is f
// and update u, on time-series collection c (docs/timeseries.md §6.9).
// srt, set by findAndModify, chooses the measurement a single update
// changes; returnNew asks for it after the change rather than before.
func (db *DB) updateTimeseries(ctx context.Context, c *coll, s UpdateSpec, f *query.Filter, u *query.Update, srt *query.Sort, returnNew bool) (*UpdateResult, bson.D, error) {
	t, err := decodeTSMeta(c.m())
	if err != nil {
		return nil, nil, err
	}
	if !db.opts.TimeseriesArbitraryUpdates {
		if err := tsCheckUpdate(s, t.opts.MetaField); err != nil {
			return nil, nil, err
		}
	}
	if s.Hint != nil {
		// The user's indexes name the hint (docs/timeseries.md §6.9); the
		// buckets are chosen by the bucket filter whatever it names.
		if _, _, err := resolveHint(c.m(), s.Hint); err != nil {
			return nil, nil, err
		}
	}
	res := &UpdateResult{}
	match := tsMatchTarget(f, nil)
	target, sorted, err := db.tsFirstInOrder(ctx, c, s.Filter, f, srt)
	if err != nil {
		return nil, nil, err
	}
	now := db.opts.Clock()
	var out bson.D
	if !sorted || target != nil {
		if target != nil {
			match = tsMatchTarget(f, target)
		}
		_, info, err := db.tsScanner(c, s.Filter, f)
		if err != nil {
			return nil, nil, err
		}
		db.tsNoteRead(info)
		if info.inner != nil {
			rids, _, err := candidates(ctx, info.inner, 0)
			if err != nil {
				return nil, nil, err
			}
			bc := info.inner.c
			var limit int64
			if !s.Multi || srt != nil {
				limit = 1
			}
			chunkLen := tsDeleteBatchBuckets
			for len(rids) > 0 && (limit == 0 || res.MatchedCount < limit) {
				if err := ctxErr(ctx); err != nil {
					return res, out, err
				}
				n := min(len(rids), chunkLen)
				left := int64(0)
				if limit > 0 {
					left = limit - res.MatchedCount
				}
				matched, modified, last, err := db.tsUpdateBatch(c, bc, rids[:n], match, u, now, left, returnNew)
				if errors.Is(err, lsm.ErrTxnTooBig) && n > 1 {
					// Nothing of the batch was committed: redo it in halves.
					chunkLen = n / 2
					continue
				}
				if err != nil {
					return res, out, err
				}
				rids = rids[n:]
				res.MatchedCount += matched
				res.ModifiedCount += modified
				if last != nil {
					out = last
				}
			}
		}
	}
	if res.MatchedCount == 0 && s.Upsert {
		nd, err := db.upsertOne(ctx, c.m().DB, c.m().Name, s, u, now, returnNew, res)
		return res, nd, err
	}
	return res, out, nil
}

// tsUpdateBatch applies u, in one transaction, to the measurements of
// the buckets rids that match (at most limit of them, 0: all),
// re-reading each bucket inside the transaction. A user error (an
// update that is not valid for a measurement, a time field that is no
// longer a date) fails the whole batch: nothing of it is written.
func (db *DB) tsUpdateBatch(c, bc *coll, rids []uint64, match tsMatch, u *query.Update, now time.Time, limit int64, returnNew bool) (matched, modified int64, last bson.D, err error) {
	bc.wmu.Lock()
	defer bc.wmu.Unlock()
	if c.dropped.Load() || bc.dropped.Load() {
		return 0, 0, nil, errDropped
	}
	m := c.m()
	t, err := decodeTSMeta(m)
	if err != nil {
		return 0, 0, nil, err
	}
	o := t.opts
	var forget []bson.ObjectID
	var newBM, newTM *catalog.Coll
	err = db.store.Update(func(txn *lsm.Txn) error {
		matched, modified, last, forget, newBM, newTM = 0, 0, nil, forget[:0], nil, nil
		bm := bc.m()
		w := &writeCtx{c: bc, m: bm, txn: txn}
		moved := ts.NewBucketer(o)
		outOfRange := false
		for _, rid := range rids {
			if limit > 0 && matched >= limit {
				break
			}
			d, b, found, err := tsLoadBucket(txn, o, bm.ID, rid)
			if err != nil {
				return err
			} else if !found {
				continue
			}
			ms := b.Measurements(o)
			changed := false
			for i, x := range ms {
				if limit > 0 && matched >= limit {
					break
				}
				ok, err := match(x)
				if err != nil {
					return err
				} else if !ok {
					continue
				}
				matched++
				nd, err := u.Apply(x, query.UpdateOptions{Now: now, MutableID: true})
				if err != nil {
					return err
				}
				if returnNew {
					last = nd
				} else {
					last = x
				}
				if tsSameMeasurement(x, nd) {
					continue
				}
				if err := document.ValidateUpdateResult(nd); err != nil {
					return err
				}
				if _, _, _, err := o.Split(nd); err != nil {
					return err
				}
				ms[i], changed = nd, true
				modified++
			}
			if !changed {
				continue
			}
			forget = append(forget, b.ID)
			nb, move, err := tsRepack(o, b, ms)
			if err != nil {
				return err
			}
			if nb == nil {
				if err := w.remove(rid, d); err != nil {
					return err
				}
			} else {
				outOfRange = outOfRange || ts.OutOfTTLRange(nb.MinTime) || ts.OutOfTTLRange(nb.MaxTime())
				nd, raw, err := tsEncodeBucket(o, nb)
				if err != nil {
					return err
				}
				if err := w.replace(rid, d, nd, raw); err != nil {
					return err
				}
				if err := db.tsRemoveDeltas(txn, bm.ID, rid); err != nil {
					return err
				}
			}
			for _, x := range move {
				if _, _, err := moved.Insert(x); err != nil {
					return err
				}
			}
		}
		moved.CloseAll()
		for _, nb := range moved.TakeClosed() {
			outOfRange = outOfRange || ts.OutOfTTLRange(nb.MinTime) || ts.OutOfTTLRange(nb.MaxTime())
			nd, raw, err := tsEncodeBucket(o, nb)
			if err != nil {
				return err
			}
			if err := w.insert(bc.nextRID.Add(1), nd, raw); err != nil {
				return err
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
		return 0, 0, nil, err
	}
	if newBM != nil {
		bc.meta.Store(newBM)
	}
	if newTM != nil {
		c.meta.Store(newTM)
	}
	st, _ := c.ext.(*tsState)
	st.forget(forget)
	return matched, modified, last, nil
}

// tsSameMeasurement reports whether an update left measurement x as it
// was, byte for byte ($set of 1.0 over 1 changes the type, and counts
// as a modification, as for any document).
func tsSameMeasurement(x, nd bson.D) bool {
	a, err1 := document.Marshal(x)
	b, err2 := document.Marshal(nd)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// tsEncodeBucket returns the stored (compressed) document of bucket b
// and its encoding.
func tsEncodeBucket(o ts.Options, b *ts.Bucket) (bson.D, []byte, error) {
	d, err := b.CompressedDocument(o)
	if err != nil {
		return nil, nil, err
	}
	raw, err := document.Marshal(d)
	return d, raw, err
}

// tsRepack splits the measurements ms of bucket b, some of them
// updated, into b rebuilt with those that still belong in it (b's meta,
// a time in b's range, room left), in their order, and the rest, which
// must move to other buckets. The rebuilt bucket keeps b's _id and min
// time (as a delete does, docs/timeseries.md §6.4); it is nil when
// nothing stays. When every measurement has the same new meta (a
// metaField update) the rebuilt bucket takes that meta.
func tsRepack(o ts.Options, b *ts.Bucket, ms []bson.D) (*ts.Bucket, []bson.D, error) {
	span := uint64(o.BucketMaxSpanSeconds) * 1000
	like := b
	if h, meta, ok := tsCommonMeta(o, ms); ok && !ts.SameMeta(h, meta, b.HasMeta, b.Meta) {
		// Every measurement got the same new meta (a metaField update,
		// mongod 7.0's only kind): the bucket keeps its _id and min time
		// under the new meta, as mongod updates a bucket's meta in place.
		nl := *b
		nl.Meta, nl.HasMeta = meta, h
		like = &nl
	}
	nb := ts.NewBucketLike(o, like)
	b = like
	var move []bson.D
	for _, x := range ms {
		t, meta, hasMeta, err := o.Split(x)
		if err != nil {
			return nil, nil, err
		}
		sameMeta := ts.SameMeta(hasMeta, meta, b.HasMeta, b.Meta)
		if !sameMeta || t < b.MinTime || uint64(t)-uint64(b.MinTime) >= span {
			move = append(move, x)
			continue
		}
		err = nb.Add(o, x)
		switch {
		case errors.Is(err, ts.ErrNoFit) || errors.Is(err, ts.ErrMetaMismatch):
			move = append(move, x)
		case err != nil:
			return nil, nil, err
		}
	}
	if nb.Count() == 0 {
		return nil, move, nil
	}
	return nb, move, nil
}

// tsCommonMeta returns the meta all of ms share, if they do.
func tsCommonMeta(o ts.Options, ms []bson.D) (hasMeta bool, meta any, ok bool) {
	for i, x := range ms {
		_, m, h, err := o.Split(x)
		if err != nil {
			return false, nil, false
		}
		if i == 0 {
			hasMeta, meta = h, m
		} else if !ts.SameMeta(hasMeta, meta, h, m) {
			return false, nil, false
		}
	}
	return hasMeta, meta, len(ms) > 0
}

// tsFindOneAndDelete is findAndModify's remove on time-series
// collection c: the first measurement matching filter in sort order
// sortD (the bucket scan's order without one) is deleted and returned.
func (db *DB) tsFindOneAndDelete(ctx context.Context, c *coll, filter, sortD bson.D) (bson.D, error) {
	f, err := query.ParseFilterAt(filter, db.opts.Clock())
	if err != nil {
		return nil, err
	}
	var srt *query.Sort
	if sortD != nil {
		if srt, err = parseSort(sortD); err != nil {
			return nil, err
		}
	}
	if f, srt, err = collateQuery(c.m(), ctxCollation(ctx), f, srt); err != nil {
		return nil, err
	}
	for attempt := 0; attempt < 100; attempt++ {
		target, _, err := db.tsFirstInOrder(ctx, c, filter, f, srt)
		if err != nil {
			return nil, err
		}
		if target == nil {
			// The bucket scan's first match.
			q, err := db.timeseriesQuery(c, filter, f, nil, FindOptions{Limit: 1}, nil)
			if err != nil {
				return nil, err
			}
			docs, err := q.nextBatch(ctx, 1)
			if err != nil || len(docs) == 0 {
				return nil, err
			}
			target = docs[0]
		}
		_, info, err := db.tsScanner(c, filter, f)
		if err != nil || info.inner == nil {
			return nil, err
		}
		if attempt == 0 {
			db.tsNoteRead(info)
		}
		rids, _, err := candidates(ctx, info.inner, 0)
		if err != nil {
			return nil, err
		}
		match := tsMatchTarget(f, target)
		for len(rids) > 0 {
			n := min(len(rids), tsDeleteBatchBuckets)
			k, err := db.tsDeleteBatch(c, info.inner.c, rids[:n], match, 1)
			if err != nil {
				return nil, err
			}
			if k == 1 {
				return target, nil
			}
			rids = rids[n:]
		}
		// The measurement changed under us; look again.
	}
	return nil, document.Errorf(document.Code(112), "findAndModify: too many concurrent changes to the matched document")
}
