package agg

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

const words = `[{"_id": 1, "word": "hello", "val": 1}, {"_id": 2, "word": "world", "val": 1},
	{"_id": 3, "word": "world", "val": 1}, {"_id": 4, "word": "hello", "val": 1}, {"_id": 5, "word": "hi", "val": 1}]`

// TestFunction runs jstests/aggregation/expressions/function.js's cases
// as data: $function's body as a string or as code, its arguments, what
// its results convert to.
func TestFunction(t *testing.T) {
	t.Parallel()
	values := `[{"_id": 0, "value": 0}, {"_id": 1, "value": 1}, {"_id": 2, "value": 2}]`
	checkPipelines(t, []pipelineCase{
		{"code body", values, `[{"$project": {"_id": 0, "newValue": {"$function": {"args": ["$value", -1], "body": {"$code": "function f_finalize(first, second) { return first + second; }"}, "lang": "js"}}}}]`,
			`[{"newValue": -1.0}, {"newValue": 0.0}, {"newValue": 1.0}]`},
		{"string body", values, `[{"$project": {"_id": 0, "n": {"$function": {"args": ["$value"], "body": "function(v) { return v * 2 }", "lang": "js"}}}}]`,
			`[{"n": 0.0}, {"n": 2.0}, {"n": 4.0}]`},
		{"expression body", values, `[{"$match": {"_id": 1}}, {"$project": {"_id": 0, "n": {"$function": {"args": [], "body": "40 + 2", "lang": "js"}}}}]`,
			`[{"n": 42.0}]`},
		{"missing argument is null", values, `[{"$match": {"_id": 1}}, {"$project": {"_id": 0, "n": {"$function": {"args": ["$nosuch"], "body": "function(x) { return x === null }", "lang": "js"}}}}]`,
			`[{"n": true}]`},
		{"args from a field", `[{"_id": 1, "a": [1, 2, 3]}]`, `[{"$project": {"_id": 0, "n": {"$function": {"args": "$a", "body": "function(x, y, z) { return [z, y, x] }", "lang": "js"}}}}]`,
			`[{"n": [3.0, 2.0, 1.0]}]`},
		{"types", `[{"_id": 1, "i": 5, "l": {"$numberLong": "7"}, "d": {"$date": "2026-01-01T00:00:00Z"}, "o": {"$oid": "000000000000000000000001"}}]`,
			`[{"$project": {"_id": 0, "n": {"$function": {"args": ["$$ROOT"], "body": "function(r) { return {i: NumberInt(r.i), l: r.l, sum: r.l + 1, d: r.d, iso: r.d.toISOString(), o: r.o.str, s: r.o, u: undefined} }", "lang": "js"}}}}]`,
			`[{"n": {"i": 5, "l": {"$numberLong": "7"}, "sum": 8.0, "d": {"$date": "2026-01-01T00:00:00Z"}, "iso": "2026-01-01T00:00:00.000Z", "o": "000000000000000000000001", "s": {"$oid": "000000000000000000000001"}, "u": {"$undefined": true}}}]`},
		{"in $expr", values, `[{"$match": {"$expr": {"$function": {"args": ["$value"], "body": "function(v) { return v >= 1 }", "lang": "js"}}}}, {"$project": {"_id": 1}}]`,
			`[{"_id": 1}, {"_id": 2}]`},
		{"unchanged document", `[{"_id": 1, "a": {"b": 1, "c": [1, {"d": 2}]}}]`, `[{"$replaceWith": {"$function": {"args": ["$$ROOT"], "body": "function(d) { return d }", "lang": "js"}}}]`,
			`[{"_id": 1, "a": {"b": 1, "c": [1, {"d": 2}]}}]`},
		{"changed field keeps int32", `[{"_id": 1, "a": 1, "b": 2}]`, `[{"$replaceWith": {"$function": {"args": ["$$ROOT"], "body": "function(d) { d.a = d.a + 1; d.b = 2.5; d.c = 3; return d }", "lang": "js"}}}]`,
			`[{"_id": 1, "a": 2, "b": 2.5, "c": 3.0}]`},
	})
	checkCodes(t, values, []codeCase{
		{`[{"$project": {"x": {"$function": "s"}}}]`, 31260},
		{`[{"$project": {"x": {"$function": {"args": [], "lang": "js"}}}}]`, 31261},
		{`[{"$project": {"x": {"$function": {"body": "$value", "args": [], "lang": "js"}}}}]`, 31432},
		{`[{"$project": {"x": {"$function": {"body": 1, "args": [], "lang": "js"}}}}]`, 31262},
		{`[{"$project": {"x": {"$function": {"body": "1", "lang": "js"}}}}]`, 31263},
		{`[{"$project": {"x": {"$function": {"body": "1", "args": []}}}}]`, 31418},
		{`[{"$project": {"x": {"$function": {"body": "1", "args": [], "lang": "python"}}}}]`, 31419},
		{`[{"$project": {"x": {"$function": {"body": "1", "args": "$value", "lang": "js"}}}}]`, 31266},
		{`[{"$project": {"x": {"$function": {"body": "function(", "args": [], "lang": "js"}}}}]`, 139},
		{`[{"$project": {"x": {"$function": {"body": "isAdult(1)", "args": [], "lang": "js"}}}}]`, 139},
		{`[{"$project": {"x": {"$function": {"body": "function() { throw new Error('no') }", "args": [], "lang": "js"}}}}]`, 139},
	})
}

