package agg

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// optimizeSkipLimit rewrites the $skip and $limit stages of pipeline as
// mongod 7.0's pipeline optimiser does, so that explain lists the
// stages mongod runs and a $sort before them can keep only its top
// documents: a $skip followed by a $limit becomes a $limit of their sum
// followed by the $skip (unless the sum overflows a long), adjacent
// $limits become one of the smallest, adjacent $skips one of their sum
// (unless it overflows). The documents the pipeline yields are the
// same. A stage whose argument is not valid is left as written, for
// its parse to report; other stages are untouched. pipeline itself is
// not modified.
func optimizeSkipLimit(pipeline bson.A) bson.A {
	type st struct {
		name string
		n    int64
		raw  any // the stage as given, when it is not a valid $skip or $limit
	}
	stages := make([]st, 0, len(pipeline))
	for _, sv := range pipeline {
		sd, ok := sv.(bson.D)
		if ok && len(sd) == 1 && (sd[0].Key == "$skip" || sd[0].Key == "$limit") {
			if s, err := parseSkipLimit(sd[0].Key, sd[0].Value); err == nil {
				stages = append(stages, st{name: s.name, n: s.spec.(int64)})
				continue
			}
		}
		stages = append(stages, st{raw: sv})
	}
	changed := false
	// mongod walks the stages once, stepping back one after a swap so
	// that the $limit moved forward can merge with a $limit before it.
	for i := 0; i < len(stages)-1; {
		a, b := stages[i], stages[i+1]
		switch {
		case a.name == "$limit" && b.name == "$limit":
			stages[i].n = min(a.n, b.n)
			stages = append(stages[:i+1], stages[i+2:]...)
			changed = true
			continue
		case a.name == "$skip" && b.name == "$skip" && a.n <= math.MaxInt64-b.n:
			stages[i].n = a.n + b.n
			stages = append(stages[:i+1], stages[i+2:]...)
			changed = true
			continue
		case a.name == "$skip" && b.name == "$limit" && a.n <= math.MaxInt64-b.n:
			stages[i], stages[i+1] = st{name: "$limit", n: a.n + b.n}, a
			changed = true
			if i > 0 {
				i--
			}
			continue
		}
		i++
	}
	if !changed {
		return pipeline
	}
	out := make(bson.A, len(stages))
	for i, s := range stages {
		if s.name == "" {
			out[i] = s.raw
		} else {
			out[i] = bson.D{{Key: s.name, Value: s.n}}
		}
	}
	return out
}
