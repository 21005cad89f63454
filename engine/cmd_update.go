package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdUpdate runs the update command.
func cmdUpdate(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	w, let, err := db.parseStmtWriteCmd(dbName, cmd, "updates", updateStmtShape, "bypassDocumentValidation")
	if err != nil {
		return nil, err
	}
	name, stmts, ordered := w.coll, w.stmts, w.ordered
	var n, nModified int64
	var upserted bson.A
	werrs, err := runStatements(len(stmts), ordered, func(i int) error {
		s, err := parseUpdateStmt(stmts[i])
		if err != nil {
			return err
		}
		s.Let = let
		res, err := db.updateDocs(ctx, dbName, name, s)
		if err != nil {
			return err
		}
		n += res.MatchedCount + res.UpsertedCount
		nModified += res.ModifiedCount
		if res.UpsertedCount > 0 {
			upserted = append(upserted, bson.D{{Key: "index", Value: int32(i)}, {Key: "_id", Value: res.UpsertedID}})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	db.stats.updated.Add(nModified)
	// mongod's UpdateCommandReply: the common write reply (n,
	// writeErrors) first, then upserted and nModified.
	reply := appendWriteErrors(bson.D{{Key: "n", Value: int32OrLong(n)}}, werrs)
	if len(upserted) > 0 {
		reply = append(reply, bson.E{Key: "upserted", Value: upserted})
	}
	return append(reply, bson.E{Key: "nModified", Value: int32OrLong(nModified)}), nil
}

// updateStmtShape refuses an update statement mongod's IDL parser
// refuses, which fails the whole command before any statement runs:
// not a document (14), an unknown field (40415), multi or upsert not a
// boolean (14), q, c or collation not a document or arrayFilters not an
// array (14), u neither a document nor a pipeline (9), hint neither a
// name nor a key pattern (9), q or u missing (40414).
func updateStmtShape(v any) error {
	d, ok := v.(bson.D)
	if !ok {
		return document.Errorf(document.CodeTypeMismatch, "BSON field 'update.updates' is the wrong type '%s', expected type 'object'", typeName(v))
	}
	hasQ, hasU := false, false
	for _, e := range d {
		switch e.Key {
		case "q":
			// (mongod's parser passes over a null, so it is missing.)
			hasQ = e.Value != nil
			if err := stmtFieldType(e, "object"); err != nil {
				return err
			}
		case "u":
			hasU = true
			switch e.Value.(type) {
			case bson.D, bson.A:
			default:
				return document.Errorf(document.CodeFailedToParse, "Update argument must be either an object or an array")
			}
		case "c", "collation":
			if err := stmtFieldType(e, "object"); err != nil {
				return err
			}
		case "arrayFilters":
			if err := stmtFieldType(e, "array"); err != nil {
				return err
			}
		case "multi", "upsert":
			if _, ok := e.Value.(bool); !ok {
				return document.Errorf(document.CodeTypeMismatch, "BSON field 'update.updates.%s' is the wrong type '%s', expected type 'bool'", e.Key, typeName(e.Value))
			}
		case "hint":
			if err := hintType(e.Value); err != nil {
				return err
			}
		case "sort", "sampleId", "upsertSupplied":
		default:
			return document.Errorf(document.CodeIDLUnknownField, "BSON field 'update.updates.%s' is an unknown field.", e.Key)
		}
	}
	if !hasQ {
		return document.Errorf(codeIDLFailedToParse, "BSON field 'update.updates.q' is missing but a required field")
	}
	if !hasU {
		return document.Errorf(codeIDLFailedToParse, "BSON field 'update.updates.u' is missing but a required field")
	}
	return nil
}

func parseUpdateStmt(v any) (UpdateSpec, error) {
	var s UpdateSpec
	d, ok := v.(bson.D)
	if !ok {
		return s, document.Errorf(document.CodeTypeMismatch, "update statement must be an object, not %s", typeName(v))
	}
	for _, e := range d {
		var err error
		switch e.Key {
		case "q":
			s.Filter, err = toDoc("update.updates.q", e.Value)
		case "u":
			switch u := e.Value.(type) {
			case bson.D:
				s.Update = u
			case bson.A:
				s.Pipeline = u
			default:
				err = document.Errorf(document.CodeTypeMismatch, "BSON field 'update.updates.u' is the wrong type '%s', expected type 'object'", typeName(e.Value))
			}
		case "multi":
			s.Multi, _ = asBool(e.Value)
		case "upsert":
			s.Upsert, _ = asBool(e.Value)
		case "hint":
			s.Hint = e.Value
		case "arrayFilters":
			a, ok := e.Value.(bson.A)
			if !ok {
				err = document.Errorf(document.CodeTypeMismatch, "BSON field 'update.updates.arrayFilters' is the wrong type '%s', expected type 'array'", typeName(e.Value))
			}
			s.ArrayFilters = a
		case "collation":
			s.Collation, err = collationOption("update.updates", e.Value)
		case "c":
			s.Constants, err = toDoc("update.updates.c", e.Value)
		case "sort":
			s.Sort, err = toDoc("update.updates.sort", e.Value)
		default:
			err = document.Errorf(document.CodeIDLUnknownField, "BSON field 'update.updates.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return s, err
		}
	}
	if s.Update == nil && s.Pipeline == nil {
		return s, document.Errorf(document.CodeFailedToParse, "BSON field 'update.updates.u' is missing but a required field")
	}
	if s.Filter == nil {
		s.Filter = bson.D{}
	}
	return s, nil
}

// stmtFieldType refuses an update statement's field e that is not of
// type want ("object" or "array"), as mongod's parser does (14); a null
// is taken as absent.
func stmtFieldType(e bson.E, want string) error {
	ok := false
	switch e.Value.(type) {
	case nil:
		ok = true // as absent
	case bson.D:
		ok = want == "object"
	case bson.A:
		ok = want == "array"
	}
	if !ok {
		return document.Errorf(document.CodeTypeMismatch, "BSON field 'update.updates.%s' is the wrong type '%s', expected type '%s'", e.Key, typeName(e.Value), want)
	}
	return nil
}

// hintType refuses a write statement's hint that is neither an index
// name nor a document, as mongod's parser does (9).
func hintType(v any) error {
	switch v.(type) {
	case string, bson.D:
		return nil
	}
	return document.Errorf(document.CodeFailedToParse, "Hint must be a string or an object")
}
