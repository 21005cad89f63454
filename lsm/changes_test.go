package lsm

import (
	"errors"
	"fmt"
	badger "github.com/dgraph-io/badger/v4"
	"sync"
	"testing"
	"time"
)

func readAll(t *testing.T, s *Store, after ChangePos) ([]ChangePos, []string) {
	t.Helper()
	var ps []ChangePos
	var vs []string
	if err := s.ReadChanges(after, 0, func(p ChangePos, v []byte) error {
		ps = append(ps, p)
		vs = append(vs, string(v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ps, vs
}

func TestChangesWrittenWithTheirCommit(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	now := time.Unix(1000, 0)
	must(t, s.EnableChanges(ChangeLogOptions{Now: func() time.Time { return now }}))
	// A failed transaction leaves no change.
	err := s.Update(func(tx *Txn) error {
		must(t, tx.Set([]byte{TagRecord, 1}, []byte("x")))
		must(t, tx.AddChange([]byte("lost")))
		return errors.New("abort")
	})
	if err == nil {
		t.Fatal("want abort")
	}
	for i := 0; i < 3; i++ {
		must(t, s.Update(func(tx *Txn) error {
			must(t, tx.Set([]byte{TagRecord, byte(i)}, []byte("x")))
			must(t, tx.AddChange([]byte(fmt.Sprintf("c%d.0", i))))
			return tx.AddChange([]byte(fmt.Sprintf("c%d.1", i)))
		}))
	}
	ps, vs := readAll(t, s, ChangePos{})
	if fmt.Sprint(vs) != "[c0.0 c0.1 c1.0 c1.1 c2.0 c2.1]" {
		t.Fatalf("changes %v", vs)
	}
	if ps[0].Seq != 1000<<32 || ps[2].Seq != 1000<<32+1 || ps[1].Index != 1 {
		t.Fatalf("positions %v", ps)
	}
	// Reading after a position skips it and what precedes it.
	_, vs = readAll(t, s, ps[2])
	if fmt.Sprint(vs) != "[c1.1 c2.0 c2.1]" {
		t.Fatalf("after %v: %v", ps[2], vs)
	}
	// A Batch and a Pipeline write changes too.
	b := s.NewBatch()
	must(t, b.Set([]byte{TagRecord, 9}, []byte("y")))
	must(t, b.AddChange([]byte("batch")))
	must(t, b.Flush())
	p := s.NewPipeline()
	pend, err := p.Update(func(tx *Txn) error { return tx.AddChange([]byte("pipe")) }, nil)
	must(t, err)
	must(t, pend.Wait())
	must(t, p.Close())
	_, vs = readAll(t, s, ps[5])
	if fmt.Sprint(vs) != "[batch pipe]" {
		t.Fatalf("batch and pipeline: %v", vs)
	}
}

func TestChangesDisabled(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	err := s.Update(func(tx *Txn) error { return tx.AddChange([]byte("x")) })
	if !errors.Is(err, ErrChangesDisabled) {
		t.Fatalf("got %v", err)
	}
}

func TestChangesOrderUnderConcurrentWriters(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	must(t, s.EnableChanges(ChangeLogOptions{}))
	const writers, each = 4, 100
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				// Each writer bumps its own counter key; the change
				// carries the counter value, so per-writer order is
				// checkable in the log.
				err := s.Update(func(tx *Txn) error {
					k := []byte{TagRecord, byte(w)}
					if err := tx.Set(k, []byte{byte(i)}); err != nil {
						return err
					}
					return tx.AddChange([]byte{byte(w), byte(i)})
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	ps, vs := readAll(t, s, ChangePos{})
	if len(vs) != writers*each {
		t.Fatalf("%d changes, want %d", len(vs), writers*each)
	}
	next := make([]int, writers)
	for i, v := range vs {
		if i > 0 && ps[i].Compare(ps[i-1]) <= 0 {
			t.Fatalf("positions out of order at %d", i)
		}
		if int(v[1]) != next[v[0]] {
			t.Fatalf("writer %d: change %d before %d", v[0], v[1], next[v[0]])
		}
		next[v[0]]++
	}
}

func TestChangesNotifyWakesReader(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	must(t, s.EnableChanges(ChangeLogOptions{}))
	ch := s.ChangeNotify()
	select {
	case <-ch:
		t.Fatal("closed before any commit")
	default:
	}
	must(t, s.Update(func(tx *Txn) error { return tx.AddChange([]byte("a")) }))
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("not woken by the commit")
	}
	// After the wake-up, the change is readable.
	if _, vs := readAll(t, s, ChangePos{}); len(vs) != 1 {
		t.Fatalf("%v", vs)
	}
}

func TestChangesTrimAndHistoryLost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	must(t, err)
	must(t, s.EnableChanges(ChangeLogOptions{MaxEvents: 100}))
	for i := 0; i < 100; i++ {
		must(t, s.Update(func(tx *Txn) error { return tx.AddChange([]byte{byte(i)}) }))
	}
	first, _ := readAll(t, s, ChangePos{})
	// One more overfills the log; trim it now instead of in the background.
	must(t, s.Update(func(tx *Txn) error { return tx.AddChange([]byte{100}) }))
	must(t, s.TrimChanges())
	ps, _ := readAll(t, s, first[len(first)-11])
	if len(ps) != 11 {
		t.Fatalf("%d changes after the 89th", len(ps))
	}
	err = s.ReadChanges(first[0], 0, func(ChangePos, []byte) error { return nil })
	if !errors.Is(err, ErrChangeHistoryLost) {
		t.Fatalf("reading a trimmed position: %v", err)
	}
	trimmed, last, err := s.ChangeBounds()
	must(t, err)
	if trimmed.Compare(first[10]) != 0 {
		t.Fatalf("trimmed through %v", trimmed)
	}
	// Reopened, the log keeps its bounds and sequences keep growing.
	must(t, s.Close())
	s, err = Open(dir, Options{})
	must(t, err)
	defer s.Close()
	must(t, s.EnableChanges(ChangeLogOptions{MaxEvents: 100, Now: func() time.Time { return time.Unix(1, 0) }}))
	must(t, s.Update(func(tx *Txn) error { return tx.AddChange([]byte("new")) }))
	ps, vs := readAll(t, s, last)
	if len(ps) != 1 || vs[0] != "new" || ps[0].Seq != last.Seq+1 {
		t.Fatalf("after reopen: %v %v (last %v)", ps, vs, last)
	}
	if err := s.ReadChanges(first[0], 0, func(ChangePos, []byte) error { return nil }); !errors.Is(err, ErrChangeHistoryLost) {
		t.Fatalf("after reopen, reading a trimmed position: %v", err)
	}
}

func TestAddChangeRefusesAFullTxn(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	must(t, s.EnableChanges(ChangeLogOptions{}))
	big := make([]byte, 1000)
	err := s.Update(func(tx *Txn) error {
		for i := 0; ; i++ {
			if err := tx.AddChange(big); err != nil {
				return err
			}
		}
	})
	if !errors.Is(err, ErrTxnTooBig) {
		t.Fatalf("got %v", err)
	}
}

// TestChangePacks: a commit's changes share entries (packs, in the value
// log on disk), and every position stays exact: reading after any change
// of a pack, with a limit that ends inside one, trimming whole packs, and
// counting the log again when it is reopened.
func TestChangePacks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	must(t, err)
	defer func() { _ = s.Close() }()
	opts := ChangeLogOptions{MaxEvents: 1 << 20}
	must(t, s.EnableChanges(opts))
	// Commit 1: 600 changes of 300 bytes (three packs of 64 KiB at most);
	// commit 2: one change too large for a pack (an entry of its own)
	// between small ones; commit 3: a single change (no pack).
	var want []string
	val := func(c, i, size int) []byte {
		v := []byte(fmt.Sprintf("c%d.%d.", c, i))
		for len(v) < size {
			v = append(v, 'x')
		}
		want = append(want, string(v))
		return v
	}
	must(t, s.Update(func(tx *Txn) error {
		for i := 0; i < 600; i++ {
			if err := tx.AddChange(val(1, i, 300)); err != nil {
				return err
			}
		}
		return nil
	}))
	must(t, s.Update(func(tx *Txn) error {
		must(t, tx.AddChange(val(2, 0, 10)))
		must(t, tx.AddChange(val(2, 1, changePackMax+1)))
		return tx.AddChange(val(2, 2, 10))
	}))
	must(t, s.Update(func(tx *Txn) error { return tx.AddChange(val(3, 0, 10)) }))
	entries := func() (n int, packs int) {
		must(t, s.View(func(tx *Txn) error {
			it := tx.t.NewIterator(badger.IteratorOptions{Prefix: []byte{TagChange}})
			defer it.Close()
			for it.Rewind(); it.Valid(); it.Next() {
				n++
				if it.Item().UserMeta()&changePackMeta != 0 {
					packs++
				}
			}
			return nil
		}))
		return n, packs
	}
	if n, packs := entries(); n != 7 || packs != 3 {
		t.Fatalf("%d entries, %d packs; want 7 entries (3 packs of commit 1, 3 of commit 2, 1), 3 packs", n, packs)
	}
	ps, vs := readAll(t, s, ChangePos{})
	if len(vs) != len(want) {
		t.Fatalf("read %d changes, want %d", len(vs), len(want))
	}
	for i := range want {
		if vs[i] != want[i] {
			t.Fatalf("change %d: %.20q, want %.20q", i, vs[i], want[i])
		}
		if i > 0 && ps[i].Compare(ps[i-1]) <= 0 {
			t.Fatalf("positions out of order at %d: %v after %v", i, ps[i], ps[i-1])
		}
	}
	if ps[599].Index != 599 || ps[600].Index != 0 || ps[600].Seq == ps[599].Seq {
		t.Fatalf("positions %v %v", ps[599], ps[600])
	}
	// After every position, exactly what follows it.
	for _, i := range []int{0, 1, 217, 218, 219, 437, 598, 599, 600, 601, 602, 603} {
		got, gv := readAll(t, s, ps[i])
		if len(got) != len(want)-i-1 || (len(gv) > 0 && gv[0] != want[i+1]) {
			t.Fatalf("after change %d: %d changes", i, len(got))
		}
	}
	// A limit ending inside a pack, then resuming from there.
	var read []string
	pos := ChangePos{}
	for {
		k := 0
		must(t, s.ReadChanges(pos, 101, func(p ChangePos, v []byte) error {
			read, pos, k = append(read, string(v)), p, k+1
			return nil
		}))
		if k == 0 {
			break
		}
	}
	if fmt.Sprint(read) != fmt.Sprint(want) {
		t.Fatalf("read in steps of 101: %d changes", len(read))
	}
	// Counted again on reopen, the old one-change entries counted alike.
	count := s.changes.count.Load()
	if count != int64(len(want)) {
		t.Fatalf("count %d, want %d", count, len(want))
	}
	must(t, s.Close())
	s, err = Open(dir, Options{})
	must(t, err)
	must(t, s.EnableChanges(opts))
	if c := s.changes.count.Load(); c != count {
		t.Fatalf("count after reopen %d, want %d", c, count)
	}
	// Trimming to 500 changes drops whole packs: the first two of commit
	// 1 (changes 0..~436), and history before the mark is lost.
	s.changes.o.MaxEvents = 500 * 10 / 9
	must(t, s.TrimChanges())
	trimmed, last, err := s.ChangeBounds()
	must(t, err)
	if last.Compare(ps[len(ps)-1]) != 0 {
		t.Fatalf("last %v, want %v", last, ps[len(ps)-1])
	}
	k := int(trimmed.Index)
	if trimmed.Seq != ps[0].Seq || k < 100 || k >= 599 {
		t.Fatalf("trimmed through %v", trimmed)
	}
	if err := s.ReadChanges(ps[k-1], 0, func(ChangePos, []byte) error { return nil }); !errors.Is(err, ErrChangeHistoryLost) {
		t.Fatalf("reading before the mark: %v", err)
	}
	got, gv := readAll(t, s, trimmed)
	if len(got) != len(want)-k-1 || gv[0] != want[k+1] {
		t.Fatalf("after the mark: %d changes", len(got))
	}
	if c := s.changes.count.Load(); c != int64(len(got)) {
		t.Fatalf("count after trim %d, want %d", c, len(got))
	}
	must(t, s.Close())
	s, err = Open(dir, Options{})
	must(t, err)
	must(t, s.EnableChanges(opts))
	if c := s.changes.count.Load(); c != int64(len(got)) {
		t.Fatalf("count after trim and reopen %d, want %d", c, len(got))
	}
}

// TestChangePackCorrupt: a damaged pack is an error naming its position,
// never a panic or a change read past its end.
func TestChangePackCorrupt(t *testing.T) {
	t.Parallel()
	var good []byte
	must(t, packChanges([][]byte{[]byte("ab"), []byte("cde")}, 100, func(last int, v []byte, pack bool) error {
		if !pack || last != 1 {
			t.Fatalf("entry last %d pack %v", last, pack)
		}
		good = v
		return nil
	}))
	p := ChangePos{Seq: 9, Index: 1}
	var got []string
	must(t, eachChange(p, changePackMeta, good, func(q ChangePos, v []byte) error {
		got = append(got, fmt.Sprintf("%d:%s", q.Index, v))
		return nil
	}))
	if fmt.Sprint(got) != "[0:ab 1:cde]" {
		t.Fatalf("read %v", got)
	}
	for _, bad := range [][]byte{
		nil,
		{0},                                    // no changes
		{3, 2, 'a', 'b'},                       // more changes than the key's index allows
		{2, 2, 'a', 'b', 9, 'c'},               // a length past the end
		append(append([]byte{}, good...), 'x'), // bytes after the last change
		{2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, // a bad varint
	} {
		err := eachChange(p, changePackMeta, bad, func(ChangePos, []byte) error { return nil })
		if err == nil {
			t.Errorf("pack %x: no error", bad)
		}
	}
}
