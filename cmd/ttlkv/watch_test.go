package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

// watchFixture leaves in dir a change log with inserts into test.s and
// test.other, two expirations in test.s and one user delete.
func watchFixture(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := now
	db, err := engine.Open(dir, engine.Options{ChangeStreams: true, DisableTTLMonitor: true, Clock: func() time.Time { return clock }})
	must(t, err)
	ctx := context.Background()
	s := db.Database("test").Collection("s")
	_, err = s.CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "at", Value: int32(1)}}, Options: bson.D{{Key: "expireAfterSeconds", Value: int32(60)}}})
	must(t, err)
	for i := 0; i < 4; i++ {
		at := now
		if i >= 2 {
			at = now.Add(time.Hour)
		}
		_, err := s.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "at", Value: bson.NewDateTimeFromTime(at)}})
		must(t, err)
	}
	_, err = db.Database("test").Collection("other").InsertOne(ctx, bson.D{{Key: "_id", Value: "o"}})
	must(t, err)
	clock = now.Add(2 * time.Minute)
	_, err = db.RunTTLPass(ctx)
	must(t, err)
	_, err = s.DeleteOne(ctx, bson.D{{Key: "_id", Value: int32(3)}})
	must(t, err)
	must(t, db.Close())
	return dir
}

func lines(s string) []bson.D {
	var out []bson.D
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l == "" {
			continue
		}
		d, err := document.ParseExtJSON([]byte(l))
		if err != nil {
			panic(err)
		}
		out = append(out, d)
	}
	return out
}

func TestWatchPrintsTheLog(t *testing.T) {
	t.Parallel()
	dir := watchFixture(t)
	out, errOut, code := cli(t, nil, dir, "", "watch", "test.s", "--no-wait")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evs := lines(out)
	var ops []string
	for _, e := range evs {
		v, _ := document.Get(e, "operationType")
		ops = append(ops, v.(string))
	}
	if strings.Join(ops, " ") != "insert insert insert insert delete delete delete" {
		t.Fatalf("events: %s", out)
	}
	// With the DDL events: the collection's implicit creation and its
	// TTL index.
	out, _, code = cli(t, nil, dir, "", "watch", "test.s", "--no-wait", "--show-expanded")
	ops = ops[:0]
	for _, e := range lines(out) {
		v, _ := document.Get(e, "operationType")
		ops = append(ops, v.(string))
	}
	if code != 0 || strings.Join(ops, " ") != "create createIndexes insert insert insert insert delete delete delete" {
		t.Fatalf("--show-expanded: exit %d, %s", code, out)
	}
	out, _, code = cli(t, nil, dir, "", "watch", "test.s", "--no-wait", "--expired", "--before", "whenAvailable")
	if exp := lines(out); code != 0 || len(exp) != 2 {
		t.Fatalf("--expired: exit %d, %s", code, out)
	}
	// Resuming after the fourth event prints the last three.
	tok, _ := document.Get(evs[3], "_id")
	data, _ := document.Get(tok.(bson.D), "_data")
	out, errOut, code = cli(t, nil, dir, "", "watch", "test.s", "--no-wait", "--resume-after", data.(string))
	if n := len(lines(out)); code != 0 || n != 3 {
		t.Fatalf("resumed: exit %d, %d events: %s %s", code, n, out, errOut)
	}
	// The whole engine: one more insert (test.other).
	out, _, code = cli(t, nil, dir, "", "watch", "--no-wait")
	if n := len(lines(out)); code != 0 || n != 8 {
		t.Fatalf("everything: exit %d, %d events", code, n)
	}
	_, errOut, code = cli(t, nil, dir, "", "watch", "test.s", "--no-wait", "--resume-after", "00ff")
	if code != 1 || !strings.Contains(errOut, "InvalidResumeToken") {
		t.Fatalf("bad token: exit %d, %s", code, errOut)
	}
}

