package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestUpdatePipeline checks updates given as aggregation pipelines:
// computed fields, $$NOW from the engine's clock, replacement semantics
// for _id, upserts, findAndModify, refusals, and a TTL index on a field
// the pipeline computes.
func TestUpdatePipeline(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	ctx := context.Background()
	now := clk.Now()
	mustRun(t, db, "test", fmt.Sprintf(`{"insert": "c", "documents": [
		{"_id": 1, "createdAt": {"$date": {"$numberLong": "%d"}}, "a": 1, "b": 2},
		{"_id": 2, "createdAt": {"$date": {"$numberLong": "%d"}}, "a": 5, "b": 6}]}`,
		now.Add(-2*time.Hour).UnixMilli(), now.UnixMilli()))
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"expireAt": 1}, "name": "expireAt_1", "expireAfterSeconds": 0}]}`)

	// Expire each document an hour after createdAt, computed by the server.
	r := mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {}, "u": [
		{"$set": {"expireAt": {"$add": ["$createdAt", 3600000]}, "sum": {"$add": ["$a", "$b"]}, "touched": "$$NOW"}},
		{"$unset": "b"}], "multi": true}]}`)
	if field(r, "nModified") != int32(2) {
		t.Fatalf("pipeline update: %v, want nModified 2", r)
	}
	got := findAll(t, db, "test", "c", bson.D{{Key: "_id", Value: int32(1)}})
	want := bson.D{{Key: "_id", Value: int32(1)}, {Key: "createdAt", Value: bson.NewDateTimeFromTime(now.Add(-2 * time.Hour))},
		{Key: "a", Value: int32(1)}, {Key: "expireAt", Value: bson.NewDateTimeFromTime(now.Add(-time.Hour))},
		{Key: "sum", Value: int32(3)}, {Key: "touched", Value: bson.NewDateTimeFromTime(now)}}
	if len(got) != 1 || document.Compare(got[0], want) != 0 || len(got[0]) != len(want) {
		t.Fatalf("after the pipeline: %v, want %v", got, want)
	}
	mustValidate(t, db, "test", "c")
	if _, err := db.RunTTLPass(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "test", "c"); n != 1 {
		t.Fatalf("after the TTL pass: %d documents, want 1 (only _id 2 expires in the future)", n)
	}

	// The result replaces the document; a result without _id keeps it.
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 2}, "u": [{"$replaceWith": {"x": "$a"}}]}]}`)
	got = findAll(t, db, "test", "c", bson.D{})
	if len(got) != 1 || document.Compare(got[0], bson.D{{Key: "_id", Value: int32(2)}, {Key: "x", Value: int32(5)}}) != 0 {
		t.Fatalf("$replaceWith: %v, want {_id: 2, x: 5}", got)
	}
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 2}, "u": [{"$set": {"_id": 3}}]}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(we[0].(bson.D), "code") != int32(document.CodeImmutableField) {
		t.Fatalf("changing _id in a pipeline: %v, want writeError 66", r)
	}

	// Upsert: the pipeline runs over the filter's equalities.
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 7, "k": "v"}, "u": [{"$set": {"k2": {"$concat": ["$k", "!"]}}}], "upsert": true}]}`)
	got = findAll(t, db, "test", "c", bson.D{{Key: "_id", Value: int32(7)}})
	if len(got) != 1 || document.Compare(got[0], bson.D{{Key: "_id", Value: int32(7)}, {Key: "k", Value: "v"}, {Key: "k2", Value: "v!"}}) != 0 {
		t.Fatalf("pipeline upsert: %v", got)
	}

	// findAndModify returns the new document.
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"_id": 7}, "update": [{"$set": {"n": {"$strLenCP": "$k2"}}}], "new": true}`)
	if field(r, "value.n") != int32(2) {
		t.Fatalf("findAndModify with a pipeline: %v, want value.n 2", r)
	}

	// The Go API takes a bson.A.
	res, err := db.Database("test").Collection("c").UpdateMany(ctx, bson.D{}, bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "m", Value: bson.D{{Key: "$literal", Value: "$x"}}}}}}}, false)
	if err != nil || res.ModifiedCount != 2 {
		t.Fatalf("UpdateMany with a pipeline: %+v, %v", res, err)
	}

	// Refusals change nothing.
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {}, "u": [{"$match": {}}]}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(we[0].(bson.D), "code") != int32(document.CodeInvalidOptions) {
		t.Fatalf("$match in an update pipeline: %v, want writeError 72", r)
	}
	_, err = db.Database("test").Collection("c").UpdateOne(ctx, bson.D{}, bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}}}}}, false)
	checkCode(t, "$group in an update pipeline", err, document.CodeInvalidOptions, "$group is not allowed to be used within an update")
	_, err = db.Database("test").Collection("c").UpdateOne(ctx, bson.D{}, bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "z", Value: bson.D{{Key: "$divide", Value: bson.A{1, 0}}}}}}}}, false)
	checkCode(t, "runtime error in an update pipeline", err, document.CodeBadValue, "divide by zero")
	for _, d := range findAll(t, db, "test", "c", bson.D{}) {
		if _, has := document.Get(d, "z"); has {
			t.Fatalf("a failed pipeline update left %v", d)
		}
	}
	mustValidate(t, db, "test", "c")
}
