package engine

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Review (audit25e): every write path must leave every index consistent
// with its documents: validate reports no errors, and a hinted index scan
// returns the documents a {$natural: 1} scan does.

// ricIndexes is one of every index type, all on one collection.
const ricIndexes = `[
 {"key": {"a": 1}, "name": "a"},
 {"key": {"a": 1, "b": -1}, "name": "ab"},
 {"key": {"arr": 1}, "name": "arr"},
 {"key": {"sub.x": 1}, "name": "subx"},
 {"key": {"cat": 1, "t": "text", "t2": "text"}, "name": "txt", "language_override": "lang", "weights": {"t2": 5}},
 {"key": {"loc": "2dsphere"}, "name": "geo"},
 {"key": {"pt": "2d"}, "name": "flat"},
 {"key": {"$**": 1}, "name": "wall", "wildcardProjection": {"w": 1, "sub": 1, "q": 1}},
 {"key": {"w.$**": 1}, "name": "wsub"},
 {"key": {"k": 1, "w.$**": 1}, "name": "cwi"},
 {"key": {"h": "hashed"}, "name": "hash"},
 {"key": {"p": 1}, "name": "part", "partialFilterExpression": {"pf": {"$eq": true}}},
 {"key": {"s": 1}, "name": "sparse", "sparse": true},
 {"key": {"u": 1}, "name": "uniq", "unique": true},
 {"key": {"name": 1}, "name": "coll", "collation": {"locale": "en", "strength": 2}},
 {"key": {"exp": 1}, "name": "ttl", "expireAfterSeconds": 60}
]`

// ricPlainIndexes leaves out the indexes (text, partial, $** with a
// projection) that make a batched delete decode whole documents, so a
// batch decodes only the indexed fields (batchDeleter.decodeFields).
var ricPlainIndexes = ricWithout("txt", "wall", "part")

// ricCappedIndexes leaves out the geo indexes a capped collection refuses.
var ricCappedIndexes = ricWithout("geo", "flat", "ttl")

func ricWithout(names ...string) string {
	var keep []string
	for _, l := range strings.Split(ricIndexes, "\n") {
		drop := false
		for _, n := range names {
			if strings.Contains(l, `"name": "`+n+`"`) {
				drop = true
			}
		}
		if !drop && strings.HasPrefix(l, " {") {
			keep = append(keep, strings.TrimSuffix(strings.TrimSpace(l), ","))
		}
	}
	return "[" + strings.Join(keep, ", ") + "]"
}

var ricLangs = []string{"english", "french", "spanish", "none"}

// ricDoc is document i, with a field for every index.
func ricDoc(i int) string {
	exp := "2026-11-22T11:00:00Z" // expires once the clock moves past it
	if i%2 == 1 {
		exp = "2030-01-01T00:00:00Z"
	}
	s := ""
	if i%3 == 0 {
		s = fmt.Sprintf(`, "s": %d`, i)
	}
	return fmt.Sprintf(`{"_id": %d, "a": %d, "b": %d, "arr": [%d, %d, "x"], "sub": [{"x": %d}, {"x": %d, "y": [1, 2]}],
 "cat": %d, "t": "running nations quickly %d", "t2": "continuation donnees", "lang": %q,
 "loc": {"type": "Point", "coordinates": [%d, %d]}, "pt": [%d, %d], "w": {"x": %d, "y": {"z": %d}, "l": [1, {"m": %d}]},
 "k": %d, "h": %d, "p": %d, "pf": %t, "q": {"r": %d}, "u": %d, "name": "Name%d", "exp": {"$date": %q}%s}`,
		i, i%7, i, i, i+1, i, i+1, i%3, i, ricLangs[i%len(ricLangs)], i%90, i%45, i%50, i%50, i, i, i, i, i, i, i%2 == 0, i, i, i, exp, s)
}

func ricDocs(lo, hi int) string {
	var ds []string
	for i := lo; i < hi; i++ {
		ds = append(ds, ricDoc(i))
	}
	return strings.Join(ds, ",")
}

