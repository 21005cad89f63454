package engine

import (
	"context"
	"time"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
)

// seams are a database's test seams: where tests and the crash harness
// observe, pause or kill the engine. Options carries them by value, so
// each DB has its own and tests that use them run in parallel. The zero
// value is production: every hook nil, every threshold its default.
type seams struct {
	// failpoint is called with a failpoint's name (failpoint.go) each
	// time the engine passes it; the crash harness kills its process
	// there. SetFailpointForTesting.
	failpoint func(name string)
	// reclaimAfter, if positive, replaces the 10,000 deletes that start
	// reclamation (engine/internal/ttlmon/reclaim.go) and turns
	// off the share-of-store rule (reclaimStoreShare), so that the
	// crash harness's small stores reach FailpointReclaim after a few
	// deletes. SetReclaimAfterForTesting.
	reclaimAfter int64
	// ringFS is the file system capped ring files are opened through;
	// nil means the operating system's. SetRingFSForTesting.
	ringFS capped.FS

	// The TTL monitor's hooks (monitor.go, ttl_visit.go; a hook after
	// every background pass is the monitor's SetPassHook).
	//
	// visitHook is called after every visit of a TTL target; visitStartHook when a visit has
	// registered itself in currentOp; deleterHook sees each visit's
	// batchDeleter before it runs; scanHook is called after a visit has
	// read a chunk of expired keys and before it deletes their
	// documents; reclaimHook runs in a background reclamation before the
	// store's reclamation.
	visitHook      func(index string, deleted int64, more bool)
	visitStartHook func()
	deleterHook    func(*batchDeleter)
	scanHook       func()
	reclaimHook    func()

	// The time-series hooks (timeseries_ttl.go, timeseries_write.go):
	// tsReapedHook runs after a time-series reap batch committed;
	// tsBucketedHook runs in an insert chunk after its measurements are
	// bucketed, with the buckets collection's wmu held; tsReapForgetHook
	// runs when the reaper is about to take the wmu to forget the
	// buckets it removed; tsReapBeforeCommitHook runs after a reap batch
	// is staged, before it takes the wmu to commit.
	tsReapedHook, tsBucketedHook, tsReapForgetHook, tsReapBeforeCommitHook func()

	// awaitTimeout, if set, replaces context.WithTimeout for the wait
	// of an awaitData getMore (capped_read.go): d is the getMore's
	// maxTimeMS (or the default second), and the getMore returns its
	// empty batch when the returned context ends with
	// context.DeadlineExceeded. Tests end it when they choose, with no
	// real time passing.
	awaitTimeout func(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)

	// targetClock, if set, is the clock of the time targets of the TTL
	// monitor and the batched delete stage (DB.targetNow); nil is the
	// real monotonic clock. Tests make it stand still or step.
	targetClock func() time.Time

	// The batched delete stage's (modify.go) view of writers: pause, if
	// set, replaces time.Sleep for the pause after a contended TTL
	// batch; writerAt, if set, is asked at each commit of bd whether a
	// writer holds the collection's write lock, true meaning one does
	// (a contended batch), before the lock itself is tried.
	pause    func(time.Duration)
	writerAt func(bd *batchDeleter) bool
	// visitTrace, if set, sees every TTL index visit
	// (SetTTLTraceForTesting, monitor.go).
	visitTrace *visitTracer

	// insertSent, if set, is called by an insert after it has released
	// c.wmu with its commit ordered and before it waits for the write
	// (insert.go).
	insertSent func()
	// insertStaged, if set, is called in an insert chunk's transaction
	// once its documents are staged, before it commits (insert.go): a
	// test reads a key there and commits a write to it beside, so that
	// the chunk's commit conflicts.
	insertStaged func(txn *lsm.Txn)

	// chunkBudgetHook replaces the budget of each insert (insert.go),
	// so a test can make chunks overflow the store's limits cheaply.
	chunkBudgetHook func(chunkBudget) chunkBudget

	// Sizes tests shrink so that a test crosses a limit with a tenth of
	// the documents, the limit itself unchanged in kind.
	//
	// memTableSize, if positive, is the store's memtable size
	// (lsm.Options.MemTableSize, at least 1 MiB) instead of the one
	// MemoryBudget gives; Badger's transaction limits are 15% of it
	// (MaxBatchSize) and that over 96 (MaxBatchCount), so 1 MiB makes
	// them a sixteenth of the default's.
	memTableSize int64
	// skipCloseCompaction, if true, makes Close leave level 0 as it is
	// (lsm.Options.SkipCloseCompaction). SetSkipCloseCompactionForTesting.
	skipCloseCompaction bool
	// ttlScanChunk, if not 0, replaces ttlScanChunk (ttl_visit.go): how
	// many record ids a TTL visit reads from its index at a time.
	ttlScanChunk int64
	// bucketChunk, if not 0, replaces bucketScanChunk
	// (timeseries_ttl.go): how many buckets a time-series TTL visit
	// reads at a time.
	bucketChunk int64
}

