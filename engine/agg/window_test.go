package agg

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

const readings = `[
	{"_id": 1, "s": "a", "t": 1, "v": 10},
	{"_id": 2, "s": "a", "t": 2, "v": 20},
	{"_id": 3, "s": "b", "t": 1, "v": 5},
	{"_id": 4, "s": "a", "t": 3, "v": 30},
	{"_id": 5, "s": "b", "t": 4, "v": "x"}
]`

// windowCase is a pipeline over docs and the results it must give.
type windowCase struct{ name, docs, pipeline, want string }

func runWindowCases(t *testing.T, cases []windowCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := run(t, c.docs, c.pipeline, Options{})
			if err != nil || !same(got, val(t, c.want)) {
				t.Errorf("got %v, %v\nwant %s", got, err, c.want)
			}
		})
	}
}

// TestSetWindowFields checks the window functions over documents and
// range windows, partitions, the order of the results and the fields
// they set.
func TestSetWindowFields(t *testing.T) {
	t.Parallel()
	dates := `[
		{"_id": 1, "at": {"$date": "2026-01-01T00:00:00Z"}, "v": 1},
		{"_id": 2, "at": {"$date": "2026-01-01T00:30:00Z"}, "v": 2},
		{"_id": 3, "at": {"$date": "2026-01-01T01:30:00Z"}, "v": 4},
		{"_id": 4, "at": {"$date": "2026-02-01T01:30:00Z"}, "v": 8}
	]`
	ties := `[{"_id": 1, "k": 5}, {"_id": 2, "k": 3}, {"_id": 3, "k": 5}, {"_id": 4}, {"_id": 5, "k": null}, {"_id": 6, "k": 7}]`
	cases := []windowCase{
		{"running total by partition, in partition then sortBy order", readings,
			`[{"$setWindowFields": {"partitionBy": "$s", "sortBy": {"t": 1}, "output": {"total": {"$sum": "$v", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"total": 1}}]`,
			`[{"_id": 1, "total": 10}, {"_id": 2, "total": 30}, {"_id": 4, "total": 60}, {"_id": 3, "total": 5}, {"_id": 5, "total": 5}]`},
		{"moving average over the previous and current document", readings,
			`[{"$setWindowFields": {"partitionBy": "$s", "sortBy": {"t": 1}, "output": {"avg": {"$avg": "$v", "window": {"documents": [-1, 0]}}}}}, {"$project": {"avg": 1}}]`,
			`[{"_id": 1, "avg": 10.0}, {"_id": 2, "avg": 15.0}, {"_id": 4, "avg": 25.0}, {"_id": 3, "avg": 5.0}, {"_id": 5, "avg": 5.0}]`},
		{"no partition and no sortBy: the whole input, in its order", readings,
			`[{"$setWindowFields": {"output": {"n": {"$count": {}}, "ids": {"$push": "$_id"}}}}, {"$project": {"n": 1, "ids": 1}}, {"$limit": 2}]`,
			`[{"_id": 1, "n": 5, "ids": [1, 2, 3, 4, 5]}, {"_id": 2, "n": 5, "ids": [1, 2, 3, 4, 5]}]`},
		{"a constant partitionBy is one partition", readings,
			`[{"$setWindowFields": {"partitionBy": "k", "output": {"n": {"$count": {}}}}}, {"$project": {"n": 1}}, {"$limit": 1}]`,
			`[{"_id": 1, "n": 5}]`},
		{"dotted output paths", readings,
			`[{"$match": {"s": "a"}}, {"$setWindowFields": {"sortBy": {"t": 1}, "output": {"m.max": {"$max": "$v", "window": {"documents": ["current", "unbounded"]}}, "m.min": {"$min": "$v", "window": {"documents": [0, 1]}}}}}, {"$project": {"m": 1}}]`,
			`[{"_id": 1, "m": {"max": 30, "min": 10}}, {"_id": 2, "m": {"max": 30, "min": 20}}, {"_id": 4, "m": {"max": 30, "min": 30}}]`},
		{"first and last of a sliding window", readings,
			`[{"$match": {"s": "a"}}, {"$setWindowFields": {"sortBy": {"t": -1}, "output": {"f": {"$first": "$v", "window": {"documents": [-1, 1]}}, "l": {"$last": "$nosuch", "window": {"documents": [-1, 1]}}}}}, {"$project": {"f": 1, "l": 1}}]`,
			`[{"_id": 4, "f": 30, "l": null}, {"_id": 2, "f": 30, "l": null}, {"_id": 1, "f": 20, "l": null}]`},
		{"empty windows past the partition's end", readings,
			`[{"$match": {"s": "a"}}, {"$setWindowFields": {"sortBy": {"t": 1}, "output": {"s": {"$sum": "$v", "window": {"documents": [1, 1]}}, "a": {"$avg": "$v", "window": {"documents": [1, 1]}}, "p": {"$push": "$v", "window": {"documents": [1, 2]}}, "f": {"$first": "$v", "window": {"documents": [1, 1]}}}}}, {"$project": {"s": 1, "a": 1, "p": 1, "f": 1}}]`,
			`[{"_id": 1, "s": 20, "a": 20.0, "p": [20, 30], "f": 20}, {"_id": 2, "s": 30, "a": 30.0, "p": [30], "f": 30}, {"_id": 4, "s": 0, "a": null, "p": [], "f": null}]`},
		{"addToSet and stdDevPop over the partition", `[{"_id": 1, "v": 2}, {"_id": 2, "v": 4}, {"_id": 3, "v": 2}]`,
			`[{"$setWindowFields": {"output": {"set": {"$addToSet": "$v"}, "sd": {"$stdDevPop": "$v"}, "sds": {"$stdDevSamp": "$v", "window": {"documents": ["unbounded", "unbounded"]}}}}}, {"$limit": 1}]`,
			`[{"_id": 1, "v": 2, "set": [2, 4], "sd": 0.9428090415820634, "sds": 1.1547005383792515}]`},
		{"rank, denseRank and documentNumber; null and missing tie", ties,
			`[{"$setWindowFields": {"sortBy": {"k": 1}, "output": {"r": {"$rank": {}}, "d": {"$denseRank": {}}, "n": {"$documentNumber": {}}}}}, {"$project": {"r": 1, "d": 1, "n": 1}}]`,
			`[{"_id": 4, "r": 1, "d": 1, "n": 1}, {"_id": 5, "r": 1, "d": 1, "n": 2}, {"_id": 2, "r": 3, "d": 2, "n": 3}, {"_id": 1, "r": 4, "d": 3, "n": 4}, {"_id": 3, "r": 4, "d": 3, "n": 5}, {"_id": 6, "r": 6, "d": 4, "n": 6}]`},
		{"shift forward and back, with a default", readings,
			`[{"$setWindowFields": {"partitionBy": "$s", "sortBy": {"t": 1}, "output": {"next": {"$shift": {"output": "$v", "by": 1, "default": "none"}}, "prev": {"$shift": {"output": "$_id", "by": -1}}}}}, {"$project": {"next": 1, "prev": 1}}]`,
			`[{"_id": 1, "next": 20, "prev": null}, {"_id": 2, "next": 30, "prev": 1}, {"_id": 4, "next": "none", "prev": 2}, {"_id": 3, "next": "x", "prev": null}, {"_id": 5, "next": "none", "prev": 3}]`},
		{"numeric range window", `[{"_id": 1, "t": 1, "v": 1}, {"_id": 2, "t": 1.5, "v": 2}, {"_id": 3, "t": 3, "v": 4}, {"_id": 4, "t": 10, "v": 8}]`,
			`[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"s": {"$sum": "$v", "window": {"range": [-2, 0]}}, "f": {"$sum": "$v", "window": {"range": ["current", 1]}}, "u": {"$push": "$_id", "window": {"range": ["unbounded", -1]}}}}}, {"$project": {"s": 1, "f": 1, "u": 1}}]`,
			`[{"_id": 1, "s": 1, "f": 3, "u": []}, {"_id": 2, "s": 3, "f": 2, "u": []}, {"_id": 3, "s": 7, "f": 4, "u": [1, 2]}, {"_id": 4, "s": 8, "f": 8, "u": [1, 2, 3]}]`},
		{"range window with a unit over dates", dates,
			`[{"$setWindowFields": {"sortBy": {"at": 1}, "output": {"h": {"$sum": "$v", "window": {"range": [-1, "current"], "unit": "hour"}}, "m": {"$sum": "$v", "window": {"range": [-1, 0], "unit": "month"}}}}}, {"$project": {"h": 1, "m": 1}}]`,
			`[{"_id": 1, "h": 1, "m": 1}, {"_id": 2, "h": 3, "m": 3}, {"_id": 3, "h": 6, "m": 7}, {"_id": 4, "h": 8, "m": 12}]`},
		{"null and missing partition keys are one partition", `[{"_id": 1, "p": null}, {"_id": 2}, {"_id": 3, "p": 1}, {"_id": 4, "p": 1.0}]`,
			`[{"$setWindowFields": {"partitionBy": "$p", "output": {"ids": {"$push": "$_id"}}}}, {"$project": {"ids": 1}}]`,
			`[{"_id": 1, "ids": [1, 2]}, {"_id": 2, "ids": [1, 2]}, {"_id": 3, "ids": [3, 4]}, {"_id": 4, "ids": [3, 4]}]`},
		{"an output replaces the field", `[{"_id": 1, "v": 1, "w": 9}]`,
			`[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"v": {"$sum": "$v"}, "w": {"$shift": {"output": "$nosuch", "by": 0}}}}}]`,
			`[{"_id": 1, "v": 1, "w": null}]`},
		{"shift gives its default for a missing output (shift.js)", `[{"_id": 1}, {"_id": 2}]`,
			`[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"a": {"$shift": {"output": "$b", "by": 1, "default": "c"}}}}}]`,
			`[{"_id": 1, "a": "c"}, {"_id": 2, "a": "c"}]`},
		{"a moving sum of longs that fit is an int; a running one stays long", `[{"_id": 1, "v": {"$numberLong": "2"}}, {"_id": 2, "v": {"$numberLong": "3"}}]`,
			`[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"m": {"$sum": "$v", "window": {"documents": [-1, 0]}}, "r": {"$sum": "$v", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"m": 1, "r": 1}}]`,
			`[{"_id": 1, "m": 2, "r": {"$numberLong": "2"}}, {"_id": 2, "m": 5, "r": {"$numberLong": "5"}}]`},
		{"addToSet over a moving window is in BSON order", `[{"_id": 1, "v": "b"}, {"_id": 2, "v": 3}, {"_id": 3, "v": "a"}, {"_id": 4, "v": 3}]`,
			`[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"m": {"$addToSet": "$v", "window": {"documents": [0, 2]}}, "r": {"$addToSet": "$v", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"m": 1, "r": 1}}]`,
			`[{"_id": 1, "m": [3, "a", "b"], "r": ["b"]}, {"_id": 2, "m": [3, "a"], "r": ["b", 3]}, {"_id": 3, "m": [3, "a"], "r": ["b", 3, "a"]}, {"_id": 4, "m": [3], "r": ["b", 3, "a"]}]`},
		{"stdDevPop of one number over a moving window is the int 0", `[{"_id": 1, "v": 2}, {"_id": 2, "v": 4}]`,
			`[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"m": {"$stdDevPop": "$v", "window": {"documents": [0, 0]}}, "r": {"$stdDevPop": "$v", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"m": 1, "r": 1}}]`,
			`[{"_id": 1, "m": 0, "r": 0.0}, {"_id": 2, "m": 0, "r": 1.0}]`},
		{"bounds and a default may be constant expressions", readings,
			`[{"$match": {"s": "a"}}, {"$setWindowFields": {"sortBy": {"t": 1}, "output": {"s": {"$sum": "$v", "window": {"documents": [{"$subtract": [0, 1]}, {"$literal": 0}]}}, "n": {"$shift": {"output": "$v", "by": 1, "default": {"$concat": ["no", "ne"]}}}}}}, {"$project": {"s": 1, "n": 1}}]`,
			`[{"_id": 1, "s": 10, "n": 20}, {"_id": 2, "s": 30, "n": 30}, {"_id": 4, "s": 50, "n": "none"}]`},
		{"partitionBy an expression", readings,
			`[{"$setWindowFields": {"partitionBy": {"$gt": ["$t", 1]}, "sortBy": {"_id": 1}, "output": {"n": {"$count": {}, "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"n": 1}}]`,
			`[{"_id": 1, "n": 1}, {"_id": 3, "n": 2}, {"_id": 2, "n": 1}, {"_id": 4, "n": 2}, {"_id": 5, "n": 3}]`},
	}
	runWindowCases(t, cases)
}

