package engine

import (
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// SetTTLTraceForTesting sees every visit of a TTL index with what it
// found and did: here one visit of documents 1.6 intervals behind
// (backlog level 2, docs/batched-deletes.md §4.4), which deletes them all.
func TestTTLTraceSeesEachVisit(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []TTLVisitTrace
	db, clk, _ := openTestWith(t, func(o *Options) {
		SetTTLTraceForTesting(o, func(v TTLVisitTrace) {
			mu.Lock()
			got = append(got, v)
			mu.Unlock()
		})
	})
	if _, err := db.SetParameter("ttlMonitorSleepSecs", 1); err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 0}]}`)
	const n = 100
	docs := make([]bson.D, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(clk.Now().Add(-1600 * time.Millisecond))}}
	}
	insertChunked(t, db, "c", docs)
	if r := pass(t, db); r.Deleted != n {
		t.Fatalf("pass deleted %d, want %d", r.Deleted, n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("%d visits traced, want 1: %+v", len(got), got)
	}
	v := got[0]
	if v.Index != "t_1" || v.Deleted != n || v.More || v.Level != 2 || !v.Backlog ||
		v.Lag != 1600*time.Millisecond || v.End.Before(v.Start) || v.Paused < 0 {
		t.Fatalf("trace %+v: want index t_1, %d deleted, not more, level 2 by its backlog, lag 1.6s", v, n)
	}
}
