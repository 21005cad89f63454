package agg

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

const nDocs = `[
	{"_id": 1, "g": "a", "v": 3, "s": 10, "m": {"x": 1, "y": 1}},
	{"_id": 2, "g": "a", "v": 1, "s": 30, "m": {"z": 2, "x": 3}},
	{"_id": 3, "g": "a", "v": null, "s": 20, "m": null},
	{"_id": 4, "g": "a", "s": 20},
	{"_id": 5, "g": "b", "v": 2.0, "s": 5, "m": {}},
	{"_id": 6, "g": "b", "v": 2, "s": 5},
	{"_id": 7, "g": "a", "v": {"$numberLong": "1"}, "s": 40, "m": {"y": {"$numberLong": "7"}}}
]`

// TestNAccumulators checks $firstN, $lastN, $minN, $maxN, $top, $bottom,
// $topN, $bottomN and $mergeObjects in $group: what each keeps and in
// which order (ties keep the value met first, as mongod's multiset
// does), null and missing as mongod treats them, and n evaluated for
// each group against its key.
func TestNAccumulators(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, group, want string }{
		{"firstN and lastN", `"f": {"$firstN": {"input": "$v", "n": 2}}, "l": {"$lastN": {"n": 3, "input": "$v"}}`,
			`[{"_id": "a", "f": [3, 1], "l": [null, null, {"$numberLong": "1"}]}, {"_id": "b", "f": [2.0, 2], "l": [2.0, 2]}]`},
		{"minN and maxN skip null and missing", `"mi": {"$minN": {"input": "$v", "n": 2}}, "ma": {"$maxN": {"input": "$v", "n": 2}}, "all": {"$maxN": {"input": "$v", "n": {"$numberLong": "9223372036854775807"}}}`,
			`[{"_id": "a", "mi": [1, {"$numberLong": "1"}], "ma": [3, 1], "all": [3, {"$numberLong": "1"}, 1]},
			  {"_id": "b", "mi": [2.0, 2], "ma": [2, 2.0], "all": [2, 2.0]}]`},
		{"top and bottom", `"t": {"$top": {"sortBy": {"s": -1}, "output": "$_id"}}, "b": {"$bottom": {"output": ["$_id", "$v"], "sortBy": {"s": -1}}}`,
			`[{"_id": "a", "t": 7, "b": [1, 3]}, {"_id": "b", "t": 5, "b": [5, 2.0]}]`},
		{"topN and bottomN", `"t": {"$topN": {"n": 3, "sortBy": {"s": -1}, "output": "$_id"}}, "b": {"$bottomN": {"n": 2, "sortBy": {"s": -1}, "output": "$_id"}}, "v": {"$topN": {"n": 2, "sortBy": {"s": 1, "_id": -1}, "output": "$v"}}`,
			`[{"_id": "a", "t": [7, 2, 3], "b": [3, 1], "v": [3, null]}, {"_id": "b", "t": [5, 6], "b": [5, 6], "v": [2, 2.0]}]`},
		{"mergeObjects", `"m": {"$mergeObjects": "$m"}`,
			`[{"_id": "a", "m": {"x": 3, "y": {"$numberLong": "7"}, "z": 2}}, {"_id": "b", "m": {}}]`},
	}
	for _, tc := range cases {
		got, err := run(t, nDocs, `[{"$sort": {"_id": 1}}, {"$group": {"_id": "$g", `+tc.group+`}}, {"$sort": {"_id": 1}}]`, Options{})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !same(got, val(t, tc.want)) {
			t.Errorf("%s:\n got %v\nwant %s", tc.name, got, tc.want)
		}
	}

	// n is evaluated for each group against the group's key when it is
	// a document, else against an empty document.
	n := `{"$cond": [{"$eq": ["$g", "a"]}, 1, 2]}`
	for _, tc := range []struct{ id, want string }{
		{`{"g": "$g"}`, `[{"_id": {"g": "a"}, "f": [3]}, {"_id": {"g": "b"}, "f": [2.0, 2]}]`},
		{`"$g"`, `[{"_id": "a", "f": [3, 1]}, {"_id": "b", "f": [2.0, 2]}]`},
	} {
		got, err := run(t, nDocs, `[{"$sort": {"_id": 1}}, {"$group": {"_id": `+tc.id+`, "f": {"$firstN": {"input": "$v", "n": `+n+`}}}}, {"$sort": {"_id": 1}}]`, Options{})
		if err != nil || !same(got, val(t, tc.want)) {
			t.Errorf("n by key %s: got %v (%v), want %s", tc.id, got, err, tc.want)
		}
	}
}

