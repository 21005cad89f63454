package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Behaviours of capped collections and tailable cursors checked against
// mongod 7.0's jstests and source (docs/capped.md §7, docs/tailable.md
// §8), one test per behaviour a user meets.

// insertI inserts documents {i: from} .. {i: to-1} one by one.
func insertI(t *testing.T, c *Collection, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if _, err := c.InsertOne(context.Background(), bson.D{{Key: "i", Value: int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// capped_max1.js: a plain find over a capped collection whose position
// the inserts overwrite fails its getMore with 136, worded as mongod's
// collection scan and getMore word it, naming the last record seen.
func TestCappedCursorPositionLost(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 64*1024, 10)
	insertI(t, c, 0, 20)
	r := mustRun(t, db, "test", `{"find": "c", "batchSize": 4, "showRecordId": true}`)
	id := field(r, "cursor.id").(int64)
	first, _ := field(r, "cursor.firstBatch").(bson.A)
	if id == 0 || len(first) != 4 {
		t.Fatalf("find: %v", r)
	}
	last := field(first[3].(bson.D), "$recordId").(int64)
	insertI(t, c, 20, 40)
	_, err := getMore(t, db, id, "")
	checkCode(t, "getMore of an overrun find", err, document.CodeCappedPositionLost,
		fmt.Sprintf("Executor error during getMore :: caused by :: CollectionScan died due to position in capped collection being deleted. Last seen record id: RecordId(%d)", last))
	if db.cursors.get(id) != nil {
		t.Fatal("the failed cursor stays registered")
	}
}

// A tailable cursor overrun: mongod's classic scan fails to restore the
// tailable position, 136 with its own wording.
func TestTailablePositionLostMessage(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 64*1024, 10)
	insertI(t, c, 0, 5)
	r := mustRun(t, db, "test", `{"find": "c", "tailable": true, "showRecordId": true}`)
	id := field(r, "cursor.id").(int64)
	first, _ := field(r, "cursor.firstBatch").(bson.A)
	if id == 0 || len(first) != 5 {
		t.Fatalf("find: %v", r)
	}
	last := field(first[4].(bson.D), "$recordId").(int64)
	insertI(t, c, 5, 30)
	_, err := getMore(t, db, id, "")
	checkCode(t, "getMore of an overrun tailable cursor", err, document.CodeCappedPositionLost,
		fmt.Sprintf("Executor error during getMore :: caused by :: CollectionScan died due to failure to restore tailable cursor position. Last seen record id: RecordId(%d)", last))
}

// int32IDs returns the _id of each document, as int32.
func int32IDs(t *testing.T, docs []bson.D) []int32 {
	t.Helper()
	out := make([]int32, len(docs))
	for i, d := range docs {
		v, _ := get(d, "_id")
		n, ok := v.(int32)
		if !ok {
			t.Fatalf("document %v has no int32 _id", d)
		}
		out[i] = n
	}
	return out
}

func wantIDs(t *testing.T, what string, got []bson.D, want ...int32) {
	t.Helper()
	if g := int32IDs(t, got); fmt.Sprint(g) != fmt.Sprint(want) {
		t.Fatalf("%s: _ids %v, want %v", what, g, want)
	}
}

// MongoDB 5.0+ deletes documents of a capped collection (jstests
// noPassthrough/capped_deletes: remove works under the latest FCV):
// delete with limit 1 and 0, findAndModify's remove and the Go API's
// DeleteOne/DeleteMany. What is left keeps its natural order in both
// directions, the _id and secondary indexes forget the deleted, an _id
// can be inserted again (at the end), a tailable cursor skips them, and
// count, collStats and validate agree, also after reopening and after
// the ring wrapped past them.
func TestCappedDelete(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	ctx := context.Background()
	c := createCapped(t, db, "c", 8192, 0)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"k": 1}, "name": "k_1"}, {"key": {"u": 1}, "name": "u_1", "unique": true}]}`)
	for i := 0; i < 10; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "k", Value: int32(i % 3)}, {Key: "u", Value: int32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	r := mustRun(t, db, "test", `{"find": "c", "tailable": true, "batchSize": 2}`)
	tail := field(r, "cursor.id").(int64)
	r = mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": 3}, "limit": 1}]}`)
	if field(r, "n") != int32(1) {
		t.Fatalf("delete _id 3: %v", r)
	}
	r = mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"k": 2}, "limit": 0}]}`) // 2, 5, 8
	if field(r, "n") != int32(3) {
		t.Fatalf("delete k 2: %v", r)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"k": 1}, "sort": {"_id": -1}, "remove": true}`)
	if field(r, "value._id") != int32(7) || field(r, "lastErrorObject.n") != int32(1) {
		t.Fatalf("findAndModify remove: %v", r)
	}
	if res, err := c.DeleteOne(ctx, bson.D{{Key: "u", Value: int32(0)}}); err != nil || res.DeletedCount != 1 {
		t.Fatalf("DeleteOne: %+v %v", res, err)
	}
	wantIDs(t, "natural order", findAll(t, db, "test", "c", nil), 1, 4, 6, 9)
	wantIDs(t, "$natural -1", findOpts(t, c, nil, FindOptions{Sort: bson.D{{Key: "$natural", Value: -1}}}), 9, 6, 4, 1)
	wantIDs(t, "_id range", findOpts(t, c, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: int32(2)}}}}, FindOptions{Hint: "_id_"}), 4, 6, 9)
	wantIDs(t, "k_1", findOpts(t, c, bson.D{{Key: "k", Value: int32(1)}}, FindOptions{Hint: "k_1"}), 1, 4)
	if d, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: int32(3)}}); err == nil || d != nil {
		t.Fatalf("deleted _id 3 found: %v %v", d, err)
	}
	// The tailable cursor reads past the deleted, then sees a new one.
	r, err := getMore(t, db, tail, "")
	if err != nil {
		t.Fatal(err)
	}
	wantIDs(t, "tailable getMore", batchDocs(t, r, "nextBatch"), 4, 6, 9)
	// _id 3 and unique key 3 are free again; the new document goes last.
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 3, "k": 0, "u": 3}]}`)
	wantIDs(t, "after reinsert", findAll(t, db, "test", "c", nil), 1, 4, 6, 9, 3)
	r, err = getMore(t, db, tail, "")
	if err != nil {
		t.Fatal(err)
	}
	wantIDs(t, "tailable getMore after reinsert", batchDocs(t, r, "nextBatch"), 3)
	checkCappedCounts(t, db, 5)
	mustValidate(t, db, "test", "c")

	// Reopened: the tombstones are recognised as such.
	db = reopen(t, db, dir, clk)
	c = db.Database("test").Collection("c")
	wantIDs(t, "after reopen", findAll(t, db, "test", "c", nil), 1, 4, 6, 9, 3)
	checkCappedCounts(t, db, 5)
	mustValidate(t, db, "test", "c")
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": 9}, "limit": 1}]}`)
	// Wrapping the ring evicts tombstones as any record.
	for i := 100; i < 400; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "k", Value: int32(i % 3)}, {Key: "u", Value: int32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	all := findAll(t, db, "test", "c", nil)
	if ids := int32IDs(t, all); ids[len(ids)-1] != 399 || ids[0] < 100 {
		t.Fatalf("after wrapping: %v", ids)
	}
	checkCappedCounts(t, db, int64(len(all)))
	mustValidate(t, db, "test", "c")
}

