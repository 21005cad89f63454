package wire

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Options configures a Server. The zero value of every field means its
// default.
type Options struct {
	// Logf receives one line per connection opened or closed and per
	// protocol error. Default: discard.
	Logf func(format string, args ...any)

	// MaxConns is the most connections open at once; one more is closed
	// as soon as it is accepted, with a log line, as mongod's
	// net.maxIncomingConnections does. Default 1,000,000.
	MaxConns int

	// IdleTimeout closes a connection that sends nothing for this long.
	// Default 0: never (drivers keep pooled connections idle).
	IdleTimeout time.Duration

	// MessageTimeout is how long a message may take to arrive once its
	// first bytes have, so a client sending one byte a minute is cut
	// off. Default 30s.
	MessageTimeout time.Duration

	// OrphanCursorTimeout is how long the cursors opened by a closed
	// connection stay usable from other connections before the server
	// kills them. Default 10 minutes (mongod's cursorTimeoutMillis).
	OrphanCursorTimeout time.Duration

	// TLS, when set, makes Serve accept TLS connections only.
	TLS *tls.Config

	// Auth turns access control on: clients authenticate with
	// SCRAM-SHA-256 before running anything but the handshake.
	Auth bool

	// Compressors are the OP_COMPRESSED compressors offered in hello, in
	// order of preference. Default snappy, zstd, zlib.
	Compressors []string
}

func (o *Options) ensureDefaults() {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 1000000
	}
	if o.MessageTimeout <= 0 {
		o.MessageTimeout = 30 * time.Second
	}
	if o.OrphanCursorTimeout <= 0 {
		o.OrphanCursorTimeout = 10 * time.Minute
	}
	if o.Compressors == nil {
		o.Compressors = []string{"snappy", "zstd", "zlib"}
	}
}

// Server answers the MongoDB wire protocol over listeners and the
// in-process Dialer, running every command on one engine.DB. It is safe
// for concurrent use.
type Server struct {
	db   *engine.DB
	opts Options

	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	closed    bool
	wg        sync.WaitGroup

	nextConnID atomic.Int64
	nextReqID  atomic.Int32
	nextOpID   atomic.Int32

	cursors cursorOwners
	ops     opRegistry
	users   *userStore

	stats serverCounters

	replyTarget int // replyTarget, smaller in tests
}

// serverCounters feed serverStatus's connections, opcounters and
// network sections.
type serverCounters struct {
	current, totalCreated, active, refused      atomic.Int64
	bytesIn, bytesOut, numRequests              atomic.Int64
	insert, query, update, delete, getmore, cmd atomic.Int64
}

// ErrServerClosed is returned by Serve after Close.
var ErrServerClosed = errors.New("wire: server closed")

// NewServer returns a server for db. It does not own db: Close leaves
// it open.
func NewServer(db *engine.DB, opts Options) *Server {
	opts.ensureDefaults()
	s := &Server{db: db, opts: opts, listeners: map[net.Listener]struct{}{}, conns: map[*conn]struct{}{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.cursors.m = map[int64]*cursorOwner{}
	s.ops.m = map[int32]*op{}
	s.users = &userStore{db: db}
	s.replyTarget = replyTarget
	db.SetOperationsSource(s.clientOps)
	return s
}

// Serve accepts connections on l until Close, serving each on its own
// goroutine. With Options.TLS set, a TCP listener is wrapped in TLS
// (a Unix socket is not, as in mongod).
func (s *Server) Serve(l net.Listener) error {
	if s.opts.TLS != nil && l.Addr().Network() != "unix" {
		l = tls.NewListener(l, s.opts.TLS)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	var delay time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return ErrServerClosed
			}
			if isTimeout(err) || isTemporary(err) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				s.opts.Logf("accept: %v; retrying in %v", err, delay)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		s.serveConn(nc)
	}
}

// isTemporary reports whether an Accept error is a resource shortage
// (EMFILE and the like) worth retrying.
func isTemporary(err error) bool {
	type temporary interface{ Temporary() bool }
	var t temporary
	return errors.As(err, &t) && t.Temporary()
}

// serveConn starts a goroutine for nc, or refuses it over MaxConns.
func (s *Server) serveConn(nc net.Conn) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		nc.Close()
		return
	}
	if len(s.conns) >= s.opts.MaxConns {
		s.mu.Unlock()
		s.stats.refused.Add(1)
		s.opts.Logf("connection refused from %s because too many open connections: %d", addrOf(nc), s.opts.MaxConns)
		nc.Close()
		return
	}
	c := &conn{srv: s, nc: nc, br: bufio.NewReaderSize(nc, 16<<10), id: s.nextConnID.Add(1), remote: addrOf(nc)}
	c.ctx, c.cancel = context.WithCancel(s.ctx)
	s.conns[c] = struct{}{}
	n := len(s.conns)
	s.wg.Add(1)
	s.mu.Unlock()
	s.stats.current.Add(1)
	s.stats.totalCreated.Add(1)
	s.opts.Logf("conn%d: connection accepted from %s (%d connection(s) now open)", c.id, c.remote, n)
	go func() {
		defer s.wg.Done()
		c.serve()
		s.mu.Lock()
		delete(s.conns, c)
		n := len(s.conns)
		s.mu.Unlock()
		s.stats.current.Add(-1)
		s.cursors.orphan(s, c.id)
		s.opts.Logf("conn%d: end connection %s (%d connection(s) now open)", c.id, c.remote, n)
	}()
}

