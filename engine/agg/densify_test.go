package agg

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func day(s string) string { return `{"$date": "` + s + `T00:00:00Z"}` }

func at(s string) string { return `{"$date": "` + s + `Z"}` }

// TestDensify checks $densify's output as mongod's jstests
// (jstests/aggregation/sources/densify) and its stage give it: gaps
// filled a step apart from the first value, documents without the field
// passed through, generated documents holding only the partition fields
// and the field, explicit ranges [lo, hi) with documents outside them
// untouched, "full" across partitions and "partition" within each.
func TestDensify(t *testing.T) {
	t.Parallel()
	cases := []pipelineCase{
		{"full", `[{"_id": 3, "v": 4}, {"_id": 1, "v": 0}, {"_id": 2, "v": 2}]`,
			`[{"$densify": {"field": "v", "range": {"step": 1, "bounds": "full"}}}]`,
			`[{"_id": 1, "v": 0}, {"v": 1}, {"_id": 2, "v": 2}, {"v": 3}, {"_id": 3, "v": 4}]`},
		{"steps from the first value, off-step documents kept", `[{"v": 0}, {"v": 3}, {"v": 8}]`,
			`[{"$densify": {"field": "v", "range": {"step": 2, "bounds": "full"}}}]`,
			`[{"v": 0}, {"v": 2}, {"v": 3}, {"v": 4}, {"v": 6}, {"v": 8}]`},
		{"values present are not generated again", `[{"v": 0}, {"v": 1}, {"v": 1}, {"v": 3}]`,
			`[{"$densify": {"field": "v", "range": {"step": 1, "bounds": "full"}}}]`,
			`[{"v": 0}, {"v": 1}, {"v": 1}, {"v": 2}, {"v": 3}]`},
		{"missing and null pass through", `[{"_id": 1, "v": 3}, {"_id": 2}, {"_id": 3, "v": null}, {"_id": 4, "v": 1}]`,
			`[{"$densify": {"field": "v", "range": {"step": 1, "bounds": "full"}}}]`,
			`[{"_id": 2}, {"_id": 3, "v": null}, {"_id": 4, "v": 1}, {"v": 2}, {"_id": 1, "v": 3}]`},
		{"the step's type", `[{"v": 0}, {"v": 2}]`,
			`[{"$densify": {"field": "v", "range": {"step": 1.0, "bounds": "full"}}}]`,
			`[{"v": 0}, {"v": 1.0}, {"v": 2}]`},
		{"a nested field", `[{"a": {"b": 1, "c": 1}}, {"a": {"b": 3}}]`,
			`[{"$densify": {"field": "a.b", "range": {"step": 1, "bounds": "full"}}}]`,
			`[{"a": {"b": 1, "c": 1}}, {"a": {"b": 2}}, {"a": {"b": 3}}]`},
		{"no documents, full", `[]`,
			`[{"$densify": {"field": "v", "range": {"step": 1, "bounds": "full"}}}]`, `[]`},

		// Partitions (partitions.js).
		{"partition bounds", `[{"p": 0, "v": 0}, {"p": 1, "v": 2}, {"p": 0, "v": 2}, {"p": 1, "v": 0}, {"p": 2, "v": 123}]`,
			`[{"$densify": {"field": "v", "partitionByFields": ["p"], "range": {"step": 1, "bounds": "partition"}}}]`,
			`[{"p": 0, "v": 0}, {"p": 0, "v": 1}, {"p": 0, "v": 2}, {"p": 1, "v": 0}, {"p": 1, "v": 1}, {"p": 1, "v": 2}, {"p": 2, "v": 123}]`},
		{"full bounds over partitions", `[{"p": 0, "v": 0}, {"p": 1, "v": 0}, {"p": 2, "v": 10}]`,
			`[{"$densify": {"field": "v", "partitionByFields": ["p"], "range": {"step": 4, "bounds": "full"}}}, {"$sort": {"p": 1, "v": 1}}]`,
			`[{"p": 0, "v": 0}, {"p": 0, "v": 4}, {"p": 0, "v": 8}, {"p": 1, "v": 0}, {"p": 1, "v": 4}, {"p": 1, "v": 8}, {"p": 2, "v": 0}, {"p": 2, "v": 4}, {"p": 2, "v": 8}, {"p": 2, "v": 10}]`},
		{"full bounds over partitions, the maximum on the step", `[{"p": 0, "v": 0}, {"p": 1, "v": 4}]`,
			`[{"$densify": {"field": "v", "partitionByFields": ["p"], "range": {"step": 2, "bounds": "full"}}}, {"$sort": {"p": 1, "v": 1}}]`,
			`[{"p": 0, "v": 0}, {"p": 0, "v": 2}, {"p": 0, "v": 4}, {"p": 1, "v": 0}, {"p": 1, "v": 2}, {"p": 1, "v": 4}]`},
		{"full bounds over partitions, the maximum off the step", `[{"p": 0, "v": 0}, {"p": 0, "v": 5}, {"p": 1, "v": 4}]`,
			`[{"$densify": {"field": "v", "partitionByFields": ["p"], "range": {"step": 2, "bounds": "full"}}}, {"$sort": {"p": 1, "v": 1}}]`,
			`[{"p": 0, "v": 0}, {"p": 0, "v": 2}, {"p": 0, "v": 4}, {"p": 0, "v": 5}, {"p": 1, "v": 0}, {"p": 1, "v": 2}, {"p": 1, "v": 4}]`},
		{"two partition fields, one nested", `[{"a": 1, "x": {"y": 1, "z": 9}, "v": 0}, {"a": 1, "x": {"y": 1}, "v": 2}, {"a": 1, "v": 0}, {"a": 1, "v": 2}]`,
			`[{"$densify": {"field": "v", "partitionByFields": ["a", "x.y"], "range": {"step": 1, "bounds": "partition"}}}]`,
			`[{"a": 1, "v": 0}, {"a": 1, "x": {}, "v": 1}, {"a": 1, "v": 2}, {"a": 1, "x": {"y": 1, "z": 9}, "v": 0}, {"a": 1, "x": {"y": 1}, "v": 1}, {"a": 1, "x": {"y": 1}, "v": 2}]`},

		{"a partition path below another one makes it an object", `[{"a": {"b": 1, "c": 2}, "v": 0}, {"a": {"b": 1, "c": 3}, "v": 2}, {"a": 5, "v": 0}, {"a": 5, "v": 2}]`,
			`[{"$densify": {"field": "v", "partitionByFields": ["a", "a.b"], "range": {"step": 1, "bounds": "partition"}}}]`,
			`[{"a": 5, "v": 0}, {"a": {}, "v": 1}, {"a": 5, "v": 2}, {"a": {"b": 1, "c": 2}, "v": 0}, {"a": {"b": 1}, "v": 1}, {"a": {"b": 1, "c": 3}, "v": 2}]`},
		{"a partition path above another one replaces it", `[{"a": {"b": 1, "c": 2}, "v": 0}, {"a": {"b": 1, "c": 3}, "v": 2}, {"a": 5, "v": 0}, {"a": 5, "v": 2}]`,
			`[{"$densify": {"field": "v", "partitionByFields": ["a.b", "a"], "range": {"step": 1, "bounds": "partition"}}}]`,
			`[{"a": 5, "v": 0}, {"a": 5, "v": 1}, {"a": 5, "v": 2}, {"a": {"b": 1, "c": 2}, "v": 0}, {"a": {"b": 1, "c": 3}, "v": 2}]`},

		// Explicit ranges (explicit_range.js, partitions.js).
		{"a range: below and above pass through", `[{"v": 0}, {"v": 3}, {"v": 7}]`,
			`[{"$densify": {"field": "v", "range": {"step": 1, "bounds": [2, 5]}}}]`,
			`[{"v": 0}, {"v": 2}, {"v": 3}, {"v": 4}, {"v": 7}]`},
		{"a range filled after the last document", `[{"v": 1}]`,
			`[{"$densify": {"field": "v", "range": {"step": 1, "bounds": [0, 5]}}}]`,
			`[{"v": 0}, {"v": 1}, {"v": 2}, {"v": 3}, {"v": 4}]`},
		{"a range over no documents", `[]`,
			`[{"$densify": {"field": "v", "range": {"step": 2, "bounds": [0, 5]}}}]`,
			`[{"v": 0}, {"v": 2}, {"v": 4}]`},
		{"a range of one value", `[]`,
			`[{"$densify": {"field": "v", "range": {"step": 1, "bounds": [3, 3]}}}]`,
			`[{"v": 3}]`},
		{"a range on its own steps", `[{"v": 3}, {"v": 4}]`,
			`[{"$densify": {"field": "v", "range": {"step": 2, "bounds": [0, 8]}}}]`,
			`[{"v": 0}, {"v": 2}, {"v": 3}, {"v": 4}, {"v": 6}]`},
		{"a range with partitions outside it", `[{"p": 0, "v": 0}, {"p": 1, "v": 4}]`,
			`[{"$densify": {"field": "v", "partitionByFields": ["p"], "range": {"step": 1, "bounds": [2, 3]}}}, {"$sort": {"p": 1, "v": 1}}]`,
			`[{"p": 0, "v": 0}, {"p": 0, "v": 2}, {"p": 1, "v": 2}, {"p": 1, "v": 4}]`},
		{"a range off the upper bound's step", `[{"p": 0, "v": 0}, {"p": 1, "v": 10}]`,
			`[{"$densify": {"field": "v", "partitionByFields": ["p"], "range": {"step": 2, "bounds": [2, 5]}}}, {"$sort": {"p": 1, "v": 1}}]`,
			`[{"p": 0, "v": 0}, {"p": 0, "v": 2}, {"p": 0, "v": 4}, {"p": 1, "v": 2}, {"p": 1, "v": 4}, {"p": 1, "v": 10}]`},
		{"a range, partitions on both sides", `[{"p": 0, "v": 0}, {"p": 1, "v": 5}, {"p": 2, "v": 10}]`,
			`[{"$densify": {"field": "v", "partitionByFields": ["p"], "range": {"step": 2, "bounds": [4, 8]}}}, {"$sort": {"v": 1, "p": 1}}]`,
			`[{"p": 0, "v": 0}, {"p": 0, "v": 4}, {"p": 1, "v": 4}, {"p": 2, "v": 4}, {"p": 1, "v": 5}, {"p": 0, "v": 6}, {"p": 1, "v": 6}, {"p": 2, "v": 6}, {"p": 2, "v": 10}]`},

		// Dates.
		{"hours", `[{"t": ` + at("2026-11-27T03:00:00") + `}, {"t": ` + at("2026-11-27T00:00:00") + `}]`,
			`[{"$densify": {"field": "t", "range": {"step": 1, "unit": "hour", "bounds": "full"}}}]`,
			`[{"t": ` + at("2026-11-27T00:00:00") + `}, {"t": ` + at("2026-11-27T01:00:00") + `}, {"t": ` + at("2026-11-27T02:00:00") + `}, {"t": ` + at("2026-11-27T03:00:00") + `}]`},
		{"months step from the last one (a month's end moves the day)", `[{"t": ` + day("2021-01-31") + `}, {"t": ` + day("2021-05-31") + `}]`,
			`[{"$densify": {"field": "t", "range": {"step": 1, "unit": "month", "bounds": "full"}}}]`,
			`[{"t": ` + day("2021-01-31") + `}, {"t": ` + day("2021-02-28") + `}, {"t": ` + day("2021-03-28") + `}, {"t": ` + day("2021-04-28") + `}, {"t": ` + day("2021-05-28") + `}, {"t": ` + day("2021-05-31") + `}]`},
		{"years over partitions", `[{"p": 0, "t": ` + day("2021-01-01") + `}, {"p": 1, "t": ` + day("2025-01-01") + `}]`,
			`[{"$densify": {"field": "t", "partitionByFields": ["p"], "range": {"step": 2, "unit": "year", "bounds": "full"}}}, {"$sort": {"p": 1, "t": 1}}]`,
			`[{"p": 0, "t": ` + day("2021-01-01") + `}, {"p": 0, "t": ` + day("2023-01-01") + `}, {"p": 0, "t": ` + day("2025-01-01") + `}, {"p": 1, "t": ` + day("2021-01-01") + `}, {"p": 1, "t": ` + day("2023-01-01") + `}, {"p": 1, "t": ` + day("2025-01-01") + `}]`},
		{"a date range", `[{"t": ` + day("2021-01-02") + `}, {"t": ` + day("2021-01-09") + `}]`,
			`[{"$densify": {"field": "t", "range": {"step": 2, "unit": "day", "bounds": [` + day("2021-01-01") + `, ` + day("2021-01-06") + `]}}}]`,
			`[{"t": ` + day("2021-01-01") + `}, {"t": ` + day("2021-01-02") + `}, {"t": ` + day("2021-01-03") + `}, {"t": ` + day("2021-01-05") + `}, {"t": ` + day("2021-01-09") + `}]`},
		{"weeks", `[{"t": ` + day("2021-01-01") + `}, {"t": ` + day("2021-01-20") + `}]`,
			`[{"$densify": {"field": "t", "range": {"step": 1, "unit": "week", "bounds": "full"}}}]`,
			`[{"t": ` + day("2021-01-01") + `}, {"t": ` + day("2021-01-08") + `}, {"t": ` + day("2021-01-15") + `}, {"t": ` + day("2021-01-20") + `}]`},
	}
	checkPipelines(t, cases)
}

