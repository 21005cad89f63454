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

// layoutFixture writes, with the current engine, a store holding every
// kind of record and index entry key: an ordinary collection with a TTL
// index and a multikey index, one clustered by _id with a TTL index, a
// time-series collection (its buckets and delta entries) and a capped
// collection with a secondary index. Half of c's and cl's documents are
// expired at the fixture's clock.
func layoutFixture(t *testing.T, n int) (dir string, clk *fakeClock) {
	t.Helper()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"create": "cl", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
	for _, c := range []string{"c", "cl"} {
		mustRun(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}, {"key": {"k": 1}, "name": "k_1"}]}`, c))
	}
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	mustRun(t, db, "test", `{"create": "cap", "capped": true, "size": 1000000}`)
	mustRun(t, db, "test", `{"createIndexes": "cap", "indexes": [{"key": {"k": 1}, "name": "k_1"}]}`)
	now := clk.Now()
	docs := make([]bson.D, n)
	for i := range docs {
		at := now.Add(-time.Hour)
		if i%2 == 1 {
			at = now
		}
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: dt(at)}, {Key: "k", Value: bson.A{int32(i % 7), int32(i % 11)}}, {Key: "m", Value: int32(i % 3)}}
	}
	for _, c := range []string{"c", "cl", "ts", "cap"} {
		insertChunked(t, db, c, docs)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, clk
}

// downgradeToV1 rewrites the store in dir into key layout 1, as a ttlkv
// from before the compact layout would have left it: every record and
// index entry key in its fixed-width form, no layout mark.
func downgradeToV1(t *testing.T, dir string) {
	t.Helper()
	st, err := lsm.Open(dir, lsm.Options{MemoryBudget: lsm.MinMemoryBudget})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	type kv struct{ old, new, val []byte }
	var all []kv
	for _, tag := range []byte{lsm.TagRecord, lsm.TagIndex} {
		err := st.Scan(lsm.IterOptions{Prefix: []byte{tag}}, func(k, v []byte) error {
			e := kv{new: append([]byte(nil), k...), val: append([]byte(nil), v...)}
			if c, r, ok := lsm.DecodeRecordKey(k); ok {
				e.old = lsm.RecordKeyV1(c, r)
			} else if c, ix, rest, ok := lsm.IndexKeyIDs(k); ok && ix == tsDeltaIndexID {
				e.old = append(lsm.IndexPrefixV1(c, ix), rest...)
			} else if c, ix, ks, r, ok := lsm.DecodeIndexKey(k); ok {
				e.old = lsm.IndexKeyV1(c, ix, ks, r)
			} else {
				return fmt.Errorf("key %x is neither", k)
			}
			all = append(all, e)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	b := st.NewBatch()
	for _, e := range all {
		if err := b.Set(e.old, e.val); err != nil {
			t.Fatal(err)
		}
		if err := b.Delete(e.new); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Delete(lsm.MetaKey("keyLayout")); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if up, err := st.CheckKeyLayout(); err != nil || !up {
		t.Fatalf("downgraded store: CheckKeyLayout = %v, %v", up, err)
	}
}

// checkLayoutFixture checks a reopened fixture of n documents: every
// document and index entry is found, validate is clean, no key of layout
// 1 is left, and a TTL pass expires exactly the expired half.
func checkLayoutFixture(t *testing.T, dir string, clk *fakeClock, n int) {
	t.Helper()
	db, err := Open(dir, Options{Clock: clk.Now, DisableTTLMonitor: true, MemoryBudget: lsm.MinMemoryBudget})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer db.Close()
	if up, err := db.store.CheckKeyLayout(); err != nil || up {
		t.Fatalf("after open: CheckKeyLayout = %v, %v", up, err)
	}
	ctx := context.Background()
	for _, c := range []string{"c", "cl", "cap"} {
		mustValidate(t, db, "test", c)
		coll := db.Database("test").Collection(c)
		if got := count(t, db, "test", c); got != int64(n) {
			t.Fatalf("%s: %d documents, want %d", c, got, n)
		}
		// Through the _id index and through k_1 (hinted).
		for _, id := range []int32{0, int32(n / 2), int32(n - 1)} {
			if got, err := coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: id}}); err != nil || got != 1 {
				t.Fatalf("%s: _id %d found %d times, %v", c, id, got, err)
			}
		}
		docs := cfind(t, coll, bson.D{{Key: "k", Value: int32(3)}}, &FindOptions{Hint: "k_1"})
		want := 0
		for i := range n {
			if i%7 == 3 || i%11 == 3 {
				want++
			}
		}
		if len(docs) != want {
			t.Fatalf("%s: k 3 through k_1 found %d documents, want %d", c, len(docs), want)
		}
	}
	if got := count(t, db, "test", "ts"); got != int64(n) {
		t.Fatalf("ts: %d measurements, want %d", got, n)
	}
	mustValidate(t, db, "test", "system.buckets.ts")
	r := pass(t, db)
	if r.Deleted != int64(n) {
		t.Fatalf("the TTL pass deleted %d, want %d (half of c and of cl)", r.Deleted, n)
	}
	for _, c := range []string{"c", "cl"} {
		if got := count(t, db, "test", c); got != int64(n/2) {
			t.Fatalf("%s: %d documents after the pass, want %d", c, got, n/2)
		}
		mustValidate(t, db, "test", c)
	}
	// New writes land in the current layout beside the rewritten keys.
	insertDocs(t, db, "c", bson.D{{Key: "_id", Value: int32(n)}, {Key: "t", Value: dt(clk.Now())}})
	mustValidate(t, db, "test", "c")
}

// A store an older ttlkv wrote (key layout 1) is rewritten into the
// compact layout when first opened read-write, and then works; read-only,
// it is refused with ErrKeyLayout rather than read as empty.
func TestOpenKeyLayout1Store(t *testing.T) {
	t.Parallel()
	const n = 300
	dir, clk := layoutFixture(t, n)
	downgradeToV1(t, dir)
	_, err := Open(dir, Options{Clock: clk.Now, DisableTTLMonitor: true, MemoryBudget: lsm.MinMemoryBudget, Role: RoleReadOnly})
	if !errors.Is(err, lsm.ErrKeyLayout) {
		t.Fatalf("read-only open of a layout-1 store: err = %v, want ErrKeyLayout", err)
	}
	checkLayoutFixture(t, dir, clk, n)
}

const layoutCrashEnv = "TTLKV_LAYOUT_CRASH_CHILD"

// TestKeyLayoutCrashChild is not a test of its own: TestKeyLayoutKilled
// runs the test binary again with layoutCrashEnv set ("dir|k"), and this
// function opens that directory, killing itself with SIGKILL at the k-th
// FailpointKeyLayout of the key rewrite.
func TestKeyLayoutCrashChild(t *testing.T) {
	spec := os.Getenv(layoutCrashEnv)
	if spec == "" {
		t.Skip("runs only as the child of TestKeyLayoutKilled")
	}
	parts := strings.Split(spec, "|")
	k, _ := strconv.Atoi(parts[1])
	opts := Options{DisableTTLMonitor: true, MemoryBudget: lsm.MinMemoryBudget}
	seen := 0
	SetFailpointForTesting(&opts, func(name string) {
		if name != FailpointKeyLayout {
			return
		}
		if seen++; seen == k {
			fmt.Println("kill")
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				p.Kill() // SIGKILL: no deferred function runs
			}
			select {}
		}
	})
	db, err := Open(parts[0], opts)
	if err != nil {
		fmt.Printf("open: %v\n", err)
		os.Exit(3)
	}
	fmt.Println("done")
	db.Close()
	os.Exit(0)
}

// TestKeyLayoutKilled kills a process with SIGKILL in the middle of the
// rewrite of a layout-1 store (after a random number of committed
// chunks), then reopens: the rewrite resumes and nothing is lost.
func TestKeyLayoutKilled(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	r := rand.New(rand.NewSource(testSeed(t)))
	// 1200 documents: about 11,000 keys, over 20 chunks; the kill comes
	// after 1 to 15 of them. Under the race detector (one goroutine
	// rewrites, the child is killed): 600 documents, about 10 chunks, a
	// kill after 1 to 8, so the rewrite still resumes from a middle chunk.
	n, kills := 1200, 15
	if raceOn {
		n, kills = 600, 8
	}
	dir, clk := layoutFixture(t, n)
	downgradeToV1(t, dir)
	k := 1 + r.Intn(kills)
	cmd, sc := startCrashChild(t, "TestKeyLayoutCrashChild", layoutCrashEnv+"="+dir+"|"+strconv.Itoa(k))
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err := cmd.Wait()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if err == nil || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed at chunk %d (err %v); output:\n%s", k, err, strings.Join(lines, "\n"))
	}
	checkLayoutFixture(t, dir, clk, n)
}
