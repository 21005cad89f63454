package engine

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Aggregation under a collation (docs/collation.md, "Aggregation"): the
// stages and expressions after the scan compare strings under the
// aggregation's collation, as mongod's do. The cases are those of
// mongod's jstests collation_expressions.js, collation_group.js and
// setWindowFields' collation test, each beside the simple answer, which
// differs.

const (
	caseInsensitive = `{"locale": "en_US", "strength": 2}`
	numericOrdering = `{"locale": "en_US", "numericOrdering": true}`
	accentBlind     = `{"locale": "en_US", "strength": 1}`
)

// aggUnder runs pipeline on test.coll under collation (""
// for none) and returns its first batch.
func aggUnder(t *testing.T, db *DB, coll, pipeline, collation string) []bson.D {
	t.Helper()
	cmd := fmt.Sprintf(`{"aggregate": %q, "pipeline": %s, "cursor": {}`, coll, pipeline)
	if collation != "" {
		cmd += `, "collation": ` + collation
	}
	return firstBatch(t, mustRun(t, db, "test", cmd+"}"))
}

// TestCollationExpressions: every expression that compares values does
// so under the collation; those that do not ($indexOfBytes, $indexOfCP,
// $strcasecmp, $split) do not.
func TestCollationExpressions(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "one", []string{`{"_id": 1}`})
	cases := []struct {
		expr, coll, want, simple string
	}{
		{`{"$cmp": ["a", "A"]}`, caseInsensitive, `0`, `1`},
		{`{"$eq": ["a", "A"]}`, caseInsensitive, `true`, `false`},
		{`{"$ne": ["a", "A"]}`, caseInsensitive, `false`, `true`},
		{`{"$lt": ["2", "10"]}`, numericOrdering, `true`, `false`},
		{`{"$lte": ["2", "10"]}`, numericOrdering, `true`, `false`},
		{`{"$lte": ["b", "B"]}`, caseInsensitive, `true`, `false`},
		{`{"$gt": ["2", "10"]}`, numericOrdering, `false`, `true`},
		{`{"$gte": ["2", "10"]}`, numericOrdering, `false`, `true`},
		{`{"$gte": ["b", "B"]}`, caseInsensitive, `true`, `true`},
		{`{"$in": ["A", [1, 2, "a", 3, 4]]}`, caseInsensitive, `true`, `false`},
		{`{"$indexOfArray": [[1, 2, "a", "b", "c", "B"], "B"]}`, caseInsensitive, `3`, `5`},
		{`{"$indexOfBytes": ["12abcB", "B"]}`, caseInsensitive, `5`, `5`},
		{`{"$indexOfCP": ["12abcB", "B"]}`, caseInsensitive, `5`, `5`},
		{`{"$strcasecmp": ["100", "2"]}`, numericOrdering, `-1`, `-1`},
		{`{"$split": ["abc", "B"]}`, caseInsensitive, `["abc"]`, `["abc"]`},
		{`{"$setEquals": [["a", "B"], ["b", "A"]]}`, caseInsensitive, `true`, `false`},
		{`{"$size": {"$setIntersection": [["a", "B", "c"], ["d", "b", "A"]]}}`, caseInsensitive, `2`, `0`},
		{`{"$size": {"$setUnion": [["a", "B", "c"], ["d", "b", "A"]]}}`, caseInsensitive, `4`, `6`},
		{`{"$setDifference": [["a", "B"], ["b", "A"]]}`, caseInsensitive, `[]`, `["a", "B"]`},
		{`{"$setIsSubset": [["a", "B"], ["b", "A", "c"]]}`, caseInsensitive, `true`, `false`},
		{`{"$filter": {"input": {"$cond": {"if": {"$eq": ["FOO", "foo"]}, "then": ["a", "b", "A", "c", "C", "d"], "else": null}}, "as": "str", "cond": {"$or": [{"$eq": ["$$str", "a"]}, {"$eq": ["$$str", "c"]}]}}}`,
			caseInsensitive, `["a", "A", "c", "C"]`, `null`},
		{`{"$let": {"vars": {"str": {"$cond": [{"$eq": ["A", "a"]}, "b", "c"]}}, "in": {"$cond": [{"$eq": ["$$str", "B"]}, "d", "e"]}}}`, caseInsensitive, `"d"`, `"e"`},
		{`{"$map": {"input": {"$cond": [{"$eq": ["A", "a"]}, ["aa", "a", "AA", "b"], null]}, "as": "val", "in": {"$and": [{"$eq": ["$$val", "aA"]}, {"$eq": ["$$val", "Aa"]}]}}}`,
			caseInsensitive, `[true, false, true, false]`, `null`},
		{`{"$reduce": {"input": {"$cond": [{"$eq": ["a", "A"]}, [1, 2, 3], null]}, "initialValue": {"$cond": [{"$eq": ["a", "A"]}, {"sum": 1}, {"sum": 0}]}, "in": {"$cond": [{"$eq": ["a", "A"]}, {"sum": {"$add": ["$$value.sum", "$$this"]}}, {"sum": 0}]}}}`,
			caseInsensitive, `{"sum": 7}`, `null`},
		{`{"$zip": {"inputs": [{"$cond": [{"$eq": ["A", "a"]}, [0, 2, 4], [1, 3]]}, {"$cond": [{"$eq": ["B", "b"]}, [1, 3], [0, 2, 4]]}], "defaults": [0, {"$cond": [{"$eq": ["C", "c"]}, 5, 7]}], "useLongestLength": true}}`,
			caseInsensitive, `[[0, 1], [2, 3], [4, 5]]`, `[[1, 0], [3, 2], [0, 4]]`},
		// Beyond the jstest: the other comparing operators.
		{`{"$sortArray": {"input": ["b", "A", "a", "B"], "sortBy": 1}}`, caseInsensitive, `["A", "a", "b", "B"]`, `["A", "B", "a", "b"]`},
		{`{"$sortArray": {"input": [{"k": "b"}, {"k": "A"}, {"k": "a"}], "sortBy": {"k": -1}}}`, caseInsensitive, `[{"k": "b"}, {"k": "A"}, {"k": "a"}]`, `[{"k": "b"}, {"k": "a"}, {"k": "A"}]`},
		{`{"$max": ["2", "10"]}`, numericOrdering, `"10"`, `"2"`},
		{`{"$min": [["B", "a"]]}`, caseInsensitive, `"a"`, `"B"`},
		{`{"$maxN": {"n": 2, "input": ["2", "10", "9"]}}`, numericOrdering, `["10", "9"]`, `["9", "2"]`},
	}
	for _, c := range cases {
		p := `[{"$project": {"_id": 0, "out": ` + c.expr + `}}]`
		got := aggUnder(t, db, "one", p, c.coll)
		if len(got) != 1 {
			t.Fatalf("%s: %v", c.expr, got)
		}
		sameValue(t, c.expr+" under "+c.coll, got[0][0].Value, c.want)
		got = aggUnder(t, db, "one", p, "")
		sameValue(t, c.expr+" simple", got[0][0].Value, c.simple)
	}

	// A collection's default collation is the aggregation's.
	mustRun(t, db, "test", `{"create": "ci", "collation": `+caseInsensitive+`}`)
	loadCorpus(t, db, "test", "ci", []string{`{"_id": 1, "str": "A", "str2": "B"}`})
	got := aggUnder(t, db, "ci", `[{"$project": {"cmp": {"$cmp": ["a", "A"]}, "and": {"$and": [{"$eq": ["$str", "a"]}, {"$eq": ["$str2", "b"]}]}, "or": {"$or": [{"$eq": ["$str", "c"]}, {"$eq": ["$str2", "b"]}]}}}]`, "")
	sameValue(t, "under the collection's collation", got, `[{"_id": 1, "cmp": 0, "and": true, "or": true}]`)

	// $group's _id expressions, and $switch's branches.
	got = aggUnder(t, db, "one", `[{"$group": {"_id": {"a": {"$eq": ["a", "A"]}, "b": {"$eq": ["b", "B"]}}}}]`, caseInsensitive)
	sameValue(t, "$group _id expressions", got, `[{"_id": {"a": true, "b": true}}]`)
	loadCorpus(t, db, "test", "sw", []string{`{"_id": 1, "a": "A"}`, `{"_id": 2, "b": "B"}`, `{"_id": 3, "c": "C"}`})
	got = aggUnder(t, db, "sw", `[{"$sort": {"_id": 1}}, {"$project": {"out": {"$switch": {"branches": [{"case": {"$eq": ["$a", "a"]}, "then": "foo"}, {"case": {"$eq": ["$b", "b"]}, "then": "bar"}], "default": "baz"}}}}]`, caseInsensitive)
	sameValue(t, "$switch", got, `[{"_id": 1, "out": "foo"}, {"_id": 2, "out": "bar"}, {"_id": 3, "out": "baz"}]`)
}

