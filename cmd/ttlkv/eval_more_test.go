package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalCreateIndexCommitQuorum: createIndex's third argument is
// commitQuorum, as in mongosh, and a standalone refuses it with
// MongoDB's errors: FailedToParse for a document (seed 003's snippet
// passing TTL options there), BadValue for a number or string. No index
// is created either way.
func TestEvalCreateIndexCommitQuorum(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct{ src, err string }{
		{`db.eventlog.createIndex({ "lastModifiedDate": 1 }, {}, { expireAfterSeconds: 3600 })`, "MongoServerError[FailedToParse]: commitQuorum has to be a number or a string"},
		{`db.eventlog.createIndex({ a: 1 }, {}, "majority")`, "MongoServerError[BadValue]: Standalones can't specify commitQuorum"},
		{`db.eventlog.createIndexes([{ a: 1 }], {}, 1)`, "MongoServerError[BadValue]: Standalones can't specify commitQuorum"},
	}
	for _, tc := range cases {
		// Caught, to see the code name too: uncaught, mongosh prints
		// only the class and the message.
		src := "try { " + tc.src + " } catch (e) { print(e.name + '[' + e.codeName + ']: ' + e.message); quit(1) }"
		out, errOut, code := cli(t, nil, dir, "", "eval", src)
		if code != 1 || out != tc.err+"\n" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %q", tc.src, code, out, errOut, tc.err)
		}
	}
	// The refused builds left no index behind.
	if out, errOut, _ := cli(t, nil, dir, "", "eval", "db.eventlog.insertOne({}); db.eventlog.getIndexes().map(i => i.name).join()"); out != "_id_\n" {
		t.Errorf("indexes: %q %s, want only _id_", out, errOut)
	}
}

// TestEvalUpdateTooLarge: an update whose result would pass 16 MiB is
// refused with mongod's update message, not an insert's. The string is
// just over 8 MiB: the document holding it fits, the update doubling it
// does not (a 10 MiB string showed the same at 1.27 times the CPU
// under -race).
func TestEvalUpdateTooLarge(t *testing.T) {
	t.Parallel()
	src := `const s = "x".repeat(8 * 1024 * 1024 + 1024);
db.c.insertOne({_id: 1, a: s});
try { db.c.updateOne({_id: 1}, {$set: {b: s}}) } catch (e) { print(e.code, e.errmsg) }
try { db.c.findOneAndUpdate({_id: 1}, {$set: {b: s}}) } catch (e) { print(e.code, e.errmsg) }
print(bsonsize(db.c.findOne()) < 16 * 1024 * 1024)`
	out, errOut, code := cli(t, nil, t.TempDir(), "", "eval", src)
	want := "10334 Resulting document after update is larger than 16777216\n10334 Resulting document after update is larger than 16777216\ntrue\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
}

