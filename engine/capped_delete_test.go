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
