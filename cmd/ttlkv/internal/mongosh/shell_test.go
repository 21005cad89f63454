package mongosh

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"github.com/ttlkv/ttlkv/lsm"
)

// testShell opens an in-memory engine and a shell on it. The clock is
// fixed so that printed dates are stable.
func testShell(t *testing.T, opts Options) (*Shell, *bytes.Buffer, *engine.DB) {
	t.Helper()
	db, err := engine.Open(t.TempDir(), engine.Options{DisableTTLMonitor: true, MemoryBudget: lsm.MinMemoryBudget})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var out bytes.Buffer
	opts.Stdout = &out
	opts.Stderr = &out
	s, err := New(db, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, &out, db
}

func eval(t *testing.T, s *Shell, out *bytes.Buffer, src string) (string, error) {
	t.Helper()
	out.Reset()
	err := s.Eval("test.js", src)
	return out.String(), err
}

func TestEvalScripts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src, want string
	}{
		{"number", `1 + 1`, "2\n"},
		{"string prints raw", `"abc"`, "abc\n"},
		{"undefined prints nothing", `var x = 1`, ""},
		// An input that ends declaring a function or class shows it, as
		// mongosh's does.
		{"function declared last", "var z = 1; function f() {};", "[Function: f]\n"},
		{"class declared last", "class K {}", "[class K]\n"},
		{"declaration then value", "function g() {}; 5", "5\n"},
		{"object", `({a: 1, b: 'x', c: [1, 2]})`, "{ a: 1, b: 'x', c: [ 1, 2 ] }\n"},
		{"quoted key", `({'a-b': 1})`, "{ 'a-b': 1 }\n"},
		{"oid", `ObjectId('0123456789abcdef01234567')`, "ObjectId('0123456789abcdef01234567')\n"},
		{"long", `NumberLong(5)`, "Warning: NumberLong: specifying a number as argument is deprecated and may lead to loss of precision, pass a string instead\nLong('5')\n"},
		{"long string", `NumberLong("9223372036854775807")`, "Long('9223372036854775807')\n"},
		{"isodate", `ISODate("2024-01-02T03:04:05Z")`, "ISODate('2024-01-02T03:04:05.000Z')\n"},
		{"isodate day", `ISODate("2024-01-02")`, "ISODate('2024-01-02T00:00:00.000Z')\n"},
		{"decimal", `NumberDecimal("1.50")`, "Decimal128('1.50')\n"},
		{"timestamp", `Timestamp(5, 2)`, "Timestamp({ t: 5, i: 2 })\n"},
		{"timestamp obj", `Timestamp({t: 5, i: 2}).t`, "5\n"},
		{"uuid", `UUID("0123456789abcdef0123456789abcdef")`, "UUID('01234567-89ab-cdef-0123-456789abcdef')\n"},
		{"bindata", `BinData(0, "AQID")`, "Binary.createFromBase64('AQID', 0)\n"},
		{"minmax", `[MinKey(), MaxKey]`, "[ MinKey(), MaxKey() ]\n"},
		{"print", `print("a", 1, {x: 1})`, "a 1 { x: 1 }\n"},
		{"printjson", `printjson({x: "y"})`, "{\n  x: 'y'\n}\n"},
		{"console.log", `console.log("hi")`, "hi\n"},
		{"ejson relaxed", `EJSON.stringify({a: NumberLong("1"), d: ISODate("2024-01-01")})`, `{"a":1,"d":{"$date":"2024-01-01T00:00:00Z"}}` + "\n"},
		{"ejson canonical", `EJSON.stringify({a: 1}, {relaxed: false})`, `{"a":{"$numberInt":"1"}}` + "\n"},
		{"ejson parse", `EJSON.parse('{"a": {"$oid": "0123456789abcdef01234567"}}').a`, "ObjectId('0123456789abcdef01234567')\n"},
		{"instanceof", `ObjectId() instanceof ObjectId`, "true\n"},
		{"oid string", `ObjectId('0123456789abcdef01234567').toString()`, "0123456789abcdef01234567\n"},
		{"long arithmetic", `[NumberLong("5") + 1, NumberLong("5") * 2, NumberInt(5) + 1, NumberDecimal("1.5") + 1].join()`, "51,10,6,1.51\n"},
		{"multiline object", `({aaaaaaaaaa: 'bbbbbbbbbbbbbbbbbbbb', cccccccccc: 'dddddddddddddddddddd', eeeeeeeeee: 'ffffffffff'})`,
			"{\n  aaaaaaaaaa: 'bbbbbbbbbbbbbbbbbbbb',\n  cccccccccc: 'dddddddddddddddddddd',\n  eeeeeeeeee: 'ffffffffff'\n}\n"},
		{"db name", `db.getName()`, "test\n"},
		{"db prints", `db`, "test\n"},
		{"collection prints", `db.foo.bar`, "test.foo.bar\n"},
		{"sibling", `db.getSiblingDB("other").getName()`, "other\n"},
		{"hash", `convertShardKeyToHashed("hashThisStringLiteral")`, "Long('-5776344739422278694')\n"},
		{"not interactive", `print(isInteractive()); cls(); print("after")`, "false\nafter\n"},
		{"hash of a document", `convertShardKeyToHashed({a: "abc", b: NumberLong("123")})`, "Long('4771603801758380216')\n"},
		{"use", "use other", "switched to db other\n"},
		// mongosh takes a whole input that starts with "use" as the
		// command, the rest as its words (--eval 'use other\nx' runs no x).
		{"use whole input", "use other\ndb.getName()", "switched to db other\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, out, _ := testShell(t, Options{})
			got, err := eval(t, s, out, tc.src)
			if err != nil {
				t.Fatalf("eval %q: %v", tc.src, err)
			}
			if got != tc.want {
				t.Errorf("eval %q\n got: %q\nwant: %q", tc.src, got, tc.want)
			}
		})
	}
}

