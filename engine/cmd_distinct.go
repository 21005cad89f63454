package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
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
	if h, ok := get(cmd, "hint"); ok {
		// mongod 7.1's distinct hint: it must name an index (2).
		if c := db.lookup(dbName, name); c != nil && c.m().Kind != catalog.KindView {
			if _, _, err := resolveHint(c.m(), h); err != nil {
				return nil, err
			}
		}
	}
	vals, err := db.distinct(ctx, dbName, name, key, filter)
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "values", Value: vals}}, nil
}
