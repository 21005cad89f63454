package agg

import (
	"errors"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

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

// TestDateDiffArgumentOrder30 runs date_diff.js's table: null or
// missing arguments give null before any other argument is judged;
// then the dates (5166307), the unit (5439013, 5439014), the time zone
// (40517, 40485) and, for weeks only, startOfWeek (5439015, 5439016).
func TestDateDiffArgumentOrder30(t *testing.T) {
	t.Parallel()
	const some = `{"$date": "2020-11-01T18:23:36Z"}`
	diff := `{"$dateDiff": {"startDate": "$startDate", "endDate": "$endDate", "unit": "$unit", "timezone": "$timeZone", "startOfWeek": "$startOfWeek"}}`
	for _, tc := range []struct {
		doc  string
		want string
		code int
	}{
		{`{"startDate": {"$date": "2020-11-01T18:23:36Z"}, "endDate": {"$date": "2020-11-02T00:00:00Z"}, "unit": "hour", "timeZone": "America/New_York", "startOfWeek": "IGNORED"}`, `{"$numberLong": "6"}`, 0},
		{`{"startDate": "string", "endDate": ` + some + `, "unit": "hour", "timeZone": "UTC"}`, ``, 5166307},
		{`{"endDate": 1, "unit": "century", "timeZone": "INVALID"}`, `null`, 0},
		{`{"startDate": ` + some + `, "endDate": 1, "unit": "hour", "timeZone": "UTC"}`, ``, 5166307},
		{`{"startDate": "", "unit": "epoch", "timeZone": "INVALID"}`, `null`, 0},
		{`{"startDate": 1, "endDate": 2, "timeZone": "INVALID"}`, `null`, 0},
		{`{"startDate": ` + some + `, "endDate": ` + some + `, "unit": 5, "timeZone": "UTC"}`, ``, 5439013},
		{`{"startDate": ` + some + `, "endDate": ` + some + `, "unit": "decade", "timeZone": "UTC"}`, ``, 5439014},
		{`{"startDate": 1, "endDate": 2, "unit": "century"}`, `null`, 0},
		{`{"startDate": ` + some + `, "endDate": ` + some + `, "unit": "hour", "timeZone": 1}`, ``, 40517},
		{`{"startDate": ` + some + `, "endDate": ` + some + `, "unit": "hour", "timeZone": "America/Invalid"}`, ``, 40485},
		{`{"startDate": {"$date": "2021-01-24T18:23:36Z"}, "endDate": {"$date": "2021-01-25T02:23:36Z"}, "unit": "week", "timeZone": "GMT", "startOfWeek": "MONDAY"}`, `{"$numberLong": "1"}`, 0},
		{`{"startDate": {"$date": "2021-01-17T05:00:00Z"}, "endDate": {"$date": "2021-01-17T04:59:00Z"}, "unit": "week", "timeZone": "America/New_York", "startOfWeek": "sunday"}`, `{"$numberLong": "-1"}`, 0},
		{`{"startDate": ` + some + `, "endDate": ` + some + `, "unit": "week", "startOfWeek": null}`, `null`, 0},
		{`{"startDate": 1, "endDate": 2, "unit": "week", "timeZone": 1}`, `null`, 0},
		{`{"startDate": ` + some + `, "endDate": ` + some + `, "unit": "week", "timeZone": "GMT", "startOfWeek": 1}`, ``, 5439015},
		{`{"startDate": ` + some + `, "endDate": ` + some + `, "unit": "hour", "timeZone": "GMT", "startOfWeek": 1}`, `{"$numberLong": "0"}`, 0},
		{`{"startDate": ` + some + `, "endDate": ` + some + `, "unit": "week", "timeZone": "GMT", "startOfWeek": "FRIDIE"}`, ``, 5439016},
	} {
		doc := `[` + tc.doc + `]`
		if tc.code != 0 {
			checkExprCodes(t, doc, []exprCode{{diff, tc.code}})
			continue
		}
		checkExprs(t, doc, []exprCase{{diff, tc.want}})
	}
}

// TestDateTruncArgumentOrder30 runs date_trunc.js's table: mongod's
// $dateTrunc gives null for a null or missing date, unit, binSize,
// startOfWeek (for weeks) or timezone before judging any argument, then
// judges the date (5439012), the unit (5439013, 5439014), binSize
// (5439017, 5439018) and startOfWeek (5439015 for a non-string, 5439016).
func TestDateTruncArgumentOrder30(t *testing.T) {
	t.Parallel()
	const some = `{"$date": "2020-11-01T18:23:36Z"}`
	trunc := `{"$dateTrunc": {"date": "$date", "unit": "$unit", "binSize": "$binSize", "timezone": "$timeZone", "startOfWeek": "$startOfWeek"}}`
	for _, tc := range []struct {
		doc  string
		want string
		code int
	}{
		{`{"date": {"$date": "2021-12-01T18:23:36Z"}, "unit": "hour", "binSize": 4, "timeZone": "America/New_York", "startOfWeek": "IGNORED"}`, `{"$date": "2021-12-01T17:00:00Z"}`, 0},
		{`{"date": {"$date": "2000-01-30T18:00:00Z"}, "unit": "week", "binSize": 2, "timeZone": "America/New_York", "startOfWeek": "mon"}`, `{"$date": "2000-01-17T05:00:00Z"}`, 0},
		{`{"date": "string", "unit": "hour", "binSize": 1, "timeZone": "UTC"}`, ``, 5439012},
		{`{"unit": "H", "binSize": "string", "timeZone": 1}`, `null`, 0},
		{`{"date": null, "unit": 5, "binSize": 1, "timeZone": "UTC"}`, `null`, 0},
		{`{"date": "Invalid", "binSize": "Invalid", "timeZone": "Invalid"}`, `null`, 0},
		{`{"date": ` + some + `, "unit": 1, "binSize": 1, "timeZone": "UTC"}`, ``, 5439013},
		{`{"date": ` + some + `, "unit": "century", "binSize": 1, "timeZone": "UTC"}`, ``, 5439014},
		{`{"date": "Invalid", "unit": "invalid", "timeZone": "Invalid"}`, `null`, 0},
		{`{"date": ` + some + `, "unit": "hour", "binSize": "Number", "timeZone": "UTC"}`, ``, 5439017},
		{`{"date": ` + some + `, "unit": 7, "binSize": "Number", "timeZone": "UTC"}`, ``, 5439013},
		{`{"date": ` + some + `, "unit": "hour", "binSize": 0, "timeZone": "UTC"}`, ``, 5439018},
		{`{"date": ` + some + `, "unit": "hour", "binSize": 2.5, "timeZone": "UTC"}`, ``, 5439017},
		{`{"date": {"$date": "2020-01-30T18:59:00Z"}, "unit": "minute", "binSize": {"$numberDecimal": "15"}, "timeZone": "UTC"}`, `{"$date": "2020-01-30T18:45:00Z"}`, 0},
		{`{"date": 1, "unit": "century", "binSize": "1"}`, `null`, 0},
		{`{"date": ` + some + `, "unit": "hour", "binSize": 1, "timeZone": 1}`, ``, 40517},
		{`{"date": "x", "unit": "hour", "binSize": 1, "timeZone": 1}`, ``, 40517},
		{`{"date": ` + some + `, "unit": "hour", "binSize": 1, "timeZone": "America/Invalid"}`, ``, 40485},
		{`{"date": ` + some + `, "unit": "week", "startOfWeek": null}`, `null`, 0},
		{`{"date": 1, "unit": "week", "binSize": "", "timeZone": 1}`, `null`, 0},
		{`{"date": ` + some + `, "unit": "week", "binSize": 1, "timeZone": "GMT", "startOfWeek": 1}`, ``, 5439015},
		{`{"date": {"$date": "2020-01-30T18:59:00Z"}, "binSize": 1, "unit": "year", "timeZone": "GMT", "startOfWeek": 1}`, `{"$date": "2020-01-01T00:00:00Z"}`, 0},
		{`{"date": ` + some + `, "unit": "week", "binSize": 1, "timeZone": "GMT", "startOfWeek": "FRIDIE"}`, ``, 5439016},
	} {
		doc := `[` + tc.doc + `]`
		if tc.code != 0 {
			checkExprCodes(t, doc, []exprCode{{trunc, tc.code}})
			continue
		}
		checkExprs(t, doc, []exprCase{{trunc, tc.want}})
	}
}

// TestDateZoneContext30: $dateDiff and $dateTrunc put their own context
// before a time zone's failure, keeping its code (mongod's
// addContextToAssertionException; expression_test.cpp pins "$dateDiff
// parameter 'timezone' value parsing failed :: caused by :: unrecognized
// time zone identifier: \"INVALID\"").
func TestDateZoneContext30(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr string
		code int
		msg  string
	}{
		{`{"$dateDiff": {"startDate": "$d", "endDate": "$d", "unit": "hour", "timezone": "INVALID"}}`, 40485,
			`$dateDiff parameter 'timezone' value parsing failed :: caused by :: unrecognized time zone identifier: "INVALID"`},
		{`{"$dateTrunc": {"date": "$d", "unit": "hour", "timezone": 1}}`, 40517,
			`$dateTrunc parameter 'timezone' value parsing failed :: caused by :: timezone must evaluate to a string, found int`},
		{`{"$dateAdd": {"startDate": "$d", "unit": "hour", "amount": 1, "timezone": "INVALID"}}`, 40485,
			`unrecognized time zone identifier: "INVALID"`},
	} {
		_, err := run(t, `[{"_id": 1, "d": {"$date": "2020-11-01T18:23:36Z"}}]`, `[{"$replaceWith": {"v": `+tc.expr+`}}]`, Options{})
		var de *document.Error
		if !errors.As(err, &de) || int(de.Code) != tc.code || de.Message != tc.msg {
			t.Errorf("%s: got %v, want %d %q", tc.expr, err, tc.code, tc.msg)
		}
	}
}

