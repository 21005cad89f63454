package agg

import (
	"testing"
)

// Review 26: places where ttlkv's date, string and conversion
// expressions answered differently from mongod 7.0/8.0, fixed since.
// Each test states what mongod does and where that was read; each
// asserts mongod's answer.

// TestDateTruncFarFromEpoch: day and week bins are counted by the
// calendar, so dates centuries from 2000 truncate as near ones do.
func TestDateTruncFarFromEpoch(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "old": {"$date": "1500-06-15T12:34:56Z"}, "new": {"$date": "2500-06-15T12:34:56Z"}}]`
	checkExprs(t, doc, []exprCase{
		{`{"$dateTrunc": {"date": "$old", "unit": "day"}}`, `{"$date": "1500-06-15T00:00:00Z"}`},
		{`{"$dateTrunc": {"date": "$new", "unit": "day"}}`, `{"$date": "2500-06-15T00:00:00Z"}`},
		{`{"$dateTrunc": {"date": "$old", "unit": "day", "binSize": 7}}`, `{"$date": "1500-06-09T00:00:00Z"}`},
	})
}

// evalReview26 evaluates one expression over doc and returns the value
// of the field it is put in (or the error).
func evalReview26(t *testing.T, doc, expr string) (any, error) {
	t.Helper()
	got, err := run(t, doc, `[{"$replaceWith": {"v": `+expr+`}}]`, Options{})
	if err != nil {
		return nil, err
	}
	if len(got) != 1 {
		t.Fatalf("%s: %d results", expr, len(got))
	}
	for _, e := range got[0] {
		if e.Key == "v" {
			return e.Value, nil
		}
	}
	return nil, nil
}

// TestReviewDates26DateDiffAcrossDST: mongod's $dateDiff for hour,
// minute and second counts the boundaries on the zone's clock and then
// corrects by the change of UTC offset between the two instants
// (dateDiffHour/Minute/Second add utcOffsetCorrectionFor*, in
// src/mongo/db/query/datetime/date_time_support.cpp). Its unit tests
// (date_time_support_test.cpp, TEST(DateDiff, Hour/Minute/Second)) pin:
// 1:00 EDT to 1:00 EST on New York's fall-back night is 1 hour (-1 the
// other way); 1:45 EST to 3:00 EDT on the spring night is 1 hour; in
// Australia/Lord_Howe (30-minute DST) 01:00 to 02:00 across the April
// change is 1 hour but 90 minutes (5400 s), and 01:00 to 02:30 across the
// October change is 60 minutes (3600 s). ttlkv counts the local clock
// only: 0, 2, 60, 90 ...
func TestReviewDates26DateDiffAcrossDST(t *testing.T) {
	t.Parallel()
	diff := func(start, end, unit, tz string) string {
		return `{"$dateDiff": {"startDate": {"$date": "` + start + `"}, "endDate": {"$date": "` + end +
			`"}, "unit": "` + unit + `", "timezone": "` + tz + `"}}`
	}
	const ny, lh = "America/New_York", "Australia/Lord_Howe"
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{diff("2020-11-01T05:00:00Z", "2020-11-01T06:00:00Z", "hour", ny), `{"$numberLong": "1"}`},
		{diff("2020-11-01T06:00:00Z", "2020-11-01T05:00:00Z", "hour", ny), `{"$numberLong": "-1"}`},
		{diff("2020-03-08T06:45:00Z", "2020-03-08T07:00:00Z", "hour", ny), `{"$numberLong": "1"}`},
		{diff("2020-03-08T07:00:00Z", "2020-03-08T06:45:00Z", "hour", ny), `{"$numberLong": "-1"}`},
		{diff("2020-11-01T05:30:00Z", "2020-11-01T06:30:00Z", "minute", ny), `{"$numberLong": "60"}`},
		{diff("2021-04-03T14:00:00Z", "2021-04-03T15:30:00Z", "hour", lh), `{"$numberLong": "1"}`},
		{diff("2021-04-03T14:00:00Z", "2021-04-03T15:30:00Z", "minute", lh), `{"$numberLong": "90"}`},
		{diff("2021-04-03T14:00:00Z", "2021-04-03T15:30:00Z", "second", lh), `{"$numberLong": "5400"}`},
		{diff("2021-10-02T14:30:00Z", "2021-10-02T15:30:00Z", "minute", lh), `{"$numberLong": "60"}`},
		{diff("2021-10-02T14:30:00Z", "2021-10-02T15:30:00Z", "second", lh), `{"$numberLong": "3600"}`},
	})
}

