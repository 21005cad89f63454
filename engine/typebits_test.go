package engine

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Every value a document can hold comes back exactly from its index
// key and the entry value (type bits, or none when the key loses
// nothing), in ascending and descending fields, compound and dotted:
// random values, nested documents and arrays included. The seed is
// printed so that a failure replays.
func TestTypeBitsRoundTrip(t *testing.T) {
	t.Parallel()
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(uint64(seed), 1))
	dec := func(s string) bson.Decimal128 { d, _ := bson.ParseDecimal128(s); return d }
	var value func(depth int) any
	value = func(depth int) any {
		switch r.IntN(22) {
		case 0:
			return int32(r.Int32() >> r.IntN(31))
		case 1:
			return r.Int64() >> r.IntN(63)
		case 2:
			return -r.Int64() >> r.IntN(63)
		case 3:
			return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		case 4:
			return []float64{math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff8000000000001), math.MaxFloat64, 5e-324}[r.IntN(8)]
		case 5:
			return dec([]string{"1", "1.0", "1.00", "-0", "0E+3", "NaN", "-Inf", "Inf", "1E-6176", "9.999999999999999999999999999999999E+6144", "123456789012345678901234567890.1234", "-2.50"}[r.IntN(12)])
		case 6:
			return nil
		case 7:
			return "s" + strconv.Itoa(r.IntN(3))
		case 8:
			if r.IntN(2) == 0 {
				return bson.Symbol("p")
			}
			return "a\x00b"
		case 9:
			return bson.DateTime(r.Int64() >> 20)
		case 10:
			return bson.ObjectID{byte(r.IntN(256)), 1}
		case 11:
			return r.IntN(2) == 0
		case 12:
			return bson.Undefined{}
		case 13:
			return bson.Binary{Subtype: byte(r.IntN(6)), Data: []byte{byte(r.IntN(256))}}
		case 14:
			return bson.Timestamp{T: r.Uint32(), I: r.Uint32()}
		case 15:
			return bson.Regex{Pattern: "p", Options: "i"}
		case 16:
			return []any{bson.MinKey{}, bson.MaxKey{}}[r.IntN(2)]
		case 17:
			return bson.JavaScript("f()")
		case 18:
			return bson.DBPointer{DB: "db.c", Pointer: bson.ObjectID{2}}
		case 19, 20:
			if depth < 3 {
				d := bson.D{}
				for i := range r.IntN(4) {
					d = append(d, bson.E{Key: "k" + strconv.Itoa(i), Value: value(depth + 1)})
				}
				if r.IntN(4) == 0 {
					a := bson.A{}
					for range r.IntN(3) {
						a = append(a, value(depth+1))
					}
					d = append(d, bson.E{Key: "arr", Value: a})
				}
				return d
			}
			return int32(1)
		default:
			if depth < 3 {
				return bson.CodeWithScope{Code: "g", Scope: bson.D{{Key: "n", Value: value(depth + 1)}}}
			}
			return 2.5
		}
	}
	m := &catalog.Coll{Kind: catalog.KindNormal}
	for _, key := range []bson.D{
		{{Key: "a", Value: int32(1)}},
		{{Key: "a", Value: int32(-1)}},
		{{Key: "a", Value: int32(1)}, {Key: "b", Value: int32(-1)}},
		{{Key: "x.y", Value: int32(1)}, {Key: "b", Value: 1.0}},
	} {
		ix := &catalog.Index{Key: key}
		ix.TypeBits = typedIndex(m, ix)
		if !ix.TypeBits {
			t.Fatalf("%v: not typed", key)
		}
		fields := indexkey.Fields(key)
		for i := 0; i < 400; i++ {
			d := bson.D{{Key: "_id", Value: int32(i)}}
			if r.IntN(8) > 0 {
				d = append(d, bson.E{Key: "a", Value: value(0)})
			}
			if r.IntN(8) > 0 {
				d = append(d, bson.E{Key: "b", Value: value(0)})
			}
			if r.IntN(8) > 0 {
				x := value(1)
				if r.IntN(2) == 0 {
					x = bson.D{{Key: "y", Value: value(1)}}
				}
				d = append(d, bson.E{Key: "x", Value: x})
			}
			keys, multikey, err := indexkey.Of(ix, d)
			if err != nil || multikey || len(keys) != 1 {
				continue // arrays: never covered
			}
			val := typeBitsOf(ix, d)
			if len(keys) == 1 && !mayNeedTypeBits(ix, keys[0]) && val != nil {
				t.Fatalf("%v %v: type bits %x for a key that cannot need them", key, d, val)
			}
			got, ok := coveredDoc(fields, keys[0], val)
			want := expectedKeyDoc(d, fields)
			if hasSymbol(want) {
				if ok {
					t.Errorf("%v %v: a Symbol given back", key, d)
				}
				continue
			}
			if !ok {
				t.Fatalf("%v %v: no document from key %x and value %x", key, d, keys[0], val)
			}
			if g, w := exactString(got), exactString(want); g != w {
				t.Fatalf("%v: key %x value %x\n got %s\nwant %s", key, keys[0], val, g, w)
			}
		}
	}
}

// expectedKeyDoc is the document of d's values at fields, in their
// order, dotted fields as documents, missing fields left out.
func expectedKeyDoc(d bson.D, fields []indexkey.Field) bson.D {
	out := bson.D{}
	for _, f := range fields {
		if v, found, _ := indexkey.ScalarAt(d, f.Path); found {
			out = setKeyPath(out, f.Path, v)
		}
	}
	return out
}

func hasSymbol(v any) bool {
	switch x := v.(type) {
	case bson.Symbol:
		return true
	case bson.CodeWithScope:
		return hasSymbol(x.Scope)
	case bson.D:
		for _, e := range x {
			if hasSymbol(e.Value) {
				return true
			}
		}
	case bson.A:
		for _, e := range x {
			if hasSymbol(e) {
				return true
			}
		}
	}
	return false
}

// exactString prints v with each value's Go type and, for doubles and
// decimals, its exact bits.
func exactString(v any) string {
	var b bytes.Buffer
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case bson.D:
			b.WriteString("{")
			for _, e := range x {
				fmt.Fprintf(&b, "%q:", e.Key)
				walk(e.Value)
				b.WriteString(",")
			}
			b.WriteString("}")
		case bson.A:
			b.WriteString("[")
			for _, e := range x {
				walk(e)
				b.WriteString(",")
			}
			b.WriteString("]")
		case float64:
			fmt.Fprintf(&b, "double(%016x)", math.Float64bits(x))
		case bson.Decimal128:
			h, l := x.GetBytes()
			fmt.Fprintf(&b, "decimal(%016x%016x)", h, l)
		case bson.CodeWithScope:
			fmt.Fprintf(&b, "cws(%q,", x.Code)
			walk(x.Scope)
			b.WriteString(")")
		default:
			fmt.Fprintf(&b, "%T(%v)", v, v)
		}
	}
	walk(v)
	return b.String()
}
