package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Compound indexes bound every leading field the filter fixes and the
// first one it ranges over, and give a sort on the field after fixed
// ones; whatever they do, they find what a collection scan finds, in the
// order a sort asks. Random documents, indexes of mixed directions (one
// with a hashed field), random filters and sorts.
func TestCompoundBoundsAgreeWithScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 2028))
	scalar := func() string {
		switch rng.IntN(6) {
		case 0, 1:
			return fmt.Sprint(rng.IntN(4))
		case 2:
			return fmt.Sprintf("%d.5", rng.IntN(4))
		case 3:
			return fmt.Sprintf(`"%c"`, 'a'+rng.IntN(3))
		case 4:
			return "null"
		}
		return fmt.Sprintf(`{"$date": "2026-01-0%dT00:00:00Z"}`, 1+rng.IntN(3))
	}
	db, _ := openMem(t)
	n := 500
	if raceOn {
		n = 150
	}
	var docs []string
	for i := 0; i < n; i++ {
		fields := []string{fmt.Sprintf(`"_id": %d`, i)}
		for _, f := range []string{"a", "b", "c"} {
			if rng.IntN(6) > 0 {
				fields = append(fields, fmt.Sprintf(`"%s": %s`, f, scalar()))
			}
		}
		docs = append(docs, "{"+strings.Join(fields, ", ")+"}")
	}
	loadCorpus(t, db, "test", "k", docs)
	mustRun(t, db, "test", `{"createIndexes": "k", "indexes": [
		{"key": {"a": 1, "b": -1, "c": 1}, "name": "a_b_c"},
		{"key": {"b": 1, "a": 1}, "name": "b_a"},
		{"key": {"c": -1, "b": "hashed"}, "name": "c_bh"}]}`)
	ids := func(cmd string) []int32 {
		t.Helper()
		var out []int32
		for _, d := range firstBatch(t, mustRun(t, db, "test", cmd)) {
			out = append(out, field(d, "_id").(int32))
		}
		return out
	}
	cond := func() string {
		switch rng.IntN(5) {
		case 0:
			return fmt.Sprintf(`{"$in": [%s, %s]}`, scalar(), scalar())
		case 1, 2:
			op := []string{"$gt", "$gte", "$lt", "$lte"}[rng.IntN(4)]
			return fmt.Sprintf(`{"%s": %s}`, op, scalar())
		}
		return scalar()
	}
	used := map[string]int{}
	for i := 0; i < 400; i++ {
		var parts []string
		for _, f := range []string{"a", "b", "c"} {
			if rng.IntN(3) > 0 {
				parts = append(parts, fmt.Sprintf(`"%s": %s`, f, cond()))
			}
		}
		filter := "{" + strings.Join(parts, ", ") + "}"
		if rng.IntN(3) == 0 {
			// An $or of branches, each on indexed fields or not: an index
			// union when every branch has an index.
			var brs []string
			for range 1 + rng.IntN(3) {
				f := []string{"a", "b", "c", "z"}[rng.IntN(4)]
				brs = append(brs, fmt.Sprintf(`{"%s": %s}`, f, cond()))
			}
			or := `"$or": [` + strings.Join(brs, ", ") + `]`
			switch rng.IntN(3) {
			case 0:
				if len(parts) > 0 {
					filter = "{" + strings.Join(parts, ", ") + ", " + or + "}"
					break
				}
				fallthrough
			case 1:
				filter = "{" + or + "}"
			default:
				// Beside a condition no index holds: the union's branches
				// must still answer the whole filter.
				filter = fmt.Sprintf(`{"z": {"$ne": %s}, %s}`, scalar(), or)
			}
		}
		hint := []string{`"a_b_c"`, `"b_a"`, `"c_bh"`, `{"$natural": 1}`}[rng.IntN(4)]
		find := `{"find": "k", "filter": ` + filter + `, "batchSize": 1000`
		scanned := ids(find + `, "hint": {"$natural": 1}}`)
		slices.Sort(scanned)
		got := ids(find + `, "hint": ` + hint + `}`)
		slices.Sort(got)
		if !slices.Equal(got, scanned) {
			t.Fatalf("filter %s with hint %s finds %v; a collection scan finds %v", filter, hint, got, scanned)
		}
		planned := ids(find + `}`)
		slices.Sort(planned)
		if !slices.Equal(planned, scanned) {
			_, ix, _ := explainPlan(t, db, "test", `{"find": "k", "filter": `+filter+`}`)
			t.Fatalf("filter %s planned on %q finds %v; a collection scan finds %v", filter, ix, planned, scanned)
		}
		stages, ix, _ := explainPlan(t, db, "test", `{"find": "k", "filter": `+filter+`}`)
		if slices.Contains(stages, "OR") {
			ix = "OR"
		}
		used[ix]++
		// A sort on one field comes back in that field's order, through
		// whichever plan the planner takes.
		sf := []string{"a", "b", "c"}[rng.IntN(3)]
		dir := []int{1, -1}[rng.IntN(2)]
		r := mustRun(t, db, "test", fmt.Sprintf(`{"find": "k", "filter": %s, "sort": {"%s": %d}, "batchSize": 1000}`, filter, sf, dir))
		var prev any
		for j, d := range firstBatch(t, r) {
			v, _ := document.Lookup(d, sf)
			if j > 0 && document.Compare(prev, v)*dir > 0 {
				t.Fatalf("filter %s sort {%s: %d}: %v before %v", filter, sf, dir, prev, v)
			}
			prev = v
		}
	}
	if used["a_b_c"] == 0 || used["b_a"] == 0 || used["OR"] == 0 {
		t.Fatalf("the planner never chose the compound indexes or an index union: %v", used)
	}
	t.Logf("plans: %v", used)
}

