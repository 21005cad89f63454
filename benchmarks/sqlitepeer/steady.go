package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ttlkv/ttlkv/benchmarks/internal/workload"
	"github.com/ttlkv/ttlkv/document"
)

// steadyConfig is the harness's run shape (benchmarks/steady_test.go
// steadyConfig), read from TTLKV_STEADY_CFG; in compressed time a second
// is a tick.
type steadyConfig struct {
	Mode    string // "compressed" or "real"
	Rate    int    // documents a second
	TTL     int    // seconds from insert to expiry
	Window  int    // seconds a window
	Windows int    // windows in the run
}

// steadyBatch is the harness's writer batch: one transaction a batch.
const steadyBatch = 1000

// steadyWindow is one window as the harness reads it: the same JSON
// names as benchmarks/steady_test.go steadyWindow.
type steadyWindow struct {
	Side     string  `json:"side"`
	Index    int     `json:"w"`
	End      float64 `json:"end"`
	Wall     float64 `json:"wall"`
	Live     int64   `json:"live"`
	Inserted int64   `json:"ins"`
	Expired  int64   `json:"exp"`
	InsRate  float64 `json:"insRate"`
	ExpRate  float64 `json:"expRate"`
	CPUus    float64 `json:"cpuUs"`
	WBytes   float64 `json:"wb"`
	Disk     int64   `json:"disk"`
	RSS      int64   `json:"rss"`
	HWM      int64   `json:"hwm"`
	Anon     int64   `json:"anon"`
	File     int64   `json:"file"`
	Heap     int64   `json:"heap"`
	LiveMax  int64   `json:"liveMax"` // here the live heap at the window's end, not its peak
	GoalMax  int64   `json:"goalMax"` // here the heap goal at the window's end, not its peak
	Idle     int64   `json:"idle"`
	GCs      int64   `json:"gcs"`
	P50ms    float64 `json:"p50"`
	P99ms    float64 `json:"p99"`
	LagS     float64 `json:"lag"`
	BehindS  float64 `json:"behind"`
	BoundMet bool    `json:"boundMet"`
}

// parseSteadyConfig reads the harness's TTLKV_STEADY_CFG.
func parseSteadyConfig(s string) (steadyConfig, error) {
	var cfg steadyConfig
	if err := json.Unmarshal([]byte(s), &cfg); err != nil {
		return cfg, fmt.Errorf("TTLKV_STEADY_CFG: %w", err)
	}
	if cfg.Mode != "real" && cfg.Mode != "compressed" {
		return cfg, fmt.Errorf("TTLKV_STEADY_CFG: mode %q, want real or compressed", cfg.Mode)
	}
	if cfg.Rate < steadyBatch || cfg.TTL < 1 || cfg.Window < 1 || cfg.Windows < 1 {
		return cfg, fmt.Errorf("TTLKV_STEADY_CFG: rate %d (at least %d), ttl %d, window %d, windows %d (at least 1)",
			cfg.Rate, steadyBatch, cfg.TTL, cfg.Window, cfg.Windows)
	}
	return cfg, nil
}

