package engine

import (
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"github.com/ttlkv/ttlkv/ts"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $out into a time-series collection (docs/aggregation.md, "$out"), as
// mongod 7.0.3 and later: {$out: {db, coll, timeseries: {...}}} fills a
// new time-series collection with the results and puts it in the
// target's place at once, and a plain $out over a time-series
// collection replaces it with an ordinary one.

// outTimeseriesOptions checks a $out's timeseries option against its
// target tdb.name as mongod's DocumentSourceOut::validateTimeseries
// does, and returns the create options of the collection the results
// go into: the target's own when it is a time-series collection (its
// expireAfterSeconds and collation kept), else the option's.
func (db *DB) outTimeseriesOptions(tdb string, o *agg.Out) (bson.D, error) {
	spec, err := ts.ParseOptions(o.Timeseries)
	if err != nil {
		var e *document.Error
		if asDocError(err, &e) {
			// The option's fields are $out's, not create's.
			e.Message = strings.Replace(e.Message, "'create.timeseries", "'$out.timeseries", 1)
		}
		return nil, err
	}
	t := db.lookup(tdb, o.Coll)
	if t == nil {
		return bson.D{{Key: "timeseries", Value: o.Timeseries}}, nil
	}
	switch m := t.m(); m.Kind {
	case catalog.KindTimeseries:
		have, err := decodeTSMeta(m)
		if err != nil {
			return nil, err
		}
		if spec.TimeField != have.opts.TimeField {
			return nil, document.Errorf(document.Code(7268701), "Time field inputted does not match the time field of the existing time-series collection.")
		}
		if spec.MetaField != "" && spec.MetaField != have.opts.MetaField {
			// mongod's words, "time field" included.
			return nil, document.Errorf(document.Code(7268702), "Meta field inputted does not match the time field of the existing time-series collection.")
		}
		return m.Options, nil
	case catalog.KindView:
		return nil, document.Errorf(document.Code(7268703), "Cannot create a time-series collection from a non time-series view.")
	default:
		return nil, document.Errorf(document.Code(7268700), "Cannot create a time-series collection from a non time-series collection.")
	}
}

// asDocError reports whether err is a *document.Error, setting *e.
func asDocError(err error, e **document.Error) bool {
	de, ok := err.(*document.Error)
	if ok {
		*e = de
	}
	return ok
}

// outSwap puts tdb.tmp, which a $out filled, in the place of tdb.name
// when either is a time-series collection (renameCollection takes
// neither): in one transaction the target and its buckets are dropped
// and tmp and its buckets renamed, with the one rename event an
// ordinary $out logs.
func (db *DB) outSwap(tdb, tmp, name string) error {
	if err := db.checkWritable(); err != nil {
		return err
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	src := db.lookup(tdb, tmp)
	if src == nil {
		return document.Errorf(document.CodeNamespaceNotFound, "Source collection %s.%s does not exist", tdb, tmp)
	}
	type move struct {
		c    *coll
		to   *catalog.Coll
		from *catalog.Coll
	}
	rename := func(c *coll, to string) move {
		nm := c.m().Clone()
		nm.Name = to
		if nm.Kind == catalog.KindTimeseries {
			nm.Extra = setField(nm.Extra, "bucketsColl", tsBucketsPre+to)
		}
		return move{c: c, to: nm, from: c.m()}
	}
	moves := []move{rename(src, name)}
	if src.m().Kind == catalog.KindTimeseries {
		if b := db.lookup(tdb, tsBucketsPre+tmp); b != nil {
			moves = append(moves, rename(b, tsBucketsPre+name))
		}
	}
	var drops []*coll
	if t := db.lookup(tdb, name); t != nil {
		drops = append(drops, t)
		if t.m().Kind == catalog.KindTimeseries {
			if _, b, err := db.tsParts(t); err == nil && b != nil {
				drops = append(drops, b)
			}
		}
	}
	for _, d := range drops {
		if k := d.m().Kind; k == catalog.KindView || k == catalog.KindCapped {
			return document.Errorf(document.CodeNamespaceExists, "a view already exists with that name: %s", d.m().NS())
		}
	}
	for _, c := range drops {
		c.wmu.Lock()
		defer c.wmu.Unlock()
	}
	for _, mv := range moves {
		mv.c.wmu.Lock()
		defer mv.c.wmu.Unlock()
	}
	err := db.store.Update(func(txn *lsm.Txn) error {
		for _, d := range drops {
			if err := txn.Delete(lsk(d.m())); err != nil {
				return err
			}
			if err := txn.Set(pendingDropKey(d.m().ID), nil); err != nil {
				return err
			}
		}
		for _, mv := range moves {
			if err := txn.Delete(lsk(mv.from)); err != nil {
				return err
			}
		}
		var target *catalog.Coll // what the rename drops in its place
		if len(drops) > 0 {
			target = drops[0].m()
		}
		if err := db.noteRename(txn, moves[0].from, tdb, name, target); err != nil {
			return err
		}
		for _, mv := range moves {
			if err := putMeta(txn, mv.to); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range drops {
		m := d.m()
		d.dropped.Store(true)
		db.ttl.ForgetColl(m.ID)
		db.top.forget(m.NS())
		db.forgetIndexUse(m.ID)
		db.mu.Lock()
		delete(db.colls, m.NS())
		db.mu.Unlock()
		db.cursors.killColl(d)
	}
	for _, mv := range moves {
		db.top.forget(mv.from.NS())
		mv.c.meta.Store(mv.to)
		if mv.to.Kind == catalog.KindTimeseries {
			mv.c.ext = nil // the bucketer opens again under the new names
		}
		db.mu.Lock()
		delete(db.colls, mv.from.NS())
		db.colls[mv.to.NS()] = mv.c
		db.mu.Unlock()
		db.cursors.killCollWith(mv.c, document.Errorf(document.CodeQueryPlanKilled, "collection renamed from '%s' to '%s'", mv.from.NS(), mv.to.NS()))
	}
	for _, d := range drops {
		if err := db.finishDrop(d.m().ID); err != nil {
			return err
		}
	}
	return nil
}

// setField returns d with field k set to v, replaced in place or
// appended.
func setField(d bson.D, k string, v any) bson.D {
	out := append(bson.D{}, d...)
	for i, e := range out {
		if e.Key == k {
			out[i].Value = v
			return out
		}
	}
	return append(out, bson.E{Key: k, Value: v})
}
