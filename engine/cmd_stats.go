package engine

import (
	"context"
	"maps"
	"math"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdCollStats runs the collStats command.
func cmdCollStats(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	scale, err := statsScale(cmd)
	if err != nil {
		return nil, err
	}
	c := db.lookup(dbName, name)
	if n, sz, isz, ok := db.catalogStats(dbName, name); c == nil && ok {
		return catalogStatsDoc(dbName+"."+name, n, sz, isz, scale), nil
	}
	if c == nil {
		// As mongod's collStats command (not $collStats): a collection
		// that does not exist has zeros.
		return bson.D{{Key: "ns", Value: dbName + "." + name}, {Key: "size", Value: int32(0)}, {Key: "count", Value: int32(0)},
			{Key: "storageSize", Value: int32(0)}, {Key: "totalSize", Value: int32(0)}, {Key: "nindexes", Value: int32(0)},
			{Key: "totalIndexSize", Value: int32(0)}, {Key: "indexSizes", Value: bson.D{}}, {Key: "scaleFactor", Value: int32(scale)}}, nil
	}
	if c.m().Kind == catalog.KindView {
		return nil, errView(c.m())
	}
	return db.collStatsDoc(c, scale), nil
}

// collStatsDoc is collStats's reply; every size is divided by scale (the
// averages are not), as MongoDB's storage_stats.cpp does.
func (db *DB) collStatsDoc(c *coll, scale int64) bson.D {
	m := c.m()
	st := db.collStats(c)
	sizes := bson.D{}
	var total int64
	names := db.statsIndexNames(c, st)
	for _, n := range names {
		sizes = append(sizes, bson.E{Key: n, Value: int32OrLong(st.indexSizes[n] / scale)})
		total += st.indexSizes[n]
	}
	var avg int64
	if st.count > 0 {
		avg = st.size / st.count
	}
	// As MongoDB's collStats (src/mongo/db/stats/storage_stats.cpp):
	// count, size, storageSize, totalIndexSize and indexSizes through
	// appendNumber; avgObjSize and nindexes are ints.
	// A time-series collection has no count nor avgObjSize: its
	// timeseries section (bucketCount, avgBucketSize) stands where they
	// stand for any other collection.
	d := bson.D{{Key: "ns", Value: m.NS()}}
	if m.Kind == catalog.KindTimeseries {
		d = append(d, bson.E{Key: "size", Value: int32OrLong(st.size / scale)})
		d = append(d, db.timeseriesStatsFields(c)...)
	} else {
		d = append(d, bson.E{Key: "count", Value: int32OrLong(st.count)}, bson.E{Key: "size", Value: int32OrLong(st.size / scale)})
		if st.count > 0 { // mongod leaves it out of an empty collection's
			d = append(d, bson.E{Key: "avgObjSize", Value: int32(avg)})
		}
	}
	d = append(d, bson.E{Key: "storageSize", Value: int32OrLong(st.size / scale)},
		bson.E{Key: "nindexes", Value: int32(len(names))}, bson.E{Key: "totalIndexSize", Value: int32OrLong(total / scale)},
		bson.E{Key: "indexSizes", Value: sizes}, bson.E{Key: "capped", Value: m.Kind == catalog.KindCapped})
	if m.Kind != catalog.KindTimeseries {
		d = append(d, db.specialStatsFields(c, scale)...)
	}
	return append(d, bson.E{Key: "totalSize", Value: int32OrLong((st.size + total) / scale)},
		bson.E{Key: "scaleFactor", Value: int32(scale)})
}

// cmdDBStats runs the dbStats command.
func cmdDBStats(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	scale := int64(1)
	if v, ok := get(cmd, "scale"); ok {
		f, isNum := asFloat(v)
		switch {
		case !isNum:
			return nil, document.Errorf(document.CodeTypeMismatch, "scale has to be a number, not %s", typeName(v))
		case math.IsNaN(f) || f <= 0:
			return nil, document.Errorf(document.CodeBadValue, "Scale factor must be greater than zero")
		}
		scale = int64(max(f, 1))
	}
	var objects, size, indexSize int64
	colls, views := 0, 0
	indexes := 0
	for _, c := range db.collsOf(dbName) {
		if k := c.m().Kind; k == catalog.KindView || k == catalog.KindTimeseries {
			// A time-series collection is a view over its buckets
			// collection, which is counted on its own.
			views++
			continue
		}
		st := db.collStats(c)
		objects += st.count
		size += st.size
		// A buckets collection counts the indexes listIndexes shows
		// on it (statsIndexNames).
		for _, n := range db.statsIndexNames(c, st) {
			indexSize += st.indexSizes[n]
			indexes++
		}
		colls++
	}
	for _, name := range db.catalogNames(dbName) {
		// system.views and admin.system.version are collections, with
		// their documents and _id index.
		n, sz, isz, _ := db.catalogStats(dbName, name)
		colls++
		objects += n
		size += sz
		indexes++
		indexSize += isz
	}
	// mongod 7.0's reply is the IDL struct DBStats
	// (src/mongo/db/dbcommands.idl): the counts and scaleFactor are
	// 64-bit integers, the sizes doubles (a size / scale may have a
	// fraction), the same for a database that does not exist.
	avg := 0.0
	if objects > 0 {
		avg = float64(size) / float64(objects)
	}
	scaled := func(n int64) float64 { return float64(n) / float64(scale) }
	out := bson.D{{Key: "db", Value: dbName}, {Key: "collections", Value: int64(colls)}, {Key: "views", Value: int64(views)}, {Key: "objects", Value: objects},
		{Key: "avgObjSize", Value: avg}, {Key: "dataSize", Value: scaled(size)}, {Key: "storageSize", Value: scaled(size)},
		{Key: "indexes", Value: int64(indexes)}, {Key: "indexSize", Value: scaled(indexSize)},
		{Key: "totalSize", Value: scaled(size + indexSize)}, {Key: "scaleFactor", Value: scale}}
	if v, ok := get(cmd, "freeStorage"); ok && truthy(v) {
		// Badger reclaims space in compactions; nothing is held free.
		out = append(out, bson.E{Key: "freeStorageSize", Value: 0.0}, bson.E{Key: "indexFreeStorageSize", Value: 0.0},
			bson.E{Key: "totalFreeStorageSize", Value: 0.0})
	}
	return out, nil
}

// statsIndexNames returns the names of the indexes collStats and
// dbStats count on c, in listIndexes' order, and puts the size of each
// in st.indexSizes under that name. A buckets collection's are those
// listIndexes shows (tsBucketsIndexes): mongod's is clustered, with
// only the time-series collection's indexes, and ttlkv's own (_id,
// control.min time, meta) are its means of finding buckets.
func (db *DB) statsIndexNames(c *coll, st collStatsInfo) []string {
	m := c.m()
	var names []string
	if tc := db.bucketsTarget(m.DB, m.Name); tc != nil {
		sizes := make(map[string]int64)
		for _, bi := range db.tsBucketsIndexes(tc, c) {
			if bi.served != nil {
				sizes[bi.name] = st.indexSizes[bi.served.Name]
			} else {
				sizes[bi.name] = 0
			}
			names = append(names, bi.name)
		}
		clear(st.indexSizes)
		maps.Copy(st.indexSizes, sizes)
		return names
	}
	for _, ix := range m.Indexes {
		names = append(names, ix.Name)
	}
	return names
}

// catalogStatsDoc is collStats' reply for a collection catalogDocs
// shows, laid out as collStatsDoc lays out an ordinary collection's:
// count documents of size bytes, an _id index of idSize bytes.
func catalogStatsDoc(ns string, count, size, idSize, scale int64) bson.D {
	d := bson.D{{Key: "ns", Value: ns}, {Key: "count", Value: int32OrLong(count)}, {Key: "size", Value: int32OrLong(size / scale)}}
	if count > 0 {
		d = append(d, bson.E{Key: "avgObjSize", Value: int32(size / count)})
	}
	return append(d, bson.E{Key: "storageSize", Value: int32OrLong(size / scale)}, bson.E{Key: "nindexes", Value: int32(1)},
		bson.E{Key: "totalIndexSize", Value: int32OrLong(idSize / scale)}, bson.E{Key: "indexSizes", Value: bson.D{{Key: "_id_", Value: int32OrLong(idSize / scale)}}},
		bson.E{Key: "capped", Value: false}, bson.E{Key: "totalSize", Value: int32OrLong((size + idSize) / scale)}, bson.E{Key: "scaleFactor", Value: int32(scale)})
}
