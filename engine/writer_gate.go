package engine

import (
	"sync"
	"sync/atomic"
	"time"
)

// writerGate counts a collection's inserts in flight, from the start of
// an insert to the end of its last commit's write, and lets the TTL
// reaper wait for them to end (docs/ttl-monitor.md, "Inserts in
// flight"). The zero value has none in flight.
type writerGate struct {
	n  atomic.Int64
	mu sync.Mutex
	// idle, while a reaper waits, is closed when n drops to zero.
	idle chan struct{}
}

// enter notes an insert that begins; the insert calls leave when done.
func (g *writerGate) enter() { g.n.Add(1) }

// leave notes an insert that ended.
func (g *writerGate) leave() {
	if g.n.Add(-1) == 0 {
		g.mu.Lock()
		if g.idle != nil {
			close(g.idle)
			g.idle = nil
		}
		g.mu.Unlock()
	}
}

// idleChan returns nil when no insert is in flight, otherwise a channel
// closed once none is.
func (g *writerGate) idleChan() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n.Load() == 0 {
		return nil
	}
	if g.idle == nil {
		g.idle = make(chan struct{})
	}
	return g.idle
}

// writerWaitCredit is the most a yielding TTL run waits for inserts in
// flight at a time, and the most it may have waited or paused beyond the
// time it worked: a run that waits, or pauses after a contended batch
// (batchDeleter.yieldFor), spends this credit, working earns it back
// (awaitWriters, spendWait, earnWait). So beside inserts that never
// stop, the run still works about half of the time, as it did beside a
// writer that holds the collection's lock at its commits before it
// waited for inserts; beside a writer of occasional batches it waits
// for each of them in full. A
// level-0 steady state at 5000 documents a second, in batches of 1000,
// has batches of 5-20 ms (benchmarks/RESULTS.md, "p99n").
const writerWaitCredit = 20 * time.Millisecond

// awaitWriters is called by a yielding pipelined TTL run before it
// stages a batch: if inserts into
// the collection are in flight, it waits until they end, at most its
// credit (writerWaitCredit less the waits it has not earned back by
// working), halved at each catch-up level. It reports whether it
// waited.
func (bd *batchDeleter) awaitWriters() bool {
	waited, ok := bd.db.awaitInserts(bd.c, (writerWaitCredit-bd.waitDebt)>>bd.level)
	if ok {
		bd.writerWaits++
		bd.writerWait += waited
		bd.spendWait(waited)
	}
	return ok
}

// spendWait takes d, a wait for inserts in flight or a pause beside a
// writer, from the run's credit to wait.
func (bd *batchDeleter) spendWait(d time.Duration) {
	bd.waitDebt = min(bd.waitDebt+max(d, 0), writerWaitCredit)
}

// awaitInserts waits until no insert into c is in flight, at most limit.
// It reports how long it waited (on the targets' clock) and whether it
// did (an insert was in flight and limit is above 0).
func (db *DB) awaitInserts(c *coll, limit time.Duration) (time.Duration, bool) {
	if limit <= 0 {
		return 0, false
	}
	idle := c.inserts.idleChan()
	if idle == nil {
		return 0, false
	}
	start := db.targetNow()
	if w := db.opts.seams.waitWriters; w != nil {
		w(idle, limit)
	} else {
		t := time.NewTimer(limit)
		select {
		case <-idle:
		case <-t.C:
		}
		t.Stop()
	}
	waited := db.targetSince(start)
	if tr := db.opts.seams.visitTrace; tr != nil {
		tr.waited.Add(int64(waited))
	}
	return waited, true
}

// earnWait gives the run back credit to wait for inserts in flight for
// work it did.
func (bd *batchDeleter) earnWait(work time.Duration) {
	bd.waitDebt = max(bd.waitDebt-max(work, 0), 0)
}
