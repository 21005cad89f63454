package main

import (
	"runtime"
	"runtime/metrics"
	"syscall"
	"time"

	"github.com/ttlkv/ttlkv/benchmarks/internal/workload"
)

// procSample is a reading of this process's counters, taken as the
// benchmarks' harness takes them (benchmarks/steady_test.go sampleProc).
type procSample struct {
	at             time.Time
	cpu            time.Duration // user + system (getrusage)
	wbytes         int64         // /proc/self/io write_bytes
	disk           int64         // allocated bytes of the data directory
	rss, hwm, heap int64
	anon, file     int64
	idle           int64
	numGC          uint32
}

func sampleProc(dir string) procSample {
	s := procSample{at: time.Now(), cpu: cpuTime(), wbytes: workload.WriteBytes()}
	mem := workload.ReadMemory()
	s.rss, s.hwm, s.anon, s.file = mem.RSS, mem.HWM, mem.Anon, mem.File
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.heap = int64(m.HeapInuse)
	s.idle = int64(m.HeapIdle - m.HeapReleased)
	s.numGC = m.NumGC
	s.disk, _ = workload.DirBytes(dir)
	return s
}

// cpuTime is the process's user + system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapGauges reads the Go heap's live bytes after the last collection
// and its goal now.
func heapGauges() (live, goal int64) {
	ss := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/goal:bytes"}}
	metrics.Read(ss)
	if ss[0].Value.Kind() == metrics.KindUint64 {
		live = int64(ss[0].Value.Uint64())
	}
	if ss[1].Value.Kind() == metrics.KindUint64 {
		goal = int64(ss[1].Value.Uint64())
	}
	return live, goal
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
