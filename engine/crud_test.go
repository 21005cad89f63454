package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// queryCorpus covers MongoDB's matching edge cases: scalars of every
// type class, arrays (nested, empty, of documents, holding null),
// null and missing, embedded documents with arrays.
var queryCorpus = []string{
	`{"_id": 1, "a": 1}`,
	`{"_id": 2, "a": 2.5}`,
	`{"_id": 3, "a": "x"}`,
	`{"_id": 4, "a": [1, 5]}`,
	`{"_id": 5, "a": [[1, 2], 3]}`,
	`{"_id": 6, "a": null}`,
	`{"_id": 7}`,
	`{"_id": 8, "a": {"b": 1}}`,
	`{"_id": 9, "a": [{"b": 1, "c": 2}, {"b": 3, "c": 4}]}`,
	`{"_id": 10, "a": []}`,
	`{"_id": 11, "a": {"$numberLong": "5"}}`,
	`{"_id": 12, "a": true}`,
	`{"_id": 13, "a": {"$date": "2020-01-02T00:00:00Z"}}`,
	`{"_id": 14, "a": "xyz"}`,
	`{"_id": 15, "a": [null]}`,
	`{"_id": 16, "a": {"b": [1, 2]}}`,
	`{"_id": 17, "a": {"$numberDecimal": "1.0"}}`,
	`{"_id": 18, "a": {"$oid": "0123456789abcdef01234567"}}`,
	`{"_id": 19, "a": {"$binary": {"base64": "AQI=", "subType": "00"}}}`,
	`{"_id": 20, "a": {"$minKey": 1}}`,
	`{"_id": 21, "a": {"$maxKey": 1}}`,
	`{"_id": 22, "a": {"$timestamp": {"t": 5, "i": 1}}}`,
	`{"_id": 23, "a": {"$regularExpression": {"pattern": "^x", "options": ""}}}`,
	`{"_id": 24, "a": false}`,
	`{"_id": 25, "a": -3}`,
	`{"_id": 26, "a": {"$numberDouble": "NaN"}}`,
}

// queryCases: a filter and, when known exactly, the _ids it selects
// (nil: only checked for agreement between all plans).
var queryCases = []struct {
	filter string
	want   []int
}{
	{`{}`, idRange(1, 26)},
	{`{"a": 1}`, []int{1, 4, 17}},
	{`{"a": {"$eq": 1.0}}`, []int{1, 4, 17}},
	{`{"a": 5}`, []int{4, 11}},
	{`{"a": [1, 5]}`, []int{4}},
	{`{"a": [5, 1]}`, []int{}},
	{`{"a": {"$eq": [1, 2]}}`, []int{5}},
	{`{"a": {"b": 1}}`, []int{8}},
	{`{"a": {"$gt": 1}}`, []int{2, 4, 5, 11}},
	{`{"a": {"$gte": 1, "$lte": 2}}`, []int{1, 4, 17}},
	{`{"a": {"$gt": 1, "$lt": 5}}`, []int{2, 4, 5}},
	{`{"a": {"$lt": 0}}`, []int{25}},
	{`{"a": {"$lte": {"$numberDouble": "NaN"}}}`, []int{26}},
	{`{"a": {"$gt": -100}}`, []int{1, 2, 4, 5, 11, 17, 25}},
	{`{"a": {"$elemMatch": {"$gt": 1, "$lt": 5}}}`, []int{5}},
	{`{"a": null}`, []int{6, 7, 15}},
	{`{"a": {"$ne": null}}`, minus(idRange(1, 26), 6, 7, 15)},
	{`{"a": {"$exists": false}}`, []int{7}},
	{`{"a": {"$exists": true}}`, minus(idRange(1, 26), 7)},
	{`{"a.b": 1}`, []int{8, 9, 16}},
	{`{"a.b": {"$gt": 2}}`, []int{9}},
	{`{"a.c": 4}`, []int{9}},
	{`{"a.b": {"$in": [2, 3]}}`, []int{9, 16}},
	{`{"a.0": 1}`, nil},
	{`{"a.b": null}`, nil},
	{`{"a": {"$in": [1, "x"]}}`, []int{1, 3, 4, 17}},
	{`{"a": {"$in": [null]}}`, []int{6, 7, 15}},
	{`{"a": {"$in": []}}`, []int{}},
	{`{"a": {"$in": [{"$regularExpression": {"pattern": "z$", "options": ""}}, 3]}}`, []int{5, 14}},
	{`{"a": {"$nin": [1, null]}}`, minus(idRange(1, 26), 1, 4, 17, 6, 7, 15)},
	{`{"a": {"$type": "string"}}`, []int{3, 14}},
	{`{"a": {"$type": "array"}}`, []int{4, 5, 9, 10, 15}},
	{`{"a": {"$type": "number"}}`, []int{1, 2, 4, 5, 11, 17, 25, 26}},
	{`{"a": {"$type": ["bool", 10]}}`, []int{6, 12, 15, 24}},
	{`{"a": {"$type": "minKey"}}`, []int{20}},
	{`{"a": {"$size": 2}}`, []int{4, 5, 9}},
	{`{"a": {"$size": 0}}`, []int{10}},
	{`{"a": {"$all": [1, 5]}}`, []int{4}},
	{`{"a": {"$all": [[1, 2]]}}`, []int{5}},
	{`{"a": {"$all": [{"$elemMatch": {"b": 3}}]}}`, []int{9}},
	{`{"a": {"$regex": "^x"}}`, []int{3, 14, 23}},
	{`{"a": {"$regex": "Z$", "$options": "i"}}`, []int{14}},
	{`{"a": {"$regularExpression": {"pattern": "y", "options": ""}}}`, []int{14}},
	{`{"a": {"$not": {"$gt": 1}}}`, minus(idRange(1, 26), 2, 4, 5, 11)},
	{`{"a": {"$not": {"$regularExpression": {"pattern": "^x", "options": ""}}}}`, minus(idRange(1, 26), 3, 14, 23)},
	{`{"$or": [{"a": 1}, {"a": "x"}]}`, []int{1, 3, 4, 17}},
	{`{"$or": [{"a": {"$lt": 0}}, {"a.b": 3}]}`, []int{9, 25}},
	{`{"$and": [{"a": {"$gte": 1}}, {"a": {"$lte": 1}}]}`, []int{1, 4, 17}},
	{`{"$nor": [{"a": 1}, {"a": null}]}`, minus(idRange(1, 26), 1, 4, 17, 6, 7, 15)},
	{`{"a": {"$gt": "w"}}`, []int{3, 14}},
	{`{"a": {"$gte": ""}}`, []int{3, 14}},
	{`{"a": {"$gte": {"$date": "2019-01-01T00:00:00Z"}}}`, []int{13}},
	{`{"a": {"$lt": true}}`, []int{24}},
	{`{"a": {"$gt": {"$oid": "000000000000000000000000"}}}`, []int{18}},
	{`{"a": {"$gte": {"$binary": {"base64": "", "subType": "00"}}}}`, []int{19}},
	{`{"a": {"$gt": {"$timestamp": {"t": 1, "i": 0}}}}`, []int{22}},
	{`{"a": {"$gte": {}}}`, []int{8, 9, 16}},
	{`{"a": {"$lt": {"$maxKey": 1}}}`, nil},
	{`{"a": {"$gt": {"$minKey": 1}}}`, nil},
	{`{"a": {"$elemMatch": {"b": 1, "c": 2}}}`, []int{9}},
	{`{"a": {"$elemMatch": {"b": 1, "c": 4}}}`, []int{}},
	{`{"a": {"$elemMatch": {"$eq": null}}}`, []int{15}},
	{`{"_id": {"$in": [3, 30, 9]}}`, []int{3, 9}},
	{`{"_id": {"$gt": 20}, "a": {"$type": "number"}}`, []int{25, 26}},
	{`{"a": {"$mod": [2, 1]}}`, []int{1, 4, 5, 11, 17}},
	{`{"a": {"$mod": [2, -1]}}`, []int{25}},
}

