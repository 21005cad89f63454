package engine

// Review 29: time-series collections against mongod 7.0. Each test
// asserts what mongod answers and names where that was read (a jstest or
// a source file of mongodb/mongo); each failed on ttlkv before its fix.

import (
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// collStats on a time-series collection has no count and no avgObjSize:
// right after size comes the timeseries section {bucketsNs, bucketCount,
// avgBucketSize, <bucket catalog counters>}, and avgBucketSize is left
// out while there is no bucket. There is no timeField in it. The same
// holds for $collStats' storageStats. Read:
// src/mongo/db/stats/storage_stats.cpp (_appendRecordStats: count and
// avgObjSize only when not time-series), jstests/noPassthrough/timeseries_collStats.js
// (no avgBucketSize when empty). ttlkv listed count (of buckets) and
// avgObjSize, a timeField, and avgBucketSize 0 when empty.
func TestReviewTS29CollStatsShape(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t)
	r := mustRun(t, db, "test", `{"collStats": "w"}`)
	// The counters after the first three are TestReviewTS30CatalogCounters'.
	if got := fmt.Sprint(ts26Keys(field(r, "timeseries"))[:3]); got != "[bucketsNs bucketCount numBucketInserts]" {
		t.Errorf("empty collection: timeseries section starts %s, want [bucketsNs bucketCount numBucketInserts]", got)
	}
	mustInsertTS(t, db, "w",
		`{"t": {"$date": "2026-11-22T10:00:00Z"}, "m": 1}`,
		`{"t": {"$date": "2026-11-22T10:00:01Z"}, "m": 2}`)
	check := func(what string, d bson.D) {
		t.Helper()
		keys := ts26Keys(d)
		if len(keys) < 3 || fmt.Sprint(keys[:3]) != "[ns size timeseries]" {
			t.Errorf("%s: fields %v, want ns, size, timeseries first", what, keys)
		}
		for _, k := range keys {
			if k == "count" || k == "avgObjSize" {
				t.Errorf("%s: has %s (%v)", what, k, d)
			}
		}
		if got := fmt.Sprint(ts26Keys(field(d, "timeseries"))[:3]); got != "[bucketsNs bucketCount avgBucketSize]" {
			t.Errorf("%s: timeseries section has %s", what, got)
		}
		if field(d, "timeseries.bucketCount") != int32(2) || field(d, "timeseries.bucketsNs") != "test.system.buckets.w" {
			t.Errorf("%s: timeseries section %v", what, field(d, "timeseries"))
		}
	}
	check("collStats", mustRun(t, db, "test", `{"collStats": "w"}`))
	got := firstBatch(t, mustRun(t, db, "test", `{"aggregate": "w", "pipeline": [{"$collStats": {"storageStats": {}}}], "cursor": {}}`))
	if len(got) != 1 {
		t.Fatalf("$collStats gave %v", got)
	}
	st, _ := field(got[0], "storageStats").(bson.D)
	check("$collStats storageStats", append(bson.D{{Key: "ns", Value: "test.w"}}, st...))
}

