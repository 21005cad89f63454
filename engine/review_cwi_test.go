package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Review tests for compound wildcard indexes (MongoDB 7.0). Each asserts
// what mongod does; see /tmp/s22/cwi-notes.md.

// cwrIDs runs a find (Extended JSON) to exhaustion with getMore and
// returns the _ids in the order returned.
func cwrIDs(t *testing.T, db *DB, find string) []int32 {
	t.Helper()
	var out []int32
	for _, d := range runFind(t, db, "test", ejson(t, find)) {
		id, ok := field(d, "_id").(int32)
		if !ok {
			id = -1 // an upserted ObjectID
		}
		out = append(out, id)
	}
	return out
}

func cwrSorted(ids []int32) []int32 {
	s := slices.Clone(ids)
	slices.Sort(s)
	return s
}

// cwrIxName returns the index name of the winning plan's IXSCANs (all
// of them, for an OR), or "" for a collection scan.
func cwrIxNames(t *testing.T, db *DB, coll, filter string) []string {
	t.Helper()
	r := mustRun(t, db, "test", `{"explain": {"find": "`+coll+`", "filter": `+filter+`}, "verbosity": "queryPlanner"}`)
	var names []string
	var walk func(st bson.D)
	walk = func(st bson.D) {
		if st == nil {
			return
		}
		if s, _ := field(st, "stage").(string); s == "IXSCAN" {
			n, _ := field(st, "indexName").(string)
			names = append(names, n)
		}
		if in, ok := field(st, "inputStage").(bson.D); ok {
			walk(in)
		}
		if ins, ok := field(st, "inputStages").(bson.A); ok {
			for _, x := range ins {
				walk(x.(bson.D))
			}
		}
	}
	wp, _ := field(r, "queryPlanner.winningPlan").(bson.D)
	walk(wp)
	return names
}

