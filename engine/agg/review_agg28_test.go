package agg

import (
	"strings"
	"testing"
)

// Review 28 (stages): places where a MongoDB user got a different answer
// from ttlkv than from mongod 7.0, fixed since, and cases ported from
// mongod's jstests that ttlkv already answered as mongod does. Each test
// says what mongod does and where that was read.

// agg28Err runs pipeline over docs and reports when the error is not
// code with a message containing msg.
func agg28Err(t *testing.T, docs, pipeline string, code int, msg string) {
	t.Helper()
	out, err := run(t, docs, pipeline, Options{})
	if got := codeOf(err); got != code {
		t.Errorf("%s: code %d (%v, %v), want %d", pipeline, got, err, out, code)
		return
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: message %q, want it to contain %q", pipeline, err.Error(), msg)
	}
}

// TestReviewAgg28UnwindPreservedEmptyArray: mongod's $unwind with
// preserveNullAndEmptyArrays passes a document whose array is empty on
// without that field (jstests/aggregation/sources/unwind/
// unwind_preserve_null_and_empty_arrays.js: {_id: 0, x: []} comes out as
// {_id: 0}), while null stays null and a missing field stays missing.
// ttlkv kept x: [].
func TestReviewAgg28UnwindPreservedEmptyArray(t *testing.T) {
	t.Parallel()
	stages26Same(t, `[{"_id": 0, "x": []}, {"_id": 1, "x": null}, {"_id": 2}]`,
		`[{"$unwind": {"path": "$x", "preserveNullAndEmptyArrays": true}}]`,
		`[{"_id": 0}, {"_id": 1, "x": null}, {"_id": 2}]`)
	stages26Same(t, `[{"_id": 0, "a": {"x": [], "y": 1}}]`,
		`[{"$unwind": {"path": "$a.x", "preserveNullAndEmptyArrays": true, "includeArrayIndex": "i"}}]`,
		`[{"_id": 0, "a": {"y": 1}, "i": null}]`)
	stages26Same(t, `[{"_id": 0, "x": []}]`, `[{"$unwind": "$x"}]`, `[]`)
	// unwind_include_array_index.js, its last case.
	stages26Same(t, `[{"_id": 0}, {"_id": 1, "x": null}, {"_id": 2, "x": []}, {"_id": 3, "x": [1, 2, 3]}, {"_id": 4, "x": 5}]`,
		`[{"$unwind": {"path": "$x", "includeArrayIndex": "index", "preserveNullAndEmptyArrays": true}}]`,
		`[{"_id": 0, "index": null}, {"_id": 1, "x": null, "index": null}, {"_id": 2, "index": null}, {"_id": 3, "x": 1, "index": {"$numberLong": "0"}}, {"_id": 3, "x": 2, "index": {"$numberLong": "1"}}, {"_id": 3, "x": 3, "index": {"$numberLong": "2"}}, {"_id": 4, "x": 5, "index": null}]`)
}

