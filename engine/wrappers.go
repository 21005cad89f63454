package engine

import (
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func parseFilter(f bson.D) (*query.Filter, error)         { return query.ParseFilter(f) }
func parseSort(s bson.D) (*query.Sort, error)             { return query.ParseSort(s) }
func parseProjection(p bson.D) (*query.Projection, error) { return query.ParseProjection(p) }
