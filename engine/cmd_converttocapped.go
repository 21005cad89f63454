package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdConvertToCapped runs {convertToCapped: c, size} (docs/capped.md §7.6).
func cmdConvertToCapped(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	var sizeV any
	hasSize := false
	for _, e := range cmd[1:] {
		switch e.Key {
		case "size":
			sizeV, hasSize = e.Value, true
		case "comment", "writeConcern", "lsid", "$db", "apiVersion", "apiStrict", "maxTimeMS":
		default:
			return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'convertToCapped.%s' is an unknown field.", e.Key)
		}
	}
	if !hasSize {
		return nil, document.Errorf(codeIDLFailedToParse, "BSON field 'convertToCapped.size' is missing but a required field")
	}
	size, err := parseCappedSize("convertToCapped", sizeV)
	if err != nil {
		return nil, err
	}
	return bson.D{}, db.convertToCapped(ctx, dbName, name, size)
}
