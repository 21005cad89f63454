package document

import (
	"encoding/binary"
	"sort"
	"strconv"

	"github.com/vmihailenco/msgpack/v5/msgpcode"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// AppendBSON appends to dst the BSON encoding of the document b holds,
// b being a document encoded by Marshal, and returns the extended
// slice. The bytes are those bson.Marshal gives for Unmarshal(b) (types,
// field order, duplicates and float bits kept; regex options sorted, as
// the driver writes them), produced without building a bson.D: a reader
// of stored documents that hands them on as BSON (the wire server's
// find) skips the decoding and encoding of every value.
//
// AppendBSON accepts exactly what Unmarshal accepts and never panics:
// bytes Unmarshal rejects give an error wrapping ErrCorrupt. A field
// name, regex pattern or regex options holding a NUL byte, which BSON
// cannot carry and bson.Marshal refuses, is an error with CodeBadValue.
// On error dst is returned unchanged in length.
func AppendBSON(dst, b []byte) ([]byte, error) {
	return AppendBSONFields(dst, b, nil)
}

// AppendBSONFields is AppendBSON keeping only the top-level fields for
// whose name keep returns true (all of them when keep is nil), in
// document order: the BSON of a projection that includes or excludes
// whole top-level fields. The fields left out are still checked as
// Unmarshal checks them (corrupt bytes anywhere are an error), but a NUL
// byte in them is not an error, as it never reaches the output. keep
// must not retain the name it is given.
func AppendBSONFields(dst, b []byte, keep func(name []byte) bool) ([]byte, error) {
	t := transcoder{b: b, out: dst, check: true}
	c, err := t.peek()
	if err != nil {
		return dst, err
	}
	if !isMapCode(c) {
		return dst, corruptf("top level is msgpack code 0x%02x, not a map", c)
	}
	if err := t.doc(1, keep); err != nil {
		return dst[:len(dst):len(dst)], err
	}
	if t.p != len(b) {
		return dst[:len(dst):len(dst)], corruptf("%d trailing bytes", len(b)-t.p)
	}
	if t.nulErr != nil {
		// Reported only once the whole input is known not to be corrupt.
		return dst[:len(dst):len(dst)], t.nulErr
	}
	return t.out, nil
}

// transcoder reads msgpack from b at p and appends BSON to out. Its
// checks are those of decoder (codec.go), in the same order of
// precedence only where it matters: any input the decoder rejects is
// rejected here too.
type transcoder struct {
	b      []byte
	p      int
	out    []byte
	check  bool  // refuse NUL bytes in cstrings (off while a skipped field is read)
	nulErr error // the first NUL byte refused; corrupt input takes precedence
}

func (t *transcoder) left() int { return len(t.b) - t.p }

func (t *transcoder) peek() (byte, error) {
	if t.p >= len(t.b) {
		return 0, corruptf("unexpected end of input at byte %d", t.p)
	}
	return t.b[t.p], nil
}

// take returns the next n bytes and advances past them.
func (t *transcoder) take(n int) ([]byte, error) {
	if n < 0 || n > t.left() {
		return nil, corruptf("length %d at byte %d exceeds the %d bytes left", n, t.p, t.left())
	}
	s := t.b[t.p : t.p+n : t.p+n]
	t.p += n
	return s, nil
}

// uint reads a big-endian unsigned integer of w bytes (1, 2 or 4).
func (t *transcoder) uint(w int) (int, error) {
	s, err := t.take(w)
	if err != nil {
		return 0, corruptf("unexpected end of input at byte %d", t.p)
	}
	switch w {
	case 1:
		return int(s[0]), nil
	case 2:
		return int(binary.BigEndian.Uint16(s)), nil
	}
	return int(binary.BigEndian.Uint32(s)), nil
}

// mapLen reads a map header whose code was checked to be a map.
func (t *transcoder) mapLen() (int, error) {
	c := t.b[t.p]
	t.p++
	switch c {
	case msgpcode.Map16:
		return t.uint(2)
	case msgpcode.Map32:
		return t.uint(4)
	}
	return int(c & msgpcode.FixedMapMask), nil
}

// str reads a msgpack string (the caller checked the code).
func (t *transcoder) str() ([]byte, error) {
	c := t.b[t.p]
	t.p++
	var n int
	var err error
	switch c {
	case msgpcode.Str8:
		n, err = t.uint(1)
	case msgpcode.Str16:
		n, err = t.uint(2)
	case msgpcode.Str32:
		n, err = t.uint(4)
	default:
		n = int(c & msgpcode.FixedStrMask)
	}
	if err != nil {
		return nil, err
	}
	return t.take(n)
}

// cstring appends s and its NUL; a NUL inside s is recorded in nulErr
// (when checking), to be reported if the input proves not corrupt.
func (t *transcoder) cstring(s []byte, what string) {
	if t.check && t.nulErr == nil {
		for _, c := range s {
			if c == 0 {
				t.nulErr = Errorf(CodeBadValue, "BSON %s cannot contain null bytes", what)
				break
			}
		}
	}
	t.out = append(t.out, s...)
	t.out = append(t.out, 0)
}

func (t *transcoder) bsonString(s []byte) {
	t.out = binary.LittleEndian.AppendUint32(t.out, uint32(len(s)+1))
	t.out = append(t.out, s...)
	t.out = append(t.out, 0)
}

// doc transcodes a map whose fields sit at nesting level depth into a
// BSON document; keep, when not nil, selects the fields written.
func (t *transcoder) doc(depth int, keep func([]byte) bool) error {
	if depth > MaxReadDepth {
		return corruptf("nesting deeper than %d levels at byte %d", MaxReadDepth, t.p)
	}
	n, err := t.mapLen()
	if err != nil {
		return err
	}
	if n < 0 || n > t.left()/2 {
		return corruptf("document of %d fields at byte %d exceeds the %d bytes left", n, t.p, t.left())
	}
	start := len(t.out)
	t.out = append(t.out, 0, 0, 0, 0)
	for i := 0; i < n; i++ {
		c, err := t.peek()
		if err != nil {
			return err
		}
		if !msgpcode.IsString(c) {
			return corruptf("field name at byte %d is msgpack code 0x%02x, not a string", t.p, c)
		}
		k, err := t.str()
		if err != nil {
			return err
		}
		if keep != nil && !keep(k) {
			mark, check := len(t.out), t.check
			t.check = false
			_, err := t.element(nil, depth)
			t.out, t.check = t.out[:mark], check
			if err != nil {
				return err
			}
			continue
		}
		if _, err := t.element(k, depth); err != nil {
			return err
		}
	}
	t.out = append(t.out, 0)
	binary.LittleEndian.PutUint32(t.out[start:], uint32(len(t.out)-start))
	return nil
}

// element writes one element: its type byte, key and the value read at
// p, which sits in a container at nesting level depth.
func (t *transcoder) element(key []byte, depth int) (bsoncore.Type, error) {
	tpos := len(t.out)
	t.out = append(t.out, 0)
	t.cstring(key, "element key")
	typ, err := t.value(depth)
	if err != nil {
		return 0, err
	}
	t.out[tpos] = byte(typ)
	return typ, nil
}

// value appends the BSON value read at p (a value in a container at
// nesting level depth) and returns its BSON type.
func (t *transcoder) value(depth int) (bsoncore.Type, error) {
	c, err := t.peek()
	if err != nil {
		return 0, err
	}
	switch {
	case c == msgpcode.Nil:
		t.p++
		return bsoncore.TypeNull, nil
	case c == msgpcode.True || c == msgpcode.False:
		t.p++
		if c == msgpcode.True {
			t.out = append(t.out, 1)
		} else {
			t.out = append(t.out, 0)
		}
		return bsoncore.TypeBoolean, nil
	case c == msgpcode.Double || c == msgpcode.Int64:
		s, err := t.take(9)
		if err != nil {
			return 0, err
		}
		t.out = binary.LittleEndian.AppendUint64(t.out, binary.BigEndian.Uint64(s[1:]))
		if c == msgpcode.Double {
			return bsoncore.TypeDouble, nil
		}
		return bsoncore.TypeInt64, nil
	case msgpcode.IsFixedNum(c):
		t.p++
		t.out = binary.LittleEndian.AppendUint32(t.out, uint32(int32(int8(c))))
		return bsoncore.TypeInt32, nil
	case c == msgpcode.Int8, c == msgpcode.Int16, c == msgpcode.Int32,
		c == msgpcode.Uint8, c == msgpcode.Uint16, c == msgpcode.Uint32:
		t.p++
		var n int64
		switch c {
		case msgpcode.Int8, msgpcode.Uint8:
			s, err := t.take(1)
			if err != nil {
				return 0, corruptf("unexpected end of input at byte %d", t.p)
			}
			n = int64(s[0])
			if c == msgpcode.Int8 {
				n = int64(int8(s[0]))
			}
		case msgpcode.Int16, msgpcode.Uint16:
			s, err := t.take(2)
			if err != nil {
				return 0, corruptf("unexpected end of input at byte %d", t.p)
			}
			n = int64(binary.BigEndian.Uint16(s))
			if c == msgpcode.Int16 {
				n = int64(int16(binary.BigEndian.Uint16(s)))
			}
		default:
			s, err := t.take(4)
			if err != nil {
				return 0, corruptf("unexpected end of input at byte %d", t.p)
			}
			n = int64(binary.BigEndian.Uint32(s))
			if c == msgpcode.Int32 {
				n = int64(int32(binary.BigEndian.Uint32(s)))
			}
		}
		if n > 1<<31-1 {
			return 0, corruptf("int32 value %d out of range before byte %d", n, t.p)
		}
		t.out = binary.LittleEndian.AppendUint32(t.out, uint32(int32(n)))
		return bsoncore.TypeInt32, nil
	case msgpcode.IsString(c):
		s, err := t.str()
		if err != nil {
			return 0, err
		}
		t.bsonString(s)
		return bsoncore.TypeString, nil
	case isMapCode(c):
		return bsoncore.TypeEmbeddedDocument, t.doc(depth+1, nil)
	case isArrayCode(c):
		return bsoncore.TypeArray, t.array(depth)
	case msgpcode.IsExt(c):
		return t.ext(depth)
	}
	return 0, corruptf("unexpected msgpack code 0x%02x at byte %d", c, t.p)
}

// array transcodes an array value in a container at nesting level depth.
func (t *transcoder) array(depth int) error {
	if depth+1 > MaxReadDepth {
		return corruptf("nesting deeper than %d levels at byte %d", MaxReadDepth, t.p)
	}
	c := t.b[t.p]
	t.p++
	var n int
	var err error
	switch c {
	case msgpcode.Array16:
		n, err = t.uint(2)
	case msgpcode.Array32:
		n, err = t.uint(4)
	default:
		n = int(c & msgpcode.FixedArrayMask)
	}
	if err != nil {
		return err
	}
	if n < 0 || n > t.left() {
		return corruptf("array of %d elements at byte %d exceeds the %d bytes left", n, t.p, t.left())
	}
	start := len(t.out)
	t.out = append(t.out, 0, 0, 0, 0)
	var key [20]byte
	for i := 0; i < n; i++ {
		if _, err := t.element(strconv.AppendInt(key[:0], int64(i), 10), depth+1); err != nil {
			return err
		}
	}
	t.out = append(t.out, 0)
	binary.LittleEndian.PutUint32(t.out[start:], uint32(len(t.out)-start))
	return nil
}

// ext transcodes an extension value (codec.go lists the types).
func (t *transcoder) ext(depth int) (bsoncore.Type, error) {
	c := t.b[t.p]
	t.p++
	var n int
	var err error
	switch c {
	case msgpcode.FixExt1:
		n = 1
	case msgpcode.FixExt2:
		n = 2
	case msgpcode.FixExt4:
		n = 4
	case msgpcode.FixExt8:
		n = 8
	case msgpcode.FixExt16:
		n = 16
	case msgpcode.Ext8:
		n, err = t.uint(1)
	case msgpcode.Ext16:
		n, err = t.uint(2)
	default:
		n, err = t.uint(4)
	}
	if err != nil {
		return 0, err
	}
	idb, err := t.take(1)
	if err != nil {
		return 0, corruptf("unexpected end of input at byte %d", t.p)
	}
	id := int8(idb[0])
	p, err := t.take(n)
	if err != nil {
		return 0, err
	}
	fixed := func(w int) error {
		if len(p) != w {
			return corruptf("extension %d has %d bytes, want %d, before byte %d", id, len(p), w, t.p)
		}
		return nil
	}
	switch id {
	case extDateTime:
		if err := fixed(8); err != nil {
			return 0, err
		}
		t.out = binary.LittleEndian.AppendUint64(t.out, binary.BigEndian.Uint64(p))
		return bsoncore.TypeDateTime, nil
	case extObjectID:
		if err := fixed(12); err != nil {
			return 0, err
		}
		t.out = append(t.out, p...)
		return bsoncore.TypeObjectID, nil
	case extDecimal128:
		if err := fixed(16); err != nil {
			return 0, err
		}
		t.out = bsoncore.AppendDecimal128(t.out, binary.BigEndian.Uint64(p), binary.BigEndian.Uint64(p[8:]))
		return bsoncore.TypeDecimal128, nil
	case extBinary:
		if len(p) < 1 {
			return 0, corruptf("empty binary extension before byte %d", t.p)
		}
		t.out = bsoncore.AppendBinary(t.out, p[0], p[1:])
		return bsoncore.TypeBinary, nil
	case extTimestamp:
		if err := fixed(8); err != nil {
			return 0, err
		}
		t.out = bsoncore.AppendTimestamp(t.out, binary.BigEndian.Uint32(p), binary.BigEndian.Uint32(p[4:]))
		return bsoncore.TypeTimestamp, nil
	case extRegex:
		pat, opts, err := t.prefixed(p)
		if err != nil {
			return 0, err
		}
		t.cstring(pat, "regex pattern")
		t.cstring(sortOptions(opts), "regex options")
		return bsoncore.TypeRegex, nil
	case extMinKey, extMaxKey, extUndefined:
		if err := fixed(0); err != nil {
			return 0, err
		}
		switch id {
		case extMinKey:
			return bsoncore.TypeMinKey, nil
		case extMaxKey:
			return bsoncore.TypeMaxKey, nil
		}
		return bsoncore.TypeUndefined, nil
	case extDBPointer:
		if len(p) < 12 {
			return 0, corruptf("dbPointer extension of %d bytes before byte %d", len(p), t.p)
		}
		t.bsonString(p[12:])
		t.out = append(t.out, p[:12]...)
		return bsoncore.TypeDBPointer, nil
	case extJavaScript:
		t.bsonString(p)
		return bsoncore.TypeJavaScript, nil
	case extSymbol:
		t.bsonString(p)
		return bsoncore.TypeSymbol, nil
	case extCodeWithScope:
		code, rest, err := t.prefixed(p)
		if err != nil {
			return 0, err
		}
		if len(rest) == 0 || !isMapCode(rest[0]) {
			return 0, corruptf("code with scope without a scope document before byte %d", t.p)
		}
		start := len(t.out)
		t.out = append(t.out, 0, 0, 0, 0)
		t.bsonString(code)
		sub := transcoder{b: rest, out: t.out, check: t.check, nulErr: t.nulErr}
		if err := sub.doc(depth+1, nil); err != nil {
			return 0, err
		}
		if sub.p != len(rest) {
			return 0, corruptf("code with scope has trailing bytes before byte %d", t.p)
		}
		t.out, t.nulErr = sub.out, sub.nulErr
		binary.LittleEndian.PutUint32(t.out[start:], uint32(len(t.out)-start))
		return bsoncore.TypeCodeWithScope, nil
	}
	return 0, corruptf("unknown extension type %d before byte %d", id, t.p)
}

// prefixed splits p into a uvarint-length-prefixed part and the rest.
func (t *transcoder) prefixed(p []byte) ([]byte, []byte, error) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		return nil, nil, corruptf("bad length prefix in extension before byte %d", t.p)
	}
	return p[k : k+int(n)], p[k+int(n):], nil
}

// sortOptions returns regex options in the order the driver writes
// them: sorted by code point (a string that is not UTF-8 goes through
// []rune, as in the driver, so its bad bytes become U+FFFD).
func sortOptions(o []byte) []byte {
	sorted := true
	ascii := true
	for i, c := range o {
		if c >= 0x80 {
			ascii = false
		}
		if i > 0 && c < o[i-1] {
			sorted = false
		}
	}
	if sorted && ascii {
		return o
	}
	if ascii {
		s := append([]byte(nil), o...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s
	}
	r := []rune(string(o))
	sort.Slice(r, func(i, j int) bool { return r[i] < r[j] })
	return []byte(string(r))
}
