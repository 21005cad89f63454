package main

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/engine"
)

func engineOptions() engine.Options { return engine.Options{DisableTTLMonitor: true} }

func TestRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct {
		args []string
		code int
		out  string // exact stdout, or prefix when it ends in "…"
		err  string
	}{
		{[]string{"run", `{"ping": 1}`}, 0, "{\"ok\":1.0}\n", ""},
		{[]string{"run", `{"insert": "c", "documents": [{"_id": 1, "n": {"$numberLong": "5"}}]}`}, 0, "{\"n\":1,\"ok\":1.0}\n", ""},
		{[]string{"run", `{"find": "c", "filter": {}}`}, 0, "{\"cursor\":{\"id\":0,\"ns\":\"test.c\",\"firstBatch\":[{\"_id\":1,\"n\":5}]},\"ok\":1.0}\n", ""},
		{[]string{"run", "--canonical", `{"count": "c"}`}, 0, "{\"n\":{\"$numberInt\":\"1\"},\"ok\":{\"$numberDouble\":\"1.0\"}}\n", ""},
		// A write error inside an ok: 1 reply fails the command for a script.
		{[]string{"run", `{"insert": "c", "documents": [{"_id": 2}, {"_id": 1}]}`}, 1, "{\"n\":1,\"writeErrors\":[{\"index\":1,\"code\":11000,…",
			"ttlkv run: 1 write error(s), the first at index 1: E11000"},
		{[]string{"run", `{"nosuchcommand": 1}`}, 1, "{\"ok\":0.0,\"errmsg\":\"no such command: 'nosuchcommand'\",\"code\":59,\"codeName\":\"CommandNotFound\"}\n", ""},
		{[]string{"run", `{"ping": `}, 1, "", "Extended JSON"},
		{[]string{"run"}, 2, "", "exactly one command"},
	}
	for _, tc := range cases {
		out, errOut, code := cli(t, nil, dir, "", tc.args...)
		okOut := out == tc.out
		if p, isPrefix := strings.CutSuffix(tc.out, "…"); isPrefix {
			okOut = strings.HasPrefix(out, p)
		}
		if code != tc.code || !okOut || !strings.Contains(errOut, tc.err) {
			t.Errorf("ttlkv %q: exit %d stdout %q stderr %q; want exit %d stdout %q stderr containing %q", tc.args, code, out, errOut, tc.code, tc.out, tc.err)
		}
	}
}

// TestWriteFailure: a writeConcernError, which the engine never returns
// (it has no replicas), is reported as a write errors are.
func TestWriteFailure(t *testing.T) {
	t.Parallel()
	reply := bson.D{{Key: "n", Value: int32(1)}, {Key: "writeConcernError", Value: bson.D{{Key: "code", Value: int32(64)}, {Key: "errmsg", Value: "waiting for replication timed out"}}}, {Key: "ok", Value: 1.0}}
	if got, want := writeFailure(reply), "write concern error: waiting for replication timed out"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := writeFailure(bson.D{{Key: "n", Value: int32(1)}, {Key: "ok", Value: 1.0}}); got != "" {
		t.Errorf("a clean reply: %q", got)
	}
}
