package lsm

import (
	"errors"
	"fmt"
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
