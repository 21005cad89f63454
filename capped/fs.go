package capped

import (
	"os"
	"path/filepath"
)

// FS is the file-system seam the ring uses for every operation, so tests
// can inject faults. OSFS is the real one.
type FS interface {
	// OpenFile opens a file as os.OpenFile does.
	OpenFile(name string, flag int, perm os.FileMode) (File, error)
	// Remove deletes a file as os.Remove does.
	Remove(name string) error
	// SyncDir fsyncs a directory so that creates and removes in it are durable.
	SyncDir(dir string) error
}

// File is the subset of *os.File the ring uses.
type File interface {
	ReadAt(p []byte, off int64) (int, error)
	WriteAt(p []byte, off int64) (int, error)
	Sync() error
	Close() error
	Truncate(size int64) error
	Stat() (os.FileInfo, error)
}

// OSFS is the FS of the operating system. Its zero value is ready to use.
type OSFS struct{}

// OpenFile calls os.OpenFile.
func (OSFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Remove calls os.Remove.
func (OSFS) Remove(name string) error { return os.Remove(name) }

// SyncDir opens dir and fsyncs it.
func (OSFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return err
	}
	return d.Close()
}

// Remove deletes the ring file at path and syncs its directory. A nil fs
// means OSFS. The ring must be closed first.
func Remove(path string, fs FS) error {
	if fs == nil {
		fs = OSFS{}
	}
	if err := fs.Remove(path); err != nil {
		return err
	}
	return fs.SyncDir(filepath.Dir(path))
}
