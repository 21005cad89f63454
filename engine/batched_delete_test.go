package engine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// bdCounters reads serverStatus().batchedDeletes through RunCommand.
type bdCounters struct{ batches, docs, staged, timeMS, refetches int64 }

func batchedDeleteStatus(t *testing.T, db *DB) bdCounters {
	t.Helper()
	r := mustRun(t, db, "admin", `{"serverStatus": 1}`)
	get64 := func(name string) int64 {
		v, ok := field(r, "batchedDeletes."+name).(int64)
		if !ok {
			t.Fatalf("serverStatus.batchedDeletes.%s = %#v, want an int64", name, field(r, "batchedDeletes."+name))
		}
		return v
	}
	return bdCounters{get64("batches"), get64("docs"), get64("stagedSizeBytes"), get64("timeInBatchMillis"), get64("refetchesDueToYield")}
}

func (a bdCounters) minus(b bdCounters) bdCounters {
	return bdCounters{a.batches - b.batches, a.docs - b.docs, a.staged - b.staged, a.timeMS - b.timeMS, a.refetches - b.refetches}
}

// seq inserts {_id: i, x: i % 2, pad} for i in [0, n) into coll.
func seq(t *testing.T, db *DB, coll string, n int) {
	t.Helper()
	if n == 0 {
		mustRun(t, db, "test", fmt.Sprintf(`{"create": %q}`, coll))
		return
	}
	docs := make([]bson.D, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i % 2)}, {Key: "pad", Value: "0123456789"}}
	}
	insertDocs(t, db, coll, docs...)
}

// docs/batched-deletes.md §4.1: the three batchedDeletes parameters, their defaults and
// validation, through setParameter and the Go setter alike.
func TestBatchedDeleteParameters(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	r := mustRun(t, db, "admin", `{"getParameter": 1, "batchedDeletesTargetBatchDocs": 1, "batchedDeletesTargetBatchTimeMS": 1, "batchedDeletesTargetStagedDocBytes": 1}`)
	want := map[string]any{"batchedDeletesTargetBatchDocs": int32(defaultBatchDocs),
		"batchedDeletesTargetBatchTimeMS": int32(5), "batchedDeletesTargetStagedDocBytes": int32(2 << 20)}
	for k, v := range want {
		if got := field(r, k); got != v {
			t.Errorf("getParameter %s = %#v, want %#v", k, got, v)
		}
	}
	for name, def := range want {
		for _, bad := range []string{`-1`, `"ten"`, `1.5`, `true`, `null`, `{"$numberDouble": "NaN"}`} {
			wantCode(t, db, "admin", fmt.Sprintf(`{"setParameter": 1, %q: %s}`, name, bad), document.CodeBadValue, name)
		}
		for _, bad := range []any{-1, "ten", 1.5, nil, int64(-9)} {
			_, err := db.SetParameter(name, bad)
			checkCode(t, fmt.Sprintf("SetParameter(%s, %v)", name, bad), err, document.CodeBadValue, name)
		}
		if v, _ := db.GetParameter(name); v != def {
			t.Fatalf("%s changed by rejected values: %#v", name, v)
		}
		// 0 (no target) and positive values are valid; "was" is the old value.
		r := mustRun(t, db, "admin", fmt.Sprintf(`{"setParameter": 1, %q: 0}`, name))
		if field(r, "was") != def {
			t.Fatalf("setParameter %s: was = %#v, want %#v", name, field(r, "was"), def)
		}
		old, err := db.SetParameter(name, int64(7))
		if err != nil || old != int32(0) {
			t.Fatalf("SetParameter(%s, 7) = %v, %v; want old 0", name, old, err)
		}
		if v, _ := db.GetParameter(name); v != int32(7) {
			t.Fatalf("GetParameter(%s) = %#v after setting 7", name, v)
		}
		if got := field(mustRun(t, db, "admin", fmt.Sprintf(`{"getParameter": 1, %q: 1}`, name)), name); got != int32(7) {
			t.Fatalf("getParameter %s = %#v after SetParameter 7", name, got)
		}
	}
	// The doc and time targets are 32-bit (a larger time target would
	// overflow its time.Duration); the byte target is 64-bit.
	for _, name := range []string{"batchedDeletesTargetBatchDocs", "batchedDeletesTargetBatchTimeMS"} {
		_, err := db.SetParameter(name, int64(math.MaxInt32)+1)
		checkCode(t, "SetParameter("+name+", MaxInt32+1)", err, document.CodeBadValue, name)
		wantCode(t, db, "admin", fmt.Sprintf(`{"setParameter": 1, %q: {"$numberLong": "9223372036854775807"}}`, name), document.CodeBadValue, name)
	}
	if _, err := db.SetParameter("batchedDeletesTargetStagedDocBytes", int64(1)<<40); err != nil {
		t.Fatalf("a 1 TiB byte target: %v", err)
	}
	if v, _ := db.GetParameter("batchedDeletesTargetStagedDocBytes"); v != int64(1)<<40 {
		t.Fatalf("batchedDeletesTargetStagedDocBytes = %#v, want int64(1<<40)", v)
	}
	db.SetParameter("batchedDeletesTargetStagedDocBytes", 7)
	if dt := db.deleteTargets(); dt != (deleteTargets{docs: 7, timeMS: 7, bytes: 7}) {
		t.Fatalf("deleteTargets = %+v, want all 7", dt)
	}
	// Startup values go through the same validation.
	if _, err := Open(t.TempDir(), Options{DisableTTLMonitor: true, Params: map[string]any{"batchedDeletesTargetBatchDocs": -3}}); err == nil {
		t.Fatal("Open accepted batchedDeletesTargetBatchDocs -3")
	}
}

