// Package workload is what the benchmarks (package benchmarks) and their
// SQLite peer (benchmarks/sqlitepeer, a module of its own) must do alike
// for their figures to compare: the fake clock's start, the documents
// both write, the nearest-rank percentile both report, and the readings
// of the process and of the data directory both take.
package workload

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BaseTime is the fake clock's start.
var BaseTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Filler pads documents to about 200 bytes encoded.
const Filler = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ut enim ad minim ven"

// Doc returns document i: an int64 _id, the indexed field n (Scramble(i),
// so inserts hit an index on it out of order), an expiry date exp, a
// name and Filler. It encodes to about 200 bytes, the same bytes in
// ttlkv, raw Badger and SQLite.
func Doc(i int, exp time.Time) bson.D {
	return bson.D{
		{Key: "_id", Value: int64(i)},
		{Key: "n", Value: Scramble(i)},
		{Key: "exp", Value: bson.NewDateTimeFromTime(exp)},
		{Key: "name", Value: "user-" + strconv.Itoa(i)},
		{Key: "pad", Value: Filler},
	}
}

// Scramble maps i to a distinct pseudo-random int64 (a bijection on
// uint32), so index keys arrive in random order.
func Scramble(i int) int64 {
	x := uint32(i)
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return int64(x)
}

// Percentile returns the p-th percentile (0..100) of ds by nearest
// rank, 0 for none. It sorts ds in place.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	k := int(math.Ceil(p/100*float64(len(ds)))) - 1
	if k < 0 {
		k = 0
	}
	return ds[k]
}

// DirBytes is the disk space the files under dir occupy (allocated
// blocks, so preallocated but unwritten space does not count), and their
// apparent size. Files it cannot read count as nothing.
func DirBytes(dir string) (alloc, apparent int64) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		apparent += info.Size()
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			alloc += st.Blocks * 512
		}
		return nil
	})
	return alloc, apparent
}

// Memory is this process's memory as /proc/self/status gives it, in
// bytes; a field the kernel does not report stays 0.
type Memory struct {
	RSS, HWM   int64 // VmRSS, VmHWM
	Anon, File int64 // RssAnon, RssFile
}

// ReadMemory reads Memory; all zero where there is no /proc.
func ReadMemory() Memory {
	var m Memory
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return m
	}
	for _, line := range strings.Split(string(b), "\n") {
		for name, dst := range map[string]*int64{"VmRSS:": &m.RSS, "VmHWM:": &m.HWM, "RssAnon:": &m.Anon, "RssFile:": &m.File} {
			if rest, ok := strings.CutPrefix(line, name); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				*dst = kb << 10
			}
		}
	}
	return m
}

// WriteBytes is /proc/self/io's write_bytes: the bytes this process
// caused to be sent to the device; 0 where there is no /proc.
func WriteBytes() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "write_bytes:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			return n
		}
	}
	return 0
}