// cwrDoc makes a random document for the differential tests: regular
// fields tenant, ts, sub.k single valued (or missing or null), attrs a
// subtree with scalars, arrays, arrays of documents, nested arrays,
// empty documents and arrays.
func cwrDoc(rng *rand.Rand, id int) string {
	fields := []string{fmt.Sprintf(`"_id": %d`, id)}
	switch rng.IntN(10) {
	case 0: // missing
	case 1:
		fields = append(fields, `"tenant": null`)
	case 2:
		fields = append(fields, fmt.Sprintf(`"tenant": %d`, rng.IntN(3)))
	default:
		fields = append(fields, fmt.Sprintf(`"tenant": "t%d"`, rng.IntN(3)))
	}
	if rng.IntN(6) != 0 {
		fields = append(fields, fmt.Sprintf(`"ts": %d`, rng.IntN(20)))
	}
	if rng.IntN(3) == 0 {
		fields = append(fields, fmt.Sprintf(`"sub": {"k": %d}`, rng.IntN(4)))
	}
	if rng.IntN(4) == 0 {
		fields = append(fields, fmt.Sprintf(`"other": {"x": %d}`, rng.IntN(4)))
	}
	switch rng.IntN(10) {
	case 0: // missing
	case 1:
		fields = append(fields, `"attrs": {}`)
	case 2:
		fields = append(fields, `"attrs": null`)
	case 3:
		fields = append(fields, fmt.Sprintf(`"attrs": %d`, rng.IntN(5)))
	case 4:
		fields = append(fields, fmt.Sprintf(`"attrs": [{"color": "c%d"}, {"size": %d}, 7]`, rng.IntN(3), rng.IntN(10)))
	default:
		var a []string
		if rng.IntN(3) != 0 {
			switch rng.IntN(6) {
			case 0:
				a = append(a, `"color": null`)
			case 1:
				a = append(a, `"color": {}`)
			case 2:
				a = append(a, `"color": {"shade": "dark"}`)
			default:
				a = append(a, fmt.Sprintf(`"color": "c%d"`, rng.IntN(4)))
			}
		}
		if rng.IntN(3) != 0 {
			if rng.IntN(3) == 0 {
				a = append(a, fmt.Sprintf(`"size": %d.5`, rng.IntN(10)))
			} else {
				a = append(a, fmt.Sprintf(`"size": %d`, rng.IntN(10)))
			}
		}
		switch rng.IntN(5) {
		case 0:
			a = append(a, `"tags": []`)
		case 1:
			a = append(a, fmt.Sprintf(`"tags": ["t%d", "t%d"]`, rng.IntN(3), rng.IntN(3)))
		case 2:
			a = append(a, fmt.Sprintf(`"tags": [["t%d"], "t%d"]`, rng.IntN(3), rng.IntN(3)))
		}
		if rng.IntN(3) == 0 {
			a = append(a, fmt.Sprintf(`"items": [{"k": %d}, {"k": %d, "v": "x"}, {}]`, rng.IntN(4), rng.IntN(4)))
		}
		if rng.IntN(4) == 0 {
			a = append(a, fmt.Sprintf(`"n": {"m": %d}`, rng.IntN(4)))
		}
		fields = append(fields, `"attrs": {`+strings.Join(a, ", ")+`}`)
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

// cwrFilter makes a random filter over the fields of cwrDoc.
func cwrFilter(rng *rand.Rand) string {
	conds := map[string][]string{
		"tenant": {`"t1"`, `{"$in": ["t0", "t2"]}`, `{"$gt": "t0"}`, `null`, `{"$exists": true}`, `1`, `{"$in": ["t1", null]}`, `{"$gte": 0}`, `{"$ne": "t1"}`},
		"ts":     {`5`, `{"$gt": 10}`, `{"$lte": 4}`, `{"$in": [1, 2, 3]}`, `null`, `{"$exists": false}`},
		"sub.k":  {`1`, `{"$gte": 2}`, `null`},
		"attrs.color": {`"c1"`, `{"$in": ["c0", "c2"]}`, `null`, `{"$exists": false}`, `{"$exists": true}`, `{"$gte": "c1"}`,
			`{}`, `{"shade": "dark"}`, `{"$in": ["c3", {}]}`},
		"attrs.size":    {`4`, `{"$gte": 5}`, `{"$lt": 3.5}`, `{"$in": [1, 2.5]}`},
		"attrs.tags":    {`"t1"`, `["t1"]`, `[]`, `{"$all": ["t0", "t1"]}`, `{"$size": 0}`},
		"attrs.items.k": {`2`, `{"$gt": 1}`, `null`},
		"attrs.n.m":     {`3`, `{"$lt": 2}`},
		"attrs":         {`{}`, `{"$exists": true}`, `null`, `3`},
		"other.x":       {`1`, `{"$gte": 2}`},
		"attrs.items":   {`{"$elemMatch": {"k": 1}}`},
		"attrs.tags.0":  {`"t1"`},
	}
	keys := make([]string, 0, len(conds))
	for k := range conds {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	pick := func() string {
		var parts []string
		n := 1 + rng.IntN(3)
		for i := 0; i < n; i++ {
			k := keys[rng.IntN(len(keys))]
			if rng.IntN(2) == 0 {
				k = []string{"tenant", "attrs.color", "attrs.size", "ts"}[rng.IntN(4)]
			}
			c := conds[k]
			parts = append(parts, fmt.Sprintf(`"%s": %s`, k, c[rng.IntN(len(c))]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	f := pick()
	if rng.IntN(6) == 0 {
		return `{"$or": [` + pick() + `, ` + pick() + `]}`
	}
	if rng.IntN(8) == 0 {
		return `{"$and": [` + f + `, {"$or": [` + pick() + `, ` + pick() + `]}]}`
	}
	return f
}

var cwrIndexes = []struct{ name, spec string }{
	{"pre_wild_post", `{"key": {"tenant": 1, "attrs.$**": 1, "ts": -1}, "name": "cwi"}`},
	{"wild_first", `{"key": {"attrs.$**": 1, "tenant": 1}, "name": "cwi"}`},
	{"all_first", `{"key": {"$**": 1, "tenant": 1}, "name": "cwi", "wildcardProjection": {"tenant": 0}}`},
	{"all_mid", `{"key": {"tenant": 1, "$**": 1, "ts": -1}, "name": "cwi", "wildcardProjection": {"tenant": 0, "ts": 0}}`},
	{"two_pre", `{"key": {"tenant": 1, "sub.k": 1, "attrs.$**": 1}, "name": "cwi"}`},
	{"desc_pre", `{"key": {"ts": -1, "attrs.$**": 1}, "name": "cwi"}`},
	{"incl_proj", `{"key": {"$**": 1, "tenant": 1}, "name": "cwi", "wildcardProjection": {"attrs": 1, "other": 1}}`},
	{"incl_proj_mid", `{"key": {"ts": -1, "$**": 1, "tenant": 1}, "name": "cwi", "wildcardProjection": {"attrs.color": 1, "attrs.items": 1, "sub": 1}}`},
}

// Differential: for random documents and filters, every compound
// wildcard index shape answers each find, count and distinct exactly as
// a collection scan does (no document lost, none twice).
func TestReviewCWIDifferential(t *testing.T) {
	t.Parallel()
	for ii, ixc := range cwrIndexes {
		t.Run(ixc.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(ii)+100, 7))
			var docs []string
			for i := 0; i < 200; i++ {
				docs = append(docs, cwrDoc(rng, i))
			}
			db, _ := openMem(t)
			loadCorpus(t, db, "test", "c", docs)
			mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [`+ixc.spec+`]}`)
			used := 0
			for q := 0; q < 120; q++ {
				filter := cwrFilter(rng)
				want := cwrIDs(t, db, `{"find": "c", "filter": `+filter+`, "hint": {"$natural": 1}, "batchSize": 1000}`)
				got := cwrIDs(t, db, `{"find": "c", "filter": `+filter+`, "batchSize": 7}`)
				if slices.Contains(cwrIxNames(t, db, "c", filter), "cwi") {
					used++
				}
				if !slices.Equal(cwrSorted(got), cwrSorted(want)) {
					t.Errorf("%s: index plan %v; collection scan %v (explain %v)", filter, cwrSorted(got), cwrSorted(want), cwrIxNames(t, db, "c", filter))
					continue
				}
				r := mustRun(t, db, "test", `{"count": "c", "query": `+filter+`}`)
				if n := field(r, "n"); n != int32(len(want)) {
					t.Errorf("%s: count %v, want %d", filter, n, len(want))
				}
				// Sorted, skipped and limited reads.
				w2 := cwrIDs(t, db, `{"find": "c", "filter": `+filter+`, "sort": {"_id": -1}, "hint": {"$natural": 1}, "skip": 2, "limit": 5}`)
				g2 := cwrIDs(t, db, `{"find": "c", "filter": `+filter+`, "sort": {"_id": -1}, "skip": 2, "limit": 5, "batchSize": 2}`)
				if !slices.Equal(w2, g2) {
					t.Errorf("%s sort/skip/limit: index plan %v, scan %v", filter, g2, w2)
				}
				r = mustRun(t, db, "test", `{"distinct": "c", "key": "ts", "query": `+filter+`}`)
				r2 := mustRun(t, db, "test", `{"distinct": "c", "key": "ts", "query": `+filter+`, "hint": {"$natural": 1}}`)
				if fmt.Sprint(field(r, "values")) != fmt.Sprint(field(r2, "values")) {
					t.Errorf("%s distinct: %v vs %v", filter, field(r, "values"), field(r2, "values"))
				}
			}
			if used < 10 {
				t.Errorf("the compound wildcard index answered only %d filters of 120", used)
			}
			mustValidate(t, db, "test", "c")
		})
	}
}

// A regular field whose path goes through an array of documents
// ({"a.b": 1} over {a: [{b: 1}]}) is multikey: mongod refuses such a
// document in a compound wildcard index (its regular fields must be
// single key). Either refusal or an index read that finds the document
// would do; ttlkv must not keep it under a.b = null and lose it.
func TestReviewCWIRegularFieldThroughArray(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a.b": 1, "w.$**": 1}, "name": "cwi"}]}`)
	r, err := run(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": [{"b": 1}], "w": {"x": 1}}, {"_id": 2, "a": [{"b": 1}, {"b": 2}]}]}`)
	if err != nil || field(r, "writeErrors") != nil {
		return // refused, as mongod
	}
	for _, f := range []string{`{"a.b": 1, "w.x": 1}`, `{"a.b": 1}`, `{"a.b": 2}`} {
		want := cwrIDs(t, db, `{"find": "c", "filter": `+f+`, "hint": {"$natural": 1}}`)
		got := cwrIDs(t, db, `{"find": "c", "filter": `+f+`}`)
		if !slices.Equal(cwrSorted(got), cwrSorted(want)) {
			t.Errorf("%s: index plan (%v) finds %v; collection scan %v", f, cwrIxNames(t, db, "c", f), got, want)
		}
	}
}

// Same, for an index built over documents already there: the build
// must fail (mongod) or key the document where a query finds it.
func TestReviewCWIBuildOverRegularFieldThroughArray(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": [{"b": 1}], "w": {"x": 1}}`})
	if _, err := run(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a.b": 1, "w.$**": 1}, "name": "cwi"}]}`); err != nil {
		return
	}
	got := cwrIDs(t, db, `{"find": "c", "filter": {"a.b": 1, "w.x": 1}}`)
	if !slices.Equal(got, []int32{1}) {
		t.Errorf("index plan (%v) finds %v; want [1]", cwrIxNames(t, db, "c", `{"a.b": 1, "w.x": 1}`), got)
	}
}

// A regular field holding an array is refused on insert, update
// (the document unchanged) and at index build, as mongod does.
func TestReviewCWIRegularArrayRefused(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "tenant": "t", "attrs": {"x": 1}}`, `{"_id": 2, "tenant": ["a"]}`})
	if _, err := run(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"tenant": 1, "attrs.$**": 1}, "name": "cwi"}]}`); err == nil {
		t.Fatalf("index built over a document whose regular field is an array")
	}
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": 2}, "limit": 1}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"tenant": 1, "attrs.$**": 1}, "name": "cwi"}]}`)
	wantWriteError(t, db, `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"tenant": []}}}]}`, 133, "")
	if got := cwrIDs(t, db, `{"find": "c", "filter": {"tenant": "t", "attrs.x": 1}}`); !slices.Equal(got, []int32{1}) {
		t.Fatalf("after a refused update: %v", got)
	}
	mustValidate(t, db, "test", "c")
}

// Explain of the generic scan: mongod's bounds for $_path are
// ["[MinKey, MinKey]", "[\"\", {})"] and the keyPattern has $_path in the
// wildcard's slot (notes §7).
func TestReviewCWIExplainGeneric(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b.$**": 1, "c": 1}, "name": "a_1_b.$**_1_c_1"}]}`)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": 1, "b": {"x": 1}, "c": 1}`})
	r := mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"a": 1}}, "verbosity": "queryPlanner"}`)
	ix, _ := field(r, "queryPlanner.winningPlan.inputStage").(bson.D)
	kp := fmt.Sprint(field(ix, "keyPattern"))
	if kp != fmt.Sprint(bson.D{{Key: "a", Value: int32(1)}, {Key: "$_path", Value: int32(1)}, {Key: "c", Value: int32(1)}}) {
		t.Errorf("keyPattern %s", kp)
	}
	pb := fmt.Sprint(field(ix, "indexBounds.$_path"))
	if pb != fmt.Sprint(bson.A{"[MinKey, MinKey]", `["", {})`}) {
		t.Errorf("$_path bounds %s, want [[MinKey, MinKey] [\"\", {})]", pb)
	}
	// Non-generic: {a:1, $_path:1, b.x:1, c:1}.
	r = mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"a": 1, "b.x": {"$gt": 0}}}, "verbosity": "queryPlanner"}`)
	ix, _ = field(r, "queryPlanner.winningPlan.inputStage").(bson.D)
	kp = fmt.Sprint(field(ix, "keyPattern"))
	if kp != fmt.Sprint(bson.D{{Key: "a", Value: int32(1)}, {Key: "$_path", Value: int32(1)}, {Key: "b.x", Value: int32(1)}, {Key: "c", Value: int32(1)}}) {
		t.Errorf("keyPattern %s", kp)
	}
	if b := fmt.Sprint(field(ix, "indexBounds.$_path")); b != fmt.Sprint(bson.A{`["b.x", "b.x"]`}) {
		t.Errorf("$_path bounds %s", b)
	}
}

// Explain of a descending regular field: mongod shows an unbounded
// descending field's bounds as "[MaxKey, MinKey]" on a forward scan.
func TestReviewCWIExplainDescendingBounds(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"tenant": 1, "attrs.$**": 1, "ts": -1}, "name": "cwi"}, {"key": {"p": 1, "q": -1}, "name": "pq"}]}`)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "tenant": "a", "attrs": {"x": 1}, "ts": 1}`})
	r := mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"tenant": "a", "attrs.x": 1}}, "verbosity": "queryPlanner"}`)
	cw := fmt.Sprint(field(r, "queryPlanner.winningPlan.inputStage.indexBounds.ts"))
	r = mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"p": 1}}, "verbosity": "queryPlanner"}`)
	reg := fmt.Sprint(field(r, "queryPlanner.winningPlan.inputStage.indexBounds.q"))
	if cw != reg {
		t.Errorf("descending field unbounded: compound wildcard shows %s, a regular compound index %s", cw, reg)
	}
	if cw != fmt.Sprint(bson.A{"[MaxKey, MinKey]"}) {
		t.Logf("note: descending unbounded field shows %s (mongod: [MaxKey, MinKey]); same as ttlkv's regular indexes: %v", cw, cw == reg)
	}
}

// Writes through the index: update (multi, changing the regular field
// and the wildcard leaves), delete, findAndModify, upsert; then every
// read agrees with a scan and validate passes.
func TestReviewCWIWrites(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	var docs []string
	for i := 0; i < 150; i++ {
		docs = append(docs, cwrDoc(rng, i))
	}
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", docs)
	loadCorpus(t, db, "test", "s", docs)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"tenant": 1, "attrs.$**": 1, "ts": -1}, "name": "cwi"}]}`)
	ops := []string{
		`{"update": "%s", "updates": [{"q": {"tenant": "t1", "attrs.size": {"$gte": 3}, "attrs": {"$not": {"$type": "array"}}}, "u": {"$set": {"tenant": "t2", "attrs.size": 100}}, "multi": true}]}`,
		`{"update": "%s", "updates": [{"q": {"tenant": "t0"}, "u": {"$unset": {"attrs": 1}}, "multi": true}]}`,
		`{"update": "%s", "updates": [{"q": {"tenant": "t2", "ts": {"$gt": 10}}, "u": {"$unset": {"tenant": 1, "ts": 1}}, "multi": true}]}`,
		`{"delete": "%s", "deletes": [{"q": {"tenant": "t2", "attrs.color": "c1"}, "limit": 0}]}`,
		`{"findAndModify": "%s", "query": {"tenant": "t1", "attrs.tags": "t2", "attrs": {"$type": "object"}}, "sort": {"_id": 1}, "update": {"$push": {"attrs.tags": "t9"}}}`,
		`{"findAndModify": "%s", "query": {"attrs.size": 100}, "sort": {"_id": -1}, "remove": true}`,
		`{"update": "%s", "updates": [{"q": {"tenant": "t7", "attrs.color": "c7"}, "u": {"$set": {"ts": 3}}, "upsert": true}]}`,
		`{"update": "%s", "updates": [{"q": {"tenant": "t7", "attrs.color": "c7"}, "u": {"$set": {"attrs.more": [1, 2]}}, "upsert": true}]}`,
		`{"update": "%s", "updates": [{"q": {"tenant": {"$in": ["t0", "t1"]}, "attrs": {"$type": "object"}}, "u": {"$set": {"attrs.items": [{"k": 9}]}}, "multi": true}]}`,
	}
	for _, op := range ops {
		a := mustRun(t, db, "test", fmt.Sprintf(op, "c"))
		b := mustRun(t, db, "test", fmt.Sprintf(op, "s"))
		da := fmt.Sprint(runFind(t, db, "test", ejson(t, `{"find": "c", "filter": {"_id": {"$type": "int"}}, "sort": {"_id": 1}, "hint": {"$natural": 1}}`)))
		dbb := fmt.Sprint(runFind(t, db, "test", ejson(t, `{"find": "s", "filter": {"_id": {"$type": "int"}}, "sort": {"_id": 1}, "hint": {"$natural": 1}}`)))
		if da != dbb {
			t.Errorf("after %s the collections differ", op)
			for _, id := range []int{43, 116} {
				t.Logf("%d: %v | %v", id, runFind(t, db, "test", ejson(t, fmt.Sprintf(`{"find": "c", "filter": {"_id": %d}}`, id))), runFind(t, db, "test", ejson(t, fmt.Sprintf(`{"find": "s", "filter": {"_id": %d}}`, id))))
			}
		}
		for _, k := range []string{"n", "nModified", "value._id", "lastErrorObject.n"} {
			if fmt.Sprint(field(a, k)) != fmt.Sprint(field(b, k)) {
				t.Errorf("%s: %s %v through the index, %v through a scan", op, k, field(a, k), field(b, k))
			}
		}
	}
	for _, f := range []string{`{"tenant": "t2"}`, `{"tenant": "t7", "attrs.color": "c7"}`, `{"attrs.size": 100}`, `{"attrs.items.k": 9}`,
		`{"tenant": "t1", "attrs.tags": "t9"}`, `{"attrs.more": 2}`, `{"tenant": {"$in": ["t0", "t1", "t2"]}}`, `{"ts": {"$gt": 10}, "tenant": "t2"}`} {
		want := cwrIDs(t, db, `{"find": "s", "filter": `+f+`, "sort": {"_id": 1}}`)
		got := cwrIDs(t, db, `{"find": "c", "filter": `+f+`, "sort": {"_id": 1}}`)
		if !slices.Equal(got, want) {
			t.Errorf("%s: index %v, scan %v", f, got, want)
		}
	}
	mustValidate(t, db, "test", "c")
}

