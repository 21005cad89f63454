// What print and printjson show, as mongosh 2.12.0 shows it: format.out
// is that mongosh's output for this script (record-format.sh).
printjson("x");
printjson(1, {a: 1});
printjson([]);
printjson({});
printjson({a: [], b: {}, c: ObjectId("5f0000000000000000000000"), d: new Date(0), e: NumberLong("5")});
printjson({a: {b: {c: {d: {e: {f: {g: {h: 1}}}}}}}});
print({a: {b: {c: {d: {e: {f: {g: {h: 1}}}}}}}});
var big = [];
for (var i = 0; i < 103; i++) big.push(i);
printjson({n: big.length});
printjson(big.slice(0, 3));
print(big);
printjson(null);
printjson(true);
for (var w = 60; w <= 84; w += 2) { var o = {k: "x".repeat(w - 13)}; print(JSON.stringify(o).length, o); }
print({a: "x".repeat(30), b: "y".repeat(30), c: "z".repeat(10)});
print({a: 1, b: {c: {d: {e: 1}}}});
print({a: {b: {c: {d: 1}}}, e: {f: 1}});
print({a: {b: {c: {d: 1}}}, e: 1});
var s = [];
for (var i = 0; i < 30; i++) s.push("s" + i);
print(s);
var objs = [];
for (var i = 0; i < 10; i++) objs.push({i: i});
print(objs);
print([1, 2, 3, 4, 5, 6, 7]);
print(["a", "bb", "ccc", "dddd", "eeeee", "ffffff", "ggggggg", "h"]);
var c = [];
for (var i = 0; i < 150; i++) c.push(i * 1000);
print(c);
print({x: c.slice(0, 20)});
print([1.5, -2, 300000, 4, 5, 6, 7, 8]);
print([true, false, null, 1, 2, 3, 4]);
print(undefined);
print(1, undefined, 2);
printjson(undefined, 1);
print([undefined]);
print({a: undefined});
print("a\nb");
print({s: "a\nb"});
print(NaN, -0, 1e21, 0.1);
print({long: "é".repeat(70)});
print([{a: 1, b: [1, 2, {c: 3}]}, "x"]);
print(ObjectId("5f0000000000000000000000"));
print(NumberLong("9223372036854775807"), NumberInt(5), NumberDecimal("1.50"), Timestamp({t: 5, i: 6}));
print(NumberLong(5), NumberDecimal(1.5), Long(6), Decimal128("2"));
print(BinData(0, "AQID"), UUID("0123456789abcdef0123456789abcdef"), MinKey(), MaxKey());
print(new Date(0), ISODate("2024-01-02T03:04:05.678Z"));
print(/ab+c/i, {r: /x/g});
print({a: NumberLong("5"), b: NumberInt(7), c: 1.0, d: 2.5});
printjson({oid: ObjectId("5f0000000000000000000000"), arr: [NumberLong("1"), Timestamp({t: 1, i: 2})]});
print(typeof NumberLong("5"), typeof NumberInt(5), typeof 1, typeof NumberLong("5").valueOf());
print(NumberInt(5) + 1, Double(2) + 1, NumberDecimal("1.5") + 1, Long("5") * 2, Long("5").toNumber(), Long("5") > 3, Long("5") + 1, Long("5") == 5);
print(EJSON.stringify({a: NumberLong("5"), d: new Date(0)}));
print(JSON.stringify({i: NumberInt(5), d: NumberDecimal("1.5"), o: ObjectId("5f0000000000000000000000"), t: Timestamp({t: 1, i: 2}), b: BinData(0, "AQID"), u: UUID("0123456789abcdef0123456789abcdef"), mn: MinKey(), dt: new Date(0), l: NumberLong("-5"), dbl: Double(2)}));
print(JSON.stringify({r: BSONRegExp("a", "i"), mx: MaxKey(), l2: NumberLong("9223372036854775807"), l3: Long("4294967296"), h: HexData(5, "0102")}));
print([1, [2, [3, [4, [5, [6, [7, [8]]]]]]]]);
print({"a-b": 1, "c d": 2, "$x": 3, "1a": 4, "": 5, _y: 6});
print(new Map([["a", 1], [{k: 1}, [2]]]), new Set([1, "2"]), new Map(), new Set());
print(Symbol("s"), Symbol());
print([, 1], [1, , , 2], new Array(3));
["2024-01-02", "20240102", "2024-01-02 03:04", "2024-01-02T03:04:05.6789Z", "2024-01-02T03:04:05+01:00",
 "2024-01-02T03:04:05-0130", "2024-01-02T0304", "2024-13-01", "2024-02-30", "garbage", "9999-12-31T23:59:59.999Z",
 "0000-01-01", 0, "2024-01-02T24:00", "a\"b<", new Date(5), null, "2024-01-02T03:04:05.678+01", "2024-01-00"].forEach(function (v) {
  try { print(ISODate(v)) } catch (e) { print(e.name, e.message, e.code) }
});
try { throw "str" } catch (e) { print(typeof e, e) }
// Constructors: what each accepts, refuses and makes of odd input, as mongosh.
var ctorCases = [
  'ObjectId("zz")', 'ObjectId(5).getTimestamp().getTime()', 'ObjectId(null) instanceof ObjectId', 'ObjectId(ObjectId("5f0000000000000000000000"))', 'ObjectId({})', 'ObjectId(true)',
  'NumberInt("x")', 'NumberInt(3000000000)', 'NumberInt("1.9")', 'NumberInt(" 12abc")', 'NumberInt(-2.7)', 'NumberInt(null)', 'NumberInt()', 'NumberInt(true)', 'NumberInt(NumberLong("7"))', 'NumberInt(NumberInt(8))', 'NumberInt({})',
  'NumberLong("abc")', 'NumberLong("1e5")', 'NumberLong("12345678x9")', 'NumberLong("-42")', 'NumberLong("")', 'NumberLong("NaN")', 'NumberLong("99999999999999999999")', 'NumberLong(null)', 'NumberLong()', 'NumberLong(true)', 'NumberLong(NumberInt(3))', 'NumberLong("1-2")', 'NumberLong(" 5")', 'NumberLong("+5")',
  'NumberDecimal("x")', 'NumberDecimal()', 'NumberDecimal(true)', 'NumberDecimal(NumberLong("5"))', 'NumberDecimal("1e3")', 'NumberDecimal("NaN")',
  'Timestamp("x")', 'Timestamp()', 'Timestamp(1)', 'Timestamp(1, 2)', 'Timestamp({t: -1, i: 0})', 'Timestamp({t: 1, i: -1})', 'Timestamp({t: 4294967296, i: 0})', 'Timestamp({t: 1})', 'Timestamp(1.5, 2)', 'Timestamp(null)', 'Timestamp(1, "2")',
  'BinData("x", "AQ")', 'BinData(0, 5)', 'BinData(0, "A!Q==")', 'BinData(300, "AQ==")', 'BinData(0)', 'BinData(-1, "AQ==")',
  'HexData(0, "zz")', 'HexData(0, "0g12")', 'HexData(0, "abc")', 'HexData(5, "0102")',
  'UUID("xyz")', 'UUID("0123")', 'UUID(5)', 'UUID("01234567-89ab-cdef-0123-456789abcdef")',
  'Double("x")', 'Double()', 'Double(NumberInt(3))', 'MinKey(1)', 'BSONRegExp("a")', 'bsonsize(5)', 'bsonsize({a: "x"})'
];
ctorCases.forEach(function (c) {
  try { var v = eval(c); print(c, '=>', v) } catch (e) { print(c, '!!', e.name, '|', e.message) }
});
print(BinData(3, "ASNFZ4mrze8BI0VniavN7w=="), BinData(5, "AQ=="), BinData(4, "AQ=="), MD5("0102"), {m: MD5("ab")});
// Node's util.inspect of JavaScript values beyond plain objects.
const circ = { a: 1 }; circ.self = circ; print(circ);
const c2 = { x: { y: {} } }; c2.x.y.back = c2.x; c2.x.y.top = c2; print(c2);
const ca = [1]; ca.push(ca); print(ca);
print(new Uint8Array([1, 2, 3]), new Uint8Array(0), new Int32Array([-1, 5]), new Float64Array([1.5]));
print(class Foo {}, class extends Array {}, class {});
print({ get x() { return 1 } }, { set y(v) {} }, { get z() { return 1 }, set z(v) {} });
print({ [Symbol("k")]: 1, a: 2 }, { [Symbol()]: 3 });
print(async function h() {}, async () => {}, function* gen() {});
print(Object.assign(function g() {}, { p: 1 }));
print(5n, { b: 10n }, [-3n]);
print(new String("s"), new String("it's"), new Number(-0), new Boolean(false));
const arr = [1, 2]; arr.extra = "x"; print(arr);
const e = []; e.k = 1; print(e);
print([new Uint8Array([9])], { t: new Uint8Array(2) });
// Number.prototype.toLocaleString as Node's Intl formats by default.
print((1234567.891).toLocaleString(), (0.0005).toLocaleString("en-US"), (-1234.5678).toLocaleString("de-DE"), (1e21).toLocaleString(), NaN.toLocaleString(), (12).toLocaleString("fr-FR"), (1234.5).toLocaleString("fr-FR"), (2.5).toLocaleString("en"), (1234).toLocaleString("de"), (0.9995).toLocaleString(), (-0.0001).toLocaleString(), (999.9996).toLocaleString(), new Number(5000).toLocaleString(), (-0).toLocaleString());
// Its options for fraction digits and grouping, Intl.NumberFormat with them,
// and Date's toLocale*String (a time zone given: the output must not
// depend on the machine's).
print(new Intl.NumberFormat().format(1234.5), (1234.5678).toLocaleString(undefined, {maximumFractionDigits: 2}), (5).toLocaleString("en-US", {minimumFractionDigits: 2}), (1234567).toLocaleString("en-US", {useGrouping: false}), new Intl.NumberFormat("en-US", {maximumFractionDigits: 0}).format(2.5), String(new Intl.NumberFormat()), new Intl.NumberFormat("de-DE", {minimumFractionDigits: 1}).format(1234), (1.5).toLocaleString(["de-DE", "en-US"]));
const ld = new Date(Date.UTC(2024, 0, 2, 15, 4, 5, 678)), utc = { timeZone: "UTC" };
print(ld.toLocaleString("en-US", utc), ld.toLocaleDateString(undefined, utc), ld.toLocaleTimeString("en-US", utc), new Date(0).toLocaleString("en-GB", utc), ld.toLocaleString("de-DE", utc), ld.toLocaleString("fr-FR", utc), ld.toLocaleString("en-US", { timeZone: "America/New_York" }), new Date(Date.UTC(2024, 5, 1, 0, 30)).toLocaleTimeString("en-US", utc), new Date(NaN).toLocaleString());
// JSON.parse's errors in V8's words.
for (const c of ["", "{", "{bad", "{\"a\"", "{\"a\":", "{\"a\":1", "{\"a\":1,}", "[1,]", "[1 2]", "abc", "undefined", "tru", "\"abc", "\"a\nb\"", "\"\\x\"", "\"\\u12\"", "-", "1.", "1e", "01", "{} x", "x".repeat(40), "{\"aaaaaaaaaaaaaaaaaaaaaa\": bbbbbbbbbbbbbbbbbbbbbbbbbbbb}", "[1, 2, 3, 4, 5, 6, 7, 8, 9, x]", "{\"é😀\": x}"]) {
  try { JSON.parse(c); print(JSON.stringify(c), "OK") } catch (e) { print(JSON.stringify(c), e.name, e.message) }
}
