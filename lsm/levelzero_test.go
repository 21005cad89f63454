package lsm

import (
	"bytes"
	"testing"
)

// TestLevelZeroTables checks that LevelZeroTables counts the tables
// flushed memtables leave in level 0 while no compaction moves them
// down, and reads 0 on a fresh store and a closed one. With one
// memtable waiting at most, Badger holds a write that finds the memtable
// full until the one waiting before it is flushed, so writing four
// memtables' worth leaves at least two tables in level 0 by the time the
// writes return.
func TestLevelZeroTables(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{MemTableSize: 1 << 20, NumMemtables: 1, NumCompactors: -1})
	if n := s.LevelZeroTables(); n != 0 {
		t.Fatalf("fresh store: %d level-0 tables, want 0", n)
	}
	v := bytes.Repeat([]byte("v"), 200)
	for i := 0; i < 4*(1<<20)/200; i += 100 {
		must(t, s.Update(func(txn *Txn) error {
			for k := i; k < i+100; k++ {
				if err := txn.Set(RecordKey(1, uint64(k)), v); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	if n := s.LevelZeroTables(); n < 2 {
		t.Fatalf("after four memtables of writes with compaction off: %d level-0 tables, want at least 2", n)
	}
	must(t, s.Close())
	if n := s.LevelZeroTables(); n != 0 {
		t.Fatalf("closed store: %d level-0 tables, want 0", n)
	}
}