func idRange(lo, hi int) []int {
	var out []int
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

func minus(in []int, drop ...int) []int {
	var out []int
outer:
	for _, x := range in {
		for _, d := range drop {
			if x == d {
				continue outer
			}
		}
		out = append(out, x)
	}
	return out
}

// loadCorpus inserts docs (Extended JSON) into db.coll.
func loadCorpus(t *testing.T, db *DB, dbName, coll string, docs []string) {
	t.Helper()
	mustRun(t, db, dbName, fmt.Sprintf(`{"insert": %q, "documents": [%s]}`, coll, strings.Join(docs, ",")))
}

// idsOf returns the int _ids of docs, sorted.
func idsOf(t *testing.T, docs []bson.D) []int {
	t.Helper()
	out := []int{}
	for _, d := range docs {
		switch v := d[0].Value.(type) {
		case int32:
			out = append(out, int(v))
		case int64:
			out = append(out, int(v))
		default:
			t.Fatalf("unexpected _id %v", d[0])
		}
	}
	sort.Ints(out)
	return out
}

// runFind runs a find command to exhaustion with getMore and returns
// every document, checking the cursor reply shapes on the way.
func runFind(t *testing.T, db *DB, dbName string, find bson.D) []bson.D {
	t.Helper()
	r, err := db.RunCommand(context.Background(), dbName, find)
	if err != nil {
		t.Fatalf("%v: %v", find, err)
	}
	id, batch := checkCursorShape(t, fmt.Sprint(find), field(r, "cursor"), "firstBatch")
	var out []bson.D
	for _, d := range batch {
		out = append(out, d.(bson.D))
	}
	for id != 0 {
		gm := bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: find[0].Value}}
		if bs, ok := get(find, "batchSize"); ok {
			gm = append(gm, bson.E{Key: "batchSize", Value: bs})
		}
		r, err := db.RunCommand(context.Background(), dbName, gm)
		if err != nil {
			t.Fatalf("getMore: %v", err)
		}
		var nid int64
		nid, batch = checkCursorShape(t, "getMore", field(r, "cursor"), "nextBatch")
		if nid != 0 && nid != id {
			t.Fatalf("getMore changed the cursor id %d -> %d", id, nid)
		}
		id = nid
		for _, d := range batch {
			out = append(out, d.(bson.D))
		}
	}
	return out
}

