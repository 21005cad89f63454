package mongosh

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// prelude defines mongosh's value constructors in JavaScript, so that
// each works both called and with new, and instanceof works. The makers
// they call are Go functions on the hidden __bson object.
const prelude = `(function (g, B, P) {
  function def(name, maker, proto) {
    var f = { [name]: function () { return maker.apply(null, arguments); } }[name];
    f.prototype = proto;
    Object.defineProperty(proto, 'constructor', { value: f, enumerable: false, writable: true });
    g[name] = f;
    return f;
  }
  // check is mongosh's assertArgsDefinedType: each argument must have
  // one of its expected types (a typeof, 'bson:Long' and the like, or
  // undefined where it may be left out; true: anything); otherwise
  // MongoshInvalidInputError, code COMMON-10001.
  function check(args, expected, name) {
    for (var i = 0; i < args.length; i++) {
      var a = args[i], e = expected[i];
      if (a === undefined) {
        if (e !== true && Array.isArray(e) && e.indexOf(undefined) >= 0) continue;
        B.invalid('Missing required argument at position ' + i + ' (' + name + ')');
      } else if (e === true) {
        continue;
      }
      var list = typeof e === 'string' ? [e] : e;
      if (list.indexOf(typeof a) < 0 && list.indexOf('bson:' + B.bsonType(a)) < 0) {
        var msg = list.filter(function (x) { return x !== undefined; }).map(function (x) { return x.replace(/^bson:/, ''); }).join(' or ');
        B.invalid('Argument at position ' + i + ' must be of type ' + msg + ', got ' + (typeof a) + ' instead (' + name + ')');
      }
    }
  }
  // warnNumber: mongosh warns when NumberLong or NumberDecimal is given
  // a number (Long and Decimal128 take one silently).
  function warnNumber(name) {
    B.warn(name + ': specifying a number as argument is deprecated and may lead to loss of precision, pass a string instead');
  }
  def('ObjectId', function (id) {
    check([id], [[undefined, 'string', 'number', 'object']], 'ObjectId');
    return B.objectId(id);
  }, P.objectId);
  def('NumberLong', function (s) {
    if (s === undefined || s === null) s = '0';
    check([s], [['string', 'number', 'bson:Long', 'bson:Int32']], 'NumberLong');
    if (typeof s === 'number') {
      warnNumber('NumberLong');
      return B.long(s);
    }
    return B.longFromString(String(s));
  }, P.long);
  // Long(low, high) is the bson library's: two 32-bit halves (a number
  // alone is the low half); a string or a bigint is its value.
  def('Long', function (low, high) {
    if (typeof low === 'number') return B.longBits(low, high === undefined ? 0 : high);
    return B.long(low);
  }, P.long);
  g.Long.MAX_VALUE = B.longFromString('9223372036854775807');
  g.Long.MIN_VALUE = B.longFromString('-9223372036854775808');
  g.Long.ZERO = B.longFromString('0');
  g.Long.ONE = B.longFromString('1');
  g.Long.NEG_ONE = B.longFromString('-1');
  def('NumberInt', function (v) {
    if (v === undefined || v === null) v = '0';
    check([v], [['string', 'number', 'bson:Long', 'bson:Int32']], 'NumberInt');
    return B.int32(parseInt(String(v), 10) | 0);
  }, P.int32);
  def('Int32', function (v) { return B.int32(+v | 0); }, P.int32);
  def('Double', B.double, P.double);
  def('NumberDecimal', function (s) {
    if (s === undefined) s = '0';
    check([s], [['string', 'number', 'bson:Long', 'bson:Int32', 'bson:Decimal128']], 'NumberDecimal');
    if (typeof s === 'number') warnNumber('NumberDecimal');
    return B.decimal(String(s));
  }, P.decimal);
  def('Decimal128', B.decimal, P.decimal);
  // Timestamp is mongosh's over the bson library's: from { t, i }, from
  // (t, i), or 0; t and i whole, from 0 to 2^32 - 1.
  function tsPart(o, k) {
    var v = o[k];
    if (typeof v !== 'number' && B.bsonType(v) !== 'Int32') B.bsonError('Timestamp constructed from { t, i } must provide ' + k + ' as a number');
    v = Number(v);
    if (v < 0 || v !== v) B.bsonError('Timestamp constructed from { t, i } must provide a positive ' + k);
    if (v > 0xffffffff) B.bsonError('Timestamp constructed from { t, i } must provide ' + k + ' equal or less than uint32 max');
    return v;
  }
  function tsFrom(o) {
    if (o === undefined || o === null) return B.timestamp(0, 0);
    if (typeof o === 'object' && 't' in o && 'i' in o) {
      var t = tsPart(o, 't'), i = tsPart(o, 'i');
      return B.timestamp(t, i);
    }
    var bt = B.bsonType(o);
    if (bt === 'Long' || bt === 'Timestamp') return B.timestamp(o);
    B.bsonError('A Timestamp can only be constructed with: bigint, Long, or { t: number; i: number }');
  }
  def('Timestamp', function (t, i) {
    check([t, i], [['number', 'object', undefined], [undefined, 'number']], 'Timestamp');
    if (typeof t === 'object' && t !== null && 't' in t && 'i' in t) return tsFrom(t);
    if (i !== undefined || typeof t === 'number') return tsFrom({ t: t, i: i === undefined ? 0 : i });
    return tsFrom(t);
  }, P.timestamp);
  def('BinData', function (sub, b64) {
    check([sub, b64], ['number', 'string'], 'BinData');
    return B.binData(sub, b64);
  }, P.binary);
  // Binary is the bson library's: bytes (a Uint8Array, an ArrayBuffer
  // or an array of numbers) and a subtype.
  def('Binary', function (buf, sub) { return B.binBytes(buf, sub); }, P.binary);
  def('HexData', function (sub, hx) {
    check([sub, hx], ['number', 'string'], 'HexData');
    return B.hexData(sub, hx);
  }, P.binary);
  def('UUID', function (hx) {
    if (hx === undefined) return B.uuid();
    check([hx], ['string'], 'UUID');
    return B.hexData(4, hx.replace(/-/g, ''));
  }, P.uuid); // UUID() makes a Binary, but one read back is a UUID
  def('MD5', function (hx) {
    check([hx], ['string'], 'MD5');
    return B.hexData(5, hx);
  }, P.binary);
  // BinData, HexData and MD5 make a Binary, as mongosh's do.
  Object.defineProperty(P.binary, 'constructor', { value: g.Binary, enumerable: false, writable: true });
  def('DBRef', function (coll, oid, dbName, fields) {
    check([coll, oid, dbName], ['string', true, [undefined, 'string']], 'DBRef');
    return B.dbRef(coll, oid, dbName, fields);
  }, P.dbRef);
  def('Code', function (code, scope) {
    return B.code(typeof code === 'function' ? code.toString() : String(code), scope);
  }, P.code);
  def('BSONSymbol', function (v) { return B.symbol(String(v)); }, P.symbol);
  g.UUID.prototype = P.binary; // as mongosh's: every Binary is instanceof UUID
  def('MinKey', B.minKey, P.minKey);
  def('MaxKey', B.maxKey, P.maxKey);
  def('BSONRegExp', B.regex, P.regex);
  g.ISODate = function ISODate(s) { return B.isoDate(s); };
  g.__check = check;
  g.Binary.createFromBase64 = function (b64, sub) { return B.binData(sub || 0, b64); };
  g.Binary.createFromHexString = function (hx, sub) { return B.hexData(sub || 0, hx); };
  g.ObjectId.createFromHexString = function (h) { return B.objectId(h); };
  g.ObjectId.isValid = function (h) { return typeof h === 'string' && /^[0-9a-fA-F]{24}$/.test(h); };
  g.Long.fromNumber = function (n) { return B.long(n); };
  g.Long.fromInt = function (n) { return B.long(n | 0); };
  g.Long.fromBits = function (low, high) { return B.longOp('bits', low | 0, high | 0); };
  g.ObjectId.createFromTime = function (t) { return B.objectIdFromTime(t); };
  g.Decimal128.fromString = function (s) { return B.decimal(String(s)); };
  // Long's arithmetic and comparisons, on 64-bit two's complement as
  // the bson library's: the other operand a Long, a number or a string.
  ['add', 'subtract', 'multiply', 'div', 'divide', 'modulo', 'mod', 'rem', 'and', 'or', 'xor',
   'shiftLeft', 'shl', 'shiftRight', 'shr', 'shiftRightUnsigned', 'shru',
   'compare', 'comp', 'notEquals', 'neq', 'ne', 'eq', 'lessThan', 'lt', 'lessThanOrEqual', 'lte', 'le',
   'greaterThan', 'gt', 'greaterThanOrEqual', 'gte', 'ge'].forEach(function (op) {
    Object.defineProperty(P.long, op, { value: function (other) { return B.longOp(op, this, other); }, writable: true, configurable: true });
  });
  ['negate', 'neg', 'not', 'isZero', 'isNegative', 'isPositive', 'isOdd', 'isEven', 'getHighBits', 'getLowBits'].forEach(function (op) {
    Object.defineProperty(P.long, op, { value: function () { return B.longOp(op, this); }, writable: true, configurable: true });
  });
  g.Long.fromString = function (s) { return B.longFromString(String(s)); };
})`

