package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/ttlkv/ttlkv/benchmarks/internal/workload"
	"github.com/ttlkv/ttlkv/document"
)

// oneOffResult is what the one-off mode prints after "SQLITEONEOFF ".
type oneOffResult struct {
	N         int     `json:"n"`         // documents ingested
	IngestS   float64 `json:"ingestS"`   // seconds from the first insert to the last commit
	IngestCPU float64 `json:"ingestCPU"` // process CPU seconds over the ingest
	IngestWB  float64 `json:"ingestWB"`  // bytes written to the device over the ingest, per byte inserted
	Disk      int64   `json:"disk"`      // allocated bytes of the directory after the ingest
	Reaped    int64   `json:"reaped"`    // rows deleted by the reap (0 without -reap)
	ReapS     float64 `json:"reapS"`     // seconds of the reap
	ReapCPU   float64 `json:"reapCPU"`   // process CPU seconds over the reap
	Left      int64   `json:"left"`      // rows present after the reap
	HWM       int64   `json:"hwm"`       // peak RSS of the process
}

// halfExpired is the benchmarks' date of document i in BenchmarkReap
// (benchmarks/ttl_test.go): even documents dated from workload.BaseTime on
// (expired once the clock passed BaseTime + 2 h), odd ones 10,000 hours
// later.
func halfExpired(i int) time.Time {
	if i%2 == 0 {
		return workload.BaseTime.Add(time.Duration(i) * time.Millisecond)
	}
	return workload.BaseTime.Add(10000*time.Hour + time.Duration(i)*time.Millisecond)
}

// noExpiry is BenchmarkInsert's date: far after every cutoff.
func noExpiry(int) time.Time { return workload.BaseTime.Add(1000 * time.Hour) }

// reapCutoff is the one-off reap's cutoff: BenchmarkReap's clock after
// it moved two hours.
var reapCutoff = workload.BaseTime.Add(2 * time.Hour)

// runOneOff ingests n documents in transactions of batch documents into
// a fresh database in dir with the secondary index ix (indexDate: dated
// halfExpired; indexN: dated noExpiry), then, if reap, deletes the rows
// dated before reapCutoff in batches of reapSize, and prints one
// "SQLITEONEOFF {json}" line to out.
func runOneOff(ctx context.Context, out io.Writer, dir string, n, batch int, ix indexOn, reap bool, reapSize int) (oneOffResult, error) {
	res := oneOffResult{N: n}
	if n < 1 || batch < 1 || reapSize < 1 {
		return res, fmt.Errorf("n %d, batch %d, reap batch %d: each must be at least 1", n, batch, reapSize)
	}
	s, err := openStore(ctx, dir, ix, reapSize)
	if err != nil {
		return res, err
	}
	defer s.close()
	date := halfExpired
	if ix == indexN {
		date = noExpiry
	}
	var docBytes int64
	cpu0, wb0, t0 := cpuTime(), workload.WriteBytes(), time.Now()
	for from := 0; from < n; from += batch {
		if err := s.insert(ctx, from, min(batch, n-from), date); err != nil {
			return res, err
		}
	}
	res.IngestS, res.IngestCPU = time.Since(t0).Seconds(), (cpuTime() - cpu0).Seconds()
	wb := workload.WriteBytes() - wb0
	// Bytes inserted, counted outside the timed part.
	for i := 0; i < n; i++ {
		b, err := document.Marshal(workload.Doc(i, date(i)))
		if err != nil {
			return res, err
		}
		docBytes += int64(len(b))
	}
	if docBytes > 0 {
		res.IngestWB = float64(wb) / float64(docBytes)
	}
	res.Disk, _ = workload.DirBytes(dir)
	if reap {
		cpu0, t0 = cpuTime(), time.Now()
		res.Reaped, err = s.reap(ctx, reapCutoff, nil, nil)
		res.ReapS, res.ReapCPU = time.Since(t0).Seconds(), (cpuTime() - cpu0).Seconds()
		if err != nil {
			return res, err
		}
	}
	if res.Left, err = s.count(ctx); err != nil {
		return res, err
	}
	res.HWM = sampleProc(dir).hwm
	b, err := json.Marshal(res)
	if err != nil {
		return res, err
	}
	_, err = fmt.Fprintf(out, "SQLITEONEOFF %s\n", b)
	return res, err
}
