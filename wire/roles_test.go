package wire

// User-defined roles, as mongod 7.0 has them
// (src/mongo/db/commands/user_management_commands.cpp,
// user_management_commands_common.cpp, src/mongo/db/auth/privilege.cpp,
// authz_manager_external_state_local.cpp; jstests/auth/role_management_commands*.js).

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func rlRun(db *mongo.Database, cmd bson.D) (bson.D, error) {
	var out bson.D
	err := db.RunCommand(context.Background(), cmd).Decode(&out)
	return out, err
}

// rlWant checks that err is the command error code/codeName/msg.
func rlWant(t *testing.T, what string, err error, code int32, name, msg string) {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) {
		t.Errorf("%s: %v, want %d %s %q", what, err, code, name, msg)
		return
	}
	if ce.Code != code || ce.Name != name || ce.Message != msg {
		t.Errorf("%s: %d %s %q, want %d %s %q", what, ce.Code, ce.Name, ce.Message, code, name, msg)
	}
}

// rlSame compares documents by their extended JSON.
func rlSame(t *testing.T, what string, got, want any) {
	t.Helper()
	g, err1 := bson.MarshalExtJSON(bson.D{{Key: "v", Value: got}}, false, false)
	w, err2 := bson.MarshalExtJSON(bson.D{{Key: "v", Value: want}}, false, false)
	if err1 != nil || err2 != nil || string(g) != string(w) {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

func rlPriv(db, coll string, actions ...any) bson.D {
	return bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: db}, {Key: "collection", Value: coll}}},
		{Key: "actions", Value: append(bson.A{}, actions...)}}
}

func rlCreate(db *mongo.Database, name string, privs, roles bson.A) error {
	return db.RunCommand(context.Background(), bson.D{{Key: "createRole", Value: name},
		{Key: "privileges", Value: privs}, {Key: "roles", Value: roles}}).Err()
}

