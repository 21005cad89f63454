package engine

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// ridOf is the record id of the document of collection name whose _id
// is id.
func ridOf(t *testing.T, db *DB, name string, id any) uint64 {
	t.Helper()
	m := db.lookup("test", name).m()
	var rid uint64
	found := false
	if err := db.store.View(func(txn *lsm.Txn) error {
		return txn.Scan(lsm.IterOptions{Prefix: recPrefix(m)}, func(k, v []byte) error {
			d, err := document.Unmarshal(v)
			if err == nil && document.Compare(idOf(d), id) == 0 {
				rid, _ = splitRecKey(m, k)
				found = true
			}
			return nil
		})
	}); err != nil || !found {
		t.Fatalf("no record with _id %v: %v", id, err)
	}
	return rid
}

// setEntry writes (or, with del, deletes) the raw entry of index name
// of collection coll with the key made of vals (ascending, descending
// where desc says) for record rid, with value val.
func setEntry(t *testing.T, db *DB, coll, index string, rid uint64, del bool, val []byte, vals ...any) {
	t.Helper()
	m := db.lookup("test", coll).m()
	ix := m.Index(index)
	var ks []byte
	for i, v := range vals {
		ks = lsm.AppendKey(ks, v, indexkey.Fields(ix.Key)[i].Desc)
	}
	b := db.store.NewBatch()
	if del {
		b.Delete(lsm.IndexKey(m.ID, ix.ID, ks, rid))
	} else {
		b.Set(lsm.IndexKey(m.ID, ix.ID, ks, rid), val)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
}

// validateParts is the part of a validate reply about index entries.
func validateParts(t *testing.T, r bson.D) string {
	t.Helper()
	var out bson.D
	for _, k := range []string{"keysPerIndex", "indexDetails", "valid", "warnings", "errors", "extraIndexEntries", "missingIndexEntries"} {
		out = append(out, bson.E{Key: k, Value: field(r, k)})
	}
	return extJSON(t, out)
}

// TestValidateListsMissingAndExtraEntries: an entry deleted from an
// index is listed in missingIndexEntries (its index, record id, the
// document's _id and the key pattern with the document's values), an
// entry no document produces in extraIndexEntries (index, record id,
// key), each index with either is named invalid once, the counts are
// warnings, and the collection is invalid; the other indexes stay
// valid. full: true answers the same, and validate changes nothing.
func TestValidateListsMissingAndExtraEntries(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"a": 1, "b": -1}, "name": "ab"},
		{"key": {"arr": 1}, "name": "arr"},
		{"key": {"u": 1}, "name": "u_1", "unique": true},
		{"key": {"p": 1}, "name": "part", "partialFilterExpression": {"p": {"$gt": 1}}},
		{"key": {"s": 1}, "name": "sparse", "sparse": true},
		{"key": {"exp": 1}, "name": "ttl", "expireAfterSeconds": 60}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [
		{"_id": 1, "a": 1, "b": "x", "arr": [1, 2], "u": 1, "p": 1, "exp": {"$date": "2030-01-01T00:00:00Z"}},
		{"_id": 2, "a": 2, "b": "y", "arr": [3], "u": 2, "p": 2, "s": 2},
		{"_id": "three", "a": 3.5, "arr": [], "u": 3, "p": 3}]}`)
	clean := mustRun(t, db, "test", `{"validate": "c"}`)
	if got := extJSON(t, bson.D{{Key: "x", Value: field(clean, "extraIndexEntries")}, {Key: "m", Value: field(clean, "missingIndexEntries")}, {Key: "v", Value: field(clean, "valid")}}); got != `{"x":[],"m":[],"v":true}` {
		t.Fatalf("clean collection: %s", got)
	}
	r1, r2, r3 := ridOf(t, db, "c", int32(1)), ridOf(t, db, "c", int32(2)), ridOf(t, db, "c", "three")
	// Missing: _id 2's {a: 2, b: "y"}, one of _id 1's two arr keys,
	// "three"'s part key, _id 2's sparse key and _id 1's _id entry.
	setEntry(t, db, "c", "ab", r2, true, nil, int32(2), "y")
	setEntry(t, db, "c", "arr", r1, true, nil, int32(2))
	setEntry(t, db, "c", "part", r3, true, nil, int32(3))
	setEntry(t, db, "c", "sparse", r2, true, nil, int32(2))
	setEntry(t, db, "c", "_id_", r1, true, nil, int32(1))
	// Extra: an ab key no document has for _id 2's record, and a u_1
	// entry for a record that does not exist.
	setEntry(t, db, "c", "ab", r2, false, nil, int32(9), "z")
	setEntry(t, db, "c", "u_1", 777, false, nil, int32(7))

	want := `{"keysPerIndex":{"_id_":{"$numberInt":"2"},"ab":{"$numberInt":"3"},"arr":{"$numberInt":"3"},"part":{"$numberInt":"1"},` +
		`"sparse":{"$numberInt":"0"},"ttl":{"$numberInt":"3"},"u_1":{"$numberInt":"4"}},` +
		`"indexDetails":{"_id_":{"valid":false},"ab":{"valid":false},"arr":{"valid":false},"part":{"valid":false},"sparse":{"valid":false},"ttl":{"valid":true},"u_1":{"valid":false}},` +
		`"valid":false,"warnings":["Detected 5 missing index entries.","Detected 2 extra index entries."],` +
		`"errors":["Index with name '_id_' has inconsistencies.","Index with name 'arr' has inconsistencies.","Index with name 'part' has inconsistencies.",` +
		`"Index with name 'sparse' has inconsistencies.","Index with name 'ab' has inconsistencies.","Index with name 'u_1' has inconsistencies."],` +
		`"extraIndexEntries":[{"indexName":"u_1","recordId":{"$numberLong":"777"},"indexKey":{"u":{"$numberDouble":"7.0"}}},` +
		`{"indexName":"ab","recordId":{"$numberLong":"` + rid(r2) + `"},"indexKey":{"a":{"$numberDouble":"9.0"},"b":"z"}}],` +
		`"missingIndexEntries":[` +
		`{"indexName":"_id_","recordId":{"$numberLong":"` + rid(r1) + `"},"idKey":{"_id":{"$numberInt":"1"}},"indexKey":{"_id":{"$numberInt":"1"}}},` +
		`{"indexName":"arr","recordId":{"$numberLong":"` + rid(r1) + `"},"idKey":{"_id":{"$numberInt":"1"}},"indexKey":{"arr":{"$numberInt":"2"}}},` +
		`{"indexName":"part","recordId":{"$numberLong":"` + rid(r3) + `"},"idKey":{"_id":"three"},"indexKey":{"p":{"$numberInt":"3"}}},` +
		`{"indexName":"sparse","recordId":{"$numberLong":"` + rid(r2) + `"},"idKey":{"_id":{"$numberInt":"2"}},"indexKey":{"s":{"$numberInt":"2"}}},` +
		`{"indexName":"ab","recordId":{"$numberLong":"` + rid(r2) + `"},"idKey":{"_id":{"$numberInt":"2"}},"indexKey":{"a":{"$numberInt":"2"},"b":"y"}}]}`
	for _, cmd := range []string{`{"validate": "c"}`, `{"validate": "c", "full": true}`, `{"validate": "c"}`} {
		r := mustRun(t, db, "test", cmd)
		if got := validateParts(t, r); got != want {
			t.Errorf("%s:\n got %s\nwant %s", cmd, got, want)
		}
		if field(r, "advice") != validateAdvice {
			t.Errorf("%s: advice %v", cmd, field(r, "advice"))
		}
	}
	res, err := db.Validate(context.Background(), "test", "c")
	if err != nil || res.NumMissing != 5 || res.NumExtra != 2 {
		t.Errorf("NumMissing %d NumExtra %d (%v), want 5 and 2", res.NumMissing, res.NumExtra, err)
	}
}

func rid(v uint64) string { return strconv.FormatUint(v, 10) }

// TestValidateEntriesClustered: in a clustered collection a secondary
// index's missing entry and an entry naming a record no document has
// are listed as in an ordinary collection; the _id index, which is the
// records themselves, stays valid.
func TestValidateEntriesClustered(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "k", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
	mustRun(t, db, "test", `{"createIndexes": "k", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 5}]}`)
	mustRun(t, db, "test", `{"insert": "k", "documents": [{"_id": 1, "a": "one", "t": {"$date": "2030-01-01T00:00:00Z"}}, {"_id": 2, "a": "two"}]}`)
	r := mustRun(t, db, "test", `{"validate": "k"}`)
	if got := extJSON(t, bson.D{{Key: "x", Value: field(r, "extraIndexEntries")}, {Key: "m", Value: field(r, "missingIndexEntries")}, {Key: "v", Value: field(r, "valid")}}); got != `{"x":[],"m":[],"v":true}` {
		t.Fatalf("clean clustered collection: %s", got)
	}
	r1, r2 := ridOf(t, db, "k", int32(1)), ridOf(t, db, "k", int32(2))
	if n, err := RemoveIndexEntriesForTesting(db, "test", "k", "a_1", int32(2)); err != nil || n != 1 {
		t.Fatalf("RemoveIndexEntriesForTesting: %d %v", n, err)
	}
	// An a_1 entry for _id 1 with another key (its value names _id 1).
	setEntry(t, db, "k", "a_1", r1, false, lsm.AppendKey(nil, int32(1), false), "uno")
	r = mustRun(t, db, "test", `{"validate": "k", "full": true}`)
	want := `{"keysPerIndex":{"_id_":{"$numberInt":"2"},"a_1":{"$numberInt":"2"},"t_1":{"$numberInt":"2"}},` +
		`"indexDetails":{"_id_":{"valid":true},"a_1":{"valid":false},"t_1":{"valid":true}},"valid":false,` +
		`"warnings":["Detected 1 missing index entries.","Detected 1 extra index entries."],"errors":["Index with name 'a_1' has inconsistencies."],` +
		`"extraIndexEntries":[{"indexName":"a_1","recordId":{"$numberLong":"` + rid(r1) + `"},"indexKey":{"a":"uno"}}],` +
		`"missingIndexEntries":[{"indexName":"a_1","recordId":{"$numberLong":"` + rid(r2) + `"},"idKey":{"_id":{"$numberInt":"2"}},"indexKey":{"a":"two"}}]}`
	if got := validateParts(t, r); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// TestValidateEntriesSpecialIndexes: hashed, wildcard, 2dsphere and
// text indexes are checked entry by entry too; a missing entry shows
// the hash (a long), the wildcard's path, the geo cell (a long) and the
// text term under the key pattern's fields.
func TestValidateEntriesSpecialIndexes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"h": "hashed"}, "name": "h"}, {"key": {"w.$**": 1}, "name": "w"},
		{"key": {"loc": "2dsphere"}, "name": "geo"}, {"key": {"t": "text"}, "name": "txt"}, {"key": {"k": 1, "$**": 1}, "name": "cwi", "wildcardProjection": {"v": 1}}]}`)
	mustRun(t, db, "test", `{"insert": "s", "documents": [{"_id": 1, "h": 5, "w": {"x": 1}, "loc": {"type": "Point", "coordinates": [1, 2]}, "t": "apples", "k": 3, "v": "q"}]}`)
	if r := mustRun(t, db, "test", `{"validate": "s"}`); field(r, "valid") != true {
		t.Fatalf("clean: %v", validateParts(t, r))
	}
	for _, ix := range []string{"h", "w", "geo", "txt", "cwi"} {
		if n, err := RemoveIndexEntriesForTesting(db, "test", "s", ix, int32(1)); err != nil || n != 1 {
			t.Fatalf("%s: RemoveIndexEntriesForTesting %d %v", ix, n, err)
		}
	}
	r := mustRun(t, db, "test", `{"validate": "s"}`)
	byName := map[string]bson.D{}
	missing, _ := field(r, "missingIndexEntries").(bson.A)
	for _, e := range missing {
		d := e.(bson.D)
		byName[field(d, "indexName").(string)] = field(d, "indexKey").(bson.D)
	}
	if len(missing) != 5 || field(r, "warnings").(bson.A)[0] != "Detected 5 missing index entries." {
		t.Fatalf("missing %v, warnings %v", missing, field(r, "warnings"))
	}
	if _, ok := field(byName["h"], "h").(int64); !ok || len(byName["h"]) != 1 {
		t.Errorf("hashed key %v, want {h: long}", byName["h"])
	}
	if got := extJSON(t, byName["w"]); got != `{"w.$**":"w.x"}` {
		t.Errorf("wildcard key %s", got)
	}
	if got := extJSON(t, byName["cwi"]); got != `{"k":{"$numberInt":"3"},"$**":"v"}` {
		t.Errorf("compound wildcard key %s", got)
	}
	if _, ok := field(byName["geo"], "loc").(int64); !ok || len(byName["geo"]) != 1 {
		t.Errorf("2dsphere key %v, want {loc: long}", byName["geo"])
	}
	if got := extJSON(t, byName["txt"]); got != `{"_fts":"appl"}` {
		t.Errorf("text key %s", got)
	}
}

