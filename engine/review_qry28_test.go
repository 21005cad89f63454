package engine

import (
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// Session 28: query operators, projections and sort read against
// mongod 7.0. Each case is ported from a jstest of mongodb/mongo
// (jstests/core/query/...) or from the matcher's and projection's C++
// (src/mongo/db/matcher/, src/mongo/db/query/projection/); the comment
// names it.

// qry28Find runs a find on db.test.c and returns its documents, one
// Extended JSON value each, joined by " ".
func qry28Find(t *testing.T, db *DB, cmd string) string {
	t.Helper()
	r := mustRun(t, db, "test", cmd)
	var out []string
	for _, d := range firstBatch(t, r) {
		out = append(out, fmtValue(d))
	}
	return strings.Join(out, " ")
}

// qry28IDs runs find {filter} sorted by _id on db.test.c and returns
// the _ids it gives, comma-separated.
func qry28IDs(t *testing.T, db *DB, filter string) string {
	t.Helper()
	r := mustRun(t, db, "test", `{"find": "c", "filter": `+filter+`, "sort": {"_id": 1}}`)
	var ids []string
	for _, d := range firstBatch(t, r) {
		ids = append(ids, fmtValue(d[0].Value))
	}
	return strings.Join(ids, ",")
}

// qry28Case is a filter and the _ids mongod returns for it.
type qry28Case struct{ filter, want string }

func qry28Run(t *testing.T, db *DB, cases []qry28Case) {
	t.Helper()
	for _, c := range cases {
		if got := qry28IDs(t, db, c.filter); got != c.want {
			t.Errorf("find %s: _ids %q, want %q", c.filter, got, c.want)
		}
	}
}

// qry28Insert inserts docs (an Extended JSON array) into db.test.c.
func qry28Insert(t *testing.T, db *DB, docs string) {
	t.Helper()
	mustRun(t, db, "test", `{"insert": "c", "documents": `+docs+`}`)
}

// In 7.0 a dotted path that meets an array only looks inside its
// document elements: an empty array, an array of scalars or of arrays
// yields nothing, so {"a.b": null} does not match it and {"a.b": {$ne:
// null}} does (SERVER-36681 changed this in 9.0). The legacy semantics
// are spelled out by jstests/noPassthrough/query/nin_null_disable_fix.js
// and ne_null_disable_fix.js (internalQueryLegacyDottedPathNullSemantics:
// true, the 7.0 behaviour).
func TestReviewQry28DottedNullThroughArrays(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 0, "a": [1, {"c": 1}]}, {"_id": 1, "a": 1}, {"_id": 2, "a": [1]},
		{"_id": 3, "a": [[1]]}, {"_id": 4, "a": [[[1]]]}, {"_id": 5, "a": []}, {"_id": 6, "a": [[]]},
		{"_id": 7, "a": [[[]]]}, {"_id": 8, "a": [{}]}, {"_id": 9}, {"_id": 10, "a": {}},
		{"_id": 11, "a": null}, {"_id": 12, "a": [null]}, {"_id": 13, "a": [[null]]},
		{"_id": 14, "a": [[], {"b": 3}]}, {"_id": 15, "a": [[2], {"b": 3}]}, {"_id": 16, "a": [[{"b": 3}], 4]},
		{"_id": 17, "a": [[[{"c": 3}]]]}, {"_id": 18, "a": [[[{"b": null}]]]}, {"_id": 19, "a": [[[{}]]]},
		{"_id": 20, "a": [[[{"b": 3}]]]}, {"_id": 21, "a": [[{"b": 2}], [{"b": 3}]]},
		{"_id": 22, "a": [[{"b": 2}], {"b": 3}]}, {"_id": 23, "a": [{"b": 2}, [{"b": 3}]]}]`)
	qry28Run(t, db, []qry28Case{
		{`{"b": {"$nin": [null]}}`, ``},
		{`{"a.b": {"$in": [null]}}`, `0,1,8,9,10,11`},
		{`{"a.b": {"$nin": [null]}}`, `2,3,4,5,6,7,12,13,14,15,16,17,18,19,20,21,22,23`},
		{`{"a.b": null}`, `0,1,8,9,10,11`},
		{`{"a.b": {"$eq": null}}`, `0,1,8,9,10,11`},
		{`{"a.b": {"$ne": null}}`, `2,3,4,5,6,7,12,13,14,15,16,17,18,19,20,21,22,23`},
		{`{"a.b": {"$gte": null}}`, `0,1,8,9,10,11`},
		{`{"a.b": {"$exists": true}}`, `14,15,22,23`},
	})
}

// Before 8.0 a comparison with null matches undefined as it matches
// null: $eq, $in, $gte and $lte with a null operand, and $ne/$nin
// exclude it ("Migrate Undefined Data and Queries", MongoDB 8.0
// compatibility notes; the 7.0 matcher treats the two canonical types
// as equal for EQ, LTE and GTE).
func TestReviewQry28NullMatchesUndefinedIn70(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": null}, {"_id": 2}, {"_id": 3, "a": {"$undefined": true}},
		{"_id": 4, "a": ["x", {"$undefined": true}]}, {"_id": 5, "a": [null]}, {"_id": 6, "a": []},
		{"_id": 7, "a": 4}, {"_id": 8, "a": {"b": {"$undefined": true}}}]`)
	qry28Run(t, db, []qry28Case{
		{`{"a": null}`, `1,2,3,4,5`},
		{`{"a": {"$ne": null}}`, `6,7,8`},
		{`{"a": {"$in": [null, 4]}}`, `1,2,3,4,5,7`},
		{`{"a": {"$nin": [null]}}`, `6,7,8`},
		{`{"a": {"$gte": null}}`, `1,2,3,4,5`},
		{`{"a": {"$lte": null}}`, `1,2,3,4,5`},
		{`{"a": {"$gt": null}}`, ``},
		{`{"a.b": null}`, `1,2,3,7,8`},
		{`{"a": {"$type": "undefined"}}`, `3,4`},
		{`{"a": {"$exists": false}}`, `2`},
	})
}

