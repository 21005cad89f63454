package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// createCapped creates test.name as a capped collection.
func createCapped(t *testing.T, db *DB, name string, size, max int64) *Collection {
	t.Helper()
	opts := bson.D{{Key: "capped", Value: true}, {Key: "size", Value: size}}
	if max != 0 {
		opts = append(opts, bson.E{Key: "max", Value: max})
	}
	if err := db.Database("test").CreateCollection(context.Background(), name, opts); err != nil {
		t.Fatalf("create capped %s: %v", name, err)
	}
	return db.Database("test").Collection(name)
}

// ints returns the "i" field of each document.
func ints(t *testing.T, docs []bson.D) []int64 {
	t.Helper()
	out := make([]int64, len(docs))
	for i, d := range docs {
		v, _ := get(d, "i")
		n, ok := asInt64(v)
		if !ok {
			t.Fatalf("document %v has no integer i", d)
		}
		out[i] = n
	}
	return out
}

func findOpts(t *testing.T, c *Collection, filter bson.D, o FindOptions) []bson.D {
	t.Helper()
	cur, err := c.Find(context.Background(), filter, o)
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	docs, err := cur.All(context.Background())
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	return docs
}

// consecutive reports whether a is lo, lo+1, ..., hi.
func consecutive(a []int64, lo, hi int64) bool {
	if int64(len(a)) != hi-lo+1 {
		return false
	}
	for i, v := range a {
		if v != lo+int64(i) {
			return false
		}
	}
	return true
}

// docs/capped.md §7.1: create validation.
func TestCappedCreateValidation(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	cases := []struct {
		cmd  string
		code document.Code
		frag string
	}{
		{`{"create": "c", "capped": true}`, document.CodeInvalidOptions, "'size' field is required"},
		{`{"create": "c", "size": 4096}`, document.CodeInvalidOptions, "'capped' field needs to be true"},
		{`{"create": "c", "capped": false, "size": 4096}`, document.CodeInvalidOptions, "'capped' field needs to be true"},
		{`{"create": "c", "max": 10}`, document.CodeInvalidOptions, "'capped' field needs to be true"},
		{`{"create": "c", "capped": "yes", "size": 4096}`, document.CodeTypeMismatch, "create.capped"},
		{`{"create": "c", "capped": true, "size": "4096"}`, document.CodeTypeMismatch, "create.size"},
		{`{"create": "c", "capped": true, "size": 4096, "max": "10"}`, document.CodeTypeMismatch, "create.max"},
		{`{"create": "c", "capped": true, "size": 0}`, document.CodeBadValue, "size"},
		{`{"create": "c", "capped": true, "size": -5}`, document.CodeBadValue, "size"},
		{`{"create": "c", "capped": true, "size": 1125899906842625}`, document.CodeBadValue, "size"},
		{`{"create": "c", "capped": true, "size": 4096, "max": 2147483648}`, document.CodeBadValue, "2^31"},
	}
	for _, c := range cases {
		wantCode(t, db, "test", c.cmd, c.code, c.frag)
		if db.lookup("test", "c") != nil {
			t.Fatalf("%s created the collection", c.cmd)
		}
	}
	if _, err := os.Stat(filepath.Join(db.Dir(), cappedDir)); err == nil {
		ents, _ := os.ReadDir(filepath.Join(db.Dir(), cappedDir))
		if len(ents) != 0 {
			t.Fatalf("failed creates left ring files: %v", ents)
		}
	}
}

// docs/capped.md §7.2: the size is kept as given (MongoDB 7.0+ no longer
// rounds it) and shown by listCollections and collStats; the ring file
// is at least 4096 bytes, a multiple of 256.
func TestCappedSizeNormalisation(t *testing.T) {
	t.Parallel()
	db, _, dir := openTest(t)
	cases := []struct {
		size, max         int64
		wantSize, wantMax int64
	}{
		{1, 0, 1, 0},
		{4096, 0, 4096, 0},
		{4097, 0, 4097, 0},
		{5000, 7, 5000, 7},
		{8192, -3, 8192, 0}, // max <= 0: no limit
		{100000, 0, 100000, 0},
	}
	for i, c := range cases {
		name := fmt.Sprintf("c%d", i)
		mustRun(t, db, "test", fmt.Sprintf(`{"create": %q, "capped": true, "size": %d, "max": %d}`, name, c.size, c.max))
		r := mustRun(t, db, "test", fmt.Sprintf(`{"listCollections": 1, "filter": {"name": %q}}`, name))
		batch := field(r, "cursor.firstBatch").(bson.A)
		if len(batch) != 1 {
			t.Fatalf("listCollections %s: %v", name, r)
		}
		opts := field(batch[0].(bson.D), "options").(bson.D)
		want := bson.D{{Key: "capped", Value: true}, {Key: "size", Value: c.wantSize}}
		if c.wantMax > 0 {
			want = append(want, bson.E{Key: "max", Value: c.wantMax})
		}
		if !document.Equal(opts, want) || len(opts) != len(want) {
			t.Errorf("size %d max %d: options %v, want %v", c.size, c.max, opts, want)
		}
		st := mustRun(t, db, "test", fmt.Sprintf(`{"collStats": %q}`, name))
		if field(st, "capped") != true || field(st, "maxSize") != int32(c.wantSize) || field(st, "count") != int32(0) {
			t.Errorf("collStats %s: %v", name, st)
		}
		// MongoDB reports max always, 0 for a collection without one
		// (storage_stats.cpp appends getCappedMaxDocs()).
		if m, ok := get(st, "max"); !ok || m != int32(c.wantMax) {
			t.Errorf("collStats %s max = %v (present %v), want %d", name, m, ok, c.wantMax)
		}
		m := db.lookup("test", name).m()
		fi, err := os.Stat(filepath.Join(dir, cappedDir, cappedFileName(m.ID)))
		if want := cappedRingCapacity(c.size); err != nil || fi.Size() != want {
			t.Errorf("ring file of %s: %v size %v, want %d", name, err, fi, want)
		}
		if !db.Database("test").Collection(name).IsCapped() {
			t.Errorf("IsCapped(%s) = false", name)
		}
	}
	if db.Database("test").Collection("plain").IsCapped() {
		t.Errorf("IsCapped of a missing collection")
	}
	// Same options again: no error; other options: 48.
	mustRun(t, db, "test", `{"create": "c0", "capped": true, "size": 1}`)
	wantCode(t, db, "test", `{"create": "c0", "capped": true, "size": 100}`, document.CodeNamespaceExists, "already exists")
}

