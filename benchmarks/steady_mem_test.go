package benchmarks

import (
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// gcPeak is the largest live heap and heap goal a steady-state child
// saw since the last take.
type gcPeak struct{ live, goal int64 }

// gcSampler follows the live heap (what the last collection left) and
// the heap goal every 20 ms, so a window can report its peaks, which
// its end-of-window sample misses: the collector sizes the heap from
// the peaks. With TTLKV_BENCH_STEADY_PROFILE set it writes a heap
// profile at each new peak of the live heap (at most one a second) to
// prefix.<mode>.<side>.peak.heap.
type gcSampler struct {
	mu      sync.Mutex
	cur     gcPeak
	allMax  int64
	profile string
	stop    chan struct{}
	done    chan struct{}
}

var gcPeaks gcSampler

func (g *gcSampler) start(profile string) {
	g.profile, g.stop, g.done = profile, make(chan struct{}), make(chan struct{})
	go g.run()
}

func (g *gcSampler) close() {
	if g.stop != nil {
		close(g.stop)
		<-g.done
	}
}

func (g *gcSampler) run() {
	defer close(g.done)
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/goal:bytes"}}
	tk := time.NewTicker(20 * time.Millisecond)
	defer tk.Stop()
	var lastProfile time.Time
	for {
		select {
		case <-g.stop:
			return
		case <-tk.C:
		}
		metrics.Read(samples)
		live, goal := int64(samples[0].Value.Uint64()), int64(samples[1].Value.Uint64())
		g.mu.Lock()
		g.cur.live, g.cur.goal = max(g.cur.live, live), max(g.cur.goal, goal)
		newMax := live > g.allMax
		g.allMax = max(g.allMax, live)
		g.mu.Unlock()
		if newMax && g.profile != "" && time.Since(lastProfile) > time.Second {
			lastProfile = time.Now()
			if f, err := os.Create(g.profile); err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}
	}
}

// take returns the peaks since the last take and starts anew.
func (g *gcSampler) take() gcPeak {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.cur
	g.cur = gcPeak{}
	return p
}

func peakProfileName(prefix string, mode steadyMode, side string) string {
	if prefix == "" {
		return ""
	}
	return fmt.Sprintf("%s.%s.%s.peak.heap", prefix, mode, side)
}
