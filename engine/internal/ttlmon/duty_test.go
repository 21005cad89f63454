package ttlmon

import (
	"testing"
	"time"
)

// dutyPause pauses just long enough that writers keep DutyWriterShare
// (0.75) of their rate while the reaper pauses: x = the writers' rate
// beside the reaper over their rate without it; the pause is
// work x (0.75 - x) / 0.25, none from x = 0.75 on, at most 3 x work
// (x = 0: the reaper keeps a quarter of the time), and none when nothing was written while the reaper paused.
func TestDutyPause(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	for _, tc := range []struct {
		name                string
		work                time.Duration
		rateWork, ratePause float64
		want                time.Duration
	}{
		{"a tenth of its rate beside the reaper", 20 * ms, 1000, 10000, 52 * ms}, // 20 x 0.65/0.25
		{"half its rate", 20 * ms, 5000, 10000, 20 * ms},                         // 20 x 0.25/0.25
		{"at the share", 20 * ms, 7500, 10000, 0},
		{"not slowed (a paced writer)", 20 * ms, 10000, 10000, 0},
		{"faster beside the reaper", 20 * ms, 12000, 10000, 0},
		{"blocked beside the reaper: the longest", 20 * ms, 0, 10000, 60 * ms}, // 0.75/0.25
		{"no write while paused", 20 * ms, 1000, 0, 0},
	} {
		got := dutyPause(tc.work, tc.rateWork, tc.ratePause)
		if d := got - tc.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("%s: pause %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Duty.Worked: no pause until a slice of work is done; a slice with no
// writer seen (no write, no contention) is forgotten and never paused
// for; the first slice beside writers pauses as long as it worked (to
// measure them alone); later ones by the rates measured.
func TestDutyWorked(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	var alone Duty
	for range 10 {
		if p := alone.Worked(7*ms, 0, false); p != 0 {
			t.Fatalf("paused %v with no writer", p)
		}
	}
	var d Duty
	// Beside writers: nothing until the slice is full.
	if p := d.Worked(DutySlice/2, 50, false); p != 0 {
		t.Fatalf("paused %v inside a slice", p)
	}
	p := d.Worked(DutySlice/2, 50, false)
	if p != DutySlice {
		t.Fatalf("first slice beside writers paused %v, want its work %v", p, DutySlice)
	}
	// While it paused the writers wrote 10x their rate beside it: 100
	// writes in 20 ms beside, 1000 in 20 ms of pause.
	d.Paused(p, 1000)
	p = d.Worked(DutySlice, 100, false)
	if want := time.Duration(float64(DutySlice) * 0.65 / 0.25); p < want-time.Microsecond || p > want+time.Microsecond {
		t.Fatalf("writers at a tenth of their rate: paused %v, want %v", p, want)
	}
	// A contended commit with no write counted is a writer seen.
	d.Paused(p, 2600)
	if p := d.Worked(DutySlice, 0, true); p <= 0 {
		t.Fatal("a slice with a contended commit did not pause")
	}
	// The writers stopped: their slices are forgotten.
	if p := d.Worked(DutySlice, 0, false); p != 0 {
		t.Fatalf("paused %v after the writers stopped", p)
	}
	// A writer the reaper does not slow (as fast beside it as without
	// it, over the decayed history): the pauses end.
	var e Duty
	e.Worked(DutySlice, 100, false)
	e.Paused(DutySlice, 100)
	for range 20 {
		if p := e.Worked(DutySlice, 100, false); p != 0 {
			e.Paused(p, int64(100*p/DutySlice))
		}
	}
	if p := e.Worked(DutySlice, 100, false); p != 0 {
		t.Fatalf("paused %v beside a writer it does not slow", p)
	}
	// Negative inputs (a clock that stepped back) count as nothing.
	var f Duty
	if p := f.Worked(-time.Second, -5, false); p != 0 {
		t.Fatalf("paused %v for negative work", p)
	}
	f.Paused(-time.Second, 10)
	if f.pauseT != 0 {
		t.Fatal("a negative pause was counted")
	}
}
