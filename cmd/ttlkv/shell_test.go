package main

import (
	"strings"
	"testing"
)

// TestShellPiped drives the shell's loop with piped input: multi-line
// input, use, help, errors that do not end the session, and exit.
func TestShellPiped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input := strings.Join([]string{
		"db.c.insertOne({",
		"  _id: 1,",
		"  tags: ['a',",
		"         'b']",
		"})",
		"db.c.findOne()",
		"db.c.insertOne({_id: 1})",
		"use other",
		"db.getName()",
		"help",
		"exit",
		"print('not reached')",
	}, "\n")
	out, errOut, code := cli(t, nil, dir, input, "shell", "--history", "")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"{ acknowledged: true, insertedId: 1 }\n", "{ _id: 1, tags: [ 'a', 'b' ] }\n", "switched to db other\nother\n", "\n  Shell Help:\n\n    use                                        Set current database\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not reached") {
		t.Errorf("input after exit ran")
	}
	if !strings.Contains(errOut, "MongoServerError: E11000 duplicate key") {
		t.Errorf("stderr %q lacks the duplicate key error", errOut)
	}
}
