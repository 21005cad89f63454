package engine

import (
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
	// The definitions are untouched, and go with the last view.
	for _, v := range []string{"a", "v", "fr", "ts"} {
		mustRun(t, db, "d", `{"drop": "`+v+`"}`)
	}
	if got := names(); got != `[ { name: "c", type: "collection" } ]` {
		t.Errorf("listCollections after the drops: %s", got)
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
