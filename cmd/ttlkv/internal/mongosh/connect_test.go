package mongosh

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/cmd/ttlkv/internal/remote"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
	"github.com/ttlkv/ttlkv/lsm"
	"github.com/ttlkv/ttlkv/wire"
)

// serve runs a ttlkv wire server on a free loopback port until the test
// ends and returns its address and engine.
func serve(t *testing.T, opts wire.Options) (string, *engine.DB) {
	t.Helper()
	db, err := engine.Open(t.TempDir(), engine.Options{DisableTTLMonitor: true, MemoryBudget: lsm.MinMemoryBudget})
	if err != nil {
		t.Fatal(err)
	}
	srv := wire.NewServer(db, opts)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() {
		srv.Close()
		db.Close()
	})
	return l.Addr().String(), db
}

// dialer is Options.Dial with the driver client of ttlkv's --uri
// (cmd/ttlkv's shellDial), keeping every connection it opened.
type dialer struct {
	mu    sync.Mutex
	conns []*remote.Conn
	uris  []string
}

func (d *dialer) dial(ctx context.Context, uri string) (Runner, error) {
	c, err := remote.Dial(ctx, uri, "ttlkv test")
	d.mu.Lock()
	defer d.mu.Unlock()
	d.uris = append(d.uris, uri)
	if err != nil {
		return nil, err
	}
	d.conns = append(d.conns, c)
	return c, nil
}

// closed reports whether c was disconnected.
func closed(c *remote.Conn) bool {
	_, err := c.RunCommand(context.Background(), "admin", bson.D{{Key: "ping", Value: 1}})
	return err != nil
}

// count is the number of documents of db.coll on an engine.
func count(t *testing.T, e *engine.DB, db, coll string) int64 {
	t.Helper()
	r, err := e.RunCommand(context.Background(), db, bson.D{{Key: "count", Value: coll}})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := document.Get(r, "n")
	return document.Int64(n)
}

func TestMongoshURI(t *testing.T) {
	t.Parallel()
	const p = "directConnection=true&serverSelectionTimeoutMS=2000"
	for spec, want := range map[string]string{
		"mongodb://127.0.0.1:27017/shop":                   "mongodb://127.0.0.1:27017/shop?" + p,
		"mongodb://localhost":                              "mongodb://localhost/?" + p,
		"mongodb://localhost/?appName=x":                   "mongodb://localhost/?appName=x&" + p,
		"mongodb://h.example:1/db":                         "mongodb://h.example:1/db?directConnection=true",
		"mongodb://a:1,b:2/db":                             "mongodb://a:1,b:2/db",
		"mongodb://127.0.0.1,localhost:2/":                 "mongodb://127.0.0.1,localhost:2/?serverSelectionTimeoutMS=2000",
		"mongodb://u:p@127.0.0.1/?replicaSet=rs":           "mongodb://u:p@127.0.0.1/?replicaSet=rs&serverSelectionTimeoutMS=2000",
		"mongodb://127.0.0.1/?serverSelectionTimeoutMS=50": "mongodb://127.0.0.1/?serverSelectionTimeoutMS=50&directConnection=true",
		"mongodb+srv://c.example/db":                       "mongodb+srv://c.example/db",
		"shop":                                             "mongodb://127.0.0.1:27017/shop?" + p,
		"localhost:28000/shop":                             "mongodb://localhost:28000/shop?" + p,
		"h.example":                                        "mongodb://h.example:27017/?directConnection=true",
		"x":                                                "mongodb://127.0.0.1:27017/x?" + p,
		"":                                                 "mongodb://127.0.0.1:27017/?" + p,
		"a b":                                              "error Invalid URI: a b",
		"http://h/db":                                      "error Invalid URI: http://h/db",
	} {
		got, err := mongoshURI(spec)
		if err != nil {
			got = "error " + err.Error()
		}
		if got != want {
			t.Errorf("mongoshURI(%q) = %q, want %q", spec, got, want)
		}
	}
	for uri, want := range map[string]string{
		"mongodb://127.0.0.1:5/test":                  "mongodb://127.0.0.1:5/test?" + p + "&appName=ttlkv+1.2",
		"mongodb://127.0.0.1:5":                       "mongodb://127.0.0.1:5/?" + p + "&appName=ttlkv+1.2",
		"mongodb://localhost:5/?appName=mine":         "mongodb://localhost:5/?appName=mine&" + p,
		"mongodb://u:xxxxx@h.example:5/db?APPNAME=me": "mongodb://<credentials>@h.example:5/db?APPNAME=me&directConnection=true",
		"mongodb+srv://c.example/db":                  "mongodb+srv://c.example/db?appName=ttlkv+1.2",
	} {
		if got := ShellURI(uri, "ttlkv 1.2"); got != want {
			t.Errorf("ShellURI(%q) = %q, want %q", uri, got, want)
		}
	}
	if got := withUser("mongodb://old:pw@h/db?x=1", "al ice", "p@ss"); got != "mongodb://al%20ice:p%40ss@h/db?x=1" {
		t.Errorf("withUser: %s", got)
	}
	if got := redactURI("mongodb://u:p@h/db"); got != "mongodb://<credentials>@h/db" {
		t.Errorf("redactURI: %s", got)
	}
}

