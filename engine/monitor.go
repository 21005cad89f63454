package engine

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// monitor is the TTL monitor: a goroutine that runs a TTL pass every
// ttlMonitorSleepSecs (docs/ttl-monitor.md §3), and the per-index state that lets a
// visit resume where the last one stopped.
type monitor struct {
	db      *DB
	wake    chan struct{}
	stopCh  chan struct{}
	done    chan struct{}
	passMu  sync.Mutex // one pass at a time
	started bool       // the loop goroutine runs

	mu  sync.Mutex
	low map[ttlKey]*lowWater

	reclaiming sync.Mutex // held while a background reclamation runs
	// reclaimAfter is how many TTL deletes in one pass trigger space
	// reclamation (reclaimAfterDeletes; tests lower it).
	reclaimAfter int64
	// reclaimShare is reclaimStoreShare (0: no share-of-store rule;
	// the crash harness's seam, SetReclaimAfterForTesting).
	reclaimShare int64
	// reclaims counts background reclamations that finished.
	reclaims atomic.Int64
	// reclaimActive is set while a background reclamation runs.
	reclaimActive atomic.Bool
	// sinceReclaim counts TTL deletes since the last triggered
	// reclamation; lastReclaim is when it was triggered (under mu).
	sinceReclaim int64
	lastReclaim  time.Time
	// sinceReclaimBytes is the encoded size of those documents (under
	// mu); deletedBytes gathers it from the delete batches as they are
	// applied, and a pass moves it into sinceReclaimBytes.
	sinceReclaimBytes int64
	deletedBytes      atomic.Int64
	// flushOwed is set once a background reclamation has left the
	// memtables' deletes behind (it does not flush them, which would
	// pause every writer); a pass that finds the store quiet flushes
	// them. lastCommits is the store's commit count at the end of the
	// last pass (both under mu).
	flushOwed   bool
	lastCommits uint64
}

type ttlKey struct{ coll, index uint64 }

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

func newMonitor(db *DB) *monitor {
	mo := &monitor{db: db, wake: make(chan struct{}, 1), stopCh: make(chan struct{}), done: make(chan struct{}),
		low: map[ttlKey]*lowWater{}, reclaimAfter: reclaimAfterDeletes, reclaimShare: reclaimStoreShare}
	if n := db.opts.seams.reclaimAfter; n > 0 {
		mo.reclaimAfter, mo.reclaimShare = n, 0
	}
	return mo
}

func (mo *monitor) start() {
	mo.started = true
	go mo.loop()
}

func (mo *monitor) stop() {
	select {
	case <-mo.stopCh:
		return
	default:
	}
	close(mo.stopCh)
	if mo.started {
		<-mo.done
	}
	mo.reclaiming.Lock()
	mo.reclaiming.Unlock()
}

// wakeMonitor makes a sleeping monitor recompute its deadline.
func (db *DB) wakeMonitor() {
	if db.mon == nil {
		return
	}
	select {
	case db.mon.wake <- struct{}{}:
	default:
	}
}

func (mo *monitor) loop() {
	defer close(mo.done)
	last := time.Now()
	for {
		sleep := time.Duration(mo.db.params.int("ttlMonitorSleepSecs")) * time.Second
		t := time.NewTimer(time.Until(last.Add(sleep)))
		select {
		case <-mo.stopCh:
			t.Stop()
			return
		case <-mo.wake:
			t.Stop()
			continue
		case <-t.C:
		}
		last = time.Now()
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-mo.stopCh:
				cancel()
			case <-ctx.Done():
			}
		}()
		res, err := mo.scheduledPass(ctx)
		cancel()
		if err != nil {
			mo.db.logf("ttl: pass failed: %v", err)
			continue
		}
		if res == nil {
			continue
		}
		if res.Deleted > 0 {
			mo.db.logf("ttl: pass deleted %d documents in %d sub-passes", res.Deleted, res.SubPasses)
		}
		mo.mu.Lock()
		hook := mo.db.opts.seams.passHook
		mo.mu.Unlock()
		if hook != nil {
			hook(*res)
		}
	}
}

