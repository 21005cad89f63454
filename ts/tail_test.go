package ts

import (
	"math/rand"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// EncodeTail/DecodeTail give back measurements from..Count()-1 exactly
// (fields, field order, types), for random buckets and every split
// point a writer would use, and an empty tail decodes to nothing.
func TestTailRoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(seed(t)))
	metas := []any{"a", int32(1), bson.D{{Key: "x", Value: int32(1)}}, bson.A{"q"}, nil}
	for _, od := range []bson.D{
		{{Key: "timeField", Value: "ts"}, {Key: "metaField", Value: "meta"}},
		{{Key: "timeField", Value: "ts"}},
	} {
		o := mustOptions(t, od)
		bk := NewBucketer(o)
		model := map[*Bucket][]bson.D{}
		base := bson.DateTime(1_700_000_000_000)
		for i := 0; i < 1500; i++ {
			m := randMeasurement(r, o, base, metas)
			b, _, err := bk.Insert(m)
			if err != nil {
				t.Fatal(err)
			}
			model[b] = append(model[b], m)
		}
		for b, want := range model {
			for _, from := range []int{0, 1, b.Count() / 2, b.Count() - 1, b.Count()} {
				if from < 0 {
					continue
				}
				raw, err := b.EncodeTail(from)
				if err != nil {
					t.Fatal(err)
				}
				var meta any
				if b.HasMeta {
					meta = b.Meta
				}
				got, err := DecodeTail(o, raw, meta)
				if err != nil {
					t.Fatalf("from %d of %d: %v", from, b.Count(), err)
				}
				if len(got) != len(want)-from {
					t.Fatalf("from %d of %d: %d rows", from, b.Count(), len(got))
				}
				for i, g := range got {
					w := want[from+i]
					if len(g) != len(w) {
						t.Fatalf("row %d: %v, want %v", from+i, g, w)
					}
					for j := range g {
						if g[j].Key != w[j].Key || document.Compare(g[j].Value, w[j].Value) != 0 || typeNameOf(g[j].Value) != typeNameOf(w[j].Value) {
							if g[j].Key == o.MetaField && g[j].Key == w[j].Key && document.Compare(g[j].Value, w[j].Value) == 0 {
								continue // the bucket's meta, maybe another numeric type
							}
							t.Fatalf("row %d field %d: %v, want %v", from+i, j, g[j], w[j])
						}
					}
				}
			}
		}
	}
}

// DecodeTail refuses malformed encodings with an error, never a panic.
func TestDecodeTailRefuses(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	oNoMeta := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}})
	col := func(name string, rows any, vals ...any) bson.A { return bson.A{name, rows, bson.A(vals)} }
	t0 := bson.DateTime(0)
	cases := []struct {
		name string
		o    Options
		d    bson.D
	}{
		{"no n", o, bson.D{{Key: "c", Value: bson.A{}}}},
		{"no c", o, bson.D{{Key: "n", Value: int32(0)}}},
		{"n negative", o, bson.D{{Key: "n", Value: int32(-1)}, {Key: "c", Value: bson.A{}}}},
		{"n too big", o, bson.D{{Key: "n", Value: int32(MaxBucketCount + 1)}, {Key: "c", Value: bson.A{}}}},
		{"n not int", o, bson.D{{Key: "n", Value: 1.0}, {Key: "c", Value: bson.A{}}}},
		{"dup field", o, bson.D{{Key: "n", Value: int32(0)}, {Key: "n", Value: int32(0)}, {Key: "c", Value: bson.A{}}}},
		{"unknown", o, bson.D{{Key: "n", Value: int32(0)}, {Key: "c", Value: bson.A{}}, {Key: "z", Value: int32(1)}}},
		{"column not array", o, bson.D{{Key: "n", Value: int32(1)}, {Key: "c", Value: bson.A{"x"}}}},
		{"values short", o, bson.D{{Key: "n", Value: int32(2)}, {Key: "c", Value: bson.A{col("t", nil, t0)}}}},
		{"rows mismatch", o, bson.D{{Key: "n", Value: int32(2)}, {Key: "c", Value: bson.A{col("t", bson.A{int32(0)}, t0, t0)}}}},
		{"row beyond n", o, bson.D{{Key: "n", Value: int32(1)}, {Key: "c", Value: bson.A{col("t", bson.A{int32(1)}, t0)}}}},
		{"rows unordered", o, bson.D{{Key: "n", Value: int32(2)}, {Key: "c", Value: bson.A{col("t", bson.A{int32(1), int32(0)}, t0, t0)}}}},
		{"dup column", o, bson.D{{Key: "n", Value: int32(1)}, {Key: "c", Value: bson.A{col("t", nil, t0), col("t", nil, t0)}}}},
		{"meta column", o, bson.D{{Key: "n", Value: int32(1)}, {Key: "c", Value: bson.A{col("m", nil, "a")}}}},
		{"m without metaField", oNoMeta, bson.D{{Key: "n", Value: int32(0)}, {Key: "c", Value: bson.A{}}, {Key: "m", Value: int32(0)}}},
		{"m beyond columns", o, bson.D{{Key: "n", Value: int32(1)}, {Key: "c", Value: bson.A{col("t", nil, t0)}}, {Key: "m", Value: int32(5)}}},
		{"order bad rank", o, bson.D{{Key: "n", Value: int32(1)}, {Key: "c", Value: bson.A{col("t", nil, t0)}}, {Key: "o", Value: bson.A{bson.A{int32(0), bson.A{int32(3)}}}}}},
		{"order wrong length", o, bson.D{{Key: "n", Value: int32(1)}, {Key: "c", Value: bson.A{col("t", nil, t0)}}, {Key: "o", Value: bson.A{bson.A{int32(0), bson.A{}}}}}},
		{"order row beyond n", o, bson.D{{Key: "n", Value: int32(1)}, {Key: "c", Value: bson.A{col("t", nil, t0)}}, {Key: "o", Value: bson.A{bson.A{int32(1), bson.A{int32(0)}}}}}},
	}
	for _, c := range cases {
		raw, err := document.Marshal(c.d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeTail(c.o, raw, "a"); err == nil {
			t.Errorf("%s: decoded", c.name)
		} else if e, ok := err.(*document.Error); !ok || e.Code != document.CodeInternalError {
			t.Errorf("%s: %v, want InternalError", c.name, err)
		}
	}
	if _, err := DecodeTail(o, []byte{0xc1}, nil); err == nil {
		t.Error("garbage decoded")
	}
}
