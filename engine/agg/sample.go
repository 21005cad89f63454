package agg

import (
	"context"
	"math/rand/v2"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// sampleStage is {$sample: {size: n}}: n documents of the input chosen
// at random (all of them when there are fewer), in random order.
type sampleStage struct{ size int64 }

func parseSample(arg any) (stageSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return stageSpec{}, document.Errorf(document.Code(28745), "the $sample stage specification must be an object")
	}
	s := &sampleStage{}
	sized := false
	for _, el := range spec {
		if el.Key != "size" {
			return stageSpec{}, document.Errorf(document.Code(28748), "unrecognized option to $sample: %s", el.Key)
		}
		if !document.IsNumber(el.Value) {
			return stageSpec{}, document.Errorf(document.Code(28746), "size argument to $sample must be a number")
		}
		f := query.ToFloat(el.Value)
		switch {
		case f != f: // NaN reads as 0, as mongod's safeNumberLong
			s.size = 0
		case f < 0:
			return stageSpec{}, document.Errorf(document.Code(28747), "size argument to $sample must not be negative")
		case f >= 1<<62:
			s.size = 1 << 62
		default:
			s.size = int64(f)
		}
		sized = true
	}
	if !sized {
		return stageSpec{}, document.Errorf(document.Code(28749), "$sample stage must specify a size")
	}
	return stageSpec{name: "$sample", spec: spec, make: func(up iter, o *Options) iter {
		return &sampleIter{sampleStage: s, up: up, o: o}
	}}, nil
}

type sampleIter struct {
	*sampleStage
	up   iter
	o    *Options
	out  []bson.D
	done bool
}

// next draws the sample once, by reservoir: every input document has
// the same chance to be kept, and only size of them are held.
func (s *sampleIter) next(ctx context.Context) (bson.D, error) {
	if !s.done {
		s.done = true
		var held int64
		sizes := []int64{}
		seen := int64(0)
		err := drain(ctx, s.up, func(d bson.D) error {
			seen++
			at := -1
			if int64(len(s.out)) < s.size {
				s.out = append(s.out, d)
				sizes = append(sizes, 0)
				at = len(s.out) - 1
			} else if j := rand.Int64N(seen); j < s.size {
				held -= sizes[j]
				s.out[j] = d
				at = int(j)
			}
			if at >= 0 {
				sizes[at] = approxSize(d)
				if held += sizes[at]; held > s.o.MaxMemoryBytes {
					return memoryErr("$sample", s.o)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		rand.Shuffle(len(s.out), func(i, j int) { s.out[i], s.out[j] = s.out[j], s.out[i] })
	}
	if len(s.out) == 0 {
		return nil, nil
	}
	d := s.out[0]
	s.out = s.out[1:]
	return d, nil
}