// scheduledPass is what the loop does each time its timer fires (docs/ttl-monitor.md
// §3.2, §3.5): nothing, and no pass counted, while ttlMonitorEnabled is
// false or the engine is not a primary (it returns nil then);
// otherwise a TTL pass.
func (mo *monitor) scheduledPass(ctx context.Context) (*TTLPassResult, error) {
	if !mo.db.params.bool("ttlMonitorEnabled") || mo.db.opts.Role != RolePrimary {
		return nil, nil
	}
	return mo.db.RunTTLPass(ctx)
}

// noteKey records that key was written to a TTL index, so that the
// index's next visit starts no later than it.
func (mo *monitor) noteKey(k ttlKey, key []byte) {
	mo.mu.Lock()
	defer mo.mu.Unlock()
	lw := mo.low[k]
	if lw == nil || lw.mark == nil {
		return
	}
	if lw.dirty == nil || bytes.Compare(key, lw.dirty) < 0 {
		lw.dirty = append([]byte(nil), key...)
	}
}

// TTLIndexResult is what one TTL pass deleted through one index (or
// one time-series collection's expiry).
type TTLIndexResult struct {
	Namespace string
	Index     string
	Deleted   int64
}

// TTLPassResult reports a TTL pass.
type TTLPassResult struct {
	Deleted   int64
	SubPasses int
	Indexes   []TTLIndexResult
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
// (ttlVisit, below); a time-series collection's expiry is bucketReaper
// (timeseries_ttl.go).
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

// ttlWatcher is how writers and catalog changes tell the TTL monitor what
// moves the start of its next visits, without calling into it: a key
// written below an index's low-water mark (noteKey), an index whose
// expiry changed (resetLowWater), a collection gone (forgetColl).
// *monitor implements it; DB.ttl holds it.
type ttlWatcher interface {
	noteKey(k ttlKey, key []byte)
	resetLowWater(coll, index uint64)
	forgetColl(coll uint64)
}

// RunTTLPass runs one TTL pass now, as the monitor does on its timer:
// sub-passes until one ends with no index having work left. It
// returns what it deleted. Expiry is judged by Options.Clock.
func (db *DB) RunTTLPass(ctx context.Context) (*TTLPassResult, error) {
	if err := db.checkWritable(); err != nil {
		return nil, err
	}
	mo := db.mon
	mo.passMu.Lock()
	defer mo.passMu.Unlock()
	res := &TTLPassResult{}
	per := map[ttlKey]*TTLIndexResult{}
	var order []ttlKey
	// add counts n deletes through target t.
	add := func(t ttlTarget, n int64) {
		if n == 0 {
			return
		}
		k := ttlKey{t.c.m().ID, t.index}
		r := per[k]
		if r == nil {
			r = &TTLIndexResult{Namespace: t.c.m().NS(), Index: t.name}
			per[k] = r
			order = append(order, k)
		}
		r.Deleted += n
		res.Deleted += n
	}
	// results fills in res.Indexes, in the order the indexes first
	// deleted something.
	results := func() {
		for _, k := range order {
			res.Indexes = append(res.Indexes, *per[k])
		}
	}
	// stopped ends a pass that failed or was cancelled: it reports what
	// it deleted, which still counts toward reclamation.
	stopped := func(err error) (*TTLPassResult, error) {
		results()
		mo.mu.Lock()
		mo.sinceReclaim += res.Deleted
		mo.mu.Unlock()
		return res, err
	}
	for {
		subStart := db.targetNow()
		subTarget := time.Duration(db.params.int("ttlMonitorSubPassTargetSecs")) * time.Second
		queue := db.ttlTargets()
		// unvisited counts the indexes of the fresh list not yet visited:
		// the time target ends a sub-pass only once each was visited, so
		// a visit as long as the target cannot keep the indexes after it
		// waiting.
		unvisited := len(queue)
		workLeft := false
		for len(queue) > 0 {
			t := queue[0]
			queue = queue[1:]
			unvisited--
			n, more, err := t.reaper.visit(ctx, db, t)
			add(t, n)
			if err != nil {
				return stopped(err)
			}
			if mo.db.opts.seams.visitHook != nil {
				mo.db.opts.seams.visitHook(t.name, n, more)
			}
			if more {
				if subTarget == 0 {
					workLeft = true
					continue
				}
				queue = append(queue, t)
			}
			if subTarget > 0 && unvisited <= 0 && len(queue) > 0 && db.targetSince(subStart) >= subTarget {
				workLeft = true
				break
			}
		}
		db.stats.ttlSubPasses.Add(1)
		res.SubPasses++
		if !workLeft {
			break
		}
		if err := ctxErr(ctx); err != nil {
			return stopped(err)
		}
	}
	db.stats.ttlPasses.Add(1)
	results()
	// Reclaim after enough deletes in total, not per pass: a steady
	// trickle adds up, and a high rate does not rewrite the store on
	// every pass (reclaimMinGap apart at most once).
	//
	// That reclamation does not flush the memtables, so it never pauses
	// writers; the deletes still in them are reclaimed by the next one,
	// or, if the store goes quiet first (a pass that deletes nothing and
	// no commit since the last pass ended), by a full Reclaim then, when
	// its flush pauses nobody.
	commits := db.store.Commits()
	mo.mu.Lock()
	mo.sinceReclaim += res.Deleted
	mo.sinceReclaimBytes += mo.deletedBytes.Swap(0)
	due := mo.sinceReclaim >= mo.reclaimAfter &&
		(mo.lastReclaim.IsZero() || time.Since(mo.lastReclaim) >= reclaimMinGap) &&
		(mo.reclaimShare == 0 || mo.sinceReclaimBytes*mo.reclaimShare >= db.store.TableBytes())
	quiet := !due && mo.flushOwed && res.Deleted == 0 && commits == mo.lastCommits
	if due {
		mo.sinceReclaim, mo.sinceReclaimBytes = 0, 0
		mo.lastReclaim = time.Now()
		mo.flushOwed = true
	}
	if quiet {
		mo.flushOwed = false
	}
	mo.lastCommits = commits
	mo.mu.Unlock()
	if (due || quiet) && !db.reclaimAsync(quiet) && quiet {
		mo.mu.Lock()
		mo.flushOwed = true // one was running: the next quiet pass
		mo.mu.Unlock()
	}
	return res, nil
}

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

// reclaimAsync starts lsm reclamation in the background, one at a time,
// and reports whether it started one. With flush it is a full Reclaim,
// whose memtable flush pauses writers; without, ReclaimBackground.
func (db *DB) reclaimAsync(flush bool) bool {
	mo := db.mon
	if !mo.reclaiming.TryLock() {
		return false
	}
	mo.reclaimActive.Store(true)
	go func() {
		defer mo.reclaiming.Unlock()
		defer mo.reclaimActive.Store(false)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-mo.stopCh:
				cancel()
			case <-ctx.Done():
			}
		}()
		db.failpoint(FailpointReclaim)
		if mo.db.opts.seams.reclaimHook != nil {
			mo.db.opts.seams.reclaimHook()
		}
		reclaim := db.store.ReclaimBackground
		if flush {
			reclaim = db.store.Reclaim
		}
		if err := reclaim(ctx); err != nil {
			if ctx.Err() == nil {
				db.logf("ttl: space reclamation: %v", err)
			}
			return
		}
		mo.reclaims.Add(1)
	}()
	return true
}

