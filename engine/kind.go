package engine

import (
	"context"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// kind is what varies between the kinds of collection: ordinary
// (clustered or not), capped and time-series. The core asks a
// collection's kind (kindOf) rather than testing catalog.Coll.Kind; each
// kind's methods are thin and call into its own files (capped_*.go,
// timeseries*.go, or the core's ordinary path).
type kind interface {
	// open sets up the kind's state of an existing or just created
	// collection (a capped collection's ring and in-memory _id index).
	open(db *DB, c *coll) error
	// insert inserts docs into c, ordered or not (docs/commands.md §0).
	insert(ctx context.Context, db *DB, c *coll, docs []any, ordered bool) (ids []any, werrs []WriteError, err error)
	// query builds the executor of a find on c (filter is f as the user
	// gave it).
	query(db *DB, c *coll, filter bson.D, f *query.Filter, srt *query.Sort, o FindOptions, proj *query.Projection) (*queryExec, error)
	// checkFind refuses the find options o and sort srt that c's kind
	// does not support (a tailable cursor on a collection that is not
	// capped, docs/tailable.md §8.1).
	checkFind(c *coll, filter bson.D, o FindOptions, srt *query.Sort) error
	// next returns up to n more records of scanner s over a collection
	// of this kind (exec.go).
	next(ctx context.Context, s *scanner, n int) ([]record, error)
	// ridOfID finds the record id of c's document with d's _id.
	ridOfID(db *DB, c *coll, d bson.D) (uint64, error)
	// canUpdate is nil when the kind's documents can be updated.
	canUpdate() error
	// canDelete is nil when c's documents can be deleted one by one
	// (not a view's).
	canDelete(c *coll) error
	// checkIndex refuses an index the kind cannot have, ix as parsed
	// from its spec (a TTL index on a capped collection,
	// docs/ttl-indexes.md §1.4).
	checkIndex(ix *catalog.Index) error
	// storesRecords reports whether the kind's documents are records in
	// the store found through its own _id index, which the core's fast
	// paths (the in-memory _id bound, find by _id) read directly:
	// ordinary and clustered collections, buckets collections included.
	storesRecords() bool
	// update applies u to the records rids of c that still match f,
	// re-reading each where the write happens (modify.go).
	update(db *DB, c *coll, rids []uint64, ids map[uint64][]byte, f *query.Filter, u *query.Update, now time.Time, returnNew bool) (matched, modified int64, last bson.D, err error)
	// delete runs delete statement s, whose filter is f, on c.
	delete(ctx context.Context, db *DB, c *coll, f *query.Filter, s DeleteSpec) (int64, error)
	// buildIndexes fills the new indexes ixs of c, whose catalog entry
	// m reserves them.
	buildIndexes(ctx context.Context, db *DB, c *coll, m *catalog.Coll, ixs []*catalog.Index) error
	// drop removes what the kind keeps beside the catalog entry of c,
	// which is already gone (a ring file, a buckets collection).
	drop(db *DB, c *coll) error
	// stats counts c's documents and bytes for collStats and dbStats.
	stats(db *DB, c *coll) collStatsInfo
	// validate checks c into res under c.wmu; it returns true when the
	// core's check of documents against index entries is to run too.
	validate(ctx context.Context, db *DB, c *coll, res *ValidateResult, fail func(string, ...any)) (more bool)
	// ttlTargets lists what the TTL monitor visits in c
	// (docs/ttl-monitor.md §3.2): its TTL indexes, or a time-series
	// collection's expiry.
	ttlTargets(c *coll) []ttlTarget
}

// indexProxy is a kind whose indexes live on another collection (a
// time-series collection's, on its buckets collection): createIndexes
// and dropIndexes hand the whole command over to it.
type indexProxy interface {
	createIndexes(ctx context.Context, db *DB, c *coll, specs []bson.D) (*CreateIndexesResult, error)
	dropIndexes(db *DB, c *coll, which any) (int, error)
}

// kindOf returns the kind of a collection with catalog entry m. It is
// the one place that maps catalog.Coll.Kind to behaviour.
func kindOf(m *catalog.Coll) kind {
	switch m.Kind {
	case catalog.KindTimeseries:
		return timeseriesKind{}
	case catalog.KindCapped:
		return cappedKind{}
	case catalog.KindView:
		return viewKind{}
	}
	return ordinaryKind{}
}

// ordinaryKind is an ordinary collection, clustered by _id or not: its
// documents are records in Badger, found through its indexes; they expire
// through TTL indexes.
type ordinaryKind struct{}

func (ordinaryKind) open(*DB, *coll) error { return nil }

func (ordinaryKind) insert(ctx context.Context, db *DB, c *coll, docs []any, ordered bool) ([]any, []WriteError, error) {
	return db.insertOrdinary(ctx, c, docs, ordered)
}

func (ordinaryKind) query(db *DB, c *coll, _ bson.D, f *query.Filter, srt *query.Sort, o FindOptions, proj *query.Projection) (*queryExec, error) {
	return db.recordQuery(c, f, srt, o, proj)
}

func (ordinaryKind) checkFind(c *coll, filter bson.D, o FindOptions, _ *query.Sort) error {
	if o.Tailable {
		return notCappedTailable(c, filter, o)
	}
	return nil
}

// notCappedTailable is the error of a tailable find on c, which is not
// capped: mongod's, with its description of the query.
func notCappedTailable(c *coll, filter bson.D, o FindOptions) error {
	return document.Errorf(document.CodeBadValue, "error processing query: %s tailable cursor requested on non capped collection", describeQuery(c.m().NS(), filter, o))
}

func (ordinaryKind) next(ctx context.Context, s *scanner, n int) ([]record, error) {
	return s.nextRecords(ctx, n)
}

func (ordinaryKind) ridOfID(db *DB, c *coll, d bson.D) (uint64, error) {
	return db.indexRidOfID(c, d)
}

func (ordinaryKind) canUpdate() error { return nil }

func (ordinaryKind) canDelete(*coll) error { return nil }

func (ordinaryKind) checkIndex(*catalog.Index) error { return nil }

func (ordinaryKind) storesRecords() bool { return true }

func (ordinaryKind) update(db *DB, c *coll, rids []uint64, ids map[uint64][]byte, f *query.Filter, u *query.Update, now time.Time, returnNew bool) (int64, int64, bson.D, error) {
	return db.applyOrdinaryUpdates(c, rids, ids, f, u, now, returnNew)
}

func (ordinaryKind) delete(ctx context.Context, db *DB, c *coll, f *query.Filter, s DeleteSpec) (int64, error) {
	return db.deleteOrdinary(ctx, c, f, s)
}

func (ordinaryKind) buildIndexes(ctx context.Context, db *DB, c *coll, m *catalog.Coll, ixs []*catalog.Index) error {
	return db.buildIndexes(ctx, c, m, ixs)
}

func (ordinaryKind) drop(*DB, *coll) error { return nil }

func (ordinaryKind) stats(db *DB, c *coll) collStatsInfo { return db.ordinaryStats(c) }

func (ordinaryKind) validate(context.Context, *DB, *coll, *ValidateResult, func(string, ...any)) bool {
	return true
}

func (ordinaryKind) ttlTargets(c *coll) []ttlTarget {
	var out []ttlTarget
	for _, ix := range c.m().Indexes {
		if ix.TTL {
			out = append(out, ttlTarget{c: c, index: ix.ID, name: ix.Name, reaper: indexReaper{}})
		}
	}
	return out
}

// cappedKind is a capped collection: its documents live in a
// preallocated ring file (capped_*.go, package capped), oldest evicted
// first (docs/capped.md §7); a delete leaves a tombstone in place
// (capped_delete.go). It has no TTL indexes
// (docs/ttl-indexes.md §1.4).
type cappedKind struct{}

func (cappedKind) open(db *DB, c *coll) error { return db.openExt(c) }

func (cappedKind) insert(ctx context.Context, db *DB, c *coll, docs []any, ordered bool) ([]any, []WriteError, error) {
	return db.insertSpecial(ctx, c, docs, ordered)
}

func (cappedKind) query(db *DB, c *coll, _ bson.D, f *query.Filter, srt *query.Sort, o FindOptions, proj *query.Projection) (*queryExec, error) {
	return db.recordQuery(c, f, srt, o, proj)
}

func (cappedKind) checkFind(*coll, bson.D, FindOptions, *query.Sort) error { return nil }

func (cappedKind) next(ctx context.Context, s *scanner, n int) ([]record, error) {
	return s.nextCapped(ctx, n)
}

func (cappedKind) ridOfID(db *DB, c *coll, d bson.D) (uint64, error) {
	return db.cappedRidOfID(c, d)
}

func (cappedKind) canUpdate() error { return nil }

func (cappedKind) canDelete(*coll) error { return nil }

func (cappedKind) checkIndex(ix *catalog.Index) error {
	if ix.TTL {
		return document.Errorf(document.CodeCannotCreateIndex, "Cannot create TTL index on a capped collection")
	}
	return nil
}

func (cappedKind) storesRecords() bool { return false }

func (cappedKind) update(db *DB, c *coll, rids []uint64, _ map[uint64][]byte, f *query.Filter, u *query.Update, now time.Time, returnNew bool) (int64, int64, bson.D, error) {
	return db.applyCappedUpdates(c, rids, f, u, now, returnNew)
}

func (cappedKind) delete(ctx context.Context, db *DB, c *coll, f *query.Filter, s DeleteSpec) (int64, error) {
	return db.deleteCapped(ctx, c, f, s)
}

func (cappedKind) buildIndexes(ctx context.Context, db *DB, c *coll, m *catalog.Coll, ixs []*catalog.Index) error {
	return db.buildCappedIndexes(ctx, c, m, ixs)
}

func (cappedKind) drop(db *DB, c *coll) error {
	if err := db.dropExt(c); err != nil {
		db.logf("drop %s: removing kind-specific files: %v", c.m().NS(), err)
	}
	return nil
}

func (cappedKind) stats(db *DB, c *coll) collStatsInfo { return db.specialStats(c) }

func (cappedKind) validate(ctx context.Context, db *DB, c *coll, res *ValidateResult, fail func(string, ...any)) bool {
	db.validateSpecial(ctx, c, res, fail)
	return false
}

func (cappedKind) ttlTargets(*coll) []ttlTarget { return nil }

// timeseriesKind is a time-series collection: a view whose measurements
// live in the buckets of an ordinary buckets collection
// (timeseries*.go, package ts), which expire whole (docs/timeseries.md §6).
type timeseriesKind struct{}

func (timeseriesKind) open(*DB, *coll) error { return nil }

func (timeseriesKind) insert(ctx context.Context, db *DB, c *coll, docs []any, ordered bool) ([]any, []WriteError, error) {
	return db.insertTimeseries(ctx, c, docs, ordered)
}

func (timeseriesKind) query(db *DB, c *coll, filter bson.D, f *query.Filter, srt *query.Sort, o FindOptions, proj *query.Projection) (*queryExec, error) {
	q, err := db.timeseriesQuery(c, filter, f, srt, o, proj)
	if err == nil {
		db.tsNoteRead(q.sc.p.ts)
	}
	return q, err
}

func (timeseriesKind) checkFind(c *coll, filter bson.D, o FindOptions, srt *query.Sort) error {
	// mongod runs a find on a time-series collection as an aggregate
	// over its view (docs/timeseries.md §6.4).
	return findAsAggregate(o, srt)
}

// next is never asked of a time-series collection: its scanner reads
// the buckets collection (scanner.ts), an ordinary one.
func (timeseriesKind) next(ctx context.Context, s *scanner, n int) ([]record, error) {
	return s.nextRecords(ctx, n)
}

func (timeseriesKind) ridOfID(db *DB, c *coll, d bson.D) (uint64, error) {
	return db.indexRidOfID(c, d)
}

func (timeseriesKind) canUpdate() error { return nil }

func (timeseriesKind) canDelete(*coll) error { return nil }

func (timeseriesKind) checkIndex(*catalog.Index) error { return nil }

// storesRecords is false: the collection is a view; its buckets
// collection, an ordinary one, stores the records.
func (timeseriesKind) storesRecords() bool { return false }

// update is never asked of a time-series collection: its update
// statements run whole (updateStatement, timeseries_update.go).
func (timeseriesKind) update(db *DB, c *coll, _ []uint64, _ map[uint64][]byte, _ *query.Filter, _ *query.Update, _ time.Time, _ bool) (int64, int64, bson.D, error) {
	return 0, 0, nil, document.Errorf(document.CodeInternalError, "time-series collection %s updated record by record", c.m().NS())
}

func (timeseriesKind) delete(ctx context.Context, db *DB, c *coll, f *query.Filter, s DeleteSpec) (int64, error) {
	return db.deleteTimeseries(ctx, c, f, s)
}

func (timeseriesKind) buildIndexes(ctx context.Context, db *DB, c *coll, m *catalog.Coll, ixs []*catalog.Index) error {
	return db.buildIndexes(ctx, c, m, ixs)
}

func (timeseriesKind) createIndexes(ctx context.Context, db *DB, c *coll, specs []bson.D) (*CreateIndexesResult, error) {
	return db.createTimeseriesIndexes(ctx, c, specs)
}

func (timeseriesKind) dropIndexes(db *DB, c *coll, which any) (int, error) {
	return db.dropTimeseriesIndexes(c, which)
}

func (timeseriesKind) drop(db *DB, c *coll) error { return db.dropTimeseriesExt(c) }

func (timeseriesKind) stats(db *DB, c *coll) collStatsInfo { return db.timeseriesStats(c) }

func (timeseriesKind) validate(ctx context.Context, db *DB, c *coll, res *ValidateResult, fail func(string, ...any)) bool {
	db.validateTimeseries(ctx, c, res, fail)
	return false
}

func (timeseriesKind) ttlTargets(c *coll) []ttlTarget { return c.db.timeseriesTTLTargets(c) }
