package agg

import (
	"strconv"
	"strings"
	"testing"
)

// exprDoc30 is the document the session-30 expression tables run over.
const exprDoc30 = `[{"_id": 1, "d": {"$date": "2019-01-30T07:30:10.137Z"}, "dec": {"$numberDecimal": "819.5359123621083"},
	"dbl": 819.536, "lng": {"$numberLong": "820"}, "n": null}]`

// TestArithmeticDifferential30 checks $add, $subtract, $divide and $mod
// against mongod 7.0 (jstests/aggregation/expressions/add_with_date.js,
// arith_overflow.js, divide.js, expression_mod.js): a date in $add
// takes each number rounded to whole milliseconds in turn and fails
// with 15 Overflow when pushed out of range; a date less a number cuts
// the number toward zero (31109 for NaN); $mod by a whole double keeps
// an integer dividend's type.
func TestArithmeticDifferential30(t *testing.T) {
	t.Parallel()
	checkExprs(t, exprDoc30, []exprCase{
		{`{"$add": []}`, `{"$numberInt": "0"}`},
		{`{"$add": ["$d"]}`, `{"$date": "2019-01-30T07:30:10.137Z"}`},
		{`{"$add": [2147483647, 1]}`, `{"$numberLong": "2147483648"}`},
		{`{"$add": [{"$numberLong": "9000000000000000000"}, {"$numberLong": "9000000000000000000"}]}`, `1.8e19`},
		{`{"$add": [1, {"$numberDecimal": "2.5"}]}`, `{"$numberDecimal": "3.5"}`},
		{`{"$add": [-0.0, 0]}`, `0.0`},
		{`{"$add": ["$d", "$dec"]}`, `{"$date": "2019-01-30T07:30:10.957Z"}`},
		{`{"$add": ["$dec", "$d"]}`, `{"$date": "2019-01-30T07:30:10.957Z"}`},
		{`{"$add": ["$d", "$dbl"]}`, `{"$date": "2019-01-30T07:30:10.957Z"}`},
		{`{"$add": ["$lng", "$d"]}`, `{"$date": "2019-01-30T07:30:10.957Z"}`},
		// The fold rounds each number met after the date, and the sum of
		// those before it once.
		{`{"$add": ["$d", "$dec", "$dbl", "$lng"]}`, `{"$date": "2019-01-30T07:30:12.597Z"}`},
		{`{"$add": ["$dec", "$d", "$dbl", "$lng"]}`, `{"$date": "2019-01-30T07:30:12.597Z"}`},
		{`{"$add": ["$dec", "$dbl", "$lng", "$d"]}`, `{"$date": "2019-01-30T07:30:12.596Z"}`},
		// Long arithmetic keeps its precision beside a date.
		{`{"$add": ["$d", {"$numberLong": "2397083434877565865"}, "$dbl", {"$numberLong": "-2397083434877565864"}]}`, `{"$date": "2019-01-30T07:30:10.958Z"}`},
		{`{"$add": ["$d", 1.5]}`, `{"$date": "2019-01-30T07:30:10.139Z"}`},
		{`{"$add": ["$d", -1.5]}`, `{"$date": "2019-01-30T07:30:10.135Z"}`},
		{`{"$add": ["$d", "$n"]}`, `null`},
		{`{"$add": [null, "a"]}`, `null`},

		{`{"$subtract": ["$d", "$d"]}`, `{"$numberLong": "0"}`},
		{`{"$subtract": ["$d", 1.5]}`, `{"$date": "2019-01-30T07:30:10.136Z"}`},
		{`{"$subtract": ["$d", -1.6]}`, `{"$date": "2019-01-30T07:30:10.138Z"}`},
		{`{"$subtract": ["$d", {"$numberDecimal": "1.9"}]}`, `{"$date": "2019-01-30T07:30:10.136Z"}`},
		{`{"$subtract": [2000000000, -2000000000]}`, `{"$numberLong": "4000000000"}`},
		{`{"$subtract": [{"$numberLong": "9000000000000000000"}, {"$numberLong": "-9000000000000000000"}]}`, `1.8e19`},
		{`{"$subtract": [-0.0, 0]}`, `-0.0`},
		{`{"$subtract": [1, {"$numberDecimal": "0.1"}]}`, `{"$numberDecimal": "0.9"}`},
		{`{"$subtract": ["a", null]}`, `null`},
		{`{"$multiply": [2000000000, -2000000000]}`, `{"$numberLong": "-4000000000000000000"}`},
		{`{"$multiply": [{"$numberLong": "9000000000000000000"}, {"$numberLong": "-9000000000000000000"}]}`, `-8.1e37`},

		{`{"$divide": [10, 2.5]}`, `4.0`},
		{`{"$divide": [12.5, {"$numberDecimal": "2.5"}]}`, `{"$numberDecimal": "5.000000000000"}`},
		{`{"$divide": [{"$numberLong": "10"}, {"$numberDecimal": "2.5"}]}`, `{"$numberDecimal": "4"}`},
		{`{"$divide": [null, 0]}`, `null`},

		{`{"$mod": [138.5, 3.0]}`, `0.5`},
		{`{"$mod": [138.5, {"$numberLong": "3"}]}`, `0.5`},
		{`{"$mod": [8, 3.25]}`, `1.5`},
		{`{"$mod": [8, 3.0]}`, `{"$numberInt": "2"}`},
		{`{"$mod": [8, {"$numberLong": "3"}]}`, `{"$numberLong": "2"}`},
		{`{"$mod": [{"$numberLong": "8"}, 3.0]}`, `{"$numberLong": "2"}`},
		{`{"$mod": [{"$numberLong": "500000000000"}, 450000000000.0]}`, `50000000000.0`},
		{`{"$mod": [{"$numberLong": "800000000000"}, {"$numberLong": "300000000000"}]}`, `{"$numberLong": "200000000000"}`},
		{`{"$mod": [10, {"$numberDouble": "Infinity"}]}`, `10.0`},
		{`{"$mod": [10, {"$numberDouble": "-Infinity"}]}`, `10.0`},
		{`{"$mod": [-2147483648, -1]}`, `{"$numberInt": "0"}`},
	})
	checkExprCodes(t, exprDoc30, []exprCode{
		{`{"$add": ["$d", {"$numberDouble": "NaN"}]}`, 15},
		{`{"$add": [{"$numberDouble": "NaN"}, "$d"]}`, 15},
		{`{"$add": ["$d", {"$numberDouble": "Infinity"}]}`, 15},
		{`{"$add": ["$d", {"$numberLong": "9223372036854775807"}]}`, 15},
		{`{"$add": ["$d", "$lng", 1e300]}`, 15},
		{`{"$add": ["$lng", "$d", 1e300]}`, 15},
		{`{"$add": ["$d", {"$numberDecimal": "1e5000"}]}`, 15},
		{`{"$add": ["$lng", "$d", {"$numberDecimal": "NaN"}]}`, 15},
		{`{"$add": ["$d", "$dbl", {"$numberDouble": "NaN"}]}`, 15},
		{`{"$add": ["$d", 1, "$d"]}`, 16612},
		{`{"$add": ["a", null]}`, 16554},
		{`{"$subtract": ["$d", {"$numberDouble": "NaN"}]}`, 31109},
		{`{"$subtract": ["$d", 1e300]}`, 31109},
		{`{"$subtract": ["$d", {"$numberDecimal": "NaN"}]}`, 31109},
		{`{"$subtract": [5, "$d"]}`, 16556},
		{`{"$divide": [1, 0]}`, 2},
		{`{"$divide": [1, -0.0]}`, 2},
		{`{"$divide": [1, {"$numberDecimal": "0"}]}`, 2},
		{`{"$divide": [1, "x"]}`, 16609},
		{`{"$mod": [10, 0.0]}`, 16610},
		{`{"$mod": [{"$numberLong": "10"}, {"$numberLong": "0"}]}`, 16610},
	})
	for _, c := range []struct{ expr, msg string }{
		{`{"$divide": ["x", 1]}`, "$divide only supports numeric types, not string and int"},
		{`{"$add": ["$d", 1e300]}`, "date overflow in $add"},
		{`{"$subtract": ["$d", {"$numberDouble": "NaN"}]}`, "Can't coerce out of range value nan to long"},
	} {
		_, err := run(t, exprDoc30, `[{"$replaceWith": {"v": `+c.expr+`}}]`, Options{})
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", c.expr, err, c.msg)
		}
	}
}

