package engine

import (
	"context"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// An insert releases c.wmu once its commit is ordered, before it is
// written (insert.go). Whoever takes the lock next still sees the
// insert: a second insert of the same _id in that window gets
// DuplicateKey (its unique-key read waits in Badger for the first
// commit), and a reader counts the document. Releasing the lock before
// the commit was ordered would let the second insert in.
func TestInsertSeenOnceOrdered(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	c := db.Database("test").Collection("c")
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	var dupErr error
	var seen int64 = -1
	calls := 0
	db.opts.seams.insertSent = func() {
		calls++
		if calls > 1 {
			return // the nested insert below
		}
		_, dupErr = c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: "second"}})
		seen, _ = c.CountDocuments(ctx, bson.D{{Key: "_id", Value: 1}})
	}
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: "first"}}); err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Fatal("the insert did not release the lock before its write")
	}
	checkCode(t, "second insert of _id 1 in the window", dupErr, document.CodeDuplicateKey, "dup key")
	if seen != 1 {
		t.Fatalf("a reader in the window counted %d documents with _id 1, want 1", seen)
	}
	got, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := get(got, "v"); v != "first" {
		t.Fatalf("_id 1 holds %v, want the first insert's", got)
	}
}
