package benchmarks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cappedMemSize is the ring of BenchmarkCappedMemory (issue 17: 1 GiB).
var cappedMemSize = envInt("TTLKV_BENCH_CAPPED_MEM_SIZE", 1<<30)

// heapInUse returns the Go heap in use after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// BenchmarkCappedMemory fills a capped collection of
// TTLKV_BENCH_CAPPED_MEM_SIZE bytes (default 1 GiB) with ~200-byte
// documents, a tenth more than fit so that the ring has wrapped, and
// reports the Go heap in use (after GC) that the full collection adds
// over the empty one: heap-MiB and heap-B/record. Sub-benchmarks:
// objectid, documents without _id, which get default ObjectIds in
// increasing order (issue 17's target: at most 32 MiB for 1 GiB);
// random, random 16-character string _ids, which land in the _id
// index's exact side map (reported, not a target); deleted, objectid
// documents then every one deleted (capped deletes keep a tombstone a
// record until the ring wraps over it: the figure is what the deleted
// ring holds). A capped collection
// with only the _id index writes nothing to Badger, so the difference
// is the ring's and the _id index's memory.
func BenchmarkCappedMemory(b *testing.B) {
	for _, kind := range []string{"objectid", "random", "deleted"} {
		b.Run(kind, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cappedMemory(b, kind == "random", kind == "deleted")
			}
		})
	}
}

func cappedMemory(b *testing.B, random, deleteAll bool) {
	ctx := context.Background()
	db := openEngine(b, b.TempDir(), newClock())
	defer db.Close()
	err := db.Database("bench").CreateCollection(ctx, "mem",
		bson.D{{Key: "capped", Value: true}, {Key: "size", Value: int64(cappedMemSize)}})
	mustNoErr(b, err, "create capped")
	c := db.Database("bench").Collection("mem")
	rng := rand.New(rand.NewPCG(17, 17))
	before := heapInUse()
	n := cappedMemSize / 230 * 11 / 10
	batch := make([]any, 0, benchBatch)
	for i := 0; i < n; i++ {
		d := bson.D{
			{Key: "n", Value: scramble(i)},
			{Key: "name", Value: "user-" + strconv.Itoa(i)},
			{Key: "pad", Value: filler},
		}
		if random {
			d = append(bson.D{{Key: "_id", Value: fmt.Sprintf("%016x", rng.Uint64())}}, d...)
		}
		batch = append(batch, d)
		if len(batch) == cap(batch) || i == n-1 {
			_, err := c.InsertMany(ctx, batch, true)
			mustNoErr(b, err, "insert")
			batch = batch[:0]
		}
	}
	count, err := c.CountDocuments(ctx, bson.D{})
	mustNoErr(b, err, "count")
	if deleteAll {
		res, err := c.DeleteMany(ctx, bson.D{})
		mustNoErr(b, err, "delete all")
		if res.DeletedCount != count {
			b.Fatalf("deleted %d of %d", res.DeletedCount, count)
		}
	}
	after := heapInUse()
	added := float64(int64(after) - int64(before))
	b.ReportMetric(added/(1<<20), "heap-MiB")
	b.ReportMetric(added/float64(count), "heap-B/record")
	b.ReportMetric(float64(count), "records")
	b.ReportMetric(float64(cappedMemSize)/(1<<20), "ring-MiB")
	runtime.KeepAlive(batch)
}

// BenchmarkCappedFindByID fills a capped collection of
// TTLKV_BENCH_CAPPED_SIZE bytes (4 MiB) past a wrap with ~200-byte
// documents with default ObjectId _ids, then finds 20,000 live documents
// by _id in random order: what a lookup by _id costs since the _id index
// keeps a sample of increasing _ids and reads the ring for the rest
// (lookup-us). Reported, no target; compare runs of one machine.
func BenchmarkCappedFindByID(b *testing.B) {
	for i := 0; i < b.N; i++ {
		ctx := context.Background()
		db := openEngine(b, b.TempDir(), newClock())
		c := createCappedBench(b, db)
		n := cappedSize / 230 * 11 / 10
		var ids []any
		batch := make([]any, 0, benchBatch)
		for j := 0; j < n; j++ {
			batch = append(batch, bson.D{{Key: "n", Value: scramble(j)}, {Key: "name", Value: "user-" + strconv.Itoa(j)}, {Key: "pad", Value: filler}})
			if len(batch) == cap(batch) || j == n-1 {
				res, err := c.InsertMany(ctx, batch, true)
				mustNoErr(b, err, "insert")
				ids = append(ids, res.InsertedIDs...)
				batch = batch[:0]
			}
		}
		count, err := c.CountDocuments(ctx, bson.D{})
		mustNoErr(b, err, "count")
		live := ids[len(ids)-int(count):]
		rng := rand.New(rand.NewPCG(5, 5))
		const lookups = 20000
		start := cpuTime()
		for j := 0; j < lookups; j++ {
			d, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: live[rng.IntN(len(live))]}})
			if err != nil || d == nil {
				b.Fatalf("find by _id: %v %v", d, err)
			}
		}
		b.ReportMetric(float64(cpuTime()-start)/1e3/lookups, "lookup-cpu-us")
		db.Close()
	}
}
