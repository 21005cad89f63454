// Command sqlitepeer runs the benchmarks' workloads on SQLite
// (modernc.org/sqlite, pure Go) so that ttlkv's benchmarks can report
// ratios against it in the same run: SQLite in WAL mode with
// synchronous=NORMAL, one table (id INTEGER PRIMARY KEY holding the
// document's _id, createdAt as Unix milliseconds, the document in
// ttlkv's encoding as a BLOB), an index on createdAt, inserts in
// transactions of the benchmark's batch, and a reaper deleting expired
// rows (DELETE ... WHERE createdAt <= ? in bounded batches: at or before
// the cut-off is expired, as in docs/ttl-indexes.md).
//
// It lives in a module of its own so that ttlkv's build and CI never
// compile SQLite; benchmarks/sqlitepeer/build.sh builds it and prints
// the path to give the benchmarks as TTLKV_BENCH_SQLITE.
//
// Usage:
//
//	sqlitepeer steady
//	    the steady-state child of benchmarks/steady_test.go: reads
//	    TTLKV_STEADY_DIR and TTLKV_STEADY_CFG as the harness's own child
//	    does and prints one "STEADYWIN {json}" line a window.
//	sqlitepeer oneoff --dir D --n N [--batch 1000] [--index exp|n] [--reap]
//	    ingests N documents (index exp: half of them expired; index n:
//	    BenchmarkInsert's index on the scrambled n), optionally reaps the
//	    expired half, and prints one "SQLITEONEOFF {json}" line.
//
// TTLKV_BENCH_SQLITE_REAP_BATCH (default 1000) and --reap-batch set the
// rows a delete statement removes.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/pflag"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "sqlitepeer:", err)
		os.Exit(1)
	}
}

// defaultReapBatch is the rows a delete statement removes unless told.
const defaultReapBatch = 1000

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: sqlitepeer steady | oneoff --dir D --n N [--batch B] [--index exp|n] [--reap]")
	}
	reapSize := defaultReapBatch
	if s := os.Getenv("TTLKV_BENCH_SQLITE_REAP_BATCH"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fmt.Errorf("TTLKV_BENCH_SQLITE_REAP_BATCH %q: want a positive count", s)
		}
		reapSize = n
	}
	ctx := context.Background()
	switch args[0] {
	case "steady":
		dir := os.Getenv("TTLKV_STEADY_DIR")
		if dir == "" {
			return fmt.Errorf("steady: TTLKV_STEADY_DIR is not set")
		}
		cfg, err := parseSteadyConfig(os.Getenv("TTLKV_STEADY_CFG"))
		if err != nil {
			return err
		}
		return runSteady(ctx, os.Stdout, dir, cfg, reapSize)
	case "oneoff":
		fs := pflag.NewFlagSet("oneoff", pflag.ContinueOnError)
		dir := fs.String("dir", "", "an empty directory for the database")
		n := fs.Int("n", 0, "documents to ingest")
		batch := fs.Int("batch", 1000, "documents a transaction")
		ix := fs.String("index", string(indexDate), "the secondary index: exp (createdAt) or n")
		reap := fs.Bool("reap", false, "then delete the expired half")
		fs.IntVar(&reapSize, "reap-batch", reapSize, "rows a delete statement removes")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *dir == "" {
			return fmt.Errorf("oneoff: --dir is required")
		}
		if *ix != string(indexDate) && *ix != string(indexN) {
			return fmt.Errorf("oneoff: --index %q, want exp or n", *ix)
		}
		_, err := runOneOff(ctx, os.Stdout, *dir, *n, *batch, indexOn(*ix), *reap, reapSize)
		return err
	}
	return fmt.Errorf("unknown mode %q: want steady or oneoff", args[0])
}
