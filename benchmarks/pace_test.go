package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Sizes of BenchmarkReaperKeepsPace.
var (
	paceDur    = time.Duration(envInt("TTLKV_BENCH_PACE_SECS", 40)) * time.Second // each of its two writer runs
	paceAhead  = time.Second                                                      // how long after its insert a reaped run's document expires
	paceSample = 200 * time.Millisecond                                           // the lag sampler's period
)

// lagSample is one reading of the lag: at is the time since the writer
// started, lag how long the oldest document still present had been
// expired then (0 when none had).
type lagSample struct {
	at, lag time.Duration
	took    time.Duration // how long the reading's find took
}

// paceRun is what one writer run of BenchmarkReaperKeepsPace saw.
type paceRun struct {
	w       writerStats
	reaped  int64 // TTL deletes during the run
	samples []lagSample
	backlog int64 // documents present but expired when the writer stopped
}

// BenchmarkReaperKeepsPace measures whether the TTL monitor keeps pace
// with a writer whose documents all expire soon after they are written.
// On a real clock, with the monitor on and ttlMonitorSleepSecs 1, a
// writer inserts one document per transaction (InsertOne) flat out for
// TTLKV_BENCH_PACE_SECS (40) seconds into a collection with one TTL
// index (exp, expireAfterSeconds 0), each document dated one second
// after its insert. Every 200 ms a sampler reads the lag: how long ago
// the oldest document still present expired (0 if it has not), found
// with a find on exp sorted ascending, limit 1, through the TTL index.
//
// Keeping pace means the lag stays bounded: it is about the monitor's
// period plus one pass, a few seconds, and does not grow. lag-slope is
// the least-squares slope of the lag over the second half of the run,
// in seconds of lag per second: near 0 when the monitor keeps pace.
// When it has fallen behind, deleting oldest first at a rate below the
// writer's, the oldest date present moves on by reaped/s ÷ writes/s
// seconds per second while the clock moves by one, so the slope is
// about 1 − reaped/s ÷ writes/s (1: the monitor deletes nothing).
// lag-end-s is the mean lag over the last 10% of the samples and
// lag-max-s the largest; backlog is how many expired documents were
// still present when the writer stopped (the documents inserted, less
// those the monitor deleted, less those not yet expired, which the
// writer's own dates give). reaped/s is the monitor's deletes
// (Stats().TTLDeletedDocuments) over the run.
//
// The baseline, run first in the same iteration on a fresh engine, is
// the same writer (and sampler) alone for the same time, its documents
// dated far in the future so the monitor, still on, has nothing to
// reap. x-alone-tput is the writer's rate beside the reaper over its
// rate alone: what keeping pace costs the writer.
//
// TTLKV_BENCH_PACE_SAMPLES names a file to write the reaped run's
// samples to (seconds since the start, lag in seconds, find ms).
func BenchmarkReaperKeepsPace(b *testing.B) {
	for it := 0; it < b.N; it++ {
		alone := runPace(b, 10000*time.Hour)
		paced := runPace(b, paceAhead)
		if name := os.Getenv("TTLKV_BENCH_PACE_SAMPLES"); name != "" {
			var sb strings.Builder
			sb.WriteString("at_s\tlag_s\tfind_ms\n")
			for _, s := range paced.samples {
				fmt.Fprintf(&sb, "%.3f\t%.3f\t%.3f\n", s.at.Seconds(), s.lag.Seconds(), ms(s.took))
			}
			mustNoErr(b, os.WriteFile(name, []byte(sb.String()), 0o644), "write samples")
		}
		for _, s := range paced.samples {
			if s.at/(5*time.Second) != (s.at-paceSample)/(5*time.Second) {
				b.Logf("t=%5.1fs lag %.2fs", s.at.Seconds(), s.lag.Seconds())
			}
		}
		lags := paced.samples
		tail := lags[len(lags)-max(1, len(lags)/10):]
		var end time.Duration
		for _, s := range tail {
			end += s.lag
		}
		end /= time.Duration(len(tail))
		var lagMax, aloneLagMax time.Duration
		for _, s := range lags {
			lagMax = max(lagMax, s.lag)
		}
		for _, s := range alone.samples {
			aloneLagMax = max(aloneLagMax, s.lag)
		}
		var finds []time.Duration
		for _, s := range lags {
			finds = append(finds, s.took)
		}
		b.ReportMetric(paced.w.rate(), "writes/s")
		b.ReportMetric(alone.w.rate(), "alone-writes/s")
		b.ReportMetric(paced.w.rate()/alone.w.rate(), "x-alone-tput")
		b.ReportMetric(rate(int(paced.reaped), paced.w.dur), "reaped/s")
		b.ReportMetric(end.Seconds(), "lag-end-s")
		b.ReportMetric(lagMax.Seconds(), "lag-max-s")
		b.ReportMetric(lagSlope(lags, paced.w.dur/2), "lag-slope")
		b.ReportMetric(float64(paced.backlog), "backlog")
		b.ReportMetric(aloneLagMax.Seconds(), "alone-lag-max-s")
		b.ReportMetric(float64(alone.reaped), "alone-reaped")
		b.ReportMetric(ms(percentile(finds, 99)), "sample-p99-ms")
	}
}