// TestDateToStringNullDateFirst30: mongod 7.0's $dateToString checks
// the format and reads the time zone first, then gives onNull for a
// null or missing date even when the format or time zone is null
// (ExpressionDateToString::evaluate); only then do a null format or zone
// give null, and only then must the date be one.
func TestDateToStringNullDateFirst30(t *testing.T) {
	t.Parallel()
	const doc = `[{"_id": 1, "n": null}]`
	checkExprs(t, doc, []exprCase{
		{`{"$dateToString": {"date": "$n", "onNull": "N", "timezone": "$missing"}}`, `"N"`},
		{`{"$dateToString": {"date": "$missing", "onNull": "N", "format": null}}`, `"N"`},
		{`{"$dateToString": {"date": "abc", "format": "$missing"}}`, `null`},
		{`{"$dateToString": {"date": "abc", "timezone": null}}`, `null`},
		{`{"$dateToString": {"date": {"$date": "2018-02-06T11:56:02Z"}, "format": "%Y", "timezone": null, "onNull": "N"}}`, `null`},
	})
	checkExprCodes(t, doc, []exprCode{
		{`{"$dateToString": {"date": "$n", "onNull": "N", "timezone": "bad"}}`, 40485},
		{`{"$dateToString": {"date": "$n", "onNull": "N", "format": 5}}`, 18533},
		{`{"$dateToString": {"date": "$n", "onNull": "N", "format": "%n"}}`, 18536},
		{`{"$dateToString": {"date": "abc", "format": "%Y"}}`, 16006},
	})
}

