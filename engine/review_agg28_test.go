package engine

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Review 28 (aggregation stages), the cases that need collections:
// ported from mongod's jstests with mongod's answers.

// TestReviewAgg28LookupArraySemantics ports mongod's
// jstests/aggregation/sources/lookup/lookup_array_semantics.js and
// lookup_null_semantics.js: which local documents a $lookup on
// localField/foreignField joins with one foreign document, through
// arrays, dotted paths, null and missing. (Left out: the cases with a
// numeric path component, as ttlkv reads "a.0" as a field name, a
// documented difference; and those with undefined, which mongod 7.0's
// {$eq: null} matches and ttlkv's query does not.) ttlkv already
// answered as mongod.
func TestReviewAgg28LookupArraySemantics(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	cases := []struct {
		name, local, localField, foreign, foreignField string
		want                                           []int
	}{
		{"scalar in local matches elements of foreign arrays",
			`{"_id": 0, "a": 1}, {"_id": 1, "a": [1]}, {"_id": 2, "a": [1, 2, 3]}, {"_id": 3, "a": [1, [2, 3]]}, {"_id": 4, "a": [1, [1, 2]]}, {"_id": 5, "a": [1, 2, 1]}, {"_id": 10, "a": [[1]]}, {"_id": 11, "a": [[1, 2], 3]}, {"_id": 12, "a": 3}, {"_id": 13, "a": [2, 3]}, {"_id": 14, "a": {"b": 1}}`,
			"a", `{"_id": 0, "b": 1}`, "b", []int{0, 1, 2, 3, 4, 5}},
		{"elements of a foreign array match scalars in local",
			`{"_id": 0, "a": 1}, {"_id": 1, "a": 2}, {"_id": 2, "a": [1]}, {"_id": 3, "a": [1, 3]}, {"_id": 4, "a": [3, 2]}, {"_id": 10, "a": 3}, {"_id": 11, "a": [[1]]}, {"_id": 12, "a": [3, 4]}`,
			"a", `{"_id": 0, "b": [1, 2]}`, "b", []int{0, 1, 2, 3, 4}},
		{"a foreign array matches as a whole value",
			`{"_id": 0, "a": [[1, 2], 4]}, {"_id": 1, "a": [[1, 2]]}, {"_id": 10, "a": [1, 2]}, {"_id": 11, "a": [[[1, 2]]]}, {"_id": 12, "a": [[1, 2, 3]]}`,
			"a", `{"_id": 0, "b": [[1, 2], 3]}`, "b", []int{0, 1}},
		{"a foreign scalar matches dotted paths in local",
			`{"_id": 0, "a": [{"x": 1}, {"x": 2}]}, {"_id": 1, "a": [{"x": [1, 2]}]}, {"_id": 2, "a": {"x": 1}}, {"_id": 3, "a": {"x": [1, 2]}}, {"_id": 10, "a": [{"x": 2}, {"x": 3}]}, {"_id": 11, "a": 1}, {"_id": 12, "a": [1]}, {"_id": 13, "a": [[1]]}, {"_id": 14, "a": [{"y": 1}]}`,
			"a.x", `{"_id": 0, "b": 1}`, "b", []int{0, 1, 2, 3}},
		{"a foreign array does not match dotted paths as a whole",
			`{"_id": 10, "a": [{"x": 1}, {"x": 2}]}, {"_id": 11, "a": [{"x": [1, 2]}]}, {"_id": 12, "a": {"x": [1, 2]}}, {"_id": 13, "a": [1, 2]}`,
			"a.x", `{"_id": 0, "b": [[1, 2], 3]}`, "b", []int{}},
		{"an array of documents in foreign matches on a subfield",
			`{"_id": 0, "a": 1}, {"_id": 1, "a": 2}, {"_id": 2, "a": [1]}, {"_id": 3, "a": [1, 3]}, {"_id": 4, "a": [3, 2]}, {"_id": 5, "a": [[1, 2], 3]}, {"_id": 10, "a": 4}, {"_id": 11, "a": [[1]]}, {"_id": 12, "a": [3, 4]}`,
			"a", `{"_id": 0, "b": [{"x": 1}, {"x": 2}]}`, "b.x", []int{0, 1, 2, 3, 4}},
		{"an empty foreign array matches only nested empty arrays",
			`{"_id": 0, "a": [[]]}, {"_id": 1, "a": [[], 1]}, {"_id": 10}, {"_id": 11, "a": null}, {"_id": 12, "a": []}, {"_id": 13, "a": [null]}, {"_id": 14, "a": [null, 1]}, {"_id": 15, "a": 1}, {"_id": 16, "a": [[[]]]}, {"_id": 17, "a": [1, 2]}`,
			"a", `{"_id": 0, "b": []}`, "b", []int{0, 1}},
		{"an empty local array matches a foreign null",
			`{"_id": 0, "a": []}, {"_id": 10, "a": [[]]}, {"_id": 11, "a": [[], 1]}, {"_id": 12, "a": [1]}`,
			"a", `{"_id": 0, "b": null}`, "b", []int{0}},
		{"an empty local array matches a missing foreign field",
			`{"_id": 0, "a": []}, {"_id": 10, "a": [[]]}, {"_id": 11, "a": [[], 1]}, {"_id": 12, "a": [1]}`,
			"a", `{"_id": 0, "no_b": true}`, "b", []int{0}},
		{"a path through arrays in local can match an empty array",
			`{"_id": 0, "a": [{"x": [[]]}]}, {"_id": 10, "a": [{"y": 1}, {"y": 2}]}, {"_id": 11, "a": [[]]}, {"_id": 12, "a": [{"x": []}]}, {"_id": 13, "a": []}`,
			"a.x", `{"_id": 0, "b": []}`, "b", []int{0}},
		{"a path through arrays in local can match null",
			`{"_id": 0, "a": [{"y": 1}, {"y": 2}]}, {"_id": 1, "a": [{"x": []}]}, {"_id": 2, "a": []}, {"_id": 3, "a": [[]]}, {"_id": 4, "a": {"x": []}}, {"_id": 5, "x": [1, 2]}, {"_id": 10, "a": [{"x": 1}, {"y": 2}]}, {"_id": 11, "a": [{"x": []}, {"x": 1}]}, {"_id": 12, "a": [{"x": [[]]}]}`,
			"a.x", `{"_id": 0, "b": null}`, "b", []int{0, 1, 2, 3, 4, 5}},
	}
	for i, c := range cases {
		local, foreign := fmt.Sprintf("l%d", i), fmt.Sprintf("f%d", i)
		mustRun(t, db, "test", fmt.Sprintf(`{"insert": %q, "documents": [%s]}`, local, c.local))
		mustRun(t, db, "test", fmt.Sprintf(`{"insert": %q, "documents": [%s]}`, foreign, c.foreign))
		p := fmt.Sprintf(`[{"$lookup": {"from": %q, "localField": %q, "foreignField": %q, "as": "m"}}, {"$match": {"m": {"$ne": []}}}]`, foreign, c.localField, c.foreignField)
		got := idsOf(t, aggUnder(t, db, local, p, ""))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: joined %v, want %v", c.name, got, c.want)
		}
	}
}

