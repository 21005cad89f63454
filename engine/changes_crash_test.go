package engine

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// changesCrashChildEnv names the data directory a change-log crash child
// writes in, and its seed.
const changesCrashChildEnv = "TTLKV_CHANGES_CRASH_CHILD"

// TestChangesCrashChild is not a test of its own: TestChangesKilledMidWrite
// runs the test binary again with changesCrashChildEnv set, and this
// function then inserts, updates and reaps, printing "ack <id>" after
// each acknowledged insert, until it is killed.
func TestChangesCrashChild(t *testing.T) {
	spec := os.Getenv(changesCrashChildEnv)
	if spec == "" {
		t.Skip("runs only as the child of TestChangesKilledMidWrite")
	}
	dir, seedS, _ := strings.Cut(spec, "|")
	seed, _ := strconv.ParseInt(seedS, 10, 64)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	db, err := Open(dir, Options{Clock: func() time.Time { return now }, DisableTTLMonitor: true, ChangeStreams: true,
		Params: map[string]any{"batchedDeletesTargetBatchDocs": 5}})
	if err != nil {
		fmt.Printf("open: %v\n", err)
		os.Exit(3)
	}
	ctx := context.Background()
	c := db.Database("test").Collection("c")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // TTL passes beside the writer
		defer wg.Done()
		for {
			if _, err := db.RunTTLPass(ctx); err != nil {
				fmt.Printf("pass: %v\n", err)
				os.Exit(3)
			}
		}
	}()
	r := rand.New(rand.NewSource(seed))
	for i := 0; ; i++ {
		at := now.Add(time.Hour)
		if i%2 == 0 {
			at = now.Add(-time.Hour) // expired at once: the passes reap it
		}
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: dt(at)}, {Key: "n", Value: int32(0)}}); err != nil {
			fmt.Printf("insert: %v\n", err)
			os.Exit(3)
		}
		fmt.Printf("ack %d\n", i)
		if i > 0 && i%3 == 0 {
			id := int32(r.Intn(i))
			if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: int32(1)}}}}, false); err != nil {
				fmt.Printf("update: %v\n", err)
				os.Exit(3)
			}
		}
	}
}

// replayChanges rebuilds test.c from the change log alone (the log must
// hold the collection's whole history: pre- and post-images on, nothing
// trimmed) and returns it by _id, with the ids whose insert is logged.
func replayChanges(t *testing.T, db *DB) (docs map[int32]bson.D, inserted map[int32]bool) {
	t.Helper()
	cs, err := db.Database("test").Collection("c").Watch(context.Background(), nil,
		ChangeStreamOptions{StartAtOperationTime: &bson.Timestamp{T: 1}, FullDocument: "required"})
	if err != nil {
		t.Fatal(err)
	}
	docs, inserted = map[int32]bson.D{}, map[int32]bool{}
	for cs.TryNext(context.Background()) {
		e := cs.Current()
		id, _ := field(e, "documentKey._id").(int32)
		switch field(e, "operationType") {
		case "insert":
			if inserted[id] {
				t.Fatalf("_id %d inserted twice in the log", id)
			}
			inserted[id] = true
			docs[id] = field(e, "fullDocument").(bson.D)
		case "update", "replace":
			if docs[id] == nil {
				t.Fatalf("update of _id %d, absent, in the log", id)
			}
			docs[id] = field(e, "fullDocument").(bson.D)
		case "delete":
			if docs[id] == nil {
				t.Fatalf("delete of _id %d, absent, in the log", id)
			}
			if x, _ := field(e, "ttlkv.expired").(bool); !x {
				t.Fatalf("delete of _id %d not marked expired: %v", id, e)
			}
			delete(docs, id)
		}
	}
	if err := cs.Err(); err != nil {
		t.Fatal(err)
	}
	return docs, inserted
}

// TestChangesKilledMidWrite kills a process with SIGKILL while it inserts,
// updates and runs TTL passes with change streams on, then reopens the
// directory: the collection rebuilt from the log alone equals the
// collection exactly (no write without its event, no event without its
// write), and every acknowledged insert is in the log.
func TestChangesKilledMidWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	seed := testSeed(t)
	r := rand.New(rand.NewSource(seed))
	killSpread := 400
	if raceOn {
		killSpread = 150
	}
	for round := 0; round < 2; round++ {
		t.Run(fmt.Sprint("round", round), func(t *testing.T) {
			db, _, dir := openChanges(t, Options{})
			mustRun(t, db, "test", `{"create": "c", "changeStreamPreAndPostImages": {"enabled": true}}`)
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			// Under the race detector the child (the same binary) writes
			// 5-20x slower: it is killed after 50 to 199 acknowledged
			// writes instead of 50 to 449, still in the middle of them.
			killAt := 50 + r.Intn(killSpread)
			cmd, sc := startCrashChild(t, "TestChangesCrashChild", changesCrashChildEnv+"="+dir+"|"+strconv.FormatInt(seed+int64(round), 10))
			acked := -1
			var lines []string
			for sc.Scan() {
				line := sc.Text()
				if len(lines) < 20 {
					lines = append(lines, line)
				}
				if n, ok := strings.CutPrefix(line, "ack "); ok {
					acked, _ = strconv.Atoi(n)
					if acked == killAt {
						cmd.Process.Signal(syscall.SIGKILL)
					}
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
			mustValidate(t, db, "test", "c")
			model, inserted := replayChanges(t, db)
			for i := 0; i <= acked; i++ {
				if !inserted[int32(i)] {
					t.Fatalf("acknowledged insert %d has no event", i)
				}
			}
			all := findAll(t, db, "test", "c", bson.D{})
			if len(all) != len(model) {
				t.Fatalf("%d documents, the log rebuilds %d", len(all), len(model))
			}
			for _, d := range all {
				id := idOf(d).(int32)
				if document.Compare(d, model[id]) != 0 {
					t.Fatalf("_id %d is %v, the log says %v", id, d, model[id])
				}
			}
			chk, err := db.CheckChangeLog(context.Background())
			if err != nil || len(chk.Problems) > 0 || len(chk.Checked) != 1 {
				t.Fatalf("CheckChangeLog: %v %+v", err, chk)
			}
			t.Logf("killed after %d acknowledged inserts: %d documents, %d inserts logged", acked+1, len(all), len(inserted))
		})
	}
}
