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