// TestDensifyExplain checks that $densify stands for a $sort (on the
// partitions unless the bounds are "full", then the field) and a
// $_internalDensify, as mongod's explain shows it (desugar.js).
func TestDensifyExplain(t *testing.T) {
	t.Parallel()
	cases := []struct{ stage, want string }{
		{`{"$densify": {"field": "a", "range": {"step": 1.0, "bounds": "full"}}}`,
			`[{"$sort": {"a": 1}}, {"$_internalDensify": {"field": "a", "partitionByFields": [], "range": {"step": 1.0, "bounds": "full"}}}]`},
		{`{"$densify": {"field": "a", "partitionByFields": ["b", "c"], "range": {"step": 1.0, "bounds": "full"}}}`,
			`[{"$sort": {"a": 1}}, {"$_internalDensify": {"field": "a", "partitionByFields": ["b", "c"], "range": {"step": 1.0, "bounds": "full"}}}]`},
		{`{"$densify": {"field": "a", "partitionByFields": ["b", "c"], "range": {"step": 1, "bounds": "partition", "unit": "hour"}}}`,
			`[{"$sort": {"b": 1, "c": 1, "a": 1}}, {"$_internalDensify": {"field": "a", "partitionByFields": ["b", "c"], "range": {"step": 1, "bounds": "partition", "unit": "hour"}}}]`},
		{`{"$densify": {"field": "a", "partitionByFields": ["b"], "range": {"step": 1, "bounds": [0, 10]}}}`,
			`[{"$sort": {"b": 1, "a": 1}}, {"$_internalDensify": {"field": "a", "partitionByFields": ["b"], "range": {"step": 1, "bounds": [0, 10]}}}]`},
	}
	for _, c := range cases {
		p, err := Parse(bson.A{val(t, c.stage)})
		if err != nil {
			t.Errorf("%s: %v", c.stage, err)
			continue
		}
		got := p.Stages()
		want := val(t, c.want).(bson.A)
		if len(got) != len(want) {
			t.Errorf("%s: stages %v, want %s", c.stage, got, c.want)
			continue
		}
		var docs []bson.D
		for _, s := range got {
			docs = append(docs, s.(bson.D))
		}
		if !same(docs, want) {
			t.Errorf("%s: stages %v, want %s", c.stage, got, c.want)
		}
	}
}

