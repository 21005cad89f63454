package engine

import (
	"fmt"
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestInt32OrLongBoundaries pins the type MongoDB's
// BSONObjBuilder::appendNumber(long long) gives a count: int32 across
// the whole 32-bit range (2^30 included), int64 past it.
func TestInt32OrLongBoundaries(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int64
		want any
	}{
		{0, int32(0)},
		{1, int32(1)},
		{-1, int32(-1)},
		{1 << 30, int32(1 << 30)},
		{1<<30 + 1, int32(1<<30 + 1)},
		{math.MaxInt32, int32(math.MaxInt32)},
		{math.MinInt32, int32(math.MinInt32)},
		{math.MaxInt32 + 1, int64(math.MaxInt32 + 1)},
		{math.MinInt32 - 1, int64(math.MinInt32 - 1)},
		{1 << 40, int64(1 << 40)},
		{math.MaxInt64, int64(math.MaxInt64)},
	} {
		if got := int32OrLong(c.n); got != c.want {
			t.Errorf("int32OrLong(%d) = %T(%v), want %T(%v)", c.n, got, got, c.want, c.want)
		}
	}
}

// wantInt32 fails for each named field of d that is present and not an
// int32: the fields MongoDB builds with appendNumber or append(int),
// which mongosh prints as plain numbers, not Long('…').
func wantInt32(t *testing.T, what string, d bson.D, fields ...string) {
	t.Helper()
	for _, f := range fields {
		v := field(d, f)
		if v == nil {
			t.Errorf("%s: %s missing in %v", what, f, d)
			continue
		}
		if _, ok := v.(int32); !ok {
			t.Errorf("%s: %s = %T(%v), want int32", what, f, v, v)
		}
	}
}

// explainStageNumbers are the numeric stage fields ttlkv's explain
// shows; MongoDB appends all of them with appendNumber (statsToBSON in
// src/mongo/db/query/plan_explainer_impl.cpp).
var explainStageNumbers = []string{"nReturned", "isEOF", "docsExamined", "keysExamined",
	"nWouldDelete", "limitAmount", "skipAmount", "bucketsUnpacked", "measurementsExamined"}

// checkStageNumbers walks a stage tree and checks every numeric stage
// field it has is an int32, returning the stage names seen.
func checkStageNumbers(t *testing.T, what string, st bson.D) []string {
	t.Helper()
	var names []string
	for st != nil {
		names = append(names, fmt.Sprint(field(st, "stage")))
		for _, f := range explainStageNumbers {
			if v := field(st, f); v != nil {
				if _, ok := v.(int32); !ok {
					t.Errorf("%s: stage %v %s = %T(%v), want int32", what, field(st, "stage"), f, v, v)
				}
			}
		}
		st, _ = field(st, "inputStage").(bson.D)
	}
	return names
}

// Explain replies type their figures as MongoDB does (appendNumber:
// int32 for any count below 2^31), so the shell shows nReturned: 0,
// not Long('0'), as mongosh does.
func TestExplainNumberTypes(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1"}]}`)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	now := clk.Now()
	var docs []bson.D
	for i := 0; i < 20; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: dt(now.Add(time.Duration(i) * time.Minute))}, {Key: "x", Value: int32(i % 4)}})
	}
	insertDocs(t, db, "c", docs...)
	insertDocs(t, db, "w", bson.D{{Key: "t", Value: dt(now)}, {Key: "m", Value: "a"}})
	for _, c := range []struct {
		cmd  string
		want string // stages, outermost first
	}{
		{`{"find": "c", "filter": {"t": {"$gte": {"$date": "2026-11-22T12:05:00Z"}}}, "skip": 1, "limit": 3}`, "[LIMIT SKIP FETCH IXSCAN]"},
		{`{"find": "c", "filter": {"x": 1}, "sort": {"x": -1}}`, "[SORT COLLSCAN]"},
		{`{"find": "w", "filter": {"m": "a"}}`, "[FETCH IXSCAN]"}, // the $cursor's, over the buckets
		{`{"count": "c", "query": {"x": 2}}`, "[COUNT COLLSCAN]"},
		{`{"delete": "c", "deletes": [{"q": {"x": 3}, "limit": 0}]}`, "[BATCHED_DELETE COLLSCAN]"},
		{`{"delete": "c", "deletes": [{"q": {"t": {"$lte": {"$date": "2026-11-22T12:30:00Z"}}}, "limit": 1}]}`, "[DELETE FETCH IXSCAN]"},
	} {
		r := mustRun(t, db, "test", `{"explain": `+c.cmd+`, "verbosity": "executionStats"}`)
		if cur, ok := field(tsStage(r, 0), "$cursor").(bson.D); ok {
			r = cur // a time-series read: a pipeline, the $cursor first
		}
		ex, _ := field(r, "executionStats").(bson.D)
		wantInt32(t, c.cmd, ex, "nReturned", "executionTimeMillis", "totalKeysExamined", "totalDocsExamined")
		stages, _ := field(ex, "executionStages").(bson.D)
		if got := fmt.Sprint(checkStageNumbers(t, c.cmd, stages)); got != c.want {
			t.Errorf("%s: executionStages %s, want %s", c.cmd, got, c.want)
		}
		win, _ := field(r, "queryPlanner.winningPlan").(bson.D)
		checkStageNumbers(t, c.cmd+" (queryPlanner)", win)
	}
}

