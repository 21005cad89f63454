package benchmarks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// spillN is how many documents the spilling benchmark sorts and groups.
var spillN = envInt("TTLKV_BENCH_SPILL_N", 100_000)

// BenchmarkSpill times what a sort and a $group cost when they spill to
// disk against the same work in memory, interleaved in one run: a find
// sorted by an unindexed field, read to its end, and a $group with one
// group per ten documents; the spilled runs lower the memory limits
// (internalQueryMaxBlockingSortMemoryUsageBytes,
// internalDocumentSourceGroupMaxMemoryBytes) to 1 MiB. It reports the
// medians and each spilled figure x its in-memory one.
func BenchmarkSpill(b *testing.B) {
	ctx := context.Background()
	db, err := engine.Open(b.TempDir(), engine.Options{DisableTTLMonitor: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	c := db.Database("bench").Collection("s")
	pad := strings.Repeat("p", 150)
	docs := make([]any, 0, spillN)
	for i := range spillN {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "k", Value: int32((i * 7919) % spillN)}, {Key: "g", Value: int32(i % (spillN / 10))}, {Key: "pad", Value: pad}})
	}
	if _, err := c.InsertMany(ctx, docs, true); err != nil {
		b.Fatal(err)
	}
	limits := func(n int64) {
		for _, p := range []string{"internalQueryMaxBlockingSortMemoryUsageBytes", "internalDocumentSourceGroupMaxMemoryBytes"} {
			if _, err := db.SetParameter(p, n); err != nil {
				b.Fatal(err)
			}
		}
	}
	sortRun := func() time.Duration {
		start := time.Now()
		r, err := db.RunCommand(ctx, "bench", bson.D{{Key: "find", Value: "s"}, {Key: "sort", Value: bson.D{{Key: "k", Value: int32(1)}}}, {Key: "batchSize", Value: int32(spillN)}})
		if err != nil {
			b.Fatal(err)
		}
		var batch bson.A
		for _, e := range r {
			if cur, ok := e.Value.(bson.D); ok && e.Key == "cursor" {
				for _, f := range cur {
					if f.Key == "firstBatch" {
						batch, _ = f.Value.(bson.A)
					}
				}
			}
		}
		if len(batch) != spillN {
			b.Fatalf("sorted %d documents", len(batch))
		}
		return time.Since(start)
	}
	groupRun := func() time.Duration {
		start := time.Now()
		cur, err := c.Aggregate(ctx, bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$g"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: int32(1)}}}, {Key: "ks", Value: bson.D{{Key: "$push", Value: "$k"}}}}}}, bson.D{{Key: "$count", Value: "groups"}}})
		if err != nil {
			b.Fatal(err)
		}
		all, err := cur.All(ctx)
		if err != nil || len(all) != 1 || all[0][0].Value != int32(spillN/10) {
			b.Fatalf("group: %v, %v", all, err)
		}
		return time.Since(start)
	}
	var memSort, diskSort, memGroup, diskGroup []time.Duration
	for range b.N {
		for range 3 {
			limits(100 << 20)
			memSort, memGroup = append(memSort, sortRun()), append(memGroup, groupRun())
			limits(1 << 20)
			diskSort, diskGroup = append(diskSort, sortRun()), append(diskGroup, groupRun())
		}
	}
	ms, ds, mg, dg := medianDur(memSort), medianDur(diskSort), medianDur(memGroup), medianDur(diskGroup)
	b.ReportMetric(float64(ms.Milliseconds()), "sort-mem-ms")
	b.ReportMetric(float64(ds.Milliseconds()), "sort-disk-ms")
	b.ReportMetric(ds.Seconds()/ms.Seconds(), "sort-x-mem")
	b.ReportMetric(float64(mg.Milliseconds()), "group-mem-ms")
	b.ReportMetric(float64(dg.Milliseconds()), "group-disk-ms")
	b.ReportMetric(dg.Seconds()/mg.Seconds(), "group-x-mem")
}
