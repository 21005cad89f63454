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
