package engine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdCount runs the count command.
func cmdCount(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	var filter bson.D
	var skip, limit int64
	var hint any
	if err := strictFields(cmd, "query", "limit", "skip", "hint", "collation", "fields"); err != nil {
		return nil, err
	}
	for _, e := range cmd[1:] {
		switch e.Key {
		case "query":
			filter, err = toDoc("count.query", e.Value)
		case "skip":
			skip, err = intOpt("count.skip", e.Value)
		case "limit":
			limit, err = intOpt("count.limit", e.Value)
			if limit < 0 {
				limit = -limit
			}
		case "hint":
			hint = e.Value
		case "collation":
			var spec bson.D
			if spec, err = collationOption("count", e.Value); err == nil {
				ctx = withCollation(ctx, spec)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	n, err := db.count(ctx, dbName, name, filter, skip, limit, hint)
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "n", Value: int32OrLong(n)}}, nil
}
