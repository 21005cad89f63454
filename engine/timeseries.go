package engine

import (
	"math"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"github.com/ttlkv/ttlkv/ts"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Time-series collections (docs/timeseries.md §6). A time-series collection is a
// catalog entry of kind kindTimeseries with no records of its own: its
// measurements live, grouped into bucket documents (ts.Bucket.Document),
// as the records of an ordinary internal collection named
// system.buckets.<name>. The time-series entry keeps
//
//	Options: {timeseries: <ts.Options.Listing()>, expireAfterSeconds?: long}
//	Extra:   {bucketsColl: "system.buckets.<name>", outOfRange: bool}
//	Indexes: the user's indexes in the user's form (partial TTL indexes,
//	         secondary indexes on the metaField and timeField)
//
// outOfRange is the persistent 1970/2038 flag of docs/timeseries.md §6.8. The buckets
// collection has an _id index, an index on control.min.<timeField>
// (tsMinTimeIndex) that bucket expiry and time filters scan, and, with a
// metaField, an index on meta (tsMetaIndex). Both keys are fixed for a
// bucket's life, so growing a bucket writes only its record or a delta.
//
// Locking: every change to a time-series collection's buckets, to its
// in-memory bucketer (coll.ext of the time-series coll) and to its
// catalog entry happens under the buckets collection's wmu; catalog
// changes (collMod, createIndexes, dropIndexes) also hold catMu first.

const (
	tsMinTimeIndex = "_ts_control_min_time" // buckets index on control.min.<timeField>
	tsMetaIndex    = "_ts_meta"             // buckets index on meta
	tsBucketsPre   = "system.buckets."
)

// tsMeta is the decoded time-series part of a catalog entry.
type tsMeta struct {
	opts       ts.Options
	expire     int64 // expireAfterSeconds; valid when hasExpire
	hasExpire  bool
	buckets    string // buckets collection name
	outOfRange bool   // held a measurement outside 1970..2038 (§6.8)
}

// tsCreate is the parsed create of a time-series collection
// (createOptions.ext).
type tsCreate struct {
	opts      ts.Options
	expire    int64
	hasExpire bool
}

// tsOptionsDoc renders the catalog (and listCollections) options.
func tsOptionsDoc(o ts.Options, expire int64, hasExpire bool) bson.D {
	d := bson.D{{Key: "timeseries", Value: o.Listing()}}
	if hasExpire {
		d = append(d, bson.E{Key: "expireAfterSeconds", Value: expire})
	}
	return d
}

// decodeTSMeta reads the time-series state of a catalog entry.
func decodeTSMeta(m *catalog.Coll) (*tsMeta, error) {
	tv, _ := get(m.Options, "timeseries")
	o, err := ts.ParseOptions(tv)
	if err != nil {
		return nil, document.Errorf(document.CodeInternalError, "time-series collection %s: bad stored options: %v", m.NS(), err)
	}
	t := &tsMeta{opts: o, buckets: tsBucketsPre + m.Name}
	if v, ok := get(m.Options, "expireAfterSeconds"); ok {
		t.expire, _ = asInt64(v)
		t.hasExpire = true
	}
	if v, ok := get(m.Extra, "bucketsColl"); ok {
		if s, isStr := v.(string); isStr {
			t.buckets = s
		}
	}
	if v, ok := get(m.Extra, "outOfRange"); ok {
		t.outOfRange, _ = v.(bool)
	}
	return t, nil
}

// parseTimeseriesCreate validates a create with a timeseries option
// (docs/timeseries.md §6.1).
func parseTimeseriesCreate(ns string, opts bson.D, has map[string]any, co *createOptions) (*createOptions, error) {
	o, err := ts.ParseOptions(has["timeseries"])
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"capped", "size", "max", "validator", "validationLevel", "validationAction", "idIndex", "clusteredIndex", "viewOn", "pipeline"} {
		v, ok := has[k]
		if !ok {
			continue
		}
		if k == "capped" {
			if b, _ := asBool(v); !b {
				continue
			}
		}
		return nil, document.Errorf(document.CodeInvalidOptions, "%s: 'timeseries' is not allowed with '%s'", ns, k)
	}
	tc := &tsCreate{opts: o}
	if v, ok := has["expireAfterSeconds"]; ok {
		n, err := parseCollExpire("create", v)
		if err != nil {
			return nil, err
		}
		tc.expire, tc.hasExpire = n, true
	}
	co.kind = catalog.KindTimeseries
	co.raw = tsOptionsDoc(o, tc.expire, tc.hasExpire)
	if spec, ok := has["collation"]; ok && spec != nil {
		// The collection's default collation (docs/collation.md): its
		// operations and its indexes take it.
		co.raw = append(co.raw, bson.E{Key: "collation", Value: spec})
	}
	for _, k := range []string{"storageEngine", "indexOptionDefaults"} {
		// Kept and listed as given, as mongod lists them; ttlkv has one
		// storage engine.
		if v, ok := has[k]; ok {
			co.raw = append(co.raw, bson.E{Key: k, Value: v})
		}
	}
	co.ext = tc
	return co, nil
}

