package agg

import (
	"context"
	"slices"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	script "github.com/ttlkv/ttlkv/engine/internal/js"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The mapReduce command runs as mongod 7.0 runs it: as an aggregation.
// Its query, sort and limit lead the pipeline; map runs on each document
// and each emit(key, value) becomes a document {emits: {k, v}}; a $group
// by the emitted keys (under the run's collation, spilling past its
// memory limit) folds each key's values with reduce; finalize, when
// given, rewrites each result's value; a $out or $merge writes them when
// the output is a collection (docs/javascript.md, "mapReduce").

// MapReduce holds the JavaScript of a mapReduce command.
type MapReduce struct {
	Map, Reduce string
	Finalize    string // "": none
	// Scope's fields are global variables of every call.
	Scope bson.D
}

// errMRNoScripting is the error of a map function run with JavaScript
// off.
func errMRNoScripting() error {
	return document.Errorf(document.Code(31246), "Cannot run server-side javascript without the javascript engine enabled")
}

// WithMapReduce returns p followed by the stages of m's map, reduce and
// finalize, and then by the $out or $merge of out (nil: none, the
// results are read).
func (p *Pipeline) WithMapReduce(m MapReduce, out *Pipeline) *Pipeline {
	q := *p
	q.stages = slices.Clip(slices.Clone(p.stages))
	q.stages = append(q.stages, m.mapStage(), m.reduceStage())
	if m.Finalize != "" {
		q.stages = append(q.stages, m.finalizeStage())
	}
	if out != nil {
		q.out = out.out
	}
	return &q
}

// mapStage calls map on each document and yields one document a call
// of emit.
func (m MapReduce) mapStage() stageSpec {
	spec := bson.D{{Key: "emits", Value: bson.D{{Key: "$_internalJsEmit", Value: bson.D{{Key: "eval", Value: m.Map}, {Key: "this", Value: "$$ROOT"}}}}}}
	return stageSpec{name: "$project", spec: spec, make: func(up iter, o *Options) iter {
		return &mapIter{up: up, o: o, m: m}
	}}
}

type mapIter struct {
	up      iter
	o       *Options
	m       MapReduce
	fn      *script.Func
	pending []bson.D
}

func (s *mapIter) next(ctx context.Context) (bson.D, error) {
	for len(s.pending) == 0 {
		d, err := s.up.next(ctx)
		if d == nil || err != nil {
			return nil, err
		}
		if s.o.NoScripting {
			return nil, errMRNoScripting()
		}
		if s.fn == nil {
			if s.fn, err = script.Compile(s.m.Map); err != nil {
				return nil, err
			}
		}
		emits, err := s.fn.Map(s.o.env(d).context(), d, s.m.Scope)
		if err != nil {
			return nil, err
		}
		for _, e := range emits {
			s.pending = append(s.pending, bson.D{{Key: "emits", Value: bson.D{{Key: "k", Value: e.Key}, {Key: "v", Value: e.Value}}}})
		}
	}
	d := s.pending[0]
	s.pending = s.pending[1:]
	return d, nil
}

// reduceStage groups the emitted pairs by key, each group's value
// reduced from its values.
func (m MapReduce) reduceStage() stageSpec {
	key := fieldPath{parts: []string{"emits", "k"}}
	pair := fieldPath{parts: []string{"emits"}}
	acc := accSpec{field: "value", op: "$_internalJsReduce", arg: pair.Eval,
		startEnv: func(env *Env) (accumulator, error) {
			run, ctx := env.run, env.ctx
			return &reduceAcc{m: m, ctx: func() context.Context {
				return (&Env{run: run, ctx: ctx}).context()
			}}, nil
		},
		make: func(int64, *collation.Collator) accumulator { return nil }}
	g := &groupSpec{id: key, accs: []accSpec{acc}}
	spec := bson.D{{Key: "_id", Value: "$emits.k"}, {Key: "value", Value: bson.D{{Key: "$_internalJsReduce", Value: bson.D{{Key: "data", Value: "$emits"}, {Key: "eval", Value: m.Reduce}}}}}}
	return stageSpec{name: "$group", spec: spec, make: func(up iter, o *Options) iter {
		return &groupStage{up: up, o: o, g: g, groups: map[string]*group{}}
	}}
}

// reduceAcc holds one key's emitted values and reduces them at the end,
// as mongod's $_internalJsReduce does: reduce(key, values) with the
// values last emitted first, as many at a time as fit in a document,
// its result taking their place until one value is left. reduce runs
// for a key emitted once too.
type reduceAcc struct {
	m    MapReduce
	ctx  func() context.Context
	key  any
	vals bson.A
	mem  int64
}

func (a *reduceAcc) add(v any) error {
	d, _ := v.(bson.D)
	a.key, _ = document.Get(d, "k")
	val, _ := document.Get(d, "v")
	a.vals = append(a.vals, val)
	a.mem += approxSize(val)
	return nil
}

func (a *reduceAcc) result() any {
	v, _ := a.resultErr()
	return v
}

func (a *reduceAcc) resultErr() (any, error) {
	if len(a.vals) == 0 {
		return Missing{}, nil
	}
	fn, err := script.Compile(a.m.Reduce)
	if err != nil {
		return nil, err
	}
	keySize := document.Size(bson.D{{Key: "0", Value: a.key}})
	vals := slices.Clone(a.vals)
	for {
		batch := bson.A{}
		used := 5
		left := len(vals)
		for ; left > 0; left-- {
			sz := document.Size(bson.D{{Key: "0", Value: vals[left-1]}}) - 5
			if used+keySize+sz > document.MaxDocumentSize {
				if len(vals)-left <= 1 {
					return nil, document.Errorf(document.Code(31392), "Value too large to reduce")
				}
				break
			}
			used += sz
			batch = append(batch, vals[left-1])
		}
		res, err := fn.CallScoped(a.ctx(), a.m.Scope, a.key, batch)
		if err != nil {
			return nil, err
		}
		if left == 0 {
			return res, nil
		}
		vals = append(vals[:left], res)
	}
}

func (a *reduceAcc) size() int64 { return a.mem }

// state is what a spilled run keeps of the key: its values reduced to
// one, as mongod reduces a group it spills; the values as they are when
// reduce fails (the failure comes back when the key is reduced last).
func (a *reduceAcc) state() any {
	if v, err := a.resultErr(); err == nil {
		return bson.A{a.key, bson.A{v}}
	}
	return bson.A{a.key, a.vals}
}

// mergeState takes a later run's values after the ones held.
func (a *reduceAcc) mergeState(st any) error {
	s, _ := st.(bson.A)
	if len(s) != 2 {
		return nil
	}
	a.key = s[0]
	vals, _ := s[1].(bson.A)
	for _, v := range vals {
		a.vals = append(a.vals, v)
		a.mem += approxSize(v)
	}
	return nil
}

// finalizeStage replaces each result's value by finalize(_id, value).
func (m MapReduce) finalizeStage() stageSpec {
	spec := bson.D{{Key: "_id", Value: true}, {Key: "value", Value: bson.D{{Key: "$function", Value: bson.D{
		{Key: "body", Value: m.Finalize}, {Key: "args", Value: bson.A{"$_id", "$value"}}, {Key: "lang", Value: "js"}}}}}}
	return stageSpec{name: "$project", spec: spec, make: func(up iter, o *Options) iter {
		return &finalizeIter{up: up, o: o, m: m}
	}}
}

type finalizeIter struct {
	up iter
	o  *Options
	m  MapReduce
	fn *script.Func
}

func (s *finalizeIter) next(ctx context.Context) (bson.D, error) {
	d, err := s.up.next(ctx)
	if d == nil || err != nil {
		return nil, err
	}
	if s.o.NoScripting {
		return nil, errNoScripting()
	}
	if s.fn == nil {
		if s.fn, err = script.Compile(s.m.Finalize); err != nil {
			return nil, err
		}
	}
	id, _ := document.Get(d, "_id")
	val, _ := document.Get(d, "value")
	v, err := s.fn.CallScoped(s.o.env(d).context(), s.m.Scope, id, val)
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "_id", Value: id}, {Key: "value", Value: v}}, nil
}

// ReduceExisting folds a result into the document already at its _id,
// as mapReduce's out: {reduce} does: reduce(_id, [existing value, new
// value]), then finalize when given.
func (m MapReduce) ReduceExisting(ctx context.Context, id, existing, value any) (any, error) {
	fn, err := script.Compile(m.Reduce)
	if err != nil {
		return nil, err
	}
	v, err := fn.CallScoped(ctx, m.Scope, id, bson.A{existing, value})
	if err != nil || m.Finalize == "" {
		return v, err
	}
	fin, err := script.Compile(m.Finalize)
	if err != nil {
		return nil, err
	}
	return fin.CallScoped(ctx, m.Scope, id, v)
}
