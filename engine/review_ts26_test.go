package engine

// Review 26: time-series collections against mongod 7.0/8.0. Each test
// asserts what mongod answers, and names where that was read (a jstest
// or a source file of mongodb/mongo). Each failed on ttlkv before the
// fix that came with it.

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// ts26Code reports (without stopping the test) unless cmd fails with code.
func ts26Code(t *testing.T, db *DB, dbName, cmd string, code document.Code) {
	t.Helper()
	_, err := run(t, db, dbName, cmd)
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("%s: err = %v, want code %d", cmd, err, code)
		return
	}
	if e.Code != code {
		t.Errorf("%s: code %d (%s) %q, want %d", cmd, e.Code, e.Name(), e.Message, code)
	}
}

// ts26Keys is the field names of document v, in order.
func ts26Keys(v any) []string {
	d, _ := v.(bson.D)
	var ks []string
	for _, e := range d {
		ks = append(ks, e.Key)
	}
	return ks
}

// ts26Setup makes test.w (timeField t, metaField m) holding ms.
func ts26Setup(t *testing.T, ms ...string) *DB {
	t.Helper()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	if len(ms) > 0 {
		mustInsertTS(t, db, "w", ms...)
	}
	return db
}

// mongod normalizes an object meta value before bucketing: fields sorted
// by name, recursively, also in documents inside arrays (arrays keep
// their order). Measurements whose metas differ only in field order share
// a bucket, and every measurement reads back with the normalized meta, so
// a whole-meta equality written in another order matches nothing.
// Read: src/mongo/db/timeseries/bucket_catalog/bucket_metadata.cpp (the
// bucket keeps metadata::normalize of the element),
// jstests/core/timeseries/write/timeseries_metadata.js ("Its ordering does
// not affect which bucket is used", also for {a: [{b, c}]} vs {a: [{c, b}]}),
// jstests/core/timeseries/query/timeseries_insert_normalize_metadata.js
// (find with the other order returns 0, with the sorted order all).
// ttlkv keeps each meta as inserted and buckets by exact field order.
func TestReviewTS26MetaObjectsNormalized(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t,
		`{"_id": 1, "t": {"$date": "2025-02-18T12:00:00Z"}, "m": {"a": 1, "b": 1}}`,
		`{"_id": 2, "t": {"$date": "2025-02-18T12:00:01Z"}, "m": {"b": 1, "a": 1}}`,
		`{"_id": 3, "t": {"$date": "2025-02-18T12:00:02Z"}, "m": {"x": [{"c": 0, "b": 1}]}}`,
		`{"_id": 4, "t": {"$date": "2025-02-18T12:00:03Z"}, "m": {"x": [{"b": 1, "c": 0}]}}`,
	)
	if n := len(findAll(t, db, "test", "system.buckets.w", bson.D{})); n != 2 {
		t.Errorf("%d buckets, want 2 ({a,b} with {b,a}; {x:[{b,c}]} with {x:[{c,b}]})", n)
	}
	sorted := bson.D{{Key: "m", Value: bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: int32(1)}}}}
	if n := len(findAll(t, db, "test", "w", sorted)); n != 2 {
		t.Errorf("find {m: {a: 1, b: 1}} matched %d, want 2", n)
	}
	other := bson.D{{Key: "m", Value: bson.D{{Key: "b", Value: int32(1)}, {Key: "a", Value: int32(1)}}}}
	if n := len(findAll(t, db, "test", "w", other)); n != 0 {
		t.Errorf("find {m: {b: 1, a: 1}} matched %d, want 0 (metas are stored normalized)", n)
	}
	got := findAll(t, db, "test", "w", bson.D{{Key: "_id", Value: int32(2)}})
	if len(got) != 1 || fmt.Sprint(ts26Keys(field(got[0], "m"))) != "[a b]" {
		t.Errorf("measurement inserted with m {b, a} reads back as %v, want m {a, b}", got)
	}
	got = findAll(t, db, "test", "w", bson.D{{Key: "_id", Value: int32(3)}})
	if len(got) != 1 || fmt.Sprint(ts26Keys(field(got[0], "m.x.0"))) != "[b c]" {
		t.Errorf("measurement inserted with m {x: [{c, b}]} reads back as %v, want x.0 {b, c}", got)
	}
}