// createRole and the commands that change a role check their arguments
// as mongod does, with its codes and words.
func TestRoleCommandErrors(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	app := s.root.Database("app")
	if err := rlCreate(app, "clerk", bson.A{rlPriv("app", "c", "find")}, bson.A{}); err != nil {
		t.Fatal(err)
	}
	cluster := func(extra ...bson.E) bson.D {
		return append(bson.D{{Key: "cluster", Value: true}}, extra...)
	}
	priv := func(res bson.D, actions ...any) bson.A {
		return bson.A{bson.D{{Key: "resource", Value: res}, {Key: "actions", Value: bson.A(actions)}}}
	}
	for _, tc := range []struct {
		what      string
		db        string
		cmd       bson.D
		code      int32
		name, msg string
	}{
		{"again", "app", bson.D{{Key: "createRole", Value: "clerk"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}},
			51002, "Location51002", `Role "clerk@app" already exists`},
		{"built-in name", "app", bson.D{{Key: "createRole", Value: "readWrite"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "Cannot create roles with the same name as a built-in role"},
		{"enableSharding, a database role", "app", bson.D{{Key: "createRole", Value: "enableSharding"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "Cannot create roles with the same name as a built-in role"},
		{"admin built-in name", "admin", bson.D{{Key: "createRole", Value: "root"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "Cannot create roles with the same name as a built-in role"},
		{"local", "local", bson.D{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "Cannot create roles in the local database"},
		{"empty name", "app", bson.D{{Key: "createRole", Value: ""}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "Role name must be non-empty"},
		{"no privileges", "app", bson.D{{Key: "createRole", Value: "x"}, {Key: "roles", Value: bson.A{}}},
			40414, "Location40414", "BSON field 'createRole.privileges' is missing but a required field"},
		{"an unknown action", "app", bson.D{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: bson.A{rlPriv("app", "c", "find", "fly")}}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "Unknown action type in privilege set: 'fly'"},
		{"unknown actions", "app", bson.D{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: bson.A{rlPriv("app", "c", "swim", "fly"), rlPriv("app", "d", "fly")}}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "Unknown action types in privilege set: 'fly', 'swim'"},
		{"no actions", "app", bson.D{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: bson.A{rlPriv("app", "c")}}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "'actions' field of privilege resource must not be empty"},
		{"cluster with db", "admin", bson.D{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: priv(cluster(bson.E{Key: "db", Value: "a"}), "find")}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "resource: {cluster: true} conflicts with resource type 'db'"},
		{"cluster false", "admin", bson.D{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: priv(bson.D{{Key: "cluster", Value: false}}, "find")}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "resource: {cluster: false} must be true"},
		{"collection without db", "admin", bson.D{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: priv(bson.D{{Key: "collection", Value: "c"}}, "find")}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "resource {collection: '...'} must include 'db' field as well"},
		{"no resource kind", "admin", bson.D{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: priv(bson.D{{Key: "db", Value: "a"}}, "find")}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "resource pattern must contain 'collection' or 'systemBuckets' specifier"},
		{"bad collection", "admin", bson.D{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: bson.A{rlPriv("a", "b$c", "find")}}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "'b$c' is not a valid collection name"},
		{"another db's privilege", "app", bson.D{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: bson.A{rlPriv("other", "c", "find")}}, {Key: "roles", Value: bson.A{}}},
			49, "InvalidRoleModification", "Roles on the 'app' database cannot be granted privileges that target other databases or the cluster"},
		{"the cluster from app", "app", bson.D{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: priv(cluster(), "serverStatus")}, {Key: "roles", Value: bson.A{}}},
			49, "InvalidRoleModification", "Roles on the 'app' database cannot be granted privileges that target other databases or the cluster"},
		{"another db's role", "app", bson.D{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{ra26Role("read", "other")}}},
			49, "InvalidRoleModification", "Roles on the 'app' database cannot be granted roles from other databases"},
		{"a missing role", "app", bson.D{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{"nope"}}},
			31, "RoleNotFound", "Cannot grant roles to 'x@app': Could not find role: nope@app"},
		{"itself", "app", bson.D{{Key: "grantRolesToRole", Value: "clerk"}, {Key: "roles", Value: bson.A{"clerk"}}},
			49, "InvalidRoleModification", "Cannot grant role clerk@app to itself."},
		{"a built-in role changed", "app", bson.D{{Key: "grantRolesToRole", Value: "read"}, {Key: "roles", Value: bson.A{"clerk"}}},
			2, "BadValue", "read@app is a built-in role and cannot be modified"},
		{"no roles", "app", bson.D{{Key: "grantRolesToRole", Value: "clerk"}, {Key: "roles", Value: bson.A{}}},
			2, "BadValue", "grantRolesToRole command requires a non-empty \"roles\" array"},
		{"no privileges given", "app", bson.D{{Key: "grantPrivilegesToRole", Value: "clerk"}, {Key: "privileges", Value: bson.A{}}},
			2, "BadValue", "grantPrivilegesToRole command requires a non-empty \"privileges\" array"},
		{"grant to a missing role", "app", bson.D{{Key: "grantPrivilegesToRole", Value: "nope"}, {Key: "privileges", Value: bson.A{rlPriv("app", "c", "find")}}},
			31, "RoleNotFound", "Role nope@app not found"},
		{"revoke from a missing role", "app", bson.D{{Key: "revokeRolesFromRole", Value: "nope"}, {Key: "roles", Value: bson.A{"read"}}},
			31, "RoleNotFound", "Role nope@app not found"},
		{"drop a missing role", "app", bson.D{{Key: "dropRole", Value: "nope"}},
			31, "RoleNotFound", "Could not find role: nope@app"},
		{"drop a built-in role", "app", bson.D{{Key: "dropRole", Value: "read"}},
			2, "BadValue", "read@app is a built-in role and cannot be modified"},
		{"update nothing", "app", bson.D{{Key: "updateRole", Value: "clerk"}},
			2, "BadValue", "Must specify at least one field to update in updateRole"},
		{"update a missing role", "app", bson.D{{Key: "updateRole", Value: "nope"}, {Key: "roles", Value: bson.A{}}},
			31, "RoleNotFound", "Could not find role: nope@app"},
		{"a user given a missing role", "app", bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{"nope"}}},
			31, "RoleNotFound", "Could not find role: nope@app"},
		{"a user given two missing roles", "app", bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{"nope", "clerk", "none"}}},
			31, "RoleNotFound", "Could not find roles: nope@app, none@app"},
	} {
		rlWant(t, tc.what, s.root.Database(tc.db).RunCommand(ctx, tc.cmd).Err(), tc.code, tc.name, tc.msg)
	}
	// A cycle, however long, is refused.
	if err := rlCreate(app, "lead", bson.A{}, bson.A{"clerk"}); err != nil {
		t.Fatal(err)
	}
	if err := rlCreate(app, "chief", bson.A{}, bson.A{"lead"}); err != nil {
		t.Fatal(err)
	}
	err := app.RunCommand(ctx, bson.D{{Key: "grantRolesToRole", Value: "clerk"}, {Key: "roles", Value: bson.A{"chief"}}}).Err()
	rlWant(t, "a cycle", err, 49, "InvalidRoleModification", "Granting roles to clerk@app would introduce a cycle in the role graph")
	err = app.RunCommand(ctx, bson.D{{Key: "updateRole", Value: "clerk"}, {Key: "roles", Value: bson.A{"lead"}}}).Err()
	rlWant(t, "a cycle by updateRole", err, 49, "InvalidRoleModification", "Granting roles to clerk@app would introduce a cycle in the role graph")
	// Nothing refused was stored.
	n, err := s.e.db.Database("admin").Collection("system.roles").CountDocuments(ctx, bson.D{})
	if err != nil || n != 3 {
		t.Errorf("admin.system.roles holds %d roles (%v), want 3", n, err)
	}
}

