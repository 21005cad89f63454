package engine

import (
	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// parseUpdateSpec parses an update statement's modifier or replacement
// document, or its aggregation pipeline ({u: [{$set: …}]}), whose result
// replaces the document as in MongoDB ($$NOW is the update's time).
func parseUpdateSpec(s UpdateSpec) (*query.Update, error) {
	if s.Update == nil && s.Pipeline != nil {
		if s.ArrayFilters != nil {
			return nil, document.Errorf(document.CodeFailedToParse, "arrayFilters may not be specified for pipeline-style updates")
		}
		fn, err := agg.ParseUpdatePipelineVars(s.Pipeline, s.vars)
		if err != nil {
			return nil, err
		}
		return query.NewFuncUpdate(func(d bson.D, o query.UpdateOptions, c *collation.Collator) (bson.D, error) {
			return fn(d, bson.NewDateTimeFromTime(o.Now), c)
		}), nil
	}
	return query.ParseUpdateWith(s.Update, s.ArrayFilters)
}

// updateArg splits an update argument of the Go API or a command into
// its document or pipeline form.
func updateArg(v any) (bson.D, bson.A, bool) {
	switch u := v.(type) {
	case bson.D:
		return u, nil, true
	case bson.A:
		return nil, u, true
	}
	return nil, nil, false
}
