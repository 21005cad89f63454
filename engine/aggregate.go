package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// aggregateSpec is a parsed aggregate command.
type aggregateSpec struct {
	name        string
	pipeline    *agg.Pipeline
	raw         bson.A
	batchSize   int64 // -1: default
	explain     bool
	noDisk      bool // allowDiskUse: false: a $sort past its memory limit is 292
	hint        any
	hasCursor   bool
	maxMemBytes int64
	collation   bson.D // the collation option, nil if none
	let         bson.D // the let option, nil if none
	// collectionless is {aggregate: 1}: a pipeline that starts with
	// $documents and reads no collection (name is "$cmd.aggregate").
	collectionless bool
}

// aggregate returns an executor whose batches are the pipeline's
// results. The leading $match and $sort (and a $limit right after that
// sort) run in the collection scan, using indexes; the other stages
// pull the scan's documents as their reader asks for results, and only
// $group and $sort hold documents (agg.DefaultMaxMemoryBytes each). A
// pipeline ending in $out or $merge is run to its end here, its results
// written, and the executor returned has nothing to read.
func (db *DB) aggregate(ctx context.Context, dbName string, s *aggregateSpec) (*queryExec, error) {
	p := s.pipeline
	var pl *plan
	var q *queryExec
	collSpec := s.collation
	// runColl is the run's collation, which the stages after the scan
	// compare under (docs/collation.md, "Aggregation").
	var runColl *collation.Collator
	if err := checkInvolvedNames(dbName, s.raw); err != nil {
		return nil, err
	}
	if err := db.checkInvolvedViews(dbName, s); err != nil {
		return nil, err
	}
	if p.GeoNear() != nil && !s.collectionless {
		g, err := p.GeoNearAt(bson.NewDateTimeFromTime(db.opts.Clock()))
		if err != nil {
			return nil, err
		}
		if pl, q, err = db.geoNearFind(dbName, s, g); err != nil {
			return nil, err
		}
	} else if !s.collectionless {
		var err error
		var c *coll
		if c, pl, q, err = db.findPlan(dbName, s.name, p.Filter(), FindOptions{Sort: p.Sort(), Limit: p.Limit(), Hint: s.hint, Collation: s.collation, AllowDiskUse: boolPtr(!s.noDisk), filterVars: p.FilterVars(), systemViews: true}); err != nil {
			return nil, err
		}
		if c != nil && c.m().Kind == catalog.KindView {
			// The stages after the view's run under its collation too.
			if collSpec, err = viewCollation(c.m(), s.collation); err != nil {
				return nil, err
			}
			runColl = c.m().DefaultCollator()
		}
	}
	if pl != nil && runColl == nil {
		runColl = pl.filter.Collator()
	} else if pl == nil && s.collation != nil {
		// Collectionless, or a collection that does not exist: the
		// option alone.
		var err error
		if runColl, err = catalog.ParseCollation(s.collation); err != nil {
			return nil, err
		}
	}
	// The foreign reads of $lookup, $graphLookup and $unionWith run
	// under the run's collation, never the foreign collection's default,
	// as in mongod.
	collSpec = simpleCollation
	if runColl != nil {
		collSpec = runColl.Doc()
	}
	if p.UsesTextScore() {
		// docs/text.md: the stages read the scores the scan gives.
		if !pl.needTextScore() {
			return nil, errNoTextScore
		}
		q.keepScore = true
	}
	var buf []bson.D
	src := func(ctx context.Context) (bson.D, error) {
		for len(buf) == 0 {
			if q == nil || q.done {
				return nil, nil
			}
			docs, err := q.nextBatch(ctx, 256)
			if err != nil {
				return nil, err
			}
			buf = docs
		}
		d := buf[0]
		buf = buf[1:]
		return d, nil
	}
	o := db.aggOptions(dbName, collSpec)
	o.Collator = runColl
	if s.maxMemBytes > 0 {
		o.MaxMemoryBytes, o.MaxSortBytes, o.MaxGroupBytes = s.maxMemBytes, s.maxMemBytes, s.maxMemBytes
	}
	o.Spill = !s.noDisk
	o.TextScore = p.UsesTextScore()
	exec := pipelineExec(p.Open(src, o), p.UsesTextScore())
	if out := p.Out(); out != nil {
		if err := db.writeOut(ctx, dbName, out, exec); err != nil {
			return nil, err
		}
	}
	return exec, nil
}

