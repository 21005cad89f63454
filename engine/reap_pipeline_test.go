package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The pipelined delete stage (batchDeleter.pipeline, the TTL monitor's)
// decides as the synchronous one does whatever changes while a batch is
// staged and the previous one is being written: here the change lands
// at the commit of the second of three batches, whose transaction was
// begun before the first batch's commit was sent, so a change to one of
// its documents can only be caught by the conflict check (and the
// synchronous re-run) or by the re-check under c.wmu.
func TestPipelinedBatchChanges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		change  func(t *testing.T, db *DB, now time.Time)
		want    []int // survivors by _id
		deleted int64
		dropped bool
	}{
		{"nothing", func(*testing.T, *DB, time.Time) {}, []int{9}, 6, false},
		{"update refreshes a staged document", func(t *testing.T, db *DB, now time.Time) {
			if _, err := db.Database("test").Collection("c").UpdateOne(context.Background(), bson.D{{Key: "_id", Value: 3}},
				bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: dt(now)}}}}, false); err != nil {
				t.Fatal(err)
			}
		}, []int{3, 9}, 5, false},
		{"delete of a staged document", func(t *testing.T, db *DB, now time.Time) {
			mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": 4}, "limit": 1}]}`)
		}, []int{9}, 5, false},
		{"collMod makes nothing expired", func(t *testing.T, db *DB, now time.Time) {
			mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 86400}}`)
		}, []int{3, 4, 5, 6, 9}, 2, false},
		{"new index", func(t *testing.T, db *DB, now time.Time) {
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"k": 1}, "name": "k_1"}]}`)
		}, []int{9}, 6, false},
		{"drop", func(t *testing.T, db *DB, now time.Time) {
			mustRun(t, db, "test", `{"drop": "c"}`)
		}, nil, 2, true},
	}
	for _, tc := range cases {
		// recheckPure (the TTL monitor's) skips the re-check under the
		// lock when the catalog entry is unchanged: the conflict check
		// alone must catch the changed document.
		for _, pure := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/pure=%v", tc.name, pure), func(t *testing.T) {
				db, clk, _ := openTest(t)
				now := clk.Now()
				mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
				for i := 1; i <= 6; i++ {
					insertDocs(t, db, "c", bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(now.Add(-time.Hour))}, {Key: "k", Value: i}})
				}
				insertDocs(t, db, "c", bson.D{{Key: "_id", Value: 9}, {Key: "t", Value: dt(now.Add(time.Hour))}, {Key: "k", Value: 9}})
				co := db.lookup("test", "c")
				ixID := co.m().Index("t_1").ID
				commits := 0
				bd := &batchDeleter{db: db, c: co, targets: deleteTargets{docs: 2}, pipeline: true, stats: true, recheckPure: pure,
					recheck: func(m *catalog.Coll, d bson.D) bool {
						ix := indexByID(m, ixID)
						return ix != nil && expiredUnder(ix, d, cutoffFor(db.now(), ix.Expire))
					}}
				bd.beforeCommit = func() {
					commits++
					if commits == 2 {
						tc.change(t, db, now)
					}
				}
				before := db.stats.bdBatches.Load()
				n, err := bd.run(context.Background(), []uint64{1, 2, 3, 4, 5, 6, 7}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if commits < 2 {
					t.Fatalf("%d commits, want at least 2", commits)
				}
				if n != tc.deleted {
					t.Fatalf("deleted %d, want %d", n, tc.deleted)
				}
				if got := db.stats.bdBatches.Load() - before; got != (n+1)/2 {
					t.Fatalf("%d batches counted for %d documents at 2 a batch", got, n)
				}
				if tc.dropped {
					return
				}
				var got []int
				for _, d := range findAll(t, db, "test", "c", bson.D{}) {
					got = append(got, int(toInt64(t, idOf(d))))
				}
				slices.Sort(got)
				if !slices.Equal(got, tc.want) {
					t.Fatalf("survivors %v, want %v", got, tc.want)
				}
				mustValidate(t, db, "test", "c")
			})
		}
	}
}

