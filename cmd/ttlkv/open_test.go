package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenPermissionDenied: a data directory this user may not use is
// reported as a permission problem, not as "in use by another process".
// As root, permissions do not apply, so the command runs as nobody.
func TestOpenPermissionDenied(t *testing.T) {
	t.Parallel()
	// A directory others may enter, holding the data directory (0700,
	// this user's) and, as root, a copy of the test binary nobody may run.
	base, err := os.MkdirTemp("", "ttlkv-perm")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	must(t, os.Chmod(base, 0o755))
	dir := filepath.Join(base, "data")
	if _, errOut, code := cli(t, nil, dir, "", "run", `{"ping": 1}`); code != 0 {
		t.Fatal(errOut)
	}
	cmd := ttlkvProcess(t, dir, "run", `{"ping": 1}`)
	if os.Getuid() == 0 {
		bin, err := os.ReadFile(os.Args[0])
		must(t, err)
		cmd.Path = filepath.Join(base, "ttlkv.test")
		must(t, os.WriteFile(cmd.Path, bin, 0o755))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Env = append(cmd.Env, "HOME="+base)
	} else {
		must(t, os.Chmod(dir, 0))
		defer os.Chmod(dir, 0o700)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run the test binary as another user: %v", err)
	}
	code := waitExit(t, cmd)
	if strings.Contains(errb.String(), "fork/exec") || strings.Contains(errb.String(), "exec format") {
		t.Skipf("cannot run the test binary as another user: %s", errb.String())
	}
	if code != 1 || !strings.Contains(errb.String(), "cannot open data directory "+dir+": permission denied") || strings.Contains(errb.String(), "in use") {
		t.Errorf("exit %d, stderr %q: want a permission problem, not 'in use'", code, errb.String())
	}
}
