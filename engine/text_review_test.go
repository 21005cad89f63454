package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/fts"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// rvCarrier fails t when v holds a field whose name has a NUL byte (the
// text score's carrier) at any depth.
func rvCarrier(t *testing.T, what string, v any) {
	t.Helper()
	if d := rvFindCarrier(v); d != nil {
		s := fmt.Sprint(d)
		if len(s) > 200 {
			s = s[:200]
		}
		t.Errorf("%s: carrier field leaked, e.g. in %s", what, s)
	}
}

func rvFindCarrier(v any) bson.D {
	switch x := v.(type) {
	case bson.D:
		for _, e := range x {
			if strings.Contains(e.Key, "\x00") {
				return x
			}
			if d := rvFindCarrier(e.Value); d != nil {
				return d
			}
		}
	case bson.A:
		for _, e := range x {
			if d := rvFindCarrier(e); d != nil {
				return d
			}
		}
	case string:
		if strings.Contains(x, "\x00") {
			return bson.D{{Key: "string", Value: x}}
		}
	}
	return nil
}

func rvValid(t *testing.T, db *DB, coll string) {
	t.Helper()
	r, err := db.Validate(context.Background(), "test", coll)
	if err != nil || !r.Valid() {
		t.Fatalf("validate %s: %v %+v", coll, err, r)
	}
}

func rvIDs(t *testing.T, db *DB, coll, search string) []int32 {
	t.Helper()
	got := firstIDs(t, db, fmt.Sprintf(`{"find": %q, "filter": {"$text": {"$search": %q}}}`, coll, search))
	slices.Sort(got)
	return got
}

