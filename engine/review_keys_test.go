package engine

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// reviewIDs runs a find to exhaustion through getMore (batchSize bs)
// and returns its _ids (any type, formatted), sorted unless keepOrder.
func reviewIDs(t *testing.T, db *DB, coll, filter, extra string, bs int, keepOrder bool) []string {
	t.Helper()
	r := mustRun(t, db, "test", fmt.Sprintf(`{"find": %q, "filter": %s, "batchSize": %d%s}`, coll, filter, bs, extra))
	var out []string
	for _, d := range firstBatch(t, r) {
		out = append(out, fmt.Sprint(field(d, "_id")))
	}
	id := field(r, "cursor.id")
	for id != int64(0) {
		r = mustRun(t, db, "test", fmt.Sprintf(`{"getMore": %d, "collection": %q, "batchSize": %d}`, id, coll, bs))
		nb, _ := field(r, "cursor.nextBatch").(bson.A)
		for _, d := range nb {
			out = append(out, fmt.Sprint(field(d.(bson.D), "_id")))
		}
		id = field(r, "cursor.id")
	}
	if !keepOrder {
		slices.Sort(out)
	}
	return out
}

// agree checks that filter hinted to each index finds what a collection
// scan finds.
func reviewAgree(t *testing.T, db *DB, coll, filter string, hints ...string) bool {
	t.Helper()
	want := reviewIDs(t, db, coll, filter, `, "hint": {"$natural": 1}`, 1000, false)
	ok := true
	for _, h := range hints {
		got := reviewIDs(t, db, coll, filter, `, "hint": "`+h+`"`, 1000, false)
		if !slices.Equal(got, want) {
			t.Errorf("filter %s hint %s finds %v; a collection scan finds %v", filter, h, got, want)
			ok = false
		}
	}
	return ok
}

