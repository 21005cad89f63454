package main

import (
	"math"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestCSVCell: each kind of value in a CSV cell, as mongoexport 100.x
// wrote it for the same documents served by ttlkv (scalars as text,
// documents and arrays as compact legacy Extended JSON).
func TestCSVCell(t *testing.T) {
	t.Parallel()
	oid, _ := bson.ObjectIDFromHex("65a1b2c3d4e5f60718293a4b")
	dec, _ := bson.ParseDecimal128("1.25")
	dec2, _ := bson.ParseDecimal128("2.5")
	uuid := []byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"a<b>&c\"q", "a<b>&c\"q"},
		{int32(5), "5"}, {int64(7), "7"}, {true, "true"}, {nil, ""},
		{1.0, "1"}, {1.5, "1.5"}, {1e21, "1e+21"}, {1e-7, "1e-07"}, {123456789.0, "1.23456789e+08"}, {math.Copysign(0, -1), "-0"},
		{100.0, "100"}, {1e20, "1e+20"}, {12345678901234567890.0, "1.2345678901234567e+19"}, {math.Inf(1), "+Inf"}, {math.NaN(), "NaN"},
		{bson.DateTime(1704067200000), "2024-01-01T00:00:00.000Z"}, {bson.DateTime(-1000), "1969-12-31T23:59:59.000Z"},
		{bson.DateTime(32535215999000), `{ "$date": { "$numberLong" : "32535215999000" }}`},
		{oid, "ObjectId(65a1b2c3d4e5f60718293a4b)"},
		{bson.Binary{Data: []byte("hi")}, "6869"}, {bson.Binary{Subtype: 2, Data: []byte{2, 0, 0, 0, 'h', 'i'}}, "6869"},
		{bson.Binary{Subtype: 4, Data: uuid}, "0123456789ABCDEF0123456789ABCDEF"},
		{bson.Regex{Pattern: `^a"`, Options: "i"}, `/^a"/i`},
		{bson.Timestamp{T: 5, I: 6}, `{ "$timestamp": { "t": 5, "i": 6 } }`},
		{bson.MaxKey{}, "$MaxKey"}, {bson.MinKey{}, "$MinKey"}, {dec, "1.25"},
		{bson.JavaScript("x+1"), "x+1"}, {bson.CodeWithScope{Code: "y", Scope: bson.D{{Key: "a", Value: int32(1)}}}, "y"},
		{bson.Undefined{}, `{ "$undefined": true }`},
		{bson.DBPointer{DB: "ns", Pointer: oid}, `{ "$ref": "ns", "$id": ObjectID("65a1b2c3d4e5f60718293a4b") }`},
		{bson.A{int32(10), int32(20), "x<", int32(1)}, `[10,20,"x\u003c",1]`},
		{bson.A{1.0, 2.5, math.Inf(-1)}, `[1.0,2.5,-Infinity]`},
		{bson.A{bson.D{{Key: "x", Value: int32(5)}}, bson.D{{Key: "x", Value: int32(6)}}}, `[{"x":5},{"x":6}]`},
		{bson.A{}, "[]"}, {bson.D{}, "{}"},
		{bson.D{{Key: "$ref", Value: "c"}, {Key: "$id", Value: int32(5)}, {Key: "$db", Value: "d"}}, `{"$ref":"c","$id":5,"$db":"d"}`},
		{bson.D{
			{Key: "n", Value: int64(7)}, {Key: "at", Value: bson.DateTime(1704067200000)}, {Key: "f", Value: 1.0}, {Key: "s", Value: "a<b"},
			{Key: "oid", Value: oid}, {Key: "bin", Value: bson.Binary{Data: []byte("hi")}}, {Key: "bin4", Value: bson.Binary{Subtype: 4, Data: uuid}},
			{Key: "re", Value: bson.Regex{Pattern: `x\/y`}}, {Key: "ts", Value: bson.Timestamp{T: 5, I: 6}}, {Key: "mk", Value: bson.MaxKey{}},
			{Key: "mn", Value: bson.MinKey{}}, {Key: "dec", Value: dec2}, {Key: "i", Value: int32(3)}, {Key: "big", Value: bson.DateTime(32535215999000)},
			{Key: "neg", Value: bson.DateTime(-1)}, {Key: "inf", Value: math.Inf(1)}, {Key: "nan", Value: math.NaN()}, {Key: "nul", Value: nil},
			{Key: "b", Value: false}, {Key: "nested", Value: bson.A{bson.A{int32(1), bson.D{{Key: "a", Value: bson.A{}}}}}}, {Key: "u", Value: "é\u2028"},
		}, `{"n":{"$numberLong":"7"},"at":{"$date":"2024-01-01T00:00:00.000Z"},"f":1.0,"s":"a\u003cb","oid":{"$oid":"65a1b2c3d4e5f60718293a4b"},` +
			`"bin":{"$binary":"aGk=","$type":"00"},"bin4":{"$binary":"ASNFZ4mrze8BI0VniavN7w==","$type":"04"},"re":{"$regex":"x\\/y","$options":""},` +
			`"ts":{"$timestamp":{"t":5,"i":6}},"mk":{"$maxKey":1},"mn":{"$minKey":1},"dec":{"$numberDecimal":"2.5"},"i":3,` +
			`"big":{"$date":{"$numberLong":"32535215999000"}},"neg":{"$date":"1969-12-31T23:59:59.999Z"},"inf":+Infinity,"nan":NaN,"nul":null,` +
			`"b":false,"nested":[[1,{"a":[]}]],"u":"é\u2028"}`},
		{bson.D{
			{Key: "g", Value: 1e21}, {Key: "h", Value: 1e-7}, {Key: "i", Value: 1e20}, {Key: "z", Value: math.Copysign(0, -1)},
			{Key: "code", Value: bson.JavaScript("x+1")}, {Key: "cws", Value: bson.CodeWithScope{Code: "y", Scope: bson.D{{Key: "a", Value: int32(1)}}}},
			{Key: "undef", Value: bson.Undefined{}}, {Key: "dbp", Value: bson.DBPointer{DB: "ns", Pointer: oid}}, {Key: "ctl", Value: "\t\n<>&\x01"},
		}, `{"g":1e+21,"h":1e-07,"i":1e+20,"z":-0.0,"code":{"$code":"x+1"},"cws":{"$code":"y","$scope":{"a":1}},"undef":{"$undefined":true},` +
			`"dbp":{"$ref":"ns","$id":{"$oid":"65a1b2c3d4e5f60718293a4b"}},"ctl":"\u0009\n\u003c\u003e\u0026\u0001"}`},
	} {
		got, err := csvCell(tc.v)
		if err != nil || got != tc.want {
			t.Errorf("csvCell(%#v) = %q, %v; want %q", tc.v, got, err, tc.want)
		}
	}
	for _, v := range []any{bson.Symbol("sy"), bson.D{{Key: "s", Value: bson.Symbol("sy")}}} {
		if _, err := csvCell(v); err == nil || !strings.Contains(err.Error(), "conversion of BSON value 'sy' of type 'bson.Symbol' not supported") {
			t.Errorf("csvCell(%#v): %v, want mongoexport's refusal of a symbol", v, err)
		}
	}
}

// TestLookupCell: CSV paths as mongoexport follows them: fields of
// documents, array elements by an index strconv.Atoi reads, nothing
// through a scalar or past an array's end.
func TestLookupCell(t *testing.T) {
	t.Parallel()
	d := bson.D{{Key: "s", Value: "x"}, {Key: "arr", Value: bson.A{int32(10), int32(20)}},
		{Key: "docs", Value: bson.A{bson.D{{Key: "x", Value: int32(5)}}}}, {Key: "n", Value: nil}}
	for _, tc := range []struct {
		path string
		want any
		ok   bool
	}{
		{"arr.1", int32(20), true}, {"arr.01", int32(20), true}, {"arr.+1", int32(20), true}, {"arr.-1", nil, false},
		{"arr.2", nil, false}, {"docs.0.x", int32(5), true}, {"docs.x", nil, false}, {"s.x", nil, false}, {"n", nil, true}, {"zz", nil, false},
	} {
		got, ok := lookupCell(d, tc.path)
		if ok != tc.ok || got != tc.want {
			t.Errorf("lookupCell(%s) = %v, %v; want %v, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
}
