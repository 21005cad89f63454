package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/ttlkv/ttlkv/engine/agg"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/ttlmon"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// maxTxnDocs bounds the documents one write transaction touches,
// whatever the batch targets say, to stay under Badger's txn limits.
const maxTxnDocs = 5000

// candidates returns the record ids the plan selects, up to limit
// (0: all), reading in short transactions, and in a clustered
// collection their _id keystrings (nil otherwise).
func candidates(ctx context.Context, p *plan, limit int64) ([]uint64, map[uint64][]byte, error) {
	if p.near != nil && limit > 0 {
		return nearCandidates(ctx, p, limit)
	}
	sc := newScanner(p)
	var rids []uint64
	var ids map[uint64][]byte
	if p.m.Clustered {
		ids = map[uint64][]byte{}
	}
	for !sc.done {
		recs, err := sc.next(ctx, 1024)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range recs {
			rids = append(rids, r.rid)
			if ids != nil {
				ids[r.rid] = r.id
			}
			if limit > 0 && int64(len(rids)) >= limit {
				return rids, ids, nil
			}
		}
	}
	return rids, ids, nil
}

// deleteTargets are the batched delete stage's commit targets; 0 means
// no target of that kind (docs/batched-deletes.md §4.1).
type deleteTargets struct {
	docs, timeMS, bytes int64
}

func (db *DB) deleteTargets() deleteTargets {
	return deleteTargets{
		docs:   db.params.int("batchedDeletesTargetBatchDocs"),
		timeMS: db.params.int("batchedDeletesTargetBatchTimeMS"),
		bytes:  db.params.int("batchedDeletesTargetStagedDocBytes"),
	}
}

// batchDeleter is the BATCHED_DELETE stage: it deletes records in
// batches, each document with all its index entries in one
// transaction, re-reading and re-checking every document inside the
// batch so that a concurrent update never loses a live document.
type batchDeleter struct {
	db      *DB
	c       *coll
	targets deleteTargets
	stats   bool // count in serverStatus().batchedDeletes
	// recheck decides, on the current document under the current
	// catalog entry, whether it is still to be deleted.
	recheck func(m *catalog.Coll, d bson.D) bool
	// recheckPure says that recheck depends only on its arguments (the
	// TTL monitor's: the cut-off is fixed at visit start), so the commit
	// guard, having found the catalog entry unchanged, need not run it
	// again on every staged document while holding c.wmu.
	recheckPure bool
	// indexedOnly says that recheck reads only fields that some index
	// of the collection keys on (the TTL monitor's reads the TTL index's
	// path): with recheckPure and no onDelete, a batch then decodes only
	// the top-level fields the collection's index keys start with
	// (decodeFields), not whole documents.
	indexedOnly bool
	// fieldsOf and fields cache decodeFields for one catalog entry.
	fieldsOf *catalog.Coll
	fields   []string
	// arena is the last batch's copy buffer of pre-image bytes
	// (batchState.arena), reused by the next batch once staged: the
	// events copy what they need when they are encoded.
	arena []byte
	// expiry, if set, marks the deletes as expirations in their change
	// events (the TTL monitor, the time-series reaper).
	expiry *changestream.Expiry
	// onDelete, if set, sees each deleted document (after commit). It
	// runs after c.wmu is released: it must not touch state the lock
	// protects (the time-series reaper collects ids and forgets its open
	// buckets under the lock afterwards, tsForget).
	onDelete func(d bson.D)
	// beforeCommit, if set (tests), is called after a batch is staged
	// and before it takes c.wmu to commit.
	beforeCommit func()
	// yield makes run pause after a batch whose commit found a writer of
	// the collection holding c.wmu, for as long as the batch took: the
	// TTL monitor then uses at most about half of the time while
	// foreground writers are active, and all of it when they are not.
	yield bool
	// pipeline makes run overlap the staging of a batch with the write
	// of the one before (lsm.Pipeline; see runPipelined). The TTL
	// monitor sets it.
	pipeline bool
	// contended is set by batch when its commit had to wait for c.wmu.
	contended bool
	// level is the TTL index's catch-up level (engine/internal/ttlmon/catchup.go): a gentle
	// sub-batch holds gentle<<level documents, and a pause after a
	// contended batch lasts its working time>>level.
	level int
	// lastContended is when (on the targets' clock, targetNow) a commit
	// of this run last had to wait for c.wmu. For gentleFor after it, a yielding pipelined run is gentle:
	// it commits sub-batches of gentle documents (resizeGentle), lets other
	// goroutines run between documents, and pauses after each contended
	// sub-batch (see runPipelined).
	lastContended time.Time
	// acc gathers gentle sub-batches into the logical batches the
	// batchedDeletes counters count, so that the counters do not depend
	// on whether writers were active.
	acc batchAcc
	// reclaimBytes, if set, is added the encoded size of the documents
	// of every applied batch (the TTL monitor's share-of-store rule for
	// space reclamation).
	reclaimBytes *atomic.Int64
	// ids holds, in a clustered collection, the _id keystring of every
	// record id the deleter is given (recKey).
	ids map[uint64][]byte
	// lookCap, when above 0, is the most documents a batch reads: the
	// position at which an earlier batch of this run overflowed Badger's
	// transaction limits (errBatchFull).
	lookCap int
	// read counts the records the batches read (a batch may read some
	// it does not delete: re-checked and kept, or past a target).
	read atomic.Int64
	// firstRead is how many records the next batch reads before its
	// first target check: what the last batch consumed (at least
	// readChunk), so that batches that run to their end read with one
	// iterator and batches a target ends early read little.
	firstRead int
	// ttl, if set (a TTL visit), lets batches delete documents from
	// their TTL entries without reading them (fastIndex, ttl_entry.go).
	ttl *ttlFast
	// fast counts the documents deleted from their TTL entries, once
	// their batch is applied.
	fast atomic.Int64
	// gentle is the size of a gentle sub-batch at level 0, from
	// gentleDocs up to gentleMaxDocs (0: gentleDocs); resizeGentle
	// moves it after each contended sub-batch.
	gentle int
	// duty, if set (a one-off backlog at the top level), paces a
	// pipelined run that does not yield beside writers: slices of work
	// and pauses (ttlmon.Duty, docs/batched-deletes.md §4.6).
	duty *ttlmon.Duty
	// dutyMark is when (targetNow) the working time duty is told of
	// began; dutyWrites is the foreground writes counted then.
	dutyMark   time.Time
	dutyWrites int64
}

