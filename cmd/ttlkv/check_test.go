package main

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, errOut, code := cli(t, nil, dir, "", "check")
	if code != 0 || !strings.Contains(out, "all 0 collection(s) consistent") {
		t.Fatalf("empty: exit %d %q %q", code, out, errOut)
	}
	if _, errOut, code := cli(t, nil, dir, "", "eval", `db.a.insertMany([{x: 1}, {x: 2}]); db.a.createIndex({x: 1}); db.getSiblingDB("other").b.insertOne({})`); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code = cli(t, nil, dir, "", "check")
	if code != 0 || !strings.Contains(out, "ok       other.b (1 records, 1 indexes)") || !strings.Contains(out, "ok       test.a (2 records, 2 indexes)") {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errOut)
	}
}

func TestReapAndStats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	setup := `db.s.createIndex({at: 1}, {expireAfterSeconds: 60});
db.s.insertMany([{at: new Date(Date.now() - 3600 * 1000)}, {at: new Date(Date.now() - 7200 * 1000)}, {at: new Date()}])`
	if _, errOut, code := cli(t, nil, dir, "", "eval", setup); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code := cli(t, nil, dir, "", "reap")
	if code != 0 || !strings.HasPrefix(out, "TTL pass: deleted 2 expired document(s)") || !strings.Contains(out, "test.s index at_1: 2 deleted") {
		t.Errorf("reap: exit %d stdout %q stderr %q", code, out, errOut)
	}
	out, _, code = cli(t, nil, dir, "", "reap", "--json")
	if code != 0 || !strings.HasPrefix(out, `{"deleted":0,`) {
		t.Errorf("reap --json: exit %d stdout %q", code, out)
	}
	out, errOut, code = cli(t, nil, dir, "", "stats")
	for _, want := range []string{"documents        1 in 1 collection(s)", "test.s", "TTL monitor"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("stats: exit %d, stdout lacks %q:\n%s%s", code, want, out, errOut)
		}
	}
	out, _, code = cli(t, nil, dir, "", "stats", "--json")
	if code != 0 || !strings.HasPrefix(out, `{"serverStatus":{`) || !strings.Contains(out, `"ns":"test.s","count":1`) {
		t.Errorf("stats --json: exit %d stdout %q", code, out)
	}
}

// cancelOnDelete is a context that cancels itself once its database
// has reported a TTL delete: an interrupt (Ctrl-C) that lands in the
// middle of a TTL pass, between two of its batches. The pass checks its
// context before each chunk of expired keys and adds a chunk's deletes
// to the statistics only after the chunk is done, so the interrupt
// lands after the first chunk whatever the speed. Err looks at the
// statistics; once it reports the cancellation, Done is closed too.
type cancelOnDelete struct {
	context.Context // from context.WithCancel
	cancel          context.CancelFunc
	db              atomic.Pointer[engine.DB]
}

func newCancelOnDelete() *cancelOnDelete {
	ctx, cancel := context.WithCancel(context.Background())
	return &cancelOnDelete{Context: ctx, cancel: cancel}
}

func (c *cancelOnDelete) Err() error {
	if db := c.db.Load(); db != nil && db.Stats().TTLDeletedDocuments > 0 {
		c.cancel()
	}
	return c.Context.Err()
}

