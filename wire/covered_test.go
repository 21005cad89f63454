package wire

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A covered find through the wire server (a driver's find, whose
// batches go out as raw BSON) answers with the stored BSON types from
// the index's entries, and its explain is mongod's covered shape.
func TestCoveredFindThroughWire(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	c := e.client(t, true).Database("app").Collection("c")
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertMany(ctx, []any{bson.D{{Key: "a", Value: int32(1)}}, bson.D{{Key: "a", Value: int64(2)}}, bson.D{{Key: "a", Value: 3.0}}}); err != nil {
		t.Fatal(err)
	}
	cur, err := c.Find(ctx, bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 1}}}}, options.Find().SetProjection(bson.D{{Key: "a", Value: 1}, {Key: "_id", Value: 0}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.Raw
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	want := []bson.Type{bson.TypeInt32, bson.TypeInt64, bson.TypeDouble}
	if len(got) != len(want) {
		t.Fatalf("found %v", got)
	}
	for i, d := range got {
		if tp := d.Lookup("a").Type; tp != want[i] {
			t.Errorf("document %d %v: a is %v, want %v", i, d, tp, want[i])
		}
	}
	r, err := c.Database().RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "c"},
		{Key: "filter", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 1}}}}},
		{Key: "projection", Value: bson.D{{Key: "a", Value: 1}, {Key: "_id", Value: 0}}}}}, {Key: "verbosity", Value: "executionStats"}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	wp := r.Lookup("queryPlanner", "winningPlan")
	if s := wp.Document().Lookup("stage").StringValue(); s != "PROJECTION_COVERED" {
		t.Errorf("winningPlan %v, want PROJECTION_COVERED", wp)
	}
	if s := wp.Document().Lookup("inputStage", "stage").StringValue(); s != "IXSCAN" {
		t.Errorf("winningPlan %v, want IXSCAN under the projection", wp)
	}
	if n := r.Lookup("executionStats", "totalDocsExamined").AsInt64(); n != 0 {
		t.Errorf("totalDocsExamined %d, want 0", n)
	}
}