func TestCRUD(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	steps := []struct{ src, want string }{
		{`db.c.insertOne({_id: 1, a: 1}).insertedId`, "1\n"},
		{`db.c.insertMany([{_id: 2, a: 2}, {_id: 3, a: 3}]).insertedIds`, "{ '0': 2, '1': 3 }\n"},
		{`db.c.find({a: {$gte: 2}}).sort({a: -1}).toArray()`, "[ { _id: 3, a: 3 }, { _id: 2, a: 2 } ]\n"},
		{`db.c.find().sort({_id: 1}).limit(1)`, "[ { _id: 1, a: 1 } ]\n"},
		{`db.c.find().sort({_id: 1}).skip(2).map(d => d.a).toArray()`, "[ 3 ]\n"},
		{`db.c.findOne({_id: 2})`, "{ _id: 2, a: 2 }\n"},
		{`db.c.findOne({_id: 99})`, "null\n"},
		{`db.c.countDocuments({a: {$gt: 1}})`, "2\n"},
		{`db.c.estimatedDocumentCount()`, "3\n"},
		{`db.c.find().itcount()`, "3\n"},
		{`db.c.updateOne({_id: 1}, {$set: {b: 1}})`, "{\n  acknowledged: true,\n  insertedId: null,\n  matchedCount: 1,\n  modifiedCount: 1,\n  upsertedCount: 0\n}\n"},
		{`db.c.updateMany({}, {$inc: {a: 10}}).modifiedCount`, "3\n"},
		{`db.c.replaceOne({_id: 3}, {z: 1}).matchedCount`, "1\n"},
		{`db.c.updateOne({_id: 4}, {$set: {a: 4}}, {upsert: true}).insertedId`, "4\n"},
		{`db.c.findOneAndUpdate({_id: 1}, {$set: {a: 0}}, {returnDocument: 'after'})`, "{ _id: 1, a: 0, b: 1 }\n"},
		{`db.c.findOneAndDelete({_id: 4})`, "{ _id: 4, a: 4 }\n"},
		{`db.c.deleteOne({_id: 3})`, "{ acknowledged: true, deletedCount: 1 }\n"},
		{`db.c.remove({})`, "DeprecationWarning: Collection.remove() is deprecated. Use deleteOne, deleteMany, findOneAndDelete, or bulkWrite.\n{ acknowledged: true, deletedCount: 2 }\n"}, // the warning once, as mongosh
		{`db.c.insert({_id: 5}); db.c.count()`, "DeprecationWarning: Collection.insert() is deprecated. Use insertOne, insertMany, or bulkWrite.\nDeprecationWarning: Collection.count() is deprecated. Use countDocuments or estimatedDocumentCount.\n1\n"},
		{`db.c.createIndex({a: 1})`, "a_1\n"},
		{`db.c.createIndex({a: "hashed"})`, "a_hashed\n"},
		{`db.c.find({a: 11}).hint("a_hashed").explain().queryPlanner.winningPlan.inputStage.indexName`, "a_hashed\n"},
		{`db.c.dropIndex('a_hashed').ok`, "1\n"},
		{`db.c.getIndexes().map(i => i.name)`, "[ '_id_', 'a_1' ]\n"},
		{`db.c.dropIndex('a_1').ok`, "1\n"},
		{`db.getCollectionNames()`, "[ 'c' ]\n"},
		{`db.c.isCapped()`, "false\n"},
		{`db.c.drop()`, "true\n"},
		{`db.getCollectionNames()`, "[]\n"},
	}
	for _, st := range steps {
		got, err := eval(t, s, out, st.src)
		if err != nil {
			t.Fatalf("eval %q: %v", st.src, err)
		}
		if got != st.want {
			t.Fatalf("eval %q\n got: %q\nwant: %q", st.src, got, st.want)
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src, want string
	}{
		{"duplicate key uncaught", `db.c.insertOne({_id: 1}); db.c.insertOne({_id: 1})`, "MongoServerError: E11000 "},
		{"bad ttl", `db.c.createIndex({t: 1}, {expireAfterSeconds: "x"})`, "MongoServerError[CannotCreateIndex]: "},
		{"syntax", "let x = ;", "SyntaxError: "},
		{"not a function", `db.c.nosuchmethod()`, "TypeError: db.c.nosuchmethod is not a function"},
		{"db method not a function", `db.nosuchHelper(1)`, "TypeError: db.nosuchHelper is not a function"},
		{"chained not a function", "var n = 1;\nn = db.getSiblingDB(\"admin\").getCollection(\"c\").nosuch({a: [1]})",
			`TypeError: db.getSiblingD ... n("c").nosuch is not a function`}, // mongosh 2.12.0's words
		{"callee off the line", "function f() {\n  return db.c\n    .nosuch()\n}\nf()", "TypeError: a collection or database is not a function"},
		{"wrong argument type", `db.c.insertMany(5)`, `MongoInvalidArgumentError: Argument "docs" must be an array of documents`},
		{"update without operators", `db.c.updateOne({}, {a: 1})`, "MongoInvalidArgumentError: Update document requires atomic operators"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, out, _ := testShell(t, Options{})
			_, err := eval(t, s, out, tc.src)
			var se *ScriptError
			if !errors.As(err, &se) {
				t.Fatalf("eval %q: got %v, want a ScriptError", tc.src, err)
			}
			// At the prompt a database error shows its code name, as in
			// mongosh's shell; ending --eval code or a file, only its
			// class and message, as mongosh prints it there.
			if !strings.HasPrefix(se.Interactive(), tc.want) {
				t.Errorf("eval %q: error %q at the prompt, want prefix %q", tc.src, se.Interactive(), tc.want)
			}
			if want := se.Name + ": " + se.Message; se.Error() != want {
				t.Errorf("eval %q: error %q, want %q", tc.src, se.Error(), want)
			}
		})
	}
}

