package capped

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

// TestFaultInjection runs a small workload with the N-th file operation
// failing (a failing write lands half its bytes), for every N until the
// workload runs clean. Every run must end in success or an error, and a
// reopen without faults must either recover, keeping every acknowledged
// record readable with its data, or report corruption; none may panic.
//
// With grown, record 5 is a member of Limits.Grown (100 extra bytes,
// which its payload says) once appended, so the append that evicts it reads it back
// (GrownSet.Extra), and that read fails too at some N: the append must
// fail whole, with the record still live and still in the set.
func TestFaultInjection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ sync, grown bool }{{false, false}, {true, false}, {false, true}} {
		sync := tc.sync
		t.Run(fmt.Sprint("SyncEveryAppend=", sync, ",grown=", tc.grown), func(t *testing.T) {
			for n := 1; ; n++ {
				m := newMemFS()
				m.failAt = n
				want := map[uint64][]byte{}
				var acked uint64
				created := false
				g := &grownSet{extra: map[uint64]int64{}, evicted: map[uint64]int64{}}
				lim := Limits{MaxRecords: 20}
				marked := false // record 5 is in the grown set
				if tc.grown {
					lim.Grown = g
				}
				func() {
					r, err := Create("ring", MinCapacity, Options{FS: m, SyncEveryAppend: sync})
					if err != nil {
						return
					}
					created = true
					defer r.Close()
					for i := 0; i < 50; i++ {
						d := payload(uint64(i), 1+(i*37)%300)
						if tc.grown && i == 4 {
							binary.BigEndian.PutUint64(d, 100) // 149 bytes
						}
						// A failed append may still be recovered (its
						// record was written, its fsync failed): its
						// sequence is known in advance here.
						want[uint64(i+1)] = d
						seq, off, err := r.Append(d, lim, nil)
						if err != nil {
							if marked && r.FirstSeq() <= 5 && !g.Has(5) {
								t.Fatalf("fault at op %d: a failed append took record 5 out of the grown set while it is live", n)
							}
							return
						}
						if seq != uint64(i+1) {
							t.Fatalf("seq %d, want %d", seq, i+1)
						}
						acked = seq
						if tc.grown && seq == 5 {
							g.extra[5] = 100 // its payload says so
							marked = true
						}
						if tc.grown && seq > 5 && r.FirstSeq() > 5 && g.evicted[5] != 100 {
							t.Fatalf("fault at op %d: record 5 evicted without its extra (%v)", n, g.evicted)
						}
						if i == 30 {
							if err := r.Overwrite(seq, off, d); err != nil {
								return
							}
							if err := r.Sync(); err != nil {
								return
							}
						}
					}
				}()
				if !m.failed {
					if n < 20 {
						t.Fatalf("workload ran clean after only %d operations", n)
					}
					t.Logf("%d fault points", n-1)
					return
				}
				m.failAt = 0
				r, err := Open("ring", Options{FS: m})
				if err != nil {
					if errors.Is(err, ErrCorrupt) || (!created && errors.Is(err, fs.ErrNotExist)) {
						continue
					}
					t.Fatalf("fault at op %d: reopen: %v", n, err)
				}
				ctx := fmt.Sprintf("fault at op %d", n)
				seqs := verifyRecovered(t, r, want, ctx)
				if acked > 0 && (len(seqs) == 0 || seqs[len(seqs)-1] < acked) {
					t.Fatalf("%s: acknowledged %d, recovered %v", ctx, acked, seqs)
				}
				r.Close()
			}
		})
	}
}
