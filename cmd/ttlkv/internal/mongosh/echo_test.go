package mongosh

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEchoAsMongosh checks what an input's value prints as, against
// mongosh 2.12.0: --eval code (EvalCode) prints it in full, where the
// prompt (Eval) cuts it as print() does; the show commands print what
// mongosh prints for a server with no profile, users or log lines.
func TestEchoAsMongosh(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	deep := `({a: {b: {c: {d: {e: {f: {g: {h: 1}}}}}}}, n: Array.from({length: 102}, (_, i) => i % 10), s: "x".repeat(10002)})`
	cases := []struct {
		full      bool
		src, want string
	}{
		{true, `({a: {b: {c: {d: {e: {f: {g: {h: 1}}}}}}}})`,
			"{\n  a: {\n    b: {\n      c: {\n        d: {\n          e: { f: { g: { h: 1 } } }\n        }\n      }\n    }\n  }\n}\n"},
		{false, `({a: {b: {c: {d: {e: {f: {g: {h: 1}}}}}}}})`,
			"{\n  a: {\n    b: {\n      c: {\n        d: { e: { f: { g: [Object] } } }\n      }\n    }\n  }\n}\n"},
		{true, deep + `.n.length`, "102\n"},
		{true, `show collections`, "\n"},
		{true, `show profile`, "db.system.profile is empty.\nUse db.setProfilingLevel(2) will enable profiling.\nUse db.getCollection('system.profile').find() to show raw profile entries.\n"},
		{true, `show startupWarnings`, "\n"},
	}
	for _, tc := range cases {
		out.Reset()
		run := s.Eval
		if tc.full {
			run = s.EvalCode
		}
		if err := run("<eval>", tc.src); err != nil || out.String() != tc.want {
			t.Errorf("%s (full %v): got %q (%v), want %q", tc.src, tc.full, out.String(), err, tc.want)
		}
	}
	// In full: no "... more items", no [Object], no cut string.
	out.Reset()
	if err := s.EvalCode("<eval>", deep); err != nil {
		t.Fatal(err)
	}
	for _, cut := range []string{"more item", "[Object]", "more character"} {
		if got := out.String(); strings.Contains(got, cut) {
			t.Errorf("EvalCode printed %q, which --eval does not cut", cut)
		}
	}
}

// TestPromptEchoAsMongosh checks what mongosh 2.12.0's prompt prints
// for an input with no value and for a cursor with nothing: an empty
// line, where a shell command (use, it) prints only its own words and
// --eval prints nothing for undefined.
func TestPromptEchoAsMongosh(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	s.SetInteractive(true)
	for _, tc := range []struct{ src, want string }{
		{`print(1)`, "1\n\n"},
		{`var x = 1`, "\n"},
		{`db.nothing.find()`, "\n"},
		{`it`, "no cursor\n"},
		{`use other`, "switched to db other\n"},
		{`null`, "null\n"},
	} {
		out.Reset()
		if err := s.Eval("<shell>", tc.src); err != nil || out.String() != tc.want {
			t.Errorf("%s: got %q (%v), want %q", tc.src, out.String(), err, tc.want)
		}
	}
	s.SetInteractive(false)
	out.Reset()
	if err := s.EvalCode("<eval>", `db.nothing.find()`); err != nil || out.String() != "\n" {
		t.Errorf("--eval empty cursor: got %q (%v), want an empty line", out.String(), err)
	}
	out.Reset()
	if err := s.EvalCode("<eval>", `var y = 1`); err != nil || out.String() != "" {
		t.Errorf("--eval undefined: got %q (%v), want nothing", out.String(), err)
	}
}

