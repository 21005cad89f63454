package engine

// Review 30: time-series collections and index definitions against
// mongod 7.0. Each test asserts what mongod answers and names where that
// was read (a jstest or a source file of mongodb/mongo); each failed on
// ttlkv before its fix.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// ts30Many is n measurements of meta m at time at, as mustInsertTS takes
// them.
func ts30Many(n int, at, m string) []string {
	d := fmt.Sprintf(`{"t": {"$date": %q}, "m": %s}`, at, m)
	out := make([]string, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// collStats' timeseries section lists, after bucketsNs, bucketCount and
// avgBucketSize, the bucket catalog counters ttlkv's bucketer has events
// for, as ints (appendNumber), in mongod's order; avgNumMeasurementsPerCommit
// only once something committed. The sequence is
// jstests/noPassthrough/timeseries_collStats.js's (without its
// time-backward and memory steps, whose counters ttlkv does not list).
// Read: src/mongo/db/timeseries/bucket_catalog/execution_stats.cpp
// (appendExecutionStatsToBuilder), src/mongo/db/stats/storage_stats.cpp.
func TestReviewTS30CatalogCounters(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t)
	const now = "2026-11-22T10:00:00Z"
	keys := []string{"bucketsNs", "bucketCount", "numBucketInserts", "numBucketUpdates", "numBucketsOpenedDueToMetadata",
		"numBucketsClosedDueToCount", "numBucketsClosedDueToSize", "numBucketsClosedDueToTimeForward",
		"numCommits", "numMeasurementsCommitted"}
	r := mustRun(t, db, "test", `{"collStats": "w"}`)
	if got := fmt.Sprint(ts26Keys(field(r, "timeseries"))); got != fmt.Sprint(keys) {
		t.Fatalf("empty: timeseries section %s, want %v", got, keys)
	}
	// want: inserts, updates, forMeta, count, size, time, commits, measurements, avg.
	check := func(step string, want ...int32) {
		t.Helper()
		names := []string{"numBucketInserts", "numBucketUpdates", "numBucketsOpenedDueToMetadata",
			"numBucketsClosedDueToCount", "numBucketsClosedDueToSize", "numBucketsClosedDueToTimeForward",
			"numCommits", "numMeasurementsCommitted", "avgNumMeasurementsPerCommit"}
		for _, d := range []bson.D{
			mustRun(t, db, "test", `{"collStats": "w"}`),
			firstBatch(t, mustRun(t, db, "test", `{"aggregate": "w", "pipeline": [{"$collStats": {"storageStats": {}}}], "cursor": {}}`))[0],
		} {
			sec, _ := field(d, "timeseries").(bson.D)
			if sec == nil {
				sec, _ = field(d, "storageStats.timeseries").(bson.D)
			}
			if got := fmt.Sprint(ts26Keys(sec)); got != fmt.Sprint(append(append(keys[:2:2], "avgBucketSize"), append(keys[2:], "avgNumMeasurementsPerCommit")...)) {
				t.Errorf("%s: timeseries section %s", step, got)
			}
			for i, n := range names {
				if v, _ := get(sec, n); v != want[i] {
					t.Errorf("%s: %s = %v (%T), want %d", step, n, v, v, want[i])
				}
			}
		}
	}
	mustInsertTS(t, db, "w", ts30Many(3, now, `{"a": 1}`)...)
	check("3 of {a: 1}", 1, 0, 1, 0, 0, 0, 1, 3, 3)
	mustInsertTS(t, db, "w", ts30Many(1, now, `{"a": 2}`)...)
	check("1 of {a: 2}", 2, 0, 2, 0, 0, 0, 2, 4, 2)
	mustInsertTS(t, db, "w", ts30Many(1, now, `{"a": 2}`)...)
	check("1 more of {a: 2}", 2, 1, 2, 0, 0, 0, 3, 5, 1)
	mustInsertTS(t, db, "w", ts30Many(5, now, `{"a": 2}`)...)
	check("5 more of {a: 2}", 2, 2, 2, 0, 0, 0, 4, 10, 2)
	mustInsertTS(t, db, "w", ts30Many(1100, now, `{"a": "limit_count"}`)...)
	check("1100 of one meta", 4, 2, 3, 1, 0, 0, 6, 1110, 185)
	big := strings.Repeat("x", 124*1024)
	mustInsertTS(t, db, "w",
		fmt.Sprintf(`{"t": {"$date": %q}, "x": %q, "m": {"a": "limit_size"}}`, now, big),
		fmt.Sprintf(`{"t": {"$date": %q}, "x": %q, "m": {"a": "limit_size"}}`, now, big))
	check("2 of 124 KiB", 6, 2, 4, 1, 1, 0, 8, 1112, 139)
	mustInsertTS(t, db, "w",
		`{"t": {"$date": "2020-11-13T01:00:00Z"}, "m": {"a": "limit_time_range"}}`,
		`{"t": {"$date": "2020-11-13T03:00:00Z"}, "m": {"a": "limit_time_range"}}`)
	check("2 hours apart", 8, 2, 5, 1, 1, 1, 10, 1114, 111)
	// A new collection of the name starts from zero.
	mustRun(t, db, "test", `{"drop": "w"}`)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	mustInsertTS(t, db, "w", ts30Many(2, now, `1`)...)
	check("recreated", 1, 0, 1, 0, 0, 0, 1, 2, 2)
}

// $merge into a time-series collection: mongod 7.0's $merge writes
// through its process interface's inserts and updates on the target
// namespace, which for a time-series collection is its view, so it is
// refused as any view: 166 "Namespace <ns> is a view, not a collection".
// Nothing is written. Read: src/mongo/db/pipeline/process_interface/
// non_shardsvr_process_interface.cpp (insert, update),
// src/mongo/db/catalog_raii.cpp (the view refusal). ttlkv answered 166
// with a wording of its own.
func TestReviewTS30MergeIntoTimeseries(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t, `{"t": {"$date": "2026-11-22T10:00:00Z"}, "m": 1}`)
	mustRun(t, db, "test", `{"insert": "src", "documents": [{"_id": 1, "t": {"$date": "2026-11-22T10:00:00Z"}}]}`)
	for _, stage := range []string{`"w"`, `{"into": "w", "whenMatched": "replace"}`, `{"into": {"db": "test", "coll": "w"}, "whenNotMatched": "insert"}`} {
		wantCode(t, db, "test", `{"aggregate": "src", "pipeline": [{"$merge": `+stage+`}], "cursor": {}}`,
			document.CodeCommandNotSupportedOnView, "Namespace test.w is a view, not a collection")
	}
	if n := count(t, db, "test", "w"); n != 1 {
		t.Errorf("w has %d measurements after the refused $merge, want 1", n)
	}
}

