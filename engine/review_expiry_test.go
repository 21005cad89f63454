package engine

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Probes of the data-expiry features against SPEC.md and mongod.

// Nested arrays and dotted paths: mongod indexes an array nested in an
// array as an array key (not its dates), and a dotted path does not
// descend into an array nested in an array.
func TestReviewExpiryNestedArraysAndPaths(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	old, fresh := dt(now.Add(-time.Hour)), dt(now.Add(time.Hour))
	mustRun(t, db, "test", `{"createIndexes": "n", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`)
	insertDocs(t, db, "n",
		bson.D{{Key: "_id", Value: "nested"}, {Key: "t", Value: bson.A{bson.A{old}}}},
		bson.D{{Key: "_id", Value: "nested-and-new"}, {Key: "t", Value: bson.A{bson.A{old}, fresh}}},
		bson.D{{Key: "_id", Value: "empty"}, {Key: "t", Value: bson.A{}}},
		bson.D{{Key: "_id", Value: "flat"}, {Key: "t", Value: bson.A{fresh, old}}},
	)
	pass(t, db)
	if got := fmt.Sprint(ids(t, db, "n")); got != "[nested nested-and-new empty]" {
		t.Errorf("nested arrays: survivors %s, want [nested nested-and-new empty]", got)
	}
	mustRun(t, db, "test", `{"createIndexes": "p", "indexes": [{"key": {"a.b": 1}, "name": "a.b_1", "expireAfterSeconds": 60}]}`)
	insertDocs(t, db, "p",
		bson.D{{Key: "_id", Value: "sub"}, {Key: "a", Value: bson.D{{Key: "b", Value: old}}}},
		bson.D{{Key: "_id", Value: "array-of-subs"}, {Key: "a", Value: bson.A{bson.D{{Key: "b", Value: fresh}}, bson.D{{Key: "b", Value: old}}}}},
		bson.D{{Key: "_id", Value: "array-of-subs-new"}, {Key: "a", Value: bson.A{bson.D{{Key: "b", Value: fresh}}}}},
		bson.D{{Key: "_id", Value: "nested-array-of-subs"}, {Key: "a", Value: bson.A{bson.A{bson.D{{Key: "b", Value: old}}}}}},
		bson.D{{Key: "_id", Value: "a-is-date"}, {Key: "a", Value: old}},
	)
	pass(t, db)
	if got := fmt.Sprint(ids(t, db, "p")); got != "[array-of-subs-new nested-array-of-subs a-is-date]" {
		t.Errorf("dotted path: survivors %s, want [array-of-subs-new nested-array-of-subs a-is-date]", got)
	}
	mustValidate(t, db, "test", "n")
	mustValidate(t, db, "test", "p")
}

// SPEC 1.2, 2.1, 2.4: the largest expireAfterSeconds works; dates at the
// ends of the BSON range.
func TestReviewExpiryExtremes(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"createIndexes": "big", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 2147483647}]}`)
	cut := now.Add(-2147483647 * time.Second)
	insertDocs(t, db, "big",
		bson.D{{Key: "_id", Value: "at-cutoff"}, {Key: "t", Value: dt(cut)}},
		bson.D{{Key: "_id", Value: "after-cutoff"}, {Key: "t", Value: dt(cut.Add(time.Millisecond))}},
		bson.D{{Key: "_id", Value: "1900"}, {Key: "t", Value: dt(time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC))}},
		bson.D{{Key: "_id", Value: "dawn"}, {Key: "t", Value: bson.DateTime(math.MinInt64)}},
		bson.D{{Key: "_id", Value: "end"}, {Key: "t", Value: bson.DateTime(math.MaxInt64)}},
	)
	if n := pass(t, db).Deleted; n != 3 {
		t.Errorf("eas 2147483647: deleted %d, want 3 (at-cutoff, 1900, dawn); left %v", n, ids(t, db, "big"))
	}
	if got := fmt.Sprint(ids(t, db, "big")); got != "[after-cutoff end]" {
		t.Errorf("survivors %s", got)
	}
	mustRun(t, db, "test", `{"createIndexes": "zero", "indexes": [{"key": {"t": -1}, "name": "t_-1", "expireAfterSeconds": 0}]}`)
	insertDocs(t, db, "zero",
		bson.D{{Key: "_id", Value: "now"}, {Key: "t", Value: dt(now)}},
		bson.D{{Key: "_id", Value: "dawn"}, {Key: "t", Value: bson.DateTime(math.MinInt64)}},
		bson.D{{Key: "_id", Value: "end"}, {Key: "t", Value: bson.DateTime(math.MaxInt64)}},
		bson.D{{Key: "_id", Value: "next-ms"}, {Key: "t", Value: dt(now.Add(time.Millisecond))}},
	)
	pass(t, db)
	if got := fmt.Sprint(ids(t, db, "zero")); got != "[end next-ms]" {
		t.Errorf("eas 0 descending: survivors %s, want [end next-ms]", got)
	}
}

// SPEC 2.5 and mongod: two TTL indexes on one field (both directions):
// the shorter expiry wins; a collection default collation and an index
// collation change nothing for dates; a unique and a sparse TTL index
// expire as any other.
func TestReviewExpiryIndexVariants(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"createIndexes": "two", "indexes": [{"key": {"t": 1}, "name": "long", "expireAfterSeconds": 86400}, {"key": {"t": -1}, "name": "short", "expireAfterSeconds": 60}]}`)
	insertDocs(t, db, "two",
		bson.D{{Key: "_id", Value: "10m"}, {Key: "t", Value: dt(now.Add(-10 * time.Minute))}},
		bson.D{{Key: "_id", Value: "10s"}, {Key: "t", Value: dt(now.Add(-10 * time.Second))}})
	pass(t, db)
	if got := fmt.Sprint(ids(t, db, "two")); got != "[10s]" {
		t.Errorf("two TTL indexes: survivors %s, want [10s]", got)
	}
	mustRun(t, db, "test", `{"create": "coll", "collation": {"locale": "en", "strength": 2}}`)
	mustRun(t, db, "test", `{"createIndexes": "coll", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`)
	mustRun(t, db, "test", `{"createIndexes": "ixcoll", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60, "collation": {"locale": "fr"}}]}`)
	for _, c := range []string{"coll", "ixcoll"} {
		insertDocs(t, db, c,
			bson.D{{Key: "_id", Value: "Old"}, {Key: "t", Value: dt(now.Add(-time.Hour))}},
			bson.D{{Key: "_id", Value: "new"}, {Key: "t", Value: dt(now)}},
			bson.D{{Key: "_id", Value: "str"}, {Key: "t", Value: "2000-01-01"}})
	}
	pass(t, db)
	for _, c := range []string{"coll", "ixcoll"} {
		if got := fmt.Sprint(ids(t, db, c)); got != "[new str]" {
			t.Errorf("%s (collation): survivors %s, want [new str]", c, got)
		}
		mustValidate(t, db, "test", c)
	}
	mustRun(t, db, "test", `{"createIndexes": "uniq", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60, "unique": true}]}`)
	mustRun(t, db, "test", `{"createIndexes": "sparse", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60, "sparse": true}]}`)
	for _, c := range []string{"uniq", "sparse"} {
		insertDocs(t, db, c,
			bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: dt(now.Add(-time.Hour))}},
			bson.D{{Key: "_id", Value: 2}, {Key: "t", Value: dt(now)}},
			bson.D{{Key: "_id", Value: 3}})
		pass(t, db)
		if got := fmt.Sprint(ids(t, db, c)); got != "[2 3]" {
			t.Errorf("%s: survivors %s, want [2 3]", c, got)
		}
	}
}

