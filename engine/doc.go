// Package engine is ttlkv's database: documents kept in Badger with
// MongoDB's data-expiry features — TTL indexes and the TTL monitor,
// time-series collections with expiring buckets, and capped
// collections — behind MongoDB's command shapes, limits and error codes.
//
// # Using it
//
// Open a data directory, then use either the Go API, shaped like the
// official driver's, or database commands:
//
//	db, err := engine.Open("/var/lib/myapp", engine.Options{})
//	if err != nil { ... }
//	defer db.Close()
//	events := db.Database("app").Collection("events")
//	events.CreateIndex(ctx, engine.IndexModel{
//		Keys:    bson.D{{Key: "createdAt", Value: 1}},
//		Options: bson.D{{Key: "expireAfterSeconds", Value: 3600}},
//	})
//	events.InsertOne(ctx, bson.D{{Key: "createdAt", Value: bson.NewDateTimeFromTime(time.Now())}})
//	reply, err := db.RunCommand(ctx, "app", bson.D{{Key: "find", Value: "events"}})
//
// Every user mistake returns an *Error carrying MongoDB's code and code
// name (errors.As); RunCommand also renders it as {ok: 0, errmsg, code,
// codeName}.
//
// # What "expired" means
//
// A document expires when the date in its TTL-indexed field (the
// earliest date, for an array) is at or before now − expireAfterSeconds.
// As in MongoDB, an expired document stays visible until the TTL
// monitor deletes it: the monitor runs every ttlMonitorSleepSecs (60 by
// default; SetParameter changes it at once), or when RunTTLPass is
// called. Time is read from Options.Clock, so tests control it exactly.
//
// The monitor visits every TTL index in turn, deleting at most
// ttlIndexDeleteTargetDocs documents or for ttlIndexDeleteTargetTimeMS
// per visit, so one huge index never starves a small one. Each document
// is re-read and re-checked inside the batch that deletes it: a
// concurrent update or collMod never loses a live document.
//
// # Durability
//
// By default an acknowledged write survives a crash of the process
// (kill -9); Options.SyncWrites makes every commit fsync so it also
// survives power loss, at the cost of one disk flush per commit. One
// process may open a data directory at a time.
package engine
