package benchmarks

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
)

// TestDocSize keeps the benchmark document at about 200 bytes encoded,
// the size the issues' targets are stated for.
func TestDocSize(t *testing.T) {
	for _, i := range []int{0, 7, 999_999} {
		b, err := document.Marshal(makeDoc(i, baseTime))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 180 || len(b) > 230 {
			t.Errorf("doc %d encodes to %d bytes, want about 200", i, len(b))
		}
	}
}

// TestScrambleDistinct checks scramble is injective over every document
// number the benchmarks use at their default sizes (TTLKV_BENCH_N,
// 1,000,000, is the largest), so the secondary index gets one key per
// document and BenchmarkIndexRangeScan's ranges hold exactly
// TTLKV_BENCH_SCAN documents.
func TestScrambleDistinct(t *testing.T) {
	n := max(1_000_000, benchN, lookupN)
	vs := make([]int64, n)
	for i := range vs {
		vs[i] = scramble(i)
	}
	slices.Sort(vs)
	for i := 1; i < n; i++ {
		if vs[i] == vs[i-1] {
			t.Fatalf("scramble repeats %d among the first %d documents", vs[i], n)
		}
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

// TestMediansScript feeds medians.sh benchmark output with an odd and
// an even number of runs, values out of order, a sub-benchmark, a
// metric missing from one run and log lines, and checks each median,
// count, minimum and maximum.
func TestMediansScript(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	in := `goos: linux
BenchmarkA-2   	       1	 300 ns/op	        3.0 x-baseline	     10 docs/s
--- BENCH: BenchmarkA-2
    foo_test.go:1: a log line
BenchmarkA-2   	       1	 100 ns/op	        1.0 x-baseline	     30 docs/s
BenchmarkA-2   	       1	 200 ns/op	        2.5 x-baseline
BenchmarkB/docs=10-2   	       1	 4 ns/op	        0.5 x-baseline
BenchmarkB/docs=10-2   	       1	 1 ns/op	        0.25 x-baseline
BenchmarkB/docs=10-2   	       1	 3 ns/op	        1e+06 x-baseline
BenchmarkB/docs=10-2   	       1	 2 ns/op	        0.75 x-baseline
PASS
`
	cmd := exec.Command("sh", "medians.sh")
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("medians.sh: %v", err)
	}
	got := map[string]string{}
	name := ""
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Benchmark") {
			name = line
			continue
		}
		if f := strings.Fields(line); len(f) > 0 {
			got[name+" "+f[0]] = strings.Join(f[1:], " ")
		}
	}
	want := map[string]string{
		"BenchmarkA ns/op":              "median 200 (n=3, min 100, max 300)",
		"BenchmarkA x-baseline":         "median 2.5 (n=3, min 1, max 3)",
		"BenchmarkA docs/s":             "median 20 (n=2, min 10, max 30)",
		"BenchmarkB/docs=10 ns/op":      "median 2.5 (n=4, min 1, max 4)",
		"BenchmarkB/docs=10 x-baseline": "median 0.625 (n=4, min 0.25, max 1e+06)",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q, want %q\nfull output:\n%s", k, got[k], w, out)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d metrics, want %d:\n%s", len(got), len(want), out)
	}
}

// TestPercentileCallSites checks every call of percentile in this
// package passes a constant percent in [1, 100]: percentile takes
// percent, and BenchmarkCappedTailLatency once passed 0.99 for p99
// (bf6f4e8), which returned about the fastest sample.
func TestPercentileCallSites(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	calls := 0
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "percentile" || len(call.Args) != 2 {
				return true
			}
			calls++
			lit, ok := call.Args[1].(*ast.BasicLit)
			if !ok {
				t.Errorf("%s: percentile's percent is not a literal; check it is 0-100", fset.Position(call.Pos()))
				return true
			}
			v := constant.MakeFromLiteral(lit.Value, lit.Kind, 0)
			if p, _ := constant.Float64Val(v); p < 1 || p > 100 {
				t.Errorf("%s: percentile(_, %s): it takes percent (0-100), not a fraction", fset.Position(call.Pos()), lit.Value)
			}
			return true
		})
	}
	if calls < 6 {
		t.Errorf("found %d percentile calls, expected at least the 6 of the latency benchmarks", calls)
	}
}

// TestWriterStats checks stats: p99 by nearest rank and the maximum of
// unsorted latencies, and nothing for no latencies.
func TestWriterStats(t *testing.T) {
	var lats []time.Duration
	for i := 200; i >= 1; i-- {
		lats = append(lats, time.Duration(i)*time.Millisecond)
	}
	ws := stats(lats, 2*time.Second)
	if ws.n != 200 || ws.p99 != 198*time.Millisecond || ws.max != 200*time.Millisecond {
		t.Errorf("stats = n %d, p99 %v, max %v; want 200, 198ms, 200ms", ws.n, ws.p99, ws.max)
	}
	if r := ws.rate(); r != 100 {
		t.Errorf("rate = %v, want 100/s", r)
	}
	if ws := stats(nil, time.Second); ws.n != 0 || ws.p99 != 0 || ws.max != 0 {
		t.Errorf("stats of nothing = %+v", ws)
	}
}

// TestRunWriterStop checks that the write in flight when stop closes is
// reported as late and left out of the count, the latencies and the
// duration, and that the writes before it are counted.
func TestRunWriterStop(t *testing.T) {
	stop := make(chan struct{})
	next := 0
	write := func(i int) error {
		if i == 5 {
			close(stop) // the reaper returns while this write is in flight
			time.Sleep(50 * time.Millisecond)
		}
		return nil
	}
	ws, err := runWriter(write, &next, 0, stop)
	if err != nil {
		t.Fatal(err)
	}
	if ws.n != 5 || next != 6 {
		t.Errorf("n = %d after %d writes, want 5 after 6", ws.n, next)
	}
	if ws.late < 50*time.Millisecond || ws.max >= 50*time.Millisecond || ws.dur >= 50*time.Millisecond {
		t.Errorf("late %v, max %v, dur %v: want the 50 ms write in late only", ws.late, ws.max, ws.dur)
	}
	// Without stop (the idle phase) every write counts.
	next = 0
	ws, err = runWriter(func(int) error { return nil }, &next, 10*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ws.n != next || ws.late != 0 || ws.dur < 10*time.Millisecond {
		t.Errorf("idle: n %d of %d writes, late %v, dur %v", ws.n, next, ws.late, ws.dur)
	}
}
