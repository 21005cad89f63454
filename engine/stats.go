package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// stats are the engine's monotonic counters.
type stats struct {
	ttlDeleted atomic.Int64 // the TTL monitor counts its passes itself

	bdBatches     atomic.Int64
	bdDocs        atomic.Int64
	bdStagedBytes atomic.Int64
	bdTimeMS      atomic.Int64
	bdRefetches   atomic.Int64

	inserted, queried, updated, deleted atomic.Int64

	// Internal, not in Stats (tests): store reads of the unique-key
	// check (prefetchUnique, writeCtx.hasKey) and reads of an _id
	// index's last key (coll.loadIDBound).
	uniqReads, idBoundLoads atomic.Int64
}

// Stats is a snapshot of the engine's counters, as serverStatus
// reports them. Counters only grow while the DB is open.
type Stats struct {
	TTLDeletedDocuments int64 // documents (time-series: buckets) the TTL monitor deleted
	TTLPasses           int64 // completed TTL passes
	TTLSubPasses        int64 // completed TTL sub-passes

	BatchedDeleteBatches     int64 // committed batches of the batched delete stage
	BatchedDeleteDocs        int64 // documents deleted by it
	BatchedDeleteStagedBytes int64 // bytes of the documents it deleted
	BatchedDeleteTimeMillis  int64 // time spent in its batches

	Inserted, Queried, Updated, Deleted int64 // operation counters (opcounters)

	// Reclamations counts the space reclamations the TTL monitor started
	// after large reaps and that have finished, in the background or, once
	// the store was quiet, in full (DB.Reclaim calls are not counted);
	// docs/ttl-monitor.md, "Giving the space back", says when they start.
	Reclamations int64
	// Reclaiming reports whether such a reclamation is running now.
	Reclaiming bool
	// ReclaimOwed reports whether a reclamation is due but waits for the
	// foreground writers to go quiet (for at most 15 minutes).
	ReclaimOwed bool
	// TTLIndexesBehind counts the TTL indexes whose reaper is falling
	// behind expiry and reaps less gently beside writers to catch up.
	TTLIndexesBehind int64
	// LevelZeroTables is how many tables level 0 of the store's tree
	// holds now (flushed memtables waiting for a compaction); the store
	// stalls writers while they are many (lsm.Store.LevelZeroTables).
	LevelZeroTables int
}

// Stats returns the current counters.
func (db *DB) Stats() Stats {
	s := &db.stats
	return Stats{
		TTLDeletedDocuments: s.ttlDeleted.Load(), TTLPasses: db.mon.Passes(), TTLSubPasses: db.mon.SubPasses(),
		BatchedDeleteBatches: s.bdBatches.Load(), BatchedDeleteDocs: s.bdDocs.Load(),
		BatchedDeleteStagedBytes: s.bdStagedBytes.Load(), BatchedDeleteTimeMillis: s.bdTimeMS.Load(),
		Inserted: s.inserted.Load(), Queried: s.queried.Load(), Updated: s.updated.Load(), Deleted: s.deleted.Load(),
		Reclamations: db.mon.Reclaims(), Reclaiming: db.mon.Reclaiming(), ReclaimOwed: db.mon.ReclaimOwed(),
		TTLIndexesBehind: db.mon.Behind(), LevelZeroTables: db.store.LevelZeroTables(),
	}
}

// opRegistry tracks running operations for currentOp.
type opRegistry struct {
	mu   sync.Mutex
	next int64
	ops  map[int64]bson.D
}

// begin registers an operation and returns a function that ends it.
func (r *opRegistry) begin(op bson.D) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ops == nil {
		r.ops = map[int64]bson.D{}
	}
	r.next++
	id := r.next
	r.ops[id] = append(bson.D{{Key: "opid", Value: id}, {Key: "active", Value: true},
		{Key: "currentOpTime", Value: time.Now().UTC().Format(time.RFC3339Nano)}}, op...)
	return func() {
		r.mu.Lock()
		delete(r.ops, id)
		r.mu.Unlock()
	}
}

// list returns the running operations.
func (r *opRegistry) list() bson.A {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := bson.A{}
	for _, op := range r.ops {
		out = append(out, op)
	}
	return out
}

// CurrentOp returns the operations running now, as currentOp's
// inprog array shows them.
func (db *DB) CurrentOp() []bson.D {
	var out []bson.D
	for _, v := range db.ops.list() {
		out = append(out, v.(bson.D))
	}
	return out
}
