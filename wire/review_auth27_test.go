package wire

// The tests of the access-control review (session 26) that failed on
// main, and connectionStatus {showPrivileges: true} from the review of
// the administrative commands; each asserts what mongod 7.0 answers
// (mongodb/mongo: src/mongo/db/commands/user_management_commands.cpp,
// src/mongo/db/auth/). The helpers (ra26Setup, ra26Run, ...) are in
// review_auth26_test.go.

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Before authenticating, a command mongod does not know is 59
// CommandNotFound: the command is looked up before its authorization is
// checked (service_entry_point_common.cpp: "no such command: 'foo'").
// A command it knows is still 13 without a user.
func TestReviewAuth26UnknownCommandBeforeAuthentication(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	c := rawConn(t, s.addr)
	r := ra26Run(t, c, "admin", bson.D{{Key: "noSuchCommandAtAll", Value: 1}})
	if ra26Code(r) != 59 || ra26Msg(r) != "no such command: 'noSuchCommandAtAll'" {
		t.Errorf("unauthenticated unknown command: %v; mongod: 59 no such command: 'noSuchCommandAtAll'", r)
	}
	r = ra26Run(t, c, "app", bson.D{{Key: "find", Value: "c"}})
	if ra26Code(r) != 13 || ra26Msg(r) != "Command find requires authentication" {
		t.Errorf("unauthenticated find: %v; mongod: 13 Command find requires authentication", r)
	}
}

// ra27Inprog is the user@db of each operation of a currentOp reply
// (inprog) or of a $currentOp aggregate's first batch, "" for one
// without effectiveUsers, and whether one is a getMore.
func ra27Inprog(r bson.D) (users []string, getMore bool) {
	ops, _ := lookup(r, "inprog").(bson.A)
	if cur, ok := lookup(r, "cursor").(bson.D); ok {
		ops, _ = lookup(cur, "firstBatch").(bson.A)
	}
	for _, o := range ops {
		d, _ := o.(bson.D)
		name := ""
		if eu, _ := lookup(d, "effectiveUsers").(bson.A); len(eu) == 1 {
			u, _ := eu[0].(bson.D)
			name = fmt.Sprintf("%v@%v", lookup(u, "user"), lookup(u, "db"))
		}
		users = append(users, name)
		if cmd, _ := lookup(d, "command").(bson.D); len(cmd) > 0 && cmd[0].Key == "getMore" {
			getMore = true
		}
	}
	return users, getMore
}

