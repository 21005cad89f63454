package engine

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// validatedKinds are the create commands of the collection kinds that
// take a validator, each with validator {a: {$gt: 5}}.
var validatedKinds = map[string]string{
	"ordinary":  `{"create": "c", "validator": {"a": {"$gt": 5}}}`,
	"clustered": `{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}, "validator": {"a": {"$gt": 5}}}`,
	"capped":    `{"create": "c", "capped": true, "size": 100000, "validator": {"a": {"$gt": 5}}}`,
}

// sameValue fails the test when got and want (Extended JSON) differ.
func sameValue(t *testing.T, what string, got any, wantJSON string) {
	t.Helper()
	want := ejson(t, `{"v": `+wantJSON+`}`)[0].Value
	if fmtValue(got) != fmtValue(want) {
		t.Errorf("%s = %s, want %s", what, fmtValue(got), fmtValue(want))
	}
}

// ids lists the _ids of db.test.c in natural order.
func validIDs(t *testing.T, db *DB) string {
	t.Helper()
	var out []string
	for _, d := range findAll(t, db, "test", "c", bson.D{}) {
		out = append(out, fmtValue(d[0].Value))
	}
	return strings.Join(out, ",")
}

// Every write path of every kind that takes a validator checks it: the
// insert command, insertMany ordered and not, update, replacement,
// upsert and findAndModify. A failure is 121 with errInfo, and nothing
// valid is lost.
func TestValidatorEnforcedOnEveryWritePath(t *testing.T) {
	t.Parallel()
	for name, create := range validatedKinds {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db, _ := openMem(t)
			mustRun(t, db, "test", create)
			r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}]}`)
			sameValue(t, "n", field(r, "n"), `0`)
			sameValue(t, "writeErrors", field(r, "writeErrors"), `[{"index": 0, "code": 121,
				"errmsg": "Document failed validation", "errInfo": {"failingDocumentId": 1,
				"details": {"operatorName": "$gt", "specifiedAs": {"a": {"$gt": 5}}, "reason": "comparison failed", "consideredValue": 1}}}]`)

			// Ordered: the documents before the failure are kept.
			r = mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 2, "a": 6}, {"_id": 3}, {"_id": 4, "a": 7}]}`)
			sameValue(t, "ordered n", field(r, "n"), `1`)
			sameValue(t, "ordered writeErrors.0.index", field(r, "writeErrors.0.index"), `1`)
			sameValue(t, "missing field details", field(r, "writeErrors.0.errInfo.details"),
				`{"operatorName": "$gt", "specifiedAs": {"a": {"$gt": 5}}, "reason": "field was missing"}`)
			// Unordered: every valid document is kept.
			r = mustRun(t, db, "test", `{"insert": "c", "ordered": false, "documents": [{"_id": 5, "a": 0}, {"_id": 6, "a": 8}, {"_id": 7, "a": 1}, {"_id": 8, "a": 9}]}`)
			sameValue(t, "unordered n", field(r, "n"), `2`)
			if got := len(field(r, "writeErrors").(bson.A)); got != 2 {
				t.Fatalf("unordered writeErrors: %d, want 2: %v", got, r)
			}
			sameValue(t, "unordered indexes", bson.A{field(r, "writeErrors.0.index"), field(r, "writeErrors.1.index")}, `[0, 2]`)
			if got := validIDs(t, db); got != "2,6,8" {
				t.Fatalf("stored _ids %s, want 2,6,8", got)
			}

			// A generated _id is the failing document's id, and the one
			// that would have been stored.
			r = mustRun(t, db, "test", `{"insert": "c", "documents": [{"a": 2}]}`)
			if _, ok := field(r, "writeErrors.0.errInfo.failingDocumentId").(bson.ObjectID); !ok {
				t.Errorf("generated failingDocumentId: %v", r)
			}

			if name == "capped" {
				// A capped collection's documents keep their size: an
				// update that breaks the validator without changing the
				// size.
				r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"a": 1}}}]}`)
				sameValue(t, "capped update writeErrors.0.code", field(r, "writeErrors.0.code"), `121`)
				sameValue(t, "capped update failingDocumentId", field(r, "writeErrors.0.errInfo.failingDocumentId"), `2`)
				sameValue(t, "capped doc", findAll(t, db, "test", "c", bson.D{{Key: "_id", Value: int32(2)}})[0], `{"_id": 2, "a": 6}`)
				return
			}
			for _, u := range []string{
				`{"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"a": 1}}}]}`,
				`{"update": "c", "updates": [{"q": {"_id": 2}, "u": {"b": 1}}]}`,
				`{"update": "c", "updates": [{"q": {"_id": 9}, "u": {"$set": {"a": 1}}, "upsert": true}]}`,
				`{"update": "c", "updates": [{"q": {}, "u": {"$inc": {"a": -3}}, "multi": true}]}`,
			} {
				r = mustRun(t, db, "test", u)
				sameValue(t, u+" writeErrors.0.code", field(r, "writeErrors.0.code"), `121`)
				if field(r, "writeErrors.0.errInfo.failingDocumentId") == nil {
					t.Errorf("%s: no failingDocumentId: %v", u, r)
				}
			}
			wantCode(t, db, "test", `{"findAndModify": "c", "query": {"_id": 6}, "update": {"$set": {"a": 0}}}`, document.CodeDocumentValidationFailure, "Document failed validation")
			r, _ = run(t, db, "test", `{"findAndModify": "c", "query": {"_id": 6}, "update": {"$set": {"a": 0}}}`)
			sameValue(t, "findAndModify errInfo", field(r, "errInfo"), `{"failingDocumentId": 6,
				"details": {"operatorName": "$gt", "specifiedAs": {"a": {"$gt": 5}}, "reason": "comparison failed", "consideredValue": 0}}`)
			wantCode(t, db, "test", `{"findAndModify": "c", "query": {"_id": 10}, "update": {"$set": {"a": 0}}, "upsert": true}`, document.CodeDocumentValidationFailure, "")
			// Valid updates go through; nothing was changed by the others.
			mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$inc": {"a": 10}}}]}`)
			sameValue(t, "docs", findAll(t, db, "test", "c", bson.D{}), `[{"_id": 2, "a": 16}, {"_id": 6, "a": 8}, {"_id": 8, "a": 9}]`)
		})
	}
}

