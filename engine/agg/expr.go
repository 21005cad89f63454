package agg

import (
	"context"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Missing is the value of a field path that names no field. It differs
// from null: $project and $addFields leave the field out, $ifNull and
// $push treat it as absent. It never reaches a stored document.
type Missing struct{}

var missing any = Missing{}

func isMissing(v any) bool { _, ok := v.(Missing); return ok }

// nullish reports whether v is null, undefined or missing.
func nullish(v any) bool {
	switch v.(type) {
	case nil, bson.Null, bson.Undefined, Missing:
		return true
	}
	return false
}

// Expr is a parsed aggregation expression. It is immutable and safe for
// concurrent use.
type Expr interface {
	// Eval evaluates the expression against one document.
	Eval(e *Env) (any, error)
}

// Env is what an expression is evaluated against: the current document
// ($$ROOT and $$CURRENT), the pipeline's $$NOW, and the user variables
// bound around the expression ($let, $map, $filter, $reduce).
type Env struct {
	Root bson.D
	Now  bson.DateTime
	vars *binding
	// current is $$CURRENT when it is not $$ROOT ($redact's level);
	// field paths read it.
	current bson.D
	// noDoc marks a command's let being evaluated: there is no
	// document, and reading a field is refused.
	noDoc bool
	// coll is the collation values compare under (nil: simple).
	coll *collation.Collator
	// ctx is the operation's context, which ends the JavaScript a
	// $function or an $accumulator runs (nil: background); noJS refuses
	// that JavaScript (mongod --noscripting).
	ctx  context.Context
	noJS bool
	// run, when set, holds the context of the cursor's current batch,
	// which takes the place of ctx.
	run *runState
}

// context is the context JavaScript runs under.
func (e *Env) context() context.Context {
	if e.run != nil && e.run.ctx != nil {
		return e.run.ctx
	}
	if e.ctx == nil {
		return context.Background()
	}
	return e.ctx
}

// binding is one user variable's value, in front of the ones bound
// around it.
type binding struct {
	name string
	val  any
	up   *binding
}

// with returns e with name bound to v.
func (e *Env) with(name string, v any) *Env {
	sub := *e
	sub.vars = &binding{name: name, val: v, up: e.vars}
	return &sub
}

// pdepth is where an expression is parsed: how deeply nested, and the
// user variables in scope there.
type pdepth struct {
	n    int
	vars *scope
	subs int // the sub-pipelines ($lookup, $unionWith) this one is nested in
	// consts are the command let's variables, whose values are known
	// while parsing (constantOf).
	consts *binding
}

// isConst reports whether name is a command let's variable.
func (d pdepth) isConst(name string) bool {
	for b := d.consts; b != nil; b = b.up {
		if b.name == name {
			return true
		}
	}
	return false
}

// scope is one user variable in scope, in front of the outer ones.
type scope struct {
	name string
	up   *scope
}

func (d pdepth) deeper() pdepth { d.n++; return d }

// with returns d with the variables names in scope.
func (d pdepth) with(names ...string) pdepth {
	for _, n := range names {
		d.vars = &scope{name: n, up: d.vars}
	}
	return d
}

func (d pdepth) defined(name string) bool {
	for s := d.vars; s != nil; s = s.up {
		if s.name == name {
			return true
		}
	}
	return false
}

// userVar is $$name (or $$name.a.b) for a user variable.
type userVar struct {
	name  string
	parts []string
}

func (u userVar) Eval(e *Env) (any, error) {
	for b := e.vars; b != nil; b = b.up {
		if b.name == u.name {
			return evalPath(b.val, u.parts), nil
		}
	}
	return missing, nil
}

type literal struct{ v any }

func (l literal) Eval(*Env) (any, error) { return l.v, nil }

// fieldPath is "$a.b" or "$$CURRENT.a.b" (root: "$$ROOT.a.b"); no
// parts is the document itself.
type fieldPath struct {
	parts []string
	root  bool
}

func (f fieldPath) Eval(e *Env) (any, error) {
	if e.noDoc {
		return nil, letFieldErr()
	}
	d := e.Root
	if e.current != nil && !f.root {
		d = e.current
	}
	if len(f.parts) == 0 {
		// The whole document, without a $text query's score (mongod's
		// metadata is not a field).
		return query.WithoutTextScore(d), nil
	}
	return evalPath(d, f.parts), nil
}

type nowVar struct{}

func (nowVar) Eval(e *Env) (any, error) { return e.Now, nil }

type removeVar struct{}

func (removeVar) Eval(*Env) (any, error) { return missing, nil }

// evalPath follows parts below v as MongoDB's field paths do: through
// documents, and over arrays element by element (collecting an array of
// the values found; scalars in the array are skipped).
func evalPath(v any, parts []string) any {
	if len(parts) == 0 {
		return v
	}
	switch x := v.(type) {
	case bson.D:
		for _, el := range x {
			if el.Key == parts[0] {
				return evalPath(el.Value, parts[1:])
			}
		}
		return missing
	case bson.A:
		out := bson.A{}
		for _, el := range x {
			switch el.(type) {
			case bson.D, bson.A:
				if r := evalPath(el, parts); !isMissing(r) {
					out = append(out, r)
				}
			}
		}
		return out
	}
	return missing
}

type objectExpr struct {
	keys  []string
	exprs []Expr
}

func (o objectExpr) Eval(e *Env) (any, error) {
	out := make(bson.D, 0, len(o.keys))
	for i, k := range o.keys {
		v, err := o.exprs[i].Eval(e)
		if err != nil {
			return nil, err
		}
		if !isMissing(v) {
			out = append(out, bson.E{Key: k, Value: v})
		}
	}
	return out, nil
}

type arrayExpr []Expr

func (a arrayExpr) Eval(e *Env) (any, error) {
	out := make(bson.A, 0, len(a))
	for _, x := range a {
		v, err := x.Eval(e)
		if err != nil {
			return nil, err
		}
		if isMissing(v) {
			v = nil // a missing element becomes null
		}
		out = append(out, v)
	}
	return out, nil
}

// Codes of the server's expression errors.
const (
	codeUndefinedVariable = document.Code(17276)
	codeFieldPathDollar   = document.Code(16410)
	codeFieldPathDot      = document.Code(16412)
	codeUnknownExpression = document.CodeInvalidPipelineOperator
	codeExpressionArity   = document.Code(16020)
	codeObjectOneOperator = document.Code(15983)
)

// ParseExpr parses an aggregation expression: "$field.path", "$$ROOT",
// "$$NOW", {$operator: args}, {$literal: v}, documents and arrays of
// expressions, and literals.
func ParseExpr(v any) (Expr, error) { return parseExpr(v, pdepth{}) }

const maxExprDepth = 150

func parseExpr(v any, depth pdepth) (Expr, error) {
	if depth.n > maxExprDepth {
		return nil, document.Errorf(document.CodeBadValue, "aggregation expression nested more than %d levels", maxExprDepth)
	}
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "$$") {
			return parseVariable(x[2:], depth)
		}
		if strings.HasPrefix(x, "$") {
			return parseFieldPath(x[1:])
		}
		return literal{x}, nil
	case bson.D:
		if len(x) > 0 && strings.HasPrefix(x[0].Key, "$") {
			if len(x) != 1 {
				return nil, document.Errorf(codeObjectOneOperator, "an expression specification must contain exactly one field, the name of the expression. Found %d fields in %s", len(x), document.Format(x))
			}
			return parseOperator(x[0].Key, x[0].Value, depth)
		}
		o := objectExpr{}
		for _, el := range x {
			if strings.HasPrefix(el.Key, "$") {
				return nil, document.Errorf(codeFieldPathDollar, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
			}
			if strings.Contains(el.Key, ".") {
				return nil, document.Errorf(codeFieldPathDot, "FieldPath field names may not contain '.'. Consider using $getField or $setField.")
			}
			sub, err := parseExpr(el.Value, depth.deeper())
			if err != nil {
				return nil, err
			}
			o.keys = append(o.keys, el.Key)
			o.exprs = append(o.exprs, sub)
		}
		return o, nil
	case bson.A:
		a := make(arrayExpr, 0, len(x))
		for _, el := range x {
			sub, err := parseExpr(el, depth.deeper())
			if err != nil {
				return nil, err
			}
			a = append(a, sub)
		}
		return a, nil
	}
	return literal{v}, nil
}

