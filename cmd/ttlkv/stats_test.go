package main

import (
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// TestStatsKindsAndTTL: stats names each collection's kind (capped with
// its limits, time-series with its fields and buckets), lists every TTL
// rule, and counts the documents already past expiry that the next pass
// will delete (within a partial filter; strings never expire).
func TestStatsKindsAndTTL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	setup := `const old = new Date(Date.now() - 7200 * 1000);
db.createCollection("cap", {capped: true, size: 4096, max: 10}); db.cap.insertMany([{a: 1}, {a: 2}]);
db.createCollection("w", {timeseries: {timeField: "t", metaField: "m", granularity: "hours"}, expireAfterSeconds: 86400});
db.w.insertMany([{t: new Date(), m: 1}, {t: new Date(), m: 2}]);
db.s.createIndex({at: 1}, {expireAfterSeconds: 3600});
db.s.insertMany([{at: old}, {at: [new Date(), old]}, {at: new Date()}, {at: "yesterday"}, {}]);
db.p.createIndex({at: 1}, {expireAfterSeconds: 60, partialFilterExpression: {keep: false}});
db.p.insertMany([{at: old, keep: false}, {at: old, keep: true}]);
db.plain.insertOne({})`
	if _, errOut, code := cli(t, nil, dir, "", "eval", setup); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code := cli(t, nil, dir, "", "stats")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	line := func(prefix string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		t.Errorf("no line starting %q:\n%s", prefix, out)
		return ""
	}
	for prefix, want := range map[string]string{
		"test.cap ":       "capped, max 4.0 KiB or 10 docs",
		"test.w ":         "time-series on t by m, hours, 2 bucket(s)",
		"test.plain ":     "         1 ",
		"test.s on at ":   "at_1                     3600 (1 h)           2",
		"test.p on at ":   "at_1                     60 (1 min)           1",
		"test.w on t ":    "(collection option)      86400 (1 d)          - (whole buckets)",
		"documents ":      "12 in 5 collection(s)",
		"TTL monitor ":    "0 document(s) deleted in 0 pass(es)",
		"batched deletes": "0 batch(es)",
	} {
		if l := line(prefix); !strings.Contains(l, want) {
			t.Errorf("line %q lacks %q", l, want)
		}
	}
	if l := line("test.s "); strings.Contains(l, "capped") || strings.Contains(l, "time-series") {
		t.Errorf("an ordinary collection shown with a kind: %q", l)
	}
	out, _, code = cli(t, nil, dir, "", "stats", "--json")
	for _, want := range []string{
		`{"kind":"capped","ns":"test.cap","count":2`,
		`{"kind":"timeseries","ns":"test.w"`,
		`{"ns":"test.s","index":"at_1","field":"at","expireAfterSeconds":3600,"expiredAwaitingDeletion":2}`,
		`{"ns":"test.w","index":"","field":"t","expireAfterSeconds":86400}`,
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("stats --json: exit %d, lacks %s:\n%s", code, want, out)
		}
	}
	// Nothing expired awaits once a pass has run.
	if _, errOut, code := cli(t, nil, dir, "", "reap"); code != 0 {
		t.Fatal(errOut)
	}
	out, _, _ = cli(t, nil, dir, "", "stats")
	if !strings.Contains(out, "3600 (1 h)           0\n") || !strings.Contains(out, "60 (1 min)           0\n") {
		t.Errorf("after reap:\n%s", out)
	}
}

func TestHumanDuration(t *testing.T) {
	t.Parallel()
	for s, want := range map[int64]string{0: "0 s", 59: "59 s", 60: "1 min", 90: "90 s", 7200: "2 h", 86400: "1 d", 604801: "604801 s", 2147483647: "2147483647 s"} {
		if got := humanDuration(s); got != want {
			t.Errorf("humanDuration(%d) = %q, want %q", s, got, want)
		}
	}
}

// TestStatsDiskUse: a data directory holds preallocated files (Badger's
// value log, sparse; a 64 MiB capped ring); stats reports the bytes
// allocated (what du says), well below the logical size it shows beside
// them.
func TestStatsDiskUse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, errOut, code := cli(t, nil, dir, "", "eval", `db.createCollection("ring", {capped: true, size: 64 * 1024 * 1024}); db.ring.insertOne({a: 1})`); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code := cli(t, nil, dir, "", "stats", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	d, err := document.ParseExtJSON([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	alloc, logical := num(d, "disk.allocatedBytes"), num(d, "disk.logicalBytes")
	if logical < 64<<20 || alloc <= 0 || alloc > logical/2 {
		t.Errorf("allocated %d, logical %d: want a logical size of at least 64 MiB and far fewer bytes allocated", alloc, logical)
	}
	text, _, _ := cli(t, nil, dir, "", "stats")
	if !strings.Contains(text, " allocated, as du counts it (logical size ") {
		t.Errorf("stats does not show allocated and logical sizes:\n%s", text)
	}
}
