package js

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The native helpers mongod installs in every server-side scope
// (installGlobalUtils) fail with a MongoDB code of their own, not 139:
// the error they throw is an Error carrying the code and its reason
// (mongod's MongoStatus), which a script may catch and read (e.code,
// e.reason); uncaught, the operation fails with that code and the
// reason followed by the script's stack.

// Codes of the native helpers' refusals, mongod's.
const (
	codeHexMD5Args       document.Code = 10261 // hex_md5 without exactly one string
	codeToStrictJSONArgs document.Code = 40275 // tostrictjson without an object (and a boolean)
	codeNotJSONNumber    document.Code = 10311 // a number JSON cannot write
)

// statusKey marks the errors throwStatus throws, with their code.
var statusKey = goja.NewSymbol("mongoStatus")

// throwStatus throws, as a JavaScript exception, an Error whose message
// is reason and whose code and reason properties are mongod's status.
func (v *vm) throwStatus(code document.Code, reason string) {
	o, err := v.rt.New(v.rt.Get("Error"), v.rt.ToValue(reason))
	if err != nil {
		panic(err)
	}
	_ = o.Set("code", int32(code))
	_ = o.Set("reason", reason)
	_ = o.SetSymbol(statusKey, int32(code))
	panic(o)
}

// statusOf returns the code of an exception throwStatus threw.
func statusOf(o *goja.Object) (document.Code, string, bool) {
	c := o.GetSymbol(statusKey)
	if c == nil || goja.IsUndefined(c) {
		return 0, "", false
	}
	r := o.Get("reason")
	if r == nil {
		return 0, "", false
	}
	return document.Code(c.ToInteger()), r.String(), true
}

// hexMD5 is mongod's hex_md5(s): the MD5 digest of a string's bytes (up
// to a NUL, as mongod reads it), in lowercase hex; anything but one
// string argument is 10261.
func (v *vm) hexMD5(call goja.FunctionCall) goja.Value {
	s, ok := call.Argument(0).Export().(string)
	if len(call.Arguments) != 1 || !ok {
		v.throwStatus(codeHexMD5Args, "hex_md5 takes a single string argument -- hex_md5(string)")
	}
	s, _, _ = strings.Cut(s, "\x00")
	return v.rt.ToValue(md5Hex(s))
}

// toStrictJSON is mongod's tostrictjson(obj, pretty): the object (an
// array too, shown as an object of its indexes) in the legacy strict
// extended JSON of BSONObj::jsonString, on one line, or one field a
// line when pretty is true. Anything but an object and an optional
// boolean is 40275.
func (v *vm) toStrictJSON(call goja.FunctionCall) goja.Value {
	args := call.Arguments
	bad := len(args) == 0 || len(args) > 2
	var doc bson.D
	if !bad {
		x, err := v.toBSON(args[0], nil, 0)
		if err != nil {
			var de *document.Error
			if errors.As(err, &de) {
				v.throwStatus(de.Code, de.Message)
			}
			panic(err)
		}
		switch t := x.(type) {
		case bson.D:
			doc = t
		case bson.A:
			doc = make(bson.D, len(t))
			for i, e := range t {
				doc[i] = bson.E{Key: strconv.Itoa(i), Value: e}
			}
		default:
			bad = true
		}
	}
	pretty := false
	if !bad && len(args) == 2 {
		b, isBool := args[1].Export().(bool)
		bad, pretty = !isBool, b
	}
	if bad {
		v.throwStatus(codeToStrictJSONArgs, "tostrictjson takes a single BSON object argument, and on optional boolean argument for prettyPrint -- tostrictjson(obj, prettyPrint = false)")
	}
	var b strings.Builder
	p := 0
	if pretty {
		p = 1
	}
	if err := writeStrictDoc(&b, doc, p, false); err != nil {
		v.throwStatus(codeNotJSONNumber, err.Error())
	}
	return v.rt.ToValue(b.String())
}

// writeStrictDoc writes d as mongod's LegacyStrict generator does:
// "{ "k" : v, ... }" (a space inside the braces, " : " after a name),
// "{}" when empty; pretty > 0 puts each element on a line indented by
// 4*pretty spaces and the closing brace on its own line.
func writeStrictDoc(b *strings.Builder, d bson.D, pretty int, isArray bool) error {
	open, closing := byte('{'), byte('}')
	if isArray {
		open, closing = '[', ']'
	}
	if len(d) == 0 {
		b.WriteByte(open)
		b.WriteByte(closing)
		return nil
	}
	b.WriteByte(open)
	inner := 0
	if pretty > 0 {
		inner = pretty + 1
	}
	for i, e := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		if inner > 0 {
			b.WriteString("\n" + strings.Repeat(" ", (inner-1)*4))
		}
		if !isArray {
			b.WriteByte(' ')
			writeStrictString(b, e.Key)
			b.WriteString(" :")
			if inner > 0 {
				b.WriteByte(' ')
			}
		}
		b.WriteByte(' ')
		if err := writeStrictValue(b, e.Value, inner); err != nil {
			return err
		}
	}
	b.WriteByte(' ')
	if pretty > 0 {
		b.WriteString("\n" + strings.Repeat(" ", (pretty-1)*4))
	}
	b.WriteByte(closing)
	return nil
}