func addrOf(nc net.Conn) string {
	if a := nc.RemoteAddr(); a != nil && a.String() != "" {
		return a.String()
	}
	return "in-process"
}

// Close stops accepting, closes every connection, waits for their
// goroutines and kills the cursors they opened. The DB stays open.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrServerClosed
	}
	s.closed = true
	for l := range s.listeners {
		l.Close()
	}
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	s.cursors.killAll(s)
	return nil
}

// conn is one client connection, served by one goroutine: requests on
// a connection run one at a time, as in mongod.
type conn struct {
	srv    *Server
	nc     net.Conn
	br     *bufio.Reader // one read syscall usually brings a whole message
	id     int64
	remote string
	ctx    context.Context
	cancel context.CancelFunc

	auth      authState
	client    bson.D // the driver's metadata from the handshake
	helloSeen bool   // a hello has been answered (the metadata may come with the first only)

	strs     stringCache        // boxed command strings shared between requests (commandToD)
	opCtx    context.Context    // the context of this connection's ops (opRegistry.start)
	opCancel context.CancelFunc // cancels opCtx (killOp)
	wbuf     []byte             // the last small reply's buffer, reused by the next
	deadline bool               // a read deadline is set on nc
}

func (c *conn) serve() {
	defer c.cancel()
	defer c.nc.Close()
	for {
		b, err := c.read()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && c.ctx.Err() == nil {
				c.srv.opts.Logf("conn%d: %v; closing the connection", c.id, err)
			}
			return
		}
		c.srv.stats.bytesIn.Add(int64(len(b)))
		c.srv.stats.numRequests.Add(1)
		if !c.handle(b) {
			return
		}
	}
}

// disconnectWatchDelay is how long a request runs before its
// connection is watched for the client going away.
const disconnectWatchDelay = 100 * time.Millisecond

// watchDisconnect watches, while a request that has run longer than
// disconnectWatchDelay goes on, for the client closing its connection,
// and then cancels the connection's context, so the request stops as
// mongod stops an operation whose client is gone. It returns the stop
// function the request calls when it ends, which returns once nothing
// reads the connection any more. The watch only peeks: a request the
// client sent meanwhile stays for the next read.
func (c *conn) watchDisconnect() (stop func()) {
	var mu sync.Mutex
	stopped, started := false, false
	done := make(chan struct{})
	t := time.AfterFunc(disconnectWatchDelay, func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		started = true
		go func() {
			defer close(done)
			if _, err := c.br.Peek(1); err != nil && !isTimeout(err) {
				c.srv.opts.Logf("conn%d: the client went away during a request (%v); stopping it", c.id, err)
				c.cancel()
			}
		}()
	})
	return func() {
		t.Stop()
		mu.Lock()
		stopped = true
		watching := started
		mu.Unlock()
		if watching {
			c.nc.SetReadDeadline(time.Now()) // ends the peek
			<-done
			c.nc.SetReadDeadline(time.Time{})
			c.deadline = false
		}
	}
}

