package document

import (
	"encoding/binary"
	"math"

	"github.com/vmihailenco/msgpack/v5/msgpcode"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// BSON element types (the BSON specification's numbering).
const (
	bsonDouble     = 0x01
	bsonString     = 0x02
	bsonDocument   = 0x03
	bsonArray      = 0x04
	bsonBinary     = 0x05
	bsonUndefined  = 0x06
	bsonObjectID   = 0x07
	bsonBoolean    = 0x08
	bsonDateTime   = 0x09
	bsonNull       = 0x0A
	bsonRegex      = 0x0B
	bsonDBPointer  = 0x0C
	bsonJavaScript = 0x0D
	bsonSymbol     = 0x0E
	bsonCodeScope  = 0x0F
	bsonInt32      = 0x10
	bsonTimestamp  = 0x11
	bsonInt64      = 0x12
	bsonDecimal128 = 0x13
	bsonMinKey     = 0xFF
	bsonMaxKey     = 0x7F
)

// AppendInsertBSON appends to dst the stored encoding (Marshal's) of
// the BSON document raw prepared for insertion, and returns the
// extended slice and the document's _id in its canonical Go type. It is
// the insert path of a client that sends BSON (the wire server's
// insert): the bytes equal those of decoding raw (bson.Unmarshal, then
// Normalize), putting its first _id field first or adding newID() in
// front when it has none, checking the result with ValidateForStorage
// and encoding it with Marshal; no bson.D is built.
//
// The rules and their errors are those of that path, in the same order
// of precedence: nesting deeper than MaxReadDepth (CodeOverflow), an
// _id that is an array, a regex or undefined (CodeInvalidIDField), a
// non-empty document or array deeper than MaxWriteDepth (CodeOverflow),
// and a size over MaxDocumentSize (2 BadValue, as mongod answers an insert). raw must be
// exactly one BSON document; anything else (lengths that lie, unknown
// types, strings without their NUL, a boolean other than 0 or 1) is an
// error with CodeInvalidBSON. On error dst is returned unchanged in
// length. AppendInsertBSON never panics and keeps no reference to raw.
func AppendInsertBSON(dst, raw []byte, newID func() bson.ObjectID) ([]byte, any, error) {
	t := bsonReader{b: raw, out: dst}
	out, id, err := t.insertDoc(newID)
	if err != nil {
		return dst[:len(dst):len(dst)], nil, err
	}
	return out, id, nil
}

// bsonReader reads BSON from b and appends the stored encoding to out.
type bsonReader struct {
	b   []byte
	out []byte
	// deep is set by a non-empty document or array whose fields sit
	// deeper than MaxWriteDepth (ValidateForStorage's rule, reported
	// after the _id rule).
	deep bool
	// sizeDelta is what the size ValidateForStorage computes differs
	// from the input's length by (array keys, short old binaries).
	sizeDelta int
}

func invalidBSON(format string, args ...any) error {
	return Errorf(CodeInvalidBSON, "invalid BSON document: "+format, args...)
}

// docBounds checks the document starting at p and returns its end
// (one past its final NUL).
func (t *bsonReader) docBounds(p int) (int, error) {
	if len(t.b)-p < 5 {
		return 0, invalidBSON("document at byte %d is cut short", p)
	}
	n := int(int32(binary.LittleEndian.Uint32(t.b[p:])))
	if n < 5 || n > len(t.b)-p || t.b[p+n-1] != 0 {
		return 0, invalidBSON("document at byte %d has a bad length %d", p, n)
	}
	return p + n, nil
}

// cstring returns the end of the NUL-terminated string at p (the index
// of its NUL), which must lie before end.
func (t *bsonReader) cstring(p, end int) (int, error) {
	for i := p; i < end; i++ {
		if t.b[i] == 0 {
			return i, nil
		}
	}
	return 0, invalidBSON("string at byte %d has no terminating NUL", p)
}

// valueEnd returns where the value of type typ starting at p ends,
// checking only its framing (nested documents are checked when read).
func (t *bsonReader) valueEnd(typ byte, p, end int) (int, error) {
	fixed := func(n int) (int, error) {
		if end-p < n {
			return 0, invalidBSON("value at byte %d is cut short", p)
		}
		return p + n, nil
	}
	switch typ {
	case bsonDouble, bsonDateTime, bsonInt64, bsonTimestamp:
		return fixed(8)
	case bsonInt32:
		return fixed(4)
	case bsonObjectID:
		return fixed(12)
	case bsonDecimal128:
		return fixed(16)
	case bsonBoolean:
		return fixed(1)
	case bsonNull, bsonUndefined, bsonMinKey, bsonMaxKey:
		return p, nil
	case bsonString, bsonJavaScript, bsonSymbol:
		_, e, err := t.bstring(p, end)
		return e, err
	case bsonDocument, bsonArray, bsonCodeScope:
		if end-p < 4 {
			return 0, invalidBSON("value at byte %d is cut short", p)
		}
		n := int(int32(binary.LittleEndian.Uint32(t.b[p:])))
		if n < 5 || n > end-p {
			return 0, invalidBSON("value at byte %d has a bad length %d", p, n)
		}
		return p + n, nil
	case bsonBinary:
		if end-p < 5 {
			return 0, invalidBSON("binary at byte %d is cut short", p)
		}
		n := int(int32(binary.LittleEndian.Uint32(t.b[p:])))
		if n < 0 || n > end-p-5 {
			return 0, invalidBSON("binary at byte %d has a bad length %d", p, n)
		}
		return p + 5 + n, nil
	case bsonRegex:
		e, err := t.cstring(p, end)
		if err != nil {
			return 0, err
		}
		e, err = t.cstring(e+1, end)
		if err != nil {
			return 0, err
		}
		return e + 1, nil
	case bsonDBPointer:
		_, e, err := t.bstring(p, end)
		if err != nil {
			return 0, err
		}
		if end-e < 12 {
			return 0, invalidBSON("dbPointer at byte %d is cut short", p)
		}
		return e + 12, nil
	}
	return 0, invalidBSON("unknown element type 0x%02x before byte %d", typ, p)
}

// bstring reads a BSON string (int32 length including the NUL, bytes,
// NUL) at p and returns its bytes and its end.
func (t *bsonReader) bstring(p, end int) ([]byte, int, error) {
	if end-p < 5 {
		return nil, 0, invalidBSON("string at byte %d is cut short", p)
	}
	n := int(int32(binary.LittleEndian.Uint32(t.b[p:])))
	if n < 1 || n > end-p-4 || t.b[p+4+n-1] != 0 {
		return nil, 0, invalidBSON("string at byte %d has a bad length %d", p, n)
	}
	return t.b[p+4 : p+4+n-1], p + 4 + n, nil
}

// insertDoc transcodes the top-level document with its _id first.
func (t *bsonReader) insertDoc(newID func() bson.ObjectID) ([]byte, any, error) {
	end, err := t.docBounds(0)
	if err != nil {
		return nil, nil, err
	}
	if end != len(t.b) {
		return nil, nil, invalidBSON("%d bytes after the document", len(t.b)-end)
	}
	last := end - 1 // the document's final NUL
	// First pass: count the fields and find the first _id.
	n, idAt, idType, idVal := 0, -1, byte(0), 0
	var idErr error // a refused type of a later _id field
	for p := 4; p < last; n++ {
		typ := t.b[p]
		k, err := t.cstring(p+1, last)
		if err != nil {
			return nil, nil, err
		}
		e, err := t.valueEnd(typ, k+1, last)
		if err != nil {
			return nil, nil, err
		}
		if k-p == 4 && t.b[p+1] == '_' && t.b[p+2] == 'i' && t.b[p+3] == 'd' {
			if idAt < 0 {
				idAt, idType, idVal = p, typ, k+1
			} else if idErr == nil {
				// Two top-level _id fields, as ValidateForStorage refuses.
				idErr = errMultipleIDs()
			}
		}
		p = e
	}
	size := len(t.b)
	if idAt < 0 {
		n++
		size += 1 + 4 + 12 // type, "_id" and its NUL, an ObjectId
	}
	t.out = appendMapLen(t.out, n)
	t.out = appendStr(t.out, idKey)
	var id any
	if idAt >= 0 {
		start := len(t.out)
		if _, err := t.value(idType, idVal, last, 1); err != nil {
			return nil, nil, err
		}
		if id, err = t.idValue(idType, idVal, start); err != nil {
			return nil, nil, err
		}
		if err := IDStorageError(id); err != nil {
			return nil, nil, err
		}
	} else {
		oid := newID()
		t.out = appendExtHeader(t.out, extObjectID, 12)
		t.out = append(t.out, oid[:]...)
		id = oid
	}
	for p := 4; p < last; {
		typ := t.b[p]
		k, _ := t.cstring(p+1, last) // checked above
		if p == idAt {
			// Written first already.
			p, _ = t.valueEnd(typ, k+1, last)
			continue
		}
		t.out = appendStrBytes(t.out, t.b[p+1:k])
		e, err := t.value(typ, k+1, last, 1)
		if err != nil {
			return nil, nil, err
		}
		p = e
	}
	if idAt >= 0 {
		if err := idTypeError(idType); err != nil {
			return nil, nil, err
		}
	}
	if idErr != nil {
		return nil, nil, idErr
	}
	if t.deep {
		return nil, nil, depthError()
	}
	if size += t.sizeDelta; size > MaxDocumentSize {
		return nil, nil, tooLargeError(size)
	}
	return t.out, id, nil
}

const idKey = "_id"

// idValue returns the _id whose BSON value of type typ is at p and
// whose stored encoding starts at out[start:], in its canonical Go
// type: the usual types read directly, the others decoded back.
func (t *bsonReader) idValue(typ byte, p, start int) (any, error) {
	b := t.b
	switch typ {
	case bsonInt32:
		return int32(binary.LittleEndian.Uint32(b[p:])), nil
	case bsonInt64:
		return int64(binary.LittleEndian.Uint64(b[p:])), nil
	case bsonDouble:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[p:])), nil
	case bsonObjectID:
		return bson.ObjectID(b[p : p+12]), nil
	case bsonString:
		n := int(binary.LittleEndian.Uint32(b[p:]))
		return string(b[p+4 : p+4+n-1]), nil
	}
	v, err := UnmarshalValue(t.out[start:])
	if err != nil {
		return nil, Errorf(CodeInternalError, "reading back the _id just transcoded: %v", err)
	}
	return v, nil
}

