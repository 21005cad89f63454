package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// msgWithSequence builds an OP_MSG with a body and one kind-1 section.
func msgWithSequence(t testing.TB, body []byte, id string, docs ...[]byte) []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 7)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(OpMsg))
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = append(b, 0)
	b = append(b, body...)
	b = append(b, 1)
	size := 4 + len(id) + 1
	for _, d := range docs {
		size += len(d)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(size))
	b = append(b, id...)
	b = append(b, 0)
	for _, d := range docs {
		b = append(b, d...)
	}
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

func TestDecodeMsgRoundTrip(t *testing.T) {
	t.Parallel()
	body := mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	for _, sum := range []bool{false, true} {
		m, err := Decode(EncodeMsg(5, 9, 0, body, sum))
		if err != nil {
			t.Fatalf("checksum=%v: %v", sum, err)
		}
		if m.Header.RequestID != 5 || m.Header.ResponseTo != 9 || !bytes.Equal(m.Body, body) {
			t.Fatalf("checksum=%v: decoded %+v", sum, m.Header)
		}
		if got := m.Flags&FlagChecksumPresent != 0; got != sum {
			t.Fatalf("checksum flag %v, want %v", got, sum)
		}
	}
}

func TestDecodeChecksumMismatch(t *testing.T) {
	t.Parallel()
	b := EncodeMsg(1, 0, 0, mustMarshal(t, bson.D{{Key: "ping", Value: 1}}), true)
	b[len(b)-1] ^= 0xff
	// Connection-fatal, as in mongod: no reply, the connection closes.
	if _, err := Decode(b); !errors.Is(err, ErrFrame) {
		t.Fatalf("got %v, want ErrFrame", err)
	}
}

func TestDecodeSequence(t *testing.T) {
	t.Parallel()
	body := mustMarshal(t, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "t"}})
	d1, d2 := mustMarshal(t, bson.D{{Key: "_id", Value: 1}}), mustMarshal(t, bson.D{{Key: "_id", Value: 2}})
	m, err := Decode(msgWithSequence(t, body, "documents", d1, d2))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Sequences) != 1 || m.Sequences[0].Identifier != "documents" || len(m.Sequences[0].Docs) != 2 {
		t.Fatalf("sequences %+v", m.Sequences)
	}
}

func TestDecodeCompressed(t *testing.T) {
	t.Parallel()
	body := mustMarshal(t, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "x", Value: bytes.Repeat([]byte("a"), 500)}}}})
	plain := EncodeMsg(3, 0, 0, body, false)
	for _, id := range []byte{CompressorNoop, CompressorSnappy, CompressorZlib, CompressorZstd} {
		c, err := Compress(plain, id)
		if err != nil {
			t.Fatal(err)
		}
		if id != CompressorNoop && len(c) >= len(plain) {
			t.Errorf("compressor %d: %d bytes, not smaller than %d", id, len(c), len(plain))
		}
		m, err := Decode(c)
		if err != nil {
			t.Fatalf("compressor %d: %v", id, err)
		}
		if !bytes.Equal(m.Body, body) || m.Header.OpCode != OpMsg || m.Header.RequestID != 3 {
			t.Fatalf("compressor %d: decoded %+v", id, m.Header)
		}
		if id != CompressorNoop && m.Compressor != id {
			t.Fatalf("compressor %d recorded as %d", id, m.Compressor)
		}
	}
}

func TestDecodeQuery(t *testing.T) {
	t.Parallel()
	doc := mustMarshal(t, bson.D{{Key: "isMaster", Value: 1}})
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(OpQuery))
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = append(b, "admin.$cmd\x00"...)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 0xffffffff)
	b = append(b, doc...)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	m, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Query == nil || m.Query.FullCollection != "admin.$cmd" || m.Query.Return != -1 {
		t.Fatalf("query %+v", m.Query)
	}
}

func TestDecodeBadInput(t *testing.T) {
	t.Parallel()
	good := EncodeMsg(1, 0, 0, mustMarshal(t, bson.D{{Key: "ping", Value: 1}}), false)
	withOp := func(op uint32) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[12:], op)
		return b
	}
	badDoc := append([]byte(nil), good...)
	badDoc[len(badDoc)-1] = 7 // the document's terminating zero
	lying := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(lying, uint32(len(good)+10))
	unknownFlag := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(unknownFlag[16:], 1<<5)
	cases := []struct {
		name  string
		b     []byte
		frame bool
	}{
		{"short header", good[:10], true},
		{"lying length", lying, true},
		{"unknown opcode", withOp(9999), true},
		{"cut short", good[:len(good)-3], true},
		{"invalid BSON", badDoc, false},
		{"unknown required flag", unknownFlag, true},
		{"no body", EncodeMsg(1, 0, 0, nil, false)[:HeaderLen+4], false},
	}
	for _, c := range cases {
		b := c.b
		if c.name == "no body" {
			binary.LittleEndian.PutUint32(b, uint32(len(b)))
		}
		_, err := Decode(b)
		var pe *ProtocolError
		switch {
		case err == nil:
			t.Errorf("%s: decoded", c.name)
		case c.frame && !errors.Is(err, ErrFrame):
			t.Errorf("%s: %v, want ErrFrame", c.name, err)
		case !c.frame && !errors.As(err, &pe):
			t.Errorf("%s: %v, want a ProtocolError", c.name, err)
		}
	}
}

