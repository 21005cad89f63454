package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// conflictOn makes the first n commits of db's insert chunks conflict
// for real: in each, the chunk's transaction reads a key no collection
// uses and a write to that key commits beside it before the chunk
// commits, so Badger refuses the chunk's commit (lsm.ErrConflict) and
// nothing of it is written. It returns a pointer to the count of
// staged chunks.
func conflictOn(t *testing.T, db *DB, n int) *int {
	t.Helper()
	key := lsm.SequenceKey(1 << 60)
	staged := 0
	db.opts.seams.insertStaged = func(txn *lsm.Txn) {
		staged++
		if staged > n {
			return
		}
		if _, err := txn.Get(key); err != nil && !errors.Is(err, lsm.ErrNotFound) {
			t.Errorf("read of the conflict key: %v", err)
		}
		if err := db.store.Update(func(w *lsm.Txn) error { return w.Set(key, []byte{byte(staged)}) }); err != nil {
			t.Errorf("the write beside the chunk: %v", err)
		}
	}
	return &staged
}

// TestInsertConflictRunsChunkAgain: a chunk whose commit conflicts is
// staged again from its first document, and the insert reports what a
// conflict-free one reports: each valid document inserted once, with
// the _id acknowledged, each duplicate one write error at its index
// (not two: the first attempt's errors are dropped with it), and a
// collection that validates; for a clustered collection, too, whose
// record-id reservation the first attempt staged and lost.
func TestInsertConflictRunsChunkAgain(t *testing.T) {
	t.Parallel()
	for _, clustered := range []bool{false, true} {
		name := map[bool]string{false: "ordinary", true: "clustered"}[clustered]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db, _ := openMem(t)
			ctx := context.Background()
			var c *Collection
			if clustered {
				c = clusteredColl(t, db, "c")
			} else {
				c = db.Database("db").Collection("c")
			}
			if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 0}}); err != nil {
				t.Fatal(err)
			}
			staged := conflictOn(t, db, 2)
			docs := []any{
				bson.D{{Key: "_id", Value: 1}},
				bson.D{{Key: "_id", Value: 0}}, // already there
				bson.D{{Key: "_id", Value: 2}},
				bson.D{{Key: "_id", Value: 1}}, // earlier in the batch
				bson.D{{Key: "_id", Value: 3}},
			}
			res, err := c.InsertMany(ctx, docs, false)
			var bwe *BulkWriteError
			if !errors.As(err, &bwe) {
				t.Fatalf("InsertMany: %v, want a BulkWriteError", err)
			}
			if *staged != 3 {
				t.Errorf("the chunk was staged %d times, want 3 (two conflicts, then the commit)", *staged)
			}
			if len(bwe.WriteErrors) != 2 || bwe.WriteErrors[0].Index != 1 || bwe.WriteErrors[1].Index != 3 {
				t.Fatalf("write errors %+v, want one at index 1 and one at 3", bwe.WriteErrors)
			}
			for _, we := range bwe.WriteErrors {
				checkCode(t, "duplicate", we.Err, document.CodeDuplicateKey, "dup key")
			}
			if got := fmt.Sprint(res.InsertedIDs); got != "[1 <nil> 2 <nil> 3]" {
				t.Errorf("InsertedIDs %s, want [1 <nil> 2 <nil> 3]", got)
			}
			n, err := c.CountDocuments(ctx, bson.D{})
			if err != nil || n != 4 {
				t.Fatalf("count %d (%v), want 4", n, err)
			}
			mustValidate(t, db, "db", "c")
		})
	}
}

// TestInsertConflictGivesUp: a chunk that conflicts on every attempt
// is staged maxInsertConflicts+1 times; the insert then fails with the
// conflict and leaves nothing of the chunk behind, and the next insert
// works.
func TestInsertConflictGivesUp(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	c := db.Database("db").Collection("c")
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	staged := conflictOn(t, db, maxInsertConflicts+1)
	_, err := c.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}, true)
	if !errors.Is(err, lsm.ErrConflict) {
		t.Fatalf("InsertMany: %v, want the conflict", err)
	}
	if *staged != maxInsertConflicts+1 {
		t.Errorf("the chunk was staged %d times, want %d", *staged, maxInsertConflicts+1)
	}
	if n, err := c.CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("count %d (%v) after the failed insert, want 1", n, err)
	}
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("the next insert: %v", err)
	}
	mustValidate(t, db, "db", "c")
}