// TestEvalShellHelpers runs mongosh helpers through 'ttlkv eval':
// bulkWrite, the Bulk API, bsonsize, dataSize/storageSize/totalSize,
// DBQuery.shellBatchSize and config.set("displayBatchSize"), long arrays,
// db.getMongo(), and where a bad ISODate was written.
func TestEvalShellHelpers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct{ name, src, want string }{
		{"bulkWrite", `db.c.bulkWrite([{insertOne: {document: {_id: 1, a: 1}}}, {insertOne: {document: {_id: 2}}},
  {updateOne: {filter: {_id: 1}, update: {$set: {a: 2}}}}, {updateMany: {filter: {}, update: {$inc: {n: 1}}}},
  {replaceOne: {filter: {_id: 9}, replacement: {x: 1}, upsert: true}}, {deleteOne: {filter: {_id: 2}}}])`,
			"{\n  acknowledged: true,\n  insertedCount: 2,\n  insertedIds: { '0': 1, '1': 2 },\n  matchedCount: 3,\n  modifiedCount: 3,\n  deletedCount: 1,\n  upsertedCount: 1,\n  upsertedIds: { '4': 9 }\n}\n"},
		{"bulkWrite unordered error", `try { db.c.bulkWrite([{insertOne: {document: {_id: 7}}}, {insertOne: {document: {_id: 1}}}, {insertOne: {document: {_id: 8}}}], {ordered: false}) }
catch (e) { print(e.name, e.codeName, e.result.insertedCount, e.writeErrors.length, e.writeErrors[0].index, Object.keys(e.result.insertedIds).join()) }`,
			"MongoBulkWriteError  2 1 1 0,2\n"}, // as mongosh: no codeName on a bulk error
		{"bulkWrite ordered error", `try { db.c.bulkWrite([{insertOne: {document: {_id: 10}}}, {insertOne: {document: {_id: 1}}}, {insertOne: {document: {_id: 11}}}]) }
catch (e) { print(e.result.insertedCount, db.c.countDocuments({_id: {$in: [10, 11]}})) }`, "1 1\n"},
		{"ordered bulk op", `const b = db.d.initializeOrderedBulkOp(); b.insert({_id: 1}); b.insert({_id: 2});
b.find({_id: 1}).updateOne({$set: {x: 1}}); b.find({_id: 3}).upsert().updateOne({$set: {y: 1}}); b.find({_id: 2}).remove();
const r = b.execute(); [r.insertedCount, r.matchedCount, r.modifiedCount, r.upsertedCount, r.deletedCount, db.d.countDocuments()].join()`, "2,1,1,1,1,2\n"},
		{"unordered bulk op", `const b = db.e.initializeUnorderedBulkOp(); b.insert({_id: 1}); b.insert({_id: 1}); b.insert({_id: 2});
try { b.execute() } catch (e) { print(e.name, e.result.insertedCount) }`, "MongoBulkWriteError 2\n"},
		{"bsonsize", `[bsonsize({a: 1}), bsonsize({}), bsonsize({s: "abc"}), typeof Object.bsonsize].join()`, "12,5,16,undefined\n"},
		{"sizes", `db.f.insertOne({_id: 1, s: "x".repeat(100)}); const st = db.f.stats();
[db.f.dataSize() === st.size, db.f.storageSize() === st.storageSize, db.f.totalSize() === st.storageSize + st.totalIndexSize, db.f.dataSize() > 100].join()`, "true,true,true,true\n"},
		{"shellBatchSize", `for (let i = 0; i < 5; i++) db.g.insertOne({_id: i}); DBQuery.shellBatchSize = 2; db.g.find()`,
			"DeprecationWarning: DBQuery.shellBatchSize is deprecated, please use config.set(\"displayBatchSize\") instead\n[ { _id: 0 }, { _id: 1 } ]\nType \"it\" for more\n"},
		{"displayBatchSize", `print(config.set("displayBatchSize", 3)); db.g.find()`, "Setting \"displayBatchSize\" has been changed\n[ { _id: 0 }, { _id: 1 }, { _id: 2 } ]\nType \"it\" for more\n"},
		{"long array", `Array.from({length: 103}, (_, i) => i).slice(0, 101).concat([1, 1])`, ""},
		{"getMongo", `db.getMongo()`, "ttlkv://" + dir + "?appName=ttlkv+" + version + "\n"},
		{"getMongo print", `print(db.getMongo().getURI() === String(db.getMongo()), String(db.getMongo()))`, "false [object Object]\n"},
	}
	for _, tc := range cases {
		out, errOut, code := cli(t, nil, dir, "", "eval", tc.src)
		if tc.name == "long array" {
			// mongosh --eval's columns: twelve numbers a row,
			// right-aligned, every item (no "... 3 more items").
			if code != 0 || !strings.HasPrefix(out, "[\n   0,  1,  2,  3,   4,") || !strings.HasSuffix(out, "\n  96, 97, 98, 99, 100,  1,  1\n]\n") {
				t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.name, code, out, errOut)
			}
			continue
		}
		if code != 0 || out != tc.want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %q", tc.name, code, out, errOut, tc.want)
		}
	}
	// A bad ISODate, uncaught, ends the script as mongosh ends it: its
	// error alone on stderr (mongosh does not say where), exit 1.
	script := filepath.Join(t.TempDir(), "s.js")
	must(t, os.WriteFile(script, []byte("\n  ISODate(\"garbage\")\n"), 0o600))
	for _, args := range [][]string{{"eval", `ISODate("garbage")`}, {"eval", "-f", script}} {
		_, errOut, code := cli(t, nil, dir, "", args...)
		if want := "MongoshInvalidInputError: [COMMON-10001] \"garbage\" is not a valid ISODate\n"; code != 1 || errOut != want {
			t.Errorf("%q: exit %d, stderr %q, want %q", args, code, errOut, want)
		}
	}
}

