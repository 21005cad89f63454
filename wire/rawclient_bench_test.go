package wire

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// rawClient is the least a client can do for one request: write the
// message in one call, read the reply's length, then the rest, through a
// buffered reader (one read syscall when the reply came whole). No
// driver: with it, the server's part of a round trip over TCP is told
// apart from the official driver's.
type rawClient struct {
	nc  net.Conn
	br  *bufio.Reader
	buf []byte
}

func newRawClient(nc net.Conn) *rawClient {
	return &rawClient{nc: nc, br: bufio.NewReaderSize(nc, 16<<10)}
}

// do sends msg and returns the reply (valid until the next call).
func (c *rawClient) do(msg []byte) ([]byte, error) {
	if _, err := c.nc.Write(msg); err != nil {
		return nil, err
	}
	var hdr [4]byte
	if _, err := io.ReadFull(c.br, hdr[:]); err != nil {
		return nil, err
	}
	n := int(binary.LittleEndian.Uint32(hdr[:]))
	if n < HeaderLen || n > MaxMessageSize {
		return nil, fmt.Errorf("reply length %d", n)
	}
	if cap(c.buf) < n {
		c.buf = make([]byte, n)
	}
	c.buf = c.buf[:n]
	copy(c.buf, hdr[:])
	if _, err := io.ReadFull(c.br, c.buf[4:]); err != nil {
		return nil, err
	}
	return c.buf, nil
}

// replyOK checks that an OP_MSG reply (kind-0 body only) says ok: 1.
func replyOK(b []byte) error {
	if len(b) < HeaderLen+5+5 || OpCode(binary.LittleEndian.Uint32(b[12:])) != OpMsg {
		return fmt.Errorf("not an OP_MSG reply: % x", b)
	}
	body := bson.Raw(b[HeaderLen+5:])
	if ok, _ := body.Lookup("ok").AsFloat64OK(); ok != 1 {
		return fmt.Errorf("reply %v", body)
	}
	return nil
}

// pingPongServer answers every length-prefixed frame on a loopback
// listener with a reply of the size the request's byte 4 names (in
// units of 8 bytes), as the wire server does: a goroutine a connection,
// a 16 KiB buffered reader, one write a reply. It does nothing else, so
// a round trip through it is the kernel's loopback and the two sides'
// wake-ups.
func pingPongServer(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	go func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				br := bufio.NewReaderSize(nc, 16<<10)
				reply := make([]byte, 2048)
				for {
					msg, err := ReadMessage(br, MaxMessageSize)
					if err != nil {
						return
					}
					n := int(msg[4]) * 8
					binary.LittleEndian.PutUint32(reply, uint32(n))
					if _, err := nc.Write(reply[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// BenchmarkRawRoundTrip runs the round trip of BenchmarkRoundTrip
// (insertOne {_id: i, s: "x"}, then find by _id with limit 1, as the Go
// driver sends them) from a raw OP_MSG client with no driver: "tcp" to
// the server over loopback, "inproc" through the in-process Dialer, and
// "unix" to the server over a Unix socket, and
// "pingpong" to a server that only answers each message with a reply of
// the same size as the wire server's (pingPongServer), over loopback
// too. Reported as medians: the pair (p50-µs) and each request
// (ins-p50-µs, find-p50-µs). tcp less pingpong is the server's whole
// work a request (the engine's included) and whatever wake-ups it adds
// over a bare echo; tcp less inproc is what the socket costs the
// server; benchmarks.BenchmarkWireRoundTrip's tcp less this tcp is the
// driver's own.
func BenchmarkRawRoundTrip(b *testing.B) {
	for _, kind := range []string{"pingpong", "tcp", "unix", "inproc"} {
		b.Run(kind, func(b *testing.B) {
			e := newEnv(b, Options{})
			var nc net.Conn
			var err error
			switch kind {
			case "inproc":
				nc, err = e.srv.Dialer().DialContext(context.Background(), "", "")
			case "tcp", "unix":
				addr := "127.0.0.1:0"
				if kind == "unix" {
					addr = filepath.Join(b.TempDir(), "s.sock")
				}
				l, lerr := net.Listen(kind, addr)
				if lerr != nil {
					b.Fatal(lerr)
				}
				go e.srv.Serve(l)
				nc, err = net.Dial(kind, l.Addr().String())
			default:
				nc, err = net.Dial("tcp", pingPongServer(b))
			}
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { nc.Close() })
			c := newRawClient(nc)
			lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}}
			n := b.N + 1
			ins, find := make([][]byte, n), make([][]byte, n)
			for i := range n {
				id := i - 1
				ins[i] = opMsg(b, bson.D{{Key: "insert", Value: "docs"}, {Key: "ordered", Value: true}, {Key: "lsid", Value: lsid}, {Key: "$db", Value: "bench"}},
					"documents", []bson.D{{{Key: "_id", Value: id}, {Key: "s", Value: "x"}}})
				find[i] = opMsg(b, bson.D{{Key: "find", Value: "docs"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: id}}},
					{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true}, {Key: "lsid", Value: lsid}, {Key: "$db", Value: "bench"}}, "", nil)
				if kind == "pingpong" {
					// about the wire server's replies (45 and ~128
					// bytes), in units of 8: 40 and 128
					ins[i][4], find[i][4] = 40/8, 128/8
				}
			}
			do := func(msg []byte) {
				r, err := c.do(msg)
				if err != nil {
					b.Fatal(err)
				}
				if kind != "pingpong" {
					if err := replyOK(r); err != nil {
						b.Fatal(err)
					}
				}
			}
			do(ins[0]) // warm up
			do(find[0])
			insLat, findLat, lat := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 1; i <= b.N; i++ {
				start := time.Now()
				do(ins[i])
				mid := time.Now()
				do(find[i])
				end := time.Now()
				insLat, findLat, lat = append(insLat, mid.Sub(start)), append(findLat, end.Sub(mid)), append(lat, end.Sub(start))
			}
			b.StopTimer()
			b.ReportMetric(µs(median(lat)), "p50-µs")
			b.ReportMetric(µs(median(insLat)), "ins-p50-µs")
			b.ReportMetric(µs(median(findLat)), "find-p50-µs")
		})
	}
}
