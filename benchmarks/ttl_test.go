package benchmarks

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/ttlkv/ttlkv/engine"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// ttlColl creates bench.docs with a TTL index on exp (expireAfterSeconds
// 0: a document expires at its exp date); clustered by _id when
// TTLKV_BENCH_CLUSTERED=1, for the TTL benchmarks on that layout.
func ttlColl(tb testing.TB, db *engine.DB) *engine.Collection {
	tb.Helper()
	if benchClustered {
		return clusteredTTLColl(tb, db)
	}
	return ttlIndexOn(tb, db.Database("bench").Collection("docs"))
}

// benchClustered makes ttlColl's collections clustered by _id.
var benchClustered = os.Getenv("TTLKV_BENCH_CLUSTERED") == "1"

// clusteredTTLColl is ttlColl with bench.docs clustered by _id
// (clusteredIndex): two keys a document, the _id entry holding it and
// the exp entry.
func clusteredTTLColl(tb testing.TB, db *engine.DB) *engine.Collection {
	tb.Helper()
	err := db.Database("bench").CreateCollection(context.Background(), "docs", bson.D{{Key: "clusteredIndex", Value: bson.D{
		{Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "unique", Value: true}}}})
	mustNoErr(tb, err, "create clustered")
	return ttlIndexOn(tb, db.Database("bench").Collection("docs"))
}

// ttlIndexOn creates c's TTL index on exp.
func ttlIndexOn(tb testing.TB, c *engine.Collection) *engine.Collection {
	tb.Helper()
	_, err := c.CreateIndex(context.Background(), engine.IndexModel{
		Keys:    bson.D{{Key: "exp", Value: 1}},
		Options: bson.D{{Key: "expireAfterSeconds", Value: int32(0)}},
	})
	mustNoErr(tb, err, "CreateIndex")
	return c
}

// halfExpired gives even documents an expiry within the first hour
// (spread by the millisecond) and odd ones one far in the future.
func halfExpired(i int) time.Time {
	if i%2 == 0 {
		return baseTime.Add(time.Duration(i) * time.Millisecond)
	}
	return baseTime.Add(10000*time.Hour + time.Duration(i)*time.Millisecond)
}

// rawReap is the raw-Badger reaper: it iterates the exp index keys up to
// cutoff (keys only) and deletes each one with its record key through a
// WriteBatch, in one loop. It returns how many documents it deleted.
func rawReap(db *badger.DB, cutoff time.Time) (int, error) {
	return rawReapFrom(db, lsm.IndexPrefixV1(rawColl, rawSecIx), cutoff)
}

// rawReapFrom is rawReap starting at index key lo.
func rawReapFrom(db *badger.DB, lo []byte, cutoff time.Time) (int, error) {
	return rawReapKeys(db, lo, cutoff, false)
}

// rawReapKeys is rawReapFrom; withID also deletes each document's _id
// index entry, whose key it builds from the record id without reading
// the record (rawLoad gives record id i+1 the _id int64(i)): the three
// keys ttlkv deletes per document, with none of its reads.
func rawReapKeys(db *badger.DB, lo []byte, cutoff time.Time, withID bool) (int, error) {
	prefix := lsm.IndexPrefixV1(rawColl, rawSecIx)
	hi := lsm.PrefixEnd(append(append([]byte{}, prefix...), lsm.AppendKey(nil, bson.NewDateTimeFromTime(cutoff), false)...))
	wb := db.NewWriteBatch()
	defer wb.Cancel()
	n := 0
	err := db.View(func(txn *badger.Txn) error {
		it := rawKeyIter(txn, prefix)
		defer it.Close()
		for it.Seek(lo); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			if string(k) >= string(hi) {
				break
			}
			_, rid, ok := lsm.SplitIndexKeyV1(k)
			if !ok {
				continue
			}
			if err := wb.Delete(k); err != nil {
				return err
			}
			if err := wb.Delete(lsm.RecordKeyV1(rawColl, rid)); err != nil {
				return err
			}
			if withID {
				if err := wb.Delete(lsm.IndexKeyV1(rawColl, rawIDIx, lsm.AppendKey(nil, int64(rid-1), false), rid)); err != nil {
					return err
				}
			}
			n++
		}
		return nil
	})
	if err != nil {
		return n, err
	}
	return n, wb.Flush()
}

