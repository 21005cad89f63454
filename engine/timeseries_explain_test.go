package engine

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// tsExplainFixture is a time-series collection w (time t, meta m) with
// the index m_1_t_1 and two measurements, each in a bucket of its own.
func tsExplainFixture(t *testing.T) *DB {
	t.Helper()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"m": 1, "t": 1}, "name": "m_1_t_1"}]}`)
	mustRun(t, db, "test", `{"insert": "w", "documents": [{"t": {"$date": "2026-11-22T12:00:00Z"}, "m": "a", "x": 1},
		{"t": {"$date": "2026-11-22T12:01:00Z"}, "m": "b", "x": 2}]}`)
	return db
}

// Explain of a read of a time-series collection, or of its buckets,
// names the index a user lists on system.buckets.<name> (mongod 7.0:
// the user's name, keyed in bucket form), never ttlkv's _ts_ix_ or
// _ts_meta; between an index of the user's and ttlkv's own that serve
// equally, the user's is read.
func TestTimeseriesExplainNamesUserIndex(t *testing.T) {
	t.Parallel()
	db := tsExplainFixture(t)
	const ixscan = `{"stage": "IXSCAN", "keyPattern": {"meta": 1, "control.min.t": 1, "control.max.t": 1},
		"indexName": "m_1_t_1", "isMultiKey": false, "multiKeyPaths": {"meta": [], "control.min.t": [], "control.max.t": []},
		"isUnique": false, "isSparse": false, "isPartial": false, "indexVersion": 2, "direction": "forward",
		"indexBounds": {"meta": ["[\"a\", \"a\"]"], "control.min.t": ["[MinKey, MaxKey]"], "control.max.t": ["[MinKey, MaxKey]"]}}`
	for _, c := range []struct{ cmd, path string }{
		{`{"find": "w", "filter": {"m": "a"}}`, "$cursor.queryPlanner.winningPlan.inputStage"},
		{`{"aggregate": "w", "pipeline": [{"$match": {"m": "a"}}], "cursor": {}}`, "$cursor.queryPlanner.winningPlan.inputStage"},
		{`{"find": "system.buckets.w", "filter": {"meta": "a"}}`, "queryPlanner.winningPlan.inputStage"},
	} {
		r := mustRun(t, db, "test", `{"explain": `+c.cmd+`, "verbosity": "queryPlanner"}`)
		if c.path[0] == '$' {
			r = tsStage(r, 0)
		}
		got, _ := field(r, c.path).(bson.D)
		if extJSON(t, got) != extJSON(t, mustDoc(t, ixscan)) {
			t.Errorf("%s: bucket scan %s\nwant %s", c.cmd, extJSON(t, got), extJSON(t, mustDoc(t, ixscan)))
		}
	}
	// Descending on the time: the bound ttlkv's key lacks reads from the
	// top, as mongod prints a descending field's on a forward scan.
	// (control.min.t is ttlkv's ordinary rendering of an unbounded
	// descending field, which prints [MinKey, MaxKey] for any index.)
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"m": 1, "t": -1}, "name": "m_1_t_-1"}]}`)
	r := mustRun(t, db, "test", `{"explain": {"find": "w", "filter": {"m": "a"}, "hint": "m_1_t_-1"}, "verbosity": "queryPlanner"}`)
	bounds, _ := field(tsStage(r, 0), "$cursor.queryPlanner.winningPlan.inputStage.indexBounds").(bson.D)
	if len(bounds) != 3 || bounds[0].Key != "meta" || bounds[1].Key != "control.max.t" || bounds[2].Key != "control.min.t" ||
		extJSON(t, bson.D{bounds[1]}) != extJSON(t, mustDoc(t, `{"control.max.t": ["[MaxKey, MinKey]"]}`)) {
		t.Errorf("m_1_t_-1: indexBounds %s, want meta, control.max.t [MaxKey, MinKey], control.min.t", extJSON(t, bounds))
	}
	mustRun(t, db, "test", `{"dropIndexes": "w", "index": "m_1_t_-1"}`)
	// A time range no index of the user's serves: ttlkv reads its own
	// index on control.min, which mongod has not; explain shows the scan
	// of the buckets with the bucket filter mongod would run, the
	// buckets that index found examined.
	r = mustRun(t, db, "test", `{"explain": {"find": "w", "filter": {"t": {"$lte": {"$date": "2026-11-22T12:00:00Z"}}}}, "verbosity": "executionStats"}`)
	const collscan = `{"stage": "COLLSCAN", "filter": {"control.min.t": {"$lte": {"$date": "2026-11-22T12:00:00Z"}}}, "direction": "forward"}`
	if got, _ := field(tsStage(r, 0), "$cursor.queryPlanner.winningPlan").(bson.D); extJSON(t, got) != extJSON(t, mustDoc(t, collscan)) {
		t.Errorf("time range without a user index: %s\nwant %s", extJSON(t, got), extJSON(t, mustDoc(t, collscan)))
	}
	if ex := field(tsStage(r, 0), "$cursor.executionStats").(bson.D); field(ex, "totalKeysExamined") != int32(0) || field(ex, "totalDocsExamined") != int32(1) {
		t.Errorf("time range without a user index: executionStats %s, want 0 keys and 1 bucket examined", extJSON(t, ex))
	}
	// A time range: the user's t_1 rather than ttlkv's control.min index.
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"t": 1}, "name": "t_1"}]}`)
	r = mustRun(t, db, "test", `{"explain": {"find": "w", "filter": {"t": {"$lte": {"$date": "2026-11-22T12:00:00Z"}}}}, "verbosity": "queryPlanner"}`)
	ix, _ := field(tsStage(r, 0), "$cursor.queryPlanner.winningPlan.inputStage").(bson.D)
	if field(ix, "indexName") != "t_1" || extJSON(t, field(ix, "keyPattern").(bson.D)) != extJSON(t, mustDoc(t, `{"control.min.t": 1, "control.max.t": 1}`)) {
		t.Errorf("time range: bucket scan %s, want t_1 keyed {control.min.t: 1, control.max.t: 1}", extJSON(t, ix))
	}
}

// $indexStats on a time-series collection (and on its buckets) counts
// the reads that used the buckets index serving each of its indexes,
// as mongod counts the buckets index's accesses under the user's name.
func TestTimeseriesIndexStatsCountsReads(t *testing.T) {
	t.Parallel()
	db := tsExplainFixture(t)
	ops := func(coll string) any {
		t.Helper()
		r := mustRun(t, db, "test", `{"aggregate": "`+coll+`", "pipeline": [{"$indexStats": {}}, {"$project": {"_id": 0, "name": 1, "ops": "$accesses.ops"}}], "cursor": {}}`)
		return extJSON(t, bson.D{{Key: "b", Value: field(r, "cursor.firstBatch")}})
	}
	want := func(n int64) string {
		return extJSON(t, bson.D{{Key: "b", Value: bson.A{bson.D{{Key: "name", Value: "m_1_t_1"}, {Key: "ops", Value: n}}}}})
	}
	if got := ops("w"); got != want(0) {
		t.Fatalf("before any read: %s, want %s", got, want(0))
	}
	mustRun(t, db, "test", `{"find": "w", "filter": {"m": "a"}}`)
	mustRun(t, db, "test", `{"aggregate": "w", "pipeline": [{"$match": {"m": "b"}}], "cursor": {}}`)
	mustRun(t, db, "test", `{"find": "w", "filter": {"x": 1}}`) // no index
	if got := ops("w"); got != want(2) {
		t.Fatalf("after two reads by m: %s, want %s", got, want(2))
	}
	mustRun(t, db, "test", `{"find": "system.buckets.w", "filter": {"meta": "a"}}`)
	for _, coll := range []string{"w", "system.buckets.w"} {
		if got := ops(coll); got != want(3) {
			t.Errorf("%s after a read of the buckets by meta: %s, want %s", coll, got, want(3))
		}
	}
	// A write counts once a statement, a sorted findAndModify too.
	mustRun(t, db, "test", `{"delete": "w", "deletes": [{"q": {"m": "b"}, "limit": 0}]}`)
	mustRun(t, db, "test", `{"findAndModify": "w", "query": {"m": "a"}, "sort": {"x": 1}, "remove": true}`)
	if got := ops("w"); got != want(5) {
		t.Errorf("after a delete and a findAndModify by m: %s, want %s", got, want(5))
	}
}

// validate on a time-series collection answers, as mongod 7.0 does,
// for its buckets collection: its namespace, a record and an index key
// a bucket, and the buckets collection's UUID as listCollections shows
// it.
func TestTimeseriesValidateAnswersForBuckets(t *testing.T) {
	t.Parallel()
	db := tsExplainFixture(t)
	lc := mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "system.buckets.w"}}`)
	batch, _ := field(lc, "cursor.firstBatch").(bson.A)
	if len(batch) != 1 {
		t.Fatalf("listCollections: %v", lc)
	}
	uuid := field(batch[0].(bson.D), "info.uuid")
	want := mustDoc(t, `{"ns": "test.system.buckets.w", "nInvalidDocuments": 0, "nNonCompliantDocuments": 0, "nrecords": 2, "nIndexes": 1,
		"keysPerIndex": {"m_1_t_1": 2}, "indexDetails": {"m_1_t_1": {"valid": true}}, "valid": true, "repaired": false,
		"warnings": [], "errors": [], "extraIndexEntries": [], "missingIndexEntries": [], "corruptRecords": [], "ok": 1.0}`)
	want = append(bson.D{want[0], {Key: "uuid", Value: uuid}}, want[1:]...)
	for _, coll := range []string{"w", "system.buckets.w"} {
		r := mustRun(t, db, "test", `{"validate": "`+coll+`"}`)
		if extJSON(t, r) != extJSON(t, want) {
			t.Errorf("validate %s = %s\nwant %s", coll, extJSON(t, r), extJSON(t, want))
		}
	}
}

