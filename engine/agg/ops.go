package agg

import (
	"math"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// opFunc computes an operator from its evaluated arguments.
type opFunc func(args []any) (any, error)

// collOpFunc computes an operator that compares values from its
// evaluated arguments, under the collation c (nil: simple).
type collOpFunc func(c *collation.Collator, args []any) (any, error)

// collOps are the operators of listOps that compare values, and so take
// the run's collation: {$eq: ["a", "A"]} is true under a strength-2
// collation, as in MongoDB.
var collOps = map[string]collOpFunc{}

// addCollOp adds the collated operator name to listOps and collOps.
func addCollOp(name string, min, max int, f collOpFunc) {
	listOps[name] = opSpec{min, max, func(args []any) (any, error) { return f(nil, args) }}
	collOps[name] = f
}

// opSpec describes an operator taking a list of arguments.
type opSpec struct {
	min, max int // argument count bounds; max < 0: no bound
	fn       opFunc
}

// listOps are the operators whose arguments are evaluated eagerly.
var listOps map[string]opSpec

// arityRefusals are the operators of listOps that mongod refuses with
// their own code and words, not 16020, for a wrong count of arguments.
var arityRefusals = map[string]func(n int) error{}

func init() {
	listOps = map[string]opSpec{
		"$add":         {0, -1, opAdd},
		"$subtract":    {2, 2, opSubtract},
		"$multiply":    {0, -1, opMultiply},
		"$divide":      {2, 2, opDivide},
		"$mod":         {2, 2, opMod},
		"$abs":         {1, 1, numeric1("$abs", math.Abs)},
		"$floor":       {1, 1, numeric1("$floor", math.Floor)},
		"$ceil":        {1, 1, numeric1("$ceil", math.Ceil)},
		"$not":         {1, 1, func(a []any) (any, error) { return !Truthy(a[0]), nil }},
		"$ifNull":      {2, -1, opIfNull},
		"$concat":      {0, -1, opConcat},
		"$toLower":     {1, 1, stringCase(asciiLower)},
		"$toUpper":     {1, 1, stringCase(asciiUpper)},
		"$strLenCP":    {1, 1, opStrLen},
		"$size":        {1, 1, opSize},
		"$arrayElemAt": {2, 2, opArrayElemAt},
		"$type":        {1, 1, opType},
		"$toHashedIndexKey": {1, 1, func(a []any) (any, error) {
			if isMissing(a[0]) {
				return document.HashedKey(nil), nil // a missing value hashes as null
			}
			return document.HashedKey(a[0]), nil
		}},
		"$toString": {1, 1, opToString},
		"$toDouble": {1, 1, opToDouble},
		"$toLong":   {1, 1, opToLong},
		"$toInt":    {1, 1, opToInt},
		"$toDate":   {1, 1, opToDate},
	}
	addCollOp("$eq", 2, 2, cmpOp(func(c int) bool { return c == 0 }))
	addCollOp("$ne", 2, 2, cmpOp(func(c int) bool { return c != 0 }))
	addCollOp("$gt", 2, 2, cmpOp(func(c int) bool { return c > 0 }))
	addCollOp("$gte", 2, 2, cmpOp(func(c int) bool { return c >= 0 }))
	addCollOp("$lt", 2, 2, cmpOp(func(c int) bool { return c < 0 }))
	addCollOp("$lte", 2, 2, cmpOp(func(c int) bool { return c <= 0 }))
	addCollOp("$cmp", 2, 2, opCmp)
	addCollOp("$in", 2, 2, opIn)
	addArrayOps()
	addConvertOps()
	addRoundOps()
	addMathOps()
	addStringOps()
	addDateOps()
	addSetOps()
}

// parseOperator parses {name: arg}.
func parseOperator(name string, arg any, depth pdepth) (Expr, error) {
	switch name {
	case "$literal", "$const": // $const is mongod's older name for it
		return literal{arg}, nil
	case "$rand":
		return parseRand(arg)
	case "$meta":
		return parseMeta(arg)
	case "$cond":
		return parseCond(arg, depth)
	case "$let":
		return parseLet(arg, depth)
	case "$map":
		return parseMap(arg, depth)
	case "$filter":
		return parseFilter(arg, depth)
	case "$reduce":
		return parseReduce(arg, depth)
	case "$switch":
		return parseSwitch(arg, depth)
	case "$and", "$or":
		args, err := parseArgs(arg, depth)
		if err != nil {
			return nil, err
		}
		return logicExpr{and: name == "$and", args: args}, nil
	}
	if spec, ok := dateParts[name]; ok {
		return parseDatePart(name, spec, arg, depth)
	}
	switch name {
	case "$dateTrunc":
		return parseDateTrunc(arg, depth)
	case "$dateToString":
		return parseDateToString(arg, depth)
	case "$dateAdd", "$dateSubtract":
		return parseDateMath(name, arg, depth)
	case "$dateDiff":
		return parseDateDiff(arg, depth)
	case "$dateToParts":
		return parseDateToParts(arg, depth)
	case "$dateFromParts":
		return parseDateFromParts(arg, depth)
	case "$dateFromString":
		return parseDateFromString(arg, depth)
	case "$trim", "$ltrim", "$rtrim":
		return parseTrim(name, arg, depth)
	case "$convert":
		return parseConvert(arg, depth)
	case "$regexMatch", "$regexFind", "$regexFindAll":
		return parseRegex(name, arg, depth)
	case "$replaceOne", "$replaceAll":
		return parseReplace(name, arg, depth)
	case "$substr":
		name = "$substrBytes" // the old name; mongod names $substrBytes in its errors
	case "$zip":
		return parseZip(arg, depth)
	case "$sortArray":
		return parseSortArray(arg, depth)
	case "$getField":
		return parseGetField(arg, depth)
	case "$setField", "$unsetField":
		return parseSetField(name, arg, depth)
	case "$firstN", "$lastN", "$minN", "$maxN":
		a, err := parseNArgs(name, arg, depth)
		return nExpr{op: name, args: a}, err
	case "$percentile", "$median":
		a, err := parsePctArgs(name, arg, false, depth)
		return pctExpr{a}, err
	case "$function":
		return parseFunction(arg, depth)
	}
	spec, ok := listOps[name]
	if !ok {
		return nil, document.Errorf(codeUnknownExpression, "Unrecognized expression '%s'", name)
	}
	args, err := parseArgs(arg, depth)
	if err != nil {
		return nil, err
	}
	if len(args) < spec.min || (spec.max >= 0 && len(args) > spec.max) {
		if refuse, ok := arityRefusals[name]; ok {
			return nil, refuse(len(args))
		}
		want := spec.min
		if spec.max > spec.min {
			return nil, document.Errorf(document.Code(28667), "Expression %s takes at least %d arguments, and at most %d, but %d were passed in.", name, spec.min, spec.max, len(args))
		}
		if spec.max != spec.min {
			return nil, document.Errorf(codeExpressionArity, "Expression %s takes at least %d arguments, and %d were passed in.", name, spec.min, len(args))
		}
		return nil, document.Errorf(codeExpressionArity, "Expression %s takes exactly %d arguments. %d were passed in.", name, want, len(args))
	}
	return opExpr{name: name, args: args, fn: spec.fn, cfn: collOps[name]}, nil
}

// parseArgs parses an operator's argument: an array is the argument
// list, anything else is a single argument.
func parseArgs(arg any, depth pdepth) ([]Expr, error) {
	list, ok := arg.(bson.A)
	if !ok {
		list = bson.A{arg}
	}
	out := make([]Expr, 0, len(list))
	for _, a := range list {
		e, err := parseExpr(a, depth.deeper())
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

type opExpr struct {
	name string
	args []Expr
	fn   opFunc
	cfn  collOpFunc // set for an operator that compares values
}

func (o opExpr) Eval(e *Env) (any, error) {
	vals := make([]any, len(o.args))
	for i, a := range o.args {
		v, err := a.Eval(e)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	if o.cfn != nil {
		return o.cfn(e.coll, vals)
	}
	return o.fn(vals)
}

type logicExpr struct {
	and  bool
	args []Expr
}

// Eval short-circuits, so a guard such as {$and: [{$ne: ["$d", 0]},
// {$gt: [{$divide: ["$n", "$d"]}, 1]}]} never divides by zero.
func (l logicExpr) Eval(e *Env) (any, error) {
	for _, a := range l.args {
		v, err := a.Eval(e)
		if err != nil {
			return nil, err
		}
		if Truthy(v) != l.and {
			return !l.and, nil
		}
	}
	return l.and, nil
}

type condExpr struct{ cond, then, els Expr }

func (c condExpr) Eval(e *Env) (any, error) {
	v, err := c.cond.Eval(e)
	if err != nil {
		return nil, err
	}
	if Truthy(v) {
		return c.then.Eval(e)
	}
	return c.els.Eval(e)
}

func parseCond(arg any, depth pdepth) (Expr, error) {
	var parts [3]any
	switch x := arg.(type) {
	case bson.A:
		if len(x) != 3 {
			return nil, document.Errorf(codeExpressionArity, "Expression $cond takes exactly 3 arguments. %d were passed in.", len(x))
		}
		copy(parts[:], x)
	case bson.D:
		seen := [3]bool{}
		for _, el := range x {
			i := map[string]int{"if": 0, "then": 1, "else": 2}[el.Key]
			if el.Key != "if" && el.Key != "then" && el.Key != "else" {
				return nil, document.Errorf(document.Code(17083), "Unrecognized parameter to $cond: %s", el.Key)
			}
			parts[i], seen[i] = el.Value, true
		}
		for i, name := range []string{"if", "then", "else"} {
			if !seen[i] {
				return nil, document.Errorf(document.Code(17080+i), "Missing '%s' parameter to $cond", name)
			}
		}
	default:
		return nil, document.Errorf(codeExpressionArity, "Expression $cond takes exactly 3 arguments. 1 were passed in.")
	}
	var c condExpr
	var err error
	if c.cond, err = parseExpr(parts[0], depth.deeper()); err != nil {
		return nil, err
	}
	if c.then, err = parseExpr(parts[1], depth.deeper()); err != nil {
		return nil, err
	}
	if c.els, err = parseExpr(parts[2], depth.deeper()); err != nil {
		return nil, err
	}
	return c, nil
}

func typeErr(code int, op string, v any) error {
	return document.Errorf(document.Code(code), "%s only supports numeric types, not %s", op, document.TypeName(v))
}

// opAdd is $add. Numbers add with MongoDB's widening (an int32 that
// overflows becomes a long, a long a double). A date takes the sum so
// far, rounded to whole milliseconds, and each number after it is
// rounded and added in turn, as mongod 7.0 folds its arguments: so
// [date, 0.6, 0.6] moves the date 2 ms and [0.6, 0.6, date] 1 ms. A
// date pushed out of the 64-bit range, or by a NaN, fails with 15
// Overflow.
func opAdd(args []any) (any, error) {
	var sum any = int32(0)
	var ms int64
	isDate := false
	for _, a := range args {
		if nullish(a) {
			return nil, nil
		}
		if d, ok := a.(bson.DateTime); ok {
			if isDate {
				return nil, document.Errorf(document.Code(16612), "only one date allowed in an $add expression")
			}
			isDate, ms = true, int64(d)
			a = sum
		} else if !document.IsNumber(a) {
			return nil, document.Errorf(document.Code(16554), "$add only supports numeric or date types, not %s", document.TypeName(a))
		}
		if !isDate {
			sum = query.AddNumbers(sum, a)
			continue
		}
		n, ok := roundedMillis(a)
		if !ok {
			return nil, dateAddOverflow()
		}
		s := ms + n
		if (s > ms) != (n > 0) {
			return nil, dateAddOverflow()
		}
		ms = s
	}
	if isDate {
		return bson.DateTime(ms), nil
	}
	return sum, nil
}

func dateAddOverflow() error {
	return document.Errorf(document.CodeOverflow, "date overflow in $add")
}

// roundedMillis is the number v as whole milliseconds to add to a date:
// a double rounded half away from zero, a decimal half to even; false
// for NaN, an infinity or a value past the 64-bit range.
func roundedMillis(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case float64:
		// 2^63 as a double is the first value past the range.
		if math.IsNaN(x) || x < math.MinInt64 || x >= math.MaxInt64 {
			return 0, false
		}
		r := math.Round(x)
		if r >= math.MaxInt64 {
			return 0, false
		}
		return int64(r), true
	case bson.Decimal128:
		return query.DecimalRoundInt64(x)
	}
	return 0, false
}

// opSubtract is $subtract: numbers with $add's widening, a date less a
// date in milliseconds (a long), a date less a number (the number cut
// toward zero to whole milliseconds, as mongod coerces it to a long).
func opSubtract(args []any) (any, error) {
	a, b := args[0], args[1]
	if document.IsNumber(a) && document.IsNumber(b) {
		return subNumbers(a, b), nil
	}
	if nullish(a) || nullish(b) {
		return nil, nil
	}
	da, aDate := a.(bson.DateTime)
	db, bDate := b.(bson.DateTime)
	switch {
	case aDate && bDate:
		return int64(da) - int64(db), nil
	case aDate && document.IsNumber(b):
		n, err := coerceToLong(b)
		if err != nil {
			return nil, err
		}
		return bson.DateTime(int64(da) - n), nil
	}
	return nil, document.Errorf(document.Code(16556), "cant $subtract a %s from a %s", document.TypeName(b), document.TypeName(a))
}

// subNumbers is a - b with $add's widening: an int32 that overflows
// becomes a long, a long a double.
func subNumbers(a, b any) any {
	switch max(query.NumRank(a), query.NumRank(b)) {
	case 1, 2:
		x, y := toInt64(a), toInt64(b)
		d := x - y
		if (d < x) != (y > 0) {
			return float64(x) - float64(y)
		}
		if query.NumRank(a) == 1 && query.NumRank(b) == 1 && d >= math.MinInt32 && d <= math.MaxInt32 {
			return int32(d)
		}
		return d
	case 3:
		return query.ToFloat(a) - query.ToFloat(b)
	}
	return query.AddNumbers(query.ToDecimal(a), query.MulNumbers(query.ToDecimal(b), int32(-1)))
}

func opMultiply(args []any) (any, error) {
	var p any = int32(1)
	for _, a := range args {
		if nullish(a) {
			return nil, nil
		}
		if !document.IsNumber(a) {
			return nil, typeErr(16555, "$multiply", a)
		}
		p = query.MulNumbers(p, a)
	}
	return p, nil
}

func opDivide(args []any) (any, error) {
	a, b := args[0], args[1]
	if nullish(a) || nullish(b) {
		return nil, nil
	}
	if !document.IsNumber(a) || !document.IsNumber(b) {
		return nil, document.Errorf(document.Code(16609), "$divide only supports numeric types, not %s and %s", document.TypeName(a), document.TypeName(b))
	}
	if document.Compare(b, int32(0)) == 0 {
		return nil, document.Errorf(document.CodeBadValue, "can't $divide by zero")
	}
	if query.NumRank(a) == 4 || query.NumRank(b) == 4 {
		return query.DecimalDiv(a, b), nil
	}
	return query.ToFloat(a) / query.ToFloat(b), nil
}

func opMod(args []any) (any, error) {
	a, b := args[0], args[1]
	if nullish(a) || nullish(b) {
		return nil, nil
	}
	if !document.IsNumber(a) || !document.IsNumber(b) {
		return nil, document.Errorf(document.Code(16611), "$mod only supports numeric types, not %s and %s", document.TypeName(a), document.TypeName(b))
	}
	if document.Compare(b, int32(0)) == 0 {
		return nil, document.Errorf(document.Code(16610), "can't $mod by zero")
	}
	ra, rb := query.NumRank(a), query.NumRank(b)
	if f, ok := b.(float64); ok && ra <= 2 && f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32 {
		// A whole double divisor that fits an int leaves an integer
		// dividend's type: {$mod: [NumberInt(8), 3.0]} is the int 2.
		b, rb = int32(f), 1
	}
	if ra == 4 || rb == 4 {
		return query.DecimalMod(a, b), nil
	}
	if ra <= 2 && rb <= 2 {
		x, y := toInt64(a), toInt64(b)
		if y == -1 {
			return fitLike(0, max(ra, rb)), nil
		}
		return fitLike(x%y, max(ra, rb)), nil
	}
	return math.Mod(query.ToFloat(a), query.ToFloat(b)), nil
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int32:
		return int64(x)
	case int64:
		return x
	}
	return int64(query.ToFloat(v))
}

func fitLike(n int64, rank int) any {
	if rank == 1 {
		return int32(n)
	}
	return n
}

func numeric1(op string, f func(float64) float64) opFunc {
	return func(args []any) (any, error) {
		a := args[0]
		if nullish(a) {
			return nil, nil
		}
		switch x := a.(type) {
		case int32:
			if op == "$abs" && x < 0 {
				if x == math.MinInt32 {
					return -int64(x), nil
				}
				return -x, nil
			}
			return x, nil
		case int64:
			if op == "$abs" && x < 0 {
				if x == math.MinInt64 {
					return nil, document.Errorf(document.Code(28680), "can't take $abs of long long min")
				}
				return -x, nil
			}
			return x, nil
		case float64:
			return f(x), nil
		case bson.Decimal128:
			switch op {
			case "$abs":
				return query.DecimalAbs(x), nil
			case "$floor":
				return query.DecimalFloor(x), nil
			case "$ceil":
				return query.DecimalCeil(x), nil
			}
			return query.ToDecimal(f(query.ToFloat(x))), nil
		}
		return nil, document.Errorf(document.Code(28765), "%s only supports numeric types, not %s", op, document.TypeName(a))
	}
}

func cmpOp(ok func(int) bool) collOpFunc {
	return func(c *collation.Collator, args []any) (any, error) {
		return ok(c.CompareValues(orNull(args[0]), orNull(args[1]))), nil
	}
}

// orNull compares a missing value as MongoDB's expressions do: below
// null, as the absent value it is. document.Compare has no missing, so use
// MinKey's neighbour: missing compares lower than everything but MinKey.
func orNull(v any) any {
	if isMissing(v) {
		return bson.Undefined{}
	}
	return v
}

func opCmp(c *collation.Collator, args []any) (any, error) {
	return int32(c.CompareValues(orNull(args[0]), orNull(args[1]))), nil
}

func opIfNull(args []any) (any, error) {
	for _, a := range args[:len(args)-1] {
		if !nullish(a) {
			return a, nil
		}
	}
	return args[len(args)-1], nil
}

func opConcat(args []any) (any, error) {
	var b strings.Builder
	for _, a := range args {
		if nullish(a) {
			return nil, nil
		}
		s, ok := a.(string)
		if !ok {
			return nil, document.Errorf(document.Code(16702), "$concat only supports strings, not %s", document.TypeName(a))
		}
		if b.Len()+len(s) > maxExprBytes {
			return nil, document.Errorf(document.CodeExceededMemoryLimit, "$concat would use too much memory and cannot spill")
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// stringCase is $toLower or $toUpper: the argument as mongod coerces it
// to a string (null and missing are "", a number or a date its text,
// anything else 16007), its ASCII letters in the other case. mongod
// leaves other letters as they are, and so does this.
func stringCase(f func(string) string) opFunc {
	return func(args []any) (any, error) {
		s, err := coerceToString(args[0])
		if err != nil {
			return nil, err
		}
		return f(s), nil
	}
}

func opStrLen(args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return nil, document.Errorf(document.Code(34471), "$strLenCP requires a string argument, found: %s", typeOrMissing(args[0]))
	}
	return int32(len([]rune(s))), nil
}

func typeOrMissing(v any) string {
	if isMissing(v) {
		return "missing"
	}
	return document.TypeName(v)
}

func opSize(args []any) (any, error) {
	a, ok := args[0].(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(17124), "The argument to $size must be an array. Type of argument: %s", typeOrMissing(args[0]))
	}
	return int32(len(a)), nil
}

func opIn(c *collation.Collator, args []any) (any, error) {
	arr, ok := args[1].(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(40081), "$in requires an array as a second argument, found: %s", typeOrMissing(args[1]))
	}
	for _, el := range arr {
		if c.CompareValues(orNull(args[0]), el) == 0 {
			return true, nil
		}
	}
	return false, nil
}

func opArrayElemAt(args []any) (any, error) {
	if nullish(args[0]) || nullish(args[1]) {
		return nil, nil
	}
	arr, ok := args[0].(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(28689), "$arrayElemAt's first argument must be an array, but is %s", document.TypeName(args[0]))
	}
	if !document.IsNumber(args[1]) {
		return nil, document.Errorf(document.Code(28690), "$arrayElemAt's second argument must be a numeric value, but is %s", document.TypeName(args[1]))
	}
	if f := query.ToFloat(args[1]); f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return nil, document.Errorf(document.Code(28691), "$arrayElemAt's second argument must be representable as a 32-bit integer: %s", fmtDouble(f))
	}
	i := int(query.ToFloat(args[1]))
	if i < 0 {
		i += len(arr)
	}
	if i < 0 || i >= len(arr) {
		return missing, nil
	}
	return arr[i], nil
}

func opType(args []any) (any, error) {
	if isMissing(args[0]) {
		return "missing", nil
	}
	return document.TypeName(args[0]), nil
}
