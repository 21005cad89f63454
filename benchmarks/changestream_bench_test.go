package benchmarks

import (
	"context"
	"os"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Sizes of the change-stream benchmarks (issue 21).
var (
	csInsertN  = envInt("TTLKV_BENCH_CS_N", 200_000)       // documents per side of BenchmarkChangeStreamInsert
	csSingleN  = envInt("TTLKV_BENCH_CS_SINGLE_N", 10_000) // InsertOne calls per side
	csLatencyN = envInt("TTLKV_BENCH_CS_LATENCY_N", 2000)  // events timed by BenchmarkChangeStreamLatency
	csReapN    = envInt("TTLKV_BENCH_CS_REAP_N", 200_000)  // documents reaped per side of BenchmarkChangeStreamTTLPass
)

// openCS opens ttlkv with change streams on or off.
func openCS(tb testing.TB, clk *fakeClock, on bool) *engine.DB {
	tb.Helper()
	return reopenCS(tb, tb.TempDir(), clk, on)
}

// reopenCS opens the engine in dir with change streams on or off.
func reopenCS(tb testing.TB, dir string, clk *fakeClock, on bool) *engine.DB {
	tb.Helper()
	db, err := engine.Open(dir, engine.Options{Clock: clk.Now, DisableTTLMonitor: true, ChangeStreams: on})
	if err != nil {
		tb.Fatalf("engine open: %v", err)
	}
	return db
}

// BenchmarkChangeStreamInsert: insert throughput with change streams on
// against off, in the same iteration, sides alternating (x-off: on rate /
// off rate; target >= 0.8). InsertMany batches of TTLKV_BENCH_BATCH, then
// single InsertOne calls (x-off-single). x-off-cpu is the CPU time of the
// InsertMany phase (off / on); x-off-cpu-total that of the whole side,
// Close's flushes and compactions included, which the machine's load
// moves least.
func BenchmarkChangeStreamInsert(b *testing.B) {
	ctx := context.Background()
	for it := 0; it < b.N; it++ {
		var many, single, cpu, total [2]float64 // [off, on]
		order := []bool{false, true}
		if it%2 == 1 {
			order = []bool{true, false}
		}
		for _, on := range order {
			k := 0
			if on {
				k = 1
			}
			db := openCS(b, newClock(), on)
			c := db.Database("bench").Collection("c")
			_, err := c.CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "n", Value: int32(1)}}})
			mustNoErr(b, err, "index")
			start, c0 := time.Now(), cpuTime()
			engineLoad(b, c, 0, csInsertN, noExpiry)
			many[k] = rate(csInsertN, time.Since(start))
			cpu[k] = (cpuTime() - c0).Seconds()
			start = time.Now()
			for i := 0; i < csSingleN; i++ {
				_, err := c.InsertOne(ctx, makeDoc(csInsertN+i, noExpiry(i)))
				mustNoErr(b, err, "InsertOne")
			}
			single[k] = rate(csSingleN, time.Since(start))
			mustNoErr(b, db.Close(), "close")
			// Everything the writes cost this process, the flushes and
			// compactions Close finishes included.
			total[k] = (cpuTime() - c0).Seconds()
		}
		b.Logf("iteration %d: x-off %.3f x-off-single %.3f x-off-cpu %.3f x-off-cpu-total %.3f (on %.0f docs/s, off %.0f docs/s)",
			it, many[1]/many[0], single[1]/single[0], cpu[0]/cpu[1], total[0]/total[1], many[1], many[0])
		b.ReportMetric(total[0]/total[1], "x-off-cpu-total")
		b.ReportMetric(many[1]/many[0], "x-off")
		b.ReportMetric(single[1]/single[0], "x-off-single")
		b.ReportMetric(cpu[0]/cpu[1], "x-off-cpu")
		b.ReportMetric(many[1], "on-docs/s")
		b.ReportMetric(many[0], "off-docs/s")
	}
}