// Roles are stored in mongod's shape and described by rolesInfo as
// mongod describes them.
func TestRolesInfo(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	app := s.root.Database("app")
	// Privileges on one resource are merged, their actions sorted.
	if err := rlCreate(app, "clerk", bson.A{rlPriv("app", "c", "insert", "find"), rlPriv("app", "", "listCollections"),
		rlPriv("app", "c", "find", "update")}, bson.A{}); err != nil {
		t.Fatal(err)
	}
	if err := rlCreate(app, "lead", bson.A{}, bson.A{"clerk", ra26Role("read", "app")}); err != nil {
		t.Fatal(err)
	}
	d, err := s.e.db.Database("admin").Collection("system.roles").FindOne(ctx, bson.D{{Key: "_id", Value: "app.clerk"}})
	if err != nil {
		t.Fatal(err)
	}
	clerkPrivs := bson.A{rlPriv("app", "c", "find", "insert", "update"), rlPriv("app", "", "listCollections")}
	rlSame(t, "stored role", d, bson.D{{Key: "_id", Value: "app.clerk"}, {Key: "role", Value: "clerk"}, {Key: "db", Value: "app"},
		{Key: "privileges", Value: clerkPrivs}, {Key: "roles", Value: bson.A{}}})

	got, err := rlRun(app, bson.D{{Key: "rolesInfo", Value: "lead"}})
	if err != nil {
		t.Fatal(err)
	}
	leadRoles := bson.A{ra26Role("clerk", "app"), ra26Role("read", "app")}
	rlSame(t, "rolesInfo lead", got, bson.D{{Key: "roles", Value: bson.A{bson.D{{Key: "_id", Value: "app.lead"}, {Key: "role", Value: "lead"},
		{Key: "db", Value: "app"}, {Key: "roles", Value: leadRoles}, {Key: "inheritedRoles", Value: leadRoles},
		{Key: "isBuiltin", Value: false}}}}, {Key: "ok", Value: 1.0}})

	got, err = rlRun(app, bson.D{{Key: "rolesInfo", Value: ra26Role("clerk", "app")}, {Key: "showPrivileges", Value: true}})
	if err != nil {
		t.Fatal(err)
	}
	rlSame(t, "rolesInfo clerk with privileges", got, bson.D{{Key: "roles", Value: bson.A{bson.D{{Key: "_id", Value: "app.clerk"},
		{Key: "role", Value: "clerk"}, {Key: "db", Value: "app"}, {Key: "privileges", Value: clerkPrivs}, {Key: "roles", Value: bson.A{}},
		{Key: "inheritedRoles", Value: bson.A{}}, {Key: "inheritedPrivileges", Value: clerkPrivs}, {Key: "isBuiltin", Value: false}}}},
		{Key: "ok", Value: 1.0}})

	// A database's roles: isBuiltin comes before the inherited roles.
	got, err = rlRun(app, bson.D{{Key: "rolesInfo", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	roles, _ := lookup(got, "roles").(bson.A)
	if len(roles) != 2 {
		t.Fatalf("rolesInfo: 1 gave %v", got)
	}
	rlSame(t, "rolesInfo: 1, clerk", roles[0], bson.D{{Key: "_id", Value: "app.clerk"}, {Key: "role", Value: "clerk"}, {Key: "db", Value: "app"},
		{Key: "roles", Value: bson.A{}}, {Key: "isBuiltin", Value: false}, {Key: "inheritedRoles", Value: bson.A{}}})

	// A built-in role by name, and a database's with showBuiltinRoles.
	got, err = rlRun(app, bson.D{{Key: "rolesInfo", Value: "read"}})
	if err != nil {
		t.Fatal(err)
	}
	rlSame(t, "rolesInfo read", got, bson.D{{Key: "roles", Value: bson.A{bson.D{{Key: "db", Value: "app"}, {Key: "role", Value: "read"},
		{Key: "roles", Value: bson.A{}}, {Key: "inheritedRoles", Value: bson.A{}}, {Key: "isBuiltin", Value: true}}}}, {Key: "ok", Value: 1.0}})
	got, err = rlRun(app, bson.D{{Key: "rolesInfo", Value: 1}, {Key: "showBuiltinRoles", Value: true}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range lookup(got, "roles").(bson.A) {
		names = append(names, lookup(r.(bson.D), "role").(string))
	}
	rlSame(t, "roles of app with the built-in ones", names, []string{"dbAdmin", "dbOwner", "enableSharding", "read", "readWrite", "userAdmin", "clerk", "lead"})

	// A role that does not exist is left out.
	got, err = rlRun(app, bson.D{{Key: "rolesInfo", Value: bson.A{"nope", "clerk"}}})
	if err != nil || len(lookup(got, "roles").(bson.A)) != 1 {
		t.Errorf("rolesInfo of a missing and an existing role: %v %v", got, err)
	}
	// Changes show: privileges granted and revoked, roles revoked.
	if err := app.RunCommand(ctx, bson.D{{Key: "revokePrivilegesFromRole", Value: "clerk"},
		{Key: "privileges", Value: bson.A{rlPriv("app", "c", "insert", "update"), rlPriv("app", "", "listCollections")}}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := app.RunCommand(ctx, bson.D{{Key: "grantPrivilegesToRole", Value: "clerk"},
		{Key: "privileges", Value: bson.A{rlPriv("app", "d", "remove")}}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := app.RunCommand(ctx, bson.D{{Key: "revokeRolesFromRole", Value: "lead"}, {Key: "roles", Value: bson.A{"read"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	got, err = rlRun(app, bson.D{{Key: "rolesInfo", Value: bson.A{"clerk", "lead"}}, {Key: "showPrivileges", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	now := bson.A{rlPriv("app", "c", "find"), rlPriv("app", "d", "remove")}
	rlSame(t, "clerk after the changes", lookup(lookup(got, "roles").(bson.A)[0].(bson.D), "privileges"), now)
	rlSame(t, "lead after the changes", lookup(lookup(got, "roles").(bson.A)[1].(bson.D), "inheritedPrivileges"), now)
	// forAllDBs is usersInfo's alone.
	if _, err := rlRun(app, bson.D{{Key: "rolesInfo", Value: bson.D{{Key: "forAllDBs", Value: true}}}}); cmdCode(t, err) != 2 {
		t.Errorf("rolesInfo forAllDBs: %v, want 2", err)
	}
}

// A user holding only a user-defined role may do exactly what its
// privileges, and those of the roles it inherits, allow; a change to
// the role applies to connections already logged in; a dropped role is
// taken from its users.
func TestUserDefinedRoleEnforced(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	app := s.root.Database("app")
	for _, c := range []string{"c", "d"} {
		if _, err := app.Collection(c).InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	s.root.Database("other").Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
	if err := rlCreate(app, "clerk", bson.A{rlPriv("app", "c", "find", "insert"), rlPriv("app", "", "listCollections")}, bson.A{}); err != nil {
		t.Fatal(err)
	}
	s.user(t, "app", "carol", "pw", "clerk")
	carol := s.e.client(t, false, withAuth("carol", "pw", "app"))
	ca := carol.Database("app")
	if n, err := ca.Collection("c").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Errorf("count app.c: %d %v", n, err)
	}
	if _, err := ca.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Errorf("insert app.c: %v", err)
	}
	if names, err := ca.ListCollectionNames(ctx, bson.D{}); err != nil || len(names) != 2 {
		t.Errorf("listCollections on app: %v %v", names, err)
	}
	if names, err := carol.ListDatabaseNames(ctx, bson.D{}); err != nil || len(names) != 1 || names[0] != "app" {
		t.Errorf("listDatabases: %v %v", names, err)
	}
	refused := func(what string, err error) {
		t.Helper()
		if cmdCode(t, err) != 13 {
			t.Errorf("%s: %v, want 13 Unauthorized", what, err)
		}
	}
	explain := func(coll string) error {
		return ca.RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: coll}}}}).Err()
	}
	if err := explain("c"); err != nil {
		t.Errorf("explain find on app.c: %v", err)
	}
	refused("explain find on app.d", explain("d"))
	_, err := ca.Collection("c").UpdateOne(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}})
	refused("update app.c", err)
	_, err = ca.Collection("c").DeleteOne(ctx, bson.D{})
	refused("delete app.c", err)
	_, err = ca.Collection("d").CountDocuments(ctx, bson.D{})
	refused("count app.d", err)
	_, err = carol.Database("other").Collection("c").CountDocuments(ctx, bson.D{})
	refused("count other.c", err)
	refused("drop app.c", ca.Collection("c").Drop(ctx))
	_, err = ca.Collection("c").Aggregate(ctx, bson.A{bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "d"},
		{Key: "localField", Value: "_id"}, {Key: "foreignField", Value: "_id"}, {Key: "as", Value: "j"}}}}})
	refused("$lookup from app.d", err)
	_, err = ca.Collection("c").Aggregate(ctx, bson.A{bson.D{{Key: "$out", Value: "e"}}})
	refused("$out to app.e", err)
	refused("createRole", rlCreate(ca, "mine", bson.A{}, bson.A{}))
	_, err = rlRun(ca, bson.D{{Key: "rolesInfo", Value: "lead"}})
	rlWant(t, "rolesInfo of a role not held", err, 13, "Unauthorized", "Not authorized to view roles from the app database")
	if _, err := rlRun(ca, bson.D{{Key: "rolesInfo", Value: "clerk"}}); err != nil {
		t.Errorf("rolesInfo of its own role: %v", err)
	}
	// connectionStatus shows the role and its privileges.
	cs, err := rlRun(carol.Database("admin"), bson.D{{Key: "connectionStatus", Value: 1}, {Key: "showPrivileges", Value: true}})
	if err != nil {
		t.Fatal(err)
	}
	info := lookup(cs, "authInfo").(bson.D)
	rlSame(t, "authenticatedUserRoles", lookup(info, "authenticatedUserRoles"), bson.A{ra26Role("clerk", "app")})
	rlSame(t, "authenticatedUserPrivileges", lookup(info, "authenticatedUserPrivileges"),
		bson.A{rlPriv("app", "c", "find", "insert"), rlPriv("app", "", "listCollections")})

	// usersInfo with showPrivileges: mongod's getUserDescription shape.
	up, err := rlRun(app, bson.D{{Key: "usersInfo", Value: "carol"}, {Key: "showPrivileges", Value: true}})
	if err != nil {
		t.Fatal(err)
	}
	users, _ := lookup(up, "users").(bson.A)
	if len(users) != 1 {
		t.Fatalf("usersInfo carol with privileges: %v", up)
	}
	var keys []string
	for _, e := range users[0].(bson.D) {
		keys = append(keys, e.Key)
	}
	rlSame(t, "usersInfo fields with privileges", keys, []string{"_id", "userId", "user", "db", "mechanisms", "roles",
		"inheritedRoles", "inheritedPrivileges", "inheritedAuthenticationRestrictions"})
	rlSame(t, "usersInfo mechanisms", lookup(users[0].(bson.D), "mechanisms"), bson.A{"SCRAM-SHA-256"})
	rlSame(t, "usersInfo inheritedPrivileges", lookup(users[0].(bson.D), "inheritedPrivileges"),
		bson.A{rlPriv("app", "c", "find", "insert"), rlPriv("app", "", "listCollections")})
	_, err = rlRun(app, bson.D{{Key: "usersInfo", Value: 1}, {Key: "showPrivileges", Value: true}})
	rlWant(t, "usersInfo: 1 with privileges", err, 20, "IllegalOperation", "Privilege or restriction details require exact-match usersInfo queries")

	// Granted to the role, update works at once on the same connection.
	if err := app.RunCommand(ctx, bson.D{{Key: "grantPrivilegesToRole", Value: "clerk"},
		{Key: "privileges", Value: bson.A{rlPriv("app", "c", "update")}}}).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := ca.Collection("c").UpdateOne(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}); err != nil {
		t.Errorf("update after grantPrivilegesToRole: %v", err)
	}
	// An upsert needs insert as well: revoke insert and it is refused.
	if err := app.RunCommand(ctx, bson.D{{Key: "revokePrivilegesFromRole", Value: "clerk"},
		{Key: "privileges", Value: bson.A{rlPriv("app", "c", "insert")}}}).Err(); err != nil {
		t.Fatal(err)
	}
	_, err = ca.Collection("c").UpdateOne(ctx, bson.D{{Key: "_id", Value: 9}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}},
		options.UpdateOne().SetUpsert(true))
	refused("upsert without insert", err)

	// Inherited roles count, built-in ones included.
	if err := rlCreate(app, "lead", bson.A{}, bson.A{"clerk", ra26Role("read", "app")}); err != nil {
		t.Fatal(err)
	}
	s.user(t, "app", "lee", "pw", "lead")
	lee := s.e.client(t, false, withAuth("lee", "pw", "app")).Database("app")
	if _, err := lee.Collection("c").UpdateOne(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}}); err != nil {
		t.Errorf("update through an inherited role: %v", err)
	}
	if n, err := lee.Collection("d").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Errorf("read app.d through inherited read: %d %v", n, err)
	}
	_, err = lee.Collection("d").InsertOne(ctx, bson.D{{Key: "_id", Value: 5}})
	refused("insert app.d", err)

	// Dropped, the role is taken from its users and roles at once.
	if err := app.RunCommand(ctx, bson.D{{Key: "dropRole", Value: "clerk"}}).Err(); err != nil {
		t.Fatal(err)
	}
	_, err = ca.Collection("c").CountDocuments(ctx, bson.D{})
	refused("count after dropRole", err)
	var ui struct{ Users []struct{ Roles []bson.D } }
	if err := app.RunCommand(ctx, bson.D{{Key: "usersInfo", Value: "carol"}}).Decode(&ui); err != nil || len(ui.Users) != 1 || len(ui.Users[0].Roles) != 0 {
		t.Errorf("carol's roles after dropRole: %+v %v", ui, err)
	}
	got, err := rlRun(app, bson.D{{Key: "rolesInfo", Value: "lead"}})
	if err != nil {
		t.Fatal(err)
	}
	rlSame(t, "lead after dropRole", lookup(lookup(got, "roles").(bson.A)[0].(bson.D), "roles"), bson.A{ra26Role("read", "app")})
	if _, err := lee.Collection("c").UpdateOne(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 2}}}}); cmdCode(t, err) != 13 {
		t.Errorf("update after the inherited role was dropped: %v", err)
	}
	got, err = rlRun(app, bson.D{{Key: "dropAllRolesFromDatabase", Value: 1}})
	if err != nil || lookup(got, "n") != int32(1) {
		t.Errorf("dropAllRolesFromDatabase: %v %v", got, err)
	}
}

