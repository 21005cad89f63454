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

// TestDateFromStringClockWords30: without a format, mongod's parser
// reads a 12-hour clock and the words noon and midnight where a time
// stands (date_from_string.js, "Wacky format tests": "July 4th, 2017
// 11am", "July 4th, 2017 12pm", "2017-Jul-04 noon").
func TestDateFromStringClockWords30(t *testing.T) {
	t.Parallel()
	from := func(s string) string { return `{"$dateFromString": {"dateString": "` + s + `"}}` }
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{from("July 4th, 2017"), `{"$date": "2017-07-04T00:00:00Z"}`},
		{from("July 4th, 2017 12:39:30 BST"), `{"$date": "2017-07-04T11:39:30Z"}`},
		{from("July 4th, 2017 11am"), `{"$date": "2017-07-04T11:00:00Z"}`},
		{from("July 4th, 2017 12pm"), `{"$date": "2017-07-04T12:00:00Z"}`},
		{from("July 4th, 2017 12am"), `{"$date": "2017-07-04T00:00:00Z"}`},
		{from("July 4th, 2017 11:30 p.m."), `{"$date": "2017-07-04T23:30:00Z"}`},
		{from("July 4th, 2017 11:30:15PM EST"), `{"$date": "2017-07-05T04:30:15Z"}`},
		{from("2017-Jul-04 noon"), `{"$date": "2017-07-04T12:00:00Z"}`},
		{from("2017-07-04 midnight"), `{"$date": "2017-07-04T00:00:00Z"}`},
		{from("7/4/17"), `{"$date": "2017-07-04T00:00:00Z"}`},
		{from("04-07-2017"), `{"$date": "2017-07-04T00:00:00Z"}`},
		{from("2017-07-04 12:48:07 GMT+0545"), `{"$date": "2017-07-04T07:03:07Z"}`},
		{from("2017-07-04 12:48:07 GMT-0200"), `{"$date": "2017-07-04T14:48:07Z"}`},
		// A lone military letter is a zone, not a meridian.
		{from("2017-07-14T12:02:44.771 A"), `{"$date": "2017-07-14T11:02:44.771Z"}`},
		{from("2017-07-14T12:02:44.771 P"), `{"$date": "2017-07-14T15:02:44.771Z"}`},
	})
	checkExprCodes(t, `[{"_id": 1}]`, []exprCode{
		{from("July 4th, 2017 13pm"), 241},
		{from("2017-07-04 11amx"), 241},
		{from("July 4th"), 241},
	})
}