// Index maintenance through every write path.
func TestReviewTextMaintenance(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "m", "indexes": [{"key": {"s": "text", "t": "text"}, "name": "st"}]}`)
	loadCorpus(t, db, "test", "m", []string{`{"_id": 1, "s": "alpha beta"}`, `{"_id": 2, "s": "gamma"}`, `{"_id": 3}`, `{"_id": 4, "s": "delta", "t": ["eps", "zeta"]}`})
	rvValid(t, db, "m")
	check := func(search string, want ...int32) {
		t.Helper()
		if got := rvIDs(t, db, "m", search); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", search, got, want)
		}
	}
	mustRun(t, db, "test", `{"update": "m", "updates": [{"q": {"_id": 1}, "u": {"$set": {"s": "omega"}}}]}`)
	check("alpha")
	check("omega", 1)
	mustRun(t, db, "test", `{"update": "m", "updates": [{"q": {"_id": 3}, "u": {"$set": {"t": "added text"}}}]}`)
	check("added", 3)
	mustRun(t, db, "test", `{"update": "m", "updates": [{"q": {"_id": 2}, "u": {"$unset": {"s": 1}}}]}`)
	check("gamma")
	mustRun(t, db, "test", `{"update": "m", "updates": [{"q": {"_id": 4}, "u": {"$push": {"t": "theta"}}}]}`)
	check("theta", 4)
	mustRun(t, db, "test", `{"update": "m", "updates": [{"q": {"_id": 4}, "u": {"$pull": {"t": "eps"}}}]}`)
	check("eps")
	check("zeta", 4)
	mustRun(t, db, "test", `{"update": "m", "updates": [{"q": {"_id": 4}, "u": {"s": "replaced"}}]}`)
	check("delta")
	check("zeta")
	check("replaced", 4)
	mustRun(t, db, "test", `{"update": "m", "updates": [{"q": {"_id": 5}, "u": {"$set": {"s": "upserted"}}, "upsert": true}]}`)
	check("upserted", 5)
	mustRun(t, db, "test", `{"update": "m", "updates": [{"q": {"_id": 6, "s": "from query"}, "u": {"$set": {"x": 1}}, "upsert": true}]}`)
	check("query", 6)
	mustRun(t, db, "test", `{"findAndModify": "m", "query": {"_id": 6}, "update": {"$set": {"s": "fam"}}}`)
	check("query")
	check("fam", 6)
	mustRun(t, db, "test", `{"findAndModify": "m", "query": {"_id": 7}, "update": {"$set": {"s": "famup"}}, "upsert": true}`)
	check("famup", 7)
	mustRun(t, db, "test", `{"findAndModify": "m", "query": {"$text": {"$search": "famup"}}, "remove": true}`)
	check("famup")
	mustRun(t, db, "test", `{"delete": "m", "deletes": [{"q": {"_id": 1}, "limit": 1}]}`)
	check("omega")
	// a bad language override in an update fails it and changes nothing
	r, err := run(t, db, "test", `{"update": "m", "updates": [{"q": {"_id": 5}, "u": {"$set": {"language": "klingon", "s": "bad"}}}]}`)
	if err == nil {
		if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(we[0].(bson.D), "code") != int32(17262) {
			t.Errorf("bad override update: %v", r)
		}
	}
	check("upserted", 5)
	check("bad")
	rvValid(t, db, "m")
	// An index built over existing documents.
	loadCorpus(t, db, "test", "pre", []string{`{"_id": 1, "s": "pre built"}`, `{"_id": 2, "s": ["array", "of words"]}`, `{"_id": 3, "s": 5}`})
	mustRun(t, db, "test", `{"createIndexes": "pre", "indexes": [{"key": {"s": "text"}, "name": "s"}]}`)
	rvValid(t, db, "pre")
	if got := rvIDs(t, db, "pre", "built words"); !slices.Equal(got, []int32{1, 2}) {
		t.Errorf("pre-built: %v", got)
	}
	// hidden: the planner has no text index for $text (291, as
	// mongod's hidden_index.js); unhidden it serves again.
	mustRun(t, db, "test", `{"collMod": "pre", "index": {"name": "s", "hidden": true}}`)
	wantCode(t, db, "test", `{"find": "pre", "filter": {"$text": {"$search": "built"}}}`, document.CodeNoQueryExecutionPlans, "need exactly one text index")
	mustRun(t, db, "test", `{"insert": "pre", "documents": [{"_id": 4, "s": "while hidden"}]}`)
	mustRun(t, db, "test", `{"collMod": "pre", "index": {"name": "s", "hidden": false}}`)
	if got := rvIDs(t, db, "pre", "hidden"); !slices.Equal(got, []int32{4}) {
		t.Errorf("after unhide: %v", got)
	}
	rvValid(t, db, "pre")
	mustRun(t, db, "test", `{"dropIndexes": "pre", "index": "s"}`)
	wantCode(t, db, "test", `{"find": "pre", "filter": {"$text": {"$search": "built"}}}`, document.CodeIndexNotFound, "")
	wantCode(t, db, "test", `{"count": "pre", "query": {"$text": {"$search": "built"}}}`, document.CodeIndexNotFound, "")
	wantCode(t, db, "test", `{"aggregate": "pre", "pipeline": [{"$match": {"$text": {"$search": "built"}}}], "cursor": {}}`, document.CodeIndexNotFound, "")
	// re-created with other weights
	mustRun(t, db, "test", `{"createIndexes": "pre", "indexes": [{"key": {"s": "text"}, "name": "s2", "default_language": "none"}]}`)
	if got := rvIDs(t, db, "pre", "word"); len(got) != 0 {
		t.Errorf("none language must not stem: %v", got)
	}
	rvValid(t, db, "pre")
}

// A text index survives a restart.
func TestReviewTextRestart(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "p", "indexes": [{"key": {"a": 1, "s": "text"}, "name": "as", "weights": {"s": 3, "x.y": 7}, "default_language": "fr", "language_override": "lang"}]}`)
	loadCorpus(t, db, "test", "p", []string{`{"_id": 1, "a": 1, "s": "les chiens", "x": {"y": "courante"}}`, `{"_id": 2, "a": 1, "s": "running", "lang": "en"}`})
	before := mustRun(t, db, "test", `{"listIndexes": "p"}`)
	db = reopen(t, db, dir, clk)
	after := mustRun(t, db, "test", `{"listIndexes": "p"}`)
	if fmtValue(firstBatch(t, before)) != fmtValue(firstBatch(t, after)) {
		t.Errorf("listIndexes changed: %v\n%v", before, after)
	}
	got := firstIDs(t, db, `{"find": "p", "filter": {"a": 1, "$text": {"$search": "chien run courant"}}}`)
	slices.Sort(got)
	if !slices.Equal(got, []int32{1, 2}) {
		t.Errorf("after restart: %v", got)
	}
	mustRun(t, db, "test", `{"insert": "p", "documents": [{"_id": 3, "a": 1, "s": "encore"}]}`)
	rvValid(t, db, "p")
	wantCode(t, db, "test", `{"createIndexes": "p", "indexes": [{"key": {"z": "text"}, "name": "z"}]}`, document.CodeCannotCreateIndex, "")
}

// Capped eviction and clustered collections keep their keys right.
func TestReviewTextCappedClustered(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "cap", "capped": true, "size": 4096, "max": 3}`)
	mustRun(t, db, "test", `{"createIndexes": "cap", "indexes": [{"key": {"s": "text"}, "name": "s"}]}`)
	for i := range 10 {
		mustRun(t, db, "test", fmt.Sprintf(`{"insert": "cap", "documents": [{"_id": %d, "s": "word%d common"}]}`, i, i))
	}
	if got := rvIDs(t, db, "cap", "common"); !slices.Equal(got, []int32{7, 8, 9}) {
		t.Errorf("capped common: %v", got)
	}
	if got := rvIDs(t, db, "cap", "word1"); len(got) != 0 {
		t.Errorf("evicted doc's keys: %v", got)
	}
	if r := mustRun(t, db, "test", `{"count": "cap", "query": {"$text": {"$search": "common"}}}`); field(r, "n") != int32(3) {
		t.Errorf("capped count %v", r)
	}
	rvValid(t, db, "cap")

	mustRun(t, db, "test", `{"create": "cl", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
	mustRun(t, db, "test", `{"createIndexes": "cl", "indexes": [{"key": {"s": "text"}, "name": "s"}]}`)
	loadCorpus(t, db, "test", "cl", []string{`{"_id": "a", "s": "one two"}`, `{"_id": "b", "s": "two three"}`})
	mustRun(t, db, "test", `{"update": "cl", "updates": [{"q": {"_id": "a"}, "u": {"$set": {"s": "four"}}}]}`)
	mustRun(t, db, "test", `{"delete": "cl", "deletes": [{"q": {"_id": "b"}, "limit": 1}]}`)
	r := mustRun(t, db, "test", `{"find": "cl", "filter": {"$text": {"$search": "one two three four"}}, "projection": {"sc": {"$meta": "textScore"}}}`)
	if b := firstBatch(t, r); len(b) != 1 || field(b[0], "_id") != "a" {
		t.Errorf("clustered: %v", b)
	}
	rvValid(t, db, "cl")
}

