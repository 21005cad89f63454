package query

import (
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestProjection(t *testing.T) {
	t.Parallel()
	const d = `{"_id": 1, "a": 1, "b": {"c": 2, "d": 3}, "e": [{"c": 1, "d": 2}, {"d": 3}, 5, [{"c": 4}]], "f": [1, 2, 3, 4, 5]}`
	cases := []struct{ proj, doc, want string }{
		{`{}`, d, d},
		{`{"a": 1}`, d, `{"_id": 1, "a": 1}`},
		{`{"a": true}`, d, `{"_id": 1, "a": 1}`},
		{`{"a": 1, "_id": 0}`, d, `{"a": 1}`},
		{`{"_id": 0, "a": 1}`, d, `{"a": 1}`},
		{`{"_id": 1}`, d, `{"_id": 1}`},
		{`{"_id": 0}`, `{"_id": 1, "a": 1}`, `{"a": 1}`},
		{`{"b": 1, "a": 1}`, d, `{"_id": 1, "a": 1, "b": {"c": 2, "d": 3}}`},
		{`{"missing": 1}`, d, `{"_id": 1}`},
		{`{"b.c": 1}`, d, `{"_id": 1, "b": {"c": 2}}`},
		{`{"b": {"c": 1}}`, d, `{"_id": 1, "b": {"c": 2}}`},
		{`{"b.x": 1}`, d, `{"_id": 1, "b": {}}`},
		{`{"a.x": 1}`, d, `{"_id": 1}`},
		{`{"e.c": 1}`, d, `{"_id": 1, "e": [{"c": 1}, {}, [{"c": 4}]]}`},
		{`{"a": 0}`, d, `{"_id": 1, "b": {"c": 2, "d": 3}, "e": [{"c": 1, "d": 2}, {"d": 3}, 5, [{"c": 4}]], "f": [1, 2, 3, 4, 5]}`},
		{`{"b.c": 0, "e": 0, "f": 0}`, d, `{"_id": 1, "a": 1, "b": {"d": 3}}`},
		{`{"e.c": 0, "b": 0, "f": 0, "_id": 0}`, d, `{"a": 1, "e": [{"d": 2}, {"d": 3}, 5, [{}]]}`},
		{`{"f": {"$slice": 2}}`, `{"_id": 1, "a": 1, "f": [1, 2, 3]}`, `{"_id": 1, "a": 1, "f": [1, 2]}`},
		{`{"f": {"$slice": -2}}`, `{"_id": 1, "f": [1, 2, 3]}`, `{"_id": 1, "f": [2, 3]}`},
		{`{"f": {"$slice": [1, 2]}}`, `{"_id": 1, "f": [1, 2, 3, 4]}`, `{"_id": 1, "f": [2, 3]}`},
		{`{"f": {"$slice": [-3, 2]}}`, `{"_id": 1, "f": [1, 2, 3, 4]}`, `{"_id": 1, "f": [2, 3]}`},
		{`{"f": {"$slice": [9, 2]}}`, `{"_id": 1, "f": [1, 2]}`, `{"_id": 1, "f": []}`},
		{`{"f": {"$slice": 2}}`, `{"_id": 1, "f": "x"}`, `{"_id": 1, "f": "x"}`},
		{`{"a": 1, "f": {"$slice": 1}}`, d, `{"_id": 1, "a": 1, "f": [1]}`},
		{`{"a": 0, "f": {"$slice": 1}}`, `{"_id": 1, "a": 1, "b": 2, "f": [1, 2]}`, `{"_id": 1, "b": 2, "f": [1]}`},
		{`{"e": {"$elemMatch": {"d": {"$gt": 2}}}}`, d, `{"_id": 1, "e": [{"d": 3}]}`},
		{`{"e": {"$elemMatch": {"d": 99}}}`, d, `{"_id": 1}`},
		{`{"a": {"$elemMatch": {"d": 1}}}`, d, `{"_id": 1}`},
		{`{"e": {"$elemMatch": {"c": 1}}, "a": 1}`, d, `{"_id": 1, "a": 1, "e": [{"c": 1, "d": 2}]}`},
	}
	for _, c := range cases {
		p, err := ParseProjection(D(t, c.proj))
		if err != nil {
			t.Errorf("ParseProjection(%s): %v", c.proj, err)
			continue
		}
		in := D(t, c.doc)
		before := js(in)
		got := p.Apply(in)
		if js(got) != js(D(t, c.want)) {
			t.Errorf("projection %s on %s:\n got %s\nwant %s", c.proj, c.doc, js(got), js(D(t, c.want)))
		}
		if js(in) != before {
			t.Errorf("projection %s mutated its input", c.proj)
		}
	}
}

func TestProjectionErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		proj string
		code int
	}{
		{`{"a": 1, "b": 0}`, 31254},
		{`{"a": 0, "b": 1}`, 31253},
		{`{"a": 0, "e": {"$elemMatch": {"c": 1}}}`, 0},
		{`{"a": 1, "a.b": 1}`, 31249},
		{`{"a.b": 1, "a": 1}`, 31250},
		{`{"a.$": 1, "b.$": 1}`, 31276},
		{`{"a": 0, "b.$": 1}`, 31253},
		{`{"b.$": 0}`, 31395},
		{`{"b.$": {"$slice": 1}}`, 31271},
		{`{"b.$": "x"}`, 31308},
		{`{"b.$.c": 1}`, 31394},
		{`{"$": 1}`, 2},
		{`{"a": {"$meta": "sortKey"}}`, 2},
		{`{"a": {"$meta": "nope"}}`, 17308},
		{`{"a": {"$meta": 1}}`, 17307},
		{`{"a.$": {"$meta": "textScore"}}`, 2},
		{`{"a": "x"}`, 2},
		{`{"a": {"$slice": "x"}}`, 28667},
		{`{"a": {"$slice": [1]}}`, 28667},
		{`{"a": {"$slice": [1, 0]}}`, 2},
		{`{"a.b": {"$elemMatch": {"c": 1}}}`, 31275},
		{`{"a": {"$elemMatch": 1}}`, 31274},
		{`{"a": {}}`, 2},
		{`{"$a": 1}`, 2},
	}
	for _, c := range cases {
		_, err := ParseProjection(D(t, c.proj))
		if got := codeOf(err); got != c.code {
			t.Errorf("ParseProjection(%s): code %d (%v), want %d", c.proj, got, err, c.code)
		}
	}
	p, _ := ParseProjection(D(t, `{"a": 1, "_id": 0}`))
	if !p.IsInclusion() {
		t.Errorf("IsInclusion false for an inclusion")
	}
	p, _ = ParseProjection(D(t, `{"a": 0, "_id": 1}`))
	if p.IsInclusion() {
		t.Errorf("IsInclusion true for an exclusion")
	}
}

