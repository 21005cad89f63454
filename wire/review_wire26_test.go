package wire

// Review 26 of the wire server: inputs on which ttlkv crashed or
// answered differently from mongod 7.0/8.0, fixed since. Each test
// asserts what mongod does (the comment says where that was read).
// Sources are MongoDB's own (github.com/mongodb/mongo) unless said
// otherwise.

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/engine"
)

// rw26Msg builds an OP_MSG from raw sections (each starting with its
// kind byte).
func rw26Msg(reqID int32, flags uint32, sections ...[]byte) []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(reqID))
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(OpMsg))
	b = binary.LittleEndian.AppendUint32(b, flags)
	for _, s := range sections {
		b = append(b, s...)
	}
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

// rw26WithChecksum sets checksumPresent on msg and appends its CRC-32C.
func rw26WithChecksum(msg []byte) []byte {
	b := append([]byte(nil), msg...)
	binary.LittleEndian.PutUint32(b[16:], binary.LittleEndian.Uint32(b[16:])|FlagChecksumPresent)
	binary.LittleEndian.PutUint32(b, uint32(len(b)+4))
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

func rw26Body(doc []byte) []byte { return append([]byte{0}, doc...) }

func rw26Seq(id string, docs ...[]byte) []byte {
	size := 4 + len(id) + 1
	for _, d := range docs {
		size += len(d)
	}
	b := []byte{1}
	b = binary.LittleEndian.AppendUint32(b, uint32(size))
	b = append(b, id...)
	b = append(b, 0)
	for _, d := range docs {
		b = append(b, d...)
	}
	return b
}

// rw26Read reads one reply (10 s at most) and returns its header and
// first document.
func rw26Read(t *testing.T, c net.Conn) (Header, bson.D) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
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
			t.Fatalf("decoding the reply: %v", err)
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
	return h, d
}

// rw26Cmd sends one command as an OP_MSG and returns the reply.
func rw26Cmd(t *testing.T, c net.Conn, cmd bson.D) bson.D {
	t.Helper()
	if _, err := c.Write(rw26Msg(1, 0, rw26Body(mustMarshal(t, cmd)))); err != nil {
		t.Fatal(err)
	}
	_, d := rw26Read(t, c)
	return d
}

func rw26Code(d bson.D) int32 {
	switch v := lookup(d, "code").(type) {
	case int32:
		return v
	case int64:
		return int32(v)
	case float64:
		return int32(v)
	}
	return 0
}

// rw26WantCode fails unless d is an error reply with code want.
func rw26WantCode(t *testing.T, what string, d bson.D, want int32) {
	t.Helper()
	if ok, _ := lookup(d, "ok").(float64); ok != 0 || rw26Code(d) != want {
		t.Errorf("%s: got %v; mongod answers code %d", what, d, want)
	}
}

// rw26StillServes checks a ping on c is answered.
func rw26StillServes(t *testing.T, c net.Conn) {
	t.Helper()
	if d := rw26Cmd(t, c, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}); lookup(d, "ok") != 1.0 {
		t.Fatalf("ping after the bad message: %v", d)
	}
}

// rw26Deep returns {"": {"": ... {} ...}} nested n levels, built
// without recursion.
func rw26Deep(n int) []byte {
	total := 5 + 7*n
	b := make([]byte, total)
	for i := 0; i <= n; i++ {
		start, end := 6*i, total-i
		binary.LittleEndian.PutUint32(b[start:], uint32(end-start))
		if i < n {
			b[start+4] = 0x03 // embedded document, key ""
		}
	}
	return b
}

// rw26PingWith returns the bytes of {ping: 1, d: <sub>, $db: "admin"}.
func rw26PingWith(sub []byte) []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = append(b, 0x10)
	b = append(b, "ping\x00"...)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = append(b, 0x03)
	b = append(b, "d\x00"...)
	b = append(b, sub...)
	b = append(b, 0x02)
	b = append(b, "$db\x00"...)
	b = binary.LittleEndian.AppendUint32(b, 6)
	b = append(b, "admin\x00"...)
	b = append(b, 0)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

// TestReviewWire26HelperServe is the child process of
// TestReviewWire26DeeplyNestedCommand: it serves a store in
// TTLKV_RW26_DIR on a free loopback port, writes the address to a file
// and serves until killed.
func TestReviewWire26HelperServe(t *testing.T) {
	dir := os.Getenv("TTLKV_RW26_DIR")
	if dir == "" {
		t.Skip("child process of TestReviewWire26DeeplyNestedCommand")
	}
	db, err := engine.Open(filepath.Join(dir, "db"), engine.Options{DisableTTLMonitor: true})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(db, Options{})
	os.WriteFile(filepath.Join(dir, "addr.tmp"), []byte(l.Addr().String()), 0o600)
	os.Rename(filepath.Join(dir, "addr.tmp"), filepath.Join(dir, "addr"))
	srv.Serve(l)
}