// TestSetWindowFieldsRefusals checks the refusals, at parse and at run,
// with mongod's codes.
func TestSetWindowFieldsRefusals(t *testing.T) {
	t.Parallel()
	sw := func(spec string) string { return `[{"$setWindowFields": ` + spec + `}]` }
	out := func(fn string) string { return sw(`{"sortBy": {"t": 1}, "output": {"o": ` + fn + `}}`) }
	cases := []struct {
		name, pipeline string
		code           int
	}{
		{"not a document", sw(`1`), 9},
		{"unknown field", sw(`{"output": {}, "x": 1}`), 40415},
		{"no output", sw(`{"sortBy": {"t": 1}}`), 40414},
		{"sortBy not a document", sw(`{"sortBy": 1, "output": {}}`), 14},
		{"output not a document", sw(`{"output": []}`), 14},
		{"bad sortBy", sw(`{"sortBy": {"t": 2}, "output": {}}`), 15975},
		{"conflicting output paths", sw(`{"output": {"a": {"$sum": 1}, "a.b": {"$sum": 1}}}`), 6307900},
		{"output path with $", sw(`{"output": {"$a": {"$sum": 1}}}`), 16410},
		{"output not an object", sw(`{"output": {"a": 1}}`), 9},
		{"unknown window function", out(`{"$summ": "$v"}`), 9},
		{"a function mongod lacks too", out(`{"$nosuchfn": "$v"}`), 9},
		{"no window function", out(`{"window": {}}`), 9},
		{"two functions", out(`{"$sum": 1, "$avg": 1}`), 9},
		{"unknown argument", out(`{"$sum": 1, "x": 1}`), 9},
		{"window not an object", out(`{"$sum": 1, "window": 1}`), 9},
		{"documents and range", out(`{"$sum": 1, "window": {"documents": [0, 1], "range": [0, 1]}}`), 9},
		{"unit without range", out(`{"$sum": 1, "window": {"documents": [0, 1], "unit": "day"}}`), 9},
		{"unknown window field", out(`{"$sum": 1, "window": {"rows": [0, 1]}}`), 9},
		{"bounds not a pair", out(`{"$sum": 1, "window": {"documents": [0]}}`), 9},
		{"a bound that is no word", out(`{"$sum": 1, "window": {"documents": ["current", "later"]}}`), 9},
		{"a bound that is no constant", out(`{"$sum": 1, "window": {"documents": ["$t", 1]}}`), 9},
		{"fractional documents bound", out(`{"$sum": 1, "window": {"documents": [0, 1.5]}}`), 9},
		{"lower above upper", out(`{"$sum": 1, "window": {"documents": [1, 0]}}`), 5339900},
		{"current above upper", out(`{"$sum": 1, "window": {"range": ["current", -1]}}`), 5339900},
		{"documents bounds need a sortBy", sw(`{"output": {"o": {"$sum": 1, "window": {"documents": ["unbounded", "current"]}}}}`), 5339901},
		{"range needs one sortBy field", sw(`{"sortBy": {"t": 1, "u": 1}, "output": {"o": {"$sum": 1, "window": {"range": [0, 1]}}}}`), 5339902},
		{"range needs an ascending sortBy", sw(`{"sortBy": {"t": -1}, "output": {"o": {"$sum": 1, "window": {"range": [0, 1]}}}}`), 8947401},
		{"range bound not a number", out(`{"$sum": 1, "window": {"range": [true, 1]}}`), 9},
		{"unit bound not an integer", out(`{"$sum": 1, "window": {"range": [0.5, 1], "unit": "day"}}`), 9},
		{"unit not a string", out(`{"$sum": 1, "window": {"range": [0, 1], "unit": 1}}`), 9},
		{"unknown unit", out(`{"$sum": 1, "window": {"range": [0, 1], "unit": "fortnight"}}`), 9},
		{"$count with an argument", out(`{"$count": 1}`), 9},
		{"$first with an unknown argument", out(`{"$first": 1, "x": 1}`), 9},
		{"rank needs a sortBy", sw(`{"output": {"r": {"$rank": {}}}}`), 5371602},
		{"rank needs one sortBy field", sw(`{"sortBy": {"a": 1, "b": 1}, "output": {"r": {"$rank": {}}}}`), 5371602},
		{"rank takes no window", out(`{"$rank": {}, "window": {"documents": [0, 0]}}`), 5371601},
		{"rank takes {}", out(`{"$denseRank": 1}`), 5371603},
		{"shift needs a sortBy", sw(`{"output": {"s": {"$shift": {"output": "$v", "by": 1}}}}`), 9},
		{"shift takes no window", out(`{"$shift": {"output": "$v", "by": 1}, "window": {}}`), 9},
		{"shift by a fraction", out(`{"$shift": {"output": "$v", "by": 1.5}}`), 9},
		{"shift with no by", out(`{"$shift": {"output": "$v"}}`), 9},
		{"shift with no output", out(`{"$shift": {"by": 1}}`), 9},
		{"shift default not constant", out(`{"$shift": {"output": "$v", "by": 1, "default": "$v"}}`), 9},
		{"shift argument not an object", out(`{"$shift": 1}`), 9},
		{"constant array partitionBy", sw(`{"partitionBy": [1], "output": {}}`), 14},
		{"constant array partitionBy, computed", sw(`{"partitionBy": {"$concatArrays": [[1], [2]]}, "output": {}}`), 14},
		{"a constant bound that fails", out(`{"$sum": 1, "window": {"documents": [{"$divide": [1, 0]}, 0]}}`), 2},
		{"a bound that is no integer, computed", out(`{"$sum": 1, "window": {"documents": [{"$divide": [1, 2]}, 0]}}`), 9},
		// At run time.
		{"array partition key", `[{"$setWindowFields": {"partitionBy": "$arr", "output": {"n": {"$count": {}}}}}]`, 14},
		{"range over a non-number", `[{"$setWindowFields": {"sortBy": {"s": 1}, "output": {"o": {"$sum": 1, "window": {"range": [0, 1]}}}}}]`, 5429414},
		{"range over a date without unit", `[{"$setWindowFields": {"sortBy": {"at": 1}, "output": {"o": {"$sum": 1, "window": {"range": [0, 1]}}}}}]`, 5429413},
		{"unit over a non-date", `[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"o": {"$sum": 1, "window": {"range": [0, 1], "unit": "day"}}}}}]`, 5429513},
	}
	docs := `[{"_id": 1, "t": 1, "s": "a", "arr": [1], "at": {"$date": "2026-01-01T00:00:00Z"}}]`
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if _, err := run(t, docs, c.pipeline, Options{}); codeOf(err) != c.code {
				t.Errorf("%s: %v, want code %d", c.pipeline, err, c.code)
			}
		})
	}
}