// ricQueries are (filter, hint, collation) the index scan comparison runs.
var ricQueries = [][3]string{
	{`{"a": {"$gte": 3}}`, `"a"`, ``},
	{`{"a": {"$exists": true}}`, `"a"`, ``},
	{`{"a": 2, "b": {"$gt": 10}}`, `"ab"`, ``},
	{`{"arr": "x"}`, `"arr"`, ``},
	{`{"arr": {"$gte": 5}}`, `"arr"`, ``},
	{`{"sub.x": {"$gte": 5}}`, `"subx"`, ``},
	{`{"loc": {"$geoWithin": {"$centerSphere": [[10, 10], 0.5]}}}`, `"geo"`, ``},
	{`{"pt": {"$geoWithin": {"$box": [[-5, -5], [30, 30]]}}}`, `"flat"`, ``},
	{`{"w.x": {"$gte": 3}}`, `"wall"`, ``},
	{`{"q.r": {"$gte": 0}}`, `"wall"`, ``},
	{`{"w.y.z": {"$lt": 100000}}`, `"wsub"`, ``},
	{`{"k": {"$gte": 0}, "w.x": {"$gte": 0}}`, `"cwi"`, ``},
	{`{"h": 5}`, `"hash"`, ``},
	{`{"p": {"$gte": 0}, "pf": true}`, `"part"`, ``},
	{`{"s": {"$gte": 0}}`, `"sparse"`, ``},
	{`{"u": {"$gte": -100000}}`, `"uniq"`, ``},
	{`{"name": {"$gte": ""}}`, `"coll"`, `{"locale": "en", "strength": 2}`},
	{`{"exp": {"$gte": {"$date": "1970-01-01T00:00:00Z"}}}`, `"ttl"`, ``},
}

// ricSetup opens a store (with a directory when dir is set) and
// creates c with every index and n documents; clustered makes c
// clustered by _id.
func ricSetup(t *testing.T, n int, clustered bool) (*DB, *fakeClock) {
	t.Helper()
	db, clk := openMem(t)
	ricCreate(t, db, "c", n, clustered)
	return db, clk
}

func ricCreate(t *testing.T, db *DB, name string, n int, clustered bool) {
	t.Helper()
	ricCreateWith(t, db, name, n, clustered, ricIndexes)
}

