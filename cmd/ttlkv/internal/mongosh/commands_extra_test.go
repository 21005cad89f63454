package mongosh

import "testing"

// TestDistinct checks db.c.distinct(key, query) on the engine's distinct
// command: values unwound from arrays, deduplicated across numeric
// types, in BSON order, filtered by the query.
func TestDistinct(t *testing.T) {
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
