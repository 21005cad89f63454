package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ttlkv/ttlkv/doc"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// maxTxnDocs bounds the documents one write transaction touches,
// whatever the batch targets say, to stay under Badger's txn limits.
const maxTxnDocs = 5000

// candidates returns the record ids the plan selects, up to limit
// (0: all), reading in short transactions.
func candidates(ctx context.Context, p *plan, limit int64) ([]uint64, *scanner, error) {
	sc := newScanner(p)
	var rids []uint64
	for !sc.done {
		recs, err := sc.next(ctx, 1024)
		if err != nil {
			return nil, sc, err
		}
		for _, r := range recs {
			rids = append(rids, r.rid)
			if limit > 0 && int64(len(rids)) >= limit {
				return rids, sc, nil
			}
		}
	}
	return rids, sc, nil
}

// deleteTargets are the batched delete stage's commit targets; 0 means
// no target of that kind (SPEC §4.1).
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
	recheck func(m *collMeta, d bson.D) bool
	// onDelete, if set, sees each deleted document (after commit).
	onDelete func(d bson.D)
	// beforeCommit, if set (tests), is called after a batch is staged
	// and before it takes c.wmu to commit.
	beforeCommit func()
	// yield makes run pause after a batch whose commit found a writer of
	// the collection holding c.wmu, for as long as the batch took: the
	// TTL monitor then uses at most about half of the time while
	// foreground writers are active, and all of it when they are not.
	yield bool
	// contended is set by batch when its commit had to wait for c.wmu.
	contended bool
	// sleep pauses between batches (tests replace it).
	sleep func(time.Duration)
	// tryLock, if set (tests), reports false to simulate a writer
	// holding c.wmu when a batch commits.
	tryLock func() bool
}

// run deletes rids; it stops early when stop returns true between
// batches. It returns how many documents it deleted. The rids are
// deleted in ascending order (records are keyed by rid, so a batch reads
// them with one iterator); rids itself is left as it is.
func (bd *batchDeleter) run(ctx context.Context, rids []uint64, stop func(deleted int64) bool) (int64, error) {
	if !slices.IsSorted(rids) {
		rids = slices.Clone(rids)
		slices.Sort(rids)
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
			sleep := bd.sleep
			if sleep == nil {
				sleep = time.Sleep
			}
			sleep(time.Since(start))
		}
	}
	return total, nil
}

// errBatchStale aborts a batch whose catalog entry, or whose documents'
// recheck, changed between staging and commit; the batch is staged again.
var errBatchStale = errors.New("engine: delete batch is stale")