// The raw insert path (RunCommandRaw, the wire server's) checks too.
func TestValidatorRawInsert(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"a": {"$type": "string"}}}`)
	var docs bson.A
	for _, d := range []bson.D{{{Key: "_id", Value: int32(1)}, {Key: "a", Value: int32(1)}}, {{Key: "_id", Value: int32(2)}, {Key: "a", Value: "s"}}} {
		raw, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, bson.Raw(raw))
	}
	r, err := db.RunCommandRaw(context.Background(), "test", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: docs}, {Key: "ordered", Value: false}})
	if err != nil {
		t.Fatal(err)
	}
	sameValue(t, "n", field(r, "n"), `1`)
	sameValue(t, "writeErrors.0", field(r, "writeErrors.0.errInfo.failingDocumentId"), `1`)
	sameValue(t, "docs", findAll(t, db, "test", "c", bson.D{}), `[{"_id": 2, "a": "s"}]`)

	// A raw document without an _id passes its check and is stored with
	// a generated ObjectId _id first.
	raw, err := bson.Marshal(bson.D{{Key: "a", Value: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.RunCommandRaw(context.Background(), "test", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.Raw(raw)}}}); err != nil {
		t.Fatal(err)
	}
	got := findAll(t, db, "test", "c", bson.D{{Key: "a", Value: "t"}})
	if len(got) != 1 {
		t.Fatalf("the raw document without an _id: %v", got)
	}
	if _, ok := got[0][0].Value.(bson.ObjectID); !ok || got[0][0].Key != "_id" {
		t.Fatalf("stored without a generated _id first: %v", got[0])
	}
}

// The Go API's inserts and updates are checked too, and errors.As finds
// the 121 with its errInfo.
func TestValidatorGoAPI(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"a": {"$type": "string"}}}`)
	c := db.Database("test").Collection("c")
	ctx := context.Background()
	_, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: "x"}, {Key: "a", Value: int32(1)}})
	var de *Error
	if !errors.As(err, &de) || de.Code != document.CodeDocumentValidationFailure {
		t.Fatalf("InsertOne of an invalid document: %v", err)
	}
	sameValue(t, "errInfo", de.Info["errInfo"], `{"failingDocumentId": "x", "details": {"operatorName": "$type",
		"specifiedAs": {"a": {"$type": "string"}}, "reason": "type did not match", "consideredValue": 1, "consideredType": "int"}}`)
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: "y"}, {Key: "a", Value: "s"}}); err != nil {
		t.Fatalf("valid InsertOne: %v", err)
	}
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: "y"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 2.5}}}}, false); document.CodeOf(err) != document.CodeDocumentValidationFailure {
		t.Fatalf("UpdateOne breaking the validator: %v", err)
	}
	// Bypassed through the context.
	bctx := WithBypassDocumentValidation(ctx)
	if _, err := c.InsertOne(bctx, bson.D{{Key: "_id", Value: "z"}, {Key: "a", Value: int32(1)}}); err != nil {
		t.Fatalf("InsertOne with bypass: %v", err)
	}
	if got := count(t, db, "test", "c"); got != 2 {
		t.Fatalf("count %d, want 2", got)
	}
}

