package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdRunTTLPass runs the runTTLPass command.
func cmdRunTTLPass(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	if dbName != "admin" {
		return nil, document.Errorf(document.CodeUnauthorized, "runTTLPass may only be run against the admin database.")
	}
	res, err := db.RunTTLPass(ctx)
	if err != nil {
		return nil, err
	}
	return res.Reply(), nil
}
