package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// TestLookup checks $lookup's localField/foreignField form against the
// rules mongod joins by (docs/aggregation.md, "$lookup"): equality as a
// find's, through arrays on both sides, a missing local value as null,
// regular expressions compared as values, numbers across types, the
// matches in the foreign collection's order, as set at a nested path.
func TestLookup(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "authors", "documents": [
		{"_id": 1, "name": "ann", "tags": ["x", "y"]},
		{"_id": 2, "name": "bob", "tags": "y"},
		{"_id": 3, "name": "cy"},
		{"_id": 4, "name": "dee", "key": null},
		{"_id": 5, "name": "re", "key": {"$regularExpression": {"pattern": "^a", "options": ""}}},
		{"_id": 6, "name": "alf", "key": "abc"},
		{"_id": 7, "name": "num", "key": {"$numberLong": "7"}}]}`)
	mustRun(t, db, "test", `{"insert": "books", "documents": [
		{"_id": "b1", "author": 1},
		{"_id": "b2", "author": [2, 1]},
		{"_id": "b3"},
		{"_id": "b4", "author": [], "meta": {"by": [{"a": 2}, {"a": 3}, "x"]}},
		{"_id": "b5", "author": 9, "key": {"$regularExpression": {"pattern": "^a", "options": ""}}},
		{"_id": "b6", "author": 1, "key": 7.0, "out": 5},
		{"_id": "b7", "tag": ["x"], "out": {"keep": 1}}]}`)
	cases := []struct{ stage, want string }{
		// One value: equality; an array: any of its values. A missing
		// value, or an empty array, is null, which no _id equals.
		{`{"from": "authors", "localField": "author", "foreignField": "_id", "as": "a"}`,
			`[{"_id": "b1", "n": [1]}, {"_id": "b2", "n": [1, 2]}, {"_id": "b3", "n": []}, {"_id": "b4", "n": []}, {"_id": "b5", "n": []}, {"_id": "b6", "n": [1]}, {"_id": "b7", "n": []}]`},
		// Through the documents of an array on the way; "x" has no "a".
		{`{"from": "authors", "localField": "meta.by.a", "foreignField": "_id", "as": "a"}`,
			`[{"_id": "b1", "n": []}, {"_id": "b2", "n": []}, {"_id": "b3", "n": []}, {"_id": "b4", "n": [2, 3]}, {"_id": "b5", "n": []}, {"_id": "b6", "n": []}, {"_id": "b7", "n": []}]`},
		// A regular expression is a value, not a pattern; 7.0 equals
		// NumberLong(7); a missing key matches missing and null.
		{`{"from": "authors", "localField": "key", "foreignField": "key", "as": "a"}`,
			`[{"_id": "b1", "n": [1, 2, 3, 4]}, {"_id": "b2", "n": [1, 2, 3, 4]}, {"_id": "b3", "n": [1, 2, 3, 4]}, {"_id": "b4", "n": [1, 2, 3, 4]}, {"_id": "b5", "n": [5]}, {"_id": "b6", "n": [7]}, {"_id": "b7", "n": [1, 2, 3, 4]}]`},
		// Array against array: the foreign array contains the value;
		// missing matches missing.
		{`{"from": "authors", "localField": "tag", "foreignField": "tags", "as": "a"}`,
			`[{"_id": "b1", "n": [3, 4, 5, 6, 7]}, {"_id": "b2", "n": [3, 4, 5, 6, 7]}, {"_id": "b3", "n": [3, 4, 5, 6, 7]}, {"_id": "b4", "n": [3, 4, 5, 6, 7]}, {"_id": "b5", "n": [3, 4, 5, 6, 7]}, {"_id": "b6", "n": [3, 4, 5, 6, 7]}, {"_id": "b7", "n": [1]}]`},
		// A collection that does not exist joins nothing.
		{`{"from": "nosuch", "localField": "author", "foreignField": "_id", "as": "a"}`,
			`[{"_id": "b1", "n": []}, {"_id": "b2", "n": []}, {"_id": "b3", "n": []}, {"_id": "b4", "n": []}, {"_id": "b5", "n": []}, {"_id": "b6", "n": []}, {"_id": "b7", "n": []}]`},
	}
	for _, c := range cases {
		r := mustRun(t, db, "test", `{"aggregate": "books", "pipeline": [{"$lookup": `+c.stage+`}, {"$project": {"n": "$a._id"}}, {"$sort": {"_id": 1}}], "cursor": {}}`)
		_, batch := checkCursorShape(t, "lookup", field(r, "cursor"), "firstBatch")
		sameValue(t, c.stage, batch, c.want)
	}

	// as at a nested path: a field on the way that is not a document is
	// replaced; one that is keeps its other fields.
	r := mustRun(t, db, "test", `{"aggregate": "books", "pipeline": [{"$match": {"_id": {"$in": ["b6", "b7"]}}}, {"$lookup": {"from": "authors", "localField": "author", "foreignField": "key", "as": "out.got"}}, {"$project": {"out.keep": 1, "out.got.name": 1}}], "cursor": {}}`)
	_, batch := checkCursorShape(t, "nested as", field(r, "cursor"), "firstBatch")
	sameValue(t, "nested as", batch, `[{"_id": "b6", "out": {"got": []}}, {"_id": "b7", "out": {"keep": 1, "got": [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}, {"name": "dee"}]}}]`)

	// The whole foreign document, in the foreign collection's order.
	r = mustRun(t, db, "test", `{"aggregate": "authors", "pipeline": [{"$match": {"_id": 1}}, {"$lookup": {"from": "books", "localField": "_id", "foreignField": "author", "as": "books"}}], "cursor": {}}`)
	_, batch = checkCursorShape(t, "whole", field(r, "cursor"), "firstBatch")
	sameValue(t, "whole", batch, `[{"_id": 1, "name": "ann", "tags": ["x", "y"], "books": [{"_id": "b1", "author": 1}, {"_id": "b2", "author": [2, 1]}, {"_id": "b6", "author": 1, "key": 7.0, "out": 5}]}]`)
}

// TestLookupRefusals checks the refusals of $lookup's parser, with
// mongod's codes and words.
func TestLookupRefusals(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}]}`)
	cases := []struct {
		stage string
		code  document.Code
		msg   string
	}{
		{`5`, document.CodeFailedToParse, "the $lookup stage specification must be an object, but found int"},
		{`{"from": 1, "localField": "a", "foreignField": "b", "as": "x"}`, document.CodeFailedToParse, "$lookup 'from' field must be a string, but found int"},
		{`{"from": "c", "localField": "a", "foreignField": "b", "as": "x", "bogus": "y"}`, document.CodeFailedToParse, "unknown argument to $lookup: bogus"},
		{`{"localField": "a", "foreignField": "b", "as": "x"}`, document.CodeFailedToParse, "must specify 'pipeline' when 'from' is empty"},
		{`{"from": "c", "localField": "a", "foreignField": "b"}`, document.CodeFailedToParse, "must specify 'as' field for a $lookup"},
		{`{"from": "c", "localField": "a", "as": "x"}`, document.CodeFailedToParse, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified"},
		{`{"from": "c", "localField": "a", "foreignField": "b", "as": "x", "let": {"v": 1}}`, document.CodeFailedToParse, "$lookup with a 'let' argument must also specify 'pipeline'"},
		{`{"from": "c", "localField": "a", "foreignField": "b", "as": "x", "let": 1}`, document.CodeFailedToParse, "$lookup argument 'let: 1' must be an object, is type int"},
		{`{"from": "c", "pipeline": {}, "as": "x"}`, document.CodeTypeMismatch, "'pipeline' option must be specified as an array"},
		{`{"from": "c", "localField": "a", "pipeline": [], "as": "x"}`, document.CodeFailedToParse, "$lookup requires both or neither of 'localField' and 'foreignField' to be specified"},
		{`{"from": "c", "let": {"A": 1}, "pipeline": [], "as": "x"}`, document.Code(16867), "'A' starts with an invalid character for a user variable name"},
		{`{"from": "c", "let": {"a": 1}, "pipeline": [{"$match": {"$expr": "$$b"}}], "as": "x"}`, document.Code(17276), "Use of undefined variable: b"},
		{`{"from": "c", "let": {"a": "$$b"}, "pipeline": [], "as": "x"}`, document.Code(17276), "Use of undefined variable: b"},
		{`{"from": "c", "pipeline": [{"$geoNear": {}}], "as": "x"}`, document.Code(16605), "'near' option"},
		{`{"from": "c", "pipeline": [{"$limit": 1}, {"$geoNear": {"near": [0, 0]}}], "as": "x"}`, document.Code(40602), "first stage"},
		{`{"from": "c", "localField": "$a", "foreignField": "b", "as": "x"}`, document.Code(16410), "FieldPath field names may not start with '$'"},
		{`{"from": "c", "localField": "a..b", "foreignField": "b", "as": "x"}`, document.Code(15998), "FieldPath field names may not be empty strings."},
		{`{"from": "c", "localField": "a", "foreignField": "b", "as": ""}`, document.Code(40352), "FieldPath cannot be constructed with empty string"},
	}
	for _, c := range cases {
		wantCode(t, db, "test", `{"aggregate": "c", "pipeline": [{"$lookup": `+c.stage+`}], "cursor": {}}`, c.code, c.msg)
	}
	// Under a collation the stage runs (docs/collation.md): a bad
	// stage is still refused with its code.
	mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$lookup": {"from": "c", "localField": "a", "foreignField": "b", "as": "x"}}], "cursor": {}, "collation": {"locale": "en", "strength": 2}}`)
	wantCode(t, db, "test", `{"aggregate": "c", "pipeline": [{"$lookup": {"from": "c", "localField": "$a", "foreignField": "b", "as": "x"}}], "cursor": {}, "collation": {"locale": "en", "strength": 2}}`, document.Code(16410), "FieldPath")
	r := mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$lookup": {"from": "c", "localField": "_id", "foreignField": "_id", "as": "x"}}], "cursor": {}}`)
	_, batch := checkCursorShape(t, "self", field(r, "cursor"), "firstBatch")
	sameValue(t, "self join", batch, `[{"_id": 1, "x": [{"_id": 1}]}]`)
}

