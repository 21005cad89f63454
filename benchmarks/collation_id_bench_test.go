package benchmarks

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// collationIDBatch is how many documents each iteration of
// BenchmarkCollatedID inserts into, and then finds by _id in, each
// collection.
var collationIDBatch = envInt("TTLKV_BENCH_COLLATION_ID_BATCH", 500)

// BenchmarkCollatedID times writes and reads keyed by string _ids in a
// collection whose _id index follows its default collation ({locale:
// "en", strength: 2}: each _id keyed by its collation key) against the
// same on a simple collection, interleaved in one run. Each iteration
// inserts a batch into each (insert-us: the batch) and then finds every
// document of the batch by _id with the find command (find-us: one
// lookup), through the _id index in both. It reports medians and the
// collated/simple ratios.
func BenchmarkCollatedID(b *testing.B) {
	ctx := context.Background()
	db, err := engine.Open(b.TempDir(), engine.Options{DisableTTLMonitor: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	cmd := func(c bson.D) {
		if _, err := db.RunCommand(ctx, "bench", c); err != nil {
			b.Fatal(err)
		}
	}
	cmd(bson.D{{Key: "create", Value: "simple"}})
	cmd(bson.D{{Key: "create", Value: "coll"}, {Key: "collation", Value: bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}}}})
	next := 0
	batch := func() []any {
		docs := make([]any, collationIDBatch)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: fmt.Sprintf("User-%08d", next+i)}, {Key: "v", Value: int32(i)}}
		}
		next += len(docs)
		return docs
	}
	insert := func(name string, docs []any) time.Duration {
		start := time.Now()
		if _, err := db.Database("bench").Collection(name).InsertMany(ctx, docs, true); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	finds := func(name string, docs []any) time.Duration {
		start := time.Now()
		for _, d := range docs {
			id := d.(bson.D)[0].Value
			cmd(bson.D{{Key: "find", Value: name}, {Key: "filter", Value: bson.D{{Key: "_id", Value: id}}}})
		}
		return time.Since(start) / time.Duration(len(docs))
	}
	var insS, insC, findS, findC []time.Duration
	for i := 0; i < b.N; i++ {
		ds, dc := batch(), batch()
		insS = append(insS, insert("simple", ds))
		insC = append(insC, insert("coll", dc))
		findS = append(findS, finds("simple", ds))
		findC = append(findC, finds("coll", dc))
	}
	mis, mic, mfs, mfc := medianDur(insS), medianDur(insC), medianDur(findS), medianDur(findC)
	b.ReportMetric(float64(mis.Microseconds()), "insert-simple-us")
	b.ReportMetric(float64(mic.Microseconds()), "insert-collated-us")
	b.ReportMetric(mic.Seconds()/mis.Seconds(), "insert-x-simple")
	b.ReportMetric(float64(mfs.Nanoseconds())/1000, "find-simple-us")
	b.ReportMetric(float64(mfc.Nanoseconds())/1000, "find-collated-us")
	b.ReportMetric(mfc.Seconds()/mfs.Seconds(), "find-x-simple")
}
