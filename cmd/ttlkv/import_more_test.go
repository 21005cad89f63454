package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestImportArrayMalformedElement: a 3000-element JSON array, one
// element per line after "[" on line 1, whose element 1500 (line 1502)
// is malformed: that element is reported on its own line and skipped,
// and the 2999 others are all imported, whatever the batch size.
func TestImportArrayMalformedElement(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	in.WriteString("[\n")
	for i := 0; i < 3000; i++ {
		sep := ","
		if i == 2999 {
			sep = ""
		}
		if i == 1500 {
			fmt.Fprintf(&in, "{\"_id\": %d, \"v\": tru}%s\n", i, sep) // line i+2
			continue
		}
		fmt.Fprintf(&in, "{\"_id\": %d, \"s\": \"a, [b] {c} \\\"d\\\"\"}%s\n", i, sep)
	}
	in.WriteString("]\n")
	for _, bs := range []string{"1000", "100"} {
		t.Run("batch"+bs, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			_, errOut, code := cli(t, nil, dir, in.String(), "import", "c", "--batchSize", bs)
			if code != 1 || !strings.Contains(errOut, "line 1502: ") || strings.Contains(errOut, "line 1501") ||
				!strings.Contains(errOut, "2999 document(s) imported successfully. 1 document(s) failed") {
				t.Fatalf("exit %d, stderr %s", code, errOut)
			}
			out, _, _ := cli(t, nil, dir, "", "eval", "db.c.countDocuments() + ' ' + db.c.countDocuments({_id: {$gte: 1000, $lt: 1500}})")
			if out != "2999 500\n" {
				t.Errorf("documents after import: %q, want 2999 in all and 500 in [1000, 1500)", out)
			}
		})
	}
}

// TestImportArrayUnclosed: an element that never closes ends the import
// with its line named, and every element before it is kept.
func TestImportArrayUnclosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, errOut, code := cli(t, nil, dir, "[{\"_id\": 1},\n{\"_id\": 2},\n{\"_id\": 3, \"a\": [1, 2\n]", "import", "c", "--jsonArray")
	if code != 1 || !strings.Contains(errOut, "line 3: the array element starting here never ends") ||
		!strings.Contains(errOut, "2 document(s) imported successfully. 1 document(s) failed") {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
}

// TestImportBOM: a UTF-8 byte-order mark before JSON lines, a JSON array
// or CSV is skipped.
func TestImportBOM(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		args     []string
	}{
		{"json lines", "\xef\xbb\xbf{\"_id\": 1}\n{\"_id\": 2}\n", nil},
		{"json array", "\xef\xbb\xbf[{\"_id\": 1}, {\"_id\": 2}]", nil},
		{"csv", "\xef\xbb\xbf_id,v\n1,a\n2,b\n", []string{"--type", "csv", "--headerline"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			_, errOut, code := cli(t, nil, dir, tc.in, append([]string{"import", "c"}, tc.args...)...)
			if code != 0 || !strings.Contains(errOut, "2 document(s) imported successfully. 0 document(s) failed") {
				t.Fatalf("exit %d, stderr %s", code, errOut)
			}
			out, _, _ := cli(t, nil, dir, "", "eval", "db.c.find().sort({_id: 1}).toArray().map(d => d._id).join()")
			if out != "1,2\n" {
				t.Errorf("_ids %q, want 1,2", out)
			}
		})
	}
}

// TestImportErrorCap: importing a file that is not JSON at all lists the
// first 10 bad lines, then counts the rest in one line.
func TestImportErrorCap(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&in, "user%d:x:%d:%d::/home/user%d:/bin/sh\n", i, i, i, i)
	}
	_, errOut, code := cli(t, nil, t.TempDir(), in.String(), "import", "x")
	if code != 1 || strings.Count(errOut, "\nline ")+strings.Count(errOut[:5], "line ") != 10 ||
		!strings.Contains(errOut, "line 10: ") || strings.Contains(errOut, "line 11: ") ||
		!strings.Contains(errOut, "... and 490 more failed document(s) not listed") ||
		!strings.Contains(errOut, "0 document(s) imported successfully. 500 document(s) failed") {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
}