// docs/capped.md §7.3: max and size hold after every insert, oldest evicted first,
// over many wraps of the ring, with documents of varied sizes.
func TestCappedWrapAroundRetention(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	db, _, _ := openTest(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		size, max int64
	}{{"bysize", 4096, 0}, {"bymax", 1 << 20, 7}, {"both", 6000, 25}} {
		t.Run(tc.name, func(t *testing.T) {
			c := createCapped(t, db, tc.name, tc.size, tc.max)
			size := tc.size // the data limit is the size as given
			var lastCount int64
			const n = 600 // a 4 KiB ring wraps dozens of times
			for i := 0; i < n; i++ {
				pad := strings.Repeat("x", rng.IntN(200))
				if _, err := c.InsertOne(ctx, bson.D{{Key: "i", Value: int64(i)}, {Key: "pad", Value: pad}}); err != nil {
					t.Fatalf("insert %d: %v", i, err)
				}
				st := db.collStats(db.lookup("test", tc.name))
				if tc.max > 0 && st.count > tc.max {
					t.Fatalf("after insert %d: count %d > max %d", i, st.count, tc.max)
				}
				if st.size > size {
					t.Fatalf("after insert %d: size %d > %d", i, st.size, size)
				}
				if i%50 == 0 || i == n-1 {
					got := ints(t, findAll(t, db, "test", tc.name, nil))
					if int64(len(got)) != st.count || !consecutive(got, int64(i)-st.count+1, int64(i)) {
						t.Fatalf("after insert %d: documents %v (count %d) are not the newest in order", i, got, st.count)
					}
					rev := ints(t, findOpts(t, c, nil, FindOptions{Sort: bson.D{{Key: "$natural", Value: -1}}}))
					for j := range rev {
						if rev[j] != got[len(got)-1-j] {
							t.Fatalf("$natural: -1 gave %v, forward %v", rev, got)
						}
					}
				}
				lastCount = st.count
			}
			if tc.max > 0 && tc.size >= 1<<20 && lastCount != tc.max {
				t.Fatalf("steady count %d, want max %d", lastCount, tc.max)
			}
			mustValidate(t, db, "test", tc.name)
		})
	}
}

// docs/capped.md §7.3: a document larger than the collection is accepted,
// as mongod 7.0 accepts it (capped_resize.js inserts 10 KB documents
// into 256 bytes and expects fewer than two left): every older document
// goes, it stays, counted at its size, until the next insert evicts it.
func TestCappedDocumentTooLarge(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	createCapped(t, db, "c", 4096, 0)
	big := strings.Repeat("b", 5000)
	r := mustRun(t, db, "test", fmt.Sprintf(`{"insert": "c", "documents": [{"i": 1}, {"i": 2, "b": %q}]}`, big))
	if _, bad := get(r, "writeErrors"); bad || field(r, "n") != int32(2) {
		t.Fatalf("insert: %v", r)
	}
	all := findAll(t, db, "test", "c", nil)
	if got := ints(t, all); !equalInts(got, []int64{2}) || field(all[0], "b") != big {
		t.Fatalf("documents %v", got)
	}
	if n, size := cappedStats(t, db, "c"); n != 1 || size != framedSize(t, db, "c", all[0]) || size <= 4096 {
		t.Fatalf("collStats count %d size %d, want 1 and the document's %d", n, size, framedSize(t, db, "c", all[0]))
	}
	if n := len(outsideCopies(t, db, "c")); n != 1 {
		t.Fatalf("%d outside copies, want 1", n)
	}
	mustValidate(t, db, "test", "c")
	// It can grow further (a longer length in its pointer) and shrink.
	for _, n := range []int{300000, 10} {
		mustRun(t, db, "test", fmt.Sprintf(`{"update": "c", "updates": [{"q": {"i": 2}, "u": {"$set": {"b": %q}}}]}`, strings.Repeat("c", n)))
		if d := findAll(t, db, "test", "c", nil); len(d) != 1 || field(d[0], "b") != strings.Repeat("c", n) {
			t.Fatalf("after updating the large document to %d bytes: %.60v", n, d)
		}
		mustValidate(t, db, "test", "c")
	}
	r = mustRun(t, db, "test", fmt.Sprintf(`{"insert": "c", "ordered": false, "documents": [{"i": 3}, {"i": 4, "b": %q}, {"i": 5}]}`, big))
	if _, bad := get(r, "writeErrors"); bad || field(r, "n") != int32(3) {
		t.Fatalf("unordered: %v", r)
	}
	if got := ints(t, findAll(t, db, "test", "c", nil)); !equalInts(got, []int64{5}) {
		t.Fatalf("documents %v", got)
	}
	if n := len(outsideCopies(t, db, "c")); n != 0 {
		t.Fatalf("%d outside copies after the large documents were evicted", n)
	}
	mustValidate(t, db, "test", "c")
	// capped_resize.js: 10 KB documents into a 256-byte collection.
	createCapped(t, db, "r", 256, 0)
	for i := 0; i < 5; i++ {
		mustRun(t, db, "test", `{"insert": "r", "documents": [{"key": "`+strings.Repeat("a", 10*1024)+`"}]}`)
		if n, size := cappedStats(t, db, "r"); n != 1 || size >= 25*1024 {
			t.Fatalf("after 10 KB insert %d: count %d size %d, want 1 and under 25 KB", i, n, size)
		}
	}
	mustValidate(t, db, "test", "r")
	// The smallest size: every document is larger.
	createCapped(t, db, "one", 1, 0)
	for i := 0; i < 3; i++ {
		mustRun(t, db, "test", fmt.Sprintf(`{"insert": "one", "documents": [{"i": %d}]}`, i))
	}
	if got := ints(t, findAll(t, db, "test", "one", nil)); !equalInts(got, []int64{2}) {
		t.Fatalf("size 1: %v, want [2]", got)
	}
	mustValidate(t, db, "test", "one")
}

