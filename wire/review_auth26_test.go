package wire

// A review of access control against mongod 7.0 (its findings fixed
// since): authentication (SCRAM
// conversations), user management and authorization. Every test asserts
// what mongod answers; the mongod sources read are named in each test's
// comment (mongodb/mongo, src/mongo/db/auth/ and src/mongo/db/commands/).

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xdg-go/scram"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// ra26Srv is a server with access control on, its first user
// (boss/s3cret, root on admin) made through the localhost exception,
// and a driver client logged in as that user.
type ra26Srv struct {
	e    *env
	addr string
	root *mongo.Client
}

func ra26Setup(t *testing.T) *ra26Srv {
	t.Helper()
	e := newEnv(t, Options{Auth: true})
	addr := e.listen(t)
	anon := e.client(t, false)
	if err := createUser(context.Background(), anon.Database("admin"), "boss", "s3cret", bson.A{"root"}); err != nil {
		t.Fatalf("first user: %v", err)
	}
	return &ra26Srv{e: e, addr: addr, root: e.client(t, false, withAuth("boss", "s3cret", "admin"))}
}

// user creates a user as root; roles are names in db or {role, db}.
func (s *ra26Srv) user(t *testing.T, db, name, pwd string, roles ...any) {
	t.Helper()
	if err := createUser(context.Background(), s.root.Database(db), name, pwd, bson.A(roles)); err != nil {
		t.Fatalf("createUser %s@%s: %v", name, db, err)
	}
}

// conn opens a raw TCP connection, logged in as user@db unless user is
// empty.
func (s *ra26Srv) conn(t *testing.T, db, user, pwd string) net.Conn {
	t.Helper()
	c := rawConn(t, s.addr)
	if user != "" {
		if r := ra26Login(t, c, db, user, pwd); !ra26OK(r) {
			t.Fatalf("login as %s@%s: %v", user, db, r)
		}
	}
	return c
}

func ra26Role(role, db string) bson.D {
	return bson.D{{Key: "role", Value: role}, {Key: "db", Value: db}}
}

var ra26ReqID atomic.Int32

// ra26Run sends one OP_MSG command on db and returns the reply.
func ra26Run(t *testing.T, c net.Conn, db string, cmd bson.D) bson.D {
	t.Helper()
	cmd = append(append(bson.D{}, cmd...), bson.E{Key: "$db", Value: db})
	c.SetDeadline(time.Now().Add(15 * time.Second))
	if _, err := c.Write(EncodeMsg(ra26ReqID.Add(1), 0, 0, mustMarshal(t, cmd), false)); err != nil {
		t.Fatalf("sending %v: %v", cmd, err)
	}
	_, d := readReply(t, c)
	return d
}

func ra26OK(d bson.D) bool {
	switch v := lookup(d, "ok").(type) {
	case float64:
		return v == 1
	case int32:
		return v == 1
	case int64:
		return v == 1
	}
	return false
}

func ra26Code(d bson.D) int32 {
	switch v := lookup(d, "code").(type) {
	case int32:
		return v
	case int64:
		return int32(v)
	case float64:
		return int32(v)
	}
	return 0
}

func ra26Msg(d bson.D) string { s, _ := lookup(d, "errmsg").(string); return s }

// ra26Login runs a whole SCRAM-SHA-256 conversation on c and returns the
// last reply (an error reply if a step failed).
func ra26Login(t *testing.T, c net.Conn, db, user, pwd string) bson.D {
	t.Helper()
	client, err := scram.SHA256.NewClient(user, pwd, "")
	if err != nil {
		t.Fatal(err)
	}
	conv := client.NewConversation()
	first, err := conv.Step("")
	if err != nil {
		t.Fatal(err)
	}
	r := ra26Run(t, c, db, bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"},
		{Key: "payload", Value: bson.Binary{Data: []byte(first)}}})
	for i := 0; ra26OK(r) && lookup(r, "done") != true; i++ {
		if i == 4 {
			t.Fatalf("SCRAM conversation does not end: %v", r)
		}
		p, _ := lookup(r, "payload").(bson.Binary)
		next, err := conv.Step(string(p.Data))
		if err != nil {
			t.Fatalf("client step: %v (reply %v)", err, r)
		}
		r = ra26Run(t, c, db, bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: lookup(r, "conversationId")},
			{Key: "payload", Value: bson.Binary{Data: []byte(next)}}})
	}
	return r
}