// TestDensifyErrors checks each refusal of $densify with mongod's code:
// the IDL's (9, 14, 40413-40415), RangeStatement's, FieldPath's, the
// partition checks, and at run time the field's type (5733201, 6053600).
func TestDensifyErrors(t *testing.T) {
	t.Parallel()
	d1, d2 := day("2020-01-01"), day("2020-01-02")
	cases := []struct {
		stage string
		code  int
	}{
		{`1`, 9},
		{`[]`, 9},
		{`{}`, 40414},
		{`{"field": "a"}`, 40414},
		{`{"range": {"step": 1, "bounds": "full"}}`, 40414},
		{`{"field": "a", "range": {"step": 1}}`, 40414},
		{`{"field": "a", "range": {"bounds": "full"}}`, 40414},
		{`{"field": 1.0, "range": {"step": 1, "bounds": "full"}}`, 14},
		{`{"field": "a", "range": {"step": "x", "bounds": "full"}}`, 14},
		{`{"field": "a", "partitionByFields": "b", "range": {"step": 1, "bounds": "full"}}`, 14},
		{`{"field": "a", "partitionByFields": [1], "range": {"step": 1, "bounds": "full"}}`, 14},
		{`{"field": "a", "range": {"step": 1, "bounds": [` + d1 + `, ` + d2 + `], "unit": 1000}}`, 14},
		{`{"field": "a", "range": 1}`, 14},
		{`{"field": "a", "range": {"step": 1, "bounds": "full"}, "bogus": 1}`, 40415},
		{`{"field": "a", "range": {"step": 1, "bounds": "full", "bogus": 1}}`, 40415},
		{`{"field": "a", "field": "b", "range": {"step": 1, "bounds": "full"}}`, 40413},
		{`{"field": "a", "range": {"step": -1, "bounds": [0, 1]}}`, 5733401},
		{`{"field": "a", "range": {"step": 0, "bounds": "full"}}`, 5733401},
		{`{"field": "a", "range": {"step": {"$numberDouble": "NaN"}, "bounds": "full"}}`, 5733401},
		{`{"field": "a", "range": {"step": 1.5, "bounds": [` + d1 + `, ` + d2 + `], "unit": "second"}}`, 6586400},
		{`{"field": "a", "range": {"step": 1, "bounds": "full", "unit": "fortnight"}}`, 9},
		{`{"field": "a", "range": {"step": 1, "bounds": [` + d1 + `], "unit": "second"}}`, 5733403},
		{`{"field": "a", "range": {"step": 1, "bounds": [0, 1, 2]}}`, 5733403},
		{`{"field": "a", "range": {"step": 1, "bounds": [2, 1]}}`, 5733402},
		{`{"field": "a", "range": {"step": 1, "bounds": [` + d2 + `, ` + d1 + `], "unit": "second"}}`, 5733402},
		{`{"field": "a", "range": {"step": 1, "bounds": [` + d1 + `, 1], "unit": "second"}}`, 5733402},
		{`{"field": "a", "range": {"step": 1, "bounds": [1, 2], "unit": "second"}}`, 5733409},
		{`{"field": "a", "range": {"step": 1, "bounds": [1, ` + d1 + `]}}`, 5733406},
		{`{"field": "a", "range": {"step": 1, "bounds": [` + d1 + `, {"$timestamp": {"t": 1, "i": 1}}], "unit": "second"}}`, 5733405},
		{`{"field": "a", "range": {"step": 1, "bounds": [` + d1 + `, ` + d2 + `]}}`, 5733410},
		{`{"field": "a", "range": {"step": 1.0, "bounds": [0, 10]}}`, 5876900},
		{`{"field": "a", "range": {"step": 1, "bounds": [0, 10.0]}}`, 5876900},
		{`{"field": "a", "range": {"step": 1, "bounds": ["a", "b"]}}`, 5946800},
		{`{"field": "a", "range": {"step": 1, "bounds": "bogus"}}`, 5946802},
		{`{"field": "a", "range": {"step": 1, "bounds": 5}}`, 5733404},
		{`{"field": "$a", "range": {"step": 1, "bounds": [0, 1]}}`, 16410},
		{`{"field": "a", "partitionByFields": ["$b"], "range": {"step": 1, "bounds": [0, 1]}}`, 16410},
		{`{"field": "", "range": {"step": 1, "bounds": "full"}}`, 40352},
		{`{"field": "a..b", "range": {"step": 1, "bounds": "full"}}`, 15998},
		{`{"field": "a", "partitionByFields": [], "range": {"step": 1, "bounds": "partition"}}`, 5733408},
		{`{"field": "a", "range": {"step": 1, "bounds": "partition"}}`, 5733408},
		{`{"field": "a", "partitionByFields": ["a"], "range": {"step": 1, "bounds": "full"}}`, 8993000},
		{`{"field": "a", "partitionByFields": ["a.b"], "range": {"step": 1, "bounds": "full"}}`, 8993000},
		{`{"field": "a.b", "partitionByFields": ["a"], "range": {"step": 1, "bounds": "full"}}`, 9554500},
	}
	for _, c := range cases {
		if _, err := run(t, `[]`, `[{"$densify": `+c.stage+`}]`, Options{}); codeOf(err) != c.code {
			t.Errorf("%s: %v, want code %d", c.stage, err, c.code)
		}
	}
	// Prefixes that are not whole fields are not overlaps.
	if _, err := run(t, `[]`, `[{"$densify": {"field": "a", "partitionByFields": ["ab"], "range": {"step": 1, "bounds": "full"}}}]`, Options{}); err != nil {
		t.Errorf("field a, partition ab: %v", err)
	}

	runtime := []struct {
		docs, stage string
		code        int
	}{
		{`[{"a": 1}, {"a": "x"}]`, `{"field": "a", "range": {"step": 1, "bounds": "full"}}`, 5733201},
		{`[{"a": [1, 2]}]`, `{"field": "a", "range": {"step": 1, "bounds": "full"}}`, 5733201},
		{`[{"a": 1}]`, `{"field": "a", "range": {"step": 1, "bounds": "full", "unit": "day"}}`, 6053600},
		{`[{"a": ` + d1 + `}]`, `{"field": "a", "range": {"step": 1, "bounds": "full"}}`, 6053600},
		{`[{"a": 1}]`, `{"field": "a", "range": {"step": 1, "bounds": [` + d1 + `, ` + d2 + `], "unit": "day"}}`, 6053600},
	}
	for _, c := range runtime {
		if _, err := run(t, c.docs, `[{"$densify": `+c.stage+`}]`, Options{}); codeOf(err) != c.code {
			t.Errorf("%s over %s: %v, want code %d", c.stage, c.docs, err, c.code)
		}
	}
}

