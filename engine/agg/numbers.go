package agg

import (
	"math"
	"math/big"
	"strconv"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// How the operators read and print the numbers of their arguments.

// int64Value is v as a whole 64-bit number when it is a number that is
// one, as mongod's integral64Bit reads it (a double or a decimal with
// no fraction counts).
func int64Value(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case bson.Decimal128:
		return decimalInt64(x)
	}
	if !document.IsNumber(v) {
		return 0, false
	}
	f := query.ToFloat(v)
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false // a fraction, NaN, an infinity, or out of range
	}
	return int64(f), true
}

// decimalInt64 is d as an int64 when it is a whole number in range,
// read exactly (through a double, 9223372036854775807 would not be).
func decimalInt64(d bson.Decimal128) (int64, bool) {
	coef, exp, err := d.BigInt()
	if err != nil {
		return 0, false // NaN or an infinity
	}
	if coef.Sign() == 0 {
		return 0, true
	}
	ten := big.NewInt(10)
	for ; exp < 0; exp++ {
		var rem big.Int
		if coef.QuoRem(coef, ten, &rem); rem.Sign() != 0 {
			return 0, false // a fraction
		}
	}
	for ; exp > 0; exp-- {
		if coef.Mul(coef, ten); coef.BitLen() > 64 {
			return 0, false
		}
	}
	if !coef.IsInt64() {
		return 0, false
	}
	return coef.Int64(), true
}

// int32Value is v as a 32-bit integer when it is a number that is one,
// as mongod's integral reads it.
func int32Value(v any) (int32, bool) {
	n, ok := int64Value(v)
	if !ok || n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}

// wholeInt is v as an int64 when its type is int or long.
func wholeInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

func fmtDouble(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// fmtNumber prints a number as mongod's messages do (0.5, 3, 1e+20).
func fmtNumber(v any) string {
	if f, ok := v.(float64); ok {
		return fmtDouble(f)
	}
	return document.Format(v)
}
