package js

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/ttlkv/ttlkv/document"
)

// DefaultMemoryLimit is how far the Go heap may grow while scripts run
// before they are stopped: mongod's jsHeapLimitMB default.
const DefaultMemoryLimit = 1100 << 20

var memoryLimit = setting{def: DefaultMemoryLimit}

// SetMemoryLimit sets how many bytes the heap may grow, while scripts
// run, above what it held when they started (DefaultMemoryLimit until
// set; n <= 0 restores it), and returns the previous value. Past it,
// every running script stops with 139 "Out of memory". goja cannot
// account one script's allocations, so the bound is on the process's
// heap: a best effort against a script that would exhaust memory.
func SetMemoryLimit(n int64) int64 {
	return memoryLimit.set(n)
}

// The scripts running, which the watchdog interrupts together.
var (
	watchMu     sync.Mutex
	watching    = map[*int]func(error){}
	watchdogsOn bool // a watchdog goroutine runs
)

// watchMemory registers a running call's interrupt with the memory
// watchdog, starting it when the call is the first; the returned
// function unregisters it.
func watchMemory(interrupt func(error)) func() {
	key := new(int)
	watchMu.Lock()
	if !watchdogsOn {
		watchdogsOn = true
		go watchdog(heapBytes(liveMetric))
	}
	watching[key] = interrupt
	watchMu.Unlock()
	return func() {
		watchMu.Lock()
		delete(watching, key)
		watchMu.Unlock()
	}
}

const (
	liveMetric    = "/gc/heap/live:bytes"
	objectsMetric = "/memory/classes/heap/objects:bytes"
)

func heapBytes(name string) int64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// watchdog samples the heap while scripts run; when it has grown past
// the limit above base even after a collection, it interrupts them all.
func watchdog(base int64) {
	lastGC := time.Time{}
	for {
		time.Sleep(5 * time.Millisecond)
		watchMu.Lock()
		if len(watching) == 0 {
			watchdogsOn = false
			watchMu.Unlock()
			return
		}
		watchMu.Unlock()
		limit := base + memoryLimit.get()
		if heapBytes(objectsMetric) <= limit {
			continue
		}
		// Garbage counts until collected: collect (not too often) and
		// look again at what is live.
		if time.Since(lastGC) > 100*time.Millisecond {
			runtime.GC()
			lastGC = time.Now()
		}
		if heapBytes(liveMetric) <= limit {
			continue
		}
		oom := document.Errorf(CodeJSInterpreterFailure, "Out of memory")
		watchMu.Lock()
		for _, interrupt := range watching {
			interrupt(oom)
		}
		watchMu.Unlock()
	}
}
