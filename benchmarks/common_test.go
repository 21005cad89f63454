// Package benchmarks measures ttlkv against raw Badger doing the same key
// writes in the same run. See RESULTS.md for the figures and how to run.
package benchmarks

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/ttlkv/ttlkv/benchmarks/internal/workload"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
	"github.com/ttlkv/ttlkv/internal/testmain"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// envInt reads a size from the environment, falling back to def.
func envInt(name string, def int) int {
	if s := os.Getenv(name); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return def
}

// Sizes. Every one is an environment variable so a quick run can shrink it.
var (
	benchN      = envInt("TTLKV_BENCH_N", 1_000_000)                                        // documents for insert, reap, space
	benchBatch  = envInt("TTLKV_BENCH_BATCH", 1000)                                         // InsertMany batch size
	lookupN     = envInt("TTLKV_BENCH_LOOKUP_N", 200_000)                                   // documents behind the lookup/scan fixture
	lookups     = envInt("TTLKV_BENCH_LOOKUPS", 50_000)                                     // point lookups per iteration
	scanN       = envInt("TTLKV_BENCH_SCAN", 10_000)                                        // documents per range scan
	scans       = envInt("TTLKV_BENCH_SCANS", 20)                                           // range scans per iteration
	fgN         = envInt("TTLKV_BENCH_FG_N", 500_000)                                       // expired set reaped beside the writer
	fgIdle      = time.Duration(envInt("TTLKV_BENCH_FG_IDLE_MS", 45000)) * time.Millisecond // each idle window of BenchmarkForegroundImpact
	fgIdleShort = 3 * time.Second                                                           // BenchmarkForegroundImpact's first seconds of writing (x-idle-tput-3s), BenchmarkWriterAlone's windows
	fgSpill     = 5 * time.Second                                                           // writing after the pass that counts as the reaper's
	reclaimWait = 2 * time.Minute                                                           // the longest BenchmarkForegroundImpact waits for the reclamation after its pass
	queueN      = envInt("TTLKV_BENCH_QUEUE_N", 50_000)                                     // documents per queue-shape pass
	queuePasses = envInt("TTLKV_BENCH_QUEUE_PASSES", 20)
	deleteN     = envInt("TTLKV_BENCH_DELETE_N", 100_000) // DeleteMany size for the batch-docs sweep
)

// Key-space ids the raw-Badger baseline uses: collection 1, the _id
// index 1 and the secondary index 2. Only the key shapes matter.
const (
	rawColl  = 1
	rawIDIx  = 1
	rawSecIx = 2
)

// What the SQLite peer must do alike is in package workload; these are
// its names here.
var (
	baseTime   = workload.BaseTime // the fake clock's start
	makeDoc    = workload.Doc
	scramble   = workload.Scramble
	percentile = workload.Percentile
	dirBytes   = workload.DirBytes
)

