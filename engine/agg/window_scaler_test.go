package agg

import (
	"math"
	"testing"

	"github.com/ttlkv/ttlkv/engine/query"
)

// scalerDocs are the documents of jstests/aggregation/sources/
// setWindowFields/min_max_scaler_output_values.js.
const scalerDocs = `[
	{"_id": 1, "x": -3, "y": 8, "partition": "A"},
	{"_id": 2, "x": 10, "y": 4, "partition": "B"},
	{"_id": 3, "x": 3, "y": -2, "partition": "A"},
	{"_id": 4, "x": 2, "y": 3, "partition": "B"},
	{"_id": 5, "x": -6, "y": 6, "partition": "A"},
	{"_id": 6, "x": 0, "y": -8, "partition": "B"},
	{"_id": 7, "x": 4, "y": 10, "partition": "A"}
]`

// TestSetWindowFieldsScaler checks $minMaxScaler's values against those
// of min_max_scaler_output_values.js (by _id 1 to 7), over document and
// range windows that slide, and over windows that grow.
func TestSetWindowFieldsScaler(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, spec string
		want       [7]float64
	}{
		{"a window of one document is 0", `{"sortBy": {"_id": 1}, "output": {"r": {"$minMaxScaler": {"input": "$x"}, "window": {"documents": ["current", "current"]}}}}`,
			[7]float64{0, 0, 0, 0, 0, 0, 0}},
		{"current to unbounded", `{"sortBy": {"_id": 1}, "output": {"r": {"$minMaxScaler": {"input": "$x"}, "window": {"documents": ["current", "unbounded"]}}}}`,
			[7]float64{3. / 16, 1, 9. / 10, 8. / 10, 0, 0, 0}},
		{"documents [-2, 2]", `{"sortBy": {"_id": 1}, "output": {"r": {"$minMaxScaler": {"input": "$x"}, "window": {"documents": [-2, 2]}}}}`,
			[7]float64{0, 1, 9. / 16, 8. / 16, 0, 6. / 10, 1}},
		{"sorted by y", `{"sortBy": {"y": 1}, "output": {"r": {"$minMaxScaler": {"input": "$x"}, "window": {"documents": ["current", "unbounded"]}}}}`,
			[7]float64{0, 1, 9. / 16, 8. / 16, 0, 6. / 16, 0}},
		{"a scaled domain", `{"sortBy": {"y": 1}, "output": {"r": {"$minMaxScaler": {"input": "$x", "min": 10000, "max": 20000}, "window": {"documents": ["current", "unbounded"]}}}}`,
			[7]float64{10000, 20000, 15625, 15000, 10000, 13750, 10000}},
		{"an input expression", `{"sortBy": {"_id": 1}, "output": {"r": {"$minMaxScaler": {"input": {"$add": [1, "$x"]}}, "window": {"documents": ["current", "unbounded"]}}}}`,
			[7]float64{3. / 16, 1, 9. / 10, 8. / 10, 0, 0, 0}},
		{"a constant input", `{"sortBy": {"y": 1}, "output": {"r": {"$minMaxScaler": {"input": {"$const": 1}}, "window": {"documents": ["current", "unbounded"]}}}}`,
			[7]float64{0, 0, 0, 0, 0, 0, 0}},
		{"partitions", `{"partitionBy": "$partition", "sortBy": {"_id": 1}, "output": {"r": {"$minMaxScaler": {"input": "$x"}, "window": {"documents": [-1, 2]}}}}`,
			[7]float64{3. / 9, 1, 9. / 10, 2. / 10, 0, 0, 1}},
		{"range [current, 2]", `{"sortBy": {"_id": 1}, "output": {"r": {"$minMaxScaler": {"input": "$x"}, "window": {"range": ["current", 2]}}}}`,
			[7]float64{0, 1, 1, 1, 0, 0, 0}},
		{"range [-5, 5] by y", `{"sortBy": {"y": 1}, "output": {"r": {"$minMaxScaler": {"input": "$x"}, "window": {"range": [-5, 5]}}}}`,
			[7]float64{3. / 16, 1, 1, 8. / 16, 0, 0, 1}},
		{"range [-3, 4] by y in partitions", `{"partitionBy": "$partition", "sortBy": {"y": 1}, "output": {"r": {"$minMaxScaler": {"input": "$x"}, "window": {"range": [-3, 4]}}}}`,
			[7]float64{3. / 10, 1, 0, 0, 0, 0, 1}},
		// Windows that grow: the whole partition by default, and from
		// its start.
		{"the whole partition", `{"sortBy": {"_id": 1}, "output": {"r": {"$minMaxScaler": {"input": "$x"}}}}`,
			[7]float64{3. / 16, 1, 9. / 16, 8. / 16, 0, 6. / 16, 10. / 16}},
		{"unbounded to current", `{"sortBy": {"_id": 1}, "output": {"r": {"$minMaxScaler": {"input": "$x", "min": -1, "max": 1}, "window": {"documents": ["unbounded", "current"]}}}}`,
			[7]float64{-1, 1, -1 + 2*6./13, -1 + 2*5./13, -1, -1 + 2*6./16, -1 + 2*10./16}},
		{"range from unbounded", `{"sortBy": {"y": 1}, "output": {"r": {"$minMaxScaler": {"input": "$x"}, "window": {"range": ["unbounded", 0]}}}}`,
			[7]float64{3. / 16, 1, 1, 2. / 3, 0, 0, 10. / 16}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := run(t, scalerDocs, `[{"$setWindowFields": `+c.spec+`}]`, Options{})
			if err != nil || len(got) != 7 {
				t.Fatalf("%v, %v", got, err)
			}
			for _, d := range got {
				id, _ := docGet(d, "_id")
				r, _ := docGet(d, "r")
				if want := c.want[id.(int32)-1]; math.Abs(query.ToFloat(r)-want) > 1e-9 {
					t.Errorf("_id %d: got %v, want %v", id, r, want)
				}
			}
		})
	}
	// Types: the operators' arithmetic, and min itself for a window of
	// one value.
	runWindowCases(t, []windowCase{{"types", `[{"_id": 1, "x": 1}, {"_id": 2, "x": {"$numberLong": "3"}}, {"_id": 3, "x": 2}]`,
		`[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"r": {"$minMaxScaler": {"input": "$x", "min": {"$numberLong": "5"}, "max": 9}, "window": {"documents": [-1, 0]}}}}}, {"$project": {"r": 1}}]`,
		`[{"_id": 1, "r": {"$numberLong": "5"}}, {"_id": 2, "r": 9.0}, {"_id": 3, "r": 5.0}]`}})
}

