package engine

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cappedGrowCrashEnv tells TestCappedGrowCrashChild its data directory,
// the failpoint to die at and at which of its hits: "dir|name|hit".
const cappedGrowCrashEnv = "TTLKV_CAPPED_GROW_CRASH"

// TestCappedGrowCrashChild is the process TestCappedGrowKilled kills:
// with change streams on, it grows document 3 of a small capped
// collection beyond its record (step A), grows it again (B), grows
// document 4 and deletes it (C), inserts until the ring has evicted
// document 3 (D), then inserts a document larger than the collection
// (E), printing "ack <step>" after each; it kills itself
// with SIGKILL at the chosen hit of the chosen failpoint.
func TestCappedGrowCrashChild(t *testing.T) {
	spec := os.Getenv(cappedGrowCrashEnv)
	if spec == "" {
		t.Skip("run by TestCappedGrowKilled")
	}
	parts := strings.Split(spec, "|")
	dir, fp := parts[0], parts[1]
	at, _ := strconv.Atoi(parts[2])
	o := Options{DisableTTLMonitor: true, ChangeStreams: true}
	hits := 0
	SetFailpointForTesting(&o, func(name string) {
		if name == fp {
			if hits++; hits == at {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
	})
	db, err := Open(dir, o)
	fail := func(err error) {
		fmt.Println("error", err)
		os.Exit(2)
	}
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	if err := db.Database("test").CreateCollection(ctx, "c", bson.D{{Key: "capped", Value: true}, {Key: "size", Value: int64(8192)}}); err != nil {
		fail(err)
	}
	c := db.Database("test").Collection("c")
	if _, err := c.CreateIndexes(ctx, []bson.D{{{Key: "key", Value: bson.D{{Key: "s", Value: int32(1)}}}, {Key: "name", Value: "s_1"}}}); err != nil {
		fail(err)
	}
	doc := func(i int) bson.D {
		return bson.D{{Key: "_id", Value: int32(i)}, {Key: "i", Value: int64(i)}, {Key: "s", Value: "v"}}
	}
	var docs []any
	for i := 0; i < 30; i++ {
		docs = append(docs, doc(i))
	}
	if _, err := c.InsertMany(ctx, docs, true); err != nil {
		fail(err)
	}
	set := func(id int32, s string) {
		if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: s}}}}, false); err != nil {
			fail(err)
		}
	}
	set(3, strings.Repeat("A", 300))
	fmt.Println("ack A")
	set(3, strings.Repeat("B", 600))
	fmt.Println("ack B")
	set(4, strings.Repeat("C", 300))
	if _, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: int32(4)}}); err != nil {
		fail(err)
	}
	fmt.Println("ack C")
	for i := 30; i < 230; i += 10 {
		docs = docs[:0]
		for j := i; j < i+10; j++ {
			docs = append(docs, doc(j))
		}
		if _, err := c.InsertMany(ctx, docs, true); err != nil {
			fail(err)
		}
	}
	fmt.Println("ack D")
	// E: a document larger than the collection, kept outside the ring.
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(1000)}, {Key: "s", Value: strings.Repeat("E", 10000)}}); err != nil {
		fail(err)
	}
	fmt.Println("ack E")
	db.Close()
}

