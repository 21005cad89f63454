package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// ids returns the _ids of docs, sorted.
func hashedIDs(docs []bson.D) []int32 {
	var out []int32
	for _, d := range docs {
		out = append(out, field(d, "_id").(int32))
	}
	slices.Sort(out)
	return out
}

// A hashed index keys each document by the hash of its field's value
// (of null when it is missing), and answers equalities and $in with
// point bounds on those hashes; the filter still decides each document,
// since 2 and 2.5 hash alike.
func TestHashedIndexFind(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "h", "indexes": [{"key": {"a": "hashed"}, "name": "a_hashed"}]}`)
	mustRun(t, db, "test", `{"insert": "h", "documents": [
		{"_id": 1, "a": 2}, {"_id": 2, "a": 2.5}, {"_id": 3, "a": "x"}, {"_id": 4},
		{"_id": 5, "a": null}, {"_id": 6, "a": {"b": 1}}, {"_id": 7, "a": {"$numberLong": "2"}}]}`)
	if got := keysPerIndex(t, db, "test", "h")["a_hashed"]; got != 7 {
		t.Fatalf("a_hashed holds %d keys, want 7 (a missing field is keyed as null)", got)
	}
	cases := []struct {
		filter string
		want   []int32
		ixscan bool
	}{
		{`{"a": 2}`, []int32{1, 7}, true},
		{`{"a": 2.5}`, []int32{2}, true},
		{`{"a": "x"}`, []int32{3}, true},
		{`{"a": null}`, []int32{4, 5}, true},
		{`{"a": {"b": 1}}`, []int32{6}, true},
		{`{"a": {"$in": [2.5, "x", 9]}}`, []int32{2, 3}, true},
		{`{"a": {"$gt": 1}}`, []int32{1, 2, 7}, false},
		{`{"a": {"$regex": "x"}}`, []int32{3}, false},
	}
	for _, c := range cases {
		got := hashedIDs(findAll(t, db, "test", "h", mustDoc(t, c.filter)))
		if !slices.Equal(got, c.want) {
			t.Errorf("find %s: %v, want %v", c.filter, got, c.want)
		}
		stages, ix, _ := explainPlan(t, db, "test", `{"find": "h", "filter": `+c.filter+`}`)
		if (ix == "a_hashed") != c.ixscan {
			t.Errorf("find %s: plan %v on %q, want an IXSCAN of a_hashed: %v", c.filter, stages, ix, c.ixscan)
		}
	}
	// Explain shows the bounds as MongoDB does: a point a hash.
	r := mustRun(t, db, "test", `{"explain": {"find": "h", "filter": {"a": {"$in": ["hashThisStringLiteral", 123]}}}, "verbosity": "queryPlanner"}`)
	bounds := fmt.Sprint(field(r, "queryPlanner.winningPlan.inputStage.indexBounds.a"))
	want := fmt.Sprint(bson.A{"[-6548868637522515075, -6548868637522515075]", "[-5776344739422278694, -5776344739422278694]"})
	if bounds != want {
		t.Errorf("indexBounds %s, want %s", bounds, want)
	}
	// A sort on the field cannot come from the index.
	stages, _, _ := explainPlan(t, db, "test", `{"find": "h", "filter": {}, "sort": {"a": 1}}`)
	if !slices.Contains(stages, "SORT") {
		t.Errorf("sort on a hashed field without a SORT stage: %v", stages)
	}
	// Deletes and updates find their documents through it too.
	mustRun(t, db, "test", `{"update": "h", "updates": [{"q": {"a": "x"}, "u": {"$set": {"a": "y"}}}]}`)
	if got := hashedIDs(findAll(t, db, "test", "h", mustDoc(t, `{"a": "y"}`))); !slices.Equal(got, []int32{3}) {
		t.Errorf("after update, a: y finds %v", got)
	}
	mustRun(t, db, "test", `{"delete": "h", "deletes": [{"q": {"a": 2}, "limit": 0}]}`)
	if got := count(t, db, "test", "h"); got != 5 {
		t.Errorf("after deleting a: 2, %d documents, want 5", got)
	}
	mustValidate(t, db, "test", "h")
}

// What MongoDB refuses of hashed indexes, ttlkv refuses with its codes,
// and a refused write leaves the rest of an unordered batch in.
func TestHashedIndexRules(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	wantCode(t, db, "test", `{"createIndexes": "r", "indexes": [{"key": {"a": "hashed", "b": "hashed"}, "name": "ab"}]}`,
		codeMaxOneHashedField, "A maximum of one index field is allowed to be hashed but found 2")
	wantCode(t, db, "test", `{"createIndexes": "r", "indexes": [{"key": {"a": "hashed"}, "name": "a", "unique": true}]}`,
		codeHashedNotUnique, "cannot guarantee uniqueness")
	wantCode(t, db, "test", `{"createIndexes": "r", "indexes": [{"key": {"a": "hashed"}, "name": "a", "expireAfterSeconds": 10}]}`,
		document.CodeCannotCreateIndex, "TTL indexes cannot be hashed")
	wantCode(t, db, "test", `{"createIndexes": "r", "indexes": [{"key": {"a": "geoHaystack"}, "name": "a"}]}`,
		document.CodeCannotCreateIndex, "GeoHaystack indexes cannot be created in version 5.0 and above")

	// The default name is MongoDB's.
	mustRun(t, db, "test", `{"createIndexes": "r", "indexes": [{"key": {"a.b": "hashed", "c": 1}, "name": "a.b_hashed_c_1"}]}`)
	if got := indexNames(t, db, "test", "r"); got != "_id_,a.b_hashed_c_1" {
		t.Fatalf("indexes %s", got)
	}
	// An array on the hashed path is refused (16766); the compound
	// index's other field may be an array.
	r := mustRun(t, db, "test", `{"insert": "r", "ordered": false, "documents": [
		{"_id": 1, "a": {"b": [1]}}, {"_id": 2, "a": [{"b": 1}]}, {"_id": 3, "a": {"b": 1}, "c": [1, 2]}, {"_id": 4, "a": 5}]}`)
	we, _ := field(r, "writeErrors").(bson.A)
	if len(we) != 2 || field(r, "n") != int32(2) {
		t.Fatalf("insert: %v", r)
	}
	msgs := map[int32]string{}
	for _, e := range we {
		e := e.(bson.D)
		if field(e, "code") != int32(16766) {
			t.Errorf("write error %v, want code 16766", e)
		}
		msgs[field(e, "index").(int32)] = field(e, "errmsg").(string)
	}
	if want := "Error: hashed indexes do not currently support array values. Found array at path: a.b"; msgs[0] != want {
		t.Errorf("errmsg %q, want %q", msgs[0], want)
	}
	if want := "Found array at path: a"; !contains(msgs[1], want) {
		t.Errorf("errmsg %q, want it to end %q", msgs[1], want)
	}
	if got := hashedIDs(findAll(t, db, "test", "r", bson.D{})); !slices.Equal(got, []int32{3, 4}) {
		t.Fatalf("documents %v, want 3 and 4", got)
	}
	// An update that makes the hashed path an array is refused, and
	// the document stays as it was.
	wantWriteCode(t, db, "test", `{"update": "r", "updates": [{"q": {"_id": 3}, "u": {"$set": {"a.b": [1]}}}]}`, 16766)
	if got := findAll(t, db, "test", "r", mustDoc(t, `{"_id": 3}`)); len(got) != 1 || !document.Equal(field(got[0], "a"), bson.D{{Key: "b", Value: int32(1)}}) {
		t.Fatalf("document 3 after a refused update: %v", got)
	}
	// Building one over a collection that holds an array fails, and
	// leaves no index behind.
	mustRun(t, db, "test", `{"insert": "arr", "documents": [{"_id": 1, "a": [1, 2]}]}`)
	wantCode(t, db, "test", `{"createIndexes": "arr", "indexes": [{"key": {"a": "hashed"}, "name": "a_hashed"}]}`, 16766, "Found array at path: a")
	if got := indexNames(t, db, "test", "arr"); got != "_id_" {
		t.Fatalf("after a failed build: %s", got)
	}
	mustValidate(t, db, "test", "r")
}

// A sparse hashed index leaves out documents without the field, and a
// hashed index on _id is an ordinary index beside the _id one.
func TestHashedIndexSparseAndID(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [
		{"key": {"a": "hashed"}, "name": "a_sparse", "sparse": true},
		{"key": {"_id": "hashed"}, "name": "_id_hashed"}]}`)
	mustRun(t, db, "test", `{"insert": "s", "documents": [{"_id": 1, "a": 1}, {"_id": 2}, {"_id": 3, "a": null}]}`)
	keys := keysPerIndex(t, db, "test", "s")
	if keys["a_sparse"] != 2 || keys["_id_hashed"] != 3 {
		t.Fatalf("keys %v, want a_sparse 2 and _id_hashed 3", keys)
	}
	stages, ix, _ := explainPlan(t, db, "test", `{"find": "s", "filter": {"_id": 2}, "hint": "_id_hashed"}`)
	if ix != "_id_hashed" {
		t.Fatalf("hinted plan %v on %q", stages, ix)
	}
	r := mustRun(t, db, "test", `{"find": "s", "filter": {"_id": 2}, "hint": "_id_hashed"}`)
	if _, b := checkCursorShape(t, "find", field(r, "cursor"), "firstBatch"); len(b) != 1 {
		t.Fatalf("find _id 2 through _id_hashed: %v", b)
	}
	mustValidate(t, db, "test", "s")
}

