package wire

import (
	"bytes"
	"math"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func richDoc() bson.D {
	dec, _ := bson.ParseDecimal128("12.5")
	return bson.D{
		{Key: "_id", Value: bson.NewObjectID()}, {Key: "s", Value: "héllo"}, {Key: "i", Value: int32(-7)},
		{Key: "l", Value: int64(1) << 40}, {Key: "f", Value: 2.5}, {Key: "nan", Value: math.NaN()}, {Key: "b", Value: true},
		{Key: "n", Value: nil}, {Key: "dt", Value: bson.NewDateTimeFromTime(time.Unix(1700000000, 0))},
		{Key: "bin", Value: bson.Binary{Subtype: 4, Data: []byte{1, 2, 3}}}, {Key: "ts", Value: bson.Timestamp{T: 5, I: 6}},
		{Key: "dec", Value: dec}, {Key: "re", Value: bson.Regex{Pattern: "^a", Options: "i"}},
		{Key: "min", Value: bson.MinKey{}}, {Key: "max", Value: bson.MaxKey{}}, {Key: "js", Value: bson.JavaScript("x")},
		{Key: "undef", Value: bson.Undefined{}}, {Key: "sym", Value: bson.Symbol("s")},
		{Key: "a", Value: bson.A{int32(1), "two", bson.D{{Key: "x", Value: bson.A{}}}, bson.A{3.0}, nil}},
		{Key: "d", Value: bson.D{{Key: "deep", Value: bson.D{{Key: "er", Value: int64(1)}}}}},
		{Key: "big", Value: bson.A{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 123}},
	}
}

func TestFastBSONMatchesDriver(t *testing.T) {
	t.Parallel()
	d := richDoc()
	want, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := marshalD(d)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("marshalD differs from bson.Marshal: %v\n got %x\nwant %x", err, got, want)
	}
	var viaDriver bson.D
	if err := bson.Unmarshal(want, &viaDriver); err != nil {
		t.Fatal(err)
	}
	fast, err := rawToD(want)
	if err != nil {
		t.Fatal(err)
	}
	// NaN != NaN: compare re-encoded bytes, and types one by one.
	again, _ := marshalD(fast)
	if !bytes.Equal(again, want) {
		t.Fatalf("rawToD lost something:\n got %v\nwant %v", fast, viaDriver)
	}
	for i := range fast {
		if reflect.TypeOf(fast[i].Value) != reflect.TypeOf(viaDriver[i].Value) {
			t.Errorf("%s: %T, bson.Unmarshal gives %T", fast[i].Key, fast[i].Value, viaDriver[i].Value)
		}
	}
	if _, err := marshalD(bson.D{{Key: "a\x00b", Value: 1}}); err == nil {
		t.Fatal("a key with NUL was encoded")
	}
}