// TestSetWindowFieldsMemory checks that the stage holds its input, and
// what its functions compute, within the memory limit.
func TestSetWindowFieldsMemory(t *testing.T) {
	t.Parallel()
	if _, err := run(t, readings, `[{"$setWindowFields": {"output": {"n": {"$count": {}}}}}]`, Options{MaxMemoryBytes: 200}); codeOf(err) != 292 {
		t.Errorf("input over the limit: %v, want 292", err)
	}
	big := `[{"_id": 1, "s": "` + strings.Repeat("x", 300) + `"}]`
	p := `[{"$project": {"_id": 1}}, {"$setWindowFields": {"output": {"s": {"$push": {"$literal": "` + strings.Repeat("y", 2000) + `"}}}}}]`
	if _, err := run(t, big, p, Options{MaxMemoryBytes: 1000}); codeOf(err) != 292 {
		t.Errorf("computed inputs over the limit: %v, want 292", err)
	}
}

// TestSetWindowFieldsLinear runs a running total, and a count, an
// average and a maximum over sliding windows, over a partition large
// enough that folding each window afresh would not end in the test's
// time.
func TestSetWindowFieldsLinear(t *testing.T) {
	t.Parallel()
	const n, w = 200_000, 20_000
	in := make([]bson.D, n)
	for i := range in {
		in[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "v", Value: int32(i % 7)}}
	}
	p, err := Parse(val(t, `[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {
		"s": {"$sum": 1, "window": {"documents": ["unbounded", "current"]}},
		"c": {"$count": {}, "window": {"range": [-20000, 0]}},
		"a": {"$avg": "$v", "window": {"documents": [-19999, 0]}},
		"m": {"$max": "$_id", "window": {"documents": [-19999, 0]}}}}}]`).(bson.A))
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(t.Context(), sliceSource(in), Options{})
	if err != nil || len(out) != n {
		t.Fatalf("%d results, %v", len(out), err)
	}
	last := out[n-1]
	sum := 0
	for i := n - w; i < n; i++ {
		sum += i % 7
	}
	if fmt.Sprint(last[2:]) != fmt.Sprint(bson.D{{Key: "s", Value: n}, {Key: "c", Value: w + 1}, {Key: "a", Value: float64(sum) / w}, {Key: "m", Value: n - 1}}) {
		t.Errorf("at the end: %v", last)
	}
}