// A user may always list its own operations: currentOp with $ownOps:
// true needs no privilege (commands/current_op.cpp checkAuthForOperation:
// inprog, or an authenticated user with $ownOps), nor does
// $currentOp {allUsers: false} (document_source_current_op.cpp
// requiredPrivileges: inprog only with allUsers). Both list the
// operations of connections logged in as the same user only
// (AuthorizationSession::isCoauthorizedWithClient); currentOp without
// $ownOps, and $currentOp with allUsers, still need inprog (13), which
// readAnyDatabase does not have.
func TestReviewAuth26CurrentOpOwnOps(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	s.user(t, "app", "reader", "pw", "read")
	reader := s.conn(t, "app", "reader", "pw")
	boss := s.conn(t, "admin", "boss", "s3cret")

	// A getMore of boss's that waits for data until the test ends it.
	app := s.root.Database("app")
	if err := app.CreateCollection(ctx, "log", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<16)); err != nil {
		t.Fatal(err)
	}
	app.Collection("log").InsertOne(ctx, bson.D{{Key: "i", Value: 0}})
	var fr struct{ Cursor struct{ ID int64 } }
	if err := app.RunCommand(ctx, bson.D{{Key: "find", Value: "log"}, {Key: "tailable", Value: true}, {Key: "awaitData", Value: true}}).Decode(&fr); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- app.RunCommand(ctx, bson.D{{Key: "getMore", Value: fr.Cursor.ID}, {Key: "collection", Value: "log"}, {Key: "maxTimeMS", Value: 60000}}).Err()
	}()
	seen := false
	for i := 0; i < 20000 && !seen; i++ {
		var users []string
		users, seen = ra27Inprog(ra26Run(t, boss, "admin", bson.D{{Key: "currentOp", Value: 1}}))
		if seen && !reflect.DeepEqual(users, []string{"boss@admin", "boss@admin"}) {
			t.Errorf("root's currentOp: operations of %v; want boss@admin's getMore and currentOp", users)
		}
	}
	if !seen {
		t.Fatal("boss's waiting getMore never showed in currentOp")
	}

	r := ra26Run(t, reader, "admin", bson.D{{Key: "currentOp", Value: 1}, {Key: "$ownOps", Value: true}})
	if users, getMore := ra27Inprog(r); !ra26OK(r) || getMore || !reflect.DeepEqual(users, []string{"reader@app"}) {
		t.Errorf("currentOp {$ownOps: true} by a reader: %v; mongod: its own currentOp alone", r)
	}
	r = ra26Run(t, reader, "admin", bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$currentOp", Value: bson.D{{Key: "allUsers", Value: false}}}}}}, {Key: "cursor", Value: bson.D{}}})
	if users, getMore := ra27Inprog(r); !ra26OK(r) || getMore || !reflect.DeepEqual(users, []string{"reader@app"}) {
		t.Errorf("$currentOp {allUsers: false} by a reader: %v; mongod: its own aggregate alone", r)
	}
	r = ra26Run(t, boss, "admin", bson.D{{Key: "currentOp", Value: 1}, {Key: "$ownOps", Value: true}})
	if users, getMore := ra27Inprog(r); !getMore || len(users) != 2 {
		t.Errorf("currentOp {$ownOps: true} by boss: %v; mongod: boss's getMore and currentOp", r)
	}
	r = ra26Run(t, reader, "admin", bson.D{{Key: "currentOp", Value: 1}})
	if ra26Code(r) != 13 {
		t.Errorf("currentOp by a reader: %v; mongod: 13 (inprog on the cluster)", r)
	}
	s.user(t, "admin", "any", "pw", "readAnyDatabase")
	r = ra26Run(t, s.conn(t, "admin", "any", "pw"), "admin", bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$currentOp", Value: bson.D{{Key: "allUsers", Value: true}}}}}}, {Key: "cursor", Value: bson.D{}}})
	if ra26Code(r) != 13 {
		t.Errorf("$currentOp {allUsers: true} by readAnyDatabase: %v; mongod: 13 (inprog on the cluster)", r)
	}

	app.Collection("log").InsertOne(ctx, bson.D{{Key: "i", Value: 1}}) // ends the getMore
	if err := <-done; err != nil {
		t.Errorf("boss's getMore: %v", err)
	}
}

// usersInfo {forAllDBs: true} lists the users of every database, by
// user then database, for a user with viewUser on the cluster (root):
// mongod's usersInfo (user_management_commands.cpp, UMCInfoCommandArg
// isAllForAllDBs; the lookup sorts on {user: 1, db: 1}). Others are 13
// "Not authorized to view users from all databases"
// (authorization_checks.cpp).
func TestReviewAuth26UsersInfoForAllDBs(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	s.user(t, "app", "reader", "pw", "read")
	s.user(t, "zoo", "alice", "pw", "read")
	s.user(t, "app", "zed", "pw", "userAdmin")
	c := s.conn(t, "admin", "boss", "s3cret")
	r := ra26Run(t, c, "admin", bson.D{{Key: "usersInfo", Value: bson.D{{Key: "forAllDBs", Value: true}}}})
	var got []string
	users, _ := lookup(r, "users").(bson.A)
	for _, u := range users {
		d, _ := u.(bson.D)
		got = append(got, fmt.Sprintf("%v@%v", lookup(d, "user"), lookup(d, "db")))
		if lookup(d, "credentials") != nil {
			t.Errorf("usersInfo shows credentials: %v", d)
		}
	}
	if want := []string{"alice@zoo", "boss@admin", "reader@app", "zed@app"}; !ra26OK(r) || !reflect.DeepEqual(got, want) {
		t.Errorf("usersInfo {forAllDBs: true} by root: %v (%v); mongod lists %v", got, r, want)
	}
	zed := s.conn(t, "app", "zed", "pw")
	r = ra26Run(t, zed, "app", bson.D{{Key: "usersInfo", Value: bson.D{{Key: "forAllDBs", Value: true}}}})
	if ra26Code(r) != 13 || ra26Msg(r) != "Not authorized to view users from all databases" {
		t.Errorf("usersInfo {forAllDBs: true} by a userAdmin of app: %v; mongod: 13 Not authorized to view users from all databases", r)
	}
}

// createUser and updateUser check their arguments
// (user_management_commands.cpp typedRun): an empty mechanisms array is 2
// "mechanisms field must not be empty", an updateUser that changes
// nothing is 2 "Must specify at least one field to update in updateUser",
// a user of the local database is 2 "Cannot create users in the local
// database".
func TestReviewAuth26UserManagementArgumentChecks(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	c := s.conn(t, "admin", "boss", "s3cret")
	for _, tc := range []struct {
		db   string
		cmd  bson.D
		want string
	}{
		{"app", bson.D{{Key: "createUser", Value: "m"}, {Key: "pwd", Value: "x"}, {Key: "roles", Value: bson.A{}}, {Key: "mechanisms", Value: bson.A{}}}, "mechanisms field must not be empty"},
		{"admin", bson.D{{Key: "updateUser", Value: "boss"}, {Key: "mechanisms", Value: bson.A{}}}, "mechanisms field must not be empty"},
		{"admin", bson.D{{Key: "updateUser", Value: "boss"}}, "Must specify at least one field to update in updateUser"},
		{"local", bson.D{{Key: "createUser", Value: "l"}, {Key: "pwd", Value: "x"}, {Key: "roles", Value: bson.A{}}}, "Cannot create users in the local database"},
		{"app", bson.D{{Key: "createUser", Value: "nopwd"}, {Key: "roles", Value: bson.A{}}}, "Must provide a 'pwd' field for all user documents, except those with '$external' as the user's source db"},
		{"$external", bson.D{{Key: "createUser", Value: "x"}, {Key: "pwd", Value: "x"}, {Key: "roles", Value: bson.A{}}}, "Cannot set the password for users defined on the '$external' database"},
	} {
		r := ra26Run(t, c, tc.db, tc.cmd)
		if ra26Code(r) != 2 || ra26Msg(r) != tc.want {
			t.Errorf("%v on %s: %v; mongod: 2 %s", tc.cmd, tc.db, r, tc.want)
		}
	}
	// createUser's parser requires roles before the command checks
	// anything else.
	r := ra26Run(t, c, "app", bson.D{{Key: "createUser", Value: "noroles"}})
	if ra26Code(r) != 40414 || ra26Msg(r) != "BSON field 'createUser.roles' is missing but a required field" {
		t.Errorf("createUser without roles or pwd: %v; mongod: 40414 BSON field 'createUser.roles' is missing but a required field", r)
	}
	if r := ra26Run(t, c, "app", bson.D{{Key: "usersInfo", Value: "m"}}); len(lookup(r, "users").(bson.A)) != 0 {
		t.Errorf("a refused createUser made its user: %v", r)
	}
}

// ra27Roles is the role@db list of one user, as usersInfo shows it.
func ra27Roles(t *testing.T, r bson.D) []string {
	t.Helper()
	users, _ := lookup(r, "users").(bson.A)
	if len(users) != 1 {
		t.Fatalf("usersInfo: %v", r)
	}
	roles, _ := lookup(users[0].(bson.D), "roles").(bson.A)
	out := []string{}
	for _, x := range roles {
		d, _ := x.(bson.D)
		out = append(out, fmt.Sprintf("%v@%v", lookup(d, "role"), lookup(d, "db")))
	}
	return out
}

// grantRolesToUser and revokeRolesFromUser (mongosh's db.grantRolesToUser
// and db.revokeRolesFromUser) add and remove roles
// (user_management_commands.cpp): a role held already, or not held, is
// no error; the roles must exist (31), the user too (11), the array must
// not be empty (2). Granting needs grantRole on each role's database,
// revoking revokeRole there (authorization_checks.cpp
// checkAuthorizedToGrantRoles/RevokeRoles: 13 "Not authorized to grant
// role: root@admin"). The change applies to connections already logged
// in as the user: mongod invalidates the user in its cache and the
// session reads it again before its next command.
func TestReviewAuth26GrantAndRevokeRolesToUser(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	s.user(t, "app", "reader", "pw", "read")
	s.user(t, "app", "ua", "pw", "userAdmin")
	c := s.conn(t, "admin", "boss", "s3cret")
	reader := s.conn(t, "app", "reader", "pw")
	insert := bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}}
	if r := ra26Run(t, reader, "app", insert); ra26Code(r) != 13 {
		t.Fatalf("insert by a reader: %v; want 13", r)
	}
	info := bson.D{{Key: "usersInfo", Value: "reader"}}

	r := ra26Run(t, c, "app", bson.D{{Key: "grantRolesToUser", Value: "reader"}, {Key: "roles", Value: bson.A{"readWrite", ra26Role("read", "app")}}})
	if !ra26OK(r) {
		t.Errorf("grantRolesToUser: %v; mongod: ok", r)
	}
	if got := ra27Roles(t, ra26Run(t, c, "app", info)); !reflect.DeepEqual(got, []string{"read@app", "readWrite@app"}) {
		t.Errorf("roles after grantRolesToUser readWrite: %v; want read@app readWrite@app", got)
	}
	if r := ra26Run(t, reader, "app", insert); !ra26OK(r) {
		t.Errorf("insert by the reader's connection after readWrite was granted: %v; mongod: ok", r)
	}

	r = ra26Run(t, c, "app", bson.D{{Key: "revokeRolesFromUser", Value: "reader"}, {Key: "roles", Value: bson.A{"readWrite", "dbAdmin"}}})
	if !ra26OK(r) {
		t.Errorf("revokeRolesFromUser: %v; mongod: ok", r)
	}
	if got := ra27Roles(t, ra26Run(t, c, "app", info)); !reflect.DeepEqual(got, []string{"read@app"}) {
		t.Errorf("roles after revokeRolesFromUser readWrite: %v; want read@app", got)
	}
	if r := ra26Run(t, reader, "app", insert); ra26Code(r) != 13 {
		t.Errorf("insert by the reader's connection after readWrite was revoked: %v; mongod: 13", r)
	}

	for _, tc := range []struct {
		cmd  bson.D
		code int32
		msg  string
	}{
		{bson.D{{Key: "grantRolesToUser", Value: "reader"}, {Key: "roles", Value: bson.A{}}}, 2, `grantRolesToUser command requires a non-empty "roles" array`},
		{bson.D{{Key: "revokeRolesFromUser", Value: "reader"}, {Key: "roles", Value: bson.A{}}}, 2, `revokeRolesFromUser command requires a non-empty "roles" array`},
		{bson.D{{Key: "grantRolesToUser", Value: "reader"}}, 40414, "BSON field 'grantRolesToUser.roles' is missing but a required field"},
		{bson.D{{Key: "grantRolesToUser", Value: "nobody"}, {Key: "roles", Value: bson.A{"read"}}}, 11, `Could not find user "nobody" for db "app"`},
		{bson.D{{Key: "grantRolesToUser", Value: "reader"}, {Key: "roles", Value: bson.A{"noSuchRole"}}}, 31, "Could not find role: noSuchRole@app"},
	} {
		if r := ra26Run(t, c, "app", tc.cmd); ra26Code(r) != tc.code || ra26Msg(r) != tc.msg {
			t.Errorf("%v: %v; mongod: %d %s", tc.cmd, r, tc.code, tc.msg)
		}
	}

	ua := s.conn(t, "app", "ua", "pw")
	if r := ra26Run(t, ua, "app", bson.D{{Key: "grantRolesToUser", Value: "reader"}, {Key: "roles", Value: bson.A{"readWrite"}}}); !ra26OK(r) {
		t.Errorf("a userAdmin of app grants readWrite@app: %v; mongod: ok", r)
	}
	if r := ra26Run(t, ua, "app", bson.D{{Key: "grantRolesToUser", Value: "ua"}, {Key: "roles", Value: bson.A{ra26Role("root", "admin")}}}); ra26Code(r) != 13 || ra26Msg(r) != "Not authorized to grant role: root@admin" {
		t.Errorf("a userAdmin of app grants itself root: %v; mongod: 13 Not authorized to grant role: root@admin", r)
	}
	if r := ra26Run(t, reader, "app", bson.D{{Key: "revokeRolesFromUser", Value: "reader"}, {Key: "roles", Value: bson.A{"read"}}}); ra26Code(r) != 13 || ra26Msg(r) != "Not authorized to revoke role: read@app" {
		t.Errorf("a reader revokes its own role: %v; mongod: 13 Not authorized to revoke role: read@app", r)
	}
}

