package agg

import (
	"math"
	"strconv"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
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
