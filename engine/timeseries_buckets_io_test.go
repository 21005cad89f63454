package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestBucketsThroughSystemBuckets checks a time-series collection's
// buckets as mongodump and mongorestore see them: a find on
// system.buckets.<name> returns MongoDB's uncompressed (version 1)
// bucket documents; inserting those into another time-series
// collection's system.buckets inserts their measurements; a bucket
// written as mongod writes version 1 goes in too; a compressed one
// (version 2) is a write error, and an ordered insert stops there.
func TestBucketsThroughSystemBuckets(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, name := range []string{"src", "dst"} {
		mustRun(t, db, "test", `{"create": "`+name+`", "timeseries": {"timeField": "t", "metaField": "host"}}`)
	}
	mustRun(t, db, "test", `{"insert": "src", "documents": [
		{"t": {"$date": "2026-01-01T00:00:00Z"}, "host": "a", "v": 1, "_id": 1},
		{"t": {"$date": "2026-01-01T00:00:05Z"}, "host": "a", "v": 2, "w": "x", "_id": 2},
		{"t": {"$date": "2026-01-01T00:00:01Z"}, "host": "b", "v": 3, "_id": 3}]}`)
	r := mustRun(t, db, "test", `{"find": "system.buckets.src", "sort": {"meta": 1}}`)
	bs := field(r, "cursor.firstBatch").(bson.A)
	if len(bs) != 2 {
		t.Fatalf("%d buckets, want 2", len(bs))
	}
	a := bs[0].(bson.D)
	var keys []string
	for _, e := range a {
		keys = append(keys, e.Key)
	}
	if got := document.Format(keys); got != `[ "_id", "control", "meta", "data" ]` {
		t.Fatalf("a bucket's fields: %s", got)
	}
	if got := document.Format(field(a, "control")); got != `{ version: 1, min: { _id: 1, t: new Date(1767225600000), v: 1, w: "x" }, max: { _id: 2, t: new Date(1767225605000), v: 2, w: "x" } }` {
		t.Fatalf("control: %s", got)
	}
	if got := document.Format(field(a, "data")); got != `{ _id: { 0: 1, 1: 2 }, t: { 0: new Date(1767225600000), 1: new Date(1767225605000) }, v: { 0: 1, 1: 2 }, w: { 1: "x" } }` {
		t.Fatalf("data: %s", got)
	}

	// mongorestore's insert: the buckets, as read, into dst.
	ej, err := document.MarshalExtJSON(bs, true)
	if err != nil {
		t.Fatal(err)
	}
	r = mustRun(t, db, "test", `{"insert": "system.buckets.dst", "documents": `+string(ej)+`}`)
	if field(r, "n") != int32(2) {
		t.Fatalf("restoring the buckets: %v", r)
	}
	want := document.Format(field(mustRun(t, db, "test", `{"find": "src", "sort": {"_id": 1}}`), "cursor.firstBatch"))
	if got := document.Format(field(mustRun(t, db, "test", `{"find": "dst", "sort": {"_id": 1}}`), "cursor.firstBatch")); got != want {
		t.Fatalf("restored measurements:\n%s\nwant\n%s", got, want)
	}

	// A bucket as mongod writes version 1 (its own control, no _id in
	// the data), then a compressed one: the ordered insert stops there.
	r = mustRun(t, db, "test", `{"insert": "system.buckets.dst", "documents": [
		{"_id": {"$oid": "65f9971847423af45aeafc67"}, "control": {"version": 1, "min": {"t": {"$date": "2026-02-01T00:00:00Z"}, "v": 7}, "max": {"t": {"$date": "2026-02-01T00:00:09Z"}, "v": 8}},
		 "meta": "c", "data": {"t": {"0": {"$date": "2026-02-01T00:00:00Z"}, "1": {"$date": "2026-02-01T00:00:09Z"}}, "v": {"0": 7, "1": 8}}},
		{"_id": {"$oid": "65f9971847423af45aeafc68"}, "control": {"version": 2, "min": {"t": {"$date": "2026-02-01T00:00:00Z"}}, "max": {"t": {"$date": "2026-02-01T00:00:00Z"}}, "count": 1},
		 "data": {"t": {"$binary": {"base64": "CQCAnlBJjwEAAAA=", "subType": "07"}}}},
		{"_id": {"$oid": "65f9971847423af45aeafc69"}, "control": {"version": 1, "min": {"t": {"$date": "2026-03-01T00:00:00Z"}}, "max": {"t": {"$date": "2026-03-01T00:00:00Z"}}},
		 "data": {"t": {"0": {"$date": "2026-03-01T00:00:00Z"}}}}]}`)
	if field(r, "n") != int32(1) || field(r, "writeErrors.0.index") != int32(1) || field(r, "writeErrors.0.code") != int32(document.CodeBadValue) {
		t.Fatalf("a mongod bucket, then a compressed one: %v", r)
	}
	got := document.Format(field(mustRun(t, db, "test", `{"find": "dst", "filter": {"host": "c"}, "projection": {"_id": 0}, "sort": {"t": 1}}`), "cursor.firstBatch"))
	if got != `[ { t: new Date(1769904000000), host: "c", v: 7 }, { t: new Date(1769904009000), host: "c", v: 8 } ]` {
		t.Fatalf("a mongod bucket's measurements: %s", got)
	}
	if n := count(t, db, "test", "dst"); n != 5 {
		t.Fatalf("dst holds %d measurements, want 5 (the ordered insert stopped at the compressed bucket)", n)
	}
	// A measurement without its time is the bucket's write error.
	r = mustRun(t, db, "test", `{"insert": "system.buckets.dst", "documents": [{"control": {"version": 1}, "data": {"v": {"0": 1}}}]}`)
	if field(r, "n") != int32(0) || field(r, "writeErrors.0.code") == nil {
		t.Fatalf("a bucket without times: %v", r)
	}
	// system.buckets of something else is still reserved.
	wantCode(t, db, "test", `{"insert": "system.buckets.nothing", "documents": [{}]}`, document.CodeInvalidNamespace, "reserved")
}
