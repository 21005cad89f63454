package agg

import "testing"

// TestWeekParts checks $week, $isoWeek, $isoWeekYear and $isoDayOfWeek:
// Sunday-started weeks from 0, ISO weeks that straddle the new year,
// the time zone moving the day, the {date, timezone} form, null for a
// null date; and the refusals shared with $year and its siblings.
func TestWeekParts(t *testing.T) {
	t.Parallel()
	// 2026-03-04 is a Wednesday; 2021-01-01 a Friday in ISO week 53 of
	// 2020; 2021-01-03 the first Sunday of 2021; 2018-12-31 a Monday in
	// ISO week 1 of 2019.
	doc := `[{"_id": 1, "at": {"$date": "2026-03-04T05:06:07.089Z"}, "ny": {"$date": "2021-01-01T02:00:00Z"},
		"sun": {"$date": "2021-01-03T12:00:00Z"}, "mon": {"$date": "2018-12-31T12:00:00Z"},
		"ts": {"$timestamp": {"t": 1609459200, "i": 3}}, "n": null, "s": "x"}]`
	checkExprs(t, doc, []exprCase{
		{`{"$week": "$at"}`, `9`},
		{`{"$isoWeek": "$at"}`, `10`},
		{`{"$isoWeekYear": "$at"}`, `{"$numberLong": "2026"}`},
		{`{"$isoDayOfWeek": "$at"}`, `3`},
		{`{"$week": "$ny"}`, `0`},
		{`{"$isoWeek": "$ny"}`, `53`},
		{`{"$isoWeekYear": "$ny"}`, `{"$numberLong": "2020"}`},
		{`{"$isoDayOfWeek": "$ny"}`, `5`},
		// Five hours west it is still Thursday, 2020-12-31.
		{`{"$week": {"date": "$ny", "timezone": "-05:00"}}`, `52`},
		{`{"$isoDayOfWeek": {"date": "$ny", "timezone": "America/New_York"}}`, `4`},
		{`{"$isoWeekYear": {"date": "$ny", "timezone": "Asia/Tokyo"}}`, `{"$numberLong": "2020"}`},
		{`{"$week": "$sun"}`, `1`},
		{`{"$isoDayOfWeek": "$sun"}`, `7`},
		{`{"$isoWeek": "$sun"}`, `53`},
		{`{"$week": "$mon"}`, `52`},
		{`{"$isoWeek": "$mon"}`, `1`},
		{`{"$isoWeekYear": ["$mon"]}`, `{"$numberLong": "2019"}`},
		{`{"$isoWeek": "$ts"}`, `53`},
		{`{"$week": "$n"}`, `null`},
		{`{"$isoWeek": {"date": "$nosuch"}}`, `null`},
		{`{"$isoDayOfWeek": {"date": "$at", "timezone": "$n"}}`, `null`},
	})
	checkExprCodes(t, doc, []exprCode{
		{`{"$week": "$s"}`, 16006},
		{`{"$isoWeek": ["$at", "$at"]}`, 16020},
		{`{"$isoWeekYear": {"date": "$at", "x": 1}}`, 40535},
		{`{"$isoDayOfWeek": {"timezone": "UTC"}}`, 40539},
		{`{"$week": {"date": "$at", "timezone": 5}}`, 40533},
		{`{"$isoWeek": {"date": "$at", "timezone": "Nowhere/None"}}`, 40485},
	})
}

