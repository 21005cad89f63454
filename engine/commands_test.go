package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// snapshot returns every document of db.coll in _id order, for checks
// that a failing call left the data intact.
func snapshotDocs(t *testing.T, db *DB, dbName, coll string) []bson.D {
	t.Helper()
	cur, err := db.Database(dbName).Collection(coll).Find(context.Background(), bson.D{},
		FindOptions{Sort: bson.D{{Key: "_id", Value: 1}}})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	docs, err := cur.All(context.Background())
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return docs
}

// intact fails unless db.coll holds exactly want and validates.
func intact(t *testing.T, db *DB, dbName, coll string, want []bson.D, after string) {
	t.Helper()
	got := snapshotDocs(t, db, dbName, coll)
	if !sameDocs(got, want) {
		t.Fatalf("after %s: data changed:\n got  %v\n want %v", after, got, want)
	}
	if db.lookup(dbName, coll) != nil {
		mustValidate(t, db, dbName, coll)
	}
}

func sameDocs(a, b []bson.D) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !docIdentical(a[i], b[i]) {
			return false
		}
	}
	return true
}

// docIdentical compares field order, types and values (document.Equal
// treats 1 and 1.0 as equal; storage must not change either).
func docIdentical(a, b bson.D) bool {
	ea, err1 := document.MarshalExtJSON(a, true)
	eb, err2 := document.MarshalExtJSON(b, true)
	return err1 == nil && err2 == nil && string(ea) == string(eb)
}

// docs/commands.md §0: every command of ordinary collections answers with ok: 1
// and its reply shape.
func TestCommandsAnswer(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2}, {"_id": 3, "a": 3}]}`)
	cases := []struct {
		db, cmd string
		fields  []string // top-level fields the reply must have
	}{
		{"admin", `{"ping": 1}`, nil},
		{"admin", `{"hello": 1}`, []string{"isWritablePrimary", "maxBsonObjectSize", "maxWireVersion"}},
		{"admin", `{"isMaster": 1}`, []string{"ismaster"}},
		{"admin", `{"buildInfo": 1}`, []string{"version", "versionArray"}},
		{"test", `{"create": "made"}`, nil},
		{"test", `{"listCollections": 1}`, []string{"cursor"}},
		{"admin", `{"listDatabases": 1}`, []string{"databases", "totalSize"}},
		{"test", `{"find": "c", "filter": {"a": {"$gte": 2}}}`, []string{"cursor"}},
		{"test", `{"count": "c", "query": {"a": 2}}`, []string{"n"}},
		{"test", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"b": 1}}}]}`, []string{"n", "nModified"}},
		{"test", `{"findAndModify": "c", "query": {"_id": 2}, "update": {"$inc": {"a": 10}}, "new": true}`, []string{"lastErrorObject", "value"}},
		{"test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`, []string{"numIndexesBefore", "numIndexesAfter", "createdCollectionAutomatically"}},
		{"test", `{"listIndexes": "c"}`, []string{"cursor"}},
		{"test", `{"explain": {"find": "c", "filter": {"a": 3}}, "verbosity": "executionStats"}`, []string{"queryPlanner", "executionStats"}},
		{"test", `{"dropIndexes": "c", "index": "a_1"}`, []string{"nIndexesWas"}},
		{"admin", `{"serverStatus": 1}`, []string{"opcounters", "storageEngine"}},
		{"admin", `{"currentOp": 1}`, []string{"inprog"}},
		{"test", `{"validate": "c"}`, []string{"valid", "nrecords", "keysPerIndex"}},
		{"test", `{"dbStats": 1}`, nil},
		{"test", `{"collStats": "c"}`, nil},
		{"test", `{"delete": "c", "deletes": [{"q": {"_id": 3}, "limit": 1}]}`, []string{"n"}},
		{"test", `{"drop": "made"}`, []string{"nIndexesWas", "ns"}},
		{"other", `{"insert": "x", "documents": [{}]}`, []string{"n"}},
		{"other", `{"dropDatabase": 1}`, []string{"dropped"}},
	}
	for _, c := range cases {
		r := mustRun(t, db, c.db, c.cmd)
		if ok, _ := get(r, "ok"); ok != 1.0 {
			t.Errorf("%s: ok = %v", c.cmd, ok)
		}
		if r[len(r)-1].Key != "ok" {
			t.Errorf("%s: ok is not the last field: %v", c.cmd, r)
		}
		for _, f := range c.fields {
			if _, ok := get(r, f); !ok {
				t.Errorf("%s: reply lacks %q: %v", c.cmd, f, r)
			}
		}
		if v, ok := get(r, "cursor"); ok {
			checkCursorShape(t, c.cmd, v, "firstBatch")
		}
	}
	if r := mustRun(t, db, "test", `{"validate": "c"}`); field(r, "valid") != true {
		t.Fatalf("validate: %v", r)
	}
	if names := db.DatabaseNames(); fmt.Sprint(names) != "[admin test]" {
		t.Fatalf("databases after dropDatabase: %v", names)
	}
	// The updates above took effect.
	got := snapshotDocs(t, db, "test", "c")
	want := []bson.D{
		{{Key: "_id", Value: int32(1)}, {Key: "a", Value: int32(1)}, {Key: "b", Value: int32(1)}},
		{{Key: "_id", Value: int32(2)}, {Key: "a", Value: int32(12)}},
	}
	if !sameDocs(got, want) {
		t.Fatalf("data = %v, want %v", got, want)
	}
}

