package lsm

import (
	"bytes"
	"testing"
)

// TestSkipCloseCompaction checks Options.SkipCloseCompaction: a store
// closed with it reopens with the level-0 table its Close flushed and
// every value it held; one closed without it (the default) reopens with
// level 0 compacted away and the same values.
func TestSkipCloseCompaction(t *testing.T) {
	t.Parallel()
	for _, skip := range []bool{false, true} {
		dir := t.TempDir()
		s, err := Open(dir, Options{MemoryBudget: MinMemoryBudget, NumCompactors: -1, SkipCloseCompaction: skip})
		if err != nil {
			t.Fatal(err)
		}
		v := bytes.Repeat([]byte("v"), 100)
		must(t, s.Update(func(txn *Txn) error {
			for k := 0; k < 100; k++ {
				if err := txn.Set(RecordKey(1, uint64(k)), v); err != nil {
					return err
				}
			}
			return nil
		}))
		must(t, s.Close())
		// Reopened with the compactors off, so level 0 stays as Close
		// left it.
		s, err = Open(dir, Options{MemoryBudget: MinMemoryBudget, NumCompactors: -1})
		if err != nil {
			t.Fatal(err)
		}
		n := s.LevelZeroTables()
		switch {
		case skip && n != 1:
			t.Errorf("SkipCloseCompaction: reopened with %d level-0 tables, want the 1 Close flushed", n)
		case !skip && n != 0:
			t.Errorf("default: reopened with %d level-0 tables, want 0 (compacted at close)", n)
		}
		must(t, s.View(func(txn *Txn) error {
			for k := 0; k < 100; k++ {
				got, err := txn.Get(RecordKey(1, uint64(k)))
				if err != nil {
					return err
				}
				if !bytes.Equal(got, v) {
					t.Errorf("skip %v: key %d = %q after reopen", skip, k, got)
				}
			}
			return nil
		}))
		must(t, s.Close())
	}
}
