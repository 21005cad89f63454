package agg

import (
	"context"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// codeLookupTooBig is mongod's code for a $lookup whose matches exceed
// the largest document.
const codeLookupTooBig = document.Code(4568)

// maxInternalSize is the largest document a stage may build, mongod's
// BSONObjMaxInternalSize (16 MiB and 16 KiB).
const maxInternalSize = document.MaxDocumentSize + 16<<10

// LookupFunc runs a find with filter on the collection from, in the
// pipeline's database, and calls fn with each document it returns, in
// the order a find with no sort returns them, until fn returns an
// error. A collection that does not exist returns nothing.
type LookupFunc func(ctx context.Context, from string, filter bson.D, fn func(bson.D) error) error

// lookupStage is $lookup: each document gets, at as, the documents of
// from whose foreignField equals a value of its localField, or the
// results of a pipeline run over from with the let variables bound, or
// the pipeline's results over the equal documents (docs/aggregation.md,
// "$lookup").
type lookupStage struct {
	from         string
	local        []string // nil: no localField/foreignField
	foreignField string
	as           []string
	letNames     []string
	letExprs     []Expr
	sub          *Pipeline   // nil: no pipeline
	push         *lookupPush // what of sub's leading $match the find takes (nil: nothing)
	// docs and rest split sub when it has no from, starts with
	// $documents and joins on localField/foreignField: mongod matches
	// the documents $documents makes, then runs the rest (nil: none).
	docs, rest *Pipeline
}

func parseLookup(arg any, sc pdepth) (stageSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "the $lookup stage specification must be an object, but found %s", document.TypeName(arg))
	}
	// mongod reads from before the rest (LiteParsed::parse).
	if v, ok := lookupField(spec, "from"); ok {
		if err := checkLookupFrom(v); err != nil {
			return stageSpec{}, err
		}
	}
	var from, as, local, foreign string
	var hasFrom, hasAs, hasLocal, hasForeign bool
	var let bson.D
	var pipeline bson.A
	hasLet, hasPipeline := false, false
	for _, e := range spec {
		switch e.Key {
		case "pipeline":
			arr, ok := e.Value.(bson.A)
			if !ok {
				return stageSpec{}, document.Errorf(document.CodeTypeMismatch, "'pipeline' option must be specified as an array")
			}
			pipeline, hasPipeline = arr, true
			continue
		case "let":
			d, ok := e.Value.(bson.D)
			if !ok {
				return stageSpec{}, document.Errorf(document.CodeFailedToParse, "$lookup argument 'let: %s' must be an object, is type %s", document.Format(e.Value), document.TypeName(e.Value))
			}
			let, hasLet = d, true
			continue
		}
		s, ok := e.Value.(string)
		if !ok {
			return stageSpec{}, document.Errorf(document.CodeFailedToParse, "$lookup argument '%s: %s' must be a string, is type %s", e.Key, document.Format(e.Value), document.TypeName(e.Value))
		}
		switch e.Key {
		case "from":
			from, hasFrom = s, true
		case "as":
			as, hasAs = s, true
		case "localField":
			local, hasLocal = s, true
		case "foreignField":
			foreign, hasForeign = s, true
		default:
			return stageSpec{}, document.Errorf(document.CodeFailedToParse, "unknown argument to $lookup: %s", e.Key)
		}
	}
	// Without from, the pipeline must make its own documents.
	switch {
	case !hasFrom && !hasPipeline:
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "must specify 'pipeline' when 'from' is empty")
	case !hasFrom && !startsWithDocuments(pipeline):
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "$lookup stage without explicit collection must have a pipeline with $documents as first stage")
	}
	if !hasAs {
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "must specify 'as' field for a $lookup")
	}
	switch {
	case hasLocal != hasForeign && hasPipeline:
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "$lookup requires both or neither of 'localField' and 'foreignField' to be specified")
	case !hasLocal && !hasPipeline || hasLocal != hasForeign:
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified")
	case hasLet && !hasPipeline:
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "$lookup with a 'let' argument must also specify 'pipeline'")
	}
	l := &lookupStage{from: from, foreignField: foreign}
	var err error
	if l.as, err = lookupPath(as); err != nil {
		return stageSpec{}, err
	}
	if hasLocal {
		if l.local, err = lookupPath(local); err != nil {
			return stageSpec{}, err
		}
		if _, err = lookupPath(foreign); err != nil {
			return stageSpec{}, err
		}
	}
	for _, el := range let {
		if err := checkVarName(el.Key); err != nil {
			return stageSpec{}, err
		}
		x, err := parseExpr(el.Value, sc.deeper())
		if err != nil {
			return stageSpec{}, err
		}
		l.letNames = append(l.letNames, el.Key)
		l.letExprs = append(l.letExprs, x)
	}
	if hasPipeline {
		if l.sub, err = parseSubPipeline(pipeline, sc.with(l.letNames...), "$lookup"); err != nil {
			return stageSpec{}, err
		}
		l.push = parseLookupPush(pipeline, sc.with(l.letNames...))
		if !hasFrom && hasLocal {
			l.docs = &Pipeline{stages: l.sub.stages[:1]}
			l.rest = &Pipeline{stages: l.sub.stages[1:]}
			l.push = nil
		}
	}
	return stageSpec{name: "$lookup", spec: spec, make: func(up iter, o *Options) iter {
		return &lookupIter{lookupStage: l, up: up, o: o}
	}}, nil
}

