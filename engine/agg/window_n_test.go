package agg

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// nWindowDocs has a missing value in the middle, for the n-family's
// windows.
const nWindowDocs = `[
	{"_id": 1, "t": 1, "v": 5},
	{"_id": 2, "t": 2, "v": 3},
	{"_id": 3, "t": 3, "v": 8},
	{"_id": 4, "t": 4},
	{"_id": 5, "t": 5, "v": 1}
]`

// TestSetWindowFieldsN checks the n-family as window functions over
// growing, sliding, range and empty windows: a window that grows from
// the partition's start folds $group's accumulator (a missing value is
// null), one whose start moves follows mongod's removable functions (a
// missing value holds its place in $firstN/$lastN and is left out; of
// ties $maxN and $bottom keep the latest).
func TestSetWindowFieldsN(t *testing.T) {
	t.Parallel()
	sw := func(out string) string {
		return `[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {` + out + `}}}, {"$project": {"t": 0, "v": 0}}]`
	}
	w11 := `"window": {"documents": [-1, 1]}`
	cases := []windowCase{
		{"firstN and lastN over a sliding window", nWindowDocs,
			sw(`"f": {"$firstN": {"input": "$v", "n": 2}, ` + w11 + `}, "l": {"$lastN": {"input": "$v", "n": 2}, ` + w11 + `}`),
			`[{"_id": 1, "f": [5, 3], "l": [5, 3]}, {"_id": 2, "f": [5, 3], "l": [3, 8]}, {"_id": 3, "f": [3, 8], "l": [8]},
			  {"_id": 4, "f": [8], "l": [1]}, {"_id": 5, "f": [1], "l": [1]}]`},
		{"firstN and lastN over a growing window: missing is null", nWindowDocs,
			sw(`"f": {"$firstN": {"input": "$v", "n": 2}, "window": {"documents": ["unbounded", "current"]}}, "l": {"$lastN": {"input": "$v", "n": 2}, "window": {"documents": ["unbounded", "current"]}}`),
			`[{"_id": 1, "f": [5], "l": [5]}, {"_id": 2, "f": [5, 3], "l": [5, 3]}, {"_id": 3, "f": [5, 3], "l": [3, 8]},
			  {"_id": 4, "f": [5, 3], "l": [8, null]}, {"_id": 5, "f": [5, 3], "l": [null, 1]}]`},
		{"minN over documents, maxN over a range", nWindowDocs,
			sw(`"mn": {"$minN": {"input": "$v", "n": 2}, ` + w11 + `}, "mx": {"$maxN": {"input": "$v", "n": 2}, "window": {"range": [-1, 0]}}`),
			`[{"_id": 1, "mn": [3, 5], "mx": [5]}, {"_id": 2, "mn": [3, 5], "mx": [5, 3]}, {"_id": 3, "mn": [3, 8], "mx": [8, 3]},
			  {"_id": 4, "mn": [1, 8], "mx": [8]}, {"_id": 5, "mn": [1], "mx": [1]}]`},
		{"topN, top and bottom: missing sorts as null", nWindowDocs,
			sw(`"tn": {"$topN": {"output": "$_id", "sortBy": {"v": -1}, "n": 2}, ` + w11 + `}, "tp": {"$top": {"output": "$_id", "sortBy": {"v": 1}}, ` + w11 + `}, "bt": {"$bottom": {"output": "$_id", "sortBy": {"v": 1}}, ` + w11 + `}`),
			`[{"_id": 1, "tn": [1, 2], "tp": 2, "bt": 1}, {"_id": 2, "tn": [3, 1], "tp": 2, "bt": 3}, {"_id": 3, "tn": [3, 2], "tp": 4, "bt": 3},
			  {"_id": 4, "tn": [3, 5], "tp": 4, "bt": 3}, {"_id": 5, "tn": [5, 4], "tp": 4, "bt": 5}]`},
		{"bottomN over the whole partition, n from an expression", nWindowDocs,
			sw(`"b": {"$bottomN": {"output": "$v", "sortBy": {"_id": 1}, "n": {"$add": [1, 2]}}}`),
			`[{"_id": 1, "b": [8, null, 1]}, {"_id": 2, "b": [8, null, 1]}, {"_id": 3, "b": [8, null, 1]}, {"_id": 4, "b": [8, null, 1]}, {"_id": 5, "b": [8, null, 1]}]`},
		{"empty windows: [] and null (empty_window_top_bottom.js)", nWindowDocs,
			`[{"$limit": 1}, {"$setWindowFields": {"sortBy": {"t": 1}, "output": {
				"tp": {"$top": {"output": "$v", "sortBy": {"v": 1}}, "window": {"documents": ["unbounded", -1]}},
				"bt": {"$bottom": {"output": "$v", "sortBy": {"v": 1}}, "window": {"documents": [1, 2]}},
				"tn": {"$topN": {"output": "$v", "sortBy": {"v": 1}, "n": 1}, "window": {"range": [1, 2]}},
				"mn": {"$minN": {"input": "$v", "n": 1}, "window": {"documents": [1, 1]}},
				"no": {"$top": {"output": "$noField", "sortBy": {"v": 1}}, "window": {"documents": ["unbounded", "current"]}}}}},
			  {"$project": {"t": 0, "v": 0}}]`,
			`[{"_id": 1, "tp": null, "bt": null, "tn": [], "mn": [], "no": null}]`},
		{"partitions: n-functions start again in each", `[{"_id": 1, "p": "a", "t": 1, "v": 1}, {"_id": 2, "p": "b", "t": 1, "v": 2}, {"_id": 3, "p": "a", "t": 2, "v": 3}]`,
			`[{"$setWindowFields": {"partitionBy": "$p", "sortBy": {"t": 1}, "output": {"l": {"$lastN": {"input": "$v", "n": 5}, "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"l": 1}}]`,
			`[{"_id": 1, "l": [1]}, {"_id": 3, "l": [1, 3]}, {"_id": 2, "l": [2]}]`},
	}
	runWindowCases(t, cases)

	// Ties, field by field: 1 and 1.0 print alike.
	got, err := run(t, `[{"_id": 1, "t": 1, "v": 1, "k": 0}, {"_id": 2, "t": 2, "v": 1.0, "k": 0}]`, sw(`
		"ms": {"$maxN": {"input": "$v", "n": 1}, "window": {"documents": [0, 1]}}, "mg": {"$maxN": {"input": "$v", "n": 1}},
		"bs": {"$bottom": {"output": "$_id", "sortBy": {"k": 1}}, "window": {"documents": [0, 1]}}, "bg": {"$bottom": {"output": "$_id", "sortBy": {"k": 1}}},
		"ns": {"$minN": {"input": "$v", "n": 1}, "window": {"documents": [0, 1]}}`), Options{})
	if err != nil || len(got) != 2 {
		t.Fatalf("ties: %v, %v", got, err)
	}
	first := got[0]
	want := bson.D{{Key: "_id", Value: int32(1)}, {Key: "k", Value: int32(0)},
		{Key: "ms", Value: bson.A{1.0}}, {Key: "mg", Value: bson.A{int32(1)}},
		{Key: "bs", Value: int32(2)}, {Key: "bg", Value: int32(1)}, {Key: "ns", Value: bson.A{int32(1)}}}
	for i, el := range want {
		if i >= len(first) || first[i].Key != el.Key || !sameTyped(first[i].Value, el.Value) {
			t.Errorf("ties: got %v, want %v", first, want)
			break
		}
	}
}

