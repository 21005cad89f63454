package agg

import (
	"context"
	"math"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Review 26 (stages, accumulators, window functions): places where a
// MongoDB user got a different answer from ttlkv than from mongod 7.0,
// fixed since. Each test says what mongod does and where that was read,
// and asserts mongod's answer.

// stages26Code runs pipeline over docs and reports when the error code
// is not want.
func stages26Code(t *testing.T, docs, pipeline string, want int) {
	t.Helper()
	out, err := run(t, docs, pipeline, Options{})
	if got := codeOf(err); got != want {
		t.Errorf("%s: code %d (%v, %v), want %d", pipeline, got, err, out, want)
	}
}

// stages26Same runs pipeline over docs and reports when the results are
// not exactly want (values, types, field order).
func stages26Same(t *testing.T, docs, pipeline, want string) {
	t.Helper()
	out, err := run(t, docs, pipeline, Options{})
	if err != nil {
		t.Errorf("%s: %v, want %s", pipeline, err, want)
		return
	}
	if !same(out, val(t, want)) {
		t.Errorf("%s:\n got %v\nwant %s", pipeline, out, want)
	}
}

// TestReviewStages26SumIsCompensated: mongod adds doubles with
// DoubleDoubleSummation (a double-double, compensated sum), in the $sum
// and $avg accumulators, in the $sum window function and in the $sum
// expression (src/mongo/db/pipeline/accumulator_sum.cpp:
// nonDecimalTotal.addDouble, getValue returns nonDecimalTotal.getDouble();
// accumulator_avg.cpp divides the same kind of total by the count). The
// exact sum of the doubles 0.1, 0.2 and 0.3 rounds to 0.6, and 1e16 + 1 -
// 1e16 is exactly 1, so mongod answers 0.6, 1 and 0.6/3 =
// 0.19999999999999998. ttlkv adds in plain float64 and answers
// 0.6000000000000001, 0 and 0.20000000000000004.
func TestReviewStages26SumIsCompensated(t *testing.T) {
	t.Parallel()
	tenths := `[{"_id": 1, "a": 0.1}, {"_id": 2, "a": 0.2}, {"_id": 3, "a": 0.3}]`
	stages26Same(t, tenths,
		`[{"$group": {"_id": null, "s": {"$sum": "$a"}, "v": {"$avg": "$a"}}}]`,
		`[{"_id": null, "s": 0.6, "v": 0.19999999999999998}]`)
	stages26Same(t, `[{"_id": 1, "a": 1e16}, {"_id": 2, "a": 1}, {"_id": 3, "a": -1e16}]`,
		`[{"$group": {"_id": null, "s": {"$sum": "$a"}}}]`,
		`[{"_id": null, "s": 1.0}]`)
	stages26Same(t, tenths,
		`[{"$setWindowFields": {"output": {"s": {"$sum": "$a"}}}}, {"$project": {"_id": 0, "s": 1}}, {"$limit": 1}]`,
		`[{"s": 0.6}]`)
	stages26Same(t, `[{"_id": 1, "a": 0.1, "b": 0.2, "c": 0.3}]`,
		`[{"$project": {"_id": 0, "s": {"$sum": ["$a", "$b", "$c"]}, "v": {"$avg": ["$a", "$b", "$c"]}}}]`,
		`[{"s": 0.6, "v": 0.19999999999999998}]`)
}

// TestReviewStages26SumOfLongsComesBackIntoRange: mongod's $sum keeps
// longs in a DoubleDoubleSummation (addLong is exact) and answers a long
// when the final total fits one (accumulator_sum.cpp getValue: case
// NumberLong, "if (nonDecimalTotal.fitsLong()) return
// Value(nonDecimalTotal.getLong())"); only a total that does not fit
// becomes a double. So NumberLong(max) + 1 - 1 is NumberLong(max). ttlkv
// turns the running total into a double as soon as it overflows and
// answers 9.223372036854776e18.
func TestReviewStages26SumOfLongsComesBackIntoRange(t *testing.T) {
	t.Parallel()
	docs := `[{"_id": 1, "a": {"$numberLong": "9223372036854775807"}}, {"_id": 2, "a": {"$numberLong": "1"}}, {"_id": 3, "a": {"$numberLong": "-1"}}]`
	stages26Same(t, docs,
		`[{"$group": {"_id": null, "s": {"$sum": "$a"}}}]`,
		`[{"_id": null, "s": {"$numberLong": "9223372036854775807"}}]`)
	stages26Same(t, `[{"_id": 1}]`,
		`[{"$project": {"_id": 0, "s": {"$sum": [{"$numberLong": "9223372036854775807"}, {"$numberLong": "1"}, {"$numberLong": "-1"}]}}}]`,
		`[{"s": {"$numberLong": "9223372036854775807"}}]`)
}

// TestReviewStages26ExpMovingAvgDecimal: mongod computes $expMovingAvg
// in Decimal128 and, once an input is a decimal, answers the decimal
// itself (src/mongo/db/pipeline/accumulator_exp_moving_avg.cpp: the first
// value is taken as input.coerceToDecimal(), later ones as
// value*alpha + result*(1-alpha); getValue returns _currentResult when
// _isDecimal). alpha for N is Decimal128(2)/(N+1)
// (window_function_expression.h, ExpressionExpMovingAvg). With N = 3
// (alpha 0.5) over NumberDecimal 1 and 2 mongod answers
// NumberDecimal("1") and NumberDecimal("1.5"); ttlkv computes in doubles
// and converts with 15 digits: "1.00000000000000", "1.50000000000000".
// (docs/aggregation.md says the last digit can differ; here the digits
// and the value's representation differ.)
func TestReviewStages26ExpMovingAvgDecimal(t *testing.T) {
	t.Parallel()
	stages26Same(t,
		`[{"_id": 1, "v": {"$numberDecimal": "1"}}, {"_id": 2, "v": {"$numberDecimal": "2"}}]`,
		`[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"e": {"$expMovingAvg": {"input": "$v", "N": 3}}}}}, {"$project": {"e": 1}}]`,
		`[{"_id": 1, "e": {"$numberDecimal": "1"}}, {"_id": 2, "e": {"$numberDecimal": "1.5"}}]`)
}

// TestReviewStages26ProjectMixCodes: mongod's projection parser decides
// inclusion or exclusion from the first field that is not the top-level
// _id and refuses each later field that does not fit, with a code for
// the kind of that field (src/mongo/db/query/projection_parser.cpp:
// parseInclusion 31253 "Cannot do inclusion on field b in exclusion
// projection", parseLiteral 31310 "Cannot use an expression ... in an
// exclusion projection", attemptToParseGenericExpression 31252 "Cannot use
// expression other than $meta in exclusion projection"; parseExclusion
// 31254 only for an exclusion after an inclusion). "_id.x" is not the
// top-level _id. ttlkv answers 31254 for all of these.
func TestReviewStages26ProjectMixCodes(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "a": 1, "b": 2}]`
	stages26Code(t, doc, `[{"$project": {"a": 0, "b": 1}}]`, 31253)
	stages26Code(t, doc, `[{"$project": {"a": false, "b": true}}]`, 31253)
	stages26Code(t, doc, `[{"$project": {"a": 0, "c": "$b"}}]`, 31310)
	stages26Code(t, doc, `[{"$project": {"a": 0, "c": {"$add": [1, 2]}}}]`, 31252)
	stages26Code(t, doc, `[{"$project": {"_id.x": 0, "a": 1}}]`, 31253)
	// The one that ttlkv already gets right, for contrast.
	stages26Code(t, doc, `[{"$project": {"a": 1, "b": 0}}]`, 31254)
}

// TestReviewStages26ProjectIdIncludedInExclusion: {_id: 1, a: 0} is a
// valid exclusion projection in mongod: a top-level _id inclusion does not
// set the projection's type (projection_parser.cpp parseInclusion,
// isTopLevelIdProjection), a: 0 makes it an exclusion, and parse() then
// drops the _id node ("The user explicitly included _id in an exclusion
// projection. This is legal syntax"). The result is the document without
// a. ttlkv refuses it with 31254.
func TestReviewStages26ProjectIdIncludedInExclusion(t *testing.T) {
	t.Parallel()
	stages26Same(t, `[{"_id": 1, "a": 1, "b": 2}]`,
		`[{"$project": {"_id": 1, "a": 0}}]`,
		`[{"_id": 1, "b": 2}]`)
	stages26Same(t, `[{"_id": 1, "a": 1, "b": 2}]`,
		`[{"$project": {"_id": true, "a": 0, "b": 0}}]`,
		`[{"_id": 1}]`)
}

// TestReviewStages26SkipLimitCodes: since 5.0 mongod reads $skip and
// $limit with BSONElement::parseIntegerElementToNonNegativeLong and
// refuses anything it rejects with one code per stage: 5107200 "invalid
// argument to $skip stage: ..." and 5107201 "invalid argument to $limit
// stage: ..." (a non-number, a fraction, a negative number, a double past
// a long); $limit 0 stays 15958. Read in real-server captures
// (mongalayer's skip test records code 5107200 for $skip -1, "a", true,
// null, [] and {}), in FerretDB's GetSkipStageParam/GetLimitStageParam
// and ErrStageLimitInvalidArg = 5107201, and MongoDB's manual ("Starting
// in MongoDB 5.0, the $skip ... has a 64-bit integer limit ... invalid
// argument error"). ttlkv answers 4.x's 15956, 15972, 15957 and 15958.
func TestReviewStages26SkipLimitCodes(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1}, {"_id": 2}]`
	stages26Code(t, doc, `[{"$skip": -1}]`, 5107200)
	stages26Code(t, doc, `[{"$skip": 1.5}]`, 5107200)
	stages26Code(t, doc, `[{"$skip": "1"}]`, 5107200)
	stages26Code(t, doc, `[{"$limit": -1}]`, 5107201)
	stages26Code(t, doc, `[{"$limit": 1.5}]`, 5107201)
	stages26Code(t, doc, `[{"$limit": "1"}]`, 5107201)
	stages26Code(t, doc, `[{"$limit": 0}]`, 15958)
}

