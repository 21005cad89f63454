package wire

import (
	"context"
	"net"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// timedListener hands the server connections that record, for every
// reply, how long the server held the request (from the read that
// brought it to the reply's write) and how long the write took.
type timedListener struct {
	net.Listener
	mu      sync.Mutex
	held    []time.Duration
	written []time.Duration
}

func (l *timedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &timedConn{Conn: c, l: l}, nil
}

type timedConn struct {
	net.Conn
	l       *timedListener
	arrived time.Time
}

func (c *timedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.arrived = time.Now()
	}
	return n, err
}

func (c *timedConn) Write(b []byte) (int, error) {
	start := time.Now()
	n, err := c.Conn.Write(b)
	end := time.Now()
	c.l.mu.Lock()
	c.l.held = append(c.l.held, start.Sub(c.arrived))
	c.l.written = append(c.l.written, end.Sub(start))
	c.l.mu.Unlock()
	return n, err
}

// clientDialer wraps the driver's connections (over TCP or the
// in-process dialer) so that each request's wait, from the start of its
// write to the end of the read that completes its reply, is told apart
// from the driver's own time between one reply and the next request.
type clientDialer struct {
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	mu   sync.Mutex
	wait []time.Duration
	own  []time.Duration
}

func (d *clientDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &clientConn{Conn: c, d: d}, nil
}

type clientConn struct {
	net.Conn
	d       *clientDialer
	sent    time.Time // the current request's write began
	replied time.Time // the last reply's read ended
	need    int       // bytes of the current reply still to come, -1 before its header
	hdr     []byte
}

func (c *clientConn) Write(b []byte) (int, error) {
	c.sent = time.Now()
	if !c.replied.IsZero() {
		c.d.mu.Lock()
		c.d.own = append(c.d.own, c.sent.Sub(c.replied))
		c.d.mu.Unlock()
	}
	c.need, c.hdr = -1, c.hdr[:0]
	return c.Conn.Write(b)
}

// Read follows the reply's framing: the driver reads the length, then
// the rest.
func (c *clientConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	p := b[:n]
	for len(p) > 0 {
		if c.need < 0 {
			k := min(4-len(c.hdr), len(p))
			c.hdr, p = append(c.hdr, p[:k]...), p[k:]
			if len(c.hdr) == 4 {
				c.need = int(uint32(c.hdr[0])|uint32(c.hdr[1])<<8|uint32(c.hdr[2])<<16|uint32(c.hdr[3])<<24) - 4
			}
			continue
		}
		k := min(c.need, len(p))
		c.need, p = c.need-k, p[k:]
		if c.need == 0 {
			c.replied = time.Now()
			c.d.mu.Lock()
			c.d.wait = append(c.d.wait, c.replied.Sub(c.sent))
			c.d.mu.Unlock()
			c.need = -1
			c.hdr = c.hdr[:0]
		}
	}
	return n, err
}

// alternate splits d into its even and odd elements.
func alternate(d []time.Duration) (even, odd []time.Duration) {
	for i, x := range d {
		if i%2 == 0 {
			even = append(even, x)
		} else {
			odd = append(odd, x)
		}
	}
	return even, odd
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// driverWay is the official driver connected to e's server over
// loopback TCP ("tcp") or the in-process dialer ("inproc"), with the
// timing wrappers of both ends (tl is nil in process).
func driverWay(b *testing.B, e *env, kind string) (*mongo.Collection, *clientDialer, *timedListener) {
	o := options.Client()
	var tl *timedListener
	cd := &clientDialer{dial: e.srv.Dialer().DialContext}
	if kind == "tcp" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		tl = &timedListener{Listener: l}
		go e.srv.Serve(tl)
		o.ApplyURI("mongodb://" + l.Addr().String())
		cd.dial = (&net.Dialer{}).DialContext
	} else {
		o.ApplyURI("mongodb://ttlkv.local")
	}
	o.SetDialer(cd)
	client, err := mongo.Connect(o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { client.Disconnect(context.Background()) })
	return client.Database("bench").Collection("docs"), cd, tl
}

// resetTimes forgets what the wrappers recorded so far (the handshake,
// a warm-up).
func resetTimes(cd *clientDialer, tl *timedListener) {
	cd.mu.Lock()
	cd.wait, cd.own = cd.wait[:0], cd.own[:0]
	cd.mu.Unlock()
	if tl != nil {
		tl.mu.Lock()
		tl.held, tl.written = tl.held[:0], tl.written[:0]
		tl.mu.Unlock()
	}
}

