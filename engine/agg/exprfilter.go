package agg

import (
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func init() { query.RegisterExprCompiler(compileFilterExpr) }

// compileFilterExpr compiles a filter's {$expr: e} with $$NOW at now: a
// document matches when e is true for it (Truthy). An expression that
// fails for a document (a $divide by zero) returns its error, which
// fails the query as in MongoDB.
func compileFilterExpr(v any, now bson.DateTime) (func(d bson.D) (bool, error), error) {
	e, err := ParseExpr(v)
	if err != nil {
		return nil, err
	}
	return func(d bson.D) (bool, error) {
		r, err := e.Eval(&Env{Root: d, Now: now})
		if err != nil {
			return false, err
		}
		return Truthy(r), nil
	}, nil
}
