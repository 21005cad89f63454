package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/ttlkv/ttlkv/engine"
	"github.com/ttlkv/ttlkv/wire"
)

// startWire serves an engine on a fresh data directory on a free
// loopback port until the test ends, and returns its mongodb:// URI.
func startWire(t *testing.T) string {
	t.Helper()
	return startWireOpts(t, wire.Options{})
}

func startWireOpts(t *testing.T, opts wire.Options) string {
	t.Helper()
	uri, _ := startWireStop(t, opts)
	return uri
}

// startWireStop is startWire that also returns a function stopping the
// server early.
func startWireStop(t *testing.T, opts wire.Options) (string, func()) {
	t.Helper()
	db, err := engine.Open(t.TempDir(), engine.Options{DisableTTLMonitor: true}) // nothing expires behind the comparisons
	if err != nil {
		t.Fatal(err)
	}
	srv := wire.NewServer(db, opts)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			srv.Close()
			db.Close()
		})
	}
	t.Cleanup(stop)
	return "mongodb://" + l.Addr().String() + "/?serverSelectionTimeoutMS=10000", stop
}

// both runs the same ttlkv command embedded (on dir) and with --uri, and
// fails unless stdout and the exit code are the same.
func both(t *testing.T, dir, uri, stdin string, args ...string) (string, string) {
	t.Helper()
	out1, err1, code1 := cli(t, nil, dir, stdin, args...)
	out2, err2, code2 := cli(t, nil, "", stdin, append([]string{"--uri", uri}, args...)...)
	if code1 != code2 || out1 != out2 {
		t.Fatalf("ttlkv %s\nembedded (exit %d):\n%s%s\n--uri (exit %d):\n%s%s", strings.Join(args, " "), code1, out1, err1, code2, out2, err2)
	}
	return out1, err2
}

func TestURIEvalAndShellMatchEmbedded(t *testing.T) {
	t.Parallel()
	dir, uri := t.TempDir(), startWire(t)
	script := `db.log.drop();
db.createCollection("log", {capped: true, size: 65536, max: 3});
db.log.insertMany([{_id: 1, at: ISODate("2026-01-02T03:04:05Z"), n: NumberLong(5)}, {_id: 2, v: 1.5}, {_id: 3}, {_id: 4, s: "x"}]);
print(db.log.countDocuments());
db.events.createIndex({at: 1}, {expireAfterSeconds: 3600});
db.events.insertOne({_id: "a", at: new Date()});
printjson(db.events.getIndexes());
printjson(db.log.find({}, {_id: 1}).sort({_id: -1}).toArray());
try { db.events.insertOne({_id: "a"}) } catch (e) { print(e.code, String(e.codeName)) }
try { db.runCommand({noSuchCommand: 1}) } catch (e) { print("threw", e.code, e.codeName) }
db.log.find().batchSize(1).toArray().length`
	out, _ := both(t, dir, uri, "", "eval", script)
	for _, want := range []string{"3\n", "11000 undefined", "expireAfterSeconds: 3600", "threw 59 CommandNotFound"} {
		if !strings.Contains(out, want) {
			t.Errorf("eval output lacks %q:\n%s", want, out)
		}
	}
	out, _ = both(t, dir, uri, "db.log.find({_id: {$gte: 3}})\nshow collections\nuse other\ndb.getName()\n", "shell")
	if !strings.Contains(out, "log") || !strings.Contains(out, "other") {
		t.Errorf("shell output:\n%s", out)
	}
}

func TestURIRunMatchesEmbedded(t *testing.T) {
	t.Parallel()
	dir, uri := t.TempDir(), startWire(t)
	both(t, dir, uri, "", "run", `{"insert": "c", "documents": [{"_id": 1}, {"_id": 2}]}`)
	out, _ := both(t, dir, uri, "", "run", `{"insert": "c", "documents": [{"_id": 1}]}`)
	if !strings.Contains(out, `"code":11000`) {
		t.Errorf("duplicate key: %s", out)
	}
	out, _ = both(t, dir, uri, "", "run", `{"noSuchCommand": 1}`)
	if !strings.Contains(out, `"code":59`) || !strings.Contains(out, `"ok":0`) {
		t.Errorf("unknown command: %s", out)
	}
	both(t, dir, uri, "", "run", `{"count": "c"}`)
	both(t, dir, uri, "", "--db", "other", "run", `{"listCollections": 1, "nameOnly": true}`)
}

