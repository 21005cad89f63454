package wire

// _mergeAuthzCollections, as mongorestore uses it: the users of a dump's
// admin.system.users, loaded into a temporary collection, join the
// server's (mongod 7.0: src/mongo/db/commands/user_management_commands.cpp;
// mongo-tools: mongorestore/metadata.go).

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// maCopyUsers copies from's admin.system.users into to's admin.tempusers,
// as mongorestore loads admin/system.users.bson.
func maCopyUsers(t *testing.T, from, to *mongo.Client) {
	t.Helper()
	ctx := context.Background()
	cur, err := from.Database("admin").Collection("system.users").Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.D
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	tmp := to.Database("admin").Collection("tempusers")
	for _, d := range docs {
		if _, err := tmp.InsertOne(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
}

func maMerge(to *mongo.Client, extra ...bson.E) error {
	cmd := append(bson.D{{Key: "_mergeAuthzCollections", Value: 1},
		{Key: "tempUsersCollection", Value: "admin.tempusers"}}, extra...)
	return to.Database("admin").RunCommand(context.Background(), cmd).Err()
}

// maLogin reports whether user@db logs in on s with pwd.
func maLogin(t *testing.T, s *ra26Srv, db, user, pwd string) bool {
	t.Helper()
	c := rawConn(t, s.addr)
	return ra26OK(ra26Login(t, c, db, user, pwd))
}

func maCode(err error) int32 {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return -1
}

// A dump's users restored into another server log in there with their
// old passwords and hold their old roles; a user the server has already
// is kept as it is without drop.
func TestMergeAuthzCollectionsRestoresUsers(t *testing.T) {
	t.Parallel()
	src, dst := ra26Setup(t), ra26Setup(t)
	ctx := context.Background()
	src.user(t, "app", "alice", "alicepw", "readWrite")
	src.user(t, "admin", "bob", "bobpw", "readAnyDatabase")
	src.user(t, "app", "kept", "newpw", "read")
	dst.user(t, "app", "kept", "oldpw", "read")
	maCopyUsers(t, src.root, dst.root)

	if err := maMerge(dst.root, bson.E{Key: "drop", Value: false}, bson.E{Key: "db", Value: ""},
		bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}); err != nil {
		t.Fatalf("_mergeAuthzCollections: %v", err)
	}
	if !maLogin(t, dst, "app", "alice", "alicepw") || !maLogin(t, dst, "admin", "bob", "bobpw") {
		t.Fatal("restored users cannot log in with their passwords")
	}
	if maLogin(t, dst, "app", "alice", "wrong") {
		t.Fatal("a restored user logs in with a wrong password")
	}
	if !maLogin(t, dst, "app", "kept", "oldpw") || maLogin(t, dst, "app", "kept", "newpw") {
		t.Fatal("without drop, the server's own kept@app should keep its password")
	}
	// The boss of each server is its own: the destination's still logs in.
	if !maLogin(t, dst, "admin", "boss", "s3cret") {
		t.Fatal("the destination's root no longer logs in")
	}

	// alice's readWrite on app came along.
	alice := dst.e.client(t, false, withAuth("alice", "alicepw", "app"))
	if _, err := alice.Database("app").Collection("c").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatalf("restored readWrite user's insert: %v", err)
	}
	if _, err := alice.Database("other").Collection("c").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); maCode(err) != 13 {
		t.Fatalf("restored user's insert outside its role: %v, want 13", err)
	}
	var info bson.D
	if err := dst.root.Database("app").RunCommand(ctx, bson.D{{Key: "usersInfo", Value: "alice"}}).Decode(&info); err != nil {
		t.Fatal(err)
	}
	users, _ := lookup(info, "users").(bson.A)
	if len(users) != 1 {
		t.Fatalf("usersInfo alice: %v", info)
	}
	u, _ := users[0].(bson.D)
	if lookup(u, "_id") != "app.alice" || lookup(u, "user") != "alice" || lookup(u, "db") != "app" {
		t.Fatalf("restored alice: %v", u)
	}
}

