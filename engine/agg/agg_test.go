package agg

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func val(t testing.TB, s string) any {
	t.Helper()
	v, err := document.ParseExtJSONValue([]byte(s))
	if err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

// run parses pipeline and runs it over docs, applying the pushed-down
// $match, $sort and $limit the way the engine's scan does.
func run(t testing.TB, docs, pipeline string, o Options) ([]bson.D, error) {
	t.Helper()
	p, err := Parse(val(t, pipeline).(bson.A))
	if err != nil {
		return nil, err
	}
	var in []bson.D
	for _, d := range val(t, docs).(bson.A) {
		in = append(in, d.(bson.D))
	}
	if f := p.Filter(); f != nil {
		flt, err := query.ParseFilter(f)
		if err != nil {
			return nil, err
		}
		in = slices.DeleteFunc(in, func(d bson.D) bool { return !flt.Match(d) })
	}
	if s := p.Sort(); s != nil {
		srt, err := query.ParseSort(s)
		if err != nil {
			return nil, err
		}
		slices.SortStableFunc(in, srt.Compare)
	}
	if n := p.Limit(); n > 0 && int64(len(in)) > n {
		in = in[:n]
	}
	return p.Run(context.Background(), sliceSource(in), o)
}

func codeOf(err error) int {
	var e *document.Error
	if errors.As(err, &e) {
		return int(e.Code)
	}
	if err != nil {
		return -1
	}
	return 0
}

// pipelineCase is a pipeline run over docs and the results it must give,
// exactly (same).
type pipelineCase struct{ name, docs, pipeline, want string }

// checkPipelines runs each case and reports every mismatch.
func checkPipelines(t *testing.T, cases []pipelineCase) {
	t.Helper()
	for _, c := range cases {
		out, err := run(t, c.docs, c.pipeline, Options{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !same(out, val(t, c.want)) {
			t.Errorf("%s: got %v, want %s", c.name, out, c.want)
		}
	}
}

// codeCase is a pipeline that must fail with code.
type codeCase struct {
	pipeline string
	code     int
}

// checkCodes runs each pipeline over docs and reports every one that
// does not fail with its code.
func checkCodes(t *testing.T, docs string, cases []codeCase) {
	t.Helper()
	for _, c := range cases {
		if _, err := run(t, docs, c.pipeline, Options{}); codeOf(err) != c.code {
			t.Errorf("%s: %v, want code %d", c.pipeline, err, c.code)
		}
	}
}

// same compares results with the expected array exactly: value, type
// and field order.
func same(got []bson.D, want any) bool {
	wa, _ := want.(bson.A)
	if len(got) != len(wa) {
		return false
	}
	for i := range got {
		gb, err1 := document.Marshal(got[i])
		wb, err2 := document.Marshal(wa[i].(bson.D))
		if err1 != nil || err2 != nil || string(gb) != string(wb) {
			return false
		}
	}
	return true
}

const people = `[
	{"_id": 1, "name": "ann", "team": "a", "age": 30, "tags": ["x", "y"], "at": {"$date": "2026-03-04T05:06:07.089Z"}},
	{"_id": 2, "name": "bob", "team": "b", "age": {"$numberLong": "40"}, "tags": [], "at": {"$date": "2026-03-04T05:21:00Z"}},
	{"_id": 3, "name": "cy", "team": "a", "age": 25.5, "tags": "solo"},
	{"_id": 4, "name": "di", "team": null, "age": "n/a", "tags": ["x"]},
	{"_id": 5, "name": "ed", "age": 1}
]`

func TestStages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, pipeline, want string
	}{
		{"group accumulators", `[{"$match": {"team": {"$in": ["a", "b"]}}}, {"$sort": {"_id": 1}}, {"$group": {"_id": "$team",
			"n": {"$sum": 1}, "total": {"$sum": "$age"}, "avg": {"$avg": "$age"}, "min": {"$min": "$age"}, "max": {"$max": "$age"},
			"names": {"$push": "$name"}, "tags": {"$addToSet": "$tags"}, "first": {"$first": "$name"}, "last": {"$last": "$name"}, "c": {"$count": {}}}}]`,
			`[{"_id": "a", "n": 2, "total": 55.5, "avg": 27.75, "min": 25.5, "max": 30, "names": ["ann", "cy"], "tags": [["x", "y"], "solo"], "first": "ann", "last": "cy", "c": 2},
			  {"_id": "b", "n": 1, "total": {"$numberLong": "40"}, "avg": 40.0, "min": {"$numberLong": "40"}, "max": {"$numberLong": "40"}, "names": ["bob"], "tags": [[]], "first": "bob", "last": "bob", "c": 1}]`},
		{"group null and missing keys together", `[{"$match": {"_id": {"$gte": 4}}}, {"$group": {"_id": "$team", "ids": {"$push": "$_id"}}}]`,
			`[{"_id": null, "ids": [4, 5]}]`},
		{"group numeric keys of any type together", `[{"$group": {"_id": {"$cond": [{"$eq": ["$team", "a"]}, 1, {"$numberLong": "1"}]}, "n": {"$sum": 1}}}]`,
			`[{"_id": 1, "n": 5}]`},
		{"group by object", `[{"$match": {"_id": {"$lte": 2}}}, {"$group": {"_id": {"t": "$team", "y": {"$year": "$at"}}, "n": {"$sum": 1}}}, {"$sort": {"_id.t": 1}}]`,
			`[{"_id": {"t": "a", "y": 2026}, "n": 1}, {"_id": {"t": "b", "y": 2026}, "n": 1}]`},
		{"group of nothing", `[{"$match": {"_id": 99}}, {"$group": {"_id": null, "n": {"$sum": 1}}}]`, `[]`},
		{"project inclusion keeps document order", `[{"$match": {"_id": 1}}, {"$project": {"team": 1, "name": 1}}]`,
			`[{"_id": 1, "name": "ann", "team": "a"}]`},
		{"project computed and _id off", `[{"$match": {"_id": 1}}, {"$project": {"_id": 0, "up": {"$toUpper": "$name"}, "t": {"n": "$name"}, "none": "$nosuch"}}]`,
			`[{"up": "ANN", "t": {"n": "ann"}}]`},
		{"project exclusion", `[{"$match": {"_id": 3}}, {"$project": {"tags": 0, "age": false}}]`,
			`[{"_id": 3, "name": "cy", "team": "a"}]`},
		{"project nested inclusion", `[{"$match": {"_id": 1}}, {"$project": {"_id": 0, "s.a": 1}}, {"$limit": 1}]`, `[{}]`},
		{"addFields merges and removes", `[{"$match": {"_id": 1}}, {"$project": {"name": 1}}, {"$addFields": {"x.y": 1, "name": "$$REMOVE", "z": {"$add": [1, 2]}}}]`,
			`[{"_id": 1, "x": {"y": 1}, "z": 3}]`},
		{"set and unset", `[{"$match": {"_id": 1}}, {"$set": {"name": {"$concat": ["$name", "!"]}}}, {"$unset": ["tags", "at", "age", "team"]}]`,
			`[{"_id": 1, "name": "ann!"}]`},
		{"unwind", `[{"$match": {"_id": {"$lte": 4}}}, {"$unwind": "$tags"}, {"$project": {"tags": 1}}]`,
			`[{"_id": 1, "tags": "x"}, {"_id": 1, "tags": "y"}, {"_id": 3, "tags": "solo"}, {"_id": 4, "tags": "x"}]`},
		{"unwind preserving with index", `[{"$match": {"_id": {"$in": [1, 2, 5]}}}, {"$unwind": {"path": "$tags", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true}}, {"$project": {"tags": 1, "i": 1}}]`,
			`[{"_id": 1, "tags": "x", "i": {"$numberLong": "0"}}, {"_id": 1, "tags": "y", "i": {"$numberLong": "1"}}, {"_id": 2, "i": null}, {"_id": 5, "i": null}]`},
		{"sort skip limit after a stage", `[{"$project": {"name": 1}}, {"$sort": {"name": -1}}, {"$skip": 1}, {"$limit": 2}]`,
			`[{"_id": 4, "name": "di"}, {"_id": 3, "name": "cy"}]`},
		{"pushed sort and limit", `[{"$sort": {"_id": -1}}, {"$limit": 2}, {"$project": {"_id": 1}}]`, `[{"_id": 5}, {"_id": 4}]`},
		{"count", `[{"$match": {"team": "a"}}, {"$count": "n"}]`, `[{"n": 2}]`},
		{"count of nothing has no document", `[{"$match": {"team": "zz"}}, {"$count": "n"}]`, `[]`},
		{"sortByCount", `[{"$unwind": "$tags"}, {"$sortByCount": "$tags"}]`,
			`[{"_id": "x", "count": 2}, {"_id": "y", "count": 1}, {"_id": "solo", "count": 1}]`},
		{"replaceRoot", `[{"$match": {"_id": 1}}, {"$replaceRoot": {"newRoot": {"who": "$name"}}}]`, `[{"who": "ann"}]`},
		{"replaceWith", `[{"$match": {"_id": 1}}, {"$replaceWith": {"n": {"$size": "$tags"}}}]`, `[{"n": 2}]`},
		{"later match", `[{"$addFields": {"old": {"$gte": ["$age", 30]}}}, {"$match": {"old": true}}, {"$project": {"_id": 1}}]`,
			`[{"_id": 1}, {"_id": 2}, {"_id": 4}]`},
	}
	for _, tc := range cases {
		got, err := run(t, people, tc.pipeline, Options{})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !same(got, val(t, tc.want)) {
			t.Errorf("%s:\n got %v\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestExpressions(t *testing.T) {
	t.Parallel()
	doc1 := `[{"_id": 1, "i": 7, "big": 2147483647, "l": {"$numberLong": "5"}, "d": 2.5, "z": 0, "s": "Hello", "n": null, "arr": [1, 2, 3],
		"at": {"$date": "2026-03-04T05:06:07.089Z"}, "sub": [{"v": 1}, {"v": 2}, {"w": 3}]}]`
	cases := []struct{ expr, want string }{
		{`{"$add": ["$i", 1]}`, `8`},
		{`{"$add": ["$big", 1]}`, `{"$numberLong": "2147483648"}`},
		{`{"$add": ["$i", "$l"]}`, `{"$numberLong": "12"}`},
		{`{"$add": ["$i", "$d"]}`, `9.5`},
		{`{"$add": ["$i", "$n"]}`, `null`},
		{`{"$add": ["$at", 1000]}`, `{"$date": "2026-03-04T05:06:08.089Z"}`},
		{`{"$subtract": ["$at", {"$date": "2026-03-04T05:06:07Z"}]}`, `{"$numberLong": "89"}`},
		{`{"$subtract": ["$i", 10]}`, `-3`},
		{`{"$multiply": ["$i", "$d", 2]}`, `35.0`},
		{`{"$divide": ["$i", 2]}`, `3.5`},
		{`{"$mod": ["$i", 4]}`, `3`},
		{`{"$abs": -3}`, `3`},
		{`{"$floor": "$d"}`, `2.0`},
		{`{"$cond": [{"$eq": ["$z", 0]}, "none", {"$divide": ["$i", "$z"]}]}`, `"none"`},
		{`{"$cond": {"if": {"$gt": ["$i", 5]}, "then": "big", "else": "small"}}`, `"big"`},
		{`{"$and": [{"$ne": ["$z", 0]}, {"$gt": [{"$divide": ["$i", "$z"]}, 1]}]}`, `false`},
		{`{"$or": [0, "", null]}`, `true`},
		{`{"$not": [0]}`, `true`},
		{`{"$ifNull": ["$nosuch", "$n", "fallback"]}`, `"fallback"`},
		{`{"$concat": ["$s", " ", "world"]}`, `"Hello world"`},
		{`{"$concat": ["$s", "$nosuch"]}`, `null`},
		{`{"$toLower": "$s"}`, `"hello"`},
		{`{"$toUpper": "ÉcolE"}`, `"ÉCOLE"`}, // mongod changes ASCII letters only
		{`{"$toLower": "ÉCOLE"}`, `"École"`},
		{`{"$toUpper": "$i"}`, `"7"`},
		{`{"$toLower": "$nosuch"}`, `""`},
		{`{"$strLenCP": "$s"}`, `5`},
		{`{"$size": "$arr"}`, `3`},
		{`{"$in": [2, "$arr"]}`, `true`},
		{`{"$arrayElemAt": ["$arr", -1]}`, `3`},
		{`"$sub.v"`, `[1, 2]`},
		{`{"$type": "$nosuch"}`, `"missing"`},
		{`{"$type": "$l"}`, `"long"`},
		{`{"$eq": ["$nosuch", null]}`, `false`},
		{`{"$lt": ["$nosuch", null]}`, `true`},
		{`{"$cmp": ["$i", 7.0]}`, `0`},
		{`{"$literal": "$i"}`, `"$i"`},
		{`{"$const": {"$add": 1}}`, `{"$add": 1}`},
		{`["$i", "$nosuch"]`, `[7, null]`},
		{`{"$year": "$at"}`, `2026`},
		{`{"$month": "$at"}`, `3`},
		{`{"$dayOfMonth": "$at"}`, `4`},
		{`{"$hour": {"date": "$at", "timezone": "+02:00"}}`, `7`},
		{`{"$minute": "$at"}`, `6`},
		{`{"$second": "$at"}`, `7`},
		{`{"$millisecond": "$at"}`, `89`},
		{`{"$dayOfWeek": "$at"}`, `4`},
		{`{"$dayOfYear": "$at"}`, `63`},
		{`{"$year": "$nosuch"}`, `null`},
		{`{"$dateTrunc": {"date": "$at", "unit": "minute", "binSize": 15}}`, `{"$date": "2026-03-04T05:00:00Z"}`},
		{`{"$dateTrunc": {"date": "$at", "unit": "hour"}}`, `{"$date": "2026-03-04T05:00:00Z"}`},
		{`{"$dateTrunc": {"date": "$at", "unit": "day"}}`, `{"$date": "2026-03-04T00:00:00Z"}`},
		{`{"$dateTrunc": {"date": "$at", "unit": "week"}}`, `{"$date": "2026-03-01T00:00:00Z"}`},
		{`{"$dateTrunc": {"date": "$at", "unit": "week", "startOfWeek": "monday"}}`, `{"$date": "2026-03-02T00:00:00Z"}`},
		{`{"$dateTrunc": {"date": "$at", "unit": "month", "binSize": 2}}`, `{"$date": "2026-03-01T00:00:00Z"}`},
		{`{"$dateTrunc": {"date": "$at", "unit": "quarter"}}`, `{"$date": "2026-01-01T00:00:00Z"}`},
		{`{"$dateTrunc": {"date": "$at", "unit": "year"}}`, `{"$date": "2026-01-01T00:00:00Z"}`},
		{`{"$dateToString": {"date": "$at"}}`, `"2026-03-04T05:06:07.089Z"`},
		{`{"$dateToString": {"date": "$at", "format": "%Y/%m/%d %H:%M %j %%", "timezone": "-01:00"}}`, `"2026/03/04 04:06 063 %"`},
		{`{"$dateToString": {"date": "$nosuch", "onNull": "none"}}`, `"none"`},
		{`{"$toString": "$d"}`, `"2.5"`},
		{`{"$toString": "$at"}`, `"2026-03-04T05:06:07.089Z"`},
		{`{"$toInt": "42"}`, `42`},
		{`{"$toLong": "$d"}`, `{"$numberLong": "2"}`},
		{`{"$toHashedIndexKey": "hashThisStringLiteral"}`, `{"$numberLong": "-5776344739422278694"}`},
		{`{"$toHashedIndexKey": "$nosuch"}`, `{"$numberLong": "2338878944348059895"}`},
		{`{"$toHashedIndexKey": {"$pow": [2, 4]}}`, `{"$numberLong": "2598032665634823220"}`},
		{`{"$toDouble": true}`, `1.0`},
		{`{"$toDate": {"$numberLong": "0"}}`, `{"$date": "1970-01-01T00:00:00Z"}`},
		{`{"$toDate": "2026-03-04T05:06:07Z"}`, `{"$date": "2026-03-04T05:06:07Z"}`},
		{`"$$ROOT.s"`, `"Hello"`},
		{`"$$NOW"`, `{"$date": "2026-11-22T00:00:00Z"}`},
	}
	now := bson.DateTime(val(t, `{"$date": "2026-11-22T00:00:00Z"}`).(bson.DateTime))
	for _, tc := range cases {
		got, err := run(t, doc1, `[{"$replaceWith": {"v": `+tc.expr+`}}]`, Options{Now: now})
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		want := bson.A{bson.D{{Key: "v", Value: val(t, tc.want)}}}
		if !same(got, want) {
			t.Errorf("%s = %v, want %s", tc.expr, got, tc.want)
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pipeline string
		code     int
	}{
		{`[{"$bogus": {}}]`, 40324},
		{`[{"$geoNear": {"near": [0, 0], "distanceField": true}}]`, 16606},
		{`[{"$limit": 1}, {"$geoNear": {"near": [0, 0], "distanceField": "d"}}]`, 40602},
		{`[{"$geoNear": {"near": 5, "distanceField": "d"}}]`, 16605},
		{`[{"$geoNear": {"near": [0, 0], "distanceField": "d", "limit": 5}}]`, 50858},
		{`[{"$geoNear": {"near": [0, 0], "distanceField": "d", "query": {"a": {"$near": [0, 0]}}}}]`, 5626500},
		{`[{"$match": {"a": {"$nearSphere": [0, 0]}}}]`, 5626500},
		{`[{"$facet": {"a": [{"$geoNear": {"near": [0, 0], "distanceField": "d"}}]}}]`, 40600},
		{`[{"$match": {}, "$project": {"a": 1}}]`, 40323},
		{`[5]`, 14},
		{`[{"$match": {"a": {"$bad": 1}}}]`, 2},
		{`[{"$project": {"a": 1, "b": 0}}]`, 31254},
		{`[{"$project": {}}]`, 51272},
		{`[{"$project": {"a": {"$nosuchop": 1}}}]`, 168},
		{`[{"$project": {"a": "$$nosuch"}}]`, 17276},
		{`[{"$project": {"a": {"$add": 1, "$sub": 2}}}]`, 15983},
		{`[{"$project": {"a": {"$divide": [1]}}}]`, 16020},
		{`[{"$group": {"n": {"$sum": 1}}}]`, 15955},
		{`[{"$group": {"_id": null, "n": {"$nosuchacc": 1}}}]`, 15952},
		{`[{"$group": {"_id": null, "a.b": {"$sum": 1}}}]`, 40235},
		{`[{"$group": {"_id": null, "n": 1}}]`, 40234},
		{`[{"$group": {"_id": null, "n": {"$sum": [1, 2]}}}]`, 40237},
		{`[{"$skip": -1}]`, 5107200},
		{`[{"$limit": 0}]`, 15958},
		{`[{"$limit": "x"}]`, 5107201},
		{`[{"$count": ""}]`, 40157},
		{`[{"$count": "$n"}]`, 40158},
		{`[{"$count": "a.b"}]`, 40160},
		{`[{"$unwind": "tags"}]`, 28818},
		{`[{"$unwind": {"path": "$tags", "bogus": 1}}]`, 28811},
		{`[{"$sort": {}}]`, 15976},
		{`[{"$unset": []}]`, 31119},
		// Runtime errors.
		{`[{"$project": {"a": {"$divide": ["$age", 0]}}}]`, 2},
		{`[{"$project": {"a": {"$size": "$name"}}}]`, 17124},
		{`[{"$project": {"a": {"$concat": ["$name", "$age"]}}}]`, 16702},
		{`[{"$replaceWith": "$name"}]`, 40228},
		{`[{"$project": {"a": {"$year": "$name"}}}]`, 16006},
		{`[{"$project": {"a": {"$hour": {"date": "$at", "timezone": "Nowhere/City"}}}}]`, 40485},
		{`[{"$project": {"a": {"$toInt": "x"}}}]`, 241},
		{`[{"$project": {"a": {"$dateTrunc": {"date": "$at", "unit": "fortnight"}}}}]`, 5439014},
	}
	for _, tc := range cases {
		_, err := run(t, people, tc.pipeline, Options{})
		if codeOf(err) != tc.code {
			t.Errorf("%s: got %v (code %d), want code %d", tc.pipeline, err, codeOf(err), tc.code)
		}
	}
}

func TestMemoryLimit(t *testing.T) {
	t.Parallel()
	for _, p := range []string{`[{"$project": {"a": 1}}, {"$sort": {"name": 1}}]`, `[{"$group": {"_id": "$_id", "all": {"$push": "$$ROOT"}}}]`} {
		_, err := run(t, people, p, Options{MaxMemoryBytes: 100})
		if codeOf(err) != 292 {
			t.Errorf("%s with 100 bytes: got %v, want 292", p, err)
		}
		if _, err := run(t, people, p, Options{}); err != nil {
			t.Errorf("%s with the default limit: %v", p, err)
		}
	}
}

// TestLimitStopsTheSource checks that a $limit stops reading input.
func TestLimitStopsTheSource(t *testing.T) {
	t.Parallel()
	p, err := Parse(val(t, `[{"$project": {"a": 1}}, {"$limit": 3}]`).(bson.A))
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	out, err := p.Run(context.Background(), func(context.Context) (bson.D, error) {
		read++
		return bson.D{{Key: "a", Value: int32(read)}}, nil // endless
	}, Options{})
	if err != nil || len(out) != 3 || read != 3 {
		t.Fatalf("got %d results after reading %d documents (%v), want 3 and 3", len(out), read, err)
	}
}

func TestGroupKey(t *testing.T) {
	t.Parallel()
	dec, _ := bson.ParseDecimal128("1.0")
	dec15, _ := bson.ParseDecimal128("1.50")
	dec01, _ := bson.ParseDecimal128("0.1")
	if GroupKey(dec15) != GroupKey(1.5) || GroupKey(dec01) == GroupKey(0.1) {
		t.Errorf("decimals: 1.50 and 1.5 must group together, decimal 0.1 and double 0.1 (inexact) must not")
	}
	same := []any{int32(1), int64(1), 1.0, dec}
	for _, v := range same[1:] {
		if GroupKey(v) != GroupKey(same[0]) {
			t.Errorf("GroupKey(%v) = %q, GroupKey(1) = %q: want equal", v, GroupKey(v), GroupKey(same[0]))
		}
	}
	diff := []any{int32(1), "1", 1.5, true, nil, bson.A{int32(1)}, bson.D{{Key: "a", Value: int32(1)}}}
	seen := map[string]any{}
	for _, v := range diff {
		k := GroupKey(v)
		if prev, ok := seen[k]; ok {
			t.Errorf("GroupKey(%v) == GroupKey(%v): want different", v, prev)
		}
		seen[k] = v
	}
}

// TestExprInFilters checks {$expr: …} in query filters: compared
// fields, truthiness, inside $or, refused below the top level, and a
// failing expression matching nothing.
func TestExprInFilters(t *testing.T) {
	t.Parallel()
	cases := []struct {
		filter string
		ids    []int32
		code   int
	}{
		{`{"$expr": {"$gt": ["$b", "$a"]}}`, []int32{1, 3}, 0},
		{`{"$expr": {"$eq": [{"$mod": ["$a", 2]}, 0]}}`, []int32{2}, 0},
		{`{"$expr": "$flag"}`, []int32{3}, 0},
		{`{"$or": [{"_id": 2}, {"$expr": {"$lt": ["$a", 2]}}]}`, []int32{1, 2}, 0},
		{`{"a": {"$gte": 1}, "$expr": {"$ne": ["$b", null]}}`, []int32{1, 2, 3}, 0},
		{`{"$expr": {"$gt": [{"$divide": ["$a", "$z"]}, 0]}}`, nil, 0},
		{`{"arr": {"$elemMatch": {"$expr": {"$gt": ["$x", 1]}}}}`, nil, 2},
		{`{"$expr": {"$nosuch": 1}}`, nil, 168},
	}
	docs := []bson.D{
		{{Key: "_id", Value: int32(1)}, {Key: "a", Value: int32(1)}, {Key: "b", Value: int32(5)}, {Key: "z", Value: int32(0)}},
		{{Key: "_id", Value: int32(2)}, {Key: "a", Value: int32(4)}, {Key: "b", Value: int32(4)}, {Key: "flag", Value: int32(0)}},
		{{Key: "_id", Value: int32(3)}, {Key: "a", Value: int32(3)}, {Key: "b", Value: 3.5}, {Key: "flag", Value: "yes"}},
	}
	for _, tc := range cases {
		f, err := query.ParseFilter(val(t, tc.filter).(bson.D))
		if codeOf(err) != tc.code {
			t.Errorf("%s: parse error %v, want code %d", tc.filter, err, tc.code)
			continue
		}
		if err != nil {
			continue
		}
		var ids []int32
		for _, d := range docs {
			if f.Match(d) {
				ids = append(ids, d[0].Value.(int32))
			}
		}
		if !slices.Equal(ids, tc.ids) {
			t.Errorf("%s matched %v, want %v", tc.filter, ids, tc.ids)
		}
	}
}