// mongod 7.0 runs an update of a time-series collection only when it is
// multi, not an upsert, on a collection with a metaField, with a filter
// naming only metaField paths (no $expr, no $where) and an operator
// update changing only metaField paths; else the write error 72
// InvalidOptions, checked in that order. findAndModify's update is never
// multi, so it is the first refusal. Arbitrary updates sit behind
// featureFlagTimeseriesUpdatesSupport, off in 7.0 (and 8.0). Read:
// src/mongo/db/timeseries/timeseries_write_util.cpp
// (updateRequestCheckFunction), src/mongo/db/timeseries/timeseries_update_delete_util.cpp
// (translateQuery, translateUpdate), src/mongo/db/commands/find_and_modify.cpp
// (the same check). ttlkv ran every one of them.
func TestReviewTS29UpdateRules(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t,
		`{"_id": 1, "t": {"$date": "2026-11-22T10:00:00Z"}, "m": {"a": 1}, "v": 1}`,
		`{"_id": 2, "t": {"$date": "2026-11-22T10:00:01Z"}, "m": {"a": 2}, "v": 2}`)
	mustRun(t, db, "test", `{"create": "nometa", "timeseries": {"timeField": "t"}}`)
	const (
		nonMulti    = "Cannot perform a non-multi update on a time-series collection"
		upsert      = "Cannot perform an upsert on a time-series collection"
		noMeta      = "Cannot perform an update on a time-series collection that does not have a metaField"
		queryField  = "Cannot perform an update or delete on a time-series collection when querying on a field that is not the metaField 'm'"
		updateField = "Cannot perform an update on a time-series collection which updates a field that is not the metaField 'm'"
	)
	cases := []struct{ coll, stmt, msg string }{
		{"w", `{"q": {"m.a": 1}, "u": {"$set": {"m.b": 1}}}`, nonMulti},
		{"w", `{"q": {"m.a": 1}, "u": {"$set": {"m.b": 1}}, "multi": true, "upsert": true}`, upsert},
		{"nometa", `{"q": {}, "u": {"$set": {"x": 1}}, "multi": true}`, noMeta},
		{"w", `{"q": {"v": 1}, "u": {"$set": {"m.b": 1}}, "multi": true}`, queryField},
		{"w", `{"q": {"_id": 1}, "u": {"$set": {"m.b": 1}}, "multi": true}`, queryField},
		{"w", `{"q": {"$and": [{"m.a": 1}, {"t": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}}]}, "u": {"$set": {"m.b": 1}}, "multi": true}`, queryField},
		{"w", `{"q": {"$expr": {"$eq": ["$m.a", 1]}}, "u": {"$set": {"m.b": 1}}, "multi": true}`, "Cannot use $expr when performing an update or delete on a time-series collection"},
		{"w", `{"q": {"$jsonSchema": {"required": ["m", "t"]}}, "u": {"$set": {"m.b": 1}}, "multi": true}`, queryField},
		{"w", `{"q": {"$jsonSchema": {"required": ["m"], "properties": {"v": {}}}}, "u": {"$set": {"m.b": 1}}, "multi": true}`, queryField},
		{"w", `{"q": {"m.a": 1}, "u": {"$set": {"v": 5}}, "multi": true}`, updateField},
		{"w", `{"q": {"m.a": 1}, "u": {"$rename": {"m.a": "x"}}, "multi": true}`, updateField},
		{"w", `{"q": {"m.a": 1}, "u": [{"$set": {"m.b": 1}}], "multi": true}`, "Cannot perform an update on a time-series collection using a pipeline update"},
	}
	for _, c := range cases {
		r := mustRun(t, db, "test", `{"update": "`+c.coll+`", "updates": [`+c.stmt+`]}`)
		if field(r, "writeErrors.0.code") != int32(72) || field(r, "writeErrors.0.errmsg") != c.msg {
			t.Errorf("%s on %s: %v, want 72 %q", c.stmt, c.coll, r, c.msg)
		}
	}
	_, err := run(t, db, "test", `{"findAndModify": "w", "query": {"m.a": 1}, "update": {"$set": {"m.b": 1}}}`)
	checkCode(t, "findAndModify update", err, document.CodeInvalidOptions, nonMulti)

	// What 7.0 runs: a multi update on the metaField, and any delete.
	r := mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {"$jsonSchema": {"required": ["m"], "properties": {"m": {"required": ["a"]}}}}, "u": {"$set": {"m.j": 1}}, "multi": true}]}`)
	if field(r, "n") != int32(2) {
		t.Errorf("update with a $jsonSchema on the metaField: %v, want n 2", r)
	}
	r = mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {"$or": [{"m.a": 1}, {"m": {"a": 2, "j": 1}}]}, "u": {"$set": {"m.b": 1}, "$rename": {"m.a": "m.c"}}, "multi": true}]}`)
	if field(r, "n") != int32(2) || field(r, "nModified") != int32(2) {
		t.Errorf("metaField update: %v, want n 2 nModified 2", r)
	}
	if got := findAll(t, db, "test", "w", bson.D{{Key: "m.b", Value: int32(1)}, {Key: "m.c", Value: int32(2)}}); len(got) != 1 || field(got[0], "v") != int32(2) {
		t.Errorf("after the metaField update: %v", got)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "w", "query": {"v": 1}, "remove": true}`)
	if field(r, "value.v") != int32(1) {
		t.Errorf("findAndModify remove: %v", r)
	}
}

// An updater given TimeseriesArbitraryUpdates (mongod's
// featureFlagTimeseriesUpdatesSupport) runs what 7.0 refuses.
func TestReviewTS29ArbitraryUpdatesOption(t *testing.T) {
	t.Parallel()
	db, _ := openMemTSUpdates(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	mustInsertTS(t, db, "w", `{"_id": 1, "t": {"$date": "2026-11-22T10:00:00Z"}, "m": 1, "v": 1}`)
	r := mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {"v": 1}, "u": {"$set": {"v": 2}}}]}`)
	if field(r, "nModified") != int32(1) {
		t.Errorf("updateOne on a measurement field with the option: %v", r)
	}
}

