package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsExamples runs the examples of the TTL, expire-data, capped and
// time-series documentation as written. Capped and time-series ones are
// checked only for a clear outcome while the engine lacks them.
func TestDocsExamples(t *testing.T) {
	dir := t.TempDir()
	ttl := []struct{ src, want string }{
		{`db.eventlog.createIndex( { "lastModifiedDate": 1 }, { expireAfterSeconds: 3600 } )`, "lastModifiedDate_1\n"},
		{`db.log_events.createIndex( { "expireAt": 1 }, { expireAfterSeconds: 0 } )`, "expireAt_1\n"},
		{`db.log_events.insertOne( { "expireAt": new Date('July 22, 2013 14:00:00'), "logEvent": 2, "logMessage": "Success!" } ).acknowledged`, "true\n"},
		{`db.eventlog.getIndexes()[1].expireAfterSeconds`, "3600\n"},
		{`db.runCommand( { collMod: "eventlog", index: { keyPattern: { lastModifiedDate: 1 }, expireAfterSeconds: 7200 } } ).ok`, "1\n"},
	}
	for _, ex := range ttl {
		out, errOut, code := cli(t, nil, dir, "", "eval", ex.src)
		if code != 0 || out != ex.want {
			t.Errorf("%s\n exit %d stdout %q stderr %q, want %q", ex.src, code, out, errOut, ex.want)
		}
	}
	others := []string{
		`db.createCollection("weather", { timeseries: { timeField: "timestamp", metaField: "metadata", granularity: "hours" }, expireAfterSeconds: 86400 })`,
		`db.createCollection("log", { capped: true, size: 100000 })`,
		`db.log.find().sort( { $natural: -1 } )`,
	}
	for _, src := range others {
		out, errOut, code := cli(t, nil, dir, "", "eval", src)
		if code != 0 && !strings.Contains(errOut, "MongoServerError[") {
			t.Errorf("%s\n exit %d stdout %q stderr %q: want success or a MongoServerError", src, code, out, errOut)
		}
	}
}

func TestEvalSources(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(t.TempDir(), "s.js")
	must(t, os.WriteFile(script, []byte("db.c.insertOne({_id: 1});\nprint('from file')\n"), 0o600))
	cases := []struct {
		args  []string
		stdin string
		code  int
		out   string
		err   string
	}{
		{[]string{"eval", "-f", script}, "", 0, "from file\n", ""},
		{[]string{"eval"}, "db.c.findOne()", 0, "{ _id: 1 }\n", ""},
		{[]string{"eval", "--json", "db.c.findOne()"}, "", 0, "{\n  \"_id\": 1\n}\n", ""},
		{[]string{"eval", "--json=canonical", "db.c.findOne()"}, "", 0, "{\n  \"_id\": {\n    \"$numberInt\": \"1\"\n  }\n}\n", ""},
		{[]string{"eval", "db.c.insertOne({_id: 1})"}, "", 1, "", "MongoServerError[DuplicateKey]: E11000"},
		{[]string{"eval", "try { db.c.insertOne({_id: 1}) } catch (e) { print(e.codeName) }"}, "", 0, "DuplicateKey\n", ""},
		{[]string{"eval", "db.c.find(\n{a: 1\n"}, "", 1, "", "SyntaxError: "},
		{[]string{"eval", "db.c.nosuch()"}, "", 1, "", "TypeError: "},
		{[]string{"eval", "quit(4)"}, "", 4, "", ""},
		{[]string{"eval", "--db", "other", "db.getName()"}, "", 0, "other\n", ""},
	}
	for _, tc := range cases {
		out, errOut, code := cli(t, nil, dir, tc.stdin, tc.args...)
		if code != tc.code || out != tc.out || !strings.Contains(errOut, tc.err) {
			t.Errorf("ttlkv %q: exit %d stdout %q stderr %q; want exit %d stdout %q stderr with %q", tc.args, code, out, errOut, tc.code, tc.out, tc.err)
		}
	}
	// A failed script leaves the data as it was.
	out, _, _ := cli(t, nil, dir, "", "eval", "db.c.countDocuments()")
	if out != "1\n" {
		t.Errorf("count after failures %q, want 1", out)
	}
}