func checkCursorShape(t *testing.T, what string, v any, batch string) (int64, bson.A) {
	t.Helper()
	cd, ok := v.(bson.D)
	if !ok || len(cd) != 3 {
		t.Fatalf("%s: cursor = %v", what, v)
	}
	id, ok := cd[0].Value.(int64)
	if cd[0].Key != "id" || !ok {
		t.Fatalf("%s: cursor.id = %v (%T)", what, cd[0], cd[0].Value)
	}
	if _, ok := cd[1].Value.(string); cd[1].Key != "ns" || !ok {
		t.Fatalf("%s: cursor.ns = %v", what, cd[1])
	}
	docs, ok := cd[2].Value.(bson.A)
	if cd[2].Key != batch || !ok {
		t.Fatalf("%s: cursor.%s = %v", what, batch, cd[2])
	}
	return id, docs
}

// docs/commands.md §0: errors are {ok: 0, errmsg, code, codeName}; an unknown
// command is 59, an unknown query operator 2; neither changes data.
func TestErrorReplies(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": [1, 2]}, {"_id": 2, "a": "x"}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	before := snapshotDocs(t, db, "test", "c")
	cases := []struct {
		cmd  string
		code document.Code
		frag string
	}{
		{`{"noSuchCommand": 1}`, document.CodeCommandNotFound, "no such command: 'noSuchCommand'"},
		{`{"Find": "c"}`, document.CodeCommandNotFound, "no such command"},
		{`{"find": "c", "filter": {"a": {"$foo": 1}}}`, document.CodeBadValue, "$foo"},
		{`{"find": "c", "filter": {"$where": 1}}`, document.CodeBadValue, "$where got bad type"},
		{`{"count": "c", "query": {"a": {"$bogus": 1}}}`, document.CodeBadValue, "$bogus"},
		{`{"delete": "c", "deletes": [{"q": {"a": {"$bogus": 1}}, "limit": 0}]}`, 0, ""},
		{`{"update": "c", "updates": [{"q": {}, "u": {"$bogus": {"a": 1}}, "multi": true}]}`, 0, ""},
		{`{"update": "c", "updates": [{"q": {}, "u": {"$set": {"_id": 5}}}]}`, 0, ""},
		{`{"find": "c", "sort": {"a": 2}}`, 15975, "$sort key ordering must be 1"},
		{`{"find": "c", "limit": -1, "batchSize": -1}`, 51024, "BSON field 'limit' value must be >= 0"},
		{`{"find": "c", "skip": -1}`, 51024, "BSON field 'skip' value must be >= 0"},
		{`{"aggregate": "c", "pipeline": [], "cursor": {"batchSize": -1}}`, codeIDLValidator, "value must be >= 0, actual value '-1'"},
		{`{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {"batchSize": -2}}`, codeIDLValidator, "actual value '-2'"},
		{`{"find": "c", "hint": "nope"}`, document.CodeBadValue, "hint provided does not correspond to an existing index"},
		{`{"find": "c", "bogusOption": 1}`, document.CodeIDLUnknownField, "bogusOption"},
		{`{"find": "c", "filter": 5}`, document.CodeTypeMismatch, "find.filter"},
		{`{"insert": "c"}`, document.CodeFailedToParse, "documents"},
		{`{"insert": "c", "documents": 5}`, document.CodeTypeMismatch, "documents"},
		{`{"insert": "c", "documents": [5]}`, document.CodeTypeMismatch, "documents.0"},
		{`{"getMore": 5, "collection": "c"}`, document.CodeTypeMismatch, "getMore"},
		{`{"getMore": {"$numberLong": "12345"}, "collection": "c"}`, document.CodeCursorNotFound, "12345"},
		{`{"dropIndexes": "c", "index": "nope"}`, document.CodeIndexNotFound, "nope"},
		{`{"dropIndexes": "c", "index": "_id_"}`, document.CodeInvalidOptions, "_id"},
		{`{"dropIndexes": "missing", "index": "*"}`, document.CodeNamespaceNotFound, ""},
		{`{"listIndexes": "missing"}`, document.CodeNamespaceNotFound, ""},
		{`{"validate": "missing"}`, document.CodeNamespaceNotFound, ""},
		{`{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "unique": true}]}`, document.CodeIndexKeySpecsConflict, ""},
		{`{"createIndexes": "c", "indexes": [{"key": {"b": 1}, "name": "a_1"}]}`, document.CodeIndexKeySpecsConflict, ""},
		{`{"createIndexes": "c", "indexes": [{"key": {}, "name": "e"}]}`, document.CodeCannotCreateIndex, ""},
		{`{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "x", "bogus": 1}]}`, document.CodeInvalidIndexSpecificationOption, "bogus"},
		{`{"create": "c", "capped": false, "bogus": 1}`, document.CodeIDLUnknownField, "bogus"},
		{`{"create": "c", "validator": {"a": 1}}`, document.CodeNamespaceExists, "already exists"},
		{`{"explain": {"find": "c"}, "verbosity": "loud"}`, document.CodeFailedToParse, "verbosity"},
		{`{"findAndModify": "c", "query": {}}`, document.CodeFailedToParse, "update or remove"},
		{`{}`, document.CodeFailedToParse, ""},
	}
	for _, c := range cases {
		if c.code != 0 {
			wantCode(t, db, "test", c.cmd, c.code, c.frag)
		} else {
			// Statement-level failures come back as writeErrors, ok: 1.
			r := mustRun(t, db, "test", c.cmd)
			we, _ := field(r, "writeErrors").(bson.A)
			if len(we) != 1 {
				t.Errorf("%s: reply %v, want one writeError", c.cmd, r)
			} else {
				e := we[0].(bson.D)
				for _, k := range []string{"index", "code", "errmsg"} {
					if _, ok := get(e, k); !ok {
						t.Errorf("%s: writeError lacks %s: %v", c.cmd, k, e)
					}
				}
			}
		}
		intact(t, db, "test", "c", before, c.cmd)
	}
	// The Go API returns the same typed errors.
	_, err := db.Database("test").Collection("c").Find(context.Background(), bson.D{{Key: "a", Value: bson.D{{Key: "$foo", Value: 1}}}})
	checkCode(t, "Find $foo", err, document.CodeBadValue, "$foo")
	_, err = db.Database("test").Collection("c").UpdateMany(context.Background(), bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "_id", Value: 9}}}}, false)
	checkCode(t, "UpdateMany _id", err, document.CodeImmutableField, "")
	intact(t, db, "test", "c", before, "Go API errors")
	// RunCommand on a closed DB fails without a panic.
	db2, _, _ := openTest(t)
	db2.Close()
	if _, err := db2.RunCommand(context.Background(), "test", bson.D{{Key: "ping", Value: 1}}); err == nil {
		t.Fatal("ping on a closed DB succeeded")
	}
}

