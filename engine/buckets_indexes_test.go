package engine

import (
	"fmt"
	"go.mongodb.org/mongo-driver/v2/bson"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// TestBucketsIndexesAsMongod: listIndexes, collStats and $indexStats on
// db.system.buckets.<name> show what mongod 7.0's clustered buckets
// collection has: no _id index, ttlkv's own (_id_, _ts_control_min_time,
// _ts_meta) left out, each index of the time-series collection under
// its name and keyed as mongod converts it (the timeField and each
// measurement the pair of control.min and control.max, max first when
// descending; meta for the metaField; a TTL index control.min of the
// timeField alone), its partialFilterExpression on meta, and an index
// on a measurement or with a partialFilterExpression carrying the
// user's spec as originalSpec. An index made on the buckets collection
// itself is listed as it is.
func TestBucketsIndexesAsMongod(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "d", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	mustRun(t, db, "d", `{"createIndexes": "ts", "indexes": [`+
		`{"key": {"x": 1}, "name": "x_1"}, {"key": {"t": -1}, "name": "td", "hidden": true}, `+
		`{"key": {"m.a": 1, "y": -1}, "name": "my", "partialFilterExpression": {"m.a": {"$gt": 1}}}, `+
		`{"key": {"t": 1}, "name": "ttl", "expireAfterSeconds": 10, "partialFilterExpression": {"m": "a"}}]}`)
	mustRun(t, db, "d", `{"createIndexes": "system.buckets.ts", "indexes": [{"key": {"control.max.t": 1}, "name": "own"}]}`)
	mustRun(t, db, "d", `{"insert": "ts", "documents": [{"t": {"$date": "2024-01-01T00:00:00Z"}, "m": {"a": 2}, "x": 1, "y": 2}]}`)

	want := `[ { v: 2, key: { meta: 1, control.min.t: 1, control.max.t: 1 }, name: "m_1_t_1" }, ` +
		`{ v: 2, key: { control.min.x: 1, control.max.x: 1 }, name: "x_1", originalSpec: { v: 2, key: { x: 1 }, name: "x_1" } }, ` +
		`{ v: 2, key: { control.max.t: -1, control.min.t: -1 }, name: "td", hidden: true }, ` +
		`{ v: 2, key: { meta.a: 1, control.max.y: -1, control.min.y: -1 }, name: "my", partialFilterExpression: { meta.a: { $gt: 1 } }, ` +
		`originalSpec: { v: 2, key: { m.a: 1, y: -1 }, name: "my", partialFilterExpression: { m.a: { $gt: 1 } } } }, ` +
		`{ v: 2, key: { control.min.t: 1 }, name: "ttl", partialFilterExpression: { meta: "a" }, expireAfterSeconds: 10, ` +
		`originalSpec: { v: 2, key: { t: 1 }, name: "ttl", partialFilterExpression: { m: "a" }, expireAfterSeconds: 10 } }, ` +
		`{ v: 2, key: { control.max.t: 1 }, name: "own" } ]`
	r := mustRun(t, db, "d", `{"listIndexes": "system.buckets.ts"}`)
	if got := document.Format(firstBatch(t, r)); got != want {
		t.Errorf("listIndexes system.buckets.ts:\n got %s\nwant %s", got, want)
	}
	// The time-series collection lists its indexes in the user's form.
	r = mustRun(t, db, "d", `{"listIndexes": "ts", "cursor": {}}`)
	if got := document.Format(firstBatch(t, r)); got != `[ { v: 2, key: { m: 1, t: 1 }, name: "m_1_t_1" }, { v: 2, key: { x: 1 }, name: "x_1" }, `+
		`{ v: 2, key: { t: -1 }, name: "td", hidden: true }, { v: 2, key: { m.a: 1, y: -1 }, name: "my", partialFilterExpression: { m.a: { $gt: 1 } } }, `+
		`{ v: 2, key: { t: 1 }, name: "ttl", partialFilterExpression: { m: "a" }, expireAfterSeconds: 10 } ]` {
		t.Errorf("listIndexes ts: %s", got)
	}

	names := func(d any) string {
		var s []string
		for _, e := range d.(bson.D) {
			s = append(s, e.Key)
		}
		return fmt.Sprint(s)
	}
	st := mustRun(t, db, "d", `{"collStats": "system.buckets.ts"}`)
	if field(st, "nindexes") != int32(6) || names(field(st, "indexSizes")) != "[m_1_t_1 x_1 td my ttl own]" {
		t.Errorf("collStats system.buckets.ts: %s", document.Format(st))
	}
	// The sizes are those of the time-series collection's indexes.
	tst := mustRun(t, db, "d", `{"collStats": "ts"}`)
	for _, n := range []string{"m_1_t_1", "x_1", "td", "my", "ttl"} {
		if b, u := field(st, "indexSizes."+n), field(tst, "indexSizes."+n); b != u {
			t.Errorf("indexSizes.%s: buckets %v, time-series %v", n, b, u)
		}
	}
	r = mustRun(t, db, "d", `{"aggregate": "system.buckets.ts", "pipeline": [{"$indexStats": {}}, {"$project": {"_id": 0, "name": 1, "key": 1}}], "cursor": {}}`)
	if got := document.Format(firstBatch(t, r)); got != `[ { name: "m_1_t_1", key: { meta: 1, control.min.t: 1, control.max.t: 1 } }, `+
		`{ name: "x_1", key: { control.min.x: 1, control.max.x: 1 } }, { name: "td", key: { control.max.t: -1, control.min.t: -1 } }, `+
		`{ name: "my", key: { meta.a: 1, control.max.y: -1, control.min.y: -1 } }, { name: "ttl", key: { control.min.t: 1 } }, `+
		`{ name: "own", key: { control.max.t: 1 } } ]` {
		t.Errorf("$indexStats on system.buckets.ts: %s", got)
	}
	// dbStats counts those six on the buckets collection, and
	// system.views' _id index.
	if ds := mustRun(t, db, "d", `{"dbStats": 1}`); field(ds, "indexes") != int64(7) {
		t.Errorf("dbStats: %s", document.Format(ds))
	}
	mustRun(t, db, "d", `{"dropIndexes": "ts", "index": "*"}`)
	r = mustRun(t, db, "d", `{"listIndexes": "system.buckets.ts"}`)
	if got := document.Format(firstBatch(t, r)); got != `[ { v: 2, key: { control.max.t: 1 }, name: "own" } ]` {
		t.Errorf("listIndexes system.buckets.ts after dropIndexes *: %s", got)
	}
}

// TestBucketsIndexesNone: a time-series collection without a metaField
// has no index of its own, so its buckets collection lists none (mongod
// lists no clustered _id index on a buckets collection).
func TestBucketsIndexesNone(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "d", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
	r := mustRun(t, db, "d", `{"listIndexes": "system.buckets.ts"}`)
	if got := document.Format(firstBatch(t, r)); got != `[]` {
		t.Errorf("listIndexes: %s", got)
	}
	st := mustRun(t, db, "d", `{"collStats": "system.buckets.ts"}`)
	if field(st, "nindexes") != int32(0) || document.Format(field(st, "indexSizes")) != `{}` || field(st, "totalIndexSize") != int32(0) {
		t.Errorf("collStats: %s", document.Format(st))
	}
}

// TestBucketsIndexesHintAndDrop: on system.buckets.<name> a hint and
// dropIndexes name the indexes listIndexes shows there, as on mongod:
// the time-series index's name or its bucket-form key; dropping one
// there drops it from the time-series collection too, "*" drops them
// all and the buckets collection's own, and ttlkv's indexes are out of
// reach (27), so finds and validate still work after "*".
func TestBucketsIndexesHintAndDrop(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "d", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	mustRun(t, db, "d", `{"createIndexes": "ts", "indexes": [{"key": {"x": -1, "t": -1}, "name": "xt"}, {"key": {"m.a": 1}, "name": "ma"}]}`)
	mustRun(t, db, "d", `{"createIndexes": "system.buckets.ts", "indexes": [{"key": {"control.max.t": 1}, "name": "own"}]}`)
	mustRun(t, db, "d", `{"insert": "ts", "documents": [{"t": {"$date": "2024-01-01T00:00:00Z"}, "m": {"a": 2}, "x": 1}]}`)
	for _, hint := range []string{`"m_1_t_1"`, `{"meta": 1, "control.min.t": 1, "control.max.t": 1}`,
		`{"control.max.x": -1, "control.min.x": -1, "control.max.t": -1, "control.min.t": -1}`, `"own"`} {
		r := mustRun(t, db, "d", `{"find": "system.buckets.ts", "hint": `+hint+`}`)
		if n := len(firstBatch(t, r)); n != 1 {
			t.Errorf("find with hint %s: %d buckets, want 1", hint, n)
		}
	}
	wantCode(t, db, "d", `{"dropIndexes": "system.buckets.ts", "index": "_ts_meta"}`, document.CodeIndexNotFound, "index not found with name [_ts_meta]")
	wantCode(t, db, "d", `{"dropIndexes": "system.buckets.ts", "index": "_id_"}`, document.CodeIndexNotFound, "index not found with name [_id_]")
	r := mustRun(t, db, "d", `{"dropIndexes": "system.buckets.ts", "index": {"control.max.x": -1, "control.min.x": -1, "control.max.t": -1, "control.min.t": -1}}`)
	if got := document.Format(r); got != `{ nIndexesWas: 4, ok: 1.0 }` {
		t.Errorf("dropIndexes by bucket key: %s", got)
	}
	r = mustRun(t, db, "d", `{"listIndexes": "ts"}`)
	if got := document.Format(firstBatch(t, r)); got != `[ { v: 2, key: { m: 1, t: 1 }, name: "m_1_t_1" }, { v: 2, key: { m.a: 1 }, name: "ma" } ]` {
		t.Errorf("listIndexes ts after dropping xt on the buckets: %s", got)
	}
	r = mustRun(t, db, "d", `{"dropIndexes": "system.buckets.ts", "index": "*"}`)
	if got := document.Format(r); got != `{ nIndexesWas: 3, msg: "non-_id indexes dropped for collection", ok: 1.0 }` {
		t.Errorf("dropIndexes *: %s", got)
	}
	for _, c := range []string{"ts", "system.buckets.ts"} {
		if got := document.Format(firstBatch(t, mustRun(t, db, "d", `{"listIndexes": "`+c+`"}`))); got != `[]` {
			t.Errorf("listIndexes %s after dropIndexes *: %s", c, got)
		}
	}
	if r := mustRun(t, db, "d", `{"find": "ts", "filter": {"m.a": 2}}`); len(firstBatch(t, r)) != 1 {
		t.Errorf("find after dropIndexes *: %v", r)
	}
	mustValidate(t, db, "d", "system.buckets.ts")
	mustValidate(t, db, "d", "ts")
}

// TestBucketsIndexesValidate: validate on system.buckets.<name> reports
// the indexes listIndexes shows there, each with one key a bucket (a
// TTL index, filtered on the metaField, those its filter passes).
func TestBucketsIndexesValidate(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "d", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	mustRun(t, db, "d", `{"createIndexes": "ts", "indexes": [{"key": {"t": 1}, "name": "ttl", "expireAfterSeconds": 2000000000, "partialFilterExpression": {"m": "a"}}]}`)
	mustRun(t, db, "d", `{"insert": "ts", "documents": [{"t": {"$date": "2024-01-01T00:00:00Z"}, "m": "a"}, {"t": {"$date": "2024-01-01T00:00:00Z"}, "m": "b"}]}`)
	r := mustRun(t, db, "d", `{"validate": "system.buckets.ts"}`)
	if got := document.Format(field(r, "keysPerIndex")); got != `{ m_1_t_1: 2, ttl: 1 }` || field(r, "nIndexes") != int32(2) || field(r, "valid") != true {
		t.Errorf("validate system.buckets.ts: %s", document.Format(r))
	}
	if got := document.Format(field(r, "indexDetails")); got != `{ m_1_t_1: { valid: true }, ttl: { valid: true } }` {
		t.Errorf("validate indexDetails: %s", got)
	}
}