func TestCatchCodeAndCodeName(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	got, err := eval(t, s, out, `
db.c.insertOne({_id: 1});
try { db.c.insertOne({_id: 1}) } catch (e) { print(e.code, String(e.codeName), e.name) }
try { db.runCommand({nosuchcommand: 1}) } catch (e) { print(e.code, e.codeName) }
`)
	if err != nil {
		t.Fatal(err)
	}
	// mongod's write errors carry no codeName, so neither does the error.
	if want := "11000 undefined MongoServerError\n59 CommandNotFound\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestQuit(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	_, err := eval(t, s, out, `print("a"); quit(3); print("b")`)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 {
		t.Fatalf("got %v, want exit 3", err)
	}
	if out.String() != "a\n" {
		t.Errorf("output %q", out.String())
	}
}

func TestSleepInterruptedByContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, out, _ := testShell(t, Options{Context: ctx})
	start := time.Now()
	_, err := eval(t, s, out, `sleep(60000)`)
	if err == nil || time.Since(start) > 30*time.Second {
		t.Fatalf("sleep on a cancelled context: err %v after %v", err, time.Since(start))
	}
}

func TestJSONOutput(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"relaxed", "canonical"} {
		s, out, _ := testShell(t, Options{JSON: mode})
		got, err := eval(t, s, out, `({a: 1, n: NumberLong("2")})`)
		if err != nil {
			t.Fatal(err)
		}
		want := "{\n  \"a\": 1,\n  \"n\": 2\n}\n"
		if mode == "canonical" {
			want = "{\n  \"a\": {\n    \"$numberInt\": \"1\"\n  },\n  \"n\": {\n    \"$numberLong\": \"2\"\n  }\n}\n"
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", mode, got, want)
		}
	}
}

// The interactive shell says so, and cls() clears its screen (then its
// undefined value is mongosh's empty line).
func TestInteractiveCls(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	s.SetInteractive(true)
	got, err := eval(t, s, out, `print(isInteractive()); cls()`)
	if err != nil || got != "true\n\x1b[H\x1b[2J\n" {
		t.Fatalf("got %q, %v", got, err)
	}
}
