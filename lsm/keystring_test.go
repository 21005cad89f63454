package lsm

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func dec(s string) bson.Decimal128 {
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		panic(err)
	}
	return d
}

// edgeNumbers are the numbers where encodings usually go wrong.
var edgeNumbers = []any{
	math.NaN(), math.Inf(-1), math.Inf(1), 0.0, math.Copysign(0, -1), int32(0), int64(0),
	1.0, int32(1), int64(1), dec("1.0"), dec("1"), dec("0.1"), 0.1, dec("0.10000000000000000555"),
	-1.0, int32(-1), dec("-1E0"), 0.5, -0.5, dec("0.5"),
	int64(math.MaxInt64), int64(math.MaxInt64 - 1), int64(math.MinInt64), int64(math.MinInt64 + 1),
	0x1p63, -0x1p63, math.Nextafter(0x1p63, 0), math.Nextafter(-0x1p63, 0),
	int64(1<<53 - 1), int64(1 << 53), int64(1<<53 + 1), int64(-(1 << 53) - 1),
	float64(1<<53 - 1), float64(1 << 53), float64(1<<53 + 2), math.Nextafter(1<<53, 0),
	math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
	dec("1E+6144"), dec("-1E+6144"), dec("1E-6176"), dec("-1E-6176"), dec("9.999999999999999999999999999999999E+6144"),
	dec("NaN"), dec("Infinity"), dec("-Infinity"), dec("-0"), dec("0E-10"),
	dec("9223372036854775807"), dec("9223372036854775808"), dec("-9223372036854775809"),
	dec("9007199254740993"), dec("1.7976931348623157E+308"), dec("1.7976931348623158E+308"),
	dec("-1.7976931348623159E+308"), dec("4.9E-324"), dec("2.5E-324"), dec("-2.5E-324"),
	dec("123456789012345678901234.5678901234"),
	int32(math.MaxInt32), int32(math.MinInt32),
}

func randString(r *rand.Rand) string {
	alpha := []byte{0, 1, 'a', 'b', 0xff, 0xfe, 'z'}
	b := make([]byte, r.IntN(5))
	for i := range b {
		b[i] = alpha[r.IntN(len(alpha))]
	}
	return string(b)
}

func randNumber(r *rand.Rand) any {
	switch r.IntN(9) {
	case 0:
		return edgeNumbers[r.IntN(len(edgeNumbers))]
	case 1:
		return int32(r.IntN(7) - 3)
	case 2:
		return int64(r.IntN(7) - 3)
	case 3:
		return float64(r.IntN(13)-6) / 4
	case 4:
		return int64(r.Uint64())
	case 5:
		return math.Float64frombits(r.Uint64())
	case 6:
		// Decimal near a double or an int: coefficient*10^exp.
		c := new(big.Int).SetInt64(r.Int64N(1<<62) - 1<<61)
		if r.IntN(2) == 0 {
			c.Mul(c, big.NewInt(r.Int64N(1<<40)))
		}
		d, ok := bson.ParseDecimal128FromBigInt(c, r.IntN(60)-40)
		if !ok {
			return 0.0
		}
		return d
	case 7:
		d, _ := bson.ParseDecimal128(strconv.FormatFloat(float64(r.IntN(13)-6)/4, 'f', -1, 64))
		return d
	default:
		f := float64(int64(1)<<53) + float64(r.IntN(5)-2)
		if r.IntN(2) == 0 {
			return f
		}
		return int64(f) + int64(r.IntN(3)-1)
	}
}

func randValue(r *rand.Rand, depth int) any {
	n := 20
	if depth > 2 {
		n = 18 // no more nesting
	}
	switch r.IntN(n) {
	case 0:
		return bson.MinKey{}
	case 1:
		return bson.MaxKey{}
	case 2:
		return nil
	case 3:
		return bson.Undefined{}
	case 4, 5, 6:
		return randNumber(r)
	case 7:
		return randString(r)
	case 8:
		return bson.Symbol(randString(r))
	case 9:
		data := []byte(randString(r))
		return bson.Binary{Subtype: byte(r.IntN(3)), Data: data}
	case 10:
		var id bson.ObjectID
		id[r.IntN(12)] = byte(r.IntN(3))
		id[11] = byte(r.IntN(3))
		return id
	case 11:
		return r.IntN(2) == 0
	case 12:
		return bson.DateTime(r.Int64N(5) - 2 + []int64{0, math.MaxInt64 - 2, math.MinInt64 + 2}[r.IntN(3)])
	case 13:
		return bson.Timestamp{T: uint32(r.IntN(3)) * 0x80000000, I: uint32(r.IntN(3))}
	case 14:
		return bson.Regex{Pattern: randString(r), Options: randString(r)}
	case 15:
		var id bson.ObjectID
		id[0] = byte(r.IntN(2))
		return bson.DBPointer{DB: randString(r), Pointer: id}
	case 16:
		if r.IntN(3) == 0 {
			return bson.CodeWithScope{Code: bson.JavaScript(randString(r)), Scope: randDoc(r, depth+1)}
		}
		return bson.JavaScript(randString(r))
	case 17:
		return randDoc(r, depth+1)
	default:
		a := bson.A{}
		for i := r.IntN(4); i > 0; i-- {
			a = append(a, randValue(r, depth+1))
		}
		return a
	}
}

