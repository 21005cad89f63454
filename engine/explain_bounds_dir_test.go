package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestExplainBoundsInScanOrder: explain's indexBounds list each field's
// intervals in the order the scan reads them, as mongod prints them: a
// descending field read forward, or an ascending one read backward,
// shows its intervals reversed, each from its high end ("[MaxKey,
// MinKey]", "[inf.0, 5)"), and a descending field read backward shows
// them in ascending order again.
func TestExplainBoundsInScanOrder(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": 1, "b": 2}`})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": -1, "b": -1}, "name": "ab"}, {"key": {"x": 1, "y": -1}, "name": "xy"}]}`)
	for _, c := range []struct {
		find string
		want bson.D
		dir  string
	}{
		{`"filter": {"a": {"$gt": 5}}, "hint": "ab"`,
			bson.D{{Key: "a", Value: bson.A{"[inf.0, 5)"}}, {Key: "b", Value: bson.A{"[MaxKey, MinKey]"}}}, "forward"},
		{`"filter": {"a": {"$gt": 5, "$lt": 9}, "b": {"$lt": 2}}, "hint": "ab"`,
			bson.D{{Key: "a", Value: bson.A{"(9, 5)"}}, {Key: "b", Value: bson.A{"(2, -inf.0]"}}}, "forward"},
		{`"filter": {"a": {"$in": [1, 5, 3]}}, "hint": "ab"`,
			bson.D{{Key: "a", Value: bson.A{"[5, 5]", "[3, 3]", "[1, 1]"}}, {Key: "b", Value: bson.A{"[MaxKey, MinKey]"}}}, "forward"},
		{`"filter": {"a": {"$gt": 5}}, "sort": {"a": 1}, "hint": "ab"`,
			bson.D{{Key: "a", Value: bson.A{"(5, inf.0]"}}, {Key: "b", Value: bson.A{"[MinKey, MaxKey]"}}}, "backward"},
		{`"filter": {}, "sort": {"_id": -1}`,
			bson.D{{Key: "_id", Value: bson.A{"[MaxKey, MinKey]"}}}, "backward"},
		{`"filter": {"x": {"$gte": 1, "$lte": 2}, "y": {"$gte": "a"}}, "hint": "xy"`,
			bson.D{{Key: "x", Value: bson.A{"[1, 2]"}}, {Key: "y", Value: bson.A{"({}, \"a\"]"}}}, "forward"},
		{`"filter": {"x": 1, "y": {"$gte": "a"}}, "sort": {"x": -1, "y": 1}, "hint": "xy"`,
			bson.D{{Key: "x", Value: bson.A{"[1, 1]"}}, {Key: "y", Value: bson.A{"[\"a\", {})"}}}, "backward"},
	} {
		r := mustRun(t, db, "test", `{"explain": {"find": "c", `+c.find+`}, "verbosity": "queryPlanner"}`)
		if got := findStage(r, "IXSCAN", "indexBounds"); !document.Equal(got, c.want) {
			t.Errorf("%s: indexBounds %v, want %v", c.find, got, c.want)
		}
		if got := findStage(r, "IXSCAN", "direction"); got != c.dir {
			t.Errorf("%s: direction %v, want %s", c.find, got, c.dir)
		}
	}
}
