package agg

import (
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
	"slices"
)

// The expressions that bind user variables: $let, $map, $filter and
// $reduce (docs/aggregation.md, "Variables"). Each parses its inner
// expression with its variables in scope, so a reference to a variable
// that is not is refused when the pipeline is parsed (17276), as mongod
// refuses it.

// checkVarName checks a variable name a user binds, as mongod does: a
// lowercase ASCII letter or a non-ASCII byte first, then letters,
// digits, underscores or non-ASCII bytes.
func checkVarName(name string) error {
	if name == "" {
		return document.Errorf(document.Code(16866), "empty variable names are not allowed")
	}
	if c := name[0]; !(c >= 'a' && c <= 'z' || c&0x80 != 0) {
		return document.Errorf(document.Code(16867), "'%s' starts with an invalid character for a user variable name", name)
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c&0x80 != 0) {
			return document.Errorf(document.Code(16868), "'%s' contains an invalid character for a variable name: '%c'", name, c)
		}
	}
	return nil
}

// asName is the variable name an "as" argument gives: "this" when it is
// absent, and an empty (refused) name when it is not a string, as
// mongod reads it.
func asName(v any, given bool) (string, error) {
	if !given {
		return "this", nil
	}
	s, _ := v.(string)
	return s, checkVarName(s)
}

// letExpr is {$let: {vars, in}}: the vars are evaluated where the $let
// is, then in with them bound.
type letExpr struct {
	names []string
	vals  []Expr
	in    Expr
}

func parseLet(arg any, depth pdepth) (Expr, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(16874), "$let only supports an object as its argument")
	}
	var vars, in any
	var hasVars, hasIn bool
	for _, el := range spec {
		switch el.Key {
		case "vars":
			vars, hasVars = el.Value, true
		case "in":
			in, hasIn = el.Value, true
		default:
			return nil, document.Errorf(document.Code(16875), "Unrecognized parameter to $let: %s", el.Key)
		}
	}
	if !hasVars {
		return nil, document.Errorf(document.Code(16876), "Missing 'vars' parameter to $let")
	}
	if !hasIn {
		return nil, document.Errorf(document.Code(16877), "Missing 'in' parameter to $let")
	}
	vd, ok := vars.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(10065), "invalid parameter: expected an object (vars)")
	}
	l := letExpr{}
	for _, el := range vd {
		if err := checkVarName(el.Key); err != nil {
			return nil, err
		}
		x, err := parseExpr(el.Value, depth.deeper())
		if err != nil {
			return nil, err
		}
		l.names = append(l.names, el.Key)
		l.vals = append(l.vals, x)
	}
	var err error
	if l.in, err = parseExpr(in, depth.deeper().with(l.names...)); err != nil {
		return nil, err
	}
	return l, nil
}

func (l letExpr) Eval(e *Env) (any, error) {
	inner := e
	for i, x := range l.vals {
		v, err := x.Eval(e)
		if err != nil {
			return nil, err
		}
		inner = inner.with(l.names[i], v)
	}
	return l.in.Eval(inner)
}

// mapExpr is {$map: {input, as, in}}.
type mapExpr struct {
	input, in Expr
	as        string
}

// filterExpr is {$filter: {input, as, cond, limit}}.
type filterExpr struct {
	input, cond, limit Expr
	as                 string
}

// reduceExpr is {$reduce: {input, initialValue, in}}, with $$this and
// $$value.
type reduceExpr struct {
	input, initial, in Expr
}

// bindingErrs are the refusals of $map, $filter or $reduce for an
// argument that is not an object and for an unknown argument.
type bindingErrs struct {
	notObject func(arg any) error
	unknown   func(name string) error
}

var (
	mapErrs = bindingErrs{
		notObject: func(any) error {
			return document.Errorf(document.Code(16878), "$map only supports an object as its argument")
		},
		unknown: func(name string) error {
			return document.Errorf(document.Code(16879), "Unrecognized parameter to $map: %s", name)
		},
	}
	filterErrs = bindingErrs{
		notObject: func(any) error {
			return document.Errorf(document.Code(28646), "$filter only supports an object as its argument")
		},
		unknown: func(name string) error {
			return document.Errorf(document.Code(28647), "Unrecognized parameter to $filter: %s", name)
		},
	}
	reduceErrs = bindingErrs{
		notObject: func(arg any) error {
			return document.Errorf(document.Code(40075), "$reduce requires an object as an argument, found: %s", document.TypeName(arg))
		},
		unknown: func(name string) error {
			return document.Errorf(document.Code(40076), "$reduce found an unknown argument: %s", name)
		},
	}
)

// parseBinding reads the arguments of $map, $filter or $reduce as they
// are (their expressions are parsed afterwards, some with a variable in
// scope): known names the arguments the operator takes.
func parseBinding(arg any, errs bindingErrs, known ...string) (map[string]any, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return nil, errs.notObject(arg)
	}
	got := map[string]any{}
	for _, el := range spec {
		if !slices.Contains(known, el.Key) {
			return nil, errs.unknown(el.Key)
		}
		got[el.Key] = el.Value
	}
	return got, nil
}

func parseMap(arg any, depth pdepth) (Expr, error) {
	a, err := parseBinding(arg, mapErrs, "input", "as", "in")
	if err != nil {
		return nil, err
	}
	if _, ok := a["input"]; !ok {
		return nil, document.Errorf(document.Code(16880), "Missing 'input' parameter to $map")
	}
	if _, ok := a["in"]; !ok {
		return nil, document.Errorf(document.Code(16882), "Missing 'in' parameter to $map")
	}
	m := mapExpr{}
	if m.input, err = parseExpr(a["input"], depth.deeper()); err != nil {
		return nil, err
	}
	asV, hasAs := a["as"]
	if m.as, err = asName(asV, hasAs); err != nil {
		return nil, err
	}
	if m.in, err = parseExpr(a["in"], depth.deeper().with(m.as)); err != nil {
		return nil, err
	}
	return m, nil
}

