package engine

import (
	"context"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// tmpOutPrefix names the collections $out writes into before it renames
// one over its target; Open drops any a crash left behind, as mongod
// does.
const tmpOutPrefix = "tmp.agg_out."

// outBatch is how many results a $out or $merge reads and writes at a
// time.
const outBatch = 256

// writeOut runs the pipeline behind q to its end and writes every result
// with o, its $out or $merge, to a collection of dbName (or of o.DB).
func (db *DB) writeOut(ctx context.Context, dbName string, o *agg.Out, q *queryExec) error {
	tdb := o.DB
	if tdb == "" {
		tdb = dbName
	}
	if err := validateCollName(tdb, o.Coll, false); err != nil {
		return err
	}
	if o.Timeseries != nil {
		// Checked before the view refusal: mongod's own codes.
		opts, err := db.outTimeseriesOptions(tdb, o)
		if err != nil {
			return err
		}
		return db.runOut(ctx, tdb, o, q, opts)
	}
	if t := db.lookup(tdb, o.Coll); t != nil && t.m().Kind == catalog.KindView {
		return errView(t.m())
	}
	if o.Stage == "$out" {
		if t := db.lookup(tdb, o.Coll); t != nil && t.m().Kind == catalog.KindTimeseries {
			// mongod 7.0.3 and later replace it with an ordinary
			// collection.
			return db.runOut(ctx, tdb, o, q, bson.D{})
		}
		return db.runOut(ctx, tdb, o, q, nil)
	}
	if t := db.lookup(tdb, o.Coll); t != nil && t.m().Kind == catalog.KindTimeseries {
		// mongod 7.0's $merge writes into the time-series view's
		// namespace, which its write path refuses as any view.
		return errView(t.m())
	}
	return db.runMerge(ctx, tdb, o, q)
}

// runOut writes every result into a new collection with the target's
// options and indexes (with opts when not nil: a time-series one, or an
// ordinary one in a time-series collection's place), then renames it
// over the target: the target changes all at once, and not at all if a
// result cannot be written.
func (db *DB) runOut(ctx context.Context, tdb string, o *agg.Out, q *queryExec, opts bson.D) error {
	var indexes []bson.D
	swap := false // a time-series collection is the target or the result
	if t := db.lookup(tdb, o.Coll); t != nil {
		m := t.m()
		if m.Kind == catalog.KindCapped {
			return document.Errorf(document.Code(17152), "namespace '%s.%s' is capped so it can't be used for $out", tdb, o.Coll)
		}
		swap = m.Kind == catalog.KindTimeseries
		if opts == nil || (swap && o.Timeseries != nil) {
			opts = m.Options
			for _, ix := range m.Indexes {
				if ix.ID != idIndexID {
					indexes = append(indexes, listIndexEntry(ix))
				}
			}
		}
	}
	swap = swap || o.Timeseries != nil
	tmp := tmpOutPrefix + bson.NewObjectID().Hex()
	if _, _, err := db.createColl(tdb, tmp, opts); err != nil {
		return err
	}
	fail := func(err error) error {
		if _, derr := db.dropColl(tdb, tmp); derr != nil {
			db.logf("ttlkv: $out could not drop %s.%s: %v", tdb, tmp, derr)
		}
		return err
	}
	if len(indexes) > 0 {
		if _, err := db.createIndexes(ctx, tdb, tmp, indexes); err != nil {
			return fail(err)
		}
	}
	for !q.done {
		docs, err := q.nextBatch(ctx, outBatch)
		if err != nil {
			return fail(err)
		}
		if len(docs) == 0 {
			continue
		}
		in := make([]any, len(docs))
		for i, d := range docs {
			in[i] = d
		}
		_, werrs, err := db.insertDocs(ctx, tdb, tmp, in, true)
		if err != nil {
			return fail(err)
		}
		if len(werrs) > 0 {
			return fail(werrs[0].Err)
		}
	}
	rename := func() error { return db.renameCollection(tdb, tmp, tdb, o.Coll, true) }
	if swap {
		rename = func() error { return db.outSwap(tdb, tmp, o.Coll) }
	}
	if err := rename(); err != nil {
		return fail(err)
	}
	return nil
}

// runMerge writes each result into the target as o's modes say: matched
// by its on fields, replaced, merged, kept, updated by a pipeline or
// refused; inserted, discarded or refused when nothing matches. Writes
// are not undone when a later result fails, as in mongod.
func (db *DB) runMerge(ctx context.Context, tdb string, o *agg.Out, q *queryExec) error {
	on := o.On
	if on == nil {
		on = []string{"_id"}
	}
	onID := false
	for _, f := range on {
		onID = onID || f == "_id"
	}
	if !(len(on) == 1 && onID) && !db.uniqueOn(tdb, o.Coll, on) {
		return document.Errorf(document.Code(51183), "Cannot find index to verify that join fields will be unique")
	}
	now := bson.NewDateTimeFromTime(db.opts.Clock())
	for !q.done {
		docs, err := q.nextBatch(ctx, outBatch)
		if err != nil {
			return err
		}
		if o.WhenMatched == "fail" {
			// whenNotMatched is insert: an insert, refused on a duplicate.
			in := make([]any, len(docs))
			for i, d := range docs {
				in[i] = d
			}
			if len(in) == 0 {
				continue
			}
			_, werrs, err := db.insertDocs(ctx, tdb, o.Coll, in, true)
			if err != nil {
				return err
			}
			if len(werrs) > 0 {
				return werrs[0].Err
			}
			continue
		}
		for _, d := range docs {
			if err := db.mergeOne(ctx, tdb, o, on, onID, d, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// mergeOne merges one result d into the target.
func (db *DB) mergeOne(ctx context.Context, tdb string, o *agg.Out, on []string, onID bool, d bson.D, now bson.DateTime) error {
	if _, has := document.Get(d, "_id"); !has && onID {
		d = append(bson.D{{Key: "_id", Value: bson.NewObjectID()}}, d...)
	}
	filter := make(bson.D, 0, len(on))
	for _, f := range on {
		v, ok := document.Lookup(d, f)
		if _, isArr := v.(bson.A); isArr {
			return document.Errorf(document.Code(51185), "$merge write error: 'on' field '%s' is an array", f)
		}
		if !ok || v == nil || v == (bson.Undefined{}) {
			return document.Errorf(document.Code(51132), "$merge write error: 'on' field '%s' cannot be missing, null, undefined or an array", f)
		}
		filter = append(filter, bson.E{Key: f, Value: bson.D{{Key: "$eq", Value: v}}})
	}
	// The fields of the result other than _id when the filter sets it, so
	// that an update does not name _id twice.
	rest := d
	if onID {
		rest = make(bson.D, 0, len(d))
		for _, e := range d {
			if e.Key != "_id" {
				rest = append(rest, e)
			}
		}
	}
	if o.WhenMatched != "pipeline" && dollarField(rest) {
		// mongod inserts such a result as it is when nothing matches,
		// keeps a match for keepExisting, and refuses the update of a
		// match otherwise (merge_with_dollar_fields.js); an update
		// document cannot carry the field, so look for the match first.
		n, err := db.count(ctx, tdb, o.Coll, filter, 0, 0, nil)
		switch {
		case err != nil:
			return err
		case n == 0:
			return db.mergeUnmatched(ctx, tdb, o, d)
		case o.WhenMatched == "keepExisting":
			return nil
		}
	}
	insert := o.WhenNotMatched == "insert"
	var s UpdateSpec
	switch o.WhenMatched {
	case "replace":
		s = UpdateSpec{Filter: filter, Update: d, Upsert: insert}
	case "merge":
		s = UpdateSpec{Filter: filter, Update: bson.D{{Key: "$set", Value: rest}}, Upsert: insert}
	case "keepExisting":
		s = UpdateSpec{Filter: filter, Update: bson.D{{Key: "$setOnInsert", Value: rest}}, Upsert: true}
	case "pipeline":
		vars, err := o.Vars(d, now)
		if err != nil {
			return err
		}
		s = UpdateSpec{Filter: filter, Pipeline: o.Pipeline, vars: vars}
	}
	if (o.WhenMatched == "merge" || o.WhenMatched == "keepExisting") && len(rest) == 0 {
		// Nothing to set ($set: {} is refused): a match stays as it is,
		// and no match is handled below.
		n, err := db.count(ctx, tdb, o.Coll, filter, 0, 0, nil)
		if err != nil || n > 0 {
			return err
		}
		return db.mergeUnmatched(ctx, tdb, o, d)
	}
	res, err := db.updateDocs(ctx, tdb, o.Coll, s)
	if err != nil {
		return err
	}
	if res.MatchedCount > 0 || res.UpsertedCount > 0 {
		return nil
	}
	return db.mergeUnmatched(ctx, tdb, o, d)
}

// dollarField reports whether d has a top-level field whose name starts
// with '$', which no update operator can set.
func dollarField(d bson.D) bool {
	for _, e := range d {
		if strings.HasPrefix(e.Key, "$") {
			return true
		}
	}
	return false
}

// mergeUnmatched handles a result that matched nothing: refused,
// inserted as it is (a pipeline's output over the filter is not what
// mongod inserts), or dropped.
func (db *DB) mergeUnmatched(ctx context.Context, tdb string, o *agg.Out, d bson.D) error {
	switch o.WhenNotMatched {
	case "fail":
		return document.Errorf(document.CodeMergeStageNoMatchingDocument, "$merge could not find a matching document in the target collection for at least one document in the source collection")
	case "insert":
		_, werrs, err := db.insertDocs(ctx, tdb, o.Coll, []any{d}, true)
		if err != nil {
			return err
		}
		if len(werrs) > 0 {
			return werrs[0].Err
		}
	}
	return nil
}

// uniqueOn reports whether tdb.name has a unique index, without a
// partial filter, on exactly the fields on (in any order and direction),
// which $merge needs to match by fields other than _id.
func (db *DB) uniqueOn(tdb, name string, on []string) bool {
	c := db.lookup(tdb, name)
	if c == nil {
		return false
	}
	want := map[string]bool{}
	for _, f := range on {
		want[f] = true
	}
	for _, ix := range c.m().Indexes {
		if !(ix.Unique || ix.ID == idIndexID) || ix.Partial != nil || len(ix.Key) != len(want) {
			continue
		}
		all := true
		for _, k := range ix.Key {
			all = all && want[k.Key]
		}
		if all {
			return true
		}
	}
	return false
}
