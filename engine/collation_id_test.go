package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Collations used by the _id tests: the collection's default (en,
// strength 2: case-insensitive), another case-insensitive one (fr_CA,
// as MongoDB's clustered_collection_collation.js uses) and simple.
const (
	idDefault = `{"locale": "en", "strength": 2}`
	idOther   = `{"locale": "fr_CA", "strength": 2}`
	idSimple  = `{"locale": "simple"}`
)

// idStrings returns the _id of each document, formatted.
func idStrings(docs []bson.D) []string {
	out := []string{}
	for _, d := range docs {
		v, _ := get(d, "_id")
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// findIDs runs a find with filter and sort (JSON, "" for none) under
// the collation coll ("" for the collection's default) and returns the
// _ids found.
func findIDs(t *testing.T, db *DB, name, filter, sort, coll string) []string {
	t.Helper()
	cmd := fmt.Sprintf(`{"find": %q, "filter": %s`, name, filter)
	if sort != "" {
		cmd += `, "sort": ` + sort
	}
	if coll != "" {
		cmd += `, "collation": ` + coll
	}
	return idStrings(firstBatch(t, mustRun(t, db, "test", cmd+"}")))
}

// insertDup inserts doc and wants 11000 DuplicateKey.
func insertDup(t *testing.T, db *DB, name, doc string) {
	t.Helper()
	r := mustRun(t, db, "test", fmt.Sprintf(`{"insert": %q, "documents": [%s]}`, name, doc))
	if c := field(r, "writeErrors.0.code"); c != int32(document.CodeDuplicateKey) {
		t.Errorf("%s: insert %s: code %v, want 11000 (reply %v)", name, doc, c, r)
	}
}

// checkIDCollation runs the _id checks of a collection created with
// the default collation idDefault and holding {_id: "a", n: 1},
// {_id: "b", n: 1}, {_id: "C", n: 1}, {_id: 5}, {_id: {s: "x"}}:
// uniqueness, lookups by _id in each command, sorts, and a query of
// another collation answered right without the _id index's bounds.
func checkIDCollation(t *testing.T, db *DB, name string, deletes bool) {
	t.Helper()
	insertDup(t, db, name, `{"_id": "A"}`)
	insertDup(t, db, name, `{"_id": "c"}`)
	insertDup(t, db, name, `{"_id": {"s": "X"}}`)
	insertDup(t, db, name, `{"_id": 5.0}`)
	if got := findIDs(t, db, name, `{"_id": "A"}`, "", ""); !slices.Equal(got, []string{"a"}) {
		t.Errorf("%s: find _id A (default collation) = %v, want [a]", name, got)
	}
	if got := findIDs(t, db, name, `{"_id": "A"}`, "", idDefault); !slices.Equal(got, []string{"a"}) {
		t.Errorf("%s: find _id A (collation given) = %v, want [a]", name, got)
	}
	if got := findIDs(t, db, name, `{"_id": {"s": "X"}}`, "", ""); len(got) != 1 {
		t.Errorf("%s: find _id {s: X} = %v, want one", name, got)
	}
	if got := findIDs(t, db, name, `{"_id": "A"}`, "", idSimple); len(got) != 0 {
		t.Errorf("%s: find _id A (simple) = %v, want none", name, got)
	}
	if got := findIDs(t, db, name, `{"_id": "a"}`, "", idSimple); !slices.Equal(got, []string{"a"}) {
		t.Errorf("%s: find _id a (simple) = %v, want [a]", name, got)
	}
	if got := findIDs(t, db, name, `{"_id": "A"}`, "", idOther); !slices.Equal(got, []string{"a"}) {
		t.Errorf("%s: find _id A (fr_CA strength 2) = %v, want [a]", name, got)
	}
	if got := findIDs(t, db, name, `{"_id": {"$in": ["A", "c", 5]}}`, "", ""); len(got) != 3 {
		t.Errorf("%s: find _id $in [A c 5] = %v, want 3", name, got)
	}
	if got := findIDs(t, db, name, `{"_id": {"$gte": "B", "$lt": "D"}}`, `{"_id": 1}`, ""); !slices.Equal(got, []string{"b", "C"}) {
		t.Errorf("%s: find _id >= B sorted = %v, want [b C]", name, got)
	}
	if got := findIDs(t, db, name, `{"_id": {"$in": ["a", "b", "C"]}}`, `{"_id": 1}`, ""); !slices.Equal(got, []string{"a", "b", "C"}) {
		t.Errorf("%s: sort on _id (default collation) = %v, want [a b C]", name, got)
	}
	if got := findIDs(t, db, name, `{"_id": {"$in": ["a", "b", "C"]}}`, `{"_id": -1}`, idSimple); !slices.Equal(got, []string{"b", "a", "C"}) {
		t.Errorf("%s: sort on _id (simple) = %v, want [b a C]", name, got)
	}
	r := mustRun(t, db, "test", `{"aggregate": "`+name+`", "pipeline": [{"$match": {"_id": "C"}}, {"$count": "n"}], "cursor": {}}`)
	if got := firstBatch(t, r); len(got) != 1 || field(got[0], "n") != int32(1) {
		t.Errorf("%s: aggregate $match _id c = %v, want n 1", name, got)
	}
	// Two _ids equal under the collation in one batch: the second is
	// the duplicate.
	r = mustRun(t, db, "test", `{"insert": "`+name+`", "documents": [{"_id": "Zed"}, {"_id": "zED"}]}`)
	if n, c := field(r, "n"), field(r, "writeErrors.0.code"); n != int32(1) || c != int32(document.CodeDuplicateKey) {
		t.Errorf("%s: insert Zed, zED = %v, want one inserted and 11000", name, r)
	}
	if n := field(mustRun(t, db, "test", `{"count": "`+name+`", "query": {"_id": "B"}}`), "n"); n != int32(1) {
		t.Errorf("%s: count _id B = %v, want 1", name, n)
	}
	if n := field(mustRun(t, db, "test", `{"count": "`+name+`", "query": {"_id": "B"}, "collation": `+idSimple+`}`), "n"); n != int32(0) {
		t.Errorf("%s: count _id B (simple) = %v, want 0", name, n)
	}
	if v := field(mustRun(t, db, "test", `{"distinct": "`+name+`", "key": "n", "query": {"_id": {"$in": ["A", "B"]}}}`), "values").(bson.A); len(v) != 1 {
		t.Errorf("%s: distinct n for _id in [A B] = %v, want [1]", name, v)
	}
	r = mustRun(t, db, "test", `{"update": "`+name+`", "updates": [{"q": {"_id": "A"}, "u": {"$inc": {"n": 1}}}]}`)
	if n := field(r, "nModified"); n != int32(1) {
		t.Errorf("%s: update _id A nModified = %v, want 1 (%v)", name, n, r)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "`+name+`", "query": {"_id": "B"}, "update": {"$inc": {"n": 1}}, "new": true}`)
	if id := field(r, "value._id"); id != "b" {
		t.Errorf("%s: findAndModify _id B = %v, want b", name, r)
	}
	// An upsert whose _id matches a stored one under the collation
	// updates it rather than inserting.
	r = mustRun(t, db, "test", `{"update": "`+name+`", "updates": [{"q": {"_id": "c"}, "u": {"$inc": {"n": 1}}, "upsert": true}]}`)
	if n, up := field(r, "n"), field(r, "upserted"); n != int32(1) || up != nil {
		t.Errorf("%s: upsert _id c = %v, want it to match C", name, r)
	}
	// Under the simple collation it finds nothing, so it inserts "c",
	// which the _id index refuses: C holds that key.
	r, err := run(t, db, "test", `{"update": "`+name+`", "updates": [{"q": {"_id": "c"}, "u": {"$set": {"n": 9}}, "upsert": true, "collation": `+idSimple+`}]}`)
	if err == nil && field(r, "writeErrors.0.code") != int32(document.CodeDuplicateKey) {
		t.Errorf("%s: simple upsert of _id c = %v, want 11000", name, r)
	}
	if deletes {
		r = mustRun(t, db, "test", `{"delete": "`+name+`", "deletes": [{"q": {"_id": "B"}, "limit": 1, "collation": `+idSimple+`}]}`)
		if n := field(r, "n"); n != int32(0) {
			t.Errorf("%s: delete _id B (simple) n = %v, want 0", name, n)
		}
		r = mustRun(t, db, "test", `{"delete": "`+name+`", "deletes": [{"q": {"_id": "B"}, "limit": 1}]}`)
		if n := field(r, "n"); n != int32(1) {
			t.Errorf("%s: delete _id B n = %v, want 1", name, n)
		}
		mustRun(t, db, "test", `{"insert": "`+name+`", "documents": [{"_id": "B", "n": 1}]}`)
		insertDup(t, db, name, `{"_id": "b"}`)
	}
	mustValidate(t, db, "test", name)
}

// TestIDIndexFollowsCollation: a collection created with a default
// collation has its _id index in that collation, as MongoDB's: _id
// uniqueness, lookups by _id in every command, upserts, sorts and
// listIndexes follow it (jstests/core/clustered/
// clustered_collection_collation.js, jstests/core/collation.js), in an
// ordinary, a clustered and a capped collection, and after a reopen.
func TestIDIndexFollowsCollation(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"create": "plain", "collation": `+idDefault+`}`)
	mustRun(t, db, "test", `{"create": "clus", "clusteredIndex": {"key": {"_id": 1}, "unique": true}, "collation": `+idDefault+`}`)
	mustRun(t, db, "test", `{"create": "cap", "capped": true, "size": 100000, "collation": `+idDefault+`}`)
	docs := `[{"_id": "a", "n": 1}, {"_id": "b", "n": 1}, {"_id": "C", "n": 1}, {"_id": 5}, {"_id": {"s": "x"}}]`
	for _, name := range []string{"plain", "clus", "cap"} {
		r := mustRun(t, db, "test", `{"insert": "`+name+`", "documents": `+docs+`}`)
		if n := field(r, "n"); n != int32(5) {
			t.Fatalf("%s: insert = %v", name, r)
		}
	}
	// listIndexes shows the _id index (the clustered index) with the
	// collection's collation, listCollections's idIndex too.
	for _, name := range []string{"plain", "clus", "cap"} {
		ixs := firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "`+name+`"}`))
		if loc := field(ixs[0], "collation.locale"); loc != "en" || field(ixs[0], "collation.strength") != int32(2) {
			t.Errorf("%s: listIndexes _id entry = %v, want the en/2 collation", name, ixs[0])
		}
	}
	lc := firstBatch(t, mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "plain"}}`))
	if loc := field(lc[0], "idIndex.collation.locale"); loc != "en" {
		t.Errorf("listCollections idIndex = %v, want the en collation", field(lc[0], "idIndex"))
	}
	// A lookup by a string _id under the collection's collation uses the
	// _id index; under another collation it cannot (its keys are not the
	// query's) and scans.
	if ix := winningIndex(mustRun(t, db, "test", `{"explain": {"find": "plain", "filter": {"_id": "A"}}}`)); ix != "_id_" {
		t.Errorf("explain _id A (default) index = %q, want _id_", ix)
	}
	if ix := winningIndex(mustRun(t, db, "test", `{"explain": {"find": "plain", "filter": {"_id": "A"}, "collation": `+idSimple+`}}`)); ix != "" {
		t.Errorf("explain _id A (simple) index = %q, want a collection scan", ix)
	}
	if ix := winningIndex(mustRun(t, db, "test", `{"explain": {"find": "plain", "filter": {"_id": 5}, "collation": `+idOther+`}}`)); ix != "_id_" {
		t.Errorf("explain _id 5 (other collation) index = %q, want _id_ (numbers are the same under every collation)", ix)
	}
	checkIDCollation(t, db, "plain", true)
	checkIDCollation(t, db, "clus", true)
	checkIDCollation(t, db, "cap", false)

	db = reopen(t, db, dir, clk)
	for _, name := range []string{"plain", "clus", "cap"} {
		insertDup(t, db, name, `{"_id": "A"}`)
		if got := findIDs(t, db, name, `{"_id": "A"}`, "", ""); !slices.Equal(got, []string{"a"}) {
			t.Errorf("%s after reopen: find _id A = %v, want [a]", name, got)
		}
		mustValidate(t, db, "test", name)
	}
}

