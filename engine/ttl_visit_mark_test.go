package engine

import (
	"bytes"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A visit that finishes inside its first chunk (fewer expired keys than
// ttlScanChunk) moves the low-water mark past the keys it deleted, so
// the next visit does not step over their tombstones again
// (docs/ttl-monitor.md, "Why visits keep a low-water mark"); a key
// written below the mark afterwards is still found (dirty).
func TestLowWaterPassesFinishingChunk(t *testing.T) {
	t.Parallel()
	db, clk, _ := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
	now := clk.Now()
	var docs []bson.D
	for i := 0; i < 30; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: dt(now.Add(-time.Duration(60-i) * time.Second))}})
	}
	docs = append(docs, bson.D{{Key: "_id", Value: "live"}, {Key: "t", Value: dt(now)}})
	insertDocs(t, db, "c", docs...)
	if n := pass(t, db).Deleted; n != 30 {
		t.Fatalf("first pass deleted %d, want 30", n)
	}
	m := db.lookup("test", "c").m()
	st, ok := db.mon.State(ttlKey{Coll: m.ID, Index: 2})
	if !ok {
		t.Fatal("no monitor state for the TTL index")
	}
	pre := lsm.IndexPrefix(m.ID, 2)
	lastDeleted := append(append([]byte{}, pre...), lsm.AppendKey(nil, dt(now.Add(-31*time.Second)), false)...)
	live := append(append([]byte{}, pre...), lsm.AppendKey(nil, dt(now), false)...)
	if bytes.Compare(st.Mark, lastDeleted) <= 0 || bytes.Compare(st.Mark, live) > 0 {
		t.Fatalf("mark %x after the visit: want past the last deleted key %x and not past the live one %x", st.Mark, lastDeleted, live)
	}
	// A document dated below the mark, inserted afterwards, is deleted by
	// the next pass; the live one is kept until it expires.
	insertDocs(t, db, "c", bson.D{{Key: "_id", Value: "old"}, {Key: "t", Value: dt(now.Add(-time.Hour))}})
	if n := pass(t, db).Deleted; n != 1 || count(t, db, "test", "c") != 1 {
		t.Fatalf("second pass deleted %d, left %v", n, ids(t, db, "c"))
	}
	clk.Advance(11 * time.Second)
	if n := pass(t, db).Deleted; n != 1 || count(t, db, "test", "c") != 0 {
		t.Fatalf("third pass deleted %d, left %v", n, ids(t, db, "c"))
	}
}