// TestNAccumulatorsInBucketAuto checks that $bucketAuto's output takes
// the n-family as $group does, with an n that is a constant: a bucket
// has no key to read, and mongod refuses one that reads anything
// (4544714) when it parses the stage.
func TestNAccumulatorsInBucketAuto(t *testing.T) {
	t.Parallel()
	got, err := run(t, nDocs, `[{"$sort": {"_id": 1}}, {"$bucketAuto": {"groupBy": "$s", "buckets": 2, "output": {
		"f": {"$firstN": {"input": "$_id", "n": 2}}, "t": {"$top": {"output": "$_id", "sortBy": {"s": -1}}},
		"m": {"$maxN": {"input": "$v", "n": {"$subtract": [2, 1]}}}, "o": {"$mergeObjects": "$m"}}}}]`, Options{})
	want := `[{"_id": {"min": 5, "max": 30}, "f": [1, 3], "t": 3, "m": [3], "o": {"x": 1, "y": 1}},
		{"_id": {"min": 30, "max": 40}, "f": [2, 7], "t": 7, "m": [1], "o": {"z": 2, "x": 3, "y": {"$numberLong": "7"}}}]`
	if err != nil || !same(got, val(t, want)) {
		t.Errorf("got %v (%v), want %s", got, err, want)
	}
	for _, n := range []string{`"$g"`, `{"$ifNull": ["$g", 1]}`, `"$$ROOT"`} {
		_, err = run(t, nDocs, `[{"$bucketAuto": {"groupBy": "$s", "buckets": 2, "output": {"f": {"$firstN": {"input": "$_id", "n": `+n+`}}}}}]`, Options{})
		if codeOf(err) != 4544714 {
			t.Errorf("n %s in $bucketAuto: got %v, want 4544714", n, err)
		}
	}
}

// TestNAccumulatorRefusals checks the refusals of the n-family in
// $group, with mongod's codes: the shape when the pipeline is parsed, n
// when a group starts.
func TestNAccumulatorRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		acc  string
		code int
	}{
		{`{"$firstN": 1}`, 5787801},
		{`{"$lastN": [1]}`, 5787801},
		{`{"$minN": "x"}`, 5787900},
		{`{"$firstN": {"input": "$v", "n": 1, "x": 1}}`, 5787901},
		{`{"$firstN": {"input": "$v"}}`, 5787906},
		{`{"$maxN": {"n": 1}}`, 5787907},
		{`{"$firstN": {"input": "$v", "n": "x"}}`, 5787902},
		{`{"$firstN": {"input": "$v", "n": "$v"}}`, 5787902},
		{`{"$lastN": {"input": "$v", "n": 1.5}}`, 5787903},
		{`{"$lastN": {"input": "$v", "n": {"$numberDecimal": "9223372036854775808"}}}`, 5787903},
		{`{"$minN": {"input": "$v", "n": 0}}`, 5787908},
		{`{"$maxN": {"input": "$v", "n": -1}}`, 5787908},
		{`{"$top": 1}`, 5788001},
		{`{"$top": {"output": 1, "sortBy": {"s": 1}, "n": 1}}`, 5788002},
		{`{"$topN": {"output": 1, "sortBy": {"s": 1}, "input": 1}}`, 5788002},
		{`{"$topN": {"output": 1, "sortBy": {"s": 1}}}`, 5788003},
		{`{"$bottom": {"sortBy": {"s": 1}}}`, 5788004},
		{`{"$bottomN": {"output": 1, "n": 1}}`, 5788005},
		{`{"$top": {"output": 1, "sortBy": 1}}`, 10065},
		{`{"$top": {"output": 1, "sortBy": {"s": 2}}}`, 15975},
		{`{"$bottomN": {"output": 1, "sortBy": {}, "n": 1}}`, 9657900},
		{`{"$topN": {"output": 1, "sortBy": {"s": 1}, "n": 0}}`, 5787908},
		{`{"$mergeObjects": "$s"}`, 40400},
		{`{"$mergeObjects": ["$m"]}`, 40237},
	}
	for _, tc := range cases {
		_, err := run(t, nDocs, `[{"$group": {"_id": "$g", "x": `+tc.acc+`}}]`, Options{})
		if codeOf(err) != tc.code {
			t.Errorf("%s: got %v, want code %d", tc.acc, err, tc.code)
		}
	}
}

