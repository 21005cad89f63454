package wire

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Through the official driver, a database with a view shows mongod's
// system.views: in ListCollectionNames and ListCollectionSpecifications
// (an ordinary collection with a UUID and an _id index), readable with
// Find as the definitions {_id: "db.view", viewOn, pipeline}, and every
// write to it refused with 73 "cannot write to db.system.views".
func TestDriverSystemViews(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	db := e.client(t, false).Database("app")
	if _, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateView(ctx, "v", "c", mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "a", Value: 1}}}}}); err != nil {
		t.Fatal(err)
	}
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil || len(names) != 3 || names[0] != "c" || names[1] != "system.views" || names[2] != "v" {
		t.Fatalf("collection names %v, %v; want c, system.views, v", names, err)
	}
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "system.views"}})
	if err != nil || len(specs) != 1 {
		t.Fatalf("specifications %v, %v", specs, err)
	}
	s := specs[0]
	if s.Type != "collection" || s.ReadOnly || s.UUID == nil || s.UUID.Subtype != bson.TypeBinaryUUID ||
		s.IDIndex.Name != "_id_" {
		t.Errorf("system.views specification %+v", s)
	}
	cur, err := db.Collection("system.views").Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var defs []bson.D
	if err := cur.All(ctx, &defs); err != nil {
		t.Fatal(err)
	}
	want := bson.D{{Key: "_id", Value: "app.v"}, {Key: "viewOn", Value: "c"},
		{Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "a", Value: int32(1)}}}}}}}
	if len(defs) != 1 || !sameExtJSON(t, defs[0], want) {
		t.Errorf("system.views documents %v, want [%v]", defs, want)
	}
	_, err = db.Collection("system.views").InsertOne(ctx, bson.D{{Key: "_id", Value: "app.w"}, {Key: "viewOn", Value: "c"}, {Key: "pipeline", Value: bson.A{}}})
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 73 || ce.Name != "InvalidNamespace" || ce.Message != "cannot write to app.system.views" {
		t.Errorf("insert into system.views: %v", err)
	}
	_, err = db.Collection("system.views").DeleteMany(ctx, bson.D{})
	if !errors.As(err, &ce) || ce.Code != 73 || ce.Message != "cannot write to app.system.views" {
		t.Errorf("delete from system.views: %v", err)
	}
}

// sameExtJSON reports whether a and b have the same extended JSON.
func sameExtJSON(t *testing.T, a, b bson.D) bool {
	t.Helper()
	x, err := bson.MarshalExtJSON(a, true, false)
	if err != nil {
		t.Fatal(err)
	}
	y, err := bson.MarshalExtJSON(b, true, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(x) == string(y)
}

// Through the official driver, system.views outlives the last view and
// drops like mongod 7.0's: Collection("system.views").Drop is refused
// with 125 CommandFailed while a time-series collection's definition is
// there, and otherwise takes the views with it.
func TestDriverDropSystemViews(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	db := e.client(t, false).Database("app")
	if _, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateView(ctx, "v", "c", mongo.Pipeline{}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateCollection(ctx, "ts", options.CreateCollection().SetTimeSeriesOptions(options.TimeSeries().SetTimeField("t"))); err != nil {
		t.Fatal(err)
	}
	err := db.Collection("system.views").Drop(ctx)
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 125 || ce.Name != "CommandFailed" || ce.Message != "cannot drop collection app.system.views when time-series collections are present." {
		t.Errorf("drop of system.views beside a time-series collection: %v", err)
	}
	if err := db.Collection("ts").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil || len(names) != 3 || names[0] != "c" || names[1] != "system.views" || names[2] != "v" {
		t.Fatalf("collection names %v, %v; want c, system.views, v", names, err)
	}
	if err := db.Collection("system.views").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	names, err = db.ListCollectionNames(ctx, bson.D{})
	if err != nil || len(names) != 1 || names[0] != "c" {
		t.Errorf("collection names after dropping system.views %v, %v; want c", names, err)
	}
}
