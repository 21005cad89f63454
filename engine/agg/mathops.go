package agg

import (
	"math"
	"math/big"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $sqrt, $exp, $ln, $log10, $log and $pow, with mongod's domain checks
// and codes. A decimal argument is computed in decimal, 34 digits
// (query.DecimalMath, DecimalLog, DecimalPow); mongod's decimal library
// is not always correctly rounded, so the last digit of a logarithm can
// differ by one.

func addMathOps() {
	listOps["$sqrt"] = opSpec{1, 1, unaryMath("$sqrt", math.Sqrt, func(f float64) error {
		if f < 0 {
			return document.Errorf(document.Code(28714), "$sqrt's argument must be greater than or equal to 0")
		}
		return nil
	})}
	listOps["$exp"] = opSpec{1, 1, unaryMath("$exp", math.Exp, nil)}
	listOps["$ln"] = opSpec{1, 1, unaryMath("$ln", math.Log, func(f float64) error {
		if f <= 0 {
			return document.Errorf(document.Code(28766), "$ln's argument must be a positive number, but is %s", fmtDouble(f))
		}
		return nil
	})}
	listOps["$log10"] = opSpec{1, 1, unaryMath("$log10", math.Log10, func(f float64) error {
		if f <= 0 {
			return document.Errorf(document.Code(28761), "$log10's argument must be a positive number, but is %s", fmtDouble(f))
		}
		return nil
	})}
	listOps["$log"] = opSpec{2, 2, opLog}
	listOps["$pow"] = opSpec{2, 2, opPow}
}

// unaryMath is an operator of one number giving a double (a decimal for
// a decimal); check refuses what is outside its domain (NaN passes).
func unaryMath(op string, f func(float64) float64, check func(float64) error) opFunc {
	return func(args []any) (any, error) {
		v := args[0]
		if nullish(v) {
			return nil, nil
		}
		if !document.IsNumber(v) {
			return nil, document.Errorf(document.Code(28765), "%s only supports numeric types, not %s", op, document.TypeName(v))
		}
		x := query.ToFloat(v)
		if check != nil && !math.IsNaN(x) {
			if err := check(x); err != nil {
				return nil, err
			}
		}
		if d, ok := v.(bson.Decimal128); ok {
			if math.IsNaN(x) && (op == "$ln" || op == "$log10") {
				// mongod takes a decimal's logarithm only when it is
				// positive, and a NaN falls through to the double one.
				return f(x), nil
			}
			if r, ok := query.DecimalMath(op, d); ok {
				return r, nil
			}
		}
		return numberLike(v, f(x)), nil
	}
}

// numberLike is r as a double, or as a decimal when any of in is one.
func numberLike(in any, r float64, more ...any) any {
	for _, v := range append([]any{in}, more...) {
		if _, ok := v.(bson.Decimal128); ok {
			return query.ToDecimal(r)
		}
	}
	return r
}

func opLog(args []any) (any, error) {
	n, b := args[0], args[1]
	if nullish(n) || nullish(b) {
		return nil, nil
	}
	if !document.IsNumber(n) {
		return nil, document.Errorf(document.Code(28756), "$log's argument must be numeric, not %s", document.TypeName(n))
	}
	if !document.IsNumber(b) {
		return nil, document.Errorf(document.Code(28757), "$log's base must be numeric, not %s", document.TypeName(b))
	}
	x, base := query.ToFloat(n), query.ToFloat(b)
	_, nDec := n.(bson.Decimal128)
	_, bDec := b.(bson.Decimal128)
	if (nDec || bDec) && document.Compare(n, int32(0)) > 0 && document.Compare(b, int32(0)) > 0 && document.Compare(b, int32(1)) != 0 && !math.IsNaN(x) && !math.IsNaN(base) {
		return query.DecimalLog(n, b), nil
	}
	// Anything else, a NaN among decimals too, is computed (or refused)
	// as doubles, as mongod falls through to its double path.
	if !(x > 0 || math.IsNaN(x)) {
		return nil, document.Errorf(document.Code(28758), "$log's argument must be a positive number, but is %s", fmtDouble(x))
	}
	if !((base > 0 && base != 1) || math.IsNaN(base)) {
		return nil, document.Errorf(document.Code(28759), "$log's base must be a positive number not equal to 1, but is %s", fmtDouble(base))
	}
	return math.Log(x) / math.Log(base), nil
}

// opPow is base to the power exponent: whole numbers stay whole while
// the result fits (an int, then a long, then a double), as mongod's
// does; a negative exponent gives a double, but for a base of 1 or -1.
func opPow(args []any) (any, error) {
	b, e := args[0], args[1]
	if nullish(b) || nullish(e) {
		return nil, nil
	}
	if !document.IsNumber(b) {
		return nil, document.Errorf(document.Code(28762), "$pow's base must be numeric, not %s", document.TypeName(b))
	}
	if !document.IsNumber(e) {
		return nil, document.Errorf(document.Code(28763), "$pow's exponent must be numeric, not %s", document.TypeName(e))
	}
	bf, ef := query.ToFloat(b), query.ToFloat(e)
	if bf == 0 && ef < 0 {
		return nil, document.Errorf(document.Code(28764), "$pow cannot take a base of 0 and a negative exponent")
	}
	_, bDec := b.(bson.Decimal128)
	_, eDec := e.(bson.Decimal128)
	if bDec || eDec {
		return query.DecimalPow(b, e), nil
	}
	bi, bInt := wholeInt(b)
	ei, eInt := wholeInt(e)
	if !bInt || !eInt {
		return numberLike(b, math.Pow(bf, ef), e), nil
	}
	_, b32 := b.(int32)
	_, e32 := e.(int32)
	narrow := func(r int64) any {
		if b32 && e32 && r >= math.MinInt32 && r <= math.MaxInt32 {
			return int32(r)
		}
		return r
	}
	if ei < 0 {
		switch bi {
		case 1:
			return narrow(1), nil
		case -1:
			if ei%2 == 0 {
				return narrow(1), nil
			}
			return narrow(-1), nil
		}
		return math.Pow(bf, ef), nil
	}
	if ei > 64 && bi != 0 && bi != 1 && bi != -1 {
		return math.Pow(bf, ef), nil // past any long
	}
	r := new(big.Int).Exp(big.NewInt(bi), big.NewInt(ei), nil)
	if !r.IsInt64() {
		return math.Pow(bf, ef), nil
	}
	return narrow(r.Int64()), nil
}
