package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// uniformDoc is document i with a fixed-size payload, so every ring
// record of these tests has the same size.
func uniformDoc(i int64) bson.D {
	return bson.D{{Key: "_id", Value: i}, {Key: "i", Value: i}, {Key: "pad", Value: strings.Repeat("p", 150)}}
}

func insertRange(t *testing.T, c *Collection, from, to int64, batch int) {
	t.Helper()
	ctx := context.Background()
	for i := from; i < to; {
		if batch <= 1 {
			if _, err := c.InsertOne(ctx, uniformDoc(i)); err != nil {
				t.Fatalf("insert %d: %v", i, err)
			}
			i++
			continue
		}
		var docs []any
		for ; i < to && len(docs) < batch; i++ {
			docs = append(docs, uniformDoc(i))
		}
		if _, err := c.InsertMany(ctx, docs, true); err != nil {
			t.Fatalf("insert up to %d: %v", i, err)
		}
	}
}

// byID returns the "i" of the documents an _id lookup finds.
func byID(t *testing.T, db *DB, coll string, id int64) []int64 {
	t.Helper()
	return ints(t, findAll(t, db, "test", coll, bson.D{{Key: "_id", Value: id}}))
}

// docs/capped.md §7.3: eviction is strict. Once the ring is full, every insert
// (InsertOne or any batch size) leaves the collection holding the newest
// documents that fit: never fewer than one less than the most it has held
// (a wrap may abandon the end of the file), where evicting in steps of
// size/16 would drop about 16 of these documents at once. The _id index
// names exactly the live documents after every operation.
func TestCappedStrictEviction(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, batch := range []int{1, 37, 500} {
		t.Run(fmt.Sprintf("batch%d", batch), func(t *testing.T) {
			name := fmt.Sprintf("c%d", batch)
			c := createCapped(t, db, name, 64<<10, 0)
			st, err := cappedOf(db.lookup("test", name))
			if err != nil {
				t.Fatal(err)
			}
			var most, next int64
			for round := 0; round < 12; round++ {
				step := int64(batch)
				if batch == 1 {
					step = 97
				}
				insertRange(t, c, next, next+step, batch)
				next += step
				n := st.ring.Count()
				if st.ring.FirstSeq() > 1 && most > 0 && n < most-1 {
					t.Fatalf("round %d: %d documents after a full ring held %d: eviction is not strict", round, n, most)
				}
				most = max(most, n)
				got := ints(t, findAll(t, db, "test", name, nil))
				if int64(len(got)) != n || !consecutive(got, next-n, next-1) {
					t.Fatalf("round %d: documents %v, want the newest %d", round, got, n)
				}
				for _, id := range []int64{next - n, next - n + n/2, next - 1} {
					if g := byID(t, db, name, id); len(g) != 1 || g[0] != id {
						t.Fatalf("round %d: _id %d lookup found %v", round, id, g)
					}
				}
				if g := byID(t, db, name, next-n-1); len(g) != 0 {
					t.Fatalf("round %d: evicted _id %d still found: %v", round, next-n-1, g)
				}
			}
			if st.ring.FirstSeq() < 100 {
				t.Fatalf("the ring did not wrap (first seq %d)", st.ring.FirstSeq())
			}
			mustValidate(t, db, "test", name)
		})
	}
}

