package engine

import (
	"os"
	"strconv"
	"time"
)

// Failpoint names. The crash-torture harness (package fuzz) sets
// TTLKV_FAILPOINT to one of them in a child process to kill it with
// SIGKILL at that exact point.
const (
	// FailpointReapBeforeCommit fires in a delete batch after every
	// document of the batch is staged, before its transaction commits.
	FailpointReapBeforeCommit = "reap.beforeCommit"
	// FailpointReapAfterCommit fires right after a delete batch commits,
	// before the caller learns of it.
	FailpointReapAfterCommit = "reap.afterCommit"
	// FailpointIndexBuildMid fires in an index build after the keys of
	// each scanned chunk of documents are staged, before the build's
	// catalog entry is finished.
	FailpointIndexBuildMid = "indexBuild.mid"
	// FailpointReclaim fires in background space reclamation, before
	// the store's reclamation starts.
	FailpointReclaim = "reclaim"
	// FailpointCappedAfterAppend fires in a capped insert after the
	// document is appended to the ring, before it is indexed.
	FailpointCappedAfterAppend = "capped.afterAppend"
	// FailpointCappedEvict fires in a capped eviction before the ring
	// records the eviction and reuses the evicted records' space; with
	// secondary indexes, after their entries' deletes are committed.
	FailpointCappedEvict = "capped.evict"
)

// failpointName is TTLKV_FAILPOINT, read once at start: the process
// environment of a crash-test child is fixed before it starts.
var failpointName = os.Getenv("TTLKV_FAILPOINT")

// failpointReclaimAfter returns TTLKV_FAILPOINT_RECLAIM_AFTER (a
// positive integer) if set, else def: the crash harness lowers the
// number of deletes in one TTL pass that starts space reclamation, so
// that reaching FailpointReclaim does not take 10,000 deletes.
func failpointReclaimAfter(def int64) int64 {
	if n, err := strconv.ParseInt(os.Getenv("TTLKV_FAILPOINT_RECLAIM_AFTER"), 10, 64); err == nil && n > 0 {
		return n
	}
	return def
}

// failpointReclaimShare returns 0 (no share-of-store rule) when
// TTLKV_FAILPOINT_RECLAIM_AFTER is set, else def: the crash harness's
// small stores must reach FailpointReclaim after its few deletes
// whatever share of the store they are.
func failpointReclaimShare(def int64) int64 {
	if failpointReclaimAfter(0) > 0 {
		return 0
	}
	return def
}

// failpoint kills the process with SIGKILL when TTLKV_FAILPOINT equals
// name. It costs one string comparison otherwise. It is a test seam:
// never set TTLKV_FAILPOINT in production.
func failpoint(name string) {
	if failpointName != "" && failpointName == name {
		killSelf() // failpoint_unix.go, failpoint_other.go
		for {
			time.Sleep(time.Hour) // the signal is on its way; never return
		}
	}
}
