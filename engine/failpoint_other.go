//go:build !unix

package engine

import "os"

// killSelf ends this process at once, without running deferred
// functions, as in a crash: os.Process.Kill (TerminateProcess on
// Windows), or os.Exit(2) where a process cannot kill itself. The kill
// may take effect after killSelf returns; the caller must not proceed.
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil && p.Kill() == nil {
		return
	}
	os.Exit(2)
}
