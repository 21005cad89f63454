package capped

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// openImage opens a file image on a fresh memFS.
func openImage(img []byte) (*Ring, error) {
	m := newMemFS()
	m.files["ring"] = &memData{b: append([]byte(nil), img...)}
	return Open("ring", Options{FS: m})
}

// verifyRecovered checks that every record r returns is one that was
// appended with that sequence and data, that sequences increase, and that
// Check passes. It returns the sequences found.
func verifyRecovered(t *testing.T, r *Ring, want map[uint64][]byte, ctx string) []uint64 {
	t.Helper()
	var seqs []uint64
	it := r.Scan(0, false)
	for it.Next() {
		rec := it.Record()
		w, ok := want[rec.Seq]
		if !ok || !bytes.Equal(w, rec.Data) {
			t.Fatalf("%s: recovered record %d with wrong data (known %v)", ctx, rec.Seq, ok)
		}
		if n := len(seqs); n > 0 && rec.Seq <= seqs[n-1] {
			t.Fatalf("%s: sequence %d after %d", ctx, rec.Seq, seqs[n-1])
		}
		seqs = append(seqs, rec.Seq)
	}
	if it.Err() != nil {
		t.Fatalf("%s: scan: %v", ctx, it.Err())
	}
	if int64(len(seqs)) != r.Count() {
		t.Fatalf("%s: scan found %d records, Count %d", ctx, len(seqs), r.Count())
	}
	if err := r.Check(); err != nil {
		t.Fatalf("%s: Check: %v", ctx, err)
	}
	return seqs
}

// workload fills a ring on m, wrapping several times, and returns the
// data of every appended sequence.
func workload(t *testing.T, m *memFS, rng *rand.Rand, sizes func() int, n int, r *Ring, want map[uint64][]byte) {
	t.Helper()
	for i := 0; i < n; i++ {
		d := payload(uint64(len(want))+1000, sizes())
		seq, _, err := r.Append(d, Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want[seq] = d
	}
}

// TestCrashAtEveryWriteByte builds the file as a crash would leave it
// after every prefix of every write of the last appends (a torn record
// at every byte offset, a torn header slot, a record whose wrap marker
// was written but not the record) and checks recovery: it must succeed
// (all these writes are past the synced point), return only records that
// were appended with their data, and keep every record acknowledged
// before the crash.
func TestCrashAtEveryWriteByte(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	for _, tc := range []struct {
		name  string
		sizes func(*rand.Rand) int
	}{
		{"equal sizes (stale records line up)", func(*rand.Rand) int { return 88 }},
		{"varied sizes", func(r *rand.Rand) int { return 1 + r.IntN(300) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 1))
			sizes := func() int { return tc.sizes(rng) }
			m := newMemFS()
			r, err := Create("ring", MinCapacity, Options{FS: m})
			if err != nil {
				t.Fatal(err)
			}
			want := map[uint64][]byte{}
			workload(t, m, rng, sizes, 60, r, want)
			if err := r.Sync(); err != nil {
				t.Fatal(err)
			}
			workload(t, m, rng, sizes, 5, r, want)
			base := m.image("ring")
			m.startLog()
			var acked []int // writes done when each append returned
			var ackSeq []uint64
			for i := 0; i < 12; i++ {
				d := payload(uint64(len(want))+1000, sizes())
				seq, _, err := r.Append(d, Limits{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				want[seq] = d
				acked = append(acked, len(m.writes()))
				ackSeq = append(ackSeq, seq)
			}
			writes := m.writes()
			img := append([]byte(nil), base...)
			lastAcked := r.LastSeq() - 12 // acknowledged before the logged appends
			for k, w := range writes {
				for b := 0; b <= len(w.data); b++ {
					torn := append([]byte(nil), img...)
					copy(torn[w.off:], w.data[:b])
					ctx := fmt.Sprintf("write %d (off %d, %d bytes) torn at %d", k, w.off, len(w.data), b)
					r2, err := openImage(torn)
					if err != nil {
						t.Fatalf("%s: %v", ctx, err)
					}
					seqs := verifyRecovered(t, r2, want, ctx)
					if len(seqs) == 0 || seqs[len(seqs)-1] < lastAcked {
						t.Fatalf("%s: recovered up to %v, acknowledged %d", ctx, seqs, lastAcked)
					}
					r2.Close()
				}
				copy(img[w.off:], w.data)
				for i, a := range acked {
					if a == k+1 {
						lastAcked = ackSeq[i]
					}
				}
			}
		})
	}
}

// damageCase applies one kind of damage to a cleanly closed file.
type damageCase struct {
	name string
	n    func(img []byte) int                // how many variants
	do   func(img []byte, i int) (off int64) // damage variant i in place
}

// TestDamage flips bits and zeroes sectors all over a cleanly closed
// ring (header slots included) and checks that Open either reports a
// *CorruptionError or recovers, and never returns wrong data or panics.
func TestDamage(t *testing.T) {
	t.Parallel()
	m := newMemFS()
	r, err := Create("ring", MinCapacity, Options{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	want := map[uint64][]byte{}
	workload(t, m, rng, func() int { return 1 + rng.IntN(200) }, 80, r, want)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	clean := m.image("ring")
	cases := []damageCase{
		{"bit flip", func(img []byte) int { return len(img) }, func(img []byte, i int) int64 {
			img[i] ^= 1 << (i % 8)
			return int64(i)
		}},
		{"zeroed sector", func(img []byte) int { return len(img) / 512 }, func(img []byte, i int) int64 {
			clear(img[i*512 : (i+1)*512])
			return int64(i * 512)
		}},
	}
	for _, dc := range cases {
		t.Run(dc.name, func(t *testing.T) {
			var recovered, corrupt int
			for i := 0; i < dc.n(clean); i++ {
				img := append([]byte(nil), clean...)
				off := dc.do(img, i)
				ctx := fmt.Sprintf("%s at %d", dc.name, off)
				r2, err := openImage(img)
				if err != nil {
					var ce *CorruptionError
					if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) || ce.Path != "ring" {
						t.Fatalf("%s: %v, want a *CorruptionError", ctx, err)
					}
					corrupt++
					continue
				}
				recovered++
				verifyRecovered(t, r2, want, ctx)
				r2.Close()
			}
			t.Logf("%s: %d recovered, %d reported corrupt", dc.name, recovered, corrupt)
			if corrupt == 0 {
				t.Fatalf("no damage was reported as corruption")
			}
		})
	}
}

// TestHeaderSlots checks that damage to either header slot alone of a
// cleanly closed ring recovers fully from the other one or reports
// corruption, and damage to both is corruption at offset 0.
func TestHeaderSlots(t *testing.T) {
	t.Parallel()
	m := newMemFS()
	r, _ := Create("ring", MinCapacity, Options{FS: m})
	want := map[uint64][]byte{}
	for i := 0; i < 10; i++ {
		d := payload(uint64(i), 50)
		seq, _, _ := r.Append(d, Limits{}, nil)
		want[seq] = d
	}
	r.Close()
	clean := m.image("ring")
	for slot := 0; slot < 2; slot++ {
		img := append([]byte(nil), clean...)
		img[slot*headerSlotSize+20] ^= 0x40
		r2, err := openImage(img)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("slot %d: %v", slot, err)
			}
			continue
		}
		if seqs := verifyRecovered(t, r2, want, fmt.Sprint("slot ", slot)); len(seqs) != 10 {
			t.Fatalf("slot %d damaged: recovered %d records, want 10", slot, len(seqs))
		}
		r2.Close()
	}
	img := append([]byte(nil), clean...)
	img[20] ^= 1
	img[headerSlotSize+20] ^= 1
	_, err := openImage(img)
	var ce *CorruptionError
	if !errors.As(err, &ce) || ce.Offset != 0 {
		t.Fatalf("both slots damaged: %v", err)
	}
}