// docs/batched-deletes.md §4.2: with the time and byte targets at 0 and
// batchedDeletesTargetBatchDocs = k, a delete of N documents adds
// exactly ceil(N/k) batches (k = 0: one batch).
func TestBatchedDeleteBatchCount(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	db.SetParameter("batchedDeletesTargetBatchTimeMS", 0)
	db.SetParameter("batchedDeletesTargetStagedDocBytes", 0)
	ns := []int{0, 1, 9, 10, 11, 100, 257, 600}
	if raceOn {
		// Under the race detector (one goroutine): without 600, whose
		// exact and rounded-up divisions 100 and 257 already make.
		ns = ns[:len(ns)-1]
	}
	for _, n := range ns {
		for _, k := range []int{0, 1, 3, 10, 100, 5000} {
			if (k == 1 && n > 11) || (k == 3 && n > 257) {
				continue // hundreds of tiny commits add nothing but time
			}
			coll := fmt.Sprintf("n%d_k%d", n, k)
			seq(t, db, coll, n)
			if _, err := db.SetParameter("batchedDeletesTargetBatchDocs", k); err != nil {
				t.Fatal(err)
			}
			before := batchedDeleteStatus(t, db)
			r := mustRun(t, db, "test", fmt.Sprintf(`{"delete": %q, "deletes": [{"q": {}, "limit": 0}]}`, coll))
			if field(r, "n") != int32(n) {
				t.Fatalf("N=%d k=%d: n = %v", n, k, field(r, "n"))
			}
			d := batchedDeleteStatus(t, db).minus(before)
			want := int64(0)
			switch {
			case n == 0:
			case k == 0:
				want = 1
			default:
				want = int64((n + k - 1) / k)
			}
			if d.batches != want || d.docs != int64(n) {
				t.Errorf("N=%d k=%d: +%d batches +%d docs, want +%d batches +%d docs", n, k, d.batches, d.docs, want, n)
			}
			if n > 0 && d.staged < int64(n)*20 {
				t.Errorf("N=%d k=%d: stagedSizeBytes grew by %d, want at least the documents' bytes", n, k, d.staged)
			}
			if d.timeMS < 0 || d.refetches != 0 {
				t.Errorf("N=%d k=%d: timeInBatchMillis %+d refetches %+d", n, k, d.timeMS, d.refetches)
			}
			if c := count(t, db, "test", coll); c != 0 {
				t.Fatalf("N=%d k=%d: %d documents left", n, k, c)
			}
		}
	}
}

