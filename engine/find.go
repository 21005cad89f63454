package engine

import (
	"context"
	"github.com/ttlkv/ttlkv/engine/agg"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// FindOptions are find's options, named as in the find command.
type FindOptions struct {
	Projection bson.D
	Sort       bson.D
	Skip       int64
	Limit      int64 // 0: no limit; negative: a single batch of -Limit
	BatchSize  int32 // documents per batch (0: 101 first, then all)
	Hint       any   // index name or key pattern
	Tailable   bool  // follow a capped collection
	AwaitData  bool  // getMore waits up to MaxAwaitTimeMS for data
	MaxAwaitMS int64 // awaitData wait, default 1000
	// Collation compares strings in the filter and sort (nil: the
	// collection's default collation; {locale: "simple"}: binary).
	Collation bson.D
	// Let names values the filter's $expr reads as $$name (the
	// command's let; docs/aggregation.md, "Variables").
	Let bson.D
	// AllowDiskUse: a sort no index gives that holds more than 100 MiB
	// writes sorted runs to disk (nil or true, MongoDB 6.0's default)
	// or fails with 292 (false).
	AllowDiskUse *bool
	// Min and Max bound the hinted index's keys (inclusive, exclusive),
	// each a document of the key pattern's fields in its order; either
	// needs Hint (docs/commands.md, "Find options").
	Min, Max bson.D
	// ReturnKey returns each document's index key ({} without an index)
	// instead of the document.
	ReturnKey bool
	// ShowRecordID adds each document's record id as $recordId.
	ShowRecordID bool
	// filterVars are a pipeline's let variables, already evaluated, for
	// the scan's filter (an aggregate's; Let is then nil).
	filterVars any
	// noNear refuses a $near in the filter (a count: 5626500).
	noNear bool
	// systemViews reads the collections mongod has and the engine
	// shows from what it keeps (a database's system.views,
	// admin.system.version: catalogDocs): set by the reads that answer
	// them (find, count, an aggregation's scan, $lookup's).
	systemViews bool
	// noCursorTimeout and singleBatch are the find command's options
	// of those names (a time-series collection refuses them: its find
	// runs as an aggregate).
	noCursorTimeout, singleBatch bool
	// allowPartialResults and readOnce are the find command's options
	// of those names, which only a find run as an aggregate refuses.
	allowPartialResults, readOnce bool
}

// findPlan validates a find and builds its executor. It returns a nil
// exec (and no error) when the collection does not exist.
func (db *DB) findPlan(dbName, name string, filter bson.D, o FindOptions) (*coll, *plan, *queryExec, error) {
	if err := db.checkOpen(); err != nil {
		return nil, nil, nil, err
	}
	if err := validateCollName(dbName, name, true); err != nil {
		return nil, nil, nil, err
	}
	if o.Tailable && o.Limit < 0 {
		// A negative limit is singleBatch (find's singleBatch, the shell's
		// limit(-n)); MongoDB refuses it beside tailable.
		return nil, nil, nil, document.Errorf(document.CodeBadValue, "cannot use tailable option with the 'singleBatch' option")
	}
	if o.AwaitData && !o.Tailable {
		return nil, nil, nil, document.Errorf(document.CodeFailedToParse, "Cannot set 'awaitData' without also setting 'tailable'")
	}
	if o.Skip < 0 {
		return nil, nil, nil, document.Errorf(document.CodeBadValue, "Skip value must be non-negative, but received: %d", o.Skip)
	}
	vars := o.filterVars
	if vars == nil && len(o.Let) > 0 {
		l, err := agg.ParseLet(o.Let, bson.NewDateTimeFromTime(db.opts.Clock()))
		if err != nil {
			return nil, nil, nil, err
		}
		vars = l.FilterVars()
	}
	f, err := query.ParseFilterOpts(filter, db.filterOptions(vars))
	if err != nil {
		return nil, nil, nil, err
	}
	if rewritten, changed := rewriteOrToIn(filter, nil); changed {
		// Planned as mongod plans it: an $or of equalities on one path
		// is an $in, one index scan with a point a value. The filter as
		// given was parsed first, so its errors are the ones reported.
		if f, err = query.ParseFilterOpts(rewritten, db.filterOptions(vars)); err != nil {
			return nil, nil, nil, err
		}
	}
	if o.noNear {
		if err := refuseNear(f); err != nil {
			return nil, nil, nil, err
		}
	}
	var srt *query.Sort
	if o.Tailable && len(o.Sort) > 0 && (len(o.Sort) != 1 || o.Sort[0].Key != "$natural" || document.Compare(o.Sort[0].Value, int32(1)) != 0) {
		// mongod checks this as it parses the find, before the sort
		// itself and the collection (docs/tailable.md §8.1).
		return nil, nil, nil, document.Errorf(document.CodeBadValue, "cannot use tailable option with a sort other than {$natural: 1}")
	}
	if len(o.Sort) > 0 {
		if srt, err = query.ParseSort(o.Sort); err != nil {
			return nil, nil, nil, err
		}
	}
	var proj *query.Projection
	if len(o.Projection) > 0 {
		if db.opts.NoScripting && agg.UsesJavaScript(o.Projection) {
			// A computed projection runs without the engine's switch:
			// refused here, where mongod refuses it on the first document.
			return nil, nil, nil, document.Errorf(document.Code(31264), "Cannot run server-side javascript without the javascript engine enabled")
		}
		if proj, err = query.ParseProjectionWith(o.Projection, db.opts.Clock(), vars); err != nil {
			return nil, nil, nil, err
		}
	}
	c := db.lookup(dbName, name)
	if c != nil {
		if err := kindOf(c.m()).checkFind(c, filter, o, srt); err != nil {
			return nil, nil, nil, err
		}
		if c.m().Kind == catalog.KindTimeseries && !o.noNear {
			// A time-series find runs as a $match, where $near is refused.
			if err := refuseNear(f); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	if o.Collation != nil || c != nil {
		var m *catalog.Coll
		if c != nil {
			m = c.m()
		}
		if f, srt, err = collateQuery(m, o.Collation, f, srt); err != nil {
			return nil, nil, nil, err
		}
		proj = proj.Collate(f.Collator())
	}
	if c == nil {
		if _, shown := db.catalogDocs(dbName, name); shown && o.systemViews {
			q, err := db.catalogQuery(dbName, name, f, srt, o, proj)
			return nil, nil, q, err
		}
		if f.Text() != nil {
			return nil, nil, nil, document.Errorf(document.CodeIndexNotFound, "text index required for $text query (no such collection '%s.%s')", dbName, name)
		}
		return nil, nil, nil, nil
	}
	q, err := kindOf(c.m()).query(db, c, filter, f, srt, o, proj)
	if err != nil {
		return nil, nil, nil, err
	}
	if p := q.sc.p; p != nil && p.covered && idHackable(p, filter, o) {
		// mongod's IDHACK always reads the document: a projection over
		// it is never covered.
		p.covered, q.sc.cover = false, nil
	}
	if proj.NeedsGeoMeta() && q.sc.p.near == nil {
		return nil, nil, nil, document.Errorf(document.CodeBadValue, "query requires $meta \"geoNearDistance\" or \"geoNearPoint\" metadata, but it is not available: the filter has no $near or $nearSphere")
	}
	if srt.NeedsTextScore() || proj.NeedsTextScore() {
		if !q.sc.p.needTextScore() {
			return nil, nil, nil, errNoTextScore
		}
	}
	return c, q.sc.p, q, nil
}

// recordQuery builds the executor of a find on an ordinary (possibly
// clustered) or capped collection: a plan over its records.
// filterOptions are how a user's query filter (a find's, a count's, a
// distinct's, a write's) is parsed: $where accepted, JavaScript as the
// engine's options say, $expr with the variables vars.
func (db *DB) filterOptions(vars any) query.ParseOptions {
	return query.ParseOptions{Now: db.opts.Clock(), Vars: vars, Where: true, NoScripting: db.opts.NoScripting}
}

func (db *DB) recordQuery(c *coll, f *query.Filter, srt *query.Sort, o FindOptions, proj *query.Projection) (*queryExec, error) {
	if (o.Min != nil || o.Max != nil) && o.Hint == nil {
		return nil, errMinMaxHint()
	}
	if o.Min != nil || o.Max != nil {
		// mongod refuses min and max over a wildcard index before it
		// plans the hint (jstests/core/index/wildcard/wildcard_index_minmax.js).
		if ix, _, err := resolveHint(c.m(), o.Hint); err == nil && ix != nil && indexkey.IsWildcard(ix.Key) {
			return nil, errMinMaxNotEquivalent()
		}
	}
	p, err := makePlan(c, c.m(), f, srt, o.Hint)
	if err != nil {
		return nil, err
	}
	if o.Min != nil || o.Max != nil {
		if err := p.boundMinMax(o.Min, o.Max); err != nil {
			return nil, err
		}
	}
	db.notePlanOf(c.m(), p, o.Tailable)
	limit := o.Limit
	if limit < 0 {
		limit = -limit
	}
	q := newQueryExec(p, o.Skip, limit, proj)
	if !o.ReturnKey && !o.ShowRecordID && o.Min == nil && o.Max == nil && !o.Tailable && coverable(p, o.Projection) {
		p.covered = true
		q.sc.cover = indexkey.Fields(p.ix.Key)
	}
	q.returnKey = o.ReturnKey
	if o.ReturnKey && p.ix != nil && !isTextKey(p.ix.Key) && !indexkey.IsWildcard(p.ix.Key) && !(c.m().Clustered && p.ix.ID == idIndexID) {
		q.sc.indexKeys = true // the scan keeps the keys it reads by
	}
	if o.ShowRecordID {
		q.showRecordID, q.sc.recordIDs = true, true
	}
	q.sortCfg = db.sortConfig(o)
	if isBucketsColl(c.m()) {
		q.present = db.presentBucket(c.m())
	}
	return q, nil
}

// count returns how many documents match filter, after skip and limit.
func (db *DB) count(ctx context.Context, dbName, name string, filter bson.D, skip, limit int64, hint any) (int64, error) {
	_, _, q, err := db.findPlan(dbName, name, filter, FindOptions{Skip: skip, Limit: limit, Hint: hint, Collation: ctxCollation(ctx), noNear: true, systemViews: true})
	if err != nil || q == nil {
		return 0, err
	}
	if keyCountable(q.sc.p) {
		// The index's keys say which documents match: count them.
		n, ok, err := db.countKeys(ctx, q.sc)
		if err != nil {
			return 0, err
		}
		if ok {
			n = max(n-skip, 0)
			if lim := max(limit, -limit); lim > 0 {
				n = min(n, lim)
			}
			return n, nil
		}
	}
	var n int64
	for {
		docs, err := q.nextBatch(ctx, 4096)
		if err != nil {
			return 0, err
		}
		n += int64(len(docs))
		if q.done {
			return n, nil
		}
	}
}

// sortConfig is how a find's in-memory sort may use disk (FindOptions'
// AllowDiskUse).
func (db *DB) sortConfig(o FindOptions) sortConfig {
	return sortConfig{dir: db.spillDir(), noSpill: o.AllowDiskUse != nil && !*o.AllowDiskUse,
		maxBytes: db.params.int("internalQueryMaxBlockingSortMemoryUsageBytes")}
}

func boolPtr(b bool) *bool { return &b }