// idTypeError is ValidateForStorage's refusal of an _id of BSON type
// typ, or nil.
func idTypeError(typ byte) error {
	switch typ {
	case bsonArray:
		return Errorf(CodeInvalidIDField, "The '_id' value cannot be of type array")
	case bsonRegex:
		return Errorf(CodeInvalidIDField, "The '_id' value cannot be of type regex")
	case bsonUndefined:
		return Errorf(CodeInvalidIDField, "The '_id' value cannot be of type undefined")
	}
	return nil
}

// doc transcodes the document at p whose fields sit at level depth and
// returns its end. end bounds it (its container's final NUL).
func (t *bsonReader) doc(p, end, depth int, array bool) (int, error) {
	if depth > MaxReadDepth {
		return 0, overflow()
	}
	n := int(int32(binary.LittleEndian.Uint32(t.b[p:]))) // valueEnd checked it fits
	dend := p + n
	last := dend - 1
	if t.b[last] != 0 {
		return 0, invalidBSON("document at byte %d does not end with a NUL", p)
	}
	count := 0
	for q := p + 4; q < last; count++ {
		k, err := t.cstring(q+1, last)
		if err != nil {
			return 0, err
		}
		if q, err = t.valueEnd(t.b[q], k+1, last); err != nil {
			return 0, err
		}
	}
	if count > 0 && depth > MaxWriteDepth {
		t.deep = true
	}
	if array {
		t.out = appendArrayLen(t.out, count)
	} else {
		t.out = appendMapLen(t.out, count)
	}
	i := 0
	for q := p + 4; q < last; i++ {
		typ := t.b[q]
		k, _ := t.cstring(q+1, last)
		if array {
			// The driver ignores array keys; the size counts the
			// canonical ones.
			t.sizeDelta += decimalDigits(i) - (k - q - 1)
		} else {
			t.out = appendStrBytes(t.out, t.b[q+1:k])
		}
		var err error
		if q, err = t.value(typ, k+1, last, depth); err != nil {
			return 0, err
		}
	}
	return dend, nil
}

