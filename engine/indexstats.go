package engine

import (
	"context"
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
// the TTL monitor's own deletes do not plan, and are not counted.

// ixUse is one index's access counter.
type ixUse struct {
	ops   int64
	since time.Time
}

// notePlan counts what plan p of collection m chose: its index, or a
// collection scan (tailable or not).
func (db *DB) notePlan(m *catalog.Coll, p *plan, tailable bool) {
	ns := m.DB + "." + m.Name
	t := &db.top
	t.mu.Lock()
	defer t.mu.Unlock()
	if p.ix != nil {
		if t.ix == nil {
			t.ix = map[string]map[string]*ixUse{}
		}
		byName := t.ix[ns]
		if byName == nil {
			byName = map[string]*ixUse{}
			t.ix[ns] = byName
		}
		u := byName[p.ix.Name]
		if u == nil {
			u = &ixUse{since: db.opened}
			byName[p.ix.Name] = u
		}
		u.ops++
		return
	}
	n := t.nsLocked(ns)
	n.collScans++
	if !tailable {
		n.collScansNonTailable++
	}
}

// noteIndexCreated starts the counter of index name of ns at now.
func (db *DB) noteIndexCreated(ns, name string, now time.Time) {
	t := &db.top
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ix == nil {
		t.ix = map[string]map[string]*ixUse{}
	}
	if t.ix[ns] == nil {
		t.ix[ns] = map[string]*ixUse{}
	}
	t.ix[ns][name] = &ixUse{since: now}
}

// indexUse returns the accesses of index name of ns and since when.
func (db *DB) indexUse(ns, name string) (int64, time.Time) {
	t := &db.top
	t.mu.Lock()
	defer t.mu.Unlock()
	if u := t.ix[ns][name]; u != nil {
		return u.ops, u.since
	}
	return 0, db.opened
}

// indexStatsAggregate runs aggregate when its pipeline starts with
// $indexStats: one document per index of the collection, {name, key,
// host, accesses: {ops, since}, spec}, which the rest of the pipeline
// works on. ok is false (and the reply nil) when there is no such stage.
func (db *DB) indexStatsAggregate(ctx context.Context, dbName string, cmd bson.D) (reply bson.D, ok bool, err error) {
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
	var docs []bson.D
	if c != nil {
		if c.m().Kind == catalog.KindView {
			return nil, true, errView(c.m())
		}
		ns := dbName + "." + name
		for _, sd := range db.listIndexes(c) {
			ixName, _ := get(sd, "name")
			key, _ := get(sd, "key")
			n, _ := ixName.(string)
			ops, since := db.indexUse(ns, n)
			docs = append(docs, bson.D{{Key: "name", Value: n}, {Key: "key", Value: key}, {Key: "host", Value: "ttlkv"},
				{Key: "accesses", Value: bson.D{{Key: "ops", Value: ops}, {Key: "since", Value: bson.NewDateTimeFromTime(since)}}},
				{Key: "spec", Value: sd}})
		}
	}
	r, err := db.sourceStageReply(ctx, dbName+"."+name, c, cmd, pipe[1:], docs)
	return r, true, err
}
