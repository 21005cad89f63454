package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// outsideCopies returns the outside copies (grown documents) the store
// holds for capped collection name: sequence -> generations.
func outsideCopies(t *testing.T, db *DB, name string) map[uint64][]uint64 {
	t.Helper()
	c := db.lookup("test", name)
	if c == nil {
		t.Fatalf("no collection %s", name)
	}
	return outsideCopiesOf(t, db, c.m().ID)
}

func outsideCopiesOf(t *testing.T, db *DB, id uint64) map[uint64][]uint64 {
	t.Helper()
	out := map[uint64][]uint64{}
	pre := lsm.RecordPrefix(id)
	err := db.store.Scan(lsm.IterOptions{Prefix: pre, KeysOnly: true}, func(k, _ []byte) error {
		seq, gen, ok := decodeCappedOutKey(pre, k)
		if !ok {
			return fmt.Errorf("key %x under the record prefix is not an outside copy's", k)
		}
		out[seq] = append(out[seq], gen)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cappedStats returns collStats' count and size of test.name.
func cappedStats(t *testing.T, db *DB, name string) (count, size int64) {
	t.Helper()
	r := mustRun(t, db, "test", fmt.Sprintf(`{"collStats": %q}`, name))
	count, _ = asInt64(field(r, "count"))
	size, _ = asInt64(field(r, "size"))
	return count, size
}

// framedSize is what ttlkv counts for document d of test.name: its ring
// frame (the _id keystring and the encoded document).
func framedSize(t *testing.T, db *DB, name string, d bson.D) int64 {
	t.Helper()
	p, err := prepareCapped(db.lookup("test", name).m(), d)
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(p.payload))
}

func grownIDs(docs []bson.D) string {
	var ids []string
	for _, d := range docs {
		ids = append(ids, fmt.Sprint(idOf(d)))
	}
	return strings.Join(ids, " ")
}

// MongoDB's capped_update.js (SERVER-58865): updates that change a
// capped document's size are accepted, including one that grows it
// beyond what it was inserted with, and the documents keep their order.
func TestCappedGrowUpdateMongod(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	createCapped(t, db, "c", 1024, 0)
	var docs []string
	for j := 1; j <= 10; j++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "s": "Hello, World!"}`, j))
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [`+strings.Join(docs, ",")+`]}`)
	for _, u := range []string{
		`{"q": {"_id": 3}, "u": {"s": "Hello, Mongo!"}}`,
		`{"q": {"_id": 3}, "u": {"$set": {"s": "Hello!"}}}`,
		`{"q": {"_id": 10}, "u": {}}`,
		`{"q": {"_id": 10}, "u": {"s": "Hello, World!!!"}}`,
	} {
		r := mustRun(t, db, "test", `{"update": "c", "updates": [`+u+`]}`)
		if _, bad := get(r, "writeErrors"); bad || field(r, "n") != int32(1) || field(r, "nModified") != int32(1) {
			t.Fatalf("update %s: %v", u, r)
		}
	}
	all := findAll(t, db, "test", "c", nil)
	if got := grownIDs(all); got != "1 2 3 4 5 6 7 8 9 10" {
		t.Fatalf("natural order %s", got)
	}
	if field(all[2], "s") != "Hello!" || field(all[9], "s") != "Hello, World!!!" {
		t.Fatalf("documents %v", all)
	}
	c := db.Database("test").Collection("c")
	rev := findOpts(t, c, nil, FindOptions{Sort: bson.D{{Key: "$natural", Value: -1}}})
	if got := grownIDs(rev); got != "10 9 8 7 6 5 4 3 2 1" {
		t.Fatalf("$natural -1: %s", got)
	}
	d, err := c.FindOne(context.Background(), bson.D{{Key: "_id", Value: int32(10)}})
	if err != nil || field(d, "s") != "Hello, World!!!" {
		t.Fatalf("find by _id: %v %v", d, err)
	}
	if n := len(outsideCopies(t, db, "c")); n != 1 {
		t.Fatalf("%d outside copies, want 1 (the document that outgrew its record)", n)
	}
	mustValidate(t, db, "test", "c")
}