// TestReviewAgg28LookupNullSemantics ports lookup_null_semantics.js
// (without its undefined values): a missing or null localField joins
// with null, missing and arrays holding null; an array holding null and
// 9 joins with those and with 9. ttlkv already answered as mongod.
func TestReviewAgg28LookupNullSemantics(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "ln", []string{`{"_id": 0}`, `{"_id": 1, "a": null}`, `{"_id": 2, "a": 9}`, `{"_id": 3, "a": [null, 9]}`})
	loadCorpus(t, db, "test", "fn", []string{`{"_id": 0}`, `{"_id": 1, "b": null}`, `{"_id": 3, "b": 9}`, `{"_id": 4, "b": [null, 9]}`, `{"_id": 5, "b": 42}`, `{"_id": 7, "b": [9, 10]}`})
	got := aggUnder(t, db, "ln", `[{"$lookup": {"from": "fn", "localField": "a", "foreignField": "b", "as": "m"}}, {"$project": {"m": "$m._id"}}]`, "")
	sameValue(t, "$lookup over null and missing", got,
		`[{"_id": 0, "m": [0, 1, 4]}, {"_id": 1, "m": [0, 1, 4]}, {"_id": 2, "m": [3, 4, 7]}, {"_id": 3, "m": [0, 1, 3, 4, 7]}]`)
}

