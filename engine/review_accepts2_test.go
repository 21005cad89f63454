package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Second round of the reviewer's tests of inputs ttlkv accepts and
// mongod refuses (the first is review_accepts_test.go, whose helpers
// these reuse). Each test sends what ttlkv takes today and wants
// mongod's answer, as the mongod source or jstest named beside it gives
// it; a failing test is an application that works on ttlkv and breaks
// on MongoDB. Where 7.0 (the wire version ttlkv claims) and later
// versions differ, the comment says so.

// raCmdErrDB is raCmdErr against the database dbName.
func raCmdErrDB(t *testing.T, db *DB, dbName string, cmd bson.D, code int32, codeName, frag string) {
	t.Helper()
	r, err := db.RunCommand(context.Background(), dbName, cmd)
	if err == nil {
		t.Fatalf("%s: accepted, reply %s; mongod refuses it with %d %s (%q)", fmtValue(cmd), fmtValue(r), code, codeName, frag)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: err = %v, want code %d", fmtValue(cmd), err, code)
	}
	if int32(e.Code) != code || !strings.Contains(e.Message, frag) {
		t.Fatalf("%s: %d %s %q, want %d %s with %q", fmtValue(cmd), e.Code, e.Name(), e.Message, code, codeName, frag)
	}
	if n, _ := get(r, "codeName"); n != codeName {
		t.Fatalf("%s: codeName %v, want %s", fmtValue(cmd), n, codeName)
	}
}

// ra2OpenCursor runs a cursor command that leaves its cursor open
// (a small batchSize) and returns the cursor's id.
func ra2OpenCursor(t *testing.T, db *DB, cmdJSON string) int64 {
	t.Helper()
	r := mustRun(t, db, "test", cmdJSON)
	id, _ := field(r, "cursor.id").(int64)
	if id == 0 {
		t.Fatalf("%s: no open cursor in %s", cmdJSON, fmtValue(r))
	}
	return id
}

