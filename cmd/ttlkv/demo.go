package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

var demoCommand = &command{
	name:    "demo",
	summary: "a short guided run: documents and indexes, then TTL expiry, capped and time-series collections, places that expire",
	usage:   "ttlkv demo [--dir DIR] [--db NAME]",
	examples: []string{
		"ttlkv demo",
		"ttlkv demo --dir ./demo-data --db demo",
	},
	run: func(e *env, _ *pflag.FlagSet, _ any, args []string) int {
		if len(args) > 0 {
			fmt.Fprintln(e.stderr, "ttlkv demo: takes no arguments")
			return 2
		}
		db, err := e.open(engine.Options{DisableTTLMonitor: true})
		if err != nil {
			return e.fail("demo", err)
		}
		d := &demo{e: e, db: db, now: time.Now().UTC().Truncate(time.Second)}
		code := d.run()
		return e.closeDB("demo", db, code)
	},
}

// The demo's collections; it drops them first, so it can run again.
const (
	demoOrders   = "demo_orders"
	demoSessions = "demo_sessions"
	demoLog      = "demo_log"
	demoWeather  = "demo_weather"
	demoScooters = "demo_scooters"
)

type demo struct {
	e   *env
	db  *engine.DB
	now time.Time
	err error
}

func (d *demo) say(format string, a ...any) { fmt.Fprintf(d.e.stdout, format+"\n", a...) }

// cmd runs a command, showing it as mongosh would write it; the first
// failure is kept in d.err and later calls do nothing.
func (d *demo) cmd(show string, c bson.D) bson.D {
	if d.err != nil {
		return nil
	}
	if show != "" {
		d.say("  > %s", show)
	}
	r, err := do(d.e.ctx, d.db, d.e.db, c)
	if err != nil {
		d.err = err
		return nil
	}
	return r
}

func (d *demo) find(c bson.D) []bson.D {
	var out []bson.D
	if d.err != nil {
		return nil
	}
	coll, _ := c[0].Value.(string)
	if err := drain(d.e.ctx, d.db, d.e.db, coll, c, func(x bson.D) bool { out = append(out, x); return true }); err != nil {
		d.err = err
	}
	return out
}

func (d *demo) show(docs []bson.D) {
	for _, x := range docs {
		b, err := document.MarshalExtJSON(x, false)
		if err != nil {
			d.err = err
			return
		}
		d.say("    %s", b)
	}
}

func (d *demo) ago(dur time.Duration) bson.DateTime { return bson.NewDateTimeFromTime(d.now.Add(-dur)) }

func (d *demo) run() int {
	d.say("ttlkv demo — data directory %s, database %q\n", d.db.Dir(), d.e.db)
	for _, c := range []string{demoOrders, demoSessions, demoLog, demoWeather, demoScooters} {
		if _, err := do(d.e.ctx, d.db, d.e.db, bson.D{{Key: "drop", Value: c}}); err != nil && codeOf(err) != document.CodeNamespaceNotFound {
			return d.e.fail("demo", err)
		}
	}
	steps := []struct {
		title string
		f     func()
	}{
		{"1. Documents and an index", d.basics},
		{"2. TTL: documents that expire", d.ttl},
		{"3. A capped collection keeps only the newest documents", d.capped},
		{"4. A time-series collection with automatic removal", d.timeseries},
		{"5. Places that expire: a 2dsphere index beside a TTL index", d.places},
	}
	for _, st := range steps {
		d.say("%s", st.title)
		st.f()
		if d.err != nil {
			return d.e.fail("demo", d.err)
		}
		d.say("")
	}
	shell := "ttlkv shell"
	if d.e.dir != "" {
		shell += " --dir " + shellQuote(d.e.dir)
	}
	if d.e.db != "test" {
		shell += " --db " + shellQuote(d.e.db)
	}
	d.say("Done. Try it yourself:  %s   (then: db.%s.find())", shell, demoSessions)
	d.say("s3 expires a minute after this demo, and the shell's TTL monitor, which runs every 60 s, then deletes it;")
	d.say("db.adminCommand({ setParameter: 1, ttlMonitorSleepSecs: 1 }) makes it run every second.")
	return 0
}

