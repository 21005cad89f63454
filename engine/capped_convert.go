package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// codeIDLFailedToParse is MongoDB's 40414: a required command field is
// missing.
const codeIDLFailedToParse = document.Code(40414)

// convertToCapped replaces db.name by a capped collection of size bytes
// holding its documents in natural order (the oldest overwritten when
// they do not fit) with only the _id index. Writers of the collection
// wait while it copies; readers see the original until the swap, which
// is one catalog transaction. Cursors on the original are killed.
func (db *DB) convertToCapped(ctx context.Context, dbName, name string, size int64) error {
	if err := db.checkWritable(); err != nil {
		return err
	}
	if err := validateCollName(dbName, name, false); err != nil {
		return err
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	c := db.lookup(dbName, name)
	if c == nil && len(db.collsOf(dbName)) == 0 {
		// As MongoDB's convertToCapped (capped_utils.cpp) answers for a
		// database that does not exist.
		return document.Errorf(document.CodeNamespaceNotFound, "database %s not found", dbName)
	}
	if c == nil {
		return document.Errorf(document.CodeNamespaceNotFound, "source collection %s.%s does not exist", dbName, name)
	}
	if c.m().Kind == catalog.KindTimeseries {
		return document.Errorf(document.CodeCommandNotSupportedOnView, "convertToCapped is not supported for time-series collections: %s.%s", dbName, name)
	}
	if c.m().Kind == catalog.KindView {
		// convertToCapped clones the view first, as mongod's does.
		return document.Errorf(document.CodeCommandNotSupportedOnView, "cloneCollectionAsCapped not supported for views: %s.%s", dbName, name)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	old := c.m()
	// The capped collection keeps the default collation (its _id index
	// follows it), as MongoDB's convertToCapped keeps the options.
	co := &createOptions{kind: catalog.KindCapped, ext: &cappedOpts{size: size}, raw: cappedRawOptions(size, 0, defaultCollationOption(old.Options))}
	nm := &catalog.Coll{DB: dbName, Name: name, Kind: catalog.KindCapped, Options: co.raw,
		Indexes: []*catalog.Index{idIndexFor(co.raw)}, NextIndexID: idIndexID + 1,
		UUID: catalog.NewUUID()} // a new collection replaces the original, as mongod's convertToCapped
	err := db.store.Update(func(txn *lsm.Txn) error {
		id, err := db.allocCollID(txn)
		nm.ID = id
		return err
	})
	if err != nil {
		return err
	}
	nc := &coll{db: db}
	if err := db.prepareExt(nc, nm, co); err != nil {
		return err
	}
	nc.meta.Store(nm)
	if err := db.copyIntoCapped(ctx, c, old, nc, 0, true); err != nil {
		db.abortExt(nc, nm)
		return err
	}
	err = db.store.Update(func(txn *lsm.Txn) error {
		if err := putMeta(txn, nm); err != nil { // same catalog key: replaces the original
			return err
		}
		return txn.Set(pendingDropKey(old.ID), nil)
	})
	if err != nil {
		db.abortExt(nc, nm)
		return err
	}
	db.replaceColl(c, nc)
	if err := db.dropExt(c); err != nil {
		db.logf("convertToCapped %s: removing the original's files: %v", nm.NS(), err)
	}
	return db.finishDrop(old.ID)
}

// copyIntoCapped appends every document of src (natural order) but the
// first skip to the new capped collection nc, which nobody else can see
// yet, with their insert events when events is set (a capped resize
// copies documents whose events were logged already).
func (db *DB) copyIntoCapped(ctx context.Context, src *coll, m *catalog.Coll, nc *coll, skip int, events bool) error {
	all, err := query.ParseFilter(bson.D{})
	if err != nil {
		return err
	}
	p, err := makePlan(src, m, all, nil, nil)
	if err != nil {
		return err
	}
	sc := newScanner(p)
	sc.noMatch = true
	st, err := cappedOf(nc)
	if err != nil {
		return err
	}
	nm := nc.m()
	for !sc.done {
		recs, err := sc.next(ctx, insertChunkDocs)
		if err != nil {
			return err
		}
		if skip > 0 {
			k := min(skip, len(recs))
			recs, skip = recs[k:], skip-k
		}
		w := newCappedWriter(db, nc, st)
		w.silent = !events
		cds := make([]cappedDoc, len(recs))
		var aheadB int64
		for i, r := range recs {
			cd, err := prepareCapped(nm, r.d)
			if err != nil {
				return err
			}
			cds[i] = cd
			aheadB += cappedRecordSize(len(cd.payload))
		}
		for i, cd := range cds {
			aheadB -= cappedRecordSize(len(cd.payload))
			w.setAhead(aheadB, int64(len(cds)-i-1))
			if err := w.insert(cd); err != nil {
				return err
			}
		}
		if err := w.flush(); err != nil {
			return err
		}
	}
	return nil
}

// replaceColl puts nc, a new collection of the same namespace, in c's
// place once the catalog commit that makes it so has been made: c is
// dropped and its cursors are killed.
func (db *DB) replaceColl(c, nc *coll) {
	c.dropped.Store(true)
	db.mu.Lock()
	db.colls[nc.m().NS()] = nc
	db.mu.Unlock()
	db.cursors.killColl(c)
}
