package engine

import (
	"context"
	"math"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func cmdCollMod(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	if err := db.checkWritable(); err != nil {
		return nil, err
	}
	var indexOpt bson.D
	hasIndex := false
	var collOpts bson.D
	var images any
	for _, e := range cmd[1:] {
		switch e.Key {
		case "changeStreamPreAndPostImages":
			if err := checkPreImagesOption("collMod", e.Value); err != nil {
				return nil, err
			}
			images = e.Value
		case "index":
			hasIndex = true
			d, ok := e.Value.(bson.D)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index' is the wrong type '%s', expected type 'object'", typeName(e.Value))
			}
			indexOpt = d
		case "expireAfterSeconds", "timeseries", "validator", "validationLevel", "validationAction":
			collOpts = append(collOpts, e)
		case "comment", "writeConcern", "lsid", "$db", "dryRun":
		default:
			return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'collMod.%s' is an unknown field.", e.Key)
		}
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	c := db.lookup(dbName, name)
	if c == nil {
		return nil, document.Errorf(document.CodeNamespaceNotFound, "ns does not exist: %s.%s", dbName, name)
	}
	reply := bson.D{}
	if images != nil {
		if err := db.collModPreImages(c, images); err != nil {
			return nil, err
		}
	}
	if hasIndex {
		r, err := db.collModIndex(c, indexOpt)
		if err != nil {
			return nil, err
		}
		reply = append(reply, r...)
	}
	if len(collOpts) > 0 {
		if c.m().Kind == kindTimeseries {
			r, err := db.collModTimeseries(c, collOpts)
			if err != nil {
				return nil, err
			}
			reply = append(reply, r...)
		} else if c.m().Clustered {
			r, err := db.collModClustered(c, collOpts)
			if err != nil {
				return nil, err
			}
			reply = append(reply, r...)
		} else {
			for _, e := range collOpts {
				switch e.Key {
				case "expireAfterSeconds":
					return nil, document.Errorf(document.CodeInvalidOptions, "'expireAfterSeconds' option is only supported on collections clustered by _id")
				case "timeseries":
					return nil, document.Errorf(document.CodeInvalidOptions, "option only supported on a time-series collection: timeseries")
				}
			}
		}
	}
	return reply, nil
}

// collModIndex applies collMod's index form (SPEC §5.1).
func (db *DB) collModIndex(c *coll, opt bson.D) (bson.D, error) {
	m := c.m()
	var ref any
	nameV, hasName := get(opt, "name")
	keyV, hasKey := get(opt, "keyPattern")
	switch {
	case hasName && hasKey:
		return nil, document.Errorf(document.CodeInvalidOptions, "Cannot specify both key pattern and name.")
	case !hasName && !hasKey:
		return nil, document.Errorf(document.CodeInvalidOptions, "Must specify either index name or key pattern.")
	case hasName:
		if _, ok := nameV.(string); !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index.name' is the wrong type '%s', expected type 'string'", typeName(nameV))
		}
		ref = nameV
	default:
		if _, ok := keyV.(bson.D); !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index.keyPattern' is the wrong type '%s', expected type 'object'", typeName(keyV))
		}
		ref = keyV
	}
	expV, hasExp := get(opt, "expireAfterSeconds")
	hidV, hasHid := get(opt, "hidden")
	for _, e := range opt {
		switch e.Key {
		case "name", "keyPattern", "expireAfterSeconds", "hidden":
		case "unique", "prepareUnique", "forceNonUnique":
			return nil, document.Errorf(document.CodeInvalidOptions, "collMod option '%s' is not supported by ttlkv", e.Key)
		default:
			return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'collMod.index.%s' is an unknown field.", e.Key)
		}
	}
	if !hasExp && !hasHid {
		return nil, document.Errorf(document.CodeInvalidOptions, "no expireAfterSeconds or hidden field")
	}
	if m.Kind == kindTimeseries && hasExp {
		return nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes are not supported for time-series collections")
	}
	if m.Kind == kindCapped && hasExp {
		// SPEC §1.4: TTL and capped are incompatible, however the TTL
		// index would come about.
		return nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes are not supported for capped collections.")
	}
	var newExp int64
	if hasExp {
		switch v := expV.(type) {
		case int32, int64, float64, bson.Decimal128:
			f, _ := asFloat(v)
			if math.IsNaN(f) {
				return nil, document.Errorf(document.CodeInvalidOptions, "TTL index 'expireAfterSeconds' option must not be NaN")
			}
			if f < 0 {
				return nil, document.Errorf(document.CodeInvalidOptions, "TTL index 'expireAfterSeconds' option cannot be less than 0, found %s", fmtValue(v))
			}
			if math.Trunc(f) > math.MaxInt32 {
				return nil, document.Errorf(document.CodeInvalidOptions, "TTL index 'expireAfterSeconds' option must be within the range of a 32-bit integer, found %s", fmtValue(v))
			}
			newExp = int64(math.Trunc(f))
		default:
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index.expireAfterSeconds' is the wrong type '%s', expected types '[long, int, decimal, double]'", typeName(expV))
		}
	}
	var newHidden bool
	if hasHid {
		b, ok := hidV.(bool)
		if !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index.hidden' is the wrong type '%s', expected type 'bool'", typeName(hidV))
		}
		newHidden = b
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	m = c.m()
	ix, err := findIndex(m, ref)
	if err != nil {
		return nil, err
	}
	if hasExp {
		if ix.ID == idIndexID {
			return nil, document.Errorf(document.CodeInvalidOptions, "the _id field does not support TTL indexes")
		}
		if len(ix.Key) > 1 {
			return nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes are single-field indexes, compound indexes do not support TTL")
		}
	}
	if hasHid && ix.ID == idIndexID {
		return nil, document.Errorf(document.CodeBadValue, "can't hide _id index")
	}
	nm := m.clone()
	for i := range nm.Indexes {
		nm.Indexes[i].partial = m.Indexes[i].partial
	}
	nix := indexByID(nm, ix.ID)
	reply := bson.D{}
	if hasExp {
		if ix.TTL {
			reply = append(reply, bson.E{Key: "expireAfterSeconds_old", Value: int32(ix.Expire)})
		}
		reply = append(reply, bson.E{Key: "expireAfterSeconds_new", Value: int32(newExp)})
		nix.TTL, nix.Expire = true, newExp
	}
	if hasHid {
		reply = append(reply, bson.E{Key: "hidden_old", Value: ix.Hidden}, bson.E{Key: "hidden_new", Value: newHidden})
		nix.Hidden = newHidden
	}
	if err := db.updateMeta(c, nm, nil); err != nil {
		return nil, err
	}
	if hasExp {
		db.mon.resetLowWater(nm.ID, ix.ID)
	}
	return reply, nil
}

