//go:build linux

package engine

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// mongod accepts a capped size up to 1 PiB and allocates as the
// collection fills; ttlkv allocates the ring whole, so a size the disk
// cannot hold is 14031 OutOfDiskSpace at once, leaving no file and no
// collection (it used to write zeros until the disk was full).
func TestCappedCreateLargerThanDisk(t *testing.T) {
	t.Parallel()
	// The file system under the test must refuse the allocation as
	// Linux file systems with fallocate do (ext4, xfs, btrfs, tmpfs).
	probe := filepath.Join(t.TempDir(), "probe")
	f, err := os.Create(probe)
	if err != nil {
		t.Fatal(err)
	}
	err = syscall.Fallocate(int(f.Fd()), 0, 0, 1<<50)
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) && !errors.Is(err, syscall.EFBIG) {
		t.Skipf("the test file system answers a 1 PiB fallocate with %v, not ENOSPC or EFBIG", err)
	}
	db, _, dir := openTest(t)
	wantCode(t, db, "test", `{"create": "big", "capped": true, "size": 1125899906842624}`, document.CodeOutOfDiskSpace,
		"cannot allocate the 1125899906842624-byte ring file of capped collection test.big")
	if db.lookup("test", "big") != nil {
		t.Fatal("the collection exists")
	}
	ents, _ := os.ReadDir(filepath.Join(dir, cappedDir))
	if len(ents) != 0 {
		t.Fatalf("ring files left: %v", ents)
	}
	createCapped(t, db, "small", 4096, 0) // the engine goes on
}
