package engine

import (
	"bufio"
	"os"
	"os/exec"
	"testing"
)

// startCrashChild starts the test binary again running only test (one of
// the crash tests' child functions, which skip unless their environment
// variable is set), with env added to its environment, and returns it
// with a scanner over its standard output; its standard error is this
// process's. The caller kills it or lets it kill itself, and waits.
func startCrashChild(t *testing.T, test string, env ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(out)
}