// TestReviewStages26LimitSkipTakeAnyLong: mongod accepts any
// non-negative 64-bit integer as $skip and $limit ("$limit: <positive
// 64-bit integer>"; parseIntegerElementToNonNegativeLong takes a
// NumberLong as it is), so $limit NumberLong(9223372036854775807) returns
// every document and $skip of it none. ttlkv converts the argument to a
// float64 and back, finds 2^63 != 2^63-1, and refuses both as not a
// number (15957, 15972).
func TestReviewStages26LimitSkipTakeAnyLong(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1}, {"_id": 2}]`
	stages26Same(t, doc, `[{"$project": {"_id": 1}}, {"$limit": {"$numberLong": "9223372036854775807"}}]`,
		`[{"_id": 1}, {"_id": 2}]`)
	stages26Same(t, doc, `[{"$project": {"_id": 1}}, {"$skip": {"$numberLong": "9223372036854775807"}}]`, `[]`)
	stages26Same(t, doc, `[{"$project": {"_id": 1}}, {"$limit": {"$numberLong": "9007199254740993"}}]`,
		`[{"_id": 1}, {"_id": 2}]`)
}

// TestReviewStages26UnwindIndexDollar: mongod refuses an
// includeArrayIndex that starts with '$' with 28822 "includeArrayIndex
// option to $unwind stage should not be prefixed with a '$'"; 28810 is
// only for a non-string or empty one
// (src/mongo/db/pipeline/document_source_unwind.cpp createFromBson), and
// an empty path is 28812 "no path specified to $unwind stage", checked
// before 28818. ttlkv answers 28810 and 28818.
func TestReviewStages26UnwindIndexDollar(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "a": [1, 2]}]`
	stages26Code(t, doc, `[{"$unwind": {"path": "$a", "includeArrayIndex": "$i"}}]`, 28822)
	stages26Code(t, doc, `[{"$unwind": {"path": "$a", "includeArrayIndex": ""}}]`, 28810)
	// An empty path is "no path specified" (28812), checked before the
	// '$' prefix (28818).
	stages26Code(t, doc, `[{"$unwind": ""}]`, 28812)
	stages26Code(t, doc, `[{"$unwind": {"path": ""}}]`, 28812)
}

