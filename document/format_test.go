package document

import (
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestFormat(t *testing.T) {
	t.Parallel()
	oid, _ := bson.ObjectIDFromHex("5f0c4a1b2c3d4e5f60718293")
	dec, _ := bson.ParseDecimal128("1.50")
	cases := []struct {
		v    any
		want string
	}{
		{bson.D{{Key: "_id", Value: int32(1)}}, "{ _id: 1 }"},
		{bson.D{}, "{}"},
		{bson.A{}, "[]"},
		{bson.D{{Key: "a", Value: bson.A{int64(1), "x"}}, {Key: "b", Value: nil}}, `{ a: [ 1, "x" ], b: null }`},
		{1.0, "1.0"},
		{1.5, "1.5"},
		{-0.0 * 1, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{math.NaN(), "nan"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{1e300, "1e+300"},
		{`say "hi"`, `"say \"hi\""`},
		{bson.DateTime(1700000000000), "new Date(1700000000000)"},
		{oid, "ObjectId('5f0c4a1b2c3d4e5f60718293')"},
		{dec, `NumberDecimal("1.50")`},
		{bson.Timestamp{T: 5, I: 2}, "Timestamp(5, 2)"},
		{bson.Binary{Subtype: 4, Data: []byte{0xab, 0x01}}, "BinData(4, AB01)"},
		{bson.Regex{Pattern: "^a", Options: "i"}, "/^a/i"},
		{bson.MinKey{}, "MinKey"},
		{bson.MaxKey{}, "MaxKey"},
		{bson.Undefined{}, "undefined"},
		{true, "true"},
		{7, "7"}, // Go int normalises to int32
		{time.UnixMilli(5).UTC(), "new Date(5)"},
	}
	for _, c := range cases {
		if got := Format(c.v); got != c.want {
			t.Errorf("Format(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
}

func TestFormatDeepValueIsBounded(t *testing.T) {
	t.Parallel()
	var v any = int32(1)
	for range 500 {
		v = bson.A{v}
	}
	got := Format(v)
	if len(got) > 2000 {
		t.Fatalf("Format of a 500-deep array printed %d bytes; want the depth bound to cut it", len(got))
	}
}

func TestFormatStreamDouble(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		f    float64
		want string
	}{
		{1, "1"},
		{0.5, "0.5"},
		{1.0 / 3, "0.333333"},
		{-2.5, "-2.5"},
		{123456789, "1.23457e+08"},
		{1e-5, "1e-05"},
		{math.Copysign(0, -1), "-0"},
		{math.NaN(), "nan"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
	} {
		if got := FormatStreamDouble(c.f); got != c.want {
			t.Errorf("FormatStreamDouble(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}
