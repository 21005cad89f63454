package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Review of indexes against mongod 7.0 (session 28). Each case is what
// mongod answers, from its jstests (jstests/core/index/*) and source
// (src/mongo/db/catalog/index_key_validate.cpp, index_catalog_impl.cpp,
// src/mongo/db/commands/create_indexes_cmd.cpp).

// TestReviewIdx28SpecValidation: index specs mongod refuses, with its
// codes, and the ones it accepts.
func TestReviewIdx28SpecValidation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	ci := func(spec string) string {
		return `{"createIndexes": "c", "indexes": [` + spec + `]}`
	}
	cases := []struct {
		spec string
		code document.Code
		frag string
	}{
		// validateKeyPattern: numbers other than 0 and NaN, and strings.
		{`{"key": {"z": 0}, "name": "z"}`, document.CodeCannotCreateIndex, "Values in the index key pattern cannot be 0."},
		{`{"key": {"z": {"$numberDouble": "NaN"}}, "name": "z"}`, document.CodeCannotCreateIndex, "Values in the index key pattern cannot be NaN."},
		{`{"key": {"z": true}, "name": "z"}`, document.CodeCannotCreateIndex, "Values in v:2 index key pattern cannot be of type bool. Only numbers > 0, numbers < 0, and strings are allowed."},
		{`{"key": {"z": {}}, "name": "z"}`, document.CodeCannotCreateIndex, "Values in v:2 index key pattern cannot be of type object. Only numbers > 0, numbers < 0, and strings are allowed."},
		{`{"key": {"z": ""}, "name": "z"}`, document.CodeCannotCreateIndex, "Values in the index key pattern cannot be empty strings"},
		{`{"key": {"z": "foo"}, "name": "z"}`, document.CodeCannotCreateIndex, "Unknown index plugin 'foo'"},
		// The name _id_ belongs to {_id: 1} (parseAndValidateIndexSpecs).
		{`{"key": {"z": 1}, "name": "_id_"}`, document.CodeBadValue, "The index name '_id_' is reserved for the _id index, which must have key pattern {_id: 1}, found key: { z: 1 }"},
		// validateIdIndexSpec: hidden is no field of an _id index spec,
		// whatever its value.
		{`{"key": {"_id": 1}, "name": "_id_", "hidden": false}`, document.CodeInvalidIndexSpecificationOption, "The field 'hidden' is not valid for an _id index specification"},
		{`{"key": {"_id": 1}, "name": "_id_", "hidden": true}`, document.CodeInvalidIndexSpecificationOption, "The field 'hidden' is not valid for an _id index specification"},
		// validateIndexSpec's types.
		{`{"key": {"z": 1}, "name": "z", "v": 1.5}`, document.CodeBadValue, "Index version must be representable as a 32-bit integer, but got 1.5"},
		{`{"key": {"z": 1}, "name": "z", "collation": {}}`, document.CodeBadValue, "The field 'collation' cannot be an empty object."},
		{`{"key": {"z": 1}, "name": "z", "collation": "x"}`, document.CodeTypeMismatch, "The field 'collation' must be an object, but got string"},
		{`{"key": {"t": "text"}, "name": "t", "default_language": 1}`, document.CodeTypeMismatch, "The field 'default_language' must be a string, but got int"},
		{`{"key": {"t": "text"}, "name": "t", "language_override": true}`, document.CodeTypeMismatch, "The field 'language_override' must be a string, but got bool"},
		{`{"key": {"t": "text"}, "name": "t", "weights": 5}`, document.CodeTypeMismatch, "The field 'weights' must be an object, but got int"},
		{`{"key": {"z": 1}, "name": "z", "weights": {"z": 1}}`, document.CodeCannotCreateIndex, "the field 'weights' can only be specified with text indexes"},
		// TTL rules (validateIndexSpecTTL, validateIdIndexSpec).
		{`{"key": {"z": 1}, "name": "z", "expireAfterSeconds": "abc"}`, document.CodeCannotCreateIndex, "TTL index 'expireAfterSeconds' option must be numeric, but received a type of 'string"},
		{`{"key": {"z": 1}, "name": "z", "expireAfterSeconds": -1}`, document.CodeCannotCreateIndex, "TTL index 'expireAfterSeconds' option cannot be less than 0"},
		{`{"key": {"z": 1, "q": 1}, "name": "z", "expireAfterSeconds": 10}`, document.CodeCannotCreateIndex, "TTL indexes are single-field indexes, compound indexes do not support TTL."},
		{`{"key": {"_id": 1}, "name": "idttl", "expireAfterSeconds": 10}`, document.CodeInvalidIndexSpecificationOption, "The field 'expireAfterSeconds' is not valid for an _id index specification"},
		{`{"key": {"z": 1}, "name": "z", "bogus": 1}`, document.CodeInvalidIndexSpecificationOption, "The field 'bogus' is not valid for an index specification."},
		{`{"key": {"z": 1}, "name": "*"}`, document.CodeBadValue, "The index name '*' is not valid."},
		{`{"key": {"z": 1}, "name": "zz", "sparse": true, "partialFilterExpression": {"a": 1}}`, document.CodeCannotCreateIndex, `cannot mix "partialFilterExpression" and "sparse" options`},
		{`{"key": {"a.$x": 1}, "name": "z"}`, document.CodeCannotCreateIndex, "Index key contains an illegal field name: field name starts with '$'."},
		{`{"key": {"$**": "hashed"}, "name": "z"}`, document.CodeCannotCreateIndex, "Index key contains an illegal field name: field name starts with '$'."},
		{`{"key": {"$**": 0}, "name": "z"}`, document.CodeCannotCreateIndex, "Values in the index key pattern cannot be 0."},
		{`{"key": {"$id": 1}, "name": "z"}`, document.CodeCannotCreateIndex, "Index key contains an illegal field name"},
	}
	for _, tc := range cases {
		wantCode(t, db, "test", ci(tc.spec), tc.code, tc.frag)
	}
	// A DBRef's $ref, $id and $db, after the first component, may be
	// indexed (validateKeyPattern's mightBePartOfDbRef).
	mustRun(t, db, "test", ci(`{"key": {"owner.$id": 1, "owner.$ref": 1, "owner.$db": 1}, "name": "dbref"}`))
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "owner": {"$ref": "u", "$id": 7, "$db": "test"}}, {"_id": 2, "owner": {"$ref": "u", "$id": 8}}]}`)
	r := mustRun(t, db, "test", `{"find": "c", "filter": {"owner.$id": 7}, "hint": "dbref", "projection": {"_id": 1}}`)
	if got := fmtValue(field(r, "cursor.firstBatch")); got != `[ { _id: 1 } ]` {
		t.Fatalf("find through the DBRef index: %s", got)
	}
}

// TestReviewIdx28CreateReply: createIndexes' reply fields
// (CreateIndexesReply in create_indexes.idl, appendFinalIndexFieldsToResult
// and indexesAlreadyExist in create_indexes_cmd.cpp).
func TestReviewIdx28CreateReply(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	r := mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	if got := replyKeys(r); got != "numIndexesBefore=1 numIndexesAfter=2 createdCollectionAutomatically=true ok=1" {
		t.Fatalf("new collection: %s", got)
	}
	// Nothing to build on an existing collection: no
	// createdCollectionAutomatically.
	r = mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	if got := replyKeys(r); got != `numIndexesBefore=2 numIndexesAfter=2 note=string("all indexes already exist") ok=1` {
		t.Fatalf("all exist: %s", got)
	}
	// Some built, some there: the note says so.
	r = mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b": 1}, "name": "b_1"}]}`)
	if got := replyKeys(r); got != `numIndexesBefore=2 numIndexesAfter=3 createdCollectionAutomatically=false note=string("index already exists") ok=1` {
		t.Fatalf("some exist: %s", got)
	}
	// On a new collection the _id index is there before the others.
	r = mustRun(t, db, "test", `{"createIndexes": "n", "indexes": [{"key": {"_id": 1}, "name": "_id_"}, {"key": {"b": 1}, "name": "b_1"}]}`)
	if got := replyKeys(r); got != `numIndexesBefore=1 numIndexesAfter=2 createdCollectionAutomatically=true note=string("index already exists") ok=1` {
		t.Fatalf("new collection, _id given: %s", got)
	}
	r = mustRun(t, db, "test", `{"createIndexes": "n2", "indexes": [{"key": {"_id": 1}, "name": "_id_"}]}`)
	if got := replyKeys(r); got != `numIndexesBefore=1 numIndexesAfter=1 createdCollectionAutomatically=true note=string("all indexes already exist") ok=1` {
		t.Fatalf("new collection, only _id: %s", got)
	}
	// The command's own v (an index version, default 2) is a known field.
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"x": 1}, "name": "x_1"}], "v": 2}`)
}

// TestReviewIdx28IgnoreUnknownOptions: ignoreUnknownIndexOptions drops
// the fields mongod does not know before validating
// (index_key_validate::removeUnknownFields).
func TestReviewIdx28IgnoreUnknownOptions(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "bogus": 1}], "ignoreUnknownIndexOptions": true}`)
	r := mustRun(t, db, "test", `{"listIndexes": "c"}`)
	if got := fmtValue(field(r, "cursor.firstBatch")); got != `[ { v: 2, key: { _id: 1 }, name: "_id_" }, { v: 2, key: { a: 1 }, name: "a_1" } ]` {
		t.Fatalf("listIndexes: %s", got)
	}
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"b": 1}, "name": "b_1", "bogus": 1}], "ignoreUnknownIndexOptions": false}`,
		document.CodeInvalidIndexSpecificationOption, "The field 'bogus' is not valid for an index specification.")
}

// TestReviewIdx28DropIndexes: dropIndexes' forms and errors
// (src/mongo/db/catalog/drop_indexes.cpp, drop_indexes.idl).
func TestReviewIdx28DropIndexes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b": 1}, "name": "b_1"}, {"key": {"c": 1}, "name": "c_1"}, {"key": {"d": 1}, "name": "d_1"}]}`)
	wantCode(t, db, "test", `{"dropIndexes": "c", "index": "_id_"}`, document.CodeInvalidOptions, "cannot drop _id index")
	wantCode(t, db, "test", `{"dropIndexes": "c", "index": {"_id": 1}}`, document.CodeInvalidOptions, "cannot drop _id index")
	wantCode(t, db, "test", `{"dropIndexes": "c", "index": "nope"}`, document.CodeIndexNotFound, "index not found with name [nope]")
	wantCode(t, db, "test", `{"dropIndexes": "c", "index": {"nope": 1}}`, document.CodeIndexNotFound, "can't find index with key: { nope: 1 }")
	wantCode(t, db, "test", `{"dropIndexes": "c", "index": ["a_1", "nope"]}`, document.CodeIndexNotFound, "index not found with name [nope]")
	// An array holds names only.
	wantCode(t, db, "test", `{"dropIndexes": "c", "index": ["a_1", {"b": 1}]}`, document.CodeTypeMismatch, "BSON field 'dropIndexes.index.1' is the wrong type 'object', expected type 'string'")
	wantCode(t, db, "test", `{"dropIndexes": "c", "index": 5}`, document.CodeTypeMismatch, "BSON field 'dropIndexes.index' is the wrong type 'int'")
	if got := indexNames(t, db, "test", "c"); got != "_id_,a_1,b_1,c_1,d_1" {
		t.Fatalf("a failed drop changed the indexes: %s", got)
	}
	r := mustRun(t, db, "test", `{"dropIndexes": "c", "index": ["a_1", "b_1"]}`)
	if got := replyKeys(r); got != "nIndexesWas=5 ok=1" {
		t.Fatalf("drop by names: %s", got)
	}
	r = mustRun(t, db, "test", `{"dropIndexes": "c", "index": {"c": 1}}`)
	if got := replyKeys(r); got != "nIndexesWas=3 ok=1" {
		t.Fatalf("drop by key: %s", got)
	}
	r = mustRun(t, db, "test", `{"dropIndexes": "c", "index": "*"}`)
	if got := replyKeys(r); got != `nIndexesWas=2 msg=string("non-_id indexes dropped for collection") ok=1` {
		t.Fatalf("drop *: %s", got)
	}
	if got := indexNames(t, db, "test", "c"); got != "_id_" {
		t.Fatalf("after drop *: %s", got)
	}
	wantCode(t, db, "test", `{"dropIndexes": "nocoll", "index": "*"}`, document.CodeNamespaceNotFound, "ns not found test.nocoll")
}