func (s *Shell) installValues() error {
	rt := s.rt
	mk := func() *goja.Object { return rt.NewObject() }
	s.protos = protos{
		long: mk(), objectID: mk(), decimal: mk(), timestamp: mk(), binary: mk(),
		minKey: mk(), maxKey: mk(), regex: mk(), int32: mk(), double: mk(), other: mk(),
		dbRef: mk(), code: mk(), symbol: mk(),
	}
	s.protos.uuid = rt.CreateObject(s.protos.binary) // a UUID is a Binary
	p := s.protos
	b := rt.NewObject()
	set := func(o *goja.Object, name string, f func(goja.FunctionCall) goja.Value) {
		_ = o.Set(name, f)
	}
	arg := func(c goja.FunctionCall, i int) goja.Value { return c.Argument(i) }
	absent := func(v goja.Value) bool { return v == nil || goja.IsUndefined(v) || goja.IsNull(v) }

	set(b, "invalid", func(c goja.FunctionCall) goja.Value {
		panic(s.invalidInput(c.Argument(0).String()))
	})
	set(b, "bsonError", func(c goja.FunctionCall) goja.Value {
		s.throw("BSONError", "%s", c.Argument(0).String())
		return nil
	})
	set(b, "bsonType", func(c goja.FunctionCall) goja.Value {
		v, ok := s.boxed(arg(c, 0))
		if !ok {
			return rt.ToValue("")
		}
		return rt.ToValue(bsonTypeName(v))
	})
	set(b, "objectId", func(c goja.FunctionCall) goja.Value {
		a := arg(c, 0)
		if absent(a) {
			return s.wrap(p.objectID, bson.NewObjectID())
		}
		if v, ok := s.boxed(a); ok {
			if id, ok := v.(bson.ObjectID); ok {
				return s.wrap(p.objectID, id)
			}
		}
		switch {
		case goja.IsNumber(a):
			return s.wrap(p.objectID, bson.NewObjectIDFromTimestamp(time.Unix(a.ToInteger(), 0)))
		case goja.IsString(a):
			id, err := bson.ObjectIDFromHex(a.String())
			if err != nil {
				s.throw("BSONError", "input must be a 24 character hex string, 12 byte Uint8Array, or an integer")
			}
			return s.wrap(p.objectID, id)
		}
		s.throw("BSONError", "Argument passed in does not match the accepted types")
		return nil
	})
	set(b, "warn", func(c goja.FunctionCall) goja.Value {
		fmt.Fprintln(s.out, "Warning: "+c.Argument(0).String())
		return goja.Undefined()
	})
	// long is Long and Long.fromNumber: a number truncated toward zero,
	// NaN 0, beyond the range its end (the bson library's fromNumber);
	// a string as longFromString; a Long or Int32 as its value.
	set(b, "long", func(c goja.FunctionCall) goja.Value {
		a := arg(c, 0)
		if absent(a) {
			return s.wrap(p.long, int64(0))
		}
		if v, ok := s.boxed(a); ok {
			a = s.rt.ToValue(fmt.Sprint(v))
		}
		if goja.IsString(a) {
			return s.wrap(p.long, s.longFromString(a.String()))
		}
		if bi, ok := a.Export().(*big.Int); ok { // a BigInt: its low 64 bits, as BigInt.asIntN(64)
			return s.wrap(p.long, int64(new(big.Int).And(bi, new(big.Int).SetUint64(math.MaxUint64)).Uint64()))
		}
		return s.wrap(p.long, longFromNumber(a.ToFloat()))
	})
	// longBits is the Long of two 32-bit halves, as new Long(low, high).
	set(b, "longBits", func(c goja.FunctionCall) goja.Value {
		low, high := uint32(int64(arg(c, 0).ToFloat())), int32(int64(arg(c, 1).ToFloat()))
		return s.wrap(p.long, int64(high)<<32|int64(low))
	})
	// longOp is Long's arithmetic (see the prelude): op on the Long a
	// and, for a binary op, b made a Long as the bson library makes one.
	set(b, "longOp", func(c goja.FunctionCall) goja.Value {
		asLong := func(v goja.Value) int64 {
			if x, ok := s.boxed(v); ok {
				switch n := x.(type) {
				case int64:
					return n
				case int32:
					return int64(n)
				case float64:
					return longFromNumber(n)
				}
			}
			if goja.IsString(v) {
				return s.longFromString(v.String())
			}
			return longFromNumber(v.ToFloat())
		}
		op := arg(c, 0).String()
		if op == "bits" {
			return s.wrap(p.long, int64(uint64(uint32(arg(c, 2).ToInteger()))<<32|uint64(uint32(arg(c, 1).ToInteger()))))
		}
		a := asLong(arg(c, 1))
		long := func(n int64) goja.Value { return s.wrap(p.long, n) }
		switch op {
		case "negate", "neg":
			return long(-a)
		case "not":
			return long(^a)
		case "isZero":
			return rt.ToValue(a == 0)
		case "isNegative":
			return rt.ToValue(a < 0)
		case "isPositive":
			return rt.ToValue(a >= 0)
		case "isOdd":
			return rt.ToValue(a&1 == 1)
		case "isEven":
			return rt.ToValue(a&1 == 0)
		case "getHighBits":
			return rt.ToValue(int64(int32(a >> 32)))
		case "getLowBits":
			return rt.ToValue(int64(int32(a)))
		}
		b := asLong(arg(c, 2))
		cmp := 0
		if a < b {
			cmp = -1
		} else if a > b {
			cmp = 1
		}
		switch op {
		case "add":
			return long(a + b)
		case "subtract":
			return long(a - b)
		case "multiply":
			return long(a * b)
		case "div", "divide", "modulo", "mod", "rem":
			if b == 0 {
				s.throw("BSONError", "division by zero")
			}
			if op == "div" || op == "divide" {
				return long(a / b)
			}
			return long(a % b)
		case "and":
			return long(a & b)
		case "or":
			return long(a | b)
		case "xor":
			return long(a ^ b)
		case "shiftLeft", "shl":
			return long(a << (uint64(b) & 63))
		case "shiftRight", "shr":
			return long(a >> (uint64(b) & 63))
		case "shiftRightUnsigned", "shru":
			return long(int64(uint64(a) >> (uint64(b) & 63)))
		case "compare", "comp":
			return rt.ToValue(cmp)
		case "notEquals", "neq", "ne":
			return rt.ToValue(cmp != 0)
		case "eq":
			return rt.ToValue(cmp == 0)
		case "lessThan", "lt":
			return rt.ToValue(cmp < 0)
		case "lessThanOrEqual", "lte", "le":
			return rt.ToValue(cmp <= 0)
		case "greaterThan", "gt":
			return rt.ToValue(cmp > 0)
		}
		return rt.ToValue(cmp >= 0) // greaterThanOrEqual, gte, ge
	})
	set(b, "objectIdFromTime", func(c goja.FunctionCall) goja.Value {
		var id bson.ObjectID
		binary.BigEndian.PutUint32(id[:4], uint32(arg(c, 0).ToInteger()))
		return s.wrap(p.objectID, id)
	})
	set(b, "longFromString", func(c goja.FunctionCall) goja.Value {
		return s.wrap(p.long, s.longFromString(arg(c, 0).String()))
	})
	// int32 takes a number already made a 32-bit integer (NumberInt and
	// Int32 do that in JavaScript, as mongosh does), or a boxed value.
	set(b, "int32", func(c goja.FunctionCall) goja.Value {
		a := arg(c, 0)
		if v, ok := s.boxed(a); ok {
			a = s.rt.ToValue(fmt.Sprint(v))
		}
		f := a.ToFloat()
		if absent(a) || math.IsNaN(f) || math.IsInf(f, 0) {
			f = 0
		}
		return s.wrap(p.int32, int32(int64(math.Trunc(f))))
	})
	set(b, "double", func(c goja.FunctionCall) goja.Value {
		return s.wrap(p.double, arg(c, 0).ToFloat())
	})
	set(b, "decimal", func(c goja.FunctionCall) goja.Value {
		a := arg(c, 0)
		str := "0"
		if !absent(a) {
			str = a.String()
		}
		d, err := bson.ParseDecimal128(str)
		if err != nil {
			s.throw("BSONError", "%s not a valid Decimal128 string", str)
		}
		return s.wrap(p.decimal, d)
	})
	// timestamp takes t and i (checked by the JavaScript Timestamp), or
	// a Long or Timestamp to copy.
	set(b, "timestamp", func(c goja.FunctionCall) goja.Value {
		if v, ok := s.boxed(arg(c, 0)); ok {
			switch x := v.(type) {
			case bson.Timestamp:
				return s.wrap(p.timestamp, x)
			case int64:
				return s.wrap(p.timestamp, bson.Timestamp{T: uint32(uint64(x) >> 32), I: uint32(x)})
			}
		}
		return s.wrap(p.timestamp, bson.Timestamp{T: uint32(arg(c, 0).ToInteger()), I: uint32(arg(c, 1).ToInteger())})
	})
	// binData and hexData decode as Node's Buffer.from does: what is not
	// base64 (or hex) is skipped (or ends the data), never refused; the
	// subtype is kept to its low byte.
	set(b, "binData", func(c goja.FunctionCall) goja.Value {
		return s.wrap(p.binary, bson.Binary{Subtype: byte(arg(c, 0).ToInteger()), Data: lenientBase64(arg(c, 1).String())})
	})
	set(b, "binBytes", func(c goja.FunctionCall) goja.Value {
		var data []byte
		switch x := arg(c, 0).Export().(type) {
		case nil:
		case []byte:
			data = append(data, x...)
		case goja.ArrayBuffer:
			data = append(data, x.Bytes()...)
		case []any:
			for _, e := range x {
				data = append(data, byte(s.rt.ToValue(e).ToInteger()))
			}
		default:
			s.throw("BSONError", "Binary can only be constructed from Uint8Array or number[]")
		}
		return s.wrap(p.binary, bson.Binary{Subtype: byte(arg(c, 1).ToInteger()), Data: data})
	})
	set(b, "dbRef", func(c goja.FunctionCall) goja.Value {
		id, err := s.toBSON(arg(c, 1), 0)
		s.check(err)
		r := dbRef{Coll: arg(c, 0).String(), ID: id}
		if !absent(arg(c, 2)) {
			r.DB = arg(c, 2).String()
		}
		if !absent(arg(c, 3)) {
			r.Fields, err = s.toBSONDoc(arg(c, 3), "fields")
			s.check(err)
		}
		return s.wrap(p.dbRef, r)
	})
	set(b, "code", func(c goja.FunctionCall) goja.Value {
		code := bson.JavaScript(arg(c, 0).String())
		if absent(arg(c, 1)) {
			return s.wrap(p.code, code)
		}
		scope, err := s.toBSONDoc(arg(c, 1), "scope")
		s.check(err)
		return s.wrap(p.code, bson.CodeWithScope{Code: code, Scope: scope})
	})
	set(b, "symbol", func(c goja.FunctionCall) goja.Value {
		return s.wrap(p.symbol, bson.Symbol(arg(c, 0).String()))
	})
	set(b, "hexData", func(c goja.FunctionCall) goja.Value {
		return s.wrap(p.binary, bson.Binary{Subtype: byte(arg(c, 0).ToInteger()), Data: lenientHex(arg(c, 1).String())})
	})
	set(b, "uuid", func(c goja.FunctionCall) goja.Value {
		data := make([]byte, 16)
		_, _ = rand.Read(data)
		data[6] = data[6]&0x0f | 0x40
		data[8] = data[8]&0x3f | 0x80
		return s.wrap(p.binary, bson.Binary{Subtype: 4, Data: data})
	})
	set(b, "minKey", func(goja.FunctionCall) goja.Value { return s.wrap(p.minKey, bson.MinKey{}) })
	set(b, "maxKey", func(goja.FunctionCall) goja.Value { return s.wrap(p.maxKey, bson.MaxKey{}) })
	set(b, "regex", func(c goja.FunctionCall) goja.Value {
		opts := ""
		if !absent(arg(c, 1)) {
			opts = arg(c, 1).String()
		}
		return s.wrap(p.regex, bson.Regex{Pattern: arg(c, 0).String(), Options: opts})
	})
	set(b, "isoDate", func(c goja.FunctionCall) goja.Value {
		a := arg(c, 0)
		switch {
		case a == nil || goja.IsUndefined(a): // only undefined: ISODate(null) is new Date(null)
			return s.toJS(bson.NewDateTimeFromTime(time.Now()))
		case !goja.IsString(a):
			// As mongosh: anything but a string is new Date(input).
			d, err := rt.New(rt.Get("Date").(*goja.Object), a)
			if err != nil {
				panic(err)
			}
			return d
		}
		t, ok := parseISODate(a.String())
		if !ok {
			// mongosh's MongoshInvalidInputError, code COMMON-10001
			// (CommonErrors.InvalidArgument), naming the input as
			// JSON.stringify writes it.
			var q strings.Builder
			enc := json.NewEncoder(&q)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(a.String())
			panic(s.invalidInput(strings.TrimSuffix(q.String(), "\n") + " is not a valid ISODate"))
		}
		return s.toJS(bson.NewDateTimeFromTime(t))
	})

	s.installProtoMethods()
	pv := rt.NewObject()
	for name, o := range map[string]*goja.Object{
		"objectId": p.objectID, "long": p.long, "int32": p.int32, "double": p.double,
		"decimal": p.decimal, "timestamp": p.timestamp, "binary": p.binary,
		"minKey": p.minKey, "maxKey": p.maxKey, "regex": p.regex, "uuid": p.uuid,
		"dbRef": p.dbRef, "code": p.code, "symbol": p.symbol,
	} {
		_ = pv.Set(name, o)
	}
	fn, err := rt.RunString(prelude)
	if err != nil {
		return err
	}
	call, _ := goja.AssertFunction(fn)
	if _, err := call(goja.Undefined(), rt.GlobalObject(), b, pv); err != nil {
		return err
	}
	s.minKeyCtor = rt.Get("MinKey").(*goja.Object)
	s.maxKeyCtor = rt.Get("MaxKey").(*goja.Object)
	s.installEJSON()
	return nil
}

