package agg

import "testing"

// TestSetOperators checks the set operators against mongod's rules:
// values equal as BSON values are one element (1, 1.0 and NumberLong(1)),
// the first of them kept; $setUnion and $setIntersection in BSON order,
// $setDifference in its first array's order; null for a null or missing
// argument where mongod gives null ($setUnion, $setIntersection,
// $setDifference), a refusal where it refuses ($setEquals, $setIsSubset).
func TestSetOperators(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "a": [3, 1, 2, 1], "b": [2.0, 4, {"$numberLong": "1"}], "n": null, "s": "x"}]`
	checkExprs(t, doc, []exprCase{
		{`{"$setUnion": ["$a", "$b"]}`, `[1, 2, 3, 4]`},
		{`{"$setUnion": [["b", 1, null, {"x": 1}], [[1], "b"]]}`, `[null, 1, "b", {"x": 1}, [1]]`},
		{`{"$setUnion": [[{"$numberLong": "2"}, 2]]}`, `[{"$numberLong": "2"}]`},
		{`{"$setUnion": []}`, `[]`},
		{`{"$setUnion": ["$a", "$n"]}`, `null`},
		{`{"$setUnion": ["$nosuch", "$a"]}`, `null`},
		{`{"$setIntersection": ["$a", "$b"]}`, `[1, 2]`},
		{`{"$setIntersection": [[3, 2, 2], [2.0, 3, 5], [3, 2]]}`, `[2, 3]`},
		{`{"$setIntersection": [[1], []]}`, `[]`},
		{`{"$setIntersection": []}`, `[]`},
		{`{"$setIntersection": ["$a"]}`, `[1, 2, 3]`},
		{`{"$setIntersection": ["$n", "$s"]}`, `null`},
		{`{"$setDifference": ["$a", [2]]}`, `[3, 1]`},
		{`{"$setDifference": ["$b", "$a"]}`, `[4]`},
		{`{"$setDifference": ["$a", "$nosuch"]}`, `null`},
		{`{"$setDifference": ["$n", "$s"]}`, `null`},
		{`{"$setEquals": [[1, 2, 2], [2, 1.0], [{"$numberLong": "2"}, 1]]}`, `true`},
		{`{"$setEquals": ["$a", [1, 2]]}`, `false`},
		{`{"$setEquals": [[], []]}`, `true`},
		{`{"$setIsSubset": [[1, 1.0], "$b"]}`, `true`},
		{`{"$setIsSubset": ["$a", "$b"]}`, `false`},
		{`{"$setIsSubset": [[], []]}`, `true`},
		{`{"$allElementsTrue": [[1, true, "x", [], {}]]}`, `true`},
		{`{"$allElementsTrue": [[1, 0]]}`, `false`},
		{`{"$allElementsTrue": [[null]]}`, `false`},
		{`{"$allElementsTrue": [[]]}`, `true`},
		{`{"$anyElementTrue": [[0, null, false, {"$numberDecimal": "0"}]]}`, `false`},
		{`{"$anyElementTrue": [[0, [false]]]}`, `true`},
		{`{"$anyElementTrue": "$a"}`, `true`},
		{`{"$anyElementTrue": [[]]}`, `false`},
	})
	checkExprCodes(t, doc, []exprCode{
		{`{"$setUnion": ["$a", "$s"]}`, 17043},
		{`{"$setUnion": ["$a", 1, null]}`, 17043},
		{`{"$setIntersection": ["$s", "$n"]}`, 17047},
		{`{"$setDifference": ["$s", "$a"]}`, 17048},
		{`{"$setDifference": ["$a", "$s"]}`, 17049},
		{`{"$setDifference": ["$a"]}`, 16020},
		{`{"$setEquals": ["$a", "$n"]}`, 17044},
		{`{"$setEquals": ["$nosuch", "$a"]}`, 17044},
		{`{"$setEquals": [[1]]}`, 17045},
		{`{"$setEquals": "$a"}`, 17045},
		{`{"$setIsSubset": ["$n", "$a"]}`, 17046},
		{`{"$setIsSubset": ["$a", "$nosuch"]}`, 17042},
		{`{"$setIsSubset": ["$a", "$b", "$a"]}`, 16020},
		{`{"$allElementsTrue": "$s"}`, 17040},
		{`{"$allElementsTrue": "$nosuch"}`, 17040},
		{`{"$anyElementTrue": "$n"}`, 17041},
		{`{"$anyElementTrue": [[1], [2]]}`, 16020},
	})
}
