package wire

import (
	"context"
	"github.com/ttlkv/ttlkv/document"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func withAuth(user, pwd, source string) func(*options.ClientOptions) {
	return func(o *options.ClientOptions) {
		o.SetAuth(options.Credential{Username: user, Password: pwd, AuthSource: source, AuthMechanism: "SCRAM-SHA-256"})
	}
}

func createUser(ctx context.Context, db *mongo.Database, name, pwd string, roles bson.A) error {
	return db.RunCommand(ctx, bson.D{{Key: "createUser", Value: name}, {Key: "pwd", Value: pwd}, {Key: "roles", Value: roles}}).Err()
}

func TestAuth(t *testing.T) {
	t.Parallel()
	transports(t, func(t *testing.T, inproc bool) {
		e := newEnv(t, Options{Auth: true})
		ctx := context.Background()
		anon := e.client(t, inproc)
		// Unauthenticated: ping and hello only.
		if err := anon.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
			t.Fatal(err)
		}
		_, err := anon.Database("app").Collection("c").InsertOne(ctx, bson.D{{Key: "a", Value: 1}})
		if cmdCode(t, err) != 13 {
			t.Fatalf("unauthenticated insert: %v", err)
		}
		// The localhost exception: the first user, in admin.
		if err := createUser(ctx, anon.Database("app"), "x", "y", bson.A{"read"}); cmdCode(t, err) != 13 {
			t.Fatalf("first user outside admin: %v", err)
		}
		if err := createUser(ctx, anon.Database("admin"), "boss", "s3cret", bson.A{"root"}); err != nil {
			t.Fatalf("first user: %v", err)
		}
		if err := createUser(ctx, anon.Database("admin"), "second", "x", bson.A{"root"}); cmdCode(t, err) != 13 {
			t.Fatalf("second user without authenticating: %v", err)
		}
		root := e.client(t, inproc, withAuth("boss", "s3cret", "admin"))
		if err := createUser(ctx, root.Database("app"), "reader", "r", bson.A{"read"}); err != nil {
			t.Fatal(err)
		}
		if err := createUser(ctx, root.Database("app"), "writer", "w", bson.A{"readWrite"}); err != nil {
			t.Fatal(err)
		}
		if err := createUser(ctx, root.Database("app"), "writer", "w", bson.A{"readWrite"}); cmdCode(t, err) != 51003 {
			t.Fatalf("duplicate user: %v", err)
		}
		if err := createUser(ctx, root.Database("app"), "bad", "w", bson.A{"superpowers"}); cmdCode(t, err) != 31 {
			t.Fatalf("unknown role: %v", err)
		}
		writer := e.client(t, inproc, withAuth("writer", "w", "app"))
		if _, err := writer.Database("app").Collection("c").InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
			t.Fatalf("readWrite insert: %v", err)
		}
		if _, err := writer.Database("other").Collection("c").InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); cmdCode(t, err) != 13 {
			t.Fatalf("readWrite on another db: %v", err)
		}
		reader := e.client(t, inproc, withAuth("reader", "r", "app"))
		root.Database("secret").Collection("c").InsertOne(ctx, bson.D{{Key: "a", Value: 1}})
		if names, err := reader.ListDatabaseNames(ctx, bson.D{}); err != nil || len(names) != 1 || names[0] != "app" {
			t.Fatalf("listDatabases for a reader of app: %v %v", names, err)
		}
		if names, err := root.ListDatabaseNames(ctx, bson.D{}); err != nil || len(names) < 3 {
			t.Fatalf("listDatabases for root: %v %v", names, err)
		}
		if n, err := reader.Database("app").Collection("c").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
			t.Fatalf("read count: %d %v", n, err)
		}
		if _, err := reader.Database("app").Collection("c").InsertOne(ctx, bson.D{{Key: "a", Value: 2}}); cmdCode(t, err) != 13 {
			t.Fatalf("read-only insert: %v", err)
		}
		if err := reader.Database("app").RunCommand(ctx, bson.D{{Key: "collMod", Value: "c"}}).Err(); cmdCode(t, err) != 13 {
			t.Fatalf("read-only collMod: %v", err)
		}
		// Wrong password, unknown user: 18.
		for _, cred := range [][2]string{{"reader", "wrong"}, {"nobody", "r"}} {
			bad := e.client(t, inproc, withAuth(cred[0], cred[1], "app"))
			err := bad.Database("app").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
			if err == nil || !strings.Contains(err.Error(), "Authentication failed") {
				t.Fatalf("%s/%s: %v", cred[0], cred[1], err)
			}
		}
		// SCRAM-SHA-1 is not offered: a known user and an unknown one
		// both fail with 18, so names cannot be told apart, as mongod
		// answers for users made with SCRAM-SHA-256 only. An empty
		// password is refused.
		for user, want := range map[string]string{"reader": "Authentication failed", "nobody": "Authentication failed"} {
			sha1 := e.client(t, inproc, func(o *options.ClientOptions) {
				o.SetAuth(options.Credential{Username: user, Password: "r", AuthSource: "app", AuthMechanism: "SCRAM-SHA-1"})
			})
			if err := sha1.Database("app").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("SCRAM-SHA-1 as %s: %v, want %q", user, err, want)
			}
		}
		if err := createUser(ctx, root.Database("app"), "empty", "", bson.A{"read"}); cmdCode(t, err) != 2 {
			t.Fatalf("empty password: %v", err)
		}
		// usersInfo shows no credentials; updateUser changes the password.
		var info struct{ Users []bson.M }
		if err := root.Database("app").RunCommand(ctx, bson.D{{Key: "usersInfo", Value: 1}}).Decode(&info); err != nil || len(info.Users) != 2 {
			t.Fatalf("usersInfo: %v %v", info, err)
		}
		if info.Users[0]["credentials"] != nil || info.Users[0]["user"] != "reader" {
			t.Fatalf("usersInfo shows %v", info.Users[0])
		}
		if err := root.Database("app").RunCommand(ctx, bson.D{{Key: "updateUser", Value: "reader"}, {Key: "pwd", Value: "new"}}).Err(); err != nil {
			t.Fatal(err)
		}
		if err := e.client(t, inproc, withAuth("reader", "new", "app")).Database("app").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
			t.Fatalf("new password: %v", err)
		}
		if err := root.Database("app").RunCommand(ctx, bson.D{{Key: "dropUser", Value: "reader"}}).Err(); err != nil {
			t.Fatal(err)
		}
		if err := root.Database("app").RunCommand(ctx, bson.D{{Key: "dropUser", Value: "reader"}}).Err(); cmdCode(t, err) != 11 {
			t.Fatalf("dropping a missing user: %v", err)
		}
		// The stored credential is salted and hashed, never the password.
		d, err := e.db.Database("admin").Collection("system.users").FindOne(ctx, bson.D{{Key: "_id", Value: "admin.boss"}})
		if err != nil || strings.Contains(bson.Raw(mustMarshal(t, d)).String(), "s3cret") {
			t.Fatalf("stored user %v %v", d, err)
		}
	})
}

