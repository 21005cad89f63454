package indexkey

import (
	"testing"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// WildcardCovers says which query paths a wildcard index can answer.
func TestWildcardCovers(t *testing.T) {
	t.Parallel()
	all := &catalog.Index{Key: bson.D{{Key: "$**", Value: int32(1)}}}
	sub := &catalog.Index{Key: bson.D{{Key: "a.b.$**", Value: int32(1)}}}
	incl := &catalog.Index{Key: all.Key, Extra: bson.D{{Key: WildcardProjection, Value: bson.D{{Key: "a.b", Value: int32(1)}, {Key: "c", Value: true}}}}}
	excl := &catalog.Index{Key: all.Key, Extra: bson.D{{Key: WildcardProjection, Value: bson.D{{Key: "a", Value: bson.D{{Key: "b", Value: int32(0)}}}, {Key: "_id", Value: int32(1)}}}}}
	cases := []struct {
		ix   *catalog.Index
		path string
		want bool
	}{
		{all, "x", true}, {all, "x.y.z", true}, {all, "_id", false}, {all, "_id.x", false},
		{sub, "a.b", true}, {sub, "a.b.c", true}, {sub, "a", false}, {sub, "a.bc", false}, {sub, "x", false},
		{incl, "a.b", true}, {incl, "a.b.z", true}, {incl, "a", false}, {incl, "a.c", false}, {incl, "c", true}, {incl, "d", false}, {incl, "_id", false},
		{excl, "a.b", false}, {excl, "a.b.z", false}, {excl, "a", true}, {excl, "a.c", true}, {excl, "z", true}, {excl, "_id", true},
	}
	for _, c := range cases {
		if got := WildcardCovers(c.ix, c.path); got != c.want {
			t.Errorf("%v %v covers %q: %v, want %v", c.ix.Key, c.ix.Extra, c.path, got, c.want)
		}
	}
}

// Keys of a document under projections, against the rules mongod's key
// generator follows.
func TestWildcardKeysShapes(t *testing.T) {
	t.Parallel()
	all := &catalog.Index{Key: bson.D{{Key: "$**", Value: int32(1)}}}
	d := bson.D{
		{Key: "_id", Value: int32(1)},
		{Key: "a", Value: bson.A{int32(1), bson.A{int32(2)}, bson.D{{Key: "b", Value: int32(3)}}}},
		{Key: "e", Value: bson.A{}},
		{Key: "o", Value: bson.D{}},
		{Key: "x.y", Value: int32(9)},
	}
	keys, multi, err := Of(all, d)
	if err != nil || !multi {
		t.Fatalf("Of: %v, multikey %v", err, multi)
	}
	// a 1, a [2], a.b 3, e undefined, o {}; _id and the dotted name left out.
	if len(keys) != 5 {
		t.Fatalf("%d keys, want 5", len(keys))
	}
	flat := bson.D{{Key: "a", Value: int32(1)}}
	keys, multi, err = Of(all, flat)
	if err != nil || multi || len(keys) != 1 {
		t.Fatalf("flat document: %d keys, multikey %v, %v", len(keys), multi, err)
	}
}
