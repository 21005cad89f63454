package engine

import (
	"bufio"
	"context"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdHostInfo runs the hostInfo command (mongosh's db.hostInfo()): the
// machine the engine runs on, in mongod's shape {system, os, extra}.
// What the platform does not tell (memory without /proc/meminfo, the
// distribution without /etc/os-release) is left out rather than made
// up (docs/commands.md, "hostInfo").
func cmdHostInfo(_ context.Context, db *DB, _ string, _ bson.D) (bson.D, error) {
	host, _ := os.Hostname()
	sys := bson.D{
		{Key: "currentTime", Value: db.now()},
		{Key: "hostname", Value: host},
		{Key: "cpuAddrSize", Value: int32(strconv.IntSize)},
	}
	if mb, ok := memTotalMB(); ok {
		sys = append(sys, bson.E{Key: "memSizeMB", Value: int32OrLong(mb)}, bson.E{Key: "memLimitMB", Value: int32OrLong(mb)})
	}
	sys = append(sys,
		bson.E{Key: "numCores", Value: int32(runtime.NumCPU())},
		bson.E{Key: "numCoresAvailableToProcess", Value: int32(runtime.GOMAXPROCS(0))},
		bson.E{Key: "cpuArch", Value: cpuArch()},
		bson.E{Key: "numaEnabled", Value: false},
	)
	osDoc := bson.D{{Key: "type", Value: osType()}}
	if name := osReleaseName(); name != "" {
		osDoc = append(osDoc, bson.E{Key: "name", Value: name})
	}
	kernel := readTrimmed("/proc/sys/kernel/osrelease")
	if kernel != "" {
		osDoc = append(osDoc, bson.E{Key: "version", Value: "Kernel " + kernel})
	}
	extra := bson.D{}
	if v := readTrimmed("/proc/version"); v != "" {
		extra = append(extra, bson.E{Key: "versionString", Value: v})
	}
	if kernel != "" {
		extra = append(extra, bson.E{Key: "kernelVersion", Value: kernel})
	}
	extra = append(extra, bson.E{Key: "pageSize", Value: int64(os.Getpagesize())},
		bson.E{Key: "goVersion", Value: runtime.Version()})
	return bson.D{{Key: "system", Value: sys}, {Key: "os", Value: osDoc}, {Key: "extra", Value: extra}}, nil
}

// memTotalMB is the machine's memory in MiB, from /proc/meminfo.
func memTotalMB() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil || kb < 0 || kb > math.MaxInt64/1024 {
				return 0, false
			}
			return kb / 1024, true
		}
	}
	return 0, false
}

// cpuArch names the processor as uname -m does, as mongod reports it.
func cpuArch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "i686"
	}
	return runtime.GOARCH
}

// osType names the operating system as mongod's hostInfo does.
func osType() string {
	switch runtime.GOOS {
	case "linux":
		return "Linux"
	case "darwin":
		return "Darwin"
	case "windows":
		return "Windows"
	case "freebsd", "openbsd", "netbsd":
		return "BSD"
	}
	return runtime.GOOS
}

// osReleaseName is the distribution's PRETTY_NAME from /etc/os-release,
// or "" when there is none.
func osReleaseName() string {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			if u, err := strconv.Unquote(v); err == nil {
				return u
			}
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// readTrimmed is the content of a small system file without its
// surrounding space, or "" when it cannot be read.
func readTrimmed(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