// wantWriteCode runs a write command and checks that its one write
// error has code.
func wantWriteCode(t *testing.T, db *DB, dbName, cmdJSON string, code int32) {
	t.Helper()
	r := mustRun(t, db, dbName, cmdJSON)
	we, _ := field(r, "writeErrors").(bson.A)
	if len(we) != 1 || field(we[0].(bson.D), "code") != code {
		t.Fatalf("%s: %v, want one write error %d", cmdJSON, r, code)
	}
}

// Hashed indexes work on every kind of collection: capped, clustered,
// and a time-series collection's metaField.
func TestHashedIndexKinds(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "cap", "capped": true, "size": 100000}`)
	mustRun(t, db, "test", `{"create": "clu", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	for _, c := range []string{"cap", "clu"} {
		mustRun(t, db, "test", `{"createIndexes": "`+c+`", "indexes": [{"key": {"a": "hashed"}, "name": "a_hashed"}]}`)
		mustRun(t, db, "test", `{"insert": "`+c+`", "documents": [{"_id": 1, "a": "p"}, {"_id": 2, "a": "q"}, {"_id": 3, "a": "p"}]}`)
		if got := hashedIDs(findAll(t, db, "test", c, mustDoc(t, `{"a": "p"}`))); !slices.Equal(got, []int32{1, 3}) {
			t.Errorf("%s: a: p finds %v", c, got)
		}
		if _, ix, _ := explainPlan(t, db, "test", `{"find": "`+c+`", "filter": {"a": "p"}}`); ix != "a_hashed" {
			t.Errorf("%s: a: p planned on %q", c, ix)
		}
		mustValidate(t, db, "test", c)
	}
	mustRun(t, db, "test", `{"createIndexes": "ts", "indexes": [{"key": {"m.site": "hashed"}, "name": "site_hashed"}]}`)
	mustRun(t, db, "test", `{"insert": "ts", "documents": [
		{"t": {"$date": "2026-01-01T00:00:00Z"}, "m": {"site": "a"}, "v": 1},
		{"t": {"$date": "2026-01-01T00:00:01Z"}, "m": {"site": "b"}, "v": 2}]}`)
	got := findAll(t, db, "test", "ts", mustDoc(t, `{"m.site": "b"}`))
	if len(got) != 1 || field(got[0], "v") != int32(2) {
		t.Errorf("ts: m.site b finds %v", got)
	}
	r := mustRun(t, db, "test", `{"listIndexes": "ts"}`)
	_, b := checkCursorShape(t, "listIndexes", field(r, "cursor"), "firstBatch")
	if len(b) != 2 || !document.Equal(field(b[1].(bson.D), "key"), bson.D{{Key: "m.site", Value: "hashed"}}) { // after m_1_t_1
		t.Errorf("ts indexes %v", b)
	}
}