// A dropped user's connections are no longer authenticated: mongod
// invalidates the user and the session, finding it gone, logs it out
// before the next command.
func TestReviewAuth27DroppedUserLosesConnection(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	s.user(t, "app", "reader", "pw", "read")
	reader := s.conn(t, "app", "reader", "pw")
	c := s.conn(t, "admin", "boss", "s3cret")
	if r := ra26Run(t, c, "app", bson.D{{Key: "dropUser", Value: "reader"}}); !ra26OK(r) {
		t.Fatalf("dropUser: %v", r)
	}
	if got := ra26Users(ra26Run(t, reader, "admin", bson.D{{Key: "connectionStatus", Value: 1}})); len(got) != 0 {
		t.Errorf("connectionStatus of a dropped user's connection: %v; mongod: no user", got)
	}
	if r := ra26Run(t, reader, "app", bson.D{{Key: "find", Value: "c"}}); ra26Code(r) != 13 || ra26Msg(r) != "Command find requires authentication" {
		t.Errorf("find on a dropped user's connection: %v; mongod: 13 Command find requires authentication", r)
	}
}

// connectionStatus {showPrivileges: true} adds
// authInfo.authenticatedUserPrivileges (an array, empty without users).
// mongod: src/mongo/db/commands/connection_status.idl
// (authenticatedUserPrivileges: array<Privilege>, optional, filled when
// showPrivileges), connection_status.cpp.
func TestReviewAdmin26ConnectionStatusShowPrivileges(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	admin := e.client(t, true).Database("admin")
	var r bson.D
	if err := admin.RunCommand(context.Background(), bson.D{{Key: "connectionStatus", Value: 1}, {Key: "showPrivileges", Value: true}}).Decode(&r); err != nil {
		t.Fatal(err)
	}
	info, _ := lookup(r, "authInfo").(bson.D)
	if privs, ok := lookup(info, "authenticatedUserPrivileges").(bson.A); !ok || len(privs) != 0 {
		t.Errorf("connectionStatus {showPrivileges: true}: authInfo %v; mongod: an empty authenticatedUserPrivileges array", info)
	}
}

