package engine

import (
	"slices"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A text index as mongod stores and lists it, and $text through it:
// terms, stemming, stop words, negation, phrases, the language of the
// query and of each document, and prefix fields.
func TestTextIndexAndSearch(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "art", []string{
		`{"_id": 1, "title": "Coffee shops", "body": "The best coffee in town", "tenant": "a"}`,
		`{"_id": 2, "title": "Tea", "body": "Green tea and coffee beans", "tenant": "a"}`,
		`{"_id": 3, "title": "Running", "body": "runners run daily", "tenant": "b"}`,
		`{"_id": 4, "title": "Café", "body": "un café au lait", "language": "french", "tenant": "b"}`,
		`{"_id": 5, "title": 7, "body": ["shop talk", {"x": "coffee"}], "tenant": "a"}`,
		`{"_id": 6, "tenant": "a"}`,
	})
	r := mustRun(t, db, "test", `{"createIndexes": "art", "indexes": [{"key": {"title": "text", "body": "text"}, "name": "title_text_body_text", "weights": {"title": 10}}]}`)
	if field(r, "ok") != 1.0 && field(r, "ok") != int32(1) {
		t.Fatalf("createIndexes: %v", r)
	}
	lr := mustRun(t, db, "test", `{"listIndexes": "art"}`)
	ixs := firstBatch(t, lr)
	want := `{"v": 2, "key": {"_fts": "text", "_ftsx": 1}, "name": "title_text_body_text", "weights": {"body": 1, "title": 10}, "default_language": "english", "language_override": "language", "textIndexVersion": 3}`
	var wd bson.D
	if err := bson.UnmarshalExtJSON([]byte(want), false, &wd); err != nil {
		t.Fatal(err)
	}
	if len(ixs) != 2 || !document.Equal(ixs[1], wd) {
		t.Fatalf("listIndexes: %v, want %v", ixs, wd)
	}
	ids := func(filter string) []int32 {
		t.Helper()
		got := firstIDs(t, db, `{"find": "art", "filter": `+filter+`}`)
		slices.Sort(got)
		return got
	}
	for _, tc := range []struct {
		filter string
		want   []int32
	}{
		{`{"$text": {"$search": "coffee"}}`, []int32{1, 2}},
		{`{"$text": {"$search": "COFFEE shop"}}`, []int32{1, 2, 5}},
		{`{"$text": {"$search": "coffee -tea"}}`, []int32{1}},
		{`{"$text": {"$search": "\"coffee beans\""}}`, []int32{2}},
		{`{"$text": {"$search": "the"}}`, nil},
		{`{"$text": {"$search": "running"}}`, []int32{3}},
		{`{"$text": {"$search": "cafe"}}`, nil},
		{`{"$text": {"$search": "café", "$language": "fr"}}`, []int32{4}},
		{`{"$text": {"$search": "cafe", "$language": "french"}}`, []int32{4}},
		{`{"$text": {"$search": "Coffee", "$caseSensitive": true}}`, []int32{1}},
		{`{"$text": {"$search": "coffee"}, "tenant": "a", "_id": {"$gt": 1}}`, []int32{2}},
	} {
		if got := ids(tc.filter); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.filter, got, tc.want)
		}
	}
	for _, tc := range []struct {
		cmd  string
		code document.Code
	}{
		{`{"find": "art", "filter": {"$text": {"$search": "x", "$language": "klingon"}}}`, document.CodeBadValue},
		{`{"find": "art", "filter": {"$text": {"$search": "x"}}, "hint": {"$natural": 1}}`, document.CodeBadValue},
		{`{"aggregate": "art", "pipeline": [{"$sort": {"_id": 1}}, {"$match": {"$text": {"$search": "x"}}}], "cursor": {}}`, 17313},
		{`{"aggregate": "art", "pipeline": [{"$match": {"a": 1}}, {"$match": {"$and": [{"$text": {"$search": "x"}}]}}], "cursor": {}}`, 17313},
		{`{"find": "art", "filter": {"title": "Tea"}, "hint": "title_text_body_text"}`, document.CodeBadValue},
		{`{"find": "none", "filter": {"$text": {"$search": "x"}}}`, document.CodeIndexNotFound},
		{`{"createIndexes": "art", "indexes": [{"key": {"tenant": 1, "other": "text"}, "name": "o"}]}`, document.CodeCannotCreateIndex},
		{`{"createIndexes": "art", "indexes": [{"key": {"other": "text"}, "name": "o"}]}`, document.CodeIndexOptionsConflict},
		{`{"createIndexes": "art", "indexes": [{"key": {"title": "text", "body": "text"}, "name": "again", "weights": {"title": 5}}]}`, document.CodeIndexOptionsConflict},
		{`{"createIndexes": "art", "indexes": [{"key": {"a": "text", "b": 1, "c": "text"}, "name": "a_text_b_1_c_text"}]}`, document.CodeCannotCreateIndex},
		{`{"createIndexes": "art", "indexes": [{"key": {"a": "text", "b": "hashed"}, "name": "a_text_b_hashed"}]}`, document.CodeCannotCreateIndex},
		{`{"createIndexes": "art", "indexes": [{"key": {"a": 1}, "name": "a_1", "weights": {"a": 2}}]}`, document.CodeCannotCreateIndex},
		{`{"createIndexes": "x2", "indexes": [{"key": {"a": "text"}, "name": "a_text", "weights": {"a": 100000}}]}`, document.CodeCannotCreateIndex},
		{`{"createIndexes": "x2", "indexes": [{"key": {"a": "text"}, "name": "a_text", "default_language": "klingon"}]}`, document.CodeCannotCreateIndex},
	} {
		wantCode(t, db, "test", tc.cmd, tc.code, "")
	}
	// The same index again is no change; a document's bad language
	// override is refused and the rest of an unordered batch lands.
	mustRun(t, db, "test", `{"createIndexes": "art", "indexes": [{"key": {"title": "text", "body": "text"}, "name": "title_text_body_text", "weights": {"title": 10}, "default_language": "english"}]}`)
	r = mustRun(t, db, "test", `{"insert": "art", "documents": [{"_id": 9, "title": "x", "language": "klingon"}, {"_id": 10, "title": "x", "language": 5}, {"_id": 11, "title": "espresso"}], "ordered": false}`)
	we, _ := field(r, "writeErrors").(bson.A)
	if field(r, "n") != int32(1) || len(we) != 2 || field(we[0].(bson.D), "code") != int32(17262) || field(we[1].(bson.D), "code") != int32(17261) {
		t.Fatalf("insert with bad overrides: %v", r)
	}
	if got := ids(`{"$text": {"$search": "espresso"}}`); !slices.Equal(got, []int32{11}) {
		t.Errorf("espresso: %v", got)
	}
	// A compound text index needs an equality on its prefix field.
	mustRun(t, db, "test", `{"createIndexes": "notes", "indexes": [{"key": {"tenant": 1, "note": "text"}, "name": "tenant_1_note_text"}]}`)
	loadCorpus(t, db, "test", "notes", []string{`{"_id": 1, "tenant": "a", "note": "hello world"}`, `{"_id": 2, "tenant": "b", "note": "hello there"}`})
	if got := firstIDs(t, db, `{"find": "notes", "filter": {"tenant": "b", "$text": {"$search": "hello"}}}`); !slices.Equal(got, []int32{2}) {
		t.Errorf("tenant b hello: %v", got)
	}
	wantCode(t, db, "test", `{"find": "notes", "filter": {"$text": {"$search": "hello"}}}`, document.CodeNoQueryExecutionPlans, "prefix fields")
	// Capped and clustered collections take a text index; a time-series
	// collection does not (72, as mongod).
	for _, create := range []string{`{"create": "cap", "capped": true, "size": 100000}`, `{"create": "cl", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`} {
		mustRun(t, db, "test", create)
	}
	for _, name := range []string{"cap", "cl"} {
		mustRun(t, db, "test", `{"createIndexes": "`+name+`", "indexes": [{"key": {"m": "text"}, "name": "m"}]}`)
		loadCorpus(t, db, "test", name, []string{`{"_id": 1, "m": "hello world"}`, `{"_id": 2, "m": "goodbye"}`})
		if got := firstIDs(t, db, `{"find": "`+name+`", "filter": {"$text": {"$search": "worlds"}}}`); !slices.Equal(got, []int32{1}) {
			t.Errorf("%s: worlds: %v", name, got)
		}
	}
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	wantCode(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"m": "text"}, "name": "x"}]}`, document.CodeInvalidOptions, "Text indexes are not supported")
	if r, err := db.Validate(t.Context(), "test", "art"); err != nil || !r.Valid() {
		t.Fatalf("validate: %v %v", r, err)
	}
}

// explain of a $text find shows mongod's TEXT_MATCH over the fetch of
// the text index's keys, with the parsed query.
func TestTextExplain(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"s": "text"}, "name": "s_text"}]}`)
	loadCorpus(t, db, "test", "e", []string{`{"_id": 1, "s": "quick brown fox"}`, `{"_id": 2, "s": "lazy dog"}`})
	r := mustRun(t, db, "test", `{"explain": {"find": "e", "filter": {"$text": {"$search": "foxes -dog \"brown fox\""}}}, "verbosity": "executionStats"}`)
	stages, ix, _ := explainPlan(t, db, "test", `{"find": "e", "filter": {"$text": {"$search": "foxes -dog"}}}`)
	if !slices.Equal(stages, []string{"TEXT_MATCH", "FETCH", "IXSCAN"}) || ix != "s_text" {
		t.Fatalf("stages %v on %q", stages, ix)
	}
	if got := field(r, "queryPlanner.winningPlan.parsedTextQuery.terms"); fmtValue(got) != `[ "brown", "fox" ]` { // mongod's set: byte order
		t.Errorf("terms %s", fmtValue(got))
	}
	if got := field(r, "queryPlanner.winningPlan.parsedTextQuery.negatedTerms"); fmtValue(got) != `[ "dog" ]` {
		t.Errorf("negated terms %s", fmtValue(got))
	}
	if n := field(r, "executionStats.nReturned"); n != int32(1) {
		t.Errorf("nReturned %v", n)
	}
}

