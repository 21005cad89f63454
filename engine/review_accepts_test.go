package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Reviewer's tests of inputs ttlkv accepts and mongod refuses: each is
// an application that works on ttlkv and breaks when it moves to a
// MongoDB deployment. Every test sends what ttlkv takes today and wants
// mongod's answer (its code, code name and a fragment of its message),
// as the mongod source or jstest named beside it gives it. A failing
// test is one such acceptance.

// raParse reads a test command written as Extended JSON.
func raParse(t *testing.T, cmdJSON string) bson.D {
	t.Helper()
	cmd, err := document.ParseExtJSON([]byte(cmdJSON))
	if err != nil {
		t.Fatalf("bad test command %s: %v", cmdJSON, err)
	}
	return cmd
}

// raCmdErr runs cmd and wants it refused as a whole, as mongod does:
// {ok: 0} with code, codeName and a message containing frag.
func raCmdErr(t *testing.T, db *DB, cmd bson.D, code int32, codeName, frag string) {
	t.Helper()
	r, err := db.RunCommand(context.Background(), "test", cmd)
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

// raCmdErrJSON is raCmdErr for a command written as Extended JSON.
func raCmdErrJSON(t *testing.T, db *DB, cmdJSON string, code int32, codeName, frag string) {
	t.Helper()
	raCmdErr(t, db, raParse(t, cmdJSON), code, codeName, frag)
}

// raWriteErr runs a write command and wants what mongod answers for a
// statement it refuses: {ok: 1} with a first write error of code whose
// message contains frag (frag "" checks the code alone).
func raWriteErr(t *testing.T, db *DB, cmd bson.D, code int32, frag string) {
	t.Helper()
	r, err := db.RunCommand(context.Background(), "test", cmd)
	if err != nil {
		t.Fatalf("%s: command error %v; mongod answers with write error %d (%q)", fmtValue(cmd), err, code, frag)
	}
	we, _ := field(r, "writeErrors").(bson.A)
	if len(we) == 0 {
		t.Fatalf("%s: accepted, reply %s; mongod refuses the statement with %d (%q)", fmtValue(cmd), fmtValue(r), code, frag)
	}
	d := we[0].(bson.D)
	msg, _ := field(d, "errmsg").(string)
	if field(d, "code") != code || !strings.Contains(msg, frag) {
		t.Fatalf("%s: write error %v %q, want %d with %q", fmtValue(cmd), field(d, "code"), msg, code, frag)
	}
}

// The write, read and index commands are IDL commands with strict: true
// in mongod (src/mongo/db/ops/write_ops.idl: insert, update, delete,
// findAndModify; src/mongo/db/pipeline/aggregate_command.idl;
// src/mongo/db/query/count_command.idl; src/mongo/db/query/
// distinct_command.idl; src/mongo/db/create_indexes.idl): a field that
// is neither theirs nor a generic argument fails the whole command
// with 40415 "BSON field '<cmd>.<field>' is an unknown field.". ttlkv
// checks find, create, collMod and bulkWrite this way, but ignores such
// a field in the commands below, so an option put at the wrong level
// (multi beside updates, the shell's justOne or returnNewDocument, a
// cursor's batchSize, count's and distinct's query spelled filter, an
// index's unique beside indexes) silently does nothing.
func TestReviewAcceptsUnknownCommandField(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": 1}`, `{"_id": 2, "a": 1}`})
	for _, tc := range []struct{ name, cmd, path string }{
		{"update multi beside updates", `{"update": "c", "updates": [{"q": {"a": 1}, "u": {"$set": {"b": 1}}}], "multi": true}`, "update.multi"},
		{"update upsert beside updates", `{"update": "c", "updates": [{"q": {"a": 9}, "u": {"$set": {"b": 1}}}], "upsert": true}`, "update.upsert"},
		{"delete justOne", `{"delete": "c", "deletes": [{"q": {"a": 7}, "limit": 0}], "justOne": true}`, "delete.justOne"},
		{"insert continueOnError", `{"insert": "c", "documents": [{"_id": 3}], "continueOnError": true}`, "insert.continueOnError"},
		{"findAndModify returnNewDocument", `{"findAndModify": "c", "query": {"_id": 1}, "update": {"$set": {"b": 2}}, "returnNewDocument": true}`, "findAndModify.returnNewDocument"},
		{"aggregate batchSize beside cursor", `{"aggregate": "c", "pipeline": [], "cursor": {}, "batchSize": 1}`, "aggregate.batchSize"},
		{"count filter", `{"count": "c", "filter": {"a": 1}}`, "count.filter"},
		{"distinct filter", `{"distinct": "c", "key": "a", "filter": {"a": 1}}`, "distinct.filter"},
		{"createIndexes unique beside indexes", `{"createIndexes": "c", "indexes": [{"key": {"e": 1}, "name": "e_1"}], "unique": true}`, "createIndexes.unique"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raCmdErrJSON(t, db, tc.cmd, 40415, "IDLUnknownField", "BSON field '"+tc.path+"' is an unknown field.")
		})
	}
}

