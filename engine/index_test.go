package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// explainPlan returns the winning plan's stages (outermost first), the
// IXSCAN's index name ("" for none) and its isMultiKey flag.
func explainPlan(t *testing.T, db *DB, dbName, findJSON string) (stages []string, ix string, multikey bool) {
	t.Helper()
	r := mustRun(t, db, dbName, `{"explain": `+findJSON+`, "verbosity": "queryPlanner"}`)
	st, _ := field(r, "queryPlanner.winningPlan").(bson.D)
	for st != nil {
		s, _ := field(st, "stage").(string)
		stages = append(stages, s)
		if s == "IXSCAN" {
			ix, _ = field(st, "indexName").(string)
			multikey, _ = field(st, "isMultiKey").(bool)
		}
		st, _ = field(st, "inputStage").(bson.D)
	}
	return stages, ix, multikey
}

// keysPerIndex returns validate's key count of each index.
func keysPerIndex(t *testing.T, db *DB, dbName, coll string) map[string]int64 {
	t.Helper()
	r, err := db.Validate(context.Background(), dbName, coll)
	if err != nil || !r.Valid() {
		t.Fatalf("validate %s: %v %v", coll, err, r)
	}
	return r.KeysPerIndex
}

func indexNames(t *testing.T, db *DB, dbName, coll string) string {
	t.Helper()
	ixs, err := db.Database(dbName).Collection(coll).ListIndexes(context.Background())
	if err != nil {
		t.Fatalf("listIndexes: %v", err)
	}
	var names []string
	for _, ix := range ixs {
		names = append(names, field(ix, "name").(string))
	}
	return strings.Join(names, ",")
}