// getMore accepts maxTimeMS only on a tailable awaitData cursor, where
// it is the await timeout: getmore_cmd.cpp (src/mongo/db/commands/)
// uasserts 2 BadValue "cannot set maxTimeMS on getMore command for a
// non-awaitData cursor" for any other cursor (jstests/core/
// getmore_cmd_maxtimems.js). Drivers send the cursor's maxAwaitTimeMS
// as the getMore's maxTimeMS (the Node driver's GetMoreOperation does
// whenever it is set, and the Go driver's SetMaxAwaitTime on Aggregate
// meets this error), so an application that sets it on an ordinary
// find or aggregate works on ttlkv, which ignores the field, and fails
// at its second batch on MongoDB.
func TestReviewAccepts2GetMoreMaxTimeMSOnNonAwaitCursor(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1}`, `{"_id": 2}`, `{"_id": 3}`, `{"_id": 4}`})
	for _, open := range []string{
		`{"find": "c", "batchSize": 1}`,
		`{"aggregate": "c", "pipeline": [], "cursor": {"batchSize": 1}}`,
	} {
		t.Run(open, func(t *testing.T) {
			id := ra2OpenCursor(t, db, open)
			raCmdErr(t, db, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "maxTimeMS", Value: int32(100)}},
				2, "BadValue", "cannot set maxTimeMS on getMore command for a non-awaitData cursor")
		})
	}
}

// findAndModify plans with its hint like find and update do: a hint
// that names no index is 2 BadValue (the planner's "hint provided does
// not correspond to an existing index"), and a hint that is neither a
// string nor a document is 9 FailedToParse "Hint must be a string or an
// object" (index_hint.cpp, src/mongo/db/query/; jstests/core/write/
// find_and_modify/find_and_modify_hint.js, failedHintTest). ttlkv
// ignores findAndModify's hint altogether, so findOneAndUpdate with a
// hint to an index that was renamed or never built works on ttlkv.
func TestReviewAccepts2FindAndModifyHint(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "x": 1}`, `{"_id": 2, "x": 1}`})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"x": 1}, "name": "x_1"}]}`)
	for _, tc := range []struct {
		cmd, codeName, frag string
		code                int32
	}{
		{`{"findAndModify": "c", "query": {"_id": 1}, "update": {"$set": {"y": 1}}, "hint": {"badHint": 1}}`, "BadValue", "hint provided does not correspond to an existing index", 2},
		{`{"findAndModify": "c", "query": {"_id": 2}, "remove": true, "hint": "nope_1"}`, "BadValue", "hint provided does not correspond to an existing index", 2},
		{`{"findAndModify": "c", "query": {"_id": 1}, "update": {"$set": {"y": 1}}, "hint": 1}`, "FailedToParse", "Hint must be a string or an object", 9},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			raCmdErrJSON(t, db, tc.cmd, tc.code, tc.codeName, tc.frag)
		})
	}
}

// $set/$addFields validate their specification before running it
// (ProjectionSpecValidator in src/mongo/db/exec/
// add_fields_projection_executor.cpp): a path beside its own prefix is
// 40176 "specification contains two conflicting paths", a dotted name
// inside a sub-object 40183 "cannot use dotted field name ... in a sub
// object" (an application's notes record the latter refusing its
// update once it moved to MongoDB). $project's parser refuses a computed
// field beside a path under it with 31249/31250 "Path collision at"
// (jstests/aggregation/bugs/server6177.js), and find's projection is
// the same parser. ttlkv runs each, the later field silently winning
// or nesting.
func TestReviewAccepts2AggregationPathConflicts(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "x": {"b": 1}}`})
	for _, tc := range []struct {
		stage, frag string
		code        int32
	}{
		{`{"$set": {"p": 1, "p.q": 2}}`, "specification contains two conflicting paths", 40176},
		{`{"$addFields": {"x": {"b": 1}, "x.b": 2}}`, "specification contains two conflicting paths", 40176},
		{`{"$set": {"p": {"q.r": 1}}}`, "cannot use dotted field name 'q.r' in a sub object", 40183},
		{`{"$project": {"x": {"$add": [1]}, "x.b": 1}}`, "Path collision at", 31249},
		{`{"$project": {"x.b": 1, "x": {"$add": [1]}}}`, "Path collision at", 31250},
		{`{"$project": {"x": {"b": 1}, "x.b": 1}}`, "Path collision at", 31250},
	} {
		t.Run(tc.stage, func(t *testing.T) {
			raCmdErrJSON(t, db, `{"aggregate": "c", "pipeline": [`+tc.stage+`], "cursor": {}}`,
				tc.code, "Location"+itoa32(tc.code), tc.frag)
		})
	}
	t.Run("find projection", func(t *testing.T) {
		raCmdErrJSON(t, db, `{"find": "c", "projection": {"x": {"$add": [1]}, "x.b": 1}}`, 31249, "Location31249", "Path collision at")
	})
	t.Run("pipeline update", func(t *testing.T) {
		raWriteErr(t, db, raParse(t, `{"update": "c", "updates": [{"q": {"_id": 1}, "u": [{"$set": {"profile": {"$literal": {}}, "profile.at": 1}}]}]}`),
			40176, "specification contains two conflicting paths")
	})
}