// TestImportTimeseriesNothingImported: an import that creates a
// time-series collection and imports nothing into it (no measurement has
// the time field) drops it again. As on mongod, the database's
// system.views, made with the collection's definition, stays.
func TestImportTimeseriesNothingImported(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, errOut, code := cli(t, nil, dir, "{\"v\": 1}\n{\"v\": 2}\n", "import", "w", "--timeField", "ts")
	if code != 1 || !strings.Contains(errOut, "dropped the time-series collection test.w created by this import") {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	if out, _, _ := cli(t, nil, dir, "", "eval", "db.getCollectionNames().join()"); out != "system.views\n" {
		t.Errorf("collections left: %q, want system.views alone", out)
	}
}

// TestImportCSVTypes: CSV and TSV with --fields, --fieldFile, --headerline
// and --columnsHaveTypes give the values the types mongoimport gives.
func TestImportCSVTypes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ff := filepath.Join(t.TempDir(), "fields")
	must(t, os.WriteFile(ff, []byte("name\nn\naddr.city\n"), 0o600))
	cases := []struct {
		coll, in string
		args     []string
	}{
		{"auto", "name,n,x\nAda,36,1.5\n\"Love, lace\",3000000000,abc\n", []string{"--type", "csv", "--headerline"}},
		{"fields", "Ada\t36\tLondon\n", []string{"--type", "tsv", "--fieldFile", ff}},
		{"typed", "Ada,36,36,1815-12-10,true,1.25,aGk=\n", []string{"--type", "csv", "--columnsHaveTypes",
			"--fields", "name.string(),n.int64(),s.string(),born.date_go(2006-01-02),b.boolean(),d.decimal(),bin.binary(base64)"}},
	}
	for _, tc := range cases {
		if _, errOut, code := cli(t, nil, dir, tc.in, append([]string{"import", "-c", tc.coll}, tc.args...)...); code != 0 {
			t.Fatalf("%s: exit %d, %s", tc.coll, code, errOut)
		}
	}
	out, errOut, _ := cli(t, nil, dir, "", "eval", `[db.auto, db.fields, db.typed].map(c => EJSON.stringify(c.find({}, {_id: 0}).toArray(), {relaxed: false})).join("\n")`)
	want := `[{"name":"Ada","n":{"$numberInt":"36"},"x":{"$numberDouble":"1.5"}},{"name":"Love, lace","n":{"$numberLong":"3000000000"},"x":"abc"}]` + "\n" +
		`[{"name":"Ada","n":{"$numberInt":"36"},"addr":{"city":"London"}}]` + "\n" +
		`[{"name":"Ada","n":{"$numberLong":"36"},"s":"36","born":{"$date":{"$numberLong":"-4861728000000"}},"b":true,"d":{"$numberDecimal":"1.25"},"bin":{"$binary":{"base64":"aGk=","subType":"00"}}}]` + "\n"
	if out != want {
		t.Errorf("documents:\n%s(stderr %s)\nwant\n%s", out, errOut, want)
	}
	// A value that does not fit its column's type is a per-row error.
	_, errOut, code := cli(t, nil, dir, "1\nx\n3\n", "import", "bad", "--type", "csv", "--columnsHaveTypes", "--fields", "n.int32()")
	if code != 1 || !strings.Contains(errOut, "line 2: type coercion failure for column `n`, could not parse token `x` to type int32") || !strings.Contains(errOut, "2 document(s) imported successfully. 1") {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
	for _, args := range [][]string{{"--type", "csv"}, {"--type", "csv", "--headerline", "--fields", "a"}, {"--type", "xml"},
		{"--type", "csv", "--columnsHaveTypes", "--fields", "a"}, {"--fields", "a"}} {
		if _, errOut, code := cli(t, nil, dir, "", append([]string{"import", "x"}, args...)...); code != 1 {
			t.Errorf("import %q: exit %d (%s), want 1 (mongoimport's exit for an option error)", args, code, errOut)
		}
	}
}

// TestImportProgress: on a pipe, a plain progress line is printed each
// interval; on a terminal the first frame shows no rate.
func TestImportProgress(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&in, "{\"_id\": %d}\n", i)
	}
	file := filepath.Join(t.TempDir(), "in.json")
	must(t, os.WriteFile(file, []byte(in.String()), 0o600))
	for _, tty := range []bool{false, true} {
		var errb strings.Builder
		e := testEnv(t.TempDir(), "", nil, &errb)
		e.isTerm = func(v any) bool { return tty && v == any(&errb) }
		e.progressEvery = time.Nanosecond
		if code := e.main([]string{"import", "c", file}); code != 0 {
			t.Fatalf("tty %v: exit %d: %s", tty, code, errb.String())
		}
		s := errb.String()
		if !tty {
			first, _, _ := strings.Cut(s, "\n")
			parts := strings.Split(first, "\t")
			if len(parts) != 4 || parts[1] != "test.c" || !strings.HasSuffix(parts[2], "%)") || !strings.HasSuffix(parts[3], "document(s)") {
				t.Errorf("pipe: first line %q, want time, namespace, bytes done/total (pct), documents", first)
			}
			continue
		}
		frame, _, _ := strings.Cut(strings.TrimPrefix(s, "\r"), "\r")
		if !strings.HasPrefix(s, "\rtest.c  ") || strings.Contains(frame, "/s") {
			t.Errorf("terminal: first frame %q: want one starting with the namespace, showing no rate", frame)
		}
	}
}

// testEnv returns an env on data directory dir with the given stdin and
// buffers for output, as cli builds it.
func testEnv(dir, stdin string, stdout, stderr io.Writer) *env {
	if stdout == nil {
		stdout = io.Discard
	}
	return &env{
		ctx: context.Background(), stdin: strings.NewReader(stdin), stdout: stdout, stderr: stderr,
		getenv: func(k string) string {
			if k == "TTLKV_DIR" {
				return dir
			}
			return ""
		},
		isTerm:   func(any) bool { return false },
		openOpts: smallStore,
	}
}
