package lsm

import (
	"strings"
	"testing"
)

// TestMemoryBudgetDefaults checks that the default budget gives the
// sizes documented on each field, so that leaving MemoryBudget unset
// changes nothing.
func TestMemoryBudgetDefaults(t *testing.T) {
	t.Parallel()
	var o Options
	o.ensureDefaults()
	const mib = 1 << 20
	if o.MemoryBudget != DefaultMemoryBudget || o.MemTableSize != 16*mib || o.NumMemtables != 2 ||
		o.BlockCacheSize != 16*mib || o.IndexCacheSize != 8*mib || o.NumCompactors != 2 ||
		o.LevelZeroTables != 10 {
		t.Fatalf("defaults: %+v", o)
	}
}

// TestLevelZeroTablesValidated checks that a negative LevelZeroTables
// is refused and that one set explicitly is kept and opens.
func TestLevelZeroTablesValidated(t *testing.T) {
	t.Parallel()
	if _, err := Open(t.TempDir(), Options{LevelZeroTables: -1}); err == nil || !strings.Contains(err.Error(), "LevelZeroTables") {
		t.Fatalf("LevelZeroTables -1: %v", err)
	}
	s, err := Open(t.TempDir(), Options{LevelZeroTables: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.opts.LevelZeroTables != 3 {
		t.Fatalf("LevelZeroTables %d, want 3", s.opts.LevelZeroTables)
	}
}

// TestMemoryBudgetScales checks the sizes a small and a large budget
// give, and that fields set explicitly win over the budget.
func TestMemoryBudgetScales(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	small := Options{MemoryBudget: MinMemoryBudget}
	small.ensureDefaults()
	if small.MemTableSize != 4*mib || small.NumMemtables != 2 || small.BlockCacheSize != 32*mib/10 ||
		small.IndexCacheSize != 32*mib/20 || small.NumCompactors != 2 {
		t.Errorf("32 MiB budget: %+v", small)
	}
	large := Options{MemoryBudget: 1 << 30}
	large.ensureDefaults()
	if large.MemTableSize != 64*mib || large.NumMemtables != 3 || large.BlockCacheSize != (1<<30)/10 ||
		large.NumCompactors != 4 {
		t.Errorf("1 GiB budget: %+v", large)
	}
	set := Options{MemoryBudget: 1 << 30, MemTableSize: 8 * mib, NumCompactors: -1}
	set.ensureDefaults()
	if set.MemTableSize != 8*mib || set.NumCompactors != -1 || set.NumMemtables != 3 {
		t.Errorf("explicit fields lost: %+v", set)
	}
}

// TestMemoryBudgetTooSmall checks Open refuses a budget below the
// minimum, naming it, and opens with the minimum.
func TestMemoryBudgetTooSmall(t *testing.T) {
	t.Parallel()
	if _, err := Open("", Options{InMemory: true, MemoryBudget: MinMemoryBudget - 1}); err == nil ||
		!strings.Contains(err.Error(), "MemoryBudget") {
		t.Fatalf("Open with a budget below the minimum: %v", err)
	}
	s := openTest(t, Options{InMemory: true, MemoryBudget: MinMemoryBudget})
	if err := s.Update(func(tx *Txn) error { return tx.Set([]byte{TagRecord, 1}, []byte("v")) }); err != nil {
		t.Fatal(err)
	}
}
