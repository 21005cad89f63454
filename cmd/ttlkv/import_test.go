package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestImport(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		args  []string
		input string
		code  int
		err   []string // substrings of stderr
		count string   // documents afterwards, as printed by eval
	}{
		{"json lines", nil, "{\"_id\": 1}\n{\"_id\": 2, \"d\": {\"$date\": \"2024-01-01T00:00:00Z\"}}\n\n{\"_id\": 3}\n", 0,
			[]string{"3 document(s) imported successfully. 0 document(s) failed"}, "3"},
		{"json array", nil, "[\n  {\"_id\": 1},\n  {\"_id\": 2}\n]\n", 0, []string{"2 document(s) imported successfully"}, "2"},
		{"bad lines skipped with line numbers", nil, "{\"_id\": 1}\n{\"_id\": \n{\"_id\": {\"$oid\": \"zz\"}}\n{\"_id\": 4}\n", 1,
			[]string{"line 2: ", "line 3: ", "2 document(s) imported successfully. 2 document(s) failed"}, "2"},
		{"stopOnError keeps what came before", []string{"--stopOnError"}, "{\"_id\": 1}\n{\"_id\": 2}\nnot json\n{\"_id\": 4}\n", 1,
			[]string{"line 3: ", "2 document(s) imported successfully. 1 document(s) failed"}, "2"},
		// A duplicate key is reported, but fails the import only with
		// --stopOnError, as in mongoimport.
		{"duplicate _id reported by line", []string{"--batchSize", "2"}, "{\"_id\": 1}\n{\"_id\": 1}\n{\"_id\": 3}\n", 0,
			[]string{"line 2: E11000", "2 document(s) imported successfully. 1 document(s) failed"}, "2"},
		{"bad array element line", nil, "[{\"_id\": 1},\n {\"_id\": {\"$oid\": \"zz\"}},\n {\"_id\": 3}]", 1,
			[]string{"line 2: ", "2 document(s) imported successfully. 1 document(s) failed"}, "2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, errOut, code := cli(t, nil, dir, tc.input, append([]string{"import", "c"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tc.code, errOut)
			}
			for _, s := range tc.err {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr %q lacks %q", errOut, s)
				}
			}
			out, errOut, _ := cli(t, nil, dir, "", "eval", "db.c.countDocuments()")
			if strings.TrimSpace(out) != tc.count {
				t.Errorf("count %q (stderr %q), want %s", out, errOut, tc.count)
			}
		})
	}
}

func TestImportUpsert(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, errOut, code := cli(t, nil, dir, "{\"_id\": 1, \"v\": 1}\n{\"_id\": 2, \"v\": 1}\n", "import", "c"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := cli(t, nil, dir, "{\"_id\": 1, \"v\": 2}\n{\"_id\": 3, \"v\": 2}\n{\"v\": 2}\n", "import", "c", "--mode", "upsert"); code != 0 {
		t.Fatalf("upsert exit %d: %s", code, errOut)
	}
	out, _, _ := cli(t, nil, dir, "", "eval", "db.c.find({}, {_id: 0, v: 1}).sort({_id: 1}).toArray().map(d => d.v).join(',') + ' ' + db.c.countDocuments()")
	if want := "2,1,2,2 4\n"; out != want {
		t.Errorf("after upsert: %q, want %q", out, want)
	}
}

// TestImportTimeseries: --timeField creates a missing time-series
// collection with the given options; later imports reuse it; mismatches,
// upserts and orphan flags are refused before anything is written.
func TestImportTimeseries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var in strings.Builder
	// 2500 measurements of 3 sensors, one a minute, from 2024-01-01:
	// more than one default batch of an ordinary import.
	for i := 0; i < 2500; i++ {
		fmt.Fprintf(&in, "{\"ts\": {\"$date\": \"%s\"}, \"m\": {\"sensor\": %d}, \"v\": %d}\n",
			time.Date(2024, 1, 1, 0, i, 0, 0, time.UTC).Format(time.RFC3339), i%3, i)
	}
	in.WriteString("{\"m\": {\"sensor\": 1}, \"v\": -1}\n") // no time field: a per-line error
	_, errOut, code := cli(t, nil, dir, in.String(), "import", "w", "--timeField", "ts", "--metaField", "m",
		"--granularity", "minutes", "--expireAfterSeconds", "3600")
	if code != 1 || !strings.Contains(errOut, `created time-series collection test.w (timeField "ts")`) ||
		!strings.Contains(errOut, "line 2501: ") || !strings.Contains(errOut, "2500 document(s) imported successfully. 1 document(s) failed") {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	check := `const o = db.getCollectionInfos({name: "w"})[0].options; ` +
		`[o.timeseries.timeField, o.timeseries.metaField, o.timeseries.granularity, o.expireAfterSeconds, db.w.countDocuments(), ` +
		`db.w.countDocuments({"m.sensor": 2}), db.w.findOne({v: 1234}, {_id: 0}).ts.toISOString()].join()`
	want := "ts,m,minutes,3600,2500,833,2024-01-01T20:34:00.000Z\n"
	if out, errOut, _ := cli(t, nil, dir, "", "eval", check); out != want {
		t.Errorf("after import: %q (stderr %q), want %q", out, errOut, want)
	}
	// A second import into the existing collection, with or without the flags.
	more := "{\"ts\": {\"$date\": \"2025-01-01T00:00:00Z\"}, \"m\": {\"sensor\": 9}, \"v\": 1}\n"
	for _, args := range [][]string{nil, {"--timeField", "ts"}, {"--timeField", "ts", "--metaField", "m"}} {
		if _, errOut, code := cli(t, nil, dir, more, append([]string{"import", "w"}, args...)...); code != 0 || strings.Contains(errOut, "created") {
			t.Errorf("import %q into the existing collection: exit %d, %s", args, code, errOut)
		}
	}
	refused := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"w", "--timeField", "time"}, 1, "test.w is a time-series collection with timeField ts and metaField m, not \"time\""},
		{[]string{"w", "--timeField", "ts", "--metaField", "meta"}, 1, "not \"ts\" and \"meta\""},
		{[]string{"w", "--mode", "upsert"}, 1, "--mode upsert cannot be used on a time-series collection"},
		{[]string{"plain", "--timeField", "ts"}, 1, "test.plain exists and is not a time-series collection"},
		{[]string{"x", "--metaField", "m"}, 1, "--metaField needs --timeField"},
		{[]string{"x", "--expireAfterSeconds", "5"}, 1, "--expireAfterSeconds needs --timeField"},
		{[]string{"x", "--timeField", "ts", "--granularity", "days"}, 1, "creating time-series collection test.x"},
	}
	if _, errOut, code := cli(t, nil, dir, "{}", "import", "plain"); code != 0 {
		t.Fatal(errOut)
	}
	for _, tc := range refused {
		_, errOut, code := cli(t, nil, dir, more, append([]string{"import"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.err) {
			t.Errorf("import %q: exit %d stderr %q, want exit %d with %q", tc.args, code, errOut, tc.code, tc.err)
		}
	}
	out, _, _ := cli(t, nil, dir, "", "eval", `db.w.countDocuments() + " " + db.getCollectionNames().join()`)
	if out != "2503 plain,system.buckets.w,system.views,w\n" { // the buckets and system.views listed as mongod 7.0 lists them
		t.Errorf("after the refusals: %q, want 2503 measurements and no collection x", out)
	}
}
