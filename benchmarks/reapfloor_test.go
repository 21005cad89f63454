package benchmarks

import (
	"bytes"
	"slices"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// reapFloor (TTLKV_BENCH_REAP_FLOOR=1) adds to BenchmarkReapInterleaved
// a fourth store: raw Badger doing, with the baseline's two keys per
// document, the work the issue requires of any TTL reaper besides its
// deletes: re-reading each document inside the transaction that
// deletes it (rawReapReading). Its rate against the two-key baseline
// (floor-x-base) bounds what a clustered record store (records keyed by
// _id, two keys per document) could reach.
var reapFloor = envInt("TTLKV_BENCH_REAP_FLOOR", 0) == 1

// floorBatch is how many documents one transaction of rawReapReading
// deletes: the engine's batchedDeletesTargetBatchDocs (1000 by default,
// TTLKV_BENCH_BATCH_DOCS when set), so that the floor commits as ttlkv
// does.
var floorBatch = envInt("TTLKV_BENCH_BATCH_DOCS", 1000)

// rawReapReading deletes the expired documents dated in [from, cutoff]
// the way ttlkv's reaper does, over raw Badger: it reads the exp index
// keys (keys only) in chunks of 4096 in a read-only transaction, then
// for each batch of floorBatch documents, in a read-write transaction, reads
// each record (one iterator over the batch's sorted record keys, as
// lsm.Txn.GetSorted) and deletes it and its index key. Commits are
// pipelined as lsm.Pipeline does: the next batch's transaction begins
// before the previous commit is sent, and a commit is sent only after
// the previous one was applied. It reads the values (the re-check) but
// decodes nothing.
func rawReapReading(db *badger.DB, from, cutoff time.Time) (int, error) {
	prefix := lsm.IndexPrefixV1(rawColl, rawSecIx)
	lo := append(append([]byte{}, prefix...), lsm.AppendKey(nil, bson.NewDateTimeFromTime(from), false)...)
	hi := lsm.PrefixEnd(append(append([]byte{}, prefix...), lsm.AppendKey(nil, bson.NewDateTimeFromTime(cutoff), false)...))
	n := 0
	var prev chan error
	wait := func() error {
		if prev == nil {
			return nil
		}
		err := <-prev
		prev = nil
		return err
	}
	txn := db.NewTransaction(true)
	defer func() { txn.Discard() }()
	for {
		var keys [][]byte
		err := db.View(func(vt *badger.Txn) error {
			it := rawKeyIter(vt, prefix)
			defer it.Close()
			for it.Seek(lo); it.Valid() && len(keys) < 4096; it.Next() {
				k := it.Item().KeyCopy(nil)
				if bytes.Compare(k, hi) >= 0 {
					break
				}
				keys = append(keys, k)
			}
			return nil
		})
		if err != nil || len(keys) == 0 {
			if werr := wait(); err == nil {
				err = werr
			}
			return n, err
		}
		lo = append(slices.Clone(keys[len(keys)-1]), 0)
		for i := 0; i < len(keys); i += floorBatch {
			batch := keys[i:min(i+floorBatch, len(keys))]
			recs := make([][]byte, len(batch))
			for j, k := range batch {
				_, rid, _ := lsm.SplitIndexKeyV1(k)
				recs[j] = lsm.RecordKeyV1(rawColl, rid)
			}
			slices.SortFunc(recs, bytes.Compare)
			// As lsm.Txn.GetSortedFunc: bounded by the keys' common
			// prefix, stepping with Next to a close key, else seeking.
			pre := recs[0]
			for !bytes.HasPrefix(recs[len(recs)-1], pre) {
				pre = pre[:len(pre)-1]
			}
			it := txn.NewIterator(badger.IteratorOptions{Prefix: pre})
			for _, rk := range recs {
				stepped := false
				for s := 0; s < 8 && it.Valid(); s++ {
					if bytes.Compare(it.Item().Key(), rk) >= 0 {
						stepped = true
						break
					}
					it.Next()
				}
				if !stepped {
					it.Seek(rk)
				}
				if !it.Valid() || !bytes.Equal(it.Item().Key(), rk) {
					continue
				}
				if err := it.Item().Value(func([]byte) error { return nil }); err != nil {
					it.Close()
					return n, err
				}
				if err := txn.Delete(rk); err != nil {
					it.Close()
					return n, err
				}
			}
			it.Close()
			for _, k := range batch {
				if err := txn.Delete(k); err != nil {
					return n, err
				}
			}
			// Wait for the previous commit, begin the next transaction,
			// then send this one.
			if err := wait(); err != nil {
				return n, err
			}
			next := db.NewTransaction(true)
			done := make(chan error, 1)
			txn.CommitWith(func(err error) { done <- err })
			prev = done
			txn = next
			n += len(batch)
		}
	}
}