// maxCollExpire is the largest collection-level expireAfterSeconds: its
// milliseconds must fit an int64.
const maxCollExpire = math.MaxInt64 / 1000

// parseCollExpire validates a collection-level expireAfterSeconds
// number: a string is 14 TypeMismatch (collMod's "off" is handled by the
// caller), NaN or a negative value 72 InvalidOptions; fractions
// truncate.
func parseCollExpire(cmd string, v any) (int64, error) {
	f, ok := asFloat(v)
	switch v.(type) {
	case int32, int64, float64, bson.Decimal128:
	default:
		ok = false
	}
	if !ok {
		return 0, document.Errorf(document.CodeTypeMismatch, "BSON field '%s.expireAfterSeconds' is the wrong type '%s', expected types '[long, int, decimal, double]'", cmd, typeName(v))
	}
	if math.IsNaN(f) {
		return 0, document.Errorf(document.CodeInvalidOptions, "TTL index 'expireAfterSeconds' option must not be NaN")
	}
	if f < 0 {
		return 0, document.Errorf(document.CodeInvalidOptions, "TTL index 'expireAfterSeconds' option cannot be less than 0, found %s", fmtValue(v))
	}
	if i, isInt := v.(int64); isInt {
		if i > maxCollExpire {
			return 0, document.Errorf(document.CodeInvalidOptions, "'expireAfterSeconds' must be at most %d, found %d", int64(maxCollExpire), i)
		}
		return i, nil
	}
	if math.Trunc(f) > maxCollExpire {
		return 0, document.Errorf(document.CodeInvalidOptions, "'expireAfterSeconds' must be at most %d, found %s", int64(maxCollExpire), fmtValue(v))
	}
	return int64(math.Trunc(f)), nil
}

// bucketsMeta returns the catalog entry of a new buckets collection for
// time-series options o.
func bucketsMeta(dbName, name string, o ts.Options) *catalog.Coll {
	bm := &catalog.Coll{DB: dbName, Name: name, Kind: catalog.KindNormal, Options: bson.D{}, NextIndexID: idIndexID + 1}
	bm.Indexes = []*catalog.Index{idIndex(), {ID: bm.NextIndexID, Name: tsMinTimeIndex,
		Key: bson.D{{Key: "control.min." + o.TimeField, Value: int32(1)}}}}
	bm.NextIndexID++
	if o.MetaField != "" {
		bm.Indexes = append(bm.Indexes, &catalog.Index{ID: bm.NextIndexID, Name: tsMetaIndex, Key: bson.D{{Key: "meta", Value: int32(1)}}})
		bm.NextIndexID++
	}
	return bm
}

// addDefaultTSIndex gives a new time-series collection m with a
// metaField the index mongod (6.3 and later) creates with it,
// {<metaField>: 1, <timeField>: 1} named "<metaField>_1_<timeField>_1",
// and its buckets-collection index in bm. It may be dropped like any
// other (docs/timeseries.md §6.7).
func addDefaultTSIndex(m, bm *catalog.Coll, o ts.Options) error {
	if o.MetaField == "" {
		return nil
	}
	spec := bson.D{
		{Key: "key", Value: bson.D{{Key: o.MetaField, Value: int32(1)}, {Key: o.TimeField, Value: int32(1)}}},
		{Key: "name", Value: o.MetaField + "_1_" + o.TimeField + "_1"},
	}
	probe := &catalog.Coll{DB: m.DB, Name: m.Name, Kind: catalog.KindNormal, Indexes: []*catalog.Index{idIndex()}}
	if c, ok := get(m.Options, "collation"); ok {
		probe.Options = bson.D{{Key: "collation", Value: c}}
	}
	ix, err := parseIndexSpec(probe, spec)
	if err != nil {
		return err
	}
	bk, err := tsIndexKey(o, ix)
	if err != nil {
		return err
	}
	ix.ID = m.NextIndexID
	m.NextIndexID++
	m.Indexes = append(m.Indexes, ix)
	bm.Indexes = append(bm.Indexes, &catalog.Index{ID: bm.NextIndexID, Name: tsIndexPrefix + ix.Name, Key: bk})
	bm.NextIndexID++
	return nil
}

