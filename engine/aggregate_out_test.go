package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// docsOf returns the documents of dbName.coll by _id, as Extended JSON
// (canonical), for comparing whole collections.
func docsOf(t *testing.T, db *DB, dbName, coll string) string {
	t.Helper()
	r := mustRun(t, db, dbName, `{"find": "`+coll+`", "sort": {"_id": 1}}`)
	b, err := bson.MarshalExtJSON(bson.D{{Key: "x", Value: field(r, "cursor.firstBatch")}}, true, false)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(strings.TrimPrefix(string(b), `{"x":`), "}")
}

// collNames lists dbName's collections.
func collNames(t *testing.T, db *DB, dbName string) []string {
	t.Helper()
	names, err := db.Database(dbName).ListCollectionNames(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestAggregateOut checks $out: the target is replaced by the results,
// keeps its indexes and options, changes all at once (a duplicate _id
// leaves it as it was and no temporary collection behind), may be in
// another database or not exist yet, and is refused where mongod refuses
// it.
func TestAggregateOut(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "src", "documents": [{"_id": 1, "k": "a", "v": 1}, {"_id": 2, "k": "b", "v": 2}, {"_id": 3, "k": "a", "v": 3}]}`)
	mustRun(t, db, "test", `{"insert": "t", "documents": [{"_id": "old"}]}`)
	mustRun(t, db, "test", `{"createIndexes": "t", "indexes": [{"key": {"total": 1}, "name": "total_1", "unique": true}, {"key": {"at": 1}, "name": "at_1", "expireAfterSeconds": 60}]}`)

	r := mustRun(t, db, "test", `{"aggregate": "src", "pipeline": [{"$group": {"_id": "$k", "total": {"$sum": "$v"}}}, {"$out": "t"}], "cursor": {}}`)
	if id, batch := checkCursorShape(t, "$out", field(r, "cursor"), "firstBatch"); id != 0 || len(batch) != 0 {
		t.Fatalf("$out reply: %v, want an empty, closed cursor", r)
	}
	if got, want := docsOf(t, db, "test", "t"), `[{"_id":"a","total":{"$numberInt":"4"}},{"_id":"b","total":{"$numberInt":"2"}}]`; got != want {
		t.Fatalf("after $out: %s, want %s", got, want)
	}
	ix, err := db.Database("test").Collection("t").ListIndexes(context.Background())
	if err != nil || len(ix) != 3 || field(ix[1], "name") != "total_1" || field(ix[1], "unique") != true || field(ix[2], "expireAfterSeconds") != int32(60) {
		t.Fatalf("indexes after $out: %v, %v; want _id_, total_1 (unique) and at_1 (TTL) kept", ix, err)
	}

	// A duplicate _id fails the command and leaves the target whole.
	before := docsOf(t, db, "test", "t")
	wantCode(t, db, "test", `{"aggregate": "src", "pipeline": [{"$project": {"_id": "$k"}}, {"$out": "t"}], "cursor": {}}`, document.CodeDuplicateKey, "")
	// So does a result the target's unique index refuses.
	wantCode(t, db, "test", `{"aggregate": "src", "pipeline": [{"$project": {"total": "x"}}, {"$out": "t"}], "cursor": {}}`, document.CodeDuplicateKey, "")
	if got := docsOf(t, db, "test", "t"); got != before {
		t.Fatalf("a failed $out changed the target: %s, was %s", got, before)
	}
	for _, n := range collNames(t, db, "test") {
		if strings.HasPrefix(n, tmpOutPrefix) {
			t.Fatalf("a failed $out left %s behind", n)
		}
	}

	// Another database; a target that does not exist; no results at all.
	mustRun(t, db, "test", `{"aggregate": "src", "pipeline": [{"$match": {"k": "b"}}, {"$out": {"db": "other", "coll": "x"}}], "cursor": {}}`)
	if got := docsOf(t, db, "other", "x"); got != `[{"_id":{"$numberInt":"2"},"k":"b","v":{"$numberInt":"2"}}]` {
		t.Fatalf("$out to other.x: %s", got)
	}
	mustRun(t, db, "test", `{"aggregate": "src", "pipeline": [{"$match": {"k": "zz"}}, {"$out": "empty"}], "cursor": {}}`)
	if n := collNames(t, db, "test"); !strings.Contains(strings.Join(n, ","), "empty") || count(t, db, "test", "empty") != 0 {
		t.Fatalf("$out of nothing: collections %v, want an empty collection 'empty'", n)
	}
	// $out over its own source reads it all first.
	mustRun(t, db, "test", `{"aggregate": "src", "pipeline": [{"$set": {"v": {"$multiply": ["$v", 10]}}}, {"$out": "src"}], "cursor": {}}`)
	if got := docsOf(t, db, "test", "src"); !strings.Contains(got, `"v":{"$numberInt":"30"}`) || count(t, db, "test", "src") != 3 {
		t.Fatalf("$out over its source: %s", got)
	}

	// The embedded API writes too and returns no documents.
	cur, err := db.Database("test").Collection("src").Aggregate(context.Background(), bson.A{bson.D{{Key: "$out", Value: "api"}}})
	if err != nil {
		t.Fatal(err)
	}
	if cur.Next(context.Background()) || count(t, db, "test", "api") != 3 {
		t.Fatalf("Collection.Aggregate with $out: a document came back, or api has %d documents", count(t, db, "test", "api"))
	}

	mustRun(t, db, "test", `{"create": "capped", "capped": true, "size": 4096}`)
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "at"}}`)
	refusals := []struct {
		pipeline string
		code     document.Code
	}{
		{`[{"$out": "capped"}]`, 17152},
		{`[{"$merge": "ts"}]`, document.CodeCommandNotSupportedOnView},
		{`[{"$out": "t"}, {"$match": {}}]`, 40601},
		{`[{"$out": 1}]`, 16990},
		{`[{"$out": {"coll": "x", "bogus": 1}}]`, document.CodeIDLUnknownField},
		{`[{"$out": {"db": "test"}}]`, document.CodeIDLFailedToParse},
		{`[{"$out": "system.x"}]`, document.CodeInvalidNamespace},
		{`[{"$out": {"coll": "capped", "timeseries": {"timeField": "at"}}}]`, 7268700},
		{`[{"$facet": {"a": [{"$out": "x"}]}}]`, 40600},
		{`[{"$lookup": {"from": "t", "pipeline": [{"$out": "x"}], "as": "l"}}]`, 51047},
		{`[{"$unionWith": {"coll": "t", "pipeline": [{"$out": "x"}]}}]`, 31441},
	}
	for _, c := range refusals {
		wantCode(t, db, "test", `{"aggregate": "src", "pipeline": `+c.pipeline+`, "cursor": {}}`, c.code, "")
	}
	// The target's validator checks the results, unless bypassed.
	mustRun(t, db, "test", `{"create": "valid", "validator": {"v": {"$type": "string"}}}`)
	wantCode(t, db, "test", `{"aggregate": "src", "pipeline": [{"$out": "valid"}], "cursor": {}}`, document.CodeDocumentValidationFailure, "")
	wantCode(t, db, "test", `{"aggregate": "src", "pipeline": [{"$merge": "valid"}], "cursor": {}}`, document.CodeDocumentValidationFailure, "")
	if n := count(t, db, "test", "valid"); n != 0 {
		t.Fatalf("refused results were written: %d", n)
	}
	mustRun(t, db, "test", `{"aggregate": "src", "pipeline": [{"$out": "valid"}], "cursor": {}, "bypassDocumentValidation": true}`)
	if n := count(t, db, "test", "valid"); n != 3 {
		t.Fatalf("$out with bypassDocumentValidation wrote %d documents, want 3", n)
	}

	// Explain lists $out as mongod serializes it ({db, coll}) and writes
	// nothing.
	r = mustRun(t, db, "test", `{"aggregate": "src", "pipeline": [{"$out": "explained"}], "explain": true}`)
	if st := field(r, "stages").(bson.A); field(st[len(st)-1].(bson.D), "$out.coll") != "explained" ||
		field(st[len(st)-1].(bson.D), "$out.db") != "test" || count(t, db, "test", "explained") != 0 {
		t.Fatalf("explain of $out: %v", r)
	}
}

