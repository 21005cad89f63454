package agg

import (
	"slices"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The set operators: arrays read as sets of values that compare as BSON
// values do (1, NumberLong(1) and 1.0 are one element), as mongod's
// ValueSet holds them. $setUnion and $setIntersection give their result
// in BSON order, as mongod's ordered set does; $setDifference keeps the
// order of its first array. Each keeps the first of equal elements.

// addSetOps adds them to listOps (ops.go's init calls it).
func addSetOps() {
	addCollOp("$setUnion", 0, -1, opSetUnion)
	addCollOp("$setIntersection", 0, -1, opSetIntersection)
	addCollOp("$setDifference", 2, 2, opSetDifference)
	addCollOp("$setEquals", 2, -1, opSetEquals)
	arityRefusals["$setEquals"] = func(n int) error {
		return document.Errorf(document.Code(17045), "$setEquals needs at least two arguments had: %d", n)
	}
	addCollOp("$setIsSubset", 2, 2, opSetIsSubset)
	listOps["$allElementsTrue"] = opSpec{1, 1, elementsTrue("$allElementsTrue", 17040, true)}
	listOps["$anyElementTrue"] = opSpec{1, 1, elementsTrue("$anyElementTrue", 17041, false)}
}

// valueSet is a set of BSON values, keyed by collKey under one
// collation.
type valueSet map[string]bool

// collKey is GroupKey of v with its strings compared under c: equal for
// values equal under the collation ("a" and "A" at strength 2).
func collKey(c *collation.Collator, v any) string { return GroupKey(c.KeyValue(v)) }

// newValueSet holds the distinct values of arr under c.
func newValueSet(c *collation.Collator, arr bson.A) valueSet {
	s := make(valueSet, len(arr))
	for _, v := range arr {
		s[collKey(c, v)] = true
	}
	return s
}

func (s valueSet) has(c *collation.Collator, v any) bool { return s[collKey(c, v)] }

// distinct is arr without the later of equal elements under c.
func distinct(c *collation.Collator, arr bson.A) bson.A {
	seen := valueSet{}
	out := bson.A{}
	for _, v := range arr {
		if k := collKey(c, v); !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}

// sortedSet is arr's distinct values in BSON order under c.
func sortedSet(c *collation.Collator, arr bson.A) bson.A {
	out := distinct(c, arr)
	slices.SortStableFunc(out, c.CompareValues)
	return out
}

// setArg is args[i] as an array for a set operator that fails with code
// when it is not one.
func setArg(code int, msg string, v any) (bson.A, error) {
	arr, ok := v.(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(code), "%s%s", msg, typeOrMissing(v))
	}
	return arr, nil
}

// opSetUnion is the distinct values of all its arrays; null when one is
// null or missing.
func opSetUnion(c *collation.Collator, args []any) (any, error) {
	var all bson.A
	for _, a := range args {
		if nullish(a) {
			return nil, nil
		}
		arr, err := setArg(17043, "All operands of $setUnion must be arrays. One argument is of type: ", a)
		if err != nil {
			return nil, err
		}
		all = append(all, arr...)
	}
	return sortedSet(c, all), nil
}

// opSetIntersection is the distinct values every array holds; null when
// one is null or missing.
func opSetIntersection(c *collation.Collator, args []any) (any, error) {
	var cur bson.A
	for i, a := range args {
		if nullish(a) {
			return nil, nil
		}
		arr, err := setArg(17047, "All operands of $setIntersection must be arrays. One argument is of type: ", a)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			cur = distinct(c, arr)
			continue
		}
		in := newValueSet(c, arr)
		cur = slices.DeleteFunc(cur, func(v any) bool { return !in.has(c, v) })
	}
	return sortedSet(c, cur), nil
}

// opSetDifference is the distinct values of the first array that the
// second does not hold, in the first's order; null when either is null
// or missing.
func opSetDifference(c *collation.Collator, args []any) (any, error) {
	if nullish(args[0]) || nullish(args[1]) {
		return nil, nil
	}
	lhs, err := setArg(17048, "both operands of $setDifference must be arrays. First argument is of type: ", args[0])
	if err != nil {
		return nil, err
	}
	rhs, err := setArg(17049, "both operands of $setDifference must be arrays. Second argument is of type: ", args[1])
	if err != nil {
		return nil, err
	}
	seen := newValueSet(c, rhs)
	out := bson.A{}
	for _, v := range lhs {
		if k := collKey(c, v); !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out, nil
}

// opSetEquals reports whether all its arrays hold the same distinct
// values. Null and missing are refused, as mongod does.
func opSetEquals(c *collation.Collator, args []any) (any, error) {
	var first valueSet
	for i, a := range args {
		arr, ok := a.(bson.A)
		if !ok {
			return nil, document.Errorf(document.Code(17044), "All operands of $setEquals must be arrays. %d-th argument is of type: %s", i+1, typeOrMissing(a))
		}
		s := newValueSet(c, arr)
		if i == 0 {
			first = s
			continue
		}
		if len(s) != len(first) {
			return false, nil
		}
		for k := range s {
			if !first[k] {
				return false, nil
			}
		}
	}
	return true, nil
}

// opSetIsSubset reports whether every value of the first array is in the
// second. Null and missing are refused, as mongod does.
func opSetIsSubset(c *collation.Collator, args []any) (any, error) {
	lhs, err := setArg(17046, "both operands of $setIsSubset must be arrays. First argument is of type: ", args[0])
	if err != nil {
		return nil, err
	}
	rhs, err := setArg(17042, "both operands of $setIsSubset must be arrays. Second argument is of type: ", args[1])
	if err != nil {
		return nil, err
	}
	in := newValueSet(c, rhs)
	for _, v := range lhs {
		if !in.has(c, v) {
			return false, nil
		}
	}
	return true, nil
}

// elementsTrue is $allElementsTrue (all) or $anyElementTrue: the truth
// of an array's elements as $cond reads them.
func elementsTrue(op string, code int, all bool) opFunc {
	return func(args []any) (any, error) {
		arr, err := setArg(code, op+"'s argument must be an array, but is ", args[0])
		if err != nil {
			return nil, err
		}
		for _, v := range arr {
			if Truthy(v) != all {
				return !all, nil
			}
		}
		return all, nil
	}
}