func rvScoreCorpus(t *testing.T) *DB {
	t.Helper()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"x": "text"}, "name": "x_text"}]}`)
	var docs []string
	for i := range 20 {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "x": "%s", "arr": [{"a": 1}, {"a": 2}], "k": %d, "sub": {"q": 1}}`, i, strings.Repeat("test ", i%5+1)+"other", i%3))
	}
	loadCorpus(t, db, "test", "s", docs)
	loadCorpus(t, db, "test", "other", []string{`{"_id": 1, "k": 0}`, `{"_id": 2, "k": 1}`})
	return db
}

// readAllBatches runs a find or aggregate and follows its cursor.
func rvAll(t *testing.T, db *DB, coll, cmd string) []bson.D {
	t.Helper()
	r := mustRun(t, db, "test", cmd)
	out := firstBatch(t, r)
	id, _ := field(r, "cursor.id").(int64)
	for id != 0 {
		var err error
		r, err = run(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": %q, "batchSize": 3}`, id, coll))
		if err != nil {
			t.Errorf("getMore of %s: %v", cmd, err)
			return out
		}
		for _, d := range field(r, "cursor.nextBatch").(bson.A) {
			out = append(out, d.(bson.D))
		}
		id, _ = field(r, "cursor.id").(int64)
	}
	return out
}

// No carrier field through find's projections, sort, skip, limit, getMore.
func TestReviewTextCarrierFind(t *testing.T) {
	t.Parallel()
	db := rvScoreCorpus(t)
	const f = `"filter": {"$text": {"$search": "test"}}, "sort": {"sc": {"$meta": "textScore"}}`
	for _, proj := range []string{
		``,
		`, "projection": {"x": 1}`,
		`, "projection": {"x": 0}`,
		`, "projection": {"sc": {"$meta": "textScore"}}`,
		`, "projection": {"x": 1, "sc": {"$meta": "textScore"}}`,
		`, "projection": {"arr": {"$slice": 1}}`,
		`, "projection": {"arr": {"$elemMatch": {"a": 2}}}`,
		`, "projection": {"c": {"$add": ["$k", 1]}}`,
		`, "projection": {"r": "$$ROOT"}`,
		`, "projection": {"r": "$$CURRENT"}`,
		`, "projection": {"r": {"$objectToArray": "$$ROOT"}}`,
		`, "projection": {"sub": {"z": "$$ROOT"}}`,
		`, "projection": {"sub.q": 0}`,
		`, "projection": {"arr.$": 1}`,
	} {
		for _, tail := range []string{``, `, "limit": 5`, `, "skip": 3, "batchSize": 2`, `, "batchSize": 1`} {
			cmd := `{"find": "s", ` + f + proj + tail + `}`
			if strings.Contains(proj, "arr.$") {
				cmd = `{"find": "s", "filter": {"$text": {"$search": "test"}, "arr.a": 2}, "sort": {"sc": {"$meta": "textScore"}}` + proj + tail + `}`
			}
			r, err := run(t, db, "test", cmd)
			if err != nil {
				continue // refused queries are not this test's concern
			}
			_ = r
			rvCarrier(t, cmd, bson.A{rvAllD(rvAll(t, db, "s", cmd))})
		}
	}
	// findAndModify with a score sort and projection: nothing leaks,
	// nothing stored.
	for _, cmd := range []string{
		`{"findAndModify": "s", "query": {"$text": {"$search": "test"}}, "sort": {"sc": {"$meta": "textScore"}}, "update": {"$set": {"u": 1}}, "new": true}`,
		`{"findAndModify": "s", "query": {"$text": {"$search": "test"}}, "sort": {"sc": {"$meta": "textScore"}}, "update": {"$set": {"u": 2}}, "fields": {"sc": {"$meta": "textScore"}}}`,
		`{"findAndModify": "s", "query": {"$text": {"$search": "test"}}, "fields": {"sc": {"$meta": "textScore"}}, "update": {"$set": {"u": 3}}, "new": true}`,
		`{"findAndModify": "s", "query": {"$text": {"$search": "test"}}, "sort": {"sc": {"$meta": "textScore"}}, "update": [{"$set": {"u": 4, "r": "$$ROOT"}}], "new": true}`,
		`{"findAndModify": "s", "query": {"$text": {"$search": "test"}}, "sort": {"sc": {"$meta": "textScore"}}, "update": {"x": "replaced test"}, "new": true}`,
		`{"findAndModify": "s", "query": {"$text": {"$search": "other"}}, "sort": {"sc": {"$meta": "textScore"}}, "remove": true, "fields": {"r": "$$ROOT"}}`,
	} {
		r, err := run(t, db, "test", cmd)
		if err != nil {
			t.Logf("%s: %v", cmd, err)
			continue
		}
		rvCarrier(t, cmd, r)
	}
	rvCarrier(t, "stored", bson.A{rvAllD(rvAll(t, db, "s", `{"find": "s", "filter": {}}`))})
	rvValid(t, db, "s")
}

func rvAllD(ds []bson.D) bson.A {
	out := bson.A{}
	for _, d := range ds {
		out = append(out, d)
	}
	return out
}

// No carrier field through aggregation stages, or into $out/$merge.
func TestReviewTextCarrierAggregate(t *testing.T) {
	t.Parallel()
	db := rvScoreCorpus(t)
	const m = `{"$match": {"$text": {"$search": "test"}}}, {"$sort": {"sc": {"$meta": "textScore"}}}`
	for _, st := range []string{
		`{"$project": {"x": 1}}`,
		`{"$addFields": {"z": 1}}`,
		`{"$group": {"_id": "$k", "d": {"$push": "$$ROOT"}, "f": {"$first": "$$ROOT"}, "t": {"$sum": {"$meta": "textScore"}}}}`,
		`{"$facet": {"a": [{"$limit": 2}], "b": [{"$project": {"r": "$$ROOT"}}]}}`,
		`{"$lookup": {"from": "other", "localField": "k", "foreignField": "k", "as": "o"}}`,
		`{"$lookup": {"from": "s", "let": {"kk": "$k"}, "pipeline": [{"$match": {"$expr": {"$eq": ["$k", "$$kk"]}}}], "as": "o"}}`,
		`{"$lookup": {"from": "other", "pipeline": [{"$addFields": {"outer": "$$ROOT"}}], "as": "o"}}`,
		`{"$unionWith": {"coll": "other"}}`,
		`{"$unionWith": {"coll": "s", "pipeline": [{"$match": {"$text": {"$search": "other"}}}]}}`,
		`{"$replaceRoot": {"newRoot": {"r": "$$ROOT"}}}`,
		`{"$replaceWith": "$sub"}`,
		`{"$bucket": {"groupBy": "$k", "boundaries": [0, 1, 5], "output": {"d": {"$push": "$$ROOT"}}}}`,
		`{"$bucketAuto": {"groupBy": "$k", "buckets": 2, "output": {"d": {"$push": "$$ROOT"}}}}`,
		`{"$set": {"o": {"$objectToArray": "$$ROOT"}}}`,
		`{"$set": {"o": {"$mergeObjects": ["$$ROOT", {"n": 1}]}}}`,
		`{"$unwind": "$arr"}`,
		`{"$sortByCount": "$$ROOT"}`,
		`{"$group": {"_id": "$$ROOT"}}`,
		`{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"w": {"$push": "$$ROOT", "window": {"documents": [-1, 0]}}}}}`,
		`{"$densify": {"field": "k", "range": {"step": 1, "bounds": "full"}}}`,
		`{"$redact": "$$KEEP"}`,
		`{"$project": {"ks": {"$map": {"input": {"$objectToArray": "$$ROOT"}, "in": "$$this.k"}}}}`,
	} {
		cmd := `{"aggregate": "s", "pipeline": [` + m + `, ` + st + `], "cursor": {"batchSize": 2}}`
		if _, err := run(t, db, "test", cmd); err != nil {
			t.Logf("%s: %v", st, err)
			continue
		}
		rvCarrier(t, st, rvAllD(rvAll(t, db, "s", cmd)))
	}
	for i, st := range []string{
		`{"$out": "o1"}`,
		`{"$merge": {"into": "o2"}}`,
		`{"$project": {"r": "$$ROOT"}}, {"$merge": {"into": "o3"}}`,
		`{"$group": {"_id": "$k", "d": {"$push": "$$ROOT"}}}, {"$out": "o4"}`,
		`{"$set": {"o": {"$objectToArray": "$$ROOT"}}}, {"$out": "o5"}`,
	} {
		cmd := `{"aggregate": "s", "pipeline": [` + m + `, ` + st + `], "cursor": {}}`
		if _, err := run(t, db, "test", cmd); err != nil {
			t.Errorf("%s: %v", st, err)
			continue
		}
		name := fmt.Sprintf("o%d", i+1)
		rvCarrier(t, "stored "+st, rvAllD(rvAll(t, db, name, `{"find": "`+name+`", "filter": {}}`)))
	}
	// $merge with whenMatched pipeline reading the score into the target.
	mustRun(t, db, "test", `{"aggregate": "s", "pipeline": [`+m+`, {"$merge": {"into": "o2", "whenMatched": [{"$set": {"n": "$$new"}}]}}], "cursor": {}}`)
	rvCarrier(t, "stored merge pipeline", rvAllD(rvAll(t, db, "o2", `{"find": "o2", "filter": {}}`)))
}

// A find projection reading $$ROOT or $$CURRENT returns the score's
// carrier field (a key with a NUL byte, which BSON cannot encode).
func TestReviewTextCarrierFindRootProjection(t *testing.T) {
	t.Parallel()
	db := rvScoreCorpus(t)
	for _, proj := range []string{`{"r": "$$ROOT"}`, `{"r": "$$CURRENT"}`, `{"sub": {"z": "$$ROOT"}}`, `{"sc": {"$meta": "textScore"}, "r": "$$ROOT"}`} {
		r := mustRun(t, db, "test", `{"find": "s", "filter": {"$text": {"$search": "test"}}, "sort": {"sc": {"$meta": "textScore"}}, "projection": `+proj+`, "limit": 1}`)
		rvCarrier(t, proj, r)
	}
}

// $text as the first stage of a sub-pipeline over a collection with a
// text index ($unionWith's, $lookup's): the find reading that
// collection runs it; elsewhere in a sub-pipeline it is 17313.
func TestReviewTextSubPipeline(t *testing.T) {
	t.Parallel()
	db := rvScoreCorpus(t)
	got := firstBatch(t, mustRun(t, db, "test", `{"aggregate": "other", "pipeline": [{"$unionWith": {"coll": "s", "pipeline": [{"$match": {"$text": {"$search": "test"}, "k": 1}}]}}], "cursor": {"batchSize": 100}}`))
	if len(got) != 2+7 { // other's 2, and s's 7 with k 1 (all hold "test")
		t.Errorf("$unionWith: %d documents", len(got))
	}
	got = firstBatch(t, mustRun(t, db, "test", `{"aggregate": "other", "pipeline": [{"$lookup": {"from": "s", "localField": "k", "foreignField": "k", "pipeline": [{"$match": {"$text": {"$search": "test"}}}], "as": "o"}}, {"$sort": {"_id": 1}}], "cursor": {}}`))
	if len(got) != 2 || len(field(got[0], "o").(bson.A)) != 7 || len(field(got[1], "o").(bson.A)) != 7 {
		t.Errorf("$lookup: %v", got)
	}
	for _, st := range []string{
		`{"$unionWith": {"coll": "s", "pipeline": [{"$limit": 1}, {"$match": {"$text": {"$search": "other"}}}]}}`,
		`{"$lookup": {"from": "s", "let": {"v": "$k"}, "pipeline": [{"$match": {"$text": {"$search": "other"}, "$expr": {"$eq": ["$k", "$$v"]}}}], "as": "o"}}`,
		`{"$facet": {"a": [{"$match": {"$text": {"$search": "x"}}}]}}`,
	} {
		wantCode(t, db, "test", `{"aggregate": "other", "pipeline": [`+st+`], "cursor": {}}`, 17313, "only allowed as the first pipeline stage")
	}
}

// $text's results and scores against the fts package's own Match and
// Score over every document, for random corpora and searches; count,
// distinct and aggregate agree with find.
func TestReviewTextBruteForce(t *testing.T) {
	t.Parallel()
	words := []string{"Run", "running", "runner", "café", "CAFE", "cafe", "naïve", "naive", "the", "and", "don't", "Mark's",
		"über", "uber", "İstanbul", "istanbul", "ſtar", "star", "quick-brown", "fox", "FOX", "foxes", "a", "dog", "dogs", "x_y", "é", "e"}
	rng := uint64(12345)
	rnd := func(n int) int {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(n))
	}
	sentence := func(n int) string {
		var ws []string
		for range n {
			ws = append(ws, words[rnd(len(words))])
		}
		return strings.Join(ws, " ")
	}
	for round := range 12 {
		db, _ := openMem(t)
		coll := "b"
		langs := []string{"english", "french", "none", "turkish"}
		lang := langs[round%len(langs)]
		mustRun(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": [{"key": {"s": "text", "t.u": "text"}, "name": "x", "weights": {"s": 3}, "default_language": %q}]}`, coll, lang))
		var docs []string
		var bdocs []bson.D
		for i := range 25 {
			js := fmt.Sprintf(`{"_id": %d, "s": %q, "t": [{"u": %q}, {"u": [%q]}, "loose"]`, i, sentence(rnd(5)), sentence(rnd(4)), sentence(2))
			if rnd(4) == 0 {
				js += fmt.Sprintf(`, "language": %q`, langs[rnd(len(langs))])
			}
			js += `}`
			docs = append(docs, js)
			d, err := document.ParseExtJSON([]byte(js))
			if err != nil {
				t.Fatal(err)
			}
			bdocs = append(bdocs, d)
		}
		loadCorpus(t, db, "test", coll, docs)
		l, _ := fts.LookupLanguage(lang)
		spec := &fts.Spec{Weights: map[string]float64{"s": 3, "t.u": 1}, DefaultLanguage: l, LanguageOverride: "language"}
		for range 30 {
			var parts []string
			for range rnd(4) + 1 {
				w := words[rnd(len(words))]
				switch rnd(5) {
				case 0:
					w = "-" + w
				case 1:
					w = `"` + w + " " + words[rnd(len(words))] + `"`
				case 2:
					w = `-"` + w + `"`
				}
				parts = append(parts, w)
			}
			search := strings.Join(parts, " ")
			cs, ds := rnd(3) == 0, rnd(3) == 0
			q := fts.ParseQuery(search, l, cs, ds)
			want := map[int32]float64{}
			for _, d := range bdocs {
				ok, err := q.Match(d, spec)
				if err != nil {
					t.Fatal(err)
				}
				sc, _ := q.Score(d, spec)
				if ok && sc > 0 { // found by the index's keys
					want[d[0].Value.(int32)] = sc
				}
			}
			filter := fmt.Sprintf(`{"$text": {"$search": %q, "$caseSensitive": %v, "$diacriticSensitive": %v}}`, search, cs, ds)
			got := firstBatch(t, mustRun(t, db, "test", `{"find": "b", "filter": `+filter+`, "projection": {"sc": {"$meta": "textScore"}}, "batchSize": 1000}`))
			gotM := map[int32]float64{}
			for _, d := range got {
				gotM[field(d, "_id").(int32)] = field(d, "sc").(float64)
			}
			if fmt.Sprint(gotM) != fmt.Sprint(want) {
				t.Errorf("%s (%s): got %v\nwant %v", filter, lang, gotM, want)
			}
			if r := mustRun(t, db, "test", `{"count": "b", "query": `+filter+`}`); field(r, "n") != int32(len(want)) {
				t.Errorf("%s: count %v, want %d", filter, field(r, "n"), len(want))
			}
			if r := mustRun(t, db, "test", `{"aggregate": "b", "pipeline": [{"$match": `+filter+`}, {"$group": {"_id": null, "n": {"$sum": 1}, "s": {"$sum": {"$meta": "textScore"}}}}], "cursor": {}}`); len(want) > 0 {
				b := firstBatch(t, r)
				var sum float64
				for _, v := range want {
					sum += v
				}
				if len(b) != 1 || field(b[0], "n") != int32(len(want)) || math.Abs(field(b[0], "s").(float64)-sum) > 1e-9 {
					t.Errorf("%s: aggregate %v, want n %d sum %v", filter, b, len(want), sum)
				}
			}
			if r := mustRun(t, db, "test", `{"distinct": "b", "key": "_id", "query": `+filter+`}`); len(field(r, "values").(bson.A)) != len(want) {
				t.Errorf("%s: distinct %v", filter, r)
			}
		}
	}
}

// Hostile input never panics; the index stays valid.
func TestReviewTextHostile(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	mustRun(t, db, "test", `{"createIndexes": "h", "indexes": [{"key": {"$**": "text"}, "name": "all", "weights": {"a.b.c": 5, "s": 2}}]}`)
	c := db.Database("test").Collection("h")
	long := strings.Repeat("é", 200) + "x"  // 401 bytes: md5 path
	long2 := strings.Repeat("é", 200) + "y" // same first 224 bytes
	deep := any("deepword")
	for range 90 {
		deep = bson.D{{Key: "n", Value: deep}}
	}
	deepArr := any("arrword")
	for range 90 {
		deepArr = bson.A{deepArr}
	}
	docs := []bson.D{
		{{Key: "_id", Value: 1}, {Key: "s", Value: "bad \xff\xfe utf8 word"}},
		{{Key: "_id", Value: 2}, {Key: "s", Value: long}},
		{{Key: "_id", Value: 3}, {Key: "s", Value: long2}},
		{{Key: "_id", Value: 4}, {Key: "d", Value: deep}},
		{{Key: "_id", Value: 5}, {Key: "d", Value: deepArr}},
		{{Key: "_id", Value: 6}, {Key: "s", Value: bson.A{1, nil, "mixed", bson.D{{Key: "language", Value: "spanish"}, {Key: "z", Value: "corriendo"}}, bson.A{"nested"}, true, 2.5}}},
		{{Key: "_id", Value: 7}, {Key: "s", Value: strings.Repeat("word ", 20000)}},
		{{Key: "_id", Value: 8}, {Key: "s", Value: ""}},
		{{Key: "_id", Value: 9}, {Key: "s", Value: "\x00nul\x00 inside"}},
		{{Key: "_id", Value: 10}, {Key: "a", Value: bson.A{bson.D{{Key: "b", Value: bson.A{bson.D{{Key: "c", Value: "weighted"}}}}}}}},
		{{Key: "_id", Value: 11}, {Key: "language", Value: "none"}, {Key: "s", Value: "running"}},
		{{Key: "_id", Value: 12}, {Key: "s", Value: strings.Repeat("a", 300)}},
	}
	for _, d := range docs {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("insert %v panicked: %v", d[0], r)
				}
			}()
			if _, err := c.InsertOne(ctx, d); err != nil {
				t.Logf("insert %v: %v", d[0].Value, err)
			}
		}()
	}
	rvValid(t, db, "h")
	for _, s := range []string{"", " ", "-", "--", "\"", "\"\"", "-\"\"", "the and a", "-fox", "-\"fox dog\"", "\xff\xfe", "bad \xff", "\"\xff",
		long, long2, strings.Repeat("é", 200), strings.Repeat("a", 300), "\x00", "deepword", "arrword", "mixed corriendo nested", "weighted", "run",
		strings.Repeat("w ", 5000), strings.Repeat("-", 10000), strings.Repeat("\"", 10001)} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("search %.40q panicked: %v", s, r)
				}
			}()
			cur, err := c.Find(ctx, bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: s}}}})
			if err != nil {
				t.Logf("search %.40q: %v", s, err)
				return
			}
			all, err := cur.All(ctx)
			t.Logf("search %.40q: %d %v", s, len(all), err)
		}()
	}
	want := map[string][]int32{long: {2}, long2: {3}, strings.Repeat("a", 300): {12}, "deepword": {4}, "arrword": {5},
		"mixed corriendo nested": {6}, "weighted": {10}}
	for s, ids := range want {
		if got := rvIDs(t, db, "h", s); !slices.Equal(got, ids) {
			t.Errorf("search %.40q: %v, want %v", s, got, ids)
		}
	}
}

