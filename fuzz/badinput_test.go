package fuzz

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// badCase is one entry of the bad-input catalogue. The command is
// Extended JSON (json) or built in Go (cmd, for inputs JSON cannot
// carry cheaply, like a 16 MiB document). A case with code 0 must be
// accepted; undo then restores the state it changed, so the checksum
// of everything must still match. A case with a code must fail with
// it, its message must contain frag, and nothing may change.
type badCase struct {
	name string
	db   string // default "b"; emptyDB for ""
	json string
	cmd  bson.D
	code document.Code
	frag string
	undo string // JSON command run on db after an accepted case
	// writeErr: the command succeeds with ok 1 but reports this code in
	// writeErrors (inserts).
	writeErr document.Code
}

// emptyDB stands for the empty database name in badCase.db.
const emptyDB = "<empty>"

// badSetup is the data every case runs against.
var badSetup = []string{
	`{"insert": "c", "documents": [{"_id": 1, "exp": {"$date": "2026-01-01T00:00:00Z"}, "x": 1, "a": 1, "b": 2}, {"_id": 2, "x": [1, 2], "s": "str"}, {"_id": 3}]}`,
	`{"createIndexes": "c", "indexes": [{"key": {"exp": 1}, "name": "exp_1", "expireAfterSeconds": 3600}, {"key": {"x": 1}, "name": "x_1"}, {"key": {"x": 1}, "name": "x_partial", "partialFilterExpression": {"a": {"$exists": true}}}, {"key": {"a": 1, "b": -1}, "name": "a_1_b_-1"}]}`,
	`{"insert": "n", "documents": [{"_id": "k", "v": 1}]}`,
}

func str(n int, c byte) string { return strings.Repeat(string(c), n) }

// nested returns {a: {a: ... {a: 1}}} with depth levels of fields.
func nested(depth int) bson.D {
	d := bson.D{{Key: "a", Value: int32(1)}}
	for i := 1; i < depth; i++ {
		d = bson.D{{Key: "a", Value: d}}
	}
	return d
}

// docOfSize returns {_id: id, s: "ppp..."} encoded in exactly n bytes.
func docOfSize(id int32, n int) bson.D {
	// 4 length + 1 NUL + (1+4+4 int32 _id) + (1+2 "s" + 4 len + 1 NUL) = 22.
	d := bson.D{{Key: "_id", Value: id}, {Key: "s", Value: str(n-22, 'p')}}
	if document.Size(d) != n {
		panic(fmt.Sprintf("docOfSize: %d != %d", document.Size(d), n))
	}
	return d
}

func insertCmd(docs ...bson.D) bson.D {
	a := bson.A{}
	for _, d := range docs {
		a = append(a, d)
	}
	return bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: a}}
}

