package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestSortSpillsToDisk checks sorts that no index gives and that pass
// internalQueryMaxBlockingSortMemoryUsageBytes: a find's SORT and an
// aggregate's $sort (pushed into the scan or after a $group) write
// sorted runs to the data directory's _tmp and return every document in
// order, across getMore batches and with a limit; with allowDiskUse:
// false they fail with 292 as mongod does; the run files are unlinked.
func TestSortSpillsToDisk(t *testing.T) {
	t.Parallel()
	db, _, dir := openTest(t)
	const n = 600
	var docs []string
	for i := range n {
		// k is a permutation of 0..n-1; g has 40 groups.
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "k": %d, "g": %d, "pad": "%s"}`, i, (i*7919)%n, i%40, strings.Repeat("x", 100)))
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [`+strings.Join(docs, ",")+`]}`)
	mustRun(t, db, "admin", `{"setParameter": 1, "internalQueryMaxBlockingSortMemoryUsageBytes": 4000}`)

	keys := func(batch bson.A, f string) []int32 {
		var out []int32
		for _, d := range batch {
			out = append(out, field(d.(bson.D), f).(int32))
		}
		return out
	}
	readAll := func(cmd string) []int32 {
		t.Helper()
		r := mustRun(t, db, "test", cmd)
		got := keys(field(r, "cursor.firstBatch").(bson.A), "k")
		id := field(r, "cursor.id").(int64)
		for id != 0 {
			r = mustRun(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "c", "batchSize": 150}`, id))
			got = append(got, keys(field(r, "cursor.nextBatch").(bson.A), "k")...)
			id = field(r, "cursor.id").(int64)
		}
		return got
	}
	ascending := func(what string, got []int32, want int) {
		t.Helper()
		if len(got) != want || !slices.IsSorted(got) || (want > 0 && got[len(got)-1]-got[0] != int32(want-1)) {
			t.Fatalf("%s: %d keys, sorted %v, first %v", what, len(got), slices.IsSorted(got), got[:min(3, len(got))])
		}
	}
	ascending("find", readAll(`{"find": "c", "sort": {"k": 1}, "batchSize": 101}`), n)
	ascending("find with a limit", readAll(`{"find": "c", "sort": {"k": 1}, "limit": 250, "batchSize": 50}`), 250)
	ascending("find with skip and limit", readAll(`{"find": "c", "sort": {"k": 1}, "skip": 590, "limit": 20}`), 10)
	ascending("aggregate, $sort in the scan", readAll(`{"aggregate": "c", "pipeline": [{"$sort": {"k": 1}}], "cursor": {"batchSize": 101}}`), n)
	ascending("aggregate, $sort after $unwind", readAll(`{"aggregate": "c", "pipeline": [{"$unwind": "$g"}, {"$sort": {"k": 1}}], "cursor": {}}`), n)
	r := mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$group": {"_id": "$g", "ks": {"$push": "$k"}, "pad": {"$push": "$pad"}}}, {"$sort": {"_id": -1}}, {"$project": {"pad": 0}}], "cursor": {}}`)
	if b := field(r, "cursor.firstBatch").(bson.A); len(b) != 40 || field(b[0].(bson.D), "_id") != int32(39) || field(b[39].(bson.D), "_id") != int32(0) {
		t.Fatalf("$sort after $group: %d groups, %v first", len(b), b[:1])
	}
	if ents, err := os.ReadDir(filepath.Join(dir, "_tmp")); err != nil || len(ents) != 0 {
		t.Fatalf("_tmp: %v %v, want an empty directory (the runs are unlinked)", ents, err)
	}

	// explain's executionStats show the SORT stage's figures as
	// mongod's do; the plan alone shows its memLimit and type, not
	// what it sorted.
	ex := mustRun(t, db, "test", `{"explain": {"find": "c", "sort": {"k": 1}}, "verbosity": "executionStats"}`)
	srt := field(ex, "executionStats.executionStages").(bson.D)
	if field(srt, "stage") != "SORT" || field(srt, "memLimit") != int32(4000) || field(srt, "usedDisk") != true ||
		field(srt, "spills").(int32) < 10 || field(srt, "type") != "simple" || field(srt, "totalDataSizeSorted").(int32) < 600*100 {
		t.Fatalf("explain's SORT: %s", document.Format(srt))
	}
	if plan := field(ex, "queryPlanner.winningPlan").(bson.D); keysOf(plan) != "stage sortPattern memLimit type inputStage" {
		t.Fatalf("the winning plan shows execution figures: %s", document.Format(plan))
	}
	ex = mustRun(t, db, "test", `{"explain": {"find": "c", "sort": {"k": 1}, "limit": 2}, "verbosity": "executionStats"}`)
	// The limit is the SORT's (mongod's limitAmount): no LIMIT stage.
	if s := field(ex, "executionStats.executionStages").(bson.D); field(s, "stage") != "SORT" || field(s, "limitAmount") != int32(2) ||
		field(s, "usedDisk") != false || field(s, "spills") != int32(0) {
		t.Fatalf("explain's SORT with a small limit: %s", document.Format(s))
	}

	const refused = "Sort exceeded memory limit of 4000 bytes, but did not opt in to external sorting."
	wantCode(t, db, "test", `{"find": "c", "sort": {"k": 1}, "allowDiskUse": false}`, document.CodeQueryExceededMemoryLimit, refused)
	wantCode(t, db, "test", `{"aggregate": "c", "pipeline": [{"$sort": {"k": 1}}], "allowDiskUse": false, "cursor": {}}`, document.CodeQueryExceededMemoryLimit, refused)
	wantCode(t, db, "test", `{"aggregate": "c", "pipeline": [{"$unwind": "$g"}, {"$sort": {"k": 1}}], "allowDiskUse": false, "cursor": {}}`, document.CodeQueryExceededMemoryLimit, refused)
	wantCode(t, db, "test", `{"find": "c", "sort": {"k": 1}, "allowDiskUse": 1}`, document.CodeTypeMismatch, "allowDiskUse")
	// A top-k that fits needs no disk, allowed or not.
	ascending("a small top-k without disk", readAll(`{"find": "c", "sort": {"k": 1}, "limit": 3, "allowDiskUse": false}`), 3)
	ascending("allowDiskUse: true", readAll(`{"find": "c", "sort": {"k": 1}, "allowDiskUse": true}`), n)
}

