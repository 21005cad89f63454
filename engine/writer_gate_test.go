package engine

import (
	"runtime"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The gate has no channel while no insert is in flight, and closes the
// one it gave once the last insert in flight has ended.
func TestWriterGate(t *testing.T) {
	t.Parallel()
	var g writerGate
	if ch := g.idleChan(); ch != nil {
		t.Fatal("no insert in flight, but a channel to wait on")
	}
	g.enter()
	g.enter()
	ch := g.idleChan()
	if ch == nil {
		t.Fatal("two inserts in flight, but no channel to wait on")
	}
	if g.idleChan() != ch {
		t.Fatal("a second waiter got another channel")
	}
	g.leave()
	select {
	case <-ch:
		t.Fatal("closed while an insert is still in flight")
	default:
	}
	g.leave()
	select {
	case <-ch:
	default:
		t.Fatal("not closed once no insert is in flight")
	}
	if g.idleChan() != nil {
		t.Fatal("a channel after the inserts ended")
	}
	// A new insert gets a new channel.
	g.enter()
	if ch2 := g.idleChan(); ch2 == nil || ch2 == ch {
		t.Fatal("a new insert in flight without a fresh channel")
	}
	g.leave()
}

// awaitInserts returns as soon as the insert in flight ends, long before
// its limit; with none in flight, or no limit left, it does not wait.
func TestAwaitInsertsEndsWithTheInsert(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	setElapsed(db, 0)
	mustRun(t, db, "test", `{"create": "c"}`)
	c := db.lookup("test", "c")
	if _, ok := db.awaitInserts(c, time.Hour); ok {
		t.Fatal("waited with no insert in flight")
	}
	c.inserts.enter()
	if _, ok := db.awaitInserts(c, 0); ok {
		t.Fatal("waited with no limit")
	}
	// The insert ends once the wait has taken its channel: the wait
	// returns then, not after its hour.
	go func() {
		for {
			c.inserts.mu.Lock()
			taken := c.inserts.idle != nil
			c.inserts.mu.Unlock()
			if taken {
				break
			}
			runtime.Gosched()
		}
		c.inserts.leave()
	}()
	if _, ok := db.awaitInserts(c, time.Hour); !ok {
		t.Fatal("an insert was in flight, but the wait says it did not wait")
	}
}

// A TTL visit that finds an insert into its collection in flight waits
// for it first, for up to writerWaitCredit, before its scan; its batches
// wait again only as their work earns the credit back. At the top level
// (a backlog an hour old, the visit after the first) it does not wait,
// and with no insert in flight nothing waits. Every expired document is
// deleted whatever the waits.
func TestTTLWaitsForInsertsInFlight(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		age      time.Duration
		inFlight bool
		step     time.Duration // the targets' clock at each reading
		want     func(waits []time.Duration) bool
		says     string
	}{
		{"no insert in flight", time.Second, false, 0,
			func(w []time.Duration) bool { return len(w) == 0 }, "no wait"},
		{"standing clock", time.Second, true, 0,
			func(w []time.Duration) bool { return len(w) == 1 && w[0] == writerWaitCredit },
			"one wait of the whole credit at the visit's start, none after (no work earns it back)"},
		{"work earns the credit back", time.Second, true, time.Millisecond,
			func(w []time.Duration) bool {
				if len(w) < 2 || w[0] != writerWaitCredit {
					return false
				}
				for _, d := range w[1:] {
					if d <= 0 || d > writerWaitCredit {
						return false
					}
				}
				return true
			}, "the whole credit first, then waits within it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db, clk, _ := openTest(t)
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 0}]}`)
			const n = 2500
			docs := make([]bson.D, n)
			for i := range docs {
				docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(clk.Now().Add(-tc.age))}}
			}
			insertChunked(t, db, "c", docs)
			el := setElapsed(db, tc.step)
			var waits []time.Duration
			db.opts.seams.waitWriters = func(_ <-chan struct{}, limit time.Duration) {
				waits = append(waits, limit)
				el.mu.Lock()
				el.now = el.now.Add(limit) // the insert outlasted the wait
				el.mu.Unlock()
			}
			c := db.lookup("test", "c")
			if tc.inFlight {
				c.inserts.enter()
				defer c.inserts.leave()
			}
			if r := pass(t, db); r.Deleted != n {
				t.Fatalf("pass deleted %d, want %d", r.Deleted, n)
			}
			if !tc.want(waits) {
				t.Fatalf("waits %v; want %s", waits, tc.says)
			}
		})
	}
	t.Run("top level", func(t *testing.T) {
		t.Parallel()
		db, clk, _ := openTest(t)
		setElapsed(db, 0)
		mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 0}]}`)
		docs := make([]bson.D, 10)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(clk.Now().Add(-time.Hour))}}
		}
		insertChunked(t, db, "c", docs)
		pass(t, db) // sets the index's level: the top, an hour behind
		insertChunked(t, db, "c", []bson.D{{{Key: "_id", Value: 10}, {Key: "t", Value: dt(clk.Now().Add(-time.Hour))}}})
		waits := 0
		db.opts.seams.waitWriters = func(<-chan struct{}, time.Duration) { waits++ }
		c := db.lookup("test", "c")
		c.inserts.enter()
		defer c.inserts.leave()
		if r := pass(t, db); r.Deleted != 1 {
			t.Fatalf("pass deleted %d, want 1", r.Deleted)
		}
		if waits != 0 {
			t.Fatalf("waited %d times at the top level; want none", waits)
		}
	})
}

// An insert is in flight for the gate from its start to the end of its
// last commit, and only then.
func TestInsertIsInFlightWhileItRuns(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	c := db.lookup("test", "c")
	seen := -1
	db.opts.seams.insertSent = func() { seen = int(c.inserts.n.Load()) }
	insertDocs(t, db, "c", bson.D{{Key: "_id", Value: 1}})
	if seen != 1 {
		t.Fatalf("inserts in flight at the commit: %d, want 1", seen)
	}
	if n := c.inserts.n.Load(); n != 0 {
		t.Fatalf("inserts in flight after the insert: %d, want 0", n)
	}
}
