package lsm

import (
	"errors"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// Errors returned by Store and its transactions. Test with errors.Is.
var (
	// ErrNotFound is returned by Txn.Get for a key that has no value.
	ErrNotFound = errors.New("lsm: key not found")
	// ErrLocked is returned (wrapped, with a message naming the directory)
	// by Open when another Store, in this or another process, holds the
	// directory.
	ErrLocked = errors.New("lsm: data directory is in use by another process")
	// ErrTxnTooBig is returned by Txn.Set and Txn.Delete when the
	// transaction would exceed MaxBatchSize bytes or MaxBatchCount
	// entries. The transaction is still usable; commit what it holds and
	// continue in a new one, or use a Batch.
	ErrTxnTooBig = errors.New("lsm: transaction too big")
	// ErrConflict is returned by Update when its transaction still
	// conflicted with concurrent writers after every retry.
	ErrConflict = errors.New("lsm: transaction conflict")
	// ErrReadOnly is returned by writes to a Store opened ReadOnly and by
	// writes inside View.
	ErrReadOnly = errors.New("lsm: store is read-only")
	// ErrClosed is returned by operations on a closed Store.
	ErrClosed = errors.New("lsm: store is closed")
	// ErrInvalidKey is returned (wrapped) for an empty key, a key longer
	// than MaxKeySize, or a key in the range this package reserves.
	ErrInvalidKey = errors.New("lsm: invalid key")
	// ErrValueTooLarge is returned (wrapped) for a value longer than
	// MaxValueSize.
	ErrValueTooLarge = errors.New("lsm: value too large")
)

// MaxKeySize is the longest key a Store accepts (Badger's limit, less
// room for its internal suffix).
const MaxKeySize = 65000

// MaxValueSize is the longest value a Store accepts. Documents are at most
// 16 MiB; the margin covers encoding overhead.
const MaxValueSize = 32 << 20

// Options configures Open. The zero value of every field selects the
// default documented on it; defaults are sized for a small (2-core, a few
// GiB of RAM) machine.
type Options struct {
	// SyncWrites fsyncs the write-ahead log on every commit, so an
	// acknowledged write survives power loss. Default false: acknowledged
	// writes survive a process crash (kill -9) but the last moments may be
	// lost on power loss. Syncing costs one fsync per commit.
	SyncWrites bool
	// InMemory keeps everything in memory (dir must be ""); for tests.
	// Badger then keeps every value in its tree, so values are limited to
	// min(1 MiB, 15% of MemTableSize); larger ones return ErrValueTooLarge.
	InMemory bool
	// ReadOnly opens an existing store for reading only; several read-only
	// Stores may share a directory but none may share it with a writer.
	ReadOnly bool
	// Logf receives Badger's warnings and errors. Nil sends errors only to
	// the standard logger and drops the rest, so tests stay quiet.
	Logf func(format string, args ...any)
	// Verbose also sends Badger's informational messages to Logf.
	Verbose bool
	// LockWait is how long Open keeps trying a directory whose lock is
	// held before it returns ErrLocked, as bbolt's Options.Timeout does.
	// Default 1 s: long enough for a process that is closing the
	// directory (or a child that briefly inherited the lock between fork
	// and exec) to let go; negative means try once.
	LockWait time.Duration

	// MemoryBudget is the memory Badger's own structures may take: it
	// sizes the memtables, the block and index caches and the number of
	// concurrent compactions, for every one of those fields left zero.
	// Default DefaultMemoryBudget (160 MiB), which gives the defaults
	// documented on each field. Smaller budgets scale them down (at least
	// two 4 MiB memtables, 2 MiB and 1 MiB of caches, two compactors),
	// larger ones up (memtables to 64 MiB, a third memtable from 512 MiB,
	// a compactor a 256 MiB up to 4); see budget. The process's RSS is
	// larger than the budget: the Go heap the garbage collector has not
	// yet returned, table and log files mapped into memory, and the rest
	// of the program (README, "Memory"). Without a Go soft memory limit
	// (GOMEMLIMIT) the RSS follows the peaks of Badger's compactions more
	// than the budget: a smaller budget makes smaller memtables, so more
	// flushes and compactions, and a 96 MiB budget measured a higher RSS
	// than the default at a 300k-document steady state.
	MemoryBudget int64

	// MemTableSize is the size of one memtable. Default: from
	// MemoryBudget, 16 MiB at the default budget: a 1M-document insert
	// then peaks about 30 MiB lower in RSS than with
	// 32 MiB (276 against 305 MiB with GOMEMLIMIT=200MiB, medians in
	// benchmarks/RESULTS.md). It also sets the transaction limits:
	// MaxBatchSize is 15% of it (2.4 MiB; values of at least
	// ValueThreshold count as a 12-byte pointer) and MaxBatchCount is
	// MaxBatchSize/96 (about 26,000 entries). Callers size transactions
	// from MaxBatchSize and MaxBatchCount (engine inserts, time-series
	// chunks) or redo a chunk in halves on ErrTxnTooBig (updates).
	// Memory use is about (NumMemtables+1) * 1.3 * MemTableSize for
	// Badger's arenas (room for one full transaction included), up to
	// 3 * MemTableSize more for the table builder of a flush, and a
	// mapped write-ahead log of up to MemTableSize per memtable.
	MemTableSize int64
	// NumMemtables is how many memtables may be full and waiting for a
	// flush before writes stall. Default: from MemoryBudget, 2 at the
	// default budget (Badger's is 5): a 1M-document insert peaked at about 305 MiB RSS with GOMEMLIMIT=200MiB against
	// 642 MiB with 3 memtables, the larger caches and no limit
	// (benchmarks/RESULTS.md).
	NumMemtables int
	// BlockCacheSize caches decompressed table blocks. Default: from
	// MemoryBudget, 16 MiB at the default budget.
	BlockCacheSize int64
	// IndexCacheSize caches table indexes and bloom filters. Default:
	// from MemoryBudget, 8 MiB at the default budget; 0 would keep
	// every table's index in memory without bound.
	IndexCacheSize int64
	// NumCompactors is the number of concurrent compaction workers.
	// Default: from MemoryBudget, 2 at the default budget, the least
	// Badger allows (1 is invalid); one per core on the target machine.
	// Negative disables compaction (tests only).
	NumCompactors int
	// ValueThreshold is the value size from which values live in the value
	// log rather than in the LSM tree. Default 4 KiB: typical documents
	// (~200 B) stay in the tree, next to their keys, and are read with
	// one lookup; large documents go to the value log so compactions do
	// not rewrite them over and over.
	ValueThreshold int64
	// LevelZeroTables is how many flushed memtables (level-0 tables)
	// may gather before they are compacted into the level below; writes
	// stall at twice as many. Default 10 (Badger's is 5). A workload that
	// inserts and expires at the same rate puts both its newest keys and
	// its oldest ones' tombstones into every flush, so each level-0 table
	// spans the whole key range and each compaction of level 0 rewrites
	// about the whole live set below it: the more flushes one compaction
	// takes, the fewer times the live set is rewritten (bytes written per
	// byte inserted 6.6 at 5, 5.4 at 10 in the steady-state benchmark;
	// benchmarks/RESULTS.md). Reads consult every level-0 table, a point
	// read through its bloom filter. Memory, same benchmark without a
	// soft limit: 5 raised the RSS (more compactions, each with its table
	// builders in flight) and 20 did not lower it over 160 s (it only put
	// the first compactions off).
	LevelZeroTables int
	// ValueLogFileSize is the size of one value-log file. Default 64 MiB:
	// value-log GC rewrites one file at a time, so smaller files reclaim
	// space in smaller steps.
	ValueLogFileSize int64

	// SkipCloseCompaction makes Close flush the memtable but not then
	// compact level 0 into the level below. Default false: Close
	// compacts, so a store reopens with no level-0 tables to merge. The
	// store's contents are the same either way; one closed with it
	// reopens with its level-0 tables as they were, for the compactors
	// to merge as usual. It is for short-lived stores (tests) that are
	// never reopened or whose reopening need not start compacted: the
	// compaction builds the level's tables again, each with Badger's
	// fixed buffers (a 3 MiB index builder and twice the table size),
	// and is most of what closing a small store costs under -race
	// (benchmarks/RESULTS.md, suite18m).
	SkipCloseCompaction bool
}

// DefaultMemoryBudget is Options.MemoryBudget's default: 160 MiB, the
// budget whose sizes are the defaults of the fields it sets.
const DefaultMemoryBudget = 160 << 20

// DefaultLevelZeroTables is Options.LevelZeroTables's default.
const DefaultLevelZeroTables = 10

// BaseLevelSize is what Badger's base level (the level that level 0
// compacts into) may hold before Badger puts another level above it:
// 64 MiB, where Badger's default is 10 MiB. While the whole store fits
// in it (about 300,000 live 200-byte documents with their index
// entries), level 0 compacts straight into the last level, where a
// tombstone and the entry it deletes are both dropped at once. With 10
// MiB a level sat in between, which kept every tombstone (a lower level
// overlapped it) and rewrote it again on its way down: at a steady
// 15,000 documents a second with a 20 s TTL, an ordinary collection
// wrote 3.5-3.6 bytes a byte inserted (mean over windows) and 2.96 with
// 64 MiB, at 0.84x the CPU a document (benchmarks/RESULTS.md, the
// evening of 2026-11-27). A larger store gets more levels, as before.
const BaseLevelSize = 64 << 20

// MinMemoryBudget is the smallest Options.MemoryBudget accepted.
const MinMemoryBudget = 32 << 20

// budget is what a memory budget of b bytes gives the fields
// Options.MemoryBudget sizes: a memtable of b/10 (4 to 64 MiB), two of
// them (three from 512 MiB), a block cache of b/10 and an index cache
// of b/20 (at least 2 and 1 MiB), and a compactor a 256 MiB (2 to 4).
// Accounting (lsm/store.go's MemTableSize comment): the memtables'
// arenas take about (n+1) x 1.3 x MemTableSize and a flush's table
// builder up to 3 x MemTableSize, so at the default 160 MiB about 110
// MiB, plus the 24 MiB of caches.
func budget(b int64) (memTable int64, memTables int, blockCache, indexCache int64, compactors int) {
	const mib = 1 << 20
	memTable = min(max(b/10, 4*mib), 64*mib) &^ (mib - 1)
	memTables = 2
	if b >= 512*mib {
		memTables = 3
	}
	blockCache = max(b/10, 2*mib)
	indexCache = max(b/20, 1*mib)
	compactors = min(max(int(b/(256*mib)), 2), 4)
	return
}

func (o *Options) ensureDefaults() {
	if o.MemoryBudget == 0 {
		o.MemoryBudget = DefaultMemoryBudget
	}
	if o.LockWait == 0 {
		o.LockWait = time.Second
	}
	mt, nmt, bc, ic, nc := budget(o.MemoryBudget)
	if o.MemTableSize == 0 {
		o.MemTableSize = mt
	}
	if o.NumMemtables == 0 {
		o.NumMemtables = nmt
	}
	if o.BlockCacheSize == 0 {
		o.BlockCacheSize = bc
	}
	if o.IndexCacheSize == 0 {
		o.IndexCacheSize = ic
	}
	if o.NumCompactors == 0 {
		o.NumCompactors = nc
	}
	if o.ValueThreshold == 0 {
		o.ValueThreshold = 4 << 10
	}
	if o.ValueLogFileSize == 0 {
		o.ValueLogFileSize = 64 << 20
	}
	if o.LevelZeroTables == 0 {
		o.LevelZeroTables = DefaultLevelZeroTables
	}
}

// WithDefaults returns o with every zero field set to the default Open
// would give it (the sizes MemoryBudget gives included), for callers
// that report or reproduce the configuration, such as benchmarks
// opening raw Badger alike.
func (o Options) WithDefaults() Options {
	o.ensureDefaults()
	return o
}

func (o *Options) validate() error {
	switch {
	case o.MemoryBudget < MinMemoryBudget:
		return fmt.Errorf("lsm: MemoryBudget %d is below %d (32 MiB)", o.MemoryBudget, MinMemoryBudget)
	case o.MemTableSize < 1<<20:
		return fmt.Errorf("lsm: MemTableSize %d is below 1 MiB", o.MemTableSize)
	case o.NumMemtables < 1:
		return fmt.Errorf("lsm: NumMemtables %d is below 1", o.NumMemtables)
	case o.NumCompactors == 1:
		return errors.New("lsm: NumCompactors must be 0 (default), 2 or more, or negative (disabled)")
	case o.ValueThreshold < 1 || o.ValueThreshold > 1<<20 || o.ValueThreshold > o.MemTableSize*15/100:
		return fmt.Errorf("lsm: ValueThreshold %d must be between 1 and min(1 MiB, 15%% of MemTableSize)", o.ValueThreshold)
	case o.ValueLogFileSize < 1<<20 || o.ValueLogFileSize >= 2<<30:
		return fmt.Errorf("lsm: ValueLogFileSize %d must be in [1 MiB, 2 GiB)", o.ValueLogFileSize)
	case o.LevelZeroTables < 1:
		return fmt.Errorf("lsm: LevelZeroTables %d is below 1", o.LevelZeroTables)
	case o.BlockCacheSize < 1:
		return errors.New("lsm: BlockCacheSize must be positive")
	}
	return nil
}

// logger adapts Options.Logf to Badger's Logger.
type logger struct {
	logf    func(string, ...any)
	verbose bool
}

func (l logger) Errorf(f string, a ...any) {
	if l.logf == nil {
		log.Printf("badger: ERROR: "+strings.TrimRight(f, "\n"), a...)
		return
	}
	l.logf("badger: ERROR: "+strings.TrimRight(f, "\n"), a...)
}

func (l logger) Warningf(f string, a ...any) {
	if l.logf != nil {
		l.logf("badger: WARNING: "+strings.TrimRight(f, "\n"), a...)
	}
}

func (l logger) Infof(f string, a ...any) {
	if l.logf != nil && l.verbose {
		l.logf("badger: "+strings.TrimRight(f, "\n"), a...)
	}
}

func (l logger) Debugf(string, ...any) {}

// Store is an open Badger database. All methods are safe for concurrent
// use, except that Close must not race with other calls.
type Store struct {
	db     *badger.DB
	dir    string
	opts   Options
	closed atomic.Bool
	// gate is held shared by every commit and exclusively by Reclaim's
	// memtable flush, during which Badger rejects writes; writers wait on
	// the gate instead of failing.
	gate sync.RWMutex
	// commits counts commits that reached Badger (Commits).
	commits atomic.Uint64
	// reclaimMu serialises Reclaim calls.
	reclaimMu sync.Mutex
	// changes is the change log, nil until EnableChanges (changes.go).
	changes *changeLog
}

// isLockErr reports whether badger.Open failed on the directory's lock.
func isLockErr(err error) bool {
	return strings.Contains(err.Error(), "Another process is using this Badger database")
}

// Open opens (creating if needed, unless ReadOnly) the store in dir. If the
// directory is held by another Store, in this process or another, the
// error wraps ErrLocked and names the directory.
func Open(dir string, o Options) (*Store, error) {
	o.ensureDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.InMemory && dir != "" {
		return nil, errors.New("lsm: InMemory requires an empty dir")
	}
	if !o.InMemory && dir == "" {
		return nil, errors.New("lsm: no data directory given")
	}
	if o.ReadOnly {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("lsm: open read-only %s: %w", dir, err)
		}
	}
	bo, o := o.badgerOptions(dir)
	db, err := badger.Open(bo)
	for deadline := time.Now().Add(o.LockWait); err != nil && isLockErr(err) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		db, err = badger.Open(bo)
	}
	if err != nil {
		if isLockErr(err) {
			return nil, fmt.Errorf("%w: %s (is another ttlkv running on it?): %v", ErrLocked, dir, err)
		}
		return nil, fmt.Errorf("lsm: open %s: %w", dir, err)
	}
	return &Store{db: db, dir: dir, opts: o}, nil
}