// tsStage is stage i of the pipeline explain reply r.
func tsStage(r bson.D, i int) bson.D {
	stages, _ := field(r, "stages").(bson.A)
	if i >= len(stages) {
		return nil
	}
	d, _ := stages[i].(bson.D)
	return d
}

// Explain of a find on a time-series collection is mongod 7.0's
// explain of the aggregate it runs over the buckets: a $cursor planned
// on system.buckets.<name> with the bucket filter, the unpacking with
// its spec and the measurement filter as eventFilter (the metaField's
// conditions moved onto the buckets' meta), then the find's sort, skip,
// limit and projection as the optimised pipeline holds them.
func TestTimeseriesExplainFindIsPipeline(t *testing.T) {
	t.Parallel()
	db := tsExplainFixture(t)
	mustRun(t, db, "test", `{"insert": "w", "documents": [{"t": {"$date": "2026-11-22T12:02:00Z"}, "m": "a", "x": 3}]}`)
	r := mustRun(t, db, "test", `{"explain": {"find": "w", "filter": {"m": "a", "x": {"$gte": 1}}, "sort": {"x": -1}, "skip": 1, "limit": 1,
		"projection": {"x": 1}}, "verbosity": "executionStats"}`)
	stages, _ := field(r, "stages").(bson.A)
	if len(stages) != 5 {
		t.Fatalf("stages = %v", stages)
	}
	cur := tsStage(r, 0)
	if field(cur, "$cursor.queryPlanner.namespace") != "test.system.buckets.w" ||
		extJSON(t, field(cur, "$cursor.queryPlanner.parsedQuery").(bson.D)) != extJSON(t, mustDoc(t, `{"meta": {"$eq": "a"}}`)) ||
		field(cur, "$cursor.queryPlanner.winningPlan.inputStage.indexName") != "m_1_t_1" ||
		field(cur, "$cursor.executionStats.nReturned") != int32(1) {
		t.Errorf("$cursor = %s", extJSON(t, cur))
	}
	want := `{"s": [
		{"$_internalUnpackBucket": {"exclude": [], "timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 3600,
			"assumeNoMixedSchemaData": true, "eventFilter": {"x": {"$gte": 1}}},
			"nReturned": {"$numberLong": "2"}},
		{"$sort": {"sortKey": {"x": -1}, "limit": {"$numberLong": "2"}}, "nReturned": {"$numberLong": "2"}},
		{"$skip": {"$numberLong": "1"}, "nReturned": {"$numberLong": "1"}},
		{"$project": {"x": 1}, "nReturned": {"$numberLong": "1"}}]}`
	var timed bson.A // each without its executionTimeMillisEstimate, a long
	for _, st := range stages[1:] {
		d, _ := st.(bson.D)
		var out bson.D
		for _, e := range d {
			if e.Key == "executionTimeMillisEstimate" {
				if _, ok := e.Value.(int64); !ok {
					t.Errorf("%s: executionTimeMillisEstimate %#v, want a long", d[0].Key, e.Value)
				}
				continue
			}
			out = append(out, e)
		}
		timed = append(timed, out)
	}
	if got := extJSON(t, bson.D{{Key: "s", Value: timed}}); got != extJSON(t, mustDoc(t, want)) {
		t.Errorf("stages after $cursor = %s\nwant %s", got, extJSON(t, mustDoc(t, want)))
	}
	// Under a collation the meta's condition stays with the measurements.
	r = mustRun(t, db, "test", `{"explain": {"find": "w", "filter": {"m": "A"}, "collation": {"locale": "en", "strength": 2}}, "verbosity": "queryPlanner"}`)
	if got := extJSON(t, field(tsStage(r, 1), "$_internalUnpackBucket.eventFilter").(bson.D)); got != extJSON(t, mustDoc(t, `{"m": {"$eq": "A"}}`)) {
		t.Errorf("collated: eventFilter %s, want {m: {$eq: \"A\"}}", got)
	}
	// Without a sort, the $limit takes the skip too and comes first.
	r = mustRun(t, db, "test", `{"explain": {"find": "w", "filter": {}, "skip": 1, "limit": 2}, "verbosity": "queryPlanner"}`)
	stages, _ = field(r, "stages").(bson.A)
	want = `{"s": [{"$_internalUnpackBucket": {"exclude": [], "timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 3600,
		"assumeNoMixedSchemaData": true}}, {"$limit": {"$numberLong": "3"}}, {"$skip": {"$numberLong": "1"}}]}`
	if got := extJSON(t, bson.D{{Key: "s", Value: stages[1:]}}); got != extJSON(t, mustDoc(t, want)) {
		t.Errorf("skip and limit: %s\nwant %s", got, extJSON(t, mustDoc(t, want)))
	}
}

