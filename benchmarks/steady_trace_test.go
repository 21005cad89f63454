package benchmarks

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
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
// beside writers), a line per applied delete batch of a visit ("B": when
// it began, when its commit was sent (-1: synchronously) and found
// applied, its documents, whether gentle, its wait for the writer's
// lock), a line per insert batch of the writer ("I": its start and
// duration in seconds; the nottl side too, so the two compare), a line
// per garbage collection ("G": when the runtime ran the cycle's
// finalizers, just after it), a line every 50 ms ("S": the live set,
// documents inserted and TTL-deleted, passes, sub-passes, the process's
// CPU seconds, the store's level-0 tables, GC cycles so far) and the
// engine's log ("L"). It is instrumentation only: the windows and what
// "kept up" means are unchanged.
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
	engine.SetTTLBatchTraceForTesting(opts, func(b engine.TTLBatchTrace) {
		sent := -1.0
		if !b.Sent.IsZero() {
			sent = sec(b.Sent)
		}
		tr.line("B %.4f %.4f %.4f deleted=%d gentle=%v lockwait=%.4f\n",
			sec(b.Start), sent, sec(b.Applied), b.Deleted, b.Gentle, b.LockWait.Seconds())
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

// procTimes is the process's CPU time and the time its threads waited
// for a CPU on the kernel's run queues (/proc/self/task/*/schedstat),
// so that a slow batch shows whether the process worked, waited for a
// core (other processes' load) or waited for something else.
type procTimes struct{ cpu, runq time.Duration }

func readProcTimes() procTimes {
	var p procTimes
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		p.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		var run, wait int64
		if _, err := fmt.Sscan(string(b), &run, &wait); err == nil {
			p.runq += time.Duration(wait)
		}
	}
	return p
}

// beforeInsert reads the process's times before an insert batch (zero
// without a trace).
func (tr *steadyTrace) beforeInsert() procTimes {
	if tr == nil {
		return procTimes{}
	}
	return readProcTimes()
}

// insert notes an insert batch that began at t0 and took d, with the
// process's CPU and run-queue wait from before (beforeInsert) to now.
// Threads that exited meanwhile drop out of the wait, so it may be
// under the truth, never over by more than the sampling's own.
func (tr *steadyTrace) insert(t0 time.Time, d time.Duration, before procTimes) {
	if tr == nil {
		return
	}
	now := readProcTimes()
	tr.line("I %.4f %.4f cpu=%.4f runq=%.4f\n", t0.Sub(tr.t0).Seconds(), d.Seconds(),
		(now.cpu - before.cpu).Seconds(), max(now.runq-before.runq, 0).Seconds())
}

// gcSentinel is an object whose finalizer notes a garbage collection and
// arms a new one, until quit.
type gcSentinel struct{ _ [16]byte }

func (tr *steadyTrace) armGC() {
	s := &gcSentinel{}
	runtime.SetFinalizer(s, func(*gcSentinel) {
		select {
		case <-tr.quit:
			return
		default:
		}
		tr.line("G %.4f\n", time.Since(tr.t0).Seconds())
		tr.armGC()
	})
}

// start samples db every 50 ms until stop.
func (tr *steadyTrace) start(db *engine.DB) {
	if tr == nil {
		return
	}
	tr.armGC()
	gcs := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
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
				metrics.Read(gcs)
				tr.line("S %.3f live=%d ins=%d ttl=%d passes=%d sub=%d behind=%d cpu=%.3f l0=%d gc=%d\n", now.Sub(tr.t0).Seconds(),
					st.Inserted-st.TTLDeletedDocuments, st.Inserted, st.TTLDeletedDocuments, st.TTLPasses, st.TTLSubPasses,
					st.TTLIndexesBehind, cpu.Seconds(), st.LevelZeroTables, gcs[0].Value.Uint64())
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