// BenchmarkReap loads TTLKV_BENCH_N documents with one TTL index, half
// of them expired, and times one RunTTLPass (fake clock). In the same
// iteration raw Badger, loaded with the same keys, deletes the expired
// documents' record and index keys (rawReap); its load, ttlkv's three
// keys a document through a WriteBatch, is timed too (raw3-ingest-docs/s,
// ingest-x-raw3, and raw3-ingest-x-sqlite with the SQLite peer: what the
// keys alone cost on Badger against SQLite's ingest). Target (issue 4): >= 0.8x
// the baseline's docs/s. It also reports the process's CPU time a
// document over each side's reap, and their ratio (x-baseline-cpu,
// higher is better), and ttlkv's ingest rate (ingest-docs/s).
//
// With TTLKV_BENCH_SQLITE (steady_sqlite_test.go) the SQLite peer, in
// the same iteration after the two, ingests the same documents in
// transactions of TTLKV_BENCH_BATCH with an index on their date and
// deletes the expired half in batches of 1000 rows: ingest-x-sqlite and
// reap-x-sqlite are ttlkv's rates over SQLite's (issue 17's one-off:
// ingest at least SQLite's), ingest-cpu-x-sqlite and reap-cpu-x-sqlite
// SQLite's process CPU over ttlkv's (higher is better).
func BenchmarkReap(b *testing.B) {
	ctx := context.Background()
	want := (benchN + 1) / 2
	for it := 0; it < b.N; it++ {
		clk := newClock()
		db := openEngine(b, b.TempDir(), clk)
		c := ttlColl(b, db)
		cpu0, start := cpuTime(), time.Now()
		engineLoad(b, c, 0, benchN, halfExpired)
		ingest, ingestCPU := time.Since(start), cpuTime()-cpu0
		clk.Advance(2 * time.Hour)
		stopProf := profileReap(b)
		cpu0, start = cpuTime(), time.Now()
		res, err := db.RunTTLPass(ctx)
		eng := time.Since(start)
		engCPU := cpuTime() - cpu0
		stopProf()
		mustNoErr(b, err, "RunTTLPass")
		if res.Deleted != int64(want) {
			b.Fatalf("pass deleted %d, want %d", res.Deleted, want)
		}
		mustNoErr(b, db.Close(), "close")

		raw := openBadger(b, b.TempDir())
		start = time.Now()
		rawLoad(b, raw, 0, benchN, "exp", true, halfExpired)
		rawIngest := time.Since(start)
		cpu0 = cpuTime()
		start = time.Now()
		n, err := rawReap(raw, clk.Now())
		base := time.Since(start)
		baseCPU := cpuTime() - cpu0
		mustNoErr(b, err, "raw reap")
		if n != want {
			b.Fatalf("raw reap deleted %d, want %d", n, want)
		}
		mustNoErr(b, raw.Close(), "close")
		b.ReportMetric(rate(want, eng), "docs/s")
		b.ReportMetric(rate(want, base), "base-docs/s")
		b.ReportMetric(base.Seconds()/eng.Seconds(), "x-baseline")
		// CPU time of the whole process over the pass (Badger's own
		// goroutines included), a document: less at the mercy of other
		// processes than the rate.
		b.ReportMetric(float64(engCPU.Microseconds())/float64(want), "cpu-us/doc")
		b.ReportMetric(float64(baseCPU.Microseconds())/float64(want), "base-cpu-us/doc")
		b.ReportMetric(baseCPU.Seconds()/engCPU.Seconds(), "x-baseline-cpu")
		b.ReportMetric(rate(benchN, ingest), "ingest-docs/s")
		b.ReportMetric(rate(benchN, rawIngest), "raw3-ingest-docs/s")
		b.ReportMetric(rawIngest.Seconds()/ingest.Seconds(), "ingest-x-raw3")
		if sqlitePeer != "" {
			sq := runSQLiteOneOff(b, benchN, "exp", true)
			b.ReportMetric(sq.IngestS/rawIngest.Seconds(), "raw3-ingest-x-sqlite")
			b.ReportMetric(float64(benchN)/sq.IngestS, "sqlite-ingest-docs/s")
			b.ReportMetric(sq.IngestS/ingest.Seconds(), "ingest-x-sqlite")
			b.ReportMetric(float64(ingestCPU.Microseconds())/float64(benchN), "ingest-cpu-us/doc")
			b.ReportMetric(sq.IngestCPU*1e6/float64(benchN), "sqlite-ingest-cpu-us/doc")
			b.ReportMetric(sq.IngestCPU/ingestCPU.Seconds(), "ingest-cpu-x-sqlite")
			b.ReportMetric(float64(sq.Reaped)/sq.ReapS, "sqlite-docs/s")
			b.ReportMetric(sq.ReapS/eng.Seconds(), "reap-x-sqlite")
			b.ReportMetric(sq.ReapCPU*1e6/float64(sq.Reaped), "sqlite-cpu-us/doc")
			b.ReportMetric(sq.ReapCPU/engCPU.Seconds(), "reap-cpu-x-sqlite")
		}
	}
}

// reapSteps is how many steps BenchmarkReapInterleaved takes.
var reapSteps = envInt("TTLKV_BENCH_REAP_STEPS", 10)

// reapClustered and reapOrdinary choose the ttlkv sides of
// BenchmarkReapInterleaved: the clustered collection and the ordinary
// one (both by default). Every store open beside the one timed adds its
// background compactions to the machine's load: compare figures taken
// with the same sides.
var (
	reapClustered = os.Getenv("TTLKV_BENCH_REAP_CLUSTERED") != "0"
	reapOrdinary  = os.Getenv("TTLKV_BENCH_REAP_ORDINARY") != "0"
)

// rawReapRange is rawReap over the exp keys dated in [from, cutoff]: a
// stepwise raw reaper that, like the engine's low-water mark, does not
// walk again over the tombstones its earlier steps left. withID: see
// rawReapKeys.
func rawReapRange(db *badger.DB, from, cutoff time.Time, withID bool) (int, error) {
	prefix := lsm.IndexPrefixV1(rawColl, rawSecIx)
	return rawReapKeys(db, append(append([]byte{}, prefix...), lsm.AppendKey(nil, bson.NewDateTimeFromTime(from), false)...), cutoff, withID)
}

