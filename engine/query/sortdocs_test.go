package query

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestSortDocsIsStableCompare checks SortDocs, which finds each
// document's sort values once, against a stable sort by Compare: the
// same order on documents with repeated keys, arrays, missing fields
// and mixed types, ascending and descending.
func TestSortDocsIsStableCompare(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	vals := []any{int32(1), int64(1), 2.5, "a", "B", nil, bson.A{int32(3), int32(0)}, bson.A{}, bson.D{{Key: "x", Value: int32(1)}}, true}
	for _, spec := range []bson.D{
		{{Key: "a", Value: int32(1)}},
		{{Key: "a", Value: int32(-1)}, {Key: "b.c", Value: int32(1)}},
		{{Key: "b.c", Value: int32(-1)}},
	} {
		s, err := ParseSort(spec)
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			var docs []bson.D
			for i := range 200 {
				d := bson.D{{Key: "i", Value: int32(i)}}
				if r.IntN(5) > 0 {
					d = append(d, bson.E{Key: "a", Value: vals[r.IntN(len(vals))]})
				}
				if r.IntN(3) > 0 {
					d = append(d, bson.E{Key: "b", Value: bson.D{{Key: "c", Value: vals[r.IntN(len(vals))]}}})
				}
				docs = append(docs, d)
			}
			want := slices.Clone(docs)
			slices.SortStableFunc(want, s.Compare)
			s.SortDocs(docs)
			if !reflect.DeepEqual(docs, want) {
				t.Fatalf("%v: SortDocs differs from a stable sort by Compare", spec)
			}
		}
	}
}
