package capped

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// payload builds deterministic data for sequence i with length n, so a
// read-back can be checked without keeping a copy.
func payload(i uint64, n int) []byte {
	b := make([]byte, n)
	x := i*0x9E3779B97F4A7C15 + 1
	for j := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[j] = byte(x)
	}
	return b
}

func createRing(t *testing.T, capacity int64, o Options) (*Ring, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ring")
	r, err := Create(path, capacity, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, path
}

// model is the expected content of a ring.
type model struct {
	recs []Record // live, oldest first
}

func (m *model) evict(t *testing.T, got []Record) {
	t.Helper()
	if len(got) > len(m.recs) {
		t.Fatalf("evicted %d records, only %d live", len(got), len(m.recs))
	}
	for i, g := range got {
		w := m.recs[i]
		if g.Seq != w.Seq || g.Off != w.Off || !bytes.Equal(g.Data, w.Data) {
			t.Fatalf("eviction %d: got seq %d off %d, want oldest seq %d off %d", i, g.Seq, g.Off, w.Seq, w.Off)
		}
	}
	m.recs = m.recs[len(got):]
}

func (m *model) verify(t *testing.T, r *Ring) {
	t.Helper()
	if int(r.Count()) != len(m.recs) {
		t.Fatalf("Count %d, model %d", r.Count(), len(m.recs))
	}
	var bytesSum int64
	for _, w := range m.recs {
		bytesSum += int64(len(w.Data))
		got, err := r.Read(w.Seq, w.Off)
		if err != nil {
			t.Fatalf("Read(%d, %d): %v", w.Seq, w.Off, err)
		}
		if !bytes.Equal(got, w.Data) {
			t.Fatalf("Read(%d): wrong data", w.Seq)
		}
	}
	if r.DataBytes() != bytesSum {
		t.Fatalf("DataBytes %d, model %d", r.DataBytes(), bytesSum)
	}
	if len(m.recs) > 0 && r.FirstSeq() != m.recs[0].Seq {
		t.Fatalf("FirstSeq %d, model %d", r.FirstSeq(), m.recs[0].Seq)
	}
	it := r.Scan(0, false)
	i := 0
	for it.Next() {
		if i >= len(m.recs) || it.Record().Seq != m.recs[i].Seq || !bytes.Equal(it.Record().Data, m.recs[i].Data) {
			t.Fatalf("forward scan record %d: seq %d", i, it.Record().Seq)
		}
		i++
	}
	if it.Err() != nil || i != len(m.recs) {
		t.Fatalf("forward scan: %d records, err %v; want %d", i, it.Err(), len(m.recs))
	}
	it = r.Scan(0, true)
	i = len(m.recs) - 1
	for it.Next() {
		if i < 0 || it.Record().Seq != m.recs[i].Seq || !bytes.Equal(it.Record().Data, m.recs[i].Data) {
			t.Fatalf("reverse scan at model %d: seq %d", i, it.Record().Seq)
		}
		i--
	}
	if it.Err() != nil || i != -1 {
		t.Fatalf("reverse scan stopped at model index %d, err %v", i, it.Err())
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestCreateErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []int64{0, MinCapacity - 1, MaxCapacity + 1} {
		if _, err := Create(filepath.Join(dir, fmt.Sprint("c", c)), c, Options{}); !errors.Is(err, ErrBadCapacity) {
			t.Errorf("Create(capacity %d): %v, want ErrBadCapacity", c, err)
		}
	}
	path := filepath.Join(dir, "ring")
	r, err := Create(path, MinCapacity, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := Create(path, MinCapacity, Options{}); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create of an existing file: %v, want fs.ErrExist", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != MinCapacity {
		t.Fatalf("file size %v (%v), want %d", fi.Size(), err, MinCapacity)
	}
}

func TestAppendErrors(t *testing.T) {
	t.Parallel()
	r, _ := createRing(t, MinCapacity, Options{})
	usable := int(MinCapacity - DataStart)
	tests := []struct {
		name string
		n    int
		lim  Limits
		want error
		code document.Code
	}{
		{"empty", 0, Limits{}, ErrEmptyRecord, 0},
		{"larger than usable", usable, Limits{}, ErrTooLarge, document.CodeBadValue},
		{"larger than MaxDataBytes", 100, Limits{MaxDataBytes: 99}, ErrTooLarge, document.CodeBadValue},
		{"largest that fits", usable - RecordOverhead, Limits{}, nil, 0},
	}
	for _, tc := range tests {
		_, _, err := r.Append(make([]byte, tc.n), tc.lim, nil)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if tc.code != 0 && document.CodeOf(err) != tc.code {
			t.Errorf("%s: code %v, want %v", tc.name, document.CodeOf(err), tc.code)
		}
	}
}

// TestWrapAround appends varied sizes through many laps and checks every
// live record against a model, and that every record is evicted exactly
// once, oldest first.
func TestWrapAround(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	for _, capacity := range []int64{MinCapacity, 8192 + 256, 64 << 10} {
		t.Run(fmt.Sprint(capacity), func(t *testing.T) {
			r, _ := createRing(t, capacity, Options{})
			var m model
			var evicted uint64 // evictions seen so far, in order
			var written int64
			for written < 20*capacity {
				n := 1 + rng.IntN(int(min(capacity/4, 3000)))
				if rng.IntN(10) == 0 {
					n = 1 + rng.IntN(16)
				}
				data := payload(uint64(written), n)
				seq, off, err := r.Append(data, Limits{}, func(recs []Record) error {
					for _, rec := range recs {
						if rec.Seq != evicted+1 {
							t.Fatalf("evicted %d, want %d", rec.Seq, evicted+1)
						}
						evicted = rec.Seq
					}
					m.evict(t, recs)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if want := uint64(len(m.recs)) + evicted + 1; seq != want {
					t.Fatalf("seq %d, want %d", seq, want)
				}
				m.recs = append(m.recs, Record{Seq: seq, Off: off, Data: data})
				written += int64(n)
				if rng.IntN(8) == 0 {
					m.verify(t, r)
				}
			}
			m.verify(t, r)
			if evicted == 0 {
				t.Fatal("never wrapped")
			}
			// Reopen: everything reads back and sequences continue.
			path := r.Path()
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			r2, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r2.Close()
			m.verify(t, r2)
			last := m.recs[len(m.recs)-1].Seq
			if r2.LastSeq() != last {
				t.Fatalf("LastSeq after reopen %d, want %d", r2.LastSeq(), last)
			}
			seq, _, err := r2.Append([]byte("x"), Limits{}, func(recs []Record) error { m.evict(t, recs); return nil })
			if err != nil || seq != last+1 {
				t.Fatalf("append after reopen: seq %d err %v, want %d", seq, err, last+1)
			}
		})
	}
}

func TestEvictErrorWritesNothing(t *testing.T) {
	t.Parallel()
	r, _ := createRing(t, MinCapacity, Options{})
	var m model
	for i := 0; ; i++ {
		data := payload(uint64(i), 500)
		boom := errors.New("boom")
		seq, off, err := r.Append(data, Limits{}, func([]Record) error { return boom })
		if errors.Is(err, boom) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		m.recs = append(m.recs, Record{Seq: seq, Off: off, Data: data})
	}
	m.verify(t, r)
	// The refused append consumed no sequence number.
	seq, _, err := r.Append([]byte("y"), Limits{}, func(recs []Record) error { m.evict(t, recs); return nil })
	if err != nil || seq != uint64(len(m.recs))+1 {
		t.Fatalf("seq %d err %v", seq, err)
	}
}

func TestMaxRecordsAndMaxDataBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		lim       Limits
		n         int
		wantCount int
	}{
		{"max 3", Limits{MaxRecords: 3}, 10, 3},
		{"max 1", Limits{MaxRecords: 1}, 10, 1},
		{"no limit", Limits{}, 10, -1}, // physical space only
		{"max bytes 250", Limits{MaxDataBytes: 250}, 100, 2},
		{"both: bytes binds", Limits{MaxRecords: 5, MaxDataBytes: 250}, 100, 2},
		{"both: count binds", Limits{MaxRecords: 2, MaxDataBytes: 10000}, 100, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := createRing(t, MinCapacity, Options{})
			var m model
			for i := 0; i < 200; i++ {
				data := payload(uint64(i), tc.n)
				seq, off, err := r.Append(data, tc.lim, func(recs []Record) error { m.evict(t, recs); return nil })
				if err != nil {
					t.Fatal(err)
				}
				m.recs = append(m.recs, Record{Seq: seq, Off: off, Data: data})
				if tc.lim.MaxRecords > 0 && r.Count() > tc.lim.MaxRecords {
					t.Fatalf("Count %d > max %d", r.Count(), tc.lim.MaxRecords)
				}
				if tc.lim.MaxDataBytes > 0 && r.DataBytes() > tc.lim.MaxDataBytes {
					t.Fatalf("DataBytes %d > max %d", r.DataBytes(), tc.lim.MaxDataBytes)
				}
			}
			m.verify(t, r)
			want := tc.wantCount
			if want < 0 { // as many as physically fit
				want = int((MinCapacity - DataStart) / recordSize(tc.n))
			}
			if int(r.Count()) != want {
				t.Fatalf("Count %d, want %d", r.Count(), want)
			}
		})
	}
}

func TestOverwrite(t *testing.T) {
	t.Parallel()
	r, _ := createRing(t, MinCapacity, Options{})
	var offs []int64
	for i := 0; i < 5; i++ {
		_, off, err := r.Append(payload(uint64(i), 100), Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		offs = append(offs, off)
	}
	newData := bytes.Repeat([]byte("z"), 100)
	tests := []struct {
		name string
		seq  uint64
		off  int64
		data []byte
		want error
		code document.Code
	}{
		{"same size", 3, offs[2], newData, nil, 0},
		{"grow", 3, offs[2], make([]byte, 101), ErrSizeChanged, document.CodeCannotGrowDocumentInCappedNS},
		{"shrink", 3, offs[2], make([]byte, 99), ErrSizeChanged, document.CodeCannotGrowDocumentInCappedNS},
		{"wrong offset", 3, offs[1], newData, ErrNotFound, 0},
		{"unknown seq", 99, offs[1], newData, ErrNotFound, 0},
		{"empty", 3, offs[2], nil, ErrEmptyRecord, 0},
	}
	for _, tc := range tests {
		err := r.Overwrite(tc.seq, tc.off, tc.data)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if tc.code != 0 && document.CodeOf(err) != tc.code {
			t.Errorf("%s: code %v", tc.name, document.CodeOf(err))
		}
	}
	got, err := r.Read(3, offs[2])
	if err != nil || !bytes.Equal(got, newData) {
		t.Fatalf("after overwrite: %q %v", got, err)
	}
	if got, _ := r.Read(2, offs[1]); !bytes.Equal(got, payload(1, 100)) {
		t.Fatal("neighbour changed")
	}
	path := r.Path()
	r.Close()
	r2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if got, err := r2.Read(3, offs[2]); err != nil || !bytes.Equal(got, newData) {
		t.Fatalf("after reopen: %v", err)
	}
	// Overwriting an evicted record.
	for i := 0; i < 100; i++ {
		if _, _, err := r2.Append(payload(uint64(i), 100), Limits{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := r2.Overwrite(3, offs[2], newData); !errors.Is(err, ErrOverwritten) {
		t.Fatalf("overwrite of evicted: %v", err)
	}
	if _, err := r2.Read(3, offs[2]); !errors.Is(err, ErrOverwritten) || document.CodeOf(err) != document.CodeCappedPositionLost {
		t.Fatalf("read of evicted: %v", err)
	}
}

func TestIteratorOverrun(t *testing.T) {
	t.Parallel()
	r, _ := createRing(t, MinCapacity, Options{})
	for i := 0; i < 5; i++ {
		r.Append(payload(uint64(i), 100), Limits{}, nil)
	}
	fwd := r.Scan(0, false)
	if !fwd.Next() || fwd.Record().Seq != 1 {
		t.Fatal("first record")
	}
	rev := r.Scan(0, true)
	if !rev.Next() || rev.Record().Seq != 5 {
		t.Fatal("newest record")
	}
	// Evict seq 2.. by filling the ring.
	for i := 0; i < 40; i++ {
		r.Append(payload(uint64(i), 100), Limits{}, nil)
	}
	for _, it := range []*Iterator{fwd, rev} {
		if it.Next() {
			t.Fatalf("Next after overrun returned seq %d", it.Record().Seq)
		}
		if !errors.Is(it.Err(), ErrOverwritten) || document.CodeOf(it.Err()) != document.CodeCappedPositionLost {
			t.Fatalf("Err %v, want ErrOverwritten", it.Err())
		}
	}
	// Scan from an evicted sequence fails; from a live one starts there.
	if it := r.Scan(2, false); it.Next() || !errors.Is(it.Err(), ErrOverwritten) {
		t.Fatalf("scan from evicted: %v", it.Err())
	}
	first := r.FirstSeq()
	if it := r.Scan(first+1, false); !it.Next() || it.Record().Seq != first+1 {
		t.Fatal("scan from a live sequence")
	}
	if it := r.Scan(first+1, true); !it.Next() || it.Record().Seq != first+1 || !it.Next() || it.Record().Seq != first || it.Next() || it.Err() != nil {
		t.Fatal("reverse scan from a live sequence")
	}
}

func TestTailIterator(t *testing.T) {
	t.Parallel()
	r, _ := createRing(t, MinCapacity, Options{})
	it := r.Scan(0, false)
	if it.Next() || it.Err() != nil {
		t.Fatal("empty ring")
	}
	r.Append([]byte("a"), Limits{}, nil)
	if !it.Next() || string(it.Record().Data) != "a" || it.Next() {
		t.Fatal("tail did not see the new record exactly once")
	}
	r.Append([]byte("b"), Limits{}, nil)
	if !it.Next() || string(it.Record().Data) != "b" {
		t.Fatal("tail did not resume")
	}
}

func TestWait(t *testing.T) {
	t.Parallel()
	r, _ := createRing(t, MinCapacity, Options{})
	ctx := context.Background()

	// Already satisfied.
	r.Append([]byte("a"), Limits{}, nil)
	if err := r.Wait(ctx, 0); err != nil {
		t.Fatal(err)
	}

	// Woken by Append.
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		close(started)
		done <- r.Wait(ctx, 1)
	}()
	<-started
	select {
	case err := <-done:
		t.Fatalf("Wait returned %v before an append", err)
	default:
	}
	r.Append([]byte("b"), Limits{}, nil)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// Honours ctx.
	cctx, cancel := context.WithCancel(ctx)
	go func() { done <- r.Wait(cctx, 2) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait after cancel: %v", err)
	}

	// Woken by Close.
	go func() { done <- r.Wait(ctx, 2) }()
	r.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("Wait after close: %v", err)
	}
	if _, _, err := r.Append([]byte("c"), Limits{}, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after close: %v", err)
	}
}

func TestRemove(t *testing.T) {
	t.Parallel()
	r, path := createRing(t, MinCapacity, Options{})
	r.Close()
	if err := Remove(path, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("file still there: %v", err)
	}
}