// BenchmarkReapInterleaved is BenchmarkReap taken in turns, so that
// both sides meet the same machine load (on a shared machine the
// sequential phases of BenchmarkReap see load that differs by several
// times): both stores are loaded with TTLKV_BENCH_N documents, half
// expired; then, TTLKV_BENCH_REAP_STEPS (10) times, the clock moves a
// step of the expired dates forward, ttlkv runs one RunTTLPass and raw
// Badger deletes the same step's keys (rawReapRange). The times of the
// steps are summed per side. Target as BenchmarkReap: >= 0.8x
// (x-baseline).
//
// A third store, raw Badger loaded alike, deletes in the same turns the
// three keys per document that ttlkv deletes (record, exp entry and _id
// entry; rawReapKeys), still reading nothing: x-baseline3 is ttlkv's
// rate against that, which shows how much of the gap to the two-key
// baseline is the third key rather than ttlkv's own work.
//
// A fourth, ttlkv with bench.docs clustered by _id (clusteredIndex),
// deletes two keys a document, the _id entry holding the document and
// the exp entry, as the two-key baseline does: clustered-x-baseline.
// TTLKV_BENCH_REAP_CLUSTERED=0 leaves it out, TTLKV_BENCH_REAP_ORDINARY=0
// the ordinary collection.
func BenchmarkReapInterleaved(b *testing.B) {
	ctx := context.Background()
	want := (benchN + 1) / 2
	for it := 0; it < b.N; it++ {
		clk := newClock()
		var db *engine.DB
		if reapOrdinary {
			db = openEngine(b, b.TempDir(), clk)
			engineLoad(b, ttlColl(b, db), 0, benchN, halfExpired)
		}
		raw := openBadger(b, b.TempDir())
		rawLoad(b, raw, 0, benchN, "exp", true, halfExpired)
		raw3 := openBadger(b, b.TempDir())
		rawLoad(b, raw3, 0, benchN, "exp", true, halfExpired)
		var dbC *engine.DB
		if reapClustered {
			dbC = openEngine(b, b.TempDir(), clk)
			engineLoad(b, clusteredTTLColl(b, dbC), 0, benchN, halfExpired)
		}
		var rawF *badger.DB
		if reapFloor {
			rawF = openBadger(b, b.TempDir())
			rawLoad(b, rawF, 0, benchN, "exp", false, halfExpired)
		}
		var eng, base, base3, floor, clu time.Duration
		var engN, rawN, raw3N, floorN, cluN int
		from := baseTime
		for s := 1; s <= reapSteps; s++ {
			cutoff := baseTime.Add(time.Duration(benchN*s/reapSteps) * time.Millisecond)
			clk.Advance(cutoff.Sub(clk.Now()))
			if db != nil {
				start := time.Now()
				res, err := db.RunTTLPass(ctx)
				eng += time.Since(start)
				mustNoErr(b, err, "RunTTLPass")
				engN += int(res.Deleted)
			}
			start := time.Now()
			n, err := rawReapRange(raw, from, cutoff, false)
			base += time.Since(start)
			mustNoErr(b, err, "raw reap")
			rawN += n
			start = time.Now()
			n, err = rawReapRange(raw3, from, cutoff, true)
			base3 += time.Since(start)
			mustNoErr(b, err, "raw three-key reap")
			raw3N += n
			if dbC != nil {
				start = time.Now()
				res, err := dbC.RunTTLPass(ctx)
				clu += time.Since(start)
				mustNoErr(b, err, "RunTTLPass (clustered)")
				cluN += int(res.Deleted)
			}
			if rawF != nil {
				start = time.Now()
				n, err = rawReapReading(rawF, from, cutoff)
				floor += time.Since(start)
				mustNoErr(b, err, "raw reading reap")
				floorN += n
			}
			from = cutoff.Add(time.Millisecond)
		}
		if db == nil {
			engN = want
		}
		if engN != want || rawN != want || raw3N != want {
			b.Fatalf("deleted %d (ttlkv), %d (raw) and %d (raw, three keys), want %d", engN, rawN, raw3N, want)
		}
		left, err := countKeys(raw3, lsm.IndexPrefixV1(rawColl, rawIDIx))
		mustNoErr(b, err, "count _id keys")
		if left != benchN-want {
			b.Fatalf("raw three-key reap left %d _id entries, want %d", left, benchN-want)
		}
		mustNoErr(b, raw.Close(), "close")
		mustNoErr(b, raw3.Close(), "close")
		b.ReportMetric(rate(want, base), "base-docs/s")
		b.ReportMetric(rate(want, base3), "base3-docs/s")
		b.ReportMetric(base.Seconds()/base3.Seconds(), "base3-x-base")
		if dbC != nil {
			if cluN != want {
				b.Fatalf("clustered ttlkv deleted %d, want %d", cluN, want)
			}
			mustNoErr(b, dbC.Close(), "close")
			b.ReportMetric(rate(want, clu), "clustered-docs/s")
			b.ReportMetric(base.Seconds()/clu.Seconds(), "clustered-x-baseline")
		}
		if rawF != nil {
			if floorN != want {
				b.Fatalf("raw reading reap deleted %d, want %d", floorN, want)
			}
			mustNoErr(b, rawF.Close(), "close")
			b.ReportMetric(base.Seconds()/floor.Seconds(), "floor-x-base")
			if db != nil {
				b.ReportMetric(floor.Seconds()/eng.Seconds(), "x-floor")
			}
		}
		if db != nil {
			mustNoErr(b, db.Close(), "close")
			b.ReportMetric(rate(want, eng), "docs/s")
			b.ReportMetric(base.Seconds()/eng.Seconds(), "x-baseline")
			b.ReportMetric(base3.Seconds()/eng.Seconds(), "x-baseline3")
		}
	}
}

