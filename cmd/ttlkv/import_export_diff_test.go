package main

// A differential run of ttlkv import/export against mongoimport and
// mongoexport 100.x (built from source), on the same data and flags,
// against a 'ttlkv serve'. Each test asserts what the real tool printed
// or stored; the comment says what ttlkv did before. Helpers (ie26Docs,
// ie26Seed) are in review_ie26_test.go.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// diffOID matches the generated _id mongoimport and ttlkv give a
// document without one.
var diffOID = regexp.MustCompile(`"_id":\{"\$oid":"[0-9a-f]{24}"\},?`)

// diffDocs exports coll as canonical Extended JSON (whole doubles stay
// doubles, which the shell's EJSON.stringify cannot tell from ints),
// with generated _ids left out: one document a line.
func diffDocs(t *testing.T, dir, coll string) string {
	t.Helper()
	out, errOut, code := cli(t, nil, dir, "", "export", coll, "--jsonFormat", "canonical")
	if code != 0 {
		t.Fatalf("export %s: exit %d: %s", coll, code, errOut)
	}
	return strings.TrimSpace(diffOID.ReplaceAllString(out, ""))
}

// diffWrite writes a file in dir and returns its path.
func diffWrite(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDiffImportFieldSourcesExclusive: mongoimport takes the CSV or TSV
// column names from exactly one of --fields, --fieldFile and
// --headerline, and says which two clash. ttlkv joined --fields and
// --fieldFile and imported.
func TestDiffImportFieldSourcesExclusive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ff := diffWrite(t, dir, "ff", "x\ny\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--fields", "a", "--fieldFile", ff}, "incompatible options: --fields and --fieldFile"},
		{[]string{"--fields", "a", "--headerline"}, "incompatible options: --fields and --headerline"},
		{[]string{"--fieldFile", ff, "--headerline"}, "incompatible options: --fieldFile and --headerline"},
		{nil, "must specify --fields, --fieldFile or --headerline to import this file type"},
		{[]string{"--fieldFile="}, "--fieldFile cannot be empty string"},
	} {
		args := append([]string{"import", "c", "--type", "csv"}, c.args...)
		out, errOut, code := cli(t, nil, dir, "1,2,3\n", args...)
		if code != 1 || out != "" || errOut != "ttlkv import: "+c.want+"\n" {
			t.Errorf("%q: exit %d stdout %q stderr %q, want exit 1 and %q", c.args, code, out, errOut, c.want)
		}
	}
	if n := ie26Count(t, dir, "c"); n != "0" {
		t.Errorf("%s documents imported, want 0", n)
	}
}

// TestDiffExportFieldsWinOverFieldFile: mongoexport given both exports
// the --fields (its fieldFile is read only without them). ttlkv joined
// the two.
func TestDiffExportFieldsWinOverFieldFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ie26Seed(t, dir, "c", `{"_id": 1, "name": "ann", "age": 30}`+"\n")
	ff := diffWrite(t, dir, "ff", "name\nage\n")
	out, errOut, code := cli(t, nil, dir, "", "export", "c", "--fields", "name", "--fieldFile", ff)
	if code != 0 || out != `{"_id":1,"name":"ann"}`+"\n" || errOut != "exported 1 record\n" {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	out, _, _ = cli(t, nil, dir, "", "export", "c", "--type", "csv", "--fields", "age", "--fieldFile", ff)
	if out != "age\n30\n" {
		t.Errorf("csv stdout %q, want %q", out, "age\n30\n")
	}
}

// TestDiffExportNegativeSkip: mongoexport sends a negative --skip to the
// server, which refuses it: "Failed: (Location51024) BSON field 'skip'
// value must be >= 0, actual value '-1'", exit 1. ttlkv ignored it and
// exported everything.
func TestDiffExportNegativeSkip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ie26Seed(t, dir, "c", `{"_id": 1}`+"\n")
	out, errOut, code := cli(t, nil, dir, "", "export", "c", "--skip", "-1")
	want := "ttlkv export: Location51024 (51024): BSON field 'skip' value must be >= 0, actual value '-1'\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("exit %d stdout %q stderr %q, want exit 1 and %q", code, out, errOut, want)
	}
}

// TestDiffExportCSVNeedsFields: mongoexport's words, "CSV mode requires
// a field list". ttlkv added "(--fields or --fieldFile)".
func TestDiffExportCSVNeedsFields(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ie26Seed(t, dir, "c", `{"_id": 1}`+"\n")
	_, errOut, code := cli(t, nil, dir, "", "export", "c", "--type", "csv")
	if code != 1 || errOut != "ttlkv export: CSV mode requires a field list\n" {
		t.Errorf("exit %d stderr %q", code, errOut)
	}
}

