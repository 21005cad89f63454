package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/ttlkv/ttlkv/engine"
)

// openError says why a data directory could not be opened, in one
// sentence a user can act on. A permission problem is reported as one,
// not as a lock held elsewhere (Badger's lock file is where it shows
// first). A directory held by another process cannot be opened at all,
// not even to read: Badger's lock is exclusive, so the way to use it
// meanwhile is through the process that holds it.
func openError(dir string, err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, fs.ErrPermission) || strings.Contains(msg, "permission denied"):
		return fmt.Errorf("cannot open data directory %s: permission denied: this user must be able to read and write the directory and every file in it (%v)", dir, rootCause(err))
	case errors.Is(err, engine.ErrLocked):
		// Badger's lock error repeats this three times over; say it once.
		return fmt.Errorf("data directory %s is in use by another process (is 'ttlkv serve' or another ttlkv running on it?). "+
			"Badger lets one process open a directory at a time, even to read: stop that process first, "+
			"or run this in it (e.g. in 'ttlkv shell' if that is the holder); to share a directory, run 'ttlkv serve' on it and give the other commands --uri mongodb://127.0.0.1:27017", dir)
	}
	return fmt.Errorf("cannot open data directory %s: %w", dir, err)
}

// rootCause returns the innermost wrapped error.
func rootCause(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}