// accumulatorGroup is jstests/aggregation/accumulators/accumulator_js.js's
// word count.
const accumulatorGroup = `[{"$group": {"_id": "$word", "wordCount": {"$accumulator": {
	"init": {"$code": "function() { return 0; }"},
	"accumulateArgs": ["$val"],
	"accumulate": {"$code": "function(state, val) { return state + val; }"},
	"merge": {"$code": "function(state1, state2) { return state1 + state2; }"},
	"finalize": {"$code": "function(state) { return state; }"}}}}}, {"$sort": {"_id": 1}}]`

// TestAccumulator runs accumulator_js.js as data: state carried between
// calls, functions as strings or code, finalize optional, initArgs
// evaluated against the group key, $bucketAuto, and the errors.
func TestAccumulator(t *testing.T) {
	t.Parallel()
	wordCounts := `[{"_id": "hello", "wordCount": 2.0}, {"_id": "hi", "wordCount": 1.0}, {"_id": "world", "wordCount": 2.0}]`
	noFinalize := strings.Replace(accumulatorGroup, `,
	"finalize": {"$code": "function(state) { return state; }"}`, "", 1)
	checkPipelines(t, []pipelineCase{
		{"code", words, accumulatorGroup, wordCounts},
		{"strings", words, strings.NewReplacer(`{"$code": `, ``, `;" }`, `;"`).Replace(strings.ReplaceAll(accumulatorGroup, `"}`, `"`)), wordCounts},
		{"no finalize", words, noFinalize, wordCounts},
		{"finalize changes the state", words, `[{"$group": {"_id": 1, "avgWordLen": {"$accumulator": {
			"init": "function() { return {count: 0, sum: 0} }",
			"accumulateArgs": [{"$strLenCP": "$word"}],
			"accumulate": "function({count, sum}, wordLen) { return {count: count + 1, sum: sum + wordLen} }",
			"merge": "function(s1, s2) { return {count: s1.count + s2.count, sum: s1.sum + s2.sum} }",
			"finalize": "function({count, sum}) { return sum / count }", "lang": "js"}}}}]`,
			`[{"_id": 1, "avgWordLen": 4.4}]`},
		{"missing becomes null", `[{"_id": 1, "sentinel": 1}]`, `[{"$group": {"_id": 1, "value": {"$accumulator": {
			"init": "function() { return [] }", "accumulateArgs": ["$no_such_field"],
			"accumulate": "function(state, value) { return state.concat([value]) }",
			"merge": "function(s1, s2) { return s1.concat(s2) }", "lang": "js"}}}}]`,
			`[{"_id": 1, "value": [null]}]`},
		{"initArgs see the key", words, `[{"$group": {"_id": {"w": "$word"}, "v": {"$accumulator": {
			"init": "function(w) { return w + ':' }", "initArgs": ["$w"], "accumulateArgs": ["$_id"],
			"accumulate": "function(s, id) { return s + id }", "merge": "function(a, b) { return a + b }", "lang": "js"}}}}, {"$sort": {"_id.w": 1}}]`,
			`[{"_id": {"w": "hello"}, "v": "hello:14"}, {"_id": {"w": "hi"}, "v": "hi:5"}, {"_id": {"w": "world"}, "v": "world:23"}]`},
		{"bucket", words, `[{"$bucket": {"groupBy": "$_id", "boundaries": [0, 3, 10], "output": {"w": {"$accumulator": {
			"init": "function() { return '' }", "accumulateArgs": ["$word"],
			"accumulate": "function(s, w) { return s + w[0] }", "merge": "function(a, b) { return a + b }", "lang": "js"}}}}}]`,
			`[{"_id": 0, "w": "hw"}, {"_id": 3, "w": "whh"}]`},
		{"bucketAuto", words, `[{"$bucketAuto": {"groupBy": "$_id", "buckets": 1, "output": {"w": {"$accumulator": {
			"init": "function() { return '' }", "accumulateArgs": ["$word"],
			"accumulate": "function(s, w) { return s + w[0] }", "merge": "function(a, b) { return a + b }", "lang": "js"}}}}}]`,
			`[{"_id": {"min": 1, "max": 5}, "w": "hwwhh"}]`},
	})
	acc := func(fields string) string {
		return `[{"$group": {"_id": 1, "x": {"$accumulator": {` + fields + `}}}}]`
	}
	base := `"init": "function() { return 0 }", "accumulate": "function(s) { return s }", "merge": "function(a, b) { return a }"`
	checkCodes(t, words, []codeCase{
		{`[{"$group": {"_id": 1, "x": {"$accumulator": 1}}}]`, 4544703},
		{acc(`"init": "$word", "accumulate": "function(s) { return s }", "merge": "function(a) { return a }", "accumulateArgs": []`), 4544701},
		{acc(`"init": 1, "accumulate": "function(s) { return s }", "merge": "function(a) { return a }", "accumulateArgs": []`), 4544702},
		{acc(base + `, "accumulateArgs": [], "lang": 1`), 4544704},
		{acc(base + `, "accumulateArgs": [], "lang": "python"`), 4544705},
		{acc(base + `, "accumulateArgs": [], "other": 1`), 4544706},
		{acc(`"accumulate": "function(s) { return s }", "merge": "function(a) { return a }", "accumulateArgs": []`), 4544707},
		{acc(`"init": "function() { return 0 }", "merge": "function(a) { return a }", "accumulateArgs": []`), 4544708},
		{acc(`"init": "function() { return 0 }", "accumulate": "function(s) { return s }", "accumulateArgs": []`), 4544709},
		{acc(base), 4544710},
		{acc(base + `, "accumulateArgs": [], "initArgs": 5`), 4544711},
		{acc(base + `, "accumulateArgs": "$val"`), 4544712},
		{acc(base + `, "accumulateArgs": [], "finalize": "function() { throw new Error('f') }"`), 139},
		{acc(`"init": "function() { return nosuch }", "accumulate": "function(s) { return s }", "merge": "function(a) { return a }", "accumulateArgs": []`), 139},
		{`[{"$bucketAuto": {"groupBy": "$_id", "buckets": 1, "output": {"w": {"$accumulator": {` + base + `, "accumulateArgs": [], "initArgs": ["$word"]}}}}}]`, 4544714},
		{`[{"$project": {"x": {"$accumulator": {` + base + `, "accumulateArgs": []}}}}]`, 168},
		{`[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"x": {"$accumulator": {` + base + `, "accumulateArgs": []}}}}}]`, 9},
	})
}

