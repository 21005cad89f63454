package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/ttlmon"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Below the top catch-up level, a gentle sub-batch at level L holds
// gentleDocs<<L documents, and the pause after a contended batch is its
// time>>L. (At the top level the visit does not yield at all:
// TestCatchUpThroughTheMonitor.)
func TestCatchUpLevelLoosensGentleReaping(t *testing.T) {
	t.Parallel()
	for level := 0; level < maxCatchUp; level++ {
		t.Run(fmt.Sprint("level ", level), func(t *testing.T) {
			db, clk, _ := openTest(t)
			// The targets' clock stands still: a run stays gentle for
			// gentleFor after a contended commit however slow the
			// machine (-race, a loaded CI) makes its batches.
			setElapsed(db, 0)
			now := clk.Now()
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
			const n = 400
			docs := make([]bson.D, n)
			rids := make([]uint64, n)
			for i := range docs {
				docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(now.Add(-time.Hour))}}
				rids[i] = uint64(i + 1)
			}
			insertChunked(t, db, "c", docs)
			commits := 0
			bd := &batchDeleter{db: db, c: db.lookup("test", "c"), targets: deleteTargets{docs: 100}, yield: true, pipeline: true,
				recheck: func(*catalog.Coll, bson.D) bool { return true }, level: level}
			db.opts.seams.writerAt = func(*batchDeleter) bool { commits++; return true } // a writer at every commit
			db.opts.seams.pause = func(time.Duration) {}
			got, err := bd.run(context.Background(), rids, nil)
			if err != nil || got != n {
				t.Fatalf("deleted %d, err %v", got, err)
			}
			// The first batch (100, the docs target) finds the writer;
			// from then on the run is gentle.
			sub := min(gentleDocs<<level, 100)
			if want := 1 + (n-100+sub-1)/sub; commits != want {
				t.Fatalf("%d commits, want %d (sub-batches of %d)", commits, want, sub)
			}
			if took := 32 * time.Millisecond; bd.yieldFor(took) != took>>level {
				t.Fatalf("pause after a %v batch: %v, want %v", took, bd.yieldFor(took), took>>level)
			}
		})
	}
}