func badCases() []badCase {
	ns255 := str(255-len("b."), 'c') // "b." + 253 bytes = 255
	cases := []badCase{
		// §0 names.
		{name: "db name 63 chars", db: str(63, 'd'), json: `{"create": "x"}`, undo: `{"dropDatabase": 1}`},
		{name: "db name 64 chars", db: str(64, 'd'), json: `{"create": "x"}`, code: document.CodeInvalidNamespace},
		{name: "db name empty", db: emptyDB, json: `{"create": "x"}`, code: document.CodeInvalidNamespace},
		{name: "namespace 255 bytes", json: `{"create": "` + ns255 + `"}`, undo: `{"drop": "` + ns255 + `"}`},
		{name: "namespace 256 bytes", json: `{"create": "` + ns255 + `c"}`, code: document.CodeInvalidNamespace},
		{name: "insert into namespace 256 bytes", json: `{"insert": "` + ns255 + `c", "documents": [{}]}`, code: document.CodeInvalidNamespace},
		{name: "collection name empty", json: `{"create": ""}`, code: document.CodeInvalidNamespace},
		{name: "collection name with $", json: `{"create": "a$b"}`, code: document.CodeInvalidNamespace},
		{name: "collection name with NUL", json: `{"create": "a\u0000b"}`, code: document.CodeInvalidNamespace},
		{name: "collection name system.", json: `{"create": "system.x"}`, code: document.CodeInvalidNamespace},
		{name: "insert into system.", json: `{"insert": "system.x", "documents": [{}]}`, code: document.CodeInvalidNamespace},
		// §0 documents.
		{name: "document of 16 MiB", cmd: insertCmd(docOfSize(100, document.MaxDocumentSize)), undo: `{"delete": "c", "deletes": [{"q": {"_id": 100}, "limit": 1}]}`},
		{name: "document of 16 MiB + 1", cmd: insertCmd(docOfSize(100, document.MaxDocumentSize+1)), writeErr: document.CodeBadValue},
		{name: "update growing a document past 16 MiB", cmd: bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{
			{Key: "q", Value: bson.D{{Key: "_id", Value: int32(3)}}},
			{Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: str(document.MaxDocumentSize, 'q')}}}}}}}}},
			writeErr: document.CodeBSONObjectTooLarge},
		{name: "nesting 100 levels", cmd: insertCmd(append(bson.D{{Key: "_id", Value: int32(101)}}, nested(100)...)), undo: `{"delete": "c", "deletes": [{"q": {"_id": 101}, "limit": 1}]}`},
		{name: "nesting 101 levels", cmd: insertCmd(append(bson.D{{Key: "_id", Value: int32(101)}}, nested(101)...)), writeErr: document.CodeOverflow},
		{name: "_id array", json: `{"insert": "c", "documents": [{"_id": [1]}]}`, writeErr: document.CodeInvalidIDField},
		{name: "_id regex", json: `{"insert": "c", "documents": [{"_id": {"$regularExpression": {"pattern": "a", "options": ""}}}]}`, writeErr: document.CodeInvalidIDField},
		{name: "_id undefined", json: `{"insert": "c", "documents": [{"_id": {"$undefined": true}}]}`, writeErr: document.CodeInvalidIDField},
		{name: "field name with NUL", json: `{"insert": "c", "documents": [{"_id": 9, "a\u0000b": 1}]}`, writeErr: document.CodeBadValue},
		{name: "duplicate _id", json: `{"insert": "c", "documents": [{"_id": 1}]}`, writeErr: document.CodeDuplicateKey},
		{name: "update changing _id", json: `{"update": "c", "updates": [{"q": {"_id": 3}, "u": {"_id": [3]}}]}`, writeErr: document.CodeImmutableField},
		{name: "upsert inserting an array _id", json: `{"update": "c", "updates": [{"q": {"z": 1}, "u": {"_id": [1], "z": 1}, "upsert": true}]}`, writeErr: document.CodeInvalidIDField},
		// §1 TTL index creation.
		{name: "expireAfterSeconds 0", json: `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 0}]}`, undo: `{"dropIndexes": "c", "index": "t_1"}`},
		{name: "expireAfterSeconds 2147483647", json: `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 2147483647}]}`, undo: `{"dropIndexes": "c", "index": "t_1"}`},
		{name: "expireAfterSeconds 3600.9", json: `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 3600.9}]}`, undo: `{"dropIndexes": "c", "index": "t_1"}`},
		{name: "expireAfterSeconds 2147483648", json: ttlSpec(`2147483648`), code: document.CodeCannotCreateIndex, frag: "within the range of a 32-bit integer"},
		{name: "expireAfterSeconds 999999999999999", json: ttlSpec(`999999999999999`), code: document.CodeCannotCreateIndex, frag: "within the range of a 32-bit integer"},
		{name: "expireAfterSeconds 2^63", json: ttlSpec(`{"$numberDouble": "9.223372036854775808E18"}`), code: document.CodeCannotCreateIndex, frag: "within the range of a 32-bit integer"},
		{name: "expireAfterSeconds -2147483649", json: ttlSpec(`-2147483649`), code: document.CodeCannotCreateIndex, frag: "within the range of a 32-bit integer"},
		{name: "expireAfterSeconds -1", json: ttlSpec(`-1`), code: document.CodeCannotCreateIndex, frag: "cannot be less than 0"},
		{name: "expireAfterSeconds string", json: ttlSpec(`"60"`), code: document.CodeCannotCreateIndex, frag: "must be numeric"},
		{name: "expireAfterSeconds bool", json: ttlSpec(`true`), code: document.CodeCannotCreateIndex, frag: "must be numeric"},
		{name: "expireAfterSeconds null", json: ttlSpec(`null`), code: document.CodeCannotCreateIndex, frag: "must be numeric"},
		{name: "expireAfterSeconds object", json: ttlSpec(`{}`), code: document.CodeCannotCreateIndex, frag: "must be numeric"},
		{name: "expireAfterSeconds NaN", json: ttlSpec(`{"$numberDouble": "NaN"}`), code: document.CodeCannotCreateIndex, frag: "must not be NaN"},
		{name: "TTL compound", json: `{"createIndexes": "c", "indexes": [{"key": {"t": 1, "u": 1}, "name": "tu", "expireAfterSeconds": 60}]}`, code: document.CodeCannotCreateIndex, frag: "compound indexes do not support TTL"},
		{name: "TTL wildcard", json: `{"createIndexes": "c", "indexes": [{"key": {"$**": 1}, "name": "w", "expireAfterSeconds": 60}]}`, code: document.CodeCannotCreateIndex, frag: "expireAfterSeconds"},
		{name: "TTL on _id", json: `{"createIndexes": "c", "indexes": [{"key": {"_id": 1}, "name": "id_ttl", "expireAfterSeconds": 60}]}`, code: document.CodeInvalidIndexSpecificationOption, frag: "is not valid for an _id index specification"},
		{name: "one invalid spec of two creates none", json: `{"createIndexes": "c", "indexes": [{"key": {"ok": 1}, "name": "ok_1"}, {"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": -1}]}`, code: document.CodeCannotCreateIndex},
		{name: "TTL sparse with partial filter", json: `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60, "sparse": true, "partialFilterExpression": {"a": 1}}]}`, code: document.CodeCannotCreateIndex},
		{name: "same key and name, other expireAfterSeconds", json: `{"createIndexes": "c", "indexes": [{"key": {"exp": 1}, "name": "exp_1", "expireAfterSeconds": 60}]}`, code: document.CodeIndexOptionsConflict, frag: "already exists with the same name but different options"},
		{name: "TTL over an existing non-TTL index", json: `{"createIndexes": "c", "indexes": [{"key": {"x": 1}, "name": "x_1", "expireAfterSeconds": 60}]}`, code: document.CodeIndexOptionsConflict},
		{name: "identical spec", json: `{"createIndexes": "c", "indexes": [{"key": {"exp": 1}, "name": "exp_1", "expireAfterSeconds": 3600}]}`},
		{name: "unknown index option", json: `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "bogus": 1}]}`, code: document.CodeInvalidIndexSpecificationOption},
		// §3.1 and §4.1 parameters.
		{name: "ttlMonitorSleepSecs 1", db: "admin", json: `{"setParameter": 1, "ttlMonitorSleepSecs": 1}`, undo: `{"setParameter": 1, "ttlMonitorSleepSecs": 60}`},
		{name: "ttlIndexDeleteTargetDocs 0", db: "admin", json: `{"setParameter": 1, "ttlIndexDeleteTargetDocs": 0}`, undo: `{"setParameter": 1, "ttlIndexDeleteTargetDocs": 50000}`},
		{name: "delete limit 2", json: `{"delete": "c", "deletes": [{"q": {}, "limit": 2}]}`, code: document.CodeFailedToParse, frag: "must be 0 or 1"},
		{name: "unknown command", json: `{"noSuchCommand": 1}`, code: document.CodeCommandNotFound},
		// Reading commands: aggregate, distinct; renameCollection.
		{name: "aggregate without cursor", json: `{"aggregate": "c", "pipeline": []}`, code: document.CodeFailedToParse},
		{name: "aggregate unknown stage", json: `{"aggregate": "c", "pipeline": [{"$nope": 1}], "cursor": {}}`, code: document.Code(40324)},
		{name: "aggregate stage with two fields", json: `{"aggregate": "c", "pipeline": [{"$match": {}, "$limit": 1}], "cursor": {}}`, code: document.Code(40323)},
		{name: "aggregate unknown operator", json: `{"aggregate": "c", "pipeline": [{"$project": {"a": {"$nope": 1}}}], "cursor": {}}`, code: document.Code(168)},
		{name: "aggregate divide by zero", json: `{"aggregate": "c", "pipeline": [{"$project": {"a": {"$divide": [1, 0]}}}], "cursor": {}}`, code: document.CodeBadValue},
		{name: "aggregate group without _id", json: `{"aggregate": "c", "pipeline": [{"$group": {"n": {"$sum": 1}}}], "cursor": {}}`, code: document.Code(15955)},
		{name: "aggregate $out not last", json: `{"aggregate": "c", "pipeline": [{"$out": "d"}, {"$match": {}}], "cursor": {}}`, code: document.Code(40601)},
		{name: "aggregate $merge mode", json: `{"aggregate": "c", "pipeline": [{"$merge": {"into": "c", "whenMatched": "keepExisting", "whenNotMatched": "fail"}}], "cursor": {}}`, code: document.Code(51181)},
		{name: "distinct key not a string", json: `{"distinct": "c", "key": 1}`, code: document.CodeTypeMismatch},
		{name: "renameCollection outside admin", json: `{"renameCollection": "b.c", "to": "b.d"}`, code: document.Code(13)},
		{name: "renameCollection of a missing collection", db: "admin", json: `{"renameCollection": "b.nope", "to": "b.d"}`, code: document.CodeNamespaceNotFound},
		{name: "renameCollection onto itself", db: "admin", json: `{"renameCollection": "b.c", "to": "b.c"}`, code: document.CodeIllegalOperation},
		// §5 collMod.
		{name: "collMod string expireAfterSeconds", json: `{"collMod": "c", "index": {"name": "exp_1", "expireAfterSeconds": "1"}}`, code: document.CodeTypeMismatch},
		{name: "collMod negative", json: `{"collMod": "c", "index": {"name": "exp_1", "expireAfterSeconds": -1}}`, code: document.CodeInvalidOptions, frag: "cannot be less than 0"},
		{name: "collMod name and keyPattern", json: `{"collMod": "c", "index": {"name": "exp_1", "keyPattern": {"exp": 1}, "expireAfterSeconds": 5}}`, code: document.CodeInvalidOptions, frag: "Cannot specify both key pattern and name."},
		{name: "collMod neither", json: `{"collMod": "c", "index": {"expireAfterSeconds": 5}}`, code: document.CodeInvalidOptions, frag: "Must specify either index name or key pattern."},
		{name: "collMod nothing to change", json: `{"collMod": "c", "index": {"name": "exp_1"}}`, code: document.CodeInvalidOptions},
		{name: "collMod compound", json: `{"collMod": "c", "index": {"name": "a_1_b_-1", "expireAfterSeconds": 5}}`, code: document.CodeInvalidOptions, frag: "compound indexes do not support TTL"},
		{name: "collMod _id", json: `{"collMod": "c", "index": {"name": "_id_", "expireAfterSeconds": 5}}`, code: document.CodeInvalidOptions, frag: "the _id field does not support TTL indexes"},
		{name: "collMod unknown index", json: `{"collMod": "c", "index": {"name": "nope", "expireAfterSeconds": 5}}`, code: document.CodeIndexNotFound},
		{name: "collMod ambiguous key pattern", json: `{"collMod": "c", "index": {"keyPattern": {"x": 1}, "expireAfterSeconds": 5}}`, code: document.CodeAmbiguousIndexKeyPattern},
		{name: "collMod missing collection", json: `{"collMod": "nope", "index": {"name": "exp_1", "expireAfterSeconds": 5}}`, code: document.CodeNamespaceNotFound},
		{name: "collMod expireAfterSeconds on a plain collection", json: `{"collMod": "c", "expireAfterSeconds": 10}`, code: document.CodeInvalidOptions, frag: "only supported on collections clustered by _id"},
		{name: "collMod same expireAfterSeconds", json: `{"collMod": "c", "index": {"name": "exp_1", "expireAfterSeconds": 3600}}`},
	}
	for _, p := range []struct {
		name string
		bad  []string
	}{
		{"ttlMonitorEnabled", []string{`"yes"`, `null`, `{}`}},
		{"ttlMonitorSleepSecs", []string{`0`, `-1`, `"5"`, `1.5`, `{"$numberDouble": "NaN"}`}},
		{"ttlMonitorSubPassTargetSecs", []string{`-1`, `"x"`}},
		{"ttlIndexDeleteTargetTimeMS", []string{`-1`, `true`}},
		{"ttlIndexDeleteTargetDocs", []string{`-1`, `[1]`}},
		{"ttlMonitorBatchDeletes", []string{`"false"`}},
		{"batchedDeletesTargetBatchDocs", []string{`-1`, `"10"`}},
		{"batchedDeletesTargetBatchTimeMS", []string{`-1`}},
		{"batchedDeletesTargetStagedDocBytes", []string{`-1`}},
	} {
		for _, v := range p.bad {
			cases = append(cases, badCase{name: p.name + " " + v, db: "admin",
				json: `{"setParameter": 1, "` + p.name + `": ` + v + `}`, code: document.CodeBadValue})
		}
	}
	for _, c := range []byte("/\\. \"$\x00") {
		cases = append(cases, badCase{name: fmt.Sprintf("db name with %q", c), db: "a" + string(c) + "b", json: `{"create": "x"}`, code: document.CodeInvalidNamespace})
	}
	return append(cases, specialBadCases()...)
}

