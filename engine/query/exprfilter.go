package query

import "go.mongodb.org/mongo-driver/v2/bson"

// exprCompiler compiles the operand of a filter's $expr; nil until a
// package that evaluates aggregation expressions registers one.
var exprCompiler func(v any) (func(d bson.D) bool, error)

// RegisterExprCompiler makes filters accept {$expr: …}: compile parses
// the operand and returns the predicate a document must satisfy. The
// aggregation package registers itself; filters parsed before that
// refuse $expr with 2 BadValue.
func RegisterExprCompiler(compile func(v any) (func(d bson.D) bool, error)) {
	exprCompiler = compile
}

// exprNode is a top-level $expr.
type exprNode struct{ pred func(bson.D) bool }

func (e exprNode) match(root any) bool {
	d, ok := root.(bson.D)
	return ok && e.pred(d)
}
