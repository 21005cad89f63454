package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
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

// qry28RunIndexed is qry28Run again with an index on a (and a.b),
// hinted: the index bounds must give the same documents.
func qry28RunIndexed(t *testing.T, db *DB, cases []qry28Case) {
	t.Helper()
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"a.b": 1}, "name": "ab_1"}]}`)
	for _, c := range cases {
		for _, hint := range []string{`"a_1"`, `"ab_1"`} {
			r := mustRun(t, db, "test", `{"find": "c", "filter": `+c.filter+`, "sort": {"_id": 1}, "hint": `+hint+`}`)
			var ids []string
			for _, d := range firstBatch(t, r) {
				ids = append(ids, fmtValue(d[0].Value))
			}
			if got := strings.Join(ids, ","); got != c.want {
				t.Errorf("find %s hint %s: _ids %q, want %q", c.filter, hint, got, c.want)
			}
		}
	}
}

// qry28RunBoth runs cases without an index, then hinted through the
// indexes on a and a.b.
func qry28RunBoth(t *testing.T, db *DB, cases []qry28Case) {
	t.Helper()
	qry28Run(t, db, cases)
	qry28RunIndexed(t, db, cases)
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
	qry28RunBoth(t, db, []qry28Case{
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
	qry28RunBoth(t, db, []qry28Case{
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
	qry28RunBoth(t, db, []qry28Case{
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
	qry28RunBoth(t, db, []qry28Case{
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
	qry28RunBoth(t, db, []qry28Case{
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
	qry28RunBoth(t, db, []qry28Case{
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
	qry28RunBoth(t, db, []qry28Case{
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

// qry28Count runs find {filter} on db.test.c and returns how many
// documents it gives.
func qry28Count(t *testing.T, db *DB, filter string) int {
	t.Helper()
	r := mustRun(t, db, "test", `{"find": "c", "filter": `+filter+`}`)
	return len(firstBatch(t, r))
}

// The bit tests on negative numbers (two's complement, sign-extended
// past bit 63), on values that are not integers, and on BinData masks;
// jstests/core/query/bittest.js's "Tests on negative numbers", "Test
// that NaNs and non-integral ints are filtered out" and BinData
// sections.
func TestReviewQry28BitTests(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"a": -0.0}, {"a": -1}, {"a": -54}, {"a": -1e18}]`)
	all := make([]string, 64)
	for i := range all {
		all[i] = fmtValue(int32(i))
	}
	allPositions := "[" + strings.Join(all, ",") + "]"
	for _, c := range []struct {
		filter string
		n      int
	}{
		{`{"a": {"$bitsAllSet": 0}}`, 4}, {`{"a": {"$bitsAllSet": 2}}`, 2}, {`{"a": {"$bitsAllSet": 127}}`, 1},
		{`{"a": {"$bitsAllSet": 74}}`, 2}, {`{"a": {"$bitsAllClear": 0}}`, 4}, {`{"a": {"$bitsAllClear": 53}}`, 3},
		{`{"a": {"$bitsAllClear": 127}}`, 2}, {`{"a": {"$bitsAnySet": 0}}`, 0}, {`{"a": {"$bitsAnySet": 2}}`, 2},
		{`{"a": {"$bitsAnySet": 127}}`, 2}, {`{"a": {"$bitsAnyClear": 0}}`, 0}, {`{"a": {"$bitsAnyClear": 53}}`, 3},
		{`{"a": {"$bitsAnyClear": 127}}`, 3},
		{`{"a": {"$bitsAllSet": []}}`, 4}, {`{"a": {"$bitsAllSet": [1]}}`, 2},
		{`{"a": {"$bitsAllSet": ` + allPositions + `}}`, 1}, {`{"a": {"$bitsAllSet": [1, 7, 6, 3, 100]}}`, 2},
		{`{"a": {"$bitsAllClear": []}}`, 4}, {`{"a": {"$bitsAllClear": [5, 4, 2, 0]}}`, 3},
		{`{"a": {"$bitsAllClear": ` + allPositions + `}}`, 1}, {`{"a": {"$bitsAnySet": []}}`, 0},
		{`{"a": {"$bitsAnySet": [1]}}`, 2}, {`{"a": {"$bitsAnySet": ` + allPositions + `}}`, 3},
		{`{"a": {"$bitsAnyClear": []}}`, 0}, {`{"a": {"$bitsAnyClear": [0, 2, 4, 5, 100]}}`, 3},
		{`{"a": {"$bitsAnyClear": ` + allPositions + `}}`, 3},
		{`{"a": {"$bitsAllSet": 74, "$bitsAllClear": 53}}`, 1},
	} {
		if n := qry28Count(t, db, c.filter); n != c.n {
			t.Errorf("negatives: find %s: %d documents, want %d", c.filter, n, c.n)
		}
	}

	db2, _ := openMem(t)
	qry28Insert(t, db2, `[{"a": 0}, {"a": 1}, {"a": [1.1, 54]}, {"a": 88}, {"a": 255},
		{"a": {"$numberDouble": "NaN"}}, {"a": 1.1}, {"a": -1.1}, {"a": {"$numberDouble": "-Infinity"}},
		{"a": {"$numberDouble": "Infinity"}}, {"a": {"$numberDecimal": "Infinity"}}, {"a": {"$numberDecimal": "-Infinity"}},
		{"a": {"$numberDecimal": "NaN"}}, {"a": {"$numberDecimal": "9223372036854775808"}},
		{"a": {"$numberDecimal": "-9223372036854775809"}}, {"a": {"$numberDecimal": "1.1"}}, {"a": {"$numberDecimal": "-1.1"}},
		{"a": "x"}, {"a": {"$numberDecimal": "1E18"}}]`)
	for _, c := range []struct {
		filter string
		n      int
	}{
		{`{"a": {"$bitsAllSet": 0}}`, 6}, {`{"a": {"$bitsAllSet": 1}}`, 2}, {`{"a": {"$bitsAllSet": 16}}`, 3},
		{`{"a": {"$bitsAllSet": 54}}`, 2}, {`{"a": {"$bitsAllSet": 55}}`, 1}, {`{"a": {"$bitsAllSet": 88}}`, 2},
		{`{"a": {"$bitsAllSet": 255}}`, 1}, {`{"a": {"$bitsAllClear": 0}}`, 6}, {`{"a": {"$bitsAllClear": 1}}`, 4},
		{`{"a": {"$bitsAllClear": 16}}`, 3}, {`{"a": {"$bitsAllClear": 129}}`, 4}, {`{"a": {"$bitsAllClear": 255}}`, 2},
		{`{"a": {"$bitsAnySet": 0}}`, 0}, {`{"a": {"$bitsAnySet": 9}}`, 3}, {`{"a": {"$bitsAnySet": 255}}`, 4},
		{`{"a": {"$bitsAnyClear": 0}}`, 0}, {`{"a": {"$bitsAnyClear": 18}}`, 4}, {`{"a": {"$bitsAnyClear": 24}}`, 4},
		{`{"a": {"$bitsAnyClear": 255}}`, 5},
	} {
		if n := qry28Count(t, db2, c.filter); n != c.n {
			t.Errorf("non-integers: find %s: %d documents, want %d", c.filter, n, c.n)
		}
	}

	db3, _ := openMem(t)
	qry28Insert(t, db3, `[{"a": {"$binary": {"base64": "ZG9n", "subType": "00"}}},
		{"a": {"$binary": {"base64": "JA4A8gAxqTwciCuF5GGzAA==", "subType": "00"}}},
		{"a": {"$binary": {"base64": "JA4A8gAxqTwciCuF5GGzAA==", "subType": "01"}}},
		{"a": {"$binary": {"base64": "VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==", "subType": "00"}}},
		{"a": {"$binary": {"base64": "BAAAADEyMzQ=", "subType": "02"}}}]`)
	for _, c := range []struct {
		filter string
		n      int
	}{
		{`{"a": {"$bitsAllSet": {"$binary": {"base64": "ZG9n", "subType": "00"}}}}`, 1},
		{`{"a": {"$bitsAllSet": {"$binary": {"base64": "JA4A8gAxqTwciCuF5GGzAA==", "subType": "00"}}}}`, 2},
		{`{"a": {"$bitsAllSet": {"$binary": {"base64": "BAAAADEyMzQ=", "subType": "02"}}}}`, 1},
		{`{"a": {"$bitsAllSet": {"$binary": {"base64": "VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==", "subType": "00"}}}}`, 1},
		{`{"a": {"$bitsAllClear": {"$binary": {"base64": "AAAAAAAAAAAAAAAAAAAAAAAAAAAA", "subType": "00"}}}}`, 5},
		{`{"a": {"$bitsAllClear": {"$binary": {"base64": "JA4A8gAxqTwciCuF5GGzAA==", "subType": "00"}}}}`, 0},
		{`{"a": {"$bitsAnySet": {"$binary": {"base64": "AAAAAAAAAAAAAAAAAAAAAAAAAAAA", "subType": "00"}}}}`, 0},
		{`{"a": {"$bitsAnySet": {"$binary": {"base64": "JA4A8gAxqTwciCuF5GGzAA==", "subType": "00"}}}}`, 5},
		{`{"a": {"$bitsAnyClear": {"$binary": {"base64": "AAAAAAAAAAAAAAAAAAAAAAAAAAAA", "subType": "00"}}}}`, 0},
		{`{"a": {"$bitsAnyClear": {"$binary": {"base64": "VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==", "subType": "00"}}}}`, 4},
	} {
		if n := qry28Count(t, db3, c.filter); n != c.n {
			t.Errorf("BinData: find %s: %d documents, want %d", c.filter, n, c.n)
		}
	}

	// A number mask is read by BSONElement::parseIntegerElementToNonNegativeLong
	// (9 FailedToParse); a position list by parseBitPositionsArray (2
	// BadValue, "Failed to parse bit position. " and the reason).
	for _, c := range []struct {
		op   string
		code document.Code
		msg  string
	}{
		{`-1`, document.CodeFailedToParse, "Expected a non-negative number in: $bitsAllSet: -1"},
		{`1.5`, document.CodeFailedToParse, "Expected an integer: $bitsAllSet: 1.5"},
		{`1e20`, document.CodeFailedToParse, "Cannot represent as a 64-bit integer: $bitsAllSet: "},
		{`[-1]`, document.CodeBadValue, "Failed to parse bit position. Expected a non-negative number in: 0: -1"},
		{`[1, 1.5]`, document.CodeBadValue, "Failed to parse bit position. Expected an integer: 1: 1.5"},
		{`["a"]`, document.CodeBadValue, `Failed to parse bit position. Expected a number in: 0: "a"`},
		{`[{"$numberLong": "2147483648"}]`, document.CodeBadValue, "Failed to parse bit position. Cannot represent 0: 2147483648 in an int"},
		{`"x"`, document.CodeBadValue, `a takes an Array, a number, or a BinData but received: $bitsAllSet: "x"`},
		{`true`, document.CodeBadValue, `a takes an Array, a number, or a BinData but received: $bitsAllSet: true`},
	} {
		_, err := run(t, db, "test", `{"find": "c", "filter": {"a": {"$bitsAllSet": `+c.op+`}}}`)
		checkCode(t, "$bitsAllSet "+c.op, err, c.code, c.msg)
	}
}