// Validators mongod refuses are refused when they are set, by create
// and collMod, with its codes and messages.
func TestValidatorRefusedWhenSet(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "ok"}`)
	for _, tc := range []struct {
		opts string
		code document.Code
		frag string
	}{
		{`"validator": {"$where": "true"}`, document.CodeBadValue, "$where is not allowed in this context"},
		{`"validator": {"$or": [{"a": 1}, {"$text": {"$search": "a"}}]}`, document.CodeBadValue, "$text is not allowed in this context"},
		{`"validator": {"loc": {"$near": [0, 0]}}`, codeNearNotAllowed, "$geoNear, $near, and $nearSphere are not allowed in this context"},
		{`"validator": {"loc": {"$nearSphere": [0, 0]}}`, codeNearNotAllowed, "are not allowed in this context"},
		{`"validator": {"a": {"$foo": 1}}`, document.CodeBadValue, "unknown operator: $foo"},
		{`"validator": {"$foo": 1}`, document.CodeBadValue, "unknown top level operator: $foo"},
		{`"validator": 5`, document.CodeTypeMismatch, "BSON field '%s.validator' is the wrong type 'int', expected type 'object'"},
		{`"validationLevel": "sometimes"`, document.CodeBadValue, "Enumeration value 'sometimes' for field '%s.validationLevel' is not a valid value."},
		{`"validationLevel": 1`, document.CodeTypeMismatch, "BSON field '%s.validationLevel' is the wrong type 'int', expected type 'string'"},
		{`"validationAction": "shout"`, document.CodeBadValue, "Enumeration value 'shout' for field '%s.validationAction' is not a valid value."},
		// errorAndLog came after 7.0, the version ttlkv follows.
		{`"validationAction": "errorAndLog"`, document.CodeBadValue, "Enumeration value 'errorAndLog'"},
	} {
		wantCode(t, db, "test", `{"create": "x", `+tc.opts+`}`, tc.code, strings.ReplaceAll(tc.frag, "%s", "create"))
		wantCode(t, db, "test", `{"collMod": "ok", `+tc.opts+`}`, tc.code, strings.ReplaceAll(tc.frag, "%s", "collMod"))
	}
	if n := len(field(mustRun(t, db, "test", `{"listCollections": 1}`), "cursor.firstBatch").(bson.A)); n != 1 {
		t.Fatalf("collections after refused creates: %d, want 1", n)
	}
	sameValue(t, "options after refused collMods", field(mustRun(t, db, "test", `{"listCollections": 1}`), "cursor.firstBatch.0.options"), `{}`)
	// ttlkv refuses to create system collections at all (73), so the
	// system-collection rule is checked on the options alone.
	checkCode(t, "system.js", checkValidationOptions("create", "test", "system.js", catalog.UUID{}, ejson(t, `{"validator": {"a": 1}}`), time.Time{}),
		document.CodeInvalidOptions, "Document validators not allowed on system collection test.system.js")
	u := catalog.UUID{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0x4d, 0xef, 0x80, 1, 2, 3, 4, 5, 6, 7}
	checkCode(t, "system.js with a UUID", checkValidationOptions("collMod", "test", "system.js", u, ejson(t, `{"validator": {"a": 1}}`), time.Time{}),
		document.CodeInvalidOptions, "Document validators not allowed on system collection test.system.js with UUID 12345678-9abc-4def-8001-020304050607")
	// mongod names the collection's UUID (the one the create would
	// give it, or the collMod's collection's) in the refusal.
	uuidRe := regexp.MustCompile(`^Document validators are not allowed on collection (\w+)\.(\w+) with UUID ([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}) in the (\w+) internal database$`)
	for _, dbName := range []string{"admin", "local", "config"} {
		_, err := run(t, db, dbName, `{"create": "c", "validator": {"a": 1}}`)
		checkCode(t, "create on "+dbName, err, document.CodeInvalidOptions, "")
		if m := uuidRe.FindStringSubmatch(err.(*Error).Message); m == nil || m[1] != dbName || m[2] != "c" || m[4] != dbName {
			t.Errorf("create on %s: %v", dbName, err)
		}
	}
	mustRun(t, db, "admin", `{"create": "kept"}`)
	kept := listedUUIDs(t, db, "admin")["kept"]
	_, err := run(t, db, "admin", `{"collMod": "kept", "validator": {"a": 1}}`)
	checkCode(t, "collMod on admin", err, document.CodeInvalidOptions, "")
	if m := uuidRe.FindStringSubmatch(err.(*Error).Message); m == nil || strings.ReplaceAll(m[3], "-", "") != kept {
		t.Errorf("collMod on admin.kept (uuid %s): %v", kept, err)
	}
	// An empty validator is no validator, anywhere.
	mustRun(t, db, "admin", `{"create": "c2", "validator": {}}`)
}

// validationLevel off checks nothing, moderate leaves the updates of
// documents that were already invalid; collMod changes each setting
// for the next write, and listCollections shows them as mongod does.
func TestValidationLevelsAndCollMod(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 10}]}`)
	mustRun(t, db, "test", `{"collMod": "c", "validator": {"a": {"$gte": 5}}}`)
	sameValue(t, "options", field(mustRun(t, db, "test", `{"listCollections": 1}`), "cursor.firstBatch.0.options"),
		`{"validator": {"a": {"$gte": 5}}, "validationLevel": "strict", "validationAction": "error"}`)
	// strict: the invalid document 1 cannot be updated unless it becomes valid.
	r := mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"b": 1}}}]}`)
	sameValue(t, "strict update code", field(r, "writeErrors.0.code"), `121`)
	// An update that changes nothing writes nothing and is not checked.
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 1}}}]}`)
	sameValue(t, "no-op update", r, `{"n": 1, "nModified": 0, "ok": 1.0}`)

	mustRun(t, db, "test", `{"collMod": "c", "validationLevel": "moderate"}`)
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"b": 1}}}]}`)
	sameValue(t, "moderate update of an invalid document", r, `{"n": 1, "nModified": 1, "ok": 1.0}`)
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"a": 0}}}]}`)
	sameValue(t, "moderate update of a valid document", field(r, "writeErrors.0.code"), `121`)
	r = mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 3, "a": 0}]}`)
	sameValue(t, "moderate insert", field(r, "writeErrors.0.code"), `121`)

	mustRun(t, db, "test", `{"collMod": "c", "validationLevel": "off"}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 3, "a": 0}]}`)
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"a": 0}}}]}`)
	sameValue(t, "options", field(mustRun(t, db, "test", `{"listCollections": 1}`), "cursor.firstBatch.0.options"),
		`{"validator": {"a": {"$gte": 5}}, "validationLevel": "off", "validationAction": "error"}`)

	mustRun(t, db, "test", `{"collMod": "c", "validationLevel": "strict", "validator": {"b": {"$exists": true}}}`)
	r = mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 4, "a": 100}]}`)
	sameValue(t, "new validator details", field(r, "writeErrors.0.errInfo.details"),
		`{"operatorName": "$exists", "specifiedAs": {"b": {"$exists": true}}}`)
	// An empty validator removes the check.
	mustRun(t, db, "test", `{"collMod": "c", "validator": {}}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 4, "a": 100}]}`)
	if got := count(t, db, "test", "c"); got != 4 {
		t.Fatalf("count %d, want 4", got)
	}
}

// validationAction warn writes the document and logs its _id; a
// collMod back to error refuses the next one.
func TestValidationActionWarn(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var logs []string
	db, _, _ := openTestWith(t, func(o *Options) {
		inMemory(o)
		o.Logf = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, fmt.Sprintf(format, args...))
		}
	})
	mustRun(t, db, "test", `{"create": "c", "validator": {"a": 1}, "validationAction": "warn"}`)
	sameValue(t, "options", field(mustRun(t, db, "test", `{"listCollections": 1}`), "cursor.firstBatch.0.options"),
		`{"validator": {"a": 1}, "validationAction": "warn", "validationLevel": "strict"}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": "w1", "a": 2}]}`)
	sameValue(t, "warn insert", r, `{"n": 1, "ok": 1.0}`)
	mu.Lock()
	found := false
	for _, l := range logs {
		found = found || (strings.Contains(l, "failed validation") && strings.Contains(l, `"w1"`) && strings.Contains(l, "test.c"))
	}
	mu.Unlock()
	if !found {
		t.Fatalf("no warning naming the document's _id in %q", logs)
	}
	mustRun(t, db, "test", `{"collMod": "c", "validationAction": "error"}`)
	r = mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": "w2", "a": 2}]}`)
	sameValue(t, "error insert", field(r, "writeErrors.0.code"), `121`)
}

