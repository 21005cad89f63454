package engine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdCreate runs the create command.
func cmdCreate(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	opts := cmd[1:]
	if opts == nil {
		opts = bson.D{}
	}
	_, _, err = db.createColl(dbName, name, opts)
	return bson.D{}, err
}