// TestReviewStages26ReplaceRootSpecNotObject: a $replaceRoot whose
// specification is not an object is 40229 "expected an object as
// specification for $replaceRoot stage"; 40228 is for a newRoot that does
// not evaluate to an object (src/mongo/db/pipeline/
// document_source_replace_root.cpp createFromBson, and its unit test
// CreationRequiresObjectSpecification). ttlkv answers 40228.
func TestReviewStages26ReplaceRootSpecNotObject(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "a": {"x": 1}}]`
	stages26Code(t, doc, `[{"$replaceRoot": 5}]`, 40229)
	stages26Code(t, doc, `[{"$replaceRoot": "$a"}]`, 40229)
}

// TestReviewStages26AddFieldsDottedPathThroughArrays: a computed dotted
// path that meets an array is applied to every element: a document gets
// the field, a scalar is replaced by a new document holding it, and a
// nested array is descended into
// (jstests/aggregation/sources/addFields/dotted_paths.js, "Test when the
// path encounters an array ..."; add_fields_adds_to_missing_fields.js:
// {$addFields: {"array.m2": "what?"}} on [1, 2, {m1: "str"}] gives
// [{m2}, {m2}, {m1, m2}]). ttlkv sets the field in the documents of the
// array only and leaves scalars and nested arrays as they were.
func TestReviewStages26AddFieldsDottedPathThroughArrays(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "arrayField": [1, {"subField": [2, {}]}, [1]]}]`
	stages26Same(t, doc, `[{"$addFields": {"arrayField.newSubPath.b": "newValue"}}]`,
		`[{"_id": 1, "arrayField": [{"newSubPath": {"b": "newValue"}}, {"subField": [2, {}], "newSubPath": {"b": "newValue"}}, [{"newSubPath": {"b": "newValue"}}]]}]`)
	stages26Same(t, doc, `[{"$addFields": {"arrayField.subField.b": {"$literal": "v"}}}]`,
		`[{"_id": 1, "arrayField": [{"subField": {"b": "v"}}, {"subField": [{"b": "v"}, {"b": "v"}]}, [{"subField": {"b": "v"}}]]}]`)
	stages26Same(t, `[{"_id": 0, "array": [1, 2, {"m1": "str"}]}]`, `[{"$set": {"array.m2": "what?"}}]`,
		`[{"_id": 0, "array": [{"m2": "what?"}, {"m2": "what?"}, {"m1": "str", "m2": "what?"}]}]`)
}