// TestNExpressions checks $firstN, $lastN, $minN and $maxN as
// expressions over an array ({n, input}), sharing the accumulators'
// rules and refusals.
func TestNExpressions(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "a": [3, null, 1, 2, 1.0], "s": "x"}]`
	checkExprs(t, doc, []exprCase{
		{`{"$firstN": {"n": 2, "input": "$a"}}`, `[3, null]`},
		{`{"$lastN": {"input": "$a", "n": 2}}`, `[2, 1.0]`},
		{`{"$minN": {"n": 2, "input": "$a"}}`, `[1, 1.0]`},
		{`{"$maxN": {"n": 3, "input": "$a"}}`, `[3, 2, 1]`},
		{`{"$maxN": {"n": {"$numberLong": "9223372036854775807"}, "input": "$a"}}`, `[3, 2, 1.0, 1]`},
		{`{"$firstN": {"n": 10, "input": [null, "$nosuch"]}}`, `[null, null]`},
		{`{"$lastN": {"n": 2.0, "input": []}}`, `[]`},
		{`{"$lastN": {"n": {"$numberDecimal": "9223372036854775807"}, "input": "$a"}}`, `[3, null, 1, 2, 1.0]`},
		{`{"$firstN": {"n": {"$numberDecimal": "2.000"}, "input": "$a"}}`, `[3, null]`},
	})
	checkExprCodes(t, doc, []exprCode{
		{`{"$firstN": {"n": 1, "input": "$s"}}`, 5788200},
		{`{"$lastN": {"n": 1, "input": "$nosuch"}}`, 5788200},
		{`{"$minN": {"n": 0, "input": "$a"}}`, 5787908},
		{`{"$maxN": {"n": null, "input": "$a"}}`, 5787902},
		{`{"$firstN": {"n": 0.5, "input": "$a"}}`, 5787903},
		{`{"$firstN": {"n": {"$numberDecimal": "1.5"}, "input": "$a"}}`, 5787903},
		{`{"$firstN": {"n": {"$numberDecimal": "NaN"}, "input": "$a"}}`, 5787903},
		{`{"$firstN": {"n": {"$numberDecimal": "1E+6000"}, "input": "$a"}}`, 5787903},
		{`{"$minN": 5}`, 5787900},
		{`{"$lastN": {"n": 1}}`, 5787907},
		{`{"$firstN": {"n": 1, "input": [], "x": 1}}`, 5787901},
		{`{"$topN": {"n": 1, "output": "$a", "sortBy": {"a": 1}}}`, 168},
		{`{"$top": {"output": "$a", "sortBy": {"a": 1}}}`, 168},
	})
}

// TestNAccumulatorMemory checks the bounds: one accumulator past 100
// MiB is 146 ExceededMemoryLimit, as mongod's
// internalQueryTopNAccumulatorBytes; a $group's groups past the
// pipeline's limit are 292.
func TestNAccumulatorMemory(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	p, err := Parse(val(t, `[{"$group": {"_id": null, "l": {"$lastN": {"input": "$big", "n": 1000}}}}]`).(bson.A))
	if err != nil {
		t.Fatal(err)
	}
	sent := 0
	_, err = p.Run(context.Background(), func(context.Context) (bson.D, error) {
		if sent++; sent > 200 {
			return nil, nil
		}
		return bson.D{{Key: "big", Value: big}}, nil // one string, shared
	}, Options{MaxMemoryBytes: 1 << 40})
	if codeOf(err) != 146 {
		t.Errorf("$lastN over 200 MiB: got %v, want 146", err)
	}
	for _, acc := range []string{
		`{"$firstN": {"input": "$$ROOT", "n": 10}}`,
		`{"$topN": {"output": "$$ROOT", "n": 10, "sortBy": {"s": 1}}}`,
		`{"$mergeObjects": "$$ROOT"}`,
	} {
		_, err := run(t, nDocs, `[{"$group": {"_id": null, "x": `+acc+`}}]`, Options{MaxMemoryBytes: 200})
		if codeOf(err) != 292 {
			t.Errorf("%s with 200 bytes: got %v, want 292", acc, err)
		}
	}
}