// mongod refuses a write command with no statements before it runs:
// checkOpCountForCommand in src/mongo/db/ops/write_ops_parsers.cpp,
// 16 InvalidLength "Write batch sizes must be between 1 and 100000.
// Got 0 operations." (an application's insertMany of an empty array
// fails so on MongoDB). ttlkv answers {n: 0, ok: 1}.
func TestReviewAcceptsEmptyWriteBatch(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	for _, cmd := range []string{
		`{"insert": "c", "documents": []}`,
		`{"update": "c", "updates": []}`,
		`{"delete": "c", "deletes": []}`,
	} {
		t.Run(cmd, func(t *testing.T) {
			raCmdErrJSON(t, db, cmd, 16, "InvalidLength", "Write batch sizes must be between 1 and 100000. Got 0 operations.")
		})
	}
}

// An _id that is a document may not hold a $-prefixed field at any
// depth (other than a DBRef's): fixDocumentForInsert calls
// storage_validation::storageValidIdField, which runs
// BSONObj::storageValidEmbedded (src/mongo/db/ops/insert.cpp,
// src/mongo/db/update/storage_validation.cpp, src/mongo/bson/bsonobj.cpp):
// a write error 52 DollarPrefixedFieldName "_id fields may not contain
// '$'-prefixed fields: $oid is not valid for storage.". The common way
// to meet it is an _id of {"$oid": "..."} that reached the server as a
// plain document (JSON decoded into a map, not as Extended JSON).
// ttlkv stores the document with that _id. An upsert's new document is
// checked too (UpsertStage::_assertDocumentToBeInsertedIsValid in
// src/mongo/db/exec/upsert_stage.cpp runs storage_validation::
// scanDocument, which refuses a $-prefixed field directly under _id
// with 52).
func TestReviewAcceptsDollarFieldInID(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	oidDoc := bson.D{{Key: "$oid", Value: "5f1d7e2a9b1e8a3c4d5e6f70"}}
	t.Run("insert _id {$oid: string}", func(t *testing.T) {
		raWriteErr(t, db, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{
			bson.D{{Key: "_id", Value: oidDoc}, {Key: "name", Value: "x"}}}}},
			52, "_id fields may not contain '$'-prefixed fields: $oid is not valid for storage.")
	})
	t.Run("insert _id with a nested $ field", func(t *testing.T) {
		raWriteErr(t, db, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{
			bson.D{{Key: "_id", Value: bson.D{{Key: "k", Value: bson.D{{Key: "$v", Value: int32(1)}}}}}}}}},
			52, "$v is not valid for storage.")
	})
	t.Run("upsert replacement _id {$a: 1}", func(t *testing.T) {
		raWriteErr(t, db, raParse(t, `{"update": "c", "updates": [{"q": {"z": 1}, "u": {"_id": {"$a": 1}}, "upsert": true}]}`), 52, "$a")
	})
	t.Run("embedded InsertOne of decoded JSON", func(t *testing.T) {
		var m map[string]any
		if err := json.Unmarshal([]byte(`{"_id": {"$oid": "5f1d7e2a9b1e8a3c4d5e6f71"}, "name": "y"}`), &m); err != nil {
			t.Fatal(err)
		}
		_, err := db.Database("test").Collection("c").InsertOne(context.Background(), m)
		if err == nil {
			t.Fatalf("InsertOne(%v) accepted; mongod refuses it with 52 DollarPrefixedFieldName", m)
		}
		checkCode(t, "InsertOne", err, document.CodeDollarPrefixedFieldName, "_id fields may not contain '$'-prefixed fields")
	})
}

