package engine

import (
	"bytes"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
)

// Each collection handle keeps an upper bound of its _id index's entry
// keys (indexkey.IDBound, which states the invariant), so that the
// unique-key check of an increasing _id needs no read.
//
// Guarded by the collection's wmu: every writer that stages _id entries
// or checks unique keys holds it (insertDocs and so upserts,
// applyUpdates, tsInsertChunk, tsDeleteBatch, buildIndexes); the
// batched delete stages without it but only removes entries. The bound
// starts unknown on every handle, so opening the DB reads it from disk
// again, and a dropped and recreated collection gets a new handle; a
// collection id other than the one it was read for counts as unknown.
// Rename keeps the handle and the id, so the bound stays right.

// idBoundKept reports whether the _id bound covers index ix of catalog
// entry m.
func idBoundKept(m *catalog.Coll, ix *catalog.Index) bool {
	return ix.ID == idIndexID && kindOf(m).storesRecords()
}

// loadIDBound makes c's _id bound known for catalog entry m, reading
// the index's last key once. The caller holds c.wmu, and no transaction
// of c may have staged an _id entry without raising the bound (so the
// committed entries are all there is).
func (c *coll) loadIDBound(m *catalog.Coll) error {
	if c.idb.Known(m.ID) {
		return nil
	}
	// The reverse iterator's first key is the index's last.
	pre := lsm.IndexPrefix(m.ID, idIndexID)
	var last []byte
	err := c.db.store.View(func(rt *lsm.Txn) error {
		it := rt.NewIter(lsm.IterOptions{Prefix: pre, Reverse: true, KeysOnly: true})
		defer it.Close()
		if it.Next() {
			last = bytes.Clone(it.Key())
		}
		return it.Err()
	})
	if err != nil {
		return err
	}
	c.db.stats.idBoundLoads.Add(1)
	c.idb.Set(m.ID, last)
	return nil
}

// idAbove reports whether prefix (the _id index prefix of m and a
// keystring) is above every entry of the index, so that no entry starts
// with it. The caller holds c.wmu.
func (c *coll) idAbove(m *catalog.Coll, prefix []byte) (bool, error) {
	if err := c.loadIDBound(m); err != nil {
		return false, err
	}
	return c.idb.Above(prefix), nil
}

// raiseIDBound raises c's _id bound to key, an _id index entry of m
// about to be staged. The caller holds c.wmu.
func (c *coll) raiseIDBound(m *catalog.Coll, key []byte) error {
	if err := c.loadIDBound(m); err != nil {
		return err
	}
	c.idb.Raise(key)
	return nil
}

// forgetIDBound makes c's _id bound unknown; the next check reads it
// from disk. The caller holds c.wmu.
func (c *coll) forgetIDBound() { c.idb.Forget() }