// expiredUnder reports whether d has, at ix's key path, a date at or
// before cutoff (the earliest date of an array counts), and matches
// ix's partial filter.
func expiredUnder(ix *catalog.Index, d bson.D, cutoff bson.DateTime) bool {
	if ix.PartialFilter != nil && !ix.PartialFilter.Match(d) {
		return false
	}
	vals, _ := indexkey.PathValues(d, ix.Key[0].Key)
	for _, v := range vals {
		if t, ok := v.(bson.DateTime); ok && t <= cutoff {
			return true
		}
	}
	return false
}

// cutoffFor returns now - expireAfterSeconds.
func cutoffFor(now bson.DateTime, expire int64) bson.DateTime {
	return now - bson.DateTime(expire*1000)
}

// ttlVisit deletes expired documents through one TTL index until a
// target is met or none is left. more reports that a target stopped it.
func (db *DB) ttlVisit(ctx context.Context, t ttlTarget) (deleted int64, more bool, err error) {
	m := t.c.m()
	ix := indexByID(m, t.index)
	if ix == nil || !ix.TTL || t.c.dropped.Load() {
		return 0, false, nil
	}
	v := db.beginVisit(m.NS(), ix.Name)
	defer v.end()
	batching, vc, now := v.batching, v.clock, v.now
	cutoff := cutoffFor(now, ix.Expire)
	desc := indexkey.Fields(ix.Key)[0].Desc
	prefix := lsm.IndexPrefix(m.ID, ix.ID)
	lo, hi := ttlDateRange(m, ix, cutoff, desc)
	key := ttlKey{m.ID, ix.ID}
	mo := db.mon
	// Writers note keys below the mark inside their transaction, before
	// it commits, while holding c.wmu. Taking c.wmu here means every
	// noted key has committed before this visit clears the note and
	// takes its snapshots; otherwise a key noted just before the clear
	// but committed after the snapshot would be skipped for good.
	t.c.wmu.Lock()
	if t.c.dropped.Load() || indexByID(t.c.m(), t.index) == nil {
		// Dropped since the visit began: no state to keep for it (the
		// drop, under c.wmu, has forgotten what there was).
		t.c.wmu.Unlock()
		return 0, false, nil
	}
	mo.mu.Lock()
	lw := mo.low[key]
	if lw == nil {
		lw = &lowWater{}
		mo.low[key] = lw
	}
	resume := lw.mark
	if lw.dirty != nil && (resume == nil || bytes.Compare(lw.dirty, resume) < 0) {
		resume = lw.dirty
	}
	lw.dirty = nil
	if lw.mark == nil {
		lw.mark = lo // from now on writers below the mark are noted
	}
	mo.mu.Unlock()
	t.c.wmu.Unlock()
	if !desc && resume != nil && bytes.Compare(resume, lo) > 0 {
		lo = resume
	}

	recheck := func(cm *catalog.Coll, d bson.D) bool {
		cix := indexByID(cm, t.index)
		return cix != nil && cix.TTL && expiredUnder(cix, d, cutoffFor(now, cix.Expire))
	}
	bd := &batchDeleter{db: db, c: t.c, recheck: recheck, stats: batching, yield: true, pipeline: true,
		recheckPure: true, indexedOnly: true, reclaimBytes: &mo.deletedBytes}
	if ix := indexByID(m, t.index); ix != nil {
		bd.expiry = &changestream.Expiry{Index: ix.Name}
	}
	if m.Clustered {
		bd.ids = map[uint64][]byte{}
	}
	// The scan keeps each record's TTL entry key, from which a batch may
	// delete the document without reading it (ttl_entry.go).
	bd.ttl = &ttlFast{index: t.index, now: now, keys: map[uint64][]byte{}}
	if batching {
		bd.targets = db.deleteTargets()
	}
	if mo.db.opts.seams.deleterHook != nil {
		mo.db.opts.seams.deleterHook(bd)
	}
	// Record ids are read from the index in chunks of ttlScanChunk; the
	// pipelined deletes of a chunk drain (the last commit is waited for
	// with nothing staged beside it) before the next chunk is read.
	chunk := v.chunk(seamOr(db.opts.seams.ttlScanChunk, ttlScanChunk))
	finished := false
	first := true
	for !finished {
		if err := ctxErr(ctx); err != nil {
			return deleted, false, err
		}
		want := v.want(chunk, deleted)
		var rids []uint64
		var next []byte
		err := db.store.View(func(txn *lsm.Txn) error {
			if first {
				// The oldest expired key sets the visit's catch-up level.
				first = false
				bd.level = db.noteLag(lw, oldestLag(txn, lo, hi, len(prefix), desc, cutoff), now, m.NS(), ix.Name)
				bd.yield = bd.level < maxCatchUp
			}
			if bd.ids != nil {
				clear(bd.ids)
			}
			clear(bd.ttl.keys)
			var err error
			rids, next, finished, err = scanRids(txn, lo, hi, want, bd.ids, bd.ttl.keys, t.index == idIndexID)
			return err
		})
		if err != nil {
			return deleted, false, err
		}
		if mo.db.opts.seams.scanHook != nil {
			mo.db.opts.seams.scanHook()
		}
		n, err := bd.run(ctx, rids, vc.stop(deleted))
		deleted += n
		db.stats.ttlDeleted.Add(n)
		if err != nil {
			return deleted, false, err
		}
		if vc.stopped {
			// Ended inside the chunk: the next visit scans it again
			// (its deleted keys are gone from the index), as records
			// are deleted in record-id order, not in index order.
			mo.noteVisitEnd(lw, false)
			return deleted, true, nil
		}
		if next != nil {
			lo = next
		}
		if !desc {
			mo.mu.Lock()
			lw.mark = lo
			mo.mu.Unlock()
		}
		if finished {
			break
		}
		if v.targetMet(deleted) {
			mo.noteVisitEnd(lw, false)
			return deleted, true, nil
		}
	}
	mo.noteVisitEnd(lw, true)
	return deleted, false, nil
}