func ejson(t *testing.T, s string) bson.D {
	t.Helper()
	d, err := document.ParseExtJSON([]byte(s))
	if err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return d
}

// Every query operator through the engine, with MongoDB's array
// semantics: the collection scan and every index (ascending,
// descending, compound, multikey, hinted or chosen by the planner)
// return the same documents, and those are the expected ones.
func TestQueryOperators(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "q", queryCorpus)
	mustRun(t, db, "test", `{"createIndexes": "q", "indexes": [
		{"key": {"a": 1}, "name": "a_1"},
		{"key": {"a": -1}, "name": "a_-1"},
		{"key": {"a.b": 1}, "name": "ab"},
		{"key": {"a": -1, "_id": 1}, "name": "a_id"}]}`)
	mustValidate(t, db, "test", "q")
	hints := []string{`{"$natural": 1}`, `{"$natural": -1}`, `"a_1"`, `"a_-1"`, `"ab"`, `"a_id"`, `"_id_"`, ``}
	for _, c := range queryCases {
		var first []int
		for _, h := range hints {
			cmd := `{"find": "q", "filter": ` + c.filter + `, "batchSize": 4`
			if h != "" {
				cmd += `, "hint": ` + h
			}
			cmd += `}`
			got := idsOf(t, runFind(t, db, "test", ejson(t, cmd)))
			if first == nil {
				first = got
				if c.want != nil && fmt.Sprint(got) != fmt.Sprint(c.want) {
					t.Errorf("%s: got %v, want %v", c.filter, got, c.want)
				}
			} else if fmt.Sprint(got) != fmt.Sprint(first) {
				t.Errorf("%s hint %s: got %v, collection scan gave %v", c.filter, h, got, first)
			}
		}
		// count agrees.
		r := mustRun(t, db, "test", `{"count": "q", "query": `+c.filter+`}`)
		if n, _ := asInt64(field(r, "n")); int(n) != len(first) {
			t.Errorf("%s: count %d, find %d", c.filter, n, len(first))
		}
	}
}

// Unique, sparse and partial indexes over the corpus do not change
// query results either, when hinted.
func TestQueryThroughSpecialIndexes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "q", queryCorpus)
	mustRun(t, db, "test", `{"createIndexes": "q", "indexes": [
		{"key": {"a": 1}, "name": "sparse", "sparse": true},
		{"key": {"a": 1, "z": 1}, "name": "hidden_visible"},
		{"key": {"a": -1}, "name": "hidden", "hidden": true}]}`)
	for _, c := range queryCases {
		if c.want == nil {
			continue
		}
		for _, h := range []string{`"hidden_visible"`, ``} {
			cmd := `{"find": "q", "filter": ` + c.filter
			if h != "" {
				cmd += `, "hint": ` + h
			}
			got := idsOf(t, runFind(t, db, "test", ejson(t, cmd+`}`)))
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("%s hint %s: got %v, want %v", c.filter, h, got, c.want)
			}
		}
	}
}