// TestDatePartZoneTypeWords30: the date part operators ($year, $hour,
// ...) refuse a time zone that is not a string in their own words
// (DateExpressionAcceptingTimeZone, expression.h): "$year requires a
// string for the timezone argument, but was given a int (5)".
func TestDatePartZoneTypeWords30(t *testing.T) {
	t.Parallel()
	_, err := run(t, `[{"_id": 1, "d": {"$date": "2020-01-01T00:00:00Z"}}]`, `[{"$replaceWith": {"v": {"$year": {"date": "$d", "timezone": 5}}}}]`, Options{})
	var de *document.Error
	if !errors.As(err, &de) || de.Code != 40533 || de.Message != "$year requires a string for the timezone argument, but was given a int (5)" {
		t.Errorf("got %v", err)
	}
}

// TestStringEdges30: $split of "" is [""] (mongod's split always keeps
// the rest after the last separator, ExpressionSplit::evaluate); a
// decimal start or length is a number to $substrBytes (Value::numeric).
func TestStringEdges30(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$split": ["", ","]}`, `[""]`},
		{`{"$split": [",", ","]}`, `["", ""]`},
		{`{"$split": ["a,b,,c", ","]}`, `["a", "b", "", "c"]`},
		{`{"$substrBytes": ["abcdef", {"$numberDecimal": "1"}, {"$numberDecimal": "2"}]}`, `"bc"`},
		{`{"$substr": ["abcdef", {"$numberDecimal": "2"}, -1]}`, `"cdef"`},
	})
}

