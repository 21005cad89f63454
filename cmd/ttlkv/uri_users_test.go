package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/wire"
)

// The shell's user helpers (createUser, getUsers, updateUser,
// changeUserPassword, dropUser, dropAllUsers) against a server with
// access control; what they print is what mongosh 2.12 printed for the
// same script against the same server (checked by hand: the shell
// differential runs embedded, where there are no users).
func TestURIUserHelpers(t *testing.T) {
	t.Parallel()
	uri := startWireOpts(t, wire.Options{Auth: true})
	out, errOut, code := cli(t, nil, "", "", "eval", "--uri", uri, `printjson(db.getSiblingDB("admin").createUser({user: "root", pwd: "pw", roles: ["root"]}))`)
	if code != 0 || out != "{\n  ok: 1\n}\n" {
		t.Fatalf("first user: exit %d, out %q, err %q", code, out, errOut)
	}
	root := strings.Replace(uri, "mongodb://", "mongodb://root:pw@", 1) + "&authSource=admin"
	script := `const app = db.getSiblingDB("app");
app.createUser({ user: "bob", pwd: "x", roles: [{ role: "read", db: "app" }], customData: { team: "ops" } });
const us = app.getUsers();
print(us.ok, us.users.map((u) => [u.user, u.db, u.roles, u.customData]));
print(app.getUser("bob").roles, app.getUser("nosuch"));
printjson(app.updateUser("bob", { roles: [{ role: "readWrite", db: "app" }] }));
print(app.getUser("bob").roles);
printjson(app.changeUserPassword("bob", "y"));
for (const f of [() => app.createUser({ user: "dan", roles: [] }), () => app.createUser({ user: "dan", pwd: "p" }), () => app.createUser(), () => app.dropUser(), () => app.updateUser("bob"), () => app.createUser({ user: "bob", pwd: "p", roles: [] })]) {
  try { printjson(f()) } catch (e) { print(e.name, e.message) }
}
printjson(app.createUser({ user: "carol", pwd: "z", roles: [] }, { w: 1 }));
printjson(app.dropUser("carol"));`
	want := `1 [ [ 'bob', 'app', [ { role: 'read', db: 'app' } ], { team: 'ops' } ] ]
[ { role: 'read', db: 'app' } ] null
{
  ok: 1
}
[ { role: 'readWrite', db: 'app' } ]
{
  ok: 1
}
MongoshInvalidInputError [COMMON-10001] Missing required property: "pwd"
MongoshInvalidInputError [COMMON-10001] Missing required property: "roles"
MongoshInvalidInputError [COMMON-10001] Missing required argument at position 0 (Database.createUser)
MongoshInvalidInputError [COMMON-10001] Missing required argument at position 0 (Database.dropUser)
MongoshInvalidInputError [COMMON-10001] Missing required argument at position 1 (Database.updateUser)
MongoServerError User "bob@app" already exists
{
  ok: 1
}
{
  ok: 1
}
`
	out, errOut, code = cli(t, nil, "", "", "eval", "--uri", root, "-f", writeScript(t, script))
	if code != 0 || out != want {
		t.Fatalf("exit %d, err %q\n got: %q\nwant: %q", code, errOut, out, want)
	}
	// bob's new password works, the old one does not.
	bob := func(pwd string) string {
		return strings.Replace(uri, "mongodb://", "mongodb://bob:"+pwd+"@", 1) + "&authSource=app"
	}
	if out, errOut, code := cli(t, nil, "", "", "eval", "--uri", bob("y"), `db.getSiblingDB("app").c.insertOne({_id: 1}).insertedId`); code != 0 || out != "1\n" {
		t.Fatalf("bob with the new password: exit %d, %q %q", code, out, errOut)
	}
	if _, _, code := cli(t, nil, "", "", "eval", "--uri", bob("x"), "1"); code != 1 {
		t.Fatalf("bob with the old password: exit %d", code)
	}
	out, errOut, code = cli(t, nil, "", "", "eval", "--uri", root, `printjson(db.getSiblingDB("app").dropAllUsers()); print(db.getSiblingDB("app").getUsers().users.length)`)
	if code != 0 || out != "{\n  n: 1,\n  ok: 1\n}\n0\n" {
		t.Fatalf("dropAllUsers: exit %d, out %q, err %q", code, out, errOut)
	}
}

// writeScript writes a script to a file of the test's and returns its
// path.
func writeScript(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "script.js")
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
