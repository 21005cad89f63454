package query

import (
	"context"
	"github.com/ttlkv/ttlkv/document"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// exprCompiler compiles the operand of a filter's $expr; nil until a
// package that evaluates aggregation expressions registers one.
var exprCompiler func(v any, o ExprOptions) (pred ExprPredicate, usesJS bool, err error)

// ExprOptions are what a $expr is compiled with: $$NOW, the user
// variables (what ParseFilterWith was given, nil otherwise; this package
// does not look into them) and whether JavaScript ($function) is
// refused.
type ExprOptions struct {
	Now         bson.DateTime
	Vars        any
	NoScripting bool
}

// ExprPredicate reports whether a $expr holds for d, its values
// compared under the collation c (nil: simple), or the expression's
// error; JavaScript it runs stops when ctx ends.
type ExprPredicate func(ctx context.Context, d bson.D, c *collation.Collator) (bool, error)

// RegisterExprCompiler makes filters accept {$expr: …}: compile parses
// the operand with the options o and returns the predicate a document
// must satisfy, which fails with the expression's error, and whether it
// runs JavaScript; it compares values under the filter's collation
// (Filter.Collate). The aggregation package registers itself; filters
// parsed before that refuse $expr with 2 BadValue.
func RegisterExprCompiler(compile func(v any, o ExprOptions) (ExprPredicate, bool, error)) {
	exprCompiler = compile
}

// exprNode is a top-level $expr, with the collation it compares under
// and the context its JavaScript runs under (nil: background).
type exprNode struct {
	pred ExprPredicate
	coll *collation.Collator
	ctx  context.Context
}

// exprFailure carries a $expr's evaluation error out of the matcher's
// recursion to Filter.MatchErr, the only place that recovers it.
type exprFailure struct{ err error }

func (e exprNode) match(root any) bool {
	d, ok := root.(bson.D)
	if !ok {
		return false
	}
	ctx := e.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	r, err := e.pred(ctx, d, e.coll)
	if err != nil {
		panic(exprFailure{err})
	}
	return r
}

// projectionCompiler compiles a find projection that computes fields
// (aggregation expressions, MongoDB 4.4's find projections) into the
// function that projects a document; nil until the aggregation package
// registers one.
var projectionCompiler func(p bson.D, now bson.DateTime, vars any) (func(d bson.D, c *collation.Collator) (bson.D, error), error)

// RegisterProjectionCompiler makes find projections accept computed
// fields ({full: {$concat: ["$first", " ", "$last"]}}, {tag: "literal"},
// {x: "$a.b"}): compile parses the whole projection as $project does,
// with $$NOW at now, and
// returns the function that projects a document under a collation (nil:
// simple), which fails with an expression's error. The aggregation package registers itself.
func RegisterProjectionCompiler(compile func(p bson.D, now bson.DateTime, vars any) (func(d bson.D, c *collation.Collator) (bson.D, error), error)) {
	projectionCompiler = compile
}

// computesFields reports whether a projection has a field computed by
// an expression or set to a literal: a value that is neither a number,
// a boolean, a sub-projection nor one of find's operators ($slice,
// $elemMatch, $meta).
func computesFields(p bson.D) bool {
	for _, e := range p {
		switch v := e.Value.(type) {
		case bool, int32, int64, float64, bson.Decimal128:
		case bson.D:
			if len(v) == 0 {
				continue
			}
			if !strings.HasPrefix(v[0].Key, "$") {
				if computesFields(v) {
					return true
				}
				continue
			}
			switch v[0].Key {
			case "$slice":
				if len(v) == 1 && sliceIsExpression(v[0].Value) {
					return true
				}
			case "$elemMatch", "$meta":
			default:
				return true
			}
		default:
			return true
		}
	}
	return false
}

// usesFindOperators reports whether a projection uses $slice,
// $elemMatch, $meta or the positional "a.$", which a computed
// projection cannot sit beside in ttlkv.
func usesFindOperators(p bson.D) bool {
	for _, e := range p {
		if strings.HasSuffix(e.Key, ".$") || e.Key == "$" {
			return true
		}
		v, ok := e.Value.(bson.D)
		if !ok || len(v) == 0 {
			continue
		}
		switch v[0].Key {
		case "$slice":
			if len(v) != 1 || !sliceIsExpression(v[0].Value) {
				return true
			}
		case "$elemMatch", "$meta":
			return true
		}
		if !strings.HasPrefix(v[0].Key, "$") && usesFindOperators(v) {
			return true
		}
	}
	return false
}

// sliceIsExpression reports whether a projection's $slice operand is
// the $slice expression rather than find's $slice: as mongod's parser
// tries find's form first, an array that is not [skip, limit] with two
// numbers and a positive limit but has the expression's two or three
// arguments ({$slice: ["$a", 1, 2]}, {$slice: ["$a", 2]}).
func sliceIsExpression(v any) bool {
	a, ok := v.(bson.A)
	if !ok || len(a) < 2 || len(a) > 3 {
		return false
	}
	if len(a) == 2 && document.IsNumber(a[0]) && document.IsNumber(a[1]) && safeNumberInt(a[1]) > 0 {
		return false
	}
	return true
}
