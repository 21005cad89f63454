package engine

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A gentle sub-batch whose commit waited long for the writer's lock
// makes the next ones larger, toward as much work as the wait, within
// gentleDocs and gentleMaxDocs (at level 0; the level scales them);
// one that waited little makes them smaller again. Batches that were
// not gentle, did not wait or took no time on the targets' clock
// change nothing.
func TestResizeGentle(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	for _, tc := range []struct {
		name       string
		cur, level int
		b          batchState
		work       time.Duration
		want       int
	}{
		{"waited 10x the work", 0, 0, batchState{gentle: true, look: 8, lockWait: 10 * ms}, ms, 44},             // (8+80)/2
		{"waited as long as the work", 64, 0, batchState{gentle: true, look: 64, lockWait: ms}, ms, 64},         // (64+64)/2
		{"waited a tenth of the work", 200, 0, batchState{gentle: true, look: 200, lockWait: ms}, 10 * ms, 110}, // (200+20)/2
		{"capped", 250, 0, batchState{gentle: true, look: 250, lockWait: 100 * ms}, ms, gentleMaxDocs},
		{"floor", 8, 0, batchState{gentle: true, look: 8, lockWait: time.Microsecond}, 10 * ms, gentleDocs},
		{"level 2 scales the sub-batch", 8, 2, batchState{gentle: true, look: 32, lockWait: 10 * ms}, ms, 44},
		{"not gentle", 8, 0, batchState{look: 1000, lockWait: 10 * ms}, ms, 8},
		{"no wait", 100, 0, batchState{gentle: true, look: 100}, ms, 100},
		{"standing clock", 100, 0, batchState{gentle: true, look: 100}, 0, 100},
	} {
		bd := &batchDeleter{gentle: tc.cur, level: tc.level}
		bd.resizeGentle(&tc.b, tc.work)
		if got := max(bd.gentle, gentleDocs); got != tc.want {
			t.Errorf("%s: gentle sub-batch %d, want %d", tc.name, got, tc.want)
		}
	}
}

// Beside a writer that holds the lock at every commit, a visit whose
// documents expired an hour ago (1,800 floors at ttlMonitorSleepSecs 1)
// reaps at the top level, in full batches and with no pause; one whose
// documents expired a second ago (one interval: a reaper that keeps up)
// is gentle at level 0: small sub-batches and a pause after each
// contended one; from 1.25 intervals it is gentle at a higher level
// (ttlmon.backlogLevel). The catch-up state
// itself does not climb for a one-off backlog (TestCatchUpThroughTheMonitor).
func TestBacklogPacesTheReaper(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		age       time.Duration
		wantLevel int
		gentle    bool
	}{
		{"an hour behind", time.Hour, maxCatchUp, false},
		{"a second behind", time.Second, 0, true},
		// More than a quarter interval past the one interval a reaper
		// that keeps up finds: the pass before left work undone.
		{"1.3 seconds behind", 1300 * time.Millisecond, 1, true},
		{"1.6 seconds behind", 1600 * time.Millisecond, 2, true},
		{"three seconds behind", 3 * time.Second, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db, clk, _ := openTest(t)
			setElapsed(db, 0) // the targets' clock stands still
			if _, err := db.SetParameter("ttlMonitorSleepSecs", 1); err != nil {
				t.Fatal(err)
			}
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 0}]}`)
			const n = 2500
			docs := make([]bson.D, n)
			for i := range docs {
				docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(clk.Now().Add(-tc.age))}}
			}
			insertChunked(t, db, "c", docs)
			commits, pauses, level := 0, 0, -1
			db.opts.seams.writerAt = func(bd *batchDeleter) bool { commits++; level = bd.level; return true }
			db.opts.seams.pause = func(time.Duration) { pauses++ }
			if r := pass(t, db); r.Deleted != n {
				t.Fatalf("pass deleted %d, want %d", r.Deleted, n)
			}
			if level != tc.wantLevel {
				t.Fatalf("reaped at level %d, want %d", level, tc.wantLevel)
			}
			if tc.gentle {
				if pauses == 0 || commits <= n/defaultBatchDocs+1 {
					t.Fatalf("caught up beside a writer: %d commits, %d pauses; want gentle sub-batches and pauses", commits, pauses)
				}
			} else if pauses != 0 || commits > (n+defaultBatchDocs-1)/defaultBatchDocs {
				t.Fatalf("an hour behind beside a writer: %d commits, %d pauses; want full batches and no pause", commits, pauses)
			}
		})
	}
}