// run deletes rids; it stops early when stop returns true between
// batches. It returns how many documents it deleted. The rids are
// deleted in ascending order (records are keyed by rid, so a batch reads
// them with one iterator), each once; rids itself is left as it is.
func (bd *batchDeleter) run(ctx context.Context, rids []uint64, stop func(deleted int64) bool) (int64, error) {
	if bd.ids != nil {
		// The TTL monitor's scan gives a TTL entry's whole value.
		for rid, v := range bd.ids {
			bd.ids[rid] = entryID(v)
		}
		// A clustered collection's documents are in _id order.
		rids = slices.Compact(sortRidsByID(rids, bd.ids))
	} else if !slices.IsSorted(rids) {
		rids = slices.Clone(rids)
		slices.Sort(rids)
		rids = slices.Compact(rids)
	} else if hasAdjacentDup(rids) {
		rids = slices.Compact(slices.Clone(rids))
	}
	if bd.pipeline {
		return bd.runPipelined(ctx, rids, stop)
	}
	var total int64
	for len(rids) > 0 {
		if err := ctxErr(ctx); err != nil {
			return total, err
		}
		if stop != nil && stop(total) {
			break
		}
		start := time.Now()
		n, used, err := bd.batch(rids)
		total += n
		if err != nil {
			return total, err
		}
		rids = rids[used:]
		if bd.yield && bd.contended && len(rids) > 0 {
			bd.pause(time.Since(start))
		}
	}
	return total, nil
}

// hasAdjacentDup reports whether sorted rids holds a record id twice:
// a multikey TTL index's scan finds a document once per expired date,
// and the document is deleted (and counted) once.
func hasAdjacentDup(rids []uint64) bool {
	for i := 1; i < len(rids); i++ {
		if rids[i] == rids[i-1] {
			return true
		}
	}
	return false
}

// yieldFor is how long a pipelined TTL run pauses after a contended
// batch that took took: as long, halved at each catch-up level.
func (bd *batchDeleter) yieldFor(took time.Duration) time.Duration { return took >> bd.level }

// pause sleeps for d (the yield of a TTL batch to writers).
func (bd *batchDeleter) pause(d time.Duration) {
	if p := bd.db.opts.seams.pause; p != nil {
		p(d)
		return
	}
	time.Sleep(d)
}

// errBatchStale aborts a batch whose catalog entry, or whose documents'
// recheck, changed between staging and commit; the batch is staged again.
var errBatchStale = errors.New("engine: delete batch is stale")

// errBatchFull aborts a batch whose deletes overflowed Badger's
// transaction limits at the document at position at of its rids (the
// documents before it fit); nothing of it was committed, and the batch
// is staged again with fewer documents (batchDeleter.lookCap).
type errBatchFull struct{ at int }

func (e errBatchFull) Error() string {
	return fmt.Sprintf("engine: delete batch full at document %d", e.at)
}

// errBatchDropped aborts a batch whose collection was dropped.
var errBatchDropped = errors.New("engine: collection dropped under a delete batch")

// Gentle reaping (runPipelined): while writers of the collection are
// active, a TTL run commits sub-batches of gentleDocs to gentleMaxDocs
// documents (resizeGentle), so a writer never waits long behind a
// delete commit in c.wmu or in Badger's write pipeline, and yields the
// CPU between documents. A
// reaper falling behind expiry is less gentle (bd.level, engine/internal/ttlmon/catchup.go).
const (
	gentleDocs    = 8
	gentleMaxDocs = 256
	gentleFor     = 100 * time.Millisecond
)

// resizeGentle sizes the next gentle sub-batches after contended
// sub-batch b, which worked for work (its time less its wait for
// c.wmu): toward as many documents as would have taken as long to
// work as b waited for the lock, halfway from the current size, within
// gentleDocs and gentleMaxDocs (at level 0; newBatch scales by the
// level). A writer that holds c.wmu nearly all the time makes every
// commit wait about a millisecond for it (Go's mutex hands a lock to a
// waiter only after 1 ms); with sub-batches of gentleDocs the reaper
// then spent nearly all its time waiting and deleted a few thousand
// documents a second. Sized so, the wait is paid once for about as
// much work, and the reaper's share of the time while writers are
// active stays about a third (work, wait, pause as long as the work).
func (bd *batchDeleter) resizeGentle(b *batchState, work time.Duration) {
	if !b.gentle || b.look == 0 || work <= 0 || b.lockWait <= 0 {
		return
	}
	want := int(min(int64(b.look)*int64(b.lockWait)/int64(work), gentleMaxDocs<<maxCatchUp)) >> bd.level
	cur := max(bd.gentle, gentleDocs)
	bd.gentle = min(max((cur+want)/2, gentleDocs), gentleMaxDocs)
}

// batchAcc is a logical batch made of gentle sub-batches.
type batchAcc struct {
	start  time.Time // its first sub-batch's start (targetNow)
	docs   int64
	staged int64
}

// batchState is one batch: what its transaction staged, filled in by
// stage and read by the commit guard and finish.
type batchState struct {
	start   time.Time // when the batch began (targetNow)
	look    int       // records read ahead
	gentle  bool      // a sub-batch of a gentle run
	keys    [][]byte
	m       *catalog.Coll // the catalog entry the deletes were computed with
	deleted int64
	fast    int64 // of deleted, those deleted from their TTL entries
	used    int   // rids consumed
	staged  int64
	docs    []bson.D // the deleted documents, when onDelete or the commit guard needs them
	read    []readDoc
	// deferred are the documents deleted from their TTL entries whose
	// keys are not staged yet (flushFast).
	deferred []readDoc
	arena    []byte // copies of the records read, for change-event pre-images
	locked   bool   // the caller holds c.wmu from staging to commit
	// lockWait is how long the commit waited for a writer to release
	// c.wmu (on the targets' clock): time the batch spent blocked, not
	// working, which its yield does not repeat.
	lockWait time.Duration
	// traceStart and traceSent are wall-clock times for
	// SetTTLBatchTraceForTesting (zero unless it is set).
	traceStart, traceSent time.Time
}