// TestReviewIdx28SparsePlanning: mongod's planner reads a sparse index
// for a predicate that no document missing the field matches, so
// returnKey gives its keys; it never reads it for null, $exists: false
// or a sort alone (jstests/core/index/sparse*.js, index_check*.js).
func TestReviewIdx28SparsePlanning(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2}, {"_id": 3}, {"_id": 4, "a": null}, {"_id": 5, "a": [1, 2]}, {"_id": 6, "a": []}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_s", "sparse": true}]}`)
	batch := func(cmd string) string {
		t.Helper()
		return fmtValue(field(mustRun(t, db, "test", cmd), "cursor.firstBatch"))
	}
	stage := func(filter, sort string) string {
		t.Helper()
		r := mustRun(t, db, "test", `{"explain": {"find": "c", "filter": `+filter+`, "sort": `+sort+`}, "verbosity": "queryPlanner"}`)
		if s, ok := field(r, "queryPlanner.winningPlan.inputStage.stage").(string); ok && s == "IXSCAN" {
			return "IXSCAN " + fmtValue(field(r, "queryPlanner.winningPlan.inputStage.indexName"))
		}
		if s, ok := field(r, "queryPlanner.winningPlan.inputStage.stage").(string); ok {
			return s
		}
		return fmtValue(field(r, "queryPlanner.winningPlan.stage"))
	}
	if got := batch(`{"find": "c", "filter": {"a": 1}, "returnKey": true}`); got != `[ { a: 1 }, { a: 1 } ]` {
		t.Fatalf("returnKey {a: 1}: %s", got)
	}
	if got := stage(`{"a": {"$gt": 1}}`, `{}`); got != `IXSCAN "a_s"` {
		t.Fatalf("{a: {$gt: 1}}: %s", got)
	}
	for _, f := range []string{`{"a": null}`, `{"a": {"$exists": false}}`, `{"a": {"$in": [null, 1]}}`, `{"a": []}`, `{}`} {
		if got := stage(f, `{"a": 1}`); got != `"COLLSCAN"` && got != "COLLSCAN" {
			t.Fatalf("%s sorted by a: %s, want a collection scan", f, got)
		}
	}
	if got := batch(`{"find": "c", "filter": {"a": null}, "projection": {"_id": 1}}`); got != `[ { _id: 3 }, { _id: 4 } ]` {
		t.Fatalf("{a: null}: %s", got)
	}
	if got := batch(`{"find": "c", "filter": {"a": {"$gte": 1}}, "projection": {"_id": 1}}`); got != `[ { _id: 1 }, { _id: 5 }, { _id: 2 } ]` {
		t.Fatalf("{a: {$gte: 1}} in index order: %s", got)
	}
}