// TestSetWindowFieldsScalerRefusals checks the refusals of
// min_max_scaler_parsing.js and those at run time, with mongod's codes.
func TestSetWindowFieldsScalerRefusals(t *testing.T) {
	t.Parallel()
	w := `, "window": {"documents": ["current", "unbounded"]}`
	cases := []struct {
		name, fn string
		code     int
	}{
		{"unknown argument", `{"$minMaxScaler": {"input": "$x", "hello": "world"}` + w + `}`, 40415},
		{"no input", `{"$minMaxScaler": {"min": 0, "max": 10}` + w + `}`, 40414},
		{"min not a number", `{"$minMaxScaler": {"input": "$x", "min": "hello", "max": 10}` + w + `}`, 9},
		{"max not a number", `{"$minMaxScaler": {"input": "$x", "min": 0, "max": "world"}` + w + `}`, 9},
		{"min without max", `{"$minMaxScaler": {"input": "$x", "min": 0}` + w + `}`, 9},
		{"max without min", `{"$minMaxScaler": {"input": "$x", "max": 10}` + w + `}`, 9},
		{"max equal to min", `{"$minMaxScaler": {"input": "$x", "min": 10, "max": 10}` + w + `}`, 9},
		{"max below min", `{"$minMaxScaler": {"input": "$x", "min": 11, "max": 10}` + w + `}`, 9},
		{"max below min, as expressions", `{"$minMaxScaler": {"input": "$x", "min": {"$multiply": [1, 20]}, "max": {"$divide": [20, 2]}}` + w + `}`, 9},
		{"min not a constant", `{"$minMaxScaler": {"input": "$x", "min": {"$multiply": [1, "$x"]}, "max": {"$divide": [20, 2]}}` + w + `}`, 9},
		{"max not a constant", `{"$minMaxScaler": {"input": "$x", "min": {"$multiply": [1, 1]}, "max": {"$divide": [20, "$x"]}}` + w + `}`, 9},
		{"documents lower above 0", `{"$minMaxScaler": {"input": "$x"}, "window": {"documents": [1, "unbounded"]}}`, 9},
		{"documents upper below 0", `{"$minMaxScaler": {"input": "$x"}, "window": {"documents": [-2, -1]}}`, 9},
		{"documents unbounded to -1", `{"$minMaxScaler": {"input": "$x"}, "window": {"documents": ["unbounded", -1]}}`, 9},
		{"range lower above 0", `{"$minMaxScaler": {"input": "$x"}, "window": {"range": [1.5, "unbounded"]}}`, 9},
		{"range upper below 0", `{"$minMaxScaler": {"input": "$x"}, "window": {"range": [-1.5, -0.5]}}`, 9},
		{"range unbounded to -0.5", `{"$minMaxScaler": {"input": "$x"}, "window": {"range": ["unbounded", -0.5]}}`, 9},
		{"not an object", `{"$minMaxScaler": 1}`, 14},
		{"window not an object", `{"$minMaxScaler": {"input": "$x"}, "window": 1}`, 14},
		{"an unknown field beside", `{"$minMaxScaler": {"input": "$x"}, "x": 1}`, 40415},
		{"a field twice", `{"$minMaxScaler": {"input": "$x", "input": "$y"}}`, 40413},
		// At run time.
		{"a string over a growing window", `{"$minMaxScaler": {"input": "$s"}}`, 10487001},
		{"a missing input over a growing window", `{"$minMaxScaler": {"input": "$nosuch"}, "window": {"range": ["unbounded", "current"]}}`, 10487001},
		{"a string as the current input", `{"$minMaxScaler": {"input": "$s"}, "window": {"documents": ["current", "current"]}}`, 10487000},
		{"a string in a sliding window", `{"$minMaxScaler": {"input": {"$cond": [{"$eq": ["$_id", 1]}, 1, "$s"]}}, "window": {"documents": [0, 1]}}`, 9522905},
	}
	docs := `[{"_id": 1, "x": 1, "y": 2, "s": "a"}, {"_id": 2, "x": 3, "y": 1, "s": "b"}]`
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := `[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"r": ` + c.fn + `}}}]`
			if _, err := run(t, docs, p, Options{}); codeOf(err) != c.code {
				t.Errorf("%s: %v, want code %d", p, err, c.code)
			}
		})
	}
}
