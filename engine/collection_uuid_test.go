package engine

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// listedUUIDs returns listCollections' info.uuid of each collection of
// dbName, by name ("none" for an entry without one).
func listedUUIDs(t *testing.T, db *DB, dbName string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range firstBatch(t, mustRun(t, db, dbName, `{"listCollections": 1}`)) {
		name, _ := get(d, "name")
		v := field(d, "info.uuid")
		switch u := v.(type) {
		case nil:
			out[name.(string)] = "none"
		case bson.Binary:
			if u.Subtype != bson.TypeBinaryUUID || len(u.Data) != 16 {
				t.Fatalf("%s: info.uuid %v is not a UUID", name, u)
			}
			out[name.(string)] = fmt.Sprintf("%x", u.Data)
		default:
			t.Fatalf("%s: info.uuid is %T", name, v)
		}
	}
	return out
}

// TestListCollectionsUUID: listCollections gives each collection a
// UUID in info.uuid, as mongod's: kept across a reopen, a rename within
// the database and a collMod; new for a rename to another database and
// for convertToCapped. Views and time-series collections have none;
// the buckets collection of a time-series collection has one.
func TestListCollectionsUUID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := openAt(t, dir, Options{})
	mustRun(t, db, "d", `{"create": "c"}`)
	mustRun(t, db, "d", `{"insert": "auto", "documents": [{"_id": 1}]}`)
	mustRun(t, db, "d", `{"create": "v", "viewOn": "c", "pipeline": []}`)
	mustRun(t, db, "d", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
	mustRun(t, db, "d", `{"create": "k", "capped": true, "size": 4096}`)
	u := listedUUIDs(t, db, "d")
	if u["v"] != "none" || u["ts"] != "none" {
		t.Errorf("view and time-series uuids: %s %s, want none", u["v"], u["ts"])
	}
	seen := map[string]bool{}
	for _, n := range []string{"c", "auto", "system.buckets.ts", "k"} {
		if u[n] == "none" || u[n] == "" || seen[u[n]] {
			t.Errorf("%s: uuid %q, want one of its own", n, u[n])
		}
		seen[u[n]] = true
	}
	mustRun(t, db, "d", `{"collMod": "c", "validator": {"a": 1}}`)
	mustRun(t, db, "d", `{"collMod": "k", "cappedSize": 8192}`)
	if got := listedUUIDs(t, db, "d"); got["c"] != u["c"] || got["k"] != u["k"] {
		t.Errorf("after collMod: c %s k %s, want %s %s", got["c"], got["k"], u["c"], u["k"])
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openAt(t, dir, Options{})
	after := listedUUIDs(t, db, "d")
	for n, v := range u {
		if after[n] != v {
			t.Errorf("%s after reopen: %s, want %s", n, after[n], v)
		}
	}
	mustRun(t, db, "admin", `{"renameCollection": "d.c", "to": "d.c2"}`)
	mustRun(t, db, "admin", `{"renameCollection": "d.auto", "to": "e.auto"}`)
	mustRun(t, db, "d", `{"convertToCapped": "c2", "size": 4096}`)
	got := listedUUIDs(t, db, "d")
	if e := listedUUIDs(t, db, "e"); e["auto"] == u["auto"] || e["auto"] == "none" {
		t.Errorf("renamed to another database: %s, want a new uuid (was %s)", e["auto"], u["auto"])
	}
	if got["c2"] == u["c"] || got["c2"] == "none" {
		t.Errorf("convertToCapped: %s, want a new uuid (was %s)", got["c2"], u["c"])
	}
	mustRun(t, db, "d", `{"create": "r"}`)
	r := listedUUIDs(t, db, "d")["r"]
	mustRun(t, db, "admin", `{"renameCollection": "d.r", "to": "d.r2"}`)
	if got := listedUUIDs(t, db, "d")["r2"]; got != r {
		t.Errorf("renamed within its database: %s, want %s", got, r)
	}
}

// openAt opens the engine in dir, closed when the test ends.
func openAt(t *testing.T, dir string, o Options) *DB {
	t.Helper()
	o.DisableTTLMonitor, o.ChangeStreams = true, true
	db, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestWatchCollectionUUID: with showExpandedEvents, every event but
// dropDatabase's (and invalidate's) carries collectionUUID, the UUID
// listCollections shows, after clusterTime, as mongod's; a rename that
// drops its target names the target's UUID in operationDescription; a
// modify's stateBeforeChange.collectionOptions begins with the UUID.
// Without showExpandedEvents no event has it.
func TestWatchCollectionUUID(t *testing.T) {
	t.Parallel()
	db, _, _ := openChanges(t, Options{})
	ctx := context.Background()
	d := db.Database("d")
	exp, err := d.Watch(ctx, nil, ChangeStreamOptions{ShowExpandedEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := d.Watch(ctx, nil, ChangeStreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "d", `{"create": "c"}`)
	mustRun(t, db, "d", `{"create": "t"}`)
	u := listedUUIDs(t, db, "d")
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1, "a": 1}]}`)
	mustRun(t, db, "d", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 2}}}]}`)
	mustRun(t, db, "d", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"a": 3}}]}`)
	mustRun(t, db, "d", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	mustRun(t, db, "d", `{"collMod": "c", "validator": {"a": {"$gte": 0}}}`)
	mustRun(t, db, "d", `{"dropIndexes": "c", "index": "a_1"}`)
	mustRun(t, db, "d", `{"delete": "c", "deletes": [{"q": {"_id": 1}, "limit": 1}]}`)
	mustRun(t, db, "admin", `{"renameCollection": "d.c", "to": "d.t", "dropTarget": true}`)
	mustRun(t, db, "d", `{"dropDatabase": 1}`) // drops t (once c)

	type want struct{ op, uuid string }
	wants := []want{{"create", u["c"]}, {"create", u["t"]}, {"insert", u["c"]}, {"update", u["c"]},
		{"replace", u["c"]}, {"createIndexes", u["c"]}, {"modify", u["c"]}, {"dropIndexes", u["c"]},
		{"delete", u["c"]}, {"rename", u["c"]}, {"drop", u["c"]}, {"dropDatabase", "none"}, {"invalidate", "none"}}
	evs := drainStream(t, exp)
	if len(evs) != len(wants) {
		t.Fatalf("events %s, want %d", opsOf(evs), len(wants))
	}
	for i, e := range evs {
		op, _ := get(e, "operationType")
		got := "none"
		if b, ok := field(e, "collectionUUID").(bson.Binary); ok && b.Subtype == bson.TypeBinaryUUID {
			got = fmt.Sprintf("%x", b.Data)
		}
		if op != wants[i].op || got != wants[i].uuid {
			t.Errorf("event %d: %v collectionUUID %s, want %s %s", i, op, got, wants[i].op, wants[i].uuid)
		}
		if got != "none" {
			// mongod's order: _id, operationType, clusterTime,
			// collectionUUID, wallTime (a rename's "to" comes first).
			var keys []string
			for _, f := range e {
				keys = append(keys, f.Key)
			}
			at := 3
			if op == "rename" {
				at = 4
			}
			if len(keys) <= at+1 || keys[at] != "collectionUUID" || keys[at-1] != "clusterTime" || keys[at+1] != "wallTime" {
				t.Errorf("event %d (%v): fields %v", i, op, keys)
			}
		}
		switch op {
		case "rename":
			dt, _ := field(e, "operationDescription.dropTarget").(bson.Binary)
			if fmt.Sprintf("%x", dt.Data) != u["t"] || dt.Subtype != bson.TypeBinaryUUID {
				t.Errorf("rename dropTarget %v, want %s", dt, u["t"])
			}
			desc := field(e, "operationDescription").(bson.D)
			if len(desc) != 2 || desc[0].Key != "to" || desc[1].Key != "dropTarget" {
				t.Errorf("rename operationDescription %v, want to, dropTarget", desc)
			}
		case "modify":
			opts := field(e, "stateBeforeChange.collectionOptions").(bson.D)
			b, _ := opts[0].Value.(bson.Binary)
			if opts[0].Key != "uuid" || !bytes.Equal(b.Data, field(e, "collectionUUID").(bson.Binary).Data) {
				t.Errorf("modify stateBeforeChange.collectionOptions %v, want the uuid first", opts)
			}
		}
	}
	for _, e := range drainStream(t, plain) {
		if v := field(e, "collectionUUID"); v != nil {
			t.Errorf("%v without showExpandedEvents has collectionUUID %v", field(e, "operationType"), v)
		}
		if op := field(e, "operationType"); op == "rename" {
			if v := field(e, "operationDescription"); v != nil {
				t.Errorf("rename without showExpandedEvents has operationDescription %v", v)
			}
		}
	}
}

// TestWatchRenameNoTargetUUID: a rename that drops nothing has no
// dropTarget, as mongod's.
func TestWatchRenameNoTargetUUID(t *testing.T) {
	t.Parallel()
	db, _, _ := openChanges(t, Options{})
	ctx := context.Background()
	mustRun(t, db, "d", `{"create": "c"}`)
	cs, err := db.Database("d").Watch(ctx, nil, ChangeStreamOptions{ShowExpandedEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "admin", `{"renameCollection": "d.c", "to": "d.c2", "dropTarget": true}`)
	evs := drainStream(t, cs)
	if len(evs) != 1 {
		t.Fatalf("events %s, want [rename]", opsOf(evs))
	}
	if got := shapeOf(t, evs[0]); got != `{"to":{"db":"d","coll":"c2"},"operationType":"rename","collectionUUID":"UUID","ns":{"db":"d","coll":"c"},"operationDescription":{"to":{"db":"d","coll":"c2"}}}` {
		t.Errorf("rename: %s", got)
	}
}

// TestListCollectionsAdminSystemUsers: listCollections on admin lists
// system.users once it exists (the wire server's users), as mongod
// lists the system collections that exist, with its options, info and
// _id index; Database.ListCollectionNames too.
func TestListCollectionsAdminSystemUsers(t *testing.T) {
	t.Parallel()
	db, _, _ := openChanges(t, Options{})
	if got := fieldStrings(firstBatch(t, mustRun(t, db, "admin", `{"listCollections": 1}`)), "name"); fmt.Sprint(got) != "[system.version]" {
		t.Fatalf("admin before any user: %v", got)
	}
	mustRun(t, db, "admin", `{"insert": "system.users", "documents": [{"_id": "admin.u", "user": "u", "db": "admin"}]}`)
	mustRun(t, db, "admin", `{"insert": "c", "documents": [{"_id": 1}]}`)
	got := firstBatch(t, mustRun(t, db, "admin", `{"listCollections": 1, "filter": {"name": "system.users"}}`))
	if len(got) != 1 {
		t.Fatalf("admin.system.users listed %d times", len(got))
	}
	u := listedUUIDs(t, db, "admin")["system.users"]
	want := `{"name":"system.users","type":"collection","options":{},"info":{"readOnly":false,"uuid":"UUID"},"idIndex":{"v":2,"key":{"_id":1},"name":"_id_"}}`
	if s := shapeOf(t, got[0]); s != want || u == "none" {
		t.Errorf("admin.system.users: %s (uuid %s)\nwant %s", s, u, want)
	}
	names := fieldStrings(firstBatch(t, mustRun(t, db, "admin", `{"listCollections": 1, "nameOnly": true}`)), "name")
	if fmt.Sprint(names) != "[c system.users system.version]" {
		t.Errorf("admin names: %v", names)
	}
	if n, err := db.Database("admin").ListCollectionNames(context.Background()); err != nil || fmt.Sprint(n) != "[c system.users system.version]" {
		t.Errorf("ListCollectionNames(admin): %v %v", n, err)
	}
}

// TestWatchViewEvents: a view's events carry no collectionUUID (a view
// has none), as mongod's view events from system.views: create (nsType
// "view"), a modify whose operationDescription is the new definition
// when collMod changes it, and drop; a stream without showExpandedEvents
// sees none of them, not even the drop, as mongod's leaves system.views
// out.
func TestWatchViewEvents(t *testing.T) {
	t.Parallel()
	db, _, _ := openChanges(t, Options{})
	cs, err := db.Database("d").Watch(context.Background(), nil, ChangeStreamOptions{ShowExpandedEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := db.Database("d").Watch(context.Background(), nil, ChangeStreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "d", `{"create": "v", "viewOn": "c", "pipeline": [{"$match": {"a": 1}}]}`)
	mustRun(t, db, "d", `{"collMod": "v", "viewOn": "c", "pipeline": []}`)
	mustRun(t, db, "d", `{"drop": "v"}`)
	want := []string{
		`{"operationType":"create","ns":{"db":"d","coll":"v"},"operationDescription":{"viewOn":"c","pipeline":[{"$match":{"a":1}}]},"nsType":"view"}`,
		`{"operationType":"modify","ns":{"db":"d","coll":"v"},"operationDescription":{"viewOn":"c","pipeline":[]}}`,
		`{"operationType":"drop","ns":{"db":"d","coll":"v"}}`,
	}
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	if ops := opsOf(drainStream(t, plain)); ops != "[insert]" {
		t.Errorf("without showExpandedEvents: %s, want [insert]", ops)
	}
	evs := drainStream(t, cs)
	if len(evs) != len(want)+2 { // then c's create and insert
		t.Fatalf("events %s, want create, modify, drop, create, insert", opsOf(evs))
	}
	for i, e := range evs[:len(want)] {
		if got := shapeOf(t, e); got != want[i] {
			t.Errorf("event %d: %s\nwant %s", i, got, want[i])
		}
	}
}