// TestExpressionValueWords30: mongod's string and date expressions print
// an offending value with Value::toString ({a: 1}, ["a"], an ISO date, a
// decimal as its digits), not as a shell would, and a bad startOfWeek as
// the string itself.
func TestExpressionValueWords30(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr string
		msg  string
	}{
		{`{"$trim": {"input": "a", "chars": {"$date": "2020-01-01T00:00:00Z"}}}`, `$trim requires 'chars' to be a string, got 2020-01-01T00:00:00.000Z (of type date) instead.`},
		{`{"$rtrim": {"input": ["a", {"b": 1.5}]}}`, `$rtrim requires its input to be a string, got ["a", {b: 1.5}] (of type array) instead.`},
		{`{"$substrCP": ["abc", 1, {"$numberDecimal": "1.5"}]}`, `$substrCP: length cannot be represented as a 32-bit integral value: 1.5`},
		{`{"$indexOfCP": ["abc", "b", {"x": 1}]}`, `$indexOfCP requires an integral starting index, found a value of type: object, with value: {x: 1}`},
		{`{"$replaceAll": {"input": {"a": "x"}, "find": "a", "replacement": "b"}}`, `$replaceAll requires that 'input' be a string, found: {a: "x"}`},
		{`{"$dateFromParts": {"year": {"$numberDecimal": "2017.5"}}}`, `'year' must evaluate to an integer, found decimal with value 2017.5`},
		{`{"$dateToString": {"date": "$d", "format": {"a": 1}}}`, `$dateToString requires that 'format' be a string, found: object with value {a: 1}`},
		{`{"$dateTrunc": {"date": "$d", "unit": "week", "startOfWeek": "Satur"}}`, `$dateTrunc parameter 'startOfWeek' value cannot be recognized as a day of a week: Satur`},
	} {
		_, err := run(t, `[{"_id": 1, "d": {"$date": "2020-11-01T18:23:36Z"}}]`, `[{"$replaceWith": {"v": `+tc.expr+`}}]`, Options{})
		var de *document.Error
		if !errors.As(err, &de) || de.Message != tc.msg {
			t.Errorf("%s: got %v, want %q", tc.expr, err, tc.msg)
		}
	}
}

