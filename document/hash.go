package document

import (
	"crypto/md5"
	"encoding/binary"
	"hash"
	"math"
	"math/big"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// HashedKey returns the key a hashed index keeps for value v: MongoDB's
// 64-bit hash of a BSON value with the default seed (0), the number
// convertShardKeyToHashed and $toHashedIndexKey return (docs/commands.md,
// "Hashed indexes"). Numbers of every type are truncated to a 64-bit
// integer before hashing, so 2, 2.0 and 2.7 have the same key; a
// document or an array hashes its fields with their names, in order.
func HashedKey(v any) int64 {
	h := md5.New()
	var seed [4]byte // the seed, 0, as a little-endian int32
	h.Write(seed[:])
	hashValue(h, v, "", false)
	var sum [md5.Size]byte
	return int64(binary.LittleEndian.Uint64(h.Sum(sum[:0])))
}

// hashValue adds one value to h: its class as a little-endian int32,
// then its name with a terminating zero when it is a field of a document
// or an array (named), then its value. It follows MongoDB's
// BSONElementHasher in the order and width of what it adds.
func hashValue(h hash.Hash, v any, name string, named bool) {
	class, known := hashClass(v)
	if !known {
		if c, ok := coerce(v); ok {
			v = c
			class, _ = hashClass(v)
		}
	}
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:4], uint32(int32(class)))
	h.Write(b[:4])
	if named {
		h.Write([]byte(name))
		h.Write([]byte{0})
	}
	switch x := v.(type) {
	case bson.D:
		hashFields(h, x)
		return
	case bson.A:
		for i, e := range x {
			hashValue(h, e, strconv.Itoa(i), true)
		}
		hashEnd(h)
		return
	case bson.CodeWithScope:
		// The code with its terminating zero, then the scope's fields.
		h.Write([]byte(x.Code))
		h.Write([]byte{0})
		scope, _ := x.Scope.(bson.D)
		if raw, ok := x.Scope.(bson.Raw); ok {
			scope, _ = rawToDoc(raw)
		}
		hashFields(h, scope)
		return
	}
	if class == ClassNumber {
		binary.LittleEndian.PutUint64(b[:], uint64(hashInt64(v)))
		h.Write(b[:])
		return
	}
	switch v.(type) {
	case nil, bson.Null, bson.Undefined, bson.MinKey, bson.MaxKey:
		return // no value bytes
	}
	// Any other scalar: its value bytes as BSON stores them.
	if _, data, err := bson.MarshalValue(v); err == nil {
		h.Write(data)
	}
}

// hashFields adds a document's fields and its end to h.
func hashFields(h hash.Hash, d bson.D) {
	for _, e := range d {
		hashValue(h, e.Value, e.Key, true)
	}
	hashEnd(h)
}

// hashEnd adds the end of a document: the class of BSON's end-of-object
// element (0) and nothing else.
func hashEnd(h hash.Hash) {
	var b [4]byte
	h.Write(b[:])
}

// hashClass returns v's class for hashing, MongoDB's canonical type
// (CanonicalType), and whether v is of a type HashedKey knows as is.
func hashClass(v any) (int, bool) {
	switch v.(type) {
	case nil, bson.Null:
		return ClassNull, true
	case bson.Undefined:
		return ClassUndefined, true
	case bson.CodeWithScope:
		return ClassCodeWithScope, true
	case bson.JavaScript:
		return ClassJavaScript, true
	case bson.Symbol:
		return ClassString, true
	}
	c := CanonicalType(v)
	switch v.(type) {
	case float64, int32, int64, bson.Decimal128, string, bson.D, bson.A, bson.Binary,
		bson.ObjectID, bool, bson.DateTime, bson.Timestamp, bson.Regex, bson.DBPointer,
		bson.MinKey, bson.MaxKey:
		return c, true
	}
	return c, false
}

// hashInt64 is the 64-bit integer a number hashes as: a double
// truncated toward zero, a decimal rounded half to even (as MongoDB's
// Decimal128::toLong rounds), NaN as 0, values past int64's range
// clamped to its ends, and the double 2^63 as -2^63 (MongoDB keeps that
// old overflow for hashes).
func hashInt64(v any) int64 {
	switch n := v.(type) {
	case int32:
		return int64(n)
	case int64:
		return n
	case float64:
		switch {
		case math.IsNaN(n):
			return 0
		case n == 1<<63:
			return math.MinInt64
		case n > 1<<63:
			return math.MaxInt64
		case n < -(1 << 63):
			return math.MinInt64
		}
		return int64(n)
	case bson.Decimal128:
		return decimalHashInt64(n)
	}
	return 0
}

// decimalHashInt64 converts d to an int64 rounding half to even, with
// NaN as 0 and values past int64's range clamped.
func decimalHashInt64(d bson.Decimal128) int64 {
	if d.IsNaN() {
		return 0
	}
	if inf := d.IsInf(); inf != 0 {
		if inf > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	coef, exp, err := d.BigInt()
	if err != nil {
		return 0
	}
	neg := coef.Sign() < 0
	q := new(big.Int).Abs(coef)
	switch {
	case exp > 0:
		if exp > 40 && q.Sign() != 0 {
			q.SetUint64(math.MaxUint64) // far past int64's range
		} else {
			q.Mul(q, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp)), nil))
		}
	case exp < 0:
		div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-exp)), nil)
		r := new(big.Int)
		q.QuoRem(q, div, r)
		// Round half to even.
		switch r.Lsh(r, 1).Cmp(div) {
		case 1:
			q.Add(q, big.NewInt(1))
		case 0:
			if q.Bit(0) == 1 {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	if neg {
		q.Neg(q)
	}
	if q.IsInt64() {
		return q.Int64()
	}
	if neg {
		return math.MinInt64
	}
	return math.MaxInt64
}
