package js

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// maxDepth bounds the nesting of a value a script returns.
const maxDepth = 150

// toJS converts a BSON value to the JavaScript value a script sees.
func (v *vm) toJS(x any) goja.Value {
	rt := v.rt
	switch t := x.(type) {
	case nil, bson.Null:
		return goja.Null()
	case bson.Undefined:
		return goja.Undefined()
	case bool:
		return rt.ToValue(t)
	case string:
		return rt.ToValue(t)
	case int32:
		return rt.ToValue(int64(t))
	case float64:
		return rt.ToValue(t)
	case int64:
		return v.box("long", t)
	case bson.D:
		return v.newDoc(t)
	case bson.A:
		items := make([]any, len(t))
		for i, e := range t {
			items[i] = v.toJS(e)
		}
		return rt.NewArray(items...)
	case bson.DateTime:
		d, err := rt.New(v.date, rt.ToValue(float64(t)))
		if err != nil {
			return v.box("opaque", t)
		}
		return d
	case bson.ObjectID:
		return v.box("oid", t)
	case bson.Regex:
		if flags, ok := jsRegexFlags(t.Options); ok {
			if re, err := rt.New(v.regexp, rt.ToValue(t.Pattern), rt.ToValue(flags)); err == nil {
				return re
			}
		}
		return v.box("regex", t)
	case bson.Decimal128:
		return v.box("decimal", t)
	case bson.Binary:
		return v.box("bindata", t)
	case bson.Timestamp:
		return v.box("timestamp", t)
	case bson.MinKey:
		return v.box("minkey", t)
	case bson.MaxKey:
		return v.box("maxkey", t)
	}
	return v.box("opaque", x)
}

// jsRegexFlags maps BSON regex options to RegExp flags; x has none.
func jsRegexFlags(opts string) (string, bool) {
	var b strings.Builder
	for _, c := range opts {
		switch c {
		case 'i', 'm', 's', 'u':
			b.WriteRune(c)
		default:
			return "", false
		}
	}
	return b.String(), true
}

// docObject is a document as a script sees it: its fields in their
// order, each converted when first read.
type docObject struct {
	v    *vm
	keys []string
	raw  map[string]any        // the document's own values
	vals map[string]goja.Value // values read or assigned
}

func (v *vm) newDoc(d bson.D) *goja.Object {
	o := &docObject{v: v, keys: make([]string, 0, len(d)), raw: make(map[string]any, len(d)), vals: map[string]goja.Value{}}
	for _, e := range d {
		if _, dup := o.raw[e.Key]; dup {
			continue
		}
		o.keys = append(o.keys, e.Key)
		o.raw[e.Key] = e.Value
	}
	return v.rt.NewDynamicObject(o)
}

func (o *docObject) Get(k string) goja.Value {
	if val, ok := o.vals[k]; ok {
		return val
	}
	r, ok := o.raw[k]
	if !ok {
		return nil
	}
	val := o.v.toJS(r)
	o.vals[k] = val
	return val
}

func (o *docObject) Set(k string, val goja.Value) bool {
	if _, ok := o.vals[k]; !ok {
		if _, ok := o.raw[k]; !ok {
			o.keys = append(o.keys, k)
		}
	}
	o.vals[k] = val
	return true
}

func (o *docObject) Has(k string) bool {
	if _, ok := o.vals[k]; ok {
		return true
	}
	_, ok := o.raw[k]
	return ok
}

func (o *docObject) Delete(k string) bool {
	if !o.Has(k) {
		return true
	}
	delete(o.vals, k)
	delete(o.raw, k)
	o.keys = slices.DeleteFunc(o.keys, func(s string) bool { return s == k })
	return true
}

func (o *docObject) Keys() []string { return slices.Clone(o.keys) }

// boxed is a BSON value JavaScript has no type for (and int64, ObjectId):
// an object of the type's prototype that converts back to the value.
type boxed struct {
	kind string
	val  any
}

func (b *boxed) Set(string, goja.Value) bool { return false }
func (b *boxed) Has(k string) bool           { return slices.Contains(b.Keys(), k) }
func (b *boxed) Delete(string) bool          { return false }
func (b *boxed) Keys() []string {
	switch t := b.val.(type) {
	case int64:
		if !exactFloat(t) {
			return []string{"floatApprox", "top", "bottom"}
		}
		return []string{"floatApprox"}
	case bson.ObjectID:
		return []string{"str"}
	case bson.Timestamp:
		return []string{"t", "i"}
	case bson.Binary:
		return []string{"type"}
	}
	return nil
}

