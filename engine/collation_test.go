package engine

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// firstBatch returns the documents of a cursor reply.
func firstBatch(t *testing.T, r bson.D) []bson.D {
	t.Helper()
	arr, _ := field(r, "cursor.firstBatch").(bson.A)
	out := make([]bson.D, len(arr))
	for i, v := range arr {
		out[i] = v.(bson.D)
	}
	return out
}

// fieldStrings returns the string field f of each document.
func fieldStrings(docs []bson.D, f string) []string {
	out := []string{}
	for _, d := range docs {
		v, _ := get(d, f)
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// winningIndex returns the IXSCAN index name of an explain reply, "" for
// a collection scan.
func winningIndex(r bson.D) string {
	st, _ := field(r, "queryPlanner.winningPlan").(bson.D)
	for st != nil {
		if s, _ := get(st, "stage"); s == "IXSCAN" {
			n, _ := get(st, "indexName")
			return n.(string)
		}
		st, _ = field(st, "inputStage").(bson.D)
	}
	return ""
}

// TestCollationOperations is issue 20's example and its siblings: each
// command with a collation option compares strings under it
// (jstests/core/collation.js: find, count, distinct, update, delete,
// findAndModify, aggregate with collation).
func TestCollationOperations(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "b": "x"}`, `{"_id": 2, "b": "X"}`, `{"_id": 3, "b": "y"}`})
	const s2 = `{"locale": "en", "strength": 2}`
	if got := firstBatch(t, mustRun(t, db, "test", `{"find": "c", "filter": {"b": "x"}, "collation": `+s2+`}`)); len(got) != 2 {
		t.Errorf("find with strength 2 found %d, want 2", len(got))
	}
	if got := firstBatch(t, mustRun(t, db, "test", `{"find": "c", "filter": {"b": "x"}}`)); len(got) != 1 {
		t.Errorf("find without collation found %d, want 1", len(got))
	}
	if n := field(mustRun(t, db, "test", `{"count": "c", "query": {"b": "X"}, "collation": `+s2+`}`), "n"); n != int32(2) {
		t.Errorf("count = %v, want 2", n)
	}
	if v := field(mustRun(t, db, "test", `{"distinct": "c", "key": "b", "collation": `+s2+`}`), "values").(bson.A); len(v) != 2 {
		t.Errorf("distinct under strength 2 = %v, want 2 values", v)
	}
	if v := field(mustRun(t, db, "test", `{"distinct": "c", "key": "b"}`), "values").(bson.A); len(v) != 3 {
		t.Errorf("distinct simple = %v, want 3 values", v)
	}
	r := mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$match": {"b": "x"}}, {"$count": "n"}], "cursor": {}, "collation": `+s2+`}`)
	if got := firstBatch(t, r); len(got) != 1 || field(got[0], "n") != int32(2) {
		t.Errorf("aggregate $match/$count = %v, want n 2", got)
	}
	r = mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$group": {"_id": "$b"}}, {"$sort": {"_id": 1}}], "cursor": {}, "collation": `+s2+`}`)
	if got := firstBatch(t, r); len(got) != 2 || field(got[0], "_id") != "x" || field(got[1], "_id") != "y" {
		t.Errorf("$group under strength 2 = %v, want x and y", got)
	}
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"b": "x"}, "u": {"$set": {"u": true}}, "multi": true, "collation": `+s2+`}]}`)
	if n := field(r, "nModified"); n != int32(2) {
		t.Errorf("update nModified = %v, want 2", n)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"b": "Y"}, "update": {"$set": {"f": 1}}, "collation": `+s2+`}`)
	if v, _ := field(r, "value").(bson.D); v == nil || field(v, "_id") != int32(3) {
		t.Errorf("findAndModify = %v, want _id 3", r)
	}
	r = mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"b": "X"}, "limit": 0, "collation": `+s2+`}]}`)
	if n := field(r, "n"); n != int32(2) {
		t.Errorf("delete n = %v, want 2", n)
	}
	// A malformed collation is refused by every command, with MongoDB's codes.
	wantCode(t, db, "test", `{"find": "c", "collation": {"locale": "en", "strength": 9}}`, 51024, "strength")
	wantCode(t, db, "test", `{"find": "c", "collation": "en"}`, document.CodeTypeMismatch, "collation")
	wantCode(t, db, "test", `{"count": "c", "collation": {"strength": 1}}`, document.CodeIDLFailedToParse, "locale")
	wantCode(t, db, "test", `{"delete": "c", "deletes": [{"q": {}, "limit": 0, "collation": {"locale": "en", "bogus": 1}}]}`, document.CodeIDLUnknownField, "bogus")
	wantCode(t, db, "test", `{"find": "c", "collation": {"locale": "en", "caseFirst": "upper"}}`, document.CodeBadValue, "caseFirst")
}

// TestCollationCollectionDefault: a collection's default collation is
// reported in full by listCollections and applies to operations without
// their own; {locale: "simple"} overrides it.
func TestCollationCollectionDefault(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "collation": {"locale": "fr", "strength": 1}}`)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "b": "côte"}`, `{"_id": 2, "b": "Cote"}`, `{"_id": 3, "b": "coté"}`})
	r := mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "c"}}`)
	coll := field(firstBatch(t, r)[0], "options.collation").(bson.D)
	want := `{"locale": "fr", "caseLevel": false, "caseFirst": "off", "strength": 1, "numericOrdering": false, "alternate": "non-ignorable", "maxVariable": "punct", "normalization": false, "backwards": false, "version": "57.1"}`
	if got := document.Format(coll); got != document.Format(mustDoc(t, want)) {
		t.Errorf("options.collation = %s", got)
	}
	if got := firstBatch(t, mustRun(t, db, "test", `{"find": "c", "filter": {"b": "cote"}}`)); len(got) != 3 {
		t.Errorf("find under the default collation found %d, want 3", len(got))
	}
	if got := firstBatch(t, mustRun(t, db, "test", `{"find": "c", "filter": {"b": "cote"}, "collation": {"locale": "simple"}}`)); len(got) != 0 {
		t.Errorf("find with simple collation found %d, want 0", len(got))
	}
	// An index without its own collation takes the collection's.
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"b": 1}, "name": "b_1"}]}`)
	for _, ix := range firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "c"}`)) {
		if field(ix, "name") == "b_1" && field(ix, "collation.locale") != "fr" {
			t.Errorf("b_1 = %v, want the collection's collation", ix)
		}
	}
	ex := mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"b": "cote"}}}`)
	if ix := winningIndex(ex); ix != "b_1" {
		t.Errorf("default-collation query used %q, want b_1", ix)
	}
	if loc := field(ex, "queryPlanner.winningPlan.inputStage.collation.locale"); loc != "fr" {
		t.Errorf("explain IXSCAN collation locale = %v, want fr: %v", loc, ex)
	}
	if got := firstBatch(t, mustRun(t, db, "test", `{"find": "c", "filter": {"b": "COTE"}}`)); len(got) != 3 {
		t.Errorf("find through b_1 found %d, want 3", len(got))
	}
	wantCode(t, db, "test", `{"create": "d", "collation": {"locale": "simple", "strength": 1}}`, document.CodeFailedToParse, "simple")
}

// collationCorpus has case, accents, punctuation, numbers and non-Latin
// scripts, with ties under the collation.
var collationCorpus = []string{"apple", "Apple", "äpple", "banana", "Banana", "item10", "item9", "item 9", "-x", "zebra",
	"Zebra", "éclair", "eclair", "Ελλάδα", "ελλάδα", "привет", "日本", "10", "9", "a-b", "ab"}

// TestCollatedIndexOrder: the corpus sorted through an index with the
// query's collation and without an index gives the same order; an index
// with another collation is not used (explain), and a unique collated
// index refuses values equal under its collation.
func TestCollatedIndexOrder(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{
		`{"locale": "en", "strength": 1}`,
		`{"locale": "en", "strength": 2}`,
		`{"locale": "en"}`,
		`{"locale": "en", "numericOrdering": true}`,
		`{"locale": "en", "alternate": "shifted"}`,
		`{"locale": "fr", "backwards": true, "strength": 2}`,
		`{"locale": "de@collation=phonebook"}`,
	} {
		db, _ := openMem(t)
		var docs []string
		for i, s := range collationCorpus {
			docs = append(docs, fmt.Sprintf(`{"_id": %d, "s": %q}`, i, s))
		}
		loadCorpus(t, db, "test", "c", docs)
		mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"s": 1}, "name": "s_coll", "collation": `+spec+`}, {"key": {"s": 1}, "name": "s_simple"}]}`)
		for _, dir := range []string{"1", "-1"} {
			q := `{"find": "c", "sort": {"s": ` + dir + `, "_id": 1}, "collation": ` + spec + `}`
			viaIndex := mustRun(t, db, "test", strings.Replace(q, `"collation"`, `"hint": "s_coll", "collation"`, 1))
			scan := mustRun(t, db, "test", strings.Replace(q, `"collation"`, `"hint": {"$natural": 1}, "collation"`, 1))
			a, b := fieldStrings(firstBatch(t, viaIndex), "s"), fieldStrings(firstBatch(t, scan), "s")
			if strings.Join(a, "|") != strings.Join(b, "|") || len(a) != len(collationCorpus) {
				t.Errorf("%s dir %s: index order %q\n scan order %q", spec, dir, a, b)
			}
		}
		// Range and equality through the collated index agree with a scan.
		for _, f := range []string{`{"s": "APPLE"}`, `{"s": {"$gte": "b", "$lt": "item9"}}`, `{"s": {"$in": ["ZEBRA", "ελλαδα"]}}`} {
			q := `{"find": "c", "filter": ` + f + `, "sort": {"_id": 1}, "collation": ` + spec + `}`
			if ix := winningIndex(mustRun(t, db, "test", `{"explain": `+q+`}`)); ix != "s_coll" {
				t.Errorf("%s %s: planned on %q, want s_coll", spec, f, ix)
			}
			viaIndex := fieldStrings(firstBatch(t, mustRun(t, db, "test", q)), "s")
			scan := fieldStrings(firstBatch(t, mustRun(t, db, "test", strings.Replace(q, `"collation"`, `"hint": {"$natural": 1}, "collation"`, 1))), "s")
			if strings.Join(viaIndex, "|") != strings.Join(scan, "|") {
				t.Errorf("%s %s: index %q, scan %q", spec, f, viaIndex, scan)
			}
		}
		// A simple-collation query does not use the collated index.
		if ix := winningIndex(mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"s": "apple"}}}`)); ix != "s_simple" {
			t.Errorf("%s: simple query planned on %q, want s_simple", spec, ix)
		}
	}
	// An index with another collation is not used: a collection scan.
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "s": "a"}`, `{"_id": 2, "s": "A"}`})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"s": 1}, "name": "s_fr", "collation": {"locale": "fr"}}]}`)
	if ix := winningIndex(mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"s": "a"}, "collation": {"locale": "en", "strength": 2}}}`)); ix != "" {
		t.Errorf("query with another collation planned on %q, want a collection scan", ix)
	}
	if got := firstBatch(t, mustRun(t, db, "test", `{"find": "c", "filter": {"s": "a"}, "collation": {"locale": "en", "strength": 2}}`)); len(got) != 2 {
		t.Errorf("found %d, want 2", len(got))
	}
	// Hinting it is allowed and still answers right (a full index scan).
	if got := firstBatch(t, mustRun(t, db, "test", `{"find": "c", "filter": {"s": "a"}, "hint": "s_fr", "collation": {"locale": "en", "strength": 2}}`)); len(got) != 2 {
		t.Errorf("hinted: found %d, want 2", len(got))
	}
	// Unique under strength 2: "x" and "X" collide.
	mustRun(t, db, "test", `{"createIndexes": "u", "indexes": [{"key": {"u": 1}, "name": "u_1", "unique": true, "collation": {"locale": "en", "strength": 2}}]}`)
	mustRun(t, db, "test", `{"insert": "u", "documents": [{"_id": 3, "u": "x"}]}`)
	r, _ := run(t, db, "test", `{"insert": "u", "documents": [{"_id": 4, "u": "X"}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(we[0].(bson.D), "code") != int32(11000) {
		t.Errorf("insert of X beside x under a strength-2 unique index: %v", r)
	}
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"v": 1}, "name": "v_1", "collation": {"locale": "en", "maxVariable": "space"}}]}`, document.CodeBadValue, "maxVariable")
}

