package engine

import (
	"context"

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
	if c == nil {
		return nil, document.Errorf(document.CodeNamespaceNotFound, "Collection [%s.%s] not found.", dbName, name)
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
	for _, ix := range m.Indexes {
		sizes = append(sizes, bson.E{Key: ix.Name, Value: int32OrLong(st.indexSizes[ix.Name] / scale)})
		total += st.indexSizes[ix.Name]
	}
	var avg int64
	if st.count > 0 {
		avg = st.size / st.count
	}
	// As MongoDB's collStats (src/mongo/db/stats/storage_stats.cpp):
	// count, size, storageSize, totalIndexSize and indexSizes through
	// appendNumber; avgObjSize and nindexes are ints.
	d := bson.D{{Key: "ns", Value: m.NS()}, {Key: "count", Value: int32OrLong(st.count)}, {Key: "size", Value: int32OrLong(st.size / scale)},
		{Key: "avgObjSize", Value: int32(avg)}, {Key: "storageSize", Value: int32OrLong(st.size / scale)},
		{Key: "nindexes", Value: int32(len(m.Indexes))}, {Key: "totalIndexSize", Value: int32OrLong(total / scale)},
		{Key: "indexSizes", Value: sizes}, {Key: "capped", Value: m.Kind == catalog.KindCapped}}
	if m.Kind == catalog.KindTimeseries {
		d = append(d, db.timeseriesStatsFields(c)...)
	} else {
		d = append(d, db.specialStatsFields(c, scale)...)
	}
	return append(d, bson.E{Key: "totalSize", Value: int32OrLong((st.size + total) / scale)},
		bson.E{Key: "scaleFactor", Value: int32(scale)})
}

// cmdDBStats runs the dbStats command.
func cmdDBStats(_ context.Context, db *DB, dbName string, _ bson.D) (bson.D, error) {
	var objects, size, indexSize int64
	colls, views := 0, 0
	indexes := 0
	for _, c := range db.collsOf(dbName) {
		if c.m().Kind == catalog.KindView {
			views++
			continue
		}
		st := db.collStats(c)
		objects += st.count
		size += st.size
		for _, n := range st.indexSizes {
			indexSize += n
		}
		colls++
		indexes += len(c.m().Indexes)
	}
	// MongoDB's dbStats appends every count and size with appendNumber
	// (DatabaseImpl::getStats, src/mongo/db/catalog/database_impl.cpp).
	return bson.D{{Key: "db", Value: dbName}, {Key: "collections", Value: int32OrLong(int64(colls))}, {Key: "views", Value: int32OrLong(int64(views))}, {Key: "objects", Value: int32OrLong(objects)},
		{Key: "dataSize", Value: int32OrLong(size)}, {Key: "storageSize", Value: int32OrLong(size)}, {Key: "indexes", Value: int32OrLong(int64(indexes))},
		{Key: "indexSize", Value: int32OrLong(indexSize)}}, nil
}
