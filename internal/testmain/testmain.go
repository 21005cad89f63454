// Package testmain ends a test binary without the race detector's pause
// at exit. A binary built with -race sleeps a second when it exits (the
// race runtime's atexit_sleep_ms, to let other threads report), and the
// README's `go test -race ./...` runs seventeen such binaries, two at a
// time: about nine seconds of the suite's wall spent asleep.
//
// Nothing is lost by skipping it: testing.M.Run already fails a test
// that races and fails the run on a race outside any test, and the race
// runtime prints each report when it finds the race, not at exit.
package testmain

import (
	"os"
	"syscall"
	"testing"
)

// Run runs m and exits with its status. Under -race it exits through
// syscall.Exit, which skips the race runtime's exit pause; otherwise
// through os.Exit. after, if not nil, runs between the two (a package's
// own clean-up).
func Run(m *testing.M, after func()) {
	code := m.Run()
	if after != nil {
		after()
	}
	if raceEnabled {
		syscall.Exit(code)
	}
	os.Exit(code)
}
