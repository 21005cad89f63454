package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// A multikey index keeps which of its fields met an array: a range on a
// field that never did is intersected (both ends bound the scan), as
// mongod's multikey paths allow; once a document puts an array there,
// the field takes one conjunct's bounds again, and the document is
// found. The record survives a restart.
func TestMultikeyFieldsBounds(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "m", "indexes": [{"key": {"tags": 1, "at": 1}, "name": "tags_at"}]}`)
	var docs []string
	for i := 0; i < 200; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "tags": ["t%d", "all"], "at": %d}`, i, i%4, i))
	}
	loadCorpus(t, db, "test", "m", docs)
	filter := `{"tags": "all", "at": {"$gte": 100, "$lt": 110}}`
	bounds := func() string {
		t.Helper()
		ex := mustRun(t, db, "test", `{"explain": {"find": "m", "filter": `+filter+`}, "verbosity": "executionStats"}`)
		b := fmt.Sprint(field(ex, "queryPlanner.winningPlan.inputStage.indexBounds.at"))
		return b + fmt.Sprintf(" examined %v", field(ex, "executionStats.totalKeysExamined"))
	}
	if b := bounds(); !strings.HasPrefix(b, "[[100, 110)]") || !strings.HasSuffix(b, "examined 10") {
		t.Fatalf("at, never an array, is not intersected: %s", b)
	}
	if got := firstIDs(t, db, `{"find": "m", "filter": `+filter+`, "sort": {"_id": 1}}`); len(got) != 10 || got[0] != 100 {
		t.Fatalf("%v", got)
	}
	db = reopen(t, db, dir, clk)
	if b := bounds(); !strings.HasPrefix(b, "[[100, 110)]") {
		t.Fatalf("after a restart: %s", b)
	}
	// A document whose at is an array meets both conditions by
	// different elements: the bounds may no longer be intersected.
	mustRun(t, db, "test", `{"insert": "m", "documents": [{"_id": 1000, "tags": "all", "at": [5, 500]}]}`)
	if b := bounds(); strings.HasPrefix(b, "[[100, 110)]") {
		t.Fatalf("at met an array, still intersected: %s", b)
	}
	got := firstIDs(t, db, `{"find": "m", "filter": `+filter+`, "sort": {"_id": 1}}`)
	if len(got) != 11 || got[10] != 1000 {
		t.Fatalf("after an array at at: %v", got)
	}
	if v := mustValidate(t, db, "test", "m"); !v.Valid() {
		t.Fatalf("validate: %+v", v)
	}
}

// Random documents with arrays on some fields of compound indexes,
// random filters with ranges and equalities on every field: the index
// finds what a collection scan finds, whichever fields met arrays.
func TestMultikeyFieldsMatchScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 32))
	db, _ := openMem(t)
	val := func(arr bool) string {
		if arr {
			return fmt.Sprintf("[%d, %d]", rng.IntN(10), rng.IntN(10))
		}
		return fmt.Sprint(rng.IntN(10))
	}
	var docs []string
	for i := 0; i < 400; i++ {
		// a is never an array; b sometimes; c.d through an array of
		// documents in some documents.
		cd := fmt.Sprintf(`{"d": %s}`, val(false))
		if i%9 == 0 && i%5 != 0 { // (not beside an array at b: 171)
			cd = fmt.Sprintf(`[{"d": %d}, {"d": %d, "e": 1}]`, rng.IntN(10), rng.IntN(10))
		}
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %s, "b": %s, "c": %s, "e": %s}`, i, val(false), val(i%5 == 0), cd, val(false)))
	}
	loadCorpus(t, db, "test", "scan", docs)
	loadCorpus(t, db, "test", "ix", docs)
	mustRun(t, db, "test", `{"createIndexes": "ix", "indexes": [{"key": {"a": 1, "b": 1, "c.d": -1}, "name": "abc"}, {"key": {"e": 1, "a": -1}, "name": "ea"}, {"key": {"c.d": 1, "c.e": 1}, "name": "cde"}]}`)
	conds := []string{`{"$gte": %d, "$lt": %d}`, `{"$gt": %d, "$lte": %d}`, `{"$in": [%d, %d]}`}
	queries := 300
	if raceOn {
		queries = 100
	}
	for i := 0; i < queries; i++ {
		var parts []string
		for _, f := range []string{"a", "b", "c.d", "e", "c.e"} {
			if rng.IntN(2) == 0 {
				continue
			}
			lo := rng.IntN(10)
			parts = append(parts, fmt.Sprintf(`"%s": `+conds[rng.IntN(len(conds))], f, lo, lo+rng.IntN(4)))
		}
		f := "{" + strings.Join(parts, ", ") + "}"
		want := firstIDs(t, db, `{"find": "scan", "filter": `+f+`, "sort": {"_id": 1}, "batchSize": 1000}`)
		got := firstIDs(t, db, `{"find": "ix", "filter": `+f+`, "sort": {"_id": 1}, "batchSize": 1000}`)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: index %v, scan %v", f, got, want)
		}
	}
}

// A multikey index gives a sort on fields no document met an array on:
// one tag's newest documents come from {tags: 1, at: 1} in index order,
// without a SORT stage, as mongod's; once a document puts an array at
// at, the sort is done in memory again, and its answer stays the
// collection scan's.
func TestMultikeyFieldsSort(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"tags": 1, "at": 1}, "name": "tags_at"}]}`)
	var docs []string
	for i := 0; i < 300; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "tags": ["t%d", "t%d"], "at": %d}`, i, i%5, (i+1)%5, (i*37)%300))
	}
	loadCorpus(t, db, "test", "s", docs)
	loadCorpus(t, db, "test", "plain", docs)
	check := func(wantSortStage bool) {
		t.Helper()
		for _, q := range []string{
			`"filter": {"tags": "t1"}, "sort": {"at": -1}, "limit": 7`,
			`"filter": {"tags": "t3"}, "sort": {"at": 1}, "skip": 3, "limit": 4`,
			`"filter": {"tags": "t2", "at": {"$gt": 100}}, "sort": {"at": -1}`,
		} {
			want := firstIDs(t, db, `{"find": "plain", `+q+`, "batchSize": 1000}`)
			got := firstIDs(t, db, `{"find": "s", `+q+`, "batchSize": 1000}`)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: index %v, scan %v", q, got, want)
			}
			ex := fmt.Sprint(mustRun(t, db, "test", `{"explain": {"find": "s", `+q+`}}`))
			if strings.Contains(ex, `"SORT"`) != wantSortStage || !strings.Contains(ex, "tags_at") {
				t.Fatalf("%s: SORT stage %v, want %v: %s", q, !wantSortStage, wantSortStage, ex)
			}
		}
	}
	check(false)
	mustRun(t, db, "test", `{"insert": "s", "documents": [{"_id": 1000, "tags": "t1", "at": [1, 299]}]}`)
	mustRun(t, db, "test", `{"insert": "plain", "documents": [{"_id": 1000, "tags": "t1", "at": [1, 299]}]}`)
	check(true)
}
