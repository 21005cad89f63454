package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/engine"
	"github.com/ttlkv/ttlkv/lsm"
)

// cli runs ttlkv with args in data directory dir (given as $TTLKV_DIR)
// and returns stdout, stderr and the exit code.
func cli(t *testing.T, ctx context.Context, dir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	return cliEnv(t, ctx, dir, stdin, nil, args...)
}

// smallStore gives a store opened by a test the smallest memory budget
// (32 MiB) unless the command set one: under -race opening a store with
// the default 160 MiB costs four times as much, and most tests open
// several.
func smallStore(o *engine.Options) {
	if o.MemoryBudget == 0 {
		o.MemoryBudget = lsm.MinMemoryBudget
	}
	// A test's store lives in its own temporary directory: Close need
	// not compact level 0 for a later open (a reopen still reads every
	// flushed table).
	engine.SetSkipCloseCompactionForTesting(o)
}

// cliEnv is cli with adjust, if not nil, applied to the environment
// before the command runs (test seams: openOpts, opened).
func cliEnv(t *testing.T, ctx context.Context, dir, stdin string, adjust func(*env), args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	if ctx == nil {
		ctx = context.Background()
	}
	e := &env{
		ctx:    ctx,
		stdin:  strings.NewReader(stdin),
		stdout: &out,
		stderr: &errb,
		getenv: func(k string) string {
			if k == "TTLKV_DIR" {
				return dir
			}
			return ""
		},
		isTerm:   func(any) bool { return false },
		openOpts: smallStore,
	}
	if adjust != nil {
		adjust(e)
	}
	code := e.main(args)
	return out.String(), errb.String(), code
}

// splitWords splits an example command line as a POSIX shell would for
// the quoting the examples use ('...', "..." and plain words); it
// returns the words and the file named by a trailing "< FILE".
func splitWords(t *testing.T, line string) ([]string, string) {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	redirect := ""
	if n := len(words); n >= 2 && words[n-2] == "<" {
		redirect, words = words[n-1], words[:n-2]
	}
	return words, redirect
}

