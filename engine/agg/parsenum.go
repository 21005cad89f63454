package agg

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $convert reads a string as a number the way mongod's NumberParser
// does, and a refusal carries the parser's reason after the context:
// "Failed to parse number 'x' in $convert with no onError value: Did
// not consume any digits". A string starting "0x" is refused first
// ("Illegal hexadecimal input ..."), whatever the target type.

// parseFailure is the 241 ConversionFailure for the string s that the
// parser refused with reason.
func parseFailure(s, reason string) error {
	return document.Errorf(codeConversionFailure, "Failed to parse number '%s' in $convert with no onError value: %s", s, reason)
}

// hexRefusal is mongod's refusal of a string starting "0x", or nil.
func hexRefusal(s string) error {
	if strings.HasPrefix(s, "0x") {
		return document.Errorf(codeConversionFailure, "Illegal hexadecimal input in $convert with no onError value: %s", s)
	}
	return nil
}

// parseStringInt reads s as a base-10 integer in [lo, hi]: an optional
// sign, then digits only.
func parseStringInt(s string, lo, hi int64) (int64, error) {
	if err := hexRefusal(s); err != nil {
		return 0, err
	}
	digits, neg := s, false
	if digits != "" && (digits[0] == '-' || digits[0] == '+') {
		neg, digits = digits[0] == '-', digits[1:]
	}
	if digits == "" {
		return 0, parseFailure(s, "No digits")
	}
	var mag uint64
	n := 0
	for ; n < len(digits) && digits[n] >= '0' && digits[n] <= '9'; n++ {
		d := uint64(digits[n] - '0')
		if mag > (math.MaxUint64-d)/10 {
			return 0, parseFailure(s, "Overflow")
		}
		mag = mag*10 + d
	}
	if n != len(digits) {
		return 0, parseFailure(s, "Did not consume whole string.")
	}
	limit := uint64(hi)
	if neg {
		limit = uint64(-(lo + 1)) + 1
	}
	if mag > limit {
		return 0, parseFailure(s, "Overflow")
	}
	if neg {
		return int64(-mag), nil //nolint:gosec // in range by the check above
	}
	return int64(mag), nil
}

// strtodPrefix matches the longest prefix of a string that C's strtod
// reads: a decimal or hexadecimal number, an infinity or NaN.
var strtodPrefix = regexp.MustCompile(`^[+-]?(?i:(?:0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?)|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?|infinity|inf|nan)`)

// parseStringDouble reads s as mongod reads a double: strtod over the
// whole string, no leading white space, "Out of range" when the value
// overflows or underflows a double.
func parseStringDouble(s string) (float64, error) {
	if err := hexRefusal(s); err != nil {
		return 0, err
	}
	if s == "" {
		return 0, parseFailure(s, "Empty string")
	}
	switch s[0] {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return 0, parseFailure(s, "Leading whitespace")
	}
	m := strtodPrefix.FindString(s)
	if m == "" {
		return 0, parseFailure(s, "Did not consume any digits")
	}
	if len(m) != len(s) {
		return 0, parseFailure(s, "Did not consume whole string.")
	}
	body := strings.TrimLeft(m, "+-")
	lower := strings.ToLower(body)
	if strings.HasPrefix(lower, "0x") && !strings.Contains(lower, "p") {
		m += "p0" // strtod's hexadecimal needs no exponent; Go's does
	}
	if lower == "nan" {
		return math.NaN(), nil
	}
	f, err := strconv.ParseFloat(m, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, parseFailure(s, "Did not consume any digits")
	}
	if lower != "inf" && lower != "infinity" {
		if math.IsInf(f, 0) || (math.Abs(f) < 0x1p-1022 && nonZeroDigits(lower)) {
			return 0, parseFailure(s, "Out of range")
		}
	}
	return f, nil
}

// nonZeroDigits reports whether the mantissa of the number text s has a
// digit other than 0.
func nonZeroDigits(s string) bool {
	s = strings.TrimPrefix(s, "0x")
	if i := strings.IndexAny(s, "ep"); i >= 0 && !strings.HasPrefix(s, "0x") {
		s = s[:i]
	}
	for _, c := range s {
		if c != '0' && c != '.' {
			return true
		}
	}
	return false
}

// parseStringDecimal reads s as mongod reads a Decimal128: rounded to 34
// digits, refusing a value past the decimal128 range ("would overflow")
// or too small to hold without losing digits ("would underflow").
func parseStringDecimal(s string) (bson.Decimal128, error) {
	if err := hexRefusal(s); err != nil {
		return bson.Decimal128{}, err
	}
	if s == "" {
		return bson.Decimal128{}, parseFailure(s, "Empty string")
	}
	if !strictNumber(s) {
		return bson.Decimal128{}, parseFailure(s, "Failed to parse string to decimal")
	}
	if mant, exp, ok := decimalText(s); ok && mant.Sign() != 0 {
		digits := len(mant.String())
		adj := exp + digits - 1
		if adj > 6144 {
			return bson.Decimal128{}, parseFailure(s, "Conversion from string to decimal would overflow")
		}
		// The last digit kept is at 10^max(exp after rounding to 34
		// digits, -6176); a non-zero digit below it is lost.
		keep := max(exp+max(digits-34, 0), -6176)
		if keep > exp {
			cut := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(keep-exp)), nil)
			if new(big.Int).Rem(mant, cut).Sign() != 0 && adj < -6143 {
				return bson.Decimal128{}, parseFailure(s, "Conversion from string to decimal would underflow")
			}
		}
	}
	d, err := query.ParseDecimalRounded(s)
	if err != nil {
		return bson.Decimal128{}, parseFailure(s, "Failed to parse string to decimal")
	}
	return d, nil
}

// decimalNumeral is a finite decimal number's text: sign, whole digits,
// fraction digits, exponent.
var decimalNumeral = regexp.MustCompile(`^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$`)

// decimalText splits a finite decimal numeral into its digits and
// exponent (mant x 10^exp); false when s is not one (an infinity, NaN,
// or not a number).
func decimalText(s string) (*big.Int, int, bool) {
	m := decimalNumeral.FindStringSubmatch(s)
	if m == nil || m[2]+m[3] == "" {
		return nil, 0, false
	}
	mant, ok := new(big.Int).SetString(m[2]+m[3], 10)
	if !ok {
		return nil, 0, false
	}
	exp := -len(m[3])
	if m[4] != "" {
		e, err := strconv.Atoi(m[4])
		if err != nil || e > 1<<20 || e < -(1<<20) {
			// Far past any decimal128: let the range checks see it.
			if strings.HasPrefix(m[4], "-") {
				e = -(1 << 20)
			} else {
				e = 1 << 20
			}
		}
		exp += e
	}
	return mant, exp, true
}