// readDoc is a record a batch read: its position in the batch's rids,
// its document (whole, or its indexed fields, see decodeFields) and its
// encoded size.
type readDoc struct {
	i    int
	d    bson.D
	size int
	raw  []byte // the record's bytes, when its change event's pre-image needs them
	// fast, if set, is a document deleted from its TTL entry (d is nil).
	fast *fastDel
}

// decodeFields returns the top-level field names a batch over catalog
// entry m must decode, or nil when it must decode whole documents: the
// first path components of every index key, when recheck reads only
// indexed fields (indexedOnly), the commit guard does not re-run it
// (recheckPure) and no onDelete wants the documents, and no index has
// a partial filter (which may read any field), a wildcard key or a text
// key (whose _fts/_ftsx stand for the weighted fields and the language
// override, none of them named in the key). A document's index keys,
// and so the entries its delete removes, depend only on those fields.
func (bd *batchDeleter) decodeFields(m *catalog.Coll) []string {
	if !bd.indexedOnly || !bd.recheckPure || bd.onDelete != nil || isBucketsColl(m) {
		return nil
	}
	changes := bd.db != nil && bd.db.changesOn()
	if bd.fieldsOf == m {
		return bd.fields
	}
	var names []string
	for _, ix := range m.Indexes {
		if ix.PartialFilter != nil || ix.Partial != nil || isTextKey(ix.Key) {
			names = nil
			break
		}
		for _, f := range ix.Key {
			top, _, _ := strings.Cut(f.Key, ".")
			if top == "" || strings.HasPrefix(top, "$") {
				names = nil
				break
			}
			if !slices.Contains(names, top) {
				names = append(names, top)
			}
		}
		if names == nil {
			break
		}
	}
	if names != nil && changes && !slices.Contains(names, "_id") {
		names = append(names, "_id") // the change event's documentKey
	}
	bd.fieldsOf, bd.fields = m, names
	return names
}

// newBatch prepares a batch over the front of rids; a gentle one reads
// (and so deletes) at most the gentle sub-batch's documents.
func (bd *batchDeleter) newBatch(rids []uint64, gentle bool) *batchState {
	// Read ahead as many records as the batch can delete at most.
	look := min(len(rids), maxTxnDocs)
	if t := bd.targets.docs; t > 0 && int64(look) > t {
		look = int(t)
	}
	if g := max(bd.gentle, gentleDocs) << bd.level; gentle && look > g {
		look = g
	}
	if bd.lookCap > 0 && look > bd.lookCap {
		look = bd.lookCap
	}
	b := &batchState{start: bd.db.targetNow(), look: look, gentle: gentle, keys: make([][]byte, 0, min(look, readChunk))}
	if tr := bd.db.opts.seams.visitTrace; tr != nil && tr.batch != nil && bd.ttl != nil {
		b.traceStart = time.Now()
	}
	return b
}

// stage returns the transaction function of batch b: it reads the
// batch's records in sorted chunks, re-checks each and stages
// the delete of the document with all its index entries, until a batch
// target is met.
func (bd *batchDeleter) stage(rids []uint64, b *batchState) func(*lsm.Txn) error {
	c := bd.c
	return func(txn *lsm.Txn) error {
		b.deleted, b.used, b.staged, b.docs, b.read, b.fast, b.deferred = 0, 0, 0, b.docs[:0], b.read[:0], 0, b.deferred[:0]
		m := c.m()
		b.m = m
		// Decode each record as the iterator reaches it, from Badger's
		// memory (the documents share nothing with it): no copy of the
		// encoded records.
		fields := bd.decodeFields(m)
		// A change event's pre-image is the record's bytes, copied as
		// they are (changes.go): cheaper than encoding the document
		// again, and the only way when only some fields are decoded.
		keepRaw := bd.db != nil && bd.db.changesOn() && preImagesOn(m) && !isBucketsColl(m)
		b.arena = bd.arena[:0]
		defer func() { bd.arena = b.arena[:0] }()
		keepDocs := bd.onDelete != nil || !bd.recheckPure
		fast := bd.fastIndex(m)
		w := &writeCtx{c: c, m: m, txn: txn, expiry: bd.expiry}
		b.used = b.look
		// Read in chunks that double, checking the targets after each: a
		// batch whose time target ends it after a few documents must not
		// have read (and decoded) all of its read-ahead first. Reading
		// everything before the first check made every batch of a slow
		// machine read thousands of records to delete a handful, again
		// and again: quadratic, and the reaper fell behind under load.
		// The first chunk is what the last batch consumed, so that
		// batches no target cuts short still read with one iterator.
		for lo, chunk := 0, max(readChunk, bd.firstRead); lo < b.look; lo, chunk = lo+chunk, chunk*2 {
			hi := min(b.look, lo+chunk)
			done, err := bd.stageChunk(txn, w, rids, b, lo, hi, fields, keepRaw, keepDocs, fast)
			if err != nil {
				return err
			}
			if done {
				break
			}
		}
		if err := bd.flushFast(w, b); err != nil {
			return err
		}
		bd.firstRead = b.used
		b.read = b.read[:0]
		bd.db.failpoint(FailpointReapBeforeCommit)
		return nil
	}
}

// readChunk is the fewest records a batch reads before it first checks
// its targets (batchDeleter.firstRead); each later read doubles.
const readChunk = 64

