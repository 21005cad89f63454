package benchmarks

import (
	"context"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/ttlkv/ttlkv/engine"
	"github.com/ttlkv/ttlkv/wire"
)

// The wire benchmarks compare, in the same iteration, three ways to
// the same engine: the embedded Go API, the official Go driver through
// the in-process dialer, and the driver over loopback TCP. Each way gets
// a fresh data directory; the order of the three alternates between
// runs.

func wireEnvInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// wireTarget is one way in: ins and find run a batch insert and a full
// read; one runs a single-document insert then a find by _id.
type wireTarget struct {
	name  string
	close func()
	ins   func(docs []any)
	find  func() int
	one   func(id int)
}

func openWireTarget(b *testing.B, kind string) *wireTarget {
	b.Helper()
	db, err := engine.Open(b.TempDir(), engine.Options{DisableTTLMonitor: true})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	t := &wireTarget{name: kind}
	if kind == "embedded" {
		c := db.Database("bench").Collection("docs")
		t.ins = func(docs []any) {
			if _, err := c.InsertMany(ctx, docs, true); err != nil {
				b.Fatal(err)
			}
		}
		t.find = func() int {
			cur, err := c.Find(ctx, bson.D{})
			if err != nil {
				b.Fatal(err)
			}
			all, err := cur.All(ctx)
			if err != nil {
				b.Fatal(err)
			}
			return len(all)
		}
		t.one = func(id int) {
			if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "s", Value: "x"}}); err != nil {
				b.Fatal(err)
			}
			if _, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
				b.Fatal(err)
			}
		}
		t.close = func() { db.Close() }
		return t
	}
	srv := wire.NewServer(db, wire.Options{})
	o := options.Client()
	if kind == "inproc" {
		o.ApplyURI("mongodb://ttlkv.local").SetDialer(srv.Dialer())
	} else {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		go srv.Serve(l)
		o.ApplyURI("mongodb://" + l.Addr().String())
	}
	client, err := mongo.Connect(o)
	if err != nil {
		b.Fatal(err)
	}
	c := client.Database("bench").Collection("docs")
	t.ins = func(docs []any) {
		if _, err := c.InsertMany(ctx, docs); err != nil {
			b.Fatal(err)
		}
	}
	t.find = func() int {
		cur, err := c.Find(ctx, bson.D{})
		if err != nil {
			b.Fatal(err)
		}
		var all []bson.D
		if err := cur.All(ctx, &all); err != nil {
			b.Fatal(err)
		}
		return len(all)
	}
	t.one = func(id int) {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "s", Value: "x"}}); err != nil {
			b.Fatal(err)
		}
		if err := c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Err(); err != nil {
			b.Fatal(err)
		}
	}
	t.close = func() {
		client.Disconnect(ctx)
		srv.Close()
		db.Close()
	}
	return t
}

var wireKinds = []string{"embedded", "inproc", "tcp"}

// wireRotate is the order of the three ways for step i: each goes
// first, second and third equally often, so load that comes and goes
// on the machine hits all three alike.
func wireRotate(i int) []string {
	k := i % 3
	return []string{wireKinds[k], wireKinds[(k+1)%3], wireKinds[(k+2)%3]}
}

// BenchmarkWireInsertMany inserts TTLKV_BENCH_WIRE_BATCHES (default 20)
// batches of 1000 documents of about 150 bytes, then reads them all
// back, through each way in; the three ways take turns batch by batch.
// Reported: docs/s of each and the driver's ratios to the embedded API
// (tcp-x-embedded is issue 16's >= 0.7x).
func BenchmarkWireInsertMany(b *testing.B) {
	batches := wireEnvInt("TTLKV_BENCH_WIRE_BATCHES", 20)
	const batch = 1000
	pad := strings.Repeat("p", 100)
	for it := 0; it < b.N; it++ {
		ts := map[string]*wireTarget{}
		for _, k := range wireKinds {
			ts[k] = openWireTarget(b, k)
		}
		ins, find := map[string]time.Duration{}, map[string]time.Duration{}
		for k := range batches {
			docs := make([]any, batch)
			for i := range docs {
				n := k*batch + i
				docs[i] = bson.D{{Key: "_id", Value: n}, {Key: "n", Value: n}, {Key: "s", Value: pad}}
			}
			for _, kind := range wireRotate(k) {
				start := time.Now()
				ts[kind].ins(docs)
				ins[kind] += time.Since(start)
			}
		}
		for r := range 3 {
			for _, kind := range wireRotate(r) {
				start := time.Now()
				if got := ts[kind].find(); got != batches*batch {
					b.Fatalf("%s: read %d documents, want %d", kind, got, batches*batch)
				}
				find[kind] += time.Since(start)
			}
		}
		for _, k := range wireKinds {
			ts[k].close()
		}
		n := batches * batch
		for _, k := range wireKinds {
			b.ReportMetric(rate(n, ins[k]), k+"-ins-docs/s")
			b.ReportMetric(rate(3*n, find[k]), k+"-find-docs/s")
		}
		b.ReportMetric(ins["embedded"].Seconds()/ins["tcp"].Seconds(), "tcp-x-embedded")
		b.ReportMetric(ins["embedded"].Seconds()/ins["inproc"].Seconds(), "inproc-x-embedded")
		b.ReportMetric(find["embedded"].Seconds()/find["tcp"].Seconds(), "find-tcp-x-embedded")
	}
}

// BenchmarkWireRoundTrip runs TTLKV_BENCH_WIRE_OPS (default 2000)
// single-document round trips (insertOne, then find by _id) through
// each way in, taking turns op by op, and reports the median of each
// and the driver's p50 overhead over the embedded call in µs (issue
// 16's <= 100 µs).
func BenchmarkWireRoundTrip(b *testing.B) {
	ops := wireEnvInt("TTLKV_BENCH_WIRE_OPS", 2000)
	for it := 0; it < b.N; it++ {
		ts := map[string]*wireTarget{}
		lat := map[string][]time.Duration{}
		for _, k := range wireKinds {
			ts[k] = openWireTarget(b, k)
			ts[k].one(-1) // connect and warm up
		}
		for i := range ops {
			for _, kind := range wireRotate(i) {
				start := time.Now()
				ts[kind].one(i)
				lat[kind] = append(lat[kind], time.Since(start))
			}
		}
		p50 := map[string]time.Duration{}
		for _, k := range wireKinds {
			ts[k].close()
			l := lat[k]
			sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
			p50[k] = l[len(l)/2]
			b.ReportMetric(float64(p50[k].Microseconds()), k+"-p50-µs")
		}
		b.ReportMetric(float64((p50["tcp"] - p50["embedded"]).Microseconds()), "tcp-overhead-p50-µs")
		b.ReportMetric(float64((p50["inproc"] - p50["embedded"]).Microseconds()), "inproc-overhead-p50-µs")
	}
}