// A metaField update counts measurements, not buckets: n the
// measurements matched, nModified those changed (a no-op on one meta
// group counts in n only). Read:
// jstests/core/timeseries/write/timeseries_update_arbitrary_updates_not_enabled.js
// ("Update where one of the matching documents is a no-op update":
// n 3, nModified 2, two of them in one bucket). ttlkv already answered
// so; the test guards the path 7.0 keeps open.
func TestReviewTS29MetaUpdateCounts(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t,
		`{"_id": 1, "t": {"$date": "2021-07-12T16:00:00Z"}, "m": {"a": "A", "b": "B"}}`,
		`{"_id": 4, "t": {"$date": "2021-07-12T16:00:00Z"}, "m": {"a": "A", "b": "B"}, "f": "F"}`,
		`{"_id": 5, "t": {"$date": "2021-07-12T16:00:00Z"}, "m": {"a": "A", "b": "B", "c": "C"}}`)
	r := mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {"m.a": "A"}, "u": {"$set": {"m.c": "C"}}, "multi": true}]}`)
	if field(r, "n") != int32(3) || field(r, "nModified") != int32(2) {
		t.Errorf("update: %v, want n 3 nModified 2", r)
	}
	for _, d := range findAll(t, db, "test", "w", bson.D{}) {
		if fmt.Sprint(ts26Keys(field(d, "m"))) != "[a b c]" {
			t.Errorf("after the update: %v, want m {a, b, c}", d)
		}
	}
}

// explain of an update or a findAndModify update on a time-series
// collection runs the same checks as the write: 72 for what 7.0 refuses.
// Read: src/mongo/db/commands/find_and_modify.cpp (explain calls
// updateRequestCheckFunction); inferred, not read, for the update
// command's explain. ttlkv explained them.
func TestReviewTS29ExplainUpdateChecked(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t, `{"t": {"$date": "2026-11-22T10:00:00Z"}, "m": "a", "v": 1}`)
	ts26Code(t, db, "test", `{"explain": {"update": "w", "updates": [{"q": {"v": 1}, "u": {"$set": {"v": 2}}, "multi": true}]}}`, document.CodeInvalidOptions)
	ts26Code(t, db, "test", `{"explain": {"findAndModify": "w", "query": {"m": "a"}, "update": {"$set": {"m": "b"}}}}`, document.CodeInvalidOptions)
	mustRun(t, db, "test", `{"explain": {"update": "w", "updates": [{"q": {"m": "a"}, "u": {"$set": {"m": "b"}}, "multi": true}]}}`)
	mustRun(t, db, "test", `{"explain": {"findAndModify": "w", "query": {"v": 1}, "remove": true}}`)
}

// Measurements share a bucket only when their metas are the same BSON
// value (after field order is normalized): 1, 1.0 and a long 1 are three
// buckets, and each measurement reads back with the meta it was inserted
// with, type included. Read: src/mongo/db/timeseries/bucket_catalog/bucket_metadata.cpp
// (equality by binaryEqualValues), jstests/core/timeseries/write/timeseries_metadata.js
// ("only measurements with a binary identical meta field are included in
// the same bucket"). ttlkv bucketed by value, so m 1.0 read back as the
// int 1 of the bucket it joined, {x: 1} as {x: 1.0}, a symbol as a
// string.
func TestReviewTS29MetaTypesKept(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t,
		`{"_id": 1, "t": {"$date": "2025-01-01T00:00:00Z"}, "m": {"$numberInt": "1"}}`,
		`{"_id": 2, "t": {"$date": "2025-01-01T00:00:01Z"}, "m": {"$numberDouble": "1.0"}}`,
		`{"_id": 3, "t": {"$date": "2025-01-01T00:00:02Z"}, "m": {"$numberLong": "1"}}`,
		`{"_id": 4, "t": {"$date": "2025-01-01T00:00:03Z"}, "m": {"x": {"$numberDouble": "1.0"}}}`,
		`{"_id": 5, "t": {"$date": "2025-01-01T00:00:04Z"}, "m": {"x": {"$numberInt": "1"}}}`,
		`{"_id": 6, "t": {"$date": "2025-01-01T00:00:05Z"}, "m": "a"}`,
		`{"_id": 7, "t": {"$date": "2025-01-01T00:00:06Z"}, "m": {"$symbol": "a"}}`)
	want := map[int32]any{1: int32(1), 2: 1.0, 3: int64(1), 4: 1.0, 5: int32(1), 6: "a", 7: bson.Symbol("a")}
	for _, d := range findAll(t, db, "test", "w", bson.D{}) {
		id, _ := field(d, "_id").(int32)
		got := field(d, "m")
		if id == 4 || id == 5 {
			got = field(d, "m.x")
		}
		if fmt.Sprintf("%T %v", got, got) != fmt.Sprintf("%T %v", want[id], want[id]) {
			t.Errorf("_id %d reads back m %T %v, want %T %v", id, got, got, want[id], want[id])
		}
	}
	if n := len(findAll(t, db, "test", "system.buckets.w", bson.D{})); n != 7 {
		t.Errorf("%d buckets, want 7 (one per distinct BSON meta)", n)
	}
	// A filter still matches by value across types.
	if n := len(findAll(t, db, "test", "w", bson.D{{Key: "m", Value: int32(1)}})); n != 3 {
		t.Errorf("find {m: 1} matched %d, want 3", n)
	}
}

// A metaField update changes the meta of the buckets in place: each
// keeps its _id and control.min time (so its expiry instant), as mongod
// 7.0 runs it, an update of the buckets' meta. Read:
// src/mongo/db/timeseries/timeseries_update_delete_util.cpp (translateUpdate:
// the update renamed onto "meta", run on the buckets collection). ttlkv
// moved the measurements to new buckets whose min was rounded from their
// first time.
func TestReviewTS29MetaUpdateKeepsBuckets(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t,
		`{"_id": 1, "t": {"$date": "2026-11-22T10:00:30Z"}, "m": {"a": 1}, "v": 1}`,
		`{"_id": 2, "t": {"$date": "2026-11-22T10:20:00Z"}, "m": {"a": 1}, "v": 2}`,
		`{"_id": 3, "t": {"$date": "2026-11-22T10:05:00Z"}, "m": {"a": 2}, "v": 3}`)
	before := findAll(t, db, "test", "system.buckets.w", bson.D{{Key: "meta.a", Value: int32(1)}})
	mustRun(t, db, "test", `{"delete": "w", "deletes": [{"q": {"_id": 1}, "limit": 0}]}`)
	mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {"m.a": 1}, "u": {"$set": {"m.b": "x"}}, "multi": true}]}`)
	after := findAll(t, db, "test", "system.buckets.w", bson.D{{Key: "meta.b", Value: "x"}})
	if len(before) != 1 || len(after) != 1 {
		t.Fatalf("buckets before %v, after %v", before, after)
	}
	if !document.Equal(field(after[0], "_id"), field(before[0], "_id")) || !document.Equal(field(after[0], "control.min.t"), field(before[0], "control.min.t")) {
		t.Errorf("bucket after the meta update %v, want _id and control.min.t of %v", after[0], before[0])
	}
	if n := len(findAll(t, db, "test", "system.buckets.w", bson.D{})); n != 2 {
		t.Errorf("%d buckets, want 2", n)
	}
	mustValidate(t, db, "test", "w")
	if got := findAll(t, db, "test", "w", bson.D{{Key: "m.b", Value: "x"}}); len(got) != 1 || field(got[0], "v") != int32(2) {
		t.Errorf("find {m.b: x} = %v", got)
	}
}

