package engine

import (
	"context"
	"math"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"github.com/ttlkv/ttlkv/ts"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// tsBucketFilter translates a filter on measurements into a filter on
// bucket documents that every bucket holding a matching measurement
// satisfies (a superset: the measurement filter is applied again to each
// unpacked measurement). Only the metaField and the time field
// translate: conditions on the metaField apply to the bucket's meta
// unchanged (every measurement of a bucket has the bucket's meta), and
// date comparisons on the time field become conditions on control.min
// and control.max of the time. Anything else (data fields, $nor, $expr,
// $where, a $or with an untranslatable branch) adds no condition. Under
// a non-simple collation (collated) the metaField conditions are left
// out too: the bucket filter runs without the collation, and a string
// in the meta would compare differently; the time conditions compare
// dates, which no collation changes.
func tsBucketFilter(o ts.Options, f bson.D, collated bool) bson.D {
	var out bson.D
	for _, e := range f {
		out = append(out, tsTranslate(o, e, collated)...)
	}
	return out
}

func tsTranslate(o ts.Options, e bson.E, collated bool) bson.D {
	switch {
	case e.Key == "$and" || e.Key == "$or":
		arr, ok := e.Value.(bson.A)
		if !ok {
			return nil
		}
		var parts bson.A
		for _, x := range arr {
			d, ok := x.(bson.D)
			if !ok {
				return nil
			}
			t := tsBucketFilter(o, d, collated)
			if len(t) == 0 {
				if e.Key == "$or" {
					return nil // a branch that keeps every bucket
				}
				continue
			}
			parts = append(parts, t)
		}
		if len(parts) == 0 {
			return nil
		}
		return bson.D{{Key: e.Key, Value: parts}}
	case strings.HasPrefix(e.Key, "$"):
		return nil
	case o.MetaField != "" && (e.Key == o.MetaField || strings.HasPrefix(e.Key, o.MetaField+".")):
		if collated {
			return nil
		}
		return bson.D{{Key: "meta" + e.Key[len(o.MetaField):], Value: e.Value}}
	case e.Key == o.TimeField:
		return tsTimeConds(o, e.Value)
	}
	return nil
}

// tsTimeConds turns date comparisons on the time field into bucket
// conditions. A bucket holds times in [min, max] with max < min + span
// (bucketing only ever grows the span), so t >= X implies max >= X and
// min > X - span, which the index on control.min can bound.
func tsTimeConds(o ts.Options, v any) bson.D {
	minPath := "control.min." + o.TimeField
	maxPath := "control.max." + o.TimeField
	span := o.BucketMaxSpanSeconds * 1000
	var ops bson.D
	if d, ok := v.(bson.D); ok && len(d) > 0 && strings.HasPrefix(d[0].Key, "$") {
		ops = d
	} else {
		ops = bson.D{{Key: "$eq", Value: v}}
	}
	var conds bson.A
	add := func(path, op string, x bson.DateTime) {
		conds = append(conds, bson.D{{Key: path, Value: bson.D{{Key: op, Value: x}}}})
	}
	for _, op := range ops {
		x, ok := op.Value.(bson.DateTime)
		if !ok {
			continue
		}
		lower := bson.DateTime(satSub(int64(x), span))
		switch op.Key {
		case "$eq":
			add(minPath, "$lte", x)
			add(maxPath, "$gte", x)
			add(minPath, "$gt", lower)
		case "$gt", "$gte":
			add(maxPath, op.Key, x)
			add(minPath, "$gt", lower)
		case "$lt", "$lte":
			add(minPath, op.Key, x)
		}
	}
	if len(conds) == 0 {
		return nil
	}
	return bson.D{{Key: "$and", Value: conds}}
}

func satSub(a, b int64) int64 {
	if b > 0 && a < math.MinInt64+b {
		return math.MinInt64
	}
	return a - b
}

// tsScan is the source of measurements for a scanner over a
// time-series collection: it reads candidate buckets through an inner
// scanner on the buckets collection, unpacks them, and keeps the
// measurements that match the filter.
type tsScan struct {
	inner    *scanner // nil: no buckets collection
	o        ts.Options
	f        *query.Filter
	pending  []record
	unpacked int64 // buckets unpacked
	examined int64 // measurements examined
}

// tsCheckUnpackMeta refuses to unpack a bucket whose meta is BSON
// undefined, as mongod 7.0's bucket unpacker does (5369600): an insert
// takes such a meta, but a read that reaches its bucket fails
// (docs/timeseries.md §6.3).
func tsCheckUnpackMeta(b *ts.Bucket) error {
	if _, undef := b.Meta.(bson.Undefined); b.HasMeta && undef {
		return document.Errorf(document.Code(5369600), "The $_internalUnpackBucket stage allows metadata to be absent or otherwise, it must not be the deprecated undefined bson type")
	}
	return nil
}

// tsPlan is what explain shows of a time-series read.
type tsPlan struct {
	inner  *plan
	scan   *tsScan
	bucket bson.D // the bucket-level filter
}

// nextTS returns up to n matching measurements (as records whose rid is
// their bucket's).
func (s *scanner) nextTS(ctx context.Context, n int) ([]record, error) {
	t := s.ts
	for len(t.pending) < n && t.inner != nil && !t.inner.done {
		recs, err := t.inner.next(ctx, 16)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			b, err := ts.DecodeBucket(t.o, r.d)
			if err != nil {
				return nil, err
			}
			if err := tsCheckUnpackMeta(b); err != nil {
				return nil, err
			}
			t.unpacked++
			for _, m := range b.Measurements(t.o) {
				t.examined++
				ok := s.noMatch
				if !ok {
					if ok, err = t.f.MatchErr(m); err != nil {
						return nil, err
					}
				}
				if ok {
					t.pending = append(t.pending, record{rid: r.rid, d: m})
				}
			}
		}
	}
	if t.inner != nil {
		s.stats.keysExamined = t.inner.stats.keysExamined
		s.stats.docsExamined = t.inner.stats.docsExamined
	}
	k := min(n, len(t.pending))
	out := append([]record(nil), t.pending[:k]...)
	t.pending = t.pending[k:]
	if len(t.pending) == 0 && (t.inner == nil || t.inner.done) {
		s.done = true
	}
	return out, nil
}

