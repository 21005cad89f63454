package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestAggregateDocuments checks $documents: {aggregate: 1} pipelines
// that start with it (cursor on db.$cmd.aggregate, getMore, $out after
// it, the embedded Database.Aggregate), inside a $unionWith without a
// collection, and mongod's refusals (73 for the wrong kind of
// aggregate, 40602 when it is not first, 40228 for a non-object).
func TestAggregateDocuments(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	r := mustRun(t, db, "test", `{"aggregate": 1, "pipeline": [{"$documents": [{"x": 2}, {"x": 1}, {"x": 3}]}, {"$match": {"x": {"$gte": 2}}}, {"$sort": {"x": 1}}], "cursor": {}}`)
	if got := document.Format(field(r, "cursor.firstBatch")); got != `[ { x: 2 }, { x: 3 } ]` || field(r, "cursor.ns") != "test.$cmd.aggregate" {
		t.Fatalf("$documents: %v", r)
	}
	// An expression: evaluated once, $$NOW is the engine's clock.
	r = mustRun(t, db, "test", `{"aggregate": 1, "pipeline": [{"$documents": {"$map": {"input": {"$range": [0, 3]}, "in": {"i": "$$this", "at": "$$NOW"}}}}], "cursor": {}}`)
	batch := field(r, "cursor.firstBatch").(bson.A)
	if len(batch) != 3 || field(batch[2].(bson.D), "i") != int32(2) || field(batch[0].(bson.D), "at") != bson.NewDateTimeFromTime(clk.Now()) {
		t.Fatalf("$documents of an expression: %v", r)
	}
	// Null and a missing field (there is no document) give nothing;
	// getMore goes on from the first batch.
	for _, v := range []string{"null", `"$x"`} {
		r = mustRun(t, db, "test", `{"aggregate": 1, "pipeline": [{"$documents": `+v+`}], "cursor": {}}`)
		if b := field(r, "cursor.firstBatch").(bson.A); len(b) != 0 {
			t.Fatalf("$documents of %s: %v", v, r)
		}
	}
	r = mustRun(t, db, "test", `{"aggregate": 1, "pipeline": [{"$documents": {"$map": {"input": {"$range": [0, 5]}, "in": {"i": "$$this"}}}}], "cursor": {"batchSize": 2}}`)
	id, _ := checkCursorShape(t, "batch of 2", field(r, "cursor"), "firstBatch")
	r = mustRun(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "$cmd.aggregate"}`, id))
	if _, next := checkCursorShape(t, "getMore", field(r, "cursor"), "nextBatch"); len(next) != 3 {
		t.Fatalf("getMore after $documents: %v", r)
	}
	// Written with $out; added to a collection's documents by $unionWith.
	mustRun(t, db, "test", `{"aggregate": 1, "pipeline": [{"$documents": [{"_id": 1}, {"_id": 2}]}, {"$out": "made"}], "cursor": {}}`)
	if n := count(t, db, "test", "made"); n != 2 {
		t.Fatalf("$documents then $out: %d documents", n)
	}
	r = mustRun(t, db, "test", `{"aggregate": "made", "pipeline": [{"$unionWith": {"pipeline": [{"$documents": [{"_id": 3}]}]}}, {"$count": "n"}], "cursor": {}}`)
	if field(r, "cursor.firstBatch.0.n") != int32(3) {
		t.Fatalf("$unionWith of $documents: %v", r)
	}
	// A $lookup without from joins documents its pipeline makes.
	r = mustRun(t, db, "test", `{"aggregate": "made", "pipeline": [{"$match": {"_id": 1}}, {"$lookup": {"let": {"id": "$_id"},
		"pipeline": [{"$documents": [{"k": 1, "name": "one"}, {"k": 2, "name": "two"}]}, {"$match": {"$expr": {"$eq": ["$k", "$$id"]}}}], "as": "names"}},
		{"$project": {"n": "$names.name"}}], "cursor": {}}`)
	if got := document.Format(field(r, "cursor.firstBatch")); got != `[ { _id: 1, n: [ "one" ] } ]` {
		t.Fatalf("$lookup of $documents: %s", got)
	}
	wantCode(t, db, "test", `{"aggregate": "made", "pipeline": [{"$lookup": {"pipeline": [{"$match": {}}], "as": "x"}}], "cursor": {}}`, document.CodeFailedToParse, "$lookup stage without explicit collection must have a pipeline with $documents as first stage")
	cur, err := db.Database("test").Aggregate(context.Background(), bson.A{bson.D{{Key: "$documents", Value: bson.A{bson.D{{Key: "a", Value: 1}}}}}})
	if err != nil || !cur.Next(context.Background()) || field(cur.Current, "a") != int32(1) {
		t.Fatalf("Database.Aggregate: %v", err)
	}
	r = mustRun(t, db, "test", `{"aggregate": 1, "pipeline": [{"$documents": [{"x": 1}]}, {"$project": {"x": 1}}], "explain": true}`)
	if st := field(r, "stages").(bson.A); len(st) != 2 || field(st[0].(bson.D), "$documents") == nil {
		t.Fatalf("explain of $documents: %v", r)
	}

	refusals := []struct {
		cmd  string
		code document.Code
	}{
		{`{"aggregate": "made", "pipeline": [{"$documents": []}], "cursor": {}}`, document.CodeInvalidNamespace},
		{`{"aggregate": 1, "pipeline": [{"$match": {}}], "cursor": {}}`, document.CodeInvalidNamespace},
		{`{"aggregate": 1, "pipeline": [], "cursor": {}}`, document.CodeInvalidNamespace},
		{`{"aggregate": 2, "pipeline": [], "cursor": {}}`, document.CodeFailedToParse},
		{`{"aggregate": 1, "pipeline": [{"$documents": []}, {"$documents": []}], "cursor": {}}`, 40602},
		{`{"aggregate": 1, "pipeline": [{"$documents": [1]}], "cursor": {}}`, 40228},
		{`{"aggregate": 1, "pipeline": [{"$documents": "abc"}], "cursor": {}}`, 40228},
		{`{"aggregate": "made", "pipeline": [{"$unionWith": {"pipeline": [{"$match": {}}]}}], "cursor": {}}`, document.CodeFailedToParse},
	}
	for _, c := range refusals {
		wantCode(t, db, "test", c.cmd, c.code, "")
	}
	if _, err := db.Database("test").Collection("made").Aggregate(context.Background(), bson.A{bson.D{{Key: "$documents", Value: bson.A{}}}}); err == nil {
		t.Fatal("Collection.Aggregate of $documents was not refused")
	}
}