// createTimeseriesLocked creates a time-series collection and its
// buckets collection in one transaction. The caller holds catMu and has
// checked that dbName.name does not exist.
func (db *DB) createTimeseriesLocked(dbName, name string, co *createOptions) (*coll, bool, error) {
	tc, ok := co.ext.(*tsCreate)
	if !ok {
		return nil, false, document.Errorf(document.CodeInternalError, "time-series create without parsed options")
	}
	bname := tsBucketsPre + name
	if err := validateCollName(dbName, bname, true); err != nil {
		return nil, false, err
	}
	// A buckets collection without its time-series collection is left
	// over from a drop a crash interrupted: remove it first.
	if stale := db.lookup(dbName, bname); stale != nil {
		if err := db.dropLocked(stale); err != nil {
			return nil, false, err
		}
	}
	m := &catalog.Coll{DB: dbName, Name: name, Kind: catalog.KindTimeseries, Options: co.raw, NextIndexID: idIndexID + 1,
		Extra: bson.D{{Key: "bucketsColl", Value: bname}, {Key: "outOfRange", Value: false}}}
	bm := bucketsMeta(dbName, bname, tc.opts)
	// The buckets collection has the UUID, as in mongod, where the
	// time-series view has none; events on the time-series namespace
	// (bucket expiry) carry it.
	bm.UUID = catalog.NewUUID()
	m.UUID = bm.UUID
	if err := addDefaultTSIndex(m, bm, tc.opts); err != nil {
		return nil, false, err
	}
	err := db.store.Update(func(txn *lsm.Txn) error {
		id, err := db.allocCollID(txn)
		if err != nil {
			return err
		}
		bid, err := db.allocCollID(txn)
		if err != nil {
			return err
		}
		m.ID, bm.ID = id, bid
		if err := putMeta(txn, bm); err != nil {
			return err
		}
		return putMeta(txn, m)
	})
	if err != nil {
		return nil, false, err
	}
	c := &coll{db: db}
	c.meta.Store(m)
	bc := &coll{db: db}
	bc.meta.Store(bm)
	db.mu.Lock()
	db.colls[m.NS()] = c
	db.colls[bm.NS()] = bc
	db.mu.Unlock()
	return c, true, nil
}

// tsParts returns the decoded state of time-series collection c and its
// buckets collection (nil when it is missing).
func (db *DB) tsParts(c *coll) (*tsMeta, *coll, error) {
	t, err := decodeTSMeta(c.m())
	if err != nil {
		return nil, nil, err
	}
	return t, db.lookup(c.m().DB, t.buckets), nil
}

// dropTimeseriesExt drops the buckets collection of a dropped
// time-series collection. The caller holds catMu.
func (db *DB) dropTimeseriesExt(c *coll) error {
	t, err := decodeTSMeta(c.m())
	if err != nil {
		return err
	}
	bc := db.lookup(c.m().DB, t.buckets)
	if bc == nil || bc.dropped.Load() {
		return nil
	}
	return db.dropLocked(bc)
}

// timeseriesStats counts measurements and bucket bytes for collStats.
func (db *DB) timeseriesStats(c *coll) collStatsInfo {
	st := collStatsInfo{indexSizes: map[string]int64{}}
	t, bc, err := db.tsParts(c)
	if err != nil || bc == nil {
		return st
	}
	_ = db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: lsm.RecordPrefix(bc.m().ID)})
		defer it.Close()
		for it.Next() {
			v, err := it.Value()
			if err != nil {
				return err
			}
			st.size += int64(len(v))
			d, err := document.Unmarshal(v)
			if err != nil {
				continue
			}
			if n, ok := document.Lookup(d, "control.count"); ok {
				k, _ := asInt64(n)
				st.count += k
			}
			if _, rid, ok := lsm.DecodeRecordKey(it.Key()); ok {
				if ds, err := tsReadDeltas(txn, bc.m().ID, rid); err == nil {
					rows, _ := ds.rows(t.opts, nil)
					st.count += int64(len(rows))
					st.size += ds.bytes
				}
			}
		}
		// Each index listed on the collection is kept on the buckets
		// under tsIndexPrefix: its size is that one's, as mongod's
		// collStats gives the buckets collection's index sizes.
		for _, ix := range c.m().Indexes {
			if bix := bc.m().Index(tsIndexPrefix + ix.Name); bix != nil {
				st.indexSizes[ix.Name] = indexKeyBytes(txn, bc.m(), bix)
			}
		}
		return nil
	})
	return st
}

// timeseriesStatsFields is collStats' timeseries sub-document.
func (db *DB) timeseriesStatsFields(c *coll) bson.D {
	_, bc, err := db.tsParts(c)
	if err != nil || bc == nil {
		return nil
	}
	var buckets, bytes int64
	_ = db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: lsm.RecordPrefix(bc.m().ID)})
		defer it.Close()
		for it.Next() {
			v, err := it.Value()
			if err != nil {
				return err
			}
			buckets++
			bytes += int64(len(v))
			if _, rid, ok := lsm.DecodeRecordKey(it.Key()); ok {
				if ds, err := tsReadDeltas(txn, bc.m().ID, rid); err == nil {
					bytes += ds.bytes
				}
			}
		}
		return nil
	})
	sec := bson.D{{Key: "bucketsNs", Value: bc.m().NS()}, {Key: "bucketCount", Value: int32OrLong(buckets)}}
	if buckets > 0 { // as mongod, left out while there is no bucket
		sec = append(sec, bson.E{Key: "avgBucketSize", Value: int32(bytes / buckets)})
	}
	sec = append(sec, c.tsStats.fields()...)
	return bson.D{{Key: "timeseries", Value: sec}}
}

// timeseriesIndexes renders listIndexes for a time-series collection:
// the user's indexes in the user's form (docs/timeseries.md §6.7).
func (db *DB) timeseriesIndexes(c *coll) []bson.D {
	out := []bson.D{}
	for _, ix := range c.m().Indexes {
		out = append(out, listIndexEntry(ix))
	}
	return out
}
