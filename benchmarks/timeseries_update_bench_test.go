package benchmarks

import (
	"context"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Time-series update sizes: measurements loaded (tsMeasurement's shape,
// TTLKV_BENCH_TS_SENSORS sensors), updateMany rounds, updateOne calls.
var (
	tsuN      = envInt("TTLKV_BENCH_TSU_N", 50_000)
	tsuRounds = envInt("TTLKV_BENCH_TSU_ROUNDS", 20)
	tsuOnes   = envInt("TTLKV_BENCH_TSU_ONES", 300)
)

// tsuSide is one side of BenchmarkTimeseriesUpdate.
type tsuSide struct {
	c                 *engine.Collection
	many, one, moves  time.Duration
	manyN, oneN, movN int64
}

// BenchmarkTimeseriesUpdate records time-series update throughput
// (docs/timeseries.md §6.9) beside an ordinary collection holding the
// same measurements with an index on the meta field, in one run, the
// two sides' calls interleaved (alternating which goes first) so both
// see the same machine load:
//
//   - updateMany of one sensor's measurements ({m: <meta>}, $inc of a
//     reading: every measurement of the sensor's buckets changes, each
//     bucket rewritten in place), measurements per second;
//   - updateOne of one measurement ({m: <meta>, t: <time>}, $set of a
//     reading), microseconds per call;
//   - updateMany that moves a sensor's measurements an hour forward
//     ($set of the time: they leave their buckets for new ones),
//     measurements per second.
//
// The -x metrics are time-series throughput over ordinary (above 1:
// time-series faster).
func BenchmarkTimeseriesUpdate(b *testing.B) {
	ctx := context.Background()
	for it := 0; it < b.N; it++ {
		clk := newClock()
		var sides [2]*tsuSide
		for k, timeseries := range []bool{true, false} {
			db := openEngine(b, b.TempDir(), clk)
			c := db.Database("bench").Collection("m")
			if timeseries {
				mustNoErr(b, db.Database("bench").CreateCollection(ctx, "m", bson.D{
					{Key: "timeseries", Value: bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}}},
				}), "create")
			} else {
				_, err := c.CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "m", Value: 1}}})
				mustNoErr(b, err, "CreateIndex")
			}
			batch := make([]any, 0, benchBatch)
			for i := 0; i < tsuN; i++ {
				batch = append(batch, tsMeasurement(i))
				if len(batch) == benchBatch || i == tsuN-1 {
					_, err := c.InsertMany(ctx, batch, true)
					mustNoErr(b, err, "InsertMany")
					batch = batch[:0]
				}
			}
			sides[k] = &tsuSide{c: c}
			defer db.Close()
		}
		order := func(k int) [2]*tsuSide {
			if k%2 == 1 {
				return [2]*tsuSide{sides[1], sides[0]}
			}
			return sides
		}
		meta := func(i int) any { return tsMeasurement(i)[1].Value }
		b.ResetTimer()
		for r := 0; r < tsuRounds; r++ {
			for _, s := range order(r) {
				start := time.Now()
				res, err := s.c.UpdateMany(ctx, bson.D{{Key: "m", Value: meta(r)}},
					bson.D{{Key: "$inc", Value: bson.D{{Key: "hum", Value: int32(1)}}}}, false)
				s.many += time.Since(start)
				mustNoErr(b, err, "UpdateMany")
				s.manyN += res.ModifiedCount
			}
		}
		for r := 0; r < tsuOnes; r++ {
			i := (r * 7919) % tsuN
			m := tsMeasurement(i)
			for _, s := range order(r) {
				start := time.Now()
				res, err := s.c.UpdateOne(ctx, bson.D{{Key: "m", Value: m[1].Value}, {Key: "t", Value: m[0].Value}},
					bson.D{{Key: "$set", Value: bson.D{{Key: "temp", Value: float64(r)}}}}, false)
				s.one += time.Since(start)
				mustNoErr(b, err, "UpdateOne")
				s.oneN += res.MatchedCount
			}
		}
		for r := 0; r < tsuRounds; r++ {
			sensor := tsuRounds + r // not touched by the first rounds
			for _, s := range order(r) {
				start := time.Now()
				res, err := s.c.UpdateMany(ctx, bson.D{{Key: "m", Value: meta(sensor)}},
					bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: bson.D{{Key: "$add", Value: bson.A{"$t", int64(3600_000)}}}}}}}}, false)
				s.moves += time.Since(start)
				mustNoErr(b, err, "UpdateMany (time)")
				s.movN += res.ModifiedCount
			}
		}
		b.StopTimer()
		ts, plain := sides[0], sides[1]
		if ts.manyN != plain.manyN || ts.oneN != plain.oneN || ts.movN != plain.movN {
			b.Fatalf("the sides updated different counts: %+v %+v", *ts, *plain)
		}
		b.ReportMetric(float64(ts.manyN)/ts.many.Seconds(), "ts-many-meas/s")
		b.ReportMetric(float64(plain.manyN)/plain.many.Seconds(), "plain-many-docs/s")
		b.ReportMetric(plain.many.Seconds()/ts.many.Seconds(), "many-x")
		b.ReportMetric(float64(ts.one.Microseconds())/float64(tsuOnes), "ts-one-us")
		b.ReportMetric(float64(plain.one.Microseconds())/float64(tsuOnes), "plain-one-us")
		b.ReportMetric(plain.one.Seconds()/ts.one.Seconds(), "one-x")
		b.ReportMetric(float64(ts.movN)/ts.moves.Seconds(), "ts-move-meas/s")
		b.ReportMetric(float64(plain.movN)/plain.moves.Seconds(), "plain-move-docs/s")
		b.ReportMetric(plain.moves.Seconds()/ts.moves.Seconds(), "move-x")
	}
}