// TestReviewWire26DeeplyNestedCommand: one OP_MSG of 16.7 MB
// (under the 16 MiB + 16 KiB a document may have) whose body nests
// 2.39 million empty documents made the server process die with
// "fatal error: stack overflow" (rawToDKeep/coreValue recurse once per
// level; Go cannot recover from a stack overflow). Any client can send
// it, before authenticating: the body is converted before the command
// is authorized. mongod validates every document of a message with a
// nesting limit of 200 (src/mongo/bson/bson_validate.cpp, _pushFrame:
// uassert ErrorCodes::Overflow "BSONObj exceeds maximum nested object
// depth"; src/mongo/bson/bson_depth.h kDefaultMaxAllowableDepth = 200),
// answers code 15 and goes on serving. The server runs in a child
// process so that its death is reported rather than taking the test
// binary down.
func TestReviewWire26DeeplyNestedCommand(t *testing.T) {
	if testing.Short() || raceOn {
		t.Skip("sends a 16.7 MB message to a child server (a crash takes about 1 GB of stack)")
	}
	dir := t.TempDir()
	var stderr bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^TestReviewWire26HelperServe$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TTLKV_RW26_DIR="+dir)
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	var addr []byte
	deadline := time.Now().Add(60 * time.Second)
	for addr == nil && time.Now().Before(deadline) {
		select {
		case err := <-exited:
			t.Fatalf("the child server exited before serving: %v\n%s", err, stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
		addr, _ = os.ReadFile(filepath.Join(dir, "addr"))
	}
	if addr == nil {
		t.Fatal("the child server did not start")
	}

	body := rw26PingWith(rw26Deep(2_390_000))
	if len(body) > maxBSONUserObject {
		t.Fatalf("body of %d bytes is over the document limit", len(body))
	}
	c, err := net.DialTimeout("tcp", string(addr), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(120 * time.Second))
	if _, err := c.Write(rw26Msg(1, 0, rw26Body(body))); err != nil {
		t.Fatalf("sending: %v", err)
	}
	b, err := ReadMessage(c, MaxMessageSize)
	if err != nil {
		select {
		case werr := <-exited:
			exited <- werr
			out := stderr.String()
			if i := strings.Index(out, "fatal error"); i >= 0 {
				out = out[i:min(len(out), i+400)]
			}
			t.Fatalf("the server process died on a deeply nested command (%v); mongod answers code 15 Overflow:\n%s", werr, out)
		case <-time.After(10 * time.Second):
		}
		t.Fatalf("no reply to a deeply nested command: %v; mongod answers code 15 Overflow", err)
	}
	m, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	var d bson.D
	bson.Unmarshal(m.Body, &d)
	rw26WantCode(t, "a body nested 2.39 million levels", d, 15)
	c2 := rawConn(t, string(addr))
	rw26StillServes(t, c2)
}

// TestReviewWire26NestingBeyond200Refused: a command whose body nests
// 300 documents deep is run by ttlkv (ping answers ok: 1). mongod
// refuses any message document deeper than 200 levels while parsing it
// (src/mongo/bson/bson_validate.cpp _pushFrame, ErrorCodes::Overflow
// "BSONObj exceeds maximum nested object depth"; the limit is
// BSONDepth::kDefaultMaxAllowableDepth = 200 in bson_depth.h), so the
// reply is code 15 and the connection stays usable.
func TestReviewWire26NestingBeyond200Refused(t *testing.T) {
	t.Parallel()
	c := rawConn(t, newEnv(t, Options{}).listen(t))
	c.Write(rw26Msg(1, 0, rw26Body(rw26PingWith(rw26Deep(300)))))
	_, d := rw26Read(t, c)
	rw26WantCode(t, "ping with a field nested 300 deep", d, 15)
	rw26StillServes(t, c)
}

// TestReviewWire26ConnectionFatalParseErrorsClose: ttlkv answers an
// OP_MSG with an unknown required flag bit or a wrong CRC-32C with a
// code 9 reply and keeps the connection, and runs a message with three
// document sequences. In mongod these three errors are
// connection-fatal: OpMsg::parse (src/mongo/rpc/op_msg.cpp) raises
// IllegalOpMsgFlag (223) for unknown bits among the low 16,
// TooManyDocumentSequences (233) for a third kind-1 section ("Limit is
// <=2") and ChecksumMismatch (288) for a wrong checksum; all three are
// in the ConnectionFatalMessageParseError category
// (src/mongo/base/error_codes.yml), and
// service_entry_point_common.cpp's receivedCommands propagates such an
// error instead of replying ("If this error needs to fail the
// connection, propagate it out"), which ends the session: no reply,
// the connection is closed.
func TestReviewWire26ConnectionFatalParseErrorsClose(t *testing.T) {
	t.Parallel()
	addr := newEnv(t, Options{}).listen(t)
	ping := mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	insert := mustMarshal(t, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "app"}})
	doc := mustMarshal(t, bson.D{{Key: "_id", Value: 1}})
	badSum := rw26WithChecksum(rw26Msg(1, 0, rw26Body(ping)))
	badSum[len(badSum)-1] ^= 0xff
	for _, tc := range []struct {
		name string
		msg  []byte
	}{
		{"unknown required flag bit 2", rw26Msg(1, 1<<2, rw26Body(ping))},
		{"unknown required flag bit 15", rw26Msg(1, 1<<15, rw26Body(ping))},
		{"checksum mismatch", badSum},
		{"three document sequences", rw26Msg(1, 0, rw26Body(insert), rw26Seq("documents", doc), rw26Seq("a"), rw26Seq("b"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rawConn(t, addr)
			c.Write(tc.msg)
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			b, err := ReadMessage(c, MaxMessageSize)
			if err == nil {
				var d bson.D
				if m, derr := Decode(b); derr == nil {
					bson.Unmarshal(m.Body, &d)
				}
				t.Fatalf("answered %v; mongod closes the connection without a reply", d)
			}
			if isTimeout(err) {
				t.Fatal("the connection stayed open; mongod closes it")
			}
		})
	}
}

// TestReviewWire26OpMsgSectionErrorCodes: malformed OP_MSG sections
// that mongod answers with their own codes (and keeps the connection),
// where ttlkv answers 9 FailedToParse (or, for a body field repeated
// by a sequence, 40413). From OpMsg::parse in src/mongo/rpc/op_msg.cpp
// (7.0): 40430 "Multiple body sections in message", 40587 "OP_MSG
// messages must have a body", 40432 "Unknown section kind N", 40431
// "Duplicate document sequence: NAME", 40433 "Duplicate field between
// body and document sequence NAME", kind 2 (the security token
// section) 13 Unauthorized "Unsupported Security Token provided"
// without multitenancy (40432 in a server without that section kind),
// a sequence whose size runs past the message 15 Overflow (BufReader
// skip, src/mongo/base/data_range_cursor.cpp makeAdvanceStatus), and
// checksumPresent on a message too short to hold one 51252
// (OpMsg::getChecksum). None of these codes is connection-fatal, so
// mongod replies and the connection stays usable.
func TestReviewWire26OpMsgSectionErrorCodes(t *testing.T) {
	t.Parallel()
	addr := newEnv(t, Options{}).listen(t)
	ping := mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	insert := mustMarshal(t, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "app"}})
	insertDocs := mustMarshal(t, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{}}, {Key: "$db", Value: "app"}})
	doc := mustMarshal(t, bson.D{{Key: "_id", Value: 1}})
	empty := mustMarshal(t, bson.D{})
	overrun := append([]byte{1}, binary.LittleEndian.AppendUint32(nil, 0xffff)...)
	overrun = append(overrun, "documents\x00"...)
	onlyFlags := rw26Msg(1, FlagChecksumPresent)
	for _, tc := range []struct {
		name  string
		msg   []byte
		codes []int32 // what mongod answers (7.0, then 8.0 where they differ)
	}{
		{"two bodies", rw26Msg(1, 0, rw26Body(ping), rw26Body(ping)), []int32{40430}},
		{"no body", rw26Msg(1, 0, rw26Seq("documents", doc)), []int32{40587}},
		{"unknown section kind 5", rw26Msg(1, 0, rw26Body(ping), []byte{5}), []int32{40432}},
		{"section kind 2", rw26Msg(1, 0, rw26Body(ping), append([]byte{2}, empty...)), []int32{13, 40432}},
		{"duplicate document sequence", rw26Msg(1, 0, rw26Body(insert), rw26Seq("documents", doc), rw26Seq("documents", doc)), []int32{40431}},
		{"field in body and sequence", rw26Msg(1, 0, rw26Body(insertDocs), rw26Seq("documents", doc)), []int32{40433}},
		{"sequence size past the end", rw26Msg(1, 0, rw26Body(insert), overrun), []int32{15}},
		{"checksum flag without a checksum", onlyFlags, []int32{51252}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rawConn(t, addr)
			c.Write(tc.msg)
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			b, err := ReadMessage(c, MaxMessageSize)
			if err != nil {
				t.Fatalf("no reply (%v); mongod answers code %v and keeps the connection", err, tc.codes)
			}
			m, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			var d bson.D
			bson.Unmarshal(m.Body, &d)
			got := rw26Code(d)
			found := false
			for _, c := range tc.codes {
				found = found || got == c
			}
			if !found {
				t.Errorf("got %v; mongod answers code %v", d, tc.codes)
			}
			rw26StillServes(t, c)
		})
	}
}