// TestCollationUpdateOperators: the update command's collation reaches
// the operators that compare ($addToSet here), and a pipeline update's
// expressions.
func TestCollationUpdateOperators(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "tags": ["Red"]}`})
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {}, "u": {"$addToSet": {"tags": "RED"}}, "collation": {"locale": "en", "strength": 2}}]}`)
	if got := findAll(t, db, "test", "c", bson.D{}); len(field(got[0], "tags").(bson.A)) != 1 {
		t.Errorf("$addToSet under strength 2 added a case variant: %v", got)
	}
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {}, "u": {"$addToSet": {"tags": "RED"}}}]}`)
	if got := findAll(t, db, "test", "c", bson.D{}); len(field(got[0], "tags").(bson.A)) != 2 {
		t.Errorf("$addToSet without collation: %v", got)
	}
	// A pipeline update compares under the collation too.
	const pipe = `[{"$set": {"red": {"$in": ["red", "$tags"]}, "first": {"$eq": [{"$arrayElemAt": ["$tags", 0]}, "RED"]}}}]`
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"tags": "red"}, "u": `+pipe+`, "collation": {"locale": "en", "strength": 2}}]}`)
	if got := findAll(t, db, "test", "c", bson.D{}); field(got[0], "red") != true || field(got[0], "first") != true {
		t.Errorf("pipeline update under strength 2: %v, want red and first true", got)
	}
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {}, "u": `+pipe+`}]}`)
	if got := findAll(t, db, "test", "c", bson.D{}); field(got[0], "red") != false || field(got[0], "first") != false {
		t.Errorf("pipeline update, simple: %v, want red and first false", got)
	}
}

// TestCollationPartialIndex: a collated index's partialFilterExpression
// is evaluated under the index's collation, as in MongoDB: with strength
// 2, {kind: "a"} admits "A" too, so both documents get keys and a unique
// index refuses the second.
func TestCollationPartialIndex(t *testing.T) {
	t.Parallel()
	db, _, dir := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"u": 1}, "name": "u_1", "unique": true,
		"partialFilterExpression": {"kind": "a"}, "collation": {"locale": "en", "strength": 2}}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "kind": "a", "u": 1}]}`)
	r, _ := run(t, db, "test", `{"insert": "c", "documents": [{"_id": 2, "kind": "A", "u": 1}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 {
		t.Errorf("insert of kind A under a strength-2 partial unique index: %v, want a duplicate key", r)
	}
	// The same holds after a reopen (the catalog recompiles the filter).
	db = reopen(t, db, dir, newClock())
	r, _ = run(t, db, "test", `{"insert": "c", "documents": [{"_id": 3, "kind": "A", "u": 1}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 {
		t.Errorf("after reopen: %v, want a duplicate key", r)
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 4, "kind": "b", "u": 1}]}`)
}

// TestCollationTimeseries: an operation's collation applies to its reads, counts, sorts, deletes and
// updates as on an ordinary collection (MongoDB's
// timeseries_update_collation.js, timeseries_delete_collation.js): the
// same answers as an ordinary collection holding the same documents.
func TestCollationTimeseries(t *testing.T) {
	t.Parallel()
	db, clk := openMemTSUpdates(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "collation": {"locale": "simple"}}`)
	at := clk.Now().Add(-time.Hour)
	var docs []string
	for i, v := range []string{"a", "A", "b", "B", "côte", "cote", "Cote"} {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "t": %s, "m": {"k": %q}, "f": %q}`, i, tsDate(at.Add(time.Duration(i)*time.Minute)), v, v))
	}
	for _, c := range []string{"w", "plain"} {
		loadCorpus(t, db, "test", c, docs)
	}
	const s1, s2 = `{"locale": "fr", "strength": 1}`, `{"locale": "en", "strength": 2}`
	same := func(what string, cmd func(coll string) string) {
		t.Helper()
		a, b := mustRun(t, db, "test", cmd("w")), mustRun(t, db, "test", cmd("plain"))
		if fmt.Sprint(field(a, "cursor.firstBatch"), field(a, "n")) != fmt.Sprint(field(b, "cursor.firstBatch"), field(b, "n")) {
			t.Errorf("%s: time-series %v, ordinary %v", what, a, b)
		}
	}
	for _, q := range []string{`{"f": "a"}`, `{"m.k": "COTE"}`, `{"m": {"k": "b"}}`, `{"f": {"$gte": "b"}}`, `{"f": {"$in": ["A", "côté"]}}`} {
		for _, coll := range []string{s1, s2} {
			same("find "+q, func(c string) string {
				return `{"find": "` + c + `", "filter": ` + q + `, "sort": {"f": 1, "_id": 1}, "projection": {"_id": 1}, "collation": ` + coll + `}`
			})
			same("count "+q, func(c string) string { return `{"count": "` + c + `", "query": ` + q + `, "collation": ` + coll + `}` })
		}
	}
	same("sort", func(c string) string {
		return `{"find": "` + c + `", "sort": {"f": -1, "_id": 1}, "projection": {"_id": 1}, "collation": ` + s2 + `}`
	})
	same("update", func(c string) string {
		return `{"update": "` + c + `", "updates": [{"q": {"m": {"k": "B"}, "f": "b"}, "u": {"$set": {"m": {"k": "C"}}}, "multi": true, "collation": ` + s2 + `}]}`
	})
	same("delete", func(c string) string {
		return `{"delete": "` + c + `", "deletes": [{"q": {"f": "COTE"}, "limit": 0, "collation": ` + s1 + `}]}`
	})
	same("after", func(c string) string {
		return `{"find": "` + c + `", "sort": {"_id": 1}}`
	})
	r := mustRun(t, db, "test", `{"findAndModify": "w", "query": {"f": "A"}, "sort": {"_id": -1}, "remove": true, "collation": `+s2+`}`)
	if field(r, "value._id") != int32(1) {
		t.Errorf("collated findAndModify remove: %v", r)
	}
	mustValidate(t, db, "test", "w")
}

// TestCollationTimeseriesDefault: a time-series collection created with a
// default collation lists it, compares under it in every operation
// without its own, gives it to indexes created without one, and
// evaluates a partial TTL index's filter on the metaField under it
// (MongoDB's timeseries_nondefault_collation.js).
func TestCollationTimeseriesDefault(t *testing.T) {
	t.Parallel()
	db, clk := openMemTSUpdates(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "collation": {"locale": "en", "strength": 2}}`)
	r := mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "w"}}`)
	if loc := field(firstBatch(t, r)[0], "options.collation.locale"); loc != "en" {
		t.Fatalf("listed collation = %v: %v", loc, r)
	}
	old := clk.Now().Add(-3 * time.Hour)
	mustInsertTS(t, db, "w",
		fmt.Sprintf(`{"_id": 1, "t": %s, "m": "a", "f": "x"}`, tsDate(old)),
		fmt.Sprintf(`{"_id": 2, "t": %s, "m": "A", "f": "X"}`, tsDate(old)),
		fmt.Sprintf(`{"_id": 3, "t": %s, "m": "b", "f": "y"}`, tsDate(clk.Now())))
	if got := firstBatch(t, mustRun(t, db, "test", `{"find": "w", "filter": {"m": "a"}}`)); len(got) != 2 {
		t.Errorf("find under the default collation: %d, want 2", len(got))
	}
	if got := firstBatch(t, mustRun(t, db, "test", `{"find": "w", "filter": {"m": "a"}, "collation": {"locale": "simple"}}`)); len(got) != 1 {
		t.Errorf("find with the simple collation: %d, want 1", len(got))
	}
	if n := field(mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {"f": "x"}, "u": {"$set": {"g": 1}}, "multi": true}]}`), "nModified"); n != int32(2) {
		t.Errorf("update under the default collation modified %v, want 2", n)
	}
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"m": 1}, "name": "m_1"}, {"key": {"t": 1}, "name": "ttl", "expireAfterSeconds": 60, "partialFilterExpression": {"m": "A"}}]}`)
	for _, ix := range firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "w"}`)) {
		if loc := field(ix, "collation.locale"); loc != "en" {
			t.Errorf("index %v has collation %v, want the collection's", field(ix, "name"), loc)
		}
	}
	// The partial TTL index's {m: "A"} matches the "a" and "A" buckets
	// under the collation; "b" is recent anyway.
	if res := ttlPass(t, db); res.Deleted != 2 {
		t.Errorf("ttl pass deleted %d buckets, want 2 (meta a and A)", res.Deleted)
	}
	if got := firstBatch(t, mustRun(t, db, "test", `{"find": "w"}`)); len(got) != 1 || field(got[0], "_id") != int32(3) {
		t.Errorf("left %v, want _id 3", got)
	}
	mustRun(t, db, "test", `{"collMod": "w", "expireAfterSeconds": 7200}`)
	if n := field(mustRun(t, db, "test", `{"delete": "w", "deletes": [{"q": {"m": "B"}, "limit": 0}]}`), "n"); n != int32(1) {
		t.Errorf("delete under the default collation after a collMod: %v, want 1", n)
	}
	mustValidate(t, db, "test", "w")
}

