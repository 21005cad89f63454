package document

import (
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestParseExtJSONAccepts(t *testing.T) {
	t.Parallel()
	oid, _ := bson.ObjectIDFromHex("5f3c9c3b8d1e4a2b3c4d5e6f")
	tests := []struct {
		in   string
		want bson.D
	}{
		{`{}`, bson.D{}},
		{" \n{\"a\":1}\n\t ", bson.D{{Key: "a", Value: int32(1)}}},
		{`{"a":2147483648,"b":1.0,"c":-0.0,"d":null,"e":true,"f":"s"}`,
			bson.D{{Key: "a", Value: int64(2147483648)}, {Key: "b", Value: 1.0}, {Key: "c", Value: math.Copysign(0, -1)}, {Key: "d", Value: nil}, {Key: "e", Value: true}, {Key: "f", Value: "s"}}},
		{`{"a":{"$numberInt":"7"},"b":{"$numberLong":"7"},"c":{"$numberDouble":"7"},"d":{"$numberDecimal":"7.0"}}`,
			bson.D{{Key: "a", Value: int32(7)}, {Key: "b", Value: int64(7)}, {Key: "c", Value: 7.0}, {Key: "d", Value: mustDec("7.0")}}},
		{`{"x":{"y":[1,{"z":null}]}}`, bson.D{{Key: "x", Value: bson.D{{Key: "y", Value: bson.A{int32(1), bson.D{{Key: "z", Value: nil}}}}}}}},
		{`{"_id":{"$oid":"5f3c9c3b8d1e4a2b3c4d5e6f"},"t":{"$date":"2020-01-01T00:00:00Z"},"u":{"$date":{"$numberLong":"-1"}}}`,
			bson.D{{Key: "_id", Value: oid}, {Key: "t", Value: bson.DateTime(1577836800000)}, {Key: "u", Value: bson.DateTime(-1)}}},
		{`{"b":{"$binary":{"base64":"AQI=","subType":"80"}},"ts":{"$timestamp":{"t":1,"i":2}},"r":{"$regularExpression":{"pattern":"^a","options":"i"}}}`,
			bson.D{{Key: "b", Value: bson.Binary{Subtype: 0x80, Data: []byte{1, 2}}}, {Key: "ts", Value: bson.Timestamp{T: 1, I: 2}}, {Key: "r", Value: bson.Regex{Pattern: "^a", Options: "i"}}}},
		{`{"a":{"$minKey":1},"b":{"$maxKey":1},"c":{"$undefined":true},"d":{"$symbol":"s"},"e":{"$code":"f()"}}`,
			bson.D{{Key: "a", Value: bson.MinKey{}}, {Key: "b", Value: bson.MaxKey{}}, {Key: "c", Value: bson.Undefined{}}, {Key: "d", Value: bson.Symbol("s")}, {Key: "e", Value: bson.JavaScript("f()")}}},
		{`{"c":{"$code":"f","$scope":{"x":1}},"p":{"$dbPointer":{"$ref":"db.c","$id":{"$oid":"5f3c9c3b8d1e4a2b3c4d5e6f"}}}}`,
			bson.D{{Key: "c", Value: bson.CodeWithScope{Code: "f", Scope: bson.D{{Key: "x", Value: int32(1)}}}}, {Key: "p", Value: bson.DBPointer{DB: "db.c", Pointer: oid}}}},
		// Query operators and duplicate keys pass through untouched.
		{`{"$or":[{"a":{"$gt":1}}],"a":1,"a":2}`,
			bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "a", Value: bson.D{{Key: "$gt", Value: int32(1)}}}}}}, {Key: "a", Value: int32(1)}, {Key: "a", Value: int32(2)}}},
		{`{"a":"\u00e9\u0000"}`, bson.D{{Key: "a", Value: "é\x00"}}},
	}
	for _, tc := range tests {
		got, err := ParseExtJSON([]byte(tc.in))
		if err != nil {
			t.Errorf("ParseExtJSON(%s): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseExtJSON(%s):\n got %#v\nwant %#v", tc.in, got, tc.want)
		}
	}
}

func TestParseExtJSONRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, msg string
	}{
		{``, "empty input"},
		{`   `, "empty input"},
		{`{"a":1} x`, "after the value at byte 8"},
		{`{"a":1}{"b":2}`, "after the value at byte 7"},
		{"{\"a\":\"\xff\"}", "invalid UTF-8 at byte 6"},
		{"{\"\xc3\":1}", "invalid UTF-8 at byte 2"},
		{`{"a":1,}`, "byte 8"},
		{`{a:1}`, "byte 2"},
		{`{"a":NaN}`, "byte 6"},
		{`{"a":1`, "unexpected end of input"},
		{`[1]`, "expected a document at byte 0"},
		{`"s"`, "expected a document"},
		{`{"a":{"$oid":"zz"}}`, "ObjectID"},
		{`{"a":{"$oid":"5f3c9c3b8d1e4a2b3c4d5e6"}}`, "ObjectID"},
		{`{"a":{"$oid":"5f3c9c3b8d1e4a2b3c4d5e6f","x":1}}`, "objectID"},
		{`{"a":{"$numberInt":"2147483648"}}`, "int32"},
		{`{"a":{"$numberInt":1}}`, "32-bit"},
		{`{"a":{"$numberLong":"1.5"}}`, "1.5"},
		{`{"a":{"$numberDouble":"abc"}}`, "abc"},
		{`{"a":{"$numberDecimal":"abc"}}`, "abc"},
		{`{"a":{"$binary":{"base64":"AQ==","subtype":"00"}}}`, "subtype"},
		{`{"a":{"$binary":{"base64":"!!","subType":"00"}}}`, "base64"},
		{`{"a":{"$timestamp":{"t":1,"x":2}}}`, "x"},
		{`{"a":{"$date":"2020-01-01"}}`, "$date"},
		{`{"a":{"$minKey":2}}`, "minKey"},
		{`{"a":{"$undefined":false}}`, "undefined"},
		{`{"a":{"$uuid":"zz"}}`, "uuid"},
		{`{"a":1e400}`, "out of range"},
	}
	for _, tc := range tests {
		_, err := ParseExtJSON([]byte(tc.in))
		if CodeOf(err) != CodeFailedToParse {
			t.Errorf("ParseExtJSON(%q): err = %v, want FailedToParse", tc.in, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseExtJSON(%q): message %q lacks %q", tc.in, err, tc.msg)
		}
	}
}

func TestParseExtJSONValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want any
	}{
		{`[{"a":1},{"b":{"$numberLong":"2"}}]`, bson.A{bson.D{{Key: "a", Value: int32(1)}}, bson.D{{Key: "b", Value: int64(2)}}}},
		{`null`, nil},
		{` 5 `, int32(5)},
		{`{"$date":{"$numberLong":"5"}}`, bson.DateTime(5)},
		{`"x"`, "x"},
	}
	for _, tc := range tests {
		got, err := ParseExtJSONValue([]byte(tc.in))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseExtJSONValue(%s) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{`[1] [2]`, `[1,]`, "\"\xfe\"", ``, `{"$oid":"x"}`} {
		if _, err := ParseExtJSONValue([]byte(in)); CodeOf(err) != CodeFailedToParse {
			t.Errorf("ParseExtJSONValue(%q): err = %v, want FailedToParse", in, err)
		}
	}
}

func TestMarshalExtJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v         any
		canonical bool
		want      string
	}{
		{bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: int64(2)}}, true, `{"a":{"$numberInt":"1"},"b":{"$numberLong":"2"}}`},
		{bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: int64(2)}, {Key: "c", Value: 1.0}}, false, `{"a":1,"b":2,"c":1.0}`},
		{bson.A{int32(1), "<&>"}, false, `[1,"<&>"]`},
		{bson.DateTime(0), false, `{"$date":"1970-01-01T00:00:00Z"}`},
		{bson.DateTime(0), true, `{"$date":{"$numberLong":"0"}}`},
		{nil, false, `null`},
		{bson.M{"z": 1, "a": bson.Null{}}, false, `{"a":null,"z":1}`},
		{math.NaN(), false, `{"$numberDouble":"NaN"}`},
	}
	for _, tc := range tests {
		got, err := MarshalExtJSON(tc.v, tc.canonical)
		if err != nil || string(got) != tc.want {
			t.Errorf("MarshalExtJSON(%#v, %v) = %s, %v; want %s", tc.v, tc.canonical, got, err, tc.want)
		}
	}
	if _, err := MarshalExtJSON(make(chan int), false); CodeOf(err) != CodeBadValue {
		t.Errorf("chan: err = %v", err)
	}
}

// TestExtJSONRoundTrip renders random documents as canonical Extended
// JSON and parses them back: every type and value survives (NaN payloads
// aside, which Extended JSON cannot carry). Relaxed output parses back to
// an equal document.
func TestExtJSONRoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(seed(t)))
	for i := 0; i < 500; i++ {
		d := randDoc(r, 3, 5)
		for _, canonical := range []bool{true, false} {
			b, err := MarshalExtJSON(d, canonical)
			if err != nil {
				t.Fatalf("MarshalExtJSON(%#v): %v", d, err)
			}
			if strings.Contains(string(b), `\ufffd`) {
				continue // invalid UTF-8 in a string; JSON cannot carry it
			}
			got, err := ParseExtJSON(b)
			if err != nil {
				t.Fatalf("ParseExtJSON(%s): %v", b, err)
			}
			if !Equal(got, d) {
				t.Fatalf("canonical=%v round trip of %s:\n got %#v\nwant %#v", canonical, b, got, d)
			}
			if canonical && !sameTypes(got, d) {
				t.Fatalf("canonical round trip changed types:\n got %#v\nwant %#v", got, d)
			}
		}
	}
}

// sameTypes reports whether a and b have the same BSON type at every
// position.
func sameTypes(a, b any) bool {
	if TypeNumber(a) != TypeNumber(b) {
		return false
	}
	switch x := a.(type) {
	case bson.D:
		y := b.(bson.D)
		for i := range x {
			if !sameTypes(x[i].Value, y[i].Value) {
				return false
			}
		}
	case bson.A:
		y := b.(bson.A)
		for i := range x {
			if !sameTypes(x[i], y[i]) {
				return false
			}
		}
	}
	return true
}