// ttlScanChunk is how many record ids a TTL visit reads from its index
// at a time (32 KiB of ids), small against the visit's targets. The
// pipeline drains at the end of each chunk (every ~4 batches of the
// default 1000 documents); 16384 measured no faster in the 1M reap
// (benchmarks/RESULTS.md, 2026-11-26), so the chunk stays small.
const ttlScanChunk = 4096

// visitClock ends a visit at its time target (ttlIndexDeleteTargetTimeMS)
// between two delete batches, so that a visit overshoots the target by
// at most one batch rather than by the rest of a scanned chunk (4096
// documents, seconds of gentle reaping beside writers). A visit always
// deletes something before it stops, so every visit makes progress.
type visitClock struct {
	db      *DB
	start   time.Time
	target  time.Duration // 0: no time target
	stopped bool          // the target ended the visit inside a chunk
}

// stop returns bd.run's stop function for a chunk begun after the visit
// had deleted before documents.
func (v *visitClock) stop(before int64) func(deleted int64) bool {
	if v.target <= 0 {
		return nil
	}
	return func(deleted int64) bool {
		if before+deleted > 0 && v.db.targetSince(v.start) >= v.target {
			v.stopped = true
		}
		return v.stopped
	}
}

// visit is what every TTL visit starts with (beginVisit): its place in
// currentOp, its targets and its clock.
type visit struct {
	end        func() // leaves currentOp
	batching   bool   // ttlMonitorBatchDeletes
	targetDocs int64  // ttlIndexDeleteTargetDocs when batching, else 0 (none)
	targetMS   int64  // ttlIndexDeleteTargetTimeMS when batching, else 0 (none)
	clock      *visitClock
	now        bson.DateTime // expiry is judged against this time
}