func TestReadMessageLimits(t *testing.T) {
	t.Parallel()
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, MaxMessageSize+1)
	b = append(b, make([]byte, 12)...)
	if _, err := ReadMessage(bytes.NewReader(b), MaxMessageSize); !errors.Is(err, ErrFrame) {
		t.Fatalf("oversized: %v", err)
	}
	good := EncodeMsg(1, 0, 0, mustMarshal(t, bson.D{{Key: "ping", Value: 1}}), false)
	if _, err := ReadMessage(bytes.NewReader(good[:len(good)-1]), MaxMessageSize); !errors.Is(err, ErrFrame) {
		t.Fatalf("cut short: %v", err)
	}
	got, err := ReadMessage(bytes.NewReader(good), MaxMessageSize)
	if err != nil || !bytes.Equal(got, good) {
		t.Fatalf("good message: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	body := mustMarshal(f, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "t"}})
	f.Add(EncodeMsg(1, 0, 0, body, false))
	f.Add(EncodeMsg(1, 0, 0, body, true))
	f.Add(msgWithSequence(f, body, "documents", mustMarshal(f, bson.D{{Key: "a", Value: 1}})))
	f.Add(EncodeMsg(1, 0, 0, mustMarshal(f, bson.D{{Key: "find", Value: "c"}, {Key: "lsid", Value: benchLsid},
		{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "primary"}}}, {Key: "$db", Value: "t"}}), false))
	plain := EncodeMsg(2, 0, 0, body, false)
	for _, id := range []byte{CompressorSnappy, CompressorZlib, CompressorZstd} {
		c, _ := Compress(plain, id)
		f.Add(c)
	}
	cache := &stringCache{} // shared by the inputs, as by a connection's requests
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err == nil && m.Header.OpCode == OpMsg && m.Body == nil {
			t.Fatal("OP_MSG decoded without a body")
		}
		if err == nil && m.Body != nil {
			// What the server does next with a decoded body: convert
			// it (commandToD, keeping a plain lsid raw) and encode it
			// again to the same bytes. Decode's validation does not look
			// inside embedded documents, so a conversion may refuse the
			// body (the server answers 22 InvalidBSON); commandToD must
			// refuse exactly what rawToD refuses.
			d, err := rawToD(m.Body)
			cmd, cerr := commandToD(m.Body, 0, cache)
			if (err == nil) != (cerr == nil) {
				t.Fatalf("rawToD: %v, commandToD: %v", err, cerr)
			}
			if err == nil {
				if again, err := marshalD(d); err == nil && len(again) != len(m.Body) {
					t.Fatalf("body of %d bytes re-encoded to %d", len(m.Body), len(again))
				}
				if again, err := marshalD(cmd); err == nil && len(again) != len(m.Body) {
					t.Fatalf("command of %d bytes re-encoded to %d", len(m.Body), len(again))
				}
				_ = shownCommand(cmd)
			}
		}
		_, _ = ReadMessage(bytes.NewReader(b), 1<<20)
	})
}

// TestTooDeep: documents and arrays may nest 200 levels below the
// top-level document, a JavaScript scope counting as one; deeper is
// refused before anything walks the document recursively.
func TestTooDeep(t *testing.T) {
	t.Parallel()
	nest := func(n int, arr bool) any {
		var v any = int32(1)
		for range n {
			if arr {
				v = bson.A{v}
			} else {
				v = bson.D{{Key: "a", Value: v}}
			}
		}
		return v
	}
	for _, c := range []struct {
		name string
		doc  bson.D
		want bool
	}{
		{"flat", bson.D{{Key: "s", Value: "x"}, {Key: "r", Value: bson.Regex{Pattern: "a", Options: "i"}}, {Key: "b", Value: bson.Binary{Data: []byte{1}}}}, false},
		{"200 documents", bson.D{{Key: "x", Value: nest(200, false)}}, false},
		{"201 documents", bson.D{{Key: "x", Value: nest(201, false)}}, true},
		{"200 arrays", bson.D{{Key: "x", Value: nest(200, true)}}, false},
		{"201 arrays", bson.D{{Key: "x", Value: nest(201, true)}}, true},
		{"a scope 199 deep", bson.D{{Key: "x", Value: bson.CodeWithScope{Code: "f", Scope: nest(199, false).(bson.D)}}}, false},
		{"a scope 201 deep", bson.D{{Key: "x", Value: bson.CodeWithScope{Code: "f", Scope: nest(201, false).(bson.D)}}}, true},
	} {
		b, err := bson.Marshal(c.doc)
		if err != nil {
			t.Fatal(err)
		}
		if got := tooDeep(b, maxBSONDepth); got != c.want {
			t.Errorf("%s: tooDeep %v, want %v", c.name, got, c.want)
		}
		for i := range b { // a document cut anywhere is never too deep, nor a panic
			tooDeep(b[:i], maxBSONDepth)
		}
	}
}
