package engine

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Type bits: what an index entry's keystring loses of the values it was
// made from, carried in the entry's value so that a covered query
// rebuilds them exactly from the entry alone (docs/storage-keys.md,
// "Type bits"). Only indexes marked catalog.Index.TypeBits carry them.
//
// An entry value of such an index is
//
//   - empty, or a TTL entry's carried value (ttlEntryV1): the key loses
//     nothing. It holds no number, and each null in it is a null the
//     document holds (not a missing field).
//   - typeBitsV1 then one code a slot, in key order: each field's value
//     that keys as null (tbNull or tbMissing) and each number within
//     the fields' values, depth first (tbInt32, tbInt64, tbDouble,
//     tbDoubleBits and its 8 bytes, tbDecimal and its 16).
//   - typeBitsNone: the key's values cannot be rebuilt (a Symbol, which
//     keys as a string); a covered scan fetches the document.
const (
	typeBitsV1   byte = 2
	typeBitsNone byte = 3
)

// Type bit codes.
const (
	tbInt32      byte = 1 // an int32 of the key's value
	tbInt64      byte = 2 // an int64 of the key's value
	tbDouble     byte = 3 // a double of the key's value
	tbDoubleBits byte = 4 // a double, its 8 bytes (big-endian) following: -0.0, a NaN
	tbDecimal    byte = 5 // a decimal128, its high then low 8 bytes (big-endian) following
	tbNull       byte = 6 // a field that holds null
	tbMissing    byte = 7 // a field that is missing (keyed as null)
)

// typedIndex reports whether the entries of index ix, about to be made
// on collection m, are to carry type bits: an ordinary collection's
// (not clustered, not time-series buckets), and an index of ascending
// and descending fields (not hashed, text, geo or wildcard) without a
// collation, whose string keys are the strings.
func typedIndex(m *catalog.Coll, ix *catalog.Index) bool {
	if m.Kind != catalog.KindNormal || m.Clustered || isBucketsColl(m) || ix.Collator() != nil || indexkey.IsWildcard(ix.Key) {
		return false
	}
	for _, e := range ix.Key {
		switch e.Value.(type) {
		case int32, int64, float64, bson.Decimal128:
		default:
			return false
		}
	}
	return len(ix.Key) > 0
}

// keepsTypeBits reports whether the entries of ix in m carry type bits.
func keepsTypeBits(m *catalog.Coll, ix *catalog.Index) bool {
	return ix.TypeBits && !m.Clustered && !isBucketsColl(m)
}

// mayNeedTypeBits reports whether an entry of ix with keystring k may
// need type bits: false for a one-field key whose class decodes
// exactly (a TTL index's date), at the cost of a byte compare.
func mayNeedTypeBits(ix *catalog.Index, k []byte) bool {
	if len(ix.Key) != 1 {
		return true
	}
	f, _ := asFloat(ix.Key[0].Value)
	return !lsm.KeyExact(k, f < 0)
}

// typeBitsOf returns the value carrying the type bits of document d's
// key in ix (typeBitsV1 ...), nil when the key loses nothing (the
// entry's value is then what it would be without type bits). A
// document that meets an array on a field's path has none: its keys
// make the index multikey, which is never covered.
func typeBitsOf(ix *catalog.Index, d bson.D) []byte {
	out, lossy := appendTypeBits(nil, ix, d)
	if !lossy {
		return nil
	}
	return out
}

// appendTypeBits appends to dst the value typeBitsOf returns, and
// reports whether there is one (lossy); when not, what it appended is
// to be dropped.
func appendTypeBits(dst []byte, ix *catalog.Index, d bson.D) (out []byte, lossy bool) {
	start := len(dst)
	out = append(dst, typeBitsV1)
	for _, e := range ix.Key {
		v, found, arr := indexkey.ScalarAt(d, e.Key)
		switch {
		case arr:
			return out, false
		case !found:
			out = append(out, tbMissing)
			lossy = true
			continue
		case v == nil:
			out = append(out, tbNull)
			continue
		}
		if _, null := v.(bson.Null); null {
			out = append(out, tbNull)
			continue
		}
		var ok bool
		if out, ok = appendValueBits(out, v, &lossy); !ok {
			return append(out[:start], typeBitsNone), true
		}
	}
	return out, lossy
}

// appendValueBits appends the codes of the numbers within v, depth
// first, setting *lossy when there is one; ok is false for a value the
// key cannot give back (a Symbol).
func appendValueBits(out []byte, v any, lossy *bool) ([]byte, bool) {
	ok := true
	switch x := v.(type) {
	case int32:
		*lossy = true
		return append(out, tbInt32), true
	case int64:
		*lossy = true
		return append(out, tbInt64), true
	case float64:
		*lossy = true
		if x == 0 && math.Signbit(x) || x != x && math.Float64bits(x) != keyNaNBits {
			out = append(out, tbDoubleBits)
			return binary.BigEndian.AppendUint64(out, math.Float64bits(x)), true
		}
		return append(out, tbDouble), true
	case bson.Decimal128:
		*lossy = true
		h, l := x.GetBytes()
		out = append(out, tbDecimal)
		out = binary.BigEndian.AppendUint64(out, h)
		return binary.BigEndian.AppendUint64(out, l), true
	case bson.Symbol:
		return out, false
	case bson.D:
		for _, e := range x {
			if out, ok = appendValueBits(out, e.Value, lossy); !ok {
				return out, false
			}
		}
	case bson.A:
		for _, e := range x {
			if out, ok = appendValueBits(out, e, lossy); !ok {
				return out, false
			}
		}
	case bson.CodeWithScope:
		return appendValueBits(out, x.Scope, lossy)
	case nil, bson.Null:
		// A null inside a document or array is kept as null.
	}
	return out, true
}

