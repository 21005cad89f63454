package query

import (
	"github.com/cockroachdb/apd/v3"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Decimal arithmetic as mongod does it on Decimal128 values: IEEE 754
// decimal128, 34 significant digits, rounding half to even, exact
// results at the exponent the standard calls ideal (10 / 4 is 2.5,
// 1 / 3 is 0.3333333333333333333333333333333333). apd implements the
// General Decimal Arithmetic specification the standard is built on.

// decCtx is decimal128's context: 34 digits, adjusted exponents from
// -6143 to 6144, no traps (conditions give NaN or Infinity as mongod's
// library does).
var decCtx = apd.Context{Precision: 34, MaxExponent: 6144, MinExponent: -6143, Rounding: apd.RoundHalfEven}

// toAPD is number v (int32, int64, float64 or Decimal128) as an apd
// decimal; a double is first made a decimal as toDecimal makes it.
func toAPD(v any) *apd.Decimal {
	d, _, err := apd.NewFromString(toDecimal(v).String())
	if err != nil {
		d = &apd.Decimal{Form: apd.NaN}
	}
	return d
}

// fromAPD is x as a Decimal128 (NaN if it does not fit one).
func fromAPD(x *apd.Decimal) bson.Decimal128 {
	d, err := bson.ParseDecimal128(x.String())
	if err != nil {
		d, _ = bson.ParseDecimal128("NaN")
	}
	return d
}

// DecimalDiv is a / b in decimal (b non-zero; the caller checks).
func DecimalDiv(a, b any) bson.Decimal128 {
	x, y := toAPD(a), toAPD(b)
	var r apd.Decimal
	cond, _ := decCtx.Quo(&r, x, y)
	// An exact quotient takes the exponent closest to the ideal one,
	// the dividend's less the divisor's.
	toIdeal(&r, cond, x.Exponent-y.Exponent)
	return fromAPD(&r)
}

// toIdeal drops the trailing zeros of an exact result r down to the
// exponent ideal, as IEEE 754 gives exact quotients and roots.
func toIdeal(r *apd.Decimal, cond apd.Condition, ideal int32) {
	if r.Form != apd.Finite || cond.Inexact() {
		return
	}
	var ten, q, m apd.BigInt
	ten.SetInt64(10)
	for r.Exponent < ideal && r.Coeff.Sign() != 0 {
		q.QuoRem(&r.Coeff, &ten, &m)
		if m.Sign() != 0 {
			break
		}
		r.Coeff.Set(&q)
		r.Exponent++
	}
	if r.Coeff.Sign() == 0 && r.Exponent < ideal {
		r.Exponent = ideal
	}
}

// DecimalMod is the remainder of a / b truncated toward zero, with a's
// sign, in decimal (mongod's Decimal128::modulo; b non-zero).
func DecimalMod(a, b any) bson.Decimal128 {
	var r apd.Decimal
	decCtx.Rem(&r, toAPD(a), toAPD(b))
	return fromAPD(&r)
}

// DecimalFloor, DecimalCeil and DecimalAbs are $floor, $ceil and $abs
// of a decimal: the first two at exponent 0, rounded toward negative
// or positive infinity; the last with the sign cleared (of zero too).
func DecimalFloor(v bson.Decimal128) bson.Decimal128 { return decimalInteger(v, apd.RoundFloor) }

// DecimalCeil is $ceil of a decimal (see DecimalFloor).
func DecimalCeil(v bson.Decimal128) bson.Decimal128 { return decimalInteger(v, apd.RoundCeiling) }

// DecimalAbs is $abs of a decimal (see DecimalFloor).
func DecimalAbs(v bson.Decimal128) bson.Decimal128 {
	var r apd.Decimal
	r.Abs(toAPD(v))
	return fromAPD(&r)
}

func decimalInteger(v bson.Decimal128, mode apd.Rounder) bson.Decimal128 {
	x := toAPD(v)
	if x.Form != apd.Finite || x.Exponent >= 0 {
		return v // already whole, or NaN or an infinity
	}
	c := decCtx
	c.Rounding = mode
	var r apd.Decimal
	c.Quantize(&r, x, 0)
	return fromAPD(&r)
}

// DecimalMath computes $sqrt, $exp, $ln or $log10 (op) of a decimal in
// decimal; ok is false for another op. The caller checks the domain.
func DecimalMath(op string, v bson.Decimal128) (r bson.Decimal128, ok bool) {
	x := toAPD(v)
	var d apd.Decimal
	switch op {
	case "$sqrt":
		cond, _ := decCtx.Sqrt(&d, x)
		ideal := x.Exponent / 2 // floor(e / 2)
		if x.Exponent < 0 && x.Exponent%2 != 0 {
			ideal--
		}
		toIdeal(&d, cond, ideal)
	case "$exp":
		decCtx.Exp(&d, x)
	case "$ln":
		decCtx.Ln(&d, x)
	case "$log10":
		if k, ok := powerOfTen(x); ok {
			// An exact power of ten has an exact logarithm: 2, not
			// 2.000000000000000000000000000000000.
			d.SetInt64(k)
			break
		}
		decCtx.Log10(&d, x)
	default:
		return r, false
	}
	return fromAPD(&d), true
}

// powerOfTen reports whether x is 10^k, and k.
func powerOfTen(x *apd.Decimal) (int64, bool) {
	if x.Form != apd.Finite || x.Negative || x.Coeff.Sign() == 0 {
		return 0, false
	}
	var r apd.Decimal
	r.Reduce(x)
	if r.Coeff.Cmp(apd.NewBigInt(1)) != 0 {
		return 0, false
	}
	return int64(r.Exponent), true
}

// DecimalLog is log base b of x in decimal, as mongod takes it: the
// natural logarithms of both, each to 34 digits, divided (an exact
// quotient at its ideal exponent: log of 1 base 8 is 0E+33).
func DecimalLog(x, b any) bson.Decimal128 {
	var lx, lb, r apd.Decimal
	decCtx.Ln(&lx, toAPD(x))
	decCtx.Ln(&lb, toAPD(b))
	cond, _ := decCtx.Quo(&r, &lx, &lb)
	toIdeal(&r, cond, lx.Exponent-lb.Exponent)
	return fromAPD(&r)
}

// DecimalPow is b to the power e in decimal, to 34 significant digits
// written out in full as mongod's library gives them (2 squared is
// 4.000000000000000000000000000000000); a result past the decimal128
// range is an infinity, one below it zero.
func DecimalPow(b, e any) bson.Decimal128 {
	x, y := toAPD(b), toAPD(e)
	var r apd.Decimal
	cond, err := decCtx.Pow(&r, x, y)
	switch {
	case err != nil && cond.Overflow():
		r.Set(&apd.Decimal{Form: apd.Infinite, Negative: x.Negative && isOddInteger(y)})
	case err != nil && (cond.Underflow() || cond.Subnormal()):
		r.Set(&apd.Decimal{Exponent: -6176, Negative: x.Negative && isOddInteger(y)})
	case err != nil:
		r.Set(&apd.Decimal{Form: apd.NaN})
	}
	if r.Form == apd.Finite && r.Coeff.Sign() != 0 {
		var ten apd.BigInt
		ten.SetInt64(10)
		for r.NumDigits() < 34 && r.Exponent > -6176 {
			r.Coeff.Mul(&r.Coeff, &ten)
			r.Exponent--
		}
	}
	return fromAPD(&r)
}

// isOddInteger reports whether y is an odd whole number.
func isOddInteger(y *apd.Decimal) bool {
	if y.Form != apd.Finite {
		return false
	}
	var i apd.Decimal
	if _, err := decCtx.RoundToIntegralExact(&i, y); err != nil || i.Cmp(y) != 0 {
		return false
	}
	var two, rem apd.Decimal
	two.SetInt64(2)
	c := decCtx
	c.Precision = 7000
	if _, err := c.Rem(&rem, &i, &two); err != nil {
		return false
	}
	return !rem.IsZero()
}

// DecimalTruncInt64 is v truncated toward zero as an int64, exactly;
// false for NaN, an infinity or a value out of range.
func DecimalTruncInt64(v bson.Decimal128) (int64, bool) {
	return decimalToInt64(v, apd.RoundDown)
}

// DecimalRoundInt64 is v rounded to the nearest int64, a half to even;
// false for NaN, an infinity or a value out of range.
func DecimalRoundInt64(v bson.Decimal128) (int64, bool) {
	return decimalToInt64(v, apd.RoundHalfEven)
}

// decimalToInt64 is v made an integer under rounding, as an int64;
// false for NaN, an infinity or a value out of range.
func decimalToInt64(v bson.Decimal128, rounding apd.Rounder) (int64, bool) {
	x := toAPD(v)
	if x.Form != apd.Finite {
		return 0, false
	}
	c := decCtx
	c.Rounding = rounding
	c.Precision = 7000 // as many digits as any decimal128 integer has
	var r apd.Decimal
	if x.Exponent < 0 {
		if _, err := c.Quantize(&r, x, 0); err != nil {
			return 0, false
		}
	} else {
		r.Set(x)
	}
	n, err := r.Int64()
	return n, err == nil
}

// ParseDecimalRounded reads a decimal number from s, rounding it to 34
// significant digits as mongod's parser does.
func ParseDecimalRounded(s string) (bson.Decimal128, error) {
	x, _, err := apd.NewFromString(s)
	if err != nil {
		return bson.Decimal128{}, err
	}
	var r apd.Decimal
	if _, err := decCtx.Round(&r, x); err != nil {
		return bson.Decimal128{}, err
	}
	return bson.ParseDecimal128(r.String())
}

// DecimalEMA is one step of an exponential moving average in decimal,
// as mongod's $expMovingAvg takes it once a decimal is seen:
// x*alpha + prev*(1-alpha), each operation to 34 digits.
func DecimalEMA(x, prev, alpha any) bson.Decimal128 {
	a := toAPD(alpha)
	var t, u, one, r apd.Decimal
	one.SetInt64(1)
	decCtx.Mul(&t, toAPD(x), a)
	decCtx.Sub(&u, &one, a)
	decCtx.Mul(&u, toAPD(prev), &u)
	decCtx.Add(&r, &t, &u)
	return fromAPD(&r)
}
