package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// mrDocs renders documents as relaxed Extended JSON, sorted by _id (a
// $group's order, and so mapReduce's, is unspecified in mongod).
func mrDocs(t *testing.T, docs bson.A) string {
	t.Helper()
	sorted := slices.Clone(docs)
	slices.SortFunc(sorted, func(a, b any) int {
		ia, _ := document.Get(a.(bson.D), "_id")
		ib, _ := document.Get(b.(bson.D), "_id")
		return document.Compare(ia, ib)
	})
	var out []string
	for _, d := range sorted {
		b, err := bson.MarshalExtJSON(d, false, false)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return strings.Join(out, " ")
}

// mrRunInline runs a mapReduce with out: {inline: 1} and returns its
// results rendered by mrDocs.
func mrRunInline(t *testing.T, db *DB, cmd string) string {
	t.Helper()
	r := mustRun(t, db, "test", cmd)
	if len(r) != 2 || r[0].Key != "results" || r[1].Key != "ok" {
		t.Fatalf("%s: reply %v, want {results, ok}", cmd, r)
	}
	return mrDocs(t, r[0].Value.(bson.A))
}

// mrFind returns a collection's documents rendered by mrDocs.
func mrFind(t *testing.T, db *DB, dbName, coll string) string {
	t.Helper()
	r := mustRun(t, db, dbName, `{"find": "`+coll+`"}`)
	c, _ := get(r, "cursor")
	b, _ := get(c.(bson.D), "firstBatch")
	return mrDocs(t, b.(bson.A))
}

func TestMapReduceInline(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [
		{"_id": 1, "tags": ["a", "b"], "n": 1},
		{"_id": 2, "tags": ["b", "c"], "n": 2},
		{"_id": 3, "tags": ["b"], "n": 3},
		{"_id": 4, "n": 4}]}`)
	for _, c := range []struct{ name, cmd, want string }{
		{"count tags, map and reduce as code",
			`{"mapReduce": "c", "map": {"$code": "function() { (this.tags || []).forEach(function(t) { emit(t, 1); }); }"},
			  "reduce": {"$code": "function(k, vs) { return Array.sum(vs); }"}, "out": {"inline": 1}}`,
			`{"_id":"a","value":1.0} {"_id":"b","value":3.0} {"_id":"c","value":1.0}`},
		// mr_single_reduce.js: reduce runs for a key emitted once.
		{"reduce runs on a single value",
			`{"mapReduce": "c", "map": "function() { emit(0, 'mapped'); }", "reduce": "function(k, vs) { return 'reduced ' + vs.length; }",
			  "query": {"_id": 1}, "out": {"inline": 1.0}}`,
			`{"_id":0.0,"value":"reduced 1"}`},
		// $_internalJsReduce hands the values over last emitted first.
		{"values come last first",
			`{"mapReduce": "c", "map": "function() { emit('k', this._id); }", "reduce": "function(k, vs) { return vs.join(','); }", "out": {"inline": 1}}`,
			`{"_id":"k","value":"4,3,2,1"}`},
		{"query, sort and limit before map",
			`{"mapReduce": "c", "map": "function() { emit('ids', String(this._id)); }", "reduce": "function(k, vs) { return vs.join(''); }",
			  "query": {"n": {"$gte": 2}}, "sort": {"n": -1}, "limit": 2, "out": {"inline": 1}}`,
			`{"_id":"ids","value":"34"}`},
		{"finalize and scope",
			`{"mapReduce": "c", "map": "function() { emit(this.n % 2, this.n * factor); }", "reduce": "function(k, vs) { return Array.sum(vs); }",
			  "finalize": "function(k, v) { return label + k + '=' + v; }", "scope": {"factor": 10, "label": "odd?"}, "out": {"inline": 1}}`,
			`{"_id":0.0,"value":"odd?0=60"} {"_id":1.0,"value":"odd?1=40"}`},
		{"finalize null is none",
			`{"mapReduce": "c", "map": "function() { emit(1, 1); }", "reduce": "function(k, vs) { return Array.sum(vs); }", "finalize": null, "out": {"inline": 1}}`,
			`{"_id":1.0,"value":4.0}`},
		{"an undefined key is null, a document key is kept",
			`{"mapReduce": "c", "map": "function() { emit(this.nothing, 1); emit({a: this.n > 2}, 1); }", "reduce": "function(k, vs) { return vs.length; }", "out": {"inline": 1}}`,
			`{"_id":null,"value":4.0} {"_id":{"a":false},"value":2.0} {"_id":{"a":true},"value":2.0}`},
		{"no documents, no results",
			`{"mapReduce": "missing", "map": "function() { emit(1, 1); }", "reduce": "function(k, vs) { return 1; }", "out": {"inline": 1}}`,
			``},
		{"jsMode, verbose and bypassDocumentValidation are taken",
			`{"mapreduce": "c", "map": "function() { emit(1, 1); }", "reduce": "function(k, vs) { return vs.length; }", "out": {"inline": 1},
			  "jsMode": true, "verbose": false, "bypassDocumentValidation": false}`,
			`{"_id":1.0,"value":4.0}`},
	} {
		if got := mrRunInline(t, db, c.cmd); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestMapReduceCollation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "k": "a"}, {"_id": 2, "k": "A"}, {"_id": 3, "k": "b"}]}`)
	const cmd = `{"mapReduce": "c", "map": "function() { emit(this.k, 1); }", "reduce": "function(k, vs) { return vs.length; }", "out": {"inline": 1}`
	if got, want := mrRunInline(t, db, cmd+`}`), `{"_id":"A","value":1.0} {"_id":"a","value":1.0} {"_id":"b","value":1.0}`; got != want {
		t.Errorf("simple:\n got %s\nwant %s", got, want)
	}
	// The keys group under the collation, and the query matches under it.
	got := mrRunInline(t, db, cmd+`, "collation": {"locale": "en", "strength": 2}}`)
	if got != `{"_id":"a","value":2.0} {"_id":"b","value":1.0}` {
		t.Errorf("strength 2: got %s", got)
	}
	got = mrRunInline(t, db, cmd+`, "query": {"k": "B"}, "collation": {"locale": "en", "strength": 2}}`)
	if got != `{"_id":"b","value":1.0}` {
		t.Errorf("query under strength 2: got %s", got)
	}
}