// TestCollationGroup: $group's keys, $sortByCount, $facet and the
// accumulators that compare ($addToSet, $min, $max) under the
// collection's default collation and an explicit one.
func TestCollationGroup(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "g", "collation": `+caseInsensitive+`}`)
	loadCorpus(t, db, "test", "g", []string{
		`{"_id": 0, "str": "A", "str2": "á"}`, `{"_id": 1, "str": "a", "str2": "a"}`,
		`{"_id": 2, "str": "B", "str2": "é"}`, `{"_id": 3, "str": "b", "str2": "e"}`,
	})
	count := func(pipeline, collation string) int { return len(aggUnder(t, db, "g", pipeline, collation)) }
	for _, c := range []struct {
		pipeline, coll string
		want           int
	}{
		{`[{"$group": {"_id": "$str"}}]`, "", 2},
		{`[{"$group": {"_id": "$str2"}}]`, accentBlind, 2},
		{`[{"$sortByCount": "$str"}]`, "", 2},
		{`[{"$sortByCount": "$str2"}]`, "", 4},
		{`[{"$sortByCount": "$str2"}]`, accentBlind, 2},
		{`[{"$group": {"_id": "$str"}}]`, `{"locale": "simple"}`, 4},
	} {
		if n := count(c.pipeline, c.coll); n != c.want {
			t.Errorf("%s under %q: %d results, want %d", c.pipeline, c.coll, n, c.want)
		}
	}
	got := aggUnder(t, db, "g", `[{"$facet": {"facetStr": [{"$group": {"_id": "$str"}}], "facetStr2": [{"$group": {"_id": "$str2"}}]}}, {"$project": {"s": {"$size": "$facetStr"}, "s2": {"$size": "$facetStr2"}}}]`, "")
	sameValue(t, "$facet", got, `[{"s": 2, "s2": 4}]`)
	got = aggUnder(t, db, "g", `[{"$group": {"_id": null, "set": {"$addToSet": "$str"}}}]`, "")
	sameValue(t, "$addToSet", got, `[{"_id": null, "set": ["A", "B"]}]`)
	got = aggUnder(t, db, "g", `[{"$group": {"_id": null, "set": {"$addToSet": "$str2"}}}]`, accentBlind)
	sameValue(t, "$addToSet accent-blind", got, `[{"_id": null, "set": ["á", "é"]}]`)
	got = aggUnder(t, db, "g", `[{"$match": {"_id": 0}}, {"$group": {"_id": null, "areEqual": {"$push": {"$eq": ["$str", "$str2"]}}}}]`, accentBlind)
	sameValue(t, "$push of $eq", got, `[{"_id": null, "areEqual": [true]}]`)
	// The group's _id is its first document's value.
	got = aggUnder(t, db, "g", `[{"$sort": {"_id": 1}}, {"$group": {"_id": "$str", "n": {"$sum": 1}}}, {"$sort": {"_id": 1}}]`, "")
	sameValue(t, "$group ids", got, `[{"_id": "A", "n": 2}, {"_id": "B", "n": 2}]`)

	mustRun(t, db, "test", `{"create": "num", "collation": `+numericOrdering+`}`)
	loadCorpus(t, db, "test", "num", []string{`{"_id": 1, "num": "100"}`, `{"_id": 2, "num": "2"}`})
	got = aggUnder(t, db, "num", `[{"$group": {"_id": null, "min": {"$min": "$num"}, "max": {"$max": "$num"}, "top": {"$maxN": {"n": 1, "input": "$num"}}, "first": {"$top": {"sortBy": {"num": 1}, "output": "$_id"}}}}]`, "")
	sameValue(t, "$min/$max numeric", got, `[{"_id": null, "min": "2", "max": "100", "top": ["100"], "first": 2}]`)
	got = aggUnder(t, db, "num", `[{"$group": {"_id": null, "min": {"$min": "$num"}, "max": {"$max": "$num"}}}]`, `{"locale": "simple"}`)
	sameValue(t, "$min/$max simple", got, `[{"_id": null, "min": "100", "max": "2"}]`)
}

// TestCollationStages: the stages after the scan ($sort, $match with
// $expr, $bucket, $bucketAuto, $lookup, $graphLookup, $unionWith,
// $setWindowFields, $densify's partitions) and find's $expr compare
// under the collation.
func TestCollationStages(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "s", []string{
		`{"_id": 1, "s": "b"}`, `{"_id": 2, "s": "A"}`, `{"_id": 3, "s": "a"}`, `{"_id": 4, "s": "B"}`, `{"_id": 5, "s": "c"}`,
	})
	ids := func(docs []bson.D) string {
		out := ""
		for _, d := range docs {
			out += fmt.Sprint(d[0].Value)
		}
		return out
	}
	for _, c := range []struct{ name, pipeline, want, simple string }{
		{"$sort after $group", `[{"$group": {"_id": "$_id", "s": {"$first": "$s"}}}, {"$sort": {"s": 1, "_id": 1}}]`, "23145", "24315"},
		{"$match $expr", `[{"$project": {"s": 1}}, {"$match": {"$expr": {"$eq": ["$s", "a"]}}}, {"$sort": {"_id": 1}}]`, "23", "3"},
		{"$match", `[{"$project": {"s": 1}}, {"$match": {"s": {"$lt": "b"}}}, {"$sort": {"_id": 1}}]`, "23", "234"},
		{"$unionWith", `[{"$match": {"_id": 0}}, {"$unionWith": {"coll": "s", "pipeline": [{"$match": {"$expr": {"$eq": ["$s", "B"]}}}, {"$sort": {"_id": 1}}]}}]`, "14", "4"},
		{"$setWindowFields partitions", `[{"$setWindowFields": {"partitionBy": "$s", "output": {"n": {"$count": {}}}}}, {"$match": {"n": 2}}, {"$sort": {"_id": 1}}]`, "1234", ""},
	} {
		if got := ids(aggUnder(t, db, "s", c.pipeline, caseInsensitive)); got != c.want {
			t.Errorf("%s under strength 2: %s, want %s", c.name, got, c.want)
		}
		if got := ids(aggUnder(t, db, "s", c.pipeline, "")); got != c.simple {
			t.Errorf("%s simple: %s, want %s", c.name, got, c.simple)
		}
	}
	// find's $expr.
	if got := ids(firstBatch(t, mustRun(t, db, "test", `{"find": "s", "filter": {"$expr": {"$eq": ["$s", "a"]}}, "sort": {"_id": 1}, "collation": `+caseInsensitive+`}`))); got != "23" {
		t.Errorf("find $expr under strength 2: %s, want 23", got)
	}
	// find's and findAndModify's computed projections.
	got := firstBatch(t, mustRun(t, db, "test", `{"find": "s", "filter": {"_id": 2}, "projection": {"eq": {"$eq": ["$s", "a"]}}, "collation": `+caseInsensitive+`}`))
	sameValue(t, "find projection", got, `[{"_id": 2, "eq": true}]`)
	got = firstBatch(t, mustRun(t, db, "test", `{"find": "s", "filter": {"_id": 2}, "projection": {"eq": {"$eq": ["$s", "a"]}}}`))
	sameValue(t, "find projection simple", got, `[{"_id": 2, "eq": false}]`)
	r := mustRun(t, db, "test", `{"findAndModify": "s", "query": {"_id": 2}, "update": {"$set": {"x": 1}}, "fields": {"eq": {"$eq": ["$s", "a"]}}, "collation": `+caseInsensitive+`}`)
	sameValue(t, "findAndModify fields", field(r, "value"), `{"_id": 2, "eq": true}`)

	// $bucket: a string between boundaries under the collation.
	got = aggUnder(t, db, "s", `[{"$bucket": {"groupBy": "$s", "boundaries": ["a", "b", "c"], "default": "other", "output": {"n": {"$sum": 1}}}}]`, caseInsensitive)
	sameValue(t, "$bucket", got, `[{"_id": "a", "n": 2}, {"_id": "b", "n": 2}, {"_id": "other", "n": 1}]`)
	got = aggUnder(t, db, "s", `[{"$bucket": {"groupBy": "$s", "boundaries": ["a", "b", "c"], "default": "other", "output": {"n": {"$sum": 1}}}}]`, "")
	sameValue(t, "$bucket simple", got, `[{"_id": "a", "n": 1}, {"_id": "b", "n": 1}, {"_id": "other", "n": 3}]`)
	// $bucketAuto: keys equal under the collation stay in one bucket
	// (three a bucket, then "B" joins "b").
	got = aggUnder(t, db, "s", `[{"$bucketAuto": {"groupBy": "$s", "buckets": 2}}]`, caseInsensitive)
	sameValue(t, "$bucketAuto", got, `[{"_id": {"min": "A", "max": "c"}, "count": 4}, {"_id": {"min": "c", "max": "c"}, "count": 1}]`)
	got = aggUnder(t, db, "s", `[{"$bucketAuto": {"groupBy": "$s", "buckets": 2}}]`, "")
	sameValue(t, "$bucketAuto simple", got, `[{"_id": {"min": "A", "max": "b"}, "count": 3}, {"_id": {"min": "b", "max": "c"}, "count": 2}]`)

	// $lookup, both forms, and $graphLookup.
	loadCorpus(t, db, "test", "f", []string{`{"_id": 10, "k": "A", "next": "b"}`, `{"_id": 11, "k": "B", "next": "x"}`})
	got = aggUnder(t, db, "s", `[{"$match": {"_id": 3}}, {"$lookup": {"from": "f", "localField": "s", "foreignField": "k", "as": "m"}}, {"$project": {"m": "$m._id"}}]`, caseInsensitive)
	sameValue(t, "$lookup", got, `[{"_id": 3, "m": [10]}]`)
	got = aggUnder(t, db, "s", `[{"$match": {"_id": 3}}, {"$lookup": {"from": "f", "let": {"v": "$s"}, "pipeline": [{"$match": {"$expr": {"$eq": ["$k", "$$v"]}}}], "as": "m"}}, {"$project": {"m": "$m._id"}}]`, caseInsensitive)
	sameValue(t, "$lookup pipeline", got, `[{"_id": 3, "m": [10]}]`)
	got = aggUnder(t, db, "s", `[{"$match": {"_id": 3}}, {"$lookup": {"from": "f", "let": {"v": "$s"}, "pipeline": [{"$match": {"$expr": {"$eq": ["$k", "$$v"]}}}], "as": "m"}}, {"$project": {"m": "$m._id"}}]`, "")
	sameValue(t, "$lookup pipeline simple", got, `[{"_id": 3, "m": []}]`)
	got = aggUnder(t, db, "s", `[{"$match": {"_id": 3}}, {"$graphLookup": {"from": "f", "startWith": "$s", "connectFromField": "next", "connectToField": "k", "as": "g"}}, {"$project": {"g": {"$sortArray": {"input": "$g._id", "sortBy": 1}}}}]`, caseInsensitive)
	sameValue(t, "$graphLookup", got, `[{"_id": 3, "g": [10, 11]}]`)

	// $densify: documents whose partition fields are equal under the
	// collation are one partition.
	loadCorpus(t, db, "test", "d", []string{`{"_id": 1, "p": "x", "v": 0}`, `{"_id": 2, "p": "X", "v": 2}`})
	got = aggUnder(t, db, "d", `[{"$densify": {"field": "v", "partitionByFields": ["p"], "range": {"step": 1, "bounds": "partition"}}}, {"$project": {"_id": 0, "v": 1}}]`, caseInsensitive)
	sameValue(t, "$densify partition", got, `[{"v": 0}, {"v": 1}, {"v": 2}]`)
	got = aggUnder(t, db, "d", `[{"$densify": {"field": "v", "partitionByFields": ["p"], "range": {"step": 1, "bounds": "partition"}}}, {"$project": {"_id": 0, "v": 1}}]`, "")
	sameValue(t, "$densify partition simple", got, `[{"v": 2}, {"v": 0}]`)
}

// TestCollationWindows is mongod's $setWindowFields collation jstest:
// sortBy, partitionBy, $rank, $denseRank and $min/$max compare under the
// collation.
func TestCollationWindows(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "w", []string{
		`{"_id": 1, "key": "02", "valStr": "2", "valInt": 20}`,
		`{"_id": 2, "key": "2", "valStr": "10", "valInt": 5}`,
		`{"_id": 3, "key": "10", "valStr": "3", "valInt": 12}`,
	})
	got := aggUnder(t, db, "w", `[{"$setWindowFields": {"sortBy": {"valStr": -1}, "output": {"arr": {"$push": "$valStr", "window": {"documents": ["unbounded", "unbounded"]}}}}}, {"$limit": 1}, {"$project": {"_id": 0, "arr": 1}}]`, numericOrdering)
	sameValue(t, "sortBy", got, `[{"arr": ["10", "3", "2"]}]`)
	const part = `[{"$setWindowFields": {"partitionBy": "$key", "output": {"minInt": {"$min": "$valInt", "window": {"documents": ["unbounded", "unbounded"]}}, "maxInt": {"$max": "$valInt", "window": {"documents": ["unbounded", "unbounded"]}}}}}, {"$sort": {"_id": 1}}, {"$project": {"_id": 0, "minInt": 1, "maxInt": 1}}]`
	sameValue(t, "partitionBy", aggUnder(t, db, "w", part, numericOrdering), `[{"minInt": 5, "maxInt": 20}, {"minInt": 5, "maxInt": 20}, {"minInt": 12, "maxInt": 12}]`)
	sameValue(t, "partitionBy simple", aggUnder(t, db, "w", part, ""), `[{"minInt": 20, "maxInt": 20}, {"minInt": 5, "maxInt": 5}, {"minInt": 12, "maxInt": 12}]`)

	loadCorpus(t, db, "test", "r", []string{
		`{"_id": 1, "key": "02"}`, `{"_id": 2, "key": "2"}`, `{"_id": 3, "key": "3"}`,
	})
	const rank = `[{"$setWindowFields": {"sortBy": {"key": 1}, "output": {"rank": {"$rank": {}}, "dense": {"$denseRank": {}}}}}, {"$sort": {"_id": 1}}, {"$project": {"_id": 0, "rank": 1, "dense": 1}}]`
	sameValue(t, "$rank", aggUnder(t, db, "r", rank, numericOrdering), `[{"rank": 1, "dense": 1}, {"rank": 1, "dense": 1}, {"rank": 3, "dense": 2}]`)
	sameValue(t, "$rank simple", aggUnder(t, db, "r", rank, ""), `[{"rank": 1, "dense": 1}, {"rank": 2, "dense": 2}, {"rank": 3, "dense": 3}]`)

	loadCorpus(t, db, "test", "m", []string{
		`{"_id": 1, "key": "2", "valStr": "2"}`, `{"_id": 2, "key": "2", "valStr": "10"}`, `{"_id": 3, "key": "10", "valStr": "3"}`,
	})
	const minmax = `[{"$setWindowFields": {"partitionBy": "$key", "sortBy": {"_id": 1}, "output": {"minVal": {"$min": "$valStr", "window": {"documents": ["unbounded", "unbounded"]}}, "maxVal": {"$max": "$valStr", "window": {"documents": ["unbounded", "unbounded"]}}, "slid": {"$max": "$valStr", "window": {"documents": [-1, 0]}}, "set": {"$addToSet": "$valStr", "window": {"documents": [-1, 0]}}}}}, {"$sort": {"_id": 1}}, {"$project": {"_id": 0, "minVal": 1, "maxVal": 1, "slid": 1, "set": 1}}]`
	sameValue(t, "$min/$max", aggUnder(t, db, "m", minmax, numericOrdering),
		`[{"minVal": "2", "maxVal": "10", "slid": "2", "set": ["2"]}, {"minVal": "2", "maxVal": "10", "slid": "10", "set": ["2", "10"]}, {"minVal": "3", "maxVal": "3", "slid": "3", "set": ["3"]}]`)
	sameValue(t, "$min/$max simple", aggUnder(t, db, "m", minmax, ""),
		`[{"minVal": "10", "maxVal": "2", "slid": "2", "set": ["2"]}, {"minVal": "10", "maxVal": "2", "slid": "2", "set": ["10", "2"]}, {"minVal": "3", "maxVal": "3", "slid": "3", "set": ["3"]}]`)
}

// TestCollationGroupSpills: a $group past its memory limit spills its
// groups to disk keyed under the collation, and reads them back merged
// as the in-memory path groups them.
func TestCollationGroupSpills(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := range 400 {
		s := fmt.Sprintf("k%03d", i%100)
		if i%2 == 1 {
			s = fmt.Sprintf("K%03d", i%100)
		}
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "s": %q, "pad": "%0200d"}`, i, s, i))
	}
	loadCorpus(t, db, "test", "sp", docs)
	mustRun(t, db, "admin", `{"setParameter": 1, "internalDocumentSourceGroupMaxMemoryBytes": 4096}`)
	const p = `[{"$group": {"_id": "$s", "n": {"$sum": 1}, "pads": {"$push": "$pad"}}}, {"$project": {"n": 1}}, {"$match": {"n": {"$ne": 4}}}]`
	cmd := `{"aggregate": "sp", "pipeline": ` + p + `, "cursor": {}, "allowDiskUse": true, "collation": ` + caseInsensitive + `}`
	r := mustRun(t, db, "test", cmd)
	if got := firstBatch(t, r); len(got) != 0 {
		t.Errorf("spilled groups under strength 2 not of 4 documents each: %v", got)
	}
	cmd = `{"aggregate": "sp", "pipeline": [{"$group": {"_id": "$s", "pads": {"$push": "$pad"}}}, {"$count": "groups"}], "cursor": {}, "allowDiskUse": true, "collation": ` + caseInsensitive + `}`
	sameValue(t, "spilled group count", firstBatch(t, mustRun(t, db, "test", cmd)), `[{"groups": 100}]`)
}