// tsScanner builds the scanner of a read of time-series collection c
// with measurement filter f (raw form filter).
func (db *DB) tsScanner(c *coll, filter bson.D, f *query.Filter) (*scanner, *tsPlan, error) {
	return db.tsScannerHinted(c, filter, f, nil)
}

// tsScannerHinted is tsScanner with a find's hint: an index of the
// time-series collection (its buckets-collection index reads the
// buckets), or {$natural: ±1} (the buckets in record order, forwards or
// backwards; measurements keep their order within a bucket). A hint
// that names no index is 2 BadValue, as for any collection.
func (db *DB) tsScannerHinted(c *coll, filter bson.D, f *query.Filter, hint any) (*scanner, *tsPlan, error) {
	var bucketHint any
	if hint != nil {
		ix, natural, err := resolveHint(c.m(), hint)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case natural != 0:
			bucketHint = bson.D{{Key: "$natural", Value: int32(natural)}}
		case ix != nil && !ix.TTL:
			bucketHint = tsIndexPrefix + ix.Name
		}
	}
	t, bc, err := db.tsParts(c)
	if err != nil {
		return nil, nil, err
	}
	bf := tsBucketFilter(t.opts, filter, f.Collator() != nil)
	bff, err := query.ParseFilter(bf)
	if err != nil {
		bf, bff = bson.D{}, matchAll
	}
	scan := &tsScan{o: t.opts, f: f}
	info := &tsPlan{scan: scan, bucket: nonNilDoc(bf)}
	if bc != nil {
		if name, ok := bucketHint.(string); ok && bc.m().Index(name) == nil {
			bucketHint = nil
		}
		ip, err := makePlan(bc, bc.m(), bff, nil, bucketHint)
		if err != nil {
			return nil, nil, err
		}
		ip.filterRaw = info.bucket
		info.inner = ip
		scan.inner = newScanner(ip)
	}
	p := &plan{c: c, m: c.m(), filter: f, filterRaw: filter, ts: info}
	return &scanner{p: p, ts: scan}, info, nil
}

// tsNoteRead counts, for $indexStats and $collStats, the buckets index
// (or the scan of the buckets) a read or write of a time-series
// collection uses through plan info: the time-series collection's
// index of that name reports it, as mongod counts the accesses of the
// buckets index under the user's name. Once a statement: lookups made
// on the way (a sorted update's first match) are not counted.
func (db *DB) tsNoteRead(info *tsPlan) {
	if info != nil && info.inner != nil {
		db.notePlanOf(info.inner.m, info.inner, false)
	}
}