func ricCreateWith(t *testing.T, db *DB, name string, n int, clustered bool, ricIndexes string) {
	t.Helper()
	if clustered {
		mustRun(t, db, "test", fmt.Sprintf(`{"create": %q, "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`, name))
	}
	mustRun(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": %s}`, name, ricIndexes))
	if n > 0 {
		mustRun(t, db, "test", fmt.Sprintf(`{"insert": %q, "documents": [%s]}`, name, ricDocs(0, n)))
	}
}

func ricIDs(t *testing.T, db *DB, cmd string) ([]string, error) {
	t.Helper()
	var out []string
	r, err := run(t, db, "test", cmd)
	if err != nil {
		return nil, err
	}
	for {
		batch, _ := field(r, "cursor.firstBatch").(bson.A)
		if batch == nil {
			batch, _ = field(r, "cursor.nextBatch").(bson.A)
		}
		for _, v := range batch {
			d := v.(bson.D)
			id, _ := get(d, "_id")
			out = append(out, fmt.Sprint(id))
		}
		cid := field(r, "cursor.id")
		if cid == nil || fmt.Sprint(cid) == "0" {
			break
		}
		coll, _ := field(r, "cursor.ns").(string)
		coll = coll[strings.IndexByte(coll, '.')+1:]
		r, err = run(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%v"}, "collection": %q}`, cid, coll))
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// ricCheck validates coll and compares every query's hinted index scan
// with a collection scan.
func ricCheck(t *testing.T, db *DB, coll, step string) {
	t.Helper()
	r := mustRun(t, db, "test", fmt.Sprintf(`{"validate": %q}`, coll))
	if field(r, "valid") != true {
		errs, _ := field(r, "errors").(bson.A)
		if len(errs) > 5 {
			errs = append(errs[:5], fmt.Sprintf("... %d more", len(errs)-5))
		}
		t.Errorf("%s: validate %s: invalid: %v", step, coll, errs)
	}
	for _, q := range ricQueries {
		coll2 := ""
		if q[2] != "" {
			coll2 = `, "collation": ` + q[2]
		}
		base := fmt.Sprintf(`{"find": %q, "filter": %s, "batchSize": 100000%s, "hint": `, coll, q[0], coll2)
		ix, err := ricIDs(t, db, base+q[1]+`}`)
		if err != nil {
			if strings.Contains(err.Error(), "hint provided does not correspond") {
				continue // index not on this collection
			}
			t.Errorf("%s: %s hint %s: %v", step, q[0], q[1], err)
			continue
		}
		nat, err := ricIDs(t, db, base+`{"$natural": 1}}`)
		if err != nil {
			t.Errorf("%s: %s natural: %v", step, q[0], err)
			continue
		}
		if fmt.Sprint(ix) != fmt.Sprint(nat) {
			t.Errorf("%s: %s: hint %s gives %d docs %v, $natural %d docs %v", step, q[0], q[1], len(ix), ricShort(ix), len(nat), ricShort(nat))
		}
	}
}

func ricShort(s []string) []string {
	if len(s) > 12 {
		return append(s[:12:12], "...")
	}
	return s
}

// ricWrites are the write paths, each a list of commands on "c" run in
// order (errors allowed: a batch that fails mid-way is a write path too).
var ricWrites = []struct {
	name string
	cmds []string
}{
	{"insertOne", []string{`{"insert": "c", "documents": [` + ricDoc(1000) + `]}`}},
	{"insertOrderedDupMid", []string{`{"insert": "c", "documents": [` + ricDoc(1001) + `,` + ricDoc(3) + `,` + ricDoc(1002) + `]}`}},
	{"insertUnorderedErrs", []string{`{"insert": "c", "ordered": false, "documents": [` + ricDoc(1003) + `,` + strings.Replace(ricDoc(1004), `"u": 1004`, `"u": 5`, 1) + `,` +
		strings.Replace(ricDoc(1005), `"type": "Point"`, `"type": "Bogus"`, 1) + `,` + strings.Replace(ricDoc(1006), `"pt": [`, `"pt": ["bad", `, 1) + `,` + ricDoc(1007) + `]}`}},
	{"set", []string{`{"update": "c", "updates": [{"q": {"_id": {"$lt": 20}}, "u": {"$set": {"a": 100, "arr": [9, 8], "sub.0.x": -1, "w.x": -1, "w.l.1.m": 7, "t": "new texts written", "lang": "french", "t2": "nouvelles", "loc": {"type": "Point", "coordinates": [1, 1]}, "pt": [1, 1], "h": "x", "p": -7, "pf": false, "q.r": -1, "name": "ZZ", "exp": {"$date": "2026-11-22T11:00:00Z"}, "cat": 9, "k": -3}}, "multi": true}]}`,
		`{"update": "c", "updates": [{"q": {"_id": {"$gte": 20}}, "u": {"$set": {"pf": true, "s": 1, "lang": "spanish"}}, "multi": true}]}`}},
	{"unset", []string{`{"update": "c", "updates": [{"q": {"_id": {"$lt": 20}}, "u": {"$unset": {"a": 1, "arr": 1, "sub": 1, "t": 1, "t2": 1, "lang": 1, "loc": 1, "pt": 1, "w": 1, "h": 1, "p": 1, "pf": 1, "s": 1, "q": 1, "name": 1, "exp": 1, "cat": 1, "k": 1}}, "multi": true}]}`,
		`{"update": "c", "updates": [{"q": {"_id": {"$gte": 20}}, "u": {"$unset": {"lang": 1, "pf": 1, "w.y": 1, "sub.1.x": 1}}, "multi": true}]}`}},
	{"inc", []string{`{"update": "c", "updates": [{"q": {}, "u": {"$inc": {"a": 1, "k": 2, "p": 3, "w.x": 4, "sub.0.x": 5, "u": 100000, "h": 1, "loc.coordinates.0": 1, "pt.1": 1}}, "multi": true}]}`}},
	{"push", []string{`{"update": "c", "updates": [{"q": {}, "u": {"$push": {"arr": {"$each": [500, 501]}, "sub": {"x": 99}, "w.l": {"m": 5}}}, "multi": true}]}`}},
	{"pull", []string{`{"update": "c", "updates": [{"q": {}, "u": {"$pull": {"arr": {"$gte": 5}, "sub": {"x": {"$gt": 3}}, "w.l": {"m": {"$gte": 0}}}}, "multi": true}]}`}},
	{"addToSet", []string{`{"update": "c", "updates": [{"q": {}, "u": {"$addToSet": {"arr": {"$each": [1, 2, "y"]}, "sub": {"x": 1}}}, "multi": true}]}`}},
	{"rename", []string{`{"update": "c", "updates": [{"q": {"_id": {"$lt": 20}}, "u": {"$rename": {"a": "aa", "t": "tt", "w": "ww", "lang": "lang2", "s": "p", "name": "nm", "loc": "loc2", "pt": "pt2", "h": "hh", "exp": "exp2"}}, "multi": true}]}`,
		`{"update": "c", "updates": [{"q": {"_id": {"$gte": 20}}, "u": {"$rename": {"b": "a", "t2": "t", "pf": "pff", "k": "w.k"}}, "multi": true}]}`}},
	{"positional", []string{`{"update": "c", "updates": [{"q": {"arr": 5}, "u": {"$set": {"arr.$": 500}}, "multi": true}, {"q": {"sub.x": 6}, "u": {"$set": {"sub.$.x": -6}}, "multi": true}, {"q": {"w.l.m": 7}, "u": {"$set": {"w.l.$.m": 77}}}]}`}},
	{"allPositional", []string{`{"update": "c", "updates": [{"q": {}, "u": {"$set": {"sub.$[].x": 7, "w.l.$[]": 3}}, "multi": true}]}`}},
	{"filteredPositional", []string{`{"update": "c", "updates": [{"q": {}, "u": {"$set": {"sub.$[e].x": -5, "arr.$[n]": 1}}, "arrayFilters": [{"e.x": {"$gt": 5}}, {"n": {"$gt": 10}}], "multi": true}]}`}},
	{"replacement", []string{`{"update": "c", "updates": [{"q": {"_id": 4}, "u": {"a": 1, "t": "hello world", "lang": "spanish", "u": 4, "arr": [[1, 2], 3]}}, {"q": {"_id": 5}, "u": {"u": 5}}, {"q": {"_id": 6}, "u": ` + strings.Replace(ricDoc(60006), `"_id": 60006, `, ``, 1) + `}]}`}},
	{"upsert", []string{`{"update": "c", "updates": [{"q": {"_id": 5000}, "u": {"$set": {"a": 3, "t": "upserted text", "lang": "french", "u": 5000, "arr": [1, 2]}}, "upsert": true}, {"q": {"a": 12345, "arr": 5, "sub.x": 3}, "u": {"$set": {"t": "x"}}, "upsert": true}, {"q": {"_id": 5001}, "u": ` + strings.Replace(ricDoc(5001), `"_id": 5001, `, ``, 1) + `, "upsert": true}]}`}},
	{"pipelineUpdate", []string{`{"update": "c", "updates": [{"q": {}, "u": [{"$set": {"a": {"$add": ["$a", 1]}, "t": {"$concat": ["$t", " more"]}, "lang": {"$cond": [{"$eq": ["$lang", "english"]}, "french", "english"]}, "arr": {"$concatArrays": ["$arr", [77]]}, "pf": {"$not": ["$pf"]}}}, {"$unset": ["loc", "w.y"]}], "multi": true}]}`}},
	{"findAndModifyUpdate", []string{`{"findAndModify": "c", "query": {"_id": 7}, "update": {"$set": {"t": "changed", "lang": "french", "arr": [1], "pf": false}}, "new": true}`,
		`{"findAndModify": "c", "query": {"_id": 8}, "update": {"$set": {"pf": true, "lang": "none"}}}`}},
	{"findAndModifyRemove", []string{`{"findAndModify": "c", "query": {"_id": 9}, "remove": true}`, `{"findAndModify": "c", "query": {"_id": 10}, "remove": true}`}},
	{"findAndModifyUpsert", []string{`{"findAndModify": "c", "query": {"_id": 7000}, "update": {"$set": {"t": "up", "lang": "french", "arr": [1, 2], "pf": true, "p": 1, "u": 7000}}, "upsert": true, "new": true}`,
		`{"findAndModify": "c", "query": {"_id": 7001}, "update": ` + strings.Replace(ricDoc(7001), `"_id": 7001, `, ``, 1) + `, "upsert": true}`}},
	{"deleteOne", []string{`{"delete": "c", "deletes": [{"q": {"_id": 11}, "limit": 1}, {"q": {"a": 2}, "limit": 1}]}`}},
	{"deleteManySmall", []string{`{"delete": "c", "deletes": [{"q": {"a": 3}, "limit": 0}]}`}},
	{"deleteManyLarge", []string{`{"delete": "c", "deletes": [{"q": {"_id": {"$gte": 0}}, "limit": 0}]}`}},
	{"deleteManyLargeByIndex", []string{`{"delete": "c", "deletes": [{"q": {"a": {"$gte": 1}}, "limit": 0}]}`}},
	{"deleteManyAll", []string{`{"delete": "c", "deletes": [{"q": {}, "limit": 0}]}`}},
	{"bulkWrite", []string{`{"bulkWrite": 1, "nsInfo": [{"ns": "test.c"}], "ordered": false, "ops": [
		{"insert": 0, "document": ` + ricDoc(8000) + `},
		{"insert": 0, "document": ` + ricDoc(2) + `},
		{"update": 0, "filter": {"_id": {"$lt": 10}}, "multi": true, "updateMods": {"$set": {"lang": "french", "pf": false, "t": "bulk"}, "$push": {"arr": 1}}},
		{"update": 0, "filter": {"_id": 12}, "updateMods": {"u": 12, "t": "replaced"}},
		{"update": 0, "filter": {"_id": 8001}, "updateMods": {"$set": {"u": 8001, "pf": true, "p": 3}}, "upsert": true},
		{"delete": 0, "filter": {"_id": 13}},
		{"delete": 0, "filter": {"a": 4}, "multi": true}]}`}},
}

// TestReviewIndexConsistencyWrites runs every write path on a collection
// with every index type, ordinary and clustered, with 150 documents (so
// the multi-document writes and deletes are batched).
func TestReviewIndexConsistencyWrites(t *testing.T) {
	t.Parallel()
	for _, set := range [][2]string{{"all", ricIndexes}, {"plain", ricPlainIndexes}} {
		for _, clustered := range []bool{false, true} {
			for _, w := range ricWrites {
				if set[0] == "plain" && !strings.HasPrefix(w.name, "delete") && w.name != "findAndModifyRemove" && w.name != "bulkWrite" {
					continue // the plain set differs only in how a delete decodes
				}
				name := set[0] + "/" + w.name
				if clustered {
					name = "clustered/" + name
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					db, _ := openMem(t)
					ricCreateWith(t, db, "c", 150, clustered, set[1])
					ricCheck(t, db, "c", "setup")
					for i, c := range w.cmds {
						db2 := "test"
						if strings.HasPrefix(c, `{"bulkWrite"`) {
							db2 = "admin"
						}
						r, err := run(t, db, db2, c)
						if err != nil || field(r, "writeErrors") != nil {
							t.Logf("cmd %d: err %v writeErrors %v", i, err, field(r, "writeErrors"))
						}
						ricCheck(t, db, "c", fmt.Sprintf("after cmd %d", i))
					}
				})
			}
		}
	}
}

// TestReviewIndexConsistencyTTL: a TTL pass over the collection with every
// index type deletes the expired half.
func TestReviewIndexConsistencyTTL(t *testing.T) {
	t.Parallel()
	for _, set := range [][2]string{{"all", ricIndexes}, {"plain", ricPlainIndexes}} {
		for _, clustered := range []bool{false, true} {
			t.Run(fmt.Sprint(set[0], "/clustered=", clustered), func(t *testing.T) {
				t.Parallel()
				db, clk := openMem(t)
				ricCreateWith(t, db, "c", 250, clustered, set[1])
				clk.Advance(2 * time.Hour)
				res := ttlPass(t, db)
				if res.Deleted != 125 {
					t.Errorf("ttl pass deleted %d, want 125", res.Deleted)
				}
				ricCheck(t, db, "c", "after TTL pass")
			})
		}
	}
}

// TestReviewIndexConsistencyTTLOnly: a TTL pass with only the TTL index
// (the fast path from TTL entries), ordinary and clustered, and clustered
// by an expiring _id.
func TestReviewIndexConsistencyTTLOnly(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"exp": 1}, "name": "ttl", "expireAfterSeconds": 60}]}`)
	mustRun(t, db, "test", `{"create": "cl", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
	mustRun(t, db, "test", `{"createIndexes": "cl", "indexes": [{"key": {"exp": -1}, "name": "ttl", "expireAfterSeconds": 60}]}`)
	for _, c := range []string{"c", "cl"} {
		mustRun(t, db, "test", fmt.Sprintf(`{"insert": %q, "documents": [%s]}`, c, ricDocs(0, 250)))
		mustRun(t, db, "test", fmt.Sprintf(`{"update": %q, "updates": [{"q": {"_id": {"$lt": 20}}, "u": {"$set": {"big": "%s"}}, "multi": true}]}`, c, strings.Repeat("z", 300)))
	}
	clk.Advance(2 * time.Hour)
	ttlPass(t, db)
	for _, c := range []string{"c", "cl"} {
		ricCheck(t, db, c, "after TTL pass")
		if r := mustRun(t, db, "test", fmt.Sprintf(`{"count": %q}`, c)); fmt.Sprint(field(r, "n")) != "125" {
			t.Errorf("%s: count %v, want 125", c, field(r, "n"))
		}
	}
}