// docs/batched-deletes.md §4.1: a batch commits when any target is met; the byte target
// alone, at one document's size, makes one batch per document.
func TestBatchedDeleteByteTarget(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	seq(t, db, "c", 40)
	raw, _ := document.Marshal(bson.D{{Key: "_id", Value: int32(0)}, {Key: "x", Value: int32(0)}, {Key: "pad", Value: "0123456789"}})
	db.SetParameter("batchedDeletesTargetBatchTimeMS", 0)
	db.SetParameter("batchedDeletesTargetBatchDocs", 0)
	db.SetParameter("batchedDeletesTargetStagedDocBytes", len(raw))
	before := db.Stats()
	res, err := db.Database("test").Collection("c").DeleteMany(context.Background(), bson.D{{Key: "x", Value: 1}})
	if err != nil || res.DeletedCount != 20 {
		t.Fatalf("DeleteMany = %+v, %v", res, err)
	}
	after := db.Stats()
	if b := after.BatchedDeleteBatches - before.BatchedDeleteBatches; b != 20 {
		t.Fatalf("byte target of one document: %d batches for 20 documents", b)
	}
	// Byte target of three documents, doc target 2: the doc target wins.
	db.SetParameter("batchedDeletesTargetStagedDocBytes", 3*len(raw))
	db.SetParameter("batchedDeletesTargetBatchDocs", 2)
	before = after
	if _, err := db.Database("test").Collection("c").DeleteMany(context.Background(), bson.D{}); err != nil {
		t.Fatal(err)
	}
	if b := db.Stats().BatchedDeleteBatches - before.BatchedDeleteBatches; b != 10 {
		t.Fatalf("doc target 2 under a 3-document byte target: %d batches for 20 documents, want 10", b)
	}
}

// docs/batched-deletes.md §4.1–4.2, batchedDeletesTargetBatchTimeMS: a batch commits once
// it has run for the target (0: no target) or another target is met,
// whichever comes first, for a deleteMany and for TTL deletes alike;
// timeInBatchMillis adds the time the batches took. The clock of the
// time targets moves one second at every reading: a batch reads it when
// it begins and after each document it stages.
func TestBatchedDeleteTimeTarget(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	db.SetParameter("batchedDeletesTargetStagedDocBytes", 0)
	el := setElapsed(db, time.Second)
	for i, c := range []struct {
		timeMS, docs int
		batches      int64 // for 40 documents
		timeFirst    bool  // the time target ends the batches
	}{
		{3000, 0, 14, true},  // 3 documents a batch (at 3 s), the last holds 1
		{2500, 0, 14, true},  // reached with the third document as well
		{1000, 0, 40, true},  // one document a batch
		{3000, 10, 14, true}, // the time target comes first
		{3000, 2, 20, false}, // the doc target comes first
		{0, 0, 1, false},     // no target: one batch
	} {
		coll := fmt.Sprintf("c%d", i)
		seq(t, db, coll, 40)
		db.SetParameter("batchedDeletesTargetBatchTimeMS", c.timeMS)
		db.SetParameter("batchedDeletesTargetBatchDocs", c.docs)
		before, from := batchedDeleteStatus(t, db), el.peek()
		r := mustRun(t, db, "test", fmt.Sprintf(`{"delete": %q, "deletes": [{"q": {}, "limit": 0}]}`, coll))
		took := el.peek().Sub(from).Milliseconds()
		d := batchedDeleteStatus(t, db).minus(before)
		if field(r, "n") != int32(40) || d.batches != c.batches || d.docs != 40 || count(t, db, "test", coll) != 0 {
			t.Errorf("time %d ms, docs %d: n = %v, +%d batches +%d docs; want 40, +%d batches +40 docs",
				c.timeMS, c.docs, field(r, "n"), d.batches, d.docs, c.batches)
		}
		// Every batch but the last ran until the time target when it
		// came first; none ran longer than the whole delete.
		least := int64(1)
		if c.timeFirst {
			least = (c.batches - 1) * int64(c.timeMS)
		}
		if d.timeMS < least || d.timeMS > took {
			t.Errorf("time %d ms, docs %d: timeInBatchMillis grew by %d, want %d to %d", c.timeMS, c.docs, d.timeMS, least, took)
		}
	}

	// TTL deletes: 25 documents, 3 a batch.
	mustRun(t, db, "test", `{"createIndexes": "ttl", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
	var docs []bson.D
	for i := 0; i < 25; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: dt(clk.Now().Add(-time.Hour))}})
	}
	insertDocs(t, db, "ttl", docs...)
	db.SetParameter("batchedDeletesTargetBatchTimeMS", 3000)
	db.SetParameter("batchedDeletesTargetBatchDocs", 0)
	db.SetParameter("ttlIndexDeleteTargetTimeMS", 0)
	before := batchedDeleteStatus(t, db)
	if n := pass(t, db).Deleted; n != 25 {
		t.Fatalf("pass deleted %d", n)
	}
	if d := batchedDeleteStatus(t, db).minus(before); d.batches != 9 || d.docs != 25 || d.timeMS < 8*3000 {
		t.Fatalf("TTL delete of 25 with a 3 s batch target: %+v, want 9 batches of 25 docs, 24000 ms or more", d)
	}
}

// docs/batched-deletes.md §4.1: single deletes use DELETE, which leaves the
// batchedDeletes counters alone; multi deletes count.
func TestSingleDeleteIsNotBatched(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	// The batches' time target reads a clock that does not move, so a
	// slow machine does not split the DeleteMany below.
	setElapsed(db, 0)
	seq(t, db, "c", 10)
	c := db.Database("test").Collection("c")
	before := batchedDeleteStatus(t, db)
	if r, err := c.DeleteOne(context.Background(), bson.D{{Key: "x", Value: 1}}); err != nil || r.DeletedCount != 1 {
		t.Fatalf("DeleteOne = %+v, %v", r, err)
	}
	r := mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"x": 0}, "limit": 1}]}`)
	if field(r, "n") != int32(1) {
		t.Fatalf("limit 1 deleted %v", field(r, "n"))
	}
	if d := batchedDeleteStatus(t, db).minus(before); d != (bdCounters{}) {
		t.Fatalf("single deletes moved batchedDeletes: %+v", d)
	}
	if r, err := c.DeleteMany(context.Background(), bson.D{{Key: "x", Value: 1}}); err != nil || r.DeletedCount != 4 {
		t.Fatalf("DeleteMany = %+v, %v", r, err)
	}
	if d := batchedDeleteStatus(t, db).minus(before); d.batches != 1 || d.docs != 4 {
		t.Fatalf("DeleteMany of 4: %+v", d)
	}
	// limit 2 fails the whole command, as MongoDB's parser does.
	wantCode(t, db, "test", `{"delete": "c", "deletes": [{"q": {"x": 1}, "limit": 0}, {"q": {}, "limit": 2}]}`, document.CodeFailedToParse, "must be 0 or 1")
	if count(t, db, "test", "c") != 4 {
		t.Fatal("a rejected delete removed documents")
	}
}