// The lookahead deletes the _id entries of records a batch is about to
// evict before they are evicted. A document of the batch with the _id of
// such a record, while it is still live, is a duplicate all the same; a
// batch that stops early puts the entries of the records it did not
// evict back.
func TestCappedDoomedRecords(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 64<<10, 0)
	st, err := cappedOf(db.lookup("test", "c"))
	if err != nil {
		t.Fatal(err)
	}
	insertRange(t, c, 0, 1000, 100)
	ctx := context.Background()
	first := func() int64 { return ints(t, findOpts(t, c, nil, FindOptions{Limit: 1}))[0] }

	// Unordered: document 1 repeats the _id of a record the batch's 40
	// documents will evict, but that is still live when it is checked.
	old := first()
	docs := []any{uniformDoc(1000), uniformDoc(old + 20)}
	for i := int64(1001); i < 1039; i++ {
		docs = append(docs, uniformDoc(i))
	}
	_, err = c.InsertMany(ctx, docs, false)
	var bwe *BulkWriteError
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 1 {
		t.Fatalf("unordered batch with a doomed _id: %v", err)
	}
	checkCode(t, "doomed duplicate", bwe.WriteErrors[0].Err, document.CodeDuplicateKey, "dup key")
	mustValidate(t, db, "test", "c")

	// Ordered: the batch stops at its second document, having evicted
	// about one record; the entries of the others it had doomed are back.
	old = first()
	docs = []any{uniformDoc(2000), uniformDoc(old + 30)}
	for i := int64(2001); i < 2200; i++ {
		docs = append(docs, uniformDoc(i))
	}
	_, err = c.InsertMany(ctx, docs, true)
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 1 {
		t.Fatalf("ordered batch stopping at a duplicate: %v", err)
	}
	now := first()
	if now > old+2 {
		t.Fatalf("the stopped batch evicted up to %d, from %d", now, old)
	}
	for id := now; id < now+100; id++ {
		if g := byID(t, db, "c", id); len(g) != 1 {
			t.Fatalf("_id %d (live) not found after the batch stopped: %v", id, g)
		}
	}
	mustValidate(t, db, "test", "c")
	if st.ring.Count() == 0 {
		t.Fatal("empty ring")
	}
}

// Eviction and reconciliation take a record's _id key from its frame and
// never decode the document: a record whose document bytes are damaged
// (checksum intact) is evicted like any other. validate decodes every
// record and checks the key in the frame against the document's _id.
func TestCappedFrameKey(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := createCapped(t, db, "c", 16<<10, 0)
	insertRange(t, c, 0, 300, 50)
	st, err := cappedOf(db.lookup("test", "c"))
	if err != nil {
		t.Fatal(err)
	}
	records := func() []capped.Record {
		var out []capped.Record
		it := st.ring.Scan(0, false)
		for it.Next() {
			out = append(out, it.Record())
		}
		if it.Err() != nil {
			t.Fatal(it.Err())
		}
		return out
	}
	recs := records()

	// A record whose frame names another _id of the same key length.
	r := recs[len(recs)-1]
	ks, msg, err := cappedFrame(r.Data)
	if err != nil {
		t.Fatal(err)
	}
	wrong := lsm.AppendKey(nil, int64(999999), false)
	if len(wrong) != len(ks) {
		t.Fatalf("key lengths %d and %d differ", len(wrong), len(ks))
	}
	if err := st.ring.Overwrite(r.Seq, r.Off, encodeCappedPayload(nil, wrong, msg, len(r.Data)-cappedFramedLen(wrong, msg))); err != nil {
		t.Fatal(err)
	}
	res, err := db.Validate(context.Background(), "test", "c")
	if err != nil || res.Valid() || !strings.Contains(strings.Join(res.Errors, "\n"), "does not match its document") {
		t.Fatalf("validate of a record with a wrong frame key: %v %v", res.Errors, err)
	}
	if err := st.ring.Overwrite(r.Seq, r.Off, r.Data); err != nil {
		t.Fatal(err)
	}

	// The oldest record's document bytes damaged: eviction still works.
	r = recs[0]
	ks, msg, _ = cappedFrame(r.Data)
	bad := encodeCappedPayload(nil, ks, []byte(strings.Repeat("\xc1", len(msg))), len(r.Data)-cappedFramedLen(ks, msg))
	if err := st.ring.Overwrite(r.Seq, r.Off, bad); err != nil {
		t.Fatal(err)
	}
	if res, _ := db.Validate(context.Background(), "test", "c"); res.Valid() {
		t.Fatal("validate did not notice a document that does not decode")
	}
	insertRange(t, c, 300, 400, 1)
	if st.ring.FirstSeq() <= r.Seq {
		t.Fatalf("record %d not evicted (first %d)", r.Seq, st.ring.FirstSeq())
	}
	mustValidate(t, db, "test", "c")
}