// beginVisit registers a TTL visit of index (of namespace ns) in
// currentOp and reads its targets and the time. The caller defers
// v.end().
func (db *DB) beginVisit(ns, index string) *visit {
	v := &visit{end: db.ops.begin(bson.D{{Key: "desc", Value: "TTLMonitor"}, {Key: "op", Value: "remove"},
		{Key: "ns", Value: ns}, {Key: "index", Value: index}})}
	if h := db.opts.seams.visitStartHook; h != nil {
		h()
	}
	v.batching = db.params.bool("ttlMonitorBatchDeletes")
	if v.batching {
		v.targetDocs = db.params.int("ttlIndexDeleteTargetDocs")
		v.targetMS = db.params.int("ttlIndexDeleteTargetTimeMS")
	}
	v.clock = &visitClock{db: db, start: db.targetNow(), target: time.Duration(v.targetMS) * time.Millisecond}
	v.now = db.now()
	return v
}

// chunk returns how many keys the visit reads at a time: max, or
// fewer when the document target is smaller.
func (v *visit) chunk(max int64) int64 {
	if v.targetDocs > 0 && v.targetDocs < max {
		return v.targetDocs
	}
	return max
}

// want returns how many keys to read next, in chunks of chunk, when the
// visit has deleted documents: no more than its document target leaves.
func (v *visit) want(chunk, deleted int64) int64 {
	if v.targetDocs > 0 && v.targetDocs-deleted < chunk {
		return v.targetDocs - deleted
	}
	return chunk
}