// read reads one message, waiting at most IdleTimeout for its first
// bytes and MessageTimeout for the rest.
func (c *conn) read() ([]byte, error) {
	o := &c.srv.opts
	if o.IdleTimeout > 0 {
		c.nc.SetReadDeadline(time.Now().Add(o.IdleTimeout))
		c.deadline = true
	} else if c.deadline {
		c.nc.SetReadDeadline(time.Time{})
		c.deadline = false
	}
	var hdr [4]byte
	if _, err := io.ReadFull(c.br, hdr[:1]); err != nil {
		if isTimeout(err) {
			return nil, fmt.Errorf("idle for %v", o.IdleTimeout)
		}
		return nil, err
	}
	if !c.buffered(hdr[0]) {
		// The rest must still arrive: it gets MessageTimeout. A message
		// that came whole with its first byte (the usual case) needs
		// no deadline, which saves two timer updates a request.
		c.nc.SetReadDeadline(time.Now().Add(o.MessageTimeout))
		c.deadline = true
	}
	if _, err := io.ReadFull(c.br, hdr[1:]); err != nil {
		return nil, c.readErr(err)
	}
	n := int32(binary.LittleEndian.Uint32(hdr[:]))
	if n < HeaderLen || n > MaxMessageSize {
		return nil, fmt.Errorf("%w: message length %d is not between %d and %d", ErrFrame, n, HeaderLen, MaxMessageSize)
	}
	buf := make([]byte, n)
	copy(buf, hdr[:])
	if _, err := io.ReadFull(c.br, buf[4:]); err != nil {
		return nil, c.readErr(err)
	}
	return buf, nil
}

// buffered reports whether the rest of the message whose first byte
// was just read is already in the read buffer.
func (c *conn) buffered(first byte) bool {
	if c.br.Buffered() < 3 {
		return false
	}
	b, err := c.br.Peek(3)
	if err != nil {
		return false
	}
	n := int(uint32(first) | uint32(b[0])<<8 | uint32(b[1])<<16 | uint32(b[2])<<24)
	return n >= HeaderLen && c.br.Buffered() >= n-1
}

