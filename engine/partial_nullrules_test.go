package engine

import (
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/lsm"
)

// TestPartialIndexOlderNullRules: a partial index whose filter compares
// with null and whose catalog entry was written before ttlkv followed
// mongod 7.0's null rules ({e: null} matching an undefined e) may lack
// the documents whose field is undefined, so the planner does not read
// it unhinted; the query still finds every document, by scanning. An
// index created since (or dropped and created again) is chosen, and a
// partial filter without null is chosen whatever its age.
func TestPartialIndexOlderNullRules(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "x": 1, "e": null}, {"_id": 2, "x": 1, "e": {"$undefined": true}}, {"_id": 3, "x": 1}, {"_id": 4, "x": 1, "e": 5}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"x": 1}, "name": "x_null", "partialFilterExpression": {"e": null}},
		{"key": {"x": 1, "y": 1}, "name": "x_y_ge5", "partialFilterExpression": {"e": {"$gte": 5}}}]}`)
	plan := func(filter string) string {
		return winningIndex(mustRun(t, db, "test", `{"explain": {"find": "c", "filter": `+filter+`}, "verbosity": "queryPlanner"}`))
	}
	found := func(filter string) string {
		return fmt.Sprint(idsOf(t, runFind(t, db, "test", ejson(t, `{"find": "c", "filter": `+filter+`}`))))
	}
	const nullQ, geQ = `{"x": 1, "e": null}`, `{"x": 1, "e": {"$gte": 5}}`
	if got := plan(nullQ); got != "x_null" {
		t.Fatalf("a new index: %s reads %q, want x_null", nullQ, got)
	}

	// Rewrite both entries as entries written before the rules were.
	m := db.lookup("test", "c").m().Clone()
	for _, ix := range m.Indexes {
		ix.NullRules7 = false
	}
	if err := db.store.Update(func(txn *lsm.Txn) error { return putMeta(txn, m) }); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, db, dir, clk)
	if ix := db.lookup("test", "c").m().Index("x_null"); ix.NullRules7 || !ix.MayLackUndefined() {
		t.Fatalf("older entry after a reopen: NullRules7 %v, MayLackUndefined %v", ix.NullRules7, ix.MayLackUndefined())
	}
	if got := plan(nullQ); got != "" {
		t.Errorf("an older index with a null filter: %s reads %q, want a collection scan", nullQ, got)
	}
	if got := found(nullQ); got != "[1 2 3]" {
		t.Errorf("%s finds %s, want [1 2 3]", nullQ, got)
	}
	if got := plan(geQ); got != "x_y_ge5" {
		t.Errorf("an older index without null in its filter: %s reads %q, want x_y_ge5", geQ, got)
	}

	mustRun(t, db, "test", `{"dropIndexes": "c", "index": "x_null"}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"x": 1}, "name": "x_null", "partialFilterExpression": {"e": null}}]}`)
	db = reopen(t, db, dir, clk)
	if got := plan(nullQ); got != "x_null" {
		t.Errorf("created again: %s reads %q, want x_null", nullQ, got)
	}
	if got := found(nullQ); got != "[1 2 3]" {
		t.Errorf("created again: %s finds %s, want [1 2 3]", nullQ, got)
	}
	mustValidate(t, db, "test", "c")
}
