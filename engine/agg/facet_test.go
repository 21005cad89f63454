package agg

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestFacet checks $facet: each pipeline sees every input document, the
// one output holds each pipeline's results under its name in the order
// given (an empty pipeline passes the documents as they are, a pipeline
// with no results gives []), and the pagination pattern works.
func TestFacet(t *testing.T) {
	t.Parallel()
	docs := `[{"_id": 1, "g": "a", "v": 5}, {"_id": 2, "g": "b", "v": 7}, {"_id": 3, "g": "a", "v": 1}]`
	got, err := run(t, docs, `[{"$sort": {"_id": 1}}, {"$facet": {
		"total": [{"$count": "n"}],
		"page": [{"$skip": 1}, {"$limit": 1}, {"$project": {"v": 1}}],
		"byG": [{"$group": {"_id": "$g", "sum": {"$sum": "$v"}}}, {"$sort": {"_id": 1}}],
		"none": [{"$match": {"v": {"$gt": 100}}}],
		"all": []}}]`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := val(t, `[{"total": [{"n": 3}], "page": [{"_id": 2, "v": 7}], "byG": [{"_id": "a", "sum": 6}, {"_id": "b", "sum": 7}], "none": [],
		"all": [{"_id": 1, "g": "a", "v": 5}, {"_id": 2, "g": "b", "v": 7}, {"_id": 3, "g": "a", "v": 1}]}]`)
	if !same(got, want) {
		t.Errorf("$facet = %v", got)
	}
	// No input: one document, every pipeline's results empty (a $count
	// of nothing gives nothing).
	got, err = run(t, `[]`, `[{"$facet": {"total": [{"$count": "n"}], "all": []}}]`, Options{})
	if err != nil || !same(got, val(t, `[{"total": [], "all": []}]`)) {
		t.Errorf("$facet over nothing = %v, %v", got, err)
	}
}

// TestFacetRefusals checks $facet's refusals with mongod's codes, and
// its bounds: the input it holds (292) and the document it builds
// (4031700).
func TestFacetRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		facet string
		code  int
	}{
		{`1`, 40169},
		{`{}`, 40169},
		{`{"a": 1}`, 40170},
		{`{"a": [1]}`, 40171},
		{`{"$a": []}`, 16410},
		{`{"a.b": []}`, 16412},
		{`{"": []}`, 15998},
		{`{"a": [{"$facet": {"b": []}}]}`, 40600},
		{`{"a": [{"$bogus": 1}]}`, 40324},
	}
	for _, c := range cases {
		_, err := run(t, `[{"_id": 1}]`, `[{"$facet": `+c.facet+`}]`, Options{})
		if got := codeOf(err); got != c.code {
			t.Errorf("%s: got %v, want code %d", c.facet, err, c.code)
		}
	}
	if _, err := run(t, `[{"_id": 1, "s": "xxxxxxxxxx"}, {"_id": 2}]`, `[{"$facet": {"a": []}}]`, Options{MaxMemoryBytes: 60}); codeOf(err) != 292 {
		t.Errorf("input over the memory limit: %v, want 292", err)
	}
	big := bson.A{}
	for i := range 12 {
		big = append(big, bson.D{{Key: "_id", Value: i}, {Key: "s", Value: strings.Repeat("x", 9<<20)}})
	}
	p, err := Parse(bson.A{bson.D{{Key: "$facet", Value: bson.D{{Key: "a", Value: bson.A{}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var in []bson.D
	for _, d := range big {
		in = append(in, d.(bson.D))
	}
	if _, err := p.Run(t.Context(), sliceSource(in), Options{MaxMemoryBytes: 1 << 30}); codeOf(err) != 4031700 {
		t.Errorf("108 MiB of output: %v, want 4031700", err)
	}
}