func (c *conn) readErr(err error) error {
	if isTimeout(err) {
		return fmt.Errorf("%w: a message took longer than %v to arrive", ErrFrame, c.srv.opts.MessageTimeout)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: stream ended inside a message", ErrFrame)
	}
	return err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// handle answers one message; false closes the connection.
func (c *conn) handle(b []byte) bool {
	if h, err := parseHeader(b); err == nil && h.OpCode == opGetMore {
		// Legacy OP_GET_MORE: answered, as mongod 5.1 and later
		// answer it, with an error the client can read.
		return c.write(EncodeReply(c.srv.nextReqID.Add(1), h.RequestID, 2, mustBSON(errorDoc(5739101, "Location5739101", legacyRemoved("OP_GET_MORE"), true))), CompressorNoop)
	}
	m, err := Decode(b)
	if err != nil {
		var pe *ProtocolError
		if !errors.As(err, &pe) {
			c.srv.opts.Logf("conn%d: %v; closing the connection", c.id, err)
			return false
		}
		c.srv.opts.Logf("conn%d: bad message: %v", c.id, err)
		h, _ := parseHeader(b)
		if h.OpCode == OpQuery {
			return c.write(EncodeReply(c.srv.nextReqID.Add(1), h.RequestID, 2, mustBSON(errorDoc(pe.Code, pe.CodeName, pe.Msg, true))), CompressorNoop)
		}
		var flags uint32
		if h.OpCode == OpMsg && len(b) >= HeaderLen+4 {
			flags = binary.LittleEndian.Uint32(b[HeaderLen:])
		}
		if flags&FlagMoreToCome != 0 {
			return true // the client reads no reply to it, not even an error
		}
		sum := flags&FlagChecksumPresent != 0
		return c.write(EncodeMsg(c.srv.nextReqID.Add(1), h.RequestID, 0, mustBSON(errorDoc(pe.Code, pe.CodeName, pe.Msg, false)), sum), CompressorNoop)
	}
	if m.Query != nil {
		return c.handleQuery(m)
	}
	cmd, dbName, perr := c.command(m)
	var reply bson.D
	if perr != nil {
		reply = errorDoc(perr.Code, perr.CodeName, perr.Msg, false)
	} else {
		reply = c.run(dbName, cmd, m.Flags&FlagMoreToCome != 0)
	}
	if m.Flags&FlagMoreToCome != 0 {
		return true // {w: 0}: the client reads no reply
	}
	comp := m.Compressor
	if comp != CompressorNoop && (perr != nil || !compressible(cmd[0].Key)) {
		comp = CompressorNoop
	}
	out := c.encodeReply(m.Header.RequestID, reply, cmd[0].Key, m.Flags&FlagChecksumPresent != 0)
	ok := c.write(out, comp)
	if cap(out) <= maxKeptReplyBuf {
		c.wbuf = out[:0]
	}
	return ok
}

// maxKeptReplyBuf is the largest reply buffer a connection keeps for
// its next reply; a larger one (a big batch) goes back to the GC.
const maxKeptReplyBuf = 64 << 10

// encodeReply builds the OP_MSG answering requestID in one buffer,
// sized from the reply so that a batch of many documents is encoded
// without regrowing and copying, and reusing the connection's buffer
// for small replies. The result is valid until the next call.
func (c *conn) encodeReply(responseTo int32, reply bson.D, name string, checksum bool) []byte {
	const pre = HeaderLen + 4 + 1 // header, flags, section kind 0
	size := pre + document.Size(reply) + 4
	b := c.wbuf[:0]
	if cap(b) < size {
		b = make([]byte, 0, size)
	}
	b = append(b, make([]byte, pre)...)
	out, err := appendD(b, reply)
	if err != nil {
		out, _ = appendD(b, errorDoc(1, "InternalError", "reply could not be encoded: "+err.Error(), false))
	}
	if n := len(out) - pre; n > MaxMessageSize-HeaderLen-16 {
		c.srv.opts.Logf("conn%d: a %d-byte reply to %s is over the message limit", c.id, n, name)
		out, _ = appendD(out[:pre], errorDoc(10334, "BSONObjectTooLarge", fmt.Sprintf("reply of %d bytes exceeds maxMessageSizeBytes %d", n, MaxMessageSize), false))
	}
	var flags uint32
	if checksum {
		flags = FlagChecksumPresent
	}
	binary.LittleEndian.PutUint32(out[4:], uint32(c.srv.nextReqID.Add(1)))
	binary.LittleEndian.PutUint32(out[8:], uint32(responseTo))
	binary.LittleEndian.PutUint32(out[12:], uint32(OpMsg))
	binary.LittleEndian.PutUint32(out[16:], flags)
	out[20] = 0
	n := len(out)
	if checksum {
		n += 4
	}
	binary.LittleEndian.PutUint32(out, uint32(n))
	if checksum {
		out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
	}
	return out
}

// compressible reports whether a reply to name may be compressed: the
// handshake and authentication are never compressed.
func compressible(name string) bool {
	switch name {
	case "hello", "isMaster", "ismaster", "saslStart", "saslContinue", "getnonce", "authenticate",
		"createUser", "updateUser", "copydbSaslStart", "copydbgetnonce", "copydb":
		return false
	}
	return true
}

func (c *conn) write(b []byte, comp byte) bool {
	if comp != CompressorNoop {
		cb, err := Compress(b, comp)
		if err == nil {
			b = cb
		}
	}
	if _, err := c.nc.Write(b); err != nil {
		if c.ctx.Err() == nil {
			c.srv.opts.Logf("conn%d: writing a reply: %v; closing the connection", c.id, err)
		}
		return false
	}
	c.srv.stats.bytesOut.Add(int64(len(b)))
	return true
}

func mustBSON(d bson.D) []byte {
	b, err := marshalD(d)
	if err != nil {
		b, _ = bson.Marshal(errorDoc(1, "InternalError", "reply could not be encoded: "+err.Error(), false))
	}
	return b
}

// errorDoc is a command's error reply; legacy adds OP_REPLY's $err.
func errorDoc(code int32, name, msg string, legacy bool) bson.D {
	d := bson.D{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: msg}, {Key: "code", Value: code}, {Key: "codeName", Value: name}}
	if legacy {
		d = append(bson.D{{Key: "$err", Value: msg}}, d...)
	}
	return d
}

