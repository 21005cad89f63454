package agg

import (
	"context"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestGraphLookupQueries checks the finds $graphLookup sends, level by
// level (null kept apart from undefined and missing, the restriction
// first), and its bounds: a found document without _id (40271), the
// memory it holds (40099), and no reader (40324).
func TestGraphLookupQueries(t *testing.T) {
	t.Parallel()
	var sent []string
	graph := map[int32][]int32{1: {2, 3}, 2: {3}, 3: {1}}
	o := Options{Lookup: func(_ context.Context, from string, filter bson.D, fn func(bson.D) error) error {
		sent = append(sent, from+" "+document.Format(filter))
		var vals bson.A
		for _, c := range filter[0].Value.(bson.A) {
			if op, ok := c.(bson.D)[0].Value.(bson.D); ok && op[0].Key == "$in" {
				vals = op[0].Value.(bson.A)
			}
		}
		for _, v := range vals {
			if n, ok := v.(int32); ok && graph[n] != nil {
				to := bson.A{}
				for _, x := range graph[n] {
					to = append(to, x)
				}
				if err := fn(bson.D{{Key: "_id", Value: n}, {Key: "to", Value: to}}); err != nil {
					return err
				}
			}
		}
		return nil
	}}
	out, err := run(t, `[{"_id": "x", "s": 1}]`, `[{"$graphLookup": {"from": "g", "startWith": "$s", "connectFromField": "to", "connectToField": "_id", "as": "r", "restrictSearchWithMatch": {"k": 1}}},
		{"$project": {"ids": "$r._id"}}]`, o)
	if err != nil || !same(out, val(t, `[{"_id": "x", "ids": [1, 2, 3]}]`)) {
		t.Fatalf("search: %v, %v", out, err)
	}
	want := []string{
		`g { $and: [ { k: 1 }, { _id: { $in: [ 1 ] } } ] }`,
		`g { $and: [ { k: 1 }, { _id: { $in: [ 2, 3 ] } } ] }`,
		`g { $and: [ { k: 1 }, { _id: { $in: [ 3, 1 ] } } ] }`,
	}
	if strings.Join(sent, "\n") != strings.Join(want, "\n") {
		t.Fatalf("finds:\n%s\nwant\n%s", strings.Join(sent, "\n"), strings.Join(want, "\n"))
	}

	sent = nil
	if _, err := run(t, `[{"s": [null, 5]}, {"s": {"$undefined": true}}]`, `[{"$graphLookup": {"from": "g", "startWith": "$s", "connectFromField": "to", "connectToField": "c", "as": "r"}}]`, o); err != nil {
		t.Fatal(err)
	}
	want = []string{
		`g { $and: [ { c: { $in: [ null, 5 ] } }, { c: { $exists: true } }, { c: { $not: { $type: "undefined" } } } ] }`,
		`g { $and: [ { c: { $in: [ undefined ] } }, { c: { $exists: true } }, { c: { $not: { $type: "null" } } } ] }`,
	}
	if strings.Join(sent, "\n") != strings.Join(want, "\n") {
		t.Fatalf("null and undefined:\n%s\nwant\n%s", strings.Join(sent, "\n"), strings.Join(want, "\n"))
	}

	noID := Options{Lookup: func(_ context.Context, _ string, _ bson.D, fn func(bson.D) error) error {
		return fn(bson.D{{Key: "a", Value: 1}})
	}}
	spec := `[{"$graphLookup": {"from": "g", "startWith": 1, "connectFromField": "to", "connectToField": "_id", "as": "r"}}]`
	if _, err := run(t, `[{}]`, spec, noID); codeOf(err) != 40271 {
		t.Errorf("a found document without _id: %v, want 40271", err)
	}
	big := Options{MaxMemoryBytes: 1 << 10, Lookup: func(_ context.Context, _ string, _ bson.D, fn func(bson.D) error) error {
		for i := range 100 {
			if err := fn(bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: strings.Repeat("x", 100)}}); err != nil {
				return err
			}
		}
		return nil
	}}
	if _, err := run(t, `[{}]`, spec, big); codeOf(err) != 40099 {
		t.Errorf("over the memory limit: %v, want 40099", err)
	}
	if _, err := run(t, `[{}]`, spec, Options{}); codeOf(err) != 40324 {
		t.Errorf("no reader: %v, want 40324", err)
	}
}
