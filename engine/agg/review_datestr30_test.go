package agg

import "testing"

// Session 30's differential review of date and string expressions and
// window functions against mongod 7.0's jstests
// (jstests/aggregation/expressions/, jstests/aggregation/sources/
// setWindowFields/, densify/, fill/) and its sources under
// src/mongo/db/pipeline. Each test asserts mongod's answer.

// TestIndexOfCPStartPastEmpty30: $indexOfCP finds nothing when the
// start lies past the end, even "" in "" (SERVER-56819, pinned by
// indexof_codepoints.js); "" is at 0 in "" only from 0.
func TestIndexOfCPStartPastEmpty30(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1, "e": ""}]`, []exprCase{
		{`{"$indexOfCP": ["", "$e", 3]}`, `{"$numberInt": "-1"}`},
		{`{"$indexOfCP": ["", "$e", 3, 1]}`, `{"$numberInt": "-1"}`},
		{`{"$indexOfCP": ["", ""]}`, `{"$numberInt": "0"}`},
		{`{"$indexOfCP": ["", "", 0, 5]}`, `{"$numberInt": "0"}`},
		{`{"$indexOfCP": [" ", ""]}`, `{"$numberInt": "0"}`},
		{`{"$indexOfCP": ["abc", "", 1]}`, `{"$numberInt": "1"}`},
		{`{"$indexOfCP": ["abc", "", 3]}`, `{"$numberInt": "-1"}`},
		{`{"$indexOfCP": ["a√cb", "b", 3, 1]}`, `{"$numberInt": "-1"}`},
		{`{"$indexOfCP": ["πbƒ\u0000d\u0000", "d", 5, 6]}`, `{"$numberInt": "-1"}`},
		{`{"$indexOfCP": ["ab∫de", "d", 0, 4]}`, `{"$numberInt": "3"}`},
		{`{"$indexOfBytes": ["", "", 3]}`, `{"$numberInt": "-1"}`},
		{`{"$indexOfBytes": ["", ""]}`, `{"$numberInt": "0"}`},
	})
}
