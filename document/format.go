package document

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Format renders v the way MongoDB's server prints values in its error
// messages (BSONObj::toString): `{ _id: 1, name: "x", at: new
// Date(1700000000000), ids: [ ObjectId('…') ] }`. Field names are not
// quoted; doubles keep a fractional part (`1.0`); int32 and int64
// print as plain numbers. Values that are not BSON print as Go would.
// The output is for people, not for parsing.
func Format(v any) string {
	var b strings.Builder
	formatValue(&b, v, 0)
	return b.String()
}

// maxFormatDepth bounds recursion on hostile input; deeper values print
// as "...".
const maxFormatDepth = 120

func formatValue(b *strings.Builder, v any, depth int) {
	if depth > maxFormatDepth {
		b.WriteString("...")
		return
	}
	switch x := v.(type) {
	case nil, bson.Null:
		b.WriteString("null")
	case bson.D:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{ ")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(e.Key)
			b.WriteString(": ")
			formatValue(b, e.Value, depth+1)
		}
		b.WriteString(" }")
	case bson.A:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[ ")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			formatValue(b, e, depth+1)
		}
		b.WriteString(" ]")
	case float64:
		b.WriteString(formatDouble(x))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case string:
		b.WriteString(strconv.Quote(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case bson.DateTime:
		b.WriteString("new Date(")
		b.WriteString(strconv.FormatInt(int64(x), 10))
		b.WriteString(")")
	case bson.ObjectID:
		b.WriteString("ObjectId('")
		b.WriteString(x.Hex())
		b.WriteString("')")
	case bson.Decimal128:
		b.WriteString(`NumberDecimal("`)
		b.WriteString(x.String())
		b.WriteString(`")`)
	case bson.Timestamp:
		b.WriteString("Timestamp(")
		b.WriteString(strconv.FormatUint(uint64(x.T), 10))
		b.WriteString(", ")
		b.WriteString(strconv.FormatUint(uint64(x.I), 10))
		b.WriteString(")")
	case bson.Binary:
		b.WriteString("BinData(")
		b.WriteString(strconv.Itoa(int(x.Subtype)))
		b.WriteString(", ")
		b.WriteString(strings.ToUpper(hex.EncodeToString(x.Data)))
		b.WriteString(")")
	case bson.Regex:
		b.WriteString("/")
		b.WriteString(x.Pattern)
		b.WriteString("/")
		b.WriteString(x.Options)
	case bson.MinKey:
		b.WriteString("MinKey")
	case bson.MaxKey:
		b.WriteString("MaxKey")
	case bson.Undefined:
		b.WriteString("undefined")
	case bson.Symbol:
		b.WriteString(strconv.Quote(string(x)))
	case bson.JavaScript:
		b.WriteString("function: ")
		b.WriteString(string(x))
	case bson.CodeWithScope:
		b.WriteString("CodeWScope( ")
		b.WriteString(string(x.Code))
		b.WriteString(", ")
		formatValue(b, x.Scope, depth+1)
		b.WriteString(")")
	case bson.DBPointer:
		b.WriteString("DBRef('")
		b.WriteString(x.DB)
		b.WriteString("', ")
		b.WriteString(x.Pointer.Hex())
		b.WriteString(")")
	default:
		if c, ok := coerce(v); ok && isCanonicalType(c) {
			formatValue(b, c, depth)
			return
		}
		b.WriteString(strconv.Quote(fmt.Sprint(v)))
	}
}

// FormatStreamDouble prints f as a C++ stream, or C's %g, does by
// default, which is how mongod prints a double in most of its messages
// and coercions: six significant digits ("0.333333", "1.23457e+06"),
// and nan, inf and -inf.
func FormatStreamDouble(f float64) string {
	if s, ok := nonFinite(f); ok {
		return s
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

// nonFinite is how mongod prints a double that is not a finite number:
// nan, inf or -inf; false for a finite one.
func nonFinite(f float64) (string, bool) {
	switch {
	case math.IsNaN(f):
		return "nan", true
	case math.IsInf(f, 1):
		return "inf", true
	case math.IsInf(f, -1):
		return "-inf", true
	}
	return "", false
}

// formatDouble prints a double as the server does: integral values keep
// ".0", negative zero is "-0.0", and the specials are inf, -inf, nan.
func formatDouble(f float64) string {
	if s, ok := nonFinite(f); ok {
		return s
	}
	s := strconv.FormatFloat(f, 'g', 16, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}
