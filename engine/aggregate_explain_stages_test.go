package engine

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestExplainAggregateStageShapes: the stages after an aggregate's
// $cursor are shown as mongod 7.0 serializes them once parsed and
// optimised, not as the user wrote them: $project names _id, includes
// with true and computes with normalised expressions; $addFields and
// $set literals are {$const}, operator arguments arrays, constant
// expressions folded; $group's accumulators likewise; $sort is
// {sortKey} and absorbs the $limit after it; $unwind is {path, ...};
// $lookup lists from, as, localField, foreignField (let, pipeline) and
// absorbs an $unwind of its output field; $count and $sortByCount are
// the $group and the stage after it; $skip and $limit are longs; a
// later $match is its normalised filter.
func TestExplainAggregateStageShapes(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	for _, c := range []struct {
		pipeline string // after a leading {$match: {a: {$gte: 1}}}
		want     string // the stages after the $cursor
	}{
		{`[{"$unwind": "$arr"}, {"$project": {"ns": 1, "s.t": true, "c": {"$add": ["$a", 1]}, "d": "x"}}]`,
			`[{"$unwind": {"path": "$arr"}},
			  {"$project": {"_id": true, "ns": true, "s": {"t": true}, "c": {"$add": ["$a", {"$const": 1}]}, "d": {"$const": "x"}}}]`},
		{`[{"$unwind": "$arr"}, {"$project": {"b": 0, "s": {"t": false}}}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$project": {"b": false, "s": {"t": false}, "_id": true}}]`},
		{`[{"$unwind": "$arr"}, {"$unset": ["b", "s.t"]}, {"$replaceWith": {"r": "$s", "k": 1}}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$project": {"b": false, "s": {"t": false}, "_id": true}},
			  {"$replaceRoot": {"newRoot": {"r": "$s", "k": {"$const": 1}}}}]`},
		{`[{"$unwind": "$arr"}, {"$unset": "_id"}, {"$replaceRoot": {"newRoot": "$s"}}, {"$sample": {"size": 2}}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$project": {"_id": false}}, {"$replaceRoot": {"newRoot": "$s"}}, {"$sample": {"size": {"$numberLong": "2"}}}]`},
		{`[{"$unwind": "$arr"}, {"$redact": {"$cond": [{"$eq": ["$a", 1]}, "$$PRUNE", "$$KEEP"]}}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$redact": {"$cond": [{"$eq": ["$a", {"$const": 1}]}, "$$PRUNE", "$$KEEP"]}}]`},
		{`[{"$unwind": "$arr"}, {"$project": {"_id": 0, "b": 1}}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$project": {"_id": false, "b": true}}]`},
		{`[{"$addFields": {"x": 1, "y.z": "lit", "w": {"$concat": ["$s", "-"]}, "k": {"$add": [1, 2]}, "u": {"$toUpper": "$s"}, "l": {"$literal": "$a"}, "o": {"$add": [{"$literal": 1}, 2]}, "g": {"$concat": [{"$literal": "$"}, "$s"]}}}]`,
			`[{"$addFields": {"x": {"$const": 1}, "y": {"z": {"$const": "lit"}}, "w": {"$concat": ["$s", {"$const": "-"}]},
			   "k": {"$const": 3}, "u": {"$toUpper": ["$s"]}, "l": {"$const": "$a"}, "o": {"$const": 3}, "g": {"$concat": [{"$const": "$"}, "$s"]}}}]`},
		{`[{"$set": {"x": "$b", "c": {"$cond": {"if": "$b", "then": 1, "else": 0}}}}]`,
			`[{"$set": {"x": "$b", "c": {"$cond": ["$b", {"$const": 1}, {"$const": 0}]}}}]`},
		{`[{"$set": {"l": {"$let": {"vars": {"v": 1, "w": "$b"}, "in": {"$add": ["$$v", "$$w"]}}},
			"m": {"$map": {"input": "$arr", "as": "e", "in": {"$multiply": ["$$e", 2]}}},
			"s": {"$switch": {"branches": [{"case": {"$gt": ["$a", 1]}, "then": "big"}], "default": "small"}}}}]`,
			`[{"$set": {"l": {"$let": {"vars": {"v": {"$const": 1}, "w": "$b"}, "in": {"$add": ["$$v", "$$w"]}}},
			  "m": {"$map": {"input": "$arr", "as": "e", "in": {"$multiply": ["$$e", {"$const": 2}]}}},
			  "s": {"$switch": {"branches": [{"case": {"$gt": ["$a", {"$const": 1}]}, "then": {"$const": "big"}}], "default": {"$const": "small"}}}}}]`},
		{`[{"$group": {"_id": "$b", "n": {"$sum": 1}, "t": {"$push": "$a"}, "m": {"$max": {"$multiply": ["$a", 2]}}}}, {"$sort": {"n": -1, "_id": 1}}, {"$limit": 3}]`,
			`[{"$group": {"_id": "$b", "n": {"$sum": {"$const": 1}}, "t": {"$push": "$a"}, "m": {"$max": {"$multiply": ["$a", {"$const": 2}]}}}},
			  {"$sort": {"sortKey": {"n": -1, "_id": 1}, "limit": {"$numberLong": "3"}}}]`},
		{`[{"$group": {"_id": null, "n": {"$sum": "$a"}}}]`,
			`[{"$group": {"_id": {"$const": null}, "n": {"$sum": "$a"}}}]`},
		{`[{"$group": {"_id": {"k": "$b", "c": 1}, "f": {"$first": {"x": 1, "y": [1, 2]}}}}]`,
			`[{"$group": {"_id": {"k": "$b", "c": {"$const": 1}}, "f": {"$first": {"$const": {"x": 1, "y": [1, 2]}}}}}]`},
		{`[{"$group": {"_id": "$b", "c": {"$count": {}}, "t": {"$top": {"sortBy": {"a": -1}, "output": "$a"}},
			"f": {"$firstN": {"input": "$a", "n": 2}}}}]`,
			`[{"$group": {"_id": "$b", "c": {"$sum": {"$const": 1}}, "t": {"$top": {"output": "$a", "sortBy": {"a": -1}}},
			  "f": {"$firstN": {"n": {"$const": 2}, "input": "$a"}}}}]`},
		{`[{"$group": {"_id": {"x": 1, "y": "s"}}}]`,
			`[{"$group": {"_id": {"x": {"$const": 1}, "y": {"$const": "s"}}}}]`},
		{`[{"$unwind": {"path": "$arr", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": false}}, {"$skip": 1}]`,
			`[{"$unwind": {"path": "$arr", "includeArrayIndex": "i"}}, {"$skip": {"$numberLong": "1"}}]`},
		{`[{"$unwind": {"includeArrayIndex": "i", "path": "$arr", "preserveNullAndEmptyArrays": true}}, {"$limit": 2}]`,
			`[{"$unwind": {"path": "$arr", "preserveNullAndEmptyArrays": true, "includeArrayIndex": "i"}}, {"$limit": {"$numberLong": "2"}}]`},
		{`[{"$lookup": {"localField": "a", "foreignField": "b", "from": "o", "as": "j"}}]`,
			`[{"$lookup": {"from": "o", "as": "j", "localField": "a", "foreignField": "b"}}]`},
		{`[{"$lookup": {"from": "o", "localField": "a", "foreignField": "b", "as": "j"}}, {"$unwind": "$j"}]`,
			`[{"$lookup": {"from": "o", "as": "j", "localField": "a", "foreignField": "b", "unwinding": {"preserveNullAndEmptyArrays": false}}}]`},
		{`[{"$lookup": {"from": "o", "let": {"v": "$a", "k": 2}, "pipeline": [{"$project": {"b": 1}}], "as": "j"}}]`,
			`[{"$lookup": {"from": "o", "as": "j", "let": {"v": "$a", "k": {"$const": 2}}, "pipeline": [{"$project": {"_id": true, "b": true}}]}}]`},
		{`[{"$unwind": "$arr"}, {"$facet": {"n": [{"$count": "k"}], "p": [{"$project": {"a": 1}}, {"$sort": {"a": -1}}, {"$limit": 1}]}}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$facet": {
			   "n": [{"$group": {"_id": {"$const": null}, "k": {"$sum": {"$const": 1}}}}, {"$project": {"_id": false, "k": true}}],
			   "p": [{"$project": {"_id": true, "a": true}}, {"$sort": {"sortKey": {"a": -1}, "limit": {"$numberLong": "1"}}}]}}]`},
		{`[{"$unwind": "$arr"}, {"$bucketAuto": {"groupBy": "$a", "buckets": 2}}, {"$bucketAuto": {"output": {"m": {"$max": "$a"}}, "granularity": "R5", "buckets": 3.0, "groupBy": {"$add": ["$a", 1]}}}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$bucketAuto": {"groupBy": "$a", "buckets": 2, "output": {"count": {"$sum": {"$const": 1}}}}},
			  {"$bucketAuto": {"groupBy": {"$add": ["$a", {"$const": 1}]}, "buckets": 3, "granularity": "R5", "output": {"m": {"$max": "$a"}}}}]`},
		{`[{"$unwind": "$arr"}, {"$out": "o"}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$out": {"db": "test", "coll": "o"}}]`},
		{`[{"$unwind": "$arr"}, {"$merge": {"into": {"db": "x", "coll": "o"}, "whenMatched": "keepExisting"}}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$merge": {"into": {"db": "x", "coll": "o"}, "on": "_id", "whenMatched": "keepExisting", "whenNotMatched": "insert"}}]`},
		// The scan takes a leading $sort and the $limit after it.
		{`[{"$sort": {"b": 1}}, {"$limit": 2}, {"$unwind": "$arr"}]`,
			`[{"$unwind": {"path": "$arr"}}]`},
		{`[{"$unwind": "$arr"}, {"$count": "n"}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$group": {"_id": {"$const": null}, "n": {"$sum": {"$const": 1}}}}, {"$project": {"_id": false, "n": true}}]`},
		{`[{"$unwind": "$arr"}, {"$sortByCount": "$arr"}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$group": {"_id": "$arr", "count": {"$sum": {"$const": 1}}}}, {"$sort": {"sortKey": {"count": -1}}}]`},
		{`[{"$unwind": {"path": "$arr", "includeArrayIndex": "i"}}, {"$match": {"i": 1}}]`,
			`[{"$unwind": {"path": "$arr", "includeArrayIndex": "i"}}, {"$match": {"i": {"$eq": 1}}}]`},
		{`[{"$unwind": {"path": "$arr", "includeArrayIndex": "i"}}, {"$match": {"arr": {"$gt": 0}, "i": 1}}]`,
			`[{"$unwind": {"path": "$arr", "includeArrayIndex": "i"}}, {"$match": {"$and": [{"i": {"$eq": 1}}, {"arr": {"$gt": 0}}]}}]`},
	} {
		cmd := `{"aggregate": "c", "pipeline": [{"$match": {"a": {"$gte": 1}}}, ` + c.pipeline[1:] + `, "cursor": {}}`
		r := explainOf(t, db, cmd, "queryPlanner")
		stages, _ := field(r, "stages").(bson.A)
		if len(stages) == 0 {
			t.Errorf("%s: no stages: %v", c.pipeline, r)
			continue
		}
		want := field(mustDoc(t, `{"a": `+c.want+`}`), "a")
		if got, w := canon(t, bson.D{{Key: "v", Value: stages[1:]}}), canon(t, bson.D{{Key: "v", Value: want}}); got != w {
			t.Errorf("%s: stages\n got %s\nwant %s", c.pipeline, got, w)
		}
		// The command is the user's pipeline, as given.
		if got, w := canon(t, bson.D{{Key: "v", Value: field(r, "command.pipeline")}}), canon(t, bson.D{{Key: "v", Value: field(mustDoc(t, cmd), "pipeline")}}); got != w {
			t.Errorf("%s: command.pipeline %s, want %s", c.pipeline, got, w)
		}
	}
}