// TestReviewWire26MoreToComeParseErrorGetsNoReply: an OP_MSG with
// moreToCome whose body is invalid BSON gets an error reply from
// ttlkv (Decode fails before the flags are looked at), which the
// client never asked for: its next request's reply arrives second, and
// a driver reading replies in order is out of step from then on.
// mongod 7.0 never answers a moreToCome message: receivedCommands
// (src/mongo/db/service_entry_point_common.cpp) turns a non-fatal
// parse error into an error response and then makeCommandResponse
// returns no response at all when kMoreToCome is set ("Don't reply");
// the session workflow even asserts that no reply answers a
// moreToCome request.
func TestReviewWire26MoreToComeParseErrorGetsNoReply(t *testing.T) {
	t.Parallel()
	c := rawConn(t, newEnv(t, Options{}).listen(t))
	bad := rw26Msg(501, FlagMoreToCome, rw26Body(mustMarshal(t, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "app"}})))
	bad[len(bad)-1] = 7 // the body's terminating zero
	c.Write(bad)
	c.Write(rw26Msg(502, 0, rw26Body(mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}))))
	h, d := rw26Read(t, c)
	if h.ResponseTo != 502 {
		t.Fatalf("first reply answers request %d (%v): the moreToCome request was answered; mongod sends nothing for it", h.ResponseTo, d)
	}
}

