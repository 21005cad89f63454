package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/ttlkv/ttlkv/engine/internal/ttlmon"
)

// The TTL monitor itself (the loop, passes and sub-passes, fairness,
// low-water marks, catch-up levels, metrics, the reclamation trigger)
// is package engine/internal/ttlmon. This file is what engine gives it:
// the targets to visit, each with the reaper that says what "expired"
// means for it (ttlReaper), the parameters and clocks it reads
// (ttlHost), and the public face of a pass (RunTTLPass and its
// results). Writers tell it about keys they write through ttlWatcher.

// TTLIndexResult is what one TTL pass deleted through one index (or
// one time-series collection's expiry).
type TTLIndexResult = ttlmon.IndexResult

// TTLPassResult reports a TTL pass. Its Reply method gives it the shape
// of the runTTLPass command's reply.
type TTLPassResult = ttlmon.PassResult

// RunTTLPass runs one TTL pass now, as the monitor does on its timer:
// sub-passes until one ends with no index having work left. It
// returns what it deleted. Expiry is judged by Options.Clock.
func (db *DB) RunTTLPass(ctx context.Context) (*TTLPassResult, error) {
	res, err := db.mon.Pass(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = ctxErr(ctx) // MongoDB's MaxTimeMSExpired
	}
	return res, err
}

// ttlKey names a TTL index to the monitor: its collection's id and its
// own (0: a time-series collection's expiry).
type ttlKey = ttlmon.Key

// maxCatchUp is the top catch-up level, at which a visit does not yield
// to writers (the batch deleter scales its gentleness by the level).
const maxCatchUp = ttlmon.MaxCatchUp

// ttlWatcher is how writers and catalog changes tell the TTL monitor
// what moves the start of its next visits, without calling into it: a
// key written below an index's low-water mark (NoteKey), an index whose
// expiry changed (ResetLowWater), a collection gone (ForgetColl).
// *ttlmon.Monitor implements it; DB.ttl holds it.
type ttlWatcher interface {
	NoteKey(k ttlKey, key []byte)
	ResetLowWater(coll, index uint64)
	ForgetColl(coll uint64)
}

// newMonitor returns db's TTL monitor, stopped.
func newMonitor(db *DB) *ttlmon.Monitor {
	return ttlmon.New(ttlHost{db}, db.store, db.opts.seams.reclaimAfter)
}

// wakeMonitor makes a sleeping monitor recompute its deadline.
func (db *DB) wakeMonitor() {
	if db.mon != nil {
		db.mon.Wake()
	}
}

// ttlTarget is one thing a sub-pass visits: a TTL index, or a
// time-series collection's expiry (index 0).
type ttlTarget struct {
	c      *coll
	index  uint64
	name   string
	reaper ttlReaper // what expired means for the target, and the visit
}

// ttlTargets lists every TTL target of the database, as each
// collection's kind says.
func (db *DB) ttlTargets() []ttlTarget {
	var out []ttlTarget
	for _, c := range db.collsOf("") {
		out = append(out, kindOf(c.m()).ttlTargets(c)...)
	}
	return out
}

// ttlReaper says what "expired" means for one kind of TTL target and
// deletes what has: the monitor owns the schedule (passes, sub-passes,
// fairness), the metrics and reclamation; a reaper performs one visit.
// A TTL index of an ordinary or clustered collection is indexReaper
// (ttlVisit, ttl_visit.go); a time-series collection's expiry is
// bucketReaper (timeseries_ttl.go).
type ttlReaper interface {
	// visit deletes expired documents through target t until one of the
	// visit's targets is met (more) or nothing expired is left.
	visit(ctx context.Context, db *DB, t ttlTarget) (deleted int64, more bool, err error)
}

// indexReaper expires the documents of a TTL index (docs/ttl-indexes.md §2).
type indexReaper struct{}

func (indexReaper) visit(ctx context.Context, db *DB, t ttlTarget) (int64, bool, error) {
	return db.ttlVisit(ctx, t)
}

// Visit is t's visit, as the monitor runs it (ttlmon.Reaper).
func (t ttlTarget) Visit(ctx context.Context) (int64, bool, error) {
	return t.reaper.visit(ctx, t.c.db, t)
}

// Namespace is t's collection's namespace now (ttlmon.Reaper).
func (t ttlTarget) Namespace() string { return t.c.m().NS() }

