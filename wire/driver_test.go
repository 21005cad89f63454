package wire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// fakeClock moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// logSink collects log lines for assertions.
type logSink struct {
	mu    sync.Mutex
	lines []string
}

func (l *logSink) logf(format string, a ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, a...))
	l.mu.Unlock()
}

func (l *logSink) has(sub string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// env is one server with its DB, clock and log.
type env struct {
	db    *engine.DB
	srv   *Server
	clock *fakeClock
	log   *logSink
	addr  string // TCP address; empty for in-process
}

func newEnv(t testing.TB, opts Options) *env {
	t.Helper()
	return newEnvWith(t, opts, engine.Options{})
}

// newEnvWith is newEnv over an engine opened with eo (its clock and
// monitor are the env's).
func newEnvWith(t testing.TB, opts Options, eo engine.Options) *env {
	t.Helper()
	e := &env{clock: &fakeClock{now: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}, log: &logSink{}}
	eo.Clock, eo.DisableTTLMonitor = e.clock.Now, true
	db, err := engine.Open(t.TempDir(), eo)
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	if opts.Logf == nil {
		opts.Logf = e.log.logf
	}
	e.srv = NewServer(db, opts)
	t.Cleanup(func() {
		e.srv.Close()
		db.Close()
	})
	return e
}

// listen serves TCP on a free loopback port.
func (e *env) listen(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go e.srv.Serve(l)
	e.addr = l.Addr().String()
	return e.addr
}

// client connects the official driver over TCP (inproc false) or the
// in-process dialer.
func (e *env) client(t testing.TB, inproc bool, extra ...func(*options.ClientOptions)) *mongo.Client {
	t.Helper()
	o := options.Client().SetTimeout(20 * time.Second)
	if inproc {
		o.ApplyURI("mongodb://ttlkv.invalid").SetDialer(e.srv.Dialer())
	} else {
		if e.addr == "" {
			e.listen(t)
		}
		o.ApplyURI("mongodb://" + e.addr)
	}
	for _, f := range extra {
		f(o)
	}
	c, err := mongo.Connect(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Disconnect(context.Background()) })
	return c
}

func transports(t *testing.T, f func(t *testing.T, inproc bool)) {
	for _, inproc := range []bool{false, true} {
		name := "tcp"
		if inproc {
			name = "inproc"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, inproc)
		})
	}
}

func cmdCode(t testing.TB, err error) int32 {
	t.Helper()
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return ce.Code
	}
	var we mongo.WriteException
	if errors.As(err, &we) && len(we.WriteErrors) > 0 {
		return int32(we.WriteErrors[0].Code)
	}
	var be mongo.BulkWriteException
	if errors.As(err, &be) && len(be.WriteErrors) > 0 {
		return int32(be.WriteErrors[0].Code)
	}
	t.Fatalf("error %v (%T) carries no server code", err, err)
	return 0
}

func TestDriverCRUD(t *testing.T) {
	t.Parallel()
	transports(t, func(t *testing.T, inproc bool) {
		e := newEnv(t, Options{})
		ctx := context.Background()
		coll := e.client(t, inproc).Database("app").Collection("people")
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "ada"}}); err != nil {
			t.Fatal(err)
		}
		docs := []any{}
		for i := 2; i <= 250; i++ {
			docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "n", Value: i}})
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
		var got bson.M
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&got); err != nil || got["name"] != "ada" {
			t.Fatalf("findOne: %v %v", got, err)
		}
		// A find larger than the first batch needs getMore.
		cur, err := coll.Find(ctx, bson.D{{Key: "n", Value: bson.D{{Key: "$gte", Value: 2}}}}, options.Find().SetBatchSize(50))
		if err != nil {
			t.Fatal(err)
		}
		var all []bson.M
		if err := cur.All(ctx, &all); err != nil || len(all) != 249 {
			t.Fatalf("find: %d docs, %v", len(all), err)
		}
		ur, err := coll.UpdateMany(ctx, bson.D{{Key: "n", Value: bson.D{{Key: "$lt", Value: 10}}}}, bson.D{{Key: "$set", Value: bson.D{{Key: "small", Value: true}}}})
		if err != nil || ur.ModifiedCount != 8 {
			t.Fatalf("updateMany: %+v %v", ur, err)
		}
		dr, err := coll.DeleteMany(ctx, bson.D{{Key: "small", Value: true}})
		if err != nil || dr.DeletedCount != 8 {
			t.Fatalf("deleteMany: %+v %v", dr, err)
		}
		n, err := coll.CountDocuments(ctx, bson.D{})
		if err != nil || n != 242 {
			t.Fatalf("count: %d %v", n, err)
		}
		// Duplicate key: a WriteException with 11000.
		_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
		if !mongo.IsDuplicateKeyError(err) || cmdCode(t, err) != 11000 {
			t.Fatalf("duplicate insert: %v", err)
		}
		// An unknown command: CommandError 59.
		err = coll.Database().RunCommand(ctx, bson.D{{Key: "noSuchCommand", Value: 1}}).Err()
		if cmdCode(t, err) != 59 {
			t.Fatalf("unknown command: %v", err)
		}
	})
}