// SPEC 2.5: a partial TTL index expires only documents matching its
// filter, also a filter on the date itself, and re-checks the filter on
// the current document.
func TestReviewExpiryPartial(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"createIndexes": "d", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60, "partialFilterExpression": {"t": {"$gt": {"$date": "2000-01-01T00:00:00Z"}}}}]}`)
	insertDocs(t, db, "d",
		bson.D{{Key: "_id", Value: "1990"}, {Key: "t", Value: dt(time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC))}},
		bson.D{{Key: "_id", Value: "2010"}, {Key: "t", Value: dt(time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC))}},
		bson.D{{Key: "_id", Value: "now"}, {Key: "t", Value: dt(now)}})
	pass(t, db)
	if got := fmt.Sprint(ids(t, db, "d")); got != "[1990 now]" {
		t.Errorf("partial on the date: survivors %s, want [1990 now]", got)
	}
	mustRun(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60, "partialFilterExpression": {"k": {"$exists": true}}}]}`)
	insertDocs(t, db, "e",
		bson.D{{Key: "_id", Value: "in"}, {Key: "t", Value: dt(now.Add(-time.Hour))}, {Key: "k", Value: nil}},
		bson.D{{Key: "_id", Value: "out"}, {Key: "t", Value: dt(now.Add(-time.Hour))}},
		bson.D{{Key: "_id", Value: "leaves"}, {Key: "t", Value: dt(now.Add(-time.Hour))}, {Key: "k", Value: 1}},
		bson.D{{Key: "_id", Value: "joins"}, {Key: "t", Value: dt(now.Add(-time.Hour))}})
	ctx := context.Background()
	c := db.Database("test").Collection("e")
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: "leaves"}}, bson.D{{Key: "$unset", Value: bson.D{{Key: "k", Value: 1}}}}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: "joins"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "k", Value: "x"}}}}, false); err != nil {
		t.Fatal(err)
	}
	if n := pass(t, db).Deleted; n != 2 {
		t.Errorf("partial $exists: deleted %d, want 2", n)
	}
	if got := fmt.Sprint(ids(t, db, "e")); got != "[out leaves]" {
		t.Errorf("partial $exists: survivors %s, want [out leaves]", got)
	}
	mustValidate(t, db, "test", "e")
}

// SPEC 3.4 and mongod's ttl_monitor.cpp: a pass counts passes and
// sub-passes even with no TTL index; a document found by two expired
// dates counts once; the counters are 64-bit in serverStatus.
func TestReviewExpiryMetrics(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	before := db.Stats()
	pass(t, db)
	after := db.Stats()
	if after.TTLPasses != before.TTLPasses+1 || after.TTLSubPasses < before.TTLSubPasses+1 {
		t.Errorf("a pass without TTL indexes: passes %d->%d, subPasses %d->%d", before.TTLPasses, after.TTLPasses, before.TTLSubPasses, after.TTLSubPasses)
	}
	mustRun(t, db, "test", `{"createIndexes": "m", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`)
	insertDocs(t, db, "m",
		bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: bson.A{dt(now.Add(-time.Hour)), dt(now.Add(-2 * time.Hour))}}},
		bson.D{{Key: "_id", Value: 2}, {Key: "t", Value: dt(now.Add(-time.Hour))}})
	r := pass(t, db)
	if r.Deleted != 2 {
		t.Errorf("deleted %d, want 2", r.Deleted)
	}
	st := mustRun(t, db, "admin", `{"serverStatus": 1}`)
	for _, k := range []string{"passes", "subPasses", "deletedDocuments"} {
		v := field(st, "metrics.ttl."+k)
		if _, ok := v.(int64); !ok {
			t.Errorf("metrics.ttl.%s = %#v, want an int64", k, v)
		}
	}
	if v := field(st, "metrics.ttl.deletedDocuments"); v != int64(2) {
		t.Errorf("metrics.ttl.deletedDocuments = %v, want 2", v)
	}
	if v := field(st, "metrics.ttl.passes"); v != int64(2) {
		t.Errorf("metrics.ttl.passes = %v, want 2", v)
	}
	// Without batched deletes: everything in one visit, counted the same.
	mustRun(t, db, "admin", `{"setParameter": 1, "ttlMonitorBatchDeletes": false}`)
	var docs []bson.D
	for i := 0; i < 30; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: 100 + i}, {Key: "t", Value: dt(now.Add(-time.Hour))}})
	}
	insertDocs(t, db, "m", docs...)
	bd := field(mustRun(t, db, "admin", `{"serverStatus": 1}`), "batchedDeletes.docs")
	if n := pass(t, db).Deleted; n != 30 {
		t.Errorf("unbatched: deleted %d, want 30", n)
	}
	st = mustRun(t, db, "admin", `{"serverStatus": 1}`)
	if v := field(st, "metrics.ttl.deletedDocuments"); v != int64(32) {
		t.Errorf("metrics.ttl.deletedDocuments = %v, want 32", v)
	}
	if v := field(st, "batchedDeletes.docs"); fmt.Sprint(v) != fmt.Sprint(bd) {
		t.Errorf("unbatched TTL moved batchedDeletes.docs %v -> %v", bd, v)
	}
}

