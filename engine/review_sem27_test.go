package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Session 27: the engine-side findings of review 26 (validators and
// time-series) that did not land then. Each test asserts what mongod 7.0
// answers; the comment says where that was read in mongodb/mongo.

// required and properties name paths, not literal field names: each
// required name is an ExistsMatchExpression on that path and each
// property's subschema is parsed with the name as its path, so "a.b"
// reaches into {a: {b: ...}}. json_schema_parser.cpp (translateRequired,
// parseProperties: _parse(expCtx, property.fieldNameStringData(), ...)).
// ttlkv looks the name up as one field.
func TestReviewValidation26DottedPropertyNamesArePaths(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": {"b": 1}}]}`)
	if got := review26IDs(t, db, `{"find": "c", "filter": {"$jsonSchema": {"required": ["a.b"]}}}`); got != "1" {
		t.Errorf("required [a.b] on {a: {b: 1}}: _ids %q, want 1", got)
	}
	if got := review26IDs(t, db, `{"find": "c", "filter": {"$jsonSchema": {"properties": {"a.b": {"bsonType": "string"}}}}}`); got != "" {
		t.Errorf("properties {a.b: string} on {a: {b: 1}}: _ids %q, want none", got)
	}
}

// A field with several operators is an implicit $and whose failing
// operators are listed one by one, each with its own specifiedAs:
// {a: {$gt: 0, $lt: 10}} on a: 11 gives clausesNotSatisfied [{index: 1,
// details: {$lt ...}}]. doc_validation_error_test.cpp
// (LogicalMatchExpression, ImplicitAnd). docs/validation.md claims the
// $and-with-specifiedAs shape ttlkv gives is mongod's.
func TestReviewValidation26ImplicitAndDetails(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"a": {"$gt": 0, "$lt": 10}}}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 11}]}`)
	sameValue(t, "details", field(r, "writeErrors.0.errInfo.details"), `{"operatorName": "$and",
		"clausesNotSatisfied": [{"index": 1, "details": {"operatorName": "$lt", "specifiedAs": {"a": {"$lt": 10}},
			"reason": "comparison failed", "consideredValue": 11}}]}`)
	// The operators are numbered with the filter's other fields, in the
	// parser's order; $options stays with its $regex, which explains
	// itself as in doc_validation_error_test.cpp (BasicRegex,
	// RegexNonString).
	mustRun(t, db, "test", `{"create": "d", "validator": {"a": {"$gt": 0, "$lt": 10}, "b": 1, "s": {"$regex": "^x", "$options": "i"}}}`)
	r = mustRun(t, db, "test", `{"insert": "d", "documents": [{"_id": 1, "a": 11, "b": 2, "s": "y"}]}`)
	sameValue(t, "details", field(r, "writeErrors.0.errInfo.details"), `{"operatorName": "$and",
		"clausesNotSatisfied": [
			{"index": 1, "details": {"operatorName": "$lt", "specifiedAs": {"a": {"$lt": 10}},
				"reason": "comparison failed", "consideredValue": 11}},
			{"index": 2, "details": {"operatorName": "$eq", "specifiedAs": {"b": 1},
				"reason": "comparison failed", "consideredValue": 2}},
			{"index": 3, "details": {"operatorName": "$regex", "specifiedAs": {"s": {"$regex": "^x", "$options": "i"}},
				"reason": "regular expression did not match", "consideredValue": "y"}}]}`)
	r = mustRun(t, db, "test", `{"insert": "d", "documents": [{"_id": 2, "a": 5, "b": 1, "s": 1}]}`)
	sameValue(t, "details", field(r, "writeErrors.0.errInfo.details"), `{"operatorName": "$and",
		"clausesNotSatisfied": [{"index": 3, "details": {"operatorName": "$regex",
			"specifiedAs": {"s": {"$regex": "^x", "$options": "i"}}, "reason": "type did not match",
			"consideredType": "int", "expectedTypes": ["regex", "string", "symbol"], "consideredValue": 1}}]}`)
}

// $_internalJsEmit in a validator is refused with 4660801 (as $function
// is with 4660800). jstests/core/doc_validation/
// doc_validation_invalid_validators.js (collMod ... $_internalJsEmit,
// assert.commandFailedWithCode 4660801; the message is the one of
// $function's 4660800). ttlkv: 168 "Unrecognized expression".
func TestReviewValidation26InternalJsEmitInValidator(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"a": {"$exists": true}}}`)
	_, err := run(t, db, "test", `{"collMod": "c", "validator": {"$expr": {"$_internalJsEmit": {"eval": "function() {}", "this": {}}}}}`)
	checkCode(t, "collMod $_internalJsEmit", err, document.Code(4660801), "$_internalJsEmit cannot be used inside a validator.")
}

