package engine

import (
	"fmt"
	"os"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// entry is the value of key k of d, which may contain dots.
func entry(d bson.D, k string) bson.D {
	for _, e := range d {
		if e.Key == k {
			v, _ := e.Value.(bson.D)
			return v
		}
	}
	return nil
}

// TestTopAndLatencyStats checks the counters mongotop and $collStats'
// latencyStats read: each command on a collection counted under its
// kind, reads and writes apart; another collection's commands kept
// apart; a dropped collection's counters gone; top on another database
// than admin refused (13).
func TestTopAndLatencyStats(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "app", `{"insert": "c", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}]}`)
	mustRun(t, db, "app", `{"insert": "c", "documents": [{"_id": 4}]}`)
	r := mustRun(t, db, "app", `{"find": "c", "batchSize": 1}`)
	mustRun(t, db, "app", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "c"}`, field(r, "cursor.id").(int64)))
	mustRun(t, db, "app", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 1}}}]}`)
	mustRun(t, db, "app", `{"delete": "c", "deletes": [{"q": {"_id": 2}, "limit": 1}]}`)
	mustRun(t, db, "app", `{"count": "c"}`)
	mustRun(t, db, "app", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	mustRun(t, db, "app", `{"insert": "other", "documents": [{}]}`)

	totals := field(mustRun(t, db, "admin", `{"top": 1}`), "totals").(bson.D)
	c := entry(totals, "app.c")
	if field(totals, "note") != "all times in microseconds" || c == nil || entry(totals, "app.other") == nil {
		t.Fatalf("top: %s", document.Format(totals))
	}
	counts := map[string]int64{"total": 8, "readLock": 3, "writeLock": 5, "queries": 1, "getmore": 1,
		"insert": 2, "update": 1, "remove": 1, "commands": 2}
	for k, want := range counts {
		if got := field(c, k+".count"); got != want {
			t.Errorf("top's %s.count = %v, want %d (%s)", k, got, want, document.Format(c))
		}
		if tm, _ := field(c, k+".time").(int64); tm < 0 {
			t.Errorf("top's %s.time = %d", k, tm)
		}
	}
	lat := field(mustRun(t, db, "app", `{"aggregate": "c", "pipeline": [{"$collStats": {"latencyStats": {}}}], "cursor": {}}`), "cursor.firstBatch.0.latencyStats").(bson.D)
	// The aggregate itself is counted when it ends, after its stage read
	// the counters.
	if field(lat, "reads.ops") != int64(3) || field(lat, "writes.ops") != int64(4) || field(lat, "commands.ops") != int64(1) {
		t.Fatalf("latencyStats: %s", document.Format(lat))
	}
	mustRun(t, db, "app", `{"drop": "c"}`)
	if totals := field(mustRun(t, db, "admin", `{"top": 1}`), "totals").(bson.D); entry(totals, "app.c") != nil {
		t.Fatalf("a dropped collection in top: %s", document.Format(totals))
	}
	wantCode(t, db, "app", `{"top": 1}`, document.CodeUnauthorized, "")
}

// TestServerStatusProcess checks the parts of serverStatus mongostat
// reads besides the counters: pid, uptime, mem (resident and virtual
// MiB, from /proc) and globalLock's queues.
func TestServerStatusProcess(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	s := mustRun(t, db, "admin", `{"serverStatus": 1}`)
	if field(s, "pid") != int64(os.Getpid()) || field(s, "uptime").(float64) < 0 || field(s, "uptimeMillis").(int64) < 0 {
		t.Fatalf("pid and uptime: %s", document.Format(s))
	}
	if _, err := os.Stat("/proc/self/status"); err == nil {
		if field(s, "mem.supported") != true || field(s, "mem.resident").(int32) <= 0 || field(s, "mem.virtual").(int32) < field(s, "mem.resident").(int32) {
			t.Fatalf("mem: %s", document.Format(field(s, "mem")))
		}
	}
	if field(s, "globalLock.currentQueue.readers") != int32(0) || field(s, "globalLock.activeClients.writers") != int32(0) {
		t.Fatalf("globalLock: %s", document.Format(field(s, "globalLock")))
	}
}

// TestIndexStats checks $indexStats: one document per index, {name,
// key, host, accesses: {ops, since}, spec}, ops counting the plans that
// chose the index (finds, counts, updates, deletes), a collection scan
// counted in $collStats' queryExecStats instead; a re-created index
// starts again at zero; the stage's refusals.
func TestIndexStats(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "app", `{"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2}]}`)
	mustRun(t, db, "app", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	mustRun(t, db, "app", `{"find": "c", "filter": {"a": 1}}`)
	mustRun(t, db, "app", `{"count": "c", "query": {"a": {"$gt": 0}}}`)
	mustRun(t, db, "app", `{"update": "c", "updates": [{"q": {"a": 2}, "u": {"$set": {"b": 1}}}]}`)
	mustRun(t, db, "app", `{"find": "c", "filter": {"_id": 1}}`)
	mustRun(t, db, "app", `{"find": "c", "filter": {"b": 1}}`)
	mustRun(t, db, "app", `{"delete": "c", "deletes": [{"q": {"zz": 1}, "limit": 0}]}`)
	stats := func() map[string]bson.D {
		t.Helper()
		r := mustRun(t, db, "app", `{"aggregate": "c", "pipeline": [{"$indexStats": {}}, {"$sort": {"name": 1}}], "cursor": {}}`)
		out := map[string]bson.D{}
		for _, d := range field(r, "cursor.firstBatch").(bson.A) {
			out[field(d.(bson.D), "name").(string)] = d.(bson.D)
		}
		return out
	}
	s := stats()
	if len(s) != 2 || field(s["a_1"], "accesses.ops") != int64(3) || field(s["_id_"], "accesses.ops") != int64(1) ||
		document.Format(field(s["a_1"], "key")) != `{ a: 1 }` || field(s["a_1"], "spec.name") != "a_1" || field(s["a_1"], "host") != hostName() {
		t.Fatalf("$indexStats: %v", s)
	}
	if _, ok := field(s["a_1"], "accesses.since").(bson.DateTime); !ok {
		t.Fatalf("accesses.since: %v", s["a_1"])
	}
	q := mustRun(t, db, "app", `{"aggregate": "c", "pipeline": [{"$collStats": {"queryExecStats": {}}}], "cursor": {}}`)
	if field(q, "cursor.firstBatch.0.queryExecStats.collectionScans.total") != int64(2) ||
		field(q, "cursor.firstBatch.0.queryExecStats.collectionScans.nonTailable") != int64(2) {
		t.Fatalf("queryExecStats: %v", q)
	}
	mustRun(t, db, "app", `{"dropIndexes": "c", "index": "a_1"}`)
	mustRun(t, db, "app", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	if s := stats(); field(s["a_1"], "accesses.ops") != int64(0) {
		t.Fatalf("a re-created index: %v", s["a_1"])
	}
	wantCode(t, db, "app", `{"aggregate": "c", "pipeline": [{"$indexStats": {"x": 1}}], "cursor": {}}`, 28803, "")
	wantCode(t, db, "app", `{"aggregate": "c", "pipeline": [{"$match": {}}, {"$indexStats": {}}], "cursor": {}}`, 40602, "")
	if r := mustRun(t, db, "app", `{"aggregate": "none", "pipeline": [{"$indexStats": {}}], "cursor": {}}`); len(field(r, "cursor.firstBatch").(bson.A)) != 0 {
		t.Fatalf("$indexStats of a missing collection: %v", r)
	}
}
