package document

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand"
	"reflect"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// allTypesDoc holds a value of every canonical type, the limits of the
// integer types, nesting and a duplicate field name.
func allTypesDoc() bson.D {
	oid := bson.ObjectID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	return bson.D{
		{Key: "_id", Value: oid},
		{Key: "i32", Value: int32(-5)},
		{Key: "i32big", Value: int32(math.MaxInt32)},
		{Key: "i32min", Value: int32(math.MinInt32)},
		{Key: "i64small", Value: int64(1)}, // stays int64
		{Key: "i64", Value: int64(math.MinInt64)},
		{Key: "f", Value: 1.0}, // stays float64
		{Key: "s", Value: "héllo"},
		{Key: "b", Value: true},
		{Key: "n", Value: nil},
		{Key: "date", Value: bson.DateTime(-62135596800000)},
		{Key: "dec", Value: mustDec("-1.50E+300")},
		{Key: "bin", Value: bson.Binary{Subtype: 0x80, Data: []byte{0, 1, 2}}},
		{Key: "ts", Value: bson.Timestamp{T: math.MaxUint32, I: 7}},
		{Key: "re", Value: bson.Regex{Pattern: "^a.*", Options: "im"}},
		{Key: "min", Value: bson.MinKey{}},
		{Key: "max", Value: bson.MaxKey{}},
		{Key: "undef", Value: bson.Undefined{}},
		{Key: "ptr", Value: bson.DBPointer{DB: "db.coll", Pointer: oid}},
		{Key: "js", Value: bson.JavaScript("function(){}")},
		{Key: "sym", Value: bson.Symbol("sym")},
		{Key: "cws", Value: bson.CodeWithScope{Code: "x", Scope: bson.D{{Key: "a", Value: bson.A{int32(1)}}}}},
		{Key: "doc", Value: bson.D{{Key: "z", Value: int32(1)}, {Key: "a", Value: int32(2)}}},
		{Key: "arr", Value: bson.A{bson.D{}, bson.A{}, "x"}},
		{Key: "s", Value: "duplicate kept"},
	}
}

