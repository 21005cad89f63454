package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// The key patterns and projections of compound wildcard indexes, as
// mongod's compound_wildcard_index_validation.js accepts and refuses
// them.
func TestCompoundWildcardSpecs(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for i, tc := range []struct {
		key, wp string
		code    document.Code
	}{
		{`{"a": 1, "b.$**": 1}`, ``, 0},
		{`{"a.$**": 1, "b": 1}`, ``, 0},
		{`{"a": 1, "b.$**": 1, "c": -1}`, ``, 0},
		{`{"a": 1, "$**": 1}`, `{"a": 0}`, 0},
		{`{"$**": 1, "a": 1}`, `{"a": 0}`, 0},
		{`{"$**": 1, "other": 1}`, `{"_id": 0, "a": 1}`, 0},
		{`{"$**": 1, "another": 1}`, `{"_id": 1, "a": 0, "another": 0}`, 0},
		{`{"$**": 1, "yetAnother": 1}`, `{"_id": 1}`, 0},
		{`{"$**": 1, "d": 1}`, `{"a": {"b": 1, "c": 1}}`, 0},
		{`{"a": 1, "a.$**": 1}`, ``, 7246204},
		{`{"a.b.c": 1, "a.b.$**": 1}`, ``, 7246204},
		{`{"$**": 1, "c": 1}`, `{"a.b": 1, "a.b.c": 1}`, 7246200},
		{`{"a.$**": 1, "b.$**": 1}`, ``, 7246201},
		{`{"a.$**": 1, "b": "hashed"}`, ``, 67},
		{`{"a.$**": 1, "b": "2dsphere"}`, ``, 67},
		{`{"a": 1, "$**": 1}`, ``, 67},
		{`{"a": 1, "$**": 1}`, `{}`, 9},
		{`{"a": 1, "$**": 1}`, `{"a": 1}`, 7246208},
		{`{"_id": 1, "$**": 1}`, `{"_id": 1}`, 7246208},
		{`{"$**": 1, "c": 1}`, `{"_id": 0, "a": 0, "b": 1}`, 7246211},
		{`{"$**": 1, "c": 1}`, `{"_id": 0, "b": 1}`, 0},
		{`{"$**": 1, "e": 1}`, `{"_id": 1, "e": 0}`, 0},
		{`{"$**": 1, "_id": 1, "e": 1}`, `{"_id": 1, "e": 0}`, 7246209},
		{`{"$**": 1, "_id": 1, "e": 1}`, `{"_id": 0, "a": 1}`, 0},
		{`{"a": 1, "$**": 1}`, `{"_id": 0}`, 7246210},
		{`{"b": 1, "$**": 1, "a": 1}`, `{"_id": 0}`, 7246210},
		{`{"_id": 1, "$**": 1}`, `{"_id": 0}`, 0},
		{`{"_id": 1, "$**": 1, "a": 1}`, `{"_id": 0}`, 7246210},
		{`{"a": 1, "_id": 1, "$**": 1}`, `{"a": 0}`, 7246209},
		{`{"a": 1, "b": 1, "$**": 1}`, `{"b": 0}`, 7246209},
		{`{"b": 1, "$**": 1}`, `{"_id": 0, "a": 0}`, 7246210},
		{`{"_id": 1, "a.b": 1, "$**": 1}`, `{"_id": 0, "a": 0}`, 0},
		{`{"_id": 1, "a": 1, "$**": 1}`, `{"_id": 0, "a.b": 0}`, 7246209},
		{`{"$**": 1, "e.c": 1}`, `{"_id": 1, "e.b": 0}`, 7246210},
		{`{"$**": 1, "e": 1}`, `{"_id": 1, "e.b": 0}`, 7246209},
		{`{"$**": 1, "e.b": 1}`, `{"_id": 1, "e": 0}`, 0},
		{`{"a.$**": 1, "b": 1}`, `{"a": 1}`, 9},
	} {
		spec := fmt.Sprintf(`{"key": %s, "name": "ix%d"`, tc.key, i)
		if tc.wp != "" {
			spec += `, "wildcardProjection": ` + tc.wp
		}
		cmd := `{"createIndexes": "v", "indexes": [` + spec + `}]}`
		if tc.code == 0 {
			mustRun(t, db, "test", cmd)
			continue
		}
		wantCode(t, db, "test", cmd, tc.code, "")
	}
	for _, opt := range []string{`"unique": true`, `"sparse": true`, `"expireAfterSeconds": 60`} {
		wantCode(t, db, "test", `{"createIndexes": "v", "indexes": [{"key": {"a.$**": 1, "b": 1}, "name": "o", `+opt+`}]}`, 67, "does not support")
	}
	// Every index made above keys these documents, and validates.
	for i := 0; i < 10; i++ {
		mustRun(t, db, "test", fmt.Sprintf(`{"insert": "v", "documents": [{"a": %d, "b": {"a": %d, "c": %d}, "str": "aa"}]}`, i, 2*i, i*i))
	}
	if v := mustValidate(t, db, "test", "v"); !v.Valid() {
		t.Fatalf("validate: %+v", v)
	}
}