// batchDocs returns the documents of a cursor reply's batch.
func batchDocs(t *testing.T, r bson.D, key string) []bson.D {
	t.Helper()
	b, _ := field(r, "cursor."+key).(bson.A)
	out := make([]bson.D, len(b))
	for i, x := range b {
		out[i] = x.(bson.D)
	}
	return out
}

// checkCappedCounts checks that count, countDocuments and collStats of
// test.c say n documents.
func checkCappedCounts(t *testing.T, db *DB, n int64) {
	t.Helper()
	if got := count(t, db, "test", "c"); got != n {
		t.Fatalf("countDocuments %d, want %d", got, n)
	}
	r := mustRun(t, db, "test", `{"count": "c"}`)
	if got, _ := asInt64(field(r, "n")); got != n {
		t.Fatalf("count %v, want %d", r, n)
	}
	r = mustRun(t, db, "test", `{"collStats": "c"}`)
	if got, _ := asInt64(field(r, "count")); got != n {
		t.Fatalf("collStats count %v, want %d", field(r, "count"), n)
	}
}

// A delete of a capped collection is a delete event, with the pre-image
// when the collection keeps them.
func TestCappedDeleteEvent(t *testing.T) {
	t.Parallel()
	db, _, _ := openChanges(t, Options{})
	ctx := context.Background()
	mustRun(t, db, "d", `{"create": "cap", "capped": true, "size": 4096, "changeStreamPreAndPostImages": {"enabled": true}}`)
	cs, err := db.Database("d").Watch(ctx, nil, ChangeStreamOptions{FullDocumentBeforeChange: "required"})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "d", `{"insert": "cap", "documents": [{"_id": 1, "a": "x"}, {"_id": 2, "a": "y"}]}`)
	mustRun(t, db, "d", `{"delete": "cap", "deletes": [{"q": {"_id": 1}, "limit": 1}]}`)
	evs := drainStream(t, cs)
	if opsOf(evs) != "[insert insert delete]" {
		t.Fatalf("events %s: %v", opsOf(evs), evs)
	}
	if e := evs[2]; field(e, "documentKey._id") != int32(1) || field(e, "fullDocumentBeforeChange.a") != "x" {
		t.Fatalf("delete event %v", e)
	}
}

