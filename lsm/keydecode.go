package lsm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// DecodeKey decodes the keystring at the front of b, written by AppendKey
// with the same descending flag, and returns the value and the bytes after
// it. The value equals the original under doc.Compare but its Go type may
// differ: numbers come back as float64 when the value is a double, as int64
// when it is an integer beyond 2^53, otherwise as bson.Decimal128; Symbol
// comes back as string, []byte as bson.Binary, time.Time as bson.DateTime,
// maps as bson.D, []any as bson.A. Malformed input returns an error
// wrapping ErrBadKeystring; DecodeKey never panics.
func DecodeKey(b []byte, descending bool) (v any, rest []byte, err error) {
	d := keyDecoder{b: b}
	if descending {
		d.inv = 0xff
	}
	v, err = d.value(0)
	if err != nil {
		return nil, b, err
	}
	return v, b[d.pos:], nil
}

type keyDecoder struct {
	b   []byte
	pos int
	inv byte
}

func (d *keyDecoder) errf(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", ErrBadKeystring, d.pos, fmt.Sprintf(format, args...))
}

func (d *keyDecoder) byte1() (byte, error) {
	if d.pos >= len(d.b) {
		return 0, d.errf("truncated")
	}
	c := d.b[d.pos] ^ d.inv
	d.pos++
	return c, nil
}

func (d *keyDecoder) bytesN(n int) ([]byte, error) {
	if n < 0 || len(d.b)-d.pos < n {
		return nil, d.errf("truncated")
	}
	out := make([]byte, n)
	for i := range out {
		out[i] = d.b[d.pos+i] ^ d.inv
	}
	d.pos += n
	return out, nil
}

func (d *keyDecoder) uint64() (uint64, error) {
	p, err := d.bytesN(8)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(p), nil
}

func (d *keyDecoder) uint32() (uint32, error) {
	p, err := d.bytesN(4)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(p), nil
}

func (d *keyDecoder) string() (string, error) {
	var sb strings.Builder
	for {
		c, err := d.byte1()
		if err != nil {
			return "", err
		}
		if c != 0 {
			sb.WriteByte(c)
			continue
		}
		c, err = d.byte1()
		if err != nil {
			return "", err
		}
		switch c {
		case 0xff:
			sb.WriteByte(0)
		case 1:
			return sb.String(), nil
		default:
			return "", d.errf("bad string escape 0x00 0x%02x", c)
		}
	}
}

func (d *keyDecoder) value(depth int) (any, error) {
	c, err := d.byte1()
	if err != nil {
		return nil, err
	}
	return d.body(c, depth)
}