// Pipelined TTL batches yield to writers exactly as synchronous ones:
// a batch whose commit found c.wmu held makes the next one wait.
func TestPipelinedBatchYields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		contended []bool // per batch
		sleeps    int
	}{
		{"no writers", []bool{false, false, false}, 0},
		{"writer at the first commit", []bool{true, false, false}, 1},
		{"writers at every commit", []bool{true, true, true}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, clk, _ := openTest(t)
			now := clk.Now()
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
			for i := 1; i <= 6; i++ {
				insertDocs(t, db, "c", bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(now.Add(-time.Hour))}})
			}
			co := db.lookup("test", "c")
			batch := 0
			var slept []time.Duration
			db.opts.seams.writerAt = func(*batchDeleter) bool { batch++; return tc.contended[batch-1] }
			db.opts.seams.pause = func(d time.Duration) { slept = append(slept, d) }
			bd := &batchDeleter{db: db, c: co, targets: deleteTargets{docs: 2}, yield: true, pipeline: true,
				recheck: func(*catalog.Coll, bson.D) bool { return true }}
			n, err := bd.run(context.Background(), []uint64{1, 2, 3, 4, 5, 6}, nil)
			if err != nil || n != 6 {
				t.Fatalf("deleted %d, err %v", n, err)
			}
			if batch != 3 || len(slept) != tc.sleeps {
				t.Fatalf("%d batches, %d pauses; want 3 and %d", batch, len(slept), tc.sleeps)
			}
			if got := count(t, db, "test", "c"); got != 0 {
				t.Fatalf("%d documents left", got)
			}
		})
	}
}

// The TTL reaper decodes only the fields the collection's index keys
// start with (decodeFields), and the deletes still remove every index
// entry of every reaped document: indexes on nested, compound, unique,
// multikey and descending keys, documents with unindexed fields before
// and after the indexed ones and with duplicate field names. A partial
// index makes it decode whole documents. validate finds no entry left
// behind.
func TestReapDecodesIndexedFieldsOnly(t *testing.T) {
	t.Parallel()
	db, clk, _ := openTest(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"exp": 1}, "name": "exp_1", "expireAfterSeconds": 0},
		{"key": {"a.b": 1}, "name": "ab"},
		{"key": {"c": 1, "exp": -1}, "name": "c_exp"},
		{"key": {"u": 1}, "name": "u", "unique": true, "sparse": true},
		{"key": {"tags": 1}, "name": "tags"}]}`)
	var docs []bson.D
	for i := 0; i < 300; i++ {
		exp := dt(now.Add(-time.Minute))
		if i%3 == 0 {
			exp = dt(now.Add(time.Hour))
		}
		d := bson.D{{Key: "_id", Value: int32(i)}, {Key: "pad", Value: strings.Repeat("x", i%50)}, {Key: "exp", Value: exp},
			{Key: "a", Value: bson.D{{Key: "b", Value: int32(i % 7)}, {Key: "z", Value: "unindexed"}}},
			{Key: "c", Value: fmt.Sprint("c", i%5)}, {Key: "tags", Value: bson.A{int32(i), "t", bson.D{{Key: "x", Value: 1.5}}}},
			{Key: "tail", Value: bson.A{bson.D{{Key: "deep", Value: bson.A{int32(1)}}}}}}
		if i%2 == 0 {
			d = append(d, bson.E{Key: "u", Value: int64(i)})
		}
		if i%10 == 1 {
			d = append(d, bson.E{Key: "a", Value: "second a: only the first counts"})
		}
		docs = append(docs, d)
	}
	insertChunked(t, db, "c", docs)
	c := db.lookup("test", "c")
	bd := &batchDeleter{recheckPure: true, indexedOnly: true}
	if got := fmt.Sprint(bd.decodeFields(c.m())); got != "[_id exp a c u tags]" {
		t.Fatalf("decodeFields = %s, want [_id exp a c u tags]", got)
	}
	if r := pass(t, db); r.Deleted != 200 {
		t.Fatalf("pass deleted %d, want 200", r.Deleted)
	}
	if n := count(t, db, "test", "c"); n != 100 {
		t.Fatalf("%d documents left, want 100", n)
	}
	mustValidate(t, db, "test", "c")

	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"k": 1}, "name": "k", "partialFilterExpression": {"pad": {"$exists": true}}}]}`)
	if got := bd.decodeFields(c.m()); got != nil {
		t.Fatalf("decodeFields with a partial index = %q, want nil (whole documents)", got)
	}
	clk.Advance(2 * time.Hour)
	if r := pass(t, db); r.Deleted != 100 {
		t.Fatalf("second pass deleted %d, want 100", r.Deleted)
	}
	mustValidate(t, db, "test", "c")
}
