package mongosh

import (
	"errors"
	"testing"
)

// TestJSErrorsAsMongosh checks that JavaScript's own TypeErrors carry
// V8's words, as in mongosh 2.12.0, whether the script catches them or
// not: a call of what is not a function names the callee as written,
// and reading a property of undefined says "reading". A built-in's own
// refusal, a destructured catch parameter and other errors keep their
// words.
func TestJSErrorsAsMongosh(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	cases := []struct{ src, want string }{
		{`try { db.c.nosuch() } catch (e) { print(e.name, e.message) }`, "TypeError db.c.nosuch is not a function"},
		{`const c = db.c.find(); try { c.nosuch() } catch (e) { print(e.message) }`, "c.nosuch is not a function"},
		{`function g() { const o = {a: {}}; o["a"].f() }
try { g() } catch (e) { print(e.message) }`, `o["a"].f is not a function`},
		{`try { let n = 5; n() } catch (e) { print(e.message) }`, "n is not a function"},
		{`try { let u; u.x } catch (err) { print(err.message) }`, "Cannot read properties of undefined (reading 'x')"},
		{`try { [1].map(v => v.y.z) } catch (e) { print(e.message) }`, "Cannot read properties of undefined (reading 'z')"},
		{`try { Object.defineProperty(5, "a", {}) } catch (e) { print(e.message) }`, "Object.defineProperty called on non-object"},
		{`try { throw new TypeError("mine") } catch (e) { print(e.message) }`, "mine"},
		{`try { ({}).q() } catch ({ message }) { print(message) }`, "Object has no member 'q'"},
		// null told from undefined: the literal, what findOne and match
		// answer for none, and a top-level name or chain read again.
		{`try { null.x } catch (e) { print(e.message) }`, "Cannot read properties of null (reading 'x')"},
		{`try { db.none.findOne({_id: 1}).name } catch (e) { print(e.message) }`, "Cannot read properties of null (reading 'name')"},
		{`try { "abc".match(/z(.)/)[1] } catch (e) { print(e.message) }`, "Cannot read properties of null (reading '1')"},
		{`var gn = {a: null}; try { gn.a["b"] } catch (e) { print(e.message) }`, "Cannot read properties of null (reading 'b')"},
		{`let gu = {}; try { gu.a[0] } catch (e) { print(e.message) }`, "Cannot read properties of undefined (reading '0')"},
		{`var gs = null; try { gs.x = 1 } catch (e) { print(e.message) }`, "Cannot set properties of null (setting 'x')"},
		{`var gk = "k"; try { undefined[gk] = 1 } catch (e) { print(e.message) }`, "Cannot set properties of undefined (setting 'k')"},
		{`try { Object.keys(null) } catch (e) { print(e.message) }`, "Cannot convert undefined or null to object"},
		{`try { new gn.a() } catch (e) { print(e.message) }`, "gn.a is not a constructor"},
		{`class K {}; try { K() } catch (e) { print(e.message) }`, "Class constructor K cannot be invoked without 'new'"},
		// The callee as mongosh names it: a string subscript last as a
		// name, what it is read from cut past 25 characters.
		{`const so = {a: {}}; try { so["a"]["f"]() } catch (e) { print(e.message) }`, `so["a"].f is not a function`},
		{`const lo = {a() { return {} }}; try { lo.a(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)["b"]() } catch (e) { print(e.message) }`, "lo.a(1, 2, 3,  ... 9, 10).b is not a function"},
		{`const abcdefghijklmnopqrstuvwxyz = {}; try { abcdefghijklmnopqrstuvwxyz.f() } catch (e) { print(e.message) }`, "abcdefghijklmnopqrstuvwxyz.f is not a function"},
		{`try { db.none.find({n: 1}, {_id: 1}).sort({_id: -1}).map(d => d._id).join(",") } catch (e) { print(e.message) }`, "db.none.find({ ... d._id).join is not a function"},
		{`try { db.none.find({n: 1}).next().s } catch (e) { print(e.message) }`, "Cannot read properties of null (reading 's')"},
		// A literal receiver as V8 prints it.
		{`try { "abc".foo() } catch (e) { print(e.message) }`, `"abc".foo is not a function`},
		{"try { `t`.x() } catch (e) { print(e.message) }", `"t".x is not a function`},
		{`try { [1, "a"].foo() } catch (e) { print(e.message) }`, `[1,"a"].foo is not a function`},
		{`try { [].reduce((a, b) => a) } catch (e) { print(e.message) }`, "Reduce of empty array with no initial value"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
	_, err := eval(t, s, out, "const o2 = {};\no2.f()")
	var se *ScriptError
	if !errors.As(err, &se) || se.Name != "TypeError" || se.Message != "o2.f is not a function" {
		t.Errorf("uncaught o2.f(): %v, want TypeError: o2.f is not a function", err)
	}
	for src, want := range map[string]string{
		"var o3 = null;\no3.x":           "Cannot read properties of null (reading 'x')",
		"var o4 = {b: null}; o4.b.c = 1": "Cannot set properties of null (setting 'c')",
		// In a function, a parameter's value is gone: goja's undefined
		// stays. A name the function gave the literal null last, in the
		// source's order, is null; a global read there is read again.
		"function f5(a) { return a.b }\nf5(null)":                                        "Cannot read properties of undefined (reading 'b')",
		"function f6() { let o = null; return o.x }\nf6()":                               "Cannot read properties of null (reading 'x')",
		"function f7() { let o = {}; o = null; o.k = 1 }\nf7()":                          "Cannot set properties of null (setting 'k')",
		"function f8() { let o = null; o = undefined; return o.x }\nf8()":                "Cannot read properties of undefined (reading 'x')",
		"var g9 = null; function f9() { return g9.x }\nf9()":                             "Cannot read properties of null (reading 'x')",
		"function f10() { let o = null; return (() => { let o; return o.z })() }\nf10()": "Cannot read properties of undefined (reading 'z')",
		"const f11 = () => { var o; o = null; return o.y };\nf11()":                      "Cannot read properties of null (reading 'y')",
	} {
		_, err := eval(t, s, out, src)
		if !errors.As(err, &se) || se.Name != "TypeError" || se.Message != want {
			t.Errorf("uncaught %q: %v, want TypeError: %s", src, err, want)
		}
	}
}
