package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// validateFields is mongod 7.0's validate reply, field by field, for a
// collection it finds valid.
const validateFields = "ns uuid nInvalidDocuments nNonCompliantDocuments nrecords nIndexes keysPerIndex indexDetails " +
	"valid repaired warnings errors extraIndexEntries missingIndexEntries corruptRecords ok"

// listedUUID is info.uuid of collection name as listCollections lists it.
func listedUUID(t *testing.T, db *DB, dbName, name string) any {
	t.Helper()
	r := mustRun(t, db, dbName, `{"listCollections": 1, "filter": {"name": "`+name+`"}}`)
	batch, _ := field(r, "cursor.firstBatch").(bson.A)
	if len(batch) != 1 {
		t.Fatalf("listCollections %s: %v", name, r)
	}
	u := field(batch[0].(bson.D), "info.uuid")
	if b, ok := u.(bson.Binary); !ok || b.Subtype != 4 || len(b.Data) != 16 {
		t.Fatalf("listCollections %s: uuid %#v", name, u)
	}
	return u
}

// TestValidateReplyShape: validate answers with mongod 7.0's fields in
// its order: ns, then the collection's UUID (the one listCollections
// shows), the document counts (nNonCompliantDocuments included), the
// indexes, ValidateResults' fields, ok.
func TestValidateReplyShape(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": [2, 3]}]}`)
	r := mustRun(t, db, "test", `{"validate": "c"}`)
	if got := keysOf(r); got != validateFields {
		t.Errorf("fields %q\nwant   %q", got, validateFields)
	}
	want := mustDoc(t, `{"ns": "test.c", "nInvalidDocuments": 0, "nNonCompliantDocuments": 0, "nrecords": 2, "nIndexes": 2,
		"keysPerIndex": {"_id_": 2, "a_1": 3}, "indexDetails": {"_id_": {"valid": true}, "a_1": {"valid": true}}, "valid": true, "repaired": false,
		"warnings": [], "errors": [], "extraIndexEntries": [], "missingIndexEntries": [], "corruptRecords": [], "ok": 1.0}`)
	want = append(bson.D{want[0], {Key: "uuid", Value: listedUUID(t, db, "test", "c")}}, want[1:]...)
	if extJSON(t, r) != extJSON(t, want) {
		t.Errorf("validate c = %s\nwant %s", extJSON(t, r), extJSON(t, want))
	}
	// A collection the engine shows (admin.system.version) has its
	// listed UUID too.
	r = mustRun(t, db, "admin", `{"validate": "system.version"}`)
	if got := keysOf(r); got != validateFields {
		t.Errorf("system.version: fields %q", got)
	}
	if got, w := extJSON(t, bson.D{{Key: "u", Value: field(r, "uuid")}}), extJSON(t, bson.D{{Key: "u", Value: listedUUID(t, db, "admin", "system.version")}}); got != w {
		t.Errorf("system.version: uuid %s, want %s", got, w)
	}
}

// TestValidateNonCompliant: documents that fail the collection's
// validator are counted in nNonCompliantDocuments with mongod 7.0's
// warning; the collection stays valid (no advice). With
// validationLevel off nothing is checked.
func TestValidateNonCompliant(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "v", "validator": {"a": {"$exists": true}}}`)
	mustRun(t, db, "test", `{"insert": "v", "documents": [{"_id": 1, "a": 1}, {"_id": 2}, {"_id": 3, "b": 1}], "bypassDocumentValidation": true}`)
	r := mustRun(t, db, "test", `{"validate": "v"}`)
	if got := keysOf(r); got != validateFields {
		t.Errorf("fields %q", got)
	}
	if n, ok := field(r, "nNonCompliantDocuments").(int32); !ok || n != 2 {
		t.Errorf("nNonCompliantDocuments %#v, want int32 2", field(r, "nNonCompliantDocuments"))
	}
	if got, w := extJSON(t, bson.D{{Key: "w", Value: field(r, "warnings")}, {Key: "v", Value: field(r, "valid")}}),
		extJSON(t, bson.D{{Key: "w", Value: bson.A{nonCompliantWarning}}, {Key: "v", Value: true}}); got != w {
		t.Errorf("warnings, valid: %s, want %s", got, w)
	}
	mustRun(t, db, "test", `{"collMod": "v", "validationLevel": "off"}`)
	r = mustRun(t, db, "test", `{"validate": "v"}`)
	if n, ok := field(r, "nNonCompliantDocuments").(int32); !ok || n != 0 {
		t.Errorf("validationLevel off: nNonCompliantDocuments %#v, want int32 0", field(r, "nNonCompliantDocuments"))
	}
}

// TestValidateInvalidAdvice: a collection found inconsistent answers
// valid false, the errors, and mongod's advice last.
func TestValidateInvalidAdvice(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}]}`)
	m := db.lookup("test", "c").m()
	b := db.store.NewBatch()
	b.Set(lsm.IndexKey(m.ID, idIndexID, lsm.AppendKey(nil, int32(9), false), 999), nil) // an entry no document produces
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, db, "test", `{"validate": "c"}`)
	if got, w := keysOf(r), "ns uuid nInvalidDocuments nNonCompliantDocuments nrecords nIndexes keysPerIndex indexDetails "+
		"valid repaired warnings errors extraIndexEntries missingIndexEntries corruptRecords advice ok"; got != w {
		t.Errorf("fields %q\nwant   %q", got, w)
	}
	errs, _ := field(r, "errors").(bson.A)
	if field(r, "valid") != false || len(errs) == 0 || field(r, "advice") != validateAdvice {
		t.Errorf("valid %v, errors %v, advice %v", field(r, "valid"), errs, field(r, "advice"))
	}
}

