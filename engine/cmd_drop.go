package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"

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
	if dbName == "admin" && name == systemVersion {
		return nil, errWriteSystemVersion
	}
	if name == systemViews {
		ok, err := db.dropSystemViews(dbName)
		if err != nil {
			return nil, err
		}
		if ok { // its _id index
			return bson.D{{Key: "nIndexesWas", Value: int32(1)}, {Key: "ns", Value: dbName + "." + name}}, nil
		}
	}
	c := db.lookup(dbName, name)
	var nIndexes int32
	isView := false
	if c != nil {
		nIndexes = int32(len(c.m().Indexes))
		isView = c.m().Kind == catalog.KindView
	}
	if _, err := db.dropColl(dbName, name); err != nil {
		return nil, err
	}
	if isView {
		// A view has no indexes: mongod's reply names it only.
		return bson.D{{Key: "ns", Value: dbName + "." + name}}, nil
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
