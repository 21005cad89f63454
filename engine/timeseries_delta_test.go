package engine

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// tsDeltaCounts returns, per bucket record id, the number of delta
// records of buckets collection name, and the base record's count.
func tsDeltaCounts(t *testing.T, db *DB, name string) (deltas map[uint64]int, bases map[uint64]int32) {
	t.Helper()
	bc := db.lookup("test", "system.buckets."+name)
	if bc == nil {
		t.Fatalf("no buckets collection for %s", name)
	}
	id := bc.m().ID
	deltas, bases = map[uint64]int{}, map[uint64]int32{}
	err := db.store.View(func(txn *lsm.Txn) error {
		dpre := lsm.IndexPrefix(id, tsDeltaIndexID)
		it := txn.NewIter(lsm.IterOptions{Prefix: dpre, KeysOnly: true})
		for it.Next() {
			deltas[binary.BigEndian.Uint64(it.Key()[len(dpre):])]++
		}
		it.Close()
		it = txn.NewIter(lsm.IterOptions{Prefix: lsm.RecordPrefix(id)})
		defer it.Close()
		for it.Next() {
			_, rid, _ := lsm.DecodeRecordKey(it.Key())
			d, _, err := getRecord(txn, id, rid)
			if err != nil {
				return err
			}
			n, _ := field(d, "control.count").(int32)
			bases[rid] = n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return deltas, bases
}

// TestTimeseriesDeltas: measurements trickling into open buckets are
// stored as deltas, folded when they outgrow the base or the bucket
// closes; reads, counts, time filters (control.max), collStats,
// validate, reopen, deletes and expiry all see base plus deltas, and
// nothing of a removed bucket is left behind.
func TestTimeseriesDeltas(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	ctx := context.Background()
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 60}`)
	c := db.Database("test").Collection("w")
	base := clk.Now().Truncate(time.Hour)
	at := func(k int) bson.DateTime { return bson.NewDateTimeFromTime(base.Add(time.Duration(k) * time.Second)) }
	const sensors, batches = 3, 150
	inserted := 0
	sawDeltas := false
	for k := 0; k < batches; k++ {
		var docs []any
		for s := 0; s < sensors; s++ {
			docs = append(docs, bson.D{{Key: "t", Value: at(k)}, {Key: "m", Value: bson.D{{Key: "s", Value: int32(s)}}}, {Key: "v", Value: int32(k)}})
		}
		if _, err := c.InsertMany(ctx, docs, true); err != nil {
			t.Fatal(err)
		}
		inserted += len(docs)
		deltas, bases := tsDeltaCounts(t, db, "w")
		for rid, n := range deltas {
			sawDeltas = true
			// Deltas hold fewer measurements than the base (one per
			// batch here) and never more than tsMaxDeltas records.
			if n >= int(bases[rid]) || n > tsMaxDeltas {
				t.Fatalf("batch %d: bucket %d has %d deltas over a base of %d", k, rid, n, bases[rid])
			}
		}
		if k%37 == 0 || k == batches-1 {
			if got := count(t, db, "test", "w"); got != int64(inserted) {
				t.Fatalf("batch %d: count %d, want %d", k, got, inserted)
			}
			// A time filter whose bucket condition reads control.max.
			late := findAll(t, db, "test", "w", bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: at(k)}}}})
			if len(late) != sensors {
				t.Fatalf("batch %d: %d measurements at the latest time, want %d", k, len(late), sensors)
			}
		}
	}
	if !sawDeltas {
		t.Fatal("no delta was ever written")
	}
	// The buckets collection shows merged buckets.
	var total int32
	bucketDocs := tsBucketDocs(t, db, "w", "t")
	for _, b := range bucketDocs {
		total += bucketCount(b)
	}
	if total != int32(inserted) {
		t.Fatalf("bucket documents count %d measurements, want %d", total, inserted)
	}
	r := mustRun(t, db, "test", `{"collStats": "w"}`)
	if field(r, "timeseries.bucketCount") != int32(len(bucketDocs)) {
		t.Fatalf("collStats bucketCount %v, want %d", field(r, "timeseries.bucketCount"), len(bucketDocs))
	}
	mustValidate(t, db, "test", "w")

	// After a restart the old buckets keep their deltas; reads merge them
	// and new measurements open new buckets.
	db = reopen(t, db, dir, clk)
	c = db.Database("test").Collection("w")
	if got := count(t, db, "test", "w"); got != int64(inserted) {
		t.Fatalf("after reopen: count %d, want %d", got, inserted)
	}
	mustValidate(t, db, "test", "w")
	if _, err := c.InsertOne(ctx, bson.D{{Key: "t", Value: at(batches)}, {Key: "m", Value: bson.D{{Key: "s", Value: int32(0)}}}, {Key: "v", Value: int32(batches)}}); err != nil {
		t.Fatal(err)
	}
	inserted++

	// A delete that rewrites buckets (some measurements match) folds
	// their deltas away with them.
	dr, err := c.DeleteMany(ctx, bson.D{{Key: "v", Value: bson.D{{Key: "$lt", Value: int32(10)}}}})
	if err != nil {
		t.Fatal(err)
	}
	n := dr.DeletedCount
	if n != 10*sensors {
		t.Fatalf("deleted %d, want %d", n, 10*sensors)
	}
	inserted -= int(n)
	deltas, bases := tsDeltaCounts(t, db, "w")
	for rid := range deltas {
		if _, ok := bases[rid]; !ok {
			t.Fatalf("delta of removed bucket %d left behind", rid)
		}
	}
	if got := count(t, db, "test", "w"); got != int64(inserted) {
		t.Fatalf("after delete: count %d, want %d", got, inserted)
	}
	if got := len(findAll(t, db, "test", "w", bson.D{{Key: "v", Value: bson.D{{Key: "$lt", Value: int32(10)}}}})); got != 0 {
		t.Fatalf("%d deleted measurements still found", got)
	}
	mustValidate(t, db, "test", "w")

	// A measurement past the span closes sensor 1's bucket, which is
	// folded: no deltas remain for it. Then expiry removes everything.
	if _, err := c.InsertOne(ctx, bson.D{{Key: "t", Value: at(2 * 3600)}, {Key: "m", Value: bson.D{{Key: "s", Value: int32(1)}}}, {Key: "v", Value: int32(-1)}}); err != nil {
		t.Fatal(err)
	}
	inserted++
	if got := count(t, db, "test", "w"); got != int64(inserted) {
		t.Fatalf("after close: count %d, want %d", got, inserted)
	}
	clk.Advance(10 * time.Hour)
	if _, err := db.RunTTLPass(ctx); err != nil {
		t.Fatal(err)
	}
	if got := count(t, db, "test", "w"); got != 0 {
		t.Fatalf("after expiry: count %d", got)
	}
	deltas, bases = tsDeltaCounts(t, db, "w")
	if len(deltas) != 0 || len(bases) != 0 {
		t.Fatalf("after expiry: %d buckets with deltas, %d bases left", len(deltas), len(bases))
	}
	mustValidate(t, db, "test", "w")
}

// TestTimeseriesDeltaFoldOnClose: a bucket that closes has its deltas
// folded into its base in the same insert.
func TestTimeseriesDeltaFoldOnClose(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	ctx := context.Background()
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	c := db.Database("test").Collection("w")
	base := clk.Now().Truncate(time.Hour)
	// A base of 4, then two single measurements: two deltas (fewer
	// measurements than the base, so no fold).
	var first []any
	for i := 0; i < 4; i++ {
		first = append(first, bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(base.Add(time.Duration(i) * time.Second))}, {Key: "m", Value: "a"}})
	}
	if _, err := c.InsertMany(ctx, first, true); err != nil {
		t.Fatal(err)
	}
	for i := 4; i < 6; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(base.Add(time.Duration(i) * time.Second))}, {Key: "m", Value: "a"}}); err != nil {
			t.Fatal(err)
		}
	}
	deltas, bases := tsDeltaCounts(t, db, "w")
	if len(bases) != 1 || len(deltas) != 1 {
		t.Fatalf("want one bucket with deltas, got bases %v deltas %v", bases, deltas)
	}
	for rid, n := range deltas {
		if n != 2 || bases[rid] != 4 {
			t.Fatalf("bucket %d: %d deltas over base %d, want 2 over 4", rid, n, bases[rid])
		}
	}
	// Past the span: the old bucket closes and is folded.
	if _, err := c.InsertOne(ctx, bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(base.Add(2 * time.Hour))}, {Key: "m", Value: "a"}}); err != nil {
		t.Fatal(err)
	}
	deltas, bases = tsDeltaCounts(t, db, "w")
	if len(bases) != 2 || len(deltas) != 0 {
		t.Fatalf("after close: bases %v deltas %v, want 2 bases and no deltas", bases, deltas)
	}
	var counts []int32
	for _, n := range bases {
		counts = append(counts, n)
	}
	if counts[0]+counts[1] != 7 {
		t.Fatalf("base counts %v, want 6 and 1", counts)
	}
	mustValidate(t, db, "test", "w")
}