// A compound wildcard index answers a query on a wildcard path (with or
// without its regular fields) and one on its leading regular field
// alone; every answer is the collection scan's, and a regular field
// holding an array is refused.
func TestCompoundWildcardQueries(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	var docs []string
	for i := 0; i < 300; i++ {
		var attrs []string
		for _, k := range []string{"color", "size", "tags"} {
			if rng.IntN(3) == 0 {
				continue
			}
			switch k {
			case "color":
				attrs = append(attrs, fmt.Sprintf(`"color": "c%d"`, rng.IntN(4)))
			case "size":
				attrs = append(attrs, fmt.Sprintf(`"size": %d`, rng.IntN(10)))
			case "tags":
				attrs = append(attrs, fmt.Sprintf(`"tags": ["t%d", "t%d"]`, rng.IntN(3), rng.IntN(3)))
			}
		}
		fields := []string{fmt.Sprintf(`"_id": %d`, i)}
		if rng.IntN(8) != 0 {
			fields = append(fields, fmt.Sprintf(`"tenant": "t%d"`, rng.IntN(3)))
		}
		if rng.IntN(5) != 0 {
			fields = append(fields, `"attrs": {`+strings.Join(attrs, ", ")+`}`)
		}
		fields = append(fields, fmt.Sprintf(`"ts": %d`, rng.IntN(100)))
		docs = append(docs, "{"+strings.Join(fields, ", ")+"}")
	}
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "scan", docs)
	loadCorpus(t, db, "test", "cw", docs)
	mustRun(t, db, "test", `{"createIndexes": "cw", "indexes": [{"key": {"tenant": 1, "attrs.$**": 1, "ts": -1}, "name": "cwi"}]}`)
	lr := fmt.Sprint(firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "cw"}`)))
	if !strings.Contains(lr, `"key":{"tenant":{"$numberInt":"1"},"attrs.$**":{"$numberInt":"1"},"ts":{"$numberInt":"-1"}},"name":"cwi"`) {
		t.Fatalf("listIndexes: %s", lr)
	}
	for _, tc := range []struct {
		filter, plan string
	}{
		{`{"tenant": "t1", "attrs.color": "c2"}`, `"$_path":["[\"attrs.color\", \"attrs.color\"]"]`},
		{`{"attrs.size": {"$gte": 5}}`, `"$_path":["[\"attrs.size\", \"attrs.size\"]"]`},
		{`{"tenant": "t0", "attrs.tags": "t2", "ts": {"$lt": 50}}`, `"attrs.tags":["[\"t2\", \"t2\"]"]`},
		{`{"tenant": "t2"}`, `"$_path":["[MinKey, MinKey]"`},
		{`{"tenant": {"$in": ["t0", "t1"]}, "ts": {"$gt": 90}}`, `"$_path":["[MinKey, MinKey]"`},
		{`{"tenant": null}`, `COLLSCAN`},
		{`{"ts": 5}`, `COLLSCAN`},
		{`{"attrs.color": null}`, `COLLSCAN`},
	} {
		want := firstIDs(t, db, `{"find": "scan", "filter": `+tc.filter+`, "sort": {"_id": 1}, "batchSize": 1000}`)
		got := firstIDs(t, db, `{"find": "cw", "filter": `+tc.filter+`, "sort": {"_id": 1}, "batchSize": 1000}`)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: index %v, scan %v", tc.filter, got, want)
		}
		ex := fmt.Sprint(mustRun(t, db, "test", `{"explain": {"find": "cw", "filter": `+tc.filter+`}}`))
		if !strings.Contains(ex, tc.plan) {
			t.Errorf("%s: explain lacks %s: %s", tc.filter, tc.plan, ex)
		}
		n := count(t, db, "test", "cw")
		if n != 300 {
			t.Fatalf("%d documents", n)
		}
	}
	wantWriteError(t, db, `{"insert": "cw", "documents": [{"_id": 1000, "tenant": ["a", "b"], "attrs": {"x": 1}}]}`, 133, "meets an array")
	// Updates move a document's keys; validate agrees.
	mustRun(t, db, "test", `{"update": "cw", "updates": [{"q": {}, "u": {"$inc": {"attrs.size": 1}, "$set": {"tenant": "t9"}}, "multi": true}]}`)
	mustRun(t, db, "test", `{"update": "scan", "updates": [{"q": {}, "u": {"$inc": {"attrs.size": 1}, "$set": {"tenant": "t9"}}, "multi": true}]}`)
	for _, f := range []string{`{"tenant": "t9", "attrs.size": 3}`, `{"tenant": "t1"}`} {
		want := firstIDs(t, db, `{"find": "scan", "filter": `+f+`, "sort": {"_id": 1}, "batchSize": 1000}`)
		got := firstIDs(t, db, `{"find": "cw", "filter": `+f+`, "sort": {"_id": 1}, "batchSize": 1000}`)
		if !slices.Equal(got, want) {
			t.Fatalf("after the update, %s: index %v, scan %v", f, got, want)
		}
	}
	if v := mustValidate(t, db, "test", "cw"); !v.Valid() {
		t.Fatalf("validate: %+v", v)
	}
}

// mongod's compound_wildcard_index_unbounded.js: a hinted scan with the
// regular field unbounded reads the document that has it (and only a
// leaf elsewhere), each once.
func TestCompoundWildcardUnbounded(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "u", "indexes": [{"key": {"a": 1, "$**": 1}, "name": "a_1_$**_1", "wildcardProjection": {"a": 0}}]}`)
	loadCorpus(t, db, "test", "u", []string{`{"_id": 1, "a": 1, "b": 1}`, `{"_id": 2, "b": [1, 2]}`})
	got := firstIDs(t, db, `{"find": "u", "filter": {"a": {"$exists": true}}, "hint": {"a": 1, "$**": 1}}`)
	if !slices.Equal(got, []int32{1}) {
		t.Fatalf("hinted $exists: %v", got)
	}
	got = firstIDs(t, db, `{"find": "u", "filter": {"b": {"$gte": 1}}, "sort": {"_id": 1}}`)
	if !slices.Equal(got, []int32{1, 2}) {
		t.Fatalf("b >= 1: %v", got)
	}
}