// TestReviewAgg28EmptyForeignName: mongod refuses an empty collection
// name in $lookup's and $graphLookup's from and $unionWith's coll when
// it reads the pipeline, with 73 InvalidNamespace ("invalid $lookup
// namespace: test.", graphLookup/error.js: "from must be a valid
// namespace"; "Invalid $unionWith namespace specified: test."). ttlkv
// answered 40105 for $graphLookup, ran a $lookup with a pipeline as if
// it had no from (joining nothing) and a $unionWith with nothing.
func TestReviewAgg28EmptyForeignName(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1}`})
	for _, c := range []struct{ stage, msg string }{
		{`{"$lookup": {"from": "", "localField": "a", "foreignField": "b", "as": "m"}}`, "invalid $lookup namespace: test."},
		{`{"$lookup": {"from": "", "pipeline": [], "as": "m"}}`, "invalid $lookup namespace: test."},
		{`{"$graphLookup": {"from": "", "startWith": 1, "connectToField": "a", "connectFromField": "b", "as": "o"}}`, "invalid $graphLookup namespace: test."},
		{`{"$unionWith": ""}`, "Invalid $unionWith namespace specified: test."},
		{`{"$unionWith": {"coll": "", "pipeline": []}}`, "Invalid $unionWith namespace specified: test."},
		{`{"$facet": {"a": [{"$lookup": {"from": "c", "as": "m", "pipeline": [{"$unionWith": ""}]}}]}}`, "Invalid $unionWith namespace specified: test."},
	} {
		wantCode(t, db, "test", `{"aggregate": "c", "pipeline": [`+c.stage+`], "cursor": {}}`, document.CodeInvalidNamespace, c.msg)
	}
}

// TestReviewAgg28GraphLookupBasic ports mongod's
// jstests/aggregation/sources/graphLookup/basic.js: a chain of 100
// documents searched whole, to maxDepth, from an expression and an array,
// stopping where connectFromField is missing (a null _id is not found),
// through a cycle, and with depthField. ttlkv already answered as mongod.
func TestReviewAgg28GraphLookupBasic(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	g := func(extra string) string {
		return `[{"$graphLookup": {"from": "foreign", "startWith": "$starting", "connectFromField": "neighbors", "connectToField": "_id", "as": "integers"` + extra + `}}, {"$project": {"n": {"$size": "$integers"}, "ids": "$integers._id", "d": "$integers.distance"}}]`
	}
	count := func(p string) any {
		t.Helper()
		got := aggUnder(t, db, "local", p, "")
		if len(got) != 1 {
			t.Fatalf("%s: %v", p, got)
		}
		v, _ := get(got[0], "n")
		return v
	}
	// A missing foreign collection finds nothing.
	loadCorpus(t, db, "test", "local", []string{`{"_id": 0}`})
	sameValue(t, "no foreign collection", aggUnder(t, db, "local", `[{"$graphLookup": {"from": "foreign", "startWith": "$starting", "connectFromField": "from", "connectToField": "to", "as": "results"}}]`, ""), `[{"_id": 0, "results": []}]`)
	mustRun(t, db, "test", `{"delete": "local", "deletes": [{"q": {}, "limit": 0}]}`)
	var docs []string
	for i := range 100 {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "neighbors": [%d, %d]}`, i, i-1, i+1))
	}
	loadCorpus(t, db, "test", "foreign", docs)
	loadCorpus(t, db, "test", "local", []string{`{"_id": 1, "starting": 50}`})
	sameValue(t, "whole chain", count(g("")), `100`)
	sameValue(t, "maxDepth 5", count(g(`, "maxDepth": 5`)), `11`)
	got := aggUnder(t, db, "local", `[{"$graphLookup": {"from": "foreign", "startWith": {"$add": ["$starting", 3]}, "connectFromField": "neighbors", "connectToField": "_id", "maxDepth": 0, "as": "integers"}}, {"$project": {"ids": "$integers._id"}}]`, "")
	sameValue(t, "startWith an expression", got, `[{"_id": 1, "ids": [53]}]`)
	got = aggUnder(t, db, "local", `[{"$graphLookup": {"from": "foreign", "startWith": {"$literal": [1, 2, 3]}, "connectFromField": "neighbors", "connectToField": "_id", "maxDepth": 0, "as": "integers"}}, {"$project": {"n": {"$size": "$integers"}}}]`, "")
	sameValue(t, "startWith an array", got, `[{"_id": 1, "n": 3}]`)
	// No recursion from a missing connectFromField: the null _id is
	// never looked for.
	mustRun(t, db, "test", `{"delete": "foreign", "deletes": [{"q": {"_id": 51}, "limit": 1}]}`)
	loadCorpus(t, db, "test", "foreign", []string{`{"_id": 51}`, `{"_id": null, "neighbors": [50, 52]}`})
	sameValue(t, "missing connectFromField", count(g("")), `52`)
	// A cycle ends.
	mustRun(t, db, "test", `{"delete": "foreign", "deletes": [{"q": {"_id": {"$in": [null, 51]}}, "limit": 0}]}`)
	loadCorpus(t, db, "test", "foreign", []string{`{"_id": 51, "neighbors": [50, 52]}`})
	mustRun(t, db, "test", `{"update": "foreign", "updates": [{"q": {"_id": 99}, "u": {"$set": {"neighbors": [98, 0]}}}, {"q": {"_id": 0}, "u": {"$set": {"neighbors": [99, 1]}}}]}`)
	sameValue(t, "cycle", count(g("")), `100`)
	got = aggUnder(t, db, "local", g(`, "depthField": "distance"`), "")
	ids, _ := get(got[0], "ids")
	ds, _ := get(got[0], "d")
	ia, da := ids.(bson.A), ds.(bson.A)
	if len(ia) != 100 || len(da) != 100 {
		t.Fatalf("depthField: %v", got)
	}
	for i := range ia {
		id := int64(ia[i].(int32))
		want := id - 50
		if want < 0 {
			want = -want
		}
		if da[i] != want {
			t.Errorf("depthField of %d = %v (%T), want %d as a long", id, da[i], da[i], want)
		}
	}
}

