package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// topStats counts, for each collection, the commands RunCommand ran on
// it and the time they took, as mongod's Top does: the top command
// (what mongotop reads) and $collStats' latencyStats report them. Only
// commands are counted, not the Go API's direct calls. A collection's
// counters go when it is dropped or renamed.
type topStats struct {
	mu sync.Mutex
	ns map[string]*nsTop
}

// opTime is a count of operations and their total time, in
// microseconds.
type opTime struct{ time, count int64 }

func (o *opTime) add(us int64) { o.time += us; o.count++ }

func (o opTime) doc() bson.D {
	return bson.D{{Key: "time", Value: o.time}, {Key: "count", Value: o.count}}
}

// nsTop is one collection's counters: top's fields, and latencyStats'
// reads, writes and commands.
type nsTop struct {
	total, readLock, writeLock                         opTime
	queries, getmore, insert, update, remove, commands opTime
	latReads, latWrites, latCommands                   opTime
	// Plans that scanned the whole collection ($collStats'
	// queryExecStats.collectionScans), and those of them not tailable.
	collScans, collScansNonTailable int64
}

// topKinds says how top counts a collection command: its field
// (queries, getmore, insert, update, remove or commands), its
// latencyStats class (reads, writes or commands), and whether it takes
// a write lock.
var topKinds = map[string]struct {
	field, latency func(*nsTop) *opTime
	write          bool
}{
	"find": {topQueries, topReads, false}, "aggregate": {topCommands, topReads, false},
	"count": {topCommands, topReads, false}, "distinct": {topCommands, topReads, false},
	"getMore": {topGetmores, topReads, false},
	"insert":  {topInserts, topWrites, true}, "update": {topUpdates, topWrites, true},
	"delete": {topRemoves, topWrites, true}, "findAndModify": {topCommands, topWrites, true},
	"createIndexes": {topCommands, topLatCommands, true}, "dropIndexes": {topCommands, topLatCommands, true},
	"collMod": {topCommands, topLatCommands, true}, "create": {topCommands, topLatCommands, true},
	"listIndexes": {topCommands, topLatCommands, false}, "collStats": {topCommands, topLatCommands, false},
	"validate": {topCommands, topLatCommands, false},
}

// The counters topKinds names.
func topQueries(n *nsTop) *opTime     { return &n.queries }
func topGetmores(n *nsTop) *opTime    { return &n.getmore }
func topInserts(n *nsTop) *opTime     { return &n.insert }
func topUpdates(n *nsTop) *opTime     { return &n.update }
func topRemoves(n *nsTop) *opTime     { return &n.remove }
func topCommands(n *nsTop) *opTime    { return &n.commands }
func topReads(n *nsTop) *opTime       { return &n.latReads }
func topWrites(n *nsTop) *opTime      { return &n.latWrites }
func topLatCommands(n *nsTop) *opTime { return &n.latCommands }

// topNamespace returns the collection a command runs on, for top: its
// first field's string (getMore's collection), "" for other commands.
func topNamespace(dbName string, cmd bson.D) string {
	if _, ok := topKinds[cmd[0].Key]; !ok {
		return ""
	}
	v := cmd[0].Value
	if cmd[0].Key == "getMore" {
		v, _ = get(cmd, "collection")
	}
	name, ok := v.(string)
	if !ok || name == "" {
		return ""
	}
	return dbName + "." + name
}

// CountCommand counts cmd, run on database dbName and answered in d
// outside RunCommand (a server's fast path for a find by _id), as
// RunCommand counts the commands it runs: in top and latencyStats.
func (db *DB) CountCommand(dbName string, cmd bson.D, d time.Duration) {
	if len(cmd) == 0 {
		return
	}
	if ns := topNamespace(dbName, cmd); ns != "" {
		db.top.record(ns, cmd[0].Key, d)
	}
}

// record counts a command of kind cmd on namespace ns that took d.
func (t *topStats) record(ns, cmd string, d time.Duration) {
	k := topKinds[cmd]
	us := d.Microseconds()
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.nsLocked(ns)
	n.total.add(us)
	if k.write {
		n.writeLock.add(us)
	} else {
		n.readLock.add(us)
	}
	k.field(n).add(us)
	k.latency(n).add(us)
}

// nsLocked returns the counters of namespace ns, made if missing; t.mu
// is held.
func (t *topStats) nsLocked(ns string) *nsTop {
	if t.ns == nil {
		t.ns = map[string]*nsTop{}
	}
	n := t.ns[ns]
	if n == nil {
		n = &nsTop{}
		t.ns[ns] = n
	}
	return n
}

// of returns a copy of the counters of namespace ns (zeros if none).
func (t *topStats) of(ns string) nsTop {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := t.ns[ns]; n != nil {
		return *n
	}
	return nsTop{}
}

// forget drops the counters of namespace ns (the collection is gone).
func (t *topStats) forget(ns string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.ns, ns)
}

// cmdTop runs the top command: each collection's counters, in
// microseconds, as mongod's top answers (mongotop reads it).
func cmdTop(_ context.Context, db *DB, _ string, _ bson.D) (bson.D, error) {
	db.top.mu.Lock()
	names := make([]string, 0, len(db.top.ns))
	for ns := range db.top.ns {
		names = append(names, ns)
	}
	db.top.mu.Unlock()
	slices.Sort(names)
	totals := bson.D{{Key: "note", Value: "all times in microseconds"}}
	for _, ns := range names {
		dbName, name, _ := strings.Cut(ns, ".")
		if db.lookup(dbName, name) == nil {
			continue
		}
		n := db.top.of(ns)
		totals = append(totals, bson.E{Key: ns, Value: bson.D{
			{Key: "total", Value: n.total.doc()}, {Key: "readLock", Value: n.readLock.doc()},
			{Key: "writeLock", Value: n.writeLock.doc()}, {Key: "queries", Value: n.queries.doc()},
			{Key: "getmore", Value: n.getmore.doc()}, {Key: "insert", Value: n.insert.doc()},
			{Key: "update", Value: n.update.doc()}, {Key: "remove", Value: n.remove.doc()},
			{Key: "commands", Value: n.commands.doc()}}})
	}
	return bson.D{{Key: "totals", Value: totals}}, nil
}

// latencyStats is $collStats' latencyStats for namespace ns: the
// total latency (microseconds) and count of reads, writes and commands.
func (db *DB) latencyStats(ns string, histograms bool) bson.D {
	n := db.top.of(ns)
	op := func(o opTime) bson.D {
		d := bson.D{{Key: "latency", Value: o.time}, {Key: "ops", Value: o.count}}
		if histograms {
			d = append(d, bson.E{Key: "histogram", Value: bson.A{}})
		}
		return d
	}
	return bson.D{{Key: "reads", Value: op(n.latReads)}, {Key: "writes", Value: op(n.latWrites)},
		{Key: "commands", Value: op(n.latCommands)}, {Key: "transactions", Value: op(opTime{})}}
}