func TestURIImportExport(t *testing.T) {
	t.Parallel()
	dir, uri := t.TempDir(), startWire(t)
	in := filepath.Join(t.TempDir(), "in.json")
	var b strings.Builder
	for i := 0; i < 250; i++ {
		b.WriteString(`{"_id": ` + strconv.Itoa(i) + `, "at": {"$date": "2026-01-01T00:00:00Z"}, "tag": "t` + strconv.Itoa(i%7) + `"}` + "\n")
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut := both(t, dir, uri, "", "import", "--collection", "c", "--file", in, "--batchSize", "10", "--numInsertionWorkers", "4")
	if !strings.Contains(errOut, "250") {
		t.Errorf("import --uri: %s", errOut)
	}
	out, _ := both(t, dir, uri, "", "export", "--collection", "c", "--query", `{"tag": "t3"}`, "--sort", `{"_id": 1}`)
	if n := strings.Count(out, "\n"); n != 36 {
		t.Errorf("export --uri: %d lines:\n%s", n, out)
	}
	// A duplicate import reports the server's write errors as the engine's.
	both(t, dir, uri, "", "import", "--collection", "c", "--file", in)
	// A time-series import creates the collection through the server.
	both(t, dir, uri, "", "import", "--collection", "ts", "--file", in, "--timeField", "at", "--metaField", "tag", "--expireAfterSeconds", "315360000") // ten years: no TTL pass touches it
	out, _ = both(t, dir, uri, "", "eval", `db.getCollectionInfos({name: "ts"})[0].options`)
	if !strings.Contains(out, "timeField: 'at'") || !strings.Contains(out, "expireAfterSeconds") {
		t.Errorf("time-series import --uri: %s", out)
	}
	both(t, dir, uri, "", "export", "--collection", "ts", "--sort", `{"tag": 1}`, "--fields", "tag", "--type", "csv")
}

func TestURIStats(t *testing.T) {
	t.Parallel()
	uri := startWire(t)
	if _, errOut, code := cli(t, nil, "", "", "--uri", uri, "eval", `db.createCollection("cap", {capped: true, size: 4096}); db.t.createIndex({at: 1}, {expireAfterSeconds: 60}); db.t.insertOne({at: new Date(0)})`); code != 0 {
		t.Fatalf("eval: %s", errOut)
	}
	out, errOut, code := cli(t, nil, "", "", "--uri", uri, "stats")
	if code != 0 {
		t.Fatalf("stats --uri exit %d: %s", code, errOut)
	}
	for _, want := range []string{"server           mongodb://127.0.0.1", "test.cap", "capped", "test.t", "at_1"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats --uri lacks %q:\n%s", want, out)
		}
	}
	out, errOut, code = cli(t, nil, "", "", "--uri", uri, "stats", "--json")
	if code != 0 || !strings.Contains(out, `"serverStatus"`) {
		t.Fatalf("stats --json --uri exit %d: %s%s", code, out, errOut)
	}
}

