package wire

import (
	"context"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A driver's mapReduce (a runCommand in the Go driver) runs over the
// wire; the privileges are mongod's: find on the input, and for an
// output collection insert and remove or update on it, in its database.
func TestDriverMapReduce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Auth: true})
	ctx := context.Background()
	anon := e.client(t, true)
	if err := createUser(ctx, anon.Database("admin"), "root", "pw", bson.A{"root"}); err != nil {
		t.Fatal(err)
	}
	root := e.client(t, true, withAuth("root", "pw", "admin"))
	for _, u := range []struct {
		name string
		role string
	}{{"reader", "read"}, {"writer", "readWrite"}} {
		if err := createUser(ctx, root.Database("app"), u.name, "pw", bson.A{u.role}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := root.Database("app").Collection("c").InsertMany(ctx, []any{
		bson.D{{Key: "k", Value: "x"}, {Key: "n", Value: 1}},
		bson.D{{Key: "k", Value: "x"}, {Key: "n", Value: 2}},
		bson.D{{Key: "k", Value: "y"}, {Key: "n", Value: 5}},
	}); err != nil {
		t.Fatal(err)
	}
	mr := func(out any) bson.D {
		return bson.D{{Key: "mapReduce", Value: "c"},
			{Key: "map", Value: bson.JavaScript("function() { emit(this.k, this.n); }")},
			{Key: "reduce", Value: bson.JavaScript("function(k, vs) { return Array.sum(vs); }")},
			{Key: "out", Value: out}, {Key: "sort", Value: bson.D{{Key: "k", Value: 1}}}}
	}
	reader := e.client(t, true, withAuth("reader", "pw", "app")).Database("app")
	var inline struct {
		Results []struct {
			ID    string  `bson:"_id"`
			Value float64 `bson:"value"`
		} `bson:"results"`
	}
	if err := reader.RunCommand(ctx, mr(bson.D{{Key: "inline", Value: 1}})).Decode(&inline); err != nil {
		t.Fatalf("inline by a reader: %v", err)
	}
	sums := map[string]float64{}
	for _, r := range inline.Results {
		sums[r.ID] = r.Value
	}
	if len(sums) != 2 || sums["x"] != 3 || sums["y"] != 5 {
		t.Errorf("inline results %+v, want x 3 and y 5", inline.Results)
	}
	if err := reader.RunCommand(ctx, mr("out")).Err(); cmdCode(t, err) != 13 {
		t.Errorf("out to a collection by a reader: %v, want 13", err)
	}
	writer := e.client(t, true, withAuth("writer", "pw", "app")).Database("app")
	var res bson.D
	if err := writer.RunCommand(ctx, mr(bson.D{{Key: "merge", Value: "out"}})).Decode(&res); err != nil {
		t.Fatalf("out by a writer: %v", err)
	}
	if got, want := res, (bson.D{{Key: "result", Value: "out"}, {Key: "ok", Value: 1.0}}); !reflect.DeepEqual(got, want) {
		t.Errorf("reply %v, want %v", got, want)
	}
	if n, err := writer.Collection("out").CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
		t.Errorf("out collection: %d documents (%v), want 2", n, err)
	}
	// Another database's output needs a role there.
	err := writer.RunCommand(ctx, mr(bson.D{{Key: "replace", Value: "out"}, {Key: "db", Value: "other"}})).Err()
	if cmdCode(t, err) != 13 {
		t.Errorf("out to another database by a writer of app: %v, want 13", err)
	}
}
