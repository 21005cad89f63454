package capped

import (
	"math/rand/v2"
	"testing"
)

// TestDequeModel drives the block deque with random pushes (runs of
// equal and varying lengths, gaps in sequence and offset, lap changes)
// and pops, and checks every accessor against a plain slice.
func TestDequeModel(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, seed))
		var d deque
		var model []entry
		seq, off, lap := uint64(1), int64(DataStart), uint32(1)
		for step := 0; step < 3000; step++ {
			if len(model) > 0 && rng.IntN(3) == 0 {
				for k := rng.IntN(min(len(model), 40)) + 1; k > 0; k-- {
					got, want := d.popFront(), model[0]
					model = model[1:]
					if got != want {
						t.Fatalf("seed %d: popFront %+v, want %+v", seed, got, want)
					}
				}
			} else {
				switch rng.IntN(20) {
				case 0:
					seq += uint64(rng.IntN(5)) // a gap (recovery skips sequences)
				case 1:
					off, lap = DataStart, lap+1 // a wrap
				case 2:
					off += 8
				}
				n := uint32(200)
				if rng.IntN(4) == 0 {
					n = uint32(rng.IntN(100000) + 1)
				}
				e := entry{seq: seq, off: off, n: n, lap: lap}
				d.push(e)
				model = append(model, e)
				seq++
				off += recordSize(int(n))
			}
			if d.len() != len(model) {
				t.Fatalf("seed %d: len %d, want %d", seed, d.len(), len(model))
			}
			if len(model) == 0 {
				continue
			}
			i := rng.IntN(len(model))
			if got := d.at(i); got != model[i] {
				t.Fatalf("seed %d: at(%d) %+v, want %+v", seed, i, got, model[i])
			}
			s := model[i].seq - uint64(rng.IntN(2))
			want := 0
			for want < len(model) && model[want].seq < s {
				want++
			}
			if got := d.search(s); got != want {
				t.Fatalf("seed %d: search(%d) %d, want %d", seed, s, got, want)
			}
			if got := d.search(model[len(model)-1].seq + 1); got != len(model) {
				t.Fatalf("seed %d: search past the end %d, want %d", seed, got, len(model))
			}
			k := i
			for c := d.cursorAt(i); c.ok; c.next() {
				if c.e != model[k] {
					t.Fatalf("seed %d: cursor from %d at %d: %+v, want %+v", seed, i, k, c.e, model[k])
				}
				k++
			}
			if k != len(model) {
				t.Fatalf("seed %d: cursor from %d ended at %d, want %d", seed, i, k, len(model))
			}
		}
	}
}

// TestDequeMemory checks the deque's own accounting: records of equal
// length cost under a byte each, records of varying length a few.
func TestDequeMemory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		vary bool
		max  float64 // bytes per record
	}{{"equal", false, 1}, {"varying", true, 4}} {
		var d deque
		off := int64(DataStart)
		const n = 100000
		for i := 0; i < n; i++ {
			l := uint32(200)
			if tc.vary {
				l = uint32(150 + i%100)
			}
			d.push(entry{seq: uint64(i + 1), off: off, n: l, lap: 1})
			off += recordSize(int(l))
		}
		if per := float64(d.memBytes()) / n; per > tc.max {
			t.Errorf("%s lengths: %.2f bytes a record, want at most %.1f", tc.name, per, tc.max)
		} else {
			t.Logf("%s lengths: %.2f bytes a record", tc.name, per)
		}
	}
}
