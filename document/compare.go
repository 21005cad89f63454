package document

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Type-class ranks returned by CanonicalType. They are MongoDB's
// canonicalizeBSONType values, so their order is the BSON comparison
// order of the classes: every value of a lower class sorts before every
// value of a higher class. Numbers of all widths share one class, as do
// strings and symbols.
const (
	ClassMinKey        = -1
	ClassUndefined     = 0
	ClassNull          = 5
	ClassNumber        = 10
	ClassString        = 15 // string and symbol
	ClassObject        = 20
	ClassArray         = 25
	ClassBinary        = 30
	ClassObjectID      = 35
	ClassBool          = 40
	ClassDate          = 45
	ClassTimestamp     = 47
	ClassRegex         = 50
	ClassDBPointer     = 55
	ClassJavaScript    = 60
	ClassCodeWithScope = 65
	ClassMaxKey        = 127
	// ClassUnknown is the rank of a value that is not canonical and that
	// NormalizeValue cannot convert. Such values sort after MaxKey so that
	// Compare stays a total order; they never reach storage.
	ClassUnknown = 128
)

// CanonicalType returns the type-class rank Compare orders by (one of the
// Class constants). Non-canonical inputs that NormalizeValue accepts (Go
// ints, bson.Null, bson.M, ...) get the rank of their canonical form.
func CanonicalType(v any) int {
	switch v.(type) {
	case nil:
		return ClassNull
	case float64, int32, int64, bson.Decimal128:
		return ClassNumber
	case string, bson.Symbol:
		return ClassString
	case bson.D:
		return ClassObject
	case bson.A:
		return ClassArray
	case bson.Binary:
		return ClassBinary
	case bson.ObjectID:
		return ClassObjectID
	case bool:
		return ClassBool
	case bson.DateTime:
		return ClassDate
	case bson.Timestamp:
		return ClassTimestamp
	case bson.Regex:
		return ClassRegex
	case bson.DBPointer:
		return ClassDBPointer
	case bson.JavaScript:
		return ClassJavaScript
	case bson.CodeWithScope:
		return ClassCodeWithScope
	case bson.MinKey:
		return ClassMinKey
	case bson.MaxKey:
		return ClassMaxKey
	case bson.Undefined:
		return ClassUndefined
	case bson.Null:
		return ClassNull
	}
	if c, ok := coerce(v); ok {
		return CanonicalType(c)
	}
	return ClassUnknown
}

// TypeName returns the $type alias of v's BSON type ("double", "string",
// "object", "array", "binData", "undefined", "objectId", "bool", "date",
// "null", "regex", "dbPointer", "javascript", "symbol",
// "javascriptWithScope", "int", "timestamp", "long", "decimal", "minKey",
// "maxKey"), or "" when v has no BSON type.
func TypeName(v any) string {
	switch TypeNumber(v) {
	case 1:
		return "double"
	case 2:
		return "string"
	case 3:
		return "object"
	case 4:
		return "array"
	case 5:
		return "binData"
	case 6:
		return "undefined"
	case 7:
		return "objectId"
	case 8:
		return "bool"
	case 9:
		return "date"
	case 10:
		return "null"
	case 11:
		return "regex"
	case 12:
		return "dbPointer"
	case 13:
		return "javascript"
	case 14:
		return "symbol"
	case 15:
		return "javascriptWithScope"
	case 16:
		return "int"
	case 17:
		return "timestamp"
	case 18:
		return "long"
	case 19:
		return "decimal"
	case -1:
		return "minKey"
	case 127:
		return "maxKey"
	}
	return ""
}

// TypeNumber returns v's BSON element type number (1 double, 2 string,
// 3 object, 4 array, 5 binData, 6 undefined, 7 objectId, 8 bool, 9 date,
// 10 null, 11 regex, 12 dbPointer, 13 javascript, 14 symbol,
// 15 javascriptWithScope, 16 int, 17 timestamp, 18 long, 19 decimal,
// -1 minKey, 127 maxKey), or 0 when v has no BSON type.
func TypeNumber(v any) int {
	switch v.(type) {
	case float64:
		return 1
	case string:
		return 2
	case bson.D:
		return 3
	case bson.A:
		return 4
	case bson.Binary:
		return 5
	case bson.Undefined:
		return 6
	case bson.ObjectID:
		return 7
	case bool:
		return 8
	case bson.DateTime:
		return 9
	case nil, bson.Null:
		return 10
	case bson.Regex:
		return 11
	case bson.DBPointer:
		return 12
	case bson.JavaScript:
		return 13
	case bson.Symbol:
		return 14
	case bson.CodeWithScope:
		return 15
	case int32:
		return 16
	case bson.Timestamp:
		return 17
	case int64:
		return 18
	case bson.Decimal128:
		return 19
	case bson.MinKey:
		return -1
	case bson.MaxKey:
		return 127
	}
	if c, ok := coerce(v); ok {
		return TypeNumber(c)
	}
	return 0
}

