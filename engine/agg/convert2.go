package agg

import (
	"encoding/hex"
	"errors"
	"math"
	"strconv"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $convert with onError and onNull, and the conversions it adds to
// $toString and the others: $toBool, $toObjectId, $toDecimal
// (docs/aggregation.md, "Conversion").

func addConvertOps() {
	listOps["$toBool"] = opSpec{1, 1, func(a []any) (any, error) { return convertTo("bool", a[0]) }}
	listOps["$toObjectId"] = opSpec{1, 1, func(a []any) (any, error) { return convertTo("objectId", a[0]) }}
	listOps["$isNumber"] = opSpec{1, 1, func(a []any) (any, error) { return document.IsNumber(a[0]), nil }}
	listOps["$toDecimal"] = opSpec{1, 1, func(a []any) (any, error) { return convertTo("decimal", a[0]) }}
}

// convertTo converts v (not null) to the type named to, as $convert
// does; a failure is 241 ConversionFailure.
func convertTo(to string, v any) (any, error) {
	if nullish(v) {
		return nil, nil
	}
	switch to {
	case "double":
		return opToDouble([]any{v})
	case "string":
		return toStringValue(v)
	case "date":
		return opToDate([]any{v})
	case "int":
		return opToInt([]any{v})
	case "long":
		return opToLong([]any{v})
	case "bool":
		switch x := v.(type) {
		case bool:
			return x, nil
		case int32, int64, float64, bson.Decimal128:
			f := query.ToFloat(x)
			return f != 0, nil
		}
		return true, nil
	case "objectId":
		switch x := v.(type) {
		case bson.ObjectID:
			return x, nil
		case string:
			if len(x) != 24 {
				return nil, document.Errorf(codeConversionFailure, "Failed to parse objectId '%s' in $convert with no onError value: Invalid string length for parsing to OID, expected 24 but found %d", x, len(x))
			}
			b, err := hex.DecodeString(x)
			if err != nil {
				return nil, document.Errorf(codeConversionFailure, "Failed to parse objectId '%s' in $convert with no onError value: Invalid character found in hex string: %s", x, x)
			}
			var id bson.ObjectID
			copy(id[:], b)
			return id, nil
		}
		return nil, convErr(v, "objectId")
	case "decimal":
		switch x := v.(type) {
		case bson.Decimal128:
			return x, nil
		case bool:
			if x {
				return bson.ParseDecimal128("1")
			}
			return bson.ParseDecimal128("0")
		case int32, int64, float64:
			// A double becomes 15 significant digits, trailing zeros
			// kept (2.5 is 2.50000000000000), as mongod converts it.
			return query.ToDecimal(x), nil
		case bson.DateTime:
			return bson.ParseDecimal128(strconv.FormatInt(int64(x), 10))
		case string:
			return parseStringDecimal(x) // more than 34 digits are rounded, as in mongod
		}
		return nil, convErr(v, "decimal")
	}
	return nil, convErr(v, to)
}

// convertExpr is {$convert: {input, to, onError, onNull}}.
type convertExpr struct {
	input, to, onError, onNull Expr
}

func parseConvert(arg any, depth pdepth) (Expr, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, document.Errorf(document.CodeFailedToParse, "$convert expects an object of named arguments but found: %s", document.TypeName(arg))
	}
	a, err := namedExprs(d, depth, []string{"input", "to", "onError", "onNull"}, func(name string) error {
		return document.Errorf(document.CodeFailedToParse, "$convert found an unknown argument: %s", name)
	})
	if err != nil {
		return nil, err
	}
	c := convertExpr{input: a["input"], to: a["to"], onError: a["onError"], onNull: a["onNull"]}
	if c.input == nil {
		return nil, document.Errorf(document.CodeFailedToParse, "Missing 'input' parameter to $convert")
	}
	if c.to == nil {
		return nil, document.Errorf(document.CodeFailedToParse, "Missing 'to' parameter to $convert")
	}
	return c, nil
}

// Eval follows mongod: the target type is read first (a bad one is an
// error whatever the input); a null or missing input gives onNull (null
// without it); a null target gives null; a failed conversion gives
// onError when there is one.
func (c convertExpr) Eval(e *Env) (any, error) {
	tv, err := c.to.Eval(e)
	if err != nil {
		return nil, err
	}
	to := ""
	if !nullish(tv) {
		switch x := tv.(type) {
		case string:
			// "missing" names no value's type but is a type name: no
			// conversion reaches it (241, so onError applies).
			if _, ok := query.TypeAlias(x); !ok && x != "missing" {
				return nil, document.Errorf(document.CodeBadValue, "Unknown type name: %s", x)
			}
			to = x
		case int32, int64, float64, bson.Decimal128:
			f := query.ToFloat(x)
			if f != math.Trunc(f) {
				return nil, document.Errorf(document.CodeFailedToParse, "In $convert, numeric 'to' argument is not an integer")
			}
			name, ok := query.TypeAliasName(int(f))
			if f == 0 {
				name, ok = "missing", true // BSON type 0, end of object
			}
			if !ok {
				return nil, document.Errorf(document.CodeFailedToParse, "In $convert, numeric value for 'to' does not correspond to a BSON type: %s", document.Format(x))
			}
			to = name
		default:
			return nil, document.Errorf(document.Code(50981), "$convert's 'to' argument must be a string or number, but is %s", document.TypeName(tv))
		}
	}
	in, err := c.input.Eval(e)
	if err != nil {
		return nil, err
	}
	if nullish(in) {
		if c.onNull != nil {
			return c.onNull.Eval(e)
		}
		return nil, nil
	}
	if to == "" {
		return nil, nil
	}
	out, err := convertTo(to, in)
	if err != nil {
		var de *document.Error
		if c.onError != nil && errors.As(err, &de) && de.Code == codeConversionFailure {
			return c.onError.Eval(e)
		}
		return nil, err
	}
	return out, nil
}