// TestDriverLookup runs a join through the official driver: $lookup's
// pipeline form with let, and $map and $filter on its results, reach
// the engine and come back as the driver decodes them.
func TestDriverLookup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	db := e.client(t, false).Database("shop")
	if _, err := db.Collection("orders").InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "items", Value: bson.A{"a", "b"}}},
		bson.D{{Key: "_id", Value: 2}, {Key: "items", Value: bson.A{"c"}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("stock").InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "a"}, {Key: "qty", Value: 3}},
		bson.D{{Key: "_id", Value: "b"}, {Key: "qty", Value: 0}},
		bson.D{{Key: "_id", Value: "c"}, {Key: "qty", Value: 9}},
	}); err != nil {
		t.Fatal(err)
	}
	pipeline := mongo.Pipeline{
		{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "stock"}, {Key: "let", Value: bson.D{{Key: "want", Value: "$items"}}},
			{Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "$expr", Value: bson.D{{Key: "$in", Value: bson.A{"$_id", "$$want"}}}}}}}}},
			{Key: "as", Value: "stock"}}}},
		{{Key: "$project", Value: bson.D{{Key: "out", Value: bson.D{{Key: "$map", Value: bson.D{
			{Key: "input", Value: bson.D{{Key: "$filter", Value: bson.D{{Key: "input", Value: "$stock"}, {Key: "cond", Value: bson.D{{Key: "$eq", Value: bson.A{"$$this.qty", 0}}}}}}}},
			{Key: "in", Value: "$$this._id"}}}}}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	}
	cur, err := db.Collection("orders").Aggregate(ctx, pipeline)
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.M
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || fmt.Sprint(got[0]["out"]) != "[b]" || fmt.Sprint(got[1]["out"]) != "[]" {
		t.Fatalf("out of stock per order: %v", got)
	}
}

// TestDriverRollup runs what a TTL user does before raw events expire,
// through the official driver: $merge per-key counts into a summary
// with a pipeline that adds them up, again after more events, then
// $out a snapshot; the summary outlives the expired events.
func TestDriverRollup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	db := e.client(t, false).Database("app")
	events := db.Collection("events")
	if _, err := events.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}},
		Options: options.Index().SetExpireAfterSeconds(60)}); err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	add := func(keys ...string) {
		t.Helper()
		var docs []any
		for _, k := range keys {
			docs = append(docs, bson.D{{Key: "k", Value: k}, {Key: "at", Value: now}})
		}
		if _, err := events.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	// The events since the last rollup, counted per key and added to the
	// summary's counts.
	rollup := func(since time.Time) mongo.Pipeline {
		return mongo.Pipeline{
			{{Key: "$match", Value: bson.D{{Key: "at", Value: bson.D{{Key: "$gte", Value: since}}}}}},
			{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$k"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
			{{Key: "$merge", Value: bson.D{{Key: "into", Value: "counts"},
				{Key: "whenMatched", Value: bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "n", Value: bson.D{{Key: "$add", Value: bson.A{"$n", "$$new.n"}}}}}}}}}}}},
		}
	}
	run := func(p mongo.Pipeline) {
		t.Helper()
		cur, err := events.Aggregate(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Next(ctx) {
			t.Fatalf("a writing pipeline returned %v", cur.Current)
		}
		cur.Close(ctx)
	}
	add("a", "b", "a")
	run(rollup(now))
	e.clock.Advance(time.Second)
	now = e.clock.Now()
	add("a", "c")
	run(rollup(now))
	run(mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}}, {{Key: "$out", Value: "snapshot"}}})

	e.clock.Advance(2 * time.Minute)
	if err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "runTTLPass", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	if n, _ := events.CountDocuments(ctx, bson.D{}); n != 0 {
		t.Fatalf("%d events left after their TTL", n)
	}
	cur, err := db.Collection("counts").Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		ID string `bson:"_id"`
		N  int32  `bson:"n"`
	}
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[{a 3} {b 1} {c 1}]" {
		t.Fatalf("counts: %v", got)
	}
	var snap struct {
		N int32 `bson:"n"`
	}
	if err := db.Collection("snapshot").FindOne(ctx, bson.D{}).Decode(&snap); err != nil || snap.N != 5 {
		t.Fatalf("snapshot: %v, %v", snap, err)
	}
	// A refusal comes back as the server's error.
	_, err = events.Aggregate(ctx, mongo.Pipeline{{{Key: "$merge", Value: bson.D{{Key: "into", Value: "counts"}, {Key: "whenMatched", Value: "keepExisting"}, {Key: "whenNotMatched", Value: "fail"}}}}})
	if cmdCode(t, err) != 51181 {
		t.Fatalf("an unsupported $merge mode: %v", err)
	}
}

// TestDriverLet sends the let option through the official driver's
// Aggregate, Find, UpdateMany and FindOneAndDelete options, as an
// application written for MongoDB 5.0 and later does, and a find
// projection that computes a field (4.4).
func TestDriverLet(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	coll := e.client(t, false).Database("app").Collection("items")
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "qty", Value: 5}}, bson.D{{Key: "_id", Value: 2}, {Key: "qty", Value: 50}}}); err != nil {
		t.Fatal(err)
	}
	low := bson.D{{Key: "$expr", Value: bson.D{{Key: "$lt", Value: bson.A{"$qty", "$$limit"}}}}}
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: low}}}, options.Aggregate().SetLet(bson.D{{Key: "limit", Value: 10}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.M
	if err := cur.All(ctx, &got); err != nil || len(got) != 1 || fmt.Sprint(got[0]["_id"]) != "1" {
		t.Fatalf("aggregate with let: %v, %v", got, err)
	}
	res, err := coll.UpdateMany(ctx, low, mongo.Pipeline{{{Key: "$set", Value: bson.D{{Key: "restock", Value: "$$limit"}}}}}, options.UpdateMany().SetLet(bson.D{{Key: "limit", Value: 10}}))
	if err != nil || res.ModifiedCount != 1 {
		t.Fatalf("updateMany with let: %v, %v", res, err)
	}
	fc, err := coll.Find(ctx, bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$restock", "$$limit"}}}}}, options.Find().SetLet(bson.D{{Key: "limit", Value: 10}}))
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	if err := fc.All(ctx, &got); err != nil || len(got) != 1 || fmt.Sprint(got[0]["_id"]) != "1" {
		t.Fatalf("find with let: %v, %v", got, err)
	}
	var gone bson.M
	if err := coll.FindOneAndDelete(ctx, low, options.FindOneAndDelete().SetLet(bson.D{{Key: "limit", Value: 10}})).Decode(&gone); err != nil || fmt.Sprint(gone["_id"]) != "1" {
		t.Fatalf("findOneAndDelete with let: %v, %v", gone, err)
	}
	_, err = coll.Aggregate(ctx, mongo.Pipeline{}, options.Aggregate().SetLet(bson.D{{Key: "x", Value: "$qty"}}))
	if cmdCode(t, err) != 4890500 {
		t.Fatalf("a let that reads a field: %v", err)
	}
	// A find projection that computes a field, as MongoDB 4.4 allows.
	var doubled bson.M
	if err := coll.FindOne(ctx, bson.D{}, options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 0},
		{Key: "double", Value: bson.D{{Key: "$multiply", Value: bson.A{"$qty", 2}}}}})).Decode(&doubled); err != nil || fmt.Sprint(doubled["double"]) != "100" {
		t.Fatalf("a computed projection: %v, %v", doubled, err)
	}
	// ...which reads the command's let, as mongod's does.
	sc, err := coll.Find(ctx, bson.D{}, options.Find().SetLimit(1).SetLet(bson.D{{Key: "k", Value: 3}}).SetProjection(bson.D{{Key: "_id", Value: 0},
		{Key: "scaled", Value: bson.D{{Key: "$multiply", Value: bson.A{"$qty", "$$k"}}}}}))
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	if err := sc.All(ctx, &got); err != nil || len(got) != 1 || fmt.Sprint(got[0]["scaled"]) != "150" {
		t.Fatalf("a computed projection with let: %v, %v", got, err)
	}
}

