package main

import (
	"strings"
	"testing"
)

// TestReviewShell26 holds what a review against the real mongosh 2.12.0
// found, with what mongosh prints for each: an object without a
// prototype crashed the printer (a Go nil dereference, uncatchable in
// the script), and a function or a Map in a document was lost on insert.
func TestReviewShell26(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ src, want string }{
		{`print(Object.create(null))`, "[Object: null prototype] {}\n"},
		{`({__proto__: null, a: 1})`, "[Object: null prototype] { a: 1 }\n"},
		{`db.vals.insertOne({ _id: 1, f: function() {}, m: new Map([["a", 1]]) }); print(db.vals.findOne({ _id: 1 }))`,
			"{ _id: 1, f: Code('function() {}'), m: { a: 1 } }\n"},
	} {
		out, errOut, code := cli(t, nil, dir, "", "eval", c.src)
		if code != 0 || out != c.want {
			t.Errorf("%s\n exit %d stdout %q stderr %q, want %q", c.src, code, out, strings.TrimSpace(errOut), c.want)
		}
	}
}