// aggOptions are the options of a pipeline run in dbName: the engine's
// clock as $$NOW, $lookup's reader, the server parameters' limits.
func (db *DB) aggOptions(dbName string, collation bson.D) agg.Options {
	return agg.Options{
		Now:            bson.NewDateTimeFromTime(db.opts.Clock()),
		Lookup:         db.lookupFunc(dbName, collation),
		GeoNear:        db.geoNearFunc(dbName, collation),
		MaxDensifyDocs: db.params.int("internalQueryMaxAllowedDensifyDocs"),
		Spill:          true,
		SpillDir:       db.spillDir(),
		MaxSortBytes:   db.params.int("internalQueryMaxBlockingSortMemoryUsageBytes"),
		MaxGroupBytes:  db.params.int("internalDocumentSourceGroupMaxMemoryBytes"),
		NoScripting:    db.opts.NoScripting,
	}
}

// spillDir is where sorts past their memory limit write their runs: the
// data directory's _tmp, as mongod's dbpath/_tmp ("" for an in-memory
// store: the system's temporary directory). The files are unlinked as
// soon as they are made (engine/internal/extsort).
func (db *DB) spillDir() string {
	if db.opts.InMemory || db.dir == "" {
		return ""
	}
	return filepath.Join(db.dir, "_tmp")
}

// nestedReadsKey is the context key of how many $lookup, $graphLookup
// and $unionWith reads the current one runs inside.
type nestedReadsKey struct{}

// maxNestedReads is how deeply those reads may nest at run time,
// through the views they read: mongod's internalMaxSubPipelineViewDepth
// (20). The view graph keeps a new view within it; the count is the
// backstop for a graph stored before it followed pipelines, where a
// cycle would otherwise recurse until the process ran out of stack.
const maxNestedReads = 20

// lookupFunc is how a pipeline on dbName reads a $lookup's foreign
// collection: a find with the pipeline's collation, every batch. A read
// nested more than maxNestedReads deep is 269, as mongod's.
func (db *DB) lookupFunc(dbName string, collation bson.D) agg.LookupFunc {
	return func(ctx context.Context, from string, filter bson.D, fn func(bson.D) error) error {
		depth, _ := ctx.Value(nestedReadsKey{}).(int)
		if depth >= maxNestedReads {
			return document.Errorf(document.CodeMaxSubPipelineDepthExceeded, "Maximum number of nested sub-pipelines exceeded. Limit is %d", maxNestedReads)
		}
		ctx = context.WithValue(ctx, nestedReadsKey{}, depth+1)
		_, _, q, err := db.findPlan(dbName, from, filter, FindOptions{Collation: collation, systemViews: true})
		if err != nil {
			return err
		}
		return q.each(ctx, fn)
	}
}