// profileReap starts a CPU profile into the file named by
// TTLKV_BENCH_REAP_PROFILE (when set), so that a profile of BenchmarkReap
// shows the pass alone rather than the load around it. The returned
// function stops it.
func profileReap(tb testing.TB) func() { return profileEnv(tb, "TTLKV_BENCH_REAP_PROFILE") }

// profileEnv starts a CPU profile into the file named by the environment
// variable env (when set); the returned function stops it.
func profileEnv(tb testing.TB, env string) func() {
	return recordEnv(tb, env, "profile", pprof.StartCPUProfile, pprof.StopCPUProfile)
}

// traceEnv starts an execution trace into the file named by the
// environment variable env (when set); the returned function stops it.
func traceEnv(tb testing.TB, env string) func() {
	return recordEnv(tb, env, "trace", trace.Start, trace.Stop)
}

// recordEnv starts a recording (what: a profile, a trace) into the file
// named by the environment variable env, when set; the returned
// function stops it and closes the file.
func recordEnv(tb testing.TB, env, what string, start func(io.Writer) error, stop func()) func() {
	name := os.Getenv(env)
	if name == "" {
		return func() {}
	}
	f, err := os.Create(name)
	mustNoErr(tb, err, "create "+what)
	mustNoErr(tb, start(f), "start "+what)
	return func() {
		stop()
		mustNoErr(tb, f.Close(), "close "+what)
	}
}

// writerStats is what a one-document-per-transaction writer achieved.
type writerStats struct {
	n   int
	dur time.Duration
	p99 time.Duration
	max time.Duration
	// late is the latency of the write in flight when stop closed, not
	// counted in the others (see runWriter).
	late time.Duration
	// lats are the latencies counted, sorted.
	lats []time.Duration
}

// countLate counts the write that was in flight when a window's stop
// closed (see runWriter) as one of the window's writes.
func countLate(w writerStats) writerStats {
	if w.late == 0 {
		return w
	}
	return stats(append(w.lats, w.late), w.dur+w.late)
}

// mergeWriters is the writer stats of several windows taken together:
// their writes over their summed time, and the percentiles of all their
// latencies.
func mergeWriters(ws ...writerStats) writerStats {
	var lats []time.Duration
	var d time.Duration
	for _, w := range ws {
		lats = append(lats, w.lats...)
		d += w.dur
	}
	m := stats(lats, d)
	for _, w := range ws {
		m.late = max(m.late, w.late)
	}
	return m
}

func (w writerStats) rate() float64 { return rate(w.n, w.dur) }

// runWriter calls write in a loop until stop is closed (or, when stop is
// nil, for d) and returns its throughput and latencies. With stop, the
// write still in flight when stop closes is left out of n, dur and the
// latencies (dur ends where it began) and reported as late: it is not
// wholly beside the reaper, and ttlkv's one meets the space reclamation
// that a large RunTTLPass starts as it returns (a memtable flush that
// holds writers back for hundreds of milliseconds).
func runWriter(write func(i int) error, next *int, d time.Duration, stop <-chan struct{}) (writerStats, error) {
	var lats []time.Duration
	start := time.Now()
	var deadline <-chan time.Time
	if stop == nil {
		deadline = time.After(d)
	}
	for {
		select {
		case <-stop:
			return stats(lats, time.Since(start)), nil
		case <-deadline:
			return stats(lats, time.Since(start)), nil
		default:
		}
		t := time.Now()
		if err := write(*next); err != nil {
			return writerStats{}, err
		}
		*next++
		lat := time.Since(t)
		if stop != nil {
			select {
			case <-stop:
				ws := stats(lats, t.Sub(start))
				ws.late = lat
				return ws, nil
			default:
			}
		}
		lats = append(lats, lat)
	}
}

func stats(lats []time.Duration, d time.Duration) writerStats {
	ws := writerStats{n: len(lats), dur: d, lats: lats}
	ws.p99 = percentile(lats, 99) // sorts lats
	if len(lats) > 0 {
		ws.max = lats[len(lats)-1]
	}
	return ws
}