func (m mapExpr) Eval(e *Env) (any, error) {
	in, err := m.input.Eval(e)
	if err != nil || nullish(in) {
		return nil, err
	}
	arr, ok := in.(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(16883), "input to $map must be an array not %s", document.TypeName(in))
	}
	out := make(bson.A, 0, len(arr))
	var used int64
	for _, el := range arr {
		v, err := m.in.Eval(e.with(m.as, el))
		if err != nil {
			return nil, err
		}
		if isMissing(v) {
			v = nil
		}
		out = append(out, v)
		if used += approxSize(v); used > maxExprBytes {
			return nil, document.Errorf(document.CodeExceededMemoryLimit, "$map would use too much memory and cannot spill")
		}
	}
	return out, nil
}

// maxExprBytes bounds the value one $map, $reduce, $concatArrays,
// $concat or $range may build, mongod's internalQueryMaxMapFilterReduceBytes (100 MiB): past
// it they fail with 146 ExceededMemoryLimit rather than take the
// process's memory.
const maxExprBytes = 100 << 20

func parseFilter(arg any, depth pdepth) (Expr, error) {
	a, err := parseBinding(arg, filterErrs, "input", "as", "cond", "limit")
	if err != nil {
		return nil, err
	}
	if _, ok := a["input"]; !ok {
		return nil, document.Errorf(document.Code(28648), "Missing 'input' parameter to $filter")
	}
	if _, ok := a["cond"]; !ok {
		return nil, document.Errorf(document.Code(28650), "Missing 'cond' parameter to $filter")
	}
	f := filterExpr{}
	if f.input, err = parseExpr(a["input"], depth.deeper()); err != nil {
		return nil, err
	}
	asV, hasAs := a["as"]
	if f.as, err = asName(asV, hasAs); err != nil {
		return nil, err
	}
	if lim, ok := a["limit"]; ok {
		if f.limit, err = parseExpr(lim, depth.deeper()); err != nil {
			return nil, err
		}
	}
	if f.cond, err = parseExpr(a["cond"], depth.deeper().with(f.as)); err != nil {
		return nil, err
	}
	return f, nil
}

func (f filterExpr) Eval(e *Env) (any, error) {
	in, err := f.input.Eval(e)
	if err != nil || nullish(in) {
		return nil, err
	}
	arr, ok := in.(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(28651), "input to $filter must be an array not %s", document.TypeName(in))
	}
	if len(arr) == 0 {
		return arr, nil
	}
	limit := -1
	if f.limit != nil {
		lv, err := f.limit.Eval(e)
		if err != nil {
			return nil, err
		}
		if !nullish(lv) {
			n, ok := int32Value(lv)
			if !ok {
				return nil, document.Errorf(document.Code(327391), "$filter: limit must be represented as a 32-bit integral value: %s", document.Format(lv))
			}
			if n <= 0 {
				return nil, document.Errorf(document.Code(327392), "$filter: limit must be greater than 0: %s", document.Format(lv))
			}
			limit = int(n)
		}
	}
	out := bson.A{}
	for _, el := range arr {
		c, err := f.cond.Eval(e.with(f.as, el))
		if err != nil {
			return nil, err
		}
		if Truthy(c) {
			out = append(out, el)
			if len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

func parseReduce(arg any, depth pdepth) (Expr, error) {
	a, err := parseBinding(arg, reduceErrs, "input", "initialValue", "in")
	if err != nil {
		return nil, err
	}
	r := reduceExpr{}
	if v, ok := a["input"]; ok {
		if r.input, err = parseExpr(v, depth.deeper()); err != nil {
			return nil, err
		}
	}
	if v, ok := a["initialValue"]; ok {
		if r.initial, err = parseExpr(v, depth.deeper()); err != nil {
			return nil, err
		}
	}
	if v, ok := a["in"]; ok {
		if r.in, err = parseExpr(v, depth.deeper().with("this", "value")); err != nil {
			return nil, err
		}
	}
	switch {
	case r.input == nil:
		return nil, document.Errorf(document.Code(40077), "$reduce requires 'input' to be specified")
	case r.initial == nil:
		return nil, document.Errorf(document.Code(40078), "$reduce requires 'initialValue' to be specified")
	case r.in == nil:
		return nil, document.Errorf(document.Code(40079), "$reduce requires 'in' to be specified")
	}
	return r, nil
}

func (r reduceExpr) Eval(e *Env) (any, error) {
	in, err := r.input.Eval(e)
	if err != nil || nullish(in) {
		return nil, err
	}
	arr, ok := in.(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(40080), "$reduce requires that 'input' be an array, found: %s", document.Format(in))
	}
	acc, err := r.initial.Eval(e)
	if err != nil {
		return nil, err
	}
	for _, el := range arr {
		if acc, err = r.in.Eval(e.with("this", el).with("value", acc)); err != nil {
			return nil, err
		}
		switch acc.(type) {
		case bson.A, bson.D, string, bson.Binary:
			if approxSize(acc) > maxExprBytes {
				return nil, document.Errorf(document.CodeExceededMemoryLimit, "$reduce would use too much memory and cannot spill")
			}
		}
	}
	return acc, nil
}