// Every collection has a unique _id index, however it was created,
// listed first, and it cannot be dropped.
func TestIDIndexOnEveryCollection(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "explicit"}`)
	mustRun(t, db, "test", `{"insert": "byInsert", "documents": [{"_id": 1}]}`)
	mustRun(t, db, "test", `{"createIndexes": "byIndex", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	mustRun(t, db, "test", `{"update": "byUpsert", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 1}}, "upsert": true}]}`)
	for _, c := range []string{"explicit", "byInsert", "byIndex", "byUpsert"} {
		r := mustRun(t, db, "test", `{"listIndexes": "`+c+`"}`)
		_, b := checkCursorShape(t, c, field(r, "cursor"), "firstBatch")
		first := b[0].(bson.D)
		if field(first, "name") != "_id_" || !document.Equal(field(first, "key"), bson.D{{Key: "_id", Value: 1}}) {
			t.Errorf("%s: first index %v", c, first)
		}
		mustRun(t, db, "test", `{"insert": "`+c+`", "documents": [{"_id": 2}]}`)
		r = mustRun(t, db, "test", `{"insert": "`+c+`", "documents": [{"_id": 2.0}]}`)
		if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(we[0].(bson.D), "code") != int32(11000) {
			t.Errorf("%s: duplicate _id 2.0 after 2: %v", c, r)
		}
		wantCode(t, db, "test", `{"dropIndexes": "`+c+`", "index": "_id_"}`, document.CodeInvalidOptions, "")
		mustRun(t, db, "test", `{"dropIndexes": "`+c+`", "index": "*"}`)
		if got := indexNames(t, db, "test", c); got != "_id_" {
			t.Errorf("%s after dropIndexes *: %s", c, got)
		}
	}
	// createCollectionAutomatically is reported.
	r := mustRun(t, db, "test", `{"createIndexes": "fresh", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	if field(r, "createdCollectionAutomatically") != true || field(r, "numIndexesBefore") != int32(1) || field(r, "numIndexesAfter") != int32(2) {
		t.Fatalf("createIndexes on a new collection: %v", r)
	}
	r = mustRun(t, db, "test", `{"createIndexes": "fresh", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	if field(r, "note") != "all indexes already exist" || field(r, "numIndexesAfter") != int32(2) {
		t.Fatalf("createIndexes again: %v", r)
	}
}

// Indexes built over existing documents and maintained by every
// insert, update and delete: validate after each step, key counts
// exact, for single, compound, descending, multikey, sparse, partial
// and hidden indexes.
func TestIndexMaintenance(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{
		`{"_id": 1, "a": 1, "b": "x", "t": [1, 2, 2]}`,
		`{"_id": 2, "a": 2, "t": []}`,
		`{"_id": 3, "b": "y", "t": 5}`,
		`{"_id": 4, "a": {"n": [1, {"m": 2}]}}`,
	})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"a": 1}, "name": "a"},
		{"key": {"a": -1, "b": 1}, "name": "ab"},
		{"key": {"t": 1}, "name": "t"},
		{"key": {"t": -1, "a": 1}, "name": "ta"},
		{"key": {"a.n.m": 1}, "name": "anm"},
		{"key": {"b": 1}, "name": "bs", "sparse": true},
		{"key": {"a": 1}, "name": "ap", "partialFilterExpression": {"a": {"$gte": 2}}},
		{"key": {"b": -1}, "name": "bh", "hidden": true}]}`)
	// anm: null for documents 1 to 3; document 4's n holds 1 (null: not
	// a document) and {m: 2} (2), as mongod keys it.
	want := map[string]int64{"_id_": 4, "a": 4, "ab": 4, "t": 5, "ta": 5, "anm": 5, "bs": 2, "ap": 1, "bh": 4}
	check := func(step string) {
		t.Helper()
		got := keysPerIndex(t, db, "test", "c")
		for k, n := range want {
			if n == 0 {
				delete(want, k) // validate lists only indexes with keys
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: keysPerIndex %v, want %v", step, got, want)
		}
	}
	check("build")
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 5, "a": 7, "b": "z", "t": [3, 4]}]}`)
	for k, d := range map[string]int64{"_id_": 1, "a": 1, "ab": 1, "t": 2, "ta": 2, "anm": 1, "bs": 1, "ap": 1, "bh": 1} {
		want[k] += d
	}
	check("insert")
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 5}, "u": {"$unset": {"b": 1}, "$set": {"a": 0}, "$push": {"t": 9}}}]}`)
	want["bs"]--
	want["ap"]--
	want["t"]++
	want["ta"]++
	check("update")
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"x": 1}}]}`)
	want["bs"]--
	want["t"] -= 1 // [1, 2, 2] had two keys; a missing t has one (null)
	want["ta"] -= 1
	check("replace")
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": {"$in": [2, 5]}}, "limit": 0}]}`)
	for k, d := range map[string]int64{"_id_": 2, "a": 2, "ab": 2, "t": 1 + 3, "ta": 1 + 3, "anm": 2, "bs": 0, "ap": 1, "bh": 2} {
		want[k] -= d
	}
	check("delete")
	// Multikey flags: t is multikey, a is not; explain reports it.
	if _, ix, mk := explainPlan(t, db, "test", `{"find": "c", "filter": {"t": 5}, "hint": "t"}`); ix != "t" || !mk {
		t.Fatalf("t isMultiKey = %v", mk)
	}
	if _, ix, mk := explainPlan(t, db, "test", `{"find": "c", "filter": {"a": 5}, "hint": "a"}`); ix != "a" || mk {
		t.Fatalf("a isMultiKey = %v", mk)
	}
	if _, _, mk := explainPlan(t, db, "test", `{"find": "c", "filter": {"a.n.m": 2}, "hint": "anm"}`); !mk {
		t.Fatalf("anm should be multikey (a.n is an array)")
	}
	// An index that becomes multikey through an update says so.
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 3}, "u": {"$set": {"a": [8, 9]}}}]}`)
	if _, _, mk := explainPlan(t, db, "test", `{"find": "c", "filter": {"a": 8}, "hint": "a"}`); !mk {
		t.Fatalf("a did not become multikey")
	}
	if got := idsOf(t, findAll(t, db, "test", "c", bson.D{{Key: "a", Value: 9}})); fmt.Sprint(got) != "[3]" {
		t.Fatalf("find a: 9 = %v", got)
	}
	mustValidate(t, db, "test", "c")
}

// A compound index over two arrays of one document is 171
// CannotIndexParallelArrays: on insert, on update, and on build over
// existing documents (which creates nothing).
func TestParallelArrays(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b": 1}, "name": "ab"}]}`)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": [1, 2], "b": 1}`, `{"_id": 2, "a": 1, "b": [1, 2]}`})
	before := snapshotDocs(t, db, "test", "c")
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 3, "a": [1], "b": [2]}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(we[0].(bson.D), "code") != int32(171) {
		t.Fatalf("parallel insert: %v", r)
	}
	intact(t, db, "test", "c", before, "parallel-array insert")
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"b": [3, 4]}}}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(we[0].(bson.D), "code") != int32(171) {
		t.Fatalf("parallel update: %v", r)
	}
	intact(t, db, "test", "c", before, "parallel-array update")
	// Nested: a.x and a.y under one array are not parallel.
	mustRun(t, db, "test", `{"createIndexes": "d", "indexes": [{"key": {"a.x": 1, "a.y": 1}, "name": "axy"}]}`)
	mustRun(t, db, "test", `{"insert": "d", "documents": [{"_id": 1, "a": [{"x": 1, "y": 2}, {"x": 3, "y": 4}]}]}`)
	mustValidate(t, db, "test", "d")
	// Build over existing parallel arrays fails and creates nothing.
	loadCorpus(t, db, "test", "e", []string{`{"_id": 1, "p": [1, 2], "q": [3, 4]}`})
	wantCode(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"p": 1, "q": 1}, "name": "pq"}]}`, document.Code(171), "parallel arrays")
	if got := indexNames(t, db, "test", "e"); got != "_id_" {
		t.Fatalf("failed build left indexes %s", got)
	}
	mustValidate(t, db, "test", "e")
}

// Unique indexes: duplicates rejected on insert and update; a build
// over existing duplicates fails with 11000 and creates nothing (no
// catalog entry, no stray keys); missing fields collide as null
// unless sparse; partial unique indexes only constrain their subset.
func TestUniqueIndexes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "u": 1}`, `{"_id": 2, "u": 2}`, `{"_id": 3, "u": 1}`, `{"_id": 4}`})
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"u": 1}, "name": "u", "unique": true}]}`, document.CodeDuplicateKey, "index: u dup key")
	if got := indexNames(t, db, "test", "c"); got != "_id_" {
		t.Fatalf("failed unique build left %s", got)
	}
	mustValidate(t, db, "test", "c")
	// Two indexes in one command, the second failing: neither exists.
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"x": 1}, "name": "x"}, {"key": {"u": -1}, "name": "u2", "unique": true}]}`, document.CodeDuplicateKey, "")
	if got := indexNames(t, db, "test", "c"); got != "_id_" {
		t.Fatalf("failed build of two left %s", got)
	}
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": 3}, "limit": 1}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"u": 1}, "name": "u", "unique": true}]}`)
	r := mustRun(t, db, "test", `{"insert": "c", "ordered": false, "documents": [{"_id": 5, "u": 1.0}, {"_id": 6, "u": [7, 2]}, {"_id": 7, "u": [8, 8]}, {"_id": 8}]}`)
	we, _ := field(r, "writeErrors").(bson.A)
	var idx []any
	for _, e := range we {
		idx = append(idx, field(e.(bson.D), "index"))
	}
	// 5: 1.0 == 1; 6: element 2 taken; 7: [8, 8] is one key; 8: null taken by _id 4.
	if fmt.Sprint(idx) != "[0 1 3]" {
		t.Fatalf("unique inserts: %v", r)
	}
	mustValidate(t, db, "test", "c")
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"u": 8}}}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 {
		t.Fatalf("unique update: %v", r)
	}
	// Swapping a key within one document's array is fine.
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 7}, "u": {"$set": {"u": [8]}}}]}`)
	mustValidate(t, db, "test", "c")
	// Freed keys can be reused.
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": 1}, "limit": 1}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 9, "u": 1}]}`)
	mustValidate(t, db, "test", "c")

	// Sparse unique: any number of documents without the field.
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"u": 1}, "name": "u", "unique": true, "sparse": true}]}`)
	mustRun(t, db, "test", `{"insert": "s", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3, "u": null}]}`)
	r = mustRun(t, db, "test", `{"insert": "s", "documents": [{"_id": 4, "u": null}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 {
		t.Fatalf("sparse unique null twice: %v", r)
	}
	// Partial unique: duplicates outside the filter are fine.
	mustRun(t, db, "test", `{"createIndexes": "p", "indexes": [{"key": {"u": 1}, "name": "u", "unique": true, "partialFilterExpression": {"live": true}}]}`)
	mustRun(t, db, "test", `{"insert": "p", "documents": [{"_id": 1, "u": 1}, {"_id": 2, "u": 1}, {"_id": 3, "u": 1, "live": true}]}`)
	r = mustRun(t, db, "test", `{"insert": "p", "documents": [{"_id": 4, "u": 1, "live": true}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 {
		t.Fatalf("partial unique: %v", r)
	}
	r = mustRun(t, db, "test", `{"update": "p", "updates": [{"q": {"_id": 1}, "u": {"$set": {"live": true}}}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 {
		t.Fatalf("partial unique by update: %v", r)
	}
	// Unique compound: only the whole key must be unique.
	mustRun(t, db, "test", `{"createIndexes": "k", "indexes": [{"key": {"a": 1, "b": -1}, "name": "ab", "unique": true}]}`)
	mustRun(t, db, "test", `{"insert": "k", "documents": [{"_id": 1, "a": 1, "b": 1}, {"_id": 2, "a": 1, "b": 2}, {"_id": 3, "a": 2, "b": 1}]}`)
	r = mustRun(t, db, "test", `{"insert": "k", "documents": [{"_id": 4, "b": 2, "a": 1}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 {
		t.Fatalf("unique compound: %v", r)
	}
	for _, c := range []string{"s", "p", "k"} {
		mustValidate(t, db, "test", c)
	}
}

// Sparse, partial and hidden indexes: which documents they hold, when
// the planner may use them, and what a hint does.
func TestSparsePartialHidden(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{
		`{"_id": 1, "a": 1, "s": 1}`, `{"_id": 2, "a": 5}`, `{"_id": 3, "a": 9, "s": null}`, `{"_id": 4, "s": 2}`})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"s": 1}, "name": "s_sparse", "sparse": true},
		{"key": {"a": 1}, "name": "a_partial", "partialFilterExpression": {"a": {"$gt": 4}}},
		{"key": {"a": -1}, "name": "a_hidden", "hidden": true}]}`)
	kpi := keysPerIndex(t, db, "test", "c")
	if kpi["s_sparse"] != 3 || kpi["a_partial"] != 2 || kpi["a_hidden"] != 4 {
		t.Fatalf("keysPerIndex %v", kpi)
	}
	// Without a hint, a query on s or a does not use them (a sparse or
	// partial index could miss documents; a hidden one is invisible),
	// unless the query implies the partial filter, as in mongod.
	for _, f := range []string{`{"s": null}`, `{"a": {"$gt": 0}}`, `{"a": {"$gte": 4}}`} {
		if st, ix, _ := explainPlan(t, db, "test", `{"find": "c", "filter": `+f+`}`); ix != "" {
			t.Errorf("%s: planner used %s (%v)", f, ix, st)
		}
	}
	for _, f := range []string{`{"a": 5}`, `{"a": {"$gt": 4}}`, `{"a": {"$gte": 6, "$lt": 9}}`} {
		if st, ix, _ := explainPlan(t, db, "test", `{"find": "c", "filter": `+f+`}`); ix != "a_partial" {
			t.Errorf("%s: planner used %q (%v), want a_partial", f, ix, st)
		}
	}
	// With a hint, the sparse index only returns what it holds, as in
	// MongoDB.
	got := idsOf(t, runFind(t, db, "test", ejson(t, `{"find": "c", "hint": "s_sparse"}`)))
	if fmt.Sprint(got) != "[1 3 4]" {
		t.Fatalf("hinted sparse scan: %v", got)
	}
	got = idsOf(t, runFind(t, db, "test", ejson(t, `{"find": "c", "filter": {"a": {"$gt": 6}}, "hint": "a_partial"}`)))
	if fmt.Sprint(got) != "[3]" {
		t.Fatalf("hinted partial scan: %v", got)
	}
	// A hidden index cannot be hinted, but is maintained.
	wantCode(t, db, "test", `{"find": "c", "hint": "a_hidden"}`, document.CodeBadValue, "hint")
	wantCode(t, db, "test", `{"find": "c", "hint": {"a": -1}}`, document.CodeBadValue, "hint")
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 5, "a": 3}]}`)
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 6}}}]}`)
	kpi = keysPerIndex(t, db, "test", "c")
	if kpi["a_hidden"] != 5 || kpi["a_partial"] != 3 {
		t.Fatalf("after writes keysPerIndex %v", kpi)
	}
	// listIndexes shows the options.
	ixs, _ := db.Database("test").Collection("c").ListIndexes(context.Background())
	for _, ix := range ixs {
		switch field(ix, "name") {
		case "s_sparse":
			if field(ix, "sparse") != true {
				t.Errorf("listIndexes: %v", ix)
			}
		case "a_partial":
			if !document.Equal(field(ix, "partialFilterExpression"), bson.D{{Key: "a", Value: bson.D{{Key: "$gt", Value: 4}}}}) {
				t.Errorf("listIndexes: %v", ix)
			}
		case "a_hidden":
			if field(ix, "hidden") != true {
				t.Errorf("listIndexes: %v", ix)
			}
		}
	}
}

