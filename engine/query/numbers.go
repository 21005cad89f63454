package query

import (
	"math"
	"math/big"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// decimalToFloat converts a Decimal128 to the nearest float64.
func decimalToFloat(d bson.Decimal128) (float64, bool) {
	f, err := strconv.ParseFloat(d.String(), 64)
	if err != nil {
		// ParseFloat reports range errors with ±Inf or 0, which is the
		// nearest float64; anything else is unparseable.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// numRank orders the numeric types by width: the result of arithmetic has
// the wider operand's type.
func numRank(v any) int {
	switch v.(type) {
	case int32:
		return 1
	case int64:
		return 2
	case float64:
		return 3
	case bson.Decimal128:
		return 4
	}
	return 0
}

func toInt64(v any) int64 {
	switch t := v.(type) {
	case int32:
		return int64(t)
	case int64:
		return t
	}
	return 0
}

func toFloat(v any) float64 {
	switch t := v.(type) {
	case int32:
		return float64(t)
	case int64:
		return float64(t)
	case float64:
		return t
	case bson.Decimal128:
		f, _ := decimalToFloat(t)
		return f
	}
	return 0
}

// toDecimal converts a number to Decimal128; doubles become 15
// significant digits, trailing zeros kept, as MongoDB converts them.
func toDecimal(v any) bson.Decimal128 {
	var s string
	switch t := v.(type) {
	case bson.Decimal128:
		return t
	case int32:
		s = strconv.FormatInt(int64(t), 10)
	case int64:
		s = strconv.FormatInt(t, 10)
	case float64:
		switch {
		case math.IsNaN(t):
			s = "NaN"
		case math.IsInf(t, 1):
			s = "Infinity"
		case math.IsInf(t, -1):
			s = "-Infinity"
		case t == 0:
			// mongod's zero is exactly zero (+0E+0), not 15 digits of it.
			s = "0"
			if math.Signbit(t) {
				s = "-0"
			}
		default:
			// 15 significant digits, trailing zeros kept: mongod's
			// Decimal128(double, kRoundTo15Digits) makes 2.5 into
			// 2.50000000000000.
			s = strconv.FormatFloat(t, 'e', 14, 64)
		}
	}
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		d, _ = bson.ParseDecimal128("NaN")
	}
	return d
}

// addNumbers adds two numbers with MongoDB's type promotion: int32
// overflow widens to int64, int64 overflow to double; a double makes a
// double, a decimal a decimal.
func addNumbers(a, b any) any {
	switch max(numRank(a), numRank(b)) {
	case 1:
		s := toInt64(a) + toInt64(b)
		if s >= math.MinInt32 && s <= math.MaxInt32 {
			return int32(s)
		}
		return s
	case 2:
		x, y := toInt64(a), toInt64(b)
		s := x + y
		if (s > x) == (y > 0) {
			return s
		}
		return float64(x) + float64(y)
	case 3:
		return toFloat(a) + toFloat(b)
	}
	return decimalOp(toDecimal(a), toDecimal(b), false)
}

// mulNumbers multiplies with the same promotion rules as addNumbers.
func mulNumbers(a, b any) any {
	switch max(numRank(a), numRank(b)) {
	case 1:
		p := toInt64(a) * toInt64(b)
		if p >= math.MinInt32 && p <= math.MaxInt32 {
			return int32(p)
		}
		return p
	case 2:
		x, y := toInt64(a), toInt64(b)
		if x == 0 || y == 0 {
			return int64(0)
		}
		p := x * y
		if p/y == x && !(x == -1 && y == math.MinInt64) && !(y == -1 && x == math.MinInt64) {
			return p
		}
		return float64(x) * float64(y)
	case 3:
		return toFloat(a) * toFloat(b)
	}
	return decimalOp(toDecimal(a), toDecimal(b), true)
}

// decimalOp adds or multiplies two decimals exactly when both are finite
// and the result fits, and through float64 otherwise.
func decimalOp(a, b bson.Decimal128, mul bool) bson.Decimal128 {
	ai, ae, errA := a.BigInt()
	bi, be, errB := b.BigInt()
	if errA == nil && errB == nil {
		var r big.Int
		exp := 0
		if mul {
			r.Mul(ai, bi)
			exp = ae + be
		} else {
			// Align to the smaller exponent.
			exp = min(ae, be)
			x := new(big.Int).Mul(ai, pow10(ae-exp))
			y := new(big.Int).Mul(bi, pow10(be-exp))
			r.Add(x, y)
		}
		if d, ok := bson.ParseDecimal128FromBigInt(&r, exp); ok {
			return d
		}
	}
	fa, fb := toFloat(a), toFloat(b)
	if mul {
		return toDecimal(fa * fb)
	}
	return toDecimal(fa + fb)
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// isMultipleOf reports whether number v is a whole multiple of the
// positive finite number m as $jsonSchema's multipleOf judges it: both
// as decimals (a double keeps 15 significant digits, as MongoDB converts
// it), the remainder of the division exactly zero, so that 0.3 is a
// multiple of 0.1 and 19.99 of 0.01 although their doubles are not. An
// infinite or NaN v is not a multiple of anything.
func isMultipleOf(v, m any) bool {
	if rv, rm := numRank(v), numRank(m); rv >= 1 && rv <= 2 && rm >= 1 && rm <= 2 && toInt64(m) > 0 {
		// Two integers (m is positive): no decimal needed.
		return toInt64(v)%toInt64(m) == 0
	}
	vi, ve, err := toDecimal(v).BigInt()
	if err != nil {
		return false
	}
	mi, me, err := toDecimal(m).BigInt()
	if err != nil || mi.Sign() == 0 {
		return false
	}
	// v = vi x 10^ve and m = mi x 10^me: bring both to the smaller
	// exponent (at most about 12,300 digits apart) and divide.
	e := min(ve, me)
	x := new(big.Int).Mul(vi, pow10(ve-e))
	y := new(big.Int).Mul(mi, pow10(me-e))
	return x.Rem(x, y).Sign() == 0
}
