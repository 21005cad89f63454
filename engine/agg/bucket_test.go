package agg

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

const prices = `[
	{"_id": 1, "p": 10}, {"_id": 2, "p": 200}, {"_id": 3, "p": 50.0}, {"_id": 4, "p": "x"},
	{"_id": 5}, {"_id": 6, "p": 25}, {"_id": 7, "p": {"$numberLong": "75"}}, {"_id": 8, "p": 100}
]`

// TestBucket checks $bucket: lower bounds inclusive, upper exclusive,
// the default for the rest (other types, missing), results sorted by
// _id, count as the default output, and explain's $group and $sort.
func TestBucket(t *testing.T) {
	t.Parallel()
	cases := []pipelineCase{
		{"default and output", prices,
			`[{"$bucket": {"groupBy": "$p", "boundaries": [0, 50, 100], "default": "other", "output": {"n": {"$sum": 1}, "ids": {"$push": "$_id"}}}}]`,
			`[{"_id": 0, "n": 2, "ids": [1, 6]}, {"_id": 50, "n": 2, "ids": [3, 7]}, {"_id": "other", "n": 4, "ids": [2, 4, 5, 8]}]`},
		{"count by default", prices,
			`[{"$match": {"p": {"$type": "number"}}}, {"$bucket": {"groupBy": "$p", "boundaries": [0, 100, 1000]}}]`,
			`[{"_id": 0, "count": 4}, {"_id": 100, "count": 2}]`},
		{"an expression and constant boundaries", prices,
			`[{"$match": {"p": {"$lt": 100}}}, {"$bucket": {"groupBy": {"$multiply": ["$p", 2]}, "boundaries": [{"$add": [0, 0]}, 100, 200], "output": {"max": {"$max": "$p"}}}}]`,
			`[{"_id": 0, "max": 25}, {"_id": 100, "max": {"$numberLong": "75"}}]`},
		{"a default above the range", prices,
			`[{"$bucket": {"groupBy": "$p", "boundaries": ["a", "m"], "default": "z", "output": {"ids": {"$push": "$_id"}}}}]`,
			`[{"_id": "z", "ids": [1, 2, 3, 4, 5, 6, 7, 8]}]`}, // numbers sort below "a", and "x" is not below "m"
		{"string boundaries that look like paths", `[{"_id": 1, "s": "$b"}]`,
			`[{"$bucket": {"groupBy": "$s", "boundaries": [{"$literal": "$a"}, {"$literal": "$c"}]}}]`,
			`[{"_id": "$a", "count": 1}]`},
	}
	checkPipelines(t, cases)

	p, err := Parse(val(t, `[{"$bucket": {"groupBy": "$p", "boundaries": [0, 1]}}]`).(bson.A))
	if err != nil {
		t.Fatal(err)
	}
	st := p.Stages()
	if len(st) != 2 || st[0].(bson.D)[0].Key != "$group" || st[1].(bson.D)[0].Key != "$sort" {
		t.Errorf("explain of $bucket: %v, want a $group and a $sort", st)
	}

	errs := []codeCase{
		{`[{"$bucket": 1}]`, 40201},
		{`[{"$bucket": {"groupBy": "p", "boundaries": [0, 1]}}]`, 40202},
		{`[{"$bucket": {"groupBy": {"a": 1}, "boundaries": [0, 1]}}]`, 40202},
		{`[{"$bucket": {"groupBy": "$p", "boundaries": 1}}]`, 40200},
		{`[{"$bucket": {"groupBy": "$p", "boundaries": ["$q", 1]}}]`, 40191},
		{`[{"$bucket": {"groupBy": "$p", "boundaries": [1]}}]`, 40192},
		{`[{"$bucket": {"groupBy": "$p", "boundaries": [0, "a"]}}]`, 40193},
		{`[{"$bucket": {"groupBy": "$p", "boundaries": [5, 1]}}]`, 40194},
		{`[{"$bucket": {"groupBy": "$p", "boundaries": [1, 1.0]}}]`, 40194},
		{`[{"$bucket": {"groupBy": "$p", "boundaries": [0, 1], "default": "$q"}}]`, 40195},
		{`[{"$bucket": {"groupBy": "$p", "boundaries": [0, 1], "output": []}}]`, 40196},
		{`[{"$bucket": {"groupBy": "$p", "boundaries": [0, 1], "bogus": 1}}]`, 40197},
		{`[{"$bucket": {"groupBy": "$p"}}]`, 40198},
		{`[{"$bucket": {"boundaries": [0, 1]}}]`, 40198},
		{`[{"$bucket": {"groupBy": "$p", "boundaries": [0, 10], "default": 5}}]`, 40199},
		{`[{"$bucket": {"groupBy": "$p", "boundaries": [0, 10], "output": {"n": {"$bogus": 1}}}}]`, 15952},
		{`[{"$bucket": {"groupBy": "$p", "boundaries": [0, 50, 100]}}]`, 40066}, // 200, "x" and missing have no bucket
	}
	checkCodes(t, prices, errs)
	// A default equal to the highest boundary is allowed.
	if _, err := run(t, prices, `[{"$bucket": {"groupBy": "$p", "boundaries": [0, 10], "default": 10}}]`, Options{}); err != nil {
		t.Errorf("default at the upper bound: %v", err)
	}
}

