package engine

import (
	"fmt"
	"go.mongodb.org/mongo-driver/v2/bson"
	"math/rand/v2"
	"strings"
	"testing"
)

// A count that the index's keys answer exactly counts them without
// fetching a document, and gives what a collection scan counts: random
// documents of mixed types (NaN, infinities, -0, decimals, strings of
// two cases, dates, booleans, nulls, missing fields) and random filters
// of equalities, $in and ranges, on single-field, compound, collated
// and hinted indexes.
func TestCountByKeysAgreesWithScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 2029))
	scalar := func() string {
		switch rng.IntN(11) {
		case 0, 1:
			return fmt.Sprint(rng.IntN(4) - 1)
		case 2:
			return fmt.Sprintf("%d.5", rng.IntN(3))
		case 3:
			return []string{`{"$numberDouble": "NaN"}`, `{"$numberDouble": "Infinity"}`, `{"$numberDouble": "-Infinity"}`, `{"$numberDouble": "-0.0"}`}[rng.IntN(4)]
		case 4:
			return fmt.Sprintf(`{"$numberDecimal": "%d.5"}`, rng.IntN(3))
		case 5, 6:
			return fmt.Sprintf(`"%c"`, []rune("aAbB")[rng.IntN(4)])
		case 7:
			return fmt.Sprintf(`{"$date": "2026-01-0%dT00:00:00Z"}`, 1+rng.IntN(3))
		case 8:
			return []string{"true", "false"}[rng.IntN(2)]
		case 9:
			return fmt.Sprintf(`{"$numberLong": "%d"}`, rng.IntN(3))
		}
		return "null"
	}
	db, _ := openMem(t)
	n := 400
	if raceOn {
		n = 120
	}
	var docs []string
	for i := 0; i < n; i++ {
		fields := []string{fmt.Sprintf(`"_id": %d`, i)}
		for _, f := range []string{"a", "b", "s"} {
			if rng.IntN(6) > 0 {
				fields = append(fields, fmt.Sprintf(`"%s": %s`, f, scalar()))
			}
		}
		docs = append(docs, "{"+strings.Join(fields, ", ")+"}")
	}
	loadCorpus(t, db, "test", "c", docs)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"a": 1}, "name": "a_1"},
		{"key": {"a": 1, "b": -1}, "name": "a_b"},
		{"key": {"s": 1}, "name": "s_ci", "collation": {"locale": "en", "strength": 2}},
		{"key": {"b": 1}, "name": "b_sparse", "sparse": true},
		{"key": {"b": 1, "s": 1}, "name": "b_partial", "partialFilterExpression": {"b": {"$gt": 0}}}]}`)
	cond := func() string {
		switch rng.IntN(4) {
		case 0:
			return fmt.Sprintf(`{"$in": [%s, %s]}`, scalar(), scalar())
		case 1:
			op := []string{"$gt", "$gte", "$lt", "$lte"}[rng.IntN(4)]
			return fmt.Sprintf(`{"%s": %s}`, op, scalar())
		case 2:
			return fmt.Sprintf(`{"$gt": %s, "$lt": %s}`, scalar(), scalar())
		}
		return scalar()
	}
	counted := 0
	for i := 0; i < 400; i++ {
		var parts []string
		for _, f := range []string{"a", "b", "s"} {
			if rng.IntN(2) == 0 {
				parts = append(parts, fmt.Sprintf(`"%s": %s`, f, cond()))
			}
		}
		filter := "{" + strings.Join(parts, ", ") + "}"
		coll := ""
		if rng.IntN(3) == 0 {
			coll = `, "collation": {"locale": "en", "strength": 2}`
		}
		// (A hinted sparse or partial index leaves out documents a filter
		// on null or outside its filter matches, as in mongod: not hinted
		// here; their keys never answer a count.)
		hint := []string{"", `, "hint": "a_1"`, `, "hint": "a_b"`, `, "hint": "s_ci"`}[rng.IntN(4)]
		skip := ""
		if rng.IntN(4) == 0 {
			skip = fmt.Sprintf(`, "skip": %d, "limit": %d`, rng.IntN(5), rng.IntN(8))
		}
		r := mustRun(t, db, "test", `{"count": "c", "query": `+filter+coll+hint+skip+`}`)
		want := mustRun(t, db, "test", `{"count": "c", "query": `+filter+coll+`, "hint": {"$natural": 1}`+skip+`}`)
		if field(r, "n") != field(want, "n") {
			ex := mustRun(t, db, "test", `{"explain": {"count": "c", "query": `+filter+coll+hint+`}}`)
			t.Fatalf("count %s%s%s: %v; a collection scan counts %v; plan %v", filter, coll, hint, field(r, "n"), field(want, "n"), field(ex, "queryPlanner.winningPlan"))
		}
		ex := mustRun(t, db, "test", `{"explain": {"count": "c", "query": `+filter+coll+hint+`}}`)
		if field(ex, "queryPlanner.winningPlan.inputStage.stage") == "IXSCAN" {
			counted++
		}
	}
	if counted == 0 {
		t.Fatalf("no count was answered by the keys alone")
	}
	t.Logf("%d of 400 counts by keys alone", counted)
}

// A count planned before a writer made the index multikey does not
// count that document's keys: the catalog entry in the snapshot the
// keys are read from says the index is multikey now, and the count
// fetches documents instead.
func TestCountByKeysAfterIndexTurnsMultikey(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "r", "indexes": [{"key": {"a": 1}, "name": "a"}]}`)
	mustRun(t, db, "test", `{"insert": "r", "documents": [{"_id": 1, "a": 1}]}`)
	_, p, q, err := db.findPlan("test", "r", mustDoc(t, `{"a": {"$gte": 1}}`), FindOptions{})
	if err != nil || !keyCountable(p) {
		t.Fatalf("plan: %v, countable %v", err, keyCountable(p))
	}
	mustRun(t, db, "test", `{"insert": "r", "documents": [{"_id": 2, "a": [1, 2, 3]}]}`)
	if n, ok, err := db.countKeys(t.Context(), q.sc); err != nil || ok {
		t.Fatalf("countKeys after the index turned multikey: %d, ok %v, %v; want it to decline", n, ok, err)
	}
	if r := mustRun(t, db, "test", `{"count": "r", "query": {"a": {"$gte": 1}}}`); field(r, "n") != int32(2) {
		t.Fatalf("count: %v", r)
	}
}

