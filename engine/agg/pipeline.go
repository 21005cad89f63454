// Package agg parses and runs MongoDB aggregation pipelines over a
// stream of documents (docs/aggregation.md lists what it implements):
// the stages of stages.go and of a file each for the larger ones
// (lookup.go, graph.go, facet.go, union.go, sample.go, bucket.go,
// densify.go, window.go, fill.go, redact.go, documents.go), $out and
// $merge (out.go; the engine writes: Pipeline.Out), and the expression
// operators of expr.go, ops.go and the files they register.
//
// The engine pushes a leading $match and $sort into its index scan
// (Pipeline.Filter, Pipeline.Sort) and feeds the rest of the pipeline
// document by document; the stages that hold documents ($group, $sort,
// $sample, $facet, $bucketAuto, $densify, $setWindowFields, the foreign
// side of $lookup and $unionWith) do so within Options.MaxMemoryBytes.
package agg

import (
	"context"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Codes of the server's pipeline errors.
const (
	codeStageOneField     = document.Code(40323)
	codeUnrecognizedStage = document.Code(40324)
	codeMemoryLimit       = document.CodeQueryExceededMemoryLimit
)

// DefaultMaxMemoryBytes is what one blocking stage ($group, $sort) may
// hold, MongoDB's internalQueryMaxBlockingSortMemoryUsageBytes.
const DefaultMaxMemoryBytes = 100 << 20

// Options control a pipeline run.
type Options struct {
	// TextScore: the documents carry a $text query's score
	// (query.TextScoreField), which the stages keep with them.
	TextScore bool
	// MaxMemoryBytes bounds the documents a blocking stage holds; 0
	// means DefaultMaxMemoryBytes. Past it $sort and $group spill to
	// disk when Spill is set and fail with 292 otherwise; the other
	// stages fail.
	MaxMemoryBytes int64
	// Spill lets $sort and $group write sorted runs to SpillDir (""
	// is the system's temporary directory) past their limits, as mongod
	// does with allowDiskUse.
	Spill    bool
	SpillDir string
	// MaxSortBytes is $sort's memory limit, MaxGroupBytes $group's (0:
	// MaxMemoryBytes).
	MaxSortBytes, MaxGroupBytes int64
	// MaxDensifyDocs bounds the documents one $densify may generate
	// (5897900 past it); 0 means DefaultMaxDensifyDocs.
	MaxDensifyDocs int64
	// Now is $$NOW.
	Now bson.DateTime
	// Lookup reads the foreign collection of a $lookup; nil refuses the
	// stage.
	Lookup LookupFunc
	// GeoNear runs the $geoNear that leads a $lookup's or $unionWith's
	// pipeline; nil refuses it.
	GeoNear GeoNearFunc
	// Collator is the run's collation (nil: simple): the stages and
	// expressions compare strings under it wherever they compare values
	// (docs/collation.md, "Aggregation").
	Collator *collation.Collator
	// vars are the user variables bound around the pipeline: a
	// $lookup's let, for its sub-pipeline.
	vars *binding
	// NoScripting refuses the JavaScript of $function and $accumulator
	// with 31264, as mongod --noscripting does.
	NoScripting bool
	// run holds the context of the cursor's current Next, which the
	// pipeline and its sub-pipelines share.
	run *runState
}

// runState is what the stages of one run share as it goes.
type runState struct {
	ctx context.Context
}

// env is the Env of an expression evaluated against root in this run:
// its $$NOW, the variables bound around the pipeline and its collation.
func (o *Options) env(root bson.D) *Env {
	e := &Env{Root: root, Now: o.Now, vars: o.vars, coll: o.Collator, noJS: o.NoScripting, run: o.run}
	if o.run != nil {
		e.ctx = o.run.ctx
	}
	return e
}

// Pipeline is a parsed aggregation pipeline. It is immutable; Run may
// be called from several goroutines.
type Pipeline struct {
	filter bson.D // pushed-down leading $match (nil: none)
	sort   bson.D // pushed-down leading $sort (nil: none)
	limit  int64  // pushed-down $limit after that sort (0: none)
	stages []stageSpec
	counts []int64 // each stage's documents handed on (CountStages; nil: not counted)
	out    *Out    // the final $out or $merge (nil: none)
	let    *Let    // the command's let (nil: none)
	// textScore: a stage reads a $text query's score (UsesTextScore).
	textScore bool
	// textMatch is a sub-pipeline's leading $match holding a $text,
	// which the find reading its collection runs (nil: none).
	textMatch bson.D
	// geoNear is the leading $geoNear, which the engine runs (nil: none).
	geoNear *GeoNear
}

// stageSpec is a parsed stage: a constructor of its per-run iterator
// over the stage before it, and its spec, for explain.
type stageSpec struct {
	name string
	spec any
	make func(up iter, o *Options) iter
	// parts are the stages this one stands for when make is nil (mongod
	// parses $bucket into a $group and a $sort; a $fill with nothing to
	// fill stands for none).
	parts []stageSpec
	// out, when set, is a $out or $merge stage, which the engine runs.
	out *Out
}

// add appends a parsed stage, or the stages it stands for.
func (p *Pipeline) add(st stageSpec) {
	if st.out != nil {
		p.out = st.out
		return
	}
	if st.make == nil { // a stage that stands for others (maybe none)
		p.stages = append(p.stages, st.parts...)
		return
	}
	p.stages = append(p.stages, st)
}

// iter yields a stage's documents one at a time: nil and no error at
// the end. Documents are pulled, so a pipeline only computes what its
// reader asks for, and only $group and $sort hold documents.
type iter interface {
	next(ctx context.Context) (bson.D, error)
}

// Parse parses a pipeline (an array of one-field stage documents).
func Parse(pipeline bson.A) (*Pipeline, error) { return parseTop(pipeline, pdepth{}) }

// ParseAfterSource parses the stages that follow a first stage which
// produces its own documents ($collStats, $indexStats, $currentOp):
// as Parse, but no stage is handed to a collection scan (Filter, Sort
// and Limit are empty), and no stage is the pipeline's first.
func ParseAfterSource(pipeline bson.A) (*Pipeline, error) {
	return parsePipeline(pipeline, pdepth{}, true)
}

// parseTop parses a command's pipeline with the variables of sc in
// scope.
func parseTop(pipeline bson.A, sc pdepth) (*Pipeline, error) {
	return parsePipeline(pipeline, sc, false)
}

// parsePipeline parses a pipeline; afterSource: its stages follow
// another (ParseAfterSource).
func parsePipeline(pipeline bson.A, sc pdepth, afterSource bool) (*Pipeline, error) {
	p := &Pipeline{}
	pushing := !afterSource
	// mongod moves a $limit before a $skip and merges adjacent ones
	// before it pushes a leading $sort and $limit into the query.
	pipeline = optimizeSkipLimit(pipeline)
	for i, sv := range pipeline {
		sd, ok := sv.(bson.D)
		if !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "Each element of the 'pipeline' array must be an object")
		}
		if len(sd) != 1 {
			return nil, document.Errorf(codeStageOneField, "A pipeline stage specification object must contain exactly one field.")
		}
		if p.out != nil {
			return nil, document.Errorf(document.Code(40601), "%s can only be the final stage in the pipeline", p.out.Stage)
		}
		name, arg := sd[0].Key, sd[0].Value
		if name == "$match" && (i > 0 || afterSource) && holdsText(arg) {
			return nil, document.Errorf(document.Code(17313), "$match with $text is only allowed as the first pipeline stage")
		}
		if name == "$documents" && (afterSource || p.filter != nil || p.sort != nil || len(p.stages) > 0) {
			return nil, document.Errorf(document.Code(40602), "$documents is only valid as the first stage in a pipeline.")
		}
		if name == "$geoNear" && i == 0 && !afterSource {
			g, err := parseGeoNear(arg, sc)
			if err != nil {
				return nil, err
			}
			p.geoNear, pushing = g, false
			continue
		}
		// Push a leading $match (and $sort, and a $limit right after it)
		// into the collection scan, where indexes serve them.
		if pushing {
			switch {
			case name == "$match" && p.sort == nil:
				f, ok := arg.(bson.D)
				if !ok {
					return nil, document.Errorf(document.Code(15959), "the match filter must be an expression in an object")
				}
				if p.filter == nil {
					p.filter = f
				} else {
					p.filter = bson.D{{Key: "$and", Value: bson.A{p.filter, f}}}
				}
				if _, err := parseStage(name, arg, sc); err != nil {
					return nil, err
				}
				continue
			case name == "$sort" && p.sort == nil:
				if _, err := parseStage(name, arg, sc); err != nil {
					return nil, err
				}
				p.sort = arg.(bson.D)
				continue
			case name == "$limit" && p.sort != nil:
				st, err := parseStage(name, arg, sc)
				if err != nil {
					return nil, err
				}
				p.limit = st.spec.(int64)
				p.add(st)
				pushing = false
				continue
			}
			pushing = false
		}
		st, err := parseStage(name, arg, sc)
		if err != nil {
			return nil, err
		}
		if mentionsTextScore(arg) {
			p.textScore = true
		}
		p.add(st)
	}
	return p, nil
}

