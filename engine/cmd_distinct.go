package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdDistinct runs the distinct command.
func cmdDistinct(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	var key string
	var haveKey bool
	var filter bson.D
	if err := strictFields(cmd, "key", "query", "collation", "hint"); err != nil {
		return nil, err
	}
	for _, e := range cmd[1:] {
		switch e.Key {
		case "key":
			s, ok := e.Value.(string)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'distinct.key' is the wrong type '%s', expected type 'string'", typeName(e.Value))
			}
			key, haveKey = s, true
		case "query":
			if e.Value == nil {
				continue
			}
			if filter, err = toDoc("distinct.query", e.Value); err != nil {
				return nil, err
			}
		case "collation":
			spec, err := collationOption("distinct", e.Value)
			if err != nil {
				return nil, err
			}
			ctx = withCollation(ctx, spec)
		}
	}
	if !haveKey {
		return nil, document.Errorf(document.CodeFailedToParse, "BSON field 'distinct.key' is missing but a required field")
	}
	vals, err := db.distinct(ctx, dbName, name, key, filter)
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "values", Value: vals}}, nil
}
