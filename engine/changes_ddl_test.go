package engine

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// shapeOf is an event as relaxed Extended JSON without the fields that
// change from run to run (_id, clusterTime, wallTime), each UUID (a
// collection's, random) written "UUID".
func shapeOf(t *testing.T, e bson.D) string {
	t.Helper()
	var d bson.D
	for _, f := range e {
		switch f.Key {
		case "_id", "clusterTime", "wallTime":
		default:
			d = append(d, f)
		}
	}
	b, err := document.MarshalExtJSON(uuidsNamed(d), false)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// uuidsNamed returns v with each UUID binary replaced by "UUID".
func uuidsNamed(v any) any {
	switch x := v.(type) {
	case bson.Binary:
		if x.Subtype == bson.TypeBinaryUUID {
			return "UUID"
		}
	case bson.D:
		out := make(bson.D, len(x))
		for i, e := range x {
			out[i] = bson.E{Key: e.Key, Value: uuidsNamed(e.Value)}
		}
		return out
	case bson.A:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = uuidsNamed(e)
		}
		return out
	}
	return v
}

// TestWatchExpandedEvents: with showExpandedEvents, a stream shows
// MongoDB's DDL events (create, createIndexes, dropIndexes, modify, and
// a rename's operationDescription) in their shapes; without it, the
// same log shows none of them.
func TestWatchExpandedEvents(t *testing.T) {
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
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1, "a": 1}]}`)
	mustRun(t, db, "d", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`)
	mustRun(t, db, "d", `{"collMod": "c", "index": {"name": "a_1", "hidden": true}}`)
	mustRun(t, db, "d", `{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 120}}`)
	mustRun(t, db, "d", `{"dropIndexes": "c", "index": ["a_1", "t_1"]}`)
	mustRun(t, db, "d", `{"create": "k", "capped": true, "size": 4096, "max": 10}`)
	mustRun(t, db, "d", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
	mustRun(t, db, "d", `{"insert": "auto", "documents": [{"_id": 2}]}`)
	mustRun(t, db, "admin", `{"renameCollection": "d.c", "to": "d.c2"}`)

	want := []string{
		`{"operationType":"create","collectionUUID":"UUID","ns":{"db":"d","coll":"c"},"operationDescription":{"idIndex":{"v":2,"key":{"_id":1},"name":"_id_"}},"nsType":"collection"}`,
		`{"operationType":"insert","collectionUUID":"UUID","fullDocument":{"_id":1,"a":1},"ns":{"db":"d","coll":"c"},"documentKey":{"_id":1}}`,
		`{"operationType":"createIndexes","collectionUUID":"UUID","ns":{"db":"d","coll":"c"},"operationDescription":{"indexes":[{"v":2,"key":{"a":1},"name":"a_1"},{"v":2,"key":{"t":1},"name":"t_1","expireAfterSeconds":60}]}}`,
		`{"operationType":"modify","collectionUUID":"UUID","ns":{"db":"d","coll":"c"},"operationDescription":{"index":{"name":"a_1","hidden":true}},"stateBeforeChange":{"collectionOptions":{"uuid":"UUID"},"indexOptions":{"hidden":false}}}`,
		`{"operationType":"modify","collectionUUID":"UUID","ns":{"db":"d","coll":"c"},"operationDescription":{"index":{"name":"t_1","expireAfterSeconds":120}},"stateBeforeChange":{"collectionOptions":{"uuid":"UUID"},"indexOptions":{"expireAfterSeconds":60}}}`,
		`{"operationType":"dropIndexes","collectionUUID":"UUID","ns":{"db":"d","coll":"c"},"operationDescription":{"indexes":[{"v":2,"key":{"a":1},"name":"a_1","hidden":true}]}}`,
		`{"operationType":"dropIndexes","collectionUUID":"UUID","ns":{"db":"d","coll":"c"},"operationDescription":{"indexes":[{"v":2,"key":{"t":1},"name":"t_1","expireAfterSeconds":120}]}}`,
		`{"operationType":"create","collectionUUID":"UUID","ns":{"db":"d","coll":"k"},"operationDescription":{"capped":true,"size":4096,"max":10,"idIndex":{"v":2,"key":{"_id":1},"name":"_id_"}},"nsType":"collection"}`,
		`{"operationType":"create","collectionUUID":"UUID","ns":{"db":"d","coll":"auto"},"operationDescription":{"idIndex":{"v":2,"key":{"_id":1},"name":"_id_"}},"nsType":"collection"}`,
		`{"operationType":"insert","collectionUUID":"UUID","fullDocument":{"_id":2},"ns":{"db":"d","coll":"auto"},"documentKey":{"_id":2}}`,
		`{"to":{"db":"d","coll":"c2"},"operationType":"rename","collectionUUID":"UUID","ns":{"db":"d","coll":"c"},"operationDescription":{"to":{"db":"d","coll":"c2"}}}`,
	}
	got := drainStream(t, exp)
	var shapes []string
	for _, e := range got {
		shapes = append(shapes, shapeOf(t, e))
	}
	if strings.Join(shapes, "\n") != strings.Join(want, "\n") {
		t.Errorf("expanded events:\n%s\nwant:\n%s", strings.Join(shapes, "\n"), strings.Join(want, "\n"))
	}
	if ops := opsOf(drainStream(t, plain)); ops != "[insert insert rename]" {
		t.Errorf("without showExpandedEvents: %s, want [insert insert rename]", ops)
	}
	// A collection stream sees its own collection's DDL events only.
	cs, err := d.Collection("k").Watch(ctx, nil, ChangeStreamOptions{ShowExpandedEvents: true, FromOldest: true})
	if err != nil {
		t.Fatal(err)
	}
	if ops := opsOf(drainStream(t, cs)); ops != "[create]" {
		t.Errorf("stream on d.k: %s, want [create]", ops)
	}
}