func TestURITailFollowsAnotherClient(t *testing.T) {
	t.Parallel()
	uri := startWire(t)
	ctx := context.Background()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	db := client.Database("test")
	if err := db.CreateCollection(ctx, "log", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("log").InsertOne(ctx, bson.D{{Key: "_id", Value: 0}, {Key: "old", Value: true}}); err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := &syncBuffer{}
	var errb bytes.Buffer
	batches := make(chan int64, 100)
	var caughtUp atomic.Bool
	e := &env{ctx: tctx, stdin: strings.NewReader(""), stdout: out, stderr: &errb,
		getenv: func(string) string { return "" }, isTerm: func(any) bool { return false },
		tailHook: func(printed int64, n int) {
			if n == 0 {
				caughtUp.Store(true)
			}
			if !caughtUp.Load() {
				return
			}
			select {
			case batches <- printed:
			default:
			}
		}}
	done := make(chan int, 1)
	go func() { done <- e.main([]string{"--uri", uri, "tail", "log", "--maxTimeMS", "200"}) }()
	// An empty batch after the document already there (skipped) means
	// tail has caught up; then another client writes.
	select {
	case <-batches:
	case code := <-done:
		t.Fatalf("tail exited %d: %s", code, errb.String())
	case <-time.After(20 * time.Second):
		t.Fatal("tail did not start")
	}
	for i := 1; i <= 3; i++ {
		if _, err := db.Collection("log").InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "msg", Value: "m" + strconv.Itoa(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.After(20 * time.Second)
	for got := int64(0); got < 3; {
		select {
		case got = <-batches:
		case code := <-done:
			t.Fatalf("tail exited %d: %s", code, errb.String())
		case <-deadline:
			t.Fatalf("tail printed %q", out.String())
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("tail exit %d: %s", code, errb.String())
	}
	want := `{"_id":1,"msg":"m1"}` + "\n" + `{"_id":2,"msg":"m2"}` + "\n" + `{"_id":3,"msg":"m3"}` + "\n"
	if out.String() != want {
		t.Errorf("tail --uri printed:\n%s\nwant:\n%s", out.String(), want)
	}
	// A collection the server does not have is the same error as embedded.
	_, errOut, code := cli(t, nil, "", "", "--uri", uri, "tail", "nosuch")
	if code != 1 || !strings.Contains(errOut, "does not exist") {
		t.Errorf("tail of a missing collection: exit %d: %s", code, errOut)
	}
}

// TestURIUnreachable: every command given a --uri where nothing listens
// exits 1 saying it cannot reach the server (a 50 ms server selection
// timeout: the port refuses at once, so waiting longer proves nothing).
func TestURIUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	for _, args := range [][]string{{"run", `{"ping": 1}`}, {"stats"}, {"tail", "log"}, {"export", "-c", "c"}, {"import", "-c", "c"}} {
		_, errOut, code := cli(t, nil, "", "", append([]string{"--uri", "mongodb://" + addr + "/?serverSelectionTimeoutMS=50"}, args...)...)
		if code != 1 || !strings.Contains(errOut, "cannot reach the server at mongodb://"+addr) {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
	// The shell and eval say it as mongosh does, at once.
	for _, args := range [][]string{{"eval", "1"}, {"shell"}} {
		_, errOut, code := cli(t, nil, "", "", append([]string{"--uri", "mongodb://" + addr + "/"}, args...)...)
		if code != 1 || errOut != "MongoNetworkError: connect ECONNREFUSED "+addr+"\n" {
			t.Errorf("%v: exit %d: %q", args, code, errOut)
		}
	}
	_, errOut, code := cli(t, nil, "", "", "--uri", "http://nowhere", "eval", "1")
	if code != 1 || !strings.Contains(errOut, "--uri") {
		t.Errorf("bad scheme: exit %d: %s", code, errOut)
	}
}

func TestURIAuth(t *testing.T) {
	t.Parallel()
	uri := startWireOpts(t, wire.Options{Auth: true})
	ctx := context.Background()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	// The localhost exception lets the first user be created.
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "alice"}, {Key: "pwd", Value: "s3cret"},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}}}).Err(); err != nil {
		t.Fatal(err)
	}
	withUser := func(user string) string {
		return strings.Replace(uri, "mongodb://", "mongodb://"+user+"@", 1) + "&authSource=admin"
	}
	out, errOut, code := cli(t, nil, "", "", "--uri", withUser("alice:s3cret"), "eval", `db.c.insertOne({_id: 1}); db.c.countDocuments()`)
	if code != 0 || out != "1\n" {
		t.Fatalf("eval as alice: exit %d: %s%s", code, out, errOut)
	}
	_, errOut, code = cli(t, nil, "", "", "--uri", withUser("alice:wrong"), "eval", "1")
	if code != 1 || errOut != "MongoServerError: Authentication failed.\n" {
		t.Errorf("wrong password: exit %d: %q, want mongosh's MongoServerError: Authentication failed.", code, errOut)
	}
	_, errOut, code = cli(t, nil, "", "", "--uri", withUser("alice:wrong"), "run", `{"ping": 1}`)
	if code != 1 || !strings.Contains(errOut, "cannot authenticate") || !strings.Contains(errOut, "AuthenticationFailed") || strings.Contains(errOut, "wrong") {
		t.Errorf("wrong password (run): exit %d: %s", code, errOut)
	}
	// Without credentials the server refuses the command with code 13.
	out, _, code = cli(t, nil, "", "", "--uri", uri, "run", `{"find": "c"}`)
	if code != 1 || !strings.Contains(out, `"code":13`) || !strings.Contains(out, `"codeName":"Unauthorized"`) {
		t.Errorf("unauthenticated find: exit %d: %s", code, out)
	}
}

func TestURIUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--uri", "mongodb://127.0.0.1:1", "--dir", dir, "eval", "1"},
		{"--dir", dir, "eval", "--uri", "mongodb://127.0.0.1:1", "1"},
		{"--uri", "mongodb://127.0.0.1:1", "reap"},
		{"--uri", "mongodb://127.0.0.1:1", "check"},
	} {
		_, errOut, code := cli(t, nil, "", "", args...)
		if code != 2 || !strings.Contains(errOut, "--uri") {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
	out, _, code := cli(t, nil, dir, "", "tail", "--help")
	if code != 0 || !strings.Contains(out, "--uri") {
		t.Errorf("tail --help lacks --uri:\n%s", out)
	}
	if out, _, _ := cli(t, nil, dir, "", "reap", "--help"); strings.Contains(out, "--uri") {
		t.Errorf("reap --help offers --uri:\n%s", out)
	}
}

// A server that goes away under tail --uri ends it with an error, not a
// hang.
func TestURITailServerGone(t *testing.T) {
	t.Parallel()
	uri, stop := startWireStop(t, wire.Options{})
	if _, errOut, code := cli(t, nil, "", "", "--uri", uri, "eval", `db.createCollection("log", {capped: true, size: 4096})`); code != 0 {
		t.Fatal(errOut)
	}
	started := make(chan struct{}, 1)
	var errb syncBuffer
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &syncBuffer{}, stderr: &errb,
		getenv: func(string) string { return "" }, isTerm: func(any) bool { return false },
		tailHook: func(int64, int) {
			select {
			case started <- struct{}{}:
			default:
			}
		}}
	done := make(chan int, 1)
	go func() {
		done <- e.main([]string{"--uri", uri + "&socketTimeoutMS=5000", "tail", "log", "--maxTimeMS", "100"})
	}()
	select {
	case <-started:
	case code := <-done:
		t.Fatalf("tail exited %d: %s", code, errb.String())
	case <-time.After(20 * time.Second):
		t.Fatal("tail did not start")
	}
	stop()
	select {
	case code := <-done:
		if code != 1 || !strings.HasPrefix(errb.String(), "ttlkv tail: ") {
			t.Errorf("tail after the server stopped: exit %d: %s", code, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("tail did not end when the server stopped")
	}
}

// fakeConn answers a listCollections whose cursor continues, and records
// the getMore it receives.
type fakeConn struct{ getMores []bson.D }

func (f *fakeConn) RunCommand(_ context.Context, db string, cmd bson.D) (bson.D, error) {
	if cmd[0].Key == "getMore" {
		f.getMores = append(f.getMores, cmd)
		return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(0)}, {Key: "ns", Value: db + ".$cmd.listCollections"},
			{Key: "nextBatch", Value: bson.A{bson.D{{Key: "name", Value: "b"}}}}}}, {Key: "ok", Value: 1.0}}, nil
	}
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(7)}, {Key: "ns", Value: db + ".$cmd.listCollections"},
		{Key: "firstBatch", Value: bson.A{bson.D{{Key: "name", Value: "a"}}}}}}, {Key: "ok", Value: 1.0}}, nil
}

