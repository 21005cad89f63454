package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// Review of indexes against mongod 7.0 (session 28). Each case is what
// mongod answers, from its jstests (jstests/core/index/*) and source
// (src/mongo/db/catalog/index_key_validate.cpp, index_catalog_impl.cpp,
// src/mongo/db/commands/create_indexes_cmd.cpp).

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
