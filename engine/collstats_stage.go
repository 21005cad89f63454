package engine

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
)

// The $collStats aggregation stage (docs/commands.md, "$collStats"):
// the first stage of a collection's pipeline, it produces one document
// about the collection, {ns, host, localTime} and the parts its
// specification asks for (latencyStats, storageStats, count,
// queryExecStats), which the rest of the pipeline then works on. mongosh
// builds db.collection.stats(), totalIndexSize() and their kin on it.

// collStatsSpec is a parsed $collStats specification.
type collStatsSpec struct {
	latency, histograms bool
	storage             bool
	scale               int64
	count, queryExec    bool

	histogramsGiven bool   // latencyStats named histograms
	storageGiven    bson.D // storageStats' fields as given, scale an integer
	targetAllNodes  any    // targetAllNodes as given, nil if not
}

// serialize is the spec as mongod's $collStats shows it in explain (its
// IDL struct's toBSON): the fields given, in the IDL's order
// (latencyStats, storageStats, count, queryExecStats), storageStats'
// scale as the integer used.
func (s collStatsSpec) serialize() bson.D {
	out := bson.D{}
	if s.latency {
		ls := bson.D{}
		if s.histogramsGiven {
			ls = append(ls, bson.E{Key: "histograms", Value: s.histograms})
		}
		out = append(out, bson.E{Key: "latencyStats", Value: ls})
	}
	if s.storage {
		out = append(out, bson.E{Key: "storageStats", Value: append(bson.D{}, s.storageGiven...)})
	}
	if s.count {
		out = append(out, bson.E{Key: "count", Value: bson.D{}})
	}
	if s.queryExec {
		out = append(out, bson.E{Key: "queryExecStats", Value: bson.D{}})
	}
	if s.targetAllNodes != nil {
		out = append(out, bson.E{Key: "targetAllNodes", Value: s.targetAllNodes})
	}
	return out
}

// parseCollStatsSpec parses $collStats's argument as MongoDB's IDL does:
// a document of latencyStats {histograms}, storageStats {scale, verbose,
// waitForLock, numericOnly}, count {}, queryExecStats {}.
func parseCollStatsSpec(v any) (collStatsSpec, error) {
	spec := collStatsSpec{scale: 1}
	d, ok := v.(bson.D)
	if !ok {
		return spec, document.Errorf(40166, "$collStats must take a nested object but found: $collStats: %s", fmtValue(v))
	}
	for _, e := range d {
		switch e.Key {
		case "targetAllNodes":
			if _, isBool := e.Value.(bool); !isBool {
				return spec, document.Errorf(document.CodeTypeMismatch, "BSON field '$collStats.targetAllNodes' is the wrong type '%s', expected type 'bool'", typeName(e.Value))
			}
			spec.targetAllNodes = e.Value
			continue
		case "latencyStats", "storageStats", "count", "queryExecStats":
		default:
			return spec, document.Errorf(document.CodeIDLUnknownField, "BSON field '$collStats.%s' is an unknown field.", e.Key)
		}
		sd, isDoc := e.Value.(bson.D)
		if !isDoc {
			return spec, document.Errorf(document.CodeTypeMismatch, "BSON field '$collStats.%s' is the wrong type '%s', expected type 'object'", e.Key, typeName(e.Value))
		}
		switch e.Key {
		case "latencyStats":
			spec.latency = true
			for _, f := range sd {
				if f.Key != "histograms" {
					return spec, document.Errorf(document.CodeIDLUnknownField, "BSON field '$collStats.latencyStats.%s' is an unknown field.", f.Key)
				}
				b, isBool := f.Value.(bool)
				if !isBool {
					return spec, document.Errorf(document.CodeTypeMismatch, "BSON field '$collStats.latencyStats.histograms' is the wrong type '%s', expected type 'bool'", typeName(f.Value))
				}
				spec.histograms, spec.histogramsGiven = b, true
			}
		case "storageStats":
			spec.storage = true
			for _, f := range sd {
				switch f.Key {
				case "scale":
					n, err := statsScale(bson.D{{Key: "$collStats.storageStats"}, f})
					if err != nil {
						return spec, err
					}
					spec.scale = n
					spec.storageGiven = append(spec.storageGiven, bson.E{Key: "scale", Value: int32OrLong(n)})
				case "verbose", "waitForLock", "numericOnly":
					if _, isBool := f.Value.(bool); !isBool {
						return spec, document.Errorf(document.CodeTypeMismatch, "BSON field '$collStats.storageStats.%s' is the wrong type '%s', expected type 'bool'", f.Key, typeName(f.Value))
					}
					spec.storageGiven = append(spec.storageGiven, f)
				default:
					return spec, document.Errorf(document.CodeIDLUnknownField, "BSON field '$collStats.storageStats.%s' is an unknown field.", f.Key)
				}
			}
		case "count":
			spec.count = true
		case "queryExecStats":
			spec.queryExec = true
		}
	}
	return spec, nil
}

