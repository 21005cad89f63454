package engine

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// explain of a delete on a time-series collection whose filter is not
// only on the metaField shows a TS_MODIFY stage (opType "deleteMany",
// bucketFilter, residualFilter: the filter without its metaField part)
// and, with executionStats, its nMeasurementsDeleted and
// nBucketsUnpacked. Read: jstests/core/timeseries/
// timeseries_explain_delete.js (testDeleteManyWithBucketFilter,
// testDeleteOneWithBucketFilter). ttlkv's bucketFilter is its own
// translation (no control.closed, no control.min/max of data fields).
// ttlkv showed BATCHED_DELETE over UNPACK_TS_BUCKET with nWouldDelete.
func TestReviewTS26ExplainDeleteTSModify(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "time", "metaField": "tag"}}`)
	mustInsertTS(t, db, "w",
		`{"_id": 1, "time": {"$date": "2021-07-12T16:00:00Z"}, "tag": 1}`,
		`{"_id": 2, "time": {"$date": "2021-07-12T16:00:00Z"}, "tag": 1}`,
		`{"_id": 3, "time": {"$date": "2021-07-12T16:00:00Z"}, "tag": 2}`,
		`{"_id": 4, "time": {"$date": "2021-07-12T16:00:00Z"}, "tag": 2}`)
	r := mustRun(t, db, "test", `{"explain": {"delete": "w", "deletes": [{"q": {"tag": 2, "_id": {"$gte": 3}}, "limit": 0}]}, "verbosity": "executionStats"}`)
	var find func(st bson.D) bson.D
	find = func(st bson.D) bson.D {
		for st != nil {
			if s, _ := get(st, "stage"); s == "TS_MODIFY" {
				return st
			}
			st, _ = field(st, "inputStage").(bson.D)
		}
		return nil
	}
	plan, _ := field(r, "queryPlanner.winningPlan").(bson.D)
	if st := find(plan); st == nil || field(st, "opType") != "deleteMany" {
		t.Errorf("winning plan %v, want a TS_MODIFY stage with opType deleteMany", plan)
	} else {
		sameValue(t, "residualFilter", field(st, "residualFilter"), `{"_id": {"$gte": 3}}`)
		if _, ok := get(st, "nMeasurementsDeleted"); ok {
			t.Errorf("winning plan %v holds an execution figure", st)
		}
	}
	exec, _ := field(r, "executionStats.executionStages").(bson.D)
	if st := find(exec); st == nil || fmt.Sprint(field(st, "nMeasurementsDeleted")) != "2" || fmt.Sprint(field(st, "nBucketsUnpacked")) != "1" {
		t.Errorf("execution stages %v, want TS_MODIFY with nMeasurementsDeleted 2, nBucketsUnpacked 1", exec)
	}
	// limit 1: deleteOne, one measurement (testDeleteOneWithBucketFilter),
	// and a plain value's residual is written {$eq: value}.
	r = mustRun(t, db, "test", `{"explain": {"delete": "w", "deletes": [{"q": {"tag": 2, "_id": 3}, "limit": 1}]}, "verbosity": "executionStats"}`)
	exec, _ = field(r, "executionStats.executionStages").(bson.D)
	if st := find(exec); st == nil || field(st, "opType") != "deleteOne" || fmt.Sprint(field(st, "nMeasurementsDeleted")) != "1" {
		t.Errorf("deleteOne execution stages %v, want TS_MODIFY deleteOne with nMeasurementsDeleted 1", exec)
	} else {
		sameValue(t, "residualFilter", field(st, "residualFilter"), `{"_id": {"$eq": 3}}`)
	}
	if n := count(t, db, "test", "w"); n != 4 {
		t.Errorf("explain deleted measurements: %d left", n)
	}
}