// TestLookupPipeline checks $lookup's pipeline forms: uncorrelated, with
// let variables used in the sub-pipeline's $match ($expr) and
// expressions, the concise form (localField/foreignField and a
// pipeline), and a $lookup nested in the sub-pipeline that uses the
// outer let.
func TestLookupPipeline(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "authors", "documents": [{"_id": 1, "name": "ann", "min": 2}, {"_id": 2, "name": "bob", "min": 9}]}`)
	mustRun(t, db, "test", `{"insert": "books", "documents": [{"_id": "b1", "author": 1, "pages": 1}, {"_id": "b2", "author": 1, "pages": 5}, {"_id": "b3", "author": 2, "pages": 7}]}`)
	mustRun(t, db, "test", `{"insert": "notes", "documents": [{"_id": "n1", "book": "b2", "by": 1}, {"_id": "n2", "book": "b2", "by": 2}]}`)
	cases := []struct{ lookup, want string }{
		// Uncorrelated: the same results for every document.
		{`{"from": "books", "pipeline": [{"$match": {"pages": {"$gt": 4}}}, {"$project": {"_id": 1}}], "as": "x"}`,
			`[{"_id": 1, "x": [{"_id": "b2"}, {"_id": "b3"}]}, {"_id": 2, "x": [{"_id": "b2"}, {"_id": "b3"}]}]`},
		// let in $expr and in an expression of a later stage.
		{`{"from": "books", "let": {"aid": "$_id", "m": "$min"}, "pipeline": [{"$match": {"$expr": {"$and": [{"$eq": ["$author", "$$aid"]}, {"$gte": ["$pages", "$$m"]}]}}}, {"$project": {"_id": 1, "who": "$$aid"}}], "as": "x"}`,
			`[{"_id": 1, "x": [{"_id": "b2", "who": 1}]}, {"_id": 2, "x": []}]`},
		// The concise form: the pipeline runs over the equal documents.
		{`{"from": "books", "localField": "_id", "foreignField": "author", "let": {"n": "$name"}, "pipeline": [{"$sort": {"pages": -1}}, {"$project": {"_id": 1, "n": "$$n"}}], "as": "x"}`,
			`[{"_id": 1, "x": [{"_id": "b2", "n": "ann"}, {"_id": "b1", "n": "ann"}]}, {"_id": 2, "x": [{"_id": "b3", "n": "bob"}]}]`},
		// Nested: the inner $lookup sees the outer let.
		{`{"from": "books", "let": {"aid": "$_id"}, "pipeline": [{"$match": {"$expr": {"$eq": ["$author", "$$aid"]}}}, {"$lookup": {"from": "notes", "let": {"bid": "$_id"}, "pipeline": [{"$match": {"$expr": {"$and": [{"$eq": ["$book", "$$bid"]}, {"$eq": ["$by", "$$aid"]}]}}}, {"$project": {"_id": 1}}], "as": "notes"}}, {"$project": {"_id": 1, "notes": 1}}], "as": "x"}`,
			`[{"_id": 1, "x": [{"_id": "b1", "notes": []}, {"_id": "b2", "notes": [{"_id": "n1"}]}]}, {"_id": 2, "x": [{"_id": "b3", "notes": []}]}]`},
	}
	for _, c := range cases {
		r := mustRun(t, db, "test", `{"aggregate": "authors", "pipeline": [{"$lookup": `+c.lookup+`}, {"$project": {"x": 1}}, {"$sort": {"_id": 1}}], "cursor": {}}`)
		_, batch := checkCursorShape(t, "lookup", field(r, "cursor"), "firstBatch")
		sameValue(t, c.lookup, batch, c.want)
	}
}

// TestFacetCommand runs $facet through the aggregate command: the
// pagination pattern (a total beside a page), with a $lookup in one of
// its pipelines.
func TestFacetCommand(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "users", "documents": [{"_id": 1, "team": "x"}, {"_id": 2, "team": "y"}, {"_id": 3, "team": "x"}]}`)
	mustRun(t, db, "test", `{"insert": "teams", "documents": [{"_id": "x", "name": "Ex"}, {"_id": "y", "name": "Why"}]}`)
	r := mustRun(t, db, "test", `{"aggregate": "users", "pipeline": [{"$sort": {"_id": -1}}, {"$facet": {
		"total": [{"$count": "n"}],
		"page": [{"$limit": 2}, {"$lookup": {"from": "teams", "localField": "team", "foreignField": "_id", "as": "t"}}, {"$project": {"team": {"$first": "$t.name"}}}]}}], "cursor": {}}`)
	_, batch := checkCursorShape(t, "facet", field(r, "cursor"), "firstBatch")
	sameValue(t, "facet", batch, `[{"total": [{"n": 3}], "page": [{"_id": 3, "team": "Ex"}, {"_id": 2, "team": "Why"}]}]`)
}