// targetMet reports whether a visit that has deleted documents must
// stop at a chunk boundary: its document or time target is met.
func (v *visit) targetMet(deleted int64) bool {
	return (v.targetDocs > 0 && deleted >= v.targetDocs) ||
		(v.targetMS > 0 && v.clock.db.targetSince(v.clock.start) >= time.Duration(v.targetMS)*time.Millisecond)
}

// scanRids reads the record ids of up to want index keys in [lo, hi),
// in key order. next is where the scan resumes (nil when finished: no
// key is left before hi). ids, when not nil (a clustered collection),
// is given each record's _id keystring: the entry's value, or with
// idIndex (the clustered collection's own _id index, clustered TTL)
// the entry's keystring. keys, when not nil, is given each record's
// entry key (ttlFast.keys).
func scanRids(txn *lsm.Txn, lo, hi []byte, want int64, ids, keys map[uint64][]byte, idIndex bool) (rids []uint64, next []byte, finished bool, err error) {
	it := txn.NewIter(lsm.IterOptions{Lower: lo, Upper: hi, KeysOnly: ids == nil || idIndex})
	defer it.Close()
	var arena []byte // the entry keys, in one allocation per few hundred
	for it.Next() {
		ks, rid, ok := lsm.SplitIndexKey(it.Key())
		if !ok {
			continue
		}
		if keys != nil {
			k := it.Key()
			if cap(arena)-len(arena) < len(k) {
				arena = make([]byte, 0, max(16<<10, len(k)))
			}
			at := len(arena)
			arena = append(arena, k...)
			keys[rid] = arena[at:len(arena):len(arena)]
		}
		if ids != nil && idIndex {
			ids[rid] = bytes.Clone(ks)
		} else if ids != nil {
			id, err := it.Value()
			if err != nil {
				return nil, nil, false, err
			}
			ids[rid] = id
		}
		rids = append(rids, rid)
		if int64(len(rids)) >= want {
			return rids, append(append([]byte{}, it.Key()...), 0), false, nil
		}
	}
	return rids, nil, true, nil
}

func indexByID(m *catalog.Coll, id uint64) *catalog.Index {
	for _, ix := range m.Indexes {
		if ix.ID == id {
			return ix
		}
	}
	return nil
}

// resetLowWater forgets where an index's visits resume, after a change
// (collMod) that may make documents below the mark expire later, and
// its catch-up state.
func (mo *monitor) resetLowWater(coll, index uint64) {
	mo.mu.Lock()
	delete(mo.low, ttlKey{coll, index})
	mo.mu.Unlock()
}

// forgetColl drops the per-index state of collection coll's indexes
// (the collection was dropped). Safe on a nil monitor (the catalog is
// loaded, and pending drops finished, before the monitor exists).
func (mo *monitor) forgetColl(coll uint64) {
	if mo == nil {
		return
	}
	mo.mu.Lock()
	for k := range mo.low {
		if k.coll == coll {
			delete(mo.low, k)
		}
	}
	mo.mu.Unlock()
}