// stageChunk reads records lo..hi of batch b, re-checks each and stages
// its delete. It reports whether a batch target was met (b.used then
// says how many of rids the batch consumed).
//
// With fast set (fastIndex), documents whose TTL entry through fast says
// how to delete them are deleted from it, neither read nor decoded.
func (bd *batchDeleter) stageChunk(txn *lsm.Txn, w *writeCtx, rids []uint64, b *batchState, lo, hi int, fields []string, keepRaw, keepDocs bool, fast *catalog.Index) (bool, error) {
	m := b.m
	decode := func(i int, raw []byte) error {
		var d bson.D
		var err error
		if fields != nil {
			d, err = document.UnmarshalFields(raw, fields)
		} else {
			d, err = document.Unmarshal(raw)
		}
		if err != nil {
			return err
		}
		r := readDoc{i: i, d: d, size: len(raw)}
		if keepRaw {
			at := len(b.arena)
			b.arena = append(b.arena, raw...)
			r.raw = b.arena[at:len(b.arena):len(b.arena)]
		}
		b.read = append(b.read, r)
		return nil
	}
	b.read = b.read[:0]
	if fast != nil {
		// Delete from the TTL entries what they say how to; read the
		// other documents (docs/ttl-indexes.md §3).
		slow, err := bd.readFast(txn, m, fast, rids, b, lo, hi, nil)
		if err != nil {
			return false, err
		}
		if len(slow) > 0 {
			keys := make([][]byte, len(slow))
			for x, i := range slow {
				keys[x] = recKey(m, rids[i], bd.ids[rids[i]])
			}
			if err := txn.GetSortedFunc(keys, func(x int, raw []byte) error { return decode(slow[x], raw) }); err != nil {
				return false, err
			}
		}
		// In the order of rids, which b.used counts in: the entries
		// were read in key order (a descending index's is the reverse).
		slices.SortFunc(b.read, func(a, b readDoc) int { return a.i - b.i })
	} else {
		b.keys = b.keys[:lo]
		for i := lo; i < hi; i++ {
			b.keys = append(b.keys, recKey(m, rids[i], bd.ids[rids[i]]))
		}
		if err := txn.GetSortedFunc(b.keys[lo:hi], func(j int, raw []byte) error { return decode(lo+j, raw) }); err != nil {
			return false, err
		}
	}
	bd.read.Add(int64(len(b.read)))
	t := bd.targets
	for _, r := range b.read {
		if r.fast != nil {
			// Staged at the end of the batch (flushFast), so that the
			// next chunk's read finds no writes of the batch to merge.
			b.deferred = append(b.deferred, r)
			b.fast++
		} else if !bd.recheck(m, r.d) {
			continue
		} else {
			// Stage in rid order: the deferred documents first.
			if err := bd.flushFast(w, b); err != nil {
				return false, err
			}
			w.beforeRaw = r.raw
			if err := w.remove(rids[r.i], r.d); err != nil {
				return false, bd.stageErr(m, err, r.i, b.deleted > 0)
			}
		}
		b.deleted++
		b.staged += int64(r.size)
		if keepDocs {
			b.docs = append(b.docs, r.d)
		}
		if b.gentle && bd.level == 0 {
			// At level 0 (caught up) a writer waiting for a CPU gets
			// it between documents; above it the backlog comes first
			// (engine/internal/ttlmon/catchup.go): a yield a document cost half the reap rate.
			runtime.Gosched()
		}
		if (t.docs > 0 && b.deleted >= t.docs) || (t.bytes > 0 && b.staged >= t.bytes) ||
			(t.timeMS > 0 && bd.db.targetSince(b.start) >= time.Duration(t.timeMS)*time.Millisecond) || b.deleted >= maxTxnDocs {
			b.used = r.i + 1
			return true, nil
		}
	}
	return false, nil
}

// flushFast stages the deletes of the documents of batch b deleted from
// their TTL entries whose staging was deferred (b.deferred), in rid
// order. Deferring them lets every read of the batch run before its
// first write: a Badger iterator in a transaction that has writes
// copies and sorts all of them before its first key (it merges them
// into what it reads), and a batch read its TTL entries in chunks, each
// with a new iterator, after staging the deletes of the chunks before.
// The entries are still read in the batch's transaction: the guard is
// unchanged (readFast).
func (bd *batchDeleter) flushFast(w *writeCtx, b *batchState) error {
	before := int(b.deleted) - len(b.deferred) // documents already staged
	for x, r := range b.deferred {
		if err := w.removeFast(r.fast); err != nil {
			return bd.stageErr(b.m, err, r.i, before+x > 0)
		}
	}
	b.deferred = b.deferred[:0]
	return nil
}

// stageErr is the error of staging the delete of the document at
// position at of a batch over m, after others were staged (staged) or
// not: a transaction overflow with documents staged before redoes the
// batch without it (errBatchFull), one on the first document is an
// error of the delete.
func (bd *batchDeleter) stageErr(m *catalog.Coll, err error, at int, staged bool) error {
	if !errors.Is(err, lsm.ErrTxnTooBig) {
		return err
	}
	if staged {
		// Part of this document may be staged: abort, and redo the
		// batch without it.
		return errBatchFull{at: at}
	}
	return fmt.Errorf("engine: deleting a document of %s: its index entries do not fit one transaction (%d bytes, %d entries): %w",
		m.NS(), bd.db.store.MaxBatchSize(), bd.db.store.MaxBatchCount(), err)
}

// commitGuard returns the commit guard of batch b. A batch that staged
// nothing does not commit and takes no lock. before, if set, runs
// before the lock is taken (the pipeline settles the previous batch
// there); its error aborts the commit.
func (bd *batchDeleter) commitGuard(b *batchState, before func() error) func(commit func() error) error {
	c := bd.c
	return func(commit func() error) error {
		if b.deleted == 0 {
			return nil // nothing staged: no commit, no lock
		}
		if before != nil {
			if err := before(); err != nil {
				return err
			}
		}
		if bd.beforeCommit != nil {
			bd.beforeCommit()
		}
		if !b.locked {
			if w := bd.db.opts.seams.writerAt; (w != nil && w(bd)) || !c.wmu.TryLock() {
				bd.contended = true
				bd.lastContended = bd.db.targetNow()
				c.wmu.Lock()
				b.lockWait = bd.db.targetSince(bd.lastContended)
			}
			defer c.wmu.Unlock()
		}
		if c.dropped.Load() {
			return errBatchDropped
		}
		if c.m() != b.m {
			return errBatchStale
		}
		if !bd.recheckPure {
			for _, d := range b.docs {
				if !bd.recheck(b.m, d) {
					return errBatchStale
				}
			}
		}
		return commit()
	}
}