// TestConvertParseReasons30 checks $convert's reading of strings as
// numbers against mongod 7.0's NumberParser: the value where it reads
// one, and otherwise 241 ConversionFailure with the parser's reason
// after the context, "0x" refused first for every target type.
func TestConvertParseReasons30(t *testing.T) {
	t.Parallel()
	checkExprs(t, exprDoc30, []exprCase{
		{`{"$toInt": "-2147483648"}`, `{"$numberInt": "-2147483648"}`},
		{`{"$toInt": "+5"}`, `{"$numberInt": "5"}`},
		{`{"$toLong": "-9223372036854775808"}`, `{"$numberLong": "-9223372036854775808"}`},
		{`{"$toDouble": "0X10"}`, `16.0`},
		{`{"$toDouble": "-0X1p3"}`, `-8.0`},
		{`{"$toDouble": ".5"}`, `0.5`},
		{`{"$toDouble": "5."}`, `5.0`},
		{`{"$toDouble": "INF"}`, `{"$numberDouble": "Infinity"}`},
		{`{"$toDouble": "-nan"}`, `{"$numberDouble": "NaN"}`},
		{`{"$toDouble": "0e-400"}`, `0.0`},
		{`{"$toDecimal": "1e-6176"}`, `{"$numberDecimal": "1E-6176"}`},
		{`{"$toDecimal": "1.234567890123456789012345678901234567"}`, `{"$numberDecimal": "1.234567890123456789012345678901235"}`},
		{`{"$convert": {"input": "1e400", "to": "double", "onError": "E"}}`, `"E"`},
	})
	const ctx = "' in $convert with no onError value: "
	for _, c := range []struct{ expr, msg string }{
		{`{"$toInt": "abc"}`, "Failed to parse number 'abc" + ctx + "Did not consume whole string."},
		{`{"$toInt": ""}`, "Failed to parse number '" + ctx + "No digits"},
		{`{"$toInt": "-"}`, "Failed to parse number '-" + ctx + "No digits"},
		{`{"$toInt": " 5"}`, "Failed to parse number ' 5" + ctx + "Did not consume whole string."},
		{`{"$toInt": "5.0"}`, "Failed to parse number '5.0" + ctx + "Did not consume whole string."},
		{`{"$toInt": "2147483648"}`, "Failed to parse number '2147483648" + ctx + "Overflow"},
		{`{"$toInt": "-2147483649"}`, "Failed to parse number '-2147483649" + ctx + "Overflow"},
		{`{"$toInt": "0X10"}`, "Failed to parse number '0X10" + ctx + "Did not consume whole string."},
		{`{"$toLong": "9223372036854775808"}`, "Failed to parse number '9223372036854775808" + ctx + "Overflow"},
		{`{"$toLong": "99999999999999999999999x"}`, "Failed to parse number '99999999999999999999999x" + ctx + "Overflow"},
		{`{"$toInt": "0x10"}`, "Illegal hexadecimal input in $convert with no onError value: 0x10"},
		{`{"$toDouble": "0x10"}`, "Illegal hexadecimal input in $convert with no onError value: 0x10"},
		{`{"$toDecimal": "0x10"}`, "Illegal hexadecimal input in $convert with no onError value: 0x10"},
		{`{"$toDouble": "abc"}`, "Failed to parse number 'abc" + ctx + "Did not consume any digits"},
		{`{"$toDouble": "."}`, "Failed to parse number '." + ctx + "Did not consume any digits"},
		{`{"$toDouble": ""}`, "Failed to parse number '" + ctx + "Empty string"},
		{`{"$toDouble": " 1"}`, "Failed to parse number ' 1" + ctx + "Leading whitespace"},
		{`{"$toDouble": "1.5x"}`, "Failed to parse number '1.5x" + ctx + "Did not consume whole string."},
		{`{"$toDouble": "1e"}`, "Failed to parse number '1e" + ctx + "Did not consume whole string."},
		{`{"$toDouble": "1e400"}`, "Failed to parse number '1e400" + ctx + "Out of range"},
		{`{"$toDouble": "-1e400"}`, "Failed to parse number '-1e400" + ctx + "Out of range"},
		{`{"$toDouble": "1e-400"}`, "Failed to parse number '1e-400" + ctx + "Out of range"},
		{`{"$toDecimal": "abc"}`, "Failed to parse number 'abc" + ctx + "Failed to parse string to decimal"},
		{`{"$toDecimal": " 1"}`, "Failed to parse number ' 1" + ctx + "Failed to parse string to decimal"},
		{`{"$toDecimal": ""}`, "Failed to parse number '" + ctx + "Empty string"},
		{`{"$toDecimal": "1e6145"}`, "Failed to parse number '1e6145" + ctx + "Conversion from string to decimal would overflow"},
		{`{"$toDecimal": "1e-6177"}`, "Failed to parse number '1e-6177" + ctx + "Conversion from string to decimal would underflow"},
	} {
		_, err := run(t, exprDoc30, `[{"$replaceWith": {"v": `+c.expr+`}}]`, Options{})
		if codeOf(err) != 241 || !strings.HasSuffix(err.Error(), c.msg) {
			t.Errorf("%s: %v, want 241 %q", c.expr, err, c.msg)
		}
	}
}