// An update that sets the meta field to an object stores it normalized
// too: after $set {tag: {b: {d, c}, a}} every measurement reads back with
// tag {a: 1, b: {c: 1, d: 1}} in that order (bsonWoCompare, order
// sensitive). Read: jstests/core/timeseries/write/timeseries_update_normalize_metadata.js.
// ttlkv writes the meta in the order given.
func TestReviewTS26UpdateNormalizesMeta(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "time", "metaField": "tag"}}`)
	mustInsertTS(t, db, "w",
		`{"_id": 1, "time": {"$date": "2026-11-22T10:00:00Z"}, "tag": {"a": 1, "b": {"c": 1, "d": 1}}}`,
		`{"_id": 2, "time": {"$date": "2026-11-22T10:00:01Z"}, "tag": {"a": 1, "b": {"c": 1, "d": 1}}}`)
	mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {}, "u": {"$set": {"tag": {"b": {"d": 1, "c": 1}, "a": 1}}}, "multi": true}]}`)
	for _, d := range findAll(t, db, "test", "w", bson.D{}) {
		if fmt.Sprint(ts26Keys(field(d, "tag"))) != "[a b]" || fmt.Sprint(ts26Keys(field(d, "tag.b"))) != "[c d]" {
			t.Errorf("after the update: %v, want tag {a: 1, b: {c: 1, d: 1}}", d)
		}
	}
}

// Since 6.3 creating a time-series collection with a metaField builds a
// default index on {<metaField>: 1, <timeField>: 1} named
// "<metaField>_1_<timeField>_1", and listIndexes on the collection shows
// it in the user's form. Read: src/mongo/db/catalog/create_collection.cpp
// (_createDefaultTimeseriesIndex / timeseries::createDefaultTimeseriesIndex:
// name metaField + "_1_" + timeField + "_1"),
// jstests/core/timeseries/ddl/timeseries_index_partial.js ("An index on
// {metaField, timeField} gets built by default", coll.getIndexes()[0]).
// ttlkv lists no index.
func TestReviewTS26DefaultMetaTimeIndexListed(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t)
	got := firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "w"}`))
	want, _ := document.ParseExtJSON([]byte(`{"v": 2, "key": {"m": 1, "t": 1}, "name": "m_1_t_1"}`))
	if len(got) != 1 || !document.Equal(got[0], want) {
		t.Errorf("listIndexes = %v, want [%v]", got, want)
	}
}

// A unique index on a time-series collection is 72 InvalidOptions
// "Unique indexes are not supported on time-series collections". Read:
// src/mongo/db/timeseries/timeseries_commands_conversion_helper.cpp
// (makeTimeseriesCreateIndexesCommand). ttlkv answers 67 CannotCreateIndex.
func TestReviewTS26UniqueIndexCode(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t)
	ts26Code(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"m.a": 1}, "name": "u", "unique": true}]}`, document.CodeInvalidOptions)
}

