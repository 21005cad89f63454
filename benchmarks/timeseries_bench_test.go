package benchmarks

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Time-series sizes: measurements, and sensors (meta values) they are
// spread over, one measurement per sensor per second.
var (
	tsN       = envInt("TTLKV_BENCH_TS_N", 200_000)
	tsSensors = envInt("TTLKV_BENCH_TS_SENSORS", 100)
)

// tsMeasurement returns measurement i: sensor i % tsSensors at second
// i / tsSensors after baseTime, with two readings.
func tsMeasurement(i int) bson.D {
	return bson.D{
		{Key: "t", Value: bson.NewDateTimeFromTime(baseTime.Add(time.Duration(i/tsSensors) * time.Second))},
		{Key: "m", Value: bson.D{{Key: "sensor", Value: "sensor-" + strconv.Itoa(i%tsSensors)}, {Key: "site", Value: "north"}}},
		{Key: "temp", Value: 20 + float64(i%97)/10},
		{Key: "hum", Value: int32(40 + i%31)},
	}
}

// tsLoad inserts the measurements into c in InsertMany batches and
// returns the time it took.
func tsLoad(tb testing.TB, c *engine.Collection) time.Duration {
	tb.Helper()
	ctx := context.Background()
	batch := make([]any, 0, benchBatch)
	start := time.Now()
	for i := 0; i < tsN; i++ {
		batch = append(batch, tsMeasurement(i))
		if len(batch) == benchBatch || i == tsN-1 {
			if _, err := c.InsertMany(ctx, batch, true); err != nil {
				tb.Fatalf("InsertMany: %v", err)
			}
			batch = batch[:0]
		}
	}
	return time.Since(start)
}

// tsSide is one side of the comparison: a time-series collection or an
// ordinary collection with a TTL index on the time field.
type tsSide struct {
	dir             string
	db              *engine.DB
	c               *engine.Collection
	ingest, expire  time.Duration
	disk, reclaimed int64
	deleted         int64 // what the pass reports (buckets or documents)
}

// openTSSide opens a fresh store and creates the side's collection.
func openTSSide(b *testing.B, clk *fakeClock, timeseries bool) *tsSide {
	ctx := context.Background()
	s := &tsSide{dir: b.TempDir()}
	s.db = openEngine(b, s.dir, clk)
	const expire = 3600
	s.c = s.db.Database("bench").Collection("m")
	if timeseries {
		mustNoErr(b, s.db.Database("bench").CreateCollection(ctx, "m", bson.D{
			{Key: "timeseries", Value: bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}}},
			{Key: "expireAfterSeconds", Value: int32(expire)},
		}), "create")
	} else {
		_, err := s.c.CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "t", Value: 1}},
			Options: bson.D{{Key: "expireAfterSeconds", Value: int32(expire)}}})
		mustNoErr(b, err, "CreateIndex")
	}
	return s
}

// tsLoadBoth inserts the measurements into both sides, batch by batch,
// alternating which side goes first, and times each side's InsertMany
// calls only (the batch is built outside the timers). Interleaving
// makes both sides run under the same machine load, which on a shared
// machine changes by the second; loading one side after the other let
// a burst of load land on one side only.
func tsLoadBoth(b *testing.B, ts, plain *tsSide) {
	ctx := context.Background()
	batch := make([]any, 0, benchBatch)
	k := 0
	for i := 0; i < tsN; i++ {
		batch = append(batch, tsMeasurement(i))
		if len(batch) < benchBatch && i < tsN-1 {
			continue
		}
		sides := [2]*tsSide{ts, plain}
		if k%2 == 1 {
			sides[0], sides[1] = plain, ts
		}
		for _, s := range sides {
			start := time.Now()
			_, err := s.c.InsertMany(ctx, batch, true)
			s.ingest += time.Since(start)
			mustNoErr(b, err, "InsertMany")
		}
		batch = batch[:0]
		k++
	}
}

