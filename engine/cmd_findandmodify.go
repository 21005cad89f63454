package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdFindAndModify runs the findAndModify command (also findandmodify).
func cmdFindAndModify(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	var s UpdateSpec
	var let *agg.Let
	if s.Let, let, err = db.writeLet(cmd); err != nil {
		return nil, err
	}
	ctx = withLet(ctx, s.Let)
	var sortD bson.D
	var remove, returnNew bool
	var fields bson.D
	for _, e := range cmd[1:] {
		switch e.Key {
		case "query":
			s.Filter, err = toDoc("findAndModify.query", e.Value)
		case "sort":
			sortD, err = toDoc("findAndModify.sort", e.Value)
		case "update":
			var ok bool
			if s.Update, s.Pipeline, ok = updateArg(e.Value); !ok {
				err = document.Errorf(document.CodeFailedToParse, "Update argument must be either an object or an array")
			}
		case "remove":
			remove, _ = asBool(e.Value)
		case "new":
			returnNew, _ = asBool(e.Value)
		case "upsert":
			s.Upsert, _ = asBool(e.Value)
		case "fields":
			fields, err = toDoc("findAndModify.fields", e.Value)
		case "collation":
			if s.Collation, err = collationOption("findAndModify", e.Value); err == nil {
				ctx = withCollation(ctx, s.Collation)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if s.Filter == nil {
		s.Filter = bson.D{}
	}
	if remove == (s.Update != nil || s.Pipeline != nil) {
		return nil, document.Errorf(document.CodeFailedToParse, "Either an update or remove=true must be specified")
	}
	// The projection is checked before anything is written.
	proj, err := query.ParseProjectionWith(fields, db.opts.Clock(), let.FilterVars())
	if err != nil {
		return nil, err
	}
	if remove {
		d, err := db.findOneAndDelete(ctx, dbName, name, s.Filter, sortD)
		if err != nil {
			return nil, err
		}
		var v any
		n := int32(0)
		if d != nil {
			if v, err = proj.ApplyErr(d); err != nil {
				return nil, err
			}
			n = 1
		}
		return bson.D{{Key: "lastErrorObject", Value: bson.D{{Key: "n", Value: n}}}, {Key: "value", Value: v}}, nil
	}
	srt := sortD
	if srt == nil {
		srt = bson.D{{Key: "$natural", Value: int32(1)}}
	}
	ps, err := parseSort(srt)
	if err != nil {
		return nil, err
	}
	res, d, err := db.updateReturning(ctx, dbName, name, s, ps, returnNew)
	if err != nil {
		return nil, err
	}
	var v any
	if d != nil {
		if v, err = proj.ApplyErr(d); err != nil {
			return nil, err
		}
	}
	leo := bson.D{{Key: "n", Value: int32(res.MatchedCount + res.UpsertedCount)},
		{Key: "updatedExisting", Value: res.MatchedCount > 0}}
	if res.UpsertedCount > 0 {
		leo = append(leo, bson.E{Key: "upserted", Value: res.UpsertedID})
	}
	return bson.D{{Key: "lastErrorObject", Value: leo}, {Key: "value", Value: v}}, nil
}
