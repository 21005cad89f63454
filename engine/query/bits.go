package query

import (
	"math"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// bitsExpr parses $bitsAllSet, $bitsAnySet, $bitsAllClear and
// $bitsAnyClear: their operand is a non-negative integer mask, an array
// of bit positions, or BinData (bit i of byte i/8, from the least
// significant); a value matches when it is an integer (a double or
// decimal with no fraction, in 64 bits, negatives in two's complement)
// or BinData whose bits at those positions are as the operator asks.
func bitsExpr(op, path string, parts []string, v any) (expr, error) {
	positions, err := bitPositions(op, v)
	if err != nil {
		return nil, err
	}
	wantSet := op == "$bitsAllSet" || op == "$bitsAnySet"
	all := op == "$bitsAllSet" || op == "$bitsAllClear"
	return &pathExpr{path: path, parts: parts, expand: true, pred: func(it item) bool {
		if !it.present {
			return false
		}
		bit, ok := bitReader(it.v)
		if !ok {
			return false
		}
		for _, p := range positions {
			if bit(p) == wantSet {
				if !all {
					return true
				}
			} else if all {
				return false
			}
		}
		return all
	}}, nil
}

// bitPositions reads a bitwise operator's operand as the bit positions
// it names.
func bitPositions(op string, v any) ([]int, error) {
	switch t := v.(type) {
	case bson.A:
		out := make([]int, 0, len(t))
		for _, e := range t {
			n, ok := wholeInt64(e)
			if !ok {
				return nil, badValue("bit positions must be an integer but got: %s", js(e))
			}
			if n < 0 {
				return nil, badValue("bit positions must be >= 0 but got: %s", js(e))
			}
			if n > math.MaxInt32 {
				return nil, badValue("bit positions cannot be represented as a 32-bit signed integer: %s", js(e))
			}
			out = append(out, int(n))
		}
		return out, nil
	case bson.Binary:
		var out []int
		for i, b := range t.Data {
			for j := 0; j < 8; j++ {
				if b&(1<<j) != 0 {
					out = append(out, i*8+j)
				}
			}
		}
		return out, nil
	case int32, int64, float64, bson.Decimal128:
		n, ok := wholeInt64(v)
		if !ok {
			return nil, badValue("%s cannot represent %s as a 64-bit integer", op, js(v))
		}
		if n < 0 {
			return nil, badValue("%s cannot take a negative number: %d", op, n)
		}
		var out []int
		for i := 0; i < 63; i++ {
			if n&(1<<i) != 0 {
				out = append(out, i)
			}
		}
		return out, nil
	}
	return nil, badValue("%s takes an Array, a number, or a BinData but received: %s", op, js(v))
}

// wholeInt64 returns a number with no fraction as an int64.
func wholeInt64(v any) (int64, bool) {
	switch t := v.(type) {
	case int32:
		return int64(t), true
	case int64:
		return t, true
	case float64:
		if t != math.Trunc(t) || t < -(1<<63) || t >= 1<<63 {
			return 0, false
		}
		return int64(t), true
	case bson.Decimal128:
		f, err := strconv.ParseFloat(t.String(), 64)
		if err != nil || f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
			return 0, false
		}
		if n, err := strconv.ParseInt(t.String(), 10, 64); err == nil {
			return n, true
		}
		return int64(f), true
	}
	return 0, false
}

// bitReader returns the bit at a position of v (an integer number or
// BinData), and whether v has bits.
func bitReader(v any) (func(int) bool, bool) {
	if b, ok := v.(bson.Binary); ok {
		return func(p int) bool {
			i := p / 8
			return i < len(b.Data) && b.Data[i]&(1<<(p%8)) != 0
		}, true
	}
	n, ok := wholeInt64(v)
	if !ok {
		return nil, false
	}
	return func(p int) bool {
		if p >= 64 {
			return n < 0 // sign extension
		}
		return n&(1<<p) != 0
	}, true
}
