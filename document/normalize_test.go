package document

import (
	"math"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// driverNormalize is the slow path by definition: what the official
// driver produces for v after an encode/decode round trip.
func driverNormalize(t *testing.T, v any) bson.D {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatalf("bson.Marshal(%#v): %v", v, err)
	}
	var d bson.D
	if err := bson.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

type tagged struct {
	ID    int            `bson:"_id"`
	Name  string         `bson:"name"`
	When  time.Time      `bson:"when"`
	Tags  []string       `bson:"tags"`
	Inner map[string]int `bson:"inner"`
	Skip  string         `bson:"-"`
	Empty *int           `bson:"empty"`
	Small int8
	U32   uint32
}

func TestNormalizeDriverRules(t *testing.T) {
	t.Parallel()
	when := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	tests := []struct {
		name string
		in   any
		want bson.D
	}{
		{"go ints", bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1 << 40}, {Key: "c", Value: int8(-1)}, {Key: "d", Value: uint16(9)}, {Key: "e", Value: uint32(5)}, {Key: "f", Value: uint64(6)}},
			bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: int64(1 << 40)}, {Key: "c", Value: int32(-1)}, {Key: "d", Value: int32(9)}, {Key: "e", Value: int64(5)}, {Key: "f", Value: int64(6)}}},
		{"float32 and time", bson.D{{Key: "f", Value: float32(1.5)}, {Key: "t", Value: when}},
			bson.D{{Key: "f", Value: 1.5}, {Key: "t", Value: bson.DateTime(when.UnixMilli())}}},
		{"null forms", bson.D{{Key: "a", Value: bson.Null{}}, {Key: "b", Value: []byte(nil)}, {Key: "c", Value: []int(nil)}, {Key: "d", Value: map[string]any(nil)}, {Key: "e", Value: (*int)(nil)}, {Key: "f", Value: bson.D(nil)}, {Key: "g", Value: bson.A(nil)}},
			bson.D{{Key: "a", Value: nil}, {Key: "b", Value: nil}, {Key: "c", Value: nil}, {Key: "d", Value: nil}, {Key: "e", Value: nil}, {Key: "f", Value: nil}, {Key: "g", Value: nil}}},
		{"slices and maps", bson.D{{Key: "s", Value: []int{1, 2}}, {Key: "b", Value: []byte{7}}, {Key: "m", Value: bson.M{"z": 1, "a": "x"}}, {Key: "arr", Value: [2]string{"p", "q"}}},
			bson.D{{Key: "s", Value: bson.A{int32(1), int32(2)}}, {Key: "b", Value: bson.Binary{Data: []byte{7}}}, {Key: "m", Value: bson.D{{Key: "a", Value: "x"}, {Key: "z", Value: int32(1)}}}, {Key: "arr", Value: bson.A{"p", "q"}}}},
		{"bson.M sorted", bson.M{"b": 2, "a": 1}, bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: int32(2)}}},
		{"map[string]any", map[string]any{"x": []any{bson.Null{}, int64(3)}}, bson.D{{Key: "x", Value: bson.A{nil, int64(3)}}}},
		{"struct", tagged{ID: 7, Name: "n", When: when, Tags: []string{"a"}, Inner: map[string]int{"k": 1}, Skip: "s", Small: 2, U32: 3},
			bson.D{{Key: "_id", Value: int32(7)}, {Key: "name", Value: "n"}, {Key: "when", Value: bson.DateTime(when.UnixMilli())}, {Key: "tags", Value: bson.A{"a"}},
				{Key: "inner", Value: bson.D{{Key: "k", Value: int32(1)}}}, {Key: "empty", Value: nil}, {Key: "small", Value: int32(2)}, {Key: "u32", Value: int64(3)}}},
		{"raw", bson.Raw(mustMarshalBSON(bson.D{{Key: "a", Value: bson.D{{Key: "b", Value: int64(1)}}}})), bson.D{{Key: "a", Value: bson.D{{Key: "b", Value: int64(1)}}}}},
		{"code with scope", bson.D{{Key: "c", Value: bson.CodeWithScope{Code: "f", Scope: bson.M{"a": 1}}}},
			bson.D{{Key: "c", Value: bson.CodeWithScope{Code: "f", Scope: bson.D{{Key: "a", Value: int32(1)}}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Normalize(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Normalize:\n got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func mustMarshalBSON(v any) []byte {
	b, err := bson.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func TestNormalizeErrors(t *testing.T) {
	t.Parallel()
	cyc := bson.A{nil}
	cyc[0] = cyc
	for _, in := range []any{
		nil,
		bson.D{{Key: "u", Value: uint64(math.MaxUint64)}},
		bson.D{{Key: "c", Value: make(chan int)}},
		bson.D{{Key: "f", Value: func() {}}},
		bson.D{{Key: "cycle", Value: cyc}},
		bson.Raw([]byte{1, 2, 3}),
		42,
	} {
		if _, err := Normalize(in); err == nil {
			t.Errorf("Normalize(%T) succeeded", in)
		} else if c := CodeOf(err); c != CodeBadValue && c != CodeOverflow {
			t.Errorf("Normalize(%T): code %v", in, c)
		}
	}
}

// TestNormalizeFastPath checks that a canonical bson.D comes back as the
// same slice, and that the fast path agrees with the driver round trip on
// random canonical documents.
func TestNormalizeFastPath(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(seed(t)))
	for i := 0; i < 500; i++ {
		d := randDoc(r, 3, 6)
		if len(d) == 0 {
			continue
		}
		got, err := Normalize(d)
		if err != nil {
			t.Fatal(err)
		}
		if &got[0] != &d[0] {
			t.Fatalf("fast path copied a canonical document: %#v", d)
		}
		if slow := driverNormalize(t, d); !identical(got, slow) {
			t.Fatalf("fast path disagrees with the driver:\nfast %#v\nslow %#v", got, slow)
		}
	}
}

// TestNormalizeMatchesDriver feeds random non-canonical Go values through
// both Normalize and the driver.
func TestNormalizeMatchesDriver(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(seed(t)))
	gens := []func() any{
		func() any { return r.Int63n(1<<40) - 1<<39 },
		func() any { return int(int32(r.Uint32())) },
		func() any { return int(r.Int63()) },
		func() any { return int8(r.Intn(256)) },
		func() any { return int16(r.Intn(65536)) },
		func() any { return uint8(r.Intn(256)) },
		func() any { return uint16(r.Intn(65536)) },
		func() any { return r.Uint32() },
		func() any { return uint64(r.Int63()) },
		func() any { return float32(r.NormFloat64()) },
		func() any { return time.Unix(r.Int63n(1<<35)-1<<34, r.Int63n(1e9)) },
		func() any { return []int{r.Intn(10), r.Int()} },
		func() any { return []byte{byte(r.Intn(256))} },
		func() any { return map[string]int{"k": r.Intn(5)} },
		func() any { return bson.Null{} },
		func() any { return [3]float32{1, 2, 3} },
		func() any { return []any{bson.Null{}, 5, "s"} },
	}
	for i := 0; i < 2000; i++ {
		v := gens[r.Intn(len(gens))]()
		in := bson.D{{Key: "v", Value: v}, {Key: "nested", Value: bson.D{{Key: "w", Value: v}}}}
		got, err := Normalize(in)
		if err != nil {
			t.Fatalf("Normalize(%#v): %v", v, err)
		}
		if slow := driverNormalize(t, in); !identical(got, slow) {
			t.Fatalf("Normalize(%#v):\n got %#v\nwant %#v", v, got, slow)
		}
		if !isCanonicalType(v) && &got[0] == &in[0] {
			t.Fatalf("a non-canonical document was returned without conversion")
		}
	}
}

func TestClone(t *testing.T) {
	t.Parallel()
	d := bson.D{{Key: "a", Value: bson.A{bson.D{{Key: "b", Value: bson.Binary{Data: []byte{1}}}}}},
		{Key: "c", Value: bson.CodeWithScope{Code: "x", Scope: bson.D{{Key: "s", Value: int32(1)}}}}}
	c := Clone(d).(bson.D)
	if !reflect.DeepEqual(c, d) {
		t.Fatalf("Clone differs: %#v", c)
	}
	d[0].Value.(bson.A)[0].(bson.D)[0].Value.(bson.Binary).Data[0] = 9
	d[0].Value.(bson.A)[0].(bson.D)[0].Key = "changed"
	d[1].Value.(bson.CodeWithScope).Scope.(bson.D)[0].Value = "changed"
	want := bson.D{{Key: "a", Value: bson.A{bson.D{{Key: "b", Value: bson.Binary{Data: []byte{1}}}}}},
		{Key: "c", Value: bson.CodeWithScope{Code: "x", Scope: bson.D{{Key: "s", Value: int32(1)}}}}}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("Clone shares memory: %#v", c)
	}
}
