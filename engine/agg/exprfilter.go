package agg

import (
	"time"

	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func init() { query.RegisterExprCompiler(compileFilterExpr) }

// compileFilterExpr compiles a filter's {$expr: e}: a document matches
// when e is true for it (Truthy). $$NOW is the wall clock. An expression
// that fails for a document (a $divide by zero) does not match it,
// where MongoDB would fail the whole query.
func compileFilterExpr(v any) (func(d bson.D) bool, error) {
	e, err := ParseExpr(v)
	if err != nil {
		return nil, err
	}
	return func(d bson.D) bool {
		r, err := e.Eval(&Env{Root: d, Now: bson.NewDateTimeFromTime(time.Now())})
		return err == nil && Truthy(r)
	}, nil
}