// The planner uses equality and range predicates and sorts on an
// index's leading field; results equal a hinted collection scan.
func TestPlannerChoices(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 200; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %d, "b": %d, "c": "%c", "d": %d}`, i, i%20, i%7, 'a'+i%5, i))
	}
	loadCorpus(t, db, "test", "c", docs)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"a": 1, "b": -1}, "name": "ab"},
		{"key": {"c": -1}, "name": "c"},
		{"key": {"d": 1}, "name": "d", "unique": true}]}`)
	cases := []struct {
		find   string
		stages string
		ix     string
	}{
		{`{"find": "c", "filter": {"a": 3}}`, "[FETCH IXSCAN]", "ab"},
		{`{"find": "c", "filter": {"a": {"$gt": 17}}}`, "[FETCH IXSCAN]", "ab"},
		{`{"find": "c", "filter": {"a": {"$in": [1, 2]}, "b": 2}}`, "[FETCH IXSCAN]", "ab"},
		{`{"find": "c", "filter": {"b": 3}}`, "[COLLSCAN]", ""},
		{`{"find": "c", "filter": {"c": "b"}}`, "[FETCH IXSCAN]", "c"},
		{`{"find": "c", "filter": {"c": {"$lt": "c"}}, "sort": {"c": 1}}`, "[FETCH IXSCAN]", "c"},
		{`{"find": "c", "sort": {"a": 1, "b": -1}}`, "[FETCH IXSCAN]", "ab"},
		{`{"find": "c", "sort": {"a": -1, "b": 1}}`, "[FETCH IXSCAN]", "ab"},
		{`{"find": "c", "sort": {"a": 1, "b": 1}}`, "[SORT COLLSCAN]", ""},
		{`{"find": "c", "filter": {"d": 5, "a": 5}}`, "[FETCH IXSCAN]", "d"},
		{`{"find": "c", "filter": {"d": {"$gte": 150}}, "sort": {"d": -1}}`, "[FETCH IXSCAN]", "d"},
		{`{"find": "c", "filter": {"$or": [{"a": 1}, {"b": 1}]}}`, "[COLLSCAN]", ""},
	}
	for _, c := range cases {
		stages, ix, _ := explainPlan(t, db, "test", c.find)
		if fmt.Sprint(stages) != c.stages || ix != c.ix {
			t.Errorf("%s: %v on %q, want %s on %q", c.find, stages, ix, c.stages, c.ix)
		}
		got := runFind(t, db, "test", ejson(t, c.find))
		q := ejson(t, c.find)
		q = append(q, bson.E{Key: "hint", Value: bson.D{{Key: "$natural", Value: int32(1)}}})
		want := runFind(t, db, "test", q)
		if !sameDocs(sortByID(got), sortByID(want)) {
			t.Errorf("%s: index plan gave %v, collection scan %v", c.find, idsOf2(got), idsOf2(want))
		}
		// Sorted: the same sequence of sort keys (ties may differ).
		if s, sorted := get(q, "sort"); sorted {
			for i := range got {
				for _, k := range s.(bson.D) {
					a, _ := get(got[i], k.Key)
					b, _ := get(want[i], k.Key)
					if !document.Equal(a, b) {
						t.Fatalf("%s: position %d: %v, collection scan + sort %v", c.find, i, got[i], want[i])
					}
				}
			}
		}
	}
}

