package ttlmon

import (
	"sync"
	"sync/atomic"
	"time"
)

// reclaimAfterDeletes is how many TTL deletes, counted across passes,
// make space reclamation due, provided they also make up a share of the
// store (reclaimStoreShare).
const reclaimAfterDeletes = 10000

// reclaimStoreShare: the TTL deletes since the last reclamation make
// another due only once their documents' encoded size is at least
// 1/reclaimStoreShare of the store's tables. Reclamation rewrites the
// whole store, so a fixed count would rewrite a large store every
// minute under a steady expiry rate; with a share, the rewriting is at
// most reclaimStoreShare bytes per byte deleted, and a user who expires
// most of the data still gets the disk back at once. (Encoded sizes are
// before compression, tables after: this errs toward reclaiming.)
const reclaimStoreShare = 2

// reclaimMinGap is the least time between two reclamations the monitor
// starts: Reclaim compacts the whole store, which a fast reaper must not
// do on every pass.
const reclaimMinGap = time.Minute

// reclaimMaxDefer is the longest a due reclamation waits for the
// foreground writers to go quiet (docs/ttl-monitor.md, "Giving the space
// back"); after it, it runs beside them. A store whose writers never
// stop thus still gets its space back, at most once in this time.
const reclaimMaxDefer = 15 * time.Minute

// reclaimState is the reclamation trigger's state. Its fields other
// than the atomics and running are under Monitor.mu.
type reclaimState struct {
	running sync.Mutex // held while a background reclamation runs
	// after is how many TTL deletes in one pass make reclamation due
	// (reclaimAfterDeletes; tests lower it).
	after int64
	// share is reclaimStoreShare (0: no share-of-store rule).
	share int64
	// eager runs a due reclamation at once, beside writers too (the
	// crash harness's seam: its writers never stop).
	eager bool
	// done counts background reclamations that finished.
	done atomic.Int64
	// active is set while a background reclamation runs; owedFlag
	// mirrors owed for Stats.
	active, owedFlag atomic.Bool
	// since counts TTL deletes since the last reclamation came due;
	// last is when the last one started.
	since int64
	last  time.Time
	// sinceBytes is the encoded size of those documents; deletedBytes
	// gathers it from the delete batches as they are applied, and a
	// pass moves it into sinceBytes.
	sinceBytes   int64
	deletedBytes atomic.Int64
	// owed is set while a due reclamation waits for the foreground
	// writers to go quiet; owedAt is when it came due.
	owed   bool
	owedAt time.Time
	// flushOwed is set once a background reclamation has left the
	// memtables' deletes behind (it does not flush them, which would
	// pause every writer); a pass that finds the store quiet flushes
	// them. lastCommits is the store's commit count and lastWrites the
	// host's foreground write count at the end of the last pass; ended
	// is set once a pass has ended.
	flushOwed   bool
	lastCommits uint64
	lastWrites  int64
	ended       bool
}

// reclaimAction is what the trigger decides after a pass.
type reclaimAction int

const (
	// reclaimNone starts nothing.
	reclaimNone reclaimAction = iota
	// reclaimBackground starts the store's ReclaimBackground.
	reclaimBackground
	// reclaimFull starts the store's Reclaim (flush included).
	reclaimFull
)

// passFacts are what the trigger weighs after a pass.
type passFacts struct {
	now          time.Time // on the host's clock
	deleted      int64     // TTL deletes of the pass
	deletedBytes int64     // their documents' encoded size
	tables       int64     // the store's table bytes now
	// busy: the foreground wrote since the last pass ended (or, for
	// the first pass, during it); committed: anything was committed
	// since the last pass ended, the monitor's deletes included.
	busy, committed bool
}

// decide is the reclamation trigger (docs/ttl-monitor.md, "Giving the
// space back"). A reclamation comes due after after TTL deletes whose
// documents make up 1/share of the tables, reclaimMinGap after the last
// one started. It runs at once if the foreground did not write;
// otherwise it waits, pass after pass, until a pass finds the
// foreground quiet, or until reclaimMaxDefer has passed and then runs
// beside the writers. (Not at a growth of the tables: in a steady state
// that fills a store, a reclamation comes due while the tables are a
// fraction of their steady size.) One that runs while nothing at all
// is committed is a full Reclaim; otherwise a background one, and a
// later pass that finds nothing committed since the one before flushes
// what it left in the memtables.
func (r *reclaimState) decide(f passFacts) reclaimAction {
	r.since += f.deleted
	r.sinceBytes += f.deletedBytes
	due := r.since >= r.after &&
		(r.last.IsZero() || f.now.Sub(r.last) >= reclaimMinGap) &&
		(r.share == 0 || r.sinceBytes*r.share >= f.tables)
	if due {
		r.since, r.sinceBytes = 0, 0
		if !r.owed {
			r.owed, r.owedAt = true, f.now
		}
	}
	if r.owed {
		run := !f.busy || r.eager || f.now.Sub(r.owedAt) >= reclaimMaxDefer
		if !run {
			return reclaimNone
		}
		r.owed, r.last = false, f.now
		if !f.committed && f.deleted == 0 {
			r.flushOwed = false
			return reclaimFull
		}
		r.flushOwed = true
		return reclaimBackground
	}
	if r.flushOwed && f.deleted == 0 && !f.committed {
		r.flushOwed = false
		return reclaimFull
	}
	return reclaimNone
}