// BenchmarkChangeStreamLatency: from just before InsertOne to a waiting
// watcher's Next returning the event (target p99 <= 5 ms).
func BenchmarkChangeStreamLatency(b *testing.B) {
	ctx := context.Background()
	for it := 0; it < b.N; it++ {
		db := openCS(b, newClock(), true)
		c := db.Database("bench").Collection("c")
		cs, err := c.Watch(ctx, nil, engine.ChangeStreamOptions{})
		mustNoErr(b, err, "watch")
		lat := make([]time.Duration, csLatencyN)
		sent := make([]time.Time, csLatencyN)
		got := make(chan struct{})
		go func() {
			defer close(got)
			for i := 0; i < csLatencyN; i++ {
				if !cs.Next(ctx) {
					b.Errorf("watcher stopped: %v", cs.Err())
					return
				}
				lat[i] = time.Since(sent[i])
				got <- struct{}{}
			}
		}()
		for i := 0; i < csLatencyN; i++ {
			d := makeDoc(i, noExpiry(i))
			sent[i] = time.Now()
			_, err := c.InsertOne(ctx, d)
			mustNoErr(b, err, "insert")
			if _, ok := <-got; !ok {
				break
			}
		}
		mustNoErr(b, db.Close(), "close")
		b.Logf("iteration %d: p50 %.3f ms p99 %.3f ms", it, ms(percentile(lat, 50)), ms(percentile(lat, 99)))
		b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
		b.ReportMetric(ms(percentile(lat, 99)), "p99-ms")
	}
}

// BenchmarkChangeStreamTTLPass: one TTL pass reaping csReapN documents
// with change streams on and pre-images on (every expired document in
// its event), against change streams off (x-off, target >= 0.7) and on
// without pre-images (x-nopre), same iteration. The engine is closed
// and reopened between the load and the pass, so the pass does not pay
// for flushing and compacting what the load wrote (twice the bytes with
// change streams on: the insert events). x-off-cpu-total compares the
// CPU time from the pass to the end of Close (the flushes and
// compactions of what the pass wrote included). TTLKV_BENCH_CS_KINDS
// (e.g. "pre") runs only the sides named, to profile one.
func BenchmarkChangeStreamTTLPass(b *testing.B) {
	ctx := context.Background()
	kinds := []string{"off", "nopre", "pre"}
	if k := os.Getenv("TTLKV_BENCH_CS_KINDS"); k != "" {
		kinds = strings.Split(k, ",") // one side alone, to profile it
	}
	for it := 0; it < b.N; it++ {
		rates, cpus, totals := map[string]float64{}, map[string]float64{}, map[string]float64{}
		for j := range kinds {
			kind := kinds[(j+it)%len(kinds)]
			clk := newClock()
			db := openCS(b, clk, kind != "off")
			if kind == "pre" {
				_, err := db.RunCommand(ctx, "bench", bson.D{{Key: "create", Value: "c"}, {Key: "changeStreamPreAndPostImages", Value: bson.D{{Key: "enabled", Value: true}}}})
				mustNoErr(b, err, "create")
			}
			c := db.Database("bench").Collection("c")
			_, err := c.CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "exp", Value: int32(1)}}, Options: bson.D{{Key: "expireAfterSeconds", Value: int32(0)}}})
			mustNoErr(b, err, "index")
			engineLoad(b, c, 0, csReapN, func(int) time.Time { return baseTime.Add(time.Minute) })
			dir := db.Dir()
			mustNoErr(b, db.Close(), "close after load")
			db = reopenCS(b, dir, clk, kind != "off")
			clk.Advance(time.Hour)
			stop := passProfile(b, kind)
			start, c0 := time.Now(), cpuTime()
			res, err := db.RunTTLPass(ctx)
			mustNoErr(b, err, "pass")
			cpus[kind] = (cpuTime() - c0).Seconds()
			if res.Deleted != int64(csReapN) {
				b.Fatalf("%s: reaped %d of %d", kind, res.Deleted, csReapN)
			}
			rates[kind] = rate(csReapN, time.Since(start))
			mustNoErr(b, db.Close(), "close")
			totals[kind] = (cpuTime() - c0).Seconds() // Close's flushes and compactions included
			stop()
		}
		if len(kinds) < 3 {
			b.Logf("iteration %d: %v docs/s, CPU s %v, through Close %v", it, rates, cpus, totals)
			continue
		}
		b.Logf("iteration %d: x-off %.3f x-nopre %.3f x-off-cpu %.3f x-nopre-cpu %.3f (pre %.0f docs/s, off %.0f docs/s)",
			it, rates["pre"]/rates["off"], rates["pre"]/rates["nopre"], cpus["off"]/cpus["pre"], cpus["nopre"]/cpus["pre"], rates["pre"], rates["off"])
		b.Logf("iteration %d: x-off-cpu-total %.3f x-nopre-cpu-total %.3f", it, totals["off"]/totals["pre"], totals["nopre"]/totals["pre"])
		b.ReportMetric(totals["off"]/totals["pre"], "x-off-cpu-total")
		b.ReportMetric(cpus["off"]/cpus["pre"], "x-off-cpu")
		b.ReportMetric(rates["pre"]/rates["off"], "x-off")
		b.ReportMetric(rates["pre"]/rates["nopre"], "x-nopre")
		b.ReportMetric(rates["pre"], "pre-docs/s")
		b.ReportMetric(rates["off"], "off-docs/s")
	}
}

