package agg

import (
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $getField, $setField and $unsetField: fields read and written by
// their whole name, so names with '.' or a leading '$' can be reached
// (docs/aggregation.md, "objects").

// getFieldExpr is {$getField: {field, input}} or {$getField: field}
// (input $$CURRENT).
type getFieldExpr struct{ field, input Expr }

func parseGetField(arg any, depth pdepth) (Expr, error) {
	g := getFieldExpr{input: fieldPath{}}
	d, ok := arg.(bson.D)
	if !ok || (len(d) == 1 && strings.HasPrefix(d[0].Key, "$")) {
		// The short form: the argument is the field, an expression.
		f, err := parseFieldName("$getField", arg, depth, false)
		if err != nil {
			return nil, err
		}
		g.field = f
		return g, nil
	}
	a, err := parseBinding(d, bindingErrs{unknown: func(name string) error {
		return document.Errorf(document.Code(3041701), "$getField found an unknown argument: %s", name)
	}}, "field", "input")
	if err != nil {
		return nil, err
	}
	field, hasField := a["field"]
	input, hasInput := a["input"]
	if !hasField {
		return nil, document.Errorf(document.Code(3041702), "$getField requires 'field' to be specified")
	}
	if !hasInput {
		return nil, document.Errorf(document.Code(3041703), "$getField requires 'input' to be specified")
	}
	if g.field, err = parseFieldName("$getField", field, depth, false); err != nil {
		return nil, err
	}
	if g.input, err = parseExpr(input, depth.deeper()); err != nil {
		return nil, err
	}
	return g, nil
}

// parseFieldName parses the field argument of op. A constant must be a
// string (5654602, 4161107). $getField takes any other expression too,
// its value checked when it runs; $setField and $unsetField (constant)
// take only a constant, and not a field path (4161106, 4161108).
func parseFieldName(op string, v any, depth pdepth, constant bool) (Expr, error) {
	e, err := parseExpr(v, depth.deeper())
	if err != nil {
		return nil, err
	}
	if lit, ok := e.(literal); ok {
		if _, ok := lit.v.(string); !ok {
			code := 5654602
			if constant {
				code = 4161107
			}
			return nil, document.Errorf(document.Code(code), "%s requires 'field' to evaluate to type String, but got %s", op, document.TypeName(lit.v))
		}
		return e, nil
	}
	if !constant {
		return e, nil
	}
	if s, ok := v.(string); ok && strings.HasPrefix(s, "$") {
		return nil, document.Errorf(document.Code(4161108), "A field path reference which is not allowed in this context. Did you mean {$literal: '%s'}?", s)
	}
	return nil, document.Errorf(document.Code(4161106), "%s requires 'field' to evaluate to a constant, but got a non-constant argument", op)
}

// Eval reads the field of input by its whole name: missing when input is
// missing or not a document, null when input is null.
func (g getFieldExpr) Eval(e *Env) (any, error) {
	f, err := g.field.Eval(e)
	if err != nil {
		return nil, err
	}
	name, ok := f.(string)
	if !ok {
		return nil, document.Errorf(document.Code(3041704), "$getField requires 'field' to evaluate to type String, but got %s", typeOrMissing(f))
	}
	in, err := g.input.Eval(e)
	if err != nil {
		return nil, err
	}
	switch x := in.(type) {
	case nil, bson.Null, bson.Undefined:
		return nil, nil
	case bson.D:
		if v, ok := docGet(x, name); ok {
			return v, nil
		}
	}
	return missing, nil
}

// setFieldExpr is {$setField: {field, input, value}}, and
// {$unsetField: {field, input}} (value nil).
type setFieldExpr struct {
	op           string
	field        string
	input, value Expr
}

func parseSetField(op string, arg any, depth pdepth) (Expr, error) {
	known := []string{"field", "input", "value"}
	if op == "$unsetField" {
		known = known[:2]
	}
	a, err := parseBinding(arg, bindingErrs{
		notObject: func(any) error {
			return document.Errorf(document.Code(4161100), "%s only supports an object as its argument", op)
		},
		unknown: func(name string) error {
			return document.Errorf(document.Code(4161101), "%s found an unknown argument: %s", op, name)
		},
	}, known...)
	if err != nil {
		return nil, err
	}
	field, hasField := a["field"]
	value, hasValue := a["value"]
	input, hasInput := a["input"]
	switch {
	case !hasField:
		return nil, document.Errorf(document.Code(4161102), "%s requires 'field' to be specified", op)
	case op == "$setField" && !hasValue:
		return nil, document.Errorf(document.Code(4161103), "%s requires 'value' to be specified", op)
	case !hasInput:
		return nil, document.Errorf(document.Code(4161109), "%s requires 'input' to be specified", op)
	}
	f, err := parseFieldName(op, field, depth, true)
	if err != nil {
		return nil, err
	}
	s := setFieldExpr{op: op, field: f.(literal).v.(string), value: removeVar{}}
	if s.input, err = parseExpr(input, depth.deeper()); err != nil {
		return nil, err
	}
	if hasValue {
		if s.value, err = parseExpr(value, depth.deeper()); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Eval sets the field of a copy of input (in its place, or at the end),
// or removes it when the value is missing ($$REMOVE, $unsetField); null
// when input is null or missing.
func (s setFieldExpr) Eval(e *Env) (any, error) {
	in, err := s.input.Eval(e)
	if err != nil || nullish(in) {
		return nil, err
	}
	d, ok := in.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(4161105), "%s requires 'input' to evaluate to type Object", s.op)
	}
	v, err := s.value.Eval(e)
	if err != nil {
		return nil, err
	}
	return putField(slices.Clone(d), s.field, v), nil
}