// TestExplainAggregateStageShapesExecuted: executed, a stage that
// stands for several ($sort with its $limit) shows what the last of them
// handed on, and $count's $group and $project both show its one result.
func TestExplainAggregateStageShapesExecuted(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	r := explainOf(t, db, `{"aggregate": "c", "pipeline": [{"$match": {"a": {"$gte": 2}}}, {"$group": {"_id": "$b", "n": {"$sum": 1}}},
		{"$sort": {"_id": 1}}, {"$limit": 2}, {"$count": "k"}], "cursor": {}}`, "executionStats")
	stages, _ := field(r, "stages").(bson.A)
	want := []struct {
		name string
		n    int64
	}{{"$cursor", -1}, {"$group", 3}, {"$sort", 2}, {"$group", 1}, {"$project", 1}}
	checkFigures(t, stages, want)
	// The scan took the $sort and its $limit: the stage after shows its
	// own count.
	r = explainOf(t, db, `{"aggregate": "c", "pipeline": [{"$match": {"a": {"$gte": 2}}}, {"$sort": {"b": 1}}, {"$limit": 2},
		{"$addFields": {"x": 1}}], "cursor": {}}`, "executionStats")
	stages, _ = field(r, "stages").(bson.A)
	want = []struct {
		name string
		n    int64
	}{{"$cursor", -1}, {"$addFields", 2}}
	checkFigures(t, stages, want)
}

