//go:build !linux

package capped

// fallocate is unavailable off Linux; the caller writes zeros.
func fallocate(f File, size int64) (bool, error) { return false, nil }