func itoa32(n int32) string {
	if n == 0 {
		return "0"
	}
	var b [12]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// A command that does not write refuses a writeConcern before it runs:
// service_entry_point_common.cpp (src/mongo/db/) uasserts 72
// InvalidOptions "Command does not support writeConcern"
// (jstests/core/commands_that_do_not_write_do_not_accept_wc.js runs
// count with {w: 1} and with {w: "invalid"}; its later versions add
// distinct and find). An
// application that passes its write options to every call (a helper
// that adds writeConcern to each runCommand) works on ttlkv, which
// ignores the field on these commands.
func TestReviewAccepts2WriteConcernOnReadCommands(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": 1}`})
	for _, cmd := range []string{
		`{"count": "c", "query": {"a": 1}, "writeConcern": {"w": 1}}`,
		`{"distinct": "c", "key": "a", "writeConcern": {"w": "majority"}}`,
	} {
		t.Run(cmd, func(t *testing.T) {
			raCmdErrJSON(t, db, cmd, 72, "InvalidOptions", "Command does not support writeConcern")
		})
	}
}

// listCollections and listIndexes are strict IDL commands
// (src/mongo/db/list_collections.idl: nameOnly and
// authorizedCollections are type bool; src/mongo/db/list_indexes.idl:
// no filter field), and their cursor option is the strict
// SimpleCursorOptions struct (batchSize >= 0, no other field), as
// aggregate's is. jstests/core/catalog/list_collections.js wants
// cursor: 0, {foo: 1} and {batchSize: -1} refused. ttlkv ignores each:
// a listIndexes filter meant to pick one index returns all of them.
func TestReviewAccepts2ListCommandOptions(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1}`})
	for _, tc := range []struct {
		cmd, codeName, frag string
		code                int32
	}{
		{`{"listCollections": 1, "nameOnly": 1}`, "TypeMismatch", "BSON field 'listCollections.nameOnly' is the wrong type 'int', expected type 'bool'", 14},
		{`{"listCollections": 1, "filter": {}, "bogus": 1}`, "IDLUnknownField", "BSON field 'listCollections.bogus' is an unknown field.", 40415},
		{`{"listCollections": 1, "cursor": 0}`, "TypeMismatch", "BSON field 'listCollections.cursor' is the wrong type 'int', expected type 'object'", 14},
		{`{"listCollections": 1, "cursor": {"foo": 1}}`, "IDLUnknownField", "foo' is an unknown field.", 40415},
		{`{"listCollections": 1, "cursor": {"batchSize": -1}}`, "Location51024", "BSON field 'batchSize' value must be >= 0, actual value '-1'", 51024},
		{`{"listIndexes": "c", "filter": {"name": "_id_"}}`, "IDLUnknownField", "BSON field 'listIndexes.filter' is an unknown field.", 40415},
		{`{"listIndexes": "c", "cursor": {"batchSize": -1}}`, "Location51024", "BSON field 'batchSize' value must be >= 0, actual value '-1'", 51024},
		{`{"aggregate": "c", "pipeline": [], "cursor": {"batchSize": 1, "foo": 1}}`, "IDLUnknownField", "foo' is an unknown field.", 40415},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			raCmdErrJSON(t, db, tc.cmd, tc.code, tc.codeName, tc.frag)
		})
	}
}

// distinct has no hint in 7.0: the option came in 7.1 (the drivers'
// DRIVERS-2658 tickets: "supports this option on server version
// 7.1+"), so mongod 7.0's strict distinct IDL answers 40415 "BSON field
// 'distinct.hint' is an unknown field.", and 7.1 and later plan with
// the hint and answer 2 BadValue for one that names no index. ttlkv
// takes the field and ignores it, so a hint naming no index works on
// ttlkv and fails on every mongod; this test takes either answer.
func TestReviewAccepts2DistinctHint(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": 1}`})
	cmd := raParse(t, `{"distinct": "c", "key": "a", "hint": "nope_1"}`)
	r, err := db.RunCommand(context.Background(), "test", cmd)
	if err == nil {
		t.Fatalf("%s: accepted, reply %s; mongod 7.0 refuses it with 40415 (distinct.hint is an unknown field), 7.1+ with 2 BadValue", fmtValue(cmd), fmtValue(r))
	}
	var e *Error
	if !errors.As(err, &e) || (e.Code != 40415 && e.Code != 2) {
		t.Fatalf("%s: err = %v, want 40415 (7.0) or 2 (7.1+)", fmtValue(cmd), err)
	}
}

// getMore is a strict IDL command (src/mongo/db/query/
// getmore_command.idl, strict: true): a field other than collection,
// batchSize, maxTimeMS, term, lastKnownCommittedOpTime and the generic
// arguments is 40415. ttlkv returns the next batch.
func TestReviewAccepts2GetMoreUnknownField(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1}`, `{"_id": 2}`, `{"_id": 3}`})
	id := ra2OpenCursor(t, db, `{"find": "c", "batchSize": 1}`)
	raCmdErr(t, db, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "singleBatch", Value: true}},
		40415, "IDLUnknownField", "BSON field 'getMore.singleBatch' is an unknown field.")
}

// killCursors takes cursors: array<cursorId>, a type that is BSON long
// only, in a strict command (src/mongo/db/query/kill_cursors.idl): an
// int or a string in the array is 14 TypeMismatch "BSON field
// 'killCursors.cursors.0' is the wrong type 'int', expected type
// 'long'" (FerretDB's compatibility tests, run against mongod, expect
// this text). ttlkv answers ok with cursorsNotFound [0], so a client
// that sends a cursor id as int32 (a JavaScript number that fits)
// believes it released a cursor that stays open.
func TestReviewAccepts2KillCursorsIDType(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1}`, `{"_id": 2}`})
	t.Run("int id", func(t *testing.T) {
		raCmdErr(t, db, bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{int32(12345)}}},
			14, "TypeMismatch", "BSON field 'killCursors.cursors.0' is the wrong type 'int', expected type 'long'")
	})
	t.Run("string id", func(t *testing.T) {
		raCmdErr(t, db, bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{"12345"}}},
			14, "TypeMismatch", "is the wrong type 'string', expected type 'long'")
	})
	t.Run("unknown field", func(t *testing.T) {
		raCmdErr(t, db, bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{int64(12345)}}, {Key: "force", Value: true}},
			40415, "IDLUnknownField", "BSON field 'killCursors.force' is an unknown field.")
	})
}

