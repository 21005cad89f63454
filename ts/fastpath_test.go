package ts

import (
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// compare's same-type fast paths order values exactly as document.Compare
// does (min and max of a column must not depend on which path ran).
func TestCompareMatchesDocCompare(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	vals := []any{
		nan, -inf, -1.5, math.Copysign(0, -1), 0.0, 1e-300, 2.0, inf,
		int32(math.MinInt32), int32(-1), int32(0), int32(2), int32(math.MaxInt32),
		int64(math.MinInt64), int64(-1), int64(0), int64(2), int64(1 << 53), int64(math.MaxInt64),
		bson.DateTime(-1), bson.DateTime(0), bson.DateTime(1700000000000),
		"", "a", "ab", "b", "é", "\x00", "Z",
		true, nil, bson.D{{Key: "a", Value: int32(1)}}, bson.A{int32(1)},
		bson.ObjectID{}, bson.ObjectID{0: 1}, bson.ObjectID{11: 1}, bson.ObjectID{0: 0xff},
	}
	for _, a := range vals {
		for _, b := range vals {
			if got, want := sign(compare(a, b)), sign(document.Compare(a, b)); got != want {
				t.Errorf("compare(%#v, %#v) = %d, document.Compare = %d", a, b, got, want)
			}
		}
	}
}

// valueSize's fast paths give the BSON size document.Size gives.
func TestValueSizeMatchesBSON(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		1.5, int64(3), bson.DateTime(5), bson.Timestamp{T: 1, I: 2}, int32(4), true, false, nil, bson.Null{},
		"", "abc", "é", bson.NewObjectID(), bson.D{{Key: "a", Value: "b"}}, bson.A{int32(1)},
	} {
		if got, want := valueSize(v), document.Size(bson.D{{Key: "", Value: v}})-7; got != want {
			t.Errorf("valueSize(%#v) = %d, want %d", v, got, want)
		}
	}
}

// The Bucketer's meta hash groups measurements exactly as SameMeta
// does: random metas from a pool rich in values that are equal
// across types (1, 1.0, 1L, decimal 1, -0.0 and 0) or differ only in
// field order; two measurements share a bucket iff their metas are the
// same BSON value once normalized (all in one span, well under the count
// limit).
func TestBucketerMetaHashMatchesCompare(t *testing.T) {
	t.Parallel()
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	dec1, _ := bson.ParseDecimal128("1.0")
	pool := []any{
		int32(1), int64(1), 1.0, dec1, math.Copysign(0, -1), 0.0, int32(0), math.NaN(), "1", "a", "",
		bson.D{{Key: "x", Value: int32(1)}, {Key: "y", Value: "s"}},
		bson.D{{Key: "x", Value: 1.0}, {Key: "y", Value: "s"}},
		bson.D{{Key: "y", Value: "s"}, {Key: "x", Value: int32(1)}},
		bson.A{int32(1), "s"}, bson.A{1.0, "s"}, bson.A{"s", int32(1)},
		bson.D{{Key: "x", Value: dec1}, {Key: "y", Value: "s"}}, // keystring form, equal to the fast one
		1.5, int64(1<<53 + 1), float64(1 << 53), int64(1 << 53), 1e300, math.Inf(-1), true, false,
		bson.DateTime(5), bson.ObjectID{1}, bson.Symbol("a"),
		bsonNull{}, nil, // nil: no meta field
	}
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	base := bson.DateTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli())
	bk := NewBucketer(o)
	type rec struct {
		meta any
		b    *Bucket
	}
	var recs []rec
	for i := 0; i < 300; i++ {
		v := pool[r.Intn(len(pool))]
		m := bson.D{{Key: "t", Value: base + bson.DateTime(i)}}
		switch v.(type) {
		case nil:
		case bsonNull:
			m = append(m, bson.E{Key: "m", Value: nil})
		default:
			m = append(m, bson.E{Key: "m", Value: v})
		}
		b, _, err := bk.Insert(m)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec{v, b})
	}
	same := func(a, b any) bool {
		_, an := a.(bsonNull)
		_, bn := b.(bsonNull)
		switch {
		case a == nil || b == nil:
			return a == nil && b == nil
		case an || bn:
			return an && bn
		}
		return SameMeta(true, NormalizeMeta(a), true, NormalizeMeta(b))
	}
	for i := range recs {
		for j := 0; j < i; j++ {
			if want := same(recs[i].meta, recs[j].meta); (recs[i].b == recs[j].b) != want {
				t.Fatalf("metas %#v and %#v: shared bucket %v, want %v", recs[i].meta, recs[j].meta, !want, want)
			}
		}
	}
	// Forget empties a group; the meta then opens a new bucket.
	b := recs[0].b
	bk.Forget(b.ID)
	m := bson.D{{Key: "t", Value: base}}
	if _, isNull := recs[0].meta.(bsonNull); isNull {
		m = append(m, bson.E{Key: "m", Value: nil})
	} else if recs[0].meta != nil {
		m = append(m, bson.E{Key: "m", Value: recs[0].meta})
	}
	nb, created, err := bk.Insert(m)
	if err != nil || !created || nb == b {
		t.Fatalf("after Forget: created %v, same %v, err %v", created, nb == b, err)
	}
}