// TestBucketAuto checks $bucketAuto's split as mongod makes it: about
// n/buckets documents each, equal keys in one bucket, a bucket's max the
// next one's min and the last one's its largest key; missing keys as
// null; $first/$last in input order; granularities; and the refusals.
func TestBucketAuto(t *testing.T) {
	t.Parallel()
	ten := `[{"v": 4}, {"v": 9}, {"v": 1}, {"v": 10}, {"v": 5}, {"v": 3}, {"v": 2}, {"v": 8}, {"v": 7}, {"v": 6}]`
	cases := []pipelineCase{
		{"three of ten", ten, `[{"$bucketAuto": {"groupBy": "$v", "buckets": 3}}]`,
			`[{"_id": {"min": 1, "max": 4}, "count": 3}, {"_id": {"min": 4, "max": 7}, "count": 3}, {"_id": {"min": 7, "max": 10}, "count": 4}]`},
		{"equal keys share a bucket", `[{"v": 1}, {"v": 2}, {"v": 2}, {"v": 2}, {"v": 3}]`,
			`[{"$bucketAuto": {"groupBy": "$v", "buckets": 2}}]`,
			`[{"_id": {"min": 1, "max": 3}, "count": 4}, {"_id": {"min": 3, "max": 3}, "count": 1}]`},
		{"more buckets than documents", `[{"v": 6}, {"v": 5}]`,
			`[{"$bucketAuto": {"groupBy": "$v", "buckets": 5}}]`,
			`[{"_id": {"min": 5, "max": 6}, "count": 1}, {"_id": {"min": 6, "max": 6}, "count": 1}]`},
		{"missing is null", `[{"v": 2}, {}, {"v": 1}]`,
			`[{"$bucketAuto": {"groupBy": "$v", "buckets": 1}}]`,
			`[{"_id": {"min": null, "max": 2}, "count": 3}]`},
		{"first and last by input order, push by key", `[{"_id": 1, "v": 3}, {"_id": 2, "v": 1}, {"_id": 3, "v": 2}]`,
			`[{"$bucketAuto": {"groupBy": "$v", "buckets": 1, "output": {"f": {"$first": "$_id"}, "l": {"$last": "$_id"}, "p": {"$push": "$_id"}}}}]`,
			`[{"_id": {"min": 1, "max": 3}, "f": 1, "l": 3, "p": [2, 3, 1]}]`},
		{"no documents", `[]`, `[{"$bucketAuto": {"groupBy": "$v", "buckets": 2}}]`, `[]`},
		{"R5", `[{"v": 30}, {"v": 1}, {"v": 12}, {"v": 7}, {"v": 3}]`,
			`[{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": "R5"}}]`,
			`[{"_id": {"min": 0.63, "max": 10.0}, "count": 3}, {"_id": {"min": 10.0, "max": 40.0}, "count": 2}]`},
		{"R5 with zeros", `[{"v": 0}, {"v": 5}, {"v": 0}]`,
			`[{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": "R5"}}]`,
			`[{"_id": {"min": 0, "max": 4.0}, "count": 2}, {"_id": {"min": 4.0, "max": 6.300000000000001}, "count": 1}]`},
		{"POWERSOF2 keeps ints whole", `[{"v": 9}, {"v": 3}, {"v": 5}]`,
			`[{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": "POWERSOF2"}}]`,
			`[{"_id": {"min": 2, "max": 8}, "count": 2}, {"_id": {"min": 8, "max": 16}, "count": 1}]`},
		{"POWERSOF2 of doubles", `[{"v": 3.5}, {"v": 4.0}]`,
			`[{"$bucketAuto": {"groupBy": "$v", "buckets": 1, "granularity": "POWERSOF2"}}]`,
			`[{"_id": {"min": 2, "max": 8}, "count": 2}]`},
		{"1-2-5 decimal", `[{"v": {"$numberDecimal": "3"}}, {"v": {"$numberDecimal": "0.7"}}]`,
			`[{"$bucketAuto": {"groupBy": "$v", "buckets": 1, "granularity": "1-2-5"}}]`,
			`[{"_id": {"min": {"$numberDecimal": "0.500000000000000"}, "max": {"$numberDecimal": "5.00000000000000"}}, "count": 2}]`},
	}
	checkPipelines(t, cases)

	errs := []struct {
		docs, pipeline string
		code           int
	}{
		{ten, `[{"$bucketAuto": []}]`, 40240},
		{ten, `[{"$bucketAuto": {"groupBy": "$", "buckets": 2}}]`, 40239},
		{ten, `[{"$bucketAuto": {"groupBy": "$v", "buckets": "2"}}]`, 40241},
		{ten, `[{"$bucketAuto": {"groupBy": "$v", "buckets": 2.5}}]`, 40242},
		{ten, `[{"$bucketAuto": {"groupBy": "$v", "buckets": 0}}]`, 40243},
		{ten, `[{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "output": 1}}]`, 40244},
		{ten, `[{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "bogus": 1}}]`, 40245},
		{ten, `[{"$bucketAuto": {"groupBy": "$v"}}]`, 40246},
		{ten, `[{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": "R7"}}]`, 40257},
		{ten, `[{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": 5}}]`, 40261},
		{`[{"v": "a"}]`, `[{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": "R5"}}]`, 40258},
		{`[{"v": {"$numberDouble": "NaN"}}]`, `[{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": "E6"}}]`, 40259},
		{`[{"v": -1}]`, `[{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "granularity": "POWERSOF2"}}]`, 40260},
		{ten, `[{"$bucketAuto": {"groupBy": "$v", "buckets": 2, "output": {"a.b": {"$sum": 1}}}}]`, 40235},
	}
	for _, c := range errs {
		if _, err := run(t, c.docs, c.pipeline, Options{}); codeOf(err) != c.code {
			t.Errorf("%s: %v, want code %d", c.pipeline, err, c.code)
		}
	}
	if _, err := run(t, ten, `[{"$bucketAuto": {"groupBy": "$v", "buckets": 2}}]`, Options{MaxMemoryBytes: 200}); codeOf(err) != 292 {
		t.Errorf("$bucketAuto over its memory: %v, want 292", err)
	}
}

