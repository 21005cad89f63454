package benchmarks

import (
	"context"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// joinN is how many local and foreign documents the $lookup benchmark
// joins.
var joinN = envInt("TTLKV_BENCH_JOIN_N", 5_000)

// BenchmarkLookup times the same join two ways, interleaved in one run:
// $lookup's equality form (localField/foreignField, a find by the
// foreign field) and its pipeline form with let and {$match: {$expr:
// {$eq: ["$k", "$$v"]}}}, the form mongod's documentation teaches for
// joins with more conditions. The foreign field has an index. It reports
// the medians and the pipeline form's time x the equality form's
// (x-equality): the pipeline form's leading $match goes into the find,
// so both use the index.
func BenchmarkLookup(b *testing.B) {
	ctx := context.Background()
	db, err := engine.Open(b.TempDir(), engine.Options{DisableTTLMonitor: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	d := db.Database("bench")
	local, foreign := make([]any, 0, joinN), make([]any, 0, joinN)
	for i := range joinN {
		local = append(local, bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}})
		foreign = append(foreign, bson.D{{Key: "_id", Value: int32(i)}, {Key: "k", Value: int32(i)}, {Key: "s", Value: "A"}})
	}
	if _, err := d.Collection("l").InsertMany(ctx, local, true); err != nil {
		b.Fatal(err)
	}
	if _, err := d.Collection("f").InsertMany(ctx, foreign, true); err != nil {
		b.Fatal(err)
	}
	if _, err := d.Collection("f").CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "k", Value: int32(1)}}}); err != nil {
		b.Fatal(err)
	}
	forms := []bson.D{
		{{Key: "from", Value: "f"}, {Key: "localField", Value: "x"}, {Key: "foreignField", Value: "k"}, {Key: "as", Value: "j"}},
		{{Key: "from", Value: "f"}, {Key: "let", Value: bson.D{{Key: "v", Value: "$x"}}}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$match", Value: bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$k", "$$v"}}}}}}},
		}}, {Key: "as", Value: "j"}},
	}
	run := func(form bson.D) time.Duration {
		start := time.Now()
		cur, err := d.Collection("l").Aggregate(ctx, bson.A{bson.D{{Key: "$lookup", Value: form}}, bson.D{{Key: "$unwind", Value: "$j"}}, bson.D{{Key: "$count", Value: "n"}}})
		if err != nil {
			b.Fatal(err)
		}
		all, err := cur.All(ctx)
		if err != nil || len(all) != 1 || all[0][0].Value != int32(joinN) {
			b.Fatalf("join: %v, %v", all, err)
		}
		return time.Since(start)
	}
	var eq, pipe []time.Duration
	for range b.N {
		for range 3 {
			eq = append(eq, run(forms[0]))
			pipe = append(pipe, run(forms[1]))
		}
	}
	me, mp := medianDur(eq), medianDur(pipe)
	b.ReportMetric(float64(me.Microseconds()), "equality-us")
	b.ReportMetric(float64(mp.Microseconds()), "pipeline-us")
	b.ReportMetric(mp.Seconds()/me.Seconds(), "x-equality")
}