// BadgerOptions returns the options Open gives Badger for a store in
// dir opened with o (defaults applied), so that a benchmark's raw Badger
// floor runs with exactly the store's shape. It does not validate o.
func BadgerOptions(dir string, o Options) badger.Options {
	o.ensureDefaults()
	bo, _ := o.badgerOptions(dir)
	return bo
}

// badgerOptions returns the Badger options of a store in dir opened
// with o, defaults applied, and o as Open keeps it (an in-memory
// store's ValueThreshold follows its memtable).
func (o Options) badgerOptions(dir string) (badger.Options, Options) {
	bo := badger.DefaultOptions(dir).
		WithSyncWrites(o.SyncWrites).
		WithInMemory(o.InMemory).
		WithReadOnly(o.ReadOnly).
		WithLogger(logger{logf: o.Logf, verbose: o.Verbose}).
		WithNumVersionsToKeep(1).
		WithDetectConflicts(true).
		WithMetricsEnabled(false).
		WithMemTableSize(o.MemTableSize).
		WithNumMemtables(o.NumMemtables).
		WithBlockCacheSize(o.BlockCacheSize).
		WithIndexCacheSize(o.IndexCacheSize).
		WithNumCompactors(max(o.NumCompactors, 0)).
		WithValueThreshold(o.ValueThreshold).
		WithValueLogFileSize(o.ValueLogFileSize).
		WithNumLevelZeroTables(o.LevelZeroTables).
		WithNumLevelZeroTablesStall(2 * o.LevelZeroTables).
		WithNumGoroutines(2).
		WithCompactL0OnClose(!o.ReadOnly && !o.SkipCloseCompaction)
	// Every level's tables at BaseTableSize (2 MiB), not doubling a
	// level: a compaction keeps up to 8 + splits table builders of about
	// twice the table size in flight, and Badger's pool keeps up to 8 of
	// their buffers, grown to the largest table built, while compactions
	// keep coming. With doubling tables the live heap at a 300k-document
	// steady state kept growing, to 370-460 MiB; with this it was
	// 210-250 MiB, stepping to about 320 as compactions reached deeper
	// levels (README, "Memory"). Smaller base tables (1 MiB, 512 KiB)
	// raised the RSS again: more tables, more builders in flight
	// (benchmarks/RESULTS.md, issue 17 memory).
	bo.TableSizeMultiplier = 1
	bo.BaseLevelSize = BaseLevelSize
	if o.InMemory {
		bo.Dir, bo.ValueDir = "", ""
		o.ValueThreshold = min(1<<20, o.MemTableSize*15/100)
		bo = bo.WithValueThreshold(o.ValueThreshold)
	}
	return bo, o
}

