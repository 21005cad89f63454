package lsm

import (
	"errors"
	"fmt"
	"testing"
)

func pipeStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func pkey(i int) []byte { return []byte(fmt.Sprintf("k%05d", i)) }

func mustHave(t *testing.T, s *Store, key []byte, want bool) {
	t.Helper()
	err := s.View(func(txn *Txn) error {
		ok, err := txn.Has(key)
		if err == nil && ok != want {
			err = fmt.Errorf("key %s present %v, want %v", key, ok, want)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Every commit a Pipeline sends is visible to a transaction begun after
// Update returns, even though Update does not wait for the write; and a
// commit is sent only once the one before it has been applied.
func TestPipelineVisibleAndOrdered(t *testing.T) {
	t.Parallel()
	s := pipeStore(t)
	p := s.NewPipeline()
	var prev *Pending
	for i := 0; i < 300; i++ {
		pend, err := p.Update(func(txn *Txn) error { return txn.Set(pkey(i), []byte("v")) }, nil)
		if err != nil || pend == nil {
			t.Fatalf("update %d: %v %v", i, pend, err)
		}
		if prev != nil && !prev.Done() {
			t.Fatalf("commit %d sent before commit %d was applied", i, i-1)
		}
		mustHave(t, s, pkey(i), true) // begun after send: waits for the write
		prev = pend
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := prev.Wait(); err != nil {
		t.Fatal(err)
	}
}

// The transaction of the next Update is begun before the previous
// commit is sent: a key it reads that someone writes after that makes
// its commit conflict, reported by Pending.Wait, with nothing written.
func TestPipelineConflictReported(t *testing.T) {
	t.Parallel()
	s := pipeStore(t)
	if err := s.Update(func(txn *Txn) error { return txn.Set([]byte("shared"), []byte("0")) }); err != nil {
		t.Fatal(err)
	}
	p := s.NewPipeline()
	defer p.Close()
	first, err := p.Update(func(txn *Txn) error { return txn.Set(pkey(1), nil) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	// Written after the next transaction began.
	if err := s.Update(func(txn *Txn) error { return txn.Set([]byte("shared"), []byte("1")) }); err != nil {
		t.Fatal(err)
	}
	pend, err := p.Update(func(txn *Txn) error {
		if _, err := txn.Get([]byte("shared")); err != nil {
			return err
		}
		return txn.Set(pkey(2), nil)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := pend.Wait(); !errors.Is(err, ErrConflict) {
		t.Fatalf("Wait = %v, want ErrConflict", err)
	}
	mustHave(t, s, pkey(2), false)
	// The Pipeline goes on: the next transaction is fresh.
	pend, err = p.Update(func(txn *Txn) error {
		if _, err := txn.Get([]byte("shared")); err != nil {
			return err
		}
		return txn.Set(pkey(3), nil)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := pend.Wait(); err != nil {
		t.Fatal(err)
	}
	mustHave(t, s, pkey(3), true)
}

// fn errors, guard errors and a guard that does not send write nothing
// and return no Pending.
func TestPipelineNothingSent(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	cases := []struct {
		name    string
		fnErr   error
		guard   func(send func() error) error
		wantErr error
	}{
		{"fn error", boom, nil, boom},
		{"guard error", nil, func(func() error) error { return boom }, boom},
		{"guard does not send", nil, func(func() error) error { return nil }, nil},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := pipeStore(t)
			p := s.NewPipeline()
			pend, err := p.Update(func(txn *Txn) error {
				if err := txn.Set(pkey(i), nil); err != nil {
					return err
				}
				return tc.fnErr
			}, tc.guard)
			if pend != nil || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("Update = %v, %v; want nil, %v", pend, err, tc.wantErr)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			mustHave(t, s, pkey(i), false)
		})
	}
}

// A guard may send only once; a closed store refuses updates.
func TestPipelineMisuse(t *testing.T) {
	t.Parallel()
	s := pipeStore(t)
	p := s.NewPipeline()
	_, err := p.Update(func(txn *Txn) error { return txn.Set(pkey(1), nil) }, func(send func() error) error {
		if err := send(); err != nil {
			return err
		}
		return send()
	})
	if err == nil {
		t.Fatal("a second send succeeded")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := p.Update(func(*Txn) error { return nil }, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Update on a closed store = %v, want ErrClosed", err)
	}
}

// TestCommitsCounts checks that Commits counts every way a write reaches
// Badger (Update, a Batch's flush, a Pipeline's commit) and nothing else.
func TestCommitsCounts(t *testing.T) {
	t.Parallel()
	s := pipeStore(t)
	want := s.Commits()
	check := func(what string, delta uint64) {
		t.Helper()
		want += delta
		if got := s.Commits(); got != want {
			t.Fatalf("after %s: Commits = %d, want %d", what, got, want)
		}
	}
	must(t, s.Update(func(tx *Txn) error { return tx.Set(pkey(1), []byte("v")) }))
	check("Update", 1)
	must(t, s.View(func(tx *Txn) error { _, err := tx.Get(pkey(1)); return err }))
	check("View", 0)
	b := s.NewBatch()
	must(t, b.Set(pkey(2), []byte("v")))
	must(t, b.Flush())
	check("a Batch flush", 1)
	p := s.NewPipeline()
	pend, err := p.Update(func(tx *Txn) error { return tx.Set(pkey(3), []byte("v")) }, nil)
	must(t, err)
	must(t, p.Close())
	must(t, pend.Wait())
	check("a Pipeline commit", 1)
}
