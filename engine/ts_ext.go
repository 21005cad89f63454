package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/doc"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func parseTimeseriesCreate(opts bson.D, has map[string]any, co *createOptions) (*createOptions, error) {
	return nil, doc.Errorf(codeNotImplemented, "time-series collections are not implemented yet")
}

func (db *DB) deleteTimeseries(ctx context.Context, c *coll, f *query.Filter, s DeleteSpec) (int64, error) {
	return 0, doc.Errorf(codeNotImplemented, "time-series collections are not implemented yet")
}

func (db *DB) timeseriesQuery(c *coll, f *query.Filter, srt *query.Sort, o FindOptions, proj *query.Projection) (*queryExec, error) {
	return nil, doc.Errorf(codeNotImplemented, "time-series collections are not implemented yet")
}

func (db *DB) createTimeseriesIndexes(ctx context.Context, c *coll, specs []bson.D) (*CreateIndexesResult, error) {
	return nil, doc.Errorf(codeNotImplemented, "time-series collections are not implemented yet")
}

func (db *DB) timeseriesIndexes(c *coll) []bson.D { return nil }

func (db *DB) timeseriesTTLTargets(c *coll) []ttlTarget { return nil }

func (db *DB) timeseriesTTLVisit(ctx context.Context, t ttlTarget) (int64, bool, error) {
	return 0, false, nil
}

// collModTimeseries handles collMod's collection-level options on a
// time-series collection.
func (db *DB) collModTimeseries(c *coll, cmd bson.D) (bson.D, error) {
	return nil, doc.Errorf(codeNotImplemented, "time-series collections are not implemented yet")
}