// The queue pattern: $set {processed: true} on each log entry grows
// every document; all keep their places, tailable cursors and the _id
// index see the new documents, and collStats counts their new sizes.
func TestCappedGrowQueuePattern(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 1<<20, 0)
	ctx := context.Background()
	var want int64
	for i := 0; i < 50; i++ {
		d := bson.D{{Key: "_id", Value: int32(i)}, {Key: "i", Value: int64(i)}, {Key: "msg", Value: "entry"}}
		if _, err := c.InsertOne(ctx, d); err != nil {
			t.Fatal(err)
		}
		want += framedSize(t, db, "c", append(d, bson.E{Key: "processed", Value: true}))
	}
	r := mustRun(t, db, "test", `{"find": "c", "tailable": true, "batchSize": 0}`)
	cursor := field(r, "cursor.id").(int64)
	for i := 0; i < 50; i++ {
		r, err := c.UpdateOne(ctx, bson.D{{Key: "i", Value: int64(i)}, {Key: "processed", Value: bson.D{{Key: "$exists", Value: false}}}}, bson.D{{Key: "$set", Value: bson.D{{Key: "processed", Value: true}}}}, false)
		if err != nil || r.ModifiedCount != 1 {
			t.Fatalf("processing %d: %v %v", i, r, err)
		}
	}
	n, size := cappedStats(t, db, "c")
	if n != 50 || size != want {
		t.Fatalf("collStats count %d size %d, want 50 and %d", n, size, want)
	}
	got := findAll(t, db, "test", "c", bson.D{{Key: "processed", Value: true}})
	if ids := ints(t, got); len(ids) != 50 || !consecutive(ids, 0, 49) {
		t.Fatalf("processed documents in natural order: %v", ids)
	}
	r, err := getMore(t, db, cursor, "")
	if err != nil {
		t.Fatal(err)
	}
	tailed, _ := field(r, "cursor.nextBatch").(bson.A)
	if len(tailed) != 50 || field(tailed[49].(bson.D), "processed") != true {
		t.Fatalf("tailable cursor read %d documents (%v)", len(tailed), tailed)
	}
	for _, id := range []int32{0, 25, 49} {
		d, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: id}})
		if err != nil || field(d, "processed") != true {
			t.Fatalf("find _id %d: %v %v", id, d, err)
		}
	}
	mustValidate(t, db, "test", "c")
}

// A grown document counts its new size toward the collection's; the
// next insert then removes the oldest documents until the collection
// is under its size again, the grown one among them, with its outside
// copy.
func TestCappedGrowSizeAccounting(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	const size = 4096
	c := createCapped(t, db, "c", size, 0)
	ctx := context.Background()
	doc := func(i int) bson.D {
		return bson.D{{Key: "_id", Value: int32(i)}, {Key: "i", Value: int64(i)}, {Key: "s", Value: strings.Repeat("x", 20)}}
	}
	var sizes []int64 // the model: counted size per live document, oldest first
	for i := 0; i < 20; i++ {
		if _, err := c.InsertOne(ctx, doc(i)); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, framedSize(t, db, "c", doc(i)))
	}
	sum := func() (s int64) {
		for _, n := range sizes {
			s += n
		}
		return s
	}
	if n, s := cappedStats(t, db, "c"); n != 20 || s != sum() {
		t.Fatalf("before: count %d size %d, want 20 and %d", n, s, sum())
	}
	big := bson.D{{Key: "_id", Value: int32(5)}, {Key: "i", Value: int64(5)}, {Key: "s", Value: strings.Repeat("g", 3500)}}
	if _, err := c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: int32(5)}}, big, false); err != nil {
		t.Fatalf("growing update: %v", err)
	}
	sizes[5] = framedSize(t, db, "c", big)
	// As mongod: the update deletes nothing; the collection is over its
	// size until the next insert.
	if n, s := cappedStats(t, db, "c"); n != 20 || s != sum() || s <= size {
		t.Fatalf("after growing: count %d size %d, want 20 and %d (over %d)", n, s, sum(), size)
	}
	mustValidate(t, db, "test", "c")
	if _, err := c.InsertOne(ctx, doc(20)); err != nil {
		t.Fatal(err)
	}
	first := 0
	sizes = append(sizes, framedSize(t, db, "c", doc(20)))
	for sum() > size {
		sizes = sizes[1:]
		first++
	}
	got := ints(t, findAll(t, db, "test", "c", nil))
	if first != 6 || len(got) != len(sizes) || got[0] != int64(first) || !consecutive(got, int64(first), 20) {
		t.Fatalf("after the next insert: %v, want %d..20 (model evicted %d)", got, first, first)
	}
	if n, s := cappedStats(t, db, "c"); n != int64(len(sizes)) || s != sum() {
		t.Fatalf("after the next insert: count %d size %d, want %d and %d", n, s, len(sizes), sum())
	}
	if n := len(outsideCopies(t, db, "c")); n != 0 {
		t.Fatalf("%d outside copies left after the grown document was evicted", n)
	}
	mustValidate(t, db, "test", "c")
}

