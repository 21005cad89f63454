package query

import (
	"math"
	"math/rand/v2"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// constNode is $alwaysTrue or $alwaysFalse (and $sampleRate of 1 or 0):
// every document matches, or none does.
type constNode bool

func (c constNode) match(any) bool { return bool(c) }

// sampleNode is {$sampleRate: r} for 0 < r < 1: each document matches
// with probability r, drawn anew at each match, as mongod's
// {$expr: {$lt: [{$rand: {}}, r]}}.
type sampleNode float64

func (r sampleNode) match(any) bool { return rand.Float64() < float64(r) }

// parseAlwaysBoolean reads {$alwaysTrue: 1} or {$alwaysFalse: 1}: the
// operand must be the integer 1, in any numeric type (9 FailedToParse
// otherwise, as mongod's integer parsing says).
func parseAlwaysBoolean(op string, v any) (expr, error) {
	n, err := integerOperand(op, v)
	if err != nil {
		return nil, err
	}
	if n != 1 {
		return nil, document.Errorf(document.CodeFailedToParse, "%s must be an integer value of 1", op)
	}
	return constNode(op == "$alwaysTrue"), nil
}

// integerOperand is v as a 64-bit integer: a number that is one
// exactly, else 9 FailedToParse.
func integerOperand(op string, v any) (int64, error) {
	switch x := v.(type) {
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case float64, bson.Decimal128:
		f := ToFloat(x)
		switch {
		case math.IsNaN(f):
			return 0, document.Errorf(document.CodeFailedToParse, "Expected an integer, but found NaN in: %s: %s", op, document.Format(v))
		case f >= 1<<63 || f < -(1<<63):
			return 0, document.Errorf(document.CodeFailedToParse, "Cannot represent as a 64-bit integer: %s: %s", op, document.Format(v))
		case f != math.Trunc(f):
			return 0, document.Errorf(document.CodeFailedToParse, "Expected an integer: %s: %s", op, document.Format(v))
		}
		return int64(f), nil
	}
	return 0, document.Errorf(document.CodeFailedToParse, "Expected a number in: %s: %s", op, document.Format(v))
}

// parseSampleRate reads {$sampleRate: r}: a number in [0, 1] (2 BadValue
// otherwise, NaN included); 0 matches nothing and 1 everything, as
// mongod simplifies them.
func parseSampleRate(v any) (expr, error) {
	if !document.IsNumber(v) {
		return nil, badValue("argument to $sampleRate must be a numeric type")
	}
	r := ToFloat(v)
	if !(r >= 0 && r <= 1) {
		return nil, badValue("numeric argument to $sampleRate must be in [0, 1]")
	}
	switch r {
	case 0:
		return constNode(false), nil
	case 1:
		return constNode(true), nil
	}
	return sampleNode(r), nil
}
