package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Review of the update operators against mongod 7.0, session 28. The
// cases come from mongod's jstests under jstests/core/write/update/ (named
// in each table) and from the error paths of src/mongo/db/update/.

// u28Case is one update statement run against a fresh collection: the
// documents before, the statement, and either the documents after (in
// _id order; with noID the upserted _id is left out) or the write error's
// code and a fragment of its message.
type u28Case struct {
	name string
	docs []string
	stmt string // one entry of the update command's "updates"
	want []string
	noID bool
	code int32
	msg  string
}

// canon renders a document as canonical Extended JSON, which keeps the
// numeric types apart.
func canon(t *testing.T, d bson.D) string {
	t.Helper()
	b, err := document.MarshalExtJSON(d, true)
	if err != nil {
		t.Fatalf("marshal %v: %v", d, err)
	}
	return string(b)
}

func runU28(t *testing.T, db *DB, coll string, tc u28Case) {
	t.Helper()
	run(t, db, "test", `{"drop": "`+coll+`"}`)
	if len(tc.docs) > 0 {
		loadCorpus(t, db, "test", coll, tc.docs)
	} else {
		mustRun(t, db, "test", `{"create": "`+coll+`"}`)
	}
	r, err := run(t, db, "test", `{"update": "`+coll+`", "updates": [`+tc.stmt+`]}`)
	var code int32
	var msg string
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: %v", tc.name, err)
		}
		code, msg = int32(e.Code), e.Message
	} else {
		code, msg = rvWriteError(t, r)
	}
	if code != tc.code {
		t.Errorf("%s: code %d (%s), want %d %q", tc.name, code, msg, tc.code, tc.msg)
		return
	}
	if tc.code != 0 {
		if !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: message %q, want it to contain %q", tc.name, msg, tc.msg)
		}
		return
	}
	proj := ""
	if tc.noID {
		proj = `, "projection": {"_id": 0}`
	}
	got := firstBatch(t, mustRun(t, db, "test", `{"find": "`+coll+`", "sort": {"_id": 1}`+proj+`}`))
	var gs, ws []string
	for _, d := range got {
		gs = append(gs, canon(t, d))
	}
	for _, w := range tc.want {
		d, err := document.ParseExtJSON([]byte(w))
		if err != nil {
			t.Fatalf("%s: bad want %s: %v", tc.name, w, err)
		}
		ws = append(ws, canon(t, d))
	}
	if strings.Join(gs, "\n") != strings.Join(ws, "\n") {
		t.Errorf("%s:\n got %s\nwant %s", tc.name, strings.Join(gs, "\n     "), strings.Join(ws, "\n     "))
	}
}

func runU28Table(t *testing.T, coll string, cases []u28Case) {
	t.Helper()
	db, _ := openMem(t)
	for _, tc := range cases {
		runU28(t, db, coll, tc)
	}
}

