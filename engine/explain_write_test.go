package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// explain of update, findAndModify and distinct: the plan under
// UPDATE, DELETE or PROJECTION_SIMPLE; executed, what the write would
// do, and nothing written.
func TestExplainUpdateFindAndModifyDistinct(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "e", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2}, {"_id": 3, "a": 2}]}`)
	mustRun(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	before := snapshotDocs(t, db, "test", "e")
	exec := func(inner string) bson.D {
		t.Helper()
		return mustRun(t, db, "test", `{"explain": `+inner+`, "verbosity": "executionStats"}`)
	}
	r := exec(`{"update": "e", "updates": [{"q": {"a": 2}, "u": {"$set": {"a": 2, "b": 1}}, "multi": true}]}`)
	if field(r, "queryPlanner.winningPlan.stage") != "UPDATE" || field(r, "queryPlanner.winningPlan.inputStage.stage") != "FETCH" ||
		field(r, "queryPlanner.winningPlan.inputStage.inputStage.indexName") != "a_1" {
		t.Errorf("update plan: %v", field(r, "queryPlanner.winningPlan"))
	}
	if field(r, "executionStats.executionStages.nMatched") != int32(2) || field(r, "executionStats.executionStages.nWouldModify") != int32(2) ||
		field(r, "executionStats.executionStages.nWouldUpsert") != int32(0) {
		t.Errorf("update stats: %v", field(r, "executionStats.executionStages"))
	}
	r = exec(`{"update": "e", "updates": [{"q": {"a": {"$gte": 1}}, "u": {"$set": {"a": 2}}}]}`)
	if field(r, "executionStats.executionStages.nMatched") != int32(1) {
		t.Errorf("multi false matches one: %v", field(r, "executionStats.executionStages"))
	}
	r = exec(`{"update": "e", "updates": [{"q": {"a": 2}, "u": {"$set": {"a": 2}}, "multi": true}]}`)
	if field(r, "executionStats.executionStages.nMatched") != int32(2) || field(r, "executionStats.executionStages.nWouldModify") != int32(0) {
		t.Errorf("a no-op update: %v", field(r, "executionStats.executionStages"))
	}
	r = exec(`{"update": "e", "updates": [{"q": {"a": 9}, "u": {"$set": {"b": 1}}, "upsert": true}]}`)
	if field(r, "executionStats.executionStages.nWouldUpsert") != int32(1) {
		t.Errorf("upsert: %v", field(r, "executionStats.executionStages"))
	}
	r = exec(`{"findAndModify": "e", "query": {}, "sort": {"_id": -1}, "remove": true}`)
	if field(r, "queryPlanner.winningPlan.stage") != "DELETE" || field(r, "executionStats.executionStages.nWouldDelete") != int32(1) {
		t.Errorf("findAndModify remove: %v", r)
	}
	r = exec(`{"findAndModify": "e", "query": {"b": {"$exists": false}}, "sort": {"b": 1}, "update": {"$inc": {"a": 1}}}`)
	sortStage, _ := field(r, "queryPlanner.winningPlan.inputStage").(bson.D)
	if field(r, "queryPlanner.winningPlan.stage") != "UPDATE" || field(sortStage, "stage") != "SORT" || field(sortStage, "limitAmount") != int32(1) ||
		field(r, "executionStats.executionStages.nWouldModify") != int32(1) {
		t.Errorf("findAndModify update: %v", r)
	}
	r = mustRun(t, db, "test", `{"explain": {"distinct": "e", "key": "b", "query": {"a": {"$gt": 0}}}, "verbosity": "queryPlanner"}`)
	if w, _ := field(r, "queryPlanner.winningPlan").(bson.D); field(w, "stage") != "PROJECTION_SIMPLE" ||
		!document.Equal(field(w, "transformBy"), bson.D{{Key: "b", Value: int32(1)}, {Key: "_id", Value: int32(0)}}) || field(w, "inputStage.stage") != "FETCH" {
		t.Errorf("distinct: %v", w)
	}
	wantCode(t, db, "test", `{"explain": {"update": "e", "updates": [{"q": {}, "u": {"$set": {"x": 1}}}, {"q": {}, "u": {"$set": {"x": 1}}}]}}`, document.CodeInvalidOptions, "explained write batches must be of size 1")
	wantCode(t, db, "test", `{"explain": {"findAndModify": "e", "query": {}}}`, document.CodeFailedToParse, "Either an update or remove=true must be specified")
	wantCode(t, db, "test", `{"explain": {"update": "e", "updates": [{"q": {}, "u": {"$bogus": {"x": 1}}}]}}`, document.CodeFailedToParse, "")
	intact(t, db, "test", "e", before, "explain")
}

// explain of a write on a view is 166, as the write is; explain of
// distinct on a view is the aggregate it runs; a write's counters are
// execution figures, not part of the plan.
func TestExplainWritesOnViews(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "s", "documents": [{"_id": 1, "a": 1}]}`)
	mustRun(t, db, "test", `{"create": "v", "viewOn": "s", "pipeline": []}`)
	wantCode(t, db, "test", `{"explain": {"update": "v", "updates": [{"q": {}, "u": {"$set": {"b": 1}}}]}}`, document.CodeCommandNotSupportedOnView, "")
	wantCode(t, db, "test", `{"explain": {"findAndModify": "v", "query": {}, "remove": true}}`, document.CodeCommandNotSupportedOnView, "")
	r := mustRun(t, db, "test", `{"explain": {"distinct": "v", "key": "a", "query": {"a": 1}}}`)
	if field(r, "ok") != 1.0 || field(r, "stages") == nil && field(r, "queryPlanner") == nil {
		t.Fatalf("distinct on a view: %v", r)
	}
	r = mustRun(t, db, "test", `{"explain": {"update": "s", "updates": [{"q": {}, "u": {"$set": {"b": 1}}}]}, "verbosity": "executionStats"}`)
	if field(r, "queryPlanner.winningPlan.nMatched") != nil || field(r, "executionStats.executionStages.nMatched") != int32(1) {
		t.Fatalf("nMatched belongs to the execution stages only: %v", r)
	}
}
