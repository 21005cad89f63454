package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
)

// commitCrashChildEnv holds the spec of a TestChangesCommitCrashChild
// run: data directory, failpoint, on which hit of it to die, and what to
// do, separated by "|".
const commitCrashChildEnv = "TTLKV_CHANGES_COMMIT_CRASH_CHILD"

// TestChangesCommitCrashChild is not a test of its own: the crash tests
// below run the test binary again with commitCrashChildEnv set, and this
// function then opens the directory with change streams on and either
// runs one command in database test ("cmd:<Extended JSON>") or sets v to
// 1 in documents _id 0..n-1 of capped collection test.k one update at a
// time ("update:<n>", printing "ack <id>" after each), or deletes them
// one at a time ("delete:<n>", the same), killing itself
// with SIGKILL at the chosen hit of the failpoint.
func TestChangesCommitCrashChild(t *testing.T) {
	spec := os.Getenv(commitCrashChildEnv)
	if spec == "" {
		t.Skip("runs only as the child of the change-log commit crash tests")
	}
	parts := strings.SplitN(spec, "|", 4)
	dir, target, what := parts[0], parts[1], parts[3]
	killAt, _ := strconv.Atoi(parts[2])
	o := Options{DisableTTLMonitor: true, ChangeStreams: true, MemoryBudget: lsm.MinMemoryBudget}
	hits := 0
	SetFailpointForTesting(&o, func(name string) {
		if name != target {
			return
		}
		if hits++; hits == killAt {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	})
	db, err := Open(dir, o)
	if err != nil {
		fmt.Printf("open: %v\n", err)
		os.Exit(3)
	}
	ctx := context.Background()
	if js, ok := strings.CutPrefix(what, "cmd:"); ok {
		cmd, err := document.ParseExtJSON([]byte(js))
		if err == nil {
			_, err = db.RunCommand(ctx, "test", cmd)
		}
		fmt.Printf("error: the failpoint was not reached (%v)\n", err)
		os.Exit(3)
	}
	c := db.Database("test").Collection("k")
	if s, ok := strings.CutPrefix(what, "delete:"); ok {
		n, _ := strconv.Atoi(s)
		for i := 0; i < n; i++ {
			if res, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: int32(i)}}); err != nil || res.DeletedCount != 1 {
				fmt.Printf("delete: %+v %v\n", res, err)
				os.Exit(3)
			}
			fmt.Printf("ack %d\n", i)
		}
		fmt.Println("error: the failpoint was not reached")
		os.Exit(3)
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(what, "update:"))
	for i := 0; i < n; i++ {
		if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(i)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: int32(1)}}}}, false); err != nil {
			fmt.Printf("update: %v\n", err)
			os.Exit(3)
		}
		fmt.Printf("ack %d\n", i)
	}
	fmt.Println("error: the failpoint was not reached")
	os.Exit(3)
}

// runCommitCrashChild runs TestChangesCommitCrashChild on dir (closed)
// with the given failpoint, hit and action, checks that it was killed,
// and returns the last acknowledged update (-1 for none) and the
// directory reopened with change streams on.
func runCommitCrashChild(t *testing.T, dir, failpoint string, killAt int, what string) (int, *DB) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChangesCommitCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), commitCrashChildEnv+"="+strings.Join([]string{dir, failpoint, strconv.Itoa(killAt), what}, "|"))
	out, err := cmd.Output()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if err == nil || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed (err %v); output:\n%s", err, out)
	}
	acked := -1
	for _, line := range strings.Split(string(out), "\n") {
		if s, ok := strings.CutPrefix(line, "ack "); ok {
			acked, _ = strconv.Atoi(s)
		}
	}
	db, err := Open(dir, Options{DisableTTLMonitor: true, ChangeStreams: true, MemoryBudget: lsm.MinMemoryBudget})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return acked, db
}