// The raw createIndexes command must name each index: validateIndexSpec
// in src/mongo/db/catalog/index_key_validate.cpp, 9 FailedToParse "The
// 'name' field is a required property of an index specification" (the
// drivers' helpers make a name before they send the command; mongod
// makes none). ttlkv names the index a_1 itself.
func TestReviewAcceptsIndexSpecWithoutName(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	raCmdErrJSON(t, db, `{"createIndexes": "c", "indexes": [{"key": {"a": 1}}]}`,
		9, "FailedToParse", "The 'name' field is a required property of an index specification")
}

// An _id index spec takes only key, name, v, collation and ns
// (allowedIdIndexFieldNames, validateIdIndexSpec in
// src/mongo/db/catalog/index_key_validate.cpp, called by
// parseAndValidateIndexSpecs in src/mongo/db/commands/
// create_indexes_cmd.cpp): 197 InvalidIndexSpecificationOption "The
// field 'unique' is not valid for an _id index specification" (the
// error ODMs met with {_id: 1} declared unique or background, e.g.
// MongoEngine/mongoengine#1727, prisma/orm#12149). ttlkv answers "all
// indexes already exist".
func TestReviewAcceptsIDIndexOptions(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	for _, opt := range []string{`"unique": true`, `"background": true`} {
		name := strings.SplitN(opt, `"`, 3)[1]
		t.Run(name, func(t *testing.T) {
			raCmdErrJSON(t, db, `{"createIndexes": "c", "indexes": [{"key": {"_id": 1}, "name": "_id_", `+opt+`}]}`,
				197, "InvalidIndexSpecificationOption", "The field '"+name+"' is not valid for an _id index specification")
		})
	}
}

// mongod parses every writeConcern with WriteConcernOptions::parse
// (src/mongo/db/write_concern_options.cpp and .idl: WriteConcernIdl is
// strict): an unknown field (wtimeoutMS is the connection-string
// option's name, the document's is wtimeout) is 40415; j and fsync
// together, a w of the wrong type or a negative w are 9 FailedToParse.
// ttlkv ignores the write concern document.
func TestReviewAcceptsWriteConcernShapes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	for _, tc := range []struct {
		wc       string
		code     int32
		codeName string
		frag     string
	}{
		{`{"w": "majority", "wtimeoutMS": 1000}`, 40415, "IDLUnknownField", "wtimeoutMS' is an unknown field"},
		{`{"w": 1, "j": true, "fsync": true}`, 9, "FailedToParse", "fsync and j options cannot be used together"},
		{`{"w": true}`, 9, "FailedToParse", "w has to be a number, string, or object"},
		{`{"w": -1}`, 9, "FailedToParse", "w has to be a non-negative number"},
	} {
		t.Run(tc.wc, func(t *testing.T) {
			raCmdErrJSON(t, db, `{"insert": "c", "documents": [{"x": 1}], "writeConcern": `+tc.wc+`}`, tc.code, tc.codeName, tc.frag)
		})
	}
}

// maxTimeMS is parsed for every command (parseMaxTimeMS in
// src/mongo/db/query/max_time_ms_parser.cpp, from
// src/mongo/db/service_entry_point_common.cpp and the find and count
// IDL): not a
// number, negative, over 2^31-1 or a non-integral double is 2 BadValue.
// ttlkv uses a positive whole maxTimeMS and ignores any other value.
func TestReviewAcceptsBadMaxTimeMS(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	for _, tc := range []struct{ cmd, frag string }{
		{`{"find": "c", "maxTimeMS": -1}`, "-1 value for maxTimeMS is out of range"},
		{`{"find": "c", "maxTimeMS": 1500.5}`, "maxTimeMS has non-integral value"},
		{`{"find": "c", "maxTimeMS": 3000000000}`, "value for maxTimeMS is out of range"},
		{`{"count": "c", "maxTimeMS": "100"}`, "maxTimeMS must be a number"},
		{`{"insert": "c", "documents": [{"x": 1}], "maxTimeMS": -5}`, "-5 value for maxTimeMS is out of range"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			raCmdErrJSON(t, db, tc.cmd, 2, "BadValue", tc.frag)
		})
	}
}

