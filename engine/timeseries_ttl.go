package engine

import (
	"context"
	"math"

	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"github.com/ttlkv/ttlkv/ts"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// tsTTLTargetName names a time-series collection's expiry in TTL pass
// results and visit hooks.
const tsTTLTargetName = "expireAfterSeconds"

// tsRule is one expiry rule of a time-series collection: the collection's
// expireAfterSeconds (partial nil) or a partial TTL index (docs/timeseries.md §6.7),
// whose filter is rewritten to the buckets' meta field.
type tsRule struct {
	expire  int64
	partial *query.Filter
}

// tsRules returns the expiry rules of a time-series collection.
func tsRules(t *tsMeta, m *catalog.Coll) []tsRule {
	var out []tsRule
	if t.hasExpire {
		out = append(out, tsRule{expire: t.expire})
	}
	for _, ix := range m.Indexes {
		if !ix.TTL || ix.Partial == nil {
			continue
		}
		f, err := query.ParseFilter(tsBucketFilter(t.opts, ix.Partial, false))
		if err != nil {
			continue
		}
		if c := ix.Collator(); c != nil {
			// The filter holds under the index's collation; every
			// measurement of a bucket has the bucket's meta, so matching
			// the bucket's meta under it is exact.
			if f, err = f.Collate(c); err != nil {
				continue
			}
		}
		out = append(out, tsRule{expire: ix.Expire, partial: f})
	}
	return out
}

// tsExpireAt is when a bucket with min time minT may go under expiry e:
// minT + span + e (docs/timeseries.md §6.6), saturating.
func tsExpireAt(o ts.Options, minT bson.DateTime, e int64) bson.DateTime {
	return bson.DateTime(satAdd(satAdd(int64(minT), satMul(o.BucketMaxSpanSeconds, 1000)), satMul(e, 1000)))
}

func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// tsBucketExpired reports whether bucket document d is due under any
// rule at now.
func tsBucketExpired(t *tsMeta, rules []tsRule, d bson.D, now bson.DateTime) bool {
	v, ok := document.Lookup(d, "control.min."+t.opts.TimeField)
	minT, isDate := v.(bson.DateTime)
	if !ok || !isDate {
		return false
	}
	for _, r := range rules {
		if r.partial != nil && !r.partial.Match(d) {
			continue
		}
		if tsExpireAt(t.opts, minT, r.expire) <= now {
			return true
		}
	}
	return false
}

// timeseriesTTLTargets returns the monitor's target for a time-series
// collection with an expiry (collection-level or a partial TTL index):
// one target, index 0, visited like a TTL index.
func (db *DB) timeseriesTTLTargets(c *coll) []ttlTarget {
	m := c.m()
	t, err := decodeTSMeta(m)
	if err != nil || len(tsRules(t, m)) == 0 {
		return nil
	}
	return []ttlTarget{{c: c, index: 0, name: tsTTLTargetName, reaper: bucketReaper{}}}
}

// bucketReaper expires a time-series collection's buckets whole
// (docs/timeseries.md §6.6): tsBucketExpired says when.
type bucketReaper struct{}

func (bucketReaper) visit(ctx context.Context, db *DB, t ttlTarget) (int64, bool, error) {
	return db.timeseriesTTLVisit(ctx, t)
}

// timeseriesTTLVisit deletes expired buckets of one time-series
// collection (docs/timeseries.md §6.6–6.8): whole buckets whose min + span + expiry
// has passed, found through the buckets' index on control.min.<time>,
// deleted through the batched delete stage with every bucket re-checked
// in its batch. Nothing is deleted from a collection that ever held a
// measurement outside 1970..2038. deleted counts buckets.
func (db *DB) timeseriesTTLVisit(ctx context.Context, tg ttlTarget) (deleted int64, more bool, err error) {
	c := tg.c
	if c.dropped.Load() {
		return 0, false, nil
	}
	m := c.m()
	t, bc, err := db.tsParts(c)
	if err != nil || bc == nil || t.outOfRange {
		return 0, false, err
	}
	rules := tsRules(t, m)
	if len(rules) == 0 {
		return 0, false, nil
	}
	bm := bc.m()
	ix := bm.Index(tsMinTimeIndex)
	if ix == nil {
		return 0, false, document.Errorf(document.CodeInternalError, "buckets collection %s has no %s index", bm.NS(), tsMinTimeIndex)
	}
	v := db.beginVisit(m.NS(), tsTTLTargetName)
	defer v.end()
	batching, budget, now := v.batching, v.budget, v.now
	// Candidates: buckets whose min time is at or before the latest
	// cut-off of any rule.
	minExp := int64(math.MaxInt64)
	for _, r := range rules {
		minExp = min(minExp, r.expire)
	}
	cutoff := bson.DateTime(satSub(satSub(int64(now), t.opts.BucketMaxSpanSeconds*1000), satMul(minExp, 1000)))
	prefix := lsm.IndexPrefix(bm.ID, ix.ID)
	lo := append(append([]byte{}, prefix...), classPrefix(bson.DateTime(0))...)
	hi := lsm.PrefixEnd(append(append([]byte{}, prefix...), lsm.AppendKey(nil, cutoff, false)...))

	recheck := func(_ *catalog.Coll, d bson.D) bool {
		cm := c.m()
		ct, err := decodeTSMeta(cm)
		if err != nil || ct.outOfRange || c.dropped.Load() {
			return false
		}
		return tsBucketExpired(ct, tsRules(ct, cm), d, now)
	}
	// The batch commits under bc.wmu but reports its deletes after
	// releasing it, so the open buckets it removed are forgotten here,
	// under bc.wmu, once each run is over. An insert in between finds
	// the bucket's record gone in its own transaction (tsInsertChunk).
	var reaped []bson.ObjectID
	onDelete := func(d bson.D) {
		if h := db.opts.seams.tsReapedHook; h != nil {
			h()
		}
		if id, ok := idOf(d).(bson.ObjectID); ok {
			reaped = append(reaped, id)
		}
	}
	defer func() { tsForget(c, bc, reaped) }()
	bd := &batchDeleter{db: db, c: bc, recheck: recheck, stats: batching, onDelete: onDelete, beforeCommit: db.opts.seams.tsReapBeforeCommitHook,
		reclaimBytes: db.mon.DeletedBytes(), expiry: &changestream.Expiry{Bucket: true}}
	if batching {
		bd.targets = db.deleteTargets()
	}
	chunk := budget.Chunk(seamOr(db.opts.seams.bucketChunk, bucketScanChunk))
	for {
		if err := ctxErr(ctx); err != nil {
			return deleted, false, err
		}
		want := budget.Want(chunk, deleted)
		var rids []uint64
		var next []byte
		finished := false
		err := db.store.View(func(txn *lsm.Txn) error {
			var err error
			rids, next, finished, err = scanRids(txn, lo, hi, false, want, nil, nil, false)
			return err
		})
		if err != nil {
			return deleted, false, err
		}
		n, err := bd.run(ctx, rids, budget.StopFunc(deleted))
		tsForget(c, bc, reaped)
		reaped = reaped[:0]
		deleted += n
		db.stats.ttlDeleted.Add(n)
		if err != nil {
			return deleted, false, err
		}
		if budget.Stopped() {
			return deleted, true, nil
		}
		if finished {
			return deleted, false, nil
		}
		lo = next
		if budget.Met(deleted) {
			return deleted, true, nil
		}
	}
}

func satMul(a, b int64) int64 {
	if a != 0 && (a > math.MaxInt64/b || a < math.MinInt64/b) {
		if a > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return a * b
}

// bucketScanChunk is how many buckets a time-series TTL visit reads at
// a time, as ttlScanChunk is for a TTL index (ttl_visit.go).
const bucketScanChunk = 1024