// TestDriverView creates a view with the official driver's CreateView
// and reads it as an application does; a write to it is the server's
// 166.
func TestDriverView(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	db := e.client(t, false).Database("app")
	if _, err := db.Collection("users").InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "ann"}, {Key: "pw", Value: "x"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "name", Value: "bob"}, {Key: "pw", Value: "y"}}}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateView(ctx, "safeUsers", "users", mongo.Pipeline{{{Key: "$project", Value: bson.D{{Key: "pw", Value: 0}}}}}); err != nil {
		t.Fatal(err)
	}
	cur, err := db.Collection("safeUsers").Find(ctx, bson.D{{Key: "name", Value: "bob"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.M
	if err := cur.All(ctx, &got); err != nil || len(got) != 1 || got[0]["pw"] != nil || got[0]["name"] != "bob" {
		t.Fatalf("find on a view: %v, %v", got, err)
	}
	if n, err := db.Collection("safeUsers").CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
		t.Fatalf("count on a view: %d, %v", n, err)
	}
	_, err = db.Collection("safeUsers").InsertOne(ctx, bson.D{{Key: "name", Value: "cy"}})
	if cmdCode(t, err) != 166 {
		t.Fatalf("insert into a view: %v", err)
	}
}

// TestDriverClientBulkWrite runs the official driver's Client.BulkWrite
// (MongoDB 8.0's bulkWrite command) across two databases: inserts, an
// updateOne with a sort, an upsert, a deleteMany, and a duplicate key
// reported for its operation while the unordered rest goes on.
func TestDriverClientBulkWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	client := e.client(t, false)
	writes := []mongo.ClientBulkWrite{
		{Database: "app", Collection: "a", Model: mongo.NewClientInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 1}})},
		{Database: "app", Collection: "a", Model: mongo.NewClientInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 2}, {Key: "v", Value: 2}})},
		{Database: "logs", Collection: "b", Model: mongo.NewClientInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: "x"}})},
		{Database: "app", Collection: "a", Model: mongo.NewClientUpdateOneModel().SetFilter(bson.D{}).SetSort(bson.D{{Key: "v", Value: -1}}).
			SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "top", Value: true}}}})},
		{Database: "app", Collection: "a", Model: mongo.NewClientUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: 3}}).
			SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: 3}}}}).SetUpsert(true)},
		{Database: "app", Collection: "a", Model: mongo.NewClientInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 1}})},
		{Database: "logs", Collection: "b", Model: mongo.NewClientDeleteManyModel().SetFilter(bson.D{})},
	}
	res, err := client.BulkWrite(ctx, writes, options.ClientBulkWrite().SetOrdered(false).SetVerboseResults(true))
	var bwe mongo.ClientBulkWriteException
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[5].Code != 11000 {
		t.Fatalf("bulk write: %v, want one duplicate key at 5", err)
	}
	if res == nil {
		res = bwe.PartialResult
	}
	if res.InsertedCount != 3 || res.MatchedCount != 1 || res.ModifiedCount != 1 || res.UpsertedCount != 1 || res.DeletedCount != 1 ||
		res.UpdateResults[4].UpsertedID != int32(3) {
		t.Fatalf("result: %+v", res)
	}
	var top bson.M
	if err := client.Database("app").Collection("a").FindOne(ctx, bson.D{{Key: "top", Value: true}}).Decode(&top); err != nil || fmt.Sprint(top["_id"]) != "2" {
		t.Fatalf("updateOne with sort: %v, %v", top, err)
	}
}