// maxSubPipelineDepth is how deeply $lookup and $unionWith pipelines
// may nest, mongod's internalMaxSubPipelineViewDepth.
const maxSubPipelineDepth = 20

// parseSubPipeline parses the pipeline of in ($lookup, $unionWith or
// $facet) with the variables of sc in scope; it counts against
// maxSubPipelineDepth unless in a $facet (as in mongod), and may not
// hold $out or $merge.
// Every stage stays in it: the documents reach it as they are, so
// nothing is pushed into a scan.
func parseSubPipeline(arr bson.A, sc pdepth, in string) (*Pipeline, error) {
	nested := in != "$facet"
	if nested {
		if sc.subs >= maxSubPipelineDepth {
			return nil, document.Errorf(document.CodeMaxSubPipelineDepthExceeded, "Maximum number of nested sub-pipelines exceeded. Limit is %d", maxSubPipelineDepth)
		}
		sc.subs++
	}
	p := &Pipeline{}
	for i, sv := range arr {
		sd, ok := sv.(bson.D)
		if !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "Each element of the 'pipeline' array must be an object")
		}
		if len(sd) != 1 {
			return nil, document.Errorf(codeStageOneField, "A pipeline stage specification object must contain exactly one field.")
		}
		if sd[0].Key == "$geoNear" && i == 0 {
			if in == "$facet" {
				return nil, document.Errorf(document.Code(40600), "$geoNear is not allowed to be used within a $facet stage")
			}
			// The first stage of a pipeline over a collection: the
			// engine reads the collection with it (docs/geo.md).
			g, err := parseGeoNear(sd[0].Value, sc)
			if err != nil {
				return nil, err
			}
			p.geoNear = g
			continue
		}
		if sd[0].Key == "$match" && holdsText(sd[0].Value) {
			// A $text reads a collection's text index: as the first
			// stage of a pipeline over a collection ($lookup's,
			// $unionWith's), the find that reads it runs the $match
			// whole (docs/text.md); elsewhere, 17313 as in mongod.
			m, isDoc := sd[0].Value.(bson.D)
			if i > 0 || in == "$facet" || !isDoc || holdsExpr(m) {
				return nil, document.Errorf(document.Code(17313), "$match with $text is only allowed as the first pipeline stage")
			}
			if _, err := parseStage("$match", m, sc); err != nil {
				return nil, err
			}
			p.textMatch = m
			continue
		}
		if sd[0].Key == "$changeStream" {
			// A change stream is a command's own cursor, never a
			// sub-pipeline's input: mongod refuses it where it refuses
			// $out (change_stream_ban_from_lookup.js).
			return nil, outStageErr("$changeStream", in)
		}
		if sd[0].Key == "$documents" && len(p.stages) > 0 {
			return nil, document.Errorf(document.Code(40602), "$documents is only valid as the first stage in a pipeline.")
		}
		st, err := parseStage(sd[0].Key, sd[0].Value, sc)
		if err != nil {
			return nil, err
		}
		if st.out != nil {
			return nil, outStageErr(st.out.Stage, in)
		}
		p.add(st)
	}
	return p, nil
}