// filler pads documents to about 200 bytes encoded.
const filler = workload.Filler

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock { return &fakeClock{now: baseTime} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// rawKV is what the raw-Badger baseline writes for one document: its
// record and the secondary index entry on field (n or exp), plus the
// _id index entry.
type rawKV struct {
	rec, val, ix, id []byte
}

func rawKeys(d bson.D, rid uint64, field string) (rawKV, error) {
	val, err := document.Marshal(d)
	if err != nil {
		return rawKV{}, err
	}
	var v, id any
	for _, e := range d {
		if e.Key == field {
			v = e.Value
		}
		if e.Key == "_id" {
			id = e.Value
		}
	}
	return rawKV{
		rec: lsm.RecordKeyV1(rawColl, rid),
		val: val,
		ix:  lsm.IndexKeyV1(rawColl, rawSecIx, lsm.AppendKey(nil, v, false), rid),
		id:  lsm.IndexKeyV1(rawColl, rawIDIx, lsm.AppendKey(nil, id, false), rid),
	}, nil
}

// openBadger opens raw Badger with the options lsm.Open uses (see
// lsm/store.go), so the baseline differs from ttlkv only by ttlkv's code.
// TTLKV_BENCH_MEMORY_BUDGET (bytes) sets the memory budget of both
// (engine.Options.MemoryBudget; the sizes lsm derives from it here).
func openBadger(tb testing.TB, dir string) *badger.DB {
	tb.Helper()
	// Exactly the options lsm.Open gives Badger (memtables, caches,
	// level shape), without its logger.
	bo := lsm.BadgerOptions(dir, lsm.Options{MemoryBudget: int64(envInt("TTLKV_BENCH_MEMORY_BUDGET", 0))}).
		WithLogger(nil)
	db, err := badger.Open(bo)
	if err != nil {
		tb.Fatalf("badger open: %v", err)
	}
	return db
}

// openEngine opens ttlkv in dir with the monitor off and the fake clock,
// taking any update of a time-series collection (BenchmarkTimeseriesUpdate
// measures updateOne and updates on the time field).
func openEngine(tb testing.TB, dir string, clk *fakeClock) *engine.DB {
	tb.Helper()
	db, err := engine.Open(dir, engine.Options{Clock: clk.Now, DisableTTLMonitor: true, TimeseriesArbitraryUpdates: true,
		MemoryBudget: int64(envInt("TTLKV_BENCH_MEMORY_BUDGET", 0))})
	if err != nil {
		tb.Fatalf("engine open: %v", err)
	}
	// Batch-target experiments: TTLKV_BENCH_BATCH_DOCS and
	// TTLKV_BENCH_BATCH_MS override batchedDeletesTargetBatchDocs and
	// batchedDeletesTargetBatchTimeMS (defaults otherwise).
	for env, param := range map[string]string{"TTLKV_BENCH_BATCH_DOCS": "batchedDeletesTargetBatchDocs",
		"TTLKV_BENCH_BATCH_MS": "batchedDeletesTargetBatchTimeMS"} {
		if n := envInt(env, 0); n > 0 {
			if _, err := db.SetParameter(param, n); err != nil {
				tb.Fatalf("SetParameter %s: %v", param, err)
			}
		}
	}
	return db
}

// engineLoad inserts docs [from, to) with InsertMany batches; exp gives
// each document's expiry.
func engineLoad(tb testing.TB, c *engine.Collection, from, to int, exp func(i int) time.Time) {
	tb.Helper()
	ctx := context.Background()
	batch := make([]any, 0, benchBatch)
	for i := from; i < to; i++ {
		batch = append(batch, makeDoc(i, exp(i)))
		if len(batch) == benchBatch || i == to-1 {
			if _, err := c.InsertMany(ctx, batch, true); err != nil {
				tb.Fatalf("InsertMany: %v", err)
			}
			batch = batch[:0]
		}
	}
}

// rawLoad writes docs [from, to) to raw Badger with a WriteBatch: the
// record and the index entry on field, and the _id entry when withID.
func rawLoad(tb testing.TB, db *badger.DB, from, to int, field string, withID bool, exp func(i int) time.Time) {
	tb.Helper()
	wb := db.NewWriteBatch()
	defer wb.Cancel()
	for i := from; i < to; i++ {
		kv, err := rawKeys(makeDoc(i, exp(i)), uint64(i+1), field)
		if err != nil {
			tb.Fatal(err)
		}
		if err := wb.Set(kv.rec, kv.val); err != nil {
			tb.Fatal(err)
		}
		if err := wb.Set(kv.ix, nil); err != nil {
			tb.Fatal(err)
		}
		if withID {
			if err := wb.Set(kv.id, nil); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := wb.Flush(); err != nil {
		tb.Fatal(err)
	}
}

// rawKeyIter is a keys-only raw Badger iterator over prefix.
func rawKeyIter(txn *badger.Txn, prefix []byte) *badger.Iterator {
	o := badger.DefaultIteratorOptions
	o.PrefetchValues = false
	o.Prefix = prefix
	return txn.NewIterator(o)
}

// countKeys counts the live keys under prefix.
func countKeys(db *badger.DB, prefix []byte) (int, error) {
	n := 0
	err := db.View(func(txn *badger.Txn) error {
		it := rawKeyIter(txn, prefix)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	return n, err
}

// rate is n per second over d.
func rate(n int, d time.Duration) float64 { return float64(n) / d.Seconds() }

func mustNoErr(tb testing.TB, err error, what string) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

var _ = fmt.Sprintf

func sortInt64(a []int64) { sort.Slice(a, func(i, j int) bool { return a[i] < a[j] }) }

// tempDir makes a directory that outlives one benchmark function (for
// shared fixtures); TestMain removes it.
func tempDir(prefix string) (string, error) { return os.MkdirTemp("", prefix) }

// TestMain closes and removes the shared read fixture after the run.
// It ends without the race detector's pause at exit (internal/testmain).
func TestMain(m *testing.M) {
	testmain.Run(m, func() {
		if fix != nil {
			_ = fix.eng.Close()
			_ = fix.raw.Close()
		}
		for _, d := range fixDirs {
			_ = os.RemoveAll(d)
		}
	})
}