// TestDiffImportDropAndFatalErrorOrder: mongoimport says "dropping:
// `db.coll`" before it drops, and prints the error that ends an import
// ("Failed: ...") before the counts. ttlkv said nothing of the drop and
// printed its error after the counts.
func TestDiffImportDropAndFatalErrorOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, errOut, code := cli(t, nil, dir, `{"a": 1}`+"\n", "import", "c", "--drop")
	if code != 0 || out != "" || errOut != "dropping: `test.c`\n1 document(s) imported successfully. 0 document(s) failed to import.\n" {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	_, errOut, code = cli(t, nil, dir, "a,a\n1,2\n", "import", "c", "--type", "csv", "--headerline")
	want := "ttlkv import: fields cannot be identical: `a` and `a`\n0 document(s) imported successfully. 0 document(s) failed to import.\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d stderr %q, want %q", code, errOut, want)
	}
}

// TestDiffImportCSVDigitSeparators: mongoimport types an untyped cell
// with Go's ParseFloat, which reads digit separators: "1_000" is the
// double 1000. ttlkv kept it a string.
func TestDiffImportCSVDigitSeparators(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, errOut, code := cli(t, nil, dir, "a,b,c\n1_000,0x10,1_0.5\n", "import", "c", "--type", "csv", "--headerline"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `{"a":{"$numberDouble":"1000.0"},"b":"0x10","c":{"$numberDouble":"10.5"}}`
	if got := diffDocs(t, dir, "c"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestDiffImportDateMSAndOracle: mongoimport's date_ms() and
// date_oracle() read SQL Server's and Oracle's format models. ttlkv
// refused them. A date() or date_go() with no layout reads only an
// empty cell, as the zero time (Go's time.Parse with an empty layout);
// ttlkv read RFC 3339 there.
func TestDiffImportDateMSAndOracle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := "m.date_ms(dddd d MMMM yyyy hh:mm:ss tt zzz),o.date_oracle(dy dd-mon-yy hh12:mi:ss am tzh:tzm),s.date_ms(yyyy-MM-dd HH:mm:ss),e.date(),g.date_go()\n" +
		"Tuesday 2 January 2024 03:04:05 PM +02:00,TUE 02-JAN-24 03:04:05 PM +02:00,2024-01-02 03:04:05,,\n"
	if _, errOut, code := cli(t, nil, dir, in, "import", "c", "--type", "csv", "--headerline", "--columnsHaveTypes"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `[{"m":{"$date":{"$numberLong":"1704200645000"}},"o":{"$date":{"$numberLong":"1704200645000"}},` +
		`"s":{"$date":{"$numberLong":"1704164645000"}},"e":{"$date":{"$numberLong":"-62167219200000"}},"g":{"$date":{"$numberLong":"-62167219200000"}}}]`
	if got := ie26Docs(t, dir, "c"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	_, errOut, code := cli(t, nil, dir, "e.date()\n2024-01-02T03:04:05Z\n", "import", "d", "--type", "csv", "--headerline", "--columnsHaveTypes")
	want = "line 2: type coercion failure for column `e`, could not parse token `2024-01-02T03:04:05Z` to type date\n" +
		"0 document(s) imported successfully. 1 document(s) failed to import.\n"
	if code != 1 || errOut != want {
		t.Errorf("date(): exit %d stderr %q, want %q", code, errOut, want)
	}
}

// TestDiffImportTSVTypedCellsNotTrimmed: a TSV cell keeps its spaces,
// and mongoimport's int32(), int64(), double() and decimal() parse the
// cell as it is, so " 5" is not an int32. ttlkv trimmed the cell first.
// With skipRow mongoimport writes the skipped TSV line to stdout as it
// read it (line ending included) and a newline; ttlkv wrote nothing.
func TestDiffImportTSVTypedCellsNotTrimmed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := "s.string()\ti.int32()\tx.decimal()\n1\t 5\t1.5\n2\t5\t 1.5\n3\t5\t1.5\n"
	out, errOut, code := cli(t, nil, dir, in, "import", "c", "--type", "tsv", "--headerline", "--columnsHaveTypes")
	want := "line 2: type coercion failure for column `i`, could not parse token ` 5` to type int32\n" +
		"line 3: type coercion failure for column `x`, could not parse token ` 1.5` to type decimal\n" +
		"1 document(s) imported successfully. 2 document(s) failed to import.\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("stop: exit %d stdout %q stderr %q, want %q", code, out, errOut, want)
	}
	out, errOut, code = cli(t, nil, dir, in, "import", "d", "--type", "tsv", "--headerline", "--columnsHaveTypes", "--parseGrace", "skipRow")
	want = "line 2: skipping row: type coercion failure for column `i`, could not parse token ` 5` to type int32\n" +
		"line 3: skipping row: type coercion failure for column `x`, could not parse token ` 1.5` to type decimal\n" +
		"1 document(s) imported successfully. 0 document(s) failed to import.\n"
	if code != 0 || out != "1\t 5\t1.5\n\n2\t5\t 1.5\n\n" || errOut != want {
		t.Errorf("skipRow: exit %d stdout %q stderr %q, want %q", code, out, errOut, want)
	}
	if got := ie26Docs(t, dir, "d"); got != `[{"s":"3","i":{"$numberInt":"5"},"x":{"$numberDecimal":"1.5"}}]` {
		t.Errorf("skipRow imported %s", got)
	}
}

// TestDiffImportTSVEmptyLine: mongoimport's TSV reader takes an empty
// line as a row of one empty cell ({"a": ""}, or {} with
// --ignoreBlanks); its CSV reader skips it. ttlkv skipped it in TSV too.
func TestDiffImportTSVEmptyLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := "a\tb\n1\t2\n\n3\t4\n"
	if _, errOut, code := cli(t, nil, dir, in, "import", "c", "--type", "tsv", "--headerline"); code != 0 ||
		errOut != "3 document(s) imported successfully. 0 document(s) failed to import.\n" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := cli(t, nil, dir, in, "import", "d", "--type", "tsv", "--headerline", "--ignoreBlanks"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := cli(t, nil, dir, "a,b\n1,2\n\n3,4\n", "import", "e", "--type", "csv", "--headerline"); code != 0 ||
		errOut != "2 document(s) imported successfully. 0 document(s) failed to import.\n" {
		t.Fatalf("csv: exit %d: %s", code, errOut)
	}
	for coll, want := range map[string]string{
		"c": `[{"a":{"$numberInt":"1"},"b":{"$numberInt":"2"}},{"a":""},{"a":{"$numberInt":"3"},"b":{"$numberInt":"4"}}]`,
		"d": `[{"a":{"$numberInt":"1"},"b":{"$numberInt":"2"}},{},{"a":{"$numberInt":"3"},"b":{"$numberInt":"4"}}]`,
	} {
		if got := ie26Docs(t, dir, coll); got != want {
			t.Errorf("%s: got %s, want %s", coll, got, want)
		}
	}
}

// TestDiffImportJSONErrorWording: a document that is not JSON or not
// Extended JSON is reported in mongoimport's words (after ttlkv's line
// number), without the server's "FailedToParse (9): Extended JSON:".
func TestDiffImportJSONErrorWording(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := `{"a":{"$numberInt":"2147483648"}}` + "\n" + `{"a":{"$oid":"zz"}}` + "\n" + `{"a":{"$date":"2024-01-01"}}` + "\n" + `{"a":}` + "\n" + `{"a":1}` + "\n"
	_, errOut, code := cli(t, nil, dir, in, "import", "c")
	want := "line 1: $numberInt value should be int32 but instead is int64: 2147483648\n" +
		"line 2: the provided hex string is not a valid ObjectID\n" +
		"line 3: invalid $date value string: 2024-01-01\n" +
		"line 4: invalid character '}' looking for beginning of value at byte 6\n" +
		"1 document(s) imported successfully. 4 document(s) failed to import.\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d stderr %q, want %q", code, errOut, want)
	}
}

