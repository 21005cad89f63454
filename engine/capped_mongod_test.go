package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Behaviours of capped collections and tailable cursors checked against
// mongod 7.0's jstests and source (docs/capped.md §7, docs/tailable.md
// §8), one test per behaviour a user meets.

// insertI inserts documents {i: from} .. {i: to-1} one by one.
func insertI(t *testing.T, c *Collection, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if _, err := c.InsertOne(context.Background(), bson.D{{Key: "i", Value: int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// capped_max1.js: a plain find over a capped collection whose position
// the inserts overwrite fails its getMore with 136, worded as mongod's
// collection scan and getMore word it, naming the last record seen.
func TestCappedCursorPositionLost(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 64*1024, 10)
	insertI(t, c, 0, 20)
	r := mustRun(t, db, "test", `{"find": "c", "batchSize": 4, "showRecordId": true}`)
	id := field(r, "cursor.id").(int64)
	first, _ := field(r, "cursor.firstBatch").(bson.A)
	if id == 0 || len(first) != 4 {
		t.Fatalf("find: %v", r)
	}
	last := field(first[3].(bson.D), "$recordId").(int64)
	insertI(t, c, 20, 40)
	_, err := getMore(t, db, id, "")
	checkCode(t, "getMore of an overrun find", err, document.CodeCappedPositionLost,
		fmt.Sprintf("Executor error during getMore :: caused by :: CollectionScan died due to position in capped collection being deleted. Last seen record id: RecordId(%d)", last))
	if db.cursors.get(id) != nil {
		t.Fatal("the failed cursor stays registered")
	}
}

// A tailable cursor overrun: mongod's classic scan fails to restore the
// tailable position, 136 with its own wording.
func TestTailablePositionLostMessage(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 64*1024, 10)
	insertI(t, c, 0, 5)
	r := mustRun(t, db, "test", `{"find": "c", "tailable": true, "showRecordId": true}`)
	id := field(r, "cursor.id").(int64)
	first, _ := field(r, "cursor.firstBatch").(bson.A)
	if id == 0 || len(first) != 5 {
		t.Fatalf("find: %v", r)
	}
	last := field(first[4].(bson.D), "$recordId").(int64)
	insertI(t, c, 5, 30)
	_, err := getMore(t, db, id, "")
	checkCode(t, "getMore of an overrun tailable cursor", err, document.CodeCappedPositionLost,
		fmt.Sprintf("Executor error during getMore :: caused by :: CollectionScan died due to failure to restore tailable cursor position. Last seen record id: RecordId(%d)", last))
}
