package engine

import (
	"testing"
	"time"
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