// explain shows every field's bounds, as mongod does; equalities on the
// leading fields let the index give a sort on the next one.
func TestCompoundBoundsExplain(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "x", "documents": [{"_id": 1, "t": "a", "at": 1}, {"_id": 2, "t": "a", "at": 3}, {"_id": 3, "t": "b", "at": 2}, {"_id": 4, "t": "a", "at": 2}]}`)
	mustRun(t, db, "test", `{"createIndexes": "x", "indexes": [{"key": {"t": 1, "at": 1}, "name": "t_at"}]}`)
	r := mustRun(t, db, "test", `{"explain": {"find": "x", "filter": {"t": "a", "at": {"$gte": 2}}}, "verbosity": "executionStats"}`)
	bounds := field(r, "queryPlanner.winningPlan.inputStage.indexBounds")
	want := bson.D{{Key: "t", Value: bson.A{`["a", "a"]`}}, {Key: "at", Value: bson.A{"[2, inf.0]"}}}
	if !document.Equal(bounds, want) {
		t.Errorf("bounds %v, want %v", bounds, want)
	}
	if k := field(r, "executionStats.totalKeysExamined"); k != int32(2) {
		t.Errorf("keys examined %v, want 2 (the range under t: a)", k)
	}
	// Bounds on a field after a range skip the keys out of them without
	// fetching their documents.
	r = mustRun(t, db, "test", `{"explain": {"find": "x", "filter": {"t": {"$gte": "a"}, "at": 2}}, "verbosity": "executionStats"}`)
	if k, d := field(r, "executionStats.totalKeysExamined"), field(r, "executionStats.totalDocsExamined"); k != int32(4) || d != int32(2) {
		t.Errorf("t >= a, at 2: %v keys and %v documents examined, want 4 and 2", k, d)
	}
	// Of two indexes an equality on t chooses alike, the planner takes
	// the one whose ranges also enforce at.
	mustRun(t, db, "test", `{"createIndexes": "x", "indexes": [{"key": {"t": 1}, "name": "t_1"}]}`)
	mustRun(t, db, "test", `{"createIndexes": "y", "indexes": [{"key": {"t": 1}, "name": "t_1"}, {"key": {"t": 1, "at": 1}, "name": "t_at"}]}`)
	for _, coll := range []string{"x", "y"} {
		if _, ix, _ := explainPlan(t, db, "test", `{"find": "`+coll+`", "filter": {"t": "a", "at": {"$gt": 1}}}`); ix != "t_at" {
			t.Errorf("%s: t and at bounded: planned on %q, want t_at", coll, ix)
		}
	}
	stages, ix, _ := explainPlan(t, db, "test", `{"find": "x", "filter": {"t": "a"}, "sort": {"at": -1}}`)
	if ix != "t_at" || slices.Contains(stages, "SORT") {
		t.Errorf("t: a sorted by at: %v on %q, want the index's order", stages, ix)
	}
	got := firstIDs(t, db, `{"find": "x", "filter": {"t": "a"}, "sort": {"at": -1}}`)
	if !slices.Equal(got, []int32{2, 4, 1}) {
		t.Errorf("t: a sorted by at descending: %v", got)
	}
	stages, _, _ = explainPlan(t, db, "test", `{"find": "x", "filter": {"t": {"$in": ["a", "b"]}}, "sort": {"at": 1}}`)
	if !slices.Contains(stages, "SORT") {
		t.Errorf("two values of t cannot give at's order: %v", stages)
	}
}

// firstIDs runs a find and returns its first batch's _ids in order.
func firstIDs(t *testing.T, db *DB, cmd string) []int32 {
	t.Helper()
	var out []int32
	for _, d := range firstBatch(t, mustRun(t, db, "test", cmd)) {
		out = append(out, field(d, "_id").(int32))
	}
	return out
}

// Updates, deletes, counts and distinct read through an index union
// as finds do, each document once.
func TestOrUnionWrites(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 60; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %d, "b": %d}`, i, i%6, i%10))
	}
	loadCorpus(t, db, "test", "w", docs)
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"b": 1}, "name": "b_1"}]}`)
	filter := `{"$or": [{"a": 0}, {"b": 0}]}` // _id % 6 == 0 or _id % 10 == 0: 10 + 6 - 2 = 14
	if stages, _, _ := explainPlan(t, db, "test", `{"find": "w", "filter": `+filter+`}`); !slices.Contains(stages, "OR") {
		t.Fatalf("plan %v, want an index union", stages)
	}
	r := mustRun(t, db, "test", `{"count": "w", "query": `+filter+`}`)
	if field(r, "n") != int32(14) {
		t.Fatalf("count: %v", r)
	}
	r = mustRun(t, db, "test", `{"distinct": "w", "key": "a", "query": `+filter+`}`)
	if vals, _ := field(r, "values").(bson.A); len(vals) != 3 { // a of 0, 10, 20, ... is 0, 4, 2
		t.Fatalf("distinct: %v", r)
	}
	r = mustRun(t, db, "test", `{"update": "w", "updates": [{"q": `+filter+`, "u": {"$inc": {"n": 1}}, "multi": true}]}`)
	if field(r, "n") != int32(14) || field(r, "nModified") != int32(14) {
		t.Fatalf("update: %v", r)
	}
	if got := count(t, db, "test", "w"); got != 60 {
		t.Fatalf("%d documents after the update", got)
	}
	if n := len(findAll(t, db, "test", "w", mustDoc(t, `{"n": 1}`))); n != 14 {
		t.Fatalf("%d documents updated once, want 14", n)
	}
	r = mustRun(t, db, "test", `{"delete": "w", "deletes": [{"q": `+filter+`, "limit": 0}]}`)
	if field(r, "n") != int32(14) {
		t.Fatalf("delete: %v", r)
	}
	if got := count(t, db, "test", "w"); got != 46 {
		t.Fatalf("%d documents after the delete, want 46", got)
	}
	mustValidate(t, db, "test", "w")
}

// An index union over a clustered collection's _id index and a
// secondary index takes each document once: a find, a count and a
// multi-document update see it once.
func TestOrUnionClustered(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "b": 1}, {"_id": 2, "b": 2}, {"_id": 3, "b": 1}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"b": 1}, "name": "b_1"}]}`)
	filter := `{"$or": [{"_id": 1}, {"b": 1}]}`
	if stages, _, _ := explainPlan(t, db, "test", `{"find": "c", "filter": `+filter+`}`); !slices.Contains(stages, "OR") {
		t.Fatalf("plan %v, want an index union", stages)
	}
	got := firstIDs(t, db, `{"find": "c", "filter": `+filter+`}`)
	slices.Sort(got)
	if !slices.Equal(got, []int32{1, 3}) {
		t.Fatalf("find: %v, want 1 and 3 once each", got)
	}
	if r := mustRun(t, db, "test", `{"count": "c", "query": `+filter+`}`); field(r, "n") != int32(2) {
		t.Fatalf("count: %v", r)
	}
	r := mustRun(t, db, "test", `{"update": "c", "updates": [{"q": `+filter+`, "u": {"$inc": {"n": 1}}, "multi": true}]}`)
	if field(r, "nModified") != int32(2) {
		t.Fatalf("update: %v", r)
	}
	if got := findAll(t, db, "test", "c", mustDoc(t, `{"n": 2}`)); len(got) != 0 {
		t.Fatalf("documents updated twice: %v", got)
	}
}

