package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// insertChunkDocs is the most documents one insert transaction takes
// (capped inserts and conversions chunk by it too). Ordinary inserts
// also stop a chunk at the store's transaction limits: see chunkBudget.
const insertChunkDocs = 2000

// insertEntryCost is what one entry (the record or one index entry)
// costs a transaction beyond the document's bytes: Badger counts key,
// 2 meta bytes and 10 version bytes per entry; 64 leaves room for
// ordinary index keys.
const insertEntryCost = 64

// maxInsertConflicts is how many times an insert runs one chunk again
// whose commit conflicted with a concurrent transaction before it
// returns the conflict.
const maxInsertConflicts = 10

// chunkBudget is what one insert transaction may hold: half of the
// store's limits (Badger allows 15% of a memtable, 2.4 MiB with 16 MiB
// memtables), the other half being headroom for index keys longer than
// insertEntryCost and for multikey documents. A chunk that still
// overflows is retried with fewer documents (insertDocs).
type chunkBudget struct {
	bytes   int64 // sum of per-document cost estimates
	entries int64 // records plus index entries, estimated
}

func (db *DB) chunkBudget() chunkBudget {
	b := chunkBudget{bytes: db.store.MaxBatchSize() / 2, entries: db.store.MaxBatchCount() / 2}
	if h := db.opts.seams.chunkBudgetHook; h != nil {
		b = h(b)
	}
	return b
}

// docCost estimates what a document of raw bytes with nIdx index
// entries adds to a transaction. It counts the value inline even when
// Badger will store a value-log pointer for it (values of at least
// lsm's ValueThreshold), so large documents get small chunks; a chunk
// always takes its first document, so a 16 MiB document still fits
// (Badger counts it as a 12-byte pointer).
func docCost(raw []byte, nIdx int) (bytes, entries int64) {
	n := int64(1 + nIdx)
	return int64(len(raw)) + n*insertEntryCost, n
}

// errChunkFull aborts an insert transaction that reached the store's
// limit after its first document; insertDocs retries the chunk without
// the document at index at.
type errChunkFull struct{ at int }

func (e errChunkFull) Error() string { return "engine: insert chunk exceeds the transaction limit" }

// insertDocs inserts docs into db.name, creating the collection if
// needed. Ordered inserts stop at the first failure; unordered ones go
// on. It returns the _ids inserted (nil entries for failures) and the
// per-document errors; a non-nil error means a storage fault.
func (db *DB) insertDocs(ctx context.Context, dbName, name string, docs []any, ordered bool) (ids []any, werrs []WriteError, err error) {
	if err := db.checkWritable(); err != nil {
		return nil, nil, err
	}
	c, _, err := db.ensureColl(dbName, name)
	if err != nil {
		return nil, nil, err
	}
	return db.insertValidated(ctx, c, kindOf(c.m()), docs, ordered)
}

