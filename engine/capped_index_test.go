package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// secDoc is document i of the secondary-index tests: a (i%13), b (a
// string of i%7), tags (an array, for multikey), s only for even i
// (sparse), u = i (unique), and padding of varying length.
func secDoc(i int64) bson.D {
	d := bson.D{{Key: "_id", Value: i}, {Key: "i", Value: i}, {Key: "a", Value: i % 13}, {Key: "b", Value: fmt.Sprintf("b%d", i%7)},
		{Key: "tags", Value: bson.A{i % 5, i%5 + 10}}, {Key: "u", Value: i}}
	if i%2 == 0 {
		d = append(d, bson.E{Key: "s", Value: i % 3})
	}
	return append(d, bson.E{Key: "pad", Value: strings.Repeat("p", int(i*7%90))})
}

func insertSec(t *testing.T, c *Collection, from, to int64, batch int) {
	t.Helper()
	ctx := context.Background()
	for i := from; i < to; {
		var docs []any
		for ; i < to && len(docs) < batch; i++ {
			docs = append(docs, secDoc(i))
		}
		if _, err := c.InsertMany(ctx, docs, true); err != nil {
			t.Fatalf("insert up to %d: %v", i, err)
		}
	}
}

// sortedInts returns the "i" of docs, sorted.
func sortedInts(t *testing.T, docs []bson.D) []int64 {
	t.Helper()
	out := ints(t, docs)
	slices.Sort(out)
	return out
}

