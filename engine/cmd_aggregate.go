package engine

import (
	"context"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func parseAggregate(cmd bson.D, now time.Time) (*aggregateSpec, error) {
	s := &aggregateSpec{batchSize: -1}
	switch v := cmd[0].Value.(type) {
	case string:
		s.name = v
	default:
		if !document.IsNumber(v) || document.Compare(v, int32(1)) != 0 {
			return nil, document.Errorf(document.CodeFailedToParse, "Invalid command format: the 'aggregate' field must specify a collection name or 1")
		}
		s.name, s.collectionless = collectionlessName, true
	}
	var err error
	havePipeline := false
	if err := strictFields(cmd, "pipeline", "explain", "allowDiskUse", "cursor", "bypassDocumentValidation",
		"collation", "hint", "let"); err != nil {
		return nil, err
	}
	for _, e := range cmd[1:] {
		switch e.Key {
		case "pipeline":
			arr, ok := e.Value.(bson.A)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'aggregate.pipeline' is the wrong type '%s', expected type 'array'", typeName(e.Value))
			}
			s.raw, havePipeline = arr, true
		case "cursor":
			cd, ok := e.Value.(bson.D)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'aggregate.cursor' is the wrong type '%s', expected type 'object'", typeName(e.Value))
			}
			s.hasCursor = true
			if _, err := cursorOption("aggregate", cd); err != nil {
				return nil, err
			}
			if v, ok := get(cd, "batchSize"); ok {
				n, err := intOpt("aggregate.cursor.batchSize", v)
				if err != nil {
					return nil, err
				}
				if n < 0 {
					return nil, negativeBatchSize(n)
				}
				s.batchSize = n
			}
		case "explain":
			b, ok := e.Value.(bool)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'aggregate.explain' is the wrong type '%s', expected type 'bool'", typeName(e.Value))
			}
			s.explain = b
		case "allowDiskUse":
			b, ok := e.Value.(bool)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'aggregate.allowDiskUse' is the wrong type '%s', expected type 'bool'", typeName(e.Value))
			}
			s.noDisk = !b
		case "hint":
			s.hint = e.Value
		case "collation":
			if s.collation, err = collationOption("aggregate", e.Value); err != nil {
				return nil, err
			}
		case "let":
			if s.let, err = letValue("aggregate", e.Value); err != nil {
				return nil, err
			}
		}
	}
	if !havePipeline {
		return nil, document.Errorf(codeIDLFailedToParse, "BSON field 'aggregate.pipeline' is missing but a required field")
	}
	if !s.hasCursor && !s.explain {
		return nil, document.Errorf(document.CodeFailedToParse, "The 'cursor' option is required, except for aggregate with the explain argument")
	}
	let, err := agg.ParseLet(s.let, bson.NewDateTimeFromTime(now))
	if err != nil {
		return nil, err
	}
	if s.pipeline, err = agg.ParseWith(s.raw, let); err != nil {
		return nil, err
	}
	if err := checkCollectionless(s); err != nil {
		return nil, err
	}
	return s, nil
}

// collectionlessName is the collection part of a {aggregate: 1}
// pipeline's namespace, as its cursor names it.
const collectionlessName = "$cmd.aggregate"

// checkCollectionless refuses a pipeline that starts with $documents on
// a collection, and one that does not on {aggregate: 1}, as mongod does
// (73).
func checkCollectionless(s *aggregateSpec) error {
	p := s.pipeline
	switch {
	case s.collectionless && p.FirstStage() == "":
		return document.Errorf(document.CodeInvalidNamespace, "{aggregate: 1} is not valid for an empty pipeline.")
	case s.collectionless && !p.Collectionless():
		return document.Errorf(document.CodeInvalidNamespace, "{aggregate: 1} is not valid for '%s'; a collection is required.", p.FirstStage())
	case !s.collectionless && p.Collectionless():
		return document.Errorf(document.CodeInvalidNamespace, "'$documents' can only be run with {aggregate: 1}")
	}
	return nil
}

// cmdAggregate runs the aggregate command.
func cmdAggregate(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	if r, ok, err := db.changeStreamAggregate(ctx, dbName, cmd); ok {
		return r, err
	}
	// aggregate's explain: true is explain at queryPlanner verbosity.
	var verbosity string
	if v, _ := get(cmd, "explain"); v == true {
		verbosity = "queryPlanner"
	}
	if r, ok, err := db.collStatsAggregate(ctx, dbName, cmd, verbosity); ok {
		return r, err
	}
	if r, ok, err := db.indexStatsAggregate(ctx, dbName, cmd, verbosity); ok {
		return r, err
	}
	if r, ok, err := db.currentOpAggregate(ctx, dbName, cmd, verbosity); ok {
		return r, err
	}
	s, err := parseAggregate(cmd, db.opts.Clock())
	if err != nil {
		return nil, err
	}
	if s.explain {
		return db.explainAggregate(ctx, dbName, s, "queryPlanner")
	}
	if !s.collectionless {
		if err := validateCollName(dbName, s.name, true); err != nil {
			return nil, err
		}
	}
	q, err := db.aggregate(ctx, dbName, s)
	if err != nil {
		return nil, err
	}
	db.stats.queried.Add(1)
	return db.firstBatchReply(ctx, dbName+"."+s.name, db.lookup(dbName, s.name), q, s.batchSize)
}