// docs/batched-deletes.md §4.2: TTL deletes go through the same stage and counters.
func TestTTLDeletesCountAsBatches(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
	old := dt(clk.Now().Add(-time.Hour))
	var docs []bson.D
	for i := 0; i < 25; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: old}})
	}
	insertDocs(t, db, "c", docs...)
	mustRun(t, db, "admin", `{"setParameter": 1, "batchedDeletesTargetBatchDocs": 10, "batchedDeletesTargetBatchTimeMS": 0, "batchedDeletesTargetStagedDocBytes": 0}`)
	before := batchedDeleteStatus(t, db)
	if n := pass(t, db).Deleted; n != 25 {
		t.Fatalf("pass deleted %d", n)
	}
	if d := batchedDeleteStatus(t, db).minus(before); d.batches != 3 || d.docs != 25 || d.staged <= 0 {
		t.Fatalf("TTL delete of 25 with k=10: %+v, want 3 batches 25 docs", d)
	}
}

// explainDelete runs explain of a delete with executionStats.
func explainDelete(t *testing.T, db *DB, coll, q string, limit int) bson.D {
	t.Helper()
	return mustRun(t, db, "test", fmt.Sprintf(`{"explain": {"delete": %q, "deletes": [{"q": %s, "limit": %d}]}, "verbosity": "executionStats"}`, coll, q, limit))
}

// stages lists the stage names from the root down the inputStage chain.
func stages(d bson.D) []string {
	var out []string
	for d != nil {
		s, _ := get(d, "stage")
		out = append(out, fmt.Sprint(s))
		in, _ := get(d, "inputStage")
		d, _ = in.(bson.D)
	}
	return out
}