// TestReviewWire26ChecksumOnErrorReply: a checksummed request whose
// body is not valid BSON gets an error reply without a checksum from
// ttlkv. mongod checks the checksum after the sections
// (src/mongo/rpc/op_msg.cpp), so the reply is 22 InvalidBSON, and the
// session workflow appends a checksum to every reply to a request that
// carried one on a non-TLS connection (OpMsg::appendChecksum when
// kChecksumPresent is set on the request, session_workflow.cpp /
// service_state_machine.cpp).
func TestReviewWire26ChecksumOnErrorReply(t *testing.T) {
	t.Parallel()
	c := rawConn(t, newEnv(t, Options{}).listen(t))
	msg := rw26Msg(1, 0, rw26Body(mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})))
	msg[len(msg)-1] = 7 // invalid BSON, then a correct checksum over it
	c.Write(rw26WithChecksum(msg))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := ReadMessage(c, MaxMessageSize)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	var d bson.D
	bson.Unmarshal(m.Body, &d)
	rw26WantCode(t, "invalid BSON with a checksum", d, 22)
	if m.Flags&FlagChecksumPresent == 0 {
		t.Errorf("the error reply to a checksummed request carries no checksum (flags %#x); mongod appends one", m.Flags)
	}
}

// TestReviewWire26LegacyOpQueryAllowedCommands: ttlkv answers only
// hello/isMaster over OP_QUERY and refuses buildInfo, saslStart and
// the rest with 352. mongod 7.0 also accepts _isSelf, authenticate,
// buildinfo, buildInfo, saslContinue and saslStart as OP_QUERY
// commands ("still used by some old drivers"):
// src/mongo/rpc/check_allowed_op_query_cmd.cpp, checkAllowedOpQueryCommand;
// op_legacy_integration_test.cpp (OpLegacy.BuildInfoCommandViaOpQuery
// expects OK, SaslStartCommandViaOpQuery expects AuthenticationFailed,
// i.e. past the OP_QUERY check).
func TestReviewWire26LegacyOpQueryAllowedCommands(t *testing.T) {
	t.Parallel()
	addr := newEnv(t, Options{}).listen(t)
	for _, name := range []string{"buildInfo", "buildinfo"} {
		c := rawConn(t, addr)
		c.Write(legacyQuery(t, "admin.$cmd", bson.D{{Key: name, Value: 1}}))
		op, d := rw26Read(t, c)
		if op.OpCode != OpReply || lookup(d, "ok") != 1.0 || lookup(d, "version") == nil {
			t.Errorf("OP_QUERY {%s: 1}: %v; mongod runs it", name, d)
		}
	}
	c := rawConn(t, addr)
	c.Write(legacyQuery(t, "admin.$cmd", bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"},
		{Key: "payload", Value: bson.Binary{Data: []byte("n,,n=nobody,r=abcdefghijklmnop")}}, {Key: "autoAuthorize", Value: 1}}))
	if _, d := rw26Read(t, c); rw26Code(d) == 352 {
		t.Errorf("OP_QUERY saslStart: %v; mongod accepts saslStart over OP_QUERY", d)
	}
}

// TestReviewWire26LegacyOpQueryNonCommand: an OP_QUERY on a collection
// (not $cmd) is answered by ttlkv with 352 UnsupportedOpQueryCommand,
// or 22 InvalidBSON "invalid OP_QUERY document" when the query is {}.
// mongod 7.0 answers such a query with an OP_REPLY {$err: "OP_QUERY is
// no longer supported. The client driver may require an upgrade. For
// more details see https://dochub.mongodb.org/core/legacy-opcode-removal",
// code: 5739101, ok: 0} and the ErrSet flag: QueryOpRunner and
// makeErrorResponseToUnsupportedOpQuery in
// src/mongo/db/service_entry_point_common.cpp and dbmessage.cpp;
// op_legacy_integration_test.cpp (OpLegacy.UnsupportedReadOps) checks
// code 5739101.
func TestReviewWire26LegacyOpQueryNonCommand(t *testing.T) {
	t.Parallel()
	addr := newEnv(t, Options{}).listen(t)
	for _, q := range []bson.D{{}, {{Key: "a", Value: 1}}} {
		c := rawConn(t, addr)
		c.Write(legacyQuery(t, "app.people", q))
		h, d := rw26Read(t, c)
		errStr, _ := lookup(d, "$err").(string)
		if h.OpCode != OpReply || rw26Code(d) != 5739101 || !strings.HasPrefix(errStr, "OP_QUERY is no longer supported") {
			t.Errorf("OP_QUERY %v on app.people: %v; mongod answers code 5739101 \"OP_QUERY is no longer supported...\"", q, d)
		}
		rw26StillServes(t, c)
	}
}