// TestValidateIndexDetails: an index with an entry no document
// produces is invalid in indexDetails; the collection's other indexes
// stay valid, as mongod 7.0 reports each index's own validity.
func TestValidateIndexDetails(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b": 1}, "name": "b_1"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1, "b": 1}]}`)
	m := db.lookup("test", "c").m()
	b := db.store.NewBatch()
	b.Set(lsm.IndexKey(m.ID, m.Indexes[1].ID, lsm.AppendKey(nil, int32(9), false), 999), nil) // in a_1, for no document
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, db, "test", `{"validate": "c"}`)
	want := mustDoc(t, `{"_id_": {"valid": true}, "a_1": {"valid": false}, "b_1": {"valid": true}}`)
	if got := extJSON(t, bson.D{{Key: "d", Value: field(r, "indexDetails")}}); got != extJSON(t, bson.D{{Key: "d", Value: want}}) {
		t.Errorf("indexDetails %s, want %s", got, extJSON(t, want))
	}
	if field(r, "valid") != false {
		t.Errorf("valid %v, want false", field(r, "valid"))
	}
}

// TestValidateInvalidDocument: a record whose stored bytes are not a
// document is counted in nInvalidDocuments, listed by its record id in
// corruptRecords, and makes the collection invalid with mongod 7.0's
// error, once; its index entries, which no document produces, make
// the _id index invalid.
func TestValidateInvalidDocument(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}, {"_id": 2}]}`)
	m := db.lookup("test", "c").m()
	var key []byte
	if err := db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: recPrefix(m), KeysOnly: true})
		defer it.Close()
		if it.Next() {
			key = append([]byte(nil), it.Key()...)
		}
		return nil
	}); err != nil || key == nil {
		t.Fatalf("no record found: %v", err)
	}
	rid, _ := splitRecKey(m, key)
	b := db.store.NewBatch()
	b.Set(key, []byte("\x05\x00\x00")) // not a BSON document
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, db, "test", `{"validate": "c"}`)
	if n, ok := field(r, "nInvalidDocuments").(int32); !ok || n != 1 {
		t.Errorf("nInvalidDocuments %#v, want int32 1", field(r, "nInvalidDocuments"))
	}
	if got, w := extJSON(t, bson.D{{Key: "c", Value: field(r, "corruptRecords")}}), extJSON(t, bson.D{{Key: "c", Value: bson.A{int64(rid)}}}); got != w {
		t.Errorf("corruptRecords %s, want %s", got, w)
	}
	errs, _ := field(r, "errors").(bson.A)
	if field(r, "valid") != false || len(errs) == 0 || errs[0] != invalidDocumentsError || field(r, "advice") != validateAdvice {
		t.Errorf("valid %v, errors %v, advice %v", field(r, "valid"), errs, field(r, "advice"))
	}
	if n, ok := field(r, "nrecords").(int32); !ok || n != 2 {
		t.Errorf("nrecords %#v, want int32 2", field(r, "nrecords"))
	}
	if v := field(r, "indexDetails._id_.valid"); v != false {
		t.Errorf("indexDetails._id_.valid %v, want false", v)
	}
}
