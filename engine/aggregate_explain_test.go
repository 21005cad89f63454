package engine

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestExplainAggregatePushedDown: a pipeline the find layer runs whole
// explains as the find does, as mongod 7.0's (pipeline_d.cpp absorbs
// the $match, $sort, $limit and a plain $project; explain then has no
// stages).
func TestExplainAggregatePushedDown(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "x", `{"insert": "c", "documents": [{"_id": 1, "a": 1, "b": 2, "s": {"t": 1}}, {"_id": 2, "a": 1, "b": 1}, {"_id": 3, "a": 2}]}`)
	mustRun(t, db, "x", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	explain := func(pipeline string) bson.D {
		return mustRun(t, db, "x", `{"explain": {"aggregate": "c", "pipeline": `+pipeline+`, "cursor": {}}, "verbosity": "executionStats"}`)
	}
	cases := []struct {
		pipeline  string
		transform string // the PROJECTION stage's transformBy, "" if none
		returned  int32
	}{
		{`[]`, "", 3},
		{`[{"$match": {"a": 1}}]`, "", 2},
		{`[{"$match": {"a": 1}}, {"$sort": {"b": 1}}, {"$limit": 1}]`, "", 1},
		{`[{"$match": {"a": 1}}, {"$sort": {"b": 1}}, {"$limit": 5}, {"$project": {"_id": 0, "a": 1}}]`, `{"_id":false,"a":true}`, 2},
		{`[{"$match": {"a": 1}}, {"$project": {"a": 1, "s.t": true}}]`, `{"_id":true,"a":true,"s":{"t":true}}`, 2},
		{`[{"$match": {"a": 1}}, {"$project": {"b": 0, "_id": 0}}]`, `{"b":false,"_id":false}`, 2},
		{`[{"$match": {"a": 1}}, {"$project": {"b": 0}}]`, `{"b":false,"_id":true}`, 2},
		// A $limit without a $sort is the find's limit, ahead of the
		// $project too.
		{`[{"$match": {"a": 1}}, {"$limit": 1}]`, "", 1},
		{`[{"$match": {"a": 1}}, {"$project": {"_id": 0, "a": 1}}, {"$limit": 1}]`, `{"_id":false,"a":true}`, 1},
	}
	for _, c := range cases {
		r := explain(c.pipeline)
		if _, has := get(r, "stages"); has {
			t.Errorf("%s: explain has stages: %v", c.pipeline, r)
			continue
		}
		if v := field(r, "explainVersion"); v != "1" {
			t.Errorf("%s: explainVersion = %v", c.pipeline, v)
		}
		if ns := field(r, "queryPlanner.namespace"); ns != "x.c" {
			t.Errorf("%s: queryPlanner.namespace = %v (%v)", c.pipeline, ns, r)
		}
		if n := field(r, "executionStats.nReturned"); n != c.returned {
			t.Errorf("%s: nReturned = %v, want %d", c.pipeline, n, c.returned)
		}
		if got := fmt.Sprint(field(r, "command")); got != fmt.Sprint(bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: ejsonArray(t, c.pipeline)}}) {
			t.Errorf("%s: command = %s", c.pipeline, got)
		}
		// The projection stage, under a LIMIT when the find has one
		// (mongod's planner puts its LIMIT over the projection).
		win, _ := field(r, "queryPlanner.winningPlan").(bson.D)
		if s, _ := get(win, "stage"); s == "LIMIT" {
			win, _ = field(win, "inputStage").(bson.D)
		}
		if c.transform == "" {
			if tb, has := get(win, "transformBy"); has {
				t.Errorf("%s: transformBy %v, want no projection", c.pipeline, tb)
			}
		} else if got := fmt.Sprint(field(win, "transformBy")); got != c.transform {
			t.Errorf("%s: transformBy = %s, want %s", c.pipeline, got, c.transform)
		}
	}
	// A stage the find layer cannot run keeps the $cursor form.
	for _, p := range []string{
		`[{"$match": {"a": 1}}, {"$addFields": {"x": 1}}]`,
		`[{"$match": {"a": 1}}, {"$unwind": "$a"}]`,
		`[{"$match": {"a": 1}}, {"$project": {"a": 1}}, {"$addFields": {"x": 1}}]`,
	} {
		r := explain(p)
		stages, _ := field(r, "stages").(bson.A)
		if len(stages) < 2 || field(stages[0].(bson.D), "$cursor.queryPlanner.namespace") != "x.c" {
			t.Errorf("%s: explain = %v, want $cursor and the stages after it", p, r)
		}
	}
}

func ejsonArray(t *testing.T, s string) bson.A {
	t.Helper()
	d := ejson(t, `{"a": `+s+`}`)
	a, _ := d[0].Value.(bson.A)
	return a
}