// TestDiffImportFieldNamesAsGiven: mongoimport takes column names as
// given: an empty one (a header "a,,b" or "a,b,", --fields "", a blank
// line of --fieldFile) names a field "", spaces are kept ("a, b" names
// " b"), and an empty --fieldFile names the columns field0, field1, ...
// ttlkv refused empty names and trimmed the others.
func TestDiffImportFieldNamesAsGiven(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ff := diffWrite(t, dir, "ff", "a\n\n b \r\n")
	empty := diffWrite(t, dir, "empty", "")
	for _, c := range []struct {
		coll, in string
		args     []string
		want     string
	}{
		{"h", "a,,b\n1,2,3\n", []string{"--headerline"}, `{"a":{"$numberInt":"1"},"":{"$numberInt":"2"},"b":{"$numberInt":"3"}}`},
		{"t", "a,b,\n1,2,3\n", []string{"--headerline"}, `{"a":{"$numberInt":"1"},"b":{"$numberInt":"2"},"":{"$numberInt":"3"}}`},
		{"f", "1,2,3\n", []string{"--fields", "a, b ,c"}, `{"a":{"$numberInt":"1"}," b ":{"$numberInt":"2"},"c":{"$numberInt":"3"}}`},
		{"e", "1,2,3\n", []string{"--fields="}, `{"":{"$numberInt":"1"},"field1":{"$numberInt":"2"},"field2":{"$numberInt":"3"}}`},
		{"ff", "1,2,3\n", []string{"--fieldFile", ff}, `{"a":{"$numberInt":"1"},"":{"$numberInt":"2"}," b ":{"$numberInt":"3"}}`},
		{"none", "1,2\n", []string{"--fieldFile", empty}, `{"field0":{"$numberInt":"1"},"field1":{"$numberInt":"2"}}`},
	} {
		args := append([]string{"import", c.coll, "--type", "csv"}, c.args...)
		if _, errOut, code := cli(t, nil, dir, c.in, args...); code != 0 {
			t.Errorf("%s: exit %d: %s", c.coll, code, errOut)
			continue
		}
		if got := diffDocs(t, dir, c.coll); got != c.want {
			t.Errorf("%s: got %s, want %s", c.coll, got, c.want)
		}
	}
	_, errOut, code := cli(t, nil, dir, "a,,\n1,2,3\n", "import", "x", "--type", "csv", "--headerline")
	want := "ttlkv import: fields cannot be identical: `` and ``\n0 document(s) imported successfully. 0 document(s) failed to import.\n"
	if code != 1 || errOut != want {
		t.Errorf("two empty names: exit %d stderr %q, want %q", code, errOut, want)
	}
}

