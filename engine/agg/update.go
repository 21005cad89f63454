package agg

import (
	"context"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// updateStages are the stages an update pipeline may hold.
var updateStages = map[string]bool{
	"$addFields": true, "$set": true, "$project": true, "$unset": true,
	"$replaceRoot": true, "$replaceWith": true,
}

// ParseUpdatePipeline parses the pipeline form of an update
// (updateOne(filter, [{$set: …}])) and returns the function that
// computes a document's new version; now is $$NOW, and c the collation
// its expressions compare under (nil: simple). Stages other than
// $addFields, $set, $project, $unset, $replaceRoot and $replaceWith are
// 72 InvalidOptions, as in MongoDB.
func ParseUpdatePipeline(pipeline bson.A) (func(d bson.D, now bson.DateTime, c *collation.Collator) (bson.D, error), error) {
	return ParseUpdatePipelineVars(pipeline, nil)
}

// ParseUpdatePipelineVars is ParseUpdatePipeline with user variables
// bound to values: vars' names are in scope ($$name) in the pipeline's
// expressions, as $merge's $$new and its let are in its whenMatched
// pipeline.
func ParseUpdatePipelineVars(pipeline bson.A, vars bson.D) (func(d bson.D, now bson.DateTime, c *collation.Collator) (bson.D, error), error) {
	sc := pdepth{}
	var bound *binding
	for _, v := range vars {
		sc = sc.with(v.Key)
		bound = &binding{name: v.Key, val: v.Value, up: bound}
	}
	var stages []stageSpec
	for _, sv := range pipeline {
		sd, ok := sv.(bson.D)
		if !ok {
			return nil, document.Errorf(document.CodeFailedToParse, "Each element of the 'pipeline' array must be an object")
		}
		if len(sd) != 1 {
			return nil, document.Errorf(codeStageOneField, "A pipeline stage specification object must contain exactly one field.")
		}
		st, err := parseStage(sd[0].Key, sd[0].Value, sc)
		if err != nil {
			return nil, err
		}
		if !updateStages[sd[0].Key] {
			return nil, document.Errorf(document.CodeInvalidOptions, "%s is not allowed to be used within an update", sd[0].Key)
		}
		stages = append(stages, st)
	}
	p := &Pipeline{stages: stages}
	return func(d bson.D, now bson.DateTime, c *collation.Collator) (bson.D, error) {
		out, err := p.Run(context.Background(), sliceSource([]bson.D{d}), Options{Now: now, vars: bound, Collator: c})
		if err != nil {
			return nil, err
		}
		if len(out) != 1 {
			return nil, document.Errorf(document.CodeInternalError, "update pipeline returned %d documents", len(out))
		}
		return out[0], nil
	}, nil
}

// sliceSource returns the documents of in, then the end.
func sliceSource(in []bson.D) Source {
	return func(context.Context) (bson.D, error) {
		if len(in) == 0 {
			return nil, nil
		}
		d := in[0]
		in = in[1:]
		return d, nil
	}
}