func TestMarshalRoundTripTable(t *testing.T) {
	t.Parallel()
	d := allTypesDoc()
	b, err := Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, d) {
		t.Fatalf("round trip:\n got %#v\nwant %#v", got, d)
	}
	// bson.Null{} is accepted and comes back as nil.
	b, err = Marshal(bson.D{{Key: "n", Value: bson.Null{}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Unmarshal(b); err != nil || !reflect.DeepEqual(got, bson.D{{Key: "n", Value: nil}}) {
		t.Fatalf("Null{}: got %#v, %v", got, err)
	}
}

func TestMarshalFloatBits(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{math.Copysign(0, -1), math.NaN(), nanPayload, negNaN, math.Inf(-1), math.SmallestNonzeroFloat64} {
		b, err := MarshalValue(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := UnmarshalValue(b)
		if err != nil {
			t.Fatal(err)
		}
		g, ok := v.(float64)
		if !ok || math.Float64bits(g) != math.Float64bits(f) {
			t.Errorf("float %x came back as %#v", math.Float64bits(f), v)
		}
	}
}

func TestMarshalRandomRoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(seed(t)))
	n := 2000
	if longTests() {
		n = 50000
	}
	var buf []byte
	for i := 0; i < n; i++ {
		d := randDoc(r, 4, 6)
		var err error
		buf, err = AppendMarshal(buf[:0], d)
		if err != nil {
			t.Fatalf("Marshal(%#v): %v", d, err)
		}
		got, err := Unmarshal(buf)
		if err != nil {
			t.Fatalf("Unmarshal(Marshal(%#v)): %v", d, err)
		}
		if !identical(got, d) {
			t.Fatalf("round trip:\n got %#v\nwant %#v", got, d)
		}
		// The generic msgpack decoder reads the same bytes: the format is
		// plain msgpack.
		if err := msgpack.NewDecoder(bytes.NewReader(buf)).Skip(); err != nil {
			t.Fatalf("msgpack cannot decode our encoding: %v", err)
		}
	}
}

func TestAppendMarshalKeepsPrefix(t *testing.T) {
	t.Parallel()
	prefix := []byte("key:")
	out, err := AppendMarshal(prefix, bson.D{{Key: "a", Value: int32(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, prefix) {
		t.Fatalf("prefix lost: %q", out)
	}
	if d, err := Unmarshal(out[len(prefix):]); err != nil || len(d) != 1 {
		t.Fatalf("Unmarshal: %#v, %v", d, err)
	}
	// On error the result has dst's length.
	out, err = AppendMarshal(prefix, bson.D{{Key: "a", Value: 5}})
	if CodeOf(err) != CodeBadValue || len(out) != len(prefix) {
		t.Fatalf("Go int: got %q, %v; want CodeBadValue", out, err)
	}
}

func TestMarshalRejects(t *testing.T) {
	t.Parallel()
	for _, v := range []any{5, uint(1), float32(1), bson.M{}, map[string]any{}, []any{}, struct{}{},
		bson.CodeWithScope{Code: "x", Scope: bson.M{}}} {
		if _, err := Marshal(bson.D{{Key: "v", Value: v}}); CodeOf(err) != CodeBadValue {
			t.Errorf("Marshal(%T) err = %v, want CodeBadValue", v, err)
		}
	}
	deep := any(int32(1))
	for i := 0; i < MaxReadDepth; i++ {
		deep = bson.A{deep}
	}
	if _, err := Marshal(bson.D{{Key: "a", Value: deep}}); CodeOf(err) != CodeOverflow {
		t.Errorf("too deep: err = %v, want CodeOverflow", err)
	}
}

// TestUnmarshalTruncated cuts valid encodings at every byte: each prefix
// must be an error, never a panic or a success.
func TestUnmarshalTruncated(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(seed(t)))
	for i := 0; i < 200; i++ {
		d := randDoc(r, 3, 5)
		b, err := Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(b); n++ {
			if got, err := Unmarshal(b[:n]); err == nil {
				t.Fatalf("Unmarshal of %d/%d bytes of %#v succeeded: %#v", n, len(b), d, got)
			} else if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
		}
		// Trailing bytes are an error too.
		if _, err := Unmarshal(append(b, 0xc0)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("trailing byte: err = %v", err)
		}
	}
}

type corruptCase struct {
	name string
	in   []byte
}

// corruptEncodings are hand-made bad encodings, one per check of the
// decoder; AppendBSON must reject each as Unmarshal does.
func corruptEncodings() []corruptCase {
	be32 := func(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	key := []byte{0xa1, 'a'} // fixstr "a"
	return []corruptCase{
		{"empty", nil},
		{"not a map", []byte{0x01}},
		{"map32 claims 4G fields", cat([]byte{0xdf}, be32(math.MaxUint32), key, []byte{0xc0})},
		{"array32 claims 4G elements", cat([]byte{0x81}, key, []byte{0xdd}, be32(math.MaxUint32), []byte{0xc0})},
		{"str32 claims 4G bytes", cat([]byte{0x81}, key, []byte{0xdb}, be32(math.MaxUint32), []byte("abc"))},
		{"key str32 claims 4G", cat([]byte{0x81, 0xdb}, be32(math.MaxUint32), []byte("abc"))},
		{"ext32 claims 4G", cat([]byte{0x81}, key, []byte{0xc9}, be32(math.MaxUint32), []byte{byte(extBinary), 0})},
		{"non-string key", cat([]byte{0x81, 0x01, 0xc0})},
		{"uint64 code", cat([]byte{0x81}, key, []byte{0xcf, 0, 0, 0, 0, 0, 0, 0, 1})},
		{"float32 code", cat([]byte{0x81}, key, []byte{0xca, 0, 0, 0, 0})},
		{"bin code", cat([]byte{0x81}, key, []byte{0xc4, 0})},
		{"uint32 over int32", cat([]byte{0x81}, key, []byte{0xce}, be32(math.MaxInt32+1))},
		{"unknown ext", cat([]byte{0x81}, key, []byte{0xd4, 99, 0})},
		{"date wrong length", cat([]byte{0x81}, key, []byte{0xd4, byte(extDateTime), 0})},
		{"oid wrong length", cat([]byte{0x81}, key, []byte{0xd8, byte(extObjectID)}, make([]byte, 16))},
		{"empty binary ext", cat([]byte{0x81}, key, []byte{0xc7, 0, byte(extBinary)})},
		{"minKey with payload", cat([]byte{0x81}, key, []byte{0xd4, byte(extMinKey), 0})},
		{"regex bad prefix", cat([]byte{0x81}, key, []byte{0xd4, byte(extRegex), 5})},
		{"dbpointer short", cat([]byte{0x81}, key, []byte{0xd4, byte(extDBPointer), 5})},
		{"cws no scope", cat([]byte{0x81}, key, []byte{0xd5, byte(extCodeWithScope), 1, 'x'})},
		{"cws scope not map", cat([]byte{0x81}, key, []byte{0xd6, byte(extCodeWithScope), 1, 'x', 0x01, 0x02})},
		{"reserved code", cat([]byte{0x81}, key, []byte{0xc1})},
	}
}

func TestUnmarshalCorrupt(t *testing.T) {
	t.Parallel()
	for _, tc := range corruptEncodings() {
		t.Run(tc.name, func(t *testing.T) {
			if d, err := Unmarshal(tc.in); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Unmarshal(% x) = %#v, %v; want ErrCorrupt", tc.in, d, err)
			} else if CodeOf(err) != CodeInternalError {
				t.Fatalf("CodeOf = %v", CodeOf(err))
			}
		})
	}
}

// TestUnmarshalDepth builds nesting bombs: MaxReadDepth levels decode,
// one more is an error, and a million levels fail fast without blowing
// the stack.
func TestUnmarshalDepth(t *testing.T) {
	t.Parallel()
	nest := func(levels int, array bool) []byte {
		// Top-level map {"a": ...} counts as level 1.
		b := []byte{0x81, 0xa1, 'a'}
		for i := 1; i < levels; i++ {
			if array {
				b = append(b, 0x91)
			} else {
				b = append(b, 0x81, 0xa1, 'a')
			}
		}
		return append(b, 0x01)
	}
	for _, array := range []bool{false, true} {
		if _, err := Unmarshal(nest(MaxReadDepth, array)); err != nil {
			t.Errorf("array=%v: %d levels: %v", array, MaxReadDepth, err)
		}
		if _, err := Unmarshal(nest(MaxReadDepth+1, array)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("array=%v: %d levels: err = %v, want ErrCorrupt", array, MaxReadDepth+1, err)
		}
		if _, err := Unmarshal(nest(1_000_000, array)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("array=%v: bomb: err = %v", array, err)
		}
	}
	// Marshal writes MaxReadDepth levels, so whatever it writes reads back.
	d := bson.D{{Key: "a", Value: int32(1)}}
	for i := 1; i < MaxReadDepth; i++ {
		d = bson.D{{Key: "a", Value: d}}
	}
	b, err := Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Unmarshal(b); err != nil {
		t.Fatal(err)
	}
}

func TestUnmarshalNoAliasing(t *testing.T) {
	t.Parallel()
	b, err := Marshal(bson.D{{Key: "bin", Value: bson.Binary{Data: []byte{1, 2, 3}}}, {Key: "s", Value: "abc"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = 0
	}
	if !reflect.DeepEqual(d, bson.D{{Key: "bin", Value: bson.Binary{Data: []byte{1, 2, 3}}}, {Key: "s", Value: "abc"}}) {
		t.Fatalf("result aliases the input: %#v", d)
	}
}