// A user's customData is kept and shown by usersInfo, as mongod does;
// updateUser replaces it; another type is 14.
func TestUserCustomData(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Auth: true})
	ctx := context.Background()
	anon := e.client(t, false)
	if err := createUser(ctx, anon.Database("admin"), "boss", "s3cret", bson.A{"root"}); err != nil {
		t.Fatal(err)
	}
	root := e.client(t, false, withAuth("boss", "s3cret", "admin"))
	app := root.Database("app")
	run := func(cmd bson.D) bson.D {
		t.Helper()
		var r bson.D
		if err := app.RunCommand(ctx, cmd).Decode(&r); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
		return r
	}
	custom := func() any {
		t.Helper()
		r := run(bson.D{{Key: "usersInfo", Value: "bob"}})
		users, _ := lookup(r, "users").(bson.A)
		if len(users) != 1 {
			t.Fatalf("usersInfo: %v", r)
		}
		return lookup(users[0].(bson.D), "customData")
	}
	run(bson.D{{Key: "createUser", Value: "bob"}, {Key: "pwd", Value: "x"}, {Key: "roles", Value: bson.A{"read"}}, {Key: "customData", Value: bson.D{{Key: "team", Value: "ops"}}}})
	if got := custom(); !document.Equal(got, bson.D{{Key: "team", Value: "ops"}}) {
		t.Fatalf("customData %v", got)
	}
	run(bson.D{{Key: "updateUser", Value: "bob"}, {Key: "customData", Value: bson.D{{Key: "team", Value: "dev"}}}})
	if got := custom(); !document.Equal(got, bson.D{{Key: "team", Value: "dev"}}) {
		t.Fatalf("customData after updateUser %v", got)
	}
	err := app.RunCommand(ctx, bson.D{{Key: "updateUser", Value: "bob"}, {Key: "customData", Value: "x"}}).Err()
	if cmdCode(t, err) != 14 {
		t.Fatalf("a string customData: %v", err)
	}
}