// An $elemMatch on a, whose conditions are on b.c and b.d, is met by one
// element of a, but b inside that element may be an array whose
// different elements meet b.c and b.d: the index {"a.b.c": 1,
// "a.b.d": 1} keys them (1, null) and (null, 2), so compounding the
// $elemMatch's bounds on both fields misses the document.
func TestReviewElemMatchPrefixShorterThanSharedArray(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "e", []string{
		`{"_id": 1, "a": [{"b": [{"c": 1}, {"d": 2}]}]}`,
		`{"_id": 2, "a": [{"b": [{"c": 1, "d": 2}]}]}`,
		`{"_id": 3, "a": [{"b": {"c": 1, "d": 2}}]}`,
	})
	mustRun(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"a.b.c": 1, "a.b.d": 1}, "name": "abc_abd"}]}`)
	reviewAgree(t, db, "e", `{"a": {"$elemMatch": {"b.c": 1, "b.d": 2}}}`, "abc_abd")
	reviewAgree(t, db, "e", `{"a.b": {"$elemMatch": {"c": 1, "d": 2}}}`, "abc_abd")
	// As planned, with no hint: the planner takes the index.
	f := `{"a": {"$elemMatch": {"b.c": 1, "b.d": 2}}}`
	want := reviewIDs(t, db, "e", f, `, "hint": {"$natural": 1}`, 100, false)
	if got := reviewIDs(t, db, "e", f, ``, 100, false); !slices.Equal(got, want) {
		_, ix, _ := explainPlan(t, db, "test", `{"find": "e", "filter": `+f+`}`)
		t.Errorf("%s planned on %q finds %v; a collection scan finds %v", f, ix, got, want)
	}
	// count and delete through the planner agree with the scan too.
	if c := mustRun(t, db, "test", `{"count": "e", "query": `+f+`}`); field(c, "n") != int32(len(want)) {
		t.Errorf("count %s: %v, want %d", f, field(c, "n"), len(want))
	}
}

// An element of a that is itself an array: does the $elemMatch's
// document form look into it?
func TestReviewElemMatchNestedArrayElement(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "n", []string{
		`{"_id": 1, "a": [[{"b": 1, "c": 2}]]}`,
		`{"_id": 2, "a": [{"b": 1, "c": 2}]}`,
		`{"_id": 3, "a": [[{"b": 1}], {"c": 2}]}`,
	})
	mustRun(t, db, "test", `{"createIndexes": "n", "indexes": [{"key": {"a.b": 1, "a.c": 1}, "name": "ab_ac"}, {"key": {"a.b": 1}, "name": "ab"}]}`)
	for _, f := range []string{
		`{"a": {"$elemMatch": {"b": 1, "c": 2}}}`,
		`{"a": {"$elemMatch": {"b": 1}}}`,
		`{"a": {"$elemMatch": {"b": null}}}`,
		`{"a.b": 1}`,
		`{"a.b": null}`,
		`{"a.0.b": 1}`,
	} {
		reviewAgree(t, db, "n", f, "ab_ac", "ab")
	}
}

// reviewGen makes random nested documents and filters over a, a.b,
// a.c, a.b.c, a.b.d and x.
type reviewGen struct {
	r interface {
		IntN(int) int
	}
}

func (g reviewGen) scalar() string {
	switch g.r.IntN(7) {
	case 0, 1, 2:
		return fmt.Sprint(g.r.IntN(4))
	case 3:
		return "null"
	case 4:
		return fmt.Sprintf(`"%c"`, 'a'+g.r.IntN(2))
	case 5:
		return fmt.Sprintf("%d.5", g.r.IntN(3))
	}
	return `{"$minKey": 1}`
}

// value returns a random value at depth d: scalars, documents of b, c, d
// and arrays of either.
func (g reviewGen) value(d int) string {
	if d <= 0 {
		return g.scalar()
	}
	switch g.r.IntN(7) {
	case 0:
		return g.scalar()
	case 1, 2, 6:
		var fs []string
		for _, f := range []string{"b", "c", "d"} {
			if g.r.IntN(3) > 0 {
				fs = append(fs, fmt.Sprintf(`"%s": %s`, f, g.value(d-1)))
			}
		}
		return "{" + rvJoin(fs) + "}"
	case 3:
		if g.r.IntN(3) == 0 {
			return "[]"
		}
		fallthrough
	default:
		var el []string
		for range 1 + g.r.IntN(3) {
			el = append(el, g.value(d-1))
		}
		return "[" + rvJoin(el) + "]"
	}
}

func rvJoin(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func (g reviewGen) cond() string {
	switch g.r.IntN(14) {
	case 0:
		return fmt.Sprintf(`{"$in": [%s, %s]}`, g.scalar(), g.scalar())
	case 1, 2:
		return fmt.Sprintf(`{"%s": %d}`, []string{"$gt", "$gte", "$lt", "$lte"}[g.r.IntN(4)], g.r.IntN(4))
	case 3:
		return fmt.Sprintf(`{"$gt": %d, "$lt": %d}`, g.r.IntN(3), 1+g.r.IntN(3))
	case 4:
		return fmt.Sprintf(`{"$ne": %s}`, g.scalar())
	case 5:
		return fmt.Sprintf(`{"$nin": [%s, %s]}`, g.scalar(), g.scalar())
	case 6:
		return fmt.Sprintf(`{"$exists": %t}`, g.r.IntN(2) == 0)
	case 7:
		return fmt.Sprintf(`{"$size": %d}`, g.r.IntN(3))
	case 8:
		return fmt.Sprintf(`{"$all": [%s, %s]}`, g.scalar(), g.scalar())
	case 9:
		return fmt.Sprintf(`{"$not": {"$gt": %d}}`, g.r.IntN(4))
	case 10:
		return fmt.Sprintf(`{"$elemMatch": {"$gte": %d, "$lte": %d}}`, g.r.IntN(3), g.r.IntN(4))
	case 11:
		return "null"
	case 12:
		return "[]"
	}
	return g.scalar()
}

var reviewPaths = []string{"a", "a.b", "a.c", "a.b.c", "a.b.d", "x", "a.b.b"}

func (g reviewGen) filter(depth int) string {
	var parts []string
	for range 1 + g.r.IntN(3) {
		switch g.r.IntN(8) {
		case 0:
			// object-form $elemMatch on a or a.b
			at := []string{"a", "a.b", "a.c"}[g.r.IntN(3)]
			subs := []string{"b", "c", "d", "b.c", "b.d"}
			var sp []string
			for range 1 + g.r.IntN(3) {
				sp = append(sp, fmt.Sprintf(`"%s": %s`, subs[g.r.IntN(len(subs))], g.cond()))
			}
			if depth > 0 && g.r.IntN(3) == 0 {
				sp = append(sp, fmt.Sprintf(`"b": {"$elemMatch": {"%s": %s}}`, []string{"c", "d"}[g.r.IntN(2)], g.cond()))
			}
			parts = append(parts, fmt.Sprintf(`"%s": {"$elemMatch": {%s}}`, at, rvJoin(sp)))
		case 1:
			if depth > 0 {
				parts = append(parts, fmt.Sprintf(`"$or": [%s, %s]`, g.filter(depth-1), g.filter(depth-1)))
				continue
			}
			fallthrough
		default:
			parts = append(parts, fmt.Sprintf(`"%s": %s`, reviewPaths[g.r.IntN(len(reviewPaths))], g.cond()))
		}
	}
	return "{" + rvJoin(parts) + "}"
}

// Random nested documents under indexes whose fields go through arrays
// of sub-documents: every filter, hinted to each index, finds what a
// collection scan finds; sorted finds with limits and small batches, in
// both directions, return what the collection scan returns.
func TestReviewNestedArraysAgreeWithScan(t *testing.T) {
	t.Parallel()
	seeds, n := uint64(3), 300
	if raceOn {
		seeds, n = 1, 150 // the race detector's cost, not the check's
	}
	if v, err := strconv.Atoi(os.Getenv("REVIEW_SEEDS")); err == nil {
		seeds = uint64(v)
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			reviewNestedRun(t, seed, n, n)
		})
	}
}

func reviewNestedRun(t *testing.T, seed uint64, ndocs, nfilters int) {
	g := reviewGen{r: newReviewRand(seed)}
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "r", "indexes": [
		{"key": {"a.b": 1, "a.c": -1}, "name": "ab_ac"},
		{"key": {"a.b.c": 1, "a.b.d": 1}, "name": "abc_abd"},
		{"key": {"a": 1, "a.b": 1}, "name": "a_ab"},
		{"key": {"a.b": 1, "x": 1}, "name": "ab_x"},
		{"key": {"x": -1, "a.c": 1, "a.b.c": 1}, "name": "x_ac_abc"}]}`)
	var docs []string
	for i := 0; i < ndocs; i++ {
		fs := []string{fmt.Sprintf(`"_id": %d`, i)}
		if g.r.IntN(8) > 0 {
			a := g.value(3)
			if g.r.IntN(2) == 0 {
				var el []string
				for range 1 + g.r.IntN(3) {
					el = append(el, g.value(2))
				}
				a = "[" + rvJoin(el) + "]"
			}
			fs = append(fs, `"a": `+a)
		}
		if g.r.IntN(6) > 0 {
			x := g.scalar()
			if g.r.IntN(10) == 0 {
				x = fmt.Sprintf("[%s, %s]", g.scalar(), g.scalar())
			}
			fs = append(fs, `"x": `+x)
		}
		docs = append(docs, "{"+rvJoin(fs)+"}")
	}
	r := mustRun(t, db, "test", fmt.Sprintf(`{"insert": "r", "documents": [%s], "ordered": false}`, rvJoin(docs)))
	n, _ := field(r, "n").(int32)
	t.Logf("%d of %d documents inserted", n, ndocs)
	mustValidate(t, db, "test", "r")
	hints := []string{"ab_ac", "abc_abd", "a_ab", "ab_x", "x_ac_abc"}
	fails, nonEmpty := 0, 0
	defer func() { t.Logf("%d filters of %d found documents", nonEmpty, nfilters) }()
	for i := 0; i < nfilters && fails < 5; i++ {
		f := g.filter(1)
		if !reviewAgree(t, db, "r", f, hints...) {
			fails++
			continue
		}
		want := reviewIDs(t, db, "r", f, `, "hint": {"$natural": 1}`, 1000, false)
		if got := reviewIDs(t, db, "r", f, "", 3, false); !slices.Equal(got, want) {
			t.Errorf("filter %s as planned, batches of 3: %v, want %v", f, got, want)
			fails++
		}
		all := want
		if len(all) > 0 {
			nonEmpty++
		}
		// sort on _id with reverse, small batches, through each index
		h := hints[g.r.IntN(len(hints))]
		srt := []string{`{"_id": 1}`, `{"_id": -1}`}[g.r.IntN(2)]
		want = reviewIDs(t, db, "r", f, `, "sort": `+srt+`, "hint": {"$natural": 1}, "limit": 7`, 1000, true)
		if got := reviewIDs(t, db, "r", f, `, "sort": `+srt+`, "hint": "`+h+`", "limit": 7`, 2, true); !slices.Equal(got, want) {
			t.Errorf("filter %s sort %s hint %s limit 7: %v, want %v", f, srt, h, got, want)
			fails++
		}
		// count and distinct through the planner
		c := mustRun(t, db, "test", `{"count": "r", "query": `+f+`}`)
		if cn, _ := field(c, "n").(int32); int(cn) != len(all) {
			t.Errorf("count %s: %v, want %d", f, cn, len(all))
		}
	}
}

