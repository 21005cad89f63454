package mongosh

import (
	"errors"
	"strings"
	"testing"
)

// TestCircularMessage checks the bson library's message for the shell
// objects --json cannot write, as mongosh 2.12.0 printed it for each.
func TestCircularMessage(t *testing.T) {
	t.Parallel()
	head := "Converting circular structure to EJSON:\n    (root) -> "
	for _, tc := range []struct {
		path []string
		p    circularPath
		want string
	}{
		{[]string{"(root)"}, viaMongo, head + "_mongo -> __serviceProvider -> mongoClient -> s -> sessionPool -> client\n" +
			strings.Repeat(" ", 50) + "\\" + strings.Repeat("-", 31) + "/"},
		{[]string{"(root)"}, viaProvider, head + "__serviceProvider -> mongoClient -> s -> sessionPool -> client\n" +
			strings.Repeat(" ", 40) + "\\" + strings.Repeat("-", 31) + "/"},
		{[]string{"(root)"}, viaSession, head + "_session -> client -> s -> sessionPool -> client\n" +
			strings.Repeat(" ", 29) + "\\" + strings.Repeat("-", 29) + "/"},
		{[]string{"(root)"}, viaDatabase, head + "_database -> _mongo -> __serviceProvider -> mongoClient -> s -> sessionPool -> client\n" +
			strings.Repeat(" ", 63) + "\\" + strings.Repeat("-", 31) + "/"},
		{[]string{"(root)", "index 0"}, viaMongo, head + "index 0 -> _mongo -> __serviceProvider -> mongoClient -> s -> sessionPool -> client\n" +
			strings.Repeat(" ", 61) + "\\" + strings.Repeat("-", 31) + "/"},
	} {
		props := append(append([]string{}, tc.path...), tc.p.props...)
		if got := circularMessage(props, len(tc.path)-1+tc.p.first); got != tc.want {
			t.Errorf("%v:\n got %q\nwant %q", props, got, tc.want)
		}
	}
}

// TestJSONOutputFailures checks --json's failures, as mongosh --json's:
// a cursor, a database or a value holding one is the BSONError of a
// circular structure, and any error is printed as a document on
// standard output (its own keys, message, stack, name), status 1.
func TestJSONOutputFailures(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{JSON: "canonical"})
	run := func(src string) (string, error) {
		out.Reset()
		err := s.EvalCode("<eval>", src)
		return out.String(), err
	}
	for _, src := range []string{`db.c.find()`, `db.c.aggregate([])`, `db`, `db.c`, `[1, db.c.find().limit(1)]`, `db.c.initializeOrderedBulkOp()`} {
		got, err := run(src)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 1 || !strings.HasPrefix(got, "{\n  \"message\": \"Converting circular structure to EJSON:\\n    (root) -> ") ||
			!strings.Contains(got, "_mongo -> __serviceProvider -> mongoClient -> s -> sessionPool -> client\\n") ||
			!strings.HasSuffix(got, "\",\n  \"name\": \"BSONError\"\n}\n") {
			t.Errorf("%s: got %q (%v)", src, got, err)
		}
	}
	got, err := run(`class E extends Error { constructor() { super("m"); this.k = 1 } }; throw new E()`)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.HasPrefix(got, "{\n  \"k\": {\n    \"$numberInt\": \"1\"\n  },\n  \"message\": \"m\",\n  \"stack\": \"Error: m\\n    at ") ||
		!strings.HasSuffix(got, "\",\n  \"name\": \"Error\"\n}\n") {
		t.Errorf("throw: got %q (%v)", got, err)
	}
	got, err = run(`throw 5`)
	if want := "{\n  \"message\": \"5\",\n  \"stack\": \"Error: 5\",\n  \"name\": \"Error\"\n}\n"; !errors.As(err, &ee) || ee.Code != 1 || got != want {
		t.Errorf("throw 5: got %q (%v), want %q", got, err, want)
	}
	// quit(n) is the script's own status, nothing printed; an explain is
	// a document, and a document holding no shell object is written.
	if got, err = run(`quit(3)`); !errors.As(err, &ee) || ee.Code != 3 || got != "" {
		t.Errorf("quit(3): got %q (%v)", got, err)
	}
	if got, err = run(`db.c.find().explain().ok`); err != nil || got != "{\n  \"$numberInt\": \"1\"\n}\n" {
		t.Errorf("explain: got %q (%v)", got, err)
	}
}