// $text serves every command that takes a filter: count, distinct,
// update, delete, findAndModify, and an aggregation's first $match.
func TestTextInOtherCommands(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"s": "text"}, "name": "s_text"}]}`)
	loadCorpus(t, db, "test", "e", []string{`{"_id": 1, "s": "quick brown fox"}`, `{"_id": 2, "s": "lazy dog"}`, `{"_id": 3, "s": "fox den"}`})
	if r := mustRun(t, db, "test", `{"count": "e", "query": {"$text": {"$search": "fox"}}}`); field(r, "n") != int32(2) {
		t.Errorf("count: %v", r)
	}
	if r := mustRun(t, db, "test", `{"distinct": "e", "key": "_id", "query": {"$text": {"$search": "fox"}}}`); fmtValue(field(r, "values")) != "[ 1, 3 ]" {
		t.Errorf("distinct: %v", r)
	}
	if r := mustRun(t, db, "test", `{"aggregate": "e", "pipeline": [{"$match": {"$text": {"$search": "foxes"}}}, {"$count": "n"}], "cursor": {}}`); field(firstBatch(t, r)[0], "n") != int32(2) {
		t.Errorf("aggregate: %v", r)
	}
	if r := mustRun(t, db, "test", `{"update": "e", "updates": [{"q": {"$text": {"$search": "fox"}}, "u": {"$set": {"f": 1}}, "multi": true}]}`); field(r, "nModified") != int32(2) {
		t.Errorf("update: %v", r)
	}
	if r := mustRun(t, db, "test", `{"findAndModify": "e", "query": {"$text": {"$search": "den"}}, "update": {"$set": {"g": 1}}, "new": true}`); field(r, "value.g") != int32(1) || field(r, "value._id") != int32(3) {
		t.Errorf("findAndModify: %v", r)
	}
	if r := mustRun(t, db, "test", `{"delete": "e", "deletes": [{"q": {"$text": {"$search": "dog"}}, "limit": 0}]}`); field(r, "n") != int32(1) {
		t.Errorf("delete: %v", r)
	}
	if got := firstIDs(t, db, `{"find": "e", "filter": {"$text": {"$search": "dog lazy"}}}`); len(got) != 0 {
		t.Errorf("the deleted document's keys remain: %v", got)
	}
}

// {$meta: "textScore"} in a find's projection and sort gives mongod's
// scores, highest first, and is refused (40218) without a $text.
func TestTextScore(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"x": "text"}, "name": "x_text"}]}`)
	loadCorpus(t, db, "test", "s", []string{`{"_id": 1, "x": "test"}`, `{"_id": 2, "x": "hello"}`, `{"_id": 3, "x": "test test", "score": "mine"}`,
		`{"_id": 4, "x": "textual content"}`, `{"_id": 5, "x": "additional content"}`, `{"_id": 6, "x": "irrelevant content"}`})
	docs := func(cmd string) []bson.D {
		t.Helper()
		return firstBatch(t, mustRun(t, db, "test", cmd))
	}
	got := docs(`{"find": "s", "filter": {"$text": {"$search": "test"}}, "projection": {"score": {"$meta": "textScore"}}, "sort": {"score": {"$meta": "textScore"}}}`)
	if len(got) != 2 || field(got[0], "_id") != int32(3) || field(got[0], "score") != 1.5 || field(got[1], "score") != 1.1 {
		t.Fatalf("test: %v", got)
	}
	// The score replaces a field of that name in place, and goes last
	// otherwise; a sort alone returns no score.
	if k := got[0][len(got[0])-1].Key; k != "score" || len(got[0]) != 3 {
		t.Errorf("projected document %v", got[0])
	}
	got = docs(`{"find": "s", "filter": {"$text": {"$search": "textual content -irrelevant"}}, "projection": {"x": 0, "m.s": {"$meta": "textScore"}}, "sort": {"s": {"$meta": "textScore"}}}`)
	if len(got) != 2 || field(got[0], "m.s") != 1.5 || field(got[1], "m.s") != 0.75 || field(got[0], "x") != nil {
		t.Fatalf("textual content: %v", got)
	}
	got = docs(`{"find": "s", "filter": {"$text": {"$search": "content"}}, "sort": {"s": {"$meta": "textScore"}, "_id": -1}}`)
	for _, d := range got {
		for _, e := range d {
			if e.Key == query.TextScoreField {
				t.Fatalf("a score's carrier field came out: %v", d)
			}
		}
	}
	if len(got) != 3 || field(got[0], "_id") != int32(6) {
		t.Errorf("content by score then _id descending: %v", got)
	}
	wantCode(t, db, "test", `{"find": "s", "filter": {}, "sort": {"s": {"$meta": "textScore"}}}`, 40218, "text score metadata")
	wantCode(t, db, "test", `{"find": "s", "filter": {"x": "test"}, "projection": {"s": {"$meta": "textScore"}}}`, 40218, "text score metadata")
	wantCode(t, db, "test", `{"find": "s", "filter": {}, "projection": {"s": {"$meta": "other"}}}`, 17308, "")
}