// $regex and $options, regex literals, $not with a regex, and regexes
// in $in/$nin (jstests/core/query/regex/regex*.js, not2.js; the option
// conflicts' codes are parseRegexDocument's: 51074 when $regex brings
// flags after $options, 51075 when $options follows flags).
func TestReviewQry28Regex(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": "abc"}, {"_id": 2, "a": "ABC"}, {"_id": 3, "a": ["x", "abd"]},
		{"_id": 4, "a": "x\nbc"}, {"_id": 5, "a": 1}, {"_id": 6},
		{"_id": 7, "a": {"$regularExpression": {"pattern": "^a", "options": ""}}}, {"_id": 8, "a": {"$symbol": "abc"}}]`)
	qry28RunBoth(t, db, []qry28Case{
		{`{"a": {"$regex": "^a"}}`, `1,3,7,8`},
		{`{"a": {"$regex": "^a", "$options": "i"}}`, `1,2,3,8`},
		{`{"a": {"$options": "i", "$regex": "^a"}}`, `1,2,3,8`},
		{`{"a": {"$regularExpression": {"pattern": "^A", "options": "i"}}}`, `1,2,3,8`},
		{`{"a": {"$regex": {"$regularExpression": {"pattern": "^A", "options": "i"}}}}`, `1,2,3,8`},
		{`{"a": {"$regex": "^bc", "$options": "m"}}`, `4`},
		{`{"a": {"$regex": "^bc"}}`, ``},
		{`{"a": {"$regex": "x.bc", "$options": "s"}}`, `4`},
		{`{"a": {"$regex": "a b c # comment", "$options": "x"}}`, `1,8`},
		{`{"a": {"$not": {"$regularExpression": {"pattern": "^a", "options": ""}}}}`, `2,4,5,6`},
		{`{"a": {"$not": {"$regex": "^a"}}}`, `2,4,5,6`},
		{`{"a": {"$in": [{"$regularExpression": {"pattern": "^A", "options": ""}}, 1]}}`, `2,5`},
		{`{"a": {"$nin": [{"$regularExpression": {"pattern": "^a", "options": ""}}, 1]}}`, `2,4,6`},
		{`{"a": {"$eq": {"$regularExpression": {"pattern": "^a", "options": ""}}}}`, `7`},
		{`{"a": {"$regex": "^a", "$gt": "abc"}}`, `3`},
	})
	for _, c := range []struct {
		filter string
		code   document.Code
		msg    string
	}{
		{`{"a": {"$regex": {"$regularExpression": {"pattern": "a", "options": "i"}}, "$options": "m"}}`, 51075, "options set in both $regex and $options"},
		{`{"a": {"$options": "m", "$regex": {"$regularExpression": {"pattern": "a", "options": "i"}}}}`, 51074, "options set in both $regex and $options"},
		{`{"a": {"$regex": "a", "$options": "g"}}`, 51108, "invalid flag in regex options: g"},
		{`{"a": {"$regex": 1}}`, document.CodeBadValue, "$regex has to be a string"},
		{`{"a": {"$regex": "a", "$options": 1}}`, document.CodeBadValue, "$options has to be a string"},
		{`{"a": {"$options": "i"}}`, document.CodeBadValue, "$options needs a $regex"},
		{`{"a": {"$ne": {"$regularExpression": {"pattern": "a", "options": ""}}}}`, document.CodeBadValue, "Can't have regex as arg to $ne."},
		{`{"a": {"$not": 5}}`, document.CodeBadValue, "$not needs a regex or a document"},
		{`{"a": {"$not": {}}}`, document.CodeBadValue, "$not cannot be empty"},
		{`{"a": {"$not": {"b": 1}}}`, document.CodeBadValue, "unknown operator: b"},
		{`{"$not": {"a": 1}}`, document.CodeBadValue, "unknown top level operator: $not"},
		{`{"a": {"$regex": "("}}`, 51091, "Regular expression is invalid"},
	} {
		_, err := run(t, db, "test", `{"find": "c", "filter": `+c.filter+`}`)
		checkCode(t, c.filter, err, c.code, c.msg)
	}
}

// $nor and $not: a negation matches documents where the field is
// missing, and $nor's operand must be a non-empty array of documents
// (jstests/core/query/nor/nor*.js, not/not*.js).
func TestReviewQry28NorNot(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": 1}, {"_id": 2, "a": [1, 3]}, {"_id": 3, "a": 3, "b": 2}, {"_id": 4}, {"_id": 5, "b": 2}]`)
	qry28RunBoth(t, db, []qry28Case{
		{`{"$nor": [{"a": 1}, {"b": 2}]}`, `4`},
		{`{"$nor": [{"a": {"$gt": 2}}]}`, `1,4,5`},
		{`{"a": {"$not": {"$gt": 2}}}`, `1,4,5`},
		{`{"a": {"$not": {"$gt": 2, "$lt": 5}}}`, `1,4,5`},
		{`{"a": {"$not": {"$eq": 1}}}`, `3,4,5`},
		{`{"a": {"$not": {"$elemMatch": {"$gt": 2}}}}`, `1,3,4,5`},
		{`{"a": {"$not": {"$in": [1, 3]}}}`, `4,5`},
		{`{"$nor": [{"$nor": [{"a": 1}]}]}`, `1,2`},
		{`{"$and": [{"a": {"$ne": 1}}, {"a": {"$ne": 3}}]}`, `4,5`},
	})
	for _, c := range []struct{ filter, msg string }{
		{`{"$nor": []}`, "$and/$or/$nor must be a nonempty array"},
		{`{"$nor": {"a": 1}}`, "$nor must be an array"},
		{`{"$nor": [1]}`, "$or/$and/$nor entries need to be full objects"},
		{`{"$or": []}`, "$and/$or/$nor must be a nonempty array"},
	} {
		_, err := run(t, db, "test", `{"find": "c", "filter": `+c.filter+`}`)
		checkCode(t, c.filter, err, document.CodeBadValue, c.msg)
	}
}

// Numbers compare by value across int, long, double and decimal; NaN
// equals NaN and is neither above nor below any number; a comparison
// never crosses type brackets except with MinKey/MaxKey
// (jstests/core/query/nan.js, numberlong*.js, decimal/*).
func TestReviewQry28Numbers(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": 1}, {"_id": 2, "a": {"$numberLong": "1"}}, {"_id": 3, "a": 1.0},
		{"_id": 4, "a": {"$numberDecimal": "1.00"}}, {"_id": 5, "a": {"$numberDouble": "NaN"}},
		{"_id": 6, "a": {"$numberDecimal": "NaN"}}, {"_id": 7, "a": {"$numberDouble": "-Infinity"}},
		{"_id": 8, "a": {"$numberDouble": "Infinity"}}, {"_id": 9, "a": "1"}, {"_id": 10, "a": 0.1},
		{"_id": 11, "a": {"$numberDecimal": "0.1"}}, {"_id": 12, "a": {"$numberLong": "9007199254740993"}},
		{"_id": 13, "a": 9007199254740992.0}]`)
	qry28RunBoth(t, db, []qry28Case{
		{`{"a": 1}`, `1,2,3,4`},
		{`{"a": {"$numberDecimal": "1"}}`, `1,2,3,4`},
		{`{"a": {"$numberDouble": "NaN"}}`, `5,6`},
		{`{"a": {"$gt": {"$numberDouble": "NaN"}}}`, ``},
		{`{"a": {"$gte": {"$numberDouble": "NaN"}}}`, `5,6`},
		{`{"a": {"$lt": {"$numberDouble": "NaN"}}}`, ``},
		{`{"a": {"$gt": {"$numberDouble": "-Infinity"}}}`, `1,2,3,4,8,10,11,12,13`},
		{`{"a": {"$lt": 0.5}}`, `7,10,11`},
		{`{"a": 0.1}`, `10`},
		{`{"a": {"$numberDecimal": "0.1"}}`, `11`},
		{`{"a": {"$gt": {"$numberLong": "9007199254740992"}}}`, `8,12`},
		{`{"a": {"$numberLong": "9007199254740992"}}`, `13`},
		{`{"a": {"$gt": {"$minKey": 1}}}`, `1,2,3,4,5,6,7,8,9,10,11,12,13`},
		{`{"a": {"$lt": {"$maxKey": 1}}}`, `1,2,3,4,5,6,7,8,9,10,11,12,13`},
		{`{"a": {"$in": [{"$numberDecimal": "NaN"}, "1"]}}`, `5,6,9`},
		{`{"a": {"$ne": 1}}`, `5,6,7,8,9,10,11,12,13`},
	})
}

// qry28Proj inserts doc into a fresh db.test.c, runs find with filter
// and projection and returns the one document it gives without its
// _id, as Extended JSON ("" when the find gives none).
func qry28Proj(t *testing.T, filter, projection, doc string) string {
	t.Helper()
	db, _ := openMem(t)
	qry28Insert(t, db, `[`+doc+`]`)
	r := mustRun(t, db, "test", `{"find": "c", "filter": `+filter+`, "projection": `+projection+`}`)
	docs := firstBatch(t, r)
	if len(docs) == 0 {
		return ""
	}
	out := docs[0][:0:0]
	for _, e := range docs[0] {
		if e.Key != "_id" {
			out = append(out, e)
		}
	}
	return fmtValue(out)
}

// The positional projection, case by case from
// jstests/core/query/positional_projection.js.
func TestReviewQry28PositionalProjection(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ filter, proj, doc, want string }{
		{`{"x.a": 2}`, `{"x.$": 1}`, `{"x": [{"a": 1, "b": 2}, {"a": 2, "c": 3}, {"a": 1, "d": 5}], "y": [{"aa": 1}]}`, `{"x": [{"a": 2, "c": 3}]}`},
		{`{"x.a": 1}`, `{"x.$": 1}`, `{"x": [{"a": 1, "b": 2}, {"a": 2, "c": 3}, {"a": 1, "d": 5}]}`, `{"x": [{"a": 1, "b": 2}]}`},
		{`{"x.y.a": 1}`, `{"x.y.$": 1}`, `{"x": {"y": [{"a": 1, "b": 1}, {"a": 1, "b": 2}]}}`, `{"x": {"y": [{"a": 1, "b": 1}]}}`},
		{`{}`, `{"g.$": 1}`, `{"x": [{"a": 1}]}`, `{}`},
		{`{"a.b": 1}`, `{"g.$": 1}`, `{"a": {"b": 1}}`, `{}`},
		{`{"x": 1}`, `{"a.$": 1}`, `{"x": 1}`, `{}`},
		{`{"x": {"$gt": 0}}`, `{"a.b.c.$": 1}`, `{"x": [-1, 1, 2], "a": {"b": {"d": [1, 2, 3], "f": 456}, "e": 123}}`, `{"a": {"b": {}}}`},
		{`{"x": 1}`, `{"a.b.c.$": 1}`, `{"x": [1], "a": [{"b": [[[{"c": 1, "d": 2}]]]}]}`, `{"a": [{"b": [[[{"c": 1}]]]}]}`},
		{`{"x": {"$gt": 0}}`, `{"a.b.c.$": 1}`, `{"x": [-1, 1, 2], "a": {"b": {"c": {"d": {"e": 1}}}}}`, `{"a": {"b": {"c": {"d": {"e": 1}}}}}`},
		{`{"x": {"$gt": 0}}`, `{"a.b.c.$": 1}`, `{"x": [-1, 1, 2], "a": {"b": {"c": 123}}}`, `{"a": {"b": {"c": 123}}}`},
		{`{"x.y.z": 1}`, `{"a.b.c.$": 1}`, `{"x": {"y": {"z": [0, 1, 2]}}, "a": [{"b": {"c": [1, 2, 3]}}, {"b": {"c": [4, 5, 6]}}, {"b": {"c": [7, 8, 9]}}]}`, `{"a": [{"b": {"c": [4, 5, 6]}}]}`},
		{`{"x.y.z": 1}`, `{"a.b.c.$": 1}`, `{"x": {"y": {"z": [0, 1, 2]}}, "a": {"b": [{"c": [1, 2, 3]}, {"c": [4, 5, 6]}, {"c": [7, 8, 9]}]}}`, `{"a": {"b": [{"c": [4, 5, 6]}]}}`},
		{`{"x.y.z": 1}`, `{"a.b.c.$": 1}`, `{"x": {"y": {"z": [0, 1, 2]}}, "a": {"b": {"c": [1, 2, 3]}}}`, `{"a": {"b": {"c": [2]}}}`},
		{`{"x": {"$elemMatch": {"$gt": 1, "$lt": 3}}}`, `{"x.$": 1}`, `{"x": [1, 2, 3]}`, `{"x": [2]}`},
		{`{"x": {"$elemMatch": {"y": {"$gt": 1}}}}`, `{"x.$": 1}`, `{"x": [{"y": 1}, {"y": 2}, {"y": 3}]}`, `{"x": [{"y": 2}]}`},
		{`{"a": {"$elemMatch": {"$elemMatch": {"$eq": 3}}}}`, `{"b.$": 1}`, `{"a": [[1, 2], [3, 4]], "b": [[5, 6], [7, 8]]}`, `{"b": [[7, 8]]}`},
		{`{"a": {"$elemMatch": {"p": {"$elemMatch": {"$eq": 6}}}}}`, `{"b.$": 1}`, `{"a": [{"p": [1, 2], "q": [3, 4]}, {"p": [5, 6], "q": [7, 8]}], "b": [11, 12]}`, `{"b": [12]}`},
		{`{"$and": [{"a": 1}, {"a": 2}, {"a": 3}]}`, `{"b.$": 1}`, `{"a": [1, 2, 3], "b": [4, 5, 6]}`, `{"b": [6]}`},
		{`{"$and": [{"a": 3}, {"a": 2}, {"a": 1}]}`, `{"b.$": 1}`, `{"a": [1, 2, 3], "b": [4, 5, 6]}`, `{"b": [4]}`},
		{`{"a": {"$in": [2, 3]}}`, `{"b.$": 1}`, `{"a": [1, 2, 3], "b": [4, 5, 6]}`, `{"b": [5]}`},
		{`{"$or": [{"a": 2}, {"a": 3}]}`, `{"b.$": 1}`, `{"a": [1, 2, 3], "b": [4, 5, 6]}`, `{"b": [5]}`},
		{`{"a": {"$elemMatch": {"y": {"$exists": true}}}}`, `{"a.$": 1}`, `{"a": [{"y": 1}, {"y": 2}]}`, `{"a": [{"y": 1}]}`},
		{`{"a": {"$elemMatch": {"y": {"$type": ["array", "double"]}}}}`, `{"a.$": 1}`, `{"a": [{"y": 1.5}, {"y": []}]}`, `{"a": [{"y": 1.5}]}`},
		{`{"z": 13}`, `{"a": {"$slice": 2}, "z.$": 1}`, `{"a": [1, 2, 3], "z": [11, 12, 13]}`, `{"a": [1, 2], "z": [13]}`},
		{`{"z": 12}`, `{"a.b": 1, "z.$": 1}`, `{"a": [{"b": 1, "c": 2}, {"b": 3, "c": 4}], "z": [11, 12, 13]}`, `{"a": [{"b": 1}, {"b": 3}], "z": [12]}`},
	} {
		if got := qry28Proj(t, c.filter, c.proj, c.doc); got != fmtValue(ejson(t, c.want)) {
			t.Errorf("find %s projection %s on %s: %s, want %s", c.filter, c.proj, c.doc, got, c.want)
		}
	}
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"x": [{"a": 1, "b": 2}, {"a": 2, "c": 3}], "y": [{"aa": 1}], "a": [1, 2, 3], "b": [4, 5, 6], "c": [7, 8, 9]}]`)
	for _, c := range []struct {
		filter, proj string
		code         document.Code
		msg          string
	}{
		{`{"x": 1}`, `{"x.$": {"$slice": 1}}`, 31271, "positional projection cannot be used with an expression or sub object"},
		{`{"x.a": 2}`, `{"x.$": 1, "y": 0}`, 31254, "Cannot do exclusion on field y in inclusion projection"},
		{`{"x.a": 2}`, `{"y": 0, "x.$": 1}`, 31253, "Cannot do inclusion on field x.$ in exclusion projection"},
		{`{"x.a": 2}`, `{"x.$": 0}`, 31395, "positional projection cannot be used with exclusion"},
		{`{"x.a": 1, "y.aa": 1}`, `{"x.$": 1, "y.$": 1}`, 31276, "Cannot specify more than one positional projection per query."},
		{`{"x.a": 1}`, `{"x.$.a": 1}`, 31394, "As of 4.4, it's illegal to specify positional operator in the middle of a path."},
		{`{}`, `{".$": 1}`, 5392900, "Projection on field .$ is invalid"},
		{`{"x.a": 1}`, `{"x": {"$elemMatch": {"a": 1}}, "y.$": 1}`, 31256, "Cannot specify positional operator and $elemMatch."},
		{`{"y.aa": 1}`, `{"y.$": 1, "x": {"$elemMatch": {"a": 1}}}`, 31255, "Cannot specify positional operator and $elemMatch."},
		{`{}`, `{"x.$": 1}`, 51246, "positional operator '.$' couldn't find a matching element in the array"},
		{`{"b": [4, 5, 6]}`, `{"c.$": 1}`, 51246, "positional operator '.$' couldn't find a matching element in the array"},
		{`{"$nor": [{"a": -1}, {"a": -2}]}`, `{"a.$": 1}`, 51246, "positional operator '.$' couldn't find a matching element in the array"},
		{`{"a": {"$not": {"$not": {"$elemMatch": {"$eq": 1}}}}}`, `{"a.$": 1}`, 51246, "positional operator '.$' couldn't find a matching element in the array"},
	} {
		_, err := run(t, db, "test", `{"find": "c", "filter": `+c.filter+`, "projection": `+c.proj+`}`)
		checkCode(t, c.filter+" "+c.proj, err, c.code, c.msg)
	}
}

