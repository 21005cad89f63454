package fuzz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// commandSeeds are FuzzCommand's built-in seeds (the committed corpus
// under testdata/fuzz/FuzzCommand holds more): each is a script of
// commands, one Extended JSON document per line; a line starting with
// "admin " runs on the admin database.
var commandSeeds = []string{
	`{"ping": 1}`,
	`{"createIndexes": "g", "indexes": [{"key": {"loc": "2dsphere", "k": 1}, "name": "loc"}, {"key": {"p": "2d"}, "name": "p", "bits": 8}, {"key": {"k": 1, "attrs.$**": 1}, "name": "cw"}]}
{"insert": "g", "documents": [{"_id": 1, "loc": {"type": "Point", "coordinates": [1, 2]}, "p": [1, 1], "k": 1, "attrs": {"a": [1, {"b": 2}]}}, {"_id": 2, "loc": {"type": "Polygon", "coordinates": [[[0, 0], [3, 0], [3, 3], [0, 0]]]}, "p": [[5, 5], [6, 6]]}], "ordered": false}
{"find": "g", "filter": {"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$maxDistance": 500000}}}, "limit": 1, "projection": {"d": {"$meta": "geoNearDistance"}}}
{"find": "g", "filter": {"p": {"$geoWithin": {"$box": [[0, 0], [5, 5]]}}, "loc": {"$geoIntersects": {"$geometry": {"type": "LineString", "coordinates": [[0, 0], [2, 2]]}}}}}
{"aggregate": "g", "pipeline": [{"$geoNear": {"near": [0, 0], "distanceField": "d", "key": "p", "includeLocs": "at"}}], "cursor": {}}
{"update": "g", "updates": [{"q": {"p": {"$near": [0, 0]}}, "u": {"$set": {"p": [200, 0]}}}]}
{"find": "g", "filter": {"k": 1, "attrs.a.b": {"$gte": 2}}}
{"validate": "g"}`,
	`{"createIndexes": "h", "indexes": [{"key": {"a": "hashed", "b": 1}, "name": "ah"}, {"key": {"$**": 1}, "name": "w", "wildcardProjection": {"a": 0, "c": {"d": 0}}}]}
{"insert": "h", "documents": [{"_id": 1, "a": {"x": [1]}, "b": [1, 2], "c": {"d": 1, "e": [[1], {}]}}, {"_id": 2, "a": 2.5, "c": []}]}
{"find": "h", "filter": {"a": {"$in": [2, "x", null]}, "c.e": {"$gt": 0}}}
{"update": "h", "updates": [{"q": {"c.e": {}}, "u": {"$set": {"a": [1]}}}]}
{"aggregate": "h", "pipeline": [{"$project": {"k": {"$toHashedIndexKey": "$c"}}}], "cursor": {}}`,
	`{"insert": "c", "documents": [{"_id": 1, "t": {"$date": "2026-01-01T00:00:00Z"}}, {"_id": 2, "a": [1, 2, {"b": 3}]}]}
{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 0}]}
{"find": "c", "filter": {"t": {"$lte": {"$date": "2030-01-01T00:00:00Z"}}}, "sort": {"t": -1}}`,
	`{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b": -1}, "name": "ab", "unique": true}]}
{"insert": "c", "documents": [{"a": 1, "b": 1}, {"a": 1, "b": 1}], "ordered": false}
{"update": "c", "updates": [{"q": {"a": 1}, "u": {"$set": {"b": 2}, "$inc": {"n": 1}}, "multi": true}]}
{"delete": "c", "deletes": [{"q": {"b": {"$gt": 0}}, "limit": 0}]}`,
	`{"insert": "c", "documents": [{"x": {"$numberDecimal": "1.5"}, "y": {"$numberLong": "9223372036854775807"}}]}
{"update": "c", "updates": [{"q": {}, "u": {"$push": {"arr": {"$each": [3, 1, 2], "$sort": 1, "$slice": -2}}}, "upsert": true}]}
{"findAndModify": "c", "query": {}, "update": {"$unset": {"x": ""}}, "new": true}`,
	`{"create": "c"}
{"createIndexes": "c", "indexes": [{"key": {"e": 1}, "name": "e_1"}]}
{"collMod": "c", "index": {"name": "e_1", "expireAfterSeconds": 60}}
{"collMod": "c", "index": {"keyPattern": {"e": 1}, "hidden": true}}
{"dropIndexes": "c", "index": "*"}`,
	`{"createIndexes": "c", "indexes": [{"key": {"e": -1}, "name": "e", "expireAfterSeconds": 3600.9, "partialFilterExpression": {"k": {"$exists": true}}}]}
{"insert": "c", "documents": [{"e": [{"$date": "1960-01-01T00:00:00Z"}, "x"], "k": 1}, {"e": {"$date": "2099-01-01T00:00:00Z"}}]}
{"explain": {"delete": "c", "deletes": [{"q": {"e": {"$lt": {"$date": "2000-01-01T00:00:00Z"}}}, "limit": 0}]}, "verbosity": "executionStats"}`,
	`admin {"setParameter": 1, "ttlMonitorSleepSecs": 5, "batchedDeletesTargetBatchDocs": 1}
admin {"getParameter": "*"}
{"insert": "c", "documents": [{"_id": {"$oid": "65a1b2c3d4e5f60718293a4b"}, "r": {"$regularExpression": {"pattern": "^a", "options": "i"}}}]}
{"find": "c", "filter": {"r": {"$type": "regex"}}, "projection": {"_id": 0}, "batchSize": 1}
{"getMore": {"$numberLong": "1"}, "collection": "c"}`,
	`{"insert": "c", "documents": [{"_id": [1]}]}
{"insert": "c", "documents": [{"a": {"$undefined": true}}]}
{"count": "c", "query": {"$where": "1"}}
{"listCollections": 1}
{"validate": "c"}
{"drop": "c"}
admin {"listDatabases": 1}
{"dropDatabase": 1}`,
	`{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 10}
{"create": "cap", "capped": true, "size": 4096, "max": 3}
{"convertToCapped": "c", "size": 100000}
{"serverStatus": 1}
{"currentOp": 1}
admin {"currentOp": 1, "$all": true, "desc": "TTLMonitor", "op": {"$in": ["remove"]}, "ns": {"$regex": "^test\\."}}`, `{"create": "cap", "capped": true, "size": 4096, "max": 5}
{"insert": "cap", "documents": [{"_id": 1, "s": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, {"_id": 2}, {"_id": 3}, {"_id": 4}, {"_id": 5}, {"_id": 6}, {"_id": 7}]}
{"find": "cap", "filter": {}, "tailable": true, "awaitData": true, "batchSize": 2}
{"getMore": {"$numberLong": "1"}, "collection": "cap", "maxTimeMS": 1}
{"find": "cap", "sort": {"$natural": -1}}
{"update": "cap", "updates": [{"q": {"_id": 3}, "u": {"$set": {"x": 1}}}]}
{"delete": "cap", "deletes": [{"q": {}, "limit": 0}]}
{"collStats": "cap"}
{"validate": "cap"}`,
	`{"insert": "c", "documents": [{"_id": 1, "v": 1}, {"_id": 2, "v": "two"}, {"_id": 3, "v": [3]}]}
{"convertToCapped": "c", "size": 4096}
{"find": "c", "tailable": true, "filter": {"_id": {"$gt": 1}}}
{"insert": "c", "documents": [{"_id": 1}]}
{"createIndexes": "c", "indexes": [{"key": {"v": 1}, "name": "v_1"}]}
{"drop": "c"}`,
	`{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 60, "bucketRoundingSeconds": 60}, "expireAfterSeconds": 30}
{"insert": "ts", "documents": [{"t": {"$date": "2026-01-01T00:00:00Z"}, "m": {"s": 1}, "v": 1.5}, {"t": {"$date": "1969-12-31T23:59:59Z"}, "m": "b"}, {"t": "bad"}], "ordered": false}
{"find": "ts", "filter": {"t": {"$gte": {"$date": "2025-12-31T23:59:00Z"}}, "m.s": 1}, "sort": {"t": -1}}
{"createIndexes": "ts", "indexes": [{"key": {"t": 1}, "name": "t_ttl", "expireAfterSeconds": 5, "partialFilterExpression": {"m": "b"}}, {"key": {"m": 1, "t": -1}, "name": "mt"}]}
{"collMod": "ts", "timeseries": {"granularity": "minutes"}}
{"collMod": "ts", "expireAfterSeconds": "off"}
{"delete": "ts", "deletes": [{"q": {"m": "b"}, "limit": 0}]}
{"aggregate": "ts", "pipeline": [{"$match": {}}, {"$group": {"_id": {"$dateTrunc": {"date": "$t", "unit": "minute", "binSize": 5}}, "n": {"$sum": 1}, "avg": {"$avg": "$v"}}}, {"$sort": {"_id": -1}}], "cursor": {}}
{"aggregate": "ts", "pipeline": [{"$unwind": {"path": "$m", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true}}, {"$project": {"x": {"$concat": [{"$toString": "$v"}, "$m"]}, "y": {"$cond": [{"$gt": ["$v", 1]}, {"$divide": [1, "$v"]}, "$$REMOVE"]}}}, {"$count": "n"}], "cursor": {"batchSize": 1}}
{"distinct": "ts", "key": "m.s"}
{"listCollections": 1, "filter": {"type": "timeseries"}}
{"collStats": "ts"}
{"validate": "ts"}`,
	`{"create": "cl", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}
{"createIndexes": "cl", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 0}, {"key": {"k": 1}, "name": "k_1"}]}
{"insert": "cl", "documents": [{"_id": "b", "t": {"$date": "2020-01-01T00:00:00Z"}, "k": [1, 2]}, {"_id": 1, "k": 3}, {"_id": "a", "t": [{"$date": "2099-01-01T00:00:00Z"}]}]}
{"update": "cl", "updates": [{"q": {"k": 3}, "u": {"$set": {"t": {"$date": "2001-01-01T00:00:00Z"}}}}]}
{"find": "cl", "filter": {}, "hint": {"$natural": -1}}
{"listIndexes": "cl"}
{"validate": "cl"}`,
	`{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}}
{"insert": "ts", "documents": [{"t": {"$date": "2026-01-01T00:00:00Z"}, "m": 1, "v": 1}]}
{"find": "system.buckets.ts", "sort": {"meta": 1}}
{"insert": "system.buckets.ts", "documents": [{"control": {"version": 1}, "meta": 2, "data": {"t": {"0": {"$date": "2026-01-01T00:00:00Z"}, "7": {"$date": "2026-01-01T00:00:01Z"}}, "v": {"7": 2}}}, {"control": {"version": 2}, "data": {"t": {"$binary": {"base64": "AA==", "subType": "07"}}}}], "ordered": false}
admin {"top": 1}
admin {"setParameter": 1, "internalQueryMaxBlockingSortMemoryUsageBytes": 100, "internalDocumentSourceGroupMaxMemoryBytes": 100}
{"find": "ts", "sort": {"v": 1}, "allowDiskUse": true}
{"aggregate": "ts", "pipeline": [{"$group": {"_id": "$v", "p": {"$push": "$$ROOT"}, "f": {"$firstN": {"input": "$v", "n": 2}}}}, {"$sort": {"_id": -1}}], "cursor": {}}
{"aggregate": "ts", "pipeline": [{"$sort": {"t": 1}}], "allowDiskUse": false, "cursor": {}}
{"aggregate": "ts", "pipeline": [{"$collStats": {"latencyStats": {"histograms": true}}}], "cursor": {}}
admin {"serverStatus": 1}`,
}

