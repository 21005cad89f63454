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
}
