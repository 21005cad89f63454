package engine

// Review 27 of the administrative commands: the findings of review 26
// (the tests of review_admin26_test.go's first draft that failed) that
// were left, each checked again against mongod 7.0's source
// (github.com/mongodb/mongo unless said otherwise) and corrected where
// the draft was wrong about mongod.

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ra27GetMore runs getMore on the cursor of reply r and returns its
// nextBatch and the cursor id it leaves.
func ra27GetMore(t *testing.T, db *DB, dbName string, r bson.D) ([]bson.D, int64) {
	t.Helper()
	id, _ := field(r, "cursor.id").(int64)
	ns, _ := field(r, "cursor.ns").(string)
	_, coll, _ := strings.Cut(ns, ".")
	cmd := bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll}}
	out, err := db.RunCommand(t.Context(), dbName, cmd)
	if err != nil {
		t.Fatalf("getMore %d on %s: %v", id, ns, err)
	}
	var docs []bson.D
	arr, _ := field(out, "cursor.nextBatch").(bson.A)
	for _, v := range arr {
		docs = append(docs, v.(bson.D))
	}
	next, _ := field(out, "cursor.id").(int64)
	return docs, next
}

// listCollections honours cursor.batchSize: the first batch holds at
// most that many entries and the cursor stays open for the rest, which
// getMore returns. mongod: list_collections.cpp fills the first batch
// while objCount < batchSize and registers a ClientCursor unless the
// executor is at EOF (batchSize 0: an empty first batch and a cursor);
// without batchSize the first batch takes everything (batchSize
// defaults to the largest long). Drivers and mongodump page through
// listCollections with getMore.
func TestReviewAdmin27ListCollectionsBatchSize(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, c := range []string{"c1", "c2", "c3"} {
		mustRun(t, db, "test", `{"create": "`+c+`"}`)
	}
	r := mustRun(t, db, "test", `{"listCollections": 1, "nameOnly": true, "cursor": {"batchSize": 1}}`)
	if n := len(firstBatch(t, r)); n != 1 {
		t.Errorf("batchSize 1: firstBatch holds %d entries, want 1", n)
	}
	if ns := field(r, "cursor.ns"); ns != "test.$cmd.listCollections" {
		t.Errorf("cursor.ns = %v", ns)
	}
	if id, _ := field(r, "cursor.id").(int64); id == 0 {
		t.Fatalf("batchSize 1 over 3 collections: cursor closed at once: %v", r)
	}
	rest, id := ra27GetMore(t, db, "test", r)
	if len(rest) != 2 || id != 0 {
		t.Errorf("getMore: %d entries, cursor %d; want the other 2 and cursor 0", len(rest), id)
	}
	names := map[any]bool{field(r, "cursor.firstBatch.0.name"): true}
	for _, d := range rest {
		n, _ := get(d, "name")
		names[n] = true
	}
	if len(names) != 3 {
		t.Errorf("first batch and getMore listed %v, want c1, c2 and c3 once each", names)
	}
	// batchSize 0: nothing at first, everything after.
	r = mustRun(t, db, "test", `{"listCollections": 1, "cursor": {"batchSize": 0}}`)
	if n := len(firstBatch(t, r)); n != 0 {
		t.Errorf("batchSize 0: firstBatch holds %d", n)
	}
	if rest, id := ra27GetMore(t, db, "test", r); len(rest) != 3 || id != 0 {
		t.Errorf("getMore after batchSize 0: %d entries, cursor %d", len(rest), id)
	}
	// A batch that takes everything leaves no cursor.
	r = mustRun(t, db, "test", `{"listCollections": 1, "cursor": {"batchSize": 3}}`)
	if id, _ := field(r, "cursor.id").(int64); id != 0 || len(firstBatch(t, r)) != 3 {
		t.Errorf("batchSize 3 over 3: cursor %d, %d entries", id, len(firstBatch(t, r)))
	}
	r = mustRun(t, db, "test", `{"listCollections": 1}`)
	if id, _ := field(r, "cursor.id").(int64); id != 0 || len(firstBatch(t, r)) != 3 {
		t.Errorf("no batchSize: cursor %d, %d entries", id, len(firstBatch(t, r)))
	}
}