// TestReviewAgg28MergeOnFields ports mongod's
// jstests/aggregation/sources/merge/on_fields_validation.js: the codes for
// a bad "on" (51186, 51187, 51134), for a document missing an "on"
// field or holding null or undefined there or on its way (51132), and
// for an array there (51185, or 51132 for an array on the way).
func TestReviewAgg28MergeOnFields(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "source", []string{`{"_id": 0}`})
	merge := func(on string) string {
		return `{"aggregate": "source", "pipeline": [{"$merge": {"into": "target", "whenMatched": "replace", "whenNotMatched": "insert", "on": ` + on + `}}], "cursor": {}}`
	}
	for _, c := range []struct {
		on   string
		code document.Code
	}{{`3.14`, 51186}, {`{"_id": 1}`, 51186}, {`[]`, 51187}, {`["hashed", 1]`, 51134}, {`[["_id"]]`, 51134}, {`[null]`, 51134}, {`[true, "a"]`, 51134}} {
		wantCode(t, db, "test", merge(c.on), c.code, "")
	}
	setSource := func(doc string) {
		t.Helper()
		mustRun(t, db, "test", `{"update": "source", "updates": [{"q": {"_id": 0}, "u": `+doc+`}]}`)
	}
	mustRun(t, db, "test", `{"createIndexes": "target", "indexes": [{"key": {"name": 1, "team": -1}, "name": "nt", "unique": true}]}`)
	wantCode(t, db, "test", merge(`["name", "team"]`), 51132, "")
	setSource(`{"_id": 0, "team": "query"}`)
	wantCode(t, db, "test", merge(`["name", "team"]`), 51132, "")
	setSource(`{"_id": 0, "name": "nicholas"}`)
	wantCode(t, db, "test", merge(`["name", "team"]`), 51132, "")
	setSource(`{"_id": 0, "name": "nicholas", "team": "query"}`)
	mustRun(t, db, "test", merge(`["name", "team"]`))
	sameValue(t, "merged on name and team", findAll(t, db, "test", "target", bson.D{}), `[{"_id": 0, "name": "nicholas", "team": "query"}]`)

	mustRun(t, db, "test", `{"delete": "target", "deletes": [{"q": {}, "limit": 0}]}`)
	mustRun(t, db, "test", `{"createIndexes": "target", "indexes": [{"key": {"song.artist": 1}, "name": "sa", "unique": true}]}`)
	for _, doc := range []string{`{"_id": 0, "song": null}`, `{"_id": 0, "song": {"$undefined": true}}`, `{"_id": 0, "song": {"artist": null}}`, `{"_id": 0, "song": {"artist": {"$undefined": true}}}`} {
		setSource(doc)
		wantCode(t, db, "test", merge(`["song.artist"]`), 51132, "")
	}
	setSource(`{"_id": 0, "song": {"artist": "Illenium"}}`)
	mustRun(t, db, "test", merge(`["song.artist"]`))
	sameValue(t, "merged on song.artist", findAll(t, db, "test", "target", bson.D{}), `[{"_id": 0, "song": {"artist": "Illenium"}}]`)

	mustRun(t, db, "test", `{"delete": "target", "deletes": [{"q": {}, "limit": 0}]}`)
	mustRun(t, db, "test", `{"createIndexes": "target", "indexes": [{"key": {"address.street": 1}, "name": "as", "unique": true}]}`)
	setSource(`{"_id": 0, "address": {"street": ["West 43rd St", "1633 Broadway"]}}`)
	wantCode(t, db, "test", merge(`["address.street"]`), 51185, "")
	setSource(`{"_id": 0, "address": [{"street": "1633 Broadway"}]}`)
	wantCode(t, db, "test", merge(`["address.street"]`), 51132, "")
	setSource(`{"_id": 0, "address": {"street": "1633 Broadway"}}`)
	mustRun(t, db, "test", merge(`["address.street"]`))
	sameValue(t, "merged on address.street", findAll(t, db, "test", "target", bson.D{}), `[{"_id": 0, "address": {"street": "1633 Broadway"}}]`)
}