// A find planned before a writer made its index multikey takes each
// document once: the scan sees, in the snapshot it reads, that the
// index is multikey now.
func TestFindAfterIndexTurnsMultikey(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "r", "indexes": [{"key": {"a": 1}, "name": "a"}]}`)
	mustRun(t, db, "test", `{"insert": "r", "documents": [{"_id": 1, "a": 1}]}`)
	_, p, q, err := db.findPlan("test", "r", mustDoc(t, `{"a": {"$gte": 1}}`), FindOptions{})
	if err != nil || p.ix == nil || p.ix.Multikey {
		t.Fatalf("plan: %v", err)
	}
	mustRun(t, db, "test", `{"insert": "r", "documents": [{"_id": 2, "a": [1, 2, 3]}]}`)
	docs, err := q.nextBatch(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []any
	for _, d := range docs {
		ids = append(ids, field(d, "_id"))
	}
	if len(ids) != 2 {
		t.Fatalf("documents %v, want 1 and 2 once each", ids)
	}
}

// explain of a count: COUNT over the index scan that answers it, with
// mongod's nCounted and nSkipped after skip and limit, and no
// documents returned; the figures only under executionStats.
func TestExplainCount(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "e", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2}, {"_id": 3, "a": 2}, {"_id": 4, "a": 2}]}`)
	mustRun(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	for _, c := range []struct {
		query, input string
	}{
		{`{"a": 2}`, "COUNT_SCAN"},                     // the keys of one interval answer it
		{`{"a": {"$in": [1, 2]}}`, "IXSCAN"},           // the keys of two
		{`{"a": 2, "b": {"$exists": false}}`, "FETCH"}, // documents must be read
	} {
		r := mustRun(t, db, "test", `{"explain": {"count": "e", "query": `+c.query+`, "skip": 1, "limit": 1}, "verbosity": "executionStats"}`)
		st := field(r, "executionStats.executionStages")
		if field(st.(bson.D), "stage") != "COUNT" || field(st.(bson.D), "nCounted") != int32(1) || field(st.(bson.D), "nSkipped") != int32(1) ||
			field(st.(bson.D), "nReturned") != int32(0) || field(st.(bson.D), "inputStage.stage") != c.input {
			t.Errorf("count %s: %v", c.query, st)
		}
		if field(r, "executionStats.nReturned") != int32(0) || field(r, "queryPlanner.winningPlan.nCounted") != nil {
			t.Errorf("count %s: %v", c.query, r)
		}
	}
	// COUNT_SCAN's bounds as mongod writes them: start and end keys.
	r := mustRun(t, db, "test", `{"explain": {"count": "e", "query": {"a": 2}}, "verbosity": "queryPlanner"}`)
	if got := fmtValue(field(r, "queryPlanner.winningPlan.inputStage.indexBounds")); got != `{ startKey: { a: 2 }, startKeyInclusive: true, endKey: { a: 2 }, endKeyInclusive: true }` {
		t.Errorf("COUNT_SCAN bounds %s", got)
	}
}