func randDoc(r *rand.Rand, depth int) bson.D {
	d := bson.D{}
	for i := r.IntN(4); i > 0; i-- {
		d = append(d, bson.E{Key: []string{"a", "b", "", "a\x01"}[r.IntN(4)], Value: randValue(r, depth)})
	}
	return d
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

func seedRand(t testing.TB) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("TTLKV_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (replay with TTLKV_SEED=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed))
}

// checkPair asserts the keystring contract for one pair of values.
func checkPair(t *testing.T, a, b any) {
	t.Helper()
	checkPairKeys(t, a, b, keysOf(a), keysOf(b))
}

// keysOf is v's key ascending ([0]) and descending ([1]).
func keysOf(v any) [2][]byte {
	return [2][]byte{AppendKey(nil, v, false), AppendKey(nil, v, true)}
}

// checkPairKeys is checkPair over keys already encoded (keysOf): a
// compound key is the concatenation of its fields' keys, as
// checkRoundTrip checks of every value it is given.
func checkPairKeys(t *testing.T, a, b any, ak, bk [2][]byte) {
	t.Helper()
	want := sign(document.Compare(a, b))
	for i, desc := range []bool{false, true} {
		ka, kb := ak[i], bk[i]
		got := sign(bytes.Compare(ka, kb))
		if desc {
			got = -got
		}
		if got != want {
			t.Fatalf("desc=%v: keystring order %d, document.Compare %d\n a=%#v\n b=%#v\n ka=%x\n kb=%x", desc, got, want, a, b, ka, kb)
		}
		if want != 0 && (bytes.HasPrefix(ka, kb) || bytes.HasPrefix(kb, ka)) {
			t.Fatalf("prefix-freeness: %x vs %x for %#v, %#v", ka, kb, a, b)
		}
		// Compound keys: (a, b) vs (b, a) must order by the first field.
		ab := append(slices.Clip(ka), bk[1-i]...)
		ba := append(slices.Clip(kb), ak[1-i]...)
		if want != 0 {
			if c := sign(bytes.Compare(ab, ba)); (desc && c != -want) || (!desc && c != want) {
				t.Fatalf("compound order wrong for %#v, %#v", a, b)
			}
		}
	}
}

func checkRoundTrip(t *testing.T, v any) {
	t.Helper()
	for _, desc := range []bool{false, true} {
		k := AppendKey([]byte("pre"), v, desc)
		k = append(k, "tail"...)
		got, rest, err := DecodeKey(k[3:], desc)
		if err != nil {
			t.Fatalf("DecodeKey(%#v, desc=%v) = %v\n k=%x", v, desc, err, k)
		}
		if string(rest) != "tail" {
			t.Fatalf("DecodeKey(%#v) rest = %q", v, rest)
		}
		if document.Compare(got, v) != 0 {
			t.Fatalf("DecodeKey round trip: %#v -> %#v", v, got)
		}
		if !bytes.Equal(AppendKey(nil, got, desc), k[3:len(k)-4]) {
			t.Fatalf("re-encoding %#v (decoded from %#v) differs", got, v)
		}
		if !bytes.Equal(AppendKey(nil, v, desc), k[3:len(k)-4]) {
			t.Fatalf("%#v encodes differently after a prefix", v)
		}
	}
}

func TestKeystringEdgeNumbers(t *testing.T) {
	t.Parallel()
	// Each number is encoded once (the large decimals cost a big.Int
	// conversion each, and there are 63² pairs); checkRoundTrip checks
	// that a key appended after a prefix is the same bytes.
	keys := make([][2][]byte, len(edgeNumbers))
	for i, a := range edgeNumbers {
		checkRoundTrip(t, a)
		keys[i] = keysOf(a)
	}
	for i, a := range edgeNumbers {
		for j, b := range edgeNumbers {
			checkPairKeys(t, a, b, keys[i], keys[j])
		}
	}
	// Equal numbers of every width encode identically.
	same := [][]any{
		{int32(1), int64(1), 1.0, dec("1.0"), dec("1"), dec("0.01E2")},
		{0.0, math.Copysign(0, -1), int32(0), dec("-0"), dec("0E+100")},
		{math.NaN(), dec("NaN")},
		{int64(1 << 53), float64(1 << 53), dec("9007199254740992")},
		{0.5, dec("0.50")},
	}
	for _, group := range same {
		k0 := AppendKey(nil, group[0], false)
		for _, v := range group[1:] {
			if k := AppendKey(nil, v, false); !bytes.Equal(k, k0) {
				t.Errorf("%#v encodes as %x, %#v as %x", group[0], k0, v, k)
			}
		}
	}
	// Documented exactness: int64 just above 2^53 is distinct from the double.
	if bytes.Equal(AppendKey(nil, int64(1<<53+1), false), AppendKey(nil, float64(1<<53), false)) {
		t.Error("2^53+1 collapsed onto 2^53")
	}
}

func TestKeystringRandomPairs(t *testing.T) {
	t.Parallel()
	r := seedRand(t)
	n := 20000
	switch {
	case os.Getenv("TTLKV_LONG") != "":
		n = 1000000
	case raceOn:
		n = 5000 // one goroutine under the race detector: a quarter
	}
	for i := 0; i < n; i++ {
		a, b := randValue(r, 0), randValue(r, 0)
		if r.IntN(4) == 0 {
			b = a // equal values, often of different numeric width
			if x, ok := a.(float64); ok && x == math.Trunc(x) && math.Abs(x) < 1<<31 {
				b = int32(x)
			}
		}
		checkPair(t, a, b)
		checkRoundTrip(t, a)
	}
}

func TestKeystringGoTypes(t *testing.T) {
	t.Parallel()
	// Non-canonical Go types encode as their canonical form.
	pairs := [][2]any{
		{int(5), int32(5)}, {uint64(1 << 63), dec("9223372036854775808")}, {float32(0.5), 0.5},
		{bson.Null{}, nil}, {time.UnixMilli(1234), bson.DateTime(1234)}, {[]byte{1}, bson.Binary{Data: []byte{1}}},
		{bson.M{"b": 1, "a": "x"}, bson.D{{Key: "a", Value: "x"}, {Key: "b", Value: int32(1)}}},
		{[]any{int8(1)}, bson.A{int32(1)}}, {uint64(math.MaxUint64), dec("18446744073709551615")},
	}
	for _, p := range pairs {
		if a, b := AppendKey(nil, p[0], false), AppendKey(nil, p[1], false); !bytes.Equal(a, b) {
			t.Errorf("%#v -> %x, %#v -> %x", p[0], a, p[1], b)
		}
	}
	type weird struct{}
	for _, v := range []any{weird{}, bson.A{weird{}}, bson.D{{Key: "x", Value: make(chan int)}}} {
		if err := CheckKeyValue(v); !errors.Is(err, ErrUnsupportedKeyValue) {
			t.Errorf("CheckKeyValue(%#v) = %v", v, err)
		}
		if _, err := AppendKeyChecked(nil, v, false); err == nil {
			t.Errorf("AppendKeyChecked(%#v) accepted it", v)
		}
		if _, _, err := DecodeKey(AppendKey(nil, v, false), false); !errors.Is(err, ErrBadKeystring) {
			t.Errorf("DecodeKey of an unsupported value's key = %v", err)
		}
	}
	deep := any(int32(1))
	for i := 0; i < maxKeyDepth+5; i++ {
		deep = bson.A{deep}
	}
	if err := CheckKeyValue(deep); !errors.Is(err, ErrUnsupportedKeyValue) {
		t.Errorf("CheckKeyValue(too deep) = %v", err)
	}
}

func TestTypeBoundBrackets(t *testing.T) {
	t.Parallel()
	r := seedRand(t)
	var vals []any
	n := 3000
	if raceOn {
		n = 1000 // one goroutine under the race detector: a third
	}
	for i := 0; i < n; i++ {
		vals = append(vals, randValue(r, 0))
	}
	vals = append(vals, edgeNumbers...)
	classes := []any{bson.MinKey{}, nil, 1.0, "s", bson.D{}, bson.A{}, bson.Binary{}, bson.ObjectID{}, true,
		bson.DateTime(0), bson.Timestamp{}, bson.Regex{}, bson.DBPointer{}, bson.JavaScript(""),
		bson.CodeWithScope{}, bson.MaxKey{}, bson.Undefined{}}
	for _, like := range classes {
		for _, desc := range []bool{false, true} {
			lo := AppendTypeBound(nil, like, false, desc)
			hi := AppendTypeBound(nil, like, true, desc)
			for _, v := range vals {
				k := AppendKey(nil, v, desc)
				in := bytes.Compare(k, lo) >= 0 && bytes.Compare(k, hi) < 0
				if same := document.CanonicalType(v) == document.CanonicalType(like); in != same {
					t.Fatalf("class of %#v, desc=%v: %#v in [lo,hi) = %v, same class = %v", like, desc, v, in, same)
				}
			}
		}
	}
	if bytes.Compare(AppendMinKey(nil), AppendKey(nil, bson.MinKey{}, false)) > 0 ||
		bytes.Compare(AppendMaxKey(nil), AppendKey(nil, bson.MaxKey{}, false)) <= 0 {
		t.Error("AppendMinKey/AppendMaxKey do not bracket MinKey/MaxKey")
	}
}

func TestDecodeKeyMalformed(t *testing.T) {
	t.Parallel()
	good := AppendKey(nil, bson.D{{Key: "a", Value: bson.A{"x", 1.5, dec("0.1")}}}, false)
	for i := 0; i < len(good); i++ {
		if _, _, err := DecodeKey(good[:i], false); !errors.Is(err, ErrBadKeystring) {
			t.Fatalf("truncated at %d: %v", i, err)
		}
	}
	for _, b := range [][]byte{{0x00}, {classString, 'a', 0, 7}, {classBool, 2}, {classNumber, 0, 0, 0, 0, 0, 0, 0, 0, 9},
		{classNumber, 0x80, 0, 0, 0, 0, 0, 0, 0, numAbove, 0x80, 0, 0xff, 0}, {classNumber, 0x80, 0, 0, 0, 0, 0, 0, 0, numAbove, 0x80, 0, 0}} {
		if _, _, err := DecodeKey(b, false); !errors.Is(err, ErrBadKeystring) {
			t.Errorf("DecodeKey(%x) = %v, want ErrBadKeystring", b, err)
		}
	}
}

// FuzzKeystring decodes arbitrary bytes (never panicking) and, when they
// decode, checks that the value re-encodes to a key that decodes to an
// equal value and that ordering against a second decoded value matches
// document.Compare.
func FuzzKeystring(f *testing.F) {
	for _, v := range append([]any{"a", bson.D{{Key: "k", Value: bson.A{int32(1), nil}}}, bson.DateTime(5)}, edgeNumbers...) {
		f.Add(AppendKey(nil, v, false), AppendKey(nil, int64(7), false), false)
	}
	f.Fuzz(func(t *testing.T, a, b []byte, desc bool) {
		va, _, errA := DecodeKey(a, desc)
		vb, _, errB := DecodeKey(b, desc)
		if errA != nil || errB != nil {
			return
		}
		checkRoundTrip(t, va)
		checkPair(t, va, vb)
	})
}

func BenchmarkAppendKey(b *testing.B) {
	for _, v := range []any{int32(42), 3.25, "hello world", bson.DateTime(1700000000000), dec("0.1"), int64(1<<60 + 1)} {
		b.Run(fmt.Sprintf("%T", v), func(b *testing.B) {
			buf := make([]byte, 0, 64)
			for i := 0; i < b.N; i++ {
				buf = AppendKey(buf[:0], v, false)
			}
		})
	}
}

// KeyExact is true exactly for the classes whose keys decode to the
// very value they were made from, in either direction.
func TestKeyExact(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v     any
		exact bool
	}{
		{bson.MinKey{}, true}, {bson.MaxKey{}, true}, {bson.Undefined{}, true},
		{bson.Binary{Subtype: 4, Data: []byte{1}}, true}, {bson.ObjectID{1}, true}, {true, true},
		{bson.DateTime(1700000000000), true}, {bson.Timestamp{T: 1, I: 2}, true},
		{bson.Regex{Pattern: "a", Options: "i"}, true}, {bson.DBPointer{DB: "d.c", Pointer: bson.ObjectID{2}}, true},
		{bson.JavaScript("f"), true},
		{int32(1), false}, {int64(1), false}, {1.0, false}, {nil, false}, {"s", false}, {bson.Symbol("s"), false},
		{bson.D{{Key: "a", Value: int32(1)}}, false}, {bson.A{int32(1)}, false},
		{bson.CodeWithScope{Code: "g", Scope: bson.D{}}, false},
	} {
		for _, desc := range []bool{false, true} {
			if got := KeyExact(AppendKey(nil, c.v, desc), desc); got != c.exact {
				t.Errorf("KeyExact(%T %v, descending %v) = %v, want %v", c.v, c.v, desc, got, c.exact)
			}
		}
	}
	if KeyExact(nil, false) {
		t.Errorf("KeyExact(empty) = true")
	}
}