// Secondary indexes of every kind the ordinary path supports, created
// over a wrapped ring (built from its records) and maintained while the
// ring wraps many more times: after each round validate finds every
// index matching the ring, and each query through the index (hinted)
// returns exactly what a collection scan with the same filter returns.
func TestCappedSecondaryIndexes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		spec    string // createIndexes spec
		filters []bson.D
		hidden  bool
		planned bool // the planner picks it unhinted (not sparse or partial ones)
	}{
		{"single", `{"key": {"a": 1}, "name": "ix"}`, []bson.D{{{Key: "a", Value: int64(3)}}, {{Key: "a", Value: bson.D{{Key: "$gte", Value: int64(10)}}}}}, false, true},
		{"descending", `{"key": {"a": -1}, "name": "ix"}`, []bson.D{{{Key: "a", Value: bson.D{{Key: "$lt", Value: int64(2)}}}}}, false, true},
		{"compound", `{"key": {"b": 1, "a": -1}, "name": "ix"}`, []bson.D{{{Key: "b", Value: "b3"}}, {{Key: "b", Value: "b4"}, {Key: "a", Value: bson.D{{Key: "$gt", Value: int64(5)}}}}}, false, true},
		{"unique", `{"key": {"u": 1}, "name": "ix", "unique": true}`, []bson.D{{{Key: "u", Value: bson.D{{Key: "$gte", Value: int64(0)}}}}}, false, true},
		{"sparse", `{"key": {"s": 1}, "name": "ix", "sparse": true}`, []bson.D{{{Key: "s", Value: int64(1)}}}, false, false},
		{"partial", `{"key": {"a": 1}, "name": "ix", "partialFilterExpression": {"a": {"$gt": 6}}}`, []bson.D{{{Key: "a", Value: bson.D{{Key: "$gt", Value: int64(8)}}}}}, false, false},
		{"multikey", `{"key": {"tags": 1}, "name": "ix"}`, []bson.D{{{Key: "tags", Value: int64(12)}}, {{Key: "tags", Value: bson.D{{Key: "$gte", Value: int64(3)}, {Key: "$lt", Value: int64(11)}}}}}, false, true},
		{"hidden", `{"key": {"a": 1}, "name": "ix", "hidden": true}`, []bson.D{{{Key: "a", Value: int64(3)}}}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := openMem(t)
			c := createCapped(t, db, "c", 32<<10, 0)
			st, err := cappedOf(db.lookup("test", "c"))
			if err != nil {
				t.Fatal(err)
			}
			insertSec(t, c, 0, 500, 64) // wraps about twice before the index exists
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [`+tc.spec+`]}`)
			mustValidate(t, db, "test", "c")
			next := int64(500)
			// The last batch (750) wraps the ring (about 250 records)
			// three times over by itself, evicting its own documents.
			// Under the race detector (one goroutine): a batch of one,
			// one of 333 and the self-evicting one, which still wrap
			// the ring past the first sequence checked below.
			batches, wantFirst := []int{1, 7, 100, 333, 750}, uint64(1600)
			if raceOn {
				// 1,733 records in all: a first sequence past 1,500
				// is still six wraps of the ring.
				batches, wantFirst = []int{1, 333, 750}, 1500
			}
			for round, batch := range batches {
				insertSec(t, c, next, next+int64(max(batch, 150)), batch)
				next += int64(max(batch, 150))
				mustValidate(t, db, "test", "c")
				for _, f := range tc.filters {
					want := sortedInts(t, findOpts(t, c, f, FindOptions{Hint: bson.D{{Key: "$natural", Value: 1}}}))
					if len(want) == 0 {
						t.Fatalf("round %d: filter %v matches nothing; the test proves nothing", round, f)
					}
					if tc.hidden {
						ex := mustRun(t, db, "test", fmt.Sprintf(`{"explain": {"find": "c", "filter": %s}}`, extJSON(t, f)))
						if strings.Contains(fmt.Sprint(ex), "IXSCAN") {
							t.Fatalf("a hidden index was used: %v", ex)
						}
						continue
					}
					got := sortedInts(t, findOpts(t, c, f, FindOptions{Hint: "ix"}))
					if !slices.Equal(got, want) {
						t.Fatalf("round %d: filter %v through the index = %v, collection scan = %v", round, f, got, want)
					}
					if !tc.planned {
						continue
					}
					// Unhinted, the planner picks the index.
					ex := mustRun(t, db, "test", fmt.Sprintf(`{"explain": {"find": "c", "filter": %s}}`, extJSON(t, f)))
					if !strings.Contains(fmt.Sprint(ex), "IXSCAN") {
						t.Fatalf("round %d: filter %v does not use the index: %v", round, f, ex)
					}
				}
			}
			if st.ring.FirstSeq() < wantFirst {
				t.Fatalf("the ring did not wrap enough (first seq %d)", st.ring.FirstSeq())
			}
			m := db.lookup("test", "c").m()
			if ix := m.Index("ix"); ix == nil || ix.Multikey != (tc.name == "multikey") {
				t.Fatalf("index %+v: multikey flag wrong", ix)
			}
			// dropIndexes removes the index and its entries.
			mustRun(t, db, "test", `{"dropIndexes": "c", "index": "ix"}`)
			if n := countPrefix(t, db, lsm.IndexPrefix(m.ID, m.Index("ix").ID)); n != 0 {
				t.Fatalf("%d entries left after dropIndexes", n)
			}
			if ixs, _ := c.ListIndexes(context.Background()); len(ixs) != 1 {
				t.Fatalf("indexes after drop: %v", ixs)
			}
			insertSec(t, c, next, next+300, 50)
			mustValidate(t, db, "test", "c")
		})
	}
}

func extJSON(t *testing.T, d bson.D) string {
	t.Helper()
	b, err := document.MarshalExtJSON(d, true)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func countPrefix(t *testing.T, db *DB, pre []byte) int {
	t.Helper()
	n := 0
	err := db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: pre, KeysOnly: true})
		defer it.Close()
		for it.Next() {
			n++
		}
		return it.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A unique secondary index refuses a live key with 11000: an unordered
// batch keeps every other document, an ordered one stops there; a key
// whose record was evicted is free again; a key of a record the same
// batch is about to evict (its entries deleted ahead) is still taken
// while the record lives; two documents of one batch cannot share a key.
func TestCappedUniqueSecondary(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 64<<10, 0)
	ctx := context.Background()
	if _, err := c.CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: "u", Value: 1}}, Options: bson.D{{Key: "unique", Value: true}}}); err != nil {
		t.Fatal(err)
	}
	ud := func(i, u int64) bson.D {
		return bson.D{{Key: "_id", Value: i}, {Key: "i", Value: i}, {Key: "u", Value: u}, {Key: "pad", Value: strings.Repeat("p", 140)}}
	}
	batch := func(from, to int64) []any {
		var docs []any
		for i := from; i < to; i++ {
			docs = append(docs, ud(i, i))
		}
		return docs
	}
	for i := int64(0); i < 1000; i += 100 {
		if _, err := c.InsertMany(ctx, batch(i, i+100), true); err != nil {
			t.Fatal(err)
		}
	}
	first := func() int64 { return ints(t, findOpts(t, c, nil, FindOptions{Limit: 1}))[0] }
	byU := func(u int64) []int64 {
		return ints(t, findOpts(t, c, bson.D{{Key: "u", Value: u}}, FindOptions{Hint: "u_1"}))
	}
	wantDup := func(what string, err error, index int) {
		t.Helper()
		var bwe *BulkWriteError
		if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != index {
			t.Fatalf("%s: %v, want one write error at index %d", what, err, index)
		}
		checkCode(t, what, bwe.WriteErrors[0].Err, document.CodeDuplicateKey, "u_1 dup key")
	}
	for _, tc := range []struct {
		name    string
		ordered bool
		dupU    func() int64 // u of document 1
		dup     bool
	}{
		{"live key, unordered", false, func() int64 { return first() + 150 }, true},
		{"doomed key, unordered", false, func() int64 { return first() + 20 }, true},
		{"live key, ordered", true, func() int64 { return first() + 100 }, true},
		{"evicted key", false, func() int64 { return first() - 5 }, false},
	} {
		base := int64(10000 * (len(tc.name) + 1))
		u := tc.dupU()
		docs := []any{ud(base, base), ud(base+1, u)}
		docs = append(docs, batch(base+2, base+40)...)
		_, err := c.InsertMany(ctx, docs, tc.ordered)
		if !tc.dup {
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if g := byU(u); !slices.Equal(g, []int64{base + 1}) {
				t.Fatalf("%s: u %d finds %v", tc.name, u, g)
			}
			mustValidate(t, db, "test", "c")
			continue
		}
		wantDup(tc.name, err, 1)
		// The original keeps its key (the doomed one may have been
		// evicted by the rest of the batch since).
		if g := byU(u); len(g) > 1 || len(g) == 1 && g[0] != u || len(g) == 0 && u >= first() {
			t.Fatalf("%s: u %d finds %v, want only the original", tc.name, u, g)
		}
		n := len(findAll(t, db, "test", "c", bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: base}, {Key: "$lt", Value: base + 40}}}}))
		if want := map[bool]int{false: 39, true: 1}[tc.ordered]; n != want {
			t.Fatalf("%s: %d documents of the batch inserted, want %d", tc.name, n, want)
		}
		mustValidate(t, db, "test", "c")
	}
	// Two documents of one batch with one key.
	_, err := c.InsertMany(ctx, []any{ud(900000, 900000), ud(900001, 900000), ud(900002, 900002)}, false)
	wantDup("same batch", err, 1)
	mustValidate(t, db, "test", "c")
	// A unique index cannot be built over duplicate live keys.
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int64(-1)}, {Key: "i", Value: int64(-1)}, {Key: "u", Value: int64(-1)}, {Key: "v", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int64(-2)}, {Key: "i", Value: int64(-2)}, {Key: "u", Value: int64(-2)}, {Key: "v", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"v": 1}, "name": "v_1", "unique": true, "sparse": true}]}`, document.CodeDuplicateKey, "v_1")
	if ixs, _ := c.ListIndexes(ctx); len(ixs) != 2 {
		t.Fatalf("a failed build left indexes %v", ixs)
	}
	mustValidate(t, db, "test", "c")
}

