package agg

import (
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// More of mongod's expression operators: $concatArrays, $isArray,
// $mergeObjects, $first, $last, $reverseArray, $slice, $split,
// $switch, and the accumulators' expression forms ($sum, $avg, $min,
// $max, $stdDevPop, $stdDevSamp).

// addArrayOps adds them to listOps (ops.go's init calls it, after
// making the map).
func addArrayOps() {
	listOps["$concatArrays"] = opSpec{0, -1, opConcatArrays}
	listOps["$isArray"] = opSpec{1, 1, func(a []any) (any, error) { _, ok := a[0].(bson.A); return ok, nil }}
	listOps["$mergeObjects"] = opSpec{0, -1, opMergeObjects}
	listOps["$first"] = opSpec{1, 1, arrayEnd("$first", true)}
	listOps["$last"] = opSpec{1, 1, arrayEnd("$last", false)}
	listOps["$reverseArray"] = opSpec{1, 1, opReverseArray}
	listOps["$slice"] = opSpec{2, 3, opSlice}
	listOps["$split"] = opSpec{2, 2, opSplit}
	listOps["$range"] = opSpec{2, 3, opRange}
	listOps["$objectToArray"] = opSpec{1, 1, opObjectToArray}
	addCollOp("$indexOfArray", 2, 4, opIndexOfArray)
	listOps["$arrayToObject"] = opSpec{1, 1, opArrayToObject}
	for _, op := range []string{"$sum", "$avg", "$min", "$max", "$stdDevPop", "$stdDevSamp"} {
		addCollOp(op, 0, -1, accumulatorExpr(op))
	}
}

// opConcatArrays joins its arrays; a null or missing one makes it null.
func opConcatArrays(args []any) (any, error) {
	out := bson.A{}
	var size int64
	for _, a := range args {
		if nullish(a) {
			return nil, nil
		}
		arr, ok := a.(bson.A)
		if !ok {
			return nil, document.Errorf(document.Code(28664), "$concatArrays only supports arrays, not %s", document.TypeName(a))
		}
		if size += approxSize(arr); size > maxExprBytes {
			return nil, document.Errorf(document.CodeExceededMemoryLimit, "$concatArrays would use too much memory and cannot spill")
		}
		out = append(out, arr...)
	}
	return out, nil
}

// opMergeObjects merges its documents left to right: a later field
// replaces an earlier one in its place; null and missing are skipped.
func opMergeObjects(args []any) (any, error) {
	out := bson.D{}
	for _, a := range args {
		if nullish(a) {
			continue
		}
		var err error
		if out, err = mergeObject(out, a); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mergeObject merges the document a into out, as $mergeObjects does (a
// later field replaces an earlier one in its place); a that is not a
// document is 40400.
func mergeObject(out bson.D, a any) (bson.D, error) {
	d, ok := a.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(40400), "$mergeObjects requires object inputs, but input %s is of type %s", valueString(a), document.TypeName(a))
	}
	for _, el := range d {
		out = putField(out, el.Key, el.Value)
	}
	return out, nil
}

// accumulatorExpr is an accumulator used as an expression, as mongod
// reads it: one argument that is an array gives its elements, one that
// is not gives itself, several give each of them (an array among
// several is one value).
func accumulatorExpr(op string) collOpFunc {
	return func(c *collation.Collator, args []any) (any, error) {
		acc := newAcc(op, c)
		if len(args) == 1 {
			if arr, ok := args[0].(bson.A); ok {
				args = arr
			}
		}
		for _, v := range args {
			if err := acc.add(v); err != nil {
				return nil, err
			}
		}
		return acc.result(), nil
	}
}

// switchExpr is {$switch: {branches: [{case, then}...], default}}.
type switchExpr struct {
	cases, thens []Expr
	def          Expr
}

func parseSwitch(arg any, depth pdepth) (Expr, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(40060), "$switch requires an object as an argument, found: %s", document.TypeName(arg))
	}
	s := switchExpr{}
	for _, el := range spec {
		switch el.Key {
		case "branches":
			branches, ok := el.Value.(bson.A)
			if !ok {
				return nil, document.Errorf(document.Code(40061), "$switch expected an array for 'branches', found: %s", document.TypeName(el.Value))
			}
			for _, b := range branches {
				bd, ok := b.(bson.D)
				if !ok {
					return nil, document.Errorf(document.Code(40062), "$switch expected each branch to be an object, found: %s", document.TypeName(b))
				}
				var c, t Expr
				for _, be := range bd {
					var err error
					switch be.Key {
					case "case":
						c, err = parseExpr(be.Value, depth.deeper())
					case "then":
						t, err = parseExpr(be.Value, depth.deeper())
					default:
						return nil, document.Errorf(document.Code(40063), "$switch found an unknown argument to a branch: %s", be.Key)
					}
					if err != nil {
						return nil, err
					}
				}
				if c == nil {
					return nil, document.Errorf(document.Code(40064), "$switch requires each branch have a 'case' expression")
				}
				if t == nil {
					return nil, document.Errorf(document.Code(40065), "$switch requires each branch have a 'then' expression.")
				}
				s.cases, s.thens = append(s.cases, c), append(s.thens, t)
			}
		case "default":
			d, err := parseExpr(el.Value, depth.deeper())
			if err != nil {
				return nil, err
			}
			s.def = d
		default:
			return nil, document.Errorf(document.Code(40067), "$switch found an unknown argument: %s", el.Key)
		}
	}
	if len(s.cases) == 0 {
		return nil, document.Errorf(document.Code(40068), "$switch requires at least one branch.")
	}
	return s, nil
}

