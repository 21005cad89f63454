package wire

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// OpCode is a wire-protocol message type (docs/wire.md, "Framing").
type OpCode int32

const (
	// OpReply is the legacy reply, sent only to an OP_QUERY handshake.
	OpReply OpCode = 1
	// OpQuery is the legacy query; only hello/isMaster on admin.$cmd is
	// answered.
	OpQuery OpCode = 2004
	// OpCompressed wraps another message compressed with snappy, zlib or
	// zstd.
	OpCompressed OpCode = 2012
	// OpMsg is the message every current driver sends.
	OpMsg OpCode = 2013
)

// OP_MSG flag bits.
const (
	FlagChecksumPresent uint32 = 1 << 0  // a CRC-32C of the message follows the sections
	FlagMoreToCome      uint32 = 1 << 1  // the sender expects no reply
	FlagExhaustAllowed  uint32 = 1 << 16 // the client accepts several replies to one request
	requiredFlagBits    uint32 = 0xffff  // unknown bits here must be refused
)

// Compressor ids as OP_COMPRESSED names them.
const (
	CompressorNoop   byte = 0
	CompressorSnappy byte = 1
	CompressorZlib   byte = 2
	CompressorZstd   byte = 3
)

// Limits the server advertises in hello and enforces on input.
const (
	HeaderLen         = 16
	MaxMessageSize    = 48000000 // maxMessageSizeBytes
	MaxBSONObjectSize = 16 * 1024 * 1024
	MaxWriteBatchSize = 100000
	maxBSONUserObject = MaxBSONObjectSize + 16*1024 // a command document may carry 16 KiB of overhead
	maxSequences      = 2                           // kind-1 sections a message may have, as in mongod
)

// Header is the 16-byte header every message starts with.
type Header struct {
	Length     int32
	RequestID  int32
	ResponseTo int32
	OpCode     OpCode
}

// Sequence is an OP_MSG kind-1 section: a named run of documents
// ("documents", "updates", "deletes").
type Sequence struct {
	Identifier string
	Docs       []bson.Raw
}

// Query is a legacy OP_QUERY.
type Query struct {
	Flags          int32
	FullCollection string
	Skip, Return   int32
	Doc            bson.Raw
}

// Message is one decoded request: an OP_MSG (Body, Sequences) or an
// OP_QUERY (Query), possibly received inside an OP_COMPRESSED.
type Message struct {
	Header     Header
	Flags      uint32
	Body       bson.Raw
	Sequences  []Sequence
	Query      *Query
	Compressor byte // the compressor the request arrived with; the reply uses it too
}

// Decoding errors. A framing error (ErrFrame) leaves the stream in an
// unknown state, so the server closes the connection; a ProtocolError
// inside a well-framed message is answered with an error reply.
var (
	// ErrFrame is returned when a header's length is out of range or the
	// stream ends inside a message.
	ErrFrame = errors.New("wire: bad message frame")
)

// ProtocolError is a malformed message body, answered with MongoDB's
// code for it.
type ProtocolError struct {
	Code     int32
	CodeName string
	Msg      string
}

func (e *ProtocolError) Error() string { return e.Msg }

func protoErr(code int32, name, format string, a ...any) *ProtocolError {
	return &ProtocolError{Code: code, CodeName: name, Msg: fmt.Sprintf(format, a...)}
}

// ReadMessage reads one whole message (header included) from r. A
// length below 16 or above maxSize, or a stream that ends early, is
// ErrFrame.
func ReadMessage(r io.Reader, maxSize int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: stream ended inside a header", ErrFrame)
		}
		return nil, err // io.EOF: the client went away between messages
	}
	n := int32(binary.LittleEndian.Uint32(hdr[:]))
	if n < HeaderLen || int64(n) > int64(maxSize) {
		return nil, fmt.Errorf("%w: message length %d is not between %d and %d", ErrFrame, n, HeaderLen, maxSize)
	}
	buf := make([]byte, n)
	copy(buf, hdr[:])
	if _, err := io.ReadFull(r, buf[4:]); err != nil {
		return nil, fmt.Errorf("%w: stream ended inside a %d-byte message: %v", ErrFrame, n, err)
	}
	return buf, nil
}

