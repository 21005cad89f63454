package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// batchIDs are the _id values of a batch, in order.
func batchIDs(t *testing.T, r bson.D) string {
	t.Helper()
	var out []string
	for _, d := range firstBatch(t, r) {
		out = append(out, document.Format(field(d, "_id")))
	}
	return strings.Join(out, ",")
}

// TestWhere runs jstests/core/where1.js and its neighbours as data: the
// forms of $where mongod accepts and the places it refuses it.
func TestWhere(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	mustRun(t, db, "test", `{"insert": "w", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2, "b": {"c": [1, 2]}}, {"_id": 3, "a": 3, "l": {"$numberLong": "5"}}]}`)
	finds := []struct{ filter, want string }{
		{`{"$where": "return this.a == 2"}`, "2"},
		{`{"$where": "this.a == 2"}`, "2"},
		{`{"$where": "obj.a == 2"}`, "2"},
		{`{"$where": {"$code": "function() { return this.a >= 2 }"}}`, "2,3"},
		{`{"$where": "function() { return obj.a < 3; }"}`, "1,2"},
		{`{"$where": "this.b && this.b.c.length == 2"}`, "2"},
		{`{"$where": "this.l == 5 && this.l < 6"}`, "3"},
		{`{"a": {"$gt": 1}, "$where": "this.a != 3"}`, "2"},
		{`{"$or": [{"a": 1}, {"$where": "this.a == 3"}]}`, "1,3"},
		{`{"$and": [{"$where": "this.a > 1"}, {"$where": "this.a < 3"}]}`, "2"},
		{`{"$nor": [{"$where": "this.a > 1"}]}`, "1"},
		{`{"$where": "false"}`, ""},
		{`{"$where": "var x = 2; this.a == x"}`, "2"},
		{`{"$where": "this._id == 1", "$comment": "c"}`, "1"},
	}
	for _, c := range finds {
		r := mustRun(t, db, "test", `{"find": "w", "filter": `+c.filter+`, "sort": {"_id": 1}}`)
		if got := batchIDs(t, r); got != c.want {
			t.Errorf("%s: %s, want %s", c.filter, got, c.want)
		}
	}
	// count, distinct, update, delete and findAndModify take $where too.
	if r := mustRun(t, db, "test", `{"count": "w", "query": {"$where": "this.a > 1"}}`); field(r, "n") != int32(2) {
		t.Errorf("count: %s", document.Format(r))
	}
	if r := mustRun(t, db, "test", `{"distinct": "w", "key": "a", "query": {"$where": "this.a < 3"}}`); document.Format(field(r, "values")) != "[ 1, 2 ]" {
		t.Errorf("distinct: %s", document.Format(r))
	}
	mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {"$where": "this.a == 1"}, "u": {"$set": {"y": 1}}, "multi": true}]}`)
	mustRun(t, db, "test", `{"findAndModify": "w", "query": {"$where": "this.a == 2"}, "update": {"$set": {"y": 2}}}`)
	if r := mustRun(t, db, "test", `{"find": "w", "filter": {"y": {"$exists": true}}, "sort": {"_id": 1}}`); batchIDs(t, r) != "1,2" {
		t.Errorf("update: %s", batchIDs(t, r))
	}
	mustRun(t, db, "test", `{"insert": "w", "documents": [{"_id": 9, "a": 9}]}`)
	if r := mustRun(t, db, "test", `{"delete": "w", "deletes": [{"q": {"$where": "this.a == 9"}, "limit": 0}]}`); field(r, "n") != int32(1) {
		t.Errorf("delete: %s", document.Format(r))
	}

	errs := []struct {
		cmd  string
		code document.Code
		frag string
	}{
		// SERVER-12439, SERVER-13503: top level only.
		{`{"find": "w", "filter": {"a": {"$where": "this.a"}}}`, document.CodeBadValue, "unknown operator: $where"},
		{`{"find": "w", "filter": {"a": {"$elemMatch": {"$where": "this.a"}}}}`, document.CodeBadValue, "$where can only be applied to the top-level document"},
		{`{"find": "w", "filter": {"a": {"$elemMatch": {"b": 1, "$where": "this.a"}}}}`, document.CodeBadValue, "top-level"},
		{`{"find": "w", "filter": {"a": {"$elemMatch": {"$and": [{"b": 1}, {"$where": "this.a"}]}}}}`, document.CodeBadValue, "top-level"},
		{`{"find": "w", "filter": {"$where": 1}}`, document.CodeBadValue, "$where got bad type"},
		{`{"find": "w", "filter": {"$where": ""}}`, document.CodeBadValue, "code for $where cannot be empty"},
		{`{"find": "w", "filter": {"$where": {"$code": "true", "$scope": {}}}}`, document.Code(4649201), "CodeWScope"},
		{`{"find": "w", "filter": {"$where": "this.a =="}}`, document.CodeJSInterpreterFailure, "SyntaxError"},
		{`{"find": "w", "filter": {"$where": "throw new Error('boom')"}}`, document.CodeJSInterpreterFailure, "uncaught exception: Error: boom"},
		{`{"find": "w", "filter": {"$where": "nosuch()"}}`, document.CodeJSInterpreterFailure, "ReferenceError"},
		{`{"find": "w", "filter": {"$where": "function f() { return f() }"}}`, document.CodeJSInterpreterFailure, "too much recursion"},
		{`{"count": "w", "query": {"$where": "throw 'x'"}}`, document.CodeUnknownError, "uncaught exception: x"},
		// jstests/aggregation/bugs/server6335.js: not in a $match.
		{`{"aggregate": "w", "pipeline": [{"$match": {"$where": "return true"}}], "cursor": {}}`, document.CodeBadValue, "$where is not allowed in this context"},
		{`{"aggregate": "w", "pipeline": [{"$match": {"$and": [{"$where": "return true"}]}}], "cursor": {}}`, document.CodeBadValue, "$where is not allowed in this context"},
		{`{"aggregate": "w", "pipeline": [{"$lookup": {"from": "w", "pipeline": [{"$match": {"$where": "true"}}], "as": "x"}}], "cursor": {}}`, document.CodeBadValue, "$where is not allowed in this context"},
		{`{"aggregate": "w", "pipeline": [{"$graphLookup": {"from": "w", "startWith": "$a", "connectFromField": "a", "connectToField": "a", "as": "x", "restrictSearchWithMatch": {"$where": "true"}}}], "cursor": {}}`, document.CodeBadValue, "$where is not allowed in this context"},
		{`{"create": "v", "validator": {"$where": "true"}}`, document.CodeBadValue, "$where is not allowed in this context"},
		{`{"createIndexes": "w", "indexes": [{"key": {"a": 1}, "name": "p", "partialFilterExpression": {"$where": "true"}}]}`, document.CodeBadValue, "$where is not allowed in this context"},
		{`{"update": "w", "updates": [{"q": {}, "u": {"$set": {"a.$[i]": 1}}, "arrayFilters": [{"$where": "true"}]}]}`, 0, ""},
	}
	for _, c := range errs {
		if c.code == 0 {
			r := mustRun(t, db, "test", c.cmd)
			if we, _ := get(r, "writeErrors"); we == nil {
				t.Errorf("%s: no write error: %s", c.cmd, document.Format(r))
			}
			continue
		}
		wantCode(t, db, "test", c.cmd, c.code, c.frag)
	}
}

// TestWhereStoppedByMaxTimeMS checks that a $where that never returns
// is stopped by the operation's maxTimeMS with mongod's 50, and that a
// client gone (a context cancelled) stops it too.
func TestWhereStoppedByMaxTimeMS(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	mustRun(t, db, "test", `{"insert": "w", "documents": [{"_id": 1}]}`)
	wantCode(t, db, "test", `{"find": "w", "filter": {"$where": "while (true) {}"}, "maxTimeMS": 50}`, document.CodeMaxTimeMSExpired, "operation exceeded time limit")
	// max_time_ms.js's slow query: a $where that sleeps.
	wantCode(t, db, "test", `{"find": "w", "filter": {"$where": "function() { sleep(1e9); return true; }"}, "maxTimeMS": 50}`, document.CodeMaxTimeMSExpired, "operation exceeded time limit")
	wantCode(t, db, "test", `{"aggregate": "w", "pipeline": [{"$project": {"x": {"$function": {"body": "function() { for (;;) {} }", "args": [], "lang": "js"}}}}], "cursor": {}, "maxTimeMS": 50}`, document.CodeMaxTimeMSExpired, "")
	r := mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {"$where": "while (true) {}"}, "u": {"$set": {"a": 1}}}], "maxTimeMS": 50}`)
	if we, _ := get(r, "writeErrors"); we == nil || field(we.(bson.A)[0].(bson.D), "code") != int32(document.CodeMaxTimeMSExpired) {
		t.Errorf("update: %s", document.Format(r))
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		cmd, _ := document.ParseExtJSON([]byte(`{"find": "w", "filter": {"$where": "while (true) {}"}}`))
		_, err := db.RunCommand(ctx, "test", cmd)
		done <- err
	}()
	cancel()
	// The engine reports a cancelled context as it is when it sees it
	// first, the script as 11601 when it is stopped in the middle.
	if err := <-done; !errors.Is(err, context.Canceled) && document.CodeOf(err) != document.CodeInterrupted {
		t.Fatalf("cancelled: %v", err)
	}
}