// TestReviewIdx28KeyPatternLimits: a compound index has at most 32
// fields (13103, jstests/core/index/compound_index_max_fields.js) and a
// key pattern at most 2048 bytes of BSON (67, validateKeyPattern);
// index names and indexed values have no length limit in 7.0.
func TestReviewIdx28KeyPatternLimits(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	fields := make([]string, 33)
	for i := range fields {
		fields[i] = fmt.Sprintf(`"f%d": %d`, i, 1-2*(i%2))
	}
	spec := func(n int) string { return "{" + strings.Join(fields[:n], ", ") + "}" }
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": `+spec(32)+`, "name": "s32"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 0, "f31": 1}]}`)
	if got := fmtValue(field(mustRun(t, db, "test", `{"find": "c", "filter": {"f31": 1}, "hint": "s32"}`), "cursor.firstBatch")); got != `[ { _id: 0, f31: 1 } ]` {
		t.Fatalf("find through 32 fields: %s", got)
	}
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": `+spec(33)+`, "name": "s33"}]}`, 13103, "too many compound keys")
	long := strings.Repeat("x", 2100)
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"`+long+`": 1}, "name": "big"}]}`, document.CodeCannotCreateIndex, "Index key pattern too large.")
	name := strings.Repeat("n", 300)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"n": 1}, "name": "`+name+`"}]}`)
	big := strings.Repeat("y", 5000)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "n": "`+big+`"}]}`)
	if got := fmtValue(field(mustRun(t, db, "test", `{"find": "c", "filter": {"n": "`+big+`"}, "hint": "`+name+`", "projection": {"_id": 1}}`), "cursor.firstBatch")); got != `[ { _id: 1 } ]` {
		t.Fatalf("find a 5000-byte key: %s", got)
	}
}

// TestReviewIdx28ListIndexesShape: listIndexes shows v, key, name, then
// the options in ListIndexesReplyItem's order; unique and hidden only
// when true, sparse and background as given, v: 1 when asked, ns and
// dropDups never (IndexCatalogImpl::_fixIndexSpec, list_indexes.idl).
func TestReviewIdx28ListIndexesShape(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"a": 1}, "name": "a", "unique": false, "sparse": false, "background": true},
		{"key": {"b": 1}, "name": "b", "sparse": 1, "hidden": true, "unique": 1},
		{"key": {"c": 1}, "name": "c", "hidden": false, "v": 1, "ns": "test.c", "dropDups": true},
		{"key": {"d": 1}, "name": "d", "expireAfterSeconds": 5, "partialFilterExpression": {"d": {"$gt": 1}}, "background": 0}]}`)
	r := mustRun(t, db, "test", `{"listIndexes": "c"}`)
	want := `[ { v: 2, key: { _id: 1 }, name: "_id_" }, ` +
		`{ v: 2, key: { a: 1 }, name: "a", background: true, sparse: false }, ` +
		`{ v: 2, key: { b: 1 }, name: "b", unique: true, hidden: true, sparse: true }, ` +
		`{ v: 1, key: { c: 1 }, name: "c" }, ` +
		`{ v: 2, key: { d: 1 }, name: "d", background: false, partialFilterExpression: { d: { $gt: 1 } }, expireAfterSeconds: 5 } ]`
	if got := fmtValue(field(r, "cursor.firstBatch")); got != want {
		t.Fatalf("listIndexes:\n got %s\nwant %s", got, want)
	}
}