// Inclusion, exclusion, _id, dotted paths through arrays, $slice and
// $elemMatch projections (jstests/core/query/projection/
// projection_semantics.js, slice*.js, elemmatch_projection.js,
// positional_projection_multiple_array_fields.js; the parser's rules in
// projection_parser.cpp).
func TestReviewQry28Projection(t *testing.T) {
	t.Parallel()
	doc := `{"_id": 1, "a": [{"b": 1, "c": 2}, {"b": 3, "c": 4}, 5, [{"b": 6}]], "x": {"y": 1, "z": 2}, "s": [1, 2, 3, 4, 5], "n": 7}`
	for _, c := range []struct{ proj, want string }{
		{`{"a.b": 1}`, `{"_id": 1, "a": [{"b": 1}, {"b": 3}, [{"b": 6}]]}`},
		{`{"a.b": 0}`, `{"_id": 1, "a": [{"c": 2}, {"c": 4}, 5, [{}]], "x": {"y": 1, "z": 2}, "s": [1, 2, 3, 4, 5], "n": 7}`},
		{`{"_id": 0, "x.y": 1}`, `{"x": {"y": 1}}`},
		{`{"x": {"y": 1}}`, `{"_id": 1, "x": {"y": 1}}`},
		{`{"_id": 1}`, `{"_id": 1}`},
		{`{"_id": 0}`, `{"a": [{"b": 1, "c": 2}, {"b": 3, "c": 4}, 5, [{"b": 6}]], "x": {"y": 1, "z": 2}, "s": [1, 2, 3, 4, 5], "n": 7}`},
		{`{"_id": 1, "n": 0}`, `{"_id": 1, "a": [{"b": 1, "c": 2}, {"b": 3, "c": 4}, 5, [{"b": 6}]], "x": {"y": 1, "z": 2}, "s": [1, 2, 3, 4, 5]}`},
		{`{"s": {"$slice": 2}}`, `{"_id": 1, "a": [{"b": 1, "c": 2}, {"b": 3, "c": 4}, 5, [{"b": 6}]], "x": {"y": 1, "z": 2}, "s": [1, 2], "n": 7}`},
		{`{"s": {"$slice": -2}, "n": 1}`, `{"_id": 1, "s": [4, 5], "n": 7}`},
		{`{"s": {"$slice": [1, 2]}, "_id": 0, "n": 1}`, `{"s": [2, 3], "n": 7}`},
		{`{"s": {"$slice": [-2, 1]}, "_id": 0, "n": 1}`, `{"s": [4], "n": 7}`},
		{`{"s": {"$slice": [-10, 2]}, "_id": 0, "n": 1}`, `{"s": [1, 2], "n": 7}`},
		{`{"s": {"$slice": [10, 2]}, "_id": 0, "n": 1}`, `{"s": [], "n": 7}`},
		{`{"s": {"$slice": 1.9}, "_id": 0, "n": 1}`, `{"s": [1], "n": 7}`},
		{`{"s": {"$slice": [1.5, 2.5]}, "_id": 0, "n": 1}`, `{"s": [2, 3], "n": 7}`},
		{`{"n": {"$slice": 1}, "_id": 1}`, `{"_id": 1, "n": 7}`},
		{`{"_id": 1, "s": {"$slice": 1}}`, `{"_id": 1, "s": [1]}`},
		{`{"_id": 0, "s": {"$slice": 1}, "a": 0, "x": 0}`, `{"s": [1], "n": 7}`},
		{`{"a": {"$elemMatch": {"b": {"$gt": 1}}}}`, `{"_id": 1, "a": [{"b": 3, "c": 4}]}`},
		{`{"a": {"$elemMatch": {"b": 9}}}`, `{"_id": 1}`},
		{`{"a": {"$elemMatch": {"b": 1}}, "n": 1}`, `{"_id": 1, "a": [{"b": 1, "c": 2}], "n": 7}`},
		{`{"_id": 0, "a": {"$elemMatch": {"b": 1}}}`, `{"a": [{"b": 1, "c": 2}]}`},
		{`{"s": {"$elemMatch": {"$gt": 3}}}`, `{"_id": 1, "s": [4]}`},
		{`{"n": {"$elemMatch": {"$gt": 3}}}`, `{"_id": 1}`},
	} {
		got := qry28Proj(t, `{}`, c.proj, doc)
		want := ""
		if c.want != "" {
			d := ejson(t, c.want)
			if len(d) > 0 && d[0].Key == "_id" {
				d = d[1:]
			}
			want = fmtValue(d)
		}
		if got != want {
			t.Errorf("projection %s: %s, want %s", c.proj, got, want)
		}
	}
}

// The projection parser's refusals and their codes (projection_parser.cpp
// addNodeAtPathHelper: 31250 when the path itself is already there,
// 31249 when a shorter path is a leaf on the way, whose "remaining
// portion" is the path without its first field; attemptToParseFindSlice
// and its fallback to the $slice expression: 28667 with both reasons).
func TestReviewQry28ProjectionErrors(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": [1, 2]}]`)
	for _, c := range []struct {
		proj string
		code document.Code
		msg  string
	}{
		{`{"n": true, "s": false, "_id": false}`, 31254, "Cannot do exclusion on field s in inclusion projection"},
		{`{"a": 1, "b": 0}`, 31254, "Cannot do exclusion on field b in inclusion projection"},
		{`{"a": 0, "b": 1}`, 31253, "Cannot do inclusion on field b in exclusion projection"},
		{`{"a": {"b": 1, "c": 0}}`, 31254, "Cannot do exclusion on field c in inclusion projection"},
		{`{"a": 1, "a.b": 1}`, 31249, "Path collision at a.b remaining portion b"},
		{`{"a.b": 1, "a": 1}`, 31250, "Path collision at a"},
		{`{"a.b": 1, "a.b.c": 1}`, 31249, "Path collision at a.b.c remaining portion b.c"},
		{`{"a.b.c": 1, "a.b": 1}`, 31250, "Path collision at a.b"},
		{`{"a": {"$slice": "x"}}`, 28667, `Invalid $slice syntax. The given syntax { $slice: "x" } did not match the find() syntax because :: Location31273: $slice only supports numbers and [skip, limit] arrays :: The given syntax did not match the expression $slice syntax. :: caused by :: Expression $slice takes at least 2 arguments, and at most 3, but 1 were passed in.`},
		{`{"a": {"$slice": [1]}}`, 28667, `Invalid $slice syntax. The given syntax { $slice: [ 1 ] } did not match the find() syntax because :: Location31272: $slice array argument should be of form [skip, limit] :: The given syntax did not match the expression $slice syntax. :: caused by :: Expression $slice takes at least 2 arguments, and at most 3, but 1 were passed in.`},
		{`{"a": {"$elemMatch": {"$foo": 1}}}`, document.CodeBadValue, "unknown operator: $foo"},
	} {
		_, err := run(t, db, "test", `{"find": "c", "projection": `+c.proj+`}`)
		checkCode(t, c.proj, err, c.code, c.msg)
	}
}

// qry28Sorted runs find {} sorted by sort on db.test.c and returns the
// _ids in the order given.
func qry28Sorted(t *testing.T, db *DB, sort string) string {
	t.Helper()
	r := mustRun(t, db, "test", `{"find": "c", "sort": `+sort+`}`)
	var ids []string
	for _, d := range firstBatch(t, r) {
		ids = append(ids, fmtValue(d[0].Value))
	}
	return strings.Join(ids, ",")
}

