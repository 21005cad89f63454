package engine

import (
	"context"
	"errors"
	"slices"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// mapReduce's output modes.
const (
	mrInline  = "inline"
	mrReplace = "replace"
	mrMerge   = "merge"
	mrReduce  = "reduce"
)

// mapReduceSpec is a parsed mapReduce command.
type mapReduceSpec struct {
	coll      string
	m         agg.MapReduce
	outMode   string
	outDB     string // the db out names
	hasOutDB  bool   // out names a db (an empty one is refused)
	outColl   string
	query     bson.D
	sort      bson.D
	limit     int64 // 0: none
	collation bson.D
}

// mrField names a field of the command as mongod's parser does.
func mrField(name string) string { return "mapReduce." + name }

// parseMapReduce reads a mapReduce command with the checks of mongod
// 7.0's parser, in the order of the command's fields.
func parseMapReduce(cmd bson.D) (*mapReduceSpec, error) {
	s := &mapReduceSpec{}
	name, ok := cmd[0].Value.(string)
	if !ok {
		return nil, document.Errorf(document.CodeInvalidNamespace, "collection name has invalid type %s", typeName(cmd[0].Value))
	}
	s.coll = name
	code := func(field string, v any, nullable bool) (string, bool, error) {
		switch c := v.(type) {
		case string:
			return c, true, nil
		case bson.JavaScript:
			return string(c), true, nil
		case nil:
			if nullable {
				return "", false, nil
			}
		}
		return "", false, document.Errorf(document.CodeBadValue, "'%s' must be of string or code type", field)
	}
	seen := map[string]bool{}
	for _, e := range cmd[1:] {
		if commandField(e.Key) {
			continue
		}
		if seen[e.Key] {
			return nil, document.Errorf(document.Code(40413), "BSON field '%s' is a duplicate field", mrField(e.Key))
		}
		seen[e.Key] = true
		var err error
		switch e.Key {
		case "map":
			s.m.Map, _, err = code(e.Key, e.Value, false)
		case "reduce":
			s.m.Reduce, _, err = code(e.Key, e.Value, false)
		case "finalize":
			s.m.Finalize, _, err = code(e.Key, e.Value, true)
		case "out":
			err = s.parseOut(e.Value)
		case "query", "sort", "collation":
			d, isDoc := e.Value.(bson.D)
			if !isDoc {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field '%s' is the wrong type '%s', expected type 'object'", mrField(e.Key), typeName(e.Value))
			}
			switch e.Key {
			case "query":
				s.query = d
			case "sort":
				s.sort = d
			default:
				s.collation, err = collationOption("mapReduce", d)
			}
		case "limit":
			s.limit, err = intOpt(mrField("limit"), e.Value)
			if err == nil && s.limit <= 0 {
				return nil, document.Errorf(document.Code(15958), "The limit specified to mapReduce must be positive")
			}
		case "scope":
			d, isDoc := e.Value.(bson.D)
			if !isDoc {
				return nil, document.Errorf(document.CodeBadValue, "'scope' must be an object")
			}
			s.m.Scope = d
		case "verbose", "bypassDocumentValidation", "jsMode":
			if _, isBool := e.Value.(bool); !isBool {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field '%s' is the wrong type '%s', expected type 'bool'", mrField(e.Key), typeName(e.Value))
			}
		default:
			return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field '%s' is an unknown field.", mrField(e.Key))
		}
		if err != nil {
			return nil, err
		}
	}
	for _, f := range []string{"map", "reduce", "out"} {
		if !seen[f] {
			return nil, document.Errorf(codeIDLFailedToParse, "BSON field '%s' is missing but a required field", mrField(f))
		}
	}
	if s.sort != nil && len(s.sort) == 0 {
		return nil, document.Errorf(document.Code(15976), "The mapReduce sort option must have at least one sort key")
	}
	return s, nil
}

// parseOut reads mapReduce's out: a collection name (replace), or
// {inline: 1} alone, or one of replace, merge and reduce with optional
// db, sharded and nonAtomic, as mongod's MapReduceOutOptions.
func (s *mapReduceSpec) parseOut(v any) error {
	switch o := v.(type) {
	case string:
		s.outMode, s.outColl = mrReplace, o
		return nil
	case bson.D:
		if in, ok := get(o, "inline"); ok {
			if len(o) != 1 {
				return document.Errorf(document.CodeInvalidOptions, "'inline' must be specified alone")
			}
			if f, isNum := asFloat(in); !isNum || f != 1 {
				return document.Errorf(document.CodeBadValue, "'inline' takes only numeric '1'")
			}
			s.outMode = mrInline
			return nil
		}
		allowed := 4
		sharded := false
		if v, ok := get(o, "sharded"); ok {
			b, isBool := v.(bool)
			if !isBool {
				return document.Errorf(document.CodeBadValue, "sharded field value must be boolean")
			}
			if !b {
				return document.Errorf(document.CodeBadValue, "sharded field value must be true")
			}
			sharded = true
		} else {
			allowed--
		}
		for _, mode := range []string{mrReplace, mrMerge, mrReduce} {
			if v, ok := get(o, mode); ok {
				name, isStr := v.(string)
				if !isStr {
					return document.Errorf(document.CodeBadValue, "'%s' supports only string consisting of output collection name", mode)
				}
				s.outMode, s.outColl = mode, name
				break
			}
		}
		if s.outMode == "" {
			return document.Errorf(document.CodeBadValue, "'out' requires 'replace', 'merge' or 'reduce'")
		}
		if v, ok := get(o, "db"); ok {
			name, isStr := v.(string)
			if !isStr {
				return document.Errorf(document.CodeBadValue, "db field value must be string")
			}
			if name == "admin" || name == "local" || name == "config" {
				return document.Errorf(document.CodeCommandNotSupported, "cannot target internal database as output")
			}
			s.outDB, s.hasOutDB = name, true
		} else {
			allowed--
		}
		if v, ok := get(o, "nonAtomic"); ok {
			b, isBool := v.(bool)
			if !isBool {
				return document.Errorf(document.CodeBadValue, "nonAtomic field value must be boolean")
			}
			if !b {
				return document.Errorf(document.CodeBadValue, "nonAtomic field value must be true")
			}
		} else {
			allowed--
		}
		if len(o) != allowed {
			return document.Errorf(document.CodeBadValue, "'out' supports only output type with collection name, optional 'sharded' and optional 'db'")
		}
		if sharded {
			if s.outMode == mrReplace {
				return document.Errorf(document.CodeInvalidOptions, "Combination of 'out.sharded' and 'replace' output mode is not supported. Cannot replace an existing sharded collection or create a new sharded collection. Please create the sharded collection first and use a different output mode or consider using an unsharded collection.")
			}
			return document.Errorf(document.CodeInvalidOptions, "Cannot use mapReduce to create a new sharded collection. Please create and shard the target collection before proceeding.")
		}
		return nil
	}
	return document.Errorf(document.CodeBadValue, "'out' must be either a string or an object")
}

// cmdMapReduce runs the mapReduce command as mongod 7.0 does: as an
// aggregation of its query, sort and limit, the map, reduce and finalize
// functions, and a $out or $merge for a collection output
// (docs/javascript.md, "mapReduce").
func cmdMapReduce(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	s, spec, err := db.planMapReduce(dbName, cmd)
	if err != nil {
		return nil, err
	}
	outDB := s.outDB
	if !s.hasOutDB {
		outDB = dbName
	}
	q, err := db.aggregate(ctx, dbName, spec)
	if err != nil {
		return nil, mrContext(err)
	}
	db.stats.queried.Add(1)
	switch s.outMode {
	case mrInline:
		results := bson.A{}
		size := 0
		for !q.done {
			docs, err := q.nextBatch(ctx, outBatch)
			if err != nil {
				return nil, mrContext(err)
			}
			for _, d := range docs {
				if size += document.Size(d); size > document.MaxDocumentSize {
					return nil, mrContext(document.Errorf(document.CodeBSONObjectTooLarge, "BSONObj size: %d (0x%X) is invalid. Size must be between 0 and 16793600(16MB)", size, size))
				}
				results = append(results, d)
			}
		}
		return bson.D{{Key: "results", Value: results}}, nil
	case mrReduce:
		if err := db.mapReduceFold(ctx, outDB, s, q); err != nil {
			return nil, mrContext(err)
		}
	}
	if s.hasOutDB {
		return bson.D{{Key: "result", Value: bson.D{{Key: "db", Value: s.outDB}, {Key: "collection", Value: s.outColl}}}}, nil
	}
	return bson.D{{Key: "result", Value: s.outColl}}, nil
}

// planMapReduce parses a mapReduce command and checks its input and
// output collections, and returns the aggregation it runs as.
func (db *DB) planMapReduce(dbName string, cmd bson.D) (*mapReduceSpec, *aggregateSpec, error) {
	s, err := parseMapReduce(cmd)
	if err != nil {
		return nil, nil, err
	}
	if err := validateCollName(dbName, s.coll, true); err != nil {
		return nil, nil, err
	}
	if c := db.lookup(dbName, s.coll); c != nil {
		if k := c.m().Kind; k == catalog.KindView || k == catalog.KindTimeseries {
			return nil, nil, document.Errorf(document.CodeCommandNotSupportedOnView, "mapReduce on a view is not supported")
		}
	}
	outDB := s.outDB
	if !s.hasOutDB {
		outDB = dbName
	}
	if s.outMode != mrInline {
		if err := checkMROut(outDB, s.outColl); err != nil {
			return nil, nil, err
		}
	}
	head := bson.A{}
	if s.query != nil {
		head = append(head, bson.D{{Key: "$match", Value: s.query}})
	}
	if s.sort != nil {
		head = append(head, bson.D{{Key: "$sort", Value: s.sort}})
	}
	if s.limit > 0 {
		head = append(head, bson.D{{Key: "$limit", Value: s.limit}})
	}
	p, err := agg.Parse(head)
	if err != nil {
		return nil, nil, mrContext(err)
	}
	var out *agg.Pipeline
	target := bson.D{{Key: "db", Value: outDB}, {Key: "coll", Value: s.outColl}}
	switch s.outMode {
	case mrReplace:
		out, err = agg.Parse(bson.A{bson.D{{Key: "$out", Value: target}}})
	case mrMerge:
		out, err = agg.Parse(bson.A{bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: target},
			{Key: "on", Value: "_id"}, {Key: "whenMatched", Value: "replace"}, {Key: "whenNotMatched", Value: "insert"}}}}})
	}
	if err != nil {
		return nil, nil, mrContext(err)
	}
	return s, &aggregateSpec{name: s.coll, pipeline: p.WithMapReduce(s.m, out), batchSize: -1, collation: s.collation}, nil
}

