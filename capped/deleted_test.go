package capped

import (
	"bytes"
	"testing"
)

// deletedSet is a DeletedSet of record sequences, each payload n bytes.
type deletedSet struct {
	seqs    map[uint64]bool
	n       int64
	evicted []uint64 // members Evict removed, in call order
	badLen  bool     // Evict named a member with another length
}

func (d *deletedSet) Live() (n, b int64) {
	n = int64(len(d.seqs))
	return n, n * d.n
}

func (d *deletedSet) Has(seq uint64) bool { return d.seqs[seq] }

func (d *deletedSet) Evict(seq uint64, n int64) {
	if !d.seqs[seq] {
		return
	}
	if n != d.n {
		d.badLen = true
	}
	d.evicted = append(d.evicted, seq)
	delete(d.seqs, seq)
}

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
	if len(del.seqs) != 0 || len(del.evicted) != 1 || del.evicted[0] != 2 || del.badLen {
		t.Fatalf("the ring evicted the deleted record 2: set %v, Evict calls %v (wrong length %v)", del.seqs, del.evicted, del.badLen)
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