type reviewRand struct{ s uint64 }

func newReviewRand(seed uint64) *reviewRand { return &reviewRand{s: seed*0x9E3779B97F4A7C15 + 1} }

func (r *reviewRand) IntN(n int) int {
	r.s ^= r.s << 13
	r.s ^= r.s >> 7
	r.s ^= r.s << 17
	return int(r.s % uint64(n))
}

// A key pattern with one positional field (c.0) keys all its fields by
// the older rule: its a.b then keys nothing for an element of a that
// lacks b, and {"a.b": null} through it misses what a collection scan
// finds.
func TestReviewPositionalFieldBesideDottedPath(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "pp", []string{
		`{"_id": 1, "a": [{"b": 1}, {"c": 2}], "c": {"0": 5}}`,
		`{"_id": 2, "a": [{"b": 1}, 7], "c": {"0": 5}}`,
		`{"_id": 3, "a": {"b": 1}, "c": {"0": 5}}`,
		`{"_id": 4, "a": [{"b": 1, "c": 1}, {"b": 2, "c": 2}], "c": {"0": 5}}`,
	})
	mustRun(t, db, "test", `{"createIndexes": "pp", "indexes": [{"key": {"a.b": 1, "c.0": 1}, "name": "ab_c0"}]}`)
	for _, f := range []string{`{"a.b": null}`, `{"a.b": null, "c.0": 5}`, `{"a.b": 1}`, `{"a.b": {"$ne": 1}}`, `{"a": {"$elemMatch": {"b": 2, "c": 2}}}`} {
		reviewAgree(t, db, "pp", f, "ab_c0")
	}
}

// The same, as planned: the planner takes ab_c0 for {"a.b": null}.
func TestReviewPositionalFieldPlanned(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "pq", []string{`{"_id": 1, "a": [{"b": 1}, {"c": 2}]}`, `{"_id": 2, "a": {"b": 2}}`})
	mustRun(t, db, "test", `{"createIndexes": "pq", "indexes": [{"key": {"a.b": 1, "z.0": 1}, "name": "ab_z0"}]}`)
	want := reviewIDs(t, db, "pq", `{"a.b": null}`, `, "hint": {"$natural": 1}`, 100, false)
	got := reviewIDs(t, db, "pq", `{"a.b": null}`, ``, 100, false)
	_, ix, _ := explainPlan(t, db, "test", `{"find": "pq", "filter": {"a.b": null}}`)
	if !slices.Equal(got, want) {
		t.Errorf(`{"a.b": null} planned on %q finds %v; a collection scan finds %v`, ix, got, want)
	}
}

