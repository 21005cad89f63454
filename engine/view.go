package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A view (create with viewOn and pipeline) is a read-only collection
// whose documents are its pipeline's results over another collection or
// view of the same database, computed when it is read (docs/views.md).
// Its catalog entry keeps viewOn and pipeline in its options and has no
// records and no indexes.

// maxViewDepth is how many views may stand on each other, mongod's
// ViewGraph::kMaxViewDepth.
const maxViewDepth = 20

// viewKind is a view's kind: reads run its pipeline, writes are refused.
type viewKind struct{}

// errView is mongod's refusal of a write, an index or another operation
// a view cannot take.
func errView(m *catalog.Coll) error {
	return document.Errorf(document.CodeCommandNotSupportedOnView, "Namespace %s is a view, not a collection", m.NS())
}

// viewDef returns a view's source collection and pipeline.
func viewDef(m *catalog.Coll) (string, bson.A) {
	on, _ := get(m.Options, "viewOn")
	s, _ := on.(string)
	p, _ := get(m.Options, "pipeline")
	a, _ := p.(bson.A)
	return s, a
}

// parseViewCreate checks create's options for a view: viewOn a
// non-empty string, pipeline an array (createColl checks its stages,
// checkViewPipeline), and nothing that only collections take.
func parseViewCreate(opts bson.D, has map[string]any, co *createOptions) (*createOptions, error) {
	on, ok := has["viewOn"].(string)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'create.viewOn' is the wrong type '%s', expected type 'string'", typeName(has["viewOn"]))
	}
	if on == "" {
		return nil, document.Errorf(document.CodeBadValue, "'viewOn' cannot be empty")
	}
	pipe := bson.A{}
	if v, ok := has["pipeline"]; ok {
		if pipe, ok = v.(bson.A); !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'create.pipeline' is the wrong type '%s', expected type 'array'", typeName(v))
		}
	}
	for _, k := range []string{"capped", "size", "max", "timeseries", "expireAfterSeconds", "validator", "validationLevel", "validationAction", "clusteredIndex", "idIndex", "changeStreamPreAndPostImages", "indexOptionDefaults", "storageEngine"} {
		v, ok := has[k]
		if !ok {
			continue
		}
		switch k {
		case "expireAfterSeconds":
			if _, ok := has["clusteredIndex"]; !ok {
				// mongod's create checks this before the view.
				return nil, document.Errorf(document.CodeInvalidOptions, "'expireAfterSeconds' is only supported on time-series collections or when the 'clusteredIndex' option is specified")
			}
		case "idIndex":
			return nil, document.Errorf(document.CodeInvalidOptions, "'idIndex' is not allowed with 'viewOn': %s", fmtValue(v))
		case "changeStreamPreAndPostImages":
			if d, _ := v.(bson.D); !enabledOf(d) {
				continue // off is no option a view refuses
			}
		}
		return nil, document.Errorf(document.CodeInvalidOptions, "option not supported on a view: %s", k)
	}
	var full bson.D // the view's collation, nil when simple
	if v, ok := has["collation"]; ok {
		var err error
		if full, err = normalizeCollation(v); err != nil {
			return nil, err
		}
	}
	co.kind = catalog.KindView
	co.raw = bson.D{{Key: "viewOn", Value: on}, {Key: "pipeline", Value: pipe}}
	if full != nil {
		co.raw = append(co.raw, bson.E{Key: "collation", Value: full})
	}
	return co, nil
}

// checkViewPipeline checks view ns's pipeline as mongod's view catalog
// validates it: it must parse, with no stage that writes ($out, $merge)
// and no $changeStream (167 OptionNotSupportedOnView), and no stage
// that reads no collection, such as $documents (73 InvalidNamespace).
// mongod words those three "Invalid pipeline for view <ns> :: caused
// by :: ...", and so sub-pipelines nested more than 20 deep (269, which
// its full parse finds); a stage that does not parse keeps its own
// error.
func checkViewPipeline(ns string, pipe bson.A) error {
	invalid := func(code document.Code, format string, args ...any) error {
		return document.Errorf(code, "Invalid pipeline for view %s :: caused by :: "+format, append([]any{ns}, args...)...)
	}
	if len(pipe) > 0 {
		if d, ok := pipe[0].(bson.D); ok && len(d) == 1 && d[0].Key == "$changeStream" {
			// ttlkv's pipelines do not parse it; mongod's refusal.
			return invalid(document.CodeOptionNotSupportedOnView, "$changeStream cannot be used in a view definition")
		}
	}
	p, err := agg.Parse(pipe)
	if err != nil {
		var de *document.Error
		if errors.As(err, &de) && de.Code == document.CodeMaxSubPipelineDepthExceeded {
			// mongod's view validation counts the nesting when it
			// parses the pipeline fully, whose errors it wraps; the
			// views the pipeline reads are not followed there.
			return invalid(de.Code, "%s", de.Message)
		}
		return err
	}
	for i, st := range pipe {
		if d, ok := st.(bson.D); ok && len(d) == 1 && (d[0].Key == "$out" || d[0].Key == "$merge") {
			return invalid(document.CodeOptionNotSupportedOnView,
				"The aggregation stage %s in location %d of the pipeline cannot be used in the view definition of %s because it writes to disk", d[0].Key, i, ns)
		}
	}
	if p.Collectionless() {
		return invalid(document.CodeInvalidNamespace, "'$documents' cannot be used in a view definition")
	}
	return nil
}