func parseVariable(name string, depth pdepth) (Expr, error) {
	base, rest, _ := strings.Cut(name, ".")
	if depth.defined(base) {
		var parts []string
		if rest != "" {
			f, err := parseFieldPath(rest)
			if err != nil {
				return nil, err
			}
			parts = f.(fieldPath).parts
		}
		return userVar{name: base, parts: parts}, nil
	}
	switch base {
	case "ROOT", "CURRENT":
		if rest == "" {
			return fieldPath{root: base == "ROOT"}, nil
		}
		f, err := parseFieldPath(rest)
		if err != nil {
			return nil, err
		}
		fp := f.(fieldPath)
		fp.root = base == "ROOT"
		return fp, nil
	case "NOW":
		if rest == "" {
			return nowVar{}, nil
		}
	case "REMOVE":
		return removeVar{}, nil
	}
	return nil, document.Errorf(codeUndefinedVariable, "Use of undefined variable: %s", base)
}

func parseFieldPath(p string) (Expr, error) {
	if p == "" {
		return nil, document.Errorf(document.Code(16872), "'$' by itself is not a valid FieldPath")
	}
	if err := checkFieldPath(p); err != nil {
		return nil, err
	}
	return fieldPath{parts: strings.Split(p, ".")}, nil
}

// Truthy is the aggregation boolean reading of v: false, null,
// undefined, a missing field and numeric zero are false; everything else
// (empty strings and arrays too) is true.
func Truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case nil, bson.Null, bson.Undefined, Missing:
		return false
	}
	if document.IsNumber(v) {
		return document.Compare(v, int32(0)) != 0
	}
	return true
}

// constantOf returns the value of e, parsed from raw in the scope sc,
// when it reads nothing of a document and no variable but a command
// let's (whose values are known when the pipeline is parsed): a literal,
// an operator over literals, which mongod folds to a constant when it
// optimizes the pipeline. An error is the one computing it gives.
func constantOf(raw any, e Expr, sc pdepth) (any, bool, error) {
	if !readsNothing(raw, sc, 0) {
		return nil, false, nil
	}
	v, err := e.Eval(&Env{vars: sc.consts})
	return v, err == nil, err
}

// readsNothing reports whether v, as written, reads no field and no
// variable but sc's constants: no "$" string outside a $literal but
// "$$name" for a command let's name.
func readsNothing(v any, sc pdepth, depth int) bool {
	if depth > maxExprDepth {
		return false
	}
	switch x := v.(type) {
	case string:
		if name, ok := strings.CutPrefix(x, "$$"); ok {
			base, _, _ := strings.Cut(name, ".")
			return sc.isConst(base)
		}
		return !strings.HasPrefix(x, "$")
	case bson.D:
		for _, el := range x {
			if el.Key == "$rand" {
				return false // a new value each time: never folded
			}
			if el.Key != "$literal" && !readsNothing(el.Value, sc, depth+1) {
				return false
			}
		}
	case bson.A:
		for _, el := range x {
			if !readsNothing(el, sc, depth+1) {
				return false
			}
		}
	}
	return true
}