// TestReviewStages26CountEmptyName: mongod's $count refuses a value that
// is not a string with 40156 and an empty string with 40157 (both "the
// count field must be a non-empty string"; 40158 $-prefixed, 40159 a NUL,
// 40160 a dot: document_source_count.cpp; FerretDB's newCount answers
// ErrStageCountNonEmptyString for ""). ttlkv answers 40156 for "".
func TestReviewStages26CountEmptyName(t *testing.T) {
	t.Parallel()
	stages26Code(t, `[{"_id": 1}]`, `[{"$count": ""}]`, 40157)
	stages26Code(t, `[{"_id": 1}]`, `[{"$count": 5}]`, 40156)
}

// TestReviewStages26GroupIdTwice: mongod refuses a $group that gives _id
// twice with 15948 "a group's _id may only be specified once"
// (DocumentSourceGroup::createFromBson, document_source_group.cpp). ttlkv
// takes the last one.
func TestReviewStages26GroupIdTwice(t *testing.T) {
	t.Parallel()
	p := bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$a"}, {Key: "_id", Value: 1}}}}}
	_, err := Parse(p)
	if got := codeOf(err); got != 15948 {
		t.Errorf("$group with two _id: code %d (%v), want 15948", got, err)
	}
}

// TestReviewStages26PushMemoryLimit: mongod's $push accumulator counts
// the approximate size of what it holds and fails with 146
// ExceededMemoryLimit "$push used too much memory and cannot spill to
// disk" past internalQueryMaxPushBytes (100 MiB), whatever the $group's
// own limit or allowDiskUse (src/mongo/db/pipeline/accumulator_push.cpp
// processInternal). ttlkv's $push has no limit of its own: with a group
// limit large enough it builds a 120 MiB array.
func TestReviewStages26PushMemoryLimit(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	var in []bson.D
	for i := range 120 {
		in = append(in, bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: big}})
	}
	p, err := Parse(val(t, `[{"$group": {"_id": null, "p": {"$push": "$s"}}}, {"$project": {"n": {"$size": "$p"}}}]`).(bson.A))
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(context.Background(), sliceSource(in), Options{MaxGroupBytes: math.MaxInt64 / 2, MaxMemoryBytes: math.MaxInt64 / 2})
	if got := codeOf(err); got != 146 {
		t.Errorf("$push of 120 MiB in one group: code %d (%v, %v), want 146", got, err, out)
	}
}

