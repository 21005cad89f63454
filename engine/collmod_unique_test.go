package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// violationsOf runs collMod's conversion of index key to unique and
// returns its 359's violations, as mongod prints them.
func violationsOf(t *testing.T, db *DB, key string) string {
	t.Helper()
	mustRun(t, db, "test", `{"collMod": "c", "index": {"keyPattern": `+key+`, "prepareUnique": true}}`)
	_, err := run(t, db, "test", `{"collMod": "c", "index": {"keyPattern": `+key+`, "unique": true}}`)
	var e *document.Error
	if !errors.As(err, &e) || e.Code != document.CodeCannotConvertIndexToUnique {
		t.Fatalf("convert %s: %v, want 359", key, err)
	}
	if e.Message != "Cannot convert the index to unique. Please resolve conflicting documents before running collMod again." {
		t.Errorf("convert %s: message %q", key, e.Message)
	}
	mustRun(t, db, "test", `{"collMod": "c", "index": {"keyPattern": `+key+`, "prepareUnique": false}}`)
	return fmtValue(e.Info["violations"])
}

// TestCollModUniqueViolations is jstests/core/ddl/collmod_convert_to_unique_violations.js:
// a conversion to unique that meets duplicates answers 359 with
// violations, one {ids: [...]} group a duplicated key, in key order, each
// group's _ids in the order the documents were inserted; the reply to a
// command carries them too.
func TestCollModUniqueViolations(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"a": 1, "b": 1}, "name": "a_1_b_1"}]}`)
	steps := []struct {
		insert, key, want string
	}{
		{`{"_id": 1, "a": 100, "b": 1}, {"_id": 2, "a": 100, "b": 2}`, `{"a": 1}`, `[ { ids: [ 1, 2 ] } ]`},
		{`{"_id": 3, "a": 100, "b": 3}`, `{"a": 1}`, `[ { ids: [ 1, 2, 3 ] } ]`},
		{`{"_id": 4, "a": 101, "b": 4}`, `{"a": 1}`, `[ { ids: [ 1, 2, 3 ] } ]`},
		{`{"_id": 5, "a": 105, "b": 5}, {"_id": 6, "a": 105, "b": 6}`, `{"a": 1}`, `[ { ids: [ 1, 2, 3 ] }, { ids: [ 5, 6 ] } ]`},
		{`{"_id": 7, "a": 105, "b": 6}`, `{"a": 1, "b": 1}`, `[ { ids: [ 6, 7 ] } ]`},
		{`{"_id": 8, "a": 105, "b": 6}`, `{"a": 1, "b": 1}`, `[ { ids: [ 6, 7, 8 ] } ]`},
		{`{"_id": 9, "a": 101, "b": 4}`, `{"a": 1, "b": 1}`, `[ { ids: [ 4, 9 ] }, { ids: [ 6, 7, 8 ] } ]`},
		{`{"_id": "10", "a": 101, "b": 4}`, `{"a": 1, "b": 1}`, `[ { ids: [ 4, 9, "10" ] }, { ids: [ 6, 7, 8 ] } ]`},
	}
	for _, s := range steps {
		mustRun(t, db, "test", `{"insert": "c", "documents": [`+s.insert+`]}`)
		if got := violationsOf(t, db, s.key); got != s.want {
			t.Errorf("after %s, %s: violations %s, want %s", s.insert, s.key, got, s.want)
		}
	}
	// The command's reply: errmsg, code, codeName, violations.
	mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "a_1", "prepareUnique": true}}`)
	r, err := db.RunCommand(t.Context(), "test", ejson(t, `{"collMod": "c", "index": {"name": "a_1", "unique": true}}`))
	if err == nil {
		t.Fatalf("convert: %v", r)
	}
	got := fmtValue(errorReply(err))
	if want := `{ ok: 0.0, errmsg: "Cannot convert the index to unique. Please resolve conflicting documents before running collMod again.", code: 359, codeName: "CannotConvertIndexToUnique", violations: [ { ids: [ 1, 2, 3 ] }, { ids: [ 4, 9, "10" ] }, { ids: [ 5, 6, 7, 8 ] } ] }`; got != want {
		t.Errorf("reply:\n%s\nwant\n%s", got, want)
	}
}