// bypassDocumentValidation: true skips the check on insert, update and
// findAndModify.
func TestBypassDocumentValidation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"a": {"$lt": 3}}}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 5}, {"_id": 2, "a": 1}], "bypassDocumentValidation": true}`)
	sameValue(t, "bypassed insert", r, `{"n": 2, "ok": 1.0}`)
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"a": 7}}}], "bypassDocumentValidation": true}`)
	sameValue(t, "bypassed update", r, `{"n": 1, "nModified": 1, "ok": 1.0}`)
	mustRun(t, db, "test", `{"findAndModify": "c", "query": {"_id": 3}, "update": {"$set": {"a": 9}}, "upsert": true, "bypassDocumentValidation": true}`)
	// false is the default: checked.
	r = mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 4, "a": 5}], "bypassDocumentValidation": false}`)
	sameValue(t, "not bypassed", field(r, "writeErrors.0.code"), `121`)
	sameValue(t, "docs", findAll(t, db, "test", "c", bson.D{}), `[{"_id": 1, "a": 5}, {"_id": 2, "a": 7}, {"_id": 3, "a": 9}]`)

	// A number is read by its truth and null counts as absent, as
	// mongod's safeBool; any other type is refused with 14 before
	// anything is written.
	r = mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 5, "a": 5}], "bypassDocumentValidation": 1}`)
	sameValue(t, "bypassed by 1", r, `{"n": 1, "ok": 1.0}`)
	r = mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 6, "a": 5}], "bypassDocumentValidation": 0.0}`)
	sameValue(t, "checked at 0", field(r, "writeErrors.0.code"), `121`)
	r = mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 6, "a": 5}], "bypassDocumentValidation": null}`)
	sameValue(t, "checked at null", field(r, "writeErrors.0.code"), `121`)
	for _, c := range []struct{ cmd, name, typ string }{
		{`{"insert": "c", "documents": [{"_id": 7, "a": 5}], "bypassDocumentValidation": "yes"}`, "insert", "string"},
		{`{"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"a": 8}}}], "bypassDocumentValidation": {}}`, "update", "object"},
		{`{"findAndModify": "c", "query": {"_id": 8}, "update": {"$set": {"a": 9}}, "upsert": true, "bypassDocumentValidation": [true]}`, "findAndModify", "array"},
		{`{"delete": "c", "deletes": [{"q": {"_id": 1}, "limit": 1}], "bypassDocumentValidation": "true"}`, "delete", "string"},
		{`{"aggregate": "c", "pipeline": [{"$out": "d"}], "cursor": {}, "bypassDocumentValidation": "true"}`, "aggregate", "string"},
	} {
		_, err := db.RunCommand(context.Background(), "test", mustDoc(t, c.cmd))
		want := "BSON field '" + c.name + ".bypassDocumentValidation' is the wrong type '" + c.typ + "', expected types '[bool, long, int, decimal, double]'"
		if ce := (*document.Error)(nil); !errors.As(err, &ce) || ce.Code != document.CodeTypeMismatch || ce.Message != want {
			t.Errorf("%s: got %v, want 14 %q", c.name, err, want)
		}
	}
	sameValue(t, "nothing written by a refused command", findAll(t, db, "test", "c", bson.D{}), `[{"_id": 1, "a": 5}, {"_id": 2, "a": 7}, {"_id": 3, "a": 9}, {"_id": 5, "a": 5}]`)
}