// TestAccumulatorSpills runs a $group with an $accumulator past its
// memory limit: the groups spill, their states come back through merge,
// and the results equal those of the run in memory.
func TestAccumulatorSpills(t *testing.T) {
	t.Parallel()
	var docs []string
	for i := range 600 {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "g": %d, "v": %d}`, i, i%40, i))
	}
	in := "[" + strings.Join(docs, ",") + "]"
	pipeline := `[{"$group": {"_id": "$g", "acc": {"$accumulator": {
		"init": "function() { return {n: 0, sum: 0, merges: 0} }", "accumulateArgs": ["$v"],
		"accumulate": "function(s, v) { return {n: s.n + 1, sum: s.sum + v, merges: s.merges} }",
		"merge": "function(a, b) { return {n: a.n + b.n, sum: a.sum + b.sum, merges: a.merges + b.merges + 1} }",
		"finalize": "function(s) { return [s.n, s.sum, s.merges > 0] }", "lang": "js"}}}}, {"$sort": {"_id": 1}}]`
	want, err := run(t, in, pipeline, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := run(t, in, pipeline, Options{MaxMemoryBytes: 3000, Spill: true, SpillDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 40 || len(got) != 40 {
		t.Fatalf("%d groups spilled, %d in memory", len(got), len(want))
	}
	merged := false
	for i := range want {
		w, g := want[i][1].Value.(bson.A), got[i][1].Value.(bson.A)
		if w[0] != g[0] || w[1] != g[1] || w[2] != false {
			t.Fatalf("group %d: spilled %v, in memory %v", i, g, w)
		}
		merged = merged || g[2] == true
	}
	if !merged {
		t.Fatal("no group was merged from spilled states")
	}
}

// TestFunctionStopsWithTheContext checks that a $function that never
// returns stops when the run's context ends, and that a later Next runs
// under its own context.
func TestFunctionStopsWithTheContext(t *testing.T) {
	t.Parallel()
	p, err := Parse(val(t, `[{"$project": {"x": {"$function": {"body": "function(v) { while (v) {} return 1 }", "args": ["$loop"], "lang": "js"}}}}]`).(bson.A))
	if err != nil {
		t.Fatal(err)
	}
	src := sliceSource([]bson.D{{{Key: "_id", Value: 1}, {Key: "loop", Value: false}}, {{Key: "_id", Value: 2}, {Key: "loop", Value: true}}})
	c := p.Open(src, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	d, err := c.Next(ctx)
	cancel() // the first batch's context ends
	if err != nil || d == nil {
		t.Fatalf("first: %v %v", d, err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Next(ctx); codeOf(err) != 50 {
		t.Fatalf("second: %v, want 50", err)
	}
}

// TestAccumulatorFinalizeInALaterBatch checks that the groups a $group
// returns in a later batch finalize under that batch's context, not
// under the first one's, which has ended.
func TestAccumulatorFinalizeInALaterBatch(t *testing.T) {
	t.Parallel()
	p, err := Parse(val(t, strings.Replace(accumulatorGroup, `, {"$sort": {"_id": 1}}`, "", 1)).(bson.A))
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.D
	for _, d := range val(t, words).(bson.A) {
		docs = append(docs, d.(bson.D))
	}
	c := p.Open(sliceSource(docs), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	if d, err := c.Next(ctx); err != nil || d == nil {
		t.Fatalf("first: %v %v", d, err)
	}
	cancel()
	for i := 0; i < 2; i++ {
		if d, err := c.Next(context.Background()); err != nil || d == nil {
			t.Fatalf("later: %v %v", d, err)
		}
	}
}