// TestDecimalMathDifferential30 checks $log, $log10, $ln and $pow of
// decimals against the values jstests/aggregation/expressions/
// log_pow_exp.js asserts for mongod 7.0: $log in decimal as the ratio
// of natural logarithms, an exact power of ten's $log10 exact, $pow to
// 34 digits written out, and a NaN beside a decimal logarithm falling
// through to a double.
func TestDecimalMathDifferential30(t *testing.T) {
	t.Parallel()
	checkExprs(t, exprDoc30, []exprCase{
		{`{"$log": [{"$numberDecimal": "1"}, 8]}`, `{"$numberDecimal": "0E+33"}`},
		{`{"$log": [{"$numberDecimal": "2.5"}, {"$numberLong": "8"}]}`, `{"$numberDecimal": "0.4406426982957874492901064764964633"}`},
		{`{"$log": [64, {"$numberDecimal": "8"}]}`, `{"$numberDecimal": "2.000000000000000000000000000000000"}`},
		{`{"$log": [{"$numberDecimal": "8"}, 8]}`, `{"$numberDecimal": "1"}`},
		{`{"$log": [{"$numberDecimal": "163.0729"}, 12.77]}`, `{"$numberDecimal": "2.000000000000000000000000000000000"}`},
		{`{"$log": [{"$numberDouble": "NaN"}, {"$numberDecimal": "10"}]}`, `{"$numberDouble": "NaN"}`},
		{`{"$log": [{"$numberDecimal": "10"}, {"$numberDouble": "NaN"}]}`, `{"$numberDouble": "NaN"}`},
		{`{"$log": [{"$numberDecimal": "10"}, null]}`, `null`},
		{`{"$log10": {"$numberDecimal": "1"}}`, `{"$numberDecimal": "0"}`},
		{`{"$log10": {"$numberDecimal": "10"}}`, `{"$numberDecimal": "1"}`},
		{`{"$log10": {"$numberDecimal": "100"}}`, `{"$numberDecimal": "2"}`},
		{`{"$log10": {"$numberDecimal": "11"}}`, `{"$numberDecimal": "1.041392685158225040750199971243024"}`},
		{`{"$log10": {"$numberDecimal": "101"}}`, `{"$numberDecimal": "2.004321373782642574275188178222938"}`},
		{`{"$ln": {"$numberDecimal": "1"}}`, `{"$numberDecimal": "0"}`},
		{`{"$ln": {"$numberDecimal": "7"}}`, `{"$numberDecimal": "1.945910149055313305105352743443180"}`},
		{`{"$ln": {"$numberDecimal": "10"}}`, `{"$numberDecimal": "2.302585092994045684017991454684364"}`},
		{`{"$exp": {"$numberDecimal": "-1"}}`, `{"$numberDecimal": "0.3678794411714423215955237701614609"}`},
		{`{"$exp": {"$numberDecimal": "1"}}`, `{"$numberDecimal": "2.718281828459045235360287471352662"}`},
		{`{"$pow": [{"$numberDecimal": "10.0"}, -2]}`, `{"$numberDecimal": "0.01000000000000000000000000000000000"}`},
		{`{"$pow": [0.5, {"$numberDecimal": "-1"}]}`, `{"$numberDecimal": "2.000000000000000000000000000000000"}`},
		{`{"$pow": [-2, {"$numberDecimal": "2"}]}`, `{"$numberDecimal": "4.000000000000000000000000000000000"}`},
		{`{"$pow": [{"$numberDecimal": "-2.0"}, 2]}`, `{"$numberDecimal": "4.000000000000000000000000000000000"}`},
		{`{"$pow": [{"$numberDecimal": "10.0"}, 2]}`, `{"$numberDecimal": "100.0000000000000000000000000000000"}`},
		{`{"$pow": [5, {"$numberDecimal": "-112"}]}`, `{"$numberDecimal": "5192296858534827628530496329220096E-112"}`},
		{`{"$pow": [{"$numberDouble": "NaN"}, {"$numberDecimal": "2"}]}`, `{"$numberDecimal": "NaN"}`},
		{`{"$pow": [{"$numberDecimal": "0.5"}, {"$numberDouble": "NaN"}]}`, `{"$numberDecimal": "NaN"}`},
		{`{"$pow": [3, 35]}`, `{"$numberLong": "50031545098999707"}`},
		{`{"$pow": [-2, {"$numberLong": "63"}]}`, `{"$numberLong": "-9223372036854775808"}`},
		{`{"$pow": [-1, {"$numberLong": "-3"}]}`, `{"$numberLong": "-1"}`},
	})
	checkExprCodes(t, exprDoc30, []exprCode{
		{`{"$log": [{"$numberDecimal": "0"}, {"$numberDecimal": "5"}]}`, 28758},
		{`{"$log": [{"$numberDecimal": "5"}, {"$numberDecimal": "1"}]}`, 28759},
		{`{"$log": [{"$numberDecimal": "5"}, {"$numberDecimal": "-1"}]}`, 28759},
		{`{"$log10": {"$numberDecimal": "-1"}}`, 28761},
		{`{"$ln": {"$numberDecimal": "0"}}`, 28766},
		{`{"$pow": [{"$numberDecimal": "0"}, {"$numberLong": "-1"}]}`, 28764},
		{`{"$pow": ["string", {"$numberDecimal": "5"}]}`, 28762},
	})
}

