package capped

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestAppendEvicting drives two rings with the same appends, one through
// Append and one through AppendEvicting, over many wraps with varied
// sizes and both limits, and checks that AppendEvicting names exactly the
// records Append evicts (sequence, offset and length) and leaves the same
// content.
func TestAppendEvicting(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	for _, lim := range []Limits{{}, {MaxRecords: 7}, {MaxDataBytes: 1500}, {MaxRecords: 30, MaxDataBytes: 2500}} {
		rng := rand.New(rand.NewPCG(seed, 1))
		a, _ := createRing(t, 8192, Options{})
		b, _ := createRing(t, 8192, Options{})
		var ma, mb model
		for i := 0; i < 600; i++ {
			n := 1 + rng.IntN(300)
			var gotA []Record
			seqA, offA, err := a.Append(payload(uint64(i), n), lim, func(recs []Record) error {
				gotA = append(gotA, recs...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var gotB []Evicted
			seqB, offB, err := b.AppendEvicting(payload(uint64(i), n), lim, func(ev []Evicted) error {
				for _, e := range ev {
					// The records are still live and readable in the callback.
					if _, err := b.Read(e.Seq, e.Off); err != nil {
						t.Errorf("Read of evicted-to-be record %d in the callback: %v", e.Seq, err)
					}
				}
				gotB = append(gotB, ev...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if seqA != seqB || offA != offB {
				t.Fatalf("append %d: Append gave (%d, %d), AppendEvicting (%d, %d)", i, seqA, offA, seqB, offB)
			}
			if len(gotA) != len(gotB) {
				t.Fatalf("append %d, limits %+v: Append evicted %d, AppendEvicting %d", i, lim, len(gotA), len(gotB))
			}
			for j := range gotA {
				if gotA[j].Seq != gotB[j].Seq || gotA[j].Off != gotB[j].Off || len(gotA[j].Data) != gotB[j].Len {
					t.Fatalf("append %d eviction %d: Append %d@%d len %d, AppendEvicting %+v", i, j, gotA[j].Seq, gotA[j].Off, len(gotA[j].Data), gotB[j])
				}
			}
			ma.evict(t, gotA)
			mb.evict(t, gotA)
			ma.recs = append(ma.recs, Record{Seq: seqA, Off: offA, Data: payload(uint64(i), n)})
			mb.recs = append(mb.recs, Record{Seq: seqB, Off: offB, Data: payload(uint64(i), n)})
		}
		ma.verify(t, a)
		mb.verify(t, b)
	}
}

// TestAppendEvictingError checks that an evict error writes and evicts
// nothing, as for Append.
func TestAppendEvictingError(t *testing.T) {
	t.Parallel()
	r, _ := createRing(t, MinCapacity, Options{})
	var m model
	for i := 0; ; i++ {
		boom := errors.New("boom")
		called := false
		seq, off, err := r.AppendEvicting(payload(uint64(i), 100), Limits{}, func([]Evicted) error { called = true; return boom })
		if called {
			if !errors.Is(err, boom) {
				t.Fatalf("AppendEvicting returned %v, want the callback's error", err)
			}
			m.verify(t, r)
			if r.LastSeq() != m.recs[len(m.recs)-1].Seq {
				t.Fatalf("LastSeq %d after a refused append", r.LastSeq())
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		m.recs = append(m.recs, Record{Seq: seq, Off: off, Data: payload(uint64(i), 100)})
	}
}

// TestReadRun checks ReadRun against Scan after wraps: every start
// (older than the oldest, each live sequence, past the newest), early
// stop, records larger than one read, and a closed ring.
func TestReadRun(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	r, _ := createRing(t, 1<<20, Options{})
	var m model
	for i := 0; i < 3000; i++ {
		n := 1 + rng.IntN(2000)
		if i%97 == 0 {
			n = runReadBytes + rng.IntN(5000) // larger than one read
		}
		var ev []Record
		seq, off, err := r.Append(payload(uint64(i), n), Limits{}, func(recs []Record) error { ev = recs; return nil })
		if err != nil {
			t.Fatal(err)
		}
		m.evict(t, ev)
		m.recs = append(m.recs, Record{Seq: seq, Off: off, Data: payload(uint64(i), n)})
	}
	first := m.recs[0].Seq
	starts := []uint64{0, 1, first - 1, first, first + 1, m.recs[len(m.recs)/2].Seq, m.recs[len(m.recs)-1].Seq, r.LastSeq() + 1}
	for _, from := range starts {
		var got []Record
		if err := r.ReadRun(from, func(rec Record) bool { got = append(got, rec); return true }); err != nil {
			t.Fatalf("ReadRun(%d): %v", from, err)
		}
		var want []Record
		for _, w := range m.recs {
			if w.Seq >= from {
				want = append(want, w)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("ReadRun(%d): %d records, want %d", from, len(got), len(want))
		}
		for i := range got {
			if got[i].Seq != want[i].Seq || got[i].Off != want[i].Off || !bytes.Equal(got[i].Data, want[i].Data) {
				t.Fatalf("ReadRun(%d) record %d: seq %d off %d, want seq %d off %d (or data differs)", from, i, got[i].Seq, got[i].Off, want[i].Seq, want[i].Off)
			}
		}
	}
	// Early stop: fn sees exactly the records it accepted plus the one it refused.
	calls := 0
	if err := r.ReadRun(0, func(Record) bool { calls++; return calls < 5 }); err != nil || calls != 5 {
		t.Fatalf("early stop: %d calls, err %v; want 5", calls, err)
	}
	r.Close()
	if err := r.ReadRun(0, func(Record) bool { return true }); !errors.Is(err, ErrClosed) {
		t.Fatalf("ReadRun on a closed ring: %v, want ErrClosed", err)
	}
}

// TestReadRunCorruption checks that a damaged live record makes ReadRun
// return a *CorruptionError naming its offset, never wrong data.
func TestReadRunCorruption(t *testing.T) {
	t.Parallel()
	m := newMemFS()
	r, err := Create("ring", 16384, Options{FS: m})
	if err != nil {
		t.Fatal(err)
	}
	var offs []int64
	for i := 0; i < 20; i++ {
		_, off, err := r.Append(payload(uint64(i), 100), Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		offs = append(offs, off)
	}
	d := m.files["ring"]
	d.b[offs[7]+RecordOverhead+3] ^= 0x10 // flip a payload bit of record 8
	n := 0
	err = r.ReadRun(0, func(Record) bool { n++; return true })
	var ce *CorruptionError
	if !errors.As(err, &ce) || ce.Offset != offs[7] {
		t.Fatalf("ReadRun over a damaged record: %v, want a *CorruptionError at %d", err, offs[7])
	}
	if n != 0 {
		t.Fatalf("ReadRun passed %d records of the damaged span before failing; want 0", n)
	}
}

// TestBufferAppends checks BufferAppends against a model over many wraps
// and limits: a buffered record is invisible to readers until Flush (or
// a wrap, header write, 256 KiB of records, Overwrite, Sync, Close),
// then everything reads back as with unbuffered appends; a crash (the
// file as written so far) loses at most the buffered records, never a
// flushed one, and recovery returns only appended data; Check and
// Overwrite flush first. It also checks that a ring with buffered
// appends writes far fewer times than one without.
func TestBufferAppends(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	for _, lim := range []Limits{{}, {MaxRecords: 9}, {MaxDataBytes: 3000}} {
		m := newMemFS()
		r, err := Create("ring", 16384, Options{FS: m, BufferAppends: true})
		if err != nil {
			t.Fatal(err)
		}
		want := map[uint64][]byte{}
		var mod model
		flushed := uint64(0) // every record <= flushed is on "disk"
		m.startLog()
		for i := 0; i < 800; i++ {
			n := 1 + rng.IntN(400)
			d := payload(uint64(i), n)
			var ev []Evicted
			seq, off, err := r.AppendEvicting(d, lim, func(e []Evicted) error { ev = append(ev, e...); return nil })
			if err != nil {
				t.Fatal(err)
			}
			want[seq] = d
			var recs []Record
			for _, e := range ev {
				recs = append(recs, Record{Seq: e.Seq, Off: e.Off, Data: want[e.Seq]})
			}
			mod.evict(t, recs)
			mod.recs = append(mod.recs, Record{Seq: seq, Off: off, Data: d})
			if r.LastSeq() == seq {
				flushed = seq // written by a wrap or header write
			} else if r.LastSeq() > flushed {
				flushed = r.LastSeq()
			}
			if r.LastSeq() < flushed {
				t.Fatalf("append %d: LastSeq %d went back below %d", i, r.LastSeq(), flushed)
			}
			if _, err := r.Read(seq, off); r.LastSeq() < seq && !errors.Is(err, ErrNotFound) {
				t.Fatalf("append %d: buffered record readable: %v", i, err)
			}
			switch rng.IntN(10) {
			case 0:
				if err := r.Flush(); err != nil {
					t.Fatal(err)
				}
				if r.LastSeq() != seq {
					t.Fatalf("append %d: LastSeq %d after Flush, want %d", i, r.LastSeq(), seq)
				}
				flushed = seq
				mod.verify(t, r)
			case 1:
				// A crash now: recovery keeps every flushed record.
				r2, err := openImage(m.image("ring"))
				if err != nil {
					t.Fatalf("append %d: recovery: %v", i, err)
				}
				seqs := verifyRecovered(t, r2, want, fmt.Sprintf("crash after append %d", i))
				if flushed >= mod.recs[0].Seq && (len(seqs) == 0 || seqs[len(seqs)-1] < flushed) {
					t.Fatalf("append %d: recovered up to %v, but %d was flushed", i, seqs, flushed)
				}
				r2.Close()
			case 2:
				// Overwrite of the newest record flushes first.
				last := mod.recs[len(mod.recs)-1]
				nd := payload(uint64(i)+1e6, len(last.Data))
				if err := r.Overwrite(last.Seq, last.Off, nd); err != nil {
					t.Fatalf("append %d: Overwrite: %v", i, err)
				}
				mod.recs[len(mod.recs)-1].Data, want[last.Seq] = nd, nd
				flushed = last.Seq
			}
		}
		if err := r.Check(); err != nil {
			t.Fatal(err)
		}
		mod.verify(t, r)
		writes := len(m.writes())
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		r2, err := openImage(m.image("ring"))
		if err != nil {
			t.Fatal(err)
		}
		mod.verify(t, r2)
		r2.Close()
		if writes > 800*3/4 {
			t.Errorf("limits %+v: %d writes for 800 buffered appends", lim, writes)
		}
	}
}