func TestMapReduceSpills(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := range 300 {
		docs = append(docs, `{"_id": `+itoa(i)+`}`)
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [`+strings.Join(docs, ",")+`]}`)
	const cmd = `{"mapReduce": "c", "map": "function() { emit(this._id % 3, this._id); }", "reduce": "function(k, vs) { return Array.sum(vs); }", "out": {"inline": 1}}`
	want := mrRunInline(t, db, cmd)
	if want != `{"_id":0.0,"value":14850.0} {"_id":1.0,"value":14950.0} {"_id":2.0,"value":15050.0}` {
		t.Fatalf("in memory: %s", want)
	}
	// A $group bound small enough to spill a few times gives the same
	// sums: each spilled run keeps a key's values reduced to one.
	mustRun(t, db, "admin", `{"setParameter": 1, "internalDocumentSourceGroupMaxMemoryBytes": 1500}`)
	if got := mrRunInline(t, db, cmd); got != want {
		t.Errorf("spilled:\n got %s\nwant %s", got, want)
	}
	// The last reduce of a key sees one value a run, not its 100 values.
	const batches = `{"mapReduce": "c", "map": "function() { emit(this._id % 3, this._id); }", "out": {"inline": 1},
		"reduce": "function(k, vs) { var s = 0; vs.forEach(function(v) { s += typeof v == 'object' ? v.s : v; }); return {s: s, last: vs.length}; }"}`
	r := mustRun(t, db, "test", batches)
	res, _ := get(r, "results")
	for _, d := range res.(bson.A) {
		v, _ := document.Get(d.(bson.D), "value")
		last, _ := document.Get(v.(bson.D), "last")
		if n, _ := last.(float64); n < 2 || n >= 100 {
			t.Errorf("spilled: the last reduce took %v values, want one a run: %v", last, d)
		}
	}
}

func TestMapReduceOut(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "k": "x", "n": 1}, {"_id": 2, "k": "y", "n": 2}, {"_id": 3, "k": "x", "n": 3}]}`)
	const fns = `"map": "function() { emit(this.k, this.n); }", "reduce": "function(k, vs) { return Array.sum(vs); }"`

	// replace: the target's documents go, its indexes stay.
	mustRun(t, db, "test", `{"insert": "r", "documents": [{"_id": "old", "value": 0}]}`)
	mustRun(t, db, "test", `{"createIndexes": "r", "indexes": [{"key": {"value": 1}, "name": "value_1"}]}`)
	r := mustRun(t, db, "test", `{"mapReduce": "c", `+fns+`, "out": "r"}`)
	if got, _ := get(r, "result"); got != "r" || len(r) != 2 {
		t.Errorf("out string: reply %v", r)
	}
	if got := mrFind(t, db, "test", "r"); got != `{"_id":"x","value":4.0} {"_id":"y","value":2.0}` {
		t.Errorf("replace: %s", got)
	}
	ix := mustRun(t, db, "test", `{"listIndexes": "r"}`)
	if !strings.Contains(document.Format(ix), "value_1") {
		t.Errorf("replace dropped the target's index: %v", ix)
	}

	// merge: documents of the same _id replaced, the others kept.
	mustRun(t, db, "test", `{"insert": "m", "documents": [{"_id": "x", "value": 100, "extra": 1}, {"_id": "z", "value": 7}]}`)
	mustRun(t, db, "test", `{"mapReduce": "c", `+fns+`, "out": {"merge": "m"}}`)
	if got := mrFind(t, db, "test", "m"); got != `{"_id":"x","value":4.0} {"_id":"y","value":2.0} {"_id":"z","value":7}` {
		t.Errorf("merge: %s", got)
	}

	// reduce: a key there already is reduced with the new value, then
	// finalized; the reply names the db when out did.
	mustRun(t, db, "other", `{"insert": "f", "documents": [{"_id": "x", "value": 100}, {"_id": "z", "value": 7}]}`)
	r = mustRun(t, db, "test", `{"mapReduce": "c", `+fns+`, "finalize": "function(k, v) { return v + 0.5; }", "out": {"reduce": "f", "db": "other", "nonAtomic": true}}`)
	res, _ := get(r, "result")
	if document.Compare(res, bson.D{{Key: "db", Value: "other"}, {Key: "collection", Value: "f"}}) != 0 {
		t.Errorf("out with db: result %v", res)
	}
	if got := mrFind(t, db, "other", "f"); got != `{"_id":"x","value":105.0} {"_id":"y","value":2.5} {"_id":"z","value":7}` {
		t.Errorf("reduce: %s", got)
	}

	// A new target is created.
	mustRun(t, db, "test", `{"mapReduce": "c", `+fns+`, "out": {"replace": "fresh", "db": "test"}}`)
	if got := mrFind(t, db, "test", "fresh"); got != `{"_id":"x","value":4.0} {"_id":"y","value":2.0}` {
		t.Errorf("new target: %s", got)
	}
}

