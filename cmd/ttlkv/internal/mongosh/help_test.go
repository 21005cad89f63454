package mongosh

import (
	"strings"
	"testing"
)

// TestFormatHelp checks a Help's layout as mongosh prints one: the
// title, each method with its description from column 47 (further lines
// there too, blank ones left blank), a nameless row as a paragraph, and
// the link.
func TestFormatHelp(t *testing.T) {
	t.Parallel()
	got := formatHelp("Shell Help", []helpRow{
		{"log", "'log.info(<msg>)': Write\n'log.getPath()': Gets\n"},
		{"use", "Set current database"},
		{"", "a paragraph"},
		{"nodesc", ""},
	}, "https://mongodb.com/docs/manual/reference/method")
	pad := strings.Repeat(" ", 47)
	want := "\n  Shell Help:\n\n" +
		"    log" + strings.Repeat(" ", 40) + "'log.info(<msg>)': Write\n" + pad + "'log.getPath()': Gets\n\n" +
		"    use" + strings.Repeat(" ", 40) + "Set current database\n" +
		"  a paragraph\n" +
		"\n  For more information on usage: https://mongodb.com/docs/manual/reference/method"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if got := formatHelp("Aggregation Class", nil, ""); got != "\n  Aggregation Class:\n\n" {
		t.Errorf("empty table: got %q", got)
	}
}

// TestHelpTables checks help, db.help(), a collection's and a cursor's:
// mongosh's titles and rows, the methods the shell lacks left out, the
// Help an object of attr, help and docs, and db.help unprinted as the
// table too.
func TestHelpTables(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	for _, tc := range []struct{ src, prefix, has, lacks string }{
		{`help`, "\n  Shell Help:\n\n", "\n    use                                        Set current database\n", "passwordPrompt"},
		{`print(help())`, "\n  Shell Help:\n\n", "\n    load                                       Loads and runs a JavaScript file into the current shell environment\n", "enableTelemetry"},
		{`db.help()`, "\n  Database Class:\n\n    getMongo                                   Returns the current database connection\n", "\n    createRole ", "createEncryptedCollection"},
		{`db.help`, "\n  Database Class:\n\n", "\n    runCommand ", "createEncryptedCollection"},
		{`db.c.help()`, "\n  Collection Class:\n\n    aggregate ", "\n    insertOne ", "configureQueryAnalyzer"},
		{`db.c.find().help()`, "\n  Collection Cursor:\n\n    addOption ", "\n    readConcern ", "\n    toArray "},
		{`db.c.aggregate([]).help()`, "\n  Aggregation Class:\n\n", "", "\n    "},
		{`rs.help()`, "\n  Replica Set Class:\n\n", "\n  For more information on usage: https://mongodb.com/docs/manual/reference/method/js-replication/\n", "reconfigForPSASet"},
		{`db.c.initializeOrderedBulkOp().help()`, "\n  Bulk operations builder used to construct", "\n    getOperations ", "\n    remove "},
		{`print(Object.keys(db.help()), typeof help().attr[0].description, help().docs)`, "[ 'attr', 'help', 'docs' ] string https://mongodb.com/docs/manual/reference/method\n", "", "Shell"},
	} {
		got, err := eval(t, s, out, tc.src)
		if err != nil || !strings.HasPrefix(got, tc.prefix) || !strings.Contains(got, tc.has) || strings.Contains(got, tc.lacks) {
			t.Errorf("%s: got %q (%v); want the prefix %q, %q in it and not %q", tc.src, got, err, tc.prefix, tc.has, tc.lacks)
		}
	}
}

// TestMethodHelp checks a method's own help, as mongosh's: the call as
// mongosh writes it, what it does and the link (a shell function's
// without a title), the same for every object of a kind, and the
// function itself printing it.
func TestMethodHelp(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	for src, want := range map[string]string{
		`db.c.find.help()`: "\n  db.collection.find(query, projection, options):\n\n  Selects documents in a collection or view.\n\n" +
			"  For more information on usage: https://mongodb.com/docs/manual/reference/method/db.collection.find\n",
		`db.other.find.help`: "\n  db.collection.find(query, projection, options):\n\n  Selects documents in a collection or view.\n\n  For more information on usage: https://mongodb.com/docs/manual/reference/method/db.collection.find\n",
		`use.help()`:         "  Set current database\n\n",
		`db.getName.help()`:  "\n  db.getName():\n\n  Returns the name of the DB\n\n  For more information on usage: https://mongodb.com/docs/manual/reference/method/db.getName\n",
		`config.set.help()`:  "  Change a configuration value with config.set(key, value)\n\n",
		`print(Object.keys(db.getName.help()), String(config.set.help().help), db.c.find().limit.help === db.c.find().limit.help)`: "[ 'attr', 'help', 'docs' ] undefined true\n",
		`print(db.getName)`: "[Function: getName]\n",
	} {
		got, err := eval(t, s, out, src)
		if err != nil || got != want {
			t.Errorf("%s:\n got %q (%v)\nwant %q", src, got, err, want)
		}
	}
}