// A forward index scan that meets a run of keys out of a later field's
// bounds seeks past them to the next key that can be within, and finds
// what a collection scan finds: ascending and descending later fields,
// several ranges on them, small batches across getMores, and a reverse
// scan (which reads on).
func TestCompoundSeekPastKeys(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 2000; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "t": %d, "at": %d}`, i, i%50, i/50))
	}
	loadCorpus(t, db, "test", "s", docs)
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"t": 1, "at": 1}, "name": "t_at"}, {"key": {"t": 1, "at": -1}, "name": "t_atd"}]}`)
	for _, c := range []struct{ filter, hint, sort string }{
		{`{"t": {"$gte": 0}, "at": {"$gte": 37}}`, "t_at", ""},
		{`{"t": {"$gte": 0}, "at": {"$gte": 37}}`, "t_atd", ""},
		{`{"t": {"$gt": 10, "$lt": 40}, "at": {"$in": [2, 20, 39]}}`, "t_at", ""},
		{`{"t": {"$gt": 10, "$lt": 40}, "at": {"$in": [2, 20, 39]}}`, "t_atd", ""},
		{`{"t": {"$gte": 0}, "at": {"$lt": 2}}`, "t_at", `, "sort": {"t": -1, "at": -1}`},
		{`{"t": {"$gte": 0}, "at": {"$gt": 100}}`, "t_at", ""},
		{`{"t": {"$gte": 0}, "at": {"$lt": 3}}`, "t_at", `, "sort": {"t": -1, "at": -1}`},
		{`{"t": {"$gt": 10, "$lt": 40}, "at": {"$in": [2, 20, 39]}}`, "t_at", `, "sort": {"t": -1, "at": -1}`},
		{`{"t": {"$gt": 10, "$lt": 40}, "at": {"$in": [2, 20, 39]}}`, "t_atd", `, "sort": {"t": -1, "at": 1}`},
		{`{"t": {"$gte": 0}, "at": {"$gt": 100}}`, "t_at", `, "sort": {"t": -1, "at": -1}`},
	} {
		find := `{"find": "s", "filter": ` + c.filter + c.sort
		want := firstIDs(t, db, find+`, "hint": {"$natural": 1}, "batchSize": 5000}`)
		// Read in batches of 7 through getMore.
		r := mustRun(t, db, "test", find+`, "hint": "`+c.hint+`", "batchSize": 7}`)
		var got []int32
		for _, d := range firstBatch(t, r) {
			got = append(got, field(d, "_id").(int32))
		}
		id := field(r, "cursor.id")
		for id != int64(0) {
			r = mustRun(t, db, "test", fmt.Sprintf(`{"getMore": %d, "collection": "s", "batchSize": 7}`, id))
			nb, _ := field(r, "cursor.nextBatch").(bson.A)
			for _, d := range nb {
				got = append(got, field(d.(bson.D), "_id").(int32))
			}
			id = field(r, "cursor.id")
		}
		if c.sort == "" {
			slices.Sort(got)
			slices.Sort(want)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s hint %s: %d documents %v, want %d %v", c.filter, c.hint, len(got), got, len(want), want)
		}
	}
	// The seeks show in the keys examined: of each of the 50 tenants' 40
	// keys, 16 read before the seek and the three in bounds (950), not
	// all 2,000.
	r := mustRun(t, db, "test", `{"explain": {"find": "s", "filter": {"t": {"$gte": 0}, "at": {"$gte": 37}}, "hint": "t_at"}, "verbosity": "executionStats"}`)
	if k, _ := field(r, "executionStats.totalKeysExamined").(int32); k >= 1500 || field(r, "executionStats.nReturned") != int32(150) {
		t.Errorf("keys examined %v for 150 documents: the scan did not seek", field(r, "executionStats.totalKeysExamined"))
	}
	// Backward, the same: each tenant's 37 keys above 2 are read 16 at
	// most, then the scan seeks below 3.
	r = mustRun(t, db, "test", `{"explain": {"find": "s", "filter": {"t": {"$gte": 0}, "at": {"$lt": 3}}, "sort": {"t": -1, "at": -1}, "hint": "t_at"}, "verbosity": "executionStats"}`)
	if k, _ := field(r, "executionStats.totalKeysExamined").(int32); k >= 1500 || field(r, "executionStats.nReturned") != int32(150) {
		t.Errorf("backward: keys examined %v for 150 documents: the scan did not seek", field(r, "executionStats.totalKeysExamined"))
	}
}