// findAndModify's validate (src/mongo/db/commands/find_and_modify.cpp;
// jstests/core/write/find_and_modify/find_and_modify_invalid_query_params.js
// runs each) refuses remove: true beside new: true or upsert: true with
// 9 FailedToParse. ttlkv removes the document and ignores the other
// option.
func TestReviewAcceptsFindAndModifyRemoveCombos(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": [1]}`, `{"_id": 2, "a": [1]}`})
	for _, tc := range []struct{ cmd, frag string }{
		{`{"findAndModify": "c", "query": {"_id": 1}, "remove": true, "new": true}`, "Cannot specify both new=true and remove=true"},
		{`{"findAndModify": "c", "query": {"_id": 2}, "remove": true, "upsert": true}`, "Cannot specify both upsert=true and remove=true"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			raCmdErrJSON(t, db, tc.cmd, 9, "FailedToParse", tc.frag)
		})
	}
}

// validateKeyPattern and validateIndexSpec (src/mongo/db/catalog/
// index_key_validate.cpp) refuse a key path with an empty component or
// a $-prefixed one (other than a DBRef's $id/$ref/$db and a wildcard's
// trailing $**), a key on _fts outside a text index (67
// CannotCreateIndex), and a field named twice in the key pattern (2
// BadValue). ttlkv builds each index.
func TestReviewAcceptsBadIndexKeyPaths(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	for i, tc := range []struct {
		key  string
		code int32
		name string
		frag string
	}{
		{`{"a..b": 1}`, 67, "CannotCreateIndex", "Index keys cannot contain an empty field."},
		{`{"a.$b": 1}`, 67, "CannotCreateIndex", "Index key contains an illegal field name: field name starts with '$'."},
		{`{"_fts": 1}`, 67, "CannotCreateIndex", "Index key contains an illegal field name: '_fts'"},
	} {
		t.Run(tc.key, func(t *testing.T) {
			raCmdErrJSON(t, db, fmt.Sprintf(`{"createIndexes": "c", "indexes": [{"key": %s, "name": "k%d"}]}`, tc.key, i), tc.code, tc.name, tc.frag)
		})
	}
	t.Run("a field twice", func(t *testing.T) {
		key := bson.D{{Key: "a", Value: int32(1)}, {Key: "a", Value: int32(-1)}}
		raCmdErr(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
			bson.D{{Key: "key", Value: key}, {Key: "name", Value: "a_twice"}}}}},
			2, "BadValue", "The field 'a' appears multiple times in the index key pattern")
	})
}

// Index spec fields of the wrong type or value that mongod refuses:
// validateIndexSpec (src/mongo/db/catalog/index_key_validate.cpp: hidden
// must be a bool, background one of the bool-convertible types, the
// geo options numbers, v 1 or 2, collation needs v 2), _isSpecOk
// (src/mongo/db/catalog/index_catalog_impl.cpp: storageEngine a
// document, no NUL in the name) and parseAndValidateIndexSpecs
// (src/mongo/db/commands/create_indexes_cmd.cpp: the name '*'). ttlkv
// builds each index.
func TestReviewAcceptsBadIndexOptionValues(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	for i, tc := range []struct {
		spec string
		code int32
		name string
		frag string
	}{
		{`"hidden": 1`, 14, "TypeMismatch", "must be a bool"},
		{`"background": "yes"`, 14, "TypeMismatch", "which is not convertible to bool"},
		{`"2dsphereIndexVersion": "3"`, 14, "TypeMismatch", "The field '2dsphereIndexVersion' must be a number"},
		{`"bits": "26"`, 14, "TypeMismatch", "The field 'bits' must be a number"},
		{`"v": 3`, 67, "CannotCreateIndex", "cannot create an index with v=3"},
		{`"v": 0`, 67, "CannotCreateIndex", "cannot create an index with v=0"},
		{`"v": 1, "collation": {"locale": "fr"}`, 67, "CannotCreateIndex", "cannot create an index with the 'collation' option and v=1"},
		{`"storageEngine": 1`, 67, "CannotCreateIndex", `"storageEngine" options must be a document if present`},
		{`"storageEngine": {}`, 67, "CannotCreateIndex", `Empty "storageEngine" options are invalid.`},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			raCmdErrJSON(t, db, fmt.Sprintf(`{"createIndexes": "c", "indexes": [{"key": {"f%d": 1}, "name": "f%d", %s}]}`, i, i, tc.spec),
				tc.code, tc.name, tc.frag)
		})
	}
	t.Run("name *", func(t *testing.T) {
		raCmdErrJSON(t, db, `{"createIndexes": "c", "indexes": [{"key": {"star": 1}, "name": "*"}]}`,
			2, "BadValue", "The index name '*' is not valid.")
	})
	t.Run("name with NUL", func(t *testing.T) {
		raCmdErr(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
			bson.D{{Key: "key", Value: bson.D{{Key: "nul", Value: int32(1)}}}, {Key: "name", Value: "a\x00b"}}}}},
			67, "CannotCreateIndex", "index name cannot contain NUL bytes")
	})
}