// TestDateToParts checks $dateToParts: the calendar and ISO parts in
// mongod's field order, in a time zone, null for a null date, time zone
// or iso8601; and its refusals with mongod's codes.
func TestDateToParts(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "at": {"$date": "2026-03-04T05:06:07.089Z"}, "ny": {"$date": "2021-01-01T02:00:00Z"},
		"old": {"$date": "1969-12-31T23:59:59.001Z"}, "n": null, "s": "x"}]`
	checkExprs(t, doc, []exprCase{
		{`{"$dateToParts": {"date": "$at"}}`,
			`{"year": 2026, "month": 3, "day": 4, "hour": 5, "minute": 6, "second": 7, "millisecond": 89}`},
		{`{"$dateToParts": {"date": "$at", "timezone": "Asia/Tokyo"}}`,
			`{"year": 2026, "month": 3, "day": 4, "hour": 14, "minute": 6, "second": 7, "millisecond": 89}`},
		{`{"$dateToParts": {"date": "$at", "iso8601": true}}`,
			`{"isoWeekYear": 2026, "isoWeek": 10, "isoDayOfWeek": 3, "hour": 5, "minute": 6, "second": 7, "millisecond": 89}`},
		{`{"$dateToParts": {"date": "$ny", "timezone": "-05:00", "iso8601": true}}`,
			`{"isoWeekYear": 2020, "isoWeek": 53, "isoDayOfWeek": 4, "hour": 21, "minute": 0, "second": 0, "millisecond": 0}`},
		{`{"$dateToParts": {"date": "$ny", "iso8601": false}}`,
			`{"year": 2021, "month": 1, "day": 1, "hour": 2, "minute": 0, "second": 0, "millisecond": 0}`},
		{`{"$dateToParts": {"date": "$old"}}`,
			`{"year": 1969, "month": 12, "day": 31, "hour": 23, "minute": 59, "second": 59, "millisecond": 1}`},
		{`{"$dateToParts": {"date": "$n"}}`, `null`},
		{`{"$dateToParts": {"date": "$at", "timezone": "$nosuch"}}`, `null`},
		{`{"$dateToParts": {"date": "$at", "iso8601": null}}`, `null`},
		// A null date still has its time zone and iso8601 checked first.
		{`{"$dateToParts": {"date": "$n", "iso8601": null}}`, `null`},
	})
	checkExprCodes(t, doc, []exprCode{
		{`{"$dateToParts": "$at"}`, 40524},
		{`{"$dateToParts": {"date": "$at", "x": 1}}`, 40520},
		{`{"$dateToParts": {"timezone": "UTC"}}`, 40522},
		{`{"$dateToParts": {"date": "$at", "iso8601": 1}}`, 40521},
		{`{"$dateToParts": {"date": "$n", "iso8601": "yes"}}`, 40521},
		{`{"$dateToParts": {"date": "$at", "timezone": 5}}`, 40517},
		{`{"$dateToParts": {"date": "$n", "timezone": "Nowhere/None"}}`, 40485},
		{`{"$dateToParts": {"date": "$s"}}`, 16006},
	})
}

// TestDateFromParts checks $dateFromParts against mongod's cases: parts
// of any numeric type, time zones by name and offset, parts past their
// range carried into the next unit, the ISO form, null for a null part;
// and its refusals: shapes, types, ranges, and milliseconds past what
// mongod can count (159).
func TestDateFromParts(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "n": null, "s": "x", "f": false, "tz": "Europe/Amsterdam"}]`
	checkExprs(t, doc, []exprCase{
		{`{"$dateFromParts": {"year": 2017, "month": 6, "day": 23, "hour": 14, "minute": 27, "second": 37, "millisecond": 742, "timezone": "Europe/Berlin"}}`,
			`{"$date": "2017-06-23T12:27:37.742Z"}`},
		{`{"$dateFromParts": {"year": {"$numberLong": "2017"}, "month": 6.0, "day": {"$numberDecimal": "23"}, "hour": 10, "minute": 27, "second": 37, "millisecond": 742, "timezone": "-02"}}`,
			`{"$date": "2017-06-23T12:27:37.742Z"}`},
		{`{"$dateFromParts": {"year": 2017, "month": 6, "day": 23, "hour": 16, "minute": 42, "second": 37, "millisecond": 742, "timezone": "+04:15"}}`,
			`{"$date": "2017-06-23T12:27:37.742Z"}`},
		{`{"$dateFromParts": {"year": 2017, "timezone": "$tz"}}`, `{"$date": "2016-12-31T23:00:00Z"}`},
		{`{"$dateFromParts": {"year": 2017}}`, `{"$date": "2017-01-01T00:00:00Z"}`},
		{`{"$dateFromParts": {"year": 9999, "month": 12, "day": 31}}`, `{"$date": "9999-12-31T00:00:00Z"}`},
		// Carrying, as mongod's date_from_parts.js expects it.
		{`{"$dateFromParts": {"year": 2017, "month": -1}}`, `{"$date": "2016-11-01T00:00:00Z"}`},
		{`{"$dateFromParts": {"year": 2017, "month": 0}}`, `{"$date": "2016-12-01T00:00:00Z"}`},
		{`{"$dateFromParts": {"year": 2017, "month": 13}}`, `{"$date": "2018-01-01T00:00:00Z"}`},
		{`{"$dateFromParts": {"year": 2017, "month": 14}}`, `{"$date": "2018-02-01T00:00:00Z"}`},
		{`{"$dateFromParts": {"year": 2017, "day": -1}}`, `{"$date": "2016-12-30T00:00:00Z"}`},
		{`{"$dateFromParts": {"year": 2017, "day": 0}}`, `{"$date": "2016-12-31T00:00:00Z"}`},
		{`{"$dateFromParts": {"year": 2017, "day": 61}}`, `{"$date": "2017-03-02T00:00:00Z"}`},
		{`{"$dateFromParts": {"year": 2017, "hour": -1}}`, `{"$date": "2016-12-31T23:00:00Z"}`},
		{`{"$dateFromParts": {"year": 2017, "hour": 25}}`, `{"$date": "2017-01-02T01:00:00Z"}`},
		{`{"$dateFromParts": {"year": 2017, "minute": 61}}`, `{"$date": "2017-01-01T01:01:00Z"}`},
		{`{"$dateFromParts": {"year": 2017, "second": -1}}`, `{"$date": "2016-12-31T23:59:59Z"}`},
		{`{"$dateFromParts": {"year": 2017, "second": 71841012}}`, `{"$date": "2019-04-12T11:50:12Z"}`},
		{`{"$dateFromParts": {"year": 2017, "millisecond": -1}}`, `{"$date": "2016-12-31T23:59:59.999Z"}`},
		{`{"$dateFromParts": {"year": 2017, "millisecond": 1001}}`, `{"$date": "2017-01-01T00:00:01.001Z"}`},
		{`{"$dateFromParts": {"year": 1970, "millisecond": {"$numberLong": "1502095918551"}}}`, `{"$date": "2017-08-07T08:51:58.551Z"}`},
		{`{"$dateFromParts": {"year": 1, "month": -1}}`, `{"$date": {"$numberLong": "-62140867200000"}}`},
		// The carrying is on the zone's clock: three hours after midnight
		// on the night New York skips 02:00 is 03:00 EDT, two hours on.
		{`{"$dateFromParts": {"year": 2021, "month": 3, "day": 14, "second": 10800, "timezone": "America/New_York"}}`, `{"$date": "2021-03-14T07:00:00Z"}`},
		// The ISO form: week 1 holds January 4.
		{`{"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": 6, "isoDayOfWeek": 4}}`, `{"$date": "2017-02-09T00:00:00Z"}`},
		{`{"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": 25, "isoDayOfWeek": 1, "hour": 15, "minute": 1, "second": 51, "millisecond": 551, "timezone": "-0320"}}`,
			`{"$date": "2017-06-19T18:21:51.551Z"}`},
		{`{"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": 25, "isoDayOfWeek": 1, "hour": 15, "minute": 1, "second": 51, "millisecond": 551, "timezone": "$tz"}}`,
			`{"$date": "2017-06-19T13:01:51.551Z"}`},
		{`{"$dateFromParts": {"isoWeekYear": 2020}}`, `{"$date": "2019-12-30T00:00:00Z"}`},
		{`{"$dateFromParts": {"isoWeekYear": 2020, "isoWeek": 53, "isoDayOfWeek": 7}}`, `{"$date": "2021-01-03T00:00:00Z"}`},
		{`{"$dateFromParts": {"isoWeekYear": 2020, "isoWeek": 0, "isoDayOfWeek": 8}}`, `{"$date": "2019-12-30T00:00:00Z"}`},
		{`{"$dateFromParts": {"year": "$n"}}`, `null`},
		{`{"$dateFromParts": {"year": 2017, "month": "$nosuch"}}`, `null`},
		{`{"$dateFromParts": {"year": 2017, "millisecond": "$n"}}`, `null`},
		{`{"$dateFromParts": {"year": 2017, "timezone": "$n"}}`, `null`},
		{`{"$dateFromParts": {"isoWeekYear": 2017, "isoDayOfWeek": "$n"}}`, `null`},
		// A null clock part gives null before the year is looked at.
		{`{"$dateFromParts": {"year": "$s", "hour": "$n"}}`, `null`},
	})
	checkExprCodes(t, doc, []exprCode{
		{`{"$dateFromParts": true}`, 40519},
		{`{"$dateFromParts": []}`, 40519},
		{`{"$dateFromParts": {"unknown": true}}`, 40518},
		{`{"$dateFromParts": {}}`, 40516},
		{`{"$dateFromParts": {"timezone": "UTC"}}`, 40516},
		{`{"$dateFromParts": {"year": 2017, "isoWeekYear": 2017}}`, 40489},
		{`{"$dateFromParts": {"year": 2017, "isoWeek": 3}}`, 40489},
		{`{"$dateFromParts": {"year": 2017, "isoDayOfWeek": 5}}`, 40489},
		{`{"$dateFromParts": {"isoWeekYear": 2017, "month": 12}}`, 40525},
		{`{"$dateFromParts": {"isoWeekYear": 2017, "day": 17}}`, 40525},
		{`{"$dateFromParts": {"year": "2017"}}`, 40515},
		{`{"$dateFromParts": {"year": 2017.3}}`, 40515},
		{`{"$dateFromParts": {"year": {"$numberDecimal": "2017.3"}}}`, 40515},
		{`{"$dateFromParts": {"year": "$f"}}`, 40515},
		{`{"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": "$f"}}`, 40515},
		{`{"$dateFromParts": {"year": 1970, "millisecond": 18014398509481984000.0}}`, 40515},
		{`{"$dateFromParts": {"year": 2017, "second": {"$numberDouble": "NaN"}}}`, 40515},
		{`{"$dateFromParts": {"year": 2012, "timezone": 5}}`, 40517},
		{`{"$dateFromParts": {"year": 2012, "timezone": "DoesNot/Exist"}}`, 40485},
		{`{"$dateFromParts": {"year": 0}}`, 40523},
		{`{"$dateFromParts": {"year": 10000}}`, 40523},
		{`{"$dateFromParts": {"isoWeekYear": -1}}`, 31095},
		{`{"$dateFromParts": {"isoWeekYear": 10000}}`, 31095},
		{`{"$dateFromParts": {"year": 1970, "month": 32768}}`, 31034},
		{`{"$dateFromParts": {"year": 1970, "day": -32769}}`, 31034},
		{`{"$dateFromParts": {"year": 1970, "hour": 32768}}`, 31034},
		{`{"$dateFromParts": {"year": 1970, "minute": -32769}}`, 31034},
		{`{"$dateFromParts": {"isoWeekYear": 1970, "isoWeek": 32768}}`, 31034},
		{`{"$dateFromParts": {"isoWeekYear": 1970, "isoDayOfWeek": -32769}}`, 31034},
		// The clock is read before the year: its refusal comes first.
		{`{"$dateFromParts": {"year": 0, "minute": 40000}}`, 31034},
		{`{"$dateFromParts": {"year": 1970, "millisecond": 18014398509481984.0}}`, 159},
		{`{"$dateFromParts": {"year": 1970, "second": {"$numberLong": "100000000000000000"}}}`, 159},
		{`{"$dateFromParts": {"year": 1970, "second": {"$numberLong": "9223372036854775807"}, "millisecond": 1000}}`, 159},
		{`{"$dateFromParts": {"year": 1970, "second": {"$numberLong": "-9223372036854775808"}, "millisecond": -1}}`, 159},
	})
}

// TestTimestampParts checks $tsSecond and $tsIncrement: a timestamp's
// two halves as longs, null for null or missing, 5687301 and 5687302 for
// anything else, and their one argument.
func TestTimestampParts(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "ts": {"$timestamp": {"t": 4294967295, "i": 7}}, "at": {"$date": "2021-01-01T00:00:00Z"}, "n": null}]`
	checkExprs(t, doc, []exprCase{
		{`{"$tsSecond": "$ts"}`, `{"$numberLong": "4294967295"}`},
		{`{"$tsIncrement": "$ts"}`, `{"$numberLong": "7"}`},
		{`{"$tsSecond": ["$ts"]}`, `{"$numberLong": "4294967295"}`},
		{`{"$tsSecond": "$n"}`, `null`},
		{`{"$tsIncrement": "$nosuch"}`, `null`},
	})
	checkExprCodes(t, doc, []exprCode{
		{`{"$tsSecond": "$at"}`, 5687301},
		{`{"$tsIncrement": 1}`, 5687302},
		{`{"$tsSecond": ["$ts", "$ts"]}`, 16020},
		{`{"$tsIncrement": []}`, 16020},
	})
}
