package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cappedIDs returns the _id values of capped collection name in natural
// order.
func cappedIDs(t *testing.T, db *DB, name string) []int64 {
	t.Helper()
	var out []int64
	for _, d := range findAll(t, db, "test", name, nil) {
		n, _ := asInt64(field(d, "_id"))
		out = append(out, n)
	}
	return out
}

// ringFiles lists the ring files in dir's capped directory.
func ringFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, cappedDir))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), cappedFileExt) {
			out = append(out, e.Name())
		}
	}
	return out
}

// insertBig inserts documents from..to-1 of about 10 KiB each.
func insertBig(t *testing.T, db *DB, name string, from, to int) {
	t.Helper()
	pad := strings.Repeat("a", 10*1024)
	for i := from; i < to; i++ {
		mustRun(t, db, "test", fmt.Sprintf(`{"insert": %q, "documents": [{"_id": %d, "k": %d, "key": %q}]}`, name, i, i%3, pad))
	}
}

// docs/capped.md §7.8, after MongoDB's jstests/core/capped/capped_resize.js:
// growing the size keeps more documents, shrinking keeps the newest that
// fit, max shrinks and grows, max <= 0 removes the count limit, and the
// secondary indexes follow.
func TestCappedResize(t *testing.T) {
	t.Parallel()
	db, _, dir := openTest(t)
	mustRun(t, db, "test", `{"create": "c", "capped": true, "size": 25600}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"k": 1}, "name": "k_1"}]}`)
	insertBig(t, db, "c", 0, 5)
	if got := cappedIDs(t, db, "c"); fmt.Sprint(got) != "[3 4]" {
		t.Fatalf("before: %v", got)
	}
	mustRun(t, db, "test", `{"collMod": "c", "cappedSize": 51200}`)
	st := mustRun(t, db, "test", `{"collStats": "c"}`)
	if field(st, "maxSize") != int32(51200) {
		t.Fatalf("maxSize after growing = %v", field(st, "maxSize"))
	}
	insertBig(t, db, "c", 5, 10)
	grown := cappedIDs(t, db, "c")
	if len(grown) <= 2 || grown[len(grown)-1] != 9 {
		t.Fatalf("after growing and inserting: %v", grown)
	}
	// Shrinking evicts the oldest at once.
	mustRun(t, db, "test", `{"collMod": "c", "cappedSize": 25600}`)
	if got := cappedIDs(t, db, "c"); fmt.Sprint(got) != "[8 9]" {
		t.Fatalf("after shrinking: %v", got)
	}
	if r := mustRun(t, db, "test", `{"dataSize": "test.c"}`); field(r, "size").(int64) > 25600 {
		t.Fatalf("dataSize after shrinking: %v", r)
	}
	// Sizes are kept as given, as MongoDB's capped_resize.js expects
	// (the ring's file is rounded up to a multiple of 256, at least
	// 4096, but the data may not fill more than the size).
	mustRun(t, db, "test", `{"collMod": "c", "cappedSize": 51150}`)
	if got := field(mustRun(t, db, "test", `{"collStats": "c"}`), "maxSize"); got != int32(51150) {
		t.Fatalf("maxSize for 51150 = %v, want 51150", got)
	}
	r := mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "c"}}`)
	if got := field(r, "cursor.firstBatch.0.options.size"); got != int64(51150) && got != int32(51150) {
		t.Fatalf("listed size = %v", got)
	}
	if r := mustRun(t, db, "test", `{"dataSize": "test.c"}`); field(r, "size").(int64) > 51150 {
		t.Fatalf("dataSize after resizing to 51150: %v", r)
	}
	mustRun(t, db, "test", `{"collMod": "c", "cappedSize": 256}`)
	if got := field(mustRun(t, db, "test", `{"collStats": "c"}`), "maxSize"); got != int32(256) {
		t.Fatalf("maxSize for 256 = %v, want 256", got)
	}
	if got := cappedIDs(t, db, "c"); len(got) != 0 {
		t.Fatalf("a 10 KiB document in 256 bytes: %v", got)
	}
	// max.
	mustRun(t, db, "test", `{"collMod": "c", "cappedSize": 102400, "cappedMax": 4}`)
	insertBig(t, db, "c", 10, 16)
	if got := cappedIDs(t, db, "c"); fmt.Sprint(got) != "[12 13 14 15]" {
		t.Fatalf("max 4: %v", got)
	}
	mustRun(t, db, "test", `{"collMod": "c", "cappedMax": 2}`)
	if got := cappedIDs(t, db, "c"); fmt.Sprint(got) != "[14 15]" {
		t.Fatalf("max 2: %v", got)
	}
	if got := field(mustRun(t, db, "test", `{"collStats": "c"}`), "max"); got != int32(2) {
		t.Fatalf("stats max = %v", got)
	}
	mustRun(t, db, "test", `{"collMod": "c", "cappedMax": -2}`)
	if got := field(mustRun(t, db, "test", `{"collStats": "c"}`), "max"); got != int32(2147483647) {
		t.Fatalf("stats max after -2 = %v, want 2147483647 (no limit, as MongoDB's capped_resize.js expects)", got)
	}
	insertBig(t, db, "c", 16, 19)
	if got := cappedIDs(t, db, "c"); fmt.Sprint(got) != "[14 15 16 17 18]" {
		t.Fatalf("no max: %v", got)
	}
	// The secondary index moved with the documents.
	got := findOpts(t, db.Database("test").Collection("c"), bson.D{{Key: "k", Value: int32(1)}}, FindOptions{Hint: "k_1"})
	if len(got) != 1 || field(got[0], "_id") != int32(16) { // k is _id % 3
		t.Fatalf("k = 1 through k_1: %d documents", len(got))
	}
	mustValidate(t, db, "test", "c")
	// Reopened: the new ring, and only it.
	clk := newClock()
	db = reopen(t, db, dir, clk)
	if got := cappedIDs(t, db, "c"); fmt.Sprint(got) != "[14 15 16 17 18]" {
		t.Fatalf("after reopen: %v", got)
	}
	mustValidate(t, db, "test", "c")
	if files := ringFiles(t, dir); len(files) != 1 {
		t.Fatalf("ring files: %v", files)
	}
}

// docs/capped.md §7.8: collMod cappedSize / cappedMax errors.
func TestCappedResizeErrors(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "capped": true, "size": 8192}`)
	mustRun(t, db, "test", `{"create": "plain"}`)
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}]}`)
	for _, c := range []struct {
		cmd  string
		code document.Code
		frag string
	}{
		{`{"collMod": "plain", "cappedSize": 8192}`, document.CodeInvalidOptions, "must be capped"},
		{`{"collMod": "ts", "cappedMax": 5}`, document.CodeInvalidOptions, "must be capped"},
		{`{"collMod": "c", "cappedSize": 0}`, document.CodeInvalidOptions, "between 1 and"},
		{`{"collMod": "c", "cappedSize": -25600}`, document.CodeInvalidOptions, "between 1 and"},
		{`{"collMod": "c", "cappedSize": {"$numberLong": "1125899906842625"}}`, document.CodeInvalidOptions, "between 1 and"},
		{`{"collMod": "c", "cappedSize": "big"}`, document.CodeTypeMismatch, "collMod.cappedSize"},
		{`{"collMod": "c", "cappedMax": {"$numberLong": "2147483648"}}`, document.CodeInvalidOptions, "2^31"},
		{`{"collMod": "c", "cappedMax": true}`, document.CodeTypeMismatch, "collMod.cappedMax"},
		{`{"collMod": "nope", "cappedSize": 8192}`, document.CodeNamespaceNotFound, "ns does not exist"},
	} {
		wantCode(t, db, "test", c.cmd, c.code, c.frag)
	}
	if got := cappedIDs(t, db, "c"); fmt.Sprint(got) != "[1]" {
		t.Fatalf("after the errors: %v", got)
	}
	if got := field(mustRun(t, db, "test", `{"collStats": "c"}`), "maxSize"); got != int32(8192) {
		t.Fatalf("maxSize after the errors = %v", got)
	}
}

// cappedResizeCrashEnv names the data directory of
// TestCappedResizeCrashChild and cappedResizeFailEnv the failpoint at
// which it kills itself.
const (
	cappedResizeCrashEnv = "TTLKV_CAPPED_RESIZE_DIR"
	cappedResizeFailEnv  = "TTLKV_CAPPED_RESIZE_FAILPOINT"
)

// TestCappedResizeCrashChild is the process
// TestCappedResizeKilledAtEachStep kills: it resizes test.c to 8192
// bytes and SIGKILLs itself at the failpoint it is given.
func TestCappedResizeCrashChild(t *testing.T) {
	dir := os.Getenv(cappedResizeCrashEnv)
	if dir == "" {
		t.Skip("run by TestCappedResizeKilledAtEachStep")
	}
	target := os.Getenv(cappedResizeFailEnv)
	var o Options
	o.DisableTTLMonitor = true
	SetFailpointForTesting(&o, func(name string) {
		if name == target {
			syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
		}
	})
	db, err := Open(dir, o)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	cmd := bson.D{{Key: "collMod", Value: "c"}, {Key: "cappedSize", Value: int32(8192)}}
	if _, err := db.RunCommand(context.Background(), "test", cmd); err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	fmt.Println("error: the failpoint was not reached")
	os.Exit(3)
}

// docs/capped.md §7.8: a process killed at each step of a resize
// reopens to the old collection (killed before the catalog switch) or
// the new one (after it), complete, never a mix: the same documents
// in the same order as before, or the newest that fit the new size, with
// the _id and secondary indexes matching the ring; a further resize
// works and leaves one ring file.
func TestCappedResizeKilledAtEachStep(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	steps := []struct {
		failpoint string
		switched  bool
	}{
		{FailpointCappedResizeCreated, false},
		{FailpointCappedAfterAppend, false}, // mid-copy: an append to the new ring
		{FailpointCappedResizeWritten, false},
		{FailpointCappedResizeSwitched, true},
		{FailpointCappedResizeRemoved, true},
	}
	for _, s := range steps {
		t.Run(s.failpoint, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			db, err := Open(dir, Options{DisableTTLMonitor: true})
			if err != nil {
				t.Fatal(err)
			}
			mustRun(t, db, "test", `{"create": "c", "capped": true, "size": 32768}`)
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"i": 1}, "name": "i_1", "unique": true}]}`)
			pad := strings.Repeat("p", 200)
			for i := 0; i < 200; i++ {
				mustRun(t, db, "test", fmt.Sprintf(`{"insert": "c", "documents": [{"_id": %d, "i": %d, "pad": %q}]}`, i, i, pad))
			}
			before := cappedIDs(t, db, "c")
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestCappedResizeCrashChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), cappedResizeCrashEnv+"="+dir, cappedResizeFailEnv+"="+s.failpoint)
			out, err := cmd.CombinedOutput()
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if err == nil || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("child ended with %v, not by SIGKILL: %s", err, out)
			}
			db, err = Open(dir, Options{DisableTTLMonitor: true})
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			defer db.Close()
			mustValidate(t, db, "test", "c")
			got := cappedIDs(t, db, "c")
			size := field(mustRun(t, db, "test", `{"collStats": "c"}`), "maxSize")
			if s.switched {
				if size != int32(8192) {
					t.Fatalf("killed after the switch: maxSize %v, want 8192", size)
				}
				if len(got) == 0 || len(got) >= len(before) || fmt.Sprint(got) != fmt.Sprint(before[len(before)-len(got):]) {
					t.Fatalf("killed after the switch: %v, want the newest of %v", got, before)
				}
			} else {
				if size != int32(32768) || fmt.Sprint(got) != fmt.Sprint(before) {
					t.Fatalf("killed before the switch: maxSize %v and %v, want 32768 and %v", size, got, before)
				}
			}
			for _, id := range []int64{got[0], got[len(got)-1]} {
				if n := len(findOpts(t, db.Database("test").Collection("c"), bson.D{{Key: "i", Value: id}}, FindOptions{Hint: "i_1"})); n != 1 {
					t.Fatalf("i %d found %d times through i_1", id, n)
				}
				if n := len(findAll(t, db, "test", "c", bson.D{{Key: "_id", Value: id}})); n != 1 {
					t.Fatalf("_id %d found %d times", id, n)
				}
			}
			if n := len(findOpts(t, db.Database("test").Collection("c"), bson.D{{Key: "i", Value: bson.D{{Key: "$gte", Value: int32(0)}}}}, FindOptions{Hint: "i_1"})); n != len(got) {
				t.Fatalf("i_1 holds %d documents, the ring %d", n, len(got))
			}
			// A later resize works and sweeps what the crash left.
			mustRun(t, db, "test", `{"collMod": "c", "cappedSize": 16384}`)
			mustValidate(t, db, "test", "c")
			if files := ringFiles(t, dir); len(files) != 1 {
				t.Fatalf("ring files after a further resize: %v", files)
			}
		})
	}
}

// docs/capped.md §7.8: inserts that run while the collection is resized
// wait for the resize and go on in the new ring: none fails and none is
// lost.
func TestCappedResizeWithConcurrentInserts(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "capped": true, "size": 1048576}`)
	ctx := context.Background()
	c := db.Database("test").Collection("c")
	const writers, each = 2, 150
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		go func(w int) {
			for i := 0; i < each; i++ {
				if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(w*each + i)}}); err != nil {
					errs <- fmt.Errorf("insert %d of writer %d: %w", i, w, err)
					return
				}
			}
			errs <- nil
		}(w)
	}
	for k := 2; k <= 5; k++ {
		mustRun(t, db, "test", fmt.Sprintf(`{"collMod": "c", "cappedSize": %d}`, k*1048576))
	}
	for w := 0; w < writers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, db, "test", "c"); n != writers*each {
		t.Fatalf("count = %d, want %d", n, writers*each)
	}
	mustValidate(t, db, "test", "c")
}