// TestReviewIdx28PrepareUnique: prepareUnique refuses new duplicate keys
// and keeps the old ones, then collMod converts the index to unique once
// they are gone (jstests/core/index/index_prepareUnique.js,
// jstests/core/ddl/collmod_convert_to_unique*.js; coll_mod.cpp).
func TestReviewIdx28PrepareUnique(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 1}, {"_id": 3, "a": 2}]}`)
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "prepareUnique": true, "unique": true}]}`,
		document.CodeCannotCreateIndex, "cannot create an index with the 'unique' option and the 'prepareUnique' option")
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"_id": 1}, "name": "_id_", "prepareUnique": true}]}`,
		document.CodeInvalidIndexSpecificationOption, "The field 'prepareUnique' is not valid for an _id index specification")
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "prepareUnique": true}]}`)
	r := mustRun(t, db, "test", `{"listIndexes": "c"}`)
	if got := fmtValue(field(r, "cursor.firstBatch")); got != `[ { v: 2, key: { _id: 1 }, name: "_id_" }, { v: 2, key: { a: 1 }, name: "a_1", prepareUnique: true } ]` {
		t.Fatalf("listIndexes: %s", got)
	}
	// New duplicates are refused; a write keeping its key is not.
	r = mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 4, "a": 2}, {"_id": 5, "a": 3}], "ordered": false}`)
	if got := fmtValue(r); !strings.Contains(got, `n: 1`) || !strings.Contains(got, `code: 11000`) || !strings.Contains(got, `index: a_1 dup key: { a: 2 }`) {
		t.Fatalf("insert: %s", got)
	}
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"b": 1}}}]}`)
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 5}, "u": {"$set": {"a": 1}}}]}`)
	if got := fmtValue(r); !strings.Contains(got, `code: 11000`) {
		t.Fatalf("update to a held key: %s", got)
	}
	// Conversion waits for the old duplicates to go.
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"b": 1}, "name": "b_1"}]}`)
	wantCode(t, db, "test", `{"collMod": "c", "index": {"name": "b_1", "unique": true}}`,
		document.CodeInvalidOptions, "Cannot make index unique with 'prepareUnique=false'. Run collMod to set it first.")
	wantCode(t, db, "test", `{"collMod": "c", "index": {"name": "a_1", "unique": true}}`,
		document.CodeCannotConvertIndexToUnique, "Cannot convert the index to unique. Please resolve conflicting documents before running collMod again.")
	wantCode(t, db, "test", `{"collMod": "c", "index": {"name": "a_1", "unique": false}}`, document.CodeBadValue, "Cannot make index non-unique")
	wantCode(t, db, "test", `{"collMod": "c", "index": {"name": "b_1", "prepareUnique": true, "hidden": true}}`,
		document.CodeInvalidOptions, "prepareUnique cannot be combined with any other modification.")
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": 2}, "limit": 1}]}`)
	r = mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "a_1", "unique": true}}`)
	if got := replyKeys(r); got != "unique_new=true ok=1" {
		t.Fatalf("convert: %s", got)
	}
	r = mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "a_1", "unique": true}}`)
	if got := replyKeys(r); got != "ok=1" {
		t.Fatalf("convert again: %s", got)
	}
	r = mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "b_1", "prepareUnique": 1}}`)
	if got := replyKeys(r); got != "prepareUnique_old=false prepareUnique_new=true ok=1" {
		t.Fatalf("prepareUnique: %s", got)
	}
	r = mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "b_1", "prepareUnique": true}}`)
	if got := replyKeys(r); got != "ok=1" {
		t.Fatalf("prepareUnique again: %s", got)
	}
	// The settings survive a reopen and still hold.
	db = reopen(t, db, dir, clk)
	r = mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 6, "a": 1}, {"_id": 7, "b": 1}], "ordered": false}`)
	if got := fmtValue(r); !strings.Contains(got, `n: 0`) || !strings.Contains(got, `index: a_1 dup key`) || !strings.Contains(got, `index: b_1 dup key`) {
		t.Fatalf("after reopen: %s", got)
	}
}

// TestReviewIdx28PrepareUniqueLimits: within one batch a second key is a
// duplicate too; ttlkv refuses prepareUnique where its writes do not
// check it (other index types, other collection kinds) rather than
// accept it unenforced.
func TestReviewIdx28PrepareUniqueLimits(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "prepareUnique": true}, {"key": {"h": "hashed"}, "name": "h"}]}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 9}, {"_id": 2, "a": 9}]}`)
	if got := fmtValue(r); !strings.Contains(got, `n: 1`) || !strings.Contains(got, `index: 1, code: 11000`) {
		t.Fatalf("one batch: %s", got)
	}
	wantCode(t, db, "test", `{"collMod": "c", "index": {"name": "h", "prepareUnique": true}}`, document.CodeInvalidOptions, "not supported by ttlkv")
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"$**": 1}, "name": "w", "prepareUnique": true}]}`, document.CodeCannotCreateIndex, "not supported by ttlkv")
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	mustRun(t, db, "test", `{"createIndexes": "ts", "indexes": [{"key": {"m": 1}, "name": "m_1"}]}`)
	wantCode(t, db, "test", `{"collMod": "ts", "index": {"name": "m_1", "prepareUnique": true}}`, document.CodeInvalidOptions, "not supported by ttlkv")
	wantCode(t, db, "test", `{"createIndexes": "ts", "indexes": [{"key": {"m": -1}, "name": "m_-1", "prepareUnique": true}]}`, document.CodeCannotCreateIndex, "not supported by ttlkv")
}

// TestReviewIdx28CollModIndexLookup: collMod's own messages for an index
// it cannot find or cannot tell apart (coll_mod.cpp).
func TestReviewIdx28CollModIndexLookup(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"p": 1}, "name": "p1"}, {"key": {"p": 1}, "name": "p2", "collation": {"locale": "fr"}}]}`)
	wantCode(t, db, "test", `{"collMod": "c", "index": {"name": "nosuch", "hidden": true}}`, document.CodeIndexNotFound, "cannot find index nosuch for ns test.c")
	wantCode(t, db, "test", `{"collMod": "c", "index": {"keyPattern": {"q": 1}, "hidden": true}}`, document.CodeIndexNotFound, "cannot find index { q: 1 } for ns test.c")
	wantCode(t, db, "test", `{"collMod": "c", "index": {"keyPattern": {"p": 1}, "hidden": true}}`, document.CodeAmbiguousIndexKeyPattern, "index keyPattern { p: 1 } matches 2 indexes, must use index name. Conflicting indexes:")
}