// ra26Users is the user@db list of a connectionStatus reply.
func ra26Users(st bson.D) []string {
	info, _ := lookup(st, "authInfo").(bson.D)
	users, _ := lookup(info, "authenticatedUsers").(bson.A)
	var out []string
	for _, u := range users {
		d, _ := u.(bson.D)
		out = append(out, fmt.Sprintf("%v@%v", lookup(d, "user"), lookup(d, "db")))
	}
	return out
}

// ra26Cursor opens a find cursor with a first batch of one on c (no
// session) and returns its id.
func ra26Cursor(t *testing.T, c net.Conn, db, coll string) int64 {
	t.Helper()
	r := ra26Run(t, c, db, bson.D{{Key: "find", Value: coll}, {Key: "batchSize", Value: 1}})
	cur, _ := lookup(r, "cursor").(bson.D)
	id, _ := lookup(cur, "id").(int64)
	if !ra26OK(r) || id == 0 {
		t.Fatalf("find on %s.%s left no cursor: %v", db, coll, r)
	}
	return id
}

func ra26Seed(t *testing.T, cl *mongo.Client, db, coll string, n int) {
	t.Helper()
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "secret", Value: fmt.Sprintf("%s-%d", db, i)}}
	}
	if _, err := cl.Database(db).Collection(coll).InsertMany(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
}

// A user administrator of one database may grant only roles of the
// databases it holds grantRole on: userAdmin and dbOwner on app can
// create a user of app with read on app, but not one with root@admin, and
// cannot give itself a role on admin. mongod checks every granted role
// with checkAuthorizedToGrantRoles (user_management_commands.cpp /
// authorization_checks.cpp): 13 "Not authorized to grant role:
// root@admin"; updateUser with roles needs revokeRole on any database
// (7.0 authorization_checks.cpp checkAuthForTypedCommand). ttlkv's
// authorize looks only at the command's database, so a userAdmin or
// dbOwner of any database can make itself, or anyone, root.
func TestReviewAuth26UserAdminGrantsRolesOfOtherDatabases(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	s.user(t, "app", "ua", "pw", "userAdmin")
	s.user(t, "app", "owner", "pw", "dbOwner")
	for _, who := range []string{"ua", "owner"} {
		app := s.e.client(t, false, withAuth(who, "pw", "app")).Database("app")
		// Allowed: a role of its own database.
		if err := createUser(ctx, app, who+"Reader", "x", bson.A{"read"}); err != nil {
			t.Fatalf("%s creating a reader of app: %v", who, err)
		}
		err := createUser(ctx, app, who+"Evil", "x", bson.A{ra26Role("root", "admin")})
		if err == nil || cmdCode(t, err) != 13 || !strings.Contains(err.Error(), "Not authorized to grant role: root@admin") {
			t.Errorf("%s@app granted root@admin to a new user: %v; mongod: 13 Not authorized to grant role: root@admin", who, err)
		}
		err = createUser(ctx, app, who+"Other", "x", bson.A{ra26Role("readWrite", "other")})
		if err == nil || cmdCode(t, err) != 13 || !strings.Contains(err.Error(), "Not authorized to grant role: readWrite@other") {
			t.Errorf("%s@app granted readWrite@other: %v; mongod: 13 Not authorized to grant role: readWrite@other", who, err)
		}
		// updateUser's roles replace the old ones, so mongod wants
		// revokeRole on every database (checkAuthForTypedCommand
		// UpdateUserCommand), which no role of one database has.
		const wantUpd = "In order to use updateUser to set roles array, must be authorized to revoke any role in the system"
		err = app.RunCommand(ctx, bson.D{{Key: "updateUser", Value: who}, {Key: "roles", Value: bson.A{ra26Role("readWriteAnyDatabase", "admin")}}}).Err()
		if err == nil || cmdCode(t, err) != 13 || !strings.Contains(err.Error(), wantUpd) {
			t.Errorf("%s@app gave itself readWriteAnyDatabase@admin: %v; mongod: 13 %s", who, err, wantUpd)
		}
	}
}