// sameTyped compares a and b with their BSON types (1 and 1.0 differ).
func sameTyped(a, b any) bool {
	x, _ := bson.Marshal(bson.D{{Key: "v", Value: a}})
	y, _ := bson.Marshal(bson.D{{Key: "v", Value: b}})
	return string(x) == string(y)
}

// TestSetWindowFieldsNRefusals checks the n-family's refusals as window
// functions, with the codes of jstests/aggregation/sources/
// setWindowFields/n_accumulators.js.
func TestSetWindowFieldsNRefusals(t *testing.T) {
	t.Parallel()
	w := `, "window": {"documents": [-1, 1]}`
	cases := []struct {
		name, fn string
		code     int
	}{
		{"minN not an object", `{"$minN": "non object"}`, 5787900},
		{"firstN not an object", `{"$firstN": "non object"}`, 5787801},
		{"topN not an object", `{"$topN": "non object"}`, 5788001},
		{"top not an object", `{"$top": "non object"}`, 5788001},
		{"no function", `{"window": {"documents": [-1, 1]}}`, 9},
		{"no input", `{"$lastN": {"n": 2}` + w + `}`, 5787907},
		{"no n", `{"$maxN": {"input": "$foo"}` + w + `}`, 5787906},
		{"fractional n", `{"$firstN": {"input": "$foo", "n": 2.1}` + w + `}`, 5787903},
		{"window not an object", `{"$minN": {"input": "$foo", "n": 2.0}, "window": [-1, 1]}`, 9},
		{"n reads a field", `{"$minN": {"input": "$foo", "n": "$a"}` + w + `}`, 5787902},
		{"n reads the partition key", `{"$lastN": {"input": "$foo", "n": "$p"}` + w + `}`, 5787902},
		{"n of 0", `{"$maxN": {"input": "$foo", "n": 0}` + w + `}`, 5787908},
		{"n below 0", `{"$firstN": {"input": "$foo", "n": -100}` + w + `}`, 5787908},
		{"unknown argument", `{"$minN": {"input": "$foo", "n": 2}, "x": 1}`, 9},
		{"another function beside", `{"$minN": {"input": "$foo", "n": 2}, "$sum": 1}`, 9},
		{"two windows", `{"$minN": {"input": "$foo", "n": 2}` + w + w + `}`, 9},
		{"unknown argument inside", `{"$minN": {"input": "$foo", "n": 2, "x": 1}}`, 5787901},
		{"topN without output", `{"$topN": {"n": 2, "sortBy": {"foo": 1}}` + w + `}`, 5788004},
		{"topN without n", `{"$bottomN": {"output": "$foo", "sortBy": {"foo": 1}}` + w + `}`, 5788003},
		{"topN with a fractional n", `{"$topN": {"output": "$foo", "sortBy": {"foo": 1}, "n": 2.1}` + w + `}`, 5787903},
		{"topN without sortBy", `{"$bottomN": {"output": "$foo", "n": 2}` + w + `}`, 5788005},
		{"topN with n reading a field", `{"$topN": {"output": "$foo", "sortBy": {"foo": 1}, "n": "$a"}` + w + `}`, 5787902},
		{"topN with n of 0", `{"$bottomN": {"output": "$foo", "sortBy": {"foo": 1}, "n": 0}` + w + `}`, 5787908},
		{"top without output", `{"$top": {"sortBy": {"foo": 1}}` + w + `}`, 5788004},
		{"top with n", `{"$bottom": {"n": 2, "output": "$foo", "sortBy": {"foo": 1}}` + w + `}`, 5788002},
		{"top without sortBy", `{"$top": {"output": "$foo"}` + w + `}`, 5788005},
		{"top with an empty sortBy", `{"$top": {"output": "$foo", "sortBy": {}}}`, 9657900},
		{"sliding window without sortBy", `{"$minN": {"input": "$foo", "n": 2}, "window": {"documents": [-1, 1]}}`, -5339901},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sort, code := `"sortBy": {"ts": 1}, `, c.code
			if code < 0 {
				sort, code = "", -code
			}
			p := `[{"$setWindowFields": {"partitionBy": "$p", ` + sort + `"output": {"o": ` + c.fn + `}}}]`
			if _, err := run(t, `[{"_id": 1, "p": 2, "a": 3, "ts": 1}]`, p, Options{}); codeOf(err) != code {
				t.Errorf("%s: %v, want code %d", p, err, code)
			}
		})
	}
}

