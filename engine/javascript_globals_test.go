package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Server-side JavaScript's globals and scope rules, as mongod 7.0's
// (src/mongo/scripting/mozjs/global.cpp, engine.cpp's loadStored,
// js_execution.cpp, expression_context.h).

// TestJavaScriptPrint: print and printjson write to the server's log.
func TestJavaScriptPrint(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var lines []string
	db, _, _ := openTestWith(t, func(o *Options) {
		inMemory(o)
		o.Logf = func(format string, args ...any) {
			mu.Lock()
			lines = append(lines, fmt.Sprintf(format, args...))
			mu.Unlock()
		}
	})
	mustRun(t, db, "p", `{"insert": "c", "documents": [{"_id": 1, "a": 2}]}`)
	mustRun(t, db, "p", `{"find": "c", "filter": {"$where": "print('where', this._id); printjson({a: this.a}); return true"}}`)
	mustRun(t, db, "p", `{"aggregate": "c", "pipeline": [{"$project": {"x": {"$function": {"body": "function(a) { printjsononeline([a, tojson('s')]); return a }", "args": ["$a"], "lang": "js"}}}}], "cursor": {}}`)
	mustRun(t, db, "p", `{"mapReduce": "c", "map": "function() { print(tojsononeline(this)); emit(1, 1) }", "reduce": "function(k, v) { return 1 }", "out": {"inline": 1}}`)
	want := []string{
		`jsPrint: where 1`,
		`jsPrint: { "a" : 2 }`,
		`jsPrint: [ 2, "\"s\"" ]`,
		`jsPrint: {  "_id" : 1,  "a" : 2 }`,
	}
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for _, l := range lines {
		if strings.HasPrefix(l, "jsPrint: ") {
			got = append(got, l)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("log lines = %q, want %q", got, want)
	}
}

// TestJavaScriptWhereWithFunction: one operation may not run both a
// $where and a $function (4649200), whichever is met first; each
// alone is fine.
func TestJavaScriptWhereWithFunction(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "w", `{"insert": "c", "documents": [{"_id": 1, "a": 2}, {"_id": 2, "a": 3}]}`)
	fn := `{"$function": {"body": "function(a) { return a > 1 }", "args": ["$a"], "lang": "js"}}`
	const msg = "A single operation cannot use both JavaScript aggregation expressions and $where."
	wantCode(t, db, "w", `{"find": "c", "filter": {"$where": "true", "$expr": `+fn+`}}`, document.Code(4649200), msg)
	wantCode(t, db, "w", `{"find": "c", "filter": {"$expr": `+fn+`, "$where": "true"}}`, document.Code(4649200), msg)
	wantCode(t, db, "w", `{"find": "c", "filter": {"$where": "true"}, "projection": {"x": `+fn+`}}`, document.Code(4649200), msg)
	wantCode(t, db, "w", `{"count": "c", "query": {"$where": "true", "$expr": `+fn+`}}`, document.Code(4649200), msg)
	r := mustRun(t, db, "w", `{"delete": "c", "deletes": [{"q": {"$where": "true", "$expr": `+fn+`}, "limit": 0}]}`)
	if got := fmt.Sprint(r); !strings.Contains(got, `"code":{"$numberInt":"4649200"}`) || !strings.Contains(got, `"n":{"$numberInt":"0"}`) {
		t.Errorf("delete = %s", got)
	}
	if n := len(firstBatch(t, mustRun(t, db, "w", `{"find": "c", "filter": {"$expr": `+fn+`}, "projection": {"x": `+fn+`}}`))); n != 2 {
		t.Errorf("$function alone found %d, want 2", n)
	}
	if n := len(firstBatch(t, mustRun(t, db, "w", `{"find": "c", "filter": {"$where": "this.a > 2"}}`))); n != 1 {
		t.Errorf("$where alone found %d, want 1", n)
	}
	// Nothing reaches the $function: nothing to refuse.
	mustRun(t, db, "w", `{"find": "c", "filter": {"$where": "true", "a": 5}, "projection": {"x": `+fn+`}}`)
}