// SIGKILL at each step of a grown document's life: between its outside
// copy's write and its record's rewrite (first growth, and growth of a
// grown one), after the record stopped naming a copy and before the
// copy's delete (growth again, delete, eviction). After each, the
// document is the old one or the new one as the kill's place says, the
// store holds exactly the copies live records name (validate), the
// update and delete events are logged once, and the collection takes
// more growth.
func TestCappedGrowKilled(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	A, B := strings.Repeat("A", 300), strings.Repeat("B", 600)
	for _, tc := range []struct {
		fp      string
		hit     int
		lastAck string // the step acknowledged last
		s3      string // document 3's s; "" for evicted
		has4    bool
		copies  int
		events3 int // update events of document 3
	}{
		{FailpointCappedGrowOutside, 1, "", "v", true, 0, 0},
		{FailpointCappedGrowOutside, 2, "A", A, true, 1, 1},
		{FailpointCappedOutsideDrop, 1, "A", B, true, 1, 2},
		{FailpointCappedOutsideDrop, 2, "B", B, false, 1, 2},
		{FailpointCappedOutsideDrop, 3, "C", "", false, 0, 2},
		// The large insert's copy is committed, its record still in
		// the ring's append buffer: gone after the kill, copy and all.
		{FailpointCappedAfterAppend, 231, "D", "", false, 0, 2},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.fp, tc.hit), func(t *testing.T) {
			dir := t.TempDir()
			cmd, sc := startCrashChild(t, "TestCappedGrowCrashChild", cappedGrowCrashEnv+"="+dir+"|"+tc.fp+"|"+strconv.Itoa(tc.hit))
			last := ""
			for sc.Scan() {
				line := sc.Text()
				if s, ok := strings.CutPrefix(line, "ack "); ok {
					last = s
				} else if strings.HasPrefix(line, "error") {
					t.Fatalf("child: %s", line)
				}
			}
			err := cmd.Wait()
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if err == nil || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("child ended with %v after step %q, not by SIGKILL", err, last)
			}
			if last != tc.lastAck {
				t.Fatalf("killed after step %q, want after %q", last, tc.lastAck)
			}
			db, err := Open(dir, Options{DisableTTLMonitor: true, ChangeStreams: true})
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			defer db.Close()
			mustValidate(t, db, "test", "c")
			c := db.Database("test").Collection("c")
			ctx := context.Background()
			d, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: int32(3)}})
			switch {
			case tc.s3 == "" && err == nil:
				t.Fatalf("document 3 is there (%.30v...), the ring evicted it", d)
			case tc.s3 != "" && (err != nil || field(d, "s") != tc.s3):
				t.Fatalf("document 3: %.40v... %v, want s %.10s...", d, err, tc.s3)
			}
			if tc.s3 != "" {
				if n := len(findOpts(t, c, bson.D{{Key: "s", Value: tc.s3}, {Key: "_id", Value: int32(3)}}, FindOptions{Hint: "s_1"})); n != 1 {
					t.Fatalf("s_1 finds document 3's s %d times", n)
				}
			}
			if _, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: int32(4)}}); (err == nil) != tc.has4 {
				t.Fatalf("document 4 there: %v, want %v", err == nil, tc.has4)
			}
			if _, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: int32(1000)}}); err == nil {
				t.Fatalf("the large document is there; its insert was killed before the ring wrote it")
			}
			if n := len(outsideCopies(t, db, "c")); n != tc.copies {
				t.Fatalf("%d outside copies, want %d", n, tc.copies)
			}
			cs, err := c.Watch(ctx, nil, ChangeStreamOptions{FromOldest: true})
			if err != nil {
				t.Fatal(err)
			}
			updates, deletes4 := 0, 0
			for _, e := range drainStream(t, cs) {
				switch {
				case field(e, "operationType") == "update" && field(e, "documentKey._id") == int32(3):
					updates++
				case field(e, "operationType") == "delete" && field(e, "documentKey._id") == int32(4):
					deletes4++
				}
			}
			if updates != tc.events3 || deletes4 != map[bool]int{true: 0, false: 1}[tc.has4] {
				t.Fatalf("%d update events of document 3 (want %d), %d delete events of document 4", updates, tc.events3, deletes4)
			}
			// The collection goes on: a document grows after the crash.
			if _, err := c.UpdateOne(ctx, bson.D{{Key: "s", Value: "v"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: strings.Repeat("Z", 800)}}}}, false); err != nil {
				t.Fatal(err)
			}
			mustValidate(t, db, "test", "c")
		})
	}
}