// An interrupted ttlkv reap prints what the pass deleted before the
// interrupt, per index, then the error.
func TestReapInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The setup goes through the engine, not eval. With visits of 100
	// documents (below), 1,000 documents make ten chunks to interrupt
	// between; more only make the test slow under -race.
	const total = 1000
	setupDB, err := engine.Open(dir, engine.Options{DisableTTLMonitor: true})
	if err != nil {
		t.Fatal(err)
	}
	s := setupDB.Database("test").Collection("s")
	if _, err := s.CreateIndexes(context.Background(), []bson.D{{{Key: "key", Value: bson.D{{Key: "at", Value: 1}}},
		{Key: "name", Value: "at_1"}, {Key: "expireAfterSeconds", Value: 60}}}); err != nil {
		t.Fatal(err)
	}
	docs := make([]any, total)
	old := bson.NewDateTimeFromTime(time.Now().Add(-time.Hour))
	for i := range docs {
		docs[i] = bson.D{{Key: "at", Value: old}}
	}
	if _, err := s.InsertMany(context.Background(), docs, true); err != nil {
		t.Fatal(err)
	}
	if err := setupDB.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := newCancelOnDelete()
	defer ctx.cancel()
	// Small visits so that the pass has many chunks to be interrupted
	// between.
	out, errOut, code := cliEnv(t, ctx, dir, "", func(e *env) {
		e.openOpts = func(o *engine.Options) {
			o.Params = map[string]any{"ttlIndexDeleteTargetDocs": 100}
		}
		e.opened = func(db *engine.DB) { ctx.db.Store(db) }
	}, "reap")
	m := regexp.MustCompile(`^TTL pass interrupted after deleting (\d+) expired document\(s\)\n  test.s index at_1: (\d+) deleted\n$`).FindStringSubmatch(out)
	if code != 1 || m == nil || m[1] != m[2] || !strings.Contains(errOut, "context canceled") {
		t.Fatalf("interrupted reap: exit %d stdout %q stderr %q", code, out, errOut)
	}
	deleted, _ := strconv.Atoi(m[1])
	if deleted == 0 || deleted >= total {
		t.Fatalf("interrupted reap deleted %d of %d", deleted, total)
	}
	out, errOut, code = cli(t, nil, dir, "", "reap")
	if code != 0 || !strings.HasPrefix(out, "TTL pass: deleted "+strconv.Itoa(total-deleted)+" expired document(s)") {
		t.Fatalf("the next reap: exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// TestCheckWithViews: the system.views a database with views lists
// (as mongod's) is not a collection check validates: its views are
// skipped as views, and nothing fails.
func TestCheckWithViews(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, errOut, code := cli(t, nil, dir, "", "eval", `db.a.insertOne({x: 1}); db.createView("v", "a", [])`); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code := cli(t, nil, dir, "", "check")
	if code != 0 || !strings.Contains(out, "ok       test.a (1 records, 1 indexes)") || !strings.Contains(out, "skip     test.v (a view") || strings.Contains(out, "system.views") {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// TestCheckWarnings: documents that fail their collection's validator
// are validate's warning, printed as a warning under a collection that
// is ok: check still exits 0.
func TestCheckWarnings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	setup := `db.createCollection("v", {validator: {a: {$exists: true}}});
db.runCommand({insert: "v", documents: [{_id: 1}], bypassDocumentValidation: true})`
	if _, errOut, code := cli(t, nil, dir, "", "eval", setup); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code := cli(t, nil, dir, "", "check")
	want := "ok       test.v (1 records, 1 indexes)\n" +
		"         warning: Detected one or more documents not compliant with the collection's schema. Check logs for log id 5363500.\n"
	if code != 0 || !strings.Contains(out, want) || !strings.HasSuffix(out, "1 warning(s)\nall 1 collection(s) consistent\n") {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// ttlkv check lists, under an inconsistent collection's errors, each
// index entry validate found missing (with the document's _id) or
// extra, then the warnings that count them; the exit status is 1.
func TestCheckListsIndexEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{DisableTTLMonitor: true})
	if err != nil {
		t.Fatal(err)
	}
	c := db.Database("test").Collection("c")
	if _, err := c.CreateIndexes(context.Background(), []bson.D{{{Key: "key", Value: bson.D{{Key: "a", Value: 1}, {Key: "b", Value: -1}}}, {Key: "name", Value: "a_1_b_-1"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertMany(context.Background(), []any{bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}, bson.D{{Key: "_id", Value: "two"}, {Key: "a", Value: 2.5}, {Key: "b", Value: "x"}}}, true); err != nil {
		t.Fatal(err)
	}
	if n, err := engine.RemoveIndexEntriesForTesting(db, "test", "c", "a_1_b_-1", "two"); n != 1 || err != nil {
		t.Fatalf("RemoveIndexEntriesForTesting: %d %v", n, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := cli(t, nil, dir, "", "check")
	want := `INVALID  test.c (2 records, 2 indexes)
         - Index with name 'a_1_b_-1' has inconsistencies.
         missing: index a_1_b_-1, record 2, _id: "two", key { a: 2.5, b: "x" }
         warning: Detected 1 missing index entries.
1 warning(s)
1 of 1 collection(s) inconsistent
`
	if code != 1 || out != want {
		t.Errorf("check: exit %d stderr %q stdout\n%s\nwant\n%s", code, errOut, out, want)
	}
}

// printEntries prints an extra entry (no document, so no _id) as it
// prints a missing one.
func TestCheckPrintsExtraEntries(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	e := &env{stdout: &out}
	reply := bson.D{{Key: "extraIndexEntries", Value: bson.A{
		bson.D{{Key: "indexName", Value: "a_1"}, {Key: "recordId", Value: int64(77)}, {Key: "indexKey", Value: bson.D{{Key: "a", Value: 9.0}}}},
	}}}
	printEntries(e, reply, "extraIndexEntries", "extra")
	if got, want := out.String(), "         extra:   index a_1, record 77, key { a: 9.0 }\n"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
