package mongosh

import (
	"math"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestBSONToJSAndBack checks that every BSON value survives a trip
// through JavaScript unchanged, except doubles holding an int32 value,
// which become int32 as in mongosh.
func TestBSONToJSAndBack(t *testing.T) {
	t.Parallel()
	s, _, _ := testShell(t, Options{})
	oid, _ := bson.ObjectIDFromHex("0123456789abcdef01234567")
	dec, _ := bson.ParseDecimal128("1.50")
	cases := []struct{ in, want any }{
		{nil, nil}, {true, true}, {"s", "s"}, {int32(-5), int32(-5)}, {int64(1) << 40, int64(1) << 40},
		{1.5, 1.5}, {2.0, int32(2)}, {math.Inf(1), math.Inf(1)}, {bson.DateTime(1700000000123), bson.DateTime(1700000000123)},
		{oid, oid}, {dec, dec}, {bson.Timestamp{T: 5, I: 2}, bson.Timestamp{T: 5, I: 2}},
		{bson.Binary{Subtype: 0, Data: []byte{1, 2}}, bson.Binary{Subtype: 0, Data: []byte{1, 2}}},
		{bson.Binary{Subtype: 4, Data: make([]byte, 16)}, bson.Binary{Subtype: 4, Data: make([]byte, 16)}},
		{bson.MinKey{}, bson.MinKey{}}, {bson.MaxKey{}, bson.MaxKey{}},
		{bson.Regex{Pattern: "^a", Options: "i"}, bson.Regex{Pattern: "^a", Options: "i"}},
		{bson.Regex{Pattern: "(?<n>a)", Options: "x"}, bson.Regex{Pattern: "(?<n>a)", Options: "x"}},
		{bson.A{int32(1), "x", bson.A{}}, bson.A{int32(1), "x", bson.A{}}},
		{bson.D{{Key: "b", Value: int32(1)}, {Key: "a", Value: bson.D{{Key: "c", Value: nil}}}}, bson.D{{Key: "b", Value: int32(1)}, {Key: "a", Value: bson.D{{Key: "c", Value: nil}}}}},
	}
	for _, tc := range cases {
		got, err := s.toBSON(s.toJS(tc.in), 0)
		if err != nil {
			t.Errorf("%#v: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%#v -> JS -> %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

// TestJSToBSON checks mongosh's number rule and the value constructors.
func TestJSToBSON(t *testing.T) {
	t.Parallel()
	s, _, _ := testShell(t, Options{})
	cases := []struct {
		src  string
		want any
	}{
		{"1", int32(1)}, {"-2147483648", int32(math.MinInt32)}, {"2147483648", 2147483648.0}, {"1.5", 1.5}, {"-0", math.Copysign(0, -1)},
		{"NaN", math.NaN()}, {"NumberInt(7)", int32(7)}, {"NumberLong(7)", int64(7)}, {"Double(7)", 7.0},
		{"undefined", nil}, {"new Date(5)", bson.DateTime(5)}, {"/a.b/gi", bson.Regex{Pattern: "a.b", Options: "i"}},
		{"({f: function() {}, a: 1})", bson.D{{Key: "f", Value: bson.JavaScript("function() {}")}, {Key: "a", Value: int32(1)}}}, {"MinKey", bson.MinKey{}},
		{"new Map([[\"a\", 1]])", bson.D{{Key: "a", Value: int32(1)}}},
		{"[undefined, 1]", bson.A{nil, int32(1)}},
	}
	for _, tc := range cases {
		v, err := s.rt.RunString(tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		got, err := s.toBSON(v, 0)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if f, ok := tc.want.(float64); ok && math.IsNaN(f) {
			if g, ok := got.(float64); !ok || !math.IsNaN(g) {
				t.Errorf("%s: got %#v, want NaN", tc.src, got)
			}
			continue
		}
		if !reflect.DeepEqual(got, tc.want) || (tc.src == "-0" && !math.Signbit(got.(float64))) {
			t.Errorf("%s: got %#v, want %#v", tc.src, got, tc.want)
		}
	}
	// A cyclic object is an error, not a crash.
	v, _ := s.rt.RunString("var o = {}; o.self = o; o")
	if _, err := s.toBSON(v, 0); err == nil {
		t.Error("cyclic object converted without error")
	}
}