// jstests/core/write/push/push_sort.js, push2.js, push_position and
// src/mongo/db/update/push_node.cpp.
func TestUpd28Push(t *testing.T) {
	t.Parallel()
	d := []string{`{"_id": 1, "a": [1, 2]}`}
	runU28Table(t, "u28push", []u28Case{
		{name: "push one", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": 3}}}`, want: []string{`{"_id": 1, "a": [1, 2, 3]}`}},
		{name: "push creates", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$push": {"a": 3}}}`, want: []string{`{"_id": 1, "a": [3]}`}},
		{name: "push array value", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": [3]}}}`, want: []string{`{"_id": 1, "a": [1, 2, [3]]}`}},
		{name: "push doc without $each first", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$slice": 1, "$each": [3]}}}}`, want: []string{`{"_id": 1, "a": [1]}`}},
		{name: "each slice -2", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3, 4], "$slice": -2}}}}`, want: []string{`{"_id": 1, "a": [3, 4]}`}},
		{name: "each empty slice 1", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [], "$slice": 1}}}}`, want: []string{`{"_id": 1, "a": [1]}`}},
		{name: "slice 0", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$slice": 0}}}}`, want: []string{`{"_id": 1, "a": []}`}},
		{name: "slice double 1.0", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$slice": 1.0}}}}`, want: []string{`{"_id": 1, "a": [1]}`}},
		{name: "position 0", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3, 4], "$position": 0}}}}`, want: []string{`{"_id": 1, "a": [3, 4, 1, 2]}`}},
		{name: "position -1", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$position": -1}}}}`, want: []string{`{"_id": 1, "a": [1, 3, 2]}`}},
		{name: "position -5", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$position": -5}}}}`, want: []string{`{"_id": 1, "a": [3, 1, 2]}`}},
		{name: "position past end", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$position": 9}}}}`, want: []string{`{"_id": 1, "a": [1, 2, 3]}`}},
		{name: "sort 1", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3, 0], "$sort": 1}}}}`, want: []string{`{"_id": 1, "a": [0, 1, 2, 3]}`}},
		{name: "sort -1 slice 2", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3, 0], "$sort": -1, "$slice": 2}}}}`, want: []string{`{"_id": 1, "a": [3, 2]}`}},
		{name: "sort position slice", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [5], "$position": 0, "$sort": 1, "$slice": -2}}}}`, want: []string{`{"_id": 1, "a": [2, 5]}`}},
		{name: "sort by field", docs: []string{`{"_id": 1, "a": [{"b": 3}, {"b": 1}]}`}, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [{"b": 2}], "$sort": {"b": 1}}}}}`, want: []string{`{"_id": 1, "a": [{"b": 1}, {"b": 2}, {"b": 3}]}`}},
		{name: "sort by field desc slice", docs: []string{`{"_id": 1, "a": [{"b": 3, "c": 1}, {"b": 1}]}`}, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [{"b": 2}], "$sort": {"b": -1}, "$slice": 2}}}}`, want: []string{`{"_id": 1, "a": [{"b": 3, "c": 1}, {"b": 2}]}`}},
		{name: "sort by field non-docs are null", docs: []string{`{"_id": 1, "a": [{"b": 1}, 5, {"b": 0}]}`}, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [], "$sort": {"b": 1}}}}}`, want: []string{`{"_id": 1, "a": [5, {"b": 0}, {"b": 1}]}`}},
		{name: "sort by array field compares arrays", docs: []string{`{"_id": 1, "a": [{"b": [1, 5]}, {"b": 3}]}`}, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [], "$sort": {"b": 1}}}}}`, want: []string{`{"_id": 1, "a": [{"b": 3}, {"b": [1, 5]}]}`}},
		{name: "push sort slice on missing", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3, 1, 2], "$sort": 1, "$slice": 2}}}}`, want: []string{`{"_id": 1, "a": [1, 2]}`}},
		{name: "push slice min long", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$slice": {"$numberLong": "-9223372036854775808"}}}}}`, want: []string{`{"_id": 1, "a": [1, 2, 3]}`}},
		{name: "push position long", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$position": {"$numberLong": "1"}}}}}`, want: []string{`{"_id": 1, "a": [1, 3, 2]}`}},
		{name: "push nested sort field", docs: []string{`{"_id": 1, "a": [{"b": {"c": 2}}, {"b": {"c": 1}}]}`}, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [], "$sort": {"b.c": 1}}}}}`, want: []string{`{"_id": 1, "a": [{"b": {"c": 1}}, {"b": {"c": 2}}]}`}},
		{name: "push sort two fields", docs: []string{`{"_id": 1, "a": [{"x": 1, "y": 1}, {"x": 1, "y": 2}, {"x": 0, "y": 3}]}`}, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [], "$sort": {"x": -1, "y": -1}}}}}`, want: []string{`{"_id": 1, "a": [{"x": 1, "y": 2}, {"x": 1, "y": 1}, {"x": 0, "y": 3}]}`}},
		{name: "push to non-array", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$push": {"a": 3}}}`, code: 2, msg: "The field 'a' must be an array but is of type int in document {_id: 1}"},
		{name: "each not array", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": 3}}}}`, code: 2, msg: "The argument to $each in $push must be an array but it was of type: int"},
		{name: "unknown clause", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$foo": 1}}}}`, code: 2, msg: "Unrecognized clause in $push: $foo"},
		{name: "slice not integer", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$slice": "x"}}}}`, code: 2, msg: "The value for $slice must be an integer value but was given type: string"},
		{name: "slice fraction", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$slice": 1.5}}}}`, code: 2, msg: "The value for $slice must be an integer value but was given type: double"},
		{name: "position not integer", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$position": "x"}}}}`, code: 2, msg: "The value for $position must be an integer value, not of type: string"},
		{name: "sort 2", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$sort": 2}}}}`, code: 2, msg: "The $sort element value must be either 1 or -1"},
		{name: "sort string", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$sort": "x"}}}}`, code: 2, msg: "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields"},
		{name: "sort empty doc", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$sort": {}}}}}`, code: 2, msg: "The $sort pattern is empty when it should be a set of fields."},
		{name: "sort field 2", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$sort": {"b": 2}}}}}`, code: 2, msg: "The $sort element value must be either 1 or -1"},
		{name: "sort field empty part", docs: d, stmt: `{"q": {}, "u": {"$push": {"a": {"$each": [3], "$sort": {"b..c": 1}}}}}`, code: 2, msg: "The $sort field is a dotted field but has an empty part: b..c"},
	})
}

// jstests/core/write/update/update_addToSet.js, update_addToSet2.js,
// update_addToSet3.js and addtoset_node.cpp.
func TestUpd28AddToSet(t *testing.T) {
	t.Parallel()
	runU28Table(t, "u28ats", []u28Case{
		{name: "addToSet new", docs: []string{`{"_id": 1, "a": [2]}`}, stmt: `{"q": {}, "u": {"$addToSet": {"a": 3}}}`, want: []string{`{"_id": 1, "a": [2, 3]}`}},
		{name: "addToSet present", docs: []string{`{"_id": 1, "a": [2]}`}, stmt: `{"q": {}, "u": {"$addToSet": {"a": 2}}}`, want: []string{`{"_id": 1, "a": [2]}`}},
		{name: "addToSet each dedups", docs: []string{`{"_id": 1, "a": [2]}`}, stmt: `{"q": {}, "u": {"$addToSet": {"a": {"$each": [1, 2, 1, 3]}}}}`, want: []string{`{"_id": 1, "a": [2, 1, 3]}`}},
		{name: "addToSet numeric equality", docs: []string{`{"_id": 1, "a": [2]}`}, stmt: `{"q": {}, "u": {"$addToSet": {"a": 2.0}}}`, want: []string{`{"_id": 1, "a": [2]}`}},
		{name: "addToSet doc field order", docs: []string{`{"_id": 1, "a": [{"x": 1, "y": 2}]}`}, stmt: `{"q": {}, "u": {"$addToSet": {"a": {"y": 2, "x": 1}}}}`, want: []string{`{"_id": 1, "a": [{"x": 1, "y": 2}, {"y": 2, "x": 1}]}`}},
		{name: "addToSet creates", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$addToSet": {"a": {"$each": [1, 1]}}}}`, want: []string{`{"_id": 1, "a": [1]}`}},
		{name: "addToSet each not first is a value", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$addToSet": {"a": {"b": 1, "$each": [1]}}}}`, want: []string{`{"_id": 1, "a": [{"b": 1, "$each": [1]}]}`}},
		// update_addToSet.js: dotted and $-prefixed names are fine when
		// nested, as is a nested _id.
		{name: "addToSet nested odd names", docs: []string{`{"_id": 1, "a": [1]}`}, stmt: `{"q": {}, "u": {"$addToSet": {"a": {"$each": [{"x.$.y": "bad"}, {"b": {"$bad": "bad"}}, {"_id": {"x.y": 2}}]}}}}`, want: []string{`{"_id": 1, "a": [1, {"x.$.y": "bad"}, {"b": {"$bad": "bad"}}, {"_id": {"x.y": 2}}]}`}},
		{name: "addToSet dollar value", docs: []string{`{"_id": 1, "a": [1]}`}, stmt: `{"q": {}, "u": {"$addToSet": {"a": {"$bad": "bad"}}}}`, want: []string{`{"_id": 1, "a": [1, {"$bad": "bad"}]}`}},
		{name: "addToSet upsert each", stmt: `{"q": {"_id": 1}, "u": {"$addToSet": {"a": {"$each": [1, 2, 1, 2]}}}, "upsert": true}`, want: []string{`{"_id": 1, "a": [1, 2]}`}},
		{name: "addToSet non-array", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$addToSet": {"a": 3}}}`, code: 2, msg: "Cannot apply $addToSet to non-array field. Field named 'a' has non-array type int"},
		{name: "addToSet each not array", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$addToSet": {"a": {"$each": 3}}}}`, code: 14, msg: "The argument to $each in $addToSet must be an array but it was of type int"},
		{name: "addToSet each with slice", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$addToSet": {"a": {"$each": [3], "$slice": 1}}}}`, code: 2, msg: "Found unexpected fields after $each in $addToSet: { $each: [ 3 ], $slice: 1 }"},
	})
}

// jstests/core/write/update/pull_remove1.js, pull*.js, pullall*.js,
// update_modifier_pop.js and pull_node.cpp, pullall_node.cpp,
// pop_node.cpp, update_leaf_node.cpp (checkViability).
func TestUpd28PullPop(t *testing.T) {
	t.Parallel()
	runU28Table(t, "u28pull", []u28Case{
		{name: "pull value", docs: []string{`{"_id": 1, "a": [1, 2, 3, 2]}`}, stmt: `{"q": {}, "u": {"$pull": {"a": 2}}}`, want: []string{`{"_id": 1, "a": [1, 3]}`}},
		{name: "pull condition", docs: []string{`{"_id": 1, "a": [1, 2, 3, 2]}`}, stmt: `{"q": {}, "u": {"$pull": {"a": {"$gte": 2}}}}`, want: []string{`{"_id": 1, "a": [1]}`}},
		{name: "pull doc subset", docs: []string{`{"_id": 1, "a": [{"b": 1, "c": 1}, {"b": 2}, 1]}`}, stmt: `{"q": {}, "u": {"$pull": {"a": {"b": 1}}}}`, want: []string{`{"_id": 1, "a": [{"b": 2}, 1]}`}},
		{name: "pull doc condition", docs: []string{`{"_id": 1, "a": [{"b": 1}, {"b": 2}]}`}, stmt: `{"q": {}, "u": {"$pull": {"a": {"b": {"$gt": 1}}}}}`, want: []string{`{"_id": 1, "a": [{"b": 1}]}`}},
		{name: "pull array value", docs: []string{`{"_id": 1, "a": [[1, 2], [1], 1]}`}, stmt: `{"q": {}, "u": {"$pull": {"a": [1, 2]}}}`, want: []string{`{"_id": 1, "a": [[1], 1]}`}},
		{name: "pull in", docs: []string{`{"_id": 1, "a": [1, 2, 3]}`}, stmt: `{"q": {}, "u": {"$pull": {"a": {"$in": [1, 3]}}}}`, want: []string{`{"_id": 1, "a": [2]}`}},
		// pull_node.cpp: a document without operators matches document
		// elements only, {} every document element; $elemMatch an
		// array element.
		{name: "pull elemMatch", docs: []string{`{"_id": 1, "a": [[{"b": 1}], [{"b": 2}], {"b": 1}]}`}, stmt: `{"q": {}, "u": {"$pull": {"a": {"$elemMatch": {"b": 1}}}}}`, want: []string{`{"_id": 1, "a": [[{"b": 2}], {"b": 1}]}`}},
		{name: "pull empty doc", docs: []string{`{"_id": 1, "a": [{"b": 1}, 1, {}, [1]]}`}, stmt: `{"q": {}, "u": {"$pull": {"a": {}}}}`, want: []string{`{"_id": 1, "a": [1, [1]]}`}},
		{name: "pull doc with and", docs: []string{`{"_id": 1, "a": [{"b": 1, "c": 2}, {"b": 1}, 1]}`}, stmt: `{"q": {}, "u": {"$pull": {"a": {"$and": [{"b": 1}, {"c": 2}]}}}}`, want: []string{`{"_id": 1, "a": [{"b": 1}, 1]}`}},
		{name: "pull doc over array field", docs: []string{`{"_id": 1, "a": [{"b": [1, 2]}, {"b": 3}]}`}, stmt: `{"q": {}, "u": {"$pull": {"a": {"b": 2}}}}`, want: []string{`{"_id": 1, "a": [{"b": 3}]}`}},
		{name: "pull equal numbers", docs: []string{`{"_id": 1, "a": [1, 1.0, {"$numberLong": "1"}, 2]}`}, stmt: `{"q": {}, "u": {"$pull": {"a": 1}}}`, want: []string{`{"_id": 1, "a": [2]}`}},
		{name: "pull missing", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$pull": {"a": 1}}}`, want: []string{`{"_id": 1}`}},
		{name: "pull non-array", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$pull": {"a": 1}}}`, code: 2, msg: "Cannot apply $pull to a non-array value"},
		{name: "pull through scalar", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$pull": {"a.b": 1}}}`, code: 28, msg: "Cannot use the part (b) of (a.b) to traverse the element ({a: 1})"},
		{name: "pullAll", docs: []string{`{"_id": 1, "a": [1, 2, 3, 1]}`}, stmt: `{"q": {}, "u": {"$pullAll": {"a": [1, 3]}}}`, want: []string{`{"_id": 1, "a": [2]}`}},
		{name: "pullAll not array", docs: []string{`{"_id": 1, "a": [1]}`}, stmt: `{"q": {}, "u": {"$pullAll": {"a": 1}}}`, code: 2, msg: "$pullAll requires an array argument but was given a int"},
		{name: "pullAll non-array field", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$pullAll": {"a": [1]}}}`, code: 2, msg: "Cannot apply $pull to a non-array value"},
		{name: "pop 0", docs: []string{`{"_id": 0}`}, stmt: `{"q": {}, "u": {"$pop": {"a.b": 0}}}`, code: 9, msg: "$pop expects 1 or -1, found: 0"},
		{name: "pop 2.5", docs: []string{`{"_id": 0}`}, stmt: `{"q": {}, "u": {"$pop": {"a.b": 2.5}}}`, code: 9, msg: "Expected an integer: a.b: 2.5"},
		{name: "pop -2", docs: []string{`{"_id": 0}`}, stmt: `{"q": {}, "u": {"$pop": {"a.b": -2}}}`, code: 9, msg: "$pop expects 1 or -1, found: -2"},
		{name: "pop 1.0", docs: []string{`{"_id": 0, "a": [1, 2]}`}, stmt: `{"q": {}, "u": {"$pop": {"a": 1.0}}}`, want: []string{`{"_id": 0, "a": [1]}`}},
		{name: "pop doc", docs: []string{`{"_id": 0}`}, stmt: `{"q": {}, "u": {"$pop": {"a": {"b": 1}}}}`, code: 9, msg: "Expected a number in: a: { b: 1 }"},
		{name: "pop missing", docs: []string{`{"_id": 0, "a": {"c": 1}}`}, stmt: `{"q": {}, "u": {"$pop": {"a.b": 1}}}`, want: []string{`{"_id": 0, "a": {"c": 1}}`}},
		{name: "pop through scalar", docs: []string{`{"_id": 0, "a": {"b": 1}}`}, stmt: `{"q": {}, "u": {"$pop": {"a.b.c": 1}}}`, code: 28, msg: "Cannot use the part (c) of (a.b.c) to traverse the element ({b: 1})"},
		{name: "pop through array", docs: []string{`{"_id": 0, "a": {"b": [1, 2]}}`}, stmt: `{"q": {}, "u": {"$pop": {"a.b.c": 1}}}`, code: 28, msg: "Cannot use the part (c) of (a.b.c) to traverse the element ({b: [ 1, 2 ]})"},
		{name: "pop non-array", docs: []string{`{"_id": 0, "a": {"b": {"c": 1}}}`}, stmt: `{"q": {}, "u": {"$pop": {"a.b": 1}}}`, code: 14, msg: "Path 'a.b' contains an element of non-array type 'object'"},
		{name: "pop last", docs: []string{`{"_id": 0, "a": {"b": [1, 2, 3]}}`}, stmt: `{"q": {}, "u": {"$pop": {"a.b": 1}}}`, want: []string{`{"_id": 0, "a": {"b": [1, 2]}}`}},
		{name: "pop first", docs: []string{`{"_id": 0, "a": {"b": [1, 2, 3]}}`}, stmt: `{"q": {}, "u": {"$pop": {"a.b": -1}}}`, want: []string{`{"_id": 0, "a": {"b": [2, 3]}}`}},
		{name: "pop positional", docs: []string{`{"_id": 0, "a": [{"b": [1, 2, 3]}, {"b": [4, 5, 6]}]}`}, stmt: `{"q": {"a.b": 5}, "u": {"$pop": {"a.$.b": 1}}}`, want: []string{`{"_id": 0, "a": [{"b": [1, 2, 3]}, {"b": [4, 5]}]}`}},
		{name: "pop arrayFilters", docs: []string{`{"_id": 0, "a": [{"b": [1, 2]}, {"b": [4, 5]}, {"b": [2, 3]}]}`}, stmt: `{"q": {}, "u": {"$pop": {"a.$[i].b": -1}}, "arrayFilters": [{"i.b": 2}]}`, want: []string{`{"_id": 0, "a": [{"b": [2]}, {"b": [4, 5]}, {"b": [3]}]}`}},
		{name: "pop nested", docs: []string{`{"_id": 0, "a": [1, [2, 3, 4]]}`}, stmt: `{"q": {}, "u": {"$pop": {"a.1": 1}}}`, want: []string{`{"_id": 0, "a": [1, [2, 3]]}`}},
		{name: "pop element past end", docs: []string{`{"_id": 0, "a": [{"b": 0}, {"b": 1}]}`}, stmt: `{"q": {}, "u": {"$pop": {"a.2.b": 1}}}`, want: []string{`{"_id": 0, "a": [{"b": 0}, {"b": 1}]}`}},
		{name: "unset through scalar is a no-op", docs: []string{`{"_id": 0, "a": 1}`}, stmt: `{"q": {}, "u": {"$unset": {"a.b": 1}}}`, want: []string{`{"_id": 0, "a": 1}`}},
	})
}

// jstests/core/write/update/rename_*.js and rename_node.cpp.
func TestUpd28Rename(t *testing.T) {
	t.Parallel()
	runU28Table(t, "u28ren", []u28Case{
		{name: "rename", docs: []string{`{"_id": 1, "a": 1, "b": 2}`}, stmt: `{"q": {}, "u": {"$rename": {"a": "c"}}}`, want: []string{`{"_id": 1, "b": 2, "c": 1}`}},
		{name: "rename over existing keeps place", docs: []string{`{"_id": 1, "a": 1, "b": 2, "c": 3}`}, stmt: `{"q": {}, "u": {"$rename": {"c": "a"}}}`, want: []string{`{"_id": 1, "a": 3, "b": 2}`}},
		{name: "rename nested", docs: []string{`{"_id": 1, "a": {"b": 1}}`}, stmt: `{"q": {}, "u": {"$rename": {"a.b": "c.d"}}}`, want: []string{`{"_id": 1, "a": {}, "c": {"d": 1}}`}},
		// mongod places a $rename at its destination in the update tree,
		// so it applies in the destination's place among the paths.
		{name: "rename applies at its destination's place", docs: []string{`{"_id": 1, "z": 1}`}, stmt: `{"q": {}, "u": {"$rename": {"z": "a"}, "$set": {"b": 1}}}`, want: []string{`{"_id": 1, "a": 1, "b": 1}`}},
		{name: "rename missing", docs: []string{`{"_id": 1, "a": {}}`}, stmt: `{"q": {}, "u": {"$rename": {"a.b": "c"}}}`, want: []string{`{"_id": 1, "a": {}}`}},
		{name: "rename an array", docs: []string{`{"_id": 1, "a": [1]}`}, stmt: `{"q": {}, "u": {"$rename": {"a": "b"}}}`, want: []string{`{"_id": 1, "b": [1]}`}},
		{name: "rename source through scalar", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$rename": {"a.b": "c"}}}`, code: 28, msg: "cannot use the part (b of a.b) to traverse the element"},
		{name: "rename source through array field", docs: []string{`{"_id": 1, "a": [{"b": 1}]}`}, stmt: `{"q": {}, "u": {"$rename": {"a.b": "c"}}}`, code: 28, msg: "cannot use the part (b of a.b) to traverse the element"},
		{name: "rename source array element", docs: []string{`{"_id": 1, "a": [{"b": 1}]}`}, stmt: `{"q": {}, "u": {"$rename": {"a.0.b": "c"}}}`, code: 2, msg: "The source field cannot be an array element, 'a.0.b' in doc with _id: 1 has an array field called 'a'"},
		{name: "rename dest array element", docs: []string{`{"_id": 1, "a": 1, "b": [1]}`}, stmt: `{"q": {}, "u": {"$rename": {"a": "b.0"}}}`, code: 2, msg: "The destination field cannot be an array element, 'b.0' in doc with _id: 1 has an array field called 'b'"},
		{name: "rename dest into array", docs: []string{`{"_id": 1, "a": 1, "b": [1]}`}, stmt: `{"q": {}, "u": {"$rename": {"a": "b.c"}}}`, code: 2, msg: "The destination field cannot be an array element, 'b.c' in doc with _id: 1 has an array field called 'b'"},
		{name: "rename dest through scalar", docs: []string{`{"_id": 1, "a": 1, "b": 1}`}, stmt: `{"q": {}, "u": {"$rename": {"a": "b.c"}}}`, code: 28, msg: "Cannot create field 'c' in element {b: 1}"},
		{name: "rename same", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$rename": {"a": "a"}}}`, code: 2, msg: "The source and target field for $rename must differ"},
		{name: "rename same path", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$rename": {"a": "a.b"}}}`, code: 2, msg: "The source and target field for $rename must not be on the same path"},
		{name: "rename to not string", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$rename": {"a": 1}}}`, code: 2, msg: "The 'to' field for $rename must be a string"},
		{name: "rename _id", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$rename": {"_id": "b"}}}`, code: 66, msg: "Unsetting the path '_id' using $rename would modify the immutable field '_id'"},
		{name: "rename to _id", docs: []string{`{"_id": 1, "a": 2}`}, stmt: `{"q": {}, "u": {"$rename": {"a": "_id"}}}`, code: 66},
		{name: "rename conflicts with set", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$rename": {"a": "b"}, "$set": {"b": 1}}}`, code: 40},
	})
}

// jstests/core/write/update/update_mul_examples.js, inc*.js and
// arithmetic_node.cpp (SafeNum: int32 widens to int64, int64 overflow
// fails).
func TestUpd28Arith(t *testing.T) {
	t.Parallel()
	runU28Table(t, "u28ar", []u28Case{
		{name: "mul", docs: []string{`{"_id": 1, "a": 2}`}, stmt: `{"q": {}, "u": {"$mul": {"a": 10}}}`, want: []string{`{"_id": 1, "a": 20}`}},
		{name: "mul double", docs: []string{`{"_id": 1, "a": 2}`}, stmt: `{"q": {}, "u": {"$mul": {"a": -0.1}}}`, want: []string{`{"_id": 1, "a": -0.2}`}},
		{name: "mul missing int", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$mul": {"a": 5}}}`, want: []string{`{"_id": 1, "a": 0}`}},
		{name: "mul missing long", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$mul": {"a": {"$numberLong": "5"}}}}`, want: []string{`{"_id": 1, "a": {"$numberLong": "0"}}`}},
		{name: "mul missing double", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$mul": {"a": 2.5}}}`, want: []string{`{"_id": 1, "a": 0.0}`}},
		{name: "mul missing negative double", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$mul": {"a": -2.5}}}`, want: []string{`{"_id": 1, "a": {"$numberDouble": "-0.0"}}`}},
		{name: "mul missing decimal", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$mul": {"a": {"$numberDecimal": "2.5"}}}}`, want: []string{`{"_id": 1, "a": {"$numberDecimal": "0.0"}}`}},
		{name: "inc int32 overflow widens", docs: []string{`{"_id": 1, "a": 2147483647}`}, stmt: `{"q": {}, "u": {"$inc": {"a": 1}}}`, want: []string{`{"_id": 1, "a": {"$numberLong": "2147483648"}}`}},
		{name: "mul int32 overflow widens", docs: []string{`{"_id": 1, "a": 65536}`}, stmt: `{"q": {}, "u": {"$mul": {"a": 65536}}}`, want: []string{`{"_id": 1, "a": {"$numberLong": "4294967296"}}`}},
		{name: "inc int + long", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$inc": {"a": {"$numberLong": "1"}}}}`, want: []string{`{"_id": 1, "a": {"$numberLong": "2"}}`}},
		{name: "inc int + double", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$inc": {"a": 0.5}}}`, want: []string{`{"_id": 1, "a": 1.5}`}},
		{name: "inc int + decimal", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$inc": {"a": {"$numberDecimal": "1.5"}}}}`, want: []string{`{"_id": 1, "a": {"$numberDecimal": "2.5"}}`}},
		{name: "inc long overflow", docs: []string{`{"_id": 1, "a": {"$numberLong": "9223372036854775807"}}`}, stmt: `{"q": {}, "u": {"$inc": {"a": 1}}}`, code: 2, msg: "Failed to apply $inc operations to current value ((NumberLong)9223372036854775807) for document {_id: 1}"},
		{name: "inc int by max long", docs: []string{`{"_id": 1, "a": 42}`}, stmt: `{"q": {}, "u": {"$inc": {"a": {"$numberLong": "9223372036854775807"}}}}`, code: 2, msg: "Failed to apply $inc operations to current value ((NumberInt)42) for document {_id: 1}"},
		{name: "mul long overflow", docs: []string{`{"_id": "x", "a": {"$numberLong": "4611686018427387904"}}`}, stmt: `{"q": {}, "u": {"$mul": {"a": 2}}}`, code: 2, msg: `Failed to apply $mul operations to current value ((NumberLong)4611686018427387904) for document {_id: "x"}`},
		{name: "inc non-numeric field", docs: []string{`{"_id": 1, "a": "x"}`}, stmt: `{"q": {}, "u": {"$inc": {"a": 1}}}`, code: 14, msg: "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 'a' of non-numeric type string"},
		{name: "inc non-numeric field oid", docs: []string{`{"_id": {"$oid": "5b23b109b8cb2081929c2fc0"}, "a": "x"}`}, stmt: `{"q": {}, "u": {"$inc": {"a": 1}}}`, code: 14, msg: "{_id: ObjectId('5b23b109b8cb2081929c2fc0')} has the field"},
		{name: "inc non-numeric arg", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$inc": {"a": "x"}}}`, code: 14, msg: `Cannot increment with non-numeric argument: {a: "x"}`},
		{name: "mul non-numeric arg", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$mul": {"a": null}}}`, code: 14, msg: `Cannot multiply with non-numeric argument: {a: null}`},
		{name: "inc 0 is a no-op", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$inc": {"a": 0}}}`, want: []string{`{"_id": 1, "a": 1}`}},
		{name: "inc 0.0 makes a double", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$inc": {"a": 0.0}}}`, want: []string{`{"_id": 1, "a": 1.0}`}},
	})
}

// jstests/core/write/update/update_min_max_examples.js, minmax*.js and
// compare_node.cpp: $min and $max compare in BSON order across types.
func TestUpd28MinMax(t *testing.T) {
	t.Parallel()
	runU28Table(t, "u28mm", []u28Case{
		{name: "min number", docs: []string{`{"_id": 1, "a": 2}`}, stmt: `{"q": {}, "u": {"$min": {"a": 1}}}`, want: []string{`{"_id": 1, "a": 1}`}},
		{name: "max number keeps", docs: []string{`{"_id": 1, "a": 2}`}, stmt: `{"q": {}, "u": {"$max": {"a": 1}}}`, want: []string{`{"_id": 1, "a": 2}`}},
		{name: "min equal other type keeps", docs: []string{`{"_id": 1, "a": 2}`}, stmt: `{"q": {}, "u": {"$min": {"a": 2.0}}}`, want: []string{`{"_id": 1, "a": 2}`}},
		{name: "max string over number", docs: []string{`{"_id": 1, "a": 2}`}, stmt: `{"q": {}, "u": {"$max": {"a": "x"}}}`, want: []string{`{"_id": 1, "a": "x"}`}},
		{name: "min string over number keeps", docs: []string{`{"_id": 1, "a": 2}`}, stmt: `{"q": {}, "u": {"$min": {"a": "x"}}}`, want: []string{`{"_id": 1, "a": 2}`}},
		{name: "min null", docs: []string{`{"_id": 1, "a": 2}`}, stmt: `{"q": {}, "u": {"$min": {"a": null}}}`, want: []string{`{"_id": 1, "a": null}`}},
		{name: "max missing", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$max": {"a.b": 3}}}`, want: []string{`{"_id": 1, "a": {"b": 3}}`}},
		{name: "max date", docs: []string{`{"_id": 1, "a": {"$date": "2021-01-01T00:00:00Z"}}`}, stmt: `{"q": {}, "u": {"$max": {"a": {"$date": "2021-01-01T00:00:00.002Z"}}}}`, want: []string{`{"_id": 1, "a": {"$date": "2021-01-01T00:00:00.002Z"}}`}},
		{name: "max object vs number", docs: []string{`{"_id": 1, "a": 5}`}, stmt: `{"q": {}, "u": {"$max": {"a": {"b": 1}}}}`, want: []string{`{"_id": 1, "a": {"b": 1}}`}},
		{name: "max positional", docs: []string{`{"_id": 7, "y": [{"a": 2}, {"a": 6}, {"a": [9, 1, 1]}]}`}, stmt: `{"q": {"_id": 7, "y.a": 6}, "u": {"$max": {"y.$.a": 7}}}`, want: []string{`{"_id": 7, "y": [{"a": 2}, {"a": 7}, {"a": [9, 1, 1]}]}`}},
		{name: "min positional", docs: []string{`{"_id": 8, "y": [{"a": 2}, {"a": 6}, {"a": [9, 1, 1]}]}`}, stmt: `{"q": {"_id": 8, "y.a": 6}, "u": {"$min": {"y.$.a": 5}}}`, want: []string{`{"_id": 8, "y": [{"a": 2}, {"a": 5}, {"a": [9, 1, 1]}]}`}},
		{name: "min small double", docs: []string{`{"_id": 6, "a": 1.000000000000001e-15}`}, stmt: `{"q": {}, "u": {"$min": {"a": 1e-15}}}`, want: []string{`{"_id": 6, "a": 1e-15}`}},
	})
}

// jstests/core/write/update/update_bit_examples.js and bit_node.cpp.
func TestUpd28Bit(t *testing.T) {
	t.Parallel()
	runU28Table(t, "u28bit", []u28Case{
		{name: "and", docs: []string{`{"_id": 1, "a": 5}`}, stmt: `{"q": {}, "u": {"$bit": {"a": {"and": 3}}}}`, want: []string{`{"_id": 1, "a": 1}`}},
		{name: "or", docs: []string{`{"_id": 1, "a": 5}`}, stmt: `{"q": {}, "u": {"$bit": {"a": {"or": 2}}}}`, want: []string{`{"_id": 1, "a": 7}`}},
		{name: "xor", docs: []string{`{"_id": 1, "a": 5}`}, stmt: `{"q": {}, "u": {"$bit": {"a": {"xor": 5}}}}`, want: []string{`{"_id": 1, "a": 0}`}},
		{name: "or long", docs: []string{`{"_id": 1, "a": 5}`}, stmt: `{"q": {}, "u": {"$bit": {"a": {"or": {"$numberLong": "8"}}}}}`, want: []string{`{"_id": 1, "a": {"$numberLong": "13"}}`}},
		{name: "missing", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$bit": {"a": {"or": 6}}}}`, want: []string{`{"_id": 1, "a": 6}`}},
		{name: "double arg", docs: []string{`{"_id": 1, "a": 5}`}, stmt: `{"q": {}, "u": {"$bit": {"a": {"and": 1.0}}}}`, code: 2, msg: "The $bit modifier field must be an Integer(32/64 bit); a 'double' is not supported here: {and: 1.0}"},
		{name: "unknown op", docs: []string{`{"_id": 1, "a": 5}`}, stmt: `{"q": {}, "u": {"$bit": {"a": {"not": 1}}}}`, code: 2, msg: "The $bit modifier only supports 'and', 'or', and 'xor', not 'not' which is an unknown operator: {not: 1}"},
		{name: "double field", docs: []string{`{"_id": 1, "a": 5.0}`}, stmt: `{"q": {}, "u": {"$bit": {"a": {"and": 1}}}}`, code: 2, msg: "Cannot apply $bit to a value of non-integral type._id: 1 has the field a of non-integer type double"},
		{name: "not a doc", docs: []string{`{"_id": 1, "a": 5}`}, stmt: `{"q": {}, "u": {"$bit": {"a": 1}}}`, code: 2, msg: "The $bit modifier is not compatible with a int. You must pass in an embedded document"},
		{name: "empty", docs: []string{`{"_id": 1, "a": 5}`}, stmt: `{"q": {}, "u": {"$bit": {"a": {}}}}`, code: 2, msg: "You must pass in at least one bitwise operation"},
	})
}

// jstests/core/write/update/update_currentdate_examples.js,
// update_setOnInsert.js and current_date_node.cpp.
func TestUpd28CurrentDateSetOnInsert(t *testing.T) {
	t.Parallel()
	runU28Table(t, "u28cd", []u28Case{
		{name: "currentDate true", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$currentDate": {"a": true}}}`, want: []string{`{"_id": 1, "a": {"$date": "2026-11-22T12:00:00Z"}}`}},
		{name: "currentDate false is a date", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$currentDate": {"a": false}}}`, want: []string{`{"_id": 1, "a": {"$date": "2026-11-22T12:00:00Z"}}`}},
		{name: "currentDate type date", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$currentDate": {"a": {"$type": "date"}}}}`, want: []string{`{"_id": 1, "a": {"$date": "2026-11-22T12:00:00Z"}}`}},
		{name: "currentDate number", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$currentDate": {"a": 1}}}`, code: 2, msg: "int is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'})."},
		{name: "currentDate bad type", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$currentDate": {"a": {"$type": "x"}}}}`, code: 2, msg: "The '$type' string field is required to be 'date' or 'timestamp'"},
		{name: "currentDate extra field", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$currentDate": {"a": {"$type": "date", "b": 1}}}}`, code: 2, msg: "Unrecognized $currentDate option: b"},
		{name: "setOnInsert on update", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$setOnInsert": {"a": 1}, "$set": {"b": 1}}}`, want: []string{`{"_id": 1, "b": 1}`}},
		{name: "setOnInsert on upsert", stmt: `{"q": {"_id": 1}, "u": {"$setOnInsert": {"a": 1}, "$set": {"b": 1}}, "upsert": true}`, want: []string{`{"_id": 1, "a": 1, "b": 1}`}},
		{name: "setOnInsert _id", stmt: `{"q": {"x": 1}, "u": {"$setOnInsert": {"_id": 5}}, "upsert": true}`, want: []string{`{"_id": 5, "x": 1}`}},
		{name: "setOnInsert conflicts", stmt: `{"q": {}, "u": {"$setOnInsert": {"a": 1}, "$set": {"a.b": 1}}, "upsert": true}`, code: 40},
	})
}

// jstests/core/write/update/upsert_fields.js, upsert_and.js and
// update_driver.cpp with path_support.cpp: an upsert seeds its document
// with the filter's equalities (after the query is simplified: a lone
// $or branch, a one-value $in or $all, nested $and), set in path order;
// a replacement takes only _id; two equalities on one path, or a path
// and its prefix, are 54 NotSingleValueField.
func TestUpd28Upsert(t *testing.T) {
	t.Parallel()
	up := func(name, q, u string, want ...string) u28Case {
		return u28Case{name: name, stmt: `{"q": ` + q + `, "u": ` + u + `, "upsert": true}`, want: want, noID: !strings.Contains(q, `"_id`) && !strings.Contains(u, `"_id`)}
	}
	upErr := func(name, q, u string, code int32, msg string) u28Case {
		return u28Case{name: name, stmt: `{"q": ` + q + `, "u": ` + u + `, "upsert": true}`, code: code, msg: msg}
	}
	set := `{"$set": {"a": 1}}`
	runU28Table(t, "u28ups", []u28Case{
		up("and fields in order", `{"_id": 1, "$and": [{"c": 1}, {"d": 1}], "a": 12}`, `{"$inc": {"y": 1}}`, `{"_id": 1, "a": 12, "c": 1, "d": 1, "y": 1}`),
		up("fields sorted by path", `{"b": 1, "a": 2}`, `{"$set": {"z": 1}}`, `{"a": 2, "b": 1, "z": 1}`),
		up("and or single", `{"$and": [{"c": 1}, {"d": 1}, {"$or": [{"x": 1}]}]}`, `{"$setOnInsert": {"_id": 1}}`, `{"_id": 1, "c": 1, "d": 1, "x": 1}`),
		up("or two branches ignored", `{"$and": [{"c": 1}, {"d": 1}], "$or": [{"x": 1}, {"x": 2}]}`, `{"$setOnInsert": {"_id": 1}}`, `{"_id": 1, "c": 1, "d": 1}`),
		up("gt and regex ignored", `{"r": {"$gt": 3}, "s": {"$regex": "s"}, "$and": [{"c": 1}, {"d": 1}]}`, `{"$setOnInsert": {"_id": 1}}`, `{"_id": 1, "c": 1, "d": 1}`),
		upErr("and conflict", `{"c": 2, "$and": [{"c": 1}, {"d": 1}]}`, `{"$setOnInsert": {"_id": 1}}`, 54, "cannot infer query fields to set, path 'c' is matched twice"),
		up("id eq", `{"_id": {"$eq": 1}}`, set, `{"_id": 1, "a": 1}`),
		up("id all one", `{"_id": {"$all": [1]}}`, set, `{"_id": 1, "a": 1}`),
		up("id in one", `{"_id": {"$in": [1]}}`, set, `{"_id": 1, "a": 1}`),
		up("id or one", `{"$or": [{"_id": 1}]}`, set, `{"_id": 1, "a": 1}`),
		up("id or eq one", `{"$or": [{"_id": {"$eq": 1}}]}`, set, `{"_id": 1, "a": 1}`),
		up("id or one replacement", `{"$or": [{"_id": 1}]}`, `{"a": 1}`, `{"_id": 1, "a": 1}`),
		up("x all one", `{"x": {"$all": [1]}}`, set, `{"x": 1, "a": 1}`),
		up("x or one", `{"$or": [{"x": {"$eq": 1}}]}`, set, `{"x": 1, "a": 1}`),
		up("x array", `{"x": [1, 2]}`, set, `{"x": [1, 2], "a": 1}`),
		up("x eq regex", `{"x": {"$eq": {"$regularExpression": {"pattern": "abc", "options": ""}}}}`, set, `{"x": {"$regularExpression": {"pattern": "abc", "options": ""}}, "a": 1}`),
		up("x regex ignored", `{"x": {"$regularExpression": {"pattern": "abc", "options": ""}}}`, set, `{"a": 1}`),
		up("x nor ignored", `{"$nor": [{"x": 1}]}`, set, `{"a": 1}`),
		up("x not ignored", `{"x": {"$not": {"$eq": 1}}}`, set, `{"a": 1}`),
		up("x in two ignored", `{"x": {"$in": [1, 2]}}`, set, `{"a": 1}`),
		up("x elemMatch ignored", `{"x": {"$elemMatch": {"$eq": 1}}}`, set, `{"a": 1}`),
		up("nested", `{"x.x": 1}`, set, `{"x": {"x": 1}, "a": 1}`),
		up("nested all", `{"x.x": {"$all": [1]}}`, set, `{"x": {"x": 1}, "a": 1}`),
		up("nested two", `{"x.y": 1, "x.x": 2}`, set, `{"x": {"x": 2, "y": 1}, "a": 1}`),
		up("nested id", `{"_id.x": 1, "_id.y": 2}`, set, `{"_id": {"x": 1, "y": 2}, "a": 1}`),
		upErr("x all two", `{"x": {"$all": [1, 2]}}`, set, 54, "cannot infer query fields to set, path 'x' is matched twice"),
		upErr("x and two", `{"$and": [{"x": 1}, {"x": 2}]}`, set, 54, "path 'x' is matched twice"),
		upErr("x prefix", `{"x": 1, "x.x": 1}`, set, 54, "cannot infer query fields to set, both paths 'x.x' and 'x' are matched"),
		upErr("x doc prefix", `{"x": {"x": 1}, "x.y": 1}`, set, 54, "both paths 'x.y' and 'x' are matched"),
		upErr("id twice", `{"$and": [{"_id": 1}, {"_id": 2}]}`, set, 54, "path '_id' is matched twice"),
		upErr("id twice replacement", `{"$and": [{"_id": 1}, {"_id": 2}]}`, `{"a": 1}`, 54, "path '_id' is matched twice"),
		upErr("nested id replacement", `{"_id.x": 1, "_id.y": 2}`, `{"a": 1}`, 111, "field at '_id' must be exactly specified, field at sub-path '_id.x'found"),
		upErr("id array", `{"_id": [1, 2]}`, set, 53, "The '_id' value cannot be of type array"),
		upErr("id eq array", `{"_id": {"$eq": [1, 2]}}`, `{"a": 1}`, 53, "The '_id' value cannot be of type array"),
		upErr("set id array", `{}`, `{"$set": {"_id": [1, 2]}}`, 53, "The '_id' value cannot be of type array"),
		upErr("replacement id regex", `{}`, `{"_id": {"$regularExpression": {"pattern": "abc", "options": ""}}}`, 53, "The '_id' value cannot be of type regex"),
		up("replacement ignores fields", `{"_id": 1, "x": [1, {"x": 1}], "x.x": 1}`, `{}`, `{"_id": 1}`),
		up("replacement ignores x", `{"x": 1}`, `{"a": 1}`, `{"a": 1}`),
		upErr("expr", `{"$expr": {"$eq": ["$a", 1]}}`, set, 224, "$expr is not allowed in the query predicate for an upsert"),
		upErr("expr in or", `{"$or": [{"x": 1}, {"$expr": {"$eq": ["$a", 1]}}]}`, set, 224, "$expr is not allowed in the query predicate for an upsert"),
		upErr("x undefined", `{"x": {"$undefined": true}}`, set, 2, "cannot compare to undefined"),
		upErr("id undefined replacement", `{"_id": {"$undefined": true}}`, `{}`, 2, "cannot compare to undefined"),
		upErr("set id undefined", `{}`, `{"$setOnInsert": {"_id": {"$undefined": true}}}`, 53, "The '_id' value cannot be of type undefined"),
		upErr("replacement id array", `{}`, `{"_id": [1, 2]}`, 53, "The '_id' value cannot be of type array"),
		{name: "expr matching", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {"$expr": {"$eq": ["$a", 1]}}, "u": {"$set": {"b": 1}}, "upsert": true}`, code: 224},
		up("dbref", `{"x.$id": 1}`, `{"$set": {"x": {"$ref": "a", "$id": 1}}}`, `{"x": {"$ref": "a", "$id": 1}}`),
	})
}

// Paths: conflicts (40), _id (66), empty updates, a path through a
// scalar (28), an element past an array's end (null padding), and the
// update of a field that is a number-named key.
func TestUpd28Paths(t *testing.T) {
	t.Parallel()
	runU28Table(t, "u28path", []u28Case{
		{name: "set conflict", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$set": {"a": 1, "a.b": 2}}}`, code: 40, msg: "Updating the path 'a.b' would create a conflict at 'a'"},
		{name: "set unset conflict", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$set": {"a.b": 1}, "$unset": {"a": 1}}}`, code: 40},
		{name: "set id", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$set": {"_id": 2}}}`, code: 66, msg: "Performing an update on the path '_id' would modify the immutable field '_id'"},
		{name: "set id same", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$set": {"_id": 1, "a": 2}}}`, want: []string{`{"_id": 1, "a": 2}`}},
		{name: "set id.x", docs: []string{`{"_id": {"x": 1}}`}, stmt: `{"q": {}, "u": {"$set": {"_id.x": 2}}}`, code: 66, msg: "Performing an update on the path '_id.x' would modify the immutable field '_id'"},
		{name: "unset id", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$unset": {"_id": 1}}}`, code: 66, msg: "Performing an update on the path '_id' would modify the immutable field '_id'"},
		{name: "inc id", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$inc": {"_id": 1}}}`, code: 66},
		{name: "replacement id", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"_id": 2}}`, code: 66, msg: "After applying the update, the (immutable) field '_id' was found to have been altered to _id: 2"},
		{name: "empty replacement", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {}}`, want: []string{`{"_id": 1}`}},
		{name: "empty set", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$set": {}}}`, want: []string{`{"_id": 1, "a": 1}`}},
		{name: "replacement upsert id", stmt: `{"q": {"_id": 5}, "u": {"_id": 6, "b": 2}, "upsert": true}`, code: 66, msg: "After applying the update, the (immutable) field '_id' was found to have been altered to _id: 6"},
		{name: "replacement multi", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"b": 1}, "multi": true}`, code: 9, msg: "multi update is not supported for replacement-style update"},
		{name: "through scalar", docs: []string{`{"_id": 1, "a": 1}`}, stmt: `{"q": {}, "u": {"$set": {"a.b": 1}}}`, code: 28, msg: "Cannot create field 'b' in element {a: 1}"},
		{name: "through array by name", docs: []string{`{"_id": 1, "a": [1]}`}, stmt: `{"q": {}, "u": {"$set": {"a.b": 1}}}`, code: 28, msg: "Cannot create field 'b' in element {a: [ 1 ]}"},
		{name: "past end pads", docs: []string{`{"_id": 1, "a": [1]}`}, stmt: `{"q": {}, "u": {"$set": {"a.3": 4}}}`, want: []string{`{"_id": 1, "a": [1, null, null, 4]}`}},
		{name: "past end doc", docs: []string{`{"_id": 1, "a": []}`}, stmt: `{"q": {}, "u": {"$set": {"a.1.b": 4}}}`, want: []string{`{"_id": 1, "a": [null, {"b": 4}]}`}},
		{name: "numeric key in doc", docs: []string{`{"_id": 1, "a": {}}`}, stmt: `{"q": {}, "u": {"$set": {"a.1": 4}}}`, want: []string{`{"_id": 1, "a": {"1": 4}}`}},
		{name: "new fields in name order", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$set": {"c": 1, "b": 1, "a.10": 1, "a.9": 1}}}`, want: []string{`{"_id": 1, "a": {"9": 1, "10": 1}, "b": 1, "c": 1}`}},
		{name: "way past the backfill limit", docs: []string{`{"_id": 1, "a": []}`}, stmt: `{"q": {}, "u": {"$set": {"a.1000000000": 1}}}`, code: 34},
		// jstests/core/query/set/set7.js
		{name: "set7 pad", docs: []string{`{"_id": 1, "a": [2, 1, 2, 3, 5]}`}, stmt: `{"q": {}, "u": {"$set": {"a.9": 9}}}`, want: []string{`{"_id": 1, "a": [2, 1, 2, 3, 5, null, null, null, null, 9]}`}},
		{name: "set7 two pads", docs: []string{`{"_id": 1, "a": [0, 1, 2, 3]}`}, stmt: `{"q": {}, "u": {"$set": {"a.9": 9, "a.7": 7}}}`, want: []string{`{"_id": 1, "a": [0, 1, 2, 3, null, null, null, 7, null, 9]}`}},
		{name: "set7 order", docs: []string{`{"_id": 1, "a": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}`}, stmt: `{"q": {}, "u": {"$set": {"a.11": 11, "a.2": -2}}}`, want: []string{`{"_id": 1, "a": [0, 1, -2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}`}},
		{name: "set7 missing array is a doc", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$set": {"a.0": 4}}}`, want: []string{`{"_id": 1, "a": {"0": 4}}`}},
		{name: "set7 name in array", docs: []string{`{"_id": 1, "a": []}`}, stmt: `{"q": {}, "u": {"$set": {"a.f": 1}}}`, code: 28, msg: "Cannot create field 'f' in element {a: []}"},
		{name: "set7 one new element twice", docs: []string{`{"_id": 1, "a": []}`}, stmt: `{"q": {}, "u": {"$set": {"a.2.b": 1, "a.2.c": 1}}}`, want: []string{`{"_id": 1, "a": [null, null, {"b": 1, "c": 1}]}`}},
		{name: "set7 upsert offset", stmt: `{"q": {"_id": 1, "a.0": 4}, "u": {"$set": {"b": 1}}, "upsert": true}`, want: []string{`{"_id": 1, "a": {"0": 4}, "b": 1}`}},
		{name: "set7 upsert array", stmt: `{"q": {"_id": 1, "a": [0, 1]}, "u": {"$set": {"a.3": 3}}, "upsert": true}`, want: []string{`{"_id": 1, "a": [0, 1, null, 3]}`}},
		// updatek.js: '1' and '01' are different field names.
		{name: "numeric-looking names", docs: []string{`{"_id": 0, "1": {}, "01": {}}`}, stmt: `{"q": {}, "u": {"$set": {"1.b": 1, "01.c": 2}}}`, want: []string{`{"_id": 0, "1": {"b": 1}, "01": {"c": 2}}`}},
		{name: "unset element leaves null", docs: []string{`{"_id": 1, "a": [1, 2]}`}, stmt: `{"q": {}, "u": {"$unset": {"a.0": 1}}}`, want: []string{`{"_id": 1, "a": [null, 2]}`}},
		{name: "backfill limit", docs: []string{`{"_id": 1, "a": []}`}, stmt: `{"q": {}, "u": {"$set": {"a.1500001": 1}}}`, code: 34, msg: "can't backfill more than 1500000 elements"},
		{name: "unknown modifier", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$foo": {"a": 1}}}`, code: 9, msg: "Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update specified as an array"},
		{name: "modifier not doc", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$set": 1}}`, code: 9, msg: "Modifiers operate on fields but we found type int instead. For example: {$mod: {<field>: ...}} not {$set: 1}"},
		{name: "mixed modifier and field", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$set": {"a": 1}, "b": 1}}`, code: 9, msg: "Unknown modifier: b. Expected a valid update modifier or pipeline-style update specified as an array"},
	})
}

// jstests/core/write/update/update_arrayFilters.js and the positional
// tests (update_arraymatch*.js, positional_*).
func TestUpd28Positional(t *testing.T) {
	t.Parallel()
	runU28Table(t, "u28pos", []u28Case{
		{name: "af nested", docs: []string{`{"_id": 0, "a": [{"b": [0, 1]}, {"b": [1, 2]}]}`}, stmt: `{"q": {}, "u": {"$set": {"a.$[i].b.$[j]": 9}}, "arrayFilters": [{"i.b": 0}, {"j": 1}]}`, want: []string{`{"_id": 0, "a": [{"b": [0, 9]}, {"b": [1, 2]}]}`}},
		{name: "af unused", docs: []string{`{"_id": 0, "a": [1]}`}, stmt: `{"q": {}, "u": {"$set": {"a.$[i]": 9}}, "arrayFilters": [{"i": 1}, {"j": 1}]}`, code: 9, msg: "The array filter for identifier 'j' was not used in the update { $set: { a.$[i]: 9 } }"},
		{name: "af identifier upper", docs: []string{`{"_id": 0, "a": [1]}`}, stmt: `{"q": {}, "u": {"$set": {"a.$[I]": 9}}, "arrayFilters": [{"I": 1}]}`, code: 2, msg: "Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found 'I'"},
		{name: "af missing", docs: []string{`{"_id": 0, "a": [1]}`}, stmt: `{"q": {}, "u": {"$set": {"a.$[i]": 9}}}`, code: 2, msg: "No array filter found for identifier 'i' in path 'a.$[i]'"},
		{name: "af two same", docs: []string{`{"_id": 0, "a": [1]}`}, stmt: `{"q": {}, "u": {"$set": {"a.$[i]": 9}}, "arrayFilters": [{"i": 1}, {"i": 2}]}`, code: 9, msg: "Found multiple array filters with the same top-level field name i"},
		{name: "af all", docs: []string{`{"_id": 0, "a": [{"b": 1}, {"b": 2}]}`}, stmt: `{"q": {}, "u": {"$inc": {"a.$[].b": 1}}}`, want: []string{`{"_id": 0, "a": [{"b": 2}, {"b": 3}]}`}},
		{name: "af not array", docs: []string{`{"_id": 0, "a": 1}`}, stmt: `{"q": {}, "u": {"$set": {"a.$[]": 1}}}`, code: 2, msg: "Cannot apply array updates to non-array element a: 1"},
		{name: "positional", docs: []string{`{"_id": 0, "a": [1, 2, 3]}`}, stmt: `{"q": {"a": 2}, "u": {"$set": {"a.$": 9}}}`, want: []string{`{"_id": 0, "a": [1, 9, 3]}`}},
		{name: "positional no match", docs: []string{`{"_id": 0, "a": [1, 2, 3]}`}, stmt: `{"q": {}, "u": {"$set": {"a.$": 9}}}`, code: 2, msg: "The positional operator did not find the match needed from the query."},
		{name: "positional first", docs: []string{`{"_id": 0, "a": [1]}`}, stmt: `{"q": {}, "u": {"$set": {"$": 9}}}`, code: 2, msg: "Cannot have positional (i.e. '$') element in the first position in path '$'"},
		{name: "positional two", docs: []string{`{"_id": 0, "a": [[1]]}`}, stmt: `{"q": {"a": 1}, "u": {"$set": {"a.$.$": 9}}}`, code: 2, msg: "Too many positional (i.e. '$') elements found in path 'a.$.$'"},
		{name: "positional upsert", stmt: `{"q": {"a": 1}, "u": {"$set": {"a.$": 9}}, "upsert": true}`, code: 2, msg: "The positional operator did not find the match needed from the query."},
	})
}

// jstests/core/write/update/update_dbref.js, update_setOnInsert.js and
// update_array_offset_positional.js.
func TestUpd28DBRefSetOnInsertOffsets(t *testing.T) {
	t.Parallel()
	ref := `{"_id": 1, "a": {"$ref": "a", "$id": "b"}}`
	runU28Table(t, "u28misc", []u28Case{
		{name: "dbref $id", docs: []string{ref}, stmt: `{"q": {}, "u": {"$set": {"a.$id": 2}}}`, want: []string{`{"_id": 1, "a": {"$ref": "a", "$id": 2}}`}},
		{name: "dbref $ref", docs: []string{ref}, stmt: `{"q": {}, "u": {"$set": {"a.$ref": "b"}}}`, want: []string{`{"_id": 1, "a": {"$ref": "b", "$id": "b"}}`}},
		{name: "top $id", docs: []string{ref}, stmt: `{"q": {}, "u": {"$set": {"$id": 3}}}`, code: 55, msg: "Found $id field without a $ref before it, which is invalid."},
		{name: "top $ref", docs: []string{ref}, stmt: `{"q": {}, "u": {"$set": {"$ref": "foo"}}}`, code: 55, msg: "The DBRef $ref field must be followed by a $id field"},
		{name: "top $db", docs: []string{ref}, stmt: `{"q": {}, "u": {"$set": {"$db": "aDB"}}}`, code: 55, msg: "Found $db field without a $id before it, which is invalid."},
		{name: "top $ref not string", docs: []string{ref}, stmt: `{"q": {}, "u": {"$set": {"$ref": 1}}}`, code: 55, msg: "The DBRef $ref field must be a String, not a int"},
		// Modifiers apply in name order: $id is created before $ref.
		{name: "top DBRef fields set together", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$set": {"$ref": "c", "$id": 2}}}`, code: 55, msg: "Found $id field without a $ref before it, which is invalid."},
		{name: "top other $ name", docs: []string{ref}, stmt: `{"q": {}, "u": {"$set": {"$z": 1}}}`, code: 52, msg: "The dollar ($) prefixed field '$z' in '$z' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith."},
		{name: "setOnInsert inserts", stmt: `{"q": {"_id": 5}, "u": {"$inc": {"x": 2}, "$setOnInsert": {"a": 3}}, "upsert": true}`, want: []string{`{"_id": 5, "a": 3, "x": 2}`}},
		{name: "setOnInsert matched", docs: []string{`{"_id": 5, "a": 4, "x": 2}`}, stmt: `{"q": {"_id": 5}, "u": {"$inc": {"x": 2}, "$setOnInsert": {"a": 3}}, "upsert": true}`, want: []string{`{"_id": 5, "a": 4, "x": 4}`}},
		{name: "setOnInsert _id.a under scalar _id", stmt: `{"q": {"_id": 1}, "u": {"$setOnInsert": {"_id.a": 1}}, "upsert": true}`, code: 28},
		{name: "setOnInsert _id.b", stmt: `{"q": {"_id.a": 4}, "u": {"$setOnInsert": {"_id.b": 1}}, "upsert": true}`, code: 66},
		{name: "setOnInsert whole _id", stmt: `{"q": {"_id.a": 4}, "u": {"$setOnInsert": {"_id": {"a": 4, "b": 1}}}, "upsert": true}`, code: 66},
		{name: "offset match gives no position", docs: []string{`{"_id": 0, "a": [0]}`}, stmt: `{"q": {"_id": 0, "a.0": 0}, "u": {"$set": {"a.$": 1}}}`, code: 2, msg: "The positional operator did not find the match needed from the query."},
		{name: "offset match in doc gives no position", docs: []string{`{"_id": 0, "a": [{"b": 0}]}`}, stmt: `{"q": {"_id": 0, "a.0.b": 0}, "u": {"$set": {"a.$.b": 1}}}`, code: 2},
		{name: "offset then traversal", docs: []string{`{"_id": 0, "a": [{"b": [0, 1]}]}`}, stmt: `{"q": {"_id": 0, "a.0.b": 1}, "u": {"$set": {"a.0.b.$": 2}}}`, want: []string{`{"_id": 0, "a": [{"b": [0, 2]}]}`}},
		{name: "traversal then offset", docs: []string{`{"_id": 0, "a": [{"b": [0, 1]}]}`}, stmt: `{"q": {"_id": 0, "a.b.1": 1}, "u": {"$set": {"a.$.b.1": 2}}}`, want: []string{`{"_id": 0, "a": [{"b": [0, 2]}]}`}},
		{name: "offset elsewhere ignored", docs: []string{`{"_id": 0, "a": [0, 1], "b": [{"c": [0]}]}`}, stmt: `{"q": {"_id": 0, "a": 1, "b.0.c.0": 0}, "u": {"$set": {"a.$": 2}}}`, want: []string{`{"_id": 0, "a": [0, 2], "b": [{"c": [0]}]}`}},
	})
}

// findAndModify's upsert seeds its document as the update command's.
func TestUpd28FindAndModifyUpsert(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "u28fam"}`)
	r := mustRun(t, db, "test", `{"findAndModify": "u28fam", "query": {"b": 1, "$or": [{"a": 2}], "c": {"$all": [3]}}, "update": {"$set": {"z": 1}}, "upsert": true, "new": true, "fields": {"_id": 0}}`)
	if got := canon(t, field(r, "value").(bson.D)); got != `{"a":{"$numberInt":"2"},"b":{"$numberInt":"1"},"c":{"$numberInt":"3"},"z":{"$numberInt":"1"}}` {
		t.Errorf("findAndModify upsert: %s", got)
	}
	wantCode(t, db, "test", `{"findAndModify": "u28fam", "query": {"x": 1, "x.y": 2}, "update": {"$set": {"z": 1}}, "upsert": true}`, 54, "cannot infer query fields to set, both paths 'x.y' and 'x' are matched")
}

// jstests/core/write/find_and_modify/find_and_modify_empty_update.js:
// update {} replaces the document with {_id}.
func TestUpd28FindAndModifyEmptyUpdate(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "u28fe"}`)
	r := mustRun(t, db, "test", `{"findAndModify": "u28fe", "query": {"a": 1}, "update": {}}`)
	if v := field(r, "value"); v != nil {
		t.Errorf("no match: value %v", v)
	}
	loadCorpus(t, db, "test", "u28fe", []string{`{"_id": 0, "a": 1}`, `{"_id": 1, "a": 1}`})
	r = mustRun(t, db, "test", `{"findAndModify": "u28fe", "query": {"a": 1}, "update": {}, "sort": {"_id": 1}}`)
	if got := canon(t, field(r, "value").(bson.D)); got != `{"_id":{"$numberInt":"0"},"a":{"$numberInt":"1"}}` {
		t.Errorf("old value: %s", got)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "u28fe", "query": {"a": 1}, "update": {}, "new": true}`)
	if got := canon(t, field(r, "value").(bson.D)); got != `{"_id":{"$numberInt":"1"}}` {
		t.Errorf("new value: %s", got)
	}
	run(t, db, "test", `{"delete": "u28fe", "deletes": [{"q": {}, "limit": 0}]}`)
	r = mustRun(t, db, "test", `{"findAndModify": "u28fe", "query": {"_id": 0, "a": 1}, "update": {}, "upsert": true, "sort": {"a": 1}, "new": true}`)
	if got := canon(t, field(r, "value").(bson.D)); got != `{"_id":{"$numberInt":"0"}}` {
		t.Errorf("upsert new value: %s", got)
	}
}

// Conflicting paths (40) among modifiers, through array updates too.
func TestUpd28Conflicts(t *testing.T) {
	t.Parallel()
	d := []string{`{"_id": 1, "a": [{"b": 1}]}`}
	runU28Table(t, "u28conf", []u28Case{
		{name: "same path two ops", docs: d, stmt: `{"q": {}, "u": {"$inc": {"x": 1}, "$set": {"x": 2}}}`, code: 40, msg: "Updating the path 'x' would create a conflict at 'x'"},
		{name: "siblings fine", docs: d, stmt: `{"q": {}, "u": {"$set": {"c.b": 1, "c.d": 1}}}`, want: []string{`{"_id": 1, "a": [{"b": 1}], "c": {"b": 1, "d": 1}}`}},
		{name: "prefix name not path", docs: d, stmt: `{"q": {}, "u": {"$set": {"ab": 1, "a.c": 1}}}`, code: 28},
		{name: "all positional and index", docs: d, stmt: `{"q": {}, "u": {"$set": {"a.$[].b": 1, "a.0.b": 2}}}`, code: 40},
		{name: "positional and all", docs: d, stmt: `{"q": {"a.b": 1}, "u": {"$set": {"a.$.b": 1, "a.$[].b": 2}}}`, code: 40},
		{name: "rename target conflicts", docs: d, stmt: `{"q": {}, "u": {"$rename": {"x": "y.z"}, "$unset": {"y": 1}}}`, code: 40},
		{name: "pushes on two paths", docs: []string{`{"_id": 1}`}, stmt: `{"q": {}, "u": {"$push": {"p": 1, "q": 2}, "$addToSet": {"r": 3}}}`, want: []string{`{"_id": 1, "p": [1], "q": [2], "r": [3]}`}},
	})
}

// jstests/core/write/update/update_arrayFilters.js: every modifier
// through $[i] and $[], and the parse errors.
func TestUpd28ArrayFiltersModifiers(t *testing.T) {
	t.Parallel()
	af := func(name, doc, u, filters, want string) u28Case {
		stmt := `{"q": {"_id": 0}, "u": ` + u
		if filters != "" {
			stmt += `, "arrayFilters": ` + filters
		}
		return u28Case{name: name, docs: []string{doc}, stmt: stmt + `}`, want: []string{want}}
	}
	cases := []u28Case{
		af("set i", `{"_id": 0, "a": [0, 1, 0, 1]}`, `{"$set": {"a.$[i]": 2}}`, `[{"i": 0}]`, `{"_id": 0, "a": [2, 1, 2, 1]}`),
		af("unset i", `{"_id": 0, "a": [0, 1, 0, 1]}`, `{"$unset": {"a.$[i]": true}}`, `[{"i": 0}]`, `{"_id": 0, "a": [null, 1, null, 1]}`),
		af("unset all", `{"_id": 0, "a": [0, 1]}`, `{"$unset": {"a.$[]": true}}`, ``, `{"_id": 0, "a": [null, null]}`),
		af("mul i", `{"_id": 0, "a": [0, 2, 0, 2]}`, `{"$mul": {"a.$[i]": 3}}`, `[{"i": 2}]`, `{"_id": 0, "a": [0, 6, 0, 6]}`),
		af("min i", `{"_id": 0, "a": [{"b": 0, "c": 1}, {"b": 0, "c": -1}, {"b": 1, "c": 1}]}`, `{"$min": {"a.$[i].c": 0}}`, `[{"i.b": 0}]`, `{"_id": 0, "a": [{"b": 0, "c": 0}, {"b": 0, "c": -1}, {"b": 1, "c": 1}]}`),
		af("max all", `{"_id": 0, "a": [{"b": 0, "c": 1}, {"b": 0, "c": 0}, {"b": 1, "c": -1}]}`, `{"$max": {"a.$[].c": 0}}`, ``, `{"_id": 0, "a": [{"b": 0, "c": 1}, {"b": 0, "c": 0}, {"b": 1, "c": 0}]}`),
		af("addToSet i", `{"_id": 0, "a": [[0], [1]]}`, `{"$addToSet": {"a.$[i]": 2}}`, `[{"i": 0}]`, `{"_id": 0, "a": [[0, 2], [1]]}`),
		af("pop all", `{"_id": 0, "a": [[0]]}`, `{"$pop": {"a.$[]": 1}}`, ``, `{"_id": 0, "a": [[]]}`),
		af("pullAll all", `{"_id": 0, "a": [[0, 1, 2, 3], [1, 2, 3, 4]]}`, `{"$pullAll": {"a.$[]": [0, 2]}}`, ``, `{"_id": 0, "a": [[1, 3], [1, 3, 4]]}`),
		af("pull i", `{"_id": 0, "a": [[0, 1], [1, 2]]}`, `{"$pull": {"a.$[i]": 1}}`, `[{"i": 2}]`, `{"_id": 0, "a": [[0, 1], [2]]}`),
		af("push all", `{"_id": 0, "a": [[0, 1], [2, 3]]}`, `{"$push": {"a.$[]": 4}}`, ``, `{"_id": 0, "a": [[0, 1, 4], [2, 3, 4]]}`),
		af("bit i", `{"_id": 0, "a": [0, 2]}`, `{"$bit": {"a.$[i]": {"or": 10}}}`, `[{"i": 0}]`, `{"_id": 0, "a": [10, 2]}`),
		af("or filter", `{"_id": 0, "a": [0, 1]}`, `{"$set": {"a.$[i]": 5}}`, `[{"$or": [{"i": 0}, {"$and": [{}]}]}]`, `{"_id": 0, "a": [5, 5]}`),
		{name: "setOnInsert all upsert", stmt: `{"q": {"_id": 0, "a": [0]}, "u": {"$setOnInsert": {"a.$[]": 1}}, "upsert": true}`, want: []string{`{"_id": 0, "a": [1]}`}},
		{name: "filters not array", docs: []string{`{"_id": 0}`}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.$[i]": 5}}, "arrayFilters": {"i": 0}}`, code: 14},
		{name: "filter not doc", docs: []string{`{"_id": 0}`}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.$[i]": 5}}, "arrayFilters": ["bad"]}`, code: 14},
		{name: "filter two names", docs: []string{`{"_id": 0}`}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.$[i]": 5}}, "arrayFilters": [{"i": 0, "j": 0}]}`, code: 9, msg: "Expected a single top-level field name"},
		{name: "filter no name", docs: []string{`{"_id": 0}`}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.$[i]": 5}}, "arrayFilters": [{"$alwaysTrue": 1}]}`, code: 9, msg: "Cannot use an expression without a top-level field name in arrayFilters"},
		{name: "rename unused filter", docs: []string{`{"_id": 0}`}, stmt: `{"q": {"_id": 0}, "u": {"$rename": {"a": "b"}}, "arrayFilters": [{"i": 0}]}`, code: 9, msg: `The array filter for identifier 'i' was not used in the update { $rename: { a: "b" } }`},
		{name: "rename dynamic source", docs: []string{`{"_id": 0}`}, stmt: `{"q": {"_id": 0}, "u": {"$rename": {"a.$[]": "b"}}}`, code: 2, msg: "The source field for $rename may not be dynamic: a.$[]"},
		{name: "rename dynamic target", docs: []string{`{"_id": 0}`}, stmt: `{"q": {"_id": 0}, "u": {"$rename": {"a": "b.$[]"}}}`, code: 2, msg: "The destination field for $rename may not be dynamic: b.$[]"},
	}
	runU28Table(t, "u28afm", cases)
}

// update_arrayFilters.js, "Error cases" and "Nested array update conflict
// detection".
func TestUpd28ArrayFiltersConflicts(t *testing.T) {
	t.Parallel()
	nested := `{"_id": 0, "a": [{"x": 0, "b": [{"y": 0, "c": 0}]}, {"x": 1, "b": [{"y": 0, "c": 0}]}]}`
	nested2 := `{"_id": 0, "a": [{"x": 0, "b": [{"y": 0, "c": 0}]}, {"x": 1, "b": [{"y": 0, "c": 0}, {"y": 1, "c": 0}]}]}`
	runU28Table(t, "u28afc", []u28Case{
		{name: "id and $", docs: []string{`{"_id": 0, "a": [0]}`}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.$[i]": 0, "a.$": 0}}, "arrayFilters": [{"i": 0}]}`, code: 40, msg: "Updating the path 'a.$' would create a conflict at 'a'"},
		{name: "id and index", docs: []string{`{"_id": 0, "a": [0]}`}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.$[i]": 0, "a.0": 0}}, "arrayFilters": [{"i": 0}]}`, code: 40, msg: "Updating the path 'a.0' would create a conflict at 'a'"},
		{name: "id and field", docs: []string{`{"_id": 0, "a": [0]}`}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.$[i]": 0, "a.b": 0}}, "arrayFilters": [{"i": 0}]}`, code: 40, msg: "Updating the path 'a.b' would create a conflict at 'a'"},
		{name: "implicit traversal", docs: []string{`{"_id": 0, "a": [{"b": 0}]}`}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.b": 1}}}`, code: 28, msg: "Cannot create field 'b' in element {a: [ { b: 0 } ]}"},
		{name: "dotted identifier", docs: []string{`{"_id": 0, "a": [0], "b": [{"j": 0}]}`}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.$[i.j]": 1, "b.$[i]": 1}}, "arrayFilters": [{"i.j": 0}]}`, code: 28, msg: "Cannot create field '$[i' in element {a: [ 0 ]}"},
		{name: "disjoint leaves", docs: []string{`{"_id": 0, "a": [{"x": 0, "b": [{"y": 0, "c": 0, "d": 0}]}]}`}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.$[i].b.$[k].c": 1, "a.$[j].b.$[k].d": 1}}, "arrayFilters": [{"i.x": 0}, {"j.x": 0}, {"k.y": 0}]}`, want: []string{`{"_id": 0, "a": [{"x": 0, "b": [{"y": 0, "c": 1, "d": 1}]}]}`}},
		{name: "same element", docs: []string{nested}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.$[i].b.$[k].c": 1, "a.$[j].b.$[k].c": 2}}, "arrayFilters": [{"i.x": 0}, {"j.x": 0}, {"k.y": 0}]}`, code: 40, msg: "Update created a conflict at 'a.0.b.$[k].c'"},
		{name: "other elements", docs: []string{nested}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.$[i].b.$[k].c": 1, "a.$[j].b.$[k].c": 2}}, "arrayFilters": [{"i.x": 0}, {"j.x": 1}, {"k.y": 0}]}`, want: []string{`{"_id": 0, "a": [{"x": 0, "b": [{"y": 0, "c": 1}]}, {"x": 1, "b": [{"y": 0, "c": 2}]}]}`}},
		{name: "inner intersect", docs: []string{nested2}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.$[i].b.$[k].c": 1, "a.$[j].b.$[m].c": 2}}, "arrayFilters": [{"i.x": 0}, {"j.x": 0}, {"k.y": 0}, {"m.y": 0}]}`, code: 40, msg: "Update created a conflict at 'a.0.b.0.c'"},
		{name: "inner disjoint", docs: []string{nested2}, stmt: `{"q": {"_id": 0}, "u": {"$set": {"a.$[i].b.$[k].c": 1, "a.$[j].b.$[m].c": 2}}, "arrayFilters": [{"i.x": 1}, {"j.x": 1}, {"k.y": 0}, {"m.y": 1}]}`, want: []string{`{"_id": 0, "a": [{"x": 0, "b": [{"y": 0, "c": 0}]}, {"x": 1, "b": [{"y": 0, "c": 1}, {"y": 1, "c": 2}]}]}`}},
	})
}

// nModified counts a document only when its bytes change: mongod's
// modifiers report a no-op when the value stays identical (same type and
// value), and $set of 1.0 over 1 is a change.
func TestUpd28NModified(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, tc := range []struct {
		u    string
		want int32
		doc  string
	}{
		{`{"$set": {"a": 1}}`, 0, `{"_id":{"$numberInt":"1"},"a":{"$numberInt":"1"},"b":[{"$numberInt":"1"}]}`},
		{`{"$set": {"a": 1.0}}`, 1, `{"_id":{"$numberInt":"1"},"a":{"$numberDouble":"1.0"},"b":[{"$numberInt":"1"}]}`},
		{`{"$inc": {"a": 0}}`, 0, ``},
		{`{"$min": {"a": 5}}`, 0, ``},
		{`{"$addToSet": {"b": 1}}`, 0, ``},
		{`{"$pull": {"b": 7}}`, 0, ``},
		{`{"$pop": {"c": 1}}`, 0, ``},
		{`{"$unset": {"z": 1}}`, 0, ``},
		{`{"$rename": {"z": "y"}}`, 0, ``},
		{`{"$push": {"b": {"$each": [], "$slice": 5}}}`, 0, ``},
		{`{"$setOnInsert": {"q": 1}}`, 0, ``},
	} {
		run(t, db, "test", `{"drop": "u28nm"}`)
		loadCorpus(t, db, "test", "u28nm", []string{`{"_id": 1, "a": 1, "b": [1]}`})
		r := mustRun(t, db, "test", `{"update": "u28nm", "updates": [{"q": {"_id": 1}, "u": `+tc.u+`}]}`)
		if n := field(r, "nModified"); n != tc.want {
			t.Errorf("%s: nModified %v, want %d", tc.u, n, tc.want)
		}
		if tc.doc != "" {
			if got := canon(t, findAll(t, db, "test", "u28nm", bson.D{})[0]); got != tc.doc {
				t.Errorf("%s: %s", tc.u, got)
			}
		}
	}
}

// jstests/core/write/update/update_arraymatch8.js: updates through
// positions keep the indexes on those paths right.
func TestUpd28ArrayMatchIndexes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for i, tc := range []struct{ index, doc, q, u, newQ, oldQ string }{
		{`{"array.name": 1}`, `{"_id": 0, "array": [{"name": "old"}]}`, `{"array.name": "old"}`, `{"$set": {"array.$": {"name": "new"}}}`, `{"array.name": "new"}`, `{"array.name": "old"}`},
		{`{"array.123a.name": 1}`, `{"_id": 0, "array": [{"123a": {"name": "old"}}]}`, `{"array.123a.name": "old"}`, `{"$set": {"array.$.123a.name": "new"}}`, `{"array.123a.name": "new"}`, `{"array.123a.name": "old"}`},
		{`{"a.0.b": 1}`, `{"_id": 0, "a": [[{"b": "old"}]]}`, `{}`, `{"$set": {"a.0.0.b": "new"}}`, `{"a.0.b": "new"}`, `{"a.0.b": "old"}`},
		{`{"a.0.b.c": 1}`, `{"_id": 0, "a": [{"b": [{"c": "old"}]}]}`, `{}`, `{"$set": {"a.0.b.0.c": "new"}}`, `{"a.0.b.c": "new"}`, `{"a.0.b.c": "old"}`},
	} {
		coll := fmt.Sprintf("u28am%d", i)
		mustRun(t, db, "test", `{"createIndexes": "`+coll+`", "indexes": [{"key": `+tc.index+`, "name": "ix"}]}`)
		loadCorpus(t, db, "test", coll, []string{tc.doc})
		mustRun(t, db, "test", `{"update": "`+coll+`", "updates": [{"q": `+tc.q+`, "u": `+tc.u+`}]}`)
		if n := len(firstBatch(t, mustRun(t, db, "test", `{"find": "`+coll+`", "filter": `+tc.newQ+`, "hint": "ix"}`))); n != 1 {
			t.Errorf("%s then %s: %d documents by the index", tc.u, tc.newQ, n)
		}
		if n := len(firstBatch(t, mustRun(t, db, "test", `{"find": "`+coll+`", "filter": `+tc.oldQ+`, "hint": "ix"}`))); n != 0 {
			t.Errorf("%s then %s: %d documents by the index", tc.u, tc.oldQ, n)
		}
		mustValidate(t, db, "test", coll)
	}
}
