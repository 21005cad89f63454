package main

import (
	"strings"
	"testing"
)

// TestEvalCreateIndexCommitQuorum: createIndex's third argument is
// commitQuorum, as in mongosh, and a standalone refuses it with
// MongoDB's errors: FailedToParse for a document (seed 003's snippet
// passing TTL options there), BadValue for a number or string. No index
// is created either way.
func TestEvalCreateIndexCommitQuorum(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct{ src, err string }{
		{`db.eventlog.createIndex({ "lastModifiedDate": 1 }, {}, { expireAfterSeconds: 3600 })`, "MongoServerError[FailedToParse]: commitQuorum has to be a number or a string"},
		{`db.eventlog.createIndex({ a: 1 }, {}, "majority")`, "MongoServerError[BadValue]: Standalones can't specify commitQuorum"},
		{`db.eventlog.createIndexes([{ a: 1 }], {}, 1)`, "MongoServerError[BadValue]: Standalones can't specify commitQuorum"},
	}
	for _, tc := range cases {
		_, errOut, code := cli(t, nil, dir, "", "eval", tc.src)
		if code != 1 || !strings.Contains(errOut, tc.err) {
			t.Errorf("%s: exit %d, stderr %q; want %q", tc.src, code, errOut, tc.err)
		}
	}
	// The refused builds left no index behind.
	if out, errOut, _ := cli(t, nil, dir, "", "eval", "db.eventlog.insertOne({}); db.eventlog.getIndexes().map(i => i.name).join()"); out != "_id_\n" {
		t.Errorf("indexes: %q %s, want only _id_", out, errOut)
	}
}