// insertOrdinary inserts docs into c, an ordinary (possibly clustered)
// collection, in chunks that each fit one transaction.
func (db *DB) insertOrdinary(ctx context.Context, c *coll, docs []any, ordered bool) (ids []any, werrs []WriteError, err error) {
	ids = make([]any, len(docs))
	prepared := make([]bson.D, len(docs))
	raws := make([][]byte, len(docs))
	enc := &encArena{}
	stopAt, err := prepareAll(len(docs), ordered, &werrs, func(i int) error {
		d, raw, e := db.prepareStored(c, docs[i], enc)
		if e == nil {
			prepared[i], raws[i] = d, raw
		}
		return e
	})
	if err != nil {
		return nil, nil, err
	}
	budget := db.chunkBudget()
	nIdx := len(c.m().Indexes)
	i := 0
	// limit is where the current chunk must end: stopAt, or a document
	// whose entries did not fit beside the earlier ones of its chunk.
	limit := stopAt
	conflicts := 0
	for i < stopAt {
		if err := ctxErr(ctx); err != nil {
			return ids, werrs, err
		}
		// The write lock is held per chunk, so the TTL monitor and other
		// writers interleave with a large insert.
		c.wmu.Lock()
		if c.dropped.Load() {
			c.wmu.Unlock()
			return ids, werrs, errDropped
		}
		start := i
		if err := db.completeRaw(c.m(), docs, prepared, raws, start, min(limit, start+insertChunkDocs)); err != nil {
			c.wmu.Unlock()
			return ids, werrs, err
		}
		var newMeta *catalog.Coll
		var chunkErrs []WriteError
		stop := false
		pre, err := db.prefetchUnique(c, c.m(), prepared[start:min(limit, start+insertChunkDocs)])
		if err != nil {
			c.wmu.Unlock()
			return ids, werrs, err
		}
		var ceil uint64 // a clustered collection's new record-id reservation
		// The commit is sent under c.wmu and the lock is released once
		// Badger has ordered it, not once it is written
		// (docs/batched-deletes.md §4.5): the TTL reaper and the next
		// writer take the lock while this write goes on.
		pend, txErr := db.store.UpdateSent(func(txn *lsm.Txn) error {
			i, chunkErrs, stop, newMeta, ceil = start, nil, false, nil, 0
			// raws are encoded once here and never modified: the
			// transaction keeps them.
			w := &writeCtx{c: c, m: c.m(), txn: txn, pre: pre, rawOwned: true}
			if pre != nil {
				// Every key the chunk sets in a unique index goes in:
				// sized for them, the map does not rehash as it grows.
				w.uniq = make(map[string]uint64, len(pre.covered))
			}
			var bytesIn, entriesIn int64
			for ; i < limit && i-start < insertChunkDocs; i++ {
				if prepared[i] == nil {
					continue
				}
				b, n := docCost(raws[i], nIdx)
				if i > start && (bytesIn+b > budget.bytes || entriesIn+n > budget.entries) {
					break
				}
				rid := c.nextRID.Add(1)
				var e error
				if ceil, e = c.reserveRID(txn, w.m, rid, ceil); e != nil {
					return e
				}
				// The chunk's prefetch was made from prepared[start:].
				if e := w.insertAt(rid, prepared[i], raws[i], i-start); e != nil {
					if errors.Is(e, lsm.ErrTxnTooBig) && i > start {
						// Part of this document may be staged: abort the
						// transaction and commit the chunk without it.
						return errChunkFull{at: i}
					}
					var fault error
					if stop, fault = writeFailed(&chunkErrs, i, e, ordered); fault != nil {
						return fault
					}
					if stop {
						i++
						break
					}
					continue
				}
				bytesIn += b
				entriesIn += n
			}
			if h := db.opts.seams.insertStaged; h != nil {
				h(txn)
			}
			var e error
			newMeta, e = w.commitMultikey()
			if errors.Is(e, lsm.ErrTxnTooBig) && i-start > 1 {
				return errChunkFull{at: start + (i-start)/2}
			}
			return e
		})
		if txErr == nil && (newMeta != nil || ceil > c.ridCeil) {
			// A multikey flag or a new record-id reservation changes what
			// c.wmu guards, and only if the commit is applied: wait for
			// it under the lock (rare: an index's first multikey
			// document, one chunk in 65,536 record ids).
			txErr, pend = pend.Wait(), nil
			if txErr == nil && newMeta != nil {
				c.meta.Store(newMeta)
			}
			if txErr == nil && ceil > c.ridCeil {
				c.ridCeil = ceil
			}
		}
		c.wmu.Unlock()
		if pend != nil {
			if h := db.opts.seams.insertSent; h != nil {
				h()
			}
			txErr = pend.Wait()
		}
		if errors.Is(txErr, lsm.ErrConflict) && conflicts < maxInsertConflicts {
			// A commit that conflicted wrote nothing: run the chunk
			// again (lsm.Store.Update retried it in the same way).
			conflicts++
			i = start
			continue
		}
		var full errChunkFull
		if errors.As(txErr, &full) {
			// Nothing of the chunk was written; redo it shorter. limit
			// only shrinks and stays above start, so this ends.
			i, limit = start, full.at
			continue
		}
		if errors.Is(txErr, lsm.ErrTxnTooBig) {
			return ids, werrs, fmt.Errorf("engine: document %d of the insert has more index entries than one transaction holds (%d bytes, %d entries): %w",
				i, db.store.MaxBatchSize(), db.store.MaxBatchCount(), txErr)
		}
		if txErr != nil {
			return ids, werrs, txErr
		}
		limit, conflicts = stopAt, 0
		ackIDs(ids, prepared, start, i, chunkErrs)
		werrs = append(werrs, chunkErrs...)
		if stop {
			break
		}
	}
	return ids, finishWriteErrors(werrs, ordered), nil
}

// ensureColl returns the collection, creating an ordinary one if it
// does not exist.
func (db *DB) ensureColl(dbName, name string) (*coll, bool, error) {
	if c := db.lookup(dbName, name); c != nil {
		return c, false, nil
	}
	return db.createColl(dbName, name, nil)
}

var _ = document.Errorf