// A multikey compound index is bounded on each of its fields and still
// finds what a collection scan finds: random documents holding arrays in
// one field or another (empty, nested, of mixed types), filters with
// several conditions on one field, $elemMatch, $ne, $nin, $size and
// $exists, each read through a hinted index and as a collection scan.
func TestCompoundMultikeyAgreeWithScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 2028))
	scalar := func() string {
		switch rng.IntN(5) {
		case 0, 1:
			return fmt.Sprint(rng.IntN(5))
		case 2:
			return fmt.Sprintf(`"%c"`, 'a'+rng.IntN(3))
		case 3:
			return "null"
		}
		return fmt.Sprintf("%d.5", rng.IntN(4))
	}
	value := func() string {
		switch rng.IntN(8) {
		case 0:
			return "[]"
		case 1:
			return fmt.Sprintf("[[%s, %s]]", scalar(), scalar())
		case 2, 3:
			var el []string
			for range 1 + rng.IntN(3) {
				el = append(el, scalar())
			}
			return "[" + strings.Join(el, ", ") + "]"
		}
		return scalar()
	}
	db, _ := openMem(t)
	n := 400
	if raceOn {
		n = 150
	}
	var docs []string
	for i := 0; i < n; i++ {
		fields := []string{fmt.Sprintf(`"_id": %d`, i)}
		arrayIn := []string{"a", "b", "c", ""}[rng.IntN(4)] // at most one array a document
		for _, f := range []string{"a", "b", "c"} {
			if rng.IntN(6) == 0 {
				continue
			}
			v := scalar()
			if f == arrayIn {
				v = value()
			}
			fields = append(fields, fmt.Sprintf(`"%s": %s`, f, v))
		}
		docs = append(docs, "{"+strings.Join(fields, ", ")+"}")
	}
	loadCorpus(t, db, "test", "mk", docs)
	mustRun(t, db, "test", `{"createIndexes": "mk", "indexes": [
		{"key": {"a": 1, "b": -1, "c": 1}, "name": "a_b_c"},
		{"key": {"b": 1, "a": 1}, "name": "b_a"}]}`)
	if _, _, mk := explainPlan(t, db, "test", `{"find": "mk", "filter": {"a": 1}, "hint": "a_b_c"}`); !mk {
		t.Fatal("a_b_c is not multikey: the corpus holds no arrays")
	}
	ids := func(cmd string) []int32 {
		t.Helper()
		var out []int32
		for _, d := range firstBatch(t, mustRun(t, db, "test", cmd)) {
			out = append(out, field(d, "_id").(int32))
		}
		slices.Sort(out)
		return out
	}
	cond := func() string {
		switch rng.IntN(9) {
		case 0:
			return fmt.Sprintf(`{"$in": [%s, %s]}`, scalar(), scalar())
		case 1, 2:
			op := []string{"$gt", "$gte", "$lt", "$lte"}[rng.IntN(4)]
			return fmt.Sprintf(`{"%s": %s}`, op, scalar())
		case 3:
			// Two conditions that different elements may meet.
			return fmt.Sprintf(`{"$gt": %d, "$lt": %d}`, rng.IntN(4), rng.IntN(5))
		case 4:
			return fmt.Sprintf(`{"$elemMatch": {"$gte": %d, "$lte": %d}}`, rng.IntN(4), rng.IntN(5))
		case 5:
			if rng.IntN(2) == 0 {
				return fmt.Sprintf(`{"$ne": %s}`, scalar())
			}
			return fmt.Sprintf(`{"$nin": [%s, %s]}`, scalar(), scalar())
		case 6:
			return fmt.Sprintf(`{"$size": %d}`, rng.IntN(3))
		case 7:
			return fmt.Sprintf(`{"$exists": %t}`, rng.IntN(2) == 0)
		}
		return scalar()
	}
	bounded := 0
	for i := 0; i < 400; i++ {
		var parts []string
		for _, f := range []string{"a", "b", "c"} {
			if rng.IntN(3) > 0 {
				parts = append(parts, fmt.Sprintf(`"%s": %s`, f, cond()))
			}
		}
		filter := "{" + strings.Join(parts, ", ") + "}"
		find := `{"find": "mk", "filter": ` + filter + `, "batchSize": 1000`
		scanned := ids(find + `, "hint": {"$natural": 1}}`)
		for _, hint := range []string{"a_b_c", "b_a"} {
			if got := ids(find + `, "hint": "` + hint + `"}`); !slices.Equal(got, scanned) {
				t.Fatalf("filter %s with hint %s finds %v; a collection scan finds %v", filter, hint, got, scanned)
			}
		}
		if got := ids(find + `}`); !slices.Equal(got, scanned) {
			t.Fatalf("filter %s as planned finds %v; a collection scan finds %v", filter, got, scanned)
		}
		r := mustRun(t, db, "test", `{"explain": {"find": "mk", "filter": `+filter+`, "hint": "a_b_c"}, "verbosity": "queryPlanner"}`)
		if b, _ := field(r, "queryPlanner.winningPlan.inputStage.indexBounds.b").(bson.A); len(b) > 0 && b[0] != "[MaxKey, MinKey]" {
			bounded++
		}
	}
	// The later fields were bounded, not only the first.
	if bounded < 50 {
		t.Errorf("b was bounded on a_b_c in %d filters of 400", bounded)
	}
}