// SPEC 1.2-1.4, 6.7: createIndexes refusals around TTL.
func TestReviewExpiryCreateIndexRefusals(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "plain"}`)
	cases := []struct {
		spec string
		code document.Code
		frag string
	}{
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberDecimal": "Infinity"}}`, document.CodeCannotCreateIndex, "32-bit integer"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberDecimal": "-Infinity"}}`, document.CodeCannotCreateIndex, "32-bit integer"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberDecimal": "1E+400"}}`, document.CodeCannotCreateIndex, "32-bit integer"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberDouble": "-2147483648.5"}}`, document.CodeCannotCreateIndex, ""},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberLong": "-2147483648"}}`, document.CodeCannotCreateIndex, "cannot be less than 0"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$binary": {"base64": "", "subType": "00"}}}`, document.CodeCannotCreateIndex, "must be numeric"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$timestamp": {"t": 1, "i": 1}}}`, document.CodeCannotCreateIndex, "must be numeric"},
		{`{"key": {"t": 1, "u": -1}, "name": "x", "expireAfterSeconds": 0}`, document.CodeCannotCreateIndex, "compound indexes do not support TTL"},
		{`{"key": {"a.$**": 1}, "name": "w", "expireAfterSeconds": 10}`, document.CodeCannotCreateIndex, "expireAfterSeconds"},
	}
	for _, c := range cases {
		wantCode(t, db, "test", fmt.Sprintf(`{"createIndexes": "plain", "indexes": [%s]}`, c.spec), c.code, c.frag)
	}
	if names := indexNames(t, db, "test", "plain"); names != "_id_" {
		t.Fatalf("failed createIndexes built %s", names)
	}
	// A capped collection: 67, and on a view 166.
	createCapped(t, db, "cap", 4096, 0)
	wantCode(t, db, "test", `{"createIndexes": "cap", "indexes": [{"key": {"t": -1}, "name": "t_-1", "expireAfterSeconds": 0}]}`, document.CodeCannotCreateIndex, "Cannot create TTL index on a capped collection")
	mustRun(t, db, "test", `{"create": "v", "viewOn": "plain", "pipeline": []}`)
	wantCode(t, db, "test", `{"createIndexes": "v", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 1}]}`, document.CodeCommandNotSupportedOnView, "")
}

// SPEC 6.7: time-series partial TTL indexes.
func TestReviewExpiryTimeseriesTTLIndexRefusals(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	mustRun(t, db, "test", `{"create": "nometa", "timeseries": {"timeField": "t"}}`)
	cases := []struct {
		coll, spec string
		code       document.Code
	}{
		{"w", `{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}`, document.CodeInvalidOptions},
		{"w", `{"key": {"v": 1}, "name": "v_1", "expireAfterSeconds": 10, "partialFilterExpression": {"m": "a"}}`, document.CodeInvalidOptions},
		{"w", `{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10, "partialFilterExpression": {"v": 1}}`, document.CodeInvalidOptions},
		{"w", `{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10, "partialFilterExpression": {"t": {"$gt": {"$date": "2000-01-01T00:00:00Z"}}}}`, document.CodeInvalidOptions},
		{"w", `{"key": {"t": 1, "m": 1}, "name": "tm", "expireAfterSeconds": 10, "partialFilterExpression": {"m": "a"}}`, document.CodeCannotCreateIndex},
		{"nometa", `{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}`, document.CodeInvalidOptions},
	}
	for _, c := range cases {
		wantCode(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": [%s]}`, c.coll, c.spec), c.code, "")
	}
	// Accepted: a descending key, a filter on a meta subfield.
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"t": -1}, "name": "td", "expireAfterSeconds": 10, "partialFilterExpression": {"m.region": "eu"}}]}`)
	ix := listedIndex(t, db, "w", "td")
	if !document.Equal(field(ix, "key"), bson.D{{Key: "t", Value: int32(-1)}}) || field(ix, "expireAfterSeconds") != int32(10) ||
		!document.Equal(field(ix, "partialFilterExpression"), bson.D{{Key: "m.region", Value: "eu"}}) {
		t.Errorf("listed %v", ix)
	}
}

// SPEC 6.6 with custom bucketing and a granularity change: the span in
// the rule is the collection's bucketMaxSpanSeconds.
func TestReviewExpiryTimeseriesSpan(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"create": "c", "timeseries": {"timeField": "t", "bucketMaxSpanSeconds": 100, "bucketRoundingSeconds": 100}, "expireAfterSeconds": 10}`)
	// min = floor(now-200s, 100s); span 100, expiry 10.
	first := now.Add(-200 * time.Second)
	mustInsertTS(t, db, "c", fmt.Sprintf(`{"t": %s}`, tsDate(first)))
	bmin := time.UnixMilli(first.UnixMilli() / 100000 * 100000).UTC()
	due := bmin.Add(110 * time.Second)
	if !due.After(now) {
		if n := ttlPass(t, db).Deleted; n != 1 {
			t.Errorf("custom span: deleted %d, want 1 (min %v due %v now %v)", n, bmin, due, now)
		}
	}
	mustRun(t, db, "test", `{"create": "g", "timeseries": {"timeField": "t", "granularity": "seconds"}, "expireAfterSeconds": 0}`)
	mustInsertTS(t, db, "g", fmt.Sprintf(`{"t": %s}`, tsDate(now.Add(-2*time.Hour))))
	mustRun(t, db, "test", `{"collMod": "g", "timeseries": {"granularity": "minutes"}}`)
	if n := ttlPass(t, db).Deleted; n != 0 {
		t.Errorf("after seconds->minutes, a bucket 2h old went (span now 86400): deleted %d", n)
	}
	clk.Advance(23 * time.Hour)
	if n := ttlPass(t, db).Deleted; n != 1 {
		t.Errorf("after 25h with span 86400: deleted %d, want 1", n)
	}
}