// TestReviewDates26TimezoneTypeCode: a timezone that is not a string is
// 40517 in $dateDiff, $dateTrunc, $dateAdd and $dateSubtract, all of
// which go through makeTimeZone (src/mongo/db/exec/expression/
// evaluate_date.cpp); jstests/aggregation/expressions/date_diff.js and
// date_trunc.js ("Invalid 'timezone' type") expect 40517. ttlkv answers
// 40533, the code of the old $year-family check.
func TestReviewDates26TimezoneTypeCode(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "d": {"$date": "2020-11-01T18:23:36Z"}, "tz": 1}]`
	checkExprCodes(t, doc, []exprCode{
		{`{"$dateDiff": {"startDate": "$d", "endDate": "$d", "unit": "hour", "timezone": "$tz"}}`, 40517},
		{`{"$dateTrunc": {"date": "$d", "unit": "hour", "binSize": 1, "timezone": "$tz"}}`, 40517},
		{`{"$dateAdd": {"startDate": "$d", "unit": "hour", "amount": 1, "timezone": "$tz"}}`, 40517},
		{`{"$dateSubtract": {"startDate": "$d", "unit": "hour", "amount": 1, "timezone": "$tz"}}`, 40517},
	})
}

// TestReviewDates26DateTruncDateType: a $dateTrunc date that is not a
// date, timestamp or ObjectId is 5439012 "$dateTrunc requires 'date' to
// be a date, but got string" (jstests/aggregation/expressions/
// date_trunc.js, "Invalid 'date' type"; the same message and code are
// quoted from a MongoDB 8.0.20 server log in a public course text).
// ttlkv answers 16006, $year's code.
func TestReviewDates26DateTruncDateType(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "s": "string", "n": 5}]`
	checkExprCodes(t, doc, []exprCode{
		{`{"$dateTrunc": {"date": "$s", "unit": "hour", "binSize": 1, "timezone": "UTC"}}`, 5439012},
		{`{"$dateTrunc": {"date": "$n", "unit": "day"}}`, 5439012},
	})
}

// TestReviewDates26DateTruncNullishFirst: mongod's $dateTrunc returns
// null for a null or missing unit, binSize, timezone or (for weeks)
// startOfWeek before it looks at the date's type
// (jstests/aggregation/expressions/date_trunc.js: "Missing 'unit' value
// in the document, invalid other fields" gives null with date
// "Invalid"; evaluate_date.cpp converts the date last). ttlkv checks the
// date first and fails with 16006.
func TestReviewDates26DateTruncNullishFirst(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "s": "Invalid"}]`
	checkExprs(t, doc, []exprCase{
		{`{"$dateTrunc": {"date": "$s", "unit": "$missing"}}`, `null`},
		{`{"$dateTrunc": {"date": "$s", "unit": "day", "timezone": "$missing"}}`, `null`},
		{`{"$dateTrunc": {"date": "$s", "unit": "week", "startOfWeek": "$missing"}}`, `null`},
	})
}

// TestReviewDates26DateTruncBinSize: mongod refuses a binSize that is
// not a whole 64-bit number with 5439017 and one that is not above 0
// with 5439018 (convertDateTruncBinSizeValue, evaluate_date.cpp;
// date_trunc.js "Invalid 'binSize' value" binSize 0 expects 5439018).
// It has no upper bound of its own for hour and smaller units (only
// 5439002 when binSize times the unit's milliseconds overflows), and for
// day and larger units the limit is 5439006 past 100,000,000,000
// (truncateDate, date_time_support.cpp). ttlkv answers 5439017 for all
// of these; with 200,000,000,000 hours every date since 2000 falls in the
// bin that starts at the reference point, 2000-01-01.
func TestReviewDates26DateTruncBinSize(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "d": {"$date": "2021-03-14T12:30:00Z"}}]`
	checkExprCodes(t, doc, []exprCode{
		{`{"$dateTrunc": {"date": "$d", "unit": "hour", "binSize": 0}}`, 5439018},
		{`{"$dateTrunc": {"date": "$d", "unit": "day", "binSize": -1}}`, 5439018},
		{`{"$dateTrunc": {"date": "$d", "unit": "day", "binSize": {"$numberLong": "200000000000"}}}`, 5439006},
	})
	checkExprs(t, doc, []exprCase{
		{`{"$dateTrunc": {"date": "$d", "unit": "hour", "binSize": {"$numberLong": "200000000000"}}}`,
			`{"$date": "2000-01-01T00:00:00Z"}`},
	})
}

