package engine

import (
	"errors"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// Review of the write commands' replies against mongod 7.0, session 28.
// The shapes come from mongod's write_ops.idl (the reply structs and the
// order of their fields), write_commands.cpp's populateReply and
// WriteError::serialize, find_and_modify.cpp's validate, and the jstests
// under jstests/core/write/ (batch_write_command_*.js,
// find_and_modify_invalid_query_params.js).

// w28Reply runs cmd on a collection c that holds docs and compares the
// whole reply, in canonical Extended JSON, with want.
func w28Reply(t *testing.T, docs []string, cmd, want string) {
	t.Helper()
	db, _ := openMem(t)
	if len(docs) > 0 {
		loadCorpus(t, db, "test", "c", docs)
	}
	r := mustRun(t, db, "test", cmd)
	w, err := document.ParseExtJSON([]byte(want))
	if err != nil {
		t.Fatalf("bad want %s: %v", want, err)
	}
	if got, exp := canon(t, r), canon(t, w); got != exp {
		t.Errorf("%s:\n got %s\nwant %s", cmd, got, exp)
	}
}

func TestW28InsertReplies(t *testing.T) {
	t.Parallel()
	// A duplicate key: the write error is index, code, errmsg, then the
	// key's pattern and value (DuplicateKeyErrorInfo); no codeName.
	w28Reply(t, nil, `{"insert": "c", "documents": [{"_id": 1}, {"_id": 1}, {"_id": 2}]}`,
		`{"n": 1, "writeErrors": [{"index": 1, "code": 11000, "errmsg": "E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1 }", "keyPattern": {"_id": 1}, "keyValue": {"_id": 1}}], "ok": 1.0}`)
	// Unordered: the batch goes on past the failure.
	w28Reply(t, nil, `{"insert": "c", "documents": [{"_id": 1}, {"_id": 1}, {"_id": 2}], "ordered": false}`,
		`{"n": 2, "writeErrors": [{"index": 1, "code": 11000, "errmsg": "E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1 }", "keyPattern": {"_id": 1}, "keyValue": {"_id": 1}}], "ok": 1.0}`)
	w28Reply(t, nil, `{"insert": "c", "documents": [{"_id": 1}]}`, `{"n": 1, "ok": 1.0}`)
}

func TestW28UpdateReplies(t *testing.T) {
	t.Parallel()
	docs := []string{`{"_id": 1, "a": 1}`, `{"_id": 2, "a": 2}`}
	// UpdateCommandReply: n, writeErrors, upserted, nModified.
	w28Reply(t, docs, `{"update": "c", "ordered": false, "updates": [
		{"q": {"_id": 1}, "u": {"$set": {"_id": 9}}},
		{"q": {"_id": 5}, "u": {"$set": {"a": 5}}, "upsert": true},
		{"q": {"_id": 2}, "u": {"$set": {"a": 3}}}]}`,
		`{"n": 2, "writeErrors": [{"index": 0, "code": 66, "errmsg": "Performing an update on the path '_id' would modify the immutable field '_id'"}], "upserted": [{"index": 1, "_id": 5}], "nModified": 1, "ok": 1.0}`)
	// A replacement with multi: true fails its statement (9), not the
	// command.
	w28Reply(t, docs, `{"update": "c", "ordered": false, "updates": [
		{"q": {}, "u": {"x": 1}, "multi": true},
		{"q": {}, "u": {"$set": {"b": 1}}, "multi": true}]}`,
		`{"n": 2, "writeErrors": [{"index": 0, "code": 9, "errmsg": "multi update is not supported for replacement-style update"}], "nModified": 2, "ok": 1.0}`)
	// Ordered: the first failure ends the batch.
	w28Reply(t, docs, `{"update": "c", "updates": [
		{"q": {}, "u": {"x": 1}, "multi": true},
		{"q": {}, "u": {"$set": {"b": 1}}, "multi": true}]}`,
		`{"n": 0, "writeErrors": [{"index": 0, "code": 9, "errmsg": "multi update is not supported for replacement-style update"}], "nModified": 0, "ok": 1.0}`)
	w28Reply(t, docs, `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 1}}}]}`,
		`{"n": 1, "nModified": 0, "ok": 1.0}`)
}

func TestW28DeleteReplies(t *testing.T) {
	t.Parallel()
	docs := []string{`{"_id": 1, "a": 1}`, `{"_id": 2, "a": 1}`, `{"_id": 3, "a": 2}`}
	w28Reply(t, docs, `{"delete": "c", "deletes": [{"q": {"a": 1}, "limit": 0}, {"q": {"a": 2}, "limit": 1}]}`,
		`{"n": 3, "ok": 1.0}`)
	// limit is read as a double (readMultiDeleteProperty): a non-number
	// is 0, every match.
	w28Reply(t, docs, `{"delete": "c", "deletes": [{"q": {"a": 1}, "limit": "x"}]}`, `{"n": 2, "ok": 1.0}`)
	w28Reply(t, docs, `{"delete": "c", "deletes": [{"q": {"a": 1}, "limit": true}]}`, `{"n": 2, "ok": 1.0}`)
	w28Reply(t, docs, `{"delete": "c", "deletes": [{"q": {"a": 1}, "limit": {"$numberDecimal": "1"}}]}`, `{"n": 1, "ok": 1.0}`)
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", docs)
	for _, c := range []struct{ limit, got string }{
		{`2`, "2"}, {`0.5`, "0.5"}, {`-1`, "-1"}, {`{"$numberLong": "123456789"}`, "1.23457e+08"},
		{`{"$numberDouble": "NaN"}`, "nan"},
	} {
		wantCode(t, db, "test", `{"delete": "c", "deletes": [{"q": {}, "limit": 0}, {"q": {}, "limit": `+c.limit+`}]}`,
			document.CodeFailedToParse, "The limit field in delete objects must be 0 or 1. Got "+c.got)
	}
	wantCode(t, db, "test", `{"delete": "c", "deletes": [{"q": {}, "limit": 0}, {"q": {}, "limit": 0, "hint": 5}]}`,
		document.CodeFailedToParse, "Hint must be a string or an object")
	wantCode(t, db, "test", `{"delete": "c", "deletes": [{"q": null, "limit": 0}]}`,
		codeIDLFailedToParse, "BSON field 'delete.deletes.q' is missing but a required field")
	// The whole command failed before any statement ran.
	r := mustRun(t, db, "test", `{"count": "c"}`)
	if n, _ := get(r, "n"); n != int32(3) {
		t.Errorf("count after refused delete: %v", r)
	}
}

func TestW28EmptyBatches(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, cmd := range []string{
		`{"insert": "c", "documents": []}`,
		`{"update": "c", "updates": []}`,
		`{"delete": "c", "deletes": []}`,
	} {
		wantCode(t, db, "test", cmd, document.CodeInvalidLength,
			"Write batch sizes must be between 1 and 100000. Got 0 operations.")
	}
}

func TestW28FindAndModifyErrors(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}]}`)
	for _, c := range []struct{ cmd, msg string }{
		{`{"findAndModify": "c", "query": {}}`, "Either an update or remove=true must be specified"},
		{`{"findAndModify": "c", "remove": false}`, "Either an update or remove=true must be specified"},
		{`{"findAndModify": "c", "remove": true, "update": {}}`, "Cannot specify both an update and remove=true"},
		{`{"findAndModify": "c", "remove": true, "upsert": true}`, "Cannot specify both upsert=true and remove=true "},
		{`{"findAndModify": "c", "remove": true, "new": true}`, "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document"},
		{`{"findAndModify": "c", "remove": true, "arrayFilters": [{"e": 1}]}`, "Cannot specify arrayFilters and remove=true"},
		// Numbers are booleans to these options; null is no option.
		{`{"findAndModify": "c", "remove": 1, "new": 1}`, "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document"},
		{`{"findAndModify": "c", "remove": null, "new": true}`, "Either an update or remove=true must be specified"},
	} {
		_, err := run(t, db, "test", c.cmd)
		var e *Error
		if !errors.As(err, &e) || e.Code != document.CodeFailedToParse || e.Message != c.msg {
			t.Errorf("%s: %v, want 9 %q", c.cmd, err, c.msg)
		}
	}
	// Any other type is refused by mongod's parser (14), before the
	// options are weighed.
	for _, f := range []string{"remove", "new", "upsert", "bypassDocumentValidation"} {
		wantCode(t, db, "test", `{"findAndModify": "c", "update": {"$set": {"a": 1}}, "`+f+`": "123"}`, document.CodeTypeMismatch,
			"BSON field 'findAndModify."+f+"' is the wrong type 'string', expected types '[bool, long, int, decimal, double]'")
	}
	// Nothing was removed.
	r := mustRun(t, db, "test", `{"count": "c"}`)
	if n, _ := get(r, "n"); n != int32(1) {
		t.Errorf("count after refused findAndModify: %v", r)
	}
}

func TestW28FindAndModifyReplies(t *testing.T) {
	t.Parallel()
	docs := []string{`{"_id": 1, "a": 1}`, `{"_id": 2, "a": 2}`}
	// A remove: lastErrorObject is n alone; sort picks the document.
	w28Reply(t, docs, `{"findAndModify": "c", "query": {}, "sort": {"a": -1}, "remove": true, "fields": {"a": 0}}`,
		`{"lastErrorObject": {"n": 1}, "value": {"_id": 2}, "ok": 1.0}`)
	w28Reply(t, docs, `{"findAndModify": "c", "query": {"_id": 7}, "remove": true}`,
		`{"lastErrorObject": {"n": 0}, "value": null, "ok": 1.0}`)
	// An update: the old document by default, the new one with new.
	w28Reply(t, docs, `{"findAndModify": "c", "query": {"_id": 1}, "update": {"$inc": {"a": 1}}}`,
		`{"lastErrorObject": {"n": 1, "updatedExisting": true}, "value": {"_id": 1, "a": 1}, "ok": 1.0}`)
	w28Reply(t, docs, `{"findAndModify": "c", "query": {"_id": 1}, "update": {"$inc": {"a": 1}}, "new": true}`,
		`{"lastErrorObject": {"n": 1, "updatedExisting": true}, "value": {"_id": 1, "a": 2}, "ok": 1.0}`)
	w28Reply(t, docs, `{"findAndModify": "c", "query": {"_id": 7}, "update": {"$inc": {"a": 1}}}`,
		`{"lastErrorObject": {"n": 0, "updatedExisting": false}, "value": null, "ok": 1.0}`)
	// An upsert: upserted is the new _id; value is null without new.
	w28Reply(t, docs, `{"findAndModify": "c", "query": {"_id": 7}, "update": {"$inc": {"a": 1}}, "upsert": true}`,
		`{"lastErrorObject": {"n": 1, "updatedExisting": false, "upserted": 7}, "value": null, "ok": 1.0}`)
	w28Reply(t, docs, `{"findAndModify": "c", "query": {"_id": 7}, "update": {"$inc": {"a": 1}}, "upsert": true, "new": true, "fields": {"_id": 0}}`,
		`{"lastErrorObject": {"n": 1, "updatedExisting": false, "upserted": 7}, "value": {"a": 1}, "ok": 1.0}`)
}

func TestW28UpdateStatementTypes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1}`})
	// mongod's parser checks each statement's types before any runs: a
	// wrong one fails the command, not its statement.
	for _, c := range []struct {
		stmt string
		code document.Code
		msg  string
	}{
		{`{"q": {}, "u": 5}`, document.CodeFailedToParse, "Update argument must be either an object or an array"},
		{`{"q": 5, "u": {}}`, document.CodeTypeMismatch, "BSON field 'update.updates.q' is the wrong type 'int', expected type 'object'"},
		{`{"q": {}, "u": {}, "c": 5}`, document.CodeTypeMismatch, "BSON field 'update.updates.c' is the wrong type 'int', expected type 'object'"},
		{`{"q": {}, "u": {}, "arrayFilters": 5}`, document.CodeTypeMismatch, "BSON field 'update.updates.arrayFilters' is the wrong type 'int', expected type 'array'"},
		{`{"q": {}, "u": {}, "collation": 5}`, document.CodeTypeMismatch, "BSON field 'update.updates.collation' is the wrong type 'int', expected type 'object'"},
		{`{"q": null, "u": {}}`, codeIDLFailedToParse, "BSON field 'update.updates.q' is missing but a required field"},
		{`{"q": {}, "u": null}`, document.CodeFailedToParse, "Update argument must be either an object or an array"},
		{`{"q": {}, "u": {}, "hint": 5}`, document.CodeFailedToParse, "Hint must be a string or an object"},
	} {
		cmd := `{"update": "c", "updates": [{"q": {}, "u": {"$set": {"a": 1}}}, ` + c.stmt + `]}`
		_, err := run(t, db, "test", cmd)
		var e *Error
		if !errors.As(err, &e) || e.Code != c.code || e.Message != c.msg {
			t.Errorf("%s: %v, want %d %q", cmd, err, c.code, c.msg)
		}
	}
	r := mustRun(t, db, "test", `{"count": "c", "query": {"a": 1}}`)
	if n, _ := get(r, "n"); n != int32(0) {
		t.Errorf("a statement ran before the refusal: %v", r)
	}
}