// Cluster-wide privileges of a role of admin, and the role management
// commands a user-defined role allows.
func TestUserDefinedRoleClusterAndAdmin(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	admin := s.root.Database("admin")
	if err := rlCreate(admin, "monitor", bson.A{bson.D{{Key: "resource", Value: bson.D{{Key: "cluster", Value: true}}},
		{Key: "actions", Value: bson.A{"serverStatus"}}}}, bson.A{}); err != nil {
		t.Fatal(err)
	}
	// A role administrator of app: it creates, views and drops roles
	// there, and grants what lies in app.
	if err := rlCreate(admin, "appRoles", bson.A{rlPriv("app", "", "createRole", "dropRole", "grantRole", "viewRole")}, bson.A{}); err != nil {
		t.Fatal(err)
	}
	s.user(t, "admin", "mo", "pw", "monitor", "appRoles")
	mo := s.e.client(t, false, withAuth("mo", "pw", "admin"))
	if err := mo.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Err(); err != nil {
		t.Errorf("serverStatus with the cluster privilege: %v", err)
	}
	if _, err := mo.Database("app").Collection("c").CountDocuments(ctx, bson.D{}); cmdCode(t, err) != 13 {
		t.Errorf("count app.c: %v, want 13", err)
	}
	moApp := mo.Database("app")
	if err := rlCreate(moApp, "r", bson.A{rlPriv("app", "c", "find")}, bson.A{"read"}); err != nil {
		t.Errorf("createRole on app: %v", err)
	}
	if _, err := rlRun(moApp, bson.D{{Key: "rolesInfo", Value: 1}}); err != nil {
		t.Errorf("rolesInfo: 1 on app: %v", err)
	}
	rlWant(t, "createRole on other", rlCreate(mo.Database("other"), "r", bson.A{}, bson.A{}),
		13, "Unauthorized", "Not authorized to create roles on db: other")
	rlWant(t, "createRole inheriting a role of admin", rlCreate(moApp, "r2", bson.A{}, bson.A{ra26Role("monitor", "admin")}),
		13, "Unauthorized", "Not authorized to grant role: monitor@admin")
	err := moApp.RunCommand(ctx, bson.D{{Key: "grantPrivilegesToRole", Value: "r"}, {Key: "privileges", Value: bson.A{
		bson.D{{Key: "resource", Value: bson.D{{Key: "cluster", Value: true}}}, {Key: "actions", Value: bson.A{"shutdown"}}}}}}).Err()
	rlWant(t, "granting a cluster privilege", err, 13, "Unauthorized",
		"To grant privileges affecting multiple databases or the cluster, must be authorized to grant roles from the admin database")
	err = moApp.RunCommand(ctx, bson.D{{Key: "revokeRolesFromRole", Value: "r"}, {Key: "roles", Value: bson.A{"read"}}}).Err()
	rlWant(t, "revokeRolesFromRole without revokeRole", err, 13, "Unauthorized", "Not authorized to revoke role: read@app")
	err = moApp.RunCommand(ctx, bson.D{{Key: "updateRole", Value: "r"}, {Key: "roles", Value: bson.A{}}}).Err()
	rlWant(t, "updateRole", err, 13, "Unauthorized", "updateRole command required the ability to revoke any role in the system")
	if err := moApp.RunCommand(ctx, bson.D{{Key: "dropRole", Value: "r"}}).Err(); err != nil {
		t.Errorf("dropRole on app: %v", err)
	}
	// The built-in roles give these actions as mongod's table does:
	// userAdmin on its database, but not updateRole's revokeRole on
	// every database.
	s.user(t, "app", "ua", "pw", "userAdmin")
	ua := s.e.client(t, false, withAuth("ua", "pw", "app")).Database("app")
	if err := rlCreate(ua, "byUA", bson.A{rlPriv("app", "c", "find")}, bson.A{"read"}); err != nil {
		t.Errorf("createRole by userAdmin@app: %v", err)
	}
	if _, err := rlRun(ua, bson.D{{Key: "rolesInfo", Value: 1}, {Key: "showPrivileges", Value: true}}); err != nil {
		t.Errorf("rolesInfo by userAdmin@app: %v", err)
	}
	if err := ua.RunCommand(ctx, bson.D{{Key: "grantRolesToUser", Value: "ua"}, {Key: "roles", Value: bson.A{"byUA"}}}).Err(); err != nil {
		t.Errorf("grantRolesToUser of a user-defined role by userAdmin@app: %v", err)
	}
	rlWant(t, "updateRole by userAdmin@app", ua.RunCommand(ctx, bson.D{{Key: "updateRole", Value: "byUA"}, {Key: "roles", Value: bson.A{}}}).Err(),
		13, "Unauthorized", "updateRole command required the ability to revoke any role in the system")
	rlWant(t, "createRole on other by userAdmin@app", rlCreate(s.e.client(t, false, withAuth("ua", "pw", "app")).Database("other"), "x", bson.A{}, bson.A{}),
		13, "Unauthorized", "Not authorized to create roles on db: other")
	if err := ua.RunCommand(ctx, bson.D{{Key: "dropRole", Value: "byUA"}}).Err(); err != nil {
		t.Errorf("dropRole by userAdmin@app: %v", err)
	}

	// A reader of admin may neither read nor write admin.system.roles.
	s.user(t, "admin", "rw", "pw", "readWrite")
	rw := s.e.client(t, false, withAuth("rw", "pw", "admin")).Database("admin")
	if _, err := rw.Collection("system.roles").CountDocuments(ctx, bson.D{}); cmdCode(t, err) != 13 {
		t.Errorf("readWrite@admin reads admin.system.roles: %v", err)
	}
	if _, err := rw.Collection("system.roles").InsertOne(ctx, bson.D{{Key: "_id", Value: "app.x"}}); cmdCode(t, err) != 13 {
		t.Errorf("readWrite@admin writes admin.system.roles: %v", err)
	}
	rlWant(t, "dropRole by readWrite", rw.RunCommand(ctx, bson.D{{Key: "dropRole", Value: "monitor"}}).Err(),
		13, "Unauthorized", "Not authorized to drop roles from the admin database")
}

