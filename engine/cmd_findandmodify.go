package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdFindAndModify runs the findAndModify command (also findandmodify).
func cmdFindAndModify(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	if name == systemViews {
		return nil, errWriteSystemViews(dbName)
	}
	if dbName == "admin" && name == systemVersion {
		return nil, errWriteSystemVersion
	}
	var s UpdateSpec
	var let *agg.Let
	if s.Let, let, err = db.writeLet(cmd); err != nil {
		return nil, err
	}
	ctx = withLet(ctx, s.Let)
	f, err := parseFindAndModify(cmd, &s)
	if err != nil {
		return nil, err
	}
	if s.Collation != nil {
		ctx = withCollation(ctx, s.Collation)
	}
	sortD, remove, returnNew, fields := f.sort, f.remove, f.returnNew, f.fields
	// The projection is checked before anything is written.
	proj, err := query.ParseProjectionWith(fields, db.opts.Clock(), let.FilterVars())
	if err != nil {
		return nil, err
	}
	var m *catalog.Coll
	if c := db.lookup(dbName, name); c != nil {
		m = c.m()
	}
	coll, err := opCollator(m, s.Collation)
	if err != nil {
		return nil, err
	}
	proj = proj.Collate(coll)
	if proj.HasPositional() {
		// a.$ is the element the query places.
		qf, err := query.ParseFilterOpts(nonNilDoc(s.Filter), db.filterOptions(let.FilterVars()))
		if err != nil {
			return nil, err
		}
		proj = proj.WithQuery(qf)
	}
	if s.Hint != nil {
		// The hint names an index of the collection, as mongod checks
		// before it writes (2).
		if c := db.lookup(dbName, name); c != nil && c.m().Kind != catalog.KindView {
			if _, _, err := resolveHint(c.m(), s.Hint); err != nil {
				return nil, err
			}
		}
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
	if srt == nil && !hasNear(s.Filter) {
		// (A $near orders its documents itself: the nearest first.)
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

// famOptions are the fields of a findAndModify command that are not
// its UpdateSpec's.
type famOptions struct {
	sort, fields      bson.D
	remove, returnNew bool
}

// parseFindAndModify reads a findAndModify command's query, update,
// upsert and collation into s and returns its other fields. Contradictory
// options are 9 with mongod's messages, checked in its order: neither an
// update nor remove, then remove with an update, upsert (mongod's message
// ends with a space), new or arrayFilters.
func parseFindAndModify(cmd bson.D, s *UpdateSpec) (famOptions, error) {
	var f famOptions
	if err := strictFields(cmd, "query", "sort", "remove", "update", "new", "fields", "upsert",
		"bypassDocumentValidation", "arrayFilters", "hint", "collation", "let"); err != nil {
		return f, err
	}
	for _, e := range cmd[1:] {
		var err error
		switch e.Key {
		case "query":
			s.Filter, err = toDoc("findAndModify.query", e.Value)
		case "sort":
			f.sort, err = toDoc("findAndModify.sort", e.Value)
		case "update":
			var ok bool
			if s.Update, s.Pipeline, ok = updateArg(e.Value); !ok {
				err = document.Errorf(document.CodeFailedToParse, "Update argument must be either an object or an array")
			}
		case "remove":
			f.remove, err = famBool(e)
		case "new":
			f.returnNew, err = famBool(e)
		case "upsert":
			s.Upsert, err = famBool(e)
		case "bypassDocumentValidation":
			_, err = famBool(e)
		case "fields":
			f.fields, err = toDoc("findAndModify.fields", e.Value)
		case "hint":
			switch e.Value.(type) {
			case string, bson.D:
				s.Hint = e.Value
			default:
				err = document.Errorf(document.CodeFailedToParse, "Hint must be a string or an object")
			}
		case "collation":
			s.Collation, err = collationOption("findAndModify", e.Value)
		case "arrayFilters":
			a, ok := e.Value.(bson.A)
			if !ok {
				err = document.Errorf(document.CodeTypeMismatch, "BSON field 'findAndModify.arrayFilters' is the wrong type '%s', expected type 'array'", typeName(e.Value))
			}
			s.ArrayFilters = a
		}
		if err != nil {
			return f, err
		}
	}
	if s.Filter == nil {
		s.Filter = bson.D{}
	}
	hasUpdate := s.Update != nil || s.Pipeline != nil
	if !f.remove && !hasUpdate {
		return f, document.Errorf(document.CodeFailedToParse, "Either an update or remove=true must be specified")
	}
	if f.remove && hasUpdate {
		return f, document.Errorf(document.CodeFailedToParse, "Cannot specify both an update and remove=true")
	}
	if f.remove && f.returnNew {
		return f, document.Errorf(document.CodeFailedToParse, "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document")
	}
	if f.remove && s.Upsert {
		return f, document.Errorf(document.CodeFailedToParse, "Cannot specify both upsert=true and remove=true ")
	}
	if f.remove && s.ArrayFilters != nil {
		return f, document.Errorf(document.CodeFailedToParse, "Cannot specify arrayFilters and remove=true")
	}
	return f, nil
}

// famBool reads a findAndModify option mongod types as a safe boolean:
// a bool or a number (true when not 0), null as if absent; anything else
// is 14.
func famBool(e bson.E) (bool, error) {
	if e.Value == nil {
		return false, nil
	}
	b, ok := asBoolStrict(e.Value)
	if !ok {
		return false, document.Errorf(document.CodeTypeMismatch, "BSON field 'findAndModify.%s' is the wrong type '%s', expected types '[bool, long, int, decimal, double]'", e.Key, typeName(e.Value))
	}
	return b, nil
}