// TestArrayElemAtCodes30 checks $arrayElemAt's refusals against
// jstests/aggregation/expressions/array_elem_at.js: 28690 for an index
// that is not a number, 28691 for one no 32-bit integer holds.
func TestArrayElemAtCodes30(t *testing.T) {
	t.Parallel()
	checkExprs(t, exprDoc30, []exprCase{
		{`{"$arrayElemAt": [[1, 2, 3, 4, 5], {"$numberDecimal": "2.0"}]}`, `3`},
		{`{"$arrayElemAt": [[1, 2, 3, 4, 5], -5]}`, `1`},
	})
	checkExprCodes(t, exprDoc30, []exprCode{
		{`{"$arrayElemAt": ["one", 2]}`, 28689},
		{`{"$arrayElemAt": [[1, 2], "2"]}`, 28690},
		{`{"$arrayElemAt": [[1, 2], 1.5]}`, 28691},
		{`{"$arrayElemAt": [[1, 2], {"$numberDecimal": "1.5"}]}`, 28691},
		{`{"$arrayElemAt": [[1, 2], 4294967296]}`, 28691},
		{`{"$arrayElemAt": [[1, 2], -2147483649]}`, 28691},
	})
	out, err := run(t, exprDoc30, `[{"$project": {"_id": 0, "x": {"$arrayElemAt": [[1, 2], {"$numberLong": "-2147483648"}]}}}]`, Options{})
	if err != nil || len(out) != 1 || len(out[0]) != 0 {
		t.Errorf("out of range index: %v %v, want the field left out", out, err)
	}
	_, err = run(t, exprDoc30, `[{"$project": {"x": {"$arrayElemAt": [[1, 2], "2"]}}}]`, Options{})
	if err == nil || !strings.Contains(err.Error(), "$arrayElemAt's second argument must be a numeric value, but is string") {
		t.Errorf("28690 words: %v", err)
	}
	_, err = run(t, exprDoc30, `[{"$project": {"x": {"$arrayElemAt": [[1, 2], 1.5]}}}]`, Options{})
	if err == nil || !strings.Contains(err.Error(), "$arrayElemAt's second argument must be representable as a 32-bit integer: 1.5") {
		t.Errorf("28691 words: %v", err)
	}
}