func (viewKind) open(*DB, *coll) error { return nil }

func (viewKind) insert(_ context.Context, _ *DB, c *coll, _ []any, _ bool) ([]any, []WriteError, error) {
	return nil, nil, errView(c.m())
}

// query runs a find on a view as mongod does: an aggregate over the
// view's source of the view's pipeline, then the find's filter, sort,
// skip and limit; the projection is applied to its results.
func (viewKind) query(db *DB, c *coll, filter bson.D, _ *query.Filter, _ *query.Sort, o FindOptions, proj *query.Projection) (*queryExec, error) {
	m := c.m()
	if err := db.checkViewResolves(m.DB, m.Name); err != nil {
		return nil, err
	}
	on, full := viewFindPipeline(m, filter, o)
	let, err := agg.ParseLet(o.Let, bson.NewDateTimeFromTime(db.opts.Clock()))
	if err != nil {
		return nil, err
	}
	if let == nil {
		// An aggregate's let, for the $match and $sort it pushed down.
		let = agg.LetOfVars(o.filterVars)
	}
	p, err := agg.ParseWith(full, let)
	if err != nil {
		return nil, err
	}
	coll, err := viewCollation(m, o.Collation)
	if err != nil {
		return nil, err
	}
	q, err := db.aggregate(context.Background(), m.DB, &aggregateSpec{name: on, pipeline: p, raw: full, noDisk: o.AllowDiskUse != nil && !*o.AllowDiskUse, collation: coll, hint: o.Hint})
	if err != nil {
		return nil, err
	}
	if proj != nil {
		gen := q.gen
		q.gen = func(ctx context.Context, n int) ([]bson.D, error) {
			docs, err := gen(ctx, n)
			for i, d := range docs {
				if docs[i], err = proj.ApplyErr(d); err != nil {
					return nil, err
				}
			}
			return docs, err
		}
	}
	return q, nil
}

func (viewKind) checkFind(_ *coll, _ bson.D, o FindOptions, srt *query.Sort) error {
	// A hint is taken (mongod 6.3 and later): it applies to the
	// source's scan (viewKind.query).
	return findAsAggregate(o, srt)
}

// findAsAggregate refuses the find options an aggregate has not, for a
// find mongod runs as an aggregate (on a view or a time-series
// collection): 168 InvalidPipelineOperator, in the order and words of
// its query_request_helper::asAggregationCommand.
func findAsAggregate(o FindOptions, srt *query.Sort) error {
	refuse := func(name string) error {
		return document.Errorf(document.CodeInvalidPipelineOperator, "Option %s not supported in aggregation.", name)
	}
	switch {
	case o.Min != nil:
		return refuse("min")
	case o.Max != nil:
		return refuse("max")
	case o.ReturnKey:
		return refuse("returnKey")
	case o.ShowRecordID:
		return refuse("showRecordId")
	case o.Tailable:
		return document.Errorf(document.CodeInvalidPipelineOperator, "Tailable cursors are not supported in aggregation.")
	case o.noCursorTimeout:
		return refuse("noCursorTimeout")
	case o.allowPartialResults:
		return refuse("allowPartialResults")
	}
	if srt != nil {
		if _, ok := srt.NaturalOrder(); ok {
			return document.Errorf(document.CodeInvalidPipelineOperator, "Sort option $natural not supported in aggregation.")
		}
	}
	switch {
	case o.singleBatch && o.Limit != -1:
		// singleBatch is taken with limit 1, mongod's one exception.
		return refuse("singleBatch")
	case o.readOnce:
		return refuse("readOnce")
	}
	return nil
}

func (viewKind) next(context.Context, *scanner, int) ([]record, error) {
	return nil, document.Errorf(document.CodeInternalError, "a view has no records")
}

func (viewKind) ridOfID(_ *DB, c *coll, _ bson.D) (uint64, error) { return 0, errView(c.m()) }