// Sort: an array sorts by its smallest element ascending and its
// largest descending, an empty array before null, missing and null
// alike, and the type brackets in BSON order
// (jstests/core/query/sort/sort_array*.js, sort*.js; the sort key
// generator's rules in sort_key_generator.cpp).
func TestReviewQry28Sort(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": [3, 1, 9]}, {"_id": 2, "a": 2}, {"_id": 3, "a": []}, {"_id": 4, "a": null},
		{"_id": 5}, {"_id": 6, "a": "s"}, {"_id": 7, "a": {"x": 1}}, {"_id": 8, "a": [[0]]},
		{"_id": 9, "a": true}, {"_id": 10, "a": {"$date": "2020-01-01T00:00:00Z"}}, {"_id": 11, "a": {"$minKey": 1}},
		{"_id": 12, "a": {"$maxKey": 1}}, {"_id": 13, "a": {"$oid": "000000000000000000000001"}},
		{"_id": 14, "a": {"$binary": {"base64": "AA==", "subType": "00"}}}, {"_id": 15, "a": [5, "z"]},
		{"_id": 16, "a": {"$numberDecimal": "1.5"}}, {"_id": 17, "a": {"$timestamp": {"t": 1, "i": 1}}},
		{"_id": 18, "a": {"$regularExpression": {"pattern": "a", "options": ""}}}]`)
	if got, want := qry28Sorted(t, db, `{"a": 1, "_id": 1}`), `11,3,4,5,1,16,2,15,6,7,8,14,13,9,10,17,18,12`; got != want {
		t.Errorf("sort {a: 1}: %s, want %s", got, want)
	}
	if got, want := qry28Sorted(t, db, `{"a": -1, "_id": 1}`), `12,18,17,10,9,13,14,8,7,15,6,1,2,16,4,5,3,11`; got != want {
		t.Errorf("sort {a: -1}: %s, want %s", got, want)
	}

	db2, _ := openMem(t)
	qry28Insert(t, db2, `[{"_id": 1, "a": [{"b": 3}, {"b": 1}]}, {"_id": 2, "a": [{"b": 2}]}, {"_id": 3, "a": {"b": 0}},
		{"_id": 4, "a": [{"b": 5}, {"c": 1}]}, {"_id": 5, "a": [{"b": [4, 0.5]}]}, {"_id": 6, "a": 7}]`)
	if got, want := qry28Sorted(t, db2, `{"a.b": 1, "_id": 1}`), `4,6,3,5,1,2`; got != want {
		t.Errorf("sort {a.b: 1}: %s, want %s", got, want)
	}
	if got, want := qry28Sorted(t, db2, `{"a.b": -1, "_id": 1}`), `4,5,1,2,3,6`; got != want {
		t.Errorf("sort {a.b: -1}: %s, want %s", got, want)
	}
	// An index in the path picks that element.
	if got, want := qry28Sorted(t, db2, `{"a.0.b": 1, "_id": 1}`), `3,6,5,2,1,4`; got != want {
		t.Errorf("sort {a.0.b: 1}: %s, want %s", got, want)
	}

	// Refusals: a direction that is not a number is 15974, a number
	// other than 1 or -1 is 15975 (sort_pattern.cpp; FerretDB's
	// compatibility tests against mongod record the same).
	for _, c := range []struct {
		sort string
		code document.Code
		msg  string
	}{
		{`{"a": "x"}`, 15974, `Illegal key in $sort specification: a: "x"`},
		{`{"a": true}`, 15974, `Illegal key in $sort specification: a: true`},
		{`{"a": 0}`, 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
		{`{"a": 2}`, 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
		{`{"a": 42.12}`, 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
	} {
		_, err := run(t, db, "test", `{"find": "c", "sort": `+c.sort+`}`)
		checkCode(t, c.sort, err, c.code, c.msg)
	}
	if got, want := qry28Sorted(t, db2, `{"a.b": {"$numberDecimal": "-1"}, "_id": {"$numberLong": "1"}}`), `4,5,1,2,3,6`; got != want {
		t.Errorf("sort {a.b: NumberDecimal(-1)}: %s, want %s", got, want)
	}
}

// Whole-array equality and comparison, $in with arrays, $exists through
// arrays, and the parser's refusals of undefined and nested operators
// (jstests/core/query/array/array_match*.js, in/in*.js, exists/exists*.js,
// expression_parser.cpp).
func TestReviewQry28ArraysAndOperands(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": [1, 2]}, {"_id": 2, "a": [[1, 2], 3]}, {"_id": 3, "a": [2, 1]},
		{"_id": 4, "a": [2]}, {"_id": 5, "a": 5}, {"_id": 6, "a": [{"b": null}]}, {"_id": 7, "a": [1]}, {"_id": 8, "a": []}]`)
	qry28RunBoth(t, db, []qry28Case{
		{`{"a": [1, 2]}`, `1,2`},
		{`{"a": {"$eq": [1, 2]}}`, `1,2`},
		{`{"a": {"$in": [[1, 2]]}}`, `1,2`},
		{`{"a": {"$gt": [1]}}`, `1,2,3,4,6`},
		{`{"a": {"$gte": [1, 2]}}`, `1,2,3,4,6`},
		{`{"a": {"$lt": [2]}}`, `1,2,7,8`},
		{`{"a": []}`, `8`},
		{`{"a": {"$ne": [1, 2]}}`, `3,4,5,6,7,8`},
		{`{"a.b": {"$exists": true}}`, `6`},
		{`{"a.1": {"$exists": true}}`, `1,2,3`},
		{`{"a.0": {"$exists": false}}`, `5,8`},
		{`{"a.0": 1}`, `1,2,7`},
		{`{"a.0.1": 2}`, `2`},
		{`{"a": {"$exists": "false"}}`, `1,2,3,4,5,6,7,8`},
		{`{"a": {"$exists": 0}}`, ``},
	})
	for _, c := range []struct {
		filter string
		msg    string
	}{
		{`{"a": {"$undefined": true}}`, "cannot compare to undefined"},
		{`{"a": {"$eq": {"$undefined": true}}}`, "cannot compare to undefined"},
		{`{"a": {"$gt": {"$undefined": true}}}`, "cannot compare to undefined"},
		{`{"a": {"$ne": {"$undefined": true}}}`, "cannot compare to undefined"},
		{`{"a": {"$in": [{"$undefined": true}]}}`, "InMatchExpression equality cannot be undefined"},
		{`{"a": {"$in": 1}}`, "$in needs an array"},
		{`{"a": {"$nin": 1}}`, "$nin needs an array"},
		{`{"a": {"$in": [{"$gt": 1}]}}`, "cannot nest $ under $in"},
		{`{"a": {"$foo": 1}}`, "unknown operator: $foo"},
		{`{"$foo": 1}`, "unknown top level operator: $foo. If you have a field name that starts with a '$' symbol, consider using $getField or $setField."},
	} {
		_, err := run(t, db, "test", `{"find": "c", "filter": `+c.filter+`}`)
		checkCode(t, c.filter, err, document.CodeBadValue, c.msg)
	}
}

// findAndModify's fields is a find projection: the positional path
// and $slice apply to the document it returns
// (jstests/core/query/find_and_modify/find_and_modify_positional*.js).
func TestReviewQry28FindAndModifyProjection(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": [1, 2, 3], "b": [4, 5, 6], "c": 1}]`)
	r := mustRun(t, db, "test", `{"findAndModify": "c", "query": {"a": 2}, "update": {"$set": {"c": 2}}, "fields": {"a.$": 1}}`)
	sameValue(t, "positional value", field(r, "value"), `{"_id": 1, "a": [2]}`)
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"a": 3}, "update": {"$set": {"c": 3}}, "fields": {"b": {"$slice": -1}, "_id": 0}, "new": true}`)
	sameValue(t, "slice value", field(r, "value"), `{"a": [1, 2, 3], "b": [6], "c": 3}`)
	_, err := run(t, db, "test", `{"findAndModify": "c", "query": {}, "update": {"$set": {"c": 4}}, "fields": {"a": 1, "b": 0}}`)
	checkCode(t, "findAndModify fields mixing", err, 31254, "Cannot do exclusion on field b in inclusion projection")
}

// $meta in a projection: an unknown name is 17308, a non-string 17307;
// textScore without a $text query is 40218 in 7.0's find
// (jstests/core/query/projection/projection_meta*.js, text tests).
func TestReviewQry28MetaProjection(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": "x"}]`)
	for _, c := range []struct {
		proj string
		code document.Code
		msg  string
	}{
		{`{"s": {"$meta": "foo"}}`, 17308, "Unsupported argument to $meta: foo"},
		{`{"s": {"$meta": 1}}`, 17307, "$meta only supports string arguments"},
	} {
		_, err := run(t, db, "test", `{"find": "c", "projection": `+c.proj+`}`)
		checkCode(t, c.proj, err, c.code, c.msg)
	}
}

// _id sub-paths and a $slice on a path through an array of documents
// (projection_semantics.js: "_id.a" counts as specifying _id; a find
// $slice applies to the array at the end of the path in every element).
func TestReviewQry28ProjectionIDAndNestedSlice(t *testing.T) {
	t.Parallel()
	doc := `{"_id": {"a": 1, "b": 2}, "a": [{"b": [1, 2, 3], "c": 1}, {"b": [4, 5], "c": 2}, {"c": 3}], "x": 1}`
	for _, c := range []struct{ proj, want string }{
		{`{"_id.a": 1}`, `{"_id": {"a": 1}}`},
		{`{"_id.a": 0}`, `{"_id": {"b": 2}, "a": [{"b": [1, 2, 3], "c": 1}, {"b": [4, 5], "c": 2}, {"c": 3}], "x": 1}`},
		{`{"_id.a": 1, "x": 1}`, `{"_id": {"a": 1}, "x": 1}`},
		{`{"a.b": {"$slice": 1}}`, `{"_id": {"a": 1, "b": 2}, "a": [{"b": [1], "c": 1}, {"b": [4], "c": 2}, {"c": 3}], "x": 1}`},
		{`{"a.b": {"$slice": -1}, "x": 1}`, `{"_id": {"a": 1, "b": 2}, "a": [{"b": [3]}, {"b": [5]}, {}], "x": 1}`},
		{`{"a.c": 1, "_id": 0}`, `{"a": [{"c": 1}, {"c": 2}, {"c": 3}]}`},
	} {
		db, _ := openMem(t)
		qry28Insert(t, db, `[`+doc+`]`)
		r := mustRun(t, db, "test", `{"find": "c", "projection": `+c.proj+`}`)
		docs := firstBatch(t, r)
		if len(docs) != 1 {
			t.Fatalf("projection %s: %d documents", c.proj, len(docs))
		}
		if got, want := fmtValue(docs[0]), fmtValue(ejson(t, c.want)); got != want {
			t.Errorf("projection %s: %s, want %s", c.proj, got, want)
		}
	}
}

// A negative skip, limit or batchSize in a find is the IDL validator's
// 51024 (find_command.idl: validator gte 0; FerretDB's compatibility
// tests record mongod's message).
func TestReviewQry28FindNegativeOptions(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1}]`)
	for _, f := range []string{"skip", "limit", "batchSize"} {
		wantCode(t, db, "test", `{"find": "c", "`+f+`": -1}`, 51024, "BSON field '"+f+"' value must be >= 0, actual value '-1'")
	}
}

// A $slice operand that is not find's [skip, limit] is the $slice
// expression, as mongod's parser falls back to it
// (projection_parser.cpp parseSubObjectAsExpression): ["$a", 1, 2] and
// ["$a", 2] compute the field; [1, 0] fails on its first argument.
func TestReviewQry28SliceExpression(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ proj, want string }{
		{`{"s": {"$slice": ["$s", 1, 2]}}`, `{"s": [2, 3]}`},
		{`{"s": {"$slice": ["$s", -2]}, "_id": 0}`, `{"s": [4, 5]}`},
		{`{"t": {"$slice": ["$s", 1]}, "n": 1}`, `{"n": 7, "t": [1]}`},
	} {
		got := qry28Proj(t, `{}`, c.proj, `{"_id": 1, "s": [1, 2, 3, 4, 5], "n": 7}`)
		if want := fmtValue(ejson(t, c.want)); got != want {
			t.Errorf("projection %s: %s, want %s", c.proj, got, want)
		}
	}
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "s": [1, 2]}]`)
	_, err := run(t, db, "test", `{"find": "c", "projection": {"s": {"$slice": [1, 0]}}}`)
	checkCode(t, "$slice [1, 0]", err, 28724, "First argument to $slice must be an array, but is of type: int")
}

