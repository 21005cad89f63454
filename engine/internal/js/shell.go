package js

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/dop251/goja"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The globals mongod gives every server-side scope besides the BSON
// constructors: print, gc and sleep (its mozjs global functions), and
// the helpers of its shell's types.js, which it loads into each scope:
// tojson, tojsononeline, tojsonObject, printjson, printjsononeline,
// isString, isNumber, isObject, and the tojson methods of arrays and
// dates (docs/javascript.md, "Globals").

// buildInfo is what version() and buildInfo() return (SetBuildInfo).
var buildInfo atomic.Pointer[bson.D]

// SetBuildInfo sets the buildInfo command's reply, whose version field
// scripts' version() returns and which buildInfo() returns whole.
func SetBuildInfo(info bson.D) { buildInfo.Store(&info) }

// buildInfoDoc returns the document SetBuildInfo set, empty if none.
func buildInfoDoc() bson.D {
	if p := buildInfo.Load(); p != nil {
		return *p
	}
	return bson.D{}
}

// printKey is the context key of a call's print destination.
type printKey struct{}

// WithPrint returns ctx with fn as the destination of the lines the
// print and printjson calls of scripts run under it write (mongod
// writes them to its log). Without one the lines are dropped.
func WithPrint(ctx context.Context, fn func(line string)) context.Context {
	return context.WithValue(ctx, printKey{}, fn)
}

// printerOf returns ctx's print destination, nil if it has none.
func printerOf(ctx context.Context) func(string) {
	fn, _ := ctx.Value(printKey{}).(func(string))
	return fn
}

// print is mongod's print(...): its arguments as strings, separated by
// a space, null and undefined shown as "[unknown type]", written as one
// line to the call's destination; it returns undefined.
func (v *vm) print(call goja.FunctionCall) goja.Value {
	var b strings.Builder
	for i, a := range call.Arguments {
		if i > 0 {
			b.WriteByte(' ')
		}
		if goja.IsNull(a) || goja.IsUndefined(a) {
			b.WriteString("[unknown type]")
			continue
		}
		b.WriteString(a.String())
		if b.Len() > MaxStringLength {
			panic(v.rt.NewTypeError("print: line too long"))
		}
	}
	if v.printer != nil {
		v.printer(b.String())
	}
	return goja.Undefined()
}

// shellPrelude defines types.js's helpers, with mongod's output: an
// object is { "k" : v, ... } on one line when it fits in 80 characters
// at the top level, else one field a line indented by tabs; an empty
// array is [ ]; a string is quoted as JSON quotes it; a date is
// ISODate("...") (milliseconds only when not zero); the BSON values
// show as their constructors (NumberLong(5), ObjectId("...")); deeper
// than 100 levels an object is [Object] and an array [Array].
const shellPrelude = `(function (g) {
  function def(obj, name, fn) {
    Object.defineProperty(obj, name, {value: fn, writable: true, configurable: true, enumerable: false});
  }
  var MAX_DEPTH = 100;
  function tojson(x, indent, nolint, depth) {
    if (x === null) return 'null';
    if (x === undefined) return 'undefined';
    if (!indent) indent = '';
    if (typeof depth !== 'number') depth = 0;
    switch (typeof x) {
    case 'string':
      return JSON.stringify(x);
    case 'number':
    case 'boolean':
      return '' + x;
    case 'object':
      var s = tojsonObject(x, indent, nolint, depth);
      if ((nolint == null || nolint == true) && s.length < 80 && indent.length == 0) {
        s = s.replace(/[\t\r\n]+/gm, ' ');
      }
      return s;
    case 'function':
      return x.toString();
    }
    throw Error("tojson can't handle type " + (typeof x));
  }
  tojson.MAX_DEPTH = MAX_DEPTH;
  function tojsonObject(x, indent, nolint, depth) {
    if (typeof depth !== 'number') depth = 0;
    var lineEnding = nolint ? ' ' : '\n';
    var tab = nolint ? '' : '\t';
    if (typeof x !== 'object') throw new TypeError('tojsonObject needs object, not [' + (typeof x) + ']');
    if (!indent) indent = '';
    if (typeof x.tojson === 'function' && x.tojson !== tojson) return x.tojson(indent, nolint, depth);
    if (x.constructor && typeof x.constructor.tojson === 'function' && x.constructor.tojson !== tojson) {
      return x.constructor.tojson(x, indent, nolint, depth);
    }
    if (x instanceof Error) return x.toString();
    try { x.toString(); } catch (e) { return '[Object]'; }
    if (depth > tojson.MAX_DEPTH) return '[Object]';
    var out = '{' + lineEnding;
    indent += tab;
    var parts = [];
    for (var k in x) {
      parts.push(indent + '"' + k + '" : ' + tojson(x[k], indent, nolint, depth + 1));
    }
    out += parts.length > 0 ? parts.join(',' + lineEnding) : indent;
    out += lineEnding;
    indent = indent.substring(1);
    return out + indent + '}';
  }
  def(Array, 'tojson', function (a, indent, nolint, depth) {
    if (typeof depth !== 'number') depth = 0;
    if (depth > tojson.MAX_DEPTH) return '[Array]';
    var sep = nolint ? ' ' : '\n';
    if (!indent || nolint) indent = '';
    if (a.length == 0) return '[ ]';
    var out = '[' + sep;
    if (!nolint) indent += '\t';
    for (var i = 0; i < a.length; i++) {
      out += indent + tojson(a[i], indent, nolint, depth + 1);
      if (i < a.length - 1) out += ',' + sep;
    }
    if (!nolint) indent = indent.substring(1);
    return out + sep + indent + ']';
  });
  function pad(n, w) {
    var s = '' + n;
    while (s.length < w) s = '0' + s;
    return s;
  }
  def(Date.prototype, 'tojson', function () {
    var sec = pad(this.getUTCSeconds(), 2);
    if (this.getUTCMilliseconds()) sec += '.' + pad(this.getUTCMilliseconds(), 3);
    return 'ISODate("' + pad(this.getUTCFullYear(), 4) + '-' + pad(this.getUTCMonth() + 1, 2) + '-' +
      pad(this.getUTCDate(), 2) + 'T' + pad(this.getUTCHours(), 2) + ':' + pad(this.getUTCMinutes(), 2) + ':' +
      sec + 'Z")';
  });
  def(RegExp.prototype, 'tojson', RegExp.prototype.toString);
  function tojsononeline(x) { return tojson(x, ' ', true); }
  def(g, 'tojson', tojson);
  def(g, 'tojsonObject', tojsonObject);
  def(g, 'tojsononeline', tojsononeline);
  def(g, 'printjson', function (x) { print(tojson(x)); });
  def(g, 'printjsononeline', function (x) { print(tojsononeline(x)); });
  def(g, 'isString', function (x) { return typeof x == 'string'; });
  def(g, 'isNumber', function (x) { return typeof x == 'number'; });
  def(g, 'isObject', function (x) { return typeof x == 'object'; });
  def(g, 'gc', function () {});
})(this);`

