package document

import (
	"errors"
	"math/rand"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// keepFields is the model of UnmarshalFields: Unmarshal, then keep the
// named top-level fields in order.
func keepFields(d bson.D, names []string) bson.D {
	out := bson.D{}
	for _, e := range d {
		for _, n := range names {
			if e.Key == n {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// TestUnmarshalFieldsModel checks UnmarshalFields against Unmarshal
// followed by a filter, on random documents (nested, with duplicate and
// dotted names) and random name sets; and that every truncation of the
// input and a trailing byte are ErrCorrupt, as for Unmarshal.
func TestUnmarshalFieldsModel(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(seed(t)))
	pool := []string{"a", "b", "_id", "", "x.y", "zz"}
	n := 2000
	if longTests() {
		n = 50000
	}
	for i := 0; i < n; i++ {
		d := randDoc(r, 4, 6)
		b, err := Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range pool {
			if r.Intn(2) == 0 {
				names = append(names, p)
			}
		}
		got, err := UnmarshalFields(b, names)
		if err != nil {
			t.Fatalf("UnmarshalFields(%#v, %q): %v", d, names, err)
		}
		if want := keepFields(d, names); !identical(got, want) {
			t.Fatalf("UnmarshalFields(%#v, %q):\n got %#v\nwant %#v", d, names, got, want)
		}
		if i%10 != 0 {
			continue
		}
		for k := 0; k < len(b); k++ {
			if _, err := UnmarshalFields(b[:k], names); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("UnmarshalFields of %d/%d bytes of %#v: err = %v, want ErrCorrupt", k, len(b), d, err)
			}
		}
		if _, err := UnmarshalFields(append(b, 0xc0), names); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("trailing byte: err = %v", err)
		}
	}
}

// TestUnmarshalFieldsRejects checks that a skipped value is checked as
// Unmarshal checks it: an unknown code, an out-of-range int32 and
// nesting deeper than MaxReadDepth are errors even in a field that is
// not wanted.
func TestUnmarshalFieldsRejects(t *testing.T) {
	t.Parallel()
	cases := map[string][]byte{
		"unknown code 0xc1":   {0x82, 0xa1, 'a', 0x01, 0xa1, 'b', 0xc1},
		"float32 code":        {0x81, 0xa1, 'b', 0xca, 0, 0, 0, 0},
		"uint32 out of int32": {0x81, 0xa1, 'b', 0xce, 0xff, 0xff, 0xff, 0xff},
		"bin code":            {0x81, 0xa1, 'b', 0xc4, 0x00},
		"non-string name":     {0x81, 0x01, 0x01},
		"not a map":           {0x91, 0x01},
	}
	deep := []byte{0x81, 0xa1, 'b'}
	for i := 0; i < MaxReadDepth+1; i++ {
		deep = append(deep, 0x91)
	}
	deep = append(deep, 0xc0)
	cases["too deep"] = deep
	for name, b := range cases {
		if _, err := UnmarshalFields(b, []string{"a"}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
		if _, err := Unmarshal(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Unmarshal accepts it (err = %v); the case is wrong", name, err)
		}
	}
}

// FuzzUnmarshalFields: never panics, and whatever Unmarshal accepts,
// UnmarshalFields accepts with the same wanted fields.
func FuzzUnmarshalFields(f *testing.F) {
	for _, d := range []bson.D{
		{},
		{{Key: "a", Value: int32(1)}, {Key: "b", Value: "x"}},
		{{Key: "b", Value: bson.D{{Key: "e", Value: bson.A{1.5, nil, true}}}}, {Key: "a", Value: bson.DateTime(1)}},
	} {
		b, err := Marshal(d)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ferr := UnmarshalFields(b, []string{"a"})
		d, err := Unmarshal(b)
		if err != nil {
			return
		}
		if ferr != nil {
			t.Fatalf("Unmarshal accepts what UnmarshalFields rejects: %v", ferr)
		}
		if want := keepFields(d, []string{"a"}); !identical(got, want) {
			t.Fatalf("got %#v, want %#v", got, want)
		}
	})
}
