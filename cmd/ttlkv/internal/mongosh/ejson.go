package mongosh

import (
	"math"
	"strconv"

	"github.com/dop251/goja"
)

// The Extended JSON writer of EJSON.stringify and --json, as the bson
// library under mongosh writes: it works on the JavaScript values (a
// number is told from a Double, unlike in BSON) and leaves the text to
// JSON.stringify, so numbers, strings and the order of keys are
// JavaScript's.

// ejsonStringify is the bson library's EJSON.stringify(v, undefined,
// space, {relaxed}): v as Extended JSON (ejsonValue), written by
// JavaScript's JSON.stringify, so that numbers, strings and the keys'
// order are JavaScript's. Its answer is undefined where JSON.stringify's
// is (a function, a symbol).
func (s *Shell) ejsonStringify(v goja.Value, relaxed bool, space goja.Value) goja.Value {
	stringify, _ := goja.AssertFunction(s.rt.Get("JSON").ToObject(s.rt).Get("stringify"))
	r, err := stringify(goja.Undefined(), s.ejsonValue(v, relaxed, 0), goja.Undefined(), space)
	if err != nil {
		panic(err)
	}
	return r
}

// ejsonValue is v in Extended JSON as the bson library's serializer
// makes it, a JavaScript value for JSON.stringify: a number is itself
// when relaxed and finite, else {$numberInt} (a whole number in 32
// bits), {$numberLong} (one in 64) or {$numberDouble}; Int32 and
// Double are theirs ({$numberDouble: "3.0"}); a date is {$date: ISO}
// when relaxed and from 1970 to 9999, else {$date: {$numberLong}}; a
// Map of string keys is a document; the shell's other BSON values are
// their Extended JSON; an object is its own keys; functions and
// symbols are left to JSON.stringify, which leaves them out.
func (s *Shell) ejsonValue(v goja.Value, relaxed bool, depth int) goja.Value {
	rt := s.rt
	if depth > maxDepth {
		panic(rt.NewTypeError("value nested more than %d levels deep (is it cyclic?)", maxDepth))
	}
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return goja.Null()
	}
	if goja.IsBigInt(v) { // {$numberLong}, a number when relaxed
		x, err := s.toBSON(v, depth)
		s.check(err)
		i, _ := x.(int64)
		if relaxed {
			return rt.ToValue(float64(i))
		}
		return s.ejsonObject("$numberLong", rt.ToValue(strconv.FormatInt(i, 10)))
	}
	if goja.IsNumber(v) {
		return s.ejsonNumber(v.ToFloat(), relaxed)
	}
	o, ok := v.(*goja.Object)
	if !ok {
		return v // a string, a boolean, a symbol
	}
	if _, isFn := goja.AssertFunction(o); isFn {
		return o
	}
	if b := s.boxOf(o); b != nil {
		switch x := b.v.(type) {
		case int32:
			if relaxed {
				return rt.ToValue(x)
			}
			return s.ejsonObject("$numberInt", rt.ToValue(strconv.Itoa(int(x))))
		case float64:
			if relaxed && !math.IsInf(x, 0) && !math.IsNaN(x) {
				return rt.ToValue(x)
			}
			text := numberText(s, x)
			switch {
			case x == 0 && math.Signbit(x):
				text = "-0.0"
			case x == math.Trunc(x) && !math.IsInf(x, 0):
				text = s.callMethod(rt.ToValue(x).ToObject(rt), "toFixed", rt.ToValue(1)).String()
			}
			return s.ejsonObject("$numberDouble", rt.ToValue(text))
		}
		x, err := s.toBSON(o, depth)
		s.check(err)
		return s.jsonValue(x, !relaxed)
	}
	switch o.ClassName() {
	case "Array":
		n := int(o.Get("length").ToInteger())
		a := rt.NewArray()
		for i := 0; i < n; i++ {
			_ = a.Set(strconv.Itoa(i), s.ejsonValue(o.Get(strconv.Itoa(i)), relaxed, depth+1))
		}
		return a
	case "Date":
		ms := s.callMethod(o, "getTime").ToFloat()
		if relaxed && ms > -1 && ms < 253402300800000 {
			iso := s.callMethod(o, "toISOString").String()
			if int64(ms)%1000 == 0 {
				iso = iso[:len(iso)-5] + "Z"
			}
			return s.ejsonObject("$date", rt.ToValue(iso))
		}
		return s.ejsonObject("$date", s.ejsonObject("$numberLong", rt.ToValue(strconv.FormatInt(int64(ms), 10))))
	case "RegExp":
		x, err := s.toBSON(o, depth)
		s.check(err)
		return s.jsonValue(x, !relaxed)
	}
	if mapCtor, ok := rt.Get("Map").(*goja.Object); ok && rt.InstanceOf(o, mapCtor) {
		from, _ := goja.AssertFunction(rt.Get("Array").ToObject(rt).Get("from"))
		pairs, err := from(goja.Undefined(), o)
		if err != nil {
			panic(err)
		}
		po := pairs.ToObject(rt)
		d := rt.NewObject()
		for i := 0; i < int(po.Get("length").ToInteger()); i++ {
			pair := po.Get(strconv.Itoa(i)).ToObject(rt)
			if !goja.IsString(pair.Get("0")) {
				e, err := rt.New(rt.Get("Error").(*goja.Object), rt.ToValue("Can only serialize maps with string keys"))
				if err != nil {
					panic(err)
				}
				_ = e.DefineDataProperty("name", rt.ToValue("BSONError"), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
				panic(e)
			}
			_ = d.Set(pair.Get("0").String(), s.ejsonValue(pair.Get("1"), relaxed, depth+1))
		}
		return d
	}
	d := rt.NewObject()
	for _, k := range o.Keys() {
		_ = d.Set(k, s.ejsonValue(o.Get(k), relaxed, depth+1))
	}
	return d
}

// ejsonNumber is a JavaScript number in Extended JSON, as the bson
// library writes one.
func (s *Shell) ejsonNumber(f float64, relaxed bool) goja.Value {
	rt := s.rt
	if relaxed && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return rt.ToValue(f)
	}
	negZero := f == 0 && math.Signbit(f)
	if f == math.Trunc(f) && !negZero && !math.IsInf(f, 0) {
		if f >= math.MinInt32 && f <= math.MaxInt32 {
			return s.ejsonObject("$numberInt", rt.ToValue(strconv.FormatInt(int64(f), 10)))
		}
		if f >= -9223372036854775808 && f <= 9223372036854775807 {
			return s.ejsonObject("$numberLong", rt.ToValue(numberText(s, f)))
		}
	}
	if negZero {
		return s.ejsonObject("$numberDouble", rt.ToValue("-0.0"))
	}
	return s.ejsonObject("$numberDouble", rt.ToValue(numberText(s, f)))
}

// numberText is JavaScript's String(f).
func numberText(s *Shell, f float64) string { return s.rt.ToValue(f).String() }

// ejsonObject is {key: v}.
func (s *Shell) ejsonObject(key string, v goja.Value) *goja.Object {
	o := s.rt.NewObject()
	_ = o.Set(key, v)
	return o
}
