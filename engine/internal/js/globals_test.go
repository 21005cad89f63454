package js

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// callOne compiles and calls src with no arguments.
func callOne(t *testing.T, src string) (any, error) {
	t.Helper()
	f, err := Compile(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return f.Call(context.Background())
}

// TestNativeHelperErrorsKeepTheirCode: a native helper's refusal is an
// Error carrying mongod's code and reason, which a script can catch and
// read; uncaught, it fails the call with that code.
func TestNativeHelperErrorsKeepTheirCode(t *testing.T) {
	t.Parallel()
	got, err := callOne(t, `function() { try { hex_md5(1) } catch (e) { return [e.code, e.reason, e.message, String(e), e instanceof Error] } }`)
	reason := "hex_md5 takes a single string argument -- hex_md5(string)"
	want := bson.A{int32(10261), reason, reason, "Error: " + reason, true}
	if err != nil || document.Compare(got, want) != 0 {
		t.Errorf("caught hex_md5 error = %v, %v; want %v", got, err, want)
	}
	_, err = callOne(t, `function() { return tostrictjson(1) }`)
	var de *document.Error
	if !errors.As(err, &de) || de.Code != 40275 || de.Code.String() != "Location40275" ||
		de.Message != "tostrictjson takes a single BSON object argument, and on optional boolean argument for prettyPrint -- tostrictjson(obj, prettyPrint = false) :\n@:1:34\n" {
		t.Errorf("tostrictjson(1): %#v", err)
	}
}

// TestToStrictJSON: mongod's tostrictjson writes an object in the
// legacy strict extended JSON of BSONObj::jsonString.
func TestToStrictJSON(t *testing.T) {
	t.Parallel()
	cases := []struct{ src, want string }{
		{`tostrictjson({})`, `{}`},
		{`tostrictjson({a: 1, s: "x\n\"", n: null, u: undefined, b: true})`, `{ "a" : 1, "s" : "x\n\"", "n" : null, "u" : { "$undefined" : true }, "b" : true }`},
		{`tostrictjson({d: 0.1, i: NumberInt(3), l: NumberLong(5), big: 1e21, nan: NaN, inf: -Infinity})`, `{ "d" : 0.1, "i" : 3, "l" : { "$numberLong" : "5" }, "big" : 1e+21, "nan" : NaN, "inf" : -Infinity }`},
		{`tostrictjson({arr: [1, {e: []}], o: {}})`, `{ "arr" : [ 1, { "e" : [] } ], "o" : {} }`},
		{`tostrictjson({t: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)), old: new Date(-1)})`, `{ "t" : { "$date" : "2024-01-02T03:04:05.006+0000" }, "old" : { "$date" : { "$numberLong" : "-1" } } }`},
		{`tostrictjson({id: ObjectId("0123456789abcdef01234567"), r: /a"b/i, ts: Timestamp(1, 2), k: MinKey(), x: MaxKey()})`, `{ "id" : { "$oid" : "0123456789abcdef01234567" }, "r" : { "$regex" : "a\"b", "$options" : "i" }, "ts" : { "$timestamp" : { "t" : 1, "i" : 2 } }, "k" : { "$minKey" : 1 }, "x" : { "$maxKey" : 1 } }`},
		{`tostrictjson({b: BinData(0, "AQI="), dec: NumberDecimal("1.5")})`, `{ "b" : { "$binary" : "AQI=", "$type" : "00" }, "dec" : { "$numberDecimal" : "1.5" } }`},
		{`tostrictjson([1, 2])`, `{ "0" : 1, "1" : 2 }`},
		{`tostrictjson({a: 1, b: {c: 2}, d: [1]}, true)`, "{\n     \"a\" :  1,\n     \"b\" :  {\n         \"c\" :  2 \n    },\n     \"d\" :  [\n         1 \n    ] \n}"},
		{`tostrictjson({a: 1}, false)`, `{ "a" : 1 }`},
	}
	for _, c := range cases {
		got, err := callOne(t, `function() { return `+c.src+` }`)
		if err != nil || got != c.want {
			t.Errorf("%s = %q, %v\n want %q", c.src, got, err, c.want)
		}
	}
	for _, src := range []string{`tostrictjson()`, `tostrictjson(1)`, `tostrictjson("a")`, `tostrictjson(NumberLong(1))`, `tostrictjson({}, 1)`, `tostrictjson({}, undefined)`, `tostrictjson({}, true, true)`} {
		_, err := callOne(t, `function() { return `+src+` }`)
		var de *document.Error
		if !errors.As(err, &de) || de.Code != 40275 {
			t.Errorf("%s: %v, want 40275", src, err)
		}
	}
}

// TestAssertInServerScope: mongod loads its shell's assert.js into
// every server-side scope; an assertion that holds returns as in the
// shell, one that fails reaches the shell's jsTest (or friendlyEqual,
// TestData, WriteResult), which a server scope has not, so the script
// fails with that ReferenceError, after the message function ran. The
// equality helpers reach friendlyEqual for any two values that are not
// == and not null, so assert.neq(1, 2) fails too, as on mongod.
func TestAssertInServerScope(t *testing.T) {
	t.Parallel()
	ok := []struct{ src, want string }{
		{`assert(true); assert(1, "m"); assert.eq(1, 1); assert.eq(null, undefined); assert.neq(1, null); return "ok"`, `ok`},
		{`assert.lt(1, 2); assert.gte(2, 2); assert.between(1, 2, 3); assert.betweenEx(1, 2, 3); assert.close(1, 1.00001); return "ok"`, `ok`},
		{`assert.isnull(null); assert.contains(2, [2]); assert.containsPrefix("ab", ["x", "abc"]); assert.hasFields({a: 1}, ["a"]); return "ok"`, `ok`},
		{`return assert.throws(function() { throw 5 })`, `5`},
		{`return assert.doesNotThrow(function() { return 7 })`, `7`},
		{`return assert.throwsWithCode(function() { hex_md5() }, 10261).code`, `10261`},
		{`assert.setEq(new Set([1, 2]), new Set([2, 1])); assert.sameMembers([1, 2], [1, 2]); return "ok"`, `ok`},
		{`return tojsononeline(sortDoc({b: 1, a: {d: 1, c: [{z: 1, y: 2}]}}))`, `{  "a" : {  "c" : [ { "y" : 2, "z" : 1 } ],  "d" : 1 },  "b" : 1 }`},
		{`return _convertExceptionToReturnStatus(function() { throw 1 }, "x")()`, `false`},
		{`return [typeof assert, typeof doassert, typeof sortDoc, typeof tostrictjson].join()`, `function,function,function,function`},
	}
	for _, c := range ok {
		got, err := callOne(t, `function() { `+c.src+` }`)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if s := fmtScalar(got); s != c.want {
			t.Errorf("%s = %s, want %s", c.src, s, c.want)
		}
	}
	fail := []struct{ src, name string }{
		{`assert(false)`, "jsTest"},
		{`assert(false, "boom")`, "jsTest"},
		{`assert(true, "m", 3)`, "jsTest"},
		{`assert(true, function(x) { return x })`, "jsTest"},
		{`assert.eq(1, 2)`, "friendlyEqual"},
		{`assert.eq({a: 1}, {a: 1})`, "friendlyEqual"},
		{`assert.neq(1, 1)`, "jsTest"},
		{`assert.neq(1, 2)`, "friendlyEqual"},
		{`assert.contains(2, [1, 2])`, "friendlyEqual"},
		{`assert.sameMembers([1, 2], [2, 1])`, "friendlyEqual"},
		{`doassert("x")`, "jsTest"},
		{`assert.throws(function() {})`, "jsTest"},
		{`assert.soon(function() { return true })`, "TestData"},
		{`assert.commandWorked({ok: 1})`, "WriteResult"},
		{`assert.writeOK({ok: 1})`, "WriteResult"},
	}
	for _, c := range fail {
		_, err := callOne(t, `function() { `+c.src+` }`)
		var de *document.Error
		want := "uncaught exception: ReferenceError: " + c.name + " is not defined :\n"
		if !errors.As(err, &de) || de.Code != CodeJSInterpreterFailure || len(de.Message) < len(want) || de.Message[:len(want)] != want {
			t.Errorf("%s: %v, want 139 %q", c.src, err, want)
		}
	}
	// The message function runs before doassert fails.
	got, err := callOne(t, `function() { var n = 0; try { assert(false, function() { n++; return "m" }) } catch (e) { return n + " " + e } }`)
	if err != nil || got != "1 ReferenceError: jsTest is not defined" {
		t.Errorf("message function: %v, %v", got, err)
	}
}

// fmtScalar renders a script's result for comparison.
func fmtScalar(x any) string { return fmt.Sprint(x) }
