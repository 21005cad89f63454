// Package ttlmon is the TTL monitor (docs/ttl-monitor.md): the goroutine
// that runs a TTL pass every ttlMonitorSleepSecs, the pass itself
// (sub-passes, fairness between targets), where each TTL index's next
// visit starts (low-water marks), how far each index's reaper has
// fallen behind (catch-up and backlog levels), the pass metrics and
// results, and the trigger of space reclamation.
//
// It does not know what a collection, a document or a delete is. The
// engine gives it a Host (the targets to visit, the parameters it
// reads, the clock of its time targets, its log) and a Store (the
// reclamation and the counts it is triggered by); each Target's Reaper
// says what "expired" means for that target and deletes what has.
// Writers tell it about keys they write through NoteKey.
package ttlmon

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Key names a TTL target: a collection's id and one of its indexes' id
// (0 for a time-series collection's expiry).
type Key struct{ Coll, Index uint64 }

// Target is one thing a sub-pass visits: a TTL index, or a time-series
// collection's expiry.
type Target struct {
	Key Key
	// Name is the index's name (or the time-series expiry's) in results.
	Name string
	// Reaper performs the target's visits.
	Reaper Reaper
}

// Reaper is what a kind of collection supplies for one TTL target: what
// "expired" means, and the deleting.
type Reaper interface {
	// Visit deletes expired documents until one of the visit's targets
	// is met (more) or nothing expired is left.
	Visit(ctx context.Context) (deleted int64, more bool, err error)
	// Namespace is the target's collection's namespace now.
	Namespace() string
}

// Host is what the engine gives the monitor.
type Host interface {
	// Targets lists every TTL target of the database now.
	Targets() []Target
	// Writable returns the error a pass fails with when the database
	// cannot be written (closed, read-only, secondary), else nil.
	Writable() error
	// Scheduled reports whether a timed pass runs: ttlMonitorEnabled is
	// set and the engine is a primary.
	Scheduled() bool
	// Sleep is ttlMonitorSleepSecs.
	Sleep() time.Duration
	// SubPassTarget is ttlMonitorSubPassTargetSecs (0: none).
	SubPassTarget() time.Duration
	// Now is the clock of the time targets (a monotonic clock, not the
	// clock that judges expiry).
	Now() time.Time
	// Logf writes a line of the engine's log.
	Logf(format string, args ...any)
	// Visited is called after every visit (a test seam; it may do
	// nothing).
	Visited(name string, deleted int64, more bool)
	// BeforeReclaim is called in a background reclamation before the
	// store's (the crash harness's failpoint and a test seam).
	BeforeReclaim()
	// Writes counts the foreground writes (the operation counters of
	// inserts, updates and deletes; the monitor's deletes count in
	// none). Space reclamation waits while it moves.
	Writes() int64
}

// Store is the storage the monitor reclaims space in.
type Store interface {
	// Commits counts the store's committed transactions.
	Commits() uint64
	// TableBytes is the size of the store's tables.
	TableBytes() int64
	// Reclaim flushes the memtables and reclaims the space of deleted
	// data; ReclaimBackground reclaims it without flushing.
	Reclaim(ctx context.Context) error
	ReclaimBackground(ctx context.Context) error
}

// Monitor is the TTL monitor of one database.
type Monitor struct {
	host    Host
	store   Store
	wake    chan struct{}
	stopCh  chan struct{}
	done    chan struct{}
	passMu  sync.Mutex // one pass at a time
	started bool       // the loop goroutine runs

	passes, subPasses atomic.Int64

	mu       sync.Mutex
	low      map[Key]*lowWater
	passHook func(PassResult) // under mu

	reclaim reclaimState
}

// New returns a stopped monitor. reclaimAfter, if positive, replaces
// the number of TTL deletes that make space reclamation due, turns off
// the share-of-store rule and starts a due reclamation beside writers
// too (a test seam: the crash harness's writers never stop).
func New(h Host, st Store, reclaimAfter int64) *Monitor {
	m := &Monitor{host: h, store: st, wake: make(chan struct{}, 1), stopCh: make(chan struct{}), done: make(chan struct{}),
		low: map[Key]*lowWater{}}
	m.reclaim.after, m.reclaim.share = reclaimAfterDeletes, reclaimStoreShare
	if reclaimAfter > 0 {
		m.reclaim.after, m.reclaim.share, m.reclaim.eager = reclaimAfter, 0, true
	}
	return m
}

// Start starts the goroutine that runs a pass every ttlMonitorSleepSecs.
func (m *Monitor) Start() {
	m.started = true
	go m.loop()
}

// Stop stops the loop, cancelling a pass it runs, and waits for it and
// for a background reclamation to end. It may be called more than once.
func (m *Monitor) Stop() {
	select {
	case <-m.stopCh:
		return
	default:
	}
	close(m.stopCh)
	if m.started {
		<-m.done
	}
	m.WaitReclaim()
}

// Wake makes a sleeping monitor recompute its deadline (the sleep
// parameter changed).
func (m *Monitor) Wake() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// SetPassHook makes the loop call f after every pass it runs (a test
// seam).
func (m *Monitor) SetPassHook(f func(PassResult)) {
	m.mu.Lock()
	m.passHook = f
	m.mu.Unlock()
}

func (m *Monitor) loop() {
	defer close(m.done)
	last := time.Now()
	for {
		t := time.NewTimer(time.Until(last.Add(m.host.Sleep())))
		select {
		case <-m.stopCh:
			t.Stop()
			return
		case <-m.wake:
			t.Stop()
			continue
		case <-t.C:
		}
		// The timer and Stop may both be ready (a pass that Stop
		// cancelled leaves the next timer already due): Stop wins, so
		// that no pass starts once Stop was called.
		select {
		case <-m.stopCh:
			return
		default:
		}
		last = time.Now()
		ctx, cancel := m.stopContext()
		res, err := m.ScheduledPass(ctx)
		cancel()
		if err != nil {
			m.host.Logf("ttl: pass failed: %v", err)
			continue
		}
		if res == nil {
			continue
		}
		if res.Deleted > 0 {
			m.host.Logf("ttl: pass deleted %d documents in %d sub-passes", res.Deleted, res.SubPasses)
		}
		m.mu.Lock()
		hook := m.passHook
		m.mu.Unlock()
		if hook != nil {
			hook(*res)
		}
	}
}

// stopContext returns a context cancelled when the monitor stops (or
// by cancel).
func (m *Monitor) stopContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-m.stopCh:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// ScheduledPass is what the loop does each time its timer fires
// (docs/ttl-monitor.md §3.2, §3.5): nothing, and no pass counted, while
// the host says no pass is scheduled (it returns nil then); otherwise
// a TTL pass.
func (m *Monitor) ScheduledPass(ctx context.Context) (*PassResult, error) {
	if !m.host.Scheduled() {
		return nil, nil
	}
	return m.Pass(ctx)
}

// Passes counts the passes that ran to the end.
func (m *Monitor) Passes() int64 { return m.passes.Load() }

// SubPasses counts sub-passes, those of passes that stopped early
// included.
func (m *Monitor) SubPasses() int64 { return m.subPasses.Load() }