// collStatsAggregate runs aggregate when its pipeline holds a $collStats
// stage; ok is false (and the reply nil) otherwise. With a verbosity
// ("" runs it) it answers explain instead (sourceStageExplain).
func (db *DB) collStatsAggregate(ctx context.Context, dbName string, cmd bson.D, verbosity string) (reply bson.D, ok bool, err error) {
	pipe, found, err := leadingStage(cmd, "$collStats")
	if !found || err != nil {
		return nil, found, err
	}
	name, isColl := cmd[0].Value.(string)
	if !isColl {
		return nil, true, document.Errorf(document.CodeInvalidNamespace, "$collStats must be run against a collection namespace")
	}
	if err := validateCollName(dbName, name, true); err != nil {
		return nil, true, err
	}
	spec, err := parseCollStatsSpec(pipe[0].(bson.D)[0].Value)
	if err != nil {
		return nil, true, err
	}
	if verbosity != "" {
		docs := func() ([]bson.D, error) {
			stats, err := db.collStatsStageDoc(ctx, dbName, name, spec)
			return []bson.D{stats}, err
		}
		first := bson.D{{Key: "$collStats", Value: spec.serialize()}}
		r, err := db.sourceStageExplain(ctx, dbName, name, cmd, first, pipe[1:], docs, verbosity)
		return r, true, err
	}
	stats, err := db.collStatsStageDoc(ctx, dbName, name, spec)
	if err != nil {
		return nil, true, err
	}
	r, err := db.sourceStageReply(ctx, dbName+"."+name, db.lookup(dbName, name), cmd, pipe[1:], []bson.D{stats})
	return r, true, err
}

// sourceStageReply is the reply of an aggregate whose first stage
// produces the documents docs itself ($collStats, $currentOp): the
// stages after it run on them, and the results come back as any
// aggregate's do, in a first batch and then through getMore (ns and c
// as firstBatchReply takes them). No stage goes to a collection scan,
// which these stages do not have (agg.ParseAfterSource).
func (db *DB) sourceStageReply(ctx context.Context, ns string, c *coll, cmd bson.D, stages bson.A, docs []bson.D) (bson.D, error) {
	batch, err := aggregateBatchSize(cmd)
	if err != nil {
		return nil, err
	}
	p, err := agg.ParseAfterSource(stages)
	if err != nil {
		return nil, err
	}
	cur := p.Open(func(context.Context) (bson.D, error) {
		if len(docs) == 0 {
			return nil, nil
		}
		d := docs[0]
		docs = docs[1:]
		return d, nil
	}, db.aggOptions(dbOfNS(ns), nil))
	return db.firstBatchReply(ctx, ns, c, pipelineExec(cur, false), batch)
}

// dbOfNS is the database of a namespace ("db.coll", "admin.$cmd.aggregate").
func dbOfNS(ns string) string {
	db, _, _ := strings.Cut(ns, ".")
	return db
}

// collStatsStageDoc is the document $collStats produces for dbName.name
// as spec asks. latencyStats are the commands' counters (top.go), with
// no histogram buckets; queryExecStats counts the plans that scanned the
// whole collection (indexstats.go).
func (db *DB) collStatsStageDoc(ctx context.Context, dbName, name string, spec collStatsSpec) (bson.D, error) {
	d := bson.D{{Key: "ns", Value: dbName + "." + name}, {Key: "host", Value: hostAndPort(ctx)},
		{Key: "localTime", Value: bson.NewDateTimeFromTime(db.opts.Clock())}}
	if spec.latency {
		d = append(d, bson.E{Key: "latencyStats", Value: db.latencyStats(dbName+"."+name, spec.histograms)})
	}
	c := db.lookup(dbName, name)
	missing := func(part string) error {
		return document.Errorf(document.CodeNamespaceNotFound, "Unable to retrieve %s in $collStats stage :: caused by :: Collection [%s.%s] not found.", part, dbName, name)
	}
	if spec.storage {
		if c == nil {
			return nil, missing("storageStats")
		}
		st := db.collStatsDoc(c, spec.scale)
		d = append(d, bson.E{Key: "storageStats", Value: st[1:]}) // without its ns
	}
	if spec.count {
		if c == nil {
			return nil, missing("count")
		}
		d = append(d, bson.E{Key: "count", Value: int32OrLong(db.collStats(c).count)})
	}
	if spec.queryExec {
		if c == nil {
			return nil, missing("queryExecStats")
		}
		n := db.top.of(dbName + "." + name)
		d = append(d, bson.E{Key: "queryExecStats", Value: bson.D{{Key: "collectionScans", Value: bson.D{
			{Key: "total", Value: n.collScans}, {Key: "nonTailable", Value: n.collScansNonTailable}}}}})
	}
	return d, nil
}
