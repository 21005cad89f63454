package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestGetMoreWithoutBatchSizeIsBounded: a getMore without batchSize
// returns a batch of about 16 MiB, not everything the cursor has left,
// and the cursor goes on from there (docs/commands.md).
func TestGetMoreWithoutBatchSizeIsBounded(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	pad := strings.Repeat("x", 4096)
	total := 6000 // about 24 MiB
	if raceOn {
		// Under the race detector (one goroutine): about 18.5 MiB,
		// still a full batch and a second one.
		total = 4500
	}
	docs := make([]any, 0, 1000)
	for i := 0; i < total; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "pad", Value: pad}})
		if len(docs) == cap(docs) || i == total-1 {
			if _, err := db.Database("test").Collection("big").InsertMany(ctx, docs, true); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	reply, err := db.RunCommand(ctx, "test", bson.D{{Key: "find", Value: "big"}, {Key: "batchSize", Value: int32(1)}})
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := document.Lookup(reply, "cursor.id")
	id, _ := cur.(int64)
	if id == 0 {
		t.Fatalf("find of %d documents closed its cursor: %v", total, reply)
	}
	seen := 1
	var batches []int
	for id != 0 {
		reply, err := db.RunCommand(ctx, "test", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "big"}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := document.Lookup(reply, "cursor.nextBatch")
		batch, _ := b.(bson.A)
		size := 0
		for _, d := range batch {
			size += document.Size(d.(bson.D))
		}
		if size > getMoreBatchBytes+256*5000 {
			t.Fatalf("a getMore without batchSize returned %d bytes, want about %d at most", size, getMoreBatchBytes)
		}
		batches = append(batches, len(batch))
		seen += len(batch)
		v, _ := document.Lookup(reply, "cursor.id")
		id, _ = v.(int64)
	}
	if seen != total || len(batches) < 2 {
		t.Fatalf("getMores returned %d documents in batches %v, want all %d in at least two", seen, batches, total)
	}
}