// TestReviewWire26LegacyOpGetMoreAnswered: ttlkv treats OP_GET_MORE
// (2005) as an unknown opcode and closes the connection. mongod 7.0
// answers it with an OP_REPLY {$err: "OP_GET_MORE is no longer
// supported. The client driver may require an upgrade...", code:
// 5739101} and keeps the connection (GetMoreOpRunner in
// src/mongo/db/service_entry_point_common.cpp;
// op_legacy_integration_test.cpp, OpLegacy.UnsupportedReadOps).
func TestReviewWire26LegacyOpGetMoreAnswered(t *testing.T) {
	t.Parallel()
	c := rawConn(t, newEnv(t, Options{}).listen(t))
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 33)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 2005) // OP_GET_MORE
	b = binary.LittleEndian.AppendUint32(b, 0)    // ZERO
	b = append(b, "app.people\x00"...)
	b = binary.LittleEndian.AppendUint32(b, 2)         // numberToReturn
	b = binary.LittleEndian.AppendUint64(b, 123456789) // cursorID
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	c.Write(b)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	reply, err := ReadMessage(c, MaxMessageSize)
	if err != nil {
		t.Fatalf("OP_GET_MORE: %v; mongod answers code 5739101 \"OP_GET_MORE is no longer supported\"", err)
	}
	h, _ := parseHeader(reply)
	var d bson.D
	if h.OpCode == OpReply && len(reply) > HeaderLen+20 {
		bson.Unmarshal(reply[HeaderLen+20:], &d)
	}
	errStr, _ := lookup(d, "$err").(string)
	if h.OpCode != OpReply || rw26Code(d) != 5739101 || !strings.HasPrefix(errStr, "OP_GET_MORE is no longer supported") {
		t.Fatalf("OP_GET_MORE answered %v (op %d); mongod answers code 5739101", d, h.OpCode)
	}
	rw26StillServes(t, c)
}

// TestReviewWire26DollarDbTypeAndEmpty: ttlkv answers a $db that is
// not a string, or is empty, with 40571 "OP_MSG requests require a $db
// argument". In mongod that message is only for a missing $db:
// OpMsgRequest::getDatabase (src/mongo/rpc/op_msg.h) reads it with
// checkAndGetStringData, whose type check is uassert 13111 "wrong type
// for field ($db) 16 != 2" (src/mongo/bson/bsonelement.h chk), and an
// empty name fails the database name check, 73 InvalidNamespace
// (ExecCommandDatabase: "Invalid database name", the name quoted).
func TestReviewWire26DollarDbTypeAndEmpty(t *testing.T) {
	t.Parallel()
	c := rawConn(t, newEnv(t, Options{}).listen(t))
	rw26WantCode(t, "$db: 1", rw26Cmd(t, c, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: int32(1)}}), 13111)
	rw26WantCode(t, "$db: \"\"", rw26Cmd(t, c, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: ""}}), 73)
}

// TestReviewWire26BodyWithoutCommand: a body with no command field
// gets 9 FailedToParse "empty command document" from ttlkv. mongod
// takes the body's first field as the command name
// (OpMsgRequest::getCommandName) after reading $db (curOpCommandSetup
// calls getDatabase): {} is 40571 "OP_MSG requests require a $db
// argument" and {$db: "admin"} is 59 CommandNotFound "no such command:
// '$db'" (executeCommand in src/mongo/db/service_entry_point_common.cpp).
func TestReviewWire26BodyWithoutCommand(t *testing.T) {
	t.Parallel()
	c := rawConn(t, newEnv(t, Options{}).listen(t))
	rw26WantCode(t, "body {}", rw26Cmd(t, c, bson.D{}), 40571)
	d := rw26Cmd(t, c, bson.D{{Key: "$db", Value: "admin"}})
	rw26WantCode(t, "body {$db: \"admin\"}", d, 59)
	if msg, _ := lookup(d, "errmsg").(string); msg != "no such command: '$db'" {
		t.Errorf("errmsg %q; mongod says \"no such command: '$db'\"", msg)
	}
}

// TestReviewWire26AbruptClosesLeakNothing (passes today; no other test
// closes connections in the middle of a message): 200 connections
// that stop inside a header, inside a body, after a whole request
// without reading its reply, or right after connecting, all at once.
// The server must stay up, count none of them once they are gone, and
// end their goroutines. mongod ends a session whose socket closes
// (src/mongo/transport/session_workflow.cpp); nothing of it stays.
func TestReviewWire26AbruptClosesLeakNothing(t *testing.T) {
	e := newEnv(t, Options{})
	addr := e.listen(t)
	keep := rawConn(t, addr)
	rw26StillServes(t, keep)
	before := runtime.NumGoroutine()
	ping := rw26Msg(1, 0, rw26Body(mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})))
	big := rw26Msg(1, 0, rw26Body(mustMarshal(t, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "x", Value: strings.Repeat("y", 100000)}}}}, {Key: "$db", Value: "app"}})))
	var conns []net.Conn
	for i := 0; i < 200; i++ {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		switch i % 4 {
		case 0:
			c.Write(ping[:2]) // inside the header
		case 1:
			c.Write(big[:len(big)/2]) // inside the body
		case 2:
			c.Write(ping) // a whole request; the reply is never read
		}
		conns = append(conns, c)
	}
	// Wait (bounded) until the server has them all, then drop them.
	for i := 0; i < 2000 && e.srv.Stats().Current < 201; i++ {
		time.Sleep(2 * time.Millisecond)
	}
	if n := e.srv.Stats().Current; n < 201 {
		t.Fatalf("the server holds %d connections, want 201", n)
	}
	for _, c := range conns {
		c.Close()
	}
	for i := 0; i < 2500 && (e.srv.Stats().Current > 1 || runtime.NumGoroutine() > before+5); i++ {
		time.Sleep(2 * time.Millisecond)
	}
	if n := e.srv.Stats().Current; n != 1 {
		t.Errorf("%d connections still counted after the clients went away", n)
	}
	if g := runtime.NumGoroutine(); g > before+5 {
		t.Errorf("%d goroutines, %d before the 200 connections", g, before)
	}
	rw26StillServes(t, keep)
}