// Through the monitor: documents expiring faster than the reaper deletes
// them (ttlIndexDeleteTargetDocs 50 per visit, 100 more expiring per
// second of clock) make the index's lag grow, and its catch-up level
// climbs to the top, where the visits' delete runs do not yield; Stats
// and the log report it. Once the reaper has caught up (its visits
// finish their range) the level steps down one per window to 0, even
// with documents inserted long expired keeping the lag high. A one-off
// backlog that the reaper eats
// through faster than the clock moves does not climb.
func TestCatchUpThroughTheMonitor(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var logs []string
	clk := newClock()
	db, err := Open(t.TempDir(), Options{Clock: clk.Now, DisableTTLMonitor: true,
		Logf: func(f string, args ...any) { mu.Lock(); logs = append(logs, fmt.Sprintf(f, args...)); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 0}]}`)
	db.SetParameter("ttlMonitorSleepSecs", 1)
	db.SetParameter("ttlIndexDeleteTargetDocs", 50)
	key := ttlKey{Coll: db.lookup("test", "c").m().ID, Index: indexByID(db.lookup("test", "c").m(), 2).ID}
	level := func() int {
		if st, ok := db.mon.State(key); ok {
			return st.Level
		}
		return -1
	}
	if ix := indexByID(db.lookup("test", "c").m(), 2); ix == nil || ix.Name != "t_1" {
		t.Fatalf("index 2 is %v, want t_1", ix)
	}

	// A one-off backlog: 2,000 documents an hour old, 100 ms apart
	// (200 s of dates); each visit deletes 50 (5 s of dates) while the
	// clock moves 1 s.
	start := clk.Now().Add(-time.Hour)
	var docs []bson.D
	for i := 0; i < 2000; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(start.Add(time.Duration(i) * 100 * time.Millisecond))}})
	}
	insertChunked(t, db, "c", docs)
	maxLevel := 0
	db.opts.seams.visitHook = func(string, int64, bool) {
		maxLevel = max(maxLevel, level())
		clk.Advance(time.Second)
	}
	if r := pass(t, db); r.Deleted != 2000 {
		t.Fatalf("backlog pass deleted %d, want 2000", r.Deleted)
	}
	if maxLevel != 0 {
		t.Fatalf("a one-off backlog climbed to catch-up level %d", maxLevel)
	}

	// Expiry outpacing the reaper: after every visit the clock moves 1 s
	// and 100 documents expire in it.
	next := 10000
	expireIn := func(base time.Time) {
		var docs []bson.D
		for i := 0; i < 100; i++ {
			docs = append(docs, bson.D{{Key: "_id", Value: next}, {Key: "t", Value: dt(base.Add(time.Duration(i) * 10 * time.Millisecond))}})
			next++
		}
		insertChunked(t, db, "c", docs)
	}
	clk.Advance(time.Second)
	expireIn(clk.Now().Add(-time.Second))
	db.opts.seams.visitHook = func(_ string, _ int64, _ bool) {
		maxLevel = max(maxLevel, level())
		if next >= 10000+3000 {
			return // the writer stops; the reaper catches up
		}
		clk.Advance(time.Second)
		expireIn(clk.Now().Add(-time.Second))
	}
	// The visits' delete runs reap at the index's level, and yield to
	// writers below the top one only.
	maxRunLevel := 0
	db.opts.seams.writerAt = func(bd *batchDeleter) bool {
		maxRunLevel = max(maxRunLevel, bd.level)
		if bd.yield != (bd.level < maxCatchUp) {
			t.Errorf("a run at level %d has yield %v", bd.level, bd.yield)
		}
		return false
	}
	sawBehind := false
	db.opts.seams.visitStartHook = func() {
		if db.Stats().TTLIndexesBehind == 1 {
			sawBehind = true
		}
	}
	pass(t, db)
	if maxLevel != maxCatchUp {
		t.Fatalf("expiry outpacing the reaper climbed to level %d, want %d", maxLevel, maxCatchUp)
	}
	if maxRunLevel != maxCatchUp {
		t.Fatalf("the visits' delete runs reaped at level %d at most, want %d", maxRunLevel, maxCatchUp)
	}
	if !sawBehind {
		t.Fatalf("Stats never reported the index behind")
	}
	// The pass ended with everything reaped. From now on every visit
	// deletes all that has expired (it finishes its range), though each
	// finds documents that were inserted an hour past their expiry, so
	// the lag stays above the floor: the level steps down one per window.
	db.opts.seams.visitHook = nil
	for want := maxCatchUp - 1; want >= 0; want-- {
		clk.Advance(ttlmon.CatchUpWindow)
		expireIn(clk.Now().Add(-time.Hour))
		if r := pass(t, db); r.Deleted != 100 {
			t.Fatalf("pass deleted %d, want 100", r.Deleted)
		}
		if l := level(); l != want {
			t.Fatalf("caught up, level %d, want %d", l, want)
		}
	}
	if n := db.Stats().TTLIndexesBehind; n != 0 {
		t.Fatalf("Stats().TTLIndexesBehind = %d after catching up, want 0", n)
	}
	if n := count(t, db, "test", "c"); n != 0 {
		t.Fatalf("%d documents left", n)
	}
	mu.Lock()
	all := strings.Join(logs, "\n")
	mu.Unlock()
	for _, want := range []string{"test.c index t_1 is", "losing ground: reaping less gently", "reaping without yielding to writers", "test.c index t_1 has caught up"} {
		if !strings.Contains(all, want) {
			t.Fatalf("log lacks %q:\n%s", want, all)
		}
	}
}

// A visit reads its index's lag from the oldest expired date, for an
// ascending index (the range's first key) and a descending one (its
// last), past strings, numbers and dates not yet expired.
func TestCatchUpLagOfAscendingAndDescendingIndexes(t *testing.T) {
	t.Parallel()
	db, clk, _ := openTest(t)
	now := clk.Now()
	for _, ix := range []struct{ coll, key string }{{"asc", `{"t": 1}`}, {"desc", `{"t": -1}`}} {
		mustRun(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": [{"key": %s, "name": "t", "expireAfterSeconds": 10}]}`, ix.coll, ix.key))
		insertDocs(t, db, ix.coll,
			bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: dt(now.Add(-20 * time.Second))}},
			bson.D{{Key: "_id", Value: 2}, {Key: "t", Value: dt(now.Add(-100 * time.Second))}},
			bson.D{{Key: "_id", Value: 3}, {Key: "t", Value: dt(now.Add(-50 * time.Second))}},
			bson.D{{Key: "_id", Value: 4}, {Key: "t", Value: dt(now.Add(100 * time.Second))}},
			bson.D{{Key: "_id", Value: 5}, {Key: "t", Value: "not a date"}},
			bson.D{{Key: "_id", Value: 6}, {Key: "t", Value: int64(-1 << 40)}})
	}
	if r := pass(t, db); r.Deleted != 6 {
		t.Fatalf("pass deleted %d, want 6", r.Deleted)
	}
	for _, coll := range []string{"asc", "desc"} {
		m := db.lookup("test", coll).m()
		st, ok := db.mon.State(ttlKey{Coll: m.ID, Index: 2})
		if !ok || !st.HasLag || st.Lag != 90*time.Second {
			t.Fatalf("%s: the visit's lag is %+v, want 90s (cutoff now-10s, oldest date now-100s)", coll, st)
		}
	}
}

