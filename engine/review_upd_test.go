package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Reviewer's tests of the positional operators, arrayFilters, $bit, the
// bitwise query operators, a find's min/max/returnKey/showRecordId and
// an update's sort and c. Each failing test is one bug, against
// mongod's jstests (named in the test).

// rvReset drops coll and loads docs into it.
func rvReset(t *testing.T, db *DB, coll string, docs ...string) {
	t.Helper()
	run(t, db, "test", `{"drop": "`+coll+`"}`)
	loadCorpus(t, db, "test", coll, docs)
}

// rvDoc returns the only document of coll with _id id.
func rvDoc(t *testing.T, db *DB, coll string, id int) string {
	t.Helper()
	docs := firstBatch(t, mustRun(t, db, "test", fmt.Sprintf(`{"find": %q, "filter": {"_id": %d}}`, coll, id)))
	if len(docs) != 1 {
		t.Fatalf("find _id %d: %v", id, docs)
	}
	return fmtValue(docs[0])
}

// rvWriteError returns the code of the single write error of an update
// reply, 0 if none.
func rvWriteError(t *testing.T, r bson.D) (int32, string) {
	t.Helper()
	we, _ := field(r, "writeErrors").(bson.A)
	if len(we) == 0 {
		return 0, ""
	}
	d := we[0].(bson.D)
	msg, _ := field(d, "errmsg").(string)
	return field(d, "code").(int32), msg
}

// mongod matches every array filter against the array's elements before
// it applies any update to them (update_array_node: the matching
// elements of each identifier are collected first). So the filter of
// $[j] sees the element as it was, not as $[i]'s $set left it.
// ttlkv applies the paths one after the other and the filter of j reads
// the x that a.$[i].x just wrote: {x: 5, y: 1}, want {x: 5, y: 0}.
func TestReviewArrayFiltersSeeOriginalElement(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	rvReset(t, db, "af1", `{"_id": 0, "a": [{"x": 0, "y": 0}]}`)
	r := mustRun(t, db, "test", `{"update": "af1", "updates": [{"q": {}, "u": {"$set": {"a.$[i].x": 5, "a.$[j].y": 1}}, "arrayFilters": [{"i.y": 0}, {"j.x": 5}]}]}`)
	if c, m := rvWriteError(t, r); c != 0 {
		t.Fatalf("%d %s", c, m)
	}
	if got := rvDoc(t, db, "af1", 0); got != `{ _id: 0, a: [ { x: 5, y: 0 } ] }` {
		t.Errorf("got %s, want { _id: 0, a: [ { x: 5, y: 0 } ] } (j's filter {j.x: 5} must not see i's write)", got)
	}
}

// jstests/core/write/update/update_arrayFilters.js, "Error cases" and the
// filters with $text, $where and $expr: mongod parses an array filter
// before it looks for its identifier, so a filter of a refused operator
// fails as that operator does (2 for {$i: 0}, "unknown top level
// operator", $text and $where; 224 QueryFeatureNotAllowed for $expr),
// not 9 "without a top-level field name". And "a.$[i.j]" is split at the
// dot, its "$[i" a field that cannot be created in [0]: 28, not 2.
func TestReviewArrayFilterErrorCodes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	rvReset(t, db, "af2", `{"_id": 0, "a": [0], "b": [{"j": 0}]}`)
	for _, tc := range []struct {
		u, af string
		code  int32
	}{
		{`{"$set": {"a.$[$i]": 1}}`, `[{"$i": 0}]`, 2},
		{`{"$set": {"a.$[i]": 5}}`, `[{"$text": {"$search": "foo"}}]`, 2},
		{`{"$set": {"a.$[i]": 5}}`, `[{"$where": "this.a == 2"}]`, 2},
		{`{"$set": {"a.$[i]": 5}}`, `[{"$expr": {"$eq": ["$foo", "$bar"]}}]`, 224},
		{`{"$set": {"a.$[i.j]": 1, "b.$[i]": 1}}`, `[{"i.j": 0}]`, 28},
	} {
		r := mustRun(t, db, "test", `{"update": "af2", "updates": [{"q": {"_id": 0}, "u": `+tc.u+`, "arrayFilters": `+tc.af+`}]}`)
		if c, m := rvWriteError(t, r); c != tc.code {
			t.Errorf("%s with %s: code %d (%s), want %d", tc.u, tc.af, c, m, tc.code)
		}
	}
}

