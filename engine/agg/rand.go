package agg

import (
	"math/rand/v2"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// randExpr is {$rand: {}}: a double drawn uniformly from [0, 1), anew at
// each evaluation, as mongod's $rand.
type randExpr struct{}

func (randExpr) Eval(*Env) (any, error) { return rand.Float64(), nil }

// parseRand reads $rand's argument as mongod does: an empty document or
// an empty array; a non-empty one is 3040501, anything else 10065.
func parseRand(arg any) (Expr, error) {
	switch x := arg.(type) {
	case bson.D:
		if len(x) == 0 {
			return randExpr{}, nil
		}
	case bson.A:
		if len(x) == 0 {
			return randExpr{}, nil
		}
	default:
		return nil, document.Errorf(document.Code(10065), "invalid parameter: expected an object ($rand)")
	}
	return nil, document.Errorf(document.Code(3040501), "$rand does not currently accept arguments")
}
