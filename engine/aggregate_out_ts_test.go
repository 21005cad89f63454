package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// $out with a timeseries option, as mongod 7.0.3 and later
// (jstests/core/timeseries/timeseries_out*.js,
// src/mongo/db/pipeline/document_source_out.cpp).

func listedColl(t *testing.T, db *DB, dbName, name string) string {
	t.Helper()
	r := mustRun(t, db, dbName, fmt.Sprintf(`{"listCollections": 1, "filter": {"name": %q}}`, name))
	b := firstBatch(t, r)
	if len(b) != 1 {
		return ""
	}
	return fmt.Sprint(b[0])
}

func TestOutTimeseries(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "o", `{"insert": "src", "documents": [
		{"_id": 1, "time": {"$date": "2024-01-01T00:00:00Z"}, "tags": {"host": "a"}, "v": 1},
		{"_id": 2, "time": {"$date": "2024-01-01T00:01:00Z"}, "tags": {"host": "b"}, "v": 2},
		{"_id": 3, "time": {"$date": "2024-01-01T00:02:00Z"}, "tags": {"host": "a"}, "v": 3}]}`)
	out := func(coll, opts string) string {
		return fmt.Sprintf(`{"aggregate": "src", "pipeline": [{"$out": {"db": "o", "coll": %q, "timeseries": %s}}], "cursor": {}}`, coll, opts)
	}
	count := func(coll string) int {
		return len(firstBatch(t, mustRun(t, db, "o", fmt.Sprintf(`{"find": %q}`, coll))))
	}
	// A new time-series collection of the options given.
	mustRun(t, db, "o", out("ts", `{"timeField": "time", "metaField": "tags"}`))
	if got := listedColl(t, db, "o", "ts"); !strings.Contains(got, `"type":"timeseries"`) || !strings.Contains(got, `"metaField":"tags"`) {
		t.Fatalf("ts = %s", got)
	}
	if n := count("ts"); n != 3 {
		t.Errorf("ts holds %d measurements, want 3", n)
	}
	r := mustRun(t, db, "o", `{"find": "ts", "filter": {"tags.host": "a"}, "sort": {"v": 1}, "projection": {"_id": 0, "v": 1}}`)
	if got := fmt.Sprint(firstBatch(t, r)); got != `[{"v":{"$numberInt":"1"}} {"v":{"$numberInt":"3"}}]` {
		t.Errorf("ts host a = %s", got)
	}
	if got := listedColl(t, db, "o", "system.buckets.ts"); got == "" {
		t.Errorf("no system.buckets.ts")
	}

	// Replacing it keeps its options (expireAfterSeconds set since) and
	// its indexes; the spec's metaField may be left out.
	mustRun(t, db, "o", `{"collMod": "ts", "expireAfterSeconds": 360}`)
	mustRun(t, db, "o", `{"createIndexes": "ts", "indexes": [{"key": {"v": 1}, "name": "v_1"}]}`)
	mustRun(t, db, "o", `{"aggregate": "src", "pipeline": [{"$match": {"v": {"$gte": 2}}}, {"$out": {"db": "o", "coll": "ts", "timeseries": {"timeField": "time"}}}], "cursor": {}}`)
	if n := count("ts"); n != 2 {
		t.Errorf("replaced ts holds %d measurements, want 2", n)
	}
	got := listedColl(t, db, "o", "ts")
	if !strings.Contains(got, `"expireAfterSeconds":{"$numberLong":"360"}`) || !strings.Contains(got, `"metaField":"tags"`) {
		t.Errorf("replaced ts = %s", got)
	}
	ix := fmt.Sprint(firstBatch(t, mustRun(t, db, "o", `{"listIndexes": "ts"}`)))
	if !strings.Contains(ix, `"name":"v_1"`) {
		t.Errorf("replaced ts indexes = %s", ix)
	}
	if strings.Contains(fmt.Sprint(firstBatch(t, mustRun(t, db, "o", `{"listCollections": 1, "nameOnly": true}`))), "tmp.agg_out") {
		t.Errorf("a temporary collection is left")
	}

	// mongod's refusals.
	mustRun(t, db, "o", `{"insert": "plain", "documents": [{"_id": 1}]}`)
	wantCode(t, db, "o", out("plain", `{"timeField": "time"}`), document.Code(7268700),
		"Cannot create a time-series collection from a non time-series collection.")
	wantCode(t, db, "o", out("ts", `{"timeField": "time", "invalidField": "invalid"}`), document.CodeIDLUnknownField,
		"BSON field '$out.timeseries.invalidField' is an unknown field.")
	wantCode(t, db, "o", out("ts", `{"timeField": "v"}`), document.Code(7268701),
		"Time field inputted does not match the time field of the existing time-series collection.")
	wantCode(t, db, "o", out("ts", `{"timeField": "time", "metaField": "v"}`), document.Code(7268702),
		"Meta field inputted does not match the time field of the existing time-series collection.")
	mustRun(t, db, "o", `{"create": "view_out", "viewOn": "plain"}`)
	wantCode(t, db, "o", out("view_out", `{"timeField": "time"}`), document.Code(7268703),
		"Cannot create a time-series collection from a non time-series view.")
	wantCode(t, db, "o", `{"aggregate": "src", "pipeline": [{"$out": {"coll": "x", "timeseries": 1}}], "cursor": {}}`, document.CodeTypeMismatch,
		"BSON field '$out.timeseries' is the wrong type 'int', expected type 'object'")
	wantCode(t, db, "o", out("x", `{"metaField": "m"}`), document.CodeIDLFailedToParse, "")

	// A result without the timeField fails the $out and leaves the
	// target as it was.
	mustRun(t, db, "o", `{"insert": "src", "documents": [{"_id": 4, "tags": {"host": "c"}, "v": 4}]}`)
	wantCode(t, db, "o", out("ts", `{"timeField": "time"}`), document.CodeBadValue,
		"'time' must be present and contain a valid BSON UTC datetime value")
	wantCode(t, db, "o", out("fresh", `{"timeField": "time"}`), document.CodeBadValue, "")
	if n := count("ts"); n != 2 {
		t.Errorf("ts after a failed $out holds %d, want 2", n)
	}
	if got := listedColl(t, db, "o", "fresh"); got != "" {
		t.Errorf("fresh after a failed $out = %s", got)
	}
	if strings.Contains(fmt.Sprint(firstBatch(t, mustRun(t, db, "o", `{"listCollections": 1, "nameOnly": true}`))), "tmp.agg_out") {
		t.Errorf("a temporary collection is left")
	}

	// A plain $out replaces a time-series collection with an ordinary
	// one (timeseries_out_non_sharded.js).
	mustRun(t, db, "o", `{"aggregate": "src", "pipeline": [{"$out": "ts"}], "cursor": {}}`)
	if got := listedColl(t, db, "o", "ts"); !strings.Contains(got, `"type":"collection"`) {
		t.Errorf("ts after a plain $out = %s", got)
	}
	if n := count("ts"); n != 4 {
		t.Errorf("ts after a plain $out holds %d, want 4", n)
	}
	if got := listedColl(t, db, "o", "system.buckets.ts"); got != "" {
		t.Errorf("system.buckets.ts left: %s", got)
	}

	// Into another database that does not exist yet.
	mustRun(t, db, "o", `{"aggregate": "src", "pipeline": [{"$match": {"time": {"$exists": true}}}, {"$out": {"db": "other", "coll": "out_time", "timeseries": {"timeField": "time"}}}], "cursor": {}}`)
	if n := len(firstBatch(t, mustRun(t, db, "other", `{"find": "out_time"}`))); n != 3 {
		t.Errorf("other.out_time holds %d, want 3", n)
	}
}

