package ttlmon

import (
	"sync"
	"sync/atomic"
	"time"
)

// reclaimAfterDeletes is how many TTL deletes, counted across passes,
// trigger space reclamation, provided they also make up a share of the
// store (reclaimStoreShare).
const reclaimAfterDeletes = 10000

// reclaimStoreShare: the TTL deletes since the last reclamation trigger
// another only once their documents' encoded size is at least
// 1/reclaimStoreShare of the store's tables. Reclamation rewrites the
// whole store, so a fixed count would rewrite a large store every
// minute under a steady expiry rate; with a share, the rewriting is at
// most reclaimStoreShare bytes per byte deleted, and a user who expires
// most of the data still gets the disk back at once. (Encoded sizes are
// before compression, tables after: this errs toward reclaiming.)
const reclaimStoreShare = 2

// reclaimMinGap is the least time between two triggered reclamations:
// Reclaim compacts the whole store, which a fast reaper must not do on
// every pass.
const reclaimMinGap = time.Minute

// reclaimState is the reclamation trigger's state.
type reclaimState struct {
	running sync.Mutex // held while a background reclamation runs
	// after is how many TTL deletes in one pass trigger space
	// reclamation (reclaimAfterDeletes; tests lower it).
	after int64
	// share is reclaimStoreShare (0: no share-of-store rule).
	share int64
	// done counts background reclamations that finished.
	done atomic.Int64
	// active is set while a background reclamation runs.
	active atomic.Bool
	// since counts TTL deletes since the last triggered reclamation;
	// last is when it was triggered (under Monitor.mu).
	since int64
	last  time.Time
	// sinceBytes is the encoded size of those documents (under
	// Monitor.mu); deletedBytes gathers it from the delete batches as
	// they are applied, and a pass moves it into sinceBytes.
	sinceBytes   int64
	deletedBytes atomic.Int64
	// flushOwed is set once a background reclamation has left the
	// memtables' deletes behind (it does not flush them, which would
	// pause every writer); a pass that finds the store quiet flushes
	// them. lastCommits is the store's commit count at the end of the
	// last pass (both under Monitor.mu).
	flushOwed   bool
	lastCommits uint64
}

// DeletedBytes is where the reapers' delete batches add the encoded size
// of the documents they delete, which the reclamation trigger weighs
// against the store's size.
func (m *Monitor) DeletedBytes() *atomic.Int64 { return &m.reclaim.deletedBytes }

// Reclaims counts the background reclamations that finished.
func (m *Monitor) Reclaims() int64 { return m.reclaim.done.Load() }

// Reclaiming reports whether a background reclamation runs.
func (m *Monitor) Reclaiming() bool { return m.reclaim.active.Load() }

// WaitReclaim waits for a background reclamation that runs to end.
func (m *Monitor) WaitReclaim() {
	m.reclaim.running.Lock()
	m.reclaim.running.Unlock()
}

// SetReclaimAfter makes n TTL deletes (with the share-of-store rule
// unchanged) trigger reclamation (a test seam).
func (m *Monitor) SetReclaimAfter(n int64) {
	m.mu.Lock()
	m.reclaim.after = n
	m.mu.Unlock()
}

// SinceReclaim is how many TTL deletes were counted since the last
// triggered reclamation.
func (m *Monitor) SinceReclaim() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reclaim.since
}

// afterPass counts a finished pass's deletes toward reclamation and
// starts one when due.
//
// Reclaim after enough deletes in total, not per pass: a steady trickle
// adds up, and a high rate does not rewrite the store on every pass
// (reclaimMinGap apart at most once).
//
// That reclamation does not flush the memtables, so it never pauses
// writers; the deletes still in them are reclaimed by the next one, or,
// if the store goes quiet first (a pass that deletes nothing and no
// commit since the last pass ended), by a full Reclaim then, when its
// flush pauses nobody.
func (m *Monitor) afterPass(deleted int64) {
	r := &m.reclaim
	commits := m.store.Commits()
	m.mu.Lock()
	r.since += deleted
	r.sinceBytes += r.deletedBytes.Swap(0)
	due := r.since >= r.after &&
		(r.last.IsZero() || time.Since(r.last) >= reclaimMinGap) &&
		(r.share == 0 || r.sinceBytes*r.share >= m.store.TableBytes())
	quiet := !due && r.flushOwed && deleted == 0 && commits == r.lastCommits
	if due {
		r.since, r.sinceBytes = 0, 0
		r.last = time.Now()
		r.flushOwed = true
	}
	if quiet {
		r.flushOwed = false
	}
	r.lastCommits = commits
	m.mu.Unlock()
	if (due || quiet) && !m.reclaimAsync(quiet) && quiet {
		m.mu.Lock()
		r.flushOwed = true // one was running: the next quiet pass
		m.mu.Unlock()
	}
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
			}
			return
		}
		r.done.Add(1)
	}()
	return true
}