// SPEC 3.4: time-series deletedDocuments counts buckets; a partial TTL
// index's shorter expiry wins for matching buckets.
func TestReviewExpiryTimeseriesCounts(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 86400}`)
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60, "partialFilterExpression": {"m.k": "short"}}]}`)
	old := now.Add(-3 * time.Hour)
	mustInsertTS(t, db, "w",
		fmt.Sprintf(`{"t": %s, "m": {"k": "short"}, "v": 1}`, tsDate(old)),
		fmt.Sprintf(`{"t": %s, "m": {"k": "short"}, "v": 2}`, tsDate(old.Add(time.Second))),
		fmt.Sprintf(`{"t": %s, "m": {"k": "short"}, "v": 3}`, tsDate(old.Add(2*time.Second))),
		fmt.Sprintf(`{"t": %s, "m": {"k": "long"}, "v": 4}`, tsDate(old)))
	before := db.Stats().TTLDeletedDocuments
	if n := ttlPass(t, db).Deleted; n != 1 {
		t.Errorf("deleted %d buckets, want 1", n)
	}
	if d := db.Stats().TTLDeletedDocuments - before; d != 1 {
		t.Errorf("deletedDocuments grew by %d, want 1 (a bucket)", d)
	}
	if n := count(t, db, "test", "w"); n != 1 {
		t.Errorf("%d measurements left, want 1", n)
	}
}

// SPEC 6.1: expireAfterSeconds on a time-series create.
func TestReviewExpiryTimeseriesCreateExpire(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for i, c := range []struct {
		v    string
		want any
	}{
		{`0`, int64(0)},
		{`{"$numberLong": "5"}`, int64(5)},
		{`{"$numberDecimal": "7.9"}`, int64(7)},
		{`2147483648`, int64(2147483648)},
	} {
		name := fmt.Sprintf("t%d", i)
		mustRun(t, db, "test", fmt.Sprintf(`{"create": %q, "timeseries": {"timeField": "t"}, "expireAfterSeconds": %s}`, name, c.v))
		r := mustRun(t, db, "test", fmt.Sprintf(`{"listCollections": 1, "filter": {"name": %q}}`, name))
		if got := field(r, "cursor.firstBatch.0.options.expireAfterSeconds"); got != c.want {
			t.Errorf("create expireAfterSeconds %s: listed %#v, want %#v", c.v, got, c.want)
		}
	}
	wantCode(t, db, "test", `{"create": "bad", "timeseries": {"timeField": "t"}, "expireAfterSeconds": {"$numberDouble": "-0.5"}}`, document.CodeInvalidOptions, "")
	wantCode(t, db, "test", `{"create": "bad", "timeseries": {"timeField": "t"}, "expireAfterSeconds": true}`, document.CodeTypeMismatch, "")
	wantCode(t, db, "test", `{"create": "bad", "timeseries": {"timeField": "t"}, "expireAfterSeconds": "off"}`, document.CodeTypeMismatch, "")
}

// collMod's collection form on a time-series collection: reply and
// listing.
func TestReviewExpiryTimeseriesCollModReply(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t"}}`)
	r := mustRun(t, db, "test", `{"collMod": "w", "expireAfterSeconds": 30.9}`)
	if got := replyKeys(r); got != "ok=1" {
		t.Errorf("collMod expireAfterSeconds reply %s, want ok=1", got)
	}
	if v := field(db.collectionInfo(db.lookup("test", "w")), "options.expireAfterSeconds"); v != int64(30) {
		t.Errorf("listed %#v, want int64(30)", v)
	}
	mustRun(t, db, "test", `{"collMod": "w", "expireAfterSeconds": "off"}`)
	mustRun(t, db, "test", `{"collMod": "w", "expireAfterSeconds": "off"}`)
}

// mongod's TTL monitor scans a clustered collection's expired _ids from
// the epoch (ttl_monitor.cpp, _deleteExpiredWithCollscan: the start
// bound is Date_t{}), so an _id dated before 1970 is never expired.
func TestReviewExpiryClusteredPre1970(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}, "expireAfterSeconds": 60}`)
	now := clk.Now()
	insertDocs(t, db, "c",
		bson.D{{Key: "_id", Value: dt(time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC))}},
		bson.D{{Key: "_id", Value: dt(now.Add(-time.Hour))}},
		bson.D{{Key: "_id", Value: dt(now)}})
	if n := pass(t, db).Deleted; n != 1 {
		t.Errorf("clustered TTL: deleted %d, want 1 (the _id an hour old; mongod keeps the 1960 one)", n)
	}
}

// convertToCapped and cloneCollectionAsCapped keep only _id: a TTL index
// of the source stops expiring anything.
func TestReviewExpiryConvertDropsTTL(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`)
	mustRun(t, db, "test", `{"createIndexes": "src", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`)
	for _, c := range []string{"c", "src"} {
		insertDocs(t, db, c,
			bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: dt(now.Add(-time.Hour))}},
			bson.D{{Key: "_id", Value: 2}, {Key: "t", Value: dt(now)}})
	}
	mustRun(t, db, "test", `{"convertToCapped": "c", "size": 100000}`)
	mustRun(t, db, "test", `{"cloneCollectionAsCapped": "src", "toCollection": "dst", "size": 100000}`)
	if names := indexNames(t, db, "test", "c"); names != "_id_" {
		t.Errorf("after convertToCapped: indexes %s", names)
	}
	if names := indexNames(t, db, "test", "dst"); names != "_id_" {
		t.Errorf("cloneCollectionAsCapped: indexes %s", names)
	}
	pass(t, db)
	if n := count(t, db, "test", "c"); n != 2 {
		t.Errorf("converted capped collection: %d documents left, want 2", n)
	}
	if n := count(t, db, "test", "dst"); n != 2 {
		t.Errorf("cloned capped collection: %d documents left, want 2", n)
	}
	if n := count(t, db, "test", "src"); n != 1 {
		t.Errorf("clone source: %d documents left, want 1", n)
	}
	wantCode(t, db, "test", `{"cloneCollectionAsCapped": "src", "toCollection": "dst", "size": 100000}`, document.CodeNamespaceExists, "")
	wantCode(t, db, "test", `{"cloneCollectionAsCapped": "src", "toCollection": "src", "size": 100000}`, document.CodeNamespaceExists, "")
}