// TestSetWindowFieldsNMemory checks the bounds: one window's
// accumulator past 100 MiB is 146, the values the stage holds past the
// pipeline's limit 292.
func TestSetWindowFieldsNMemory(t *testing.T) {
	t.Parallel()
	if _, err := run(t, nWindowDocs, `[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"o": {"$topN": {"output": {"$literal": "`+strings.Repeat("y", 500)+`"}, "sortBy": {"t": 1}, "n": 3}, "window": {"documents": [-1, 0]}}}}}]`, Options{MaxMemoryBytes: 2000}); codeOf(err) != 292 {
		t.Errorf("outputs over the stage's limit: %v, want 292", err)
	}
	big := strings.Repeat("x", 1<<20)
	err := runWindowOver(t, `{"$lastN": {"input": "$big", "n": 1000}, "window": {"documents": ["unbounded", "current"]}}`, 120, func(i int32) bson.D {
		return bson.D{{Key: "i", Value: i}, {Key: "big", Value: big}} // one string, shared
	})
	if codeOf(err) != 146 {
		t.Errorf("$lastN over 120 MiB: got %v, want 146", err)
	}
}

// runWindowOver runs $setWindowFields with the one output fn, sorted by
// i, over n documents that doc makes (without holding them), with no
// memory limit for the stage.
func runWindowOver(t *testing.T, fn string, n int32, doc func(i int32) bson.D) error {
	p, err := Parse(val(t, `[{"$setWindowFields": {"sortBy": {"i": 1}, "output": {"o": `+fn+`}}}]`).(bson.A))
	if err != nil {
		return err
	}
	sent := int32(0)
	_, err = p.Run(context.Background(), func(context.Context) (bson.D, error) {
		if sent++; sent > n {
			return nil, nil
		}
		return doc(sent), nil
	}, Options{MaxMemoryBytes: 1 << 40})
	return err
}