// Hidden, hinted and dropped compound wildcard indexes.
func TestReviewCWIHiddenHintDrop(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": 1, "b": {"x": 1}, "c": 1}`, `{"_id": 2, "a": 1, "c": 2}`, `{"_id": 3, "z": 1}`})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b.$**": 1, "c": 1}, "name": "cw"}]}`)
	if n := cwrIxNames(t, db, "c", `{"a": 1}`); !slices.Equal(n, []string{"cw"}) {
		t.Fatalf("plan %v", n)
	}
	// Hint by key pattern and by name.
	for _, h := range []string{`"cw"`, `{"a": 1, "b.$**": 1, "c": 1}`} {
		if got := cwrIDs(t, db, `{"find": "c", "filter": {"a": 1}, "hint": `+h+`, "sort": {"_id": 1}}`); !slices.Equal(got, []int32{1, 2}) {
			t.Errorf("hint %s: %v", h, got)
		}
		if got := cwrIDs(t, db, `{"find": "c", "filter": {"b.x": 1}, "hint": `+h+`}`); !slices.Equal(got, []int32{1}) {
			t.Errorf("hint %s on b.x: %v", h, got)
		}
	}
	mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "cw", "hidden": true}}`)
	if n := cwrIxNames(t, db, "c", `{"a": 1}`); len(n) != 0 {
		t.Errorf("hidden index used: %v", n)
	}
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": 1}, "hint": "cw"}`, 2, "")
	mustRun(t, db, "test", `{"collMod": "c", "index": {"keyPattern": {"a": 1, "b.$**": 1, "c": 1}, "hidden": false}}`)
	if n := cwrIxNames(t, db, "c", `{"a": 1}`); !slices.Equal(n, []string{"cw"}) {
		t.Errorf("unhidden: plan %v", n)
	}
	mustRun(t, db, "test", `{"dropIndexes": "c", "index": {"a": 1, "b.$**": 1, "c": 1}}`)
	if n := cwrIxNames(t, db, "c", `{"a": 1}`); len(n) != 0 {
		t.Errorf("dropped index used: %v", n)
	}
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b.$**": 1, "c": 1}, "name": "cw"}]}`)
	mustRun(t, db, "test", `{"dropIndexes": "c", "index": "cw"}`)
	mustValidate(t, db, "test", "c")
}