func TestMapReduceErrors(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}]}`)
	mustRun(t, db, "test", `{"create": "v", "viewOn": "c", "pipeline": []}`)
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
	const fns = `"map": "function() { emit(1, 1); }", "reduce": "function(k, vs) { return 1; }"`
	for _, c := range []struct {
		cmd  string
		code document.Code
		msg  string
	}{
		{`{"mapReduce": "c", "reduce": "function() {}", "out": {"inline": 1}}`, 40414, "BSON field 'mapReduce.map' is missing but a required field"},
		{`{"mapReduce": "c", ` + fns + `}`, 40414, "BSON field 'mapReduce.out' is missing but a required field"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"inline": 1}, "bogus": 1}`, 40415, "BSON field 'mapReduce.bogus' is an unknown field."},
		{`{"mapReduce": "c", "map": 5, "reduce": "function() {}", "out": {"inline": 1}}`, 2, "'map' must be of string or code type"},
		{`{"mapReduce": "c", "map": "function() {}", "reduce": null, "out": {"inline": 1}}`, 2, "'reduce' must be of string or code type"},
		{`{"mapReduce": "c", ` + fns + `, "finalize": 1, "out": {"inline": 1}}`, 2, "'finalize' must be of string or code type"},
		{`{"mapReduce": "c", ` + fns + `, "out": 1}`, 2, "'out' must be either a string or an object"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"inline": 1, "db": "x"}}`, 72, "'inline' must be specified alone"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"inline": 2}}`, 2, "'inline' takes only numeric '1'"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"db": "x"}}`, 2, "'out' requires 'replace', 'merge' or 'reduce'"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"merge": 1}}`, 2, "'merge' supports only string consisting of output collection name"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"merge": "o", "reduce": "p"}}`, 2, "'out' supports only output type with collection name, optional 'sharded' and optional 'db'"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"merge": "o", "nonAtomic": false}}`, 2, "nonAtomic field value must be true"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"replace": "o", "sharded": true}}`, 72, "Combination of 'out.sharded' and 'replace' output mode is not supported."},
		{`{"mapReduce": "c", ` + fns + `, "out": {"merge": "o", "sharded": true}}`, 72, "Cannot use mapReduce to create a new sharded collection."},
		{`{"mapReduce": "c", ` + fns + `, "out": {"merge": "o", "db": "admin"}}`, 115, "cannot target internal database as output"},
		{`{"mapReduce": "c", ` + fns + `, "out": "system.x"}`, 73, "Invalid 'out' namespace: test.system.x"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"merge": "o", "db": ""}}`, 73, "Invalid 'out' namespace: .o"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"merge": "o", "db": "a.b"}}`, 73, "Invalid 'out' namespace: a.b.o"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"inline": 1}, "limit": 0}`, 15958, "The limit specified to mapReduce must be positive"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"inline": 1}, "limit": "x"}`, 14, "BSON field 'mapReduce.limit' is the wrong type 'string'"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"inline": 1}, "sort": {}}`, 15976, "The mapReduce sort option must have at least one sort key"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"inline": 1}, "scope": 1}`, 2, "'scope' must be an object"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"inline": 1}, "query": 1}`, 14, "BSON field 'mapReduce.query' is the wrong type 'int', expected type 'object'"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"inline": 1}, "jsMode": 1}`, 14, "BSON field 'mapReduce.jsMode' is the wrong type 'int', expected type 'bool'"},
		{`{"mapReduce": "v", ` + fns + `, "out": {"inline": 1}}`, 166, "mapReduce on a view is not supported"},
		{`{"mapReduce": "ts", ` + fns + `, "out": {"inline": 1}}`, 166, "mapReduce on a view is not supported"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"inline": 1}, "query": {"$bogus": 1}}`, 2, "MapReduce internal error :: caused by :: unknown top level operator: $bogus"},
		{`{"mapReduce": "c", "map": "function() { throw new Error('boom'); }", "reduce": "function() {}", "out": {"inline": 1}}`, 139, "MapReduce internal error :: caused by :: uncaught exception: Error: boom"},
		{`{"mapReduce": "c", "map": "function() { emit(1); }", "reduce": "function() {}", "out": {"inline": 1}}`, 31220, "MapReduce internal error :: caused by :: emit takes 2 args"},
		{`{"mapReduce": "c", "map": "function() { emit(1, 1); }", "reduce": "function( {", "out": {"inline": 1}}`, 139, "MapReduce internal error :: caused by :: SyntaxError"},
		{`{"mapReduce": "c", ` + fns + `, "out": {"merge": "v"}}`, 166, "MapReduce internal error :: caused by :: "},
	} {
		wantCode(t, db, "test", c.cmd, c.code, c.msg)
	}
	// Nothing was written by the failed runs.
	r := mustRun(t, db, "test", `{"listCollections": 1, "nameOnly": true, "filter": {"name": "o"}}`)
	if strings.Contains(document.Format(r), `"o"`) {
		t.Errorf("a refused mapReduce created its output: %v", r)
	}
}