// TestSetWindowFieldsTimeSeries checks $derivative, $integral,
// $expMovingAvg, the covariances, $locf and $linearFill.
func TestSetWindowFieldsTimeSeries(t *testing.T) {
	t.Parallel()
	series := `[{"_id": 1, "t": 0, "v": 0}, {"_id": 2, "t": 2, "v": 4}, {"_id": 3, "t": 4, "v": 12}]`
	dated := `[{"_id": 1, "t": {"$date": "2026-01-01T00:00:00Z"}, "v": 0}, {"_id": 2, "t": {"$date": "2026-01-01T00:00:02Z"}, "v": 4}, {"_id": 3, "t": {"$date": "2026-01-01T00:00:04Z"}, "v": 12}]`
	cases := []windowCase{
		{"derivative over the previous document", series,
			`[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"d": {"$derivative": {"input": "$v"}, "window": {"documents": [-1, 0]}}}}}, {"$project": {"d": 1}}]`,
			`[{"_id": 1, "d": null}, {"_id": 2, "d": 2.0}, {"_id": 3, "d": 4.0}]`},
		{"derivative per second over dates", dated,
			`[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"d": {"$derivative": {"input": "$v", "unit": "second"}, "window": {"range": [-2, 0], "unit": "second"}}}}}, {"$project": {"d": 1}}]`,
			`[{"_id": 1, "d": null}, {"_id": 2, "d": 2.0}, {"_id": 3, "d": 4.0}]`},
		{"running integral", series,
			`[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"i": {"$integral": {"input": "$v"}, "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"i": 1}}]`,
			`[{"_id": 1, "i": 0}, {"_id": 2, "i": 4.0}, {"_id": 3, "i": 20.0}]`},
		{"integral per second over dates, whole partition", dated,
			`[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"i": {"$integral": {"input": "$v", "unit": "second"}}}}}, {"$project": {"i": 1}}, {"$limit": 1}]`,
			`[{"_id": 1, "i": 20.0}]`},
		{"integral over range windows by the second (integral.js)", `[{"_id": 1, "t": {"$date": "2020-01-01T00:00:00Z"}, "y": 0.0}, {"_id": 2, "t": {"$date": "2020-01-01T00:00:04Z"}, "y": 2.4}, {"_id": 3, "t": {"$date": "2020-01-01T00:00:10Z"}, "y": 5.6}, {"_id": 4, "t": {"$date": "2020-01-01T00:00:18Z"}, "y": 6.8}]`,
			`[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"m": {"$integral": {"input": "$y", "unit": "second"}, "window": {"range": [-6, 6], "unit": "second"}}, "e": {"$integral": {"input": "$y", "unit": "second"}, "window": {"range": [-1, -1], "unit": "second"}}}}}, {"$project": {"m": 1, "e": 1}}]`,
			`[{"_id": 1, "m": 4.8, "e": null}, {"_id": 2, "m": 28.8, "e": null}, {"_id": 3, "m": 24.0, "e": null}, {"_id": 4, "m": 0.0, "e": null}]`},
		{"exponential moving average", series,
			`[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"a": {"$expMovingAvg": {"input": "$v", "alpha": 0.5}}, "n": {"$expMovingAvg": {"input": "$nosuch", "N": 3}}}}}, {"$project": {"a": 1, "n": 1}}]`,
			`[{"_id": 1, "a": 0.0, "n": null}, {"_id": 2, "a": 2.0, "n": null}, {"_id": 3, "a": 7.0, "n": null}]`},
		{"covariances", `[{"_id": 1, "x": 1, "y": 1}, {"_id": 2, "x": 3, "y": 3}, {"_id": 3, "x": "no", "y": 9}]`,
			`[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"p": {"$covariancePop": ["$x", "$y"]}, "s": {"$covarianceSamp": ["$x", "$y"]}, "p1": {"$covariancePop": ["$x", "$y"], "window": {"documents": [0, 0]}}, "s1": {"$covarianceSamp": ["$x", "$y"], "window": {"documents": [0, 0]}}}}}, {"$project": {"p": 1, "s": 1, "p1": 1, "s1": 1}}]`,
			`[{"_id": 1, "p": 1.0, "s": 2.0, "p1": 0.0, "s1": null}, {"_id": 2, "p": 1.0, "s": 2.0, "p1": 0.0, "s1": null}, {"_id": 3, "p": 1.0, "s": 2.0, "p1": null, "s1": null}]`},
		{"locf", `[{"_id": 1, "v": null}, {"_id": 2, "v": 1}, {"_id": 3, "v": null}, {"_id": 4}, {"_id": 5, "v": 5}, {"_id": 6}]`,
			`[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"v": {"$locf": "$v"}}}}]`,
			`[{"_id": 1, "v": null}, {"_id": 2, "v": 1}, {"_id": 3, "v": 1}, {"_id": 4, "v": 1}, {"_id": 5, "v": 5}, {"_id": 6, "v": 5}]`},
		{"linearFill over fractional positions (linear_fill.js)", `[{"_id": 0.5, "val": 0}, {"_id": 1, "val": null}, {"_id": 4.384, "val": null}, {"_id": 9, "val": null}, {"_id": 10.09283, "val": 11.28374}]`,
			`[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"val": {"$linearFill": "$val"}}}}]`,
			`[{"_id": 0.5, "val": 0}, {"_id": 1, "val": 0.5881340542884634}, {"_id": 4.384, "val": 4.5686253337127845}, {"_id": 9, "val": 9.998278922903879}, {"_id": 10.09283, "val": 11.28374}]`},
		{"linearFill over dates (linear_fill.js)", `[{"_id": 1, "y": -10, "date": {"$date": "2002-12-28T00:00:00Z"}}, {"_id": 2, "y": null, "date": {"$date": "2003-12-28T00:00:00Z"}}, {"_id": 3, "y": null, "date": {"$date": "2004-12-28T00:00:00Z"}}, {"_id": 4, "y": 200, "date": {"$date": "2005-12-28T00:00:00Z"}}]`,
			`[{"$setWindowFields": {"sortBy": {"date": 1}, "output": {"y": {"$linearFill": "$y"}}}}, {"$project": {"y": 1}}]`,
			`[{"_id": 1, "y": -10}, {"_id": 2, "y": 59.93613138686132}, {"_id": 3, "y": 130.06386861313868}, {"_id": 4, "y": 200}]`},
		{"linearFill", `[{"_id": 1, "t": 1, "v": 10}, {"_id": 2, "t": 2, "v": null}, {"_id": 3, "t": 4}, {"_id": 4, "t": 5, "v": 50}, {"_id": 5, "t": 6}, {"_id": 6, "t": 0}]`,
			`[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"v": {"$linearFill": "$v"}}}}, {"$project": {"v": 1}}]`,
			`[{"_id": 6, "v": null}, {"_id": 1, "v": 10}, {"_id": 2, "v": 20.0}, {"_id": 3, "v": 40.0}, {"_id": 4, "v": 50}, {"_id": 5, "v": null}]`},
	}
	runWindowCases(t, cases)
	sw := func(output string) string {
		return `[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"o": ` + output + `}}}]`
	}
	refusals := []struct {
		name, docs, pipeline string
		code                 int
	}{
		{"derivative needs a sortBy", series, `[{"$setWindowFields": {"output": {"o": {"$derivative": {"input": "$v"}, "window": {"documents": [-1, 0]}}}}}]`, 9},
		{"derivative needs one sortBy field", series, `[{"$setWindowFields": {"sortBy": {"t": 1, "v": 1}, "output": {"o": {"$derivative": {"input": "$v"}, "window": {"documents": [-1, 0]}}}}}]`, 9},
		{"derivative needs a window", series, sw(`{"$derivative": {"input": "$v"}}`), 9},
		{"derivative needs an input", series, sw(`{"$derivative": {}, "window": {"documents": [-1, 0]}}`), 9},
		{"derivative takes an object", series, sw(`{"$derivative": "$v", "window": {"documents": [-1, 0]}}`), 9},
		{"derivative unit above a week", series, sw(`{"$derivative": {"input": "$v", "unit": "month"}, "window": {"documents": [-1, 0]}}`), 5490710},
		{"derivative unknown unit", series, sw(`{"$derivative": {"input": "$v", "unit": "jiffy"}, "window": {"documents": [-1, 0]}}`), 9},
		{"derivative unit over numbers", series, sw(`{"$derivative": {"input": "$v", "unit": "second"}, "window": {"documents": [-1, 0]}}`), 5624900},
		{"derivative over dates without unit", dated, sw(`{"$derivative": {"input": "$v"}, "window": {"documents": [-1, 0]}}`), 5624901},
		{"derivative over strings", `[{"t": "a", "v": 1}]`, sw(`{"$derivative": {"input": "$v"}, "window": {"documents": [-1, 0]}}`), 5624902},
		{"derivative of null", `[{"t": 1}, {"t": 2}]`, sw(`{"$derivative": {"input": "$v"}, "window": {"documents": [-1, 0]}}`), 5624903},
		{"integral of a string", `[{"t": 1, "v": "a"}]`, sw(`{"$integral": {"input": "$v"}}`), 5423900},
		{"integral unit over numbers", series, sw(`{"$integral": {"input": "$v", "unit": "hour"}}`), 5423901},
		{"integral over dates without unit", dated, sw(`{"$integral": {"input": "$v"}}`), 5423902},
		{"integral unknown argument", series, sw(`{"$integral": {"input": "$v", "x": 1}}`), 9},
		{"expMovingAvg needs a sortBy", series, `[{"$setWindowFields": {"output": {"o": {"$expMovingAvg": {"input": "$v", "N": 2}}}}}]`, 9},
		{"expMovingAvg takes no window", series, sw(`{"$expMovingAvg": {"input": "$v", "N": 2}, "window": {}}`), 9},
		{"expMovingAvg fractional N", series, sw(`{"$expMovingAvg": {"input": "$v", "N": 1.5}}`), 9},
		{"expMovingAvg N of 0", series, sw(`{"$expMovingAvg": {"input": "$v", "N": 0}}`), 9},
		{"expMovingAvg N not a number", series, sw(`{"$expMovingAvg": {"input": "$v", "N": "2"}}`), 9},
		{"expMovingAvg alpha of 1", series, sw(`{"$expMovingAvg": {"input": "$v", "alpha": 1}}`), 9},
		{"expMovingAvg with neither", series, sw(`{"$expMovingAvg": {"input": "$v", "beta": 1}}`), 9},
		{"expMovingAvg with both", series, sw(`{"$expMovingAvg": {"input": "$v", "N": 2, "alpha": 0.5}}`), 9},
		{"locf takes no window", series, sw(`{"$locf": "$v", "window": {}}`), 9},
		{"linearFill needs a sortBy", series, `[{"$setWindowFields": {"output": {"o": {"$linearFill": "$v"}}}}]`, 605001},
		{"linearFill of a string", `[{"t": 1, "v": "a"}]`, sw(`{"$linearFill": "$v"}`), 14},
		{"linearFill over strings", `[{"t": "a", "v": 1}]`, sw(`{"$linearFill": "$v"}`), 14},
		{"linearFill over repeated values", `[{"t": 1, "v": 1}, {"t": 1, "v": 2}]`, sw(`{"$linearFill": "$v"}`), 6050106},
		{"linearFill over numbers and dates", `[{"t": 1, "v": 1}, {"t": {"$date": "2026-01-01T00:00:00Z"}, "v": 2}]`, sw(`{"$linearFill": "$v"}`), 14},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if _, err := run(t, c.docs, c.pipeline, Options{}); codeOf(err) != c.code {
				t.Errorf("%s: %v, want code %d", c.pipeline, err, c.code)
			}
		})
	}
}

