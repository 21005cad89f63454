package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnvPath: a relative path resolves against the working directory a
// run is given; an absolute one, an empty one and any path of a run
// without one are kept as given.
func TestEnvPath(t *testing.T) {
	t.Parallel()
	e := &env{wd: "/w"}
	for in, want := range map[string]string{"a.json": "/w/a.json", "./d/x": "/w/d/x", "/abs/y": "/abs/y", "": ""} {
		if got := e.path(in); got != want {
			t.Errorf("path(%q) in /w = %q, want %q", in, got, want)
		}
	}
	if got := (&env{}).path("a.json"); got != "a.json" {
		t.Errorf("path without a working directory = %q, want a.json", got)
	}
}

// TestRelativePathsFollowWD: every path a command takes from its user
// (the default data directory, eval's -f script and the files it
// load()s, import's file and --fieldFile, export's --out and
// --fieldFile) is found in, or written to, the run's working directory.
func TestRelativePathsFollowWD(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	write := func(name, s string) {
		t.Helper()
		must(t, os.WriteFile(filepath.Join(work, name), []byte(s), 0o600))
	}
	write("main.js", `load("lib.js"); db.p.insertOne({_id: 0, name: libName})`)
	write("lib.js", `var libName = "from lib"`)
	write("people.csv", "Ada,36\nGrace,85\n")
	write("fields.txt", "name\nage\n")
	inWork := func(e *env) { e.wd = work }
	run := func(stdin string, args ...string) string {
		t.Helper()
		out, errOut, code := cliEnv(t, nil, "", stdin, inWork, args...)
		if code != 0 {
			t.Fatalf("ttlkv %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	run("", "eval", "-f", "main.js")
	run("", "import", "-c", "p", "people.csv", "--type", "csv", "--fieldFile", "fields.txt")
	run("", "export", "-c", "p", "--type", "csv", "--fieldFile", "fields.txt", "--sort", "{_id: 1}", "--out", "out.csv")
	got, err := os.ReadFile(filepath.Join(work, "out.csv"))
	must(t, err)
	if want := "name,age\nfrom lib,\nAda,36\nGrace,85\n"; string(got) != want {
		t.Errorf("out.csv:\n%s\nwant:\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(work, defaultDir)); err != nil {
		t.Errorf("the default data directory is not in the working directory: %v", err)
	}
}