// timeseriesQuery builds the executor of a find on a time-series
// collection: measurements unpacked from the candidate buckets, then
// SORT, skip, limit and projection as for any collection.
func (db *DB) timeseriesQuery(c *coll, filter bson.D, f *query.Filter, srt *query.Sort, o FindOptions, proj *query.Projection) (*queryExec, error) {
	sc, _, err := db.tsScannerHinted(c, filter, f, o.Hint)
	if err != nil {
		return nil, err
	}
	limit := o.Limit
	if limit < 0 {
		limit = -limit
	}
	q := &queryExec{sc: sc, skip: o.Skip, limit: limit, proj: proj, sortCfg: db.sortConfig(o)}
	sc.p.sort = srt
	sc.p.sortByIndex = true
	if srt != nil {
		if _, natural := srt.NaturalOrder(); !natural && len(srt.Keys()) > 0 {
			q.sortSt = srt
			sc.p.sortByIndex = false
		}
	}
	return q, nil
}

// tsStageTree renders a time-series read for explain: the bucket scan
// (COLLSCAN or IXSCAN over the buckets collection with the bucket
// filter) under an UNPACK_TS_BUCKET stage that applies the measurement
// filter, under SORT when the sort is done in memory.
func tsStageTree(p *plan, st *execStats, isEOF bool) bson.D {
	info := p.ts
	var in bson.D
	if info.inner == nil {
		in = bson.D{{Key: "stage", Value: "EOF"}}
	} else {
		var ist *execStats
		if st != nil {
			// The bucket scan hands on each bucket it unpacks.
			ist = &execStats{keysExamined: st.keysExamined, docsExamined: st.docsExamined, nReturned: info.scan.unpacked,
				matched: info.scan.unpacked, seeks: st.seeks}
		}
		in = stageTree(info.inner, ist, isEOF)
	}
	leaf := bson.D{{Key: "stage", Value: "UNPACK_TS_BUCKET"}, {Key: "filter", Value: nonNilDoc(p.filterRaw)},
		{Key: "bucketFilter", Value: info.bucket}}
	if st != nil {
		leaf = append(leaf, bson.E{Key: "bucketsUnpacked", Value: int32OrLong(info.scan.unpacked)},
			bson.E{Key: "measurementsExamined", Value: int32OrLong(info.scan.examined)})
	}
	leaf = append(leaf, bson.E{Key: "inputStage", Value: in})
	// The measurements the filter passed; a SORT hands on as many, a
	// LIMIT or SKIP above takes its figures from there (execTree).
	if st != nil {
		leaf = withExec(leaf, st.matched, isEOF)
	}
	if p.sort != nil && !p.sortByIndex && len(p.sort.Keys()) > 0 {
		leaf = sortStageDoc(p, st, leaf)
		if st != nil {
			leaf = withExec(leaf, st.matched, isEOF)
		}
	}
	return leaf
}

// tsModifyStage renders the delete of measurements of time-series plan
// p whose filter is not only on the metaField, as mongod 7.0 explains
// it: a TS_MODIFY stage (opType deleteMany, or deleteOne for limit 1)
// holding the bucket filter and the residual filter the unpacked
// measurements must pass, over the scan of the buckets; executed, with
// the buckets unpacked and the measurements it would delete (n).
func tsModifyStage(p *plan, st *execStats, one bool, residual bson.D, n int64) bson.D {
	info := p.ts
	var in bson.D
	if info.inner == nil {
		in = bson.D{{Key: "stage", Value: "EOF"}}
	} else {
		var ist *execStats
		if st != nil {
			ist = &execStats{keysExamined: st.keysExamined, docsExamined: st.docsExamined, nReturned: info.scan.unpacked}
		}
		in = stageTree(info.inner, ist, true)
	}
	op := "deleteMany"
	if one {
		op = "deleteOne"
	}
	d := bson.D{{Key: "stage", Value: "TS_MODIFY"}}
	if st != nil {
		d = append(d, bson.E{Key: "nReturned", Value: int32(0)}, bson.E{Key: "isEOF", Value: int32(1)})
	}
	d = append(d, bson.E{Key: "opType", Value: op}, bson.E{Key: "bucketFilter", Value: info.bucket},
		bson.E{Key: "residualFilter", Value: residual})
	if st != nil {
		d = append(d, bson.E{Key: "nBucketsUnpacked", Value: int32OrLong(info.scan.unpacked)},
			bson.E{Key: "nMeasurementsDeleted", Value: int32OrLong(n)})
	}
	return append(d, bson.E{Key: "inputStage", Value: in})
}

// tsResidualFilter is the part of a time-series filter f that the
// buckets' meta cannot decide: f without its top-level conditions on
// the metaField, a plain value written as {$eq: value} as mongod
// serializes it. Empty: f is on the metaField only (or empty), and
// whole buckets are deleted.
func tsResidualFilter(o ts.Options, f bson.D) bson.D {
	var out bson.D
	for _, e := range f {
		if o.MetaField != "" && (e.Key == o.MetaField || strings.HasPrefix(e.Key, o.MetaField+".")) {
			continue
		}
		if !strings.HasPrefix(e.Key, "$") {
			if ops, ok := e.Value.(bson.D); !ok || len(ops) == 0 || !strings.HasPrefix(ops[0].Key, "$") {
				if _, isRegex := e.Value.(bson.Regex); !isRegex {
					e.Value = bson.D{{Key: "$eq", Value: e.Value}}
				}
			}
		}
		out = append(out, e)
	}
	return out
}

