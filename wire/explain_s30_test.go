package wire

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// explain's serverInfo through the wire server gives the version and
// gitVersion that buildInfo through it reports (mongod's explain.cpp
// generateServerInfo takes both from the same VersionInfoInterface as
// buildInfo), so a tool comparing them sees one server: "7.0.0", not
// the engine's own "0.1.0". Checked for a find, an update, a delete
// and an aggregate, whose replies are built in different places.
func TestExplainServerInfoIsBuildInfos(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	db := e.client(t, true).Database("app")
	if _, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	bi, err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	wantVersion := bi.Lookup("version").StringValue()
	wantGit := bi.Lookup("gitVersion").StringValue()
	if wantVersion != "7.0.0" {
		t.Fatalf("buildInfo.version = %q, want 7.0.0", wantVersion)
	}
	for _, inner := range []bson.D{
		{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "a", Value: 1}}}},
		{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: 1}}}}}}}}},
		{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 0}}}}},
		{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$a"}}}}}}, {Key: "cursor", Value: bson.D{}}},
	} {
		r, err := db.RunCommand(ctx, bson.D{{Key: "explain", Value: inner}}).Raw()
		if err != nil {
			t.Fatalf("%s: %v", inner[0].Key, err)
		}
		si, ok := r.Lookup("serverInfo").DocumentOK()
		if !ok {
			t.Fatalf("%s: no serverInfo in %v", inner[0].Key, r)
		}
		if v := si.Lookup("version").StringValue(); v != wantVersion {
			t.Errorf("%s: serverInfo.version = %q, buildInfo's %q", inner[0].Key, v, wantVersion)
		}
		if v := si.Lookup("gitVersion").StringValue(); v != wantGit {
			t.Errorf("%s: serverInfo.gitVersion = %q, buildInfo's %q", inner[0].Key, v, wantGit)
		}
	}
}
