package engine

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// partialPlanCorpus is the collection TestPartialIndexPlans reads:
// statuses done, open, null, missing and in arrays, dates far after the
// test clock (no TTL pass removes them), numbers for the $in and $or
// filters, strings in two cases for the collation one.
var partialPlanCorpus = []string{
	`{"_id": 1, "status": "done", "createdAt": {"$date": "2100-01-01T00:00:00Z"}, "a": 3, "p": 3, "x": 1, "y": 1, "s": "M", "e": 1, "f": 1}`,
	`{"_id": 2, "status": "done", "createdAt": {"$date": "2100-06-01T00:00:00Z"}, "a": 5, "p": 5, "b": 5, "x": 2, "y": 2, "s": "n", "f": 2}`,
	`{"_id": 3, "status": "open", "createdAt": {"$date": "2100-02-01T00:00:00Z"}, "a": 5, "p": 5, "b": 1, "x": 3, "y": 3, "s": "a", "e": null, "f": 3}`,
	`{"_id": 4, "status": null, "createdAt": {"$date": "2100-03-01T00:00:00Z"}, "a": 4, "p": 4, "x": 4, "y": 4, "s": "m", "f": 4}`,
	`{"_id": 5, "createdAt": {"$date": "2100-04-01T00:00:00Z"}, "a": -1, "x": 5, "y": 5, "s": "Z", "f": 5}`,
	`{"_id": 6, "status": ["done", "open"], "createdAt": {"$date": "2100-05-01T00:00:00Z"}, "a": 0, "p": [3, 4], "x": 6, "y": 6, "e": [1], "f": 6}`,
	`{"_id": 7, "status": "done", "a": 3, "p": 3, "x": 7, "y": 7, "s": "q", "f": 7}`,
	`{"_id": 8, "status": "done", "createdAt": "soon", "a": 5, "p": 5, "b": 5, "x": 8, "y": 8, "s": "Q", "f": 8}`,
	`{"_id": 9, "status": "DONE", "createdAt": {"$date": "2100-01-15T00:00:00Z"}, "a": 2.5, "p": "5", "x": 9, "y": 9, "e": "x", "f": 9}`,
}