// eventsOf returns the events of test.coll in the log, the expanded ones
// included.
func eventsOf(t *testing.T, db *DB, coll string) []bson.D {
	t.Helper()
	cs, err := db.Database("test").Collection(coll).Watch(context.Background(), nil, ChangeStreamOptions{FromOldest: true, ShowExpandedEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	return drainStream(t, cs)
}

// TestChangesCollModKilledAfterCommit kills a process right after a
// collMod's catalog commit (for a capped resize, right after the switch
// to the new ring, and before it, as a control): after reopening, the
// change and its one modify event are both there or both missing. Before
// the modify event shared the catalog's commit, a kill there lost it.
func TestChangesCollModKilledAfterCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	t.Parallel()
	cases := []struct {
		name, failpoint, cmd string
		applied              bool
	}{
		{"options and index", FailpointCollModCommitted, `{"collMod": "c", "changeStreamPreAndPostImages": {"enabled": true}, "index": {"name": "a_1", "hidden": true}}`, true},
		{"resize switched", FailpointCappedResizeSwitched, `{"collMod": "k", "cappedSize": 8192, "changeStreamPreAndPostImages": {"enabled": true}}`, true},
		{"resize written", FailpointCappedResizeWritten, `{"collMod": "k", "cappedSize": 8192, "changeStreamPreAndPostImages": {"enabled": true}}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db, _, dir := openChanges(t, Options{})
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
			mustRun(t, db, "test", `{"create": "k", "capped": true, "size": 100000}`)
			mustRun(t, db, "test", `{"insert": "k", "documents": [{"_id": 1}, {"_id": 2}]}`)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			_, db = runCommitCrashChild(t, dir, tc.failpoint, 1, "cmd:"+tc.cmd)
			coll := "c"
			if strings.HasPrefix(tc.name, "resize") {
				coll = "k"
				mustValidate(t, db, "test", "k")
				size := field(mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "k"}}`), "cursor.firstBatch")
				if got := strings.Contains(fmt.Sprint(size), "8192"); got != tc.applied {
					t.Errorf("resize applied: %v, want %v (%v)", got, tc.applied, size)
				}
			} else {
				ixs := fmt.Sprint(field(mustRun(t, db, "test", `{"listIndexes": "c"}`), "cursor.firstBatch"))
				if !strings.Contains(ixs, `"hidden":true`) {
					t.Errorf("index a_1 is not hidden after the commit: %s", ixs)
				}
			}
			opts := fmt.Sprint(field(mustRun(t, db, "test", fmt.Sprintf(`{"listCollections": 1, "filter": {"name": %q}}`, coll)), "cursor.firstBatch"))
			if got := strings.Contains(opts, "changeStreamPreAndPostImages"); got != tc.applied {
				t.Errorf("pre-images option set: %v, want %v (%s)", got, tc.applied, opts)
			}
			modifies := 0
			for _, e := range eventsOf(t, db, coll) {
				if field(e, "operationType") == "modify" {
					modifies++
				}
			}
			want := 0
			if tc.applied {
				want = 1
			}
			if modifies != want {
				t.Errorf("%d modify events, want %d", modifies, want)
			}
		})
	}
}

// TestChangesCappedUpdateKilled kills a process updating documents of a
// capped collection in place one by one, with change streams on, after
// the update's intent commits (before the ring overwrite) and after the
// overwrite (before the event commits). After reopening, every document
// the updates changed has exactly one update event and no other document
// has one; every acknowledged update is there, and the killed one is
// there exactly when the kill came after its overwrite.
func TestChangesCappedUpdateKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	t.Parallel()
	const n = 10
	for _, tc := range []struct {
		failpoint string
		written   bool
	}{
		{FailpointCappedUpdateIntent, false},
		{FailpointCappedUpdateWritten, true},
	} {
		for _, killAt := range []int{1, 6} {
			t.Run(fmt.Sprint(tc.failpoint, killAt), func(t *testing.T) {
				db, _, dir := openChanges(t, Options{})
				mustRun(t, db, "test", `{"create": "k", "capped": true, "size": 65536}`)
				var docs []string
				for i := 0; i < n; i++ {
					docs = append(docs, fmt.Sprintf(`{"_id": %d, "v": 0}`, i))
				}
				mustRun(t, db, "test", `{"insert": "k", "documents": [`+strings.Join(docs, ",")+`]}`)
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				acked, db := runCommitCrashChild(t, dir, tc.failpoint, killAt, fmt.Sprint("update:", n))
				if acked != killAt-2 {
					t.Fatalf("last acknowledged update %d, want %d", acked, killAt-2)
				}
				mustValidate(t, db, "test", "k")
				updated := map[int32]int{}
				for _, e := range eventsOf(t, db, "k") {
					if field(e, "operationType") != "update" {
						continue
					}
					if v := field(e, "updateDescription.updatedFields.v"); v != int32(1) {
						t.Errorf("update event sets v to %v, want 1: %v", v, e)
					}
					updated[field(e, "documentKey._id").(int32)]++
				}
				all := findAll(t, db, "test", "k", bson.D{})
				if len(all) != n {
					t.Fatalf("%d documents after the crash, want %d", len(all), n)
				}
				for _, d := range all {
					id, v := idOf(d).(int32), field(d, "v")
					want := 0
					if v == int32(1) {
						want = 1
					}
					if updated[id] != want {
						t.Errorf("_id %d (v %v) has %d update events, want %d", id, v, updated[id], want)
					}
					killed := int(id) == killAt-1
					if shouldBe := int(id) <= acked || killed && tc.written; (v == int32(1)) != shouldBe {
						t.Errorf("_id %d has v %v; updated should be %v (acknowledged up to %d, killed in the update of %d)", id, v, shouldBe, acked, killAt-1)
					}
				}
				// The intent is settled: a second reopen logs nothing more.
				before := len(eventsOf(t, db, "k"))
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				db2, err := Open(dir, Options{DisableTTLMonitor: true, ChangeStreams: true, MemoryBudget: lsm.MinMemoryBudget})
				if err != nil {
					t.Fatal(err)
				}
				defer db2.Close()
				if after := len(eventsOf(t, db2, "k")); after != before {
					t.Errorf("a second reopen changed the events of test.k from %d to %d", before, after)
				}
			})
		}
	}
}

