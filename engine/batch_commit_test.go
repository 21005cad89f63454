package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A delete batch stages its deletes without c.wmu and commits under it.
// Whatever changes between staging and commit (an update of a staged
// document, collMod, a new index, a drop), the decision is the one the
// state at the commit point gives, and validate stays clean.
func TestBatchChangesBeforeCommit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(t *testing.T, db *DB, now time.Time)
		// survivors after the batch (by _id)
		want    []int
		dropped bool
	}{
		{"nothing", func(*testing.T, *DB, time.Time) {}, []int{9}, false},
		{"update refreshes a staged document", func(t *testing.T, db *DB, now time.Time) {
			if _, err := db.Database("test").Collection("c").UpdateOne(context.Background(), bson.D{{Key: "_id", Value: 2}},
				bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: dt(now)}}}}, false); err != nil {
				t.Fatal(err)
			}
		}, []int{2, 9}, false},
		{"delete of a staged document", func(t *testing.T, db *DB, now time.Time) {
			mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": 3}, "limit": 1}]}`)
		}, []int{9}, false},
		{"collMod makes nothing expired", func(t *testing.T, db *DB, now time.Time) {
			mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 86400}}`)
		}, []int{1, 2, 3, 4, 5, 9}, false},
		{"new index", func(t *testing.T, db *DB, now time.Time) {
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"k": 1}, "name": "k_1"}]}`)
		}, []int{9}, false},
		{"drop", func(t *testing.T, db *DB, now time.Time) {
			mustRun(t, db, "test", `{"drop": "c"}`)
		}, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db, clk, _ := openTest(t)
			now := clk.Now()
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
			for i := 1; i <= 5; i++ {
				insertDocs(t, db, "c", bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(now.Add(-time.Hour))}, {Key: "k", Value: i}})
			}
			insertDocs(t, db, "c", bson.D{{Key: "_id", Value: 9}, {Key: "t", Value: dt(now.Add(time.Hour))}, {Key: "k", Value: 9}})
			co := db.lookup("test", "c")
			ixID := co.m().Index("t_1").ID
			changed := false
			bd := &batchDeleter{db: db, c: co, recheck: func(m *catalog.Coll, d bson.D) bool {
				ix := indexByID(m, ixID)
				return ix != nil && expiredUnder(ix, d, cutoffFor(db.now(), ix.Expire))
			}}
			bd.beforeCommit = func() {
				if !changed {
					changed = true
					tc.change(t, db, now)
				}
			}
			n, err := bd.run(context.Background(), []uint64{5, 4, 3, 2, 1, 6}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !changed {
				t.Fatal("the batch never reached its commit")
			}
			if tc.dropped {
				if n != 0 {
					t.Fatalf("deleted %d from a dropped collection", n)
				}
				return
			}
			var got []int
			for _, d := range findAll(t, db, "test", "c", bson.D{}) {
				got = append(got, int(toInt64(t, idOf(d))))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("survivors %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("survivors %v, want %v", got, tc.want)
				}
			}
			mustValidate(t, db, "test", "c")
		})
	}
}

func toInt64(t *testing.T, v any) int64 {
	t.Helper()
	switch x := v.(type) {
	case int32:
		return int64(x)
	case int64:
		return x
	case float64:
		return int64(x)
	}
	t.Fatalf("not a number: %#v", v)
	return 0
}

// A TTL batch whose commit finds a writer holding c.wmu makes the next
// batch wait as long as the batch took; without writers, or for user
// deletes (yield off), there is no pause.
func TestBatchYieldsToWriters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		yield     bool
		contended []bool // per batch
		sleeps    int
	}{
		{"no writers", true, []bool{false, false, false}, 0},
		{"writer at the first commit", true, []bool{true, false, false}, 1},
		{"writers at every commit", true, []bool{true, true, true}, 2}, // none after the last batch
		{"user delete does not yield", false, []bool{true, true, true}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, clk, _ := openTest(t)
			now := clk.Now()
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
			for i := 1; i <= 6; i++ {
				insertDocs(t, db, "c", bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(now.Add(-time.Hour))}})
			}
			co := db.lookup("test", "c")
			batch := 0
			var slept []time.Duration
			db.opts.seams.writerAt = func(*batchDeleter) bool { batch++; return tc.contended[batch-1] }
			db.opts.seams.pause = func(d time.Duration) { slept = append(slept, d) }
			bd := &batchDeleter{db: db, c: co, targets: deleteTargets{docs: 2}, yield: tc.yield,
				recheck: func(*catalog.Coll, bson.D) bool { return true }}
			n, err := bd.run(context.Background(), []uint64{1, 2, 3, 4, 5, 6}, nil)
			if err != nil || n != 6 {
				t.Fatalf("deleted %d, err %v", n, err)
			}
			if batch != 3 || len(slept) != tc.sleeps {
				t.Fatalf("%d batches, %d pauses; want 3 and %d", batch, len(slept), tc.sleeps)
			}
			for _, d := range slept {
				if d <= 0 {
					t.Fatalf("pause of %v", d)
				}
			}
		})
	}
}

// A stream of catalog changes landing between every staging and its
// commit cannot starve a delete: after a few stale attempts the batch
// stages under c.wmu, which collMod takes too. (TestTTLRace failed now
// and then with "the catalog kept changing under it" from DeleteOne.)
func TestBatchNotStarvedByCatalogChanges(t *testing.T) {
	t.Parallel()
	db, clk, _ := openTest(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
	for i := 1; i <= 5; i++ {
		insertDocs(t, db, "c", bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(now.Add(-time.Hour))}})
	}
	co := db.lookup("test", "c")
	ixID := co.m().Index("t_1").ID
	bd := &batchDeleter{db: db, c: co, recheck: func(m *catalog.Coll, d bson.D) bool {
		ix := indexByID(m, ixID)
		return ix != nil && expiredUnder(ix, d, cutoffFor(db.now(), ix.Expire))
	}}
	changes, blocked := 0, 0
	bd.beforeCommit = func() {
		// Change the catalog entry before every commit the lock allows:
		// while the batch holds c.wmu, collMod cannot run (it would wait).
		if !co.wmu.TryLock() {
			blocked++
			return
		}
		co.wmu.Unlock()
		changes++
		mustRun(t, db, "test", fmt.Sprintf(`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": %d}}`, 10+changes%2))
	}
	n, err := bd.run(context.Background(), []uint64{1, 2, 3, 4, 5}, nil)
	if err != nil || n != 5 {
		t.Fatalf("delete under a stream of collMods: %d deleted, %v; want 5", n, err)
	}
	if changes < staleAttemptsUnlocked || blocked == 0 {
		t.Fatalf("%d catalog changes, %d commits under the lock: want the batch to go stale %d times, then stage under the lock",
			changes, blocked, staleAttemptsUnlocked)
	}
	if c := count(t, db, "test", "c"); c != 0 {
		t.Fatalf("%d documents left", c)
	}
	mustValidate(t, db, "test", "c")
}