// A read-only user must not write, least of all into admin.system.users:
// an aggregate ending in $merge (or $out) needs insert/update on its
// target (mongod's aggregate auth check, auth/authorization_checks.cpp
// getPrivilegesForAggregate: the stages' required privileges, $merge's
// insert+update on the output namespace), so mongod answers 13. ttlkv
// authorizes aggregate as a read of the command's database only, and its
// engine lets $merge write admin.system.users: a user with read on app
// forges a root user and logs in as it.
func TestReviewAuth26ReadUserMergesIntoSystemUsers(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	s.user(t, "app", "reader", "pw", "read")
	cred, err := newCredential("forged")
	if err != nil {
		t.Fatal(err)
	}
	forged := bson.D{{Key: "_id", Value: "admin.mallory"}, {Key: "user", Value: "mallory"}, {Key: "db", Value: "admin"},
		{Key: "credentials", Value: bson.D{{Key: "SCRAM-SHA-256", Value: bson.D{{Key: "iterationCount", Value: cred.IterationCount},
			{Key: "salt", Value: cred.Salt}, {Key: "storedKey", Value: cred.StoredKey}, {Key: "serverKey", Value: cred.ServerKey}}}}},
		{Key: "roles", Value: bson.A{ra26Role("root", "admin")}}}
	c := s.conn(t, "app", "reader", "pw")
	r := ra26Run(t, c, "app", bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$documents", Value: bson.A{forged}}},
		bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: bson.D{{Key: "db", Value: "admin"}, {Key: "coll", Value: "system.users"}}}}}},
	}}, {Key: "cursor", Value: bson.D{}}})
	if ra26Code(r) != 13 {
		t.Errorf("a read-only user's $merge into admin.system.users: %v; mongod: 13 Unauthorized", r)
	}
	mallory := s.e.client(t, false, withAuth("mallory", "forged", "admin"))
	if err := mallory.Database("admin").RunCommand(ctx, bson.D{{Key: "dropUser", Value: "boss"}}).Err(); err == nil {
		t.Errorf("the forged root user logged in and dropped the administrator")
	}
}

// The same hole without system.users: read on app is not insert on
// app.copy ($out) and readWrite on app is not insert on other.x ($merge
// into another database); mongod answers 13 to both (the aggregate's
// privileges include its output's, authorization_checks.cpp).
func TestReviewAuth26AggregateWritesWithoutWritePrivilege(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	ra26Seed(t, s.root, "app", "c", 3)
	s.user(t, "app", "reader", "pw", "read")
	s.user(t, "app", "writer", "pw", "readWrite")
	reader := s.conn(t, "app", "reader", "pw")
	r := ra26Run(t, reader, "app", bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$out", Value: "copy"}}}}, {Key: "cursor", Value: bson.D{}}})
	if ra26Code(r) != 13 {
		t.Errorf("read user's $out into app.copy: %v; mongod: 13", r)
	}
	writer := s.conn(t, "app", "writer", "pw")
	r = ra26Run(t, writer, "app", bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: bson.D{{Key: "db", Value: "other"}, {Key: "coll", Value: "x"}}}}}}}}, {Key: "cursor", Value: bson.D{}}})
	if ra26Code(r) != 13 {
		t.Errorf("readWrite@app user's $merge into other.x: %v; mongod: 13", r)
	}
	if n, _ := s.root.Database("other").Collection("x").CountDocuments(ctx, bson.D{}); n != 0 {
		t.Errorf("other.x now holds %d documents written by a user without access to other", n)
	}
}