// TestReviewDates26DateTruncAncientDate: truncating the earliest BSON
// date to its year or day needs an instant before it, which mongod's
// dateAdd cannot represent: "dateAdd overflowed", 5166406 (truncateDate
// ends in dateAdd, whose overflow::mul of the seconds fails;
// date_time_support.cpp). ttlkv returns wrapped garbage instead: a date
// in the year 292 million AD for year, 1707 for day.
func TestReviewDates26DateTruncAncientDate(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "d": {"$date": {"$numberLong": "-9223372036854775808"}}}]`
	checkExprCodes(t, doc, []exprCode{
		{`{"$dateTrunc": {"date": "$d", "unit": "year"}}`, 5166406},
		{`{"$dateTrunc": {"date": "$d", "unit": "day"}}`, 5166406},
	})
}

// TestReviewDates26DateAddAmountLimits: before computing, mongod checks
// that the amount roughly fits a date for its unit (isDateAddAmountValid:
// at most 584,942,417 years, 213,503,982,334 days, 18,446,744,073,709,
// 551 seconds ...) and refuses it with 5976500 "invalid dateAdd 'amount'
// parameter value"; 5166406 is only for a result that then overflows
// (date_time_support.cpp, dateAdd). ttlkv answers 5166406 for both.
func TestReviewDates26DateAddAmountLimits(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "d": {"$date": "2021-01-01T00:00:00Z"}}]`
	checkExprCodes(t, doc, []exprCode{
		{`{"$dateAdd": {"startDate": "$d", "unit": "year", "amount": 584942418}}`, 5976500},
		{`{"$dateSubtract": {"startDate": "$d", "unit": "year", "amount": 584942418}}`, 5976500},
		{`{"$dateAdd": {"startDate": "$d", "unit": "day", "amount": {"$numberLong": "213503982335"}}}`, 5976500},
		{`{"$dateAdd": {"startDate": "$d", "unit": "second", "amount": {"$numberLong": "9223372036854775807"}}}`, 5976500},
	})
}