// errBatchDropped aborts a batch whose collection was dropped.
var errBatchDropped = errors.New("engine: collection dropped under a delete batch")

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
	// Read ahead as many records as the batch can delete at most.
	look := min(len(rids), maxTxnDocs)
	if t := bd.targets.docs; t > 0 && int64(look) > t {
		look = int(t)
	}
	start := time.Now()
	var staged int64
	var stagedDocs []bson.D
	var m *collMeta
	keys := make([][]byte, look)
	bd.contended = false
	for attempt := 0; ; attempt++ {
		err = bd.db.store.UpdateGuarded(func(txn *lsm.Txn) error {
			deleted, used, staged, stagedDocs = 0, 0, 0, stagedDocs[:0]
			m = c.m()
			for i := range keys {
				keys[i] = lsm.RecordKey(m.ID, rids[i])
			}
			raws, err := txn.GetSorted(keys)
			if err != nil {
				return err
			}
			w := &writeCtx{c: c, m: m, txn: txn}
			for used < look {
				rid, raw := rids[used], raws[used]
				used++
				if raw == nil {
					continue
				}
				d, err := doc.Unmarshal(raw)
				if err != nil {
					return err
				}
				if !bd.recheck(m, d) {
					continue
				}
				if err := w.remove(rid, d); err != nil {
					return err
				}
				deleted++
				staged += int64(len(raw))
				stagedDocs = append(stagedDocs, d)
				t := bd.targets
				if (t.docs > 0 && deleted >= t.docs) || (t.bytes > 0 && staged >= t.bytes) ||
					(t.timeMS > 0 && time.Since(start) >= time.Duration(t.timeMS)*time.Millisecond) || deleted >= maxTxnDocs {
					break
				}
			}
			failpoint(FailpointReapBeforeCommit)
			return nil
		}, func(commit func() error) error {
			if deleted == 0 {
				return nil // nothing staged: no commit, no lock
			}
			if bd.beforeCommit != nil {
				bd.beforeCommit()
			}
			if (bd.tryLock != nil && !bd.tryLock()) || !c.wmu.TryLock() {
				bd.contended = true
				c.wmu.Lock()
			}
			defer c.wmu.Unlock()
			if c.dropped.Load() {
				return errBatchDropped
			}
			if c.m() != m {
				return errBatchStale
			}
			for _, d := range stagedDocs {
				if !bd.recheck(m, d) {
					return errBatchStale
				}
			}
			return commit()
		})
		if err == errBatchStale && attempt < 100 {
			continue
		}
		break
	}
	switch {
	case err == errBatchDropped:
		return 0, len(rids), nil
	case err == errBatchStale:
		return 0, 0, fmt.Errorf("engine: delete batch on %s: the catalog kept changing under it", c.m().ns())
	case err != nil:
		return 0, 0, err
	}
	failpoint(FailpointReapAfterCommit)
	if bd.stats && deleted > 0 {
		s := &bd.db.stats
		s.bdBatches.Add(1)
		s.bdDocs.Add(deleted)
		s.bdStagedBytes.Add(staged)
		s.bdTimeMS.Add(time.Since(start).Milliseconds())
	}
	if bd.onDelete != nil {
		for _, d := range stagedDocs {
			bd.onDelete(d)
		}
	}
	return deleted, used, nil
}

// DeleteSpec is one delete statement: documents matching Filter, at
// most one when Limit is 1, all when 0.
type DeleteSpec struct {
	Filter bson.D
	Limit  int64
	Hint   any
}

// deleteDocs runs one delete statement and returns the count deleted.
func (db *DB) deleteDocs(ctx context.Context, dbName, name string, s DeleteSpec) (int64, error) {
	if err := db.checkWritable(); err != nil {
		return 0, err
	}
	if s.Limit != 0 && s.Limit != 1 {
		return 0, doc.Errorf(doc.CodeFailedToParse, "The limit field in delete objects must be 0 or 1. Got %d", s.Limit)
	}
	f, err := query.ParseFilter(s.Filter)
	if err != nil {
		return 0, err
	}
	c := db.lookup(dbName, name)
	if c == nil {
		return 0, nil
	}
	switch c.m().Kind {
	case kindCapped:
		return 0, doc.Errorf(doc.CodeIllegalOperation, "cannot remove from a capped collection: %s", c.m().ns())
	case kindTimeseries:
		return db.deleteTimeseries(ctx, c, f, s)
	}
	p, err := makePlan(c, c.m(), f, nil, s.Hint)
	if err != nil {
		return 0, err
	}
	recheck := func(m *collMeta, d bson.D) bool { return f.Match(d) }
	if s.Limit == 1 {
		// DELETE stage: the first match only, re-checked in its batch.
		for {
			rids, _, err := candidates(ctx, p, 1)
			if err != nil || len(rids) == 0 {
				return 0, err
			}
			bd := &batchDeleter{db: db, c: c, recheck: recheck}
			n, _, err := bd.batch(rids)
			if err != nil || n == 1 {
				return n, err
			}
			// The match changed under us; look again.
		}
	}
	rids, _, err := candidates(ctx, p, 0)
	if err != nil {
		return 0, err
	}
	bd := &batchDeleter{db: db, c: c, targets: db.deleteTargets(), stats: true, recheck: recheck}
	return bd.run(ctx, rids, nil)
}

// UpdateSpec is one update statement.
type UpdateSpec struct {
	Filter       bson.D
	Update       bson.D
	Multi        bool
	Upsert       bool
	Hint         any
	ArrayFilters bson.A
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
	res, _, err := db.updateReturning(ctx, dbName, name, s, nil, false)
	return res, err
}