// longFromNumber is the bson library's Long.fromNumber: NaN is 0, a
// number beyond the range is the range's end, others are truncated.
func longFromNumber(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= 9.223372036854775807e18:
		return math.MaxInt64
	case f <= -9.223372036854775808e18:
		return math.MinInt64
	}
	return int64(f)
}

// longFromString is the bson library's Long.fromString in base 10, as
// mongosh's NumberLong uses it: "NaN" and the infinities are 0, a
// leading "-" negates, an empty string and a "-" inside are refused,
// and the digits are read in runs of eight by JavaScript's parseInt
// (which stops at the first character that is not a digit, and reads
// no digit at all as 0), wrapping at 64 bits.
func (s *Shell) longFromString(str string) int64 {
	switch str {
	case "":
		s.throw("BSONError", "empty string")
	case "NaN", "Infinity", "+Infinity", "-Infinity":
		return 0
	}
	if i := strings.IndexByte(str, '-'); i > 0 {
		s.throw("BSONError", "interior hyphen")
	} else if i == 0 {
		return -s.longFromString(str[1:])
	}
	var result int64
	for i := 0; i < len(str); i += 8 {
		size := min(8, len(str)-i)
		v := parseIntPrefix(str[i : i+size])
		pow := int64(1)
		for range size {
			pow *= 10
		}
		result = result*pow + v
	}
	return result
}

