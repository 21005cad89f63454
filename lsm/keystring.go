package lsm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Keystring format (the package documentation explains the choices).
//
// A value encodes as one class byte followed by a body. Class bytes follow
// MongoDB's canonical type order, so keys of different type classes sort by
// class and a range scan of one class never reads another. Every encoding
// is prefix-free (no encoding is a proper prefix of another), which is what
// makes concatenated fields and byte-inverted descending fields sort
// correctly.
//
//	class     body
//	MinKey    -
//	Undefined -
//	Null      -
//	Number    8-byte order-preserving float64 D = the value rounded toward
//	          -Inf to a double (NaN: all zero bytes, below -Inf), then one
//	          byte: numExact, or numAbove/numBelow followed by the exact
//	          distance from D as a decimal (see appendDecimalMagnitude).
//	String    bytes with 0x00 escaped as 0x00 0xff, ended by 0x00 0x01
//	Object    per element: class byte, escaped field name, body; then 0x00
//	Array     per element: class byte, body; then 0x00
//	BinData   4-byte big-endian length, subtype, data
//	ObjectID  12 bytes
//	Bool      0x00 or 0x01
//	Date      int64 milliseconds with the sign bit flipped, big-endian
//	Timestamp T then I, big-endian
//	Regex     escaped pattern, escaped options
//	DBPointer 4-byte big-endian length of the namespace, namespace, 12 bytes
//	Code      escaped code
//	CodeWS    escaped code, scope as an Object body
//	MaxKey    -
const (
	classEnd        byte = 0x00 // end of an Object or Array body
	classMinKey     byte = 0x0a
	classUndefined  byte = 0x10
	classNull       byte = 0x15
	classNumber     byte = 0x1a
	classString     byte = 0x1f
	classObject     byte = 0x24
	classArray      byte = 0x29
	classBinary     byte = 0x2e
	classObjectID   byte = 0x33
	classBool       byte = 0x38
	classDate       byte = 0x3d
	classTimestamp  byte = 0x3f
	classRegex      byte = 0x42
	classDBPointer  byte = 0x47
	classCode       byte = 0x4c
	classCodeWScope byte = 0x51
	classMaxKey     byte = 0xf0
	// classInvalid marks a value of a type the keystring cannot encode
	// (see AppendKey). It sorts after MaxKey and never decodes.
	classInvalid byte = 0xfe
)

// Suffix bytes of a number's body.
const (
	numBelow byte = 0x01 // value < D; only for values below -MaxFloat64
	numExact byte = 0x02 // value == D
	numAbove byte = 0x03 // value > D
)

// maxKeyDepth bounds the nesting of documents and arrays the keystring
// encodes or decodes; deeper values are invalid (BSON allows 100 levels).
const maxKeyDepth = 200

// ErrBadKeystring is returned (wrapped) by DecodeKey for bytes that are
// not a keystring produced by AppendKey.
var ErrBadKeystring = errors.New("lsm: malformed keystring")

// ErrUnsupportedKeyValue is returned (wrapped) by CheckKeyValue and
// AppendKeyChecked for a value with no keystring encoding: a Go type that is
// not a BSON value, or nesting deeper than 200 levels.
var ErrUnsupportedKeyValue = errors.New("lsm: value cannot be encoded in an index key")

// AppendKey appends the keystring of v to dst and returns the extended
// slice. For any two supported values a and b,
// bytes.Compare(AppendKey(nil, a, false), AppendKey(nil, b, false)) has the
// sign of doc.Compare(a, b); numbers of every width that are equal in value
// (int32(1), int64(1), 1.0, decimal 1.0) encode identically, and encodings
// are prefix-free. descending inverts every byte of v's encoding, reversing
// its order. A value of an unsupported type (see CheckKeyValue) encodes as
// a class that sorts after MaxKey and that DecodeKey rejects; callers that
// take user values should call CheckKeyValue or AppendKeyChecked first.
func AppendKey(dst []byte, v any, descending bool) []byte {
	start := len(dst)
	dst = appendValue(dst, v, 0)
	if descending {
		invert(dst[start:])
	}
	return dst
}

// AppendKeyChecked is AppendKey that returns ErrUnsupportedKeyValue
// (wrapped, naming the type) instead of encoding an unsupported value. On
// error dst is returned unchanged.
func AppendKeyChecked(dst []byte, v any, descending bool) ([]byte, error) {
	if err := CheckKeyValue(v); err != nil {
		return dst, err
	}
	return AppendKey(dst, v, descending), nil
}

// CheckKeyValue reports whether v, and everything nested in it, has a
// keystring encoding.
func CheckKeyValue(v any) error {
	return checkValue(v, 0)
}