// TestValidateEntriesListCut: the listed entries stop once their
// sizes add up past 1 MiB, smallest first; the error says so once and
// the warning counts them all.
func TestValidateEntriesListCut(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "big", "indexes": [{"key": {"s": 1}, "name": "s_1"}]}`)
	const n = 40
	var docs []string
	for i := 0; i < n; i++ {
		docs = append(docs, `{"_id": `+strconv.Itoa(i)+`, "s": "`+strconv.Itoa(i%10)+strings.Repeat("x", 30000)+`"}`)
	}
	mustRun(t, db, "test", `{"insert": "big", "documents": [`+strings.Join(docs, ",")+`]}`)
	for i := 0; i < n; i++ {
		if _, err := RemoveIndexEntriesForTesting(db, "test", "big", "s_1", int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	r := mustRun(t, db, "test", `{"validate": "big"}`)
	missing := field(r, "missingIndexEntries").(bson.A)
	b, _ := bson.Marshal(missing[0])
	if len(missing) != (1<<20)/len(b) || len(missing) == n {
		t.Errorf("%d entries of %d bytes listed, want %d", len(missing), len(b), (1<<20)/len(b))
	}
	if got, w := extJSON(t, bson.D{{Key: "e", Value: field(r, "errors")}, {Key: "w", Value: field(r, "warnings")}}),
		`{"e":["Index with name 's_1' has inconsistencies.","Not all missing index entry inconsistencies are listed due to size limitations."],"w":["Detected 40 missing index entries."]}`; got != w {
		t.Errorf("errors, warnings %s\nwant %s", got, w)
	}
}

// TestValidateEntriesAfterIndexError: an index already invalid for
// another reason (a document makes it multikey, the catalog says it is
// not) gets no second "has inconsistencies" error for its missing
// entry; its own error follows the entries' errors.
func TestValidateEntriesAfterIndexError(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b": 1}, "name": "b_1"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": [1, 2], "b": 1}]}`)
	c := db.lookup("test", "c")
	m := c.m()
	ix := m.Index("a_1")
	ix.Multikey = false // the catalog in memory forgets the index is multikey
	defer func() { ix.Multikey = true }()
	r1 := ridOf(t, db, "c", int32(1))
	setEntry(t, db, "c", "a_1", r1, true, nil, int32(2))
	setEntry(t, db, "c", "b_1", r1, true, nil, int32(1))
	r := mustRun(t, db, "test", `{"validate": "c"}`)
	want := `["Index with name 'b_1' has inconsistencies.","record ` + rid(r1) + ` makes index a_1 multikey but the catalog says it is not"]`
	if got := extJSON(t, bson.D{{Key: "e", Value: field(r, "errors")}}); got != `{"e":`+want+`}` {
		t.Errorf("errors %s\nwant %s", got, want)
	}
	if got := len(field(r, "missingIndexEntries").(bson.A)); got != 2 {
		t.Errorf("%d missing entries, want 2", got)
	}
}