// whereKey marks the context of an operation whose filter has a $where.
type whereKey struct{}

// WithWhere returns ctx marked as the context of an operation whose
// filter has a $where: mongod refuses a $function or $accumulator run
// by such an operation (ErrWhereAndFunction).
func WithWhere(ctx context.Context) context.Context {
	return context.WithValue(ctx, whereKey{}, true)
}

// HasWhere reports whether ctx is marked by WithWhere.
func HasWhere(ctx context.Context) bool {
	b, _ := ctx.Value(whereKey{}).(bool)
	return b
}

// ErrWhereAndFunction is mongod's refusal (4649200) of a $function or
// $accumulator run by an operation that also has a $where: its $where
// loads the database's stored functions into the operation's scope and
// its aggregation expressions may not run in one.
func ErrWhereAndFunction() error {
	return document.Errorf(document.Code(4649200), "A single operation cannot use both JavaScript aggregation expressions and $where.")
}

// storedKey is the context key of a database's stored functions.
type storedKey struct{}

// WithStored returns ctx with load as the source of the stored
// functions (a database's system.js documents, {_id: name, value}) that
// $where and mapReduce functions called under it see as globals, as
// mongod loads them into their scope ($function and $accumulator do not
// see them). load is called at most once a call of Where or
// CallScoped; it may cache.
func WithStored(ctx context.Context, load func() ([]bson.D, error)) context.Context {
	return context.WithValue(ctx, storedKey{}, load)
}

// HasStored reports whether ctx has a source of stored functions
// (WithStored).
func HasStored(ctx context.Context) bool {
	_, ok := ctx.Value(storedKey{}).(func() ([]bson.D, error))
	return ok
}

// setStored makes the stored functions of ctx (WithStored) globals of
// the current call, as mongod's Scope::loadStored: an _id that is not a
// string is 10209, a missing value 10210, a CodeWithScope 4546000, and
// a function that does not compile is left out. run removes them after
// the call.
func (v *vm) setStored(ctx context.Context) error {
	load, _ := ctx.Value(storedKey{}).(func() ([]bson.D, error))
	if load == nil {
		return nil
	}
	docs, err := load()
	if err != nil {
		return err
	}
	g := v.rt.GlobalObject()
	for _, d := range docs {
		var id, val any
		var hasID, hasVal bool
		for _, e := range d {
			switch e.Key {
			case "_id":
				id, hasID = e.Value, true
			case "value":
				val, hasVal = e.Value, true
			}
		}
		name, ok := id.(string)
		if !ok {
			shown := "EOO"
			if hasID {
				shown = "_id: " + document.Format(id)
			}
			return document.Errorf(document.Code(10209), "name has to be a string: %s", shown)
		}
		if !hasVal {
			return document.Errorf(document.Code(10210), "value has to be set")
		}
		if _, ok := val.(bson.CodeWithScope); ok {
			return document.Errorf(document.Code(4546000), "BSON type 'CodeWithScope' not supported in system.js scripts. As an alternative use 'Code'. Script _id value: '%s'", name)
		}
		jv := v.toJS(val)
		if code, ok := val.(bson.JavaScript); ok {
			fn, err := Compile(string(code))
			if err != nil {
				continue // mongod logs it and goes on
			}
			if jv, err = v.rt.RunProgram(fn.prg); err != nil {
				continue
			}
		}
		if err := g.Set(name, jv); err != nil {
			return err
		}
	}
	return nil
}