// docs/batched-deletes.md §4.3: explain of a delete shows BATCHED_DELETE (limit 0) or
// DELETE (limit 1) over its input stages, with execution figures, and
// deletes nothing.
func TestExplainDelete(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1"}]}`)
	now := clk.Now()
	var docs []bson.D
	for i := 0; i < 30; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: dt(now.Add(time.Duration(i) * time.Minute))}, {Key: "x", Value: int32(i % 3)}})
	}
	insertDocs(t, db, "c", docs...)
	cutoff := now.Add(9*time.Minute + 30*time.Second).UnixMilli() // t_0 .. t_9
	ixq := fmt.Sprintf(`{"t": {"$lte": {"$date": {"$numberLong": "%d"}}}}`, cutoff)
	cases := []struct {
		q            string
		limit        int
		want         []string
		wouldDelete  int32
		keys, docsEx int32 // -1: not checked
	}{
		{ixq, 0, []string{"BATCHED_DELETE", "FETCH", "IXSCAN"}, 10, 10, 10},
		{`{"x": 1}`, 0, []string{"BATCHED_DELETE", "COLLSCAN"}, 10, 0, 30},
		{`{}`, 0, []string{"BATCHED_DELETE", "COLLSCAN"}, 30, 0, 30},
		{`{"x": 7}`, 0, []string{"BATCHED_DELETE", "COLLSCAN"}, 0, 0, 30},
		{ixq, 1, []string{"DELETE", "FETCH", "IXSCAN"}, 1, -1, -1},
		{`{"x": 1}`, 1, []string{"DELETE", "COLLSCAN"}, 1, -1, -1},
	}
	before := db.Stats()
	for _, c := range cases {
		what := fmt.Sprintf("explain delete q=%s limit=%d", c.q, c.limit)
		r := explainDelete(t, db, "c", c.q, c.limit)
		win := field(r, "queryPlanner.winningPlan").(bson.D)
		if got := stages(win); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: winningPlan stages %v, want %v", what, got, c.want)
		}
		for _, f := range []string{"nWouldDelete", "nReturned", "isEOF", "inputStage.docsExamined", "inputStage.inputStage.keysExamined"} {
			if v := field(win, f); v != nil {
				t.Errorf("%s: queryPlanner.winningPlan.%s = %v; execution figures belong in executionStats", what, f, v)
			}
		}
		ex, _ := field(r, "executionStats.executionStages").(bson.D)
		if got := stages(ex); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: executionStages %v, want %v", what, got, c.want)
		}
		if v := field(ex, "nWouldDelete"); v != c.wouldDelete {
			t.Errorf("%s: nWouldDelete = %#v, want %d", what, v, c.wouldDelete)
		}
		if v := field(ex, "isEOF"); v != int32(1) && v != true {
			t.Errorf("%s: executionStages.isEOF = %#v", what, v)
		}
		if v := field(r, "executionStats.nReturned"); v != int32(0) {
			t.Errorf("%s: executionStats.nReturned = %#v, want 0", what, v)
		}
		if c.keys >= 0 {
			if v := field(r, "executionStats.totalKeysExamined"); v != c.keys {
				t.Errorf("%s: totalKeysExamined = %#v, want %d", what, v, c.keys)
			}
			if v := field(r, "executionStats.totalDocsExamined"); v != c.docsEx {
				t.Errorf("%s: totalDocsExamined = %#v, want %d", what, v, c.docsEx)
			}
		} else {
			for _, f := range []string{"executionStats.totalKeysExamined", "executionStats.totalDocsExamined"} {
				if _, ok := field(r, f).(int32); !ok {
					t.Errorf("%s: %s = %#v, want an int32", what, f, field(r, f))
				}
			}
		}
		// mongod 7.0's statsToBSON gives BATCHED_DELETE and DELETE the
		// same fields: nWouldDelete, no batch targets.
		if field(win, "batchSizeTargets") != nil {
			t.Errorf("%s: %s shows batchSizeTargets, which mongod's does not", what, c.want[0])
		}
	}
	// queryPlanner verbosity: the plan, no execution figures.
	r := mustRun(t, db, "test", `{"explain": {"delete": "c", "deletes": [{"q": {}, "limit": 0}]}, "verbosity": "queryPlanner"}`)
	if s := stages(field(r, "queryPlanner.winningPlan").(bson.D)); s[0] != "BATCHED_DELETE" || field(r, "executionStats") != nil ||
		field(r, "queryPlanner.winningPlan.nWouldDelete") != nil {
		t.Errorf("queryPlanner explain = %v", r)
	}
	// Explain deletes nothing and counts no batches.
	if n := count(t, db, "test", "c"); n != 30 {
		t.Fatalf("explain deleted documents: %d left of 30", n)
	}
	if after := db.Stats(); after.BatchedDeleteBatches != before.BatchedDeleteBatches || after.Deleted != before.Deleted {
		t.Fatalf("explain moved the delete counters")
	}
	// A missing collection explains as EOF; more than one statement is refused.
	if s := stages(field(explainDelete(t, db, "nosuch", `{}`, 0), "queryPlanner.winningPlan").(bson.D)); s[0] != "EOF" {
		t.Errorf("explain on a missing collection: %v", s)
	}
	wantCode(t, db, "test", `{"explain": {"delete": "c", "deletes": [{"q": {}, "limit": 0}, {"q": {}, "limit": 0}]}}`, document.CodeInvalidOptions, "size 1")
	r = mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"x": 1}}, "verbosity": "executionStats"}`)
	if !strings.Contains(fmt.Sprint(stages(field(r, "queryPlanner.winningPlan").(bson.D))), "COLLSCAN") {
		t.Errorf("explain find: %v", field(r, "queryPlanner.winningPlan"))
	}
}

// BenchmarkBatchedDeleteTargetBatchDocs measures a multi delete of 4000
// documents (each with a date index entry) for several values of
// batchedDeletesTargetBatchDocs, with the time and byte targets off.
// docs/s is the delete throughput; ms/batch is how long one batch
// holds the collection's writers off (its commit included), which is
// what a concurrent writer's latency pays. The default
// (defaultBatchDocs) is chosen from these figures.
func BenchmarkBatchedDeleteTargetBatchDocs(b *testing.B) {
	const n = 4000
	for _, k := range []int{10, 50, 100, 250, 1000, 5000} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			db, err := Open(b.TempDir(), Options{DisableTTLMonitor: true, Params: map[string]any{
				"batchedDeletesTargetBatchDocs": k, "batchedDeletesTargetBatchTimeMS": 0, "batchedDeletesTargetStagedDocBytes": 0}})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			ctx := context.Background()
			c := db.Database("test").Collection("c")
			if _, err := c.CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: "t", Value: 1}}}); err != nil {
				b.Fatal(err)
			}
			now := time.Now()
			var elapsed time.Duration
			var batches int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				for lo := 0; lo < n; lo += 200 {
					docs := make([]any, 0, 200)
					for j := lo; j < lo+200; j++ {
						docs = append(docs, bson.D{{Key: "_id", Value: int32(j)}, {Key: "t", Value: dt(now.Add(time.Duration(j) * time.Second))},
							{Key: "v", Value: "a value of some forty bytes, like a log line"}})
					}
					if _, err := c.InsertMany(ctx, docs, true); err != nil {
						b.Fatal(err)
					}
				}
				before := db.Stats().BatchedDeleteBatches
				b.StartTimer()
				start := time.Now()
				r, err := c.DeleteMany(ctx, bson.D{})
				elapsed += time.Since(start)
				if err != nil || r.DeletedCount != n {
					b.Fatalf("DeleteMany = %+v, %v", r, err)
				}
				batches += db.Stats().BatchedDeleteBatches - before
			}
			b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "docs/s")
			b.ReportMetric(float64(elapsed.Milliseconds())/float64(batches), "ms/batch")
		})
	}
}

// docs/batched-deletes.md §4.2a: a batch that a target ends after a few
// documents reads about as many records as it deletes, not its whole read-ahead: the batches read in
// chunks that double (modify.go, readChunk). Before, each batch read up
// to maxTxnDocs records before its first target check, so a slow
// machine (or the race detector) made a TTL pass quadratic: every batch
// of three deletes read and decoded all that was left.
func TestBatchReadsWhatItDeletes(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
	const n = 600
	docs := make([]bson.D, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: dt(clk.Now().Add(-time.Hour))}}
	}
	insertDocs(t, db, "c", docs...)
	setElapsed(db, time.Second) // one second a reading: 3 documents a batch
	db.SetParameter("batchedDeletesTargetBatchTimeMS", 3000)
	db.SetParameter("batchedDeletesTargetBatchDocs", 0)
	db.SetParameter("batchedDeletesTargetStagedDocBytes", 0)
	db.SetParameter("ttlIndexDeleteTargetTimeMS", 0)
	var bds []*batchDeleter
	db.opts.seams.deleterHook = func(bd *batchDeleter) { bds = append(bds, bd) }
	before := batchedDeleteStatus(t, db)
	if got := pass(t, db).Deleted; got != n {
		t.Fatalf("pass deleted %d, want %d", got, n)
	}
	d := batchedDeleteStatus(t, db).minus(before)
	var read int64
	for _, bd := range bds {
		read += bd.read.Load()
	}
	if d.batches < n/3 || read < n || read > d.batches*readChunk {
		t.Fatalf("%d batches read %d records to delete %d; want at least %d batches reading at most %d a batch",
			d.batches, read, n, n/3, readChunk)
	}
}
