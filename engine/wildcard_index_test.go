package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// wildcardDocs is a collection of documents of varied shapes.
const wildcardDocs = `[
	{"_id": 1, "attrs": {"color": "red", "size": 3}, "tags": ["a", "b"]},
	{"_id": 2, "attrs": {"color": "blue", "dims": {"w": 2, "h": 5}}, "tags": []},
	{"_id": 3, "attrs": [{"color": "red"}, {"size": 7}], "n": 1},
	{"_id": 4, "attrs": {}, "tags": [["a"], "c"]},
	{"_id": 5, "n": null},
	{"_id": 6, "attrs": {"color": "RED", "size": 3.0}}]`

// A {"$**": 1} index keeps a key a leaf (path, value): objects are
// walked, arrays give their elements (a nested array is a value), an
// empty object is a value and an empty array is keyed as undefined; _id
// is left out. A query on one field uses it when the field's bounds hold
// scalars, and the filter decides every document fetched.
func TestWildcardIndexFind(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "w", "documents": `+wildcardDocs+`}`)
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"$**": 1}, "name": "$**_1"}]}`)
	// 1: color, size, tags x2; 2: color, dims.w, dims.h, tags (undefined);
	// 3: color, size, n; 4: attrs {}, tags [a], tags c; 5: n; 6: color, size.
	if got := keysPerIndex(t, db, "test", "w")["$**_1"]; got != 17 {
		t.Fatalf("$**_1 holds %d keys, want 17", got)
	}
	cases := []struct {
		filter string
		want   []int32
		path   string // the path the plan scans; "" another plan
	}{
		{`{"attrs.color": "red"}`, []int32{1, 3}, "attrs.color"},
		{`{"attrs.size": {"$gte": 3}}`, []int32{1, 3, 6}, "attrs.size"},
		{`{"attrs.dims.h": 5}`, []int32{2}, "attrs.dims.h"},
		{`{"tags": "a"}`, []int32{1}, "tags"},
		{`{"tags": ["a"]}`, []int32{4}, ""},
		{`{"n": 1, "attrs.color": "red"}`, []int32{3}, "n"},
		{`{"n": null}`, []int32{1, 2, 4, 5, 6}, ""},
		{`{"attrs": {}}`, []int32{4}, "attrs"},
		{`{"attrs": {"color": "red"}}`, []int32{3}, ""},
		{`{"_id": 3}`, []int32{3}, ""},
		{`{"attrs.color": {"$in": ["blue", "RED"]}}`, []int32{2, 6}, "attrs.color"},
		{`{"attrs.color": {"$exists": true}}`, []int32{1, 2, 3, 6}, ""},
	}
	for _, c := range cases {
		got := hashedIDs(findAll(t, db, "test", "w", mustDoc(t, c.filter)))
		if !slices.Equal(got, c.want) {
			t.Errorf("find %s: %v, want %v", c.filter, got, c.want)
		}
		r := mustRun(t, db, "test", `{"explain": {"find": "w", "filter": `+c.filter+`}, "verbosity": "queryPlanner"}`)
		ix, _ := field(r, "queryPlanner.winningPlan.inputStage.indexName").(string)
		if c.path == "" {
			if ix == "$**_1" {
				t.Errorf("find %s: planned on the wildcard index", c.filter)
			}
			continue
		}
		if ix != "$**_1" {
			t.Errorf("find %s: planned on %q, want $**_1", c.filter, ix)
			continue
		}
		kp := field(r, "queryPlanner.winningPlan.inputStage.keyPattern")
		if want := (bson.D{{Key: "$_path", Value: int32(1)}, {Key: c.path, Value: int32(1)}}); !document.Equal(kp, want) {
			t.Errorf("find %s: keyPattern %v, want %v", c.filter, kp, want)
		}
		pb := fmt.Sprint(field(r, "queryPlanner.winningPlan.inputStage.indexBounds.$_path"))
		if want := fmt.Sprintf("[[%q, %q]]", c.path, c.path); pb != want {
			t.Errorf("find %s: $_path bounds %s, want %s", c.filter, pb, want)
		}
	}
	// An update moves a document's keys; validate checks them all.
	mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {"_id": 2}, "u": {"$set": {"attrs.color": "red"}, "$unset": {"attrs.dims": 1}}}]}`)
	if got := hashedIDs(findAll(t, db, "test", "w", mustDoc(t, `{"attrs.color": "red"}`))); !slices.Equal(got, []int32{1, 2, 3}) {
		t.Errorf("after update: %v", got)
	}
	if got := hashedIDs(findAll(t, db, "test", "w", mustDoc(t, `{"attrs.dims.h": 5}`))); len(got) != 0 {
		t.Errorf("after unset: dims.h 5 finds %v", got)
	}
	mustRun(t, db, "test", `{"delete": "w", "deletes": [{"q": {"attrs.color": "red"}, "limit": 0}]}`)
	if got := count(t, db, "test", "w"); got != 3 {
		t.Errorf("after delete: %d documents, want 3", got)
	}
	mustValidate(t, db, "test", "w")
}

// A subtree index ("a.$**") and a wildcardProjection keep only the
// paths they name; a query on another field does not use them.
func TestWildcardIndexProjections(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "p", "documents": `+wildcardDocs+`}`)
	mustRun(t, db, "test", `{"createIndexes": "p", "indexes": [
		{"key": {"attrs.$**": 1}, "name": "attrs"},
		{"key": {"$**": 1}, "name": "incl", "wildcardProjection": {"attrs.size": 1, "n": true}},
		{"key": {"$**": 1}, "name": "excl", "wildcardProjection": {"attrs": 0, "_id": 1}}]}`)
	keys := keysPerIndex(t, db, "test", "p")
	// attrs: 1 color size; 2 color w h; 3 color size; 4 {}; 6 color size.
	// incl: the projection leaves attrs {} in 2 and 4 and {} in 3's
	// array (keyed as {}), with the sizes of 1, 3, 6 and n of 3, 5.
	// excl: _id x6, tags of 1 (2), 2 (1), 4 (2), n of 3, 5.
	if keys["attrs"] != 10 || keys["incl"] != 8 || keys["excl"] != 13 {
		t.Fatalf("keys %v, want attrs 10, incl 8, excl 13", keys)
	}
	for _, c := range []struct{ filter, ix string }{
		{`{"attrs.color": "red"}`, "attrs"},
		{`{"tags": "c"}`, "excl"},
		{`{"_id": {"$gt": 4}, "tags": "c"}`, "excl"},
		{`{"n": 1}`, "incl"},
	} {
		_, ix, _ := explainPlan(t, db, "test", `{"find": "p", "filter": `+c.filter+`}`)
		if ix != c.ix {
			t.Errorf("find %s: planned on %q, want %s", c.filter, ix, c.ix)
		}
	}
	r := mustRun(t, db, "test", `{"find": "p", "filter": {"attrs.size": 3}, "hint": "incl"}`)
	if _, b := checkCursorShape(t, "find", field(r, "cursor"), "firstBatch"); len(b) != 2 {
		t.Errorf("hinted incl: %v", b)
	}
	wantCode(t, db, "test", `{"find": "p", "filter": {}, "hint": "incl"}`, document.CodeBadValue, "cannot answer a query without")
	r = mustRun(t, db, "test", `{"listIndexes": "p"}`)
	_, b := checkCursorShape(t, "listIndexes", field(r, "cursor"), "firstBatch")
	if len(b) != 4 || !document.Equal(field(b[2].(bson.D), "wildcardProjection"), bson.D{{Key: "attrs.size", Value: int32(1)}, {Key: "n", Value: true}}) {
		t.Errorf("listIndexes: %v", b)
	}
	mustValidate(t, db, "test", "p")
}

