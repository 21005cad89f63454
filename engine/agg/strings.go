package agg

import (
	"math/bits"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The string operators mongod has beside $concat, $split and $trim:
// substrings and lengths by bytes and by code points, searches,
// case-blind comparison, regular expressions and replacement. Bytes are
// UTF-8 bytes; a code point starts at every byte that is not a UTF-8
// continuation byte, as mongod counts them.

func addStringOps() {
	listOps["$strLenBytes"] = opSpec{1, 1, opStrLenBytes}
	listOps["$substrBytes"] = opSpec{3, 3, opSubstrBytes}
	listOps["$substrCP"] = opSpec{3, 3, opSubstrCP}
	listOps["$indexOfBytes"] = opSpec{2, 4, opIndexOfBytes}
	listOps["$indexOfCP"] = opSpec{2, 4, opIndexOfCP}
	listOps["$strcasecmp"] = opSpec{2, 2, opStrcasecmp}
}

// isContinuation reports whether b is a UTF-8 continuation byte
// (10xxxxxx).
func isContinuation(b byte) bool { return b&0xc0 == 0x80 }

// codePointLen is the length of the code point a byte starts, read from
// its leading ones as mongod reads it: 1 for ASCII and for a stray
// continuation byte, up to 8 for bytes no UTF-8 has.
func codePointLen(b byte) int {
	if b < 0x80 || isContinuation(b) {
		return 1
	}
	return bits.LeadingZeros8(^b)
}

// coerceToString is mongod's reading of a value as a string for
// $substrBytes, $substrCP and $strcasecmp: null and missing are "",
// numbers and dates print, and the other types are 16007.
func coerceToString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bson.Symbol:
		return string(x), nil
	case bson.JavaScript:
		return string(x), nil
	case nil, bson.Null, bson.Undefined, Missing:
		return "", nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return document.FormatStreamDouble(x), nil
	case bson.Decimal128:
		return x.String(), nil
	case bson.DateTime:
		return x.Time().UTC().Format("2006-01-02T15:04:05.000Z"), nil
	case bson.Timestamp:
		// mongod prints the seconds in the server's time zone; ttlkv's is UTC.
		return time32(x.T) + ":" + strconv.FormatUint(uint64(x.I), 10), nil
	}
	return "", document.Errorf(document.Code(16007), "can't convert from BSON type %s to String", document.TypeName(v))
}

// time32 prints seconds since the epoch as ctime does without the day
// of the week and the year ("Jan  2 15:04:05"), in UTC.
func time32(secs uint32) string {
	return bson.DateTime(int64(secs) * 1000).Time().UTC().Format("Jan _2 15:04:05")
}

// coerceToLong is a number as mongod's coerceToLong reads it: a double
// (or a decimal) truncated toward zero, 31109 when it is NaN or out of a
// long's range.
func coerceToLong(v any) (int64, error) {
	if f, ok := v.(float64); ok {
		if !(f >= -(1<<63) && f < 1<<63) {
			return 0, document.Errorf(document.Code(31109), "Can't coerce out of range value %s to long", document.FormatStreamDouble(f))
		}
		return int64(f), nil
	}
	if d, ok := v.(bson.Decimal128); ok {
		n, ok := query.DecimalTruncInt64(d)
		if !ok {
			return 0, document.Errorf(document.Code(31109), "Can't coerce out of range value %s to long", d.String())
		}
		return n, nil
	}
	n, _ := wholeInt(v)
	return n, nil
}

func opStrLenBytes(args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return nil, document.Errorf(document.Code(34473), "$strLenBytes requires a string argument, found: %s", typeOrMissing(args[0]))
	}
	return int32(len(s)), nil
}

// opSubstrBytes is {$substrBytes: [string, start, length]} (and the old
// $substr): length bytes from byte start, the rest of the string for a
// negative length; a range that would cut a UTF-8 character is refused.
func opSubstrBytes(args []any) (any, error) {
	const op = "$substrBytes"
	s, err := coerceToString(args[0])
	if err != nil {
		return nil, err
	}
	// Any number, a decimal too, as mongod's Value::numeric().
	isNum := document.IsNumber
	if !isNum(args[1]) {
		return nil, document.Errorf(document.Code(16034), "%s:  starting index must be a numeric type (is BSON type %s)", op, typeOrMissing(args[1]))
	}
	if !isNum(args[2]) {
		return nil, document.Errorf(document.Code(16035), "%s:  length must be a numeric type (is BSON type %s)", op, typeOrMissing(args[2]))
	}
	lower, err := coerceToLong(args[1])
	if err != nil {
		return nil, err
	}
	if lower < 0 {
		return nil, document.Errorf(document.Code(50752), "%s:  starting index must be non-negative (got: %d)", op, lower)
	}
	length, err := coerceToLong(args[2])
	if err != nil {
		return nil, err
	}
	n := uint64(len(s))
	if length >= 0 {
		n = uint64(length)
	}
	start := uint64(lower)
	end := start + n // both below 2^63: no overflow
	if start < uint64(len(s)) && isContinuation(s[start]) {
		return nil, document.Errorf(document.Code(28656), "%s:  Invalid range, starting index is a UTF-8 continuation byte.", op)
	}
	if end < uint64(len(s)) && isContinuation(s[end]) {
		return nil, document.Errorf(document.Code(28657), "%s:  Invalid range, ending index is in the middle of a UTF-8 character.", op)
	}
	if start >= uint64(len(s)) {
		return "", nil
	}
	return s[start:min(end, uint64(len(s)))], nil
}

