package wire

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

// fastFind answers the driver's FindOne by _id ({find, filter: {_id: v},
// limit: 1, singleBatch}) through engine.Collection.FindOne, which reads
// the _id index directly instead of planning a query: the single
// document round trip is the hot path of many applications. ok is false
// for any other find, or when FindOne fails (the command path then
// produces the error reply).
func (s *Server) fastFind(ctx context.Context, dbName string, cmd bson.D) (bson.D, bool) {
	coll, ok := cmd[0].Value.(string)
	if !ok {
		return nil, false
	}
	var filter bson.D
	limitOne := false
	for _, e := range cmd[1:] {
		switch e.Key {
		case "filter":
			f, ok := e.Value.(bson.D)
			if !ok || len(f) != 1 || f[0].Key != "_id" {
				return nil, false
			}
			switch f[0].Value.(type) {
			case bson.D, bson.A, bson.Regex, nil:
				return nil, false
			}
			filter = f
		case "limit":
			limitOne = document.Int64(e.Value) == 1
		case "singleBatch", "comment", "maxTimeMS":
		case "batchSize":
			if document.Int64(e.Value) < 1 {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	if filter == nil || !limitOne {
		return nil, false
	}
	start := time.Now()
	d, err := s.db.Database(dbName).Collection(coll).FindOne(ctx, filter)
	batch := bson.A{}
	switch {
	case errors.Is(err, engine.ErrNoDocuments):
	case err != nil:
		return nil, false
	default:
		batch = append(batch, d)
	}
	s.db.CountCommand(dbName, cmd, time.Since(start))
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(0)}, {Key: "ns", Value: dbName + "." + coll},
		{Key: "firstBatch", Value: batch}}}, {Key: "ok", Value: 1.0}}, true
}