// TestReviewAgg28UnwindValues: mongod's $unwind passes a value that is
// not an array on as it is (with a null includeArrayIndex) and drops
// null, missing and empty arrays unless preserved; a path through an
// array of documents does not reach into it (Document::getNestedField).
// ttlkv already did this.
func TestReviewAgg28UnwindValues(t *testing.T) {
	t.Parallel()
	docs := `[{"_id": 1, "a": 1}, {"_id": 2, "a": null}, {"_id": 3}, {"_id": 4, "a": [1, 2]}, {"_id": 5, "a": [[1]]}, {"_id": 6, "a": {"b": 1}}]`
	stages26Same(t, docs, `[{"$unwind": {"path": "$a", "includeArrayIndex": "i"}}]`,
		`[{"_id": 1, "a": 1, "i": null}, {"_id": 4, "a": 1, "i": {"$numberLong": "0"}}, {"_id": 4, "a": 2, "i": {"$numberLong": "1"}}, {"_id": 5, "a": [1], "i": {"$numberLong": "0"}}, {"_id": 6, "a": {"b": 1}, "i": null}]`)
	stages26Same(t, `[{"_id": 1, "x": [{"y": 1}, {"y": 2}]}]`, `[{"$unwind": "$x.y"}]`, `[]`)
	agg28Err(t, docs, `[{"$unwind": "a"}]`, 28818, "path option to $unwind stage should be prefixed with a '$'")
	agg28Err(t, docs, `[{"$unwind": {"path": "$a", "includeArrayIndex": ""}}]`, 28810, "")
	agg28Err(t, docs, `[{"$unwind": {"path": "$a", "preserveNullAndEmptyArrays": 1}}]`, 28809, "")
	agg28Err(t, docs, `[{"$unwind": {"path": "$a", "bogus": 1}}]`, 28811, "unrecognized option to $unwind stage")
	agg28Err(t, docs, `[{"$unwind": {}}]`, 28812, "no path specified to $unwind stage")
}

// TestReviewAgg28CountNames: mongod's $count (document_source_count.cpp)
// says "the count field must be a non-empty string" for a value that is
// not a string (40156) as for "" (40157), refuses a name with a NUL byte
// with 40159, and becomes {$group: {_id: null, <name>: {$sum: 1}}}, so the
// name _id is a $group that gives _id twice: 15948 "a group's _id may only
// be specified once". ttlkv said "the count field must be a string",
// took the NUL and counted into _id.
func TestReviewAgg28CountNames(t *testing.T) {
	t.Parallel()
	docs := `[{"_id": 1}]`
	agg28Err(t, docs, `[{"$count": 1}]`, 40156, "the count field must be a non-empty string")
	agg28Err(t, docs, `[{"$count": "a\u0000b"}]`, 40159, "the count field cannot contain a null byte")
	agg28Err(t, docs, `[{"$count": "_id"}]`, 15948, "a group's _id may only be specified once")
	stages26Same(t, docs, `[{"$match": {"_id": 2}}, {"$count": "n"}]`, `[]`)
}