// TestJSONLeavesOutFunctions checks that --json writes what
// JSON.stringify would, as mongosh --json: a function or a symbol is
// left out of an object, null in an array, and "undefined" alone.
func TestJSONLeavesOutFunctions(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{JSON: "relaxed"})
	for src, want := range map[string]string{
		`({f: function () {}, s: Symbol("x"), a: 1, n: {x: [print, 2]}})`: "{\n  \"a\": 1,\n  \"n\": {\n    \"x\": [\n      null,\n      2\n    ]\n  }\n}\n",
		`print`:       "undefined\n",
		`Symbol("x")`: "undefined\n",
		`() => 1`:     "undefined\n",
	} {
		out.Reset()
		if err := s.EvalCode("<eval>", src); err != nil || out.String() != want {
			t.Errorf("%s: got %q (%v), want %q", src, out.String(), err, want)
		}
	}
}

// TestEJSONNumbersAsBSONLibrary checks EJSON.stringify (and so --json)
// against what mongosh 2.12.0's bson library wrote for the same values:
// numbers in JavaScript's text, a whole number past 32 bits a
// $numberLong when canonical, Double's "3.0", -0, dates in and out of
// the relaxed range, and JSON.stringify's characters.
func TestEJSONNumbersAsBSONLibrary(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	for src, want := range map[string]string{
		`EJSON.stringify({e: 1e300, g: 2**53, h: -1e-7, z: -0, i: 7, big: 2**31, f: 1.5}, {relaxed: false})`: `{"e":{"$numberDouble":"1e+300"},"g":{"$numberLong":"9007199254740992"},"h":{"$numberDouble":"-1e-7"},"z":{"$numberDouble":"-0.0"},"i":{"$numberInt":"7"},"big":{"$numberLong":"2147483648"},"f":{"$numberDouble":"1.5"}}`,
		`EJSON.stringify({e: 1e300, g: 2**53, z: -0, n: NaN, inf: -Infinity})`:                               `{"e":1e+300,"g":9007199254740992,"z":0,"n":{"$numberDouble":"NaN"},"inf":{"$numberDouble":"-Infinity"}}`,
		`EJSON.stringify([Double(3), Double(-0), Double(1e300), NumberInt(7), 5n], {relaxed: false})`:        `[{"$numberDouble":"3.0"},{"$numberDouble":"-0.0"},{"$numberDouble":"1e+300"},{"$numberInt":"7"},{"$numberLong":"5"}]`,
		`EJSON.stringify([Double(3), NumberInt(7), 5n, NumberLong("9")])`:                                    `[3,7,5,9]`,
		`EJSON.stringify([new Date(0), new Date(1500), new Date(-1), new Date(8.64e15)])`:                    `[{"$date":"1970-01-01T00:00:00Z"},{"$date":"1970-01-01T00:00:01.500Z"},{"$date":{"$numberLong":"-1"}},{"$date":{"$numberLong":"8640000000000000"}}]`,
		`EJSON.stringify({s: "x\u2028", f: print, m: new Map([["k", 1]]), "2": 2})`:                          "{\"2\":2,\"s\":\"x\u2028\",\"m\":{\"k\":1}}",
		`JSON.stringify({a: {}, b: {c: [], d: 1}}, null, 2)`:                                                 "{\n  \"a\": {},\n  \"b\": {\n    \"c\": [],\n    \"d\": 1\n  }\n}",
		`try { EJSON.stringify(new Map([[1, 2]])) } catch (e) { print(e.name, e.message) }`:                  "BSONError Can only serialize maps with string keys",
	} {
		got, err := eval(t, s, out, src)
		if err != nil || got != want+"\n" {
			t.Errorf("%s:\n got %q (%v)\nwant %q", src, got, err, want)
		}
	}
}

// TestJSONSyntaxError checks a syntax error under --json: Babel's keys
// before the message, as mongosh --json prints them (the index counts
// UTF-16 units from the start of the code).
func TestJSONSyntaxError(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{JSON: "relaxed"})
	err := s.EvalCode("<eval>", "x = \"é\";\ny z")
	var ee *ExitError
	want := "{\n  \"code\": \"BABEL_PARSE_ERROR\",\n  \"reasonCode\": \"MissingSemicolon\",\n  \"loc\": {\n    \"line\": 2,\n    \"column\": 1,\n    \"index\": 10\n  },\n  \"pos\": 10,\n  \"syntaxPlugin\": null,\n" +
		"  \"message\": \"Missing semicolon. (2:1)\\n\\n  1 | x = \\\"é\\\";\\n> 2 | y z\\n    |  ^\",\n"
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.HasPrefix(out.String(), want) || !strings.HasSuffix(out.String(), "\",\n  \"name\": \"SyntaxError\"\n}\n") {
		t.Errorf("got %q (%v), want the prefix %q", out.String(), err, want)
	}
}
