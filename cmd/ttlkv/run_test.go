package main

import (
	"strings"
	"testing"

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
		// A write error is reported inside an ok: 1 reply, so the exit code is 0.
		{[]string{"run", `{"insert": "c", "documents": [{"_id": 1}]}`}, 0, "{\"n\":0,\"writeErrors\":[{\"index\":0,\"code\":11000,…", ""},
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
