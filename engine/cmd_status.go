package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdServerStatus runs the serverStatus command.
func cmdServerStatus(_ context.Context, db *DB, _ string, _ bson.D) (bson.D, error) {
	s := db.Stats()
	lsmB, vlogB := db.store.DiskUsage()
	return bson.D{
		{Key: "host", Value: "ttlkv"}, {Key: "version", Value: Version}, {Key: "process", Value: "ttlkv"},
		{Key: "localTime", Value: db.now()},
		{Key: "opcounters", Value: bson.D{{Key: "insert", Value: s.Inserted}, {Key: "query", Value: s.Queried},
			{Key: "update", Value: s.Updated}, {Key: "delete", Value: s.Deleted}}},
		{Key: "metrics", Value: bson.D{{Key: "ttl", Value: bson.D{
			{Key: "deletedDocuments", Value: s.TTLDeletedDocuments},
			{Key: "passes", Value: s.TTLPasses},
			{Key: "subPasses", Value: s.TTLSubPasses}}}}},
		{Key: "batchedDeletes", Value: bson.D{
			{Key: "batches", Value: s.BatchedDeleteBatches}, {Key: "docs", Value: s.BatchedDeleteDocs},
			{Key: "stagedSizeBytes", Value: s.BatchedDeleteStagedBytes},
			{Key: "timeInBatchMillis", Value: s.BatchedDeleteTimeMillis},
			{Key: "refetchesDueToYield", Value: db.stats.bdRefetches.Load()}}},
		{Key: "storageEngine", Value: bson.D{{Key: "name", Value: "badger"}, {Key: "lsmBytes", Value: lsmB},
			{Key: "vlogBytes", Value: vlogB}, {Key: "persistent", Value: !db.opts.InMemory}}},
	}, nil
}

// cmdCurrentOp lists the running operations. As in MongoDB, the
// command's other fields ({currentOp: 1, desc: "TTLMonitor"}) are a
// filter the operations must match; $all and $ownOps are options.
func cmdCurrentOp(_ context.Context, db *DB, _ string, cmd bson.D) (bson.D, error) {
	var filter bson.D
	for _, e := range cmd[1:] {
		switch {
		case e.Key == "$all", e.Key == "$ownOps", e.Key == "$truncateOps", isGenericField(e.Key):
		default:
			filter = append(filter, e)
		}
	}
	f, err := query.ParseFilter(filter)
	if err != nil {
		return nil, err
	}
	ops := bson.A{}
	for _, op := range db.operations() {
		if f.Match(op) {
			ops = append(ops, op)
		}
	}
	return bson.D{{Key: "inprog", Value: ops}}, nil
}
