package engine

import (
	"context"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestFindComputedProjection checks MongoDB 4.4's find projections that
// compute fields: expressions, literals and "$path" values run as the
// $project they are (in find, findAndModify and the Go API), $$NOW is the
// engine's clock, an expression's error fails the query, and what
// ttlkv refuses.
func TestFindComputedProjection(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": "x", "b": "y", "arr": [1, 2, 3]}, {"_id": 2, "a": "p", "b": "q", "arr": []}]}`)
	r := mustRun(t, db, "test", `{"find": "c", "filter": {"_id": 1}, "projection": {"_id": 0, "ab": {"$concat": ["$a", "$b"]}, "n": {"$size": "$arr"}, "lit": "hello", "path": "$a", "list": [1, "$b"]}}`)
	if got := document.Format(field(r, "cursor.firstBatch")); got != `[ { ab: "xy", n: 3, lit: "hello", path: "x", list: [ 1, "y" ] } ]` {
		t.Fatalf("computed fields: %s", got)
	}
	r = mustRun(t, db, "test", `{"find": "c", "sort": {"_id": 1}, "projection": {"a": 1, "up": {"$toUpper": "$a"}, "at": "$$NOW"}}`)
	now := bson.NewDateTimeFromTime(clk.Now())
	want := document.Format(bson.A{
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: "x"}, {Key: "up", Value: "X"}, {Key: "at", Value: now}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "a", Value: "p"}, {Key: "up", Value: "P"}, {Key: "at", Value: now}},
	})
	if got := document.Format(field(r, "cursor.firstBatch")); got != want {
		t.Fatalf("inclusion with computed fields: %s, want %s", got, want)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"_id": 2}, "update": {"$set": {"b": "z"}}, "new": true, "fields": {"_id": 0, "ab": {"$concat": ["$a", "$b"]}}}`)
	if got := document.Format(field(r, "value")); got != `{ ab: "pz" }` {
		t.Fatalf("findAndModify fields: %s", got)
	}
	cur, err := db.Database("test").Collection("c").Find(context.Background(), bson.D{{Key: "_id", Value: 1}}, FindOptions{Projection: bson.D{{Key: "_id", Value: 0}, {Key: "len", Value: bson.D{{Key: "$strLenCP", Value: "$a"}}}}})
	if err != nil || !cur.Next(context.Background()) || document.Format(cur.Current) != `{ len: 1 }` {
		t.Fatalf("Find with a computed projection: %v", err)
	}

	refusals := []struct {
		cmd  string
		code document.Code
	}{
		{`{"find": "c", "projection": {"a": 0, "up": {"$toUpper": "$a"}}}`, 31252}, // mongod: an expression in an exclusion projection
		{`{"find": "c", "projection": {"d": {"$divide": [1, 0]}}}`, document.CodeBadValue},
		{`{"find": "c", "projection": {"arr": {"$slice": 1}, "up": {"$toUpper": "$a"}}}`, document.CodeBadValue},
		{`{"find": "c", "projection": {"x": {"$nosuch": 1}}}`, 168},
		{`{"findAndModify": "c", "query": {"_id": 1}, "update": {"$set": {"touched": true}}, "fields": {"x": {"$nosuch": 1}}}`, 168},
	}
	for _, c := range refusals {
		wantCode(t, db, "test", c.cmd, c.code, "")
	}
	if n := count(t, db, "test", "c"); n != 2 || len(findAll(t, db, "test", "c", bson.D{{Key: "touched", Value: true}})) != 0 {
		t.Fatal("a refused findAndModify wrote")
	}
}
