package agg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The data sets of mongod's jstests/aggregation/accumulators
// percentiles_*.js and median_*.js.
const (
	pctMixed  = `[{"x": 0}, {"x": "non-numeric"}, {"x": 1}, {"no_x": 0}, {"x": 2}]`
	pctNone   = `[{"x": "non-numeric"}, {"no_x": 0}, {"x": {"$date": "2026-01-01T00:00:00Z"}}, {"x": [42, 43]}, {"x": null}, {"x": {"$numberDouble": "NaN"}}]`
	pct3      = `[{"x": 10}, {"x": 5}, {"x": 27}]`
	pct012    = `[{"x": 0}, {"x": 1}, {"x": 2}]`
	pctInf    = `[{"x": {"$numberDouble": "-Infinity"}}, {"x": 0}, {"x": 1}, {"x": 2}, {"x": {"$numberDouble": "Infinity"}}, {"x": {"$numberDouble": "Infinity"}}, {"x": {"$numberDouble": "Infinity"}}]`
	pctGroups = `[{"k": 0, "x": 0}, {"k": 0, "x": 1}, {"k": 1, "x": 2}, {"k": 2}, {"k": 0, "x": "str"}, {"k": 1, "x": 0}]`
)

// TestPercentileAccumulators checks $percentile and $median in $group
// against the values mongod's jstests assert, for the three methods:
// non-numeric values and NaN ignored, doubles out, nulls for no
// numbers, infinities ranked at the ends.
func TestPercentileAccumulators(t *testing.T) {
	t.Parallel()
	pct := func(p, method string) string {
		return `{"$percentile": {"p": ` + p + `, "input": "$x", "method": "` + method + `"}}`
	}
	cases := []struct{ name, docs, acc, want string }{
		{"non-numeric ignored, discrete", pctMixed, pct("[0.5]", "discrete"), `[1.0]`},
		{"non-numeric ignored, continuous", pctMixed, pct("[0.5]", "continuous"), `[1.0]`},
		{"non-numeric ignored, approximate", pctMixed, pct("[0.5]", "approximate"), `[1.0]`},
		{"no numbers, one p", pctNone, pct("[0.5]", "discrete"), `[null]`},
		{"no numbers, two p", pctNone, pct("[0.5, 0.9]", "continuous"), `[null, null]`},
		{"no numbers, approximate", pctNone, pct("[0.5, 0.9]", "approximate"), `[null, null]`},
		{"minimum", pct3, pct("[0]", "discrete"), `[5.0]`},
		{"maximum", pct3, pct("[1]", "continuous"), `[27.0]`},
		{"approximate minimum and maximum", pct3, pct("[0, 1]", "approximate"), `[5.0, 27.0]`},
		{"several, discrete", pct012, pct("[0.5, 0.9, 0.1]", "discrete"), `[1.0, 2.0, 0.0]`},
		{"several, approximate", pct012, pct("[0.5, 0.9, 0.1]", "approximate"), `[1.0, 2.0, 0.0]`},
		{"several, continuous", pct012, pct("[0.5, 0.9, 0.1]", "continuous"), `[1.0, 1.8, 0.2]`},
		{"p a constant expression", pct012, pct(`{"$concatArrays": [[0.1, 0.5], [{"$add": [0.4, 0.5]}]]}`, "continuous"), `[0.2, 1.0, 1.8]`},
		{"input an expression", pct012, `{"$percentile": {"p": [0.5, 0.9, 0.1], "input": {"$add": [42, "$x"]}, "method": "discrete"}}`, `[43.0, 44.0, 42.0]`},
		{"infinities, discrete", pctInf, pct("[0.5, 0.9, 0.1]", "discrete"), `[2.0, {"$numberDouble": "Infinity"}, {"$numberDouble": "-Infinity"}]`},
		{"infinities, continuous", pctInf, pct("[0.5, 0.9, 0.1, 0.25]", "continuous"), `[2.0, {"$numberDouble": "Infinity"}, {"$numberDouble": "-Infinity"}, 0.5]`},
		{"decimals and longs are numbers", `[{"x": {"$numberDecimal": "1.5"}}, {"x": {"$numberLong": "3"}}]`, pct("[0, 1]", "discrete"), `[1.5, 3.0]`},
		{"median, even count, discrete", `[{"x": 4}, {"x": 1}, {"x": 3}, {"x": 2}]`, `{"$median": {"input": "$x", "method": "discrete"}}`, `2.0`},
		{"median, even count, continuous", `[{"x": 4}, {"x": 1}, {"x": 3}, {"x": 2}]`, `{"$median": {"input": "$x", "method": "continuous"}}`, `2.5`},
		{"median of no numbers", pctNone, `{"$median": {"input": "$x", "method": "approximate"}}`, `null`},
		{"continuous median between the inputs", `[{"x": 0}, {"x": 2}]`, `{"$median": {"input": "$x", "method": "continuous"}}`, `1.0`},
		{"decimal NaN ignored, past a double's range infinite", `[{"x": {"$numberDecimal": "NaN"}}, {"x": {"$numberDecimal": "-NaN"}}, {"x": {"$numberDecimal": "2E+310"}}, {"x": 7}]`,
			pct("[0, 1]", "continuous"), `[7.0, {"$numberDouble": "Infinity"}]`},
	}
	for _, tc := range cases {
		got, err := run(t, tc.docs, `[{"$group": {"_id": null, "p": `+tc.acc+`}}, {"$project": {"_id": 0}}]`, Options{})
		want := bson.A{bson.D{{Key: "p", Value: val(t, tc.want)}}}
		if err != nil || !same(got, want) {
			t.Errorf("%s: got %v (%v), want %s", tc.name, got, err, tc.want)
		}
	}

	// One accumulator for each group.
	for method, want := range map[string]string{
		"discrete":   `[{"_id": 0, "p": [1.0], "m": 0.0}, {"_id": 1, "p": [2.0], "m": 0.0}, {"_id": 2, "p": [null], "m": null}]`,
		"continuous": `[{"_id": 0, "p": [0.9], "m": 0.5}, {"_id": 1, "p": [1.8], "m": 1.0}, {"_id": 2, "p": [null], "m": null}]`,
	} {
		got, err := run(t, pctGroups, `[{"$group": {"_id": "$k", "p": `+pct("[0.9]", method)+`, "m": {"$median": {"input": "$x", "method": "`+method+`"}}}}, {"$sort": {"_id": 1}}]`, Options{})
		if err != nil || !same(got, val(t, want)) {
			t.Errorf("groups, %s: got %v (%v), want %s", method, got, err, want)
		}
	}
}

