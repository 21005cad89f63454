package ttlmon

import (
	"bytes"
	"time"
)

// lowWater is where a TTL index's next visit starts: every expired key
// below it has been deleted. dirty is the smallest key written below
// it since the last visit began; a visit starts at the lower of both.
type lowWater struct {
	mark  []byte
	dirty []byte
	// catchUp is how far the index's reaper has fallen behind expiry
	// (catchup.go).
	catchUp catchUp
}

// Index is the monitor's state of one TTL index during a visit: where
// its visits resume and its catch-up level. A visit gets it from
// StartVisit and hands it back to Advance, NoteLag and EndVisit.
type Index struct {
	key Key
	lw  *lowWater
}

// NoteKey records that key was written to the TTL index k, so that the
// index's next visit starts no later than it. Writers call it inside
// their transaction, before it commits, holding the collection's write
// lock (docs/ttl-monitor.md).
func (m *Monitor) NoteKey(k Key, key []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	lw := m.low[k]
	if lw == nil || lw.mark == nil {
		return
	}
	if lw.dirty == nil || bytes.Compare(key, lw.dirty) < 0 {
		lw.dirty = append([]byte(nil), key...)
	}
}

// StartVisit begins a visit of the TTL index k whose expired keys start
// at lo: it returns the index's state and where the visit resumes (nil:
// from lo), the lower of the index's low-water mark and the least key
// written below it since, and from now on notes keys written below
// the mark. The caller holds the collection's write lock, so that every
// key noted so far has committed before the visit reads.
func (m *Monitor) StartVisit(k Key, lo []byte) (ix *Index, resume []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	lw := m.low[k]
	if lw == nil {
		lw = &lowWater{}
		m.low[k] = lw
	}
	resume = lw.mark
	if lw.dirty != nil && (resume == nil || bytes.Compare(lw.dirty, resume) < 0) {
		resume = lw.dirty
	}
	lw.dirty = nil
	if lw.mark == nil {
		lw.mark = lo // from now on writers below the mark are noted
	}
	return &Index{key: k, lw: lw}, resume
}

// Advance moves ix's low-water mark to mark: every expired key below it
// has been deleted.
func (m *Monitor) Advance(ix *Index, mark []byte) {
	m.mu.Lock()
	ix.lw.mark = mark
	m.mu.Unlock()
}

// EndVisit records whether a visit of ix deleted everything that had
// expired by its start (finished) or stopped at a target.
func (m *Monitor) EndVisit(ix *Index, finished bool) {
	m.mu.Lock()
	ix.lw.catchUp.finished = finished
	m.mu.Unlock()
}

// ResetLowWater forgets where an index's visits resume, after a change
// (collMod) that may make documents below the mark expire later, and
// its catch-up state.
func (m *Monitor) ResetLowWater(coll, index uint64) {
	m.mu.Lock()
	delete(m.low, Key{coll, index})
	m.mu.Unlock()
}

// ForgetColl drops the per-index state of collection coll's indexes
// (the collection was dropped).
func (m *Monitor) ForgetColl(coll uint64) {
	m.mu.Lock()
	for k := range m.low {
		if k.Coll == coll {
			delete(m.low, k)
		}
	}
	m.mu.Unlock()
}

// State is a copy of the monitor's state of one TTL index.
type State struct {
	Mark, Dirty []byte
	Level       int // catch-up level
	// Lag is the lag the catch-up level's next comparison is made
	// against, if HasLag: the last one compared.
	Lag    time.Duration
	HasLag bool
}

// State returns the monitor's state of index k, and whether it has one.
func (m *Monitor) State(k Key) (State, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	lw := m.low[k]
	if lw == nil {
		return State{}, false
	}
	return State{Mark: lw.mark, Dirty: lw.dirty, Level: lw.catchUp.level, Lag: lw.catchUp.refLag, HasLag: lw.catchUp.hasRef}, true
}

// Tracked is how many TTL indexes the monitor keeps state for.
func (m *Monitor) Tracked() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.low)
}