// exactFloat reports whether n is within ±2^53, where every integer is
// a double (NumberLong shows the others as strings).
func exactFloat(n int64) bool { return n < 1<<53 && n > -(1<<53) }

// boxObject is the DynamicObject of a boxed value, which reads its
// properties through its runtime.
type boxObject struct {
	*boxed
	v *vm
}

func (b boxObject) Get(k string) goja.Value {
	rt := b.v.rt
	switch t := b.val.(type) {
	case int64:
		switch k {
		case "floatApprox":
			return rt.ToValue(float64(t))
		case "top":
			if !exactFloat(t) {
				return rt.ToValue(int64(int32(t >> 32)))
			}
		case "bottom":
			if !exactFloat(t) {
				return rt.ToValue(int64(uint32(t)))
			}
		}
	case bson.ObjectID:
		if k == "str" {
			return rt.ToValue(t.Hex())
		}
	case bson.Timestamp:
		switch k {
		case "t":
			return rt.ToValue(int64(t.T))
		case "i":
			return rt.ToValue(int64(t.I))
		}
	case bson.Binary:
		if k == "type" {
			return rt.ToValue(int64(t.Subtype))
		}
	}
	return nil
}

func (v *vm) box(kind string, x any) *goja.Object {
	o := v.rt.NewDynamicObject(boxObject{boxed: &boxed{kind: kind, val: x}, v: v})
	if p := v.protos[kind]; p != nil {
		_ = o.SetPrototype(p)
	}
	return o
}

// unbox returns the value of a boxed object.
func unbox(val goja.Value) (*boxed, bool) {
	o, ok := val.(*goja.Object)
	if !ok {
		return nil, false
	}
	b, ok := o.Export().(boxObject)
	if !ok {
		return nil, false
	}
	return b.boxed, true
}

// toBSON converts a script's value back to BSON, as mongod does: a
// number is a double, except where it replaces a field that was an
// int32 and is one still (orig is the value replaced); undefined stays
// undefined; a function becomes JavaScript code.
func (v *vm) toBSON(val goja.Value, orig any, depth int) (any, error) {
	if depth > maxDepth {
		return nil, document.Errorf(document.CodeBadValue, "Converting from JavaScript to BSON failed: Object is too deeply nested")
	}
	if val == nil || goja.IsUndefined(val) {
		return bson.Undefined{}, nil
	}
	if goja.IsNull(val) {
		return nil, nil
	}
	switch x := val.Export().(type) {
	case bool:
		return x, nil
	case string:
		return x, nil
	case int64:
		return number(float64(x), orig), nil
	case float64:
		return number(x, orig), nil
	}
	o, ok := val.(*goja.Object)
	if !ok {
		if goja.IsBigInt(val) {
			return val.ToFloat(), nil
		}
		return val.String(), nil
	}
	switch x := o.Export().(type) {
	case *docObject:
		d := make(bson.D, 0, len(x.keys))
		for _, k := range x.keys {
			if jv, ok := x.vals[k]; ok {
				bv, err := v.toBSON(jv, x.raw[k], depth+1)
				if err != nil {
					return nil, err
				}
				d = append(d, bson.E{Key: k, Value: bv})
				continue
			}
			d = append(d, bson.E{Key: k, Value: x.raw[k]})
		}
		return d, nil
	case boxObject:
		return x.val, nil
	}
	if x, ok, err := v.fromTypedObject(o, depth); ok {
		return x, err
	}
	switch o.ClassName() {
	case "Array":
		n := o.Get("length").ToInteger()
		a := make(bson.A, 0, n)
		for i := int64(0); i < n; i++ {
			bv, err := v.toBSON(o.Get(strconv.FormatInt(i, 10)), nil, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, bv)
		}
		return a, nil
	case "Date":
		ms := o.Get("getTime")
		if fn, ok := goja.AssertFunction(ms); ok {
			t, err := fn(o)
			if err != nil {
				return nil, err
			}
			f := t.ToFloat()
			if math.IsNaN(f) {
				return bson.DateTime(math.MinInt64), nil
			}
			return bson.DateTime(int64(f)), nil
		}
	case "RegExp":
		return bson.Regex{Pattern: o.Get("source").String(), Options: bsonRegexOptions(o.Get("flags").String())}, nil
	case "Function":
		return bson.JavaScript(o.String()), nil
	case "Number", "String", "Boolean":
		if fn, ok := goja.AssertFunction(o.Get("valueOf")); ok {
			prim, err := fn(o)
			if err != nil {
				return nil, err
			}
			if _, still := prim.(*goja.Object); !still {
				return v.toBSON(prim, orig, depth+1)
			}
		}
	}
	keys := o.Keys()
	d := make(bson.D, 0, len(keys))
	for _, k := range keys {
		bv, err := v.toBSON(o.Get(k), nil, depth+1)
		if err != nil {
			return nil, err
		}
		d = append(d, bson.E{Key: k, Value: bv})
	}
	return d, nil
}