// Dir returns the directory the store was opened on ("" when InMemory).
func (s *Store) Dir() string { return s.dir }

// Close flushes and closes the store. Later calls return ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return ErrClosed
	}
	s.reclaimMu.Lock() // let a running Reclaim finish its step
	defer s.reclaimMu.Unlock()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("lsm: close %s: %w", s.dir, err)
	}
	return nil
}

// MaxBatchSize returns the largest total size in bytes (keys plus inline
// values plus per-entry overhead) one transaction may hold.
func (s *Store) MaxBatchSize() int64 { return s.db.MaxBatchSize() }

// MaxBatchCount returns the largest number of entries one transaction may
// hold.
func (s *Store) MaxBatchCount() int64 { return s.db.MaxBatchCount() }

// Sync flushes the write-ahead and value logs to stable storage, making
// every write committed so far survive power loss.
func (s *Store) Sync() error {
	if s.closed.Load() {
		return ErrClosed
	}
	return s.db.Sync()
}

// DiskUsage returns the bytes of the store's files on disk: value-log files
// as vlogBytes, everything else (tables, write-ahead logs, manifest) as
// lsmBytes. It measures the directory each time, so it is exact but not
// free; it returns zeros for an InMemory store.
func (s *Store) DiskUsage() (lsmBytes, vlogBytes int64) {
	if s.dir == "" {
		return 0, 0
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return 0, 0
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if filepath.Ext(e.Name()) == ".vlog" {
			vlogBytes += info.Size()
		} else {
			lsmBytes += info.Size()
		}
	}
	return lsmBytes, vlogBytes
}