// Every update modifier through the engine: the stored result, the
// n/nModified counts, and the indexes kept in step (validate).
func TestUpdateModifiers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		before, update, after string
		modified              int
	}{
		{`{"_id": 1, "a": 1}`, `{"$set": {"a": 2, "b.c": "x"}}`, `{"_id": 1, "a": 2, "b": {"c": "x"}}`, 1},
		{`{"_id": 1, "a": 1}`, `{"$set": {"a": 1}}`, `{"_id": 1, "a": 1}`, 0},
		{`{"_id": 1, "a": 1, "b": 2}`, `{"$unset": {"a": "", "zz": ""}}`, `{"_id": 1, "b": 2}`, 1},
		{`{"_id": 1, "a": 1}`, `{"$inc": {"a": 2, "n": {"$numberLong": "5"}}}`, `{"_id": 1, "a": 3, "n": {"$numberLong": "5"}}`, 1},
		{`{"_id": 1, "a": 1.5}`, `{"$inc": {"a": 1}}`, `{"_id": 1, "a": 2.5}`, 1},
		{`{"_id": 1, "a": 3}`, `{"$mul": {"a": 2, "m": 4}}`, `{"_id": 1, "a": 6, "m": 0}`, 1},
		{`{"_id": 1, "a": 3}`, `{"$min": {"a": 1}, "$max": {"b": 7}}`, `{"_id": 1, "a": 1, "b": 7}`, 1},
		{`{"_id": 1, "a": 3}`, `{"$max": {"a": 1}}`, `{"_id": 1, "a": 3}`, 0},
		{`{"_id": 1, "a": 3, "c": 1}`, `{"$rename": {"a": "b"}}`, `{"_id": 1, "c": 1, "b": 3}`, 1},
		{`{"_id": 1, "a": [1]}`, `{"$push": {"a": 2}}`, `{"_id": 1, "a": [1, 2]}`, 1},
		{`{"_id": 1}`, `{"$push": {"a": 2}}`, `{"_id": 1, "a": [2]}`, 1},
		{`{"_id": 1, "a": [5, 1]}`, `{"$push": {"a": {"$each": [4, 2, 3], "$sort": 1, "$slice": 3}}}`, `{"_id": 1, "a": [1, 2, 3]}`, 1},
		{`{"_id": 1, "a": [1, 2]}`, `{"$push": {"a": {"$each": [9], "$position": 0}}}`, `{"_id": 1, "a": [9, 1, 2]}`, 1},
		{`{"_id": 1, "a": [1, 2]}`, `{"$addToSet": {"a": {"$each": [2, 3]}}}`, `{"_id": 1, "a": [1, 2, 3]}`, 1},
		{`{"_id": 1, "a": [1, 2]}`, `{"$addToSet": {"a": 2}}`, `{"_id": 1, "a": [1, 2]}`, 0},
		{`{"_id": 1, "a": [1, 2, 3, 2]}`, `{"$pull": {"a": 2}}`, `{"_id": 1, "a": [1, 3]}`, 1},
		{`{"_id": 1, "a": [1, 5, 3, 7]}`, `{"$pull": {"a": {"$gte": 5}}}`, `{"_id": 1, "a": [1, 3]}`, 1},
		{`{"_id": 1, "a": [{"b": 1}, {"b": 2}]}`, `{"$pull": {"a": {"b": 2}}}`, `{"_id": 1, "a": [{"b": 1}]}`, 1},
		{`{"_id": 1, "a": [1, 2, 3]}`, `{"$pullAll": {"a": [1, 3]}}`, `{"_id": 1, "a": [2]}`, 1},
		{`{"_id": 1, "a": [1, 2, 3]}`, `{"$pop": {"a": -1}}`, `{"_id": 1, "a": [2, 3]}`, 1},
		{`{"_id": 1, "a": [1, 2, 3]}`, `{"$pop": {"a": 1}}`, `{"_id": 1, "a": [1, 2]}`, 1},
		{`{"_id": 1, "a": [1, 2, 3]}`, `{"$inc": {"a.$[]": 10}}`, `{"_id": 1, "a": [11, 12, 13]}`, 1},
		{`{"_id": 1, "a": [1, 2, 3]}`, `{"$set": {"a.1": "x"}}`, `{"_id": 1, "a": [1, "x", 3]}`, 1},
		{`{"_id": 1, "a": 1}`, `{"$setOnInsert": {"z": 1}}`, `{"_id": 1, "a": 1}`, 0},
		{`{"_id": 1, "a": 1, "b": 2}`, `{"x": 5}`, `{"_id": 1, "x": 5}`, 1},
		{`{"_id": 1, "a": 1}`, `{"_id": 1, "a": 1}`, `{"_id": 1, "a": 1}`, 0},
	}
	db, clk := openMem(t)
	for i, c := range cases {
		coll := fmt.Sprintf("u%d", i)
		loadCorpus(t, db, "test", coll, []string{c.before})
		mustRun(t, db, "test", `{"createIndexes": "`+coll+`", "indexes": [{"key": {"a": 1}, "name": "a"}, {"key": {"b": -1, "a": 1}, "name": "ba"}]}`)
		r := mustRun(t, db, "test", `{"update": "`+coll+`", "updates": [{"q": {"_id": 1}, "u": `+c.update+`}]}`)
		if _, ok := get(r, "writeErrors"); ok {
			t.Errorf("%s: %v", c.update, r)
			continue
		}
		if field(r, "n") != int32(1) || field(r, "nModified") != int32(c.modified) {
			t.Errorf("%s: reply %v, want n 1 nModified %d", c.update, r, c.modified)
		}
		got := snapshotDocs(t, db, "test", coll)
		if want := ejson(t, c.after); len(got) != 1 || !docIdentical(got[0], want) {
			t.Errorf("%s on %s: got %v, want %v", c.update, c.before, got, want)
		}
		mustValidate(t, db, "test", coll)
	}
	// $currentDate uses the injected clock.
	loadCorpus(t, db, "test", "cd", []string{`{"_id": 1}`})
	mustRun(t, db, "test", `{"update": "cd", "updates": [{"q": {}, "u": {"$currentDate": {"d": true}}}]}`)
	d := snapshotDocs(t, db, "test", "cd")[0]
	if field(d, "d") != bson.NewDateTimeFromTime(clk.Now()) {
		t.Fatalf("$currentDate: %v, clock %v", d, clk.Now())
	}
}