// TestConnect runs connect(), new Mongo() and Mongo() of a shell on an
// embedded engine against a ttlkv wire server: the commands of the new
// connection's databases go to the server, db can be given one of them,
// close() disconnects, and Close disconnects the rest.
func TestConnect(t *testing.T) {
	t.Parallel()
	addr, served := serve(t, wire.Options{})
	d := &dialer{}
	s, out, own := testShell(t, Options{Dial: d.dial})
	uri := "mongodb://" + addr
	shown := "mongodb://" + addr + "/shop?directConnection=true&serverSelectionTimeoutMS=2000"
	cases := []struct{ src, want string }{
		{`const shop = connect("` + uri + `/shop"); shop.items.insertOne({_id: 1}); print(shop, shop.items.findOne(), typeof shop)`, "shop { _id: 1 } object"},
		{`shop.getMongo()`, shown},
		{`print(shop.getMongo().getURI(), shop.items.getMongo() === shop.getMongo(), db.getMongo() === shop.getMongo())`, shown + " true false"},
		{`connect("` + uri + `").getName()`, "test"},
		// db can be a database of another connection; use then stays
		// on that connection, as in mongosh.
		{`db = connect("` + uri + `/shop"); db.items.insertOne({_id: 2}); db.items.countDocuments()`, "2"},
		{`use other`, "switched to db other"},
		{`db.c.insertOne({_id: 1}); print(db.getName(), db.getMongo().getURI() === "` + shown + `")`, "other true"},
		{`show dbs`, ""}, // checked below: the server's databases
		{`try { db = 5 } catch (e) { print(e.name, e.code, e.message) }`, "MongoshInvalidInputError COMMON-10002 [COMMON-10002] Cannot reassign 'db' to non-Database type"},
		// new Mongo and Mongo: a connection.
		{`const m = new Mongo("` + uri + `/shop"); print(m, m.getDBNames().sort(), m.getDB("shop").items.countDocuments())`, shown + " [ 'admin', 'other', 'shop' ] 2"},
		{`const m2 = Mongo("` + uri + `"); print(m2.getDB("shop").getMongo() === m2, m2.getCollection("shop.items").countDocuments())`, "true 2"},
		{`print(m2.use("shop"), db.getMongo() === m2, db.items.countDocuments())`, "switched to db shop true 2"},
		{`try { m.getDB(5) } catch (e) { print(e.message) }`, "[COMMON-10001] Argument at position 0 must be of type string, got number instead (Mongo.getDB)"},
		{`try { m.getDB("a.b") } catch (e) { print(e.message) }`, "[COMMON-10001] Invalid database name: a.b"},
		// close: the connection's commands fail as the driver's do.
		{`m.close(); try { m.getDB("shop").items.findOne() } catch (e) { print(e.name, e.message) }`, "MongoNotConnectedError Client must be connected before running operations"},
		{`db = db.getSiblingDB("back"); db.getMongo().getDB("shop").items.countDocuments()`, "2"},
		// Mongo(m): m's connection string, opened again.
		{`Mongo(shop.getMongo()).getDB("shop").items.countDocuments()`, "2"},
		// The shell's own connection is untouched.
		{`db = connect("` + uri + `").getSiblingDB("x"); Mongo(db.getMongo()).getDB("shop").items.countDocuments()`, "2"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if tc.src == "show dbs" {
			if err != nil || !strings.Contains(got, "shop") || !strings.Contains(got, "other") {
				t.Errorf("show dbs on the server: %q (%v)", got, err)
			}
			continue
		}
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s:\n got %q (%v)\nwant %q", tc.src, got, err, tc.want)
		}
	}
	if n := count(t, served, "shop", "items"); n != 2 {
		t.Errorf("the server's shop.items has %d documents, want 2", n)
	}
	if n := count(t, own, "shop", "items"); n != 0 {
		t.Errorf("the shell's own engine's shop.items has %d documents, want 0", n)
	}
	if s.DB() != "x" {
		t.Errorf("DB() = %q, want x", s.DB())
	}
	for i, u := range d.uris {
		if !strings.Contains(u, "directConnection=true&serverSelectionTimeoutMS=2000") {
			t.Errorf("dialled %s, without mongosh's parameters", d.uris[i])
		}
	}
	// m was closed by m.close(), the others by Close.
	if len(d.conns) != 8 {
		t.Fatalf("%d connections opened, want 8", len(d.conns))
	}
	if !closed(d.conns[3]) || closed(d.conns[0]) {
		t.Errorf("after m.close(): m's connection closed %v, shop's %v", closed(d.conns[3]), closed(d.conns[0]))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for i, c := range d.conns {
		if !closed(c) {
			t.Errorf("connection %d is open after Close", i)
		}
	}
	got, err := eval(t, s, out, `db.getMongo().getDB("x").c.findOne()`)
	if err == nil || !strings.Contains(err.Error(), "MongoNotConnectedError") {
		t.Errorf("a command after Close: %q (%v)", got, err)
	}
}

// TestConnectErrors: what mongosh says of a connection string it cannot
// use, a server that is not there and a shell that opens no connection;
// an unreachable server is reported within the selection timeout, not
// after the driver's 30 s.
func TestConnectErrors(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := l.Addr().String()
	l.Close() // nothing listens there now
	d := &dialer{}
	s, out, _ := testShell(t, Options{Dial: d.dial})
	errLine := ` } catch (e) { print(e.name + ": " + e.message) }`
	cases := []struct{ src, want string }{
		{`try { connect("a b")` + errLine, "MongoshInvalidInputError: [COMMON-10001] Invalid URI: a b"},
		{`try { connect("mongodb://")` + errLine, "MongoParseError: must have at least 1 host"},
		{`try { connect()` + errLine, "MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 0 (connect)"},
		{`try { connect(5)` + errLine, "MongoshInvalidInputError: [COMMON-10001] Argument at position 0 must be of type string, got number instead (connect)"},
		{`try { connect("x", 1)` + errLine, "MongoshInvalidInputError: [COMMON-10001] Argument at position 1 must be of type string, got number instead (connect)"},
		{`try { new Mongo("mongodb://h/", {keyVaultNamespace: "a.b"})` + errLine, "MongoshUnimplementedError: [COMMON-90002] client-side field level encryption is not supported by ttlkv"},
		{`try { connect("mongodb://` + gone + `/x?serverSelectionTimeoutMS=100")` + errLine, "MongoNetworkError: connect ECONNREFUSED " + gone},
		{`try { new Mongo("mongodb://` + gone + `/?serverSelectionTimeoutMS=100")` + errLine, "MongoNetworkError: connect ECONNREFUSED " + gone},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s:\n got %q (%v)\nwant %q", tc.src, got, err, tc.want)
		}
	}
	if len(d.conns) != 0 {
		t.Errorf("%d connections opened", len(d.conns))
	}
	// Mongo() with no connection string: mongosh's default, localhost
	// (recorded, not dialled: nothing need listen there).
	var dialled string
	sd, outd, _ := testShell(t, Options{Dial: func(_ context.Context, uri string) (Runner, error) {
		dialled = uri
		return nil, errors.New("not dialled")
	}})
	if _, err := eval(t, sd, outd, `try { Mongo().close() } catch (e) {}`); err != nil {
		t.Error(err)
	}
	if dialled != "mongodb://localhost/?directConnection=true&serverSelectionTimeoutMS=2000" {
		t.Errorf("Mongo() dialled %s", dialled)
	}
	// Uncaught, as mongosh prints it ending a script.
	_, err = eval(t, s, out, `connect("mongodb://`+gone+`/?serverSelectionTimeoutMS=100")`)
	if err == nil || err.Error() != "MongoNetworkError: connect ECONNREFUSED "+gone {
		t.Errorf("uncaught: %v", err)
	}
	// A shell given no Dial opens no connection.
	s2, out2, _ := testShell(t, Options{})
	got, err := eval(t, s2, out2, `try { connect("mongodb://`+gone+`/")`+errLine)
	if err != nil || got != "MongoshUnimplementedError: [COMMON-90002] new Mongo connections are not supported for current platform: ttlkv\n" {
		t.Errorf("without Dial: %q (%v)", got, err)
	}
}

