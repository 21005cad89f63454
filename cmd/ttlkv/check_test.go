package main

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := cli(t, nil, dir, "", "check")
	if code != 0 || !strings.Contains(out, "all 0 collection(s) consistent") {
		t.Fatalf("empty: exit %d %q %q", code, out, errOut)
	}
	if _, errOut, code := cli(t, nil, dir, "", "eval", `db.a.insertMany([{x: 1}, {x: 2}]); db.a.createIndex({x: 1}); db.getSiblingDB("other").b.insertOne({})`); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code = cli(t, nil, dir, "", "check")
	if code != 0 || !strings.Contains(out, "ok       other.b (1 records, 1 indexes)") || !strings.Contains(out, "ok       test.a (2 records, 2 indexes)") {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errOut)
	}
}

func TestReapAndStats(t *testing.T) {
	dir := t.TempDir()
	setup := `db.s.createIndex({at: 1}, {expireAfterSeconds: 60});
db.s.insertMany([{at: new Date(Date.now() - 3600 * 1000)}, {at: new Date(Date.now() - 7200 * 1000)}, {at: new Date()}])`
	if _, errOut, code := cli(t, nil, dir, "", "eval", setup); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code := cli(t, nil, dir, "", "reap")
	if code != 0 || !strings.HasPrefix(out, "TTL pass: deleted 2 expired document(s)") || !strings.Contains(out, "test.s index at_1: 2 deleted") {
		t.Errorf("reap: exit %d stdout %q stderr %q", code, out, errOut)
	}
	out, _, code = cli(t, nil, dir, "", "reap", "--json")
	if code != 0 || !strings.HasPrefix(out, `{"deleted":0,`) {
		t.Errorf("reap --json: exit %d stdout %q", code, out)
	}
	out, errOut, code = cli(t, nil, dir, "", "stats")
	for _, want := range []string{"documents        1 in 1 collection(s)", "test.s", "TTL monitor"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("stats: exit %d, stdout lacks %q:\n%s%s", code, want, out, errOut)
		}
	}
	out, _, code = cli(t, nil, dir, "", "stats", "--json")
	if code != 0 || !strings.HasPrefix(out, `{"serverStatus":{`) || !strings.Contains(out, `"ns":"test.s","count":1`) {
		t.Errorf("stats --json: exit %d stdout %q", code, out)
	}
}