// TestRoundTruncDifferential30 carries jstests/aggregation/expressions/
// round_trunc.js and floor_ceil.js over, with a negative decimal that
// rounds to zero keeping its sign as decimal128's quantize does.
func TestRoundTruncDifferential30(t *testing.T) {
	t.Parallel()
	checkExprs(t, exprDoc30, []exprCase{
		{`{"$trunc": {"$numberLong": "4"}}`, `{"$numberLong": "4"}`},
		{`{"$trunc": {"$numberDouble": "-Infinity"}}`, `{"$numberDouble": "-Infinity"}`},
		{`{"$trunc": 0.9}`, `0.0`},
		{`{"$trunc": -1.2}`, `-1.0`},
		{`{"$trunc": {"$numberDecimal": "-1.6"}}`, `{"$numberDecimal": "-1"}`},
		{`{"$round": 0.9}`, `1.0`},
		{`{"$round": {"$numberDecimal": "-1.6"}}`, `{"$numberDecimal": "-2"}`},
		{`{"$trunc": [1.298, 1]}`, `1.2`},
		{`{"$trunc": [23.298, -1]}`, `20.0`},
		{`{"$trunc": [{"$numberDecimal": "23.298"}, -1]}`, `{"$numberDecimal": "2E+1"}`},
		{`{"$trunc": [1.298, 100]}`, `1.298`},
		{`{"$trunc": [{"$numberDecimal": "1.298912343250054252245154325"}, {"$numberLong": "20"}]}`, `{"$numberDecimal": "1.29891234325005425224"}`},
		{`{"$trunc": [{"$numberDecimal": "1.298"}, {"$numberDecimal": "100"}]}`, `{"$numberDecimal": "1.298000000000000000000000000000000"}`},
		{`{"$round": [1.298, 1]}`, `1.3`},
		{`{"$round": [{"$numberDecimal": "1.298"}, 1]}`, `{"$numberDecimal": "1.3"}`},
		{`{"$round": [{"$numberDecimal": "1.298912343250054252245154325"}, {"$numberLong": "20"}]}`, `{"$numberDecimal": "1.29891234325005425225"}`},
		{`{"$round": [2147483647, -1]}`, `{"$numberLong": "2147483650"}`},
		{`{"$round": [{"$numberDecimal": "NaN"}, 0]}`, `{"$numberDecimal": "NaN"}`},
		{`{"$round": [{"$numberDecimal": "-Infinity"}, 0]}`, `{"$numberDecimal": "-Infinity"}`},
		{`{"$round": [{"$numberDecimal": "-0.4"}, 0]}`, `{"$numberDecimal": "-0"}`},
		{`{"$round": -0.4}`, `-0.0`},
		{`{"$ceil": -1.2}`, `-1.0`},
		{`{"$floor": -1.2}`, `-2.0`},
		{`{"$ceil": {"$numberDouble": "NaN"}}`, `{"$numberDouble": "NaN"}`},
	})
	checkExprCodes(t, exprDoc30, []exprCode{
		{`{"$round": [{"$numberLong": "9223372036854775806"}, -1]}`, 51080},
		{`{"$trunc": [1, 2, 3]}`, 28667},
		{`{"$round": "string"}`, 51081},
		{`{"$round": [1, {"$numberDecimal": "101"}]}`, 51083},
		{`{"$trunc": [1, {"$numberInt": "-21"}]}`, 51083},
		{`{"$round": [1, {"$numberDecimal": "1.4"}]}`, 51082},
		{`{"$trunc": [1, 10.5]}`, 51082},
		{`{"$floor": "string"}`, 28765},
	})
}