// TestPartialIndexPlans: the planner reads a partial index when the
// query implies its partialFilterExpression (mongod's isSubsetOf),
// explain names it, and every query returns what a collection scan
// returns, whichever way it is read. The TTL index partial on
// {status: "done"} is the case users meet: a query for the expired
// "done" documents reads it.
func TestPartialIndexPlans(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", partialPlanCorpus)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"createdAt": 1}, "name": "done_ttl", "expireAfterSeconds": 3600, "partialFilterExpression": {"status": "done"}},
		{"key": {"a": 1}, "name": "a_pos", "partialFilterExpression": {"a": {"$gt": 0}}},
		{"key": {"x": 1}, "name": "x_in", "partialFilterExpression": {"p": {"$in": [3, 5]}}},
		{"key": {"y": 1}, "name": "y_or", "partialFilterExpression": {"$or": [{"p": 3}, {"$and": [{"p": 5}, {"b": 5}]}]}},
		{"key": {"s": 1}, "name": "s_ci", "collation": {"locale": "en", "strength": 2}, "partialFilterExpression": {"s": {"$gte": "m"}}},
		{"key": {"f": 1}, "name": "f_exists", "partialFilterExpression": {"e": {"$exists": true}}}]}`)
	const ci = `{"locale": "en", "strength": 2}`
	for _, c := range []struct {
		filter, sort, collation string
		ix                      string // the index explain names, "" for a collection scan
	}{
		// The TTL index: the query implies status "done".
		{`{"status": "done", "createdAt": {"$lt": {"$date": "2100-05-15T00:00:00Z"}}}`, ``, ``, "done_ttl"},
		{`{"status": "done", "createdAt": {"$gte": {"$date": "2100-01-01T00:00:00Z"}}}`, `{"createdAt": -1}`, ``, "done_ttl"},
		{`{"status": {"$eq": "done"}, "createdAt": {"$exists": true}}`, ``, ``, ""},
		{`{"status": "done"}`, `{"createdAt": 1}`, ``, "done_ttl"},
		{`{"$and": [{"status": "done"}, {"createdAt": {"$lt": {"$date": "2100-03-01T00:00:00Z"}}}]}`, ``, ``, "done_ttl"},
		{`{"status": {"$in": ["done"]}, "createdAt": {"$lt": {"$date": "2100-03-01T00:00:00Z"}}}`, ``, ``, "done_ttl"},
		{`{"createdAt": {"$lt": {"$date": "2100-05-15T00:00:00Z"}}}`, ``, ``, ""},
		{`{"status": "open", "createdAt": {"$lt": {"$date": "2100-05-15T00:00:00Z"}}}`, ``, ``, ""},
		{`{"status": {"$in": ["done", "open"]}, "createdAt": {"$lt": {"$date": "2100-05-15T00:00:00Z"}}}`, ``, ``, ""},
		{`{"status": "DONE", "createdAt": {"$lt": {"$date": "2100-05-15T00:00:00Z"}}}`, ``, ``, ""},
		{`{"status": "done", "createdAt": {"$lt": {"$date": "2100-05-15T00:00:00Z"}}}`, ``, ci, ""},
		// A range within the filter's.
		{`{"a": {"$gt": 2}}`, ``, ``, "a_pos"},
		{`{"a": 5}`, ``, ``, "a_pos"},
		{`{"a": {"$gte": 1, "$lt": 5}}`, `{"a": -1}`, ``, "a_pos"},
		{`{"a": {"$in": [3, 4]}}`, ``, ``, "a_pos"},
		{`{"a": {"$gt": 0}}`, ``, ``, "a_pos"},
		{`{"a": {"$gte": 0}}`, ``, ``, ""},
		{`{"a": {"$lt": 4}}`, ``, ``, ""},
		{`{"a": {"$in": [0, 3]}}`, ``, ``, ""},
		{`{"a": "5"}`, ``, ``, ""},
		{`{"$or": [{"a": 3}, {"a": {"$gt": 4}}]}`, ``, ``, ""},
		// An $in filter: an equality on one of its values, or the same $in.
		{`{"x": {"$gt": 1}, "p": 5}`, ``, ``, "x_in"},
		{`{"x": 1, "p": 3}`, ``, ``, "x_in"},
		{`{"x": {"$gt": 1}, "p": {"$in": [5, 3]}}`, ``, ``, "x_in"},
		{`{"x": {"$gt": 1}, "p": {"$in": [3]}}`, ``, ``, "x_in"},
		{`{"x": {"$gt": 1}, "p": {"$in": [3, 4]}}`, ``, ``, ""},
		{`{"x": 3, "p": {"$lt": 6}}`, ``, ``, ""},
		{`{"x": 2}`, ``, ``, ""},
		// An $or of an $and: jstests/core/index/index_partial_read_ops.js.
		{`{"y": 1, "p": 3}`, ``, ``, "y_or"},
		{`{"y": 2, "p": 5, "b": 5}`, ``, ``, "y_or"},
		{`{"y": {"$gte": 1}, "b": 5, "p": 5}`, `{"y": 1}`, ``, "y_or"},
		{`{"y": 3, "p": 5}`, ``, ``, ""},
		{`{"y": 3, "p": 5, "b": 1}`, ``, ``, ""},
		// A filter on strings: only under the index's collation.
		{`{"s": "Q"}`, ``, ci, "s_ci"},
		{`{"s": {"$gt": "N"}}`, ``, ci, "s_ci"},
		{`{"s": "Q"}`, ``, ``, ""},
		{`{"s": {"$gt": "n"}}`, ``, ``, ""},
		{`{"s": "A"}`, ``, ci, ""},
		// $exists: true, implied by what needs a value.
		{`{"f": {"$gte": 1}, "e": 1}`, ``, ``, "f_exists"},
		{`{"f": {"$gte": 1}, "e": {"$gt": 0}}`, ``, ``, "f_exists"},
		{`{"f": {"$gte": 1}, "e": {"$type": "string"}}`, ``, ``, "f_exists"},
		{`{"f": {"$gte": 1}, "e": {"$in": [1, "x"]}}`, `{"f": -1}`, ``, "f_exists"},
		{`{"f": {"$gte": 1}, "e": {"$exists": true}}`, ``, ``, "f_exists"},
		{`{"f": {"$gte": 1}, "e": {"$ne": null}}`, ``, ``, "f_exists"},
		{`{"f": {"$gte": 1}, "e": {"$elemMatch": {"$eq": 1}}}`, ``, ``, "f_exists"},
		{`{"f": {"$gte": 1}, "e": null}`, ``, ``, ""},
		{`{"f": {"$gte": 1}, "e": {"$in": [1, null]}}`, ``, ``, ""},
		{`{"f": {"$gte": 1}, "e": {"$ne": 1}}`, ``, ``, ""},
		{`{"f": {"$gte": 1}}`, ``, ``, ""},
	} {
		q := `"filter": ` + c.filter
		if c.sort != "" {
			q += `, "sort": ` + c.sort
		}
		if c.collation != "" {
			q += `, "collation": ` + c.collation
		}
		what := fmt.Sprintf("find %s", q)
		r := mustRun(t, db, "test", `{"explain": {"find": "c", `+q+`}, "verbosity": "queryPlanner"}`)
		if got := winningIndex(r); got != c.ix {
			t.Errorf("%s: plan reads %q, want %q", what, got, c.ix)
		}
		if c.ix != "" && findStage(r, "IXSCAN", "isPartial") != true {
			t.Errorf("%s: explain's isPartial is not true: %v", what, field(r, "queryPlanner.winningPlan"))
		}
		// The same documents, in the same order when sorted, as a
		// collection scan; the same count.
		planned := runFind(t, db, "test", ejson(t, `{"find": "c", `+q+`}`))
		scanned := runFind(t, db, "test", ejson(t, `{"find": "c", `+q+`, "hint": {"$natural": 1}}`))
		if c.sort == "" {
			if fmt.Sprint(idsOf(t, planned)) != fmt.Sprint(idsOf(t, scanned)) {
				t.Errorf("%s: planned %v, scanned %v", what, idsOf(t, planned), idsOf(t, scanned))
			}
		} else if k := ejson(t, c.sort)[0].Key; fmt.Sprint(idsOf(t, planned)) != fmt.Sprint(idsOf(t, scanned)) ||
			fmt.Sprint(valuesOf(planned, k)) != fmt.Sprint(valuesOf(scanned, k)) {
			t.Errorf("%s: planned %v, scanned %v", what, idsOf2(planned), idsOf2(scanned))
		}
		cq := `"query": ` + c.filter
		if c.collation != "" {
			cq += `, "collation": ` + c.collation
		}
		n1 := field(mustRun(t, db, "test", `{"count": "c", `+cq+`}`), "n")
		n2 := field(mustRun(t, db, "test", `{"count": "c", `+cq+`, "hint": {"$natural": 1}}`), "n")
		if n1 != n2 || fmt.Sprint(n1) != fmt.Sprint(len(scanned)) {
			t.Errorf("count %s: %v planned, %v scanned, %d found", cq, n1, n2, len(scanned))
		}
	}
	// The TTL case through a write: a delete of the expired "done"
	// documents reads the index and removes those only.
	r := mustRun(t, db, "test", `{"explain": {"delete": "c", "deletes": [{"q": {"status": "done", "createdAt": {"$lt": {"$date": "2100-03-01T00:00:00Z"}}}, "limit": 0}]}, "verbosity": "queryPlanner"}`)
	if got := winningIndex(r); got != "done_ttl" {
		t.Errorf("delete plan reads %q, want done_ttl", got)
	}
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"status": "done", "createdAt": {"$lt": {"$date": "2100-03-01T00:00:00Z"}}}, "limit": 0}]}`)
	if got := idsOf(t, findAll(t, db, "test", "c", bson.D{})); fmt.Sprint(got) != "[2 3 4 5 6 7 8 9]" {
		t.Errorf("after the delete: %v", got)
	}
}