// number is a JavaScript number as BSON: a double, or an int32 where it
// replaces an int32 field and is a whole int32 still.
func number(f float64, orig any) any {
	if _, wasInt := orig.(int32); wasInt && f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32 {
		return int32(f)
	}
	return f
}

func bsonRegexOptions(flags string) string {
	var out []byte
	for _, c := range []byte(flags) {
		switch c {
		case 'i', 'm', 's', 'u':
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return string(out)
}

// setupTypes installs the prototypes of the boxed types and the
// constructors scripts make such values with (NumberLong, NumberInt,
// NumberDecimal, ObjectId, Timestamp, BinData, HexData, UUID, MD5, Code,
// DBRef, DBPointer, MinKey, MaxKey, ISODate).
func (v *vm) setupTypes() {
	rt := v.rt
	this := func(call goja.FunctionCall) *boxed {
		b, ok := unbox(call.This)
		if !ok {
			panic(rt.NewTypeError("not a BSON value"))
		}
		return b
	}
	method := func(p *goja.Object, name string, fn func(call goja.FunctionCall) goja.Value) {
		_ = p.DefineDataProperty(name, rt.ToValue(fn), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	str := func(p *goja.Object, f func(b *boxed) string) {
		fn := func(call goja.FunctionCall) goja.Value { return rt.ToValue(f(this(call))) }
		method(p, "toString", fn)
		method(p, "tojson", fn)
	}
	for _, kind := range []string{"long", "int", "oid", "decimal", "timestamp", "bindata", "minkey", "maxkey", "regex", "opaque", "code", "dbref", "dbpointer"} {
		v.protos[kind] = rt.NewObject()
	}
	// NumberLong
	p := v.protos["long"]
	str(p, func(b *boxed) string {
		n := b.val.(int64)
		if exactFloat(n) {
			return fmt.Sprintf("NumberLong(%d)", n)
		}
		return fmt.Sprintf("NumberLong(%q)", strconv.FormatInt(n, 10))
	})
	num := func(call goja.FunctionCall) goja.Value {
		switch n := this(call).val.(type) {
		case int64:
			return rt.ToValue(float64(n))
		case int32:
			return rt.ToValue(int64(n))
		}
		return goja.NaN()
	}
	method(p, "valueOf", num)
	method(p, "toNumber", num)
	method(p, "toJSON", func(call goja.FunctionCall) goja.Value {
		return rt.ToValue(map[string]any{"$numberLong": strconv.FormatInt(this(call).val.(int64), 10)})
	})
	cmpLong := func(call goja.FunctionCall) int {
		n := this(call).val.(int64)
		var m int64
		if b, ok := unbox(call.Argument(0)); ok {
			switch x := b.val.(type) {
			case int64:
				m = x
			case int32:
				m = int64(x)
			}
		} else {
			f := call.Argument(0).ToFloat()
			switch {
			case float64(n) < f:
				return -1
			case float64(n) > f:
				return 1
			}
			return 0
		}
		switch {
		case n < m:
			return -1
		case n > m:
			return 1
		}
		return 0
	}
	method(p, "equals", func(call goja.FunctionCall) goja.Value { return rt.ToValue(cmpLong(call) == 0) })
	method(p, "compare", func(call goja.FunctionCall) goja.Value { return rt.ToValue(int64(cmpLong(call))) })
	// NumberInt
	p = v.protos["int"]
	str(p, func(b *boxed) string { return fmt.Sprintf("NumberInt(%d)", b.val.(int32)) })
	method(p, "valueOf", num)
	method(p, "toNumber", num)
	method(p, "toJSON", num)
	// ObjectId
	p = v.protos["oid"]
	str(p, func(b *boxed) string { return fmt.Sprintf("ObjectId(%q)", b.val.(bson.ObjectID).Hex()) })
	hexOf := func(call goja.FunctionCall) goja.Value { return rt.ToValue(this(call).val.(bson.ObjectID).Hex()) }
	method(p, "valueOf", hexOf)
	method(p, "toHexString", hexOf)
	method(p, "toJSON", func(call goja.FunctionCall) goja.Value {
		return rt.ToValue(map[string]any{"$oid": this(call).val.(bson.ObjectID).Hex()})
	})
	method(p, "equals", func(call goja.FunctionCall) goja.Value {
		id := this(call).val.(bson.ObjectID)
		if b, ok := unbox(call.Argument(0)); ok {
			o, isOID := b.val.(bson.ObjectID)
			return rt.ToValue(isOID && o == id)
		}
		return rt.ToValue(call.Argument(0).String() == id.Hex())
	})
	method(p, "getTimestamp", func(call goja.FunctionCall) goja.Value {
		return v.toJS(bson.NewDateTimeFromTime(this(call).val.(bson.ObjectID).Timestamp()))
	})
	// NumberDecimal
	str(v.protos["decimal"], func(b *boxed) string { return fmt.Sprintf("NumberDecimal(%q)", b.val.(bson.Decimal128).String()) })
	method(v.protos["decimal"], "toJSON", func(call goja.FunctionCall) goja.Value {
		return rt.ToValue(map[string]any{"$numberDecimal": this(call).val.(bson.Decimal128).String()})
	})
	// Timestamp
	str(v.protos["timestamp"], func(b *boxed) string {
		t := b.val.(bson.Timestamp)
		return fmt.Sprintf("Timestamp(%d, %d)", t.T, t.I)
	})
	// BinData
	p = v.protos["bindata"]
	str(p, func(b *boxed) string {
		bin := b.val.(bson.Binary)
		return fmt.Sprintf("BinData(%d,%q)", bin.Subtype, base64.StdEncoding.EncodeToString(bin.Data))
	})
	method(p, "base64", func(call goja.FunctionCall) goja.Value {
		return rt.ToValue(base64.StdEncoding.EncodeToString(this(call).val.(bson.Binary).Data))
	})
	method(p, "hex", func(call goja.FunctionCall) goja.Value {
		return rt.ToValue(hex.EncodeToString(this(call).val.(bson.Binary).Data))
	})
	method(p, "length", func(call goja.FunctionCall) goja.Value {
		return rt.ToValue(int64(len(this(call).val.(bson.Binary).Data)))
	})
	method(p, "subtype", func(call goja.FunctionCall) goja.Value {
		return rt.ToValue(int64(this(call).val.(bson.Binary).Subtype))
	})
	str(v.protos["minkey"], func(*boxed) string { return "{ \"$minKey\" : 1 }" })
	str(v.protos["maxkey"], func(*boxed) string { return "{ \"$maxKey\" : 1 }" })
	str(v.protos["regex"], func(b *boxed) string {
		r := b.val.(bson.Regex)
		return "/" + r.Pattern + "/" + r.Options
	})
	str(v.protos["opaque"], func(b *boxed) string { return document.Format(b.val) })

	// The constructors.
	B := rt.NewObject()
	arg := func(call goja.FunctionCall, i int) goja.Value { return call.Argument(i) }
	maker := func(name string, fn func(call goja.FunctionCall) any) {
		_ = B.Set(name, func(call goja.FunctionCall) goja.Value {
			x := fn(call)
			if o, ok := x.(*goja.Object); ok {
				return o
			}
			return v.toJS(x)
		})
	}
	maker("long", func(call goja.FunctionCall) any {
		a := arg(call, 0)
		if b, ok := unbox(a); ok {
			switch x := b.val.(type) {
			case int64:
				return x
			case int32:
				return int64(x)
			}
		}
		if goja.IsUndefined(a) || goja.IsNull(a) {
			return int64(0)
		}
		if goja.IsString(a) {
			n, err := strconv.ParseInt(strings.TrimSpace(a.String()), 10, 64)
			if err != nil {
				panic(rt.NewTypeError("could not convert \"%s\" to NumberLong", a.String()))
			}
			return n
		}
		f := a.ToFloat()
		if math.IsNaN(f) || math.IsInf(f, 0) || f >= 9.2233720368547758e18 || f < -9.2233720368547758e18 {
			panic(rt.NewTypeError("number passed to NumberLong must be representable as an int64_t"))
		}
		return int64(f)
	})
	maker("int", func(call goja.FunctionCall) any {
		a := arg(call, 0)
		if goja.IsUndefined(a) {
			return v.box("int", int32(0))
		}
		if goja.IsString(a) {
			n, _ := strconv.ParseInt(strings.TrimSpace(a.String()), 10, 32)
			return v.box("int", int32(n))
		}
		return v.box("int", int32(a.ToInteger()))
	})
	maker("oid", func(call goja.FunctionCall) any {
		a := arg(call, 0)
		if goja.IsUndefined(a) {
			return bson.NewObjectID()
		}
		id, err := bson.ObjectIDFromHex(a.String())
		if err != nil {
			panic(rt.NewTypeError("invalid object id: length"))
		}
		return id
	})
	maker("decimal", func(call goja.FunctionCall) any {
		a := arg(call, 0)
		s := "0"
		if !goja.IsUndefined(a) {
			s = a.String()
		}
		d, err := bson.ParseDecimal128(s)
		if err != nil {
			panic(rt.NewTypeError("Invalid NumberDecimal: %s", s))
		}
		return d
	})
	maker("timestamp", func(call goja.FunctionCall) any {
		return bson.Timestamp{T: uint32(arg(call, 0).ToInteger()), I: uint32(arg(call, 1).ToInteger())}
	})
	maker("bindata", func(call goja.FunctionCall) any {
		data, err := base64.StdEncoding.DecodeString(arg(call, 1).String())
		if err != nil {
			panic(rt.NewTypeError("invalid base64"))
		}
		return bson.Binary{Subtype: byte(arg(call, 0).ToInteger()), Data: data}
	})
	maker("hexdata", func(call goja.FunctionCall) any {
		data, err := hex.DecodeString(arg(call, 1).String())
		if err != nil {
			panic(rt.NewTypeError("invalid hex"))
		}
		return bson.Binary{Subtype: byte(arg(call, 0).ToInteger()), Data: data}
	})
	maker("uuid", func(call goja.FunctionCall) any {
		data, err := hex.DecodeString(strings.ReplaceAll(arg(call, 0).String(), "-", ""))
		if err != nil || len(data) != 16 {
			panic(rt.NewTypeError("UUID string must have 32 hex digits"))
		}
		return bson.Binary{Subtype: 4, Data: data}
	})
	maker("md5", v.md5Value)
	maker("code", v.codeValue)
	maker("dbref", v.dbRefValue)
	maker("dbpointer", v.dbPointerValue)
	maker("minkey", func(goja.FunctionCall) any { return bson.MinKey{} })
	maker("maxkey", func(goja.FunctionCall) any { return bson.MaxKey{} })
	P := rt.NewObject()
	for k, p := range v.protos {
		_ = P.Set(k, p)
	}
	fn, err := rt.RunString(typesPrelude)
	if err != nil {
		panic(err)
	}
	call, _ := goja.AssertFunction(fn)
	if _, err := call(nil, rt.GlobalObject(), B, P); err != nil {
		panic(err)
	}
}

// typesPrelude defines the constructors as functions that work both
// called and with new, whose prototypes make instanceof work.
const typesPrelude = `(function (g, B, P) {
  function def(name, maker, proto) {
    var f = function () { return maker.apply(null, arguments); };
    f.prototype = proto;
    Object.defineProperty(proto, 'constructor', { value: f, enumerable: false, writable: true, configurable: true });
    Object.defineProperty(g, name, { value: f, enumerable: false, writable: true, configurable: true });
  }
  def('NumberLong', B.long, P.long);
  def('NumberInt', B.int, P.int);
  def('ObjectId', B.oid, P.oid);
  def('NumberDecimal', B.decimal, P.decimal);
  def('Timestamp', B.timestamp, P.timestamp);
  def('BinData', B.bindata, P.bindata);
  def('HexData', B.hexdata, P.bindata);
  def('UUID', B.uuid, P.bindata);
  def('MD5', B.md5, P.bindata);
  def('Code', B.code, P.code);
  def('DBRef', B.dbref, P.dbref);
  def('DBPointer', B.dbpointer, P.dbpointer);
  def('MinKey', B.minkey, P.minkey);
  def('MaxKey', B.maxkey, P.maxkey);
  Object.defineProperty(g, 'ISODate', { value: function (s) { return s === undefined ? new Date() : new Date(s); }, enumerable: false, writable: true, configurable: true });
})`