// wantWriteError runs a write command whose first statement must fail
// with code.
func wantWriteError(t *testing.T, db *DB, cmd string, code document.Code, frag string) {
	t.Helper()
	r, err := run(t, db, "test", cmd)
	if err != nil {
		checkCode(t, cmd, err, code, frag)
		return
	}
	msg, _ := field(r, "writeErrors.0.errmsg").(string)
	if field(r, "writeErrors.0.code") != int32(code) || !strings.Contains(msg, frag) {
		t.Fatalf("%s: reply %v, want write error %d %q", cmd, r, code, frag)
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// docs/capped.md §7.4: a unique _id index; lookups by _id go through it; an _id
// whose document was evicted is free again.
func TestCappedIDIndex(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 1<<20, 3)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "i", Value: int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(1)}, {Key: "i", Value: int64(9)}})
	checkCode(t, "duplicate _id", err, document.CodeDuplicateKey, "dup key")
	// Duplicates inside one batch.
	r := mustRun(t, db, "test", `{"insert": "c", "ordered": false, "documents": [{"_id": 10, "i": 10}, {"_id": 10, "i": 11}]}`)
	if field(r, "n") != int32(1) || field(r, "writeErrors.0.code") != int32(document.CodeDuplicateKey) {
		t.Fatalf("batch duplicate: %v", r)
	}
	// Now 1, 2, 10 are live; 0 was evicted.
	for _, tc := range []struct {
		id   int32
		want []int64
	}{{0, nil}, {1, []int64{1}}, {2, []int64{2}}, {10, []int64{10}}, {7, nil}} {
		got := ints(t, findAll(t, db, "test", "c", bson.D{{Key: "_id", Value: tc.id}}))
		if !equalInts(got, tc.want) {
			t.Errorf("find _id %d = %v, want %v", tc.id, got, tc.want)
		}
	}
	ex := mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"_id": 2}}}`)
	// mongod's IDHACK: one key, one document.
	if field(ex, "queryPlanner.winningPlan.stage") != "IDHACK" || field(ex, "executionStats.totalKeysExamined") != int32(1) {
		t.Errorf("_id equality does not use the index: %v", ex)
	}
	if got := ints(t, findAll(t, db, "test", "c", bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: int32(2)}}}})); !equalInts(got, []int64{2, 10}) {
		t.Errorf("_id range = %v", got)
	}
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(0)}, {Key: "i", Value: int64(20)}}); err != nil {
		t.Fatalf("reinserting an evicted _id: %v", err)
	}
	if got := ints(t, findAll(t, db, "test", "c", nil)); !equalInts(got, []int64{2, 10, 20}) {
		t.Fatalf("documents %v", got)
	}
	// In one batch: _id 2 is taken at first, free once evicted by the
	// batch's own inserts.
	r = mustRun(t, db, "test", `{"insert": "c", "ordered": false, "documents": [{"_id": 2, "i": 40}, {"_id": 30, "i": 30}, {"_id": 31, "i": 31}, {"_id": 32, "i": 32}, {"_id": 2, "i": 41}]}`)
	if field(r, "n") != int32(4) || field(r, "writeErrors.0.index") != int32(0) || field(r, "writeErrors.1") != nil {
		t.Fatalf("batch over an evicted _id: %v", r)
	}
	if got := ints(t, findAll(t, db, "test", "c", nil)); !equalInts(got, []int64{31, 32, 41}) {
		t.Fatalf("documents %v", got)
	}
	mustValidate(t, db, "test", "c")
}

// docs/capped.md §7.4, §7.5: order rules and refusals.
func TestCappedRefusals(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 1<<20, 0)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "i", Value: int64(i)}, {Key: "s", Value: "abc"}}); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`, document.CodeCannotCreateIndex, "TTL index on a capped collection")
	wantCode(t, db, "test", `{"find": "c", "sort": {"$natural": 2}}`, document.CodeBadValue, "")
	// MongoDB 7.0 lets an update change a document's size (its
	// capped_update.js): a document can shrink, grow back into the
	// space it had, and grow beyond it (kept outside the ring).
	r := mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"i": 1}, "u": {"$set": {"s": "abcd"}}}]}`)
	if _, bad := get(r, "writeErrors"); bad || field(r, "nModified") != int32(1) {
		t.Fatalf("growing update: %v", r)
	}
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"i": 4}, "u": {"$unset": {"s": 1}}}]}`)
	if field(r, "nModified") != int32(1) {
		t.Fatalf("shrinking update: %v", r)
	}
	if _, err := c.ReplaceOne(ctx, bson.D{{Key: "i", Value: int64(4)}}, bson.D{{Key: "i", Value: int64(4)}, {Key: "s", Value: "ab"}}, false); err != nil {
		t.Fatalf("ReplaceOne growing back within the record: %v", err)
	}
	// Same BSON size: in place; int32 1 -> 100000 is the same BSON size
	// and a different msgpack size. A shrinking statement beside it.
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"i": 1}, "u": {"$set": {"s": "xyz"}}}, {"q": {"_id": 3}, "u": {"$set": {"i": 3, "s": "q"}}}]}`)
	if field(r, "nModified") != int32(2) {
		t.Fatalf("same-size update, then a shrinking one: %v", r)
	}
	if _, bad := get(r, "writeErrors"); bad {
		t.Fatalf("same-size update, then a shrinking one: %v", r)
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 100, "n": 100000}]}`)
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 100}, "u": {"$set": {"n": 1}}}]}`)
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 100}, "u": {"$inc": {"n": 99999}}}]}`)
	if d, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: int32(100)}}); err != nil || field(d, "n") != int32(100000) {
		t.Fatalf("after in-place updates: %v %v", d, err)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"_id": 2}, "update": {"$set": {"s": "ABC"}}, "new": true}`)
	if field(r, "value.s") != "ABC" {
		t.Fatalf("findAndModify: %v", r)
	}
	got := findAll(t, db, "test", "c", nil)
	if ids := ints(t, got[:5]); !equalInts(ids, []int64{0, 1, 2, 3, 4}) || field(got[1], "s") != "xyz" || field(got[2], "s") != "ABC" || field(got[3], "s") != "q" || field(got[4], "s") != "ab" {
		t.Fatalf("documents after updates: %v", got)
	}
	rev := ints(t, findOpts(t, c, bson.D{{Key: "i", Value: bson.D{{Key: "$lt", Value: int64(3)}}}}, FindOptions{Sort: bson.D{{Key: "$natural", Value: -1}}}))
	if !equalInts(rev, []int64{2, 1, 0}) {
		t.Fatalf("$natural: -1 with a filter = %v", rev)
	}
	if n, err := c.CountDocuments(ctx, bson.D{{Key: "s", Value: "abc"}}); err != nil || n != 1 {
		t.Fatalf("count s=abc: %d %v", n, err)
	}
	mustValidate(t, db, "test", "c")
}

// docs/capped.md §7.5: drop removes the collection, its file and kills its cursors.
func TestCappedDrop(t *testing.T) {
	t.Parallel()
	db, _, dir := openTest(t)
	c := createCapped(t, db, "c", 8192, 0)
	ctx := context.Background()
	for i := 0; i < 300; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "i", Value: int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, cappedDir, cappedFileName(db.lookup("test", "c").m().ID))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("ring file: %v", err)
	}
	r := mustRun(t, db, "test", `{"find": "c", "batchSize": 2}`)
	plainID := field(r, "cursor.id").(int64)
	r = mustRun(t, db, "test", `{"find": "c", "tailable": true, "batchSize": 2}`)
	tailID := field(r, "cursor.id").(int64)
	if plainID == 0 || tailID == 0 {
		t.Fatalf("cursor ids %d %d", plainID, tailID)
	}
	mustRun(t, db, "test", `{"drop": "c"}`)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ring file after drop: %v", err)
	}
	wantCode(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "c"}`, plainID), document.CodeQueryPlanKilled, "")
	wantCode(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "c"}`, tailID), document.CodeQueryPlanKilled, "")
	if db.lookup("test", "c") != nil || count(t, db, "test", "c") != 0 {
		t.Fatalf("collection still there")
	}
	// Recreate with the same name: a fresh, empty ring.
	c = createCapped(t, db, "c", 4096, 0)
	if n := count(t, db, "test", "c"); n != 0 {
		t.Fatalf("recreated collection has %d documents", n)
	}
}

// A waiting awaitData getMore wakes with 175 when the collection is dropped.
func TestCappedDropWakesTailer(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 8192, 0)
	if _, err := c.InsertOne(context.Background(), bson.D{{Key: "i", Value: int64(0)}}); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, db, "test", `{"find": "c", "tailable": true, "awaitData": true}`)
	id := field(r, "cursor.id").(int64)
	errc := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		close(started)
		_, err := db.RunCommand(context.Background(), "test", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "maxTimeMS", Value: int64(60000)}})
		errc <- err
	}()
	<-started
	// Wait until the getMore holds the cursor (it then waits on the ring).
	cur := db.cursors.get(id)
	for cur.mu.TryLock() {
		cur.mu.Unlock()
		time.Sleep(time.Millisecond) // handing over to the goroutine, not timing the test
	}
	mustRun(t, db, "test", `{"drop": "c"}`)
	select {
	case err := <-errc:
		checkCode(t, "getMore after drop", err, document.CodeQueryPlanKilled, "")
	case <-time.After(10 * time.Second):
		t.Fatal("a waiting getMore did not wake on drop")
	}
}

// docs/tailable.md §8.1: tailable validation.
func TestTailableValidation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	createCapped(t, db, "c", 4096, 0)
	mustRun(t, db, "test", `{"insert": "plain", "documents": [{"a": 1}]}`)
	// On a collection that is not capped, mongod's message describes
	// the query (its canonical query's toString): the namespace, then
	// batchSize, limit and skip when given, the filter's expression tree
	// (children of an $and in mongod's order: $or, then equalities, then
	// comparisons, each kind by path), the sort (a $natural one is a hint
	// by then), the projection, the collation when given.
	for _, tc := range []struct{ cmd, desc string }{
		{`{"find": "plain", "tailable": true}`, "ns=test.plainTree: $and\nSort: {}\nProj: {}\n"},
		{`{"find": "plain", "tailable": true, "filter": {"a": 1}, "sort": {"$natural": 1}, "projection": {"a": 1}, "limit": 5, "skip": 2, "batchSize": 3}`,
			"ns=test.plain batchSize=3 limit=5 skip=2Tree: a $eq 1\nSort: {}\nProj: { a: 1 }\n"},
		{`{"find": "plain", "tailable": true, "filter": {"b": {"$gt": 2, "$ne": "x"}, "a": 1, "$or": [{"c": 1}, {"d": {"$in": [3, 1, 3]}}]}, "collation": {"locale": "fr"}}`,
			"ns=test.plainTree: $and\n    $or\n        c $eq 1\n        d $in [ 1 3 ]\n    a $eq 1\n    b $gt 2\n    $not\n        b $eq \"x\"\nSort: {}\nProj: {}\nCollation: { locale: \"fr\" }\n"},
		{`{"find": "plain", "tailable": true, "filter": {"$and": [{"a": {"$in": [7]}}, {"z": {"$exists": true}}]}}`,
			"ns=test.plainTree: $and\n    a $eq 7\n    z exists\nSort: {}\nProj: {}\n"},
	} {
		_, err := run(t, db, "test", tc.cmd)
		want := "error processing query: " + tc.desc + " tailable cursor requested on non capped collection"
		var e *Error
		if !errors.As(err, &e) || e.Code != document.CodeBadValue || e.Message != want {
			t.Errorf("%s:\n got %v\nwant %q", tc.cmd, err, want)
		}
	}
	wantCode(t, db, "test", `{"find": "c", "awaitData": true}`, document.CodeFailedToParse, "awaitData")
	wantCode(t, db, "test", `{"find": "c", "tailable": true, "sort": {"$natural": -1}}`, document.CodeBadValue, "cannot use tailable option with a sort other than {$natural: 1}")
	wantCode(t, db, "test", `{"find": "c", "tailable": true, "sort": {"a": 1}}`, document.CodeBadValue, "cannot use tailable option with a sort other than {$natural: 1}")
	mustRun(t, db, "test", `{"find": "c", "tailable": true, "sort": {"$natural": 1}}`)
	// mongod checks the sort while parsing the find, before it looks at
	// the collection: the same error on any collection, and before the
	// rule that $natural stands alone.
	for _, cmd := range []string{
		`{"find": "plain", "tailable": true, "sort": {"a": 1}}`,
		`{"find": "missing", "tailable": true, "sort": {"a": 1}}`,
		`{"find": "c", "tailable": true, "sort": {"$natural": 1, "a": 1}}`,
	} {
		wantCode(t, db, "test", cmd, document.CodeBadValue, "cannot use tailable option with a sort other than {$natural: 1}")
	}
	wantCode(t, db, "test", `{"find": "plain", "awaitData": true}`, document.CodeFailedToParse, "Cannot set 'awaitData' without also setting 'tailable'")
	// Empty and missing capped collections: cursor id 0.
	for _, name := range []string{"c", "missing"} {
		r := mustRun(t, db, "test", fmt.Sprintf(`{"find": %q, "tailable": true, "awaitData": true}`, name))
		if id := field(r, "cursor.id"); id != int64(0) {
			t.Errorf("tailable find on %s: cursor id %v, want 0", name, id)
		}
	}
}

func getMore(t *testing.T, db *DB, id int64, extra string) (bson.D, error) {
	t.Helper()
	return run(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "c"%s}`, id, extra))
}

