package engine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdDrop runs the drop command.
func cmdDrop(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	if err := validateCollName(dbName, name, true); err != nil {
		return nil, err
	}
	c := db.lookup(dbName, name)
	var nIndexes int32
	if c != nil {
		nIndexes = int32(len(c.m().Indexes))
	}
	if _, err := db.dropColl(dbName, name); err != nil {
		return nil, err
	}
	return bson.D{{Key: "nIndexesWas", Value: nIndexes}, {Key: "ns", Value: dbName + "." + name}}, nil
}

// cmdDropDatabase runs the dropDatabase command.
func cmdDropDatabase(_ context.Context, db *DB, dbName string, _ bson.D) (bson.D, error) {
	return bson.D{{Key: "dropped", Value: dbName}}, db.dropDatabase(dbName)
}
