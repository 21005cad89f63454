package engine

import (
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestSystemViews: a database with views (or time-series collections)
// shows mongod's system.views: listed as a collection with an _id
// index, its documents the definitions {_id: "db.name", viewOn,
// pipeline, collation?} in creation order, readable by find, count and
// aggregate ($lookup too); every write to it is 73 "cannot write to
// db.system.views". Without views there is no such collection.
func TestSystemViews(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	if r := mustRun(t, db, "d", `{"find": "system.views"}`); len(firstBatch(t, r)) != 0 {
		t.Fatalf("system.views before any view: %v", r)
	}
	names := func() string {
		r := mustRun(t, db, "d", `{"listCollections": 1, "nameOnly": true}`)
		return document.Format(firstBatch(t, r))
	}
	if got := names(); got != `[ { name: "c", type: "collection" } ]` {
		t.Errorf("listCollections before any view: %s", got)
	}
	mustRun(t, db, "d", `{"create": "v", "viewOn": "c", "pipeline": [{"$match": {"a": 1}}]}`)
	mustRun(t, db, "d", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	mustRun(t, db, "d", `{"create": "a", "viewOn": "v", "pipeline": [], "collation": {"locale": "simple"}}`)
	mustRun(t, db, "d", `{"create": "fr", "viewOn": "c", "collation": {"locale": "fr"}}`)
	if got := names(); got != `[ { name: "a", type: "view" }, { name: "c", type: "collection" }, { name: "fr", type: "view" }, { name: "system.buckets.ts", type: "collection" }, { name: "system.views", type: "collection" }, { name: "ts", type: "timeseries" }, { name: "v", type: "view" } ]` {
		t.Errorf("listCollections: %s", got)
	}
	r := mustRun(t, db, "d", `{"listCollections": 1, "filter": {"name": "system.views"}}`)
	infos := firstBatch(t, r)
	if len(infos) != 1 {
		t.Fatalf("listCollections system.views: %v", infos)
	}
	info := infos[0]
	if u, ok := field(info, "info.uuid").(bson.Binary); !ok || u.Subtype != 4 || len(u.Data) != 16 {
		t.Errorf("system.views has no info.uuid: %v", info)
	}
	info = removeField(info, "info")
	if got := document.Format(info); got != `{ name: "system.views", type: "collection", options: {}, idIndex: { v: 2, key: { _id: 1 }, name: "_id_" } }` {
		t.Errorf("system.views entry: %s", got)
	}
	r = mustRun(t, db, "d", `{"find": "system.views"}`)
	docs := firstBatch(t, r)
	want := []string{
		`{ _id: "d.v", viewOn: "c", pipeline: [ { $match: { a: 1 } } ] }`,
		`{ _id: "d.ts", viewOn: "system.buckets.ts", pipeline: [ { $_internalUnpackBucket: { timeField: "t", metaField: "m", bucketMaxSpanSeconds: 3600 } } ] }`,
		`{ _id: "d.a", viewOn: "v", pipeline: [] }`,
	}
	if len(docs) != 4 {
		t.Fatalf("find system.views: %v", docs)
	}
	for i, w := range want {
		if got := document.Format(docs[i]); got != w {
			t.Errorf("system.views[%d] = %s, want %s", i, got, w)
		}
	}
	if field(docs[3], "collation.locale") != "fr" || field(docs[3], "collation.version") != "57.1" {
		t.Errorf("fr's definition: %s", document.Format(docs[3]))
	}
	if ns := field(r, "cursor.ns"); ns != "d.system.views" {
		t.Errorf("cursor ns %v", ns)
	}
	r = mustRun(t, db, "d", `{"find": "system.views", "filter": {"viewOn": "c"}, "sort": {"_id": -1}, "projection": {"_id": 1}}`)
	if got := document.Format(firstBatch(t, r)); got != `[ { _id: "d.v" }, { _id: "d.fr" } ]` {
		t.Errorf("filtered find: %s", got)
	}
	r = mustRun(t, db, "d", `{"count": "system.views", "query": {"pipeline": []}}`)
	if n, _ := get(r, "n"); n != int32(2) {
		t.Errorf("count = %v, want 2", n)
	}
	r = mustRun(t, db, "d", `{"aggregate": "c", "pipeline": [{"$lookup": {"from": "system.views", "pipeline": [{"$match": {"viewOn": "v"}}, {"$project": {"_id": 1}}], "as": "defs"}}, {"$project": {"_id": 0, "defs": 1}}], "cursor": {}}`)
	if got := document.Format(firstBatch(t, r)); got != `[ { defs: [ { _id: "d.a" } ] } ]` {
		t.Errorf("$lookup from system.views: %s", got)
	}
	for _, cmd := range []string{
		`{"insert": "system.views", "documents": [{"_id": "d.x", "viewOn": "c", "pipeline": []}]}`,
		`{"update": "system.views", "updates": [{"q": {}, "u": {"$set": {"viewOn": "c"}}}]}`,
		`{"delete": "system.views", "deletes": [{"q": {}, "limit": 0}]}`,
		`{"findAndModify": "system.views", "query": {}, "remove": true}`,
	} {
		wantCode(t, db, "d", cmd, document.CodeInvalidNamespace, "cannot write to d.system.views")
	}
	// The definitions are untouched; the collection outlives the last
	// view, empty, as mongod's.
	for _, v := range []string{"a", "v", "fr", "ts"} {
		mustRun(t, db, "d", `{"drop": "`+v+`"}`)
	}
	if got := names(); got != `[ { name: "c", type: "collection" }, { name: "system.views", type: "collection" } ]` {
		t.Errorf("listCollections after the drops: %s", got)
	}
	if r := mustRun(t, db, "d", `{"find": "system.views"}`); len(firstBatch(t, r)) != 0 || field(r, "cursor.ns") != "d.system.views" {
		t.Errorf("find system.views after the drops: %v", r)
	}
}

// TestSystemViewsKept: mongod never drops system.views on its own. After
// the last view goes it stays, empty, through a reopen: listed, its
// database listed by listDatabases even with nothing else in it,
// listIndexes its _id index, collStats and dbStats counting it. A new
// view's definition lands in it; dropDatabase removes it.
func TestSystemViewsKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "d", `{"create": "v", "viewOn": "c", "pipeline": []}`)
	mustRun(t, db, "d", `{"drop": "v"}`)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r := mustRun(t, db, "d", `{"listCollections": 1, "nameOnly": true}`)
	if got := document.Format(firstBatch(t, r)); got != `[ { name: "system.views", type: "collection" } ]` {
		t.Errorf("listCollections after reopening: %s", got)
	}
	if got := db.DatabaseNames(); fmt.Sprint(got) != "[admin d]" {
		t.Errorf("DatabaseNames = %v, want [admin d]", got)
	}
	r = mustRun(t, db, "d", `{"listIndexes": "system.views"}`)
	if got := document.Format(firstBatch(t, r)); got != `[ { v: 2, key: { _id: 1 }, name: "_id_" } ]` {
		t.Errorf("listIndexes system.views: %s", got)
	}
	r = mustRun(t, db, "d", `{"collStats": "system.views"}`)
	if got := document.Format(r); got != `{ ns: "d.system.views", count: 0, size: 0, storageSize: 0, nindexes: 1, totalIndexSize: 0, indexSizes: { _id_: 0 }, capped: false, totalSize: 0, scaleFactor: 1, ok: 1.0 }` {
		t.Errorf("collStats system.views: %s", got)
	}
	r = mustRun(t, db, "d", `{"dbStats": 1}`)
	if field(r, "collections") != int64(1) || field(r, "views") != int64(0) || field(r, "objects") != int64(0) || field(r, "indexes") != int64(1) {
		t.Errorf("dbStats: %s", document.Format(r))
	}
	mustRun(t, db, "d", `{"create": "w", "viewOn": "c", "pipeline": []}`)
	r = mustRun(t, db, "d", `{"find": "system.views"}`)
	if got := document.Format(firstBatch(t, r)); got != `[ { _id: "d.w", viewOn: "c", pipeline: [] } ]` {
		t.Errorf("find system.views: %s", got)
	}
	// One document of 47 BSON bytes; its _id index key counted as the
	// _id's string and the record id.
	r = mustRun(t, db, "d", `{"collStats": "system.views"}`)
	if got := document.Format(r); got != `{ ns: "d.system.views", count: 1, size: 47, avgObjSize: 47, storageSize: 47, nindexes: 1, totalIndexSize: 16, indexSizes: { _id_: 16 }, capped: false, totalSize: 63, scaleFactor: 1, ok: 1.0 }` {
		t.Errorf("collStats system.views: %s", got)
	}
	r = mustRun(t, db, "d", `{"dbStats": 1}`)
	if field(r, "collections") != int64(1) || field(r, "views") != int64(1) || field(r, "objects") != int64(1) || field(r, "dataSize") != 47.0 || field(r, "indexes") != int64(1) {
		t.Errorf("dbStats: %s", document.Format(r))
	}
	mustRun(t, db, "d", `{"dropDatabase": 1}`)
	r = mustRun(t, db, "d", `{"listCollections": 1, "nameOnly": true}`)
	if got := document.Format(firstBatch(t, r)); got != `[]` {
		t.Errorf("listCollections after dropDatabase: %s", got)
	}
	if got := db.DatabaseNames(); fmt.Sprint(got) != "[admin]" {
		t.Errorf("DatabaseNames after dropDatabase = %v", got)
	}
	wantCode(t, db, "d", `{"listIndexes": "system.views"}`, document.CodeNamespaceNotFound, "ns does not exist: d.system.views")
}

