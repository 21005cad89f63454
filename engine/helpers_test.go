package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// fakeClock is an injected clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
}

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

// fakeElapsed is a clock for the time targets (seams.targetClock): it
// moves by step at every reading, and by Advance.
type fakeElapsed struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

// setElapsed makes a fakeElapsed with step the clock of db's time
// targets. db must be idle (the monitor off, nothing deleting).
func setElapsed(db *DB, step time.Duration) *fakeElapsed {
	c := &fakeElapsed{now: time.Unix(1e9, 0), step: step}
	db.opts.seams.targetClock = c.Now
	return c
}

func (c *fakeElapsed) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now
	c.now = c.now.Add(c.step)
	return t
}

func (c *fakeElapsed) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// peek returns the clock's time without moving it.
func (c *fakeElapsed) peek() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// openTest opens a DB in a temp dir with the monitor off and a fake
// clock.
func openTest(t *testing.T) (*DB, *fakeClock, string) {
	t.Helper()
	return openTestWith(t, func(*Options) {})
}

// smallTxns sets the seams that shrink the store's transaction limits
// to a sixteenth of the default's (1 MiB memtables: about 150 KiB and
// 1,600 entries a transaction), so that a test crosses them with a
// tenth of the documents.
func smallTxns(o *Options) { o.seams.memTableSize = 1 << 20 }

// openMem is openTest over an in-memory store (inMemory): for a test
// that never reopens its store, never looks at its directory or its
// sizes, and keeps its documents under the in-memory value limit.
func openMem(t *testing.T) (*DB, *fakeClock) {
	t.Helper()
	// The test budget's 4 MiB memtables, not smaller: 2 MiB ones halve
	// the arena of a store but double the flushes of the tests that
	// write more than one, each building a table with Badger's fixed
	// buffers, and the engine's binary took more CPU, not less
	// (benchmarks/RESULTS.md, suite18m).
	db, clk, _ := openTestWith(t, inMemory)
	return db, clk
}

// inMemory makes openTestWith open the store in memory (Options.InMemory):
// no directory, write-ahead log or value-log file, which saves about a
// third of the CPU a store's open, first insert and close cost under
// -race (benchmarks/RESULTS.md, suite18k). Badger then keeps every value
// in its tree, so a value of the in-memory limit (15% of the memtable,
// about 600 KiB at the test budget) or more fails with
// lsm.ErrValueTooLarge, and the store's sizes read zero. Capped rings are
// still files, in a private temporary directory the DB removes at close.
// The directory openTestWith returns is then "".
func inMemory(o *Options) { o.InMemory = true }

// testStore sets what every test store of openTestWith and reopen
// shares: Close flushes the memtable but skips the level-0 compaction
// after it (SetSkipCloseCompactionForTesting), which builds the
// flushed tables again for nothing in a store that is then dropped.
// A reopened store starts with its level-0 tables uncompacted; its
// contents are the same. A test that would check what the compaction
// at close does must open its store without it (no test does today).
func testStore(o *Options) { SetSkipCloseCompactionForTesting(o) }

// openTestWith is openTest with set applied to the options first.
func openTestWith(t *testing.T, set func(*Options)) (*DB, *fakeClock, string) {
	t.Helper()
	clk := newClock()
	// The smallest memory budget (4 MiB memtables): most tests open one
	// store or more, and many run at once. Opening, inserting into and
	// closing a store with the default 160 MiB cost 1.1-1.2x as much CPU
	// under -race in suite18k's measure (2026-11-27; 640 ms against 155
	// ms when measured on 2026-11-26), and its arenas are four times
	// larger.
	o := Options{Clock: clk.Now, DisableTTLMonitor: true, MemoryBudget: lsm.MinMemoryBudget}
	// Close flushes but does not compact level 0 (testStore).
	testStore(&o)
	set(&o)
	dir := ""
	if !o.InMemory {
		dir = t.TempDir()
	}
	db, err := Open(dir, o)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db, clk, dir
}

func reopen(t *testing.T, db *DB, dir string, clk *fakeClock) *DB {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	o := Options{Clock: clk.Now, DisableTTLMonitor: true, MemoryBudget: lsm.MinMemoryBudget}
	testStore(&o)
	ndb, err := Open(dir, o)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	t.Cleanup(func() { ndb.Close() })
	return ndb
}

// run runs a command given as Extended JSON and returns its reply.
func run(t *testing.T, db *DB, dbName, cmdJSON string) (bson.D, error) {
	t.Helper()
	cmd, err := document.ParseExtJSON([]byte(cmdJSON))
	if err != nil {
		t.Fatalf("bad test command %s: %v", cmdJSON, err)
	}
	return db.RunCommand(context.Background(), dbName, cmd)
}

// mustRun runs a command that must succeed.
func mustRun(t *testing.T, db *DB, dbName, cmdJSON string) bson.D {
	t.Helper()
	r, err := run(t, db, dbName, cmdJSON)
	if err != nil {
		t.Fatalf("%s: %v", cmdJSON, err)
	}
	return r
}

