package js

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestFunctionSource(t *testing.T) {
	t.Parallel()
	// The forms mongod turns into functions (jstests/core/where1.js and
	// the $function tests use each).
	doc := bson.D{{Key: "a", Value: int32(2)}, {Key: "b", Value: "x"}}
	cases := []struct {
		src  string
		want bool
	}{
		{"return this.a == 2", true},
		{"this.a == 2", true},
		{"this.a == 3", false},
		{"this.a == 2;", true},
		{"  this.a == 2 ;  ; ", true},
		{"function() { return this.a == 2; }", true},
		{"function () { return obj.a == 2 }", true},
		{"function f() { return this.a == 2 }", true},
		{"var x = 2; this.a == x", true},
		{"var x = 3; this.a == x", false},
		{"((this.a == 2))", true},
		{"(this.a == 2) && (this.b == 'x')", true},
		{"if (this.a == 2) { return true } return false", true},
		{"if (this.a == 2) { return false } return true", false},
		{"obj.b === 'x'", true},
		{"true", true},
		{"1", true},
		{"0", false},
		{"null", false},
		{"var y = 1", false}, // no expression last: undefined
		{"this.a == 2 // a comment", true},
		{"\nthis.b\n", true},
	}
	for _, c := range cases {
		f, err := Compile(c.src)
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		got, err := f.Where(context.Background(), doc)
		if err != nil || got != c.want {
			t.Errorf("%q (%s): %v, %v; want %v", c.src, f.Source(), got, err, c.want)
		}
	}
}

func codeOf(err error) document.Code { return document.CodeOf(err) }

func TestErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src  string
		code document.Code
		msg  string
	}{
		{"this.a ==", CodeJSInterpreterFailure, "SyntaxError"},
		{"function(){ throw new Error('boom') }", CodeJSInterpreterFailure, "uncaught exception: Error: boom :\n"},
		{"nosuch()", CodeJSInterpreterFailure, "uncaught exception: ReferenceError: nosuch is not defined"},
		{"function(){ throw 'str' }", CodeUnknownError, "uncaught exception: str"},
		{"function f(n){ return f(n+1) }", CodeJSInterpreterFailure, "too much recursion"},
		{"function(){ return 'ab'.repeat(1e9) }", CodeJSInterpreterFailure, "RangeError"},
		{"function(){ return new Array(1e9).join('x') }", CodeJSInterpreterFailure, "RangeError"},
	}
	for _, c := range cases {
		f, err := Compile(c.src)
		if err == nil {
			_, err = f.Call(context.Background(), int32(1))
		}
		if codeOf(err) != c.code || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: %v; want code %d containing %q", c.src, err, c.code, c.msg)
		}
	}
}