// Filter returns the query filter of the leading $match stages, for the
// collection scan (nil: every document).
func (p *Pipeline) Filter() bson.D { return p.filter }

// Sort returns the sort of a leading $sort stage, for the collection
// scan (nil: natural order).
func (p *Pipeline) Sort() bson.D { return p.sort }

// Limit returns the limit of a $limit directly after the leading $sort
// (0: none); the scan may stop after that many documents.
func (p *Pipeline) Limit() int64 { return p.limit }

// Stages returns the stages that run after the scan, as documents, for
// explain.
func (p *Pipeline) Stages() bson.A {
	out := bson.A{}
	for _, s := range p.stages {
		out = append(out, bson.D{{Key: s.name, Value: s.spec}})
	}
	if p.out != nil {
		out = append(out, bson.D{{Key: p.out.Stage, Value: p.out.spec}})
	}
	return out
}

// Source returns the next input document, or nil at the end.
type Source func(ctx context.Context) (bson.D, error)

func (s Source) next(ctx context.Context) (bson.D, error) { return s(ctx) }

// Cursor yields a pipeline's results.
type Cursor struct {
	it  iter
	run *runState
}

// Open returns a cursor over the results of the stages after the scan,
// reading src as they need it.
func (p *Pipeline) Open(src Source, o Options) *Cursor {
	if o.MaxMemoryBytes <= 0 {
		o.MaxMemoryBytes = DefaultMaxMemoryBytes
	}
	if p.let != nil {
		o.vars = chainVars(p.let.vals, o.vars)
	}
	if o.run == nil {
		o.run = &runState{}
	}
	var it iter = src
	for i, s := range p.stages {
		it = s.make(it, &o)
		if i < len(p.counts) {
			it = &countIter{in: it, n: &p.counts[i]}
		}
	}
	return &Cursor{it: it, run: o.run}
}

