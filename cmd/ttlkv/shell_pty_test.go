package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestShellInPseudoTerminal uses the shell as a person would, on a
// pseudo-terminal: the prompt, a command, history recall with the up
// arrow, multi-line input, and exit. The history file keeps the lines.
func TestShellInPseudoTerminal(t *testing.T) {
	t.Parallel()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal available: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	dir := t.TempDir()
	hist := filepath.Join(t.TempDir(), "history")
	e := &env{
		ctx: context.Background(), stdin: tty, stdout: tty, stderr: tty,
		getenv: func(k string) string {
			if k == "TTLKV_DIR" {
				return dir
			}
			return ""
		},
		isTerm: func(v any) bool { _, ok := v.(*os.File); return ok },
	}
	var mu sync.Mutex
	var screen bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	// waitFor blocks until the screen shows s (a deadline, not a sleep).
	waitFor := func(s string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			ok := strings.Contains(screen.String(), s)
			mu.Unlock()
			if ok {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("screen never showed %q:\n%s", s, screen.String())
	}
	done := make(chan int, 1)
	go func() { done <- e.main([]string{"shell", "--history", hist}) }()
	type_ := func(s string) { _, _ = io.WriteString(master, s) }

	waitFor("test> ")
	type_("db.c.insertOne({_id: 7, v: 'x'}).insertedId\r")
	waitFor("\r\n7\r\n")
	type_("db.c.countDocuments()\r")
	waitFor("\r\n1\r\n")
	type_("db.c.insertOne({_id: 8})\r")
	waitFor("insertedId: 8")
	type_("\x1b[A\x1b[A\r") // the up arrow twice: countDocuments() again
	waitFor("\r\n2\r\n")
	// undefined, as at mongosh's prompt, is an empty line.
	type_("print('p1')\r")
	waitFor("\r\np1\r\n\r\n")
	type_("db.c.find(\r")
	waitFor("... ")
	type_("{_id: 7})\r")
	waitFor("v: 'x'")
	type_("exit\r")
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("shell exit %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("shell did not exit")
	}
	h, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(h), "db.c.countDocuments()") {
		t.Errorf("history file lacks the commands:\n%s", h)
	}
}
