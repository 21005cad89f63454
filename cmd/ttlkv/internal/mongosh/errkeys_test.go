package mongosh

import "testing"

// TestErrorKeysLikeMongosh: a server error's own enumerable keys are
// those of the Node driver's MongoServerError under mongosh 2.12
// (errorLabelSet, errorResponse, then the reply's or the write error's
// fields but errmsg), a bulk write error's are MongoBulkWriteError's,
// with WriteErrors that keep the failed operation; an array given to
// insertOne or insertMany is a document of its elements. Each want is
// what that mongosh printed against ttlkv serve.
func TestErrorKeysLikeMongosh(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	if _, err := eval(t, s, out, `db.c.insertOne({_id: 1})`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ src, want string }{
		{`try { db.c.insertOne({_id: 1}) } catch (e) { print(JSON.stringify(Object.keys(e)), e.name, e.errmsg === e.message) }`,
			`["errorLabelSet","errorResponse","index","code","keyPattern","keyValue"] MongoServerError true`},
		{`try { db.runCommand({nosuch: 1}) } catch (e) { print(JSON.stringify(e)) }`,
			`{"errorLabelSet":{},"errorResponse":{"ok":0,"errmsg":"no such command: 'nosuch'","code":59,"codeName":"CommandNotFound"},"ok":0,"code":59,"codeName":"CommandNotFound"}`},
		{`try { db.c.insertMany([{_id: 1}]) } catch (e) { print(JSON.stringify(Object.keys(e)), e.name, String(e.writeErrors[0]), e.writeErrors[0].getOperation()._id) }`,
			`["errorLabelSet","errorResponse","code","writeErrors","result"] MongoBulkWriteError WriteError({"code":11000,"index":0,"errmsg":"E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1 }","op":{"_id":1}}) 1`},
		{`db.c.insertOne([{a: 1}, 2]); JSON.stringify(db.c.find({"1": 2}, {_id: 0}).toArray())`, `[{"0":{"a":1},"1":2}]`},
		{`db.c.insertMany([[3]]); db.c.countDocuments({"0": 3})`, `1`},
		// Printed, an error is mongosh's print less its stack: its own
		// keys on lines of their own, the name left out.
		{`try { db.c.insertOne({_id: 1}) } catch (e) { print(e) }`,
			"MongoServerError: E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1 } {\n  errorLabelSet: Set(0) {},\n  errorResponse: {\n    index: 0,\n    code: 11000,\n    errmsg: 'E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1 }',\n    keyPattern: { _id: 1 },\n    keyValue: { _id: 1 }\n  },\n  index: 0,\n  code: 11000,\n  keyPattern: { _id: 1 },\n  keyValue: { _id: 1 }\n}"},
		{`try { db.c.find().limit("x") } catch (e) { print(JSON.stringify(Object.keys(e))); print(e) }`,
			"[\"errorLabelSet\"]\nMongoInvalidArgumentError: Operation \"limit\" requires an integer {\n  errorLabelSet: Set(0) {}\n}"},
		{`try { db.setLogLevel("x") } catch (e) { print(JSON.stringify(Object.keys(e))); print(e) }`,
			"[\"name\",\"code\",\"scope\",\"metadata\"]\nMongoshInvalidInputError: [COMMON-10001] Argument at position 0 must be of type number, got string instead (Database.setLogLevel) {\n  code: 'COMMON-10001',\n  scope: 'COMMON',\n  metadata: undefined\n}"},
		{`const ek = new Error("x"); ek.extra = 1; print(ek, [ek], {err: new RangeError("r")})`,
			"Error: x {\n  extra: 1\n} [\n  Error: x {\n    extra: 1\n  }\n] {\n  err: RangeError: r\n}"},
	} {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s:\n got %q (%v)\nwant %q", tc.src, got, err, tc.want)
		}
	}
}
