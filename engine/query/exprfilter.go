package query

import "go.mongodb.org/mongo-driver/v2/bson"

// exprCompiler compiles the operand of a filter's $expr with $$NOW at
// now and the variables vars; nil until a package that evaluates
// aggregation expressions registers one.
var exprCompiler func(v any, now bson.DateTime, vars any) (func(d bson.D) (bool, error), error)

// RegisterExprCompiler makes filters accept {$expr: …}: compile parses
// the operand, with $$NOW at now and the user variables vars (what
// ParseFilterWith was given, nil otherwise; this package does not look
// into it), and returns the predicate a document must satisfy, which
// fails with the expression's error. The aggregation package registers
// itself; filters parsed before that refuse $expr with 2 BadValue.
func RegisterExprCompiler(compile func(v any, now bson.DateTime, vars any) (func(d bson.D) (bool, error), error)) {
	exprCompiler = compile
}

// exprNode is a top-level $expr.
type exprNode struct{ pred func(bson.D) (bool, error) }

// exprFailure carries a $expr's evaluation error out of the matcher's
// recursion to Filter.MatchErr, the only place that recovers it.
type exprFailure struct{ err error }

func (e exprNode) match(root any) bool {
	d, ok := root.(bson.D)
	if !ok {
		return false
	}
	r, err := e.pred(d)
	if err != nil {
		panic(exprFailure{err})
	}
	return r
}