// drain continues a listCollections cursor on the namespace MongoDB
// gave it, as a real server's getMore requires.
func TestDrainGetMoreNamespace(t *testing.T) {
	t.Parallel()
	f := &fakeConn{}
	var names []string
	err := drain(context.Background(), f, "app", "", bson.D{{Key: "listCollections", Value: 1}}, func(d bson.D) bool {
		names = append(names, d[0].Value.(string))
		return true
	})
	if err != nil || strings.Join(names, ",") != "a,b" || len(f.getMores) != 1 {
		t.Fatalf("drain: %v %v %v", err, names, f.getMores)
	}
	if c, _ := f.getMores[0][1].Value.(string); c != "$cmd.listCollections" {
		t.Errorf("getMore named collection %q, want $cmd.listCollections", c)
	}
}

// TestShellConnect: the shell's connect() and new Mongo() open
// connections with --uri's client, on a data directory or over --uri
// alike, and a script's error for an unreachable server is mongosh's.
func TestShellConnect(t *testing.T) {
	t.Parallel()
	uri := startWire(t)
	addr := strings.TrimSuffix(strings.TrimPrefix(uri, "mongodb://"), "/?serverSelectionTimeoutMS=10000")
	script := `const shop = connect("mongodb://` + addr + `/shop"); shop.items.insertOne({_id: 1});
const m = new Mongo("mongodb://` + addr + `"); print(shop, m.getDB("shop").items.countDocuments(), m.getDBNames().includes("shop"));
db = m.getDB("shop"); m.close();
try { db.items.findOne() } catch (e) { print(e.name) }`
	out, errOut, code := cli(t, nil, t.TempDir(), "", "eval", script)
	if code != 0 || out != "shop 1 true\nMongoNotConnectedError\n" {
		t.Errorf("eval on a data directory: exit %d: %s%s", code, out, errOut)
	}
	out, errOut, code = cli(t, nil, "", "", "--uri", uri, "eval", `Mongo(db.getMongo()).getDB("shop").items.countDocuments()`)
	if code != 0 || out != "1\n" {
		t.Errorf("Mongo(db.getMongo()) over --uri: exit %d: %s%s", code, out, errOut)
	}
	// db.getMongo() is the connection string in mongosh's shape, with
	// the shell's appName where mongosh has its own.
	out, errOut, code = cli(t, nil, "", "", "--uri", "mongodb://"+addr+"/shop", "eval", `db.getMongo()`)
	if want := "mongodb://" + addr + "/shop?directConnection=true&serverSelectionTimeoutMS=2000&appName=ttlkv+" + version + "\n"; code != 0 || out != want {
		t.Errorf("db.getMongo() over --uri: exit %d: %q%s, want %q", code, out, errOut, want)
	}
	out, errOut, code = cli(t, nil, t.TempDir(), "db = connect(\"mongodb://"+addr+"/shop\")\ndb.items.countDocuments()\nuse other\n", "shell")
	if code != 0 || !strings.Contains(out, "1\n") || !strings.Contains(out, "switched to db other") {
		t.Errorf("shell: exit %d: %s%s", code, out, errOut)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := l.Addr().String()
	l.Close()
	_, errOut, code = cli(t, nil, t.TempDir(), "", "eval", `connect("mongodb://`+gone+`/x?serverSelectionTimeoutMS=100")`)
	if code != 1 || errOut != "MongoNetworkError: connect ECONNREFUSED "+gone+"\n" {
		t.Errorf("unreachable: exit %d: %q", code, errOut)
	}
}
