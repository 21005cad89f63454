package agg

import (
	"context"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	script "github.com/ttlkv/ttlkv/engine/internal/js"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Server-side JavaScript in aggregation: the $function expression and
// the $accumulator accumulator, run by engine/internal/js
// (docs/javascript.md).

// errNoScripting is mongod's error for JavaScript run with the engine
// off (--noscripting).
func errNoScripting() error {
	return document.Errorf(document.Code(31264), "Cannot run server-side javascript without the javascript engine enabled")
}

// UsesJavaScript reports whether an expression or a stage, as written,
// holds a $function or an $accumulator.
func UsesJavaScript(v any) bool {
	switch t := v.(type) {
	case bson.D:
		for _, e := range t {
			if e.Key == "$function" || e.Key == "$accumulator" || UsesJavaScript(e.Value) {
				return true
			}
		}
	case bson.A:
		for _, e := range t {
			if UsesJavaScript(e) {
				return true
			}
		}
	}
	return false
}

// functionExpr is {$function: {body, args, lang: "js"}}: the body's
// function called with the values of args.
type functionExpr struct {
	body string
	args Expr
}

// parseFunction parses $function's operand with mongod's checks, in its
// order (31260, 31261, 31432, 31262, 31263, 31418, 31419). The body is
// compiled when the expression first runs, as in mongod, so a syntax
// error fails only a query that reads a document.
func parseFunction(arg any, sc pdepth) (Expr, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(31260), "$function requires an object as an argument, found: %s", document.TypeName(arg))
	}
	field := func(name string) (any, bool) {
		for _, e := range spec {
			if e.Key == name {
				return e.Value, true
			}
		}
		return nil, false
	}
	bodyV, ok := field("body")
	if !ok {
		return nil, document.Errorf(document.Code(31261), "The body function must be specified.")
	}
	bodyE, err := parseExpr(bodyV, sc.deeper())
	if err != nil {
		return nil, err
	}
	body, isConst, _ := constantOf(bodyV, bodyE, sc)
	if !isConst {
		return nil, document.Errorf(document.Code(31432), "The body function must be a constant expression")
	}
	var src string
	switch b := body.(type) {
	case string:
		src = b
	case bson.JavaScript:
		src = string(b)
	default:
		return nil, document.Errorf(document.Code(31262), "The body function must evaluate to type string or code")
	}
	argsV, ok := field("args")
	if !ok {
		return nil, document.Errorf(document.Code(31263), "The args field must be specified.")
	}
	args, err := parseExpr(argsV, sc.deeper())
	if err != nil {
		return nil, err
	}
	lang, ok := field("lang")
	if !ok {
		return nil, document.Errorf(document.Code(31418), "The lang field must be specified.")
	}
	if lang != "js" {
		return nil, document.Errorf(document.Code(31419), "Currently the only supported language specifier is 'js'.")
	}
	return functionExpr{body: src, args: args}, nil
}

func (f functionExpr) Eval(e *Env) (any, error) {
	if e.noJS {
		return nil, errNoScripting()
	}
	if script.HasWhere(e.context()) {
		return nil, script.ErrWhereAndFunction()
	}
	fn, err := script.Compile(f.body)
	if err != nil {
		return nil, err
	}
	a, err := f.args.Eval(e)
	if err != nil {
		return nil, err
	}
	args, ok := a.(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(31266), "The args field must be of type array")
	}
	for i, v := range args {
		if isMissing(v) {
			args[i] = nil
		}
	}
	return fn.Call(e.context(), args...)
}

// jsAccSpec is a parsed {$accumulator: {...}}.
type jsAccSpec struct {
	init, accumulate, merge, finalize string // finalize "": none
	initArgs                          Expr
}

