package engine

// Review 29: time-series collections against mongod 7.0. Each test
// asserts what mongod answers and names where that was read (a jstest or
// a source file of mongodb/mongo); each failed on ttlkv before its fix.

import (
	"fmt"
	"testing"

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
	if got := fmt.Sprint(ts26Keys(field(r, "timeseries"))); got != "[bucketsNs bucketCount]" {
		t.Errorf("empty collection: timeseries section has %s, want [bucketsNs bucketCount]", got)
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
		if got := fmt.Sprint(ts26Keys(field(d, "timeseries"))); got != "[bucketsNs bucketCount avgBucketSize]" {
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
