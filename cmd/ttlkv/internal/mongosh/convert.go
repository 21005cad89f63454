package mongosh

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// maxDepth bounds the nesting the converters follow, so that a cyclic
// JavaScript object is an error rather than a stack overflow. It is
// above the document limit (100) so that the engine, not the shell,
// reports over-deep documents with MongoDB's code.
const maxDepth = 180

// box holds a BSON value that JavaScript has no native type for
// (ObjectId, Long, Decimal128, ...). It hangs off a wrapper object under
// a private symbol, so scripts cannot alter it and conversions back to
// BSON are exact.
type box struct{ v any }

// dbRef is a DBRef: stored as the document {$ref, $id, $db, fields...},
// shown as mongosh shows it, DBRef('coll', id[, 'db'][, fields]).
type dbRef struct {
	Coll   string
	ID     any
	DB     string // "" for none
	Fields bson.D // the document's other fields
}

// doc is the document r is stored as.
func (r dbRef) doc() bson.D {
	d := bson.D{{Key: "$ref", Value: r.Coll}, {Key: "$id", Value: r.ID}}
	if r.DB != "" {
		d = append(d, bson.E{Key: "$db", Value: r.DB})
	}
	return append(d, r.Fields...)
}

// asDBRef reads d as the bson library under mongosh reads a document
// into a DBRef: every $ key one of $ref, $id and $db, $ref a string,
// $id there and not null, $db (if there) a string.
func asDBRef(d bson.D) (dbRef, bool) {
	var r dbRef
	var hasRef, hasID bool
	for _, e := range d {
		switch {
		case e.Key == "$ref":
			str, ok := e.Value.(string)
			if !ok {
				return r, false
			}
			r.Coll, hasRef = str, true
		case e.Key == "$id":
			if e.Value == nil {
				return r, false
			}
			r.ID, hasID = e.Value, true
		case e.Key == "$db":
			str, ok := e.Value.(string)
			if !ok {
				return r, false
			}
			r.DB = str
		case strings.HasPrefix(e.Key, "$"):
			return r, false
		default:
			r.Fields = append(r.Fields, e)
		}
	}
	return r, hasRef && hasID
}

// toBSONDoc converts a JavaScript object to a document. Anything other
// than a plain object (an array, a date, a BSON wrapper) is an error
// naming what was given.
func (s *Shell) toBSONDoc(v goja.Value, what string) (bson.D, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return bson.D{}, nil
	}
	o, ok := v.(*goja.Object)
	if !ok || o.ClassName() == "Array" || s.boxOf(o) != nil || o.ClassName() == "Date" || o.ClassName() == "RegExp" {
		return nil, fmt.Errorf("%s must be an object, got %s", what, s.describe(v))
	}
	x, err := s.toBSON(v, 0)
	if err != nil {
		return nil, err
	}
	d, ok := x.(bson.D)
	if !ok {
		return nil, fmt.Errorf("%s must be an object, got %s", what, s.describe(v))
	}
	return d, nil
}

// toBSON converts a JavaScript value to its BSON value with mongosh's
// rules: an integral number that fits in 32 bits becomes int32, any
// other number a double; undefined becomes null; functions inside
// objects are skipped, as the Node driver skips them.
func (s *Shell) toBSON(v goja.Value, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("value nested more than %d levels deep (is it cyclic?)", maxDepth)
	}
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, nil
	}
	if o, ok := v.(*goja.Object); ok {
		return s.objectToBSON(o, depth)
	}
	switch x := v.Export().(type) {
	case bool:
		return x, nil
	case string:
		return x, nil
	case int64:
		if goja.IsBigInt(v) {
			return x, nil
		}
		return numberToBSON(float64(x)), nil
	case float64:
		return numberToBSON(x), nil
	case *big.Int:
		if !x.IsInt64() {
			return nil, fmt.Errorf("BigInt %s does not fit in 64 bits", x)
		}
		return x.Int64(), nil
	}
	return nil, fmt.Errorf("cannot convert %s to BSON", s.describe(v))
}

// numberToBSON applies mongosh's number rule: integral values that fit
// in 32 bits are int32 (but -0 stays a double), everything else double.
func numberToBSON(f float64) any {
	if f == math.Trunc(f) && !math.IsInf(f, 0) && f >= math.MinInt32 && f <= math.MaxInt32 {
		if f == 0 && math.Signbit(f) {
			return f
		}
		return int32(f)
	}
	return f
}