const (
	maxUpdateAttempts = 10
	backoffBase       = 200 * time.Microsecond
	backoffMax        = 20 * time.Millisecond
)

// Update runs fn in a read-write transaction and commits it. fn must be
// re-runnable: when the commit conflicts with a concurrent transaction
// (one that wrote a key this one read), Update discards the writes and
// runs fn again, up to 10 attempts with jittered exponential backoff, then
// returns an error wrapping ErrConflict. Any error from fn aborts the
// transaction and is returned as is. Iterators fn leaves open are closed.
func (s *Store) Update(fn func(*Txn) error) error {
	return s.UpdateGuarded(fn, nil)
}

// UpdateGuarded is Update with the commit handed to guard: after fn has
// staged its writes, guard is called with a commit function and must
// call it at most once, returning its error; an error guard returns
// without committing aborts the transaction and is returned as is. It
// lets a caller hold a lock, and check what the lock protects, only
// while the transaction commits rather than while fn reads and stages.
// Conflict retries re-run fn and guard as Update does. A nil guard
// commits directly (Update).
func (s *Store) UpdateGuarded(fn func(*Txn) error, guard func(commit func() error) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if s.opts.ReadOnly {
		return ErrReadOnly
	}
	backoff := backoffBase
	for attempt := 1; ; attempt++ {
		err := s.updateOnce(fn, guard)
		if !errors.Is(err, badger.ErrConflict) {
			return err
		}
		if attempt == maxUpdateAttempts {
			return fmt.Errorf("%w after %d attempts", ErrConflict, attempt)
		}
		time.Sleep(backoff/2 + rand.N(backoff/2+1))
		backoff = min(2*backoff, backoffMax)
	}
}