// Error codes of $text and $meta in odd places: each must be an error
// with mongod's code, not a crash or a wrong code.
func TestReviewTextErrorCodes(t *testing.T) {
	t.Parallel()
	db := rvScoreCorpus(t)
	for _, tc := range []struct {
		cmd  string
		code document.Code
	}{
		{`{"find": "s", "filter": {"$text": "x"}}`, document.CodeBadValue},
		{`{"find": "s", "filter": {"$text": {}}}`, document.CodeNoSuchKey},
		{`{"find": "s", "filter": {"$text": {"$search": 1}}}`, document.CodeTypeMismatch},
		{`{"find": "s", "filter": {"$text": {"$search": "x", "$caseSensitive": 1}}}`, document.CodeTypeMismatch},
		{`{"find": "s", "filter": {"$text": {"$search": "x", "$language": 1}}}`, document.CodeTypeMismatch},
		{`{"find": "s", "filter": {"$text": {"$search": "x", "$foo": 1}}}`, document.CodeBadValue},
		{`{"find": "s", "filter": {"$and": [{"$text": {"$search": "x"}}, {"$text": {"$search": "y"}}]}}`, document.CodeBadValue},
		{`{"find": "s", "filter": {"$nor": [{"$text": {"$search": "x"}}]}}`, document.CodeBadValue},
		{`{"find": "s", "filter": {"arr": {"$elemMatch": {"$text": {"$search": "x"}}}}}`, document.CodeBadValue},
		{`{"find": "s", "filter": {"$text": {"$search": "x"}}, "projection": {"x.$": {"$meta": "textScore"}}}`, document.CodeBadValue},
		{`{"find": "s", "filter": {"$text": {"$search": "x"}}, "hint": "_id_"}`, document.CodeNoQueryExecutionPlans},
		{`{"update": "s", "updates": [{"q": {}, "u": {"$set": {"arr.$[e].a": 1}}, "arrayFilters": [{"e": {"$text": {"$search": "x"}}}]}]}`, document.CodeBadValue},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panicked: %v", tc.cmd, r)
				}
			}()
			r, err := run(t, db, "test", tc.cmd)
			var e *Error
			if err == nil {
				if we, _ := field(r, "writeErrors").(bson.A); len(we) > 0 {
					if c := field(we[0].(bson.D), "code"); c != int32(tc.code) {
						t.Errorf("%s: write error %v, want %d", tc.cmd, we[0], tc.code)
					}
					return
				}
				t.Errorf("%s: succeeded (%v), want %d", tc.cmd, r, tc.code)
			} else if !errors.As(err, &e) || e.Code != tc.code {
				t.Errorf("%s: %v, want %d", tc.cmd, err, tc.code)
			}
		}()
	}
}