// Under a collation a string is hashed through its collation key: a
// find with the index's collation finds "X" and "x" through it; one
// without collation does not use it for a string.
func TestHashedIndexCollation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": "hashed"}, "name": "a_ci", "collation": {"locale": "en", "strength": 2}}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": "x"}, {"_id": 2, "a": "X"}, {"_id": 3, "a": "y"}]}`)
	collated := `{"find": "c", "filter": {"a": "x"}, "collation": {"locale": "en", "strength": 2}}`
	r := mustRun(t, db, "test", collated)
	if _, b := checkCursorShape(t, "find", field(r, "cursor"), "firstBatch"); len(b) != 2 {
		t.Fatalf("collated find: %v", b)
	}
	if _, ix, _ := explainPlan(t, db, "test", collated); ix != "a_ci" {
		t.Errorf("collated find planned on %q", ix)
	}
	if _, ix, _ := explainPlan(t, db, "test", `{"find": "c", "filter": {"a": "x"}}`); ix != "" {
		t.Errorf("simple find planned on %q", ix)
	}
	if got := hashedIDs(findAll(t, db, "test", "c", mustDoc(t, `{"a": "x"}`))); !slices.Equal(got, []int32{1}) {
		t.Errorf("simple find: %v", got)
	}
}

// A double and a decimal of one value hash apart (the double truncated,
// the decimal rounded half to even, as in mongod), so a hashed index
// looks up both keys of a non-integer number and finds either.
func TestHashedIndexDoubleAndDecimal(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "n", "indexes": [{"key": {"a": "hashed"}, "name": "a_hashed"}]}`)
	mustRun(t, db, "test", `{"insert": "n", "documents": [{"_id": 1, "a": 1.5}, {"_id": 2, "a": {"$numberDecimal": "1.5"}},
		{"_id": 3, "a": 3.5}, {"_id": 4, "a": {"$numberDecimal": "3.50"}}, {"_id": 5, "a": 3}, {"_id": 6, "a": 4}]}`)
	for _, c := range []struct {
		filter string
		want   []int32
	}{
		{`{"a": 1.5}`, []int32{1, 2}},
		{`{"a": {"$numberDecimal": "1.5"}}`, []int32{1, 2}},
		{`{"a": 3.5}`, []int32{3, 4}},
		{`{"a": {"$numberDecimal": "3.5"}}`, []int32{3, 4}},
		{`{"a": {"$in": [3, 4]}}`, []int32{5, 6}},
	} {
		if _, ix, _ := explainPlan(t, db, "test", `{"find": "n", "filter": `+c.filter+`}`); ix != "a_hashed" {
			t.Errorf("%s planned on %q", c.filter, ix)
		}
		if got := hashedIDs(findAll(t, db, "test", "n", mustDoc(t, c.filter))); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.filter, got, c.want)
		}
	}
}