// ttlHost is what engine gives the TTL monitor (ttlmon.Host).
type ttlHost struct{ db *DB }

func (h ttlHost) Targets() []ttlmon.Target {
	ts := h.db.ttlTargets()
	out := make([]ttlmon.Target, len(ts))
	for i, t := range ts {
		out[i] = ttlmon.Target{Key: ttlKey{Coll: t.c.m().ID, Index: t.index}, Name: t.name, Reaper: t}
	}
	return out
}

func (h ttlHost) Writable() error { return h.db.checkWritable() }

func (h ttlHost) Scheduled() bool {
	return h.db.params.bool("ttlMonitorEnabled") && h.db.opts.Role == RolePrimary
}

func (h ttlHost) Sleep() time.Duration {
	return time.Duration(h.db.params.int("ttlMonitorSleepSecs")) * time.Second
}

func (h ttlHost) SubPassTarget() time.Duration {
	return time.Duration(h.db.params.int("ttlMonitorSubPassTargetSecs")) * time.Second
}

func (h ttlHost) Now() time.Time { return h.db.targetNow() }

func (h ttlHost) Logf(format string, args ...any) { h.db.logf(format, args...) }

func (h ttlHost) Visited(name string, deleted int64, more bool) {
	if hook := h.db.opts.seams.visitHook; hook != nil {
		hook(name, deleted, more)
	}
}

func (h ttlHost) BeforeReclaim() {
	h.db.failpoint(FailpointReclaim)
	if hook := h.db.opts.seams.reclaimHook; hook != nil {
		hook()
	}
}

func (h ttlHost) Writes() int64 { return h.db.foregroundWrites() }

// TTLVisitTrace describes one visit of a TTL index of an ordinary or
// clustered collection, for a benchmark's trace
// (SetTTLTraceForTesting).
type TTLVisitTrace struct {
	Index      string
	Start, End time.Time     // wall clock
	Lag        time.Duration // how long ago the oldest expired key expired, at the visit's start
	Level      int           // the level the visit reaped at (docs/batched-deletes.md §4.4)
	Backlog    bool          // the level is the backlog level alone (paced by duty at the top)
	Deleted    int64
	More       bool          // a target stopped the visit
	Paused     time.Duration // the visit's pauses beside writers (gentle and duty)
}

// TTLBatchTrace describes one delete batch of a TTL visit once its
// commit is applied, for a benchmark's trace (SetTTLBatchTraceForTesting).
type TTLBatchTrace struct {
	Start    time.Time     // wall clock: the batch began reading its records
	Sent     time.Time     // its commit was handed to the store (zero: committed synchronously)
	Applied  time.Time     // its commit was found applied
	Deleted  int64         // documents
	Gentle   bool          // a gentle sub-batch (writers active)
	LockWait time.Duration // its commit's wait for a writer's lock
}

// visitTracer is SetTTLTraceForTesting's state: f, and the pauses of
// the batched delete stage summed; batch, if set, sees every applied
// batch (SetTTLBatchTraceForTesting).
type visitTracer struct {
	f      func(TTLVisitTrace)
	batch  func(TTLBatchTrace)
	paused atomic.Int64 // nanoseconds
}

// SetTTLBatchTraceForTesting makes databases opened with o call f after
// every applied delete batch of a TTL index visit, from the monitor's
// goroutine. Call it after SetTTLTraceForTesting. It is a seam for
// benchmarks that trace the reaper: production code never calls it.
func SetTTLBatchTraceForTesting(o *Options, f func(TTLBatchTrace)) {
	if o.seams.visitTrace == nil {
		SetTTLTraceForTesting(o, func(TTLVisitTrace) {})
	}
	o.seams.visitTrace.batch = f
}

// SetTTLTraceForTesting makes databases opened with o call f after every
// visit of a TTL index (not a time-series expiry), from the monitor's
// goroutine. It is a seam for benchmarks that trace the reaper: production
// code never calls it.
func SetTTLTraceForTesting(o *Options, f func(TTLVisitTrace)) {
	tr := &visitTracer{f: f}
	prev := o.seams.pause
	o.seams.visitTrace = tr
	o.seams.pause = func(d time.Duration) {
		tr.paused.Add(int64(d))
		if prev != nil {
			prev(d)
			return
		}
		time.Sleep(d)
	}
}