// A grown document can grow again and shrink back into its record; a
// delete removes its outside copy; all of it survives a reopen, which
// rebuilds the _id index and the grown records' accounting from the
// ring.
func TestCappedGrowAgainShrinkDeleteReopen(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	c := createCapped(t, db, "c", 64<<10, 0)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"s": 1}, "name": "s_1"}]}`)
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "i", Value: int64(i)}, {Key: "s", Value: "short"}}); err != nil {
			t.Fatal(err)
		}
	}
	set := func(id int32, s string) {
		t.Helper()
		r, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: s}}}}, false)
		if err != nil || r.ModifiedCount != 1 {
			t.Fatalf("set s of %d: %v %v", id, r, err)
		}
	}
	check := func(what string, want map[int32]string, copies int) {
		t.Helper()
		all := findAll(t, db, "test", "c", nil)
		if ids := ints(t, all); !consecutive(ids, 0, 9) && len(want) == 10 {
			t.Fatalf("%s: order %v", what, ids)
		}
		for _, d := range all {
			id := idOf(d).(int32)
			if s, ok := want[id]; ok && field(d, "s") != s {
				t.Fatalf("%s: document %d has s %.20v..., want %.20s...", what, id, field(d, "s"), s)
			}
			if s, ok := want[id]; ok {
				byIdx := findOpts(t, db.Database("test").Collection("c"), bson.D{{Key: "s", Value: s}}, FindOptions{Hint: "s_1"})
				found := false
				for _, b := range byIdx {
					found = found || idOf(b) == id
				}
				if !found {
					t.Fatalf("%s: s_1 does not find document %d", what, id)
				}
			}
		}
		if n := len(outsideCopies(t, db, "c")); n != copies {
			t.Fatalf("%s: %d outside copies, want %d", what, n, copies)
		}
		mustValidate(t, db, "test", "c")
	}
	want := map[int32]string{}
	for i := int32(0); i < 10; i++ {
		want[i] = "short"
	}
	want[3] = strings.Repeat("a", 300)
	set(3, want[3])
	check("grown", want, 1)
	want[3] = strings.Repeat("b", 700)
	set(3, want[3])
	check("grown again", want, 1)
	want[3] = "s"
	set(3, want[3])
	check("shrunk back into its record", want, 0)
	want[4], want[6] = strings.Repeat("c", 400), strings.Repeat("d", 500)
	set(4, want[4])
	set(6, want[6])
	check("two grown", want, 2)
	if r, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: int32(6)}}); err != nil || r.DeletedCount != 1 {
		t.Fatalf("delete: %v %v", r, err)
	}
	delete(want, 6)
	check("grown one deleted", want, 1)
	n, size := cappedStats(t, db, "c")
	db = reopen(t, db, dir, clk)
	c = db.Database("test").Collection("c")
	if n2, size2 := cappedStats(t, db, "c"); n2 != n || size2 != size {
		t.Fatalf("after reopen: count %d size %d, want %d and %d", n2, size2, n, size)
	}
	check("reopened", want, 1)
	want[4] = strings.Repeat("e", 900)
	set(4, want[4])
	check("grown again after reopen", want, 1)
}

// Eviction on wrap removes the outside copies of grown documents it
// evicts, with a secondary index whose keys the eviction reads from
// them.
func TestCappedGrowEvictedOnWrap(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 16<<10, 0)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"s": 1}, "name": "s_1"}]}`)
	ctx := context.Background()
	for i := 0; i < 40; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "i", Value: int64(i)}, {Key: "s", Value: "v"}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []int32{0, 1, 5, 30} {
		if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: strings.Repeat("w", 200+int(id))}}}}, false); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(outsideCopies(t, db, "c")); n != 4 {
		t.Fatalf("%d outside copies, want 4", n)
	}
	mustValidate(t, db, "test", "c")
	for i := 40; i < 400; i += 10 {
		var docs []any
		for j := i; j < i+10; j++ {
			docs = append(docs, bson.D{{Key: "_id", Value: int32(j)}, {Key: "i", Value: int64(j)}, {Key: "s", Value: "v"}})
		}
		if _, err := c.InsertMany(ctx, docs, true); err != nil {
			t.Fatal(err)
		}
		mustValidate(t, db, "test", "c")
	}
	if n := len(outsideCopies(t, db, "c")); n != 0 {
		t.Fatalf("%d outside copies after the ring wrapped past every grown document", n)
	}
	if got := findOpts(t, c, bson.D{{Key: "s", Value: bson.D{{Key: "$ne", Value: "v"}}}}, FindOptions{Hint: "s_1"}); len(got) != 0 {
		t.Fatalf("s_1 still finds evicted grown documents: %v", got)
	}
}