// TestOutTimeseriesReopen: the collection a $out made survives a
// restart, buckets and all, and takes inserts.
func TestOutTimeseriesReopen(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "o", `{"insert": "src", "documents": [{"_id": 1, "time": {"$date": "2024-01-01T00:00:00Z"}, "m": 1}]}`)
	mustRun(t, db, "o", `{"aggregate": "src", "pipeline": [{"$out": {"db": "o", "coll": "ts", "timeseries": {"timeField": "time", "metaField": "m"}}}], "cursor": {}}`)
	mustRun(t, db, "o", `{"aggregate": "src", "pipeline": [{"$out": {"db": "o", "coll": "ts", "timeseries": {"timeField": "time", "metaField": "m"}}}], "cursor": {}}`)
	// A temporary time-series collection a crash left is dropped at
	// open, with its buckets.
	mustRun(t, db, "o", `{"create": "tmp.agg_out.left", "timeseries": {"timeField": "time"}}`)
	mustRun(t, db, "o", `{"insert": "tmp.agg_out.left", "documents": [{"time": {"$date": "2024-01-01T00:00:00Z"}}]}`)
	db = reopen(t, db, dir, clk)
	names := fmt.Sprint(firstBatch(t, mustRun(t, db, "o", `{"listCollections": 1, "nameOnly": true}`)))
	if strings.Contains(names, "tmp.agg_out") {
		t.Errorf("collections after reopen: %s", names)
	}
	mustRun(t, db, "o", `{"insert": "ts", "documents": [{"time": {"$date": "2024-01-01T00:00:01Z"}, "m": 1}]}`)
	if n := len(firstBatch(t, mustRun(t, db, "o", `{"find": "ts"}`))); n != 2 {
		t.Errorf("ts holds %d, want 2", n)
	}
	mustRun(t, db, "o", `{"validate": "ts"}`)
}