// Restart: the index, its keys and its plans survive a reopen.
func TestReviewCWIRestart(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"tenant": 1, "$**": 1}, "name": "cw", "wildcardProjection": {"tenant": 0, "_id": 0}}]}`)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "tenant": "a", "x": {"y": 1}}`, `{"_id": 2, "tenant": "a"}`, `{"_id": 3, "x": {"y": [1, 2]}}`})
	db = reopen(t, db, dir, clk)
	lr := fmt.Sprint(firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "c"}`)))
	if !strings.Contains(lr, `wildcardProjection`) {
		t.Errorf("listIndexes after reopen: %s", lr)
	}
	if got := cwrIDs(t, db, `{"find": "c", "filter": {"tenant": "a"}, "sort": {"_id": 1}}`); !slices.Equal(got, []int32{1, 2}) {
		t.Errorf("tenant a: %v", got)
	}
	if got := cwrIDs(t, db, `{"find": "c", "filter": {"x.y": 1}, "sort": {"_id": 1}}`); !slices.Equal(got, []int32{1, 3}) {
		t.Errorf("x.y 1: %v", got)
	}
	if n := cwrIxNames(t, db, "c", `{"x.y": 1}`); !slices.Equal(n, []string{"cw"}) {
		t.Errorf("plan %v", n)
	}
	mustValidate(t, db, "test", "c")
}

// Collation on the index: strings of regular fields and of wildcard
// values are compared under it, $_path is not.
func TestReviewCWICollation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	docs := []string{
		`{"_id": 1, "tenant": "ACME", "attrs": {"color": "Red"}}`,
		`{"_id": 2, "tenant": "acme", "attrs": {"color": "red"}}`,
		`{"_id": 3, "tenant": "Other", "attrs": {"color": "RED", "Size": 1}}`,
		`{"_id": 4, "tenant": "acme"}`,
		`{"_id": 5, "tenant": "acmé", "attrs": {"size": 1}}`,
	}
	loadCorpus(t, db, "test", "c", docs)
	loadCorpus(t, db, "test", "s", docs)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"tenant": 1, "attrs.$**": 1}, "name": "cw", "collation": {"locale": "en", "strength": 2}}]}`)
	for _, coll := range []string{``, `, "collation": {"locale": "en", "strength": 2}`, `, "collation": {"locale": "en", "strength": 1}`} {
		for _, f := range []string{`{"tenant": "acme"}`, `{"attrs.color": "RED"}`, `{"tenant": "ACME", "attrs.color": "red"}`, `{"tenant": {"$gte": "a", "$lt": "b"}}`,
			`{"attrs.size": 1}`, `{"attrs.Size": 1}`, `{"tenant": "acme", "attrs.size": {"$gte": 0}}`} {
			want := cwrIDs(t, db, `{"find": "s", "filter": `+f+`, "sort": {"_id": 1}`+coll+`}`)
			got := cwrIDs(t, db, `{"find": "c", "filter": `+f+`, "sort": {"_id": 1}`+coll+`}`)
			if !slices.Equal(got, want) {
				t.Errorf("%s%s: index %v, scan %v", f, coll, got, want)
			}
		}
	}
	mustValidate(t, db, "test", "c")
}

