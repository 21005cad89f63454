package agg

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// unionStage is {$unionWith: coll} or {$unionWith: {coll, pipeline}}:
// the documents that reach it, then those of coll (through pipeline)
// (docs/aggregation.md, "$unionWith").
type unionStage struct {
	coll string
	sub  *Pipeline // nil: none
}

func parseUnionWith(arg any, sc pdepth) (stageSpec, error) {
	u := &unionStage{}
	switch x := arg.(type) {
	case string:
		u.coll = x
	case bson.D:
		hasColl := false
		for _, el := range x {
			switch el.Key {
			case "coll":
				s, ok := el.Value.(string)
				if !ok {
					return stageSpec{}, document.Errorf(document.CodeTypeMismatch, "BSON field '$unionWith.coll' is the wrong type '%s', expected type 'string'", document.TypeName(el.Value))
				}
				u.coll, hasColl = s, true
			case "pipeline":
				arr, ok := el.Value.(bson.A)
				if !ok {
					return stageSpec{}, document.Errorf(document.CodeTypeMismatch, "BSON field '$unionWith.pipeline' is the wrong type '%s', expected type 'array'", document.TypeName(el.Value))
				}
				for i, st := range arr {
					if _, ok := st.(bson.D); !ok {
						return stageSpec{}, document.Errorf(document.CodeTypeMismatch, "BSON field '$unionWith.pipeline.%d' is the wrong type '%s', expected type 'object'", i, document.TypeName(st))
					}
				}
				p, err := parseSubPipeline(arr, sc, "$unionWith")
				if err != nil {
					return stageSpec{}, err
				}
				u.sub = p
			default:
				return stageSpec{}, document.Errorf(document.CodeIDLUnknownField, "BSON field '$unionWith.%s' is an unknown field.", el.Key)
			}
		}
		if !hasColl && (u.sub == nil || !u.sub.Collectionless()) {
			return stageSpec{}, document.Errorf(document.CodeFailedToParse, "$unionWith stage without explicit collection must have a pipeline with $documents as first stage")
		}
	default:
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "the $unionWith stage specification must be an object or string, but found %s", document.TypeName(arg))
	}
	return stageSpec{name: "$unionWith", spec: arg, make: func(up iter, o *Options) iter {
		return &unionIter{unionStage: u, up: up, o: o}
	}}, nil
}

type unionIter struct {
	*unionStage
	up     iter
	o      *Options
	second iter // the union's documents, once the input is done
}

func (u *unionIter) next(ctx context.Context) (bson.D, error) {
	if u.second == nil {
		d, err := u.up.next(ctx)
		if err != nil || d != nil {
			return d, err
		}
		if u.coll != "" && u.o.Lookup == nil {
			return nil, document.Errorf(codeUnrecognizedStage, "$unionWith is not available here")
		}
		// The union's collection is read whole, within the pipeline's
		// memory limit, then goes through its pipeline.
		docs := &holder{stage: "$unionWith", o: u.o}
		if u.coll != "" {
			filter := bson.D{}
			if u.sub != nil && u.sub.textMatch != nil {
				filter = u.sub.textMatch // a leading $match with a $text
			}
			if u.sub != nil && u.sub.geoNear != nil {
				g, err := u.sub.geoNear.Resolve(&Env{Now: u.o.Now, vars: u.o.vars, noDoc: true})
				if err != nil {
					return nil, err
				}
				if u.o.GeoNear == nil {
					return nil, document.Errorf(codeUnrecognizedStage, "$geoNear is not available here")
				}
				if err := u.o.GeoNear(ctx, u.coll, g, docs.add); err != nil {
					return nil, err
				}
			} else if err := u.o.Lookup(ctx, u.coll, filter, docs.add); err != nil {
				return nil, err
			}
		}
		u.second = iter(sliceSource(docs.docs))
		if u.sub != nil {
			u.second = u.sub.Open(sliceSource(docs.docs), *u.o).it
		}
	}
	return u.second.next(ctx)
}
