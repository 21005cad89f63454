package engine

import (
	"context"
	"github.com/ttlkv/ttlkv/document"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdDrop runs the drop command.
func cmdDrop(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	if err := strictFields(cmd); err != nil {
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
func cmdDropDatabase(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	if err := strictFields(cmd); err != nil {
		return nil, err
	}
	if n, ok := asFloat(cmd[0].Value); !ok || n != 1 {
		return nil, document.Errorf(document.Code(5255100), "Have to pass 1 as 'drop' parameter")
	}
	if dbName == "admin" {
		// As mongod: the admin database (its users among it) is not
		// dropped whole.
		return nil, document.Errorf(document.CodeIllegalOperation, "Dropping the 'admin' database is prohibited.")
	}
	return bson.D{{Key: "dropped", Value: dbName}}, db.dropDatabase(dbName)
}
