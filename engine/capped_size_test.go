package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// TestCappedExactSizes: create and collMod keep a capped size as given,
// as MongoDB 7.0+ does (capped_resize.js: cappedSize 256 and 51150
// shown as maxSize and in listCollections); the data never exceeds it
// although the ring file is larger (until a document larger than the
// size, which mongod 7.0 accepts alone); the sizes survive a reopen (docs/capped.md §7.2, §7.8).
func TestCappedExactSizes(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"create": "s", "capped": true, "size": 256}`)
	shown := func(db *DB, want int64) {
		t.Helper()
		st := mustRun(t, db, "test", `{"collStats": "s"}`)
		if n, _ := asInt64(field(st, "maxSize")); n != want {
			t.Errorf("maxSize = %v, want %d", field(st, "maxSize"), want)
		}
		r := mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "s"}}`)
		if n, _ := asInt64(field(r, "cursor.firstBatch.0.options.size")); n != want {
			t.Errorf("listed size = %v, want %d", field(r, "cursor.firstBatch.0.options.size"), want)
		}
		if d := field(mustRun(t, db, "test", `{"dataSize": "test.s"}`), "size"); d.(int64) > want {
			t.Errorf("dataSize %v above the size %d", d, want)
		}
	}
	shown(db, 256)
	// Documents of about 60 bytes: a few fit in 256 bytes, the oldest go.
	for i := 0; i < 20; i++ {
		mustRun(t, db, "test", fmt.Sprintf(`{"insert": "s", "documents": [{"_id": %d, "p": "0123456789012345678901234567890123456789"}]}`, i))
	}
	got := cappedIDs(t, db, "s")
	if len(got) == 0 || len(got) > 4 || got[len(got)-1] != 19 {
		t.Fatalf("a 256-byte collection holds %v, want the newest few", got)
	}
	shown(db, 256)
	// A document larger than the size is accepted, as mongod 7.0
	// accepts it: every older one goes, it stays (docs/capped.md §7.3).
	r := mustRun(t, db, "test", `{"insert": "s", "documents": [{"_id": 99, "p": "`+strings.Repeat("x", 300)+`"}]}`)
	if _, bad := get(r, "writeErrors"); bad || field(r, "n") != int32(1) {
		t.Errorf("a 300-byte document in 256 bytes: %v, want it inserted", r)
	}
	if got = cappedIDs(t, db, "s"); fmt.Sprint(got) != "[99]" {
		t.Errorf("after a document larger than the size: %v, want [99]", got)
	}
	mustRun(t, db, "test", `{"collMod": "s", "cappedSize": 51150}`)
	shown(db, 51150)
	if after := cappedIDs(t, db, "s"); fmt.Sprint(after) != fmt.Sprint(got) {
		t.Errorf("growing lost documents: %v, had %v", after, got)
	}
	for i := 20; i < 2000; i++ {
		mustRun(t, db, "test", fmt.Sprintf(`{"insert": "s", "documents": [{"_id": %d, "p": "0123456789012345678901234567890123456789"}]}`, i))
	}
	shown(db, 51150)
	mustRun(t, db, "test", `{"collMod": "s", "cappedSize": 300}`)
	shown(db, 300)
	mustValidate(t, db, "test", "s")
	db = reopen(t, db, dir, clk)
	shown(db, 300)
	mustValidate(t, db, "test", "s")
	// Re-creating with the same size is a no-op, another size 48.
	mustRun(t, db, "test", `{"create": "t", "capped": true, "size": 5000}`)
	mustRun(t, db, "test", `{"create": "t", "capped": true, "size": 5000}`)
	wantCode(t, db, "test", `{"create": "t", "capped": true, "size": 5120}`, document.CodeNamespaceExists, "already exists")
}

// TestCappedResizeKeepsIDCollation: a capped collection with a default
// collation keeps its collated _id index through a resize and a reopen
// (the new ring's index is built from the same catalog entry).
func TestCappedResizeKeepsIDCollation(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"create": "c", "capped": true, "size": 8192, "collation": `+idDefault+`}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": "a"}, {"_id": "b"}]}`)
	mustRun(t, db, "test", `{"collMod": "c", "cappedSize": 100000}`)
	insertDup(t, db, "c", `{"_id": "B"}`)
	if got := findIDs(t, db, "c", `{"_id": "A"}`, "", ""); fmt.Sprint(got) != "[a]" {
		t.Errorf("find _id A after resize = %v, want [a]", got)
	}
	db = reopen(t, db, dir, clk)
	insertDup(t, db, "c", `{"_id": "A"}`)
	mustValidate(t, db, "test", "c")
}

// TestCappedCopiesKeepCollation: convertToCapped and
// cloneCollectionAsCapped keep the source's default collation, as
// MongoDB's copy the source's options, so the capped collection's _id
// index follows it too.
func TestCappedCopiesKeepCollation(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	mustRun(t, db, "test", `{"create": "src", "collation": `+idDefault+`}`)
	mustRun(t, db, "test", `{"insert": "src", "documents": [{"_id": "a"}, {"_id": "b"}]}`)
	mustRun(t, db, "test", `{"cloneCollectionAsCapped": "src", "toCollection": "dst", "size": 100000}`)
	mustRun(t, db, "test", `{"convertToCapped": "src", "size": 100000}`)
	for _, name := range []string{"src", "dst"} {
		r := mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "`+name+`"}}`)
		if loc := field(r, "cursor.firstBatch.0.options.collation.locale"); loc != "en" {
			t.Errorf("%s: options %v, want the en collation", name, field(r, "cursor.firstBatch.0.options"))
		}
		insertDup(t, db, name, `{"_id": "A"}`)
		if got := findIDs(t, db, name, `{"_id": "B"}`, "", ""); fmt.Sprint(got) != "[b]" {
			t.Errorf("%s: find _id B = %v, want [b]", name, got)
		}
		mustValidate(t, db, "test", name)
	}
}
