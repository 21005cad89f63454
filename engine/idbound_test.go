package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// idbHarness drives one collection of a test DB for the _id bound
// tests (idbound.go).
type idbHarness struct {
	t    *testing.T
	db   *DB
	dir  string
	clk  *fakeClock
	coll string
}

func newIDBHarness(t *testing.T) *idbHarness {
	db, clk, dir := openTest(t)
	return &idbHarness{t: t, db: db, dir: dir, clk: clk, coll: "c"}
}

func (h *idbHarness) c() *Collection { return h.db.Database("test").Collection(h.coll) }

func (h *idbHarness) insert(id any) error {
	_, err := h.c().InsertOne(context.Background(), bson.D{{Key: "_id", Value: id}, {Key: "v", Value: "x"}})
	return err
}

// ok inserts documents with these _ids, each of which must succeed.
func (h *idbHarness) ok(ids ...any) {
	h.t.Helper()
	for _, id := range ids {
		if err := h.insert(id); err != nil {
			h.t.Fatalf("insert _id %v (%T) into %s: %v", id, id, h.coll, err)
		}
	}
}

// dup inserts documents with these _ids, each of which must fail with
// 11000 on the _id index.
func (h *idbHarness) dup(ids ...any) {
	h.t.Helper()
	for _, id := range ids {
		checkCode(h.t, fmt.Sprintf("insert _id %v (%T) into %s", id, id, h.coll), h.insert(id), document.CodeDuplicateKey, "index: _id_ dup key")
	}
}