func TestDriverTTLExpiry(t *testing.T) {
	t.Parallel()
	transports(t, func(t *testing.T, inproc bool) {
		e := newEnv(t, Options{})
		ctx := context.Background()
		db := e.client(t, inproc).Database("app")
		coll := db.Collection("sessions")
		name, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}},
			Options: options.Index().SetExpireAfterSeconds(60)})
		if err != nil || name != "at_1" {
			t.Fatalf("createIndex: %q %v", name, err)
		}
		now := e.clock.Now()
		coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: "old"}, {Key: "at", Value: now.Add(-2 * time.Minute)}},
			bson.D{{Key: "_id", Value: "new"}, {Key: "at", Value: now}}})
		if err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "runTTLPass", Value: 1}}).Err(); err != nil {
			t.Fatal(err)
		}
		if n, _ := coll.CountDocuments(ctx, bson.D{}); n != 1 {
			t.Fatalf("after the first pass %d documents, want 1", n)
		}
		// collMod lengthens the TTL; time passes; the second expires later.
		if err := db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "sessions"}, {Key: "index", Value: bson.D{
			{Key: "keyPattern", Value: bson.D{{Key: "at", Value: 1}}}, {Key: "expireAfterSeconds", Value: 3600}}}}).Err(); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(30 * time.Minute)
		db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "runTTLPass", Value: 1}})
		if n, _ := coll.CountDocuments(ctx, bson.D{}); n != 1 {
			t.Fatalf("after 30 min with a 1 h TTL %d documents, want 1", n)
		}
		e.clock.Advance(31 * time.Minute)
		db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "runTTLPass", Value: 1}})
		if n, _ := coll.CountDocuments(ctx, bson.D{}); n != 0 {
			t.Fatalf("after 61 min %d documents, want 0", n)
		}
		// A bad expireAfterSeconds is a CommandError with MongoDB's code.
		_, err = coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "b", Value: 1}},
			Options: options.Index().SetExpireAfterSeconds(-5)})
		if c := cmdCode(t, err); c != 67 && c != 2 {
			t.Fatalf("negative expireAfterSeconds: code %d", c)
		}
	})
}

func TestDriverTimeseriesAndCapped(t *testing.T) {
	t.Parallel()
	transports(t, func(t *testing.T, inproc bool) {
		e := newEnv(t, Options{})
		ctx := context.Background()
		db := e.client(t, inproc).Database("app")
		err := db.CreateCollection(ctx, "weather", options.CreateCollection().
			SetTimeSeriesOptions(options.TimeSeries().SetTimeField("ts").SetMetaField("sensor")).SetExpireAfterSeconds(3600))
		if err != nil {
			t.Fatal(err)
		}
		now := e.clock.Now()
		w := db.Collection("weather")
		if _, err := w.InsertMany(ctx, []any{bson.D{{Key: "ts", Value: now.Add(-2 * time.Hour)}, {Key: "sensor", Value: "a"}, {Key: "t", Value: 1}},
			bson.D{{Key: "ts", Value: now}, {Key: "sensor", Value: "a"}, {Key: "t", Value: 2}}}); err != nil {
			t.Fatal(err)
		}
		db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "runTTLPass", Value: 1}})
		if n, err := w.CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
			t.Fatalf("time-series after expiry: %d %v", n, err)
		}
		err = db.CreateCollection(ctx, "log", options.CreateCollection().SetCapped(true).SetSizeInBytes(4096).SetMaxDocuments(3))
		if err != nil {
			t.Fatal(err)
		}
		lc := db.Collection("log")
		for i := range 5 {
			if _, err := lc.InsertOne(ctx, bson.D{{Key: "i", Value: i}}); err != nil {
				t.Fatal(err)
			}
		}
		cur, err := lc.Find(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		var got []bson.M
		cur.All(ctx, &got)
		if len(got) != 3 || got[0]["i"] != int32(2) {
			t.Fatalf("capped holds %v", got)
		}
		// Deleting from a capped collection: MongoDB refuses? ttlkv's
		// engine decides; the code must come through as the driver's error.
		err = db.CreateCollection(ctx, "log", options.CreateCollection().SetCapped(true).SetSizeInBytes(8192))
		if cmdCode(t, err) != 48 {
			t.Fatalf("create with other options: %v", err)
		}
	})
}

func TestDriverTailableAwait(t *testing.T) {
	t.Parallel()
	transports(t, func(t *testing.T, inproc bool) {
		e := newEnv(t, Options{})
		ctx := context.Background()
		reader := e.client(t, inproc).Database("app")
		writer := e.client(t, inproc).Database("app").Collection("events")
		if err := reader.CreateCollection(ctx, "events", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
			t.Fatal(err)
		}
		writer.InsertOne(ctx, bson.D{{Key: "i", Value: 0}})
		cur, err := reader.Collection("events").Find(ctx, bson.D{}, options.Find().
			SetCursorType(options.TailableAwait).SetMaxAwaitTime(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		defer cur.Close(ctx)
		const n = 5
		go func() {
			for i := 1; i <= n; i++ {
				writer.InsertOne(ctx, bson.D{{Key: "i", Value: i}})
			}
		}()
		deadline, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		seen := 0
		for seen <= n && cur.Next(deadline) {
			var d struct{ I int32 }
			cur.Decode(&d)
			if int(d.I) != seen {
				t.Fatalf("tailed i=%d, want %d", d.I, seen)
			}
			seen++
		}
		if seen != n+1 {
			t.Fatalf("tailed %d documents, want %d (err %v)", seen, n+1, cur.Err())
		}
	})
}

func TestDriverBulkWrites(t *testing.T) {
	t.Parallel()
	transports(t, func(t *testing.T, inproc bool) {
		e := newEnv(t, Options{})
		ctx := context.Background()
		coll := e.client(t, inproc).Database("app").Collection("bulk")
		models := []mongo.WriteModel{
			mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 1}}),
			mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 1}}),
			mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 2}}),
			mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: 2}}).SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}),
			mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "_id", Value: 1}}),
		}
		_, err := coll.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(true))
		var be mongo.BulkWriteException
		if !errors.As(err, &be) || len(be.WriteErrors) != 1 || be.WriteErrors[0].Index != 1 || be.WriteErrors[0].Code != 11000 {
			t.Fatalf("ordered bulk: %v", err)
		}
		if n, _ := coll.CountDocuments(ctx, bson.D{}); n != 1 {
			t.Fatalf("ordered bulk stopped at the error: %d documents, want 1", n)
		}
		coll.Drop(ctx)
		res, err := coll.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
		if !errors.As(err, &be) || len(be.WriteErrors) != 1 {
			t.Fatalf("unordered bulk: %v", err)
		}
		if res == nil || res.InsertedCount != 2 || res.ModifiedCount != 1 || res.DeletedCount != 1 {
			t.Fatalf("unordered bulk result %+v", res)
		}
	})
}

