package engine

import (
	"context"
	"encoding/binary"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"github.com/ttlkv/ttlkv/ts"
)

// validateTimeseries checks a time-series collection: its buckets
// collection is consistent with its indexes, every bucket decodes, and
// the 1970/2038 flag is set when a bucket holds an out-of-range time.
func (db *DB) validateTimeseries(ctx context.Context, c *coll, res *ValidateResult, fail func(string, ...any)) {
	t, bc, err := db.tsParts(c)
	if err != nil {
		fail("%v", err)
		return
	}
	if bc == nil {
		fail("buckets collection %s is missing", t.buckets)
		return
	}
	br, err := db.Validate(ctx, c.m().DB, t.buckets)
	if err != nil {
		fail("validating %s: %v", t.buckets, err)
		return
	}
	for _, e := range br.Errors {
		fail("%s: %s", t.buckets, e)
	}
	bid := bc.m().ID
	_ = db.store.View(func(txn *lsm.Txn) error {
		// Every delta belongs to a bucket record.
		dpre := lsm.IndexPrefix(bid, tsDeltaIndexID)
		dit := txn.NewIter(lsm.IterOptions{Prefix: dpre, KeysOnly: true})
		var lastRID uint64
		for dit.Next() {
			k := dit.Key()
			if len(k) != len(dpre)+8+4 {
				fail("time-series delta key %x is malformed", k)
				continue
			}
			rid := binary.BigEndian.Uint64(k[len(dpre):])
			if rid == lastRID {
				continue
			}
			lastRID = rid
			if ok, err := txn.Has(lsm.RecordKey(bid, rid)); err != nil {
				dit.Close()
				return err
			} else if !ok {
				fail("time-series delta %x belongs to no bucket record", k)
			}
		}
		dit.Close()
		it := txn.NewIter(lsm.IterOptions{Prefix: lsm.RecordPrefix(bid)})
		defer it.Close()
		for it.Next() {
			v, err := it.Value()
			if err != nil {
				return err
			}
			d, err := document.Unmarshal(v)
			if err != nil {
				fail("bucket record does not decode: %v", err)
				continue
			}
			_, rid, _ := lsm.DecodeRecordKey(it.Key())
			ds, err := tsReadDeltas(txn, bid, rid)
			if err != nil {
				fail("bucket %v: %v", idOf(d), err)
				continue
			}
			b, err := applyDeltas(t.opts, d, ds)
			if err != nil {
				fail("bucket %v: %v", idOf(d), err)
				continue
			}
			res.Records += int64(b.Count())
			if !t.outOfRange && (ts.OutOfTTLRange(b.MinTime) || ts.OutOfTTLRange(b.MaxTime())) {
				fail("bucket %v holds a time outside 1970..2038 but the collection is not marked", idOf(d))
			}
		}
		return nil
	})
}