func checkFigures(t *testing.T, stages bson.A, want []struct {
	name string
	n    int64
}) {
	t.Helper()
	if len(stages) != len(want) {
		t.Fatalf("stages %v, want %d", stages, len(want))
	}
	for i, w := range want {
		st := stages[i].(bson.D)
		if st[0].Key != w.name {
			t.Errorf("stage %d is %s, want %s", i, st[0].Key, w.name)
		}
		if w.n < 0 {
			continue
		}
		if n, _ := get(st, "nReturned"); n != w.n {
			t.Errorf("stage %d (%s): nReturned %#v, want %d", i, w.name, n, w.n)
		}
	}
}

// TestExplainCurrentOp: explain of {aggregate: 1} on admin starting
// with $currentOp answers as mongod 7.0's (no $cursor; the stage with
// only the options that differ from their defaults, then the stages
// after it as they serialize), where ttlkv refused it with 40324; the
// aggregate command's explain: true too. Its checks still apply.
func TestExplainCurrentOp(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, c := range []struct {
		cmd, verbosity, want string
	}{
		{`{"aggregate": 1, "pipeline": [{"$currentOp": {}}], "cursor": {}}`, "queryPlanner", `[{"$currentOp": {}}]`},
		{`{"aggregate": 1, "pipeline": [{"$currentOp": {"allUsers": true, "idleConnections": false, "idleSessions": false, "truncateOps": true}},
			{"$match": {"active": true}}, {"$project": {"opid": 1}}], "cursor": {}}`, "queryPlanner",
			`[{"$currentOp": {"idleSessions": false, "allUsers": true, "truncateOps": true}},
			  {"$match": {"active": {"$eq": true}}}, {"$project": {"_id": true, "opid": true}}]`},
		{`{"aggregate": 1, "pipeline": [{"$currentOp": {"idleCursors": true}}, {"$match": {"no": "such"}}], "cursor": {}}`, "executionStats",
			`[{"$currentOp": {"idleCursors": true}, "nReturned": "any", "executionTimeMillisEstimate": "any"},
			  {"$match": {"no": {"$eq": "such"}}, "nReturned": {"$numberLong": "0"}, "executionTimeMillisEstimate": "any"}]`},
	} {
		r := mustRun(t, db, "admin", `{"explain": `+c.cmd+`, "verbosity": "`+c.verbosity+`"}`)
		if got := keysOf(r); got != "explainVersion stages serverInfo serverParameters command ok" {
			t.Errorf("%s: fields %q", c.cmd, got)
		}
		stages, _ := field(r, "stages").(bson.A)
		for _, st := range stages {
			// Figures that vary by run are compared by presence.
			d := st.(bson.D)
			for j := range d {
				if d[j].Key == "executionTimeMillisEstimate" || (d[j].Key == "nReturned" && d[0].Key == "$currentOp") {
					if _, isLong := d[j].Value.(int64); isLong {
						d[j].Value = "any"
					}
				}
			}
		}
		want := field(mustDoc(t, `{"a": `+c.want+`}`), "a")
		if got, w := canon(t, bson.D{{Key: "v", Value: stages}}), canon(t, bson.D{{Key: "v", Value: want}}); got != w {
			t.Errorf("%s at %s: stages\n got %s\nwant %s", c.cmd, c.verbosity, got, w)
		}
		if got := field(r, "command.aggregate"); got != int32(1) {
			t.Errorf("%s: command.aggregate %#v", c.cmd, got)
		}
	}
	r := mustRun(t, db, "admin", `{"aggregate": 1, "pipeline": [{"$currentOp": {}}], "explain": true}`)
	if got := canon(t, bson.D{{Key: "v", Value: field(r, "stages")}}); got != `{"v":[{"$currentOp":{}}]}` {
		t.Errorf("explain: true: stages %s", got)
	}
	wantCode(t, db, "test", `{"explain": {"aggregate": 1, "pipeline": [{"$currentOp": {}}], "cursor": {}}}`,
		73, "$currentOp must be run against the 'admin' database with {aggregate: 1}")
	wantCode(t, db, "admin", `{"explain": {"aggregate": 1, "pipeline": [{"$currentOp": {"bogus": true}}], "cursor": {}}}`,
		9, "Unrecognized option 'bogus' in $currentOp stage.")
}
