package engine

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cappedRecordOf returns the live ring record of capped collection
// test.name whose document has _id id.
func cappedRecordOf(t *testing.T, db *DB, name string, id any) capped.Record {
	t.Helper()
	st, err := cappedOf(db.lookup("test", name))
	if err != nil {
		t.Fatal(err)
	}
	var found capped.Record
	ok := false
	if err := st.ring.ReadRun(0, func(rec capped.Record) bool {
		d, live, err := st.decodeRecord(rec)
		if err == nil && live && document.Compare(idOf(d), id) == 0 {
			found, ok = rec, true
			return false
		}
		return true
	}); err != nil || !ok {
		t.Fatalf("no ring record with _id %v: %v", id, err)
	}
	return found
}

// cappedValidateParts is a capped collection's validate reply, less the
// fields that do not depend on what validate found.
func cappedValidateParts(t *testing.T, r bson.D) string {
	t.Helper()
	var out bson.D
	for _, k := range []string{"nInvalidDocuments", "nrecords", "keysPerIndex", "indexDetails", "valid", "warnings", "errors", "extraIndexEntries", "missingIndexEntries", "corruptRecords"} {
		out = append(out, bson.E{Key: k, Value: field(r, k)})
	}
	return extJSON(t, out)
}

func long(v uint64) string { return `{"$numberLong":"` + strconv.FormatUint(v, 10) + `"}` }

