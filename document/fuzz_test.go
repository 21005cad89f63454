package document

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// FuzzUnmarshal feeds arbitrary bytes to Unmarshal: it must never panic,
// and whatever it accepts must re-encode to the same bytes (the encoding
// is canonical for what Marshal writes) or at least decode again to the
// same document.
func FuzzUnmarshal(f *testing.F) {
	seeds := []bson.D{
		{},
		{{Key: "a", Value: int32(1)}, {Key: "b", Value: "x"}},
		{{Key: "d", Value: bson.D{{Key: "e", Value: bson.A{1.5, nil, true}}}}},
		{{Key: "t", Value: bson.DateTime(1)}, {Key: "o", Value: bson.ObjectID{1}}, {Key: "m", Value: mustDec("1.5")}},
		{{Key: "c", Value: bson.CodeWithScope{Code: "f", Scope: bson.D{{Key: "s", Value: int64(2)}}}}, {Key: "r", Value: bson.Regex{Pattern: "p", Options: "i"}}},
	}
	for _, d := range seeds {
		b, err := Marshal(d)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Unmarshal(b)
		if err != nil {
			return
		}
		again, err := Marshal(d)
		if err != nil {
			t.Fatalf("Marshal of a decoded document failed: %v", err)
		}
		d2, err := Unmarshal(again)
		if err != nil {
			t.Fatalf("re-encoded document does not decode: %v", err)
		}
		if !identical(d, d2) {
			t.Fatalf("decode/encode/decode changed the document:\n%#v\n%#v", d, d2)
		}
	})
}
