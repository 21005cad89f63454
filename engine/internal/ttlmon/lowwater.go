package ttlmon

import (
	"bytes"
	"time"
)

// lowWater is where a TTL index's next visit starts. For an ascending
// index every expired key below mark has been deleted, dirty is the
// smallest key written since the last visit began, and a visit starts
// at the lower of both. For a descending index (desc) the expired keys
// sort last and it is the mirror, a high-water mark: every expired key
// at or after mark has been deleted, dirty is the largest key written,
// and a visit walks down from the higher of mark and just past dirty
// (docs/ttl-monitor.md).
type lowWater struct {
	mark  []byte
	dirty []byte
	desc  bool
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
// index's next visit reaches it. Writers call it inside
// their transaction, before it commits, holding the collection's write
// lock (docs/ttl-monitor.md).
func (m *Monitor) NoteKey(k Key, key []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	lw := m.low[k]
	if lw == nil || lw.mark == nil {
		return
	}
	if c := bytes.Compare(key, lw.dirty); lw.dirty == nil || (!lw.desc && c < 0) || (lw.desc && c > 0) {
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
	lw := m.lowWater(k, false)
	resume = lw.mark
	if lw.dirty != nil && (resume == nil || bytes.Compare(lw.dirty, resume) < 0) {
		resume = lw.dirty
	}
	lw.dirty = nil
	if lw.mark == nil {
		lw.mark = lo // from now on writes are noted
	}
	return &Index{key: k, lw: lw}, resume
}

// StartVisitDesc is StartVisit for a descending TTL index k, whose
// expired keys end (exclusive) at hi: resume (nil: from hi) is the
// exclusive upper end of the keys the visit must walk, the higher of
// the index's high-water mark and just past the greatest key written
// since the last visit began; the visit walks from it down.
func (m *Monitor) StartVisitDesc(k Key, hi []byte) (ix *Index, resume []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	lw := m.lowWater(k, true)
	resume = lw.mark
	if lw.dirty != nil {
		past := append(bytes.Clone(lw.dirty), 0) // dirty itself is walked
		if resume == nil || bytes.Compare(past, resume) > 0 {
			resume = past
		}
	}
	lw.dirty = nil
	if lw.mark == nil {
		lw.mark = hi // from now on writes are noted
	}
	return &Index{key: k, lw: lw}, resume
}

// lowWater returns index k's state, made for direction desc if it has
// none. An index's direction never changes (its key pattern is fixed).
func (m *Monitor) lowWater(k Key, desc bool) *lowWater {
	lw := m.low[k]
	if lw == nil {
		lw = &lowWater{desc: desc}
		m.low[k] = lw
	}
	return lw
}

// Advance moves ix's mark to mark: every expired key below it (for a
// descending index: at or after it) has been deleted.
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