// TestDropSystemViews: drop of system.views, as mongod 7.0's: refused
// with 125 CommandFailed while the database has a time-series
// collection, else it drops every view of the database with it
// ({nIndexesWas: 1, ns}); the collections stay. Dropping it again is a
// drop of a collection that does not exist.
func TestDropSystemViews(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	mustRun(t, db, "d", `{"create": "v", "viewOn": "c", "pipeline": []}`)
	mustRun(t, db, "d", `{"create": "v2", "viewOn": "v", "pipeline": []}`)
	mustRun(t, db, "d", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
	wantCode(t, db, "d", `{"drop": "system.views"}`, document.CodeCommandFailed, "cannot drop collection d.system.views when time-series collections are present.")
	mustRun(t, db, "d", `{"drop": "ts"}`)
	r := mustRun(t, db, "d", `{"drop": "system.views"}`)
	if got := document.Format(r); got != `{ nIndexesWas: 1, ns: "d.system.views", ok: 1.0 }` {
		t.Errorf("drop system.views: %s", got)
	}
	r = mustRun(t, db, "d", `{"listCollections": 1, "nameOnly": true}`)
	if got := document.Format(firstBatch(t, r)); got != `[ { name: "c", type: "collection" } ]` {
		t.Errorf("listCollections after the drop: %s", got)
	}
	if r := mustRun(t, db, "d", `{"find": "v"}`); len(firstBatch(t, r)) != 0 {
		t.Errorf("find on the dropped view: %v", r)
	}
	if r := mustRun(t, db, "d", `{"find": "c"}`); len(firstBatch(t, r)) != 1 {
		t.Errorf("find c: %v", r)
	}
	again := mustRun(t, db, "d", `{"drop": "system.views"}`)
	plain := mustRun(t, db, "d", `{"drop": "nothing"}`)
	if field(again, "nIndexesWas") != field(plain, "nIndexesWas") {
		t.Errorf("second drop of system.views: %v, a missing collection's: %v", again, plain)
	}
}

// removeField returns d without its top-level field k.
func removeField(d bson.D, k string) bson.D {
	var out bson.D
	for _, e := range d {
		if e.Key != k {
			out = append(out, e)
		}
	}
	return out
}