// Update statements: multi, upsert (with $setOnInsert and the filter's
// equality fields), replacement upsert, ordered stop on error, _id
// immutability, and that failing statements change nothing.
func TestUpdateStatements(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "k": 1}`, `{"_id": 2, "k": 1}`, `{"_id": 3, "k": 2}`})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"k": 1}, "name": "k", "unique": false}, {"key": {"u": 1}, "name": "u", "unique": true, "sparse": true}]}`)
	r := mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"k": 1}, "u": {"$inc": {"n": 1}}, "multi": true}]}`)
	if field(r, "n") != int32(2) || field(r, "nModified") != int32(2) {
		t.Fatalf("multi: %v", r)
	}
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"k": 1}, "u": {"$inc": {"n": 1}}}]}`)
	if field(r, "n") != int32(1) || field(r, "nModified") != int32(1) {
		t.Fatalf("single: %v", r)
	}
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 9, "k": 5}, "u": {"$set": {"s": 1}, "$setOnInsert": {"i": true}}, "upsert": true}]}`)
	up, _ := field(r, "upserted").(bson.A)
	if field(r, "n") != int32(1) || field(r, "nModified") != int32(0) || len(up) != 1 || field(up[0].(bson.D), "_id") != int32(9) || field(up[0].(bson.D), "index") != int32(0) {
		t.Fatalf("upsert: %v", r)
	}
	got, err := db.Database("test").Collection("c").FindOne(context.Background(), bson.D{{Key: "_id", Value: 9}})
	if err != nil || !docIdentical(got, ejson(t, `{"_id": 9, "k": 5, "i": true, "s": 1}`)) {
		t.Fatalf("upserted doc: %v %v", got, err)
	}
	// Replacement upsert with a generated _id.
	res, err := db.Database("test").Collection("c").ReplaceOne(context.Background(), bson.D{{Key: "k", Value: 77}}, bson.D{{Key: "k", Value: 78}}, true)
	if err != nil || res.UpsertedCount != 1 {
		t.Fatalf("ReplaceOne upsert: %v %v", res, err)
	}
	if _, ok := res.UpsertedID.(bson.ObjectID); !ok {
		t.Fatalf("upserted _id = %v", res.UpsertedID)
	}
	if n, _ := db.Database("test").Collection("c").CountDocuments(context.Background(), bson.D{{Key: "k", Value: 78}}); n != 1 {
		t.Fatalf("replacement upsert count %d", n)
	}
	mustValidate(t, db, "test", "c")
	before := snapshotDocs(t, db, "test", "c")
	// Ordered: the second statement fails (unique u), the third is not run.
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"u": 1}}}]}`)
	before = snapshotDocs(t, db, "test", "c")
	r = mustRun(t, db, "test", `{"update": "c", "updates": [
		{"q": {"_id": 3}, "u": {"$set": {"x": 1}}},
		{"q": {"_id": 2}, "u": {"$set": {"u": 1}}},
		{"q": {"_id": 3}, "u": {"$set": {"y": 1}}}]}`)
	we, _ := field(r, "writeErrors").(bson.A)
	if len(we) != 1 || field(we[0].(bson.D), "index") != int32(1) || field(we[0].(bson.D), "code") != int32(11000) || field(r, "n") != int32(1) {
		t.Fatalf("ordered update error: %v", r)
	}
	d, _ := db.Database("test").Collection("c").FindOne(context.Background(), bson.D{{Key: "_id", Value: 3}})
	if _, has := get(d, "y"); has {
		t.Fatalf("ordered update ran past its failure: %v", d)
	}
	if _, has := get(d, "x"); !has {
		t.Fatalf("ordered update lost its first statement: %v", d)
	}
	mustValidate(t, db, "test", "c")
	// Unordered: both good statements run.
	r = mustRun(t, db, "test", `{"update": "c", "ordered": false, "updates": [
		{"q": {"_id": 2}, "u": {"$set": {"u": 1}}},
		{"q": {"_id": 3}, "u": {"$set": {"y": 1}}}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(r, "n") != int32(1) {
		t.Fatalf("unordered update: %v", r)
	}
	// A multi update is not atomic (as in MongoDB): failing on its
	// second document keeps the first one's change, and the indexes
	// stay consistent.
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"k": 1}, "u": {"$set": {"u": 5}}, "multi": true}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(we[0].(bson.D), "code") != int32(11000) {
		t.Fatalf("multi update onto a unique key: %v", r)
	}
	if n, _ := db.Database("test").Collection("c").CountDocuments(context.Background(), bson.D{{Key: "u", Value: 5}}); n != 1 {
		t.Fatalf("multi update kept %d changes, want the first one", n)
	}
	mustValidate(t, db, "test", "c")
	before = snapshotDocs(t, db, "test", "c")
	// Statements that fail before touching a document change nothing.
	for _, u := range []string{
		`{"q": {}, "u": {"$set": {"_id": 100}}}`,
		`{"q": {}, "u": {"$inc": {"k": "x"}}, "multi": true}`,
		`{"q": {}, "u": {"$set": {"a": 1}, "$unset": {"a": 1}}}`,
		`{"q": {}, "u": {"k": 1}, "multi": true}`,
		`{"q": {"_id": 3}, "u": {"$rename": {"k": "_id"}}}`,
	} {
		r := mustRun(t, db, "test", `{"update": "c", "updates": [`+u+`]}`)
		if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 {
			t.Errorf("%s: %v, want a writeError", u, r)
		}
		intact(t, db, "test", "c", before, u)
	}
}

// Delete one/many, with and without indexes; findAndModify remove,
// new, sort, upsert.
func TestDeleteAndFindAndModify(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := 1; i <= 50; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "k": %d, "t": [%d, %d]}`, i, i%5, i, i+100))
	}
	loadCorpus(t, db, "test", "c", docs)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"k": 1}, "name": "k"}, {"key": {"t": -1}, "name": "t"}]}`)
	r := mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"k": 0}, "limit": 1}]}`)
	if field(r, "n") != int32(1) || count(t, db, "test", "c") != 49 {
		t.Fatalf("delete one: %v", r)
	}
	r = mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"k": 0}, "limit": 0}, {"q": {"t": {"$gte": 145}}, "limit": 0}]}`)
	if field(r, "n") != int32(9+4) || count(t, db, "test", "c") != 36 {
		t.Fatalf("delete many: %v, count %d", r, count(t, db, "test", "c"))
	}
	mustValidate(t, db, "test", "c")
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"k": 1}, "sort": {"_id": -1}, "update": {"$set": {"m": 1}}, "new": true, "fields": {"m": 1}}`)
	if v := field(r, "value"); !document.Equal(v, bson.D{{Key: "_id", Value: 41}, {Key: "m", Value: 1}}) {
		t.Fatalf("findAndModify new: %v", r)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"k": 1}, "sort": {"_id": 1}, "update": {"$set": {"m": 2}}}`)
	if v, _ := field(r, "value").(bson.D); field(v, "_id") != int32(1) || field(v, "m") != nil {
		t.Fatalf("findAndModify old: %v", r)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"k": 2}, "sort": {"t": -1}, "remove": true}`)
	if v, _ := field(r, "value").(bson.D); field(v, "_id") != int32(42) || field(r, "lastErrorObject.n") != int32(1) {
		t.Fatalf("findAndModify remove: %v", r)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"_id": 500}, "update": {"$set": {"m": 3}}, "upsert": true, "new": true}`)
	if !document.Equal(field(r, "value"), bson.D{{Key: "_id", Value: 500}, {Key: "m", Value: 3}}) || field(r, "lastErrorObject.upserted") != int32(500) {
		t.Fatalf("findAndModify upsert: %v", r)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "c", "query": {"_id": 999}, "remove": true}`)
	if field(r, "value") != nil || field(r, "lastErrorObject.n") != int32(0) {
		t.Fatalf("findAndModify no match: %v", r)
	}
	mustValidate(t, db, "test", "c")
	ctx := context.Background()
	c := db.Database("test").Collection("c")
	if res, err := c.DeleteMany(ctx, bson.D{{Key: "k", Value: bson.D{{Key: "$in", Value: bson.A{1, 3}}}}}); err != nil || res.DeletedCount != 18 {
		t.Fatalf("DeleteMany: %v %v", res, err)
	}
	if res, err := c.DeleteOne(ctx, bson.D{{Key: "nothing", Value: 1}}); err != nil || res.DeletedCount != 0 {
		t.Fatalf("DeleteOne no match: %v %v", res, err)
	}
	mustValidate(t, db, "test", "c")
	// Deleting from a missing collection is n: 0.
	r = mustRun(t, db, "test", `{"delete": "nope", "deletes": [{"q": {}, "limit": 0}]}`)
	if field(r, "n") != int32(0) {
		t.Fatalf("delete missing: %v", r)
	}
}