// each calls fn with every document q gives, batch by batch (none for a
// nil q: a collection that does not exist).
func (q *queryExec) each(ctx context.Context, fn func(bson.D) error) error {
	for q != nil && !q.done {
		docs, err := q.nextBatch(ctx, 256)
		if err != nil {
			return err
		}
		for _, d := range docs {
			if err := fn(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// pipelineExec is a query that yields what the pipeline cursor cur
// produces, batch by batch (getMore goes on from where a batch ended).
func pipelineExec(cur *agg.Cursor, stripScore bool) *queryExec {
	out := &queryExec{sc: &scanner{}}
	out.gen = func(ctx context.Context, n int) ([]bson.D, error) {
		var docs []bson.D
		for len(docs) < n && !out.done {
			d, err := cur.Next(ctx)
			if err != nil {
				if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
					err = ctxErr(ctx)
				}
				return nil, err
			}
			if d == nil {
				out.done = true
				break
			}
			if stripScore {
				d = query.StripTextScore(d)
			}
			docs = append(docs, d)
			out.returned++
		}
		return docs, nil
	}
	return out
}

// explainAggregate explains the collection scan the pipeline starts
// with ($cursor, as MongoDB names it) and lists the stages after it.
func (db *DB) explainAggregate(ctx context.Context, dbName string, s *aggregateSpec, verbosity string) (bson.D, error) {
	p := s.pipeline
	if s.collectionless {
		stages, _ := p.ExplainStages(dbName, simpleParsedQuery)
		return bson.D{{Key: "explainVersion", Value: explainVersion}, {Key: "stages", Value: stages},
			{Key: "serverInfo", Value: explainServerInfo(ctx)}, {Key: "serverParameters", Value: db.explainServerParameters()},
			{Key: "command", Value: bson.D{{Key: "aggregate", Value: int32(1)}, {Key: "pipeline", Value: s.raw}}}}, nil
	}
	filter := p.Filter()
	if p.GeoNear() != nil {
		g, err := p.GeoNearAt(bson.NewDateTimeFromTime(db.opts.Clock()))
		if err != nil {
			return nil, err
		}
		// The find $geoNear runs as (docs/geo.md).
		key := g.Key
		if c := db.lookup(dbName, s.name); c != nil && key == "" {
			var err error
			if key, err = geoNearKey(c.m()); err != nil {
				return nil, err
			}
		}
		filter = g.NearFilter(key)
	}
	find := bson.D{{Key: "find", Value: s.name}, {Key: "filter", Value: nonNilDoc(filter)}}
	if p.Sort() != nil {
		find = append(find, bson.E{Key: "sort", Value: p.Sort()})
	}
	if p.Limit() > 0 {
		find = append(find, bson.E{Key: "limit", Value: p.Limit()})
	}
	if s.hint != nil {
		find = append(find, bson.E{Key: "hint", Value: s.hint})
	}
	if s.collation != nil {
		// The scan is planned, and its $in values shown, under the
		// aggregate's collation, as it runs.
		find = append(find, bson.E{Key: "collation", Value: s.collation})
	}
	pushed, proj, limit := wholePipelinePushed(p)
	if pushed && limit > 0 {
		find = append(find, bson.E{Key: "limit", Value: limit})
	}
	if pushed && proj != nil {
		find = append(find, bson.E{Key: "projection", Value: proj})
	}
	inner, err := cmdExplain(ctx, db, dbName, bson.D{{Key: "explain", Value: find}, {Key: "verbosity", Value: verbosity}})
	if err != nil {
		return nil, err
	}
	command := bson.D{{Key: "aggregate", Value: s.name}, {Key: "pipeline", Value: s.raw}}
	tsStages, isTS := get(inner, "stages") // a time-series read: a pipeline already (tsExplainFind)
	if isTS && pushed {
		return bson.D{{Key: "explainVersion", Value: explainVersion}, {Key: "stages", Value: tsStages},
			{Key: "serverInfo", Value: explainServerInfo(ctx)}, {Key: "serverParameters", Value: db.explainServerParameters()},
			{Key: "command", Value: command}}, nil
	}
	if pushed {
		// Nothing is left for the pipeline: mongod answers the find's
		// explain, its queryPlanner at the top and no stages.
		out := bson.D{{Key: "explainVersion", Value: explainVersion}}
		for _, e := range inner {
			if e.Key == "queryPlanner" || e.Key == "executionStats" {
				out = append(out, e)
			}
		}
		return append(out, bson.E{Key: "command", Value: command}, bson.E{Key: "serverInfo", Value: explainServerInfo(ctx)},
			bson.E{Key: "serverParameters", Value: db.explainServerParameters()}), nil
	}
	cursor := bson.D{}
	for _, e := range inner {
		if e.Key == "queryPlanner" || e.Key == "executionStats" {
			cursor = append(cursor, e)
		}
	}
	stages := bson.A{bson.D{{Key: "$cursor", Value: cursor}}}
	if isTS {
		stages, _ = tsStages.(bson.A)
	}
	// The stages after the $cursor as mongod serializes them.
	after, from := p.ExplainStages(dbName, simpleParsedQuery)
	if verbosity != "queryPlanner" && p.Out() == nil && p.GeoNear() == nil {
		// Executed, each stage shows what it handed on, as mongod's
		// (nReturned and executionTimeMillisEstimate, longs). A pipeline
		// that writes ($out, $merge) is not run.
		start := time.Now()
		p.CountStages()
		exec, err := db.aggregate(ctx, dbName, s)
		if err != nil {
			return nil, err
		}
		for !exec.done {
			if _, err := exec.nextBatch(ctx, 4096); err != nil {
				return nil, err
			}
		}
		ms := time.Since(start).Milliseconds()
		counts := p.StageCounts()
		for i, src := range from {
			if src >= len(counts) {
				break
			}
			if d, ok := after[i].(bson.D); ok {
				after[i] = append(d, bson.E{Key: "nReturned", Value: counts[src]}, bson.E{Key: "executionTimeMillisEstimate", Value: ms})
			}
		}
	}
	stages = append(stages, after...)
	// mongod's pipeline explain: the stages, the server, then the
	// command.
	return bson.D{{Key: "explainVersion", Value: explainVersion}, {Key: "stages", Value: stages},
		{Key: "serverInfo", Value: explainServerInfo(ctx)}, {Key: "serverParameters", Value: db.explainServerParameters()},
		{Key: "command", Value: command}}, nil
}

// wholePipelinePushed reports whether the find layer runs all of
// pipeline p, as mongod's pipeline_d absorbs it: its leading $match,
// $sort and the $limit after that sort, or without a sort a $limit
// (which may follow the $project: mongod moves a $limit ahead of it),
// then at most one $project of plain inclusions or exclusions, which
// becomes the find's projection (proj, in the form mongod's $project
// serializes it: {_id: true, a: true}; nil if none). limit is the
// find's limit the sortless $limit gives (0: none). Such a pipeline's
// explain is the find's.
func wholePipelinePushed(p *agg.Pipeline) (pushed bool, proj bson.D, limit int64) {
	if p.GeoNear() != nil || p.Out() != nil || p.UsesTextScore() {
		return false, nil, 0
	}
	stageOf := func(st any) (string, any) {
		if d, ok := st.(bson.D); ok && len(d) == 1 {
			return d[0].Key, d[0].Value
		}
		return "", nil
	}
	stages := p.Stages()
	if len(stages) > 0 && p.Sort() != nil && p.Limit() > 0 {
		if name, v := stageOf(stages[0]); name == "$limit" {
			if n, ok := asInt64(v); ok && n == p.Limit() {
				stages = stages[1:]
			}
		}
	}
	if p.Sort() == nil {
		for i, st := range stages {
			if name, v := stageOf(st); name == "$limit" {
				n, ok := asInt64(v)
				if !ok || n <= 0 {
					return false, nil, 0
				}
				limit = n
				stages = append(append(bson.A{}, stages[:i]...), stages[i+1:]...)
				break
			}
		}
	}
	switch len(stages) {
	case 0:
		return true, nil, limit
	case 1:
		name, v := stageOf(stages[0])
		spec, ok := v.(bson.D)
		if name != "$project" || !ok {
			return false, nil, 0
		}
		proj, ok := pushedProjection(spec)
		return ok, proj, limit
	}
	return false, nil, 0
}

// pushedProjection returns $project spec as mongod serializes it when
// it pushes it into the find layer, and false when spec is not a plain
// inclusion or exclusion (a computed field, an operator).
func pushedProjection(spec bson.D) (bson.D, bool) {
	if len(spec) == 0 {
		return nil, false
	}
	idSet, idOn := false, true
	var fields []string
	incl := -1 // 1 inclusion, 0 exclusion, -1 not yet known
	for _, e := range spec {
		on, ok := projFlag(e.Value)
		if !ok || strings.HasPrefix(e.Key, "$") {
			return nil, false
		}
		if e.Key == "_id" {
			idSet, idOn = true, on
			continue
		}
		mode := 0
		if on {
			mode = 1
		}
		if incl != -1 && incl != mode {
			return nil, false
		}
		incl = mode
		fields = append(fields, e.Key)
	}
	out := bson.D{}
	if incl != 0 {
		// An inclusion names _id first, true unless excluded.
		out = setPath(out, "_id", idOn)
		for _, f := range fields {
			out = setPath(out, f, true)
		}
		return out, true
	}
	for _, f := range fields {
		out = setPath(out, f, false)
	}
	// An exclusion names _id last: false where excluded, else true.
	if !idSet || !idOn {
		out = setPath(out, "_id", idOn)
	}
	return out, true
}

// projFlag reads a projection value that includes or excludes a field:
// a boolean or a number.
func projFlag(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case int32, int64, float64:
		f, _ := asFloat(x)
		return f != 0, true
	}
	return false, false
}

// setPath sets the dotted path in d to v, nesting documents.
func setPath(d bson.D, path string, v any) bson.D {
	head, rest, nested := strings.Cut(path, ".")
	for i, e := range d {
		if e.Key == head {
			if nested {
				sub, _ := e.Value.(bson.D)
				d[i].Value = setPath(sub, rest, v)
			} else {
				d[i].Value = v
			}
			return d
		}
	}
	if nested {
		return append(d, bson.E{Key: head, Value: setPath(bson.D{}, rest, v)})
	}
	return append(d, bson.E{Key: head, Value: v})
}

// Aggregate runs a pipeline (a bson.A of stage documents) over the
// collection and returns a cursor over its results, like the driver's
// Collection.Aggregate; see docs/aggregation.md for the stages and
// operators ttlkv implements.
func (c *Collection) Aggregate(ctx context.Context, pipeline any) (*Cursor, error) {
	arr, err := normPipeline(pipeline)
	if err != nil {
		return nil, err
	}
	s := &aggregateSpec{name: c.name, raw: arr}
	if s.pipeline, err = agg.Parse(arr); err != nil {
		return nil, err
	}
	if err := validateCollName(c.dbName, c.name, true); err != nil {
		return nil, err
	}
	if s.pipeline.Collectionless() {
		return nil, document.Errorf(document.CodeInvalidNamespace, "'$documents' can only be run with {aggregate: 1}")
	}
	q, err := c.db.aggregate(ctx, c.dbName, s)
	if err != nil {
		return nil, err
	}
	c.db.stats.queried.Add(1)
	return &Cursor{q: q, batch: 1024}, nil
}

// Aggregate runs a pipeline that reads no collection, starting with
// $documents, on the database, like the driver's Database.Aggregate
// ({aggregate: 1}).
func (d *Database) Aggregate(ctx context.Context, pipeline any) (*Cursor, error) {
	arr, err := normPipeline(pipeline)
	if err != nil {
		return nil, err
	}
	s := &aggregateSpec{name: collectionlessName, raw: arr, collectionless: true}
	if s.pipeline, err = agg.Parse(arr); err != nil {
		return nil, err
	}
	if err := checkCollectionless(s); err != nil {
		return nil, err
	}
	q, err := d.db.aggregate(ctx, d.name, s)
	if err != nil {
		return nil, err
	}
	d.db.stats.queried.Add(1)
	return &Cursor{q: q, batch: 1024}, nil
}

func normPipeline(v any) (bson.A, error) {
	nv, err := document.NormalizeValue(v)
	if err != nil {
		return nil, document.Errorf(document.CodeBadValue, "aggregate: %v", err)
	}
	arr, ok := nv.(bson.A)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch, "aggregate: the pipeline must be an array, got %s", typeName(v))
	}
	return arr, nil
}