// Dropping a time-series collection by its buckets namespace drops the
// collection too: drop "system.buckets.c" leaves neither c nor its
// buckets. Read: jstests/core/timeseries/ddl/timeseries_drop_legacy.js
// ("Case 2: normal timeseries, drop by the buckets NS"). ttlkv drops the
// buckets only and leaves test.w listed as a time-series collection whose
// inserts then fail with 26.
func TestReviewTS26DropBucketsDropsCollection(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t, `{"t": {"$date": "2026-11-22T10:00:00Z"}, "m": 1}`)
	mustRun(t, db, "test", `{"drop": "system.buckets.w"}`)
	if got := firstBatch(t, mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "w"}}`)); len(got) != 0 {
		t.Errorf("after dropping system.buckets.w, listCollections still has %v", got)
	}
}

// renameCollection onto the name of a time-series collection, even with
// dropTarget, is 48 NamespaceExists "a view already exists with that
// name" on 7.0/8.0 (the target is a view, which dropTarget does not
// drop). Read: src/mongo/db/catalog/rename_collection.cpp
// (checkSourceAndTargetNamespaces: no target collection and
// lookupView(target) -> NamespaceExists). ttlkv drops the time-series
// collection with its measurements and renames.
func TestReviewTS26RenameOntoTimeseries(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t, `{"t": {"$date": "2026-11-22T10:00:00Z"}, "m": 1}`)
	mustRun(t, db, "test", `{"create": "plain"}`)
	ts26Code(t, db, "admin", `{"renameCollection": "test.plain", "to": "test.w", "dropTarget": true}`, document.CodeNamespaceExists)
	if n := count(t, db, "test", "w"); n != 1 {
		t.Errorf("test.w holds %d measurements after the refused rename, want 1", n)
	}
}

// A measurement whose time field is not a date is the write error
// 2 BadValue "'t' must be present and contain a valid BSON UTC datetime
// value", the same message as a missing time field. Read:
// src/mongo/db/timeseries/bucket_catalog/bucket_catalog_helpers.cpp
// (extractTime). ttlkv appends ", got int".
func TestReviewTS26InsertNonDateMessage(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t)
	r := mustRun(t, db, "test", `{"insert": "w", "documents": [{"t": 5}]}`)
	const want = "'t' must be present and contain a valid BSON UTC datetime value"
	if field(r, "writeErrors.0.code") != int32(2) || field(r, "writeErrors.0.errmsg") != want {
		t.Errorf("insert {t: 5}: %v, want code 2 %q", r, want)
	}
}

// create refuses, beside timeseries: a timeField or metaField holding a
// NUL byte (2 BadValue), and idIndex, validationLevel, validationAction
// (72 InvalidOptions). Read: jstests/core/timeseries/ddl/timeseries_create.js
// (testInvalidTimeseriesOptions({timeField: '\0time'}, BadValue),
// testIncompatibleCreateOptions({idIndex ...}), ({validationLevel: "off"}),
// ({validationAction: "warn"})). ttlkv creates all four.
func TestReviewTS26CreateRefusesOptions(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	cases := []struct {
		opts string
		code document.Code
	}{
		{`"timeseries": {"timeField": "\u0000time"}`, document.CodeBadValue},
		{`"timeseries": {"timeField": "time", "metaField": "t\u0000ag"}`, document.CodeBadValue},
		{`"timeseries": {"timeField": "time"}, "idIndex": {"key": {"_id": 1}, "name": "_id_"}`, document.CodeInvalidOptions},
		{`"timeseries": {"timeField": "time"}, "validationLevel": "off"`, document.CodeInvalidOptions},
		{`"timeseries": {"timeField": "time"}, "validationAction": "warn"`, document.CodeInvalidOptions},
	}
	for i, c := range cases {
		ts26Code(t, db, "test", fmt.Sprintf(`{"create": "c%d", %s}`, i, c.opts), c.code)
	}
}

// listCollections shows a time-series collection's storageEngine and
// indexOptionDefaults options as given at create. Read:
// jstests/core/timeseries/ddl/timeseries_list_collections.js
// (testOptions({timeseries, storageEngine: {wiredTiger: {}}}),
// indexOptionDefaults; docEq of the whole options). ttlkv accepts both and
// lists neither (it lists them for an ordinary collection).
func TestReviewTS26ListingKeepsStorageOptions(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t"}, "storageEngine": {"wiredTiger": {}}, "indexOptionDefaults": {"storageEngine": {"wiredTiger": {}}}}`)
	r := mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "w"}}`)
	got := firstBatch(t, r)
	want, _ := document.ParseExtJSON([]byte(`{"timeseries": {"timeField": "t", "granularity": "seconds", "bucketMaxSpanSeconds": 3600}, "storageEngine": {"wiredTiger": {}}, "indexOptionDefaults": {"storageEngine": {"wiredTiger": {}}}}`))
	if len(got) != 1 || !document.Equal(field(got[0], "options"), want) {
		t.Errorf("listed %v, want options %v", got, want)
	}
}

// On 7.0/8.0 a find on a time-series collection runs as an aggregation
// over its view, and options an aggregation has not are refused with 168
// InvalidPipelineOperator: showRecordId, returnKey, min, tailable,
// noCursorTimeout, singleBatch without limit 1, and a sort on $natural.
// Read: src/mongo/db/pipeline/query_request_conversion.cpp
// (asAggregateCommandRequest), jstests/core/timeseries/query/timeseries_show_record_id.js
// (showRecordId -> InvalidPipelineOperator). ttlkv runs them all (tailable
// is 2).
func TestReviewTS26FindOptionsAsAggregation(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t, `{"t": {"$date": "2026-11-22T10:00:00Z"}, "m": 1}`)
	const invalidPipelineOperator = document.CodeInvalidPipelineOperator
	for _, opt := range []string{
		`"showRecordId": true`,
		`"returnKey": true`,
		`"min": {"m": 1}, "hint": {"m": 1}`,
		`"tailable": true`,
		`"noCursorTimeout": true`,
		`"singleBatch": true`,
		`"sort": {"$natural": 1}`,
	} {
		ts26Code(t, db, "test", `{"find": "w", "filter": {}, `+opt+`}`, invalidPipelineOperator)
	}
}

// hint {$natural: -1} on a find or an aggregate of a time-series
// collection scans the buckets backwards: three measurements one per
// bucket come back in descending bucket order. Read:
// jstests/core/timeseries/query/timeseries_hint.js (docsDesc for find and
// aggregate, COLLSCAN direction "backward"). ttlkv returns them forwards.
func TestReviewTS26NaturalHintBackward(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t,
		`{"_id": 1, "m": 1, "t": {"$date": "1970-01-01T00:00:00Z"}}`,
		`{"_id": 2, "m": 2, "t": {"$date": "1970-01-02T00:00:00Z"}}`,
		`{"_id": 3, "m": 3, "t": {"$date": "1970-01-03T00:00:00Z"}}`)
	for _, cmd := range []string{
		`{"find": "w", "filter": {}, "hint": {"$natural": -1}}`,
		`{"aggregate": "w", "pipeline": [], "cursor": {}, "hint": {"$natural": -1}}`,
	} {
		got := firstBatch(t, mustRun(t, db, "test", cmd))
		if ids := fieldStrings(got, "_id"); fmt.Sprint(ids) != "[3 2 1]" {
			t.Errorf("%s: _ids %v, want [3 2 1]", cmd, ids)
		}
	}
}

// A hint that names no index of the time-series collection is 2 BadValue
// "hint provided does not correspond to an existing index" for find,
// aggregate and count, as for any collection: mongod maps the hint to an
// index of the buckets (find/count run as an aggregate whose hint is
// passed on, src/mongo/db/pipeline/query_request_conversion.cpp) and the
// planner refuses one that matches none. Read:
// jstests/core/timeseries/write/timeseries_delete_hint.js (hint "test_hint"
// and {test_hint: 1} -> BadValue on the same collection). Inferred for
// find/aggregate/count, not read in a jstest. ttlkv refuses it for delete
// and distinct but ignores it for find, aggregate and count.
func TestReviewTS26UnknownHintRefused(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t, `{"t": {"$date": "2026-11-22T10:00:00Z"}, "m": 1}`)
	ts26Code(t, db, "test", `{"find": "w", "filter": {}, "hint": {"zzz": 1}}`, document.CodeBadValue)
	ts26Code(t, db, "test", `{"find": "w", "filter": {}, "hint": "nope"}`, document.CodeBadValue)
	ts26Code(t, db, "test", `{"aggregate": "w", "pipeline": [], "cursor": {}, "hint": {"zzz": 1}}`, document.CodeBadValue)
	ts26Code(t, db, "test", `{"count": "w", "query": {}, "hint": "nope"}`, document.CodeBadValue)
}

// $near (and $nearSphere, $geoNear) in a find on a time-series collection
// fails with 5626500 "$geoNear, $near, and $nearSphere are not allowed in
// this context" (the find runs as a $match). Read:
// jstests/core/timeseries/geo/timeseries_text_geonear_disallowed.js.
// ttlkv returns no documents and no error.
func TestReviewTS26NearRefused(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t, `{"t": {"$date": "2026-11-22T10:00:00Z"}, "m": {"d": [40, 40]}, "v": [1, 1]}`)
	ts26Code(t, db, "test", `{"find": "w", "filter": {"m.d": {"$near": [0, 0]}}}`, document.Code(5626500))
	ts26Code(t, db, "test", `{"find": "w", "filter": {"v": {"$near": [0, 0]}}}`, document.Code(5626500))
}

// Partial indexes on time-series collections exist since 6.0. Read:
// jstests/core/timeseries/ddl/timeseries_index_partial.js,
// src/mongo/db/timeseries/timeseries_commands_conversion_helper.cpp (the
// filter is pushed down to the buckets). ttlkv refused any partial index
// that was not a TTL one (67); it now takes one whose filter is on the
// metaField (a bucket's measurements all pass it or none), listed as
// written and read through a hint with the documents a scan gives.
func TestReviewTS26PartialIndexOnMeta(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"m.a": 1}, "name": "ma", "partialFilterExpression": {"m.a": {"$gt": 0}}}]}`)
	for i := -2; i < 3; i++ {
		mustInsertTS(t, db, "w", fmt.Sprintf(`{"t": %s, "m": {"a": %d}, "v": %d}`, tsDate(clk.Now()), i, i))
	}
	mustValidate(t, db, "test", "w")
	hinted := firstBatch(t, mustRun(t, db, "test", `{"find": "w", "filter": {"m.a": {"$gt": 1}}, "hint": "ma"}`))
	if len(hinted) != 1 || fmt.Sprint(field(hinted[0], "v")) != "2" {
		t.Errorf("hinted find {m.a > 1} = %v, want the measurement with v 2", hinted)
	}
	ixs := firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "w"}`))
	want, _ := document.ParseExtJSON([]byte(`{"m.a": {"$gt": 0}}`))
	if len(ixs) != 2 || !document.Equal(field(ixs[1], "partialFilterExpression"), want) {
		t.Errorf("listIndexes = %v, want the filter as written", ixs)
	}
	// A filter on a measurement is still refused.
	ts26Code(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"m.a": 1}, "name": "mv", "partialFilterExpression": {"v": {"$gt": 0}}}]}`, document.CodeCannotCreateIndex)
}