// TestReviewAgg28MergeDollarFields ports mongod's
// jstests/aggregation/sources/merge/merge_with_dollar_fields.js: a
// result with a $-prefixed field is inserted as it is when nothing
// matches (whenNotMatched: insert) in every mode, a match is kept by
// keepExisting and updated by a pipeline, and merge and replace refuse
// to update a match with it (52; 52 or 9 for replace). ttlkv refused
// the insert in the merge, replace and keepExisting modes (52, and 9
// "Unknown modifier: $dollar" for replace).
func TestReviewAgg28MergeDollarFields(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "source", []string{`{"$dollar": 1, "joinField": "joinField"}`})
	sourceDoc := `[{"$dollar": 1, "joinField": "joinField"}]`
	targetDoc := `[{"a": 1, "joinField": "joinField"}]`
	n := 0
	merge := func(whenMatched, whenNotMatched string, matched bool) ([]bson.D, error) {
		t.Helper()
		n++
		target := fmt.Sprintf("target%d", n)
		mustRun(t, db, "test", `{"createIndexes": "`+target+`", "indexes": [{"key": {"joinField": 1}, "name": "j", "unique": true}]}`)
		if matched {
			loadCorpus(t, db, "test", target, []string{`{"a": 1, "joinField": "joinField"}`})
		}
		_, err := run(t, db, "test", `{"aggregate": "source", "pipeline": [{"$project": {"_id": 0}}, {"$merge": {"into": "`+target+`", "on": "joinField", "whenMatched": `+whenMatched+`, "whenNotMatched": "`+whenNotMatched+`"}}], "cursor": {}}`)
		got := firstBatch(t, mustRun(t, db, "test", `{"aggregate": "`+target+`", "pipeline": [{"$project": {"_id": 0}}], "cursor": {}}`))
		return got, err
	}
	want := func(what string, got []bson.D, wantJSON string) {
		t.Helper()
		sameValue(t, what, got, wantJSON)
	}
	// wantErr checks err is one of codes (nil for 0).
	wantErr := func(what string, err error, codes ...document.Code) {
		t.Helper()
		if codes[0] == 0 {
			if err != nil {
				t.Errorf("%s: %v", what, err)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) || !slices.Contains(codes, e.Code) {
			t.Errorf("%s: %v, want a code of %v", what, err, codes)
		}
	}
	got, err := merge(`"merge"`, "insert", true)
	wantErr("merge/insert matched", err, document.CodeDollarPrefixedFieldName)
	got, err = merge(`"merge"`, "insert", false)
	wantErr("merge/insert not matched", err, 0)
	want("merge/insert not matched", got, sourceDoc)
	_, err = merge(`"merge"`, "fail", false)
	wantErr("merge/fail not matched", err, document.CodeMergeStageNoMatchingDocument)
	got, err = merge(`"merge"`, "discard", false)
	wantErr("merge/discard not matched", err, 0)
	want("merge/discard not matched", got, `[]`)
	_, err = merge(`"replace"`, "insert", true)
	// mongod answers either (SERVER-76999).
	wantErr("replace/insert matched", err, document.CodeDollarPrefixedFieldName, document.CodeFailedToParse)
	got, err = merge(`"replace"`, "insert", false)
	wantErr("replace/insert not matched", err, 0)
	want("replace/insert not matched", got, sourceDoc)
	got, err = merge(`"keepExisting"`, "insert", true)
	wantErr("keepExisting/insert matched", err, 0)
	want("keepExisting/insert matched", got, targetDoc)
	got, err = merge(`"keepExisting"`, "insert", false)
	wantErr("keepExisting/insert not matched", err, 0)
	want("keepExisting/insert not matched", got, sourceDoc)
	_, err = merge(`"fail"`, "insert", true)
	wantErr("fail/insert matched", err, document.CodeDuplicateKey)
	got, err = merge(`"fail"`, "insert", false)
	wantErr("fail/insert not matched", err, 0)
	want("fail/insert not matched", got, sourceDoc)
	got, err = merge(`[{"$addFields": {"b": 1}}]`, "insert", true)
	wantErr("pipeline/insert matched", err, 0)
	want("pipeline/insert matched", got, `[{"a": 1, "joinField": "joinField", "b": 1}]`)
	got, err = merge(`[{"$addFields": {"b": 1}}]`, "insert", false)
	wantErr("pipeline/insert not matched", err, 0)
	want("pipeline/insert not matched", got, sourceDoc)
	_, err = merge(`[{"$addFields": {"b": 1}}]`, "fail", false)
	wantErr("pipeline/fail not matched", err, document.CodeMergeStageNoMatchingDocument)
}