// TestReviewWire26GetMoreChecksSession: ttlkv ignored lsid, so a
// cursor opened in one session was continued from another session or
// from none. mongod's getMore checks the session the cursor was
// created in (src/mongo/db/commands/getmore_cmd.cpp, validateLSID):
// 50736 "Cannot run getMore on cursor N, which was not created in a
// session, in session ...", 50737 "... which was created in session
// ..., without an lsid", 50738 "... which was created in session X, in
// session Y". The ttlkv docs (docs/wire.md, "The command-line tools")
// note that MongoDB refuses a getMore from another session.
func TestReviewWire26GetMoreChecksSession(t *testing.T) {
	t.Parallel()
	addr := newEnv(t, Options{}).listen(t)
	c := rawConn(t, addr)
	docs := bson.A{}
	for i := 0; i < 20; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}})
	}
	if d := rw26Cmd(t, c, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: docs}, {Key: "$db", Value: "app"}}); lookup(d, "ok") != 1.0 {
		t.Fatal(d)
	}
	open := func(lsid bson.D) int64 {
		t.Helper()
		cmd := bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 2}}
		if lsid != nil {
			cmd = append(cmd, bson.E{Key: "lsid", Value: lsid})
		}
		d := rw26Cmd(t, c, append(cmd, bson.E{Key: "$db", Value: "app"}))
		cur, _ := lookup(d, "cursor").(bson.D)
		id, _ := lookup(cur, "id").(int64)
		if id == 0 {
			t.Fatalf("find opened no cursor: %v", d)
		}
		return id
	}
	getMore := func(id int64, lsid bson.D) bson.D {
		cmd := bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 2}}
		if lsid != nil {
			cmd = append(cmd, bson.E{Key: "lsid", Value: lsid})
		}
		return rw26Cmd(t, c, append(cmd, bson.E{Key: "$db", Value: "app"}))
	}
	rw26WantCode(t, "getMore from another session", getMore(open(rw26Lsid(1)), rw26Lsid(2)), 50738)
	rw26WantCode(t, "getMore without lsid on a session's cursor", getMore(open(rw26Lsid(1)), nil), 50737)
	rw26WantCode(t, "getMore in a session on a cursor opened without one", getMore(open(nil), rw26Lsid(3)), 50736)
	// The same session from another connection is served.
	id := open(rw26Lsid(4))
	other := rawConn(t, addr)
	d := rw26Cmd(t, other, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 2}, {Key: "lsid", Value: rw26Lsid(4)}, {Key: "$db", Value: "app"}})
	if lookup(d, "ok") != 1.0 {
		t.Errorf("getMore in the cursor's session from another connection: %v", d)
	}
}

// TestReviewWire26SessionFieldsValidated: ttlkv took lsid off without
// looking at it and answered any txnNumber, autocommit or
// startTransaction with 20 IllegalOperation. mongod parses them first
// (src/mongo/db/initialize_operation_session_info.cpp,
// initializeOperationSessionInfo, run for every command): the IDL
// parse of OperationSessionInfo gives 14 TypeMismatch for a wrong type
// and 40414 for an lsid without id; for a command that needs no
// authentication (ping, hello) a txnNumber is 50889 "It is illegal to
// provide a txnNumber for this command"; a txnNumber without lsid is
// 72 InvalidOptions "Transaction number requires a session ID to also
// be specified"; autocommit without txnNumber is 72 "'autocommit'
// field requires a transaction number to also be specified";
// startTransaction without autocommit is 72 "'startTransaction' field
// requires 'autocommit' field to also be specified". Only an lsid with
// a txnNumber reaches 20 "Transaction numbers are only allowed on a
// replica set member or mongos".
func TestReviewWire26SessionFieldsValidated(t *testing.T) {
	t.Parallel()
	c := rawConn(t, newEnv(t, Options{}).listen(t))
	lsid := rw26Lsid(9)
	for _, tc := range []struct {
		name string
		cmd  bson.D
		code int32
	}{
		{"lsid of the wrong type", bson.D{{Key: "ping", Value: 1}, {Key: "lsid", Value: int32(5)}}, 14},
		{"lsid without id", bson.D{{Key: "ping", Value: 1}, {Key: "lsid", Value: bson.D{}}}, 40414},
		{"txnNumber of the wrong type", bson.D{{Key: "find", Value: "c"}, {Key: "lsid", Value: lsid}, {Key: "txnNumber", Value: "x"}}, 14},
		{"txnNumber on ping", bson.D{{Key: "ping", Value: 1}, {Key: "lsid", Value: lsid}, {Key: "txnNumber", Value: int64(1)}}, 50889},
		{"txnNumber without lsid", bson.D{{Key: "find", Value: "c"}, {Key: "txnNumber", Value: int64(1)}}, 72},
		{"autocommit without txnNumber", bson.D{{Key: "find", Value: "c"}, {Key: "lsid", Value: lsid}, {Key: "autocommit", Value: false}}, 72},
		{"startTransaction without autocommit", bson.D{{Key: "find", Value: "c"}, {Key: "lsid", Value: lsid}, {Key: "startTransaction", Value: true}}, 72},
	} {
		d := rw26Cmd(t, c, append(tc.cmd, bson.E{Key: "$db", Value: "app"}))
		rw26WantCode(t, tc.name, d, tc.code)
	}
	// The one ttlkv already answers as mongod does.
	d := rw26Cmd(t, c, bson.D{{Key: "find", Value: "c"}, {Key: "lsid", Value: lsid}, {Key: "txnNumber", Value: int64(1)}, {Key: "$db", Value: "app"}})
	rw26WantCode(t, "lsid and txnNumber on a standalone", d, 20)
}

