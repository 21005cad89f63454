package engine

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"github.com/ttlkv/ttlkv/ts"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// tsTTLTargetName names a time-series collection's expiry in TTL pass
// results and visit hooks.
const tsTTLTargetName = "expireAfterSeconds"

// Test seams, nil outside tests (which never run in parallel in this
// package): tsReapedHook runs after a time-series reap batch committed;
// tsBucketedHook runs in an insert chunk after its measurements are
// bucketed, with the buckets collection's wmu held.
// tsReapForgetHook runs when the reaper is about to take the wmu to
// forget the buckets it removed; tsReapBeforeCommitHook runs after a
// reap batch is staged, before it takes the wmu to commit.
var tsReapedHook, tsBucketedHook, tsReapForgetHook, tsReapBeforeCommitHook func()

// tsRule is one expiry rule of a time-series collection: the collection's
// expireAfterSeconds (partial nil) or a partial TTL index (SPEC §6.7),
// whose filter is rewritten to the buckets' meta field.
type tsRule struct {
	expire  int64
	partial *query.Filter
}

// tsRules returns the expiry rules of a time-series collection.
func tsRules(t *tsMeta, m *collMeta) []tsRule {
	var out []tsRule
	if t.hasExpire {
		out = append(out, tsRule{expire: t.expire})
	}
	for _, ix := range m.Indexes {
		if !ix.TTL || ix.Partial == nil {
			continue
		}
		f, err := query.ParseFilter(tsBucketFilter(t.opts, ix.Partial))
		if err != nil {
			continue
		}
		out = append(out, tsRule{expire: ix.Expire, partial: f})
	}
	return out
}

// tsExpireAt is when a bucket with min time minT may go under expiry e:
// minT + span + e (SPEC §6.6), saturating.
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
	return []ttlTarget{{c: c, index: 0, name: tsTTLTargetName}}
}

