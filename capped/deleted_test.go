package capped

import (
	"bytes"
	"testing"
)

// deletedSet is a DeletedSet of record sequences, each payload n bytes.
type deletedSet struct {
	seqs map[uint64]bool
	n    int64
}

func (d *deletedSet) Live(first uint64) (n, b int64) {
	for s := range d.seqs {
		if s >= first {
			n++
			b += d.n
		}
	}
	return n, b
}

func (d *deletedSet) Has(seq uint64) bool { return d.seqs[seq] }

// Records in Limits.Deleted count toward neither MaxRecords nor
// MaxDataBytes: they leave when the oldest are evicted, as any record.
func TestLimitsDeleted(t *testing.T) {
	t.Parallel()
	r, _ := createRing(t, 64<<10, Options{})
	del := &deletedSet{seqs: map[uint64]bool{}, n: 10}
	lim := Limits{MaxRecords: 3, Deleted: del}
	rec := bytes.Repeat([]byte{1}, 10)
	appendN := func(n int) {
		t.Helper()
		for range n {
			if _, _, err := r.Append(rec, lim, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendN(3)         // 1 2 3
	del.seqs[2] = true // 1 (2) 3: two count
	appendN(1)         // 1 (2) 3 4: three count, nothing evicted
	if r.FirstSeq() != 1 || r.Count() != 4 {
		t.Fatalf("after a deleted record and an append: first %d count %d", r.FirstSeq(), r.Count())
	}
	appendN(1) // evicts 1 only: (2) 3 4 5
	if r.FirstSeq() != 2 || r.Count() != 4 {
		t.Fatalf("next append: first %d count %d", r.FirstSeq(), r.Count())
	}
	appendN(1) // evicts (2), which frees no place, and 3: 4 5 6
	if r.FirstSeq() != 4 || r.Count() != 3 {
		t.Fatalf("then: first %d count %d", r.FirstSeq(), r.Count())
	}
	// The byte limit likewise: 30 bytes hold three records besides a
	// deleted one.
	del.seqs[5] = true
	lim = Limits{MaxDataBytes: 30, Deleted: del}
	appendN(1)
	if r.FirstSeq() != 4 || r.Count() != 4 {
		t.Fatalf("byte limit with a deleted record: first %d count %d", r.FirstSeq(), r.Count())
	}
}
