package mongosh

import (
	"strings"
	"testing"
)

// TestAdminHelpers checks mongosh's server administration helpers on
// the engine: what each returns, and the errors they throw with
// mongosh's names, codes and words (the same lines mongosh 2.12 printed
// against ttlkv serve, wire/testdata/mongosh/shell.js).
func TestAdminHelpers(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	errLine := `catch (e) { print(e.name, e.code, e.codeName, e.message) }`
	cases := []struct{ src, want string }{
		{`const lc = db.listCommands(); print(Object.keys(lc), lc.type, lc.constructor.name, lc.value.ping.requiresAuth)`, "[ 'type', 'value' ] ListCommandsResult CommandResult false"},
		{`db.commandHelp("ping")`, "help for: ping checks that the server answers; replies at once"},
		{`db.serverBits()`, "64"},
		{`typeof db.hostInfo().system.numCores`, "number"},
		{`db.getLogComponents().storage.journal.verbosity`, "-1"},
		{`db.setLogLevel(2, "storage.journal").was.storage.journal.verbosity + " " + db.getLogComponents().storage.journal.verbosity`, "-1 2"},
		{`try { db.setLogLevel("x") } ` + errLine, "MongoshInvalidInputError COMMON-10001  [COMMON-10001] Argument at position 0 must be of type number, got string instead (Database.setLogLevel)"},
		{`try { db.setLogLevel(1, 5) } ` + errLine, "MongoshInvalidInputError COMMON-10001  [COMMON-10001] setLogLevel component must be a string: got number"},
		{`try { db.setLogLevel(1, "nosuch") } ` + errLine, "MongoServerError 2 BadValue Invalid component name logComponentVerbosity.nosuch"},
		{`try { rs.status() } ` + errLine, "MongoServerError 76 NoReplicationEnabled not running with --replSet"},
		{`try { rs.conf() } ` + errLine, "MongoServerError 76 NoReplicationEnabled not running with --replSet"},
		{`try { rs.initiate() } ` + errLine, "MongoServerError 76 NoReplicationEnabled This node was not started with replication enabled."},
		{`try { rs.add(5) } ` + errLine, "MongoshInvalidInputError COMMON-10001  [COMMON-10001] Argument at position 0 must be of type string or object, got number instead (ReplicaSet.add)"},
		{`try { rs.printReplicationInfo() } ` + errLine, "MongoshInvalidInputError SHAPI-10002  [SHAPI-10002] Replication not detected. Are you connected to a replset?"},
		{`rs.isMaster().ismaster + " " + rs.hello().isWritablePrimary`, "true true"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s:\n got %q (%v)\nwant %q", tc.src, got, err, tc.want)
		}
	}
	// The list prints as mongosh prints a ListCommandsResult.
	got, err := eval(t, s, out, `db.listCommands()`)
	if err != nil || !strings.Contains(got, "ping:  secondaryOk\nchecks that the server answers; replies at once\nAPI Versions 1\n\n") {
		t.Errorf("db.listCommands() printed %q (%v)", got, err)
	}
	// sh.status(): mongosh's warning once, then its error.
	got, _ = eval(t, s, out, `for (let i = 0; i < 2; i++) { try { sh.status() } catch (e) { print(e.name, e.code) } }`)
	want := "Warning: MongoshWarning: [SHAPI-10003] You are not connected to a mongos. This command may not work as expected.\nMongoshInvalidInputError SHAPI-10003\nMongoshInvalidInputError SHAPI-10003\n"
	if got != want {
		t.Errorf("sh.status() twice printed %q, want %q", got, want)
	}
}

// TestRefusedHelpers checks mongosh's helpers for what ttlkv does not
// have: each sends mongosh's command or stage, so the refusal is the
// engine's, with the words mongosh 2.12 printed against ttlkv serve;
// deprecated helpers warn once; printCollectionStats prints mongosh's
// StatsResult form.
func TestRefusedHelpers(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	if _, err := eval(t, s, out, `db.c.insertMany([{_id: 1, a: 1}, {_id: 2, a: 2}])`); err != nil {
		t.Fatal(err)
	}
	errLine := `catch (e) { print(e.name, e.code, e.codeName, e.message) }`
	for _, tc := range []struct{ src, want string }{
		{`try { db.getRoles() } ` + errLine, "MongoServerError 59 CommandNotFound no such command: 'rolesInfo'"},
		{`try { db.fsyncLock() } ` + errLine, "MongoServerError 59 CommandNotFound no such command: 'fsync'"},
		{`try { db.c.reIndex() } ` + errLine, "MongoServerError 59 CommandNotFound no such command: 'reIndex'"},
		{`try { db.c.getShardDistribution() } ` + errLine, "MongoshInvalidInputError SHAPI-10001  [SHAPI-10001] Collection c is not sharded"},
		{`try { db.c.getSearchIndexes() } ` + errLine, "MongoServerError 40324 Location40324 Unrecognized pipeline stage name: '$listSearchIndexes'"},
		{`try { db.printCollectionStats(0) } ` + errLine, "MongoshInvalidInputError COMMON-10001  [COMMON-10001] scale has to be a number >=1, got 0"},
		{`db.c.count(); db.c.count()`, "DeprecationWarning: Collection.count() is deprecated. Use countDocuments or estimatedDocumentCount.\n2"},
		{`db.getLastError()`, "DeprecationWarning: Database.getLastError() is deprecated and will be removed in the future.\nnull"},
		{`db.c.explain().aggregate([{$match: {a: 1}}]).ok`, "1"},
		{`db.getSiblingDB("admin").aggregate([{$currentOp: {}}, {$match: {desc: "none"}}]).toArray().length`, "0"},
		{`db.c.find().limit(0).toArray().length; db.printCollectionStats().type`, "StatsResult"},
		{`JSON.stringify(db.printCollectionStats()).startsWith('{"c":{"ok":1')`, "true"},
	} {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s:\n got %q (%v)\nwant %q", tc.src, got, err, tc.want)
		}
	}
	got, err := eval(t, s, out, `db.printCollectionStats()`)
	if err != nil || !strings.HasPrefix(got, "c\n{\n  ok: 1,\n") {
		t.Errorf("db.printCollectionStats() printed %q (%v)", got, err)
	}
}