// updateReturning runs an update; for findAndModify it sorts, updates
// the first match only, and returns the document before (or after,
// when returnNew) the change.
func (db *DB) updateReturning(ctx context.Context, dbName, name string, s UpdateSpec, sort *query.Sort, returnNew bool) (*UpdateResult, bson.D, error) {
	if err := db.checkWritable(); err != nil {
		return nil, nil, err
	}
	f, err := query.ParseFilter(s.Filter)
	if err != nil {
		return nil, nil, err
	}
	u, err := query.ParseUpdate(s.Update)
	if err != nil {
		return nil, nil, err
	}
	if u.IsReplacement() && s.Multi {
		return nil, nil, doc.Errorf(doc.CodeFailedToParse, "multi update is not supported for replacement-style update")
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
	if c.m().Kind == kindTimeseries {
		return nil, nil, doc.Errorf(doc.CodeIllegalOperation, "updates on time-series collections are not supported by ttlkv")
	}
	p, err := makePlan(c, c.m(), f, sort, s.Hint)
	if err != nil {
		return nil, nil, err
	}
	var limit int64
	if !s.Multi {
		limit = 1
	}
	var rids []uint64
	if sort != nil {
		// findAndModify: the first document in sort order.
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
			rids = []uint64{rid}
		}
	} else {
		if rids, _, err = candidates(ctx, p, limit); err != nil {
			return nil, nil, err
		}
	}
	now := db.opts.Clock()
	var out bson.D
	for len(rids) > 0 {
		n := min(len(rids), 500)
		chunk := rids[:n]
		rids = rids[n:]
		matched, modified, last, err := db.applyUpdates(c, chunk, f, u, now, returnNew)
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
		nd, err := u.Upsert(s.Filter, query.UpdateOptions{Now: now, IsUpsertInsert: true})
		if err != nil {
			return res, nil, err
		}
		ids, werrs, err := db.insertDocs(ctx, dbName, name, []any{nd}, true)
		if err != nil {
			return res, nil, err
		}
		if len(werrs) > 0 {
			return res, nil, werrs[0].Err
		}
		res.UpsertedCount, res.UpsertedID = 1, ids[0]
		if returnNew {
			out, _ = prepareInsert(nd)
			if out != nil {
				out = set(out, "_id", ids[0])
			}
		}
	}
	return res, out, nil
}

// ridOfID finds the record id of a document by its _id.
func (db *DB) ridOfID(c *coll, d bson.D) (uint64, error) {
	id, _ := get(d, "_id")
	var rid uint64
	m := c.m()
	err := db.store.View(func(txn *lsm.Txn) error {
		pre := append(lsm.IndexPrefix(m.ID, idIndexID), lsm.AppendKey(nil, id, false)...)
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
func (db *DB) applyUpdates(c *coll, rids []uint64, f *query.Filter, u *query.Update, now time.Time, returnNew bool) (matched, modified int64, last bson.D, err error) {
	if c.m().Kind == kindCapped {
		return db.applyCappedUpdates(c, rids, f, u, now, returnNew)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.dropped.Load() {
		return 0, 0, nil, errDropped
	}
	var newMeta *collMeta
	var stopErr error
	err = db.store.Update(func(txn *lsm.Txn) error {
		matched, modified, last, newMeta, stopErr = 0, 0, nil, nil, nil
		m := c.m()
		w := &writeCtx{c: c, m: m, txn: txn}
		for _, rid := range rids {
			d, raw, err := getRecord(txn, m.ID, rid)
			if err == lsm.ErrNotFound {
				continue
			} else if err != nil {
				return err
			}
			if !f.Match(d) {
				continue
			}
			matched++
			nd, err := u.Apply(d, query.UpdateOptions{Now: now})
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
			nraw, merr := doc.Marshal(nd)
			if merr == nil && bytes.Equal(raw, nraw) {
				continue
			}
			if err := doc.ValidateForStorage(nd); err != nil {
				stopErr, matched = err, matched-1
				break
			}
			if merr != nil {
				return merr
			}
			if m.Kind == kindCapped {
				if err := db.cappedUpdate(c, rid, raw, nraw); err != nil {
					return err
				}
			}
			if err := w.replace(rid, d, nd, nraw); err != nil {
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