func (s *Shell) objectToBSON(o *goja.Object, depth int) (any, error) {
	if b := s.boxOf(o); b != nil {
		if r, ok := b.v.(dbRef); ok {
			return r.doc(), nil
		}
		return b.v, nil
	}
	switch o.ClassName() {
	case "Array":
		n := int(o.Get("length").ToInteger())
		a := make(bson.A, 0, n)
		for i := 0; i < n; i++ {
			e, err := s.toBSON(o.Get(fmt.Sprint(i)), depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, e)
		}
		return a, nil
	case "Date":
		ms := s.callMethod(o, "getTime").ToFloat()
		if math.IsNaN(ms) {
			return nil, fmt.Errorf("cannot store an invalid Date")
		}
		return bson.DateTime(int64(ms)), nil
	case "RegExp":
		return bson.Regex{Pattern: o.Get("source").String(), Options: regexOptions(o.Get("flags").String())}, nil
	case "Function":
		if o == s.minKeyCtor {
			return bson.MinKey{}, nil
		}
		if o == s.maxKeyCtor {
			return bson.MaxKey{}, nil
		}
		// As mongosh stores it: the function's source as JavaScript code.
		return bson.JavaScript(o.String()), nil

	case "Number", "String", "Boolean":
		return s.toBSON(s.callMethod(o, "valueOf"), depth)
	}
	if mapCtor, ok := s.rt.Get("Map").(*goja.Object); ok && s.rt.InstanceOf(o, mapCtor) {
		return s.mapToBSON(o, depth)
	}
	keys := o.Keys()
	d := make(bson.D, 0, len(keys))
	for _, k := range keys {
		ev := o.Get(k)
		e, err := s.toBSON(ev, depth+1)
		if err != nil {
			return nil, err
		}
		d = append(d, bson.E{Key: k, Value: e})
	}
	return d, nil
}

// mapToBSON stores a Map as mongosh does: a document of its entries.
func (s *Shell) mapToBSON(o *goja.Object, depth int) (any, error) {
	from, _ := goja.AssertFunction(s.rt.Get("Array").ToObject(s.rt).Get("from"))
	pairs, err := from(goja.Undefined(), o)
	if err != nil {
		return nil, err
	}
	po := pairs.ToObject(s.rt)
	n := int(po.Get("length").ToInteger())
	d := make(bson.D, 0, n)
	for i := 0; i < n; i++ {
		pair := po.Get(fmt.Sprint(i)).ToObject(s.rt)
		e, err := s.toBSON(pair.Get("1"), depth+1)
		if err != nil {
			return nil, err
		}
		d = append(d, bson.E{Key: pair.Get("0").String(), Value: e})
	}
	return d, nil
}

// regexOptions keeps the JavaScript flags BSON knows (i, m, s, u) in
// BSON's alphabetical order; g and y have no meaning in a query.
func regexOptions(flags string) string {
	var keep []byte
	for _, c := range []byte(flags) {
		if strings.IndexByte("imsux", c) >= 0 {
			keep = append(keep, c)
		}
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i] < keep[j] })
	return string(keep)
}