// mongod's find (shouldSaveCursor): a tailable cursor is kept unless the
// collection has no records, whatever the filter matched.
func TestReviewExpiryTailableNoMatch(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	createCapped(t, db, "c", 4096, 0)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"i": 1}]}`)
	r := mustRun(t, db, "test", `{"find": "c", "filter": {"i": 2}, "tailable": true}`)
	id, _ := field(r, "cursor.id").(int64)
	if id == 0 {
		t.Fatalf("tailable find matching nothing in a non-empty capped collection: cursor id 0")
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"i": 2}]}`)
	r, err := getMore(t, db, id, "")
	if err != nil || !equalInts(batchInts(t, r, "nextBatch"), []int64{2}) {
		t.Fatalf("getMore: %v %v", r, err)
	}
	// A getMore with maxTimeMS on a tailable cursor without awaitData: 2.
	_, err = getMore(t, db, id, `, "maxTimeMS": 5`)
	checkCode(t, "maxTimeMS on a non-awaitData getMore", err, document.CodeBadValue, "non-awaitData")
}

// SPEC 7.7: a (non-tailable) cursor whose position has been overwritten
// fails with 136 on getMore.
func TestReviewExpiryCappedCursorOverrun(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 4096, 0)
	ctx := context.Background()
	for i := 0; i < 20; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "i", Value: int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	r := mustRun(t, db, "test", `{"find": "c", "batchSize": 2}`)
	id := field(r, "cursor.id").(int64)
	for i := 20; i < 600; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "i", Value: int64(i)}, {Key: "pad", Value: "xxxxxxxxxxxxxxxxxxxx"}}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := getMore(t, db, id, "")
	checkCode(t, "overrun find cursor", err, document.CodeCappedPositionLost, "")
}

// SPEC 7.5: an update may change a document's size (MongoDB 6.0+,
// SERVER-58865): one that fits its record is applied in place, one that
// no longer fits is kept outside the ring; both keep the document's
// place in natural order.
func TestReviewExpiryCappedUpdateSize(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	createCapped(t, db, "c", 1<<20, 0)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1, "b": "xy"}, {"_id": 2, "a": 1, "b": "xy"}, {"_id": 3, "a": 1, "b": "xy"}]}`)
	for _, u := range []string{
		`{"$set": {"a": {"$numberLong": "1"}}}`,
		`{"$set": {"a": 1.0}}`,
		`{"$rename": {"b": "bb"}}`,
		`{"$set": {"c": 1}}`,
		`[{"$set": {"b": "xyz"}}]`,
	} {
		r := mustRun(t, db, "test", fmt.Sprintf(`{"update": "c", "updates": [{"q": {"_id": 1}, "u": %s}]}`, u))
		if _, bad := get(r, "writeErrors"); bad || field(r, "nModified") != int32(1) {
			t.Errorf("growing update %s: %v", u, r)
		}
	}
	for _, u := range []string{
		`{"$rename": {"b": "c"}}`,
		`{"$set": {"a": 2}}`,
		`{"_id": 2, "b": "xy", "a": 7}`,
		`[{"$set": {"b": "zz"}}]`,
		`{"$unset": {"b": 1}}`,
		`{"$set": {"b": "x"}}`,
	} {
		r := mustRun(t, db, "test", fmt.Sprintf(`{"update": "c", "updates": [{"q": {"_id": 2}, "u": %s}]}`, u))
		if _, bad := get(r, "writeErrors"); bad || field(r, "nModified") != int32(1) {
			t.Errorf("same-size update %s: %v", u, r)
		}
	}
	// A multi-update changes every document, whatever its size.
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 4, "a": 1, "b": "x"}]}`)
	r := mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {}, "u": {"$set": {"b": "qq"}}, "multi": true}]}`)
	if _, bad := get(r, "writeErrors"); bad || field(r, "nModified") != int32(4) {
		t.Errorf("multi update over size changes: %v", r)
	}
	// findAndModify that grows a document, and an upsert that inserts.
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"_id": 3}, "update": {"$set": {"b": "xyz"}}, "new": true}`)
	if field(r, "value.b") != "xyz" {
		t.Errorf("findAndModify growing a document: %v", r)
	}
	mustRun(t, db, "test", `{"findAndModify": "c", "query": {"_id": 9}, "update": {"$set": {"b": "xyz"}}, "upsert": true}`)
	var ids []any
	for _, d := range findAll(t, db, "test", "c", nil) {
		ids = append(ids, idOf(d))
	}
	if fmt.Sprint(ids) != "[1 2 3 4 9]" {
		t.Errorf("natural order after size changes: %v", ids)
	}
	mustValidate(t, db, "test", "c")
}