// With drop: true the restored databases' users are those of the dump:
// the server's others there are removed; db limits the merge (and the
// drop) to one database's users.
func TestMergeAuthzCollectionsDropAndDB(t *testing.T) {
	t.Parallel()
	src, dst := ra26Setup(t), ra26Setup(t)
	src.user(t, "app", "alice", "alicepw", "readWrite")
	src.user(t, "app", "kept", "newpw", "read")
	src.user(t, "other", "olga", "olgapw", "read")
	dst.user(t, "app", "carol", "carolpw", "read")
	dst.user(t, "app", "kept", "oldpw", "read")
	dst.user(t, "other", "dave", "davepw", "read")
	maCopyUsers(t, src.root, dst.root)

	if err := maMerge(dst.root, bson.E{Key: "drop", Value: true}, bson.E{Key: "db", Value: "app"}); err != nil {
		t.Fatalf("_mergeAuthzCollections: %v", err)
	}
	for _, c := range []struct {
		db, user, pwd string
		want          bool
	}{
		{"app", "alice", "alicepw", true}, // restored
		{"app", "kept", "newpw", true},    // replaced by the dump's
		{"app", "kept", "oldpw", false},
		{"app", "carol", "carolpw", false}, // not in the dump: dropped
		{"other", "dave", "davepw", true},  // another database: left
		{"other", "olga", "olgapw", false}, // another database: not restored
		{"admin", "boss", "s3cret", true},  // admin: left alone
	} {
		if got := maLogin(t, dst, c.db, c.user, c.pwd); got != c.want {
			t.Errorf("login %s@%s with %q: %v, want %v", c.user, c.db, c.pwd, got, c.want)
		}
	}
}

// The command's refusals: another database than admin, a user without
// root, no temporary collection, a malformed user, and user-defined
// roles ttlkv cannot hold; none changes the users.
func TestMergeAuthzCollectionsRefusals(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	s.user(t, "admin", "ua", "uapw", "userAdminAnyDatabase")
	admin := s.root.Database("admin")

	err := s.root.Database("app").RunCommand(ctx, bson.D{{Key: "_mergeAuthzCollections", Value: 1},
		{Key: "tempUsersCollection", Value: "admin.tempusers"}}).Err()
	if maCode(err) != 13 {
		t.Errorf("on app: %v, want 13", err)
	}
	ua := s.e.client(t, false, withAuth("ua", "uapw", "admin"))
	var ce mongo.CommandError
	if err := maMerge(ua); !errors.As(err, &ce) || ce.Code != 13 ||
		ce.Message != "Not authorized to update user/role data using _mergeAuthzCollections command" {
		t.Errorf("as userAdminAnyDatabase: %v, want mongod's 13 Unauthorized", err)
	}
	err = ua.Database("app").RunCommand(ctx, bson.D{{Key: "_mergeAuthzCollections", Value: 1}}).Err()
	if !errors.As(err, &ce) || ce.Code != 13 || ce.Message != "_mergeAuthzCollections may only be run against the admin database." {
		t.Errorf("as userAdminAnyDatabase on app: %v, want 13 admin only", err)
	}
	err = admin.RunCommand(ctx, bson.D{{Key: "_mergeAuthzCollections", Value: 1}, {Key: "drop", Value: false}}).Err()
	if !errors.As(err, &ce) || ce.Code != 2 || ce.Message != `Must provide at least one of "tempUsersCollection" and "tempRolescollection"` {
		t.Errorf("no collection: %v", err)
	}
	if err := maMerge(s.root, bson.E{Key: "drop", Value: 1}); maCode(err) != 14 {
		t.Errorf("drop: 1: %v, want 14 TypeMismatch", err)
	}

	if _, err := admin.Collection("tempusers").InsertOne(ctx, bson.D{{Key: "_id", Value: "app.x"}, {Key: "db", Value: "app"}}); err != nil {
		t.Fatal(err)
	}
	if err := maMerge(s.root, bson.E{Key: "drop", Value: true}); maCode(err) != 2 {
		t.Errorf("user without a name: %v, want 2 BadValue", err)
	}
	tmp := admin.Collection("tempusers")
	for _, bad := range []bson.D{
		{{Key: "user", Value: "x"}, {Key: "db", Value: "app"}, {Key: "credentials", Value: bson.D{}}, {Key: "roles", Value: bson.A{}}},
		{{Key: "user", Value: "x"}, {Key: "db", Value: "app"}, {Key: "roles", Value: bson.A{"read"}},
			{Key: "credentials", Value: bson.D{{Key: "SCRAM-SHA-256", Value: bson.D{{Key: "iterationCount", Value: "many"}}}}}},
	} {
		if _, err := tmp.DeleteMany(ctx, bson.D{}); err != nil {
			t.Fatal(err)
		}
		if _, err := tmp.InsertOne(ctx, bad); err != nil {
			t.Fatal(err)
		}
		if err := maMerge(s.root, bson.E{Key: "drop", Value: true}); maCode(err) != 2 {
			t.Errorf("user document %v: %v, want 2 BadValue", bad, err)
		}
	}
	if _, err := admin.Collection("temproles").InsertOne(ctx, bson.D{{Key: "_id", Value: "app.custom"},
		{Key: "role", Value: "custom"}, {Key: "db", Value: "app"}}); err != nil {
		t.Fatal(err)
	}
	err = admin.RunCommand(ctx, bson.D{{Key: "_mergeAuthzCollections", Value: 1},
		{Key: "tempRolesCollection", Value: "admin.temproles"}, {Key: "drop", Value: true}}).Err()
	if maCode(err) != 2 {
		t.Errorf("a user-defined role: %v, want 2 BadValue", err)
	}
	// Nothing changed: the users are still there.
	if !maLogin(t, s, "admin", "ua", "uapw") || !maLogin(t, s, "admin", "boss", "s3cret") {
		t.Error("a refused merge changed the users")
	}
}

