package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsExamples runs the examples of the TTL, expire-data, capped and
// time-series documentation as written, each in its own ttlkv eval on
// one data directory, and compares the output.
func TestDocsExamples(t *testing.T) {
	t.Parallel()
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
	// Time-series and capped collection examples, as the documentation
	// writes them; want is the exact output (a "~" prefix: a substring,
	// where the output holds generated ObjectIds).
	others := []struct{ src, want string }{
		{`db.createCollection(
   "weather",
   {
      timeseries: {
         timeField: "timestamp",
         metaField: "metadata",
         granularity: "hours"
      },
      expireAfterSeconds: 86400
   }
)`, "{ ok: 1 }\n"},
		{`db.weather.insertMany( [
   { "metadata": { "sensorId": 5578, "type": "temperature" }, "timestamp": ISODate("2021-05-18T00:00:00.000Z"), "temp": 12 },
   { "metadata": { "sensorId": 5578, "type": "temperature" }, "timestamp": ISODate("2021-05-18T04:00:00.000Z"), "temp": 11 },
   { "metadata": { "sensorId": 5578, "type": "temperature" }, "timestamp": ISODate("2021-05-18T08:00:00.000Z"), "temp": 11 },
   { "metadata": { "sensorId": 5578, "type": "temperature" }, "timestamp": ISODate("2021-05-19T12:00:00.000Z"), "temp": 17 }
] ).acknowledged`, "true\n"},
		{`db.weather.findOne({ "timestamp": ISODate("2021-05-18T00:00:00.000Z") })`,
			"~  metadata: { sensorId: 5578, type: 'temperature' },\n  timestamp: ISODate('2021-05-18T00:00:00.000Z'),\n  temp: 12\n}\n"},
		{`db.weather.find({ "metadata.sensorId": 5578 }, { _id: 0, temp: 1 }).sort({ timestamp: -1 }).limit(2)`, "[ { temp: 17 }, { temp: 11 } ]\n"},
		{`db.weather.countDocuments()`, "4\n"},
		{`db.runCommand({ collMod: "weather", expireAfterSeconds: 604801 }).ok`, "1\n"},
		{`db.getCollectionInfos({ name: "weather" })[0].options.expireAfterSeconds`, "Long('604801')\n"},
		{`db.runCommand( { listCollections: 1 } ).cursor.firstBatch.map(c => c.name + ":" + c.type).sort().join()`,
			"eventlog:collection,log_events:collection,system.buckets.weather:collection,system.views:collection,weather:timeseries\n"},
		{`db.runCommand({ collMod: "weather", expireAfterSeconds: "off" }).ok`, "1\n"},
		{`db.getCollectionInfos({ name: "weather" })[0].options.expireAfterSeconds`, ""},
		{`db.createCollection("eventsync", { timeseries: { timeField: "time", metaField: "metadata" } }).ok`, "1\n"},
		{`db.eventsync.createIndex(
   { "time": 1 },
   {
      partialFilterExpression: { "metadata.sensorId": 123 },
      expireAfterSeconds: 60
   }
)`, "time_1\n"},
		{`db.createCollection( "log", { capped: true, size: 100000 } )`, "{ ok: 1 }\n"},
		{`db.createCollection("log2", { capped : true, size : 5242880, max : 3 } )`, "{ ok: 1 }\n"},
		{`db.log.isCapped() + " " + db.log2.isCapped() + " " + db.weather.isCapped()`, "true true false\n"},
		{`for (let i = 1; i <= 5; i++) db.log2.insertOne({ _id: i }); db.log2.find()`, "[ { _id: 3 }, { _id: 4 }, { _id: 5 } ]\n"},
		{`db.log2.find().sort( { $natural: -1 } )`, "[ { _id: 5 }, { _id: 4 }, { _id: 3 } ]\n"},
		{`db.log2.find().sort( { $natural: -1 } ).limit(1)`, "[ { _id: 5 } ]\n"},
		{`db.log2.find().tailable()`, "[ { _id: 3 }, { _id: 4 }, { _id: 5 } ]\n"},
		// A tailable cursor stays open at the end and returns what is
		// inserted later; an awaitData one too, through addOption.
		{`const cursor = db.log2.find().tailable({ awaitData: true });
while (cursor.hasNext()) { printjson(cursor.next()) }
db.log2.insertOne({ _id: 6 });
print(cursor.hasNext(), cursor.next()._id, cursor.isClosed())`, "{\n  _id: 3\n}\n{\n  _id: 4\n}\n{\n  _id: 5\n}\ntrue 6 false\n"},
		{`const c = db.log2.find().addOption(DBQuery.Option.tailable).addOption(DBQuery.Option.awaitData);
print(c.toArray().length, c.isClosed()); db.log2.insertOne({ _id: 7 }); print(c.next()._id)`, "3 false\n7\n"},
		{`db.runCommand({ "convertToCapped": "eventlog", size: 100000 }).ok + " " + db.eventlog.isCapped()`, "1 true\n"},
	}
	for _, ex := range others {
		out, errOut, code := cli(t, nil, dir, "", "eval", ex.src)
		ok := out == ex.want
		if sub, found := strings.CutPrefix(ex.want, "~"); found {
			ok = strings.Contains(out, sub)
		}
		if code != 0 || !ok {
			t.Errorf("%s\n exit %d stdout %q stderr %q, want %q", ex.src, code, out, errOut, ex.want)
		}
	}
	// Errors the documentation describes.
	refusals := []struct{ src, want string }{
		// A write error (here a duplicate _id: the capped log2 keeps
		// 5, 6 and 7): mongod's carries no codeName. (A document larger
		// than the capped size is no error since mongod 7.0.)
		{`db.log2.insertOne({ _id: 7 })`, "MongoServerError[undefined]"},
		{`db.weather.find().sort({ $natural: -1 }).toArray()`, "MongoServerError[InvalidPipelineOperator]"},
		{`db.weather.find().tailable().toArray()`, "MongoServerError[InvalidPipelineOperator]"},
		{`db.log.find().tailable().sort({ $natural: -1 }).toArray()`, "MongoServerError[BadValue]"},
	}
	for _, ex := range refusals {
		// Caught, to see the code name too: uncaught, mongosh prints
		// only the class and the message.
		src := "try { " + ex.src + " } catch (e) { print(e.name + '[' + e.codeName + ']'); quit(1) }"
		out, errOut, code := cli(t, nil, dir, "", "eval", src)
		if code != 1 || out != ex.want+"\n" {
			t.Errorf("%s\n exit %d stdout %q stderr %q, want exit 1 printing %q", ex.src, code, out, errOut, ex.want)
		}
	}
}

func TestEvalSources(t *testing.T) {
	t.Parallel()
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
		{[]string{"eval", "--json", "db.c.findOne()"}, "", 0, "{\n  \"_id\": {\n    \"$numberInt\": \"1\"\n  }\n}\n", ""},
		{[]string{"eval", "--json=relaxed", "db.c.findOne()"}, "", 0, "{\n  \"_id\": 1\n}\n", ""},
		{[]string{"eval", "--json=canonical", "db.c.findOne()"}, "", 0, "{\n  \"_id\": {\n    \"$numberInt\": \"1\"\n  }\n}\n", ""},
		{[]string{"eval", "db.c.insertOne({_id: 1})"}, "", 1, "", "MongoServerError: E11000"}, // mongosh --eval prints no code name
		{[]string{"eval", "try { db.c.insertOne({_id: 1}) } catch (e) { print(e.code, String(e.codeName)) }"}, "", 0, "11000 undefined\n", ""},
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