func (d *keyDecoder) body(c byte, depth int) (any, error) {
	if depth > maxKeyDepth {
		return nil, d.errf("nesting deeper than %d", maxKeyDepth)
	}
	switch c {
	case classMinKey:
		return bson.MinKey{}, nil
	case classMaxKey:
		return bson.MaxKey{}, nil
	case classUndefined:
		return bson.Undefined{}, nil
	case classNull:
		return nil, nil
	case classNumber:
		return d.number()
	case classString:
		return d.string()
	case classObject:
		return d.object(depth)
	case classArray:
		a := bson.A{}
		for {
			ec, err := d.byte1()
			if err != nil {
				return nil, err
			}
			if ec == classEnd {
				return a, nil
			}
			v, err := d.body(ec, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
	case classBinary:
		n, err := d.uint32()
		if err != nil {
			return nil, err
		}
		st, err := d.byte1()
		if err != nil {
			return nil, err
		}
		data, err := d.bytesN(int(n))
		if err != nil {
			return nil, err
		}
		return bson.Binary{Subtype: st, Data: data}, nil
	case classObjectID:
		p, err := d.bytesN(12)
		if err != nil {
			return nil, err
		}
		return bson.ObjectID(p), nil
	case classBool:
		b, err := d.byte1()
		if err != nil {
			return nil, err
		}
		if b > 1 {
			return nil, d.errf("bad bool 0x%02x", b)
		}
		return b == 1, nil
	case classDate:
		u, err := d.uint64()
		if err != nil {
			return nil, err
		}
		return bson.DateTime(int64(u ^ 1<<63)), nil
	case classTimestamp:
		t, err := d.uint32()
		if err != nil {
			return nil, err
		}
		i, err := d.uint32()
		if err != nil {
			return nil, err
		}
		return bson.Timestamp{T: t, I: i}, nil
	case classRegex:
		p, err := d.string()
		if err != nil {
			return nil, err
		}
		o, err := d.string()
		if err != nil {
			return nil, err
		}
		return bson.Regex{Pattern: p, Options: o}, nil
	case classDBPointer:
		n, err := d.uint32()
		if err != nil {
			return nil, err
		}
		ns, err := d.bytesN(int(n))
		if err != nil {
			return nil, err
		}
		p, err := d.bytesN(12)
		if err != nil {
			return nil, err
		}
		return bson.DBPointer{DB: string(ns), Pointer: bson.ObjectID(p)}, nil
	case classCode:
		s, err := d.string()
		if err != nil {
			return nil, err
		}
		return bson.JavaScript(s), nil
	case classCodeWScope:
		s, err := d.string()
		if err != nil {
			return nil, err
		}
		scope, err := d.object(depth)
		if err != nil {
			return nil, err
		}
		return bson.CodeWithScope{Code: bson.JavaScript(s), Scope: scope}, nil
	}
	d.pos--
	return nil, d.errf("unknown type class 0x%02x", c)
}

func (d *keyDecoder) object(depth int) (any, error) {
	doc := bson.D{}
	for {
		ec, err := d.byte1()
		if err != nil {
			return nil, err
		}
		if ec == classEnd {
			return doc, nil
		}
		name, err := d.string()
		if err != nil {
			return nil, err
		}
		v, err := d.body(ec, depth+1)
		if err != nil {
			return nil, err
		}
		doc = append(doc, bson.E{Key: name, Value: v})
	}
}

func decodeDouble(u uint64) float64 {
	if u == 0 {
		return math.NaN()
	}
	if u&(1<<63) != 0 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

func (d *keyDecoder) number() (any, error) {
	u, err := d.uint64()
	if err != nil {
		return nil, err
	}
	f := decodeDouble(u)
	s, err := d.byte1()
	if err != nil {
		return nil, err
	}
	if s == numExact {
		return f, nil
	}
	if s != numAbove && s != numBelow {
		return nil, d.errf("bad number suffix 0x%02x", s)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, d.errf("inexact number next to a non-finite double")
	}
	save := d.inv
	if s == numBelow {
		d.inv ^= 0xff
	}
	digits, e, err := d.decimalMagnitude()
	d.inv = save
	if err != nil {
		return nil, err
	}
	// value = f ± digits * 10^(e - n), computed exactly as C*10^-k. Keys
	// from AppendKey have |e| < 7000 and n < 8000 (a decimal's exponent
	// reaches ±6176 and a double's exact expansion has up to 767
	// significant digits); larger ones are rejected before any big
	// arithmetic.
	n := len(digits)
	if e < -7000 || e > 7000 || n > 8000 {
		return nil, d.errf("number magnitude out of range")
	}
	m, fe := floatParts(f)
	k := max(n-e, -fe, 0)
	C := new(big.Int).Mul(m, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(k)), nil))
	C.Lsh(C, uint(k+fe))
	R, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, d.errf("bad number digits")
	}
	R.Mul(R, pow10(e-n+k))
	if s == numAbove {
		C.Add(C, R)
	} else {
		C.Sub(C, R)
	}
	// value = C' * 10^x with C' free of trailing decimal zeros.
	str := C.String()
	trimmed := strings.TrimRight(str, "0")
	x := len(str) - len(trimmed) - k
	if trimmed == "" || trimmed == "-" {
		return 0.0, nil // unreachable: an inexact value is never zero
	}
	C.SetString(trimmed, 10)
	if x >= 0 && x <= 18 {
		if v := new(big.Int).Mul(C, pow10(x)); v.IsInt64() {
			return v.Int64(), nil
		}
	}
	if C.BitLen() > 113 { // more than Decimal128's 34 digits
		return nil, d.errf("number not representable as decimal128")
	}
	dec, ok := bson.ParseDecimal128FromBigInt(C, x)
	if !ok {
		return nil, d.errf("number not representable as decimal128")
	}
	return dec, nil
}

// decimalMagnitude reads what appendDecimalMagnitude wrote: the digit
// string (no leading or trailing zeros) and the exponent E.
func (d *keyDecoder) decimalMagnitude() (string, int, error) {
	p, err := d.bytesN(2)
	if err != nil {
		return "", 0, err
	}
	e := int(binary.BigEndian.Uint16(p)) - 0x8000
	var sb strings.Builder
	for {
		c, err := d.byte1()
		if err != nil {
			return "", 0, err
		}
		if c == 0 {
			break
		}
		if c > 100 {
			return "", 0, d.errf("bad digit pair 0x%02x", c)
		}
		c--
		sb.WriteByte('0' + c/10)
		sb.WriteByte('0' + c%10)
	}
	s := strings.TrimRight(sb.String(), "0")
	if s == "" || s[0] == '0' {
		return "", 0, d.errf("non-canonical decimal digits")
	}
	return s, e, nil
}