func batchInts(t *testing.T, r bson.D, key string) []int64 {
	t.Helper()
	b, _ := field(r, "cursor."+key).(bson.A)
	docs := make([]bson.D, len(b))
	for i, x := range b {
		docs[i] = x.(bson.D)
	}
	return ints(t, docs)
}

// awaitWait is one wait of an awaitData getMore, seen through the
// awaitTimeout seam: how long it asked to wait, and a way to end the
// wait as its deadline would.
type awaitWait struct {
	d      time.Duration
	expire func()
}

// deadlineCtx is a context whose deadline passes when the test says so
// (expire): it then ends with context.DeadlineExceeded, as
// context.WithTimeout's does when its time is up. It also ends when its
// parent does, or when cancelled.
type deadlineCtx struct {
	context.Context
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func (c *deadlineCtx) Done() <-chan struct{} { return c.done }

func (c *deadlineCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *deadlineCtx) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.done)
	}
}

// fakeAwait returns an awaitTimeout seam that hands each wait to the
// test on the returned channel, and never lets real time end one.
func fakeAwait() (func(context.Context, time.Duration) (context.Context, context.CancelFunc), <-chan awaitWait) {
	waits := make(chan awaitWait)
	return func(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
		c := &deadlineCtx{Context: parent, done: make(chan struct{})}
		stop := context.AfterFunc(parent, func() { c.end(parent.Err()) })
		waits <- awaitWait{d: d, expire: func() { c.end(context.DeadlineExceeded) }}
		return c, func() { stop(); c.end(context.Canceled) }
	}, waits
}