// TestPromisesAsMongosh checks that what an input gives is awaited as
// mongosh awaits it: the echo and print show a promise's value, a
// rejected one is the input's error, and a script file's last value
// (an async main()) fails the file when it fails; inside other values
// a promise prints as Node shows it.
func TestPromisesAsMongosh(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	for _, tc := range []struct{ src, want string }{
		{`(async () => { print("in"); return {a: 1} })()`, "in\n{ a: 1 }\n"},
		{`print(Promise.resolve(5), [Promise.resolve(1)], {p: new Promise(() => {})})`, "5 [ Promise { 1 } ] { p: Promise { <pending> } }\n"},
		{`new Promise(r => r(db.p.countDocuments()))`, "0\n"},
	} {
		out.Reset()
		if err := s.EvalCode("<eval>", tc.src); err != nil || out.String() != tc.want {
			t.Errorf("%s: got %q (%v), want %q", tc.src, out.String(), err, tc.want)
		}
	}
	for _, run := range []func(string, string) error{s.EvalCode, s.RunFile} {
		err := run("main.js", `async function main() { throw new Error("in main") }
main()`)
		var se *ScriptError
		if !errors.As(err, &se) || se.Error() != "Error: in main" {
			t.Errorf("a failed async main(): %v, want Error: in main", err)
		}
	}
	out.Reset()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rej.js"), []byte("(async () => { throw new Error(\"loaded\") })()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `try { load(` + strconv.Quote(filepath.Join(dir, "rej.js")) + `) } catch (e) { print("caught", e.message) }`
	if err := s.EvalCode("<eval>", src); err != nil || out.String() != "caught loaded\n" {
		t.Errorf("load of a failing file: got %q (%v)", out.String(), err)
	}
}

// TestConfigAsMongosh checks mongosh 2.12.0's config: its settings print
// as a Map, set answers with a sentence (a name it lacks is "not
// available"), and DBQuery.shellBatchSize is undefined until given.
func TestConfigAsMongosh(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	for _, tc := range []struct{ src, want string }{
		{`print(config.set("nosuch", 1), String(config.get("nosuch")), String(DBQuery.shellBatchSize))`, `Option "nosuch" is not available in this environment undefined undefined`},
		{`print(config.set("displayBatchSize", -1))`, `Cannot set option "displayBatchSize": displayBatchSize must be a positive integer`},
		{`print(config.set("maxTimeMS", 5), config.get("maxTimeMS"), config.reset("maxTimeMS"), config.get("maxTimeMS"), config.get("inspectDepth"))`,
			`Setting "maxTimeMS" has been changed 5 Setting "maxTimeMS" has been reset to its default value null 6`},
		{`config.set("displayBatchSize", 2); const cm = config; print(cm.get("displayBatchSize")); config.reset("displayBatchSize"); print(config.get("displayBatchSize"))`, "2\n20"},
	} {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
	got, err := eval(t, s, out, `config`)
	if err != nil || !strings.HasPrefix(got, "Map(24) {\n  'displayBatchSize' => 20,\n  'maxTimeMS' => null,\n") || !strings.HasSuffix(got, "  'logRetentionGB' => undefined\n}\n") {
		t.Errorf("config: got %q (%v)", got, err)
	}
}

// TestRedeclareAsMongosh checks that top-level let, const and class
// declarations can be made again, and a const given another value, as
// at mongosh's prompt (its rewriter makes them var ones); inside a
// block they keep JavaScript's rules.
func TestRedeclareAsMongosh(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	s.SetInteractive(true)
	for _, tc := range []struct{ src, want string }{
		{`const a = 1`, "\n"},
		{`const a = 2`, "\n"},
		{`a = 5; a`, "5\n"},
		{`let b = 1; let c = b + 1`, "\n"},
		{`let b = 3; [b, c]`, "[ 3, 2 ]\n"},
		{`class C {}`, "[class C]\n"},
		{`class C { m() { return 1 } }; new C().m()`, "1\n"},
		{`{ const inner = 1; } typeof inner`, "undefined\n"},
	} {
		out.Reset()
		if err := s.Eval("<shell>", tc.src); err != nil || out.String() != tc.want {
			t.Errorf("%s: got %q (%v), want %q", tc.src, out.String(), err, tc.want)
		}
	}
	out.Reset()
	err := s.Eval("<shell>", `{ const k = 1; k = 2 }`)
	var se *ScriptError
	if !errors.As(err, &se) || se.Message != "Assignment to constant variable." {
		t.Errorf("a block's const given another value: %v, want TypeError: Assignment to constant variable.", err)
	}
}