// jstests/core/query/not/not2.js, without and with an index on i.
func TestReviewQry28Not2(t *testing.T) {
	t.Parallel()
	for _, indexed := range []bool{false, true} {
		db, _ := openMem(t)
		if indexed {
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"i": 1}, "name": "i_1"}]}`)
		}
		check := func(filter, want string) {
			t.Helper()
			r := mustRun(t, db, "test", `{"find": "c", "filter": `+filter+`, "sort": {"i": 1}, "projection": {"_id": 0}}`)
			var got []string
			for _, d := range firstBatch(t, r) {
				got = append(got, fmtValue(d[0].Value))
			}
			var ws []string
			for _, w := range ejson(t, `{"w": [`+want+`]}`)[0].Value.(bson.A) {
				ws = append(ws, fmtValue(w))
			}
			if strings.Join(got, " ") != strings.Join(ws, " ") {
				t.Errorf("indexed %v: find %s: %v, want %v", indexed, filter, got, ws)
			}
		}
		fail := func(filter string) {
			t.Helper()
			if _, err := run(t, db, "test", `{"find": "c", "filter": `+filter+`}`); err == nil {
				t.Errorf("find %s succeeded, want an error", filter)
			}
		}
		qry28Insert(t, db, `[{"i": "a"}, {"i": "b"}]`)
		fail(`{"i": {"$not": {"$not": "a"}}}`)
		check(`{"i": {"$not": {"$not": {"$gt": "a"}}}}`, `"b"`)
		fail(`{"i": {"$not": "a"}}`)
		fail(`{"i": {"$not": {"$ref": "foo"}}}`)
		fail(`{"i": {"$not": {}}}`)
		check(`{"i": {"$not": {"$gt": "a"}}}`, `"a"`)
		check(`{"i": {"$not": {"$ne": "a"}}}`, `"a"`)
		check(`{"i": {"$not": {"$gte": "b"}}}`, `"a"`)
		check(`{"i": {"$not": {"$exists": true}}}`, ``)
		check(`{"j": {"$not": {"$exists": false}}}`, ``)
		check(`{"j": {"$not": {"$exists": true}}}`, `"a", "b"`)
		check(`{"i": {"$not": {"$in": ["a"]}}}`, `"b"`)
		check(`{"i": {"$not": {"$in": ["a", "b"]}}}`, ``)
		check(`{"i": {"$not": {"$nin": ["a"]}}}`, `"a"`)
		check(`{"i": {"$not": {"$regularExpression": {"pattern": "(a|b)", "options": ""}}}}`, ``)
		check(`{"i": {"$not": {"$regularExpression": {"pattern": "a", "options": ""}}, "$regex": "a"}}`, ``)
		check(`{"i": {"$not": {"$regex": "A", "$options": "i"}}}`, `"b"`)
		check(`{"i": {"$not": {"$regex": "^foo"}}}`, `"a", "b"`)
		fail(`{"i": {"$not": {"$options": "a"}}}`)
		check(`{"i": {"$not": {"$type": 1}}}`, `"a", "b"`)
		check(`{"i": {"$not": {"$type": 2}}}`, ``)
		mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {}, "limit": 0}]}`)
		qry28Insert(t, db, `[{"i": 1}]`)
		check(`{"i": {"$not": {"$mod": [5, 1]}}}`, ``)
		check(`{"i": {"$not": {"$mod": [5, 2]}}}`, `1`)
		mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {}, "limit": 0}]}`)
		qry28Insert(t, db, `[{"i": ["a", "b"]}]`)
		check(`{"i": {"$not": {"$size": 2}}}`, ``)
		check(`{"i": {"$not": {"$size": 3}}}`, `["a", "b"]`)
		check(`{"i": {"$not": {"$gt": "a"}}}`, ``)
		check(`{"i": {"$not": {"$gt": "c"}}}`, `["a", "b"]`)
		check(`{"i": {"$not": {"$all": ["a", "b"]}}}`, ``)
		check(`{"i": {"$not": {"$all": ["c"]}}}`, `["a", "b"]`)
		mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {}, "limit": 0}]}`)
		qry28Insert(t, db, `[{"i": [{"j": "a"}]}, {"i": [{"j": "b"}]}]`)
		check(`{"i": {"$not": {"$elemMatch": {"j": "a"}}}}`, `[{"j": "b"}]`)
		check(`{"i": {"$not": {"$elemMatch": {"j": "f"}}}}`, `[{"j": "a"}], [{"j": "b"}]`)
	}
}

// jstests/core/query/sort/sort_dotted_paths.js and
// sort_dotted_paths_numeric.js: undefined, an empty array and [undefined]
// sort alike below null, a numeric component picks an element, and two
// array fields of one document are refused (2 or 171).
func TestReviewQry28SortDottedPaths(t *testing.T) {
	t.Parallel()
	type sc struct{ sort, want string }
	runAll := func(docs string, cases []sc) *DB {
		t.Helper()
		db, _ := openMem(t)
		qry28Insert(t, db, docs)
		for _, c := range cases {
			if got := qry28Sorted(t, db, c.sort); got != c.want {
				t.Errorf("docs %.40s... sort %s: %s, want %s", docs, c.sort, got, c.want)
			}
		}
		return db
	}
	runAll(`[{"_id": 1, "a": 1}, {"_id": 2, "a": {"$undefined": true}}, {"_id": 3, "a": null}, {"_id": 4, "a": {}},
		{"_id": 5, "a": []}, {"_id": 6, "a": [1]}, {"_id": 7, "a": [[1]]}, {"_id": 8}, {"_id": 9, "a": [{"$undefined": true}]}]`, []sc{
		{`{"a": 1, "_id": 1}`, `2,5,9,3,8,1,6,4,7`},
		{`{"a": -1, "_id": 1}`, `7,4,1,6,3,8,2,5,9`},
		{`{"a.0": 1, "_id": 1}`, `9,1,2,3,4,5,8,6,7`},
		{`{"a.0": -1, "_id": 1}`, `7,6,1,2,3,4,5,8,9`},
	})
	runAll(`[{"_id": 1, "a": 1, "b": [2]}, {"_id": 2, "a": 2, "b": []}, {"_id": 3, "a": [], "b": 4}, {"_id": 4, "a": [1], "b": 4},
		{"_id": 5, "a": [2, 3], "b": 2}, {"_id": 6, "a": 2, "b": [3, 5]}, {"_id": 7, "a": 1, "b": [1, 3]}, {"_id": 8, "a": [1, 2], "b": 3},
		{"_id": 9, "a": 2, "b": 3}]`, []sc{
		{`{"a": 1, "b": 1, "_id": 1}`, `3,7,1,8,4,2,5,6,9`},
		{`{"a": 1, "b": -1, "_id": 1}`, `3,4,7,8,1,6,9,5,2`},
		{`{"a": -1, "b": 1, "_id": 1}`, `5,2,6,8,9,7,1,4,3`},
		{`{"a": -1, "b": -1, "_id": 1}`, `5,6,8,9,2,4,7,1,3`},
	})
	db := runAll(`[{"_id": 1, "a": [], "b": 1}, {"_id": 2, "a": 1, "b": []}, {"_id": 3, "a": [], "b": []}]`, nil)
	for _, sort := range []string{`{"a": 1, "b": 1}`, `{"_id": 1, "a": 1, "b": 1}`, `{"a": 1, "b": 1, "_id": 1}`} {
		_, err := run(t, db, "test", `{"find": "c", "sort": `+sort+`}`)
		var e *Error
		if !errorsAs(err, &e) || (e.Code != document.CodeBadValue && e.Code != 171) {
			t.Errorf("sort %s over parallel arrays: %v, want 2 or 171", sort, err)
		}
	}
	_, err := run(t, db, "test", `{"aggregate": "c", "pipeline": [{"$sort": {"a": 1, "b": 1}}], "cursor": {}}`)
	checkCode(t, "$sort over parallel arrays", err, document.CodeBadValue, "cannot sort with keys that are parallel arrays")
	r := mustRun(t, db, "test", `{"find": "c", "filter": {"$or": [{"a": {"$not": {"$type": "array"}}}, {"b": {"$not": {"$type": "array"}}}]}, "sort": {"a": 1, "b": 1}}`)
	sameValue(t, "parallel arrays filtered out", field(r, "cursor.firstBatch"), `[{"_id": 1, "a": [], "b": 1}, {"_id": 2, "a": 1, "b": []}]`)
	runAll(`[{"_id": 1, "a": {"b": 2}}, {"_id": 2, "a": {"b": []}}, {"_id": 3, "a": {"b": [2, 3]}}, {"_id": 4, "a": {"c": 1}},
		{"_id": 5, "a": []}, {"_id": 6, "a": [{"b": [5]}]}, {"_id": 7, "a": [{"b": [4, 5]}, {"b": 7}]},
		{"_id": 8, "a": [{"b": [1, 3]}, {"b": [2, 5]}]}, {"_id": 9, "a": [{"b": []}, {"b": [1, 3]}]}]`, []sc{
		{`{"a.b": 1, "_id": 1}`, `2,9,4,5,8,1,3,7,6`},
		{`{"a.b": 1, "_id": -1}`, `9,2,5,4,8,3,1,7,6`},
		{`{"a.b": -1, "_id": 1}`, `7,6,8,3,9,1,4,5,2`},
		{`{"a.b": -1, "_id": -1}`, `7,8,6,9,3,1,5,4,2`},
	})
	runAll(`[{"_id": 1, "a": [{"b": 4, "c": 1}, {"b": 1, "c": 2}]}, {"_id": 2, "a": [{"b": 2, "c": 1}, {"b": 4, "c": 2}]},
		{"_id": 3, "a": [{"b": 6, "c": 1}, {"b": 9, "c": 2}]}, {"_id": 4, "a": [{"b": 4, "c": 1}, {"b": 5, "c": 3}]},
		{"_id": 5, "a": [{"b": 2, "c": 1}, {"b": 7, "c": 3}]}, {"_id": 6, "a": [{"b": 5, "c": 1}, {"b": 3, "c": 3}]},
		{"_id": 7, "a": [{"b": 7, "c": 2}, {"b": 2, "c": 3}]}, {"_id": 8, "a": [{"b": 3, "c": 2}, {"b": 8, "c": 3}]},
		{"_id": 9, "a": [{"b": 8, "c": 2}, {"b": 6, "c": 3}]}]`, []sc{
		{`{"a.c": 1, "a.b": 1, "_id": 1}`, `2,5,1,4,6,3,8,7,9`},
		{`{"a.c": 1, "a.b": -1, "_id": 1}`, `3,6,1,4,2,5,9,7,8`},
		{`{"a.c": -1, "a.b": 1, "_id": 1}`, `7,6,4,9,5,8,1,2,3`},
		{`{"a.c": -1, "a.b": -1, "_id": 1}`, `8,5,9,4,6,7,3,2,1`},
	})
	runAll(`[{"_id": 1, "a": [{"b": [4, 1], "c": 1}, {"b": [1, 5], "c": 2}]}, {"_id": 2, "a": [{"b": 2, "c": [1, 3]}, {"b": 4, "c": [2, 4]}]},
		{"_id": 3, "a": [{"b": [6, 4], "c": 1}, {"b": [9, 7], "c": 2}]}, {"_id": 4, "a": [{"b": 4, "c": [1, 2]}, {"b": 5, "c": [3, 2]}]},
		{"_id": 5, "a": [{"b": [2, 3], "c": 1}, {"b": [7, 6], "c": 3}]}, {"_id": 6, "a": [{"b": 5, "c": []}, {"b": 3, "c": 3}]},
		{"_id": 7, "a": [{"b": [], "c": 2}, {"b": 2, "c": 3}]}, {"_id": 8, "a": [{"b": 3, "c": [2]}, {"b": 8, "c": [3]}]},
		{"_id": 9, "a": [{"b": [8], "c": 2}, {"b": [6], "c": 3}]}]`, []sc{
		{`{"a.c": 1, "a.b": 1, "_id": 1}`, `6,1,2,5,3,4,7,8,9`},
		{`{"a.c": 1, "a.b": -1, "_id": 1}`, `6,3,1,4,5,2,9,8,7`},
		{`{"a.c": -1, "a.b": 1, "_id": 1}`, `2,7,6,4,5,9,8,1,3`},
		{`{"a.c": -1, "a.b": -1, "_id": 1}`, `2,8,5,9,4,6,7,3,1`},
		{`{"a.b": 1, "a": 1, "_id": 1}`, `7,1,2,5,6,8,4,3,9`},
		{`{"a.b": 1, "a": -1, "_id": 1}`, `7,1,5,2,8,6,3,4,9`},
		{`{"a.b": -1, "a": 1, "_id": 1}`, `3,8,9,5,6,4,1,2,7`},
		{`{"a.b": -1, "a": -1, "_id": 1}`, `3,9,8,5,1,4,6,2,7`},
		{`{"a.0.b": 1, "_id": 1}`, `7,1,2,5,8,3,4,6,9`},
		{`{"a.0.b": 1, "_id": -1}`, `7,1,5,2,8,4,3,6,9`},
		{`{"a.0.b": -1, "_id": 1}`, `9,3,6,1,4,5,8,2,7`},
		{`{"a.0.b": -1, "_id": -1}`, `9,3,6,4,1,8,5,2,7`},
	})
	runAll(`[{"_id": 1, "a": {"b": 1}, "c": [{"d": [4, 1]}, {"d": [1, 5]}]}, {"_id": 2, "a": [{"b": [1, 3]}, {"b": [2, 4]}], "c": {"d": 2}},
		{"_id": 3, "a": {"b": 1}, "c": [{"d": [6, 4]}, {"d": [9, 7]}]}, {"_id": 4, "a": [{"b": [2]}, {"b": [3, 2]}], "c": {"d": 4}},
		{"_id": 5, "a": {"b": 1}, "c": [{"d": [2, 3]}, {"d": [7, 6]}]}, {"_id": 6, "a": [{"b": []}, {"b": 3}], "c": {"d": 4}},
		{"_id": 7, "a": {"b": 2}, "c": [{"d": []}, {"d": 2}]}, {"_id": 8, "a": [{"b": [2]}, {"b": [3]}], "c": {"d": 3}},
		{"_id": 9, "a": {"b": 3}, "c": [{"d": [8]}, {"d": [6]}]}]`, []sc{
		{`{"a.b": 1, "c.d": 1, "_id": 1}`, `6,1,2,5,3,7,8,4,9`},
		{`{"a.b": 1, "c.d": -1, "_id": 1}`, `6,3,5,1,2,4,8,7,9`},
		{`{"a.b": -1, "c.d": 1, "_id": 1}`, `2,8,4,6,9,7,1,5,3`},
		{`{"a.b": -1, "c.d": -1, "_id": 1}`, `2,9,4,6,8,7,3,5,1`},
	})
	runAll(`[{"_id": 1, "a": {"b": {"c": 2}}}, {"_id": 2, "a": {"b": {"c": []}}}, {"_id": 3, "a": [{"b": []}, {"b": {"c": []}}]},
		{"_id": 4, "a": [{"b": {"c": 1}}]}, {"_id": 5, "a": {"b": [{"c": 3}, {"d": 1}]}}, {"_id": 6, "a": {"b": [{"c": [5]}]}},
		{"_id": 7, "a": []}, {"_id": 8, "a": {"b": [{"c": [1, 3]}, {"c": [2, 5]}]}}, {"_id": 9, "a": [{"b": [{"c": []}, {"c": [1, 3]}]}]}]`, []sc{
		{`{"a.b.c": 1, "_id": 1}`, `2,3,9,5,7,4,8,1,6`},
		{`{"a.b.c": -1, "_id": 1}`, `6,8,5,9,1,4,3,7,2`},
	})
}