func (viewKind) canUpdate() error {
	return document.Errorf(document.CodeCommandNotSupportedOnView, "a view is read-only")
}

func (viewKind) canDelete(c *coll) error { return errView(c.m()) }

func (viewKind) checkIndex(*catalog.Index) error {
	return document.Errorf(document.CodeCommandNotSupportedOnView, "a view has no indexes")
}

func (viewKind) storesRecords() bool { return false }

func (viewKind) update(_ *DB, c *coll, _ []uint64, _ map[uint64][]byte, _ *query.Filter, _ *query.Update, _ time.Time, _ bool) (int64, int64, bson.D, error) {
	return 0, 0, nil, errView(c.m())
}

func (viewKind) delete(_ context.Context, _ *DB, c *coll, _ *query.Filter, _ DeleteSpec) (int64, error) {
	return 0, errView(c.m())
}

func (viewKind) buildIndexes(_ context.Context, _ *DB, c *coll, _ *catalog.Coll, _ []*catalog.Index) error {
	return errView(c.m())
}

func (viewKind) createIndexes(context.Context, *DB, *coll, []bson.D) (*CreateIndexesResult, error) {
	// mongod's createIndexes words it so (create_indexes_cmd.cpp).
	return nil, document.Errorf(document.CodeCommandNotSupportedOnView, "Cannot create indexes on a view")
}

func (viewKind) dropIndexes(_ *DB, c *coll, _ any) (int, error) { return 0, errView(c.m()) }

func (viewKind) drop(*DB, *coll) error { return nil }

func (viewKind) stats(*DB, *coll) collStatsInfo { return collStatsInfo{} }

func (viewKind) validate(_ context.Context, _ *DB, _ *coll, _ *ValidateResult, _ func(string, ...any)) bool {
	return false
}

func (viewKind) ttlTargets(*coll) []ttlTarget { return nil }

// modifyView is collMod on a view: a new viewOn, a new pipeline, or
// both, checked as create checks them. The caller holds db.catMu.
func (db *DB) modifyView(c *coll, opts bson.D) error {
	old := c.m()
	on, pipe := viewDef(old)
	for _, e := range opts {
		switch e.Key {
		case "viewOn":
			s, ok := e.Value.(string)
			if !ok {
				return document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.viewOn' is the wrong type '%s', expected type 'string'", typeName(e.Value))
			}
			if s == "" {
				return document.Errorf(document.CodeBadValue, "'viewOn' cannot be empty")
			}
			on = s
		case "pipeline":
			a, ok := e.Value.(bson.A)
			if !ok {
				return document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.pipeline' is the wrong type '%s', expected type 'array'", typeName(e.Value))
			}
			pipe = a
		}
	}
	if err := checkViewPipeline(old.NS(), pipe); err != nil {
		return err
	}
	if err := db.checkViewGraph(old.DB, old.Name, on, pipe, old.DefaultCollator()); err != nil {
		return err
	}
	if strings.HasPrefix(on, tsBucketsPre) {
		return document.Errorf(document.CodeInvalidNamespace, "Invalid view: cannot define a view over a system.buckets namespace except by creating a time-series collection")
	}
	nm := old.Clone()
	nm.Options = bson.D{{Key: "viewOn", Value: on}, {Key: "pipeline", Value: pipe}}
	if full, ok := get(old.Options, "collation"); ok {
		nm.Options = append(nm.Options, bson.E{Key: "collation", Value: full}) // collMod keeps it
	}
	// mongod rewrites the view's system.views document, which a
	// database stream shows as a modify event whose
	// operationDescription is the new definition (no stateBeforeChange).
	return db.updateMeta(c, nm, func(txn *lsm.Txn) error {
		return db.noteModify(txn, nm, append(bson.D(nil), nm.Options...), nil)
	})
}

// refuseView fails a write command on a view as a whole (166), as
// mongod does, before any statement runs; one on system.views, the
// views' definitions, is 73 (errWriteSystemViews), and one on
// admin.system.version too (errWriteSystemVersion).
func (db *DB) refuseView(dbName, name string) error {
	if name == systemViews {
		return errWriteSystemViews(dbName)
	}
	if dbName == "admin" && name == systemVersion {
		return errWriteSystemVersion
	}
	if c := db.lookup(dbName, name); c != nil && c.m().Kind == catalog.KindView {
		return errView(c.m())
	}
	return nil
}

// simpleCollation is the collation option that asks for binary
// comparison, whatever the collection's default.
var simpleCollation = bson.D{{Key: "locale", Value: "simple"}}