// TestDiffExportFieldFileAsGiven: mongoexport reads --fieldFile line by
// line, untrimmed: a blank line is an empty CSV column (and no
// projection), " b " a column of that name. ttlkv dropped blank lines
// and trimmed.
func TestDiffExportFieldFileAsGiven(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ie26Seed(t, dir, "c", `{"_id": 1, "name": "ann", "age": 30}`+"\n")
	ff := diffWrite(t, dir, "ff", "name\n\nage\n b \n")
	out, errOut, code := cli(t, nil, dir, "", "export", "c", "--type", "csv", "--fieldFile", ff)
	if code != 0 || out != "name,,age,\" b \"\nann,,30,\n" || errOut != "exported 1 record\n" {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// TestDiffImportMissingFile: mongoimport prints its counts after the
// error of a file it cannot open.
func TestDiffImportMissingFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, errOut, code := cli(t, nil, dir, "", "import", "c", "--file", filepath.Join(dir, "nope.json"))
	want := "ttlkv import: open " + filepath.Join(dir, "nope.json") + ": no such file or directory\n" +
		"0 document(s) imported successfully. 0 document(s) failed to import.\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d stderr %q, want %q", code, errOut, want)
	}
}

// TestDiffImportMessages: mongoimport's words for a collection taken
// from the file name and for a bad --mode.
func TestDiffImportMessages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := diffWrite(t, dir, "people.json", `{"a": 1}`+"\n")
	_, errOut, code := cli(t, nil, dir, "", "import", "--file", file)
	want := "no collection specified\nusing filename `people` as collection\n1 document(s) imported successfully. 0 document(s) failed to import.\n"
	if code != 0 || errOut != want {
		t.Errorf("exit %d stderr %q, want %q", code, errOut, want)
	}
	_, errOut, code = cli(t, nil, dir, "", "import", "c", "--mode", "bogus")
	want = "ttlkv import: Invalid value `bogus' for option `--mode'. Allowed values are: insert, upsert, merge or delete\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d stderr %q, want %q", code, errOut, want)
	}
}