func (d *demo) basics() {
	orders := bson.A{
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "customer", Value: "ada"}, {Key: "total", Value: 42.5}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "customer", Value: "grace"}, {Key: "total", Value: 17.0}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "customer", Value: "ada"}, {Key: "total", Value: 99.9}},
		bson.D{{Key: "_id", Value: int32(4)}, {Key: "customer", Value: "linus"}, {Key: "total", Value: 5.25}},
	}
	r := d.cmd(fmt.Sprintf("db.%s.insertMany([...%d orders...])", demoOrders, len(orders)),
		bson.D{{Key: "insert", Value: demoOrders}, {Key: "documents", Value: orders}})
	d.say("    inserted %d documents", num(r, "n"))
	d.cmd(fmt.Sprintf("db.%s.createIndex({ customer: 1 })", demoOrders),
		bson.D{{Key: "createIndexes", Value: demoOrders}, {Key: "indexes", Value: bson.A{bson.D{{Key: "key", Value: bson.D{{Key: "customer", Value: int32(1)}}}, {Key: "name", Value: "customer_1"}}}}})
	find := bson.D{{Key: "find", Value: demoOrders}, {Key: "filter", Value: bson.D{{Key: "customer", Value: "ada"}}}, {Key: "sort", Value: bson.D{{Key: "total", Value: int32(-1)}}}}
	d.say("  > db.%s.find({ customer: \"ada\" }).sort({ total: -1 })", demoOrders)
	d.show(d.find(find))
	ex := d.cmd("", bson.D{{Key: "explain", Value: find[:3]}, {Key: "verbosity", Value: "queryPlanner"}})
	if ex != nil {
		d.say("    the query used: %s", planStages(ex))
	}
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// planStages summarises explain's winning plan as "FETCH <- IXSCAN
// customer_1".
func planStages(ex bson.D) string {
	v, ok := document.Lookup(ex, "queryPlanner.winningPlan")
	var parts []string
	for ok {
		p, isDoc := v.(bson.D)
		if !isDoc {
			break
		}
		st, _ := document.Get(p, "stage")
		s := fmt.Sprint(st)
		if n, has := document.Get(p, "indexName"); has {
			s += " " + fmt.Sprint(n)
		}
		parts = append(parts, s)
		v, ok = document.Get(p, "inputStage")
	}
	if len(parts) == 0 {
		return "(no plan reported)"
	}
	return strings.Join(parts, " <- ")
}

func (d *demo) ttl() {
	d.cmd(fmt.Sprintf("db.%s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 60 })", demoSessions),
		bson.D{{Key: "createIndexes", Value: demoSessions}, {Key: "indexes", Value: bson.A{bson.D{
			{Key: "key", Value: bson.D{{Key: "lastSeen", Value: int32(1)}}}, {Key: "name", Value: "lastSeen_1"}, {Key: "expireAfterSeconds", Value: int32(60)}}}}})
	sessions := bson.A{
		bson.D{{Key: "_id", Value: "s1"}, {Key: "user", Value: "ada"}, {Key: "lastSeen", Value: d.ago(2 * time.Hour)}},
		bson.D{{Key: "_id", Value: "s2"}, {Key: "user", Value: "grace"}, {Key: "lastSeen", Value: d.ago(90 * time.Second)}},
		bson.D{{Key: "_id", Value: "s3"}, {Key: "user", Value: "linus"}, {Key: "lastSeen", Value: d.ago(0)}},
		bson.D{{Key: "_id", Value: "s4"}, {Key: "user", Value: "barbara"}, {Key: "lastSeen", Value: "yesterday"}},
	}
	d.cmd(fmt.Sprintf("db.%s.insertMany([...]) — last seen 2 h ago, 90 s ago, now, and a string (never expires)", demoSessions),
		bson.D{{Key: "insert", Value: demoSessions}, {Key: "documents", Value: sessions}})
	n := d.cmd(fmt.Sprintf("db.%s.countDocuments()", demoSessions), bson.D{{Key: "count", Value: demoSessions}})
	if d.err != nil {
		return
	}
	d.say("    %d: s1 and s2 have expired, but stay visible until the TTL monitor deletes them", num(n, "n"))
	d.say("  > db.adminCommand({ runTTLPass: 1 })   (the TTL monitor does this every 60 s)")
	r, err := do(d.e.ctx, d.db, "admin", bson.D{{Key: "runTTLPass", Value: 1}})
	if err != nil {
		d.err = err
		return
	}
	d.say("    the pass deleted %d expired document(s)", num(r, "deleted"))
	left := d.find(bson.D{{Key: "find", Value: demoSessions}, {Key: "filter", Value: bson.D{}}, {Key: "sort", Value: bson.D{{Key: "_id", Value: int32(1)}}}})
	kept := map[string]bool{}
	for _, x := range left {
		id, _ := document.Get(x, "_id")
		kept[fmt.Sprint(id)] = true
	}
	for _, x := range sessions {
		xd := x.(bson.D)
		id, _ := document.Get(xd, "_id")
		user, _ := document.Get(xd, "user")
		state := "expired and deleted"
		if kept[fmt.Sprint(id)] {
			state = "still here"
		}
		d.say("    %s (%s): %s", id, user, state)
	}
}