// listIndexes honours cursor.batchSize likewise. mongod: list_indexes.cpp
// fills the first batch up to batchSize and keeps a cursor on
// db.coll for the rest.
func TestReviewAdmin27ListIndexesBatchSize(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b": 1}, "name": "b_1"}]}`)
	r := mustRun(t, db, "test", `{"listIndexes": "c", "cursor": {"batchSize": 1}}`)
	if n := len(firstBatch(t, r)); n != 1 {
		t.Errorf("batchSize 1: firstBatch holds %d indexes, want 1", n)
	}
	if id, _ := field(r, "cursor.id").(int64); id == 0 {
		t.Fatalf("batchSize 1 over 3 indexes: cursor closed at once: %v", r)
	}
	rest, id := ra27GetMore(t, db, "test", r)
	var names []string
	for _, d := range append(firstBatch(t, r), rest...) {
		n, _ := get(d, "name")
		names = append(names, fmt.Sprint(n))
	}
	if got := strings.Join(names, ","); got != "_id_,a_1,b_1" || id != 0 {
		t.Errorf("listed %s, cursor %d; want _id_,a_1,b_1 and cursor 0", got, id)
	}
}

// dbStats' counts are 64-bit integers and its sizes doubles. mongod 7.0:
// the reply is the IDL struct DBStats (src/mongo/db/dbcommands.idl):
// collections, views, objects, indexes and scaleFactor are safeInt64
// (NumberLong), avgObjSize, dataSize, storageSize, indexSize and
// totalSize safeDouble (dataSize at scale 1024 may have a fraction:
// DatabaseImpl::getStats divides by the scale as a double). A database
// that does not exist answers with the same fields and types
// (CmdDbStats::typedRun). A mongo:7.0 container's db.stats() prints
// `collections: Long('1')`, `dataSize: 11400`.
func TestReviewAdmin27DBStatsCountTypes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ra26Bulk(t, db)
	for _, q := range []struct{ db, cmd string }{
		{"test", `{"dbStats": 1}`}, {"test", `{"dbStats": 1, "scale": 1024}`}, {"nosuchdb", `{"dbStats": 1}`},
	} {
		r := mustRun(t, db, q.db, q.cmd)
		for _, f := range []string{"collections", "views", "objects", "indexes", "scaleFactor"} {
			if _, ok := field(r, f).(int64); !ok {
				t.Errorf("%s on %s: %s is %T, want int64 (NumberLong)", q.cmd, q.db, f, field(r, f))
			}
		}
		for _, f := range []string{"avgObjSize", "dataSize", "storageSize", "indexSize", "totalSize"} {
			if _, ok := field(r, f).(float64); !ok {
				t.Errorf("%s on %s: %s is %T, want float64 (double)", q.cmd, q.db, f, field(r, f))
			}
		}
	}
	r := mustRun(t, db, "test", `{"dbStats": 1, "freeStorage": 1}`)
	for _, f := range []string{"freeStorageSize", "indexFreeStorageSize", "totalFreeStorageSize"} {
		if _, ok := field(r, f).(float64); !ok {
			t.Errorf("freeStorage: %s is %T, want float64", f, field(r, f))
		}
	}
	if n, _ := field(r, "objects").(int64); n != 60 {
		t.Errorf("objects = %v, want 60", field(r, "objects"))
	}
	full, _ := field(r, "dataSize").(float64)
	scaled, _ := field(mustRun(t, db, "test", `{"dbStats": 1, "scale": 1024}`), "dataSize").(float64)
	if scaled != full/1024 {
		t.Errorf("dataSize at scale 1024 = %v, want %v / 1024 = %v", scaled, full, full/1024)
	}
}