// The same answers through an index on the path: the index bounds of
// a null equality cover undefined, null and empty-array keys, and the
// count and find of every plan agree with the collection scan.
func TestReviewQry28NullThroughIndexes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": null}, {"_id": 2}, {"_id": 3, "a": {"$undefined": true}},
		{"_id": 4, "a": [1]}, {"_id": 5, "a": []}, {"_id": 6, "a": [{"b": 1}, {}]}, {"_id": 7, "a": {"b": null}},
		{"_id": 8, "a": [[]]}]`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a"}, {"key": {"a.b": 1}, "name": "ab"}]}`)
	for _, c := range []struct{ filter, hint, want string }{
		{`{"a": null}`, `"a"`, `1,2,3`},
		{`{"a": null}`, `{"$natural": 1}`, `1,2,3`},
		{`{"a.b": null}`, `"ab"`, `1,2,3,6,7`},
		{`{"a.b": null}`, `{"$natural": 1}`, `1,2,3,6,7`},
		{`{"a.b": {"$ne": null}}`, `"ab"`, `4,5,8`},
		{`{"a.b": {"$in": [null, 1]}}`, `"ab"`, `1,2,3,6,7`},
	} {
		r := mustRun(t, db, "test", `{"find": "c", "filter": `+c.filter+`, "sort": {"_id": 1}, "hint": `+c.hint+`}`)
		var ids []string
		for _, d := range firstBatch(t, r) {
			ids = append(ids, fmtValue(d[0].Value))
		}
		if got := strings.Join(ids, ","); got != c.want {
			t.Errorf("find %s hint %s: _ids %q, want %q", c.filter, c.hint, got, c.want)
		}
		r = mustRun(t, db, "test", `{"count": "c", "query": `+c.filter+`, "hint": `+c.hint+`}`)
		if n, want := field(r, "n"), int32(strings.Count(c.want, ",")+1); n != want {
			t.Errorf("count %s hint %s: n = %v, want %d", c.filter, c.hint, n, want)
		}
	}
}

