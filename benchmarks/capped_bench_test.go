package benchmarks

import (
	"context"
	"encoding/binary"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/ttlkv/ttlkv/engine"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Capped benchmark sizes.
var (
	cappedSize  = envInt("TTLKV_BENCH_CAPPED_SIZE", 4<<20) // ring size in bytes
	cappedWraps = envInt("TTLKV_BENCH_CAPPED_WRAPS", 20)   // times the ring is filled over
	tailN       = envInt("TTLKV_BENCH_TAIL_N", 5000)       // documents timed through a tailer
	// cappedOnly limits BenchmarkCappedInsert to some of its phases
	// (comma-separated: capped, ordinary, raw), for profiling one.
	cappedOnly = os.Getenv("TTLKV_BENCH_CAPPED_ONLY")
)

// cpuTime is the user+system CPU time the process has used so far. The
// phases of BenchmarkCappedInsert run one after another and close their
// store, so the difference over a phase is its CPU cost including
// Badger's background goroutines, and unlike wall time it hardly moves
// when other processes load the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cappedDocsPerWrap estimates how many makeDoc documents fill the ring:
// about 200 bytes of payload plus the ring's 40-byte record header.
func cappedDocsPerWrap() int { return cappedSize / 248 }

// wraps records, per wrap of a capped insert, its time and the
// documents inserted in that time. Wraps close at batch boundaries, so
// their document counts differ (at default sizes 16,000-17,240 for a
// 16,912-document wrap): the ratios compare time per document.
type wraps struct {
	t []time.Duration
	n []int
}

// add closes a wrap that took d for docs documents.
func (w *wraps) add(d time.Duration, docs int) {
	w.t = append(w.t, d)
	w.n = append(w.n, docs)
}

// perDoc is the time per document over wraps [from, to); ok is false
// when no document was inserted there.
func (w *wraps) perDoc(from, to int) (secs float64, ok bool) {
	var t time.Duration
	n := 0
	for k := from; k < to; k++ {
		t += w.t[k]
		n += w.n[k]
	}
	return t.Seconds() / float64(n), n > 0
}

// rate is wrap k's documents per second.
func (w *wraps) rate(k int) float64 { return rate(w.n[k], w.t[k]) }

// lastVsFirst is the last wrap's time per document over that of wrap 2,
// the first that evicts on every insert (the first fills an empty
// ring); ok is false with fewer than 2 wraps.
func (w *wraps) lastVsFirst() (float64, bool) {
	if len(w.t) < 2 {
		return 0, false
	}
	last, ok1 := w.perDoc(len(w.t)-1, len(w.t))
	first, ok2 := w.perDoc(1, 2)
	return last / first, ok1 && ok2
}

// lateVsEarly is the time per document of the last four wraps over that
// of wraps 2-5; ok is false with fewer than 9 wraps.
func (w *wraps) lateVsEarly() (float64, bool) {
	if len(w.t) < 9 {
		return 0, false
	}
	late, ok1 := w.perDoc(len(w.t)-4, len(w.t))
	early, ok2 := w.perDoc(1, 5)
	return late / early, ok1 && ok2
}

func createCappedBench(b *testing.B, db *engine.DB) *engine.Collection {
	err := db.Database("bench").CreateCollection(context.Background(), "capped",
		bson.D{{Key: "capped", Value: true}, {Key: "size", Value: int64(cappedSize)}})
	mustNoErr(b, err, "create capped")
	return db.Database("bench").Collection("capped")
}

// BenchmarkCappedInsert inserts TTLKV_BENCH_CAPPED_WRAPS ring-fulls of
// ~200-byte documents (InsertMany batches of TTLKV_BENCH_BATCH) into a
// capped collection of TTLKV_BENCH_CAPPED_SIZE bytes, so that after the
// first wrap every insert evicts; the same documents into an ordinary
// collection (only the _id index); and, as a raw-Badger reference, the
// key writes a capped insert made while its _id index lived in Badger
// (an _id entry set, the evicted one's deleted) with a WriteBatch. Since
// 33f4020 the capped _id index is in memory and a capped insert without
// secondary indexes writes no Badger key, so raw-docs/s no longer
// mirrors the capped path; no target uses it. Targets (issue 5): capped >= 1.5x
// ordinary (x-ordinary; x-ordinary-cpu is the same ratio of CPU time,
// steadier on a loaded machine); the last wrap within 1.2x the first
// that evicts, wrap 2 (x-last-vs-first <= 1.2; x-late-vs-early compares
// the last four wraps with wraps 2-5, steadier than single wraps). Wraps
// are compared by time per document (see wraps).
func BenchmarkCappedInsert(b *testing.B) {
	perWrap := cappedDocsPerWrap()
	n := perWrap * cappedWraps
	for it := 0; it < b.N; it++ {
		var capT, ordT, rawT, capCPU, ordCPU time.Duration
		var wr wraps
		for _, what := range []string{"capped", "ordinary", "raw"} {
			if cappedOnly != "" && !slices.Contains(strings.Split(cappedOnly, ","), what) {
				continue
			}
			dir := b.TempDir()
			cpu0 := cpuTime()
			switch what {
			case "capped", "ordinary":
				db := openEngine(b, dir, newClock())
				c := db.Database("bench").Collection("ordinary")
				if what == "capped" {
					c = createCappedBench(b, db)
				}
				ctx := context.Background()
				batch := make([]any, 0, benchBatch)
				start := time.Now()
				wrapStart := start
				inserted, wrapFrom := 0, 0
				for i := 0; i < n; i++ {
					batch = append(batch, makeDoc(i, noExpiry(i)))
					if len(batch) == benchBatch || i == n-1 {
						_, err := c.InsertMany(ctx, batch, true)
						mustNoErr(b, err, "InsertMany")
						inserted += len(batch)
						batch = batch[:0]
					}
					if what == "capped" && (i+1)%perWrap == 0 {
						now := time.Now()
						wr.add(now.Sub(wrapStart), inserted-wrapFrom)
						wrapStart, wrapFrom = now, inserted
					}
				}
				d := time.Since(start)
				mustNoErr(b, db.Close(), "close")
				if what == "capped" {
					capT, capCPU = d, cpuTime()-cpu0
				} else {
					ordT, ordCPU = d, cpuTime()-cpu0
				}
			case "raw":
				db := openBadger(b, dir)
				start := time.Now()
				wb := db.NewWriteBatch()
				for i := 0; i < n; i++ {
					// A fresh value each time: Badger keeps the slice until
					// the batch's transaction is written.
					off := binary.BigEndian.AppendUint64(nil, uint64(i*248))
					mustNoErr(b, wb.Set(lsm.IndexKeyV1(rawColl, rawIDIx, lsm.AppendKey(nil, int64(i), false), uint64(i+1)), off), "set")
					if i >= perWrap {
						j := i - perWrap
						mustNoErr(b, wb.Delete(lsm.IndexKeyV1(rawColl, rawIDIx, lsm.AppendKey(nil, int64(j), false), uint64(j+1))), "delete")
					}
				}
				mustNoErr(b, wb.Flush(), "flush")
				rawT = time.Since(start)
				mustNoErr(b, db.Close(), "close")
			}
		}
		b.Logf("wrap times %v, documents %v", wr.t, wr.n)
		if capT > 0 {
			b.ReportMetric(rate(n, capT), "capped-docs/s")
			b.ReportMetric(float64(capCPU.Microseconds())/float64(n), "capped-cpu-us/doc")
		}
		if ordT > 0 {
			b.ReportMetric(rate(n, ordT), "ordinary-docs/s")
			b.ReportMetric(float64(ordCPU.Microseconds())/float64(n), "ordinary-cpu-us/doc")
		}
		if rawT > 0 {
			b.ReportMetric(rate(n, rawT), "raw-docs/s")
		}
		if capT > 0 && ordT > 0 {
			b.ReportMetric(ordT.Seconds()/capT.Seconds(), "x-ordinary")
			b.ReportMetric(ordCPU.Seconds()/capCPU.Seconds(), "x-ordinary-cpu")
		}
		if x, ok := wr.lastVsFirst(); ok {
			// The first wrap fills an empty ring (no evictions); the
			// second is the first that evicts on every insert.
			b.ReportMetric(wr.rate(0), "wrap1-docs/s")
			b.ReportMetric(wr.rate(len(wr.t)-1), "wrapN-docs/s")
			b.ReportMetric(x, "x-last-vs-first")
		}
		if x, ok := wr.lateVsEarly(); ok {
			b.ReportMetric(x, "x-late-vs-early")
		}
	}
}

// BenchmarkCappedInsertInterleaved is BenchmarkCappedInsert's capped
// and ordinary phases run batch by batch in turn (two databases open at
// once, each InsertMany timed alone), so that both see the same machine
// load: on a shared machine the sequential phases of
// BenchmarkCappedInsert meet different loads and their wall ratio swings
// 2x between runs. Each side's Badger background work runs during the
// other's batches too, so neither is favoured by it; the ordinary
// database's (larger, as it stores documents) weighs on capped batches.
// x-ordinary is the ratio of summed batch times (target >= 1.5); the
// wrap figures are as in BenchmarkCappedInsert.
func BenchmarkCappedInsertInterleaved(b *testing.B) {
	perWrap := cappedDocsPerWrap()
	n := perWrap * cappedWraps
	for it := 0; it < b.N; it++ {
		cdb := openEngine(b, b.TempDir(), newClock())
		odb := openEngine(b, b.TempDir(), newClock())
		cc := createCappedBench(b, cdb)
		oc := odb.Database("bench").Collection("ordinary")
		ctx := context.Background()
		var capT, ordT time.Duration
		var wr wraps
		var wrapAcc time.Duration
		wrapDocs := 0
		batch := make([]any, 0, benchBatch)
		for i := 0; i < n; {
			batch = batch[:0]
			for ; i < n && len(batch) < benchBatch; i++ {
				batch = append(batch, makeDoc(i, noExpiry(i)))
			}
			// Alternate which side goes first, so neither always follows
			// the other's commit.
			sides := []*engine.Collection{cc, oc}
			if (i/benchBatch)%2 == 1 {
				sides[0], sides[1] = oc, cc
			}
			for _, c := range sides {
				start := time.Now()
				_, err := c.InsertMany(ctx, batch, true)
				mustNoErr(b, err, "InsertMany")
				d := time.Since(start)
				if c == cc {
					capT += d
					wrapAcc += d
					wrapDocs += len(batch)
				} else {
					ordT += d
				}
			}
			if i/perWrap > len(wr.t) {
				wr.add(wrapAcc, wrapDocs)
				wrapAcc, wrapDocs = 0, 0
			}
		}
		mustNoErr(b, cdb.Close(), "close")
		mustNoErr(b, odb.Close(), "close")
		b.ReportMetric(rate(n, capT), "capped-docs/s")
		b.ReportMetric(rate(n, ordT), "ordinary-docs/s")
		b.ReportMetric(ordT.Seconds()/capT.Seconds(), "x-ordinary")
		if len(wr.t) >= 9 {
			if x, ok := wr.lateVsEarly(); ok {
				b.ReportMetric(x, "x-late-vs-early")
			}
			if x, ok := wr.lastVsFirst(); ok {
				b.ReportMetric(x, "x-last-vs-first")
			}
		}
	}
}

// BenchmarkCappedScan reads a full capped collection in natural order
// (Find without a filter, all documents), beside raw Badger iterating
// the same documents stored as records.
func BenchmarkCappedScan(b *testing.B) {
	perWrap := cappedDocsPerWrap()
	n := perWrap * 2 // wrapped once: the ring is full
	dir := b.TempDir()
	db := openEngine(b, dir, newClock())
	defer db.Close()
	c := createCappedBench(b, db)
	engineLoad(b, c, 0, n, noExpiry)
	raw := openBadger(b, b.TempDir())
	defer raw.Close()
	count, err := c.CountDocuments(context.Background(), bson.D{})
	mustNoErr(b, err, "count")
	rawLoad(b, raw, int(int64(n)-count), n, "n", false, noExpiry)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		start := time.Now()
		cur, err := c.Find(context.Background(), bson.D{})
		mustNoErr(b, err, "find")
		docs, err := cur.All(context.Background())
		mustNoErr(b, err, "all")
		engT := time.Since(start)
		if int64(len(docs)) != count {
			b.Fatalf("scan returned %d of %d", len(docs), count)
		}
		start = time.Now()
		seen := 0
		err = raw.View(func(txn *badger.Txn) error {
			o := badger.DefaultIteratorOptions
			o.Prefix = lsm.RecordPrefixV1(rawColl)
			itr := txn.NewIterator(o)
			defer itr.Close()
			for itr.Rewind(); itr.Valid(); itr.Next() {
				if err := itr.Item().Value(func(v []byte) error { _ = v; return nil }); err != nil {
					return err
				}
				seen++
			}
			return nil
		})
		mustNoErr(b, err, "raw scan")
		rawT := time.Since(start)
		if int64(seen) != count {
			b.Fatalf("raw scan read %d of %d", seen, count)
		}
		b.ReportMetric(rate(len(docs), engT), "docs/s")
		b.ReportMetric(rate(seen, rawT), "raw-docs/s")
		b.ReportMetric(float64(count), "docs")
	}
}

