//go:build unix

package engine

import (
	"os"
	"syscall"
)

// killSelf sends SIGKILL to this process: it dies at once, without
// running deferred functions or flushing anything, as in a crash. The
// signal may arrive after killSelf returns; the caller must not proceed.
func killSelf() {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
}
