package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestCommandLet checks the let option of aggregate, find, update,
// delete and findAndModify: variables evaluated once (reading $$NOW and
// the ones before them, no field: 4890500), seen by a pushed-down
// $match's $expr, by later stages and by a $lookup's pipeline, by a
// filter's $expr and by an update pipeline; and the refusals.
func TestCommandLet(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "v": 1}, {"_id": 2, "v": 2}, {"_id": 3, "v": 3}]}`)
	batch := func(r bson.D) string {
		t.Helper()
		return document.Format(field(r, "cursor.firstBatch"))
	}

	r := mustRun(t, db, "test", `{"aggregate": "c", "let": {"min": 1, "k": {"$add": ["$$min", 9]}, "at": "$$NOW"},
		"pipeline": [{"$match": {"$expr": {"$gt": ["$v", "$$min"]}}}, {"$project": {"d": {"$multiply": ["$v", "$$k"]}, "at": "$$at"}},
		{"$lookup": {"from": "c", "pipeline": [{"$match": {"$expr": {"$eq": ["$v", "$$min"]}}}, {"$project": {"_id": 1}}], "as": "one"}}], "cursor": {}}`)
	now := bson.NewDateTimeFromTime(clk.Now())
	want := document.Format(bson.A{
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "d", Value: int32(20)}, {Key: "at", Value: now}, {Key: "one", Value: bson.A{bson.D{{Key: "_id", Value: int32(1)}}}}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "d", Value: int32(30)}, {Key: "at", Value: now}, {Key: "one", Value: bson.A{bson.D{{Key: "_id", Value: int32(1)}}}}},
	})
	if got := batch(r); got != want {
		t.Fatalf("aggregate with let: %s, want %s", got, want)
	}
	// Where mongod wants a constant, a let variable is one.
	r = mustRun(t, db, "test", `{"aggregate": "c", "let": {"ps": [0.5, 1], "mid": 2},
		"pipeline": [{"$group": {"_id": null, "p": {"$percentile": {"input": "$v", "p": "$$ps", "method": "discrete"}}}},
		{"$unionWith": {"coll": "c", "pipeline": [{"$bucket": {"groupBy": "$v", "boundaries": [0, "$$mid", 10]}}]}}], "cursor": {}}`)
	if got := batch(r); got != `[ { _id: null, p: [ 2.0, 3.0 ] }, { _id: 0, count: 1 }, { _id: 2, count: 2 } ]` {
		t.Fatalf("let variables as constants: %s", got)
	}
	r = mustRun(t, db, "test", `{"aggregate": "c", "let": {"k": 2}, "pipeline": [{"$bucketAuto": {"groupBy": "$v", "buckets": 1, "output": {"top": {"$maxN": {"input": "$v", "n": "$$k"}}}}}], "cursor": {}}`)
	if got := batch(r); got != `[ { _id: { min: 1, max: 3 }, top: [ 3, 2 ] } ]` {
		t.Fatalf("a let variable as $bucketAuto's n: %s", got)
	}
	r = mustRun(t, db, "test", `{"aggregate": "c", "let": {"lo": -1}, "pipeline": [
		{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"s": {"$sum": "$v", "window": {"documents": [{"$add": ["$$lo", 0]}, 0]}}}}},
		{"$project": {"s": 1}}], "cursor": {}}`)
	if got := batch(r); got != `[ { _id: 1, s: 1 }, { _id: 2, s: 3 }, { _id: 3, s: 5 } ]` {
		t.Fatalf("a let variable as a window bound: %s", got)
	}
	if got := batch(mustRun(t, db, "test", `{"find": "c", "filter": {"$expr": {"$eq": ["$v", "$$x"]}}, "let": {"x": 2}}`)); got != `[ { _id: 2, v: 2 } ]` {
		t.Fatalf("find with let: %s", got)
	}
	// A projection that computes fields reads the command's let too.
	if got := batch(mustRun(t, db, "test", `{"find": "c", "filter": {"_id": 1}, "projection": {"v": 1, "w": {"$add": ["$v", "$$x"]}}, "let": {"x": 10}}`)); got != `[ { _id: 1, v: 1, w: 11 } ]` {
		t.Fatalf("find's projection with let: %s", got)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"_id": 3}, "update": {"$set": {"z": 1}}, "fields": {"t": "$$tag"}, "let": {"tag": "x"}}`)
	if document.Format(field(r, "value")) != `{ _id: 3, t: "x" }` {
		t.Fatalf("findAndModify's fields with let: %v", r)
	}
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 3}, "u": {"$unset": {"z": 1}}}]}`)
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"$expr": {"$eq": ["$_id", "$$id"]}}, "u": [{"$set": {"v": "$$nv"}}]}], "let": {"id": 1, "nv": 100}}`)
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"$expr": {"$eq": ["$_id", "$$id"]}}, "update": [{"$set": {"w": "$$w"}}], "new": true, "let": {"id": 2, "w": "x"}}`)
	if document.Format(field(r, "value")) != `{ _id: 2, v: 2, w: "x" }` {
		t.Fatalf("findAndModify with let: %v", r)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"$expr": {"$eq": ["$v", "$$v"]}}, "remove": true, "let": {"v": 3}}`)
	if field(r, "value._id") != int32(3) {
		t.Fatalf("findAndModify remove with let: %v", r)
	}
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"$expr": {"$eq": ["$v", "$$big"]}}, "limit": 0}], "let": {"big": 100}}`)
	if got := batch(mustRun(t, db, "test", `{"find": "c"}`)); got != `[ { _id: 2, v: 2, w: "x" } ]` {
		t.Fatalf("after the update, findAndModify and delete with let: %s", got)
	}

	refusals := []struct {
		cmd  string
		code document.Code
	}{
		{`{"aggregate": "c", "pipeline": [], "cursor": {}, "let": {"a": "$v"}}`, 4890500},
		{`{"aggregate": "c", "pipeline": [], "cursor": {}, "let": {"A": 1}}`, 16867},
		{`{"aggregate": "c", "pipeline": [], "cursor": {}, "let": 1}`, document.CodeTypeMismatch},
		{`{"aggregate": "c", "pipeline": [{"$project": {"a": "$$b"}}], "cursor": {}, "let": {"a": 1}}`, 17276},
		{`{"aggregate": "c", "pipeline": [], "cursor": {}, "let": {"a": "$$b", "b": 1}}`, 17276},
		{`{"find": "c", "filter": {"$expr": "$$x"}}`, 17276},
		{`{"find": "c", "projection": {"a": "$$x"}}`, 17276},
		{`{"find": "c", "projection": {"a": "$$x"}, "let": {"y": 1}}`, 17276},
		{`{"find": "c", "let": []}`, document.CodeTypeMismatch},
		{`{"update": "c", "updates": [{"q": {}, "u": {"$set": {"a": 1}}}], "let": {"x": {"$divide": [1, 0]}}}`, document.CodeBadValue},
		{`{"delete": "c", "deletes": [{"q": {}, "limit": 0}], "let": "x"}`, document.CodeTypeMismatch},
		{`{"findAndModify": "c", "remove": true, "let": {"x": "$y"}}`, 4890500},
	}
	for _, c := range refusals {
		wantCode(t, db, "test", c.cmd, c.code, "")
	}
	if n := count(t, db, "test", "c"); n != 1 {
		t.Fatalf("the refusals changed the collection: %d documents", n)
	}
}