func (s *Store) updateOnce(fn func(*Txn) error, guard func(commit func() error) error) error {
	bt := s.db.NewTransaction(true)
	t := &Txn{s: s, t: bt, update: true}
	defer t.discard()
	if err := fn(t); err != nil {
		return err
	}
	t.closeIters()
	commit := func() error {
		if t.done {
			return errors.New("lsm: transaction committed twice")
		}
		t.done = true
		s.gate.RLock()
		err := s.commitSync(bt, t.changes)
		s.gate.RUnlock()
		s.commits.Add(1)
		return mapErr(err)
	}
	if guard == nil {
		return commit()
	}
	return guard(commit)
}

// View runs fn in a read-only transaction: a consistent snapshot of the
// store as of the call. Writes inside View return ErrReadOnly. Iterators
// fn leaves open are closed.
func (s *Store) View(fn func(*Txn) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	t := &Txn{s: s, t: s.db.NewTransaction(false)}
	defer t.discard()
	return fn(t)
}

// mapErr translates Badger errors into this package's sentinels.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, badger.ErrKeyNotFound):
		return ErrNotFound
	case errors.Is(err, badger.ErrTxnTooBig):
		return ErrTxnTooBig
	case errors.Is(err, badger.ErrReadOnlyTxn):
		return ErrReadOnly
	case errors.Is(err, badger.ErrDBClosed):
		return ErrClosed
	case errors.Is(err, badger.ErrConflict):
		return err // Update retries it
	}
	return fmt.Errorf("lsm: %w", err)
}