// Fields through one array ({"a.b": 1, "a.c": 1}) are keyed element by
// element, as mongod keys them, and not refused as parallel arrays; an
// index over them finds what a collection scan finds, though a.b and
// a.c may be met by different elements (their bounds are not
// compounded).
func TestSharedArrayPrefixAgreeWithScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 2028))
	small := func() string {
		if rng.IntN(6) == 0 {
			return "null"
		}
		return fmt.Sprint(rng.IntN(4))
	}
	elem := func() string {
		switch rng.IntN(6) {
		case 0:
			return small() // not a document: a.b and a.c are null for it
		case 1:
			return fmt.Sprintf(`{"b": [%s, %s], "c": %s}`, small(), small(), small())
		}
		var fs []string
		if rng.IntN(5) > 0 {
			fs = append(fs, `"b": `+small())
		}
		if rng.IntN(5) > 0 {
			fs = append(fs, `"c": `+small())
		}
		return "{" + strings.Join(fs, ", ") + "}"
	}
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 300; i++ {
		var a string
		switch rng.IntN(5) {
		case 0:
			a = elem()
		case 1:
			a = "[]"
		default:
			var el []string
			for range 1 + rng.IntN(3) {
				el = append(el, elem())
			}
			a = "[" + strings.Join(el, ", ") + "]"
		}
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %s, "x": %d}`, i, a, rng.IntN(3)))
	}
	loadCorpus(t, db, "test", "sp", docs)
	mustRun(t, db, "test", `{"createIndexes": "sp", "indexes": [
		{"key": {"a.b": 1, "a.c": 1}, "name": "ab_ac"},
		{"key": {"x": 1, "a.c": -1, "a.b": 1}, "name": "x_ac_ab"},
		{"key": {"a": 1, "a.b": 1}, "name": "a_ab"}]}`)
	ids := func(cmd string) []int32 {
		t.Helper()
		var out []int32
		for _, d := range firstBatch(t, mustRun(t, db, "test", cmd)) {
			out = append(out, field(d, "_id").(int32))
		}
		slices.Sort(out)
		return out
	}
	cond := func() string {
		switch rng.IntN(5) {
		case 0:
			return fmt.Sprintf(`{"$in": [%s, %s]}`, small(), small())
		case 1:
			return fmt.Sprintf(`{"%s": %d}`, []string{"$gt", "$gte", "$lt", "$lte"}[rng.IntN(4)], rng.IntN(4))
		case 2:
			return fmt.Sprintf(`{"$ne": %s}`, small())
		}
		return small()
	}
	queries := 300
	if raceOn {
		queries = 100
	}
	for i := 0; i < queries; i++ {
		var parts []string
		for _, f := range []string{"a.b", "a.c", "x"} {
			if rng.IntN(2) == 0 {
				parts = append(parts, fmt.Sprintf(`"%s": %s`, f, cond()))
			}
		}
		if rng.IntN(4) == 0 {
			parts = append(parts, fmt.Sprintf(`"a": {"$elemMatch": {"b": %s, "c": %s}}`, cond(), cond()))
		}
		filter := "{" + strings.Join(parts, ", ") + "}"
		find := `{"find": "sp", "filter": ` + filter + `, "batchSize": 1000`
		scanned := ids(find + `, "hint": {"$natural": 1}}`)
		for _, hint := range []string{"ab_ac", "x_ac_ab", "a_ab"} {
			if got := ids(find + `, "hint": "` + hint + `"}`); !slices.Equal(got, scanned) {
				t.Fatalf("filter %s with hint %s finds %v; a collection scan finds %v", filter, hint, got, scanned)
			}
		}
		if got := ids(find + `}`); !slices.Equal(got, scanned) {
			t.Fatalf("filter %s as planned finds %v; a collection scan finds %v", filter, got, scanned)
		}
	}
	// One $elemMatch bounds both fields, compounded; without one, only
	// the first. An $elemMatch alone plans on the index.
	bounds := func(filter string) string {
		r := mustRun(t, db, "test", `{"explain": {"find": "sp", "filter": `+filter+`, "hint": "ab_ac"}, "verbosity": "queryPlanner"}`)
		return fmtValue(field(r, "queryPlanner.winningPlan.inputStage.indexBounds"))
	}
	if got := bounds(`{"a": {"$elemMatch": {"b": 1, "c": {"$gt": 2}}}}`); got != `{ a.b: [ "[1, 1]" ], a.c: [ "(2, inf.0]" ] }` {
		t.Errorf("$elemMatch bounds %s", got)
	}
	if got := bounds(`{"a.b": 1, "a.c": {"$gt": 2}}`); got != `{ a.b: [ "[1, 1]" ], a.c: [ "[MinKey, MaxKey]" ] }` {
		t.Errorf("bounds without $elemMatch %s", got)
	}
	if _, ix, _ := explainPlan(t, db, "test", `{"find": "sp", "filter": {"a": {"$elemMatch": {"b": 1, "c": 2}}}}`); ix == "" {
		t.Error("an $elemMatch on the indexed array is a collection scan")
	}
	// Two arrays on different paths are still refused, and nothing of the
	// batch's other documents is lost.
	r := mustRun(t, db, "test", `{"insert": "sp", "documents": [{"_id": "ok1", "a": {"b": 1}}, {"_id": "bad", "a": [{"b": [1, 2], "c": [3, 4]}]}, {"_id": "ok2"}], "ordered": false}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(we[0].(bson.D), "code") != int32(171) || field(r, "n") != int32(2) {
		t.Fatalf("parallel arrays in one element: %v", r)
	}
}

