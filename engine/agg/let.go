package agg

import (
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Let is a command's let: variables the command's expressions read as
// $$name (a pipeline's stages, a filter's $expr, an update pipeline),
// evaluated once when the command starts.
type Let struct {
	scope pdepth
	vals  *binding
	doc   bson.D // name and value, in order
}

// codeLetReadsField is mongod's refusal of a command let expression that
// reads a document.
const codeLetReadsField = document.Code(4890500)

// ParseLet evaluates a command's let document: each name must be a user
// variable's name, each expression may read $$NOW and the names before
// it but no field (4890500, as mongod: the let is evaluated before any
// document is read). A nil or empty let is a nil *Let.
func ParseLet(let bson.D, now bson.DateTime) (*Let, error) {
	if len(let) == 0 {
		return nil, nil
	}
	l := &Let{}
	for _, el := range let {
		if err := checkVarName(el.Key); err != nil {
			if de, ok := err.(*document.Error); ok {
				return nil, document.Errorf(de.Code, "Invalid 'let' parameter :: caused by :: %s", de.Message)
			}
			return nil, err
		}
		e, err := parseExpr(el.Value, l.scope)
		if err != nil {
			return nil, err
		}
		v, err := e.Eval(&Env{Now: now, vars: l.vals, noDoc: true})
		if err != nil {
			return nil, err
		}
		if isMissing(v) {
			v = nil
		}
		l.scope = l.scope.with(el.Key)
		l.vals = &binding{name: el.Key, val: v, up: l.vals}
		l.scope.consts = l.vals
		l.doc = append(l.doc, bson.E{Key: el.Key, Value: v})
	}
	return l, nil
}

// Values are the let's names and values, in order (for an update
// pipeline: ParseUpdatePipelineVars).
func (l *Let) Values() bson.D {
	if l == nil {
		return nil
	}
	return l.doc
}

// FilterVars is what query.ParseFilterWith takes for a filter whose $expr
// may read the let's variables.
func (l *Let) FilterVars() any {
	if l == nil {
		return nil
	}
	return filterVars{scope: l.scope, vals: l.vals}
}

// LetOfVars is the Let whose FilterVars are vars (nil: none), for a
// pipeline built around a filter that reads them, as a view's is around
// the filter an aggregate pushed down to it.
func LetOfVars(vars any) *Let {
	fv, ok := vars.(filterVars)
	if !ok || fv.vals == nil {
		return nil
	}
	return &Let{scope: fv.scope, vals: fv.vals}
}

// ParseWith parses a pipeline whose expressions may read the variables
// of let (nil: none), as Parse does.
func ParseWith(pipeline bson.A, let *Let) (*Pipeline, error) {
	var sc pdepth
	if let != nil {
		sc = let.scope
	}
	p, err := parseTop(pipeline, sc)
	if err != nil {
		return nil, err
	}
	if let != nil {
		p.let = let
	}
	return p, nil
}

// FilterVars is what the scan's filter (Filter) needs for a $expr that
// reads the pipeline's let variables.
func (p *Pipeline) FilterVars() any { return p.let.FilterVars() }

// letFieldErr is the refusal of a field read in a command's let.
func letFieldErr() error {
	return document.Errorf(codeLetReadsField, "Command let Expression tried to access a field, but this is not allowed because Command let Expressions run before the query examines any documents.")
}

// chainVars puts the bindings of inner in front of outer (the command's
// let values around a run's own).
func chainVars(inner, outer *binding) *binding {
	if inner == nil {
		return outer
	}
	if outer == nil {
		return inner
	}
	var list []*binding
	for b := inner; b != nil; b = b.up {
		list = append(list, b)
	}
	out := outer
	for i := len(list) - 1; i >= 0; i-- {
		out = &binding{name: list[i].name, val: list[i].val, up: out}
	}
	return out
}
