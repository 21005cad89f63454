package agg

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $round and $trunc: a number to place decimal places (negative: to
// tens, hundreds, ...), as mongod does it, in decimal: $round to the
// nearest, a half to the even digit (2.5 is 2, 3.5 is 4); $trunc toward
// zero. The result has the input's type.

func addRoundOps() {
	listOps["$round"] = opSpec{1, 2, roundOp("$round", false)}
	listOps["$trunc"] = opSpec{1, 2, roundOp("$trunc", true)}
}

func roundOp(op string, trunc bool) opFunc {
	return func(args []any) (any, error) {
		v := args[0]
		if nullish(v) {
			return nil, nil
		}
		if !document.IsNumber(v) {
			return nil, document.Errorf(document.Code(51081), "%s only supports numeric types, not %s", op, document.TypeName(v))
		}
		place := int64(0)
		if len(args) == 2 {
			p := args[1]
			if nullish(p) {
				return nil, nil
			}
			if !document.IsNumber(p) {
				return nil, document.Errorf(document.Code(16004), "can't convert from BSON type %s to long", document.TypeName(p))
			}
			n, ok := int64Value(p)
			if !ok {
				return nil, document.Errorf(document.Code(51082), "precision argument to  %s must be a integral value", op)
			}
			if n < -20 || n > 100 {
				return nil, document.Errorf(document.Code(51083), "cannot apply %s with precision value %d value must be in [-20, 100]", op, n)
			}
			place = n
		}
		switch x := v.(type) {
		case int32, int64:
			if place >= 0 {
				return v, nil
			}
			n, _ := wholeInt(x)
			m, e := quantize(big.NewInt(n), 0, int(place), trunc)
			m.Mul(m, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e)), nil))
			if !m.IsInt64() {
				return nil, document.Errorf(document.Code(51080), "invalid conversion from Decimal128 result in %s resulting from arguments: [%d, %d]", op, n, place)
			}
			r := m.Int64()
			if _, is32 := x.(int32); is32 && r >= math.MinInt32 && r <= math.MaxInt32 {
				return int32(r), nil
			}
			return r, nil
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return x, nil
			}
			mant, exp := floatDigits(x)
			m, e := quantize(mant, exp, int(place), trunc)
			f, _ := strconv.ParseFloat(m.String()+"e"+strconv.Itoa(e), 64)
			if f == 0 && math.Signbit(x) {
				f = math.Copysign(0, -1)
			}
			return f, nil
		case bson.Decimal128:
			mant, exp, err := x.BigInt()
			if err != nil { // NaN or an infinity: as it is
				return x, nil
			}
			m, e := quantize(mant, exp, int(place), trunc)
			if m.Sign() == 0 && strings.HasPrefix(x.String(), "-") {
				// A negative rounded to zero keeps its sign, as
				// decimal128's quantize does: -0.4 is -0.
				if d, err := bson.ParseDecimal128("-0E" + strconv.Itoa(e)); err == nil {
					return d, nil
				}
			}
			d, ok := bson.ParseDecimal128FromBigInt(m, e)
			if !ok {
				return x, nil
			}
			return d, nil
		}
		return v, nil
	}
}

// floatDigits is x as a decimal of 34 significant digits, mongod's
// conversion of a double before it rounds one: mant x 10^exp.
func floatDigits(x float64) (*big.Int, int) {
	s := strconv.FormatFloat(x, 'e', 33, 64) // d.ddd...e±XX
	digits, expPart, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(expPart)
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	digits = strings.Replace(digits, ".", "", 1)
	m, _ := new(big.Int).SetString(digits, 10)
	if neg {
		m.Neg(m)
	}
	return m, e - (len(digits) - 1)
}

// quantize rounds mant x 10^exp to the exponent -place: to the nearest,
// a half to even, or toward zero (trunc); it returns the new mantissa
// and exponent.
func quantize(mant *big.Int, exp, place int, trunc bool) (*big.Int, int) {
	target := -place
	if exp >= target {
		scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp-target)), nil)
		return new(big.Int).Mul(mant, scale), target
	}
	div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(target-exp)), nil)
	q, r := new(big.Int).QuoRem(mant, div, new(big.Int)) // truncates toward zero
	if trunc || r.Sign() == 0 {
		return q, target
	}
	// Compare twice the remainder's size with the divisor.
	twice := new(big.Int).Abs(r)
	twice.Lsh(twice, 1)
	switch c := twice.Cmp(div); {
	case c > 0 || (c == 0 && q.Bit(0) == 1):
		if mant.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q, target
}
