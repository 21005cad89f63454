package engine

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// An InsertMany chunk (insertChunkBytes of documents that stay inline in
// the LSM tree) fits in one transaction of the store's default options:
// with 16 MiB memtables Badger's transaction limit (15% of a memtable)
// was below the chunk and 2000 documents of 3 KB failed with "lsm:
// transaction too big".
func TestInsertChunkFitsDefaultTxnLimit(t *testing.T) {
	db, err := Open(t.TempDir(), Options{DisableTTLMonitor: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if max := db.store.MaxBatchSize(); max <= insertChunkBytes+insertChunkBytes/8 {
		t.Fatalf("store MaxBatchSize %d leaves no room above insertChunkBytes %d", max, insertChunkBytes)
	}
	var docs []any
	for i := 0; i < 2000; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "p", Value: strings.Repeat("x", 3000)}})
	}
	if _, err := db.Database("t").Collection("c").InsertMany(context.Background(), docs, true); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "t", "c"); n != 2000 {
		t.Fatalf("count %d", n)
	}
}
