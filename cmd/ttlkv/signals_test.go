package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/ttlkv/ttlkv/internal/testmain"
)

// TestMain lets a test run this test binary as the ttlkv command itself
// (TTLKV_TEST_MAIN=1), so signals and terminals reach a real process.
func TestMain(m *testing.M) {
	if os.Getenv("TTLKV_TEST_MAIN") == "1" {
		main()
		return
	}
	testmain.Run(m, nil) // without the race detector's pause at exit
}

// ttlkvProcess returns a command running ttlkv with args on data
// directory dir.
func ttlkvProcess(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TTLKV_TEST_MAIN=1", "TTLKV_DIR="+dir, "HOME="+t.TempDir(), noExitSleep())
	return cmd
}

// noExitSleep is a GORACE setting (the caller's own, plus
// atexit_sleep_ms=0) for a child process: a binary built with -race
// sleeps a second before it exits, to give other goroutines time to
// report a race, and each of these tests waits for its child to exit
// (TestOpenPermissionDenied 2.7 s, 1.2 s without). The child still
// reports every race it finds while it runs, and still exits 66 if it
// found one; without -race the setting is ignored.
func noExitSleep() string {
	return "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")
}

// waitExit waits for cmd to end and returns its exit code; it fails the
// test (killing the process) if that takes longer than a minute.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("ttlkv did not exit within a minute")
		return -1
	}
}

// TestEvalStoppedBySignal: 'ttlkv eval' running an endless loop ends on
// SIGINT and on SIGTERM, saying the script was interrupted, with exit
// code 130.
func TestEvalStoppedBySignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			cmd := ttlkvProcess(t, t.TempDir(), "eval", "print('spinning'); while (true) {}")
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || line != "spinning\n" {
				_ = cmd.Process.Kill()
				t.Fatalf("first line %q, %v", line, err)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, out)
			if code := waitExit(t, cmd); code != interruptedExit {
				t.Errorf("exit code %d, want %d; stderr %q", code, interruptedExit, errb.String())
			}
			if want := "MongoshInterruptedError: execution was interrupted"; !strings.Contains(errb.String(), want) {
				t.Errorf("stderr %q lacks %q", errb.String(), want)
			}
		})
	}
}

// TestShellCtrlC types Ctrl-C into 'ttlkv shell' on a pseudo-terminal, as
// mongosh is used: during an endless loop it stops the statement and the
// session goes on (the next statement runs); at an empty prompt it says
// how to leave, and a second Ctrl-C leaves with exit code 0.
func TestShellCtrlC(t *testing.T) {
	t.Parallel()
	cmd := ttlkvProcess(t, t.TempDir(), "shell", "--history", "")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal available: %v", err)
	}
	defer tty.Close()
	var mu sync.Mutex
	var screen bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	// waitFor blocks until the screen shows s after the last time it
	// showed after (anywhere, when after is ""); a deadline, not a
	// sleep. readline redraws the prompt at every keystroke, so only a
	// prompt drawn after a statement's output says the shell is reading
	// again (and its terminal in raw mode, where Ctrl-C is a key, not a
	// signal).
	waitFor := func(after, s string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			scr := screen.String()
			mu.Unlock()
			i := 0
			if after != "" {
				i = strings.LastIndex(scr, after)
			}
			if i >= 0 && strings.Contains(scr[i+len(after):], s) {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		_ = cmd.Process.Kill()
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("screen never showed %q after %q:\n%s", s, after, screen.String())
	}
	type_ := func(s string) { _, _ = io.WriteString(tty, s) }

	waitFor("", "test> ")
	type_("print('spin' + 'ning'); while (true) {}\r")
	waitFor("", "spinning")
	type_("\x03")
	waitFor("", "MongoshInterruptedError: execution was interrupted")
	waitFor("execution was interrupted", "test> ")
	type_("6 * 7\r")
	waitFor("", "42")
	waitFor("42", "test> ")
	type_("\x03")
	waitFor("", "To exit, press Ctrl+C again")
	type_("\x03")
	if code := waitExit(t, cmd); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}