// TestCappedValidateListsEntries: a capped collection's secondary
// indexes (kept in Badger) report a missing and extra entries as an
// ordinary collection's do: listed, each index named inconsistent once,
// the counts as warnings, the index and the collection invalid. The
// in-memory _id index, rebuilt from the ring, stays valid and the seam
// cannot damage it. Reopening reconciles the indexes with the ring, and
// validate is then clean.
func TestCappedValidateListsEntries(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	createCapped(t, db, "c", 1<<20, 0)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"tags": 1}, "name": "tags_1"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2, "tags": [1, 2]}, {"_id": 3, "a": 3}]}`)
	clean := mustRun(t, db, "test", `{"validate": "c"}`)
	if got := cappedValidateParts(t, clean); !strings.Contains(got, `"valid":true,"warnings":[],"errors":[],"extraIndexEntries":[],"missingIndexEntries":[],"corruptRecords":[]`) {
		t.Fatalf("clean collection: %s", got)
	}
	r1, r2 := cappedRecordOf(t, db, "c", int32(1)), cappedRecordOf(t, db, "c", int32(2))
	if n, err := RemoveIndexEntriesForTesting(db, "test", "c", "a_1", int32(2)); n != 1 || err != nil {
		t.Fatalf("removed %d a_1 entries: %v", n, err)
	}
	if n, err := RemoveIndexEntriesForTesting(db, "test", "c", "_id_", int32(2)); n != 0 || err != nil {
		t.Fatalf("removed %d _id entries of a capped collection: %v", n, err)
	}
	// Extra: an a_1 key _id 1's document does not make, and a tags_1
	// entry of a record the ring does not hold.
	m := db.lookup("test", "c").m()
	b := db.store.NewBatch()
	b.Set(lsm.IndexKey(m.ID, m.Index("a_1").ID, lsm.AppendKey(nil, int32(9), false), r1.Seq), offValue(r1.Off))
	b.Set(lsm.IndexKey(m.ID, m.Index("tags_1").ID, lsm.AppendKey(nil, int32(5), false), 777), offValue(r1.Off))
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `{"nInvalidDocuments":{"$numberInt":"0"},"nrecords":{"$numberInt":"3"},` +
		`"keysPerIndex":{"_id_":{"$numberInt":"3"},"a_1":{"$numberInt":"3"},"tags_1":{"$numberInt":"5"}},` +
		`"indexDetails":{"_id_":{"valid":true},"a_1":{"valid":false},"tags_1":{"valid":false}},` +
		`"valid":false,"warnings":["Detected 1 missing index entries.","Detected 2 extra index entries."],` +
		`"errors":["Index with name 'a_1' has inconsistencies.","Index with name 'tags_1' has inconsistencies."],` +
		`"extraIndexEntries":[{"indexName":"a_1","recordId":` + long(r1.Seq) + `,"indexKey":{"a":{"$numberDouble":"9.0"}}},` +
		`{"indexName":"tags_1","recordId":{"$numberLong":"777"},"indexKey":{"tags":{"$numberDouble":"5.0"}}}],` +
		`"missingIndexEntries":[{"indexName":"a_1","recordId":` + long(r2.Seq) + `,"idKey":{"_id":{"$numberInt":"2"}},"indexKey":{"a":{"$numberInt":"2"}}}],` +
		`"corruptRecords":[]}`
	for _, cmd := range []string{`{"validate": "c"}`, `{"validate": "c", "full": true}`} {
		if got := cappedValidateParts(t, mustRun(t, db, "test", cmd)); got != want {
			t.Fatalf("%s:\n got %s\nwant %s", cmd, got, want)
		}
	}
	db = reopen(t, db, dir, clk)
	mustValidate(t, db, "test", "c")
}

// grownSetup makes test.c, a capped collection indexed on a, whose
// document _id 2 outgrew its record: it returns the pointer record and
// the generation of the outside copy it names.
func grownSetup(t *testing.T, db *DB) (capped.Record, uint64) {
	t.Helper()
	createCapped(t, db, "c", 1<<20, 0)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2}, {"_id": 3, "a": 3}]}`)
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"s": "`+strings.Repeat("x", 300)+`"}}}]}`)
	rec := cappedRecordOf(t, db, "c", int32(2))
	p, ok := cappedPointerOf(rec.Data)
	if !ok {
		t.Fatal("the grown document's record is not a pointer frame")
	}
	mustValidate(t, db, "test", "c")
	return rec, p.gen
}

// TestCappedValidateGrownRecords: validate reads every grown record's
// outside copy. A copy missing, one that does not decode, or one
// holding a document whose _id is not the one its pointer frame names
// makes the record invalid as a document failing mongod's BSON
// validation does (nInvalidDocuments, corruptRecords, the error once,
// then the detail); an unreadable copy's index entries are then extra. A copy no record names is a warning
// only, and reopening the collection removes it.
func TestCappedValidateGrownRecords(t *testing.T) {
	t.Parallel()
	t.Run("copy missing", func(t *testing.T) {
		t.Parallel()
		db, _ := openMem(t)
		rec, gen := grownSetup(t, db)
		b := db.store.NewBatch()
		b.Delete(cappedOutKey(db.lookup("test", "c").m().ID, rec.Seq, gen))
		if err := b.Flush(); err != nil {
			t.Fatal(err)
		}
		want := `{"nInvalidDocuments":{"$numberInt":"1"},"nrecords":{"$numberInt":"3"},` +
			`"keysPerIndex":{"_id_":{"$numberInt":"3"},"a_1":{"$numberInt":"3"}},` +
			`"indexDetails":{"_id_":{"valid":true},"a_1":{"valid":false}},` +
			`"valid":false,"warnings":["Detected 1 extra index entries."],` +
			`"errors":["Detected one or more invalid documents. See logs.",` +
			`"ring record ` + strconv.FormatUint(rec.Seq, 10) + ` at offset ` + strconv.FormatInt(rec.Off, 10) + ` names an outside copy (generation ` + strconv.FormatUint(gen, 10) + `) that the store does not hold",` +
			`"Index with name 'a_1' has inconsistencies."],` +
			`"extraIndexEntries":[{"indexName":"a_1","recordId":` + long(rec.Seq) + `,"indexKey":{"a":{"$numberDouble":"2.0"}}}],` +
			`"missingIndexEntries":[],"corruptRecords":[` + long(rec.Seq) + `]}`
		if got := cappedValidateParts(t, mustRun(t, db, "test", `{"validate": "c"}`)); got != want {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("copy of another _id", func(t *testing.T) {
		t.Parallel()
		db, _ := openMem(t)
		rec, gen := grownSetup(t, db)
		msg, err := document.Marshal(bson.D{{Key: "_id", Value: int32(99)}, {Key: "a", Value: int32(2)}})
		if err != nil {
			t.Fatal(err)
		}
		b := db.store.NewBatch()
		b.Set(cappedOutKey(db.lookup("test", "c").m().ID, rec.Seq, gen), msg)
		if err := b.Flush(); err != nil {
			t.Fatal(err)
		}
		want := `{"nInvalidDocuments":{"$numberInt":"1"},"nrecords":{"$numberInt":"3"},` +
			`"keysPerIndex":{"_id_":{"$numberInt":"3"},"a_1":{"$numberInt":"3"}},` +
			`"indexDetails":{"_id_":{"valid":true},"a_1":{"valid":true}},` +
			`"valid":false,"warnings":[],` +
			`"errors":["Detected one or more invalid documents. See logs.",` +
			`"ring record ` + strconv.FormatUint(rec.Seq, 10) + ` at offset ` + strconv.FormatInt(rec.Off, 10) + ` names an outside copy (generation ` + strconv.FormatUint(gen, 10) + `) whose document's _id does not match the _id key of its pointer frame"],` +
			`"extraIndexEntries":[],"missingIndexEntries":[],"corruptRecords":[` + long(rec.Seq) + `]}`
		if got := cappedValidateParts(t, mustRun(t, db, "test", `{"validate": "c"}`)); got != want {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("copy does not decode", func(t *testing.T) {
		t.Parallel()
		db, _ := openMem(t)
		rec, gen := grownSetup(t, db)
		b := db.store.NewBatch()
		b.Set(cappedOutKey(db.lookup("test", "c").m().ID, rec.Seq, gen), []byte{0xc1})
		if err := b.Flush(); err != nil {
			t.Fatal(err)
		}
		r := mustRun(t, db, "test", `{"validate": "c"}`)
		errs := extJSON(t, bson.D{{Key: "e", Value: field(r, "errors")}})
		detail := "the outside copy (generation " + strconv.FormatUint(gen, 10) + ") of ring record " + strconv.FormatUint(rec.Seq, 10) + " does not decode: "
		if !strings.HasPrefix(errs, `{"e":["Detected one or more invalid documents. See logs.","`+detail) || !strings.HasSuffix(errs, `","Index with name 'a_1' has inconsistencies."]}`) {
			t.Fatalf("errors %s", errs)
		}
		want := `{"nInvalidDocuments":{"$numberInt":"1"},"nrecords":{"$numberInt":"3"},` +
			`"keysPerIndex":{"_id_":{"$numberInt":"3"},"a_1":{"$numberInt":"3"}},` +
			`"indexDetails":{"_id_":{"valid":true},"a_1":{"valid":false}},` +
			`"valid":false,"warnings":["Detected 1 extra index entries."],"errors":null,` +
			`"extraIndexEntries":[{"indexName":"a_1","recordId":` + long(rec.Seq) + `,"indexKey":{"a":{"$numberDouble":"2.0"}}}],` +
			`"missingIndexEntries":[],"corruptRecords":[` + long(rec.Seq) + `]}`
		r = removeField(r, "errors")
		if got := cappedValidateParts(t, r); got != want {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("orphaned copy", func(t *testing.T) {
		t.Parallel()
		db, clk, dir := openTest(t)
		rec, gen := grownSetup(t, db)
		id := db.lookup("test", "c").m().ID
		msg, err := document.Marshal(bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: int32(1)}})
		if err != nil {
			t.Fatal(err)
		}
		// A copy of a record that holds its document, and another
		// generation of the grown record's.
		r1 := cappedRecordOf(t, db, "c", int32(1))
		b := db.store.NewBatch()
		b.Set(cappedOutKey(id, r1.Seq, 5), msg)
		b.Set(cappedOutKey(id, rec.Seq, gen+1), msg)
		if err := b.Flush(); err != nil {
			t.Fatal(err)
		}
		want := `{"nInvalidDocuments":{"$numberInt":"0"},"nrecords":{"$numberInt":"3"},` +
			`"keysPerIndex":{"_id_":{"$numberInt":"3"},"a_1":{"$numberInt":"3"}},` +
			`"indexDetails":{"_id_":{"valid":true},"a_1":{"valid":true}},` +
			`"valid":true,"warnings":["Detected 2 outside copies of grown documents that no record names; opening the collection removes them."],` +
			`"errors":[],"extraIndexEntries":[],"missingIndexEntries":[],"corruptRecords":[]}`
		if got := cappedValidateParts(t, mustRun(t, db, "test", `{"validate": "c"}`)); got != want {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
		db = reopen(t, db, dir, clk)
		if r := mustValidate(t, db, "test", "c"); len(r.Warnings) != 0 {
			t.Fatalf("warnings after reopening: %v", r.Warnings)
		}
		if got := outsideCopies(t, db, "c"); len(got) != 1 || len(got[rec.Seq]) != 1 || got[rec.Seq][0] != gen {
			t.Fatalf("outside copies after reopening: %v", got)
		}
	})
}