// parseIntPrefix is JavaScript's parseInt(str, 10) on a run of at most
// eight characters: leading blanks and one sign, then digits up to the
// first other character; no digit at all reads as 0 (NaN there).
func parseIntPrefix(str string) int64 {
	str = strings.TrimLeft(str, " \t\n\r\v\f")
	neg := false
	if str != "" && (str[0] == '+' || str[0] == '-') {
		neg, str = str[0] == '-', str[1:]
	}
	var n int64
	for _, r := range str {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int64(r-'0')
	}
	if neg {
		return -n
	}
	return n
}

// lenientBase64 decodes base64 as Node's Buffer.from(str, 'base64')
// does: the URL-safe alphabet too, other characters skipped, padding
// optional, a lone trailing character dropped.
func lenientBase64(str string) []byte {
	var b strings.Builder
	for _, r := range str {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '+', r == '/':
			b.WriteRune(r)
		case r == '-':
			b.WriteByte('+')
		case r == '_':
			b.WriteByte('/')
		case r == '=':
			goto done
		}
	}
done:
	clean := b.String()
	if len(clean)%4 == 1 {
		clean = clean[:len(clean)-1]
	}
	out, _ := base64.RawStdEncoding.DecodeString(clean)
	return out
}

// lenientHex decodes hex as Node's Buffer.from(str, 'hex') does: pairs
// of hex digits up to the first pair that is not one; an odd last digit
// is dropped.
func lenientHex(str string) []byte {
	var out []byte
	for i := 0; i+1 < len(str); i += 2 {
		v, err := hex.DecodeString(str[i : i+2])
		if err != nil {
			break
		}
		out = append(out, v[0])
	}
	return out
}