// jstests/core/query/sort/sort_array.js: the same answers from find and
// from an aggregation's $sort, with and without an index on the sorted
// paths (an array sorts by all its elements, whatever the filter
// matched).
func TestReviewQry28SortArray(t *testing.T) {
	t.Parallel()
	check := func(db *DB, filter, sort, hint, want string) {
		t.Helper()
		cmd := `{"find": "c", "filter": ` + filter + `, "sort": ` + sort
		if hint != "" {
			cmd += `, "hint": ` + hint
		}
		r := mustRun(t, db, "test", cmd+`}`)
		var ids []string
		for _, d := range firstBatch(t, r) {
			ids = append(ids, fmtValue(d[0].Value))
		}
		if got := strings.Join(ids, ","); got != want {
			t.Errorf("find %s sort %s hint %s: %s, want %s", filter, sort, hint, got, want)
		}
		r = mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$match": `+filter+`}, {"$sort": `+sort+`}], "cursor": {}}`)
		ids = nil
		for _, d := range firstBatch(t, r) {
			ids = append(ids, fmtValue(d[0].Value))
		}
		if got := strings.Join(ids, ","); got != want {
			t.Errorf("aggregate %s sort %s: %s, want %s", filter, sort, got, want)
		}
	}
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 0, "a": [3, 0, 1]}, {"_id": 1, "a": [8, 4, -1]}]`)
	check(db, `{"a": {"$gte": 2}}`, `{"a": 1}`, ``, `1,0`)
	db, _ = openMem(t)
	qry28Insert(t, db, `[{"_id": 0, "a": [3, 0, 1]}, {"_id": 1, "a": [0, 4, -1]}]`)
	check(db, `{"a": {"$gte": 2}}`, `{"a": -1}`, ``, `1,0`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	check(db, `{"a": {"$gte": 2}}`, `{"a": -1}`, `"a_1"`, `1,0`)
	check(db, `{}`, `{"a": -1}`, `"a_1"`, `1,0`)
	check(db, `{}`, `{"a": 1}`, `"a_1"`, `1,0`)

	db, _ = openMem(t)
	qry28Insert(t, db, `[{"_id": 0, "x": [{"y": [4, 0, 1], "z": 7}, {"y": 0, "z": 9}]}, {"_id": 1, "x": [{"y": 1, "z": 7}, {"y": 0, "z": [8, 6]}]}]`)
	check(db, `{}`, `{"x.y": 1, "x.z": -1}`, ``, `0,1`)
	check(db, `{}`, `{"x.y": -1, "x.z": 1}`, ``, `0,1`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"x.y": 1, "x.z": -1}, "name": "xy_xz"}]}`)
	check(db, `{}`, `{"x.y": 1, "x.z": -1}`, `"xy_xz"`, `0,1`)
	check(db, `{}`, `{"x.y": -1, "x.z": 1}`, `"xy_xz"`, `0,1`)
	check(db, `{"x.y": 1}`, `{"x.z": -1}`, `"xy_xz"`, `0,1`)
	check(db, `{"x.y": 1}`, `{"x.y": -1}`, `"xy_xz"`, `0,1`)
	check(db, `{"x.y": 1, "x.z": 1}`, `{"x.y": -1, "x.z": -1}`, `"xy_xz"`, ``)

	db, _ = openMem(t)
	qry28Insert(t, db, `[{"_id": 0, "a": 1, "b": {"c": 1}, "d": [{"e": {"f": 1, "g": [6, 5, 4]}}, {"e": {"g": [3, 2, 1]}}]},
		{"_id": 1, "a": 2, "b": {"c": 2}, "d": [{"e": {"f": 2, "g": [5, 4, 3]}}, {"e": {"g": [2, 1, 0]}}]}]`)
	check(db, `{}`, `{"d.e.g": 1}`, ``, `1,0`)

	db, _ = openMem(t)
	qry28Insert(t, db, `[{"_id": 2, "a": [{"b": 1, "c": 2}, {"b": 2, "c": 3}]}, {"_id": 0, "a": [{"b": 2, "c": 0}, {"b": 1, "c": 4}]},
		{"_id": 1, "a": [{"b": 1, "c": 5}, {"b": 2, "c": 1}]}]`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a.b": 1, "a.c": 1}, "name": "ab_ac"}]}`)
	check(db, `{"a.b": 1}`, `{"a.c": 1}`, `"ab_ac"`, `0,1,2`)

	db, _ = openMem(t)
	qry28Insert(t, db, `[{"_id": 0, "a": [{"x": 2}, {"x": 3}]}, {"_id": 1, "a": [{"x": 1}, {"x": 4}]}, {"_id": 2, "a": [{"x": 3}, {"x": 4}]}]`)
	check(db, `{}`, `{"a.x": 1}`, ``, `1,0,2`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a.x": 1}, "name": "ax"}]}`)
	check(db, `{}`, `{"a.x": 1}`, `"ax"`, `1,0,2`)
	check(db, `{}`, `{"a.x": -1, "_id": 1}`, `"ax"`, `1,2,0`)
}

// jstests/core/query/elemmatch/elemmatch_projection.js: the first
// element the $elemMatch matches, in inclusion and exclusion
// projections, a field that is not an array left out.
func TestReviewQry28ElemMatchProjection(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ proj, doc, want string }{
		{`{"x": {"$elemMatch": {"a": -6}}}`, `{"x": [{"a": 1, "b": 4}, {"a": -6, "c": 3}]}`, `{"x": [{"a": -6, "c": 3}]}`},
		{`{"x": {"$elemMatch": {"a": -6, "c": 3}}}`, `{"x": [{"a": 1, "b": 4}, {"a": -6, "c": 3}]}`, `{"x": [{"a": -6, "c": 3}]}`},
		{`{"x": {"$elemMatch": {"a": {"$gt": 0, "$lt": 2}}}}`, `{"x": [{"a": 1, "b": 1}, {"a": 1, "b": 2}]}`, `{"x": [{"a": 1, "b": 1}]}`},
		{`{"x": {"$elemMatch": {"$in": [100, 4, -123]}}}`, `{"x": [1, 2, 3, 4, 5]}`, `{"x": [4]}`},
		{`{"x": {"$elemMatch": {"$nin": [4, 5, 6]}}}`, `{"x": [1, 2, 3, 4, 5]}`, `{"x": [1]}`},
		{`{"x": {"$elemMatch": {"$all": [1]}}}`, `{"x": [1, 2, 3, 4, 5]}`, `{"x": [1]}`},
		{`{"x": {"$elemMatch": {}}}`, `{"x": ["string", 123, [1, 2, 3], {"a": 1}]}`, `{"x": [[1, 2, 3]]}`},
		{`{"x": {"$elemMatch": {}}}`, `{"x": ["string", 123, {"a": 1}]}`, `{"x": [{"a": 1}]}`},
		{`{"x": {"$elemMatch": {"$elemMatch": {"$gt": 5, "$lt": 7}}}}`, `{"x": [[1, 2, 3], [4, 5, 6], [7, 8, 9]]}`, `{"x": [[4, 5, 6]]}`},
		{`{"x": {"$elemMatch": {"a": {"$ne": 1}}}}`, `{"x": [{"a": 1, "b": 2}, {"a": 2, "c": 3}, {"a": 1, "d": 5}]}`, `{"x": [{"a": 2, "c": 3}]}`},
		{`{"x": {"$elemMatch": {"d": {"$exists": true}}}}`, `{"x": [{"a": 1, "b": 2}, {"a": 2, "c": 3}, {"a": 1, "d": 5}], "y": [1]}`, `{"x": [{"a": 1, "d": 5}]}`},
		{`{"_id": 0, "x": {"$elemMatch": {"a": 1}}, "y": {"$elemMatch": {"c": 3}}}`, `{"x": [{"a": 1, "b": 2}, {"a": 3, "b": 4}], "y": [{"c": 1, "d": 2}, {"c": 3, "d": 4}]}`, `{"x": [{"a": 1, "b": 2}], "y": [{"c": 3, "d": 4}]}`},
		{`{"x": {"$elemMatch": {"$gt": 2, "$lt": 4}}}`, `{"x": [1, 2, 4, 3, 5]}`, `{"x": [3]}`},
		{`{"x": {"$elemMatch": {"$or": [{"a": {"$eq": 4}}, {"$and": [{"a": {"$mod": [12, 0]}}, {"a": {"$mod": [15, 0]}}]}]}}}`, `{"x": [{"a": 1}, {"a": 180}, {"a": 4}]}`, `{"x": [{"a": 180}]}`},
		{`{"x": {"$elemMatch": {"$id": "id0"}}}`, `{"x": [{"$ref": "o", "$id": "id0"}, {"$ref": "o", "$id": "id1"}]}`, `{"x": [{"$ref": "o", "$id": "id0"}]}`},
		{`{"x": {"$elemMatch": {"$gt": 2}}}`, `{"x": {"a": 123}, "d": 456}`, `{}`},
		{`{"x": {"$elemMatch": {"$gt": 2}}, "d": 1}`, `{"x": {"a": 123}, "d": 456}`, `{"d": 456}`},
		{`{"x": {"$elemMatch": {"$gt": 2}}, "d": 0}`, `{"x": {"a": 123}, "d": 456}`, `{}`},
		{`{"x": {"$elemMatch": {"$gt": 2}}, "d": 0}`, `{"x": [1, 5], "d": 456, "e": 1}`, `{"x": [5], "e": 1}`},
		{`{"x": {"$elemMatch": {"$or": [{}, {}]}}}`, `{"x": ["string", 123, {"b": 123}]}`, `{"x": [{"b": 123}]}`},
		{`{"x": {"$elemMatch": {"$lt": 0}}}`, `{"x": [1, 2, 3]}`, `{}`},
	} {
		if got := qry28Proj(t, `{}`, c.proj, c.doc); got != fmtValue(ejson(t, c.want)) {
			t.Errorf("projection %s on %s: %s, want %s", c.proj, c.doc, got, c.want)
		}
	}
}