// viewCollation returns the collation a read of view m runs its
// pipeline under: the view's own (given at create, else simple: a view
// does not take its source's default), as mongod does. An operation
// that names another is 167 OptionNotSupportedOnView.
func viewCollation(m *catalog.Coll, op bson.D) (bson.D, error) {
	own := m.DefaultCollator()
	if op != nil {
		c, err := catalog.ParseCollation(op)
		if err != nil {
			return nil, err
		}
		if !collation.Equal(c, own) {
			return nil, document.Errorf(document.CodeOptionNotSupportedOnView, "Cannot override a view's default collation")
		}
	}
	if own == nil {
		return simpleCollation, nil
	}
	return own.Doc(), nil
}

// viewFindPipeline is the aggregate mongod makes of a find on view m:
// the view's source, and the view's pipeline followed by the find's
// filter ($match), sort, skip and limit.
func viewFindPipeline(m *catalog.Coll, filter bson.D, o FindOptions) (string, bson.A) {
	on, pipe := viewDef(m)
	full := append(bson.A{}, pipe...)
	if len(filter) > 0 {
		full = append(full, bson.D{{Key: "$match", Value: filter}})
	}
	if len(o.Sort) > 0 {
		full = append(full, bson.D{{Key: "$sort", Value: o.Sort}})
	}
	if o.Skip > 0 {
		full = append(full, bson.D{{Key: "$skip", Value: o.Skip}})
	}
	if lim := max(o.Limit, -o.Limit); lim > 0 {
		full = append(full, bson.D{{Key: "$limit", Value: lim}})
	}
	return on, full
}

// explainViewFind explains a find on a view as mongod does: as the
// aggregate over the view's source that the find runs (viewKind.query).
func (db *DB) explainViewFind(ctx context.Context, dbName string, c *coll, find bson.D, verbosity string) (bson.D, error) {
	filter, o, err := parseFindOptions(find)
	if err != nil {
		return nil, err
	}
	if err := db.checkViewResolves(dbName, c.m().Name); err != nil {
		return nil, err
	}
	on, full := viewFindPipeline(c.m(), filter, o)
	if len(o.Projection) > 0 {
		full = append(full, bson.D{{Key: "$project", Value: o.Projection}})
	}
	let, err := agg.ParseLet(o.Let, bson.NewDateTimeFromTime(db.opts.Clock()))
	if err != nil {
		return nil, err
	}
	p, err := agg.ParseWith(full, let)
	if err != nil {
		return nil, err
	}
	coll, err := viewCollation(c.m(), o.Collation)
	if err != nil {
		return nil, err
	}
	return db.explainAggregate(ctx, dbName, &aggregateSpec{name: on, pipeline: p, raw: full, collation: coll, hint: o.Hint}, verbosity)
}

// enabledOf reports whether a changeStreamPreAndPostImages option
// (checked by checkPreImagesOption) turns them on.
func enabledOf(d bson.D) bool {
	v, _ := get(d, "enabled")
	b, _ := v.(bool)
	return b
}

// viewExists is mongod's refusal (48 NamespaceExists) of a create
// whose options co differ from those of view m, which has its name:
// it names the first of viewOn, pipeline and collation that differs.
func viewExists(m *catalog.Coll, co *createOptions) error {
	on, pipe := viewDef(m)
	newOn, newPipe := "", bson.A{}
	if co.kind == catalog.KindView {
		newOn, newPipe = viewDef(&catalog.Coll{Options: co.raw})
	}
	if on != newOn {
		return document.Errorf(document.CodeNamespaceExists, "namespace %s already exists, but is a view on %s.%s rather than %s.%s", m.NS(), m.DB, on, m.DB, newOn)
	}
	if !document.Equal(pipe, newPipe) {
		// mongod prints both pipelines as documents keyed 0, 1, ...
		return document.Errorf(document.CodeNamespaceExists, "namespace %s already exists, but with pipeline %s rather than %s", m.NS(), fmtValue(arrayAsDoc(pipe)), fmtValue(arrayAsDoc(newPipe)))
	}
	own, asked := bson.D{}, bson.D{} // simple is {}
	if c := m.DefaultCollator(); c != nil {
		own = c.Doc()
	}
	if v, ok := get(co.raw, "collation"); ok {
		if d, ok := v.(bson.D); ok {
			asked = d // ttlkv keeps the complete specification, not the one asked
		}
	}
	return document.Errorf(document.CodeNamespaceExists, "namespace %s already exists, but with collation: %s rather than %s", m.NS(), fmtValue(own), fmtValue(asked))
}

// arrayAsDoc is a as a document whose keys are its indexes.
func arrayAsDoc(a bson.A) bson.D {
	d := bson.D{}
	for i, v := range a {
		d = append(d, bson.E{Key: strconv.Itoa(i), Value: v})
	}
	return d
}
