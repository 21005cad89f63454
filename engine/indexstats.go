package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
)

// The $indexStats stage and $collStats' queryExecStats
// (docs/commands.md, "$indexStats"): how often each index was chosen by
// a plan, and how many plans scanned the whole collection, counted
// since the index was created or the store opened, as mongod counts
// them since its start. A query, count, distinct, aggregate scan,
// update, delete or findAndModify counts once for the plan it runs;
// a find by _id through the fast path counts for the _id index; the TTL
// monitor's own deletes do not plan, and are not counted.

// ixUse is one index's access counter.
type ixUse struct {
	ops   atomic.Int64
	since time.Time
}

// ixKey names an index: its collection's id (never reused, so a
// re-created collection starts afresh) and its name.
type ixKey struct {
	coll uint64
	name string
}

// indexUsage holds the access counters of the indexes. A plan's count
// is a read-locked lookup and an atomic add: it sits on the path of
// every find by _id.
type indexUsage struct {
	mu sync.RWMutex
	m  map[ixKey]*ixUse
}

// notePlan counts what a plan on collection m chose: index ix, or (nil)
// a collection scan, tailable or not.
// notePlanOf is notePlan for plan p: each index of an index union.
func (db *DB) notePlanOf(m *catalog.Coll, p *plan, tailable bool) {
	if p.or == nil {
		db.notePlan(m, p.ix, tailable)
		return
	}
	for _, sp := range p.or {
		db.notePlan(m, sp.ix, tailable)
	}
}

func (db *DB) notePlan(m *catalog.Coll, ix *catalog.Index, tailable bool) {
	if ix == nil {
		t := &db.top
		t.mu.Lock()
		defer t.mu.Unlock()
		n := t.nsLocked(m.DB + "." + m.Name)
		n.collScans++
		if !tailable {
			n.collScansNonTailable++
		}
		return
	}
	u := &db.ixUsage
	k := ixKey{m.ID, ix.Name}
	u.mu.RLock()
	c := u.m[k]
	u.mu.RUnlock()
	if c == nil {
		u.mu.Lock()
		if c = u.m[k]; c == nil {
			if u.m == nil {
				u.m = map[ixKey]*ixUse{}
			}
			c = &ixUse{since: db.opened}
			u.m[k] = c
		}
		u.mu.Unlock()
	}
	c.ops.Add(1)
}

// noteIndexCreated starts the counter of index name of collection coll
// at now.
func (db *DB) noteIndexCreated(coll uint64, name string, now time.Time) {
	u := &db.ixUsage
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.m == nil {
		u.m = map[ixKey]*ixUse{}
	}
	u.m[ixKey{coll, name}] = &ixUse{since: now}
}

// indexUse returns the accesses of index name of collection coll and
// since when.
func (db *DB) indexUse(coll uint64, name string) (int64, time.Time) {
	u := &db.ixUsage
	u.mu.RLock()
	defer u.mu.RUnlock()
	if c := u.m[ixKey{coll, name}]; c != nil {
		return c.ops.Load(), c.since
	}
	return 0, db.opened
}

// forgetIndexUse drops the counters of collection coll's indexes (it
// was dropped).
func (db *DB) forgetIndexUse(coll uint64) {
	u := &db.ixUsage
	u.mu.Lock()
	defer u.mu.Unlock()
	for k := range u.m {
		if k.coll == coll {
			delete(u.m, k)
		}
	}
}

// indexStatsAggregate runs aggregate when its pipeline starts with
// $indexStats: one document per index of the collection, {name, key,
// host, accesses: {ops, since}, spec}, which the rest of the pipeline
// works on. ok is false (and the reply nil) when there is no such stage.
// With a verbosity ("" runs it) it answers explain instead
// (sourceStageExplain).
func (db *DB) indexStatsAggregate(ctx context.Context, dbName string, cmd bson.D, verbosity string) (reply bson.D, ok bool, err error) {
	pipe, found, err := leadingStage(cmd, "$indexStats")
	if !found || err != nil {
		return nil, found, err
	}
	name, isColl := cmd[0].Value.(string)
	if !isColl {
		return nil, true, document.Errorf(document.CodeInvalidNamespace, "$indexStats must be run against a collection namespace")
	}
	if arg, isDoc := pipe[0].(bson.D)[0].Value.(bson.D); !isDoc || len(arg) != 0 {
		return nil, true, document.Errorf(document.Code(28803), "The $indexStats stage specification must be an empty object")
	}
	if err := validateCollName(dbName, name, true); err != nil {
		return nil, true, err
	}
	c := db.lookup(dbName, name)
	if c != nil && c.m().Kind == catalog.KindView {
		return nil, true, errView(c.m())
	}
	docs := func() ([]bson.D, error) {
		var docs []bson.D
		if c == nil {
			return nil, nil
		}
		// A buckets collection's indexes count the uses of the ttlkv
		// index holding their keys (tsBucketsIndexes).
		// A time-series collection's indexes are those of its buckets
		// collection (mongod runs $indexStats there), under their names.
		served := map[string]string{}
		usesOf := c.m().ID
		tc, bc := db.bucketsTarget(dbName, name), c
		if c.m().Kind == catalog.KindTimeseries {
			tc = c
			if _, bc, _ = db.tsParts(c); bc != nil {
				usesOf = bc.m().ID
			}
		}
		if tc != nil && bc != nil {
			for _, bi := range db.tsBucketsIndexes(tc, bc) {
				if bi.served != nil {
					served[bi.name] = bi.served.Name
				}
			}
		}
		for _, sd := range db.listIndexes(c) {
			ixName, _ := get(sd, "name")
			key, _ := get(sd, "key")
			n, _ := ixName.(string)
			use := n
			if s, ok := served[n]; ok {
				use = s
			}
			ops, since := db.indexUse(usesOf, use)
			docs = append(docs, bson.D{{Key: "name", Value: n}, {Key: "key", Value: key}, {Key: "host", Value: hostAndPort(ctx)},
				{Key: "accesses", Value: bson.D{{Key: "ops", Value: ops}, {Key: "since", Value: bson.NewDateTimeFromTime(since)}}},
				{Key: "spec", Value: sd}})
		}
		return docs, nil
	}
	if verbosity != "" {
		// mongod's DocumentSourceIndexStats serializes as {$indexStats: {}}.
		r, err := db.sourceStageExplain(ctx, dbName, name, cmd, bson.D{{Key: "$indexStats", Value: bson.D{}}}, pipe[1:], docs, verbosity)
		return r, true, err
	}
	all, _ := docs()
	r, err := db.sourceStageReply(ctx, dbName+"."+name, c, cmd, pipe[1:], all)
	return r, true, err
}