// TestReviewStages26FieldPathCodes: mongod builds the paths of stages
// with FieldPath, which refuses an empty path with 40352 ("FieldPath
// cannot be constructed with empty string"), a trailing dot with 40353
// ("FieldPath must not end with a '.'."), and an empty component with
// 15998 ("FieldPath field names may not be empty strings.")
// (src/mongo/db/pipeline/field_path.cpp); a field path expression that is
// "$" alone is 16872 (ExpressionFieldPath::parse, expression.cpp). Read
// also in FerretDB's integration tests, which record the real server's
// answers ($unset "v..foo" 15998, "v." 40353, ".v" 15998, "" 40352;
// {$expr: "$"} 16872), and mongo-java-server's ($group _id "$a." 40353,
// "$a..1" 15998). ttlkv answers 2 BadValue for the dots and "$", and
// 16410 for "".
func TestReviewStages26FieldPathCodes(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "a": {"b": 1}}]`
	for _, c := range []struct {
		pipeline string
		code     int
	}{
		{`[{"$group": {"_id": "$a."}}]`, 40353},
		{`[{"$group": {"_id": "$a..b"}}]`, 15998},
		{`[{"$unset": "a..b"}]`, 15998},
		{`[{"$unset": "a."}]`, 40353},
		{`[{"$unset": ".a"}]`, 15998},
		{`[{"$unset": ""}]`, 40352},
		{`[{"$project": {"a..b": 1}}]`, 15998},
		{`[{"$project": {"": 1}}]`, 40352},
		{`[{"$project": {"x": "$a."}}]`, 40353},
		{`[{"$project": {"x": "$"}}]`, 16872},
		{`[{"$addFields": {"a.": 1}}]`, 40353},
		{`[{"$unwind": "$a..b"}]`, 15998},
		{`[{"$sortByCount": "$"}]`, 16872},
	} {
		stages26Code(t, doc, c.pipeline, c.code)
	}
}

// TestReviewStages26SumDecimalKeepsDoubleDigits: when a $sum or $avg
// meets a decimal, mongod adds the doubles' DoubleDoubleSummation to the
// decimal total through DoubleDoubleSummation::getDecimal, which converts
// with Decimal128::kRoundTo34Digits (src/mongo/util/summation.h;
// accumulator_sum.cpp getValue, case NumberDecimal:
// decimalTotal.add(nonDecimalTotal.getDecimal())). The double 0.2 is
// 0.2000000000000000111022302462515654 to 34 digits, so NumberDecimal
// 0.1 plus the double 0.2 is 0.3000000000000000111022302462515654 (and
// their average half of it). ttlkv rounds the double to 15 digits first
// and answers 0.300000000000000 (0.150000000000000). Compared by value.
func TestReviewStages26SumDecimalKeepsDoubleDigits(t *testing.T) {
	t.Parallel()
	stages26Same(t, `[{"_id": 1, "a": {"$numberDecimal": "0.1"}}, {"_id": 2, "a": 0.2}]`,
		`[{"$group": {"_id": null, "s": {"$sum": "$a"}, "v": {"$avg": "$a"}}},
		  {"$project": {"_id": 0,
		    "s": {"$eq": ["$s", {"$numberDecimal": "0.3000000000000000111022302462515654"}]},
		    "v": {"$eq": ["$v", {"$numberDecimal": "0.1500000000000000055511151231257827"}]}}}]`,
		`[{"s": true, "v": true}]`)
}
