package engine

// Failpoint names. The crash-torture harness (package fuzz) has a
// child process killed with SIGKILL at one of them
// (SetFailpointForTesting).
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
	// FailpointCappedBeforeEvents fires in a capped insert after the
	// ring holds the chunk's records, before their insert events (with
	// change streams on) and secondary entries commit.
	FailpointCappedBeforeEvents = "capped.beforeEvents"
	// FailpointCappedEvict fires in a capped eviction before the ring
	// records the eviction and reuses the evicted records' space; with
	// secondary indexes, after their entries' deletes are committed.
	FailpointCappedEvict = "capped.evict"
	// FailpointKeyLayout fires while Open rewrites an older store's keys
	// into the current layout, after each committed chunk.
	FailpointKeyLayout = "keyLayout"
)

// failpoint calls the failpoint seam (SetFailpointForTesting) with
// name, if one is set. It costs one nil check otherwise.
func (db *DB) failpoint(name string) {
	if f := db.opts.seams.failpoint; f != nil {
		f(name)
	}
}
