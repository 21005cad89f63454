package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Hashed and wildcard indexes find exactly what a collection scan
// finds: random documents (nested documents, arrays, mixed types) and
// random filters, each run through the planner's choice and again with
// {$natural: 1}, which reads every document.
func TestIndexKindsAgreeWithScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 2026))
	scalar := func() string {
		switch rng.IntN(7) {
		case 0:
			return fmt.Sprint(rng.IntN(5))
		case 1:
			return fmt.Sprintf("%d.5", rng.IntN(5))
		case 2:
			return fmt.Sprintf(`"%c"`, 'a'+rng.IntN(4))
		case 3:
			return fmt.Sprintf(`{"$numberLong": "%d"}`, rng.IntN(5))
		case 4:
			return "null"
		case 5:
			return fmt.Sprintf(`{"$date": "2026-01-0%dT00:00:00Z"}`, 1+rng.IntN(3))
		}
		return []string{"true", "false"}[rng.IntN(2)]
	}
	value := func(arrays bool) string {
		switch r := rng.IntN(10); {
		case r < 6:
			return scalar()
		case r < 8:
			return fmt.Sprintf(`{"x": %s, "y": %s}`, scalar(), scalar())
		case arrays && r == 8:
			return fmt.Sprintf(`[%s, %s]`, scalar(), scalar())
		case arrays:
			return fmt.Sprintf(`[{"x": %s}, %s]`, scalar(), scalar())
		}
		return "{}"
	}
	db, _ := openMem(t)
	n := 400
	if raceOn {
		n = 120
	}
	var docs []string
	for i := 0; i < n; i++ {
		fields := []string{fmt.Sprintf(`"_id": %d`, i)}
		if rng.IntN(5) > 0 {
			fields = append(fields, `"h": `+value(false)) // the hashed field holds no arrays
		}
		for _, f := range []string{"a", "b"} {
			if rng.IntN(4) > 0 {
				fields = append(fields, fmt.Sprintf(`"%s": %s`, f, value(true)))
			}
		}
		docs = append(docs, "{"+strings.Join(fields, ", ")+"}")
	}
	loadCorpus(t, db, "test", "d", docs)
	mustRun(t, db, "test", `{"createIndexes": "d", "indexes": [{"key": {"h": "hashed"}, "name": "h_hashed"}, {"key": {"$**": 1}, "name": "w", "wildcardProjection": {"h": 0}}]}`)
	mustValidate(t, db, "test", "d")
	ids := func(cmd string) []int32 {
		t.Helper()
		var out []int32
		for _, d := range firstBatch(t, mustRun(t, db, "test", cmd)) {
			out = append(out, field(d, "_id").(int32))
		}
		slices.Sort(out)
		return out
	}
	paths := []string{"h", "h.x", "a", "a.x", "a.y", "b", "b.x"}
	ops := []string{"", "$gt", "$gte", "$lt", "$lte", "$in", "$ne"}
	used := map[string]int{}
	for i := 0; i < 300; i++ {
		p := paths[rng.IntN(len(paths))]
		var cond string
		switch op := ops[rng.IntN(len(ops))]; op {
		case "":
			cond = value(rng.IntN(4) == 0)
		case "$in":
			cond = fmt.Sprintf(`{"$in": [%s, %s]}`, scalar(), value(false))
		default:
			cond = fmt.Sprintf(`{"%s": %s}`, op, scalar())
		}
		filter := fmt.Sprintf(`{"%s": %s}`, p, cond)
		if rng.IntN(3) == 0 {
			q := paths[rng.IntN(len(paths))]
			filter = fmt.Sprintf(`{"%s": %s, "%s": %s}`, p, cond, q, scalar())
		}
		planned := ids(`{"find": "d", "filter": ` + filter + `, "batchSize": 1000}`)
		scanned := ids(`{"find": "d", "filter": ` + filter + `, "hint": {"$natural": 1}, "batchSize": 1000}`)
		if !slices.Equal(planned, scanned) {
			_, ix, _ := explainPlan(t, db, "test", `{"find": "d", "filter": `+filter+`}`)
			t.Fatalf("filter %s planned on %q finds %v; a collection scan finds %v", filter, ix, planned, scanned)
		}
		_, ix, _ := explainPlan(t, db, "test", `{"find": "d", "filter": `+filter+`}`)
		used[ix]++
	}
	if used["h_hashed"] == 0 || used["w"] == 0 {
		t.Fatalf("the filters did not exercise both indexes: %v", used)
	}
	t.Logf("plans: %v", used)
}
