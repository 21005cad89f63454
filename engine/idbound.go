package engine

import (
	"bytes"

	"github.com/ttlkv/ttlkv/lsm"
)

// idBound is an upper bound of the entry keys of the _id index of an
// ordinary collection (time-series buckets collections included; a
// capped collection's _id index is in memory, capped_idindex.go, and
// keeps none). With it the unique-key check answers "absent" without a
// read for a key above every entry (prefix > max: every entry with that
// prefix is >= the prefix), the common case of increasing _ids
// (ObjectIds, counters). Reading the index for each such key seeks
// every memtable, L0 table and level (a point Get with bloom filters
// cannot be used: entry keys end with the record id), and took 16 of a
// one-document-per-transaction writer's 26 CPU seconds.
//
// Invariant: while known, every _id index entry key of collection coll
// that is committed, or staged by a transaction not yet ended, is <=
// max; max nil means the index holds no entry. Every path that stages
// an _id entry of such a collection raises max first
// (writeCtx.setIndexKey) or clears known (buildIndexes). Deletes never
// lower max and an aborted transaction leaves it higher than needed:
// both harmless, it is only an upper bound.
//
// Guarded by the collection's wmu: every writer that stages _id entries
// or checks unique keys holds it (insertDocs and so upserts,
// applyUpdates, tsInsertChunk, tsDeleteBatch, buildIndexes); the
// batched delete stages without it but only removes entries. The bound
// starts unknown on every handle, so opening the DB reads it from disk
// again, and a dropped and recreated collection gets a new handle; a
// collection id other than coll (a handle whose catalog entry changed
// id) counts as unknown. Rename keeps the handle and the id, so the
// bound stays right.
type idBound struct {
	known bool
	coll  uint64
	max   []byte // a whole index entry key
}

// idBoundKept reports whether the _id bound covers index ix of catalog
// entry m.
func idBoundKept(m *collMeta, ix *indexMeta) bool {
	return ix.ID == idIndexID && kindOf(m).storesRecords()
}

// loadIDBound makes c's _id bound known for catalog entry m, reading
// the index's last key once. The caller holds c.wmu, and no transaction
// of c may have staged an _id entry without raising the bound (so the
// committed entries are all there is).
func (c *coll) loadIDBound(m *collMeta) error {
	b := &c.idb
	if b.known && b.coll == m.ID {
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
	*b = idBound{known: true, coll: m.ID, max: last}
	return nil
}

// idAbove reports whether prefix (the _id index prefix of m and a
// keystring) is above every entry of the index, so that no entry starts
// with it. The caller holds c.wmu.
func (c *coll) idAbove(m *collMeta, prefix []byte) (bool, error) {
	if err := c.loadIDBound(m); err != nil {
		return false, err
	}
	return c.idb.max == nil || bytes.Compare(prefix, c.idb.max) > 0, nil
}

// raiseIDBound raises c's _id bound to key, an _id index entry of m
// about to be staged. The caller holds c.wmu.
func (c *coll) raiseIDBound(m *collMeta, key []byte) error {
	if err := c.loadIDBound(m); err != nil {
		return err
	}
	if c.idb.max == nil || bytes.Compare(key, c.idb.max) > 0 {
		c.idb.max = append(c.idb.max[:0], key...)
	}
	return nil
}

// forgetIDBound makes c's _id bound unknown; the next check reads it
// from disk. The caller holds c.wmu.
func (c *coll) forgetIDBound() { c.idb = idBound{} }
