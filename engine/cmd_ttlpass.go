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

// Reply is r in the shape of the runTTLPass command's reply:
// {deleted, subPasses, indexes: [{ns, index, deleted}]}.
func (r *TTLPassResult) Reply() bson.D {
	per := bson.A{}
	for _, ir := range r.Indexes {
		per = append(per, bson.D{{Key: "ns", Value: ir.Namespace}, {Key: "index", Value: ir.Index}, {Key: "deleted", Value: ir.Deleted}})
	}
	return bson.D{{Key: "deleted", Value: r.Deleted}, {Key: "subPasses", Value: int32(r.SubPasses)}, {Key: "indexes", Value: per}}
}
