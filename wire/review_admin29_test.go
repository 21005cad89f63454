package wire

// Administrative answers measured against mongod 7.0 (session 29):
// collection UUIDs on listCollections and expanded change events,
// admin's system collections in listCollections, and what
// authorizedCollections lists to a user. The helpers (ra26Setup,
// ra26Run, ...) are in review_auth26_test.go.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/ttlkv/ttlkv/engine"
)

// Through the official driver: ListCollectionSpecifications gives each
// collection's UUID (info.uuid), and a change stream opened with
// ShowExpandedEvents carries it as collectionUUID on the collection's
// events (create, insert, createIndexes, rename with dropTarget naming
// the target's UUID), not on dropDatabase's, as mongod 7.0's; without
// ShowExpandedEvents the events have none.
func TestReviewAdmin29CollectionUUID(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, Options{}, engine.Options{ChangeStreams: true})
	ctx := context.Background()
	db := e.client(t, false).Database("app")
	exp, err := db.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetShowExpandedEvents(true))
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Close(ctx)
	plain, err := db.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(ctx)
	if err := db.CreateCollection(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateCollection(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	uuids := map[string]string{}
	for _, s := range specs {
		if s.UUID == nil || s.UUID.Subtype != bson.TypeBinaryUUID || len(s.UUID.Data) != 16 {
			t.Fatalf("%s: UUID %v", s.Name, s.UUID)
		}
		uuids[s.Name] = fmt.Sprintf("%x", s.UUID.Data)
	}
	if len(uuids) != 2 || uuids["c"] == uuids["t"] {
		t.Fatalf("uuids %v", uuids)
	}
	if _, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("c").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: "app.c"},
		{Key: "to", Value: "app.t"}, {Key: "dropTarget", Value: true}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := db.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	type ev struct {
		Op   string        `bson:"operationType"`
		UUID *bson.Binary  `bson:"collectionUUID"`
		Desc bson.Raw      `bson:"operationDescription"`
		NS   bson.D        `bson:"ns"`
		Wall bson.DateTime `bson:"wallTime"`
	}
	var got []string
	deadline, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for len(got) < 7 && exp.Next(deadline) {
		var x ev
		if err := exp.Decode(&x); err != nil {
			t.Fatal(err)
		}
		u := "-"
		if x.UUID != nil {
			u = fmt.Sprintf("%x", x.UUID.Data)
			if x.UUID.Subtype != bson.TypeBinaryUUID {
				t.Errorf("%s: collectionUUID subtype %d", x.Op, x.UUID.Subtype)
			}
		}
		for n, v := range uuids {
			if u == v {
				u = n
			}
		}
		got = append(got, x.Op+":"+u)
		if x.Op == "rename" {
			sub, data, ok := x.Desc.Lookup("dropTarget").BinaryOK()
			if !ok || sub != bson.TypeBinaryUUID || fmt.Sprintf("%x", data) != uuids["t"] {
				t.Errorf("rename operationDescription %v, want dropTarget %s", x.Desc, uuids["t"])
			}
		}
	}
	want := "[create:c create:t insert:c createIndexes:c rename:c drop:c dropDatabase:-]"
	if fmt.Sprint(got) != want {
		t.Errorf("expanded events %v\nwant %s", got, want)
	}
	for i := 0; i < 4 && plain.Next(deadline); i++ {
		if v := plain.Current.Lookup("collectionUUID"); v.Type != 0 {
			t.Errorf("%v without showExpandedEvents has collectionUUID", plain.Current.Lookup("operationType"))
		}
	}
}