// opSubstrCP is {$substrCP: [string, start, length]}: length code
// points from code point start.
func opSubstrCP(args []any) (any, error) {
	const op = "$substrCP"
	s, err := coerceToString(args[0])
	if err != nil {
		return nil, err
	}
	if !document.IsNumber(args[1]) {
		return nil, document.Errorf(document.Code(34450), "%s: starting index must be a numeric type (is BSON type %s)", op, typeOrMissing(args[1]))
	}
	start, ok := int32Value(args[1])
	if !ok {
		return nil, document.Errorf(document.Code(34451), "%s: starting index cannot be represented as a 32-bit integral value: %s", op, valueString(args[1]))
	}
	if !document.IsNumber(args[2]) {
		return nil, document.Errorf(document.Code(34452), "%s: length must be a numeric type (is BSON type %s)", op, typeOrMissing(args[2]))
	}
	length, ok := int32Value(args[2])
	if !ok {
		return nil, document.Errorf(document.Code(34453), "%s: length cannot be represented as a 32-bit integral value: %s", op, valueString(args[2]))
	}
	if length < 0 {
		return nil, document.Errorf(document.Code(34454), "%s: length must be a nonnegative integer.", op)
	}
	if start < 0 {
		return nil, document.Errorf(document.Code(34455), "%s: the starting index must be nonnegative integer.", op)
	}
	// walk moves over n code points from byte i, refusing bad UTF-8 with
	// the codes given; it stops at the end of s.
	walk := func(i int, n int32, contCode, longCode int) (int, error) {
		for ; n > 0 && i < len(s); n-- {
			if isContinuation(s[i]) {
				return 0, document.Errorf(document.Code(contCode), "%s: invalid UTF-8 string", op)
			}
			l := codePointLen(s[i])
			if l > 4 {
				return 0, document.Errorf(document.Code(longCode), "%s: invalid UTF-8 string", op)
			}
			i += l
		}
		return i, nil
	}
	from, err := walk(0, start, 34456, 34457)
	if err != nil || from >= len(s) {
		return "", err
	}
	to, err := walk(from, length, 34458, 34459)
	if err != nil {
		return nil, err
	}
	return s[from:min(to, len(s))], nil
}

// indexArgs reads the string and token of $indexOfBytes and $indexOfCP
// (codes their type codes) and their optional start and end, end within
// the string's length n(s); null is a null string.
func indexArgs(op string, args []any, codes [2]int, n func(string) (int, error)) (s, token string, start, end int, null bool, err error) {
	if nullish(args[0]) {
		return "", "", 0, 0, true, nil
	}
	s, ok := args[0].(string)
	if !ok {
		return "", "", 0, 0, false, document.Errorf(document.Code(codes[0]), "%s requires a string as the first argument, found: %s", op, document.TypeName(args[0]))
	}
	if token, ok = args[1].(string); !ok {
		return "", "", 0, 0, false, document.Errorf(document.Code(codes[1]), "%s requires a string as the second argument, found: %s", op, typeOrMissing(args[1]))
	}
	if len(args) > 2 {
		if start, err = indexBound(op, args[2], "starting"); err != nil {
			return "", "", 0, 0, false, err
		}
	}
	if end, err = n(s); err != nil {
		return "", "", 0, 0, false, err
	}
	if len(args) > 3 {
		e, err := indexBound(op, args[3], "ending")
		if err != nil {
			return "", "", 0, 0, false, err
		}
		end = min(end, e)
	}
	return s, token, start, end, false, nil
}

