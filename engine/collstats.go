package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

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
	if err := kindOf(c.m()).canDelete(c); err != nil {
		return nil, err
	}
	if od, ok := kindOf(c.m()).(oneDeleter); ok {
		return od.findOneAndDelete(ctx, db, c, filter, sortD)
	}
	for attempt := 0; attempt < 100; attempt++ {
		_, p, q, err := db.findPlan(dbName, name, filter, FindOptions{Sort: sortD, Limit: 1, Collation: ctxCollation(ctx), Let: ctxLet(ctx)})
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
		bd := &batchDeleter{db: db, c: c, recheck: func(_ *catalog.Coll, d bson.D) bool { return p.filter.Match(d) },
			onDelete: func(d bson.D) { gone = d }, ids: clusteredIDs(c.m(), rid, docs[0])}
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
	for _, name := range db.catalogNames(dbName) {
		_, size, _, _ := db.catalogStats(dbName, name)
		total += size
	}
	return total
}

type collStatsInfo struct {
	count, size int64
	indexSizes  map[string]int64
}

// collStats counts a collection's documents and bytes by scanning.
func (db *DB) collStats(c *coll) collStatsInfo {
	return kindOf(c.m()).stats(db, c)
}

// ordinaryStats counts an ordinary (possibly clustered) collection's
// documents and bytes by scanning.
func (db *DB) ordinaryStats(c *coll) collStatsInfo {
	m := c.m()
	st := collStatsInfo{indexSizes: map[string]int64{}}
	_ = db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: recPrefix(m)})
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
			st.indexSizes[ix.Name] = indexKeyBytes(txn, m, ix)
		}
		return nil
	})
	return st
}

// indexKeyBytes sums the key bytes of index ix of catalog entry m: its
// size in collStats' indexSizes.
func indexKeyBytes(txn *lsm.Txn, m *catalog.Coll, ix *catalog.Index) int64 {
	it := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(m.ID, ix.ID), KeysOnly: true})
	defer it.Close()
	var n int64
	for it.Next() {
		n += int64(len(it.Key()))
	}
	return n
}