// explain of a multi-document delete on a TTL-dated field (SPEC 4.3).
func TestReviewExpiryExplainDelete(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`)
	insertDocs(t, db, "c",
		bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: dt(now.Add(-time.Hour))}},
		bson.D{{Key: "_id", Value: 2}, {Key: "t", Value: dt(now.Add(-2 * time.Hour))}},
		bson.D{{Key: "_id", Value: 3}, {Key: "t", Value: dt(now)}})
	r := mustRun(t, db, "test", fmt.Sprintf(`{"explain": {"delete": "c", "deletes": [{"q": {"t": {"$lte": %s}}, "limit": 0}]}, "verbosity": "executionStats"}`, tsDate(now.Add(-time.Minute))))
	if s := field(r, "queryPlanner.winningPlan.stage"); s != "BATCHED_DELETE" {
		t.Errorf("winningPlan.stage %v", s)
	}
	if s := field(r, "queryPlanner.winningPlan.inputStage.stage"); s != "FETCH" {
		t.Errorf("input stage %v", s)
	}
	if s := field(r, "queryPlanner.winningPlan.inputStage.inputStage.indexName"); s != "t_1" {
		t.Errorf("index %v", s)
	}
	if v := field(r, "executionStats.executionStages.nWouldDelete"); fmt.Sprint(v) != "2" {
		t.Errorf("nWouldDelete %v", v)
	}
	if v := field(r, "executionStats.nReturned"); fmt.Sprint(v) != "0" {
		t.Errorf("nReturned %v", v)
	}
	if v := field(r, "executionStats.totalKeysExamined"); fmt.Sprint(v) != "2" && fmt.Sprint(v) != "3" {
		t.Errorf("totalKeysExamined %v", v)
	}
	if v := field(r, "executionStats.executionStages.isEOF"); fmt.Sprint(v) != "true" && fmt.Sprint(v) != "1" {
		t.Errorf("isEOF %v", v)
	}
	if n := count(t, db, "test", "c"); n != 3 {
		t.Errorf("explain deleted documents: %d left", n)
	}
	r = mustRun(t, db, "test", `{"explain": {"delete": "c", "deletes": [{"q": {"_id": 1}, "limit": 1}]}, "verbosity": "executionStats"}`)
	if s := field(r, "queryPlanner.winningPlan.stage"); s != "DELETE" {
		t.Errorf("limit 1: winningPlan.stage %v", s)
	}
}

// Two TTL indexes with the same key and different partial filters are
// two indexes (mongod allows them since 5.0); each expires the documents
// of its filter by its own expiry.
func TestReviewExpiryTwoPartials(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"t": 1}, "name": "fast", "expireAfterSeconds": 60, "partialFilterExpression": {"k": "fast"}},
		{"key": {"t": 1}, "name": "slow", "expireAfterSeconds": 7200, "partialFilterExpression": {"k": "slow"}},
		{"key": {"t": 1}, "name": "plain"}]}`)
	insertDocs(t, db, "c",
		bson.D{{Key: "_id", Value: "fast-10m"}, {Key: "t", Value: dt(now.Add(-10 * time.Minute))}, {Key: "k", Value: "fast"}},
		bson.D{{Key: "_id", Value: "slow-10m"}, {Key: "t", Value: dt(now.Add(-10 * time.Minute))}, {Key: "k", Value: "slow"}},
		bson.D{{Key: "_id", Value: "slow-3h"}, {Key: "t", Value: dt(now.Add(-3 * time.Hour))}, {Key: "k", Value: "slow"}},
		bson.D{{Key: "_id", Value: "none-3h"}, {Key: "t", Value: dt(now.Add(-3 * time.Hour))}})
	pass(t, db)
	if got := fmt.Sprint(ids(t, db, "c")); got != "[slow-10m none-3h]" {
		t.Errorf("survivors %s, want [slow-10m none-3h]", got)
	}
	// collMod by key pattern is ambiguous (181); by name it is not.
	wantCode(t, db, "test", `{"collMod": "c", "index": {"keyPattern": {"t": 1}, "expireAfterSeconds": 5}}`, document.CodeAmbiguousIndexKeyPattern, "")
	r := mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "slow", "expireAfterSeconds": 60}}`)
	if got := replyKeys(r); got != "expireAfterSeconds_old=7200 expireAfterSeconds_new=60 ok=1" {
		t.Errorf("collMod reply %s", got)
	}
	pass(t, db)
	if got := fmt.Sprint(ids(t, db, "c")); got != "[none-3h]" {
		t.Errorf("after collMod: survivors %s, want [none-3h]", got)
	}
	mustValidate(t, db, "test", "c")
}

// A tailable cursor with a limit: mongod keeps a tailable cursor unless
// the collection is empty (find_common.cpp shouldSaveCursor), so its id
// is not 0 even when the limit is reached.
func TestReviewExpiryTailableLimit(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	createCapped(t, db, "c", 4096, 0)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"i": 1}, {"i": 2}, {"i": 3}]}`)
	r := mustRun(t, db, "test", `{"find": "c", "tailable": true, "limit": 2}`)
	if got := batchInts(t, r, "firstBatch"); !equalInts(got, []int64{1, 2}) {
		t.Fatalf("first batch %v", got)
	}
	if id := field(r, "cursor.id"); id == int64(0) {
		t.Errorf("tailable find with a limit on a non-empty capped collection: cursor id 0; mongod keeps it")
	}
}

// Time-series: dropping the partial TTL index stops its expiry; "off"
// leaves a partial TTL index working; a hidden partial TTL index still
// expires.
func TestReviewExpiryTimeseriesPartialLifecycle(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 60}`)
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"t": 1}, "name": "p", "expireAfterSeconds": 0, "partialFilterExpression": {"m": "a"}, "hidden": true}]}`)
	mustRun(t, db, "test", `{"collMod": "w", "expireAfterSeconds": "off"}`)
	old := now.Add(-3 * time.Hour)
	mustInsertTS(t, db, "w",
		fmt.Sprintf(`{"t": %s, "m": "a"}`, tsDate(old)),
		fmt.Sprintf(`{"t": %s, "m": "b"}`, tsDate(old)))
	if n := ttlPass(t, db).Deleted; n != 1 {
		t.Errorf("hidden partial TTL index after expireAfterSeconds off: deleted %d buckets, want 1", n)
	}
	mustRun(t, db, "test", `{"dropIndexes": "w", "index": "p"}`)
	mustInsertTS(t, db, "w", fmt.Sprintf(`{"t": %s, "m": "a"}`, tsDate(old)))
	if n := ttlPass(t, db).Deleted; n != 0 {
		t.Errorf("after dropping the partial TTL index: deleted %d", n)
	}
	if n := count(t, db, "test", "w"); n != 2 {
		t.Errorf("%d measurements left, want 2", n)
	}
}