// TestHelpExamples runs every example shown by --help, in a fresh
// directory holding the files the examples name, and expects exit 0.
// serve, tail and shell run with a cancelled context (they wait for
// Ctrl-C) and end at once.
func TestHelpExamples(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	inWork := func(e *env) { e.wd = work }
	must(t, os.WriteFile(filepath.Join(work, "events.json"), []byte("{\"_id\": 1, \"kind\": \"login\", \"at\": {\"$date\": \"2024-01-01T00:00:00Z\"}}\n{\"_id\": 2, \"kind\": \"logout\"}\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(work, "script.js"), []byte("db.s.insertOne({x: 1}); print(db.s.countDocuments())\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(work, "weather.json"), []byte("{\"timestamp\": {\"$date\": \"2024-01-01T00:00:00Z\"}, \"metadata\": {\"sensor\": 1}, \"temp\": 12}\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(work, "people.json"), []byte("{\"email\": \"ada@example.com\", \"name\": \"Ada\"}\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(work, "people.csv"), []byte("name,age\nAda,36\n\"Lovelace, A.\",37\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(work, "people.tsv"), []byte("Ada\t36\nGrace\t85\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(work, "typed.csv"), []byte("name.string(),born.date_go(2006-01-02),n.int32()\nAda,1815-12-10,1\n"), 0o600))
	dir := filepath.Join(work, "data")
	if _, errOut, code := cliEnv(t, nil, dir, "", inWork, "eval", `db.createCollection("log", {capped: true, size: 1048576})`); code != 0 {
		t.Fatal(errOut) // tail's examples follow it
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range commands() {
		if len(c.examples) == 0 {
			t.Errorf("%s: --help shows no examples", c.name)
		}
		for _, ex := range c.examples {
			words, redirect := splitWords(t, ex)
			if words[0] != "ttlkv" {
				t.Fatalf("example %q does not start with ttlkv", ex)
			}
			stdin := ""
			if redirect != "" {
				b, err := os.ReadFile(filepath.Join(work, redirect))
				must(t, err)
				stdin = string(b)
			}
			ctx := context.Background()
			if c.name == "serve" || c.name == "tail" || c.name == "watch" || c.name == "shell" {
				ctx = cancelled
			}
			if c.name == "import" && !strings.Contains(ex, "--timeField") {
				words = append(words, "--mode", "upsert") // examples import the same file again
			}
			out, errOut, code := cliEnv(t, ctx, dir, stdin, inWork, words[1:]...)
			if code != 0 {
				t.Errorf("example %q: exit %d\nstdout: %s\nstderr: %s", ex, code, out, errOut)
			}
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestDataDirectory(t *testing.T) {
	t.Parallel()
	t.Run("TTLKV_DIR is created 0700", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "d")
		if _, errOut, code := cli(t, nil, dir, "", "run", `{"ping": 1}`); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		fi, err := os.Stat(dir)
		must(t, err)
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("mode %v, want 0700", fi.Mode().Perm())
		}
	})
	t.Run("--dir wins over TTLKV_DIR", func(t *testing.T) {
		base := t.TempDir()
		flagDir := filepath.Join(base, "flag")
		if _, errOut, code := cli(t, nil, filepath.Join(base, "env"), "", "--dir", flagDir, "run", `{"ping": 1}`); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if _, err := os.Stat(flagDir); err != nil {
			t.Errorf("--dir not used: %v", err)
		}
		if _, err := os.Stat(filepath.Join(base, "env")); err == nil {
			t.Errorf("$TTLKV_DIR used despite --dir")
		}
	})
	t.Run("default ./ttlkv-data", func(t *testing.T) {
		work := t.TempDir()
		if _, errOut, code := cliEnv(t, nil, "", "", func(e *env) { e.wd = work }, "run", `{"ping": 1}`); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if _, err := os.Stat(filepath.Join(work, defaultDir)); err != nil {
			t.Errorf("default directory not created: %v", err)
		}
	})
	t.Run("in use by another opener", func(t *testing.T) {
		dir := t.TempDir()
		e := &env{getenv: func(string) string { return dir }}
		db, err := e.open(engineOptions())
		must(t, err)
		defer db.Close()
		_, errOut, code := cli(t, nil, dir, "", "run", `{"ping": 1}`)
		if code != 1 || !strings.Contains(errOut, dir) || !strings.Contains(errOut, "in use") {
			t.Errorf("exit %d, stderr %q: want exit 1 and a message naming %s as in use", code, errOut, dir)
		}
		// Said once, naming the likely holder, without Badger's repetition.
		if strings.Count(errOut, "in use") != 1 || strings.Count(errOut, dir) != 1 || !strings.Contains(errOut, "ttlkv serve") || !strings.Contains(errOut, "--uri") {
			t.Errorf("stderr %q: want one short message naming %s once and pointing at ttlkv serve", errOut, dir)
		}
	})
}

func TestUsageAndErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct {
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{nil, 0, "Commands:", ""},
		{[]string{"--help"}, 0, "Commands:", ""},
		{[]string{"nosuch"}, 2, "", `unknown command "nosuch"`},
		{[]string{"run", "--nosuchflag"}, 2, "", "unknown flag: --nosuchflag"},
		{[]string{"import", "--help"}, 0, "Examples:\n  ttlkv import events events.json", ""},
		{[]string{"help", "export"}, 0, "--query", ""},
		{[]string{"tail", "--help"}, 0, "continues from\nthe oldest document still present", ""},
		{[]string{"version"}, 0, "ttlkv " + version, ""},
		{[]string{"--version"}, 0, "ttlkv " + version, ""},
	}
	for _, tc := range cases {
		out, errOut, code := cli(t, nil, dir, "", tc.args...)
		if code != tc.code || !strings.Contains(out, tc.inStdout) || !strings.Contains(errOut, tc.inStderr) {
			t.Errorf("ttlkv %q: exit %d, stdout %q, stderr %q; want exit %d with %q / %q", tc.args, code, out, errOut, tc.code, tc.inStdout, tc.inStderr)
		}
	}
}