// A running watch prints events as its process commits them and stops
// at Ctrl-C (the context) with exit 0.
func TestWatchFollows(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	var opened = make(chan *engine.DB, 1)
	e := &env{ctx: ctx, db: "test", stdout: out, stderr: &syncBuffer{}, isTerm: func(any) bool { return false },
		getenv: func(k string) string {
			if k == "TTLKV_DIR" {
				return dir
			}
			return ""
		}}
	done := make(chan int, 1)
	go func() {
		db, err := e.open(engine.Options{ChangeStreams: true})
		if err != nil {
			t.Error(err)
			done <- 1
			return
		}
		opened <- db
		// From the oldest event: the first insert is printed whether
		// it commits before or after the stream opens.
		f := &watchFlags{maxTimeMS: 50}
		stage, pipe, _ := f.pipeline()
		done <- e.closeDB("watch", db, e.watch(db, "test.c", stage, pipe, f))
	}()
	db := <-opened
	c := db.Database("test").Collection("c")
	// waitFor waits (10 s at most) for the watch to print s.
	waitFor := func(s string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), s); {
			if time.Now().After(deadline) {
				cancel()
				<-done
				t.Fatalf("watch did not print %s; output %s", s, out.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	_, err := c.InsertOne(context.Background(), bson.D{{Key: "_id", Value: "first"}})
	must(t, err)
	waitFor(`"first"`)
	// The stream is open and printing: this one must be followed.
	_, err = c.InsertOne(context.Background(), bson.D{{Key: "_id", Value: "live"}})
	must(t, err)
	waitFor(`"live"`)
	cancel()
	if code := <-done; code != 0 || !strings.Contains(out.String(), `"operationType":"insert"`) {
		t.Fatalf("exit %d, output %s", code, out.String())
	}
}

func TestCheckChangeLogCLI(t *testing.T) {
	t.Parallel()
	dir := watchFixture(t)
	out, errOut, code := cli(t, nil, dir, "", "check", "--change-log")
	if code != 0 || !strings.Contains(out, "agrees with 2 collection(s)") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	// A write made without the log is a document without its event.
	if _, errOut, code := cli(t, nil, dir, "", "eval", `db.s.insertOne({_id: "quiet"})`); code != 0 {
		t.Fatal(errOut)
	}
	out, _, code = cli(t, nil, dir, "", "check", "--change-log")
	if code != 1 || !strings.Contains(out, `"quiet" has no insert event`) {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// TestWatchFromNow: with --from-now, an event committed before the
// watch started is not printed and those after it are.
func TestWatchFromNow(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	e := &env{ctx: ctx, db: "test", stdout: out, stderr: &syncBuffer{}, isTerm: func(any) bool { return false },
		getenv: func(k string) string {
			if k == "TTLKV_DIR" {
				return dir
			}
			return ""
		}}
	db, err := e.open(engine.Options{ChangeStreams: true})
	must(t, err)
	c := db.Database("test").Collection("c")
	_, err = c.InsertOne(context.Background(), bson.D{{Key: "_id", Value: "old"}})
	must(t, err)
	done := make(chan int, 1)
	go func() {
		f := &watchFlags{maxTimeMS: 50, fromNow: true}
		stage, pipe, _ := f.pipeline()
		done <- e.closeDB("watch", db, e.watch(db, "test.c", stage, pipe, f))
	}()
	// The watch starts at some moment after "old": insert until one
	// insert made after that moment is printed (10 s at most).
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; !strings.Contains(out.String(), `"operationType":"insert"`); i++ {
		if time.Now().After(deadline) {
			cancel()
			<-done
			t.Fatalf("nothing printed; output %s", out.String())
		}
		_, err := c.InsertOne(context.Background(), bson.D{{Key: "_id", Value: i}})
		must(t, err)
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 || strings.Contains(out.String(), `"old"`) {
		t.Fatalf("exit %d, output %s", code, out.String())
	}
}
