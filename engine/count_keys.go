package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
)

// keyCountable reports whether plan p can count the documents its
// filter matches by counting index keys, without fetching a document
// (mongod's COUNT_SCAN): a single index that is not multikey, sparse,
// partial, hashed or wildcard, on an ordinary collection (not its
// clustered _id index), and a filter whose every condition its bounds
// enforce exactly (query.Filter.ExactPaths) on fields the index bounds.
func keyCountable(p *plan) bool {
	if p == nil || p.ix == nil || p.or != nil || p.ts != nil || p.wcPath != "" {
		return false
	}
	ix, m := p.ix, p.m
	if ix.Multikey || ix.Sparse || ix.PartialFilter != nil || indexkey.IsWildcard(ix.Key) {
		return false
	}
	if m.Kind != catalog.KindNormal || isBucketsColl(m) || (m.Clustered && ix.ID == idIndexID) {
		return false
	}
	paths, ok := p.filter.ExactPaths()
	if !ok {
		return false
	}
	fields := indexkey.Fields(ix.Key)
	_, bounded := fieldBounds(ix, p.filter, p.sort)
	for _, f := range fields {
		if f.Hashed {
			return false
		}
	}
	for _, path := range paths {
		found := false
		for i, f := range fields {
			if f.Path == path && bounded[i] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// countKeys counts the index keys of plan p within its ranges and key
// checks (keyCountable says when that is the count of documents), and
// adds them to the scan's figures. ok is false, and nothing is counted,
// when the catalog entry in the snapshot it reads no longer has the
// index as the plan saw it (a writer made it multikey, or dropped it,
// after the plan was made): the caller counts documents instead.
func (db *DB) countKeys(ctx context.Context, s *scanner) (n int64, ok bool, err error) {
	p := s.p
	err = db.store.View(func(txn *lsm.Txn) error {
		raw, err := txn.Get(lsm.CatalogKey(p.m.DB, p.m.Name))
		if err == lsm.ErrNotFound {
			return nil
		} else if err != nil {
			return err
		}
		m, err := catalog.Decode(raw)
		if err != nil {
			return err
		}
		if ix := indexByID(m, p.ix.ID); ix == nil || ix.Multikey {
			return nil // the fetching count takes over
		}
		ok = true
		for _, r := range p.ranges {
			if err := ctxErr(ctx); err != nil {
				return err
			}
			it := txn.NewIter(lsm.IterOptions{Lower: r.lo, Upper: r.hi, KeysOnly: true})
			for it.Next() {
				s.stats.keysExamined++
				if p.keyChecks != nil {
					ks, _, _ := lsm.SplitIndexKey(it.Key())
					if !p.keyInBounds(ks) {
						continue
					}
				}
				n++
			}
			err := it.Err()
			it.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
	return n, ok && err == nil, err
}