// A $type with an empty array of types matches no type and mongod
// refuses it as a parse error: parseType in src/mongo/db/matcher/
// expression_parser.cpp returns 9 FailedToParse "<path> must match at
// least one type". ttlkv returns no documents, so a filter built from
// an empty list of wanted types quietly finds nothing.
func TestReviewAccepts2TypeEmptyArray(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": 1}`})
	raCmdErrJSON(t, db, `{"find": "c", "filter": {"a": {"$type": []}}}`, 9, "FailedToParse", "a must match at least one type")
}

// renameCollection is a strict IDL command whose dropTarget and
// stayTemp are bool (src/mongo/db/commands/rename_collection.idl,
// parsed by RenameCollectionCommand::parse in rename_collection_cmd.cpp;
// later versions also take a UUID for dropTarget, never a string or a
// number). ttlkv takes "yes" and 1 as true and drops the target, and
// ignores unknown fields.
func TestReviewAccepts2RenameCollectionOptions(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, c := range []string{"a1", "b1", "a2", "b2", "a3"} {
		loadCorpus(t, db, "test", c, []string{`{"_id": 1}`})
	}
	for _, tc := range []struct {
		cmd, codeName, frag string
		code                int32
	}{
		{`{"renameCollection": "test.a1", "to": "test.b1", "dropTarget": "yes"}`, "TypeMismatch", "BSON field 'renameCollection.dropTarget' is the wrong type 'string'", 14},
		{`{"renameCollection": "test.a2", "to": "test.b2", "dropTarget": 1}`, "TypeMismatch", "BSON field 'renameCollection.dropTarget' is the wrong type 'int'", 14},
		{`{"renameCollection": "test.a3", "to": "test.c3", "dropSource": true}`, "IDLUnknownField", "BSON field 'renameCollection.dropSource' is an unknown field.", 40415},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			raCmdErrDB(t, db, "admin", raParse(t, tc.cmd), tc.code, tc.codeName, tc.frag)
		})
	}
}

// drop, dropIndexes and dropDatabase are strict IDL commands
// (src/mongo/db/drop.idl, drop_indexes.idl, drop_database.idl), and
// dropDatabase's parameter must be 1: CmdDropDatabase in
// src/mongo/db/commands/dbcommands.cpp uasserts 5255100 "Have to pass
// 1 as 'drop' parameter" (mongos answers 2 BadValue "have to pass 1 as
// db parameter"). ttlkv drops the database for {dropDatabase: 0}, and
// ignores unknown fields on the three commands.
func TestReviewAccepts2DropCommandsStrict(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, name := range []string{"c", "d"} {
		loadCorpus(t, db, "test", name, []string{`{"_id": 1}`})
	}
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	loadCorpus(t, db, "other1", "e", []string{`{"_id": 1}`})
	loadCorpus(t, db, "other2", "e", []string{`{"_id": 1}`})
	for _, tc := range []struct {
		dbName, cmd, codeName, frag string
		code                        int32
	}{
		{"other1", `{"dropDatabase": 0}`, "Location5255100", "Have to pass 1 as 'drop' parameter", 5255100},
		{"other2", `{"dropDatabase": 1, "force": true}`, "IDLUnknownField", "BSON field 'dropDatabase.force' is an unknown field.", 40415},
		{"test", `{"drop": "d", "force": true}`, "IDLUnknownField", "BSON field 'drop.force' is an unknown field.", 40415},
		{"test", `{"dropIndexes": "c", "index": "a_1", "force": true}`, "IDLUnknownField", "BSON field 'dropIndexes.force' is an unknown field.", 40415},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			raCmdErrDB(t, db, tc.dbName, raParse(t, tc.cmd), tc.code, tc.codeName, tc.frag)
		})
	}
}