// opIndexOfBytes is {$indexOfBytes: [string, token, start, end]}: the
// byte index of the first token from start that ends by end; -1 when
// none.
func opIndexOfBytes(args []any) (any, error) {
	s, token, start, end, null, err := indexArgs("$indexOfBytes", args, [2]int{40091, 40092}, func(s string) (int, error) { return len(s), nil })
	if err != nil || null {
		return nil, err
	}
	if start > len(s) || end < start {
		return int32(-1), nil
	}
	i := strings.Index(s[start:end], token)
	if i < 0 {
		return int32(-1), nil
	}
	return int32(start + i), nil
}

// opIndexOfCP is {$indexOfCP: [string, token, start, end]}: as
// $indexOfBytes, in code points.
func opIndexOfCP(args []any) (any, error) {
	const op = "$indexOfCP"
	count := func(s string) (int, error) {
		n := 0
		for i := 0; i < len(s); n++ {
			if isContinuation(s[i]) {
				return 0, document.Errorf(document.Code(40095), "%s found bad UTF-8 in the input", op)
			}
			i += codePointLen(s[i])
		}
		return n, nil
	}
	s, token, start, end, null, err := indexArgs(op, args, [2]int{40093, 40094}, count)
	if err != nil || null {
		return nil, err
	}
	if end < start {
		return int32(-1), nil // a start past the end finds nothing, not even ""
	}
	if s == "" && token == "" {
		return int32(0), nil // mongod's special case: "" is at 0 in ""
	}
	i := 0 // the byte where code point start begins
	for cp := 0; cp < start && i < len(s); cp++ {
		i += codePointLen(s[i])
	}
	for cp := start; cp < end && i < len(s); cp++ {
		if strings.HasPrefix(s[i:], token) {
			return int32(cp), nil
		}
		i += codePointLen(s[i])
	}
	return int32(-1), nil
}

// indexBound reads the start or end argument of an $indexOf operator:
// a whole number that fits an int (40096), not negative (40097).
func indexBound(op string, v any, what string) (int, error) {
	n, ok := int32Value(v)
	if !ok || !document.IsNumber(v) {
		return 0, document.Errorf(document.Code(40096), "%s requires an integral %s index, found a value of type: %s, with value: %s", op, what, typeOrMissing(v), valueString(v))
	}
	if n < 0 {
		return 0, document.Errorf(document.Code(40097), "%s requires a nonnegative %s index, found: %d", op, what, n)
	}
	return int(n), nil
}

// opStrcasecmp is {$strcasecmp: [a, b]}: -1, 0 or 1 as a compares with
// b byte by byte with ASCII letters upper-cased, as mongod compares.
func opStrcasecmp(args []any) (any, error) {
	a, err := coerceToString(args[0])
	if err != nil {
		return nil, err
	}
	b, err := coerceToString(args[1])
	if err != nil {
		return nil, err
	}
	return int32(strings.Compare(asciiUpper(a), asciiUpper(b))), nil
}

// asciiUpper is s with its ASCII letters upper-cased, byte by byte.
func asciiUpper(s string) string { return asciiCase(s, 'a', 'A') }

// asciiLower is s with its ASCII capitals in lower case, as mongod's
// $toLower changes them; other characters stay.
func asciiLower(s string) string { return asciiCase(s, 'A', 'a') }

// asciiCase moves the 26 ASCII letters from the case starting at from
// to the case starting at to.
func asciiCase(s string, from, to byte) string {
	b := []byte(s)
	for i, c := range b {
		if from <= c && c <= from+25 {
			b[i] = c - from + to
		}
	}
	return string(b)
}

// maxRegexOutput bounds what $regexFindAll returns, mongod's
// BufferMaxSize (64 MiB): past it the operator fails with 51151.
const maxRegexOutput = 64 << 20

// regexExpr is {$regexMatch, $regexFind or $regexFindAll: {input,
// regex, options}}.
type regexExpr struct {
	op                    string
	input, regex, options Expr
	fixed                 *compiledRegex // regex and options are constants: compiled once
}

// compiledRegex is a regex argument compiled; re is nil when the regex
// is null.
type compiledRegex struct {
	re *regexp.Regexp
	// from is re anchored one code point before a position, so that
	// $regexFindAll can search from a position with what precedes it in
	// view (^, \b), as PCRE does from an offset: \A(?s:.)(?s:.*?)(re).
	from *regexp.Regexp
}