// finish accounts for batch b once its commit is applied. A gentle
// sub-batch is added to the logical batch in bd.acc, which is counted
// once it meets a batch target (or at the end of the run, flushAcc).
func (bd *batchDeleter) finish(b *batchState) {
	bd.db.failpoint(FailpointReapAfterCommit)
	if tr := bd.db.opts.seams.visitTrace; tr != nil && tr.batch != nil && !b.traceStart.IsZero() && b.deleted > 0 {
		tr.batch(TTLBatchTrace{Start: b.traceStart, Sent: b.traceSent, Applied: time.Now(), Deleted: b.deleted, Gentle: b.gentle, LockWait: b.lockWait})
	}
	bd.fast.Add(b.fast)
	if bd.reclaimBytes != nil {
		bd.reclaimBytes.Add(b.staged)
	}
	if bd.stats && b.deleted > 0 {
		if !b.gentle {
			bd.flushAcc()
			bd.count(b.deleted, b.staged, b.start)
		} else {
			a := &bd.acc
			if a.docs == 0 {
				a.start = b.start
			}
			a.docs += b.deleted
			a.staged += b.staged
			t := bd.targets
			if (t.docs > 0 && a.docs >= t.docs) || (t.bytes > 0 && a.staged >= t.bytes) ||
				(t.timeMS > 0 && bd.db.targetSince(a.start) >= time.Duration(t.timeMS)*time.Millisecond) || a.docs >= maxTxnDocs {
				bd.flushAcc()
			}
		}
	}
	if bd.onDelete != nil {
		for _, d := range b.docs {
			bd.onDelete(d)
		}
	}
}

// count adds one batch to the batchedDeletes counters.
func (bd *batchDeleter) count(docs, staged int64, start time.Time) {
	s := &bd.db.stats
	s.bdBatches.Add(1)
	s.bdDocs.Add(docs)
	s.bdStagedBytes.Add(staged)
	s.bdTimeMS.Add(bd.db.targetSince(start).Milliseconds())
}

// flushAcc counts the logical batch gathered in bd.acc, if any.
func (bd *batchDeleter) flushAcc() {
	if a := bd.acc; a.docs > 0 {
		bd.count(a.docs, a.staged, a.start)
		bd.acc = batchAcc{}
	}
}

// staleAttemptsUnlocked is how many times a batch is staged without
// c.wmu before it is staged under it.
const staleAttemptsUnlocked = 3

// batch commits one batch from the front of rids and reports how many
// documents it deleted and how many rids it consumed.
//
// The batch reads, re-checks and stages its deletes without the
// collection's write lock; it takes c.wmu only to commit, so that
// writers of the collection wait for a commit, not for a whole batch
// (benchmarks/RESULTS.md, foreground impact). This stays correct
// because:
//   - every staged document was read in the batch's transaction, so a
//     writer that changed or deleted it after the read makes the commit
//     conflict, and lsm.Store re-runs the batch from its reads;
//   - under c.wmu, before committing, the batch checks that the catalog
//     entry it computed index keys with is still current and that every
//     staged document still passes recheck against the state of now (a
//     collMod or index build in between stages the batch again), so the
//     decision is taken at the commit point, as when the lock was held
//     throughout;
//   - writers that rely on c.wmu serialising the collection's writers
//     (the unique-key check of write.go) still see no commit of the
//     batch while they hold the lock. Deletes never add keys.
func (bd *batchDeleter) batch(rids []uint64) (deleted int64, used int, err error) {
	c := bd.c
	if c.dropped.Load() {
		return 0, len(rids), nil
	}
	b := bd.newBatch(rids, false)
	bd.contended = false
	for attempt := 0; ; attempt++ {
		// A batch staged without the lock goes stale when the catalog
		// entry changes before its commit (collMod, an index build). After
		// a few such attempts it stages under c.wmu, which those changes
		// take too, so a stream of them cannot starve the delete.
		b.locked = attempt >= staleAttemptsUnlocked
		if b.locked {
			c.wmu.Lock()
		}
		err = bd.db.store.UpdateGuarded(bd.stage(rids, b), bd.commitGuard(b, nil))
		if b.locked {
			c.wmu.Unlock()
		}
		if err == errBatchStale && attempt < 100 {
			continue
		}
		var full errBatchFull
		if errors.As(err, &full) && full.at > 0 {
			// The documents before full.at fit: this batch and the rest
			// of the run read no more than that. look only shrinks, so
			// this ends.
			bd.lookCap = full.at
			b = bd.newBatch(rids, false)
			attempt--
			continue
		}
		break
	}
	switch {
	case err == errBatchDropped:
		return 0, len(rids), nil
	case err == errBatchStale:
		return 0, 0, fmt.Errorf("engine: delete batch on %s: the catalog kept changing under it", c.m().NS())
	case err != nil:
		return 0, 0, err
	}
	bd.finish(b)
	return b.deleted, b.used, nil
}

// inflight is a pipelined batch whose commit was sent.
type inflight struct {
	b       *batchState
	rids    []uint64 // the rids the batch consumed
	pend    *lsm.Pending
	settled bool
}

// errPrevFailed aborts a pipelined commit because the batch before it
// failed; runPipelined returns that batch's error.
var errPrevFailed = errors.New("engine: the previous delete batch failed")