// IsNumber reports whether v is a number: int32, int64, float64 or
// Decimal128 (or a Go integer or float32 that normalises to one).
func IsNumber(v any) bool { return CanonicalType(v) == ClassNumber }

// Get returns the value of d's first top-level field named key.
func Get(d bson.D, key string) (any, bool) {
	for i := range d {
		if d[i].Key == key {
			return d[i].Value, true
		}
	}
	return nil, false
}

// ReplyOK reports whether a command reply says ok: its first ok field
// is 1 (a double, an int32 or an int64) or true. A reply without one is
// not ok.
func ReplyOK(reply bson.D) bool {
	v, _ := Get(reply, "ok")
	switch n := v.(type) {
	case float64:
		return n == 1
	case int32:
		return n == 1
	case int64:
		return n == 1
	case bool:
		return n
	}
	return false
}

// Lookup follows a dotted path from d. Each component selects the first
// field of that name in a document; in an array, a component that is a
// non-negative decimal integer without leading zeros selects that element.
// Lookup does not expand arrays: "a.b" through an array of documents
// finds nothing (query matching does its own traversal). d must be
// canonical (nested documents bson.D, arrays bson.A). The boolean is
// false when the path does not exist.
func Lookup(d bson.D, path string) (any, bool) {
	var cur any = d
	for {
		comp, rest, more := strings.Cut(path, ".")
		switch c := cur.(type) {
		case bson.D:
			v, ok := Get(c, comp)
			if !ok {
				return nil, false
			}
			cur = v
		case bson.A:
			i, ok := arrayIndex(comp)
			if !ok || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
		if !more {
			return cur, true
		}
		path = rest
	}
}

// arrayIndex parses a path component as an array index the way MongoDB
// does: decimal digits only, no sign, no leading zeros (except "0").
func arrayIndex(s string) (int, bool) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// Equal reports whether Compare(a, b) == 0. Note that Equal(int32(1),
// float64(1)) is true: numbers compare by value.
func Equal(a, b any) bool { return Compare(a, b) == 0 }

// Compare returns -1, 0 or +1 as a sorts before, equal to or after b in
// MongoDB's BSON comparison order. Values are ordered first by
// CanonicalType, then within the class: numbers by exact numeric value
// (NaN equals NaN and sorts before every other number, -0 equals 0),
// strings and symbols by bytes, documents field by field (type class,
// field name, value, then length), arrays element by element then by
// length, binary by length, subtype, then bytes, ObjectIds by bytes,
// false before true, dates as signed milliseconds, timestamps as unsigned
// (T, I), regexes by pattern then options, DBPointers by namespace length,
// namespace, then id, JavaScript by code, code-with-scope by code then
// scope. Compare is a total order on canonical values; it never panics.
func Compare(a, b any) int {
	if !isCanonicalType(a) {
		if c, ok := coerce(a); ok {
			a = c
		}
	}
	if !isCanonicalType(b) {
		if c, ok := coerce(b); ok {
			b = c
		}
	}
	ca, cb := CanonicalType(a), CanonicalType(b)
	if ca != cb {
		return cmp.Compare(ca, cb)
	}
	switch ca {
	case ClassMinKey, ClassMaxKey, ClassUndefined, ClassNull:
		return 0
	case ClassNumber:
		return compareNumbers(canon(a), canon(b))
	case ClassString:
		return strings.Compare(stringOf(a), stringOf(b))
	case ClassObject:
		return compareDocs(canonAs[bson.D](a), canonAs[bson.D](b))
	case ClassArray:
		return compareArrays(canonAs[bson.A](a), canonAs[bson.A](b))
	case ClassBinary:
		x, y := a.(bson.Binary), b.(bson.Binary)
		if c := cmp.Compare(len(x.Data), len(y.Data)); c != 0 {
			return c
		}
		if c := cmp.Compare(int(x.Subtype), int(y.Subtype)); c != 0 {
			return c
		}
		return bytes.Compare(x.Data, y.Data)
	case ClassObjectID:
		x, y := a.(bson.ObjectID), b.(bson.ObjectID)
		return bytes.Compare(x[:], y[:])
	case ClassBool:
		x, y := a.(bool), b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		default:
			return 1
		}
	case ClassDate:
		return cmp.Compare(int64(canon(a).(bson.DateTime)), int64(canon(b).(bson.DateTime)))
	case ClassTimestamp:
		x, y := a.(bson.Timestamp), b.(bson.Timestamp)
		if c := cmp.Compare(x.T, y.T); c != 0 {
			return c
		}
		return cmp.Compare(x.I, y.I)
	case ClassRegex:
		x, y := a.(bson.Regex), b.(bson.Regex)
		if c := strings.Compare(x.Pattern, y.Pattern); c != 0 {
			return c
		}
		return strings.Compare(x.Options, y.Options)
	case ClassDBPointer:
		x, y := a.(bson.DBPointer), b.(bson.DBPointer)
		if c := cmp.Compare(len(x.DB), len(y.DB)); c != 0 {
			return c
		}
		if c := strings.Compare(x.DB, y.DB); c != 0 {
			return c
		}
		return bytes.Compare(x.Pointer[:], y.Pointer[:])
	case ClassJavaScript:
		return strings.Compare(string(a.(bson.JavaScript)), string(b.(bson.JavaScript)))
	case ClassCodeWithScope:
		x, y := a.(bson.CodeWithScope), b.(bson.CodeWithScope)
		if c := strings.Compare(string(x.Code), string(y.Code)); c != 0 {
			return c
		}
		return Compare(scopeDoc(x.Scope), scopeDoc(y.Scope))
	}
	// ClassUnknown: order by Go type, then by formatted value, so the
	// order stays total even for values that never reach storage.
	ta, tb := reflect.TypeOf(a).String(), reflect.TypeOf(b).String()
	if c := strings.Compare(ta, tb); c != 0 {
		return c
	}
	return strings.Compare(fmt.Sprintf("%#v", a), fmt.Sprintf("%#v", b))
}

