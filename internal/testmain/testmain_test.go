package testmain

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { Run(m, nil) }

// TestChildFailing: a test binary whose test fails still exits with a
// failing status through Run, with and without -race.
func TestChildFailing(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestFailsInChild$")
	cmd.Env = append(os.Environ(), "TESTMAIN_CHILD=fail")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("child exit: %v, want status 1; output:\n%s", err, out)
	}
}

// TestChildPassing: a passing run exits 0.
func TestChildPassing(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestFailsInChild$")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child exit: %v, want 0; output:\n%s", err, out)
	}
}

// TestChildRacing: under -race, a child whose test races exits with a
// failing status through Run (the exit pause skipped loses no report).
func TestChildRacing(t *testing.T) {
	t.Parallel()
	if !raceEnabled {
		t.Skip("the race detector is off in this build")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestRacesInChild$")
	cmd.Env = append(os.Environ(), "TESTMAIN_CHILD=race")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 || !strings.Contains(string(out), "DATA RACE") {
		t.Fatalf("child exit: %v, want a failing status and a race report; output:\n%s", err, out)
	}
}

// TestRacesInChild races only in the child TestChildRacing starts.
func TestRacesInChild(t *testing.T) {
	if os.Getenv("TESTMAIN_CHILD") != "race" {
		return
	}
	var n int
	done := make(chan struct{})
	go func() { n++; close(done) }()
	n++
	<-done
	_ = n
}

// TestFailsInChild fails only in the child TestChildFailing starts.
func TestFailsInChild(t *testing.T) {
	if os.Getenv("TESTMAIN_CHILD") == "fail" {
		t.Fatal("failing on purpose in the child")
	}
}
