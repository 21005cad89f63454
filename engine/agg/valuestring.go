package agg

import (
	"strconv"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// valueString writes v as mongod's Value::toString does in its error
// messages ("Input document: {_id: 1, a: [1, 2]}"): documents as
// {name: value, ...}, arrays as [v, ...], strings in double quotes,
// doubles as C++ streams them (six significant digits), dates in ISO
// form, a missing value as MISSING. Types mongod prints in forms of its
// own that ttlkv has no use for fall back to document.Format.
func valueString(v any) string {
	var b strings.Builder
	writeValueString(&b, v)
	return b.String()
}

func writeValueString(b *strings.Builder, v any) {
	switch x := v.(type) {
	case Missing:
		b.WriteString("MISSING")
	case nil, bson.Null:
		b.WriteString("null")
	case bson.Undefined:
		b.WriteString("undefined")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(document.FormatStreamDouble(x))
	case bson.Decimal128:
		b.WriteString(x.String())
	case string:
		b.WriteByte('"')
		b.WriteString(x)
		b.WriteByte('"')
	case bson.ObjectID:
		b.WriteString(x.Hex())
	case bson.DateTime:
		b.WriteString(time.UnixMilli(int64(x)).UTC().Format("2006-01-02T15:04:05.000Z"))
	case bson.D:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(e.Key)
			b.WriteString(": ")
			writeValueString(b, e.Value)
		}
		b.WriteByte('}')
	case bson.A:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValueString(b, e)
		}
		b.WriteByte(']')
	default:
		b.WriteString(document.Format(v))
	}
}
