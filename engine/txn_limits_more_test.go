package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Time-series chunks and update chunks fit the store's transaction
// limits, whatever the memtables make them: a time-series InsertMany
// whose measurements open a thousand small buckets, and an UpdateMany
// whose documents each gain dozens of multikey index entries. Both
// failed with "transaction too big" when their chunks assumed 32 MiB
// memtables (a 4 MiB time-series estimate; 500 documents per update
// transaction). The store runs with 1 MiB memtables (smallTxns), so
// both cross its limits about as many times over as 20,000
// measurements and 1,000 documents did the default 16 MiB memtables'
// (2.4 MiB, 26,000 entries), with a tenth of the documents.
func TestChunksFitTxnLimits(t *testing.T) {
	t.Parallel()
	db, _, _ := openTestWith(t, smallTxns)
	ctx := context.Background()
	if got := db.store.MaxBatchSize(); got > 200<<10 {
		t.Fatalf("MaxBatchSize %d: this test expects the 1 MiB memtables of smallTxns (150 KiB transactions)", got)
	}

	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 2000
	if raceOn {
		// Under the race detector (one goroutine): 300 KiB of notes
		// alone in about 670 buckets, still twice a transaction's
		// 150 KiB.
		n = 1000
	}
	ms := make([]any, n)
	for i := range ms {
		ms[i] = bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(base.Add(time.Duration(i) * time.Second))},
			{Key: "m", Value: bson.D{{Key: "sensor", Value: fmt.Sprintf("sensor-%05d", i*13%n*2/3)}, {Key: "site", Value: "north-east-building-7"}}},
			{Key: "v", Value: float64(i)}, {Key: "w", Value: int64(i)}, {Key: "note", Value: noise(i, 300)}}
	}
	if _, err := db.Database("test").Collection("ts").InsertMany(ctx, ms, true); err != nil {
		t.Fatalf("time-series InsertMany of %d measurements over many buckets: %v", n, err)
	}
	if c := count(t, db, "test", "ts"); c != int64(n) {
		t.Fatalf("time-series count %d, want %d", c, n)
	}

	const nd = 100 // 330 KiB and 4,000 index entries: over twice a transaction's limits
	docs := make([]any, nd)
	pad := strings.Repeat("p", 3300) // with the tags, just under the 4 KiB value threshold: stored inline
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "pad", Value: pad}}
	}
	if _, err := db.Database("test").Collection("c").InsertMany(ctx, docs, true); err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"tags": 1}, "name": "tags_1"}]}`)
	tags := make(bson.A, 40)
	for j := range tags {
		tags[j] = fmt.Sprintf("tag-%02d", j)
	}
	res, err := db.Database("test").Collection("c").UpdateMany(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "tags", Value: tags}}}}, false)
	if err != nil || res.ModifiedCount != nd {
		t.Fatalf("UpdateMany adding 40 index entries to each of %d documents: %+v, %v", nd, res, err)
	}
	mustValidate(t, db, "test", "c")
	mustValidate(t, db, "test", "ts")
}

// noise returns n bytes of incompressible text derived from i.
func noise(i, n int) string {
	b := make([]byte, n)
	x := uint64(i)*0x9E3779B97F4A7C15 + 1
	for j := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[j] = "0123456789abcdef"[x&15]
	}
	return string(b)
}