func checkValue(v any, depth int) error {
	if depth > maxKeyDepth {
		return fmt.Errorf("%w: nesting deeper than %d", ErrUnsupportedKeyValue, maxKeyDepth)
	}
	switch x := v.(type) {
	case bson.D:
		for _, e := range x {
			if err := checkValue(e.Value, depth+1); err != nil {
				return err
			}
		}
	case bson.M:
		for _, e := range x {
			if err := checkValue(e, depth+1); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, e := range x {
			if err := checkValue(e, depth+1); err != nil {
				return err
			}
		}
	case bson.A:
		for _, e := range x {
			if err := checkValue(e, depth+1); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := checkValue(e, depth+1); err != nil {
				return err
			}
		}
	case bson.CodeWithScope:
		return checkValue(scopeDoc(x.Scope), depth+1)
	default:
		if classOf(v) == classInvalid {
			return fmt.Errorf("%w: Go type %T", ErrUnsupportedKeyValue, v)
		}
	}
	return nil
}

func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

// classOf returns the class byte of v, classInvalid if v is unsupported.
func classOf(v any) byte {
	switch x := v.(type) {
	case bson.MinKey:
		return classMinKey
	case bson.MaxKey:
		return classMaxKey
	case bson.Undefined:
		return classUndefined
	case nil, bson.Null:
		return classNull
	case float64, float32, int, int8, int16, int32, int64, uint8, uint16, uint32, uint, uint64, bson.Decimal128:
		return classNumber
	case string, bson.Symbol:
		return classString
	case bson.D, bson.M, map[string]any:
		return classObject
	case bson.A, []any:
		return classArray
	case bson.Binary, []byte:
		return classBinary
	case bson.ObjectID:
		return classObjectID
	case bool:
		return classBool
	case bson.DateTime, time.Time:
		return classDate
	case bson.Timestamp:
		return classTimestamp
	case bson.Regex:
		return classRegex
	case bson.DBPointer:
		return classDBPointer
	case bson.JavaScript:
		return classCode
	case bson.CodeWithScope:
		return classCodeWScope
	default:
		_ = x
		return classInvalid
	}
}

// appendValue appends class byte and body of v.
func appendValue(dst []byte, v any, depth int) []byte {
	c := classOf(v)
	if depth > maxKeyDepth {
		c = classInvalid
	}
	dst = append(dst, c)
	return appendBody(dst, c, v, depth)
}

func appendBody(dst []byte, c byte, v any, depth int) []byte {
	switch x := v.(type) {
	case float64:
		return appendFloat(dst, x)
	case float32:
		return appendFloat(dst, float64(x))
	case int:
		return appendInt(dst, int64(x))
	case int8:
		return appendInt(dst, int64(x))
	case int16:
		return appendInt(dst, int64(x))
	case int32:
		return appendInt(dst, int64(x))
	case int64:
		return appendInt(dst, x)
	case uint8:
		return appendInt(dst, int64(x))
	case uint16:
		return appendInt(dst, int64(x))
	case uint32:
		return appendInt(dst, int64(x))
	case uint:
		return appendUint(dst, uint64(x))
	case uint64:
		return appendUint(dst, x)
	case bson.Decimal128:
		return appendDecimal(dst, x)
	case string:
		return appendString(dst, x)
	case bson.Symbol:
		return appendString(dst, string(x))
	case bson.D:
		if c == classInvalid {
			return dst
		}
		for _, e := range x {
			dst = appendElem(dst, e.Key, e.Value, depth)
		}
		return append(dst, classEnd)
	case bson.M:
		return appendMap(dst, x, c, depth)
	case map[string]any:
		return appendMap(dst, x, c, depth)
	case bson.A:
		return appendArray(dst, x, c, depth)
	case []any:
		return appendArray(dst, x, c, depth)
	case bson.Binary:
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(x.Data)))
		dst = append(dst, x.Subtype)
		return append(dst, x.Data...)
	case []byte:
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(x)))
		dst = append(dst, 0)
		return append(dst, x...)
	case bson.ObjectID:
		return append(dst, x[:]...)
	case bool:
		if x {
			return append(dst, 1)
		}
		return append(dst, 0)
	case bson.DateTime:
		return binary.BigEndian.AppendUint64(dst, uint64(x)^(1<<63))
	case time.Time:
		return binary.BigEndian.AppendUint64(dst, uint64(x.UnixMilli())^(1<<63))
	case bson.Timestamp:
		dst = binary.BigEndian.AppendUint32(dst, x.T)
		return binary.BigEndian.AppendUint32(dst, x.I)
	case bson.Regex:
		dst = appendString(dst, x.Pattern)
		return appendString(dst, x.Options)
	case bson.DBPointer:
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(x.DB)))
		dst = append(dst, x.DB...)
		return append(dst, x.Pointer[:]...)
	case bson.JavaScript:
		return appendString(dst, string(x))
	case bson.CodeWithScope:
		dst = appendString(dst, string(x.Code))
		if c == classInvalid {
			return dst
		}
		return appendBody(dst, classObject, scopeDoc(x.Scope), depth+1)
	}
	return dst // MinKey, MaxKey, Undefined, Null, invalid: class byte only
}

