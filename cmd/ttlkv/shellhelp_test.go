package main

import (
	"strings"
	"testing"
)

// TestShellHelpExamples runs every example line of the shell's help text
// ("  db...."), in order, each as its own ttlkv eval on one directory,
// and expects exit 0.
func TestShellHelpExamples(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n := 0
	for _, line := range strings.Split(shellHelp, "\n") {
		src, ok := strings.CutPrefix(line, "  db.")
		if !ok {
			continue
		}
		n++
		out, errOut, code := cli(t, nil, dir, "", "eval", "db."+src)
		if code != 0 {
			t.Errorf("help example %q: exit %d\nstdout: %s\nstderr: %s", line, code, out, errOut)
		}
	}
	if n < 5 {
		t.Errorf("found %d examples in the shell help, want at least 5", n)
	}
}