// TestReviewWire26ReadConcernValidated: ttlkv dropped readConcern
// unread, so an unknown level and "linearizable" on a standalone both
// ran. mongod parses it (src/mongo/db/repl/read_concern_args.cpp,
// ReadConcernArgs::parse: 9 FailedToParse "readConcern.level must be
// either 'local', 'majority', 'linearizable', 'available', or
// 'snapshot'", 72 InvalidOptions for an unknown field) and refuses
// linearizable on a standalone (read_concern_mongod.cpp: 123
// NotAReplicaSet "node needs to be a replica set member to use read
// concern").
func TestReviewWire26ReadConcernValidated(t *testing.T) {
	t.Parallel()
	c := rawConn(t, newEnv(t, Options{}).listen(t))
	find := func(rc bson.D) bson.D {
		return rw26Cmd(t, c, bson.D{{Key: "find", Value: "c"}, {Key: "readConcern", Value: rc}, {Key: "$db", Value: "app"}})
	}
	// 7.0's hand-written parser gives 9 and 72; a server parsing
	// readConcern with IDL would give 2 (bad enum) and 40415 (unknown
	// field). Either way the command is refused.
	refused := func(what string, d bson.D, codes ...int32) {
		t.Helper()
		if ok, _ := lookup(d, "ok").(float64); ok == 0 {
			for _, c := range codes {
				if rw26Code(d) == c {
					return
				}
			}
		}
		t.Errorf("%s: got %v; mongod refuses it with code %v", what, d, codes)
	}
	refused("readConcern level foo", find(bson.D{{Key: "level", Value: "foo"}}), 9, 2)
	refused("readConcern with an unknown field", find(bson.D{{Key: "level", Value: "local"}, {Key: "bogus", Value: 1}}), 72, 40415)
	rw26WantCode(t, "linearizable on a standalone", find(bson.D{{Key: "level", Value: "linearizable"}}), 123)
	if d := find(bson.D{{Key: "level", Value: "majority"}}); lookup(d, "ok") != 1.0 {
		t.Errorf("majority on a standalone: %v; mongod runs it", d)
	}
}

func rw26Lsid(b byte) bson.D {
	return bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: bytes.Repeat([]byte{b}, 16)}}}
}

// TestReviewWire26ClientMetadataValidated: ttlkv kept whatever
// "client" document a hello carried, on any hello. mongod accepts it on
// the first hello of a connection only and validates it
// (src/mongo/rpc/metadata/client_metadata.cpp): a later hello with
// "client" is 186 ClientMetadataCannotBeMutated "The client metadata
// document may only be sent in the first hello" (setFromMetadata);
// a document without driver (or os) is 183 ClientMetadataMissingField;
// application.name over 128 bytes is 184 ClientMetadataAppNameTooLarge;
// a document over 1024 bytes on mongod is 185
// ClientMetadataDocumentTooLarge.
func TestReviewWire26ClientMetadataValidated(t *testing.T) {
	t.Parallel()
	addr := newEnv(t, Options{}).listen(t)
	good := bson.D{{Key: "driver", Value: bson.D{{Key: "name", Value: "review"}, {Key: "version", Value: "1"}}},
		{Key: "os", Value: bson.D{{Key: "type", Value: "linux"}}}}
	hello := func(c net.Conn, client bson.D) bson.D {
		return rw26Cmd(t, c, bson.D{{Key: "hello", Value: 1}, {Key: "client", Value: client}, {Key: "$db", Value: "admin"}})
	}
	c := rawConn(t, addr)
	if d := hello(c, good); lookup(d, "ok") != 1.0 {
		t.Fatalf("first hello: %v", d)
	}
	rw26WantCode(t, "second hello with client", hello(c, good), 186)

	rw26WantCode(t, "client without driver", hello(rawConn(t, addr), bson.D{{Key: "application", Value: bson.D{{Key: "name", Value: "x"}}}}), 183)
	longApp := append(bson.D{{Key: "application", Value: bson.D{{Key: "name", Value: strings.Repeat("a", 200)}}}}, good...)
	rw26WantCode(t, "application.name of 200 bytes", hello(rawConn(t, addr), longApp), 184)
	big := append(append(bson.D{}, good...), bson.E{Key: "pad", Value: strings.Repeat("p", 2000)})
	rw26WantCode(t, "client document of 2 KB", hello(rawConn(t, addr), big), 185)
}