// docs/tailable.md §8.2, §8.3, docs/capped.md §7.7: a tailable cursor stays open, returns what was
// inserted since, filters, waits with awaitData, and fails with 136 when
// overrun.
func TestTailableCursor(t *testing.T) {
	t.Parallel()
	await, waits := fakeAwait()
	db, _, _ := openTestWith(t, func(o *Options) { inMemory(o); o.seams.awaitTimeout = await })
	c := createCapped(t, db, "c", 4096, 0)
	ctx := context.Background()
	ins := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			if _, err := c.InsertOne(ctx, bson.D{{Key: "i", Value: int64(i)}, {Key: "even", Value: i%2 == 0}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ins(0, 5)
	r := mustRun(t, db, "test", `{"find": "c", "tailable": true, "batchSize": 3}`)
	id := field(r, "cursor.id").(int64)
	if got := batchInts(t, r, "firstBatch"); id == 0 || !equalInts(got, []int64{0, 1, 2}) {
		t.Fatalf("first batch %v id %d", got, id)
	}
	r, err := getMore(t, db, id, "")
	if err != nil || !equalInts(batchInts(t, r, "nextBatch"), []int64{3, 4}) || field(r, "cursor.id") != id {
		t.Fatalf("getMore: %v %v", r, err)
	}
	// Exhausted: empty batch, still open (no awaitData: no wait).
	r, err = getMore(t, db, id, "")
	if err != nil || len(batchInts(t, r, "nextBatch")) != 0 || field(r, "cursor.id") != id {
		t.Fatalf("exhausted getMore: %v %v", r, err)
	}
	ins(5, 8)
	r, err = getMore(t, db, id, "")
	if err != nil || !equalInts(batchInts(t, r, "nextBatch"), []int64{5, 6, 7}) {
		t.Fatalf("getMore after inserts: %v %v", r, err)
	}

	// A filtered awaitData tailer: maxTimeMS passes with an empty batch,
	// the cursor stays open.
	r = mustRun(t, db, "test", `{"find": "c", "filter": {"even": true}, "tailable": true, "awaitData": true}`)
	aid := field(r, "cursor.id").(int64)
	if got := batchInts(t, r, "firstBatch"); !equalInts(got, []int64{0, 2, 4, 6}) {
		t.Fatalf("filtered first batch %v", got)
	}
	// The getMore waits for its maxTimeMS (the default second without
	// one; none for 0, as mongod's deadline of now plus 0), and returns
	// only once that has passed: an empty batch, the cursor still open.
	for _, tc := range []struct {
		extra string
		want  time.Duration
	}{{`, "maxTimeMS": 30`, 30 * time.Millisecond}, {"", time.Second}, {`, "maxTimeMS": 0`, 0}} {
		type reply struct {
			r   bson.D
			err error
		}
		done := make(chan reply, 1)
		go func() {
			r, err := getMore(t, db, aid, tc.extra)
			done <- reply{r, err}
		}()
		w := <-waits
		if w.d != tc.want {
			t.Fatalf("getMore%s waits %v, want %v", tc.extra, w.d, tc.want)
		}
		select {
		case got := <-done:
			t.Fatalf("getMore%s returned before its wait ended: %v %v", tc.extra, got.r, got.err)
		default:
		}
		w.expire()
		got := <-done
		if got.err != nil || len(batchInts(t, got.r, "nextBatch")) != 0 || field(got.r, "cursor.id") != aid {
			t.Fatalf("awaitData getMore%s at its deadline: %v %v", tc.extra, got.r, got.err)
		}
	}
	// Woken by an insert (a non-matching one first): the getMore, given a
	// minute, returns the matching document; its wait never ends on its
	// own here, so only the insert can answer it.
	done := make(chan bson.D, 1)
	go func() {
		r, _ := db.RunCommand(ctx, "test", bson.D{{Key: "getMore", Value: aid}, {Key: "collection", Value: "c"}, {Key: "maxTimeMS", Value: int64(60000)}})
		done <- r
	}()
	if w := <-waits; w.d != time.Minute {
		t.Fatalf("getMore with maxTimeMS 60000 waits %v", w.d)
	}
	ins(8, 11) // 8 and 10 match
	if r := <-done; !equalInts(batchInts(t, r, "nextBatch"), []int64{8, 10}) {
		t.Fatalf("woken getMore: %v", r)
	}

	// Overrun: wrap the ring past the first cursor's position.
	ins(11, 400)
	_, err = getMore(t, db, id, "")
	checkCode(t, "overrun tailer", err, document.CodeCappedPositionLost, "CollectionScan died due to failure to restore tailable cursor position")
	if db.cursors.get(id) != nil {
		t.Fatal("an overrun cursor stays registered")
	}
}

// The Go API's tailable cursor blocks in Next until a document arrives
// and stops when its context ends.
func TestTailableGoCursor(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 1<<20, 0)
	ctx := context.Background()
	// Empty collection: the cursor is dead at once.
	cur, err := c.Find(ctx, nil, FindOptions{Tailable: true})
	if err != nil {
		t.Fatal(err)
	}
	if cur.Next(ctx) || cur.Err() != nil {
		t.Fatalf("tailable cursor on an empty collection: Next true or err %v", cur.Err())
	}
	if _, err := c.InsertOne(ctx, bson.D{{Key: "i", Value: int64(0)}}); err != nil {
		t.Fatal(err)
	}
	cur, err = c.Find(ctx, nil, FindOptions{Tailable: true, AwaitData: true, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !cur.Next(ctx) || field(cur.Current, "i") != int64(0) {
		t.Fatalf("first document: %v %v", cur.Current, cur.Err())
	}
	go func() {
		for i := 1; i <= 3; i++ {
			c.InsertOne(ctx, bson.D{{Key: "i", Value: int64(i)}})
		}
	}()
	for want := int64(1); want <= 3; want++ {
		if !cur.Next(ctx) || field(cur.Current, "i") != want {
			t.Fatalf("document %d: %v %v", want, cur.Current, cur.Err())
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	go cancel()
	if cur.Next(cctx) {
		t.Fatalf("Next returned %v after its context was cancelled", cur.Current)
	}
	if !errors.Is(cur.Err(), context.Canceled) {
		t.Fatalf("Err = %v, want context.Canceled", cur.Err())
	}
}

// docs/tailable.md §8.3: a tailer sees every document exactly once, in order, while
// writers race it.
func TestTailerRacingWriters(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 64<<20, 0)
	ctx := context.Background()
	if _, err := c.InsertOne(ctx, bson.D{{Key: "w", Value: int64(-1)}, {Key: "i", Value: int64(0)}}); err != nil {
		t.Fatal(err)
	}
	cur, err := c.Find(ctx, nil, FindOptions{Tailable: true, AwaitData: true, BatchSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	const writers, per = 4, 300
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < per; {
				batch := []any{}
				for k := 0; k < 1+i%3 && i < per; k++ {
					batch = append(batch, bson.D{{Key: "w", Value: int64(w)}, {Key: "i", Value: int64(i)}})
					i++
				}
				if _, err := c.InsertMany(ctx, batch, true); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		}(w)
	}
	next := make([]int64, writers)
	seen := 0
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if !cur.Next(tctx) || field(cur.Current, "w") != int64(-1) {
		t.Fatalf("first document %v", cur.Current)
	}
	for seen < writers*per && cur.Next(tctx) {
		w := field(cur.Current, "w").(int64)
		i := field(cur.Current, "i").(int64)
		if i != next[w] {
			t.Fatalf("writer %d: got document %d, want %d (seen %d)", w, i, next[w], seen)
		}
		next[w]++
		seen++
	}
	wg.Wait()
	if seen != writers*per {
		t.Fatalf("tailer saw %d of %d documents: %v", seen, writers*per, cur.Err())
	}
	mustValidate(t, db, "test", "c")
}

// Reopen: contents, order and validate survive; the _id index (in
// memory) is rebuilt from the ring, and _id entries found in the store
// (an earlier build kept the index there) are removed.
func TestCappedReopenReconciles(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	c := createCapped(t, db, "c", 4096, 0)
	ctx := context.Background()
	for i := 0; i < 200; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int64(i)}, {Key: "i", Value: int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	before := ints(t, findAll(t, db, "test", "c", nil))
	m := db.lookup("test", "c").m()
	last := before[len(before)-1]
	if n := countPrefix(t, db, lsm.IndexPrefix(m.ID, idIndexID)); n != 0 {
		t.Fatalf("the store holds %d _id entries of a capped collection", n)
	}
	// Entries an earlier build left in the store: one for a live
	// record, one for a record that is not in the ring.
	err := db.store.Update(func(txn *lsm.Txn) error {
		st, err := cappedOf(db.lookup("test", "c"))
		if err != nil {
			return err
		}
		if err := txn.Set(lsm.IndexKey(m.ID, idIndexID, lsm.AppendKey(nil, last, false), st.ring.LastSeq()), offValue(1024)); err != nil {
			return err
		}
		return txn.Set(lsm.IndexKey(m.ID, idIndexID, lsm.AppendKey(nil, int64(5000), false), 999999), offValue(1024))
	})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := db.Validate(ctx, "test", "c"); r.Valid() {
		t.Fatal("validate did not notice _id entries in the store")
	}
	db = reopen(t, db, dir, clk)
	mustValidate(t, db, "test", "c")
	if n := countPrefix(t, db, lsm.IndexPrefix(m.ID, idIndexID)); n != 0 {
		t.Fatalf("after reopen the store holds %d _id entries of a capped collection", n)
	}
	if after := ints(t, findAll(t, db, "test", "c", nil)); !equalInts(after, before) {
		t.Fatalf("after reopen %v, before %v", after, before)
	}
	if got := ints(t, findAll(t, db, "test", "c", bson.D{{Key: "_id", Value: last}})); !equalInts(got, []int64{last}) {
		t.Fatalf("_id %d after reconciliation: %v", last, got)
	}
	c = db.Database("test").Collection("c")
	for i := 200; i < 400; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int64(i)}, {Key: "i", Value: int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	got := ints(t, findAll(t, db, "test", "c", nil))
	if got[len(got)-1] != 399 || !consecutive(got, got[0], 399) {
		t.Fatalf("after reopen and more inserts: %v", got)
	}
	mustValidate(t, db, "test", "c")
}

// docs/capped.md §7.6: convertToCapped.
func TestConvertToCapped(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	ctx := context.Background()
	plain := db.Database("test").Collection("p")
	var docs []any
	for i := 0; i < 500; i++ {
		docs = append(docs, bson.D{{Key: "i", Value: int64(i)}, {Key: "pad", Value: strings.Repeat("p", 20)}})
	}
	if _, err := plain.InsertMany(ctx, docs, true); err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "test", `{"createIndexes": "p", "indexes": [{"key": {"i": 1}, "name": "i_1"}]}`)
	r := mustRun(t, db, "test", `{"find": "p", "batchSize": 1}`)
	oldCursor := field(r, "cursor.id").(int64)

	wantCode(t, db, "test", `{"convertToCapped": "missing", "size": 4096}`, document.CodeNamespaceNotFound, "")
	wantCode(t, db, "test", `{"convertToCapped": "p"}`, codeIDLFailedToParse, "size")
	wantCode(t, db, "test", `{"convertToCapped": "p", "size": 0}`, document.CodeBadValue, "")
	wantCode(t, db, "test", `{"convertToCapped": "p", "size": "x"}`, document.CodeTypeMismatch, "")
	mustRun(t, db, "test", `{"convertToCapped": "p", "size": 8000}`)
	if !plain.IsCapped() {
		t.Fatal("not capped after convertToCapped")
	}
	got := ints(t, findAll(t, db, "test", "p", nil))
	if len(got) == 0 || len(got) >= 500 || !consecutive(got, got[0], 499) {
		t.Fatalf("converted documents: %v", got)
	}
	ixs, _ := plain.ListIndexes(ctx)
	if len(ixs) != 1 || field(ixs[0], "name") != "_id_" {
		t.Fatalf("indexes after convertToCapped: %v", ixs)
	}
	r = mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "p"}}`)
	if opts := field(r, "cursor.firstBatch.0.options"); !document.Equal(opts, bson.D{{Key: "capped", Value: true}, {Key: "size", Value: int64(8000)}}) {
		t.Fatalf("options %v", opts)
	}
	wantCode(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "p"}`, oldCursor), document.CodeQueryPlanKilled, "")
	mustValidate(t, db, "test", "p")
	// Converting a capped collection re-caps it.
	mustRun(t, db, "test", `{"convertToCapped": "p", "size": 4096}`)
	got2 := ints(t, findAll(t, db, "test", "p", nil))
	if len(got2) == 0 || len(got2) >= len(got) || !consecutive(got2, got2[0], 499) {
		t.Fatalf("re-capped documents: %v", got2)
	}
	db = reopen(t, db, dir, clk)
	mustValidate(t, db, "test", "p")
	if again := ints(t, findAll(t, db, "test", "p", nil)); !equalInts(again, got2) {
		t.Fatalf("after reopen %v", again)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, cappedDir))
	if len(ents) != 1 {
		t.Fatalf("ring files %v, want only the current one", ents)
	}
	// A time-series namespace: 166.
	if _, err := run(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t"}}`); err == nil {
		wantCode(t, db, "test", `{"convertToCapped": "ts", "size": 4096}`, document.CodeCommandNotSupportedOnView, "time-series")
	} else {
		t.Logf("time-series collections unavailable (%v); 166 not checked", err)
	}
}

