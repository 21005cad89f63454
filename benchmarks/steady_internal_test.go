package benchmarks

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestMedian checks the median of odd and even counts and of none.
func TestMedian(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(append([]float64(nil), c.in...)); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestSteadyMedians checks that only the windows after the live set
// filled count, and that RSS is their largest.
func TestSteadyMedians(t *testing.T) {
	t.Parallel()
	cfg := steadyConfig{TTL: 4, Window: 2, Windows: 6} // steady from window 4
	if got := cfg.firstSteady(); got != 4 {
		t.Fatalf("firstSteady = %d, want 4", got)
	}
	var ws []steadyWindow
	for i := 1; i <= 6; i++ {
		ws = append(ws, steadyWindow{Side: "x", Index: i, CPUus: float64(100 * i), RSS: int64(i), Live: int64(10 * i)})
	}
	ws[0].RSS = 99 // before the steady windows: not counted
	m := steadyMedians(ws, cfg)
	if m.CPUus != 500 || m.RSS != 6 || m.Live != 50 {
		t.Errorf("medians of windows 4-6: cpu %v rss %v live %v, want 500 6 50", m.CPUus, m.RSS, m.Live)
	}
}

// TestSteadyMeans checks that the means weigh each steady window by the
// documents it inserted, for CPU, its system part, page faults and
// bytes written, and leave the filling windows out.
func TestSteadyMeans(t *testing.T) {
	t.Parallel()
	cfg := steadyConfig{TTL: 4, Window: 2, Windows: 6} // steady from window 4
	ws := []steadyWindow{
		{Index: 1, Inserted: 1000, CPUus: 1000, SysUs: 1000, Faults: 1000, WBytes: 1000},
		{Index: 4, Inserted: 1000, CPUus: 10, SysUs: 2, Faults: 4, WBytes: 2},
		{Index: 5, Inserted: 3000, CPUus: 30, SysUs: 6, Faults: 8, WBytes: 4},
		{Index: 6, Inserted: 0, CPUus: 99, SysUs: 99, Faults: 99, WBytes: 99},
	}
	m := steadyMeans(ws, cfg)
	if m.CPUus != 25 || m.SysUs != 5 || m.Faults != 7 || m.WBytes != 3.5 {
		t.Errorf("means cpu %v sys %v faults %v wb %v, want 25 5 7 3.5", m.CPUus, m.SysUs, m.Faults, m.WBytes)
	}
}

// TestPlotSteady checks the picture is written as a PNG.
func TestPlotSteady(t *testing.T) {
	t.Parallel()
	var ws []steadyWindow
	for _, side := range []string{"badger", "ordinary"} {
		for i := 1; i <= 3; i++ {
			ws = append(ws, steadyWindow{Side: side, Index: i, End: float64(5 * i), Live: 1000, CPUus: 10, WBytes: 1.5, RSS: 100 << 20})
		}
	}
	name := filepath.Join(t.TempDir(), "steady.png")
	if err := plotSteady(name, steadyConfig{Mode: modeCompressed, Rate: 1000, TTL: 10}, ws); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || len(b) < 10_000 {
		t.Fatalf("not a PNG picture: %d bytes starting %q", len(b), b[:min(8, len(b))])
	}
}

// TestSteadyWorkloadsCompressed runs the floor and the ttlkv sides for a
// few compressed seconds and checks each holds the live set the
// benchmark expects: after s ticks of rate documents, those created in
// the last TTL-1 ticks (a tick's documents expire TTL ticks later, when
// the pass after that tick runs), and nottl all of them. Not parallel:
// the compressed workloads share the child's fake clock.
func TestSteadyWorkloadsCompressed(t *testing.T) {
	cfg := steadyConfig{Mode: modeCompressed, Rate: 1000, TTL: 3, Window: 1, Windows: 5}
	clk := steadyClocks[1].(*fakeClock)
	for _, side := range []string{"badger", "ordinary", "clustered", "nottl"} {
		var w steadyWorkload
		if side == "badger" {
			w = newRawSteady(t, t.TempDir(), cfg)
		} else {
			w = newEngineSteady(t, t.TempDir(), cfg, side)
		}
		next := 0
		for s := 1; s <= cfg.Windows; s++ {
			for j := 0; j < cfg.Rate/steadyBatch; j++ {
				mustNoErr(t, w.insert(next, steadyBatch, clk.Now()), side+" insert")
				next += steadyBatch
			}
			clk.Advance(time.Second)
			mustNoErr(t, w.tick(clk.Now()), side+" tick")
		}
		live, expired := w.live(clk.Now())
		want := int64(cfg.Rate * (cfg.TTL - 1))
		if side == "nottl" {
			want = int64(next)
		}
		if live != want || live+expired != int64(next) {
			t.Errorf("%s: live %d expired %d after %d inserts, want live %d", side, live, expired, next, want)
		}
		w.close()
	}
}

// The trace's insert line carries the batch's start and duration and the
// process's CPU and run-queue wait over it; a run without a trace (a nil
// one) writes nothing and reads nothing.
func TestSteadyTraceInsertLine(t *testing.T) {
	t.Parallel()
	var none *steadyTrace
	if (none.beforeInsert() != procTimes{}) {
		t.Fatal("a nil trace read the process's times")
	}
	none.insert(time.Now(), time.Millisecond, procTimes{}) // no panic, no file
	path := filepath.Join(t.TempDir(), "x.trace")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := &steadyTrace{w: bufio.NewWriter(f), f: f, t0: time.Now(), quit: make(chan struct{}), done: make(chan struct{})}
	before := tr.beforeInsert()
	t0 := time.Now()
	for sum, i := 0, 0; i < 1e6; i++ { // some CPU for the line to count
		sum += i
		_ = sum
	}
	tr.insert(t0, time.Since(t0), before)
	close(tr.done)
	tr.stop()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var start, dur, cpu, runq float64
	if _, err := fmt.Sscanf(string(b), "I %f %f cpu=%f runq=%f\n", &start, &dur, &cpu, &runq); err != nil {
		t.Fatalf("insert line %q: %v", b, err)
	}
	if start < 0 || dur <= 0 || cpu < 0 || runq < 0 {
		t.Fatalf("insert line %q: start %v, duration %v, cpu %v, run-queue wait %v", b, start, dur, cpu, runq)
	}
}