// findOneAndDelete deletes the first document in sort order matching
// filter and returns it (nil when none matched).
func (db *DB) findOneAndDelete(ctx context.Context, dbName, name string, filter, sortD bson.D) (bson.D, error) {
	if err := db.checkWritable(); err != nil {
		return nil, err
	}
	c := db.lookup(dbName, name)
	if c == nil {
		return nil, nil
	}
	if c.m().Kind == kindCapped {
		return nil, document.Errorf(document.CodeIllegalOperation, "cannot remove from a capped collection: %s", c.m().ns())
	}
	for attempt := 0; attempt < 100; attempt++ {
		_, p, q, err := db.findPlan(dbName, name, filter, FindOptions{Sort: sortD, Limit: 1})
		if err != nil || q == nil || p == nil {
			return nil, err
		}
		docs, err := q.nextBatch(ctx, 1)
		if err != nil || len(docs) == 0 {
			return nil, err
		}
		rid, err := db.ridOfID(c, docs[0])
		if err != nil {
			return nil, err
		}
		var gone bson.D
		bd := &batchDeleter{db: db, c: c, recheck: func(_ *collMeta, d bson.D) bool { return p.filter.Match(d) },
			onDelete: func(d bson.D) { gone = d }, ids: c.m().idsOf(rid, docs[0])}
		n, _, err := bd.batch([]uint64{rid})
		if err != nil {
			return nil, err
		}
		if n == 1 {
			return gone, nil
		}
	}
	return nil, document.Errorf(document.Code(112), "findAndModify: too many concurrent changes to the matched document")
}