// checkMROut refuses an output collection mongod refuses, with the
// messages its mapReduce gives in place of $out's and $merge's.
func checkMROut(outDB, name string) error {
	if validateDBName(outDB) != nil {
		return document.Errorf(document.CodeInvalidNamespace, "Invalid 'out' namespace: %s.%s", outDB, name)
	}
	if err := validateCollName(outDB, name, false); err != nil {
		if document.CodeOf(err) == document.CodeInvalidNamespace {
			return document.Errorf(document.CodeInvalidNamespace, "Invalid 'out' namespace: %s.%s", outDB, name)
		}
		return document.Errorf(document.CodeOf(err), "Can't output mapReduce results to special collection %s", name)
	}
	if outDB == "admin" || outDB == "local" || outDB == "config" {
		return document.Errorf(document.Code(31321), "Can't output mapReduce results to internal DB %s", outDB)
	}
	return nil
}

// mrContext prefixes an error of the run with mongod's "MapReduce
// internal error" context, keeping its code and fields.
func mrContext(err error) error {
	var e *document.Error
	if !errors.As(err, &e) {
		return err
	}
	return &document.Error{Code: e.Code, Message: "MapReduce internal error :: caused by :: " + e.Message, Info: e.Info}
}

// mapReduceFold writes the results of q into outDB's output collection
// as out: {reduce} does: a result whose _id is there already is folded
// into it with reduce (and finalize), the others inserted.
func (db *DB) mapReduceFold(ctx context.Context, outDB string, s *mapReduceSpec, q *queryExec) error {
	if t := db.lookup(outDB, s.outColl); t != nil && slices.Contains([]catalog.Kind{catalog.KindView, catalog.KindTimeseries}, t.m().Kind) {
		return errView(t.m())
	}
	for !q.done {
		docs, err := q.nextBatch(ctx, outBatch)
		if err != nil {
			return err
		}
		for _, d := range docs {
			id, _ := document.Get(d, "_id")
			value, _ := document.Get(d, "value")
			filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$eq", Value: id}}}}
			var existing bson.D
			_, _, eq, err := db.findPlan(outDB, s.outColl, filter, FindOptions{Limit: 1})
			if err != nil {
				return err
			}
			if err := eq.each(ctx, func(x bson.D) error { existing = x; return nil }); err != nil {
				return err
			}
			if existing == nil {
				if _, werrs, err := db.insertDocs(ctx, outDB, s.outColl, []any{d}, true); err != nil {
					return err
				} else if len(werrs) > 0 {
					return werrs[0].Err
				}
				continue
			}
			old, _ := document.Get(existing, "value")
			v, err := s.m.ReduceExisting(ctx, id, old, value)
			if err != nil {
				return err
			}
			repl := bson.D{{Key: "_id", Value: id}, {Key: "value", Value: v}}
			if _, err := db.updateDocs(ctx, outDB, s.outColl, UpdateSpec{Filter: filter, Update: repl}); err != nil {
				return err
			}
		}
	}
	return nil
}