// BenchmarkForegroundImpact measures a writer inserting one document per
// transaction (InsertOne into the TTL collection) while RunTTLPass reaps
// TTLKV_BENCH_FG_N expired documents, against the same writer idle just
// before and just after (A-B-A). Phases: 3 s of writing after the load
// (reported alone as the old idle figure, x-idle-tput-3s); idle for
// TTLKV_BENCH_FG_IDLE_MS; the pass, and fgSpill more of writing, and any
// space reclamation the pass started; idle again for
// TTLKV_BENCH_FG_IDLE_MS. A reclamation that waits for the writer to go
// quiet (reclaim-owed 1) runs after the writer stops: owed-reclaim-ms
// is how long it took then, owed-before-MiB and owed-after-MiB the
// store's allocated disk before and after it. Targets (issue 4): throughput beside the
// reaper >= 0.7x that of the idle window before it (x-idle-tput), p99
// <= 2x (x-idle-p99). The same against both idle windows together is
// reported as x-idle-tput-aba and x-idle-p99-aba: it flatters ttlkv,
// because the compactions of the reaper's tombstones go on into the
// window after (there the writer ran at 22–29k writes/s against 38–42k
// before, while with no reaper the two windows were within 20%).
//
// Why so: a writer alone does not run at one rate. Its own flushes and
// compactions come every few seconds, and its rate over 3 s windows
// swings between 15k and 39k writes/s (BenchmarkWriterAlone), while the
// store grows by a million documents a minute; the first seconds after
// the load are its peak. An idle window of 45 s averages over those
// cycles. The fgSpill seconds after the pass count as the reaper's:
// Badger flushes and compacts the reaper's deletes after it has
// returned. With TTLKV_BENCH_FG_CONTROL_MS set, the pass is replaced by
// a sleep that long: the protocol with no reaper, which gave 0.99x
// against the window before (RESULTS.md, "Foreground impact: what idle
// means").
//
// The naive baseline runs over raw Badger: a writer committing record +
// exp index + _id keys per transaction, 3 s idle and then beside
// rawReap deleting the same expired set in one loop.
func BenchmarkForegroundImpact(b *testing.B) {
	ctx := context.Background()
	future := func(int) time.Time { return baseTime.Add(10000 * time.Hour) }
	expired := func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Millisecond) }
	control := time.Duration(envInt("TTLKV_BENCH_FG_CONTROL_MS", 0)) * time.Millisecond
	for it := 0; it < b.N; it++ {
		// ttlkv.
		clk := newClock()
		dbDir := b.TempDir()
		db := openEngine(b, dbDir, clk)
		c := ttlColl(b, db)
		engineLoad(b, c, 0, fgN, expired)
		clk.Advance(time.Duration(fgN)*time.Millisecond + time.Hour)
		next := fgN
		write := func(i int) error {
			_, err := c.InsertOne(ctx, makeDoc(i, future(i)))
			return err
		}
		idle3, err := runWriter(write, &next, fgIdleShort, nil)
		mustNoErr(b, err, "idle writer")
		idleBefore, err := runWriter(write, &next, fgIdle, nil)
		mustNoErr(b, err, "idle writer before")
		stop := make(chan struct{})
		var reapDur time.Duration
		var reapErr error
		go func() {
			defer close(stop)
			start := time.Now()
			if control > 0 {
				time.Sleep(control)
				reapDur = time.Since(start)
				return
			}
			res, err := db.RunTTLPass(ctx)
			reapDur, reapErr = time.Since(start), err
			if err == nil && res.Deleted != int64(fgN) {
				reapErr = fmt.Errorf("pass deleted %d, want %d", res.Deleted, fgN)
			}
		}()
		stopProf := profileEnv(b, "TTLKV_BENCH_FG_PROFILE")
		stopTrace := traceEnv(b, "TTLKV_BENCH_FG_TRACE")
		pass, err := runWriter(write, &next, 0, stop)
		mustNoErr(b, err, "writer beside the reaper")
		<-stop
		stopTrace()
		stopProf()
		mustNoErr(b, reapErr, "RunTTLPass")
		pass = countLate(pass)
		spill, err := runWriter(write, &next, fgSpill, nil)
		mustNoErr(b, err, "writer after the pass")
		// A reclamation the pass started counts as the reaper's too.
		var recl writerStats
		if db.Stats().Reclaiming {
			reclaimed := make(chan struct{})
			go func() {
				defer close(reclaimed)
				for end := time.Now().Add(reclaimWait); db.Stats().Reclaiming && time.Now().Before(end); {
					time.Sleep(time.Millisecond)
				}
			}()
			recl, err = runWriter(write, &next, 0, reclaimed)
			mustNoErr(b, err, "writer beside the reclamation")
			recl = countLate(recl)
			if db.Stats().Reclaiming {
				b.Fatalf("a space reclamation still ran %v after the pass", reclaimWait)
			}
		}
		busy := mergeWriters(pass, spill, recl)
		idleAfter, err := runWriter(write, &next, fgIdle, nil)
		mustNoErr(b, err, "idle writer after")
		idle := mergeWriters(idleBefore, idleAfter)
		// A reclamation that waits for the writer to go quiet (still
		// owed after the idle window) runs where it lands: after the
		// writer stops, at the first pass after which nothing was
		// written. Its time and the disk it gives back are reported.
		owed := db.Stats().ReclaimOwed
		var owedDur time.Duration
		alloc0, _ := dirBytes(dbDir)
		if owed {
			for i := 0; i < 2 && db.Stats().ReclaimOwed; i++ {
				start := time.Now()
				_, err := db.RunTTLPass(ctx)
				mustNoErr(b, err, "RunTTLPass after the writer")
				for end := time.Now().Add(reclaimWait); db.Stats().Reclaiming && time.Now().Before(end); {
					time.Sleep(time.Millisecond)
				}
				owedDur = time.Since(start)
			}
			if db.Stats().ReclaimOwed || db.Stats().Reclaiming {
				b.Fatalf("the owed reclamation did not run once the writer stopped")
			}
		}
		alloc1, _ := dirBytes(dbDir)
		mustNoErr(b, db.Close(), "close")

		// Naive raw Badger.
		raw := openBadger(b, b.TempDir())
		rawLoad(b, raw, 0, fgN, "exp", true, expired)
		rnext := fgN
		rwrite := func(i int) error {
			kv, err := rawKeys(makeDoc(i, future(i)), uint64(i+1), "exp")
			if err != nil {
				return err
			}
			return raw.Update(func(txn *badger.Txn) error {
				if err := txn.Set(kv.rec, kv.val); err != nil {
					return err
				}
				if err := txn.Set(kv.ix, nil); err != nil {
					return err
				}
				return txn.Set(kv.id, nil)
			})
		}
		ridle, err := runWriter(rwrite, &rnext, fgIdleShort, nil)
		mustNoErr(b, err, "raw idle writer")
		rstop := make(chan struct{})
		var rawReapErr error
		var rawDur time.Duration
		go func() {
			defer close(rstop)
			start := time.Now()
			var n int
			n, rawReapErr = rawReap(raw, clk.Now())
			rawDur = time.Since(start)
			if rawReapErr == nil && n != fgN {
				rawReapErr = fmt.Errorf("raw reap deleted %d, want %d", n, fgN)
			}
		}()
		rbusy, err := runWriter(rwrite, &rnext, 0, rstop)
		mustNoErr(b, err, "raw writer beside the reaper")
		<-rstop
		mustNoErr(b, rawReapErr, "raw reap")
		mustNoErr(b, raw.Close(), "close")

		b.ReportMetric(idleBefore.rate(), "idle-before-writes/s")
		b.ReportMetric(idleAfter.rate(), "idle-after-writes/s")
		b.ReportMetric(idle3.rate(), "idle-3s-writes/s")
		b.ReportMetric(busy.rate(), "reap-writes/s")
		b.ReportMetric(pass.rate(), "pass-writes/s")
		b.ReportMetric(spill.rate(), "spill-writes/s")
		b.ReportMetric(busy.rate()/idleBefore.rate(), "x-idle-tput")
		b.ReportMetric(busy.rate()/idle.rate(), "x-idle-tput-aba")
		b.ReportMetric(busy.rate()/idle3.rate(), "x-idle-tput-3s")
		b.ReportMetric(ms(idleBefore.p99), "idle-p99-ms")
		b.ReportMetric(ms(busy.p99), "reap-p99-ms")
		b.ReportMetric(ms(busy.p99)/ms(idleBefore.p99), "x-idle-p99")
		b.ReportMetric(ms(busy.p99)/ms(idle.p99), "x-idle-p99-aba")
		b.ReportMetric(ms(busy.p99)/ms(idle3.p99), "x-idle-p99-3s")
		b.ReportMetric(ms(busy.max), "reap-max-ms")
		b.ReportMetric(ms(idle.max), "idle-max-ms")
		b.ReportMetric(ms(recl.max), "reclaim-max-ms")
		b.ReportMetric(float64(recl.n), "reclaim-writes")
		b.ReportMetric(b2f(owed), "reclaim-owed")
		b.ReportMetric(ms(owedDur), "owed-reclaim-ms")
		b.ReportMetric(float64(alloc0)/(1<<20), "owed-before-MiB")
		b.ReportMetric(float64(alloc1)/(1<<20), "owed-after-MiB")
		b.ReportMetric(rate(fgN, reapDur), "reaped/s")
		b.ReportMetric(rbusy.rate()/ridle.rate(), "base-x-idle-tput")
		b.ReportMetric(ms(rbusy.p99)/ms(ridle.p99), "base-x-idle-p99")
		b.ReportMetric(ms(ridle.p99), "base-idle-p99-ms")
		b.ReportMetric(ms(rbusy.p99), "base-reap-p99-ms")
		b.ReportMetric(ms(rbusy.max), "base-reap-max-ms")
		b.ReportMetric(ms(rbusy.late), "base-reap-late-ms")
		b.ReportMetric(rate(fgN, rawDur), "base-reaped/s")
	}
}