// $elemMatch's value and object forms, nested, and on what is not an
// array (jstests/core/query/elemmatch/elemmatch_object.js,
// elemmatch_value.js, arrayfind*.js; null_query_semantics.js's
// testElemMatchQueriesWithNoArrays).
func TestReviewQry28ElemMatch(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": [0, 5]}, {"_id": 2, "a": [2]}, {"_id": 3, "a": 2},
		{"_id": 4, "a": [{"b": 1, "c": 1}, {"b": 2, "c": 2}]}, {"_id": 5, "a": [{"b": 1, "c": 2}]},
		{"_id": 6, "a": [[1, 2], [3]]}, {"_id": 7, "a": [{}, null]}, {"_id": 8, "a": {"b": 1, "c": 2}},
		{"_id": 9, "a": [{"b": [{"c": 1}, {"c": 2}]}]}, {"_id": 10, "a": [[{"b": 1, "c": 2}]]}]`)
	qry28Run(t, db, []qry28Case{
		{`{"a": {"$elemMatch": {"$gte": 1, "$lt": 3}}}`, `2`},
		{`{"a": {"$gte": 1, "$lt": 3}}`, `1,2,3`},
		{`{"a": {"$elemMatch": {"b": 1, "c": 2}}}`, `5`},
		{`{"a.b": 1, "a.c": 2}`, `4,5,8`},
		{`{"a": {"$elemMatch": {"$elemMatch": {"$eq": 3}}}}`, `6`},
		{`{"a": {"$elemMatch": {"$elemMatch": {"b": 1}}}}`, `10`},
		{`{"a": {"$elemMatch": {"0": 1}}}`, `6`},
		{`{"a": {"$elemMatch": {}}}`, `4,5,6,7,9,10`},
		{`{"a": {"$elemMatch": {"$eq": null}}}`, `7`},
		{`{"a": {"$elemMatch": {"b": {"$exists": false}}}}`, `6,7,10`},
		{`{"a": {"$elemMatch": {"$or": [{"b": 2}, {"c": 2}]}}}`, `4,5`},
		{`{"a": {"$elemMatch": {"b": {"$elemMatch": {"c": 2}}}}}`, `9`},
		{`{"a.b": {"$elemMatch": {"c": 1}}}`, `9`},
		{`{"a": {"$elemMatch": {"$not": {"$gte": 1}}}}`, `1,4,5,6,7,9,10`},
		{`{"a": {"$elemMatch": {"$type": "array"}}}`, `6,10`},
		{`{"a": {"$elemMatch": {"$in": [5, 7]}}}`, `1`},
	})
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$elemMatch": 1}}}`, document.CodeBadValue, "$elemMatch needs an Object")
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$elemMatch": {"$foo": 1}}}}`, document.CodeBadValue, "unknown operator: $foo")
}

// $all: equality per element, with regexes, nested arrays and
// $elemMatch (jstests/core/query/all/all*.js).
func TestReviewQry28All(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": [1, 2, 3]}, {"_id": 2, "a": [1]}, {"_id": 3, "a": 1},
		{"_id": 4, "a": [[1, 2]]}, {"_id": 5, "a": [{"b": 1, "c": 1}, {"b": 2, "c": 2}]},
		{"_id": 6, "a": ["abc", "xyz"]}, {"_id": 7, "a": [{"b": 1, "c": 2}]}]`)
	qry28Run(t, db, []qry28Case{
		{`{"a": {"$all": [1, 2]}}`, `1`},
		{`{"a": {"$all": [1]}}`, `1,2,3`},
		{`{"a": {"$all": [1, 1]}}`, `1,2,3`},
		{`{"a": {"$all": []}}`, ``},
		{`{"a": {"$all": [[1, 2]]}}`, `4`},
		{`{"a": {"$all": [{"$regularExpression": {"pattern": "^a", "options": ""}}, "xyz"]}}`, `6`},
		{`{"a": {"$all": [{"$elemMatch": {"b": 1, "c": 1}}, {"$elemMatch": {"b": 2}}]}}`, `5`},
		{`{"a": {"$all": [{"$elemMatch": {"b": 1, "c": 2}}]}}`, `7`},
		{`{"a": {"$all": [{"$elemMatch": {"$gt": 2}}]}}`, `1`},
		{`{"a": {"$all": [{"b": 1, "c": 2}]}}`, `7`},
		{`{"a": {"$not": {"$all": [1, 2]}}}`, `2,3,4,5,6,7`},
	})
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$all": 1}}}`, document.CodeBadValue, "$all needs an array")
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$all": [{"$elemMatch": {"b": 1}}, 1]}}}`, document.CodeBadValue, "$all/$elemMatch has to be consistent")
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$all": [1, {"$elemMatch": {"b": 1}}]}}}`, document.CodeBadValue, "no $ expressions in $all")
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$all": [{"$gt": 1}]}}}`, document.CodeBadValue, "no $ expressions in $all")
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$all": [{"$regex": "^a"}, "xyz"]}}}`, document.CodeBadValue, "no $ expressions in $all")
}