// TestDiffImportLegacyTypes: mongoimport --legacy types numbers by their
// text (1.0 a double, 3000000000 an int64, 0x10 the int32 16), reads
// undefined as BSON undefined and Date(0) as a date, keeps a regular
// expression's flags, and reads an Extended JSON wrapper inside a legacy
// document. ttlkv evaluated the document in the shell, whose numbers are
// JavaScript's: 1.0 became the int32 1, 3000000000 a double, undefined
// null, Date(0) a string of the current time, and the g flag was lost.
// What mongoimport cannot read (NumberDecimal) ttlkv still reads, in the
// same document, and 010 is refused as mongoimport refuses it.
func TestDiffImportLegacyTypes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := `{a: 3000000000, b: 1.0, c: 1e3, d: 0x10, e: -0, f: undefined, g: Date(0), h: new Date(-1), i: /a\/b/g, ` +
		`j: NumberLong("9007199254740993"), k: NumberInt(7), l: -Infinity, m: MinKey, n: 'sq', o: {"$date": "2024-01-01T00:00:00Z"}, ` +
		`p: [NumberDecimal("1.5"), 2.0], q: Timestamp(5, 6), r: BinData(4, "AAECAwQFBgcICQoLDA0ODw=="), s: ObjectId("65a1b2c3d4e5f60718293a4b")}` + "\n" +
		`{a: 010}` + "\n"
	_, errOut, code := cli(t, nil, dir, in, "import", "c", "--legacy")
	wantErr := "line 2: legacy Extended JSON: invalid number 010\n1 document(s) imported successfully. 1 document(s) failed to import.\n"
	if code != 1 || errOut != wantErr {
		t.Errorf("exit %d stderr %q, want %q", code, errOut, wantErr)
	}
	want := `{"a":{"$numberLong":"3000000000"},"b":{"$numberDouble":"1.0"},"c":{"$numberDouble":"1000.0"},"d":{"$numberInt":"16"},` +
		`"e":{"$numberInt":"0"},"f":{"$undefined":true},"g":{"$date":{"$numberLong":"0"}},"h":{"$date":{"$numberLong":"-1"}},` +
		`"i":{"$regularExpression":{"pattern":"a/b","options":"g"}},"j":{"$numberLong":"9007199254740993"},"k":{"$numberInt":"7"},` +
		`"l":{"$numberDouble":"-Infinity"},"m":{"$minKey":1},"n":"sq","o":{"$date":{"$numberLong":"1704067200000"}},` +
		`"p":[{"$numberDecimal":"1.5"},{"$numberDouble":"2.0"}],"q":{"$timestamp":{"t":5,"i":6}},` +
		`"r":{"$binary":{"base64":"AAECAwQFBgcICQoLDA0ODw==","subType":"04"}},"s":{"$oid":"65a1b2c3d4e5f60718293a4b"}}`
	if got := diffDocs(t, dir, "c"); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestDiffExportCSVCodeInDocument: in a document's CSV cell mongoexport
// writes code Go-quoted (a tab as \t) with <, > and & escaped, a
// DBPointer's namespace with them escaped too, and leaves the whole cell
// empty when the code holds a character Go quotes as \x01. ttlkv wrote
// x<y and c<d as they are and the \x01 cell in full.
func TestDiffExportCSVCodeInDocument(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ie26Seed(t, dir, "c", `{"_id": 1, "s": {"c": {"$code": "x<y && \"q\"\t\u00e9\u2028\\"}, "w": {"$code": "a>b", "$scope": {"k": "<"}}}}`+"\n"+
		`{"_id": 2, "s": {"c": {"$code": "a\u0001b"}}}`+"\n"+
		`{"_id": 3, "s": {"p": {"$dbPointer": {"$ref": "c<d", "$id": {"$oid": "65a1b2c3d4e5f60718293a4b"}}}}}`+"\n")
	out, errOut, code := cli(t, nil, dir, "", "export", "c", "--type", "csv", "--fields", "s", "--sort", `{"_id": 1}`)
	want := "s\n" +
		`"{""c"":{""$code"":""x\u003cy \u0026\u0026 \""q\""\té\u2028\\""},""w"":{""$code"":""a\u003eb"",""$scope"":{""k"":""\u003c""}}}"` + "\n" +
		"\n" +
		`"{""p"":{""$ref"":""c\u003cd"",""$id"":{""$oid"":""65a1b2c3d4e5f60718293a4b""}}}"` + "\n"
	if code != 0 || out != want || errOut != "exported 3 records\n" {
		t.Errorf("exit %d stderr %q stdout\n%s\nwant\n%s", code, errOut, out, want)
	}
}

// TestDiffImportBatchAndWorkerBounds: mongoimport takes any --batchSize
// (out of 1..1000 it is 1000) and any --numInsertionWorkers (below one it
// is one). ttlkv refused 0 and 200000, and -j 0.
func TestDiffImportBatchAndWorkerBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, args := range [][]string{{"--batchSize", "0"}, {"--batchSize", "200000"}, {"-j", "0"}, {"-j", "100"}} {
		coll := "c" + string(rune('0'+i))
		_, errOut, code := cli(t, nil, dir, `{"a": 1}`+"\n"+`{"a": 2}`+"\n", append([]string{"import", coll}, args...)...)
		if code != 0 || errOut != "2 document(s) imported successfully. 0 document(s) failed to import.\n" {
			t.Errorf("%q: exit %d stderr %q", args, code, errOut)
		}
	}
}

