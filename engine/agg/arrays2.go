package agg

import (
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $arrayToObject, $zip and $sortArray (docs/aggregation.md, "arrays").

// putField sets k to v in d: in the place of a field k already there,
// else at the end; a missing v removes k. It returns the document.
func putField(d bson.D, k string, v any) bson.D {
	i := slices.IndexFunc(d, func(el bson.E) bool { return el.Key == k })
	switch {
	case isMissing(v) && i >= 0:
		return slices.Delete(d, i, i+1)
	case isMissing(v):
		return d
	case i >= 0:
		d[i].Value = v
		return d
	}
	return append(d, bson.E{Key: k, Value: v})
}

// opArrayToObject is {$arrayToObject: array}: a document from [[k, v]]
// pairs or [{k, v}] documents (the first element tells which, and all
// must be alike). A key given twice keeps its first place and its last
// value, as mongod's document builder does.
func opArrayToObject(args []any) (any, error) {
	if nullish(args[0]) {
		return nil, nil
	}
	arr, ok := args[0].(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(40386), "$arrayToObject requires an array input, found: %s", document.TypeName(args[0]))
	}
	out := bson.D{}
	if len(arr) == 0 {
		return out, nil
	}
	_, pairs := arr[0].(bson.A)
	if _, isDoc := arr[0].(bson.D); !pairs && !isDoc {
		return nil, document.Errorf(document.Code(40398), "Unrecognised input type format for $arrayToObject: %s", document.TypeName(arr[0]))
	}
	for _, el := range arr {
		var k, v any
		if pairs {
			kv, ok := el.(bson.A)
			if !ok {
				return nil, document.Errorf(document.Code(40396), "$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects. Array was detected, now found: %s", document.TypeName(el))
			}
			if len(kv) != 2 {
				return nil, document.Errorf(document.Code(40397), "$arrayToObject requires an array of size 2 arrays,found array of size: %d", len(kv))
			}
			if _, ok := kv[0].(string); !ok {
				return nil, document.Errorf(document.Code(40395), "$arrayToObject requires an array of key-value pairs, where the key must be of type string. Found key type: %s", document.TypeName(kv[0]))
			}
			k, v = kv[0], kv[1]
		} else {
			d, ok := el.(bson.D)
			if !ok {
				return nil, document.Errorf(document.Code(40391), "$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects. Object was detected, now found: %s", document.TypeName(el))
			}
			if len(d) != 2 {
				return nil, document.Errorf(document.Code(40392), "$arrayToObject requires an object keys of 'k' and 'v'. Found incorrect number of keys:%d", len(d))
			}
			var hasK, hasV bool
			k, hasK = docGet(d, "k")
			v, hasV = docGet(d, "v")
			if !hasK || !hasV {
				return nil, document.Errorf(document.Code(40393), "$arrayToObject requires an object with keys 'k' and 'v'. Missing either or both keys from: %s", document.Format(d))
			}
			if _, ok := k.(string); !ok {
				return nil, document.Errorf(document.Code(40394), "$arrayToObject requires an object with keys 'k' and 'v', where the value of 'k' must be of type string. Found type: %s", document.TypeName(k))
			}
		}
		key := k.(string)
		if strings.IndexByte(key, 0) >= 0 {
			code := 4940401
			if pairs {
				code = 4940400
			}
			return nil, document.Errorf(document.Code(code), "Key field cannot contain an embedded null byte")
		}
		out = putField(out, key, v)
	}
	return out, nil
}

// zipExpr is {$zip: {inputs, useLongestLength, defaults}}.
type zipExpr struct {
	inputs, defaults []Expr
	longest          bool
}

func parseZip(arg any, depth pdepth) (Expr, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(34460), "$zip only supports an object as an argument, found %s", document.TypeName(arg))
	}
	z := zipExpr{}
	list := func(v any, code int, what string) ([]Expr, error) {
		if _, ok := v.(bson.A); !ok {
			return nil, document.Errorf(document.Code(code), "%s must be an array of expressions, found %s", what, document.TypeName(v))
		}
		return parseArgs(v, depth)
	}
	for _, el := range d {
		var err error
		switch el.Key {
		case "inputs":
			z.inputs, err = list(el.Value, 34461, "inputs")
		case "defaults":
			z.defaults, err = list(el.Value, 34462, "defaults")
		case "useLongestLength":
			b, ok := el.Value.(bool)
			if !ok {
				return nil, document.Errorf(document.Code(34463), "useLongestLength must be a bool, found %s", document.TypeName(el.Value))
			}
			z.longest = b
		default:
			return nil, document.Errorf(document.Code(34464), "$zip found an unknown argument: %s", el.Key)
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case len(z.inputs) == 0:
		return nil, document.Errorf(document.Code(34465), "$zip requires at least one input array")
	case !z.longest && len(z.defaults) > 0:
		return nil, document.Errorf(document.Code(34466), "cannot specify defaults unless useLongestLength is true")
	case len(z.defaults) > 0 && len(z.defaults) != len(z.inputs):
		return nil, document.Errorf(document.Code(34467), "defaults and inputs must have the same length")
	}
	return z, nil
}