// A refused statement is a write error of its own: an ordered update
// stops there, an unordered one runs the statements after it. Read:
// jstests/core/timeseries/write/timeseries_update_arbitrary_updates_not_enabled.js
// ("Multiple updates, ordered/unordered: Modify the metaField, a field
// that is not the metaField, and the metaField": n 1, d 8 ordered; n 2,
// d 15 unordered). Held with the 7.0 rules as added; kept as their
// guard.
func TestReviewTS29RefusedStatementOrdering(t *testing.T) {
	t.Parallel()
	for _, ordered := range []bool{true, false} {
		db := ts26Setup(t, `{"_id": 2, "t": {"$date": "2021-07-12T16:00:00Z"}, "m": {"c": "C", "d": 2}, "f": [{"k": "K", "v": "V"}]}`)
		r := mustRun(t, db, "test", fmt.Sprintf(`{"update": "w", "ordered": %v, "updates": [
			{"q": {"m": {"c": "C", "d": 2}}, "u": {"$inc": {"m.d": 6}}, "multi": true},
			{"q": {"m": {"c": "C", "d": 8}}, "u": {"$set": {"f1.0": "f2"}}, "multi": true},
			{"q": {"m": {"c": "C", "d": 8}}, "u": {"$inc": {"m.d": 7}}, "multi": true}]}`, ordered))
		wantN, wantD := int32(2), int32(15)
		if ordered {
			wantN, wantD = 1, 8
		}
		if field(r, "n") != wantN || field(r, "writeErrors.0.index") != int32(1) || field(r, "writeErrors.0.code") != int32(72) {
			t.Errorf("ordered %v: %v, want n %d and a 72 at index 1", ordered, r, wantN)
		}
		if got := findAll(t, db, "test", "w", bson.D{}); len(got) != 1 || field(got[0], "m.d") != wantD {
			t.Errorf("ordered %v: %v, want m.d %d", ordered, got, wantD)
		}
	}
}