// An array update ($[] or $[id]) needs its array to exist, whatever the
// modifier: mongod's array node refuses a path still to be created
// before any modifier runs ("The path 'a' must exist in the document in
// order to apply array updates.", 2). ttlkv refuses it for $set but
// lets $unset and $pull through as no-ops.
func TestReviewArrayUpdateMissingArrayUnset(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	rvReset(t, db, "af3", `{"_id": 0}`)
	for _, u := range []string{`{"$set": {"a.$[]": 1}}`, `{"$unset": {"a.$[]": 1}}`, `{"$pull": {"a.$[]": 1}}`} {
		r := mustRun(t, db, "test", `{"update": "af3", "updates": [{"q": {"_id": 0}, "u": `+u+`}]}`)
		if c, m := rvWriteError(t, r); c != 2 {
			t.Errorf("%s on a document without a: code %d (%s), want 2 (the path 'a' must exist)", u, c, m)
		}
	}
}

// What mongod does and ttlkv does too: upserts seeded by the query's
// array, $setOnInsert through $[i], multi updates under the collection's
// default collation, and indexes kept consistent.
func TestReviewArrayFiltersSound(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "af4", "collation": {"locale": "en_US", "strength": 2}}`)
	mustRun(t, db, "test", `{"createIndexes": "af4", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"g.s": 1, "k": 1}, "name": "gs"}]}`)
	loadCorpus(t, db, "test", "af4", []string{`{"_id": 0, "a": ["foo", "FOO", "x"], "g": [{"s": 1}, {"s": 2}], "k": 1}`})
	mustRun(t, db, "test", `{"update": "af4", "updates": [{"q": {"_id": 0}, "u": {"$set": {"a.$[i]": "bar", "g.$[e].s": 9}}, "arrayFilters": [{"i": "foo"}, {"e.s": {"$gte": 2}}]}]}`)
	if got := rvDoc(t, db, "af4", 0); got != `{ _id: 0, a: [ "bar", "bar", "x" ], g: [ { s: 1 }, { s: 9 } ], k: 1 }` {
		t.Errorf("default collation: %s", got)
	}
	mustRun(t, db, "test", `{"update": "af4", "updates": [{"q": {"_id": 6, "a": [0]}, "u": {"$setOnInsert": {"a.$[i]": 1}}, "upsert": true, "arrayFilters": [{"i": 0}]}]}`)
	if got := rvDoc(t, db, "af4", 6); got != `{ _id: 6, a: [ 1 ] }` {
		t.Errorf("$setOnInsert upsert: %s", got)
	}
	mustRun(t, db, "test", `{"findAndModify": "af4", "query": {"_id": 0}, "update": {"$inc": {"g.$[].s": 1}}}`)
	if ids := firstIDs(t, db, `{"find": "af4", "filter": {"g.s": 10}, "hint": "gs"}`); len(ids) != 1 {
		t.Errorf("index on g.s after $[]: %v", ids)
	}
	res, err := db.Validate(context.Background(), "test", "af4")
	if err != nil || !res.Valid() {
		t.Errorf("validate: %v %+v", err, res)
	}
}

// jstests/core/update_arraymatch2.js ("B2"): the positional $ of an
// update is the position the query matched in an array, whichever array
// that was: {x: 92} on {x: [90, 91, 92], y: ["a", "b", "c"]} makes
// "y.$" y.2. ttlkv only places $ from conditions on the array before it
// and fails with 2.
func TestReviewPositionalFromOtherArray(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	rvReset(t, db, "pz1", `{"_id": 1, "x": [90, 91, 92], "y": ["a", "b", "c"]}`)
	r := mustRun(t, db, "test", `{"update": "pz1", "updates": [{"q": {"x": 92}, "u": {"$set": {"y.$": "z"}}, "multi": true}]}`)
	if c, m := rvWriteError(t, r); c != 0 {
		t.Errorf("update {x: 92} {$set: {y.$: z}}: %d %s", c, m)
	}
	if got := rvDoc(t, db, "pz1", 1); got != `{ _id: 1, x: [ 90, 91, 92 ], y: [ "a", "b", "z" ] }` {
		t.Errorf("got %s", got)
	}
}

// mongod records the array position of the last condition of an $and
// that matched one (jstests/core/query/project/positional_projection.js:
// "Positional projection must use the index from the last child of $and
// operator"; the update's $ reads the same match details). $all of
// values is such an $and. ttlkv looks for one element that meets every
// condition at once, finds none, and fails with 2.
func TestReviewPositionalUpdateAndAll(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, tc := range []struct{ q, want string }{
		{`{"$and": [{"a": 1}, {"a": 2}, {"a": 3}]}`, `{ _id: 1, a: [ 1, 2, 0 ] }`},
		{`{"$and": [{"a": 3}, {"a": 2}, {"a": 1}]}`, `{ _id: 1, a: [ 0, 2, 3 ] }`},
		{`{"a": {"$all": [2, 3]}}`, `{ _id: 1, a: [ 1, 2, 0 ] }`},
	} {
		rvReset(t, db, "pz2", `{"_id": 1, "a": [1, 2, 3]}`)
		r := mustRun(t, db, "test", `{"update": "pz2", "updates": [{"q": `+tc.q+`, "u": {"$set": {"a.$": 0}}}]}`)
		if c, m := rvWriteError(t, r); c != 0 {
			t.Errorf("%s: %d %s", tc.q, c, m)
			continue
		}
		if got := rvDoc(t, db, "pz2", 1); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.q, got, tc.want)
		}
	}
}

// jstests/core/query/project/positional_projection.js: the positional
// projection takes the position the query matched in any array and
// applies it to the first array on its path; a path with no array
// there comes out unchanged; an $and uses its last child's position.
// ttlkv requires the query to read the projected array and otherwise
// fails with 51246.
func TestReviewPositionalProjectionJstest(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for i, tc := range []struct{ q, proj, doc, want string }{
		{`{"x.y.z": 1}`, `{"a.b.c.$": 1}`, `{"x": {"y": {"z": [0, 1, 2]}}, "a": [{"b": {"c": [1, 2, 3]}}, {"b": {"c": [4, 5, 6]}}, {"b": {"c": [7, 8, 9]}}]}`, `{ a: [ { b: { c: [ 4, 5, 6 ] } } ] }`},
		{`{"x.y.z": 1}`, `{"a.b.c.$": 1}`, `{"x": {"y": {"z": [0, 1, 2]}}, "a": {"b": {"c": [1, 2, 3]}}}`, `{ a: { b: { c: [ 2 ] } } }`},
		{`{"x": {"$gt": 0}}`, `{"a.b.c.$": 1}`, `{"x": [-1, 1, 2], "a": {"b": {"c": 123}}}`, `{ a: { b: { c: 123 } } }`},
		{`{"$and": [{"a": 1}, {"a": 2}, {"a": 3}]}`, `{"b.$": 1}`, `{"a": [1, 2, 3], "b": [4, 5, 6]}`, `{ b: [ 6 ] }`},
		{`{"a": {"$in": [2, 3]}}`, `{"b.$": 1}`, `{"a": [1, 2, 3], "b": [4, 5, 6]}`, `{ b: [ 5 ] }`},
		{`{"a": {"$elemMatch": {"$elemMatch": {"$eq": 3}}}}`, `{"b.$": 1}`, `{"a": [[1, 2], [3, 4]], "b": [[5, 6], [7, 8]]}`, `{ b: [ [ 7, 8 ] ] }`},
	} {
		coll := fmt.Sprintf("pp%d", i)
		rvReset(t, db, coll, `{"_id": 0, `+tc.doc[1:])
		r, err := run(t, db, "test", `{"find": "`+coll+`", "filter": `+tc.q+`, "projection": `+tc.proj[:len(tc.proj)-1]+`, "_id": 0}}`)
		if err != nil {
			t.Errorf("%s %s on %s: %v, want %s", tc.q, tc.proj, tc.doc, err, tc.want)
			continue
		}
		if got := fmtValue(firstBatch(t, r)); got != "[ "+tc.want+" ]" {
			t.Errorf("%s %s on %s: %s, want %s", tc.q, tc.proj, tc.doc, got, tc.want)
		}
	}
}

// jstests/core/query/project/positional_projection.js: a positional
// projection beside an exclusion is 31254 (sound: ttlkv agrees).
func TestReviewPositionalProjectionExclusionCode(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	rvReset(t, db, "pp9", `{"_id": 0, "x": [{"a": 1}, {"a": 2}], "y": [{"aa": 1}]}`)
	wantCode(t, db, "test", `{"find": "pp9", "filter": {"x.a": 2}, "projection": {"x.$": 1, "y": 0}, "sort": {"x": 1}}`, 31254, "")
}

// jstests/core/query/minmax.js: min equal to max, or after it in the
// index's order, is 51175; a min and a max of different fields is
// 51176; min or max with a $natural hint is NoQueryExecutionPlans (291).
// ttlkv answers the first two with no documents and the others with
// 51174 and 51173.
func TestReviewMinMaxErrorCodes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 10; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %d, "b": %d}`, i, i, i%2))
	}
	rvReset(t, db, "mm1", docs...)
	mustRun(t, db, "test", `{"createIndexes": "mm1", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"a": 1, "b": -1}, "name": "ab"}]}`)
	for _, tc := range []struct {
		cmd  string
		code document.Code
	}{
		{`{"find": "mm1", "hint": {"a": 1}, "min": {"a": 6}, "max": {"a": 3}, "sort": {"a": -1}}`, 51175},
		{`{"find": "mm1", "hint": {"a": 1}, "min": {"a": 2}, "max": {"a": 2}}`, 51175},
		{`{"find": "mm1", "hint": {"a": 1, "b": -1}, "min": {"a": 1, "b": 1}, "max": {"a": 1}}`, 51176},
		{`{"find": "mm1", "hint": {"a": 1, "b": -1}, "min": {"b": 1}, "max": {"a": 1, "b": 2}}`, 51176},
		{`{"find": "mm1", "hint": {"$natural": 1}, "min": {"a": 1}}`, 291},
	} {
		r, err := run(t, db, "test", tc.cmd)
		var e *Error
		if err == nil || !errorsAs(err, &e) || e.Code != tc.code {
			t.Errorf("%s: %v %v, want code %d", tc.cmd, fmtValue(r), err, tc.code)
		}
	}
}