// A measurement whose meta is BSON undefined is taken: mongod 7.0's
// bucket catalog reads the meta element as it is (extractTimeAndMeta)
// and keys buckets on its bytes, so undefined metas share a bucket of
// their own, apart from null and missing ones, stored with meta:
// undefined. Reading it back fails: the bucket unpacker refuses an
// undefined meta, 5369600. A read whose meta filter passes over that
// bucket never unpacks it. Read:
// src/mongo/db/timeseries/bucket_catalog/bucket_catalog_helpers.cpp
// (extractTimeAndMeta), src/mongo/db/exec/timeseries/bucket_unpacker.cpp
// (reset: uassert 5369600). ttlkv gave the measurements back with m:
// undefined.
func TestReviewTS30UndefinedMeta(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t)
	r := mustRun(t, db, "test", `{"insert": "w", "documents": [
		{"t": {"$date": "2026-11-22T10:00:00Z"}, "m": {"$undefined": true}, "v": 1},
		{"t": {"$date": "2026-11-22T10:00:01Z"}, "m": {"$undefined": true}, "v": 2},
		{"t": {"$date": "2026-11-22T10:00:02Z"}, "m": null, "v": 3},
		{"t": {"$date": "2026-11-22T10:00:03Z"}, "v": 4},
		{"t": {"$date": "2026-11-22T10:00:04Z"}, "m": 1, "v": 5}]}`)
	if field(r, "n") != int32(5) {
		t.Fatalf("insert: %v", r)
	}
	buckets := firstBatch(t, mustRun(t, db, "test", `{"find": "system.buckets.w", "projection": {"meta": 1, "_id": 0}}`))
	if got := fmt.Sprint(buckets); got != `[{"meta":{"$undefined":true}} {"meta":null} {} {"meta":{"$numberInt":"1"}}]` {
		t.Errorf("buckets' metas %s", got)
	}
	const msg = "The $_internalUnpackBucket stage allows metadata to be absent or otherwise, it must not be the deprecated undefined bson type"
	for _, cmd := range []string{
		`{"find": "w"}`,
		`{"find": "w", "filter": {"v": 1}}`,
		`{"aggregate": "w", "pipeline": [{"$match": {"v": {"$gte": 1}}}], "cursor": {}}`,
	} {
		wantCode(t, db, "test", cmd, 5369600, msg)
	}
	got := firstBatch(t, mustRun(t, db, "test", `{"find": "w", "filter": {"m": 1}, "projection": {"_id": 0, "v": 1}}`))
	if fmt.Sprint(got) != `[{"v":{"$numberInt":"5"}}]` {
		t.Errorf("find {m: 1}: %v", got)
	}
}