// dbStats counts a time-series collection as mongod does, as a view
// (mongod keeps it in system.views) whose data is its buckets
// collection's, counted once: objects are buckets. Read:
// src/mongo/db/commands/dbcommands_d.cpp (dbStats: views from the view
// catalog, sizes from the collections). ttlkv counted it as a collection
// too, adding the buckets' size twice.
func TestReviewTS29DBStatsCountsViewOnce(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t,
		`{"t": {"$date": "2025-01-01T00:00:00Z"}, "m": "a", "v": 1}`,
		`{"t": {"$date": "2025-01-01T00:00:01Z"}, "m": "a", "v": 2}`)
	st := mustRun(t, db, "test", `{"collStats": "system.buckets.w"}`)
	vst := mustRun(t, db, "test", `{"collStats": "system.views"}`)
	r := mustRun(t, db, "test", `{"dbStats": 1}`)
	// The buckets and system.views (w's definition) are the collections.
	if field(r, "collections") != int64(2) || field(r, "views") != int64(1) || field(r, "objects") != int64(2) {
		t.Errorf("dbStats = %v, want collections 2 (the buckets, system.views), views 1, objects 2", r)
	}
	if want := float64(field(st, "size").(int32) + field(vst, "size").(int32)); field(r, "dataSize") != want {
		t.Errorf("dbStats dataSize %v, want the buckets' and system.views' sizes %v", field(r, "dataSize"), want)
	}
}