// TestDensifyLimits checks the bounds on what $densify may do: the
// documents it generates (5897900, internalQueryMaxAllowedDensifyDocs),
// the memory of its $sort (292) and of its partitions (6007200), and
// that a tiny step cannot run away.
func TestDensifyLimits(t *testing.T) {
	t.Parallel()
	tiny := `[{"$densify": {"field": "v", "range": {"step": 1e-9, "bounds": "full"}}}]`
	if _, err := run(t, `[{"v": 0.0}, {"v": 1.0}]`, tiny, Options{MaxDensifyDocs: 1000}); codeOf(err) != 5897900 {
		t.Errorf("a step of 1e-9 with a limit of 1000: %v, want 5897900", err)
	}
	// Exactly the limit is allowed.
	if out, err := run(t, `[{"v": 0}, {"v": 11}]`, `[{"$densify": {"field": "v", "range": {"step": 1, "bounds": "full"}}}]`, Options{MaxDensifyDocs: 10}); err != nil || len(out) != 12 {
		t.Errorf("10 generated with a limit of 10: %d documents, %v", len(out), err)
	}
	if _, err := run(t, `[{"v": 0}, {"v": 12}]`, `[{"$densify": {"field": "v", "range": {"step": 1, "bounds": "full"}}}]`, Options{MaxDensifyDocs: 10}); codeOf(err) != 5897900 {
		t.Errorf("11 generated with a limit of 10: %v, want 5897900", err)
	}
	// The default limit, read document by document.
	p, err := Parse(val(t, tiny).(bson.A))
	if err != nil {
		t.Fatal(err)
	}
	c := p.Open(sliceSource([]bson.D{{{Key: "v", Value: 0.0}}, {{Key: "v", Value: 1.0}}}), Options{})
	n := 0
	for {
		d, err := c.Next(context.Background())
		if err != nil {
			if codeOf(err) != 5897900 {
				t.Errorf("default limit: %v, want 5897900", err)
			}
			break
		}
		if d == nil {
			t.Errorf("a step of 1e-9 ended after %d documents", n)
			break
		}
		n++
	}
	if n < DefaultMaxDensifyDocs || n > DefaultMaxDensifyDocs+2 {
		t.Errorf("default limit: %d documents before the error, want about %d", n, DefaultMaxDensifyDocs)
	}

	// The $sort it stands for holds its input within the memory limit.
	big := `[{"v": 1, "s": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}, {"v": 3, "s": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}]`
	if _, err := run(t, big, `[{"$densify": {"field": "v", "range": {"step": 1, "bounds": "full"}}}]`, Options{MaxMemoryBytes: 100}); codeOf(err) != 292 {
		t.Errorf("$densify's $sort over 100 bytes: %v, want 292", err)
	}

	// The partitions it remembers, within the memory limit.
	p, err = Parse(val(t, `[{"$densify": {"field": "v", "partitionByFields": ["p"], "range": {"step": 1, "bounds": "partition"}}}]`).(bson.A))
	if err != nil {
		t.Fatal(err)
	}
	var in []bson.D
	for i := range 50 {
		in = append(in, bson.D{{Key: "p", Value: int32(i)}, {Key: "v", Value: int32(0)}})
	}
	o := Options{MaxMemoryBytes: 1000}
	it := p.stages[1].make(sliceSource(in), &o)
	for {
		d, err := it.next(context.Background())
		if err != nil {
			if codeOf(err) != 6007200 {
				t.Errorf("50 partitions in 1000 bytes: %v, want 6007200", err)
			}
			break
		}
		if d == nil {
			t.Error("50 partitions fit in 1000 bytes")
			break
		}
	}
}

