package mongosh

import "testing"

// TestDistinct checks db.c.distinct(key, query) on the engine's distinct
// command: values unwound from arrays, deduplicated across numeric
// types, in BSON order, filtered by the query.
func TestDistinct(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	if _, err := eval(t, s, out, `db.c.insertMany([{a: 2}, {a: [1, 2]}, {a: NumberLong(1)}, {a: "x"}, {b: 1}])`); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ src, want string }{
		{`JSON.stringify(db.c.distinct("a"))`, `[1,2,"x"]`},
		{`JSON.stringify(db.c.distinct("a", {a: {$type: "string"}}))`, `["x"]`},
		{`JSON.stringify(db.c.distinct("zz"))`, `[]`},
		{`JSON.stringify(db.nosuch.distinct("a"))`, `[]`},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
}

// TestRenameCollectionMethod checks db.c.renameCollection(to, dropTarget)
// on the engine's renameCollection admin command.
func TestRenameCollectionMethod(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	cases := []struct{ src, want string }{
		{`db.a.insertMany([{_id: 1}, {_id: 2}]); db.b.insertOne({_id: 9}); db.a.renameCollection("c").ok`, "1"},
		{`db.getCollectionNames().join()`, "b,c"},
		{`try { db.c.renameCollection("b") } catch (e) { print(e.code, e.codeName) }`, "48 NamespaceExists"},
		{`db.c.renameCollection("b", true).ok + " " + db.b.countDocuments() + " " + db.getCollectionNames().join()`, "1 2 b"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
}

// TestAggregateMethod checks db.c.aggregate(pipeline, options) on the
// engine's aggregate command, its cursor drained by getMore, and that
// wrong arguments are the shell's own errors.
func TestAggregateMethod(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	if _, err := eval(t, s, out, `for (let i = 0; i < 250; i++) db.c.insertOne({_id: i, g: i % 2})`); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ src, want string }{
		{`JSON.stringify(db.c.aggregate([{$group: {_id: "$g", n: {$sum: 1}}}, {$sort: {_id: 1}}]).toArray())`, `[{"_id":0,"n":125},{"_id":1,"n":125}]`},
		{`db.c.aggregate([{$match: {g: 1}}]).toArray().length`, "125"},
		{`db.c.aggregate([{$project: {_id: 1}}], {cursor: {batchSize: 10}}).toArray().length`, "250"},
		{`try { db.c.aggregate([{$bogus: 1}]) } catch (e) { print(e.code, e.codeName) }`, "40324 Location40324"},
		{`try { db.c.aggregate({}).toArray() } catch (e) { print(e.name, e.code) }`, "MongoServerError 40323"},
		{`try { db.c.aggregate([]).limit(1) } catch (e) { print(e.name) }`, "MongoshInvalidInputError"},
		{`let n = 0; db.c.aggregate([{$match: {_id: {$lt: 3}}}]).forEach(d => n += d._id); n`, "3"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
}

// TestErrorCodeNames checks that errors a mongosh user commonly hits
// carry MongoDB's code names, not "Location<code>": getParameter run
// against the current database instead of admin; a write error (conflicting
// update operators) has its code and, as from mongod, no code name.
func TestErrorCodeNames(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	cases := []struct{ src, want string }{
		{`try { db.runCommand({getParameter: 1, ttlMonitorSleepSecs: 1}) } catch (e) { print(e.code, e.codeName) }`, "13 Unauthorized"},
		{`try { db.runCommand({setParameter: 1, ttlMonitorSleepSecs: 5}) } catch (e) { print(e.code, e.codeName) }`, "13 Unauthorized"},
		// A write error: mongod's carries no codeName, so the driver's
		// error has none.
		{`db.c.insertOne({_id: 1}); try { db.c.updateOne({_id: 1}, {$set: {a: 1}, $inc: {a: 1}}) } catch (e) { print(e.code, String(e.codeName)) }`, "40 undefined"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
}

// TestHideIndex checks mongosh's hideIndex and unhideIndex helpers: by
// name or key pattern, replying collMod's hidden_old/hidden_new, and
// listed by getIndexes; a missing index is IndexNotFound.
func TestHideIndex(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	cases := []struct{ src, want string }{
		{`db.c.createIndex({at: 1}, {expireAfterSeconds: 60})`, "at_1"},
		{`db.c.hideIndex("at_1")`, "{ hidden_old: false, hidden_new: true, ok: 1 }"},
		{`db.c.getIndexes()[1].hidden + " " + db.c.getIndexes()[1].expireAfterSeconds`, "true 60"},
		{`db.c.unhideIndex({at: 1})`, "{ hidden_old: true, hidden_new: false, ok: 1 }"},
		{`db.c.getIndexes()[1].hidden === undefined`, "true"},
		{`try { db.c.hideIndex("nope") } catch (e) { print(e.codeName) }`, "IndexNotFound"},
		{`try { db.c.hideIndex(5) } catch (e) { print(e.name) }`, "MongoshInvalidInputError"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
}

// TestCurrentOpArguments checks db.currentOp's forms: none, true
// (mongosh's {$all: true}) and a filter document.
func TestCurrentOpArguments(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	cases := []struct{ src, want string }{
		{`db.currentOp().inprog.length`, "0"},
		{`db.currentOp(true).inprog.length`, "0"},
		{`db.currentOp({desc: "TTLMonitor"}).ok`, "1"},
		{`try { db.currentOp({ns: {$bogus: 1}}) } catch (e) { print(e.codeName) }`, "BadValue"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
}