func sortByID(docs []bson.D) []bson.D {
	out := append([]bson.D(nil), docs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && document.Compare(out[j][0].Value, out[j-1][0].Value) < 0; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// typeClassValues has several values of every BSON type class, in
// mixed order, for index range tests.
var typeClassValues = []string{
	`{"$minKey": 1}`, `{"$maxKey": 1}`, `null`,
	`-5`, `0`, `3`, `{"$numberLong": "3"}`, `3.5`, `{"$numberDouble": "-Infinity"}`, `{"$numberDouble": "Infinity"}`,
	`{"$numberDouble": "NaN"}`, `{"$numberDecimal": "2.75"}`, `{"$numberLong": "9007199254740993"}`,
	`""`, `"a"`, `"ab"`, `"b"`, `"\u00e9"`,
	`{}`, `{"x": 1}`, `{"x": "a"}`, `{"y": 0}`,
	`{"$binary": {"base64": "", "subType": "00"}}`, `{"$binary": {"base64": "AA==", "subType": "00"}}`, `{"$binary": {"base64": "AA==", "subType": "05"}}`,
	`{"$oid": "000000000000000000000001"}`, `{"$oid": "ffffffffffffffffffffffff"}`,
	`false`, `true`,
	`{"$date": {"$numberLong": "-1000"}}`, `{"$date": "2024-01-01T00:00:00Z"}`,
	`{"$timestamp": {"t": 1, "i": 1}}`, `{"$timestamp": {"t": 1, "i": 2}}`,
	`{"$regularExpression": {"pattern": "a", "options": ""}}`, `{"$regularExpression": {"pattern": "a", "options": "i"}}`,
	`[]`, `[1, "a"]`, `[[2]]`,
}

// Index range scans on every BSON type class, ascending and
// descending, single and compound, agree with a collection scan for
// $eq/$gt/$gte/$lt/$lte/$ne against every value (type bracketing:
// {$gt: 3} never returns a string).
func TestIndexRangesEveryType(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i, v := range typeClassValues {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "v": %s, "w": %d}`, i, v, i%3))
	}
	docs = append(docs, `{"_id": 1000}`)
	loadCorpus(t, db, "test", "c", docs)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"v": 1}, "name": "asc"}, {"key": {"v": -1}, "name": "desc"},
		{"key": {"v": -1, "w": 1}, "name": "cmp"}]}`)
	for i, v := range typeClassValues {
		if strings.HasPrefix(v, "[") || strings.HasPrefix(v, `{"$regular`) {
			continue // array and regex operands mean other things
		}
		ops := []string{"$eq", "$gt", "$gte", "$lt", "$lte", "$ne"}
		if raceOn {
			ops = ops[i%3 : i%3+3] // a rotating half under the race detector
		}
		for _, op := range ops {
			filter := fmt.Sprintf(`{"v": {%q: %s}}`, op, v)
			want := runFind(t, db, "test", ejson(t, `{"find": "c", "filter": `+filter+`, "hint": {"$natural": 1}}`))
			for _, h := range []string{"asc", "desc", "cmp"} {
				got := runFind(t, db, "test", ejson(t, `{"find": "c", "filter": `+filter+`, "hint": "`+h+`"}`))
				if !sameDocs(sortByID(got), sortByID(want)) {
					t.Errorf("%s hint %s: %v, want %v", filter, h, idsOf(t, got), idsOf(t, want))
				}
			}
			// Sorted by the index, ascending and descending.
			if op != "$gte" && op != "$lt" {
				continue
			}
			for _, dir := range []int{1, -1} {
				q := fmt.Sprintf(`{"find": "c", "filter": %s, "sort": {"v": %d, "_id": 1}}`, filter, dir)
				ref := runFind(t, db, "test", append(ejson(t, q), bson.E{Key: "hint", Value: bson.D{{Key: "$natural", Value: int32(1)}}}))
				for _, h := range []string{"asc", "desc"} {
					got := runFind(t, db, "test", append(ejson(t, q), bson.E{Key: "hint", Value: h}))
					if !sameDocs(got, ref) {
						t.Errorf("%s hint %s: order %v, want %v", q, h, idsOf2(got), idsOf2(ref))
					}
				}
			}
		}
	}
	// A sort over a multikey index needs a SORT stage; the order is
	// right both directions, with type classes in BSON order.
	for _, dir := range []int{1, -1} {
		q := fmt.Sprintf(`{"find": "c", "sort": {"v": %d}, "hint": "asc"}`, dir)
		if st, _, _ := explainPlan(t, db, "test", q); fmt.Sprint(st) != "[SORT FETCH IXSCAN]" {
			t.Errorf("%s: stages %v", q, st)
		}
		got := runFind(t, db, "test", ejson(t, q))
		for i := 1; i < len(got); i++ {
			a, _ := get(got[i-1], "v")
			b, _ := get(got[i], "v")
			if c := document.Compare(sortKeyOf(a, dir), sortKeyOf(b, dir)); c*dir > 0 {
				t.Errorf("%s: %v before %v", q, got[i-1], got[i])
			}
		}
	}
}

// sortKeyOf is the value an array contributes to a sort: its smallest
// element ascending, largest descending (an empty array sorts as
// undefined, before null... treated as below everything here).
func sortKeyOf(v any, dir int) any {
	arr, ok := v.(bson.A)
	if !ok {
		return v
	}
	if len(arr) == 0 {
		return bson.MinKey{}
	}
	best := arr[0]
	for _, x := range arr[1:] {
		if c := document.Compare(x, best); c*dir < 0 {
			best = x
		}
	}
	return best
}

func idsOf2(docs []bson.D) []any {
	var out []any
	for _, d := range docs {
		out = append(out, d[0].Value)
	}
	return out
}

// Catalog and data survive Close+Open: collections, options, index
// specs (unique, sparse, partial, hidden, TTL), multikey flags, and
// the record-id counter (new inserts do not overwrite old records).
func TestPersistence(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": [1, 2], "b": 1}`, `{"_id": 2, "a": 3, "b": 2}`})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"a": 1}, "name": "a"},
		{"key": {"b": -1}, "name": "b", "unique": true},
		{"key": {"s": 1}, "name": "s", "sparse": true},
		{"key": {"p": 1}, "name": "p", "partialFilterExpression": {"b": {"$gt": 1}}},
		{"key": {"h": 1}, "name": "h", "hidden": true},
		{"key": {"t": 1}, "name": "t", "expireAfterSeconds": 60}]}`)
	mustRun(t, db, "other", `{"create": "empty"}`)
	specs := mustRun(t, db, "test", `{"listIndexes": "c"}`)
	before := snapshotDocs(t, db, "test", "c")
	colls := mustRun(t, db, "test", `{"listCollections": 1}`)
	db = reopen(t, db, dir, clk)
	mustValidate(t, db, "test", "c")
	if got := mustRun(t, db, "test", `{"listIndexes": "c"}`); !docIdentical(got, specs) {
		t.Fatalf("index specs after reopen:\n %v\nwant %v", got, specs)
	}
	if got := mustRun(t, db, "test", `{"listCollections": 1}`); !docIdentical(got, colls) {
		t.Fatalf("collections after reopen:\n %v\nwant %v", got, colls)
	}
	intact(t, db, "test", "c", before, "reopen")
	if names := db.DatabaseNames(); fmt.Sprint(names) != "[admin other test]" {
		t.Fatalf("databases after reopen: %v", names)
	}
	if _, _, mk := explainPlan(t, db, "test", `{"find": "c", "filter": {"a": 1}}`); !mk {
		t.Fatalf("multikey flag lost on reopen")
	}
	// Unique constraint still enforced; new records get new ids.
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 3, "b": 1}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 {
		t.Fatalf("unique after reopen: %v", r)
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 4, "b": 4}, {"_id": 5, "b": 5}]}`)
	if n := count(t, db, "test", "c"); n != 4 {
		t.Fatalf("count after reopen + insert = %d", n)
	}
	mustValidate(t, db, "test", "c")
	// Drops survive reopen too.
	mustRun(t, db, "test", `{"dropIndexes": "c", "index": "a"}`)
	mustRun(t, db, "other", `{"drop": "empty"}`)
	db = reopen(t, db, dir, clk)
	if got := indexNames(t, db, "test", "c"); got != "_id_,b,s,p,h,t" {
		t.Fatalf("indexes after drop + reopen: %s", got)
	}
	if names := db.DatabaseNames(); fmt.Sprint(names) != "[admin test]" {
		t.Fatalf("databases after drop + reopen: %v", names)
	}
	mustValidate(t, db, "test", "c")
}

// A second Open of an open directory fails with an error naming it,
// and leaves the first DB working.
func TestSecondOpenFails(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}]}`)
	db2, err := Open(dir, Options{Clock: clk.Now, DisableTTLMonitor: true})
	if err == nil {
		db2.Close()
		t.Fatal("second Open of an open directory succeeded")
	}
	if !strings.Contains(err.Error(), dir) {
		t.Fatalf("error %q does not name %s", err, dir)
	}
	if n := count(t, db, "test", "c"); n != 1 {
		t.Fatalf("first DB after a failed second Open: count %d", n)
	}
	// After Close, the directory opens again.
	db = reopen(t, db, dir, clk)
	if n := count(t, db, "test", "c"); n != 1 {
		t.Fatalf("count after reopen %d", n)
	}
}