// mongod's compound_wildcard_index_count.js: a document with many leaves
// counts once through the index.
func TestReviewCWICountDedup(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"obj.obj.date": -1, "obj.obj.obj.$**": 1}, "name": "cw"}]}`)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "obj": {"obj": {"date": {"$date": "2019-10-01T00:00:00Z"}, "obj": {"a": 1, "b": [1, 2, 3], "c": null, "d": [], "e": {"f": [{"g": 1}, {"g": 2}]}}}}}`})
	f := `{"obj.obj.date": {"$lte": {"$date": "2019-10-06T22:12:37.493Z"}}}`
	if r := mustRun(t, db, "test", `{"count": "c", "query": `+f+`}`); field(r, "n") != int32(1) {
		t.Errorf("count %v", field(r, "n"))
	}
	r := mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$match": `+f+`}, {"$count": "n"}], "cursor": {}}`)
	if b := firstBatch(t, r); len(b) != 1 || field(b[0], "n") != int32(1) {
		t.Errorf("$count %v", b)
	}
	if n := cwrIxNames(t, db, "c", f); !slices.Equal(n, []string{"cw"}) {
		t.Errorf("plan %v", n)
	}
}

// mongod's compound_wildcard_index_residual.js (8h): null, $exists:false,
// $not, $nin on a wildcard path with the prefix bounded.
func TestReviewCWIResidual(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b.$**": 1, "c": 1}, "name": "cw"}]}`)
	loadCorpus(t, db, "test", "c", []string{
		`{"_id": 1, "a": 1, "b": {"x": 1}, "c": 1}`, `{"_id": 2, "a": 1, "b": {"x": -5}, "c": 1}`, `{"_id": 3, "a": 1, "b": {"x": null}, "c": 1}`,
		`{"_id": 4, "a": 1, "b": null, "c": 1}`, `{"_id": 5, "a": 1, "c": 1}`, `{"_id": 6, "a": 2, "c": 1}`, `{"_id": 7, "a": 1, "b": {"x": 1}}`,
		`{"_id": 8, "a": 1, "b": {"x": 1}, "c": null}`,
		`{"_id": 9, "a": 3, "b": {"c": 1}, "c": 1}`, `{"_id": 10, "a": 3, "b": {"c": {"nested": 1}}, "c": 1}`, `{"_id": 11, "a": 3, "b": {"c": {}}, "c": 1}`,
		`{"_id": 12, "a": 3, "b": {"c": null}, "c": 1}`, `{"_id": 13, "a": 3, "b": {"c": [{"d": 1}]}, "c": 1}`})
	for _, tc := range []struct {
		f    string
		want []int32
	}{
		{`{"a": 1, "b.x": null, "c": 1}`, []int32{3, 4, 5}},
		{`{"a": 1, "b.x": {"$gte": null}, "c": 1}`, []int32{3, 4, 5}},
		{`{"a": 1, "b.x": {"$in": [null, 1]}, "c": 1}`, []int32{1, 3, 4, 5}},
		{`{"a": 1, "b.x": {"$not": {"$gt": 0}}, "c": 1}`, []int32{2, 3, 4, 5}},
		{`{"a": 1, "b.x": {"$exists": false}, "c": 1}`, []int32{4, 5}},
		{`{"a": 1, "b.x": {"$nin": [1, 5]}, "c": 1}`, []int32{2, 3, 4, 5}},
		{`{"a": 3, "b.c": {"$exists": true}, "c": {"$lt": 3}}`, []int32{9, 10, 11, 12, 13}},
		{`{"a": 3, "b.c": {"$type": "object"}}`, []int32{10, 11, 13}},
		{`{"a": 3, "b.c": {}}`, []int32{11}},
		{`{"a": 3, "b.c": {"$gte": {}}}`, []int32{10, 11, 13}},
		{`{"a": 3, "b.c": {"nested": 1}}`, []int32{10}},
		{`{"a": 3, "b.c.d": 1}`, []int32{13}},
		{`{"b.c": {}}`, []int32{11}},
		{`{"b.c": {"$in": [{}, 1]}}`, []int32{9, 11}},
	} {
		got := cwrIDs(t, db, `{"find": "c", "filter": `+tc.f+`, "sort": {"_id": 1}}`)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v (plan %v)", tc.f, got, tc.want, cwrIxNames(t, db, "c", tc.f))
		}
	}
}

