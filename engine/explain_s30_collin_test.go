package engine

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdIDs is the _ids a find command returns, in its order.
func cmdIDs(t *testing.T, db *DB, cmd string) string {
	t.Helper()
	r := mustRun(t, db, "test", cmd)
	var ids []any
	for _, d := range field(r, "cursor.firstBatch").(bson.A) {
		ids = append(ids, field(d.(bson.D), "_id"))
	}
	return fmt.Sprint(ids)
}

// Under the query's collation an $in's values (and those an $or of
// equalities becomes) are sorted and de-duplicated with its collator,
// as mongod 7.0's InMatchExpression does once given the collator: under
// {locale: "en", strength: 2} "A" and "a" are one value, the first given
// standing for both, so parsedQuery shows it once and the index scan
// has one point for it. An $or inside an $elemMatch is rewritten as
// mongod's optimizer rewrites the $elemMatch's sub-expression. What a
// find returns is that of a collection scan of the filter as given.
func TestExplainInValuesUnderCollation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "collation": {"locale": "en", "strength": 2}},
		{"key": {"x.a": 1}, "name": "x.a_1"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": "a"}, {"_id": 2, "a": "A"}, {"_id": 3, "a": "b"},
		{"_id": 4, "a": "B"}, {"_id": 5, "a": "c"}, {"_id": 6, "a": "d"}, {"_id": 7, "a": 1},
		{"_id": 8, "x": [{"a": 1, "b": 2}, {"a": 3}]}, {"_id": 9, "x": [{"a": 2}]}, {"_id": 10, "x": [{"a": 4}, {"b": 1}]}]}`)
	const en2 = `{"locale": "en", "strength": 2}`
	for _, c := range []struct {
		filter, collation string
		want              string // parsedQuery, as extended JSON
		points            int    // the index scan's intervals, 0 for none
		ids               string
	}{
		{`{"a": {"$in": ["b", "A", "a", "c", "B"]}}`, en2, `{"a": {"$in": ["A", "b", "c"]}}`, 3, "[1 2 3 4 5]"},
		{`{"$or": [{"a": "b"}, {"a": "a"}, {"a": "A"}]}`, en2, `{"a": {"$in": ["a", "b"]}}`, 2, "[1 2 3 4]"},
		{`{"a": {"$nin": ["B", "b", "A"]}}`, en2, `{"a": {"$not": {"$in": ["A", "B"]}}}`, 0, "[5 6 7 8 9 10]"},
		// The simple collation keeps "A" and "a" apart, capitals first.
		{`{"$or": [{"a": "b"}, {"a": "a"}, {"a": "A"}]}`, "", `{"a": {"$in": ["A", "a", "b"]}}`, 0, "[1 2 3]"},
		// ttlkv shows an $elemMatch's other contents as given (mongod
		// adds $eq and sorts them); the $in stands where the $or was.
		{`{"x": {"$elemMatch": {"$or": [{"a": 3}, {"a": 1}, {"a": 3}]}}}`, "", `{"x": {"$elemMatch": {"a": {"$in": [1, 3]}}}}`, 0, "[8]"},
		{`{"x": {"$elemMatch": {"$or": [{"a": 4}, {"a": 2}], "b": 1}}}`, "", `{"x": {"$elemMatch": {"a": {"$in": [2, 4]}, "b": 1}}}`, 0, "[]"},
		{`{"x": {"$elemMatch": {"$or": [{"a": 4}, {"a": 2}, {"b": 1}]}}}`, "", `{"x": {"$elemMatch": {"$or": [{"b": 1}, {"a": {"$in": [2, 4]}}]}}}`, 0, "[9 10]"},
	} {
		coll := ""
		if c.collation != "" {
			coll = `, "collation": ` + c.collation
		}
		find := `{"find": "c", "filter": ` + c.filter + coll + `, "sort": {"_id": 1}`
		r := explainOf(t, db, find+`}`, "queryPlanner")
		want := mustDoc(t, `{"v": `+c.want+`}`)
		if got, w := canon(t, bson.D{{Key: "v", Value: field(r, "queryPlanner.parsedQuery")}}), canon(t, want); got != w {
			t.Errorf("%s: parsedQuery %s, want %s", c.filter, got, w)
		}
		if c.points > 0 {
			wp := canon(t, field(r, "queryPlanner.winningPlan").(bson.D))
			ib, _ := findStage(r, "IXSCAN", "indexBounds").(bson.D)
			bounds, _ := field(ib, "a").(bson.A)
			if n := len(bounds); n != c.points {
				t.Errorf("%s: %d intervals, want %d\n%s", c.filter, n, c.points, wp)
			}
		}
		got := cmdIDs(t, db, find+`}`)
		scan := cmdIDs(t, db, find+`, "hint": {"$natural": 1}}`)
		if got != c.ids || scan != c.ids {
			t.Errorf("%s: found %s, by a collection scan %s, want %s", c.filter, got, scan, c.ids)
		}
	}
}

// An aggregate's scan is planned and shown under its collation, as it
// runs: its $cursor's parsedQuery has the $in values de-duplicated under
// it.
func TestExplainAggregateInUnderCollation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": "a"}, {"_id": 2, "a": "A"}, {"_id": 3, "a": "b"}]}`)
	r := explainOf(t, db, `{"aggregate": "c", "pipeline": [{"$match": {"a": {"$in": ["b", "a", "A"]}}}, {"$group": {"_id": "$a"}}],
		"cursor": {}, "collation": {"locale": "en", "strength": 2}}`, "queryPlanner")
	stages, _ := field(r, "stages").(bson.A)
	if len(stages) == 0 {
		t.Fatalf("no stages: %s", canon(t, r))
	}
	got := canon(t, bson.D{{Key: "v", Value: field(stages[0].(bson.D), "$cursor.queryPlanner.parsedQuery")}})
	if want := canon(t, mustDoc(t, `{"v": {"a": {"$in": ["a", "b"]}}}`)); got != want {
		t.Errorf("parsedQuery %s, want %s", got, want)
	}
}
