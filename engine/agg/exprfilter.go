package agg

import (
	"context"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func init() {
	query.RegisterExprCompiler(compileFilterExpr)
	query.RegisterProjectionCompiler(compileProjection)
}

// compileProjection compiles a find projection that computes fields as
// the $project stage it is, since MongoDB 4.4, with $$NOW at now and the
// variables vars (a filterVars: the command's let; or nil).
func compileProjection(p bson.D, now bson.DateTime, vars any) (func(bson.D, *collation.Collator) (bson.D, error), error) {
	fv, _ := vars.(filterVars)
	st, err := parseProject(p, fv.scope)
	if err != nil {
		return nil, err
	}
	pl := &Pipeline{stages: []stageSpec{st}}
	return func(d bson.D, c *collation.Collator) (bson.D, error) {
		out, err := pl.Run(context.Background(), sliceSource([]bson.D{d}), Options{Now: now, vars: fv.vals, Collator: c})
		if err != nil || len(out) != 1 {
			return nil, err
		}
		return out[0], nil
	}, nil
}

// filterVars are the user variables a filter's $expr sees (the let of
// the $lookup whose sub-pipeline the filter is in): the names in scope
// when it is parsed, and their values when it runs.
type filterVars struct {
	scope pdepth
	vals  *binding
}

// compileFilterExpr compiles a filter's {$expr: e} with the options o
// (o.Vars a filterVars, or nil): a document matches when e is true for
// it (Truthy). An expression that fails for a document (a $divide by
// zero) returns its error, which fails the query as in MongoDB. It also
// reports whether e runs JavaScript ($function).
func compileFilterExpr(v any, o query.ExprOptions) (query.ExprPredicate, bool, error) {
	fv, _ := o.Vars.(filterVars)
	e, err := parseExpr(v, fv.scope)
	if err != nil {
		return nil, false, err
	}
	return func(ctx context.Context, d bson.D, c *collation.Collator) (bool, error) {
		r, err := e.Eval(&Env{Root: d, Now: o.Now, vars: fv.vals, coll: c, ctx: ctx, noJS: o.NoScripting})
		if err != nil {
			return false, err
		}
		return Truthy(r), nil
	}, UsesJavaScript(v), nil
}