// readAnyDatabase (and read on admin) grant find on the normal
// collections only; admin.system.users is not one of them
// (auth/builtin_roles.cpp: readAnyDatabase is find on
// forAnyNormalResource), so a $lookup or $unionWith of system.users is 13
// (the aggregate needs find on every namespace it reads). ttlkv maps only
// a command whose first value is "system.users" to user administration,
// so a $lookup from a collection of admin returns every user's salt,
// storedKey and serverKey.
func TestReviewAuth26LookupReadsSystemUsersCredentials(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ra26Seed(t, s.root, "admin", "probe", 1)
	s.user(t, "admin", "monitor", "pw", "readAnyDatabase")
	s.user(t, "admin", "adminReader", "pw", "read")
	for _, who := range []string{"monitor", "adminReader"} {
		c := s.conn(t, "admin", who, "pw")
		for _, stage := range []bson.D{
			{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "system.users"}, {Key: "pipeline", Value: bson.A{}}, {Key: "as", Value: "u"}}}},
			{{Key: "$unionWith", Value: "system.users"}},
		} {
			r := ra26Run(t, c, "admin", bson.D{{Key: "aggregate", Value: "probe"}, {Key: "pipeline", Value: bson.A{stage}}, {Key: "cursor", Value: bson.D{}}})
			if ra26Code(r) != 13 {
				leak := ""
				if strings.Contains(fmt.Sprint(r), "storedKey") {
					leak = " (the reply holds the users' storedKey and serverKey)"
				}
				t.Errorf("%s ran %v over admin.system.users: ok=%v%s; mongod: 13", who, stage[0].Key, lookup(r, "ok"), leak)
			}
		}
	}
}

// A view is read with the privileges of what it reads: creating a view
// on admin.system.users needs find on it (create's auth check,
// authorization_checks.cpp checkAuthForCreate: with viewOn, find on the
// source namespace and on the pipeline's), so readWrite on admin gets
// 13. In ttlkv the view is made and find on it returns the credentials.
func TestReviewAuth26ViewOverSystemUsers(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	s.user(t, "admin", "adminWriter", "pw", "readWrite")
	c := s.conn(t, "admin", "adminWriter", "pw")
	r := ra26Run(t, c, "admin", bson.D{{Key: "create", Value: "u"}, {Key: "viewOn", Value: "system.users"}, {Key: "pipeline", Value: bson.A{}}})
	if ra26Code(r) != 13 {
		r2 := ra26Run(t, c, "admin", bson.D{{Key: "find", Value: "u"}})
		t.Errorf("readWrite@admin made a view of system.users: %v; find on it: storedKey shown=%v; mongod: 13",
			r, strings.Contains(fmt.Sprint(r2), "storedKey"))
	}
}

// renameCollection runs on admin but needs privileges on both
// namespaces: across databases find/insert/... on the source database and
// insert/createIndex on the target, and system.users is no normal
// collection (authorization_checks.cpp / rename_collection auth check):
// readWrite on admin may rename neither app.secret into admin nor
// admin.system.users away; mongod answers 13. ttlkv checks only that the
// user has readWrite on admin.
func TestReviewAuth26RenameCollectionAcrossDatabases(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	ra26Seed(t, s.root, "app", "secret", 2)
	s.user(t, "admin", "adminWriter", "pw", "readWrite")
	c := s.conn(t, "admin", "adminWriter", "pw")
	r := ra26Run(t, c, "admin", bson.D{{Key: "renameCollection", Value: "app.secret"}, {Key: "to", Value: "admin.stolen"}})
	if ra26Code(r) != 13 {
		t.Errorf("readWrite@admin renamed app.secret into admin: %v; mongod: 13", r)
	}
	r = ra26Run(t, c, "admin", bson.D{{Key: "renameCollection", Value: "admin.system.users"}, {Key: "to", Value: "admin.people"}})
	if ra26Code(r) != 13 {
		t.Errorf("readWrite@admin renamed admin.system.users: %v; mongod: 13", r)
	}
	if err := s.e.client(t, false, withAuth("boss", "s3cret", "admin")).Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Errorf("the administrator can no longer log in: %v", err)
	}
}