// TestJavaScriptStoredFunctions: the functions of a database's
// system.js are globals of its $where and mapReduce functions, not of
// $function; a malformed entry fails them.
func TestJavaScriptStoredFunctions(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "s", `{"insert": "c", "documents": [{"_id": 1, "a": 2}, {"_id": 2, "a": 7}]}`)
	mustRun(t, db, "s", `{"insert": "system.js", "documents": [
		{"_id": "isBig", "value": {"$code": "function(x) { return x > limit }"}},
		{"_id": "limit", "value": 5},
		{"_id": "broken", "value": {"$code": "function( {"}}]}`)
	r := mustRun(t, db, "s", `{"find": "c", "filter": {"$where": "isBig(this.a)"}}`)
	if got := fmt.Sprint(firstBatch(t, r)); got != `[{"_id":{"$numberInt":"2"},"a":{"$numberInt":"7"}}]` {
		t.Errorf("$where with a stored function = %s", got)
	}
	r = mustRun(t, db, "s", `{"mapReduce": "c", "map": "function() { emit(isBig(this.a), 1) }", "reduce": "function(k, v) { return Array.sum(v) + limit - limit }", "out": {"inline": 1}}`)
	if got := fmt.Sprint(r); !strings.Contains(got, `{"_id":false,"value":{"$numberDouble":"1.0"}}`) || !strings.Contains(got, `{"_id":true,"value":{"$numberDouble":"1.0"}}`) {
		t.Errorf("mapReduce with a stored function = %s", got)
	}
	wantCode(t, db, "s", `{"aggregate": "c", "pipeline": [{"$project": {"x": {"$function": {"body": "function(a) { return isBig(a) }", "args": ["$a"], "lang": "js"}}}}], "cursor": {}}`,
		document.CodeJSInterpreterFailure, "ReferenceError: isBig is not defined")
	// The Go API's find sees them too.
	cur, err := db.Database("s").Collection("c").Find(context.Background(), bson.D{{Key: "$where", Value: "isBig(this.a)"}})
	if err != nil {
		t.Fatal(err)
	}
	if docs, err := cur.All(context.Background()); err != nil || len(docs) != 1 {
		t.Errorf("Go API $where with a stored function = %v, %v", docs, err)
	}
	// Another database's are not seen.
	mustRun(t, db, "s2", `{"insert": "c", "documents": [{"_id": 1, "a": 9}]}`)
	wantCode(t, db, "s2", `{"find": "c", "filter": {"$where": "isBig(this.a)"}}`, document.CodeJSInterpreterFailure, "isBig is not defined")
	// An entry mongod cannot load fails every $where of the database.
	mustRun(t, db, "s", `{"insert": "system.js", "documents": [{"_id": 3, "value": 1}]}`)
	wantCode(t, db, "s", `{"find": "c", "filter": {"$where": "true"}}`, document.Code(10209), "name has to be a string: _id: 3")
	mustRun(t, db, "s", `{"delete": "system.js", "deletes": [{"q": {"_id": 3}, "limit": 1}]}`)
	mustRun(t, db, "s", `{"insert": "system.js", "documents": [{"_id": "novalue"}]}`)
	wantCode(t, db, "s", `{"find": "c", "filter": {"$where": "true"}}`, document.Code(10210), "value has to be set")
}

// TestJavaScriptServerGlobals: version(), buildInfo() and
// getJSHeapLimitMB(), mongod's other global functions.
func TestJavaScriptServerGlobals(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "g", `{"insert": "c", "documents": [{"_id": 1}]}`)
	r := mustRun(t, db, "g", `{"aggregate": "c", "pipeline": [{"$project": {"_id": 0, "v": {"$function": {"body": "function() { return [version(), buildInfo().version, buildInfo().javascriptEngine, getJSHeapLimitMB(), typeof gc()] }", "args": [], "lang": "js"}}}}], "cursor": {}}`)
	want := fmt.Sprintf(`[{"v":["%s","%s","goja",{"$numberDouble":"1100.0"},"undefined"]}]`, Version, Version)
	if got := fmt.Sprint(firstBatch(t, r)); got != want {
		t.Errorf("globals = %s, want %s", got, want)
	}
}

// TestJavaScriptNativeHelperCodes: hex_md5 and tostrictjson refuse bad
// arguments with mongod's codes (10261, 40275, codeName
// Location<code>), not 139, in a $where, a $function and a mapReduce
// alike; a script may catch them and read e.code.
func TestJavaScriptNativeHelperCodes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "j", `{"insert": "c", "documents": [{"_id": 1, "a": 2}]}`)
	wantCode(t, db, "j", `{"find": "c", "filter": {"$where": "hex_md5(this.a)"}}`, 10261, "hex_md5 takes a single string argument -- hex_md5(string) :\n")
	wantCode(t, db, "j", `{"aggregate": "c", "pipeline": [{"$project": {"x": {"$function": {"body": "function(a) { return tostrictjson(a) }", "args": ["$a"], "lang": "js"}}}}], "cursor": {}}`, 40275, "tostrictjson takes a single BSON object argument")
	r := mustRun(t, db, "j", `{"aggregate": "c", "pipeline": [{"$project": {"_id": 0, "x": {"$function": {"body": "function(d) { var c; try { hex_md5() } catch (e) { c = e.code } return [c, tostrictjson(d)] }", "args": [{"k": "$a"}], "lang": "js"}}}}], "cursor": {}}`)
	got := document.Format(firstBatch(t, r))
	if want := `[ { x: [ 10261.0, "{ \"k\" : 2 }" ] } ]`; got != want {
		t.Errorf("caught code and tostrictjson = %s, want %s", got, want)
	}
}