// dataSize with keyPattern, min and max measures the documents in that
// range of an index on keyPattern (min inclusive, max exclusive). mongod
// 7.0: CmdDataSize (src/mongo/db/commands/dbcommands.cpp) infers
// keyPattern from min when absent, takes the first index the key pattern
// prefixes that is neither sparse, partial, multikey nor under a
// collation (findShardKeyPrefixedIndex, requireSingleKey), extends min
// and max with MinKey to the index's length, and scans it with
// kIncludeStartKeyOnly. The reply is DataSizeReply
// (src/mongo/db/dbcommands.idl): size, numObjects and millis safeInt64,
// estimate (a bool) when the collection has documents. min without max
// is 2 BadValue "Max must be set if min is set."; a key pattern no
// index fits is 96 OperationFailed "Couldn't find valid index
// containing key pattern".
func TestReviewAdmin27DataSizeKeyRange(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2, "s": "xx"}, {"_id": 3, "a": 3, "s": "xxxx"}, {"_id": 4, "a": 4}]}`)
	r, err := run(t, db, "test", `{"dataSize": "test.c", "keyPattern": {"_id": 1}, "min": {"_id": 2}, "max": {"_id": 4}}`)
	if err != nil {
		t.Fatalf("dataSize over an _id range: %v", err)
	}
	var want int64
	for _, d := range []bson.D{
		{{Key: "_id", Value: int32(2)}, {Key: "a", Value: int32(2)}, {Key: "s", Value: "xx"}},
		{{Key: "_id", Value: int32(3)}, {Key: "a", Value: int32(3)}, {Key: "s", Value: "xxxx"}},
	} {
		b, _ := bson.Marshal(d)
		want += int64(len(b))
	}
	if n, _ := field(r, "numObjects").(int64); n != 2 {
		t.Errorf("numObjects = %v (%T), want int64 2 (_id 2 and 3)", field(r, "numObjects"), field(r, "numObjects"))
	}
	if n, _ := field(r, "size").(int64); n != want {
		t.Errorf("size = %v (%T), want int64 %d", field(r, "size"), field(r, "size"), want)
	}
	if _, ok := field(r, "millis").(int64); !ok {
		t.Errorf("millis is %T, want int64", field(r, "millis"))
	}
	if v, ok := get(r, "estimate"); !ok || v != false {
		t.Errorf("estimate = %v (present %v), want false", v, ok)
	}
	if got := strings.Join(ra26Keys(r), ","); got != "size,numObjects,millis,estimate,ok" {
		t.Errorf("reply fields %s, want size,numObjects,millis,estimate,ok", got)
	}
	// keyPattern inferred from min; a secondary index; a range with no
	// documents.
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b": 1}, "name": "a_1_b_1"}]}`)
	for _, c := range []struct {
		cmd  string
		want int64
	}{
		{`{"dataSize": "test.c", "min": {"_id": 1}, "max": {"_id": 3}}`, 2},
		{`{"dataSize": "test.c", "keyPattern": {"a": 1}, "min": {"a": 3}, "max": {"a": 100}}`, 2},
		{`{"dataSize": "test.c", "keyPattern": {"a": 1, "b": 1}, "min": {"a": 1}, "max": {"a": 2, "b": 0}}`, 2},
		{`{"dataSize": "test.c", "keyPattern": {"_id": 1}, "min": {"_id": 4}, "max": {"_id": 2}}`, 0},
		{`{"dataSize": "test.c", "keyPattern": {"_id": 1}, "min": {"_id": 2}, "max": {"_id": 2}}`, 0},
		{`{"dataSize": "test.c", "keyPattern": {"_id": 1}, "min": {"_id": 1}, "max": {"_id": 5}, "maxObjects": 2}`, 3},
	} {
		r := mustRun(t, db, "test", c.cmd)
		if n, _ := field(r, "numObjects").(int64); n != c.want {
			t.Errorf("%s: numObjects = %v, want %d", c.cmd, field(r, "numObjects"), c.want)
		}
	}
	r = mustRun(t, db, "test", `{"dataSize": "test.c", "keyPattern": {"_id": 1}, "min": {"_id": 1}, "max": {"_id": 5}, "maxObjects": 2}`)
	if v, _ := get(r, "maxReached"); v != true {
		t.Errorf("maxObjects 2 of 4: maxReached = %v, want true", v)
	}
	for _, c := range []struct {
		cmd  string
		code int32
		msg  string
	}{
		{`{"dataSize": "test.c", "min": {"_id": 1}}`, 2, "Max must be set if min is set."},
		{`{"dataSize": "test.c", "max": {"_id": 1}}`, 2, "Max must not be set if min is not set."},
		{`{"dataSize": "test.c", "keyPattern": {"z": 1}, "min": {"z": 1}, "max": {"z": 2}}`, 96, "Couldn't find valid index containing key pattern"},
		{`{"dataSize": "test.c", "min": {"_id": 1}, "max": {}}`, 2, "Only one of min or max specified"},
		{`{"dataSize": "test.c", "min": 1, "max": 2}`, 14, ""},
	} {
		_, err := run(t, db, "test", c.cmd)
		var e *Error
		if !errors.As(err, &e) || int32(e.Code) != c.code || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%s: %v, want %d %q", c.cmd, err, c.code, c.msg)
		}
	}
	// A collection without documents answers zeros whatever the range.
	r = mustRun(t, db, "test", `{"dataSize": "test.none", "keyPattern": {"z": 1}, "min": {"z": 1}, "max": {"z": 2}}`)
	if n, _ := field(r, "size").(int64); n != 0 || field(r, "numObjects") != int64(0) {
		t.Errorf("dataSize of a missing collection = %v", r)
	}
}