// An aggregation reads a $text query's score through {$meta:
// "textScore"} in its stages ($project, $addFields, $sort, $group's
// expressions), after a $project that drops every other field, and no
// score's carrier field reaches a client or a $out.
func TestTextScoreAggregate(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"x": "text"}, "name": "x_text"}]}`)
	loadCorpus(t, db, "test", "s", []string{`{"_id": 1, "x": "test", "k": "a"}`, `{"_id": 2, "x": "hello", "k": "a"}`, `{"_id": 3, "x": "test test", "k": "b"}`})
	agg := func(pipeline string) []bson.D {
		t.Helper()
		return firstBatch(t, mustRun(t, db, "test", `{"aggregate": "s", "pipeline": `+pipeline+`, "cursor": {}}`))
	}
	got := agg(`[{"$match": {"$text": {"$search": "test"}}}, {"$project": {"k": 1}}, {"$sort": {"s": {"$meta": "textScore"}}}, {"$addFields": {"score": {"$meta": "textScore"}}}]`)
	if len(got) != 2 || field(got[0], "_id") != int32(3) || field(got[0], "score") != 1.5 || field(got[1], "score") != 1.1 {
		t.Fatalf("project, sort, addFields: %v", got)
	}
	got = agg(`[{"$match": {"$text": {"$search": "test"}}}, {"$group": {"_id": null, "total": {"$sum": {"$meta": "textScore"}}, "docs": {"$push": "$$ROOT"}}}]`)
	if len(got) != 1 || field(got[0], "total") != 2.6 {
		t.Fatalf("group: %v", got)
	}
	for _, d := range field(got[0], "docs").(bson.A) {
		if n := len(d.(bson.D)); d.(bson.D)[n-1].Key == query.TextScoreField {
			t.Fatalf("a score's carrier field came out in $push: %v", d)
		}
	}
	mustRun(t, db, "test", `{"aggregate": "s", "pipeline": [{"$match": {"$text": {"$search": "test"}}}, {"$set": {"s": {"$meta": "textScore"}}}, {"$out": "scored"}], "cursor": {}}`)
	for _, d := range firstBatch(t, mustRun(t, db, "test", `{"find": "scored", "filter": {}}`)) {
		if len(d) != 4 || d[3].Key != "s" {
			t.Fatalf("$out wrote %v", d)
		}
	}
	wantCode(t, db, "test", `{"aggregate": "s", "pipeline": [{"$project": {"s": {"$meta": "textScore"}}}], "cursor": {}}`, 40218, "")
	wantCode(t, db, "test", `{"aggregate": "s", "pipeline": [{"$match": {"$text": {"$search": "test"}}}, {"$project": {"s": {"$meta": 5}}}], "cursor": {}}`, 17307, "")
}

// Text that is not UTF-8 is refused with mongod's 28755 where a text
// index reads it, and the document is not written.
func TestTextInvalidUTF8(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "u", "indexes": [{"key": {"s": "text"}, "name": "s_text"}]}`)
	c := db.Database("test").Collection("u")
	_, err := c.InsertOne(t.Context(), bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: "bad \xff\xfe word"}})
	if document.CodeOf(err) != 28755 {
		t.Fatalf("insert of invalid UTF-8: %v, want 28755", err)
	}
	if _, err := c.InsertOne(t.Context(), bson.D{{Key: "_id", Value: 2}, {Key: "other", Value: "bad \xff"}}); err != nil {
		t.Fatalf("invalid UTF-8 in a field the index does not read: %v", err)
	}
	if n, _ := c.CountDocuments(t.Context(), bson.D{}); n != 1 {
		t.Fatalf("%d documents, want 1", n)
	}
}