// minimum and maximum are $gte/$gt/$lte/$lt match expressions, whose NaN
// rule is "NaN is equal to NaN but otherwise always compares to false":
// minimum NaN passes only NaN. json_schema_parser.cpp (parseMinimum:
// GTEMatchExpression); src/mongo/db/matcher/expression_leaf.cpp
// (ComparisonMatchExpressionBase, NaN special case). ttlkv orders NaN
// below every number, so every number passes minimum NaN and NaN fails it.
func TestReviewValidation26MinimumNaN(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 5}, {"_id": 2, "a": {"$numberDouble": "NaN"}}]}`)
	if got := review26IDs(t, db, `{"find": "c", "filter": {"$jsonSchema": {"properties": {"a": {"minimum": {"$numberDouble": "NaN"}}}}}, "sort": {"_id": 1}}`); got != "2" {
		t.Errorf("minimum NaN: _ids %q, want 2", got)
	}
	if got := review26IDs(t, db, `{"find": "c", "filter": {"$jsonSchema": {"properties": {"a": {"maximum": {"$numberDouble": "NaN"}}}}}, "sort": {"_id": 1}}`); got != "2" {
		t.Errorf("maximum NaN: _ids %q, want 2", got)
	}
}

// On 7.0/8.0 a time-series collection is a view over a real collection
// system.buckets.<name>, and listCollections (db.getCollectionNames())
// lists that collection, type "collection". Read:
// jstests/noPassthrough/timeseries_insert_invalid_timefield.js
// (assert.contains(bucketsColl.getName(), testDB.getCollectionNames())),
// jstests/core/timeseries/ddl/timeseries_create.js and
// timeseries_list_collections.js (non-viewless: the buckets entry is
// listed with options.clusteredIndex). ttlkv hides it; the docs say
// nothing about it.
func TestReviewTS26ListCollectionsShowsBuckets(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t)
	r := mustRun(t, db, "test", `{"listCollections": 1, "nameOnly": true}`)
	found := false
	for _, d := range firstBatch(t, r) {
		if field(d, "name") == "system.buckets.w" {
			found = true
			if field(d, "type") != "collection" {
				t.Errorf("system.buckets.w listed as %v, want type collection", d)
			}
		}
	}
	if !found {
		t.Errorf("listCollections = %v, want system.buckets.w among them", field(r, "cursor.firstBatch"))
	}
}

// On 7.0/8.0 the buckets collection of a time-series collection takes
// indexes of its own: createIndex({"control.max.time": 1}) on
// system.buckets.<name> works and serves queries on it, before and after
// the bucket grows. Read: jstests/core/timeseries/timeseries_bucket_index.js
// (createIndex on control.min.time and control.max.time, an IXSCAN for
// a find on control.max.time, validate). ttlkv answered 73
// InvalidNamespace ("names starting with 'system.' are reserved").
func TestReviewTS26BucketsCollectionTakesIndexes(t *testing.T) {
	t.Parallel()
	db := ts26Setup(t, `{"t": {"$date": "2026-11-22T10:00:00Z"}, "m": 1}`)
	// A second insert grows the open bucket by a delta, which the
	// index build must see.
	mustInsertTS(t, db, "w", `{"t": {"$date": "2026-11-22T10:00:05Z"}, "m": 1}`)
	mustRun(t, db, "test", `{"createIndexes": "system.buckets.w", "indexes": [{"key": {"control.max.t": 1}, "name": "control.max.t_1"}]}`)
	byMax := func(when string) string {
		t.Helper()
		r := mustRun(t, db, "test", `{"find": "system.buckets.w", "filter": {"control.max.t": {"$date": "`+when+`"}}, "hint": "control.max.t_1", "projection": {"meta": 1, "_id": 0}}`)
		return fmt.Sprint(len(firstBatch(t, r)))
	}
	if n := byMax("2026-11-22T10:00:05Z"); n != "1" {
		t.Errorf("buckets with control.max.t 10:00:05 through the new index: %s, want 1", n)
	}
	// A bucket grows: its control.max moves, and so does its entry.
	mustInsertTS(t, db, "w", `{"t": {"$date": "2026-11-22T10:00:09Z"}, "m": 1}`)
	mustInsertTS(t, db, "w", `{"t": {"$date": "2026-11-22T10:00:12Z"}, "m": 1}`)
	if n := byMax("2026-11-22T10:00:09Z"); n != "0" {
		t.Errorf("buckets with control.max.t 10:00:09 after growing to 10:00:12: %s, want 0", n)
	}
	if n := byMax("2026-11-22T10:00:12Z"); n != "1" {
		t.Errorf("buckets with control.max.t 10:00:12: %s, want 1", n)
	}
	r := mustRun(t, db, "test", `{"explain": {"find": "system.buckets.w", "filter": {"control.max.t": {"$date": "2026-11-22T10:00:12Z"}}}}`)
	if plan := fmt.Sprint(field(r, "queryPlanner.winningPlan")); !contains(plan, "IXSCAN") {
		t.Errorf("find on control.max.t: winning plan %s, want an IXSCAN", plan)
	}
	if n := count(t, db, "test", "w"); n != 4 {
		t.Errorf("measurements: %d, want 4", n)
	}
	mustValidate(t, db, "test", "system.buckets.w")
	mustValidate(t, db, "test", "w")
	mustRun(t, db, "test", `{"delete": "w", "deletes": [{"q": {}, "limit": 0}]}`)
	if n := byMax("2026-11-22T10:00:12Z"); n != "0" {
		t.Errorf("buckets through the index after deleting every measurement: %s, want 0", n)
	}
	mustValidate(t, db, "test", "system.buckets.w")
}

// timeseries_bucket_index.js as it runs on mongod 7.0: on a time-series
// collection without a metaField, createIndex({"control.min.time": 1})
// and ({"control.max.time": 1}) on the buckets collection work (ttlkv
// answered 85: its own _ts_control_min_time index has that key), a find
// by the bucket's control.max.time uses the index, the collection
// validates, and a remove by the bucket's _id empties it.
func TestReviewTS26BucketIndexJSTest(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "time"}}`)
	mustRun(t, db, "test", `{"createIndexes": "system.buckets.w", "indexes": [{"key": {"control.min.time": 1}, "name": "control.min.time_1"}]}`)
	mustInsertTS(t, db, "w", `{"_id": 0, "time": {"$date": "2026-11-22T10:00:00Z"}, "x": 0}`)
	mustRun(t, db, "test", `{"createIndexes": "system.buckets.w", "indexes": [{"key": {"control.max.time": 1}, "name": "control.max.time_1"}]}`)
	buckets := firstBatch(t, mustRun(t, db, "test", `{"find": "system.buckets.w"}`))
	if len(buckets) != 1 {
		t.Fatalf("buckets: %v, want one", buckets)
	}
	maxTime := field(buckets[0], "control.max.time")
	byMax := bson.D{{Key: "find", Value: "system.buckets.w"}, {Key: "filter", Value: bson.D{{Key: "control.max.time", Value: maxTime}}}}
	if got := firstBatch(t, mustRunD(t, db, "test", byMax)); len(got) != 1 {
		t.Errorf("find by control.max.time: %v, want the bucket", got)
	}
	r := mustRunD(t, db, "test", bson.D{{Key: "explain", Value: byMax}})
	if plan := fmt.Sprint(field(r, "queryPlanner.winningPlan")); !contains(plan, "IXSCAN") {
		t.Errorf("find by control.max.time: winning plan %s, want an IXSCAN", plan)
	}
	names := []string{}
	for _, ix := range firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "system.buckets.w"}`)) {
		names = append(names, fmt.Sprint(field(ix, "name")))
	}
	if s := fmt.Sprint(names); !contains(s, "control.min.time_1") || !contains(s, "control.max.time_1") {
		t.Errorf("listIndexes system.buckets.w: %s, want both indexes made there", s)
	}
	mustValidate(t, db, "test", "system.buckets.w")
	mustRunD(t, db, "test", bson.D{{Key: "delete", Value: "system.buckets.w"},
		{Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: field(buckets[0], "_id")}}}, {Key: "limit", Value: int32(0)}}}}})
	if got := firstBatch(t, mustRun(t, db, "test", `{"find": "system.buckets.w"}`)); len(got) != 0 {
		t.Errorf("buckets after the remove: %v, want none", got)
	}
	mustValidate(t, db, "test", "system.buckets.w")
}

// mustRunD runs a command given as a document; it must succeed.
func mustRunD(t *testing.T, db *DB, dbName string, cmd bson.D) bson.D {
	t.Helper()
	r, err := db.RunCommand(context.Background(), dbName, cmd)
	if err != nil {
		t.Fatalf("%v: %v", cmd, err)
	}
	return r
}