// TestGranularitySeries checks the rounders against values worked by
// hand from mongod's algorithm: up is the next series value strictly
// above, down the one strictly below, across decades.
func TestGranularitySeries(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		v        any
		up, down any
	}{
		{"R5", 25.0, 40.0, 16.0},
		{"R5", 63.0, 100.0, 40.0},
		{"R5", 64.0, 100.0, 63.0},
		{"R5", 0.8, 1.0, 0.63},
		{"E6", 0.8, 1.0, 0.68},
		{"E6", 1000.0, 1500.0, 680.0},
		{"1-2-5", 7.0, 10.0, 5.0},
		{"POWERSOF2", int32(8), int32(16), int32(4)},
		{"POWERSOF2", int64(1) << 40, int64(1) << 41, int64(1) << 39},
		{"POWERSOF2", 0.3, 0.5, 0.25},
	}
	for _, c := range cases {
		r := granularity(c.name)
		up, err1 := r.up(c.v)
		down, err2 := r.down(c.v)
		if err1 != nil || err2 != nil || up != c.up || down != c.down {
			t.Errorf("%s of %v: up %v (%T), down %v (%T), %v %v; want %v, %v", c.name, c.v, up, up, down, down, err1, err2, c.up, c.down)
		}
	}
	if _, err := granularity("R5").up("a"); codeOf(err) != 40262 {
		t.Errorf("rounding a string: %v, want 40262", err)
	}
	if _, err := granularity("POWERSOF2").down(-1.0); codeOf(err) != 40267 {
		t.Errorf("rounding a negative number: %v, want 40267", err)
	}
}

// TestArrayAccumulators checks $concatArrays and $setUnion as $group
// accumulators (mongod 8.1) and $mergeObjects as a window function:
// arrays concatenated in input order, their elements once each in BSON
// order, documents merged over the window; a non-array input is 14.
func TestArrayAccumulators(t *testing.T) {
	t.Parallel()
	docs := `[{"_id": 1, "g": "a", "t": [3, 1], "o": {"x": 1}}, {"_id": 2, "g": "a", "t": [1, 2], "o": {"y": 2}}, {"_id": 3, "g": "b", "t": [], "o": {"x": 3}}, {"_id": 4, "g": "b"}]`
	checkPipelines(t, []pipelineCase{
		{"group", docs, `[{"$group": {"_id": "$g", "all": {"$concatArrays": "$t"}, "set": {"$setUnion": "$t"}}}, {"$sort": {"_id": 1}}]`,
			`[{"_id": "a", "all": [3, 1, 1, 2], "set": [1, 2, 3]}, {"_id": "b", "all": [], "set": []}]`},
		{"window", docs, `[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"m": {"$mergeObjects": "$o", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"m": 1}}]`,
			`[{"_id": 1, "m": {"x": 1}}, {"_id": 2, "m": {"x": 1, "y": 2}}, {"_id": 3, "m": {"x": 3, "y": 2}}, {"_id": 4, "m": {"x": 3, "y": 2}}]`},
	})
	checkCodes(t, docs, []codeCase{
		{`[{"$group": {"_id": null, "all": {"$concatArrays": "$g"}}}]`, 14},
	})
}
