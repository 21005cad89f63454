package engine

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/ttlkv/ttlkv/lsm"
)

// cappedIDIndex against a model: the Badger keys it stands for, sorted.
// Random adds (some reusing an _id whose record was evicted), prunes,
// lookups and bounded scans in both directions, with bounds that are
// full keys, keystring prefixes, or outside the index prefix. The seed is
// printed so a failure replays.
func TestCappedIDIndexModel(t *testing.T) {
	t.Parallel()
	seeds := []uint64{1, 2, 3, 4, 5}
	if raceOn {
		seeds = seeds[:2] // the model is single-goroutine: -race adds time, not coverage
	}
	for _, seed := range seeds {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { cappedIDIndexModel(t, seed, false) })
		t.Run("increasing/"+strconv.FormatUint(seed, 10), func(t *testing.T) { cappedIDIndexModel(t, seed, true) })
	}
}

// modelIDs is an idSource over a slice of every record ever added,
// records older than first being evicted.
type modelIDs struct {
	recs  []modelRec // by sequence - 1
	first uint64
}

type modelRec struct {
	ks  []byte
	seq uint64
	off int64
}

func (m *modelIDs) firstSeq() uint64 { return m.first }

func (m *modelIDs) idsFrom(from, to uint64, fn func(seq uint64, off int64, ks []byte) bool) error {
	for s := max(from, m.first, 1); s <= to && s <= uint64(len(m.recs)); s++ {
		r := m.recs[s-1]
		if !fn(r.seq, r.off, r.ks) {
			return nil
		}
	}
	return nil
}

