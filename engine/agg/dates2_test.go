package agg

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
)

// TestWeekParts checks $week, $isoWeek, $isoWeekYear and $isoDayOfWeek:
// Sunday-started weeks from 0, ISO weeks that straddle the new year,
// the time zone moving the day, the {date, timezone} form, null for a
// null date; $dateToString's %U, %b and %B; and the refusals shared
// with $year and its siblings.
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
		// $dateToString writes the same weeks, and month names.
		{`{"$dateToString": {"date": "$at", "format": "%U %V %G %b %B"}}`, `"09 10 2026 Mar March"`},
		{`{"$dateToString": {"date": "$ny", "format": "%U %u %b %B", "timezone": "-05:00"}}`, `"52 4 Dec December"`},
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

// TestDateFromString checks $dateFromString against mongod's
// date_from_string.js: the forms read without a format, zones in the
// string and from the timezone argument, formats with each specifier,
// onNull and onError; and the refusals, 241 ConversionFailure for a
// string that cannot be read.
func TestDateFromString(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "n": null, "five": 5, "tz": "Europe/London", "s": "2017-07-06T12:35:37.513Z"}]`
	checkExprs(t, doc, []exprCase{
		{`{"$dateFromString": {"dateString": "2017-07-04T11:56:02Z"}}`, `{"$date": "2017-07-04T11:56:02Z"}`},
		{`{"$dateFromString": {"dateString": "$s"}}`, `{"$date": "2017-07-06T12:35:37.513Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-04T11:56:02.81Z"}}`, `{"$date": "2017-07-04T11:56:02.810Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-04T11:56.02.8"}}`, `{"$date": "2017-07-04T11:56:02.800Z"}`},
		{`{"$dateFromString": {"dateString": "1960-07-10T12:10:37.448"}}`, `{"$date": "1960-07-10T12:10:37.448Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-06"}}`, `{"$date": "2017-07-06T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-06 11:36"}}`, `{"$date": "2017-07-06T11:36:00Z"}`},
		{`{"$dateFromString": {"dateString": "2017/07/06 11:36:54"}}`, `{"$date": "2017-07-06T11:36:54Z"}`},
		{`{"$dateFromString": {"dateString": "7/4/17"}}`, `{"$date": "2017-07-04T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "04-07-2017"}}`, `{"$date": "2017-07-04T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "July 4th, 2017"}}`, `{"$date": "2017-07-04T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "July 4th, 2017 12:39:30 BST"}}`, `{"$date": "2017-07-04T11:39:30Z"}`},
		{`{"$dateFromString": {"dateString": "2017-Jul-04 12:00"}}`, `{"$date": "2017-07-04T12:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-04 12:48:07 GMT+0545"}}`, `{"$date": "2017-07-04T07:03:07Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-04 12:48:07 GMT-0200"}}`, `{"$date": "2017-07-04T14:48:07Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-14T12:02:44.771 GMT+02:00"}}`, `{"$date": "2017-07-14T10:02:44.771Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-14T12:02:44.771+03"}}`, `{"$date": "2017-07-14T09:02:44.771Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-14T12:02:44.771+0330"}}`, `{"$date": "2017-07-14T08:32:44.771Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-14T12:02:44.771 CEST"}}`, `{"$date": "2017-07-14T10:02:44.771Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-14T12:02:44.771 PDT"}}`, `{"$date": "2017-07-14T19:02:44.771Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-14T12:02:44.771 L"}}`, `{"$date": "2017-07-14T01:02:44.771Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-14T12:02:44.771 P"}}`, `{"$date": "2017-07-14T15:02:44.771Z"}`},
		// The timezone argument places a string that names no zone; a
		// zero offset lets it name one.
		{`{"$dateFromString": {"dateString": "2017-07-04T11:56.02", "timezone": "$tz"}}`, `{"$date": "2017-07-04T10:56:02Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-19T18:52:35.199", "timezone": "-05:00"}}`, `{"$date": "2017-07-19T23:52:35.199Z"}`},
		{`{"$dateFromString": {"dateString": "1960-07-10T12:35:37.513", "timezone": "America/New_York"}}`, `{"$date": "1960-07-10T16:35:37.513Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-04T11:56:02+01:00", "timezone": "+00:00"}}`, `{"$date": "2017-07-04T10:56:02Z"}`},
		// Formats.
		{`{"$dateFromString": {"dateString": "2017-07-04T11:56:02.813Z", "format": "%Y-%m-%dT%H:%M:%S.%LZ"}}`, `{"$date": "2017-07-04T11:56:02.813Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-04T11:56.02.81", "format": "%Y-%m-%dT%H:%M.%S.%L", "timezone": "+01:00"}}`, `{"$date": "2017-07-04T10:56:02.810Z"}`},
		{`{"$dateFromString": {"dateString": "05 12 1988", "format": "%d %m %Y"}}`, `{"$date": "1988-12-05T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "1992 % 04 % 26", "format": "%Y %% %m %% %d"}}`, `{"$date": "1992-04-26T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "Day: 05 Month: 12 Year: 1988", "format": "Day: %d Month: %m Year: %Y"}}`, `{"$date": "1988-12-05T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "4/26/1992:+0445", "format": "%m/%d/%Y:%z"}}`, `{"$date": "1992-04-25T19:15:00Z"}`},
		{`{"$dateFromString": {"dateString": "4/26/1992:+285", "format": "%m/%d/%Y:%Z"}}`, `{"$date": "1992-04-25T19:15:00Z"}`},
		{`{"$dateFromString": {"dateString": "2017-07-14T12:02:44.771 GMT+02", "format": "%Y-%m-%dT%H:%M:%S.%L%z"}}`, `{"$date": "2017-07-14T10:02:44.771Z"}`},
		{`{"$dateFromString": {"dateString": "12 March 2021", "format": "%d %B %Y"}}`, `{"$date": "2021-03-12T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "12-mar-2021", "format": "%d-%b-%Y"}}`, `{"$date": "2021-03-12T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "2021-059", "format": "%Y-%j"}}`, `{"$date": "2021-03-01T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "2017", "format": "%G"}}`, `{"$date": "2017-01-02T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "2017, Week 53", "format": "%G, Week %V"}}`, `{"$date": "2018-01-01T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "2017, Day 5", "format": "%G, Day %u"}}`, `{"$date": "2017-01-06T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "53.7.2017", "format": "%V.%u.%G"}}`, `{"$date": "2018-01-07T00:00:00Z"}`},
		{`{"$dateFromString": {"dateString": "1.1.1", "format": "%V.%u.%G"}}`, `{"$date": "0001-01-01T00:00:00Z"}`},
		// Nulls, onNull and onError.
		{`{"$dateFromString": {"dateString": "$n"}}`, `null`},
		{`{"$dateFromString": {"dateString": "$nosuch", "onNull": "none"}}`, `"none"`},
		{`{"$dateFromString": {"dateString": "2017-07-11T17:05:19Z", "timezone": "$n"}}`, `null`},
		{`{"$dateFromString": {"dateString": "2017-07-11T17:05:19Z", "format": "$n"}}`, `null`},
		{`{"$dateFromString": {"dateString": "July 4th", "onError": "bad"}}`, `"bad"`},
		{`{"$dateFromString": {"dateString": "$five", "onError": "bad", "onNull": 1}}`, `"bad"`},
	})
	checkExprCodes(t, doc, []exprCode{
		{`{"$dateFromString": "no-object"}`, 40540},
		{`{"$dateFromString": {"unknown": "$tz"}}`, 40541},
		{`{"$dateFromString": {"format": "%Y"}}`, 40542},
		{`{"$dateFromString": {"dateString": "4/26/1992", "format": 5}}`, 40684},
		{`{"$dateFromString": {"dateString": "1992", "format": "%n"}}`, 18536},
		{`{"$dateFromString": {"dateString": "1992", "format": "%U"}}`, 18536},
		{`{"$dateFromString": {"dateString": "$n", "format": "%Y%"}}`, 18535},
		{`{"$dateFromString": {"dateString": "2017-07-11", "timezone": 5}}`, 40517},
		{`{"$dateFromString": {"dateString": "$n", "timezone": "Nowhere/None", "onNull": 1}}`, 40485},
		{`{"$dateFromString": {"dateString": "2017-07-11", "format": 5, "onError": 1}}`, 40684},
		{`{"$dateFromString": {"dateString": 5}}`, 241},
		{`{"$dateFromString": {"dateString": "July 4th"}}`, 241},
		{`{"$dateFromString": {"dateString": "12:50:53"}}`, 241},
		{`{"$dateFromString": {"dateString": "2017, 12:50:53"}}`, 241},
		{`{"$dateFromString": {"dateString": "60.Monday1770/06:59"}}`, 241},
		{`{"$dateFromString": {"dateString": "2017-02-30"}}`, 241},
		{`{"$dateFromString": {"dateString": "2017-02-03 25:00"}}`, 241},
		{`{"$dateFromString": {"dateString": "2017-07-12T22:23:55 GMT+02:00", "timezone": "Europe/Amsterdam"}}`, 241},
		{`{"$dateFromString": {"dateString": "2017-07-12T22:23:55Z", "timezone": "Europe/Amsterdam"}}`, 241},
		{`{"$dateFromString": {"dateString": "2017-07-12T22:23:55 America/New_York"}}`, 241},
		{`{"$dateFromString": {"dateString": "2018-01", "format": "%Y-%m-%d"}}`, 241},
		{`{"$dateFromString": {"dateString": "2018-01", "format": "%Y"}}`, 241},
		{`{"$dateFromString": {"dateString": "1992-26-04", "format": "Y-d-m"}}`, 241},
		{`{"$dateFromString": {"dateString": "4/26/1992:+0445", "format": "%m/%d/%Y:%z", "timezone": "+0500"}}`, 241},
		{`{"$dateFromString": {"dateString": "ISO Day 6", "format": "ISO Day %u"}}`, 241},
		{`{"$dateFromString": {"dateString": "ISO Week 1, 2018", "format": "ISO Week %V, %Y"}}`, 241},
		{`{"$dateFromString": {"dateString": "12/31/2018", "format": "%m/%d/%G"}}`, 241},
		{`{"$dateFromString": {"dateString": "12/31\u0000/2018", "format": "%m/%d/%Y"}}`, 241},
		{`{"$dateFromString": {"dateString": "12/31/2018", "format": "%m/%d\u0000/%Y"}}`, 241},
		{`{"$dateFromString": {"dateString": "059", "format": "%j"}}`, 241},
		{`{"$dateFromString": {"dateString": "x", "format": "%Y"}}`, 241},
	})
}

