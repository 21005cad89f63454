package agg

import (
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestVariables checks $let, $map, $filter and $reduce against mongod's
// rules: scoping (inner names hide outer ones; $let's vars are
// evaluated outside it), null and missing input, a missing result in
// $map as null, $filter's limit, $reduce's $$this and $$value.
func TestVariables(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "arr": [1, 2, 3, 4], "docs": [{"q": 2, "p": 5}, {"q": 1, "p": 7}, {"p": 1}], "n": null, "s": "x", "x": 10}]`
	cases := []exprCase{
		{`{"$let": {"vars": {"a": 2, "b": "$x"}, "in": {"$multiply": ["$$a", "$$b"]}}}`, `20`},
		{`{"$let": {"vars": {"a": 1}, "in": {"$let": {"vars": {"a": 2, "b": "$$a"}, "in": ["$$a", "$$b"]}}}}`, `[2, 1]`},
		{`{"$let": {"vars": {"d": {"k": {"z": 3}}}, "in": "$$d.k.z"}}`, `3`},
		{`{"$let": {"vars": {}, "in": "$$ROOT.s"}}`, `"x"`},
		{`{"$map": {"input": "$arr", "in": {"$add": ["$$this", "$x"]}}}`, `[11, 12, 13, 14]`},
		{`{"$map": {"input": "$docs", "as": "d", "in": {"$multiply": ["$$d.q", "$$d.p"]}}}`, `[10, 7, null]`},
		{`{"$map": {"input": "$docs", "as": "d", "in": "$$d.q"}}`, `[2, 1, null]`},
		{`{"$map": {"input": "$nosuch", "in": 1}}`, `null`},
		{`{"$map": {"input": "$n", "in": 1}}`, `null`},
		{`{"$map": {"input": [], "in": 1}}`, `[]`},
		{`{"$map": {"input": "$arr", "as": "a", "in": {"$map": {"input": [10, 20], "as": "b", "in": {"$add": ["$$a", "$$b"]}}}}}`, `[[11, 21], [12, 22], [13, 23], [14, 24]]`},
		{`{"$map": {"input": [1], "as": "x", "in": {"$map": {"input": [5], "as": "x", "in": "$$x"}}}}`, `[[5]]`},
		{`{"$filter": {"input": "$arr", "cond": {"$gt": ["$$this", 2]}}}`, `[3, 4]`},
		{`{"$filter": {"input": "$arr", "as": "v", "cond": {"$mod": ["$$v", 2]}, "limit": 1}}`, `[1]`},
		{`{"$filter": {"input": "$arr", "cond": true, "limit": 2.0}}`, `[1, 2]`},
		{`{"$filter": {"input": "$arr", "cond": true, "limit": null}}`, `[1, 2, 3, 4]`},
		{`{"$filter": {"input": [], "cond": true, "limit": -1}}`, `[]`},
		{`{"$filter": {"input": "$docs", "as": "d", "cond": "$$d.q"}}`, `[{"q": 2, "p": 5}, {"q": 1, "p": 7}]`},
		{`{"$filter": {"input": "$n", "cond": true}}`, `null`},
		{`{"$reduce": {"input": "$arr", "initialValue": 0, "in": {"$add": ["$$value", "$$this"]}}}`, `10`},
		{`{"$reduce": {"input": ["a", "b", "c"], "initialValue": "", "in": {"$concat": ["$$value", "$$this"]}}}`, `"abc"`},
		{`{"$reduce": {"input": [], "initialValue": {"sum": 0}, "in": 1}}`, `{"sum": 0}`},
		{`{"$reduce": {"input": "$nosuch", "initialValue": 0, "in": 1}}`, `null`},
		{`{"$reduce": {"input": "$arr", "initialValue": [], "in": {"$cond": [{"$gt": ["$$this", 2]}, ["$$this"], "$$value"]}}}`, `[4]`},
	}
	checkExprs(t, doc, cases)
}

// TestVariableErrors checks the refusals, with mongod's codes: at parse
// time for the shape and for a name out of scope or not allowed, at run
// time for input of the wrong type and a bad limit.
func TestVariableErrors(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "arr": [1, 2], "s": "x"}]`
	cases := []exprCode{
		{`{"$let": 1}`, 16874},
		{`{"$let": {"vars": {}, "in": 1, "x": 1}}`, 16875},
		{`{"$let": {"in": 1}}`, 16876},
		{`{"$let": {"vars": {}}}`, 16877},
		{`{"$let": {"vars": 1, "in": 1}}`, 10065},
		{`{"$let": {"vars": {"A": 1}, "in": 1}}`, 16867},
		{`{"$let": {"vars": {"a-b": 1}, "in": 1}}`, 16868},
		{`{"$let": {"vars": {"": 1}, "in": 1}}`, 16866},
		{`{"$let": {"vars": {"a": 1, "b": "$$a"}, "in": 1}}`, 17276},
		{`{"$let": {"vars": {"a": 1}, "in": "$$b"}}`, 17276},
		{`"$$this"`, 17276},
		{`{"$map": 1}`, 16878},
		{`{"$map": {"input": [], "in": 1, "x": 1}}`, 16879},
		{`{"$map": {"in": 1}}`, 16880},
		{`{"$map": {"input": []}}`, 16882},
		{`{"$map": {"input": [], "as": 5, "in": 1}}`, 16866},
		{`{"$map": {"input": [], "as": "x", "in": "$$this"}}`, 17276},
		{`{"$map": {"input": "$s", "in": 1}}`, 16883},
		{`{"$filter": []}`, 28646},
		{`{"$filter": {"input": [], "cond": 1, "x": 1}}`, 28647},
		{`{"$filter": {"cond": 1}}`, 28648},
		{`{"$filter": {"input": []}}`, 28650},
		{`{"$filter": {"input": "$s", "cond": 1}}`, 28651},
		{`{"$filter": {"input": "$arr", "cond": 1, "limit": 1.5}}`, 327391},
		{`{"$filter": {"input": "$arr", "cond": 1, "limit": "a"}}`, 327391},
		{`{"$filter": {"input": "$arr", "cond": 1, "limit": 0}}`, 327392},
		{`{"$reduce": 1}`, 40075},
		{`{"$reduce": {"input": [], "initialValue": 0, "in": 1, "x": 1}}`, 40076},
		{`{"$reduce": {"initialValue": 0, "in": 1}}`, 40077},
		{`{"$reduce": {"input": [], "in": 1}}`, 40078},
		{`{"$reduce": {"input": [], "initialValue": 0}}`, 40079},
		{`{"$reduce": {"input": "$s", "initialValue": 0, "in": 1}}`, 40080},
		{`{"$reduce": {"input": [], "initialValue": "$$this", "in": 1}}`, 17276},
	}
	checkExprCodes(t, doc, cases)
}