// databaseSize estimates a database's bytes on disk from its records.
func (db *DB) databaseSize(dbName string) int64 {
	var total int64
	for _, c := range db.collsOf(dbName) {
		st := db.collStats(c)
		total += st.size
	}
	return total
}

type collStatsInfo struct {
	count, size int64
	indexSizes  map[string]int64
}

// collStats counts a collection's documents and bytes by scanning.
func (db *DB) collStats(c *coll) collStatsInfo {
	m := c.m()
	st := collStatsInfo{indexSizes: map[string]int64{}}
	if m.Kind == kindTimeseries {
		return db.timeseriesStats(c)
	}
	if m.Kind == kindCapped {
		return db.specialStats(c)
	}
	_ = db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: m.recPrefix()})
		defer it.Close()
		for it.Next() {
			v, err := it.Value()
			if err != nil {
				return err
			}
			st.count++
			st.size += int64(len(v))
		}
		for _, ix := range m.Indexes {
			it := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(m.ID, ix.ID), KeysOnly: true})
			var n int64
			for it.Next() {
				n += int64(len(it.Key()))
			}
			it.Close()
			st.indexSizes[ix.Name] = n
		}
		return nil
	})
	return st
}

func cmdCollStats(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	c := db.lookup(dbName, name)
	if c == nil {
		return nil, document.Errorf(document.CodeNamespaceNotFound, "Collection [%s.%s] not found.", dbName, name)
	}
	return db.collStatsDoc(c), nil
}

func (db *DB) collStatsDoc(c *coll) bson.D {
	m := c.m()
	st := db.collStats(c)
	sizes := bson.D{}
	var total int64
	for _, ix := range m.Indexes {
		sizes = append(sizes, bson.E{Key: ix.Name, Value: int32OrLong(st.indexSizes[ix.Name])})
		total += st.indexSizes[ix.Name]
	}
	var avg int64
	if st.count > 0 {
		avg = st.size / st.count
	}
	// As MongoDB's collStats (src/mongo/db/stats/storage_stats.cpp):
	// count, size, storageSize, totalIndexSize and indexSizes through
	// appendNumber; avgObjSize and nindexes are ints.
	d := bson.D{{Key: "ns", Value: m.ns()}, {Key: "count", Value: int32OrLong(st.count)}, {Key: "size", Value: int32OrLong(st.size)},
		{Key: "avgObjSize", Value: int32(avg)}, {Key: "storageSize", Value: int32OrLong(st.size)},
		{Key: "nindexes", Value: int32(len(m.Indexes))}, {Key: "totalIndexSize", Value: int32OrLong(total)},
		{Key: "indexSizes", Value: sizes}, {Key: "capped", Value: m.Kind == kindCapped}}
	if m.Kind == kindTimeseries {
		return append(d, db.timeseriesStatsFields(c)...)
	}
	return append(d, db.specialStatsFields(c)...)
}

func cmdDBStats(_ context.Context, db *DB, dbName string, _ bson.D) (bson.D, error) {
	var objects, size, indexSize int64
	colls := 0
	indexes := 0
	for _, c := range db.collsOf(dbName) {
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
	return bson.D{{Key: "db", Value: dbName}, {Key: "collections", Value: int32OrLong(int64(colls))}, {Key: "objects", Value: int32OrLong(objects)},
		{Key: "dataSize", Value: int32OrLong(size)}, {Key: "storageSize", Value: int32OrLong(size)}, {Key: "indexes", Value: int32OrLong(int64(indexes))},
		{Key: "indexSize", Value: int32OrLong(indexSize)}}, nil
}
