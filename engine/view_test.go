package engine

import (
	"context"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestViews checks views as mongod keeps them: created with viewOn and
// a pipeline, listed as views, read by find (filter, sort, skip, limit,
// projection), count, distinct and aggregate (their pipelines after the
// view's), through $lookup, and stacked on views; refused for writes,
// indexes and the rest; changed by collMod; kept across a reopen.
func TestViews(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"insert": "emp", "documents": [{"_id": 1, "name": "ann", "dept": "a", "pay": 10, "ssn": "x"},
		{"_id": 2, "name": "bob", "dept": "b", "pay": 20, "ssn": "y"}, {"_id": 3, "name": "cy", "dept": "a", "pay": 30, "ssn": "z"}]}`)
	mustRun(t, db, "test", `{"create": "public", "viewOn": "emp", "pipeline": [{"$project": {"ssn": 0}}]}`)
	mustRun(t, db, "test", `{"create": "deptA", "viewOn": "public", "pipeline": [{"$match": {"dept": "a"}}]}`)
	batch := func(cmd string) string {
		t.Helper()
		return document.Format(field(mustRun(t, db, "test", cmd), "cursor.firstBatch"))
	}
	if got := batch(`{"find": "public", "filter": {"pay": {"$gte": 20}}, "sort": {"pay": -1}, "projection": {"_id": 0, "name": 1}}`); got != `[ { name: "cy" }, { name: "bob" } ]` {
		t.Fatalf("find on a view: %s", got)
	}
	if got := batch(`{"find": "public", "filter": {"$expr": {"$eq": ["$pay", "$$p"]}}, "let": {"p": 30}, "projection": {"name": 1, "_id": 0}}`); got != `[ { name: "cy" } ]` {
		t.Fatalf("find with let on a view: %s", got)
	}
	if got := batch(`{"find": "public", "sort": {"_id": 1}, "skip": 1, "limit": 1}`); got != `[ { _id: 2, name: "bob", dept: "b", pay: 20 } ]` {
		t.Fatalf("skip and limit on a view: %s", got)
	}
	if got := batch(`{"find": "deptA", "projection": {"name": 1, "_id": 0}}`); got != `[ { name: "ann" }, { name: "cy" } ]` {
		t.Fatalf("a view on a view: %s", got)
	}
	if got := batch(`{"aggregate": "deptA", "pipeline": [{"$group": {"_id": null, "pay": {"$sum": "$pay"}}}], "cursor": {}}`); got != `[ { _id: null, pay: 40 } ]` {
		t.Fatalf("aggregate on a view: %s", got)
	}
	// The aggregate's let reaches the $match it leads with, which runs
	// after the view's own stages.
	if got := batch(`{"aggregate": "deptA", "let": {"min": 15}, "pipeline": [{"$match": {"$expr": {"$gt": ["$pay", "$$min"]}}}, {"$project": {"_id": 0, "name": 1, "over": {"$subtract": ["$pay", "$$min"]}}}], "cursor": {}}`); got != `[ { name: "cy", over: 15 } ]` {
		t.Fatalf("aggregate on a view with let: %s", got)
	}
	if n := field(mustRun(t, db, "test", `{"count": "deptA", "query": {"pay": {"$gt": 15}}}`), "n"); n != int32(1) {
		t.Fatalf("count on a view: %v", n)
	}
	if got := document.Format(field(mustRun(t, db, "test", `{"distinct": "public", "key": "dept"}`), "values")); got != `[ "a", "b" ]` {
		t.Fatalf("distinct on a view: %s", got)
	}
	if got := batch(`{"aggregate": "emp", "pipeline": [{"$match": {"_id": 2}}, {"$lookup": {"from": "public", "localField": "_id", "foreignField": "_id", "as": "p"}}, {"$project": {"keys": {"$objectToArray": {"$first": "$p"}}}}, {"$project": {"n": {"$size": "$keys"}}}], "cursor": {}}`); got != `[ { _id: 2, n: 4 } ]` {
		t.Fatalf("$lookup from a view: %s", got)
	}
	// Explain shows the aggregate the find runs: the view's stages over
	// its source, then the find's.
	r := mustRun(t, db, "test", `{"explain": {"find": "public", "filter": {"dept": "a"}}, "verbosity": "queryPlanner"}`)
	if st, _ := field(r, "stages").(bson.A); len(st) != 3 || field(st[1].(bson.D), "$project") == nil || field(st[2].(bson.D), "$match") == nil {
		t.Fatalf("explain of a find on a view: %v", r)
	}
	// ...with the find's let, as the find itself runs.
	mustRun(t, db, "test", `{"explain": {"find": "public", "filter": {"$expr": {"$eq": ["$dept", "$$d"]}}, "let": {"d": "a"}}, "verbosity": "executionStats"}`)
	if r := mustRun(t, db, "test", `{"dbStats": 1}`); field(r, "collections") != int64(2) || field(r, "views") != int64(2) {
		t.Fatalf("dbStats: %v, want 2 collections (one and system.views) and 2 views", r)
	}
	r = mustRun(t, db, "test", `{"listCollections": 1, "filter": {"type": "view"}}`)
	views := field(r, "cursor.firstBatch").(bson.A)
	if len(views) != 2 || document.Format(field(views[0].(bson.D), "info")) != `{ readOnly: true }` || field(views[0].(bson.D), "idIndex") != nil {
		t.Fatalf("listCollections: %v", views)
	}

	refusals := []struct {
		cmd  string
		code document.Code
	}{
		{`{"insert": "public", "documents": [{"a": 1}]}`, 166},
		{`{"update": "public", "updates": [{"q": {}, "u": {"$set": {"a": 1}}}]}`, 166},
		{`{"delete": "public", "deletes": [{"q": {}, "limit": 0}]}`, 166},
		{`{"findAndModify": "public", "query": {}, "remove": true}`, 166},
		{`{"createIndexes": "public", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`, 166},
		{`{"listIndexes": "public"}`, 166},
		{`{"collStats": "public"}`, 166},
		{`{"validate": "public"}`, 166},
		{`{"aggregate": "emp", "pipeline": [{"$out": "public"}], "cursor": {}}`, 166},
		{`{"aggregate": "public", "pipeline": [{"$changeStream": {}}], "cursor": {}}`, 166},
		{`{"create": "bad", "viewOn": "emp", "pipeline": [{"$out": "x"}]}`, 167},
		{`{"create": "bad", "viewOn": "emp", "pipeline": [{"$nosuch": 1}]}`, 40324},
		{`{"create": "bad", "viewOn": ""}`, document.CodeBadValue},
		{`{"create": "bad", "viewOn": 1}`, document.CodeTypeMismatch},
		{`{"create": "bad", "pipeline": []}`, document.CodeInvalidOptions},
		{`{"create": "bad", "viewOn": "emp", "capped": true}`, document.CodeInvalidOptions},
		{`{"create": "self", "viewOn": "self"}`, 140},
		{`{"collMod": "public", "viewOn": "deptA"}`, 140},
		{`{"collMod": "emp", "viewOn": "x"}`, document.CodeInvalidOptions},
		{`{"renameCollection": "test.public", "to": "test.p2"}`, 166},
	}
	for _, c := range refusals {
		dbn := "test"
		if c.cmd[2:18] == "renameCollection" {
			dbn = "admin"
		}
		wantCode(t, db, dbn, c.cmd, c.code, "")
	}
	if _, err := db.Database("test").Collection("public").InsertOne(context.Background(), bson.D{{Key: "a", Value: 1}}); err == nil {
		t.Fatal("InsertOne into a view was not refused")
	}

	// collMod changes the pipeline; the view survives a reopen; drop
	// removes it and leaves its source.
	mustRun(t, db, "test", `{"collMod": "public", "pipeline": [{"$project": {"ssn": 0, "pay": 0}}]}`)
	db = reopen(t, db, dir, clk)
	if got := batch(`{"find": "deptA", "filter": {"_id": 1}}`); got != `[ { _id: 1, name: "ann", dept: "a" } ]` {
		t.Fatalf("after collMod and reopen: %s", got)
	}
	mustRun(t, db, "test", `{"drop": "deptA"}`)
	if n := count(t, db, "test", "emp"); n != 3 {
		t.Fatalf("dropping a view changed its source: %d documents", n)
	}
}