// Without access control (the usual target of a restore) anyone may run
// the command, and the users restored are there for when it is turned
// on.
func TestMergeAuthzCollectionsWithoutAuth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, dst := newEnv(t, Options{}), newEnv(t, Options{})
	from, to := src.client(t, false), dst.client(t, false)
	if err := createUser(ctx, from.Database("app"), "alice", "alicepw", bson.A{"read"}); err != nil {
		t.Fatal(err)
	}
	maCopyUsers(t, from, to)
	if err := maMerge(to, bson.E{Key: "drop", Value: false}, bson.E{Key: "db", Value: ""}); err != nil {
		t.Fatalf("_mergeAuthzCollections: %v", err)
	}
	var got, want bson.D
	if err := to.Database("app").RunCommand(ctx, bson.D{{Key: "usersInfo", Value: "alice"}}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if err := from.Database("app").RunCommand(ctx, bson.D{{Key: "usersInfo", Value: "alice"}}).Decode(&want); err != nil {
		t.Fatal(err)
	}
	if g, w := lookup(got, "users"), lookup(want, "users"); !reflect.DeepEqual(g, w) {
		t.Errorf("restored usersInfo %v, want the source's %v", g, w)
	}
	// The stored document, credentials and all, is the source's.
	filter := bson.D{{Key: "_id", Value: "app.alice"}}
	if err := to.Database("admin").Collection("system.users").FindOne(ctx, filter).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if err := from.Database("admin").Collection("system.users").FindOne(ctx, filter).Decode(&want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("restored admin.system.users document %v, want the source's %v", got, want)
	}
	// As with mongod, credentials given to a server without access
	// control are checked: the driver's default mechanism (what
	// saslSupportedMechs names) logs the restored user in, and a wrong
	// password fails.
	for _, c := range []struct {
		pwd string
		ok  bool
	}{{"alicepw", true}, {"wrong", false}} {
		cl := dst.client(t, false, func(o *options.ClientOptions) {
			o.SetAuth(options.Credential{Username: "alice", Password: c.pwd, AuthSource: "app"})
		})
		err := cl.Database("app").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
		if (err == nil) != c.ok {
			t.Errorf("login as alice with %q on a server without access control: %v, want ok %v", c.pwd, err, c.ok)
		}
	}
}

