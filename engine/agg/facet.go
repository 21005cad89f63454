package agg

import (
	"context"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// maxFacetOutput is the largest document $facet may build, mongod's
// internalQueryFacetMaxOutputDocSizeBytes (100 MiB).
const maxFacetOutput = 100 << 20

// facetStage is {$facet: {name: [stages], ...}}: every input document
// goes through each named pipeline, and the one output document holds
// each pipeline's results under its name (docs/aggregation.md,
// "$facet").
type facetStage struct {
	names []string
	subs  []*Pipeline
}

func parseFacet(arg any, sc pdepth) (stageSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok || len(spec) == 0 {
		return stageSpec{}, document.Errorf(document.Code(40169), "the $facet specification must be a non-empty object, but found: $facet: %s", document.Format(arg))
	}
	f := &facetStage{}
	for _, el := range spec {
		if err := facetName(el.Key); err != nil {
			return stageSpec{}, err
		}
		arr, ok := el.Value.(bson.A)
		if !ok {
			return stageSpec{}, document.Errorf(document.Code(40170), "arguments to $facet must be arrays, %s is type %s", el.Key, document.TypeName(el.Value))
		}
		for i, st := range arr {
			if _, ok := st.(bson.D); !ok {
				return stageSpec{}, document.Errorf(document.Code(40171), "elements of arrays in $facet spec must be non-empty objects, %s argument contained an element of type %s: %d: %s", el.Key, document.TypeName(st), i, document.Format(st))
			}
		}
		for _, st := range arr {
			if sd := st.(bson.D); len(sd) == 1 && sd[0].Key == "$facet" {
				return stageSpec{}, document.Errorf(document.Code(40600), "$facet is not allowed to be used within a $facet stage")
			}
		}
		p, err := parseSubPipeline(arr, sc, "$facet")
		if err != nil {
			return stageSpec{}, err
		}
		f.names = append(f.names, el.Key)
		f.subs = append(f.subs, p)
	}
	return stageSpec{name: "$facet", spec: spec, make: func(up iter, o *Options) iter {
		return &facetIter{facetStage: f, up: up, o: o}
	}}, nil
}

// facetName checks a $facet pipeline's name as mongod does: a field
// name, not a path.
func facetName(name string) error {
	const ctx = "$facet pipeline names must follow the naming rules of field path expressions. :: caused by :: "
	switch {
	case name == "":
		return document.Errorf(document.Code(15998), ctx+"FieldPath field names may not be empty strings.")
	case strings.HasPrefix(name, "$"):
		return document.Errorf(codeFieldPathDollar, ctx+"FieldPath field names may not start with '$'. Consider using $getField or $setField.")
	case strings.ContainsRune(name, 0):
		return document.Errorf(document.Code(16411), ctx+"FieldPath field names may not contain '\\0'.")
	case strings.Contains(name, "."):
		return document.Errorf(codeFieldPathDot, ctx+"FieldPath field names may not contain '.'. Consider using $getField or $setField.")
	}
	return nil
}

type facetIter struct {
	*facetStage
	up   iter
	o    *Options
	done bool
}

func (f *facetIter) next(ctx context.Context) (bson.D, error) {
	if f.done {
		return nil, nil
	}
	f.done = true
	in := &holder{stage: "$facet", o: f.o}
	if err := drain(ctx, f.up, in.add); err != nil {
		return nil, err
	}
	out := make(bson.D, 0, len(f.names))
	var size int64
	for i, p := range f.subs {
		cur := p.Open(sliceSource(in.docs), *f.o)
		res := bson.A{}
		for {
			d, err := cur.Next(ctx)
			if err != nil {
				return nil, err
			}
			if d == nil {
				break
			}
			if size += approxSize(d); size > maxFacetOutput {
				return nil, document.Errorf(document.Code(4031700), "document constructed by $facet is %d bytes, which exceeds the limit of %d bytes", size, maxFacetOutput)
			}
			res = append(res, d)
		}
		out = append(out, bson.E{Key: f.names[i], Value: res})
	}
	return out, nil
}
