package query

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The bitwise operators over numbers (negatives sign-extended), doubles
// without a fraction, decimals, BinData and arrays, as mongod's
// documentation's examples use them.
func TestBitwiseOperators(t *testing.T) {
	t.Parallel()
	dec, _ := bson.ParseDecimal128("54")
	values := map[string]any{
		"int": int32(54), "long": int64(54), "double": 54.0, "frac": 54.5, "dec": dec,
		"bin": bson.Binary{Data: []byte{0x36}}, "neg": int64(-1), "str": "54", "arr": bson.A{int32(1), int32(54)},
	}
	for _, tc := range []struct {
		filter string
		match  []string
	}{
		{`{"a": {"$bitsAllSet": [1, 5]}}`, []string{"int", "long", "double", "dec", "bin", "neg", "arr"}},
		{`{"a": {"$bitsAllSet": 50}}`, []string{"int", "long", "double", "dec", "bin", "neg", "arr"}},
		{`{"a": {"$bitsAllSet": {"$binary": {"base64": "Mg==", "subType": "00"}}}}`, []string{"int", "long", "double", "dec", "bin", "neg", "arr"}},
		{`{"a": {"$bitsAnySet": [0, 3]}}`, []string{"neg", "arr"}},
		{`{"a": {"$bitsAllClear": [0, 3]}}`, []string{"int", "long", "double", "dec", "bin", "arr"}},
		{`{"a": {"$bitsAnyClear": [1, 0]}}`, []string{"int", "long", "double", "dec", "bin", "arr"}},
		{`{"a": {"$bitsAllSet": [100]}}`, []string{"neg"}},
		{`{"a": {"$bitsAllSet": []}}`, []string{"int", "long", "double", "dec", "bin", "neg", "arr"}},
		{`{"a": {"$bitsAnySet": []}}`, nil},
	} {
		var fd bson.D
		if err := bson.UnmarshalExtJSON([]byte(tc.filter), false, &fd); err != nil {
			t.Fatal(err)
		}
		f, err := ParseFilter(fd)
		if err != nil {
			t.Fatalf("%s: %v", tc.filter, err)
		}
		for name, v := range values {
			want := false
			for _, m := range tc.match {
				want = want || m == name
			}
			if got := f.Match(bson.D{{Key: "a", Value: v}}); got != want {
				t.Errorf("%s on %s (%v): %v, want %v", tc.filter, name, v, got, want)
			}
		}
	}
}