// collMod resize, cloneCollectionAsCapped and drop carry or remove the
// outside copies; change streams' updateLookup reads the new document.
func TestCappedGrowResizeCloneDrop(t *testing.T) {
	t.Parallel()
	db, _, _ := openChanges(t, Options{})
	c := createCapped(t, db, "c", 64<<10, 0)
	ctx := context.Background()
	cs, err := c.Watch(ctx, nil, ChangeStreamOptions{FullDocument: "updateLookup"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "i", Value: int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	grown := strings.Repeat("z", 1000)
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(2)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "g", Value: grown}}}}, false); err != nil {
		t.Fatal(err)
	}
	var upd bson.D
	for _, e := range drainStream(t, cs) {
		if field(e, "operationType") == "update" {
			upd = e
		}
	}
	if upd == nil || field(upd, "fullDocument.g") != grown || field(upd, "updateDescription.updatedFields.g") != grown {
		t.Fatalf("update event %v", upd)
	}
	_, size := cappedStats(t, db, "c")
	mustRun(t, db, "test", `{"cloneCollectionAsCapped": "c", "toCollection": "d", "size": 65536}`)
	if d, err := db.Database("test").Collection("d").FindOne(ctx, bson.D{{Key: "_id", Value: int32(2)}}); err != nil || field(d, "g") != grown {
		t.Fatalf("clone: %v %v", d, err)
	}
	if _, s := cappedStats(t, db, "d"); s != size {
		t.Fatalf("clone counts %d bytes, the source %d", s, size)
	}
	mustValidate(t, db, "test", "d")
	oldID := db.lookup("test", "c").m().ID
	mustRun(t, db, "test", `{"collMod": "c", "cappedSize": 131072}`)
	if d, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: int32(2)}}); err != nil || field(d, "g") != grown {
		t.Fatalf("after resize: %v %v", d, err)
	}
	if ids := ints(t, findAll(t, db, "test", "c", nil)); !consecutive(ids, 0, 9) {
		t.Fatalf("after resize: %v", ids)
	}
	if n := len(outsideCopiesOf(t, db, oldID)); n != 0 {
		t.Fatalf("the resized-away collection keeps %d outside copies", n)
	}
	if _, s := cappedStats(t, db, "c"); s != size {
		t.Fatalf("after resize: size %d, want %d", s, size)
	}
	mustValidate(t, db, "test", "c")
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(7)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "g", Value: grown}}}}, false); err != nil {
		t.Fatal(err)
	}
	id := db.lookup("test", "c").m().ID
	if n := len(outsideCopiesOf(t, db, id)); n != 1 {
		t.Fatalf("%d outside copies, want 1", n)
	}
	mustRun(t, db, "test", `{"drop": "c"}`)
	if n := len(outsideCopiesOf(t, db, id)); n != 0 {
		t.Fatalf("a dropped collection keeps %d outside copies", n)
	}
}

// Readers running beside updates that grow, regrow and shrink documents
// and inserts that evict them never fail to read a document: a pointer
// whose copy was replaced or evicted meanwhile is read again from the
// ring.
func TestCappedGrowConcurrentReaders(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 32<<10, 0)
	ctx := context.Background()
	for i := 0; i < 100; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: "v"}}); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	errs := make(chan error, 3)
	go func() { // writer: grows, regrows and shrinks, and inserts
		defer close(done)
		next := int32(100)
		for round := 0; round < 150; round++ {
			id := next - int32(round%50) - 1
			s := strings.Repeat("g", []int{1, 300, 700}[round%3])
			if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: s}}}}, false); err != nil {
				errs <- err
				return
			}
			if round%4 == 0 {
				if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: next}, {Key: "s", Value: strings.Repeat("n", 200)}}); err != nil {
					errs <- err
					return
				}
				next++
			}
		}
	}()
	read := func(reverse bool) {
		for {
			select {
			case <-done:
				errs <- nil
				return
			default:
			}
			o := FindOptions{}
			if reverse {
				o.Sort = bson.D{{Key: "$natural", Value: -1}}
			}
			cur, err := c.Find(ctx, nil, o)
			if err == nil {
				var docs []bson.D
				docs, err = cur.All(ctx)
				for _, d := range docs {
					if _, ok := get(d, "s"); !ok {
						err = fmt.Errorf("document without s: %v", d)
					}
				}
				if err == nil && len(docs) > 0 {
					_, err = c.FindOne(ctx, bson.D{{Key: "_id", Value: idOf(docs[len(docs)/2])}})
					if errors.Is(err, ErrNoDocuments) {
						err = nil // evicted or changed since
					}
				}
			}
			if err != nil && document.CodeOf(err) != document.CodeCappedPositionLost {
				errs <- err
				return
			}
		}
	}
	go read(false)
	go read(true)
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	<-done
	select {
	case err := <-errs:
		if err != nil {
			t.Fatal(err)
		}
	default:
	}
	mustValidate(t, db, "test", "c")
}