// BenchmarkCappedTailLatency times TTLKV_BENCH_TAIL_N documents from
// just before InsertOne to their arrival at a tailable awaitData cursor
// blocked in Next (target p99 < 5 ms), beside raw Badger: a Set and a
// Subscribe callback on its prefix.
func BenchmarkCappedTailLatency(b *testing.B) {
	for it := 0; it < b.N; it++ {
		db := openEngine(b, b.TempDir(), newClock())
		c := createCappedBench(b, db)
		ctx := context.Background()
		_, err := c.InsertOne(ctx, makeDoc(-1, noExpiry(0)))
		mustNoErr(b, err, "seed insert")
		cur, err := c.Find(ctx, bson.D{}, engine.FindOptions{Tailable: true, AwaitData: true})
		mustNoErr(b, err, "tail find")
		if !cur.Next(ctx) {
			b.Fatalf("tailer: %v", cur.Err())
		}
		lat := make([]time.Duration, tailN)
		sent := make([]time.Time, tailN)
		got := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < tailN; i++ {
				if !cur.Next(ctx) {
					b.Errorf("tailer stopped: %v", cur.Err())
					close(got)
					return
				}
				lat[i] = time.Since(sent[i])
				got <- struct{}{}
			}
		}()
		for i := 0; i < tailN; i++ {
			d := makeDoc(i, noExpiry(i)) // built before the clock starts, as on the raw side
			sent[i] = time.Now()
			_, err := c.InsertOne(ctx, d)
			mustNoErr(b, err, "insert")
			if _, ok := <-got; !ok {
				break
			}
		}
		wg.Wait()
		mustNoErr(b, db.Close(), "close")

		raw := openBadger(b, b.TempDir())
		rawLat := make([]time.Duration, tailN)
		rawSent := make([]time.Time, tailN)
		rawGot := make(chan struct{}, 1)
		sctx, cancel := context.WithCancel(ctx)
		pre := lsm.RecordPrefixV1(rawColl)
		done := make(chan error, 1)
		recv := 0
		go func() {
			done <- raw.Subscribe(sctx, func(kvs *pb.KVList) error {
				for range kvs.Kv {
					if recv < tailN {
						rawLat[recv] = time.Since(rawSent[recv])
						recv++
						rawGot <- struct{}{}
					}
				}
				return nil
			}, []pb.Match{{Prefix: pre}})
		}()
		time.Sleep(50 * time.Millisecond) // let Subscribe register before the first write
		for i := 0; i < tailN; i++ {
			kv, err := rawKeys(makeDoc(i, noExpiry(i)), uint64(i+1), "n")
			mustNoErr(b, err, "raw keys")
			rawSent[i] = time.Now()
			mustNoErr(b, raw.Update(func(txn *badger.Txn) error { return txn.Set(kv.rec, kv.val) }), "raw set")
			<-rawGot
		}
		cancel()
		<-done
		mustNoErr(b, raw.Close(), "close")
		b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
		b.ReportMetric(ms(percentile(lat, 99)), "p99-ms")
		b.ReportMetric(ms(percentile(rawLat, 50)), "raw-p50-ms")
		b.ReportMetric(ms(percentile(rawLat, 99)), "raw-p99-ms")
	}
}