// TestGroupSpillsToDisk checks a $group past
// internalDocumentSourceGroupMaxMemoryBytes: by default it spills its
// groups and returns each once with every document counted; with
// allowDiskUse: false it is 292 as in mongod.
func TestGroupSpillsToDisk(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	var docs []string
	for i := range 900 {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "user": "u%03d", "n": %d}`, i, i%300, i))
	}
	mustRun(t, db, "test", `{"insert": "ev", "documents": [`+strings.Join(docs, ",")+`]}`)
	mustRun(t, db, "admin", `{"setParameter": 1, "internalDocumentSourceGroupMaxMemoryBytes": 3000}`)
	pipeline := `[{"$group": {"_id": "$user", "n": {"$sum": 1}, "total": {"$sum": "$n"}, "ids": {"$push": "$_id"}}}, {"$sort": {"_id": 1}}]`
	r := mustRun(t, db, "test", `{"aggregate": "ev", "pipeline": `+pipeline+`, "cursor": {"batchSize": 1000}}`)
	b := field(r, "cursor.firstBatch").(bson.A)
	if len(b) != 300 {
		t.Fatalf("%d groups, want 300", len(b))
	}
	for i, g := range b {
		d := g.(bson.D)
		// user i holds documents i, i+300, i+600, in that order.
		if field(d, "_id") != fmt.Sprintf("u%03d", i) || field(d, "n") != int32(3) || field(d, "total") != int32(3*i+900) ||
			document.Format(field(d, "ids")) != fmt.Sprintf("[ %d, %d, %d ]", i, i+300, i+600) {
			t.Fatalf("group %d: %s", i, document.Format(d))
		}
	}
	wantCode(t, db, "test", `{"aggregate": "ev", "pipeline": `+pipeline+`, "allowDiskUse": false, "cursor": {}}`, document.CodeQueryExceededMemoryLimit, "$group")
}

// TestCollatedSortSpills checks a collated sort that spills: each run is
// sorted with the collation's keys and the merge compares with the
// collation, so "a", "B", "c" interleave case-insensitively.
func TestCollatedSortSpills(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	var docs []string
	for i := range 300 {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "s": "%c%03d"}`, i, "aBcD"[i%4], (i*37)%300))
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [`+strings.Join(docs, ",")+`]}`)
	mustRun(t, db, "admin", `{"setParameter": 1, "internalQueryMaxBlockingSortMemoryUsageBytes": 2000}`)
	r := mustRun(t, db, "test", `{"find": "c", "sort": {"s": 1}, "collation": {"locale": "en", "strength": 2}, "batchSize": 300}`)
	b := field(r, "cursor.firstBatch").(bson.A)
	if len(b) != 300 {
		t.Fatalf("%d documents", len(b))
	}
	prev := ""
	for _, d := range b {
		s := strings.ToLower(field(d.(bson.D), "s").(string))
		if s < prev {
			t.Fatalf("%q after %q: not in the collation's order", s, prev)
		}
		prev = s
	}
	ex := mustRun(t, db, "test", `{"explain": {"find": "c", "sort": {"s": 1}, "collation": {"locale": "en", "strength": 2}}, "verbosity": "executionStats"}`)
	if field(ex, "executionStats.executionStages.usedDisk") != true {
		t.Fatalf("the collated sort did not spill: %s", document.Format(field(ex, "executionStats.executionStages")))
	}
}
