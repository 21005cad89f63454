package mongosh

import "testing"

// TestCursorAsMongosh checks a find cursor's methods against what
// mongosh 2.12.0 (and the Node driver under it) answers: count() applies
// skip and limit, next() past the end is null, a closed cursor is closed,
// for...of iterates, sort takes pairs and names, and bad arguments are
// the driver's errors.
func TestCursorAsMongosh(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	if _, err := eval(t, s, out, `db.c.insertMany([{_id: 1, v: 1}, {_id: 2, v: 2}, {_id: 3, v: 0}, {_id: 4, v: 1}, {_id: 5, v: 2}])`); err != nil {
		t.Fatal(err)
	}
	const catch = `; } catch (e) { print(e.name, e.code, e.message) }`
	cases := []struct{ src, want string }{
		{`print(db.c.find().skip(1).limit(3).count(), db.c.find().skip(1).limit(3).size(), db.c.find().limit(2).count(false))`, "3 3 2"},
		{`print(db.c.find({_id: 99}).next())`, "null"},
		{`const c1 = db.c.find().sort({_id: 1}); c1.close(); print(c1.isClosed(), c1.hasNext(), c1.next())`, "true false null"},
		{`const c2 = db.c.find().batchSize(2); c2.next(); c2.close(); try { c2.next()` + catch, "MongoCursorExhaustedError  Cursor is exhausted"},
		{`const a = []; for (const x of db.c.find({_id: {$lt: 3}}).sort({_id: 1})) a.push(x._id); print(a)`, "[ 1, 2 ]"},
		{`print(db.c.find().sort([["_id", -1]]).toArray().map(x => x._id))`, "[ 5, 4, 3, 2, 1 ]"},
		{`print(db.c.find().sort("v").toArray().map(x => x._id))`, "[ 3, 1, 4, 2, 5 ]"},
		{`print(db.c.find({}, {}, {sort: [["_id", -1]], limit: 2}).toArray().map(x => x._id))`, "[ 5, 4 ]"},
		{`try { db.c.find().limit("2").toArray()` + catch, `MongoInvalidArgumentError  Operation "limit" requires an integer`},
		{`try { db.c.find().skip(-2).toArray()` + catch, "MongoServerError 51024 BSON field 'skip' value must be >= 0, actual value '-2'"},
		{`try { db.c.find().maxTimeMS("x")` + catch, "MongoInvalidArgumentError  Argument for maxTimeMS must be a number"},
		{`try { db.c.find().allowDiskUse(false)` + catch, `MongoInvalidArgumentError  Option "allowDiskUse" requires a sort specification`},
		{`print(db.c.find().sort({_id: -1}).allowDiskUse().limit(1).toArray())`, "[ { _id: 5, v: 2 } ]"},
		// A shell method prints with its own name, not goja's Go one.
		{`print(db.c.find().limit, db.c.watch, db.getName, print, console.log, db.getMongo().getDB)`,
			"[Function: limit] [Function: watch] [Function: getName] [Function: print] [Function: log] [Function: getDB]"},
		{`try { db.c.find().readPref("bogus")` + catch, `MongoInvalidArgumentError  Invalid read preference mode "bogus"`},
		{`try { const c3 = db.c.find(); c3.next(); c3.limit(1)` + catch, "MongoCursorInUseError  Cursor is already initialized"},
		// An explained find reads documents; printed or finish()ed, it is the plan.
		{`const x = db.c.explain("executionStats").find().sort({_id: -1}); print(x.next(), x.toArray().length, Object.keys(db.c.explain().find().finish()))`,
			"{ _id: 5, v: 2 } 4 [\n  'explainVersion',\n  'queryPlanner',\n  'command',\n  'serverInfo',\n  'serverParameters',\n  'ok'\n]"},
		{`try { db.c.aggregate([]).limit(1)` + catch, "MongoshInvalidInputError  cursor.limit() is not available on an aggregation cursor; put the stage in the pipeline"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
}
