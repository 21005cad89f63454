package fuzz

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// procStatus returns a field of /proc/self/status in kB (VmHWM, VmRSS).
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return n
		}
	}
	return -1
}

// openFDs counts the entries of /proc/self/fd.
func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// TestSoak runs concurrent clients against one durable engine with the
// TTL monitor on (1 s), a clock running 600 times real time, and space
// reclamation, for TTLKV_SOAK (a Go duration, e.g. 10m). It reports
// operations done, errors by code, peak RSS (VmHWM) and open file
// descriptors, and fails on an untyped error or a collection that does
// not validate. Run it under -race.
func TestSoak(t *testing.T) {
	t.Parallel()
	spec := os.Getenv("TTLKV_SOAK")
	if spec == "" {
		t.Skip("set TTLKV_SOAK=duration to run the soak test")
	}
	dur, err := time.ParseDuration(spec)
	if err != nil {
		t.Fatalf("TTLKV_SOAK=%q: %v", spec, err)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("soak seed %d, duration %v", seed, dur)
	start := time.Now()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return base.Add(time.Since(start) * 600) }
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Clock: clock, Params: map[string]any{"ttlMonitorSleepSecs": 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d := db.Database("soak")
	for _, cn := range []string{"a", "b"} {
		if _, err := d.Collection(cn).CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "exp", Value: 1}},
			Options: bson.D{{Key: "expireAfterSeconds", Value: 0}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Collection(cn).CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}}); err != nil {
			t.Fatal(err)
		}
	}
	fds0 := openFDs()
	var ops atomic.Int64
	var mu sync.Mutex
	errs := map[string]int64{}
	var untyped []string
	record := func(err error) {
		ops.Add(1)
		if err == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		var e *document.Error
		if errors.As(err, &e) {
			errs[fmt.Sprintf("%d %s", e.Code, e.Code)]++
			return
		}
		errs["untyped"]++
		if len(untyped) < 10 {
			untyped = append(untyped, err.Error())
		}
	}
	stop := make(chan struct{})
	var peakFDs atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // sampler
		defer wg.Done()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			if n := int64(openFDs()); n > peakFDs.Load() {
				peakFDs.Store(n)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	const clients = 8
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			for {
				select {
				case <-stop:
					return
				default:
				}
				c := d.Collection([]string{"a", "b"}[r.IntN(2)])
				k := r.IntN(5000)
				exp := bson.NewDateTimeFromTime(clock().Add(time.Duration(r.IntN(600)-60) * time.Second))
				switch p := r.IntN(100); {
				case p < 40:
					docs := make([]any, 1+r.IntN(20))
					for i := range docs {
						docs[i] = bson.D{{Key: "k", Value: int64(k + i)}, {Key: "exp", Value: exp}, {Key: "pad", Value: strings.Repeat("s", r.IntN(500))}}
					}
					_, err := c.InsertMany(ctx, docs, r.IntN(2) == 0)
					record(err)
				case p < 60:
					_, err := c.UpdateMany(ctx, bson.D{{Key: "k", Value: bson.D{{Key: "$gte", Value: int64(k)}, {Key: "$lt", Value: int64(k + 10)}}}},
						bson.D{{Key: "$set", Value: bson.D{{Key: "exp", Value: exp}}}, {Key: "$inc", Value: bson.D{{Key: "n", Value: int32(1)}}}}, false)
					record(err)
				case p < 70:
					_, err := c.DeleteMany(ctx, bson.D{{Key: "k", Value: int64(k)}})
					record(err)
				case p < 90:
					cur, err := c.Find(ctx, bson.D{{Key: "k", Value: bson.D{{Key: "$gte", Value: int64(k)}}}}, engine.FindOptions{Limit: 50})
					if err == nil {
						_, err = cur.All(ctx)
					}
					record(err)
				case p < 97:
					_, err := c.CountDocuments(ctx, bson.D{{Key: "exp", Value: bson.D{{Key: "$lte", Value: exp}}}})
					record(err)
				default:
					// A bad command now and then: errors must stay typed.
					_, err := d.RunCommand(ctx, bson.D{{Key: "createIndexes", Value: "a"}, {Key: "indexes", Value: bson.A{bson.D{
						{Key: "key", Value: bson.D{{Key: "t", Value: int32(1)}}}, {Key: "name", Value: "t"}, {Key: "expireAfterSeconds", Value: int32(-1)}}}}})
					record(err)
				}
			}
		}()
	}
	deadline := time.NewTimer(dur)
	<-deadline.C
	close(stop)
	wg.Wait()
	elapsed := time.Since(start)
	ss, err := db.RunCommand(ctx, "admin", bson.D{{Key: "serverStatus", Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	validateAll(t, db, "soak")
	if err := db.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	var codes []string
	for c, n := range errs {
		codes = append(codes, fmt.Sprintf("%s: %d", c, n))
	}
	sort.Strings(codes)
	ttl, _ := document.Lookup(ss, "metrics.ttl")
	t.Logf("soak: %v, %d clients, %d ops (%.0f/s), errors by code {%s}", elapsed.Round(time.Second), clients, ops.Load(),
		float64(ops.Load())/elapsed.Seconds(), strings.Join(codes, ", "))
	t.Logf("soak: ttl %v", ttl)
	t.Logf("soak: peak RSS (VmHWM) %d MiB, open fds %d at start, peak %d, %d after close", procStatus("VmHWM")/1024, fds0, peakFDs.Load(), openFDs())
	if len(untyped) > 0 {
		t.Errorf("untyped errors: %v", untyped)
	}
}
