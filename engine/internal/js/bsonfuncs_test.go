package js

import (
	"context"
	"errors"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestBSONCompareGlobals: mongod's bsonWoCompare,
// bsonUnorderedFieldsCompare and bsonBinaryEqual compare any two values
// in BSON order (the shell's assert.lt compares two Timestamps with
// bsonWoCompare), and bsonObjToArray lists an object's values.
func TestBSONCompareGlobals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src  string
		want any
	}{
		{`bsonWoCompare(Timestamp(1, 2), Timestamp(1, 3))`, float64(-1)},
		{`bsonWoCompare(Timestamp(2, 0), Timestamp(1, 9))`, float64(1)},
		{`bsonWoCompare({a: 1, b: 2}, {a: 1, b: 2})`, float64(0)},
		{`bsonWoCompare({a: 1, b: 2}, {b: 2, a: 1})`, float64(-1)},
		{`bsonWoCompare(1, NumberLong(1))`, float64(0)},
		{`bsonWoCompare("a", 5)`, float64(1)},
		{`bsonWoCompare(null, MinKey())`, float64(1)},
		{`bsonWoCompare(ObjectId("000000000000000000000001"), ObjectId("000000000000000000000002"))`, float64(-1)},
		{`bsonUnorderedFieldsCompare({a: 1, b: 2}, {b: 2, a: 1})`, float64(0)},
		{`bsonUnorderedFieldsCompare({x: {a: 1, b: 2}}, {x: {b: 2, a: 1}})`, float64(0)},
		{`bsonUnorderedFieldsCompare({a: 1, b: 2}, {a: 1, b: 3})`, float64(-1)},
		{`bsonUnorderedFieldsCompare([{a: 1, b: 2}], [{b: 2, a: 1}])`, float64(0)},
		{`bsonBinaryEqual({a: 1}, {a: 1})`, true},
		{`bsonBinaryEqual({a: 1}, {a: NumberInt(1)})`, false},
		{`bsonBinaryEqual({a: 1, b: 2}, {b: 2, a: 1})`, false},
		{`bsonBinaryEqual(Timestamp(1, 2), Timestamp(1, 2))`, true},
		{`bsonObjToArray({a: 1, b: "x", c: {d: 2}})`, bson.A{1.0, "x", bson.D{{Key: "d", Value: 2.0}}}},
		{`bsonObjToArray([3, 4])`, bson.A{3.0, 4.0}},
		{`bsonObjToArray({})`, bson.A{}},
	}
	for _, c := range cases {
		got, err := callOne(t, `function() { return `+c.src+` }`)
		if err != nil || document.Compare(got, c.want) != 0 || document.TypeName(got) != document.TypeName(c.want) {
			t.Errorf("%s = %#v, %v; want %#v", c.src, got, err, c.want)
		}
	}
	// assert.lt and its kin hold for two Timestamps, as on mongod.
	got, err := callOne(t, `function() { assert.lt(Timestamp(1, 1), Timestamp(1, 2)); assert.gte(Timestamp(2, 0), Timestamp(2, 0)); assert.between(Timestamp(1, 0), Timestamp(2, 0), Timestamp(3, 0)); return "ok" }`)
	if err != nil || got != "ok" {
		t.Errorf("assert.lt of Timestamps: %v, %v", got, err)
	}
	// A document read from BSON compares as it is.
	f, err := Compile(`function(d) { return [bsonWoCompare(d, {a: 1}), bsonBinaryEqual(d, {a: NumberInt(1)}), bsonObjToArray(d)] }`)
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.Call(context.Background(), bson.D{{Key: "a", Value: int32(1)}})
	if want := (bson.A{0.0, true, bson.A{int32(1)}}); err != nil || document.Compare(res, want) != 0 {
		t.Errorf("over a BSON document: %#v, %v; want %#v", res, err, want)
	}
}