// runPipelined is run with lsm.Pipeline: a batch's commit is sent under
// c.wmu and the lock is released as soon as Badger has ordered it
// (conflict check and commit timestamp), not when it is written; the
// next batch is read and staged while the previous one is written, and
// waits for that write to be applied before it takes c.wmu to commit.
// What the synchronous path guarantees still holds:
//   - each document goes with all its index entries in one transaction
//     (a crash leaves every batch whole or absent);
//   - a transaction begun after a commit was sent (a writer's, with its
//     unique-key check, or a reader's) waits in Badger until that commit
//     is applied, so the deletes are never invisible to a later reader
//     even though the lock was released before they were written;
//   - the next batch's transaction is begun just before the previous
//     commit is sent, so it does not see that batch's deletes; it works
//     on other records (rids are consumed in order), and a record it
//     read that anyone changed since makes its commit conflict;
//   - a commit that conflicts (reported when it is applied) is run again
//     by the synchronous path from the same rids, and the counters and
//     onDelete see a batch only once its commit is applied.
func (bd *batchDeleter) runPipelined(ctx context.Context, rids []uint64, stop func(deleted int64) bool) (total int64, err error) {
	p := bd.db.store.NewPipeline()
	defer func() {
		// Wait for the last write before returning, whatever happened.
		// Its outcome was read (and a conflict re-run) by settle.
		_ = p.Close()
		bd.flushAcc()
	}()
	if bd.duty != nil && bd.dutyMark.IsZero() {
		bd.dutyMark, bd.dutyWrites = bd.db.targetNow(), bd.db.foregroundWrites()
	}
	var prev *inflight
	// settle waits for the previous batch's commit and accounts for it,
	// re-running it synchronously when it conflicted.
	settle := func() error {
		if prev == nil || prev.settled {
			return nil
		}
		prev.settled = true
		perr := prev.pend.Wait()
		if perr == nil {
			bd.finish(prev.b)
			total += prev.b.deleted
			return nil
		}
		if !errors.Is(perr, lsm.ErrConflict) {
			return perr
		}
		for r := prev.rids; len(r) > 0; {
			n, used, err := bd.batch(r)
			total += n
			if err != nil {
				return err
			}
			r = r[used:]
		}
		return nil
	}
	var settleErr error
	before := func() error {
		if settleErr = settle(); settleErr != nil {
			return errPrevFailed
		}
		return nil
	}
	for len(rids) > 0 {
		if err := ctxErr(ctx); err != nil {
			if serr := settle(); serr != nil {
				return total, serr
			}
			return total, err
		}
		if stop != nil && stop(total) {
			break
		}
		if bd.c.dropped.Load() {
			break
		}
		gentle := bd.yield && !bd.lastContended.IsZero() && bd.db.targetSince(bd.lastContended) < gentleFor
		b := bd.newBatch(rids, gentle)
		bd.contended = false
		pend, uerr := p.Update(bd.stage(rids, b), bd.commitGuard(b, before))
		if !b.traceStart.IsZero() && pend != nil {
			b.traceSent = time.Now()
		}
		if settleErr != nil {
			return total, settleErr
		}
		if err := settle(); err != nil {
			return total, err
		}
		switch {
		case uerr != nil:
			// Stale or dropped under the lock, or a failure: the
			// synchronous path re-stages (or stops) as it always did.
			_ = p.Flush() // settled above
			n, used, err := bd.batch(rids)
			total += n
			if err != nil {
				return total, err
			}
			rids = rids[used:]
		case pend == nil:
			// Nothing to delete in this batch: nothing was sent.
			bd.finish(b)
			rids = rids[b.used:]
		default:
			prev = &inflight{b: b, rids: rids[:b.used], pend: pend}
			rids = rids[b.used:]
		}
		if d := bd.dutyPause(b); d > 0 {
			// Also after a chunk's last batch: the slice was worked
			// beside writers whatever follows it.
			if err := settle(); err != nil {
				return total, err
			}
			_ = p.Flush() // settled above: nothing of the reaper queued in Badger while pausing
			w := bd.db.foregroundWrites()
			bd.pause(d)
			bd.dutyMark, bd.dutyWrites = bd.db.targetNow(), bd.db.foregroundWrites()
			bd.duty.Paused(d, bd.dutyWrites-w)
		}
		if bd.yield && bd.contended && len(rids) > 0 {
			if err := settle(); err != nil {
				return total, err
			}
			_ = p.Flush() // settled above; no old snapshot while pausing
			// Yield as long as the batch worked: its time less the wait
			// for the writer's lock, during which the writer already had
			// the collection (and the CPU) to itself.
			work := max(bd.db.targetSince(b.start)-b.lockWait, 0)
			bd.resizeGentle(b, work)
			bd.pause(bd.yieldFor(work))
		}
	}
	return total, settle()
}

// dutyPause tells bd.duty (if set) of the work since the last mark,
// which ended with batch b, and of the foreground writes meanwhile (the
// DB's operation counters of writes; b's commit finding a writer of
// the collection holding c.wmu counts as a writer seen). It returns
// the pause the run takes now (0: none).
func (bd *batchDeleter) dutyPause(b *batchState) time.Duration {
	if bd.duty == nil {
		return 0
	}
	w := bd.db.foregroundWrites()
	now := bd.db.targetNow()
	work := now.Sub(bd.dutyMark) - b.lockWait
	n := w - bd.dutyWrites
	bd.dutyMark, bd.dutyWrites = now, w
	return bd.duty.Worked(work, n, bd.contended)
}

// foregroundWrites is the sum of the DB's operation counters of
// writes (inserts, updates, deletes; the TTL monitor counts in none).
func (db *DB) foregroundWrites() int64 {
	s := &db.stats
	return s.inserted.Load() + s.updated.Load() + s.deleted.Load()
}

// DeleteSpec is one delete statement: documents matching Filter, at
// most one when Limit is 1, all when 0.
type DeleteSpec struct {
	Filter bson.D
	Limit  int64
	Hint   any
	// Collation compares strings in Filter (nil: the collection's
	// default collation).
	Collation bson.D
	// Let names values Filter's $expr reads as $$name (the delete
	// command's let).
	Let bson.D
}

// deleteDocs runs one delete statement and returns the count deleted.
func (db *DB) deleteDocs(ctx context.Context, dbName, name string, s DeleteSpec) (int64, error) {
	if err := db.checkWritable(); err != nil {
		return 0, err
	}
	if s.Limit != 0 && s.Limit != 1 {
		return 0, document.Errorf(document.CodeFailedToParse, "The limit field in delete objects must be 0 or 1. Got %d", s.Limit)
	}
	f, _, err := db.parseFilterLet(s.Filter, s.Let)
	if err != nil {
		return 0, err
	}
	f = f.WithContext(ctx) // a $where stops when the command's context ends
	if _, err := opCollator(nil, s.Collation); err != nil {
		return 0, err
	}
	c := db.lookup(dbName, name)
	if c == nil {
		return 0, nil
	}
	if f, _, err = collateQuery(c.m(), s.Collation, f, nil); err != nil {
		return 0, err
	}
	return kindOf(c.m()).delete(ctx, db, c, f, s)
}

