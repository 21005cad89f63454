package engine

import (
	"bytes"
	"context"
	"time"

	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/engine/internal/ttlmon"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

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
	var lag time.Duration
	if tr := db.opts.seams.visitTrace; tr != nil {
		start, p0 := time.Now(), tr.paused.Load()
		defer func() {
			tr.f(TTLVisitTrace{Index: ix.Name, Start: start, End: time.Now(), Lag: lag, Level: v.level,
				Backlog: v.backlog, Deleted: deleted, More: more, Paused: time.Duration(tr.paused.Load() - p0)})
		}()
	}
	batching, budget, now := v.batching, v.budget, v.now
	cutoff := cutoffFor(now, ix.Expire)
	desc := indexkey.Fields(ix.Key)[0].Desc
	prefix := lsm.IndexPrefix(m.ID, ix.ID)
	lo, hi := ttlDateRange(m, ix, cutoff, desc)
	key := ttlKey{Coll: m.ID, Index: ix.ID}
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
	// An ascending visit walks up from its mark, a descending one down
	// from its (high-water) mark: the keys it deleted before lie behind
	// it (docs/ttl-monitor.md, "Why visits keep a low-water mark").
	var lw *ttlmon.Index
	var resume []byte
	if desc {
		lw, resume = mo.StartVisitDesc(key, hi)
	} else {
		lw, resume = mo.StartVisit(key, lo)
	}
	t.c.wmu.Unlock()
	if !desc && resume != nil && bytes.Compare(resume, lo) > 0 {
		lo = resume
	}
	if desc && resume != nil && bytes.Compare(resume, hi) < 0 {
		hi = resume
	}

	recheck := func(cm *catalog.Coll, d bson.D) bool {
		cix := indexByID(cm, t.index)
		return cix != nil && cix.TTL && expiredUnder(cix, d, cutoffFor(now, cix.Expire))
	}
	bd := &batchDeleter{db: db, c: t.c, recheck: recheck, stats: batching, yield: true, pipeline: true,
		recheckPure: true, indexedOnly: true, reclaimBytes: mo.DeletedBytes()}
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
	if db.opts.seams.deleterHook != nil {
		db.opts.seams.deleterHook(bd)
	}
	// Record ids are read from the index in chunks of ttlScanChunk; the
	// pipelined deletes of a chunk drain (the last commit is waited for
	// with nothing staged beside it) before the next chunk is read.
	chunk := budget.Chunk(seamOr(db.opts.seams.ttlScanChunk, ttlScanChunk))
	finished := false
	first := true
	for !finished {
		if err := ctxErr(ctx); err != nil {
			return deleted, false, err
		}
		want := budget.Want(chunk, deleted)
		var rids []uint64
		var next []byte
		err := db.store.View(func(txn *lsm.Txn) error {
			if first {
				// The oldest expired key sets the visit's catch-up level.
				first = false
				var backlog bool
				lag = oldestLag(txn, lo, hi, len(prefix), desc, cutoff)
				bd.level, backlog = mo.NoteLag(lw, lag, now, m.NS(), ix.Name)
				v.level, v.backlog = bd.level, backlog
				bd.yield = bd.level < maxCatchUp
				if !bd.yield && backlog {
					bd.duty = &ttlmon.Duty{} // docs/batched-deletes.md §4.6
				}
			}
			if bd.ids != nil {
				clear(bd.ids)
			}
			clear(bd.ttl.keys)
			var err error
			rids, next, finished, err = scanRids(txn, lo, hi, desc, want, bd.ids, bd.ttl.keys, t.index == idIndexID)
			return err
		})
		if err != nil {
			return deleted, false, err
		}
		if db.opts.seams.scanHook != nil {
			db.opts.seams.scanHook()
		}
		n, err := bd.run(ctx, rids, budget.StopFunc(deleted))
		deleted += n
		db.stats.ttlDeleted.Add(n)
		if err != nil {
			return deleted, false, err
		}
		if budget.Stopped() {
			// Ended inside the chunk: the next visit scans it again
			// (its deleted keys are gone from the index), as records
			// are deleted in record-id order, not in index order.
			mo.EndVisit(lw, false)
			return deleted, true, nil
		}
		switch {
		case desc:
			if next != nil {
				hi = next
			}
			mo.Advance(lw, hi)
		default:
			if next != nil {
				lo = next
			}
			mo.Advance(lw, lo)
		}
		if finished {
			break
		}
		if budget.Met(deleted) {
			mo.EndVisit(lw, false)
			return deleted, true, nil
		}
	}
	mo.EndVisit(lw, true)
	return deleted, false, nil
}

