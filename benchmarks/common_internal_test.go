package benchmarks

import (
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/doc"
)

// TestDocSize keeps the benchmark document at about 200 bytes encoded,
// the size the issues' targets are stated for.
func TestDocSize(t *testing.T) {
	for _, i := range []int{0, 7, 999_999} {
		b, err := doc.Marshal(makeDoc(i, baseTime))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 180 || len(b) > 230 {
			t.Errorf("doc %d encodes to %d bytes, want about 200", i, len(b))
		}
	}
}

// TestScrambleDistinct checks scramble is injective on a prefix, so the
// secondary index gets one key per document.
func TestScrambleDistinct(t *testing.T) {
	seen := map[int64]bool{}
	for i := 0; i < 100_000; i++ {
		v := scramble(i)
		if seen[v] {
			t.Fatalf("scramble(%d) = %d repeats", i, v)
		}
		seen[v] = true
	}
}

// TestPercentile checks the nearest-rank percentile used for p99s.
func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(101-i))
	}
	if got := percentile(ds, 99); got != 99 {
		t.Errorf("p99 of 1..100 = %d, want 99", got)
	}
	if got := percentile(ds, 50); got != 50 {
		t.Errorf("p50 of 1..100 = %d, want 50", got)
	}
	if got := percentile(nil, 99); got != 0 {
		t.Errorf("p99 of nothing = %d, want 0", got)
	}
}

// TestInsertOrderAlternates checks that BenchmarkInsert's phase order
// alternates between the runs of one process (each -count run is a
// separate call with b.N == 1 under -benchtime 1x).
func TestInsertOrderAlternates(t *testing.T) {
	first := func(run int) string { return insertOrder(run)[0] }
	if first(0) != "eng" || first(1) == "eng" || first(2) != "eng" {
		t.Errorf("orders %v %v %v, want ttlkv first, then a baseline first, then ttlkv", insertOrder(0), insertOrder(1), insertOrder(2))
	}
	for run := 0; run < 2; run++ {
		if o := insertOrder(run); len(o) != 3 {
			t.Errorf("run %d: %v, want all three phases", run, o)
		}
	}
}

// TestWrapsPerDoc checks the capped wrap ratios compare time per
// document: wraps close at batch boundaries and hold different numbers
// of documents (here the interleaved benchmark's counts at default
// sizes: 17,000 for most, 16,240 for the last), which must not move the
// ratios when every document takes as long.
func TestWrapsPerDoc(t *testing.T) {
	var w wraps
	for k := 0; k < 20; k++ {
		n := 17000
		if k == 19 {
			n = 16240
		}
		w.add(time.Duration(n)*time.Microsecond, n)
	}
	if x, ok := w.lastVsFirst(); !ok || x < 0.9999 || x > 1.0001 {
		t.Errorf("lastVsFirst = %v, %v; want 1 (same time per document)", x, ok)
	}
	if x, ok := w.lateVsEarly(); !ok || x < 0.9999 || x > 1.0001 {
		t.Errorf("lateVsEarly = %v, %v; want 1", x, ok)
	}
	if r := w.rate(19); r < 999_999 || r > 1_000_001 {
		t.Errorf("rate(19) = %v, want 1e6 docs/s", r)
	}
	// The last wrap twice as slow per document.
	w.t[19] *= 2
	if x, _ := w.lastVsFirst(); x < 1.9999 || x > 2.0001 {
		t.Errorf("lastVsFirst = %v, want 2", x)
	}
	// Wraps 17-20 against 2-5: (3*17000 + 2*16240) / (3*17000 + 16240).
	want := (3*17000.0 + 2*16240) / (3*17000 + 16240)
	if x, _ := w.lateVsEarly(); x < want-1e-9 || x > want+1e-9 {
		t.Errorf("lateVsEarly = %v, want %v", x, want)
	}
	var short wraps
	short.add(time.Second, 10)
	if _, ok := short.lastVsFirst(); ok {
		t.Error("lastVsFirst of one wrap reported")
	}
	if _, ok := w.lateVsEarly(); !ok {
		t.Error("lateVsEarly of 20 wraps not reported")
	}
	var empty wraps
	for k := 0; k < 9; k++ {
		empty.add(time.Second, 0)
	}
	if _, ok := empty.lateVsEarly(); ok {
		t.Error("lateVsEarly of wraps without documents reported")
	}
}
