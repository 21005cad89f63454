package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

type watchFlags struct {
	resumeAfter  string
	startAfter   string
	fromNow      bool
	noWait       bool
	match        string
	expiredOnly  bool
	fullDocument string
	before       string
	canonical    bool
	maxTimeMS    int
	expanded     bool
}

var watchCommand = &command{
	name:    "watch",
	summary: "print the change events of a collection, a database or everything as Extended JSON lines, then follow new ones until Ctrl-C",
	usage:   "ttlkv watch [DB | DB.COLL] [--resume-after TOKEN] [--expired] [--match EXTJSON]",
	notes: `With no argument watch follows every database; DB follows one database, DB.COLL one collection.
It opens the data directory with change streams on and prints the events still in the change log
(from the oldest, or after --resume-after/--start-after TOKEN, the _data string or {"_data": ...} of an
event's _id; --from-now skips them), then waits for new ones. A data directory is opened by one process
at a time, so new events come from this process only: to follow another process's writes, open a change
stream through 'ttlkv serve' or in Go (Collection.Watch). An expiration is a delete event with
ttlkv: {expired: true, ...}; --expired prints only those. A collection stream ends (exit 0) after its
collection is dropped or renamed. A token whose events were trimmed from the log fails with 286
ChangeStreamHistoryLost. See docs/change-streams.md.`,
	examples: []string{
		`ttlkv watch test.sessions`,
		`ttlkv watch test.sessions --expired --before whenAvailable --no-wait`,
		`ttlkv watch --match '{"operationType": {"$in": ["insert", "delete"]}}'`,
	},
	flags: func(fs *pflag.FlagSet) any {
		f := &watchFlags{}
		fs.StringVar(&f.resumeAfter, "resume-after", "", "start after the event with this resume token")
		fs.StringVar(&f.startAfter, "start-after", "", "like --resume-after, also after an invalidate event")
		fs.BoolVar(&f.fromNow, "from-now", false, "print only events that happen from now on")
		fs.BoolVar(&f.noWait, "no-wait", false, "print the events in the log and exit instead of waiting for more")
		fs.StringVarP(&f.match, "match", "m", "", "only events matching this filter (Extended JSON, over the event document)")
		fs.BoolVar(&f.expiredOnly, "expired", false, "only expirations (TTL deletes and expired time-series buckets)")
		fs.StringVar(&f.fullDocument, "full-document", "", "fullDocument option: default, updateLookup, whenAvailable or required")
		fs.StringVar(&f.before, "before", "", "fullDocumentBeforeChange option: off, whenAvailable or required")
		fs.BoolVar(&f.canonical, "canonical", false, "print canonical instead of relaxed Extended JSON")
		fs.BoolVar(&f.expanded, "show-expanded", false, "also print DDL events: create, createIndexes, dropIndexes, modify (showExpandedEvents)")
		fs.IntVar(&f.maxTimeMS, "maxTimeMS", 1000, "how long each getMore waits for new events")
		return f
	},
	run: func(e *env, _ *pflag.FlagSet, cfg any, args []string) int {
		f := cfg.(*watchFlags)
		if len(args) > 1 {
			fmt.Fprintln(e.stderr, "ttlkv watch: give at most one namespace, DB or DB.COLL")
			return 2
		}
		if f.maxTimeMS < 1 {
			fmt.Fprintln(e.stderr, "ttlkv watch: --maxTimeMS must be at least 1")
			return 2
		}
		stage, pipeline, err := f.pipeline()
		if err != nil {
			return e.fail("watch", err)
		}
		db, err := e.open(engine.Options{ChangeStreams: true})
		if err != nil {
			return e.fail("watch", err)
		}
		ns := ""
		if len(args) == 1 {
			ns = args[0]
		}
		return e.closeDB("watch", db, e.watch(db, ns, stage, pipeline, f))
	},
}

// token parses a resume token given as its _data string or as a
// document.
func token(s string) (bson.D, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") {
		return document.ParseExtJSON([]byte(s))
	}
	return bson.D{{Key: "_data", Value: s}}, nil
}