// TestArrayOperators checks $concatArrays, $isArray, $mergeObjects,
// $switch and the accumulators' expression forms against mongod's
// rules, and their refusals with its codes.
func TestArrayOperators(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "arr": [1, 2, 3, 4], "mix": [1, "a", null, 2.5], "o": {"a": 1, "b": 2}, "n": null, "s": "x", "x": 10}]`
	cases := []exprCase{
		{`{"$concatArrays": ["$arr", [5], []]}`, `[1, 2, 3, 4, 5]`},
		{`{"$concatArrays": ["$arr", "$nosuch"]}`, `null`},
		{`{"$concatArrays": []}`, `[]`},
		{`{"$isArray": "$arr"}`, `true`},
		{`{"$isArray": ["$s"]}`, `false`},
		{`{"$mergeObjects": ["$o", {"b": 3, "c": 4}, null, "$nosuch"]}`, `{"a": 1, "b": 3, "c": 4}`},
		{`{"$mergeObjects": []}`, `{}`},
		{`{"$switch": {"branches": [{"case": {"$gt": ["$x", 20]}, "then": "big"}, {"case": {"$gt": ["$x", 5]}, "then": "mid"}], "default": "small"}}`, `"mid"`},
		{`{"$switch": {"branches": [{"case": false, "then": 1}], "default": "$s"}}`, `"x"`},
		{`{"$sum": "$arr"}`, `10`},
		{`{"$sum": ["$x", 1, "a"]}`, `11`},
		{`{"$sum": "$mix"}`, `3.5`},
		{`{"$sum": "$s"}`, `0`},
		{`{"$avg": "$arr"}`, `2.5`},
		{`{"$avg": "$s"}`, `null`},
		{`{"$max": "$mix"}`, `"a"`},
		{`{"$min": "$mix"}`, `1`},
		{`{"$min": [3, "$x", null]}`, `3`},
		{`{"$max": ["$arr", 1]}`, `[1, 2, 3, 4]`},
		{`{"$max": []}`, `null`},
		{`{"$stdDevPop": [1, 3]}`, `1.0`},
		{`{"$first": "$arr"}`, `1`},
		{`{"$last": ["$arr"]}`, `4`},
		{`{"$first": "$nosuch"}`, `null`},
		{`{"$ifNull": [{"$first": [[]]}, "none"]}`, `"none"`},
		{`{"$reverseArray": "$arr"}`, `[4, 3, 2, 1]`},
		{`{"$reverseArray": "$n"}`, `null`},
		{`{"$slice": ["$arr", 2]}`, `[1, 2]`},
		{`{"$slice": ["$arr", -2]}`, `[3, 4]`},
		{`{"$slice": ["$arr", 10]}`, `[1, 2, 3, 4]`},
		{`{"$slice": ["$arr", 1, 2]}`, `[2, 3]`},
		{`{"$slice": ["$arr", -3, 2.0]}`, `[2, 3]`},
		{`{"$slice": ["$arr", -10, 2]}`, `[1, 2]`},
		{`{"$slice": ["$arr", 9, 2]}`, `[]`},
		{`{"$slice": ["$arr", "$n"]}`, `null`},
		{`{"$split": ["a-b--c", "-"]}`, `["a", "b", "", "c"]`},
		{`{"$split": ["$s", "-"]}`, `["x"]`},
		{`{"$split": ["$n", "-"]}`, `null`},
		{`{"$trim": {"input": "  a b \n\t"}}`, `"a b"`},
		{`{"$ltrim": {"input": "\u00a0 a "}}`, `"a "`},
		{`{"$rtrim": {"input": "xxaxx", "chars": "x"}}`, `"xxa"`},
		{`{"$trim": {"input": "éaé", "chars": "é"}}`, `"a"`},
		{`{"$trim": {"input": "$n"}}`, `null`},
		{`{"$trim": {"input": "a", "chars": "$nosuch"}}`, `null`},
		{`{"$toBool": 0}`, `false`},
		{`{"$toBool": "false"}`, `true`},
		{`{"$toBool": "$arr"}`, `true`},
		{`{"$toBool": "$n"}`, `null`},
		{`{"$toObjectId": "5f1d7c0e9f1b2c3d4e5f6a7b"}`, `{"$oid": "5f1d7c0e9f1b2c3d4e5f6a7b"}`},
		{`{"$toDecimal": 2.5}`, `{"$numberDecimal": "2.50000000000000"}`},
		{`{"$toDecimal": "$x"}`, `{"$numberDecimal": "10"}`},
		// A double meeting a decimal becomes one of 15 significant
		// digits, trailing zeros kept, as mongod converts it.
		{`{"$add": [{"$numberDecimal": "1"}, 2.5]}`, `{"$numberDecimal": "3.50000000000000"}`},
		{`{"$sqrt": {"$numberDecimal": "4"}}`, `{"$numberDecimal": "2"}`},
		{`{"$convert": {"input": "12", "to": "int"}}`, `12`},
		{`{"$convert": {"input": "12x", "to": "int", "onError": "bad"}}`, `"bad"`},
		{`{"$convert": {"input": "$nosuch", "to": "int", "onNull": 0}}`, `0`},
		{`{"$convert": {"input": 1, "to": 8}}`, `true`},
		{`{"$convert": {"input": 1, "to": {"$numberLong": "2"}}}`, `"1"`},
		{`{"$convert": {"input": 1, "to": null}}`, `null`},
		{`{"$convert": {"input": "$arr", "to": "string", "onError": "no"}}`, `"no"`},
		{`{"$round": [2.5, 0]}`, `2.0`},
		{`{"$round": [3.5]}`, `4.0`},
		{`{"$round": [-2.5, 0]}`, `-2.0`},
		{`{"$round": [1.005, 2]}`, `1.0`},
		{`{"$round": [3.14159, 3]}`, `3.142`},
		{`{"$round": [1250, -2]}`, `1200`},
		{`{"$round": [1350, -2]}`, `1400`},
		{`{"$round": [{"$numberLong": "1234"}, 2]}`, `{"$numberLong": "1234"}`},
		{`{"$round": [{"$numberDecimal": "2.5"}, 2]}`, `{"$numberDecimal": "2.50"}`},
		{`{"$round": [{"$numberDecimal": "2.675"}, 2]}`, `{"$numberDecimal": "2.68"}`},
		{`{"$trunc": [-3.99, 1]}`, `-3.9`},
		{`{"$trunc": [3.99]}`, `3.0`},
		{`{"$trunc": [1299, -2]}`, `1200`},
		{`{"$round": ["$n", 1]}`, `null`},
		{`{"$round": [1.5, "$n"]}`, `null`},
		{`{"$sqrt": 25}`, `5.0`},
		{`{"$exp": 0}`, `1.0`},
		{`{"$ln": 1}`, `0.0`},
		{`{"$log10": 1000}`, `3.0`},
		{`{"$log": [8, 2]}`, `3.0`},
		{`{"$sqrt": "$n"}`, `null`},
		{`{"$pow": [2, 10]}`, `1024`},
		{`{"$pow": [2, 31]}`, `{"$numberLong": "2147483648"}`},
		{`{"$pow": [2, 70]}`, `1.1805916207174113e+21`},
		{`{"$pow": [2, -1]}`, `0.5`},
		{`{"$pow": [-1, -3]}`, `-1`},
		{`{"$pow": [2.0, 3]}`, `8.0`},
		{`{"$pow": [{"$numberLong": "3"}, 2]}`, `{"$numberLong": "9"}`},
		{`{"$pow": [0, 0]}`, `1`},
		{`{"$range": [0, 5]}`, `[0, 1, 2, 3, 4]`},
		{`{"$range": [0, 10, 3]}`, `[0, 3, 6, 9]`},
		{`{"$range": [5, 0, -2]}`, `[5, 3, 1]`},
		{`{"$range": [5, 0]}`, `[]`},
		{`{"$range": [1.0, {"$numberLong": "3"}]}`, `[1, 2]`},
		{`{"$objectToArray": "$o"}`, `[{"k": "a", "v": 1}, {"k": "b", "v": 2}]`},
		{`{"$objectToArray": "$n"}`, `null`},
		{`{"$indexOfArray": ["$arr", 3]}`, `2`},
		{`{"$indexOfArray": ["$arr", 3.0, 3]}`, `-1`},
		{`{"$indexOfArray": [[1, 2, 1], 1, 1, 3]}`, `2`},
		{`{"$indexOfArray": ["$n", 1]}`, `null`},
	}
	checkExprs(t, doc, cases)
	errs := []exprCode{
		{`{"$concatArrays": ["$arr", "$s"]}`, 28664},
		{`{"$isArray": [1, 2]}`, 16020},
		{`{"$mergeObjects": ["$o", "$s"]}`, 40400},
		{`{"$switch": 1}`, 40060},
		{`{"$switch": {"branches": 1}}`, 40061},
		{`{"$switch": {"branches": [1]}}`, 40062},
		{`{"$switch": {"branches": [{"case": 1, "then": 1, "x": 1}]}}`, 40063},
		{`{"$switch": {"branches": [{"then": 1}]}}`, 40064},
		{`{"$switch": {"branches": [{"case": 1}]}}`, 40065},
		{`{"$switch": {"branches": [{"case": false, "then": 1}]}}`, 40066},
		{`{"$switch": {"branches": [], "x": 1}}`, 40067},
		{`{"$switch": {"branches": []}}`, 40068},
		{`{"$first": "$s"}`, 28689},
		{`{"$last": [1, 2]}`, 16020},
		{`{"$reverseArray": "$s"}`, 34435},
		{`{"$slice": ["$s", 1]}`, 28724},
		{`{"$slice": ["$arr", "a"]}`, 28725},
		{`{"$slice": ["$arr", 1.5]}`, 28726},
		{`{"$slice": ["$arr", 1, "a"]}`, 28727},
		{`{"$slice": ["$arr", 1, 1e12]}`, 28728},
		{`{"$slice": ["$arr", 1, 0]}`, 28729},
		{`{"$slice": ["$arr"]}`, 28667},
		{`{"$split": [1, "-"]}`, 40085},
		{`{"$split": ["a", 1]}`, 40086},
		{`{"$split": ["a", ""]}`, 40087},
		{`{"$trim": "a"}`, 50696},
		{`{"$trim": {"input": "a", "x": 1}}`, 50694},
		{`{"$trim": {"chars": "a"}}`, 50695},
		{`{"$trim": {"input": 1}}`, 50699},
		{`{"$ltrim": {"input": "a", "chars": 1}}`, 50700},
		{`{"$toObjectId": "abc"}`, 241},
		{`{"$toObjectId": "zz1d7c0e9f1b2c3d4e5f6a7b"}`, 241},
		{`{"$toObjectId": 1}`, 241},
		{`{"$toDecimal": "x"}`, 241},
		{`{"$convert": 1}`, 9},
		{`{"$convert": {"input": 1, "to": "int", "x": 1}}`, 9},
		{`{"$convert": {"to": "int"}}`, 9},
		{`{"$convert": {"input": 1}}`, 9},
		{`{"$convert": {"input": 1, "to": "integer"}}`, 2},
		{`{"$convert": {"input": 1, "to": 1.5}}`, 9},
		{`{"$convert": {"input": 1, "to": 99}}`, 9},
		{`{"$convert": {"input": 1, "to": true}}`, 50981},
		{`{"$convert": {"input": "$arr", "to": "string"}}`, 241},
		{`{"$round": ["a"]}`, 51081},
		{`{"$round": [1, "a"]}`, 16004},
		{`{"$round": [1, 1.5]}`, 51082},
		{`{"$trunc": [1, 101]}`, 51083},
		{`{"$round": [1, 2, 3]}`, 28667},
		{`{"$round": [{"$numberLong": "9223372036854775807"}, -1]}`, 51080},
		{`{"$sqrt": -1}`, 28714},
		{`{"$sqrt": "a"}`, 28765},
		{`{"$ln": 0}`, 28766},
		{`{"$log10": -1}`, 28761},
		{`{"$log": ["a", 2]}`, 28756},
		{`{"$log": [2, "a"]}`, 28757},
		{`{"$log": [0, 2]}`, 28758},
		{`{"$log": [2, 1]}`, 28759},
		{`{"$pow": ["a", 2]}`, 28762},
		{`{"$pow": [2, "a"]}`, 28763},
		{`{"$pow": [0, -1]}`, 28764},
		{`{"$range": ["a", 1]}`, 34443},
		{`{"$range": [0.5, 1]}`, 34444},
		{`{"$range": [0, "b"]}`, 34445},
		{`{"$range": [0, 1.5]}`, 34446},
		{`{"$range": [0, 1, "c"]}`, 34447},
		{`{"$range": [0, 1, 0.5]}`, 34448},
		{`{"$range": [0, 1, 0]}`, 34449},
		{`{"$range": [0, 2000000000]}`, 146},
		{`{"$objectToArray": "$s"}`, 40390},
		{`{"$indexOfArray": ["$s", 1]}`, 40090},
		{`{"$indexOfArray": ["$arr", 1, 1.5]}`, 40096},
		{`{"$indexOfArray": ["$arr", 1, -1]}`, 40097},
	}
	checkExprCodes(t, doc, errs)
}

// exprCase is an expression and the value it gives; exprCode one and
// the code it fails with.
type (
	exprCase struct{ expr, want string }
	exprCode struct {
		expr string
		code int
	}
)

// checkExprs evaluates each expression over the one document of doc and
// compares the value (type and field order too).
func checkExprs(t *testing.T, doc string, cases []exprCase) {
	t.Helper()
	for _, tc := range cases {
		got, err := run(t, doc, `[{"$replaceWith": {"v": `+tc.expr+`}}]`, Options{})
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if want := (bson.A{bson.D{{Key: "v", Value: val(t, tc.want)}}}); !same(got, want) {
			t.Errorf("%s = %v, want %s", tc.expr, got, tc.want)
		}
	}
}

// checkExprCodes checks that each expression fails over doc with its
// code, at parse time or when it runs.
func checkExprCodes(t *testing.T, doc string, cases []exprCode) {
	t.Helper()
	for _, tc := range cases {
		_, err := run(t, doc, `[{"$replaceWith": {"v": `+tc.expr+`}}]`, Options{})
		if got := codeOf(err); got != tc.code {
			t.Errorf("%s: got %v, want code %d", tc.expr, err, tc.code)
		}
	}
}

// TestExpressionMemoryBound checks that an expression that doubles a
// value at each step fails with 146 ExceededMemoryLimit once it passes
// 100 MiB, as mongod's $map/$filter/$reduce limit does, rather than
// take the process's memory: through $reduce, and through $let's
// bindings with no loop at all, for arrays and for strings.
func TestExpressionMemoryBound(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "s": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}]`
	double := `{"$reduce": {"input": {"$map": {"input": [` + strings.Repeat("0,", 63) + `0], "in": 0}}, "initialValue": ["$s"], "in": {"$concatArrays": ["$$value", "$$value"]}}}`
	let := `["$s"]`
	for i := range 40 {
		v := fmt.Sprintf("v%d", i)
		let = fmt.Sprintf(`{"$let": {"vars": {"%s": %s}, "in": {"$concatArrays": ["$$%s", "$$%s"]}}}`, v, let, v, v)
	}
	str := `"$s"`
	for i := range 40 {
		v := fmt.Sprintf("v%d", i)
		str = fmt.Sprintf(`{"$let": {"vars": {"%s": %s}, "in": {"$concat": ["$$%s", "$$%s"]}}}`, v, str, v, v)
	}
	checkExprCodes(t, doc, []exprCode{{double, 146}, {let, 146}, {str, 146}})
}
