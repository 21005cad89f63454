package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// explain of an aggregate that starts with $collStats or $indexStats is
// mongod 7.0's explain of a pipeline without a $cursor: the stages as
// they serialize ($indexStats as {}, $collStats as its IDL spec: the
// fields given, in latencyStats, storageStats, count, queryExecStats
// order), then serverInfo, serverParameters and the command; executed,
// each stage adds nReturned and executionTimeMillisEstimate (longs).
// The aggregate command's explain: true answers the same at
// queryPlanner verbosity instead of running the pipeline. Before, the
// explain command refused both with 40324 and explain: true ran them.
func TestExplainSourceStages(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	top := "explainVersion stages serverInfo serverParameters command ok"
	for _, c := range []struct {
		cmd, verbosity string
		want           string // the stages, as extended JSON
	}{
		{`{"aggregate": "c", "pipeline": [{"$indexStats": {}}], "cursor": {}}`, "queryPlanner",
			`[{"$indexStats": {}}]`},
		{`{"aggregate": "c", "pipeline": [{"$indexStats": {}}, {"$match": {"name": "a_1"}}], "cursor": {}}`, "executionStats",
			`[{"$indexStats": {}, "nReturned": {"$numberLong": "2"}, "executionTimeMillisEstimate": {"$numberLong": "0"}},
			  {"$match": {"name": {"$eq": "a_1"}}, "nReturned": {"$numberLong": "1"}, "executionTimeMillisEstimate": {"$numberLong": "0"}}]`},
		{`{"aggregate": "c", "pipeline": [{"$collStats": {"count": {}, "latencyStats": {"histograms": true}}}], "cursor": {}}`, "queryPlanner",
			`[{"$collStats": {"latencyStats": {"histograms": true}, "count": {}}}]`},
		{`{"aggregate": "c", "pipeline": [{"$collStats": {"storageStats": {"scale": 1024.5}, "queryExecStats": {}}}, {"$limit": 5}], "cursor": {}}`, "allPlansExecution",
			`[{"$collStats": {"storageStats": {"scale": 1024}, "queryExecStats": {}}, "nReturned": {"$numberLong": "1"}, "executionTimeMillisEstimate": {"$numberLong": "0"}},
			  {"$limit": {"$numberLong": "5"}, "nReturned": {"$numberLong": "1"}, "executionTimeMillisEstimate": {"$numberLong": "0"}}]`},
		// Not run at queryPlanner: a collection that does not exist has
		// no storageStats to fail on.
		{`{"aggregate": "none", "pipeline": [{"$collStats": {"storageStats": {}}}], "cursor": {}}`, "queryPlanner",
			`[{"$collStats": {"storageStats": {}}}]`},
	} {
		r := explainOf(t, db, c.cmd, c.verbosity)
		if got := keysOf(r); got != top {
			t.Errorf("%s: fields %q, want %q", c.cmd, got, top)
		}
		stages := field(r, "stages").(bson.A)
		for i := range stages {
			// The time is the run's; zero it to compare.
			if d, ok := stages[i].(bson.D); ok {
				for j := range d {
					if d[j].Key == "executionTimeMillisEstimate" {
						d[j].Value = int64(0)
					}
				}
			}
		}
		want := field(mustDoc(t, `{"a": `+c.want+`}`), "a")
		if got, w := canon(t, bson.D{{Key: "v", Value: stages}}), canon(t, bson.D{{Key: "v", Value: want}}); got != w {
			t.Errorf("%s at %s: stages\n got %s\nwant %s", c.cmd, c.verbosity, got, w)
		}
		var inner bson.D
		if err := bson.UnmarshalExtJSON([]byte(c.cmd), false, &inner); err != nil {
			t.Fatal(err)
		}
		if got, w := canon(t, bson.D{{Key: "v", Value: field(r, "command")}}), canon(t, bson.D{{Key: "v", Value: bson.D{inner[0], inner[1]}}}); got != w {
			t.Errorf("%s: command %s, want %s", c.cmd, got, w)
		}
	}
	// A missing collection's storageStats fail when the pipeline runs, as
	// they do when the aggregate runs.
	wantCode(t, db, "test", `{"explain": {"aggregate": "none", "pipeline": [{"$collStats": {"storageStats": {}}}], "cursor": {}}, "verbosity": "executionStats"}`,
		document.CodeNamespaceNotFound, "Unable to retrieve storageStats")
	// aggregate's explain: true: the queryPlanner explain, nothing run.
	for _, c := range []struct{ cmd, want string }{
		{`{"aggregate": "c", "pipeline": [{"$indexStats": {}}, {"$limit": 1}], "explain": true}`, `[{"$indexStats": {}}, {"$limit": {"$numberLong": "1"}}]`},
		{`{"aggregate": "c", "pipeline": [{"$collStats": {"count": {}}}], "explain": true}`, `[{"$collStats": {"count": {}}}]`},
	} {
		r := mustRun(t, db, "test", c.cmd)
		if got := keysOf(r); got != top {
			t.Errorf("%s: fields %q, want %q", c.cmd, got, top)
		}
		want := field(mustDoc(t, `{"a": `+c.want+`}`), "a")
		if got, w := canon(t, bson.D{{Key: "v", Value: field(r, "stages")}}), canon(t, bson.D{{Key: "v", Value: want}}); got != w {
			t.Errorf("%s: stages\n got %s\nwant %s", c.cmd, got, w)
		}
	}
}

