package engine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdRunTTLPass runs the runTTLPass command.
func cmdRunTTLPass(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	res, err := db.RunTTLPass(ctx)
	if err != nil {
		return nil, err
	}
	return res.Reply(), nil
}
