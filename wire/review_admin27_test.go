package wire

// Review 27 of the administrative commands the wire server answers or
// completes itself (currentOp's client operations, listCommands' merge,
// buildInfo, serverStatus): the findings of review 26 that were left,
// each checked again against mongod 7.0's source
// (github.com/mongodb/mongo unless said otherwise).

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// currentOp's "op" names the operation's kind: "query" for a find,
// "getmore", "insert", "update", "remove", and "command" for the other
// commands; a getMore's ns is its cursor's collection. mongod: CurOp
// reports `op: logicalOpToString(_logicalOp)`, the logical op the
// command's getLogicalOp() gives (find_cmd.cpp opQuery, getmore_cmd.cpp
// opGetMore, write_commands.cpp opInsert, opUpdate and opDelete, whose
// name is "remove"; the default is opCommand). mongosh users filter
// db.currentOp({op: "getmore"}). The operations are registered directly
// (as a request registers them), so nothing has to block or be waited
// for; the driver's own currentOp then shows itself as a command.
func TestReviewAdmin27CurrentOpLogicalOp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	c := &conn{srv: e.srv, id: 99, remote: "127.0.0.1:1", ctx: context.Background()}
	for _, tc := range []struct {
		cmd    bson.D
		op, ns string
	}{
		{bson.D{{Key: "find", Value: "log"}}, "query", "app.log"},
		{bson.D{{Key: "getMore", Value: int64(12)}, {Key: "collection", Value: "log"}}, "getmore", "app.log"},
		{bson.D{{Key: "insert", Value: "log"}}, "insert", "app.log"},
		{bson.D{{Key: "update", Value: "log"}}, "update", "app.log"},
		{bson.D{{Key: "delete", Value: "log"}}, "remove", "app.log"},
		{bson.D{{Key: "aggregate", Value: "log"}}, "command", "app.log"},
		{bson.D{{Key: "findAndModify", Value: "log"}}, "command", "app.log"},
		{bson.D{{Key: "killCursors", Value: "log"}}, "command", "app.log"},
		{bson.D{{Key: "ping", Value: 1}}, "command", "app.$cmd"},
	} {
		o := e.srv.ops.start(c, "app", tc.cmd)
		var got bson.D
		for _, d := range e.srv.clientOps() {
			if lookup(d, "opid") == o.id {
				got = d
			}
		}
		e.srv.ops.finish(o)
		if kind := lookup(got, "op"); kind != tc.op {
			t.Errorf("%s: op %v, want %q", tc.cmd[0].Key, kind, tc.op)
		}
		if ns := lookup(got, "ns"); ns != tc.ns {
			t.Errorf("%s: ns %v, want %q", tc.cmd[0].Key, ns, tc.ns)
		}
	}
	var cur struct{ Inprog []bson.D }
	admin := e.client(t, true).Database("admin")
	if err := admin.RunCommand(context.Background(), bson.D{{Key: "currentOp", Value: 1},
		{Key: "command.currentOp", Value: bson.D{{Key: "$exists", Value: true}}}}).Decode(&cur); err != nil {
		t.Fatal(err)
	}
	if len(cur.Inprog) != 1 || lookup(cur.Inprog[0], "op") != "command" {
		t.Errorf("currentOp shows itself as %v, want one op: \"command\"", cur.Inprog)
	}
}