func TestMapReduceNoScripting(t *testing.T) {
	t.Parallel()
	db, _, _ := openTestWith(t, func(o *Options) { inMemory(o); o.NoScripting = true })
	const cmd = `{"mapReduce": "c", "map": "function() { emit(1, 1); }", "reduce": "function(k, vs) { return 1; }", "out": {"inline": 1}}`
	// Over no documents no JavaScript runs, as in mongod.
	if got := mrRunInline(t, db, cmd); got != "" {
		t.Errorf("empty collection: %s", got)
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}]}`)
	wantCode(t, db, "test", cmd, 31246, "MapReduce internal error :: caused by :: Cannot run server-side javascript without the javascript engine enabled")
}

func TestMapReduceExplain(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	r := mustRun(t, db, "test", `{"explain": {"mapReduce": "c", "map": "function() { emit(this.a, 1); }", "reduce": "function(k, vs) { return 1; }",
		"query": {"a": 1}, "finalize": "function(k, v) { return v; }", "out": {"merge": "o"}}, "verbosity": "queryPlanner"}`)
	got := document.Format(r)
	for _, want := range []string{`stage: "IXSCAN"`, `indexName: "a_1"`, `{ $project: { emits: { $_internalJsEmit: {`,
		`{ $group: { _id: "$emits.k", value: { $_internalJsReduce: {`, `value: { $function: {`, `{ $merge: { into: { db: "test", coll: "o" }`, `command: { mapReduce: "c"`} {
		if !strings.Contains(got, want) {
			t.Errorf("explain lacks %s: %s", want, got)
		}
	}
	// Explaining runs nothing.
	if n := mustRun(t, db, "test", `{"count": "o"}`); n[0].Value != int32(0) {
		t.Errorf("explain wrote its output: %v", n)
	}
}
