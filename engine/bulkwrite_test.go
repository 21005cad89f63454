package engine

import (
	"fmt"
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
		`{ ok: 0.0, idx: 3, code: 11000, errmsg: "E11000 duplicate key error collection: test.a index: _id_ dup key: { _id: 2 }", keyPattern: { _id: 1 }, keyValue: { _id: 2 }, n: 0 }, ` +
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

// TestBulkWriteReplyItems: a failed operation's item is mongod's
// BulkWriteReplyItem: ok 0, idx, code, errmsg, the error's extra
// information (a validation failure's errInfo), then n 0, and no
// codeName; errorsOnly is a bool, as mongod's IDL types it.
func TestBulkWriteReplyItems(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "v", "validator": {"a": {"$type": "int"}}}`)
	r := mustRun(t, db, "admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.v"}], "ops": [
		{"delete": 0, "filter": {"a": 1}},
		{"insert": 0, "document": {"_id": 1, "a": "x"}}]}`)
	items := field(r, "cursor.firstBatch").(bson.A)
	if len(items) != 2 {
		t.Fatalf("items: %v", items)
	}
	if got := document.Format(items[0]); got != `{ ok: 1.0, idx: 0, n: 0 }` {
		t.Errorf("delete item: %s", got)
	}
	bad := items[1].(bson.D)
	var keys []string
	for _, e := range bad {
		keys = append(keys, e.Key)
	}
	if fmt.Sprint(keys) != "[ok idx code errmsg errInfo n]" || field(bad, "code") != int32(121) ||
		field(bad, "n") != int32(0) || field(bad, "errmsg") != "Document failed validation" {
		t.Errorf("validation failure item: %s", document.Format(bad))
	}
	wantCode(t, db, "admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.v"}], "errorsOnly": 1, "ops": [{"insert": 0, "document": {"a": 1}}]}`,
		document.CodeTypeMismatch, "BSON field 'bulkWrite.errorsOnly' is the wrong type 'int', expected type 'bool'")
	// A type error in a command argument quotes mongod's list of types.
	mustRun(t, db, "test", `{"createIndexes": "v", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	wantCode(t, db, "test", `{"collMod": "v", "index": {"name": "a_1", "prepareUnique": "yes"}}`,
		document.CodeTypeMismatch, "BSON field 'collMod.index.prepareUnique' is the wrong type 'string', expected types '[bool, long, int, decimal, double]'")
}

// TestWriteConcernTypeMessages: a writeConcern that is not a document
// is 14 in mongod 7.0's words (extractWCFromCommand's typed field
// extraction); its j and fsync are safeBool (a bool or a number), so
// j: 1 is taken and a string refused with the IDL's list of types.
func TestWriteConcernTypeMessages(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	wantCode(t, db, "test", `{"insert": "c", "documents": [{}], "writeConcern": "majority"}`, document.CodeTypeMismatch,
		`"writeConcern" had the wrong type. Expected object, found string`)
	wantCode(t, db, "test", `{"insert": "c", "documents": [{}], "writeConcern": {"j": "yes"}}`, document.CodeTypeMismatch,
		"BSON field 'writeConcern.j' is the wrong type 'string', expected types '[bool, long, int, decimal, double]'")
	wantCode(t, db, "test", `{"insert": "c", "documents": [{}], "writeConcern": {"fsync": "x"}}`, document.CodeTypeMismatch,
		"BSON field 'writeConcern.fsync' is the wrong type 'string', expected types '[bool, long, int, decimal, double]'")
	mustRun(t, db, "test", `{"insert": "c", "documents": [{}], "writeConcern": {"j": 1}}`)
	wantCode(t, db, "test", `{"insert": "c", "documents": [{}], "writeConcern": {"j": 1, "fsync": true}}`, document.CodeFailedToParse,
		"fsync and j options cannot be used together")
}

// TestBulkWriteCursorBatchSize: bulkWrite's cursor option sets the first
// batch's size, the rest coming through getMore on admin.$cmd.bulkWrite,
// as mongod's; batchSize 0 gives an empty first batch.
func TestBulkWriteCursorBatchSize(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	r := mustRun(t, db, "admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}], "cursor": {"batchSize": 1}, "ops": [
		{"insert": 0, "document": {"_id": 1}}, {"insert": 0, "document": {"_id": 2}}, {"insert": 0, "document": {"_id": 3}}]}`)
	id, _ := field(r, "cursor.id").(int64)
	if b := field(r, "cursor.firstBatch").(bson.A); len(b) != 1 || id == 0 || field(r, "nInserted") != int32(3) {
		t.Fatalf("first batch: %v", r)
	}
	var keys []string
	for _, e := range field(r, "cursor").(bson.D) {
		keys = append(keys, e.Key)
	}
	if fmt.Sprint(keys) != "[id firstBatch ns]" || field(r, "cursor.ns") != "admin.$cmd.bulkWrite" {
		t.Errorf("cursor fields %v", field(r, "cursor"))
	}
	g := mustRunD(t, db, "admin", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "$cmd.bulkWrite"}})
	if got := document.Format(field(g, "cursor.nextBatch")); got != `[ { ok: 1.0, idx: 1, n: 1 }, { ok: 1.0, idx: 2, n: 1 } ]` || field(g, "cursor.id") != int64(0) {
		t.Errorf("getMore: %v", g)
	}
	r = mustRun(t, db, "admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}], "cursor": {"batchSize": 0}, "ops": [{"delete": 0, "filter": {}}]}`)
	if b := field(r, "cursor.firstBatch").(bson.A); len(b) != 0 || field(r, "cursor.id") == int64(0) {
		t.Errorf("batchSize 0: %v", r)
	}
	wantCode(t, db, "admin", `{"bulkWrite": 1, "nsInfo": [{"ns": "test.a"}], "cursor": {"batchSize": -1}, "ops": [{"delete": 0, "filter": {}}]}`, 51024, "")
}