// TestReviewDates26DateYearOutOfRange: mongod writes a date's parts with
// insertPadded, which refuses a number outside 0-9999 with 18537 "Could
// not convert date to string: date component was outside the supported
// range of 0-9999" (src/mongo/db/query/datetime/date_time_support.h);
// $dateToString and $toString of a date (the conversion table formats it
// with formatDate and uassertStatusOK) fail for the year 10000 and for
// years before 0. ttlkv prints "10000-01-01T00:00:00.000Z" and
// "-001-01-01T00:00:00.000Z".
func TestReviewDates26DateYearOutOfRange(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "big": {"$date": {"$numberLong": "253402300800000"}}, "neg": {"$date": {"$numberLong": "-62198755200000"}}}]`
	checkExprCodes(t, doc, []exprCode{
		{`{"$dateToString": {"date": "$big"}}`, 18537},
		{`{"$dateToString": {"date": "$neg", "format": "%Y"}}`, 18537},
		// (%G of that instant is 9999: 10000-01-01 is in 9999's last ISO week.)
		{`{"$toString": "$big"}`, 18537},
		{`{"$toString": "$neg"}`, 18537},
	})
}

// TestReviewDates26DateToStringChecksBeforeDate: mongod's $dateToString
// validates a non-null format (18533, 18535, 18536) and evaluates the
// timezone (40517, 40485) before it looks at the date, and returns null
// for a null timezone or format before it converts the date
// (evaluate_date.cpp, "Eagerly validate the format parameter" and
// "Evaluate the timezone parameter before checking for nullish input";
// jstests/aggregation/expressions/date_to_string_on_null.js: a string
// date with a nullish timezone gives null "regardless of the 'onNull'
// value"). ttlkv looks at the date first: null (or onNull) for the first
// three, 16006 for the last three.
func TestReviewDates26DateToStringChecksBeforeDate(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "s": "2018-02-06T11:56:02Z", "f": 5, "tz": "Bad/Zone"}]`
	checkExprCodes(t, doc, []exprCode{
		{`{"$dateToString": {"date": "$missing", "format": "$f"}}`, 18533},
		{`{"$dateToString": {"date": null, "format": "%n", "onNull": "N"}}`, 18536},
		{`{"$dateToString": {"date": "$missing", "timezone": "$tz", "onNull": "N"}}`, 40485},
	})
	checkExprs(t, doc, []exprCase{
		{`{"$dateToString": {"date": "$s", "format": "%Y-%m-%d", "timezone": null, "onNull": 1}}`, `null`},
		{`{"$dateToString": {"date": "$s", "format": "%Y", "timezone": "$missing"}}`, `null`},
		{`{"$dateToString": {"date": "$s", "format": null}}`, `null`},
	})
}

// TestReviewDates26NumberToLongOrDateOverflow: mongod converts a double
// to a long (for $toLong and for $toDate) only when it is at least
// -2^63 and below 2^63, else 241 "Conversion would overflow target type"
// (performCastDoubleToLong, expression.cpp); a decimal goes through
// Decimal128::toLong toward zero, exactly, failing on the invalid flag
// (performCastDecimalToLong). ttlkv truncates through a float64: 2^63
// and 1e20 wrap to the smallest long (a date in 292 million BC),
// 9007199254740993 loses its last digit, and 9223372036854775807.9
// wraps too.
func TestReviewDates26NumberToLongOrDateOverflow(t *testing.T) {
	t.Parallel()
	checkExprCodes(t, `[{"_id": 1}]`, []exprCode{
		{`{"$toLong": 9223372036854775807.0}`, 241},
		{`{"$toDate": 1e20}`, 241},
		{`{"$toDate": {"$numberDecimal": "1E+20"}}`, 241},
	})
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$convert": {"input": 1e20, "to": "date", "onError": "E"}}`, `"E"`},
		{`{"$toLong": {"$numberDecimal": "9007199254740993"}}`, `{"$numberLong": "9007199254740993"}`},
		{`{"$toLong": {"$numberDecimal": "9223372036854775807.9"}}`, `{"$numberLong": "9223372036854775807"}`},
		{`{"$toDate": {"$numberDecimal": "9007199254740993"}}`, `{"$date": {"$numberLong": "9007199254740993"}}`},
	})
}

// TestReviewDates26ToStringDouble: mongod's double-to-string conversion
// ($toString, $convert) gives "Infinity" and "-Infinity" for the
// infinities and "-0" for negative zero (performFormatDouble,
// expression.cpp), and otherwise streams the double through its
// StringBuilder, whose operator<< for a double is snprintf's "%g"
// (src/mongo/bson/util/builder.h): six significant digits, so 7.0 gives
// "1.23457e+06" for 1234567.5 (fmt's shortest form came later). ttlkv
// printed Go's "+Inf"/"-Inf", then Go's shortest form, "1.2345675e+06".
func TestReviewDates26ToStringDouble(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$toString": {"$numberDouble": "Infinity"}}`, `"Infinity"`},
		{`{"$toString": {"$numberDouble": "-Infinity"}}`, `"-Infinity"`},
		{`{"$convert": {"input": {"$numberDouble": "Infinity"}, "to": "string"}}`, `"Infinity"`},
		{`{"$toString": 1234567.5}`, `"1.23457e+06"`},
		{`{"$toString": 12345678.9}`, `"1.23457e+07"`},
		{`{"$toString": 0.1}`, `"0.1"`},
		{`{"$toString": 123.456789}`, `"123.457"`},
		{`{"$toString": 100000.0}`, `"100000"`},
		{`{"$toString": 0.00001}`, `"1e-05"`},
		{`{"$toString": {"$numberDouble": "-0.0"}}`, `"-0"`},
		{`{"$convert": {"input": 2.5, "to": "string"}}`, `"2.5"`},
	})
}

