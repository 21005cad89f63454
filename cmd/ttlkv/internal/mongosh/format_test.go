package mongosh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormatLikeMongosh: print and printjson lay values out as mongosh
// 2.12.0 does (Node's util.inspect with mongosh's options): printjson in
// full with every object on lines of its own; print with objects on one
// line when they fit 80 columns and hold at most two levels below, long
// arrays of short values in aligned columns, and nesting past six levels
// abbreviated. testdata/format.out is the real mongosh's output for
// testdata/format.js (testdata/record-format.sh records it again).
func TestFormatLikeMongosh(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("testdata", "format.js"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "format.out"))
	if err != nil {
		t.Fatal(err)
	}
	s, out, _ := testShell(t, Options{})
	got, err := eval(t, s, out, string(src))
	if err != nil {
		t.Fatalf("format.js: %v", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("line %d differs from mongosh's:\n got: %q\nwant: %q", i+1, g, w)
			}
		}
	}
}

// TestSyntaxErrorsLikeMongosh: code that does not parse is reported as
// mongosh 2.12.0 reports it (its parser's words for the common cases,
// the position with the column from 0, and the code frame around it);
// each want is what that mongosh printed for the same code.
func TestSyntaxErrorsLikeMongosh(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ src, want string }{
		{"var x = ;", "SyntaxError: Unexpected token (1:8)\n\n> 1 | var x = ;\n    |         ^"},
		{`print("a`, "SyntaxError: Unterminated string constant. (1:6)\n\n> 1 | print(\"a\n    |       ^"},
		{"foo bar", "SyntaxError: Missing semicolon. (1:3)\n\n> 1 | foo bar\n    |    ^"},
		{"db.c.find(", "SyntaxError: Unexpected token (1:10)\n\n> 1 | db.c.find(\n    |           ^"},
		{"var 1x = 2", "SyntaxError: Identifier directly after number. (1:5)\n\n> 1 | var 1x = 2\n    |      ^"},
		{"if (x) {", "SyntaxError: Unexpected token (1:8)\n\n> 1 | if (x) {\n    |         ^"},
		// One input declaring a name twice (top-level let and const are
		// var ones only across inputs).
		{"let w = 1;\nconst w = 2", "SyntaxError: Identifier 'w' has already been declared. (2:6)\n\n  1 | let w = 1;\n> 2 | const w = 2\n    |       ^"},
		{"var v = 1; let v = 2", "SyntaxError: Identifier 'v' has already been declared. (1:15)\n\n> 1 | var v = 1; let v = 2\n    |                ^"},
		{"var a = 1;\nvar b = 2;\nvar c = 3;\nvar d = (;\nvar e = 5;\nvar f = 6;\nvar g = 7;\nvar h = 8;\n",
			"SyntaxError: Unexpected token (4:9)\n\n  2 | var b = 2;\n  3 | var c = 3;\n> 4 | var d = (;\n    |          ^\n  5 | var e = 5;\n  6 | var f = 6;\n  7 | var g = 7;"},
	} {
		s, out, _ := testShell(t, Options{})
		_, err := eval(t, s, out, tc.src)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: error\n%v\nwant\n%s", tc.src, err, tc.want)
		}
	}
}