// A database's system.js collection (stored JavaScript, restored by
// mongorestore) may be created, written and listed. mongod:
// NamespaceString::isLegalClientSystemNS returns true for system.js in
// any database, so userAllowedCreateNS lets create and an insert's
// implicit create through, and listCollections lists it (mongodump
// dumps it).
func TestReviewAdmin27CreateSystemJS(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	if _, err := run(t, db, "test", `{"create": "system.js"}`); err != nil {
		t.Fatalf("create system.js: %v", err)
	}
	if _, err := run(t, db, "test", `{"insert": "system.js", "documents": [{"_id": "f", "value": 1}]}`); err != nil {
		t.Fatalf("insert into system.js: %v", err)
	}
	if _, err := run(t, db, "other", `{"insert": "system.js", "documents": [{"_id": "g", "value": 2}]}`); err != nil {
		t.Fatalf("insert into other.system.js (implicit create): %v", err)
	}
	if n := count(t, db, "other", "system.js"); n != 1 {
		t.Errorf("other.system.js holds %d documents", n)
	}
	r := mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "system.js"}}`)
	if b := firstBatch(t, r); len(b) != 1 {
		t.Errorf("listCollections does not list system.js: %v", b)
	}
	// Other system. names stay reserved.
	if code := ra26Code(t, db, "test", `{"create": "system.foo"}`); code != 73 {
		t.Errorf("create system.foo: code %d, want 73 InvalidNamespace", code)
	}
	mustRun(t, db, "test", `{"drop": "system.js"}`)
}

// getLog: '*' lists the log names {names: ["global",
// "startupWarnings"]}; a name that is not a log fails with errmsg "no
// RamLog named: <name>" and no code (the command reports errmsg alone,
// ErrmsgCommandDeprecated; drivers see code 0, the Java driver -1); a
// value that is not a string is 14 "Argument to getLog must be of type
// String; ...". mongod: getLogCmd (src/mongo/db/commands/
// generic_servers.cpp); a standalone 7.0 has the two RamLogs global and
// startupWarnings.
func TestReviewAdmin27GetLog(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	r := mustRun(t, db, "admin", `{"getLog": "*"}`)
	if got := fmt.Sprint(field(r, "names")); got != "[global startupWarnings]" {
		t.Errorf(`{getLog: "*"} names = %s, want [global startupWarnings]`, got)
	}
	for _, name := range []string{"global", "startupWarnings"} {
		r := mustRun(t, db, "admin", `{"getLog": "`+name+`"}`)
		if _, ok := field(r, "log").(bson.A); !ok || field(r, "totalLinesWritten") == nil {
			t.Errorf("getLog %s = %v, want {totalLinesWritten, log: [...]}", name, r)
		}
	}
	_, err := run(t, db, "admin", `{"getLog": "noSuchLog"}`)
	var e *Error
	if !errors.As(err, &e) || e.Message != "no RamLog named: noSuchLog" || e.Code != 0 {
		t.Errorf(`{getLog: "noSuchLog"}: %v, want errmsg "no RamLog named: noSuchLog" without a code`, err)
	}
	reply, _ := db.RunCommand(t.Context(), "admin", bson.D{{Key: "getLog", Value: "noSuchLog"}})
	if got := strings.Join(ra26Keys(reply), ","); got != "ok,errmsg" {
		t.Errorf("reply fields %s, want ok,errmsg", got)
	}
	_, err = run(t, db, "admin", `{"getLog": 1}`)
	if !errors.As(err, &e) || e.Code != 14 || !strings.HasPrefix(e.Message, "Argument to getLog must be of type String; found 1 of type int") {
		t.Errorf("{getLog: 1}: %v, want 14 TypeMismatch", err)
	}
}

// dataSize over a descending index field completes a bound with MaxKey
// there (KeyPattern::extendRangeBound), so {a: 3} as min starts at the
// first key of a = 3 in the index's order; estimate counts each
// document as the collection's average size; a bound with a field the
// index does not have there is 16634.
func TestReviewAdmin27DataSizeDescendingAndEstimate(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1, "b": 1}, {"_id": 2, "a": 2, "b": 1}, {"_id": 3, "a": 3, "b": 1}, {"_id": 4, "a": 3, "b": 2}, {"_id": 5, "a": 4, "b": 1}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b": -1}, "name": "a_1_b_-1"}]}`)
	r := mustRun(t, db, "test", `{"dataSize": "test.c", "keyPattern": {"a": 1}, "min": {"a": 3}, "max": {"a": 4}}`)
	if n, _ := field(r, "numObjects").(int64); n != 2 {
		t.Errorf("a in [3, 4) over {a: 1, b: -1}: numObjects = %v, want 2", field(r, "numObjects"))
	}
	full := mustRun(t, db, "test", `{"collStats": "c"}`)
	size, _ := asInt64(field(full, "size"))
	r = mustRun(t, db, "test", `{"dataSize": "test.c", "keyPattern": {"a": 1}, "min": {"a": 1}, "max": {"a": 3}, "estimate": true}`)
	if n, _ := field(r, "size").(int64); n != 2*(size/5) || field(r, "estimate") != true {
		t.Errorf("estimate over 2 of 5: %v, want size %d", r, 2*(size/5))
	}
	if code := ra26Code(t, db, "test", `{"dataSize": "test.c", "keyPattern": {"a": 1}, "min": {"b": 1}, "max": {"b": 2}}`); code != 16634 {
		t.Errorf("bound {b} on index {a, b}: code %d, want 16634", code)
	}
}
