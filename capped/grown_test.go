package capped

import (
	"encoding/binary"
	"testing"
)

// grownSet is a GrownSet whose members' payloads start with their extra
// byte count (8 bytes, big endian), as the engine's pointer frames carry
// the size of the document they point at.
type grownSet struct {
	extra   map[uint64]int64
	evicted map[uint64]int64 // members Evict removed, with the extra it was given
}

func (g *grownSet) Live() (n, x int64) {
	for _, e := range g.extra {
		x += e
	}
	return int64(len(g.extra)), x
}

func (g *grownSet) Has(seq uint64) bool { _, ok := g.extra[seq]; return ok }

func (g *grownSet) Extra(seq uint64, p []byte) int64 { return int64(binary.BigEndian.Uint64(p)) }

func (g *grownSet) Evict(seq uint64, x int64) {
	g.evicted[seq] = x
	delete(g.extra, seq)
}

// Records in Limits.Grown count their extra bytes toward MaxDataBytes:
// the next append evicts the oldest records until the total, extra
// included, is under the limit, and the ring reads each grown record it
// evicts to learn its extra.
func TestLimitsGrown(t *testing.T) {
	t.Parallel()
	r, _ := createRing(t, 64<<10, Options{})
	g := &grownSet{extra: map[uint64]int64{}, evicted: map[uint64]int64{}}
	lim := Limits{MaxDataBytes: 100, Grown: g}
	rec := make([]byte, 10)
	appendN := func(n int) {
		t.Helper()
		for range n {
			if _, _, err := r.Append(rec, lim, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendN(10) // 1..10, 100 bytes
	if r.FirstSeq() != 1 || r.Count() != 10 {
		t.Fatalf("full: first %d count %d", r.FirstSeq(), r.Count())
	}
	// Record 2 now counts 35 bytes more (its payload says so): 135
	// bytes. The next append (10 more) must bring the total to at most
	// 100: evict 1 (10), 2 (45), and nothing more: 135-55+10 = 90.
	p := make([]byte, 10)
	binary.BigEndian.PutUint64(p, 35)
	it := r.Scan(2, false)
	if !it.Next() {
		t.Fatal(it.Err())
	}
	if err := r.Overwrite(2, it.Record().Off, p); err != nil {
		t.Fatal(err)
	}
	g.extra[2] = 35
	appendN(1)
	if r.FirstSeq() != 3 || r.Count() != 9 {
		t.Fatalf("after an append over a grown record: first %d count %d, want 3 and 9", r.FirstSeq(), r.Count())
	}
	if len(g.extra) != 0 || g.evicted[2] != 35 || len(g.evicted) != 1 {
		t.Fatalf("grown set %v, evicted %v: want record 2 evicted with 35 extra bytes", g.extra, g.evicted)
	}
	// A grown record that is not the oldest: its extra evicts older
	// ones until the total is under the limit, and it stays.
	binary.BigEndian.PutUint64(p, 25)
	it = r.Scan(8, false)
	if !it.Next() {
		t.Fatal(it.Err())
	}
	if err := r.Overwrite(8, it.Record().Off, p); err != nil {
		t.Fatal(err)
	}
	g.extra[8] = 25 // 90 + 25 = 115 bytes
	appendN(1)      // 125: evict 3, 4, 5 (95)
	if r.FirstSeq() != 6 || r.Count() != 7 || !g.Has(8) || len(g.evicted) != 1 {
		t.Fatalf("after an append with a newer grown record: first %d count %d (grown %v)", r.FirstSeq(), r.Count(), g.extra)
	}
	if got := r.DataBytes(); got != 70 {
		t.Fatalf("DataBytes %d, want 70 (payloads only; the set's extra is the caller's)", got)
	}
	// An append that counts more than MaxDataBytes on its own (its
	// document kept outside): every older record goes, it stays.
	binary.BigEndian.PutUint64(p, 500)
	lim.AppendExtra = 500
	seq, _, err := r.Append(p, lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.FirstSeq() != seq || r.Count() != 1 || len(g.extra) != 0 || g.evicted[8] != 25 {
		t.Fatalf("after an append larger than the limit: first %d (seq %d) count %d, grown %v evicted %v", r.FirstSeq(), seq, r.Count(), g.extra, g.evicted)
	}
	g.extra[seq] = 500
	lim.AppendExtra = 0
	appendN(1) // 510 + 10 > 100: the big one goes
	if r.FirstSeq() != seq+1 || r.Count() != 1 || g.evicted[seq] != 500 {
		t.Fatalf("after the next append: first %d count %d, evicted %v", r.FirstSeq(), r.Count(), g.evicted)
	}
}
