package engine

import (
	"errors"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// TestCreateIndexesEquivalentSpecs: createIndexes compares a requested
// index with the existing ones as mongod's
// IndexDescriptor::compareIndexOptions does: a partial filter by what
// it means once parsed ({a: {$gt: 1}} and {a: {$gt: 1.0}}, an $and in
// any order, a document's fields or an $and of them), a wildcard
// projection once normalised ({a: 1}, {a: true}, {"a.b": 1} and
// {a: {b: 1}}). The same index again is no change; under another name
// it is 85; another index under a taken name is 86; the same key and
// telling options with other options (a TTL, hidden) is 85, whatever
// the name.
func TestCreateIndexesEquivalentSpecs(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	create := func(spec string) string { return `{"createIndexes": "c", "indexes": [` + spec + `]}` }
	for _, spec := range []string{
		`{"key": {"x": 1}, "name": "p1", "partialFilterExpression": {"a": {"$gt": 1}}}`,
		`{"key": {"y": 1}, "name": "q1", "partialFilterExpression": {"$and": [{"a": 1}, {"b": {"$in": [1, 2]}}]}}`,
		`{"key": {"$**": 1}, "name": "w1", "wildcardProjection": {"a": 1, "c.d": 1}}`,
		`{"key": {"t": 1}, "name": "t1", "expireAfterSeconds": 60}`,
		`{"key": {"h": 1}, "name": "h1"}`,
	} {
		mustRun(t, db, "test", create(spec))
	}
	// The same index, spelled otherwise, under its name: nothing to do.
	for _, spec := range []string{
		`{"key": {"x": 1}, "name": "p1", "partialFilterExpression": {"a": {"$gt": 1.0}}}`,
		`{"key": {"x": 1.0}, "name": "p1", "partialFilterExpression": {"a": {"$gt": {"$numberLong": "1"}}}}`,
		`{"key": {"y": 1}, "name": "q1", "partialFilterExpression": {"$and": [{"b": {"$in": [2, 1]}}, {"a": 1}]}}`,
		`{"key": {"y": 1}, "name": "q1", "partialFilterExpression": {"b": {"$in": [1, 2]}, "a": 1}}`,
		`{"key": {"$**": 1}, "name": "w1", "wildcardProjection": {"a": true, "c.d": 1.0}}`,
		`{"key": {"$**": 1}, "name": "w1", "wildcardProjection": {"c": {"d": 1}, "a": 1}}`,
		`{"key": {"t": 1}, "name": "t1", "expireAfterSeconds": 60.0, "background": true}`,
	} {
		r := mustRun(t, db, "test", create(spec))
		if got := replyKeys(r); got != `numIndexesBefore=6 numIndexesAfter=6 note=string("all indexes already exist") ok=1` {
			t.Errorf("%s: %s", spec, got)
		}
	}
	for _, c := range []struct {
		spec string
		code document.Code
		msg  string
	}{
		// Under another name.
		{`{"key": {"x": 1}, "name": "p2", "partialFilterExpression": {"a": {"$gt": 1.0}}}`, document.CodeIndexOptionsConflict, "Index already exists with a different name: p1"},
		{`{"key": {"y": 1}, "name": "q2", "partialFilterExpression": {"b": {"$in": [2, 1]}, "a": 1}}`, document.CodeIndexOptionsConflict, "Index already exists with a different name: q1"},
		{`{"key": {"$**": 1}, "name": "w2", "wildcardProjection": {"a": true, "c": {"d": true}}}`, document.CodeIndexOptionsConflict, "Index already exists with a different name: w1"},
		{`{"key": {"y": 1}, "name": "q3", "hidden": true, "partialFilterExpression": {"a": 1, "b": {"$in": [1, 2]}}}`, document.CodeIndexOptionsConflict,
			`An equivalent index already exists with a different name and options. Requested index: { key: { y: 1 }, name: "q3", hidden: true, partialFilterExpression: { a: 1, b: { $in: [ 1, 2 ] } } }, existing index: { v: 2, key: { y: 1 }, name: "q1", partialFilterExpression: { $and: [ { a: 1 }, { b: { $in: [ 1, 2 ] } } ] } }`},
		{`{"key": {"h": 1}, "name": "h2", "hidden": true}`, document.CodeIndexOptionsConflict, "An equivalent index already exists with a different name and options."},
		// Under its name with other options.
		{`{"key": {"t": 1}, "name": "t1", "expireAfterSeconds": 61}`, document.CodeIndexOptionsConflict,
			`An equivalent index already exists with the same name but different options. Requested index: { key: { t: 1 }, name: "t1", expireAfterSeconds: 61 }, existing index: { v: 2, key: { t: 1 }, name: "t1", expireAfterSeconds: 60 }`},
		{`{"key": {"h": 1}, "name": "h1", "hidden": true}`, document.CodeIndexOptionsConflict, "An equivalent index already exists with the same name but different options."},
		// Another index under a taken name.
		{`{"key": {"x": 1}, "name": "p1", "partialFilterExpression": {"a": {"$gte": 1}}}`, document.CodeIndexKeySpecsConflict,
			`An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: { key: { x: 1 }, name: "p1", partialFilterExpression: { a: { $gte: 1 } } }, existing index: { v: 2, key: { x: 1 }, name: "p1", partialFilterExpression: { a: { $gt: 1 } } }`},
		{`{"key": {"x": 1}, "name": "p1"}`, document.CodeIndexKeySpecsConflict, "An existing index has the same name as the requested index."},
		{`{"key": {"y": 1}, "name": "q1", "partialFilterExpression": {"a": 1}}`, document.CodeIndexKeySpecsConflict, "An existing index has the same name as the requested index."},
		{`{"key": {"$**": 1}, "name": "w1", "wildcardProjection": {"a": 1}}`, document.CodeIndexKeySpecsConflict, "An existing index has the same name as the requested index."},
		{`{"key": {"$**": 1}, "name": "w1"}`, document.CodeIndexKeySpecsConflict, "An existing index has the same name as the requested index."},
		{`{"key": {"h": -1}, "name": "h1"}`, document.CodeIndexKeySpecsConflict, "An existing index has the same name as the requested index."},
	} {
		wantCode(t, db, "test", create(c.spec), c.code, c.msg)
	}
	// Another partial filter or projection under another name is another
	// index.
	for _, spec := range []string{
		`{"key": {"x": 1}, "name": "p3", "partialFilterExpression": {"a": {"$gte": 1}}}`,
		`{"key": {"$**": 1}, "name": "w3", "wildcardProjection": {"a": 1}}`,
	} {
		mustRun(t, db, "test", create(spec))
	}
	if got := indexNames(t, db, "test", "c"); got != "_id_,p1,q1,w1,t1,h1,p3,w3" {
		t.Errorf("indexes: %s", got)
	}
}

// TestCreateIndexesSpecErrorWording: the errors mongod's
// validateIndexSpec and its catalog's checks of a spec find read "Error
// in specification <spec> :: caused by :: <reason>", with the reason's
// own code (a partial filter's parse error keeps the parser's); those it
// finds elsewhere (an _id index's spec, the names _id_ and *, a TTL
// option, a hashed unique index) are not wrapped.
func TestCreateIndexesSpecErrorWording(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, c := range []struct {
		spec string
		code document.Code
		msg  string // the whole message
	}{
		{`{"key": {"a": 1}, "name": "a", "bogus": 1}`, document.CodeInvalidIndexSpecificationOption,
			`Error in specification { key: { a: 1 }, name: "a", bogus: 1 } :: caused by :: The field 'bogus' is not valid for an index specification. Specification: { key: { a: 1 }, name: "a", bogus: 1 }`},
		{`{"key": 1, "name": "a"}`, document.CodeTypeMismatch,
			`Error in specification { key: 1, name: "a" } :: caused by :: The field 'key' must be an object, but got int`},
		{`{"key": {"a": 1}, "name": "a", "partialFilterExpression": {"a": {"$asdasd": 3}}}`, document.CodeBadValue,
			`Error in specification { key: { a: 1 }, name: "a", partialFilterExpression: { a: { $asdasd: 3 } } } :: caused by :: unknown operator: $asdasd`},
		{`{"key": {"a": 1}, "name": "a", "partialFilterExpression": 5}`, document.CodeTypeMismatch,
			`Error in specification { key: { a: 1 }, name: "a", partialFilterExpression: 5 } :: caused by :: The field 'partialFilterExpression' must be an object, but got int`},
		{`{"key": {"a": 1}, "name": "a", "sparse": true, "partialFilterExpression": {"a": 1}}`, document.CodeCannotCreateIndex,
			`Error in specification { key: { a: 1 }, name: "a", sparse: true, partialFilterExpression: { a: 1 } } :: caused by :: cannot mix "partialFilterExpression" and "sparse" options`},
		{`{"key": {"a": "bogus"}, "name": "a"}`, document.CodeCannotCreateIndex,
			`Error in specification { key: { a: "bogus" }, name: "a" } :: caused by :: Unknown index plugin 'bogus'`},
		{`{"key": {"$**": 1}, "name": "w", "unique": true}`, document.CodeCannotCreateIndex,
			`Error in specification { key: { $**: 1 }, name: "w", unique: true } :: caused by :: Index type 'wildcard' does not support the unique option`},
		{`{"key": {"$**": 1}, "name": "w", "expireAfterSeconds": 5}`, document.CodeCannotCreateIndex,
			`Error in specification { key: { $**: 1 }, name: "w", expireAfterSeconds: 5 } :: caused by :: cannot make a TTL index :: caused by :: Index type 'wildcard' does not support the 'expireAfterSeconds' option`},
		{`{"key": {"a": 1}, "name": "a", "unique": true, "prepareUnique": true}`, document.CodeCannotCreateIndex,
			`Error in specification { key: { a: 1 }, name: "a", unique: true, prepareUnique: true } :: caused by :: Invalid index specification { key: { a: 1 }, name: "a", unique: true, prepareUnique: true }; cannot create an index with the 'unique' option and the 'prepareUnique' option`},
		{`{"key": {"a": 1}, "name": "a", "partialFilterExpression": {"a": {"$ne": 1}}}`, document.CodeCannotCreateIndex,
			"Error in specification { key: { a: 1 }, name: \"a\", partialFilterExpression: { a: { $ne: 1 } } } :: caused by :: Expression not supported in partial index: $not\n    a $eq 1\n"},
		// Not wrapped.
		{`{"key": {"a": 1}, "name": "_id_"}`, document.CodeBadValue,
			`The index name '_id_' is reserved for the _id index, which must have key pattern {_id: 1}, found key: { a: 1 }`},
		{`{"key": {"a": 1}, "name": "*"}`, document.CodeBadValue, `The index name '*' is not valid.`},
		{`{"key": {"t": 1}, "name": "t", "expireAfterSeconds": "x"}`, document.CodeCannotCreateIndex,
			`. Index spec: { key: { t: 1 }, name: "t", expireAfterSeconds: "x" } :: caused by :: TTL index 'expireAfterSeconds' option must be numeric, but received a type of 'string`},
		{`{"key": {"t": 1, "u": 1}, "name": "t", "expireAfterSeconds": 5}`, document.CodeCannotCreateIndex,
			`TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: { key: { t: 1, u: 1 }, name: "t", expireAfterSeconds: 5 }`},
		{`{"key": {"_id": 1}, "name": "_id_", "unique": true}`, document.CodeInvalidIndexSpecificationOption,
			`The field 'unique' is not valid for an _id index specification. Specification: { key: { _id: 1 }, name: "_id_", unique: true }`},
		{`{"key": {"h": "hashed"}, "name": "h", "unique": true}`, codeHashedNotUnique,
			`Currently hashed indexes cannot guarantee uniqueness. Use a regular index.`},
	} {
		_, err := run(t, db, "test", `{"createIndexes": "c", "indexes": [`+c.spec+`]}`)
		var e *document.Error
		if !errors.As(err, &e) || e.Code != c.code || e.Message != c.msg {
			t.Errorf("%s: %v\nwant %d %q", c.spec, err, c.code, c.msg)
		}
	}
}