// checkInvolvedViews refuses an aggregation that reads a view through
// $lookup, $graphLookup or $unionWith (at any depth of its pipeline)
// whose default collation is not the aggregation's, as mongod does
// (167). The aggregation's collation is its collation option, else its
// collection's or view's default.
func (db *DB) checkInvolvedViews(dbName string, s *aggregateSpec) error {
	names := involvedNamespaces(s.raw, nil)
	if len(names) == 0 {
		return nil
	}
	var agg *collation.Collator
	if s.collation != nil {
		var err error
		if agg, err = catalog.ParseCollation(s.collation); err != nil {
			return err
		}
	} else if c := db.lookup(dbName, s.name); c != nil && !s.collectionless {
		agg = c.m().DefaultCollator()
	}
	for _, name := range names {
		c := db.lookup(dbName, name)
		if c == nil || c.m().Kind != catalog.KindView {
			continue
		}
		if !collation.Equal(c.m().DefaultCollator(), agg) {
			return document.Errorf(document.CodeOptionNotSupportedOnView, "Cannot override a view's default collation%s", c.m().NS())
		}
	}
	// mongod resolves every view the pipeline reads before it runs,
	// and the views their pipelines read in turn: one that stands on
	// too many views fails the aggregation, whether or not the stage
	// that names it reads anything.
	seen := map[string]bool{}
	for len(names) > 0 {
		name := names[0]
		names = names[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		if err := db.checkViewResolves(dbName, name); err != nil {
			return err
		}
		for on := name; ; {
			c := db.lookup(dbName, on)
			if c == nil || c.m().Kind != catalog.KindView {
				break
			}
			var pipe bson.A
			on, pipe = viewDef(c.m())
			names = involvedNamespaces(pipe, names)
		}
	}
	return nil
}

// checkInvolvedNames refuses an empty collection name in a $lookup's
// from, a $graphLookup's from or a $unionWith's coll (at any depth) as
// mongod does when it first reads the pipeline: 73 InvalidNamespace,
// "invalid $lookup namespace: <db>." and the like. (An empty name would
// otherwise read nothing, or for $lookup with a pipeline be taken for
// no from.)
func checkInvolvedNames(dbName string, stages bson.A) error {
	for _, st := range stages {
		d, ok := st.(bson.D)
		if !ok || len(d) != 1 {
			continue
		}
		name, field, msg := d[0].Key, "from", "invalid %s namespace: %s."
		switch name {
		case "$unionWith":
			field, msg = "coll", "Invalid %s namespace specified: %s."
		case "$lookup", "$graphLookup":
		case "$facet":
			if arg, ok := d[0].Value.(bson.D); ok {
				for _, e := range arg {
					if a, ok := e.Value.(bson.A); ok {
						if err := checkInvolvedNames(dbName, a); err != nil {
							return err
						}
					}
				}
			}
			continue
		default:
			continue
		}
		var from any
		var have bool
		arg, isDoc := d[0].Value.(bson.D)
		if isDoc {
			from, have = get(arg, field)
		} else {
			from, have = d[0].Value, true // $unionWith: "coll"
		}
		if have && from == "" {
			return document.Errorf(document.CodeInvalidNamespace, msg, name, dbName)
		}
		if sub, ok := get(arg, "pipeline"); ok && isDoc {
			if a, ok := sub.(bson.A); ok {
				if err := checkInvolvedNames(dbName, a); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// involvedNamespaces appends to out the collections a pipeline's
// $lookup, $graphLookup and $unionWith stages read, and those of their
// own pipelines and of $facet's.
func involvedNamespaces(stages bson.A, out []string) []string {
	for _, st := range stages {
		d, ok := st.(bson.D)
		if !ok || len(d) != 1 {
			continue
		}
		switch arg := d[0].Value.(type) {
		case string:
			if d[0].Key == "$unionWith" {
				out = append(out, arg)
			}
		case bson.D:
			switch d[0].Key {
			case "$lookup", "$graphLookup", "$unionWith":
				name := "from"
				if d[0].Key == "$unionWith" {
					name = "coll"
				}
				if from, ok := get(arg, name); ok {
					if fs, ok := from.(string); ok {
						out = append(out, fs)
					}
				}
				if sub, ok := get(arg, "pipeline"); ok {
					if a, ok := sub.(bson.A); ok {
						out = involvedNamespaces(a, out)
					}
				}
			case "$facet":
				for _, e := range arg {
					if a, ok := e.Value.(bson.A); ok {
						out = involvedNamespaces(a, out)
					}
				}
			}
		}
	}
	return out
}