// listCollections on admin lists system.users once a user exists, as
// mongod lists the system collections that exist. With
// authorizedCollections (mongosh's show collections), a user sees only
// the collections it has some privilege on: a reader of admin does not
// see system.users (a database privilege covers no system collection),
// root and userAdminAnyDatabase do; a user with a privilege in the
// database but no listCollections may still list by name (nameOnly,
// authorizedCollections) and gets what it may touch, as mongod's
// checkAuthorizedToListCollections allows.
func TestReviewAdmin29ListCollectionsAuthorized(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	s.user(t, "admin", "reader", "pw", "read")
	s.user(t, "admin", "uadmin", "pw", "userAdminAnyDatabase")
	s.user(t, "app", "appw", "pw", "readWrite")
	s.user(t, "admin", "adminUA", "pw", "userAdmin")
	s.user(t, "admin", "anyReader", "pw", "readAnyDatabase")
	for _, ns := range [][2]string{{"admin", "notes"}, {"local", "x"}, {"app", "y"}} {
		if _, err := s.root.Database(ns[0]).Collection(ns[1]).InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	names := func(r bson.D) string {
		cur, _ := lookup(r, "cursor").(bson.D)
		batch, _ := lookup(cur, "firstBatch").(bson.A)
		var out []string
		for _, d := range batch {
			n, _ := lookup(d.(bson.D), "name").(string)
			out = append(out, n)
		}
		sort.Strings(out)
		return fmt.Sprint(out)
	}
	all := bson.D{{Key: "listCollections", Value: 1}, {Key: "nameOnly", Value: true}}
	authorized := bson.D{{Key: "listCollections", Value: 1}, {Key: "nameOnly", Value: true}, {Key: "authorizedCollections", Value: true}}
	cases := []struct {
		db, user string
		cmd      bson.D
		want     string
	}{
		// admin.system.version is there too, as on mongod: read
		// by root and userAdminAnyDatabase, not by read on admin.
		{"admin", "boss", all, "[notes system.users system.version]"},
		{"admin", "boss", authorized, "[notes system.users system.version]"},
		{"admin", "reader", all, "[notes system.users system.version]"},
		{"admin", "reader", authorized, "[notes]"},
		{"admin", "uadmin", authorized, "[notes system.users system.version]"},
		{"app", "appw", authorized, "[y]"},
		{"admin", "adminUA", authorized, "[notes]"},
		// readAnyDatabase covers every database's ordinary collections
		// but those of local and config, as mongod's anyNormalResource.
		{"app", "anyReader", authorized, "[y]"},
		{"admin", "anyReader", authorized, "[notes]"},
		{"local", "anyReader", authorized, "[]"},
	}
	for _, c := range cases {
		pwd := "pw"
		if c.user == "boss" {
			pwd = "s3cret"
		}
		loginDB := "admin"
		if c.user == "appw" {
			loginDB = "app"
		}
		r := ra26Run(t, s.conn(t, loginDB, c.user, pwd), c.db, c.cmd)
		if !ra26OK(r) || names(r) != c.want {
			t.Errorf("%s on %s %v: %v, want %s", c.user, c.db, c.cmd[2:], r, c.want)
		}
	}
	// Without a privilege in admin, listing admin is refused (13), as
	// mongod's; so is listing without authorizedCollections without
	// the listCollections action.
	const refused = "Not authorized to list collections on db: admin"
	appw := s.conn(t, "app", "appw", "pw")
	for _, cmd := range []bson.D{authorized, all} {
		if r := ra26Run(t, appw, "admin", cmd); ra26Code(r) != 13 || ra26Msg(r) != refused {
			t.Errorf("readWrite@app lists admin %v: %v, want 13 %s", cmd[2:], r, refused)
		}
	}
	if r := ra26Run(t, s.conn(t, "admin", "adminUA", "pw"), "admin", all); ra26Code(r) != 13 || ra26Msg(r) != refused {
		t.Errorf("userAdmin@admin lists admin without authorizedCollections: %v, want 13 %s", r, refused)
	}
}

// Over TCP, $collStats and $indexStats name the server "host:port" and
// dbHash names it "host:port" (the port is not 27017), as mongod's; the
// in-process transport has no port, so the host alone.
func TestReviewAdmin29HostPort(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	host, _ := os.Hostname()
	transports(t, func(t *testing.T, inproc bool) {
		db := e.client(t, inproc).Database("app")
		if _, err := db.Collection("c").InsertOne(ctx, bson.D{}); err != nil {
			t.Fatal(err)
		}
		want := host
		if !inproc {
			_, port, _ := net.SplitHostPort(e.addr)
			want = host + ":" + port
		}
		for _, stage := range []string{"$collStats", "$indexStats"} {
			arg := bson.D{}
			if stage == "$collStats" {
				arg = bson.D{{Key: "count", Value: bson.D{}}}
			}
			cur, err := db.Collection("c").Aggregate(ctx, mongo.Pipeline{{{Key: stage, Value: arg}}})
			if err != nil {
				t.Fatal(err)
			}
			var docs []bson.M
			if err := cur.All(ctx, &docs); err != nil || len(docs) == 0 {
				t.Fatalf("%s: %v %v", stage, docs, err)
			}
			if docs[0]["host"] != want {
				t.Errorf("%s host %v, want %s", stage, docs[0]["host"], want)
			}
		}
		var r bson.M
		if err := db.RunCommand(ctx, bson.D{{Key: "dbHash", Value: 1}}).Decode(&r); err != nil {
			t.Fatal(err)
		}
		if r["host"] != want {
			t.Errorf("dbHash host %v, want %s", r["host"], want)
		}
		// currentOp's operations name the server with its port
		// (getHostNameCachedAndPort), even 27017.
		var ops struct {
			Inprog []bson.M `bson:"inprog"`
		}
		if err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}}).Decode(&ops); err != nil || len(ops.Inprog) == 0 {
			t.Fatalf("currentOp: %v %v", ops, err)
		}
		for _, op := range ops.Inprog {
			if op["host"] != want {
				t.Errorf("currentOp op host %v, want %s", op["host"], want)
			}
		}
	})
}

