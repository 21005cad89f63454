package engine

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestExplainDeleteUnderCollation: a delete's explain plans and counts
// under the delete's collation, as the delete runs: under {locale:
// "en", strength: 2} the filter {x: "a"} would delete "a" and "A", and
// the explain says so (nWouldDelete 2) and reads the index made under
// that collation. It had planned under the simple collation.
func TestExplainDeleteUnderCollation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "x": "a"}`, `{"_id": 2, "x": "A"}`, `{"_id": 3, "x": "b"}`})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"x": 1}, "name": "x_ci", "collation": {"locale": "en", "strength": 2}}]}`)
	r := mustRun(t, db, "test", `{"explain": {"delete": "c", "deletes": [{"q": {"x": "a"}, "limit": 0, "collation": {"locale": "en", "strength": 2}}]}, "verbosity": "executionStats"}`)
	if got := field(r, "executionStats.executionStages.nWouldDelete"); got != int32(2) && got != int64(2) {
		t.Errorf("nWouldDelete = %#v, want 2", got)
	}
	if got := winningIndex(r); got != "x_ci" {
		t.Errorf("the delete's explain reads %q, want x_ci", got)
	}
	// The explain deleted nothing.
	if n := len(idsOf(t, runFind(t, db, "test", bson.D{{Key: "find", Value: "c"}}))); n != 3 {
		t.Errorf("%d documents after the explain, want 3", n)
	}
}