// What MongoDB refuses of wildcard indexes, ttlkv refuses with its
// codes; a compound wildcard index is ttlkv's own refusal.
func TestWildcardIndexRules(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
	for _, c := range []struct {
		spec string
		code document.Code
		frag string
	}{
		{`{"key": {"$**": 1}, "name": "x", "unique": true}`, document.CodeCannotCreateIndex, "does not support the unique option"},
		{`{"key": {"$**": 1}, "name": "x", "sparse": true}`, document.CodeCannotCreateIndex, "does not support the sparse option"},
		{`{"key": {"$**": 1}, "name": "x", "expireAfterSeconds": 5}`, document.CodeCannotCreateIndex, "'expireAfterSeconds'"},
		{`{"key": {"$**": 1, "a": 1}, "name": "x"}`, document.CodeCannotCreateIndex, "must also specify 'wildcardProjection'"},
		{`{"key": {"a": 1}, "name": "x", "wildcardProjection": {"a": 1}}`, document.CodeBadValue, "only allowed in 'wildcard' indexes"},
		{`{"key": {"a.$**": 1}, "name": "x", "wildcardProjection": {"a": 1}}`, document.CodeFailedToParse, "only allowed when 'key' is"},
		{`{"key": {"$**": 1}, "name": "x", "wildcardProjection": {}}`, document.CodeFailedToParse, "can't be an empty object"},
		{`{"key": {"$**": 1}, "name": "x", "wildcardProjection": 1}`, document.CodeTypeMismatch, "must be a non-empty object"},
		{`{"key": {"$**": 1}, "name": "x", "wildcardProjection": {"a": 1, "b": 0}}`, 31254, "Cannot do exclusion on field b in inclusion projection"},
		{`{"key": {"$**": 1}, "name": "x", "wildcardProjection": {"a": 0, "b": 1}}`, 31253, "Cannot do inclusion on field b in exclusion projection"},
		{`{"key": {"$**": 1}, "name": "x", "wildcardProjection": {"a": 1, "a.b": 1}}`, 31250, "Path collision at a.b"},
	} {
		wantCode(t, db, "test", `{"createIndexes": "r", "indexes": [`+c.spec+`]}`, c.code, c.frag)
	}
	wantCode(t, db, "test", `{"createIndexes": "ts", "indexes": [{"key": {"$**": 1}, "name": "x"}]}`, document.CodeCannotCreateIndex, "time-series")
	// A nested projection is the dotted one.
	mustRun(t, db, "test", `{"createIndexes": "r", "indexes": [{"key": {"$**": 1}, "name": "nested", "wildcardProjection": {"a": {"b": 1}}}]}`)
	mustRun(t, db, "test", `{"insert": "r", "documents": [{"_id": 1, "a": {"b": 1, "c": 2}}]}`)
	if got := keysPerIndex(t, db, "test", "r")["nested"]; got != 1 {
		t.Errorf("nested projection keeps %d keys, want 1", got)
	}
}