// timeseriesTTLVisit deletes expired buckets of one time-series
// collection (SPEC §6.6–6.8): whole buckets whose min + span + expiry
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
	ix := bm.index(tsMinTimeIndex)
	if ix == nil {
		return 0, false, document.Errorf(document.CodeInternalError, "buckets collection %s has no %s index", bm.ns(), tsMinTimeIndex)
	}
	end := db.ops.begin(bson.D{{Key: "desc", Value: "TTLMonitor"}, {Key: "op", Value: "remove"},
		{Key: "ns", Value: m.ns()}, {Key: "index", Value: tsTTLTargetName}})
	defer end()
	if db.mon.visitStartHook != nil {
		db.mon.visitStartHook()
	}
	batching := db.params.bool("ttlMonitorBatchDeletes")
	var targetDocs, targetMS int64
	if batching {
		targetDocs = db.params.int("ttlIndexDeleteTargetDocs")
		targetMS = db.params.int("ttlIndexDeleteTargetTimeMS")
	}
	start := db.targetNow()
	vc := &visitClock{db: db, start: start, target: time.Duration(targetMS) * time.Millisecond}
	now := db.now()
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

	recheck := func(_ *collMeta, d bson.D) bool {
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
		if tsReapedHook != nil {
			tsReapedHook()
		}
		if id, ok := idOf(d).(bson.ObjectID); ok {
			reaped = append(reaped, id)
		}
	}
	defer func() { tsForget(c, bc, reaped) }()
	bd := &batchDeleter{db: db, c: bc, recheck: recheck, stats: batching, onDelete: onDelete, beforeCommit: tsReapBeforeCommitHook,
		reclaimBytes: &db.mon.deletedBytes, expiry: &changestream.Expiry{Bucket: true}}
	if batching {
		bd.targets = db.deleteTargets()
	}
	chunk := int64(1024)
	if targetDocs > 0 && targetDocs < chunk {
		chunk = targetDocs
	}
	for {
		if err := ctxErr(ctx); err != nil {
			return deleted, false, err
		}
		want := chunk
		if targetDocs > 0 && targetDocs-deleted < want {
			want = targetDocs - deleted
		}
		var rids []uint64
		var next []byte
		finished := false
		err := db.store.View(func(txn *lsm.Txn) error {
			var err error
			rids, next, finished, err = scanRids(txn, lo, hi, want, nil, false)
			return err
		})
		if err != nil {
			return deleted, false, err
		}
		n, err := bd.run(ctx, rids, vc.stop(deleted))
		tsForget(c, bc, reaped)
		reaped = reaped[:0]
		deleted += n
		db.stats.ttlDeleted.Add(n)
		if err != nil {
			return deleted, false, err
		}
		if vc.stopped {
			return deleted, true, nil
		}
		if finished {
			return deleted, false, nil
		}
		lo = next
		if (targetDocs > 0 && deleted >= targetDocs) || (targetMS > 0 && db.targetSince(start) >= time.Duration(targetMS)*time.Millisecond) {
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

// collModTimeseries applies collMod's collection-level options to a
// time-series collection (SPEC §5.2, §6.5): expireAfterSeconds (a
// number >= 0, or "off" to remove it) and timeseries (granularity
// growth, custom span and rounding, through ts.Options.ApplyCollMod).
// Everything is validated before anything changes. The caller holds
// catMu. A new expiry applies from the monitor's next visit.
func (db *DB) collModTimeseries(c *coll, cmd bson.D) (bson.D, error) {
	t, bc, err := db.tsParts(c)
	if err != nil {
		return nil, err
	}
	o, exp, hasExp := t.opts, t.expire, t.hasExpire
	for _, e := range cmd {
		switch e.Key {
		case "expireAfterSeconds":
			if exp, hasExp, err = parseCollModExpire(e.Value); err != nil {
				return nil, err
			}
		case "timeseries":
			if o, err = o.ApplyCollMod(e.Value); err != nil {
				return nil, err
			}
		default:
			return nil, document.Errorf(document.CodeInvalidOptions, "option '%s' is not supported on a time-series collection", e.Key)
		}
	}
	if bc != nil {
		bc.wmu.Lock()
		defer bc.wmu.Unlock()
	}
	m := c.m()
	nm := m.clone()
	nm.Options = tsOptionsDoc(o, exp, hasExp)
	if err := db.updateMeta(c, nm, nil); err != nil {
		return nil, err
	}
	if _, ok := c.ext.(*tsState); ok {
		tsStateOf(c, o)
	}
	return bson.D{}, nil
}

// parseCollModExpire parses collMod's collection-level
// expireAfterSeconds: a number of seconds (on is true), or "off".
func parseCollModExpire(v any) (n int64, on bool, err error) {
	if s, ok := v.(string); ok {
		if s != "off" {
			return 0, false, document.Errorf(document.CodeInvalidOptions, "Invalid string value for the 'expireAfterSeconds' option: '%s'; expected \"off\"", s)
		}
		return 0, false, nil
	}
	n, err = parseCollExpire("collMod", v)
	return n, err == nil, err
}

// tsIndexPrefix prefixes the name of the buckets-collection index that
// serves a user's secondary index on a time-series collection.
const tsIndexPrefix = "_ts_ix_"

// tsIndexKey checks one index spec for a time-series collection (SPEC
// §6.7) and returns the key of the buckets-collection index that serves
// it (nil for a partial TTL index, which bucket expiry serves through
// the control.min index).
func tsIndexKey(o ts.Options, ix *indexMeta) (bson.D, error) {
	if ix.TTL {
		if ix.Key[0].Key != o.TimeField {
			return nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes on time-series collections are only supported on the timeField '%s', not on '%s'", o.TimeField, ix.Key[0].Key)
		}
		if ix.Partial == nil || o.MetaField == "" {
			return nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes on time-series collections require a partialFilterExpression on the metaField")
		}
		if !tsOnlyMeta(o, ix.Partial) {
			return nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes on time-series collections require a partialFilterExpression on the metaField '%s' only, got %s", o.MetaField, fmtValue(ix.Partial))
		}
		return nil, nil
	}
	if ix.Unique {
		return nil, document.Errorf(document.CodeCannotCreateIndex, "Unique indexes are not supported on time-series collections")
	}
	if ix.Partial != nil {
		return nil, document.Errorf(document.CodeCannotCreateIndex, "ttlkv supports a partialFilterExpression on a time-series collection only for a TTL index on the timeField")
	}
	var key bson.D
	for _, f := range ix.Key {
		switch {
		case o.MetaField != "" && (f.Key == o.MetaField || strings.HasPrefix(f.Key, o.MetaField+".")):
			key = append(key, bson.E{Key: "meta" + f.Key[len(o.MetaField):], Value: f.Value})
		case f.Key == o.TimeField:
			key = append(key, bson.E{Key: "control.min." + o.TimeField, Value: f.Value})
		default:
			return nil, document.Errorf(document.CodeCannotCreateIndex, "ttlkv supports secondary indexes on a time-series collection only on the metaField and the timeField; '%s' is neither", f.Key)
		}
	}
	return key, nil
}

// tsOnlyMeta reports whether filter f references only the metaField.
func tsOnlyMeta(o ts.Options, f bson.D) bool {
	if len(f) == 0 {
		return false
	}
	for _, e := range f {
		switch {
		case e.Key == "$and" || e.Key == "$or" || e.Key == "$nor":
			arr, ok := e.Value.(bson.A)
			if !ok {
				return false
			}
			for _, x := range arr {
				d, ok := x.(bson.D)
				if !ok || !tsOnlyMeta(o, d) {
					return false
				}
			}
		case e.Key == o.MetaField || strings.HasPrefix(e.Key, o.MetaField+"."):
		default:
			return false
		}
	}
	return true
}

// createTimeseriesIndexes creates indexes on a time-series collection
// (SPEC §6.7): a partial TTL index on the timeField filtered on the
// metaField, or a secondary index on metaField and timeField paths,
// served by an index on the buckets collection. One bad spec creates
// none.
func (db *DB) createTimeseriesIndexes(ctx context.Context, c *coll, specs []bson.D) (*CreateIndexesResult, error) {
	t, err := decodeTSMeta(c.m())
	if err != nil {
		return nil, err
	}
	probe := &collMeta{DB: c.m().DB, Name: c.m().Name, Kind: kindNormal, Indexes: []*indexMeta{idIndex()}}
	parsed := make([]*indexMeta, 0, len(specs))
	keys := make([]bson.D, 0, len(specs))
	for _, s := range specs {
		ix, err := parseIndexSpec(probe, s)
		if err != nil {
			return nil, err
		}
		bk, err := tsIndexKey(t.opts, ix)
		if err != nil {
			return nil, err
		}
		parsed, keys = append(parsed, ix), append(keys, bk)
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	if c.dropped.Load() {
		return nil, errDropped
	}
	_, bc, err := db.tsParts(c)
	if err != nil {
		return nil, err
	}
	if bc == nil {
		return nil, document.Errorf(document.CodeNamespaceNotFound, "the buckets collection of %s is missing", c.m().ns())
	}
	bc.wmu.Lock()
	defer bc.wmu.Unlock()
	m := c.m()
	res := &CreateIndexesResult{NumIndexesBefore: len(m.Indexes)}
	var todo []*indexMeta
	var todoKeys []bson.D
	for i, ix := range parsed {
		exists := false
		for _, old := range append(append([]*indexMeta(nil), m.Indexes...), todo...) {
			sameKey := document.Equal(old.Key, ix.Key)
			switch {
			case old.Name == ix.Name && sameKey && sameOptions(old, ix):
				exists = true
			case old.Name == ix.Name:
				return nil, document.Errorf(document.CodeIndexOptionsConflict, "Index with name: %s already exists with the same name but different options. Requested index: %s, existing index: %s", ix.Name, fmtValue(specs[i]), fmtValue(listIndexEntry(old)))
			case sameKey && sameOptions(old, ix):
				return nil, document.Errorf(document.CodeIndexOptionsConflict, "Index already exists with a different name: %s", old.Name)
			}
			if exists {
				break
			}
		}
		if !exists {
			todo, todoKeys = append(todo, ix), append(todoKeys, keys[i])
		}
	}
	if len(m.Indexes)+len(todo) > maxIndexes {
		return nil, document.Errorf(document.CodeCannotCreateIndex, "add index fails, too many indexes for %s key:%s", m.ns(), fmtValue(todo[0].Key))
	}
	if len(todo) == 0 {
		res.NumIndexesAfter = res.NumIndexesBefore
		res.Note = "all indexes already exist"
		return res, nil
	}
	// Buckets-collection indexes for the secondary indexes.
	bm := bc.m()
	nbm := bm.clone()
	var bixs []*indexMeta
	for i, ix := range todo {
		if todoKeys[i] == nil {
			continue
		}
		bixs = append(bixs, &indexMeta{ID: nbm.NextIndexID, Name: tsIndexPrefix + ix.Name, Key: todoKeys[i], Sparse: ix.Sparse, Hidden: ix.Hidden})
		nbm.NextIndexID++
	}
	if len(bixs) > 0 {
		if err := db.updateMeta(bc, nbm, func(txn *lsm.Txn) error {
			for _, bix := range bixs {
				if err := txn.Set(pendingIndexDropKey(nbm.ID, bix.ID), nil); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return nil, err
		}
		if err := db.buildIndexes(ctx, bc, nbm, bixs); err != nil {
			db.dropIndexData(nbm.ID, bixs)
			return nil, err
		}
		final := nbm.clone()
		final.Indexes = append(final.Indexes, bixs...)
		if err := db.updateMeta(bc, final, func(txn *lsm.Txn) error {
			for _, bix := range bixs {
				if err := txn.Delete(pendingIndexDropKey(nbm.ID, bix.ID)); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	nm := m.clone()
	for _, ix := range todo {
		ix.ID = nm.NextIndexID
		nm.NextIndexID++
		nm.Indexes = append(nm.Indexes, ix)
		res.Names = append(res.Names, ix.Name)
	}
	if err := db.updateMeta(c, nm, nil); err != nil {
		return nil, err
	}
	res.NumIndexesAfter = len(nm.Indexes)
	return res, nil
}

// dropTimeseriesIndexes drops user indexes of a time-series collection
// and the buckets-collection indexes serving them. The caller holds
// catMu. It returns the number of indexes before.
func (db *DB) dropTimeseriesIndexes(c *coll, which any) (int, error) {
	_, bc, err := db.tsParts(c)
	if err != nil {
		return 0, err
	}
	if bc != nil {
		bc.wmu.Lock()
		defer bc.wmu.Unlock()
	}
	m := c.m()
	drop, err := indexesToDrop(m, which)
	if err != nil {
		return 0, err
	}
	nm := m.clone()
	kept := nm.Indexes[:0]
	for _, ix := range nm.Indexes {
		if !containsID(drop, ix.ID) {
			kept = append(kept, ix)
		}
	}
	nm.Indexes = kept
	if err := db.updateMeta(c, nm, nil); err != nil {
		return 0, err
	}
	if bc == nil {
		return len(m.Indexes), nil
	}
	bm := bc.m()
	var bdrop []*indexMeta
	for _, ix := range drop {
		if bix := bm.index(tsIndexPrefix + ix.Name); bix != nil {
			bdrop = append(bdrop, bix)
		}
	}
	if len(bdrop) > 0 {
		nbm := bm.clone()
		bkept := nbm.Indexes[:0]
		for _, ix := range nbm.Indexes {
			if !containsID(bdrop, ix.ID) {
				bkept = append(bkept, ix)
			}
		}
		nbm.Indexes = bkept
		if err := db.updateMeta(bc, nbm, func(txn *lsm.Txn) error {
			for _, ix := range bdrop {
				if err := txn.Set(pendingIndexDropKey(nbm.ID, ix.ID), nil); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return 0, err
		}
		if err := db.dropIndexData(nbm.ID, bdrop); err != nil {
			return 0, err
		}
	}
	return len(m.Indexes), nil
}

// validateTimeseries checks a time-series collection: its buckets
// collection is consistent with its indexes, every bucket decodes, and
// the 1970/2038 flag is set when a bucket holds an out-of-range time.
func (db *DB) validateTimeseries(ctx context.Context, c *coll, res *ValidateResult, fail func(string, ...any)) {
	t, bc, err := db.tsParts(c)
	if err != nil {
		fail("%v", err)
		return
	}
	if bc == nil {
		fail("buckets collection %s is missing", t.buckets)
		return
	}
	br, err := db.Validate(ctx, c.m().DB, t.buckets)
	if err != nil {
		fail("validating %s: %v", t.buckets, err)
		return
	}
	for _, e := range br.Errors {
		fail("%s: %s", t.buckets, e)
	}
	bid := bc.m().ID
	_ = db.store.View(func(txn *lsm.Txn) error {
		// Every delta belongs to a bucket record.
		dit := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(bid, tsDeltaIndexID), KeysOnly: true})
		var lastRID uint64
		for dit.Next() {
			k := dit.Key()
			if len(k) != 17+8+4 {
				fail("time-series delta key %x is malformed", k)
				continue
			}
			rid := binary.BigEndian.Uint64(k[17:])
			if rid == lastRID {
				continue
			}
			lastRID = rid
			if ok, err := txn.Has(lsm.RecordKey(bid, rid)); err != nil {
				dit.Close()
				return err
			} else if !ok {
				fail("time-series delta %x belongs to no bucket record", k)
			}
		}
		dit.Close()
		it := txn.NewIter(lsm.IterOptions{Prefix: lsm.RecordPrefix(bid)})
		defer it.Close()
		for it.Next() {
			v, err := it.Value()
			if err != nil {
				return err
			}
			d, err := document.Unmarshal(v)
			if err != nil {
				fail("bucket record does not decode: %v", err)
				continue
			}
			_, rid, _ := lsm.DecodeRecordKey(it.Key())
			ds, err := tsReadDeltas(txn, bid, rid)
			if err != nil {
				fail("bucket %v: %v", idOf(d), err)
				continue
			}
			b, err := applyDeltas(t.opts, d, ds)
			if err != nil {
				fail("bucket %v: %v", idOf(d), err)
				continue
			}
			res.Records += int64(b.Count())
			if !t.outOfRange && (ts.OutOfTTLRange(b.MinTime) || ts.OutOfTTLRange(b.MaxTime())) {
				fail("bucket %v holds a time outside 1970..2038 but the collection is not marked", idOf(d))
			}
		}
		return nil
	})
}
