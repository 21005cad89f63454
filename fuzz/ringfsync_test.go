package fuzz

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// failFS is the operating system's file system with a switch: armed, the
// next Sync (or WriteAt) of a ring file fails once. It counts the
// operations it saw, so a test can tell that the engine used it.
type failFS struct {
	mu        sync.Mutex
	ops       int
	failSync  bool
	failWrite bool
	fired     bool
}

func (f *failFS) arm(sync, write bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failSync, f.failWrite, f.fired = sync, write, false
}

// hit counts an operation and reports whether it must fail.
func (f *failFS) hit(sync bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops++
	if (sync && f.failSync) || (!sync && f.failWrite) {
		f.failSync, f.failWrite, f.fired = false, false, true
		return true
	}
	return false
}

func (f *failFS) OpenFile(name string, flag int, perm os.FileMode) (capped.File, error) {
	f.hit(false)
	fl, err := capped.OSFS{}.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &failFile{File: fl, fs: f}, nil
}

func (f *failFS) Remove(name string) error { return capped.OSFS{}.Remove(name) }

func (f *failFS) SyncDir(dir string) error { return capped.OSFS{}.SyncDir(dir) }

type failFile struct {
	capped.File
	fs *failFS
}

func (f *failFile) WriteAt(p []byte, off int64) (int, error) {
	if f.fs.hit(false) {
		return 0, errInjected
	}
	return f.File.WriteAt(p, off)
}

func (f *failFile) Sync() error {
	if f.fs.hit(true) {
		return errInjected
	}
	return f.File.Sync()
}

// TestRingIOFailure: an fsync (or write) error on a capped collection's
// ring file makes every later write to that collection fail with a
// clear error naming the collection and saying to reopen, until the
// database is reopened; reads keep working, other collections keep
// accepting writes, and after a reopen every acknowledged document is
// there, validate is clean and inserts work again.
func TestRingIOFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		syncWrites        bool
		failSync, failWrt bool
	}{
		{"fsync/durable", true, true, false},
		{"write/durable", true, false, true},
		{"write/nosync", false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			ffs := &failFS{}
			opts := engine.Options{SyncWrites: tc.syncWrites, DisableTTLMonitor: true}
			engine.SetRingFSForTesting(&opts, ffs)
			db, err := engine.Open(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			d := db.Database("t")
			if err := d.CreateCollection(ctx, "cap", bson.D{{Key: "capped", Value: true}, {Key: "size", Value: int32(8192)}}); err != nil {
				t.Fatal(err)
			}
			capC, other := d.Collection("cap"), d.Collection("o")
			acked := map[int32]bool{}
			insert := func(id int32) error {
				_, err := capC.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "pad", Value: strings.Repeat("x", 100)}})
				if err == nil {
					acked[id] = true
				}
				return err
			}
			for i := int32(1); i <= 30; i++ { // wraps: 30 * ~130 bytes > 8192 / 2
				if err := insert(i); err != nil {
					t.Fatalf("insert %d: %v", i, err)
				}
			}
			if ffs.ops == 0 {
				t.Fatal("the engine did not open its ring through Options' ring FS: SetRingFSForTesting is not wired")
			}
			ffs.arm(tc.failSync, tc.failWrt)
			var firstErr error
			next := int32(31)
			for ; next < 200 && firstErr == nil; next++ {
				firstErr = insert(next)
			}
			if !ffs.fired || firstErr == nil {
				t.Fatalf("the injected fault never surfaced (fired %v, err %v)", ffs.fired, firstErr)
			}
			// The disk is healthy again, but the ring stays failed.
			for _, err := range []error{firstErr, insert(next), insert(next + 1)} {
				if err == nil {
					t.Fatal("an insert after the ring failed was acknowledged before a reopen")
				}
				if !errors.Is(err, capped.ErrFailed) || !strings.Contains(err.Error(), "t.cap") || !strings.Contains(err.Error(), "reopen") {
					t.Fatalf("error is not the clear ring-failed error naming the collection: %v", err)
				}
			}
			if _, err := capC.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(30)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "pad", Value: strings.Repeat("y", 100)}}}}, false); !errors.Is(err, capped.ErrFailed) {
				t.Fatalf("update after the ring failed: %v, want ErrFailed", err)
			}
			if n, err := capC.CountDocuments(ctx, bson.D{}); err != nil || n == 0 {
				t.Fatalf("reads after the ring failed: %d, %v", n, err)
			}
			if _, err := other.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
				t.Fatalf("an ordinary collection refused a write after a ring failed: %v", err)
			}
			db.Close() // may report the failure; the reopen is what counts

			opts2 := engine.Options{SyncWrites: tc.syncWrites, DisableTTLMonitor: true}
			db, err = engine.Open(dir, opts2)
			if err != nil {
				t.Fatalf("reopen after the ring failed: %v", err)
			}
			defer db.Close()
			capC = db.Database("t").Collection("cap")
			for _, cn := range []string{"cap", "o"} {
				r, err := db.Validate(ctx, "t", cn)
				if err != nil || len(r.Errors) > 0 {
					t.Fatalf("validate %s after reopen: %v %v", cn, err, r)
				}
			}
			cur, err := capC.Find(ctx, bson.D{})
			if err != nil {
				t.Fatal(err)
			}
			docs, err := cur.All(ctx)
			if err != nil || len(docs) == 0 {
				t.Fatalf("capped read after reopen: %d docs, %v", len(docs), err)
			}
			got := map[int32]bool{}
			for _, dd := range docs {
				got[lookup(dd, "_id").(int32)] = true
			}
			first := lookup(docs[0], "_id").(int32)
			for id := range acked {
				if id >= first && !got[id] {
					t.Errorf("acknowledged capped document %d (not older than the oldest survivor %d) is missing after reopen", id, first)
				}
			}
			if err := insert(next + 2); err != nil {
				t.Fatalf("insert after reopen: %v", err)
			}
		})
	}
}
