package mongosh

import (
	"errors"
	"strconv"
	"testing"
)

// TestProcessAsMongosh checks the part of Node's process that mongosh
// scripts use: env (the shell's environment), exit(code) as quit(code),
// cwd() and platform.
func TestProcessAsMongosh(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, out, _ := testShell(t, Options{Environ: []string{"APP_URI=mongodb://h/x?a=b", "EMPTY="}, Dir: dir})
	got, err := eval(t, s, out, `print(process.env.APP_URI, JSON.stringify(process.env.EMPTY), typeof process.env.NOPE, process.cwd() === `+strconv.Quote(dir)+`, typeof process.platform, process.exit)`)
	if err != nil || got != "mongodb://h/x?a=b \"\" undefined true string [Function: exit]\n" {
		t.Errorf("process: got %q (%v)", got, err)
	}
	_, err = eval(t, s, out, `process.exit(4)`)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 4 {
		t.Errorf("process.exit(4): %v, want an ExitError with code 4", err)
	}
}
