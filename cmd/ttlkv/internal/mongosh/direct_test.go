package mongosh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirectShellCommands: use, show, it, exit and quit are shell
// commands only when they are a whole input, as mongosh 2.12 decides
// (the first word of the trimmed input, the rest its words); inside a
// longer script or a load()ed file they are JavaScript, where "show
// dbs" is mongosh's syntax error. A script file's command shows
// nothing. Each want is what that mongosh printed for the same input.
func TestDirectShellCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("show.js", "print(\"before\")\nshow dbs\nprint(\"after\")\n")
	write("use.js", "use fromload\n")
	s, out, _ := testShell(t, Options{Dir: dir})
	run := func(file bool, src string) (string, error) {
		out.Reset()
		if file {
			err := s.RunFile("f.js", src)
			return out.String(), err
		}
		err := s.Eval("<eval>", src)
		return out.String(), err
	}
	for _, tc := range []struct {
		file      bool
		src, want string
		err       string // the start of the error's text, "" for none
		db        string // the db afterwards, "" for unchanged
	}{
		{false, "use other\nprint(db.getName())", "switched to db other\n", "", "other"},
		{true, "use other2\nprint(db.getName())", "", "", "other2"},
		{false, "use(\"other3\")", "switched to db other3\n", "", "other3"},
		{true, "print(1)\nshow collections\n", "", "SyntaxError: Missing semicolon. (2:4)\n\n  1 | print(1)\n> 2 | show collections\n    |     ^", ""},
		{true, "print(1)\nit\nprint(2)", "1\n2\n", "", ""},
		{false, "it", "no cursor\n", "", ""},
		{true, "it", "", "", ""},
		{false, "show nosuch", "", `MongoshInvalidInputError: [COMMON-10001] 'nosuch' is not a valid argument for "show".`, ""},
		{false, "show", "", `MongoshInvalidInputError: [COMMON-10001] 'undefined' is not a valid argument for "show".`, ""},
		{false, "use", "", "MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 0 (Mongo.use)", ""},
		{false, "load(\"show.js\")", "", "SyntaxError: Missing semicolon. (2:4)", ""},
		{false, "load(\"use.js\"); db.getName()", "fromload\n", "", "fromload"},
	} {
		got, err := run(tc.file, tc.src)
		if got != tc.want {
			t.Errorf("%q (file %v): printed %q, want %q", tc.src, tc.file, got, tc.want)
		}
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.src, err)
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one starting %q", tc.src, err, tc.err)
		}
		if tc.db != "" && s.DB() != tc.db {
			t.Errorf("%q: db is %s, want %s", tc.src, s.DB(), tc.db)
		}
	}
	// The exit status of a whole-input exit.
	if _, err := run(false, "exit 3"); err == nil || err.Error() != "exit 3" {
		t.Errorf("exit 3: %v", err)
	}
}

// TestShowDatabasesLayout: show dbs lays names and sizes out as mongosh
// (text-table, sizes with numeral's "0 ib" up to 1000 bytes, "0.00 ib"
// above).
func TestShowDatabasesLayout(t *testing.T) {
	t.Parallel()
	for v, want := range map[any]string{int64(40): "40 B", int64(1000): "1000 B", int64(1001): "1001.00 B", int64(8192): "8.00 KiB", 3.5 * 1024 * 1024: "3.50 MiB"} {
		if got := humanBytes(v); got != want {
			t.Errorf("humanBytes(%v) = %q, want %q", v, got, want)
		}
	}
	if got, want := textTable([]string{"admin", "test"}, []string{"40 B", "8.00 KiB"}), "admin      40 B\ntest   8.00 KiB"; got != want {
		t.Errorf("textTable:\n%s\nwant\n%s", got, want)
	}
}

// TestShowCollectionsLayout: show collections as mongosh 2.12 printed it
// against ttlkv serve: names in localeCompare order (not byte order),
// a time-series collection's badge in a column of its own.
func TestShowCollectionsLayout(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	if _, err := eval(t, s, out, `["Zeta", "alpha", "_x", "a1", "B", "plain"].forEach(n => db.createCollection(n)); db.createCollection("w", {timeseries: {timeField: "t"}})`); err != nil {
		t.Fatal(err)
	}
	got, err := eval(t, s, out, "show collections")
	// system.buckets.w and system.views (mongod 7.0 keeps a time-series
	// collection's view there) are listed last, where mongosh puts
	// system collections.
	if want := "_x\na1\nalpha\nB\nplain\nw                 [time-series]\nZeta\nsystem.buckets.w\nsystem.views\n"; err != nil || got != want {
		t.Errorf("show collections printed %q (%v), want %q", got, err, want)
	}
}
