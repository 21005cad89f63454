package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeCommands returns the ttlkv command lines of the README's shell
// code blocks: lines "go run ./cmd/ttlkv ARGS" or "ttlkv ARGS", with
// trailing "# comments" removed, each as the words after the program.
// Other lines of those blocks (go test, cd, ...) are not ttlkv commands.
func readmeCommands(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	var out [][]string
	inShell := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "```") {
			lang := strings.TrimPrefix(trim, "```")
			inShell = !inShell && (lang == "sh" || lang == "shell" || lang == "bash" || lang == "console")
			continue
		}
		if !inShell {
			continue
		}
		trim = strings.TrimPrefix(trim, "$ ")
		if i := strings.Index(trim, " #"); i >= 0 {
			trim = strings.TrimSpace(trim[:i])
		}
		var rest string
		switch {
		case strings.HasPrefix(trim, "go run ./cmd/ttlkv"):
			rest = strings.TrimPrefix(trim, "go run ./cmd/ttlkv")
		case strings.HasPrefix(trim, "ttlkv ") || trim == "ttlkv":
			rest = strings.TrimPrefix(trim, "ttlkv")
		default:
			continue
		}
		words, redirect := splitWords(t, "ttlkv"+rest)
		if redirect != "" {
			t.Fatalf("README command %q reads a file; give the test that file", line)
		}
		out = append(out, words[1:])
	}
	must(t, sc.Err())
	return out
}

// TestReadmeCommands runs every ttlkv command line of the README, as
// written, through the command's main function in a fresh working
// directory without $TTLKV_DIR (so the default ./ttlkv-data is used),
// twice (the README's commands must be re-runnable), and expects exit 0.
func TestReadmeCommands(t *testing.T) {
	t.Parallel()
	readme, err := filepath.Abs(filepath.Join("..", "..", "README.md"))
	must(t, err)
	cmds := readmeCommands(t, readme)
	if len(cmds) == 0 {
		t.Fatalf("%s: no ttlkv command found (the README's first command is the demo)", readme)
	}
	work := t.TempDir()
	for round := 1; round <= 2; round++ {
		for _, args := range cmds {
			out, errOut, code := cliEnv(t, context.Background(), "", "", func(e *env) { e.wd = work }, args...)
			if code != 0 {
				t.Errorf("round %d: ttlkv %s: exit %d\nstdout: %s\nstderr: %s", round, strings.Join(args, " "), code, out, errOut)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(work, defaultDir)); err != nil {
		t.Errorf("the README's commands did not use ./%s: %v", defaultDir, err)
	}
}

func TestReadmeCommandExtraction(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "R.md")
	must(t, os.WriteFile(path, []byte("text ttlkv demo\n```sh\ngo run ./cmd/ttlkv demo          # the demo\ngo test ./...\n$ ttlkv run '{\"ping\": 1}'\nttlkv\n```\n```go\nttlkv stats\n```\n"), 0o600))
	got := readmeCommands(t, path)
	want := [][]string{{"demo"}, {"run", `{"ping": 1}`}, {}}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("command %d: %q, want %q", i, got[i], want[i])
		}
	}
}