// bsonTypeName is the bson library's _bsontype of a boxed value, what
// mongosh's argument checks call its type ("Long", "Int32", ...).
func bsonTypeName(v any) string {
	switch v.(type) {
	case int64:
		return "Long"
	case int32:
		return "Int32"
	case float64:
		return "Double"
	case bson.Decimal128:
		return "Decimal128"
	case bson.ObjectID:
		return "ObjectId"
	case bson.Timestamp:
		return "Timestamp"
	case bson.Binary:
		return "Binary"
	case bson.MinKey:
		return "MinKey"
	case bson.MaxKey:
		return "MaxKey"
	case bson.Regex:
		return "BSONRegExp"
	case dbRef:
		return "DBRef"
	case bson.JavaScript, bson.CodeWithScope:
		return "Code"
	case bson.Symbol:
		return "BSONSymbol"
	}
	return ""
}

// isoDateRe is the form mongosh's ISODate accepts: a date with or
// without dashes, then optionally a time (T or a space) of hours,
// minutes, seconds and a fraction, each optional from the right, and a
// zone (Z, +hh, +hhmm, +hh:mm).
var isoDateRe = regexp.MustCompile(`^(\d{4})-?(\d{2})-?(\d{2})([T ](\d{2})(:?(\d{2})(:?((\d{2})(\.(\d+))?))?)?(Z|([+-])(\d{2}):?(\d{2})?)?)?$`)