// passProfile starts a CPU profile of one side's TTL pass through Close
// when TTLKV_BENCH_CS_PASS_PROFILE names a file prefix (the profile goes
// to <prefix>-<kind>.out), and returns what stops it.
func passProfile(b *testing.B, kind string) (stop func()) {
	prefix := os.Getenv("TTLKV_BENCH_CS_PASS_PROFILE")
	if prefix == "" {
		return func() {}
	}
	f, err := os.Create(prefix + "-" + kind + ".out")
	mustNoErr(b, err, "profile")
	mustNoErr(b, pprof.StartCPUProfile(f), "profile")
	return func() {
		pprof.StopCPUProfile()
		mustNoErr(b, f.Close(), "profile")
	}
}

// csCappedUpdateN is how many in-place updates each side of
// BenchmarkChangeStreamCappedUpdate makes.
var csCappedUpdateN = envInt("TTLKV_BENCH_CS_CAPPED_UPDATE_N", 5000)

// BenchmarkChangeStreamCappedUpdate: in-place updates of a capped
// collection's documents, one UpdateOne each, with change streams on
// against off, in the same iteration, sides alternating (x-off: on rate
// / off rate). With change streams on, each update commits its intent
// before the ring write and its event after it (docs/change-streams.md).
func BenchmarkChangeStreamCappedUpdate(b *testing.B) {
	ctx := context.Background()
	const docs = 1000
	for it := 0; it < b.N; it++ {
		var rates [2]float64 // [off, on]
		order := []bool{false, true}
		if it%2 == 1 {
			order = []bool{true, false}
		}
		for _, on := range order {
			k := 0
			if on {
				k = 1
			}
			db := openCS(b, newClock(), on)
			_, err := db.RunCommand(ctx, "bench", bson.D{{Key: "create", Value: "k"}, {Key: "capped", Value: true}, {Key: "size", Value: int64(1 << 20)}})
			mustNoErr(b, err, "create")
			c := db.Database("bench").Collection("k")
			batch := make([]any, docs)
			for i := range batch {
				batch[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "v", Value: int32(0)}}
			}
			_, err = c.InsertMany(ctx, batch, true)
			mustNoErr(b, err, "insert")
			start := time.Now()
			for i := 0; i < csCappedUpdateN; i++ {
				_, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(i % docs)}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: int32(1)}}}}, false)
				mustNoErr(b, err, "UpdateOne")
			}
			rates[k] = rate(csCappedUpdateN, time.Since(start))
			mustNoErr(b, db.Close(), "close")
		}
		b.Logf("iteration %d: x-off %.3f (on %.0f updates/s, off %.0f updates/s)", it, rates[1]/rates[0], rates[1], rates[0])
		b.ReportMetric(rates[1]/rates[0], "x-off")
		b.ReportMetric(rates[1], "on-updates/s")
		b.ReportMetric(rates[0], "off-updates/s")
	}
}