// commandDB is the database fuzzed commands run against.
const commandDB = "f"

// FuzzCommand parses each line of the input as Extended JSON and runs
// it as a command on a fresh in-memory engine, then runs a TTL pass
// with the clock far ahead. No input may panic, a failing command must
// return a typed *document.Error (a reply with ok 0 and its code), and every
// collection must validate at the end.
func FuzzCommand(f *testing.F) {
	for _, s := range commandSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, script []byte) {
		if len(script) > 64<<10 {
			return
		}
		// A hang is a failure too: crash with the input so that the
		// fuzzer records it.
		watchdog := time.AfterFunc(20*time.Second, func() {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			panic(fmt.Sprintf("FuzzCommand hung on %q\n%s", script, buf))
		})
		defer watchdog.Stop()
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		clock := func() time.Time { return now }
		db, err := engine.Open("", engine.Options{InMemory: true, DisableTTLMonitor: true, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ctx := context.Background()
		lines := bytes.Split(script, []byte("\n"))
		if len(lines) > 16 {
			lines = lines[:16]
		}
		for _, line := range lines {
			dbName := commandDB
			if rest, ok := bytes.CutPrefix(line, []byte("admin ")); ok {
				dbName, line = "admin", rest
			}
			cmd, err := document.ParseExtJSON(line)
			if err != nil {
				if document.CodeOf(err) == 0 {
					t.Fatalf("ParseExtJSON(%q): untyped error %v", line, err)
				}
				continue
			}
			if isSlowCommand(cmd) {
				continue
			}
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			run := db.RunCommand
			if rawInsert(cmd, len(line)%2 == 1) {
				// Every other insert goes the wire server's way: its
				// documents as BSON bytes through RunCommandRaw.
				run = db.RunCommandRaw
			}
			reply, err := run(cctx, dbName, cmd)
			cancel()
			if err != nil {
				var e *document.Error
				if !errors.As(err, &e) && !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("%s: untyped error %T %v", line, err, err)
				}
				if ok := lookup(reply, "ok"); ok != 0.0 && ok != int32(0) {
					t.Fatalf("%s: failed with %v but reply ok = %v", line, err, ok)
				}
			}
		}
		now = now.Add(100 * 365 * 24 * time.Hour)
		if _, err := db.RunTTLPass(ctx); err != nil {
			t.Fatalf("TTL pass after %q: %v", script, err)
		}
		validateAll(t, db, string(script))
	})
}

