package document

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func dec(t testing.TB, s string) bson.Decimal128 {
	t.Helper()
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		t.Fatalf("ParseDecimal128(%q): %v", s, err)
	}
	return d
}

type (
	myBool   bool
	myString string
)

func TestCompareTable(t *testing.T) {
	t.Parallel()
	oid1 := bson.ObjectID{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	oid2 := bson.ObjectID{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}
	nan := math.NaN()
	negZero := math.Copysign(0, -1)
	const p53 = int64(1) << 53
	tests := []struct {
		name string
		a, b any
		want int
	}{
		// Cross-type class order.
		{"minKey<undefined", bson.MinKey{}, bson.Undefined{}, -1},
		{"undefined<null", bson.Undefined{}, nil, -1},
		{"null==Null{}", nil, bson.Null{}, 0},
		{"null<number", nil, int32(-1000), -1},
		{"NaN>null", nan, nil, 1},
		{"number<string", 1e300, "", -1},
		{"decimal inf<string", dec(t, "Infinity"), "", -1},
		{"string==symbol", "abc", bson.Symbol("abc"), 0},
		{"string<object", "zzz", bson.D{}, -1},
		{"object<array", bson.D{{Key: "a", Value: 1}}, bson.A{}, -1},
		{"array<binary", bson.A{int32(1)}, bson.Binary{}, -1},
		{"binary<oid", bson.Binary{Data: []byte{255}}, oid1, -1},
		{"oid<bool", oid2, false, -1},
		{"bool<date", true, bson.DateTime(math.MinInt64), -1},
		{"date<timestamp", bson.DateTime(math.MaxInt64), bson.Timestamp{}, -1},
		{"timestamp<regex", bson.Timestamp{T: math.MaxUint32}, bson.Regex{}, -1},
		{"regex<dbpointer", bson.Regex{Pattern: "z"}, bson.DBPointer{}, -1},
		{"dbpointer<javascript", bson.DBPointer{DB: "z"}, bson.JavaScript(""), -1},
		{"javascript<cws", bson.JavaScript("z"), bson.CodeWithScope{Scope: bson.D{}}, -1},
		{"cws<maxKey", bson.CodeWithScope{Code: "z", Scope: bson.D{}}, bson.MaxKey{}, -1},
		{"minKey==minKey", bson.MinKey{}, bson.MinKey{}, 0},

		// Numbers.
		{"int32==double", int32(1), 1.0, 0},
		{"int32==int64", int32(7), int64(7), 0},
		{"int64==decimal", int64(7), dec(t, "7.000"), 0},
		{"2^53+1 > float 2^53", p53 + 1, float64(p53), 1},
		{"float 2^53 < 2^53+1", float64(p53), p53 + 1, -1},
		{"2^53 == float 2^53", p53, float64(p53), 0},
		{"maxInt64 < 2^63 float", int64(math.MaxInt64), math.Pow(2, 63), -1},
		{"minInt64 == -2^63 float", int64(math.MinInt64), -math.Pow(2, 63), 0},
		{"int64 vs fraction", int64(3), 3.5, -1},
		{"int64 vs negative fraction", int64(-3), -3.5, 1},
		{"int64 vs +Inf", int64(math.MaxInt64), math.Inf(1), -1},
		{"int64 vs -Inf", int64(math.MinInt64), math.Inf(-1), 1},
		{"NaN==NaN", nan, nan, 0},
		{"NaN<-Inf", nan, math.Inf(-1), -1},
		{"NaN<int", nan, int32(math.MinInt32), -1},
		{"NaN<int64", nan, int64(math.MinInt64), -1},
		{"decimal NaN == double NaN", dec(t, "NaN"), nan, 0},
		{"decimal NaN < -Inf", dec(t, "NaN"), math.Inf(-1), -1},
		{"-0 == 0", negZero, 0.0, 0},
		{"-0 == int 0", negZero, int32(0), 0},
		{"decimal -0 == 0", dec(t, "-0"), int32(0), 0},
		{"decimal 0.1 > double 0.1", dec(t, "0.1"), 0.1, -1}, // double 0.1 is 0.1000000000000000055...
		{"decimal 0.5 == double 0.5", dec(t, "0.5"), 0.5, 0},
		{"decimal big", dec(t, "1E+400"), math.MaxFloat64, 1},
		{"decimal inf == double inf", dec(t, "Infinity"), math.Inf(1), 0},
		{"decimal -inf < min float", dec(t, "-Infinity"), -math.MaxFloat64, -1},
		{"decimal 1E-6176 > 0", dec(t, "1E-6176"), int32(0), 1},
		{"decimal vs int64 exact", dec(t, "9223372036854775808"), int64(math.MaxInt64), 1},

		// Strings by bytes.
		{"string bytes", "a", "b", -1},
		{"string prefix", "ab", "a", 1},
		{"string utf8 bytes", "\u00e9", "z", 1},

		// Documents: type class, then name, then value, then length.
		{"doc type before name", bson.D{{Key: "b", Value: int32(1)}}, bson.D{{Key: "a", Value: "x"}}, -1},
		{"doc name", bson.D{{Key: "a", Value: int32(1)}}, bson.D{{Key: "b", Value: int32(1)}}, -1},
		{"doc value", bson.D{{Key: "a", Value: int32(2)}}, bson.D{{Key: "a", Value: 1.5}}, 1},
		{"doc length", bson.D{{Key: "a", Value: int32(1)}}, bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: nil}}, -1},
		{"doc nested", bson.D{{Key: "a", Value: bson.D{{Key: "x", Value: int64(1)}}}}, bson.D{{Key: "a", Value: bson.D{{Key: "x", Value: 1.0}}}}, 0},
		{"doc empty", bson.D{}, bson.D{{Key: "", Value: bson.MinKey{}}}, -1},

		// Arrays.
		{"array elementwise", bson.A{int32(1), "a"}, bson.A{int32(1), int32(2)}, 1},
		{"array length", bson.A{int32(1)}, bson.A{int32(1), int32(0)}, -1},
		{"array nested", bson.A{bson.A{}}, bson.A{bson.A{nil}}, -1},

		// Binary: length, subtype, bytes.
		{"binary length first", bson.Binary{Subtype: 0x80, Data: []byte{1}}, bson.Binary{Subtype: 0, Data: []byte{0, 0}}, -1},
		{"binary subtype", bson.Binary{Subtype: 4, Data: []byte{0}}, bson.Binary{Subtype: 0, Data: []byte{9}}, 1},
		{"binary bytes", bson.Binary{Data: []byte{1, 2}}, bson.Binary{Data: []byte{1, 3}}, -1},

		{"oid", oid1, oid2, -1},
		{"bool", false, true, -1},
		{"date signed", bson.DateTime(-1), bson.DateTime(0), -1},
		{"timestamp unsigned T", bson.Timestamp{T: 1 << 31}, bson.Timestamp{T: 1, I: math.MaxUint32}, 1},
		{"timestamp I", bson.Timestamp{T: 1, I: 1}, bson.Timestamp{T: 1, I: 2}, -1},
		{"regex pattern", bson.Regex{Pattern: "a", Options: "z"}, bson.Regex{Pattern: "b"}, -1},
		{"regex options", bson.Regex{Pattern: "a", Options: "i"}, bson.Regex{Pattern: "a", Options: "m"}, -1},
		{"dbpointer ns length first", bson.DBPointer{DB: "zz"}, bson.DBPointer{DB: "aaa"}, -1},
		{"dbpointer oid", bson.DBPointer{DB: "a", Pointer: oid2}, bson.DBPointer{DB: "a", Pointer: oid1}, 1},
		{"cws scope", bson.CodeWithScope{Code: "f", Scope: bson.D{{Key: "a", Value: int32(1)}}}, bson.CodeWithScope{Code: "f", Scope: bson.D{{Key: "a", Value: int32(2)}}}, -1},

		// Non-canonical inputs compare as their canonical forms.
		{"go int", 5, int64(5), 0},
		{"bson.M", bson.M{"a": 1}, bson.D{{Key: "a", Value: int32(1)}}, 0},
		{"[]byte", []byte{1}, bson.Binary{Data: []byte{1}}, 0},
		{"named bool", myBool(true), true, 0},
		{"named string", myString("b"), "a", 1},
		{"time.Time", time.UnixMilli(5).UTC(), bson.DateTime(5), 0},
		{"nested go int", bson.A{1, bson.D{{Key: "x", Value: uint8(2)}}}, bson.A{int64(1), bson.D{{Key: "x", Value: 2.0}}}, 0},
		{"unknown after maxKey", make(chan int), bson.MaxKey{}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Compare(tc.a, tc.b); got != tc.want {
				t.Errorf("Compare(%#v, %#v) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
			if got := Compare(tc.b, tc.a); got != -tc.want {
				t.Errorf("Compare(%#v, %#v) = %d, want %d (reversed)", tc.b, tc.a, got, -tc.want)
			}
			if got := Equal(tc.a, tc.b); got != (tc.want == 0) {
				t.Errorf("Equal = %v, want %v", got, tc.want == 0)
			}
		})
	}
}

func TestTypeNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    any
		name string
		num  int
	}{
		{1.5, "double", 1}, {"s", "string", 2}, {bson.D{}, "object", 3}, {bson.A{}, "array", 4},
		{bson.Binary{}, "binData", 5}, {bson.Undefined{}, "undefined", 6}, {bson.ObjectID{}, "objectId", 7},
		{true, "bool", 8}, {bson.DateTime(0), "date", 9}, {nil, "null", 10}, {bson.Null{}, "null", 10},
		{bson.Regex{}, "regex", 11}, {bson.DBPointer{}, "dbPointer", 12}, {bson.JavaScript(""), "javascript", 13},
		{bson.Symbol(""), "symbol", 14}, {bson.CodeWithScope{}, "javascriptWithScope", 15},
		{int32(1), "int", 16}, {bson.Timestamp{}, "timestamp", 17}, {int64(1), "long", 18},
		{bson.Decimal128{}, "decimal", 19}, {bson.MinKey{}, "minKey", -1}, {bson.MaxKey{}, "maxKey", 127},
		{1, "int", 16}, {1 << 40, "long", 18}, {float32(1), "double", 1}, {make(chan int), "", 0},
	}
	for _, tc := range tests {
		if got := TypeName(tc.v); got != tc.name {
			t.Errorf("TypeName(%#v) = %q, want %q", tc.v, got, tc.name)
		}
		if got := TypeNumber(tc.v); got != tc.num {
			t.Errorf("TypeNumber(%#v) = %d, want %d", tc.v, got, tc.num)
		}
	}
	for _, v := range []any{int32(1), int64(1), 1.0, bson.Decimal128{}, 7} {
		if !IsNumber(v) {
			t.Errorf("IsNumber(%#v) = false", v)
		}
	}
	for _, v := range []any{"1", nil, true, bson.DateTime(1), bson.Timestamp{}} {
		if IsNumber(v) {
			t.Errorf("IsNumber(%#v) = true", v)
		}
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	d := bson.D{
		{Key: "a", Value: bson.D{{Key: "b", Value: int32(1)}, {Key: "2", Value: "two"}}},
		{Key: "arr", Value: bson.A{"x", bson.D{{Key: "c", Value: "y"}}, bson.A{int32(9)}}},
		{Key: "docs", Value: bson.A{bson.D{{Key: "k", Value: int32(1)}}}},
		{Key: "a", Value: "duplicate ignored"},
		{Key: "n", Value: nil},
	}
	tests := []struct {
		path string
		want any
		ok   bool
	}{
		{"a.b", int32(1), true},
		{"a.2", "two", true}, // numeric component on a document is a field name
		{"arr.0", "x", true},
		{"arr.1.c", "y", true},
		{"arr.2.0", int32(9), true},
		{"arr.3", nil, false},
		{"arr.01", nil, false}, // leading zero is not an index
		{"arr.-1", nil, false},
		{"arr.c", nil, false},
		{"docs.k", nil, false}, // no array expansion
		{"n", nil, true},
		{"n.x", nil, false},
		{"a.b.c", nil, false},
		{"missing", nil, false},
		{"", nil, false},
	}
	for _, tc := range tests {
		got, ok := Lookup(d, tc.path)
		if ok != tc.ok || !Equal(got, tc.want) || (ok && TypeNumber(got) != TypeNumber(tc.want)) {
			t.Errorf("Lookup(%q) = %#v, %v; want %#v, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
	if v, ok := Get(d, "a"); !ok || TypeName(v) != "object" {
		t.Errorf("Get(a) = %#v, %v; want the first a", v, ok)
	}
}

// TestCompareTotalOrder checks on random values of every type that
// Compare is antisymmetric, transitive and consistent with Equal.
func TestCompareTotalOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(seed(t)))
	n := 250
	if longTests() {
		n = 1500
	}
	vals := make([]any, n)
	for i := range vals {
		vals[i] = randValue(r, 2)
	}
	for i := range vals {
		for j := range vals {
			c, d := Compare(vals[i], vals[j]), Compare(vals[j], vals[i])
			if c != -d || c < -1 || c > 1 {
				t.Fatalf("not antisymmetric: Compare(%#v, %#v) = %d, reversed %d", vals[i], vals[j], c, d)
			}
			if Equal(vals[i], vals[j]) != (c == 0) {
				t.Fatalf("Equal inconsistent for %#v, %#v", vals[i], vals[j])
			}
		}
		if Compare(vals[i], vals[i]) != 0 {
			t.Fatalf("not reflexive: %#v", vals[i])
		}
	}
	// A sort followed by an all-pairs check finds any transitivity break.
	sorted := slices.Clone(vals)
	slices.SortStableFunc(sorted, Compare)
	for i := range sorted {
		for j := i + 1; j < len(sorted); j++ {
			if Compare(sorted[i], sorted[j]) > 0 {
				t.Fatalf("not transitive: sorted[%d]=%#v > sorted[%d]=%#v", i, sorted[i], j, sorted[j])
			}
		}
	}
	// Random triples: a<=b and b<=c imply a<=c.
	for k := 0; k < 20000; k++ {
		a, b, c := vals[r.Intn(n)], vals[r.Intn(n)], vals[r.Intn(n)]
		if Compare(a, b) <= 0 && Compare(b, c) <= 0 && Compare(a, c) > 0 {
			t.Fatalf("not transitive: %#v <= %#v <= %#v but a > c", a, b, c)
		}
	}
}

// TestCompareNumbersExact compares random int64/float64/decimal triples
// against big.Rat arithmetic.
func TestCompareNumbersExact(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(seed(t)))
	rat := func(v any) *big.Rat {
		switch x := v.(type) {
		case int64:
			return new(big.Rat).SetInt64(x)
		case float64:
			return new(big.Rat).SetFloat64(x)
		}
		return toExact(v).r
	}
	for i := 0; i < 20000; i++ {
		base := r.Int63() >> uint(r.Intn(63))
		if r.Intn(2) == 0 {
			base = -base
		}
		a := any(base)
		var b any
		switch r.Intn(3) {
		case 0:
			b = float64(base) + float64(r.Intn(3)-1)
		case 1:
			b = base + int64(r.Intn(3)-1)
		default:
			b = mustDec(fmt.Sprintf("%d.%d", base, r.Intn(3)))
		}
		want := rat(a).Cmp(rat(b))
		if got := Compare(a, b); got != want {
			t.Fatalf("Compare(%v, %#v) = %d, want %d", a, b, got, want)
		}
	}
}