// A user may getMore only its own cursors: mongod checks
// isCoauthorizedWith(cursor's user) first (commands/getmore_cmd.cpp
// validateAuthorization): 13 "cursor id N was not created by the
// authenticated user"; a getMore on another namespace than the cursor's
// is 13 too (validateNamespace). ttlkv checks read on the getMore's own
// database only, so a reader of app takes over root's cursor, even one
// over admin.system.users.
func TestReviewAuth26GetMoreOfAnotherUsersCursor(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ra26Seed(t, s.root, "app", "c", 5)
	s.user(t, "app", "reader", "pw", "read")
	s.user(t, "app", "other", "pw", "read")
	s.user(t, "admin", "adminReader", "pw", "read")
	root := s.conn(t, "admin", "boss", "s3cret")
	reader := s.conn(t, "app", "reader", "pw")

	id := ra26Cursor(t, root, "app", "c")
	r := ra26Run(t, reader, "app", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}})
	want := fmt.Sprintf("cursor id %d was not created by the authenticated user", id)
	if ra26Code(r) != 13 || ra26Msg(r) != want {
		t.Errorf("reader's getMore of root's cursor on app.c: %v; mongod: 13 %q", r, want)
	}

	// Root's cursor over the users, read through app by a reader of app
	// and through admin by a reader of admin.
	users := ra26Cursor(t, root, "admin", "system.users")
	r = ra26Run(t, reader, "app", bson.D{{Key: "getMore", Value: users}, {Key: "collection", Value: "c"}})
	if ra26Code(r) != 13 {
		t.Errorf("reader@app's getMore (on app.c) of root's cursor over admin.system.users: %v; mongod: 13", r)
	}
	adminReader := s.conn(t, "admin", "adminReader", "pw")
	r = ra26Run(t, adminReader, "admin", bson.D{{Key: "getMore", Value: users}, {Key: "collection", Value: "system.users"}})
	if ra26Code(r) != 13 {
		t.Errorf("read@admin user's getMore of root's cursor over admin.system.users: ok=%v, storedKey shown=%v; mongod: 13",
			lookup(r, "ok"), strings.Contains(fmt.Sprint(r), "storedKey"))
	}
}

// A user's own cursor, asked for through another namespace: mongod's
// getMore compares the request's namespace with the cursor's
// (getmore_cmd.cpp validateNamespace): 13 "Requested getMore on namespace
// 'app.d', but cursor belongs to a different namespace app.c".
func TestReviewAuth26GetMoreOnAnotherNamespace(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ra26Seed(t, s.root, "app", "c", 5)
	s.user(t, "app", "reader", "pw", "read")
	reader := s.conn(t, "app", "reader", "pw")
	id := ra26Cursor(t, reader, "app", "c")
	r := ra26Run(t, reader, "app", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "d"}})
	want := "Requested getMore on namespace 'app.d', but cursor belongs to a different namespace app.c"
	if ra26Code(r) != 13 || ra26Msg(r) != want {
		t.Errorf("getMore naming app.d for a cursor on app.c: %v; mongod: 13 %q", r, want)
	}
}

// killCursors of another user's cursor: mongod's killCursors checks
// every cursor before killing any (killcursors_common.h
// doCheckAuthorization → checkAuthForKillCursors: killAnyCursor or
// coauthorized with the cursor's user) and answers 13. ttlkv lets any
// reader of the database kill it.
func TestReviewAuth26KillCursorsOfAnotherUser(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ra26Seed(t, s.root, "app", "c", 5)
	s.user(t, "app", "reader", "pw", "read")
	root := s.conn(t, "admin", "boss", "s3cret")
	reader := s.conn(t, "app", "reader", "pw")
	id := ra26Cursor(t, root, "app", "c")
	r := ra26Run(t, reader, "app", bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{id}}})
	if ra26Code(r) != 13 {
		t.Errorf("reader's killCursors of root's cursor: %v; mongod: 13", r)
	}
	r = ra26Run(t, root, "app", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}})
	if !ra26OK(r) {
		t.Errorf("root's cursor is gone after another user's killCursors: %v", r)
	}
}

