package document

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The on-disk encoding is msgpack. Documents are maps (field order and
// duplicate names kept), arrays are arrays, strings are str, booleans and
// null are themselves, float64 is always the 9-byte float64 form (bits
// kept, NaN payload and -0 included), int64 is always the 9-byte int64
// form, and int32 is any other msgpack integer form (the encoder uses the
// shortest). The other BSON types are msgpack extension values with these
// type ids and payloads (big-endian integers):
const (
	extDateTime      int8 = 1  // int64 milliseconds
	extObjectID      int8 = 2  // 12 bytes
	extDecimal128    int8 = 3  // high uint64, low uint64
	extBinary        int8 = 4  // subtype byte, data
	extTimestamp     int8 = 5  // T uint32, I uint32
	extRegex         int8 = 6  // uvarint len(pattern), pattern, options
	extMinKey        int8 = 7  // empty
	extMaxKey        int8 = 8  // empty
	extUndefined     int8 = 9  // empty
	extDBPointer     int8 = 10 // 12-byte id, namespace
	extJavaScript    int8 = 11 // code
	extSymbol        int8 = 12 // symbol
	extCodeWithScope int8 = 13 // uvarint len(code), code, scope as an encoded document
)

// ErrCorrupt is wrapped by every error Unmarshal and UnmarshalValue return
// for bytes that are not a valid encoding. Such an error is an engine
// fault (CodeOf gives CodeInternalError), never a user mistake.
var ErrCorrupt = errors.New("doc: corrupt document encoding")

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// appendWriter is an io.Writer and io.ByteWriter that appends to b.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

func (w *appendWriter) WriteByte(c byte) error {
	w.b = append(w.b, c)
	return nil
}

type encoder struct {
	w   appendWriter
	enc *msgpack.Encoder
	tmp [16]byte
}

var encoderPool = sync.Pool{New: func() any {
	e := &encoder{}
	e.enc = msgpack.NewEncoder(&e.w)
	return e
}}

// Marshal returns the on-disk encoding of d. Every value must be
// canonical (bson.Null is accepted as null); any other type is an error
// with CodeBadValue, as is nesting deeper than MaxReadDepth. Unmarshal
// returns a document deeply equal to d, with every type, field order,
// duplicate field and float64 bit pattern kept.
func Marshal(d bson.D) ([]byte, error) {
	return AppendMarshal(nil, d)
}

// AppendMarshal appends the encoding of d to dst and returns the extended
// slice, as Marshal does. On error it returns dst unchanged in length.
func AppendMarshal(dst []byte, d bson.D) ([]byte, error) {
	e := encoderPool.Get().(*encoder)
	e.w.b = dst
	err := e.doc(d, 1)
	out := e.w.b
	e.w.b = nil
	encoderPool.Put(e)
	if err != nil {
		return dst[:len(dst):len(dst)], err
	}
	return out, nil
}

// MarshalValue returns the encoding of a single canonical value, in the
// same format as a field value inside Marshal's output.
func MarshalValue(v any) ([]byte, error) {
	e := encoderPool.Get().(*encoder)
	e.w.b = nil
	err := e.value(v, 0)
	out := e.w.b
	e.w.b = nil
	encoderPool.Put(e)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (e *encoder) doc(d bson.D, depth int) error {
	if depth > MaxReadDepth {
		return overflow()
	}
	if err := e.enc.EncodeMapLen(len(d)); err != nil {
		return err
	}
	for i := range d {
		if err := e.enc.EncodeString(d[i].Key); err != nil {
			return err
		}
		if err := e.value(d[i].Value, depth); err != nil {
			return err
		}
	}
	return nil
}

func (e *encoder) ext(id int8, payload ...[]byte) error {
	n := 0
	for _, p := range payload {
		n += len(p)
	}
	if n > math.MaxUint32 {
		return Errorf(CodeBadValue, "value too large to encode")
	}
	if err := e.enc.EncodeExtHeader(id, n); err != nil {
		return err
	}
	for _, p := range payload {
		e.w.b = append(e.w.b, p...)
	}
	return nil
}

// value encodes v, which sits in a container at nesting level depth.
func (e *encoder) value(v any, depth int) error {
	switch x := v.(type) {
	case nil, bson.Null:
		return e.enc.EncodeNil()
	case float64:
		return e.enc.EncodeFloat64(x)
	case string:
		return e.enc.EncodeString(x)
	case bool:
		return e.enc.EncodeBool(x)
	case int32:
		return e.enc.EncodeInt(int64(x))
	case int64:
		return e.enc.EncodeInt64(x)
	case bson.D:
		return e.doc(x, depth+1)
	case bson.A:
		if depth+1 > MaxReadDepth {
			return overflow()
		}
		if err := e.enc.EncodeArrayLen(len(x)); err != nil {
			return err
		}
		for _, el := range x {
			if err := e.value(el, depth+1); err != nil {
				return err
			}
		}
		return nil
	case bson.DateTime:
		binary.BigEndian.PutUint64(e.tmp[:8], uint64(x))
		return e.ext(extDateTime, e.tmp[:8])
	case bson.ObjectID:
		return e.ext(extObjectID, x[:])
	case bson.Decimal128:
		h, l := x.GetBytes()
		binary.BigEndian.PutUint64(e.tmp[:8], h)
		binary.BigEndian.PutUint64(e.tmp[8:16], l)
		return e.ext(extDecimal128, e.tmp[:16])
	case bson.Binary:
		e.tmp[0] = x.Subtype
		return e.ext(extBinary, e.tmp[:1], x.Data)
	case bson.Timestamp:
		binary.BigEndian.PutUint32(e.tmp[:4], x.T)
		binary.BigEndian.PutUint32(e.tmp[4:8], x.I)
		return e.ext(extTimestamp, e.tmp[:8])
	case bson.Regex:
		n := binary.PutUvarint(e.tmp[:], uint64(len(x.Pattern)))
		return e.ext(extRegex, e.tmp[:n], []byte(x.Pattern), []byte(x.Options))
	case bson.MinKey:
		return e.ext(extMinKey)
	case bson.MaxKey:
		return e.ext(extMaxKey)
	case bson.Undefined:
		return e.ext(extUndefined)
	case bson.DBPointer:
		return e.ext(extDBPointer, x.Pointer[:], []byte(x.DB))
	case bson.JavaScript:
		return e.ext(extJavaScript, []byte(x))
	case bson.Symbol:
		return e.ext(extSymbol, []byte(x))
	case bson.CodeWithScope:
		var scope bson.D
		switch s := x.Scope.(type) {
		case bson.D:
			scope = s
		case nil:
			scope = bson.D{}
		default:
			return Errorf(CodeBadValue, "cannot encode code with scope: scope is %T, not bson.D", x.Scope)
		}
		// The scope is encoded separately first so the extension header
		// can carry the payload length.
		sub := encoderPool.Get().(*encoder)
		sub.w.b = nil
		err := sub.doc(scope, depth+1)
		enc := sub.w.b
		sub.w.b = nil
		encoderPool.Put(sub)
		if err != nil {
			return err
		}
		var hdr [binary.MaxVarintLen64]byte
		n := binary.PutUvarint(hdr[:], uint64(len(x.Code)))
		return e.ext(extCodeWithScope, hdr[:n], []byte(x.Code), enc)
	}
	return Errorf(CodeBadValue, "cannot encode a value of Go type %T; Normalize it first", v)
}

// decoder reads one encoding held in b. The msgpack decoder reads from r
// without buffering, so r.Len() is always the number of unread bytes.
type decoder struct {
	b   []byte
	r   bytes.Reader
	dec *msgpack.Decoder
}

var decoderPool = sync.Pool{New: func() any {
	return &decoder{dec: msgpack.NewDecoder(nil)}
}}

func getDecoder(b []byte) *decoder {
	d := decoderPool.Get().(*decoder)
	d.b = b
	d.r.Reset(b)
	d.dec.Reset(&d.r)
	return d
}

func putDecoder(d *decoder) {
	d.b = nil
	d.r.Reset(nil)
	d.dec.Reset(nil)
	decoderPool.Put(d)
}

// Unmarshal decodes a document encoded by Marshal. It never panics and
// allocates at most in proportion to len(b): lengths that exceed the
// remaining input, nesting deeper than MaxReadDepth, unknown codes or
// extension types, and trailing bytes are errors wrapping ErrCorrupt.
// The result is canonical and shares no memory with b.
func Unmarshal(b []byte) (bson.D, error) {
	d := getDecoder(b)
	defer putDecoder(d)
	if err := d.topMap(); err != nil {
		return nil, err
	}
	doc, err := d.doc(1)
	if err != nil {
		return nil, err
	}
	if d.r.Len() != 0 {
		return nil, corruptf("%d trailing bytes", d.r.Len())
	}
	return doc, nil
}

// UnmarshalValue decodes a single value encoded by MarshalValue, with the
// same guarantees as Unmarshal.
func UnmarshalValue(b []byte) (any, error) {
	d := getDecoder(b)
	defer putDecoder(d)
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.r.Len() != 0 {
		return nil, corruptf("%d trailing bytes", d.r.Len())
	}
	return v, nil
}

func isMapCode(c byte) bool {
	return msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32
}

func isArrayCode(c byte) bool {
	return msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32
}

func (d *decoder) pos() int { return len(d.b) - d.r.Len() }

// topMap checks that the input starts with a msgpack map, as every
// encoded document does, without consuming it.
func (d *decoder) topMap() error {
	c, err := d.peek()
	if err != nil {
		return err
	}
	if !isMapCode(c) {
		return corruptf("top level is msgpack code 0x%02x, not a map", c)
	}
	return nil
}

func (d *decoder) peek() (byte, error) {
	if d.r.Len() == 0 {
		return 0, corruptf("unexpected end of input at byte %d", d.pos())
	}
	return d.b[d.pos()], nil
}

func (d *decoder) wrap(err error) error {
	if errors.Is(err, ErrCorrupt) {
		return err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return corruptf("unexpected end of input at byte %d", d.pos())
	}
	return corruptf("at byte %d: %v", d.pos(), err)
}

// take returns the next n bytes and advances past them, after checking
// that they exist.
func (d *decoder) take(n int) ([]byte, error) {
	if n < 0 || n > d.r.Len() {
		return nil, corruptf("length %d at byte %d exceeds the %d bytes left", n, d.pos(), d.r.Len())
	}
	p := d.pos()
	if _, err := d.r.Seek(int64(n), io.SeekCurrent); err != nil {
		return nil, d.wrap(err)
	}
	return d.b[p : p+n : p+n], nil
}

func (d *decoder) str() (string, error) {
	n, err := d.dec.DecodeBytesLen()
	if err != nil {
		return "", d.wrap(err)
	}
	b, err := d.take(n)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// doc decodes a map whose fields sit at nesting level depth.
func (d *decoder) doc(depth int) (bson.D, error) {
	if depth > MaxReadDepth {
		return nil, corruptf("nesting deeper than %d levels at byte %d", MaxReadDepth, d.pos())
	}
	n, err := d.dec.DecodeMapLen()
	if err != nil {
		return nil, d.wrap(err)
	}
	// Each field takes at least two bytes (key and value).
	if n < 0 || n > d.r.Len()/2 {
		return nil, corruptf("document of %d fields at byte %d exceeds the %d bytes left", n, d.pos(), d.r.Len())
	}
	out := make(bson.D, n)
	for i := range out {
		c, err := d.peek()
		if err != nil {
			return nil, err
		}
		if !msgpcode.IsString(c) {
			return nil, corruptf("field name at byte %d is msgpack code 0x%02x, not a string", d.pos(), c)
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		out[i] = bson.E{Key: k, Value: v}
	}
	return out, nil
}

// value decodes one value inside a container at nesting level depth.
func (d *decoder) value(depth int) (any, error) {
	c, err := d.peek()
	if err != nil {
		return nil, err
	}
	switch {
	case c == msgpcode.Nil:
		d.r.Seek(1, io.SeekCurrent) //nolint:errcheck // within bounds: peek succeeded
		return nil, nil
	case c == msgpcode.True || c == msgpcode.False:
		d.r.Seek(1, io.SeekCurrent) //nolint:errcheck
		return c == msgpcode.True, nil
	case c == msgpcode.Double:
		b, err := d.take(9)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.BigEndian.Uint64(b[1:])), nil
	case c == msgpcode.Int64:
		b, err := d.take(9)
		if err != nil {
			return nil, err
		}
		return int64(binary.BigEndian.Uint64(b[1:])), nil
	case msgpcode.IsFixedNum(c), c == msgpcode.Int8, c == msgpcode.Int16, c == msgpcode.Int32,
		c == msgpcode.Uint8, c == msgpcode.Uint16, c == msgpcode.Uint32:
		n, err := d.dec.DecodeInt64()
		if err != nil {
			return nil, d.wrap(err)
		}
		if n < math.MinInt32 || n > math.MaxInt32 {
			return nil, corruptf("int32 value %d out of range before byte %d", n, d.pos())
		}
		return int32(n), nil
	case msgpcode.IsString(c):
		return d.str()
	case isMapCode(c):
		return d.doc(depth + 1)
	case isArrayCode(c):
		if depth+1 > MaxReadDepth {
			return nil, corruptf("nesting deeper than %d levels at byte %d", MaxReadDepth, d.pos())
		}
		n, err := d.dec.DecodeArrayLen()
		if err != nil {
			return nil, d.wrap(err)
		}
		if n < 0 || n > d.r.Len() {
			return nil, corruptf("array of %d elements at byte %d exceeds the %d bytes left", n, d.pos(), d.r.Len())
		}
		out := make(bson.A, n)
		for i := range out {
			if out[i], err = d.value(depth + 1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case msgpcode.IsExt(c):
		id, n, err := d.dec.DecodeExtHeader()
		if err != nil {
			return nil, d.wrap(err)
		}
		p, err := d.take(n)
		if err != nil {
			return nil, err
		}
		return d.extValue(id, p, depth)
	}
	return nil, corruptf("unexpected msgpack code 0x%02x at byte %d", c, d.pos())
}

func (d *decoder) extValue(id int8, p []byte, depth int) (any, error) {
	fixed := func(n int) error {
		if len(p) != n {
			return corruptf("extension %d has %d bytes, want %d, before byte %d", id, len(p), n, d.pos())
		}
		return nil
	}
	switch id {
	case extDateTime:
		if err := fixed(8); err != nil {
			return nil, err
		}
		return bson.DateTime(int64(binary.BigEndian.Uint64(p))), nil
	case extObjectID:
		if err := fixed(12); err != nil {
			return nil, err
		}
		return bson.ObjectID(p), nil
	case extDecimal128:
		if err := fixed(16); err != nil {
			return nil, err
		}
		return bson.NewDecimal128(binary.BigEndian.Uint64(p), binary.BigEndian.Uint64(p[8:])), nil
	case extBinary:
		if len(p) < 1 {
			return nil, corruptf("empty binary extension before byte %d", d.pos())
		}
		return bson.Binary{Subtype: p[0], Data: bytes.Clone(p[1:])}, nil
	case extTimestamp:
		if err := fixed(8); err != nil {
			return nil, err
		}
		return bson.Timestamp{T: binary.BigEndian.Uint32(p), I: binary.BigEndian.Uint32(p[4:])}, nil
	case extRegex:
		pat, rest, err := d.prefixed(p)
		if err != nil {
			return nil, err
		}
		return bson.Regex{Pattern: string(pat), Options: string(rest)}, nil
	case extMinKey, extMaxKey, extUndefined:
		if err := fixed(0); err != nil {
			return nil, err
		}
		switch id {
		case extMinKey:
			return bson.MinKey{}, nil
		case extMaxKey:
			return bson.MaxKey{}, nil
		}
		return bson.Undefined{}, nil
	case extDBPointer:
		if len(p) < 12 {
			return nil, corruptf("dbPointer extension of %d bytes before byte %d", len(p), d.pos())
		}
		return bson.DBPointer{Pointer: bson.ObjectID(p[:12]), DB: string(p[12:])}, nil
	case extJavaScript:
		return bson.JavaScript(p), nil
	case extSymbol:
		return bson.Symbol(p), nil
	case extCodeWithScope:
		code, rest, err := d.prefixed(p)
		if err != nil {
			return nil, err
		}
		sub := getDecoder(rest)
		defer putDecoder(sub)
		if c, err := sub.peek(); err != nil || !isMapCode(c) {
			return nil, corruptf("code with scope without a scope document before byte %d", d.pos())
		}
		scope, err := sub.doc(depth + 1)
		if err != nil {
			return nil, err
		}
		if sub.r.Len() != 0 {
			return nil, corruptf("code with scope has trailing bytes before byte %d", d.pos())
		}
		return bson.CodeWithScope{Code: bson.JavaScript(code), Scope: scope}, nil
	}
	return nil, corruptf("unknown extension type %d before byte %d", id, d.pos())
}

// prefixed splits p into a uvarint-length-prefixed part and the rest.
func (d *decoder) prefixed(p []byte) ([]byte, []byte, error) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		return nil, nil, corruptf("bad length prefix in extension before byte %d", d.pos())
	}
	return p[k : k+int(n)], p[k+int(n):], nil
}
