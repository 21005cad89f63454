package engine

import (
	"errors"
	"fmt"
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

// nestedLookups returns a pipeline of n $lookups on c, each one's
// pipeline holding the next.
func nestedLookups(n int) string {
	s := `[]`
	for i := 0; i < n; i++ {
		s = fmt.Sprintf(`[{"$lookup": {"from": "c", "pipeline": %s, "as": "j"}}]`, s)
	}
	return s
}

// TestViewNestedSubPipelinesAtCreation: mongod parses a view's pipeline
// fully when the view is created or modified, so sub-pipelines nested
// more than 20 deep in it are refused then, with 269 worded as its
// view validation words a parse error; 20 is accepted. An aggregate
// gets the bare 269.
func TestViewNestedSubPipelinesAtCreation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "v", "viewOn": "c", "pipeline": `+nestedLookups(20)+`}`)
	mustRun(t, db, "test", `{"collMod": "v", "viewOn": "c", "pipeline": `+nestedLookups(20)+`}`)
	wantExact := func(cmd, msg string) {
		t.Helper()
		_, err := run(t, db, "test", cmd)
		var de *document.Error
		if !errors.As(err, &de) || de.Code != document.CodeMaxSubPipelineDepthExceeded || de.Message != msg {
			t.Errorf("%.60s...: %v, want 269 %q", cmd, err, msg)
		}
	}
	wantExact(`{"create": "w", "viewOn": "c", "pipeline": `+nestedLookups(21)+`}`,
		"Invalid pipeline for view test.w :: caused by :: Maximum number of nested sub-pipelines exceeded. Limit is 20")
	wantExact(`{"collMod": "v", "viewOn": "c", "pipeline": `+nestedLookups(21)+`}`,
		"Invalid pipeline for view test.v :: caused by :: Maximum number of nested sub-pipelines exceeded. Limit is 20")
	wantExact(`{"aggregate": "c", "pipeline": `+nestedLookups(21)+`, "cursor": {}}`,
		"Maximum number of nested sub-pipelines exceeded. Limit is 20")
	if c := db.lookup("test", "w"); c != nil {
		t.Errorf("view w exists after its refusal")
	}
}