// SPEC 6.4: a delete that removes some measurements of a bucket keeps
// its _id and min time, so its expiry instant does not move.
func TestReviewExpiryTimeseriesPartialDeleteKeepsExpiry(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 10}`)
	first := now.Add(-50 * time.Minute)
	mustInsertTS(t, db, "w",
		fmt.Sprintf(`{"t": %s, "m": 1, "v": 1}`, tsDate(first)),
		fmt.Sprintf(`{"t": %s, "m": 1, "v": 2}`, tsDate(now.Add(-10*time.Minute))))
	mustRun(t, db, "test", `{"delete": "w", "deletes": [{"q": {"v": 1}, "limit": 0}]}`)
	bmin := first.Truncate(time.Minute)
	clk.Advance(bmin.Add(3610 * time.Second).Sub(now))
	if n := ttlPass(t, db).Deleted; n != 1 {
		t.Errorf("at old min + span + expiry: deleted %d buckets, want 1", n)
	}
}

// A TTL delete removes every index entry of the document, whatever the
// other indexes are: a text index (whose key is _fts/_ftsx, its fields
// named by weights), a 2dsphere, a hashed and a unique index.
func TestReviewExpiryDeletesEveryIndexEntry(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60},
		{"key": {"title": "text"}, "name": "title_text"}]}`)
	insertDocs(t, db, "c",
		bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: dt(now.Add(-time.Hour))}, {Key: "title", Value: "quick brown fox"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "t", Value: dt(now)}, {Key: "title", Value: "lazy dog"}})
	if n := pass(t, db).Deleted; n != 1 {
		t.Fatalf("deleted %d, want 1", n)
	}
	r := mustRun(t, db, "test", `{"find": "c", "filter": {"$text": {"$search": "fox"}}}`)
	if b := field(r, "cursor.firstBatch").(bson.A); len(b) != 0 {
		t.Errorf("$text finds a TTL-deleted document: %v", b)
	}
	res, err := db.Validate(context.Background(), "test", "c")
	if err != nil || !res.Valid() {
		t.Errorf("validate after a TTL pass over a text-indexed collection: %v %v", err, res.Errors)
	}
	// The same with the other index kinds.
	mustRun(t, db, "test", `{"createIndexes": "g", "indexes": [
		{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60},
		{"key": {"loc": "2dsphere"}, "name": "loc"},
		{"key": {"h": "hashed"}, "name": "h"},
		{"key": {"u": 1}, "name": "u", "unique": true},
		{"key": {"a.b": 1}, "name": "ab"}]}`)
	insertDocs(t, db, "g",
		bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: dt(now.Add(-time.Hour))}, {Key: "loc", Value: bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{1.0, 2.0}}}},
			{Key: "h", Value: "x"}, {Key: "u", Value: 7}, {Key: "a", Value: bson.A{bson.D{{Key: "b", Value: 1}}, bson.D{{Key: "b", Value: 2}}}}})
	if n := pass(t, db).Deleted; n != 1 {
		t.Fatalf("deleted %d, want 1", n)
	}
	mustValidate(t, db, "test", "g")
	// The unique key is free again.
	insertDocs(t, db, "g", bson.D{{Key: "_id", Value: 2}, {Key: "u", Value: 7}})
}

// mongod's jstests/noPassthrough/collmod_index_noop.js: hiding a hidden
// index (or unhiding a visible one) is a no-op whose reply carries no
// hidden_old/hidden_new; beside a real expireAfterSeconds change the
// reply carries only the expireAfterSeconds fields.
func TestReviewExpiryCollModHiddenNoop(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b": 1}, "name": "b_1", "expireAfterSeconds": 5}]}`)
	for _, c := range []struct{ cmd, want string }{
		{`{"collMod": "c", "index": {"name": "a_1", "hidden": true}}`, "hidden_old=false hidden_new=true ok=1"},
		{`{"collMod": "c", "index": {"name": "a_1", "hidden": true}}`, "ok=1"},
		{`{"collMod": "c", "index": {"name": "a_1", "hidden": false}}`, "hidden_old=true hidden_new=false ok=1"},
		{`{"collMod": "c", "index": {"name": "a_1", "hidden": false}}`, "ok=1"},
		{`{"collMod": "c", "index": {"name": "b_1", "expireAfterSeconds": 10, "hidden": false}}`, "expireAfterSeconds_old=5 expireAfterSeconds_new=10 ok=1"},
	} {
		r := mustRun(t, db, "test", c.cmd)
		if got := replyKeys(r); got != c.want {
			t.Errorf("%s\n reply %s\n want  %s", c.cmd, got, c.want)
		}
	}
	if ix := listedIndex(t, db, "c", "b_1"); field(ix, "expireAfterSeconds") != int32(10) {
		t.Errorf("b_1 listed %v", ix)
	}
}