func TestSort(t *testing.T) {
	t.Parallel()
	docs := []string{
		`{"_id": 0, "a": 3}`,
		`{"_id": 1, "a": "x"}`,
		`{"_id": 2}`,
		`{"_id": 3, "a": null}`,
		`{"_id": 4, "a": [1, 5]}`,
		`{"_id": 5, "a": []}`,
		`{"_id": 6, "a": 2.5}`,
		`{"_id": 7, "a": {"b": 1}}`,
		`{"_id": 8, "a": [4, 0.5]}`,
	}
	cases := []struct {
		sort string
		want []int32
	}{
		// ascending: [] < null == missing < numbers by min element < string < object
		{`{"a": 1}`, []int32{5, 2, 3, 8, 4, 6, 0, 1, 7}},
		// descending: by max element
		{`{"a": -1}`, []int32{7, 1, 4, 8, 0, 6, 2, 3, 5}},
		{`{"a": 1.0, "_id": -1}`, []int32{5, 3, 2, 8, 4, 6, 0, 1, 7}},
		{`{"a": {"$numberLong": "1"}}`, []int32{5, 2, 3, 8, 4, 6, 0, 1, 7}},
	}
	for _, c := range cases {
		s, err := ParseSort(D(t, c.sort))
		if err != nil {
			t.Fatalf("ParseSort(%s): %v", c.sort, err)
		}
		var ds []bson.D
		for _, x := range docs {
			ds = append(ds, D(t, x))
		}
		slices.SortStableFunc(ds, s.Compare)
		var got []int32
		for _, x := range ds {
			got = append(got, x[0].Value.(int32))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("sort %s: got %v, want %v", c.sort, got, c.want)
		}
	}
	// dotted paths through arrays take the min/max over all reached values
	s, _ := ParseSort(D(t, `{"a.b": 1}`))
	x, y := D(t, `{"a": [{"b": 5}, {"b": 1}]}`), D(t, `{"a": {"b": 2}}`)
	if s.Compare(x, y) >= 0 {
		t.Errorf("a.b ascending: min of [5,1] should sort before 2")
	}
	s, _ = ParseSort(D(t, `{"a.b": -1}`))
	if s.Compare(x, y) >= 0 {
		t.Errorf("a.b descending: max of [5,1] should sort before 2")
	}
}