// cappedIDIndexModel runs the model with random keys, or (increasing)
// with keys that mostly grow, as ObjectIds do, and some out of order.
func cappedIDIndexModel(t *testing.T, seed uint64, increasing bool) {
	rng := rand.New(rand.NewPCG(seed, 7))
	pre := lsm.IndexPrefix(42, idIndexID)
	ctr := 1000
	keyOf := func(i int) []byte {
		if increasing && rng.IntN(10) != 0 {
			ctr += 1 + rng.IntN(2)
			return lsm.AppendKey(nil, int64(ctr-rng.IntN(40)), false)
		}
		if i%3 == 0 {
			return lsm.AppendKey(nil, "s"+strconv.Itoa(i), false)
		}
		return lsm.AppendKey(nil, int64(i), false)
	}
	type rec = modelRec
	var live []rec // the model: live records, oldest first
	src := &modelIDs{first: 1}
	x := newCappedIDIndex(src)
	seq := uint64(0)
	maxPages, maxRun := 0, 0
	pending := uint64(0) // the model evicted records before this; the index not yet
	// The live records by key (a key is live at most once) and the sum
	// of their keys' lengths, kept with live so that the model costs
	// less than the index it checks.
	liveByKey := map[string]rec{}
	var ksLen int64
	liveKey := func(ks []byte) (rec, bool) {
		r, ok := liveByKey[string(ks)]
		return r, ok
	}
	fullKeys := func() [][]byte { // model entries as Badger keys, sorted
		var ks [][]byte
		for _, r := range live {
			ks = append(ks, lsm.IndexKey(42, idIndexID, r.ks, r.seq))
		}
		slices.SortFunc(ks, bytes.Compare)
		return ks
	}
	bound := func() []byte {
		switch rng.IntN(6) {
		case 0:
			return nil
		case 1: // a keystring prefix
			k := append(append([]byte(nil), pre...), keyOf(rng.IntN(600))...)
			return k[:len(pre)+rng.IntN(len(k)-len(pre)+1)]
		case 2: // a full key, maybe of a live record
			if len(live) > 0 && rng.IntN(2) == 0 {
				r := live[rng.IntN(len(live))]
				return lsm.IndexKey(42, idIndexID, r.ks, r.seq)
			}
			return lsm.IndexKey(42, idIndexID, keyOf(rng.IntN(600)), rng.Uint64N(seq+2))
		case 3: // a resume key of a forward scan
			return append(lsm.IndexKey(42, idIndexID, keyOf(rng.IntN(600)), rng.Uint64N(seq+2)), 0)
		case 4: // below the prefix
			return lsm.IndexPrefix(42, 0)
		default: // above the prefix
			return lsm.PrefixEnd(pre)
		}
	}
	for step := 0; step < 3000; step++ {
		switch op := rng.IntN(10); {
		case op < 4: // add a chunk
			var adds []idAdd
			for n := rng.IntN(20); n > 0; n-- {
				ks := keyOf(rng.IntN(600))
				if _, ok := liveKey(ks); ok {
					continue
				}
				dup := false
				for _, a := range adds {
					dup = dup || bytes.Equal(a.ks, ks)
				}
				if dup {
					continue
				}
				seq++
				adds = append(adds, idAdd{ks: ks, seq: seq, off: int64(seq * 8)})
				live = append(live, rec{ks, seq, int64(seq * 8)})
				liveByKey[string(ks)] = live[len(live)-1]
				ksLen += int64(len(ks))
				src.recs = append(src.recs, rec{ks, seq, int64(seq * 8)})
			}
			// As the writer's flush: add the chunk, then drop what it
			// evicted (an evicted _id may have come back with it).
			x.add(adds)
			if pending != 0 {
				x.prune(pending)
				pending = 0
			}
		case op < 6: // evict the oldest
			n := min(len(live), rng.IntN(20))
			if rng.IntN(100) == 0 {
				n = len(live) // everything
			}
			for _, r := range live[:n] {
				delete(liveByKey, string(r.ks))
				ksLen -= int64(len(r.ks))
			}
			live = live[n:]
			first := seq + 1
			if len(live) > 0 {
				first = live[0].seq
			}
			pending = first
			src.first = first
		case op < 8: // lookups
			if pending != 0 {
				x.prune(pending)
				pending = 0
			}
			for i := 0; i < 10; i++ {
				ks := keyOf(rng.IntN(600))
				s, off, ok, err := x.get(ks)
				if err != nil {
					t.Fatal(err)
				}
				r, want := liveKey(ks)
				if ok != want || (ok && (s != r.seq || off != r.off)) {
					t.Fatalf("seed %d step %d: get(%x) = %d %d %v, model %v %v", seed, step, ks, s, off, ok, r, want)
				}
			}
		default: // a scan
			if pending != 0 {
				x.prune(pending)
				pending = 0
			}
			lo, hi := bound(), bound()
			if rng.IntN(4) == 0 { // a find by _id: one whole keystring
				ks := keyOf(rng.IntN(600))
				if len(live) > 0 && rng.IntN(2) == 0 {
					ks = live[rng.IntN(len(live))].ks
				}
				lo = append(append([]byte(nil), pre...), ks...)
				hi = lsm.PrefixEnd(lo)
			}
			reverse := rng.IntN(2) == 0
			limit := 1 + rng.IntN(50)
			var want [][]byte
			for _, k := range fullKeys() {
				if (lo == nil || bytes.Compare(k, lo) >= 0) && (hi == nil || bytes.Compare(k, hi) < 0) {
					want = append(want, k)
				}
			}
			if reverse {
				slices.Reverse(want)
			}
			want = want[:min(len(want), limit)]
			var got [][]byte
			err := x.scan(pre, lo, hi, reverse, func(ks string, s uint64, off int64) bool {
				if off != int64(s*8) {
					t.Fatalf("seed %d step %d: entry %d names offset %d", seed, step, s, off)
				}
				got = append(got, lsm.IndexKey(42, idIndexID, []byte(ks), s))
				return len(got) < limit
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("seed %d step %d: scan [%x, %x) reverse %v limit %d:\ngot  %x\nwant %x", seed, step, lo, hi, reverse, limit, got, want)
			}
		}
		if pending != 0 {
			continue
		}
		if x.len() != len(live) {
			t.Fatalf("seed %d step %d: %d entries, model %d", seed, step, x.len(), len(live))
		}
		if len(liveByKey) != len(live) {
			t.Fatalf("seed %d step %d: the model's map holds %d keys, its list %d", seed, step, len(liveByKey), len(live))
		}
		if got := x.keyBytes(); got != int64(len(live))*cappedKeyExtra+ksLen {
			t.Fatalf("seed %d step %d: keyBytes %d, model %d", seed, step, got, int64(len(live))*cappedKeyExtra+ksLen)
		}
		maxPages = max(maxPages, len(x.side.pages))
		maxRun = max(maxRun, len(x.run.s))
		for _, p := range x.side.pages {
			if len(p.e) == 0 || len(p.e) > idPageMax {
				t.Fatalf("seed %d step %d: a page of %d entries", seed, step, len(p.e))
			}
		}
	}
	if increasing && maxRun < 3 {
		t.Fatalf("seed %d: at most %d run blocks: the test did not sample the run", seed, maxRun)
	}
	if !increasing && maxPages < 3 {
		t.Fatalf("seed %d: at most %d pages: the test did not split pages", seed, maxPages)
	}
}