// writeStrictValue writes one value in the LegacyStrict form: numbers
// as %.16g, a long {"$numberLong" : "n"}, a date {"$date" : "<local ISO
// time>"} (or {"$date" : {"$numberLong" : "n"}} before 1970 or after
// 9999), the other BSON types as their $-documents.
func writeStrictValue(b *strings.Builder, x any, pretty int) error {
	switch t := x.(type) {
	case bson.D:
		return writeStrictDoc(b, t, pretty, false)
	case bson.A:
		d := make(bson.D, len(t))
		for i, e := range t {
			d[i] = bson.E{Key: strconv.Itoa(i), Value: e}
		}
		return writeStrictDoc(b, d, pretty, true)
	case string:
		writeStrictString(b, t)
	case bson.Symbol:
		writeStrictString(b, string(t))
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case nil, bson.Null:
		b.WriteString("null")
	case bson.Undefined:
		b.WriteString(`{ "$undefined" : true }`)
	case int32:
		return writeStrictDouble(b, float64(t))
	case float64:
		return writeStrictDouble(b, t)
	case int64:
		fmt.Fprintf(b, `{ "$numberLong" : "%d" }`, t)
	case bson.Decimal128:
		fmt.Fprintf(b, `{ "$numberDecimal" : "%s" }`, t.String())
	case bson.DateTime:
		ms := int64(t)
		if ms >= 0 && ms < 253402300800000 { // through 9999
			tm := time.UnixMilli(ms).In(time.Local)
			fmt.Fprintf(b, `{ "$date" : "%s" }`, tm.Format("2006-01-02T15:04:05.000-0700"))
		} else {
			fmt.Fprintf(b, `{ "$date" : { "$numberLong" : "%d" } }`, ms)
		}
	case bson.ObjectID:
		fmt.Fprintf(b, `{ "$oid" : "%s" }`, t.Hex())
	case bson.Binary:
		fmt.Fprintf(b, `{ "$binary" : "%s", "$type" : "%02x" }`, base64.StdEncoding.EncodeToString(t.Data), t.Subtype)
	case bson.Regex:
		b.WriteString(`{ "$regex" : `)
		writeStrictString(b, t.Pattern)
		fmt.Fprintf(b, `, "$options" : "%s" }`, t.Options)
	case bson.JavaScript:
		b.WriteString(`{ "$code" : `)
		writeStrictString(b, string(t))
		b.WriteString(" }")
	case bson.CodeWithScope:
		b.WriteString(`{ "$code" : `)
		writeStrictString(b, string(t.Code))
		b.WriteString(`, "$scope" : `)
		scope, _ := t.Scope.(bson.D)
		if err := writeStrictDoc(b, scope, 0, false); err != nil {
			return err
		}
		b.WriteString(" }")
	case bson.Timestamp:
		fmt.Fprintf(b, `{ "$timestamp" : { "t" : %d, "i" : %d } }`, t.T, t.I)
	case bson.MinKey:
		b.WriteString(`{ "$minKey" : 1 }`)
	case bson.MaxKey:
		b.WriteString(`{ "$maxKey" : 1 }`)
	case bson.DBPointer:
		fmt.Fprintf(b, `{ "$ref" : "%s", "$id" : "%s" }`, t.DB, t.Pointer.Hex())
	default:
		writeStrictString(b, fmt.Sprint(t))
	}
	return nil
}

// writeStrictDouble writes f as C's %.16g, NaN and the infinities by
// name.
func writeStrictDouble(b *strings.Builder, f float64) error {
	switch {
	case math.IsNaN(f):
		b.WriteString("NaN")
	case math.IsInf(f, 1):
		b.WriteString("Infinity")
	case math.IsInf(f, -1):
		b.WriteString("-Infinity")
	default:
		b.WriteString(strconv.FormatFloat(f, 'g', 16, 64))
	}
	return nil
}

// writeStrictString writes s quoted, escaped as mongod's str::escape
// escapes: the quote, the backslash, \b \f \n \r \t, and the other
// control characters as \u00xx.
func writeStrictString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}
