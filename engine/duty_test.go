package engine

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A one-off backlog at the top level (documents that expired an hour
// ago) is reaped in full batches, and beside writers in slices with a
// pause after each (ttlmon.Duty, docs/batched-deletes.md §4.6): the
// first as long as the slice worked, later ones sized by the writers'
// rate while the reaper works against their rate while it pauses. With
// no writer it never pauses; beside a writer it does not slow (as many
// writes a millisecond or more while it works) it stops pausing after
// the first; beside a writer it slows to a tenth or less it pauses
// after every slice, the last one too, for more than twice as long as the
// slice worked. The targets' clock steps 10 ms a reading, so
// every batch is a slice; the writers are simulated by the operation
// counters, moved at each commit (writerAt) and during each pause.
func TestBacklogDuty(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// writesAtCommit are the writes counted at each commit;
		// writesPerMs those counted per millisecond of pause.
		writesAtCommit, writesPerMs int64
		contended                   bool
		wantPauses                  func(pauses, batches int) bool
		wantLonger                  bool // pauses after the first longer than their slices
	}{
		{"no writer", 0, 0, false, func(p, _ int) bool { return p == 0 }, false},
		{"a writer it does not slow", 1000, 1, true, func(p, _ int) bool { return p == 1 }, false},
		{"a writer slowed to a tenth or less", 2, 1, true, func(p, b int) bool { return p == b }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db, clk, _ := openTest(t)
			setElapsed(db, 10*time.Millisecond)
			for _, p := range []string{"ttlMonitorSleepSecs", "batchedDeletesTargetBatchTimeMS"} {
				v := 1
				if p == "batchedDeletesTargetBatchTimeMS" {
					v = 0 // the stepping clock would end every batch
				}
				if _, err := db.SetParameter(p, v); err != nil {
					t.Fatal(err)
				}
			}
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 0}]}`)
			const n = 4000 // one scan chunk (ttlScanChunk): every batch full
			docs := make([]bson.D, n)
			for i := range docs {
				docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(clk.Now().Add(-time.Hour))}}
			}
			insertChunked(t, db, "c", docs)
			commits, level := 0, -1
			var pauses []time.Duration
			db.opts.seams.writerAt = func(bd *batchDeleter) bool {
				commits++
				level = bd.level
				db.stats.inserted.Add(tc.writesAtCommit)
				return tc.contended
			}
			db.opts.seams.pause = func(d time.Duration) {
				pauses = append(pauses, d)
				db.stats.inserted.Add(tc.writesPerMs * d.Milliseconds())
			}
			if r := pass(t, db); r.Deleted != n {
				t.Fatalf("pass deleted %d, want %d", r.Deleted, n)
			}
			if level != maxCatchUp {
				t.Fatalf("reaped at level %d, want %d", level, maxCatchUp)
			}
			if want := (n + defaultBatchDocs - 1) / defaultBatchDocs; commits != want {
				t.Fatalf("%d commits, want %d full batches", commits, want)
			}
			if !tc.wantPauses(len(pauses), commits) {
				t.Fatalf("%d pauses after %d batches", len(pauses), commits)
			}
			for i, p := range pauses {
				if p <= 0 {
					t.Fatalf("pause %d of %v", i, p)
				}
				// A slice works 10 ms a reading of the targets' clock,
				// at least two readings: 20 ms, paused for at least
				// 20 ms x (0.75 - 0.1) / 0.25.
				if tc.wantLonger && i > 0 && p < 52*time.Millisecond {
					t.Fatalf("pause %d of %v beside a writer slowed to a tenth: want longer than its slice", i, p)
				}
			}
		})
	}
}