// bulkWrite's items through the wire: a failed operation's item is
// mongod's BulkWriteReplyItem {ok: 0, idx, code, errmsg, keyPattern,
// keyValue, n: 0}, with no codeName, and the driver reports it.
func TestReviewAdmin29BulkWriteItems(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	client := e.client(t, false)
	if _, err := client.Database("app").Collection("a").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	var r bson.Raw
	err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "bulkWrite", Value: 1},
		{Key: "ops", Value: bson.A{bson.D{{Key: "insert", Value: 0}, {Key: "document", Value: bson.D{{Key: "_id", Value: 1}}}}}},
		{Key: "nsInfo", Value: bson.A{bson.D{{Key: "ns", Value: "app.a"}}}}}).Decode(&r)
	if err != nil {
		t.Fatal(err)
	}
	item, err := r.LookupErr("cursor", "firstBatch", "0")
	if err != nil {
		t.Fatalf("reply %v", r)
	}
	want := `{"ok": {"$numberDouble":"0.0"},"idx": {"$numberInt":"0"},"code": {"$numberInt":"11000"},` +
		`"errmsg": "E11000 duplicate key error collection: app.a index: _id_ dup key: { _id: 1 }",` +
		`"keyPattern": {"_id": {"$numberInt":"1"}},"keyValue": {"_id": {"$numberInt":"1"}},"n": {"$numberInt":"0"}}`
	if got := item.Document().String(); got != want {
		t.Errorf("item %s\nwant %s", got, want)
	}
	_, err = client.BulkWrite(ctx, []mongo.ClientBulkWrite{{Database: "app", Collection: "a",
		Model: mongo.NewClientInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 1}})}})
	var bwe mongo.ClientBulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteErrors[0].Code != 11000 {
		t.Errorf("driver bulk write: %v", err)
	}
}

// Through the wire, a writeConcern of the wrong type is 14 with mongod
// 7.0's message, quoting the type it found (the server used to leave it
// out), and j: 1 is taken as j: true, as mongod's safeBool.
func TestReviewAdmin29WriteConcernTypes(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	c := s.conn(t, "admin", "boss", "s3cret")
	r := ra26Run(t, c, "app", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{}}}, {Key: "writeConcern", Value: "majority"}})
	if ra26Code(r) != 14 || ra26Msg(r) != `"writeConcern" had the wrong type. Expected object, found string` {
		t.Errorf("writeConcern string: %v", r)
	}
	r = ra26Run(t, c, "app", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{}}}, {Key: "writeConcern", Value: bson.D{{Key: "j", Value: "yes"}}}})
	if ra26Code(r) != 14 || ra26Msg(r) != "BSON field 'writeConcern.j' is the wrong type 'string', expected types '[bool, long, int, decimal, double]'" {
		t.Errorf("writeConcern j string: %v", r)
	}
	r = ra26Run(t, c, "app", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{}}}, {Key: "writeConcern", Value: bson.D{{Key: "j", Value: int32(1)}}}})
	if !ra26OK(r) {
		t.Errorf("writeConcern j: 1: %v", r)
	}
}

