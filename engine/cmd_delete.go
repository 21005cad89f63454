package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdDelete runs the delete command.
func cmdDelete(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	w, let, err := db.parseStmtWriteCmd(dbName, cmd, "deletes", deleteStmtShape)
	if err != nil {
		return nil, err
	}
	name, stmts, ordered := w.coll, w.stmts, w.ordered
	// Statements are parsed before any runs: a malformed one (limit 2,
	// a missing q) fails the whole command, as MongoDB's parser does.
	specs := make([]DeleteSpec, len(stmts))
	for i, sv := range stmts {
		s, err := parseDeleteStmt(sv)
		if err != nil {
			return nil, err
		}
		s.Let = let
		specs[i] = s
	}
	var n int64
	werrs, err := runStatements(len(specs), ordered, func(i int) error {
		k, err := db.deleteDocs(ctx, dbName, name, specs[i])
		n += k
		return err
	})
	if err != nil {
		return nil, err
	}
	db.stats.deleted.Add(n)
	return appendWriteErrors(bson.D{{Key: "n", Value: int32OrLong(n)}}, werrs), nil
}

// deleteStmtShape refuses a delete statement mongod's IDL parser
// refuses, which fails the whole command before any statement runs: not
// a document (14), an unknown field (40415), a hint neither a name nor a
// document (9), q or limit missing (40414).
func deleteStmtShape(v any) error {
	d, ok := v.(bson.D)
	if !ok {
		return document.Errorf(document.CodeTypeMismatch, "BSON field 'delete.deletes' is the wrong type '%s', expected type 'object'", typeName(v))
	}
	hasQ, hasLimit := false, false
	for _, e := range d {
		switch e.Key {
		case "q":
			hasQ = e.Value != nil // mongod's parser passes over a null
		case "limit":
			hasLimit = true
		case "hint":
			if err := hintType(e.Value); err != nil {
				return err
			}
		case "collation", "sampleId":
		default:
			return document.Errorf(document.CodeIDLUnknownField, "BSON field 'delete.deletes.%s' is an unknown field.", e.Key)
		}
	}
	if !hasQ {
		return document.Errorf(codeIDLFailedToParse, "BSON field 'delete.deletes.q' is missing but a required field")
	}
	if !hasLimit {
		return document.Errorf(codeIDLFailedToParse, "BSON field 'delete.deletes.limit' is missing but a required field")
	}
	return nil
}

func parseDeleteStmt(v any) (DeleteSpec, error) {
	var s DeleteSpec
	d, ok := v.(bson.D)
	if !ok {
		return s, document.Errorf(document.CodeTypeMismatch, "delete statement must be an object, not %s", typeName(v))
	}
	hasLimit := false
	for _, e := range d {
		var err error
		switch e.Key {
		case "q":
			s.Filter, err = toDoc("delete.deletes.q", e.Value)
		case "limit":
			hasLimit = true
			s.Limit, err = deleteLimit(e.Value)
		case "hint":
			s.Hint = e.Value
		case "collation":
			s.Collation, err = collationOption("delete.deletes", e.Value)
		default:
			err = document.Errorf(document.CodeIDLUnknownField, "BSON field 'delete.deletes.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return s, err
		}
	}
	if s.Filter == nil {
		return s, document.Errorf(document.CodeFailedToParse, "BSON field 'delete.deletes.q' is missing but a required field")
	}
	if !hasLimit {
		return s, document.Errorf(document.CodeFailedToParse, "BSON field 'delete.deletes.limit' is missing but a required field")
	}
	return s, nil
}

// deleteLimit reads a delete statement's limit as mongod does: as a
// double (a non-number reads as 0, so it deletes every match), which must
// be 0 or 1, else 9 with the value printed as C's %g prints it.
func deleteLimit(v any) (int64, error) {
	f, _ := asFloat(v)
	if f == 0 || f == 1 {
		return int64(f), nil
	}
	return 0, document.Errorf(document.CodeFailedToParse, "The limit field in delete objects must be 0 or 1. Got %s", document.FormatStreamDouble(f))
}