func parseHeader(b []byte) (Header, error) {
	if len(b) < HeaderLen {
		return Header{}, fmt.Errorf("%w: %d bytes is shorter than a header", ErrFrame, len(b))
	}
	h := Header{
		Length:     int32(binary.LittleEndian.Uint32(b)),
		RequestID:  int32(binary.LittleEndian.Uint32(b[4:])),
		ResponseTo: int32(binary.LittleEndian.Uint32(b[8:])),
		OpCode:     OpCode(binary.LittleEndian.Uint32(b[12:])),
	}
	if int(h.Length) != len(b) {
		return h, fmt.Errorf("%w: header length %d but %d bytes", ErrFrame, h.Length, len(b))
	}
	return h, nil
}

// Decode parses one whole message as ReadMessage returns it. It never
// panics; errors are ErrFrame (close the connection) or *ProtocolError
// (answer with an error).
func Decode(b []byte) (*Message, error) {
	h, err := parseHeader(b)
	if err != nil {
		return nil, err
	}
	body := b[HeaderLen:]
	var compressor byte
	wasCompressed := h.OpCode == OpCompressed
	if wasCompressed {
		if len(body) < 9 {
			return nil, fmt.Errorf("%w: OP_COMPRESSED of %d bytes", ErrFrame, len(body))
		}
		orig := OpCode(binary.LittleEndian.Uint32(body))
		size := int32(binary.LittleEndian.Uint32(body[4:]))
		compressor = body[8]
		if size < 0 || int64(size)+HeaderLen > MaxMessageSize {
			return nil, fmt.Errorf("%w: OP_COMPRESSED uncompressedSize %d out of range", ErrFrame, size)
		}
		if orig == OpCompressed {
			return nil, fmt.Errorf("%w: OP_COMPRESSED inside OP_COMPRESSED", ErrFrame)
		}
		raw, err := decompress(compressor, body[9:], int(size))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFrame, err)
		}
		h.OpCode = orig
		body = raw
	}
	m := &Message{Header: h, Compressor: compressor}
	switch h.OpCode {
	case OpMsg:
		err = decodeMsg(m, body, b, !wasCompressed)
	case OpQuery:
		err = decodeQuery(m, body)
	default:
		return nil, fmt.Errorf("%w: unknown opcode %d", ErrFrame, h.OpCode)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// decodeMsg parses an OP_MSG body. whole is the full message when it
// arrived uncompressed, for the checksum (which covers the header).
func decodeMsg(m *Message, body, whole []byte, uncompressed bool) error {
	if len(body) < 4 {
		return fmt.Errorf("%w: OP_MSG without flags", ErrFrame)
	}
	m.Flags = binary.LittleEndian.Uint32(body)
	if bad := m.Flags & requiredFlagBits &^ (FlagChecksumPresent | FlagMoreToCome); bad != 0 {
		// Connection-fatal in mongod (223 IllegalOpMsgFlag): no reply.
		return fmt.Errorf("%w: unrecognized OP_MSG flag bits 0x%x", ErrFrame, bad)
	}
	sections := body[4:]
	if m.Flags&FlagChecksumPresent != 0 {
		if len(sections) < 4 {
			return protoErr(51252, "Location51252", "Invalid message size for an OpMsg containing a checksum")
		}
		want := binary.LittleEndian.Uint32(sections[len(sections)-4:])
		sections = sections[:len(sections)-4]
		var got uint32
		if uncompressed {
			got = crc32.Checksum(whole[:len(whole)-4], castagnoli)
		} else {
			// The checksum of a compressed OP_MSG covers the
			// uncompressed message, which we rebuild to check it.
			got = checksumOf(m.Header, body[:len(body)-4])
		}
		if got != want {
			// Connection-fatal in mongod (288 ChecksumMismatch).
			return fmt.Errorf("%w: OP_MSG checksum does not match contents", ErrFrame)
		}
	}
	for len(sections) > 0 {
		kind := sections[0]
		sections = sections[1:]
		switch kind {
		case 0:
			doc, rest, err := readDoc(sections)
			if err != nil {
				return err
			}
			if m.Body != nil {
				return protoErr(40430, "Location40430", "Multiple body sections in message")
			}
			m.Body, sections = doc, rest
		case 1:
			if len(sections) < 4 {
				return protoErr(9, "FailedToParse", "OP_MSG document sequence cut short")
			}
			size := int32(binary.LittleEndian.Uint32(sections))
			if size < 5 || int(size) > len(sections) {
				return protoErr(15, "Overflow", "OP_MSG document sequence size %d runs past the message", size)
			}
			seq := sections[4:size]
			sections = sections[size:]
			i := bytes.IndexByte(seq, 0)
			if i < 0 {
				return protoErr(9, "FailedToParse", "OP_MSG document sequence identifier not terminated")
			}
			s := Sequence{Identifier: fieldName(seq[:i])}
			seq = seq[i+1:]
			for len(seq) > 0 {
				doc, rest, err := readDoc(seq)
				if err != nil {
					return err
				}
				s.Docs = append(s.Docs, doc)
				seq = rest
			}
			if len(m.Sequences) >= maxSequences {
				// Connection-fatal in mongod (233 TooManyDocumentSequences).
				return fmt.Errorf("%w: too many document sequences in OP_MSG; the limit is %d", ErrFrame, maxSequences)
			}
			for _, o := range m.Sequences {
				if o.Identifier == s.Identifier {
					return protoErr(40431, "Location40431", "Duplicate document sequence: %s", s.Identifier)
				}
			}
			m.Sequences = append(m.Sequences, s)
		default:
			return protoErr(40432, "Location40432", "Unknown section kind %d", kind)
		}
	}
	if m.Body == nil {
		return protoErr(40587, "Location40587", "OP_MSG messages must have a body")
	}
	return nil
}

func checksumOf(h Header, body []byte) uint32 {
	var hdr [HeaderLen]byte
	binary.LittleEndian.PutUint32(hdr[:], uint32(HeaderLen+len(body)+4))
	binary.LittleEndian.PutUint32(hdr[4:], uint32(h.RequestID))
	binary.LittleEndian.PutUint32(hdr[8:], uint32(h.ResponseTo))
	binary.LittleEndian.PutUint32(hdr[12:], uint32(OpMsg))
	c := crc32.Update(0, castagnoli, hdr[:])
	return crc32.Update(c, castagnoli, body)
}

// readDoc splits one BSON document off the front of b and validates it.
func readDoc(b []byte) (bson.Raw, []byte, error) {
	if len(b) < 5 {
		return nil, nil, protoErr(22, "InvalidBSON", "BSON document cut short")
	}
	n := int32(binary.LittleEndian.Uint32(b))
	if n < 5 || int(n) > len(b) {
		return nil, nil, protoErr(22, "InvalidBSON", "BSON document length %d is out of range", n)
	}
	if n > maxBSONUserObject {
		return nil, nil, protoErr(10334, "BSONObjectTooLarge", "BSON document of %d bytes is larger than the maximum of %d", n, maxBSONUserObject)
	}
	doc := bson.Raw(b[:n])
	if tooDeep(doc, maxBSONDepth) {
		// Checked before anything walks the document recursively: a
		// client must not be able to exhaust the server's stack.
		return nil, nil, protoErr(15, "Overflow", "BSONObj exceeds maximum nested object depth")
	}
	if err := doc.Validate(); err != nil {
		return nil, nil, protoErr(22, "InvalidBSON", "invalid BSON: %v", err)
	}
	return doc, b[n:], nil
}

// maxBSONDepth is how deep documents and arrays of a message may nest
// below its top-level document, mongod's limit for what it receives.
const maxBSONDepth = 200

// tooDeep reports whether BSON document b nests documents or arrays
// (a JavaScript scope included) more than max levels deep. It walks b
// without recursion and stops at the first malformation, which it
// leaves to the full validation to report.
func tooDeep(b []byte, max int) bool {
	if len(b) < 5 {
		return false
	}
	le := func(i int) int { return int(int32(binary.LittleEndian.Uint32(b[i:]))) }
	var stack [16]int                // most documents nest less: no allocation
	ends := append(stack[:0], le(0)) // where each open document ends
	i := 4
	for len(ends) > 0 {
		end := ends[len(ends)-1]
		if end > len(b) || i >= end {
			return false
		}
		t := b[i]
		i++
		if t == 0 {
			if i != end {
				return false
			}
			ends = ends[:len(ends)-1]
			continue
		}
		k := bytes.IndexByte(b[i:end], 0)
		if k < 0 {
			return false
		}
		i += k + 1
		size := 0
		switch t {
		case 0x03, 0x04: // document, array
			if i+4 > end {
				return false
			}
			n := le(i)
			if n < 5 || i+n > end {
				return false
			}
			if len(ends) > max {
				return true
			}
			ends = append(ends, i+n)
			i += 4
			continue
		case 0x0F: // code with scope: int32 total, string, document
			if i+8 > end {
				return false
			}
			n, sl := le(i), le(i+4)
			doc := i + 8 + sl
			if n < 14 || sl < 1 || i+n > end || doc < i || doc+5 > i+n || le(doc) != i+n-doc {
				return false
			}
			if len(ends) > max {
				return true
			}
			ends = append(ends, i+n)
			i = doc + 4
			continue
		case 0x01, 0x09, 0x11, 0x12: // double, date, timestamp, int64
			size = 8
		case 0x02, 0x0D, 0x0E: // string, code, symbol
			if i+4 > end {
				return false
			}
			size = 4 + le(i)
		case 0x05: // binary
			if i+4 > end {
				return false
			}
			size = 5 + le(i)
		case 0x06, 0x0A, 0xFF, 0x7F: // undefined, null, min and max key
		case 0x07:
			size = 12
		case 0x08:
			size = 1
		case 0x0B: // regex: two cstrings
			for range 2 {
				j := bytes.IndexByte(b[i+size:end], 0)
				if j < 0 {
					return false
				}
				size += j + 1
			}
		case 0x0C: // DBPointer: string, ObjectId
			if i+4 > end {
				return false
			}
			size = 4 + le(i) + 12
		case 0x10:
			size = 4
		case 0x13:
			size = 16
		default:
			return false
		}
		if size < 0 || i+size > end {
			return false
		}
		i += size
	}
	return false
}

func decodeQuery(m *Message, body []byte) error {
	if len(body) < 4 {
		return fmt.Errorf("%w: OP_QUERY cut short", ErrFrame)
	}
	q := &Query{Flags: int32(binary.LittleEndian.Uint32(body))}
	rest := body[4:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return protoErr(9, "FailedToParse", "OP_QUERY collection name not terminated")
	}
	q.FullCollection = string(rest[:i])
	rest = rest[i+1:]
	if len(rest) < 8 {
		return protoErr(9, "FailedToParse", "OP_QUERY cut short")
	}
	q.Skip = int32(binary.LittleEndian.Uint32(rest))
	q.Return = int32(binary.LittleEndian.Uint32(rest[4:]))
	doc, _, err := readDoc(rest[8:])
	if err != nil {
		return err
	}
	q.Doc = doc
	m.Query = q
	return nil
}

var (
	zstdDec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxMessageSize))
	zstdEnc, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest))
)