// TestReviewIdx28FindHint: find's hint is a name or a key pattern
// (IndexHint::parse, 9 otherwise); a hidden or missing index cannot be
// hinted (2, jstests/core/index/hidden_index.js); a sparse index hinted
// answers from its entries alone (jstests/core/index/sparse_index_hint*).
func TestReviewIdx28FindHint(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2}, {"_id": 3, "a": null}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_s", "sparse": true}, {"key": {"q": 1}, "name": "q_h", "hidden": true}]}`)
	wantCode(t, db, "test", `{"find": "c", "hint": 5}`, document.CodeFailedToParse, "Hint must be a string or an object")
	wantCode(t, db, "test", `{"find": "c", "hint": "q_h"}`, document.CodeBadValue, "hint provided does not correspond to an existing index")
	wantCode(t, db, "test", `{"find": "c", "hint": {"q": 1}}`, document.CodeBadValue, "hint provided does not correspond to an existing index")
	wantCode(t, db, "test", `{"find": "c", "hint": "nope"}`, document.CodeBadValue, "hint provided does not correspond to an existing index")
	if got := fmtValue(field(mustRun(t, db, "test", `{"find": "c", "hint": "a_s", "projection": {"_id": 1}}`), "cursor.firstBatch")); got != `[ { _id: 3 }, { _id: 1 } ]` {
		t.Fatalf("hinted sparse index: %s", got)
	}
	if got := fmtValue(field(mustRun(t, db, "test", `{"find": "c", "filter": {"a": {"$exists": false}}, "hint": {"a": 1}}`), "cursor.firstBatch")); got != `[]` {
		t.Fatalf("hinted sparse index, $exists: false: %s", got)
	}
	if got := fmtValue(field(mustRun(t, db, "test", `{"find": "c", "filter": {"a": 1}, "hint": "a_s", "returnKey": true, "showRecordId": true}`), "cursor.firstBatch")); got != `[ { a: 1, $recordId: 1 } ]` {
		t.Fatalf("returnKey with showRecordId: %s", got)
	}
}