// firstBatchReply is an aggregate's reply: the first batch of q
// (batchSize documents, the default when negative) and, when q may have
// more, a server cursor over the rest of collection c (nil: none) for
// getMore.
func (db *DB) firstBatchReply(ctx context.Context, ns string, c *coll, q *queryExec, batchSize int64) (bson.D, error) {
	n := int64(defaultFirstBatch)
	if batchSize >= 0 {
		n = batchSize
	}
	var docs []bson.D
	if n > 0 {
		var err error
		if docs, err = q.nextBatch(ctx, int(n)); err != nil {
			return nil, err
		}
	}
	// A batch that filled up may have more behind it: getMore tells.
	var id int64
	if !q.done {
		id = db.cursors.add(&serverCursor{ns: ns, c: c, q: q})
	}
	return cursorReply(id, ns, "firstBatch", docs), nil
}

// aggregateBatchSize is aggregate's cursor.batchSize (-1 when absent),
// for the stages that run before the pipeline is parsed ($collStats,
// $currentOp).
func aggregateBatchSize(cmd bson.D) (int64, error) {
	cv, _ := get(cmd, "cursor")
	cd, _ := cv.(bson.D)
	v, has := get(cd, "batchSize")
	if !has {
		return -1, nil
	}
	n, err := intOpt("aggregate.cursor.batchSize", v)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, negativeBatchSize(n)
	}
	return n, nil
}

// negativeBatchSize is aggregate's answer to a cursor.batchSize below 0:
// 51024, as MongoDB's parser of the cursor options (a field outside its
// allowed range) gives, change streams included (docs/commands.md).
func negativeBatchSize(n int64) error {
	return document.Errorf(codeIDLValidator, "BSON field 'batchSize' value must be >= 0, actual value '%d'", n)
}

// sourceStageExplain is explain of an aggregate on dbName.name (name:
// the command's aggregate value, 1 for $currentOp) whose first stage
// produces its documents itself ($collStats, $indexStats, $currentOp):
// as mongod's, a pipeline without a $cursor, its stages listed as they
// serialize (first, then the rest), then serverInfo, serverParameters
// and the command. Executed (verbosity other than queryPlanner) the
// pipeline runs over what docs gives, its results dropped, and each
// stage shows the documents it handed on (nReturned) and the run's
// time (executionTimeMillisEstimate), longs as mongod's.
func (db *DB) sourceStageExplain(ctx context.Context, dbName string, name any, cmd bson.D, first bson.D, rest bson.A,
	docs func() ([]bson.D, error), verbosity string) (bson.D, error) {
	p, err := agg.ParseAfterSource(rest)
	if err != nil {
		return nil, err
	}
	after, from := p.ExplainStages(dbName, simpleParsedQuery)
	stages := append(bson.A{first}, after...)
	if verbosity != "queryPlanner" {
		start := time.Now()
		all, err := docs()
		if err != nil {
			return nil, err
		}
		produced := int64(len(all))
		p.CountStages()
		cur := p.Open(func(context.Context) (bson.D, error) {
			if len(all) == 0 {
				return nil, nil
			}
			d := all[0]
			all = all[1:]
			return d, nil
		}, db.aggOptions(dbName, nil))
		for {
			d, err := cur.Next(ctx)
			if err != nil {
				return nil, err
			}
			if d == nil {
				break
			}
		}
		ms := time.Since(start).Milliseconds()
		counts := p.StageCounts()
		stages[0] = append(first, bson.E{Key: "nReturned", Value: produced}, bson.E{Key: "executionTimeMillisEstimate", Value: ms})
		for i, src := range from {
			if d, ok := stages[i+1].(bson.D); ok && src < len(counts) {
				stages[i+1] = append(d, bson.E{Key: "nReturned", Value: counts[src]}, bson.E{Key: "executionTimeMillisEstimate", Value: ms})
			}
		}
	}
	pipeline, _ := get(cmd, "pipeline")
	return bson.D{{Key: "explainVersion", Value: explainVersion}, {Key: "stages", Value: stages},
		{Key: "serverInfo", Value: explainServerInfo(ctx)}, {Key: "serverParameters", Value: db.explainServerParameters()},
		{Key: "command", Value: bson.D{{Key: "aggregate", Value: name}, {Key: "pipeline", Value: pipeline}}}}, nil
}
