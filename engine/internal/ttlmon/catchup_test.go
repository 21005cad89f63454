package ttlmon

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// catchUp.step: once at least CatchUpWindow of clock time has passed
// since the last comparison, a lag above the floor that grew by more
// than a tenth of that time climbs one level, by more than half two
// levels (up to MaxCatchUp); one
// that grew less, or shrank, keeps the level; a lag at or under the
// floor steps one level down.
func TestCatchUpStep(t *testing.T) {
	t.Parallel()
	const floor = 2 * time.Second
	s := func(d float64) time.Duration { return time.Duration(d * float64(time.Second)) }
	at := func(sec float64) bson.DateTime { return bson.DateTime(1_700_000_000_000 + int64(sec*1000)) }
	type obs struct {
		sec  float64 // clock time of the visit
		lag  float64 // seconds
		want int
		fin  bool // the visit before this one finished its range
	}
	for _, tc := range []struct {
		name string
		obs  []obs
	}{
		{"caught up stays at 0", []obs{{0, 1, 0, false}, {10, 2, 0, false}, {20, 0, 0, false}}},
		{"a growing lag climbs once per window", []obs{{0, 10, 0, false}, {3, 11, 1, false}, {6, 12, 2, false}, {9, 13, 3, false}, {12, 14, 4, false}, {15, 15, 5, false}, {18, 16, 5, false}}},
		{"comparisons wait for a window", []obs{{0, 10, 0, false}, {1, 10.5, 0, false}, {2.9, 10.9, 0, false}, {3, 11, 1, false}, {4, 11.5, 1, false}}},
		{"growth of a tenth of the time or less holds", []obs{{0, 10, 0, false}, {3, 10.3, 0, false}, {6, 10.6, 0, false}}},
		{"growth just over a tenth climbs", []obs{{0, 10, 0, false}, {3, 10.4, 1, false}}},
		{"growth over half the time climbs two levels", []obs{{0, 10, 0, false}, {3, 11.5, 1, false}, {6, 13.1, 3, false}, {9, 16, 5, false}, {12, 20, 5, false}}},
		{"a shrinking lag above the floor keeps the level", []obs{{0, 10, 0, false}, {3, 11, 1, false}, {6, 12, 2, false}, {9, 11, 2, false}, {12, 6, 2, false}}},
		{"caught up steps down a level per window", []obs{{0, 10, 0, false}, {3, 11, 1, false}, {6, 12, 2, false}, {9, 2, 1, false}, {10, 1, 1, false}, {12, 1, 0, false}, {15, 0, 0, false}}},
		{"a one-off backlog does not climb", []obs{{0, 3600, 0, false}, {3, 3500, 0, false}, {6, 3000, 0, false}, {9, 100, 0, false}, {12, 0, 0, false}}},
		{"a clock moved back restarts the window", []obs{{10, 10, 0, false}, {0, 20, 0, false}, {2, 30, 0, false}, {3, 21, 1, false}}},
		{"a finished visit steps down whatever the lag", []obs{{0, 10, 0, false}, {3, 11, 1, false}, {6, 12, 2, false},
			{9, 3600, 1, true}, {12, 3601, 2, false}, {15, 3605, 1, true}, {18, 3605, 0, true}}},
		{"only the last visit's finish counts", []obs{{0, 10, 0, false}, {3, 11, 1, false}, {4, 11.2, 1, true}, {6, 12, 2, false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cu catchUp
			for i, o := range tc.obs {
				cu.finished = o.fin
				if got := cu.step(s(o.lag), at(o.sec), floor); got != o.want {
					t.Fatalf("observation %d (t=%vs, lag %vs): level %d, want %d", i, o.sec, o.lag, got, o.want)
				}
			}
		})
	}
}

// A visit's least level grows with its backlog: 0 up to a quarter
// interval (the floor is two intervals) past the one interval a reaper
// that keeps up finds, 1 up to half an interval past it, then 2 up to
// two floors, one more each time the lag doubles, the top level (no
// yielding) from 16 floors on.
func TestBacklogLevel(t *testing.T) {
	t.Parallel()
	floor := 2 * time.Second
	for _, tc := range []struct {
		lag  time.Duration
		want int
	}{
		{0, 0}, {floor / 2, 0}, {floor*5/8 - 1, 0}, {floor * 5 / 8, 1}, {floor*3/4 - 1, 1}, {floor * 3 / 4, 2},
		{floor - 1, 2}, {floor, 2}, {2*floor - 1, 2}, {2 * floor, 2}, {4*floor - 1, 2}, {4 * floor, 3},
		{8 * floor, 4}, {16*floor - 1, 4}, {16 * floor, MaxCatchUp}, {time.Hour, MaxCatchUp},
	} {
		if got := backlogLevel(tc.lag, floor); got != tc.want {
			t.Errorf("backlogLevel(%v, %v) = %d, want %d", tc.lag, floor, got, tc.want)
		}
	}
	if got := backlogLevel(time.Hour, 0); got != 0 {
		t.Errorf("backlogLevel with no floor = %d, want 0", got)
	}
}