// mongorestore's _mergeAuthzCollections carries user-defined roles: a
// restored user holding one is granted it; with drop the server's roles
// the dump lacks go.
func TestMergeAuthzCollectionsRoles(t *testing.T) {
	t.Parallel()
	src, dst := ra26Setup(t), ra26Setup(t)
	ctx := context.Background()
	if err := rlCreate(src.root.Database("app"), "clerk", bson.A{rlPriv("app", "c", "find")}, bson.A{}); err != nil {
		t.Fatal(err)
	}
	src.user(t, "app", "carol", "pw", "clerk")
	if err := rlCreate(dst.root.Database("app"), "stale", bson.A{}, bson.A{}); err != nil {
		t.Fatal(err)
	}
	maCopyUsers(t, src.root, dst.root)
	cur, err := src.root.Database("admin").Collection("system.roles").Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var roles []bson.D
	if err := cur.All(ctx, &roles); err != nil || len(roles) != 1 {
		t.Fatalf("mongodump's read of admin.system.roles: %v %v", roles, err)
	}
	if _, err := dst.root.Database("admin").Collection("temproles").InsertOne(ctx, roles[0]); err != nil {
		t.Fatal(err)
	}
	if err := maMerge(dst.root, bson.E{Key: "tempRolesCollection", Value: "admin.temproles"}, bson.E{Key: "drop", Value: true},
		bson.E{Key: "db", Value: "app"}); err != nil {
		t.Fatalf("_mergeAuthzCollections: %v", err)
	}
	got, err := rlRun(dst.root.Database("app"), bson.D{{Key: "rolesInfo", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	rs := lookup(got, "roles").(bson.A)
	if len(rs) != 1 || lookup(rs[0].(bson.D), "role") != "clerk" {
		t.Errorf("roles of app after the merge: %v", rs)
	}
	carol := dst.e.client(t, false, withAuth("carol", "pw", "app")).Database("app")
	if _, err := carol.Collection("c").CountDocuments(ctx, bson.D{}); err != nil {
		t.Errorf("a restored user's restored role: %v", err)
	}
	if _, err := carol.Collection("d").CountDocuments(ctx, bson.D{}); cmdCode(t, err) != 13 {
		t.Errorf("beyond the restored role: %v", err)
	}
}
