package agg

import (
	"slices"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $concatArrays and $setUnion as window functions (mongod 8.1): the
// elements of the arrays in the window, concatenated in window order,
// or once each in BSON order.

// maxArrayAccBytes is what one $concatArrays or $setUnion window holds,
// mongod's internalQueryMaxConcatArraysBytes and
// internalQueryMaxSetUnionBytes (100 MiB): past it, 146.
const maxArrayAccBytes = 100 << 20

// arrayAcc folds the arrays of a window: $push's or $addToSet's
// accumulator takes their elements.
type arrayAcc struct {
	op    string
	inner accumulator
	list  func() bson.A // what inner holds so far
	bytes int64
	coll  *collation.Collator
}

func newArrayAcc(op string, c *collation.Collator) accumulator {
	if op == "$setUnion" {
		s := newAcc("$addToSet", c).(*setAcc)
		return &arrayAcc{op: op, inner: s, list: func() bson.A { return s.list }, coll: c}
	}
	p := newAcc("$push", c).(*pushAcc)
	return &arrayAcc{op: op, inner: p, list: func() bson.A { return p.list }}
}

// add takes one document's input: missing is skipped, anything but an
// array refused (14), as mongod's accumulators do.
func (a *arrayAcc) add(v any) error {
	if isMissing(v) {
		return nil
	}
	arr, ok := v.(bson.A)
	if !ok {
		return document.Errorf(document.CodeTypeMismatch, "%s requires array inputs, but input %s is of type %s", a.op, document.Format(v), document.TypeName(v))
	}
	for _, e := range arr {
		had := len(a.list())
		if err := a.inner.add(e); err != nil {
			return err
		}
		if len(a.list()) > had { // $setUnion counts what it keeps
			a.bytes += approxSize(e)
		}
	}
	if a.bytes <= maxArrayAccBytes {
		return nil
	}
	if a.op == "$setUnion" {
		return document.Errorf(document.CodeExceededMemoryLimit, "$setUnion used too much memory and spilling to disk will not reduce memory usage. Used: %dbytes. Memory limit: %d bytes", a.bytes, maxArrayAccBytes)
	}
	return document.Errorf(document.CodeExceededMemoryLimit, "$concatArrays used too much memory and cannot spill to disk. Memory limit: %d bytes", maxArrayAccBytes)
}

// result is the elements in window order for $concatArrays, in BSON
// order for $setUnion (mongod promises no order; its function for a
// sliding window gives this one).
func (a *arrayAcc) result() any {
	r := slices.Clone(a.list())
	if a.op == "$setUnion" {
		slices.SortStableFunc(r, a.coll.CompareValues)
	}
	return r
}