// toJS converts a BSON value to JavaScript the way mongosh shows it:
// int32 and double become numbers, int64 a Long, dates Date objects,
// regular expressions RegExp objects (a BSONRegExp wrapper when
// JavaScript cannot compile the pattern), and every other BSON type a
// wrapper that converts back to exactly the same value.
func (s *Shell) toJS(v any) goja.Value {
	rt := s.rt
	switch x := v.(type) {
	case nil:
		return goja.Null()
	case bson.D:
		if r, ok := asDBRef(x); ok {
			return s.wrap(s.protos.dbRef, r)
		}
		o := rt.NewObject()
		for _, e := range x {
			_ = o.Set(e.Key, s.toJS(e.Value))
		}
		return o
	case bson.M:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := rt.NewObject()
		for _, k := range keys {
			_ = o.Set(k, s.toJS(x[k]))
		}
		return o
	case bson.A:
		items := make([]any, len(x))
		for i, e := range x {
			items[i] = s.toJS(e)
		}
		return rt.NewArray(items...)
	case []any:
		return s.toJS(bson.A(x))
	case string:
		return rt.ToValue(x)
	case bool:
		return rt.ToValue(x)
	case int32:
		return rt.ToValue(int64(x))
	case int:
		return rt.ToValue(int64(x))
	case float64:
		return rt.ToValue(x)
	case int64:
		return s.wrap(s.protos.long, x)
	case bson.DateTime:
		d, err := rt.New(rt.Get("Date"), rt.ToValue(float64(x)))
		if err != nil {
			return goja.Null()
		}
		return d
	case bson.Regex:
		flags := strings.Map(func(r rune) rune {
			if strings.ContainsRune("imsu", r) {
				return r
			}
			return -1
		}, x.Options)
		if flags == x.Options {
			if re, err := rt.New(rt.Get("RegExp"), rt.ToValue(x.Pattern), rt.ToValue(flags)); err == nil {
				return re
			}
		}
		return s.wrap(s.protos.regex, x)
	case bson.ObjectID:
		return s.wrap(s.protos.objectID, x)
	case bson.Decimal128:
		return s.wrap(s.protos.decimal, x)
	case bson.Timestamp:
		return s.wrap(s.protos.timestamp, x)
	case bson.Binary:
		if x.Subtype == 4 && len(x.Data) == 16 {
			return s.wrap(s.protos.uuid, x) // read back, a subtype 4 binary is a UUID
		}
		return s.wrap(s.protos.binary, x)
	case bson.JavaScript, bson.CodeWithScope:
		return s.wrap(s.protos.code, x)
	case bson.Symbol:
		return rt.ToValue(string(x)) // read back, a symbol is a string
	case bson.MinKey:
		return s.wrap(s.protos.minKey, x)
	case bson.MaxKey:
		return s.wrap(s.protos.maxKey, x)
	case bson.Undefined:
		return goja.Undefined()
	case bson.Null:
		return goja.Null()
	}
	return s.wrap(s.protos.other, v)
}

// wrap makes a wrapper object with the given prototype holding v.
func (s *Shell) wrap(proto *goja.Object, v any) *goja.Object {
	o := s.rt.CreateObject(proto)
	_ = o.DefineDataPropertySymbol(s.boxSym, s.rt.ToValue(&box{v: v}), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	return o
}

// boxOf returns the BSON value held by a wrapper object, or nil.
func (s *Shell) boxOf(o *goja.Object) *box {
	if o == nil {
		return nil
	}
	bv := o.GetSymbol(s.boxSym)
	if bv == nil {
		return nil
	}
	b, _ := bv.Export().(*box)
	return b
}

// boxed returns the BSON value of v if v is a wrapper object.
func (s *Shell) boxed(v goja.Value) (any, bool) {
	o, ok := v.(*goja.Object)
	if !ok {
		return nil, false
	}
	if b := s.boxOf(o); b != nil {
		return b.v, true
	}
	return nil, false
}

func (s *Shell) callMethod(o *goja.Object, name string, args ...goja.Value) goja.Value {
	f, ok := goja.AssertFunction(o.Get(name))
	if !ok {
		return goja.Undefined()
	}
	r, err := f(o, args...)
	if err != nil {
		panic(err)
	}
	return r
}

// describe names a value's type for error messages.
func (s *Shell) describe(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	if o, ok := v.(*goja.Object); ok {
		if b := s.boxOf(o); b != nil {
			return fmt.Sprintf("%T", b.v)
		}
		if o.ClassName() == "Object" {
			return "object"
		}
		return o.ClassName()
	}
	switch v.Export().(type) {
	case string:
		return fmt.Sprintf("string %q", v.String())
	case bool:
		return "boolean " + v.String()
	case int64, float64:
		return "number " + v.String()
	}
	return v.String()
}

// ParseDocument evaluates src, one object literal in mongosh's syntax
// (unquoted keys, single quotes, ObjectId(...), ISODate(...), comments),
// and returns it as a document, as mongoexport's --query accepts it. No
// command runs; an error says what is wrong with src.
func ParseDocument(src string) (bson.D, error) {
	p, err := NewDocParser()
	if err != nil {
		return nil, err
	}
	return p.Parse(src)
}

// DocParser reads object literals in mongosh's syntax, as ParseDocument
// does, with one shell kept for all of them, so parsing many is cheap.
// A DocParser is not safe for concurrent use.
type DocParser struct{ s *Shell }

// NewDocParser returns a DocParser; it runs no command.
func NewDocParser() (*DocParser, error) {
	s, err := New(nil, Options{})
	if err != nil {
		return nil, err
	}
	return &DocParser{s: s}, nil
}

// Parse evaluates src, one object literal, and returns it as a
// document; an error says what is wrong with src.
func (p *DocParser) Parse(src string) (bson.D, error) {
	return p.parse(src)
}

// ParseLiteral is Parse for data rather than a user's own query: src
// must be a literal (objects, arrays, strings, numbers, regular
// expressions, undefined, Infinity, NaN, and the shell's constructors
// such as ObjectId, NumberLong or ISODate called on literals). Anything
// else, a function or a loop, is refused before it runs, so no input
// can keep the parser busy.
func (p *DocParser) ParseLiteral(src string) (bson.D, error) {
	prog, err := parser.ParseFile(nil, "<document>", "(\n"+src+"\n)", 0)
	if err != nil {
		return nil, &ScriptError{Name: "SyntaxError", Message: err.Error()}
	}
	if len(prog.Body) != 1 {
		return nil, &ScriptError{Name: "SyntaxError", Message: "not one document"}
	}
	st, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil, &ScriptError{Name: "SyntaxError", Message: "not one document"}
	}
	if err := checkLiteral(st.Expression, 0); err != nil {
		return nil, err
	}
	return p.parse(src)
}