// value transcodes the value of type typ at p, in a container whose
// fields sit at level depth and whose final NUL is at end, and returns
// where it ends.
func (t *bsonReader) value(typ byte, p, end, depth int) (int, error) {
	e, err := t.valueEnd(typ, p, end)
	if err != nil {
		return 0, err
	}
	b := t.b
	switch typ {
	case bsonDouble:
		t.out = append(t.out, msgpcode.Double)
		t.out = binary.BigEndian.AppendUint64(t.out, binary.LittleEndian.Uint64(b[p:]))
	case bsonInt64:
		t.out = append(t.out, msgpcode.Int64)
		t.out = binary.BigEndian.AppendUint64(t.out, binary.LittleEndian.Uint64(b[p:]))
	case bsonInt32:
		t.out = appendInt(t.out, int64(int32(binary.LittleEndian.Uint32(b[p:]))))
	case bsonString:
		t.out = appendStrBytes(t.out, b[p+4:e-1])
	case bsonBoolean:
		switch b[p] {
		case 0:
			t.out = append(t.out, msgpcode.False)
		case 1:
			t.out = append(t.out, msgpcode.True)
		default:
			return 0, invalidBSON("boolean at byte %d is %d, not 0 or 1", p, b[p])
		}
	case bsonNull:
		t.out = append(t.out, msgpcode.Nil)
	case bsonDocument:
		return t.doc(p, end, depth+1, false)
	case bsonArray:
		return t.doc(p, end, depth+1, true)
	case bsonDateTime:
		t.out = appendExtHeader(t.out, extDateTime, 8)
		t.out = binary.BigEndian.AppendUint64(t.out, binary.LittleEndian.Uint64(b[p:]))
	case bsonObjectID:
		t.out = appendExtHeader(t.out, extObjectID, 12)
		t.out = append(t.out, b[p:p+12]...)
	case bsonDecimal128:
		t.out = appendExtHeader(t.out, extDecimal128, 16)
		t.out = binary.BigEndian.AppendUint64(t.out, binary.LittleEndian.Uint64(b[p+8:]))
		t.out = binary.BigEndian.AppendUint64(t.out, binary.LittleEndian.Uint64(b[p:]))
	case bsonTimestamp:
		t.out = appendExtHeader(t.out, extTimestamp, 8)
		t.out = binary.BigEndian.AppendUint32(t.out, binary.LittleEndian.Uint32(b[p+4:]))
		t.out = binary.BigEndian.AppendUint32(t.out, binary.LittleEndian.Uint32(b[p:]))
	case bsonBinary:
		n := int(int32(binary.LittleEndian.Uint32(b[p:])))
		sub := b[p+4]
		data := b[p+5 : e]
		if sub == 0x02 && n > 4 {
			// The old binary subtype repeats the length inside.
			if inner := int(int32(binary.LittleEndian.Uint32(data))); inner != n-4 {
				return 0, invalidBSON("old binary at byte %d has inner length %d, want %d", p, inner, n-4)
			}
			data = data[4:]
		} else if sub == 0x02 {
			// The driver reads a short one as data, which the size
			// then counts with a length in front.
			t.sizeDelta += 4
		}
		t.out = appendExtHeader(t.out, extBinary, 1+len(data))
		t.out = append(t.out, sub)
		t.out = append(t.out, data...)
	case bsonUndefined:
		t.out = appendExtHeader(t.out, extUndefined, 0)
	case bsonMinKey:
		t.out = appendExtHeader(t.out, extMinKey, 0)
	case bsonMaxKey:
		t.out = appendExtHeader(t.out, extMaxKey, 0)
	case bsonRegex:
		pe, _ := t.cstring(p, end)
		oe, _ := t.cstring(pe+1, end)
		pat, opts := b[p:pe], b[pe+1:oe]
		var hdr [binary.MaxVarintLen64]byte
		h := binary.PutUvarint(hdr[:], uint64(len(pat)))
		t.out = appendExtHeader(t.out, extRegex, h+len(pat)+len(opts))
		t.out = append(t.out, hdr[:h]...)
		t.out = append(t.out, pat...)
		t.out = append(t.out, opts...)
	case bsonDBPointer:
		ns, se, _ := t.bstring(p, end)
		t.out = appendExtHeader(t.out, extDBPointer, 12+len(ns))
		t.out = append(t.out, b[se:se+12]...)
		t.out = append(t.out, ns...)
	case bsonJavaScript, bsonSymbol:
		id := extJavaScript
		if typ == bsonSymbol {
			id = extSymbol
		}
		s := b[p+4 : e-1]
		t.out = appendExtHeader(t.out, id, len(s))
		t.out = append(t.out, s...)
	case bsonCodeScope:
		return e, t.codeWithScope(p, e, depth)
	}
	return e, nil
}