// Deleted documents stay deleted through a resize (collMod cappedSize,
// docs/capped.md §7.8), convertToCapped and cloneCollectionAsCapped,
// which copy the live documents only.
func TestCappedDeleteThenCopy(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	createCapped(t, db, "c", 8192, 0)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"k": 1}, "name": "k_1"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 0, "k": 0}, {"_id": 1, "k": 1}, {"_id": 2, "k": 2}, {"_id": 3, "k": 3}, {"_id": 4, "k": 4}]}`)
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"k": {"$in": [1, 3]}}, "limit": 0}]}`)
	mustRun(t, db, "test", `{"cloneCollectionAsCapped": "c", "toCollection": "clone", "size": 4096}`)
	wantIDs(t, "clone", findAll(t, db, "test", "clone", nil), 0, 2, 4)
	mustRun(t, db, "test", `{"collMod": "c", "cappedSize": 16384, "cappedMax": 10}`)
	wantIDs(t, "resized", findAll(t, db, "test", "c", nil), 0, 2, 4)
	wantIDs(t, "resized, k_1", findOpts(t, db.Database("test").Collection("c"), bson.D{{Key: "k", Value: bson.D{{Key: "$gte", Value: int32(0)}}}}, FindOptions{Hint: "k_1"}), 0, 2, 4)
	checkCappedCounts(t, db, 3)
	mustValidate(t, db, "test", "c")
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": 2}, "limit": 1}]}`)
	mustRun(t, db, "test", `{"convertToCapped": "c", "size": 4096}`)
	wantIDs(t, "converted", findAll(t, db, "test", "c", nil), 0, 4)
	checkCappedCounts(t, db, 2)
	mustValidate(t, db, "test", "c")
}

// find_cmd's rule for a tailable cursor: it is kept whenever the
// collection has documents, even with batchSize 0 (nothing read yet),
// and closed (id 0) when it has none: never filled, or all deleted.
func TestTailableBatchSizeZeroAndEmptied(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 8192, 0)
	r := mustRun(t, db, "test", `{"find": "c", "tailable": true, "awaitData": true, "batchSize": 0}`)
	if field(r, "cursor.id") != int64(0) {
		t.Fatalf("batchSize 0 on an empty collection: %v", r)
	}
	insertI(t, c, 0, 3)
	r = mustRun(t, db, "test", `{"find": "c", "tailable": true, "batchSize": 0}`)
	id := field(r, "cursor.id").(int64)
	if id == 0 || len(batchDocs(t, r, "firstBatch")) != 0 {
		t.Fatalf("batchSize 0: %v", r)
	}
	r, err := getMore(t, db, id, "")
	if err != nil || !equalInts(batchInts(t, r, "nextBatch"), []int64{0, 1, 2}) || field(r, "cursor.id") != id {
		t.Fatalf("getMore after batchSize 0: %v %v", r, err)
	}
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {}, "limit": 0}]}`)
	r = mustRun(t, db, "test", `{"find": "c", "tailable": true}`)
	if field(r, "cursor.id") != int64(0) {
		t.Fatalf("tailable find on a collection whose documents were all deleted: %v", r)
	}
	// The open cursor stays open and sees the next insert.
	insertI(t, c, 3, 4)
	r, err = getMore(t, db, id, "")
	if err != nil || !equalInts(batchInts(t, r, "nextBatch"), []int64{3}) {
		t.Fatalf("getMore after the deletes: %v %v", r, err)
	}
}

// A deleted document frees its place under max at once, as in mongod:
// the next insert into a full collection evicts nothing.
func TestCappedDeleteFreesMax(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 1<<16, 5)
	ctx := context.Background()
	ins := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ins(0, 5)
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": 1}, "limit": 1}]}`)
	ins(5, 6)
	wantIDs(t, "a delete, then an insert into the full collection", findAll(t, db, "test", "c", nil), 0, 2, 3, 4, 5)
	ins(6, 7)
	wantIDs(t, "the next insert evicts the oldest", findAll(t, db, "test", "c", nil), 2, 3, 4, 5, 6)
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": {"$in": [3, 5]}}, "limit": 0}]}`)
	ins(7, 10)
	wantIDs(t, "two deletes, three inserts", findAll(t, db, "test", "c", nil), 4, 6, 7, 8, 9)
	checkCappedCounts(t, db, 5)
	mustValidate(t, db, "test", "c")
}

