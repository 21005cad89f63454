package agg

import (
	"fmt"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestOptimizeSkipLimit: the rewrite mongod's optimiser makes of $skip
// and $limit, and what it leaves alone (invalid arguments, which the
// parse reports; other stages; sums past a long). The given pipeline
// is not modified.
func TestOptimizeSkipLimit(t *testing.T) {
	t.Parallel()
	sk := func(n any) bson.D { return bson.D{{Key: "$skip", Value: n}} }
	li := func(n any) bson.D { return bson.D{{Key: "$limit", Value: n}} }
	other := bson.D{{Key: "$project", Value: bson.D{{Key: "a", Value: int32(1)}}}}
	for _, c := range []struct{ in, want bson.A }{
		{bson.A{sk(int32(2)), li(int32(3))}, bson.A{li(int64(5)), sk(int64(2))}},
		{bson.A{li(int32(10)), sk(int32(2)), li(int32(3))}, bson.A{li(int64(5)), sk(int64(2))}},
		{bson.A{other, sk(2.0), sk(int64(1)), li(int32(1)), li(int32(7))}, bson.A{other, li(int64(4)), sk(int64(3))}},
		{bson.A{sk(int32(1)), other, li(int32(2))}, bson.A{sk(int32(1)), other, li(int32(2))}},
		{bson.A{sk(int64(math.MaxInt64)), li(int32(1))}, bson.A{sk(int64(math.MaxInt64)), li(int32(1))}},
		{bson.A{sk(int64(math.MaxInt64)), sk(int32(1))}, bson.A{sk(int64(math.MaxInt64)), sk(int32(1))}},
		{bson.A{sk(int32(-1)), li(int32(2))}, bson.A{sk(int32(-1)), li(int32(2))}},
		{bson.A{sk(int32(1)), li(int32(0))}, bson.A{sk(int32(1)), li(int32(0))}},
		{bson.A{sk("x"), li(int32(2)), li(int32(1))}, bson.A{sk("x"), li(int64(1))}},
		{bson.A{"not a stage", sk(int32(1)), li(int32(1))}, bson.A{"not a stage", li(int64(2)), sk(int64(1))}},
	} {
		before := fmt.Sprint(c.in)
		got := optimizeSkipLimit(c.in)
		if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", c.want) {
			t.Errorf("%v: got %v, want %v", c.in, got, c.want)
		}
		if fmt.Sprint(c.in) != before {
			t.Errorf("%s: modified to %v", before, c.in)
		}
	}
}