// sort, skip, limit, projection and batchSize, with cursors across
// getMore, agree with an in-memory reference for every plan.
func TestFindOptions(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 60; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %d, "b": "s%02d", "c": {"d": %d}}`, i, (i*7)%13, i%10, i%3))
	}
	loadCorpus(t, db, "test", "c", docs)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b": -1}, "name": "ab"}, {"key": {"b": 1}, "name": "b"}]}`)
	cases := []struct {
		find string
		ids  []int // in order
		doc0 string
	}{
		{`{"find": "c", "filter": {"a": 0}, "sort": {"_id": -1}}`, []int{52, 39, 26, 13, 0}, ``},
		{`{"find": "c", "filter": {"a": {"$lte": 1}}, "sort": {"a": 1, "b": -1, "_id": 1}}`, []int{39, 26, 13, 52, 0, 28, 15, 54, 2, 41}, ``},
		{`{"find": "c", "filter": {"a": {"$lte": 1}}, "sort": {"a": -1, "b": 1}, "limit": 3}`, []int{41, 2, 54}, ``},
		{`{"find": "c", "sort": {"b": 1, "_id": -1}, "skip": 3, "limit": 4}`, []int{20, 10, 0, 51}, ``},
		{`{"find": "c", "sort": {"c.d": -1, "_id": 1}, "limit": 2, "projection": {"c": 1}}`, []int{2, 5}, `{"_id": 2, "c": {"d": 2}}`},
		{`{"find": "c", "filter": {"_id": {"$lt": 3}}, "projection": {"_id": 0, "b": 1}}`, nil, `{"b": "s00"}`},
		{`{"find": "c", "filter": {"_id": 4}, "projection": {"a": 0, "c": 0}}`, []int{4}, `{"_id": 4, "b": "s04"}`},
		{`{"find": "c", "filter": {"_id": {"$gte": 55}}, "sort": {"_id": 1}, "batchSize": 2}`, []int{55, 56, 57, 58, 59}, ``},
		{`{"find": "c", "filter": {"_id": {"$gte": 55}}, "sort": {"_id": 1}, "batchSize": 0}`, []int{55, 56, 57, 58, 59}, ``},
		{`{"find": "c", "filter": {"_id": {"$gte": 10}}, "sort": {"_id": 1}, "skip": 45, "batchSize": 3}`, []int{55, 56, 57, 58, 59}, ``},
		{`{"find": "c", "sort": {"$natural": -1}, "limit": 2}`, []int{59, 58}, ``},
		{`{"find": "c", "sort": {"_id": 1}, "limit": 3, "singleBatch": true}`, []int{0, 1, 2}, ``},
		{`{"find": "c", "sort": {"_id": 1}, "singleBatch": true, "limit": 3, "batchSize": 2}`, []int{0, 1}, ``},
		{`{"find": "c", "sort": {"_id": 1}, "skip": 100}`, []int{}, ``},
	}
	for _, c := range cases {
		got := runFind(t, db, "test", ejson(t, c.find))
		if c.ids != nil {
			var ids []int
			for _, d := range got {
				n, _ := asInt64(d[0].Value)
				ids = append(ids, int(n))
			}
			if fmt.Sprint(ids) != fmt.Sprint(c.ids) {
				t.Errorf("%s: ids %v, want %v", c.find, ids, c.ids)
			}
		}
		if c.doc0 != "" && (len(got) == 0 || !docIdentical(got[0], ejson(t, c.doc0))) {
			t.Errorf("%s: first doc %v, want %s", c.find, got, c.doc0)
		}
		// The same with a collection scan and with every index hinted.
		for _, h := range []string{`{"$natural": 1}`, `"ab"`, `"b"`, `"_id_"`} {
			q := ejson(t, c.find)
			if _, ok := get(q, "sort"); ok {
				if s, _ := get(q, "sort"); len(s.(bson.D)) > 0 && s.(bson.D)[0].Key == "$natural" {
					continue
				}
			}
			q = append(q, bson.E{Key: "hint", Value: ejson(t, `{"h": `+h+`}`)[0].Value})
			other := runFind(t, db, "test", q)
			if !sameDocs(other, got) && c.ids != nil {
				t.Errorf("%s hint %s: %v, want %v", c.find, h, other, got)
			}
		}
	}
	// A single-batch find closes its cursor: the whole first batch
	// (101 by default, or batchSize, or limit), not one document.
	for _, c := range []struct {
		cmd string
		n   int
	}{
		{`{"find": "c", "singleBatch": true}`, 60},
		{`{"find": "c", "singleBatch": true, "batchSize": 7}`, 7},
		{`{"find": "c", "batchSize": 7, "singleBatch": true, "limit": 2}`, 2},
	} {
		r := mustRun(t, db, "test", c.cmd)
		if id, b := checkCursorShape(t, c.cmd, field(r, "cursor"), "firstBatch"); id != 0 || len(b) != c.n {
			t.Errorf("%s: id %d, %d docs, want 0 and %d", c.cmd, id, len(b), c.n)
		}
	}
	// Exhausted cursors are gone; killCursors reports killed/notFound.
	r := mustRun(t, db, "test", `{"find": "c", "batchSize": 5}`)
	id, b := checkCursorShape(t, "open", field(r, "cursor"), "firstBatch")
	if id == 0 || len(b) != 5 || field(r, "cursor.ns") != "test.c" {
		t.Fatalf("open cursor: %v", r)
	}
	r = mustRun(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "c", "batchSize": 10}`, id))
	if _, b := checkCursorShape(t, "getMore", field(r, "cursor"), "nextBatch"); len(b) != 10 {
		t.Fatalf("getMore batch: %v", r)
	}
	wantCode(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "other"}`, id), document.CodeCursorNotFound, "")
	r = mustRun(t, db, "test", fmt.Sprintf(`{"killCursors": "c", "cursors": [{"$numberLong": "%d"}, {"$numberLong": "77"}]}`, id))
	if k := field(r, "cursorsKilled").(bson.A); len(k) != 1 || k[0] != id {
		t.Fatalf("killCursors: %v", r)
	}
	if nf := field(r, "cursorsNotFound").(bson.A); len(nf) != 1 || nf[0] != int64(77) {
		t.Fatalf("killCursors notFound: %v", r)
	}
	wantCode(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "c"}`, id), document.CodeCursorNotFound, "")
	// A cursor whose collection is dropped fails with 175.
	r = mustRun(t, db, "test", `{"find": "c", "batchSize": 1}`)
	id, _ = checkCursorShape(t, "open", field(r, "cursor"), "firstBatch")
	mustRun(t, db, "test", `{"drop": "c"}`)
	wantCode(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "c"}`, id), document.CodeQueryPlanKilled, "")
	// find on a missing collection: empty batch, cursor 0.
	r = mustRun(t, db, "test", `{"find": "c"}`)
	if id, b := checkCursorShape(t, "missing", field(r, "cursor"), "firstBatch"); id != 0 || len(b) != 0 {
		t.Fatalf("find missing: %v", r)
	}
}