// TestReviewIndexConsistencyOutMerge: $out and $merge into a collection with
// every index type.
func TestReviewIndexConsistencyOutMerge(t *testing.T) {
	t.Parallel()
	db, _ := ricSetup(t, 150, false)
	ricCreate(t, db, "o", 30, false)
	ricCreate(t, db, "m", 30, false)
	r, err := run(t, db, "test", `{"aggregate": "c", "pipeline": [{"$match": {"_id": {"$lt": 120}}}, {"$set": {"lang": "french", "pf": {"$gt": ["$_id", 50]}}}, {"$out": "o"}], "cursor": {}}`)
	if err != nil {
		t.Errorf("$out: %v %v", r, err)
	}
	ricCheck(t, db, "o", "after $out")
	for _, st := range []string{
		`{"$merge": {"into": "m", "whenMatched": "merge", "whenNotMatched": "insert"}}`,
		`{"$merge": {"into": "m", "whenMatched": "replace", "whenNotMatched": "insert"}}`,
		`{"$merge": {"into": "m", "whenMatched": [{"$set": {"lang": "spanish", "t": "piped", "arr": [1, 2, 3]}}], "whenNotMatched": "discard"}}`,
		`{"$merge": {"into": "m", "whenMatched": "keepExisting", "whenNotMatched": "insert"}}`,
	} {
		r, err := run(t, db, "test", `{"aggregate": "c", "pipeline": [{"$match": {"_id": {"$lt": 140}}}, {"$set": {"lang": "french", "pf": {"$gt": ["$_id", 50]}, "u": {"$add": ["$u", 0]}}}, `+st+`], "cursor": {}}`)
		if err != nil {
			t.Errorf("%s: %v %v", st, r, err)
		}
		ricCheck(t, db, "m", "after "+st)
	}
}

