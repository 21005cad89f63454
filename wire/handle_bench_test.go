package wire

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// discardConn is a net.Conn that takes every reply and sends nothing,
// so a benchmark drives conn.handle without a socket or a client.
type discardConn struct{ n int }

func (d *discardConn) Read([]byte) (int, error)         { return 0, net.ErrClosed }
func (d *discardConn) Write(b []byte) (int, error)      { d.n += len(b); return len(b), nil }
func (d *discardConn) Close() error                     { return nil }
func (d *discardConn) LocalAddr() net.Addr              { return pipeAddr{} }
func (d *discardConn) RemoteAddr() net.Addr             { return pipeAddr{} }
func (d *discardConn) SetDeadline(time.Time) error      { return nil }
func (d *discardConn) SetReadDeadline(time.Time) error  { return nil }
func (d *discardConn) SetWriteDeadline(time.Time) error { return nil }

// benchConn is a server connection writing to a discardConn.
func benchConn(b *testing.B) (*conn, *env) {
	e := newEnv(b, Options{})
	c := &conn{srv: e.srv, nc: &discardConn{}, id: 1, remote: "bench"}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	b.Cleanup(c.cancel)
	return c, e
}

// opMsg encodes an OP_MSG the way the Go driver sends it: the command
// in the body, and docs (if any) as a kind-1 sequence named seq.
func opMsg(b *testing.B, cmd bson.D, seq string, docs []bson.D) []byte {
	body := mustMarshal(b, cmd)
	msg := EncodeMsg(1, 0, 0, body, false)
	if seq == "" {
		return msg
	}
	var sec []byte
	for _, d := range docs {
		sec = append(sec, mustMarshal(b, d)...)
	}
	n := 4 + len(seq) + 1 + len(sec)
	msg = append(msg, 1, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	msg = append(msg, seq...)
	msg = append(msg, 0)
	msg = append(msg, sec...)
	l := len(msg)
	msg[0], msg[1], msg[2], msg[3] = byte(l), byte(l>>8), byte(l>>16), byte(l>>24)
	return msg
}

var benchLsid = bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}}

// BenchmarkServerHandle measures the server's work for one request of
// each shape the wire benchmarks send (benchmarks/wire_bench_test.go),
// from the request's bytes to the reply's, beside the engine's
// RunCommand of the same command (the "engine" sub-benchmarks): the
// difference is what the wire layer adds. No socket and no client take
// part, and allocations per request do not depend on the machine's load.
func BenchmarkServerHandle(b *testing.B) {
	pad := strings.Repeat("p", 100)
	for _, engineOnly := range []bool{false, true} {
		suffix := ""
		if engineOnly {
			suffix = "/engine"
		}
		b.Run("insertOne"+suffix, func(b *testing.B) {
			c, e := benchConn(b)
			msgs := make([][]byte, b.N)
			cmds := make([]bson.D, b.N)
			for i := range msgs {
				doc := bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: "x"}}
				cmd := bson.D{{Key: "insert", Value: "docs"}, {Key: "ordered", Value: true}, {Key: "lsid", Value: benchLsid}, {Key: "$db", Value: "bench"}}
				msgs[i] = opMsg(b, cmd, "documents", []bson.D{doc})
				cmds[i] = bson.D{{Key: "insert", Value: "docs"}, {Key: "ordered", Value: true}, {Key: "documents", Value: bson.A{doc}}}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if engineOnly {
					if _, err := e.db.RunCommand(context.Background(), "bench", cmds[i]); err != nil {
						b.Fatal(err)
					}
				} else if !c.handle(msgs[i]) {
					b.Fatal("handle failed")
				}
			}
		})
		b.Run("findOne"+suffix, func(b *testing.B) {
			c, e := benchConn(b)
			const n = 1000
			docs := make([]any, n)
			for i := range docs {
				docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: "x"}}
			}
			if _, err := e.db.Database("bench").Collection("docs").InsertMany(context.Background(), docs, true); err != nil {
				b.Fatal(err)
			}
			msgs := make([][]byte, n)
			cmds := make([]bson.D, n)
			for i := range msgs {
				cmds[i] = bson.D{{Key: "find", Value: "docs"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: int32(i)}}},
					{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true}}
				msgs[i] = opMsg(b, append(cmds[i], bson.E{Key: "lsid", Value: benchLsid}, bson.E{Key: "$db", Value: "bench"}), "", nil)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if engineOnly {
					if _, err := e.db.Database("bench").Collection("docs").FindOne(context.Background(), bson.D{{Key: "_id", Value: int32(i % n)}}); err != nil {
						b.Fatal(err)
					}
				} else if !c.handle(msgs[i%n]) {
					b.Fatal("handle failed")
				}
			}
		})
		b.Run("insertMany1000"+suffix, func(b *testing.B) {
			c, e := benchConn(b)
			const batch = 1000
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				docs := make([]bson.D, batch)
				arr := make(bson.A, batch)
				for j := range docs {
					n := i*batch + j
					docs[j] = bson.D{{Key: "_id", Value: int32(n)}, {Key: "n", Value: int32(n)}, {Key: "s", Value: pad}}
					arr[j] = docs[j]
				}
				var msg []byte
				var cmd bson.D
				if engineOnly {
					cmd = bson.D{{Key: "insert", Value: "docs"}, {Key: "ordered", Value: true}, {Key: "documents", Value: arr}}
				} else {
					msg = opMsg(b, bson.D{{Key: "insert", Value: "docs"}, {Key: "ordered", Value: true}, {Key: "lsid", Value: benchLsid}, {Key: "$db", Value: "bench"}}, "documents", docs)
				}
				b.StartTimer()
				if engineOnly {
					if _, err := e.db.RunCommand(context.Background(), "bench", cmd); err != nil {
						b.Fatal(err)
					}
				} else if !c.handle(msg) {
					b.Fatal("handle failed")
				}
			}
		})
		// find20000 reads everything; find20000filtered the same
		// documents through a filter that matches them all.
		for _, filtered := range []bool{false, true} {
			name, filter := "find20000", bson.D{}
			if filtered {
				name, filter = "find20000filtered", bson.D{{Key: "n", Value: bson.D{{Key: "$gte", Value: int32(0)}}}}
			}
			b.Run(name+suffix, func(b *testing.B) {
				c, e := benchConn(b)
				const n = 20000
				docs := make([]any, n)
				for i := range docs {
					docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "n", Value: int32(i)}, {Key: "s", Value: pad}}
				}
				if _, err := e.db.Database("bench").Collection("docs").InsertMany(context.Background(), docs, true); err != nil {
					b.Fatal(err)
				}
				cmd := bson.D{{Key: "find", Value: "docs"}, {Key: "filter", Value: filter}, {Key: "batchSize", Value: int32(n)}, {Key: "singleBatch", Value: true}}
				msg := opMsg(b, append(cmd, bson.E{Key: "lsid", Value: benchLsid}, bson.E{Key: "$db", Value: "bench"}), "", nil)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if engineOnly {
						if _, err := e.db.RunCommand(context.Background(), "bench", cmd); err != nil {
							b.Fatal(err)
						}
					} else if !c.handle(msg) {
						b.Fatal("handle failed")
					}
				}
			})
		}
	}
}