// TestReviewDates26StringToNumberIsStrict: mongod parses a string to a
// number with NumberParser without skipping whitespace or allowing
// trailing text (parseStringToNumber, expression.cpp; NumberParser,
// src/mongo/base/parse_number.cpp: "Leading whitespace", "Did not
// consume whole string."); a double is read by strtod, which stops at
// "_". So " 1.5", "1.5 ", "1_000", " 10", "1 " are 241. ttlkv trims the
// string and uses Go's ParseFloat, which reads "1_000" as 1000.
func TestReviewDates26StringToNumberIsStrict(t *testing.T) {
	t.Parallel()
	checkExprCodes(t, `[{"_id": 1}]`, []exprCode{
		{`{"$toDouble": " 1.5"}`, 241},
		{`{"$toDouble": "1.5 "}`, 241},
		{`{"$toDouble": "1_000"}`, 241},
		{`{"$toInt": " 10"}`, 241},
		{`{"$toLong": "1 "}`, 241},
	})
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$convert": {"input": "1_000", "to": "double", "onError": "E"}}`, `"E"`},
	})
}

// TestReviewDates26ToDecimalFromStringRounds: mongod's string-to-decimal
// parse ignores the inexact flag ("Ignore precision loss",
// parseNumberFromStringHelper<Decimal128>, parse_number.cpp), so a
// string of more than 34 digits is rounded to 34. ttlkv refuses it (241).
func TestReviewDates26ToDecimalFromStringRounds(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$toDecimal": "1.23456789012345678901234567890123456789"}`,
			`{"$numberDecimal": "1.234567890123456789012345678901235"}`},
	})
}

// TestReviewDates26DoubleZeroToDecimal: mongod converts a double to a
// decimal with 15 significant digits but skips the quantizing for zero,
// infinity and NaN ("If the original number was zero, infinity, or NaN,
// there's no need to quantize", Decimal128(double, RoundingMode),
// src/mongo/platform/decimal128.cpp; decimal128_test.cpp
// TestDoubleConstructorZero: +0E+0), so 0.0 is NumberDecimal("0") and
// -0.0 NumberDecimal("-0"), and adding 0.0 to a decimal keeps its
// exponent. ttlkv gives "0E-14", "-0E-14" and "1.00000000000000".
func TestReviewDates26DoubleZeroToDecimal(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$toDecimal": 0.0}`, `{"$numberDecimal": "0"}`},
		{`{"$toDecimal": -0.0}`, `{"$numberDecimal": "-0"}`},
		{`{"$add": [{"$numberDecimal": "1"}, 0.0]}`, `{"$numberDecimal": "1"}`},
	})
}

// TestReviewDates26DecimalDivide: when either side is a decimal mongod
// divides in decimal, Decimal128::divide, 34 digits (evaluateDivide,
// src/mongo/db/exec/expression/evaluate_math.cpp; ExpressionDivide in
// earlier versions). ttlkv divides two float64s and keeps 15 digits:
// 1/3 is 0.333333333333333, 10/4 is 2.50000000000000, and a 20-digit
// decimal divided by 1 loses its last five digits.
func TestReviewDates26DecimalDivide(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$divide": [{"$numberDecimal": "1"}, {"$numberDecimal": "3"}]}`, `{"$numberDecimal": "0.3333333333333333333333333333333333"}`},
		{`{"$divide": [{"$numberDecimal": "10"}, {"$numberDecimal": "4"}]}`, `{"$numberDecimal": "2.5"}`},
		{`{"$divide": [{"$numberDecimal": "12345678901234567890"}, 1]}`, `{"$numberDecimal": "12345678901234567890"}`},
	})
}