// TestWatchCappedResize: a collMod that resizes a capped collection is
// one modify event after the resize, and the resized ring's records,
// which carry their insert events already, get none again when the
// engine reopens (the events mark follows the new ring).
func TestWatchCappedResize(t *testing.T) {
	t.Parallel()
	db, _, dir := openChanges(t, Options{})
	ctx := context.Background()
	mustRun(t, db, "d", `{"create": "k", "capped": true, "size": 100000}`)
	mustRun(t, db, "d", `{"insert": "k", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}]}`)
	cs, err := db.Database("d").Watch(ctx, nil, ChangeStreamOptions{ShowExpandedEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "d", `{"collMod": "k", "cappedSize": 8192, "cappedMax": 2}`)
	mustRun(t, db, "d", `{"insert": "k", "documents": [{"_id": 4}]}`)
	var ops []string
	for _, e := range drainStream(t, cs) {
		op, _ := get(e, "operationType")
		ops = append(ops, op.(string))
	}
	if strings.Join(ops, ",") != "modify,insert" {
		t.Fatalf("events after the resize: %v, want modify,insert", ops)
	}
	tok := cs.ResumeToken()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2, err := Open(dir, Options{DisableTTLMonitor: true, ChangeStreams: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	cs2, err := db2.Database("d").Watch(ctx, nil, ChangeStreamOptions{ResumeAfter: tok})
	if err != nil {
		t.Fatal(err)
	}
	if got := drainStream(t, cs2); len(got) != 0 {
		t.Fatalf("reopen logged %d more events, want none: %v", len(got), got)
	}
	n, err := db2.Database("d").Collection("k").CountDocuments(ctx, bson.D{})
	if err != nil || n != 2 {
		t.Fatalf("count after the resize and reopen: %d, %v; want 2 (cappedMax)", n, err)
	}
}

// TestWatchCreateIndexesEvents: as in MongoDB, createIndexes on an empty
// (or missing) collection gives one createIndexes event per index, and
// on a collection holding documents one event listing every index the
// command built.
func TestWatchCreateIndexesEvents(t *testing.T) {
	t.Parallel()
	db, _, _ := openChanges(t, Options{})
	ctx := context.Background()
	cs, err := db.Database("d").Watch(ctx, nil, ChangeStreamOptions{ShowExpandedEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "d", `{"createIndexes": "e", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b": 1}, "name": "b_1"}]}`)
	mustRun(t, db, "d", `{"insert": "e", "documents": [{"_id": 1}]}`)
	mustRun(t, db, "d", `{"createIndexes": "e", "indexes": [{"key": {"c": 1}, "name": "c_1"}, {"key": {"d": 1}, "name": "d_1"}]}`)
	want := []string{
		`{"operationType":"create","collectionUUID":"UUID","ns":{"db":"d","coll":"e"},"operationDescription":{"idIndex":{"v":2,"key":{"_id":1},"name":"_id_"}},"nsType":"collection"}`,
		`{"operationType":"createIndexes","collectionUUID":"UUID","ns":{"db":"d","coll":"e"},"operationDescription":{"indexes":[{"v":2,"key":{"a":1},"name":"a_1"}]}}`,
		`{"operationType":"createIndexes","collectionUUID":"UUID","ns":{"db":"d","coll":"e"},"operationDescription":{"indexes":[{"v":2,"key":{"b":1},"name":"b_1"}]}}`,
		`{"operationType":"insert","collectionUUID":"UUID","fullDocument":{"_id":1},"ns":{"db":"d","coll":"e"},"documentKey":{"_id":1}}`,
		`{"operationType":"createIndexes","collectionUUID":"UUID","ns":{"db":"d","coll":"e"},"operationDescription":{"indexes":[{"v":2,"key":{"c":1},"name":"c_1"},{"v":2,"key":{"d":1},"name":"d_1"}]}}`,
	}
	var shapes []string
	for _, e := range drainStream(t, cs) {
		shapes = append(shapes, shapeOf(t, e))
	}
	if strings.Join(shapes, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(shapes, "\n"), strings.Join(want, "\n"))
	}
}

// TestWatchModifyIndexShape: a collMod of an index named by key pattern
// is logged as mongod's makeCollModCmdObj logs it: the index by name,
// then expireAfterSeconds (a long), hidden, ... in that order whatever
// the command's; stateBeforeChange.indexOptions lists the old
// expireAfterSeconds before the old hidden, as mongod's o2.
func TestWatchModifyIndexShape(t *testing.T) {
	t.Parallel()
	db, _, _ := openChanges(t, Options{})
	mustRun(t, db, "d", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`)
	cs, err := db.Database("d").Watch(context.Background(), nil, ChangeStreamOptions{ShowExpandedEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "d", `{"collMod": "c", "index": {"hidden": true, "keyPattern": {"t": 1}, "expireAfterSeconds": 30}, "comment": "x"}`)
	evs := drainStream(t, cs)
	if len(evs) != 1 {
		t.Fatalf("events %s, want [modify]", opsOf(evs))
	}
	if got := document.Format(field(evs[0], "operationDescription")); got != `{ index: { name: "t_1", expireAfterSeconds: 30, hidden: true } }` ||
		field(evs[0], "operationDescription.index.expireAfterSeconds") != int64(30) {
		t.Errorf("operationDescription %s", got)
	}
	if got := document.Format(field(evs[0], "stateBeforeChange.indexOptions")); got != `{ expireAfterSeconds: 60, hidden: false }` ||
		field(evs[0], "stateBeforeChange.indexOptions.expireAfterSeconds") != int64(60) {
		t.Errorf("stateBeforeChange.indexOptions %s", got)
	}
}

// TestWatchModifyNoOpIndexOptions: mongod 7.0 logs a collMod's index
// option without what changes nothing (a hidden or prepareUnique equal
// to the index's, unique on a unique index, forceNonUnique on one that
// is not), keeps expireAfterSeconds even when equal, and leaves the
// index option out when nothing of it is left; stateBeforeChange's
// indexOptions lists only the old values of what changes. The other
// options are logged as given, and a collMod that changes nothing
// still has its event, with an empty operationDescription.
func TestWatchModifyNoOpIndexOptions(t *testing.T) {
	t.Parallel()
	db, _, _ := openChanges(t, Options{})
	mustRun(t, db, "d", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}, {"key": {"u": 1}, "name": "u_1", "unique": true}]}`)
	cs, err := db.Database("d").Watch(context.Background(), nil, ChangeStreamOptions{ShowExpandedEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "d", `{"collMod": "c", "index": {"name": "t_1", "hidden": false, "expireAfterSeconds": 60}}`)
	mustRun(t, db, "d", `{"collMod": "c", "index": {"name": "t_1", "hidden": false}, "validationLevel": "moderate"}`)
	mustRun(t, db, "d", `{"collMod": "c", "index": {"name": "t_1", "hidden": true}}`)
	mustRun(t, db, "d", `{"collMod": "c", "index": {"name": "u_1", "unique": true, "hidden": true}}`)
	mustRun(t, db, "d", `{"collMod": "c", "index": {"name": "t_1", "prepareUnique": false}, "validationAction": "warn"}`)
	mustRun(t, db, "d", `{"collMod": "c", "index": {"name": "t_1", "hidden": true}}`)
	mustRun(t, db, "d", `{"collMod": "c"}`)
	evs := drainStream(t, cs)
	want := []struct{ desc, before string }{
		{`{ index: { name: "t_1", expireAfterSeconds: 60 } }`, `{ expireAfterSeconds: 60 }`},
		{`{ validationLevel: "moderate" }`, ``},
		{`{ index: { name: "t_1", hidden: true } }`, `{ hidden: false }`},
		{`{ index: { name: "u_1", hidden: true } }`, `{ hidden: false }`},
		{`{ validationAction: "warn" }`, ``},
		{`{}`, ``},
		{`{}`, ``},
	}
	if len(evs) != len(want) {
		t.Fatalf("events %s, want %d modify", opsOf(evs), len(want))
	}
	for i, w := range want {
		if got := document.Format(field(evs[i], "operationDescription")); got != w.desc {
			t.Errorf("event %d: operationDescription %s, want %s", i, got, w.desc)
		}
		io := field(evs[i], "stateBeforeChange.indexOptions")
		got := ""
		if io != nil {
			got = document.Format(io)
		}
		if got != w.before {
			t.Errorf("event %d: stateBeforeChange.indexOptions %q, want %q", i, got, w.before)
		}
	}
}
