package agg

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func convErr(from any, to string) error {
	return document.Errorf(codeConversionFailure, "Unsupported conversion from %s to %s in $convert with no onError value", document.TypeName(from), to)
}

// toStringValue converts v as $toString does.
func toStringValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		switch {
		case math.IsInf(x, 1):
			return "Infinity", nil
		case math.IsInf(x, -1):
			return "-Infinity", nil
		}
		// mongod 7.0 streams the double through its StringBuilder,
		// snprintf's "%g": six significant digits, "1.23457e+06".
		return strconv.FormatFloat(x, 'g', 6, 64), nil
	case bson.Decimal128:
		return x.String(), nil
	case bson.ObjectID:
		return x.Hex(), nil
	case bson.DateTime:
		if y := x.Time().UTC().Year(); y < 0 || y > 9999 {
			return "", errYearRange()
		}
		return x.Time().UTC().Format("2006-01-02T15:04:05.000Z"), nil
	}
	return "", convErr(v, "string")
}

// strictNumber reports whether s is a number as mongod reads one: no
// white space around it, no digit separators.
func strictNumber(s string) bool {
	return s != "" && strings.TrimSpace(s) == s && !strings.Contains(s, "_")
}

func opToString(args []any) (any, error) {
	if nullish(args[0]) {
		return nil, nil
	}
	return toStringValue(args[0])
}

func opToDouble(args []any) (any, error) {
	switch x := args[0].(type) {
	case nil, bson.Null, bson.Undefined, Missing:
		return nil, nil
	case bool:
		if x {
			return 1.0, nil
		}
		return 0.0, nil
	case bson.DateTime:
		return float64(x), nil
	case string:
		return parseStringDouble(x)
	case bson.Decimal128:
		// mongod refuses a decimal no double holds: past a double's
		// range, or so small it would underflow.
		f := query.ToFloat(x)
		if math.IsInf(f, 0) && !strings.Contains(x.String(), "Inf") ||
			math.Abs(f) < 0x1p-1022 && document.Compare(x, int32(0)) != 0 && !strings.Contains(x.String(), "NaN") {
			return nil, document.Errorf(codeConversionFailure, "Conversion would overflow target type in $convert with no onError value: %s", x.String())
		}
		return f, nil
	}
	if document.IsNumber(args[0]) {
		return query.ToFloat(args[0]), nil
	}
	return nil, convErr(args[0], "double")
}

func toIntRange(v any, lo, hi int64, to string) (int64, bool, error) {
	switch x := v.(type) {
	case nil, bson.Null, bson.Undefined, Missing:
		return 0, true, nil
	case bool:
		if x {
			return 1, false, nil
		}
		return 0, false, nil
	case int32:
		return int64(x), false, nil
	case int64:
		if x < lo || x > hi {
			// mongod's message ends at the colon here, with no value.
			return 0, false, document.Errorf(codeConversionFailure, "Conversion would overflow target type in $convert with no onError value: ")
		}
		return x, false, nil
	case bson.DateTime:
		if to == "int" {
			return 0, false, convErr(v, to)
		}
		return int64(x), false, nil
	case string:
		n, err := parseStringInt(x, lo, hi)
		return n, false, err
	}
	if d, ok := v.(bson.Decimal128); ok {
		n, err := decimalToInteger(d, lo, hi)
		return n, false, err
	}
	if f, ok := v.(float64); ok {
		n, err := doubleToInteger(f, lo, hi)
		return n, false, err
	}
	return 0, false, convErr(v, to)
}

// notFinite is mongod's refusal of a NaN or an infinity as an integer.
func notFinite(nan bool) error {
	if nan {
		return document.Errorf(codeConversionFailure, "Attempt to convert NaN value to integer type in $convert with no onError value")
	}
	return document.Errorf(codeConversionFailure, "Attempt to convert infinity value to integer type in $convert with no onError value")
}

// doubleToInteger is f toward zero as an integer in [lo, hi], as mongod
// casts a double: NaN and the infinities refused apart, and f itself
// (not its whole part) within the range, below 2^63 for a long.
func doubleToInteger(f float64, lo, hi int64) (int64, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, notFinite(math.IsNaN(f))
	}
	if f < float64(lo) || f > float64(hi) || f >= 1<<63 {
		return 0, document.Errorf(codeConversionFailure, "Conversion would overflow target type in $convert with no onError value: %s", document.FormatStreamDouble(f))
	}
	return int64(f), nil
}

// decimalToInteger is d toward zero as an integer in [lo, hi], exactly
// (not through a double), as mongod casts a decimal.
func decimalToInteger(d bson.Decimal128, lo, hi int64) (int64, error) {
	switch s := d.String(); {
	case strings.Contains(s, "NaN"):
		return 0, notFinite(true)
	case strings.Contains(s, "Inf"):
		return 0, notFinite(false)
	}
	n, ok := query.DecimalTruncInt64(d)
	if !ok || n < lo || n > hi {
		return 0, document.Errorf(codeConversionFailure, "Conversion would overflow target type in $convert with no onError value: %s", d.String())
	}
	return n, nil
}

func opToLong(args []any) (any, error) {
	n, null, err := toIntRange(args[0], math.MinInt64, math.MaxInt64, "long")
	if err != nil || null {
		return nil, err
	}
	return n, nil
}

func opToInt(args []any) (any, error) {
	n, null, err := toIntRange(args[0], math.MinInt32, math.MaxInt32, "int")
	if err != nil || null {
		return nil, err
	}
	return int32(n), nil
}

func opToDate(args []any) (any, error) {
	switch x := args[0].(type) {
	case nil, bson.Null, bson.Undefined, Missing:
		return nil, nil
	case bson.DateTime:
		return x, nil
	case bson.ObjectID:
		return bson.NewDateTimeFromTime(x.Timestamp()), nil
	case bson.Timestamp:
		return bson.DateTime(int64(x.T) * 1000), nil
	case int64:
		return bson.DateTime(x), nil
	case float64:
		n, err := doubleToInteger(x, math.MinInt64, math.MaxInt64)
		if err != nil {
			return nil, err
		}
		return bson.DateTime(n), nil
	case bson.Decimal128:
		n, err := decimalToInteger(x, math.MinInt64, math.MaxInt64)
		if err != nil {
			return nil, err
		}
		return bson.DateTime(n), nil
	case string:
		// mongod reads it as $dateFromString without a format does.
		return dateFromString(x, "", false, time.UTC)
	}
	return nil, convErr(args[0], "date")
}