// TestRegexStartOptions30 carries the start-of-pattern options of
// jstests/aggregation/expressions/regex.js over: (*UTF), (*UTF8),
// (*UCP), (*CR), (*LF) and the limits are accepted at the start of a
// pattern and refused anywhere else; empty matches stop before the end
// of the input.
func TestRegexStartOptions30(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "caf": "cafétéria", "abcd": "ab\ncd", "tib": "༢༣༤༤༤༥12༥A", "kor": "박정수AB", "aaa": "aaa aa"}]`
	checkExprs(t, doc, []exprCase{
		{`{"$regexFindAll": {"input": "$aaa", "regex": "(a*?)"}}`, `[{"match": "", "idx": 0, "captures": [""]},{"match": "", "idx": 1, "captures": [""]},{"match": "", "idx": 2, "captures": [""]},{"match": "", "idx": 3, "captures": [""]},{"match": "", "idx": 4, "captures": [""]},{"match": "", "idx": 5, "captures": [""]}]`},
		{`{"$regexFindAll": {"input": "bbbb", "regex": "()"}}`, `[{"match": "", "idx": 0, "captures": [""]},{"match": "", "idx": 1, "captures": [""]},{"match": "", "idx": 2, "captures": [""]},{"match": "", "idx": 3, "captures": [""]}]`},
		{`{"$regexFindAll": {"input": "", "regex": ""}}`, `[{"match": "", "idx": 0, "captures": []}]`},
		{`{"$regexFind": {"input": "$caf", "regex": "(*LIMIT_MATCH=3)(fé)"}}`, `{"match": "fé", "idx": 2, "captures": ["fé"]}`},
		{`{"$regexFind": {"input": "$abcd", "regex": "(*LF)ab.cd"}}`, `null`},
		{`{"$regexFind": {"input": "$abcd", "regex": "(*CR)ab.cd"}}`, `{"match": "ab\ncd", "idx": 0, "captures": []}`},
		{`{"$regexMatch": {"input": "ab\rcd", "regex": "(*CR)ab.cd"}}`, `false`},
		{`{"$regexFind": {"input": "$caf", "regex": "(*LIMIT_MATCH=5)(*UCP)^(\\w+)"}}`, `{"match": "cafétéria", "idx": 0, "captures": ["cafétéria"]}`},
		{`{"$regexFindAll": {"input": "$tib", "regex": "(*UTF8)༤"}}`, `[{"match": "༤", "idx": 2, "captures": []},{"match": "༤", "idx": 3, "captures": []},{"match": "༤", "idx": 4, "captures": []}]`},
		{`{"$regexFind": {"input": "$tib", "regex": "(*UTF)༤"}}`, `{"match": "༤", "idx": 2, "captures": []}`},
		{`{"$regexFind": {"input": "123444", "regex": "(*UTF8)(44)"}}`, `{"match": "44", "idx": 3, "captures": ["44"]}`},
		{`{"$regexFind": {"input": "$tib", "regex": "(*UCP)^(\\w+)"}}`, `{"match": "༢༣༤༤༤༥12༥A", "idx": 0, "captures": ["༢༣༤༤༤༥12༥A"]}`},
		{`{"$regexFind": {"input": "$tib", "regex": "(*UCP)^[[:digit:]]+"}}`, `{"match": "༢༣༤༤༤༥12༥", "idx": 0, "captures": []}`},
		{`{"$regexFind": {"input": "$tib", "regex": "(*UCP)[[:digit:]]+$"}}`, `null`},
		{`{"$regexFind": {"input": "$kor", "regex": "(*UCP)^[[:alpha:]]+"}}`, `{"match": "박정수AB", "idx": 0, "captures": []}`},
		{`{"$regexFind": {"input": "$tib", "regex": "(*UCP)^\\d+"}}`, `{"match": "༢༣༤༤༤༥12༥", "idx": 0, "captures": []}`},
		{`{"$regexFind": {"input": "$tib", "regex": "^(\\w+)"}}`, `null`},
		{`{"$regexFind": {"input": "$tib", "regex": "^[[:digit:]]"}}`, `null`},
		{`{"$regexFind": {"input": "$caf", "regex": "^[[:alpha:]]+$"}}`, `null`},
		{`{"$regexFind": {"input": "$caf", "regex": "\\p{Latin}+$"}}`, `{"match": "cafétéria", "idx": 0, "captures": []}`},
	})
	checkExprCodes(t, doc, []exprCode{
		{`{"$regexFind": {"input": "$caf", "regex": "^(*UCP)[[:alpha:]]+$"}}`, 51111},
		{`{"$regexFind": {"input": "$caf", "regex": "((*UCP)[[:alpha:]]+$)"}}`, 51111},
		{`{"$regexFind": {"input": "$caf", "regex": "(*BOGUS)a"}}`, 51111},
		{`{"$regexFind": {"input": "$caf", "regex": "(*UCP=1)a"}}`, 51111},
	})
}

// TestConvertTable30 carries jstests/aggregation/expressions/
// convert.js's table over: one conversion per pair of types, and the
// unsupported ones (a "missing" or 0 target among them) giving onError.
func TestConvertTable30(t *testing.T) {
	t.Parallel()
	oid := `{"$oid": "0123456789abcdef01234567"}`
	date := `{"$date": "1970-01-01T00:00:00.123Z"}`
	dec := `{"$numberDecimal": "1.9"}`
	cases := []exprCase{
		{`{"$convert": {"input": 1.9, "to": "string"}}`, `"1.9"`},
		{`{"$convert": {"input": 1.9, "to": "bool"}}`, `true`},
		{`{"$convert": {"input": 1.9, "to": "date"}}`, `{"$date": "1970-01-01T00:00:00.001Z"}`},
		{`{"$convert": {"input": 1.9, "to": "int"}}`, `{"$numberInt": "1"}`},
		{`{"$convert": {"input": 1.9, "to": "long"}}`, `{"$numberLong": "1"}`},
		{`{"$convert": {"input": 1.9, "to": "decimal"}}`, `{"$numberDecimal": "1.90000000000000"}`},
		{`{"$convert": {"input": "1.9", "to": "double"}}`, `1.9`},
		{`{"$convert": {"input": "0123456789abcdef01234567", "to": "objectId"}}`, oid},
		{`{"$convert": {"input": "", "to": "bool"}}`, `true`},
		{`{"$convert": {"input": "1970-01-01T00:00:00.001Z", "to": "date"}}`, `{"$date": "1970-01-01T00:00:00.001Z"}`},
		{`{"$convert": {"input": "1", "to": "int"}}`, `{"$numberInt": "1"}`},
		{`{"$convert": {"input": "1.9", "to": "decimal"}}`, dec},
		{`{"$convert": {"input": ` + oid + `, "to": "string"}}`, `"0123456789abcdef01234567"`},
		{`{"$convert": {"input": ` + oid + `, "to": "date"}}`, `{"$date": "1970-08-09T22:25:43Z"}`},
		{`{"$convert": {"input": false, "to": "double"}}`, `0.0`},
		{`{"$convert": {"input": false, "to": "string"}}`, `"false"`},
		{`{"$convert": {"input": false, "to": "decimal"}}`, `{"$numberDecimal": "0"}`},
		{`{"$convert": {"input": ` + date + `, "to": "double"}}`, `123.0`},
		{`{"$convert": {"input": ` + date + `, "to": "string"}}`, `"1970-01-01T00:00:00.123Z"`},
		{`{"$convert": {"input": ` + date + `, "to": "long"}}`, `{"$numberLong": "123"}`},
		{`{"$convert": {"input": ` + date + `, "to": "decimal"}}`, `{"$numberDecimal": "123"}`},
		{`{"$convert": {"input": {"$numberLong": "1"}, "to": "date"}}`, `{"$date": "1970-01-01T00:00:00.001Z"}`},
		{`{"$convert": {"input": ` + dec + `, "to": "double"}}`, `1.9`},
		{`{"$convert": {"input": ` + dec + `, "to": "string"}}`, `"1.9"`},
		{`{"$convert": {"input": ` + dec + `, "to": "date"}}`, `{"$date": "1970-01-01T00:00:00.001Z"}`},
		{`{"$convert": {"input": ` + dec + `, "to": "int"}}`, `{"$numberInt": "1"}`},
		{`{"$convert": {"input": {"$minKey": 1}, "to": "bool"}}`, `true`},
		{`{"$convert": {"input": {"$regularExpression": {"pattern": "B*", "options": ""}}, "to": "bool"}}`, `true`},
		{`{"$convert": {"input": {"$timestamp": {"t": 0, "i": 1}}, "to": "bool"}}`, `true`},
		{`{"$convert": {"input": null, "to": null, "onNull": "NULL"}}`, `"NULL"`},
		{`{"$convert": {"input": "$nosuch", "to": "int", "onNull": "NULL"}}`, `"NULL"`},
	}
	for _, bad := range []string{
		`1.9, "to": "objectId"`, oid + `, "to": "double"`, oid + `, "to": "int"`, oid + `, "to": "long"`, oid + `, "to": "decimal"`,
		`false, "to": "objectId"`, `false, "to": "date"`, date + `, "to": "objectId"`, date + `, "to": "int"`,
		`{"$numberInt": "1"}, "to": "date"`, dec + `, "to": "objectId"`,
		`1.9, "to": "minKey"`, `1.9, "to": "missing"`, `1.9, "to": 0`, `1.9, "to": "object"`, `1.9, "to": "array"`,
		`1.9, "to": "binData"`, `1.9, "to": "undefined"`, `1.9, "to": "null"`, `1.9, "to": "regex"`, `1.9, "to": "dbPointer"`,
		`1.9, "to": "javascript"`, `1.9, "to": "symbol"`, `1.9, "to": "javascriptWithScope"`, `1.9, "to": "timestamp"`, `1.9, "to": "maxKey"`,
	} {
		cases = append(cases, exprCase{`{"$convert": {"input": ` + bad + `, "onError": "ERROR"}}`, `"ERROR"`})
	}
	checkExprs(t, exprDoc30, cases)
	checkExprCodes(t, exprDoc30, []exprCode{
		{`{"$convert": {"input": 1.9, "to": "missing"}}`, 241},
		{`{"$convert": {"input": 1.9, "to": "junk", "onError": "ERROR"}}`, 2},
		{`{"$convert": {"input": {"$divide": [1, 0]}, "to": "string", "onError": "ERROR"}}`, 2},
	})
}

// TestAvgSumExpressions30 carries jstests/aggregation/expressions/
// avg_and_sum.js over: one array argument is read one level deep, other
// values that are not numbers are skipped.
func TestAvgSumExpressions30(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "null": null, "undefined": {"$undefined": true}, "string": "hello world", "num": -1, "num2": 13.4,
		"arrayEmpty": [], "array1": [1, 2, 3], "array2": [1, 2, 3, "string"], "array3": [12.4, 5.6, 9.805],
		"arrayNested1": [[1, 2, 3], {}], "arrayNested2": [[1, 2, 3], 4, null]}]`
	checkExprs(t, doc, []exprCase{
		{`{"$avg": "$null"}`, `null`},
		{`{"$avg": "$undefined"}`, `null`},
		{`{"$avg": "$doesNotExist"}`, `null`},
		{`{"$avg": "$string"}`, `null`},
		{`{"$avg": "$num"}`, `-1.0`},
		{`{"$avg": "$num2"}`, `13.4`},
		{`{"$sum": "$null"}`, `{"$numberInt": "0"}`},
		{`{"$sum": "$undefined"}`, `{"$numberInt": "0"}`},
		{`{"$sum": "$string"}`, `{"$numberInt": "0"}`},
		{`{"$sum": "$num"}`, `{"$numberInt": "-1"}`},
		{`{"$avg": "$arrayEmpty"}`, `null`},
		{`{"$avg": "$array1"}`, `2.0`},
		{`{"$avg": "$array2"}`, `2.0`},
		{`{"$avg": "$array3"}`, `9.268333333333333`},
		{`{"$avg": "$arrayNested1"}`, `null`},
		{`{"$avg": "$arrayNested2"}`, `4.0`},
		{`{"$sum": "$arrayEmpty"}`, `{"$numberInt": "0"}`},
		{`{"$sum": "$array1"}`, `{"$numberInt": "6"}`},
		{`{"$sum": "$array2"}`, `{"$numberInt": "6"}`},
		{`{"$sum": "$array3"}`, `27.805`},
		{`{"$sum": "$arrayNested2"}`, `{"$numberInt": "4"}`},
		{`{"$sum": [2147483647, 1]}`, `{"$numberLong": "2147483648"}`},
		{`{"$sum": [{"$numberLong": "9223372036854775807"}, 1]}`, `9.223372036854775807e18`},
		{`{"$sum": [{"$numberLong": "9223372036854775807"}, 1, -1]}`, `{"$numberLong": "9223372036854775807"}`},
		{`{"$sum": [1, {"$numberDecimal": "2"}]}`, `{"$numberDecimal": "3"}`},
		{`{"$avg": [1, {"$numberLong": "2"}]}`, `1.5`},
		{`{"$avg": [1, {"$numberDecimal": "2"}]}`, `{"$numberDecimal": "1.5"}`},
	})
}