// Malformed Extended JSON is rejected by document.ParseExtJSON with an
// error and never reaches the engine.
func TestMalformedExtJSON(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}]}`)
	before := snapshotDocs(t, db, "test", "c")
	for _, s := range []string{
		`{"insert": "c", "documents": [{"_id": {"$oid": "zz"}}]}`,
		`{"insert": "c", "documents": [{"_id": {"$oid": "0123"}}]}`,
		`{"insert": "c", "documents": [{"d": {"$date": "yesterday"}}]}`,
		`{"insert": "c", "documents": [{"n": {"$numberInt": "1.5"}}]}`,
		`{"insert": "c", "documents": [{"n": {"$numberLong": "x"}}]}`,
		`{"insert": "c", "documents": [{"b": {"$binary": {"base64": "!!", "subType": "00"}}}]}`,
		`{"insert": "c", "documents": [{"_id": 2}]} trailing`,
		`{"insert": "c", "documents": [{"_id": 2}]`,
		`{"insert": "c", "documents": [{"_id": 2,}]}`,
		"{\"insert\": \"c\", \"documents\": [{\"s\": \"\xff\"}]}",
		`[1, 2]`,
		``,
	} {
		if d, err := document.ParseExtJSON([]byte(s)); err == nil {
			t.Errorf("ParseExtJSON(%q) = %v, want an error", s, d)
		}
	}
	intact(t, db, "test", "c", before, "malformed Extended JSON")
}

// docs/commands.md §0 documents: 16 MiB accepted, one byte over rejected with
// 10334; nesting 100 accepted, 101 rejected; _id array, regex and
// undefined rejected (53); NUL in a field name rejected (2). Nothing
// of a failed insert is stored; updates obey the same limits.
func TestDocumentLimits(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("16 MiB documents")
	}
	db, _, _ := openTest(t)
	ctx := context.Background()
	c := db.Database("test").Collection("c")
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	// {_id: int32, s: string}: 5 + (1+4+4) + (1+2+4+len+1) bytes.
	sized := func(id int32, total int) bson.D {
		n := total - 5 - 9 - 8
		return bson.D{{Key: "_id", Value: id}, {Key: "s", Value: strings.Repeat("x", n)}}
	}
	if sz := document.Size(sized(1, document.MaxDocumentSize)); sz != document.MaxDocumentSize {
		t.Fatalf("size arithmetic: %d", sz)
	}
	if _, err := c.InsertOne(ctx, sized(1, document.MaxDocumentSize)); err != nil {
		t.Fatalf("16 MiB document rejected: %v", err)
	}
	// bigIntact checks the data without rendering 16 MiB as JSON.
	bigIntact := func(after string) {
		t.Helper()
		if n := count(t, db, "test", "c"); n != 2 {
			t.Fatalf("after %s: count %d", after, n)
		}
		d, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: 1}})
		if err != nil || document.Size(d) != document.MaxDocumentSize || len(d) != 2 {
			t.Fatalf("after %s: the 16 MiB document changed (%d bytes, %d fields, %v)", after, document.Size(d), len(d), err)
		}
		mustValidate(t, db, "test", "c")
	}
	_, err := c.InsertOne(ctx, sized(2, document.MaxDocumentSize+1))
	checkCode(t, "16 MiB + 1", err, document.CodeBadValue, "object to insert too large")
	bigIntact("oversize insert")
	// An update that grows a document past the limit fails too.
	_, err = c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: "y"}}}}, false)
	checkCode(t, "oversize update", err, document.CodeBSONObjectTooLarge, "")
	bigIntact("oversize update")
	if _, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	before := snapshotDocs(t, db, "test", "c")

	nested := func(levels int) bson.D {
		var v any = int32(1)
		for i := 0; i < levels; i++ {
			v = bson.D{{Key: "a", Value: v}}
		}
		return append(bson.D{{Key: "_id", Value: int32(levels)}}, v.(bson.D)...)
	}
	if _, err := c.InsertOne(ctx, nested(100)); err != nil {
		t.Fatalf("nesting 100 rejected: %v", err)
	}
	before = snapshotDocs(t, db, "test", "c")
	_, err = c.InsertOne(ctx, nested(101))
	checkCode(t, "nesting 101", err, document.CodeOverflow, "")
	intact(t, db, "test", "c", before, "over-deep insert")

	for _, bad := range []struct {
		d    bson.D
		code document.Code
	}{
		{bson.D{{Key: "_id", Value: bson.A{1}}}, document.CodeInvalidIDField},
		{bson.D{{Key: "_id", Value: bson.Regex{Pattern: "a"}}}, document.CodeInvalidIDField},
		{bson.D{{Key: "_id", Value: bson.Undefined{}}}, document.CodeInvalidIDField},
		{bson.D{{Key: "_id", Value: 7}, {Key: "a\x00b", Value: 1}}, document.CodeBadValue},
		{bson.D{{Key: "_id", Value: 8}, {Key: "x", Value: bson.D{{Key: "a\x00", Value: 1}}}}, document.CodeBadValue},
	} {
		_, err := c.InsertOne(ctx, bad.d)
		checkCode(t, fmt.Sprint(bad.d), err, bad.code, "")
		intact(t, db, "test", "c", before, fmt.Sprint("insert ", bad.d))
	}
	// Through the insert command, as writeErrors.
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": [1]}, {"_id": {"$regularExpression": {"pattern": "a", "options": ""}}}, {"_id": {"$undefined": true}}], "ordered": false}`)
	we, _ := field(r, "writeErrors").(bson.A)
	if len(we) != 3 || field(r, "n") != int32(0) {
		t.Fatalf("bad _ids: %v", r)
	}
	for i, e := range we {
		if field(e.(bson.D), "index") != int32(i) || field(e.(bson.D), "code") != int32(document.CodeInvalidIDField) {
			t.Errorf("writeError %d = %v", i, e)
		}
	}
	intact(t, db, "test", "c", before, "bad _id inserts")
	// An update may not nest deeper than 100 either.
	_, err = c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 100}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: nested(100)}}}}, false)
	checkCode(t, "over-deep update", err, document.CodeOverflow, "")
	intact(t, db, "test", "c", before, "over-deep update")
}