// An $or of equalities on one path is planned and shown as mongod 7.0's
// optimizer rewrites it, an $in (jstests/core/query/or/or_to_in.js):
// parsedQuery {a: {$in: [...]}} (values sorted, duplicates dropped, a
// single value an $eq) and one IXSCAN with a point a value, not an OR
// of scans. Branches on other paths stay beside the $in; the path is the
// first equality's; {$eq: /re/} and ranges are not rewritten; nested
// $or's are rewritten first. The documents found are the same. An $or's
// branches are shown sorted as mongod's canonical query sorts them (by
// match type, then path).
func TestExplainOrOfEqualitiesIsIn(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	ixA := func(bounds string) string {
		return `{"stage": "FETCH", "inputStage": {"stage": "IXSCAN", "keyPattern": {"a": 1}, "indexName": "a_1",
			"isMultiKey": false, "multiKeyPaths": {"a": []}, "isUnique": false, "isSparse": false, "isPartial": false,
			"indexVersion": 2, "direction": "forward", "indexBounds": {"a": ` + bounds + `}}}`
	}
	collscan := func(filter string) string {
		return `{"stage": "COLLSCAN", "filter": ` + filter + `, "direction": "forward"}`
	}
	for _, c := range []struct {
		filter, parsed, plan string
		ids                  string // the _ids found
	}{
		{`{"$or": [{"a": 2}, {"a": 1}]}`, `{"a": {"$in": [1, 2]}}`, ixA(`["[1, 1]", "[2, 2]"]`), "[1,2]"},
		{`{"$or": [{"a": {"$eq": 5}}, {"a": 3}, {"a": {"$in": [4]}}]}`, `{"a": {"$in": [3, 4, 5]}}`, ixA(`["[3, 3]", "[4, 4]", "[5, 5]"]`), "[3,4,5]"},
		{`{"$or": [{"a": 1}, {"a": 1}]}`, `{"a": {"$eq": 1}}`, ixA(`["[1, 1]"]`), "[1]"},
		// Beside another condition on the path: both bound the scan.
		{`{"a": {"$gt": 1}, "$or": [{"a": 1}, {"a": 2}]}`, `{"$and": [{"a": {"$gt": 1}}, {"a": {"$in": [1, 2]}}]}`, ixA(`["[2, 2]"]`), "[2]"},
		// Another path: the $in stays in the $or (b has no index).
		{`{"$or": [{"a": 1}, {"b": 3}, {"a": 2}]}`, `{"$or": [{"b": {"$eq": 3}}, {"a": {"$in": [1, 2]}}]}`,
			collscan(`{"$or": [{"b": {"$eq": 3}}, {"a": {"$in": [1, 2]}}]}`), "[1,2,5,6]"},
		// The first equality's path is b: one branch on it, no rewrite.
		// (The branches shown sorted by type and path, as mongod's
		// canonical query sorts them.)
		{`{"$or": [{"b": 3}, {"a": 1}, {"a": 2}]}`, `{"$or": [{"a": {"$eq": 1}}, {"a": {"$eq": 2}}, {"b": {"$eq": 3}}]}`,
			collscan(`{"$or": [{"a": {"$eq": 1}}, {"a": {"$eq": 2}}, {"b": {"$eq": 3}}]}`), "[1,2,5,6]"},
		// Nested: each inner $or is rewritten; the outer keeps two $in's.
		{`{"$or": [{"$or": [{"b": 1}, {"b": 2}]}, {"$or": [{"b": 3}, {"b": 9}]}]}`,
			`{"$or": [{"b": {"$in": [1, 2]}}, {"b": {"$in": [3, 9]}}]}`,
			collscan(`{"$or": [{"b": {"$in": [1, 2]}}, {"b": {"$in": [3, 9]}}]}`), "[1,2,3,4,5,6]"},
		{`{"$and": [{"$or": [{"a": 1}, {"a": 2}, {"a": 3}]}, {"$or": [{"b": 2}, {"b": 3}]}]}`,
			`{"$and": [{"a": {"$in": [1, 2, 3]}}, {"b": {"$in": [2, 3]}}]}`,
			`{"stage": "FETCH", "filter": {"b": {"$in": [2, 3]}}, "inputStage": {"stage": "IXSCAN", "keyPattern": {"a": 1}, "indexName": "a_1",
			"isMultiKey": false, "multiKeyPaths": {"a": []}, "isUnique": false, "isSparse": false, "isPartial": false,
			"indexVersion": 2, "direction": "forward", "indexBounds": {"a": ["[1, 1]", "[2, 2]", "[3, 3]"]}}}`, "[3]"},
		// Not rewritten: ranges, and $eq of a regex (a value, not a pattern).
		{`{"$or": [{"b": {"$lt": 2}}, {"b": {"$gt": 2}}]}`, `{"$or": [{"b": {"$lt": 2}}, {"b": {"$gt": 2}}]}`,
			collscan(`{"$or": [{"b": {"$lt": 2}}, {"b": {"$gt": 2}}]}`), "[1,2,5,6]"},
		{`{"$or": [{"b": {"$eq": {"$regularExpression": {"pattern": "^x", "options": ""}}}}, {"b": {"$eq": {"$regularExpression": {"pattern": "y", "options": ""}}}}]}`,
			`{"$or": [{"b": {"$eq": {"$regularExpression": {"pattern": "^x", "options": ""}}}}, {"b": {"$eq": {"$regularExpression": {"pattern": "y", "options": ""}}}}]}`,
			collscan(`{"$or": [{"b": {"$eq": {"$regularExpression": {"pattern": "^x", "options": ""}}}}, {"b": {"$eq": {"$regularExpression": {"pattern": "y", "options": ""}}}}]}`), "[]"},
		// A given $in is shown as mongod's InMatchExpression keeps it:
		// sorted, duplicates dropped, regexes last; one value an $eq.
		{`{"a": {"$in": [3, 1, 3, 2]}}`, `{"a": {"$in": [1, 2, 3]}}`, ixA(`["[1, 1]", "[2, 2]", "[3, 3]"]`), "[1,2,3]"},
		{`{"a": {"$in": [2, 2.0]}}`, `{"a": {"$eq": 2}}`, ixA(`["[2, 2]"]`), "[2]"},
		{`{"b": {"$nin": [3, 1]}}`, `{"b": {"$not": {"$in": [1, 3]}}}`, collscan(`{"b": {"$not": {"$in": [1, 3]}}}`), "[3,4]"},
		// Regexes join the $in after the equalities.
		{`{"$or": [{"b": {"$regex": "^x"}}, {"b": 1}]}`, `{"b": {"$in": [1, {"$regularExpression": {"pattern": "^x", "options": ""}}]}}`,
			collscan(`{"b": {"$in": [1, {"$regularExpression": {"pattern": "^x", "options": ""}}]}}`), "[1,2]"},
	} {
		cmd := `{"find": "c", "filter": ` + c.filter + `}`
		r := explainOf(t, db, cmd, "queryPlanner")
		if got, want := canon(t, bson.D{{Key: "v", Value: field(r, "queryPlanner.parsedQuery")}}), canon(t, bson.D{{Key: "v", Value: mustDoc(t, c.parsed)}}); got != want {
			t.Errorf("%s: parsedQuery\n got %s\nwant %s", c.filter, got, want)
		}
		if got, want := canon(t, bson.D{{Key: "v", Value: field(r, "queryPlanner.winningPlan")}}), canon(t, bson.D{{Key: "v", Value: mustDoc(t, c.plan)}}); got != want {
			t.Errorf("%s: winningPlan\n got %s\nwant %s", c.filter, got, want)
		}
		found := mustRun(t, db, "test", `{"find": "c", "filter": `+c.filter+`, "sort": {"_id": 1}, "projection": {"_id": 1}}`)
		var ids []int32
		for _, d := range field(found, "cursor.firstBatch").(bson.A) {
			ids = append(ids, field(d.(bson.D), "_id").(int32))
		}
		if got := fmt.Sprint(ids); strings.ReplaceAll(got, " ", ",") != c.ids && !(c.ids == "[]" && ids == nil) {
			t.Errorf("%s: found %v, want %s", c.filter, ids, c.ids)
		}
	}
}