// errInfo's details for validators of several clauses, logical
// operators and $expr.
func TestValidationErrInfoDetails(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"a": {"$gt": 1}, "b": "x", "$or": [{"c": 1}, {"d": 1}]}}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 2, "b": "y", "c": 2}]}`)
	sameValue(t, "details", field(r, "writeErrors.0.errInfo.details"), `{"operatorName": "$and", "clausesNotSatisfied": [
		{"index": 1, "details": {"operatorName": "$eq", "specifiedAs": {"b": "x"}, "reason": "comparison failed", "consideredValue": "y"}},
		{"index": 2, "details": {"operatorName": "$or", "clausesNotSatisfied": [
			{"index": 0, "details": {"operatorName": "$eq", "specifiedAs": {"c": 1}, "reason": "comparison failed", "consideredValue": 2}},
			{"index": 1, "details": {"operatorName": "$eq", "specifiedAs": {"d": 1}, "reason": "field was missing"}}]}}]}`)
	mustRun(t, db, "test", `{"create": "e", "validator": {"$expr": {"$gt": ["$a", "$b"]}}}`)
	r = mustRun(t, db, "test", `{"insert": "e", "documents": [{"_id": 1, "a": 1, "b": 2}, {"_id": 2, "a": 3, "b": 2}], "ordered": false}`)
	sameValue(t, "$expr details", field(r, "writeErrors.0.errInfo.details"), `{"operatorName": "$expr",
		"specifiedAs": {"$expr": {"$gt": ["$a", "$b"]}}, "reason": "expression did not match", "expressionResult": false}`)
	sameValue(t, "$expr n", field(r, "n"), `1`)
}

// A validator is evaluated in the collection's default collation.
func TestValidatorUsesCollectionCollation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "collation": {"locale": "en", "strength": 2}, "validator": {"a": "x", "b": {"$in": ["p", "q"]}}}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": "X", "b": "Q"}, {"_id": 2, "a": "Y", "b": "q"}], "ordered": false}`)
	sameValue(t, "n", field(r, "n"), `1`)
	sameValue(t, "failing", field(r, "writeErrors.0.errInfo"), `{"failingDocumentId": 2, "details": {"operatorName": "$and",
		"clausesNotSatisfied": [{"index": 0, "details": {"operatorName": "$eq", "specifiedAs": {"a": "x"}, "reason": "comparison failed", "consideredValue": "Y"}}]}}`)
}