// One user per connection: since 6.0 mongod refuses to authenticate a
// connection as a second user (authorization_session_impl.cpp
// addAndAuthorizeUser: 5626701 "Each client connection may only be
// authenticated once. Previously authenticated as: a@app", and 5626702
// for another database), and the first user stays. ttlkv switches the
// connection to the second user.
func TestReviewAuth26SecondUserOnOneConnection(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	s.user(t, "app", "a", "pw", "read")
	s.user(t, "app", "b", "pw", "readWrite")
	c := s.conn(t, "app", "a", "pw")
	r := ra26Login(t, c, "app", "b", "pw")
	if ra26Code(r) != 5626701 || !strings.Contains(ra26Msg(r), "Each client connection may only be authenticated once. Previously authenticated as: a@app") {
		t.Errorf("authenticating as b@app on a connection of a@app: %v; mongod: 5626701", r)
	}
	st := ra26Run(t, c, "admin", bson.D{{Key: "connectionStatus", Value: 1}})
	if got := ra26Users(st); len(got) != 1 || got[0] != "a@app" {
		t.Errorf("the connection is now %v; mongod keeps a@app", got)
	}
}

// SCRAM-SHA-1 must not tell a known user from an unknown one. mongod
// turns every failure of a SASL step into 18 "Authentication failed."
// (sasl_commands.cpp doSaslStep: "All the client needs to know is that
// authentication has failed"), the missing SCRAM-SHA-1 credential of a
// SCRAM-SHA-256-only user included. ttlkv answers 334 for a known user
// and 18 for an unknown one: the user names can be enumerated without a
// password.
func TestReviewAuth26ScramSHA1RevealsWhichUsersExist(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	s.user(t, "app", "reader", "pw", "read")
	for _, user := range []string{"reader", "nobody"} {
		c := rawConn(t, s.addr)
		r := ra26Run(t, c, "app", bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-1"},
			{Key: "payload", Value: bson.Binary{Data: []byte("n,,n=" + user + ",r=fyko+d2lbbFgONRv9qkxdawL")}}})
		if ra26Code(r) != 18 || ra26Msg(r) != "Authentication failed." {
			t.Errorf("SCRAM-SHA-1 saslStart for %s: %v; mongod: 18 Authentication failed.", user, r)
		}
	}
}

// The localhost exception stays closed once a user has existed: mongod
// remembers that privilege documents exist and never looks again
// (authorization_manager_impl.cpp hasAnyPrivilegeDocuments: "If we know
// that a user exists, don't re-check"), so after the last user is
// dropped an unauthenticated client still gets 13. ttlkv counts the users
// again after dropUser and lets any local client create a root user.
func TestReviewAuth26LocalhostExceptionReopensAfterUsersDropped(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	if err := s.root.Database("admin").RunCommand(ctx, bson.D{{Key: "dropUser", Value: "boss"}}).Err(); err != nil {
		t.Fatal(err)
	}
	anon := s.e.client(t, false)
	err := createUser(ctx, anon.Database("admin"), "intruder", "x", bson.A{"root"})
	if err == nil || cmdCode(t, err) != 13 {
		t.Errorf("an unauthenticated createUser after the users were dropped: %v; mongod: 13", err)
	}
}