// An array element that is not a document, or lacks the field, keys a
// dotted path as null, as mongod does: {"a.b": null} through an index
// on a.b finds {a: [{b: 1}, {c: 2}]}, which it used to miss.
func TestDottedPathNullThroughArray(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "p", []string{`{"_id": 1, "a": [{"b": 1}, {"c": 2}]}`, `{"_id": 2, "a": [{"b": 1}, 5]}`,
		`{"_id": 3, "a": []}`, `{"_id": 4, "a": [[{"b": 1}]]}`, `{"_id": 5, "a": [{"b": null}]}`, `{"_id": 6, "a": {"b": 2}}`})
	mustRun(t, db, "test", `{"createIndexes": "p", "indexes": [{"key": {"a.b": 1}, "name": "ab"}]}`)
	for _, f := range []string{`{"a.b": null}`, `{"a.b": {"$in": [null, 2]}}`, `{"a.b": {"$exists": false}}`, `{"a.b": 1}`, `{"a.b": {"$ne": 1}}`} {
		want := firstIDs(t, db, `{"find": "p", "filter": `+f+`, "hint": {"$natural": 1}}`)
		got := firstIDs(t, db, `{"find": "p", "filter": `+f+`, "hint": "ab"}`)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s through a.b: %v; a collection scan finds %v", f, got, want)
		}
	}
	if got := firstIDs(t, db, `{"find": "p", "filter": {"a.b": null}, "hint": "ab"}`); !slices.Contains(got, 1) {
		t.Errorf("{a.b: null} through a.b: %v, without document 1", got)
	}
}