// $or branches, each through the compound wildcard index (mongod's
// compound_wildcard_index_or.js).
func TestReviewCWIOr(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"num": 1, "sub.$**": 1}, "name": "num_1_sub.$**_1"}, {"key": {"sub.$**": 1, "num": 1}, "name": "sub.$**_1_num_1"}, {"key": {"str": 1, "sub.$**": 1}, "name": "str_1_sub.$**_1"}]}`)
	loadCorpus(t, db, "test", "c", []string{
		`{"_id": 1, "num": 1, "sub": {"num": 1, "str": "aa"}, "str": "1"}`,
		`{"_id": 2, "num": 2, "sub": {"num": 2, "str": "bb"}, "str": "2"}`,
		`{"_id": 3, "num": 3, "sub": {"num": 3, "str": "cc"}, "str": "3"}`,
		`{"_id": 4, "sub": {"num": 5, "str": "aa"}}`,
		`{"_id": 5, "num": 0, "str": "1"}`})
	for _, tc := range []struct {
		f    string
		want []int32
	}{
		{`{"$or": [{"num": {"$gte": 1}}, {"sub.str": "aa"}]}`, []int32{1, 2, 3, 4}},
		{`{"$or": [{"$and": [{"num": 1}, {"sub.num": {"$gt": 4}}]}, {"str": "1", "sub.num": {"$lt": 10}}]}`, []int32{1}},
		{`{"$or": [{"num": 0}, {"sub.num": 5}]}`, []int32{4, 5}},
		{`{"$or": [{"str": "1"}, {"sub.num": {"$gte": 2}}]}`, []int32{1, 2, 3, 4, 5}},
	} {
		got := cwrIDs(t, db, `{"find": "c", "filter": `+tc.f+`, "batchSize": 1}`)
		if !slices.Equal(cwrSorted(got), tc.want) {
			t.Errorf("%s: %v, want %v (plan %v)", tc.f, got, tc.want, cwrIxNames(t, db, "c", tc.f))
		}
	}
}

// mongod's compound_wildcard_index_prefix.js: queries on the leading
// regular fields use the index; on a later regular field alone they do
// not; sorts give the same documents.
func TestReviewCWIPrefix(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b": 1, "sub.$**": 1, "c": 1}, "name": "cw"}]}`)
	var docs []string
	for i := 0; i < 5; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %d, "b": %d, "sub": {"a": %d}, "c": %d}`, i, i, 2*i, i, 3*i))
	}
	loadCorpus(t, db, "test", "c", docs)
	for _, tc := range []struct {
		f   string
		use bool
	}{{`{"a": 1}`, true}, {`{"a": 1, "b": 2}`, true}, {`{"a": 1, "b": {"$gt": 1}}`, true}, {`{"b": 2}`, false}, {`{"c": 3}`, false}} {
		n := cwrIxNames(t, db, "c", tc.f)
		if (len(n) > 0) != tc.use {
			t.Errorf("%s: plan %v, want index used %v", tc.f, n, tc.use)
		}
		for _, s := range []string{`{"a": 1}`, `{"a": 1, "b": 1}`, `{"a": 1, "c": 1}`, `{"c": -1}`} {
			want := cwrIDs(t, db, `{"find": "c", "filter": `+tc.f+`, "sort": `+s+`, "hint": {"$natural": 1}}`)
			got := cwrIDs(t, db, `{"find": "c", "filter": `+tc.f+`, "sort": `+s+`}`)
			if !slices.Equal(got, want) {
				t.Errorf("%s sort %s: %v, want %v", tc.f, s, got, want)
			}
		}
	}
}

// A regular field that is a parent of the wildcard's path
// ({a: 1, "a.b.$**": 1}) is allowed by mongod's one-directional check;
// reads through it agree with a scan.
func TestReviewCWIParentRegularField(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	if _, err := run(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "a.b.$**": 1}, "name": "cw"}]}`); err != nil {
		t.Fatalf("{a: 1, a.b.$**: 1} refused: %v (mongod accepts it)", err)
	}
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": {"b": {"c": 1}}}`, `{"_id": 2, "a": 5}`, `{"_id": 3, "a": {"b": 2}}`, `{"_id": 4, "a": {"b": [1, {"c": 1}]}}`})
	for _, f := range []string{`{"a.b.c": 1}`, `{"a": 5}`, `{"a.b": 2}`, `{"a": {"$gt": 1}}`, `{"a.b": 1}`} {
		want := cwrIDs(t, db, `{"find": "c", "filter": `+f+`, "sort": {"_id": 1}, "hint": {"$natural": 1}}`)
		got := cwrIDs(t, db, `{"find": "c", "filter": `+f+`, "sort": {"_id": 1}}`)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", f, got, want)
		}
	}
	mustValidate(t, db, "test", "c")
}