// TestWhereConcurrent runs $where queries from several goroutines at
// once (run it with -race): each runtime serves one call at a time.
func TestWhereConcurrent(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	var docs []string
	for i := range 50 {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %d}`, i, i))
	}
	mustRun(t, db, "test", `{"insert": "w", "documents": [`+strings.Join(docs, ",")+`]}`)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				r, err := run(t, db, "test", fmt.Sprintf(`{"find": "w", "filter": {"$where": "this.a %% 6 == %d"}, "batchSize": 100}`, g))
				if err != nil {
					t.Error(err)
					return
				}
				for _, d := range firstBatch(t, r) {
					if n := field(d, "a").(int32); n%6 != int32(g) {
						t.Errorf("goroutine %d got %d", g, n)
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestNoScripting checks the engine with scripting off, as mongod
// --noscripting: $where fails when parsed, $function and $accumulator
// when they would run.
func TestNoScripting(t *testing.T) {
	t.Parallel()
	db, _, _ := openTestWith(t, func(o *Options) { o.NoScripting = true })
	mustRun(t, db, "test", `{"insert": "w", "documents": [{"_id": 1}]}`)
	wantCode(t, db, "test", `{"find": "w", "filter": {"$where": "true"}}`, document.Code(6108304), "no globalScriptEngine in $where parsing")
	wantCode(t, db, "test", `{"find": "empty", "filter": {"$where": "true"}}`, document.Code(6108304), "")
	wantCode(t, db, "test", `{"aggregate": "w", "pipeline": [{"$project": {"x": {"$function": {"body": "1", "args": [], "lang": "js"}}}}], "cursor": {}}`, document.Code(31264), "Cannot run server-side javascript without the javascript engine enabled")
	wantCode(t, db, "test", `{"find": "w", "filter": {"$expr": {"$function": {"body": "1", "args": [], "lang": "js"}}}}`, document.Code(31264), "")
	wantCode(t, db, "test", `{"aggregate": "w", "pipeline": [{"$group": {"_id": 1, "x": {"$accumulator": {"init": "function() { return 0 }", "accumulate": "function(s) { return s }", "accumulateArgs": [], "merge": "function(a) { return a }"}}}}], "cursor": {}}`, document.Code(31264), "")
	wantCode(t, db, "test", `{"find": "w", "projection": {"x": {"$function": {"body": "1", "args": [], "lang": "js"}}}}`, document.Code(31264), "")
	// Nothing runs on an empty collection: no error, as in mongod.
	mustRun(t, db, "test", `{"aggregate": "empty", "pipeline": [{"$project": {"x": {"$function": {"body": "1", "args": [], "lang": "js"}}}}], "cursor": {}}`)
}