// The fast path (TTL index the only other index): every kind of _id is
// deleted with its _id entry, under a collection collation too, and the
// same _id can be inserted again.
func TestReviewExpiryFastPathIDs(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	old := dt(now.Add(-time.Hour))
	dec, _ := bson.ParseDecimal128("1.5")
	idsIn := []any{int32(1), int64(2), 3.5, dec, "str", "Str2", bson.D{{Key: "a", Value: 1}, {Key: "b", Value: "x"}},
		bson.NewObjectID(), true, nil, bson.Binary{Subtype: 0, Data: []byte{1, 2}}, old, bson.Timestamp{T: 5, I: 1}, bson.MinKey{}, bson.MaxKey{}}
	for _, coll := range []string{"plain", "coll"} {
		if coll == "coll" {
			mustRun(t, db, "test", `{"create": "coll", "collation": {"locale": "en", "strength": 2}}`)
		}
		mustRun(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": [{"key": {"t": -1}, "name": "t_-1", "expireAfterSeconds": 60}]}`, coll))
		var docs []bson.D
		for _, id := range idsIn {
			docs = append(docs, bson.D{{Key: "_id", Value: id}, {Key: "t", Value: old}})
		}
		insertDocs(t, db, coll, docs...)
		pass(t, db)
		if n := count(t, db, "test", coll); n != 0 {
			t.Errorf("%s: %d documents left, want 0", coll, n)
		}
		mustValidate(t, db, "test", coll)
		insertDocs(t, db, coll, docs...)
		if n := count(t, db, "test", coll); n != int64(len(idsIn)) {
			t.Errorf("%s: %d documents after re-inserting the same _ids", coll, n)
		}
		mustValidate(t, db, "test", coll)
		mustRun(t, db, "test", fmt.Sprintf(`{"drop": %q}`, coll))
	}
}

// SPEC 3.3 for a time-series collection: without batched deletes the
// visit deletes every due bucket and the batchedDeletes counters stay.
func TestReviewExpiryTimeseriesUnbatched(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 5}`)
	var ms []string
	for i := 0; i < 30; i++ {
		ms = append(ms, fmt.Sprintf(`{"t": %s, "m": %d}`, tsDate(now.Add(-3*time.Hour)), i))
	}
	mustInsertTS(t, db, "w", ms...)
	mustRun(t, db, "admin", `{"setParameter": 1, "ttlMonitorBatchDeletes": false, "ttlIndexDeleteTargetDocs": 7}`)
	before := db.Stats()
	r := ttlPass(t, db)
	after := db.Stats()
	if r.Deleted != 30 || r.SubPasses != 1 {
		t.Errorf("unbatched pass: deleted %d in %d sub-passes, want 30 in 1", r.Deleted, r.SubPasses)
	}
	if after.BatchedDeleteBatches != before.BatchedDeleteBatches || after.BatchedDeleteDocs != before.BatchedDeleteDocs {
		t.Errorf("unbatched time-series TTL moved batchedDeletes: batches %d->%d docs %d->%d",
			before.BatchedDeleteBatches, after.BatchedDeleteBatches, before.BatchedDeleteDocs, after.BatchedDeleteDocs)
	}
	if d := after.TTLDeletedDocuments - before.TTLDeletedDocuments; d != 30 {
		t.Errorf("deletedDocuments grew by %d, want 30", d)
	}
}

// After a pass moved the index's mark, a document given an old date by
// any write path is deleted by the next pass.
func TestReviewExpiryWritePathsBelowMark(t *testing.T) {
	t.Parallel()
	for _, ix := range []struct{ key, name string }{{`{"t": 1}`, "t_1"}, {`{"t": -1}`, "t_-1"}} {
		t.Run(ix.name, func(t *testing.T) {
			t.Parallel()
			db, _, now := datedTTLColl(t, ix.key, ix.name, 30, 60, true)
			fresh := tsDate(now)
			insertDocs(t, db, "c",
				bson.D{{Key: "_id", Value: "fam"}, {Key: "t", Value: dt(now)}},
				bson.D{{Key: "_id", Value: "repl"}, {Key: "t", Value: dt(now)}},
				bson.D{{Key: "_id", Value: "pipe"}, {Key: "t", Value: dt(now)}},
				bson.D{{Key: "_id", Value: "min"}, {Key: "t", Value: dt(now)}},
				bson.D{{Key: "_id", Value: "arr"}, {Key: "t", Value: bson.A{dt(now), dt(now)}}},
				bson.D{{Key: "_id", Value: "push"}, {Key: "t", Value: bson.A{dt(now)}}},
				bson.D{{Key: "_id", Value: "rename"}, {Key: "old", Value: dt(now.Add(-time.Hour))}})
			if n := pass(t, db).Deleted; n != 30 {
				t.Fatalf("first pass deleted %d, want 30", n)
			}
			old := tsDate(now.Add(-time.Hour))
			mustRun(t, db, "test", `{"create": "src"}`)
			mustRun(t, db, "test", fmt.Sprintf(`{"insert": "src", "documents": [{"_id": "merge", "t": %s}]}`, old))
			for _, cmd := range []string{
				fmt.Sprintf(`{"update": "c", "updates": [{"q": {"_id": "ups"}, "u": {"$set": {"t": %s}}, "upsert": true}]}`, old),
				fmt.Sprintf(`{"findAndModify": "c", "query": {"_id": "famups"}, "update": {"$set": {"t": %s}}, "upsert": true}`, old),
				fmt.Sprintf(`{"findAndModify": "c", "query": {"_id": "fam"}, "update": {"$set": {"t": %s}}}`, old),
				fmt.Sprintf(`{"update": "c", "updates": [{"q": {"_id": "repl"}, "u": {"t": %s}}]}`, old),
				fmt.Sprintf(`{"update": "c", "updates": [{"q": {"_id": "pipe"}, "u": [{"$set": {"t": %s}}]}]}`, old),
				fmt.Sprintf(`{"update": "c", "updates": [{"q": {"_id": "min"}, "u": {"$min": {"t": %s}}}]}`, old),
				fmt.Sprintf(`{"update": "c", "updates": [{"q": {"_id": "arr"}, "u": {"$set": {"t.$[e]": %s}}, "arrayFilters": [{"e": {"$lte": %s}}]}]}`, old, fresh),
				fmt.Sprintf(`{"update": "c", "updates": [{"q": {"_id": "push"}, "u": {"$push": {"t": %s}}}]}`, old),
				`{"update": "c", "updates": [{"q": {"_id": "rename"}, "u": {"$rename": {"old": "t"}}}]}`,
				fmt.Sprintf(`{"insert": "c", "ordered": false, "documents": [{"_id": "unordered", "t": %s}]}`, old),
				`{"aggregate": "src", "pipeline": [{"$merge": {"into": "c"}}], "cursor": {}}`,
			} {
				r := mustRun(t, db, "test", cmd)
				if _, bad := get(r, "writeErrors"); bad {
					t.Fatalf("%s: %v", cmd, r)
				}
			}
			r := pass(t, db)
			if got := fmt.Sprint(ids(t, db, "c")); got != "[live]" {
				t.Errorf("after old dates written by every path: deleted %d, left %s, want [live]", r.Deleted, got)
			}
			mustValidate(t, db, "test", "c")
		})
	}
}

// mongod's capped_utils.cpp: convertToCapped and cloneCollectionAsCapped
// of a view are 166 CommandNotSupportedOnView ("cloneCollectionAsCapped
// not supported for views"), as SPEC 7.6 has it for a time-series
// namespace.
func TestReviewExpiryCappedFromView(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "src", "documents": [{"a": 1}]}`)
	mustRun(t, db, "test", `{"create": "v", "viewOn": "src", "pipeline": []}`)
	for _, cmd := range []string{
		`{"convertToCapped": "v", "size": 4096}`,
		`{"cloneCollectionAsCapped": "v", "toCollection": "d", "size": 4096}`,
	} {
		_, err := run(t, db, "test", cmd)
		if c := document.CodeOf(err); c != document.CodeCommandNotSupportedOnView {
			t.Errorf("%s: %v, want 166 CommandNotSupportedOnView", cmd, err)
		}
	}
	if db.lookup("test", "d") != nil {
		t.Errorf("a refused cloneCollectionAsCapped left its destination")
	}
}

// mongod's coll_mod.cpp (parseCollModRequest): the index form and the
// collection-level expireAfterSeconds on a view are 72 InvalidOptions
// "option not supported on a view: <field>".
func TestReviewExpiryCollModOnView(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "src", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 5}]}`)
	mustRun(t, db, "test", `{"create": "v", "viewOn": "src", "pipeline": []}`)
	for _, c := range []struct{ cmd, frag string }{
		{`{"collMod": "v", "index": {"name": "t_1", "expireAfterSeconds": 10}}`, "option not supported on a view: index"},
		{`{"collMod": "v", "index": {"name": "t_1", "hidden": true}}`, "option not supported on a view: index"},
		{`{"collMod": "v", "expireAfterSeconds": 10}`, "option not supported on a view: expireAfterSeconds"},
	} {
		_, err := run(t, db, "test", c.cmd)
		if e, ok := err.(*Error); !ok || e.Code != document.CodeInvalidOptions || !contains(e.Message, c.frag) {
			t.Errorf("%s: %v, want 72 InvalidOptions %q", c.cmd, err, c.frag)
		}
	}
}