// $text where mongod refuses it at definition time must not be
// accepted and then fail every later write.
func TestReviewTextInDefinitions(t *testing.T) {
	t.Parallel()
	db := rvScoreCorpus(t)
	for _, tc := range []struct{ def, write, coll string }{
		{`{"create": "v1", "validator": {"$text": {"$search": "x"}}}`, `{"insert": "v1", "documents": [{"_id": 1, "x": "x"}]}`, "v1"},
		{`{"collMod": "other", "validator": {"$text": {"$search": "x"}}}`, `{"insert": "other", "documents": [{"_id": 3, "x": "x"}]}`, "other"},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panicked: %v", tc.def, r)
				}
			}()
			if _, err := run(t, db, "test", tc.def); err != nil {
				t.Logf("%s: refused: %v", tc.def, err)
				return
			}
			r, err := run(t, db, "test", tc.write)
			t.Errorf("%s was accepted; then %s: %v %v", tc.def, tc.write, err, r)
		}()
	}
	// A view whose pipeline starts with $text, and $text on a view.
	if _, err := run(t, db, "test", `{"create": "vw", "viewOn": "s", "pipeline": [{"$match": {"$text": {"$search": "test"}}}]}`); err == nil {
		r, err := run(t, db, "test", `{"find": "vw", "filter": {}}`)
		t.Logf("view with $text: %v %v", err, len(fmt.Sprint(r)))
	} else {
		t.Logf("view create: %v", err)
	}
	mustRun(t, db, "test", `{"create": "vw2", "viewOn": "s", "pipeline": []}`)
	_, err := run(t, db, "test", `{"find": "vw2", "filter": {"$text": {"$search": "test"}}}`)
	t.Logf("$text on a view: %v", err)
}

