package query

import (
	"github.com/ttlkv/ttlkv/collation"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// NewFuncUpdate returns an update that computes the new document with
// fn (an aggregation-pipeline update, which this package cannot parse
// itself). fn receives a copy of the document it may modify, and the
// collation the update runs under (nil: simple; Update.Collate sets it).
// Apply enforces _id immutability as for modifier updates; Upsert
// applies fn to the document built from the filter's equalities.
func NewFuncUpdate(fn func(d bson.D, o UpdateOptions, c *collation.Collator) (bson.D, error)) *Update {
	return &Update{fn: fn}
}