// TestSetWindowFieldsRanges checks range windows over unevenly spaced
// values with ties, as jstests/aggregation/sources/setWindowFields/
// range.js does: a number bound reaches the documents that tie,
// "current" only the current document, and windows may be empty.
func TestSetWindowFieldsRanges(t *testing.T) {
	t.Parallel()
	docs := `[{"x": 0}, {"x": 1}, {"x": 1.5}, {"x": 2}, {"x": 3}, {"x": 100}, {"x": 100}, {"x": 101}]`
	cases := []struct{ lo, hi, want string }{
		{`-1`, `0`, `[[0], [0, 1], [1, 1.5], [1, 1.5, 2], [2, 3], [100, 100], [100, 100], [100, 100, 101]]`},
		{`"unbounded"`, `0`, `[[0], [0, 1], [0, 1, 1.5], [0, 1, 1.5, 2], [0, 1, 1.5, 2, 3], [0, 1, 1.5, 2, 3, 100, 100], [0, 1, 1.5, 2, 3, 100, 100], [0, 1, 1.5, 2, 3, 100, 100, 101]]`},
		{`0`, `"unbounded"`, `[[0, 1, 1.5, 2, 3, 100, 100, 101], [1, 1.5, 2, 3, 100, 100, 101], [1.5, 2, 3, 100, 100, 101], [2, 3, 100, 100, 101], [3, 100, 100, 101], [100, 100, 101], [100, 100, 101], [101]]`},
		{`"current"`, `"current"`, `[[0], [1], [1.5], [2], [3], [100], [100], [101]]`},
		{`"current"`, `1`, `[[0, 1], [1, 1.5, 2], [1.5, 2], [2, 3], [3], [100, 100, 101], [100, 101], [101]]`},
		{`-97`, `"current"`, `[[0], [0, 1], [0, 1, 1.5], [0, 1, 1.5, 2], [0, 1, 1.5, 2, 3], [3, 100], [3, 100, 100], [100, 100, 101]]`},
		{`-1`, `-1`, `[[], [0], [], [1], [2], [], [], [100, 100]]`},
		{`1`, `1`, `[[1], [2], [], [3], [], [101], [101], []]`},
		{`"unbounded"`, `-99`, `[[], [], [], [], [], [0, 1], [0, 1], [0, 1, 1.5, 2]]`},
		{`99`, `"unbounded"`, `[[100, 100, 101], [100, 100, 101], [101], [101], [], [], [], []]`},
		{`999`, `999`, `[[], [], [], [], [], [], [], []]`},
	}
	for _, c := range cases {
		p := `[{"$setWindowFields": {"sortBy": {"x": 1}, "output": {"y": {"$push": "$x", "window": {"range": [` + c.lo + `, ` + c.hi + `]}}}}}]`
		got, err := run(t, docs, p, Options{})
		if err != nil {
			t.Fatalf("range [%s, %s]: %v", c.lo, c.hi, err)
		}
		ys := bson.A{}
		for _, d := range got {
			ys = append(ys, d[len(d)-1].Value)
		}
		if fmt.Sprint(ys) != fmt.Sprint(val(t, c.want)) {
			t.Errorf("range [%s, %s]: %v, want %s", c.lo, c.hi, ys, c.want)
		}
	}
	ties := `[{"x": 0}, {"x": 0}, {"x": 0}, {"x": 0}, {"x": 3}, {"x": 3}, {"x": 3}]`
	got, err := run(t, ties, `[{"$setWindowFields": {"sortBy": {"x": 1}, "output": {"y": {"$push": "$x", "window": {"range": ["unbounded", -3]}}}}}]`, Options{})
	if err != nil || fmt.Sprint(got) != fmt.Sprint(val(t, `[{"x": 0, "y": []}, {"x": 0, "y": []}, {"x": 0, "y": []}, {"x": 0, "y": []}, {"x": 3, "y": [0, 0, 0, 0]}, {"x": 3, "y": [0, 0, 0, 0]}, {"x": 3, "y": [0, 0, 0, 0]}]`)) {
		t.Errorf("ties: %v, %v", got, err)
	}
}