// TestReviewDates26DecimalMod: with a decimal on either side mongod's
// $mod works in decimal and returns a decimal, Decimal128::modulo
// (evaluateMod, evaluate_math.cpp: "If either side is decimal, perform
// the operation in decimal"). ttlkv returns a double.
func TestReviewDates26DecimalMod(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$mod": [{"$numberDecimal": "10"}, {"$numberDecimal": "3"}]}`, `{"$numberDecimal": "1"}`},
		{`{"$mod": [{"$numberDecimal": "-7.5"}, 2]}`, `{"$numberDecimal": "-1.5"}`},
	})
}

// TestReviewDates26DecimalFloorCeilAbs: mongod's $floor and $ceil of a
// decimal quantize it to exponent 0 toward negative or positive
// infinity, and $abs clears the sign (Decimal128::quantize with
// kNormalizedZero, Decimal128::toAbs; evaluate_math.cpp). ttlkv goes
// through a float64 and gives back 15 digits: "-2.00000000000000",
// "0E-14", and 1.23456789012346E+16 for a 17-digit number.
func TestReviewDates26DecimalFloorCeilAbs(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$floor": {"$numberDecimal": "-1.5"}}`, `{"$numberDecimal": "-2"}`},
		{`{"$ceil": {"$numberDecimal": "-1.5"}}`, `{"$numberDecimal": "-1"}`},
		{`{"$floor": {"$numberDecimal": "12345678901234567.5"}}`, `{"$numberDecimal": "12345678901234567"}`},
		{`{"$abs": {"$numberDecimal": "-0"}}`, `{"$numberDecimal": "0"}`},
		{`{"$abs": {"$numberDecimal": "-12345678901234567.89"}}`, `{"$numberDecimal": "12345678901234567.89"}`},
	})
}

// TestReviewDates26DecimalSqrtPrecision: mongod's $sqrt of a decimal is
// Decimal128 arithmetic, 34 significant digits (evaluate_math.cpp,
// argDec.sqrt()). docs/aggregation.md admits ttlkv computes it through a
// double and says "the last of its 34 digits can differ"; in fact only
// 15 digits come back, so 19 of them differ.
func TestReviewDates26DecimalSqrtPrecision(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$sqrt": {"$numberDecimal": "2"}}`, `{"$numberDecimal": "1.414213562373095048801688724209698"}`},
	})
}

// TestReviewDates26ToDateReadsLikeDateFromString: mongod converts a
// string to a date ($toDate, $convert to "date") with the same parser as
// $dateFromString without a format: TimeZoneDatabase::fromString(input,
// utcZone()) in the conversion table (expression.cpp, table[String][Date]).
// ttlkv's $toDate knew only a few RFC 3339 layouts, so strings that its
// own $dateFromString reads ("2017-07-04 10:00", an offset without a
// colon, a zone abbreviation, "July 4th, 2017") were 241.
func TestReviewDates26ToDateReadsLikeDateFromString(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$toDate": "2017-07-04 10:00"}`, `{"$date": "2017-07-04T10:00:00Z"}`},
		{`{"$toDate": "2017-07-04T10:00:00+0530"}`, `{"$date": "2017-07-04T04:30:00Z"}`},
		{`{"$toDate": "2017-07-04T10:00:00 EST"}`, `{"$date": "2017-07-04T15:00:00Z"}`},
		{`{"$convert": {"input": "July 4th, 2017", "to": "date"}}`, `{"$date": "2017-07-04T00:00:00Z"}`},
	})
}

