package lsm

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// GetSorted returns exactly what a Get per key returns, for keys that
// are dense, sparse (beyond the Next window), missing, deleted, written
// in the same transaction, duplicated or out of order.
func TestGetSorted(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	s := openTest(t, Options{InMemory: true})
	rec := func(rid uint64) []byte { return RecordKey(3, rid) }
	present := map[uint64]bool{}
	must(t, s.Update(func(tx *Txn) error {
		for rid := uint64(1); rid <= 500; rid++ {
			if rng.IntN(3) > 0 {
				present[rid] = true
				if err := tx.Set(rec(rid), []byte(fmt.Sprint("v", rid))); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	must(t, s.Update(func(tx *Txn) error { // committed deletes
		for rid := uint64(1); rid <= 500; rid += 7 {
			delete(present, rid)
			if err := tx.Delete(rec(rid)); err != nil {
				return err
			}
		}
		return nil
	}))
	cases := map[string][]uint64{
		"dense":    {2, 3, 4, 5, 6, 8, 9, 10},
		"sparse":   {1, 40, 41, 200, 499, 500, 501, 9999},
		"empty":    {},
		"one":      {3},
		"missing":  {1, 8, 15, 22},
		"dups":     {10, 10, 11},
		"unsorted": {50, 20, 60, 30},
	}
	var all []uint64
	for i := 0; i < 100; i++ {
		all = append(all, uint64(rng.IntN(520)))
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	cases["random"] = all
	for name, rids := range cases {
		t.Run(name, func(t *testing.T) {
			for _, inTxn := range []bool{false, true} {
				err := s.Update(func(tx *Txn) error {
					own := uint64(0)
					if inTxn && len(rids) > 0 {
						// The transaction's own write and delete are seen.
						own = rids[0]
						if err := tx.Set(rec(own), []byte("own")); err != nil {
							return err
						}
						if len(rids) > 1 {
							if err := tx.Delete(rec(rids[len(rids)-1])); err != nil {
								return err
							}
						}
					}
					keys := make([][]byte, len(rids))
					for i, rid := range rids {
						keys[i] = rec(rid)
					}
					got, err := tx.GetSorted(keys)
					if err != nil {
						return err
					}
					if len(got) != len(rids) {
						t.Fatalf("%d values for %d keys", len(got), len(rids))
					}
					for i, k := range keys {
						want, err := tx.Get(k)
						if errors.Is(err, ErrNotFound) {
							want = nil
						} else if err != nil {
							return err
						}
						if !bytes.Equal(got[i], want) || (got[i] == nil) != (want == nil) {
							t.Errorf("inTxn=%v key rid %d: GetSorted %q, Get %q", inTxn, rids[i], got[i], want)
						}
					}
					// GetSortedFunc calls fn once per key with a value, in
					// key order, with that value.
					last := -1
					err = tx.GetSortedFunc(keys, func(i int, val []byte) error {
						if i <= last {
							t.Errorf("inTxn=%v: GetSortedFunc called for key %d after key %d", inTxn, i, last)
						}
						for j := last + 1; j < i; j++ {
							if got[j] != nil {
								t.Errorf("inTxn=%v key rid %d: GetSortedFunc skipped %q", inTxn, rids[j], got[j])
							}
						}
						last = i
						if got[i] == nil || !bytes.Equal(val, got[i]) {
							t.Errorf("inTxn=%v key rid %d: GetSortedFunc %q, GetSorted %q", inTxn, rids[i], val, got[i])
						}
						return nil
					})
					if err != nil {
						return err
					}
					for j := last + 1; j < len(keys); j++ {
						if got[j] != nil {
							t.Errorf("inTxn=%v key rid %d: GetSortedFunc skipped %q", inTxn, rids[j], got[j])
						}
					}
					// An error from fn stops the reads and is returned.
					stop := errors.New("stop")
					calls := 0
					err = tx.GetSortedFunc(keys, func(int, []byte) error { calls++; return stop })
					if calls > 1 || (calls == 0 && err != nil) || (calls == 1 && err != stop) {
						t.Errorf("inTxn=%v: fn returning an error: %d calls, err %v (want one call and err stop, or none and nil)", inTxn, calls, err)
					}
					return errors.New("rollback")
				})
				if err == nil || err.Error() != "rollback" {
					t.Fatal(err)
				}
			}
		})
	}
}

// A read through GetSorted makes the commit conflict with a writer of
// that key, as a Get does; UpdateGuarded re-runs fn and guard.
func TestGetSortedConflictAndGuard(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	k := RecordKey(1, 5)
	must(t, s.Update(func(tx *Txn) error { return tx.Set(k, []byte("a")) }))
	runs, guards := 0, 0
	err := s.UpdateGuarded(func(tx *Txn) error {
		runs++
		vals, err := tx.GetSorted([][]byte{RecordKey(1, 4), k})
		if err != nil {
			return err
		}
		if runs == 1 {
			if string(vals[1]) != "a" {
				t.Fatalf("first read %q", vals[1])
			}
			// A concurrent writer changes the key after our read.
			must(t, s.Update(func(tx *Txn) error { return tx.Set(k, []byte("b")) }))
		} else if string(vals[1]) != "b" {
			t.Fatalf("retry read %q, want b", vals[1])
		}
		return tx.Delete(k)
	}, func(commit func() error) error {
		guards++
		return commit()
	})
	must(t, err)
	if runs != 2 || guards != 2 {
		t.Fatalf("fn ran %d times, guard %d; want 2 and 2 (one conflict)", runs, guards)
	}
	// A guard that refuses aborts without committing.
	stop := errors.New("stop")
	err = s.UpdateGuarded(func(tx *Txn) error { return tx.Set(k, []byte("c")) },
		func(func() error) error { return stop })
	if err != stop {
		t.Fatalf("guard error = %v, want it returned as is", err)
	}
	must(t, s.View(func(tx *Txn) error {
		if _, err := tx.Get(k); !errors.Is(err, ErrNotFound) {
			t.Fatalf("aborted write is visible (err %v)", err)
		}
		return nil
	}))
	// Committing twice is an error, not a second commit.
	err = s.UpdateGuarded(func(tx *Txn) error { return tx.Set(k, []byte("d")) },
		func(commit func() error) error {
			if err := commit(); err != nil {
				return err
			}
			return commit()
		})
	if err == nil {
		t.Fatal("second commit succeeded")
	}
}

// Keys outside the common prefix of the first and last key (unsorted
// input across collections) are still found: GetSorted bounds its
// iterator by that prefix and reads such keys with a point Get.
func TestGetSortedOutsideCommonPrefix(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	a, b := RecordKey(3, 2), RecordKey(9, 1)
	c := RecordKey(3, 9)
	must(t, s.Update(func(tx *Txn) error {
		for _, k := range [][]byte{a, b, c} {
			if err := tx.Set(k, append([]byte("v"), k...)); err != nil {
				return err
			}
		}
		return nil
	}))
	must(t, s.View(func(tx *Txn) error {
		got, err := tx.GetSorted([][]byte{a, b, c})
		if err != nil {
			return err
		}
		for i, k := range [][]byte{a, b, c} {
			if want := append([]byte("v"), k...); !bytes.Equal(got[i], want) {
				t.Errorf("key %d: got %q, want %q", i, got[i], want)
			}
		}
		return nil
	}))
	if p := commonPrefix(RecordKey(3, 1), RecordKey(3, 1<<40)); !bytes.HasPrefix(RecordKey(3, 77), p) || bytes.HasPrefix(RecordKey(4, 77), p) {
		t.Errorf("commonPrefix of two records of collection 3 = %x: want a prefix of its records only", p)
	}
}

// DeleteOwned deletes as Delete does, keeps the caller's slice (no
// copy), and rejects what Delete rejects.
func TestDeleteOwned(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	k := RecordKey(3, 1)
	must(t, s.Update(func(tx *Txn) error { return tx.Set(k, []byte("v")) }))
	must(t, s.Update(func(tx *Txn) error { return tx.DeleteOwned(RecordKey(3, 1)) }))
	must(t, s.View(func(tx *Txn) error {
		if _, err := tx.Get(k); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get after DeleteOwned: %v, want ErrNotFound", err)
		}
		if err := tx.DeleteOwned(RecordKey(3, 2)); !errors.Is(err, ErrReadOnly) {
			t.Errorf("DeleteOwned in View: %v, want ErrReadOnly", err)
		}
		return nil
	}))
	must(t, s.Update(func(tx *Txn) error {
		if err := tx.DeleteOwned(nil); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("DeleteOwned(nil): %v, want ErrInvalidKey", err)
		}
		return nil
	}))
}

// TestSetOwned checks that SetOwned stores what it is handed, refuses
// what Set refuses, and that the store does not copy: the caller's
// value is what commits.
func TestSetOwned(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	k := RecordKey(4, 1)
	must(t, s.Update(func(tx *Txn) error { return tx.SetOwned(k, []byte("owned")) }))
	must(t, s.View(func(tx *Txn) error {
		v, err := tx.Get(k)
		if err != nil || string(v) != "owned" {
			t.Errorf("Get after SetOwned: %q, %v", v, err)
		}
		if err := tx.SetOwned(RecordKey(4, 2), []byte("x")); !errors.Is(err, ErrReadOnly) {
			t.Errorf("SetOwned in View: %v, want ErrReadOnly", err)
		}
		return nil
	}))
	must(t, s.Update(func(tx *Txn) error {
		if err := tx.SetOwned(nil, []byte("x")); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("SetOwned(nil): %v, want ErrInvalidKey", err)
		}
		if err := tx.SetOwned([]byte{tagInternal, 1}, nil); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("SetOwned(reserved): %v, want ErrInvalidKey", err)
		}
		return nil
	}))
	// Not copied: a value changed between SetOwned and the commit is
	// what commits (which is why callers must not change it).
	val := []byte("before")
	must(t, s.Update(func(tx *Txn) error {
		if err := tx.SetOwned(RecordKey(4, 3), val); err != nil {
			return err
		}
		copy(val, "after!")
		return nil
	}))
	must(t, s.View(func(tx *Txn) error {
		if v, err := tx.Get(RecordKey(4, 3)); err != nil || string(v) != "after!" {
			t.Errorf("SetOwned kept a copy: %q, %v", v, err)
		}
		return nil
	}))
}

// TestGetSortedSizes checks that GetSortedSizes gives each value's exact
// length, for values held in the tree and in the value log (whose
// entry header varies with the key's and the value's lengths), short
// and long keys, committed and pending writes, and skips missing keys.
func TestGetSortedSizes(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	sizes := []int{0, 1, 100, 4095, 4096, 5000, 16383, 16384, 16500, 100_000, 2_097_151, 2_097_152}
	var keys [][]byte
	want := map[string]int{}
	for i, n := range sizes {
		for _, ks := range [][]byte{{1}, bytes.Repeat([]byte{2}, 200)} {
			k := IndexKey(3, 4, ks, uint64(i))
			keys = append(keys, k)
			want[string(k)] = n
		}
	}
	sort.Slice(keys, func(a, b int) bool { return bytes.Compare(keys[a], keys[b]) < 0 })
	missing := IndexKey(3, 4, []byte{1}, 999)
	check := func(tx *Txn, what string) {
		t.Helper()
		all := append(slices.Clone(keys), missing)
		sort.Slice(all, func(a, b int) bool { return bytes.Compare(all[a], all[b]) < 0 })
		seen := 0
		must(t, tx.GetSortedSizes(all, func(i, size int) error {
			seen++
			if w, ok := want[string(all[i])]; !ok {
				t.Errorf("%s: size %d given for a missing key", what, size)
			} else if size != w {
				t.Errorf("%s: value of %d bytes: size %d", what, w, size)
			}
			return nil
		}))
		if seen != len(keys) {
			t.Errorf("%s: %d sizes, want %d", what, seen, len(keys))
		}
	}
	must(t, s.Update(func(tx *Txn) error {
		for _, k := range keys {
			if err := tx.Set(k, bytes.Repeat([]byte{7}, want[string(k)])); err != nil {
				return err
			}
		}
		check(tx, "pending")
		return nil
	}))
	must(t, s.View(func(tx *Txn) error { check(tx, "committed"); return nil }))
}