// An in-place update (same BSON size, docs/capped.md §7.5) moves the record's
// secondary entries: the old key no longer finds it, the new one does;
// a new key that a unique index holds for another live record is 11000
// and changes nothing; an update that keeps the keys leaves the entries.
func TestCappedSecondaryUpdate(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 1<<20, 0)
	ctx := context.Background()
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"u": 1}, "name": "u_1", "unique": true}]}`)
	for i := int64(0); i < 20; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "i", Value: i}, {Key: "a", Value: "x" + fmt.Sprint(i%10)}, {Key: "u", Value: int32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	hint := func(ix string, f bson.D) []int64 { return sortedInts(t, findOpts(t, c, f, FindOptions{Hint: ix})) }
	if r, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: int64(3)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: "y3"}}}}, false); err != nil || r.ModifiedCount != 1 {
		t.Fatalf("update: %v %v", r, err)
	}
	if g := hint("a_1", bson.D{{Key: "a", Value: "x3"}}); !slices.Equal(g, []int64{13}) {
		t.Fatalf("old key finds %v, want [13]", g)
	}
	if g := hint("a_1", bson.D{{Key: "a", Value: "y3"}}); !slices.Equal(g, []int64{3}) {
		t.Fatalf("new key finds %v, want [3]", g)
	}
	_, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: int64(4)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: int32(5)}}}}, false)
	checkCode(t, "update to a taken unique key", err, document.CodeDuplicateKey, "u_1")
	if g := hint("u_1", bson.D{{Key: "u", Value: int32(5)}}); !slices.Equal(g, []int64{5}) {
		t.Fatalf("u 5 finds %v after a refused update", g)
	}
	if g := hint("u_1", bson.D{{Key: "u", Value: int32(4)}}); !slices.Equal(g, []int64{4}) {
		t.Fatalf("u 4 finds %v after a refused update", g)
	}
	// Swapping to a free key works; the same key on the same record too.
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: int64(4)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: int32(99)}}}}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateMany(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "i", Value: int64(7)}}}}, false); err != nil {
		t.Fatal(err)
	}
	if g := hint("u_1", bson.D{{Key: "u", Value: int32(99)}}); len(g) != 1 {
		t.Fatalf("u 99 finds %v", g)
	}
	// A document that outgrows its record (MongoDB 6.0+ accepts it)
	// moves its entries as any update does.
	before := len(findOpts(t, c, bson.D{{Key: "a", Value: "x6"}}, FindOptions{Hint: "a_1"}))
	if _, err = c.UpdateOne(ctx, bson.D{{Key: "_id", Value: int64(6)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: strings.Repeat("longer", 20)}}}}, false); err != nil {
		t.Fatalf("growing update: %v", err)
	}
	if n := len(findOpts(t, c, bson.D{{Key: "a", Value: "x6"}}, FindOptions{Hint: "a_1"})); n != before-1 {
		t.Fatalf("a x6 finds %d after the growing update, want %d", n, before-1)
	}
	if g := findOpts(t, c, bson.D{{Key: "a", Value: strings.Repeat("longer", 20)}}, FindOptions{Hint: "a_1"}); len(g) != 1 || idOf(g[0]) != int64(6) {
		t.Fatalf("the grown value finds %v through a_1", g)
	}
	mustValidate(t, db, "test", "c")
}

// On open, every secondary index is reconciled with the ring: entries
// for evicted records or keys a document no longer has are removed,
// missing entries written, a wrong offset fixed.
func TestCappedSecondaryReconcile(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	c := createCapped(t, db, "c", 32<<10, 0)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"tags": 1}, "name": "tags_1"}]}`)
	insertSec(t, c, 0, 600, 50)
	m := db.lookup("test", "c").m()
	st, _ := cappedOf(db.lookup("test", "c"))
	aID, tagsID := m.Index("a_1").ID, m.Index("tags_1").ID
	rng := rand.New(rand.NewPCG(1, 2))
	// Damage the indexes: delete some entries, add bogus ones, point one
	// at a wrong offset.
	var keys [][]byte
	err := db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(m.ID, aID), KeysOnly: true})
		defer it.Close()
		for it.Next() {
			keys = append(keys, append([]byte(nil), it.Key()...))
		}
		return it.Err()
	})
	if err != nil || len(keys) < 10 {
		t.Fatalf("%d entries, %v", len(keys), err)
	}
	b := db.store.NewBatch()
	for i := 0; i < 5; i++ {
		b.Delete(keys[rng.IntN(len(keys))])
	}
	b.Set(lsm.IndexKey(m.ID, aID, lsm.AppendKey(nil, int64(77), false), st.ring.FirstSeq()), offValue(1024))     // a key the document lacks
	b.Set(lsm.IndexKey(m.ID, tagsID, lsm.AppendKey(nil, int64(3), false), st.ring.FirstSeq()-1), offValue(1024)) // an evicted record
	b.Set(keys[0], offValue(8))                                                                                  // wrong offset
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if r, _ := db.Validate(context.Background(), "test", "c"); r.Valid() {
		t.Fatal("validate did not notice the damaged indexes")
	}
	db = reopen(t, db, dir, clk)
	mustValidate(t, db, "test", "c")
	c = db.Database("test").Collection("c")
	got := sortedInts(t, findOpts(t, c, bson.D{{Key: "a", Value: int64(5)}}, FindOptions{Hint: "a_1"}))
	want := sortedInts(t, findOpts(t, c, bson.D{{Key: "a", Value: int64(5)}}, FindOptions{Hint: bson.D{{Key: "$natural", Value: 1}}}))
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("after reconcile a_1 finds %v, scan %v", got, want)
	}
	insertSec(t, c, 600, 900, 50)
	mustValidate(t, db, "test", "c")
}

// TTL indexes stay refused on capped collections (docs/ttl-indexes.md §1.4), with
// MongoDB's code, and other index options are validated as for ordinary
// collections.
func TestCappedIndexRefusals(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	createCapped(t, db, "c", 1<<20, 0)
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`, document.CodeCannotCreateIndex, "TTL index on a capped collection")
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "sparse": true, "partialFilterExpression": {"a": 1}}]}`, document.CodeCannotCreateIndex, "")
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "bogus": 1}]}`, document.CodeInvalidIndexSpecificationOption, "")
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	// unique tells indexes apart: under the same name it is another index.
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "unique": true}]}`, document.CodeIndexKeySpecsConflict, "An existing index has the same name as the requested index.")
	wantCode(t, db, "test", `{"dropIndexes": "c", "index": "nope"}`, document.CodeIndexNotFound, "")
	wantCode(t, db, "test", `{"dropIndexes": "c", "index": "_id_"}`, document.CodeInvalidOptions, "")
}
