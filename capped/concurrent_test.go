package capped

import (
	"bytes"
	"errors"
	"path/filepath"
	"sync"
	"testing"
)

// TestConcurrentAppendersAndReaders runs group-committed appenders, a
// tail reader and random readers together (run with -race). Every
// sequence is unique, every eviction is reported once in order, the
// tailer sees every record once in order or loses its position with
// ErrOverwritten, and Read returns the right data or ErrOverwritten.
func TestConcurrentAppendersAndReaders(t *testing.T) {
	t.Parallel()
	for _, sync_ := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "ring")
		r, err := Create(path, 32<<10, Options{SyncEveryAppend: sync_})
		if err != nil {
			t.Fatal(err)
		}
		const writers, each = 4, 60
		var mu sync.Mutex
		data := map[uint64][]byte{}
		var lastEvicted uint64
		evict := func(recs []Record) error {
			// Called under the ring's writer lock: order is global.
			for _, rec := range recs {
				if rec.Seq <= lastEvicted {
					t.Errorf("evicted %d after %d", rec.Seq, lastEvicted)
				}
				lastEvicted = rec.Seq
			}
			return nil
		}
		var wg sync.WaitGroup
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					d := payload(uint64(w*1000+i), 200+w)
					seq, off, err := r.Append(d, Limits{}, evict)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					if _, dup := data[seq]; dup {
						t.Errorf("sequence %d issued twice", seq)
					}
					data[seq] = d
					mu.Unlock()
					got, err := r.Read(seq, off)
					if err != nil && !errors.Is(err, ErrOverwritten) {
						t.Errorf("Read(%d): %v", seq, err)
					} else if err == nil && !bytes.Equal(got, d) {
						t.Errorf("Read(%d): wrong data", seq)
					}
				}
			}()
		}
		tailDone := make(chan struct{})
		go func() {
			defer close(tailDone)
			// A scan from 0 starts at the oldest record still in the
			// ring, which the appenders may already have moved past 1
			// before the tailer starts: its first record may be any
			// later one, every record after it must follow by one.
			it := r.Scan(0, false)
			fresh := true
			var last uint64
			for last < writers*each {
				for it.Next() {
					if s := it.Record().Seq; (fresh && s <= last) || (!fresh && s != last+1) {
						t.Errorf("tail saw %d after %d", s, last)
					}
					fresh = false
					last = it.Record().Seq
				}
				if errors.Is(it.Err(), ErrOverwritten) {
					it = r.Scan(0, false) // lost position: restart, like a new cursor
					fresh = true
					continue
				}
				if it.Err() != nil {
					t.Error(it.Err())
					return
				}
				if last >= writers*each {
					break
				}
				if err := r.Wait(t.Context(), last); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		wg.Wait()
		<-tailDone
		if r.LastSeq() != writers*each {
			t.Fatalf("LastSeq %d", r.LastSeq())
		}
		it := r.Scan(0, false)
		for it.Next() {
			if !bytes.Equal(it.Record().Data, data[it.Record().Seq]) {
				t.Fatalf("record %d: wrong data", it.Record().Seq)
			}
		}
		if err := r.Check(); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDurableMeansVisible: an appender waiting for the group commit
// (SyncEveryAppend) returns as soon as an fsync's durable mark covers
// its record, and must then read it. Sync's fsync (which does not hold
// the group commit's lock) marked records durable before it made them
// visible, so an appender could return in between and find its record
// "newer than the last committed" (TestConcurrentAppendersAndReaders
// failed so, once, under -race). The hook runs the appender's wait and
// read at the moment the mark is raised.
func TestDurableMeansVisible(t *testing.T) {
	t.Parallel()
	r, err := Create(filepath.Join(t.TempDir(), "ring"), 32<<10, Options{SyncEveryAppend: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// An appender's record, written but not yet synced.
	r.writeMu.Lock()
	seq, off, err := r.appendLocked(payload(1, 100), Limits{}, nil, nil)
	r.writeMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	r.afterDurable = func() {
		if ran {
			return
		}
		ran = true
		if err := r.groupSync(seq); err != nil {
			t.Errorf("groupSync(%d): %v", seq, err)
		}
		if _, err := r.Read(seq, off); err != nil {
			t.Errorf("Read(%d) once durable: %v", seq, err)
		}
	}
	if err := r.Sync(); err != nil {
		t.Fatal(err)
	}
	if !ran {
		t.Fatal("Sync raised no durable mark")
	}
}