// ttlScanChunk is how many record ids a TTL visit reads from its index
// at a time (32 KiB of ids), small against the visit's targets. The
// pipeline drains at the end of each chunk (every ~4 batches of the
// default 1000 documents); 16384 measured no faster in the 1M reap
// (benchmarks/RESULTS.md, 2026-11-26), so the chunk stays small.
const ttlScanChunk = 4096

// visit is what every TTL visit starts with (beginVisit): its place in
// currentOp, its budget and the time expiry is judged against.
type visit struct {
	end      func() // leaves currentOp
	batching bool   // ttlMonitorBatchDeletes
	// budget holds ttlIndexDeleteTargetDocs and
	// ttlIndexDeleteTargetTimeMS when batching, else no target.
	budget *ttlmon.Budget
	now    bson.DateTime // expiry is judged against this time
	// level and backlog are the level the visit reaps at and whether
	// it is the backlog level alone (for SetTTLTraceForTesting).
	level   int
	backlog bool
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
	var docs, ms int64
	if v.batching {
		docs = db.params.int("ttlIndexDeleteTargetDocs")
		ms = db.params.int("ttlIndexDeleteTargetTimeMS")
	}
	v.budget = db.mon.Budget(docs, time.Duration(ms)*time.Millisecond)
	v.now = db.now()
	return v
}

// scanRids reads the record ids of up to want index keys in [lo, hi),
// in key order, or with reverse from hi down. next is where a scan
// after this one starts (nil when no key was read), also when finished
// (no key is left), so that a visit's mark moves past the keys of its
// last chunk too (docs/ttl-monitor.md): just past the last key read,
// or with reverse that key itself (the next scan's exclusive upper
// end). ids, when not nil (a clustered collection),
// is given each record's _id keystring: the entry's value, or with
// idIndex (the clustered collection's own _id index, clustered TTL)
// the entry's keystring. keys, when not nil, is given each record's
// entry key (ttlFast.keys).
func scanRids(txn *lsm.Txn, lo, hi []byte, reverse bool, want int64, ids, keys map[uint64][]byte, idIndex bool) (rids []uint64, next []byte, finished bool, err error) {
	it := txn.NewIter(lsm.IterOptions{Lower: lo, Upper: hi, Reverse: reverse, KeysOnly: ids == nil || idIndex})
	defer it.Close()
	var arena []byte // the entry keys, in one allocation per few hundred
	var last []byte  // a copy of the last key read
	for it.Next() {
		last = append(last[:0], it.Key()...)
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
			return rids, after(last, reverse), false, nil
		}
	}
	if last != nil {
		next = after(last, reverse)
	}
	return rids, next, true, nil
}

// after returns where a scan resumes after reading key last (a copy
// the caller owns): just past it, or with reverse last itself.
func after(last []byte, reverse bool) []byte {
	if reverse {
		return bytes.Clone(last)
	}
	return append(append(make([]byte, 0, len(last)+1), last...), 0)
}

// oldestLag returns how long before cutoff the oldest date in the TTL
// index range [lo, hi) lies (0 if the range is empty): its first key,
// or for a descending index its last.
func oldestLag(txn *lsm.Txn, lo, hi []byte, prefixLen int, desc bool, cutoff bson.DateTime) time.Duration {
	it := txn.NewIter(lsm.IterOptions{Lower: lo, Upper: hi, KeysOnly: true, Reverse: desc})
	defer it.Close()
	if !it.Next() || len(it.Key()) < prefixLen {
		return 0
	}
	v, _, err := lsm.DecodeKey(it.Key()[prefixLen:], desc)
	if err != nil {
		return 0
	}
	d, ok := v.(bson.DateTime)
	if !ok || d > cutoff {
		return 0
	}
	return time.Duration(cutoff-d) * time.Millisecond
}

func indexByID(m *catalog.Coll, id uint64) *catalog.Index {
	for _, ix := range m.Indexes {
		if ix.ID == id {
			return ix
		}
	}
	return nil
}
