package engine

import (
	"context"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/ts"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// tsIndexPrefix prefixes the name of the buckets-collection index that
// serves a user's secondary index on a time-series collection.
const tsIndexPrefix = "_ts_ix_"

// tsInternalIndex reports whether ix is one of the indexes ttlkv keeps
// on every buckets collection to find buckets (_id, control.min time,
// meta), which mongod's clustered buckets collection has not.
func tsInternalIndex(ix *catalog.Index) bool {
	return ix.ID == idIndexID || ix.Name == tsMinTimeIndex || ix.Name == tsMetaIndex
}

// tsIndexKey checks one index spec for a time-series collection (docs/timeseries.md
// §6.7) and returns the key of the buckets-collection index that serves
// it (nil for a partial TTL index, which bucket expiry serves through
// the control.min index).
func tsIndexKey(o ts.Options, ix *catalog.Index) (bson.D, error) {
	if ix.PrepareUnique {
		return nil, document.Errorf(document.CodeCannotCreateIndex, "prepareUnique is not supported by ttlkv on a time-series collection")
	}
	if ix.TTL {
		if ix.Key[0].Key != o.TimeField {
			return nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes on time-series collections are only supported on the timeField '%s', not on '%s'", o.TimeField, ix.Key[0].Key)
		}
		if ix.Partial == nil || o.MetaField == "" {
			return nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes on time-series collections require a partialFilterExpression on the metaField")
		}
		if !tsOnlyMeta(o, ix.Partial) {
			return nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes on time-series collections require a partialFilterExpression on the metaField '%s' only, got %s", o.MetaField, fmtValue(ix.Partial))
		}
		return nil, nil
	}
	if ix.Unique {
		return nil, document.Errorf(document.CodeInvalidOptions, "Unique indexes are not supported on time-series collections")
	}
	if isTextKey(ix.Key) {
		return nil, document.Errorf(document.CodeInvalidOptions, "Text indexes are not supported on time-series collections")
	}
	if indexkey.IsGeo(ix.Key) {
		return nil, document.Errorf(document.CodeCannotCreateIndex, "geospatial indexes are not supported by ttlkv on a time-series collection (key %s)", fmtValue(ix.Key))
	}
	if ix.Partial != nil && !tsOnlyMeta(o, ix.Partial) {
		return nil, document.Errorf(document.CodeCannotCreateIndex, "ttlkv supports a partialFilterExpression on a time-series collection only on the metaField (or for a TTL index on the timeField)")
	}
	var key bson.D
	for _, f := range ix.Key {
		switch {
		case o.MetaField != "" && (f.Key == o.MetaField || strings.HasPrefix(f.Key, o.MetaField+".")):
			key = append(key, bson.E{Key: "meta" + f.Key[len(o.MetaField):], Value: f.Value})
		case f.Key == o.TimeField:
			key = append(key, bson.E{Key: "control.min." + o.TimeField, Value: f.Value})
		case f.Key == "_id" || !document.IsNumber(f.Value):
			return nil, document.Errorf(document.CodeCannotCreateIndex, "ttlkv supports secondary indexes on a time-series collection on the metaField, the timeField and measurement fields in ascending or descending order; '%s' is not one", f.Key)
		case document.Compare(f.Value, int32(0)) < 0:
			// A measurement: its buckets' bounds, as mongod converts
			// it (descending: the max first).
			key = append(key, bson.E{Key: "control.max." + f.Key, Value: f.Value}, bson.E{Key: "control.min." + f.Key, Value: f.Value})
		default:
			key = append(key, bson.E{Key: "control.min." + f.Key, Value: f.Value}, bson.E{Key: "control.max." + f.Key, Value: f.Value})
		}
	}
	return key, nil
}

// tsOnlyMeta reports whether filter f references only the metaField.
func tsOnlyMeta(o ts.Options, f bson.D) bool {
	if len(f) == 0 {
		return false
	}
	for _, e := range f {
		switch {
		case e.Key == "$and" || e.Key == "$or" || e.Key == "$nor":
			arr, ok := e.Value.(bson.A)
			if !ok {
				return false
			}
			for _, x := range arr {
				d, ok := x.(bson.D)
				if !ok || !tsOnlyMeta(o, d) {
					return false
				}
			}
		case e.Key == o.MetaField || strings.HasPrefix(e.Key, o.MetaField+"."):
		default:
			return false
		}
	}
	return true
}

// createTimeseriesIndexes creates indexes on a time-series collection
// (docs/timeseries.md §6.7): a partial TTL index on the timeField filtered on the
// metaField, or a secondary index on metaField and timeField paths,
// served by an index on the buckets collection. One bad spec creates
// none.
func (db *DB) createTimeseriesIndexes(ctx context.Context, c *coll, specs []bson.D) (*CreateIndexesResult, error) {
	t, err := decodeTSMeta(c.m())
	if err != nil {
		return nil, err
	}
	// The probe carries the collection's default collation, which an
	// index without its own takes (docs/collation.md).
	probe := &catalog.Coll{DB: c.m().DB, Name: c.m().Name, Kind: catalog.KindNormal, Indexes: []*catalog.Index{idIndex()}}
	if spec, ok := get(c.m().Options, "collation"); ok {
		probe.Options = bson.D{{Key: "collation", Value: spec}}
	}
	parsed := make([]*catalog.Index, 0, len(specs))
	keys := make([]bson.D, 0, len(specs))
	for _, s := range specs {
		ix, err := parseIndexSpec(probe, s)
		if err != nil {
			return nil, err
		}
		if indexkey.IsWildcard(ix.Key) {
			return nil, document.Errorf(document.CodeCannotCreateIndex, "wildcard indexes on a time-series collection are not supported by ttlkv (key %s)", fmtValue(ix.Key))
		}
		bk, err := tsIndexKey(t.opts, ix)
		if err != nil {
			return nil, err
		}
		parsed, keys = append(parsed, ix), append(keys, bk)
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	if c.dropped.Load() {
		return nil, errDropped
	}
	_, bc, err := db.tsParts(c)
	if err != nil {
		return nil, err
	}
	if bc == nil {
		return nil, document.Errorf(document.CodeNamespaceNotFound, "the buckets collection of %s is missing", c.m().NS())
	}
	bc.wmu.Lock()
	defer bc.wmu.Unlock()
	m := c.m()
	res := &CreateIndexesResult{NumIndexesBefore: len(m.Indexes)}
	pos, err := newIndexes(m, parsed, specs)
	if err != nil {
		return nil, err
	}
	todo, todoKeys := make([]*catalog.Index, len(pos)), make([]bson.D, len(pos))
	for j, i := range pos {
		todo[j], todoKeys[j] = parsed[i], keys[i]
	}
	if len(todo) == 0 {
		res.NumIndexesAfter = res.NumIndexesBefore
		res.Note = "all indexes already exist"
		return res, nil
	}
	// Buckets-collection indexes for the secondary indexes.
	bm := bc.m()
	nbm := bm.Clone()
	var bixs []*catalog.Index
	for i, ix := range todo {
		if todoKeys[i] == nil {
			continue
		}
		bix := &catalog.Index{ID: nbm.NextIndexID, Name: tsIndexPrefix + ix.Name, Key: todoKeys[i], Sparse: ix.Sparse, Hidden: ix.Hidden, NullRules7: true}
		if ix.Partial != nil {
			// A filter on the metaField holds for a bucket's every
			// measurement or none: the bucket index keeps the buckets
			// whose meta passes it.
			bix.Partial = tsBucketFilter(t.opts, ix.Partial, false)
			f, err := query.ParseFilter(bix.Partial)
			if err != nil {
				return nil, err
			}
			bix.PartialFilter = f
		}
		bixs = append(bixs, bix)
		nbm.NextIndexID++
	}
	if len(bixs) > 0 && tsMutableIndexes(&catalog.Coll{Indexes: bixs}, t.opts) {
		// An index on a measurement keys on its buckets' bounds, which
		// move as a bucket grows: no bucket may keep deltas from now on
		// (tsMutableIndexes).
		if err := db.tsFoldAllDeltas(ctx, bc); err != nil {
			return nil, err
		}
	}
	if len(bixs) > 0 {
		if err := db.reserveIndexes(bc, nbm, bixs); err != nil {
			return nil, err
		}
		if err := db.buildIndexes(ctx, bc, nbm, bixs); err != nil {
			db.dropIndexData(nbm.ID, bixs)
			return nil, err
		}
		if _, err := db.publishIndexes(bc, nbm, bixs, false); err != nil { // buckets: no events
			return nil, err
		}
		now := time.Now()
		for _, bix := range bixs {
			db.noteIndexCreated(nbm.ID, bix.Name, now) // $indexStats' since
		}
	}
	nm := m.Clone()
	for _, ix := range todo {
		ix.ID = nm.NextIndexID
		nm.NextIndexID++
		nm.Indexes = append(nm.Indexes, ix)
		res.Names = append(res.Names, ix.Name)
	}
	if err := db.updateMeta(c, nm, nil); err != nil {
		return nil, err
	}
	res.NumIndexesAfter = len(nm.Indexes)
	if len(todo) < len(specs) {
		res.Note = "index already exists"
	}
	return res, nil
}

// dropTimeseriesIndexes drops user indexes of a time-series collection
// and the buckets-collection indexes serving them. The caller holds
// catMu. It returns the number of indexes before.
func (db *DB) dropTimeseriesIndexes(c *coll, which any) (int, error) {
	_, bc, err := db.tsParts(c)
	if err != nil {
		return 0, err
	}
	if bc != nil {
		bc.wmu.Lock()
		defer bc.wmu.Unlock()
	}
	m := c.m()
	drop, err := indexesToDrop(m, which)
	if err != nil {
		return 0, err
	}
	nm := m.Clone()
	kept := nm.Indexes[:0]
	for _, ix := range nm.Indexes {
		if !containsID(drop, ix.ID) {
			kept = append(kept, ix)
		}
	}
	nm.Indexes = kept
	if err := db.updateMeta(c, nm, nil); err != nil {
		return 0, err
	}
	if bc == nil {
		return len(m.Indexes), nil
	}
	bm := bc.m()
	var bdrop []*catalog.Index
	for _, ix := range drop {
		if bix := bm.Index(tsIndexPrefix + ix.Name); bix != nil {
			bdrop = append(bdrop, bix)
		}
	}
	if len(bdrop) > 0 {
		if err := db.removeIndexes(bc, bdrop); err != nil {
			return 0, err
		}
	}
	return len(m.Indexes), nil
}

// tsBucketsKey is the key mongod 7.0 gives, on the buckets collection,
// to the index with key k of a time-series collection with options o
// (its createBucketsSpecFromTimeseriesSpec): the metaField (or a path
// under it) becomes meta, the timeField and each measurement the pair
// of their control.min and control.max bounds (the max first when
// descending). A TTL index keys on control.min of the timeField alone.
// ttlkv's own index may key differently (tsIndexKey): this is what a
// user is shown.
func tsBucketsKey(o ts.Options, ix *catalog.Index) bson.D {
	var key bson.D
	for _, f := range ix.Key {
		switch {
		case o.MetaField != "" && (f.Key == o.MetaField || strings.HasPrefix(f.Key, o.MetaField+".")):
			key = append(key, bson.E{Key: "meta" + f.Key[len(o.MetaField):], Value: f.Value})
		case ix.TTL && f.Key == o.TimeField:
			key = append(key, bson.E{Key: "control.min." + f.Key, Value: f.Value})
		case document.IsNumber(f.Value) && document.Compare(f.Value, int32(0)) < 0:
			key = append(key, bson.E{Key: "control.max." + f.Key, Value: f.Value}, bson.E{Key: "control.min." + f.Key, Value: f.Value})
		default:
			key = append(key, bson.E{Key: "control.min." + f.Key, Value: f.Value}, bson.E{Key: "control.max." + f.Key, Value: f.Value})
		}
	}
	return key
}

// bucketsIndex is one index of a buckets collection as a user sees it:
// its listIndexes entry and the ttlkv index holding its keys (nil for
// a TTL index, which bucket expiry serves without one of its own).
type bucketsIndex struct {
	name   string
	spec   bson.D
	served *catalog.Index
}

// tsBucketsIndexes lists the indexes of the buckets collection bc of
// time-series collection tc as mongod 7.0 lists them: the buckets
// collection is clustered on _id, which listIndexes leaves out, and
// holds the time-series collection's indexes under their names, keyed
// as tsBucketsKey says, a partialFilterExpression in its bucket form,
// and an index on a measurement or with a partialFilterExpression
// carrying the user's spec as originalSpec (mongod's
// makeTimeseriesCreateIndexesCommand). Indexes made directly on the
// buckets collection follow as they are; ttlkv's own (_id, control.min
// time, meta) are not shown.
func (db *DB) tsBucketsIndexes(tc, bc *coll) []bucketsIndex {
	t, err := decodeTSMeta(tc.m())
	if err != nil {
		return nil
	}
	o := t.opts
	bm := bc.m()
	var out []bucketsIndex
	for _, ix := range tc.m().Indexes {
		bix := *ix
		bix.Key = tsBucketsKey(o, ix)
		if ix.Partial != nil {
			bix.Partial = tsBucketFilter(o, ix.Partial, false)
		}
		spec := listIndexEntry(&bix)
		if ix.Partial != nil || tsMeasurementKey(o, ix.Key) {
			spec = append(spec, bson.E{Key: "originalSpec", Value: listIndexEntry(ix)})
		}
		out = append(out, bucketsIndex{name: ix.Name, spec: spec, served: bm.Index(tsIndexPrefix + ix.Name)})
	}
	for _, ix := range bm.Indexes {
		if tsInternalIndex(ix) || strings.HasPrefix(ix.Name, tsIndexPrefix) {
			continue
		}
		out = append(out, bucketsIndex{name: ix.Name, spec: listIndexEntry(ix), served: ix})
	}
	return out
}

// tsMeasurementKey reports whether key k names a field other than the
// timeField and the metaField (or paths under it).
func tsMeasurementKey(o ts.Options, k bson.D) bool {
	for _, f := range k {
		if f.Key != o.TimeField && (o.MetaField == "" || f.Key != o.MetaField && !strings.HasPrefix(f.Key, o.MetaField+".")) {
			return true
		}
	}
	return false
}

// tsBucketsHint resolves a hint on a buckets collection m that names
// one of its indexes as listIndexes shows it (tsBucketsIndexes): by the
// time-series index's name, or by its key in mongod's bucket form. It
// returns the ttlkv index holding that index's keys, nil when there is
// none (not a buckets collection, no such index, a hidden one).
func tsBucketsHint(m *catalog.Coll, hint any) *catalog.Index {
	if !strings.HasPrefix(m.Name, tsBucketsPre) {
		return nil
	}
	for _, ix := range m.Indexes {
		if ix.Hidden || !strings.HasPrefix(ix.Name, tsIndexPrefix) {
			continue
		}
		switch h := hint.(type) {
		case string:
			if ix.Name == tsIndexPrefix+h {
				return ix
			}
		case bson.D:
			if document.Equal(tsShownKey(ix.Key), h) {
				return ix
			}
		}
	}
	return nil
}

// tsShownKey is the key of ttlkv's buckets index k (tsIndexKey) as
// mongod keys it (tsBucketsKey): the timeField, which k keys on its
// control.min alone, on its control.min and control.max (max first
// when descending). A measurement's bounds come in such a pair already.
func tsShownKey(k bson.D) bson.D {
	out := make(bson.D, 0, len(k)+1)
	for i := 0; i < len(k); i++ {
		f := k[i]
		rest, isMin := strings.CutPrefix(f.Key, "control.min.")
		_, isMax := strings.CutPrefix(f.Key, "control.max.")
		if isMax || !isMin {
			out = append(out, f)
			if isMax && i+1 < len(k) {
				out = append(out, k[i+1]) // its control.min
				i++
			}
			continue
		}
		if i+1 < len(k) && k[i+1].Key == "control.max."+rest {
			out = append(out, f, k[i+1])
			i++
			continue
		}
		maxE := bson.E{Key: "control.max." + rest, Value: f.Value}
		if document.IsNumber(f.Value) && document.Compare(f.Value, int32(0)) < 0 {
			out = append(out, maxE, f)
		} else {
			out = append(out, f, maxE)
		}
	}
	return out
}

// dropBucketsIndexes runs dropIndexes on the buckets collection bc of
// time-series collection tc over the indexes listIndexes shows there
// (tsBucketsIndexes), as mongod drops them from its buckets collection:
// by name, by key in bucket form, or "*" for all. A time-series index
// dropped there is gone from tc too; ttlkv's own indexes are not
// reachable. It returns the number of indexes before. The caller holds
// catMu.
func (db *DB) dropBucketsIndexes(tc, bc *coll, which any) (int, error) {
	shown := db.tsBucketsIndexes(tc, bc)
	// The shown indexes as a catalog entry, for indexesToDrop's rules
	// and messages; an index's ID is its position plus one past _id's.
	probe := &catalog.Coll{DB: bc.m().DB, Name: bc.m().Name}
	for i, bi := range shown {
		k, _ := get(bi.spec, "key")
		kd, _ := k.(bson.D)
		probe.Indexes = append(probe.Indexes, &catalog.Index{ID: idIndexID + 1 + uint64(i), Name: bi.name, Key: kd})
	}
	drop, err := indexesToDrop(probe, which)
	if err != nil {
		return 0, err
	}
	var user bson.A
	var own []*catalog.Index
	for _, ix := range drop {
		bi := shown[ix.ID-idIndexID-1]
		if bi.served != nil && bi.served.Name == bi.name {
			own = append(own, bi.served) // made on the buckets collection
		} else {
			user = append(user, bi.name)
		}
	}
	if len(user) > 0 {
		if _, err := db.dropTimeseriesIndexes(tc, user); err != nil {
			return 0, err
		}
	}
	if len(own) > 0 {
		bc.wmu.Lock()
		defer bc.wmu.Unlock()
		if err := db.removeIndexes(bc, own); err != nil {
			return 0, err
		}
	}
	return len(shown), nil
}

// tsOwnIndex reports whether ix is one of the indexes ttlkv keeps on
// buckets collection m to find buckets by min time or meta, which
// mongod's buckets collection has not and a user cannot list.
func tsOwnIndex(m *catalog.Coll, ix *catalog.Index) bool {
	return strings.HasPrefix(m.Name, tsBucketsPre) && (ix.Name == tsMinTimeIndex || ix.Name == tsMetaIndex)
}

// tsShownIXSCAN rewrites the IXSCAN stage d of plan p over a buckets
// collection's index serving a time-series index (_ts_ix_<name>) as
// mongod 7.0 explains its scan of that index: the user's name and the
// key listIndexes shows on the buckets (tsShownKey), a field ttlkv's
// key lacks (the time's control.max) bounded by all values and never
// multikey. Any other stage is returned as it is.
func tsShownIXSCAN(p *plan, d bson.D) bson.D {
	if p.m == nil || !strings.HasPrefix(p.m.Name, tsBucketsPre) || !strings.HasPrefix(p.ix.Name, tsIndexPrefix) {
		return d
	}
	shown := tsShownKey(p.ix.Key)
	rekey := func(v any, missing func(f bson.E) any) bson.D {
		in, _ := v.(bson.D)
		out := make(bson.D, 0, len(shown))
		for _, f := range shown {
			x, ok := get(in, f.Key)
			if !ok {
				x = missing(f)
			}
			out = append(out, bson.E{Key: f.Key, Value: x})
		}
		return out
	}
	out := make(bson.D, 0, len(d))
	for _, e := range d {
		switch e.Key {
		case "keyPattern":
			e.Value = shown
		case "indexName":
			e.Value = strings.TrimPrefix(p.ix.Name, tsIndexPrefix)
		case "multiKeyPaths":
			e.Value = rekey(e.Value, func(bson.E) any { return bson.A{} })
		case "indexBounds":
			if _, ok := e.Value.(bson.D); ok {
				// All values, in the order the scan reads them.
				e.Value = rekey(e.Value, func(f bson.E) any {
					desc := document.IsNumber(f.Value) && document.Compare(f.Value, int32(0)) < 0
					if desc != p.reverse {
						return bson.A{"[MaxKey, MinKey]"}
					}
					return bson.A{"[MinKey, MaxKey]"}
				})
			}
		}
		out = append(out, e)
	}
	return out
}