// tsDeleteBatchBuckets bounds the buckets one delete transaction
// rewrites or removes.
const tsDeleteBatchBuckets = 64

// deleteTimeseries deletes the measurements matching f (docs/timeseries.md §6.4; as
// MongoDB 7, any filter): a bucket whose measurements all match is
// removed whole, one with some matching is rewritten without them. With
// Limit 1 only the first match goes. It returns the measurements
// deleted.
func (db *DB) deleteTimeseries(ctx context.Context, c *coll, f *query.Filter, s DeleteSpec) (int64, error) {
	if s.Hint != nil {
		if _, _, err := resolveHint(c.m(), s.Hint); err != nil {
			return 0, err
		}
	}
	_, info, err := db.tsScanner(c, s.Filter, f)
	if err != nil || info.inner == nil {
		return 0, err
	}
	db.tsNoteRead(info)
	rids, _, err := candidates(ctx, info.inner, 0)
	if err != nil {
		return 0, err
	}
	bc := info.inner.c
	var total int64
	for len(rids) > 0 {
		if err := ctxErr(ctx); err != nil {
			return total, err
		}
		n := min(len(rids), tsDeleteBatchBuckets)
		var limit int64
		if s.Limit == 1 {
			limit = 1 - total
		}
		k, err := db.tsDeleteBatch(c, bc, rids[:n], f.MatchErr, limit)
		total += k
		if err != nil {
			return total, err
		}
		rids = rids[n:]
		if s.Limit == 1 && total >= 1 {
			break
		}
	}
	return total, nil
}

// tsDeleteBatch deletes, in one transaction, the measurements match
// accepts from the buckets rids (at most limit, 0: all), re-reading each
// bucket inside the transaction.
func (db *DB) tsDeleteBatch(c, bc *coll, rids []uint64, match tsMatch, limit int64) (int64, error) {
	bc.wmu.Lock()
	defer bc.wmu.Unlock()
	if bc.dropped.Load() {
		return 0, nil
	}
	t, err := decodeTSMeta(c.m())
	if err != nil {
		return 0, err
	}
	o := t.opts
	var deleted int64
	var forget []bson.ObjectID
	var newMeta *catalog.Coll
	err = db.store.Update(func(txn *lsm.Txn) error {
		deleted, forget, newMeta = 0, forget[:0], nil
		bm := bc.m()
		w := &writeCtx{c: bc, m: bm, txn: txn}
		for _, rid := range rids {
			d, b, found, err := tsLoadBucket(txn, o, bm.ID, rid)
			if err != nil {
				return err
			} else if !found {
				continue
			}
			var keep []bson.D
			var matched int64
			for _, m := range b.Measurements(o) {
				ok := false
				if limit == 0 || deleted+matched < limit {
					if ok, err = match(m); err != nil {
						return err
					}
				}
				if ok {
					matched++
				} else {
					keep = append(keep, m)
				}
			}
			if matched == 0 {
				continue
			}
			forget = append(forget, b.ID)
			if len(keep) == 0 {
				if err := w.remove(rid, d); err != nil {
					return err
				}
			} else {
				nd, err := rebuildBucket(o, b, keep)
				if err != nil {
					return err
				}
				raw, err := document.Marshal(nd)
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
			deleted += matched
			if limit > 0 && deleted >= limit {
				break
			}
		}
		var e error
		newMeta, e = w.commitMultikey()
		return e
	})
	if err != nil {
		return 0, err
	}
	if newMeta != nil {
		bc.meta.Store(newMeta)
	}
	st, _ := c.ext.(*tsState)
	st.forget(forget)
	return deleted, nil
}

// rebuildBucket returns the stored (compressed) document of bucket b
// holding only the measurements keep (a subset of b's), with b's _id,
// meta and min time (docs/timeseries.md §6.4).
func rebuildBucket(o ts.Options, b *ts.Bucket, keep []bson.D) (bson.D, error) {
	nb := ts.NewBucketLike(o, b)
	for _, m := range keep {
		if err := nb.Add(o, m); err != nil {
			return nil, document.Errorf(document.CodeInternalError, "rewriting time-series bucket %s: %v", b.ID.Hex(), err)
		}
	}
	return nb.CompressedDocument(o)
}