// TestDamageBeforeSyncedPoint: a damaged record that was synced is
// corruption, reported with its offset; the same damage in a record
// appended after the last sync is a torn tail and is cut off.
func TestDamageBeforeSyncedPoint(t *testing.T) {
	t.Parallel()
	for _, synced := range []bool{true, false} {
		m := newMemFS()
		r, _ := Create("ring", 64<<10, Options{FS: m})
		var offs []int64
		for i := 0; i < 10; i++ {
			if i == 5 && !synced {
				r.Sync()
			}
			_, off, _ := r.Append(payload(uint64(i), 100), Limits{}, nil)
			offs = append(offs, off)
		}
		if synced {
			r.Sync()
		}
		img := m.image("ring")
		img[offs[7]+RecordOverhead+3] ^= 0xff // damage record 8's payload
		r2, err := openImage(img)
		if synced {
			var ce *CorruptionError
			if !errors.As(err, &ce) || ce.Offset != offs[7] {
				t.Fatalf("synced damage: %v, want corruption at %d", err, offs[7])
			}
			continue
		}
		if err != nil {
			t.Fatalf("unsynced damage: %v", err)
		}
		if r2.LastSeq() != 7 || r2.Count() != 7 || r2.Recovery().StopOffset != offs[7] {
			t.Fatalf("torn tail: LastSeq %d Count %d info %+v", r2.LastSeq(), r2.Count(), r2.Recovery())
		}
		// Sequences are not reused: 8..10 may be indexed by someone.
		seq, _, err := r2.Append([]byte("new"), Limits{}, nil)
		if err != nil || seq <= 10 {
			t.Fatalf("append after torn tail: seq %d err %v, want > 10", seq, err)
		}
		r2.Close()
	}
}

// TestStaleLapRecord: records of equal size line up lap after lap, so
// the slot after the newest record holds a valid record from the
// previous lap; recovery must stop there, not resurrect it.
func TestStaleLapRecord(t *testing.T) {
	t.Parallel()
	m := newMemFS()
	r, _ := Create("ring", MinCapacity, Options{FS: m})
	want := map[uint64][]byte{}
	for i := 0; i < 100; i++ {
		d := payload(uint64(i), 88)
		seq, _, _ := r.Append(d, Limits{}, nil)
		want[seq] = d
	}
	last, count := r.LastSeq(), r.Count()
	r.Close()
	r2, err := openImage(m.image("ring"))
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if r2.LastSeq() != last || r2.Count() != count {
		t.Fatalf("LastSeq %d Count %d, want %d %d", r2.LastSeq(), r2.Count(), last, count)
	}
	verifyRecovered(t, r2, want, "stale")
	if reason := r2.Recovery().StopReason; !bytes.Contains([]byte(reason), []byte("stale")) {
		t.Fatalf("stop reason %q, want a stale record", reason)
	}
}
