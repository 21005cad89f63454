package agg

import (
	"fmt"
	"strings"
	"testing"
)

// TestArrayObjectOperators checks $arrayToObject, $zip, $sortArray,
// $isNumber, $getField, $setField and $unsetField against mongod's
// rules, and their refusals with mongod's codes.
func TestArrayObjectOperators(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "n": null, "s": "x", "a": [1, 2, 3], "b": ["x", "y"],
		"docs": [{"q": 2, "p": "b"}, {"q": 1, "p": "a"}, {"p": "c"}, 7, {"q": [0, 9], "p": "d"}],
		"odd": {"a.b": 1, "$c": 2, "d": 3}, "fname": "d"}]`
	checkExprs(t, doc, []exprCase{
		{`{"$arrayToObject": [[["a", 1], ["b", 2]]]}`, `{"a": 1, "b": 2}`},
		{`{"$arrayToObject": [[{"k": "a", "v": 1}, {"v": 2, "k": "b"}]]}`, `{"a": 1, "b": 2}`},
		{`{"$arrayToObject": [[["a", 1], ["b", 2], ["a", 3]]]}`, `{"a": 3, "b": 2}`},
		{`{"$arrayToObject": [[{"k": "a.b", "v": null}, {"k": {"$literal": "$c"}, "v": [1]}]]}`, `{"a.b": null, "$c": [1]}`},
		{`{"$arrayToObject": [[]]}`, `{}`},
		{`{"$arrayToObject": "$n"}`, `null`},
		{`{"$arrayToObject": "$nosuch"}`, `null`},
		{`{"$arrayToObject": {"$objectToArray": "$odd"}}`, `{"a.b": 1, "$c": 2, "d": 3}`},
		{`{"$zip": {"inputs": ["$a", "$b"]}}`, `[[1, "x"], [2, "y"]]`},
		{`{"$zip": {"inputs": ["$a", "$b"], "useLongestLength": true}}`, `[[1, "x"], [2, "y"], [3, null]]`},
		{`{"$zip": {"inputs": ["$a", "$b"], "useLongestLength": true, "defaults": ["$nosuch", "z"]}}`, `[[1, "x"], [2, "y"], [3, "z"]]`},
		{`{"$zip": {"inputs": ["$a", []]}}`, `[]`},
		{`{"$zip": {"inputs": ["$a", "$n"]}}`, `null`},
		{`{"$zip": {"inputs": ["$nosuch", "$s"]}}`, `null`},
		{`{"$zip": {"inputs": [[[1, 2]]]}}`, `[[[1, 2]]]`},
		{`{"$sortArray": {"input": [3, "a", 1.5, null, {"x": 1}, 2], "sortBy": 1}}`, `[null, 1.5, 2, 3, "a", {"x": 1}]`},
		{`{"$sortArray": {"input": "$a", "sortBy": -1}}`, `[3, 2, 1]`},
		{`{"$sortArray": {"input": "$docs", "sortBy": {"q": 1}}}`, `[{"p": "c"}, 7, {"q": [0, 9], "p": "d"}, {"q": 1, "p": "a"}, {"q": 2, "p": "b"}]`},
		{`{"$sortArray": {"input": "$docs", "sortBy": {"q": -1, "p": 1}}}`, `[{"q": [0, 9], "p": "d"}, {"q": 2, "p": "b"}, {"q": 1, "p": "a"}, 7, {"p": "c"}]`},
		{`{"$sortArray": {"input": [[1, 2], [1], 1], "sortBy": 1}}`, `[1, [1], [1, 2]]`},
		{`{"$sortArray": {"input": "$n", "sortBy": 1}}`, `null`},
		{`{"$sortArray": {"input": [], "sortBy": -1}}`, `[]`},
		{`{"$isNumber": "$a"}`, `false`},
		{`{"$isNumber": {"$numberDecimal": "1.5"}}`, `true`},
		{`{"$isNumber": [{"$numberLong": "1"}]}`, `true`},
		{`{"$isNumber": "$nosuch"}`, `false`},
		{`{"$getField": "s"}`, `"x"`},
		{`{"$getField": {"field": "a.b", "input": "$odd"}}`, `1`},
		{`{"$getField": {"field": {"$literal": "$c"}, "input": "$odd"}}`, `2`},
		{`{"$getField": {"$literal": "s"}}`, `"x"`},
		{`{"$getField": {"field": "$fname", "input": "$odd"}}`, `3`},
		{`{"$getField": {"field": {"$concat": ["f", "name"]}, "input": "$$ROOT"}}`, `"d"`},
		{`{"$getField": {"field": "a", "input": "$n"}}`, `null`},
		{`{"$ifNull": [{"$getField": {"field": "a", "input": "$nosuch"}}, "missing"]}`, `"missing"`},
		{`{"$ifNull": [{"$getField": {"field": "a", "input": "$s"}}, "missing"]}`, `"missing"`},
		{`{"$ifNull": [{"$getField": {"field": "zz", "input": "$odd"}}, "missing"]}`, `"missing"`},
		{`{"$setField": {"field": "a.b", "input": "$odd", "value": 9}}`, `{"a.b": 9, "$c": 2, "d": 3}`},
		{`{"$setField": {"field": {"$literal": "$e"}, "input": "$odd", "value": "$s"}}`, `{"a.b": 1, "$c": 2, "d": 3, "$e": "x"}`},
		{`{"$setField": {"field": {"$literal": "$c"}, "input": {}, "value": 1}}`, `{"$c": 1}`},
		{`{"$setField": {"field": "d", "input": "$odd", "value": "$$REMOVE"}}`, `{"a.b": 1, "$c": 2}`},
		{`{"$setField": {"field": "d", "input": "$nosuch", "value": 1}}`, `null`},
		{`{"$unsetField": {"field": "a.b", "input": "$odd"}}`, `{"$c": 2, "d": 3}`},
		{`{"$unsetField": {"field": "zz", "input": "$odd"}}`, `{"a.b": 1, "$c": 2, "d": 3}`},
		{`{"$unsetField": {"field": "zz", "input": "$n"}}`, `null`},
		{`[{"$setField": {"field": "d", "input": "$odd", "value": 0}}, "$odd"]`, `[{"a.b": 1, "$c": 2, "d": 0}, {"a.b": 1, "$c": 2, "d": 3}]`},
	})
	checkExprCodes(t, doc, []exprCode{
		{`{"$arrayToObject": "$s"}`, 40386},
		{`{"$arrayToObject": [[1]]}`, 40398},
		{`{"$arrayToObject": [[["a", 1], {"k": "b", "v": 2}]]}`, 40396},
		{`{"$arrayToObject": [[["a", 1, 2]]]}`, 40397},
		{`{"$arrayToObject": [[[1, 1]]]}`, 40395},
		{`{"$arrayToObject": [[{"k": "a", "v": 1}, ["b", 2]]]}`, 40391},
		{`{"$arrayToObject": [[{"k": "a"}]]}`, 40392},
		{`{"$arrayToObject": [[{"k": "a", "x": 1}]]}`, 40393},
		{`{"$arrayToObject": [[{"k": 1, "v": 1}]]}`, 40394},
		{`{"$arrayToObject": [[["a\u0000b", 1]]]}`, 4940400},
		{`{"$arrayToObject": [[{"k": "a\u0000b", "v": 1}]]}`, 4940401},
		{`{"$arrayToObject": [1, 2]}`, 16020},
		{`{"$zip": 1}`, 34460},
		{`{"$zip": {"inputs": "$a"}}`, 34461},
		{`{"$zip": {"inputs": ["$a"], "defaults": 1}}`, 34462},
		{`{"$zip": {"inputs": ["$a"], "useLongestLength": 1}}`, 34463},
		{`{"$zip": {"inputs": ["$a"], "x": 1}}`, 34464},
		{`{"$zip": {"inputs": []}}`, 34465},
		{`{"$zip": {"useLongestLength": true}}`, 34465},
		{`{"$zip": {"inputs": ["$a"], "defaults": [1]}}`, 34466},
		{`{"$zip": {"inputs": ["$a", "$b"], "defaults": [1], "useLongestLength": true}}`, 34467},
		{`{"$zip": {"inputs": ["$a", "$s"]}}`, 34468},
		{`{"$sortArray": []}`, 2942500},
		{`{"$sortArray": {"input": [], "sortBy": 1, "x": 1}}`, 2942501},
		{`{"$sortArray": {"sortBy": 1}}`, 2942502},
		{`{"$sortArray": {"input": []}}`, 2942503},
		{`{"$sortArray": {"input": "$s", "sortBy": 1}}`, 2942504},
		{`{"$sortArray": {"input": [], "sortBy": 2}}`, 2942506},
		{`{"$sortArray": {"input": [], "sortBy": "a"}}`, 2942506},
		{`{"$sortArray": {"input": [], "sortBy": {"a": "x"}}}`, 15974},
		{`{"$isNumber": [1, 2]}`, 16020},
		{`{"$getField": {"field": "a"}}`, 3041703},
		{`{"$getField": {"input": {}}}`, 3041702},
		{`{"$getField": {"field": "a", "input": {}, "x": 1}}`, 3041701},
		{`{"$getField": 5}`, 5654602},
		{`{"$getField": {"field": null, "input": {}}}`, 5654602},
		{`{"$getField": {"field": "$a", "input": {}}}`, 3041704},
		{`{"$getField": {"field": "$nosuch", "input": {}}}`, 3041704},
		{`{"$setField": 1}`, 4161100},
		{`{"$setField": {"field": "a", "input": {}, "value": 1, "x": 1}}`, 4161101},
		{`{"$setField": {"input": {}, "value": 1}}`, 4161102},
		{`{"$setField": {"field": "a", "input": {}}}`, 4161103},
		{`{"$setField": {"field": "a", "value": 1}}`, 4161109},
		{`{"$setField": {"field": "a", "input": "$s", "value": 1}}`, 4161105},
		{`{"$setField": {"field": {"$concat": ["a"]}, "input": {}, "value": 1}}`, 4161106},
		{`{"$setField": {"field": 1, "input": {}, "value": 1}}`, 4161107},
		{`{"$setField": {"field": "$s", "input": {}, "value": 1}}`, 4161108},
		{`{"$unsetField": {"field": "a", "input": {}, "value": 1}}`, 4161101},
		{`{"$unsetField": {"input": {}}}`, 4161102},
		{`{"$unsetField": {"field": "a"}}`, 4161109},
		{`{"$unsetField": {"field": "a", "input": 1}}`, 4161105},
	})
}

// TestZipMemoryBound checks that $zip's padding cannot multiply a large
// default past 100 MiB: 146 ExceededMemoryLimit, as the other
// array builders.
func TestZipMemoryBound(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	doc := fmt.Sprintf(`[{"_id": 1, "big": %q}]`, big)
	checkExprCodes(t, doc, []exprCode{
		{`{"$zip": {"inputs": [{"$range": [0, 200]}, []], "useLongestLength": true, "defaults": [0, "$big"]}}`, 146},
	})
}