// TestReviewIndexConsistencyRename: renameCollection within and across
// databases, then writes to the renamed collection.
func TestReviewIndexConsistencyRename(t *testing.T) {
	t.Parallel()
	db, _ := ricSetup(t, 150, false)
	ricCreate(t, db, "target", 20, false)
	mustRun(t, db, "admin", `{"renameCollection": "test.c", "to": "test.c2"}`)
	ricCheck(t, db, "c2", "after rename")
	mustRun(t, db, "test", `{"insert": "c2", "documents": [`+ricDocs(200, 260)+`]}`)
	mustRun(t, db, "test", `{"update": "c2", "updates": [{"q": {}, "u": {"$set": {"lang": "french", "pf": true}, "$inc": {"a": 1}}, "multi": true}]}`)
	ricCheck(t, db, "c2", "after writes to renamed")
	mustRun(t, db, "admin", `{"renameCollection": "test.c2", "to": "test.target", "dropTarget": true}`)
	ricCheck(t, db, "target", "after rename dropTarget")
	mustRun(t, db, "test", `{"delete": "target", "deletes": [{"q": {}, "limit": 0}]}`)
	ricCheck(t, db, "target", "after delete all from renamed")
}

// TestReviewIndexConsistencyCapped: convertToCapped, then the capped
// collection's own indexes through inserts (with eviction), updates and deletes.
func TestReviewIndexConsistencyCapped(t *testing.T) {
	t.Parallel()
	db, _ := ricSetup(t, 150, false)
	if _, err := run(t, db, "test", `{"convertToCapped": "c", "size": 200000}`); err != nil {
		t.Fatalf("convertToCapped: %v", err)
	}
	r := mustRun(t, db, "test", `{"listIndexes": "c"}`)
	t.Logf("capped indexes: %d", len(firstBatch(t, r)))
	ricCheck(t, db, "c", "after convertToCapped")
	// Indexes created on the capped collection itself.
	if _, err := run(t, db, "test", `{"createIndexes": "c", "indexes": `+ricCappedIndexes+`}`); err != nil {
		t.Errorf("createIndexes on capped: %v", err)
	}
	ricCheck(t, db, "c", "after createIndexes on capped")
	for i := 0; i < 6; i++ {
		if _, err := run(t, db, "test", `{"insert": "c", "documents": [`+ricDocs(1000+i*100, 1100+i*100)+`]}`); err != nil {
			t.Errorf("insert %d: %v", i, err)
		}
	}
	ricCheck(t, db, "c", "after inserts evicting")
	run(t, db, "test", `{"update": "c", "updates": [{"q": {}, "u": {"$set": {"lang": "french", "pf": false, "a": 1, "t": "same size"}}, "multi": true}]}`)
	ricCheck(t, db, "c", "after update")
	run(t, db, "test", `{"delete": "c", "deletes": [{"q": {"a": 1}, "limit": 0}]}`)
	ricCheck(t, db, "c", "after delete")
}

