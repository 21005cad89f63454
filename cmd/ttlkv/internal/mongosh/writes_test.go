package mongosh

import "testing"

// TestWritesAsMongosh checks write results and refusals against what
// mongosh 2.12.0 printed for the same code: an unacknowledged write
// (w: 0), the legacy insert() and update(), the driver's refusals of
// empty or malformed batches, and the Bulk API's printing and errors.
func TestWritesAsMongosh(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	const catch = `; } catch (e) { print(e.name, e.code, e.message) }`
	cases := []struct{ src, want string }{
		{`print(db.w.insertOne({_id: 100}, {writeConcern: {w: 0}}))`, "{ acknowledged: false, insertedId: 100 }"},
		{`print(db.w.insertMany([{_id: 101}], {writeConcern: {w: 0}}))`, "{ acknowledged: false, insertedIds: { '0': 101 } }"},
		{`print(db.w.deleteOne({_id: 100}, {writeConcern: {w: 0}}))`, "{ acknowledged: false, deletedCount: undefined }"},
		{`print(db.w.updateOne({_id: 101}, {$set: {a: 1}}, {writeConcern: {w: 0}}))`,
			"{\n  acknowledged: false,\n  insertedId: null,\n  matchedCount: undefined,\n  modifiedCount: undefined,\n  upsertedCount: 0\n}"},
		{`print(db.w.find().toArray())`, "[ { _id: 101, a: 1 } ]"},
		// What is not a document is spread as mongosh's {...doc} spreads
		// it: a string into its characters, a number, a boolean or a
		// Date into nothing.
		{`db.sp.insertOne(5); db.sp.insertOne("ab"); db.sp.insertMany([true, new Date(0), "c", [7]]); print(db.sp.find({}, {_id: 0}).toArray())`,
			"[ {}, { '0': 'a', '1': 'b' }, {}, {}, { '0': 'c' }, { '0': 7 } ]"},
		{`print(db.ins.insert({_id: 1}))`, "DeprecationWarning: Collection.insert() is deprecated. Use insertOne, insertMany, or bulkWrite.\n{ acknowledged: true, insertedIds: { '0': 1 } }"},
		{`try { db.ins.insert({_id: 1})` + catch, "MongoBulkWriteError 11000 E11000 duplicate key error collection: test.ins index: _id_ dup key: { _id: 1 }"},
		{`db.upd.insertOne({_id: 1, a: 1}); try { db.upd.update({_id: 1}, {q: 3})` + catch,
			"DeprecationWarning: Collection.update() is deprecated. Use updateOne, updateMany, or bulkWrite.\nMongoInvalidArgumentError  Update document requires atomic operators"},
		{`print(db.upd.update({_id: 52}, {$set: {q: 3}}, true).upsertedCount, db.upd.find().toArray())`, "0 [ { _id: 1, a: 1 } ]"},
		{`try { db.upd.update({_id: 1})` + catch, "MongoshInvalidInputError COMMON-10001 [COMMON-10001] Missing required argument at position 1 (Collection.update)"},
		{`try { db.c.insertMany([])` + catch, "MongoInvalidArgumentError  Invalid BulkOperation, Batch cannot be empty"},
		{`try { db.c.bulkWrite([])` + catch, "MongoInvalidArgumentError  Invalid BulkOperation, Batch cannot be empty"},
		{`try { db.c.insertMany({_id: 6})` + catch, `MongoInvalidArgumentError  Argument "docs" must be an array of documents`},
		{`try { db.c.bulkWrite({insertOne: {document: {}}})` + catch, `MongoInvalidArgumentError  Argument "operations" must be an array of documents`},
		{`try { db.c.bulkWrite([{nosuch: {}}])` + catch, "MongoInvalidArgumentError  bulkWrite only supports insertOne, updateOne, updateMany, deleteOne, deleteMany"},
		{`const b = db.bulk.initializeOrderedBulkOp(); b.insert({_id: 1}); b.find({}).remove(); b.insert({_id: 2}); print(b.toString()); print(b)`,
			"{\"nInsertOps\":2,\"nUpdateOps\":0,\"nRemoveOps\":1,\"nBatches\":3}\n{ nInsertOps: 2, nUpdateOps: 0, nRemoveOps: 1, nBatches: 3 }"},
		{`const u = db.bulk.initializeUnorderedBulkOp(); u.insert({}); u.find({}).remove(); u.insert({}); print(u.toJSON().nBatches)`, "2"},
		{`try { b.getOperations()` + catch, "MongoshInvalidInputError COMMON-10002 [COMMON-10002] Cannot call getOperations on an unexecuted Bulk operation"},
		{`try { db.bulk.initializeOrderedBulkOp().execute()` + catch, "MongoInvalidArgumentError  Invalid BulkOperation, Batch cannot be empty"},
		{`b.execute(); try { b.execute()` + catch, "MongoBatchReExecutionError  This batch has already been executed, create new batch to execute"},
		{`db.b2.insertOne({_id: 1, a: [0]}); const b2 = db.b2.initializeOrderedBulkOp();
		  b2.find({_id: 1}).collation({locale: "en"}).updateOne({$set: {c: 1}});
		  b2.find({_id: 1}).arrayFilters([{x: 0}]).updateOne({$set: {"a.$[x]": 1}});
		  b2.find({_id: 1}).hint({_id: 1}).updateOne({$set: {c: 3}});
		  print(b2.execute().modifiedCount, db.b2.find().toArray())`, "3 [ { _id: 1, a: [ 1 ], c: 3 } ]"},
		{`print(db.c.explain()); print(db.c.getPlanCache())`, "Explainable(test.c)\nPlanCache for collection c."},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
}