// Eval transposes the input arrays: the i-th array of the result holds
// the i-th element of each input, for as many rows as the shortest input
// has (the longest with useLongestLength, the shorter ones padded with
// their default, null by default). A null or missing input gives null.
func (z zipExpr) Eval(e *Env) (any, error) {
	arrays := make([]bson.A, len(z.inputs))
	shortest, longest := -1, 0
	for i, in := range z.inputs {
		v, err := in.Eval(e)
		if err != nil || nullish(v) {
			return nil, err
		}
		arr, ok := v.(bson.A)
		if !ok {
			return nil, document.Errorf(document.Code(34468), "$zip found a non-array expression in input: %s", document.Format(v))
		}
		arrays[i] = arr
		if shortest < 0 || len(arr) < shortest {
			shortest = len(arr)
		}
		longest = max(longest, len(arr))
	}
	pads := make(bson.A, len(arrays))
	if shortest != longest {
		for i, d := range z.defaults {
			v, err := d.Eval(e)
			if err != nil {
				return nil, err
			}
			if !isMissing(v) {
				pads[i] = v
			}
		}
	}
	rows := shortest
	if z.longest {
		rows = longest
	}
	out := make(bson.A, 0, rows)
	used := int64(0)
	for r := range rows {
		row := make(bson.A, len(arrays))
		for c, arr := range arrays {
			if r < len(arr) {
				row[c] = arr[r]
			} else {
				row[c] = pads[c]
			}
		}
		// A default repeats once a row: bound what the rows hold, as
		// $concatArrays is bounded.
		if used += approxSize(row); used > maxExprBytes {
			return nil, document.Errorf(document.CodeExceededMemoryLimit, "$zip would use too much memory and cannot spill")
		}
		out = append(out, row)
	}
	return out, nil
}

// sortArrayExpr is {$sortArray: {input, sortBy}}: sortBy 1 or -1 sorts
// whole values, a document sorts documents by its fields.
type sortArrayExpr struct {
	input Expr
	by    *query.Sort // nil: whole values
	desc  bool
}

func parseSortArray(arg any, depth pdepth) (Expr, error) {
	a, err := parseBinding(arg, bindingErrs{
		notObject: func(arg any) error {
			return document.Errorf(document.Code(2942500), "$sortArray requires an object as an argument, found: %s", document.TypeName(arg))
		},
		unknown: func(name string) error {
			return document.Errorf(document.Code(2942501), "$sortArray found an unknown argument: %s", name)
		},
	}, "input", "sortBy")
	if err != nil {
		return nil, err
	}
	input, hasInput := a["input"]
	sortBy, hasSortBy := a["sortBy"]
	if !hasInput {
		return nil, document.Errorf(document.Code(2942502), "$sortArray requires 'input' to be specified")
	}
	if !hasSortBy {
		return nil, document.Errorf(document.Code(2942503), "$sortArray requires 'sortBy' to be specified")
	}
	s := sortArrayExpr{}
	if s.input, err = parseExpr(input, depth.deeper()); err != nil {
		return nil, err
	}
	if s.by, s.desc, err = parseSortBy(sortBy); err != nil {
		return nil, err
	}
	return s, nil
}

// parseSortBy reads a sortBy: a sort document (as $sort reads it), or 1
// or -1 for whole values (by nil and desc).
func parseSortBy(v any) (by *query.Sort, desc bool, err error) {
	if d, ok := v.(bson.D); ok {
		by, err := query.ParseSort(d)
		return by, false, err
	}
	// A direction alone is read as the one key of a sort document.
	s, err := query.ParseSort(bson.D{{Key: "v", Value: v}})
	if err != nil {
		return nil, false, document.Errorf(document.Code(2942506), "The $sort element value must be either 1 or -1")
	}
	return nil, s.Keys()[0].Desc, nil
}

// compareBy orders a and b by a sortBy: whole values in BSON order, or
// documents by the sort's fields, where a value that is not a document
// sorts as one with none of them; whole values compare under coll, and
// by carries its own collation.
func compareBy(coll *collation.Collator, by *query.Sort, desc bool, a, b any) int {
	if by == nil {
		c := coll.CompareValues(a, b)
		if desc {
			c = -c
		}
		return c
	}
	da, _ := a.(bson.D)
	db, _ := b.(bson.D)
	return by.Compare(da, db) // by is collated already
}

// Eval sorts the input array (stably); null for null or missing.
func (s sortArrayExpr) Eval(e *Env) (any, error) {
	v, err := s.input.Eval(e)
	if err != nil || nullish(v) {
		return nil, err
	}
	arr, ok := v.(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(2942504), "The input argument to $sortArray must be an array, but was of type: %s", document.TypeName(v))
	}
	out := slices.Clone(arr)
	by := s.by.Collate(e.coll)
	slices.SortStableFunc(out, func(a, b any) int { return compareBy(e.coll, by, s.desc, a, b) })
	return out, nil
}