// TestDensifyGenerateChecks checks mongod's checks before generating
// below the partition fields: never inside an array (5733307) nor over
// a value that is not a document (5733308). The parse-time checks on
// partitionByFields (8993000, 9554500) keep them from failing in a
// pipeline, so they are checked directly.
func TestDensifyGenerateChecks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fields, path string
		code         int
	}{
		{`{"a": [1]}`, "a.b", 5733307},
		{`{"a": {"b": [1]}}`, "a.b.c", 5733307},
		{`{"a": 1}`, "a.b", 5733308},
		{`{"a": {"b": 1}}`, "a.b.c", 5733308},
		{`{"a": {"c": 1}}`, "a.b", 0},
		{`{"x": 1}`, "a.b", 0},
		{`{}`, "a", 0},
	}
	for _, c := range cases {
		parts, err := lookupPath(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if err := canGenerate(val(t, c.fields).(bson.D), parts); codeOf(err) != c.code {
			t.Errorf("%s at %s: %v, want code %d", c.path, c.fields, err, c.code)
		}
	}
}

// TestDensifyJstests replays mongod's jstests whose documents are many
// (doc_on_bound.js, decimal.js, generated_limit.js): the expected
// documents are the tests', ordered by a final $sort.
func TestDensifyJstests(t *testing.T) {
	t.Parallel()
	// times lists documents of September 2023 as "DDTHH" (generated) or
	// "DDTHHo" (from the input, orig: true).
	times := func(s string) string {
		var out []string
		for _, f := range strings.Fields(s) {
			d := `{"time": {"$date": "2023-09-` + strings.TrimSuffix(f, "o") + `:00:00Z"}`
			if strings.HasSuffix(f, "o") {
				d += `, "orig": true`
			}
			out = append(out, d+"}")
		}
		return "[" + strings.Join(out, ", ") + "]"
	}
	input := func(s string) string {
		var out []string
		for _, f := range strings.Fields(s) {
			key, at, _ := strings.Cut(f, "@")
			out = append(out, `{"key": `+key+`, "time": {"$date": "2023-09-`+at+`Z"}, "orig": true}`)
		}
		return "[" + strings.Join(out, ", ") + "]"
	}
	tail := `, {"$sort": {"time": 1, "orig": 1}}, {"$project": {"_id": 0, "time": 1, "orig": 1}}]`
	cases := []struct {
		name, docs, densify, want string
	}{
		{"a document on the lower bound, partitioned", input("1@12T00:00:00 1@13T00:00:00 1@14T00:00:00 1@15T00:00:00"),
			`{"field": "time", "partitionByFields": ["key"], "range": {"step": 6, "unit": "hour", "bounds": [{"$date": "2023-09-13T00:00:00Z"}, {"$date": "2023-09-16T00:00:00Z"}]}}`,
			times("12T00o 13T00o 13T06 13T12 13T18 14T00o 14T06 14T12 14T18 15T00o 15T06 15T12 15T18")},
		{"a document on the lower bound", input("1@12T00:00:00 1@13T00:00:00 2@13T00:00:10 1@14T00:00:00 1@15T00:00:00"),
			`{"field": "time", "range": {"step": 6, "unit": "hour", "bounds": [{"$date": "2023-09-13T00:00:00Z"}, {"$date": "2023-09-16T00:00:00Z"}]}}`,
			strings.Replace(times("12T00o 13T00o 13T06 13T12 13T18 14T00o 14T06 14T12 14T18 15T00o 15T06 15T12 15T18"),
				`{"time": {"$date": "2023-09-13T06:00:00Z"}}`, `{"time": {"$date": "2023-09-13T00:00:10Z"}, "orig": true}, {"time": {"$date": "2023-09-13T06:00:00Z"}}`, 1)},
		{"documents on and off the full bounds", input("1@12T00:00:00 2@12T04:00:00 1@13T00:00:00 1@14T00:00:00 1@15T00:00:00 2@15T18:00:00"),
			`{"field": "time", "partitionByFields": ["key"], "range": {"step": 6, "unit": "hour", "bounds": "full"}}`,
			times("12T00 12T00o 12T04o 12T06 12T06 12T12 12T12 12T18 12T18 13T00 13T00o 13T06 13T06 13T12 13T12 13T18 13T18 " +
				"14T00 14T00o 14T06 14T06 14T12 14T12 14T18 14T18 15T00 15T00o 15T06 15T06 15T12 15T12 15T18 15T18o")},
	}
	for _, c := range cases {
		out, err := run(t, c.docs, `[{"$densify": `+c.densify+`}`+tail, Options{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !same(out, val(t, c.want)) {
			t.Errorf("%s: got %v, want %s", c.name, out, c.want)
		}
	}

	// Decimals: the sum's type, compared by value (decimal.js).
	decimals := []struct {
		name, docs, step, want string
	}{
		{"decimal values", `[{"val": {"$numberDecimal": "0"}}, {"val": {"$numberDecimal": "3"}}]`, `1`,
			`[{"val": {"$numberDecimal": "0"}}, {"val": {"$numberDecimal": "1"}}, {"val": {"$numberDecimal": "2"}}, {"val": {"$numberDecimal": "3"}}]`},
		{"the last value's type", `[{"val": {"$numberDecimal": "0"}}, {"val": 2.0}, {"val": {"$numberDecimal": "4"}}]`, `1`,
			`[{"val": {"$numberDecimal": "0"}}, {"val": {"$numberDecimal": "1"}}, {"val": 2.0}, {"val": 3.0}, {"val": {"$numberDecimal": "4"}}]`},
		{"a decimal step", `[{"val": {"$numberDecimal": "0"}}, {"val": 0.5}, {"val": {"$numberDecimal": "1"}}]`, `{"$numberDecimal": "0.1"}`,
			`[{"val": {"$numberDecimal": "0"}}, {"val": {"$numberDecimal": "0.1"}}, {"val": {"$numberDecimal": "0.2"}}, {"val": {"$numberDecimal": "0.3"}}, {"val": {"$numberDecimal": "0.4"}}, {"val": 0.5}, ` +
				`{"val": {"$numberDecimal": "0.6"}}, {"val": {"$numberDecimal": "0.7"}}, {"val": {"$numberDecimal": "0.8"}}, {"val": {"$numberDecimal": "0.9"}}, {"val": {"$numberDecimal": "1"}}]`},
		{"a decimal step over ints", `[{"val": 0}, {"val": 1}]`, `{"$numberDecimal": "0.5"}`,
			`[{"val": 0}, {"val": {"$numberDecimal": "0.5"}}, {"val": 1}]`},
	}
	for _, c := range decimals {
		out, err := run(t, c.docs, `[{"$densify": {"field": "val", "range": {"step": `+c.step+`, "bounds": "full"}}}]`, Options{})
		want := val(t, c.want).(bson.A)
		ok := err == nil && len(out) == len(want)
		for i := 0; ok && i < len(out); i++ {
			w := want[i].(bson.D)
			ok = document.Compare(out[i], w) == 0 && document.TypeName(out[i][0].Value) == document.TypeName(w[0].Value)
		}
		if !ok {
			t.Errorf("%s: got %v, %v; want %s", c.name, out, err, c.want)
		}
	}
	if _, err := run(t, `[]`, `[{"$densify": {"field": "val", "range": {"step": 0.1, "bounds": [{"$numberDecimal": "0.1"}, {"$numberDecimal": "0.9"}]}}}]`, Options{}); codeOf(err) != 5876900 {
		t.Errorf("a double step with decimal bounds: %v, want 5876900", err)
	}

	// What counts towards the limit: generated documents only, across
	// partitions (generated_limit.js, with a limit of 10 or 20).
	limits := []struct {
		docs, densify string
		max           int64
		code          int
	}{
		{`[]`, `{"field": "val", "range": {"step": 1, "bounds": [0, 11]}}`, 10, 5897900},
		{`[]`, `{"field": "val", "range": {"step": 4, "bounds": [0, 45]}}`, 10, 5897900},
		{`[]`, `{"field": "val", "range": {"step": 1, "bounds": [0, 10]}}`, 10, 0},
		{`[{"val": 0, "part": 1}, {"val": 12, "part": 1}]`, `{"field": "val", "range": {"step": 1, "bounds": "full"}}`, 10, 5897900},
		{`[{"val": 0, "part": 1}, {"val": 12, "part": 1}, {"val": 0, "part": 2}, {"val": 12, "part": 2}]`,
			`{"field": "val", "partitionByFields": ["part"], "range": {"step": 1, "bounds": "partition"}}`, 20, 5897900},
		{`[{"val": 0, "part": 1}, {"val": 12, "part": 1}, {"val": 5, "part": 1}]`, `{"field": "val", "range": {"step": 1, "bounds": "full"}}`, 10, 0},
	}
	for _, c := range limits {
		if _, err := run(t, c.docs, `[{"$densify": `+c.densify+`}]`, Options{MaxDensifyDocs: c.max}); codeOf(err) != c.code {
			t.Errorf("%s over %s with a limit of %d: %v, want code %d", c.densify, c.docs, c.max, err, c.code)
		}
	}
}

// TestDensifyModel runs the numeric scenarios of mongod's
// explicit_range.js and full_range.js against their model
// (libs/densify_in_js.js): without partitions, the values generated are
// those of the grid lo + k*step within [lo, hi) that no document holds
// (for "full", lo and hi are the smallest and largest values), output in
// order after the documents without a value.
func TestDensifyModel(t *testing.T) {
	t.Parallel()
	onStep := func(min, max, step int) []int {
		var out []int
		for i := min; i < max; i++ {
			if (i-min)%step == 0 {
				out = append(out, i)
			}
		}
		return out
	}
	pred := func(min, max int) []int {
		var out []int
		for i := min; i < max; i++ {
			if i%3 == 0 || i%7 == 0 {
				out = append(out, i)
			}
		}
		return out
	}
	scenarios := []struct {
		docs   []int
		lo, hi int
		full   bool
	}{
		{nil, 0, 10, false},
		{[]int{0, 30}, 10, 25, false},
		{onStep(2, 11, 2), 1, 12, false},
		{onStep(2, 11, 2), 1, 11, false},
		{onStep(2, 11, 2), 1, 10, false},
		{onStep(-20, -1, 2), -10, -1, false},
		{onStep(-20, -1, 2), -10, 0, false},
		{onStep(-20, -1, 2), -10, -2, false},
		{onStep(0, 10, 3), 5, 15, false},
		{onStep(20, 30, 2), 10, 25, false},
		{onStep(20, 30, 2), 10, 35, false},
		{pred(0, 25), 10, 20, false},
		{pred(0, 30), 10, 25, false},
		{onStep(0, 10, 2), 0, 0, true},
		{pred(-5, 31), 0, 0, true},
		{[]int{-3, 0, 1, 17}, 0, 0, true},
	}
	for _, sc := range scenarios {
		for _, step := range []int{1, 2, 3, 4, 5, 7} {
			var docs []string
			for i, v := range sc.docs {
				docs = append(docs, fmt.Sprintf(`{"val": %d}`, v))
				if i%4 == 1 {
					docs = append(docs, `{"val": null}`, `{}`)
				}
			}
			bounds := `"full"`
			lo, hi := sc.lo, sc.hi
			if sc.full {
				if len(sc.docs) > 0 {
					lo, hi = slices.Min(sc.docs), slices.Max(sc.docs)
				}
			} else {
				bounds = fmt.Sprintf("[%d, %d]", lo, hi)
			}
			// The model: the documents in order, the grid's values that no
			// document holds.
			var want []string
			for range 2 * ((len(sc.docs) + 2) / 4) {
				want = append(want, "-")
			}
			vals := slices.Sorted(slices.Values(sc.docs))
			for v := lo; v < hi; v += step {
				if !slices.Contains(vals, v) {
					vals = append(vals, v)
				}
			}
			if sc.full && len(sc.docs) == 0 {
				vals = nil
			}
			slices.Sort(vals)
			for _, v := range vals {
				want = append(want, strconv.Itoa(v))
			}
			pipeline := fmt.Sprintf(`[{"$densify": {"field": "val", "range": {"step": %d, "bounds": %s}}}]`, step, bounds)
			out, err := run(t, "["+strings.Join(docs, ", ")+"]", pipeline, Options{})
			var got []string
			for _, d := range out {
				v, ok := docGet(d, "val")
				if n, isInt := v.(int32); ok && isInt {
					got = append(got, strconv.Itoa(int(n)))
				} else {
					got = append(got, "-")
				}
			}
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("%s over %v: got %v, %v\nwant %v", pipeline, sc.docs, got, err, want)
			}
		}
	}
}