func errorsAs(err error, e **Error) bool {
	x, ok := err.(*Error)
	if ok {
		*e = x
	}
	return ok
}

// The explain of an update statement with c: the constants must reach
// the pipeline as they do when it runs. ttlkv's explain drops them and
// fails with 17276 "Use of undefined variable: f".
func TestReviewExplainUpdateConstants(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	rvReset(t, db, "ec", `{"_id": 0, "n": 2}`)
	if _, err := run(t, db, "test", `{"explain": {"update": "ec", "updates": [{"q": {"_id": 0}, "u": [{"$set": {"m": {"$multiply": ["$n", "$$f"]}}}], "c": {"f": 10}}]}}`); err != nil {
		t.Errorf("explain of a pipeline update with c: %v", err)
	}
	// The statement's sort picks the document the explained update reads.
	mustRun(t, db, "test", `{"update": "ec", "updates": [{"q": {"_id": 0}, "u": [{"$set": {"m": {"$multiply": ["$n", "$$f"]}}}], "c": {"f": 10}}]}`)
	if got := rvDoc(t, db, "ec", 0); got != `{ _id: 0, n: 2, m: 20 }` {
		t.Errorf("update with c: %s", got)
	}
}

// showRecordId on a capped collection: mongod adds $recordId to each
// document as for any collection (jstests/core/show_record_id.js runs
// on capped collections in its passthroughs); ttlkv's capped reads drop
// the option and answer without it.
func TestReviewShowRecordIDCapped(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "capri", "capped": true, "size": 100000}`)
	loadCorpus(t, db, "test", "capri", []string{`{"_id": 1, "a": 1}`, `{"_id": 2, "a": 2}`})
	for _, d := range firstBatch(t, mustRun(t, db, "test", `{"find": "capri", "filter": {}, "showRecordId": true}`)) {
		if d[len(d)-1].Key != "$recordId" {
			t.Errorf("capped find with showRecordId: %s has no $recordId", fmtValue(d))
		}
	}
	// A tailable cursor's getMore reads records its own way.
	r := mustRun(t, db, "test", `{"find": "capri", "filter": {}, "showRecordId": true, "tailable": true, "batchSize": 1}`)
	id := field(r, "cursor.id")
	loadCorpus(t, db, "test", "capri", []string{`{"_id": 3, "a": 3}`})
	seen := 0
	for range 3 {
		r = mustRun(t, db, "test", fmt.Sprintf(`{"getMore": %d, "collection": "capri", "batchSize": 5}`, id))
		for _, d := range field(r, "cursor.nextBatch").(bson.A) {
			doc := d.(bson.D)
			seen++
			if doc[len(doc)-1].Key != "$recordId" {
				t.Errorf("tailable getMore with showRecordId: %s has no $recordId", fmtValue(doc))
			}
		}
	}
	if seen != 2 {
		t.Errorf("tailable getMore returned %d documents, want 2", seen)
	}
}

// What is sound: showRecordId across getMore batches, with a sort, a
// projection and returnKey, and the carrier never comes out or gets
// stored; $bit and the bitwise query operators on jstests' data.
func TestReviewSoundRecordIDAndBits(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 7; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %d}`, i, i%3))
	}
	rvReset(t, db, "ri2", docs...)
	mustRun(t, db, "test", `{"createIndexes": "ri2", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	for _, cmd := range []string{
		`{"find": "ri2", "filter": {}, "showRecordId": true, "batchSize": 2}`,
		`{"find": "ri2", "filter": {"a": {"$gte": 0}}, "sort": {"a": -1}, "showRecordId": true, "batchSize": 2, "projection": {"_id": 0}}`,
		`{"find": "ri2", "filter": {}, "hint": "a_1", "returnKey": true, "showRecordId": true, "batchSize": 2}`,
	} {
		r := mustRun(t, db, "test", cmd)
		all := firstBatch(t, r)
		id, _ := field(r, "cursor.id").(int64)
		for id != 0 {
			g := mustRun(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "ri2", "batchSize": 2}`, id))
			nb, _ := field(g, "cursor.nextBatch").(bson.A)
			for _, x := range nb {
				all = append(all, x.(bson.D))
			}
			id, _ = field(g, "cursor.id").(int64)
		}
		if len(all) != 7 {
			t.Errorf("%s: %d documents", cmd, len(all))
		}
		for _, d := range all {
			if d[len(d)-1].Key != "$recordId" {
				t.Errorf("%s: %s", cmd, fmtValue(d))
			}
			for _, e := range d {
				if e.Key == recordIDField || e.Key == "\x00textScore" {
					t.Errorf("%s: carrier in %v", cmd, d)
				}
			}
		}
	}
	// jstests/core/query/bittest.js, numbers and negative numbers.
	rvReset(t, db, "bt", `{"_id": 1, "a": 0}`, `{"_id": 2, "a": 1}`, `{"_id": 3, "a": 54}`, `{"_id": 4, "a": 88}`, `{"_id": 5, "a": 255}`, `{"_id": 6, "a": 1e18}`)
	for _, tc := range []struct {
		q string
		n int
	}{
		{`{"$bitsAllSet": 54}`, 2}, {`{"$bitsAllClear": 129}`, 4}, {`{"$bitsAnySet": 9}`, 3}, {`{"$bitsAnyClear": 255}`, 5},
		{`{"$bitsAllSet": [3, 4, 6]}`, 2}, {`{"$bitsAnyClear": [1, 4]}`, 4}, {`{"$bitsAllSet": 54, "$bitsAllClear": 201}`, 1},
	} {
		if got := len(firstBatch(t, mustRun(t, db, "test", `{"find": "bt", "filter": {"a": `+tc.q+`}}`))); got != tc.n {
			t.Errorf("%s: %d, want %d", tc.q, got, tc.n)
		}
	}
	rvReset(t, db, "bt2", `{"_id": 1, "a": -0.0}`, `{"_id": 2, "a": -1}`, `{"_id": 3, "a": -54}`, `{"_id": 4, "a": -1e18}`)
	for _, tc := range []struct {
		q string
		n int
	}{
		{`{"$bitsAllSet": 74}`, 2}, {`{"$bitsAllClear": 53}`, 3}, {`{"$bitsAnySet": 127}`, 2}, {`{"$bitsAllSet": [1, 7, 6, 3, 100]}`, 2},
		{`{"$bitsAnyClear": [0, 2, 4, 5, 100]}`, 3},
	} {
		if got := len(firstBatch(t, mustRun(t, db, "test", `{"find": "bt2", "filter": {"a": `+tc.q+`}}`))); got != tc.n {
			t.Errorf("negative %s: %d, want %d", tc.q, got, tc.n)
		}
	}
	// Hostile operands: errors, never a panic.
	for _, q := range []string{`{"$bitsAllSet": -1}`, `{"$bitsAllSet": [-1]}`, `{"$bitsAllSet": [1.5]}`, `{"$bitsAllSet": "x"}`, `{"$bitsAllSet": 1e300}`, `{"$bitsAllSet": {"$numberDecimal": "NaN"}}`} {
		if _, err := run(t, db, "test", `{"find": "bt", "filter": {"a": `+q+`}}`); err == nil {
			t.Errorf("%s: no error", q)
		}
	}
	rvReset(t, db, "bu", `{"_id": 1, "a": {"$numberInt": "2"}}`)
	mustRun(t, db, "test", `{"update": "bu", "updates": [{"q": {}, "u": {"$bit": {"a": {"or": {"$numberInt": "4"}, "and": {"$numberLong": "6"}}, "b": {"xor": {"$numberLong": "3"}}}}}]}`)
	d := firstBatch(t, mustRun(t, db, "test", `{"find": "bu", "filter": {}}`))[0]
	if a, ok := field(d, "a").(int64); !ok || a != 6 {
		t.Errorf("$bit or then and: %v", fmtValue(d))
	}
	if b, ok := field(d, "b").(int64); !ok || b != 3 {
		t.Errorf("$bit on a missing field: %v", fmtValue(d))
	}
	r := mustRun(t, db, "test", `{"update": "bu", "updates": [{"q": {}, "u": {"$bit": {"a": {}}}}]}`)
	if c, _ := rvWriteError(t, r); c == 0 {
		t.Errorf("empty $bit: no error")
	}
}