// Random inserts, deletes and shrinking updates of a capped collection
// with max against a model (the live _ids in insertion order, the
// oldest dropped past max): the natural order both ways, an index scan,
// lookups of deleted _ids and the counts agree after every step;
// validate and a reopen at the end. Some inserts reuse a deleted _id
// (out of order: the _id index's side part). The ring is large, so max
// alone binds. Replay with the seed.
func TestCappedDeleteModel(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 29))
	db, clk, dir := openTest(t)
	const max = 12
	c := createCapped(t, db, "c", 1<<20, max)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"k": 1}, "name": "k_1"}]}`)
	ctx := context.Background()
	var model, freed []int32 // live _ids in natural order; deleted ones
	next := int32(0)
	check := func(step int) {
		t.Helper()
		got := int32IDs(t, findAll(t, db, "test", "c", nil))
		if fmt.Sprint(got) != fmt.Sprint(model) {
			t.Fatalf("seed %d step %d: natural order %v, model %v", seed, step, got, model)
		}
		for _, id := range freed {
			if d, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}); err == nil || d != nil {
				t.Fatalf("seed %d step %d: deleted _id %d found: %v", seed, step, id, d)
			}
		}
		rev := int32IDs(t, findOpts(t, c, nil, FindOptions{Sort: bson.D{{Key: "$natural", Value: -1}}}))
		if len(rev) != len(model) || (len(rev) > 0 && rev[0] != model[len(model)-1]) {
			t.Fatalf("seed %d step %d: reverse %v, model %v", seed, step, rev, model)
		}
		byK := findOpts(t, c, bson.D{{Key: "k", Value: bson.D{{Key: "$gte", Value: int32(0)}}}}, FindOptions{Hint: "k_1"})
		if len(byK) != len(model) {
			t.Fatalf("seed %d step %d: k_1 finds %d, model %d", seed, step, len(byK), len(model))
		}
	}
	for step := 0; step < 600; step++ {
		switch op := rng.IntN(10); {
		case op < 6 || len(model) == 0:
			id := next
			if len(freed) > 0 && rng.IntN(3) == 0 {
				// A deleted _id again: out of order, the side index's.
				j := rng.IntN(len(freed))
				id = freed[j]
				freed = append(freed[:j:j], freed[j+1:]...)
			} else {
				next++
			}
			if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "k", Value: id % 5}, {Key: "s", Value: "abcdef"}}); err != nil {
				t.Fatalf("seed %d step %d: insert %d: %v", seed, step, id, err)
			}
			model = append(model, id)
			if len(model) > max {
				model = model[1:]
			}
		case op < 9:
			i := rng.IntN(len(model))
			if res, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: model[i]}}); err != nil || res.DeletedCount != 1 {
				t.Fatalf("seed %d step %d: delete %d: %+v %v", seed, step, model[i], res, err)
			}
			freed = append(freed, model[i])
			model = append(model[:i:i], model[i+1:]...)
		default:
			id := model[rng.IntN(len(model))]
			if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: "ab"}}}}, false); err != nil {
				t.Fatalf("seed %d step %d: update %d: %v", seed, step, id, err)
			}
		}
		check(step)
	}
	checkCappedCounts(t, db, int64(len(model)))
	mustValidate(t, db, "test", "c")
	db = reopen(t, db, dir, clk)
	c = db.Database("test").Collection("c")
	check(-1)
	checkCappedCounts(t, db, int64(len(model)))
	mustValidate(t, db, "test", "c")
}