// With a user, the privileges are those of its roles, one entry per
// resource (builtin_roles.yml: read is its actions on the database and
// on its system.js); showPrivileges is a safeBool (a number is read as
// true or false, a string is 14).
func TestReviewAuth27ConnectionStatusPrivilegesOfRead(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	s.user(t, "app", "reader", "pw", "read")
	reader := s.conn(t, "app", "reader", "pw")
	r := ra26Run(t, reader, "admin", bson.D{{Key: "connectionStatus", Value: 1}, {Key: "showPrivileges", Value: int32(1)}})
	info, _ := lookup(r, "authInfo").(bson.D)
	privs, _ := lookup(info, "authenticatedUserPrivileges").(bson.A)
	acts := bson.A{"changeStream", "collStats", "dbHash", "dbStats", "find", "killCursors", "listCollections", "listIndexes", "listSearchIndexes", "planCacheRead"}
	want := bson.A{
		bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "app"}, {Key: "collection", Value: ""}}}, {Key: "actions", Value: acts}},
		bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "app"}, {Key: "collection", Value: "system.js"}}}, {Key: "actions", Value: acts}},
	}
	if fmt.Sprint(privs) != fmt.Sprint(want) {
		t.Errorf("a reader's privileges: %v; want %v", privs, want)
	}
	r = ra26Run(t, reader, "admin", bson.D{{Key: "connectionStatus", Value: 1}, {Key: "showPrivileges", Value: 0.0}})
	if info, _ := lookup(r, "authInfo").(bson.D); lookup(info, "authenticatedUserPrivileges") != nil {
		t.Errorf("connectionStatus {showPrivileges: 0}: %v; mongod: no privileges", r)
	}
	r = ra26Run(t, reader, "admin", bson.D{{Key: "connectionStatus", Value: 1}, {Key: "showPrivileges", Value: "yes"}})
	if ra26Code(r) != 14 || ra26Msg(r) != "BSON field 'connectionStatus.showPrivileges' is the wrong type 'string', expected types '[bool, long, int, decimal, double]'" {
		t.Errorf("connectionStatus {showPrivileges: \"yes\"}: %v; mongod: 14", r)
	}
}