// TestDateFromStringDSTGap30: $dateFromString reads its date with the
// same timelib step as $dateFromParts (timelib_update_ts), so a wall time
// a spring-forward skips moves forward: 02:30 in New York on 2021-03-14
// is 03:30 EDT, 07:30Z, for $dateFromString, $toDate's sibling reading
// with a timezone, and $dateFromParts alike.
func TestDateFromStringDSTGap30(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$dateFromString": {"dateString": "2021-03-14T02:30:00", "timezone": "America/New_York"}}`, `{"$date": "2021-03-14T07:30:00Z"}`},
		{`{"$dateFromString": {"dateString": "2021-03-14 02:30", "format": "%Y-%m-%d %H:%M", "timezone": "America/New_York"}}`, `{"$date": "2021-03-14T07:30:00Z"}`},
		{`{"$dateFromParts": {"year": 2021, "month": 3, "day": 14, "hour": 2, "minute": 30, "timezone": "America/New_York"}}`, `{"$date": "2021-03-14T07:30:00Z"}`},
		{`{"$dateFromString": {"dateString": "2021-03-14T03:30:00", "timezone": "America/New_York"}}`, `{"$date": "2021-03-14T07:30:00Z"}`},
	})
}

// TestDateTruncMissingMidnight30: where a change of clock skips
// midnight (Sao Paulo on 2018-11-04, Havana on 2021-03-14) the day
// starts at 01:00, as mongod's truncateDate finds it through timelib's
// dateAdd; Go's calendar went back to 23:00 the day before.
func TestDateTruncMissingMidnight30(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$dateTrunc": {"date": {"$date": "2018-11-04T12:00:00Z"}, "unit": "day", "timezone": "America/Sao_Paulo"}}`, `{"$date": "2018-11-04T03:00:00Z"}`},
		{`{"$dateTrunc": {"date": {"$date": "2021-03-14T12:00:00Z"}, "unit": "day", "timezone": "America/Havana"}}`, `{"$date": "2021-03-14T05:00:00Z"}`},
		{`{"$dateTrunc": {"date": {"$date": "2021-03-14T12:00:00Z"}, "unit": "week", "timezone": "America/Havana"}}`, `{"$date": "2021-03-14T05:00:00Z"}`},
		{`{"$dateTrunc": {"date": {"$date": "2018-11-20T12:00:00Z"}, "unit": "month", "timezone": "America/Sao_Paulo"}}`, `{"$date": "2018-11-01T03:00:00Z"}`},
	})
}

// TestDateAddAmountWords30: mongod's range check on the amount lives in
// its dateAdd (date_time_support.cpp), which words it the same for both
// operators, with the amount dateAdd was given ($dateSubtract's
// negated): "invalid dateAdd 'amount' parameter value: 30000000000 month".
func TestDateAddAmountWords30(t *testing.T) {
	t.Parallel()
	_, err := run(t, `[{"_id": 1, "d": {"$date": "2020-12-31T12:10:05Z"}}]`,
		`[{"$replaceWith": {"v": {"$dateSubtract": {"startDate": "$d", "unit": "month", "amount": -30000000000}}}}]`, Options{})
	var de *document.Error
	if !errors.As(err, &de) || de.Code != 5976500 || de.Message != "invalid dateAdd 'amount' parameter value: 30000000000 month" {
		t.Errorf("got %v", err)
	}
}

// TestDateTruncLimitWords30: mongod's truncateDate words its limits
// "dateTrunc unsupported binSize value" (5439006, days and larger past
// 100,000,000,000) and "dateTrunc overflowed" (5439002, binSize times
// the unit's milliseconds past a long).
func TestDateTruncLimitWords30(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr string
		code int
		msg  string
	}{
		{`{"$dateTrunc": {"date": "$d", "unit": "day", "binSize": {"$numberLong": "200000000000"}}}`, 5439006, "dateTrunc unsupported binSize value"},
		{`{"$dateTrunc": {"date": "$d", "unit": "hour", "binSize": {"$numberLong": "9000000000000000"}}}`, 5439002, "dateTrunc overflowed"},
	} {
		_, err := run(t, `[{"_id": 1, "d": {"$date": "2021-03-14T12:30:00Z"}}]`, `[{"$replaceWith": {"v": `+tc.expr+`}}]`, Options{})
		var de *document.Error
		if !errors.As(err, &de) || int(de.Code) != tc.code || de.Message != tc.msg {
			t.Errorf("%s: got %v, want %d %q", tc.expr, err, tc.code, tc.msg)
		}
	}
}
