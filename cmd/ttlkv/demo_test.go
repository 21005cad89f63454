package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDemoRerunnable runs the demo twice on one directory: the second run
// must show the same TTL outcome, since the demo drops its collections.
func TestDemoRerunnable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for run := 1; run <= 2; run++ {
		start := time.Now()
		out, errOut, code := cli(t, nil, dir, "", "demo")
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("run %d took %v; the demo must stay under 5 s", run, el)
		}
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s\n%s", run, code, out, errOut)
		}
		for _, want := range []string{
			"inserted 4 documents",
			`{"_id":3,"customer":"ada","total":99.9}`,
			"IXSCAN customer_1",
			// Expired documents stay visible until the monitor deletes them.
			"  > db.demo_sessions.countDocuments()\n    4: s1 and s2 have expired, but stay visible",
			"the pass deleted 2 expired document(s)",
			"s1 (ada): expired and deleted",
			"s3 (linus): still here",
			"s4 (barbara): still here",
			// The capped find shows the projection it runs.
			"db.demo_log.find({}, { _id: 0 }).sort({ $natural: -1 })",
			"Try it yourself:  ttlkv shell   (then: db.demo_sessions.find())",
			// The geo chapter: the nearest three, then without the
			// scooter that stopped reporting.
			"    {\"_id\":\"sc1\",\"meters\":104.0}\n    {\"_id\":\"sc2\",\"meters\":122.0}\n    {\"_id\":\"sc3\",\"meters\":501.0}\n",
			"the pass deleted 1 stale scooter(s); the nearest is now sc2",
			"    {\"_id\":\"sc2\",\"meters\":122.0}\n    {\"_id\":\"sc3\",\"meters\":501.0}\n\nDone.",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("run %d: output lacks %q:\n%s", run, want, out)
			}
		}
		// The capped chapter keeps the newest 3 of 5, newest first.
		if want := "    {\"seq\":5,\"msg\":\"event 5\"}\n    {\"seq\":4,\"msg\":\"event 4\"}\n    {\"seq\":3,\"msg\":\"event 3\"}\n\n4."; !strings.Contains(out, want) {
			t.Errorf("run %d: capped chapter does not end with events 5, 4, 3:\n%s", run, out)
		}
		// The time-series chapter: the two old buckets (roof, cellar) go,
		// the three recent readings stay, oldest first.
		for _, want := range []string{
			"stored as 6 measurement(s) in 4 bucket(s)",
			"the pass deleted 2 bucket(s)",
			"left: 3 measurement(s) in 2 bucket(s)",
			// The aggregate over what is left: one cellar and two roof readings.
			"    {\"_id\":\"cellar\",\"readings\":1,\"avgTemp\":9.5}\n    {\"_id\":\"roof\",\"readings\":2,\"avgTemp\":14.75}\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("run %d: output lacks %q:\n%s", run, want, out)
			}
		}
		ts := out[strings.Index(out, "4. A time-series"):]
		temps := regexp.MustCompile(`"temp":([0-9.]+)`).FindAllStringSubmatch(ts, -1)
		if got := fmt.Sprint(temps); got != "[[\"temp\":14.5 14.5] [\"temp\":9.5 9.5] [\"temp\":15.0 15.0]]" {
			t.Errorf("run %d: readings left %s, want 14.5, 9.5, 15.0", run, got)
		}
		if strings.Contains(out, "skipped") {
			t.Errorf("run %d: a chapter was skipped:\n%s", run, out)
		}
	}
	if out, _, _ := cli(t, nil, dir, "", "check"); !strings.Contains(out, "consistent") || strings.Contains(out, "INVALID") {
		t.Errorf("check after the demo:\n%s", out)
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, errOut, code := cli(t, nil, dir, "", "eval", "db.plain.insertOne({})"); code != 0 {
		t.Fatal(errOut)
	}
	_, errOut, code := cli(t, nil, dir, "", "tail", "plain")
	if code != 1 || !strings.Contains(errOut, "capped") {
		t.Errorf("tail on a normal collection: exit %d stderr %q, want the engine's tailable error", code, errOut)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, errOut, code := cli(t, ctx, dir, "", "tail", "plain", "--from-start"); code != 0 {
		t.Errorf("tail interrupted: exit %d %s", code, errOut)
	}
	if _, errOut, code := cli(t, nil, dir, "", "tail"); code != 2 || !strings.Contains(errOut, "one collection") {
		t.Errorf("tail without a collection: exit %d %q", code, errOut)
	}
}

func TestServeStopsOnInterrupt(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, errOut, code := cli(t, ctx, t.TempDir(), "", "serve", "--ttlMonitorSleepSecs", "1")
	if code != 0 || !strings.Contains(errOut, "the TTL monitor is running") || !strings.Contains(errOut, "stopping") {
		t.Errorf("exit %d, log %q", code, errOut)
	}
}

// TestServeRejectsBadSleepSecs checks that serve refuses a
// --ttlMonitorSleepSecs that setParameter would refuse, instead of
// silently running with the default 60.
func TestServeRejectsBadSleepSecs(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, v := range []string{"0", "-5"} {
		_, errOut, code := cli(t, ctx, t.TempDir(), "", "serve", "--ttlMonitorSleepSecs", v)
		if code != 2 || !strings.Contains(errOut, "--ttlMonitorSleepSecs must be at least 1") || strings.Contains(errOut, "the TTL monitor is running") {
			t.Errorf("--ttlMonitorSleepSecs %s: exit %d, stderr %q, want a usage error", v, code, errOut)
		}
	}
}

// TestDemoShellHint checks that the demo's closing hint opens the shell
// on the directory and database the demo used.
func TestDemoShellHint(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "my data")
	out, errOut, code := cli(t, nil, "", "", "demo", "--dir", dir, "--db", "demo")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if want := "Try it yourself:  ttlkv shell --dir '" + dir + "' --db demo   (then: db.demo_sessions.find())"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}