// jstests/core/query/elemmatch/elemmatch_value.js.
func TestReviewQry28ElemMatchValue(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": 5}, {"_id": 2, "a": [5]}, {"_id": 3, "a": [3, 7]}, {"_id": 4, "a": [[5]]},
		{"_id": 5, "a": [[3, 7]]}, {"_id": 6, "a": [[[5]]]}, {"_id": 7, "a": [[[3, 7]]]}, {"_id": 8, "a": {"b": 5}},
		{"_id": 9, "a": {"b": [5]}}, {"_id": 10, "a": {"b": [3, 7]}}, {"_id": 11, "a": [{"b": 5}]},
		{"_id": 12, "a": [{"b": 3}, {"b": 7}]}, {"_id": 13, "a": [{"b": [5]}]}, {"_id": 14, "a": [{"b": [3, 7]}]},
		{"_id": 15, "a": [[{"b": 5}]]}, {"_id": 16, "a": [[{"b": 3}, {"b": 7}]]}, {"_id": 17, "a": [[{"b": [5]}]]},
		{"_id": 18, "a": [[{"b": [3, 7]}]]}]`)
	cases := []qry28Case{
		{`{"a": {"$elemMatch": {"$lt": 6, "$gt": 4}}}`, `2`},
		{`{"a.b": {"$elemMatch": {"$lt": 6, "$gt": 4}}}`, `9,13`},
		{`{"a": {"$elemMatch": {"$elemMatch": {"$lt": 6, "$gt": 4}}}}`, `4`},
		{`{"a": {"$elemMatch": {"$type": "number"}}}`, `2,3`},
		{`{"a": {"$elemMatch": {"$type": "array"}}}`, `4,5,6,7,15,16,17,18`},
		{`{"a": {"$elemMatch": {"b": {"$lt": 6, "$gt": 4}}}}`, `11,13,14`},
		{`{"a": {"$elemMatch": {"b": {"$elemMatch": {"$lt": 6, "$gt": 4}}}}}`, `13`},
		{`{"a": {"$elemMatch": {"$elemMatch": {"b": {"$lt": 6, "$gt": 4}}}}}`, `15,17,18`},
	}
	qry28Run(t, db, cases)
	qry28RunIndexed(t, db, cases)
}

// jstests/core/query/elemmatch/elemmatch_ne.js: a $ne inside an
// $elemMatch through a compound multikey index returns one document.
func TestReviewQry28ElemMatchNe(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"arr.a": 1, "c": 1, "d": 1}, "name": "acd"}]}`)
	docs := []string{`{"_id": 0, "arr": [{"a": 1}, {"a": 2}], "c": 4, "d": 5, "a": 1}`}
	for i := 1; i <= 100; i++ {
		docs = append(docs, `{"_id": `+fmtValue(int32(i))+`, "arr": [{"a": 99}], "c": 99, "d": 99}`)
	}
	qry28Insert(t, db, `[`+strings.Join(docs, ",")+`]`)
	if got := qry28IDs(t, db, `{"arr": {"$elemMatch": {"a": {"$ne": 1}}}, "$or": [{"c": 4, "d": 5}, {"c": 6, "d": 7}]}`); got != "0" {
		t.Errorf("$elemMatch $ne with $or: _ids %q, want 0", got)
	}
}

// jstests/core/query/mod/mod.js and mod_overflow.js.
func TestReviewQry28ModJstests(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": 4000000000}, {"_id": 2, "a": 15000000000}, {"_id": 3, "a": -4000000000},
		{"_id": 4, "a": -15000000000}, {"_id": 5, "a": 4000000000.12345}, {"_id": 6, "a": 15000000000.12345},
		{"_id": 7, "a": -4000000000.12345}, {"_id": 8, "a": -15000000000.12345},
		{"_id": 9, "a": {"$numberDecimal": "4000000000.12345"}}, {"_id": 10, "a": {"$numberDecimal": "15000000000.12345"}},
		{"_id": 11, "a": {"$numberDecimal": "-4000000000.12345"}}, {"_id": 12, "a": {"$numberDecimal": "-15000000000.12345"}}]`)
	qry28Run(t, db, []qry28Case{
		{`{"a": {"$mod": [4000000000, 0]}}`, `1,3,5,7,9,11`},
		{`{"a": {"$mod": [-4000000000, 0]}}`, `1,3,5,7,9,11`},
		{`{"a": {"$mod": [10000000000, 5000000000]}}`, `2,6,10`},
		{`{"a": {"$mod": [10000000000, -5000000000]}}`, `4,8,12`},
		{`{"a": {"$mod": [-10000000000, 5000000000]}}`, `2,6,10`},
		{`{"a": {"$mod": [-10000000000, -5000000000]}}`, `4,8,12`},
	})
	db, _ = openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "str": "abc123", "a": 0}, {"_id": 2, "str": "xyz123", "a": 5}, {"_id": 3, "str": "ijk123", "a": 12},
		{"_id": 4, "s": "array", "a": [0, 7]}, {"_id": 5, "s": "array", "a": [1, 7]}, {"_id": 6, "s": "array", "a": [-5]},
		{"_id": 7, "arr": [1, [2, 3], [[4]]]}, {"_id": 8, "arr": [{"b": [1, 2, 3]}, {"b": [5]}]},
		{"_id": 9, "arr": [{"b": [-1]}, {"b": [5]}]}, {"_id": 10, "arr": "string"},
		{"_id": 11, "c": {"$numberDouble": "NaN"}}, {"_id": 12, "c": {"$numberDouble": "Infinity"}}]`)
	for _, c := range []struct {
		filter string
		n      int
	}{
		{`{"a": {"$mod": [-10, -5]}}`, 1}, {`{"a": {"$mod": [4, -1]}}`, 1}, {`{"a": {"$mod": [5, 0]}}`, 4},
		{`{"a": {"$mod": [12, 0]}}`, 3}, {`{"a": {"$mod": [12, 1]}}`, 1},
		{`{"arr": {"$mod": [1, 0]}}`, 1}, {`{"arr": {"$mod": [4, 0]}}`, 0}, {`{"arr.b": {"$mod": [3, 0]}}`, 1},
		{`{"arr.b": {"$mod": [5, 0]}}`, 2}, {`{"arr.b.c": {"$mod": [5, 0]}}`, 0},
		{`{"a": {"$mod": [1, {"$numberLong": "0"}]}}`, 6},
		{`{"a": {"$mod": [{"$numberLong": "5"}, {"$numberDecimal": "2.1"}]}}`, 3},
		{`{"a": {"$mod": [{"$numberDecimal": "5.001"}, {"$numberDecimal": "2.1"}]}}`, 3},
		{`{"a": {"$mod": [7, 1]}}`, 1},
		{`{"str": {"$mod": [10, 1]}}`, 0}, {`{"noField": {"$mod": [10, 1]}}`, 0},
		{`{"c": {"$mod": [11, 10.0]}}`, 0}, {`{"c": {"$mod": [-12, 0]}}`, 0},
	} {
		if n := qry28Count(t, db, c.filter); n != c.n {
			t.Errorf("find %s: %d documents, want %d", c.filter, n, c.n)
		}
	}
	for _, f := range []string{`[0, 1]`, `[0, 0]`, `[{"$numberDecimal": "0.001"}, {"$numberDecimal": "1.001"}]`, `[1, 0, 0]`,
		`[{"$numberDecimal": "0.1"}]`, `[{"$numberDecimal": "0"}, {"$numberDecimal": "0"}]`, `[10]`, `["a", 0]`, `["a", "b"]`} {
		_, err := run(t, db, "test", `{"find": "c", "filter": {"a": {"$mod": `+f+`}}}`)
		checkCode(t, "$mod "+f, err, document.CodeBadValue, "")
	}

	db, _ = openMem(t)
	qry28Insert(t, db, `[{"_id": 0, "val": {"$numberLong": "-9223372036854775808"}}, {"_id": 1, "val": -2147483648}]`)
	for _, d := range []string{`-1.0`, `-1`, `{"$numberLong": "-1"}`, `{"$numberDecimal": "-1"}`} {
		if got := qry28IDs(t, db, `{"val": {"$mod": [`+d+`, 0]}}`); got != "0,1" {
			t.Errorf("$mod [%s, 0] at the smallest integers: _ids %q, want 0,1", d, got)
		}
	}
}

// jstests/core/query/type/type_array.js, without and with an index on a.
func TestReviewQry28TypeArray(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": [1, 2, 3]}, {"_id": 2, "a": [1, "foo", 3]}, {"_id": 3, "a": []}, {"_id": 4, "a": [[]]},
		{"_id": 5, "a": [[[]]]}, {"_id": 6, "a": 1}, {"_id": 7, "a": "foo"}]`)
	cases := []qry28Case{
		{`{"a": {"$type": "number"}}`, `1,2,6`},
		{`{"a": {"$type": "string"}}`, `2,7`},
		{`{"a": {"$type": "array"}}`, `1,2,3,4,5`},
		{`{"a.0": {"$type": "array"}}`, `4,5`},
		{`{"a.0.0": {"$type": "array"}}`, `5`},
	}
	qry28Run(t, db, cases)
	qry28RunIndexed(t, db, cases)

	db, _ = openMem(t)
	qry28Insert(t, db, `[{"_id": 0, "a": 1.0}, {"_id": 1, "a": 1}, {"_id": 2, "a": {"$numberLong": "1"}}, {"_id": 3, "a": "str"},
		{"_id": 4, "a": []}, {"_id": 5, "a": [1, "str"]}, {"_id": 6}]`)
	for _, f := range []string{`{"a": {"$type": ["string", null]}}`, `{"a": {"$type": [{}, "string"]}}`} {
		if _, err := run(t, db, "test", `{"find": "c", "filter": `+f+`}`); err == nil {
			t.Errorf("find %s succeeded, want an error", f)
		}
	}
	cases = []qry28Case{
		{`{"a": {"$type": ["long", 2]}}`, `2,3,5`},
		{`{"a": {"$type": ["long", "array"]}}`, `2,4,5`},
		{`{"a": {"$type": ["long", "array", "long", "array"]}}`, `2,4,5`},
		{`{"a": {"$type": ["long", "array", 18, 4]}}`, `2,4,5`},
	}
	qry28Run(t, db, cases)
	qry28RunIndexed(t, db, cases)
}

// jstests/core/query/type/null_undefined.js's finds; {a: null} includes
// undefined in 7.0, so the $or matches what $eq null alone does.
func TestReviewQry28TypeNullUndefined(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 0, "a": 1}, {"_id": 1, "b": 1}, {"_id": 2, "a": null}, {"_id": 3, "a": {"$undefined": true}},
		{"_id": 4, "a": [1, 2, 3]}, {"_id": 5, "a": [1, null]}, {"_id": 6, "a": [null, {"$undefined": true}]},
		{"_id": 7, "a": [1, {"$undefined": true}]}, {"_id": 8, "a": [1, null, {"$undefined": true}]}]`)
	cases := []qry28Case{
		{`{"a": {"$type": "undefined"}}`, `3,6,7,8`},
		{`{"a": {"$type": ["null", "undefined"]}}`, `2,3,5,6,7,8`},
		{`{"$or": [{"a": {"$eq": null}}, {"a": {"$type": "undefined"}}]}`, `1,2,3,5,6,7,8`},
		{`{"a": {"$eq": null}}`, `1,2,3,5,6,7,8`},
		{`{"a": {"$ne": null}}`, `0,4`},
	}
	qry28Run(t, db, cases)
	qry28RunIndexed(t, db, cases)
	// A partial index on {a: null} holds the undefined documents too.
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "pa", "partialFilterExpression": {"a": {"$eq": null}}}]}`)
	r := mustRun(t, db, "test", `{"find": "c", "filter": {"a": null}, "sort": {"_id": 1}, "hint": "pa"}`)
	var ids []string
	for _, d := range firstBatch(t, r) {
		ids = append(ids, fmtValue(d[0].Value))
	}
	if got := strings.Join(ids, ","); got != "1,2,3,5,6,7,8" {
		t.Errorf("{a: null} through the partial index: _ids %q, want 1,2,3,5,6,7,8", got)
	}
}

// jstests/core/query/exists/exists8.js: $exists with array positions in
// the path.
func TestReviewQry28Exists8(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		doc  string
		want map[string]int
	}{
		{`{"a": [1]}`, map[string]int{`{"a.0": {"$exists": true}}`: 1, `{"a.1": {"$exists": false}}`: 1, `{"a.0": {"$exists": false}}`: 0, `{"a.1": {"$exists": true}}`: 0}},
		{`{"a": [1, 2]}`, map[string]int{`{"a.0": {"$exists": true}}`: 1, `{"a.1": {"$exists": false}}`: 0, `{"a.1": {"$exists": true}}`: 1}},
		{`{"a": [{}]}`, map[string]int{`{"a.0": {"$exists": true}}`: 1, `{"a.1": {"$exists": false}}`: 1, `{"a.0": {"$exists": false}}`: 0}},
		{`{"a": [{"b": 2}, {"a": 1}]}`, map[string]int{`{"a.a": {"$exists": true}}`: 1, `{"a.1.a": {"$exists": true}}`: 1, `{"a.0.a": {"$exists": false}}`: 1}},
		{`{"a": [[1]]}`, map[string]int{`{"a.0": {"$exists": true}}`: 1, `{"a.0.0": {"$exists": true}}`: 1, `{"a.0.0": {"$exists": false}}`: 0,
			`{"a.0.0.0": {"$exists": true}}`: 0, `{"a.0.0.0": {"$exists": false}}`: 1}},
		{`{"a": [[[1]]]}`, map[string]int{`{"a.0.0.0": {"$exists": true}}`: 1}},
		{`{"a": [[{"b": 1}]]}`, map[string]int{`{"a.b": {"$exists": true}}`: 0, `{"a.b": {"$exists": false}}`: 1, `{"a.0.b": {"$exists": true}}`: 1, `{"a.0.b": {"$exists": false}}`: 0}},
		{`{"a": [[], [{"b": 1}]]}`, map[string]int{`{"a.0.b": {"$exists": true}}`: 0, `{"a.0.b": {"$exists": false}}`: 1, `{"a.1.b": {"$exists": true}}`: 1,
			`{"a.1.0.b": {"$exists": true}}`: 1, `{"a.1.1.b": {"$exists": true}}`: 0, `{"a.1.1.b": {"$exists": false}}`: 1}},
	} {
		db, _ := openMem(t)
		qry28Insert(t, db, `[`+c.doc+`]`)
		for f, n := range c.want {
			if got := qry28Count(t, db, f); got != n {
				t.Errorf("%s: find %s: %d, want %d", c.doc, f, got, n)
			}
		}
	}
}

// jstests/core/query/in/in_with_mixed_values.js: $in with regexes beside
// scalars, arrays and documents.
func TestReviewQry28InMixed(t *testing.T) {
	t.Parallel()
	re := func(p string) string { return `{"$regularExpression": {"pattern": "` + p + `", "options": ""}}` }
	run1 := func(docs string, cases map[string]int) {
		t.Helper()
		db, _ := openMem(t)
		qry28Insert(t, db, docs)
		for f, n := range cases {
			if got := qry28Count(t, db, f); got != n {
				t.Errorf("find %s: %d, want %d", f, got, n)
			}
		}
	}
	run1(`[{"x": 1}, {"x": 2}, {"x": 3}, {"x": "ab"}, {"x": "ac"}, {"x": "ad"}, {"x": `+re("^ab")+`}]`, map[string]int{
		`{"x": {"$in": [1, ` + re("^a") + `]}}`:                          4,
		`{"x": {"$in": [` + re("^a") + `, 1, 2, 3]}}`:                    6,
		`{"x": {"$in": [` + re("^ab") + `, 1, 2, 3]}}`:                   5,
		`{"x": {"$in": [` + re("^a") + `, 1, 2, ` + re("^ab") + `]}}`:    6,
		`{"x": {"$in": [` + re("^a") + `, 1, 2, 3, ` + re("^ab") + `]}}`: 7,
	})
	run1(`[{"x": 1}, {"x": 2}, {"x": 3}, {"x": "ab"}, {"x": "ac"}, {"x": "ad"}, {"x": [1]}, {"x": [1, 2]}, {"x": [1, "ab"]},
		{"x": ["ac", 2]}, {"x": {"y": 1}}, {"x": {"y": "ab"}}, {"x": {"y": [99, {"z": 1}]}}]`, map[string]int{
		`{"x": {"$in": [1, ` + re("^a") + `]}}`:                     8,
		`{"x": {"$in": [2, ` + re("^a") + `]}}`:                     7,
		`{"x": {"$in": [[1, 2], ` + re("^a") + `]}}`:                6,
		`{"x": {"$in": [` + re("^a") + `]}}`:                        5,
		`{"x.y": {"$in": [1, 2]}}`:                                  1,
		`{"x.y": {"$in": [1, ` + re("^a") + `]}}`:                   2,
		`{"x": {"$in": [{"y": 1}, ` + re("^z") + `]}}`:              1,
		`{"x": {"$in": [{"z": 1}, ` + re("^z") + `]}}`:              0,
		`{"x": {"$in": [{"y": 99}, ` + re("^z") + `]}}`:             0,
		`{"x.y": {"$in": [{"z": 10}, {"z": 1}, ` + re("^z") + `]}}`: 1,
	})
}

// $all with a nested array and with null, $size through an array of
// documents (all/all*.js, size/size*.js).
func TestReviewQry28AllSizeMore(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": [[1]]}, {"_id": 2, "a": [1]}, {"_id": 3}, {"_id": 4, "a": [null, 2]},
		{"_id": 5, "a": [{"b": [1]}, {"b": [1, 2]}]}, {"_id": 6, "a": [[1], 2]}]`)
	cases := []qry28Case{
		{`{"a": {"$all": [[1]]}}`, `1,2,6`},
		{`{"a": {"$all": [[1], 2]}}`, `6`},
		{`{"a": {"$all": [null]}}`, `3,4`},
		{`{"a.b": {"$size": 1}}`, `5`},
		{`{"a.b": {"$size": 2}}`, `5`},
		{`{"a.b": {"$all": [1, 2]}}`, `5`},
	}
	qry28Run(t, db, cases)
	qry28RunIndexed(t, db, cases)
}