// Dropping a TTL index, its collection or its database forgets the
// monitor's state of the index (low-water mark and catch-up level), so
// a process that creates and drops TTL collections does not accumulate
// it.
func TestDropForgetsTTLState(t *testing.T) {
	t.Parallel()
	db, clk, _ := openTest(t)
	now := clk.Now()
	for _, ns := range []struct{ db, coll string }{{"test", "byindex"}, {"test", "bycoll"}, {"other", "bydb"}, {"test", "kept"}} {
		mustRun(t, db, ns.db, fmt.Sprintf(`{"createIndexes": %q, "indexes": [{"key": {"t": 1}, "name": "t", "expireAfterSeconds": 10}]}`, ns.coll))
		if _, err := db.Database(ns.db).Collection(ns.coll).InsertMany(context.Background(),
			[]any{bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: dt(now.Add(-time.Hour))}}}, true); err != nil {
			t.Fatal(err)
		}
	}
	pass(t, db)
	state := func() map[string]bool {
		out := map[string]bool{}
		for _, c := range db.collsOf("") {
			if _, ok := db.mon.State(ttlKey{Coll: c.m().ID, Index: 2}); ok {
				out[c.m().Name] = true
			}
		}
		return out
	}
	if got := fmt.Sprint(state()); got != "map[bycoll:true bydb:true byindex:true kept:true]" {
		t.Fatalf("after a pass the monitor keeps state of %s, want all four", got)
	}
	ids := map[string]uint64{}
	for _, c := range db.collsOf("") {
		ids[c.m().Name] = c.m().ID
	}
	mustRun(t, db, "test", `{"dropIndexes": "byindex", "index": "t"}`)
	mustRun(t, db, "test", `{"drop": "bycoll"}`)
	mustRun(t, db, "other", `{"dropDatabase": 1}`)
	left := db.mon.Tracked()
	_, kept := db.mon.State(ttlKey{Coll: ids["kept"], Index: 2})
	if left != 1 || !kept {
		t.Fatalf("after the drops the monitor keeps %d entries (kept's: %v), want only kept's", left, kept)
	}
}