// usersInfo for a user of another database needs viewUser on that
// database, unless it is the caller itself (user_management_commands /
// authorization_checks.cpp, usersInfo's check: "Not authorized to view
// users from the admin database"). ttlkv lets a userAdmin of app read
// the administrator's entry; and a user may always look itself up, which
// ttlkv refuses.
func TestReviewAuth26UsersInfoAcrossDatabasesAndSelf(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	s.user(t, "app", "ua", "pw", "userAdmin")
	s.user(t, "app", "reader", "pw", "read")
	ua := s.conn(t, "app", "ua", "pw")
	r := ra26Run(t, ua, "app", bson.D{{Key: "usersInfo", Value: bson.D{{Key: "user", Value: "boss"}, {Key: "db", Value: "admin"}}}})
	if ra26Code(r) != 13 {
		t.Errorf("userAdmin@app's usersInfo of boss@admin: %v; mongod: 13 Not authorized to view users from the admin database", r)
	}
	reader := s.conn(t, "app", "reader", "pw")
	r = ra26Run(t, reader, "app", bson.D{{Key: "usersInfo", Value: "reader"}})
	if !ra26OK(r) {
		t.Errorf("a user's usersInfo of itself: %v; mongod answers it", r)
	}
}

// explain needs the privileges of the command it explains (explain_cmd.cpp
// checks the inner command's authorization): a read-only user's explain
// of a delete is 13. ttlkv lets any reader explain writes.
func TestReviewAuth26ExplainOfWriteByReadOnlyUser(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	ra26Seed(t, s.root, "app", "c", 3)
	s.user(t, "app", "reader", "pw", "read")
	reader := s.conn(t, "app", "reader", "pw")
	for _, inner := range []bson.D{
		{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 0}}}}},
		{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{}}, {Key: "remove", Value: true}},
	} {
		r := ra26Run(t, reader, "app", bson.D{{Key: "explain", Value: inner}, {Key: "verbosity", Value: "executionStats"}})
		if ra26Code(r) != 13 {
			t.Errorf("read-only explain of %s: ok=%v; mongod: 13", inner[0].Key, lookup(r, "ok"))
		}
	}
	if n, _ := s.root.Database("app").Collection("c").CountDocuments(ctx, bson.D{}); n != 3 {
		t.Errorf("a read-only user's explain removed documents: %d left of 3", n)
	}
}

// saslStart with a mechanism the server does not have: mongod's
// SASLServerMechanismRegistry::getServerMechanism
// (sasl_mechanism_registry.cpp) is 2 BadValue "Unsupported mechanism
// 'FOO-BAR' on authentication database 'admin'"; a saslStart without a
// mechanism fails to parse (IDL, 40414 "BSON field 'saslStart.mechanism'
// is missing but a required field"). ttlkv answers 334 MechanismUnavailable
// "Received authentication for mechanism ... which is not enabled" to
// both.
func TestReviewAuth26SaslStartUnknownMechanism(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	c := rawConn(t, s.addr)
	payload := bson.Binary{Data: []byte("n,,n=boss,r=fyko+d2lbbFgONRv9qkxdawL")}
	r := ra26Run(t, c, "admin", bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "FOO-BAR"}, {Key: "payload", Value: payload}})
	if ra26Code(r) != 2 || ra26Msg(r) != "Unsupported mechanism 'FOO-BAR' on authentication database 'admin'" {
		t.Errorf("saslStart FOO-BAR: %v; mongod: 2 Unsupported mechanism 'FOO-BAR' on authentication database 'admin'", r)
	}
	r = ra26Run(t, c, "admin", bson.D{{Key: "saslStart", Value: 1}, {Key: "payload", Value: payload}})
	if ra26Code(r) != 40414 {
		t.Errorf("saslStart without a mechanism: %v; mongod: 40414 BSON field 'saslStart.mechanism' is missing but a required field", r)
	}
}