func parseRegex(op string, arg any, depth pdepth) (Expr, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(51103), "%s expects an object of named arguments but found: %s", op, document.TypeName(arg))
	}
	a, err := namedExprs(d, depth, []string{"input", "regex", "options"}, func(name string) error {
		return document.Errorf(document.Code(31024), "%s found an unknown argument: %s", op, name)
	})
	if err != nil {
		return nil, err
	}
	x := regexExpr{op: op, input: a["input"], regex: a["regex"], options: a["options"]}
	if x.input == nil {
		return nil, document.Errorf(document.Code(31022), "%s requires 'input' parameter", op)
	}
	if x.regex == nil {
		return nil, document.Errorf(document.Code(31023), "%s requires 'regex' parameter", op)
	}
	// As mongod, a constant regex is checked and compiled once, here.
	rl, ok := x.regex.(literal)
	ol, ook := x.options.(literal)
	if ok && (x.options == nil || ook) {
		var opts any
		if ook {
			opts = ol.v
		}
		if x.fixed, err = compileRegexArg(op, rl.v, opts); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// compileRegexArg checks and compiles the regex and options arguments
// in mongod's order: 51105 for a regex neither a string nor a regular
// expression, 51106 for options not a string, 51107 for options both in
// a regular expression and beside it, 51109 and 51110 for an embedded
// NUL, 51108 for an unknown option and 51111 for a pattern Go's regexp
// refuses (the translation find uses: PCRE syntax RE2 lacks, such as
// backreferences and lookaround, is refused here too).
func compileRegexArg(op string, rv, ov any) (*compiledRegex, error) {
	r, isRegex := rv.(bson.Regex)
	pattern, havePattern := rv.(string)
	if !havePattern && !isRegex && !nullish(rv) {
		return nil, document.Errorf(document.Code(51105), "%s needs 'regex' to be of type string or regex", op)
	}
	options, haveOptions := ov.(string)
	if !haveOptions && !nullish(ov) {
		return nil, document.Errorf(document.Code(51106), "%s needs 'options' to be of type string", op)
	}
	if isRegex {
		if r.Options != "" && haveOptions {
			return nil, document.Errorf(document.Code(51107), "%s: found regex option(s) specified in both 'regex' and 'option' fields", op)
		}
		if r.Options != "" {
			options = r.Options
		}
		pattern, havePattern = r.Pattern, true
	}
	if strings.IndexByte(pattern, 0) >= 0 {
		return nil, document.Errorf(document.Code(51109), "%s: regular expression cannot contain an embedded null byte", op)
	}
	if strings.IndexByte(options, 0) >= 0 {
		return nil, document.Errorf(document.Code(51110), "%s: regular expression options cannot contain an embedded null byte", op)
	}
	if !havePattern {
		return &compiledRegex{}, nil
	}
	re, badFlag, err := query.TranslateRegex(pattern, options)
	if badFlag != 0 {
		return nil, document.Errorf(document.Code(51108), "%s invalid flag in regex options: %c", op, badFlag)
	}
	if err != nil {
		return nil, document.Errorf(document.Code(51111), "Invalid Regex in %s: %v", op, err)
	}
	c := &compiledRegex{re: re}
	if op == "$regexFindAll" {
		if c.from, err = regexp.Compile(`\A(?s:.)(?s:.*?)(` + re.String() + `)`); err != nil {
			return nil, document.Errorf(document.Code(51111), "Invalid Regex in %s: %v", op, err)
		}
	}
	return c, nil
}

// Eval gives, for $regexMatch, whether the regex matches input; for
// $regexFind, its first match as {match, idx, captures} (null when
// none); for $regexFindAll, all its matches that do not overlap. idx
// counts code points; a capture group that took no part is null. A null
// or missing input or regex is no match.
func (x regexExpr) Eval(e *Env) (any, error) {
	in, err := x.input.Eval(e)
	if err != nil {
		return nil, err
	}
	c := x.fixed
	if c == nil {
		rv, err := x.regex.Eval(e)
		if err != nil {
			return nil, err
		}
		var ov any
		if x.options != nil {
			if ov, err = x.options.Eval(e); err != nil {
				return nil, err
			}
		}
		if c, err = compileRegexArg(x.op, rv, ov); err != nil {
			return nil, err
		}
	}
	s, ok := in.(string)
	if !ok && !nullish(in) {
		return nil, document.Errorf(document.Code(51104), "%s needs 'input' to be of type string", x.op)
	}
	if !ok || c.re == nil {
		switch x.op {
		case "$regexMatch":
			return false, nil
		case "$regexFind":
			return nil, nil
		}
		return bson.A{}, nil
	}
	switch x.op {
	case "$regexMatch":
		return c.re.MatchString(s), nil
	case "$regexFind":
		loc := c.re.FindStringSubmatchIndex(s)
		if loc == nil {
			return nil, nil
		}
		return matchDoc(s, loc, codePoints(s[:loc[0]])), nil
	}
	return c.findAll(s)
}

// findAll is $regexFindAll's loop, mongod's: after a match the search
// goes on where it ended, and after an empty match one code point
// further; it stops at the end of the input.
func (c *compiledRegex) findAll(s string) (any, error) {
	out := bson.A{}
	size := int64(0)
	pos, cp := 0, 0 // where the search starts, in bytes and in code points
	for {
		var loc []int
		if pos == 0 {
			loc = c.re.FindStringSubmatchIndex(s)
		} else {
			_, k := utf8.DecodeLastRuneInString(s[:pos])
			loc = c.from.FindStringSubmatchIndex(s[pos-k:])
			if loc != nil {
				loc = loc[2:] // the re group, then its own groups
				for i := range loc {
					if loc[i] >= 0 {
						loc[i] += pos - k
					}
				}
			}
		}
		if loc == nil {
			break
		}
		cp += codePoints(s[pos:loc[0]])
		pos = loc[0]
		m := matchDoc(s, loc, cp)
		if size += approxSize(m); size > maxRegexOutput {
			return nil, document.Errorf(document.Code(51151), "$regexFindAll: the size of buffer to store output exceeded the 64MB limit")
		}
		out = append(out, m)
		if loc[1] == loc[0] {
			if pos >= len(s) {
				break
			}
			pos += codePointLen(s[pos])
			cp++
		} else {
			cp += codePoints(s[loc[0]:loc[1]])
			pos = loc[1]
		}
		if pos >= len(s) {
			break
		}
	}
	return out, nil
}

// matchDoc is {match, idx, captures} for the match at loc (Go's
// submatch indexes) in s.
func matchDoc(s string, loc []int, idx int) bson.D {
	caps := make(bson.A, 0, len(loc)/2-1)
	for i := 2; i+1 < len(loc); i += 2 {
		if loc[i] < 0 {
			caps = append(caps, nil)
			continue
		}
		caps = append(caps, s[loc[i]:loc[i+1]])
	}
	return bson.D{{Key: "match", Value: s[loc[0]:loc[1]]}, {Key: "idx", Value: int32(idx)}, {Key: "captures", Value: caps}}
}

// codePoints counts the code points of s as mongod does: the bytes that
// are not continuation bytes.
func codePoints(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isContinuation(s[i]) {
			n++
		}
	}
	return n
}