// Index upkeep through array updates: $push, $pull, $set of elements,
// positional and arrayFilters updates, $unset, $pop, replacements and
// deletes keep every index valid, and hinted finds agree with the scan.
func TestReviewArrayUpdatesKeepIndexes(t *testing.T) {
	t.Parallel()
	g := reviewGen{r: newReviewRand(99)}
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "u", "indexes": [
		{"key": {"a.b": 1, "a.c": -1}, "name": "ab_ac"},
		{"key": {"a.b.c": 1, "a.b.d": 1}, "name": "abc_abd"},
		{"key": {"a": 1, "a.b": 1}, "name": "a_ab"},
		{"key": {"a.b": 1, "x": 1}, "name": "ab_x", "sparse": true},
		{"key": {"a.c": 1}, "name": "ac_u", "unique": true, "partialFilterExpression": {"x": {"$gt": 2}}},
		{"key": {"a.b": 1}, "name": "ab_ci", "collation": {"locale": "en", "strength": 2}}]}`)
	var docs []string
	for i := 0; i < 120; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": [%s, %s], "x": %d}`, i, g.value(2), g.value(2), g.r.IntN(3)))
	}
	mustRun(t, db, "test", fmt.Sprintf(`{"insert": "u", "documents": [%s], "ordered": false}`, rvJoin(docs)))
	mustValidate(t, db, "test", "u")
	upd := func() string {
		q := g.filter(0)
		switch g.r.IntN(12) {
		case 0:
			return fmt.Sprintf(`{"q": %s, "u": {"$push": {"a": %s}}, "multi": true}`, q, g.value(2))
		case 1:
			return fmt.Sprintf(`{"q": %s, "u": {"$pull": {"a": {"b": %s}}}, "multi": true}`, q, g.scalar())
		case 2:
			return fmt.Sprintf(`{"q": %s, "u": {"$set": {"a.%d.b": %s}}, "multi": true}`, q, g.r.IntN(3), g.value(2))
		case 3:
			return fmt.Sprintf(`{"q": {"a.b": %s}, "u": {"$set": {"a.$.c": %s}}, "multi": true}`, g.scalar(), g.value(1))
		case 4:
			return fmt.Sprintf(`{"q": %s, "u": {"$set": {"a.$[e].b": %s}}, "arrayFilters": [{"e.c": %s}], "multi": true}`, q, g.value(1), g.scalar())
		case 5:
			return fmt.Sprintf(`{"q": %s, "u": {"$unset": {"a.%d": ""}}, "multi": true}`, q, g.r.IntN(3))
		case 6:
			return fmt.Sprintf(`{"q": %s, "u": {"$pop": {"a": %d}}, "multi": true}`, q, []int{1, -1}[g.r.IntN(2)])
		case 7:
			return fmt.Sprintf(`{"q": %s, "u": {"a": %s, "x": %d}}`, q, g.value(3), g.r.IntN(4))
		case 8:
			return fmt.Sprintf(`{"q": %s, "u": {"$set": {"a.$[].d": %s}}, "multi": true}`, q, g.value(1))
		case 9:
			return fmt.Sprintf(`{"q": %s, "u": [{"$set": {"a": {"$concatArrays": [{"$ifNull": [{"$cond": [{"$isArray": "$a"}, "$a", ["$a"]]}, []]}, [%s]]}}}], "multi": true}`, q, g.value(1))
		case 10:
			return fmt.Sprintf(`{"q": %s, "u": {"$inc": {"x": 1}}, "multi": true}`, q)
		}
		return fmt.Sprintf(`{"q": %s, "u": {"$addToSet": {"a": {"$each": [%s, %s]}}}, "multi": true}`, q, g.value(1), g.value(1))
	}
	hints := []string{"ab_ac", "abc_abd", "a_ab", "ab_x", "ab_ci"}
	modified := 0
	var werrs []string
	defer func() { t.Logf("%d documents modified; write errors %v", modified, werrs) }()
	rounds := 60
	if raceOn {
		rounds = 25
	}
	for round := 0; round < rounds; round++ {
		u := upd()
		if r, err := run(t, db, "test", `{"update": "u", "updates": [`+u+`], "ordered": false}`); err != nil {
			t.Logf("update %s: %v", u, err)
		} else {
			nm, _ := field(r, "nModified").(int32)
			modified += int(nm)
			if we, _ := field(r, "writeErrors").(bson.A); len(we) > 0 {
				werrs = append(werrs, fmt.Sprint(field(we[0].(bson.D), "code")))
			}
		}
		if round%5 == 4 {
			if _, err := run(t, db, "test", `{"delete": "u", "deletes": [{"q": `+g.filter(0)+`, "limit": 1}]}`); err != nil {
				t.Logf("delete: %v", err)
			}
		}
		r, err := db.Validate(t.Context(), "test", "u")
		if err != nil || !r.Valid() {
			t.Fatalf("after update %s: validate %v %v", u, err, r.Errors)
		}
		for range 5 {
			f := g.filter(0)
			if strings.Contains(f, "null") || strings.Contains(f, "$exists") || strings.Contains(f, "$ne") || strings.Contains(f, "$nin") || strings.Contains(f, "$not") || strings.Contains(f, "[]") {
				// the sparse index ab_x may legitimately leave such documents out
				reviewAgree(t, db, "u", f, "ab_ac", "abc_abd", "a_ab", "ab_ci")
				continue
			}
			reviewAgree(t, db, "u", f, hints...)
		}
	}
}