// TestValidateIndexesByName: keysPerIndex and indexDetails list the
// indexes in byte order of their names, as mongod 7.0's map of index
// results does, not in the order they were created.
func TestValidateIndexesByName(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"z": 1}, "name": "z_1"}, {"key": {"b": 1}, "name": "B_1"}]}`)
	r := mustRun(t, db, "test", `{"validate": "c"}`)
	if got, w := keysOf(field(r, "keysPerIndex").(bson.D))+" / "+keysOf(field(r, "indexDetails").(bson.D)), "B_1 _id_ z_1 / B_1 _id_ z_1"; got != w {
		t.Errorf("index order %q, want %q", got, w)
	}
}

// TestValidateEntriesExtraListCut: extra entries are cut at 1 MiB the
// same way, apart from the missing ones.
func TestValidateEntriesExtraListCut(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "big", "indexes": [{"key": {"s": 1}, "name": "s_1"}]}`)
	const n = 40
	for i := 0; i < n; i++ {
		setEntry(t, db, "big", "s_1", uint64(1000+i), false, nil, strconv.Itoa(i%10)+strings.Repeat("y", 30000))
	}
	r := mustRun(t, db, "test", `{"validate": "big"}`)
	extra := field(r, "extraIndexEntries").(bson.A)
	b, _ := bson.Marshal(extra[0])
	if len(extra) != (1<<20)/len(b) || len(extra) == n || len(field(r, "missingIndexEntries").(bson.A)) != 0 {
		t.Errorf("%d entries of %d bytes listed, want %d", len(extra), len(b), (1<<20)/len(b))
	}
	if got, w := extJSON(t, bson.D{{Key: "e", Value: field(r, "errors")}, {Key: "w", Value: field(r, "warnings")}}),
		`{"e":["Index with name 's_1' has inconsistencies.","Not all extra index entry inconsistencies are listed due to size limitations."],"w":["Detected 40 extra index entries."]}`; got != w {
		t.Errorf("errors, warnings %s\nwant %s", got, w)
	}
}