// SetFailpointForTesting makes databases opened with o call f with a
// failpoint's name (the Failpoint constants) each time they pass it. It
// is a test seam for crash tests, which kill their process there (package
// fuzz): production code never calls it.
func SetFailpointForTesting(o *Options, f func(name string)) { o.seams.failpoint = f }

// SetReclaimAfterForTesting makes databases opened with o start space
// reclamation after n TTL deletes (counted across passes) whatever share
// of the store they are, instead of 10,000 that make up a share of it. It
// is a test seam for crash tests that must reach FailpointReclaim in a
// small store: production code never calls it.
func SetReclaimAfterForTesting(o *Options, n int64) { o.seams.reclaimAfter = n }

// SetRingFSForTesting makes databases opened with o open their capped
// ring files through fsys instead of the operating system (directories
// and Badger are unaffected). It is a test seam for fault injection
// (package fuzz): production code never calls it.
func SetRingFSForTesting(o *Options, fsys capped.FS) { o.seams.ringFS = fsys }

// SetSkipCloseCompactionForTesting makes databases opened with o skip
// the storage layer's compaction of level 0 at Close
// (lsm.Options.SkipCloseCompaction): Close still flushes everything, and
// what the database holds is the same, but it reopens with its level-0
// tables uncompacted. It is a test seam that saves short-lived test
// stores the compaction's work: production code never calls it.
func SetSkipCloseCompactionForTesting(o *Options) { o.seams.skipCloseCompaction = true }

// seamOr returns a size seam's value v, or def when the seam is unset
// (0).
func seamOr(v, def int64) int64 {
	if v != 0 {
		return v
	}
	return def
}

// RemoveIndexEntriesForTesting deletes the entries index of collection
// dbName.coll holds for the document whose _id is id, leaving the
// document, and returns how many it deleted: the index is then missing
// them, as validate reports (a capped collection's document is found in
// its ring; its in-memory _id index is not touched). It is a test seam that damages a store on
// purpose: production code never calls it.
func RemoveIndexEntriesForTesting(db *DB, dbName, coll, index string, id any) (int, error) {
	c := db.lookup(dbName, coll)
	if c == nil {
		return 0, document.Errorf(document.CodeNamespaceNotFound, "ns %s.%s not found", dbName, coll)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	m := c.m()
	ix := m.Index(index)
	if ix == nil {
		return 0, document.Errorf(document.CodeIndexNotFound, "index not found with name [%s]", index)
	}
	n := 0
	var keys [][]byte
	if m.Kind == catalog.KindCapped {
		// A capped collection's documents are in its ring; its _id
		// index, in memory, is not damaged.
		if ix.ID == idIndexID {
			return 0, nil
		}
		st, err := cappedOf(c)
		if err != nil {
			return 0, err
		}
		var kerr error
		err = st.ring.ReadRun(0, func(rec capped.Record) bool {
			d, ok, err := st.decodeRecord(rec)
			if err != nil || !ok {
				return true
			}
			if got, has := get(d, "_id"); has && document.Compare(got, id) == 0 {
				var ks [][]byte
				ks, _, kerr = indexkey.Of(ix, d)
				for _, k := range ks {
					keys = append(keys, lsm.IndexKey(m.ID, ix.ID, k, rec.Seq))
				}
			}
			return true
		})
		if err == nil {
			err = kerr
		}
		if err != nil {
			return 0, err
		}
	}
	err := db.store.Update(func(txn *lsm.Txn) error {
		err := txn.Scan(lsm.IterOptions{Prefix: recPrefix(m)}, func(k, v []byte) error {
			d, err := document.Unmarshal(v)
			if err != nil {
				return nil
			}
			if got, ok := get(d, "_id"); !ok || document.Compare(got, id) != 0 {
				return nil
			}
			rid, _ := splitRecKey(m, k)
			ks, _, err := indexkey.Of(ix, d)
			for _, k := range ks {
				keys = append(keys, lsm.IndexKey(m.ID, ix.ID, k, rid))
			}
			return err
		})
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := txn.Delete(k); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}