// CountStages makes the next Open count the documents each stage after
// the scan hands on (explain's nReturned), in stage order; StageCounts
// reads them.
func (p *Pipeline) CountStages() { p.counts = make([]int64, len(p.stages)) }

// StageCounts are the documents each stage handed on since
// CountStages, in the order of Stages (nil without CountStages).
func (p *Pipeline) StageCounts() []int64 { return p.counts }

// countIter counts what in hands on.
type countIter struct {
	in iter
	n  *int64
}

func (c *countIter) next(ctx context.Context) (bson.D, error) {
	d, err := c.in.next(ctx)
	if d != nil {
		*c.n++
	}
	return d, err
}

// Next returns the next result, or nil at the end.
func (c *Cursor) Next(ctx context.Context) (bson.D, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.run.ctx = ctx
	return c.it.next(ctx)
}

// Run returns every result of the pipeline over src.
func (p *Pipeline) Run(ctx context.Context, src Source, o Options) ([]bson.D, error) {
	c := p.Open(src, o)
	var out []bson.D
	for {
		d, err := c.Next(ctx)
		if err != nil || d == nil {
			return out, err
		}
		out = append(out, d)
	}
}

func parseStage(name string, arg any, sc pdepth) (stageSpec, error) {
	switch name {
	case "$match":
		return parseMatch(arg, sc)
	case "$project":
		return parseProject(arg, sc)
	case "$addFields", "$set":
		return parseAddFields(name, arg, sc)
	case "$unset":
		return parseUnset(arg)
	case "$sort":
		return parseSort(arg)
	case "$skip", "$limit":
		return parseSkipLimit(name, arg)
	case "$count":
		return parseCount(arg)
	case "$group":
		return parseGroup(arg, sc)
	case "$sortByCount":
		return parseSortByCount(arg, sc)
	case "$unwind":
		return parseUnwind(arg)
	case "$replaceRoot", "$replaceWith":
		return parseReplaceRoot(name, arg, sc)
	case "$lookup":
		return parseLookup(arg, sc)
	case "$facet":
		return parseFacet(arg, sc)
	case "$unionWith":
		return parseUnionWith(arg, sc)
	case "$sample":
		return parseSample(arg)
	case "$bucket":
		return parseBucket(arg, sc)
	case "$bucketAuto":
		return parseBucketAuto(arg, sc)
	case "$densify":
		return parseDensify(arg)
	case "$graphLookup":
		return parseGraphLookup(arg, sc)
	case "$documents":
		return parseDocuments(arg, sc)
	case "$fill":
		return parseFill(arg, sc)
	case "$redact":
		return parseRedact(arg, sc)
	case "$out":
		o, err := parseOut(arg)
		return stageSpec{out: o}, err
	case "$merge":
		o, err := parseMerge(arg, sc)
		return stageSpec{out: o}, err
	case "$setWindowFields":
		return parseSetWindowFields(arg, sc)
	case "$geoNear":
		return stageSpec{}, errGeoNearNotFirst
	case "$changeStreamSplitLargeEvent":
		// Only a change stream's pipeline may end with it
		// (changestream.New), as mongod's.
		if d, ok := arg.(bson.D); !ok || len(d) != 0 {
			return stageSpec{}, document.Errorf(document.Code(7182800), "$changeStreamSplitLargeEvent spec should be an empty object")
		}
		return stageSpec{}, document.Errorf(document.CodeIllegalOperation, "$changeStreamSplitLargeEvent can only be used in a $changeStream pipeline")
	}
	if known[name] {
		return stageSpec{}, document.Errorf(codeUnrecognizedStage, "%s is a MongoDB aggregation stage that ttlkv does not implement", name)
	}
	return stageSpec{}, document.Errorf(codeUnrecognizedStage, "Unrecognized pipeline stage name: '%s'", name)
}

// known are MongoDB's stages that ttlkv lacks.
var known = map[string]bool{
	"$geoNear": true, "$indexStats": true, // $indexStats: only as a first stage (engine/indexstats.go)
	"$changeStream": true, "$search": true,
	"$listSessions": true, "$planCacheStats": true,
}

// holdsText reports whether a $match's filter has a $text anywhere.
func holdsText(v any) bool {
	switch t := v.(type) {
	case bson.D:
		for _, e := range t {
			if e.Key == "$text" || holdsText(e.Value) {
				return true
			}
		}
	case bson.A:
		for _, x := range t {
			if holdsText(x) {
				return true
			}
		}
	}
	return false
}

// holdsExpr reports whether a $match's filter has a $expr anywhere.
func holdsExpr(v any) bool {
	switch t := v.(type) {
	case bson.D:
		for _, e := range t {
			if e.Key == "$expr" || holdsExpr(e.Value) {
				return true
			}
		}
	case bson.A:
		for _, x := range t {
			if holdsExpr(x) {
				return true
			}
		}
	}
	return false
}