// Explain of a count on a time-series collection is mongod 7.0's
// explain of the aggregate it runs for a count on a view ($match, $skip,
// $limit, $count, serialized as mongod's $group and $project).
func TestTimeseriesExplainCountIsPipeline(t *testing.T) {
	t.Parallel()
	db := tsExplainFixture(t)
	r := mustRun(t, db, "test", `{"explain": {"count": "w", "query": {"m": "a"}}, "verbosity": "queryPlanner"}`)
	stages, _ := field(r, "stages").(bson.A)
	if len(stages) < 1 || field(tsStage(r, 0), "$cursor.queryPlanner.winningPlan.inputStage.indexName") != "m_1_t_1" {
		t.Fatalf("explain = %s", extJSON(t, r))
	}
	const want = `{"s": [{"$_internalUnpackBucket": {"exclude": [], "timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 3600,
		"assumeNoMixedSchemaData": true}}, {"$group": {"_id": {"$const": null}, "count": {"$sum": {"$const": 1}}}},
		{"$project": {"_id": false, "count": true}}]}`
	if got := extJSON(t, bson.D{{Key: "s", Value: stages[1:]}}); got != extJSON(t, mustDoc(t, want)) {
		t.Errorf("stages after $cursor = %s\nwant %s", got, extJSON(t, mustDoc(t, want)))
	}
	if got := extJSON(t, field(r, "command").(bson.D)); got != extJSON(t, mustDoc(t, `{"aggregate": "w", "pipeline": [{"$match": {"m": "a"}}, {"$count": "count"}]}`)) {
		t.Errorf("command = %s", got)
	}
	wantCode(t, db, "test", `{"explain": {"count": "w", "bogus": 1}}`, 40415, "bogus")
}