// BenchmarkQueueShape runs TTLKV_BENCH_QUEUE_PASSES rounds of: insert
// TTLKV_BENCH_QUEUE_N documents that expire now, advance the clock, time
// one RunTTLPass. A reaper that re-seeks through the tombstones of
// earlier rounds slows down round after round; the target (issue 4) is
// last pass <= 1.5x the first. The baseline is the naive raw-Badger
// reaper (rawReap, which starts at the index's first key every time)
// over the same rounds.
func BenchmarkQueueShape(b *testing.B) {
	ctx := context.Background()
	for it := 0; it < b.N; it++ {
		clk := newClock()
		db := openEngine(b, b.TempDir(), clk)
		c := ttlColl(b, db)
		raw := openBadger(b, b.TempDir())
		var first, last, rfirst, rlast time.Duration
		for p := 0; p < queuePasses; p++ {
			now := clk.Now()
			exp := func(int) time.Time { return now }
			from, to := p*queueN, (p+1)*queueN
			engineLoad(b, c, from, to, exp)
			rawLoad(b, raw, from, to, "exp", true, exp)
			clk.Advance(time.Second)
			start := time.Now()
			res, err := db.RunTTLPass(ctx)
			d := time.Since(start)
			mustNoErr(b, err, "RunTTLPass")
			if res.Deleted != int64(queueN) {
				b.Fatalf("pass %d deleted %d, want %d", p, res.Deleted, queueN)
			}
			start = time.Now()
			n, err := rawReap(raw, clk.Now())
			rd := time.Since(start)
			mustNoErr(b, err, "raw reap")
			if n != queueN {
				b.Fatalf("raw pass %d deleted %d, want %d", p, n, queueN)
			}
			if p == 0 {
				first, rfirst = d, rd
			}
			last, rlast = d, rd
		}
		mustNoErr(b, db.Close(), "close")
		mustNoErr(b, raw.Close(), "close")
		b.ReportMetric(ms(first), "first-ms")
		b.ReportMetric(ms(last), "last-ms")
		b.ReportMetric(last.Seconds()/first.Seconds(), "x-first")
		b.ReportMetric(ms(rfirst), "base-first-ms")
		b.ReportMetric(ms(rlast), "base-last-ms")
		b.ReportMetric(rlast.Seconds()/rfirst.Seconds(), "base-x-first")
	}
}