// TestDiffImportTypedHeaderErrors: mongoimport checks a typed column's
// name, type and argument before it reads a row, in these words, and
// prints its counts after (as for any bad --fields name; with --mode
// delete the delete counts). ttlkv took binary(base99) and int32(x) and
// failed every row instead.
func TestDiffImportTypedHeaderErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ fields, want string }{
		{"a", "could not parse type from header `a`"},
		{"a.int99()", "invalid type `int99` in header `a.int99()`"},
		{"a.binary(base99)", "invalid binary encoding: `base99`"},
		{"a.binary()", "invalid binary encoding: ``"},
		{"a.int32(x)", "type int32 does not support arguments"},
	} {
		_, errOut, code := cli(t, nil, dir, "1\n", "import", "c", "--type", "csv", "--columnsHaveTypes", "--fields", c.fields)
		if code != 1 || errOut != "ttlkv import: "+c.want+"\n0 document(s) imported successfully. 0 document(s) failed to import.\n" {
			t.Errorf("%s: exit %d stderr %q, want %q", c.fields, code, errOut, c.want)
		}
	}
	_, errOut, code := cli(t, nil, dir, "1\n", "import", "c", "--type", "csv", "--fields", "a.", "--mode", "delete")
	want := "ttlkv import: field `a.` cannot end with a '.'\n0 document(s) deleted successfully. 0 document(s) failed to delete.\n"
	if code != 1 || errOut != want {
		t.Errorf("a.: exit %d stderr %q, want %q", code, errOut, want)
	}
	// \( and \) in an argument are parentheses.
	if _, errOut, code := cli(t, nil, dir, "(2024)\n", "import", "d", "--type", "csv", "--columnsHaveTypes", "--fields", `at.date_go(\(2006\))`); code != 0 {
		t.Fatalf("escaped parentheses: exit %d: %s", code, errOut)
	}
	if got := diffDocs(t, dir, "d"); got != `{"at":{"$date":{"$numberLong":"1704067200000"}}}` {
		t.Errorf("escaped parentheses: got %s", got)
	}
}

// TestDiffImportCSVQuoteErrorWording: a quote that ends a quoted CSV
// field too early is mongoimport's `extraneous " in field` (its reader's
// words; ttlkv had encoding/csv's "extraneous or missing \" in
// quoted-field"). ttlkv goes on past the row, as it documents.
func TestDiffImportCSVQuoteErrorWording(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, errOut, code := cli(t, nil, dir, "a,b\n1,2\n3,\"4\"x\n5,6\n", "import", "c", "--type", "csv", "--headerline")
	want := "line 3: extraneous \" in field\n2 document(s) imported successfully. 1 document(s) failed to import.\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d stderr %q, want %q", code, errOut, want)
	}
}

// TestDiffExportRefusedQueryWritesNothing: mongoexport writes its CSV
// header, or an array's brackets, only once the query has answered; a
// query the server refuses leaves stdout empty. ttlkv wrote the header
// (and "[]") first.
func TestDiffExportRefusedQueryWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ie26Seed(t, dir, "c", `{"_id": 1, "a": 1}`+"\n")
	for _, args := range [][]string{{"--type", "csv", "--fields", "a"}, {"--jsonArray"}, {"--jsonArray", "--pretty"}, {"--pretty"}} {
		out, errOut, code := cli(t, nil, dir, "", append([]string{"export", "c", "--query", `{"$bad": 1}`}, args...)...)
		want := "ttlkv export: BadValue (2): unknown top level operator: $bad. If you have a field name that starts with a '$' symbol, consider using $getField or $setField.\n"
		if code != 1 || out != "" || errOut != want {
			t.Errorf("%q: exit %d stdout %q stderr %q", args, code, out, errOut)
		}
	}
}

// TestDiffExportPrettyNothingMatched: with --pretty mongoexport ends
// its output with a newline, also when nothing matched: "\n" alone, or
// "[]\n\n" with --jsonArray. ttlkv wrote "" and "[]\n".
func TestDiffExportPrettyNothingMatched(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ie26Seed(t, dir, "c", `{"_id": 1}`+"\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--pretty"}, "\n"},
		{[]string{"--pretty", "--jsonArray"}, "[]\n\n"},
		{[]string{"--jsonArray"}, "[]\n"},
		{nil, ""},
		{[]string{"--type", "csv", "--fields", "a"}, "a\n"},
	} {
		out, errOut, code := cli(t, nil, dir, "", append([]string{"export", "c", "--query", `{"_id": 99}`}, c.args...)...)
		if code != 0 || out != c.want || errOut != "exported 0 records\n" {
			t.Errorf("%q: exit %d stdout %q stderr %q, want %q", c.args, code, out, errOut, c.want)
		}
	}
}

