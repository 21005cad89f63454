package engine

import (
	"bufio"
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdServerStatus runs the serverStatus command.
func cmdServerStatus(_ context.Context, db *DB, _ string, _ bson.D) (bson.D, error) {
	s := db.Stats()
	lsmB, vlogB := db.store.DiskUsage()
	up := time.Since(db.opened)
	// host is the machine's name, as hostInfo's system.hostname (the
	// wire server adds the port, as mongod's prettyHostName does).
	host, _ := os.Hostname()
	return bson.D{
		{Key: "host", Value: host}, {Key: "version", Value: Version}, {Key: "process", Value: "ttlkv"},
		{Key: "pid", Value: int64(os.Getpid())}, {Key: "uptime", Value: math.Floor(up.Seconds())},
		{Key: "uptimeMillis", Value: up.Milliseconds()}, {Key: "uptimeEstimate", Value: int64(up.Seconds())},
		{Key: "localTime", Value: db.now()},
		// No locks: nothing queues, and what runs is not counted.
		{Key: "globalLock", Value: bson.D{{Key: "totalTime", Value: up.Microseconds()},
			{Key: "currentQueue", Value: bson.D{{Key: "total", Value: int32(0)}, {Key: "readers", Value: int32(0)}, {Key: "writers", Value: int32(0)}}},
			{Key: "activeClients", Value: bson.D{{Key: "total", Value: int32(0)}, {Key: "readers", Value: int32(0)}, {Key: "writers", Value: int32(0)}}}}},
		{Key: "mem", Value: memStatus()},
		{Key: "opcounters", Value: bson.D{{Key: "insert", Value: s.Inserted}, {Key: "query", Value: s.Queried},
			{Key: "update", Value: s.Updated}, {Key: "delete", Value: s.Deleted}}},
		{Key: "metrics", Value: bson.D{
			{Key: "changeStreams", Value: bson.D{
				{Key: "largeEventsFailed", Value: db.csMetrics.LargeEventsFailed.Load()},
				{Key: "largeEventsSplit", Value: db.csMetrics.LargeEventsSplit.Load()},
				{Key: "showExpandedEvents", Value: db.csMetrics.ShowExpandedEvents.Load()}}},
			{Key: "ttl", Value: bson.D{
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
func cmdCurrentOp(ctx context.Context, db *DB, _ string, cmd bson.D) (bson.D, error) {
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
	for _, op := range db.operations(ctx) {
		if f.Match(op) {
			ops = append(ops, op)
		}
	}
	return bson.D{{Key: "inprog", Value: ops}}, nil
}

// memStatus is serverStatus' mem section: the process's resident and
// virtual sizes in MiB, as mongod reports them (mongostat reads them),
// from /proc/self/status; {bits, supported: false} where that is not
// there.
func memStatus() bson.D {
	d := bson.D{{Key: "bits", Value: int32(64)}}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return append(d, bson.E{Key: "supported", Value: false})
	}
	defer f.Close()
	var rss, vsz int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "VmRSS":
			rss = kb
		case "VmSize":
			vsz = kb
		}
	}
	return append(d, bson.E{Key: "resident", Value: int32(rss >> 10)}, bson.E{Key: "virtual", Value: int32(vsz >> 10)},
		bson.E{Key: "supported", Value: true})
}