// BenchmarkSpace inserts TTLKV_BENCH_N documents of which 90% expire,
// reaps them (RunTTLPass), reclaims (DB.Reclaim) and closes; it compares
// the directory's allocated bytes with those of a DB holding only the
// surviving 10%, written alone. Target (issue 4): <= 1.5x.
func BenchmarkSpace(b *testing.B) {
	ctx := context.Background()
	exp := func(i int) time.Time {
		if i%10 == 0 {
			return baseTime.Add(10000 * time.Hour)
		}
		return baseTime
	}
	// The pass deletes more than the 10,000 documents after which the
	// engine starts a background reclamation on its own; DB.Reclaim
	// would then wait for it and run a second one inside the timer.
	// With the threshold out of reach the timed Reclaim is the only one.
	openEngine := func(b *testing.B, dir string, clk *fakeClock) *engine.DB {
		b.Helper()
		opts := engine.Options{Clock: clk.Now, DisableTTLMonitor: true}
		engine.SetReclaimAfterForTesting(&opts, 1_000_000_000_000)
		db, err := engine.Open(dir, opts)
		mustNoErr(b, err, "engine open")
		return db
	}
	for it := 0; it < b.N; it++ {
		clk := newClock()
		dir := b.TempDir()
		db := openEngine(b, dir, clk)
		c := ttlColl(b, db)
		engineLoad(b, c, 0, benchN, exp)
		mustNoErr(b, db.Close(), "close")
		full, _ := dirBytes(dir)
		db = openEngine(b, dir, clk)
		clk.Advance(time.Hour)
		res, err := db.RunTTLPass(ctx)
		mustNoErr(b, err, "RunTTLPass")
		if want := benchN - (benchN+9)/10; res.Deleted != int64(want) {
			b.Fatalf("pass deleted %d, want %d", res.Deleted, want)
		}
		start := time.Now()
		mustNoErr(b, db.Reclaim(ctx), "Reclaim")
		reclaim := time.Since(start)
		mustNoErr(b, db.Close(), "close")
		reaped, reapedApp := dirBytes(dir)

		adir := b.TempDir()
		alone := openEngine(b, adir, clk)
		ac := ttlColl(b, alone)
		batch := make([]any, 0, benchBatch)
		for i := 0; i < benchN; i += 10 {
			batch = append(batch, makeDoc(i, exp(i)))
			if len(batch) == benchBatch {
				_, err := ac.InsertMany(ctx, batch, true)
				mustNoErr(b, err, "InsertMany")
				batch = batch[:0]
			}
		}
		if len(batch) > 0 {
			_, err := ac.InsertMany(ctx, batch, true)
			mustNoErr(b, err, "InsertMany")
		}
		mustNoErr(b, alone.Close(), "close")
		base, _ := dirBytes(adir)
		const mib = 1 << 20
		b.ReportMetric(float64(full)/mib, "full-MiB")
		b.ReportMetric(float64(reaped)/mib, "reaped-MiB")
		b.ReportMetric(float64(reapedApp)/mib, "reaped-apparent-MiB")
		b.ReportMetric(float64(base)/mib, "alone-MiB")
		b.ReportMetric(float64(reaped)/float64(base), "x-alone")
		b.ReportMetric(ms(reclaim), "reclaim-ms")
	}
}