// TestCollatedIndexModel is a seeded comparison: random strings (case,
// accents, punctuation, digits, Greek), random equality, range and $in
// filters under random collations, each answered through an index with
// the query's collation and by a collection scan; the answers must be
// the same documents in the same order. The seed is printed on failure.
func TestCollatedIndexModel(t *testing.T) {
	t.Parallel()
	seed := time.Now().UnixNano()
	r := rand.New(rand.NewSource(seed))
	alphabet := []string{"a", "A", "á", "b", "B", "é", "e", "E", "-", " ", "1", "2", "10", "ß", "s", "σ", "Σ", "z"}
	word := func() string {
		n := 1 + r.Intn(5)
		var sb strings.Builder
		for i := 0; i < n; i++ {
			sb.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		return sb.String()
	}
	specs := []string{
		`{"locale": "en", "strength": 1}`, `{"locale": "en", "strength": 2}`, `{"locale": "en"}`,
		`{"locale": "en", "numericOrdering": true}`, `{"locale": "en", "alternate": "shifted"}`,
		`{"locale": "fr", "strength": 2, "backwards": true}`, `{"locale": "en", "strength": 4, "alternate": "shifted"}`,
	}
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 300; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "s": %q}`, i, word()))
	}
	loadCorpus(t, db, "test", "c", docs)
	var ixs []string
	for i, sp := range specs {
		ixs = append(ixs, fmt.Sprintf(`{"key": {"s": 1}, "name": "s_%d", "collation": %s}`, i, sp))
	}
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [`+strings.Join(ixs, ",")+`]}`)
	queries := 150
	if raceOn {
		// One goroutine compares answers: -race adds time, not
		// coverage; the run without it asks all 150, each seed anew.
		queries = 50
	}
	for q := 0; q < queries; q++ {
		i := r.Intn(len(specs))
		var f string
		switch r.Intn(4) {
		case 0:
			f = fmt.Sprintf(`{"s": %q}`, word())
		case 1:
			f = fmt.Sprintf(`{"s": {"$gte": %q, "$lt": %q}}`, word(), word())
		case 2:
			f = fmt.Sprintf(`{"s": {"$in": [%q, %q, %q]}}`, word(), word(), word())
		default:
			f = fmt.Sprintf(`{"s": {"$gt": %q}}`, word())
		}
		dir := []string{"1", "-1"}[r.Intn(2)]
		base := `{"find": "c", "filter": ` + f + `, "sort": {"s": ` + dir + `, "_id": 1}, "collation": ` + specs[i] + `, "batchSize": 1000`
		viaIndex := mustRun(t, db, "test", base+fmt.Sprintf(`, "hint": "s_%d"}`, i))
		scan := mustRun(t, db, "test", base+`, "hint": {"$natural": 1}}`)
		a, b := fieldStrings(firstBatch(t, viaIndex), "_id"), fieldStrings(firstBatch(t, scan), "_id")
		if strings.Join(a, ",") != strings.Join(b, ",") {
			t.Fatalf("seed %d: %s under %s: index gives %v, scan gives %v", seed, f, specs[i], a, b)
		}
	}
}
