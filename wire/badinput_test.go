package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// rawConn is a hand-made TCP connection for sending bytes no driver
// would; replies are decoded with the package's own decoder.
func rawConn(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// readReply reads one message and returns its first document.
func readReply(t *testing.T, c net.Conn) (OpCode, bson.D) {
	t.Helper()
	b, err := ReadMessage(c, MaxMessageSize)
	if err != nil {
		t.Fatalf("reading a reply: %v", err)
	}
	h, _ := parseHeader(b)
	var doc []byte
	switch h.OpCode {
	case OpMsg:
		m, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		doc = m.Body
	case OpReply:
		doc = b[HeaderLen+20:]
	default:
		t.Fatalf("reply opcode %d", h.OpCode)
	}
	var d bson.D
	if err := bson.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	return h.OpCode, d
}

// expectClosed waits for the server to close c.
func expectClosed(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var b [1]byte
	if _, err := c.Read(b[:]); err == nil {
		t.Fatal("the connection stayed open")
	} else if isTimeout(err) {
		t.Fatal("the server did not close the connection")
	}
}

// stillServes checks the server answers a driver after bad input.
func stillServes(t *testing.T, e *env) {
	t.Helper()
	if err := e.client(t, false).Database("admin").RunCommand(context.Background(), bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatalf("server no longer answers: %v", err)
	}
}

func legacyQuery(t *testing.T, ns string, cmd bson.D) []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 77)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(OpQuery))
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = append(b, ns...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 0xffffffff)
	b = append(b, mustMarshal(t, cmd)...)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

func TestBadInputClosesOrAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{MessageTimeout: 200 * time.Millisecond})
	addr := e.listen(t)
	ping := EncodeMsg(1, 0, 0, mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}), false)

	t.Run("malformed header", func(t *testing.T) {
		c := rawConn(t, addr)
		c.Write([]byte{3, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
		expectClosed(t, c)
	})
	t.Run("oversized length", func(t *testing.T) {
		c := rawConn(t, addr)
		var b [16]byte
		binary.LittleEndian.PutUint32(b[:], MaxMessageSize+1)
		c.Write(b[:])
		expectClosed(t, c)
	})
	t.Run("unknown opcode", func(t *testing.T) {
		c := rawConn(t, addr)
		b := append([]byte(nil), ping...)
		binary.LittleEndian.PutUint32(b[12:], 4242)
		c.Write(b)
		expectClosed(t, c)
	})
	t.Run("lying length and cut short", func(t *testing.T) {
		c := rawConn(t, addr)
		b := append([]byte(nil), ping...)
		binary.LittleEndian.PutUint32(b, uint32(len(ping)+100))
		c.Write(b) // 100 bytes never come: the message timeout closes it
		expectClosed(t, c)
	})
	t.Run("slow client", func(t *testing.T) {
		c := rawConn(t, addr)
		c.Write(ping[:3]) // then nothing, as a client sending a byte a minute
		expectClosed(t, c)
	})
	t.Run("invalid BSON", func(t *testing.T) {
		c := rawConn(t, addr)
		b := append([]byte(nil), ping...)
		b[len(b)-1] = 9
		c.Write(b)
		_, d := readReply(t, c)
		if code, _ := lookup(d, "code").(int32); code != 22 {
			t.Fatalf("reply %v, want code 22", d)
		}
		// The connection stays usable.
		c.Write(ping)
		if _, d := readReply(t, c); lookup(d, "ok") != 1.0 {
			t.Fatalf("ping after bad BSON: %v", d)
		}
	})
	t.Run("batch over maxWriteBatchSize", func(t *testing.T) {
		// Half a megabyte: on a loaded machine it can take longer to
		// arrive than the 200 ms the other cases' server allows a
		// message, so it goes to a server with the default timeout.
		c := rawConn(t, newEnv(t, Options{}).listen(t))
		empty := mustMarshal(t, bson.D{})
		docs := make([][]byte, MaxWriteBatchSize+1)
		for i := range docs {
			docs[i] = empty
		}
		c.Write(msgWithSequence(t, mustMarshal(t, bson.D{{Key: "insert", Value: "big"}, {Key: "$db", Value: "app"}}), "documents", docs...))
		if _, d := readReply(t, c); lookup(d, "code") != int32(16) {
			t.Fatalf("reply %v", d)
		}
	})
	t.Run("missing $db", func(t *testing.T) {
		c := rawConn(t, addr)
		c.Write(EncodeMsg(1, 0, 0, mustMarshal(t, bson.D{{Key: "ping", Value: 1}}), false))
		if _, d := readReply(t, c); lookup(d, "code") != int32(40571) {
			t.Fatalf("reply %v", d)
		}
	})
	t.Run("legacy hello", func(t *testing.T) {
		c := rawConn(t, addr)
		c.Write(legacyQuery(t, "admin.$cmd", bson.D{{Key: "isMaster", Value: 1}, {Key: "helloOk", Value: true}}))
		op, d := readReply(t, c)
		if op != OpReply || lookup(d, "ismaster") != true || lookup(d, "helloOk") != true || lookup(d, "maxWireVersion") != int32(maxWireVersion) {
			t.Fatalf("legacy hello: %v %v", op, d)
		}
	})
	t.Run("legacy query refused", func(t *testing.T) {
		c := rawConn(t, addr)
		c.Write(legacyQuery(t, "app.people", bson.D{{Key: "name", Value: "x"}}))
		op, d := readReply(t, c)
		if op != OpReply || lookup(d, "code") != int32(5739101) {
			t.Fatalf("legacy find: %v %v", op, d)
		}
		c.Write(legacyQuery(t, "app.$cmd", bson.D{{Key: "find", Value: "people"}}))
		if op, d := readReply(t, c); op != OpReply || lookup(d, "code") != int32(352) {
			t.Fatalf("legacy find command: %v %v", op, d)
		}
	})
	t.Run("checksum", func(t *testing.T) {
		c := rawConn(t, addr)
		c.Write(EncodeMsg(9, 0, 0, mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}), true))
		b, err := ReadMessage(c, MaxMessageSize)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Decode(b)
		if err != nil || m.Flags&FlagChecksumPresent == 0 {
			t.Fatalf("reply to a checksummed request: %v, flags %x", err, m.Flags)
		}
		bad := EncodeMsg(10, 0, 0, mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}), true)
		bad[len(bad)-2] ^= 1
		c.Write(bad)
		// A checksum that does not match closes the connection
		// without a reply, as in mongod.
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if b, err := ReadMessage(c, MaxMessageSize); err == nil || isTimeout(err) {
			t.Fatalf("bad checksum: reply %x, err %v; want the connection closed", b, err)
		}
	})
	t.Run("moreToCome", func(t *testing.T) {
		c := rawConn(t, addr)
		c.Write(EncodeMsg(11, 0, FlagMoreToCome, mustMarshal(t, bson.D{{Key: "insert", Value: "mtc"}, {Key: "$db", Value: "app"},
			{Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}}), false))
		c.Write(ping)
		b, err := ReadMessage(c, MaxMessageSize)
		if err != nil {
			t.Fatal(err)
		}
		if h, _ := parseHeader(b); h.ResponseTo != 1 {
			t.Fatalf("first reply answers request %d, want the ping (1): moreToCome was answered", h.ResponseTo)
		}
	})
	stillServes(t, e)
	if !e.log.has("closing the connection") {
		t.Fatal("no log line for the refused input")
	}
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{IdleTimeout: 100 * time.Millisecond})
	c := rawConn(t, e.listen(t))
	expectClosed(t, c)
	stillServes(t, e)
}

func TestMaxConns(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{MaxConns: 3})
	addr := e.listen(t)
	var held []net.Conn
	for range 3 {
		held = append(held, rawConn(t, addr))
	}
	// Wait (bounded) until the server has counted the three.
	for i := 0; i < 500 && e.srv.Stats().Current < 3; i++ {
		time.Sleep(2 * time.Millisecond)
	}
	for range 20 {
		c := rawConn(t, addr)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err != io.EOF && !errors.Is(err, net.ErrClosed) && err == nil {
			t.Fatal("a connection over --maxConns was served")
		}
	}
	if e.srv.Stats().Refused != 20 || !e.log.has("too many open connections") {
		t.Fatalf("refused %d", e.srv.Stats().Refused)
	}
	for _, c := range held {
		c.Close()
	}
	for i := 0; i < 500 && e.srv.Stats().Current > 0; i++ {
		time.Sleep(2 * time.Millisecond)
	}
	stillServes(t, e)
}