// docs/commands.md §0: duplicate _id is 11000 with keyPattern and keyValue; ordered
// inserts stop at the first bad document and keep the ones before;
// unordered keep every valid one; writeErrors list the indexes.
func TestInsertOrderedUnordered(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}]}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 2}, {"_id": 1}, {"_id": 3}, {"_id": [0]}, {"_id": 4}]}`)
	if field(r, "n") != int32(1) {
		t.Fatalf("ordered n: %v", r)
	}
	we := field(r, "writeErrors").(bson.A)
	if len(we) != 1 {
		t.Fatalf("ordered writeErrors: %v", we)
	}
	e := we[0].(bson.D)
	if field(e, "index") != int32(1) || field(e, "code") != int32(11000) {
		t.Fatalf("dup writeError: %v", e)
	}
	if kp, _ := field(e, "keyPattern").(bson.D); !document.Equal(kp, bson.D{{Key: "_id", Value: 1}}) {
		t.Fatalf("keyPattern: %v", e)
	}
	if kv, _ := field(e, "keyValue").(bson.D); !document.Equal(kv, bson.D{{Key: "_id", Value: 1}}) {
		t.Fatalf("keyValue: %v", e)
	}
	if msg, _ := field(e, "errmsg").(string); !strings.Contains(msg, "E11000 duplicate key error collection: test.c index: _id_") {
		t.Fatalf("errmsg: %q", msg)
	}
	ids := func() []any {
		var out []any
		for _, d := range snapshotDocs(t, db, "test", "c") {
			out = append(out, d[0].Value)
		}
		return out
	}
	if got := fmt.Sprint(ids()); got != "[1 2]" {
		t.Fatalf("after ordered insert: %s", got)
	}
	r = mustRun(t, db, "test", `{"insert": "c", "ordered": false, "documents": [{"_id": 2}, {"_id": 5}, {"_id": [0]}, {"_id": 6}, {"_id": 5}, {"a": {"$regularExpression": {"pattern": "x", "options": ""}}}]}`)
	if field(r, "n") != int32(3) {
		t.Fatalf("unordered n: %v", r)
	}
	we = field(r, "writeErrors").(bson.A)
	var idx []int32
	var codes []int32
	for _, x := range we {
		idx = append(idx, field(x.(bson.D), "index").(int32))
		codes = append(codes, field(x.(bson.D), "code").(int32))
	}
	if fmt.Sprint(idx) != "[0 2 4]" || fmt.Sprint(codes) != "[11000 53 11000]" {
		t.Fatalf("unordered writeErrors: %v", we)
	}
	if got := fmt.Sprint(ids()); !strings.HasPrefix(got, "[1 2 5 6 ObjectID") {
		t.Fatalf("after unordered insert: %s", got)
	}
	mustValidate(t, db, "test", "c")

	// The Go API: InsertMany reports a BulkWriteError, keeps the rest.
	ctx := context.Background()
	res, err := db.Database("test").Collection("d").InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}, false)
	var bwe *BulkWriteError
	if !asErr(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 1 {
		t.Fatalf("InsertMany err = %v", err)
	}
	checkCode(t, "InsertMany", err, document.CodeDuplicateKey, "dup key")
	if res == nil || res.InsertedIDs[0] != int32(1) || res.InsertedIDs[1] != nil || res.InsertedIDs[2] != int32(2) {
		t.Fatalf("InsertedIDs = %v", res)
	}
	_, err = db.Database("test").Collection("d").InsertOne(ctx, bson.D{{Key: "_id", Value: 2}})
	checkCode(t, "InsertOne dup", err, document.CodeDuplicateKey, "")
	// Duplicates on a unique secondary index name it in keyPattern.
	// (Building it over d's two documents without u and v would fail:
	// both have the key {u: null, v: null}.)
	wantCode(t, db, "test", `{"createIndexes": "d", "indexes": [{"key": {"u": 1, "v": -1}, "name": "uv", "unique": true}]}`, document.CodeDuplicateKey, "dup key")
	mustRun(t, db, "test", `{"delete": "d", "deletes": [{"q": {}, "limit": 0}]}`)
	mustRun(t, db, "test", `{"createIndexes": "d", "indexes": [{"key": {"u": 1, "v": -1}, "name": "uv", "unique": true}]}`)
	mustRun(t, db, "test", `{"insert": "d", "documents": [{"_id": 3, "u": 1, "v": "a"}]}`)
	r = mustRun(t, db, "test", `{"insert": "d", "documents": [{"_id": 4, "u": 1, "v": "a"}]}`)
	e = field(r, "writeErrors").(bson.A)[0].(bson.D)
	if !document.Equal(field(e, "keyPattern"), bson.D{{Key: "u", Value: 1}, {Key: "v", Value: -1}}) ||
		!document.Equal(field(e, "keyValue"), bson.D{{Key: "u", Value: 1}, {Key: "v", Value: "a"}}) ||
		!strings.Contains(field(e, "errmsg").(string), "index: uv") {
		t.Fatalf("secondary dup writeError: %v", e)
	}
	mustValidate(t, db, "test", "d")
}

// A large ordered insert spanning several transactions stops at the
// failing document, and everything before it is kept.
func TestInsertOrderedAcrossChunks(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []any
	n := insertChunkDocs*2 + 10
	for i := 0; i < n; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "k", Value: int32(i % 7)}})
	}
	bad := insertChunkDocs + 5
	docs[bad] = bson.D{{Key: "_id", Value: int32(3)}}
	c := db.Database("test").Collection("c")
	if _, err := c.CreateIndex(context.Background(), IndexModel{Keys: bson.D{{Key: "k", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.InsertMany(context.Background(), docs, true)
	checkCode(t, "ordered chunked insert", err, document.CodeDuplicateKey, "")
	if got := count(t, db, "test", "c"); got != int64(bad) {
		t.Fatalf("count = %d, want %d", got, bad)
	}
	mustValidate(t, db, "test", "c")
}

func asErr[T error](err error, target *T) bool { return errors.As(err, target) }

// docs/commands.md §0: every command the page lists is supported (a malformed call
// may fail, but never with 59 CommandNotFound), and a cursor reply
// names its namespace as "db.coll" in firstBatch and nextBatch alike.
func TestSpecCommandsSupported(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	for _, name := range []string{"ping", "hello", "buildInfo", "create", "drop", "dropDatabase", "listCollections",
		"listDatabases", "insert", "find", "getMore", "killCursors", "count", "update", "delete", "createIndexes",
		"listIndexes", "dropIndexes", "collMod", "convertToCapped", "explain", "serverStatus", "currentOp",
		"setParameter", "getParameter", "validate"} {
		_, err := db.RunCommand(context.Background(), "admin", bson.D{{Key: name, Value: int32(1)}})
		if document.CodeOf(err) == document.CodeCommandNotFound {
			t.Errorf("%s: %v", name, err)
		}
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}]}`)
	r := mustRun(t, db, "test", `{"find": "c", "batchSize": 1}`)
	id, _ := checkCursorShape(t, "find", field(r, "cursor"), "firstBatch")
	if ns := field(r, "cursor.ns"); ns != "test.c" || id == 0 {
		t.Fatalf("find cursor: id %d ns %v", id, ns)
	}
	r = mustRun(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "c"}`, id))
	checkCursorShape(t, "getMore", field(r, "cursor"), "nextBatch")
	if ns := field(r, "cursor.ns"); ns != "test.c" {
		t.Fatalf("getMore cursor ns %v", ns)
	}
	r = mustRun(t, db, "test", `{"listIndexes": "c"}`)
	checkCursorShape(t, "listIndexes", field(r, "cursor"), "firstBatch")
	if ns := field(r, "cursor.ns"); ns != "test.c" {
		t.Fatalf("listIndexes cursor ns %v", ns)
	}
}