// TestConnectAuth: connect(uri, user, pwd) authenticates; credentials the
// server refuses are its error, as mongosh shows it.
func TestConnectAuth(t *testing.T) {
	t.Parallel()
	addr, _ := serve(t, wire.Options{Auth: true})
	d := &dialer{}
	s, out, _ := testShell(t, Options{Dial: d.dial})
	uri := "mongodb://" + addr + "/admin"
	cases := []struct{ src, want string }{
		// The localhost exception lets the first user be created.
		{`connect("` + uri + `").runCommand({createUser: "alice", pwd: "s3cret", roles: [{role: "root", db: "admin"}]}).ok`, "1"},
		{`const a = connect("` + uri + `", "alice", "s3cret"); a.getSiblingDB("app").c.insertOne({_id: 1}); a.getSiblingDB("app").c.countDocuments()`, "1"},
		{`a.getMongo()`, "mongodb://<credentials>@" + addr + "/admin?directConnection=true&serverSelectionTimeoutMS=2000"},
		{`try { connect("` + uri + `", "alice", "wrong") } catch (e) { print(e.name, e.code, e.codeName, e.message) }`, "MongoServerError 18 AuthenticationFailed Authentication failed."},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s:\n got %q (%v)\nwant %q", tc.src, got, err, tc.want)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestUnreachable checks the check made before the driver waits: a
// host that refuses is mongosh's MongoNetworkError at once; one that
// answers, several hosts or an SRV name are left to the driver.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	up := l.Addr().String()
	defer l.Close()
	l2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := l2.Addr().String()
	l2.Close()
	ctx := context.Background()
	err = Unreachable(ctx, "mongodb://"+gone+"/x")
	if se := DialError(err, "mongodb://"+gone+"/x"); err == nil || se == nil || se.Error() != "MongoNetworkError: connect ECONNREFUSED "+gone {
		t.Errorf("refused: %v, %v", err, se)
	}
	for _, uri := range []string{"mongodb://" + up + "/x", "mongodb://" + gone + "," + up + "/x", "mongodb+srv://c.example/x", "not a uri"} {
		if err := Unreachable(ctx, uri); err != nil {
			t.Errorf("Unreachable(%q) = %v, want nil", uri, err)
		}
	}
	if got := ConnectionURI("mongodb://127.0.0.1:5/x"); got != "mongodb://127.0.0.1:5/x?directConnection=true&serverSelectionTimeoutMS=2000" {
		t.Errorf("ConnectionURI: %s", got)
	}
}
