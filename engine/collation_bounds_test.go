package engine

import (
	"fmt"
	"sort"
	"testing"
)

// docs/collation.md: an index of another collation than the query's
// answers bounds that hold no strings, documents or arrays (numbers,
// dates, booleans...), as MongoDB's planner allows, and gives the same
// documents as a collection scan; bounds with strings, or spanning
// types, still scan the collection.
func TestCollationNonStringBoundsUseIndex(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 40; i++ {
		var n string
		switch i % 5 {
		case 0:
			n = fmt.Sprintf(`"s%d"`, i)
		case 1:
			n = fmt.Sprintf(`[%d, "A%d"]`, i%7, i)
		case 2:
			n = fmt.Sprintf(`{"$date": "2026-01-%02dT00:00:00Z"}`, 1+i%28)
		default:
			n = fmt.Sprint(i % 11)
		}
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "n": %s, "s": %s}`, i, n, n))
	}
	loadCorpus(t, db, "test", "c", docs)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"n": 1}, "name": "n_1", "collation": {"locale": "en", "strength": 2}}, {"key": {"s": 1}, "name": "s_1"}]}`)
	const en = `{"locale": "en", "strength": 2}`
	ids := func(cmd string) []string {
		t.Helper()
		var out []string
		for _, d := range firstBatch(t, mustRun(t, db, "test", cmd)) {
			out = append(out, fmt.Sprint(field(d, "_id")))
		}
		sort.Strings(out)
		return out
	}
	for _, c := range []struct {
		filter, collation, want string // want: the index, "" for a collection scan
	}{
		{`{"n": {"$gt": 5}}`, `{"locale": "simple"}`, "n_1"},
		{`{"n": {"$gte": 3, "$lt": 8}}`, `{"locale": "simple"}`, "n_1"},
		{`{"n": {"$in": [4, {"$date": "2026-01-03T00:00:00Z"}, true]}}`, `{"locale": "simple"}`, "n_1"},
		{`{"n": 2}`, `{"locale": "simple"}`, "n_1"},
		{`{"s": {"$lt": 6}}`, en, "s_1"},
		{`{"s": {"$gt": {"$date": "2026-01-10T00:00:00Z"}}}`, en, "s_1"},
		{`{"n": "s10"}`, `{"locale": "simple"}`, ""},
		{`{"n": {"$in": [4, "S15"]}}`, `{"locale": "simple"}`, ""},
		{`{"s": {"$gte": "s"}}`, en, ""},
		{`{"s": [2, "A30"]}`, en, ""},
		{`{"n": {"$ne": 5}}`, `{"locale": "simple"}`, ""},
	} {
		ex := mustRun(t, db, "test", `{"explain": {"find": "c", "filter": `+c.filter+`, "collation": `+c.collation+`}}`)
		if got := winningIndex(ex); got != c.want {
			t.Errorf("%s under %s used %q, want %q", c.filter, c.collation, got, c.want)
		}
		got := ids(`{"find": "c", "filter": ` + c.filter + `, "collation": ` + c.collation + `}`)
		scan := ids(`{"find": "c", "filter": ` + c.filter + `, "collation": ` + c.collation + `, "hint": {"$natural": 1}}`)
		if fmt.Sprint(got) != fmt.Sprint(scan) || (c.want != "" && len(got) == 0) {
			t.Errorf("%s under %s: %v, the collection scan %v", c.filter, c.collation, got, scan)
		}
	}
	// A sort is not taken from an index of another collation.
	ex := mustRun(t, db, "test", `{"explain": {"find": "c", "filter": {"n": {"$gt": 5}}, "sort": {"n": 1}, "collation": {"locale": "simple"}}}`)
	if s := field(ex, "queryPlanner.winningPlan.stage"); s != "SORT" {
		t.Errorf("sorted find over n_1 under simple: top stage %v, want SORT", s)
	}
}
