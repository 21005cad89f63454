package lsm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

func openTest(t *testing.T, o Options) *Store {
	t.Helper()
	dir := ""
	if !o.InMemory {
		dir = t.TempDir()
	}
	s, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestKeyLayout(t *testing.T) {
	t.Parallel()
	if got := CatalogKey("db", "c"); !bytes.Equal(got, []byte{TagCatalog, 'd', 'b', 0, 'c'}) {
		t.Fatalf("CatalogKey = %x", got)
	}
	if !bytes.HasPrefix(CatalogKey("db", "c"), CatalogPrefix("db")) || bytes.HasPrefix(CatalogKey("dbx", "c"), CatalogPrefix("db")) {
		t.Fatal("CatalogPrefix must select exactly db's collections")
	}
	if db, c, ok := SplitCatalogKey(CatalogKey("a", "b.c")); !ok || db != "a" || c != "b.c" {
		t.Fatalf("SplitCatalogKey = %q %q %v", db, c, ok)
	}
	rk := RecordKey(7, 1<<40)
	if c, r, ok := DecodeRecordKey(rk); !ok || c != 7 || r != 1<<40 || !bytes.HasPrefix(rk, RecordPrefix(7)) {
		t.Fatalf("DecodeRecordKey = %d %d %v", c, r, ok)
	}
	if bytes.Compare(RecordKey(1, 255), RecordKey(1, 256)) >= 0 || bytes.Compare(RecordKey(1, 1<<63), RecordKey(2, 0)) >= 0 {
		t.Fatal("record keys must sort by collection then rid")
	}
	if _, _, ok := DecodeRecordKey(IndexKey(1, 2, nil, 3)); ok {
		t.Fatal("an index key decoded as a record key")
	}
	ks := AppendKey(nil, "x", false)
	ik := IndexKey(3, 4, ks, 99)
	gotKs, rid, ok := SplitIndexKey(ik)
	if !ok || rid != 99 || !bytes.Equal(gotKs, ks) || !bytes.HasPrefix(ik, IndexPrefix(3, 4)) {
		t.Fatalf("SplitIndexKey = %x %d %v", gotKs, rid, ok)
	}
	if c, i, _, r, ok := DecodeIndexKey(ik); !ok || c != 3 || i != 4 || r != 99 {
		t.Fatal("DecodeIndexKey")
	}
	if !bytes.HasPrefix(IndexPrefix(3, 4), CollectionIndexPrefix(3)) {
		t.Fatal("CollectionIndexPrefix")
	}
	for _, tc := range []struct{ in, want []byte }{
		{[]byte{1, 2}, []byte{1, 3}},
		{[]byte{1, 0xff}, []byte{2}},
		{[]byte{0xff, 0xff}, nil},
		{nil, nil},
	} {
		if got := PrefixEnd(tc.in); !bytes.Equal(got, tc.want) {
			t.Errorf("PrefixEnd(%x) = %x, want %x", tc.in, got, tc.want)
		}
	}
	if !bytes.Equal(SequenceKey(5)[:1], []byte{TagSequence}) || !bytes.Equal(MetaKey("v"), []byte{TagMeta, 'v'}) {
		t.Fatal("SequenceKey/MetaKey")
	}
}

func TestTxnBasics(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	k := []byte{TagMeta, 'a'}
	if err := s.View(func(tx *Txn) error {
		_, err := tx.Get(k)
		return err
	}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get missing = %v, want ErrNotFound", err)
	}
	buf := []byte("v1")
	if err := s.Update(func(tx *Txn) error { return tx.Set(k, buf) }); err != nil {
		t.Fatal(err)
	}
	buf[0] = 'X' // the store must have copied
	err := s.View(func(tx *Txn) error {
		v, err := tx.Get(k)
		if err != nil || string(v) != "v1" {
			return fmt.Errorf("Get = %q, %v", v, err)
		}
		if ok, err := tx.Has(k); !ok || err != nil {
			return fmt.Errorf("Has = %v, %v", ok, err)
		}
		if err := tx.Set(k, nil); !errors.Is(err, ErrReadOnly) {
			return fmt.Errorf("Set in View = %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := s.Update(func(tx *Txn) error {
		_ = tx.Delete(k)
		return boom
	}); err != boom {
		t.Fatalf("Update error = %v", err)
	}
	if err := s.View(func(tx *Txn) error { _, err := tx.Get(k); return err }); err != nil {
		t.Fatalf("aborted Update deleted the key: %v", err)
	}
	for _, bad := range [][]byte{nil, {tagInternal, 1}, bytes.Repeat([]byte{1}, MaxKeySize+1)} {
		if err := s.Update(func(tx *Txn) error { return tx.Set(bad, nil) }); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Set(%d-byte key) = %v, want ErrInvalidKey", len(bad), err)
		}
	}
}

func TestIterBounds(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	var all []string
	err := s.Update(func(tx *Txn) error {
		for _, p := range []byte{1, 2, 3} {
			for i := 0; i < 5; i++ {
				k := []byte{p, byte('a' + i)}
				all = append(all, string(k))
				if err := tx.Set(k, []byte{byte(i)}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	scan := func(o IterOptions) string {
		var got []string
		if err := s.Scan(o, func(k, v []byte) error {
			got = append(got, fmt.Sprintf("%d%c", k[0], k[1]))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	for _, tc := range []struct {
		name string
		o    IterOptions
		want string
	}{
		{"all", IterOptions{}, "1a 1b 1c 1d 1e 2a 2b 2c 2d 2e 3a 3b 3c 3d 3e"},
		{"prefix", IterOptions{Prefix: []byte{2}}, "2a 2b 2c 2d 2e"},
		{"prefix reverse", IterOptions{Prefix: []byte{2}, Reverse: true}, "2e 2d 2c 2b 2a"},
		{"bounds", IterOptions{Lower: []byte{1, 'd'}, Upper: []byte{2, 'b'}}, "1d 1e 2a"},
		{"bounds reverse", IterOptions{Lower: []byte{1, 'd'}, Upper: []byte{2, 'b'}, Reverse: true}, "2a 1e 1d"},
		{"prefix and bounds", IterOptions{Prefix: []byte{2}, Lower: []byte{1}, Upper: []byte{2, 'c'}}, "2a 2b"},
		{"prefix and bounds reverse", IterOptions{Prefix: []byte{2}, Lower: []byte{2, 'b'}, Upper: []byte{9}, Reverse: true}, "2e 2d 2c 2b"},
		{"reverse all", IterOptions{Reverse: true, Upper: []byte{1, 'c'}}, "1b 1a"},
		{"reverse unbounded", IterOptions{Reverse: true, Lower: []byte{3, 'd'}}, "3e 3d"},
		{"empty range", IterOptions{Lower: []byte{2}, Upper: []byte{2}}, ""},
		{"missing prefix", IterOptions{Prefix: []byte{9}}, ""},
		{"prefix ff", IterOptions{Prefix: []byte{0xff}, Reverse: true}, ""},
		// The key right after the prefix's range (PrefixEnd, here 1d) is
		// stored: Badger's reverse seek lands on it.
		{"prefix reverse, range end stored", IterOptions{Prefix: []byte{1, 'c'}, Reverse: true}, "1c"},
		{"prefix reverse, range end stored, bounded", IterOptions{Prefix: []byte{1, 'c'}, Lower: []byte{1, 'c'}, Upper: []byte{1, 'd'}, Reverse: true}, "1c"},
	} {
		if got := scan(tc.o); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	// An Iter inside Update sees the txn's own earlier writes; a leaked
	// Iter is closed by Update (Badger would panic on Discard otherwise).
	err = s.Update(func(tx *Txn) error {
		if err := tx.Set([]byte{2, 'c', 'c'}, nil); err != nil {
			return err
		}
		it := tx.NewIter(IterOptions{Prefix: []byte{2, 'c'}})
		n := 0
		for it.Next() {
			n++
		}
		if n != 2 {
			return fmt.Errorf("iter saw %d keys, want 2", n)
		}
		_ = tx.NewIter(IterOptions{}) // leaked on purpose
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestConflictRetry(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	k := []byte{TagMeta, 'n'}
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				err := s.Update(func(tx *Txn) error {
					v, err := tx.Get(k)
					if err != nil && !errors.Is(err, ErrNotFound) {
						return err
					}
					c := 0
					if len(v) > 0 {
						fmt.Sscan(string(v), &c)
					}
					return tx.Set(k, []byte(fmt.Sprint(c+1)))
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	_ = s.View(func(tx *Txn) error {
		v, _ := tx.Get(k)
		if string(v) != fmt.Sprint(2*n) {
			t.Fatalf("counter = %s, want %d", v, 2*n)
		}
		return nil
	})
}

func TestBatchSplitsAndDeleteRange(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{MemTableSize: 1 << 20, ValueThreshold: 1 << 10})
	if s.MaxBatchCount() <= 0 || s.MaxBatchSize() <= 0 {
		t.Fatal("batch limits not positive")
	}
	n := int(s.MaxBatchCount())*2 + 10
	// A single Update cannot hold n writes...
	err := s.Update(func(tx *Txn) error {
		for i := 0; i < n; i++ {
			if err := tx.Set(RecordKey(1, uint64(i)), []byte("x")); err != nil {
				return err
			}
		}
		return nil
	})
	if !errors.Is(err, ErrTxnTooBig) {
		t.Fatalf("oversized Update = %v, want ErrTxnTooBig", err)
	}
	// ...but a Batch splits them.
	b := s.NewBatch()
	for i := 0; i < n; i++ {
		if err := b.Set(RecordKey(1, uint64(i)), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if w, c := b.Committed(); w != n || c < 3 {
		t.Fatalf("Committed = %d writes in %d commits, want %d in >= 3", w, c, n)
	}
	if err := s.Update(func(tx *Txn) error { return tx.Set(RecordKey(2, 0), []byte("keep")) }); err != nil {
		t.Fatal(err)
	}
	// Cancel drops only the uncommitted tail.
	b.Set(RecordKey(3, 0), nil)
	b.Cancel()
	count := func(p []byte) int {
		c := 0
		_ = s.Scan(IterOptions{Prefix: p, KeysOnly: true}, func(k, v []byte) error { c++; return nil })
		return c
	}
	if got := count(RecordPrefix(1)); got != n {
		t.Fatalf("records = %d, want %d", got, n)
	}
	if got := count(RecordPrefix(3)); got != 0 {
		t.Fatal("Cancel committed a write")
	}
	del, err := s.DeleteRange(RecordKey(1, 5), RecordPrefix(2))
	if err != nil || del != n-5 {
		t.Fatalf("DeleteRange = %d, %v; want %d", del, err, n-5)
	}
	if count(RecordPrefix(1)) != 5 || count(RecordPrefix(2)) != 1 {
		t.Fatal("DeleteRange removed the wrong keys")
	}
}

func TestLockedNamesDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = Open(dir, Options{LockWait: -1})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second Open = %v, want ErrLocked naming %s", err, dir)
	}
	_, err = Open(dir, Options{LockWait: 50 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("Open with a wait, lock never released = %v, want ErrLocked", err)
	}
}

// TestLockWaitOpensOnceReleased: an Open that finds the directory held
// keeps trying for LockWait and opens it once the holder closes, whether
// the close comes before its first try or while it waits.
func TestLockWaitOpensOnceReleased(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		s2, err := Open(dir, Options{LockWait: time.Minute})
		if err == nil {
			err = s2.Close()
		}
		done <- err
	}()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Open waiting for the lock = %v, want it opened", err)
	}
}

func TestReopenReadOnlyAndSequence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := s.Sequence(SequenceKey(1), 10)
	if err != nil {
		t.Fatal(err)
	}
	for want := uint64(0); want < 25; want++ {
		if got, err := q.Next(); err != nil || got != want {
			t.Fatalf("Next = %d, %v; want %d", got, err, want)
		}
	}
	if err := q.Release(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close = %v", err)
	}
	if err := s.Update(func(*Txn) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Fatalf("Update after Close = %v", err)
	}
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q, _ = s.Sequence(SequenceKey(1), 10)
	if got, _ := q.Next(); got != 25 {
		t.Fatalf("after Release and reopen Next = %d, want 25", got)
	}
	s.Close()
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.Update(func(*Txn) error { return nil }); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Update on read-only = %v", err)
	}
	if err := ro.View(func(tx *Txn) error { _, err := tx.Get(SequenceKey(1)); return err }); err != nil {
		t.Fatal(err)
	}
	if err := ro.Reclaim(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestReclaim(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{MemTableSize: 1 << 20, ValueThreshold: 512, ValueLogFileSize: 1 << 20})
	ctx := context.Background()
	if err := s.Reclaim(ctx); err != nil {
		t.Fatalf("Reclaim on a fresh store = %v", err)
	}
	// ~3 MiB of small values in the tree (three memtables' worth) and
	// ~3 MiB of large ones in the value log, then delete it all. (Twice
	// as much, with memtables twice as large, checked nothing more at
	// twice the cost under -race.)
	small, large := bytes.Repeat([]byte("s"), 200), bytes.Repeat([]byte("L"), 4<<10)
	b := s.NewBatch()
	for i := 0; i < 15000; i++ {
		must(t, b.Set(RecordKey(1, uint64(i)), small))
	}
	for i := 0; i < 750; i++ {
		must(t, b.Set(RecordKey(2, uint64(i)), large))
	}
	must(t, b.Flush())
	if tb := s.TableBytes(); tb >= 1<<20 {
		t.Fatalf("TableBytes = %d before any memtable was flushed on request, want the memtables not counted", tb)
	}
	must(t, s.Reclaim(ctx)) // settle: everything in tables
	tb0 := s.TableBytes()
	lsm0, vlog0 := s.DiskUsage()
	// ~3 MiB of small values compress, but not to under 1 MiB (3.4 MB
	// of tables, 2026-11-26).
	if tb0 < 1<<20 {
		t.Fatalf("TableBytes = %d after Reclaim, want at least 1 MiB", tb0)
	}
	if _, err := s.DeleteRange([]byte{TagRecord}, []byte{TagRecord + 1}); err != nil {
		t.Fatal(err)
	}
	must(t, s.Reclaim(ctx))
	lsm1, vlog1 := s.DiskUsage()
	t.Logf("disk before %d+%d (tables %d), after %d+%d (tables %d)", lsm0, vlog0, tb0, lsm1, vlog1, s.TableBytes())
	if testing.Verbose() {
		ents, _ := os.ReadDir(s.Dir())
		for _, e := range ents {
			fi, _ := e.Info()
			t.Logf("  %s %d", e.Name(), fi.Size())
		}
	}
	if lsm1+vlog1 >= lsm0+vlog0 || lsm1 >= lsm0 {
		t.Fatalf("Reclaim did not shrink the store: %d+%d -> %d+%d", lsm0, vlog0, lsm1, vlog1)
	}
	if tb1 := s.TableBytes(); tb1 >= tb0/4 {
		t.Fatalf("TableBytes = %d after deleting everything and reclaiming, want well under the %d before", tb1, tb0)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Reclaim(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Reclaim with cancelled ctx = %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestReclaimDoesNotFailWriters runs writers while Reclaim flushes the
// memtables (when Badger rejects writes); every write must succeed.
func TestReclaimDoesNotFailWriters(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{MemTableSize: 1 << 20, ValueThreshold: 512})
	stop := make(chan struct{})
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := uint64(0); ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := s.Update(func(tx *Txn) error { return tx.Set(RecordKey(9, i), []byte("v")) }); err != nil {
				errs <- err
				return
			}
			if i%100 == 0 {
				if err := s.Update(func(tx *Txn) error { return tx.Delete(RecordKey(9, i/2)) }); err != nil {
					errs <- err
					return
				}
			}
		}
	}()
	for i := 0; i < 5; i++ {
		if err := s.Reclaim(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatalf("a write failed during Reclaim: %v", err)
	default:
	}
}

// TestReclaimBackground checks that ReclaimBackground gives back the space
// of deletes that have left the memtables, and that it never takes the
// commit gate (so it never pauses writers): it runs here with the gate
// held, where Reclaim's flush would wait for ever.
func TestReclaimBackground(t *testing.T) {
	t.Parallel()
	// ~3 MiB of small values, three memtables' worth.
	s := openTest(t, Options{MemTableSize: 1 << 20, ValueThreshold: 512, ValueLogFileSize: 1 << 20})
	ctx := context.Background()
	small := bytes.Repeat([]byte("s"), 200)
	b := s.NewBatch()
	for i := 0; i < 15000; i++ {
		must(t, b.Set(RecordKey(1, uint64(i)), small))
	}
	must(t, b.Flush())
	must(t, s.Reclaim(ctx)) // settle: everything in tables
	sst0 := sstBytes(t, s.Dir())
	b = s.NewBatch()
	for i := 0; i < 15000; i++ {
		must(t, b.Delete(RecordKey(1, uint64(i))))
	}
	must(t, b.Flush())
	must(t, s.flushMemtables()) // what Badger does by itself as writes go on
	s.gate.Lock()
	done := make(chan error, 1)
	go func() { done <- s.ReclaimBackground(ctx) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("ReclaimBackground waited for the commit gate")
	}
	s.gate.Unlock()
	must(t, err)
	sst1 := sstBytes(t, s.Dir())
	t.Logf("tables %d -> %d bytes", sst0, sst1)
	if sst1 >= sst0/4 {
		t.Fatalf("ReclaimBackground did not give back the deleted keys' space: tables %d -> %d bytes", sst0, sst1)
	}
}

// sstBytes is the size of the store's tables (the memtables' files, which
// DiskUsage counts too, are preallocated and do not shrink).
func sstBytes(t *testing.T, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	must(t, err)
	var n int64
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".sst") {
			fi, err := e.Info()
			must(t, err)
			n += fi.Size()
		}
	}
	return n
}

// The level shape Badger is given: tables of BaseTableSize at every
// level (TableSizeMultiplier 1) and a base level of BaseLevelSize, on
// disk and in memory.
func TestBadgerLevelShape(t *testing.T) {
	t.Parallel()
	for _, inMem := range []bool{false, true} {
		s := openTest(t, Options{InMemory: inMem})
		o := s.db.Opts()
		if o.BaseLevelSize != BaseLevelSize || o.TableSizeMultiplier != 1 {
			t.Fatalf("InMemory %v: BaseLevelSize %d, TableSizeMultiplier %d; want %d and 1", inMem, o.BaseLevelSize, o.TableSizeMultiplier, BaseLevelSize)
		}
	}
}

// TestBadgerOptionsMatchOpen checks that BadgerOptions, what the
// benchmarks open their raw Badger floor with, is what Open gives Badger:
// the sizes the memory budget sets and the level shape.
func TestBadgerOptionsMatchOpen(t *testing.T) {
	t.Parallel()
	for _, o := range []Options{{}, {MemoryBudget: 1 << 30, LevelZeroTables: 7}} {
		dir := t.TempDir()
		s, err := Open(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		got, want := BadgerOptions(dir, o), s.db.Opts()
		s.Close()
		type shape struct {
			mt, bc, ic, vt, vlog, base, tbl int64
			nmt, l0, stall, comp, mult      int
		}
		of := func(b badger.Options) shape {
			return shape{b.MemTableSize, b.BlockCacheSize, b.IndexCacheSize, b.ValueThreshold, b.ValueLogFileSize,
				b.BaseLevelSize, b.BaseTableSize, b.NumMemtables, b.NumLevelZeroTables, b.NumLevelZeroTablesStall,
				b.NumCompactors, b.TableSizeMultiplier}
		}
		if of(got) != of(want) || got.Dir != dir || got.Compression != want.Compression || got.DetectConflicts != want.DetectConflicts {
			t.Errorf("%+v: BadgerOptions %+v, Open gave %+v", o, of(got), of(want))
		}
	}
}