// Unique indexes over arrays: a document's own elements never clash;
// another document's do, null keys of elements lacking the field
// included (as mongod keys them); a sparse unique index leaves those out.
func TestReviewUniqueArrayKeys(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "q", "indexes": [
		{"key": {"a.b": 1}, "name": "ab", "unique": true},
		{"key": {"a.b": 1, "a.c": 1}, "name": "ab_ac", "unique": true}]}`)
	mustRun(t, db, "test", `{"insert": "q", "documents": [{"_id": 1, "a": [{"b": 1, "c": 1}, {"b": 1, "c": 1}]}]}`)
	mustRun(t, db, "test", `{"update": "q", "updates": [{"q": {"_id": 1}, "u": {"$push": {"a": {"b": 1, "c": 1}}}}]}`)
	mustRun(t, db, "test", `{"insert": "q", "documents": [{"_id": 2, "a": [{"b": 2}, {"c": 3}]}]}`)
	r := mustRun(t, db, "test", `{"insert": "q", "documents": [{"_id": 3, "a": [7]}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(we[0].(bson.D), "code") != int32(11000) {
		t.Errorf("a second null key of a.b: %v", r)
	}
	r = mustRun(t, db, "test", `{"insert": "q", "documents": [{"_id": 4, "a": [{"b": 1}]}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 {
		t.Errorf("a.b 1 again: %v", r)
	}
	mustValidate(t, db, "test", "q")
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"a.b": 1}, "name": "ab", "unique": true, "sparse": true}]}`)
	mustRun(t, db, "test", `{"insert": "s", "documents": [{"_id": 1, "a": [{"c": 1}, 5]}, {"_id": 2, "a": [7, {"b": 1}]}, {"_id": 3, "a": []}, {"_id": 4, "a": [[]]}]}`)
	mustValidate(t, db, "test", "s")
	reviewAgree(t, db, "s", `{"a.b": {"$gte": 0}}`, "ab")
}

// A collated index on fields through an array, read with the same
// collation: $elemMatch bounds and direct bounds find what the scan does.
func TestReviewCollatedArrayIndex(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{
		`{"_id": 1, "a": [{"b": "abc", "c": "X"}, {"b": "Q"}]}`,
		`{"_id": 2, "a": [{"b": "ABC", "c": "x"}]}`,
		`{"_id": 3, "a": [{"b": "abd"}, {"c": "x"}]}`,
		`{"_id": 4, "a": {"b": "Abc", "c": "X"}}`,
		`{"_id": 5, "a": [{"b": ["aBc", "zz"], "c": "x"}]}`,
	})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a.b": 1, "a.c": 1}, "name": "ab_ac", "collation": {"locale": "en", "strength": 2}}]}`)
	coll := `, "collation": {"locale": "en", "strength": 2}`
	for _, f := range []string{
		`{"a": {"$elemMatch": {"b": "abc", "c": "x"}}}`,
		`{"a": {"$elemMatch": {"b": {"$gte": "ABC", "$lt": "abd"}}}}`,
		`{"a.b": "abc", "a.c": "X"}`,
		`{"a.b": {"$in": ["ABC", "q"]}}`,
		`{"a.c": null}`,
	} {
		want := reviewIDs(t, db, "c", f, `, "hint": {"$natural": 1}`+coll, 100, false)
		for _, h := range []string{`, "hint": "ab_ac"`, ``} {
			if got := reviewIDs(t, db, "c", f, h+coll, 100, false); !slices.Equal(got, want) {
				t.Errorf("%s%s collated: %v, want %v", f, h, got, want)
			}
		}
	}
}

