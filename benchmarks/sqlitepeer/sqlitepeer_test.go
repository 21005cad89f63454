package main

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestSteadyCompressed runs a small compressed-time steady state and
// checks the windows the harness would read: every window printed, the
// live set filled to rate x TTL and held there by the reaper, expiries
// counted, the process figures present.
func TestSteadyCompressed(t *testing.T) {
	t.Parallel()
	cfg := steadyConfig{Mode: "compressed", Rate: 2000, TTL: 3, Window: 2, Windows: 5}
	var out strings.Builder
	if err := runSteady(context.Background(), &out, t.TempDir(), cfg, 500); err != nil {
		t.Fatal(err)
	}
	var ws []steadyWindow
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "STEADYWIN ")
		if !ok {
			t.Fatalf("unexpected line %q", sc.Text())
		}
		var w steadyWindow
		if err := json.Unmarshal([]byte(rest), &w); err != nil {
			t.Fatalf("window %q: %v", rest, err)
		}
		ws = append(ws, w)
	}
	if len(ws) != cfg.Windows {
		t.Fatalf("%d windows, want %d:\n%s", len(ws), cfg.Windows, out.String())
	}
	var expired int64
	for i, w := range ws {
		if w.Side != "sqlite" || w.Index != i+1 {
			t.Errorf("window %d: side %q index %d", i, w.Side, w.Index)
		}
		if w.Inserted != int64(cfg.Rate*cfg.Window) {
			t.Errorf("window %d inserted %d, want %d", w.Index, w.Inserted, cfg.Rate*cfg.Window)
		}
		if w.CPUus <= 0 || w.RSS <= 0 || w.Disk <= 0 || w.P99ms <= 0 || w.P50ms > w.P99ms {
			t.Errorf("window %d: implausible figures %+v", w.Index, w)
		}
		if !w.BoundMet {
			t.Errorf("window %d: live %d over the bound %d", w.Index, w.Live, cfg.Rate*(cfg.TTL+2))
		}
		expired += w.Expired
	}
	// After the fill, a tick deletes the batches created TTL ticks
	// before or earlier (at or before the cut-off): rate x (TTL - 1)
	// live at each window's end.
	last := ws[len(ws)-1]
	if want := int64(cfg.Rate * (cfg.TTL - 1)); last.Live != want {
		t.Errorf("last window live %d, want %d", last.Live, want)
	}
	inserted := int64(cfg.Rate * cfg.Window * cfg.Windows)
	if expired != inserted-last.Live {
		t.Errorf("expired %d, want inserted %d - live %d", expired, inserted, last.Live)
	}
	if last.LagS != 0 {
		t.Errorf("lag %v s after a reap each tick, want 0", last.LagS)
	}
}

// TestOneOff ingests a small store half expired and reaps it, then the
// index-on-n shape without a reap.
func TestOneOff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var out strings.Builder
	res, err := runOneOff(ctx, &out, t.TempDir(), 2001, 300, indexDate, true, 128)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reaped != 1001 || res.Left != 1000 {
		t.Errorf("reaped %d, left %d; want 1001 and 1000", res.Reaped, res.Left)
	}
	if res.IngestS <= 0 || res.ReapS <= 0 || res.Disk <= 0 || res.HWM <= 0 {
		t.Errorf("implausible result %+v", res)
	}
	line, ok := strings.CutPrefix(strings.TrimSpace(out.String()), "SQLITEONEOFF ")
	var back oneOffResult
	if !ok || json.Unmarshal([]byte(line), &back) != nil || back != res {
		t.Errorf("printed %q, want the result %+v", out.String(), res)
	}

	res, err = runOneOff(ctx, &strings.Builder{}, t.TempDir(), 500, 1000, indexN, false, defaultReapBatch)
	if err != nil {
		t.Fatal(err)
	}
	if res.Left != 500 || res.Reaped != 0 {
		t.Errorf("index n: left %d reaped %d, want 500 and 0", res.Left, res.Reaped)
	}
}

// TestBadInput: a bad configuration or flag is an error, not a panic
// nor a run.
func TestBadInput(t *testing.T) {
	t.Parallel()
	for _, cfg := range []string{"", "{", `{"Mode":"slow","Rate":1000,"TTL":1,"Window":1,"Windows":1}`,
		`{"Mode":"real","Rate":10,"TTL":1,"Window":1,"Windows":1}`, `{"Mode":"real","Rate":1000,"TTL":0,"Window":1,"Windows":1}`} {
		if _, err := parseSteadyConfig(cfg); err == nil {
			t.Errorf("config %q accepted", cfg)
		}
	}
	for _, args := range [][]string{nil, {"nosuch"}, {"oneoff"}, {"oneoff", "--dir", t.TempDir(), "--index", "x", "--n", "1"},
		{"oneoff", "--dir", t.TempDir(), "--n", "0"}, {"oneoff", "--bogus"}} {
		if err := run(args); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}

// TestBadReapBatch: a reap batch that is not a positive count is
// refused (not parallel: it sets the environment).
func TestBadReapBatch(t *testing.T) {
	t.Setenv("TTLKV_BENCH_SQLITE_REAP_BATCH", "-3")
	if err := run([]string{"oneoff", "--dir", t.TempDir(), "--n", "1"}); err == nil {
		t.Error("a negative reap batch was accepted")
	}
}
