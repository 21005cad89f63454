package mongosh

import (
	"strconv"
	"testing"
)

// TestClientBulkWrite checks Mongo.bulkWrite (mongosh 2.3+, MongoDB
// 8.0's bulkWrite command): operations over several namespaces, the
// counts, the verbose results as Maps, the errors the Node driver
// throws for write errors, for a failed command and for models it
// refuses itself, and an unacknowledged write. The outputs are what
// mongosh 2.12.0 prints against ttlkv serve (the same lines run in
// wire/testdata/mongosh/shell.js).
func TestClientBulkWrite(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	errLine := `catch (e) { print(e.name, "|", e.message, "|", Object.keys(e).join()); if (e.writeErrors) printjson(e.writeErrors); if (e.partialResult) printjson(e.partialResult); if (e.cause) print(e.cause.code, e.cause.message) }`
	plain := func(ins, match, mod, del, ups int) string {
		return "{\n  acknowledged: true,\n  insertedCount: " + strconv.Itoa(ins) + ",\n  matchedCount: " + strconv.Itoa(match) + ",\n  modifiedCount: " + strconv.Itoa(mod) +
			",\n  deletedCount: " + strconv.Itoa(del) + ",\n  upsertedCount: " + strconv.Itoa(ups) + ",\n  insertResults: undefined,\n  updateResults: undefined,\n  deleteResults: undefined\n}"
	}
	cases := []struct{ src, want string }{
		{`const m = db.getMongo(); printjson(m.bulkWrite([
			{ name: "insertOne", namespace: "b1.c", document: { _id: 1, a: 1 } },
			{ name: "updateOne", namespace: "b1.c", filter: { _id: 1 }, update: { $set: { a: 2 } } },
			{ name: "insertOne", namespace: "b2.d", document: { _id: 1 } },
			{ name: "deleteMany", namespace: "b2.d", filter: {} }]))`, plain(2, 1, 1, 1, 0)},
		{`print(db.getSiblingDB("b1").c.findOne(), db.getSiblingDB("b2").d.countDocuments({}))`, "{ _id: 1, a: 2 } 0"},
		// verboseResults: a Map for each kind, keyed by the operation's index.
		{`printjson(m.bulkWrite([
			{ name: "insertOne", namespace: "b1.c", document: { _id: 2 } },
			{ name: "updateOne", namespace: "b1.c", filter: { _id: 9 }, update: { $set: { a: 1 } }, upsert: true },
			{ name: "deleteOne", namespace: "b1.c", filter: { _id: 2 } },
			{ name: "replaceOne", namespace: "b1.c", filter: { _id: 1 }, replacement: { z: 1 } }], { verboseResults: true }))`,
			"{\n  acknowledged: true,\n  insertedCount: 1,\n  matchedCount: 1,\n  modifiedCount: 1,\n  deletedCount: 1,\n  upsertedCount: 1,\n" +
				"  insertResults: Map(1) {\n    0 => {\n      insertedId: 2\n    }\n  },\n" +
				"  updateResults: Map(2) {\n    1 => {\n      matchedCount: 1,\n      modifiedCount: 0,\n      didUpsert: true,\n      upsertedId: 9\n    },\n" +
				"    3 => {\n      matchedCount: 1,\n      modifiedCount: 1,\n      didUpsert: false\n    }\n  },\n" +
				"  deleteResults: Map(1) {\n    2 => {\n      deletedCount: 1\n    }\n  }\n}"},
		// A document without _id gets an ObjectId the result reports.
		{`const r3 = m.bulkWrite([{ name: "insertOne", namespace: "b1.c", document: { q: 1 } }], { verboseResults: 1 }); print(r3.insertResults.get(0).insertedId.equals(db.getSiblingDB("b1").c.findOne({q: 1})._id))`, "true"},
		{`printjson(m.bulkWrite([{ name: "updateMany", namespace: "b1.c", filter: {}, update: [{ $set: { p: 1 } }] }]))`, plain(0, 3, 3, 0, 0)},
		// An ordered write error stops the rest.
		{`try { m.bulkWrite([{ name: "insertOne", namespace: "b1.c", document: { _id: 1 } }, { name: "insertOne", namespace: "b1.c", document: { _id: 7 } }]) } ` + errLine,
			"MongoClientBulkWriteError | Mongo client ordered bulk write encountered a write error. | errorLabelSet,errorResponse,writeConcernErrors,writeErrors,partialResult\n" +
				"Map(1) {\n  0 => {\n    code: 11000,\n    message: 'E11000 duplicate key error collection: b1.c index: _id_ dup key: { _id: 1 }'\n  }\n}\n" +
				"{\n  acknowledged: true,\n  insertedCount: 0,\n  upsertedCount: 0,\n  matchedCount: 0,\n  modifiedCount: 0,\n  deletedCount: 0,\n  insertResults: undefined,\n  updateResults: undefined,\n  deleteResults: undefined\n}"},
		// An unordered one goes on, and its partial result keeps what was done.
		{`try { m.bulkWrite([{ name: "insertOne", namespace: "b1.c", document: { _id: 1 } }, { name: "insertOne", namespace: "b1.c", document: { _id: 8 } }], { ordered: false, verboseResults: true }) } ` + errLine,
			"MongoClientBulkWriteError | Mongo client bulk write encountered errors during execution. | errorLabelSet,errorResponse,writeConcernErrors,writeErrors,partialResult\n" +
				"Map(1) {\n  0 => {\n    code: 11000,\n    message: 'E11000 duplicate key error collection: b1.c index: _id_ dup key: { _id: 1 }'\n  }\n}\n" +
				"{\n  acknowledged: true,\n  insertedCount: 1,\n  upsertedCount: 0,\n  matchedCount: 0,\n  modifiedCount: 0,\n  deletedCount: 0,\n" +
				"  insertResults: Map(1) {\n    1 => {\n      insertedId: 8\n    }\n  },\n  updateResults: Map(0) {},\n  deleteResults: Map(0) {}\n}"},
		{`print(db.getSiblingDB("b1").c.countDocuments({_id: {$in: [7, 8]}}))`, "1"},
		// A command the server refuses: its error is the cause.
		{`try { m.bulkWrite([{ name: "insertOne", namespace: "nodot", document: {} }]) } ` + errLine,
			"MongoClientBulkWriteError | Mongo client bulk write encountered an error during execution | errorLabelSet,errorResponse,writeConcernErrors,writeErrors,cause,partialResult\n" +
				"Map(0) {}\n{\n  acknowledged: true,\n  insertedCount: 0,\n  upsertedCount: 0,\n  matchedCount: 0,\n  modifiedCount: 0,\n  deletedCount: 0,\n  insertResults: undefined,\n  updateResults: undefined,\n  deleteResults: undefined\n}\n" +
				"73 Invalid namespace specified 'nodot'"},
		// What the driver refuses before sending anything.
		{`try { m.bulkWrite([]) } ` + errLine, "MongoClientBulkWriteExecutionError | No client bulk write models were provided. | errorLabelSet"},
		{`try { m.bulkWrite([{ name: "updateOne", namespace: "b1.c", filter: {}, update: { z: 1 } }]) } ` + errLine,
			"MongoAPIError | Client bulk write update models must only contain atomic modifiers (start with $) and must not be empty. | errorLabelSet"},
		{`try { m.bulkWrite([{ name: "replaceOne", namespace: "b1.c", filter: {}, replacement: { $set: { z: 1 } } }]) } ` + errLine,
			"MongoAPIError | Client bulk write replace models must not contain atomic modifiers (start with $) and must not be empty. | errorLabelSet"},
		{`try { m.bulkWrite([{ name: "insertOne", namespace: "b1.c", document: {} }], { writeConcern: { w: 0 } }) } ` + errLine,
			"MongoInvalidArgumentError | Cannot request unacknowledged write concern and ordered writes | errorLabelSet"},
		// Unacknowledged: nothing is counted, but the write is done.
		{`const r4 = m.bulkWrite([{ name: "insertOne", namespace: "b1.c", document: { _id: 20 } }], { ordered: false, writeConcern: { w: 0 } }); print(r4.acknowledged, r4.insertedCount, db.getSiblingDB("b1").c.countDocuments({_id: 20}))`, "false 0 1"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s:\n got %q (%v)\nwant %q", tc.src, got, err, tc.want)
		}
	}
}