func (s switchExpr) Eval(e *Env) (any, error) {
	for i, c := range s.cases {
		v, err := c.Eval(e)
		if err != nil {
			return nil, err
		}
		if Truthy(v) {
			return s.thens[i].Eval(e)
		}
	}
	if s.def == nil {
		return nil, document.Errorf(document.Code(40066), "$switch could not find a matching branch for an input, and no default was specified.")
	}
	return s.def.Eval(e)
}

// arrayEnd is $first or $last of an array: null for null or missing,
// missing for an empty array.
func arrayEnd(op string, first bool) opFunc {
	return func(args []any) (any, error) {
		if nullish(args[0]) {
			return nil, nil
		}
		arr, ok := args[0].(bson.A)
		if !ok {
			return nil, document.Errorf(document.Code(28689), "%s's argument must be an array, but is %s", op, document.TypeName(args[0]))
		}
		switch {
		case len(arr) == 0:
			return missing, nil
		case first:
			return arr[0], nil
		}
		return arr[len(arr)-1], nil
	}
}

func opReverseArray(args []any) (any, error) {
	if nullish(args[0]) {
		return nil, nil
	}
	arr, ok := args[0].(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(34435), "The argument to $reverseArray must be an array, but was of type: %s", document.TypeName(args[0]))
	}
	out := slices.Clone(arr)
	slices.Reverse(out)
	return out, nil
}

// opSlice is {$slice: [array, n]} (the first n, or the last -n) or
// {$slice: [array, position, n]} (n from position, which counts from
// the end when negative).
func opSlice(args []any) (any, error) {
	for _, a := range args {
		if nullish(a) {
			return nil, nil
		}
	}
	arr, ok := args[0].(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(28724), "First argument to $slice must be an array, but is of type: %s", document.TypeName(args[0]))
	}
	if !document.IsNumber(args[1]) {
		return nil, document.Errorf(document.Code(28725), "Second argument to $slice must be a numeric value, but is of type: %s", document.TypeName(args[1]))
	}
	second32, ok := int32Value(args[1])
	second := int(second32)
	if !ok {
		return nil, document.Errorf(document.Code(28726), "Second argument to $slice can't be represented as a 32-bit integer: %s", document.Format(args[1]))
	}
	n := len(arr)
	if len(args) == 2 {
		if second >= 0 {
			return slices.Clone(arr[:min(second, n)]), nil
		}
		return slices.Clone(arr[max(n+second, 0):]), nil
	}
	if !document.IsNumber(args[2]) {
		return nil, document.Errorf(document.Code(28727), "Third argument to $slice must be numeric, but is of type: %s", document.TypeName(args[2]))
	}
	count32, ok := int32Value(args[2])
	count := int(count32)
	if !ok {
		return nil, document.Errorf(document.Code(28728), "Third argument to $slice can't be represented as a 32-bit integer: %s", document.Format(args[2]))
	}
	if count <= 0 {
		return nil, document.Errorf(document.Code(28729), "Third argument to $slice must be positive: %d", count)
	}
	start := second
	if start < 0 {
		start = max(n+start, 0)
	}
	start = min(start, n)
	return slices.Clone(arr[start:min(start+count, n)]), nil
}