// $size counts the array itself, never its nested arrays; a number that
// is negative or not whole is refused (jstests/core/query/size/size*.js:
// -1, NumberLong(-10000), "str", 3.2 and 0.1 fail).
func TestReviewQry28Size(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": [{"b": [1, 2, 3]}, {"b": 1}]}, {"_id": 2, "a": [1, [2], [3]]},
		{"_id": 3, "a": [1, [2]]}, {"_id": 4, "a": [[1, [1]]]}, {"_id": 5, "a": [[[1]]]}, {"_id": 6, "a": 1},
		{"_id": 7, "a": {}}, {"_id": 8, "a": []}]`)
	qry28Run(t, db, []qry28Case{
		{`{"a": {"$size": 3}}`, `2`},
		{`{"a": {"$size": 2}}`, `1,3`},
		{`{"a": {"$size": 1}}`, `4,5`},
		{`{"a": {"$size": {"$numberLong": "0"}}}`, `8`},
		{`{"a": {"$size": 2.0}}`, `1,3`},
		{`{"a.b": {"$size": 3}}`, `1`},
		{`{"a": {"$not": {"$size": 1}}}`, `1,2,3,6,7,8`},
	})
	for _, bad := range []string{`-1`, `{"$numberLong": "-10000"}`, `"str"`, `3.2`, `0.1`, `{"$numberLong": "-9223372036854775808"}`, `null`} {
		_, err := run(t, db, "test", `{"count": "c", "query": {"a": {"$size": `+bad+`}}}`)
		checkCode(t, "$size "+bad, err, document.CodeBadValue, "")
	}
}

// $type: aliases, numbers, "number", arrays of types, and what an
// array field matches (jstests/core/query/type/type*.js; the parser's
// codes in matcher_type_set.cpp: 14 for an operand that is neither a
// number nor a string, 2 for an unknown alias or code, 9 for an empty
// list).
func TestReviewQry28Type(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": 1}, {"_id": 2, "a": {"$numberLong": "1"}}, {"_id": 3, "a": 1.5},
		{"_id": 4, "a": {"$numberDecimal": "1"}}, {"_id": 5, "a": "s"}, {"_id": 6, "a": []},
		{"_id": 7, "a": [[1]]}, {"_id": 8, "a": ["s", 2]}, {"_id": 9, "a": null}, {"_id": 10},
		{"_id": 11, "a": {"b": 1}}, {"_id": 12, "a": [{"b": "x"}]}, {"_id": 13, "a": {"$minKey": 1}}]`)
	qry28Run(t, db, []qry28Case{
		{`{"a": {"$type": "number"}}`, `1,2,3,4,8`},
		{`{"a": {"$type": "int"}}`, `1,8`},
		{`{"a": {"$type": 16}}`, `1,8`},
		{`{"a": {"$type": 16.0}}`, `1,8`},
		{`{"a": {"$type": {"$numberLong": "18"}}}`, `2`},
		{`{"a": {"$type": "double"}}`, `3`},
		{`{"a": {"$type": "decimal"}}`, `4`},
		{`{"a": {"$type": "string"}}`, `5,8`},
		{`{"a": {"$type": "array"}}`, `6,7,8,12`},
		{`{"a": {"$type": 4}}`, `6,7,8,12`},
		{`{"a": {"$type": "null"}}`, `9`},
		{`{"a": {"$type": "object"}}`, `11,12`},
		{`{"a": {"$type": ["string", "null"]}}`, `5,8,9`},
		{`{"a": {"$type": ["int", 2]}}`, `1,5,8`},
		{`{"a": {"$type": "minKey"}}`, `13`},
		{`{"a": {"$type": -1}}`, `13`},
		{`{"a.b": {"$type": "string"}}`, `12`},
		{`{"a": {"$not": {"$type": "number"}}}`, `5,6,7,9,10,11,12,13`},
	})
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$type": "foo"}}}`, document.CodeBadValue, "Unknown type name alias: foo")
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$type": 100}}}`, document.CodeBadValue, "Invalid numerical type code: 100")
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$type": 0}}}`, document.CodeBadValue, "Invalid numerical type code: 0")
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$type": 1.5}}}`, document.CodeBadValue, "Invalid numerical type code: 1.5")
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$type": {}}}}`, document.CodeTypeMismatch, "type must be represented as a number or a string")
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$type": [true]}}}`, document.CodeTypeMismatch, "type must be represented as a number or a string")
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$type": []}}}`, document.CodeFailedToParse, "a must match at least one type")
}

