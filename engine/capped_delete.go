package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Deletes from a capped collection (docs/capped.md §7.5). MongoDB 5.0+
// lets a user delete documents of a capped collection; ttlkv rewrites
// the deleted document's ring record in place as a tombstone, which
// keeps its space and sequence until the ring evicts it and which every
// reader skips.

// deleteCapped runs delete statement s, whose filter is f, on capped
// collection c and returns how many documents it deleted.
func (db *DB) deleteCapped(ctx context.Context, c *coll, f *query.Filter, s DeleteSpec) (int64, error) {
	p, err := makePlan(c, c.m(), f, nil, s.Hint)
	if err != nil {
		return 0, err
	}
	db.notePlanOf(c.m(), p, false)
	if s.Limit == 1 {
		for attempt := 0; attempt < 100; attempt++ {
			rids, _, err := candidates(ctx, p, 1)
			if err != nil || len(rids) == 0 {
				return 0, err
			}
			n, _, err := db.cappedDeleteSeqs(c, rids, f)
			if err != nil || n == 1 {
				return n, err
			}
			// Evicted, deleted or changed under us: look again.
		}
		return 0, document.Errorf(document.CodeWriteConflict, "delete: too many concurrent changes to the matched document")
	}
	rids, _, err := candidates(ctx, p, 0)
	if err != nil {
		return 0, err
	}
	n, _, err := db.cappedDeleteSeqs(c, rids, f)
	return n, err
}

// cappedDeleteSeqs deletes the documents of ring records seqs that still
// match f, under c's write lock, and returns how many it deleted and the
// last of them.
func (db *DB) cappedDeleteSeqs(c *coll, seqs []uint64, f *query.Filter) (int64, bson.D, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.dropped.Load() {
		return 0, nil, errDropped
	}
	st, err := cappedOf(c)
	if err != nil {
		return 0, nil, err
	}
	var n int64
	var last bson.D
	for _, seq := range seqs {
		rec, d, _, err := cappedReread(c, st, seq, f)
		if err != nil {
			return n, last, err
		}
		if d == nil {
			continue
		}
		if err := db.cappedRemove(c, st, rec, d); err != nil {
			return n, last, err
		}
		n++
		last = d
	}
	return n, last, nil
}

// cappedReread reads ring record seq again, under the write lock, for
// a write that selected it earlier: the record and its document when it
// is still there (not evicted, not deleted) and still matches f; d nil
// when it is not.
// msg is d's encoding (the frame's, or a grown document's outside copy).
func cappedReread(c *coll, st *cappedState, seq uint64, f *query.Filter) (rec capped.Record, d bson.D, msg []byte, err error) {
	it := st.ring.Scan(seq, false)
	if !it.Next() || it.Record().Seq != seq {
		if e := it.Err(); e != nil && !errors.Is(e, capped.ErrOverwritten) {
			return rec, nil, nil, cappedErr(c, e)
		}
		return rec, nil, nil, nil // evicted since it was selected
	}
	rec = it.Record()
	msg, ok, err := st.recordMsg(rec)
	if err != nil || !ok {
		return rec, nil, nil, err // deleted since it was selected
	}
	d, err = document.Unmarshal(msg)
	if err != nil {
		return rec, nil, nil, err
	}
	if ok, err := f.MatchErr(d); err != nil || !ok {
		return rec, nil, nil, err
	}
	return rec, d, msg, nil
}

// cappedRemove deletes document d, held by ring record rec: its
// secondary index entries first (a crash after them leaves the record
// live, and reopening puts them back), then, with change streams on, the
// intent of its event, then the tombstone over the record, then its _id
// entry, then the event.
func (db *DB) cappedRemove(c *coll, st *cappedState, rec capped.Record, d bson.D) error {
	m := c.m()
	ks, err := cappedKS(rec.Data)
	if err != nil {
		return fmt.Errorf("engine: capped record %d: %w", rec.Seq, err)
	}
	if sec := cappedSecondary(m); len(sec) > 0 {
		b := db.store.NewBatch()
		for _, ix := range sec {
			keys, _, _ := indexkey.Of(ix, d)
			for _, k := range keys {
				if err := b.Delete(lsm.IndexKey(m.ID, ix.ID, k, rec.Seq)); err != nil {
					b.Cancel()
					return err
				}
			}
		}
		if err := b.Flush(); err != nil {
			return err
		}
	}
	data := cappedTombstone(len(rec.Data))
	var ev []byte
	if db.changesOn() {
		ch := &changestream.Change{Op: changestream.Delete, DB: m.DB, Coll: m.Name, DocumentKey: docKey(d)}
		if preImagesOn(m) {
			ch.Before = d
		}
		if ev, err = db.cappedIntent(c, rec.Seq, data, ch); err != nil {
			return err
		}
		c.db.failpoint(FailpointCappedUpdateIntent)
	}
	if err := st.ring.Overwrite(rec.Seq, rec.Off, data); err != nil {
		return cappedErr(c, err)
	}
	st.ids.remove(ks, rec.Seq)
	st.tombs.add(rec.Seq, len(data))
	if ev != nil {
		c.db.failpoint(FailpointCappedUpdateWritten)
	}
	if p, ok := cappedPointerOf(rec.Data); ok {
		// The tombstone is written: the outside copy is no one's.
		st.grown.Evict(rec.Seq, payloadExtra(rec.Data))
		db.dropOutside(st, rec.Seq, p.gen)
	}
	return db.logCappedUpdate(c, ev)
}

// findOneAndDelete deletes the first document of capped collection c in
// sort order matching filter and returns it (nil when none matched).
func (cappedKind) findOneAndDelete(ctx context.Context, db *DB, c *coll, filter, sortD bson.D) (bson.D, error) {
	m := c.m()
	for attempt := 0; attempt < 100; attempt++ {
		_, p, q, err := db.findPlan(m.DB, m.Name, filter, FindOptions{Sort: sortD, Limit: 1, Collation: ctxCollation(ctx), Let: ctxLet(ctx)})
		if err != nil || q == nil || p == nil {
			return nil, err
		}
		docs, err := q.nextBatch(ctx, 1)
		if err != nil || len(docs) == 0 {
			return nil, err
		}
		seq, err := db.ridOfID(c, docs[0])
		if err != nil {
			return nil, err
		}
		n, gone, err := db.cappedDeleteSeqs(c, []uint64{seq}, p.filter)
		if err != nil {
			return nil, err
		}
		if n == 1 {
			return gone, nil
		}
	}
	return nil, document.Errorf(document.CodeWriteConflict, "findAndModify: too many concurrent changes to the matched document")
}