// Txn is a transaction handed to the function passed to Update or View.
// It is valid only during that call and must not be used concurrently.
type Txn struct {
	s      *Store
	t      *badger.Txn
	update bool
	done   bool
	iters  []*Iter
	// size and count estimate what the transaction holds, so AddChange
	// can refuse an entry that would not fit; changes are the change-log
	// entries written at commit (changes.go).
	size, count int64
	changes     [][]byte
}

func (t *Txn) discard() {
	t.closeIters()
	t.done = true
	t.t.Discard()
}

func (t *Txn) closeIters() {
	for _, it := range t.iters {
		it.Close()
	}
	t.iters = nil
}

func (t *Txn) check() error {
	if t.done {
		return errors.New("lsm: transaction used after it ended")
	}
	if t.s.closed.Load() {
		return ErrClosed
	}
	return nil
}

// Get returns a copy of the value of key, or ErrNotFound.
func (t *Txn) Get(key []byte) ([]byte, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if len(key) == 0 {
		return nil, ErrNotFound
	}
	item, err := t.t.Get(key)
	if err != nil {
		return nil, mapErr(err)
	}
	v, err := item.ValueCopy(nil)
	return v, mapErr(err)
}

// Has reports whether key has a value, without reading the value.
func (t *Txn) Has(key []byte) (bool, error) {
	if err := t.check(); err != nil {
		return false, err
	}
	if len(key) == 0 {
		return false, nil
	}
	_, err := t.t.Get(key)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, badger.ErrKeyNotFound):
		return false, nil
	}
	return false, mapErr(err)
}