// $mod truncates non-integral operands and values toward zero and
// refuses NaN, infinities and out-of-range operands with the reason
// BSONElement::tryCoerce gives (expression_parser.cpp parseMod;
// jstests/core/query/mod/mod_special_values.js, mod_overflow.js).
func TestReviewQry28Mod(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": 5}, {"_id": 2, "a": -5}, {"_id": 3, "a": 5.9}, {"_id": 4, "a": -5.9},
		{"_id": 5, "a": {"$numberDecimal": "7"}}, {"_id": 6, "a": {"$numberDouble": "NaN"}},
		{"_id": 7, "a": [3, 4]}, {"_id": 8, "a": "5"}, {"_id": 9, "a": {"$numberLong": "-9223372036854775808"}}]`)
	qry28Run(t, db, []qry28Case{
		{`{"a": {"$mod": [4, 1]}}`, `1,3`},
		{`{"a": {"$mod": [4, -1]}}`, `2,4`},
		{`{"a": {"$mod": [-4, 1]}}`, `1,3`},
		{`{"a": {"$mod": [4.9, 1.9]}}`, `1,3`},
		{`{"a": {"$mod": [{"$numberDecimal": "2"}, 1]}}`, `1,3,5,7`},
		{`{"a": {"$mod": [2, 0]}}`, `7,9`},
		{`{"a": {"$mod": [-1, 0]}}`, `1,2,3,4,5,7,9`},
		{`{"a": {"$not": {"$mod": [2, 1]}}}`, `2,4,6,8,9`},
	})
	for _, c := range []struct{ op, msg string }{
		{`5`, "malformed mod, needs to be an array"},
		{`[]`, "malformed mod, not enough elements"},
		{`[4]`, "malformed mod, not enough elements"},
		{`[4, 1, 2]`, "malformed mod, too many elements"},
		{`["a", 1]`, "malformed mod, divisor not a number"},
		{`["a"]`, "malformed mod, divisor not a number"},
		{`[4, "a"]`, "malformed mod, remainder not a number"},
		{`[0, 1]`, "divisor cannot be 0"},
		{`[0.5, 1]`, "divisor cannot be 0"},
		{`[{"$numberDouble": "NaN"}, 1]`, "malformed mod, divisor value is invalid :: caused by :: Unable to coerce NaN/Inf to integral type"},
		{`[{"$numberDouble": "Infinity"}, 1]`, "malformed mod, divisor value is invalid :: caused by :: Unable to coerce NaN/Inf to integral type"},
		{`[4, {"$numberDouble": "-Infinity"}]`, "malformed mod, remainder value is invalid :: caused by :: Unable to coerce NaN/Inf to integral type"},
		{`[1e30, 1]`, "malformed mod, divisor value is invalid :: caused by :: Out of bounds coercing to integral value"},
		{`[4, {"$numberDecimal": "1e30"}]`, "malformed mod, remainder value is invalid :: caused by :: Out of bounds coercing to integral value"},
	} {
		_, err := run(t, db, "test", `{"find": "c", "filter": {"a": {"$mod": `+c.op+`}}}`)
		checkCode(t, "$mod "+c.op, err, document.CodeBadValue, c.msg)
	}
}
