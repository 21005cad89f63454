package agg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestGroupSpill runs one $group with every accumulator twice: in
// memory, and with a memory limit that makes it spill its groups many
// times. Each group must come out the same (the standard deviations to
// within rounding: partial variances combine in another order), which
// checks that each accumulator's spilled state folds back in input
// order. Without Spill the small limit is 292.
func TestGroupSpill(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	var docs []string
	for i := range 3000 {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "g": %d, "v": %d, "f": %d.5, "s": "s%d", "o": {"k%d": %d}, "arr": [%d, %d]}`,
			i, r.IntN(120), r.IntN(1000)-500, r.IntN(100), r.IntN(30), r.IntN(5), i, r.IntN(10), r.IntN(10)))
	}
	in := "[" + strings.Join(docs, ",") + "]"
	pipeline := `[{"$group": {"_id": {"g": "$g"},
		"sum": {"$sum": "$v"}, "fsum": {"$sum": "$f"}, "count": {"$count": {}}, "avg": {"$avg": "$v"},
		"min": {"$min": "$s"}, "max": {"$max": "$v"}, "first": {"$first": "$_id"}, "last": {"$last": "$_id"},
		"push": {"$push": "$v"}, "set": {"$addToSet": "$s"}, "pop": {"$stdDevPop": "$v"}, "samp": {"$stdDevSamp": "$f"},
		"merged": {"$mergeObjects": "$o"}, "firstN": {"$firstN": {"input": "$_id", "n": 3}}, "lastN": {"$lastN": {"input": "$_id", "n": 3}},
		"minN": {"$minN": {"input": "$v", "n": 2}}, "maxN": {"$maxN": {"input": "$v", "n": 2}},
		"top": {"$top": {"output": "$_id", "sortBy": {"v": 1}}}, "bottomN": {"$bottomN": {"output": ["$_id", "$v"], "sortBy": {"s": 1}, "n": 2}},
		"p": {"$percentile": {"input": "$v", "p": [0.5, 0.9], "method": "approximate"}}, "median": {"$median": {"input": "$f", "method": "approximate"}},
		"cat": {"$concatArrays": "$arr"}, "union": {"$setUnion": "$arr"}}},
		{"$sort": {"_id.g": 1}}]`
	want, err := run(t, in, pipeline, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, in, pipeline, Options{MaxMemoryBytes: 60000}); codeOf(err) != 292 {
		t.Fatalf("the small limit without Spill: %v, want 292", err)
	}
	got, err := run(t, in, pipeline, Options{MaxMemoryBytes: 60000, Spill: true, SpillDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) != 120 {
		t.Fatalf("%d groups spilled, %d in memory", len(got), len(want))
	}
	for i := range want {
		for j, e := range want[i] {
			g := got[i][j]
			if e.Key == "pop" || e.Key == "samp" {
				if g.Key != e.Key || math.Abs(g.Value.(float64)-e.Value.(float64)) > 1e-9*math.Abs(e.Value.(float64)) {
					t.Fatalf("group %v: %s = %v spilled, %v in memory", want[i][0].Value, e.Key, g.Value, e.Value)
				}
				continue
			}
			if g.Key != e.Key || document.Format(g.Value) != document.Format(e.Value) {
				t.Fatalf("group %v: %s = %s spilled, %s in memory", want[i][0].Value, e.Key, document.Format(g.Value), document.Format(e.Value))
			}
		}
	}
}

// TestGroupSpillOrder checks that spilled groups come out once each,
// whatever their number, and that the memory limit still holds for one
// group that alone passes it.
func TestGroupSpillOrder(t *testing.T) {
	t.Parallel()
	var docs []string
	for i := range 2000 {
		docs = append(docs, fmt.Sprintf(`{"g": %d, "pad": "%s"}`, i%700, strings.Repeat("x", 50)))
	}
	in := "[" + strings.Join(docs, ",") + "]"
	got, err := run(t, in, `[{"$group": {"_id": "$g", "n": {"$sum": 1}}}]`, Options{MaxMemoryBytes: 5000, Spill: true, SpillDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int32
	for _, d := range got {
		ids = append(ids, d[0].Value.(int32))
		if n := d[1].Value.(int32); n != 3 && n != 2 {
			t.Fatalf("group %v counted %d", d[0].Value, n)
		}
	}
	slices.Sort(ids)
	if len(ids) != 700 || len(slices.Compact(ids)) != 700 {
		t.Fatalf("%d groups, want 700 distinct", len(got))
	}
	_, err = run(t, in, `[{"$group": {"_id": null, "all": {"$push": "$pad"}}}]`, Options{MaxMemoryBytes: 5000, Spill: true, SpillDir: t.TempDir()})
	if codeOf(err) != 292 {
		t.Fatalf("one group past the limit: %v, want 292", err)
	}
	_ = bson.D{}
}