// TestUnionWith checks $unionWith: the input's documents, then the
// other collection's (through its pipeline), later stages seeing both,
// a collection that does not exist adding nothing, and the refusals
// with mongod's codes.
func TestUnionWith(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "recent", "documents": [{"_id": 1, "v": 10}, {"_id": 2, "v": 20}]}`)
	mustRun(t, db, "test", `{"insert": "archive", "documents": [{"_id": 3, "v": 30}, {"_id": 4, "v": 40}, {"_id": 5, "v": 50}]}`)
	cases := []struct{ pipeline, want string }{
		{`[{"$unionWith": "archive"}, {"$project": {"v": 1}}]`, `[{"_id": 1, "v": 10}, {"_id": 2, "v": 20}, {"_id": 3, "v": 30}, {"_id": 4, "v": 40}, {"_id": 5, "v": 50}]`},
		{`[{"$match": {"v": {"$gt": 10}}}, {"$unionWith": {"coll": "archive", "pipeline": [{"$match": {"v": {"$lt": 50}}}, {"$set": {"old": true}}]}}]`,
			`[{"_id": 2, "v": 20}, {"_id": 3, "v": 30, "old": true}, {"_id": 4, "v": 40, "old": true}]`},
		{`[{"$unionWith": "archive"}, {"$group": {"_id": null, "sum": {"$sum": "$v"}}}]`, `[{"_id": null, "sum": 150}]`},
		{`[{"$unionWith": "nosuch"}, {"$count": "n"}]`, `[{"n": 2}]`},
		{`[{"$unionWith": "archive"}, {"$sort": {"v": -1}}, {"$limit": 1}]`, `[{"_id": 5, "v": 50}]`},
	}
	for _, c := range cases {
		r := mustRun(t, db, "test", `{"aggregate": "recent", "pipeline": `+c.pipeline+`, "cursor": {}}`)
		_, batch := checkCursorShape(t, "union", field(r, "cursor"), "firstBatch")
		sameValue(t, c.pipeline, batch, c.want)
	}
	refusals := []struct {
		stage string
		code  document.Code
		msg   string
	}{
		{`5`, document.CodeFailedToParse, "the $unionWith stage specification must be an object or string, but found int"},
		{`{"coll": 5}`, document.CodeTypeMismatch, "BSON field '$unionWith.coll' is the wrong type 'int', expected type 'string'"},
		{`{"coll": "a", "pipeline": 5}`, document.CodeTypeMismatch, "BSON field '$unionWith.pipeline' is the wrong type 'int', expected type 'array'"},
		{`{"coll": "a", "pipeline": [5]}`, document.CodeTypeMismatch, "BSON field '$unionWith.pipeline.0' is the wrong type 'int', expected type 'object'"},
		{`{"coll": "a", "x": 1}`, document.CodeIDLUnknownField, "BSON field '$unionWith.x' is an unknown field."},
		{`{"pipeline": []}`, document.CodeFailedToParse, "$unionWith stage without explicit collection must have a pipeline with $documents as first stage"},
	}
	for _, c := range refusals {
		wantCode(t, db, "test", `{"aggregate": "recent", "pipeline": [{"$unionWith": `+c.stage+`}], "cursor": {}}`, c.code, c.msg)
	}
}

// TestLookupPipelineEqualities checks the pipeline form's usual join,
// {$match: {$expr: {$eq: ["$field", "$$var"]}}}, against a collection
// with an index on the field: the find the stage sends for it (the
// equality, so the index serves it) returns what the $match keeps and
// more, and the results are the $expr's: 1 and 1.0 alike, not an array
// holding 1, null only for null, a missing variable for the documents
// without the field.
func TestLookupPipelineEqualities(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "f", "documents": [{"_id": 1, "k": 1}, {"_id": 2, "k": [1, 2]}, {"_id": 3},
		{"_id": 4, "k": null}, {"_id": 5, "k": 1.0}, {"_id": 6, "k": "1"}]}`)
	mustRun(t, db, "test", `{"createIndexes": "f", "indexes": [{"key": {"k": 1}, "name": "k_1"}]}`)
	mustRun(t, db, "test", `{"insert": "l", "documents": [{"_id": "one", "x": 1}, {"_id": "null", "x": null}, {"_id": "missing"}, {"_id": "arr", "x": [1, 2]}]}`)
	r := mustRun(t, db, "test", `{"aggregate": "l", "pipeline": [{"$lookup": {"from": "f", "let": {"v": "$x"},
		"pipeline": [{"$match": {"$expr": {"$eq": ["$k", "$$v"]}}}, {"$sort": {"_id": 1}}, {"$project": {"_id": 1}}], "as": "j"}},
		{"$project": {"ids": "$j._id"}}, {"$sort": {"_id": 1}}], "cursor": {}}`)
	got := document.Format(field(r, "cursor.firstBatch"))
	if got != `[ { _id: "arr", ids: [ 2 ] }, { _id: "missing", ids: [ 3 ] }, { _id: "null", ids: [ 4 ] }, { _id: "one", ids: [ 1, 5 ] } ]` {
		t.Fatalf("joins: %s", got)
	}
}
