package mongosh

import (
	"os"
	"path/filepath"
	"testing"
)

// TestScriptFilesAsMongosh checks what a script file sees, against
// mongosh 2.12.0: __filename and __dirname while a file (or a file it
// loads) runs and not otherwise, load()'s refusals as Node's file errors
// and mongosh's missing argument, and the deprecation of
// DBQuery.shellBatchSize, printed once.
func TestScriptFilesAsMongosh(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("b.js", `print("b", __filename)`)
	s, out, _ := testShell(t, Options{Dir: dir})
	a, b := filepath.Join(dir, "a.js"), filepath.Join(dir, "b.js")
	if err := s.RunFile("a.js", `print(__filename, __dirname); load("b.js"); print(__filename)`); err != nil {
		t.Fatal(err)
	}
	if want := a + " " + dir + "\nb " + b + "\n" + a + "\n"; out.String() != want {
		t.Errorf("a.js printed %q, want %q", out.String(), want)
	}
	const catch = `; } catch (e) { print(e.name, e.code, e.message) }`
	cases := []struct{ src, want string }{
		{`print(typeof __filename, typeof __dirname)`, "undefined undefined"},
		{`try { load("nosuch.js")` + catch, "Error ENOENT ENOENT: no such file or directory, open '" + filepath.Join(dir, "nosuch.js") + "'"},
		{`try { load("nosuch.js") } catch (e) { print(Object.keys(e), e.errno, e.syscall) }`, "[ 'errno', 'code', 'syscall', 'path' ] -2 open"},
		{`try { load(".")` + catch, "Error EISDIR EISDIR: illegal operation on a directory, read"},
		{`try { load()` + catch, "MongoshInvalidInputError COMMON-10001 [COMMON-10001] Missing required argument at position 0 (load)"},
		{`DBQuery.shellBatchSize = 3; print(DBQuery.shellBatchSize); DBQuery.shellBatchSize = 20; undefined`,
			"DeprecationWarning: DBQuery.shellBatchSize is deprecated, please use config.set(\"displayBatchSize\") instead\n3"},
		{`DBQuery.shellBatchSize = 20; print(DBQuery.shellBatchSize)`, "20"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
}
