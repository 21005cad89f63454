package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// crashFixture is a data directory with one TTL index over n documents:
// ids below expired are dated an hour ago, the others are live.
type crashFixture struct {
	dir          string
	clk          *fakeClock
	n, expired   int
	ttlSeconds   int64
	targetDocs   int
	batchDocs    int
	clockUnixMs  int64
	childCommand string
}

// insertChunked inserts docs in InsertMany calls of at most 200
// (one large InsertMany is slow: see the report on writeCtx.hasKey).
func insertChunked(t *testing.T, db *DB, coll string, docs []bson.D) {
	t.Helper()
	for len(docs) > 0 {
		n := min(len(docs), 200)
		insertDocs(t, db, coll, docs[:n]...)
		docs = docs[n:]
	}
}

func newCrashFixture(t *testing.T, n, expired int) *crashFixture {
	return newCrashFixtureIn(t, n, expired, false)
}

// newCrashFixtureIn is newCrashFixture; clustered creates test.c
// clustered by _id (clustered.go).
func newCrashFixtureIn(t *testing.T, n, expired int, clustered bool) *crashFixture {
	t.Helper()
	db, clk, dir := openTest(t)
	if clustered {
		mustRun(t, db, "test", `{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
	}
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}, {"key": {"k": 1}, "name": "k_1"}]}`)
	now := clk.Now()
	docs := make([]bson.D, n)
	for i := range docs {
		at := now.Add(-time.Hour + time.Duration(i)*time.Millisecond)
		if i >= expired {
			at = now.Add(time.Duration(i) * time.Millisecond)
		}
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: dt(at)}, {Key: "k", Value: bson.A{int32(i % 7), int32(i % 11)}}}
	}
	insertChunked(t, db, "c", docs)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return &crashFixture{dir: dir, clk: clk, n: n, expired: expired, ttlSeconds: 60, targetDocs: 50, batchDocs: 7,
		clockUnixMs: now.UnixMilli()}
}

// checkAfterCrash reopens the directory, validates it (no index entry
// without its document or the reverse), checks that no live document
// was lost and that between lo and hi documents are left, then runs a
// pass that must finish the job.
func (f *crashFixture) checkAfterCrash(t *testing.T, lo, hi int) {
	t.Helper()
	db, err := Open(f.dir, Options{Clock: f.clk.Now, DisableTTLMonitor: true, MemoryBudget: lsm.MinMemoryBudget})
	if err != nil {
		t.Fatalf("reopen after the crash: %v", err)
	}
	defer db.Close()
	mustValidate(t, db, "test", "c")
	left := count(t, db, "test", "c")
	t.Logf("after the crash %d of %d documents left (%d live)", left, f.n, f.n-f.expired)
	if left < int64(lo) || left > int64(hi) {
		t.Fatalf("after the crash %d documents left, want %d..%d", left, lo, hi)
	}
	if live, err := db.Database("test").Collection("c").CountDocuments(context.Background(),
		bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: int32(f.expired)}}}}); err != nil || live != int64(f.n-f.expired) {
		t.Fatalf("live documents after the crash: %d, %v; want %d", live, err, f.n-f.expired)
	}
	r := pass(t, db)
	if r.Deleted != left-int64(f.n-f.expired) {
		t.Fatalf("the pass after the crash deleted %d, want %d", r.Deleted, left-int64(f.n-f.expired))
	}
	if c := count(t, db, "test", "c"); c != int64(f.n-f.expired) {
		t.Fatalf("%d documents after the finishing pass, want %d", c, f.n-f.expired)
	}
	mustValidate(t, db, "test", "c")
}

