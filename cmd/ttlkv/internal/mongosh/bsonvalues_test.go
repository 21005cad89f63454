package mongosh

import "testing"

// TestBSONValuesAsMongosh checks BSON values against what mongosh
// 2.12.0 printed for the same code: DBRef, Code and BSONSymbol made and
// read back, _bsontype, Binary from bytes, a UUID read back, Long's
// radix and halves, ObjectId.equals of a string, and EJSON's key order
// and options.
func TestBSONValuesAsMongosh(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	cases := []struct{ src, want string }{
		{`print([DBRef("coll", 5), DBRef("a", 1, "db")])`, "[ DBRef('coll', 5), DBRef('a', 1, 'db') ]"},
		{`print([Code("x"), Code("x", {a: 1})], BSONSymbol("s"))`, "[ Code('x'), Code('x', { a: 1 }) ] BSONSymbol('s')"},
		{`db.v.insertOne({_id: 1, r: DBRef("a", ObjectId("5f0000000000000000000000"), "db"), c: Code("x", {a: 1}), s: BSONSymbol("s"), f: {$ref: "z", $id: 1, extra: 2}, g: {$ref: "z", $id: 1, $x: 2}}); print(db.v.findOne())`,
			"{\n  _id: 1,\n  r: DBRef('a', ObjectId('5f0000000000000000000000'), 'db'),\n  c: Code('x', { a: 1 }),\n  s: 's',\n  f: DBRef('z', 1, { extra: 2 }),\n  g: { '$ref': 'z', '$id': 1, '$x': 2 }\n}"},
		{`const y = db.v.findOne(); print(y.r.collection, y.r.db, y.c.code, y.c.scope, y.r instanceof DBRef, y.c instanceof Code, JSON.stringify(y.f), JSON.stringify(y.c))`,
			`a db x { a: 1 } true true {"$ref":"z","$id":1,"extra":2} {"code":"x","scope":{"a":1}}`},
		{`print([ObjectId()._bsontype, NumberLong("1")._bsontype, NumberInt(1)._bsontype, NumberDecimal("1")._bsontype, Timestamp()._bsontype, MinKey()._bsontype, BinData(0, "")._bsontype, Code("")._bsontype])`,
			"[\n  'ObjectId',\n  'Long',\n  'Int32',\n  'Decimal128',\n  'Timestamp',\n  'MinKey',\n  'Binary',\n  'Code'\n]"},
		{`print(new Binary(new Uint8Array([1, 2, 3]), 0), new Binary([4, 5], 2))`, "Binary.createFromBase64('AQID', 0) Binary.createFromBase64('BAU=', 2)"},
		{`db.v.insertOne({_id: 2, b: BinData(0, "AQID"), u: UUID("0123456789abcdef0123456789abcdef")}); const x = db.v.findOne({_id: 2}); print([x.b.constructor.name, x.u.constructor.name], JSON.stringify(x.u), JSON.stringify(UUID("0123456789abcdef0123456789abcdef")))`,
			`[ 'Binary', 'UUID' ] "01234567-89ab-cdef-0123-456789abcdef" "ASNFZ4mrze8BI0VniavN7w=="`},
		// Only what mongosh has: a UUID read back has toHexString, a
		// Binary, an ObjectId's str and Object.bsonsize are the legacy
		// shell's; Long's constants and its (low, high) constructor.
		{`const x2 = db.v.findOne({_id: 2}); print(x2.u.toHexString(), typeof x2.b.toHexString, typeof x2.b.base64, typeof x2.b.hex, typeof ObjectId().str, typeof UUID().toHexString, typeof Object.bsonsize)`,
			"0123456789abcdef0123456789abcdef undefined undefined undefined undefined undefined undefined"},
		{`print(new Long(2 ** 40), new Long(1, 2), new Long(-1, -1), Long(5n), Long(-5n), Long.MAX_VALUE, Long.MIN_VALUE, [Long.ZERO, Long.ONE, Long.NEG_ONE])`,
			"Long('0') Long('8589934593') Long('-1') Long('5') Long('-5') Long('9223372036854775807') Long('-9223372036854775808') [ Long('0'), Long('1'), Long('-1') ]"},
		{`const l = NumberLong("123456789012"); print(l.toString(16), NumberInt(10).toString(2), [l.high, l.low], Double(2.5).toString(2))`, "1cbe991a14 1010 [ 28, -1097262572 ] 10.1"},
		{`print(ObjectId("5f0000000000000000000000").equals("5f0000000000000000000000"))`, "true"},
		{`const o = {}; for (const k of "zyxwvutsrqponmlkjihgfedcba") o[k] = ObjectId("5f0000000000000000000000"); print(Object.keys(EJSON.serialize(o)).join(""))`, "zyxwvutsrqponmlkjihgfedcba"},
		{`print(EJSON.parse('{"a": 1, "b": [1.5]}', {relaxed: false}))`, "{ a: Int32(1), b: [ Double(1.5) ] }"},
		{`print(EJSON.stringify({d: new Date(5), b: BinData(0, "AQID"), r: /a/i}, {legacy: true}))`, `{"d":{"$date":5},"b":{"$binary":"AQID","$type":"00"},"r":{"$regex":"a","$options":"i"}}`},
		{`print(EJSON.deserialize({a: {$numberLong: "5"}}), EJSON.deserialize({b: 1, a: {$numberInt: "2"}}, {relaxed: false}))`, "{ a: 5 } { b: Int32(1), a: Int32(2) }"},
		// Legacy and relaxed forms reach values at any depth, in arrays
		// too; relaxed makes a long a number only where a double holds it.
		{`print(EJSON.stringify([new Date(5), {x: [/a/, 1]}], {legacy: true}))`, `[{"$date":5},{"x":[{"$regex":"a","$options":""},1]}]`},
		{`print(EJSON.parse('{"a": [{"$numberLong": "5"}, {"b": {"$numberLong": "9007199254740993"}}], "c": {"$numberLong": "-9007199254740992"}}'))`, "{ a: [ 5, { b: Long('9007199254740993') } ], c: -9007199254740992 }"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
}
