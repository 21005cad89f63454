package main

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
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
	s := procSample{at: time.Now(), cpu: cpuTime(), wbytes: writeBytes()}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			for name, dst := range map[string]*int64{"VmRSS:": &s.rss, "VmHWM:": &s.hwm, "RssAnon:": &s.anon, "RssFile:": &s.file} {
				if rest, ok := strings.CutPrefix(line, name); ok {
					kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
					*dst = kb << 10
				}
			}
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.heap = int64(m.HeapInuse)
	s.idle = int64(m.HeapIdle - m.HeapReleased)
	s.numGC = m.NumGC
	s.disk = dirBytes(dir)
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

// writeBytes is /proc/self/io's write_bytes: bytes this process caused
// to be sent to the device.
func writeBytes() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "write_bytes:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			return n
		}
	}
	return 0
}

// dirBytes is the allocated size (st_blocks) of the files under dir.
func dirBytes(dir string) int64 {
	var alloc int64
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			alloc += st.Blocks * 512
		}
		return nil
	})
	return alloc
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

// percentile is the p-th percentile of ds (sorted in place), nearest
// rank, as the harness computes it.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	k := int(math.Ceil(p/100*float64(len(ds)))) - 1
	if k < 0 {
		k = 0
	}
	return ds[k]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