// Capped collections of an in-memory database live in a private
// temporary directory.
func TestCappedInMemory(t *testing.T) {
	t.Parallel()
	db, err := Open("", Options{InMemory: true, DisableTTLMonitor: true})
	if err != nil {
		t.Fatal(err)
	}
	c := createCapped(t, db, "c", 4096, 3)
	for i := 0; i < 10; i++ {
		if _, err := c.InsertOne(context.Background(), bson.D{{Key: "i", Value: int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := ints(t, findAll(t, db, "test", "c", nil)); !equalInts(got, []int64{7, 8, 9}) {
		t.Fatalf("documents %v", got)
	}
	path := db.lookup("test", "c").ext.(*cappedState).ring.Path()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temporary ring directory left after Close: %v", err)
	}
}

// The in-memory _id index serves the planner as a Badger index would:
// equality, $in, ranges in both sort orders, across more entries than
// one scan chunk and across getMore batches, over a wrapped collection
// whose random int and string _ids were partly evicted; findAndModify
// with a sort finds its document through it. Compared with the live
// documents read in natural order.
func TestCappedIDIndexScans(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	c := createCapped(t, db, "c", 1<<20, 6000)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 9))
	idOf := func(i int) any {
		if i%4 == 0 {
			return fmt.Sprintf("k%05d", (i*7919)%20000)
		}
		return int64((i * 7919) % 20000)
	}
	var batch []any
	for i := 0; i < 9000; i++ {
		batch = append(batch, bson.D{{Key: "_id", Value: idOf(i)}, {Key: "i", Value: int64(i)}})
		if len(batch) == 1+rng.IntN(700) || i == 8999 {
			if _, err := c.InsertMany(ctx, batch, rng.IntN(2) == 0); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for round := 0; round < 2; round++ {
		live := ints(t, findAll(t, db, "test", "c", nil)) // natural order: i ascending
		if len(live) != 6000 {
			t.Fatalf("%d live documents, want 6000", len(live))
		}
		// The _id order of the live documents: numbers before strings.
		var nums, strs []int64
		for _, i := range live {
			if i%4 == 0 {
				strs = append(strs, i)
			} else {
				nums = append(nums, i)
			}
		}
		slices.SortFunc(nums, func(a, b int64) int { return cmp.Compare((a*7919)%20000, (b*7919)%20000) })
		slices.SortFunc(strs, func(a, b int64) int { return cmp.Compare((a*7919)%20000, (b*7919)%20000) })
		byID := append(append([]int64(nil), nums...), strs...)
		find := func(filter bson.D, sortDir int32, batchSize int32) []int64 {
			t.Helper()
			cur, err := c.Find(ctx, filter, FindOptions{Sort: bson.D{{Key: "_id", Value: sortDir}}, BatchSize: batchSize})
			if err != nil {
				t.Fatal(err)
			}
			docs, err := cur.All(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return ints(t, docs)
		}
		rev := slices.Clone(byID)
		slices.Reverse(rev)
		if got := find(nil, 1, 0); !equalInts(got, byID) {
			t.Fatalf("round %d: all by _id ascending: %d documents, want %d", round, len(got), len(byID))
		}
		if got := find(nil, -1, 7); !equalInts(got, rev) {
			t.Fatalf("round %d: all by _id descending: %d documents, want %d", round, len(got), len(rev))
		}
		lo, hi := int64(3000), int64(15000)
		var want []int64
		for _, i := range nums {
			if v := (i * 7919) % 20000; v > lo && v <= hi {
				want = append(want, i)
			}
		}
		rng := bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: lo}, {Key: "$lte", Value: hi}}}}
		if got := find(rng, 1, 100); !equalInts(got, want) {
			t.Fatalf("round %d: range ascending: %d documents, want %d", round, len(got), len(want))
		}
		slices.Reverse(want)
		if got := find(rng, -1, 0); !equalInts(got, want) {
			t.Fatalf("round %d: range descending: %d documents, want %d", round, len(got), len(want))
		}
		in := bson.A{}
		want = want[:0]
		for k := 0; k < 50; k++ {
			i := k * 179 % 9000 // evicted below 3000
			in = append(in, idOf(i))
			if i >= 3000 {
				want = append(want, int64(i))
			}
		}
		got := find(bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: in}}}}, 1, 0)
		slices.Sort(got)
		slices.Sort(want)
		if !equalInts(got, want) {
			t.Fatalf("round %d: $in found %v, want %v", round, got, want)
		}
		for _, i := range []int{0, 2999, 3000, 3001, 8999} {
			got := ints(t, findAll(t, db, "test", "c", bson.D{{Key: "_id", Value: idOf(i)}}))
			if w := []int64{int64(i)}; (i >= 3000) != (len(got) == 1) || (len(got) == 1 && !equalInts(got, w)) {
				t.Fatalf("round %d: _id of document %d finds %v", round, i, got)
			}
		}
		// findAndModify with a sort: the document with the largest
		// numeric _id.
		top := nums[len(nums)-1]
		r := mustRun(t, db, "test", `{"findAndModify": "c", "query": {"_id": {"$type": "number"}}, "sort": {"_id": -1}, "update": {"$inc": {"i": 1}}, "new": true}`)
		if got, _ := get(field(r, "value").(bson.D), "i"); got != top+1 {
			t.Fatalf("round %d: findAndModify updated to %v, want document %d", round, got, top)
		}
		if got := ints(t, findAll(t, db, "test", "c", bson.D{{Key: "_id", Value: idOf(int(top))}})); !equalInts(got, []int64{top + 1}) {
			t.Fatalf("round %d: after findAndModify the document reads %v", round, got)
		}
		mustRun(t, db, "test", fmt.Sprintf(`{"update": "c", "updates": [{"q": {"_id": %d}, "u": {"$inc": {"i": -1}}}]}`, idOf(int(top))))
		mustValidate(t, db, "test", "c")
		db = reopen(t, db, dir, clk) // the second round runs on the index rebuilt from the ring
		c = db.Database("test").Collection("c")
	}
}