// A null query with a projection of the indexed field only returns the
// fields as stored: undefined stays undefined, a missing field missing
// (null_query_semantics.js's projectToOnlyA, under 7.0's semantics).
func TestReviewQry28NullProjectedThroughIndex(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	qry28Insert(t, db, `[{"_id": 1, "a": null}, {"_id": 2}, {"_id": 3, "a": {"$undefined": true}}, {"_id": 4, "a": 1}]`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	for _, hint := range []string{`"a_1"`, `{"$natural": 1}`} {
		r := mustRun(t, db, "test", `{"find": "c", "filter": {"a": null}, "projection": {"_id": 0, "a": 1}, "hint": `+hint+`}`)
		var got []string
		for _, d := range firstBatch(t, r) {
			got = append(got, fmtValue(d))
		}
		slices.Sort(got)
		want := []string{fmtValue(ejson(t, `{"a": null}`)), fmtValue(ejson(t, `{}`)), fmtValue(ejson(t, `{"a": {"$undefined": true}}`))}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("{a: null} projected to a, hint %s: %v, want %v", hint, got, want)
		}
	}
}

// jstests/core/query/projection/projection_semantics.js: inclusions of
// dotted paths where the path only sometimes exists.
func TestReviewQry28ProjectionSemantics(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ proj, doc, want string }{
		{`{"a": 1, "_id": 0}`, `{"_id": 1, "a": "demo", "aWSuffix": "other"}`, `{"a": "demo"}`},
		{`{"a": 1, "_id": 0}`, `{"_id": 0, "b": "other"}`, `{}`},
		{`{"a.b": 1, "_id": 0}`, `{"_id": 2, "a": {"b": "demo", "_id": "extra"}}`, `{"a": {"b": "demo"}}`},
		{`{"a.b": 1, "_id": 0}`, `{"_id": 4, "a": [{"b": 1, "c": 1}, {"c": 2}], "x": "extra"}`, `{"a": [{"b": 1}, {}]}`},
		{`{"a.b": 1, "_id": 0}`, `{"_id": 2, "a": {}}`, `{"a": {}}`},
		{`{"a.b": 1, "_id": 0}`, `{"_id": 3, "a": "scalar"}`, `{}`},
		{`{"a.b": 1, "_id": 0}`, `{"_id": 4, "a": [], "x": "extra"}`, `{"a": []}`},
		{`{"a.b": 1, "_id": 0}`, `{"_id": 6, "a": ["scalar", "scalar"], "x": "extra"}`, `{"a": []}`},
		{`{"a.b": 1, "_id": 0}`, `{"_id": 7, "a": [null]}`, `{"a": []}`},
		{`{"a.b": 1, "_id": 0}`, `{"_id": 8, "a": ["scalar", {}, "scalar", {"c": 1}], "x": "extra"}`, `{"a": [{}, {}]}`},
		{`{"a.b": 1, "_id": 0}`, `{"_id": 9, "a": [[]]}`, `{"a": [[]]}`},
		{`{"a.b": 1, "_id": 0}`, `{"_id": 10, "a": [[1, 2, 3]]}`, `{"a": [[]]}`},
		{`{"a.b": 1, "_id": 0}`, `{"_id": 10, "a": [[1, {"b": 1}, {"b": 2, "c": 2}, "scalar"]]}`, `{"a": [[{"b": 1}, {"b": 2}]]}`},
		{`{"a.b": 1, "_id": 0}`, `{"_id": 11, "a": [[], [[], [], [1], [{"c": 1}]], {"b": 1}]}`, `{"a": [[], [[], [], [], [{}]], {"b": 1}]}`},
		{`{"a.b": 1, "a.c": 1, "_id": 0}`, `{"_id": 6, "a": [{"c": 1, "d": 2}, {"b": 3, "d": 4}]}`, `{"a": [{"c": 1}, {"b": 3}]}`},
		{`{"a.b": 1, "a.c": 1, "_id": 0}`, `{"_id": 8, "a": [{"b": 1, "c": 2}, "extra", {"b": 3, "c": 4}]}`, `{"a": [{"b": 1, "c": 2}, {"b": 3, "c": 4}]}`},
		{`{"a.b": 1, "a.c": 1, "_id": 0}`, `{"_id": 4, "a": {"d": "extra"}}`, `{"a": {}}`},
		{`{"a.b.c": 1, "_id": 0}`, `{"_id": 1, "a": [{"bPrime": [{"c": "x"}]}, {"b": [{"cPrime": "x", "d": 1}, {"cPrime": "x", "d": 2}]}, {"b": [{"c": 3, "d": 3}, {"cPrime": "x", "d": 4}, {"c": 5}]}, {"bPrime": {"s": 1}}]}`, `{"a": [{}, {"b": [{}, {}]}, {"b": [{"c": 3}, {}, {"c": 5}]}, {}]}`},
		{`{"a.b.c": 1, "_id": 0}`, `{"_id": 1, "a": null}`, `{}`},
		{`{"a.b.c": 1, "_id": 0}`, `{"_id": 1, "a": {"bPrime": {"c": 1}}}`, `{"a": {}}`},
		{`{"a.b.c": 1, "_id": 0}`, `{"_id": 1, "a": {"b": "scalar"}}`, `{"a": {}}`},
		{`{"a.b.c": 1, "_id": 0}`, `{"_id": 1, "a": {"b": {"x": 1, "y": 1}}}`, `{"a": {"b": {}}}`},
		{`{"a.b.c": 1, "_id": 0}`, `{"_id": 1, "a": [1, {"b": [[1, 2], [{}], 2]}, 2]}`, `{"a": [{"b": [[], [{}]]}]}`},
		{`{"a.b.c": 1, "_id": 0}`, `{"_id": 1, "a": [[1, 2], [{"b": [[1, 2], [{"c": [[1, 2], [{}], 2]}], 2]}], 2]}`, `{"a": [[], [{"b": [[], [{"c": [[1, 2], [{}], 2]}]]}]]}`},
		{`{"a.b.c": 1, "_id": 0}`, `{"_id": 1, "a": [["x", {"b": 1}, {"b": 2, "c": 2}, "x"], [[{"b": 1}]], [{"b": 1}, [{"b": 2}], [[{"b": [2]}]]]]}`, `{"a": [[{}, {}], [[{}]], [{}, [{}], [[{"b": []}]]]]}`},
		{`{"a.b.c": 1, "_id": 0}`, `{"_id": 1, "a": {"b": [1, {"c": "scalar"}, 2]}}`, `{"a": {"b": [{"c": "scalar"}]}}`},
		{`{"a.b": 0}`, `{"_id": 0, "a": ["scalar", {"b": 1, "c": 1, "d": 1}, {"b": 2, "c": 2}, {"b": 3}]}`, `{"a": ["scalar", {"c": 1, "d": 1}, {"c": 2}, {}]}`},
		{`{"a.b.c": 0}`, `{"_id": 0, "a": [[], [{"b": [[1, 2], {"c": 1, "d": 1}]}]]}`, `{"a": [[], [{"b": [[1, 2], {"d": 1}]}]]}`},
		{`{"a.b": "new value"}`, `{"_id": 0, "a": ["scalar", {"b": 1, "c": 1, "d": 1}, {"b": 2, "c": 2}, {"b": 3}]}`, `{"a": [{"b": "new value"}, {"b": "new value"}, {"b": "new value"}, {"b": "new value"}]}`},
		{`{"a.b.c": "new value"}`, `{"_id": 0, "a": [[], [{"b": [[1, 2], {"c": 1, "d": 1}]}]]}`, `{"a": [[], [{"b": [[{"c": "new value"}, {"c": "new value"}], {"c": "new value"}]}]]}`},
		{`{"m": {"h": 0, "t": 0}, "_id": 0}`, `{"_id": 0, "m": {"temp": 20, "p": 0.7, "h": 0.4, "t": 1}}`, `{"m": {"temp": 20, "p": 0.7}}`},
	} {
		got := qry28Proj(t, `{}`, c.proj, c.doc)
		if want := fmtValue(ejson(t, c.want)); got != want {
			t.Errorf("projection %s on %s: %s, want %s", c.proj, c.doc, got, want)
		}
	}
}