// Aggregation paths with a positional $: $project refuses find's
// positional projection (src/mongo/db/query/projection_parser.cpp,
// uassert 31324 "Cannot use positional projection in aggregation
// projection"), and $set's field path "a.$" fails
// FieldPath::uassertValidFieldName (src/mongo/db/pipeline/
// field_path.cpp, 16410 "FieldPath field names may not start with
// '$'"). ttlkv runs the
// first as a projection of arr and the second writes a field named
// "$" into every document.
func TestReviewAcceptsAggregationPositionalPaths(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": 1, "arr": [1, 2]}`})
	t.Run("$project arr.$", func(t *testing.T) {
		raCmdErrJSON(t, db, `{"aggregate": "c", "pipeline": [{"$project": {"arr.$": 1}}], "cursor": {}}`,
			31324, "Location31324", "Cannot use positional projection in aggregation projection")
	})
	t.Run("$set a.$", func(t *testing.T) {
		raCmdErrJSON(t, db, `{"aggregate": "c", "pipeline": [{"$set": {"a.$": 1}}], "cursor": {}}`,
			16410, "Location16410", "FieldPath field names may not start with '$'")
	})
}

// A collection without an _id index may not be created outside the
// local database: DatabaseImpl::createCollection
// (src/mongo/db/catalog/database_impl.cpp, and database_test.cpp's test
// of it) uasserts 50001 "autoIndexId:false is not allowed for
// collection ... because it can be replicated" for any replicated
// namespace, which every user collection is. ttlkv creates it.
func TestReviewAcceptsAutoIndexIDFalse(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	raCmdErrJSON(t, db, `{"create": "logs", "capped": true, "size": 4096, "autoIndexId": false}`,
		50001, "Location50001", "autoIndexId:false is not allowed for collection")
}

// The write commands' boolean options are IDL type bool
// (src/mongo/db/ops/write_ops.idl: ordered, and an update statement's
// multi and upsert): a number fails the command with 14 TypeMismatch
// "BSON field 'insert.ordered' is the wrong type 'int', expected type
// 'bool'". ttlkv takes 1 as true.
func TestReviewAcceptsNumericWriteBools(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": 1}`})
	for _, tc := range []struct{ cmd, frag string }{
		{`{"insert": "c", "documents": [{"_id": 2}], "ordered": 1}`, "BSON field 'insert.ordered' is the wrong type 'int', expected type 'bool'"},
		{`{"update": "c", "updates": [{"q": {"a": 1}, "u": {"$set": {"b": 1}}, "multi": 1}]}`, "BSON field 'update.updates.multi' is the wrong type 'int', expected type 'bool'"},
		{`{"update": "c", "updates": [{"q": {"a": 5}, "u": {"$set": {"b": 1}}, "upsert": 1}]}`, "BSON field 'update.updates.upsert' is the wrong type 'int', expected type 'bool'"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			raCmdErrJSON(t, db, tc.cmd, 14, "TypeMismatch", tc.frag)
		})
	}
}