// TestReviewIndexConsistencyCappedCreate: a capped collection created with
// indexes, filled past its size so it evicts.
func TestReviewIndexConsistencyCappedCreate(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "capped": true, "size": 100000, "max": 120}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": `+ricCappedIndexes+`}`)
	for i := 0; i < 5; i++ {
		if _, err := run(t, db, "test", `{"insert": "c", "documents": [`+ricDocs(i*100, i*100+100)+`]}`); err != nil {
			t.Errorf("insert %d: %v", i, err)
		}
		ricCheck(t, db, "c", fmt.Sprintf("after insert %d", i))
	}
	mustRun(t, db, "test", `{"insert": "c", "ordered": false, "documents": [`+ricDoc(9000)+`,`+strings.Replace(ricDoc(9001), `"u": 9001`, `"u": 9000`, 1)+`,`+ricDoc(9002)+`]}`+"")
	ricCheck(t, db, "c", "after insert with dup")
}

// TestReviewIndexConsistencyTimeseries: a time-series collection's meta
// indexes through inserts, meta updates, deletes and a TTL pass.
func TestReviewIndexConsistencyTimeseries(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "at", "metaField": "m"}, "expireAfterSeconds": 3600}`)
	for _, ix := range []string{
		`{"key": {"m.tag": 1}, "name": "tag"}`,
		`{"key": {"m.tag": 1, "at": -1}, "name": "tag_at"}`,
		`{"key": {"m.loc": "2dsphere"}, "name": "mgeo"}`,
		`{"key": {"m.arr": 1}, "name": "marr"}`,
		`{"key": {"m.h": "hashed"}, "name": "mhash"}`,
		`{"key": {"m.p": 1}, "name": "mpart", "partialFilterExpression": {"m.pf": true}}`,
		`{"key": {"m.$**": 1}, "name": "mwild"}`,
		`{"key": {"v": 1}, "name": "v"}`,
	} {
		if _, err := run(t, db, "test", `{"createIndexes": "ts", "indexes": [`+ix+`]}`); err != nil {
			t.Logf("ts index %s: %v", ix, err)
		}
	}
	var ds []string
	for i := 0; i < 300; i++ {
		at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		ds = append(ds, fmt.Sprintf(`{"at": {"$date": %q}, "m": {"tag": "t%d", "loc": {"type": "Point", "coordinates": [%d, 1]}, "arr": [%d, %d], "h": %d, "p": %d, "pf": %t}, "v": %d}`,
			at, i%5, i%5, i%5, i%3, i%5, i%5, i%2 == 0, i))
	}
	mustRun(t, db, "test", `{"insert": "ts", "documents": [`+strings.Join(ds, ",")+`]}`)
	tsQ := func(step string) {
		t.Helper()
		r := mustRun(t, db, "test", `{"validate": "ts"}`)
		if field(r, "valid") != true {
			t.Errorf("%s: validate ts: %v", step, field(r, "errors"))
		}
		for _, q := range [][2]string{{`{"m.tag": "t1"}`, `"tag"`}, {`{"m.tag": {"$gte": "t"}, "at": {"$gte": {"$date": "2000-01-01T00:00:00Z"}}}`, `"tag_at"`},
			{`{"m.arr": {"$gte": 1}}`, `"marr"`}, {`{"m.h": 2}`, `"mhash"`}, {`{"m.p": {"$gte": 0}, "m.pf": true}`, `"mpart"`}, {`{"m.tag": {"$gte": ""}}`, `"mwild"`},
			{`{"m.loc": {"$geoWithin": {"$centerSphere": [[2, 1], 0.1]}}}`, `"mgeo"`}} {
			base := `{"find": "ts", "filter": ` + q[0] + `, "batchSize": 100000, "projection": {"v": 1}, "hint": `
			ix, err := ricTSVals(t, db, base+q[1]+`}`)
			if err != nil {
				if !strings.Contains(err.Error(), "hint provided does not correspond") {
					t.Errorf("%s: %s: %v", step, q[0], err)
				}
				continue
			}
			nat, _ := ricTSVals(t, db, base+`{"$natural": 1}}`)
			if fmt.Sprint(ix) != fmt.Sprint(nat) {
				t.Errorf("%s: %s: hint %s %d docs, $natural %d docs", step, q[0], q[1], len(ix), len(nat))
			}
		}
	}
	tsQ("after insert")
	run(t, db, "test", `{"update": "ts", "updates": [{"q": {"m.tag": "t1"}, "u": {"$set": {"m.tag": "t9", "m.pf": false, "m.arr": [7, 8, 9]}}, "multi": true}]}`)
	tsQ("after meta update")
	run(t, db, "test", `{"update": "ts", "updates": [{"q": {"m.tag": "t2"}, "u": {"$unset": {"m.loc": 1}, "$set": {"m.pf": true}}, "multi": true}]}`)
	tsQ("after meta unset")
	run(t, db, "test", `{"delete": "ts", "deletes": [{"q": {"m.tag": "t3"}, "limit": 0}]}`)
	tsQ("after meta delete")
	if _, err := run(t, db, "test", `{"delete": "ts", "deletes": [{"q": {"v": {"$lt": 50}}, "limit": 0}]}`); err != nil {
		t.Logf("measurement delete: %v", err)
	}
	tsQ("after measurement delete")
	clk.Advance(2 * time.Hour)
	ttlPass(t, db)
	tsQ("after TTL pass")
}

func ricTSVals(t *testing.T, db *DB, cmd string) ([]string, error) {
	r, err := run(t, db, "test", cmd)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range firstBatch(t, r) {
		v, _ := get(d, "v")
		out = append(out, fmt.Sprint(v))
	}
	sort.Strings(out)
	return out, nil
}

// TestReviewIndexConsistencyReopen: writes, a reopen, more writes, each
// checked, over a store with a directory.
func TestReviewIndexConsistencyReopen(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTestWith(t, func(*Options) {})
	ricCreate(t, db, "c", 150, false)
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {}, "u": {"$set": {"lang": "french", "pf": true}, "$push": {"arr": 3}}, "multi": true}]}`)
	db = reopen(t, db, dir, clk)
	ricCheck(t, db, "c", "after reopen")
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"a": {"$gte": 2}}, "limit": 0}]}`)
	clk.Advance(2 * time.Hour)
	ttlPass(t, db)
	db = reopen(t, db, dir, clk)
	ricCheck(t, db, "c", "after delete, TTL pass and reopen")
}

// (collMod prepareUnique/unique: TestReviewIdx28PrepareUnique.)
// TestReviewIndexConsistencyDDL: indexes built over existing documents,
// collMod (TTL expiry, hidden, a clustered
// collection's expireAfterSeconds), compact and cloneCollectionAsCapped,
// then writes and a TTL pass.
func TestReviewIndexConsistencyDDL(t *testing.T) {
	t.Parallel()
	for _, clustered := range []bool{false, true} {
		for _, set := range [][2]string{{"all", ricIndexes}, {"plain", ricPlainIndexes}} {
			t.Run(fmt.Sprint(set[0], "/clustered=", clustered), func(t *testing.T) {
				t.Parallel()
				db, clk := openMem(t)
				if clustered {
					mustRun(t, db, "test", `{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
				}
				mustRun(t, db, "test", `{"insert": "c", "documents": [`+ricDocs(0, 250)+`]}`)
				mustRun(t, db, "test", `{"createIndexes": "c", "indexes": `+set[1]+`}`)
				ricCheck(t, db, "c", "after building over documents")
				for _, cmd := range []string{
					`{"collMod": "c", "index": {"name": "ttl", "expireAfterSeconds": 7200}}`,
					`{"collMod": "c", "index": {"name": "a", "hidden": true}}`,
					`{"collMod": "c", "expireAfterSeconds": 60}`,
				} {
					if _, err := run(t, db, "test", cmd); err != nil {
						t.Logf("%s: %v", cmd, err)
					}
					ricCheck(t, db, "c", "after "+cmd)
				}
				mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "a", "hidden": false}}`)
				run(t, db, "test", `{"update": "c", "updates": [{"q": {}, "u": {"$set": {"lang": "french", "pf": true}, "$inc": {"a": 1}}, "multi": true}]}`)
				ricCheck(t, db, "c", "after update following collMod")
				clk.Advance(90 * time.Minute)
				ttlPass(t, db)
				ricCheck(t, db, "c", "after TTL pass at 90m")
				clk.Advance(2 * time.Hour)
				ttlPass(t, db)
				ricCheck(t, db, "c", "after TTL pass at 3.5h")
				if _, err := run(t, db, "test", `{"compact": "c"}`); err != nil {
					t.Logf("compact: %v", err)
				}
				ricCheck(t, db, "c", "after compact")
				if _, err := run(t, db, "test", `{"dropIndexes": "c", "index": ["ab", "hash"]}`); err != nil {
					t.Logf("dropIndexes: %v", err)
				}
				mustRun(t, db, "test", `{"insert": "c", "documents": [`+ricDocs(1000, 1150)+`]}`)
				mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": {"$gte": 1000}}, "limit": 0}]}`)
				ricCheck(t, db, "c", "after dropIndexes, insert, delete")
			})
		}
	}
}
