package benchmarks

import (
	"bufio"
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
)

// steadyTrace is a real-time steady-state child's trace of its TTL
// monitor, written when TTLKV_BENCH_STEADY_TRACE names a file prefix
// (the file is prefix.side.rate.trace): a line per TTL visit ("V",
// seconds since the trace began at its start and end, the lag and level
// it found, what it deleted, whether a target stopped it, its pauses
// beside writers), a line every 50 ms ("S": the live set, documents
// inserted and TTL-deleted, passes, sub-passes, the process's CPU
// seconds, the store's level-0 tables) and the engine's log ("L"). It is instrumentation only: the
// windows and what "kept up" means are unchanged.
type steadyTrace struct {
	mu   sync.Mutex
	w    *bufio.Writer
	f    *os.File
	t0   time.Time
	quit chan struct{}
	done chan struct{}
}

var steadyTracePrefix = os.Getenv("TTLKV_BENCH_STEADY_TRACE")

// newSteadyTrace returns nil unless a trace is asked for (and the run is
// in real time); otherwise it hooks opts and returns the trace, which
// start begins sampling.
func newSteadyTrace(t *testing.T, opts *engine.Options, cfg steadyConfig, side string) *steadyTrace {
	if steadyTracePrefix == "" || cfg.Mode != modeReal {
		return nil
	}
	f, err := os.Create(fmt.Sprintf("%s.%s.%d.trace", steadyTracePrefix, side, cfg.Rate))
	mustNoErr(t, err, "trace file")
	tr := &steadyTrace{w: bufio.NewWriter(f), f: f, t0: time.Now(), quit: make(chan struct{}), done: make(chan struct{})}
	sec := func(at time.Time) float64 { return at.Sub(tr.t0).Seconds() }
	engine.SetTTLTraceForTesting(opts, func(v engine.TTLVisitTrace) {
		tr.line("V %.3f %.3f lag=%.3f level=%d backlog=%v deleted=%d more=%v paused=%.3f\n",
			sec(v.Start), sec(v.End), v.Lag.Seconds(), v.Level, v.Backlog, v.Deleted, v.More, v.Paused.Seconds())
	})
	opts.Logf = func(format string, args ...any) {
		tr.line("L %.3f "+format+"\n", append([]any{sec(time.Now())}, args...)...)
	}
	return tr
}

func (tr *steadyTrace) line(format string, args ...any) {
	tr.mu.Lock()
	fmt.Fprintf(tr.w, format, args...)
	tr.mu.Unlock()
}

// start samples db every 50 ms until stop.
func (tr *steadyTrace) start(db *engine.DB) {
	if tr == nil {
		return
	}
	go func() {
		defer close(tr.done)
		tk := time.NewTicker(50 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-tr.quit:
				return
			case now := <-tk.C:
				st := db.Stats()
				var ru syscall.Rusage
				_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
				cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
				tr.line("S %.3f live=%d ins=%d ttl=%d passes=%d sub=%d behind=%d cpu=%.3f l0=%d\n", now.Sub(tr.t0).Seconds(),
					st.Inserted-st.TTLDeletedDocuments, st.Inserted, st.TTLDeletedDocuments, st.TTLPasses, st.TTLSubPasses,
					st.TTLIndexesBehind, cpu.Seconds(), st.LevelZeroTables)
			}
		}
	}()
}

// stop ends the sampling and writes the trace out.
func (tr *steadyTrace) stop() {
	if tr == nil {
		return
	}
	close(tr.quit)
	<-tr.done
	tr.mu.Lock()
	_ = tr.w.Flush()
	_ = tr.f.Close()
	tr.mu.Unlock()
}
