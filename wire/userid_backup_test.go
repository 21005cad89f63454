package wire

// createUser's userId and the backup role, as mongod 7.0 has them
// (src/mongo/db/commands/user_management_commands.cpp: the user document
// createUser writes; src/mongo/db/auth/builtin_roles.cpp: backup and
// __queryableBackup).

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func uiKeys(d bson.D) []string {
	keys := make([]string, len(d))
	for i, e := range d {
		keys[i] = e.Key
	}
	return keys
}

// createUser stores a userId (a UUID) after _id, usersInfo shows it in
// the stored order without credentials, and a user created again under a
// dropped one's name gets a new one; updateUser keeps it.
func TestCreateUserUserID(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	app := s.root.Database("app")
	if err := app.RunCommand(ctx, bson.D{{Key: "createUser", Value: "alice"}, {Key: "pwd", Value: "pw"},
		{Key: "customData", Value: bson.D{{Key: "team", Value: "x"}}}, {Key: "roles", Value: bson.A{"read"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	var stored bson.D
	if err := s.root.Database("admin").Collection("system.users").FindOne(ctx, bson.D{{Key: "_id", Value: "app.alice"}}).Decode(&stored); err != nil {
		t.Fatal(err)
	}
	if got, want := uiKeys(stored), []string{"_id", "userId", "user", "db", "credentials", "customData", "roles"}; !reflect.DeepEqual(got, want) {
		t.Errorf("stored user's fields %v, want %v", got, want)
	}
	usersInfo := func() bson.D {
		t.Helper()
		var r struct{ Users []bson.D }
		if err := app.RunCommand(ctx, bson.D{{Key: "usersInfo", Value: "alice"}}).Decode(&r); err != nil || len(r.Users) != 1 {
			t.Fatalf("usersInfo: %v %v", err, r.Users)
		}
		return r.Users[0]
	}
	u := usersInfo()
	if got, want := uiKeys(u), []string{"_id", "userId", "user", "db", "customData", "roles", "mechanisms"}; !reflect.DeepEqual(got, want) {
		t.Errorf("usersInfo's fields %v, want %v", got, want)
	}
	id, ok := u[1].Value.(bson.Binary)
	if !ok || id.Subtype != bson.TypeBinaryUUID || len(id.Data) != 16 || id.Data[6]>>4 != 4 {
		t.Fatalf("userId %#v, want a version 4 UUID", u[1].Value)
	}
	if err := app.RunCommand(ctx, bson.D{{Key: "updateUser", Value: "alice"}, {Key: "pwd", Value: "pw2"}, {Key: "roles", Value: bson.A{"readWrite"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	if again := usersInfo()[1].Value; !reflect.DeepEqual(again, id) {
		t.Errorf("updateUser changed userId: %v, was %v", again, id)
	}
	if err := app.RunCommand(ctx, bson.D{{Key: "dropUser", Value: "alice"}}).Err(); err != nil {
		t.Fatal(err)
	}
	s.user(t, "app", "alice", "pw", "read")
	if again := usersInfo()[1].Value; reflect.DeepEqual(again, id) {
		t.Errorf("a user created again kept the dropped one's userId %v", id)
	}
}

// A backup user reads what mongodump reads: every database's
// collections and indexes (local and config too), admin.system.users
// with credentials, the auth schema version and the database list; it
// writes nothing, and backup is a role of admin only.
func TestBackupRoleReadsWhatMongodumpReads(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	s.user(t, "app", "alice", "alicepw", "readWrite")
	s.user(t, "admin", "bk", "bkpw", "backup")
	err := createUser(ctx, s.root.Database("app"), "x", "xpw", bson.A{"backup"})
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 31 || ce.Message != "Could not find role: backup@app" {
		t.Errorf("backup on app: %v, want 31 RoleNotFound", err)
	}
	for _, ns := range [][2]string{{"app", "c"}, {"local", "l"}, {"config", "k"}} {
		if _, err := s.root.Database(ns[0]).Collection(ns[1]).InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	bk := s.e.client(t, false, withAuth("bk", "bkpw", "admin"))

	// Every collection, local's and config's too.
	for _, ns := range [][2]string{{"app", "c"}, {"local", "l"}, {"config", "k"}} {
		c := bk.Database(ns[0]).Collection(ns[1])
		if err := c.FindOne(ctx, bson.D{}).Err(); err != nil {
			t.Errorf("backup's find on %s.%s: %v", ns[0], ns[1], err)
		}
		if n, err := c.CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
			t.Errorf("backup's count on %s.%s: %d %v", ns[0], ns[1], n, err)
		}
		if _, err := c.Indexes().ListSpecifications(ctx); err != nil {
			t.Errorf("backup's listIndexes on %s.%s: %v", ns[0], ns[1], err)
		}
		if names, err := bk.Database(ns[0]).ListCollectionNames(ctx, bson.D{}); err != nil || len(names) == 0 {
			t.Errorf("backup's listCollections on %s: %v %v", ns[0], names, err)
		}
		if err := bk.Database(ns[0]).RunCommand(ctx, bson.D{{Key: "collStats", Value: ns[1]}}).Err(); err != nil {
			t.Errorf("backup's collStats on %s.%s: %v", ns[0], ns[1], err)
		}
	}
	// The users as stored, credentials included, as mongodump dumps them.
	cur, err := bk.Database("admin").Collection("system.users").Find(ctx, bson.D{{Key: "db", Value: "app"}})
	if err != nil {
		t.Fatalf("backup's find on admin.system.users: %v", err)
	}
	var users []bson.D
	if err := cur.All(ctx, &users); err != nil || len(users) != 1 {
		t.Fatalf("admin.system.users for app: %v %v", users, err)
	}
	if cr, ok := lookup(users[0], "credentials").(bson.D); !ok || lookup(cr, "SCRAM-SHA-256") == nil {
		t.Errorf("backup reads alice without her credentials: %v", users[0])
	}
	lk := bson.A{bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "system.users"}, {Key: "localField", Value: "u"},
		{Key: "foreignField", Value: "_id"}, {Key: "as", Value: "users"}}}}}
	if _, err := s.root.Database("admin").Collection("c").InsertOne(ctx, bson.D{{Key: "u", Value: "app.alice"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := bk.Database("admin").Collection("c").Aggregate(ctx, lk); err != nil {
		t.Errorf("backup's $lookup from admin.system.users: %v", err)
	}
	if err := bk.Database("admin").RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "authSchemaVersion", Value: 1}}).Err(); err != nil {
		t.Errorf("backup's getParameter: %v", err)
	}
	if err := bk.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Err(); err != nil {
		t.Errorf("backup's serverStatus: %v", err)
	}
	dbs, err := bk.ListDatabaseNames(ctx, bson.D{})
	if err != nil || !slicesHas(dbs, "app") || !slicesHas(dbs, "local") || !slicesHas(dbs, "config") {
		t.Errorf("backup's listDatabases: %v %v", dbs, err)
	}

	// No writes anywhere, no user administration.
	app := bk.Database("app")
	refused := map[string]error{}
	_, refused["insert"] = app.Collection("c").InsertOne(ctx, bson.D{{Key: "x", Value: 2}})
	_, refused["update"] = app.Collection("c").UpdateOne(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 3}}}})
	_, refused["delete"] = app.Collection("c").DeleteOne(ctx, bson.D{})
	refused["drop"] = app.Collection("c").Drop(ctx)
	refused["create"] = app.CreateCollection(ctx, "d")
	_, refused["insert config"] = bk.Database("config").Collection("k").InsertOne(ctx, bson.D{})
	_, refused["insert admin.system.users"] = bk.Database("admin").Collection("system.users").InsertOne(ctx, bson.D{{Key: "_id", Value: "app.eve"}})
	_, refused["$out"] = app.Collection("c").Aggregate(ctx, bson.A{bson.D{{Key: "$out", Value: "copy"}}})
	refused["createUser"] = createUser(ctx, app, "eve", "evepw", bson.A{"read"})
	refused["usersInfo"] = app.RunCommand(ctx, bson.D{{Key: "usersInfo", Value: "alice"}}).Err()
	refused["dropDatabase"] = app.Drop(ctx)
	for what, err := range refused {
		if maCode(err) != 13 {
			t.Errorf("backup's %s: %v, want 13 Unauthorized", what, err)
		}
	}
	if n, _ := s.root.Database("app").Collection("c").CountDocuments(ctx, bson.D{{Key: "x", Value: 1}}); n != 1 {
		t.Errorf("app.c changed under a backup user: %d documents with x 1", n)
	}
}

func slicesHas(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