func scopeDoc(s any) any {
	if s == nil {
		return bson.D{}
	}
	return s
}

func compareDocs(a, b bson.D) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if c := cmp.Compare(CanonicalType(a[i].Value), CanonicalType(b[i].Value)); c != 0 {
			return c
		}
		if c := strings.Compare(a[i].Key, b[i].Key); c != 0 {
			return c
		}
		if c := Compare(a[i].Value, b[i].Value); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func compareArrays(a, b bson.A) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if c := Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// canon returns the canonical form of a scalar, or v itself.
func canon(v any) any {
	switch v.(type) {
	case nil, float64, int32, int64, bson.Decimal128, string, bool, bson.DateTime:
		return v
	}
	if c, ok := coerce(v); ok {
		return c
	}
	return v
}

// canonAs returns v as a T (a document or an array), directly or through
// its canonical form; T's zero value (nil) when it is neither.
func canonAs[T bson.D | bson.A](v any) T {
	if t, ok := v.(T); ok {
		return t
	}
	if c, ok := coerce(v); ok {
		if t, ok := c.(T); ok {
			return t
		}
	}
	return nil
}

func stringOf(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case bson.Symbol:
		return string(s)
	}
	if c, ok := coerce(v); ok {
		if s, ok := c.(string); ok {
			return s
		}
	}
	return ""
}

// coerce converts a non-canonical value to its canonical form the way
// the driver would encode it. It reports false for values it cannot
// convert. It is the slow path of Compare and friends.
func coerce(v any) (any, bool) {
	switch x := v.(type) {
	case bson.Null:
		return nil, true
	case int:
		return fitInt(int64(x)), true
	case int8:
		return int32(x), true
	case int16:
		return int32(x), true
	case uint8:
		return int32(x), true
	case uint16:
		return int32(x), true
	case uint32:
		return int64(x), true
	case float32:
		return float64(x), true
	case time.Time:
		return bson.NewDateTimeFromTime(x), true
	case bson.Symbol, bson.JavaScript:
		return v, true
	}
	c, err := NormalizeValue(v)
	if err != nil {
		return nil, false
	}
	if reflect.TypeOf(c) == reflect.TypeOf(v) {
		// Already canonical (or unchanged): avoid looping.
		return c, isCanonicalType(c)
	}
	return c, true
}

func isCanonicalType(v any) bool {
	switch v.(type) {
	case nil, bson.D, bson.A, float64, string, bson.Binary, bson.Undefined, bson.ObjectID, bool,
		bson.DateTime, bson.Regex, bson.DBPointer, bson.JavaScript, bson.Symbol,
		bson.CodeWithScope, int32, bson.Timestamp, int64, bson.Decimal128, bson.MinKey, bson.MaxKey:
		return true
	}
	return false
}

// fitInt returns n as int32 when it fits, else as int64, as the driver
// encodes a Go int.
func fitInt(n int64) any {
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		return int32(n)
	}
	return n
}