// A document with _id twice is refused on insert: fixDocumentForInsert
// in src/mongo/db/ops/insert.cpp returns 2 BadValue "can't have
// multiple _id fields in one document" (SERVER-19361), a write error of
// the statement. ttlkv stores the document with the first _id.
func TestReviewAccepts2InsertDuplicateID(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	doc := bson.D{{Key: "_id", Value: int32(1)}, {Key: "x", Value: int32(1)}, {Key: "_id", Value: int32(2)}}
	raWriteErr(t, db, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{doc}}},
		2, "can't have multiple _id fields in one document")
}

// explain parses the command it explains with that command's own
// parser (ExplainCmd::parse finds the inner command and calls its
// parse; write_ops.idl's update is strict), so an unknown field in an
// explained update is the same 40415 as in the update itself. ttlkv
// refuses it in update since the first round but explains it.
func TestReviewAccepts2ExplainedUpdateUnknownField(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1}`})
	raCmdErrJSON(t, db, `{"explain": {"update": "c", "updates": [{"q": {}, "u": {"$set": {"x": 1}}}], "multi": true}, "verbosity": "queryPlanner"}`,
		40415, "IDLUnknownField", "BSON field 'update.multi' is an unknown field.")
}

// listDatabases is a strict IDL command whose filter is an object
// (src/mongo/db/commands/list_databases.idl). ttlkv ignores a filter of
// another type and unknown fields, listing every database.
func TestReviewAccepts2ListDatabasesOptions(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1}`})
	for _, tc := range []struct {
		cmd, codeName, frag string
		code                int32
	}{
		{`{"listDatabases": 1, "filter": "test"}`, "TypeMismatch", "BSON field 'listDatabases.filter' is the wrong type 'string', expected type 'object'", 14},
		{`{"listDatabases": 1, "name": "test"}`, "IDLUnknownField", "BSON field 'listDatabases.name' is an unknown field.", 40415},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			raCmdErrDB(t, db, "admin", raParse(t, tc.cmd), tc.code, tc.codeName, tc.frag)
		})
	}
}

// bulkWrite (MongoDB 8.0; 7.0 has it only behind a feature flag and
// answers 59 CommandNotFound) parses with src/mongo/db/commands/
// bulk_write.idl: NamespaceInfoEntry is strict, an op's multi and the
// command's ordered are bool. ttlkv checks the op fields' names but
// not these, and takes 1 or "x" as true.
func TestReviewAccepts2BulkWriteShapes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": 1}`, `{"_id": 2, "a": 1}`})
	for _, tc := range []struct {
		cmd, codeName, frag string
		code                int32
	}{
		{`{"bulkWrite": 1, "ops": [{"insert": 0, "document": {"_id": 5}}], "nsInfo": [{"ns": "test.c", "collation": {"locale": "fr"}}]}`, "IDLUnknownField", "nsInfo.collation' is an unknown field.", 40415},
		{`{"bulkWrite": 1, "ops": [{"update": 0, "filter": {"a": 1}, "updateMods": {"$set": {"b": 1}}, "multi": 1}], "nsInfo": [{"ns": "test.c"}]}`, "TypeMismatch", "BSON field 'bulkWrite.ops.multi' is the wrong type 'int', expected type 'bool'", 14},
		{`{"bulkWrite": 1, "ops": [{"delete": 0, "filter": {"a": 9}, "multi": "true"}], "nsInfo": [{"ns": "test.c"}]}`, "TypeMismatch", "BSON field 'bulkWrite.ops.multi' is the wrong type 'string', expected type 'bool'", 14},
		{`{"bulkWrite": 1, "ops": [{"insert": 0, "document": {"_id": 6}}], "nsInfo": [{"ns": "test.c"}], "ordered": 0}`, "TypeMismatch", "BSON field 'bulkWrite.ordered' is the wrong type 'int', expected type 'bool'", 14},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			raCmdErrDB(t, db, "admin", raParse(t, tc.cmd), tc.code, tc.codeName, tc.frag)
		})
	}
}