func appendElem(dst []byte, name string, v any, depth int) []byte {
	c := classOf(v)
	if depth+1 > maxKeyDepth {
		c = classInvalid
	}
	dst = append(dst, c)
	dst = appendString(dst, name)
	return appendBody(dst, c, v, depth+1)
}

func appendArray(dst []byte, a []any, c byte, depth int) []byte {
	if c == classInvalid {
		return dst
	}
	for _, e := range a {
		dst = appendValue(dst, e, depth+1)
	}
	return append(dst, classEnd)
}

// appendMap encodes an unordered map as the document of its entries in
// key order, the only deterministic choice.
func appendMap(dst []byte, m map[string]any, c byte, depth int) []byte {
	if c == classInvalid {
		return dst
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		dst = appendElem(dst, k, m[k], depth)
	}
	return append(dst, classEnd)
}

// scopeDoc returns the scope of a CodeWithScope as a value appendBody
// encodes as an Object body: nil becomes the empty document.
func scopeDoc(s any) any {
	switch s.(type) {
	case bson.D, bson.M, map[string]any:
		return s
	case nil:
		return bson.D{}
	}
	return s // unsupported; checkValue reports it, appendBody encodes nothing
}

// appendString appends s with 0x00 escaped as 0x00 0xff and the terminator
// 0x00 0x01, so that byte order is Go string order and no encoding is a
// prefix of another.
func appendString(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, 0, 0xff)
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, 0, 1)
}

// appendDouble appends the 8-byte order-preserving encoding of f. NaN
// encodes as eight zero bytes, below every other double; -0 as +0.
func appendDouble(dst []byte, f float64) []byte {
	if f != f {
		return binary.BigEndian.AppendUint64(dst, 0)
	}
	if f == 0 {
		f = 0
	}
	b := math.Float64bits(f)
	if b&(1<<63) != 0 {
		b = ^b
	} else {
		b |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(dst, b)
}

func appendFloat(dst []byte, f float64) []byte {
	dst = appendDouble(dst, f)
	return append(dst, numExact)
}

const twoTo53 = 1 << 53

func appendInt(dst []byte, v int64) []byte {
	if v >= -twoTo53 && v <= twoTo53 {
		return appendFloat(dst, float64(v))
	}
	f := float64(v) // nearest; may be above v
	if f >= 0x1p63 || int64(f) > v {
		f = math.Nextafter(f, math.Inf(-1))
	}
	rem := uint64(v - int64(f))
	dst = appendDouble(dst, f)
	if rem == 0 {
		return append(dst, numExact)
	}
	dst = append(dst, numAbove)
	return appendDecimalMagnitude(dst, new(big.Int).SetUint64(rem), 0)
}

func appendUint(dst []byte, v uint64) []byte {
	if v <= math.MaxInt64 {
		return appendInt(dst, int64(v))
	}
	f := float64(v)
	if f >= 0x1p64 || uint64(f) > v {
		f = math.Nextafter(f, math.Inf(-1))
	}
	rem := v - uint64(f)
	dst = appendDouble(dst, f)
	if rem == 0 {
		return append(dst, numExact)
	}
	dst = append(dst, numAbove)
	return appendDecimalMagnitude(dst, new(big.Int).SetUint64(rem), 0)
}

var bigTen = big.NewInt(10)

func pow10(n int) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// floatParts returns m, e with f == m * 2^e exactly (f finite).
func floatParts(f float64) (*big.Int, int) {
	if f == 0 {
		return new(big.Int), 0
	}
	frac, exp := math.Frexp(f)
	m := int64(frac * (1 << 53))
	return big.NewInt(m), exp - 53
}

// scaledDiff returns R and k with (c*10^x - f) * 10^k == R, R an integer;
// f is finite.
func scaledDiff(c *big.Int, x int, f float64) (*big.Int, int) {
	m, e := floatParts(f)
	k := max(-x, -e, 0)
	r := new(big.Int).Mul(c, pow10(x+k))
	d := new(big.Int).Mul(m, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(k)), nil))
	d.Lsh(d, uint(k+e))
	return r.Sub(r, d), k
}