func (d *demo) capped() {
	d.cmd(fmt.Sprintf("db.createCollection(%q, { capped: true, size: 100000, max: 3 })", demoLog),
		bson.D{{Key: "create", Value: demoLog}, {Key: "capped", Value: true}, {Key: "size", Value: int32(100000)}, {Key: "max", Value: int32(3)}})
	var docs bson.A
	for i := 1; i <= 5; i++ {
		docs = append(docs, bson.D{{Key: "seq", Value: int32(i)}, {Key: "msg", Value: fmt.Sprintf("event %d", i)}})
	}
	d.cmd(fmt.Sprintf("db.%s.insertMany([5 events])", demoLog), bson.D{{Key: "insert", Value: demoLog}, {Key: "documents", Value: docs}})
	if d.err != nil {
		return
	}
	d.say("  > db.%s.find({}, { _id: 0 }).sort({ $natural: -1 })   (newest first; only the last 3 are kept)", demoLog)
	d.show(d.find(bson.D{{Key: "find", Value: demoLog}, {Key: "filter", Value: bson.D{}}, {Key: "sort", Value: bson.D{{Key: "$natural", Value: int32(-1)}}},
		{Key: "projection", Value: bson.D{{Key: "_id", Value: int32(0)}}}}))
}

func (d *demo) timeseries() {
	d.cmd(fmt.Sprintf(`db.createCollection(%q, { timeseries: { timeField: "ts", metaField: "sensor", granularity: "minutes" }, expireAfterSeconds: 86400 })`, demoWeather),
		bson.D{{Key: "create", Value: demoWeather}, {Key: "timeseries", Value: bson.D{{Key: "timeField", Value: "ts"}, {Key: "metaField", Value: "sensor"}, {Key: "granularity", Value: "minutes"}}},
			{Key: "expireAfterSeconds", Value: int32(86400)}})
	reading := func(ago time.Duration, sensor string, temp float64) bson.D {
		return bson.D{{Key: "ts", Value: d.ago(ago)}, {Key: "sensor", Value: sensor}, {Key: "temp", Value: temp}}
	}
	docs := bson.A{
		reading(72*time.Hour, "roof", 11.5), reading(71*time.Hour, "roof", 12.0), reading(71*time.Hour, "cellar", 8.0),
		reading(time.Hour, "roof", 14.5), reading(30*time.Minute, "cellar", 9.5), reading(0, "roof", 15.0),
	}
	d.cmd(fmt.Sprintf("db.%s.insertMany([...]) — 3 readings from 3 days ago, 3 from the last hour, 2 sensors", demoWeather),
		bson.D{{Key: "insert", Value: demoWeather}, {Key: "documents", Value: docs}})
	before := d.tsFigures()
	d.say("    stored as %d measurement(s) in %d bucket(s) (one per sensor and time span; a \"minutes\" bucket spans up to 24 h)", before[0], before[1])
	if d.err != nil {
		return
	}
	d.say("  > db.adminCommand({ runTTLPass: 1 })")
	r, err := do(d.e.ctx, d.db, "admin", bson.D{{Key: "runTTLPass", Value: 1}})
	if err != nil {
		d.err = err
		return
	}
	after := d.tsFigures()
	d.say("    the pass deleted %d bucket(s): a bucket goes once its newest possible reading (start + 24 h) is more than 1 day old", num(r, "deleted"))
	d.say("    left: %d measurement(s) in %d bucket(s)", after[0], after[1])
	d.say("  > db.%s.find({}, { _id: 0 }).sort({ ts: 1 })", demoWeather)
	d.show(d.find(bson.D{{Key: "find", Value: demoWeather}, {Key: "filter", Value: bson.D{}}, {Key: "sort", Value: bson.D{{Key: "ts", Value: int32(1)}}},
		{Key: "projection", Value: bson.D{{Key: "_id", Value: int32(0)}}}}))
	d.say(`  > db.%s.aggregate([{ $group: { _id: "$sensor", readings: { $sum: 1 }, avgTemp: { $avg: "$temp" } } }, { $sort: { _id: 1 } }])`, demoWeather)
	d.show(d.find(bson.D{{Key: "aggregate", Value: demoWeather}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$sensor"}, {Key: "readings", Value: bson.D{{Key: "$sum", Value: int32(1)}}},
			{Key: "avgTemp", Value: bson.D{{Key: "$avg", Value: "$temp"}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: int32(1)}}}}}},
		{Key: "cursor", Value: bson.D{}}}))
}