// lookupPath checks a $lookup field path as mongod's FieldPath does.
func lookupPath(p string) ([]string, error) {
	if err := checkFieldPath(p); err != nil {
		return nil, err
	}
	return strings.Split(p, "."), nil
}

// checkFieldPath refuses a dotted path as mongod's FieldPath does: an
// empty one 40352, one ending with '.' 40353, an empty component 15998,
// a component starting with '$' 16410, a NUL 16411.
func checkFieldPath(p string) error {
	if p == "" {
		return document.Errorf(document.Code(40352), "FieldPath cannot be constructed with empty string")
	}
	if strings.HasSuffix(p, ".") {
		return document.Errorf(document.Code(40353), "FieldPath must not end with a '.'.")
	}
	for _, s := range strings.Split(p, ".") {
		if s == "" {
			return document.Errorf(document.Code(15998), "FieldPath field names may not be empty strings.")
		}
		if strings.HasPrefix(s, "$") {
			return document.Errorf(codeFieldPathDollar, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
		}
		if strings.ContainsRune(s, 0) {
			return document.Errorf(document.Code(16411), "FieldPath field names may not contain '\\0'.")
		}
	}
	return nil
}

type lookupIter struct {
	*lookupStage
	up iter
	o  *Options
}

func (l *lookupIter) next(ctx context.Context) (bson.D, error) {
	d, err := l.up.next(ctx)
	if err != nil || d == nil {
		return nil, err
	}
	if l.o.Lookup == nil && (l.from != "" || l.sub == nil) {
		return nil, document.Errorf(codeUnrecognizedStage, "$lookup is not available here")
	}
	filter := bson.D{}
	if l.local != nil {
		filter = l.filter(d)
	}
	var size int64
	matches := bson.A{}
	add := func(m bson.D) error {
		if size += approxSize(m); size > maxInternalSize {
			return document.Errorf(codeLookupTooBig, "Total size of documents in %s matching pipeline's $lookup stage exceeds %d bytes", l.from, maxInternalSize)
		}
		matches = append(matches, m)
		return nil
	}
	if l.sub == nil {
		if err := l.o.Lookup(ctx, l.from, filter, add); err != nil {
			return nil, err
		}
		return setNested(d, l.as, matches), nil
	}
	// The pipeline form: the let values are computed for d, and the
	// pipeline runs over the foreign documents (those equal to d's
	// local values, in the concise form) with them bound.
	sub := *l.o
	env := l.o.env(d)
	for i, x := range l.letExprs {
		v, err := x.Eval(env)
		if err != nil {
			return nil, err
		}
		sub.vars = &binding{name: l.letNames[i], val: v, up: sub.vars}
	}
	// The leading $match's plain predicates and equalities narrow the
	// find, so that an index on the foreign field serves it; a leading
	// $match with a $text is the find's, whole.
	extra := l.push.filter(&Env{Now: l.o.Now, vars: sub.vars, coll: l.o.Collator})
	if l.sub.textMatch != nil {
		extra = l.sub.textMatch
	}
	switch {
	case extra == nil:
	case len(filter) == 0:
		filter = extra
	default:
		filter = bson.D{{Key: "$and", Value: bson.A{filter, extra}}}
	}
	foreign := &holder{stage: "$lookup", o: l.o}
	switch {
	case l.from != "" && l.sub.geoNear != nil:
		g, err := l.sub.geoNear.Resolve(&Env{Now: l.o.Now, vars: sub.vars, noDoc: true})
		if err != nil {
			return nil, err
		}
		if l.o.GeoNear == nil {
			return nil, document.Errorf(codeUnrecognizedStage, "$geoNear is not available here")
		}
		if err := l.o.GeoNear(ctx, l.from, g.withQuery(filter), foreign.add); err != nil {
			return nil, err
		}
	case l.from != "":
		if err := l.o.Lookup(ctx, l.from, filter, foreign.add); err != nil {
			return nil, err
		}
	}
	run := l.sub
	if l.docs != nil {
		// No from, $documents and a localField/foreignField join: the
		// join's match is between $documents and the rest.
		if err := l.joinDocuments(ctx, filter, sub, foreign); err != nil {
			return nil, err
		}
		run = l.rest
	}
	cur := run.Open(sliceSource(foreign.docs), sub)
	for {
		m, err := cur.Next(ctx)
		if err != nil {
			return nil, err
		}
		if m == nil {
			break
		}
		if err := add(m); err != nil {
			return nil, err
		}
	}
	return setNested(d, l.as, matches), nil
}

// joinDocuments adds to foreign the documents of l.docs (a $documents)
// that match filter, under the collation.
func (l *lookupIter) joinDocuments(ctx context.Context, filter bson.D, o Options, foreign *holder) error {
	flt, err := query.ParseFilter(filter)
	if err != nil {
		return err
	}
	if flt, err = flt.Collate(l.o.Collator); err != nil {
		return err
	}
	cur := l.docs.Open(sliceSource(nil), o)
	for {
		m, err := cur.Next(ctx)
		if err != nil || m == nil {
			return err
		}
		if ok, err := flt.MatchErr(m); err != nil {
			return err
		} else if ok {
			if err := foreign.add(m); err != nil {
				return err
			}
		}
	}
}

// filter is the query the foreign collection is searched with for d, as
// mongod builds it: foreignField equal to the one value of localField,
// $in of its values, or an $or of equalities when a value is a regular
// expression ($in would match by pattern); a missing localField, or one
// with no values, is null.
func (l *lookupIter) filter(d bson.D) bson.D {
	var vals bson.A
	regex := false
	visitPathValues(d, l.local, func(v any) {
		if _, ok := v.(bson.Regex); ok {
			regex = true
		}
		vals = append(vals, v)
	})
	if len(vals) == 0 {
		vals = bson.A{nil}
	}
	switch {
	case len(vals) == 1:
		return bson.D{{Key: l.foreignField, Value: bson.D{{Key: "$eq", Value: vals[0]}}}}
	case !regex:
		return bson.D{{Key: l.foreignField, Value: bson.D{{Key: "$in", Value: vals}}}}
	}
	or := make(bson.A, len(vals))
	for i, v := range vals {
		or[i] = bson.D{{Key: l.foreignField, Value: bson.D{{Key: "$eq", Value: v}}}}
	}
	return bson.D{{Key: "$or", Value: or}}
}

// visitPathValues calls fn with each value at path in v, as mongod's
// $lookup reads its localField: through documents and the documents of
// arrays on the way, and with each element of an array at the end.
func visitPathValues(v any, path []string, fn func(any)) {
	if len(path) == 0 {
		if arr, ok := v.(bson.A); ok {
			for _, e := range arr {
				fn(e)
			}
			return
		}
		fn(v)
		return
	}
	switch x := v.(type) {
	case bson.D:
		if nv, ok := docGet(x, path[0]); ok {
			visitPathValues(nv, path[1:], fn)
		}
	case bson.A:
		for _, e := range x {
			if sd, ok := e.(bson.D); ok {
				visitPathValues(sd, path, fn)
			}
		}
	}
}

// checkLookupFrom refuses a 'from' that is not a collection name as
// mongod does: another type, or the {db, coll} form, which mongod keeps
// for a few internal collections.
func checkLookupFrom(v any) error {
	switch x := v.(type) {
	case string:
		return nil
	case bson.D:
		dbv, _ := lookupField(x, "db")
		collv, _ := lookupField(x, "coll")
		db, _ := dbv.(string)
		coll, _ := collv.(string)
		return document.Errorf(document.CodeFailedToParse, "$lookup with syntax {from: {db:<>, coll:<>},..} is not supported for db: %s and coll: %s", db, coll)
	}
	return document.Errorf(document.CodeFailedToParse, "$lookup 'from' field must be a string, but found %s", document.TypeName(v))
}

// lookupField is the value of the top-level field k of d, and whether
// d has it.
func lookupField(d bson.D, k string) (any, bool) {
	for _, e := range d {
		if e.Key == k {
			return e.Value, true
		}
	}
	return nil, false
}

// startsWithDocuments reports whether a pipeline's first stage is
// $documents, which makes a $lookup's foreign documents itself (mongod
// then takes no from).
func startsWithDocuments(pipeline bson.A) bool {
	if len(pipeline) == 0 {
		return false
	}
	st, ok := pipeline[0].(bson.D)
	return ok && len(st) == 1 && st[0].Key == "$documents"
}
