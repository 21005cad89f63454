//go:build linux

package capped

import "syscall"

// fallocate reserves size bytes for f when f is backed by a Linux file
// descriptor. It reports whether the space is now allocated; on false the
// caller writes zeros instead.
func fallocate(f File, size int64) bool {
	fd, ok := f.(interface{ Fd() uintptr })
	if !ok {
		return false
	}
	return syscall.Fallocate(int(fd.Fd()), 0, 0, size) == nil
}