func TestInt64(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    any
		want int64
	}{{int32(-7), -7}, {int64(1) << 40, 1 << 40}, {float64(2.9), 2}, {float64(-2.9), -2}, {"5", 0}, {nil, 0}, {true, 0}} {
		if got := Int64(c.v); got != c.want {
			t.Errorf("Int64(%#v) = %d, want %d", c.v, got, c.want)
		}
	}
}

func TestSortFields(t *testing.T) {
	t.Parallel()
	in := bson.D{
		{Key: "b", Value: bson.A{bson.D{{Key: "y", Value: 1}, {Key: "x", Value: 2}}, 3}},
		{Key: "a", Value: bson.D{{Key: "d", Value: 1}, {Key: "c", Value: 2}}},
	}
	want := bson.D{
		{Key: "a", Value: bson.D{{Key: "c", Value: 2}, {Key: "d", Value: 1}}},
		{Key: "b", Value: bson.A{bson.D{{Key: "x", Value: 2}, {Key: "y", Value: 1}}, 3}},
	}
	got := SortFields(in)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SortFields = %v, want %v", got, want)
	}
	if in[0].Key != "b" {
		t.Fatal("SortFields changed its argument")
	}
	if SortFields(int32(7)) != int32(7) {
		t.Fatal("a scalar is not returned as it is")
	}
}

func TestReplyOK(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		reply bson.D
		want  bool
	}{
		{bson.D{{Key: "ok", Value: 1.0}}, true},
		{bson.D{{Key: "n", Value: int32(0)}, {Key: "ok", Value: int32(1)}}, true},
		{bson.D{{Key: "ok", Value: int64(1)}}, true},
		{bson.D{{Key: "ok", Value: true}}, true},
		{bson.D{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: "x"}}, false},
		{bson.D{{Key: "ok", Value: false}}, false},
		{bson.D{{Key: "ok", Value: "1"}}, false},
		{bson.D{{Key: "ok", Value: 0.0}, {Key: "ok", Value: 1.0}}, false}, // the first ok counts
		{bson.D{{Key: "n", Value: 1.0}}, false},
		{nil, false},
	} {
		if got := ReplyOK(c.reply); got != c.want {
			t.Errorf("ReplyOK(%v) = %v, want %v", c.reply, got, c.want)
		}
	}
}