// TestAddIsPlainDoubleSum30 is jstests/aggregation/expressions/add.js:
// $add adds doubles one after another, as plain doubles, where $sum
// keeps a compensated sum, so the two differ on these values.
func TestAddIsPlainDoubleSum30(t *testing.T) {
	t.Parallel()
	nums := []float64{
		1.4831356930199802e-05, -3.121724665346865, 3041897608700.073, 1001318343149.7166,
		-1714.6229586696593, 1731390114894580.8, 6.256645803154374e-08, -107144114533844.25,
		-0.08839485091750919, -265119153.02185738, -0.02450615965231944, 0.0002684331017079073,
		32079040427.68358, -0.04733295911845742, 0.061381859083076085, -25329.59126796951,
		-0.0009567520620034965, -1553879364344.9932, -2.1101077525869814e-08, -298421079729.5547,
		0.03182394834273594, 22.201944843278916, -33.35667991109125, 11496013.960449915,
		-40652595.33210472, 3.8496066090328163, 2.5074042398147304e-08, -0.02208724071782122,
		-134211.37290639878, 0.17640433666616578, 4.463787499171126, 9.959669945399718,
		129265976.35224283, 1.5865526187526546e-07, -4746011.710555799, -712048598925.0789,
		582214206210.4034, 0.025236204812875362, 530078170.91147506, -14.865307666195053,
		1.6727994895185032e-05, -113386276.03121366, -6.135827207137054, 10644945799901.145,
		-100848907797.1582, 2.2404406961625282e-08, 1.315662618424494e-09, -0.832190208349044,
		-9.779323414999364, -546522170658.2997,
	}
	var args []string
	plain := 0.0
	for _, f := range nums {
		args = append(args, strconv.FormatFloat(f, 'g', -1, 64))
		plain += f
	}
	list := "[" + strings.Join(args, ", ") + "]"
	out, err := run(t, exprDoc30, `[{"$project": {"_id": 0, "add": {"$add": `+list+`}, "sum": {"$sum": `+list+`}}}]`, Options{})
	if err != nil || len(out) != 1 {
		t.Fatalf("%v %v", out, err)
	}
	add, sum := out[0][0].Value, out[0][1].Value
	if add != plain {
		t.Errorf("$add = %v, want the plain sum %v", add, plain)
	}
	if sum == add {
		t.Errorf("$sum = %v, the same as $add; want the compensated sum", sum)
	}
}