// A $text on a view is the view's pipeline followed by the $match, as
// mongod resolves it: 17313 after any stage, found through the text
// index when the view's pipeline is empty.
func TestTextOnViews(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"s": "text"}, "name": "s_text"}]}`)
	loadCorpus(t, db, "test", "e", []string{`{"_id": 1, "s": "quick brown fox"}`, `{"_id": 2, "s": "lazy dog"}`})
	mustRun(t, db, "test", `{"create": "v", "viewOn": "e", "pipeline": [{"$match": {"_id": {"$gt": 0}}}]}`)
	mustRun(t, db, "test", `{"create": "v0", "viewOn": "e", "pipeline": []}`)
	wantCode(t, db, "test", `{"find": "v", "filter": {"$text": {"$search": "fox"}}}`, 17313, "first pipeline stage")
	wantCode(t, db, "test", `{"count": "v", "query": {"$text": {"$search": "fox"}}}`, 17313, "first pipeline stage")
	if got := firstIDs(t, db, `{"find": "v0", "filter": {"$text": {"$search": "foxes"}}}`); !slices.Equal(got, []int32{1}) {
		t.Errorf("through an empty view: %v", got)
	}
}

// A $text as a branch of the filter's top-level $or: an index union,
// the text index for its branch and an index for every other (291
// when one has none), scores for the documents the $text finds.
func TestTextUnderOr(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "o", "indexes": [{"key": {"s": "text"}, "name": "s_text"}, {"key": {"k": 1}, "name": "k"}]}`)
	loadCorpus(t, db, "test", "o", []string{`{"_id": 1, "s": "quick brown fox", "k": 1}`, `{"_id": 2, "s": "lazy dog", "k": 2}`,
		`{"_id": 3, "s": "fox den", "k": 3}`, `{"_id": 4, "s": "nothing here", "k": 4}`})
	if got := firstIDs(t, db, `{"find": "o", "filter": {"$or": [{"$text": {"$search": "fox"}}, {"k": 2}]}, "sort": {"_id": 1}}`); !slices.Equal(got, []int32{1, 2, 3}) {
		t.Errorf("fox or k 2: %v", got)
	}
	got := firstBatch(t, mustRun(t, db, "test", `{"find": "o", "filter": {"$or": [{"k": 1}, {"$text": {"$search": "fox"}}]}, "projection": {"sc": {"$meta": "textScore"}}, "sort": {"sc": {"$meta": "textScore"}}}`))
	if len(got) != 2 || field(got[0], "_id") != int32(3) || field(got[0], "sc") != 0.75 || field(got[1], "sc") == nil {
		t.Errorf("scored: %v", got)
	}
	got = firstBatch(t, mustRun(t, db, "test", `{"find": "o", "filter": {"$or": [{"k": 2}, {"$text": {"$search": "fox"}}]}, "sort": {"sc": {"$meta": "textScore"}}}`))
	for _, d := range got {
		if _, carries := query.TextScoreOf(d); carries {
			t.Fatalf("a score's carrier field came out: %v", d)
		}
	}
	if stages, _, _ := explainPlan(t, db, "test", `{"find": "o", "filter": {"$or": [{"$text": {"$search": "fox"}}, {"k": 2}]}}`); !slices.Contains(stages, "OR") {
		t.Errorf("stages %v", stages)
	}
	wantCode(t, db, "test", `{"find": "o", "filter": {"$or": [{"$text": {"$search": "fox"}}, {"z": 2}]}}`, document.CodeNoQueryExecutionPlans, "other non-TEXT clauses under OR have to be indexed")
	// An $or inside a top-level $and, or all of a branch of the
	// top-level $or, is the top level's once mongod flattens them; an
	// $or deeper than that is ttlkv's limit.
	if got := firstIDs(t, db, `{"find": "o", "filter": {"$or": [{"$or": [{"$text": {"$search": "fox"}}, {"k": 2}]}, {"k": 4}]}, "sort": {"_id": 1}}`); !slices.Equal(got, []int32{1, 2, 3, 4}) {
		t.Errorf("$or of an $or: %v", got)
	}
	wantCode(t, db, "test", `{"find": "o", "filter": {"$or": [{"$or": [{"$text": {"$search": "fox"}}, {"z": 2}]}, {"k": 4}]}}`, document.CodeNoQueryExecutionPlans, "other non-TEXT clauses under OR have to be indexed")
	if got := firstIDs(t, db, `{"find": "o", "filter": {"$and": [{"$or": [{"$text": {"$search": "fox"}}, {"k": 2}]}]}, "sort": {"_id": 1}}`); !slices.Equal(got, []int32{1, 2, 3}) {
		t.Errorf("$or in a top-level $and: %v", got)
	}
	wantCode(t, db, "test", `{"find": "o", "filter": {"$or": [{"$and": [{"$or": [{"$text": {"$search": "fox"}}, {"k": 2}]}, {"k": 3}]}, {"k": 4}]}}`, document.CodeNoQueryExecutionPlans, "")
}

// findAndModify sorted by textScore changes the best-scoring document.
func TestTextScoreFindAndModify(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "fm", "indexes": [{"key": {"x": "text"}, "name": "x_text"}]}`)
	loadCorpus(t, db, "test", "fm", []string{`{"_id": 1, "x": "test and more words"}`, `{"_id": 2, "x": "test"}`, `{"_id": 3, "x": "nothing"}`})
	r := mustRun(t, db, "test", `{"findAndModify": "fm", "query": {"$text": {"$search": "test"}}, "sort": {"s": {"$meta": "textScore"}}, "update": {"$set": {"best": true}}, "new": true}`)
	if field(r, "value._id") != int32(2) {
		t.Errorf("best by score: %v", r)
	}
	for _, e := range field(r, "value").(bson.D) {
		if e.Key == query.TextScoreField {
			t.Fatalf("a score's carrier field came out: %v", r)
		}
	}
	wantCode(t, db, "test", `{"findAndModify": "fm", "query": {}, "sort": {"s": {"$meta": "textScore"}}, "remove": true}`, 40218, "")
}