func decompress(id byte, data []byte, size int) ([]byte, error) {
	var out []byte
	var err error
	switch id {
	case CompressorNoop:
		out = data
	case CompressorSnappy:
		var n int
		if n, err = snappy.DecodedLen(data); err == nil {
			if n != size {
				return nil, fmt.Errorf("snappy: decoded length %d, header says %d", n, size)
			}
			out, err = snappy.Decode(nil, data)
		}
	case CompressorZlib:
		var zr io.ReadCloser
		if zr, err = zlib.NewReader(bytes.NewReader(data)); err == nil {
			out, err = io.ReadAll(io.LimitReader(zr, int64(size)+1))
			zr.Close()
		}
	case CompressorZstd:
		out, err = zstdDec.DecodeAll(data, make([]byte, 0, size))
	default:
		return nil, fmt.Errorf("unknown compressor id %d", id)
	}
	if err != nil {
		return nil, err
	}
	if len(out) != size {
		return nil, fmt.Errorf("decompressed %d bytes, header says %d", len(out), size)
	}
	return out, nil
}

func compress(id byte, data []byte) ([]byte, error) {
	switch id {
	case CompressorSnappy:
		return snappy.Encode(nil, data), nil
	case CompressorZlib:
		var b bytes.Buffer
		zw := zlib.NewWriter(&b)
		zw.Write(data)
		if err := zw.Close(); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	case CompressorZstd:
		return zstdEnc.EncodeAll(data, nil), nil
	}
	return data, nil
}