// TestDecimalToDouble30 checks that $toDouble (and $convert to
// "double") refuses a decimal past a double's range, or one that would
// underflow, with 241 as mongod does, and converts the rest.
func TestDecimalToDouble30(t *testing.T) {
	t.Parallel()
	checkExprs(t, exprDoc30, []exprCase{
		{`{"$toDouble": {"$numberDecimal": "0.1"}}`, `0.1`},
		{`{"$toDouble": {"$numberDecimal": "-0"}}`, `-0.0`},
		{`{"$toDouble": {"$numberDecimal": "0E-6000"}}`, `0.0`},
		{`{"$toDouble": {"$numberDecimal": "-Infinity"}}`, `{"$numberDouble": "-Infinity"}`},
		{`{"$toDouble": {"$numberDecimal": "NaN"}}`, `{"$numberDouble": "NaN"}`},
		{`{"$toDouble": {"$numberDecimal": "1.7976931348623157e308"}}`, `1.7976931348623157e308`},
		{`{"$convert": {"input": {"$numberDecimal": "1e400"}, "to": "double", "onError": "E"}}`, `"E"`},
	})
	for _, c := range []struct{ in, shown string }{
		{"1e400", "1E+400"}, {"-1e400", "-1E+400"}, {"1e-400", "1E-400"}, {"1e-310", "1E-310"},
	} {
		_, err := run(t, exprDoc30, `[{"$replaceWith": {"v": {"$toDouble": {"$numberDecimal": "`+c.in+`"}}}}]`, Options{})
		want := "Conversion would overflow target type in $convert with no onError value: " + c.shown
		if codeOf(err) != 241 || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: %v, want 241 %q", c.in, err, want)
		}
	}
}

// TestConvertToIntegerWords30 checks mongod's words for a number no int,
// long or date holds (performCastDoubleToInt and its neighbours): NaN
// and the infinities named apart, a double out of range shown as C++
// prints it, a decimal as it is written, a long too big for an int with
// nothing after the colon; a double is checked before it is cut toward
// zero, so 2147483647.9 is no int.
func TestConvertToIntegerWords30(t *testing.T) {
	t.Parallel()
	const over = "Conversion would overflow target type in $convert with no onError value: "
	checkExprs(t, exprDoc30, []exprCase{
		{`{"$toInt": 2147483647.0}`, `{"$numberInt": "2147483647"}`},
		{`{"$toInt": -2147483648.0}`, `{"$numberInt": "-2147483648"}`},
		{`{"$toInt": {"$numberDecimal": "-2147483648.9"}}`, `{"$numberInt": "-2147483648"}`},
		{`{"$toLong": {"$numberDecimal": "9223372036854775807.5"}}`, `{"$numberLong": "9223372036854775807"}`},
		{`{"$toLong": -9.223372036854775808e18}`, `{"$numberLong": "-9223372036854775808"}`},
	})
	for _, c := range []struct{ expr, msg string }{
		{`{"$toInt": 2147483647.9}`, over + "2.14748e+09"},
		{`{"$toInt": -2147483648.9}`, over + "-2.14748e+09"},
		{`{"$toInt": 1e10}`, over + "1e+10"},
		{`{"$toLong": 9.3e18}`, over + "9.3e+18"},
		{`{"$toInt": {"$numberLong": "2147483648"}}`, over},
		{`{"$toInt": {"$numberDecimal": "1e10"}}`, over + "1E+10"},
		{`{"$toDate": {"$numberDecimal": "1E+20"}}`, over + "1E+20"},
		{`{"$toInt": {"$numberDouble": "NaN"}}`, "Attempt to convert NaN value to integer type in $convert with no onError value"},
		{`{"$toLong": {"$numberDecimal": "NaN"}}`, "Attempt to convert NaN value to integer type in $convert with no onError value"},
		{`{"$toDate": {"$numberDouble": "NaN"}}`, "Attempt to convert NaN value to integer type in $convert with no onError value"},
		{`{"$toInt": {"$numberDouble": "-Infinity"}}`, "Attempt to convert infinity value to integer type in $convert with no onError value"},
		{`{"$toDate": {"$numberDecimal": "Infinity"}}`, "Attempt to convert infinity value to integer type in $convert with no onError value"},
	} {
		_, err := run(t, exprDoc30, `[{"$replaceWith": {"v": `+c.expr+`}}]`, Options{})
		if codeOf(err) != 241 || !strings.HasSuffix(err.Error(), c.msg) {
			t.Errorf("%s: %v, want 241 %q", c.expr, err, c.msg)
		}
	}
}