func appendDecimal(dst []byte, d bson.Decimal128) []byte {
	if d.IsNaN() {
		return appendFloat(dst, math.NaN())
	}
	if s := d.IsInf(); s != 0 {
		return appendFloat(dst, math.Inf(s))
	}
	c, x, err := d.BigInt()
	if err != nil || c.Sign() == 0 {
		return appendFloat(dst, 0)
	}
	if x >= 0 && x <= 18 {
		v := new(big.Int).Mul(c, pow10(x))
		if v.IsInt64() {
			return appendInt(dst, v.Int64())
		}
	}
	if x < -7000 || x > 7000 { // outside Decimal128's range; unreachable
		return appendFloat(dst, 0)
	}
	r := new(big.Rat).SetFrac(c, big.NewInt(1))
	if x >= 0 {
		r.Mul(r, new(big.Rat).SetInt(pow10(x)))
	} else {
		r.Quo(r, new(big.Rat).SetInt(pow10(-x)))
	}
	f, _ := r.Float64()
	if math.IsInf(f, 1) {
		f = math.MaxFloat64
	}
	// f is now the double nearest r; step down to the floor. Values below
	// -MaxFloat64 keep D = -MaxFloat64 and encode their distance below it.
	if math.IsInf(f, -1) {
		f = -math.MaxFloat64
	} else if new(big.Rat).SetFloat64(f).Cmp(r) > 0 {
		if g := math.Nextafter(f, math.Inf(-1)); !math.IsInf(g, -1) {
			f = g
		}
	}
	if f == 0 {
		f = 0
	}
	R, k := scaledDiff(c, x, f)
	dst = appendDouble(dst, f)
	switch R.Sign() {
	case 0:
		return append(dst, numExact)
	case 1:
		dst = append(dst, numAbove)
		return appendDecimalMagnitude(dst, R, k)
	}
	dst = append(dst, numBelow)
	start := len(dst)
	dst = appendDecimalMagnitude(dst, R.Neg(R), k)
	invert(dst[start:])
	return dst
}

// appendDecimalMagnitude appends the positive value R * 10^-k as
// 0.d1d2...dn * 10^E with d1 != 0 and dn != 0: E as a big-endian uint16
// biased by 0x8000, then digits in pairs, each pair a byte 1+10*a+b (a lone
// last digit is paired with 0), then 0x00. Byte order is value order and
// the encoding is prefix-free.
func appendDecimalMagnitude(dst []byte, R *big.Int, k int) []byte {
	s := strings.TrimRight(R.String(), "0")
	zeros := len(R.String()) - len(s)
	E := len(s) + zeros - k
	dst = binary.BigEndian.AppendUint16(dst, uint16(E+0x8000))
	for i := 0; i < len(s); i += 2 {
		a := s[i] - '0'
		var b byte
		if i+1 < len(s) {
			b = s[i+1] - '0'
		}
		dst = append(dst, 1+10*a+b)
	}
	return append(dst, 0)
}

// AppendTypeBound appends a bound for the keys of like's type class: with
// upper false, a key less than or equal to every key of the class; with
// upper true, a key greater than every key of the class and less than or
// equal to every key of the following classes. descending must match the
// index field's direction: then the class's keys are inverted and the
// bounds are the inverted range's ends. [lower, upper) brackets exactly
// the class, e.g. every date in an index on a date field.
func AppendTypeBound(dst []byte, like any, upper bool, descending bool) []byte {
	c := classOf(like)
	if descending {
		c = ^c
	}
	if upper {
		c++
	}
	return append(dst, c)
}

// AppendMinKey appends a key that sorts before the keystring of every
// value in ascending order (MinKey's own keystring).
func AppendMinKey(dst []byte) []byte { return append(dst, classMinKey) }

// AppendMaxKey appends a key that sorts after the keystring of every
// supported value in ascending order (MaxKey's keystring followed by 0xff,
// so it is also above MaxKey itself).
func AppendMaxKey(dst []byte) []byte { return append(dst, classMaxKey, 0xff) }

// KeyExact reports whether the keystring of one value at the front of
// k, written with descending, decodes (DecodeKey) to exactly the BSON
// value it was made from: true for MinKey, MaxKey, undefined, binary
// data, ObjectIds, booleans, dates, timestamps, regular expressions,
// DBPointers and code. It is false for the classes whose keys lose
// something of a value or may hold such a value: numbers (their BSON
// type, a double's -0, a decimal's exponent), null (also what a missing
// field keys as), strings (also a Symbol), and documents, arrays and
// code with scope. An empty k is not exact.
func KeyExact(k []byte, descending bool) bool {
	if len(k) == 0 {
		return false
	}
	c := k[0]
	if descending {
		c = ^c
	}
	switch c {
	case classMinKey, classMaxKey, classUndefined, classBinary, classObjectID, classBool,
		classDate, classTimestamp, classRegex, classDBPointer, classCode:
		return true
	}
	return false
}