// runSteady is the harness's steady state (benchmarks/steady_test.go
// runSteady) on SQLite: a writer inserting batches of steadyBatch
// documents dated now, paced at cfg.Rate (real time) or cfg.Rate a tick
// (compressed time), and a reaper deleting rows older than TTL: in real
// time a goroutine that reaps, sleeps a second and again (as the TTL
// monitor at ttlMonitorSleepSecs 1), in compressed time once after each
// tick. Expired means dated at or before now - TTL. It prints one
// "STEADYWIN {json}" line a window to out.
func runSteady(ctx context.Context, out io.Writer, dir string, cfg steadyConfig, reapSize int) error {
	s, err := openStore(ctx, dir, indexDate, reapSize)
	if err != nil {
		return err
	}
	defer s.close()

	ttl := time.Duration(cfg.TTL) * time.Second
	var deleted atomic.Int64
	count := func(n int64) { deleted.Add(n) }

	docBytes := int64(0)
	if b, err := document.Marshal(workload.Doc(cfg.Rate*cfg.TTL, workload.BaseTime)); err == nil {
		docBytes = int64(len(b))
	}
	fake := workload.BaseTime
	now := time.Now
	if cfg.Mode == "compressed" {
		now = func() time.Time { return fake }
	}

	// The real-time reaper.
	stop := make(chan struct{})
	var reaperErr error
	var wg sync.WaitGroup
	if cfg.Mode == "real" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if _, err := s.reap(ctx, time.Now().Add(-ttl), stop, count); err != nil {
					reaperErr = err
					return
				}
				select {
				case <-stop:
					return
				case <-time.After(time.Second):
				}
			}
		}()
	}
	stopReaper := func() error {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
		return reaperErr
	}
	defer stopReaper()

	start := now()
	realStart := time.Now()
	var created []time.Time // batch k's creation time
	next := 0
	var lats []time.Duration
	prev := sampleProc(dir)
	prevIns, prevExp := int64(0), int64(0)
	var behind time.Duration
	window := func(idx int) error {
		t := now()
		cur := sampleProc(dir)
		expired := deleted.Load()
		live := int64(next) - expired
		ins := int64(next) - prevIns
		exp := expired - prevExp
		wall := cur.at.Sub(prev.at).Seconds()
		cut := t.Add(-ttl)
		k, _ := slices.BinarySearchFunc(created, cut, func(a, b time.Time) int {
			if a.After(b) {
				return 1
			}
			return -1
		})
		unexpired := int64(len(created)-k) * steadyBatch
		var lag float64
		if live > unexpired {
			lag = float64(live-unexpired) / float64(cfg.Rate)
		}
		hl, hg := heapGauges()
		w := steadyWindow{Side: "sqlite", Index: idx, End: t.Sub(start).Seconds(), Wall: wall,
			Live: live, Inserted: ins, Expired: exp, InsRate: float64(ins) / wall, ExpRate: float64(exp) / wall,
			Disk: cur.disk, RSS: cur.rss, HWM: cur.hwm, Anon: cur.anon, File: cur.file, Heap: cur.heap,
			LiveMax: hl, GoalMax: hg, Idle: cur.idle, GCs: int64(cur.numGC - prev.numGC),
			P50ms: ms(workload.Percentile(lats, 50)), P99ms: ms(workload.Percentile(lats, 99)), LagS: lag, BehindS: behind.Seconds(),
			BoundMet: live <= int64(cfg.Rate)*int64(cfg.TTL+2)}
		if ins > 0 {
			w.CPUus = float64(cur.cpu-prev.cpu) / float64(time.Microsecond) / float64(ins)
			if docBytes > 0 {
				w.WBytes = float64(cur.wbytes-prev.wbytes) / float64(ins*docBytes)
			}
		}
		b, err := json.Marshal(w)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(out, "STEADYWIN %s\n", b); err != nil {
			return err
		}
		prev, prevIns, prevExp, lats, behind = sampleProc(dir), int64(next), expired, lats[:0], 0
		return nil
	}
	insertBatch := func(at time.Time) error {
		t0 := time.Now()
		if err := s.insert(ctx, next, steadyBatch, func(int) time.Time { return at }); err != nil {
			return err
		}
		lats = append(lats, time.Since(t0))
		created = append(created, at)
		next += steadyBatch
		return nil
	}

	perTick := max(1, cfg.Rate/steadyBatch)
	switch cfg.Mode {
	case "compressed":
		for sec := 1; sec <= cfg.Windows*cfg.Window; sec++ {
			for j := 0; j < perTick; j++ {
				if err := insertBatch(fake); err != nil {
					return err
				}
			}
			fake = fake.Add(time.Second)
			if _, err := s.reap(ctx, fake.Add(-ttl), nil, count); err != nil {
				return err
			}
			if sec%cfg.Window == 0 {
				if err := window(sec / cfg.Window); err != nil {
					return err
				}
			}
		}
	case "real":
		batchGap := time.Duration(float64(time.Second) * steadyBatch / float64(cfg.Rate))
		nextWin := 1
		for k := 0; ; k++ {
			sched := realStart.Add(time.Duration(k) * batchGap)
			if d := time.Until(sched); d > 0 {
				time.Sleep(d)
			}
			for nextWin <= cfg.Windows && !time.Now().Before(realStart.Add(time.Duration(nextWin*cfg.Window)*time.Second)) {
				if err := window(nextWin); err != nil {
					return err
				}
				nextWin++
			}
			if nextWin > cfg.Windows {
				break
			}
			behind = max(behind, time.Since(sched))
			if err := insertBatch(time.Now()); err != nil {
				return err
			}
		}
	}
	return stopReaper()
}