// runPace opens a fresh engine (real clock, monitor on, every second)
// and runs the writer for paceDur, each document dated ahead after its
// insert, beside the lag sampler.
func runPace(b *testing.B, ahead time.Duration) paceRun {
	ctx := context.Background()
	db, err := engine.Open(b.TempDir(), engine.Options{Params: map[string]any{"ttlMonitorSleepSecs": 1}})
	mustNoErr(b, err, "engine open")
	c := ttlColl(b, db)
	// The writer's dates, in insert order (so ascending): the documents
	// not yet expired at the end are those dated after it.
	var dates []time.Time
	write := func(i int) error {
		exp := time.Now().Add(ahead)
		if _, err := c.InsertOne(ctx, makeDoc(i, exp)); err != nil {
			return err
		}
		dates = append(dates, exp.Truncate(time.Millisecond))
		return nil
	}
	before := db.Stats()
	start := time.Now()
	stop := make(chan struct{})
	sampled := make(chan []lagSample, 1)
	sampleErr := make(chan error, 1)
	go func() {
		samples, err := sampleLag(ctx, c, start, stop)
		sampled <- samples
		sampleErr <- err
	}()
	next := 0
	w, err := runWriter(write, &next, paceDur, nil)
	close(stop)
	mustNoErr(b, err, "writer")
	end := time.Now()
	after := db.Stats()
	samples := <-sampled
	mustNoErr(b, <-sampleErr, "lag sampler")
	if len(samples) == 0 {
		b.Fatal("the lag sampler took no sample")
	}
	inserted := after.Inserted - before.Inserted
	if inserted != int64(len(dates)) {
		b.Fatalf("Stats counted %d inserts, the writer made %d", inserted, len(dates))
	}
	// Present at end: inserted less deleted (the stats were read after
	// end, so a delete just after it counts: at most a few documents).
	// Not yet expired at end: dated after it; the monitor deletes none
	// of those before end.
	cut := end.Truncate(time.Millisecond)
	fresh := len(dates) - sort.Search(len(dates), func(i int) bool { return dates[i].After(cut) })
	reaped := after.TTLDeletedDocuments - before.TTLDeletedDocuments
	r := paceRun{w: w, reaped: reaped, samples: samples, backlog: inserted - reaped - int64(fresh)}
	mustNoErr(b, db.Close(), "close")
	return r
}

// sampleLag reads the lag every paceSample until stop closes. It finds
// the oldest document still present through the TTL index (exp
// ascending, limit 1), from the oldest date it found last time: the
// oldest date present never goes down (the writer's dates go up and the
// monitor deletes the oldest first), and starting there skips the
// deleted keys below it, which a scan from the index's start would
// walk over every time.
func sampleLag(ctx context.Context, c *engine.Collection, start time.Time, stop <-chan struct{}) ([]lagSample, error) {
	var samples []lagSample
	var lo time.Time // 0: no bound yet
	tick := time.NewTicker(paceSample)
	defer tick.Stop()
	opts := engine.FindOptions{Sort: bson.D{{Key: "exp", Value: 1}}, Projection: bson.D{{Key: "exp", Value: 1}, {Key: "_id", Value: 0}}}
	for {
		select {
		case <-stop:
			return samples, nil
		case <-tick.C:
		}
		now := time.Now()
		filter := bson.D{}
		if !lo.IsZero() {
			filter = bson.D{{Key: "exp", Value: bson.D{{Key: "$gte", Value: bson.NewDateTimeFromTime(lo)}}}}
		}
		d, err := c.FindOne(ctx, filter, opts)
		took := time.Since(now)
		var lag time.Duration
		switch {
		case errors.Is(err, engine.ErrNoDocuments):
		case err != nil:
			return samples, err
		default:
			var exp any
			for _, e := range d {
				if e.Key == "exp" {
					exp = e.Value
				}
			}
			dt, ok := exp.(bson.DateTime)
			if !ok {
				return samples, fmt.Errorf("oldest document is %v: no date exp", d)
			}
			lo = dt.Time()
			if now.After(lo) {
				lag = now.Sub(lo)
			}
		}
		samples = append(samples, lagSample{at: now.Sub(start), lag: lag, took: took})
	}
}

// lagSlope is the least-squares slope, in seconds of lag per second, of
// the samples taken from `from` on.
func lagSlope(samples []lagSample, from time.Duration) float64 {
	var n, sx, sy, sxx, sxy float64
	for _, s := range samples {
		if s.at < from {
			continue
		}
		x, y := s.at.Seconds(), s.lag.Seconds()
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	den := n*sxx - sx*sx
	if n < 2 || den == 0 {
		return math.NaN()
	}
	return (n*sxy - sx*sy) / den
}