// A reader holding a pointer frame whose copy an update replaced reads
// the record again and gets the new document; one whose record was
// evicted meanwhile finds it gone, not an error.
func TestCappedGrowStalePointer(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 8192, 0)
	ctx := context.Background()
	for i := 0; i < 20; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: "v"}}); err != nil {
			t.Fatal(err)
		}
	}
	set := func(s string) {
		t.Helper()
		if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(0)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: s}}}}, false); err != nil {
			t.Fatal(err)
		}
	}
	st, err := cappedOf(db.lookup("test", "c"))
	if err != nil {
		t.Fatal(err)
	}
	first := func() capped.Record {
		t.Helper()
		it := st.ring.Scan(0, false)
		if !it.Next() {
			t.Fatal(it.Err())
		}
		return it.Record()
	}
	set(strings.Repeat("a", 300))
	stale := first()
	set(strings.Repeat("b", 400)) // a new copy; the one stale names is gone
	msg, ok, err := st.recordMsg(stale)
	if err != nil || !ok {
		t.Fatalf("stale pointer: %v %v", ok, err)
	}
	if d, _ := document.Unmarshal(msg); field(d, "s") != strings.Repeat("b", 400) {
		t.Fatalf("stale pointer read %v", d)
	}
	stale = first()
	for i := 20; i < 200; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: "v"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := st.recordMsg(stale); ok || err != nil {
		t.Fatalf("pointer of an evicted record: ok %v, err %v; want gone", ok, err)
	}
}

// A pointer record whose copy the store lacks (an insert outside the
// ring synced to the ring before its copy committed, then a crash; an
// update never leaves one) is deleted when the collection opens: the
// insert was not acknowledged.
func TestCappedGrowPointerWithoutCopy(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	c := createCapped(t, db, "c", 8192, 0)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: "some text"}}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := cappedOf(db.lookup("test", "c"))
	if err != nil {
		t.Fatal(err)
	}
	it := st.ring.Scan(0, false)
	for it.Next() && it.Record().Seq < st.ring.FirstSeq()+2 {
	}
	rec := it.Record() // the third record: _id 2
	ks, _ := cappedKS(rec.Data)
	data, ok := encodeCappedPointer(ks, cappedPointer{gen: 5, n: 1000}, len(rec.Data))
	if !ok {
		t.Fatal("no room for a pointer")
	}
	if err := st.ring.Overwrite(rec.Seq, rec.Off, data); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, db, dir, clk)
	var ids []any
	for _, d := range findAll(t, db, "test", "c", nil) {
		ids = append(ids, idOf(d))
	}
	if fmt.Sprint(ids) != "[0 1 3 4]" {
		t.Fatalf("after reopen: %v, want the pointer's document gone", ids)
	}
	if n, _ := cappedStats(t, db, "c"); n != 4 {
		t.Fatalf("count %d, want 4", n)
	}
	mustValidate(t, db, "test", "c")
}

// docs/capped.md, "Memory": an outside copy costs no memory beyond
// Badger but its bit in the grown set: with every record grown (the
// queue pattern) the set holds well under half a byte a record.
func TestCappedGrowMemory(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 4<<20, 0)
	ctx := context.Background()
	const n = 4000
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "msg", Value: "entry"}}
	}
	if _, err := c.InsertMany(ctx, docs, true); err != nil {
		t.Fatal(err)
	}
	r, err := c.UpdateMany(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "processed", Value: true}}}}, false)
	if err != nil || r.ModifiedCount != n {
		t.Fatalf("update: %v %v", r, err)
	}
	st, err := cappedOf(db.lookup("test", "c"))
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := st.grown.Live(); g != n {
		t.Fatalf("%d grown records, want %d", g, n)
	}
	if m := st.grown.memBytes(); m > n/4+64 {
		t.Fatalf("the grown set holds %d bytes for %d records, more than a quarter byte each", m, n)
	}
	if len(outsideCopies(t, db, "c")) != n {
		t.Fatal("not every record has its outside copy")
	}
}