// compareNumbers compares two canonical numbers exactly.
func compareNumbers(a, b any) int {
	switch x := a.(type) {
	case int32:
		switch y := b.(type) {
		case int32:
			return cmp.Compare(int64(x), int64(y))
		case int64:
			return cmp.Compare(int64(x), y)
		case float64:
			return cmp.Compare(float64(x), y) // int32 converts to float64 exactly
		}
	case int64:
		switch y := b.(type) {
		case int32:
			return cmp.Compare(x, int64(y))
		case int64:
			return cmp.Compare(x, y)
		case float64:
			return cmpInt64Float(x, y)
		}
	case float64:
		switch y := b.(type) {
		case int32:
			return cmp.Compare(x, float64(y))
		case int64:
			return -cmpInt64Float(y, x)
		case float64:
			return cmp.Compare(x, y)
		}
	}
	// At least one side is Decimal128 (or an unexpected type): exact
	// arithmetic.
	return compareExact(toExact(a), toExact(b))
}

// cmpInt64Float compares an int64 with a float64 exactly, without
// rounding the integer to a float.
func cmpInt64Float(i int64, f float64) int {
	switch {
	case math.IsNaN(f):
		return 1
	case f >= 1<<63: // also +Inf
		return -1
	case f < -(1 << 63): // also -Inf
		return 1
	}
	t := math.Trunc(f)
	ti := int64(t) // exact: -2^63 <= t < 2^63
	if c := cmp.Compare(i, ti); c != 0 {
		return c
	}
	frac := f - t // exact
	switch {
	case frac > 0:
		return -1
	case frac < 0:
		return 1
	}
	return 0
}

// exactNum is a number in a form that compares exactly: NaN, ±Inf, or a
// finite rational.
type exactNum struct {
	nan bool
	inf int // -1, 0, +1
	r   *big.Rat
}

// maxDecimalSignificand is 10^34 - 1; larger significands are
// non-canonical and are zero by the decimal128 specification.
var maxDecimalSignificand = func() *big.Int {
	n := new(big.Int).Exp(big.NewInt(10), big.NewInt(34), nil)
	return n.Sub(n, big.NewInt(1))
}()

func toExact(v any) exactNum {
	switch x := v.(type) {
	case int32:
		return exactNum{r: new(big.Rat).SetInt64(int64(x))}
	case int64:
		return exactNum{r: new(big.Rat).SetInt64(x)}
	case float64:
		switch {
		case math.IsNaN(x):
			return exactNum{nan: true}
		case math.IsInf(x, 1):
			return exactNum{inf: 1}
		case math.IsInf(x, -1):
			return exactNum{inf: -1}
		}
		return exactNum{r: new(big.Rat).SetFloat64(x)}
	case bson.Decimal128:
		if x.IsNaN() {
			return exactNum{nan: true}
		}
		if i := x.IsInf(); i != 0 {
			return exactNum{inf: i}
		}
		sig, exp, err := x.BigInt()
		if err != nil {
			return exactNum{nan: true}
		}
		if new(big.Int).Abs(sig).Cmp(maxDecimalSignificand) > 0 {
			return exactNum{r: new(big.Rat)}
		}
		r := new(big.Rat).SetInt(sig)
		if exp != 0 {
			p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(absInt(exp))), nil)
			if exp > 0 {
				r.Mul(r, new(big.Rat).SetInt(p))
			} else {
				r.Quo(r, new(big.Rat).SetInt(p))
			}
		}
		return exactNum{r: r}
	}
	return exactNum{nan: true}
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func compareExact(a, b exactNum) int {
	switch {
	case a.nan && b.nan:
		return 0
	case a.nan:
		return -1
	case b.nan:
		return 1
	case a.inf != 0 || b.inf != 0:
		return cmp.Compare(a.inf, b.inf)
	}
	return a.r.Cmp(b.r)
}

// Int64 is the integer value of a numeric field as replies carry it:
// an int32 or int64 as is, a double truncated toward zero; 0 for
// anything else (a missing field, a string, Decimal128).
func Int64(v any) int64 {
	switch n := v.(type) {
	case int32:
		return int64(n)
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return 0
}

// SortFields returns v with the fields of every document in it, at any
// depth and inside arrays, ordered by name (bytewise); arrays keep their
// order. Comparing two values after SortFields compares them without
// regard to field order, as mongod does for time-series metas, a
// $jsonSchema enum and the documents of a change event's update.
func SortFields(v any) any {
	switch x := v.(type) {
	case bson.D:
		out := make(bson.D, len(x))
		for i, e := range x {
			out[i] = bson.E{Key: e.Key, Value: SortFields(e.Value)}
		}
		slices.SortStableFunc(out, func(a, b bson.E) int { return strings.Compare(a.Key, b.Key) })
		return out
	case bson.A:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = SortFields(e)
		}
		return out
	}
	return v
}