// TestChangesCappedDeleteKilled is TestChangesCappedUpdateKilled for
// deletes (docs/capped.md, "Deletes"): after reopening, every document
// gone has exactly one delete event and no other document has one; the
// acknowledged deletes are gone, and the killed one is gone exactly when
// the kill came after its tombstone was written.
func TestChangesCappedDeleteKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	t.Parallel()
	const n = 10
	for _, tc := range []struct {
		failpoint string
		written   bool
	}{
		{FailpointCappedUpdateIntent, false},
		{FailpointCappedUpdateWritten, true},
	} {
		for _, killAt := range []int{1, 6} {
			t.Run(fmt.Sprint(tc.failpoint, killAt), func(t *testing.T) {
				db, _, dir := openChanges(t, Options{})
				mustRun(t, db, "test", `{"create": "k", "capped": true, "size": 65536}`)
				mustRun(t, db, "test", `{"createIndexes": "k", "indexes": [{"key": {"v": 1}, "name": "v_1"}]}`)
				var docs []string
				for i := 0; i < n; i++ {
					docs = append(docs, fmt.Sprintf(`{"_id": %d, "v": %d}`, i, i))
				}
				mustRun(t, db, "test", `{"insert": "k", "documents": [`+strings.Join(docs, ",")+`]}`)
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				acked, db := runCommitCrashChild(t, dir, tc.failpoint, killAt, fmt.Sprint("delete:", n))
				if acked != killAt-2 {
					t.Fatalf("last acknowledged delete %d, want %d", acked, killAt-2)
				}
				mustValidate(t, db, "test", "k")
				deleted := map[int32]int{}
				for _, e := range eventsOf(t, db, "k") {
					if field(e, "operationType") == "delete" {
						deleted[field(e, "documentKey._id").(int32)]++
					}
				}
				present := map[int32]bool{}
				for _, d := range findAll(t, db, "test", "k", bson.D{}) {
					present[idOf(d).(int32)] = true
				}
				byV := findOpts(t, db.Database("test").Collection("k"), bson.D{{Key: "v", Value: bson.D{{Key: "$gte", Value: int32(0)}}}}, FindOptions{Hint: "v_1"})
				if len(byV) != len(present) {
					t.Errorf("v_1 finds %d documents, the collection holds %d", len(byV), len(present))
				}
				for id := int32(0); id < n; id++ {
					gone := int(id) <= acked || int(id) == killAt-1 && tc.written
					if present[id] == gone {
						t.Errorf("_id %d present %v; should be gone: %v (acknowledged up to %d, killed in the delete of %d)", id, present[id], gone, acked, killAt-1)
					}
					want := 0
					if !present[id] {
						want = 1
					}
					if deleted[id] != want {
						t.Errorf("_id %d (present %v) has %d delete events, want %d", id, present[id], deleted[id], want)
					}
				}
			})
		}
	}
}

// TestCollModIsOneCommit: a collMod whose later option group fails
// changes nothing and logs nothing; one whose groups all apply logs one
// modify event, and its catalog entry has every change.
func TestCollModIsOneCommit(t *testing.T) {
	t.Parallel()
	db, _, _ := openChanges(t, Options{})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	wantCode(t, db, "test", `{"collMod": "c", "changeStreamPreAndPostImages": {"enabled": true}, "index": {"name": "nope", "hidden": true}}`, document.CodeIndexNotFound, "")
	opts := fmt.Sprint(field(mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "c"}}`), "cursor.firstBatch"))
	if strings.Contains(opts, "changeStreamPreAndPostImages") {
		t.Fatalf("a failed collMod set the pre-images option: %s", opts)
	}
	mustRun(t, db, "test", `{"collMod": "c", "changeStreamPreAndPostImages": {"enabled": true}, "index": {"name": "a_1", "hidden": true}}`)
	var mods []string
	for _, e := range eventsOf(t, db, "c") {
		if field(e, "operationType") == "modify" {
			mods = append(mods, shapeOf(t, e))
		}
	}
	want := `{"operationType":"modify","collectionUUID":"UUID","ns":{"db":"test","coll":"c"},"operationDescription":{"changeStreamPreAndPostImages":{"enabled":true},"index":{"name":"a_1","hidden":true}},"stateBeforeChange":{"collectionOptions":{"uuid":"UUID"},"indexOptions":{"hidden":false}}}`
	if len(mods) != 1 || mods[0] != want {
		t.Fatalf("modify events %v, want [%s]", mods, want)
	}
	opts = fmt.Sprint(field(mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "c"}}`), "cursor.firstBatch"))
	ixs := fmt.Sprint(field(mustRun(t, db, "test", `{"listIndexes": "c"}`), "cursor.firstBatch"))
	if !strings.Contains(opts, "changeStreamPreAndPostImages") || !strings.Contains(ixs, `"hidden":true`) {
		t.Fatalf("collMod did not apply both changes: %s / %s", opts, ixs)
	}
}
