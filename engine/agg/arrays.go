package agg

import (
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// More of mongod's expression operators: $concatArrays, $isArray,
// $mergeObjects, $switch, and the accumulators' expression forms
// ($sum, $avg, $min, $max, $stdDevPop, $stdDevSamp).

// addArrayOps adds them to listOps (ops.go's init calls it, after
// making the map).
func addArrayOps() {
	listOps["$concatArrays"] = opSpec{0, -1, opConcatArrays}
	listOps["$isArray"] = opSpec{1, 1, func(a []any) (any, error) { _, ok := a[0].(bson.A); return ok, nil }}
	listOps["$mergeObjects"] = opSpec{0, -1, opMergeObjects}
	for _, op := range []string{"$sum", "$avg", "$min", "$max", "$stdDevPop", "$stdDevSamp"} {
		listOps[op] = opSpec{0, -1, accumulatorExpr(op)}
	}
}

// opConcatArrays joins its arrays; a null or missing one makes it null.
func opConcatArrays(args []any) (any, error) {
	out := bson.A{}
	for _, a := range args {
		if nullish(a) {
			return nil, nil
		}
		arr, ok := a.(bson.A)
		if !ok {
			return nil, document.Errorf(document.Code(28664), "$concatArrays only supports arrays, not %s", document.TypeName(a))
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
		d, ok := a.(bson.D)
		if !ok {
			return nil, document.Errorf(document.Code(40400), "$mergeObjects requires object inputs, but input %s is of type %s", document.Format(a), document.TypeName(a))
		}
	fields:
		for _, el := range d {
			for i := range out {
				if out[i].Key == el.Key {
					out[i].Value = el.Value
					continue fields
				}
			}
			out = append(out, el)
		}
	}
	return out, nil
}

// accumulatorExpr is an accumulator used as an expression, as mongod
// reads it: one argument that is an array gives its elements, one that
// is not gives itself, several give each of them (an array among
// several is one value).
func accumulatorExpr(op string) opFunc {
	return func(args []any) (any, error) {
		acc := newAcc(op)
		if len(args) == 1 {
			if arr, ok := args[0].(bson.A); ok {
				for _, v := range arr {
					acc.add(v)
				}
				return acc.result(), nil
			}
		}
		for _, v := range args {
			acc.add(v)
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