// TestDiffExportCSVSymbolFails: a symbol cannot be a CSV cell; the
// export fails with mongoexport's words and, as mongoexport's buffered
// CSV writer, writes none of the rows before it (nor the header).
func TestDiffExportCSVSymbolFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ie26Seed(t, dir, "c", `{"_id": 1, "s": {"$symbol": "sym"}}`+"\n"+`{"_id": 2, "s": "x"}`+"\n")
	out, errOut, code := cli(t, nil, dir, "", "export", "c", "--type", "csv", "--fields", "s", "--sort", `{"_id": -1}`)
	if code != 1 || out != "" || errOut != "ttlkv export: conversion of BSON value 'sym' of type 'bson.Symbol' not supported\n" {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// TestDiffImportHeaderlineEmptyInput: --headerline on input without a
// line to name the fields (empty, or only empty CSV lines) is
// mongoimport's "Failed: EOF", exit 1. ttlkv imported nothing and
// exited 0.
func TestDiffImportHeaderlineEmptyInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, in := range []string{"", "\n\n"} {
		_, errOut, code := cli(t, nil, dir, in, "import", "c", "--type", "csv", "--headerline")
		want := "ttlkv import: EOF\n0 document(s) imported successfully. 0 document(s) failed to import.\n"
		if code != 1 || errOut != want {
			t.Errorf("%q: exit %d stderr %q, want %q", in, code, errOut, want)
		}
	}
}

// TestDiffImportJSONArrayEmptyInput: --jsonArray of empty (or blank)
// input fails, as mongoimport's does ("bad JSON array format - found no
// closing bracket"); ttlkv imported nothing and exited 0. An empty
// array, which mongoimport refuses, ttlkv still imports as nothing.
func TestDiffImportJSONArrayEmptyInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, errOut, code := cli(t, nil, dir, "\n\n", "import", "c", "--jsonArray")
	want := "ttlkv import: line 3: bad JSON array format - found no closing bracket ']' in input source\n" +
		"0 document(s) imported successfully. 0 document(s) failed to import.\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d stderr %q, want %q", code, errOut, want)
	}
	_, errOut, code = cli(t, nil, dir, "[]", "import", "c", "--jsonArray")
	if code != 0 || errOut != "0 document(s) imported successfully. 0 document(s) failed to import.\n" {
		t.Errorf("[]: exit %d stderr %q", code, errOut)
	}
}

// TestDiffExportQueryAndSortErrors: a --sort that is neither Extended
// JSON nor a shell literal is mongoexport's "query '...' is not valid
// JSON: reason" (its message names the query there too); ttlkv printed
// both parsers' errors, the shell's over several lines. A --query that
// is not Extended JSON gives the reason without the server's code name.
func TestDiffExportQueryAndSortErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ie26Seed(t, dir, "c", `{"_id": 1}`+"\n")
	_, errOut, code := cli(t, nil, dir, "", "export", "c", "--sort", `{"age":`)
	if want := "ttlkv export: query '{\"age\":' is not valid JSON: unexpected end of input at byte 7\n"; code != 1 || errOut != want {
		t.Errorf("sort: exit %d stderr %q, want %q", code, errOut, want)
	}
	_, errOut, code = cli(t, nil, dir, "", "export", "c", "--query", `{age: 1}`)
	if want := "ttlkv export: error parsing query as Extended JSON: invalid character 'a' looking for beginning of object key string at byte 2\n"; code != 1 || errOut != want {
		t.Errorf("query: exit %d stderr %q, want %q", code, errOut, want)
	}
}

