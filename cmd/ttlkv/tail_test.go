package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/engine"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// tailRun runs tail on db in a goroutine. After every batch tail sends
// (printed, batch length) on batches and then blocks until the test
// sends on resume (or stops it), so the test decides when the next
// getMore runs.
type tailRun struct {
	out, errOut syncBuffer
	batches     chan [2]int64
	resume      chan struct{}
	cancel      context.CancelFunc
	done        chan int
}

func startTail(t *testing.T, db *engine.DB, coll string, f *tailFlags) *tailRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &tailRun{batches: make(chan [2]int64), resume: make(chan struct{}), cancel: cancel, done: make(chan int, 1)}
	e := &env{ctx: ctx, db: "test", isTerm: func(any) bool { return false }}
	e.stdout, e.stderr = &r.out, &r.errOut
	e.tailHook = func(printed int64, batch int) {
		select {
		case r.batches <- [2]int64{printed, int64(batch)}:
		case <-ctx.Done():
			return
		}
		select {
		case <-r.resume:
		case <-ctx.Done():
		}
	}
	go func() { r.done <- e.tail(db, coll, bson.D{}, f) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// waitPrinted lets tail run until n documents have been printed; tail
// is then held.
func (r *tailRun) waitPrinted(t *testing.T, n int64) {
	t.Helper()
	for b := range r.batches {
		if b[0] >= n {
			return
		}
		r.resume <- struct{}{}
	}
}

// waitCaughtUp lets tail run until it reads an empty batch; tail is then
// held.
func (r *tailRun) waitCaughtUp() {
	for b := range r.batches {
		if b[1] == 0 {
			return
		}
		r.resume <- struct{}{}
	}
}

func (r *tailRun) stop(t *testing.T) {
	t.Helper()
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	if code := <-r.done; code != 0 {
		t.Errorf("tail exit %d, stderr %s", code, r.errOut.String())
	}
}

func insertIDs(t *testing.T, db *engine.DB, coll string, from, to int) {
	t.Helper()
	var docs bson.A
	for i := from; i <= to; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}})
	}
	if _, err := do(context.Background(), db, "test", bson.D{{Key: "insert", Value: coll}, {Key: "documents", Value: docs}}); err != nil {
		t.Fatal(err)
	}
}

func idLines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "{\"_id\":%d}\n", i)
	}
	return b.String()
}

func openCapped(t *testing.T, max int32) *engine.DB {
	t.Helper()
	db, err := engine.Open(t.TempDir(), engine.Options{DisableTTLMonitor: true})
	must(t, err)
	t.Cleanup(func() { db.Close() })
	if _, err := do(context.Background(), db, "test", bson.D{{Key: "create", Value: "log"}, {Key: "capped", Value: true},
		{Key: "size", Value: int32(1 << 20)}, {Key: "max", Value: max}}); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestTailFollows: documents inserted while tail waits are printed once,
// in order; with --from-start the existing ones come first.
func TestTailFollows(t *testing.T) {
	t.Parallel()
	for _, fromStart := range []bool{false, true} {
		t.Run(fmt.Sprint("fromStart=", fromStart), func(t *testing.T) {
			db := openCapped(t, 100)
			insertIDs(t, db, "log", 1, 3)
			r := startTail(t, db, "log", &tailFlags{fromStart: fromStart, maxTimeMS: 5})
			r.waitCaughtUp()
			insertIDs(t, db, "log", 4, 5)
			r.resume <- struct{}{}
			want := idLines(4, 5)
			if fromStart {
				want = idLines(1, 5)
			}
			r.waitPrinted(t, int64(strings.Count(want, "\n")))
			r.stop(t)
			if got := r.out.String(); got != want {
				t.Errorf("printed %q, want %q", got, want)
			}
			if r.errOut.String() != "" {
				t.Errorf("stderr %q", r.errOut.String())
			}
		})
	}
}

// TestTailPositionLost: a tailer held between two getMores while the
// writers wrap a capped collection of 5 documents loses its position; it
// warns, saying it was more than 5 documents behind and which documents
// are lost, and continues from the oldest present, printing nothing twice.
func TestTailPositionLost(t *testing.T) {
	t.Parallel()
	db := openCapped(t, 5)
	insertIDs(t, db, "log", 1, 3)
	r := startTail(t, db, "log", &tailFlags{fromStart: true, maxTimeMS: 5})
	<-r.batches // the first batch, _id 1..3; tail is held
	insertIDs(t, db, "log", 4, 13)
	r.resume <- struct{}{}
	// _id 4..8 were overwritten before tail read them; 9..13 remain.
	r.waitPrinted(t, 8)
	r.stop(t)
	if got, want := r.out.String(), idLines(1, 3)+idLines(9, 13); got != want {
		t.Errorf("printed %q, want %q (no repeat, nothing but the lost ones missing)", got, want)
	}
	errOut := r.errOut.String()
	for _, want := range []string{
		"ttlkv tail: WARNING: fell behind test.log by more than the 5 document(s) it holds",
		"documents inserted after _id 3 (the last printed; 3 printed so far) were overwritten before they could be read and are lost",
		"CappedPositionLost",
		"ttlkv tail: continuing from the oldest document still present, _id 9\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if n := strings.Count(errOut, "WARNING"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, errOut)
	}
}

// TestTailDropped: a dropped collection is waited for, and everything in
// its successor is printed.
func TestTailDropped(t *testing.T) {
	t.Parallel()
	db := openCapped(t, 10)
	insertIDs(t, db, "log", 1, 2)
	r := startTail(t, db, "log", &tailFlags{maxTimeMS: 5})
	r.waitCaughtUp()
	ctx := context.Background()
	if _, err := do(ctx, db, "test", bson.D{{Key: "drop", Value: "log"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := do(ctx, db, "test", bson.D{{Key: "create", Value: "log"}, {Key: "capped", Value: true}, {Key: "size", Value: int32(4096)}}); err != nil {
		t.Fatal(err)
	}
	insertIDs(t, db, "log", 1, 2)
	r.resume <- struct{}{}
	r.waitPrinted(t, 2)
	r.stop(t)
	if got, want := r.out.String(), idLines(1, 2); got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	if !strings.Contains(r.errOut.String(), "test.log was dropped; waiting for it to be created again") {
		t.Errorf("stderr %q", r.errOut.String())
	}
}

// TestTailMissingCollection: tail on a collection that does not exist
// says so and exits 1 instead of waiting silently.
func TestTailMissingCollection(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, errOut, code := cli(t, ctx, t.TempDir(), "", "tail", "nonexist")
	if code != 1 || !strings.Contains(errOut, "namespace test.nonexist does not exist") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
