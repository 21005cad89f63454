package engine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

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
	for _, f := range indexkey.Fields(ix.Key) {
		if f.Hashed {
			return false
		}
	}
	return pathsBounded(p, paths)
}

// pathsBounded reports whether each of paths is a field of plan p's
// index that the plan's bounds constrain (fieldBounds): a filter on
// those paths alone is then answered by the index's keys.
func pathsBounded(p *plan, paths []string) bool {
	fields := indexkey.Fields(p.ix.Key)
	_, bounded := fieldBounds(p.ix, p.filter, p.sort)
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

// indexAsPlanned reports whether the catalog entry in txn's snapshot
// still has plan p's index as the plan saw it: there, and not multikey
// (a writer may have made it multikey, or dropped it, since). A scan of
// keys alone reads the snapshot only when it does.
func indexAsPlanned(txn *lsm.Txn, p *plan) (bool, error) {
	raw, err := txn.Get(lsm.CatalogKey(p.m.DB, p.m.Name))
	if err == lsm.ErrNotFound {
		return false, nil
	} else if err != nil {
		return false, err
	}
	m, err := catalog.Decode(raw)
	if err != nil {
		return false, err
	}
	ix := indexByID(m, p.ix.ID)
	return ix != nil && !ix.Multikey, nil
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
		if same, err := indexAsPlanned(txn, p); err != nil || !same {
			return err // nil when not the same: the fetching count takes over
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

// countScanDoc is explain's COUNT_SCAN stage of a count from keys whose
// plan reads one contiguous interval of the index: every field the
// filter bounds fixed to one value, the fields after it spanning all
// values, as mongod shows it (startKey and endKey, both inclusive). ok
// is false for other plans, which explain shows as an IXSCAN.
func countScanDoc(p *plan, st *execStats) (bson.D, bool) {
	if len(p.ranges) != 1 || p.keyChecks != nil {
		return nil, false
	}
	ivs, bounded := fieldBounds(p.ix, p.filter, p.sort)
	fields := indexkey.Fields(p.ix.Key)
	start, end := bson.D{}, bson.D{}
	for i, f := range fields {
		lo, hi := any(bson.MinKey{}), any(bson.MaxKey{})
		if f.Desc {
			lo, hi = hi, lo
		}
		if bounded[i] {
			if len(ivs[i]) != 1 || !isPoint(ivs[i][0]) {
				return nil, false
			}
			lo, hi = ivs[i][0].Lo.Value, ivs[i][0].Lo.Value
		}
		start = append(start, bson.E{Key: f.Path, Value: lo})
		end = append(end, bson.E{Key: f.Path, Value: hi})
	}
	mkp := bson.D{}
	for _, f := range fields {
		mkp = append(mkp, bson.E{Key: f.Path, Value: bson.A{}})
	}
	d := bson.D{{Key: "stage", Value: "COUNT_SCAN"}, {Key: "keyPattern", Value: p.ix.Key},
		{Key: "indexName", Value: p.ix.Name}, {Key: "isMultiKey", Value: p.ix.Multikey},
		{Key: "multiKeyPaths", Value: mkp}, {Key: "isUnique", Value: p.ix.Unique},
		{Key: "isSparse", Value: p.ix.Sparse}, {Key: "isPartial", Value: p.ix.Partial != nil},
		{Key: "indexVersion", Value: int32(2)},
		{Key: "indexBounds", Value: bson.D{{Key: "startKey", Value: start}, {Key: "startKeyInclusive", Value: true},
			{Key: "endKey", Value: end}, {Key: "endKeyInclusive", Value: true}}}}
	if st != nil {
		// mongod gives COUNT_SCAN's keysExamined before its plan fields.
		d = append(d[:1], append(bson.D{{Key: "keysExamined", Value: int32OrLong(st.keysExamined)}}, d[1:]...)...)
	}
	return d, true
}