// TestDateFromStringMessages checks mongod's words for the failures its
// tests look for.
func TestDateFromStringMessages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ expr, want string }{
		{`{"$dateFromString": {"dateString": "July 4th"}}`, "an incomplete date/time string has been found, with elements missing: \"July 4th\""},
		{`{"$dateFromString": {"dateString": "2017, 12:50:53"}}`, "Error parsing date string '2017, 12:50:53'"},
		{`{"$dateFromString": {"dateString": "2018-01", "format": "%Y-%m-%d"}}`, "Data missing"},
		{`{"$dateFromString": {"dateString": "2018-01", "format": "%Y"}}`, "Trailing data"},
		{`{"$dateFromString": {"dateString": "1992-26-04", "format": "Y-d-m"}}`, "Format literal not found"},
		{`{"$dateFromString": {"dateString": "ISO Week 52", "format": "ISO Week %V"}}`, "The parsed date was invalid"},
		{`{"$dateFromString": {"dateString": "12/31/2018", "format": "%m/%d/%G"}}`, "Mixing of ISO dates with natural dates is not allowed"},
		{`{"$dateFromString": {"dateString": "2017-07-12T22:23:55 Europe/Amsterdam"}}`, "passing a time zone identifier as part of the string is not allowed"},
		{`{"$dateFromString": {"dateString": "4/26/1992:+0445", "format": "%m/%d/%Y:%z", "timezone": "+0500"}}`, "you cannot pass in a date/time string with GMT offset together with a timezone argument"},
		{`{"$dateFromString": {"dateString": "2017-07-12T22:23:55Z", "timezone": "Europe/Amsterdam"}}`, "you cannot pass in a date/time string with time zone information ('Z') together with a timezone argument"},
		{`{"$dateFromString": {"dateString": 5}}`, "$dateFromString requires that 'dateString' be a string, found: int with value 5"},
	} {
		_, err := run(t, `[{"_id": 1}]`, `[{"$replaceWith": {"v": `+tc.expr+`}}]`, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.expr, err, tc.want)
		}
	}
}

// FuzzDateString reads any string with and without any format: no input
// may panic, and every failure must be a typed *document.Error.
func FuzzDateString(f *testing.F) {
	f.Add("2017-07-14T12:02:44.771 GMT+02:00", "")
	f.Add("July 4th, 2017 12:39:30 BST", "%Y")
	f.Add("53.7.2017", "%V.%u.%G")
	f.Add("4/26/1992:+285", "%m/%d/%Y:%Z%")
	f.Add("2021-059 Mar", "%Y-%j %b%%%z")
	f.Fuzz(func(t *testing.T, s, format string) {
		for _, hasFormat := range []bool{false, true} {
			_, err := dateFromString(s, format, hasFormat, time.UTC)
			var de *document.Error
			if err != nil && !errors.As(err, &de) {
				t.Fatalf("%q %q: untyped error %v", s, format, err)
			}
		}
	})
}