// TestReviewDates26UtcOffsetSyntax: mongod's time zone is an exact name
// of its zone database or an offset in exactly one of the forms ±HH,
// ±HHMM, ±HH:MM (TimeZoneDatabase::parseUtcOffset, date_time_support.cpp:
// it checks the length, the digits and the colon's place, and no range).
// So "Z", "+05:" and "+0:530" are 40485, and "+24:00" is a zone a day
// ahead. ttlkv accepted "Z", stripped every colon (so "+05:" was +05:00) and
// refused offsets of 24 hours or 60 minutes and more.
func TestReviewDates26UtcOffsetSyntax(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "d": {"$date": "2017-07-04T10:00:00Z"}, "z": "Z", "a": "+05:", "b": "+0:530"}]`
	checkExprCodes(t, doc, []exprCode{
		{`{"$hour": {"date": "$d", "timezone": "$z"}}`, 40485},
		{`{"$hour": {"date": "$d", "timezone": "$a"}}`, 40485},
		{`{"$hour": {"date": "$d", "timezone": "$b"}}`, 40485},
	})
	checkExprs(t, doc, []exprCase{
		{`{"$dateToString": {"date": "$d", "format": "%d %H:%M", "timezone": "+24:00"}}`, `"05 10:00"`},
	})
}

// TestReviewDates26DateFromStringGMTIsNotUTC: $dateFromString refuses a
// string that carries its own zone together with a timezone argument
// unless that argument is the UTC zone (TimeZoneDatabase::fromString,
// "if (!tz.isUtcZone())"); only the identifier "UTC" (and a zero offset)
// is the UTC zone, "GMT" is an ordinary zone of the database
// (loadTimeZoneInfo). So "...Z" or "...+02:00" with timezone "GMT" is
// 241 ConversionFailure. ttlkv treated "GMT" as UTC and accepted both.
func TestReviewDates26DateFromStringGMTIsNotUTC(t *testing.T) {
	t.Parallel()
	checkExprCodes(t, `[{"_id": 1}]`, []exprCode{
		{`{"$dateFromString": {"dateString": "2017-07-04T10:00:00Z", "timezone": "GMT"}}`, 241},
		{`{"$dateFromString": {"dateString": "2017-07-04T10:00:00+02:00", "timezone": "GMT"}}`, 241},
	})
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$dateFromString": {"dateString": "2017-07-04T10:00:00Z", "timezone": "GMT", "onError": "E"}}`, `"E"`},
	})
}

// TestReviewDates26DSTGapLocalTime: a local time that does not exist
// (02:30 on New York's spring-forward day) is moved forward by mongod's
// timelib: do_adjust_timezone sees it "in transition" and applies the
// offset before the change, giving 03:30 EDT = 07:30Z
// (timelib tm2unixtime.c, used by TimeZone::createFromDateParts and by
// dateAdd's timelib_add for day units). ttlkv (Go's time.Date) went back
// to 01:30 EST = 06:30Z, for $dateFromParts and for adding a day to
// 02:30 the day before.
func TestReviewDates26DSTGapLocalTime(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1}]`, []exprCase{
		{`{"$dateFromParts": {"year": 2017, "month": 3, "day": 12, "hour": 2, "minute": 30, "timezone": "America/New_York"}}`,
			`{"$date": "2017-03-12T07:30:00Z"}`},
		{`{"$dateAdd": {"startDate": {"$date": "2021-03-13T07:30:00Z"}, "unit": "day", "amount": 1, "timezone": "America/New_York"}}`,
			`{"$date": "2021-03-14T07:30:00Z"}`},
	})
}

// TestReviewDates26RegexWhitespaceClasses: mongod's regular expressions
// are PCRE2 (UTF mode, no UCP), where \s is [\t\n\v\f\r ] (vertical tab
// included since PCRE 8.34, as in Perl 5.18) and \v is the class of
// vertical whitespace ([\n\v\f\r\x85\x{2028}\x{2029}]), not the vertical
// tab alone (PCRE2 pattern documentation, "Generic character types").
// ttlkv handed the pattern to Go's regexp, where \s leaves out the
// vertical tab and \v is only U+000B: $regexMatch missed both.
func TestReviewDates26RegexWhitespaceClasses(t *testing.T) {
	t.Parallel()
	checkExprs(t, `[{"_id": 1, "vt": "a\u000bb", "nl": "x\ny"}]`, []exprCase{
		{`{"$regexMatch": {"input": "$vt", "regex": "a\\sb"}}`, `true`},
		{`{"$regexMatch": {"input": "$vt", "regex": "a\\Sb"}}`, `false`},
		{`{"$regexMatch": {"input": "$nl", "regex": "x\\vy"}}`, `true`},
		{`{"$regexFind": {"input": "$nl", "regex": "\\v"}}`, `{"match": "\n", "idx": 1, "captures": []}`},
	})
}
