package engine

import (
	"context"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdRenameCollection is MongoDB's renameCollection admin command:
// {renameCollection: "db.from", to: "db.to", dropTarget: bool}.
func cmdRenameCollection(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	from, ok := cmd[0].Value.(string)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'renameCollection.renameCollection' is the wrong type '%s', expected type 'string'", typeName(cmd[0].Value))
	}
	var to string
	var haveTo, dropTarget bool
	for _, e := range cmd[1:] {
		switch e.Key {
		case "to":
			s, ok := e.Value.(string)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'renameCollection.to' is the wrong type '%s', expected type 'string'", typeName(e.Value))
			}
			to, haveTo = s, true
		case "dropTarget":
			b, ok := e.Value.(bool)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'renameCollection.dropTarget' is the wrong type '%s', expected type 'bool'", typeName(e.Value))
			}
			dropTarget = b
		case "stayTemp":
			if _, ok := e.Value.(bool); !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'renameCollection.stayTemp' is the wrong type '%s', expected type 'bool'", typeName(e.Value))
			}
		default:
			if !commandField(e.Key) {
				return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'renameCollection.%s' is an unknown field.", e.Key)
			}
		}
	}
	if !haveTo {
		return nil, document.Errorf(document.CodeFailedToParse, "BSON field 'renameCollection.to' is missing but a required field")
	}
	fdb, fname, ok1 := strings.Cut(from, ".")
	tdb, tname, ok2 := strings.Cut(to, ".")
	if !ok1 || fdb == "" || fname == "" {
		return nil, document.Errorf(document.CodeInvalidNamespace, "Invalid source namespace: %s", from)
	}
	if !ok2 || tdb == "" || tname == "" {
		return nil, document.Errorf(document.CodeInvalidNamespace, "Invalid target namespace: %s", to)
	}
	return bson.D{}, db.renameCollection(fdb, fname, tdb, tname, dropTarget)
}