// TestReviewIdx28SameNameOtherCollation: an index asked for again under
// its name and key but another collation is another index with the same
// name (86: the collation tells indexes apart in
// IndexDescriptor::compareIndexOptions), not "all indexes already
// exist".
func TestReviewIdx28SameNameOtherCollation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "collation": {"locale": "fr"}}]}`,
		document.CodeIndexKeySpecsConflict, "An existing index has the same name as the requested index.")
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"b": 1}, "name": "b_fr", "collation": {"locale": "fr"}}]}`)
	r := mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"b": 1}, "name": "b_fr", "collation": {"locale": "fr"}}]}`)
	if got := replyKeys(r); got != `numIndexesBefore=3 numIndexesAfter=3 note=string("all indexes already exist") ok=1` {
		t.Fatalf("same collation again: %s", got)
	}
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"b": 1}, "name": "b_fr"}]}`,
		document.CodeIndexKeySpecsConflict, "An existing index has the same name as the requested index.")
	// A collection's default collation is the index's when it names none.
	mustRun(t, db, "test", `{"create": "fr", "collation": {"locale": "fr"}}`)
	mustRun(t, db, "test", `{"createIndexes": "fr", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	r = mustRun(t, db, "test", `{"createIndexes": "fr", "indexes": [{"key": {"a": 1}, "name": "a_1", "collation": {"locale": "fr"}}]}`)
	if got := replyKeys(r); got != `numIndexesBefore=2 numIndexesAfter=2 note=string("all indexes already exist") ok=1` {
		t.Fatalf("the default collation named: %s", got)
	}
}

// TestReviewIdx28WildcardMinMax: min and max over a hinted wildcard
// index are 51174, whatever the filter
// (jstests/core/index/wildcard/wildcard_index_minmax.js).
func TestReviewIdx28WildcardMinMax(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1, "b": 1}, {"_id": 2, "a": 1, "b": 2}, {"_id": 3, "a": 2, "b": 1}, {"_id": 4, "a": 2, "b": 2}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"$**": 1}, "name": "wc"}, {"key": {"a": 1}, "name": "a_1"}]}`)
	for _, cmd := range []string{
		`{"find": "c", "min": {"a": 0.5}, "hint": {"$**": 1}}`,
		`{"find": "c", "max": {"a": 1.5}, "hint": {"$**": 1}}`,
		`{"find": "c", "min": {"a": 0.5}, "max": {"a": 1.5}, "hint": {"$**": 1}}`,
		`{"find": "c", "filter": {"a": 2}, "min": {"a": 1}, "hint": {"$**": 1}}`,
		`{"find": "c", "filter": {"a": 1}, "min": {"a": 1}, "hint": "wc"}`,
	} {
		wantCode(t, db, "test", cmd, 51174, "The index chosen is not equivalent to min/max")
	}
	r := mustRun(t, db, "test", `{"find": "c", "min": {"a": 0.5}, "max": {"a": 1.5}, "hint": {"a": 1}, "projection": {"_id": 1}}`)
	if got := fmtValue(field(r, "cursor.firstBatch")); got != `[ { _id: 1 }, { _id: 2 } ]` {
		t.Fatalf("min/max over a_1: %s", got)
	}
}