func TestInterrupt(t *testing.T) {
	t.Parallel()
	f, err := Compile("function(){ while (true) {} }")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = f.Call(ctx)
	if codeOf(err) != document.CodeMaxTimeMSExpired {
		t.Fatalf("deadline: %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = f.Where(ctx, bson.D{})
	if codeOf(err) != CodeInterrupted {
		t.Fatalf("cancel: %v", err)
	}
	// The runtime that was interrupted is not reused interrupted.
	g, _ := Compile("1 + 1")
	if v, err := g.Call(context.Background()); err != nil || v != 2.0 {
		t.Fatalf("after: %v %v", v, err)
	}
}

// sleep(ms) waits, returns undefined, and ends at once when its call is
// interrupted: a sleep of days under a 30 ms deadline fails with 50
// instead of holding the test.
func TestSleep(t *testing.T) {
	t.Parallel()
	f, err := Compile("function(ms) { var r = sleep(ms); return [typeof r, typeof sleep] }")
	if err != nil {
		t.Fatal(err)
	}
	for _, ms := range []any{1.0, int32(0), -5.0, "x", nil} {
		v, err := f.Call(context.Background(), ms)
		if err != nil || !reflect.DeepEqual(v, bson.A{"undefined", "function"}) {
			t.Errorf("sleep(%v): %v %v", ms, v, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := f.Call(ctx, 1e12); codeOf(err) != document.CodeMaxTimeMSExpired {
		t.Fatalf("a long sleep past the deadline: %v", err)
	}
	w, err := Compile("function() { sleep(1e12); return true }")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := w.Where(ctx, bson.D{}); codeOf(err) != CodeInterrupted {
		t.Fatalf("a sleep cancelled: %v", err)
	}
}

func TestConversions(t *testing.T) {
	t.Parallel()
	oid := bson.NewObjectID()
	when := bson.DateTime(1700000000123)
	dec, _ := bson.ParseDecimal128("1.5")
	bin := bson.Binary{Subtype: 0, Data: []byte{1, 2, 3}}
	ts := bson.Timestamp{T: 5, I: 6}
	in := bson.D{
		{Key: "z", Value: int32(1)}, {Key: "1", Value: "one"}, {Key: "a", Value: 2.5},
		{Key: "l", Value: int64(1) << 60}, {Key: "s", Value: "str"}, {Key: "t", Value: true},
		{Key: "n", Value: nil}, {Key: "u", Value: bson.Undefined{}}, {Key: "d", Value: when},
		{Key: "o", Value: oid}, {Key: "r", Value: bson.Regex{Pattern: "^a", Options: "i"}},
		{Key: "arr", Value: bson.A{int32(1), "two", bson.D{{Key: "x", Value: int32(3)}}}},
		{Key: "dec", Value: dec}, {Key: "bin", Value: bin}, {Key: "ts", Value: ts},
		{Key: "min", Value: bson.MinKey{}}, {Key: "max", Value: bson.MaxKey{}},
		{Key: "sub", Value: bson.D{{Key: "q", Value: int32(7)}}},
	}
	id, _ := Compile("function(x) { return x }")
	got, err := id.Call(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if document.Compare(got, in) != 0 || document.Format(got) != document.Format(in) {
		t.Fatalf("identity:\n got %s\nwant %s", document.Format(got), document.Format(in))
	}
	checks := []struct {
		src  string
		want any
	}{
		{"function(x) { return typeof x.z }", "number"},
		{"function(x) { return x.l > 1 && x.l.toNumber() == 1152921504606846976 }", true},
		{"function(x) { return x.l.toString() }", `NumberLong("1152921504606846976")`},
		{"function(x) { return NumberLong(5) == 5 && NumberLong(5) < 6 && NumberLong(5).toString() }", "NumberLong(5)"},
		{"function(x) { return x.o.str.length == 24 && x.o.equals(x.o) && x.o.getTimestamp() instanceof Date }", true},
		{"function(x) { return x.o instanceof ObjectId && x.o.toString().indexOf('ObjectId(') == 0 }", true},
		{"function(x) { return x.d instanceof Date && x.d.getTime() }", 1700000000123.0},
		{"function(x) { return x.r.test('ABC') }", true},
		{"function(x) { return x.n === null && x.u === undefined && x.nosuch === undefined }", true},
		{"function(x) { return Object.keys(x).slice(0, 3).join() }", "z,1,a"},
		{"function(x) { return x.arr.length == 3 && Array.isArray(x.arr) && x.arr[2].x }", 3.0},
		{"function(x) { return x.ts.t + x.ts.i }", 11.0},
		{"function(x) { return x.bin.length() }", 3.0},
		{"function(x) { return 1 }", 1.0},
		{"function(x) { x.z = 5; return x.z }", 5.0},
		{"function(x) { x.z = 5; x.a = 7; return x }", bson.D{{Key: "z", Value: int32(5)}, {Key: "a", Value: 7.0}}},
		{"function(x) { return {b: 1, a: [1, 'x'], c: {d: null}} }", bson.D{{Key: "b", Value: 1.0}, {Key: "a", Value: bson.A{1.0, "x"}}, {Key: "c", Value: bson.D{{Key: "d", Value: nil}}}}},
		{"function(x) { return NumberInt(4) }", int32(4)},
		{"function(x) { return NumberLong('9007199254740993') }", int64(9007199254740993)},
		{"function(x) { return NumberDecimal('1.5') }", dec},
		{"function(x) { return new Date(5) }", bson.DateTime(5)},
		{"function(x) { return /a.b/im }", bson.Regex{Pattern: "a.b", Options: "im"}},
		{"function(x) { return undefined }", bson.Undefined{}},
		{"function(x) { return [x.min, x.max, x.dec, x.bin, x.ts] }", bson.A{bson.MinKey{}, bson.MaxKey{}, dec, bin, ts}},
		{"function(x) { return ObjectId('000000000000000000000001') }", bson.ObjectID{11: 1}},
		{"function(x) { return x.sub }", bson.D{{Key: "q", Value: int32(7)}}},
		{"function(x) { delete x.sub.q; x.sub.r = 1; return x.sub }", bson.D{{Key: "r", Value: 1.0}}},
	}
	for _, c := range checks {
		f, err := Compile(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		got, err := f.Call(context.Background(), in)
		if c.src == "function(x) { x.z = 5; x.a = 7; return x }" {
			d, _ := got.(bson.D)
			if len(d) > 2 {
				got = d[:1]
				got = append(got.(bson.D), d[2])
			}
		}
		if err != nil || document.Compare(got, c.want) != 0 || document.TypeNumber(got) != document.TypeNumber(c.want) {
			t.Errorf("%s: %s (%v); want %s", c.src, document.Format(got), err, document.Format(c.want))
		}
	}
}

func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	f, err := Compile("function(a, b) { var s = 0; for (var i = 0; i < 100; i++) s += a; leak = b; return s + b }")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				got, err := f.Call(context.Background(), int32(1), int32(g*1000+i))
				if err != nil || got != float64(100+g*1000+i) {
					t.Errorf("%v %v", got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	// A global a script assigned is gone for the next call.
	h, _ := Compile("typeof leak")
	if got, _ := h.Call(context.Background()); got != "undefined" {
		t.Fatalf("leak: %v", got)
	}
}

func TestOutOfMemory(t *testing.T) {
	// Not parallel: the limit is the process's.
	old := SetMemoryLimit(64 << 20)
	defer SetMemoryLimit(old)
	f, err := Compile("function() { var a = []; while (true) a.push(new Array(1000).fill(1.5)); }")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Call(context.Background())
	if codeOf(err) != CodeJSInterpreterFailure || !strings.Contains(err.Error(), "Out of memory") {
		t.Fatalf("%v", err)
	}
}

// TestShellHelpers: the print, printjson and tojson of mongod's
// server-side scopes (its mozjs print and its shell's types.js), with
// their output shapes.
func TestShellHelpers(t *testing.T) {
	t.Parallel()
	var lines []string
	var mu sync.Mutex
	ctx := WithPrint(context.Background(), func(s string) {
		mu.Lock()
		lines = append(lines, s)
		mu.Unlock()
	})
	doc := bson.D{{Key: "a", Value: int32(1)}, {Key: "s", Value: "x\"y"}, {Key: "n", Value: nil},
		{Key: "l", Value: int64(5)}, {Key: "arr", Value: bson.A{int32(1), "b"}}, {Key: "e", Value: bson.A{}},
		{Key: "d", Value: bson.NewDateTimeFromTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))},
		{Key: "sub", Value: bson.D{}}}
	cases := []struct{ src, want string }{
		{`function(d) { return tojson(d.a) }`, `1`},
		{`function(d) { return tojson("a\"b\n") }`, `"a\"b\n"`},
		{`function(d) { return tojson(null) + " " + tojson(undefined) + " " + tojson(true) }`, `null undefined true`},
		{`function(d) { return tojson({x: 1, y: "z"}) }`, `{ "x" : 1, "y" : "z" }`},
		{`function(d) { return tojson({}) }`, `{ }`},
		{`function(d) { return tojson([]) }`, `[ ]`},
		{`function(d) { return tojson([1, "a"]) }`, `[ 1, "a" ]`},
		{`function(d) { return tojson(d.d) }`, `ISODate("2024-01-02T03:04:05Z")`},
		{`function(d) { return tojson(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 60))) }`, `ISODate("2024-01-02T03:04:05.060Z")`},
		{`function(d) { return tojson(d.l) + " " + tojson(NumberInt(3)) + " " + tojson(ObjectId("0123456789abcdef01234567")) }`, `NumberLong(5) NumberInt(3) ObjectId("0123456789abcdef01234567")`},
		{`function(d) { return tojson(/a.b/i) }`, `/a.b/i`},
		{`function(d) { return tojson(d) }`, "{\n\t\"a\" : 1,\n\t\"s\" : \"x\\\"y\",\n\t\"n\" : null,\n\t\"l\" : NumberLong(5),\n\t\"arr\" : [\n\t\t1,\n\t\t\"b\"\n\t],\n\t\"e\" : [ ],\n\t\"d\" : ISODate(\"2024-01-02T03:04:05Z\"),\n\t\"sub\" : {\n\t\t\n\t}\n}"},
		{`function(d) { return tojsononeline(d) }`, `{  "a" : 1,  "s" : "x\"y",  "n" : null,  "l" : NumberLong(5),  "arr" : [ 1, "b" ],  "e" : [ ],  "d" : ISODate("2024-01-02T03:04:05Z"),  "sub" : {   } }`},
		{`function(d) { return isString("a") && isNumber(1) && isObject([]) && !isString(1) }`, `true`},
		{`function(d) { return hex_md5("abc") }`, `900150983cd24fb0d6963f7d28e17f72`},
		{`function(d) { print("a", 1, null, undefined, {}); printjson({k: [1]}); printjsononeline({k: 2}); return "ok" }`, `ok`},
	}
	for _, c := range cases {
		f, err := Compile(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		got, err := f.Call(ctx, doc)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if s := fmt.Sprint(got); s != c.want {
			t.Errorf("%s = %q, want %q", c.src, s, c.want)
		}
	}
	want := []string{`a 1 [unknown type] [unknown type] [object Object]`, `{ "k" : [ 1 ] }`, `{  "k" : 2 }`}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("printed %q, want %q", lines, want)
	}
	// hex_md5 takes one string: mongod's 10261, its reason then the
	// script's stack (without the native frame).
	for _, src := range []string{`function() { return hex_md5(1) }`, `function() { return hex_md5() }`, `function() { return hex_md5("a", "b") }`} {
		f, _ := Compile(src)
		_, err := f.Call(ctx)
		var de *document.Error
		if !errors.As(err, &de) || de.Code != 10261 || de.Message != "hex_md5 takes a single string argument -- hex_md5(string) :\n@:1:29\n" {
			t.Errorf("%s: %#v", src, err)
		}
	}
	// Without a destination print does nothing and returns undefined.
	f, _ := Compile(`function() { return print("x") === undefined }`)
	if got, err := f.Call(context.Background()); err != nil || got != true {
		t.Errorf("print without a destination = %v, %v", got, err)
	}
}

// TestSetting checks a limit's life: its default until set, the value
// set, the previous value returned, and the default again after 0 or
// less.
func TestSetting(t *testing.T) {
	t.Parallel()
	s := setting{def: 7}
	if got := s.get(); got != 7 {
		t.Fatalf("unset: %d, want 7", got)
	}
	if old := s.set(3); old != 7 || s.get() != 3 {
		t.Fatalf("set(3): old %d, now %d; want 7, 3", old, s.get())
	}
	if old := s.set(-1); old != 3 || s.get() != 7 {
		t.Fatalf("set(-1): old %d, now %d; want 3, 7", old, s.get())
	}
	if old := s.set(0); old != 7 || s.get() != 7 {
		t.Fatalf("set(0): old %d, now %d; want 7, 7", old, s.get())
	}
}