// The restore role (of admin) is what mongorestore needs: it writes
// every database (local and config included) and merges users, without
// reading the data; it exists on admin only.
func TestMergeAuthzCollectionsRestoreRole(t *testing.T) {
	t.Parallel()
	src, dst := ra26Setup(t), ra26Setup(t)
	ctx := context.Background()
	src.user(t, "app", "alice", "alicepw", "readWrite")
	dst.user(t, "admin", "rs", "rspw", "restore")
	var ce mongo.CommandError
	err := createUser(ctx, dst.root.Database("app"), "x", "xpw", bson.A{"restore"})
	if !errors.As(err, &ce) || ce.Code != 31 || ce.Message != "Could not find role: restore@app" {
		t.Errorf("restore on app: %v, want 31 RoleNotFound", err)
	}
	maCopyUsers(t, src.root, dst.root)
	rs := dst.e.client(t, false, withAuth("rs", "rspw", "admin"))
	if err := maMerge(rs, bson.E{Key: "drop", Value: false}, bson.E{Key: "db", Value: ""}); err != nil {
		t.Fatalf("_mergeAuthzCollections as restore: %v", err)
	}
	if !maLogin(t, dst, "app", "alice", "alicepw") {
		t.Error("the user restored by a restore user cannot log in")
	}
	for _, db := range []string{"app", "config"} {
		if _, err := rs.Database(db).Collection("c").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
			t.Errorf("restore's insert into %s.c: %v", db, err)
		}
	}
	if err := rs.Database("admin").RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "authSchemaVersion", Value: 1}}).Err(); err != nil {
		t.Errorf("restore's getParameter: %v", err)
	}
	if err := rs.Database("app").Collection("c").FindOne(ctx, bson.D{}).Err(); maCode(err) != 13 {
		t.Errorf("restore's find: %v, want 13 Unauthorized", err)
	}
}

// A user restored from mongod keeps what ttlkv does not use (its userId,
// a SCRAM-SHA-1 credential) through later changes, and usersInfo lists
// its mechanisms as mongod does.
func TestMergeAuthzCollectionsMongodUser(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	cred, err := newCredential("pw")
	if err != nil {
		t.Fatal(err)
	}
	uid := bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}
	sha1 := bson.D{{Key: "iterationCount", Value: int32(10000)}, {Key: "salt", Value: "c2FsdA=="},
		{Key: "storedKey", Value: "a2V5"}, {Key: "serverKey", Value: "a2V5"}}
	doc := bson.D{{Key: "_id", Value: "app.m"}, {Key: "userId", Value: uid}, {Key: "user", Value: "m"}, {Key: "db", Value: "app"},
		{Key: "credentials", Value: bson.D{{Key: "SCRAM-SHA-1", Value: sha1}, {Key: "SCRAM-SHA-256", Value: cred}}},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "app"}}}}}
	if _, err := s.root.Database("admin").Collection("tempusers").InsertOne(ctx, doc); err != nil {
		t.Fatal(err)
	}
	if err := maMerge(s.root, bson.E{Key: "drop", Value: false}, bson.E{Key: "db", Value: ""}); err != nil {
		t.Fatalf("_mergeAuthzCollections: %v", err)
	}
	if !maLogin(t, s, "app", "m", "pw") {
		t.Fatal("a user restored from mongod cannot log in")
	}
	app := s.root.Database("app")
	for _, cmd := range []bson.D{
		{{Key: "grantRolesToUser", Value: "m"}, {Key: "roles", Value: bson.A{"readWrite"}}},
		{{Key: "updateUser", Value: "m"}, {Key: "customData", Value: bson.D{{Key: "team", Value: "x"}}}},
	} {
		if err := app.RunCommand(ctx, cmd).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	var got bson.D
	if err := s.root.Database("admin").Collection("system.users").FindOne(ctx, bson.D{{Key: "_id", Value: "app.m"}}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	cr, _ := lookup(got, "credentials").(bson.D)
	if !reflect.DeepEqual(lookup(got, "userId"), uid) || !reflect.DeepEqual(lookup(cr, "SCRAM-SHA-1"), sha1) {
		t.Errorf("after grantRolesToUser and updateUser: %v, want userId and SCRAM-SHA-1 kept", got)
	}
	var info bson.D
	if err := app.RunCommand(ctx, bson.D{{Key: "usersInfo", Value: "m"}}).Decode(&info); err != nil {
		t.Fatal(err)
	}
	users, _ := lookup(info, "users").(bson.A)
	u, _ := users[0].(bson.D)
	if m := lookup(u, "mechanisms"); !reflect.DeepEqual(m, bson.A{"SCRAM-SHA-1", "SCRAM-SHA-256"}) {
		t.Errorf("usersInfo mechanisms %v, want [SCRAM-SHA-1 SCRAM-SHA-256]", m)
	}
	if !maLogin(t, s, "app", "m", "pw") {
		t.Error("after the changes the user cannot log in")
	}
}