// A projection of indexed fields alone (_id excluded) is covered, as
// in mongod: PROJECTION_COVERED over the IXSCAN, no FETCH,
// totalDocsExamined 0. The index's entries carry type bits, so the
// answer's types are the stored ones (an int32 5, a double 7.0, an
// int64 8), not the one type a key holds for equal numbers.
func TestExplainCoveredShape(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 7, "a": 7.0}, {"_id": 8, "a": {"$numberLong": "8"}}]}`)
	r := explainOf(t, db, `{"find": "c", "filter": {"a": {"$gte": 5}}, "projection": {"a": 1, "_id": 0}}`, "executionStats")
	if got := stages(field(r, "queryPlanner.winningPlan").(bson.D)); strings.Join(got, " ") != "PROJECTION_COVERED IXSCAN" {
		t.Errorf("winningPlan stages %v, want PROJECTION_COVERED IXSCAN", got)
	}
	figures(t, "executionStats", field(r, "executionStats").(bson.D), "nReturned=4 totalKeysExamined=4 totalDocsExamined=0")
	found := mustRun(t, db, "test", `{"find": "c", "filter": {"a": {"$gte": 5}}, "projection": {"a": 1, "_id": 0}}`)
	want := mustDoc(t, `{"v": [{"a": 5}, {"a": 6}, {"a": 7.0}, {"a": {"$numberLong": "8"}}]}`)
	if got, w := canon(t, bson.D{{Key: "v", Value: field(found, "cursor.firstBatch")}}), canon(t, want); got != w {
		t.Errorf("covered-shape find\n got %s\nwant %s", got, w)
	}
}

// The $or-to-$in rewrite keeps what a filter matches: random $or's of
// equalities, regexes and ranges over two indexed paths and one not,
// nested and beside other conditions, find (planned from the rewrite)
// the documents the filter as given matches, one by one. The seed is
// printed so that a failure replays.
func TestOrToInKeepsMatches(t *testing.T) {
	t.Parallel()
	seed := time.Now().UnixNano()
	if s := os.Getenv("ORTOIN_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(uint64(seed), 0))
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b": 1, "a": 1}, "name": "b_1_a_1"}]}`)
	values := []any{int32(1), int32(2), 2.0, int64(3), "x", "xa", "b", nil, bson.A{int32(1), int32(2)}, bson.D{{Key: "k", Value: int32(1)}}}
	var docs bson.A
	var all []bson.D
	for i := 0; i < 60; i++ {
		d := bson.D{{Key: "_id", Value: int32(i)}}
		for _, p := range []string{"a", "b", "c"} {
			v := values[r.IntN(len(values))]
			if _, isArr := v.(bson.A); isArr && p == "b" {
				continue // b and a arrays together: parallel arrays in b_1_a_1
			}
			if r.IntN(5) > 0 {
				d = append(d, bson.E{Key: p, Value: v})
			}
		}
		docs = append(docs, d)
		all = append(all, d)
	}
	if ins := mustRunD(t, db, "test", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: docs}}); field(ins, "n") != int32(len(docs)) {
		t.Fatalf("insert: %v", ins)
	}
	var branch func(depth int) bson.D
	branch = func(depth int) bson.D {
		p := []string{"a", "b", "c"}[r.IntN(3)]
		v := values[r.IntN(len(values))]
		switch k := r.IntN(9); {
		case k < 3:
			return bson.D{{Key: p, Value: v}}
		case k < 5:
			return bson.D{{Key: p, Value: bson.D{{Key: "$eq", Value: v}}}}
		case k == 5:
			return bson.D{{Key: p, Value: bson.Regex{Pattern: "^x"}}}
		case k == 6:
			return bson.D{{Key: p, Value: bson.D{{Key: "$gt", Value: int32(1)}}}}
		case k == 7 && depth < 2:
			var bs bson.A
			for n := 1 + r.IntN(3); n > 0; n-- {
				bs = append(bs, branch(depth+1))
			}
			return bson.D{{Key: "$or", Value: bs}}
		default:
			return bson.D{{Key: p, Value: bson.D{{Key: "$in", Value: bson.A{v}}}}}
		}
	}
	rewritten := 0
	for i := 0; i < 200; i++ {
		var bs bson.A
		for n := 2 + r.IntN(4); n > 0; n-- {
			bs = append(bs, branch(0))
		}
		filter := bson.D{{Key: "$or", Value: bs}}
		if r.IntN(3) == 0 {
			filter = append(bson.D{{Key: "a", Value: bson.D{{Key: "$exists", Value: true}}}}, filter...)
		}
		if _, changed := rewriteOrToIn(filter, nil); changed {
			rewritten++
		}
		f := query.MustParseFilter(filter)
		var want []int32
		for _, d := range all {
			if f.Match(d) {
				want = append(want, d[0].Value.(int32))
			}
		}
		res := mustRunD(t, db, "test", bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: filter},
			{Key: "sort", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "projection", Value: bson.D{{Key: "_id", Value: int32(1)}}},
			{Key: "batchSize", Value: int32(1000)}})
		var got []int32
		for _, d := range field(res, "cursor.firstBatch").(bson.A) {
			got = append(got, field(d.(bson.D), "_id").(int32))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			b, _ := bson.MarshalExtJSON(filter, false, false)
			ex := mustRunD(t, db, "test", bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: filter}}}})
			t.Fatalf("seed %d: %s found %v, the filter matches %v (rewritten %v)\nplan %v", seed, b, got, want, orToIn(filter, nil), field(ex, "queryPlanner.winningPlan"))
		}
	}
	if rewritten < 20 {
		t.Errorf("only %d of 200 filters were rewritten: the test checks little", rewritten)
	}
}