// TestEvalFilesAsMongosh: as mongosh runs --eval and script files, the
// code given runs first and its last value is printed, then the files,
// whose last values are not (only what they print shows).
func TestEvalFilesAsMongosh(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(t.TempDir(), "s.js")
	must(t, os.WriteFile(script, []byte("print('file');\n1 + 1;\n"), 0o600))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "-f", script}, "file\n"},
		{[]string{"eval", "-f", script, "print('code'); 40 + 2"}, "code\n42\nfile\n"},
		{[]string{"eval", "40 + 2"}, "42\n"},
	} {
		out, errOut, code := cli(t, nil, dir, "", c.args...)
		if code != 0 || out != c.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errOut, c.want)
		}
	}
}

// TestEvalCodeStartingWithDash checks that code starting with '-' is
// code, as mongosh's --eval takes the next argument whatever it starts
// with, while eval's own flags around it are still flags.
func TestEvalCodeStartingWithDash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		args       []string
		want       string
		wantStderr string
		code       int
	}{
		{[]string{"eval", "-0"}, "-0\n", "", 0},
		{[]string{"eval", "-1 + 3"}, "2\n", "", 0},
		{[]string{"eval", "--x"}, "", "ReferenceError: x is not defined\n", 1},
		{[]string{"eval", "--json=canonical", "-0"}, "{\n  \"$numberDouble\": \"-0.0\"\n}\n", "", 0},
		{[]string{"eval", "-2", "--json=canonical"}, "{\n  \"$numberInt\": \"-2\"\n}\n", "", 0},
		{[]string{"eval", "--db", "other", "-(db.getName().length)"}, "-5\n", "", 0},
		// Code that starts as a run of eval's shorthands (-d, -f, -h)
		// reads as them, as pflag reads -dNAME: -- before it makes it code.
		{[]string{"eval", "-d", "other", "--", "-db.getName().length"}, "-5\n", "", 0},
		{[]string{"eval", "-dother", "-5"}, "-5\n", "", 0},
		{[]string{"eval", "--", "-h"}, "", "ReferenceError: h is not defined\n", 1},
		{[]string{"eval", "-1", "-2"}, "", "ttlkv eval: give the code as one argument (quote it)\n", 2},
		{[]string{"eval", "--nosuch=1", "x"}, "", "ttlkv eval: give the code as one argument (quote it)\n", 2},
		// --json as mongosh takes it: with code, and no file.
		{[]string{"eval", "--json=x", "1"}, "", "MongoshUnimplementedError: [COMMON-10001] --json can only have the values relaxed, canonical\n", 1},
		{[]string{"eval", "--json", "-f", "x.js"}, "", "MongoshRuntimeError: Cannot use --json without --eval or with --shell or with extra files\n", 1},
		{[]string{"eval", "--json"}, "", "MongoshRuntimeError: Cannot use --json without --eval or with --shell or with extra files\n", 1},
	} {
		out, errOut, code := cli(t, nil, dir, "", tc.args...)
		if out != tc.want || errOut != tc.wantStderr || code != tc.code {
			t.Errorf("%q: exit %d stdout %q stderr %q, want %d %q %q", tc.args, code, out, errOut, tc.code, tc.want, tc.wantStderr)
		}
	}
	if out, _, code := cli(t, nil, dir, "", "eval", "-h"); code != 0 || !strings.HasPrefix(out, "Usage: ttlkv eval") {
		t.Errorf("eval -h: exit %d, stdout %q; want the help", code, out)
	}
}