// TestIDIndexCollationSpec: createIndexes of the _id index takes the
// collection's collation when given none and refuses another one with
// MongoDB's 2 BadValue; a collection without a default keeps a simple
// _id index.
func TestIDIndexCollationSpec(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	mustRun(t, db, "test", `{"create": "c", "collation": `+idDefault+`}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"_id": 1}, "name": "_id_"}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"_id": 1}, "name": "_id_", "collation": `+idDefault+`}]}`)
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"_id": 1}, "name": "_id_", "collation": `+idSimple+`}]}`,
		document.CodeBadValue, "The _id index must have the same collation as the collection")
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"_id": 1}, "name": "_id_", "collation": `+idOther+`}]}`,
		document.CodeBadValue, "The _id index must have the same collation as the collection")
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"_id": -1}, "name": "_id_-1"}]}`,
		document.CodeBadValue, "for an _id index must be {_id: 1}")
	// create's idIndex option: its collation must be the collection's.
	mustRun(t, db, "test", `{"create": "i1", "collation": `+idDefault+`, "idIndex": {"key": {"_id": 1}, "name": "_id_", "collation": `+idDefault+`}}`)
	wantCode(t, db, "test", `{"create": "i2", "collation": `+idDefault+`, "idIndex": {"key": {"_id": 1}, "name": "_id_", "collation": `+idSimple+`}}`,
		document.CodeBadValue, "The _id index must have the same collation as the collection")
	wantCode(t, db, "test", `{"create": "i3", "idIndex": {"key": {"_id": 1}, "name": "_id_", "collation": `+idDefault+`}}`,
		document.CodeBadValue, "The _id index must have the same collation as the collection")
	mustRun(t, db, "test", `{"create": "s"}`)
	wantCode(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"_id": 1}, "name": "_id_", "collation": `+idDefault+`}]}`,
		document.CodeBadValue, "collection collation: { locale: \"simple\" }")
	mustRun(t, db, "test", `{"insert": "s", "documents": [{"_id": "a"}, {"_id": "A"}]}`)
	if n := count(t, db, "test", "s"); n != 2 {
		t.Errorf("simple collection holds %d, want 2 (a and A)", n)
	}
	if ixs := firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "s"}`)); field(ixs[0], "collation") != nil {
		t.Errorf("simple collection's _id index = %v, want no collation", ixs[0])
	}
}

// TestIDIndexSimpleInOlderCatalog: a collection whose catalog entry was
// written before the _id index followed the default collation (its _id
// index has none) keeps simple _id keys after a reopen: "a" and "A"
// are two documents, and a lookup under the default collation still
// finds both (by scanning, the _id index's keys not being the query's).
func TestIDIndexSimpleInOlderCatalog(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"create": "old", "collation": `+idDefault+`}`)
	c := db.lookup("test", "old")
	m := c.m().Clone()
	m.Indexes[0].Extra = nil // as an entry written before the rule
	if err := db.store.Update(func(txn *lsm.Txn) error { return putMeta(txn, m) }); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, db, dir, clk)
	mustRun(t, db, "test", `{"insert": "old", "documents": [{"_id": "a", "n": 1}, {"_id": "A", "n": 2}]}`)
	insertDup(t, db, "old", `{"_id": "a"}`)
	if got := findIDs(t, db, "old", `{"_id": "a"}`, `{"n": 1}`, ""); !slices.Equal(got, []string{"a", "A"}) {
		t.Errorf("find _id a (default collation) = %v, want [a A]", got)
	}
	if got := findIDs(t, db, "old", `{"_id": "A"}`, "", idSimple); !slices.Equal(got, []string{"A"}) {
		t.Errorf("find _id A (simple) = %v, want [A]", got)
	}
	if ixs := firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "old"}`)); field(ixs[0], "collation") != nil {
		t.Errorf("older collection's _id index = %v, want no collation", ixs[0])
	}
	mustValidate(t, db, "test", "old")
}