// parseJSAccumulator parses an $accumulator field of a $group or a
// $bucketAuto with mongod's checks (4544701 to 4544710).
func parseJSAccumulator(field string, arg any, sc pdepth) (accSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return accSpec{}, document.Errorf(document.Code(4544703), "$accumulator expects an object as an argument; found: %s", document.TypeName(arg))
	}
	a := &jsAccSpec{}
	var accArgs Expr
	initReads := false
	fnSource := func(name string, v any) (string, error) {
		e, err := parseExpr(v, sc.deeper())
		if err != nil {
			return "", err
		}
		c, isConst, _ := constantOf(v, e, sc)
		if !isConst {
			return "", document.Errorf(document.Code(4544701), "$accumulator '%s' must be a constant expression", name)
		}
		switch s := c.(type) {
		case string:
			return s, nil
		case bson.JavaScript:
			return string(s), nil
		}
		return "", document.Errorf(document.Code(4544702), "$accumulator '%s' must be a String or Code", name)
	}
	for _, el := range spec {
		var err error
		switch el.Key {
		case "init":
			a.init, err = fnSource(el.Key, el.Value)
		case "accumulate":
			a.accumulate, err = fnSource(el.Key, el.Value)
		case "merge":
			a.merge, err = fnSource(el.Key, el.Value)
		case "finalize":
			a.finalize, err = fnSource(el.Key, el.Value)
		case "initArgs":
			if a.initArgs, err = parseExpr(el.Value, sc.deeper()); err == nil {
				_, isConst, _ := constantOf(el.Value, a.initArgs, sc)
				initReads = !isConst
			}
		case "accumulateArgs":
			accArgs, err = parseExpr(el.Value, sc.deeper())
		case "lang":
			s, isStr := el.Value.(string)
			if !isStr {
				return accSpec{}, document.Errorf(document.Code(4544704), "$accumulator lang must be a string; found: %s", document.TypeName(el.Value))
			}
			if s != "js" {
				return accSpec{}, document.Errorf(document.Code(4544705), "$accumulator only supports lang: 'js'")
			}
		default:
			return accSpec{}, document.Errorf(document.Code(4544706), "$accumulator got an unexpected field: %s", el.Key)
		}
		if err != nil {
			return accSpec{}, err
		}
	}
	switch {
	case a.init == "":
		return accSpec{}, document.Errorf(document.Code(4544707), "$accumulator missing required argument 'init'")
	case a.accumulate == "":
		return accSpec{}, document.Errorf(document.Code(4544708), "$accumulator missing required argument 'accumulate'")
	case a.merge == "":
		return accSpec{}, document.Errorf(document.Code(4544709), "$accumulator missing required argument 'merge'")
	case accArgs == nil:
		return accSpec{}, document.Errorf(document.Code(4544710), "$accumulator missing required argument 'accumulateArgs'")
	}
	if a.initArgs == nil {
		a.initArgs = literal{bson.A{}}
	}
	return accSpec{field: field, op: "$accumulator", arg: accArgs.Eval, nReads: initReads,
		startEnv: a.start,
		make:     func(int64, *collation.Collator) accumulator { return nil }}, nil
}

// start begins a group's state: init called with initArgs evaluated
// against env (the group's key), as mongod's startNewGroup.
func (a *jsAccSpec) start(env *Env) (accumulator, error) {
	if env.noJS {
		return nil, errNoScripting()
	}
	v, err := a.initArgs.Eval(env)
	if err != nil {
		return nil, err
	}
	args, ok := v.(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(4544711), "$accumulator initArgs must evaluate to an array: %s", document.Format(v))
	}
	fn, err := script.Compile(a.init)
	if err != nil {
		return nil, err
	}
	st, err := fn.Call(env.context(), args...)
	if err != nil {
		return nil, err
	}
	// The group lives on past this batch: its later calls run under the
	// context of the batch they run in.
	run, ctx := env.run, env.ctx
	return &jsAcc{spec: a, st: st, ctx: func() context.Context {
		return (&Env{run: run, ctx: ctx}).context()
	}}, nil
}

// jsAcc is one group's $accumulator: its state, a BSON value as in
// mongod, passed to accumulate for each document and to merge for each
// state spilled (group_spill.go).
type jsAcc struct {
	spec *jsAccSpec
	ctx  func() context.Context
	st   any
}

func (a *jsAcc) add(v any) error {
	args, ok := v.(bson.A)
	if !ok {
		return document.Errorf(document.Code(4544712), "$accumulator accumulateArgs must evaluate to an array: %s", document.Format(v))
	}
	fn, err := script.Compile(a.spec.accumulate)
	if err != nil {
		return err
	}
	st, err := fn.Call(a.ctx(), append(bson.A{a.st}, args...)...)
	if err != nil {
		return err
	}
	a.st = st
	return nil
}

func (a *jsAcc) result() any {
	v, _ := a.resultErr()
	return v
}

// resultErr is the group's value: finalize's result for the state, or
// the state when there is no finalize.
func (a *jsAcc) resultErr() (any, error) {
	if a.spec.finalize == "" {
		return a.st, nil
	}
	fn, err := script.Compile(a.spec.finalize)
	if err != nil {
		return nil, err
	}
	return fn.Call(a.ctx(), a.st)
}

func (a *jsAcc) size() int64 { return approxSize(a.st) }

// state is the state as it is, for a spilled run.
func (a *jsAcc) state() any { return a.st }

// mergeState folds a spilled state into this one with merge.
func (a *jsAcc) mergeState(st any) error {
	fn, err := script.Compile(a.spec.merge)
	if err != nil {
		return err
	}
	v, err := fn.Call(a.ctx(), a.st, st)
	if err != nil {
		return err
	}
	a.st = v
	return nil
}

// failingResult is an accumulator whose result may fail ($accumulator's
// finalize).
type failingResult interface {
	resultErr() (any, error)
}

// accResult is an accumulator's result, or the error computing it.
func accResult(a accumulator) (any, error) {
	if f, ok := a.(failingResult); ok {
		return f.resultErr()
	}
	return a.result(), nil
}
