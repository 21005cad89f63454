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

// cappedCrashChildEnv names the data directory a capped change-log crash
// child writes in, and after how many chunk flushes it kills itself.
const cappedCrashChildEnv = "TTLKV_CHANGES_CAPPED_CRASH_CHILD"

// TestChangesCappedCrashChild is not a test of its own:
// TestChangesCappedKilledBeforeEvents runs the test binary again with
// cappedCrashChildEnv set, and this function then inserts into a capped
// collection, printing "ack <id>" after each acknowledged insert, and
// kills itself with SIGKILL at the chosen flush, after the ring holds the
// chunk's records and before their insert events commit.
func TestChangesCappedCrashChild(t *testing.T) {
	spec := os.Getenv(cappedCrashChildEnv)
	if spec == "" {
		t.Skip("runs only as the child of TestChangesCappedKilledBeforeEvents")
	}
	dir, atS, _ := strings.Cut(spec, "|")
	killAt, _ := strconv.Atoi(atS)
	o := Options{DisableTTLMonitor: true, ChangeStreams: true}
	hits := 0
	SetFailpointForTesting(&o, func(name string) {
		if name != FailpointCappedBeforeEvents {
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
	c := db.Database("test").Collection("k")
	for i := 0; ; i += 3 {
		docs := []any{bson.D{{Key: "_id", Value: int32(i)}}, bson.D{{Key: "_id", Value: int32(i + 1)}}, bson.D{{Key: "_id", Value: int32(i + 2)}}}
		if _, err := c.InsertMany(ctx, docs, true); err != nil {
			fmt.Printf("insert: %v\n", err)
			os.Exit(3)
		}
		fmt.Printf("ack %d\n", i+2)
	}
}

// TestChangesCappedKilledBeforeEvents kills a process inserting into a
// capped collection with change streams on in the window between the
// ring's flush and the commit of the insert events, then reopens the
// directory: every record the ring kept has exactly one insert event,
// and no event names a record the ring does not hold.
func TestChangesCappedKilledBeforeEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	for _, killAt := range []int{1, 7} {
		t.Run(fmt.Sprint("flush", killAt), func(t *testing.T) {
			db, _, dir := openChanges(t, Options{})
			mustRun(t, db, "test", `{"create": "k", "capped": true, "size": 1048576}`)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			cmd, sc := startCrashChild(t, "TestChangesCappedCrashChild", cappedCrashChildEnv+"="+dir+"|"+strconv.Itoa(killAt))
			acked := -1
			var lines []string
			for sc.Scan() {
				line := sc.Text()
				lines = append(lines, line)
				if n, ok := strings.CutPrefix(line, "ack "); ok {
					acked, _ = strconv.Atoi(n)
				}
			}
			err := cmd.Wait()
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if err == nil || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("child was not killed (err %v); output:\n%s", err, strings.Join(lines, "\n"))
			}
			db, err = Open(dir, Options{DisableTTLMonitor: true, ChangeStreams: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			mustValidate(t, db, "test", "k")
			cs, err := db.Database("test").Collection("k").Watch(context.Background(), nil, ChangeStreamOptions{FromOldest: true})
			if err != nil {
				t.Fatal(err)
			}
			logged := map[int32]bool{}
			for _, e := range drainStream(t, cs) {
				if field(e, "operationType") != "insert" {
					continue
				}
				id := field(e, "documentKey._id").(int32)
				if logged[id] {
					t.Fatalf("_id %d has two insert events", id)
				}
				logged[id] = true
			}
			all := findAll(t, db, "test", "k", bson.D{})
			for _, d := range all {
				if id := idOf(d).(int32); !logged[id] {
					t.Errorf("_id %d is in the ring without its insert event", id)
				}
				delete(logged, idOf(d).(int32))
			}
			for id := range logged {
				t.Errorf("_id %d has an insert event but is not in the ring", id)
			}
			for i := 0; i <= acked; i++ {
				found := false
				for _, d := range all {
					if idOf(d).(int32) == int32(i) {
						found = true
						break
					}
				}
				if !found {
					t.Fatalf("acknowledged insert %d is not in the ring", i)
				}
			}
			if len(all) <= acked+1 {
				t.Fatalf("%d records after %d acknowledged inserts: the killed chunk (flushed to the ring) should be there too", len(all), acked+1)
			}
			if !t.Failed() {
				t.Logf("killed at flush %d after %d acknowledged inserts: %d records, each with its event", killAt, acked+1, len(all))
			}
		})
	}
}

// TestChangesCappedWrittenWhileOff: records a capped collection got while
// the engine ran without change streams get no events when it is opened
// with them again (they were not lost by a crash), and records written
// after that do.
func TestChangesCappedWrittenWhileOff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	for i, on := range []bool{true, false, true} {
		db, err := Open(dir, Options{DisableTTLMonitor: true, ChangeStreams: on})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			mustRun(t, db, "test", `{"create": "k", "capped": true, "size": 65536}`)
		}
		if _, err := db.Database("test").Collection("k").InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}}); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			cs, err := db.Database("test").Collection("k").Watch(ctx, nil, ChangeStreamOptions{FromOldest: true})
			if err != nil {
				t.Fatal(err)
			}
			var ids []any
			for _, e := range drainStream(t, cs) {
				if field(e, "operationType") == "insert" {
					ids = append(ids, field(e, "documentKey._id"))
				}
			}
			if fmt.Sprint(ids) != "[0 2]" {
				t.Errorf("insert events for %v, want [0 2] (1 was written with change streams off)", ids)
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