// TestReviewAgg28MergeDefaultIsMerge: mongod's $merge without whenMatched
// merges the result's fields into the match (document_source_merge.h,
// kDefaultWhenMatched = kMerge; kDefaultWhenNotMatched = kInsert), so
// the match's other fields stay. ttlkv replaced the match and lost them.
func TestReviewAgg28MergeDefaultIsMerge(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "src", []string{`{"_id": 1, "a": 2}`, `{"_id": 2, "a": 3}`})
	loadCorpus(t, db, "test", "tgt", []string{`{"_id": 1, "a": 1, "w": 1}`})
	mustRun(t, db, "test", `{"aggregate": "src", "pipeline": [{"$merge": "tgt"}], "cursor": {}}`)
	sameValue(t, "$merge: tgt", findAll(t, db, "test", "tgt", bson.D{}), `[{"_id": 1, "a": 2, "w": 1}, {"_id": 2, "a": 3}]`)
	mustRun(t, db, "test", `{"aggregate": "src", "pipeline": [{"$set": {"a": 5}}, {"$merge": {"into": "tgt", "whenNotMatched": "discard"}}], "cursor": {}}`)
	sameValue(t, "$merge {into, whenNotMatched}", findAll(t, db, "test", "tgt", bson.D{}), `[{"_id": 1, "a": 5, "w": 1}, {"_id": 2, "a": 5}]`)
}