// TestReviewAgg28LookupSpecErrors: mongod reads a $lookup's spec first
// with DocumentSourceLookUp::LiteParsed::parse (document_source_lookup.cpp):
// "the $lookup stage specification must be an object, but found <type>",
// "$lookup 'from' field must be a string, but found <type>", the
// {db, coll} form of from only for a few internal collections ("$lookup
// with syntax {from: {db:<>, coll:<>},..} is not supported for db: ..."),
// no from only with a pipeline ("must specify 'pipeline' when 'from' is
// empty") that starts with $documents, all 9 FailedToParse; and the
// pipeline with parsePipelineFromBSON: 14 TypeMismatch "'pipeline' option
// must be specified as an array". ttlkv had its own words for these and
// 9 for the pipeline.
func TestReviewAgg28LookupSpecErrors(t *testing.T) {
	t.Parallel()
	docs := `[{"_id": 1}]`
	agg28Err(t, docs, `[{"$lookup": "f"}]`, 9, "the $lookup stage specification must be an object, but found string")
	agg28Err(t, docs, `[{"$lookup": {"from": 1, "localField": "a", "foreignField": "b", "as": "m"}}]`, 9, "$lookup 'from' field must be a string, but found int")
	agg28Err(t, docs, `[{"$lookup": {"localField": 1, "from": 1, "foreignField": "b", "as": "m"}}]`, 9, "$lookup 'from' field must be a string, but found int")
	agg28Err(t, docs, `[{"$lookup": {"from": {"db": "other", "coll": "o"}, "pipeline": [], "as": "m"}}]`, 9, "$lookup with syntax {from: {db:<>, coll:<>},..} is not supported for db: other and coll: o")
	agg28Err(t, docs, `[{"$lookup": {"localField": "a", "foreignField": "b", "as": "m"}}]`, 9, "must specify 'pipeline' when 'from' is empty")
	agg28Err(t, docs, `[{"$lookup": {"pipeline": [{"$limit": 1}], "as": "m"}}]`, 9, "$lookup stage without explicit collection must have a pipeline with $documents as first stage")
	agg28Err(t, docs, `[{"$lookup": {"from": "f", "pipeline": {}, "as": "m"}}]`, 14, "'pipeline' option must be specified as an array")
	agg28Err(t, docs, `[{"$lookup": {"from": "f", "pipeline": [1], "as": "m"}}]`, 14, "Each element of the 'pipeline' array must be an object")
	// Already as mongod's createFromBson.
	agg28Err(t, docs, `[{"$lookup": {"from": "f", "localField": "a", "foreignField": "b"}}]`, 9, "must specify 'as' field for a $lookup")
	agg28Err(t, docs, `[{"$lookup": {"from": "f", "localField": "a", "as": "m"}}]`, 9, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified")
	agg28Err(t, docs, `[{"$lookup": {"from": "f", "localField": "a", "pipeline": [], "as": "m"}}]`, 9, "$lookup requires both or neither of 'localField' and 'foreignField' to be specified")
	agg28Err(t, docs, `[{"$lookup": {"from": "f", "localField": "a", "foreignField": "b", "let": {"v": 1}, "as": "m"}}]`, 9, "$lookup with a 'let' argument must also specify 'pipeline'")
	agg28Err(t, docs, `[{"$lookup": {"from": "f", "localField": "a", "foreignField": "b", "as": "m", "bogus": "x"}}]`, 9, "unknown argument to $lookup: bogus")
	agg28Err(t, docs, `[{"$lookup": {"from": "f", "pipeline": [{"$out": "x"}], "as": "m"}}]`, 51047, "$out is not allowed within a $lookup's sub-pipeline")
	agg28Err(t, docs, `[{"$lookup": {"from": "f", "pipeline": [], "as": "m", "let": {"V": 1}}}]`, 16867, "")
}

// TestReviewAgg28LookupDocumentsJoin: mongod's $lookup without from
// takes localField/foreignField with a pipeline that starts with
// $documents: the join's match runs on the documents $documents makes,
// before the rest of the pipeline (jstests/aggregation/sources/
// documents.js, "no coll, + localField/foreignField";
// DocumentSourceLookUp puts the $match after the source stage). ttlkv
// refused it with "must specify 'from' field for a $lookup".
func TestReviewAgg28LookupDocumentsJoin(t *testing.T) {
	t.Parallel()
	docs := `[{"id_name": 0}, {"id_name": 1}, {"id_name": 2}, {"id_name": [2, 3]}, {}]`
	stages26Same(t, docs,
		`[{"$lookup": {"localField": "id_name", "foreignField": "xx", "pipeline": [{"$documents": [{"xx": 1}, {"xx": 2}, {"xx": null}]}], "as": "names"}}]`,
		`[{"id_name": 0, "names": []}, {"id_name": 1, "names": [{"xx": 1}]}, {"id_name": 2, "names": [{"xx": 2}]}, {"id_name": [2, 3], "names": [{"xx": 2}]}, {"names": [{"xx": null}]}]`)
	// The rest of the pipeline runs on the matched documents only.
	stages26Same(t, `[{"k": 1}]`,
		`[{"$lookup": {"localField": "k", "foreignField": "xx", "let": {"v": "$k"}, "pipeline": [{"$documents": [{"xx": 1}, {"xx": 2}, {"xx": 1, "y": 2}]}, {"$count": "n"}, {"$set": {"v": "$$v"}}], "as": "m"}}]`,
		`[{"k": 1, "m": [{"n": 2, "v": 1}]}]`)
}

// TestReviewAgg28ExpMovingAvgInDecimal: mongod's $expMovingAvg takes
// every number as a decimal (coerceToDecimal: a double to 15 digits),
// computes value*alpha + result*(1-alpha) in Decimal128 and answers the
// double nearest that decimal unless an input was a decimal
// (accumulator_exp_moving_avg.cpp, getValue: _currentResult.toDouble()).
// With N = 2 (alpha = 2/3 to 34 digits) over 1, 2, 3 the decimals are
// 1, 1.666…667 and 2.555…556, so mongod answers 1.6666666666666667 and
// 2.5555555555555554, and with alpha 0.3 over the same numbers 1.3 and
// 1.81; ttlkv computed in doubles and answered 1.6666666666666665,
// 1.2999999999999998 and 1.8099999999999996.
func TestReviewAgg28ExpMovingAvgInDecimal(t *testing.T) {
	t.Parallel()
	stages26Same(t, `[{"t": 1, "v": 1}, {"t": 2, "v": 2}, {"t": 3, "v": 3}, {"t": 4, "v": 0.1}]`,
		`[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"h": {"$expMovingAvg": {"input": "$v", "N": 2}}, "a": {"$expMovingAvg": {"input": "$v", "alpha": 0.3}}}}}, {"$project": {"_id": 0, "h": 1, "a": 1}}]`,
		`[{"h": 1.0, "a": 1.0}, {"h": 1.6666666666666667, "a": 1.3}, {"h": 2.5555555555555554, "a": 1.81}, {"h": 0.9185185185185185, "a": 1.297}]`)
}

// TestReviewAgg28GraphLookupErrors ports mongod's
// jstests/aggregation/sources/graphLookup/error.js: the codes of a bad
// $graphLookup spec.
func TestReviewAgg28GraphLookupErrors(t *testing.T) {
	t.Parallel()
	docs := `[{"b": 0}]`
	g := func(extra string) string {
		return `[{"$graphLookup": {"from": "foreign", "startWith": {"$literal": 0}, "connectToField": "a", "connectFromField": "b", "as": "output"` + extra + `}}]`
	}
	agg28Err(t, docs, `[{"$graphLookup": 4}]`, 9, "")
	agg28Err(t, docs, g(`, "maxDepth": "string"`), 40100, "maxDepth must be numeric")
	agg28Err(t, docs, g(`, "maxDepth": -1`), 40101, "maxDepth requires a nonnegative argument")
	agg28Err(t, docs, g(`, "maxDepth": 2.3`), 40102, "maxDepth could not be represented as a long long")
	agg28Err(t, docs, g(`, "depthField": 0`), 40103, "")
	agg28Err(t, docs, g(`, "depthField": "$depth"`), 16410, "")
	agg28Err(t, docs, g(`, "restrictSearchWithMatch": "notamatch"`), 40185, "")
	agg28Err(t, docs, g(`, "notAField": "foo"`), 40104, "")
	agg28Err(t, docs, `[{"$graphLookup": {"from": -1, "startWith": {"$literal": 0}, "connectToField": "a", "connectFromField": "b", "as": "output"}}]`, 9, "")
	agg28Err(t, docs, `[{"$graphLookup": {"from": "foreign", "startWith": {"$literal": 0}, "connectToField": "a", "connectFromField": "b", "as": 0}}]`, 40103, "")
	agg28Err(t, docs, `[{"$graphLookup": {"from": "foreign", "startWith": {"$literal": 0}, "connectToField": "a", "connectFromField": "b", "as": "$output"}}]`, 16410, "")
	agg28Err(t, docs, `[{"$graphLookup": {"from": "foreign", "startWith": {"$literal": 0}, "connectToField": "a", "connectFromField": 0, "as": "output"}}]`, 40103, "")
	agg28Err(t, docs, `[{"$graphLookup": {"from": "foreign", "startWith": {"$literal": 0}, "connectToField": "$a", "connectFromField": "b", "as": "output"}}]`, 16410, "")
	agg28Err(t, docs, `[{"$graphLookup": {"from": "foreign", "startWith": {"$literal": 0}, "connectFromField": "b", "as": "output"}}]`, 40105, "")
	agg28Err(t, docs, `[{"$graphLookup": {"from": "foreign", "startWith": {"$literal": 0}, "connectToField": "a", "as": "output"}}]`, 40105, "")
	agg28Err(t, docs, `[{"$graphLookup": {"from": "foreign", "connectToField": "a", "connectFromField": "b", "as": "output"}}]`, 40105, "")
	agg28Err(t, docs, `[{"$graphLookup": {"from": "foreign", "startWith": {"$literal": 0}, "connectToField": "a", "connectFromField": "b"}}]`, 40105, "")
	agg28Err(t, docs, `[{"$graphLookup": {"startWith": {"$literal": 0}, "connectToField": "a", "connectFromField": "b", "as": "output"}}]`, 9, "")
	for _, m := range []string{`{"$not": {"a": 1}}`, `{"$where": "3 > 2"}`, `{"$text": {"$search": "some text"}}`,
		`{"x": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$maxDistance": 100}}}`,
		`{"$and": [{"x": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$maxDistance": 100}}}]}`,
		`{"$expr": {"$eq": ["$x", "$$unbound"]}}`} {
		if _, err := run(t, docs, g(`, "restrictSearchWithMatch": `+m), Options{}); err == nil {
			t.Errorf("restrictSearchWithMatch %s: no error", m)
		}
	}
}

// TestReviewAgg28WindowParse ports mongod's
// jstests/aggregation/sources/setWindowFields/parse.js: what
// $setWindowFields accepts, and the codes and messages of what it
// refuses. (Its $mergeObjects case is left out: ttlkv takes $mergeObjects
// as a window function, as mongod does from 8.3.) ttlkv already answered
// as mongod.
func TestReviewAgg28WindowParse(t *testing.T) {
	t.Parallel()
	swf := func(spec string) string { return `[{"$setWindowFields": ` + spec + `}]` }
	fn := func(spec string) string { return swf(`{"sortBy": {"ts": 1}, "output": {"v": ` + spec + `}}`) }
	agg28Err(t, `[]`, swf(`"invalid"`), 9, "")
	agg28Err(t, `[]`, swf(`{"sortBy": "invalid"}`), 14, "")
	agg28Err(t, `[]`, swf(`{"output": "invalid"}`), 14, "")
	agg28Err(t, `[]`, swf(`{"partitionBy": {"$notAnOperator": 1}, "output": {}}`), 168, "")
	agg28Err(t, `[]`, swf(`{"what_is_this": 1}`), 40415, "")
	agg28Err(t, `[]`, fn(`{"abcde": 1}`), 9, "")
	agg28Err(t, `[]`, fn(`{"$sum": "$a", "window": {"documents": [{"$const": "current"}, 3]}}`), 9, "Numeric document-based bounds must be an integer")
	for _, b := range []string{`{"documents": [1, -1]}`, `{"range": [1, -1]}`, `{"range": [1, -1], "unit": "day"}`,
		`{"documents": ["current", -1]}`, `{"range": ["current", -1]}`, `{"range": ["current", -1], "unit": "day"}`,
		`{"documents": [1, "current"]}`, `{"range": [1, "current"]}`, `{"range": [1, "current"], "unit": "day"}`} {
		agg28Err(t, `[]`, fn(`{"$sum": "$a", "window": `+b+`}`), 5339900, "Lower bound must not exceed upper bound")
	}
	agg28Err(t, `[]`, swf(`{"output": {"v": {"$sum": "$a", "window": {"documents": ["unbounded", "current"]}}}}`), 5339901, "Document-based bounds require a sortBy")
	for _, w := range []string{`{"range": ["unbounded", "unbounded"]}`, `{"range": ["unbounded", "current"]}`, `{"range": ["unbounded", "unbounded"], "unit": "second"}`, `{"range": ["unbounded", "current"], "unit": "second"}`} {
		agg28Err(t, `[]`, swf(`{"output": {"v": {"$sum": "$a", "window": `+w+`}}}`), 5339902, "Range-based bounds require sortBy a single field")
		agg28Err(t, `[]`, swf(`{"sortBy": {"a": 1, "b": 1}, "output": {"v": {"$sum": "$a", "window": `+w+`}}}`), 5339902, "Range-based bounds require sortBy a single field")
	}
	agg28Err(t, `[]`, swf(`{"output": {"a": {"b": {"$sum": "$a"}}}}`), 9, "Expected a $-prefixed window function, b")
	agg28Err(t, `[]`, swf(`{"output": {"total": {"sum": "$x", "window": {"documents": [-1, 1]}}}}`), 9, "Expected a $-prefixed window function, sum")
	agg28Err(t, `[]`, swf(`{"output": {"total": {}}}`), 9, "Expected a $-prefixed window function")
	agg28Err(t, `[]`, swf(`{"output": {"v": {"$accumulator": "$a"}}}`), 9, "Unrecognized window function, $accumulator")
	agg28Err(t, `[]`, swf(`{"output": {"total": {"$summ": "$x", "windoww": {"documents": ["unbounded", "current"]}}}}`), 9, "Unrecognized window function, $summ")
	agg28Err(t, `[]`, swf(`{"output": {"a": {"$sum": 1}, "a.b": {"$sum": 1}}}`), 6307900, "specification contains two conflicting paths")
	// What mongod accepts.
	for _, p := range []string{
		swf(`{"partitionBy": "$$NOW", "output": {}}`),
		swf(`{"partitionBy": "$state", "sortBy": {"city": 1}, "output": {"a": {"$sum": 1, "window": {"documents": ["unbounded", "current"]}}}}`),
		fn(`{"$sum": "$a"}`),
		fn(`{"$sum": "$a", "window": {"documents": ["unbounded", "unbounded"]}}`),
		fn(`{"$sum": "$a", "window": {"documents": [-2, 4]}}`),
		fn(`{"$sum": "$a", "window": {"documents": [-3, "unbounded"]}}`),
		fn(`{"$max": "$a", "window": {"documents": [-3, "unbounded"]}}`),
		fn(`{"$sum": "$a", "window": {"range": ["unbounded", "unbounded"]}}`),
		fn(`{"$sum": "$a", "window": {"range": [-2, 4]}}`),
		fn(`{"$sum": "$a", "window": {"range": [{"$numberDecimal": "1.42"}, {"$numberLong": "5"}]}}`),
		fn(`{"$sum": "$a", "window": {"range": [-3, "unbounded"], "unit": "hour"}}`),
		fn(`{"$sum": "$a", "window": {"documents": [{"$add": [2, 2]}, {"$add": [2, 2]}]}}`),
		fn(`{"$sum": "$a", "window": {"range": [{"$add": [2, 2]}, {"$add": [2, 2]}], "unit": "hour"}}`),
		swf(`{"output": {"v": {"$sum": "$a", "window": {"documents": ["unbounded", "unbounded"]}}}}`),
	} {
		if _, err := run(t, `[]`, p, Options{}); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	stages26Same(t, `[{"_id": 1}]`, swf(`{"output": {"v": {"$max": {"mergeObjects": {}}}}}`), `[{"_id": 1, "v": {"mergeObjects": {}}}]`)
}

// TestReviewAgg28ReplaceRootMessages: mongod's 40228 says what was to be
// an object ("'newRoot' expression " for $replaceRoot, "'replacement
// document' " for $replaceWith, each followed by mongod's own extra
// space) and prints the value and the input document with
// Value::toString ({_id: 1, a: [1, 2]}, strings in double quotes,
// MISSING for a missing value): document_source_replace_root.cpp,
// kErrorTemplate. Its spec object is read by the IDL parser: an unknown
// field is 40415, no newRoot 40414. $redact's 17053 and $mergeObjects'
// 40400 print the value the same way. ttlkv said "'newRoot' expression
// must…" for both stages, printed values in the shell's style
// ({ _id: 1, a: [ 1, 2 ] }) and answered 40231 for the spec.
func TestReviewAgg28ReplaceRootMessages(t *testing.T) {
	t.Parallel()
	docs := `[{"_id": 1, "a": [1, 2], "s": "x", "d": 1.5, "o": {"p": null}}]`
	agg28Err(t, docs, `[{"$replaceRoot": {"newRoot": "$a"}}]`, 40228,
		`'newRoot' expression  must evaluate to an object, but resulting value was: [1, 2]. Type of resulting value: 'array'. Input document: {_id: 1, a: [1, 2], s: "x", d: 1.5, o: {p: null}}`)
	agg28Err(t, docs, `[{"$replaceWith": "$s"}]`, 40228,
		`'replacement document'  must evaluate to an object, but resulting value was: "x". Type of resulting value: 'string'. Input document: {_id: 1, a: [1, 2], s: "x", d: 1.5, o: {p: null}}`)
	agg28Err(t, docs, `[{"$replaceWith": "$zz"}]`, 40228,
		`'replacement document'  must evaluate to an object, but resulting value was: MISSING. Type of resulting value: 'missing'.`)
	agg28Err(t, docs, `[{"$replaceRoot": {"newRoot": "$o", "x": 1}}]`, 40415, "BSON field '$replaceRoot.x' is an unknown field.")
	agg28Err(t, docs, `[{"$replaceRoot": {}}]`, 40414, "BSON field '$replaceRoot.newRoot' is missing but a required field")
	agg28Err(t, docs, `[{"$redact": "$d"}]`, 17053, "but returned 1.5")
	agg28Err(t, docs, `[{"$group": {"_id": null, "m": {"$mergeObjects": "$a"}}}]`, 40400, "$mergeObjects requires object inputs, but input [1, 2] is of type array")
	if got := valueString(val(t, `{"a": 100000000.0, "b": 0.1, "c": 2.0, "t": {"$date": "2020-01-02T03:04:05.006Z"}, "e": {}, "f": []}`)); got != `{a: 1e+08, b: 0.1, c: 2, t: 2020-01-02T03:04:05.006Z, e: {}, f: []}` {
		t.Errorf("valueString = %s", got)
	}
}

// TestReviewAgg28BucketAutoExtremeKeys: mongod rounds a subnormal key
// down to 0 under a granularity (granularity_near_zero.js, SERVER-57091:
// [{_id: {min: 0, max: 1.02e-321}, count: 1}] for R80). ttlkv's rounder
// divided its scale down to 0 and then never finished. An infinite key
// never finishes in mongod 7.0's rounders either; mongod 8.3 refuses it
// with 11785400 (bucket_auto_pow2_inf.js), and so does ttlkv now, for
// every granularity, where it hung (R5) or answered {min: 0, max: 0}
// (POWERSOF2).
func TestReviewAgg28BucketAutoExtremeKeys(t *testing.T) {
	t.Parallel()
	stages26Same(t, `[{"_id": 1}]`,
		`[{"$bucketAuto": {"groupBy": {"$reduce": {"input": [], "initialValue": 4.940656484124654e-324, "in": {"$size": ["$$value"]}}}, "buckets": {"$numberLong": "8"}, "granularity": "R80"}}]`,
		`[{"_id": {"min": 0.0, "max": 1.02e-321}, "count": 1}]`)
	for _, g := range []string{"POWERSOF2", "R5", "E192", "1-2-5"} {
		agg28Err(t, `[{"_id": 1}]`, `[{"$bucketAuto": {"groupBy": {"$add": [1e308, 1e308]}, "buckets": 2, "granularity": "`+g+`"}}]`, 11785400, "")
	}
}

// TestReviewAgg28UnsetPathCollision: mongod parses $unset as an exclusion
// $project, whose parser refuses a path under another one it already has
// (31249 "Path collision at a.b remaining portion b") and one it already
// has or that holds an earlier one (31250 "Path collision at a"),
// projection_parser.cpp as for $project. ttlkv took these $unsets.
func TestReviewAgg28UnsetPathCollision(t *testing.T) {
	t.Parallel()
	docs := `[{"_id": 1, "a": {"b": 1, "c": 2}}]`
	agg28Err(t, docs, `[{"$unset": ["a", "a.b"]}]`, 31249, "Invalid $unset :: caused by :: Path collision at a.b remaining portion b")
	agg28Err(t, docs, `[{"$unset": ["a.b", "a"]}]`, 31250, "Invalid $unset :: caused by :: Path collision at a")
	agg28Err(t, docs, `[{"$unset": ["a", "a"]}]`, 31250, "Invalid $unset :: caused by :: Path collision at a")
	stages26Same(t, docs, `[{"$unset": ["a.b", "a.c"]}]`, `[{"_id": 1, "a": {}}]`)
	stages26Same(t, docs, `[{"$unset": ["ab", "a"]}]`, `[{"_id": 1}]`)
}

// TestReviewAgg28FirstStageMessage: mongod's 40602 ends with a period
// for every stage ("… is only valid as the first stage in a pipeline.",
// Pipeline::ensureAllStagesAreInLegalPositions); ttlkv left it out for
// $documents.
func TestReviewAgg28FirstStageMessage(t *testing.T) {
	t.Parallel()
	agg28Err(t, `[]`, `[{"$limit": 1}, {"$documents": []}]`, 40602, "$documents is only valid as the first stage in a pipeline.")
	agg28Err(t, `[]`, `[{"$lookup": {"pipeline": [{"$documents": []}, {"$documents": []}], "as": "m"}}]`, 40602, "$documents is only valid as the first stage in a pipeline.")
	agg28Err(t, `[]`, `[{"$limit": 1}, {"$geoNear": {"near": [0, 0], "distanceField": "d"}}]`, 40602, "$geoNear is only valid as the first stage in a pipeline.")
}

// TestReviewAgg28SortByCountErrors: mongod's $sortByCount
// (document_source_sort_by_count.cpp) says "the sortByCount field must be
// defined as a $-prefixed path or an expression inside an object" for a
// string without '$' (40148) and for an object whose first field is not
// an operator (40147); only the first field is looked at, the expression
// parser refusing the rest (15983 for two operators). ttlkv had other
// words for both and answered 40147 for two operators.
func TestReviewAgg28SortByCountErrors(t *testing.T) {
	t.Parallel()
	docs := `[{"a": 1}]`
	const msg = "the sortByCount field must be defined as a $-prefixed path or an expression inside an object"
	agg28Err(t, docs, `[{"$sortByCount": "a"}]`, 40148, msg)
	agg28Err(t, docs, `[{"$sortByCount": ""}]`, 40148, msg)
	agg28Err(t, docs, `[{"$sortByCount": {"a": 1}}]`, 40147, msg)
	agg28Err(t, docs, `[{"$sortByCount": {}}]`, 40147, msg)
	agg28Err(t, docs, `[{"$sortByCount": {"$abs": "$a", "$ceil": "$a"}}]`, 15983, "")
	agg28Err(t, docs, `[{"$sortByCount": 1}]`, 40149, "the sortByCount field must be specified as a string or as an object")
	stages26Same(t, `[{"a": 1}, {"a": 2}, {"a": 2}]`, `[{"$sortByCount": "$a"}]`, `[{"_id": 2, "count": 2}, {"_id": 1, "count": 1}]`)
}
