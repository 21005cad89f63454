package lsm

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// ScanPrefixes finds exactly the live keys under each prefix, skipping
// deleted ones, with one iterator.
func TestScanPrefixes(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	key := func(p string, n int) []byte { return []byte(fmt.Sprintf("%s/%03d", p, n)) }
	must(t, s.Update(func(tx *Txn) error {
		for _, p := range []string{"a", "b", "c", "d"} {
			for n := range 5 {
				if err := tx.Set(key(p, n), []byte("v")); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	must(t, s.Update(func(tx *Txn) error { return tx.Delete(key("b", 2)) }))
	prefixes := [][]byte{[]byte("a/001"), []byte("b/"), []byte("c/9"), []byte("d/004")}
	var got []string
	must(t, s.View(func(tx *Txn) error {
		return tx.ScanPrefixes(prefixes, func(i int, k []byte) error {
			if !bytes.HasPrefix(k, prefixes[i]) {
				t.Errorf("key %q reported for prefix %q", k, prefixes[i])
			}
			got = append(got, fmt.Sprintf("%d:%s", i, k))
			return nil
		})
	}))
	want := "[0:a/001 1:b/000 1:b/001 1:b/003 1:b/004 3:d/004]"
	if fmt.Sprint(got) != want {
		t.Fatalf("ScanPrefixes = %v, want %s", got, want)
	}
	err := s.View(func(tx *Txn) error {
		return tx.ScanPrefixes([][]byte{[]byte("b"), []byte("a")}, func(int, []byte) error { return nil })
	})
	if err == nil {
		t.Fatal("unsorted prefixes: no error")
	}
}

// ScanPrefixes agrees with one prefix scan per prefix on random keys
// and prefixes, including prefixes past the last key.
func TestScanPrefixesModel(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	s := openTest(t, Options{InMemory: true})
	key := func(a, b int) []byte { return []byte(fmt.Sprintf("k%03d/%02d", a, b)) }
	must(t, s.Update(func(tx *Txn) error {
		for a := range 300 {
			if rng.IntN(3) == 0 {
				continue
			}
			for b := range rng.IntN(4) {
				if err := tx.Set(key(a, b), []byte("v")); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	for round := range 20 {
		var prefixes [][]byte
		for a := rng.IntN(40); a < 360; a += 1 + rng.IntN(30) {
			prefixes = append(prefixes, []byte(fmt.Sprintf("k%03d/", a)))
		}
		var got, want []string
		must(t, s.View(func(tx *Txn) error {
			if err := tx.ScanPrefixes(prefixes, func(i int, k []byte) error {
				got = append(got, fmt.Sprintf("%d:%s", i, k))
				return nil
			}); err != nil {
				return err
			}
			for i, p := range prefixes {
				it := tx.NewIter(IterOptions{Prefix: p, KeysOnly: true})
				for it.Next() {
					want = append(want, fmt.Sprintf("%d:%s", i, it.Key()))
				}
				it.Close()
			}
			return nil
		}))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d: ScanPrefixes %v\nper-prefix scans %v", round, got, want)
		}
	}
}