// Wildcard indexes on capped and clustered collections, and under a
// collation.
func TestWildcardIndexKinds(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "cap", "capped": true, "size": 100000}`)
	mustRun(t, db, "test", `{"create": "clu", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
	mustRun(t, db, "test", `{"create": "col", "collation": {"locale": "en", "strength": 2}}`)
	for _, c := range []string{"cap", "clu", "col"} {
		mustRun(t, db, "test", `{"createIndexes": "`+c+`", "indexes": [{"key": {"$**": 1}, "name": "w"}]}`)
		mustRun(t, db, "test", `{"insert": "`+c+`", "documents": `+wildcardDocs+`}`)
		want := []int32{1, 3}
		if c == "col" {
			want = []int32{1, 3, 6} // "RED" under strength 2
		}
		if got := hashedIDs(findAll(t, db, "test", c, mustDoc(t, `{"attrs.color": "red"}`))); !slices.Equal(got, want) {
			t.Errorf("%s: attrs.color red finds %v, want %v", c, got, want)
		}
		if _, ix, _ := explainPlan(t, db, "test", `{"find": "`+c+`", "filter": {"attrs.color": "red"}}`); ix != "w" {
			t.Errorf("%s: planned on %q", c, ix)
		}
		mustValidate(t, db, "test", c)
	}
}

// Hashed and wildcard indexes, and a view's collation, survive a
// restart: their keys are found the same way after it.
func TestIndexKindsAcrossReopen(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"insert": "k", "documents": `+wildcardDocs+`}`)
	mustRun(t, db, "test", `{"createIndexes": "k", "indexes": [
		{"key": {"n": "hashed"}, "name": "n_hashed"},
		{"key": {"$**": 1}, "name": "w", "wildcardProjection": {"attrs": 1}}]}`)
	mustRun(t, db, "test", `{"create": "kv", "viewOn": "k", "pipeline": [], "collation": {"locale": "en", "strength": 2}}`)
	db = reopen(t, db, dir, clk)
	for _, c := range []struct {
		cmd string
		id  int32
	}{
		{`{"find": "k", "filter": {"n": 1}, "hint": "n_hashed"}`, 3},
		{`{"find": "k", "filter": {"attrs.color": "blue"}, "hint": "w"}`, 2},
	} {
		r := mustRun(t, db, "test", c.cmd)
		if _, b := checkCursorShape(t, c.cmd, field(r, "cursor"), "firstBatch"); len(b) != 1 || field(b[0].(bson.D), "_id") != c.id {
			t.Errorf("after reopen, %s: %v", c.cmd, b)
		}
	}
	if got := hashedIDs(findAll(t, db, "test", "kv", mustDoc(t, `{"attrs.color": "RED"}`))); !slices.Equal(got, []int32{1, 3, 6}) {
		t.Errorf("after reopen, the collated view finds %v", got)
	}
	mustValidate(t, db, "test", "k")
}