// Seeking past keys on a compound index whose later field holds arrays
// and nulls, forward and backward, across getMores of 3 and
// transaction chunks: the results are the collection scan's.
func TestReviewSeekMultikey(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	n := 3000
	if raceOn {
		n = 1000
	}
	for i := 0; i < n; i++ {
		var at string
		switch i % 7 {
		case 0:
			at = fmt.Sprintf("[%d, %d]", i/60, i/60+30)
		case 1:
			at = "null"
		case 2:
			at = fmt.Sprintf(`[{"v": %d}, {"w": 1}]`, i/60)
		case 3:
			at = fmt.Sprintf(`"s%d"`, i/60)
		default:
			at = fmt.Sprint(i / 60)
		}
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "t": %d, "at": %s, "n": {"v": %d}}`, i, i%40, at, i%60))
	}
	for i := 0; i < len(docs); i += 500 {
		loadCorpus(t, db, "test", "sk", docs[i:i+500])
	}
	mustRun(t, db, "test", `{"createIndexes": "sk", "indexes": [
		{"key": {"t": 1, "at": 1}, "name": "t_at"},
		{"key": {"t": -1, "at": -1, "n.v": 1}, "name": "td_atd_nv"},
		{"key": {"t": 1, "at.v": -1}, "name": "t_atv"}]}`)
	for _, f := range []string{
		`{"at": {"$gte": 40}}`,
		`{"at": {"$in": [3, 17, 44, "s9"]}}`,
		`{"at": {"$lt": 2}}`,
		`{"at": null}`,
		`{"t": {"$gt": 5}, "at": {"$gt": 10, "$lt": 12}}`,
		`{"at.v": {"$gte": 45}}`,
		`{"at.v": null, "t": {"$lt": 30}}`,
		`{"at": {"$elemMatch": {"v": {"$lte": 3}}}}`,
		`{"t": {"$in": [1, 2, 3, 39]}, "n.v": {"$in": [5, 55]}}`,
		`{"at": {"$gte": "s1", "$lt": "s3"}, "n.v": {"$gt": 50}}`,
	} {
		want := reviewIDs(t, db, "sk", f, `, "hint": {"$natural": 1}`, 5000, false)
		t.Logf("%s: %d documents", f, len(want))
		for _, h := range []string{"t_at", "td_atd_nv", "t_atv"} {
			for _, srt := range []string{``, `, "sort": {"t": 1}`, `, "sort": {"t": -1}`} {
				if got := reviewIDs(t, db, "sk", f, `, "hint": "`+h+`"`+srt, 3, false); !slices.Equal(got, want) {
					t.Errorf("%s hint %s%s: %d documents, want %d", f, h, srt, len(got), len(want))
				}
			}
		}
	}
}

// Time-series (indexes on metaField subpaths through arrays), clustered
// and capped collections: hinted finds agree with the scan, and
// validate is clean after updates and deletes.
func TestReviewArrayIndexesOtherCollections(t *testing.T) {
	t.Parallel()
	g := reviewGen{r: newReviewRand(7)}
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "at", "metaField": "m"}}`)
	mustRun(t, db, "test", `{"create": "cl", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
	mustRun(t, db, "test", `{"create": "cp", "capped": true, "size": 1000000}`)
	var tsDocs, docs []string
	for i := 0; i < 200; i++ {
		a := g.value(3)
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %s, "x": %d}`, i, a, g.r.IntN(3)))
		tsDocs = append(tsDocs, fmt.Sprintf(`{"at": {"$date": "2026-01-01T00:%02d:%02dZ"}, "m": {"a": %s}, "x": %d}`, i/60, i%60, g.value(3), g.r.IntN(3)))
	}
	ix := `[{"key": {"a.b": 1, "a.c": -1}, "name": "ab_ac"}, {"key": {"a.b.c": 1, "x": 1}, "name": "abc_x"}, {"key": {"a": 1, "a.b": 1}, "name": "a_ab"}]`
	for _, c := range []string{"cl", "cp"} {
		mustRun(t, db, "test", `{"createIndexes": "`+c+`", "indexes": `+ix+`}`)
		mustRun(t, db, "test", fmt.Sprintf(`{"insert": %q, "documents": [%s], "ordered": false}`, c, rvJoin(docs)))
	}
	mustRun(t, db, "test", `{"createIndexes": "ts", "indexes": [{"key": {"m.a.b": 1, "m.a.c": -1}, "name": "ab_ac"}, {"key": {"m.a.b.c": 1, "at": 1}, "name": "abc_at"}]}`)
	tsN := 0
	for _, d := range tsDocs {
		if _, err := run(t, db, "test", `{"insert": "ts", "documents": [`+d+`]}`); err == nil {
			tsN++
		}
	}
	t.Logf("time-series: %d inserted", tsN)
	rounds := 150
	if raceOn {
		rounds = 50
	}
	for i := 0; i < rounds; i++ {
		f := g.filter(1)
		reviewAgree(t, db, "cl", f, "ab_ac", "abc_x", "a_ab")
		reviewAgree(t, db, "cp", f, "ab_ac", "abc_x", "a_ab")
		tf := strings.NewReplacer(`"a`, `"m.a`).Replace(f)
		want := reviewIDs(t, db, "ts", tf, `, "hint": {"$natural": 1}, "projection": {"_id": 0, "id": "$at"}`, 1000, false)
		_ = want
		wantN := len(firstBatch(t, mustRun(t, db, "test", `{"find": "ts", "filter": `+tf+`, "hint": {"$natural": 1}, "batchSize": 1000}`)))
		for _, h := range []string{"ab_ac", "abc_at"} {
			gotN := len(firstBatch(t, mustRun(t, db, "test", `{"find": "ts", "filter": `+tf+`, "hint": "`+h+`", "batchSize": 1000}`)))
			if gotN != wantN {
				t.Errorf("time-series %s hint %s: %d documents, a scan finds %d", tf, h, gotN, wantN)
			}
		}
		if i%10 == 0 {
			for _, c := range []string{"cl"} {
				run(t, db, "test", fmt.Sprintf(`{"update": %q, "updates": [{"q": %s, "u": {"$push": {"a": %s}}, "multi": true}]}`, c, g.filter(0), g.value(2)))
				run(t, db, "test", fmt.Sprintf(`{"delete": %q, "deletes": [{"q": %s, "limit": 1}]}`, c, g.filter(0)))
				mustValidate(t, db, "test", c)
			}
			run(t, db, "test", fmt.Sprintf(`{"update": "ts", "updates": [{"q": {"m.a.b": %s}, "u": {"$set": {"m.a": %s}}, "multi": true}]}`, g.scalar(), g.value(2)))
			run(t, db, "test", fmt.Sprintf(`{"delete": "ts", "deletes": [{"q": {"m.a.c": %s}, "limit": 0}]}`, g.scalar()))
			mustValidate(t, db, "test", "ts")
			mustValidate(t, db, "test", "cp")
		}
	}
}