func µs(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// BenchmarkRoundTrip runs the single-document round trip of
// benchmarks.BenchmarkWireRoundTrip (insertOne, then find by _id)
// through the official driver over loopback TCP ("tcp") and the
// in-process dialer ("inproc") alone, one way at a time, so that a CPU
// profile or an execution trace (-cpuprofile, -trace) shows this path
// and nothing else. Reported, as medians: the round trip (p50-µs); per
// request, the driver's own time between a reply and its next request
// (driver-own-µs/req) and its wait from writing a request to having
// read the reply (ins-wait-µs, find-wait-µs); over TCP, how long the
// server held each request, from the read that brought it to the
// reply's write (decoding, the engine, encoding: ins-held-µs,
// find-held-µs), and how long the reply's write call took (write-µs).
// A wait minus the server's held and write time is the kernel and the
// wake-ups of both sides.
func BenchmarkRoundTrip(b *testing.B) {
	for _, kind := range []string{"tcp", "inproc"} {
		b.Run(kind, func(b *testing.B) {
			e := newEnv(b, Options{})
			c, cd, tl := driverWay(b, e, kind)
			ctx := context.Background()
			one := func(id int) {
				if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "s", Value: "x"}}); err != nil {
					b.Fatal(err)
				}
				if err := c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Err(); err != nil {
					b.Fatal(err)
				}
			}
			one(-1)
			resetTimes(cd, tl)
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				one(i)
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			b.ReportMetric(µs(median(lat)), "p50-µs")
			cd.mu.Lock()
			ins, find := alternate(cd.wait) // an insert, then a find
			b.ReportMetric(µs(median(ins)), "ins-wait-µs")
			b.ReportMetric(µs(median(find)), "find-wait-µs")
			b.ReportMetric(µs(median(cd.own)), "driver-own-µs/req")
			cd.mu.Unlock()
			if tl != nil {
				tl.mu.Lock()
				ins, find := alternate(tl.held)
				b.ReportMetric(µs(median(ins)), "ins-held-µs")
				b.ReportMetric(µs(median(find)), "find-held-µs")
				b.ReportMetric(µs(median(tl.written)), "write-µs")
				tl.mu.Unlock()
			}
		})
	}
}

// BenchmarkInsertManySplit inserts batches of 1000 documents of about
// 150 bytes (those of benchmarks.BenchmarkWireInsertMany, built as
// bson.D for every way) with the embedded API, then through the driver
// over loopback TCP and the in-process dialer, and splits each driver
// insert into the driver's own time (encoding the batch and decoding it
// again for its _ids before the write, and the reply after:
// driver-own-ms) and its wait for the reply (wait-ms), of which, over
// TCP, the server held the request for held-ms (decoding the message,
// the engine's insert, the reply) and spent write-ms writing the reply.
// Medians per batch; embedded-ms is the embedded API's InsertMany of
// the same documents into its own DB.
func BenchmarkInsertManySplit(b *testing.B) {
	const batch = 1000
	pad := strings.Repeat("p", 100)
	docs := func(k int) []any {
		d := make([]any, batch)
		for i := range d {
			n := k*batch + i
			d[i] = bson.D{{Key: "_id", Value: n}, {Key: "n", Value: n}, {Key: "s", Value: pad}}
		}
		return d
	}
	b.Run("embedded", func(b *testing.B) {
		e := newEnv(b, Options{})
		c := e.db.Database("bench").Collection("docs")
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for k := 0; k < b.N; k++ {
			d := docs(k)
			start := time.Now()
			if _, err := c.InsertMany(context.Background(), d, true); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		b.ReportMetric(µs(median(lat))/1e3, "ms/batch")
	})
	for _, kind := range []string{"tcp", "inproc"} {
		b.Run(kind, func(b *testing.B) {
			e := newEnv(b, Options{})
			c, cd, tl := driverWay(b, e, kind)
			ctx := context.Background()
			if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: -1}}); err != nil {
				b.Fatal(err)
			}
			resetTimes(cd, tl)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				d := docs(k)
				start := time.Now()
				if _, err := c.InsertMany(ctx, d); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			b.ReportMetric(µs(median(lat))/1e3, "ms/batch")
			cd.mu.Lock()
			b.ReportMetric(µs(median(cd.wait))/1e3, "wait-ms")
			// own[0] is the time before the first batch's write: its
			// encoding; each later one also holds the previous reply's
			// decoding.
			b.ReportMetric(µs(median(cd.own))/1e3, "driver-own-ms")
			cd.mu.Unlock()
			if tl != nil {
				tl.mu.Lock()
				b.ReportMetric(µs(median(tl.held))/1e3, "held-ms")
				b.ReportMetric(µs(median(tl.written))/1e3, "write-ms")
				tl.mu.Unlock()
			}
		})
	}
}