// codeWithScope transcodes the code-with-scope value in b[p:e], held
// by a field at level depth. Its scope is opaque to the storage rules
// (no depth or _id check), as in ValidateForStorage.
func (t *bsonReader) codeWithScope(p, e, depth int) error {
	code, se, err := t.bstring(p+4, e)
	if err != nil {
		return err
	}
	if e-se < 5 {
		return invalidBSON("code with scope at byte %d has no scope", p)
	}
	if n := int(int32(binary.LittleEndian.Uint32(t.b[se:]))); n != e-se {
		return invalidBSON("code with scope at byte %d: scope of %d bytes, %d left", p, n, e-se)
	}
	sub := bsonReader{b: t.b}
	if _, err := sub.doc(se, e, depth+1, false); err != nil {
		return err
	}
	t.sizeDelta += sub.sizeDelta
	var hdr [binary.MaxVarintLen64]byte
	h := binary.PutUvarint(hdr[:], uint64(len(code)))
	t.out = appendExtHeader(t.out, extCodeWithScope, h+len(code)+len(sub.out))
	t.out = append(t.out, hdr[:h]...)
	t.out = append(t.out, code...)
	t.out = append(t.out, sub.out...)
	return nil
}

// The msgpack forms Marshal's encoder (vmihailenco/msgpack) writes:
// the shortest header for each length, the shortest integer form.

