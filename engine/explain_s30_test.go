package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"

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
			  {"$match": {"name": "a_1"}, "nReturned": {"$numberLong": "1"}, "executionTimeMillisEstimate": {"$numberLong": "0"}}]`},
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