// dbStats counts a time-series collection among views and its buckets
// collection among collections, with that collection's indexes: mongod
// 7.0's buckets collection is clustered (no _id index) and holds just the
// indexes listed on the time-series collection (the default meta-time
// one when there is a metaField, and the user's), so those are what
// indexes and indexSize count, as collStats on the time-series
// collection gives their sizes. ttlkv counted its own bucket-finding
// indexes too (_id, control.min time, meta): 7 for the 2 below, and
// collStats gave each listed index size 0. Read:
// src/mongo/db/commands/dbcommands_d.cpp (CmdDbStats: every collection's
// numIndexes and index size), src/mongo/db/catalog/create_collection.cpp
// (clustered buckets, the default index).
func TestReviewTS30DBStatsIndexes(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t, `{"t": {"$date": "2026-11-22T10:00:00Z"}, "m": 1, "v": 1}`, `{"t": {"$date": "2026-11-22T10:00:00Z"}, "m": 2, "v": 2}`)
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"v": 1}, "name": "v_1"}]}`)
	mustRun(t, db, "test", `{"create": "nometa", "timeseries": {"timeField": "t"}}`)
	mustInsertTS(t, db, "nometa", `{"t": {"$date": "2026-11-22T10:00:00Z"}}`)
	mustRun(t, db, "test", `{"insert": "o", "documents": [{"_id": 1, "a": 1}]}`)
	mustRun(t, db, "test", `{"createIndexes": "o", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	w := mustRun(t, db, "test", `{"collStats": "w"}`)
	o := mustRun(t, db, "test", `{"collStats": "o"}`)
	for _, name := range []string{"m_1_t_1", "v_1"} {
		if n, _ := field(w, "indexSizes."+name).(int32); n <= 0 {
			t.Errorf("collStats w: indexSizes.%s = %v, want the buckets index's size", name, field(w, "indexSizes."+name))
		}
	}
	wTotal, _ := field(w, "totalIndexSize").(int32)
	oTotal, _ := field(o, "totalIndexSize").(int32)
	if wTotal != field(w, "indexSizes.m_1_t_1").(int32)+field(w, "indexSizes.v_1").(int32) {
		t.Errorf("collStats w: totalIndexSize %d, indexSizes %v", wTotal, field(w, "indexSizes"))
	}
	r := mustRun(t, db, "test", `{"dbStats": 1}`)
	// system.views (the two definitions) counts as a collection with
	// its _id index.
	vst := mustRun(t, db, "test", `{"collStats": "system.views"}`)
	vTotal, _ := field(vst, "totalIndexSize").(int32)
	want := bson.D{{Key: "collections", Value: int64(4)}, {Key: "views", Value: int64(2)}, {Key: "indexes", Value: int64(5)},
		{Key: "indexSize", Value: float64(wTotal + oTotal + vTotal)}}
	for _, e := range want {
		if got := field(r, e.Key); got != e.Value {
			t.Errorf("dbStats %s = %v (%T), want %v", e.Key, got, got, e.Value)
		}
	}
}