// TestReviewIdx28ListGeoTextTypes: listIndexes gives 2d's min and max as
// doubles and the version and bits fields as ints, as
// ListIndexesReplyItem's safeDouble and safeInt types serialise them.
func TestReviewIdx28ListGeoTextTypes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"g": "2d"}, "name": "g", "bits": 26.0, "min": -180, "max": {"$numberLong": "180"}}, {"key": {"s": "2dsphere"}, "name": "s", "2dsphereIndexVersion": 3.0}, {"key": {"t": "text"}, "name": "t", "textIndexVersion": {"$numberLong": "3"}}]}`)
	r := mustRun(t, db, "test", `{"listIndexes": "c"}`)
	b, _ := field(r, "cursor.firstBatch").(bson.A)
	if len(b) != 4 {
		t.Fatalf("listIndexes: %s", fmtValue(r))
	}
	for _, c := range []struct {
		i     int
		field string
		want  any
	}{{1, "bits", int32(26)}, {1, "min", -180.0}, {1, "max", 180.0}, {2, "2dsphereIndexVersion", int32(3)}, {3, "textIndexVersion", int32(3)}} {
		d, _ := b[c.i].(bson.D)
		if got := field(d, c.field); got != c.want {
			t.Errorf("%s: %#v, want %#v", c.field, got, c.want)
		}
	}
}

// TestReviewIdx28IDIndexOtherName: {_id: 1} under another name is the
// _id index, which mongod names _id_ whatever the spec says
// (IndexCatalogImpl::_fixIndexSpec): "all indexes already exist".
func TestReviewIdx28IDIndexOtherName(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	r := mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"_id": 1}, "name": "foo"}]}`)
	if got := replyKeys(r); got != `numIndexesBefore=1 numIndexesAfter=1 note=string("all indexes already exist") ok=1` {
		t.Fatalf("{_id: 1} named foo: %s", got)
	}
	if got := indexNames(t, db, "test", "c"); got != "_id_" {
		t.Fatalf("indexes: %s", got)
	}
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"_id": -1}, "name": "bar"}]}`, document.CodeBadValue, "The field 'key' for an _id index must be {_id: 1}, but got { _id: -1 }")
}

// TestReviewIdx28IndexesElementType: createIndexes.indexes is an array
// of objects (create_indexes.idl), an element of another type is 14 in
// the IDL's words.
func TestReviewIdx28IndexesElementType(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, 5]}`,
		document.CodeTypeMismatch, "BSON field 'createIndexes.indexes.1' is the wrong type 'int', expected type 'object'")
}