// BenchmarkBatchDocs runs DeleteMany({}) over TTLKV_BENCH_DELETE_N
// documents (one secondary index) with batchedDeletesTargetBatchDocs at
// 10, 50, 100, 500 and 1000 (other targets at their defaults), beside
// raw Badger deleting the same three keys per document with a
// WriteBatch.
func BenchmarkBatchDocs(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{10, 50, 100, 500, 1000} {
		b.Run(fmt.Sprintf("docs=%d", size), func(b *testing.B) {
			for it := 0; it < b.N; it++ {
				db := openEngine(b, b.TempDir(), newClock())
				_, err := db.SetParameter("batchedDeletesTargetBatchDocs", size)
				mustNoErr(b, err, "SetParameter")
				c := db.Database("bench").Collection("docs")
				_, err = c.CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "n", Value: 1}}})
				mustNoErr(b, err, "CreateIndex")
				engineLoad(b, c, 0, deleteN, noExpiry)
				before := db.Stats()
				start := time.Now()
				res, err := c.DeleteMany(ctx, bson.D{})
				eng := time.Since(start)
				mustNoErr(b, err, "DeleteMany")
				if res.DeletedCount != int64(deleteN) {
					b.Fatalf("deleted %d, want %d", res.DeletedCount, deleteN)
				}
				after := db.Stats()
				mustNoErr(b, db.Close(), "close")

				raw := openBadger(b, b.TempDir())
				rawLoad(b, raw, 0, deleteN, "n", true, noExpiry)
				// The keys to delete, built before the timer: rawKeys
				// rebuilds and marshals each document (~1.6 us), work
				// the baseline's deletes do not include.
				keys := make([][]byte, 0, 3*deleteN)
				for i := 0; i < deleteN; i++ {
					kv, err := rawKeys(makeDoc(i, noExpiry(i)), uint64(i+1), "n")
					mustNoErr(b, err, "raw keys")
					keys = append(keys, kv.rec, kv.ix, kv.id)
				}
				start = time.Now()
				wb := raw.NewWriteBatch()
				for _, k := range keys {
					mustNoErr(b, wb.Delete(k), "raw delete")
				}
				mustNoErr(b, wb.Flush(), "raw flush")
				base := time.Since(start)
				for _, pre := range [][]byte{lsm.RecordPrefixV1(rawColl), lsm.CollectionIndexPrefixV1(rawColl)} {
					left, err := countKeys(raw, pre)
					mustNoErr(b, err, "raw count")
					if left != 0 {
						b.Fatalf("raw deletes left %d keys under %x", left, pre)
					}
				}
				mustNoErr(b, raw.Close(), "close")
				batches := after.BatchedDeleteBatches - before.BatchedDeleteBatches
				b.ReportMetric(rate(deleteN, eng), "docs/s")
				b.ReportMetric(rate(deleteN, base), "base-docs/s")
				b.ReportMetric(base.Seconds()/eng.Seconds(), "x-baseline")
				if batches > 0 {
					b.ReportMetric(float64(after.BatchedDeleteDocs-before.BatchedDeleteDocs)/float64(batches), "docs/batch")
				}
			}
		})
	}
}

var (
	_ = sync.Mutex{}
	_ atomic.Int64
)

// BenchmarkWriterAlone is the control of BenchmarkForegroundImpact's idle
// windows: the same writer (InsertOne into the TTL collection loaded
// with TTLKV_BENCH_FG_N documents), with nothing else running, for
// TTLKV_BENCH_DRIFT_WINDOWS windows of 3 s. It reports the first
// window's rate and the slowest, median and fastest window's: how far a
// 3 s window of a writer alone is from its rate over a minute, as its
// own flushes and compactions come and go.
func BenchmarkWriterAlone(b *testing.B) {
	ctx := context.Background()
	windows := envInt("TTLKV_BENCH_DRIFT_WINDOWS", 20)
	for it := 0; it < b.N; it++ {
		clk := newClock()
		db := openEngine(b, b.TempDir(), clk)
		c := ttlColl(b, db)
		engineLoad(b, c, 0, fgN, func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Millisecond) })
		next := fgN
		write := func(i int) error {
			_, err := c.InsertOne(ctx, makeDoc(i, baseTime.Add(10000*time.Hour)))
			return err
		}
		var all []writerStats
		var rates []float64
		for w := 0; w < windows; w++ {
			st, err := runWriter(write, &next, fgIdleShort, nil)
			mustNoErr(b, err, "writer")
			all = append(all, st)
			rates = append(rates, st.rate())
		}
		mustNoErr(b, db.Close(), "close")
		b.ReportMetric(rates[0], "first-writes/s")
		b.ReportMetric(mergeWriters(all...).rate(), "all-writes/s")
		slices.Sort(rates)
		b.ReportMetric(rates[0], "min-writes/s")
		b.ReportMetric(rates[len(rates)/2], "median-writes/s")
		b.ReportMetric(rates[len(rates)-1], "max-writes/s")
	}
}

// b2f is 1 for true, 0 for false (a metric).
func b2f(v bool) float64 {
	if v {
		return 1
	}
	return 0
}