// literalCalls are the constructors ParseLiteral lets a literal call:
// the legacy Extended JSON forms of the old shell.
var literalCalls = map[string]bool{
	"BinData": true, "Boolean": true, "Date": true, "DBPointer": true, "DBRef": true, "HexData": true,
	"ISODate": true, "MaxKey": true, "MinKey": true, "NumberDecimal": true, "NumberInt": true,
	"NumberLong": true, "ObjectId": true, "RegExp": true, "Timestamp": true, "UUID": true,
}

// literalNames are the names a literal may hold as values.
var literalNames = map[string]bool{"undefined": true, "Infinity": true, "NaN": true, "MinKey": true, "MaxKey": true}

// checkLiteral refuses an expression that is not a literal.
func checkLiteral(e ast.Expression, depth int) error {
	if depth > maxLiteralDepth {
		return &ScriptError{Name: "SyntaxError", Message: "nested too deeply"}
	}
	notLiteral := func(what string) error {
		return &ScriptError{Name: "SyntaxError", Message: what + " is not allowed in a document"}
	}
	switch x := e.(type) {
	case *ast.StringLiteral, *ast.NumberLiteral, *ast.BooleanLiteral, *ast.NullLiteral, *ast.RegExpLiteral:
		return nil
	case *ast.Identifier:
		if !literalNames[string(x.Name)] {
			return notLiteral("the name " + string(x.Name))
		}
		return nil
	case *ast.UnaryExpression:
		if x.Postfix || (x.Operator != token.MINUS && x.Operator != token.PLUS) {
			return notLiteral("the operator " + x.Operator.String())
		}
		return checkLiteral(x.Operand, depth+1)
	case *ast.ArrayLiteral:
		for _, v := range x.Value {
			if v == nil {
				continue // a hole: [1,,2]
			}
			if err := checkLiteral(v, depth+1); err != nil {
				return err
			}
		}
		return nil
	case *ast.ObjectLiteral:
		for _, p := range x.Value {
			kp, ok := p.(*ast.PropertyKeyed)
			if !ok || kp.Kind != ast.PropertyKindValue || kp.Computed {
				return notLiteral("a property that is not key: value")
			}
			if err := checkLiteral(kp.Value, depth+1); err != nil {
				return err
			}
		}
		return nil
	case *ast.CallExpression:
		return checkLiteralCall(x.Callee, x.ArgumentList, depth, notLiteral)
	case *ast.NewExpression:
		return checkLiteralCall(x.Callee, x.ArgumentList, depth, notLiteral)
	}
	return notLiteral(fmt.Sprintf("%T", e)[len("*ast."):])
}

// maxLiteralDepth bounds the nesting ParseLiteral reads.
const maxLiteralDepth = 200

func checkLiteralCall(callee ast.Expression, args []ast.Expression, depth int, notLiteral func(string) error) error {
	id, ok := callee.(*ast.Identifier)
	if !ok || !literalCalls[string(id.Name)] {
		return notLiteral("a call other than of ObjectId, NumberLong, ISODate and the like")
	}
	for _, a := range args {
		if err := checkLiteral(a, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (p *DocParser) parse(src string) (bson.D, error) {
	s := p.s
	v, err := s.exec("<query>", "(\n"+src+"\n)")
	if err != nil {
		return nil, err
	}
	var d bson.D
	err = s.guard(func() {
		var cerr error
		d, cerr = s.toBSONDoc(v, "query")
		s.check(cerr)
	})
	return d, err
}