// A time-series insert whose one measurement a meta index refuses (171)
// fails the whole command, where an ordinary collection reports a write
// error for it and inserts the rest (ordered: false), as mongod does.
func TestReviewTimeseriesParallelArraysWriteError(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "at", "metaField": "m"}}`)
	mustRun(t, db, "test", `{"createIndexes": "ts", "indexes": [{"key": {"m.b": 1, "m.c": 1}, "name": "b_c"}]}`)
	r, err := run(t, db, "test", `{"insert": "ts", "ordered": false, "documents": [
		{"at": {"$date": "2026-01-01T00:00:00Z"}, "m": {"b": 1}},
		{"at": {"$date": "2026-01-01T00:00:01Z"}, "m": {"b": [1, 2], "c": [3, 4]}},
		{"at": {"$date": "2026-01-01T00:00:02Z"}, "m": {"b": 2}}]}`)
	if err != nil {
		t.Fatalf("insert: %v, want one write error and 2 inserted", err)
	}
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(r, "n") != int32(2) {
		t.Errorf("insert: %v", r)
	}
}

// The same through a third field: a.e pairs with each of a.b.c and
// a.b.d, which must still not be compounded with each other.
func TestReviewElemMatchThreeFields(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "e3", []string{
		`{"_id": 1, "a": [{"e": 5, "b": [{"c": 1}, {"d": 2}]}]}`,
		`{"_id": 2, "a": [{"e": 5, "b": {"c": 1, "d": 2}}]}`,
	})
	mustRun(t, db, "test", `{"createIndexes": "e3", "indexes": [{"key": {"a.e": 1, "a.b.c": 1, "a.b.d": 1}, "name": "ae_abc_abd"}]}`)
	reviewAgree(t, db, "e3", `{"a": {"$elemMatch": {"e": 5, "b.c": 1, "b.d": 2}}}`, "ae_abc_abd")
}

// Hostile shapes: deeply nested arrays and documents on indexed paths,
// a large array of sub-documents under a compound key: no panic, valid
// indexes, and hinted finds agree with the scan.
func TestReviewHostileArrays(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "h", "indexes": [{"key": {"a.b": 1, "a.c": 1}, "name": "ab_ac"}, {"key": {"a": 1}, "name": "a"}, {"key": {"a.b.b.b.b.b.b.b": 1, "a.b.c": -1}, "name": "deep"}]}`)
	deepArr := "1"
	for range 90 {
		deepArr = "[" + deepArr + "]"
	}
	deepDoc := "1"
	for range 45 {
		deepDoc = `[{"b": ` + deepDoc + `, "c": 2}]`
	}
	var big []string
	for i := range 5000 {
		big = append(big, fmt.Sprintf(`{"b": %d, "c": %d}`, i%50, i%7))
	}
	for _, d := range []string{
		`{"_id": 1, "a": ` + deepArr + `}`,
		`{"_id": 2, "a": ` + deepDoc + `}`,
		`{"_id": 3, "a": [` + rvJoin(big) + `]}`,
		`{"_id": 4, "a": [[[{"b": 1}]], [[]], [{"b": [[{"c": 1}]]}]]}`,
	} {
		if _, err := run(t, db, "test", `{"insert": "h", "documents": [`+d+`]}`); err != nil {
			t.Logf("insert: %v", err)
		}
	}
	mustValidate(t, db, "test", "h")
	for _, f := range []string{`{"a.b": 1}`, `{"a.b": null}`, `{"a": {"$elemMatch": {"b": 3, "c": 3}}}`, `{"a.b.b.b.b.b.b.b": 1}`, `{"a.b.c": 2}`} {
		reviewAgree(t, db, "h", f, "ab_ac", "a", "deep")
	}
	mustRun(t, db, "test", `{"update": "h", "updates": [{"q": {"_id": 3}, "u": {"$pull": {"a": {"b": {"$lt": 25}}}}}]}`)
	mustRun(t, db, "test", `{"delete": "h", "deletes": [{"q": {"_id": 2}, "limit": 1}]}`)
	mustValidate(t, db, "test", "h")
}

// distinct of a dotted path through arrays, with an index on it and
// without one: the same values (an element lacking the field adds no
// null).
func TestReviewDistinctThroughArrayIndex(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	docs := []string{`{"_id": 1, "a": [{"b": 1}, {"c": 2}, 5]}`, `{"_id": 2, "a": [{"b": [2, 3]}]}`, `{"_id": 3, "a": []}`, `{"_id": 4, "a": {"b": 4}}`}
	loadCorpus(t, db, "test", "d1", docs)
	loadCorpus(t, db, "test", "d2", docs)
	mustRun(t, db, "test", `{"createIndexes": "d2", "indexes": [{"key": {"a.b": 1}, "name": "ab"}, {"key": {"a.b": 1, "a.c": 1}, "name": "ab_ac"}]}`)
	for _, q := range []string{`{}`, `{"a.b": {"$gte": 0}}`, `{"a": {"$elemMatch": {"b": 1}}}`} {
		want := fmtValue(field(mustRun(t, db, "test", `{"distinct": "d1", "key": "a.b", "query": `+q+`}`), "values"))
		for _, h := range []string{``, `, "hint": "ab"`, `, "hint": "ab_ac"`} {
			got := fmtValue(field(mustRun(t, db, "test", `{"distinct": "d2", "key": "a.b", "query": `+q+h+`}`), "values"))
			if got != want {
				t.Errorf("distinct a.b %s%s: %s, without an index %s", q, h, got, want)
			}
		}
		// aggregation's $group on the same
		want = fmtValue(firstBatch(t, mustRun(t, db, "test", `{"aggregate": "d1", "pipeline": [{"$match": `+q+`}, {"$sort": {"a.b": 1}}, {"$project": {"_id": 1}}], "cursor": {}}`)))
		got := fmtValue(firstBatch(t, mustRun(t, db, "test", `{"aggregate": "d2", "pipeline": [{"$match": `+q+`}, {"$sort": {"a.b": 1}}, {"$project": {"_id": 1}}], "cursor": {}}`)))
		if got != want {
			t.Errorf("$match %s $sort a.b: %s, without an index %s", q, got, want)
		}
	}
}