// mongod accepts a descending wildcard component ({a: 1, "b.$**": -1,
// c: 1}, compound_wildcard_index_validation.js, and {"$**": -1}): its
// values are keyed descending, and reads through it find what a
// collection scan finds.
func TestReviewCWIDescendingWildcard(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b.$**": -1, "c": 1}, "name": "cw"}]}`)
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"$**": -1}, "name": "all"}]}`)
	var docs []string
	for i := 0; i < 60; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %d, "b": {"x": %d, "y": "s%d"}, "c": %d}`, i, i%3, i%7, i%5, i%2))
	}
	for _, coll := range []string{"c", "s", "plain"} {
		loadCorpus(t, db, "test", coll, docs)
	}
	for _, f := range []string{`{"b.x": {"$gte": 3, "$lt": 6}}`, `{"a": 1, "b.x": {"$in": [0, 6]}}`, `{"b.y": {"$gt": "s2"}}`, `{"a": 2}`} {
		want := cwrIDs(t, db, `{"find": "plain", "filter": `+f+`, "sort": {"_id": 1}}`)
		for _, coll := range []string{"c", "s"} {
			if coll == "s" && f == `{"a": 2}` {
				continue
			}
			if got := cwrIDs(t, db, `{"find": "`+coll+`", "filter": `+f+`, "sort": {"_id": 1}}`); !slices.Equal(got, want) {
				t.Errorf("%s on %s: %v, want %v", f, coll, got, want)
			}
			if ex := fmt.Sprint(mustRun(t, db, "test", `{"explain": {"find": "`+coll+`", "filter": `+f+`}}`)); !strings.Contains(ex, "IXSCAN") {
				t.Errorf("%s on %s: not read through the index: %s", f, coll, ex)
			}
		}
	}
	ex := fmt.Sprint(mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"a": 1, "b.x": 2}}}`))
	if !strings.Contains(ex, `"keyPattern":{"a":{"$numberInt":"1"},"$_path":{"$numberInt":"1"},"b.x":{"$numberInt":"-1"},"c":{"$numberInt":"1"}}`) {
		t.Errorf("keyPattern of a descending wildcard: %s", ex)
	}
	mustValidate(t, db, "test", "c")
}

// Index identity: same key, different projection -> two indexes; same
// key and projection under another name -> 85.
func TestReviewCWIIdentity(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "$**": 1}, "name": "p1", "wildcardProjection": {"a": 0}}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "$**": 1}, "name": "p2", "wildcardProjection": {"a": 0, "b": 0}}]}`)
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "$**": 1}, "name": "p3", "wildcardProjection": {"a": 0}}]}`, 85, "")
	r := mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b.$**": 1}, "name": "a_1_b.$**_1"}]}`)
	_ = r
	lr := fmt.Sprint(firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "c"}`)))
	if !strings.Contains(lr, `a_1_b.$**_1`) {
		t.Errorf("default name: %s", lr)
	}
}

// Clustered and capped collections: a compound wildcard index answers
// as a collection scan does.
func TestReviewCWIClusteredCapped(t *testing.T) {
	t.Parallel()
	for _, create := range []string{
		`{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`,
		`{"create": "c", "capped": true, "size": 1048576}`,
	} {
		db, _ := openMem(t)
		mustRun(t, db, "test", create)
		mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"tenant": 1, "attrs.$**": 1, "ts": -1}, "name": "cwi"}]}`)
		rng := rand.New(rand.NewPCG(9, 9))
		var docs []string
		for i := 0; i < 120; i++ {
			docs = append(docs, cwrDoc(rng, i))
		}
		loadCorpus(t, db, "test", "c", docs)
		for q := 0; q < 60; q++ {
			f := cwrFilter(rng)
			want := cwrIDs(t, db, `{"find": "c", "filter": `+f+`, "hint": {"$natural": 1}}`)
			got := cwrIDs(t, db, `{"find": "c", "filter": `+f+`, "batchSize": 5}`)
			if !slices.Equal(cwrSorted(got), cwrSorted(want)) {
				t.Errorf("%s %s: index %v, scan %v", create, f, cwrSorted(got), cwrSorted(want))
			}
		}
		mustValidate(t, db, "test", "c")
	}
}

