package engine

import "testing"

// cappedTombs: out-of-order adds, pruning of evicted tombstones by the
// ring's first sequence, and the running byte total, over many rounds
// (the front is resliced and copied now and then).
func TestCappedTombs(t *testing.T) {
	t.Parallel()
	var tb cappedTombs
	model := map[uint64]int64{}
	first := uint64(1)
	for round := uint64(0); round < 50; round++ {
		for j := uint64(0); j < 40; j++ {
			seq := first + (j*7919+round)%200 // out of order, repeats ignored
			if _, ok := model[seq]; !ok {
				model[seq] = int64(seq%13 + 1)
			}
			tb.add(seq, int(seq%13+1))
		}
		first += 37
		for s := range model {
			if s < first {
				delete(model, s)
			}
		}
		var wantN, wantB int64
		for _, b := range model {
			wantN++
			wantB += b
		}
		if n, b := tb.live(first); n != wantN || b != wantB {
			t.Fatalf("round %d: live %d tombstones of %d bytes, want %d of %d", round, n, b, wantN, wantB)
		}
		for s := first - 37; s < first+200; s++ {
			if _, ok := model[s]; tb.Has(s) != ok {
				t.Fatalf("round %d: Has(%d) = %v", round, s, !ok)
			}
		}
	}
}

// A ring used as a stack deletes from its newest end: tombstones come
// newest first. The set keeps each add, look-up and eviction
// logarithmic, so 200,000 of them backwards are as cheap as forwards
// (a sorted slice shifted its whole tail at each add).
func TestCappedTombsBackwards(t *testing.T) {
	t.Parallel()
	const n = 200_000
	var tb cappedTombs
	for seq := uint64(n); seq >= 1; seq-- {
		tb.add(seq, 10)
	}
	if c, b := tb.live(1); c != n || b != 10*n {
		t.Fatalf("live %d of %d bytes, want %d of %d", c, b, n, 10*n)
	}
	if !tb.Has(1) || !tb.Has(n) || tb.Has(n+1) {
		t.Fatal("Has at the ends")
	}
	if c, b := tb.live(n/2 + 1); c != n/2 || b != 10*n/2 {
		t.Fatalf("after evicting the older half: %d of %d bytes", c, b)
	}
	if tb.Has(n / 2) {
		t.Fatal("an evicted tombstone is still there")
	}
	if c, b := tb.live(n + 1); c != 0 || b != 0 || tb.lens != nil {
		t.Fatalf("after evicting all: %d of %d bytes, map %v", c, b, tb.lens != nil)
	}
}
