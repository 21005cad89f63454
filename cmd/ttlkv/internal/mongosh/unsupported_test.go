package mongosh

import (
	"testing"
)

// TestUnsupportedCommands checks that the methods whose commands the
// engine lacks throw a catchable 59 CommandNotFound naming the method and
// what to use instead, and leave the data as it was.
func TestUnsupportedCommands(t *testing.T) {
	s, out, _ := testShell(t, Options{})
	if _, err := eval(t, s, out, `db.c.insertMany([{_id: 1, a: 1}, {_id: 2, a: 2}, {_id: 3, a: 2}])`); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ src, want string }{
		{`db.c.aggregate([{$match: {a: 2}}])`, "59 CommandNotFound test.c.aggregate() is not supported: the ttlkv engine has no \"aggregate\" command; use find() with a filter, sort, skip, limit and projection, or countDocuments()\n"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, `try { `+tc.src+`; print("no error") } catch (e) { print(e.code, e.codeName, e.message) }`)
		if err != nil || got != tc.want {
			t.Errorf("%s:\n got %q (%v)\nwant %q", tc.src, got, err, tc.want)
		}
	}
	// Wrong arguments are still the shell's own errors, not 59.
	if got, _ := eval(t, s, out, `try { db.c.aggregate({}) } catch (e) { print(e.name) }`); got != "MongoshInvalidInputError\n" {
		t.Errorf("aggregate({}): %q", got)
	}
	if got, _ := eval(t, s, out, `db.getCollectionNames().join() + " " + db.c.countDocuments()`); got != "c 3\n" {
		t.Errorf("after the failures: %q, want the collection unchanged", got)
	}
}

// TestCountDocuments checks countDocuments(filter, options) against the
// count command's query, skip and limit, on ordinary, capped and
// time-series collections.
func TestCountDocuments(t *testing.T) {
	s, out, _ := testShell(t, Options{})
	setup := `db.c.insertMany([{a: 1}, {a: 2}, {a: 2}, {a: 3}, {a: 4}]);
db.createCollection("cap", {capped: true, size: 4096, max: 3});
for (let i = 0; i < 5; i++) db.cap.insertOne({i});
db.createCollection("ts", {timeseries: {timeField: "t", metaField: "m"}});
db.ts.insertMany([1, 2, 3, 4].map(i => ({t: new Date(i * 1000), m: i % 2, v: i})))`
	if _, err := eval(t, s, out, setup); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ src, want string }{
		{`db.c.countDocuments()`, "5"},
		{`db.c.countDocuments({})`, "5"},
		{`db.c.countDocuments({a: {$gte: 2}})`, "4"},
		{`db.c.countDocuments({a: {$gte: 2}}, {skip: 1})`, "3"},
		{`db.c.countDocuments({a: {$gte: 2}}, {limit: 2})`, "2"},
		{`db.c.countDocuments({a: {$gte: 2}}, {skip: 3, limit: 5})`, "1"},
		{`db.c.countDocuments({a: {$gte: 2}}, {skip: 10})`, "0"},
		{`db.nosuch.countDocuments()`, "0"},
		{`db.cap.countDocuments()`, "3"},
		{`db.cap.countDocuments({i: {$lt: 3}})`, "1"},
		{`db.ts.countDocuments()`, "4"},
		{`db.ts.countDocuments({m: 1})`, "2"},
		{`db.ts.countDocuments({t: {$gt: new Date(2500)}}, {limit: 1})`, "1"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %s", tc.src, got, err, tc.want)
		}
	}
	if got, _ := eval(t, s, out, `try { db.c.countDocuments({}, {skip: -1}) } catch (e) { print(e.codeName) }`); got == "" || got == "5\n" {
		t.Errorf("negative skip: %q, want an error", got)
	}
}
