package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestBulkWriteCommand checks MongoDB 8.0's bulkWrite: operations over
// several collections in order, a result for each (errorsOnly: the
// failures only), the counts, an ordered run stopping at its first
// failure and an unordered one going on, and the refusals.
func TestBulkWriteCommand(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "a", "documents": [{"_id": 1, "v": 1}, {"_id": 2, "v": 2}]}`)
	r := mustRun(t, db, "admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}, {"ns": "other.b"}], "ordered": false, "ops": [
		{"insert": 1, "document": {"_id": "x"}},
		{"update": 0, "filter": {"_id": 1}, "updateMods": {"$set": {"v": 10}}},
		{"update": 0, "filter": {"_id": 9}, "updateMods": {"$set": {"v": 9}}, "upsert": true},
		{"insert": 0, "document": {"_id": 2}},
		{"delete": 0, "filter": {"v": {"$lt": 10}}, "multi": true},
		{"update": 1, "filter": {}, "updateMods": [{"$set": {"w": true}}], "multi": true}]}`)
	want := `{ cursor: { id: 0, firstBatch: [ { ok: 1.0, idx: 0, n: 1 }, { ok: 1.0, idx: 1, n: 1, nModified: 1 }, { ok: 1.0, idx: 2, n: 1, nModified: 0, upserted: { _id: 9 } }, ` +
		`{ ok: 0.0, idx: 3, code: 11000, codeName: "DuplicateKey", errmsg: "E11000 duplicate key error collection: test.a index: _id_ dup key: { _id: 2 }", keyPattern: { _id: 1 }, keyValue: { _id: 2 } }, ` +
		`{ ok: 1.0, idx: 4, n: 2 }, { ok: 1.0, idx: 5, n: 1, nModified: 1 } ], ns: "admin.$cmd.bulkWrite" }, nErrors: 1, nInserted: 1, nMatched: 2, nModified: 2, nUpserted: 1, nDeleted: 2, ok: 1.0 }`
	if got := document.Format(r); got != want {
		t.Fatalf("bulkWrite:\n%s\nwant\n%s", got, want)
	}
	if got := document.Format(findAll(t, db, "test", "a", bson.D{})); got != `[ { _id: 1, v: 10 } ]` {
		t.Fatalf("test.a after: %s", got)
	}
	if got := document.Format(findAll(t, db, "other", "b", bson.D{})); got != `[ { _id: "x", w: true } ]` {
		t.Fatalf("other.b after: %s", got)
	}
	// Ordered (the default): the first failure stops the rest; errorsOnly
	// leaves out what succeeded.
	r = mustRun(t, db, "admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}], "errorsOnly": true, "ops": [
		{"insert": 0, "document": {"_id": 3}}, {"insert": 0, "document": {"_id": 1}}, {"insert": 0, "document": {"_id": 4}}]}`)
	if b := field(r, "cursor.firstBatch").(bson.A); len(b) != 1 || field(b[0].(bson.D), "idx") != int32(1) || field(r, "nInserted") != int32(1) {
		t.Fatalf("ordered with errorsOnly: %v", r)
	}
	if n := count(t, db, "test", "a"); n != 2 {
		t.Fatalf("the ordered run went on past its failure: %d documents", n)
	}

	refusals := []struct {
		db, cmd string
		code    document.Code
	}{
		{"test", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}], "ops": [{"insert": 0, "document": {}}]}`, document.CodeUnauthorized},
		{"admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}]}`, document.CodeIDLFailedToParse},
		{"admin", `{"bulkWrite": 1, "ops": [{"insert": 0, "document": {}}]}`, document.CodeIDLFailedToParse},
		{"admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}], "ops": []}`, 16},
		{"admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}], "ops": [{"insert": 1, "document": {}}]}`, document.CodeBadValue},
		{"admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}], "ops": [{"replace": 0, "document": {}}]}`, document.CodeFailedToParse},
		{"admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}], "ops": [{"update": 0, "filter": {}}]}`, document.CodeIDLFailedToParse},
		{"admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}], "ops": [{"insert": 0, "document": {}, "bogus": 1}]}`, document.CodeIDLUnknownField},
		{"admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "nodot"}], "ops": [{"insert": 0, "document": {}}]}`, document.CodeInvalidNamespace},
		{"admin", `{"bulkWrite": 1, "nsInfo": [{}], "ops": [{"insert": 0, "document": {}}]}`, document.CodeIDLFailedToParse},
		{"admin", `{"bulkWrite": 1, "nsInfo": [{"ns": 1}], "ops": [{"insert": 0, "document": {}}]}`, document.CodeTypeMismatch},
		{"admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}], "ops": [{}]}`, document.CodeFailedToParse},
		{"admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}], "ops": [1]}`, document.CodeTypeMismatch},
		{"admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}], "ops": [{"insert": 0, "document": {}}], "bogus": 1}`, document.CodeIDLUnknownField},
	}
	for _, c := range refusals {
		wantCode(t, db, c.db, c.cmd, c.code, "")
	}
}