func appendMapLen(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, msgpcode.FixedMapLow|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, msgpcode.Map16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, msgpcode.Map32), uint32(n))
}

func appendArrayLen(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, msgpcode.FixedArrayLow|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, msgpcode.Array16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, msgpcode.Array32), uint32(n))
}

func appendStrLen(b []byte, n int) []byte {
	switch {
	case n < 32:
		return append(b, msgpcode.FixedStrLow|byte(n))
	case n < 256:
		return append(b, msgpcode.Str8, byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, msgpcode.Str16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, msgpcode.Str32), uint32(n))
}

func appendStr(b []byte, s string) []byte { return append(appendStrLen(b, len(s)), s...) }

func appendStrBytes(b, s []byte) []byte { return append(appendStrLen(b, len(s)), s...) }

func appendExtHeader(b []byte, id int8, n int) []byte {
	switch n {
	case 1:
		b = append(b, msgpcode.FixExt1)
	case 2:
		b = append(b, msgpcode.FixExt2)
	case 4:
		b = append(b, msgpcode.FixExt4)
	case 8:
		b = append(b, msgpcode.FixExt8)
	case 16:
		b = append(b, msgpcode.FixExt16)
	default:
		switch {
		case n <= math.MaxUint8:
			b = append(b, msgpcode.Ext8, byte(n))
		case n <= math.MaxUint16:
			b = binary.BigEndian.AppendUint16(append(b, msgpcode.Ext16), uint16(n))
		default:
			b = binary.BigEndian.AppendUint32(append(b, msgpcode.Ext32), uint32(n))
		}
	}
	return append(b, byte(id))
}

// appendInt writes n as the encoder's EncodeInt does.
func appendInt(b []byte, n int64) []byte {
	if n >= 0 {
		switch {
		case n <= math.MaxInt8:
			return append(b, byte(n))
		case n <= math.MaxUint8:
			return append(b, msgpcode.Uint8, byte(n))
		case n <= math.MaxUint16:
			return binary.BigEndian.AppendUint16(append(b, msgpcode.Uint16), uint16(n))
		case n <= math.MaxUint32:
			return binary.BigEndian.AppendUint32(append(b, msgpcode.Uint32), uint32(n))
		}
		return binary.BigEndian.AppendUint64(append(b, msgpcode.Uint64), uint64(n))
	}
	switch {
	case n >= int64(int8(msgpcode.NegFixedNumLow)):
		return append(b, byte(n))
	case n >= math.MinInt8:
		return append(b, msgpcode.Int8, byte(n))
	case n >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(b, msgpcode.Int16), uint16(n))
	case n >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(b, msgpcode.Int32), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, msgpcode.Int64), uint64(n))
}