// deleteOrdinary runs delete statement s, whose filter is f, on c, an
// ordinary (possibly clustered) collection.
func (db *DB) deleteOrdinary(ctx context.Context, c *coll, f *query.Filter, s DeleteSpec) (int64, error) {
	p, err := makePlan(c, c.m(), f, nil, s.Hint)
	if err != nil {
		return 0, err
	}
	db.notePlanOf(c.m(), p, false)
	recheck := func(m *catalog.Coll, d bson.D) bool { return f.Match(d) }
	if s.Limit == 1 {
		// DELETE stage: the first match only, re-checked in its batch.
		for {
			rids, ids, err := candidates(ctx, p, 1)
			if err != nil || len(rids) == 0 {
				return 0, err
			}
			bd := &batchDeleter{db: db, c: c, recheck: recheck, ids: ids}
			n, _, err := bd.batch(rids)
			if err != nil || n == 1 {
				return n, err
			}
			// The match changed under us; look again.
		}
	}
	rids, ids, err := candidates(ctx, p, 0)
	if err != nil {
		return 0, err
	}
	bd := &batchDeleter{db: db, c: c, targets: db.deleteTargets(), stats: true, recheck: recheck, ids: ids}
	return bd.run(ctx, rids, nil)
}

// UpdateSpec is one update statement.
type UpdateSpec struct {
	Filter       bson.D
	Update       bson.D
	Pipeline     bson.A // an aggregation-pipeline update, used when Update is nil
	Multi        bool
	Upsert       bool
	Hint         any
	ArrayFilters bson.A
	// Collation compares strings in Filter (and findAndModify's sort);
	// nil: the collection's default collation.
	Collation bson.D
	// Let names values that Filter's $expr and Pipeline read as $$name
	// (the command's let).
	Let bson.D
	// Constants names values that Pipeline reads as $$name (the
	// statement's c); only a pipeline update takes them.
	Constants bson.D
	// Sort picks the document a single (not Multi) update changes, the
	// first in its order (MongoDB 8.0's updateOne sort).
	Sort bson.D
	// vars are values for user variables of Pipeline ($merge's $$new
	// and let).
	vars bson.D
}

// UpdateResult reports what an update statement did.
type UpdateResult struct {
	MatchedCount  int64
	ModifiedCount int64
	UpsertedCount int64
	UpsertedID    any
}

// updateDocs runs one update statement.
func (db *DB) updateDocs(ctx context.Context, dbName, name string, s UpdateSpec) (*UpdateResult, error) {
	var sort *query.Sort
	if s.Sort != nil {
		if s.Multi {
			return nil, document.Errorf(document.CodeFailedToParse, "Cannot specify sort with multi=true")
		}
		var err error
		if sort, err = parseSort(s.Sort); err != nil {
			return nil, err
		}
	}
	res, _, err := db.updateReturning(ctx, dbName, name, s, sort, false)
	return res, err
}

// updateReturning runs an update; for findAndModify it sorts, updates
// the first match only, and returns the document before (or after,
// when returnNew) the change.
func (db *DB) updateReturning(ctx context.Context, dbName, name string, s UpdateSpec, sort *query.Sort, returnNew bool) (*UpdateResult, bson.D, error) {
	if err := db.checkWritable(); err != nil {
		return nil, nil, err
	}
	if s.Upsert {
		if err := query.CheckUpsertFilter(s.Filter); err != nil {
			return nil, nil, err
		}
	}
	f, l, err := db.parseFilterLet(s.Filter, s.Let)
	if err != nil {
		return nil, nil, err
	}
	f = f.WithContext(ctx) // a $where stops when the command's context ends
	if l != nil {
		s.vars = append(l.Values(), s.vars...)
	}
	if s.Constants != nil {
		if s.Pipeline == nil {
			return nil, nil, document.Errorf(document.CodeFailedToParse, "Constant values may only be specified for pipeline updates")
		}
		s.vars = append(slices.Clone(s.Constants), s.vars...)
	}
	u, err := parseUpdateSpec(s)
	if err != nil {
		return nil, nil, err
	}
	if _, err := opCollator(nil, s.Collation); err != nil {
		return nil, nil, err
	}
	if u.IsReplacement() && s.Multi {
		return nil, nil, document.Errorf(document.CodeFailedToParse, "multi update is not supported for replacement-style update")
	}
	c := db.lookup(dbName, name)
	if c == nil && s.Upsert {
		if c, _, err = db.ensureColl(dbName, name); err != nil {
			return nil, nil, err
		}
	}
	res := &UpdateResult{}
	if c == nil {
		return res, nil, nil
	}
	if err := kindOf(c.m()).canUpdate(); err != nil {
		return nil, nil, err
	}
	if f, sort, err = collateQuery(c.m(), s.Collation, f, sort); err != nil {
		return nil, nil, err
	}
	if u, err = db.checkedUpdate(ctx, c, u.Collate(f.Collator()).WithQuery(f)); err != nil {
		return nil, nil, err
	}
	if su, ok := kindOf(c.m()).(statementUpdater); ok {
		return su.updateStatement(ctx, db, c, s, f, u, sort, returnNew)
	}
	p, err := makePlan(c, c.m(), f, sort, s.Hint)
	if err != nil {
		return nil, nil, err
	}
	db.notePlanOf(c.m(), p, false)
	var limit int64
	if !s.Multi {
		limit = 1
	}
	var rids []uint64
	var ids map[uint64][]byte
	if sort != nil {
		// findAndModify: the first document in sort order.
		if sort.NeedsTextScore() && !p.needTextScore() {
			return nil, nil, errNoTextScore
		}
		q := newQueryExec(p, 0, 1, nil)
		q.sc.noMatch = false
		docs, err := q.nextBatch(ctx, 1)
		if err != nil {
			return nil, nil, err
		}
		if len(docs) == 1 {
			rid, err := db.ridOfID(c, docs[0])
			if err != nil {
				return nil, nil, err
			}
			rids, ids = []uint64{rid}, clusteredIDs(c.m(), rid, docs[0])
		}
	} else {
		if rids, ids, err = candidates(ctx, p, limit); err != nil {
			return nil, nil, err
		}
	}
	now := db.opts.Clock()
	var out bson.D
	chunkLen := 500
	for len(rids) > 0 {
		n := min(len(rids), chunkLen)
		chunk := rids[:n]
		matched, modified, last, err := db.applyUpdates(c, chunk, ids, f, u, now, returnNew)
		if errors.Is(err, lsm.ErrTxnTooBig) && n > 1 {
			// The chunk's writes did not fit one transaction and none
			// was committed: redo it in halves.
			chunkLen = n / 2
			continue
		}
		rids = rids[n:]
		res.MatchedCount += matched
		res.ModifiedCount += modified
		if last != nil {
			out = last
		}
		if err != nil {
			return res, out, err
		}
	}
	if res.MatchedCount == 0 && s.Upsert {
		nd, err := db.upsertOne(ctx, dbName, name, s, u, now, returnNew, res)
		return res, nd, err
	}
	return res, out, nil
}