// mongod refuses $text in a partialFilterExpression (67, "Expression
// not supported in partial index"); ttlkv takes it.
func TestReviewTextPartialFilter(t *testing.T) {
	t.Parallel()
	db := rvScoreCorpus(t)
	_, err := run(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"k": 1}, "name": "pf", "partialFilterExpression": {"$text": {"$search": "test"}}}]}`)
	if err == nil {
		mustRun(t, db, "test", `{"insert": "s", "documents": [{"_id": 100, "x": "test", "k": 1}]}`)
		r, verr := db.Validate(context.Background(), "test", "s")
		got := firstIDs(t, db, `{"find": "s", "filter": {"k": 1}, "hint": "pf"}`)
		t.Errorf("partialFilterExpression with $text accepted (want 67); validate %v %v; hinted find k:1 %v", verr, r.Errors, got)
	}
}

// A $text in a $facet sub-pipeline: mongod refuses it at parse time;
// ttlkv says 27 "text index required" although the index exists.
func TestReviewTextFacet(t *testing.T) {
	t.Parallel()
	db := rvScoreCorpus(t)
	_, err := run(t, db, "test", `{"aggregate": "s", "pipeline": [{"$facet": {"a": [{"$match": {"$text": {"$search": "x"}}}]}}], "cursor": {}}`)
	var e *Error
	if err == nil || (errors.As(err, &e) && e.Code == document.CodeIndexNotFound) {
		t.Errorf("$text in $facet: %v", err)
	}
}

// A score sort that spills to disk, and $meta after $addFields.
func TestReviewTextScoreSpillAndAddFields(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"x": "text"}, "name": "x_text"}]}`)
	var docs []string
	for i := range 300 {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "x": "%s other", "pad": "%s"}`, i, strings.Repeat("test ", i%7+1), strings.Repeat("p", 100)))
	}
	loadCorpus(t, db, "test", "s", docs)
	mustRun(t, db, "admin", `{"setParameter": 1, "internalQueryMaxBlockingSortMemoryUsageBytes": 3000}`)
	for _, cmd := range []string{
		`{"find": "s", "filter": {"$text": {"$search": "test"}}, "sort": {"sc": {"$meta": "textScore"}, "_id": 1}, "projection": {"sc": {"$meta": "textScore"}, "pad": 0}, "allowDiskUse": true}`,
		`{"aggregate": "s", "pipeline": [{"$match": {"$text": {"$search": "test"}}}, {"$sort": {"sc": {"$meta": "textScore"}, "_id": 1}}, {"$project": {"sc": {"$meta": "textScore"}}}], "allowDiskUse": true, "cursor": {}}`,
		`{"aggregate": "s", "pipeline": [{"$match": {"$text": {"$search": "test"}}}, {"$group": {"_id": "$_id", "d": {"$push": "$$ROOT"}, "sc": {"$max": {"$meta": "textScore"}}}}, {"$sort": {"sc": -1, "_id": 1}}], "allowDiskUse": true, "cursor": {}}`,
	} {
		if _, err := run(t, db, "test", cmd); err != nil {
			t.Errorf("%.100s: %v", cmd, err)
			continue
		}
		docs := rvAll(t, db, "s", cmd)
		if len(docs) != 300 {
			t.Errorf("%.80s: %d docs", cmd, len(docs))
			continue
		}
		rvCarrier(t, cmd, rvAllD(docs))
		if sc, _ := field(docs[0], "sc").(float64); sc == 0 || field(docs[0], "_id") != int32(6) {
			t.Errorf("%.80s: first %v", cmd, docs[0])
		}
	}
	mustRun(t, db, "admin", `{"setParameter": 1, "internalQueryMaxBlockingSortMemoryUsageBytes": 104857600}`)
	// The score stays with a document through $addFields/$set/$unset
	// (mongod's metadata does).
	for _, st := range []string{`{"$addFields": {"z": 1}}`, `{"$set": {"x": "new"}}`, `{"$unset": "pad"}`, `{"$replaceWith": {"a": "$_id"}}`, `{"$match": {"_id": {"$gte": 0}}}`, `{"$limit": 500}`, `{"$skip": 0}`} {
		b := firstBatch(t, mustRun(t, db, "test", `{"aggregate": "s", "pipeline": [{"$match": {"$text": {"$search": "test"}}}, `+st+`, {"$project": {"sc": {"$meta": "textScore"}}}, {"$limit": 1}], "cursor": {}}`))
		if len(b) != 1 || field(b[0], "sc") == nil {
			t.Errorf("after %s: %v (score lost)", st, b)
		}
	}
}