func ttlSpec(v string) string {
	return `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": ` + v + `}]}`
}

// checksum hashes everything a command could change: every database,
// collection, collection option, index and document, and every server
// parameter.
func checksum(t *testing.T, db *engine.DB) string {
	t.Helper()
	ctx := context.Background()
	h := sha256.New()
	for _, dn := range db.DatabaseNames() {
		r, err := db.RunCommand(ctx, dn, bson.D{{Key: "listCollections", Value: 1}})
		if err != nil {
			t.Fatalf("listCollections %s: %v", dn, err)
		}
		fmt.Fprintf(h, "db %s %v\n", dn, lookup(lookup(r, "cursor").(bson.D), "firstBatch"))
		names, err := db.Database(dn).ListCollectionNames(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, cn := range names {
			c := db.Database(dn).Collection(cn)
			ix, err := c.ListIndexes(ctx)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(h, "coll %s %v\n", cn, ix)
			cur, err := c.Find(ctx, bson.D{})
			if err != nil {
				t.Fatal(err)
			}
			docs, err := cur.All(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				b, err := document.Marshal(d)
				if err != nil {
					t.Fatal(err)
				}
				h.Write(b)
			}
		}
	}
	r, err := db.RunCommand(ctx, "admin", bson.D{{Key: "getParameter", Value: "*"}})
	if err != nil {
		t.Fatalf("getParameter: %v", err)
	}
	fmt.Fprintf(h, "params %v\n", r)
	return hex.EncodeToString(h.Sum(nil))
}

// TestBadInput runs the catalogue of docs/commands.md §0 limits (at the limit:
// accepted; one past: rejected) and the invalid options of §1, §3–§5
// that the engine has today. Every rejected call must carry the right
// code (in the error and the reply) and change nothing; every accepted
// one is undone and must leave the same checksum; every collection
// validates at the end, after a reopen.
func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clock := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	db, err := engine.Open(dir, engine.Options{DisableTTLMonitor: true, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	ctx := context.Background()
	runJSON := func(dbName, js string) (bson.D, error) {
		cmd, err := document.ParseExtJSON([]byte(js))
		if err != nil {
			t.Fatalf("bad test JSON %s: %v", js, err)
		}
		return db.RunCommand(ctx, dbName, cmd)
	}
	for _, s := range append(badSetup, specialSetup...) {
		if _, err := runJSON("b", s); err != nil {
			t.Fatalf("setup %s: %v", s, err)
		}
	}
	for _, tc := range badCases() {
		t.Run(tc.name, func(t *testing.T) {
			dbName := tc.db
			switch dbName {
			case "":
				dbName = "b"
			case emptyDB:
				dbName = ""
			}
			before := checksum(t, db)
			cmd := tc.cmd
			if cmd == nil {
				var err error
				if cmd, err = document.ParseExtJSON([]byte(tc.json)); err != nil {
					t.Fatalf("bad test JSON: %v", err)
				}
			}
			reply, err := db.RunCommand(ctx, dbName, cmd)
			switch {
			case tc.code != 0:
				var e *document.Error
				if !errors.As(err, &e) {
					t.Fatalf("err = %v, want code %d %s", err, tc.code, tc.code)
				}
				if e.Code != tc.code {
					t.Fatalf("code %d %s, want %d %s; message %q", e.Code, e.Code, tc.code, tc.code, e.Message)
				}
				if !strings.Contains(e.Message, tc.frag) {
					t.Errorf("message %q does not contain %q", e.Message, tc.frag)
				}
				if c := lookup(reply, "code"); c != int32(tc.code) {
					t.Errorf("reply code %v, want %d", c, tc.code)
				}
			case tc.writeErr != 0:
				if err != nil {
					t.Fatalf("err = %v, want ok 1 with a write error %d", err, tc.writeErr)
				}
				we, _ := lookup(reply, "writeErrors").(bson.A)
				if len(we) != 1 {
					t.Fatalf("writeErrors = %v, want one", lookup(reply, "writeErrors"))
				}
				if c := lookup(we[0].(bson.D), "code"); c != int32(tc.writeErr) {
					t.Fatalf("write error %v, want code %d %s", we[0], tc.writeErr, tc.writeErr)
				}
				if tc.writeErr == document.CodeDuplicateKey {
					for _, k := range []string{"keyPattern", "keyValue"} {
						if lookup(we[0].(bson.D), k) == nil {
							t.Errorf("duplicate key error %v has no %s", we[0], k)
						}
					}
				}
			default:
				if err != nil {
					t.Fatalf("rejected at the limit: %v", err)
				}
				if tc.undo != "" {
					if _, err := runJSON(dbName, tc.undo); err != nil {
						t.Fatalf("undo %s: %v", tc.undo, err)
					}
				}
			}
			if after := checksum(t, db); after != before {
				t.Errorf("state changed: checksum %s before, %s after", before[:12], after[:12])
			}
		})
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = engine.Open(dir, engine.Options{DisableTTLMonitor: true, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	validateAll(t, db, "after the catalogue")
}

// TestBadInputIndexLimit creates indexes up to the limit of 64 per
// collection (accepted) and one more (67 CannotCreateIndex, nothing
// created).
func TestBadInputIndexLimit(t *testing.T) {
	t.Parallel()
	db, err := engine.Open("", engine.Options{InMemory: true, DisableTTLMonitor: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	c := db.Database("b").Collection("lim")
	var specs []bson.D
	for i := 1; i < 64; i++ { // _id_ is the first of 64
		specs = append(specs, bson.D{{Key: "key", Value: bson.D{{Key: fmt.Sprintf("f%d", i), Value: int32(1)}}}, {Key: "name", Value: fmt.Sprintf("f%d", i)}})
	}
	if _, err := c.CreateIndexes(ctx, specs); err != nil {
		t.Fatalf("64 indexes rejected: %v", err)
	}
	before := checksum(t, db)
	_, err = c.CreateIndexes(ctx, []bson.D{{{Key: "key", Value: bson.D{{Key: "g", Value: int32(1)}}}, {Key: "name", Value: "g"}}})
	if document.CodeOf(err) != document.CodeCannotCreateIndex {
		t.Fatalf("65th index: err %v, want 67 CannotCreateIndex", err)
	}
	if checksum(t, db) != before {
		t.Fatal("the rejected 65th index changed the state")
	}
	validateAll(t, db, "index limit")
}