// listCommands says killOp is admin-only, as it is (ttlkv refuses it
// elsewhere with 13 too). mongod: KillOpCmdBase::adminOnly() returns
// true (kill_op_cmd_base.h), and listCommands reports adminOnly from
// it; the other commands the wire server answers itself (the session
// and user commands, whatsmyuri) are not admin-only.
func TestReviewAdmin27ListCommandsKillOpAdminOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	admin := e.client(t, true).Database("admin")
	raw, err := admin.RunCommand(context.Background(), bson.D{{Key: "listCommands", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"killOp": true, "whatsmyuri": false, "startSession": false} {
		v, err := raw.LookupErr("commands", name, "adminOnly")
		if err != nil {
			t.Fatalf("listCommands has no commands.%s.adminOnly: %v", name, err)
		}
		if b, ok := v.BooleanOK(); !ok || b != want {
			t.Errorf("listCommands: %s.adminOnly = %v, want %v", name, v, want)
		}
	}
	err = e.client(t, true).Database("app").RunCommand(context.Background(), bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: 1}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 13 {
		t.Errorf("killOp on app: %v, want 13 Unauthorized", err)
	}
}

// serverStatus' host names the server as mongod names itself:
// "<hostname>" or "<hostname>:<port>" when the port is not 27017, the
// same name hostInfo's system.hostname gives. mongod:
// server_status.cpp, result.append("host",
// prettyHostName(opCtx->getClient()->getLocalPort())); hostInfo uses
// the same prettyHostName.
func TestReviewAdmin27ServerStatusHost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	admin := e.client(t, false).Database("admin")
	ctx := context.Background()
	ss, err := admin.RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	hi, err := admin.RunCommand(ctx, bson.D{{Key: "hostInfo", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	host, _ := ss.Lookup("host").StringValueOK()
	name, _ := hi.Lookup("system", "hostname").StringValueOK()
	if name == "" || host != name {
		t.Errorf("serverStatus.host = %q, hostInfo.system.hostname = %q; mongod gives both prettyHostName()", host, name)
	}
}

// buildInfo has mongod's modules (an array, [] for a community build),
// allocator, javascriptEngine and sysInfo ("deprecated"). mongod 7.0:
// VersionInfoInterface::appendBuildInfo (src/mongo/util/version_impl.cpp)
// appends version, gitVersion, modules, allocator, javascriptEngine,
// sysInfo, versionArray, openssl, buildEnvironment, bits, debug,
// maxBsonObjectSize; tools read modules to tell an enterprise build
// (mongodb-build-info's isEnterprise).
func TestReviewAdmin27BuildInfoFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	admin := e.client(t, true).Database("admin")
	r, err := admin.RunCommand(context.Background(), bson.D{{Key: "buildInfo", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := r.Lookup("modules").ArrayOK(); !ok {
		t.Errorf("buildInfo has no modules array: %v", r)
	} else if vals, _ := a.Values(); len(vals) != 0 {
		t.Errorf("modules = %v, want [] (not an enterprise build)", vals)
	}
	for _, f := range []string{"allocator", "javascriptEngine", "sysInfo"} {
		if _, ok := r.Lookup(f).StringValueOK(); !ok {
			t.Errorf("buildInfo has no %s string", f)
		}
	}
	if s, _ := r.Lookup("sysInfo").StringValueOK(); s != "deprecated" {
		t.Errorf("sysInfo = %q, want \"deprecated\"", s)
	}
	if _, ok := r.Lookup("buildEnvironment").DocumentOK(); !ok {
		t.Errorf("buildInfo has no buildEnvironment document")
	}
}

// A driver pages through listCollections and listIndexes with getMore
// when it asks for a small batch: the wire server follows the cursors
// the engine leaves on db.$cmd.listCollections and db.coll, for their
// user, as mongod's list commands keep theirs (list_collections.cpp,
// list_indexes.cpp).
func TestReviewAdmin27ListCursorsThroughDriver(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	db := e.client(t, true).Database("app")
	for _, c := range []string{"c1", "c2", "c3"} {
		if err := db.CreateCollection(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	before := e.srv.Stats().GetMore
	names, err := db.ListCollectionNames(ctx, bson.D{}, options.ListCollections().SetBatchSize(1))
	if err != nil || len(names) != 3 {
		t.Errorf("listCollections in batches of 1: %v, %v; want c1, c2 and c3", names, err)
	}
	if n := e.srv.Stats().GetMore - before; n < 1 {
		t.Errorf("listCollections in batches of 1 over 3 took %d getMores", n)
	}
	if _, err := db.Collection("c1").Indexes().CreateMany(ctx, []mongo.IndexModel{{Keys: bson.D{{Key: "a", Value: 1}}}, {Keys: bson.D{{Key: "b", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	cur, err := db.Collection("c1").Indexes().List(ctx, options.ListIndexes().SetBatchSize(1))
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.D
	if err := cur.All(ctx, &specs); err != nil || len(specs) != 3 {
		t.Errorf("listIndexes in batches of 1: %d indexes, %v; want 3", len(specs), err)
	}
}