// replaceExpr is {$replaceOne or $replaceAll: {input, find,
// replacement}}.
type replaceExpr struct {
	all                      bool
	op                       string
	input, find, replacement Expr
}

func parseReplace(op string, arg any, depth pdepth) (Expr, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(51751), "%s requires an object as an argument, found: %s", op, document.TypeName(arg))
	}
	a, err := namedExprs(d, depth, []string{"input", "find", "replacement"}, func(name string) error {
		return document.Errorf(document.Code(51750), "%s found an unknown argument: %s", op, name)
	})
	if err != nil {
		return nil, err
	}
	x := replaceExpr{all: op == "$replaceAll", op: op, input: a["input"], find: a["find"], replacement: a["replacement"]}
	for i, name := range []string{"input", "find", "replacement"} {
		if a[name] == nil {
			return nil, document.Errorf(document.Code(51749-i), "%s requires '%s' to be specified", op, name)
		}
	}
	return x, nil
}

// Eval replaces the first (or every) occurrence of find in input with
// replacement. Each argument must be a string, null or missing (51746,
// 51745, 51744, checked before null is given for any null argument). An
// empty find occurs before each code point and at the end.
func (x replaceExpr) Eval(e *Env) (any, error) {
	var v [3]any
	for i, a := range []Expr{x.input, x.find, x.replacement} {
		var err error
		if v[i], err = a.Eval(e); err != nil {
			return nil, err
		}
	}
	var s [3]string
	for i, name := range []string{"input", "find", "replacement"} {
		str, ok := v[i].(string)
		if !ok && !nullish(v[i]) {
			return nil, document.Errorf(document.Code(51746-i), "%s requires that '%s' be a string, found: %s", x.op, name, valueString(v[i]))
		}
		s[i] = str
	}
	if nullish(v[0]) || nullish(v[1]) || nullish(v[2]) {
		return nil, nil
	}
	in, find, repl := s[0], s[1], s[2]
	if !x.all {
		return strings.Replace(in, find, repl, 1), nil
	}
	n := strings.Count(in, find)
	if int64(len(in))+int64(n)*(int64(len(repl))-int64(len(find))) > maxExprBytes {
		return nil, document.Errorf(document.CodeExceededMemoryLimit, "$replaceAll would use too much memory and cannot spill")
	}
	return strings.ReplaceAll(in, find, repl), nil
}
