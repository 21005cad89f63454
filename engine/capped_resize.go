package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Resizing a capped collection (collMod cappedSize / cappedMax,
// docs/capped.md §7.8). The ring file's size is fixed at creation, so a
// resize writes a new ring beside the old one and switches to it:
//
//  1. a new collection id is reserved together with a pending-drop
//     marker for it, so that a crash before step 4 leaves nothing of the
//     new id in the store once Open resumes the drop;
//  2. the new ring file is created and preallocated (FailpointCappedResizeCreated);
//  3. the documents are copied into it oldest first through the ring,
//     which evicts the oldest ones when they do not fit the new limits,
//     with the collection's secondary indexes; the ring is fsynced
//     (FailpointCappedResizeWritten);
//  4. one store transaction replaces the catalog entry (same name, the
//     new id, the new size and max), clears the new id's pending-drop
//     marker and sets one for the old id: this commit is the switch
//     (FailpointCappedResizeSwitched);
//  5. the store is synced, so the switch survives a power cut, and the
//     old ring file is removed (FailpointCappedResizeRemoved) and the
//     old id's index entries are deleted.
//
// A crash before 4 reopens the old collection, complete (its ring was
// never written); a crash after it reopens the new one, complete (its
// ring was fsynced before the commit), and Open finishes the old id's
// drop. A ring file left by a crash is removed by the next capped
// create or resize (sweepCappedOrphans). Writers of the collection wait
// for the resize (it holds the collection's write lock) and then write
// into the new ring.

// Failpoints of a capped resize, in order (see the steps above).
const (
	// FailpointCappedResizeCreated fires after the new ring file is
	// created, before any document is copied into it.
	FailpointCappedResizeCreated = "capped.resize.created"
	// FailpointCappedResizeWritten fires after the new ring is written
	// and fsynced, before the catalog switches to it.
	FailpointCappedResizeWritten = "capped.resize.written"
	// FailpointCappedResizeSwitched fires after the catalog switched to
	// the new ring, before the old ring file is removed.
	FailpointCappedResizeSwitched = "capped.resize.switched"
	// FailpointCappedResizeRemoved fires after the old ring file is
	// removed, before the old index entries are deleted.
	FailpointCappedResizeRemoved = "capped.resize.removed"
)

// cappedResize is a parsed collMod cappedSize / cappedMax.
type cappedResize struct {
	size    int64 // as given; valid when hasSize
	max     int64 // 0: no count limit; valid when hasMax
	hasSize bool
	hasMax  bool
}

// parseCappedResize parses collMod's cappedSize and cappedMax
// (docs/capped.md §7.8): numbers (14 TypeMismatch otherwise); a size of
// at most 0 or above 1 PiB, or a max of 2^31 or more, is 72
// InvalidOptions; the size is kept as given, as create keeps it; a max of at
// most 0 removes the count limit.
func parseCappedResize(opts bson.D) (*cappedResize, error) {
	r := &cappedResize{}
	for _, e := range opts {
		switch v := e.Value.(type) {
		case int32, int64, float64, bson.Decimal128:
		default:
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.%s' is the wrong type '%s', expected types '[long, int, decimal, double]'", e.Key, typeName(v))
		}
		f, err := cappedNumber("collMod", e.Key, e.Value)
		if err != nil {
			return nil, err
		}
		switch e.Key {
		case "cappedSize":
			if f <= 0 || f > cappedMaxSize {
				return nil, document.Errorf(document.CodeInvalidOptions, "Capped size must be between 1 and %d bytes (1 PiB), got %s", int64(cappedMaxSize), fmtValue(e.Value))
			}
			r.size, r.hasSize = int64(f), true
		case "cappedMax":
			if f >= cappedMaxDocs {
				return nil, document.Errorf(document.CodeInvalidOptions, "Capped max must be less than 2^31, got %s", fmtValue(e.Value))
			}
			// 0 or less lifts the count limit: MongoDB records the
			// ceiling, 2^31-1, which collStats then shows as max.
			r.max, r.hasMax = int64(f), true
			if f <= 0 {
				r.max = cappedMaxDocs - 1
			}
		}
	}
	return r, nil
}

// resizeCapped applies r to capped collection c (docs/capped.md §7.8),
// with the collMod's other edits and its modify event (note) in the
// commit that switches to the new ring; a resize to the current limits
// is collModCommit. The caller holds catMu.
func (db *DB) resizeCapped(ctx context.Context, c *coll, r *cappedResize, edits []collModEdit, note func(*lsm.Txn, *catalog.Coll) error) (bson.D, error) {
	old := c.m()
	if old.Kind != catalog.KindCapped {
		return nil, document.Errorf(document.CodeInvalidOptions, "Collection must be capped to use 'cappedSize' or 'cappedMax': %s", old.NS())
	}
	cur, err := cappedOptsOf(old)
	if err != nil {
		return nil, err
	}
	want := cur
	if r.hasSize {
		want.size = r.size
	}
	if r.hasMax {
		want.max = r.max
	}
	if want == cur {
		return db.collModCommit(c, edits, note)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.dropped.Load() {
		return nil, errDropped
	}
	old = c.m()
	nm, reply, afters, err := applyCollModEdits(old, edits)
	if err != nil {
		return nil, err
	}
	nm.Options = cappedRawOptions(want.size, want.max, nm.Options)
	err = db.store.Update(func(txn *lsm.Txn) error {
		id, err := db.allocCollID(txn)
		nm.ID = id
		if err != nil {
			return err
		}
		return txn.Set(pendingDropKey(id), nil)
	})
	if err != nil {
		return nil, err
	}
	// Whatever fails from here before the switch leaves the old
	// collection as it was; the new id's drop finishes now (or at Open).
	abandon := func(nc *coll) {
		if nc != nil {
			db.abortExt(nc, nm)
		}
		if err := db.finishDrop(nm.ID); err != nil {
			db.logf("collMod %s: removing the unfinished resize: %v", old.NS(), err)
		}
	}
	nc := &coll{db: db}
	co := &createOptions{kind: catalog.KindCapped, ext: &want, raw: nm.Options}
	if err := db.prepareExt(nc, nm, co); err != nil {
		abandon(nil)
		return nil, err
	}
	nm.Extra = set(append(bson.D(nil), old.Extra...), "cappedFile", cappedFileName(nm.ID))
	nc.meta.Store(nm)
	db.failpoint(FailpointCappedResizeCreated)
	st, err := cappedOf(nc)
	if err != nil {
		abandon(nc)
		return nil, err
	}
	skip, err := db.cappedUnfit(ctx, c, old, nm, st.ring.Capacity()-capped.DataStart, want.size)
	if err != nil {
		abandon(nc)
		return nil, err
	}
	if err := db.copyIntoCapped(ctx, c, old, nc, skip, false); err != nil {
		abandon(nc)
		return nil, err
	}
	if err := st.ring.Sync(); err != nil {
		abandon(nc)
		return nil, err
	}
	db.failpoint(FailpointCappedResizeWritten)
	// The copy may have marked indexes multikey in nc's entry.
	fin := nc.m()
	err = db.store.Update(func(txn *lsm.Txn) error {
		if err := putMeta(txn, fin); err != nil { // same catalog key: replaces the original
			return err
		}
		if err := txn.Delete(pendingDropKey(fin.ID)); err != nil {
			return err
		}
		if err := txn.Set(pendingDropKey(old.ID), nil); err != nil {
			return err
		}
		if err := db.noteCappedSwitch(txn, old, fin, st.ring.LastSeq()); err != nil {
			return err
		}
		if note == nil {
			return nil
		}
		return note(txn, old)
	})
	if err != nil {
		abandon(nc)
		return nil, err
	}
	for _, f := range afters {
		f(fin)
	}
	db.replaceColl(c, nc)
	db.failpoint(FailpointCappedResizeSwitched)
	// The switch must be durable before the old ring goes: without
	// SyncWrites the commit is in the OS's cache, which a power cut
	// could lose together with the catalog entry naming the new ring.
	if err := db.store.Sync(); err != nil {
		if ost, ok := c.ext.(*cappedState); ok && ost != nil {
			ost.ring.Close()
		}
		db.logf("collMod %s: syncing the switch, keeping the old ring file: %v", fin.NS(), err)
		return reply, nil
	}
	if err := db.dropExt(c); err != nil {
		db.logf("collMod %s: removing the old ring file: %v", fin.NS(), err)
	}
	db.failpoint(FailpointCappedResizeRemoved)
	if err := db.finishDrop(old.ID); err != nil {
		return nil, err
	}
	return reply, nil
}

// cappedUnfit returns how many of c's documents (catalog entry m, in
// natural order) a resized ring with usable bytes and a data limit of
// maxData bytes must leave out: up to and including the newest one too
// large for it on its own, as the oldest go first and no newer document
// may be kept without it.
func (db *DB) cappedUnfit(ctx context.Context, c *coll, m, nm *catalog.Coll, usable, maxData int64) (int, error) {
	all, err := query.ParseFilter(bson.D{})
	if err != nil {
		return 0, err
	}
	p, err := makePlan(c, m, all, nil, nil)
	if err != nil {
		return 0, err
	}
	sc := newScanner(p)
	sc.noMatch = true
	skip, seen := 0, 0
	for !sc.done {
		recs, err := sc.next(ctx, insertChunkDocs)
		if err != nil {
			return 0, err
		}
		for _, r := range recs {
			seen++
			cd, err := prepareCapped(nm, r.d)
			if err != nil {
				return 0, err
			}
			if cappedRecordSize(len(cd.payload)) > usable || int64(len(cd.payload)) > maxData {
				skip = seen
			}
		}
	}
	return skip, nil
}
