package engine

import (
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestExplainAggregateSkipLimit: explain lists $skip and $limit as
// mongod 7.0's optimiser leaves them: a $skip then a $limit is a $limit
// of their sum then the $skip, adjacent $limits are the smallest,
// adjacent $skips their sum, a $sort absorbs the $limit moved before
// the $skip, and a $facet's pipelines are optimised alike. Other
// stages between them stop the rewrite, as does a sum past a long.
func TestExplainAggregateSkipLimit(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	for _, c := range []struct {
		pipeline string // after a leading {$match: {a: {$gte: 1}}}
		want     string // the stages after the $cursor
	}{
		{`[{"$unwind": "$arr"}, {"$skip": 2}, {"$limit": 3}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$limit": {"$numberLong": "5"}}, {"$skip": {"$numberLong": "2"}}]`},
		{`[{"$unwind": "$arr"}, {"$limit": 10}, {"$skip": 2}, {"$limit": 3}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$limit": {"$numberLong": "5"}}, {"$skip": {"$numberLong": "2"}}]`},
		{`[{"$unwind": "$arr"}, {"$limit": 4}, {"$skip": 2}, {"$limit": 3}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$limit": {"$numberLong": "4"}}, {"$skip": {"$numberLong": "2"}}]`},
		{`[{"$unwind": "$arr"}, {"$skip": 1}, {"$skip": 2}, {"$limit": 3}, {"$limit": 4}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$limit": {"$numberLong": "6"}}, {"$skip": {"$numberLong": "3"}}]`},
		{`[{"$unwind": "$arr"}, {"$limit": 3}, {"$limit": 2}, {"$skip": 1}, {"$skip": 1.0}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$limit": {"$numberLong": "2"}}, {"$skip": {"$numberLong": "2"}}]`},
		{`[{"$group": {"_id": "$b"}}, {"$sort": {"_id": 1}}, {"$skip": 1}, {"$limit": 2}]`,
			`[{"$group": {"_id": "$b"}}, {"$sort": {"sortKey": {"_id": 1}, "limit": {"$numberLong": "3"}}}, {"$skip": {"$numberLong": "1"}}]`},
		// Not rewritten: a stage between, a sum past a long.
		{`[{"$unwind": "$arr"}, {"$skip": 1}, {"$addFields": {"x": "$a"}}, {"$limit": 2}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$skip": {"$numberLong": "1"}}, {"$addFields": {"x": "$a"}}, {"$limit": {"$numberLong": "2"}}]`},
		{`[{"$unwind": "$arr"}, {"$skip": {"$numberLong": "9223372036854775807"}}, {"$limit": 1}]`,
			`[{"$unwind": {"path": "$arr"}}, {"$skip": {"$numberLong": "9223372036854775807"}}, {"$limit": {"$numberLong": "1"}}]`},
		{`[{"$facet": {"f": [{"$skip": 1}, {"$limit": 2}]}}]`,
			`[{"$facet": {"f": [{"$limit": {"$numberLong": "3"}}, {"$skip": {"$numberLong": "1"}}]}}]`},
	} {
		cmd := `{"aggregate": "c", "pipeline": [{"$match": {"a": {"$gte": 1}}}, ` + strings.TrimPrefix(c.pipeline, "[") + `, "cursor": {}}`
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
	// A leading $sort takes the moved $limit into the scan: the $skip
	// is the one stage after the $cursor.
	r := explainOf(t, db, `{"aggregate": "c", "pipeline": [{"$match": {"a": {"$gte": 1}}}, {"$sort": {"b": 1}}, {"$skip": 1}, {"$limit": 2},
		{"$addFields": {"x": 1}}], "cursor": {}}`, "executionStats")
	stages, _ := field(r, "stages").(bson.A)
	checkFigures(t, stages, []struct {
		name string
		n    int64
	}{{"$cursor", -1}, {"$skip", 2}, {"$addFields", 2}})
}

// TestSourceStageSkipLimit: after a stage that produces its own
// documents the rewrite is the same, and the stages after it keep their
// rules ($text only in a first $match, 17313).
func TestSourceStageSkipLimit(t *testing.T) {
	t.Parallel()
	db := explainFixture(t)
	r := mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$indexStats": {}}, {"$skip": 1}, {"$limit": 1}], "explain": true}`)
	want := field(mustDoc(t, `{"a": [{"$indexStats": {}}, {"$limit": {"$numberLong": "2"}}, {"$skip": {"$numberLong": "1"}}]}`), "a")
	if got, w := canon(t, bson.D{{Key: "v", Value: field(r, "stages")}}), canon(t, bson.D{{Key: "v", Value: want}}); got != w {
		t.Errorf("stages\n got %s\nwant %s", got, w)
	}
	// Two indexes (_id_, a_1), skip one, take one.
	r = mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$indexStats": {}}, {"$sort": {"name": 1}}, {"$skip": 1}, {"$limit": 1}, {"$project": {"_id": 0, "name": 1}}], "cursor": {}}`)
	if got, w := canon(t, bson.D{{Key: "v", Value: field(r, "cursor.firstBatch")}}), canon(t, bson.D{{Key: "v", Value: bson.A{bson.D{{Key: "name", Value: "a_1"}}}}}); got != w {
		t.Errorf("indexStats page: got %s, want %s", got, w)
	}
	wantCode(t, db, "test", `{"aggregate": "c", "pipeline": [{"$indexStats": {}}, {"$match": {"$text": {"$search": "x"}}}], "cursor": {}}`,
		17313, "$match with $text is only allowed as the first pipeline stage")
}

// TestAggregateSkipLimitResults: the rewrite changes no answer. Each
// pipeline's documents equal those of the same pipeline with an empty
// $match after each $skip and $limit, which keeps them as written.
func TestAggregateSkipLimitResults(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := 1; i <= 9; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %d, "b": %d, "arr": [1, 2]}`, i, (i*7)%10, i%3))
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [`+strings.Join(docs, ", ")+`]}`)
	for _, p := range []string{
		`{"$skip": 2}, {"$limit": 3}`,
		`{"$skip": 8}, {"$limit": 3}`,
		`{"$skip": 20}, {"$limit": 3}`,
		`{"$limit": 10}, {"$skip": 2}, {"$limit": 3}`,
		`{"$limit": 4}, {"$skip": 2}, {"$limit": 3}`,
		`{"$skip": 1}, {"$skip": 2}, {"$limit": 3}, {"$limit": 4}`,
		`{"$limit": 3}, {"$limit": 2}, {"$skip": 1}, {"$skip": 1}`,
		`{"$sort": {"a": 1}}, {"$skip": 2}, {"$limit": 3}`,
		`{"$sort": {"b": -1, "_id": 1}}, {"$skip": 1}, {"$skip": 1}, {"$limit": 4}`,
		`{"$match": {"b": {"$gte": 1}}}, {"$sort": {"a": -1}}, {"$skip": 3}, {"$limit": 2}`,
		`{"$unwind": "$arr"}, {"$sort": {"a": 1, "arr": -1}}, {"$skip": 5}, {"$limit": 4}`,
		`{"$group": {"_id": "$b", "n": {"$sum": 1}}}, {"$sort": {"_id": 1}}, {"$skip": 1}, {"$limit": 1}`,
		`{"$facet": {"f": [{"$sort": {"_id": 1}}, {"$skip": 2}, {"$limit": 2}]}}`,
	} {
		kept := strings.NewReplacer(`{"$skip"`, `{"$match": {}}, {"$skip"`, `{"$limit"`, `{"$match": {}}, {"$limit"`).Replace(p)
		got := aggDocs(t, db, p)
		want := aggDocs(t, db, kept)
		if g, w := canon(t, bson.D{{Key: "v", Value: got}}), canon(t, bson.D{{Key: "v", Value: want}}); g != w {
			t.Errorf("%s:\n got %s\nwant %s (%s)", p, g, w, kept)
		}
	}
	// One answer checked in full: _id 1..9 have a = 7 4 1 8 5 2 9 6 3,
	// so by a the _ids are 3 6 9 2 5 8 ...; skip 2, take 3.
	got := aggDocs(t, db, `{"$sort": {"a": 1}}, {"$skip": 2}, {"$limit": 3}, {"$project": {"_id": 1}}`)
	if g, w := canon(t, bson.D{{Key: "v", Value: got}}), canon(t, bson.D{{Key: "v", Value: bson.A{
		bson.D{{Key: "_id", Value: int32(9)}}, bson.D{{Key: "_id", Value: int32(2)}}, bson.D{{Key: "_id", Value: int32(5)}}}}}); g != w {
		t.Errorf("sort, skip, limit: got %s, want %s", g, w)
	}
}

// aggDocs runs an aggregate of c with the given stages and returns its
// first batch.
func aggDocs(t *testing.T, db *DB, stages string) bson.A {
	t.Helper()
	r := mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [`+stages+`], "cursor": {"batchSize": 1000}}`)
	b, _ := field(r, "cursor.firstBatch").(bson.A)
	return b
}