// Many keys out of the later fields' bounds: the scan seeks past them
// (keyCheck) and resumes across read chunks; it finds what a scan does.
func TestReviewCWISeekAndChunks(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 3000; i++ {
		var leaves []string
		for j, k := range []string{"a", "b", "c", "d", "e"} {
			if (i+j)%4 != 0 {
				leaves = append(leaves, fmt.Sprintf(`"%s": %d`, k, (i*7+j)%11))
			}
		}
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "tenant": "t%d", "ts": %d, "attrs": {%s}}`, i, i%40, i%97, strings.Join(leaves, ", ")))
	}
	for i := 0; i < len(docs); i += 500 {
		loadCorpus(t, db, "test", "c", docs[i:i+500])
	}
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"tenant": 1, "attrs.$**": 1, "ts": -1}, "name": "cwi"}]}`)
	for _, f := range []string{`{"attrs.c": 5}`, `{"attrs.c": {"$gt": 3, "$lt": 7}, "ts": {"$lt": 50}}`, `{"tenant": {"$in": ["t1", "t7", "t33"]}, "ts": {"$gte": 90}}`,
		`{"tenant": {"$gte": "t3"}, "attrs.e": {"$in": [1, 9]}, "ts": {"$lte": 10}}`, `{"tenant": {"$gt": "t1"}}`, `{"attrs.a": {"$gte": 0}, "ts": 3}`} {
		want := cwrIDs(t, db, `{"find": "c", "filter": `+f+`, "hint": {"$natural": 1}}`)
		got := cwrIDs(t, db, `{"find": "c", "filter": `+f+`, "batchSize": 101}`)
		if n := cwrIxNames(t, db, "c", f); !slices.Equal(n, []string{"cwi"}) {
			t.Errorf("%s: plan %v", f, n)
		}
		if !slices.Equal(cwrSorted(got), cwrSorted(want)) {
			t.Errorf("%s: index %d docs, scan %d", f, len(got), len(want))
		}
	}
}

// Explain keyPattern of a wildcard-first index and of a hinted
// unbounded "$**" compound index (notes §7, §8c); a "$"-containing
// dotted query path is no error (validation.js).
func TestReviewCWIExplainShapes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"sub.$**": 1, "num": 1}, "name": "sub.$**_1_num_1"}, {"key": {"a": 1, "$**": 1}, "name": "a_1_$**_1", "wildcardProjection": {"a": 0}}]}`)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": 1, "b": 1, "sub": {"str": "aa"}, "num": 1}`, `{"_id": 2, "b": [1, 2]}`})
	r := mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"sub.str": "aa"}}, "verbosity": "queryPlanner"}`)
	if kp := fmt.Sprint(field(r, "queryPlanner.winningPlan.inputStage.keyPattern")); kp != fmt.Sprint(bson.D{{Key: "$_path", Value: int32(1)}, {Key: "sub.str", Value: int32(1)}, {Key: "num", Value: int32(1)}}) {
		t.Errorf("wildcard-first keyPattern %s", kp)
	}
	r = mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"a": {"$exists": true}}, "hint": {"a": 1, "$**": 1}}, "verbosity": "queryPlanner"}`)
	ix, _ := field(r, "queryPlanner.winningPlan.inputStage").(bson.D)
	if kp := fmt.Sprint(field(ix, "keyPattern")); kp != fmt.Sprint(bson.D{{Key: "a", Value: int32(1)}, {Key: "$_path", Value: int32(1)}}) {
		t.Errorf("unbounded keyPattern %s", kp)
	}
	if b := fmt.Sprint(field(ix, "indexBounds.a")); b != fmt.Sprint(bson.A{"[MinKey, MaxKey]"}) {
		t.Errorf("unbounded a bounds %s", b)
	}
	mustRun(t, db, "test", `{"find": "c", "filter": {"a.$b": 5}}`)
}