// handleQuery answers a legacy OP_QUERY: only the hello/isMaster
// handshake on admin.$cmd (or any db's $cmd), as mongod 5.1 and later.
func (c *conn) handleQuery(m *Message) bool {
	q := m.Query
	isCmdNS := strings.HasSuffix(q.FullCollection, ".$cmd")
	if !isCmdNS {
		// A query on a collection, not a command: mongod 5.1 and later
		// answer every one of them so.
		c.srv.opts.Logf("conn%d: refused legacy OP_QUERY on %s", c.id, q.FullCollection)
		return c.write(EncodeReply(c.srv.nextReqID.Add(1), m.Header.RequestID, 2, mustBSON(errorDoc(5739101, "Location5739101", legacyRemoved("OP_QUERY"), true))), CompressorNoop)
	}
	var cmd bson.D
	if err := bson.Unmarshal(q.Doc, &cmd); err != nil || len(cmd) == 0 {
		return c.write(EncodeReply(c.srv.nextReqID.Add(1), m.Header.RequestID, 2, mustBSON(errorDoc(22, "InvalidBSON", "invalid OP_QUERY document", true))), CompressorNoop)
	}
	if cmd[0].Key == "$query" || cmd[0].Key == "query" {
		if inner, ok := cmd[0].Value.(bson.D); ok && len(inner) > 0 {
			cmd = inner
		}
	}
	name := cmd[0].Key
	var reply bson.D
	switch {
	case name == "hello" || name == "isMaster" || name == "ismaster":
		reply = c.hello(cmd, name != "hello")
	case opQueryCommands[name]:
		reply = c.run(strings.TrimSuffix(q.FullCollection, ".$cmd"), cmd, false)
	default:
		reply = errorDoc(352, "UnsupportedOpQueryCommand", fmt.Sprintf("Unsupported OP_QUERY command: %s. The client driver may require an upgrade.", name), true)
		c.srv.opts.Logf("conn%d: refused legacy OP_QUERY %q on %s", c.id, name, q.FullCollection)
	}
	flags := int32(0)
	if v, _ := lookup(reply, "ok").(float64); v != 1 {
		flags = 2 // QueryFailure
	}
	return c.write(EncodeReply(c.srv.nextReqID.Add(1), m.Header.RequestID, flags, mustBSON(reply)), m.Compressor)
}

// opGetMore is the legacy OP_GET_MORE opcode.
const opGetMore OpCode = 2005

// opQueryCommands are the commands besides hello that mongod still runs
// when they come as a legacy OP_QUERY (drivers' handshakes and
// authentication before OP_MSG).
var opQueryCommands = map[string]bool{
	"buildinfo": true, "buildInfo": true, "saslStart": true, "saslContinue": true, "authenticate": true, "_isSelf": true,
}

// legacyRemoved is mongod's message for a legacy opcode it no longer
// serves.
func legacyRemoved(op string) string {
	return op + " is no longer supported. The client driver may require an upgrade. For more details see https://dochub.mongodb.org/core/legacy-opcode-removal"
}

func lookup(d bson.D, key string) any {
	for _, e := range d {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}

// command turns an OP_MSG into a command document: the body with every
// kind-1 document sequence folded in as an array field.
func (c *conn) command(m *Message) (bson.D, string, *ProtocolError) {
	cmd, err := commandToD(m.Body, len(m.Sequences), &c.strs)
	if err != nil {
		return bson.D{{Key: "unknown", Value: 1}}, "", protoErr(22, "InvalidBSON", "invalid command document: %v", err)
	}
	if len(cmd) == 0 {
		return bson.D{{Key: "unknown", Value: 1}}, "", protoErr(40571, "Location40571", "OP_MSG requests require a $db argument")
	}
	for _, s := range m.Sequences {
		if lookup(cmd, s.Identifier) != nil {
			return cmd, "", protoErr(40433, "Location40433", "Duplicate field between body and document sequence %s", s.Identifier)
		}
		if len(s.Docs) > MaxWriteBatchSize {
			return cmd, "", protoErr(16, "InvalidLength", "Write batch sizes must be between 1 and %d. Got %d operations.", MaxWriteBatchSize, len(s.Docs))
		}
		arr := make(bson.A, len(s.Docs))
		if cmd[0].Key == "insert" && s.Identifier == "documents" {
			// The engine stores an insert's documents from their BSON
			// (engine.DB.RunCommandRaw), checking them as it goes; the
			// message buffer is the request's own, so they may alias it.
			for i, raw := range s.Docs {
				arr[i] = raw
			}
			cmd = append(cmd, bson.E{Key: s.Identifier, Value: arr})
			continue
		}
		for i, raw := range s.Docs {
			d, err := rawToD(raw)
			if err != nil {
				return cmd, "", protoErr(22, "InvalidBSON", "invalid document in sequence %s: %v", s.Identifier, err)
			}
			arr[i] = d
		}
		cmd = append(cmd, bson.E{Key: s.Identifier, Value: arr})
	}
	dbv := lookup(cmd, "$db")
	dbName, isStr := dbv.(string)
	switch {
	case dbv == nil:
		return cmd, "", protoErr(40571, "Location40571", "OP_MSG requests require a $db argument")
	case !isStr:
		return cmd, "", protoErr(13111, "Location13111", "$db must be a string, not %s", document.TypeName(dbv))
	case dbName == "":
		return cmd, "", protoErr(73, "InvalidNamespace", "Invalid database name: ''")
	case cmd[0].Key == "$db":
		return cmd, "", protoErr(59, "CommandNotFound", "no such command: '$db'")
	}
	return cmd, dbName, nil
}