// TestAggregateOutLeftover checks that a $out's temporary collection a
// crash left behind is gone after the next open.
func TestAggregateOutLeftover(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"insert": "`+tmpOutPrefix+`abc", "documents": [{"_id": 1}]}`)
	mustRun(t, db, "test", `{"insert": "kept", "documents": [{"_id": 1}]}`)
	db = reopen(t, db, dir, clk)
	if n := collNames(t, db, "test"); len(n) != 1 || n[0] != "kept" {
		t.Fatalf("after reopen: %v, want only kept", n)
	}
}

// TestAggregateMerge checks $merge's modes as mongod runs them, the
// rollup a TTL user writes (counts merged into a summary before the raw
// documents expire), matching on other fields through a unique index,
// and the refusals.
func TestAggregateMerge(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "ev", "documents": [{"_id": 1, "k": "a", "n": 1}, {"_id": 2, "k": "b", "n": 2}, {"_id": 3, "k": "a", "n": 3}]}`)
	agg := func(pipeline string) {
		t.Helper()
		r := mustRun(t, db, "test", `{"aggregate": "ev", "pipeline": `+pipeline+`, "cursor": {}}`)
		if id, batch := checkCursorShape(t, "$merge", field(r, "cursor"), "firstBatch"); id != 0 || len(batch) != 0 {
			t.Fatalf("$merge reply: %v, want an empty, closed cursor", r)
		}
	}
	expect := func(what, coll, want string) {
		t.Helper()
		if got := docsOf(t, db, "test", coll); got != want {
			t.Fatalf("%s: %s, want %s", what, got, want)
		}
	}

	// The rollup: run twice, the counts add up.
	rollup := `[{"$group": {"_id": "$k", "n": {"$sum": "$n"}}}, {"$merge": {"into": "sum", "whenMatched": [{"$set": {"n": {"$add": ["$n", "$$new.n"]}}}], "whenNotMatched": "insert"}}]`
	agg(rollup)
	expect("first rollup", "sum", `[{"_id":"a","n":{"$numberInt":"4"}},{"_id":"b","n":{"$numberInt":"2"}}]`)
	agg(rollup)
	expect("second rollup", "sum", `[{"_id":"a","n":{"$numberInt":"8"}},{"_id":"b","n":{"$numberInt":"4"}}]`)

	// Defaults: merge into a match (mongod's kDefaultWhenMatched is
	// merge), insert the rest.
	mustRun(t, db, "test", `{"insert": "r", "documents": [{"_id": 1, "old": true}, {"_id": 9, "keep": 1}]}`)
	agg(`[{"$match": {"k": "a"}}, {"$merge": "r"}]`)
	expect("merge/insert", "r", `[{"_id":{"$numberInt":"1"},"old":true,"k":"a","n":{"$numberInt":"1"}},{"_id":{"$numberInt":"3"},"k":"a","n":{"$numberInt":"3"}},{"_id":{"$numberInt":"9"},"keep":{"$numberInt":"1"}}]`)

	// merge: the result's fields over the match's.
	mustRun(t, db, "test", `{"insert": "m", "documents": [{"_id": 1, "x": 1, "n": 0}]}`)
	agg(`[{"$match": {"_id": {"$lte": 2}}}, {"$merge": {"into": "m", "whenMatched": "merge", "whenNotMatched": "discard"}}]`)
	expect("merge/discard", "m", `[{"_id":{"$numberInt":"1"},"x":{"$numberInt":"1"},"n":{"$numberInt":"1"},"k":"a"}]`)

	// keepExisting: a match stays, the rest is inserted.
	agg(`[{"$merge": {"into": "m", "whenMatched": "keepExisting"}}]`)
	expect("keepExisting", "m", `[{"_id":{"$numberInt":"1"},"x":{"$numberInt":"1"},"n":{"$numberInt":"1"},"k":"a"},{"_id":{"$numberInt":"2"},"k":"b","n":{"$numberInt":"2"}},{"_id":{"$numberInt":"3"},"k":"a","n":{"$numberInt":"3"}}]`)

	// fail on a match: a duplicate key, and what came before it stays.
	mustRun(t, db, "test", `{"insert": "f", "documents": [{"_id": 2}]}`)
	wantCode(t, db, "test", `{"aggregate": "ev", "pipeline": [{"$sort": {"_id": 1}}, {"$merge": {"into": "f", "whenMatched": "fail"}}], "cursor": {}}`, document.CodeDuplicateKey, "")
	expect("fail/insert", "f", `[{"_id":{"$numberInt":"1"},"k":"a","n":{"$numberInt":"1"}},{"_id":{"$numberInt":"2"}}]`)
	// fail when nothing matches.
	wantCode(t, db, "test", `{"aggregate": "ev", "pipeline": [{"$merge": {"into": "f", "whenNotMatched": "fail"}}], "cursor": {}}`, document.CodeMergeStageNoMatchingDocument, "")

	// on other fields: needs a unique index on exactly them.
	wantCode(t, db, "test", `{"aggregate": "ev", "pipeline": [{"$project": {"_id": 0}}, {"$merge": {"into": "byk", "on": "k"}}], "cursor": {}}`, 51183, "")
	mustRun(t, db, "test", `{"createIndexes": "byk", "indexes": [{"key": {"k": 1}, "name": "k_1", "unique": true}]}`)
	agg(`[{"$group": {"_id": null, "k": {"$first": "$k"}, "n": {"$sum": "$n"}}}, {"$project": {"_id": 0}}, {"$merge": {"into": "byk", "on": ["k"], "whenMatched": "merge"}}]`)
	agg(`[{"$group": {"_id": null, "k": {"$first": "$k"}, "m": {"$max": "$n"}}}, {"$project": {"_id": 0}}, {"$merge": {"into": "byk", "on": ["k"], "whenMatched": "merge"}}]`)
	all := findAll(t, db, "test", "byk", nil)
	if len(all) != 1 || field(all[0], "k") != "a" || field(all[0], "n") != int32(6) || field(all[0], "m") != int32(3) {
		t.Fatalf("merge on k: %v, want one document {k: a, n: 6, m: 3} with a generated _id", all)
	}
	if _, ok := field(all[0], "_id").(bson.ObjectID); !ok {
		t.Fatalf("merge on k: _id %v, want a generated ObjectId", field(all[0], "_id"))
	}
	wantCode(t, db, "test", `{"aggregate": "ev", "pipeline": [{"$project": {"k": 0}}, {"$merge": {"into": "byk", "on": "k"}}], "cursor": {}}`, 51132, "")
	wantCode(t, db, "test", `{"aggregate": "ev", "pipeline": [{"$project": {"k": ["$k"]}}, {"$merge": {"into": "byk", "on": "k"}}], "cursor": {}}`, 51185, "")

	// let: variables from the result, for the whenMatched pipeline.
	agg(`[{"$merge": {"into": "sum", "let": {"add": "$n", "new": "$$ROOT"}, "whenMatched": [{"$set": {"n": {"$add": ["$n", "$$add"]}, "last": "$$new._id"}}], "whenNotMatched": "discard"}}]`)
	// The groups a and b are not the events' _ids: nothing matched.
	expect("let, discard", "sum", `[{"_id":"a","n":{"$numberInt":"8"}},{"_id":"b","n":{"$numberInt":"4"}}]`)
	agg(`[{"$project": {"_id": "$k", "n": 1}}, {"$match": {"_id": "b"}}, {"$merge": {"into": "sum", "let": {"add": "$n"}, "whenMatched": [{"$set": {"n": {"$add": ["$n", "$$add"]}}}], "whenNotMatched": "discard"}}]`)
	expect("let", "sum", `[{"_id":"a","n":{"$numberInt":"8"}},{"_id":"b","n":{"$numberInt":"6"}}]`)

	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "at"}}`)
	refusals := []struct {
		stage string
		code  document.Code
	}{
		{`{"$merge": 5}`, document.CodeTypeMismatch},
		{`{"$merge": {}}`, document.CodeIDLFailedToParse},
		{`{"$merge": {"into": 1}}`, 51178},
		{`{"$merge": {"into": ""}}`, 5786800},
		{`{"$merge": {"into": {"db": "x"}}}`, 5786801},
		{`{"$merge": {"into": "x", "on": 1}}`, 51186},
		{`{"$merge": {"into": "x", "on": [1]}}`, 51134},
		{`{"$merge": {"into": "x", "on": []}}`, 51187},
		{`{"$merge": {"into": "x", "on": ["a", "a"]}}`, 31465},
		{`{"$merge": {"into": "x", "whenMatched": 1}}`, 51191},
		{`{"$merge": {"into": "x", "whenMatched": "pipeline"}}`, document.CodeBadValue},
		{`{"$merge": {"into": "x", "whenNotMatched": "nope"}}`, document.CodeBadValue},
		{`{"$merge": {"into": "x", "whenMatched": "keepExisting", "whenNotMatched": "discard"}}`, 51181},
		{`{"$merge": {"into": "x", "let": {"a": 1}}}`, 51199},
		{`{"$merge": {"into": "x", "let": {"new": "$k"}, "whenMatched": []}}`, 51273},
		{`{"$merge": {"into": "x", "whenMatched": [{"$set": {"a": "$$nope"}}]}}`, 17276},
		{`{"$merge": {"into": "x", "whenMatched": [{"$match": {}}]}}`, document.CodeInvalidOptions},
		{`{"$merge": {"into": "x", "bogus": 1}}`, document.CodeIDLUnknownField},
		{`{"$merge": "ts"}`, document.CodeCommandNotSupportedOnView},
	}
	for _, c := range refusals {
		wantCode(t, db, "test", `{"aggregate": "ev", "pipeline": [`+c.stage+`], "cursor": {}}`, c.code, "")
	}
}
