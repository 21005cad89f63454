package engine

import (
	"context"
	"strconv"
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

	want := `{"keysPerIndex":{"_id_":{"$numberInt":"2"},"ab":{"$numberInt":"3"},"arr":{"$numberInt":"3"},"u_1":{"$numberInt":"4"},` +
		`"part":{"$numberInt":"1"},"sparse":{"$numberInt":"0"},"ttl":{"$numberInt":"3"}},` +
		`"indexDetails":{"_id_":{"valid":false},"ab":{"valid":false},"arr":{"valid":false},"u_1":{"valid":false},"part":{"valid":false},"sparse":{"valid":false},"ttl":{"valid":true}},` +
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