// ReclaimAccount is what the reclamation trigger has counted toward the
// next reclamation. The engine keeps it across Close and the next Open,
// so that a store reopened often (a command-line run each time) still
// comes to give its space back, and a due one is not forgotten.
type ReclaimAccount struct {
	// Deletes is how many TTL deletes were counted since the last
	// reclamation came due; Bytes is their documents' encoded size.
	Deletes, Bytes int64
	// Owed is set when a due reclamation had not run (it waited for the
	// foreground writers to go quiet, or the store closed beneath it).
	Owed bool
}

// ReclaimAccount returns the trigger's account (call it after Stop: the
// deletes of batches applied since the last pass are in it).
func (m *Monitor) ReclaimAccount() ReclaimAccount {
	r := &m.reclaim
	m.mu.Lock()
	defer m.mu.Unlock()
	return ReclaimAccount{Deletes: r.since, Bytes: r.sinceBytes + r.deletedBytes.Load(), Owed: r.owed}
}

// RestoreReclaimAccount sets the trigger's account to a, before the
// first pass. An owed reclamation waits for quiet writers again, at
// most reclaimMaxDefer from now.
func (m *Monitor) RestoreReclaimAccount(a ReclaimAccount) {
	r := &m.reclaim
	m.mu.Lock()
	defer m.mu.Unlock()
	r.since, r.sinceBytes = a.Deletes, a.Bytes
	if a.Owed {
		r.owed, r.owedAt = true, m.host.Now()
	}
	r.owedFlag.Store(r.owed)
}

// DeletedBytes is where the reapers' delete batches add the encoded size
// of the documents they delete, which the reclamation trigger weighs
// against the store's size.
func (m *Monitor) DeletedBytes() *atomic.Int64 { return &m.reclaim.deletedBytes }

// Reclaims counts the reclamations the monitor started (background or
// full) that finished.
func (m *Monitor) Reclaims() int64 { return m.reclaim.done.Load() }

// Reclaiming reports whether a background reclamation runs.
func (m *Monitor) Reclaiming() bool { return m.reclaim.active.Load() }

// ReclaimOwed reports whether a due reclamation waits for the
// foreground writers to go quiet.
func (m *Monitor) ReclaimOwed() bool { return m.reclaim.owedFlag.Load() }

// WaitReclaim waits for a background reclamation that runs to end.
func (m *Monitor) WaitReclaim() {
	m.reclaim.running.Lock()
	m.reclaim.running.Unlock()
}

// SetReclaimAfter makes n TTL deletes (with the share-of-store rule and
// the wait for quiet writers unchanged) make reclamation due (a test
// seam).
func (m *Monitor) SetReclaimAfter(n int64) {
	m.mu.Lock()
	m.reclaim.after = n
	m.mu.Unlock()
}

// SinceReclaim is how many TTL deletes were counted since the last
// reclamation came due.
func (m *Monitor) SinceReclaim() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reclaim.since
}

// afterPass counts a finished pass's deletes toward reclamation and
// starts one when decide says so. startWrites is the host's foreground
// write count when the pass began.
func (m *Monitor) afterPass(deleted, startWrites int64) {
	r := &m.reclaim
	commits := m.store.Commits()
	writes := m.host.Writes()
	tables := m.store.TableBytes()
	m.mu.Lock()
	from := startWrites
	if r.ended {
		from = r.lastWrites
	}
	act := r.decide(passFacts{now: m.host.Now(), deleted: deleted, deletedBytes: r.deletedBytes.Swap(0),
		tables: tables, busy: writes != from, committed: !r.ended || commits != r.lastCommits})
	r.ended, r.lastCommits, r.lastWrites = true, commits, writes
	r.owedFlag.Store(r.owed)
	m.mu.Unlock()
	if act == reclaimNone || m.reclaimAsync(act == reclaimFull) {
		return
	}
	// One was running: try again after the next pass.
	m.mu.Lock()
	if act == reclaimFull {
		r.flushOwed = true
	} else if !r.owed {
		r.owed, r.owedAt = true, m.host.Now()
		r.owedFlag.Store(true)
	}
	m.mu.Unlock()
}

// reclaimAsync starts the store's reclamation in the background, one at
// a time, and reports whether it started one. With flush it is a full
// Reclaim, whose memtable flush pauses writers; without,
// ReclaimBackground.
func (m *Monitor) reclaimAsync(flush bool) bool {
	r := &m.reclaim
	if !r.running.TryLock() {
		return false
	}
	r.active.Store(true)
	go func() {
		defer r.running.Unlock()
		defer r.active.Store(false)
		ctx, cancel := m.stopContext()
		defer cancel()
		m.host.BeforeReclaim()
		reclaim := m.store.ReclaimBackground
		if flush {
			reclaim = m.store.Reclaim
		}
		if err := reclaim(ctx); err != nil {
			if ctx.Err() == nil {
				m.host.Logf("ttl: space reclamation: %v", err)
				return
			}
			// Stopped by Stop: still owed (ReclaimAccount).
			m.mu.Lock()
			r.owed = true
			r.owedFlag.Store(true)
			m.mu.Unlock()
			return
		}
		r.done.Add(1)
	}()
	return true
}