// EncodeMsg builds an OP_MSG with one body section. With checksum set
// it appends the CRC-32C.
func EncodeMsg(requestID, responseTo int32, flags uint32, body []byte, checksum bool) []byte {
	if checksum {
		flags |= FlagChecksumPresent
	} else {
		flags &^= FlagChecksumPresent
	}
	n := HeaderLen + 4 + 1 + len(body)
	if checksum {
		n += 4
	}
	b := make([]byte, 0, n)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = binary.LittleEndian.AppendUint32(b, uint32(requestID))
	b = binary.LittleEndian.AppendUint32(b, uint32(responseTo))
	b = binary.LittleEndian.AppendUint32(b, uint32(OpMsg))
	b = binary.LittleEndian.AppendUint32(b, flags)
	b = append(b, 0)
	b = append(b, body...)
	if checksum {
		b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	}
	return b
}

// EncodeReply builds a legacy OP_REPLY holding docs.
func EncodeReply(requestID, responseTo int32, flags int32, docs ...[]byte) []byte {
	n := HeaderLen + 20
	for _, d := range docs {
		n += len(d)
	}
	b := make([]byte, 0, n)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = binary.LittleEndian.AppendUint32(b, uint32(requestID))
	b = binary.LittleEndian.AppendUint32(b, uint32(responseTo))
	b = binary.LittleEndian.AppendUint32(b, uint32(OpReply))
	b = binary.LittleEndian.AppendUint32(b, uint32(flags))
	b = binary.LittleEndian.AppendUint64(b, 0) // cursorID
	b = binary.LittleEndian.AppendUint32(b, 0) // startingFrom
	b = binary.LittleEndian.AppendUint32(b, uint32(len(docs)))
	for _, d := range docs {
		b = append(b, d...)
	}
	return b
}

// Compress wraps a whole message in OP_COMPRESSED with the given
// compressor; CompressorNoop returns msg unchanged.
func Compress(msg []byte, id byte) ([]byte, error) {
	if id == CompressorNoop || len(msg) < HeaderLen {
		return msg, nil
	}
	c, err := compress(id, msg[HeaderLen:])
	if err != nil {
		return nil, err
	}
	n := HeaderLen + 9 + len(c)
	b := make([]byte, 0, n)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = append(b, msg[4:12]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(OpCompressed))
	b = append(b, msg[12:16]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(msg)-HeaderLen))
	b = append(b, id)
	return append(b, c...), nil
}

// compressorNames maps the names hello negotiates to ids.
var compressorNames = map[string]byte{"snappy": CompressorSnappy, "zlib": CompressorZlib, "zstd": CompressorZstd}