// many inserts docs with these _ids in one InsertMany; the write errors
// must be 11000 at positions wantErr.
func (h *idbHarness) many(ordered bool, ids []any, wantErr ...int) {
	h.t.Helper()
	docs := make([]any, len(ids))
	for i, id := range ids {
		docs[i] = bson.D{{Key: "_id", Value: id}}
	}
	_, err := h.c().InsertMany(context.Background(), docs, ordered)
	var got []int
	if err != nil {
		var bwe *BulkWriteError
		if !asErr(err, &bwe) {
			h.t.Fatalf("InsertMany %v: %v", ids, err)
		}
		for _, we := range bwe.WriteErrors {
			if we.Err.Code != document.CodeDuplicateKey {
				h.t.Fatalf("InsertMany %v: write error %d: %v", ids, we.Index, we.Err)
			}
			got = append(got, we.Index)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(wantErr) && !(len(got) == 0 && len(wantErr) == 0) {
		h.t.Fatalf("InsertMany(ordered=%v) %v: duplicates at %v, want %v", ordered, ids, got, wantErr)
	}
}

func (h *idbHarness) reopen() { h.db = reopen(h.t, h.db, h.dir, h.clk) }

func (h *idbHarness) run(cmd string) { mustRun(h.t, h.db, "test", cmd) }

// int32Ids returns the int32 _ids from..to, descending when from > to.
func int32Ids(from, to int) []any {
	var ids []any
	step := 1
	if from > to {
		step = -1
	}
	for i := from; ; i += step {
		ids = append(ids, int32(i))
		if i == to {
			return ids
		}
	}
}

// Duplicate _ids are refused with 11000 whether they are below the
// _id index's bound, at it, or the bound had to be read again (reopen,
// deletes, decreasing ids, rename, drop), and new ones are accepted.
func TestIDBoundDuplicates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name string
		run  func(h *idbHarness)
		want int64 // documents of h.coll at the end
	}{
		{"increasing then an old id", func(h *idbHarness) {
			h.ok(int32Ids(1, 50)...)
			h.dup(int32(10), int32(1), int32(49))
			h.ok(int32(51))
		}, 51},
		{"the current maximum", func(h *idbHarness) {
			h.ok(int32Ids(1, 5)...)
			h.dup(int32(5))
			h.ok(int32(6))
			h.dup(int32(6))
		}, 6},
		{"an equal number of another type", func(h *idbHarness) {
			h.ok(int32Ids(1, 10)...)
			h.dup(5.0, int64(10), 10.0)
			h.ok(10.5)
			h.dup(10.5)
		}, 11},
		{"after reopen", func(h *idbHarness) {
			h.ok(int32Ids(1, 20)...)
			h.reopen()
			h.dup(int32(20), int32(7))
			h.ok(int32(21))
			h.reopen()
			h.dup(int32(21))
		}, 21},
		{"after deleting the top ids", func(h *idbHarness) {
			h.ok(int32Ids(1, 20)...)
			if _, err := h.c().DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 15}}}}); err != nil {
				h.t.Fatal(err)
			}
			h.ok(int32(17)) // deleted: its key is below the bound, which deletes do not lower
			h.dup(int32(10), int32(14), int32(17))
			h.ok(int32(15), int32(20))
			h.dup(int32(20))
		}, 17},
		{"decreasing ids", func(h *idbHarness) {
			h.ok(int32Ids(20, 1)...)
			h.dup(int32(10), int32(1), int32(20))
			h.ok(int32(0), int32(21))
		}, 22},
		{"generated ObjectIds, then ids of other types", func(h *idbHarness) {
			var ids []any
			for i := 0; i < 10; i++ {
				r, err := h.c().InsertOne(ctx, bson.D{{Key: "v", Value: i}})
				if err != nil {
					h.t.Fatal(err)
				}
				ids = append(ids, r.InsertedID)
			}
			h.dup(ids[0], ids[9])
			h.ok(int32(1), "s") // numbers and strings sort below ObjectIds
			h.dup(int32(1), "s", ids[5])
		}, 12},
		{"InsertMany ordered, duplicate within the batch", func(h *idbHarness) {
			h.ok(int32Ids(1, 3)...)
			h.many(true, []any{int32(4), int32(5), int32(4), int32(6)}, 2)
			h.dup(int32(4), int32(5))
			h.ok(int32(6))
		}, 6},
		{"InsertMany unordered, duplicates within the batch and below it", func(h *idbHarness) {
			h.ok(int32Ids(1, 3)...)
			h.many(false, []any{int32(4), int32(5), int32(4), int32(6), int32(2), int32(6)}, 2, 4, 5)
			h.dup(int32(6))
		}, 6},
		{"InsertMany of a duplicate of the maximum", func(h *idbHarness) {
			h.ok(int32Ids(1, 3)...)
			h.many(false, []any{int32(9), int32(3), int32(8)}, 1)
			h.dup(int32(9), int32(8))
		}, 5},
		{"upsert", func(h *idbHarness) {
			h.ok(int32Ids(1, 5)...)
			_, err := h.c().UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(3)}, {Key: "v", Value: "nomatch"}},
				bson.D{{Key: "$set", Value: bson.D{{Key: "w", Value: 1}}}}, true)
			checkCode(h.t, "upsert of an existing _id", err, document.CodeDuplicateKey, "index: _id_ dup key")
			_, err = h.c().UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(5)}, {Key: "v", Value: "nomatch"}},
				bson.D{{Key: "$set", Value: bson.D{{Key: "w", Value: 1}}}}, true)
			checkCode(h.t, "upsert of the maximum _id", err, document.CodeDuplicateKey, "index: _id_ dup key")
			r, err := h.c().UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(9)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "w", Value: 1}}}}, true)
			if err != nil || r.UpsertedCount != 1 {
				h.t.Fatalf("upsert of a new _id: %+v, %v", r, err)
			}
			h.dup(int32(9))
			_, err = h.c().ReplaceOne(ctx, bson.D{{Key: "_id", Value: int32(9)}, {Key: "v", Value: "nomatch"}}, bson.D{{Key: "v", Value: "y"}}, true)
			checkCode(h.t, "replace upsert of the upserted _id", err, document.CodeDuplicateKey, "index: _id_ dup key")
			// An update that keeps _id leaves the index alone.
			if _, err := h.c().UpdateMany(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: 1}}}}, false); err != nil {
				h.t.Fatal(err)
			}
			h.dup(int32(1), int32(9))
			h.ok(int32(10))
		}, 7},
		{"rename, then a new collection under the old name", func(h *idbHarness) {
			h.ok(int32Ids(1, 10)...)
			mustRun(h.t, h.db, "admin", `{"renameCollection": "test.c", "to": "test.r"}`)
			h.coll = "r"
			h.dup(int32(5), int32(10))
			h.ok(int32(11))
			h.coll = "c"
			h.ok(int32(5), int32(11)) // a new, empty collection
			h.dup(int32(5))
			mustRun(h.t, h.db, "admin", `{"renameCollection": "test.r", "to": "test.c", "dropTarget": true}`)
			h.dup(int32(11), int32(1))
			h.ok(int32(12))
		}, 12},
		{"drop and recreate", func(h *idbHarness) {
			h.ok(int32Ids(1, 10)...)
			if err := h.c().Drop(ctx); err != nil {
				h.t.Fatal(err)
			}
			h.ok(int32(3), int32(1))
			h.dup(int32(3), int32(1))
		}, 2},
		{"dropDatabase and recreate after reopen", func(h *idbHarness) {
			h.ok(int32Ids(1, 10)...)
			h.reopen()
			h.dup(int32(4))
			h.run(`{"dropDatabase": 1}`)
			h.ok(int32(4))
			h.dup(int32(4))
		}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newIDBHarness(t)
			tc.run(h)
			if n := count(t, h.db, "test", h.coll); n != tc.want {
				t.Fatalf("%s holds %d documents, want %d", h.coll, n, tc.want)
			}
			mustValidate(t, h.db, "test", h.coll)
		})
	}
}