// pipeline builds the $changeStream stage and the stages after it.
func (f *watchFlags) pipeline() (bson.D, bson.A, error) {
	stage := bson.D{}
	if f.fullDocument != "" {
		stage = append(stage, bson.E{Key: "fullDocument", Value: f.fullDocument})
	}
	if f.before != "" {
		stage = append(stage, bson.E{Key: "fullDocumentBeforeChange", Value: f.before})
	}
	if f.expanded {
		stage = append(stage, bson.E{Key: "showExpandedEvents", Value: true})
	}
	switch {
	case f.resumeAfter != "" && f.startAfter != "":
		return nil, nil, fmt.Errorf("give --resume-after or --start-after, not both")
	case f.resumeAfter != "" || f.startAfter != "":
		if f.fromNow {
			return nil, nil, fmt.Errorf("--from-now and a resume token contradict each other")
		}
		key, s := "resumeAfter", f.resumeAfter
		if s == "" {
			key, s = "startAfter", f.startAfter
		}
		t, err := token(s)
		if err != nil {
			return nil, nil, fmt.Errorf("resume token: %w", err)
		}
		stage = append(stage, bson.E{Key: key, Value: t})
	case !f.fromNow:
		// From the oldest event the log still holds.
		stage = append(stage, bson.E{Key: "ttlkvFromOldest", Value: true})
	}
	var pipeline bson.A
	if f.match != "" {
		m, err := document.ParseExtJSON([]byte(f.match))
		if err != nil {
			return nil, nil, fmt.Errorf("--match: %w", err)
		}
		pipeline = append(pipeline, bson.D{{Key: "$match", Value: m}})
	}
	if f.expiredOnly {
		pipeline = append(pipeline, bson.D{{Key: "$match", Value: bson.D{{Key: "ttlkv.expired", Value: true}}}})
	}
	return stage, pipeline, nil
}

// watch runs the change stream of ns ("" everything, "db", "db.coll")
// through aggregate and getMore, printing each event, until e.ctx ends
// (exit 0), the stream is invalidated (exit 0), --no-wait finds no more
// events (exit 0) or a command fails (exit 1).
func (e *env) watch(db *engine.DB, ns string, stage bson.D, pipeline bson.A, f *watchFlags) int {
	dbName, coll, _ := strings.Cut(ns, ".")
	var agg any = int32(1)
	getMoreColl := "$cmd.aggregate"
	switch {
	case ns == "":
		dbName = "admin"
		stage = append(stage, bson.E{Key: "allChangesForCluster", Value: true})
	case coll != "":
		agg, getMoreColl = coll, coll
	}
	full := append(bson.A{bson.D{{Key: "$changeStream", Value: stage}}}, pipeline...)
	reply, err := do(e.ctx, db, dbName, bson.D{{Key: "aggregate", Value: agg}, {Key: "pipeline", Value: full}, {Key: "cursor", Value: bson.D{}}})
	key := "firstBatch"
	for {
		if e.ctx.Err() != nil {
			return 0
		}
		if err != nil {
			return e.fail("watch", err)
		}
		cur, _ := document.Get(reply, "cursor")
		cd, _ := cur.(bson.D)
		b, _ := document.Get(cd, key)
		batch, _ := b.(bson.A)
		for _, x := range batch {
			d, _ := x.(bson.D)
			out, err := document.MarshalExtJSON(d, f.canonical)
			if err != nil {
				return e.fail("watch", err)
			}
			fmt.Fprintln(e.stdout, string(out))
		}
		id := cursorIDOf(cd)
		if id == 0 || (f.noWait && len(batch) == 0 && key == "nextBatch") {
			return 0
		}
		wait := int64(f.maxTimeMS)
		if f.noWait {
			wait = 0
		}
		key = "nextBatch"
		reply, err = do(e.ctx, db, dbName, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: getMoreColl}, {Key: "maxTimeMS", Value: wait}})
	}
}