func checkKV(key []byte, val []byte) error {
	switch {
	case len(key) == 0:
		return fmt.Errorf("%w: empty key", ErrInvalidKey)
	case len(key) > MaxKeySize:
		return fmt.Errorf("%w: key of %d bytes exceeds %d", ErrInvalidKey, len(key), MaxKeySize)
	case key[0] == tagInternal || key[0] == '!':
		// '!' is Badger's own prefix ("!badger!").
		return fmt.Errorf("%w: tag byte 0x%02x is reserved", ErrInvalidKey, key[0])
	case len(val) > MaxValueSize:
		return fmt.Errorf("%w: %d bytes exceeds %d", ErrValueTooLarge, len(val), MaxValueSize)
	}
	return nil
}

// checkValueSize applies the in-memory value limit (see Options.InMemory)
// before Badger's own check, whose error path can panic.
func (s *Store) checkValueSize(val []byte) error {
	if s.opts.InMemory && int64(len(val)) >= s.opts.ValueThreshold {
		return fmt.Errorf("%w: %d bytes exceeds the in-memory limit of %d", ErrValueTooLarge, len(val), s.opts.ValueThreshold-1)
	}
	if !s.opts.InMemory && int64(len(val)) > s.opts.ValueLogFileSize {
		return fmt.Errorf("%w: %d bytes exceeds ValueLogFileSize %d", ErrValueTooLarge, len(val), s.opts.ValueLogFileSize)
	}
	return nil
}

// Set stores val under key when the transaction commits. The store keeps
// its own copies, so the caller may reuse key and val after Set returns.
// It returns ErrTxnTooBig when the transaction is full (it remains usable),
// ErrReadOnly inside View.
func (t *Txn) Set(key, val []byte) error {
	if err := t.checkSet(key, val); err != nil {
		return err
	}
	return t.setOwned(append([]byte(nil), key...), append([]byte(nil), val...))
}

// SetOwned is Set for a key and value the caller hands over: the store
// keeps them instead of copies until the transaction ends, so the caller
// must not modify either after the call (two allocations and copies
// fewer per entry for a writer that builds fresh keys and encodes each
// document once, such as an insert).
func (t *Txn) SetOwned(key, val []byte) error {
	if err := t.checkSet(key, val); err != nil {
		return err
	}
	return t.setOwned(key, val)
}

// checkSet is what Set and SetOwned refuse.
func (t *Txn) checkSet(key, val []byte) error {
	if err := t.check(); err != nil {
		return err
	}
	if !t.update {
		return ErrReadOnly
	}
	if err := checkKV(key, val); err != nil {
		return err
	}
	return t.s.checkValueSize(val)
}

func (t *Txn) setOwned(key, val []byte) error {
	t.size += t.s.changeEntryCost(len(key), len(val))
	t.count++
	return mapErr(t.t.Set(key, val))
}

// Delete removes key when the transaction commits; deleting a missing key
// is not an error. Errors are as for Set.
func (t *Txn) Delete(key []byte) error { return t.DeleteOwned(append([]byte(nil), key...)) }

// DeleteOwned is Delete for a key the caller hands over: the store keeps
// key itself instead of a copy, so the caller must not modify it after
// the call (one allocation and copy fewer per key for a caller that
// builds a fresh key for every delete, such as the TTL reaper).
func (t *Txn) DeleteOwned(key []byte) error {
	if err := t.check(); err != nil {
		return err
	}
	if !t.update {
		return ErrReadOnly
	}
	if err := checkKV(key, nil); err != nil {
		return err
	}
	t.size += t.s.changeEntryCost(len(key), 0)
	t.count++
	return mapErr(t.t.Delete(key))
}
