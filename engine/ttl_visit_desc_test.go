package engine

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// descKey returns the prefix of the descending TTL index 2's entries
// for date d in collection c.
func descKey(t *testing.T, db *DB, c string, d bson.DateTime) []byte {
	t.Helper()
	pre := lsm.IndexPrefix(db.lookup("test", c).m().ID, 2)
	return append(append([]byte{}, pre...), lsm.AppendKey(nil, d, true)...)
}

// descMark returns the monitor's mark of collection c's index 2.
func descMark(t *testing.T, db *DB, c string) []byte {
	t.Helper()
	st, ok := db.mon.State(ttlKey{Coll: db.lookup("test", c).m().ID, Index: 2})
	if !ok {
		t.Fatal("no monitor state for the TTL index")
	}
	return st.Mark
}

// datedTTLColl opens a store with collection c under a TTL index
// (key, name; expireAfterSeconds 10) holding documents _id 0..n-1, _id
// i dated oldest-i seconds before the clock's now, and, with live, one
// more (_id "live") dated now. It returns the store, its clock and now.
func datedTTLColl(t *testing.T, key, name string, n, oldest int, live bool) (*DB, *fakeClock, time.Time) {
	t.Helper()
	db, clk, _ := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": `+key+`, "name": "`+name+`", "expireAfterSeconds": 10}]}`)
	now := clk.Now()
	var docs []bson.D
	for i := 0; i < n; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: dt(now.Add(-time.Duration(oldest-i) * time.Second))}})
	}
	if live {
		docs = append(docs, bson.D{{Key: "_id", Value: "live"}, {Key: "t", Value: dt(now)}})
	}
	insertDocs(t, db, "c", docs...)
	return db, clk, now
}

// The mirror of TestLowWaterPassesFinishingChunk for a descending TTL
// index, whose expired keys sort last: a visit leaves the index's
// high-water mark at the newest key it deleted, so the next visit's
// range ends there and does not walk the tombstones beyond it again
// (docs/ttl-monitor.md, "Why visits keep a low-water mark"). A document
// written beyond the mark afterwards (an old date inserted, a date
// moved back) is still deleted by the next pass.
func TestHighWaterPassesFinishingChunk(t *testing.T) {
	t.Parallel()
	db, _, now := datedTTLColl(t, `{"t": -1}`, "t_-1", 30, 60, true) // i is dated 60-i seconds ago
	if n := pass(t, db).Deleted; n != 30 {
		t.Fatalf("first pass deleted %d, want 30", n)
	}
	// The newest deleted key (31 s ago) is the mark: every key of the
	// range at or after it is gone, and none the live one.
	newest := descKey(t, db, "c", dt(now.Add(-31*time.Second)))
	if mark := descMark(t, db, "c"); !bytes.HasPrefix(mark, newest) {
		t.Fatalf("mark %x after the visit: want the newest deleted key %x", mark, newest)
	}
	insertDocs(t, db, "c", bson.D{{Key: "_id", Value: "old"}, {Key: "t", Value: dt(now.Add(-time.Hour))}})
	if n := pass(t, db).Deleted; n != 1 || count(t, db, "test", "c") != 1 {
		t.Fatalf("second pass deleted %d, left %v", n, ids(t, db, "c"))
	}
	if _, err := db.Database("test").Collection("c").UpdateOne(context.Background(), bson.D{{Key: "_id", Value: "live"}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: dt(now.Add(-2 * time.Hour))}}}}, false); err != nil {
		t.Fatal(err)
	}
	if n := pass(t, db).Deleted; n != 1 || count(t, db, "test", "c") != 0 {
		t.Fatalf("a date moved back beyond the mark: deleted %d, left %v", n, ids(t, db, "c"))
	}
	mustValidate(t, db, "test", "c")
}