// TestBSONGlobalsRefusals: the helpers refuse their arguments with 2
// BadValue and mongod's messages, which a script may catch.
func TestBSONGlobalsRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct{ src, reason string }{
		{`bsonWoCompare(1)`, "bsonWoCompare needs 2 arguments"},
		{`bsonUnorderedFieldsCompare(1, 2, 3)`, "bsonWoCompare needs 2 arguments"},
		{`bsonBinaryEqual()`, "bsonBinaryEqual needs 2 arguments"},
		{`bsonObjToArray()`, "bsonObjToArray needs 1 argument"},
		{`bsonObjToArray(1)`, "argument must be an object"},
		{`bsonObjToArray("s")`, "argument must be an object"},
		{`MD5()`, "MD5 needs 1 argument"},
		{`MD5("abc")`, "MD5 string must have 32 characters"},
		{`Code(1)`, "code must be a string"},
		{`Code("x", 1)`, "scope must be an object"},
		{`Code("x", {}, 1)`, "Code needs 0, 1 or 2 arguments"},
		{`DBRef("c")`, "DBRef needs 2 or 3 arguments"},
		{`DBRef(1, 2)`, "DBRef 1st parameter must be a string"},
		{`DBRef("c", 2, 3)`, "DBRef 3rd parameter must be a string"},
		{`DBPointer("c")`, "DBPointer needs 2 arguments"},
		{`DBPointer(1, ObjectId())`, "DBPointer 1st parameter must be a string"},
		{`DBPointer("c", "x")`, "DBPointer 2nd parameter must be an ObjectId"},
	}
	for _, c := range cases {
		got, err := callOne(t, `function() { try { `+c.src+`; return "no error" } catch (e) { return [e.code, e.reason] } }`)
		if want := (bson.A{int32(2), c.reason}); err != nil || document.Compare(got, want) != 0 {
			t.Errorf("%s: %v, %v; want %v", c.src, got, err, want)
		}
		_, err = callOne(t, `function() { return `+c.src+` }`)
		var de *document.Error
		if !errors.As(err, &de) || de.Code != document.CodeBadValue {
			t.Errorf("%s uncaught: %v, want 2", c.src, err)
		}
	}
}

// TestBSONConstructors: MD5, Code, DBRef and DBPointer make the values
// mongod's do, which convert to BSON as there.
func TestBSONConstructors(t *testing.T) {
	t.Parallel()
	oid, _ := bson.ObjectIDFromHex("0123456789abcdef01234567")
	cases := []struct {
		src  string
		want any
	}{
		{`MD5("d41d8cd98f00b204e9800998ecf8427e")`, bson.Binary{Subtype: 5, Data: []byte{0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04, 0xe9, 0x80, 0x09, 0x98, 0xec, 0xf8, 0x42, 0x7e}}},
		{`new MD5("d41d8cd98f00b204e9800998ecf8427e").subtype()`, 5.0},
		{`Code("return 1")`, bson.JavaScript("return 1")},
		{`new Code()`, bson.JavaScript("")},
		{`new Code("f", {x: 1}).scope.x`, 1.0},
		{`[Code("f") instanceof Code, new Code("g").code]`, bson.A{true, "g"}},
		{`DBRef("coll", 5)`, bson.D{{Key: "$ref", Value: "coll"}, {Key: "$id", Value: 5.0}}},
		{`new DBRef("coll", ObjectId("0123456789abcdef01234567"), "db")`, bson.D{{Key: "$ref", Value: "coll"}, {Key: "$id", Value: oid}, {Key: "$db", Value: "db"}}},
		{`[DBRef("c", 1) instanceof DBRef, DBRef("c", 1).$ref]`, bson.A{true, "c"}},
		{`DBPointer("db.c", ObjectId("0123456789abcdef01234567"))`, bson.DBPointer{DB: "db.c", Pointer: oid}},
		{`[new DBPointer("db.c", ObjectId("0123456789abcdef01234567")).ns, DBPointer("a", ObjectId()) instanceof DBPointer]`, bson.A{"db.c", true}},
	}
	for _, c := range cases {
		got, err := callOne(t, `function() { return `+c.src+` }`)
		if err != nil || document.Compare(got, c.want) != 0 || document.TypeName(got) != document.TypeName(c.want) {
			t.Errorf("%s = %#v, %v; want %#v", c.src, got, err, c.want)
		}
	}
	got, err := callOne(t, `function() { return new Code("f", {x: 1}) }`)
	cws, ok := got.(bson.CodeWithScope)
	if err != nil || !ok || cws.Code != "f" || document.Compare(cws.Scope, bson.D{{Key: "x", Value: 1.0}}) != 0 {
		t.Errorf("Code with a scope = %#v, %v", got, err)
	}
}