// Wildcard indexes: an $elemMatch beside a direct condition on the same
// path must not have its bounds intersected with the direct one's, since
// different elements may meet each.
func TestReviewWildcardElemMatchBeside(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "w", []string{
		`{"_id": 1, "a": [{"b": 5}, {"b": -1}]}`,
		`{"_id": 2, "a": {"b": 5}}`,
		`{"_id": 3, "a": [{"b": 5, "c": 1}]}`,
	})
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"$**": 1}, "name": "all"}, {"key": {"a.$**": 1}, "name": "a_all"}]}`)
	for _, f := range []string{
		`{"a.b": {"$gt": 1}, "a": {"$elemMatch": {"b": {"$lt": 0}}}}`,
		`{"a.b": 5, "a": {"$elemMatch": {"b": -1}}}`,
		`{"a": {"$elemMatch": {"b": -1}}, "a.b": 5}`,
		`{"a.b": {"$gt": 1}, "a.b": {"$lt": 0}}`,
		`{"a.b": {"$gt": 1, "$lt": 0}}`,
	} {
		reviewAgree(t, db, "w", f, "all", "a_all")
		want := reviewIDs(t, db, "w", f, `, "hint": {"$natural": 1}`, 100, false)
		if got := reviewIDs(t, db, "w", f, ``, 100, false); !slices.Equal(got, want) {
			t.Errorf("%s planned: %v, want %v", f, got, want)
		}
	}
}

// Seeks forward and backward over compound indexes of mixed directions
// and mixed types (null, missing, strings, numbers, arrays nowhere), a
// total order by _id last: the index's order and documents are the
// collection scan's sorted ones, read in batches of 3.
func TestReviewSeekBothWaysRandom(t *testing.T) {
	t.Parallel()
	g := reviewGen{r: newReviewRand(31)}
	db, _ := openMem(t)
	var docs []string
	n := 1500
	if raceOn {
		n = 500
	}
	for i := 0; i < n; i++ {
		fs := []string{fmt.Sprintf(`"_id": %d`, i), fmt.Sprintf(`"t": %d`, g.r.IntN(12))}
		if g.r.IntN(10) > 0 {
			fs = append(fs, `"at": `+g.scalar())
		}
		if g.r.IntN(10) > 0 {
			fs = append(fs, fmt.Sprintf(`"u": %d`, g.r.IntN(30)))
		}
		docs = append(docs, "{"+rvJoin(fs)+"}")
	}
	loadCorpus(t, db, "test", "sb", docs)
	mustRun(t, db, "test", `{"createIndexes": "sb", "indexes": [
		{"key": {"t": 1, "at": -1, "u": 1, "_id": 1}, "name": "i1"},
		{"key": {"t": -1, "at": 1, "u": -1, "_id": -1}, "name": "i2"}]}`)
	cond := func() string {
		switch g.r.IntN(6) {
		case 0:
			return fmt.Sprintf(`{"$in": [%s, %s, %s]}`, g.scalar(), g.scalar(), g.scalar())
		case 1, 2:
			return fmt.Sprintf(`{"%s": %s}`, []string{"$gt", "$gte", "$lt", "$lte"}[g.r.IntN(4)], g.scalar())
		case 3:
			return fmt.Sprintf(`{"$gt": %d, "$lt": %d}`, g.r.IntN(10), 5+g.r.IntN(25))
		case 4:
			return fmt.Sprintf(`{"$ne": %s}`, g.scalar())
		}
		return g.scalar()
	}
	rounds := 150
	if raceOn {
		rounds = 60
	}
	for i := 0; i < rounds; i++ {
		var parts []string
		parts = append(parts, fmt.Sprintf(`"t": {"$gte": %d}`, g.r.IntN(3)))
		for _, f := range []string{"at", "u"} {
			if g.r.IntN(4) > 0 {
				parts = append(parts, fmt.Sprintf(`"%s": %s`, f, cond()))
			}
		}
		f := "{" + rvJoin(parts) + "}"
		d := []int{1, -1}[g.r.IntN(2)]
		for _, c := range []struct{ h, s string }{
			{"i1", fmt.Sprintf(`{"t": %d, "at": %d, "u": %d, "_id": %d}`, d, -d, d, d)},
			{"i2", fmt.Sprintf(`{"t": %d, "at": %d, "u": %d, "_id": %d}`, d, -d, d, d)},
		} {
			want := reviewIDs(t, db, "sb", f, `, "sort": `+c.s+`, "hint": {"$natural": 1}`, 5000, true)
			got := reviewIDs(t, db, "sb", f, `, "sort": `+c.s+`, "hint": "`+c.h+`"`, 3, true)
			if !slices.Equal(got, want) {
				stages, _, _ := explainPlan(t, db, "test", `{"find": "sb", "filter": `+f+`, "sort": `+c.s+`, "hint": "`+c.h+`"}`)
				t.Errorf("%s sort %s hint %s (%v): %d documents, want %d", f, c.s, c.h, stages, len(got), len(want))
			}
		}
	}
}