// TestReviewWire26InsertOver16MiBIsBadValue: an inserted document over
// 16 MiB (but within the 16 MiB + 16 KiB a message may carry) is a
// write error 10334 BSONObjectTooLarge in ttlkv. mongod's
// fixDocumentForInsert (src/mongo/db/ops/insert.cpp) refuses it with 2
// BadValue "object to insert too large. size in bytes: N, max size:
// 16777216"; the jstest of the allowDocumentsGreaterThanMaxUserSize
// parameter asserts ErrorCodes.BadValue for an insert of
// maxBsonObjectSize bytes, and PyMongo's encryption prose test
// test_06_insert_fails_over_16MiB asserts code 2.
func TestReviewWire26InsertOver16MiBIsBadValue(t *testing.T) {
	t.Parallel()
	c := rawConn(t, newEnv(t, Options{}).listen(t))
	big := mustMarshal(t, bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: strings.Repeat("x", 16*1024*1024)}})
	c.Write(rw26Msg(1, 0, rw26Body(mustMarshal(t, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "app"}})), rw26Seq("documents", big)))
	_, d := rw26Read(t, c)
	we, _ := lookup(d, "writeErrors").(bson.A)
	if len(we) != 1 {
		t.Fatalf("insert of %d bytes: %v", len(big), d)
	}
	e, _ := we[0].(bson.D)
	if rw26Code(e) != 2 || !strings.HasPrefix(lookup(e, "errmsg").(string), "object to insert too large") {
		t.Errorf("write error %v; mongod: code 2 BadValue \"object to insert too large...\"", e)
	}
}

// TestReviewWire26DisconnectKillsRunningFind: a client starts a find
// whose $where never returns and goes away. ttlkv's connection
// goroutine was inside the command and noticed nothing, so the scan
// went on (a core busy) until the JavaScript call timed out after 60
// s, and the connection stayed counted meanwhile; a client could repeat
// it from many connections. mongod marks reads killable on client
// disconnect (CommandHelpers::handleMarkKillOnClientDisconnect in the
// find, aggregate, count, distinct, listCollections... commands) and
// jstests/noPassthrough/socket_disconnect_kills.js checks that exactly
// this find ({$where: function() { while (true) {} }}) leaves
// $currentOp within 10 s of the socket closing.
func TestReviewWire26DisconnectKillsRunningFind(t *testing.T) {
	e := newEnv(t, Options{})
	addr := e.listen(t)
	c := rawConn(t, addr)
	if d := rw26Cmd(t, c, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}, {Key: "$db", Value: "app"}}); lookup(d, "ok") != 1.0 {
		t.Fatal(d)
	}
	c.Write(rw26Msg(2, 0, rw26Body(mustMarshal(t, bson.D{{Key: "find", Value: "c"},
		{Key: "filter", Value: bson.D{{Key: "$where", Value: "while (true) {}"}}}, {Key: "$db", Value: "app"}}))))
	for i := 0; i < 2500 && e.srv.Stats().Active == 0; i++ {
		time.Sleep(2 * time.Millisecond)
	}
	if e.srv.Stats().Active == 0 {
		t.Fatal("the find never started")
	}
	c.Close()
	start := time.Now()
	for time.Since(start) < 10*time.Second && (e.srv.Stats().Active > 0 || e.srv.Stats().Current > 0) {
		time.Sleep(5 * time.Millisecond)
	}
	if st := e.srv.Stats(); st.Active > 0 || st.Current > 0 {
		t.Errorf("10 s after its client closed the socket the find still runs (active %d, connections %d); mongod kills it on disconnect", st.Active, st.Current)
	}
}

// TestDisconnectWatchKeepsPipelinedRequests: the watch of a long request
// only peeks at the connection, so a request the client sends while the
// first runs is answered after it, in order, and the connection goes on.
func TestDisconnectWatchKeepsPipelinedRequests(t *testing.T) {
	t.Parallel()
	c := rawConn(t, newEnv(t, Options{}).listen(t))
	if d := rw26Cmd(t, c, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}, {Key: "$db", Value: "app"}}); lookup(d, "ok") != 1.0 {
		t.Fatal(d)
	}
	// A find that runs well past the watch's delay (a $where that
	// sleeps 400 ms: a CPU-bound loop took from 0.2 s to over 10 s with
	// the machine's load), then a ping sent behind it before its reply.
	slow := bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "$where", Value: "sleep(400); return true"}}}, {Key: "$db", Value: "app"}}
	c.Write(rw26Msg(7, 0, rw26Body(mustMarshal(t, slow))))
	c.Write(rw26Msg(8, 0, rw26Body(mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}))))
	h, d := rw26Read(t, c)
	if h.ResponseTo != 7 || lookup(d, "ok") != 1.0 {
		t.Fatalf("first reply answers %d: %v", h.ResponseTo, d)
	}
	h, d = rw26Read(t, c)
	if h.ResponseTo != 8 || lookup(d, "ok") != 1.0 {
		t.Fatalf("second reply answers %d: %v", h.ResponseTo, d)
	}
	rw26StillServes(t, c)
}
