package engine

import (
	"math"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// asInt64 returns v as an int64 if it is an integer type, or a double
// or decimal holding a whole number in range.
func asInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		if n != math.Trunc(n) || math.IsInf(n, 0) || math.IsNaN(n) || n < math.MinInt64 || n >= math.MaxInt64 {
			return 0, false
		}
		return int64(n), true
	case bson.Decimal128:
		f, ok := decimalToFloat(n)
		if !ok {
			return 0, false
		}
		return asInt64(f)
	}
	return 0, false
}

// asFloat returns a numeric value as a float64.
func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	case bson.Decimal128:
		return decimalToFloat(n)
	}
	return 0, false
}

func decimalToFloat(d bson.Decimal128) (float64, bool) {
	s := d.String()
	switch s {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	bf, _, err := bigFloatParse(s)
	if err != nil {
		return 0, false
	}
	f, _ := bf.Float64()
	return f, true
}

// asBool returns MongoDB's truthiness of an option value.
func asBool(v any) (bool, bool) {
	switch b := v.(type) {
	case bool:
		return b, true
	case int32, int64, float64, bson.Decimal128:
		f, _ := asFloat(b)
		return f != 0, true
	case nil:
		return false, true
	}
	return false, false
}

func typeName(v any) string { return document.TypeName(v) }

// get returns the value of key in d.
func get(d bson.D, key string) (any, bool) {
	for _, e := range d {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

// getDoc returns the sub-document at key, if it is one.
func getDoc(d bson.D, key string) (bson.D, bool) {
	v, ok := get(d, key)
	if !ok {
		return nil, false
	}
	sd, ok := v.(bson.D)
	return sd, ok
}

// set replaces or appends key in d.
func set(d bson.D, key string, v any) bson.D {
	for i := range d {
		if d[i].Key == key {
			d[i].Value = v
			return d
		}
	}
	return append(d, bson.E{Key: key, Value: v})
}

// without returns d minus the named keys (a new slice).
func without(d bson.D, keys ...string) bson.D {
	out := make(bson.D, 0, len(d))
outer:
	for _, e := range d {
		for _, k := range keys {
			if e.Key == k {
				continue outer
			}
		}
		out = append(out, e)
	}
	return out
}

// toDoc converts a command argument to a document, or returns a
// TypeMismatch error naming the field.
func toDoc(field string, v any) (bson.D, error) {
	switch d := v.(type) {
	case bson.D:
		return d, nil
	case nil:
		return nil, nil
	}
	return nil, document.Errorf(document.CodeTypeMismatch, "BSON field '%s' is the wrong type '%s', expected type 'object'", field, typeName(v))
}

// int32OrLong returns n typed as MongoDB's BSONObjBuilder::appendNumber
// (long long) stores it in a reply: an int32 when n fits in 32 bits, an
// int64 otherwise (src/mongo/bson/bsonobjbuilder.h; releases before the
// CRTP builder used int32 only below 2^30 and a double up to 2^40). The
// server builds most counts and sizes of its replies this way (explain
// stage stats, collStats, dbStats, count, validate), so mongosh prints
// them as plain numbers; fields the server appends as long long
// (cursor ids, serverStatus counters) stay int64 and print as Long.
func int32OrLong(n int64) any {
	if n <= math.MaxInt32 && n >= math.MinInt32 {
		return int32(n)
	}
	return n
}

// nonNilDoc returns d, or an empty document for nil.
func nonNilDoc(d bson.D) bson.D {
	if d == nil {
		return bson.D{}
	}
	return d
}
