package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// An update statement's sort (MongoDB 8.0) picks the document a single
// update changes, and its c names the constants a pipeline update reads:
// both were taken and ignored.
func TestUpdateSortAndConstants(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "us", []string{`{"_id": 1, "k": "a", "n": 3}`, `{"_id": 2, "k": "a", "n": 9}`, `{"_id": 3, "k": "a", "n": 5}`})
	mustRun(t, db, "test", `{"update": "us", "updates": [{"q": {"k": "a"}, "u": {"$set": {"top": true}}, "sort": {"n": -1}}]}`)
	if got := firstIDs(t, db, `{"find": "us", "filter": {"top": true}}`); len(got) != 1 || got[0] != 2 {
		t.Errorf("sort n descending updated %v, want [2]", got)
	}
	mustRun(t, db, "test", `{"update": "us", "updates": [{"q": {"_id": 1}, "u": [{"$set": {"m": {"$multiply": ["$n", "$$f"]}}}], "c": {"f": 10}}]}`)
	if got := field(firstBatch(t, mustRun(t, db, "test", `{"find": "us", "filter": {"_id": 1}}`))[0], "m"); got != int32(30) {
		t.Errorf("pipeline with c: m = %v", got)
	}
	for _, tc := range []struct{ u, msg string }{
		{`{"q": {}, "u": {"$set": {"x": 1}}, "sort": {"n": 1}, "multi": true}`, "Cannot specify sort with multi=true"},
		{`{"q": {}, "u": {"$set": {"x": 1}}, "c": {"f": 1}}`, "Constant values may only be specified for pipeline updates"},
	} {
		r := mustRun(t, db, "test", `{"update": "us", "updates": [`+tc.u+`]}`)
		we, _ := field(r, "writeErrors").(bson.A)
		if len(we) != 1 || field(we[0].(bson.D), "code") != int32(document.CodeFailedToParse) || !contains(field(we[0].(bson.D), "errmsg").(string), tc.msg) {
			t.Errorf("%s: %v", tc.u, r)
		}
	}
}
