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