// A pass cancelled mid-visit (after a chunk was read, between its
// batches) leaves a consistent collection; after a reopen the next pass
// finishes the job.
func TestTTLPassCancelledMidVisit(t *testing.T) {
	t.Parallel()
	f := newCrashFixture(t, 600, 400)
	db, err := Open(f.dir, Options{Clock: f.clk.Now, DisableTTLMonitor: true, MemoryBudget: lsm.MinMemoryBudget})
	if err != nil {
		t.Fatal(err)
	}
	db.SetParameter("ttlIndexDeleteTargetDocs", f.targetDocs)
	db.SetParameter("batchedDeletesTargetBatchDocs", f.batchDocs)
	ctx, cancel := context.WithCancel(context.Background())
	chunks := 0
	db.opts.seams.scanHook = func() {
		if chunks++; chunks == 3 {
			cancel()
		}
	}
	res, err := db.RunTTLPass(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled pass returned %v", err)
	}
	if s := db.Stats(); s.TTLPasses != 0 || s.TTLDeletedDocuments != int64(2*f.targetDocs) {
		t.Fatalf("cancelled pass: %d passes, %d deleted; want 0, %d", s.TTLPasses, s.TTLDeletedDocuments, 2*f.targetDocs)
	}
	// What it deleted is reported and counts toward reclamation.
	since := db.mon.SinceReclaim()
	if res.Deleted != int64(2*f.targetDocs) || since != res.Deleted {
		t.Fatalf("cancelled pass reported %d deleted and added %d to the reclamation count; want %d and %d",
			res.Deleted, since, 2*f.targetDocs, 2*f.targetDocs)
	}
	if len(res.Indexes) != 1 || res.Indexes[0].Deleted != res.Deleted || res.Indexes[0].Namespace != "test.c" {
		t.Fatalf("cancelled pass's per-index results %+v, want one for test.c with %d", res.Indexes, res.Deleted)
	}
	if len(db.CurrentOp()) != 0 {
		t.Fatalf("a cancelled visit is still in currentOp: %v", db.CurrentOp())
	}
	mustValidate(t, db, "test", "c")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	f.checkAfterCrash(t, f.n-2*f.targetDocs, f.n-2*f.targetDocs)
}

// crashChildEnv names the data directory a crash child reaps in;
// crashFailpointEnv the failpoint at which it kills itself, if any.
const (
	crashChildEnv     = "TTLKV_TTL_CRASH_CHILD"
	crashFailpointEnv = "TTLKV_TTL_CRASH_FAILPOINT"
)

// TestTTLCrashChild is not a test of its own: TestTTLKilledMidReap
// runs the test binary again with crashChildEnv set, and this function
// then reaps in that directory, printing a line per visit, until it is
// killed (or finishes).
func TestTTLCrashChild(t *testing.T) {
	spec := os.Getenv(crashChildEnv)
	if spec == "" {
		t.Skip("runs only as the child of TestTTLKilledMidReap")
	}
	parts := strings.Split(spec, "|")
	ms, _ := strconv.ParseInt(parts[1], 10, 64)
	target, _ := strconv.Atoi(parts[2])
	batch, _ := strconv.Atoi(parts[3])
	now := time.UnixMilli(ms)
	opts := Options{Clock: func() time.Time { return now }, DisableTTLMonitor: true, MemoryBudget: lsm.MinMemoryBudget,
		Params: map[string]any{"ttlIndexDeleteTargetDocs": target, "batchedDeletesTargetBatchDocs": batch,
			"batchedDeletesTargetBatchTimeMS": 0, "ttlMonitorSubPassTargetSecs": 0}}
	if fp := os.Getenv(crashFailpointEnv); fp != "" {
		SetFailpointForTesting(&opts, func(name string) {
			if name == fp {
				if p, err := os.FindProcess(os.Getpid()); err == nil {
					p.Kill() // SIGKILL: no deferred function runs
				}
				select {}
			}
		})
	}
	db, err := Open(parts[0], opts)
	if err != nil {
		fmt.Printf("open: %v\n", err)
		os.Exit(3)
	}
	db.opts.seams.visitHook = func(index string, deleted int64, more bool) {
		fmt.Printf("visit %s %d\n", index, deleted)
	}
	fmt.Println("ready")
	if _, err := db.RunTTLPass(context.Background()); err != nil {
		fmt.Printf("pass: %v\n", err)
		os.Exit(3)
	}
	fmt.Println("done")
	db.Close()
	os.Exit(0)
}

