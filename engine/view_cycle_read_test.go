package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestViewCycleStoredBeforeGraphReadIs269 plants what the view graph
// now refuses to create, two views whose $lookups read each other (as a
// store written before the graph followed pipelines may hold), and
// reads it: the nested reads stop at mongod's depth with 269, and the
// process does not recurse until its stack runs out.
func TestViewCycleStoredBeforeGraphReadIs269(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "k": 1}]}`)
	mustRun(t, db, "test", `{"create": "v1", "viewOn": "c", "pipeline": [{"$lookup": {"from": "v2", "localField": "k", "foreignField": "k", "as": "j"}}]}`)
	mustRun(t, db, "test", `{"create": "v2", "viewOn": "c", "pipeline": []}`)
	// What collMod now refuses (140), written past the check.
	wantCode(t, db, "test", `{"collMod": "v2", "viewOn": "c", "pipeline": [{"$lookup": {"from": "v1", "localField": "k", "foreignField": "k", "as": "j"}}]}`, document.CodeGraphContainsCycle, "")
	c := db.lookup("test", "v2")
	nm := c.m().Clone()
	nm.Options = bson.D{{Key: "viewOn", Value: "c"}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "v1"}, {Key: "localField", Value: "k"}, {Key: "foreignField", Value: "k"}, {Key: "as", Value: "j"}}}},
	}}}
	if err := db.updateMeta(c, nm, nil); err != nil {
		t.Fatal(err)
	}
	wantCode(t, db, "test", `{"find": "v1"}`, document.CodeMaxSubPipelineDepthExceeded, "Maximum number of nested sub-pipelines exceeded. Limit is 20")
	wantCode(t, db, "test", `{"aggregate": "c", "pipeline": [{"$unionWith": "v2"}], "cursor": {}}`, document.CodeMaxSubPipelineDepthExceeded, "nested sub-pipelines")
	// The collection under them still reads.
	r := mustRun(t, db, "test", `{"count": "c"}`)
	if n, _ := get(r, "n"); n != int32(1) {
		t.Errorf("count of c = %v, want 1", n)
	}
}