// parseISODate parses str as mongosh's ISODate does: the form of
// isoDateRe, missing parts zero and the zone UTC, within years 0 to
// 9999; ok is false otherwise.
func parseISODate(str string) (time.Time, bool) {
	m := isoDateRe.FindStringSubmatch(str)
	if m == nil {
		return time.Time{}, false
	}
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	num := func(v string) int { n, _ := strconv.Atoi(v); return n }
	y, mo, d := num(m[1]), num(m[2]), num(m[3])
	h, mi, sec := num(or(m[5], "0")), num(or(m[7], "0")), num(or(m[10], "0"))
	ns := 0
	if frac := m[12]; frac != "" {
		frac = (frac + "000000000")[:9] // JavaScript keeps milliseconds
		ns = num(frac[:3]) * int(time.Millisecond)
	}
	loc := time.UTC
	if m[14] != "" && m[16] == "" {
		return time.Time{}, false // +hh alone: JavaScript's Date refuses it
	}
	if m[14] != "" {
		off := num(m[15])*3600 + num(or(m[16], "0"))*60
		if m[14] == "-" {
			off = -off
		}
		loc = time.FixedZone("", off)
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 24 || mi > 59 || sec > 59 || (h == 24 && (mi != 0 || sec != 0 || ns != 0)) {
		return time.Time{}, false
	}
	// A day past the month's end rolls over (February 30th is March
	// 1st), as JavaScript's Date has it.
	t := time.Date(y, time.Month(mo), d, h, mi, sec, ns, loc)
	if ms := t.UnixMilli(); ms < -62167219200000 || ms > 253402300799999 {
		return time.Time{}, false
	}
	return t.UTC(), true
}

func (s *Shell) installProtoMethods() {
	rt := s.rt
	p := s.protos
	this := func(c goja.FunctionCall) any {
		if o, ok := c.This.(*goja.Object); ok {
			if b := s.boxOf(o); b != nil {
				return b.v
			}
		}
		s.throw("TypeError", "method called on an incompatible receiver")
		return nil
	}
	method := func(o *goja.Object, name string, f func(c goja.FunctionCall) goja.Value) {
		_ = o.DefineDataProperty(name, s.named(name, f), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	getter := func(o *goja.Object, name string, f func(v any) goja.Value) {
		_ = o.DefineAccessorProperty(name, rt.ToValue(func(c goja.FunctionCall) goja.Value { return f(this(c)) }), nil, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	// toJSON is what JSON.stringify makes of a value, as the bson
	// library under mongosh gives it: a Long's fields, an ObjectId's
	// hex, a binary's base64, a timestamp as one 64-bit count, a
	// regular expression's pattern and options, MinKey and MaxKey
	// empty; numbers as numbers, a decimal in Extended JSON.
	toJSON := func(c goja.FunctionCall) goja.Value {
		switch v := this(c).(type) {
		case int64:
			o := rt.NewObject()
			_ = o.Set("high", int64(int32(v>>32)))
			_ = o.Set("low", int64(int32(v)))
			_ = o.Set("unsigned", false)
			return o
		case bson.ObjectID:
			return rt.ToValue(v.Hex())
		case bson.Binary:
			return rt.ToValue(base64.StdEncoding.EncodeToString(v.Data))
		case bson.Timestamp:
			return rt.ToValue(map[string]any{"$timestamp": strconv.FormatUint(uint64(v.T)<<32|uint64(v.I), 10)})
		case bson.Regex:
			o := rt.NewObject()
			_ = o.Set("pattern", v.Pattern)
			_ = o.Set("options", v.Options)
			return o
		case bson.MinKey, bson.MaxKey:
			return rt.NewObject()
		case dbRef:
			return s.jsonValue(v.doc(), false)
		case bson.JavaScript:
			o := rt.NewObject()
			_ = o.Set("code", string(v))
			return o
		case bson.CodeWithScope:
			o := rt.NewObject()
			_ = o.Set("code", string(v.Code))
			_ = o.Set("scope", s.jsonValue(v.Scope, false))
			return o
		case bson.Symbol:
			return rt.ToValue(string(v))
		}
		b, err := document.MarshalExtJSON(this(c), false)
		s.check(err)
		var x any
		_ = json.Unmarshal(b, &x)
		return rt.ToValue(x)
	}
	str := func(c goja.FunctionCall) goja.Value {
		radix := c.Argument(0)
		if !goja.IsNumber(radix) || radix.ToInteger() < 2 || radix.ToInteger() > 36 {
			radix = nil
		}
		switch v := this(c).(type) {
		case int64:
			if radix != nil {
				return rt.ToValue(strconv.FormatInt(v, int(radix.ToInteger())))
			}
			return rt.ToValue(strconv.FormatInt(v, 10))
		case int32:
			if radix != nil {
				return rt.ToValue(strconv.FormatInt(int64(v), int(radix.ToInteger())))
			}
			return rt.ToValue(strconv.FormatInt(int64(v), 10))
		case float64:
			// A Double's text is its number's, in the radix given.
			n := rt.ToValue(v).ToObject(rt)
			if radix != nil {
				return s.callMethod(n, "toString", radix)
			}
			return s.callMethod(n, "toString")
		case dbRef:
			return rt.ToValue(fmt.Sprint(v.doc()))
		case bson.JavaScript:
			return rt.ToValue(string(v))
		case bson.CodeWithScope:
			return rt.ToValue(string(v.Code))
		case bson.Symbol:
			return rt.ToValue(string(v))
		case bson.ObjectID:
			return rt.ToValue(v.Hex())
		case bson.Binary:
			if v.Subtype == 4 && len(v.Data) == 16 {
				return rt.ToValue(uuidString(v.Data))
			}
			if a := c.Argument(0); goja.IsString(a) && a.String() == "hex" {
				return rt.ToValue(hex.EncodeToString(v.Data))
			}
			return rt.ToValue(base64.StdEncoding.EncodeToString(v.Data))
		case bson.Timestamp:
			return rt.ToValue(strconv.FormatUint(uint64(v.T)<<32|uint64(v.I), 10))
		case bson.Regex:
			return rt.ToValue("/" + v.Pattern + "/" + v.Options)
		default:
			return rt.ToValue(fmt.Sprint(v))
		}
	}
	num := func(c goja.FunctionCall) goja.Value {
		switch v := this(c).(type) {
		case int64:
			return rt.ToValue(float64(v))
		case int32:
			return rt.ToValue(int64(v))
		case float64:
			return rt.ToValue(v)
		case bson.Decimal128:
			f, _ := strconv.ParseFloat(v.String(), 64)
			return rt.ToValue(f)
		}
		return rt.ToValue(math.NaN())
	}
	for _, o := range []*goja.Object{p.long, p.objectID, p.decimal, p.timestamp, p.binary, p.minKey, p.maxKey, p.regex, p.int32, p.double, p.other, p.dbRef, p.code, p.symbol} {
		if o != p.code { // a Code's text is Object's, [object Object]
			method(o, "toString", str)
		}
		method(o, "toJSON", toJSON)
		getter(o, "_bsontype", func(v any) goja.Value { return rt.ToValue(bsonTypeName(v)) })
		method(o, "equals", func(c goja.FunctionCall) goja.Value {
			if id, ok := this(c).(bson.ObjectID); ok && goja.IsString(c.Argument(0)) {
				// ObjectId.equals takes the hex form too.
				return rt.ToValue(strings.EqualFold(c.Argument(0).String(), id.Hex()))
			}
			other, err := s.toBSON(c.Argument(0), 0)
			if err != nil {
				return rt.ToValue(false)
			}
			return rt.ToValue(document.Compare(this(c), other) == 0 && document.TypeName(this(c)) == document.TypeName(other))
		})
	}
	// Int32 and Double have a valueOf, Long and Decimal128 do not (as in
	// the bson library under mongosh): Long('5') + 1 is '51' there, and
	// Long('5') * 2 is 10 through the string.
	for _, o := range []*goja.Object{p.int32, p.double} {
		method(o, "valueOf", num)
	}
	for _, o := range []*goja.Object{p.long, p.decimal, p.int32, p.double} {
		method(o, "toNumber", num)
	}
	method(p.long, "toInt", num)
	getter(p.long, "high", func(v any) goja.Value { return rt.ToValue(int64(int32(v.(int64) >> 32))) })
	getter(p.long, "low", func(v any) goja.Value { return rt.ToValue(int64(int32(v.(int64)))) })
	getter(p.long, "unsigned", func(any) goja.Value { return rt.ToValue(false) })
	// A UUID's JSON is its hex form with dashes.
	method(p.uuid, "toJSON", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(uuidString(this(c).(bson.Binary).Data))
	})
	getter(p.dbRef, "collection", func(v any) goja.Value { return rt.ToValue(v.(dbRef).Coll) })
	getter(p.dbRef, "namespace", func(v any) goja.Value { return rt.ToValue(v.(dbRef).Coll) })
	getter(p.dbRef, "oid", func(v any) goja.Value { return s.toJS(v.(dbRef).ID) })
	getter(p.dbRef, "db", func(v any) goja.Value {
		if db := v.(dbRef).DB; db != "" {
			return rt.ToValue(db)
		}
		return goja.Undefined()
	})
	getter(p.dbRef, "fields", func(v any) goja.Value {
		if f := v.(dbRef).Fields; f != nil {
			return s.toJS(f)
		}
		return rt.NewObject()
	})
	getter(p.code, "code", func(v any) goja.Value {
		if cs, ok := v.(bson.CodeWithScope); ok {
			return rt.ToValue(string(cs.Code))
		}
		return rt.ToValue(string(v.(bson.JavaScript)))
	})
	getter(p.code, "scope", func(v any) goja.Value {
		if cs, ok := v.(bson.CodeWithScope); ok {
			return s.toJS(cs.Scope)
		}
		return goja.Null()
	})
	method(p.symbol, "valueOf", func(c goja.FunctionCall) goja.Value { return rt.ToValue(string(this(c).(bson.Symbol))) })
	method(p.objectID, "toHexString", str)
	method(p.objectID, "getTimestamp", func(c goja.FunctionCall) goja.Value {
		id, _ := this(c).(bson.ObjectID)
		return s.toJS(bson.NewDateTimeFromTime(id.Timestamp()))
	})
	getter(p.timestamp, "t", func(v any) goja.Value { return rt.ToValue(int64(v.(bson.Timestamp).T)) })
	getter(p.timestamp, "i", func(v any) goja.Value { return rt.ToValue(int64(v.(bson.Timestamp).I)) })
	method(p.timestamp, "getHighBits", func(c goja.FunctionCall) goja.Value { return rt.ToValue(int64(this(c).(bson.Timestamp).T)) })
	method(p.timestamp, "getLowBits", func(c goja.FunctionCall) goja.Value { return rt.ToValue(int64(this(c).(bson.Timestamp).I)) })
	getter(p.binary, "sub_type", func(v any) goja.Value { return rt.ToValue(int64(v.(bson.Binary).Subtype)) })
	// Only a UUID read back has toHexString, as the bson library's UUID;
	// a Binary (UUID("...") makes one) has none, nor the legacy shell's
	// base64() and hex().
	method(p.uuid, "toHexString", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(hex.EncodeToString(this(c).(bson.Binary).Data))
	})
	method(p.binary, "length", func(c goja.FunctionCall) goja.Value { return rt.ToValue(len(this(c).(bson.Binary).Data)) })
	getter(p.regex, "pattern", func(v any) goja.Value { return rt.ToValue(v.(bson.Regex).Pattern) })
	getter(p.regex, "options", func(v any) goja.Value { return rt.ToValue(v.(bson.Regex).Options) })
}

func uuidString(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// installEJSON defines the global EJSON with mongosh's stringify, parse,
// serialize and deserialize.
func (s *Shell) installEJSON() {
	rt := s.rt
	e := rt.NewObject()
	relaxedOpt := func(v goja.Value) bool {
		if o, ok := v.(*goja.Object); ok && o.ClassName() == "Object" {
			if r := o.Get("relaxed"); r != nil && !goja.IsUndefined(r) {
				return r.ToBoolean()
			}
			if r := o.Get("canonical"); r != nil && !goja.IsUndefined(r) {
				return !r.ToBoolean()
			}
		}
		return true
	}
	_ = e.Set("stringify", func(c goja.FunctionCall) goja.Value {
		relaxed := true
		space := goja.Undefined()
		switch len(c.Arguments) {
		case 0, 1:
		case 2:
			relaxed = relaxedOpt(c.Argument(1))
		default:
			space = c.Argument(2)
			relaxed = relaxedOpt(c.Argument(3))
			if len(c.Arguments) == 3 {
				relaxed = relaxedOpt(c.Argument(1))
			}
		}
		if !legacyOpt(c.Argument(1)) && !legacyOpt(c.Argument(3)) {
			s.checkWritable(c.Argument(0))
			return s.ejsonStringify(c.Argument(0), relaxed, space)
		}
		v, err := s.toBSON(c.Argument(0), 0)
		s.check(err)
		out, err := document.MarshalExtJSON(legacyEJSON(v), !relaxed)
		s.check(err)
		return rt.ToValue(indentJSON(out, space))
	})
	_ = e.Set("parse", func(c goja.FunctionCall) goja.Value {
		text := c.Argument(0).String()
		if msg := v8JSONError(text); msg != "" {
			// Not JSON: the bson library's JSON.parse says so, in V8's words.
			s.throw("SyntaxError", "%s", msg)
		}
		v, err := document.ParseExtJSONValue([]byte(text))
		s.check(err)
		if relaxedOpt(c.Argument(1)) {
			return s.toJS(relaxNumbers(v))
		}
		return s.toJSBoxed(v)
	})
	_ = e.Set("serialize", func(c goja.FunctionCall) goja.Value {
		v, err := s.toBSON(c.Argument(0), 0)
		s.check(err)
		return s.jsonValue(v, !relaxedOpt(c.Argument(1)))
	})
	_ = e.Set("deserialize", func(c goja.FunctionCall) goja.Value {
		// JSON.stringify keeps the keys' order, as the bson library
		// reads them.
		stringify, _ := goja.AssertFunction(rt.Get("JSON").ToObject(rt).Get("stringify"))
		str, err := stringify(goja.Undefined(), c.Argument(0))
		if err != nil {
			panic(err)
		}
		v, err := document.ParseExtJSONValue([]byte(str.String()))
		s.check(err)
		if relaxedOpt(c.Argument(1)) {
			return s.toJS(relaxNumbers(v))
		}
		return s.toJSBoxed(v)
	})
	_ = rt.Set("EJSON", e)
}

// jsonValue is v in Extended JSON (canonical or relaxed) as a
// JavaScript value, its keys in v's order.
func (s *Shell) jsonValue(v any, canonical bool) goja.Value {
	out, err := document.MarshalExtJSON(v, canonical)
	s.check(err)
	parse, _ := goja.AssertFunction(s.rt.Get("JSON").ToObject(s.rt).Get("parse"))
	r, err := parse(goja.Undefined(), s.rt.ToValue(string(out)))
	if err != nil {
		panic(err)
	}
	return r
}

// toJSBoxed is toJS, except that int32 and double values are kept as
// Int32 and Double: what EJSON.parse and deserialize give with
// relaxed: false.
func (s *Shell) toJSBoxed(v any) goja.Value {
	switch x := v.(type) {
	case int32:
		return s.wrap(s.protos.int32, x)
	case float64:
		return s.wrap(s.protos.double, x)
	case bson.D:
		if _, ok := asDBRef(x); ok {
			return s.toJS(x)
		}
		o := s.rt.NewObject()
		for _, e := range x {
			_ = o.Set(e.Key, s.toJSBoxed(e.Value))
		}
		return o
	case bson.A:
		items := make([]any, len(x))
		for i, e := range x {
			items[i] = s.toJSBoxed(e)
		}
		return s.rt.NewArray(items...)
	}
	return s.toJS(v)
}

// legacyOpt reports whether EJSON options o ask for the legacy form.
func legacyOpt(o goja.Value) bool {
	obj, ok := o.(*goja.Object)
	return ok && obj.ClassName() == "Object" && obj.Get("legacy") != nil && obj.Get("legacy").ToBoolean()
}

// legacyEJSON rewrites v for the bson library's legacy Extended JSON: a
// date as {$date: milliseconds}, a binary as {$binary: base64, $type:
// hex}, a regular expression as {$regex, $options}.
func legacyEJSON(v any) any {
	return mapLeaves(v, func(v any) any {
		switch x := v.(type) {
		case bson.DateTime:
			return bson.D{{Key: "$date", Value: int64(x)}}
		case bson.Binary:
			return bson.D{{Key: "$binary", Value: base64.StdEncoding.EncodeToString(x.Data)}, {Key: "$type", Value: fmt.Sprintf("%02x", x.Subtype)}}
		case bson.Regex:
			return bson.D{{Key: "$regex", Value: x.Pattern}, {Key: "$options", Value: x.Options}}
		}
		return v
	})
}

// relaxNumbers turns int64 values that a double holds exactly into
// numbers, as EJSON.parse does in relaxed mode.
func relaxNumbers(v any) any {
	return mapLeaves(v, func(v any) any {
		if x, ok := v.(int64); ok && x >= -(1<<53) && x <= 1<<53 {
			return float64(x)
		}
		return v
	})
}

// mapLeaves is v rebuilt with leaf applied to every value in it that
// is not a document or an array, at any depth; documents keep their
// field names and order. What leaf returns is not walked again.
func mapLeaves(v any, leaf func(any) any) any {
	switch x := v.(type) {
	case bson.D:
		out := make(bson.D, len(x))
		for i, e := range x {
			out[i] = bson.E{Key: e.Key, Value: mapLeaves(e.Value, leaf)}
		}
		return out
	case bson.A:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = mapLeaves(e, leaf)
		}
		return out
	}
	return leaf(v)
}

// indentJSON applies JSON.stringify's space argument to compact JSON.
func indentJSON(b []byte, space goja.Value) string {
	ind := ""
	if space != nil && !goja.IsUndefined(space) && !goja.IsNull(space) {
		switch {
		case goja.IsNumber(space):
			ind = strings.Repeat(" ", int(min(max(space.ToInteger(), 0), 10)))
		case goja.IsString(space):
			if u := utf16.Encode([]rune(space.String())); len(u) > 10 { // JavaScript's first ten
				ind = string(utf16.Decode(u[:10]))
			} else {
				ind = space.String()
			}
		}
	}
	if ind == "" {
		return string(b)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", ind); err != nil {
		return string(b)
	}
	return buf.String()
}