// upsertOne inserts the document of an upsert that matched nothing:
// the filter's equalities with u applied. It records the insert in res
// and returns the new document when returnNew.
func (db *DB) upsertOne(ctx context.Context, dbName, name string, s UpdateSpec, u *query.Update, now time.Time, returnNew bool, res *UpdateResult) (bson.D, error) {
	nd, err := u.Upsert(s.Filter, query.UpdateOptions{Now: now, IsUpsertInsert: true})
	if err != nil {
		return nil, err
	}
	ids, werrs, err := db.insertDocs(ctx, dbName, name, []any{nd}, true)
	if err != nil {
		return nil, err
	}
	if len(werrs) > 0 {
		return nil, werrs[0].Err
	}
	res.UpsertedCount, res.UpsertedID = 1, ids[0]
	if !returnNew {
		return nil, nil
	}
	out, _ := prepareInsert(nd)
	if out != nil {
		out = set(out, "_id", ids[0])
	}
	return out, nil
}

// ridOfID finds the record id of a document by its _id.
func (db *DB) ridOfID(c *coll, d bson.D) (uint64, error) {
	return kindOf(c.m()).ridOfID(db, c, d)
}

// cappedRidOfID finds the record id of a capped collection's document by
// its _id, in the in-memory _id index.
func (db *DB) cappedRidOfID(c *coll, d bson.D) (uint64, error) {
	m := c.m()
	st, err := cappedOf(c)
	if err != nil {
		return 0, err
	}
	ks, err := cappedIDKey(m, d)
	if err != nil {
		return 0, err
	}
	rid, _, _, err := st.ids.get(ks)
	if err != nil {
		return 0, cappedErr(c, err)
	}
	return rid, nil
}

// indexRidOfID finds the record id of a document by its _id in the _id
// index in Badger.
func (db *DB) indexRidOfID(c *coll, d bson.D) (uint64, error) {
	id, _ := get(d, "_id")
	var rid uint64
	m := c.m()
	err := db.store.View(func(txn *lsm.Txn) error {
		pre := appendIDKey(m, lsm.IndexPrefix(m.ID, idIndexID), id)
		it := txn.NewIter(lsm.IterOptions{Prefix: pre, KeysOnly: true})
		defer it.Close()
		if it.Next() {
			_, rid, _ = lsm.SplitIndexKey(it.Key())
		}
		return nil
	})
	return rid, err
}

// applyUpdates updates the given records, re-reading and re-matching
// each inside the transaction.
func (db *DB) applyUpdates(c *coll, rids []uint64, ids map[uint64][]byte, f *query.Filter, u *query.Update, now time.Time, returnNew bool) (matched, modified int64, last bson.D, err error) {
	return kindOf(c.m()).update(db, c, rids, ids, f, u, now, returnNew)
}

// applyOrdinaryUpdates is applyUpdates on an ordinary (possibly
// clustered) collection.
func (db *DB) applyOrdinaryUpdates(c *coll, rids []uint64, ids map[uint64][]byte, f *query.Filter, u *query.Update, now time.Time, returnNew bool) (matched, modified int64, last bson.D, err error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.dropped.Load() {
		return 0, 0, nil, errDropped
	}
	var newMeta *catalog.Coll
	var stopErr error
	err = db.store.Update(func(txn *lsm.Txn) error {
		matched, modified, last, newMeta, stopErr = 0, 0, nil, nil, nil
		m := c.m()
		w := &writeCtx{c: c, m: m, txn: txn, replacement: u.IsReplacement()}
		for _, rid := range rids {
			d, raw, err := getStored(txn, m, rid, ids[rid])
			if err == lsm.ErrNotFound {
				continue
			} else if err != nil {
				return err
			}
			if ok, err := f.MatchErr(d); err != nil {
				return err
			} else if !ok {
				continue
			}
			matched++
			var touched []query.Touched
			uo := query.UpdateOptions{Now: now}
			if db.changesOn() && !u.IsReplacement() && !u.IsPipeline() {
				uo.Touched = &touched // what the change event describes
			}
			nd, err := u.Apply(d, uo)
			if err != nil {
				if _, user := asUserError(err); user {
					// Keep the documents updated before this one, as
					// MongoDB does, and report the failure.
					stopErr, matched = err, matched-1
					break
				}
				return err
			}
			if returnNew {
				last = nd
			} else {
				last = d
			}
			// A no-op only when the bytes are the same: $set of 1.0 over
			// 1 changes the type, and MongoDB stores it.
			nraw, merr := document.Marshal(nd)
			if merr == nil && bytes.Equal(raw, nraw) {
				continue
			}
			if err := document.ValidateUpdateResult(nd); err != nil {
				stopErr, matched = err, matched-1
				break
			}
			if merr != nil {
				return merr
			}
			w.touched = touched
			err = w.replace(rid, d, nd, nraw)
			w.touched = nil
			if err != nil {
				if _, user := asUserError(err); user {
					stopErr, matched = err, matched-1
					break
				}
				return err
			}
			modified++
		}
		var e error
		newMeta, e = w.commitMultikey()
		return e
	})
	if err == nil && newMeta != nil {
		c.meta.Store(newMeta)
	}
	if err == nil {
		err = stopErr
	}
	return matched, modified, last, err
}

// parseFilterLet parses a write's filter with the variables of its
// command's let (nil: none), which it also returns for an update
// pipeline.
func (db *DB) parseFilterLet(filter, let bson.D) (*query.Filter, *agg.Let, error) {
	now := db.opts.Clock()
	l, err := agg.ParseLet(let, bson.NewDateTimeFromTime(now))
	if err != nil {
		return nil, nil, err
	}
	o := db.filterOptions(l.FilterVars())
	o.Now = now
	f, err := query.ParseFilterOpts(filter, o)
	return f, l, err
}