func opSplit(args []any) (any, error) {
	if nullish(args[0]) || nullish(args[1]) {
		return nil, nil
	}
	str, ok := args[0].(string)
	if !ok {
		return nil, document.Errorf(document.Code(40085), "$split requires an expression that evaluates to a string as a first argument, found: %s", document.TypeName(args[0]))
	}
	sep, ok := args[1].(string)
	if !ok {
		return nil, document.Errorf(document.Code(40086), "$split requires an expression that evaluates to a string as a second argument, found: %s", document.TypeName(args[1]))
	}
	if sep == "" {
		return nil, document.Errorf(document.Code(40087), "$split requires a non-empty separator")
	}
	out := bson.A{}
	for _, p := range strings.Split(str, sep) {
		out = append(out, p)
	}
	return out, nil
}

// opRange is {$range: [start, end, step]}: the int32s from start toward
// end (not included) by step (1 by default).
func opRange(args []any) (any, error) {
	names := []string{"starting", "ending", "step"}
	a := []string{"a", "an", "a"}
	codes := [][2]int{{34443, 34444}, {34445, 34446}, {34447, 34448}}
	vals := []int64{0, 0, 1}
	for i, v := range args {
		if !document.IsNumber(v) {
			return nil, document.Errorf(document.Code(codes[i][0]), "$range requires a numeric %s value, found value of type: %s", names[i], document.TypeName(v))
		}
		n, ok := int32Value(v)
		if !ok {
			return nil, document.Errorf(document.Code(codes[i][1]), "$range requires %s %s value that can be represented as a 32-bit integer, found value: %s", a[i], names[i], fmtNumber(v))
		}
		vals[i] = int64(n)
	}
	start, end, step := vals[0], vals[1], vals[2]
	if step == 0 {
		return nil, document.Errorf(document.Code(34449), "$range requires a non-zero step value")
	}
	count := int64(0)
	if (step > 0 && end > start) || (step < 0 && end < start) {
		count = (end - start + step - sign(step)) / step
	}
	if count*16 > maxExprBytes {
		return nil, document.Errorf(document.CodeExceededMemoryLimit, "$range would use too much memory and cannot spill")
	}
	out := make(bson.A, 0, count)
	for i := int64(0); i < count; i++ {
		out = append(out, int32(start+i*step))
	}
	return out, nil
}

func sign(n int64) int64 {
	if n < 0 {
		return -1
	}
	return 1
}

// opObjectToArray is {$objectToArray: doc}: its fields as [{k, v}].
func opObjectToArray(args []any) (any, error) {
	v := args[0]
	if nullish(v) {
		return nil, nil
	}
	d, ok := v.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(40390), "$objectToArray requires a document input, found: %s", document.TypeName(v))
	}
	out := make(bson.A, 0, len(d))
	for _, el := range d {
		out = append(out, bson.D{{Key: "k", Value: el.Key}, {Key: "v", Value: el.Value}})
	}
	return out, nil
}

// opIndexOfArray is {$indexOfArray: [array, value, start, end]}: the
// first index from start (inclusive) to end (exclusive) where the array
// holds value, compared as BSON values; -1 when none.
func opIndexOfArray(c *collation.Collator, args []any) (any, error) {
	if nullish(args[0]) {
		return nil, nil
	}
	arr, ok := args[0].(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(40090), "$indexOfArray requires an array as a first argument, found: %s", document.TypeName(args[0]))
	}
	start, end := 0, len(arr)
	var err error
	if len(args) > 2 {
		if start, err = indexBound("$indexOfArray", args[2], "starting"); err != nil {
			return nil, err
		}
	}
	if len(args) > 3 {
		if end, err = indexBound("$indexOfArray", args[3], "ending"); err != nil {
			return nil, err
		}
	}
	for i := start; i < min(end, len(arr)); i++ {
		if c.CompareValues(arr[i], args[1]) == 0 {
			return int32(i), nil
		}
	}
	return int32(-1), nil
}
