package agg

import "testing"

// TestDateMath checks $dateAdd, $dateSubtract and $dateDiff against
// mongod's calendar rules: month ends clamped, days kept at the same
// wall time across a change of clock, units smaller than a day as
// elapsed time, boundaries counted by $dateDiff (in a time zone, with
// weeks from startOfWeek), null for a null argument; and the refusals
// with mongod's codes.
func TestDateMath(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "at": {"$date": "2021-01-31T10:00:00Z"}, "leap": {"$date": "2024-02-29T00:00:00Z"},
		"dst": {"$date": "2021-03-13T15:00:00Z"}, "n": null, "s": "x",
		"y1": {"$date": "2020-12-31T23:59:00Z"}, "y2": {"$date": "2021-01-01T00:01:00Z"}}]`
	checkExprs(t, doc, []exprCase{
		{`{"$dateAdd": {"startDate": "$at", "unit": "month", "amount": 1}}`, `{"$date": "2021-02-28T10:00:00Z"}`},
		{`{"$dateAdd": {"startDate": "$at", "unit": "quarter", "amount": 1}}`, `{"$date": "2021-04-30T10:00:00Z"}`},
		{`{"$dateAdd": {"startDate": "$leap", "unit": "year", "amount": 1}}`, `{"$date": "2025-02-28T00:00:00Z"}`},
		{`{"$dateAdd": {"startDate": "$leap", "unit": "year", "amount": 4}}`, `{"$date": "2028-02-29T00:00:00Z"}`},
		{`{"$dateAdd": {"startDate": "$at", "unit": "month", "amount": -2}}`, `{"$date": "2020-11-30T10:00:00Z"}`},
		{`{"$dateAdd": {"startDate": "$at", "unit": "hour", "amount": 3}}`, `{"$date": "2021-01-31T13:00:00Z"}`},
		{`{"$dateAdd": {"startDate": "$at", "unit": "millisecond", "amount": 1.0}}`, `{"$date": "2021-01-31T10:00:00.001Z"}`},
		{`{"$dateAdd": {"startDate": "$at", "unit": "week", "amount": {"$numberLong": "2"}}}`, `{"$date": "2021-02-14T10:00:00Z"}`},
		// New York moves its clocks forward on 2021-03-14: a day later
		// is the same wall time (10:00 EST, then 11:00 EDT), 23 hours on.
		{`{"$dateAdd": {"startDate": "$dst", "unit": "day", "amount": 1, "timezone": "America/New_York"}}`, `{"$date": "2021-03-14T14:00:00Z"}`},
		{`{"$dateAdd": {"startDate": "$dst", "unit": "day", "amount": 1}}`, `{"$date": "2021-03-14T15:00:00Z"}`},
		{`{"$dateAdd": {"startDate": "$dst", "unit": "hour", "amount": 24, "timezone": "America/New_York"}}`, `{"$date": "2021-03-14T15:00:00Z"}`},
		{`{"$dateSubtract": {"startDate": "$at", "unit": "day", "amount": 31}}`, `{"$date": "2020-12-31T10:00:00Z"}`},
		{`{"$dateAdd": {"startDate": "$n", "unit": "day", "amount": 1}}`, `null`},
		{`{"$dateAdd": {"startDate": "$at", "unit": "$n", "amount": 1}}`, `null`},
		{`{"$dateAdd": {"startDate": "$at", "unit": "day", "amount": "$nosuch"}}`, `null`},
		{`{"$dateDiff": {"startDate": "$y1", "endDate": "$y2", "unit": "year"}}`, `{"$numberLong": "1"}`},
		{`{"$dateDiff": {"startDate": "$y1", "endDate": "$y2", "unit": "day"}}`, `{"$numberLong": "1"}`},
		{`{"$dateDiff": {"startDate": "$y1", "endDate": "$y2", "unit": "minute"}}`, `{"$numberLong": "2"}`},
		{`{"$dateDiff": {"startDate": "$y1", "endDate": "$y2", "unit": "year", "timezone": "-05:00"}}`, `{"$numberLong": "0"}`},
		{`{"$dateDiff": {"startDate": "$y2", "endDate": "$y1", "unit": "month"}}`, `{"$numberLong": "-1"}`},
		{`{"$dateDiff": {"startDate": "$at", "endDate": "$leap", "unit": "quarter"}}`, `{"$numberLong": "12"}`},
		// 2021-01-31 is a Sunday; 2021-02-06 a Saturday.
		{`{"$dateDiff": {"startDate": "$at", "endDate": {"$date": "2021-02-06T00:00:00Z"}, "unit": "week"}}`, `{"$numberLong": "0"}`},
		{`{"$dateDiff": {"startDate": "$at", "endDate": {"$date": "2021-02-06T00:00:00Z"}, "unit": "week", "startOfWeek": "sat"}}`, `{"$numberLong": "1"}`},
		{`{"$dateDiff": {"startDate": "$at", "endDate": "$at", "unit": "millisecond"}}`, `{"$numberLong": "0"}`},
		// Across New York's spring change: 3 hours of wall clock, the
		// change taken back (mongod's utcOffsetCorrectionForHours): 2.
		{`{"$dateDiff": {"startDate": {"$date": "2021-03-14T06:30:00Z"}, "endDate": {"$date": "2021-03-14T08:30:00Z"}, "unit": "hour", "timezone": "America/New_York"}}`, `{"$numberLong": "2"}`},
		{`{"$dateDiff": {"startDate": {"$date": "2021-03-14T06:30:00Z"}, "endDate": {"$date": "2021-03-14T08:30:00Z"}, "unit": "millisecond", "timezone": "America/New_York"}}`, `{"$numberLong": "7200000"}`},
		{`{"$dateDiff": {"startDate": {"$date": "2021-01-01T00:00:00Z"}, "endDate": {"$date": "2021-01-01T00:40:00Z"}, "unit": "hour", "timezone": "+05:30"}}`, `{"$numberLong": "1"}`},
		{`{"$dateDiff": {"startDate": "$n", "endDate": "$at", "unit": "day"}}`, `null`},
	})
	checkExprCodes(t, doc, []exprCode{
		{`{"$dateAdd": 1}`, 5166400},
		{`{"$dateAdd": {"startDate": "$at", "unit": "day", "amount": 1, "x": 1}}`, 5166401},
		{`{"$dateAdd": {"startDate": "$at", "unit": "day"}}`, 5166402},
		{`{"$dateAdd": {"startDate": "$s", "unit": "day", "amount": 1}}`, 5166403},
		{`{"$dateAdd": {"startDate": "$at", "unit": "day", "amount": 1.5}}`, 5166405},
		{`{"$dateAdd": {"startDate": "$at", "unit": "year", "amount": {"$numberLong": "9000000000000000000"}}}`, 5976500},
		{`{"$dateAdd": {"startDate": "$at", "unit": "month", "amount": {"$numberLong": "60000000000"}}}`, 5976500},
		{`{"$dateAdd": {"startDate": "$at", "unit": "day", "amount": {"$numberLong": "1000000000000"}}}`, 5976500},
		{`{"$dateAdd": {"startDate": "$at", "unit": "week", "amount": {"$numberLong": "100000000000"}}}`, 5976500},
		// Within the amount's bound, past the last date: 5166406.
		{`{"$dateAdd": {"startDate": "$at", "unit": "year", "amount": 500000000}}`, 5166406},
		{`{"$dateAdd": {"startDate": "$at", "unit": "day", "amount": {"$numberLong": "200000000000"}}}`, 5166406},
		{`{"$dateAdd": {"startDate": "$at", "unit": 1, "amount": 1}}`, 5166404},
		{`{"$dateAdd": {"startDate": "$at", "unit": "fortnight", "amount": 1}}`, 9},
		{`{"$dateSubtract": {"startDate": "$at", "unit": "day", "amount": {"$numberLong": "-9223372036854775808"}}}`, 6045000},
		{`{"$dateAdd": {"startDate": "$at", "unit": "day", "amount": 1, "timezone": "Nowhere/None"}}`, 40485},
		{`{"$dateDiff": 1}`, 5166301},
		{`{"$dateDiff": {"startDate": "$at", "endDate": "$at", "unit": "day", "x": 1}}`, 5166302},
		{`{"$dateDiff": {"endDate": "$at", "unit": "day"}}`, 5166303},
		{`{"$dateDiff": {"startDate": "$at", "unit": "day"}}`, 5166304},
		{`{"$dateDiff": {"startDate": "$at", "endDate": "$at"}}`, 5166305},
		{`{"$dateDiff": {"startDate": "$s", "endDate": "$at", "unit": "day"}}`, 5166307},
		{`{"$dateDiff": {"startDate": "$at", "endDate": "$at", "unit": "week", "startOfWeek": "someday"}}`, 5439016},
	})
}