// wantCode runs a command that must fail with code, and whose message
// contains frag.
func wantCode(t *testing.T, db *DB, dbName, cmdJSON string, code document.Code, frag string) {
	t.Helper()
	r, err := run(t, db, dbName, cmdJSON)
	checkCode(t, cmdJSON, err, code, frag)
	if ok, _ := get(r, "ok"); ok != 0.0 {
		t.Errorf("%s: reply ok = %v, want 0", cmdJSON, ok)
	}
	if c, _ := get(r, "code"); c != int32(code) {
		t.Errorf("%s: reply code = %v, want %d", cmdJSON, c, code)
	}
	if n, _ := get(r, "codeName"); n != code.String() {
		t.Errorf("%s: reply codeName = %v, want %s", cmdJSON, n, code)
	}
}

func checkCode(t *testing.T, what string, err error, code document.Code, frag string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: err = %v, want code %d", what, err, code)
	}
	if e.Code != code {
		t.Fatalf("%s: code = %d (%s), want %d; message %q", what, e.Code, e.Name(), code, e.Message)
	}
	if frag != "" && !contains(e.Message, frag) {
		t.Fatalf("%s: message %q does not contain %q", what, e.Message, frag)
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// field returns the value at a dotted path of a reply.
func field(d bson.D, path string) any {
	v, _ := document.Lookup(d, path)
	return v
}

// cfind returns every document c.Find gives for filter and o.
func cfind(t *testing.T, c *Collection, filter bson.D, o *FindOptions) []bson.D {
	t.Helper()
	var opts []FindOptions
	if o != nil {
		opts = append(opts, *o)
	}
	cur, err := c.Find(context.Background(), filter, opts...)
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	docs, err := cur.All(context.Background())
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	return docs
}

// findAll returns every document of a find command's first batch
// (and following getMores).
func findAll(t *testing.T, db *DB, dbName, coll string, filter bson.D) []bson.D {
	t.Helper()
	return cfind(t, db.Database(dbName).Collection(coll), filter, nil)
}

func count(t *testing.T, db *DB, dbName, coll string) int64 {
	t.Helper()
	n, err := db.Database(dbName).Collection(coll).CountDocuments(context.Background(), bson.D{})
	if err != nil {
		t.Fatalf("count: %v", err)
	}
	return n
}

// mustValidate fails the test if validate finds any inconsistency, and
// returns validate's result.
func mustValidate(t *testing.T, db *DB, dbName, coll string) *ValidateResult {
	t.Helper()
	r, err := db.Validate(context.Background(), dbName, coll)
	if err != nil {
		t.Fatalf("validate %s: %v", coll, err)
	}
	if !r.Valid() {
		t.Fatalf("validate %s: %v\nmissing %v\nextra %v", coll, r.Errors, r.MissingIndexEntries, r.ExtraIndexEntries)
	}
	return r
}

// tsArbitraryUpdates makes openTestWith's DB take any update of a
// time-series collection (Options.TimeseriesArbitraryUpdates), for the
// tests of the re-packing machinery behind them.
func tsArbitraryUpdates(o *Options) { o.TimeseriesArbitraryUpdates = true }

// openMemTSUpdates is openMem with tsArbitraryUpdates.
func openMemTSUpdates(t *testing.T) (*DB, *fakeClock) {
	t.Helper()
	db, clk, _ := openTestWith(t, func(o *Options) { inMemory(o); tsArbitraryUpdates(o) })
	return db, clk
}

// lossyValue returns a random value of the kinds whose index keys lose
// something that type bits keep (docs/storage-keys.md): small numbers
// of each numeric type, -0.0, NaN, null, strings, Symbols, documents
// holding numbers, and dates, which lose nothing; Symbols only with
// symbols (an entry of one reads its document). Numbers compare equal
// across types often, so equal groups of mixed types are common.
func lossyValue(r *rand.Rand, symbols bool) any {
	switch r.IntN(13) {
	case 0:
		return int32(r.IntN(5) - 2)
	case 1:
		return int64(r.IntN(5) - 2)
	case 2:
		return float64(r.IntN(5)-2) / 2
	case 3:
		d, _ := bson.ParseDecimal128(fmt.Sprintf("%d.%0*d", r.IntN(3), r.IntN(3)+1, 0))
		return d
	case 4:
		return math.Copysign(0, -1)
	case 5:
		return nil
	case 6:
		return []string{"x", "y", ""}[r.IntN(3)]
	case 7:
		return bson.D{{Key: "k", Value: int32(r.IntN(2))}, {Key: "f", Value: 0.5}}
	case 8:
		return bson.DateTime(int64(r.IntN(3)) * 1000)
	case 9:
		return math.NaN()
	case 10:
		if !symbols {
			return int32(r.IntN(3))
		}
		return bson.Symbol([]string{"x", "w"}[r.IntN(2)])
	default:
		return int32(r.IntN(3))
	}
}