// TestSetWindowFieldsModel runs random documents and range windows over
// random partitions with ties and compares each window with one chosen
// by brute force; a failure prints its seed.
func TestSetWindowFieldsModel(t *testing.T) {
	t.Parallel()
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	bounds := []string{`"unbounded"`, `"current"`, `-3`, `-2`, `-1`, `0`, `1`, `2`, `3`}
	num := func(b string) (int, bool) {
		n, err := strconv.Atoi(b)
		return n, err == nil
	}
	byV, err := query.ParseSort(bson.D{{Key: "v", Value: int32(1)}})
	if err != nil {
		t.Fatal(err)
	}
	for round := range 1000 {
		n := 1 + rng.IntN(12)
		var in []bson.D
		for i := range n {
			d := bson.D{{Key: "_id", Value: int32(i)}, {Key: "p", Value: int32(rng.IntN(2))}, {Key: "x", Value: int32(rng.IntN(6))}}
			switch rng.IntN(8) {
			case 0:
				d = append(d, bson.E{Key: "v", Value: nil})
			case 1: // missing
			case 2:
				d = append(d, bson.E{Key: "v", Value: float64(rng.IntN(5)) + 0.5})
			case 3:
				d = append(d, bson.E{Key: "v", Value: int64(rng.IntN(5))})
			default:
				d = append(d, bson.E{Key: "v", Value: int32(rng.IntN(5))})
			}
			in = append(in, d)
		}
		lo, hi := bounds[rng.IntN(len(bounds))], bounds[rng.IntN(len(bounds))]
		ln, lnum := num(lo)
		hn, hnum := num(hi)
		if lo == `"current"` {
			ln, lnum = 0, true
		}
		if hi == `"current"` {
			hn, hnum = 0, true
		}
		if lnum && hnum && ln > hn {
			continue
		}
		kind := []string{"documents", "range"}[rng.IntN(2)]
		p := `[{"$setWindowFields": {"partitionBy": "$p", "sortBy": {"x": 1}, "output": {` + strings.ReplaceAll(`"w": {"$push": "$_id", W}, "s": {"$sum": "$v", W}, "mn": {"$min": "$v", W}, "mx": {"$max": "$v", W}, "c": {"$count": {}, W}, "a": {"$avg": "$v", W}, "fn": {"$firstN": {"input": "$v", "n": 2}, W}, "xn": {"$maxN": {"input": "$v", "n": 2}, W}, "bt": {"$bottom": {"output": "$_id", "sortBy": {"v": 1}}, W}`, "W", `"window": {"`+kind+`": [`+lo+`, `+hi+`]}`) + `}}}]`
		pl, err := Parse(val(t, p).(bson.A))
		if err != nil {
			t.Fatalf("seed %d round %d: %s: %v", seed, round, p, err)
		}
		got, err := pl.Run(t.Context(), sliceSource(slices.Clone(in)), Options{})
		if err != nil {
			t.Fatalf("seed %d round %d: %s: %v", seed, round, p, err)
		}
		// The model: partitions in key order, each sorted stably by x.
		var sorted []bson.D
		for _, key := range []int32{0, 1} {
			var part []bson.D
			for _, d := range in {
				if d[1].Value == key {
					part = append(part, d)
				}
			}
			slices.SortStableFunc(part, func(a, b bson.D) int { return int(a[2].Value.(int32) - b[2].Value.(int32)) })
			for i, d := range part {
				w := bson.A{}
				for j, e := range part {
					xi, xj := int(d[2].Value.(int32)), int(e[2].Value.(int32))
					ok := true
					switch {
					case lo == `"current"`:
						ok = j >= i
					case lnum && kind == "documents":
						ok = j >= i+ln
					case lnum:
						ok = xj >= xi+ln
					}
					switch {
					case hi == `"current"`:
						ok = ok && j <= i
					case hnum && kind == "documents":
						ok = ok && j <= i+hn
					case hnum:
						ok = ok && xj <= xi+hn
					}
					if ok {
						w = append(w, e[0].Value)
					}
				}
				// $sum, $min, $max, $count and $avg of v over the window, by
				// $group's accumulators; the n-family's over a sliding
				// window as mongod's removable functions keep them.
				sliding := lo != `"unbounded"`
				ns := []*keepN{newKeepN("$firstN", 2, nil, nil), newKeepN("$maxN", 2, nil, nil), newKeepN("$bottom", 1, byV, nil)}
				accs := []accumulator{newAcc("$sum", nil), newAcc("$min", nil), newAcc("$max", nil), newAcc("$count", nil), newAcc("$avg", nil), ns[0], ns[1], ns[2]}
				for _, k := range ns {
					k.sliding = sliding
				}
				for _, id := range w {
					v, _ := docGet(in[id.(int32)], "v")
					if _, has := docGet(in[id.(int32)], "v"); !has {
						v = missing
					}
					for k, a := range accs {
						switch k {
						case 3:
							a.add(int32(1))
						case 7:
							a.add(topBottomValue{out: id, key: includePaths(in[id.(int32)], [][]string{{"v"}})})
						default:
							a.add(v)
						}
					}
				}
				out := append(slices.Clone(d), bson.E{Key: "w", Value: w})
				for k, name := range []string{"s", "mn", "mx", "c", "a", "fn", "xn", "bt"} {
					r := accs[k].result()
					if n, isLong := r.(int64); isLong && k == 0 && lo != `"unbounded"` {
						r = intOrLong(n) // mongod's removable sum
					}
					out = append(out, bson.E{Key: name, Value: r})
				}
				sorted = append(sorted, out)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(sorted) {
			t.Fatalf("seed %d round %d: %s\nin %v\ngot  %v\nwant %v", seed, round, p, in, got, sorted)
		}
	}
}