// A compound wildcard index gives a sort on its regular fields before
// the wildcard, from the first (mongod's prefix sorts): no SORT stage,
// each document once, the collection scan's order.
func TestCompoundWildcardPrefixSort(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "ps", "indexes": [{"key": {"a": 1, "b": -1, "w.$**": 1}, "name": "ab_w"}]}`)
	var docs []string
	for i := 0; i < 200; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "a": %d, "b": %d, "w": {"x": %d, "y": [1, 2, %d]}}`, i, i%10, i, i%3, i%5))
	}
	loadCorpus(t, db, "test", "ps", docs)
	loadCorpus(t, db, "test", "plain", docs)
	for _, q := range []string{
		`"filter": {"a": {"$gte": 7}}, "sort": {"a": 1, "b": -1}, "limit": 15`,
		`"filter": {"a": {"$in": [2, 4]}}, "sort": {"a": -1, "b": 1}, "skip": 3, "limit": 9`,
		`"filter": {"a": 3, "w.x": 1}, "sort": {"a": 1, "b": -1}`,
	} {
		want := firstIDs(t, db, `{"find": "plain", `+q+`, "batchSize": 1000}`)
		got := firstIDs(t, db, `{"find": "ps", `+q+`, "batchSize": 1000}`)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: index %v, scan %v", q, got, want)
		}
		if ex := fmt.Sprint(mustRun(t, db, "test", `{"explain": {"find": "ps", `+q+`}}`)); strings.Contains(ex, `"SORT"`) || !strings.Contains(ex, "ab_w") {
			t.Fatalf("%s: %s", q, ex)
		}
	}
	// A sort on the wildcard's path is done in memory.
	q := `"filter": {"a": 3, "w.x": {"$gte": 0}}, "sort": {"w.x": 1, "_id": 1}`
	if ex := fmt.Sprint(mustRun(t, db, "test", `{"explain": {"find": "ps", `+q+`}}`)); !strings.Contains(ex, `"SORT"`) {
		t.Fatalf("%s: %s", q, ex)
	}
	if got, want := firstIDs(t, db, `{"find": "ps", `+q+`}`), firstIDs(t, db, `{"find": "plain", `+q+`}`); !slices.Equal(got, want) {
		t.Fatalf("%s: index %v, scan %v", q, got, want)
	}
}