// bulkWrite's cursor through the wire: a batchSize leaves the rest of
// the results to a getMore on admin.$cmd.bulkWrite.
func TestReviewAdmin29BulkWriteCursor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	c := rawConn(t, e.listen(t))
	r := ra26Run(t, c, "admin", bson.D{{Key: "bulkWrite", Value: 1}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 1}}},
		{Key: "ops", Value: bson.A{bson.D{{Key: "insert", Value: 0}, {Key: "document", Value: bson.D{}}},
			bson.D{{Key: "insert", Value: 0}, {Key: "document", Value: bson.D{}}}}},
		{Key: "nsInfo", Value: bson.A{bson.D{{Key: "ns", Value: "app.a"}}}}})
	cur, _ := lookup(r, "cursor").(bson.D)
	id, _ := lookup(cur, "id").(int64)
	if !ra26OK(r) || id == 0 {
		t.Fatalf("reply %v", r)
	}
	g := ra26Run(t, c, "admin", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "$cmd.bulkWrite"}})
	gc, _ := lookup(g, "cursor").(bson.D)
	next, _ := lookup(gc, "nextBatch").(bson.A)
	if len(next) != 1 || lookup(next[0].(bson.D), "idx") != int32(1) || lookup(gc, "id") != int64(0) {
		t.Errorf("getMore %v", g)
	}
}

// The any-database roles reach every database but local and config
// (mongod's anyNormalResource): readAnyDatabase finds in app but not in
// local (13), readWriteAnyDatabase writes neither local nor config,
// dbAdminAnyDatabase lists no collection of local; root reads them.
func TestReviewAdmin29AnyDatabaseRolesLeaveLocalAndConfig(t *testing.T) {
	t.Parallel()
	s := ra26Setup(t)
	ctx := context.Background()
	for _, ns := range [][2]string{{"local", "x"}, {"config", "x"}, {"app", "y"}} {
		if _, err := s.root.Database(ns[0]).Collection(ns[1]).InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	s.user(t, "admin", "anyReader", "pw", "readAnyDatabase")
	s.user(t, "admin", "anyWriter", "pw", "readWriteAnyDatabase")
	s.user(t, "admin", "anyAdmin", "pw", "dbAdminAnyDatabase")
	find := func(coll string) bson.D { return bson.D{{Key: "find", Value: coll}} }
	insert := bson.D{{Key: "insert", Value: "x"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 2}}}}}
	list := bson.D{{Key: "listCollections", Value: 1}}
	cases := []struct {
		user, loginDB, db string
		cmd               bson.D
		ok                bool
	}{
		{"anyReader", "admin", "app", find("y"), true},
		{"anyReader", "admin", "local", find("x"), false},
		{"anyReader", "admin", "config", find("x"), false},
		{"anyReader", "admin", "local", list, false},
		{"anyWriter", "admin", "app", find("y"), true},
		{"anyWriter", "admin", "local", insert, false},
		{"anyWriter", "admin", "config", insert, false},
		{"anyAdmin", "admin", "app", list, true},
		{"anyAdmin", "admin", "local", list, false},
		{"boss", "admin", "local", find("x"), true},
	}
	for _, c := range cases {
		pwd := "pw"
		if c.user == "boss" {
			pwd = "s3cret"
		}
		r := ra26Run(t, s.conn(t, c.loginDB, c.user, pwd), c.db, c.cmd)
		if c.ok && !ra26OK(r) {
			t.Errorf("%s on %s %v: %v, want ok", c.user, c.db, c.cmd, r)
		}
		if !c.ok && ra26Code(r) != 13 {
			t.Errorf("%s on %s %v: %v, want 13 as mongod", c.user, c.db, c.cmd, r)
		}
	}
}
