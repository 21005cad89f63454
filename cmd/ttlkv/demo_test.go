package main

import (
	"context"
	"strings"
	"testing"
)

// TestDemoRerunnable runs the demo twice on one directory: the second run
// must show the same TTL outcome, since the demo drops its collections.
func TestDemoRerunnable(t *testing.T) {
	dir := t.TempDir()
	for run := 1; run <= 2; run++ {
		out, errOut, code := cli(t, nil, dir, "", "demo")
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s\n%s", run, code, out, errOut)
		}
		for _, want := range []string{
			"inserted 4 documents",
			`{"_id":3,"customer":"ada","total":99.9}`,
			"IXSCAN customer_1",
			"the pass deleted 2 expired document(s)",
			"s1 (ada): expired and deleted",
			"s3 (linus): still here",
			"s4 (barbara): still here",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("run %d: output lacks %q:\n%s", run, want, out)
			}
		}
		// Capped and time-series chapters run, or say in one line why not.
		for _, ch := range []string{"3. A capped", "4. A time-series"} {
			i := strings.Index(out, ch)
			if i < 0 {
				t.Errorf("chapter %q missing", ch)
			}
		}
	}
	if out, _, _ := cli(t, nil, dir, "", "check"); !strings.Contains(out, "consistent") || strings.Contains(out, "INVALID") {
		t.Errorf("check after the demo:\n%s", out)
	}
}

func TestTail(t *testing.T) {
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
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, errOut, code := cli(t, ctx, t.TempDir(), "", "serve", "--ttlMonitorSleepSecs", "1")
	if code != 0 || !strings.Contains(errOut, "the TTL monitor is running") || !strings.Contains(errOut, "stopping") {
		t.Errorf("exit %d, log %q", code, errOut)
	}
}
