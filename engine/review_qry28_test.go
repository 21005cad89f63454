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

var _ = document.CodeBadValue

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
