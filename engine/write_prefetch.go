package engine

import (
	"bytes"
	"sort"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// uniqPrefetch holds, for the unique keys of an insert chunk's
// documents, the records whose committed index entries carry them: one
// read of the store for the whole chunk instead of a snapshot and an
// iterator per document (which took over half of an insert's CPU,
// benchmarks/RESULTS.md). It is exact while the caller holds c.wmu: no
// other writer commits entries of the collection meanwhile.
type uniqPrefetch struct {
	covered map[string]bool     // uniqKey of every key looked up
	rids    map[string][]uint64 // uniqKey -> records holding it
	// idKeys holds, by the position of each document in the docs given
	// to prefetchUnique, its _id index keys as indexkey.Of computed them
	// (nil where they were not), so that the insert does not compute
	// them again (writeCtx.docKeys). Read-only.
	idKeys [][][]byte
}

// idKeysAt returns the _id index keys prefetchUnique computed for the
// document at position at of its docs, or nil.
func (p *uniqPrefetch) idKeysAt(at int) [][]byte {
	if p == nil || at < 0 || at >= len(p.idKeys) {
		return nil
	}
	return p.idKeys[at]
}

// prefetchUnique looks up the unique-index keys of docs (nil entries
// skipped) under catalog entry m of c; the caller holds c.wmu.
// Documents whose keys cannot be computed are left out; hasKey falls
// back to its own read for them. _id keys above the index's bound
// (indexkey.IDBound) are covered without a read: no entry holds them.
func (db *DB) prefetchUnique(c *coll, m *catalog.Coll, docs []bson.D) (*uniqPrefetch, error) {
	type lookup struct {
		prefix []byte
		u      string
	}
	n := 0
	for _, ix := range m.Indexes {
		if ix.Unique {
			n += len(docs)
		}
	}
	// Sized for every key: a map grown from empty rehashes as it goes.
	p := &uniqPrefetch{covered: make(map[string]bool, n), rids: map[string][]uint64{}}
	var list []lookup
	var scratch []byte
	for _, ix := range m.Indexes {
		if !ix.Unique {
			continue
		}
		base := lsm.IndexPrefix(m.ID, ix.ID)
		bounded := idBoundKept(m, ix)
		for at, d := range docs {
			if d == nil {
				continue
			}
			keys, mk, err := indexkey.Of(ix, d)
			if err != nil {
				continue
			}
			if ix.ID == idIndexID && !mk && len(keys) == 1 {
				if p.idKeys == nil {
					p.idKeys = make([][][]byte, len(docs))
				}
				p.idKeys[at] = keys
			}
			for _, k := range keys {
				u := uniqKey(ix, k)
				if p.covered[u] {
					continue
				}
				p.covered[u] = true
				// Built in scratch: only a key that must be read is
				// kept (above the _id bound, as ascending _ids are, none).
				scratch = append(append(scratch[:0], base...), k...)
				if bounded {
					above, err := c.idAbove(m, scratch)
					if err != nil {
						return nil, err
					}
					if above {
						continue // covered, held by no record
					}
				}
				list = append(list, lookup{bytes.Clone(scratch), u})
			}
		}
	}
	if len(p.covered) == 0 {
		return nil, nil
	}
	if len(list) == 0 {
		return p, nil
	}
	sort.Slice(list, func(i, j int) bool { return bytes.Compare(list[i].prefix, list[j].prefix) < 0 })
	prefixes := make([][]byte, len(list))
	for i, l := range list {
		prefixes[i] = l.prefix
	}
	db.stats.uniqReads.Add(1)
	err := db.store.View(func(rt *lsm.Txn) error {
		return rt.ScanPrefixes(prefixes, func(i int, k []byte) error {
			rid, ok := lsm.IndexKeyRecordID(k, len(prefixes[i]))
			if !ok {
				return nil
			}
			p.rids[list[i].u] = append(p.rids[list[i].u], rid)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}
