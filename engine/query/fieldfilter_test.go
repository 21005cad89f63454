package query

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestProjectionFieldFilter checks FieldFilter against Apply: for every
// projection of whole top-level fields, keeping the fields keep names
// gives what Apply gives; other projections are refused.
func TestProjectionFieldFilter(t *testing.T) {
	t.Parallel()
	doc := bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: bson.D{{Key: "x", Value: int32(2)}}},
		{Key: "b", Value: bson.A{int32(3)}}, {Key: "c", Value: "s"}, {Key: "a", Value: int32(4)}}
	for _, p := range []bson.D{
		nil, {},
		{{Key: "_id", Value: int32(1)}},
		{{Key: "_id", Value: int32(0)}},
		{{Key: "a", Value: int32(1)}},
		{{Key: "a", Value: true}, {Key: "_id", Value: false}},
		{{Key: "a", Value: int32(0)}},
		{{Key: "a", Value: int32(0)}, {Key: "_id", Value: int32(0)}},
		{{Key: "a", Value: int32(0)}, {Key: "_id", Value: int32(1)}},
		{{Key: "b", Value: 1.0}, {Key: "c", Value: int64(1)}, {Key: "_id", Value: int32(1)}},
		{{Key: "zz", Value: int32(1)}},
	} {
		pr, err := ParseProjection(p)
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		keep, ok := pr.FieldFilter()
		if !ok {
			t.Fatalf("FieldFilter(%v) refused a projection of whole top-level fields", p)
		}
		got := bson.D{}
		for _, e := range doc {
			if keep == nil || keep([]byte(e.Key)) {
				got = append(got, e)
			}
		}
		if want := pr.Apply(doc); !reflect.DeepEqual(got, want) {
			t.Errorf("projection %v: by field name %v, Apply %v", p, got, want)
		}
	}
	for _, p := range []bson.D{
		{{Key: "a.x", Value: int32(1)}},
		{{Key: "a", Value: bson.D{{Key: "x", Value: int32(1)}}}},
		{{Key: "b", Value: bson.D{{Key: "$slice", Value: int32(1)}}}},
		{{Key: "b", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "c", Value: int32(1)}}}}}},
	} {
		pr, err := ParseProjection(p)
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		if _, ok := pr.FieldFilter(); ok {
			t.Errorf("FieldFilter(%v) accepted a projection that is not of whole top-level fields", p)
		}
	}
}

// TestFilterTopFields checks TopFields: the names a filter reads, and
// that matching documents cut down to them gives Match's result.
func TestFilterTopFields(t *testing.T) {
	t.Parallel()
	docs := []bson.D{
		{{Key: "_id", Value: int32(1)}, {Key: "a", Value: bson.D{{Key: "x", Value: int32(2)}}}, {Key: "b", Value: bson.A{int32(3), bson.D{{Key: "c", Value: int32(4)}}}}},
		{{Key: "_id", Value: int32(2)}, {Key: "a", Value: int32(5)}, {Key: "a", Value: bson.D{{Key: "x", Value: int32(2)}}}},
		{{Key: "b", Value: nil}},
		{},
	}
	for _, tc := range []struct {
		filter bson.D
		names  []string
	}{
		{bson.D{}, nil},
		{bson.D{{Key: "a.x", Value: int32(2)}}, []string{"a"}},
		{bson.D{{Key: "a", Value: int32(5)}, {Key: "b.c", Value: bson.D{{Key: "$exists", Value: false}}}}, []string{"a", "b"}},
		{bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "_id", Value: int32(2)}}, bson.D{{Key: "b", Value: nil}}}}}, []string{"_id", "b"}},
		{bson.D{{Key: "$nor", Value: bson.A{bson.D{{Key: "a", Value: bson.D{{Key: "$not", Value: bson.D{{Key: "$gt", Value: int32(1)}}}}}}}}}, []string{"a"}},
		{bson.D{{Key: "b", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "c", Value: int32(4)}}}}}, {Key: "b", Value: bson.D{{Key: "$size", Value: int32(2)}}}}, []string{"b"}},
		{bson.D{{Key: "z", Value: bson.D{{Key: "$all", Value: bson.A{}}}}}, nil}, // matches nothing, reads nothing
	} {
		f, err := ParseFilter(tc.filter)
		if err != nil {
			t.Fatalf("%v: %v", tc.filter, err)
		}
		names, ok := f.TopFields()
		if !ok || !reflect.DeepEqual(names, tc.names) {
			t.Fatalf("TopFields(%v) = %v, %v; want %v", tc.filter, names, ok, tc.names)
		}
		for _, d := range docs {
			cut := bson.D{}
			for _, e := range d {
				for _, n := range names {
					if e.Key == n {
						cut = append(cut, e)
						break
					}
				}
			}
			if f.Match(cut) != f.Match(d) {
				t.Errorf("filter %v: %v on %v, %v on its fields %v", tc.filter, f.Match(d), d, f.Match(cut), cut)
			}
		}
	}
}