// createIndexes refuses a bad expireAfterSeconds with 67 and mongod
// 7.0's words: its TTL check wraps the value's reason as
// ". Index spec: <spec as given> :: caused by :: <reason>" (withContext),
// the reasons worded as validateExpireAfterSeconds words them (the type
// name without its closing quote; "must be within the range of a 32-bit
// integer" without "option"); a compound TTL key is "TTL indexes are
// single-field indexes, compound indexes do not support TTL. Index
// spec: <spec>"; the value is checked once the rest of the spec passed,
// so a spec error elsewhere in the spec is reported first. Read:
// src/mongo/db/catalog/index_key_validate.cpp (validateExpireAfterSeconds,
// validateIndexSpecTTL), src/mongo/db/commands/create_indexes_cmd.cpp
// (TTL options checked after parseAndValidateIndexSpecs). ttlkv gave the
// bare reason, with ", found <value>" of its own.
func TestReviewTS30TTLSpecMessages(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, c := range []struct{ spec, msg string }{
		{`{"key": {"w": 1}, "expireAfterSeconds": "x", "name": "w_1"}`,
			`. Index spec: { key: { w: 1 }, expireAfterSeconds: "x", name: "w_1" } :: caused by :: TTL index 'expireAfterSeconds' option must be numeric, but received a type of 'string`},
		{`{"key": {"w": 1}, "expireAfterSeconds": -1, "name": "w_1"}`,
			`. Index spec: { key: { w: 1 }, expireAfterSeconds: -1, name: "w_1" } :: caused by :: TTL index 'expireAfterSeconds' option cannot be less than 0`},
		{`{"key": {"w": 1}, "name": "w_1", "expireAfterSeconds": {"$numberDouble": "NaN"}}`,
			`. Index spec: { key: { w: 1 }, name: "w_1", expireAfterSeconds: nan } :: caused by :: TTL index 'expireAfterSeconds' option must not be NaN`},
		{`{"key": {"w": 1}, "name": "w_1", "expireAfterSeconds": {"$numberLong": "2147483648"}}`,
			`. Index spec: { key: { w: 1 }, name: "w_1", expireAfterSeconds: 2147483648 } :: caused by :: TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer`},
		{`{"key": {"w": 1}, "name": "w_1", "expireAfterSeconds": -1e10}`,
			`. Index spec: { key: { w: 1 }, name: "w_1", expireAfterSeconds: -10000000000.0 } :: caused by :: TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer`},
		{`{"key": {"w": 1, "a": 1}, "expireAfterSeconds": 10, "name": "w_1_a_1"}`,
			`TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: { key: { w: 1, a: 1 }, expireAfterSeconds: 10, name: "w_1_a_1" }`},
		// The value after the rest of the spec: a bad partial filter first.
		{`{"key": {"w": 1}, "expireAfterSeconds": -1, "name": "w_1", "partialFilterExpression": 5}`,
			`Error in specification { key: { w: 1 }, expireAfterSeconds: -1, name: "w_1", partialFilterExpression: 5 } :: caused by :: The field 'partialFilterExpression' must be an object, but got int`},
	} {
		_, err := run(t, db, "test", `{"createIndexes": "c", "indexes": [`+c.spec+`]}`)
		var e *document.Error
		if !errors.As(err, &e) || e.Message != c.msg {
			t.Errorf("%s:\n got %v\nwant %q", c.spec, err, c.msg)
		}
	}
	// -0.5 is cut to 0, a valid expiry.
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"w": 1}, "name": "w_1", "expireAfterSeconds": -0.5}]}`)
}

// ts30GeoIDs runs a find of coll with filter (and hint when not "") and
// returns the _ids in order, and the index the winning plan reads ("" for
// a collection scan).
func ts30GeoIDs(t *testing.T, db *DB, coll, filter, hint string) (ids []int32, index string) {
	t.Helper()
	cmd := `{"find": "` + coll + `", "filter": ` + filter
	if hint != "" {
		cmd += `, "hint": ` + hint
	}
	for _, d := range firstBatch(t, mustRun(t, db, "test", cmd+`}`)) {
		ids = append(ids, field(d, "_id").(int32))
	}
	ex := mustRun(t, db, "test", `{"explain": `+cmd+`}, "verbosity": "queryPlanner"}`)
	st, _ := field(ex, "queryPlanner.winningPlan").(bson.D)
	for st != nil {
		if n, ok := get(st, "indexName"); ok {
			index, _ = n.(string)
			break
		}
		st, _ = field(st, "inputStage").(bson.D)
	}
	return ids, index
}

// Geo reads use a partial 2dsphere or 2d index when the query implies
// its partialFilterExpression, as mongod's planner decides for any
// partial index (QueryPlannerIXSelect: a partial index is a candidate
// when the query's filter is a subset of its filter); one whose filter
// the query does not imply is passed over ($near then finds no index,
// 291). The documents are those a collection scan gives ($geoWithin,
// $geoIntersects) or a full geo index gives ($near, in order). Read:
// src/mongo/db/query/planner_ixselect.cpp
// (stripInvalidAssignmentsToPartialIndices: every index type alike).
// ttlkv never read a partial geo index.
func TestReviewTS30GeoPartialIndexes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 40; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "s": %q, "n": %d, "loc": {"type": "Point", "coordinates": [%v, %v]}, "p": [%v, %v]}`,
			i, []string{"a", "b"}[i%2], i, float64(i%7)-3, float64(i%5)-2, float64(i%7)-3, float64(i%5)-2))
	}
	loadCorpus(t, db, "test", "part", docs)
	loadCorpus(t, db, "test", "full", docs)
	mustRun(t, db, "test", `{"createIndexes": "part", "indexes": [
		{"key": {"loc": "2dsphere"}, "name": "loc_a", "partialFilterExpression": {"s": "a"}},
		{"key": {"p": "2d"}, "name": "p_big", "partialFilterExpression": {"n": {"$gte": 10}}}]}`)
	mustRun(t, db, "test", `{"createIndexes": "full", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}, {"key": {"p": "2d"}, "name": "p"}]}`)
	poly := `{"$geometry": {"type": "Polygon", "coordinates": [[[-2.5, -1.5], [2.5, -1.5], [2.5, 1.5], [-2.5, 1.5], [-2.5, -1.5]]]}}`
	for _, c := range []struct {
		filter, index string
	}{
		{`{"s": "a", "loc": {"$geoWithin": ` + poly + `}}`, "loc_a"},
		{`{"s": "a", "n": {"$lt": 30}, "loc": {"$geoIntersects": ` + poly + `}}`, "loc_a"},
		{`{"loc": {"$geoWithin": ` + poly + `}}`, ""},
		{`{"s": "b", "loc": {"$geoWithin": ` + poly + `}}`, ""},
		{`{"n": {"$gte": 20}, "p": {"$geoWithin": {"$box": [[-2, -1], [2, 1]]}}}`, "p_big"},
		{`{"n": {"$gte": 5}, "p": {"$geoWithin": {"$box": [[-2, -1], [2, 1]]}}}`, ""},
	} {
		got, ix := ts30GeoIDs(t, db, "part", c.filter, "")
		scan, _ := ts30GeoIDs(t, db, "part", c.filter, `{"$natural": 1}`)
		slices.Sort(got)
		slices.Sort(scan)
		if !slices.Equal(got, scan) || len(scan) == 0 {
			t.Errorf("%s: planned %v, collection scan %v", c.filter, got, scan)
		}
		if ix != c.index {
			t.Errorf("%s: read index %q, want %q", c.filter, ix, c.index)
		}
	}
	for _, c := range []struct {
		filter, index string
	}{
		{`{"s": "a", "loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0.2, 0.1]}}}}`, "loc_a"},
		{`{"s": "a", "n": {"$gt": 3}, "loc": {"$nearSphere": [0.2, 0.1]}}`, "loc_a"},
		{`{"n": {"$gte": 15}, "p": {"$near": [0.2, 0.1]}}`, "p_big"},
	} {
		got, ix := ts30GeoIDs(t, db, "part", c.filter, "")
		want, _ := ts30GeoIDs(t, db, "full", c.filter, "")
		if !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("%s: through the partial index %v, through a full one %v", c.filter, got, want)
		}
		if ix != c.index {
			t.Errorf("%s: read index %q, want %q", c.filter, ix, c.index)
		}
	}
	for _, f := range []string{
		`{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}}`,
		`{"s": "b", "loc": {"$nearSphere": [0, 0]}}`,
		`{"n": {"$gte": 5}, "p": {"$near": [0, 0]}}`,
	} {
		wantCode(t, db, "test", `{"find": "part", "filter": `+f+`}`, 291, "unable to find index for $geoNear query")
	}
}