// TestTTLKilledMidReap kills a process with SIGKILL in the middle of a
// TTL pass (after a random number of visits, or at the engine's reap
// failpoints right before or after a batch commits), then reopens the
// directory: validate is clean, every live document is there, and the
// next pass deletes exactly what is left expired.
func TestTTLKilledMidReap(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	seed := testSeed(t)
	r := rand.New(rand.NewSource(seed))
	cases := []struct {
		name      string
		failpoint string
		killAfter int // visits printed before the parent kills
	}{
		{name: "kill-after-visits", killAfter: 1 + r.Intn(4)},
		{name: "failpoint-before-commit", failpoint: FailpointReapBeforeCommit},
		{name: "failpoint-after-commit", failpoint: FailpointReapAfterCommit},
	}
	for i, c := range cases {
		// Each case also on a collection clustered by _id (records in
		// their _id entries), in turns so that the run stays short.
		clustered := i%2 == int(seed&1)
		if clustered {
			c.name += "-clustered"
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newCrashFixtureIn(t, 1200, 900, clustered)
			env := []string{crashChildEnv + "=" + strings.Join([]string{f.dir, strconv.FormatInt(f.clockUnixMs, 10),
				strconv.Itoa(f.targetDocs), strconv.Itoa(f.batchDocs)}, "|")}
			if c.failpoint != "" {
				env = append(env, crashFailpointEnv+"="+c.failpoint)
			}
			cmd, sc := startCrashChild(t, "TestTTLCrashChild", env...)
			visits := 0
			var lines []string
			for sc.Scan() {
				line := sc.Text()
				lines = append(lines, line)
				if strings.HasPrefix(line, "visit ") {
					visits++
					if c.killAfter > 0 && visits == c.killAfter {
						cmd.Process.Signal(syscall.SIGKILL)
					}
				}
			}
			err := cmd.Wait()
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if err == nil || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("child was not killed (err %v); output:\n%s", err, strings.Join(lines, "\n"))
			}
			live := f.n - f.expired
			switch c.failpoint {
			case FailpointReapBeforeCommit: // the first batch never committed
				f.checkAfterCrash(t, f.n, f.n)
			case FailpointReapAfterCommit: // exactly the first batch committed
				f.checkAfterCrash(t, f.n-f.batchDocs, f.n-f.batchDocs)
			default:
				// At least the printed visits' documents are gone; the kill
				// lands long before the reap can finish 900 documents.
				f.checkAfterCrash(t, live, f.n-c.killAfter*f.targetDocs)
			}
		})
	}
}

// Space reclamation: a pass that deletes at least reclaimAfter
// documents starts lsm reclamation in the background, one that does not
// flush the memtables (which would pause writers). The deletes it left
// in them are reclaimed by a full reclamation once a pass finds the
// store quiet (nothing deleted, no commit since the last pass), and then
// the data directory has shrunk. A smaller pass starts none, and a pass
// after writes is not quiet. (500 documents and reclaimAfter 250 keep
// the shares of 2,000 and 1,000 with a quarter of the writes.)
func TestReapReclaimsSpace(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 2400}]}`)
	now := clk.Now()
	r := rand.New(rand.NewSource(1))
	const n = 500
	docs := make([]bson.D, n)
	for i := range docs {
		at := now.Add(-30 * time.Minute) // expires 10 minutes from now
		switch {
		case i < 10:
			at = now.Add(-time.Hour) // expired now
		case i >= 460:
			at = now.Add(time.Hour) // live throughout
		}
		pad := make([]byte, 1500) // incompressible, in the tree (< ValueThreshold)
		r.Read(pad)
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: dt(at)}, {Key: "pad", Value: bson.Binary{Data: pad}}}
	}
	insertChunked(t, db, "c", docs)
	if err := db.store.Reclaim(context.Background()); err != nil { // settle: the documents in tables
		t.Fatal(err)
	}
	lsm0, vlog0 := db.store.DiskUsage()
	sst0 := sstBytes(t, dir)
	db.mon.SetReclaimAfter(250)
	waitReclaim := db.mon.WaitReclaim
	if r := pass(t, db); r.Deleted != 10 {
		t.Fatalf("first pass deleted %d, want 10", r.Deleted)
	}
	waitReclaim()
	if got := db.mon.Reclaims(); got != 0 {
		t.Fatalf("a 10-document pass started %d reclamations", got)
	}
	clk.Advance(15 * time.Minute)
	if db.Stats().Reclaiming {
		t.Fatal("Stats.Reclaiming before any reclamation started")
	}
	release := make(chan struct{})
	db.opts.seams.reclaimHook = func() { <-release }
	if r := pass(t, db); r.Deleted != 450 {
		t.Fatalf("second pass deleted %d, want 450", r.Deleted)
	}
	if !db.Stats().Reclaiming {
		t.Fatal("Stats.Reclaiming is false while the reclamation the pass started runs")
	}
	close(release)
	waitReclaim()
	db.opts.seams.reclaimHook = nil
	if db.Stats().Reclaiming {
		t.Fatal("Stats.Reclaiming after the reclamation finished")
	}
	if got := db.Stats().Reclamations; got != 1 {
		t.Fatalf("a 450-document pass finished %d reclamations, want 1", got)
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": -1, "t": "never expires"}]}`)
	if r := pass(t, db); r.Deleted != 0 {
		t.Fatalf("third pass deleted %d, want 0", r.Deleted)
	}
	waitReclaim()
	if got := db.Stats().Reclamations; got != 1 {
		t.Fatalf("a pass after an insert finished a reclamation (%d, want 1): the store was not quiet", got)
	}
	pass(t, db)
	waitReclaim()
	if got := db.Stats().Reclamations; got != 2 {
		t.Fatalf("a quiet pass finished %d reclamations in all, want 2", got)
	}
	pass(t, db)
	waitReclaim()
	if got := db.Stats().Reclamations; got != 2 {
		t.Fatalf("a second quiet pass started another reclamation (%d in all, want 2)", got)
	}
	lsm1, vlog1 := db.store.DiskUsage()
	sst1 := sstBytes(t, dir)
	t.Logf("disk use %d+%d -> %d+%d bytes; tables %d -> %d", lsm0, vlog0, lsm1, vlog1, sst0, sst1)
	if lsm1+vlog1 >= lsm0+vlog0 || sst1 > sst0/3 {
		t.Fatalf("reaping 90%% did not give the space back: %d+%d -> %d+%d bytes, tables %d -> %d", lsm0, vlog0, lsm1, vlog1, sst0, sst1)
	}
	if c := count(t, db, "test", "c"); c != 41 {
		t.Fatalf("%d documents left, want 41", c)
	}
	mustValidate(t, db, "test", "c")
}