func TestParseSort(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sort string
		code int
		dir  int
		keys int
	}{
		{`{}`, 0, 0, 0},
		{`{"a": 1, "b": -1}`, 0, 0, 2},
		{`{"$natural": 1}`, 0, 1, 0},
		{`{"$natural": -1}`, 0, -1, 0},
		{`{"$natural": 2}`, 2, 0, 0},
		{`{"$natural": 1, "a": 1}`, 2, 0, 0},
		{`{"a": 1, "$natural": 1}`, 2, 0, 0},
		{`{"a": 0}`, 15975, 0, 0},
		{`{"a": 2}`, 15975, 0, 0},
		{`{"a": "asc"}`, 15974, 0, 0},
		{`{"a": true}`, 15974, 0, 0},
		{`{"a": {"$numberDecimal": "1"}}`, 0, 0, 1},
		{`{"a": {"$meta": "textScore"}}`, 0, 0, 1},
		// mongod's sort pattern: textScore, randVal and geoNearDistance
		// only (31138 else), one field (9), $meta alone (17312).
		{`{"a": {"$meta": "recordId"}}`, 31138, 0, 0},
		{`{"a": {"$meta": "unknown"}}`, 31138, 0, 0},
		{`{"a": {"$meta": 1}}`, 31138, 0, 0},
		{`{"a": {"$meta": "searchScore"}}`, 31218, 0, 0},
		{`{"a": {"$meta": "searchHighlights"}}`, 31219, 0, 0},
		{`{"a": {"$meta": "textScore", "extra": 1}}`, 9, 0, 0},
		{`{"a": {"$notMeta": "textScore"}}`, 17312, 0, 0},
		{`{"a": {}}`, 17312, 0, 0},
		{`{"a": {"$meta": "textScore"}, "b": {"$meta": "textScore"}}`, 2, 0, 0},
		{`{"a..b": 1}`, 2, 0, 0},
		{`{"$a": 1}`, 2, 0, 0},
	} {
		s, err := ParseSort(D(t, c.sort))
		if codeOf(err) != c.code {
			t.Errorf("ParseSort(%s): %v, want code %d", c.sort, err, c.code)
			continue
		}
		if err != nil {
			continue
		}
		dir, ok := s.NaturalOrder()
		if dir != c.dir || ok != (c.dir != 0) || len(s.Keys()) != c.keys {
			t.Errorf("ParseSort(%s): natural %d %v keys %v", c.sort, dir, ok, s.Keys())
		}
	}
	s, _ := ParseSort(D(t, `{"a.b": -1, "c": 1}`))
	if k := s.Keys(); k[0] != (SortKey{"a.b", true}) || k[1] != (SortKey{"c", false}) {
		t.Errorf("Keys = %v", k)
	}
}