// The unique-key check of increasing _ids reads nothing: the _id index's
// last key is read once per collection handle and every later key is
// above the bound. Fails if the shortcut is removed from prefetchUnique
// or writeCtx.hasKey.
func TestIDBoundSkipsUniqueReads(t *testing.T) {
	t.Parallel()
	h := newIDBHarness(t)
	ctx := context.Background()
	reads := func() int64 { return h.db.stats.uniqReads.Load() }
	loads := func() int64 { return h.db.stats.idBoundLoads.Load() }
	h.ok(int32Ids(1, 300)...)
	for i := 0; i < 100; i++ {
		if _, err := h.c().InsertOne(ctx, bson.D{{Key: "v", Value: i}}); err != nil { // generated ObjectIds
			t.Fatal(err)
		}
	}
	var docs []any
	for i := 0; i < 50; i++ {
		docs = append(docs, bson.D{{Key: "v", Value: i}})
	}
	if _, err := h.c().InsertMany(ctx, docs, true); err != nil {
		t.Fatal(err)
	}
	if r, l := reads(), loads(); r != 0 || l != 1 {
		t.Fatalf("450 increasing _ids: %d unique-key reads and %d bound loads, want 0 and 1", r, l)
	}
	// A key below the bound is read (the counter sees reads).
	h.dup(int32(7))
	if r := reads(); r != 1 {
		t.Fatalf("a duplicate below the bound: %d unique-key reads, want 1", r)
	}
	// Reopen: the bound is read from disk once, by the first insert.
	h.reopen()
	if l := loads(); l != 0 {
		t.Fatalf("after reopen: %d bound loads before any write", l)
	}
	for i := 0; i < 20; i++ {
		if _, err := h.c().InsertOne(ctx, bson.D{{Key: "v", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	if r, l := reads(), loads(); r != 0 || l != 1 {
		t.Fatalf("after reopen: %d unique-key reads and %d bound loads, want 0 and 1", r, l)
	}
	// A unique secondary index is still checked by reading it.
	mustValidate(t, h.db, "test", "c")
	h.coll = "u"
	if _, err := h.c().CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: "u", Value: 1}}, Options: bson.D{{Key: "unique", Value: true}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.c().InsertOne(ctx, bson.D{{Key: "u", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if r := reads(); r != 1 {
		t.Fatalf("an insert with a unique secondary index: %d unique-key reads, want 1", r)
	}
	_, err := h.c().InsertOne(ctx, bson.D{{Key: "u", Value: 1}})
	checkCode(t, "duplicate u", err, document.CodeDuplicateKey, "index: u_1 dup key")
	mustValidate(t, h.db, "test", "u")
}

// Capped collections keep their _id index in memory: no bound is kept
// for them, and duplicates are still refused.
func TestIDBoundNotForCapped(t *testing.T) {
	t.Parallel()
	h := newIDBHarness(t)
	h.run(`{"create": "c", "capped": true, "size": 1048576}`)
	h.ok(int32Ids(1, 20)...)
	h.dup(int32(20), int32(3))
	h.ok(int32(21))
	c := h.db.lookup("test", "c")
	c.wmu.Lock()
	known := c.idb.Known(c.m().ID)
	c.wmu.Unlock()
	if known || h.db.stats.idBoundLoads.Load() != 0 {
		t.Fatalf("capped collection: bound known=%v, %d loads", known, h.db.stats.idBoundLoads.Load())
	}
	mustValidate(t, h.db, "test", "c")
}

// Time-series: new buckets of increasing times are checked against the
// buckets collection's bound without reads, across a reopen; a copy of
// an existing bucket is refused; a bucket below the bound is accepted.
func TestIDBoundTimeseries(t *testing.T) {
	t.Parallel()
	h := newIDBHarness(t)
	h.run(`{"create": "w", "timeseries": {"timeField": "t", "metaField": "m", "granularity": "seconds"}}`)
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	insertHour := func(hr int) {
		mustInsertTS(t, h.db, "w", fmt.Sprintf(`{"t": %s, "m": "a", "v": %d}`, tsDate(day.Add(time.Duration(hr)*time.Hour)), hr))
	}
	for hr := 10; hr < 20; hr++ { // one bucket per hour
		insertHour(hr)
	}
	if r, l := h.db.stats.uniqReads.Load(), h.db.stats.idBoundLoads.Load(); r != 0 || l != 1 {
		t.Fatalf("10 new buckets: %d unique-key reads and %d bound loads, want 0 and 1", r, l)
	}
	h.reopen()
	for hr := 20; hr < 24; hr++ {
		insertHour(hr)
	}
	if r := h.db.stats.uniqReads.Load(); r != 0 {
		t.Fatalf("after reopen: %d unique-key reads", r)
	}
	bs := tsBucketDocs(t, h.db, "w", "t")
	if len(bs) != 14 {
		t.Fatalf("%d buckets, want 14", len(bs))
	}
	h.coll = "system.buckets.w"
	h.dup(bs[0][0].Value, bs[13][0].Value)
	h.coll = "w"
	insertHour(2) // a new bucket below the bound
	if n := count(t, h.db, "test", "w"); n != 15 {
		t.Fatalf("count = %d, want 15", n)
	}
	mustValidate(t, h.db, "test", "system.buckets.w")
}

// Concurrent inserters of the same _ids: each _id is inserted exactly
// once, beside a batched delete of other documents (which stages
// without c.wmu) and updates. Run with -race.
func TestIDBoundConcurrentWriters(t *testing.T) {
	t.Parallel()
	h := newIDBHarness(t)
	ctx := context.Background()
	const n, writers = 300, 3
	for i := 0; i < 200; i++ {
		h.ok(int32(100000 + i))
	}
	var wg sync.WaitGroup
	wins := make([]int, n)
	var mu sync.Mutex
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < n; i++ {
				id := i
				if w%2 == 1 {
					id = n - 1 - i
				}
				err := h.insert(int32(id))
				if err == nil {
					mu.Lock()
					wins[id]++
					mu.Unlock()
					continue
				}
				var e *Error
				if !asErr(err, &e) || e.Code != document.CodeDuplicateKey {
					t.Errorf("insert %d: %v", id, err)
					return
				}
			}
		}(w)
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		if _, err := h.c().DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 100000}}}}); err != nil {
			t.Error(err)
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			if _, err := h.c().UpdateMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 50}}}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "k", Value: 1}}}}, false); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()
	for id, w := range wins {
		if w != 1 {
			t.Fatalf("_id %d inserted %d times", id, w)
		}
	}
	if got := count(t, h.db, "test", "c"); got != n {
		t.Fatalf("count = %d, want %d", got, n)
	}
	mustValidate(t, h.db, "test", "c")
}
