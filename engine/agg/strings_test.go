package agg

import (
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// stringsDoc is the document the string operators' tests run over.
const stringsDoc = `[{"_id": 1, "s": "cafétéria", "e": "Simple Example ", "a": "aaaaa aaaa", "l": "aaa aa",
	"n": null, "o": {"x": 1}, "arr": ["x"], "lines": "Foo line1\nFoo line2\nFoo line3",
	"p": "(m(p))", "re": {"$regularExpression": {"pattern": "(T(e))xt$", "options": ""}},
	"rei": {"$regularExpression": {"pattern": "camel", "options": "i"}}, "bad": "[0-9"}]`

// TestStringBytesAndCodePoints checks $strLenBytes, $substrBytes (and
// $substr), $substrCP, $indexOfBytes, $indexOfCP and $strcasecmp
// against mongod's rules: bytes against code points, null and missing,
// the coercion of numbers to strings, the ranges that would cut a UTF-8
// character, and each refusal with mongod's code.
func TestStringBytesAndCodePoints(t *testing.T) {
	t.Parallel()
	checkExprs(t, stringsDoc, []exprCase{
		{`{"$strLenBytes": "$s"}`, `11`},
		{`{"$strLenBytes": ["€"]}`, `3`},
		{`{"$strLenBytes": ""}`, `0`},
		{`{"$strLenCP": "$s"}`, `9`},

		{`{"$substrBytes": ["hello", 1, 3]}`, `"ell"`},
		{`{"$substrBytes": ["hello", 1, -1]}`, `"ello"`},
		{`{"$substrBytes": ["hello", 9, 2]}`, `""`},
		{`{"$substrBytes": ["hello", 2, {"$numberLong": "9000000000000000000"}]}`, `"llo"`},
		{`{"$substrBytes": ["hello", 1.9, 2.9]}`, `"el"`},
		{`{"$substrBytes": ["$s", 3, 2]}`, `"é"`},
		{`{"$substr": ["$s", 0, 3]}`, `"caf"`},
		{`{"$substrBytes": [12345, 1, 3]}`, `"234"`},
		{`{"$substrBytes": [1.5, 0, 10]}`, `"1.5"`},
		{`{"$substrBytes": [0.1234567, 0, 10]}`, `"0.123457"`},
		{`{"$substrBytes": [{"$date": "2021-01-02T03:04:05.006Z"}, 0, 10]}`, `"2021-01-02"`},
		{`{"$substrBytes": ["$n", 0, 1]}`, `""`},
		{`{"$substrBytes": ["$nosuch", 0, 1]}`, `""`},

		{`{"$substrCP": ["$s", 3, 3]}`, `"été"`},
		{`{"$substrCP": ["$s", 9, 1]}`, `""`},
		{`{"$substrCP": ["$s", 5, 100]}`, `"éria"`},
		{`{"$substrCP": ["$s", 0, 0]}`, `""`},
		{`{"$substrCP": ["$s", 1.0, {"$numberDecimal": "2"}]}`, `"af"`},
		{`{"$substrCP": ["$n", 0, 1]}`, `""`},

		{`{"$indexOfBytes": ["$s", "t"]}`, `5`},
		{`{"$indexOfBytes": ["$s", "é", 4]}`, `6`},
		{`{"$indexOfBytes": ["$s", "é", 4, 7]}`, `-1`},
		{`{"$indexOfBytes": ["$s", "é", 4, 100]}`, `6`},
		{`{"$indexOfBytes": ["$s", "z"]}`, `-1`},
		{`{"$indexOfBytes": ["$s", "", 3]}`, `3`},
		{`{"$indexOfBytes": ["$s", "", 30]}`, `-1`},
		{`{"$indexOfBytes": ["$s", "a", 5, 2]}`, `-1`},
		{`{"$indexOfBytes": ["$n", "a"]}`, `null`},
		{`{"$indexOfBytes": ["$nosuch", 5]}`, `null`},

		{`{"$indexOfCP": ["$s", "t"]}`, `4`},
		{`{"$indexOfCP": ["$s", "é", 4]}`, `5`},
		{`{"$indexOfCP": ["$s", "é", 4, 5]}`, `-1`},
		{`{"$indexOfCP": ["$s", "é", {"$numberLong": "4"}, 6.0]}`, `5`},
		{`{"$indexOfCP": ["$s", "a", 20]}`, `-1`},
		{`{"$indexOfCP": ["", "", 5]}`, `-1`}, // a start past the end finds nothing (SERVER-56819)
		{`{"$indexOfCP": ["$n", "a"]}`, `null`},

		{`{"$strcasecmp": ["abc", "ABC"]}`, `0`},
		{`{"$strcasecmp": ["a", "B"]}`, `-1`},
		{`{"$strcasecmp": ["b", "A"]}`, `1`},
		{`{"$strcasecmp": ["é", "É"]}`, `1`},
		{`{"$strcasecmp": ["$n", ""]}`, `0`},
		{`{"$strcasecmp": ["$nosuch", "$n"]}`, `0`},
		{`{"$strcasecmp": [1.5, "1.5"]}`, `0`},
		{`{"$strcasecmp": [{"$numberLong": "10"}, "9"]}`, `-1`},
	})
	checkExprCodes(t, stringsDoc, []exprCode{
		{`{"$strLenBytes": "$nosuch"}`, 34473},
		{`{"$strLenBytes": 5}`, 34473},
		{`{"$strLenBytes": ["a", "b"]}`, 16020},

		{`{"$substrBytes": ["a", 0]}`, 16020},
		{`{"$substr": ["a", 0]}`, 16020},
		{`{"$substrBytes": ["$o", 0, 1]}`, 16007},
		{`{"$substrBytes": ["$arr", 0, 1]}`, 16007},
		{`{"$toUpper": true}`, 16007},
		{`{"$toLower": "$arr"}`, 16007},
		{`{"$substrBytes": ["a", true, 1]}`, 16034}, // a decimal is a number (Value::numeric)
		{`{"$substrBytes": ["a", "$nosuch", 1]}`, 16034},
		{`{"$substrBytes": ["a", 0, "1"]}`, 16035},
		{`{"$substrBytes": ["a", {"$numberDouble": "NaN"}, 1]}`, 31109},
		{`{"$substrBytes": ["a", 0, 1e300]}`, 31109},
		{`{"$substrBytes": ["a", -1, 1]}`, 50752},
		{`{"$substrBytes": ["$s", 4, 1]}`, 28656},
		{`{"$substrBytes": ["$s", 3, 1]}`, 28657},

		{`{"$substrCP": ["a", "0", 1]}`, 34450},
		{`{"$substrCP": ["a", 0.5, 1]}`, 34451},
		{`{"$substrCP": ["a", 3000000000, 1]}`, 34451},
		{`{"$substrCP": ["a", 0, null]}`, 34452},
		{`{"$substrCP": ["a", 0, 1.5]}`, 34453},
		{`{"$substrCP": ["a", 0, -1]}`, 34454},
		{`{"$substrCP": ["a", -1, 1]}`, 34455},
		{`{"$substrCP": [{"x": 1}, 0, 1]}`, 16007},

		{`{"$indexOfBytes": ["a"]}`, 28667},
		{`{"$indexOfBytes": ["a", "b", 0, 1, 2]}`, 28667},
		{`{"$indexOfBytes": [5, "a"]}`, 40091},
		{`{"$indexOfBytes": ["a", 5]}`, 40092},
		{`{"$indexOfBytes": ["a", "$n"]}`, 40092},
		{`{"$indexOfBytes": ["a", "a", 0.5]}`, 40096},
		{`{"$indexOfBytes": ["a", "a", "0"]}`, 40096},
		{`{"$indexOfBytes": ["a", "a", -1]}`, 40097},
		{`{"$indexOfBytes": ["a", "a", 0, -1]}`, 40097},
		{`{"$indexOfCP": [5, "a"]}`, 40093},
		{`{"$indexOfCP": ["a", ["a"]]}`, 40094},
		{`{"$indexOfCP": ["a", "a", 0, 1.5]}`, 40096},
		{`{"$indexOfArray": [[1], 1, -1]}`, 40097},

		{`{"$strcasecmp": ["a"]}`, 16020},
		{`{"$strcasecmp": ["a", {"x": 1}]}`, 16007},
	})
	// $indexOfCP reads the whole string as UTF-8 first: a stray
	// continuation byte is 40095 (JSON cannot carry one).
	if _, err := opIndexOfCP([]any{"a\x80b", "b"}); codeOf(err) != 40095 {
		t.Errorf("$indexOfCP over bad UTF-8: %v, want 40095", err)
	}
	if _, err := opSubstrCP([]any{"a\x80b", int32(2), int32(1)}); codeOf(err) != 34456 {
		t.Errorf("$substrCP to its start over a continuation byte: %v, want 34456", err)
	}
	if _, err := opSubstrCP([]any{"a\x80b", int32(1), int32(1)}); codeOf(err) != 34458 {
		t.Errorf("$substrCP from a continuation byte: %v, want 34458", err)
	}
	if _, err := opSubstrCP([]any{"a\xf8bcde", int32(0), int32(2)}); codeOf(err) != 34459 {
		t.Errorf("$substrCP over a 5-byte lead: %v, want 34459", err)
	}
	if got, err := opIndexOfCP([]any{"a\xe2", "z", int32(0)}); err != nil || got != int32(-1) {
		t.Errorf("$indexOfCP over a cut character = %v, %v; want -1", got, err)
	}
}

// TestRegexOperators checks $regexMatch, $regexFind and $regexFindAll
// against mongod's results (jstests/aggregation/expressions/regex.js):
// the {match, idx, captures} documents with idx in code points, matches
// that do not overlap, empty matches one code point apart, a search
// that goes on with what precedes it in view (^, \b), regular
// expressions given as strings, BSON regular expressions and fields,
// and the refusals with mongod's codes.
func TestRegexOperators(t *testing.T) {
	t.Parallel()
	all := func(input, regex string) string {
		return `{"$regexFindAll": {"input": ` + input + `, "regex": ` + regex + `}}`
	}
	checkExprs(t, stringsDoc, []exprCase{
		{all(`"$e"`, `"(m(p))"`), `[{"match": "mp", "idx": 2, "captures": ["mp", "p"]}, {"match": "mp", "idx": 10, "captures": ["mp", "p"]}]`},
		{all(`"$e"`, `{"$regularExpression": {"pattern": "(m(p))", "options": ""}}`), `[{"match": "mp", "idx": 2, "captures": ["mp", "p"]}, {"match": "mp", "idx": 10, "captures": ["mp", "p"]}]`},
		{all(`"$e"`, `"$p"`), `[{"match": "mp", "idx": 2, "captures": ["mp", "p"]}, {"match": "mp", "idx": 10, "captures": ["mp", "p"]}]`},
		{all(`"OtherText"`, `"$re"`), `[{"match": "Text", "idx": 5, "captures": ["Te", "e"]}]`},
		{all(`"$a"`, `"(aa)"`), `[{"match": "aa", "idx": 0, "captures": ["aa"]}, {"match": "aa", "idx": 2, "captures": ["aa"]}, {"match": "aa", "idx": 6, "captures": ["aa"]}, {"match": "aa", "idx": 8, "captures": ["aa"]}]`},
		{all(`"$a"`, `"(a)+"`), `[{"match": "aaaaa", "idx": 0, "captures": ["a"]}, {"match": "aaaa", "idx": 6, "captures": ["a"]}]`},
		{all(`"$l"`, `"(a+?)"`), `[{"match": "a", "idx": 0, "captures": ["a"]}, {"match": "a", "idx": 1, "captures": ["a"]}, {"match": "a", "idx": 2, "captures": ["a"]}, {"match": "a", "idx": 4, "captures": ["a"]}, {"match": "a", "idx": 5, "captures": ["a"]}]`},
		// Empty matches: one at each code point, none at the very end.
		{all(`"$l"`, `"(a*?)"`), `[{"match": "", "idx": 0, "captures": [""]}, {"match": "", "idx": 1, "captures": [""]}, {"match": "", "idx": 2, "captures": [""]}, {"match": "", "idx": 3, "captures": [""]}, {"match": "", "idx": 4, "captures": [""]}, {"match": "", "idx": 5, "captures": [""]}]`},
		{all(`"bbbb"`, `"()"`), `[{"match": "", "idx": 0, "captures": [""]}, {"match": "", "idx": 1, "captures": [""]}, {"match": "", "idx": 2, "captures": [""]}, {"match": "", "idx": 3, "captures": [""]}]`},
		{all(`""`, `""`), `[{"match": "", "idx": 0, "captures": []}]`},
		// An empty match right after a match counts (Go's own FindAll
		// would skip it, and find one at the end instead).
		{all(`"baab"`, `"a*"`), `[{"match": "", "idx": 0, "captures": []}, {"match": "aa", "idx": 1, "captures": []}, {"match": "", "idx": 3, "captures": []}]`},
		{all(`"ab"`, `{"$literal": "$"}`), `[{"match": "", "idx": 2, "captures": []}]`},
		// The search from a position still sees what precedes it.
		{all(`"aaa"`, `"^a"`), `[{"match": "a", "idx": 0, "captures": []}]`},
		{all(`"ab ab"`, `"\\bb"`), `[]`},
		{all(`"ab ab"`, `"b\\b"`), `[{"match": "b", "idx": 1, "captures": []}, {"match": "b", "idx": 4, "captures": []}]`},
		{all(`"$lines"`, `{"$regularExpression": {"pattern": "(^Foo line\\d$)", "options": "m"}}`), `[{"match": "Foo line1", "idx": 0, "captures": ["Foo line1"]}, {"match": "Foo line2", "idx": 10, "captures": ["Foo line2"]}, {"match": "Foo line3", "idx": 20, "captures": ["Foo line3"]}]`},
		{all(`"$lines"`, `"^Foo line\\d$"`), `[]`},
		// Code points, not bytes.
		{all(`"$s"`, `"té"`), `[{"match": "té", "idx": 4, "captures": []}]`},
		{all(`"$s"`, `"é"`), `[{"match": "é", "idx": 3, "captures": []}, {"match": "é", "idx": 5, "captures": []}]`},
		{all(`"मा०गो डीबि"`, `"(गो )"`), `[{"match": "गो ", "idx": 3, "captures": ["गो "]}]`},
		// A group that took no part is null.
		{all(`"ab"`, `"(a)|(b)"`), `[{"match": "a", "idx": 0, "captures": ["a", null]}, {"match": "b", "idx": 1, "captures": [null, "b"]}]`},
		{all(`"$e"`, `null`), `[]`},
		{all(`"$nosuch"`, `"a"`), `[]`},
		{all(`"$n"`, `"a"`), `[]`},

		{`{"$regexFind": {"input": "$e", "regex": "(m(p))"}}`, `{"match": "mp", "idx": 2, "captures": ["mp", "p"]}`},
		{`{"$regexFind": {"input": "$s", "regex": "(r)(i)"}}`, `{"match": "ri", "idx": 6, "captures": ["r", "i"]}`},
		{`{"$regexFind": {"input": "This Is Camel Case", "regex": "camel"}}`, `null`},
		{`{"$regexFind": {"input": "This Is Camel Case", "regex": "camel", "options": "i"}}`, `{"match": "Camel", "idx": 8, "captures": []}`},
		{`{"$regexFind": {"input": "This Is Camel Case", "regex": "$rei"}}`, `{"match": "Camel", "idx": 8, "captures": []}`},
		{`{"$regexFind": {"input": "$lines", "regex": "Foo.*line", "options": "s"}}`, `{"match": "Foo line1\nFoo line2\nFoo line", "idx": 0, "captures": []}`},
		{`{"$regexFind": {"input": "$lines", "regex": "F o o # a comment", "options": "x"}}`, `{"match": "Foo", "idx": 0, "captures": []}`},
		{`{"$regexFind": {"input": "$lines", "regex": "(F o o) # a comment", "options": "xx"}}`, `{"match": "Foo", "idx": 0, "captures": ["Foo"]}`},
		{`{"$regexFind": {"input": "$e", "regex": "$n"}}`, `null`},
		{`{"$regexFind": {"input": "$n", "regex": "a"}}`, `null`},

		{`{"$regexMatch": {"input": "$e", "regex": "ple Ex"}}`, `true`},
		{`{"$regexMatch": {"input": "$e", "regex": "^Example"}}`, `false`},
		{`{"$regexMatch": {"input": "$e", "regex": {"$regularExpression": {"pattern": "SIMPLE", "options": "i"}}}}`, `true`},
		{`{"$regexMatch": {"input": "$e", "regex": {"$regularExpression": {"pattern": "SIMPLE", "options": ""}}, "options": "iu"}}`, `true`},
		{`{"$regexMatch": {"input": "$nosuch", "regex": "a"}}`, `false`},
		{`{"$regexMatch": {"input": "$e", "regex": null}}`, `false`},
		{`{"$regexMatch": {"input": "$e", "regex": "$nosuch", "options": "$nosuch"}}`, `false`},
	})
	checkExprCodes(t, stringsDoc, []exprCode{
		{`{"$regexMatch": "a"}`, 51103},
		{`{"$regexFind": null}`, 51103},
		{`{"$regexFindAll": {"regex": "a"}}`, 31022},
		{`{"$regexMatch": {"input": "a"}}`, 31023},
		{`{"$regexMatch": {"input": "a", "regex": "a", "flags": "i"}}`, 31024},
		{`{"$regexMatch": {"input": "$o", "regex": "a"}}`, 51104},
		{`{"$regexFind": {"input": 5, "regex": null}}`, 51104},
		{`{"$regexMatch": {"input": "a", "regex": ["a"]}}`, 51105},
		{`{"$regexFindAll": {"input": "a", "regex": "$o"}}`, 51105},
		{`{"$regexMatch": {"input": "a", "regex": "a", "options": 1}}`, 51106},
		{`{"$regexMatch": {"input": "a", "regex": {"$regularExpression": {"pattern": "a", "options": "i"}}, "options": "i"}}`, 51107},
		{`{"$regexMatch": {"input": "a", "regex": {"$regularExpression": {"pattern": "a", "options": "m"}}, "options": ""}}`, 51107},
		{`{"$regexMatch": {"input": "a", "regex": "a", "options": "g"}}`, 51108},
		{`{"$regexFind": {"input": "a", "regex": "a", "options": "I"}}`, 51108},
		{`{"$regexMatch": {"input": "a", "regex": "a\u0000"}}`, 51109},
		{`{"$regexMatch": {"input": "a", "regex": "a", "options": "i\u0000"}}`, 51110},
		{`{"$regexMatch": {"input": "a", "regex": "[0-9"}}`, 51111},
		{`{"$regexFindAll": {"input": "$nosuch", "regex": "[a-c"}}`, 51111},
		{`{"$regexMatch": {"input": "a", "regex": "$bad"}}`, 51111},
		// PCRE that Go's regexp lacks is refused, as find refuses it.
		{`{"$regexMatch": {"input": "aa", "regex": "(a)\\1"}}`, 51111},
		{`{"$regexMatch": {"input": "aa", "regex": "a(?=a)"}}`, 51111},
		{`{"$regexMatch": {"input": "aa", "regex": "a(*UCP)"}}`, 51111},
	})
}

// TestRegexConstantCheckedAtParse checks that a constant regex is
// compiled when the pipeline is parsed, as mongod does, so a bad one
// fails even with no document to run over.
func TestRegexConstantCheckedAtParse(t *testing.T) {
	t.Parallel()
	_, err := run(t, `[]`, `[{"$project": {"v": {"$regexMatch": {"input": "$x", "regex": "(?<=a)b"}}}}]`, Options{})
	if codeOf(err) != 51111 {
		t.Fatalf("got %v, want 51111", err)
	}
	if _, err := run(t, `[]`, `[{"$project": {"v": {"$regexMatch": {"input": "$x", "regex": "$r"}}}}]`, Options{}); err != nil {
		t.Fatalf("a regex from a field: %v", err)
	}
}

// TestRegexFindAllOutputBound checks that $regexFindAll fails with
// 51151 once its matches pass 64 MiB, mongod's limit.
func TestRegexFindAllOutputBound(t *testing.T) {
	t.Parallel()
	doc := `[{"_id": 1, "s": "` + strings.Repeat("a", 1<<20) + `"}]`
	checkExprCodes(t, doc, []exprCode{
		{`{"$regexFindAll": {"input": "$s", "regex": "(a)"}}`, 51151},
	})
	checkExprs(t, doc, []exprCase{
		{`{"$size": {"$regexFindAll": {"input": "$s", "regex": "a{10}"}}}`, `104857`},
	})
}

// TestReplaceOperators checks $replaceOne and $replaceAll against
// mongod's results (jstests/aggregation/expressions/replace_*.js):
// plain string search, an empty find, null for any null or missing
// argument but only once all three are strings or null, the refusals
// with mongod's codes, and $replaceAll's memory bound.
func TestReplaceOperators(t *testing.T) {
	t.Parallel()
	one := func(in, find, repl string) string {
		return `{"$replaceOne": {"input": ` + in + `, "find": ` + find + `, "replacement": ` + repl + `}}`
	}
	all := func(in, find, repl string) string {
		return `{"$replaceAll": {"input": ` + in + `, "find": ` + find + `, "replacement": ` + repl + `}}`
	}
	checkExprs(t, stringsDoc, []exprCase{
		{one(`"albatross"`, `"ross"`, `"rachel"`), `"albatrachel"`},
		{one(`"albatross"`, `""`, `"one "`), `"one albatross"`},
		{one(`""`, `""`, `"foo"`), `"foo"`},
		{one(`"albatross"`, `"rachel"`, `"ross"`), `"albatross"`},
		{one(`"an antelope is an animal"`, `"an"`, `"this"`), `"this antelope is an animal"`},
		{one(`"$s"`, `"é"`, `"e"`), `"cafetéria"`},
		{one(`"a"`, `"$n"`, `"c"`), `null`},
		{one(`"$nosuch"`, `"b"`, `"c"`), `null`},
		{one(`"a"`, `"b"`, `"$nosuch"`), `null`},

		{all(`"albatross"`, `"ross"`, `"rachel"`), `"albatrachel"`},
		{all(`"albatross"`, `""`, `"one "`), `"one aone lone bone aone tone rone oone sone sone "`},
		{all(`"albatross"`, `""`, `""`), `"albatross"`},
		{all(`""`, `""`, `"foo"`), `"foo"`},
		{all(`"an antelope is an animal"`, `"an"`, `""`), `" telope is  imal"`},
		{all(`"an antelope is an animal"`, `"an"`, `"this"`), `"this thistelope is this thisimal"`},
		{all(`"$s"`, `"é"`, `"e"`), `"cafeteria"`},
		// An empty find goes between code points, not bytes.
		{all(`"é€"`, `""`, `"-"`), `"-é-€-"`},
		{all(`null`, `null`, `null`), `null`},
		{all(`"$nosuch"`, `"$nosuch"`, `"c"`), `null`},
	})
	checkExprCodes(t, stringsDoc, []exprCode{
		{`{"$replaceOne": "a"}`, 51751},
		{`{"$replaceAll": {"input": "a", "find": "a", "replacement": "b", "x": 1}}`, 51750},
		{`{"$replaceAll": {}}`, 51749},
		{`{"$replaceAll": {"input": "a", "replacement": "b"}}`, 51748},
		{`{"$replaceOne": {"input": "a", "find": "a"}}`, 51747},
		{one(`"$o"`, `"a"`, `"b"`), 51746},
		{one(`"$o"`, `"$n"`, `"$nosuch"`), 51746},
		{all(`5`, `"a"`, `"b"`), 51746},
		{all(`"a"`, `"$arr"`, `"b"`), 51745},
		{all(`"$nosuch"`, `"$re"`, `"b"`), 51745},
		{one(`"a"`, `"a"`, `1.5`), 51744},
		{one(`"$n"`, `"$n"`, `"$o"`), 51744},
	})
	big := `[{"_id": 1, "s": "` + strings.Repeat("a", 1<<20) + `", "r": "` + strings.Repeat("b", 128) + `"}]`
	checkExprCodes(t, big, []exprCode{
		{all(`"$s"`, `""`, `"$r"`), int(document.CodeExceededMemoryLimit)},
		{all(`"$s"`, `"a"`, `"$r"`), int(document.CodeExceededMemoryLimit)},
	})
}
