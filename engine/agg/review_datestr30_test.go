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

// TestDateAddUnitChecks30: mongod 7.0's $dateAdd and $dateSubtract
// (ExpressionDateArithmetics::evaluate) give null for a null start
// date, unit, amount or time zone before they check anything, then check
// the date (5166403), then the unit: 5166404 when it is not a string, 9
// FailedToParse when it is not a unit, then the amount (5166405).
// date_add_subtract.js pins these: {unit: "workday", amount: "$amount",
// timezone: "Unknown"} is null, {unit: 1} is 5166404, {unit: "epoch"}
// is FailedToParse.
func TestDateAddUnitChecks30(t *testing.T) {
	t.Parallel()
	const doc = `[{"_id": 1, "date": {"$date": "2020-12-31T12:10:05Z"}, "unit": "month", "timezone": "Europe/Paris"}]`
	checkExprs(t, doc, []exprCase{
		{`{"$dateAdd": {"startDate": "$dateSent", "unit": "workday", "amount": 1}}`, `null`},
		{`{"$dateAdd": {"startDate": "New year day", "unit": "$timeunit", "amount": 1}}`, `null`},
		{`{"$dateAdd": {"startDate": "$date", "unit": "workday", "amount": "$amount", "timezone": "Unknown"}}`, `null`},
		{`{"$dateAdd": {"startDate": "$date", "unit": "$unit", "amount": 1.5, "timezone": null}}`, `null`},
		{`{"$dateAdd": {"startDate": "$date", "unit": "$unit", "amount": 2, "timezone": "$timezone"}}`, `{"$date": "2021-02-28T12:10:05Z"}`},
		{`{"$dateSubtract": {"startDate": "$date", "unit": "$unit", "amount": 3, "timezone": "$timezone"}}`, `{"$date": "2020-09-30T11:10:05Z"}`},
	})
	checkExprCodes(t, doc, []exprCode{
		{`{"$dateAdd": {"startDate": "$date", "unit": 1, "amount": 10}}`, 5166404},
		{`{"$dateAdd": {"startDate": "$date", "unit": "epoch", "amount": 10}}`, 9},
		{`{"$dateSubtract": {"startDate": "$date", "unit": "epoch", "amount": 1.5}}`, 9},
		{`{"$dateSubtract": {"startDate": "myBirthDate", "unit": "epoch", "amount": 10}}`, 5166403},
		{`{"$dateAdd": {"startDate": "$date", "unit": "epoch", "amount": 1, "timezone": "Unknown"}}`, 40485},
		{`{"$dateSubtract": {"startDate": "$date", "unit": "year", "amount": 1.001}}`, 5166405},
	})
}