// rawInsert turns the documents of an insert command into bson.Raw,
// as the wire server hands them to RunCommandRaw, when on is set, and
// reports whether it did.
func rawInsert(cmd bson.D, on bool) bool {
	if !on || len(cmd) == 0 || cmd[0].Key != "insert" {
		return false
	}
	for i := range cmd {
		arr, ok := cmd[i].Value.(bson.A)
		if cmd[i].Key != "documents" || !ok {
			continue
		}
		raw := make(bson.A, len(arr))
		for j, v := range arr {
			raw[j] = v
			if d, ok := v.(bson.D); ok {
				if b, err := bson.Marshal(d); err == nil {
					raw[j] = bson.Raw(b)
				}
			}
		}
		cmd[i].Value = raw
		return true
	}
	return false
}

// isSlowCommand skips commands that only wait (sleep, long maxTimeMS
// tailing), which would slow the fuzzer without testing anything.
func isSlowCommand(cmd any) bool {
	return strings.Contains(strings.ToLower(fmt.Sprint(cmd)), "awaitdata")
}

// validateAll validates every collection of every database.
func validateAll(t *testing.T, db *engine.DB, what string) {
	t.Helper()
	ctx := context.Background()
	for _, dn := range db.DatabaseNames() {
		names, err := db.Database(dn).ListCollectionNames(ctx)
		if err != nil {
			t.Fatalf("%s: list collections: %v", what, err)
		}
		for _, cn := range names {
			r, err := db.Validate(ctx, dn, cn)
			if err != nil {
				t.Fatalf("%s: validate %s.%s: %v", what, dn, cn, err)
			}
			if !r.Valid() {
				t.Fatalf("%s: validate %s.%s: %v\nmissing %v\nextra %v", what, dn, cn, r.Errors, r.MissingIndexEntries, r.ExtraIndexEntries)
			}
		}
	}
}
