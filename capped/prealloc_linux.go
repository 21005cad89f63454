//go:build linux

package capped

import (
	"errors"
	"syscall"
)

// fallocate reserves size bytes for f when f is backed by a Linux file
// descriptor. It reports whether the space is now allocated; on false
// with a nil error (no descriptor, or a file system without fallocate)
// the caller writes zeros instead. An error is ErrNoSpace: the file
// system cannot hold size bytes, and writing zeros would only fill it.
func fallocate(f File, size int64) (bool, error) {
	fd, ok := f.(interface{ Fd() uintptr })
	if !ok {
		return false, nil
	}
	err := syscall.Fallocate(int(fd.Fd()), 0, 0, size)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EFBIG):
		return false, errors.Join(ErrNoSpace, err)
	}
	return false, nil
}
