package engine

import (
	"context"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestReclaimAccountKeptAcrossClose: the TTL deletes counted toward the
// next space reclamation outlive Close. With reclamation due after 10
// deletes, 6 deleted before a Close and 4 after the next Open make it
// due, and it runs; a store that only ever opened, deleted a few and
// closed (a command-line run each time) thus still gets its space
// back. The account is removed from the store while the database is
// open, and a Close with nothing counted writes none.
func TestReclaimAccountKeptAcrossClose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clk := newClock()
	ctx := context.Background()
	open := func() *DB {
		t.Helper()
		o := Options{Clock: clk.Now, DisableTTLMonitor: true, MemoryBudget: lsm.MinMemoryBudget}
		SetReclaimAfterForTesting(&o, 10)
		db, err := Open(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	expire := func(db *DB, from, n int) {
		t.Helper()
		c := db.Database("d").Collection("c")
		docs := make([]any, n)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: from + i}, {Key: "at", Value: bson.NewDateTimeFromTime(clk.Now().Add(-time.Hour))}}
		}
		if _, err := c.InsertMany(ctx, docs, true); err != nil {
			t.Fatal(err)
		}
		res, err := db.RunTTLPass(ctx)
		if err != nil || res.Deleted != int64(n) {
			t.Fatalf("TTL pass deleted %v (%v), want %d", res, err, n)
		}
		db.mon.WaitReclaim()
	}
	hasAccount := func(db *DB) bool {
		t.Helper()
		found := false
		if err := db.store.View(func(txn *lsm.Txn) error {
			_, err := txn.Get(metaReclaimAccount)
			found = err == nil
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return found
	}

	db := open()
	if _, err := db.Database("d").Collection("c").CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: "at", Value: 1}},
		Options: bson.D{{Key: "expireAfterSeconds", Value: int32(60)}}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil { // nothing counted yet
		t.Fatal(err)
	}
	db = open()
	if hasAccount(db) {
		t.Fatal("a Close with nothing counted wrote an account")
	}
	expire(db, 0, 6)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open()
	defer db.Close()
	if hasAccount(db) {
		t.Fatal("the account is still in the store after Open took it")
	}
	if got := db.mon.SinceReclaim(); got != 6 {
		t.Fatalf("deletes counted after reopening: %d, want the 6 before Close", got)
	}
	expire(db, 6, 4)
	if got := db.Stats().Reclamations; got != 1 {
		t.Fatalf("reclamations after 6 + 4 deletes across a Close: %d, want 1", got)
	}
}