func TestCappedFrame(t *testing.T) {
	t.Parallel()
	ks := lsm.AppendKey(nil, "abc", false)
	msg := []byte{1, 2, 3, 4, 5}
	p := encodeCappedPayload(nil, ks, msg, 3)
	if len(p) != cappedFramedLen(ks, msg)+3 {
		t.Fatalf("framed length %d, want %d", len(p), cappedFramedLen(ks, msg)+3)
	}
	gk, gm, err := cappedFrame(p)
	if err != nil || string(gk) != string(ks) || string(gm) != string(msg) {
		t.Fatalf("frame round trip: %x %x %v", gk, gm, err)
	}
	if k, err := cappedKS(p); err != nil || string(k) != string(ks) {
		t.Fatalf("cappedKS: %x %v", k, err)
	}
	for _, tc := range []struct {
		name string
		p    []byte
	}{
		{"empty", nil},
		{"key length past the end", []byte{9, 1, 2}},
		{"no document length", p[:1+len(ks)]},
		{"document cut", p[:1+len(ks)+1+2]},
		{"bad varint", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	} {
		if _, _, err := cappedFrame(tc.p); err == nil {
			t.Errorf("%s: cappedFrame accepted %x", tc.name, tc.p)
		}
	}
	if _, err := cappedKS([]byte{0, 1}); err == nil {
		t.Error("cappedKS accepted an empty key")
	}
}

// prepareCapped encodes the document straight into the frame and takes
// the short path for the _id key; the result must be exactly what
// encodeCappedPayload gives for the _id index's keystring and
// document.Marshal, whatever the lengths of key and document (one- to
// three-byte length prefixes) and the _id's type.
func TestPrepareCappedFrame(t *testing.T) {
	t.Parallel()
	m := &catalog.Coll{Kind: catalog.KindCapped, Indexes: []*catalog.Index{idIndex()}}
	for _, tc := range []struct {
		name string
		d    bson.D
	}{
		{"small", bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: "x"}}},
		{"no _id", bson.D{{Key: "a", Value: "x"}}},
		{"_id not first", bson.D{{Key: "a", Value: "x"}, {Key: "_id", Value: "later"}}},
		{"long key", bson.D{{Key: "_id", Value: strings.Repeat("k", 300)}}},
		{"document over 127 bytes", bson.D{{Key: "_id", Value: 1.5}, {Key: "pad", Value: strings.Repeat("p", 200)}}},
		{"document over 16 KiB", bson.D{{Key: "_id", Value: int64(7)}, {Key: "pad", Value: strings.Repeat("p", 20000)}}},
		{"subdocument _id", bson.D{{Key: "_id", Value: bson.D{{Key: "x", Value: int32(1)}, {Key: "y", Value: "z"}}}}},
		{"decimal _id", bson.D{{Key: "_id", Value: int64(1) << 60}}},
	} {
		p, err := prepareCapped(m, tc.d)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ix := idIndex()
		keys, _, err := indexkey.Of(ix, p.d)
		if err != nil || len(keys) != 1 {
			t.Fatalf("%s: indexKeys %v %v", tc.name, keys, err)
		}
		msg, err := document.Marshal(p.d)
		if err != nil {
			t.Fatal(err)
		}
		if want := encodeCappedPayload(nil, keys[0], msg, 0); string(p.payload) != string(want) {
			t.Fatalf("%s: payload\n%x\nwant\n%x", tc.name, p.payload, want)
		}
		if string(p.ks) != string(keys[0]) {
			t.Fatalf("%s: ks %x, want %x", tc.name, p.ks, keys[0])
		}
		if d, err := decodeCappedPayload(p.payload); err != nil || !document.Equal(d, p.d) {
			t.Fatalf("%s: payload decodes to %v, %v", tc.name, d, err)
		}
	}
	if _, err := prepareCapped(m, bson.D{{Key: "_id", Value: bson.A{int32(1)}}}); err == nil {
		t.Fatal("an array _id was accepted")
	}
}