// finishTSSide measures disk use (after close, and after Reclaim) and
// times the TTL pass that removes every measurement.
func finishTSSide(b *testing.B, clk *fakeClock, s *tsSide) {
	ctx := context.Background()
	mustNoErr(b, s.db.Close(), "close")
	s.disk, _ = dirBytes(s.dir)
	db := openEngine(b, s.dir, clk)
	mustNoErr(b, db.Reclaim(ctx), "Reclaim")
	mustNoErr(b, db.Close(), "close")
	s.reclaimed, _ = dirBytes(s.dir)
	db = openEngine(b, s.dir, clk)
	defer db.Close()
	start := time.Now()
	res, err := db.RunTTLPass(ctx)
	s.expire = time.Since(start)
	mustNoErr(b, err, "RunTTLPass")
	s.deleted = res.Deleted
	n, err := db.Database("bench").Collection("m").CountDocuments(ctx, bson.D{})
	mustNoErr(b, err, "count")
	if n != 0 {
		b.Fatalf("%d measurements left after expiry", n)
	}
}

// BenchmarkTimeseries compares, in one run, TTLKV_BENCH_TS_N
// measurements (TTLKV_BENCH_TS_SENSORS sensors, one reading per sensor
// per second) stored in a time-series collection with the same
// measurements in an ordinary collection with a TTL index on the time
// field: ingest rate (InsertMany batches of TTLKV_BENCH_BATCH, the two
// sides' batches interleaved, see tsLoadBoth), disk use after loading
// (files' allocated blocks after close, and again after DB.Reclaim,
// which drops superseded bucket versions), and expiry rate in
// measurements removed per second by one RunTTLPass once everything has
// expired (the sides one after the other). Targets (issue 6): ingest >=
// 3x, disk <= 0.4x, expiry >= 10x.
func BenchmarkTimeseries(b *testing.B) {
	for it := 0; it < b.N; it++ {
		clk := newClock()
		tsS, plain := openTSSide(b, clk, true), openTSSide(b, clk, false)
		tsLoadBoth(b, tsS, plain)
		// Past every measurement's expiry, bucket span included.
		clk.Advance(time.Duration(tsN/tsSensors)*time.Second + 3*time.Hour)
		finishTSSide(b, clk, tsS)
		finishTSSide(b, clk, plain)
		const mib = 1 << 20
		b.ReportMetric(rate(tsN, tsS.ingest), "ts-ingest-meas/s")
		b.ReportMetric(rate(tsN, plain.ingest), "plain-ingest-docs/s")
		b.ReportMetric(plain.ingest.Seconds()/tsS.ingest.Seconds(), "ingest-x")
		b.ReportMetric(float64(tsS.disk)/mib, "ts-disk-MiB")
		b.ReportMetric(float64(plain.disk)/mib, "plain-disk-MiB")
		b.ReportMetric(float64(tsS.disk)/float64(plain.disk), "disk-x")
		b.ReportMetric(float64(tsS.reclaimed)/mib, "ts-reclaimed-MiB")
		b.ReportMetric(float64(plain.reclaimed)/mib, "plain-reclaimed-MiB")
		b.ReportMetric(float64(tsS.reclaimed)/float64(plain.reclaimed), "reclaimed-disk-x")
		b.ReportMetric(rate(tsN, tsS.expire), "ts-expire-meas/s")
		b.ReportMetric(rate(tsN, plain.expire), "plain-expire-docs/s")
		b.ReportMetric(plain.expire.Seconds()/tsS.expire.Seconds(), "expire-x")
		b.ReportMetric(float64(tsS.deleted), "ts-buckets-deleted")
	}
}

// BenchmarkTimeseriesIngest loads TTLKV_BENCH_TS_N measurements into a
// time-series collection alone (no baseline, no expiry): the benchmark
// to profile the insert path with -cpuprofile. Figures to compare with
// the baseline come from BenchmarkTimeseries.
func BenchmarkTimeseriesIngest(b *testing.B) {
	ctx := context.Background()
	for it := 0; it < b.N; it++ {
		db := openEngine(b, b.TempDir(), newClock())
		mustNoErr(b, db.Database("bench").CreateCollection(ctx, "m", bson.D{
			{Key: "timeseries", Value: bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}}},
			{Key: "expireAfterSeconds", Value: int32(3600)},
		}), "create")
		d := tsLoad(b, db.Database("bench").Collection("m"))
		b.ReportMetric(rate(tsN, d), "ts-ingest-meas/s")
		mustNoErr(b, db.Close(), "close")
	}
}