// explain of find shows the stages the plan runs, with correct
// executionStats counters.
func TestExplainFind(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 100; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %d, "b": %d, "m": [%d, %d]}`, i, i%10, i, i, i+1))
	}
	loadCorpus(t, db, "test", "c", docs)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"m": 1}, "name": "m_1"}]}`)
	type stats struct{ keys, docs, n int32 }
	cases := []struct {
		cmd    string
		stages []string // winning plan, outermost first
		ix     string
		st     stats
	}{
		{`{"find": "c", "filter": {"a": 3}}`, []string{"FETCH", "IXSCAN"}, "a_1", stats{10, 10, 10}},
		{`{"find": "c", "filter": {"a": 3, "b": {"$gt": 50}}}`, []string{"FETCH", "IXSCAN"}, "a_1", stats{10, 10, 5}},
		{`{"find": "c", "filter": {"a": {"$gte": 8}}, "sort": {"a": 1}}`, []string{"FETCH", "IXSCAN"}, "a_1", stats{20, 20, 20}},
		{`{"find": "c", "filter": {"b": {"$lt": 30}}}`, []string{"COLLSCAN"}, "", stats{0, 100, 30}},
		{`{"find": "c", "filter": {"b": {"$lt": 30}}, "sort": {"b": -1}}`, []string{"SORT", "COLLSCAN"}, "", stats{0, 100, 30}},
		{`{"find": "c", "filter": {"a": 1}, "sort": {"b": -1}}`, []string{"SORT", "FETCH", "IXSCAN"}, "a_1", stats{10, 10, 10}},
		// One _id: mongod's IDHACK (TestExplainIDHack).
		{`{"find": "c", "filter": {"_id": 7}}`, []string{"IDHACK"}, "", stats{1, 1, 1}},
		{`{"find": "c", "filter": {"_id": {"$lte": 7}}}`, []string{"FETCH", "IXSCAN"}, "_id_", stats{8, 8, 8}},
		// Multikey: bounds of one element cannot be intersected, so the
		// scan covers [10, MaxKey] of every array element.
		{`{"find": "c", "filter": {"m": {"$gte": 10, "$lte": 12}}}`, []string{"FETCH", "IXSCAN"}, "m_1", stats{181, 91, 4}},
		{`{"find": "c", "filter": {"a": 3}, "hint": {"$natural": 1}}`, []string{"COLLSCAN"}, "", stats{0, 100, 10}},
		{`{"find": "c", "filter": {"b": 3}, "hint": "a_1"}`, []string{"FETCH", "IXSCAN"}, "a_1", stats{100, 100, 1}},
		{`{"find": "c", "filter": {"a": 3}, "limit": 2}`, []string{"LIMIT", "FETCH", "IXSCAN"}, "a_1", stats{-1, -1, 2}},
	}
	for _, c := range cases {
		r := mustRun(t, db, "test", `{"explain": `+c.cmd+`, "verbosity": "executionStats"}`)
		var stages []string
		var ixName string
		st, _ := field(r, "queryPlanner.winningPlan").(bson.D)
		for st != nil {
			s := field(st, "stage").(string)
			stages = append(stages, s)
			if s == "IXSCAN" {
				ixName, _ = field(st, "indexName").(string)
				if _, ok := get(st, "indexBounds"); !ok {
					t.Errorf("%s: IXSCAN without indexBounds", c.cmd)
				}
			}
			st, _ = field(st, "inputStage").(bson.D)
		}
		if fmt.Sprint(stages) != fmt.Sprint(c.stages) || ixName != c.ix {
			t.Errorf("%s: stages %v on %q, want %v on %q", c.cmd, stages, ixName, c.stages, c.ix)
		}
		es, _ := field(r, "executionStats").(bson.D)
		got := stats{field(es, "totalKeysExamined").(int32), field(es, "totalDocsExamined").(int32), field(es, "nReturned").(int32)}
		want := c.st
		if want.keys < 0 {
			want.keys, want.docs = got.keys, got.docs
		}
		if got != want {
			t.Errorf("%s: executionStats %+v, want %+v", c.cmd, got, want)
		}
		if field(es, "executionSuccess") != true {
			t.Errorf("%s: executionSuccess %v", c.cmd, es)
		}
	}
	// queryPlanner verbosity has no executionStats; explain of a missing
	// collection is EOF.
	r := mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"a": 1}}, "verbosity": "queryPlanner"}`)
	if _, ok := get(r, "executionStats"); ok {
		t.Fatalf("queryPlanner verbosity ran the query: %v", r)
	}
	r = mustRun(t, db, "test", `{"explain": {"find": "nope"}}`)
	if field(r, "queryPlanner.winningPlan.stage") != "EOF" {
		t.Fatalf("explain missing collection: %v", r)
	}
}