// A pass that deletes reclaimAfter documents or more starts no
// reclamation while what the passes since the last one deleted is a
// small share of the store (under 1/reclaimStoreShare of its tables):
// reclamation rewrites the whole store, and a steady expiry rate must
// not make it do so every minute. Once the deletes add up to that share,
// a pass starts one. (500 documents and reclaimAfter 25 keep the shares
// and the counts of 2,000 and 100 at a quarter of the writes.)
func TestReclaimWaitsForAShareOfTheStore(t *testing.T) {
	t.Parallel()
	db, clk, _ := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 0}]}`)
	now := clk.Now()
	r := rand.New(rand.NewSource(2))
	const n = 500
	docs := make([]bson.D, n)
	for i := range docs {
		pad := make([]byte, 1500) // incompressible, in the tree
		r.Read(pad)
		// Document i expires i seconds from now.
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: dt(now.Add(time.Duration(i) * time.Second))}, {Key: "pad", Value: bson.Binary{Data: pad}}}
	}
	insertChunked(t, db, "c", docs)
	if err := db.store.Reclaim(context.Background()); err != nil { // settle: the documents in tables
		t.Fatal(err)
	}
	tables := db.store.TableBytes()
	db.mon.SetReclaimAfter(25)
	waitReclaim := db.mon.WaitReclaim
	// 75 documents, 15% of the store: no reclamation.
	clk.Advance(74 * time.Second)
	if r := pass(t, db); r.Deleted != 75 {
		t.Fatalf("first pass deleted %d, want 75", r.Deleted)
	}
	waitReclaim()
	if got := db.Stats().Reclamations; got != 0 {
		t.Fatalf("a pass deleting 75 of %d documents (%d bytes of tables) started %d reclamations, want 0", n, tables, got)
	}
	// 275 more, 70% in all: one.
	clk.Advance(275 * time.Second)
	if r := pass(t, db); r.Deleted != 275 {
		t.Fatalf("second pass deleted %d, want 275", r.Deleted)
	}
	waitReclaim()
	if got := db.Stats().Reclamations; got != 1 {
		t.Fatalf("passes deleting 350 of %d documents finished %d reclamations, want 1", n, got)
	}
	if c := count(t, db, "test", "c"); c != n-350 {
		t.Fatalf("%d documents left, want %d", c, n-350)
	}
	mustValidate(t, db, "test", "c")
}

// sstBytes sums the sizes of the store's table files: the data itself,
// without the preallocated memtable and value-log files.
func sstBytes(t *testing.T, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".sst") {
			if fi, err := e.Info(); err == nil {
				n += fi.Size()
			}
		}
	}
	return n
}