// mongod's SASL conversation id is always 1 (sasl_commands.cpp
// doSaslStep: setConversationId(1)), and a saslContinue with another id
// in a conversation is 17 "sasl: Mismatched conversation id"
// (runSaslContinue). ttlkv numbers conversations 1, 2, ... on a
// connection and answers a wrong id "No SASL session state found".
func TestReviewAuth26SaslConversationID(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	c := rawConn(t, s.addr)
	start := func() bson.D {
		client, _ := scram.SHA256.NewClient("boss", "s3cret", "")
		first, _ := client.NewConversation().Step("")
		return ra26Run(t, c, "admin", bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"},
			{Key: "payload", Value: bson.Binary{Data: []byte(first)}}})
	}
	start()
	r := start()
	if id := lookup(r, "conversationId"); fmt.Sprint(id) != "1" {
		t.Errorf("second saslStart on a connection: conversationId %v; mongod: 1", id)
	}
	r = ra26Run(t, c, "admin", bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: int32(7)},
		{Key: "payload", Value: bson.Binary{Data: []byte("c=biws,r=x,p=eA==")}}})
	if ra26Code(r) != 17 || ra26Msg(r) != "sasl: Mismatched conversation id" {
		t.Errorf("saslContinue with conversationId 7: %v; mongod: 17 sasl: Mismatched conversation id", r)
	}
}

// listDatabases with authorizedDatabases: false needs the listDatabases
// action on the cluster (commands/list_databases_common.h: 13
// "Insufficient permissions to list all databases" for a reader of app).
// ttlkv ignores the flag and answers the filtered list. And the
// filtered list's totalSize adds up the databases shown only (the same
// loop skips the others before it adds their size); ttlkv gives the size
// of every database, the ones the user may not see included.
func TestReviewAuth26ListDatabasesAuthorizedDatabasesFalse(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ra26Seed(t, s.root, "app", "c", 1)
	s.user(t, "app", "reader", "pw", "read")
	reader := s.conn(t, "app", "reader", "pw")
	r := ra26Run(t, reader, "admin", bson.D{{Key: "listDatabases", Value: 1}, {Key: "authorizedDatabases", Value: false}})
	if ra26Code(r) != 13 || ra26Msg(r) != "Insufficient permissions to list all databases" {
		t.Errorf("listDatabases {authorizedDatabases: false} by a reader of app: %v; mongod: 13 Insufficient permissions to list all databases", r)
	}
	ra26Seed(t, s.root, "secret", "c", 50)
	r = ra26Run(t, reader, "admin", bson.D{{Key: "listDatabases", Value: 1}})
	dbs, _ := lookup(r, "databases").(bson.A)
	var sum int64
	for _, d := range dbs {
		sum += lookup(d.(bson.D), "sizeOnDisk").(int64)
	}
	if total, _ := lookup(r, "totalSize").(int64); !ra26OK(r) || total != sum {
		t.Errorf("a reader of app's listDatabases: totalSize %v, the databases shown add up to %d: %v", lookup(r, "totalSize"), sum, r)
	}
}

// Passes today; kept as a guard. A failed login on an authenticated
// connection leaves it as it was, as mongod (a failed SASL step marks
// the authentication session failed and ends it, authentication_session.cpp
// markFailed; the client's user is untouched): neither dropped nor replaced
// by the user whose password was wrong.
func TestReviewAuth26FailedLoginKeepsConnectionUser(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	s.user(t, "app", "a", "pw", "read")
	c := s.conn(t, "app", "a", "pw")
	if r := ra26Login(t, c, "admin", "boss", "wrong"); ra26Code(r) != 18 || ra26Msg(r) != "Authentication failed." {
		t.Fatalf("wrong password for boss: %v; mongod: 18 Authentication failed.", r)
	}
	st := ra26Run(t, c, "admin", bson.D{{Key: "connectionStatus", Value: 1}})
	if got := ra26Users(st); len(got) != 1 || got[0] != "a@app" {
		t.Errorf("after a failed login as boss the connection is %v; want a@app still", got)
	}
	if r := ra26Run(t, c, "admin", bson.D{{Key: "listDatabases", Value: 1}, {Key: "nameOnly", Value: true}}); strings.Contains(fmt.Sprint(r), "admin") {
		t.Errorf("after a failed login as boss, listDatabases shows admin: %v", r)
	}
}