// valuesOf returns field k of each document, in order.
func valuesOf(docs []bson.D, k string) []any {
	out := make([]any, len(docs))
	for i, d := range docs {
		out[i] = field(d, k)
	}
	return out
}

// findStage returns field f of the first stage named name in an
// explain reply's winning plan.
func findStage(r bson.D, name, f string) any {
	st, _ := field(r, "queryPlanner.winningPlan").(bson.D)
	for st != nil {
		if s, _ := get(st, "stage"); s == name {
			v, _ := get(st, f)
			return v
		}
		st, _ = field(st, "inputStage").(bson.D)
	}
	return nil
}

// TestPartialIndexOverlapping is jstests/core/index/index_partial_read_ops.js's
// three partial indexes on one key, each a range of the one before: a
// query within a range reads an index whose filter it implies, one
// outside them all is a collection scan, and each returns what a
// collection scan does.
func TestPartialIndexOverlapping(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": 1}`, `{"_id": 2, "a": 2}`, `{"_id": 3, "a": 3}`,
		`{"_id": 11, "a": 11}`, `{"_id": 12, "a": 12}`, `{"_id": 13, "a": 13}`,
		`{"_id": 101, "a": 101}`, `{"_id": 102, "a": 102}`, `{"_id": 103, "a": 103}`})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"a": 1}, "name": "index1", "partialFilterExpression": {"a": {"$gte": 0}}},
		{"key": {"a": 1}, "name": "index2", "partialFilterExpression": {"a": {"$gte": 10}}},
		{"key": {"a": 1}, "name": "index3", "partialFilterExpression": {"a": {"$gte": 100}}}]}`)
	for _, c := range []struct {
		filter  string
		indexes []string // the indexes the plan may read
		ids     string
	}{
		{`{"a": {"$gt": 0, "$lt": 10}}`, []string{"index1"}, "[1 2 3]"},
		{`{"a": {"$gt": 10, "$lt": 100}}`, []string{"index1", "index2"}, "[11 12 13]"},
		{`{"a": {"$gt": 100, "$lt": 1000}}`, []string{"index1", "index2", "index3"}, "[101 102 103]"},
		{`{"a": {"$gt": 0}}`, []string{"index1"}, "[1 2 3 11 12 13 101 102 103]"},
		{`{"a": {"$lt": 0}}`, []string{""}, "[]"},
	} {
		r := mustRun(t, db, "test", `{"explain": {"find": "c", "filter": `+c.filter+`}, "verbosity": "queryPlanner"}`)
		got := winningIndex(r)
		ok := false
		for _, want := range c.indexes {
			ok = ok || got == want
		}
		if !ok {
			t.Errorf("%s reads %q, want one of %q", c.filter, got, c.indexes)
		}
		planned := idsOf(t, runFind(t, db, "test", ejson(t, `{"find": "c", "filter": `+c.filter+`}`)))
		scanned := idsOf(t, runFind(t, db, "test", ejson(t, `{"find": "c", "filter": `+c.filter+`, "hint": {"$natural": 1}}`)))
		if fmt.Sprint(planned) != c.ids || fmt.Sprint(scanned) != c.ids {
			t.Errorf("%s: planned %v, scanned %v, want %s", c.filter, planned, scanned, c.ids)
		}
	}
}

// TestPartialIndexHinted: a hint may name a partial index whose filter
// the query does not imply. mongod takes it (SERVER-26413) and
// scans the whole index, its bounds unused: only the documents the
// index holds are found. A query that implies the filter scans within
// its bounds.
func TestPartialIndexHinted(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "x": 100}`, `{"_id": 2, "x": 100, "y": 1}`, `{"_id": 3, "x": 5, "y": 2}`})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"x": 1}, "name": "x_1", "partialFilterExpression": {"y": {"$exists": true}}}]}`)
	if got := idsOf(t, runFind(t, db, "test", ejson(t, `{"find": "c", "filter": {"x": 100}}`))); fmt.Sprint(got) != "[1 2]" {
		t.Errorf("unhinted: %v", got)
	}
	if got := idsOf(t, runFind(t, db, "test", ejson(t, `{"find": "c", "filter": {"x": 100}, "hint": {"x": 1}}`))); fmt.Sprint(got) != "[2]" {
		t.Errorf("hinted: %v, want only the indexed document", got)
	}
	r := mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"x": 100}, "hint": "x_1"}, "verbosity": "queryPlanner"}`)
	if b := findStage(r, "IXSCAN", "indexBounds"); !document.Equal(b, bson.D{{Key: "x", Value: bson.A{"[MinKey, MaxKey]"}}}) {
		t.Errorf("hinted, not implied: bounds %v, want the whole index", b)
	}
	r = mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"x": 100, "y": 1}, "hint": "x_1"}, "verbosity": "queryPlanner"}`)
	if b := findStage(r, "IXSCAN", "indexBounds"); !document.Equal(b, bson.D{{Key: "x", Value: bson.A{"[100, 100]"}}}) {
		t.Errorf("hinted, implied: bounds %v, want [100, 100]", b)
	}
}

// TestPartialIndexPlansRandom runs random queries over random documents
// with partial indexes whose filters the queries often imply: whatever
// plan the planner makes, it returns what a collection scan returns.
// The seed is printed so that a failure replays.
func TestPartialIndexPlansRandom(t *testing.T) {
	t.Parallel()
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	db, _ := openMem(t)
	vals := []string{`1`, `2`, `3.5`, `-1`, `"x"`, `"y"`, `null`, `[1, 3]`, `[]`, `{"k": 1}`, `true`, `{"$date": "2100-01-01T00:00:00Z"}`}
	val := func() string { return vals[rng.Intn(len(vals))] }
	var docs []string
	for i := 0; i < 150; i++ {
		d := fmt.Sprintf(`{"_id": %d`, i)
		for _, f := range []string{"a", "b", "c"} {
			if rng.Intn(5) > 0 {
				d += fmt.Sprintf(`, %q: %s`, f, val())
			}
		}
		docs = append(docs, d+"}")
	}
	loadCorpus(t, db, "test", "c", docs)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"a": 1}, "name": "a_gt", "partialFilterExpression": {"a": {"$gt": 1}}},
		{"key": {"a": -1, "_id": 1}, "name": "ac_b", "partialFilterExpression": {"b": {"$in": [1, 2]}}},
		{"key": {"c": 1}, "name": "c_ex", "partialFilterExpression": {"b": {"$exists": true}, "c": {"$type": "number"}}},
		{"key": {"b": 1}, "name": "b_or", "partialFilterExpression": {"$or": [{"a": "x"}, {"c": {"$lte": 2}}]}}]}`)
	ops := []string{"$eq", "$gt", "$gte", "$lt", "$lte", "$in", "$exists", "$type", "$ne"}
	cond := func() string {
		f := []string{"a", "b", "c"}[rng.Intn(3)]
		switch op := ops[rng.Intn(len(ops))]; op {
		case "$in":
			return fmt.Sprintf(`{%q: {"$in": [%s, %s]}}`, f, val(), val())
		case "$exists":
			return fmt.Sprintf(`{%q: {"$exists": %v}}`, f, rng.Intn(2) == 0)
		case "$type":
			return fmt.Sprintf(`{%q: {"$type": %q}}`, f, []string{"number", "string", "array"}[rng.Intn(3)])
		default:
			return fmt.Sprintf(`{%q: {%q: %s}}`, f, op, val())
		}
	}
	used := 0
	for i := 0; i < 300; i++ {
		var parts []string
		for j := rng.Intn(3) + 1; j > 0; j-- {
			parts = append(parts, cond())
		}
		if rng.Intn(2) == 0 {
			// A condition implying one of the filters, often.
			implying := []string{`{"a": {"$gt": 2}}`, `{"a": {"$gte": 3.5}}`, `{"b": 1}`, `{"b": {"$in": [2]}}`,
				`{"b": {"$exists": true}, "c": {"$type": "number"}}`, `{"a": "x"}`, `{"c": {"$lt": 2}}`, `{"a": 2}`}
			parts = append(parts, implying[rng.Intn(len(implying))])
		}
		filter := `{"$and": [` + strings.Join(parts, ", ") + `]}`
		if rng.Intn(4) == 0 {
			filter = `{"$or": [` + strings.Join(parts, ", ") + `]}`
		}
		q := `"filter": ` + filter
		if rng.Intn(3) == 0 {
			q += `, "sort": {"a": 1, "_id": 1}`
		}
		r, err := run(t, db, "test", `{"explain": {"find": "c", `+q+`}, "verbosity": "queryPlanner"}`)
		if err != nil {
			t.Fatalf("seed %d: explain %s: %v", seed, q, err)
		}
		if winningIndex(r) != "" {
			used++
		}
		planned := idsOf2(runFind(t, db, "test", ejson(t, `{"find": "c", `+q+`}`)))
		scanned := idsOf2(runFind(t, db, "test", ejson(t, `{"find": "c", `+q+`, "hint": {"$natural": 1}}`)))
		if !strings.Contains(q, "sort") {
			slices.SortFunc(planned, func(x, y any) int { return document.Compare(x, y) })
			slices.SortFunc(scanned, func(x, y any) int { return document.Compare(x, y) })
		}
		if fmt.Sprint(planned) != fmt.Sprint(scanned) {
			t.Fatalf("seed %d: find %s: planned %v (%s), scanned %v", seed, q, planned, winningIndex(r), scanned)
		}
	}
	if used == 0 {
		t.Fatalf("seed %d: no query read a partial index", seed)
	}
	t.Logf("seed %d: %d of 300 queries read a partial index", seed, used)
}