// TestCollModUniqueViolationsLimit is
// jstests/core/ddl/collmod_convert_to_unique_violations_size_limit.js:
// the violations stop past 8 MiB of _ids, with mongod's other message.
// (mongod's test takes 1 MiB _ids; ttlkv's keys are shorter than 65000
// bytes, so these are 60000 bytes long, an element of 60010 bytes.)
func TestCollModUniqueViolationsLimit(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "prepareUnique": true}]}`)
	// prepareUnique refuses new duplicates: they go in before it.
	mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "a_1", "prepareUnique": false}}`)
	const idLen = 60000
	fit := (8 << 20) / (idLen + 10) // the _ids the list holds
	var ids bson.A
	for i := 0; i < fit+2; i++ {
		id := fmt.Sprintf("%05d", i) + strings.Repeat("x", idLen-5)
		if _, err := db.RunCommand(t.Context(), "test", bson.D{{Key: "insert", Value: "c"},
			{Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: id}, {Key: "a", Value: int32(1)}}}}}); err != nil {
			t.Fatal(err)
		}
		if i < fit {
			ids = append(ids, id)
		}
	}
	mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "a_1", "prepareUnique": true}}`)
	_, err := run(t, db, "test", `{"collMod": "c", "index": {"name": "a_1", "unique": true}}`)
	var e *document.Error
	if !errors.As(err, &e) || e.Code != document.CodeCannotConvertIndexToUnique {
		t.Fatalf("convert: %v", err)
	}
	if e.Message != "Cannot convert the index to unique. Too many conflicting documents were detected. Please resolve them and rerun collMod." {
		t.Errorf("message %q", e.Message)
	}
	if want := (bson.A{bson.D{{Key: "ids", Value: ids}}}); !document.Equal(e.Info["violations"], want) {
		t.Errorf("violations: want one group of the first %d _ids", fit)
	}
}

// TestCollModForceNonUnique is the end of
// jstests/core/ddl/collmod_convert_index_uniqueness.js: forceNonUnique:
// true makes a unique index an ordinary one again (replying
// forceNonUnique_new: true), after which duplicates go in; false is 2;
// with unique 72; on an index that is not unique nothing changes.
func TestCollModForceNonUnique(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 100}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b": 1}, "name": "b_1", "unique": true}]}`)
	mustRun(t, db, "test", `{"collMod": "c", "index": {"keyPattern": {"a": 1}, "prepareUnique": true}}`)
	if got := replyKeys(mustRun(t, db, "test", `{"collMod": "c", "index": {"keyPattern": {"a": 1}, "unique": true}}`)); got != "unique_new=true ok=1" {
		t.Fatalf("convert: %s", got)
	}
	if got := fmtValue(mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 100, "a": 100}]}`)); !strings.Contains(got, "code: 11000") {
		t.Fatalf("duplicate in the unique index: %s", got)
	}
	for _, c := range []struct {
		cmd  string
		code document.Code
		msg  string
	}{
		{`{"collMod": "c", "index": {"keyPattern": {"a": 1}, "forceNonUnique": false}}`, document.CodeBadValue, "'forceNonUnique: false' is not supported"},
		{`{"collMod": "c", "index": {"keyPattern": {"a": 1}, "forceNonUnique": true, "unique": true}}`, document.CodeInvalidOptions, "collMod does not support 'unique' and 'forceNonUnique' options at the same time"},
		{`{"collMod": "c", "index": {"keyPattern": {"a": 1}, "forceNonUnique": true, "prepareUnique": true}}`, document.CodeInvalidOptions, "prepareUnique cannot be combined with any other modification."},
		{`{"collMod": "c", "index": {"keyPattern": {"a": 1}, "forceNonUnique": "yes"}}`, document.CodeTypeMismatch, "BSON field 'collMod.index.forceNonUnique' is the wrong type 'string'"},
		{`{"collMod": "c", "index": {"keyPattern": {"z": 1}, "forceNonUnique": true}}`, document.CodeIndexNotFound, "cannot find index"},
	} {
		wantCode(t, db, "test", c.cmd, c.code, c.msg)
	}
	if got := replyKeys(mustRun(t, db, "test", `{"collMod": "c", "index": {"keyPattern": {"a": 1}, "forceNonUnique": true}}`)); got != "forceNonUnique_new=true ok=1" {
		t.Fatalf("forceNonUnique: %s", got)
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 100, "a": 100}]}`)
	// Again: nothing to change. On the _id index mongod answers as for a
	// unique index, and the index stays unique.
	if got := replyKeys(mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "a_1", "forceNonUnique": true}}`)); got != "ok=1" {
		t.Fatalf("forceNonUnique again: %s", got)
	}
	if got := replyKeys(mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "_id_", "forceNonUnique": true}}`)); got != "forceNonUnique_new=true ok=1" {
		t.Fatalf("forceNonUnique on _id: %s", got)
	}
	// A unique index created so, with hidden in the same collMod; the
	// _id index stays unique.
	if got := replyKeys(mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "b_1", "forceNonUnique": 1, "hidden": true}}`)); got != "hidden_old=false hidden_new=true forceNonUnique_new=true ok=1" {
		t.Fatalf("forceNonUnique with hidden: %s", got)
	}
	db = reopen(t, db, dir, clk)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 101, "a": 100, "b": 1}, {"_id": 102, "b": 1}]}`)
	if got := fmtValue(mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}]}`)); !strings.Contains(got, "code: 11000") {
		t.Fatalf("duplicate _id: %s", got)
	}
	if got := fmtValue(field(mustRun(t, db, "test", `{"listIndexes": "c"}`), "cursor.firstBatch")); got != `[ { v: 2, key: { _id: 1 }, name: "_id_" }, { v: 2, key: { a: 1 }, name: "a_1" }, { v: 2, key: { b: 1 }, name: "b_1", hidden: true } ]` {
		t.Errorf("listIndexes: %s", got)
	}
	mustValidate(t, db, "test", "c")
}

// TestCollModDryRun is the dry-run part of
// jstests/core/ddl/collmod_convert_index_uniqueness.js: dryRun: true
// only checks a conversion to unique (alone, 72 otherwise), answers 359
// with the violations while duplicates remain, and changes nothing.
func TestCollModDryRun(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 100}, {"_id": 2, "a": 100}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	for _, c := range []struct {
		cmd  string
		code document.Code
		msg  string
	}{
		{`{"collMod": "c", "index": {"keyPattern": {"a": 1}, "hidden": true}, "dryRun": true}`, document.CodeInvalidOptions, "dry run mode requires an index modification with unique: true."},
		{`{"collMod": "c", "validationLevel": "off", "dryRun": true}`, document.CodeInvalidOptions, "dry run mode requires an valid index modification."},
		{`{"collMod": "c", "index": {"keyPattern": {"a": 1}, "hidden": true, "unique": true}, "dryRun": true}`, document.CodeInvalidOptions, "unique: true cannot be combined with any other modification in dry run mode."},
		{`{"collMod": "c", "index": {"keyPattern": {"a": 1}, "unique": true}, "validationLevel": "off", "dryRun": true}`, document.CodeInvalidOptions, "unique: true cannot be combined with any other modification in dry run mode."},
		{`{"collMod": "c", "index": {"keyPattern": {"a": 1}, "unique": true}, "dryRun": "yes"}`, document.CodeTypeMismatch, "BSON field 'collMod.dryRun' is the wrong type 'string'"},
		{`{"collMod": "c", "index": {"keyPattern": {"a": 1}, "unique": true}, "dryRun": true}`, document.CodeInvalidOptions, "Cannot make index unique with 'prepareUnique=false'."},
		{`{"collMod": "nope", "index": {"keyPattern": {"a": 1}, "unique": true}, "dryRun": true}`, document.CodeNamespaceNotFound, ""},
	} {
		wantCode(t, db, "test", c.cmd, c.code, c.msg)
	}
	mustRun(t, db, "test", `{"collMod": "c", "index": {"keyPattern": {"a": 1}, "prepareUnique": true}}`)
	_, err := run(t, db, "test", `{"collMod": "c", "index": {"keyPattern": {"a": 1}, "unique": true}, "dryRun": true}`)
	var e *document.Error
	if !errors.As(err, &e) || e.Code != document.CodeCannotConvertIndexToUnique || fmtValue(e.Info["violations"]) != `[ { ids: [ 1, 2 ] } ]` {
		t.Fatalf("dry run over duplicates: %v %v", err, e)
	}
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": 2}, "limit": 1}]}`)
	if got := replyKeys(mustRun(t, db, "test", `{"collMod": "c", "index": {"keyPattern": {"a": 1}, "unique": true}, "dryRun": true}`)); got != "ok=1" {
		t.Fatalf("dry run: %s", got)
	}
	if got := fmtValue(field(mustRun(t, db, "test", `{"listIndexes": "c"}`), "cursor.firstBatch")); got != `[ { v: 2, key: { _id: 1 }, name: "_id_" }, { v: 2, key: { a: 1 }, name: "a_1", prepareUnique: true } ]` {
		t.Fatalf("a dry run changed the index: %s", got)
	}
	// dryRun: false is an ordinary collMod.
	if got := replyKeys(mustRun(t, db, "test", `{"collMod": "c", "index": {"keyPattern": {"a": 1}, "unique": true}, "dryRun": false}`)); got != "unique_new=true ok=1" {
		t.Fatalf("dryRun false: %s", got)
	}
}
