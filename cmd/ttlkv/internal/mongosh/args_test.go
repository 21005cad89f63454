package mongosh

import "testing"

// TestArgumentsAsMongosh checks how methods take and refuse their
// arguments, against what mongosh 2.12.0 printed: the shell's own
// refusals (with their code and method), names it cannot use, what the
// driver refuses, what it passes on for the server to refuse, and the
// legacy argument forms it takes.
func TestArgumentsAsMongosh(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	if _, err := eval(t, s, out, `db.c.insertMany([{_id: 1, v: 1}, {_id: 2, v: 2}, {_id: 3, v: 0}])`); err != nil {
		t.Fatal(err)
	}
	const catch = `; } catch (e) { print(e.name, e.code, e.message) }`
	bad := "MongoshInvalidInputError COMMON-10001 [COMMON-10001] "
	cases := []struct{ src, want string }{
		{`try { db.runCommand(5)` + catch, bad + "Argument at position 0 must be of type string or object, got number instead (Database.runCommand)"},
		{`try { db.getCollection(5)` + catch, bad + "Argument at position 0 must be of type string, got number instead (Database.getColl)"},
		{`try { db.createCollection(5)` + catch, bad + "Argument at position 0 must be of type string, got number instead (Database.createCollection)"},
		{`try { db.c.renameCollection(5)` + catch, bad + "Argument at position 0 must be of type string, got number instead (Collection.renameCollection)"},
		{`try { db.getSiblingDB(5)` + catch, bad + "Argument at position 0 must be of type string, got number instead (Database.getSiblingDB)"},
		{`try { use(5)` + catch, bad + "Argument at position 0 must be of type string, got number instead (Mongo.use)"},
		{`try { db.createView("v", 5, [])` + catch, bad + "Argument at position 1 must be of type string, got number instead (Database.createView)"},
		{`try { db.c.dropIndex()` + catch, bad + "Missing required argument at position 0 (Collection.dropIndex)"},
		{`try { db.c.createIndex({z: 1}, "x")` + catch, bad + `The "options" argument must be an object.`},
		{`try { db.c.dropIndex("*")` + catch, bad + "To drop indexes in the collection using '*', use db.collection.dropIndexes()."},
		{`try { db.getSiblingDB("a.b")` + catch, bad + "Invalid database name: a.b"},
		{`try { db.getCollection("")` + catch, bad + "Invalid collection name: "},
		{`try { db.c.findOneAndUpdate({_id: 1}, {$set: {k: 1}}, {returnDocument: "bogus"})` + catch, bad + "returnDocument needs to be either 'before' or 'after'"},
		{`try { db.c.find(5).toArray()` + catch, "MongoInvalidArgumentError  Query filter must be a plain object or ObjectId"},
		{`print(db.c.find({}, {v: 0}).limit(1).toArray())`, "[ { _id: 1 } ]"},
		{`try { db.c.find({}, 5).toArray()` + catch, "MongoServerError 14 BSON field 'find.projection' is the wrong type 'int', expected type 'object'"},
		{`try { db.c.updateOne("x", {$set: {a: 1}})` + catch, "MongoInvalidArgumentError  Selector must be a valid JavaScript object"},
		{`try { db.c.updateOne({}, 5)` + catch, "MongoInvalidArgumentError  Document must be a valid JavaScript object"},
		{`try { db.c.deleteOne("x")` + catch, "MongoServerError 14 BSON field 'delete.deletes.q' is the wrong type 'string', expected type 'object'"},
		{`try { db.c.distinct(5)` + catch, "MongoServerError 14 BSON field 'distinct.key' is the wrong type 'int', expected type 'string'"},
		{`try { db.c.countDocuments(5)` + catch, "MongoServerError 15959 the match filter must be an expression in an object"},
		{`print(db.c.countDocuments({v: {$gt: 0}}), db.c.countDocuments({}, {skip: 1, limit: 1}), db.nosuch.countDocuments())`, "2 1 0"},
		{`try { db.c.aggregate("x").toArray()` + catch, "MongoServerError 14 Each element of the 'pipeline' array must be an object"},
		{`print(db.c.aggregate({$match: {}}, {$count: "n"}).toArray(), db.c.aggregate().toArray().length)`, "[ { n: 3 } ] 3"},
		{`print(db.c.ensureIndex({e: 1}))`, "[ 'e_1' ]"},
		{`try { db.nosuch.isCapped()` + catch, "MongoshRuntimeError  collection test.nosuch not found"},
		{`print(db.getCollectionInfos({name: "c"}, true, true).map(x => x.name), db.c.runCommand({count: "c"}))`, "[ 'c' ] { n: 3, ok: 1 }"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
}
