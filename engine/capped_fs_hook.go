package engine

import (
	"errors"
	"fmt"

	"github.com/ttlkv/ttlkv/capped"
)

// ringFSSeam is the type of Options.ringFS: the file system capped ring
// files are opened through; nil means the operating system's.
type ringFSSeam = capped.FS

// SetRingFSForTesting makes databases opened with o open their capped
// ring files through fsys instead of the operating system (directories
// and Badger are unaffected). It is a test seam for fault injection
// (package fuzz): production code never calls it.
func SetRingFSForTesting(o *Options, fsys capped.FS) { o.ringFS = fsys }

// cappedFailedErr explains a ring that failed an I/O operation: it
// refuses every later write (capped.ErrFailed) until the database is
// reopened. Other errors are returned unchanged.
func cappedFailedErr(c *coll, err error) error {
	if errors.Is(err, capped.ErrFailed) {
		return fmt.Errorf("engine: capped collection %s refuses writes after an I/O error on its ring file until the database is closed and reopened (acknowledged writes are kept): %w", c.m().ns(), err)
	}
	return err
}