// TestPercentileExpressions checks $percentile and $median as
// expressions: over an array, an array of expressions, a number (every
// percentile is that number) or anything else (nulls).
func TestPercentileExpressions(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "a": [0, "non-numeric", 1, 2], "b": [10, 5, 27], "c": [0, 1, 2], "x": 0, "x1": "non-numeric", "x2": 1, "x3": 2,
		"s": "non-numeric", "n": 5, "nested": ["non-numeric", [1, 2, 3]], "nan": {"$numberDouble": "NaN"}}]`
	cases := []struct{ expr, want string }{
		{`{"$percentile": {"p": [0.5], "input": "$a", "method": "approximate"}}`, `[1.0]`},
		{`{"$percentile": {"p": [0], "input": "$b", "method": "approximate"}}`, `[5.0]`},
		{`{"$percentile": {"p": [0.5, 0.9, 0.1], "input": "$c", "method": "approximate"}}`, `[1.0, 2.0, 0.0]`},
		{`{"$percentile": {"p": [0.5, 0.9, 0.1], "input": "$c", "method": "discrete"}}`, `[1.0, 2.0, 0.0]`},
		{`{"$percentile": {"p": [0.5, 0.9, 0.1], "input": "$c", "method": "continuous"}}`, `[1.0, 1.8, 0.2]`},
		{`{"$percentile": {"p": [0.5], "input": ["$x", "$x1", "$x2", "$x3"], "method": "discrete"}}`, `[1.0]`},
		{`{"$percentile": {"p": [0.5], "input": ["$s"], "method": "approximate"}}`, `[null]`},
		{`{"$percentile": {"p": [0.5, 0.9], "input": "something", "method": "approximate"}}`, `[null, null]`},
		{`{"$percentile": {"p": [0.5], "input": [], "method": "continuous"}}`, `[null]`},
		{`{"$percentile": {"p": [0.5, 0.9], "input": "$n", "method": "continuous"}}`, `[5.0, 5.0]`},
		{`{"$percentile": {"p": [0.5], "input": "$nan", "method": "discrete"}}`, `[{"$numberDouble": "NaN"}]`},
		{`{"$median": {"input": "$a", "method": "discrete"}}`, `1.0`},
		{`{"$median": {"input": "$nested", "method": "discrete"}}`, `null`},
		{`{"$median": {"input": ["$x", "$x1", "$x2", "$x3"], "method": "continuous"}}`, `1.0`},
		{`{"$median": {"input": "$n", "method": "approximate"}}`, `5.0`},
		{`{"$median": {"input": "$nosuch", "method": "approximate"}}`, `null`},
	}
	for _, tc := range cases {
		got, err := run(t, doc, `[{"$replaceWith": {"v": `+tc.expr+`}}]`, Options{})
		want := bson.A{bson.D{{Key: "v", Value: val(t, tc.want)}}}
		if err != nil || !same(got, want) {
			t.Errorf("%s: got %v (%v), want %s", tc.expr, got, err, tc.want)
		}
	}
}

// TestPercentileWindow checks $percentile and $median as window
// functions, over sliding and growing windows and an empty one.
func TestPercentileWindow(t *testing.T) {
	t.Parallel()
	runWindowCases(t, []windowCase{
		{"median over the neighbours", readings,
			`[{"$setWindowFields": {"partitionBy": "$s", "sortBy": {"t": 1}, "output": {"m": {"$median": {"input": "$v", "method": "discrete"}, "window": {"documents": [-1, 1]}}}}}, {"$project": {"m": 1}}]`,
			`[{"_id": 1, "m": 10.0}, {"_id": 2, "m": 20.0}, {"_id": 4, "m": 20.0}, {"_id": 3, "m": 5.0}, {"_id": 5, "m": 5.0}]`},
		{"percentiles of a running window", readings,
			`[{"$setWindowFields": {"partitionBy": "$s", "sortBy": {"t": 1}, "output": {"p": {"$percentile": {"input": "$v", "p": [0, 0.75, 1], "method": "continuous"}, "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"p": 1}}]`,
			`[{"_id": 1, "p": [10.0, 10.0, 10.0]}, {"_id": 2, "p": [10.0, 17.5, 20.0]}, {"_id": 4, "p": [10.0, 25.0, 30.0]}, {"_id": 3, "p": [5.0, 5.0, 5.0]}, {"_id": 5, "p": [5.0, 5.0, 5.0]}]`},
		{"an empty window gives null, or nulls", readings,
			`[{"$setWindowFields": {"partitionBy": "$s", "sortBy": {"t": 1}, "output": {
				"m": {"$median": {"input": "$v", "method": "approximate"}, "window": {"documents": [1, 1]}},
				"p": {"$percentile": {"input": "$v", "p": [0.5, 0.9], "method": "approximate"}, "window": {"range": [1, 1]}}}}}, {"$project": {"m": 1, "p": 1}}]`,
			`[{"_id": 1, "m": 20.0, "p": [20.0, 20.0]}, {"_id": 2, "m": 30.0, "p": [30.0, 30.0]}, {"_id": 4, "m": null, "p": [null, null]},
			  {"_id": 3, "m": null, "p": [null, null]}, {"_id": 5, "m": null, "p": [null, null]}]`},
	})
}

// TestPercentileWindowSlides checks that a sliding window, which gives
// values back as its start moves, computes what the expression computes
// over the same window's values, infinities, NaN and non-numbers among
// them.
func TestPercentileWindowSlides(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 21))
	var docs []string
	for i := range 200 {
		var v string
		switch r.IntN(12) {
		case 0:
			v = `{"$numberDouble": "Infinity"}`
		case 1:
			v = `{"$numberDouble": "-Infinity"}`
		case 2:
			v = `{"$numberDouble": "NaN"}`
		case 3:
			v = `"x"`
		default:
			v = strconv.Itoa(r.IntN(40))
		}
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "v": %s}`, i, v))
	}
	for _, method := range []string{"discrete", "continuous", "approximate"} {
		for _, w := range []string{`[-3, 2]`, `[-10, -2]`, `[0, 5]`} {
			fn := `{"input": "$v", "p": [0, 0.1, 0.5, 0.75, 1], "method": "` + method + `"}`
			got, err := run(t, "["+strings.Join(docs, ",")+"]", `[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {
				"p": {"$percentile": `+fn+`, "window": {"documents": `+w+`}},
				"all": {"$push": "$v", "window": {"documents": `+w+`}}}}},
				{"$project": {"p": 1, "same": {"$eq": ["$p", {"$percentile": {"input": "$all", "p": [0, 0.1, 0.5, 0.75, 1], "method": "`+method+`"}}]}}},
				{"$match": {"same": false}}]`, Options{})
			if err != nil || len(got) != 0 {
				t.Errorf("%s over %s: %d windows differ from the expression (%v): %v", method, w, len(got), err, got)
			}
		}
	}
}

// TestPercentileErrors checks each refusal of $percentile and $median
// with mongod's code, as an accumulator, an expression and a window
// function.
func TestPercentileErrors(t *testing.T) {
	t.Parallel()
	group := func(acc string) string { return `[{"$group": {"_id": null, "p": ` + acc + `}}]` }
	project := func(expr string) string { return `[{"$project": {"p": ` + expr + `}}]` }
	window := func(fn string) string {
		return `[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"p": {` + fn + `, "window": {"documents": [-1, 0]}}}}}]`
	}
	pct := func(p, method string) string {
		return `{"$percentile": {"p": ` + p + `, "input": "$x", "method": ` + method + `}}`
	}
	cases := []struct {
		pipeline string
		code     int
	}{
		{group(`{"$percentile": 0.5}`), 7429703},
		{project(`{"$percentile": 0.5}`), 7436200},
		{group(`{"$median": [1]}`), 7436100},
		{project(`{"$median": "x"}`), 7436201},
		{window(`"$percentile": 0.5`), 7429703},
		{window(`"$median": 1`), 7436100},
		{group(`{"$percentile": {"input": "$x", "method": "approximate"}}`), 40414},
		{group(`{"$percentile": {"p": [0.5], "method": "approximate"}}`), 40414},
		{project(`{"$percentile": {"p": [0.5], "input": "$x"}}`), 40414},
		{group(`{"$median": {"method": "approximate"}}`), 40414},
		{project(`{"$median": {"input": "$x"}}`), 40414},
		{group(`{"$percentile": {"p": [0.5], "input": "$x", "method": "approximate", "extras": 42}}`), 40415},
		{group(`{"$median": {"p": [0.5], "input": "$x", "method": "approximate"}}`), 40415},
		{project(`{"$median": {"input": "$x", "method": "approximate", "extras": 42}}`), 40415},
		{group(pct(`[0.5, 0.7]`, `42`)), 14},
		{group(`{"$percentile": {"method": 42}}`), 14}, // in field order, before the missing ones
		{group(`{"$median": {"input": "$x", "method": "fancy", "extras": 1}}`), 2},
		{group(`{"$median": {"input": "$x", "input": "$y", "method": "discrete"}}`), 40413},
		{project(`{"$median": {"input": "$x", "method": null}}`), 14},
		{group(pct(`[0.5, 0.7]`, `"fancy"`)), 2},
		{window(`"$median": {"input": "$x", "method": "Discrete"}`), 2},
		{group(pct(`0.5`, `"approximate"`)), 7750301},
		{group(pct(`[]`, `"discrete"`)), 7750301},
		{project(pct(`{"$add": [0.1, 0.5]}`, `"approximate"`)), 7750301},
		{group(pct(`[0.5, "foo"]`, `"approximate"`)), 7750302},
		{project(pct(`{"$concatArrays": [[0.01, 0.1], ["foo"]]}`, `"continuous"`)), 7750302},
		{group(pct(`[0.5, 10]`, `"approximate"`)), 7750303},
		{group(pct(`[-0.1]`, `"approximate"`)), 7750303},
		{group(pct(`[{"$numberDouble": "NaN"}]`, `"approximate"`)), 7750303},
		{project(pct(`[0.5, {"$numberDouble": "NaN"}]`, `"discrete"`)), 7750303},
		{group(pct(`[{"$numberDouble": "Infinity"}]`, `"approximate"`)), 7750303},
		{window(`"$percentile": {"p": [{"$numberDouble": "-Infinity"}], "input": "$x", "method": "discrete"}`), 7750303},
		{group(pct(`["$x"]`, `"approximate"`)), 7750300},
		{project(pct(`"$p"`, `"approximate"`)), 7750300},
		{window(`"$percentile": {"p": "$$NOW", "input": "$x", "method": "discrete"}`), 7750300},
		{group(pct(`[{"$divide": [1, 0]}]`, `"approximate"`)), 2},
		{group(`{"$percentile": {"p": [0.5], "input": {"$nosuchop": 1}, "method": "approximate"}}`), 168},
	}
	for _, tc := range cases {
		_, err := run(t, `[{"t": 1, "x": 1}]`, tc.pipeline, Options{})
		if codeOf(err) != tc.code {
			t.Errorf("%s: got %v, want code %d", tc.pipeline, err, tc.code)
		}
	}
	// A refusal names the operator and the value, as mongod's does.
	_, err := run(t, `[{"x": 1}]`, group(pct(`[0.5, 10]`, `"approximate"`)), Options{})
	if err == nil || !strings.Contains(err.Error(), "The $percentile 'p' field must be an array of numbers from [0.0, 1.0], but found: 10") {
		t.Errorf("p out of range: %v", err)
	}
}

// TestPercentileMemory checks the bounds: the group's memory (292) and
// the accumulator's own limit (146).
func TestPercentileMemory(t *testing.T) {
	t.Parallel()
	docs := `[{"x": 1}, {"x": 2}, {"x": 3}, {"x": 4}, {"x": 5}, {"x": 6}, {"x": 7}, {"x": 8}]`
	_, err := run(t, docs, `[{"$group": {"_id": null, "m": {"$median": {"input": "$x", "method": "discrete"}}}}]`, Options{MaxMemoryBytes: 100})
	if codeOf(err) != 292 {
		t.Errorf("group over its memory: %v, want 292", err)
	}
	acc := newPctAcc(pctArgs{op: "$percentile", ps: []float64{0.5}, method: pctDiscrete})
	acc.limit = 64
	for i := range 7 {
		if err := acc.add(int32(i)); err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
	}
	if err := acc.add(math.MaxFloat64); codeOf(err) != 146 || !strings.Contains(err.Error(), "$percentile used too much memory") {
		t.Errorf("past the limit: %v, want 146", err)
	}
}
