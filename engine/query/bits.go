package query

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/document"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// bitsExpr parses $bitsAllSet, $bitsAnySet, $bitsAllClear and
// $bitsAnyClear: their operand is a non-negative integer mask, an array
// of bit positions, or BinData (bit i of byte i/8, from the least
// significant); a value matches when it is an integer (a double or
// decimal with no fraction, in 64 bits, negatives in two's complement)
// or BinData whose bits at those positions are as the operator asks.
func bitsExpr(op, path string, parts []string, v any) (expr, error) {
	positions, err := bitPositions(op, path, v)
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
// it names. A number mask is read as mongod's
// BSONElement::parseIntegerElementToNonNegativeLong reads it (9
// FailedToParse), a list of positions as its parseBitPositionsArray
// does (2 BadValue, "Failed to parse bit position. " and the reason).
func bitPositions(op, path string, v any) ([]int, error) {
	switch t := v.(type) {
	case bson.A:
		out := make([]int, 0, len(t))
		for i, e := range t {
			name := strconv.Itoa(i)
			n, why := parseIntegerElement(name, e)
			if why == "" && (n < math.MinInt32 || n > math.MaxInt32) {
				why = "Cannot represent " + elementString(name, e) + " in an int"
			}
			if why == "" && n < 0 {
				why = "Expected a non-negative number in: " + elementString(name, e)
			}
			if why != "" {
				return nil, badValue("Failed to parse bit position. %s", why)
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
		n, why := parseIntegerElement(op, v)
		if why == "" && n < 0 {
			why = "Expected a non-negative number in: " + elementString(op, v)
		}
		if why != "" {
			return nil, document.Errorf(document.CodeFailedToParse, "%s", why)
		}
		var out []int
		for i := 0; i < 63; i++ {
			if n&(1<<i) != 0 {
				out = append(out, i)
			}
		}
		return out, nil
	}
	return nil, badValue("%s takes an Array, a number, or a BinData but received: %s", path, elementString(op, v))
}

// parseIntegerElement is mongod's BSONElement::parseIntegerElementToLong
// for the element name: v: why is its reason for refusing v ("" when
// n is good).
func parseIntegerElement(name string, v any) (n int64, why string) {
	switch t := v.(type) {
	case int32:
		return int64(t), ""
	case int64:
		return t, ""
	case float64:
		switch {
		case math.IsNaN(t):
			return 0, "Expected an integer, but found NaN in: " + elementString(name, v)
		case t >= 1<<63 || t < -(1<<63):
			return 0, "Cannot represent as a 64-bit integer: " + elementString(name, v)
		case t != math.Trunc(t):
			return 0, "Expected an integer: " + elementString(name, v)
		}
		return int64(t), ""
	case bson.Decimal128:
		if n, ok := wholeInt64(t); ok {
			return n, ""
		}
		return 0, "Cannot represent as a 64-bit integer: " + elementString(name, v)
	}
	return 0, "Expected a number in: " + elementString(name, v)
}

// elementString writes name: v as mongod's BSONElement::toString does
// for the values an operand check reports: numbers (a double always
// with a decimal point or an exponent, as appendDoubleNice writes it),
// strings quoted, anything else as Extended JSON.
func elementString(name string, v any) string {
	var val string
	switch t := v.(type) {
	case int32:
		val = strconv.FormatInt(int64(t), 10)
	case int64:
		val = strconv.FormatInt(t, 10)
	case float64:
		switch {
		case math.IsNaN(t):
			val = "nan.0"
		case math.IsInf(t, 1):
			val = "inf.0"
		case math.IsInf(t, -1):
			val = "-inf.0"
		default:
			val = strconv.FormatFloat(t, 'g', 16, 64)
			if !strings.ContainsAny(val, ".E") {
				val += ".0"
			}
		}
	case bson.Decimal128:
		val = t.String()
	case string:
		val = strconv.Quote(t)
	case bool:
		val = strconv.FormatBool(t)
	case nil, bson.Null:
		val = "null"
	default:
		val = strings.TrimSuffix(strings.TrimPrefix(js(v), `{"v":`), "}")
	}
	return name + ": " + val
}

// wholeInt64 returns a number with no fraction that int64 holds
// exactly as an int64.
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
		if t.IsNaN() || t.IsInf() != 0 {
			return 0, false
		}
		r, ok := new(big.Rat).SetString(t.String())
		if !ok || !r.IsInt() || !r.Num().IsInt64() {
			return 0, false
		}
		return r.Num().Int64(), true
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