// collStats, validate, count, the write replies, createIndexes and
// listCollections type their numbers as MongoDB does (appendNumber or
// int: int32 here), so stats() prints count: 1, not Long('1'). dbStats
// is mongod 7.0's IDL reply DBStats: counts are longs, sizes doubles
// (TestReviewAdmin27DBStatsCountTypes).
func TestReplyNumberTypes(t *testing.T) {
	t.Parallel()
	db, clk, _ := openTest(t)
	now := clk.Now()
	r := mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`)
	wantInt32(t, "createIndexes", r, "numIndexesBefore", "numIndexesAfter")
	r = mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "t": {"$date": "2026-11-22T12:00:00Z"}}, {"_id": 2}, {"_id": 3}]}`)
	wantInt32(t, "insert", r, "n")
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": {"$gte": 2}}, "u": {"$set": {"a": 1}}, "multi": true}, {"q": {"_id": 9}, "u": {"$set": {"a": 1}}, "upsert": true}]}`)
	wantInt32(t, "update", r, "n", "nModified", "upserted.0.index")
	r = mustRun(t, db, "test", `{"count": "c", "query": {"a": 1}}`)
	wantInt32(t, "count", r, "n")
	r = mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": 9}, "limit": 0}]}`)
	wantInt32(t, "delete", r, "n")

	r = mustRun(t, db, "test", `{"collStats": "c"}`)
	wantInt32(t, "collStats", r, "count", "size", "avgObjSize", "storageSize", "nindexes", "totalIndexSize", "indexSizes._id_", "indexSizes.t_1")
	r = mustRun(t, db, "test", `{"validate": "c"}`)
	wantInt32(t, "validate", r, "nInvalidDocuments", "nrecords", "nIndexes", "keysPerIndex._id_", "keysPerIndex.t_1")
	r = mustRun(t, db, "test", `{"listIndexes": "c"}`)
	wantInt32(t, "listIndexes", r, "cursor.firstBatch.0.v", "cursor.firstBatch.1.v", "cursor.firstBatch.1.expireAfterSeconds")

	mustRun(t, db, "test", `{"create": "k", "capped": true, "size": 100000, "max": 50}`)
	insertDocs(t, db, "k", bson.D{{Key: "_id", Value: int32(1)}})
	r = mustRun(t, db, "test", `{"collStats": "k"}`)
	wantInt32(t, "collStats capped", r, "count", "maxSize", "max")
	r = mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "k"}}`)
	wantInt32(t, "listCollections capped", r, "cursor.firstBatch.0.options.size", "cursor.firstBatch.0.options.max")

	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	insertDocs(t, db, "w", bson.D{{Key: "t", Value: dt(now)}, {Key: "m", Value: "a"}})
	r = mustRun(t, db, "test", `{"collStats": "w"}`)
	wantInt32(t, "collStats time-series", r, "size", "timeseries.bucketCount", "timeseries.avgBucketSize")

	// serverStatus counters stay 64-bit, as MongoDB's Counter64
	// (docs/ttl-monitor.md §3.4): mongosh shows them as Long.
	r = mustRun(t, db, "admin", `{"serverStatus": 1}`)
	for _, f := range []string{"metrics.ttl.deletedDocuments", "metrics.ttl.passes", "metrics.ttl.subPasses", "batchedDeletes.batches", "batchedDeletes.docs"} {
		if v := field(r, f); fmt.Sprintf("%T", v) != "int64" {
			t.Errorf("serverStatus %s = %T(%v), want int64", f, v, v)
		}
	}
}
