package benchmarks

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// sqlitePeer is the SQLite peer's binary (benchmarks/sqlitepeer, a
// module of its own: `sh benchmarks/sqlitepeer/build.sh` builds it and
// prints its path), from TTLKV_BENCH_SQLITE. When set, the steady-state
// benchmarks run one more side, "sqlite", and BenchmarkInsert and
// BenchmarkReap run SQLite's one-off beside ttlkv in each iteration;
// when empty, SQLite is left out and nothing here is built or needed.
var sqlitePeer = os.Getenv("TTLKV_BENCH_SQLITE")

// sqliteSide is the steady-state side that runs sqlitePeer: SQLite in
// WAL mode, synchronous=NORMAL, the documents as BLOB rows keyed by
// their _id, an index on their date, a transaction a batch, and a
// reaper deleting expired rows in batches of 1000 every second (in
// compressed time, every tick).
const sqliteSide = "sqlite"

// defaultSteadySides are the steady-state sides without
// TTLKV_BENCH_STEADY_SIDES: the four of ttlkv and raw Badger, and sqlite
// when TTLKV_BENCH_SQLITE names the peer.
func defaultSteadySides() string {
	if sqlitePeer != "" {
		return "badger,ordinary,clustered,nottl," + sqliteSide
	}
	return "badger,ordinary,clustered,nottl"
}

// steadyChildCommand is the command that runs side as a steady-state
// child: this test binary re-executed, or the SQLite peer.
func steadyChildCommand(tb testing.TB, side string) *exec.Cmd {
	tb.Helper()
	if side != sqliteSide {
		return exec.Command(os.Args[0], "-test.run=^TestSteadyChild$", "-test.v", "-test.timeout=0")
	}
	if sqlitePeer == "" {
		tb.Fatalf("side %s needs TTLKV_BENCH_SQLITE: the path sh benchmarks/sqlitepeer/build.sh prints", sqliteSide)
	}
	return exec.Command(sqlitePeer, "steady")
}

// sqliteOneOff is what the peer's one-off mode prints after
// "SQLITEONEOFF " (benchmarks/sqlitepeer/oneoff.go).
type sqliteOneOff struct {
	N         int     `json:"n"`
	IngestS   float64 `json:"ingestS"`   // seconds from the first insert to the last commit
	IngestCPU float64 `json:"ingestCPU"` // process CPU seconds over the ingest
	IngestWB  float64 `json:"ingestWB"`  // bytes written to the device over the ingest per byte inserted
	Disk      int64   `json:"disk"`      // allocated bytes after the ingest
	Reaped    int64   `json:"reaped"`
	ReapS     float64 `json:"reapS"`
	ReapCPU   float64 `json:"reapCPU"`
	Left      int64   `json:"left"` // rows present at the end
	HWM       int64   `json:"hwm"`  // peak RSS
}

// runSQLiteOneOff has the peer ingest n documents in transactions of
// benchBatch into a fresh directory, with the index on the date (index
// "exp", dated as halfExpired) or on n (index "n", dated noExpiry), and
// with reap delete the expired half; it checks the counts.
func runSQLiteOneOff(tb testing.TB, n int, index string, reap bool) sqliteOneOff {
	tb.Helper()
	args := []string{"oneoff", "--dir", tb.TempDir(), "--n", fmt.Sprint(n), "--batch", fmt.Sprint(benchBatch), "--index", index}
	if reap {
		args = append(args, "--reap")
	}
	out, err := exec.Command(sqlitePeer, args...).CombinedOutput()
	if err != nil {
		tb.Fatalf("sqlite peer %v: %v\n%s", args, err, out)
	}
	var res sqliteOneOff
	found := false
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "SQLITEONEOFF "); ok {
			mustNoErr(tb, json.Unmarshal([]byte(rest), &res), "sqlite peer result")
			found = true
		}
	}
	if !found {
		tb.Fatalf("sqlite peer printed no result:\n%s", out)
	}
	want := int64(n)
	if reap {
		want = int64(n / 2)
		if res.Reaped != int64((n+1)/2) {
			tb.Fatalf("sqlite peer reaped %d, want %d", res.Reaped, (n+1)/2)
		}
	}
	if res.N != n || res.Left != want || res.IngestS <= 0 {
		tb.Fatalf("sqlite peer: %+v, want %d ingested and %d left", res, n, want)
	}
	return res
}

// TestSQLitePeerProtocol runs the SQLite peer (skipped unless
// TTLKV_BENCH_SQLITE names it) as a steady-state side in a short
// compressed run and as a one-off, and checks what the harness reads:
// a window a window with the live set held at the bound, and the
// one-off's counts (runSQLiteOneOff checks them).
func TestSQLitePeerProtocol(t *testing.T) {
	if sqlitePeer == "" {
		t.Skip("set TTLKV_BENCH_SQLITE to the path sh benchmarks/sqlitepeer/build.sh prints")
	}
	t.Parallel()
	cfg := steadyConfig{Mode: modeCompressed, Rate: 2000, TTL: 3, Window: 2, Windows: 4}
	ws := runSteadyChild(t, sqliteSide, cfg)
	if len(ws) != cfg.Windows {
		t.Fatalf("%d windows, want %d", len(ws), cfg.Windows)
	}
	for _, w := range ws {
		if w.Side != sqliteSide || w.Inserted != int64(cfg.Rate*cfg.Window) || w.CPUus <= 0 || !w.BoundMet {
			t.Errorf("window %+v", w)
		}
	}
	if m := steadyMedians(ws, cfg); m.Live > int64(cfg.Rate*cfg.TTL) || m.Live == 0 {
		t.Errorf("live median %d, want in (0, %d]", m.Live, cfg.Rate*cfg.TTL)
	}
	res := runSQLiteOneOff(t, 3000, "exp", true)
	if res.ReapS <= 0 {
		t.Errorf("one-off: %+v", res)
	}
}