func TestDriverWriteConcern(t *testing.T) {
	t.Parallel()
	transports(t, func(t *testing.T, inproc bool) {
		e := newEnv(t, Options{})
		ctx := context.Background()
		db := e.client(t, inproc).Database("app")
		w0 := db.Collection("wc", options.Collection().SetWriteConcern(writeconcern.Unacknowledged()))
		for i := range 20 {
			if _, err := w0.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
				t.Fatal(err)
			}
		}
		j := db.Collection("wc", options.Collection().SetWriteConcern(writeconcern.Journaled()))
		if _, err := j.InsertOne(ctx, bson.D{{Key: "_id", Value: "j"}}); err != nil {
			t.Fatal(err)
		}
		maj := db.Collection("wc", options.Collection().SetWriteConcern(writeconcern.Majority()))
		if _, err := maj.InsertOne(ctx, bson.D{{Key: "_id", Value: "m"}}); err != nil {
			t.Fatal(err)
		}
		// The acknowledged writes come after the unacknowledged ones on
		// the same pool, but another connection may have carried them:
		// wait until all 22 are seen, bounded.
		var n int64
		for range 200 {
			if n, _ = db.Collection("wc").CountDocuments(ctx, bson.D{}); n == 22 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if n != 22 {
			t.Fatalf("%d documents, want 22", n)
		}
		w3 := db.Collection("wc", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: 3}))
		_, err := w3.InsertOne(ctx, bson.D{{Key: "_id", Value: "w3"}})
		if cmdCode(t, err) != 2 {
			t.Fatalf("w:3 on a standalone: %v", err)
		}
	})
}

func TestDriverSessionsAndTransactions(t *testing.T) {
	t.Parallel()
	transports(t, func(t *testing.T, inproc bool) {
		e := newEnv(t, Options{})
		ctx := context.Background()
		client := e.client(t, inproc)
		coll := client.Database("app").Collection("tx")
		sess, err := client.StartSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.EndSession(ctx)
		// An explicit session without a transaction works.
		err = mongo.WithSession(ctx, sess, func(sc context.Context) error {
			_, err := coll.InsertOne(sc, bson.D{{Key: "x", Value: 1}})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
			return coll.InsertOne(sc, bson.D{{Key: "x", Value: 2}})
		})
		if err == nil || cmdCode(t, err) != 20 || !strings.Contains(err.Error(), "Transaction numbers are only allowed") {
			t.Fatalf("transaction on a standalone: %v", err)
		}
		var r bson.M
		if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "startSession", Value: 1}}).Decode(&r); err != nil || r["id"] == nil {
			t.Fatalf("startSession: %v %v", r, err)
		}
		if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "refreshSessions", Value: bson.A{}}}).Err(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestDriverCompression(t *testing.T) {
	t.Parallel()
	for _, comp := range []string{"zstd", "snappy", "zlib"} {
		t.Run(comp, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, Options{})
			ctx := context.Background()
			coll := e.client(t, false, func(o *options.ClientOptions) { o.SetCompressors([]string{comp}) }).Database("app").Collection("c")
			big := strings.Repeat("compressible ", 1000)
			for i := range 10 {
				if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "s", Value: big}}); err != nil {
					t.Fatal(err)
				}
			}
			cur, err := coll.Find(ctx, bson.D{})
			if err != nil {
				t.Fatal(err)
			}
			var all []bson.M
			if err := cur.All(ctx, &all); err != nil || len(all) != 10 || all[9]["s"] != big {
				t.Fatalf("find: %d %v", len(all), err)
			}
			st := e.srv.Stats()
			if st.BytesIn > 10*int64(len(big)) {
				t.Fatalf("%d bytes in for 10 documents of %d bytes: not compressed", st.BytesIn, len(big))
			}
		})
	}
}

func TestDriverServerStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	client := e.client(t, false)
	client.Database("app").Collection("c").InsertOne(ctx, bson.D{{Key: "a", Value: 1}})
	var st struct {
		Connections struct{ Current, TotalCreated int32 }
		Opcounters  struct{ Insert, Command int64 }
		Network     struct{ BytesIn, NumRequests int64 }
		Version     string
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if st.Connections.Current < 1 || st.Opcounters.Insert != 1 || st.Network.NumRequests < 2 || st.Network.BytesIn == 0 {
		t.Fatalf("serverStatus %+v", st)
	}
	var bi struct{ Version string }
	client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&bi)
	if bi.Version != claimedVersion {
		t.Fatalf("buildInfo version %q", bi.Version)
	}
	// serverStatus claims the same version (mongostat shows it), with
	// ttlkv's own beside it.
	var sv struct {
		Version      string `bson:"version"`
		TtlkvVersion string `bson:"ttlkvVersion"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&sv); err != nil ||
		sv.Version != claimedVersion || sv.TtlkvVersion != engine.Version {
		t.Fatalf("serverStatus versions %+v, %v", sv, err)
	}
}

// TestFindOneByID covers the _id fast path against the command path:
// the same answers for present and missing documents, other id types,
// a missing collection, a capped and a time-series collection.
func TestFindOneByID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	db := e.client(t, true).Database("app")
	oid := bson.NewObjectID()
	db.Collection("c").InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: "int"}},
		bson.D{{Key: "_id", Value: "s"}, {Key: "v", Value: "string"}}, bson.D{{Key: "_id", Value: oid}, {Key: "v", Value: "oid"}},
		bson.D{{Key: "_id", Value: 2.0}, {Key: "v", Value: "double"}}})
	db.CreateCollection(ctx, "capped", options.CreateCollection().SetCapped(true).SetSizeInBytes(4096))
	db.Collection("capped").InsertOne(ctx, bson.D{{Key: "_id", Value: 7}, {Key: "v", Value: "capped"}})
	for _, c := range []struct {
		coll string
		id   any
		want string
	}{{"c", 1, "int"}, {"c", int64(1), "int"}, {"c", 1.0, "int"}, {"c", 2, "double"}, {"c", "s", "string"}, {"c", oid, "oid"},
		{"c", 99, ""}, {"nosuch", 1, ""}, {"capped", 7, "capped"}} {
		var got struct{ V string }
		err := db.Collection(c.coll).FindOne(ctx, bson.D{{Key: "_id", Value: c.id}}).Decode(&got)
		switch {
		case c.want == "" && !errors.Is(err, mongo.ErrNoDocuments):
			t.Errorf("%s %v: %v, want no document", c.coll, c.id, err)
		case c.want != "" && (err != nil || got.V != c.want):
			t.Errorf("%s %v: %q %v, want %q", c.coll, c.id, got.V, err, c.want)
		}
	}
}

// TestDriverSortSpill sorts past internalQueryMaxBlockingSortMemoryUsageBytes
// through the official driver: by default the sort spills to disk and
// every document comes back in order, across getMore; with the
// driver's SetAllowDiskUse(false) find and aggregate fail with 292.
func TestDriverSortSpill(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	cl := e.client(t, false)
	coll := cl.Database("app").Collection("events")
	var docs []any
	for i := range 400 {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "at", Value: (i * 7919) % 400}, {Key: "pad", Value: strings.Repeat("p", 200)}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "internalQueryMaxBlockingSortMemoryUsageBytes", Value: 8192}}).Err(); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "at", Value: -1}}).SetBatchSize(64))
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		At int `bson:"at"`
	}
	if err := cur.All(ctx, &got); err != nil || len(got) != 400 || got[0].At != 399 || got[399].At != 0 {
		t.Fatalf("a sort that spills: %d documents, %v", len(got), err)
	}
	for i := 1; i < len(got); i++ {
		if got[i].At > got[i-1].At {
			t.Fatalf("out of order at %d: %d after %d", i, got[i].At, got[i-1].At)
		}
	}
	_, err = coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "at", Value: 1}}).SetAllowDiskUse(false))
	if cmdCode(t, err) != 292 {
		t.Fatalf("find without disk: %v, want 292", err)
	}
	_, err = coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$sort", Value: bson.D{{Key: "at", Value: 1}}}}}, options.Aggregate().SetAllowDiskUse(false))
	if cmdCode(t, err) != 292 {
		t.Fatalf("aggregate without disk: %v, want 292", err)
	}
}

// TestDriverTop reads top through the driver, as mongotop does: a
// FindOne by _id (the server's fast path) and a Find are both counted.
func TestDriverTop(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	cl := e.client(t, false)
	coll := cl.Database("app").Collection("top")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Find(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	raw, err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "top", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	queries, _ := raw.Lookup("totals", "app.top", "queries", "count").AsInt64OK()
	inserts, _ := raw.Lookup("totals", "app.top", "insert", "count").AsInt64OK()
	if queries != 2 || inserts != 1 {
		t.Fatalf("top counts %d queries and %d inserts, want 2 and 1: %v", queries, inserts, raw)
	}
	// $indexStats: the FindOne used the _id index, the Find scanned.
	cur, err := coll.Aggregate(ctx, bson.A{bson.D{{Key: "$indexStats", Value: bson.D{}}}})
	if err != nil {
		t.Fatal(err)
	}
	var ix []struct {
		Name     string `bson:"name"`
		Accesses struct {
			Ops int64 `bson:"ops"`
		} `bson:"accesses"`
	}
	if err := cur.All(ctx, &ix); err != nil || len(ix) != 1 || ix[0].Name != "_id_" || ix[0].Accesses.Ops != 1 {
		t.Fatalf("$indexStats: %+v, %v", ix, err)
	}
}

// A hashed index through the driver: created with the driver's index
// model, used by an equality, and an array on its field refused with
// 16766 while the rest of an unordered insertMany goes in.
func TestDriverHashedIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	cl := e.client(t, false)
	coll := cl.Database("app").Collection("users")
	name, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "tenant", Value: "hashed"}}})
	if err != nil || name != "tenant_hashed" {
		t.Fatalf("createIndex: %q, %v", name, err)
	}
	_, err = coll.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "tenant", Value: "a"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "tenant", Value: bson.A{"a"}}},
		bson.D{{Key: "_id", Value: 3}, {Key: "tenant", Value: "b"}},
	}, options.InsertMany().SetOrdered(false))
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Code != 16766 || bwe.WriteErrors[0].Index != 1 {
		t.Fatalf("insertMany with an array: %v", err)
	}
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "tenant", Value: "b"}})
	if err != nil || n != 1 {
		t.Fatalf("count tenant b: %d, %v", n, err)
	}
	var plan struct {
		QueryPlanner struct {
			WinningPlan struct {
				InputStage struct {
					IndexName string `bson:"indexName"`
				} `bson:"inputStage"`
			} `bson:"winningPlan"`
		} `bson:"queryPlanner"`
	}
	err = cl.Database("app").RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "users"}, {Key: "filter", Value: bson.D{{Key: "tenant", Value: "a"}}}}}}).Decode(&plan)
	if err != nil {
		t.Fatal(err)
	}
	if ix := plan.QueryPlanner.WinningPlan.InputStage.IndexName; ix != "tenant_hashed" {
		t.Fatalf("find tenant a planned on %q", ix)
	}
}

// An index over two fields of an array of sub-documents, the shape of
// an order's items: mongod keys them element by element, and the Go
// driver's inserts, finds and $elemMatch read them back as from mongod.
func TestDriverArrayOfSubdocumentsIndex(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	coll := e.client(t, false).Database("shop").Collection("orders")
	name, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "items.sku", Value: 1}, {Key: "items.qty", Value: -1}}})
	if err != nil || name != "items.sku_1_items.qty_-1" {
		t.Fatalf("createIndex: %q, %v", name, err)
	}
	item := func(sku string, qty int) bson.D { return bson.D{{Key: "sku", Value: sku}, {Key: "qty", Value: qty}} }
	_, err = coll.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "items", Value: bson.A{item("pen", 1), item("ink", 9)}}},
		bson.D{{Key: "_id", Value: 2}, {Key: "items", Value: bson.A{item("pen", 9)}}},
		bson.D{{Key: "_id", Value: 3}, {Key: "items", Value: bson.A{bson.D{{Key: "sku", Value: bson.A{"a", "b"}}, {Key: "qty", Value: bson.A{1, 2}}}}}},
		bson.D{{Key: "_id", Value: 4}, {Key: "items", Value: bson.A{bson.D{{Key: "sku", Value: "pad"}}}}},
	}, options.InsertMany().SetOrdered(false))
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Code != 171 || bwe.WriteErrors[0].Index != 2 {
		t.Fatalf("insertMany: %v (want only document 3 refused, 171)", err)
	}
	ids := func(filter bson.D) string {
		t.Helper()
		cur, err := coll.Find(ctx, filter, options.Find().SetHint("items.sku_1_items.qty_-1").SetSort(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		var got []bson.M
		if err := cur.All(ctx, &got); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range got {
			out = append(out, fmt.Sprint(d["_id"]))
		}
		return strings.Join(out, ",")
	}
	// pen and qty 9 in different items of order 1: the filter matches it,
	// $elemMatch does not.
	if got := ids(bson.D{{Key: "items.sku", Value: "pen"}, {Key: "items.qty", Value: 9}}); got != "1,2" {
		t.Errorf("sku pen, qty 9: %s, want 1,2", got)
	}
	if got := ids(bson.D{{Key: "items", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "sku", Value: "pen"}, {Key: "qty", Value: 9}}}}}}); got != "2" {
		t.Errorf("$elemMatch sku pen, qty 9: %s, want 2", got)
	}
	if got := ids(bson.D{{Key: "items.qty", Value: nil}, {Key: "items.sku", Value: "pad"}}); got != "4" {
		t.Errorf("sku pad without qty: %s, want 4", got)
	}
}

// Text search through the Go driver: an index made with the driver's
// text options, $text with a score projected and sorted on, and the
// same through an aggregation, as an application written for mongod
// asks them.
func TestDriverTextSearch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	coll := e.client(t, false).Database("blog").Collection("posts")
	_, err := coll.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "title", Value: "Brewing coffee"}, {Key: "body", Value: "Grind the beans."}},
		bson.D{{Key: "_id", Value: 2}, {Key: "title", Value: "Tea time"}, {Key: "body", Value: "Coffee is fine too."}},
		bson.D{{Key: "_id", Value: 3}, {Key: "title", Value: "Café"}, {Key: "body", Value: "Un café noir."}, {Key: "lang", Value: "french"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	name, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys:    bson.D{{Key: "title", Value: "text"}, {Key: "body", Value: "text"}},
		Options: options.Index().SetWeights(bson.D{{Key: "title", Value: 3}}).SetDefaultLanguage("english").SetLanguageOverride("lang"),
	})
	if err != nil || name != "title_text_body_text" {
		t.Fatalf("createIndex: %q, %v", name, err)
	}
	type hit struct {
		ID    int     `bson:"_id"`
		Score float64 `bson:"score"`
	}
	score := bson.D{{Key: "score", Value: bson.D{{Key: "$meta", Value: "textScore"}}}}
	cur, err := coll.Find(ctx, bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: "coffee"}}}},
		options.Find().SetProjection(score).SetSort(score))
	if err != nil {
		t.Fatal(err)
	}
	var hits []hit
	if err := cur.All(ctx, &hits); err != nil {
		t.Fatal(err)
	}
	// title weight 3: "Brewing coffee" 3 x 0.75; body "Coffee is fine
	// too." 1 x 0.75 (is and too are stop words).
	if len(hits) != 2 || hits[0].ID != 1 || hits[0].Score != 2.25 || hits[1].ID != 2 || hits[1].Score != 0.75 {
		t.Fatalf("coffee: %+v", hits)
	}
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: "cafe"}, {Key: "$language", Value: "fr"}}}})
	if err != nil || n != 1 {
		t.Fatalf("count café in French: %d, %v", n, err)
	}
	acur, err := coll.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: "beans -tea"}}}}}},
		{{Key: "$project", Value: score}},
	})
	if err != nil {
		t.Fatal(err)
	}
	hits = nil
	if err := acur.All(ctx, &hits); err != nil || len(hits) != 1 || hits[0].ID != 1 {
		t.Fatalf("aggregate beans -tea: %+v, %v", hits, err)
	}
	// Under an $or, ttlkv refuses $text (291; docs/text.md).
	err = coll.FindOne(ctx, bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: "x"}}}}, bson.D{{Key: "a", Value: 1}}}}}).Err()
	if code := cmdCode(t, err); code != 291 {
		t.Fatalf("$text under an $or: %v", err)
	}
}

// The filtered positional operator through the Go driver's
// ArrayFilters option, in UpdateMany and FindOneAndUpdate.
func TestDriverArrayFilters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	coll := e.client(t, false).Database("school").Collection("students")
	_, err := coll.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "grades", Value: bson.A{95, 92, 90}}},
		bson.D{{Key: "_id", Value: 2}, {Key: "grades", Value: bson.A{98, 100, 102}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := coll.UpdateMany(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "grades.$[g]", Value: 100}}}},
		options.UpdateMany().SetArrayFilters([]any{bson.D{{Key: "g", Value: bson.D{{Key: "$gte", Value: 100}}}}}))
	if err != nil || res.ModifiedCount != 1 {
		t.Fatalf("updateMany: %+v, %v", res, err)
	}
	var got struct {
		Grades []int `bson:"grades"`
	}
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 2}}).Decode(&got); err != nil || fmt.Sprint(got.Grades) != "[98 100 100]" {
		t.Fatalf("student 2: %v, %v", got.Grades, err)
	}
	err = coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "grades.$[low]", Value: 5}}}},
		options.FindOneAndUpdate().SetArrayFilters([]any{bson.D{{Key: "low", Value: bson.D{{Key: "$lt", Value: 93}}}}}).SetReturnDocument(options.After)).Decode(&got)
	if err != nil || fmt.Sprint(got.Grades) != "[95 97 95]" {
		t.Fatalf("findOneAndUpdate: %v, %v", got.Grades, err)
	}
}

// Places that expire, through the Go driver: vehicles report positions
// into a collection with a 2dsphere index and a TTL index; $near finds
// the nearest live ones with a distance bound in meters, $geoWithin a
// $centerSphere in radians, $geoNear gives distances, a bad position is
// refused with mongod's code while the rest of an unordered batch is
// kept, and a TTL pass takes old positions out of every answer.
func TestDriverGeo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	coll := e.client(t, false).Database("fleet").Collection("positions")
	if _, err := coll.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "at", Value: "2dsphere"}}},
		{Keys: bson.D{{Key: "seen", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(60)},
	}); err != nil {
		t.Fatal(err)
	}
	point := func(lng, lat float64) bson.D {
		return bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{lng, lat}}}
	}
	now := e.clock.Now()
	_, err := coll.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "old"}, {Key: "at", Value: point(2.2950, 48.8740)}, {Key: "seen", Value: now.Add(-time.Hour)}},
		bson.D{{Key: "_id", Value: "arc"}, {Key: "at", Value: point(2.2945, 48.8738)}, {Key: "seen", Value: now}},
		bson.D{{Key: "_id", Value: "tower"}, {Key: "at", Value: point(2.2945, 48.8584)}, {Key: "seen", Value: now}},
		bson.D{{Key: "_id", Value: "bad"}, {Key: "at", Value: point(48.87, 120)}, {Key: "seen", Value: now}},
		bson.D{{Key: "_id", Value: "lyon"}, {Key: "at", Value: point(4.8357, 45.7640)}, {Key: "seen", Value: now}},
	}, options.InsertMany().SetOrdered(false))
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Code != 16755 || bwe.WriteErrors[0].Index != 3 {
		t.Fatalf("insert with a latitude of 120: %v", err)
	}
	near := func() []string {
		t.Helper()
		cur, err := coll.Find(ctx, bson.D{{Key: "at", Value: bson.D{{Key: "$near", Value: bson.D{
			{Key: "$geometry", Value: point(2.2950, 48.8738)}, {Key: "$maxDistance", Value: 5000}}}}}})
		if err != nil {
			t.Fatal(err)
		}
		var got []struct {
			ID string `bson:"_id"`
		}
		if err := cur.All(ctx, &got); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, g := range got {
			ids = append(ids, g.ID)
		}
		return ids
	}
	if got := strings.Join(near(), ","); got != "old,arc,tower" {
		t.Fatalf("$near within 5 km: %s", got)
	}
	// 300 km from the Arc, in radians of the Earth's 6378.1 km.
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "at", Value: bson.D{{Key: "$geoWithin", Value: bson.D{
		{Key: "$centerSphere", Value: bson.A{bson.A{2.2945, 48.8738}, 300 / 6378.1}}}}}}})
	if err != nil || n != 3 {
		t.Fatalf("count within 300 km: %d, %v", n, err)
	}
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$geoNear", Value: bson.D{{Key: "near", Value: point(2.2945, 48.8584)}, {Key: "distanceField", Value: "meters"},
			{Key: "query", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$ne", Value: "old"}}}}}}}},
		{{Key: "$project", Value: bson.D{{Key: "meters", Value: bson.D{{Key: "$round", Value: bson.A{"$meters", -3}}}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var dists []struct {
		ID     string  `bson:"_id"`
		Meters float64 `bson:"meters"`
	}
	if err := cur.All(ctx, &dists); err != nil {
		t.Fatal(err)
	}
	// Tower to Arc is 1.7 km; to Lyon, 394 km on a sphere of 6378.1 km.
	if len(dists) != 3 || dists[0].ID != "tower" || dists[0].Meters != 0 || dists[1].Meters != 2000 || dists[2].ID != "lyon" || dists[2].Meters != 394000 {
		t.Fatalf("$geoNear: %+v", dists)
	}
	err = coll.FindOne(ctx, bson.D{{Key: "seen", Value: bson.D{{Key: "$near", Value: bson.A{0, 0}}}}}).Err()
	if code := cmdCode(t, err); code != 291 {
		t.Fatalf("$near without a geo index: %v", err)
	}
	e.clock.Advance(30 * time.Second)
	if err := coll.Database().Client().Database("admin").RunCommand(ctx, bson.D{{Key: "runTTLPass", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(near(), ","); got != "arc,tower" {
		t.Fatalf("$near after the old position expired: %s", got)
	}
}