// tsFigures returns the weather collection's measurement and bucket
// counts.
func (d *demo) tsFigures() [2]int64 {
	n := d.cmd("", bson.D{{Key: "count", Value: demoWeather}})
	st := d.cmd("", bson.D{{Key: "collStats", Value: demoWeather}})
	return [2]int64{num(n, "n"), num(st, "timeseries.bucketCount")}
}

// places is the geo chapter: scooters report where they are; the ones
// that stopped reporting expire, and $geoNear stops finding them.
func (d *demo) places() {
	d.cmd(fmt.Sprintf("db.%s.createIndex({ at: \"2dsphere\" })", demoScooters),
		bson.D{{Key: "createIndexes", Value: demoScooters}, {Key: "indexes", Value: bson.A{
			bson.D{{Key: "key", Value: bson.D{{Key: "at", Value: "2dsphere"}}}, {Key: "name", Value: "at_2dsphere"}}}}})
	d.cmd(fmt.Sprintf("db.%s.createIndex({ lastPing: 1 }, { expireAfterSeconds: 120 })", demoScooters),
		bson.D{{Key: "createIndexes", Value: demoScooters}, {Key: "indexes", Value: bson.A{
			bson.D{{Key: "key", Value: bson.D{{Key: "lastPing", Value: int32(1)}}}, {Key: "name", Value: "lastPing_1"}, {Key: "expireAfterSeconds", Value: int32(120)}}}}})
	point := func(lng, lat float64) bson.D {
		return bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{lng, lat}}}
	}
	scooters := bson.A{
		bson.D{{Key: "_id", Value: "sc1"}, {Key: "at", Value: point(2.3364, 48.8611)}, {Key: "lastPing", Value: d.ago(time.Hour)}},
		bson.D{{Key: "_id", Value: "sc2"}, {Key: "at", Value: point(2.3390, 48.8600)}, {Key: "lastPing", Value: d.ago(10 * time.Second)}},
		bson.D{{Key: "_id", Value: "sc3"}, {Key: "at", Value: point(2.3440, 48.8590)}, {Key: "lastPing", Value: d.ago(0)}},
		bson.D{{Key: "_id", Value: "sc4"}, {Key: "at", Value: point(2.3700, 48.8530)}, {Key: "lastPing", Value: d.ago(0)}},
	}
	d.cmd(fmt.Sprintf("db.%s.insertMany([...]) — 4 scooters near the Louvre; sc1 last reported an hour ago", demoScooters),
		bson.D{{Key: "insert", Value: demoScooters}, {Key: "documents", Value: scooters}})
	near := func() {
		d.say(`  > db.%s.aggregate([{ $geoNear: { near: { type: "Point", coordinates: [2.3376, 48.8606] }, distanceField: "meters", maxDistance: 1000 } }, { $project: { meters: { $round: ["$meters", 0] } } }])`, demoScooters)
		d.show(d.find(bson.D{{Key: "aggregate", Value: demoScooters}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$geoNear", Value: bson.D{{Key: "near", Value: point(2.3376, 48.8606)}, {Key: "distanceField", Value: "meters"}, {Key: "maxDistance", Value: int32(1000)}}}},
			bson.D{{Key: "$project", Value: bson.D{{Key: "meters", Value: bson.D{{Key: "$round", Value: bson.A{"$meters", int32(0)}}}}}}}}},
			{Key: "cursor", Value: bson.D{}}}))
	}
	near()
	if d.err != nil {
		return
	}
	d.say("    (sc4 is about 2.5 km away, past maxDistance)")
	d.say("  > db.adminCommand({ runTTLPass: 1 })")
	r, err := do(d.e.ctx, d.db, "admin", bson.D{{Key: "runTTLPass", Value: 1}})
	if err != nil {
		d.err = err
		return
	}
	d.say("    the pass deleted %d stale scooter(s); the nearest is now sc2", num(r, "deleted"))
	near()
}