// A partial descending TTL index behaves as an ascending one: only the
// documents its filter selects expire, the mark moves past what was
// deleted, a selected document dated beyond the mark is reaped by the
// next pass, and reopening forgets the mark.
func TestHighWaterPartial(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": -1}, "name": "t_-1", "expireAfterSeconds": 10,
		"partialFilterExpression": {"kind": "a"}}]}`)
	now := clk.Now()
	var docs []bson.D
	for i := 0; i < 20; i++ {
		kind := "a"
		if i%2 == 1 {
			kind = "b"
		}
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "kind", Value: kind}, {Key: "t", Value: dt(now.Add(-time.Duration(60-i) * time.Second))}})
	}
	insertDocs(t, db, "c", docs...)
	if n := pass(t, db).Deleted; n != 10 || count(t, db, "test", "c") != 10 {
		t.Fatalf("first pass deleted %d, left %v", n, ids(t, db, "c"))
	}
	newest := descKey(t, db, "c", dt(now.Add(-42*time.Second))) // i = 18
	if mark := descMark(t, db, "c"); !bytes.HasPrefix(mark, newest) {
		t.Fatalf("mark %x after the visit: want the newest deleted key %x", mark, newest)
	}
	insertDocs(t, db, "c",
		bson.D{{Key: "_id", Value: "old-a"}, {Key: "kind", Value: "a"}, {Key: "t", Value: dt(now.Add(-time.Hour))}},
		bson.D{{Key: "_id", Value: "old-b"}, {Key: "kind", Value: "b"}, {Key: "t", Value: dt(now.Add(-time.Hour))}})
	if n := pass(t, db).Deleted; n != 1 || count(t, db, "test", "c") != 11 {
		t.Fatalf("second pass deleted %d, left %v", n, ids(t, db, "c"))
	}
	db = reopen(t, db, dir, clk)
	if _, ok := db.mon.State(ttlKey{Coll: db.lookup("test", "c").m().ID, Index: 2}); ok {
		t.Fatal("a mark survived the reopen")
	}
	insertDocs(t, db, "c", bson.D{{Key: "_id", Value: "older-a"}, {Key: "kind", Value: "a"}, {Key: "t", Value: dt(now.Add(-2 * time.Hour))}})
	if n := pass(t, db).Deleted; n != 1 || count(t, db, "test", "c") != 11 {
		t.Fatalf("pass after the reopen deleted %d, left %v", n, ids(t, db, "c"))
	}
	mustValidate(t, db, "test", "c")
}

// A descending visit stopped by its time target after reading a chunk
// and before deleting all of it leaves the high-water mark past the
// chunks it completed only: the stopped chunk's expired keys lie beyond
// the mark, and the next visit walks that chunk again rather than skip
// them. The clock of the time targets moves 600 ms per chunk read, so
// each visit (target 1000 ms) completes one chunk of 10, reads the next
// and stops before its first delete batch.
func TestHighWaterStopInsideChunk(t *testing.T) {
	t.Parallel()
	const chunk = 10
	db, clk, _ := openTestWith(t, func(o *Options) { o.seams.ttlScanChunk = chunk })
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": -1}, "name": "t_-1", "expireAfterSeconds": 10}]}`)
	now := clk.Now()
	const n = 35
	var docs []bson.D
	for i := 0; i < n; i++ { // i is dated 100-i seconds ago
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: dt(now.Add(-time.Duration(100-i) * time.Second))}})
	}
	insertDocs(t, db, "c", docs...)
	el := setElapsed(db, 0)
	db.opts.seams.scanHook = func() { el.Advance(600 * time.Millisecond) }
	db.SetParameter("ttlIndexDeleteTargetDocs", 0)
	db.SetParameter("ttlIndexDeleteTargetTimeMS", 1000)
	db.SetParameter("ttlMonitorSubPassTargetSecs", 0) // a sub-pass per visit
	db.SetParameter("batchedDeletesTargetBatchDocs", chunk/2)
	// After visit v the mark is the newest key of chunk v: i = 10v-1.
	var got, want []string
	for v := 1; v <= 3; v++ {
		want = append(want, fmt.Sprintf("%d/true/%x", chunk, descKey(t, db, "c", dt(now.Add(-time.Duration(100-(10*v-1))*time.Second)))))
	}
	want = append(want, fmt.Sprintf("%d/false/", n-3*chunk))
	db.opts.seams.visitHook = func(_ string, deleted int64, more bool) {
		mark := descMark(t, db, "c")
		if more {
			mark = mark[:len(descKey(t, db, "c", dt(now)))] // the date part
		} else {
			mark = nil
		}
		got = append(got, fmt.Sprintf("%d/%v/%x", deleted, more, mark))
	}
	if r := pass(t, db); r.Deleted != n || count(t, db, "test", "c") != 0 {
		t.Fatalf("pass deleted %d, left %v; visits %v", r.Deleted, ids(t, db, "c"), got)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("visits (deleted/more/mark's date key)\n%v\nwant\n%v", got, want)
	}
}