// keyNaNBits are the bits of the NaN every NaN's keystring decodes to
// (lsm.DecodeKey gives math.NaN()).
var keyNaNBits = math.Float64bits(math.NaN())

// typeBitsReader hands out a value's codes in order.
type typeBitsReader struct {
	b   []byte
	bad bool
}

func (r *typeBitsReader) code() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *typeBitsReader) u64() uint64 {
	if len(r.b) < 8 {
		r.bad = true
		return 0
	}
	u := binary.BigEndian.Uint64(r.b)
	r.b = r.b[8:]
	return u
}

// coveredDoc rebuilds, from an index entry's keystring ks and value
// val, the values the document holds at the index's fields: a document
// with each field that is not missing at its path, in key pattern
// order. ok is false when the entry cannot give them (an index written
// without type bits, a Symbol, a malformed entry): the document must be
// read.
func coveredDoc(fields []indexkey.Field, ks, val []byte) (d bson.D, ok bool) {
	var r *typeBitsReader
	if len(val) > 0 {
		switch val[0] {
		case ttlEntryV1:
		case typeBitsV1:
			r = &typeBitsReader{b: val[1:]}
		default:
			return nil, false
		}
	}
	rest := ks
	d = make(bson.D, 0, len(fields))
	for _, f := range fields {
		v, after, err := lsm.DecodeKey(rest, f.Desc)
		if err != nil {
			return nil, false
		}
		rest = after
		if v == nil {
			if r != nil {
				switch r.code() {
				case tbMissing:
					continue
				case tbNull:
				default:
					return nil, false
				}
			}
			d = setKeyPath(d, f.Path, nil)
			continue
		}
		if r == nil {
			if hasNumber(v) {
				return nil, false
			}
		} else if v = r.typed(v); r.bad {
			return nil, false
		}
		d = setKeyPath(d, f.Path, v)
	}
	if len(rest) != 0 || r != nil && (r.bad || len(r.b) != 0) {
		return nil, false
	}
	return d, true
}

// typed returns decoded key value v with each number given its type
// from r's codes, depth first.
func (r *typeBitsReader) typed(v any) any {
	switch x := v.(type) {
	case float64, int64, bson.Decimal128:
		switch r.code() {
		case tbInt32:
			n, ok := keyInt(x)
			if !ok || n != int64(int32(n)) {
				r.bad = true
			}
			return int32(n)
		case tbInt64:
			n, ok := keyInt(x)
			if !ok {
				r.bad = true
			}
			return n
		case tbDouble:
			f, ok := x.(float64)
			if !ok {
				r.bad = true
			}
			return f
		case tbDoubleBits:
			return math.Float64frombits(r.u64())
		case tbDecimal:
			h := r.u64()
			return bson.NewDecimal128(h, r.u64())
		}
		r.bad = true
		return v
	case bson.D:
		for i := range x {
			x[i].Value = r.typed(x[i].Value)
		}
	case bson.A:
		for i := range x {
			x[i] = r.typed(x[i])
		}
	case bson.CodeWithScope:
		x.Scope = r.typed(x.Scope)
		return x
	}
	return v
}

// keyInt returns the integer a decoded key number holds.
func keyInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && x >= -0x1p63 && x < 0x1p63 {
			return int64(x), true
		}
	}
	return 0, false
}

// hasNumber reports whether decoded key value v is or holds a number.
func hasNumber(v any) bool {
	switch x := v.(type) {
	case float64, int64, bson.Decimal128:
		return true
	case bson.D:
		for _, e := range x {
			if hasNumber(e.Value) {
				return true
			}
		}
	case bson.A:
		for _, e := range x {
			if hasNumber(e) {
				return true
			}
		}
	case bson.CodeWithScope:
		return hasNumber(x.Scope)
	}
	return false
}

// setKeyPath sets the dotted path in d to v, making the documents on the
// way; a part on the way that is not a document is replaced by one.
func setKeyPath(d bson.D, path string, v any) bson.D {
	head, tail, more := strings.Cut(path, ".")
	for i := range d {
		if d[i].Key == head {
			if !more {
				d[i].Value = v
				return d
			}
			sub, _ := d[i].Value.(bson.D)
			d[i].Value = setKeyPath(sub, tail, v)
			return d
		}
	}
	if !more {
		return append(d, bson.E{Key: head, Value: v})
	}
	return append(d, bson.E{Key: head, Value: setKeyPath(nil, tail, v)})
}