// TestDiffExportCSVPositionalAndEmptyFieldFile: mongoexport names and
// reads the CSV column of a positional projection (arr.$) without its
// ".$", so it holds the matched element as an array; an empty
// --fieldFile gives lines with no cells. ttlkv wrote an "arr.$" column
// of empty cells, and refused the empty file ("CSV mode requires a field
// list").
func TestDiffExportCSVPositionalAndEmptyFieldFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ie26Seed(t, dir, "c", `{"_id": 1, "arr": [1, "two"], "b": 2}`+"\n")
	out, errOut, code := cli(t, nil, dir, "", "export", "c", "--type", "csv", "--fields", "arr.$,b", "--query", `{"arr": 1}`)
	if code != 0 || out != "arr,b\n[1],2\n" || errOut != "exported 1 record\n" {
		t.Errorf("arr.$: exit %d stdout %q stderr %q", code, out, errOut)
	}
	empty := diffWrite(t, dir, "empty", "")
	out, errOut, code = cli(t, nil, dir, "", "export", "c", "--type", "csv", "--fieldFile", empty)
	if code != 0 || out != "\n\n" || errOut != "exported 1 record\n" {
		t.Errorf("empty field file: exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// TestDiffQuiet: mongoimport and mongoexport take --quiet (the repo's own
// mongo-tools check passes it) and then print nothing on stderr, not
// even an error; the exit code still tells. ttlkv refused the flag.
func TestDiffQuiet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		in   string
		args []string
		code int
	}{
		{`{"_id": 1}` + "\n" + `{"_id": 1}` + "\n", []string{"import", "c", "--quiet"}, 0},
		{`{"a": 1}` + "\n" + `{"a":` + "\n", []string{"import", "d", "--quiet", "--drop"}, 1},
		{"1\n", []string{"import", "e", "--quiet", "--type", "csv", "--fields", "a,a"}, 1},
		{"", []string{"export", "c", "--quiet", "--query", `{"$bad": 1}`}, 1},
		{"", []string{"export", "c", "--quiet", "--type", "csv"}, 1},
	} {
		out, errOut, code := cli(t, nil, dir, c.in, c.args...)
		if code != c.code || out != "" || errOut != "" {
			t.Errorf("%q: exit %d stdout %q stderr %q, want exit %d and nothing", c.args, code, out, errOut, c.code)
		}
	}
	out, errOut, code := cli(t, nil, dir, "", "export", "c", "--quiet")
	if code != 0 || out != `{"_id":1}`+"\n" || errOut != "" {
		t.Errorf("export: exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// TestDiffImportBypassDocumentValidation: mongoimport's
// --bypassDocumentValidation inserts (and upserts) what the validator
// refuses; without it those documents fail, the exit status staying 0.
// ttlkv refused the flag.
func TestDiffImportBypassDocumentValidation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, errOut, code := cli(t, nil, dir, "", "eval", `for (const c of ["v", "insert", "upsert"]) db.createCollection(c, {validator: {n: {$type: "int"}}})`); code != 0 {
		t.Fatal(errOut)
	}
	in := `{"_id": 1, "n": "x"}` + "\n" + `{"_id": 2, "n": 2}` + "\n"
	_, errOut, code := cli(t, nil, dir, in, "import", "v")
	if want := "line 1: Document failed validation\n1 document(s) imported successfully. 1 document(s) failed to import.\n"; code != 0 || errOut != want {
		t.Errorf("without: exit %d stderr %q, want %q", code, errOut, want)
	}
	for _, mode := range []string{"insert", "upsert"} {
		_, errOut, code = cli(t, nil, dir, in, "import", mode, "--bypassDocumentValidation", "--mode", mode)
		if code != 0 || errOut != "2 document(s) imported successfully. 0 document(s) failed to import.\n" {
			t.Errorf("%s: exit %d stderr %q", mode, code, errOut)
		}
		if got := diffDocs(t, dir, mode); got != `{"_id":{"$numberInt":"1"},"n":"x"}`+"\n"+`{"_id":{"$numberInt":"2"},"n":{"$numberInt":"2"}}` {
			t.Errorf("%s holds %s", mode, got)
		}
	}
}

// TestDiffDeprecatedFlagsTaken: mongoexport's deprecated
// --forceTableScan (refused only with --query) and mongoimport's
// --numDecodingWorkers are taken, as the tools take them; ttlkv refused
// both as unknown flags.
func TestDiffDeprecatedFlagsTaken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, errOut, code := cli(t, nil, dir, `{"_id": 1}`+"\n", "import", "c", "--numDecodingWorkers", "3"); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	out, errOut, code := cli(t, nil, dir, "", "export", "c", "--forceTableScan")
	if code != 0 || out != `{"_id":1}`+"\n" || errOut != "exported 1 record\n" {
		t.Errorf("export: exit %d stdout %q stderr %q", code, out, errOut)
	}
	_, errOut, code = cli(t, nil, dir, "", "export", "c", "--forceTableScan", "--query", "{}")
	if code != 1 || errOut != "ttlkv export: cannot use --forceTableScan when specifying --query\n" {
		t.Errorf("with --query: exit %d stderr %q", code, errOut)
	}
}
