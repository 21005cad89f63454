package engine

import (
	"crypto/md5"
	"encoding/hex"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// dbHash hashes each collection's documents in _id order (a capped
// one's in natural order) as mongod does, so two stores that hold the
// same documents, written in any order, answer the same hashes.
func TestDBHash(t *testing.T) {
	t.Parallel()
	docs := []string{`{"_id": 1, "a": {"$numberLong": "5"}, "s": "x"}`, `{"_id": 2, "d": 2.5}`, `{"_id": 3, "arr": [1, {"b": null}]}`}
	md5hex := func(parts ...[]byte) string {
		h := md5.New()
		for _, p := range parts {
			h.Write(p)
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	var raw [][]byte
	for _, s := range docs {
		d, err := document.ParseExtJSON([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		b, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, b)
	}
	wantA := md5hex(raw...)
	const empty = "d41d8cd98f00b204e9800998ecf8427e" // MD5 of nothing

	load := func(order []int) *DB {
		db, _ := openMem(t)
		for _, i := range order {
			mustRun(t, db, "test", `{"insert": "a", "documents": [`+docs[i]+`]}`)
		}
		mustRun(t, db, "test", `{"create": "e"}`)
		mustRun(t, db, "test", `{"create": "cap", "capped": true, "size": 4096}`)
		mustRun(t, db, "test", `{"insert": "cap", "documents": [{"_id": 9, "m": "first"}, {"_id": 1, "m": "second"}]}`)
		mustRun(t, db, "test", `{"create": "v", "viewOn": "a", "pipeline": []}`)
		mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
		mustRun(t, db, "test", `{"insert": "ts", "documents": [{"t": {"$date": "2026-01-01T00:00:00Z"}, "v": 1}]}`)
		return db
	}
	db1, db2 := load([]int{0, 1, 2}), load([]int{2, 0, 1})
	// Buckets are left out of the comparison: a bucket's _id is an
	// ObjectId made when it opens, so two stores' buckets differ.
	cmp := `{"dbHash": 1, "collections": ["a", "cap", "e"]}`
	if r1, r2 := mustRun(t, db1, "test", cmp), mustRun(t, db2, "test", cmp); !document.Equal(field(r1, "collections"), field(r2, "collections")) || field(r1, "md5") != field(r2, "md5") {
		t.Fatalf("the same documents hash apart:\n%v\n%v", r1, r2)
	}
	r1 := mustRun(t, db1, "test", `{"dbHash": 1}`)
	colls, _ := field(r1, "collections").(bson.D)
	var names []string
	for _, e := range colls {
		names = append(names, e.Key)
	}
	if got := len(names); got != 4 || names[0] != "a" || names[1] != "cap" || names[2] != "e" || names[3] != "system.buckets.ts" {
		t.Fatalf("collections %v, want a, cap, e, system.buckets.ts (no view, no time-series view)", names)
	}
	if field(r1, "collections.a") != wantA || field(r1, "collections.e") != empty {
		t.Fatalf("a %v (want %s), e %v (want %s)", field(r1, "collections.a"), wantA, field(r1, "collections.e"), empty)
	}
	var all []byte
	for _, e := range colls {
		all = append(all, e.Value.(string)...)
	}
	if field(r1, "md5") != md5hex(all) || field(r1, "numCollections") != int32(4) || !document.Equal(field(r1, "capped"), bson.A{"cap"}) {
		t.Fatalf("reply %v", r1)
	}
	// The capped collection is hashed in natural order, not _id order.
	c1, _ := document.ParseExtJSON([]byte(`{"_id": 9, "m": "first"}`))
	c2, _ := document.ParseExtJSON([]byte(`{"_id": 1, "m": "second"}`))
	b1, _ := bson.Marshal(c1)
	b2, _ := bson.Marshal(c2)
	if field(r1, "collections.cap") != md5hex(b1, b2) {
		t.Errorf("cap hashed out of natural order: %v", field(r1, "collections.cap"))
	}
	// A change to one document changes its collection's hash only.
	mustRun(t, db2, "test", `{"update": "a", "updates": [{"q": {"_id": 2}, "u": {"$set": {"d": 2.0}}}]}`)
	r3 := mustRun(t, db2, "test", `{"dbHash": 1, "collections": ["a", "e", "nosuch"]}`)
	if field(r3, "collections.a") == wantA || field(r3, "collections.e") != empty || field(r3, "numCollections") != int32(2) {
		t.Fatalf("after an update: %v", r3)
	}
	wantCode(t, db1, "test", `{"dbHash": 1, "collections": "a"}`, document.CodeTypeMismatch, "")
}
