package main

import (
	"strings"
	"testing"
)

// TestImportOptionErrors: the option checks mongoimport makes before it
// imports anything, with its messages (checked against mongoimport
// 100.x), each exiting 1 and importing nothing.
func TestImportOptionErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		in   string
		args []string
		err  string
	}{
		{"1\n", []string{"--type", "csv", "--fields", "a,a.b"}, "fields `a` and `a.b` are incompatible"},
		{"1\n", []string{"--type", "csv", "--fields", "a.1", "--useArrayIndexFields"}, "array index error with field `a.1`: array indexes in fields must start from 0 and increase sequentially"},
		{"1\n", []string{"--type", "csv", "--fields", "a.0,a.b", "--useArrayIndexFields"}, "fields `a.0` and `a.b` are incompatible"},
		{"1\n", []string{"--type", "csv", "--fields", "$a"}, "field `$a` cannot start with a '$'"},
		{"1\n", []string{"--type", "csv", "--fields", "a,a"}, "fields cannot be identical: `a` and `a`"},
		{"a,a\n1,2\n", []string{"--type", "csv", "--headerline"}, "fields cannot be identical: `a` and `a`"},
		{"{}\n", []string{"--upsertFields", "a..b"}, "invalid --upsertFields argument: field `a..b` cannot contain consecutive '.' characters"},
		{"{}\n", []string{"--upsertFields", "a", "--mode", "insert"}, "cannot use --upsertFields with --mode=insert"},
		{"{}\n", []string{"--mode", "replace"}, "Invalid value `replace' for option `--mode'"},
		{"a\n1\n", []string{"--type", "csv", "--headerline", "--legacy"}, "cannot use --legacy if input type is not JSON"},
		{"{}\n", []string{"--ignoreBlanks"}, "cannot use --ignoreBlanks when input type is JSON"},
		{"{}\n", []string{"--columnsHaveTypes"}, "cannot use --columnsHaveTypes when input type is JSON"},
		{"a\n1\n", []string{"--type", "csv", "--headerline", "--parseGrace", "nope"}, "invalid parse grace: nope"},
		{"{}\n", []string{"--bogus"}, "unknown flag: --bogus"},
	} {
		_, errOut, code := cli(t, nil, dir, tc.in, append([]string{"import", "c"}, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, tc.err) {
			t.Errorf("import %q: exit %d (%s), want 1 with %q", tc.args, code, errOut, tc.err)
		}
	}
	if n := ie26Count(t, dir, "c"); n != "0" {
		t.Errorf("%s documents after the refusals, want 0", n)
	}
}

// TestImportModesByUpsertFields: the matching modes find documents by
// dotted --upsertFields; a document without any of them is inserted
// (upsert, merge) or skipped (delete), as mongoimport does.
func TestImportModesByUpsertFields(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ie26Seed(t, dir, "c", `{"_id": 1, "k": {"x": 1}, "v": 1}`+"\n"+`{"_id": 2, "k": {"x": 2}, "v": 2}`+"\n")
	_, errOut, code := cli(t, nil, dir, `{"k": {"x": 1}, "w": 1}`+"\n"+`{"_id": 3, "v": 3}`+"\n", "import", "c", "--mode", "merge", "--upsertFields", "k.x")
	if code != 0 || !strings.Contains(errOut, "2 document(s) imported successfully. 0 document(s) failed to import.") {
		t.Fatalf("merge: exit %d, %s", code, errOut)
	}
	want := `[{"k":{"x":{"$numberInt":"1"}},"v":{"$numberInt":"1"},"w":{"$numberInt":"1"}},{"k":{"x":{"$numberInt":"2"}},"v":{"$numberInt":"2"}},{"v":{"$numberInt":"3"}}]`
	if got := ie26Docs(t, dir, "c"); got != want {
		t.Errorf("after merge %s, want %s", got, want)
	}
	_, errOut, code = cli(t, nil, dir, `{"k": {"x": 2}}`+"\n"+`{"v": 3}`+"\n"+`{"k": {"x": 9}}`+"\n", "import", "c", "--mode", "delete", "--upsertFields", "k.x")
	if code != 0 || !strings.Contains(errOut, "1 document(s) deleted successfully. 0 document(s) failed to delete.") {
		t.Fatalf("delete: exit %d, %s", code, errOut)
	}
	if n := ie26Count(t, dir, "c"); n != "2" {
		t.Errorf("%s documents after the delete, want 2", n)
	}
}

// TestImportLegacyRefusesCode: --legacy reads literals only; a document
// that would run code is a bad document, reported and not run.
func TestImportLegacyRefusesCode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := "{a: (function() { for (;;); })()}\n{a: NumberLong(2), b: new Date(0)}\n"
	_, errOut, code := cli(t, nil, dir, in, "import", "c", "--legacy")
	if code != 1 || !strings.Contains(errOut, "line 1: ") || !strings.Contains(errOut, "1 document(s) imported successfully. 1 document(s) failed to import.") {
		t.Errorf("exit %d, stderr %s; want line 1 refused and line 2 imported", code, errOut)
	}
	out, _, _ := cli(t, nil, dir, "", "eval", `EJSON.stringify(db.c.findOne({}, {_id: 0}), {relaxed: false})`)
	if want := `{"a":{"$numberLong":"2"},"b":{"$date":{"$numberLong":"0"}}}`; strings.TrimSpace(out) != want {
		t.Errorf("document %s, want %s", out, want)
	}
}
