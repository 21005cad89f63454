package engine

import (
	"math"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// idPointValue returns the value of a filter that is exactly {_id: v}
// with v a scalar whose equal values all share one keystring (strings,
// ObjectIds, dates, booleans, integers, non-NaN doubles), and whether
// the filter has that shape. Documents (operators or embedded equality),
// arrays, regexes, null, NaN and decimals take the planner's path.
func idPointValue(filter bson.D) (any, bool) {
	if len(filter) != 1 || filter[0].Key != "_id" {
		return nil, false
	}
	switch v := filter[0].Value.(type) {
	case string, bson.ObjectID, bson.DateTime, bool, int32, int64:
		return v, true
	case float64:
		return v, !math.IsNaN(v)
	}
	return nil, false
}

// findByID is FindOne's fast path for a filter {_id: v} without
// options on an ordinary collection: one read-only transaction, a
// prefix seek of the _id index for v's keystring and a Get of the
// record, without planning or a cursor. handled is false when the fast
// path does not apply and the caller must run the query as usual.
// The record is matched against the parsed filter, so the result is the
// one the planner's path gives.
func (db *DB) findByID(dbName, name string, filter bson.D, o FindOptions) (d bson.D, handled bool, err error) {
	if len(o.Projection) > 0 || len(o.Sort) > 0 || o.Skip != 0 || o.Hint != nil || o.Tailable || o.AwaitData || o.Collation != nil || o.Let != nil {
		return nil, false, nil
	}
	v, ok := idPointValue(filter)
	if !ok {
		return nil, false, nil
	}
	if err := db.checkOpen(); err != nil {
		return nil, true, err
	}
	if err := validateCollName(dbName, name, true); err != nil {
		return nil, true, err
	}
	c := db.lookup(dbName, name)
	if c == nil {
		return nil, true, nil
	}
	m := c.m()
	if !kindOf(m).storesRecords() || isBucketsColl(m) || indexByID(m, idIndexID) == nil || m.DefaultCollator() != nil {
		return nil, false, nil
	}
	f, err := query.ParseFilterAt(filter, db.opts.Clock())
	if err != nil {
		return nil, true, err
	}
	db.notePlan(m, indexByID(m, idIndexID), false) // $indexStats: the _id index
	pre := appendIDKey(m, lsm.IndexPrefix(m.ID, idIndexID), v)
	err = db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: pre, KeysOnly: !m.Clustered})
		defer it.Close()
		for it.Next() {
			k := it.Key()
			rid, ok := lsm.IndexKeyRecordID(k, len(pre))
			if !ok {
				continue // a longer value sharing the prefix
			}
			var raw []byte
			var err error
			if m.Clustered {
				raw, err = it.Value() // the entry holds the document
			} else {
				raw, err = txn.Get(lsm.RecordKey(m.ID, rid))
			}
			if err == lsm.ErrNotFound {
				continue
			} else if err != nil {
				return err
			}
			rec, err := document.Unmarshal(raw)
			if err != nil {
				return err
			}
			if ok, err := f.MatchErr(rec); err != nil {
				return err
			} else if ok {
				d = rec
				return nil
			}
		}
		return it.Err()
	})
	if err != nil {
		return nil, true, err
	}
	db.stats.queried.Add(1)
	return d, true, nil
}
