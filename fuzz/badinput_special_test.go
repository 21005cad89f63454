package fuzz

import (
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Codes of docs/timeseries.md §6 that doc/errors.go does not name.
const (
	codeIDLUnknownField = document.Code(40415)
)

// specialSetup adds to badSetup a capped collection "cp" (4096 bytes)
// with documents, and a time-series collection "tsc" (granularity
// minutes, expiry one hour) with measurements.
var specialSetup = []string{
	`{"create": "cp", "capped": true, "size": 4096}`,
	`{"insert": "cp", "documents": [{"_id": 1, "s": "abc"}, {"_id": 2, "s": "def"}]}`,
	`{"create": "tsc", "timeseries": {"timeField": "t", "metaField": "m", "granularity": "minutes"}, "expireAfterSeconds": 3600}`,
	`{"insert": "tsc", "documents": [{"t": {"$date": "2026-01-01T00:00:00Z"}, "m": "a", "v": 1}, {"t": {"$date": "2026-01-01T00:00:01Z"}, "m": "b", "v": 2}]}`,
}

// specialBadCases is the catalogue of docs/timeseries.md §6 (time-series), §7 (capped)
// and §8 (tailable cursors) invalid options, and the valid calls at
// their edges.
func specialBadCases() []badCase {
	ts := func(opts string) string { return `{"create": "x", "timeseries": ` + opts + `}` }
	const drop = `{"drop": "x"}`
	cases := []badCase{
		// §6.1 create
		{name: "ts not an object", json: ts(`"t"`), code: document.CodeTypeMismatch},
		{name: "ts timeField not a string", json: ts(`{"timeField": 1}`), code: document.CodeTypeMismatch},
		{name: "ts metaField not a string", json: ts(`{"timeField": "t", "metaField": 2}`), code: document.CodeTypeMismatch},
		{name: "ts unknown sub-field", json: ts(`{"timeField": "t", "foo": 1}`), code: codeIDLUnknownField},
		{name: "ts timeField with a dot", json: ts(`{"timeField": "a.b"}`), code: document.CodeInvalidOptions},
		{name: "ts metaField with a dot", json: ts(`{"timeField": "t", "metaField": "a.b"}`), code: document.CodeInvalidOptions},
		{name: "ts metaField equals timeField", json: ts(`{"timeField": "t", "metaField": "t"}`), code: document.CodeInvalidOptions},
		{name: "ts metaField _id", json: ts(`{"timeField": "t", "metaField": "_id"}`), code: document.CodeInvalidOptions},
		{name: "ts with capped", json: `{"create": "x", "timeseries": {"timeField": "t"}, "capped": true, "size": 4096}`, code: document.CodeInvalidOptions, frag: "'timeseries' is not allowed with"},
		{name: "ts with size", json: `{"create": "x", "timeseries": {"timeField": "t"}, "size": 4096}`, code: document.CodeInvalidOptions},
		{name: "ts with max", json: `{"create": "x", "timeseries": {"timeField": "t"}, "max": 10}`, code: document.CodeInvalidOptions},
		{name: "ts with validator", json: `{"create": "x", "timeseries": {"timeField": "t"}, "validator": {"a": 1}}`, code: document.CodeInvalidOptions, frag: "'timeseries' is not allowed with"},
		{name: "ts with clusteredIndex", json: `{"create": "x", "timeseries": {"timeField": "t"}, "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`, code: document.CodeInvalidOptions, frag: "'timeseries' is not allowed with"},
		{name: "ts expireAfterSeconds negative", json: `{"create": "x", "timeseries": {"timeField": "t"}, "expireAfterSeconds": -1}`, code: document.CodeInvalidOptions},
		{name: "ts expireAfterSeconds string", json: `{"create": "x", "timeseries": {"timeField": "t"}, "expireAfterSeconds": "5"}`, code: document.CodeTypeMismatch},
		{name: "expireAfterSeconds without timeseries", json: `{"create": "x", "expireAfterSeconds": 5}`, code: document.CodeInvalidOptions},
		{name: "ts create again, same options", json: `{"create": "tsc", "timeseries": {"timeField": "t", "metaField": "m", "granularity": "minutes"}, "expireAfterSeconds": 3600}`},
		{name: "ts create again, other options", json: `{"create": "tsc", "timeseries": {"timeField": "t", "metaField": "m", "granularity": "hours"}, "expireAfterSeconds": 3600}`, code: document.CodeNamespaceExists},
		{name: "ts create over a plain collection", json: `{"create": "c", "timeseries": {"timeField": "t"}}`, code: document.CodeNamespaceExists},
		{name: "ts valid create", json: ts(`{"timeField": "t", "metaField": "m"}`), undo: drop},
		// §6.2 granularity and custom bucketing
		{name: "ts span without rounding", json: ts(`{"timeField": "t", "bucketMaxSpanSeconds": 60}`), code: document.CodeInvalidOptions},
		{name: "ts rounding without span", json: ts(`{"timeField": "t", "bucketRoundingSeconds": 60}`), code: document.CodeInvalidOptions},
		{name: "ts span and rounding unequal", json: ts(`{"timeField": "t", "bucketMaxSpanSeconds": 60, "bucketRoundingSeconds": 30}`), code: document.CodeInvalidOptions},
		{name: "ts custom with a differing granularity", json: ts(`{"timeField": "t", "granularity": "hours", "bucketMaxSpanSeconds": 60, "bucketRoundingSeconds": 60}`), code: document.CodeInvalidOptions},
		{name: "ts span 0", json: ts(`{"timeField": "t", "bucketMaxSpanSeconds": 0, "bucketRoundingSeconds": 0}`), code: document.CodeBadValue},
		{name: "ts span one past a year", json: ts(`{"timeField": "t", "bucketMaxSpanSeconds": 31536001, "bucketRoundingSeconds": 31536001}`), code: document.CodeBadValue},
		{name: "ts span a year (limit)", json: ts(`{"timeField": "t", "bucketMaxSpanSeconds": 31536000, "bucketRoundingSeconds": 31536000}`), undo: drop},
		{name: "ts span 1 (limit)", json: ts(`{"timeField": "t", "bucketMaxSpanSeconds": 1, "bucketRoundingSeconds": 1}`), undo: drop},
		// §6.3 measurements
		{name: "ts measurement without its time", json: `{"insert": "tsc", "documents": [{"m": "a", "v": 3}]}`, writeErr: document.CodeBadValue},
		{name: "ts measurement with a string time", json: `{"insert": "tsc", "documents": [{"t": "2026-01-01", "m": "a"}]}`, writeErr: document.CodeBadValue},
		// §6.5 collMod
		{name: "ts collMod granularity shrinks", json: `{"collMod": "tsc", "timeseries": {"granularity": "seconds"}}`, code: document.CodeInvalidOptions, frag: "Invalid transition for timeseries.granularity"},
		{name: "ts collMod validator", json: `{"collMod": "tsc", "validator": {"a": 1}}`, code: document.CodeInvalidOptions},
		{name: "ts collMod empty timeseries is a no-op", json: `{"collMod": "tsc", "timeseries": {}}`},
		{name: "ts collMod expireAfterSeconds negative", json: `{"collMod": "tsc", "expireAfterSeconds": -5}`, code: document.CodeInvalidOptions},
		// §6.7 partial TTL index
		{name: "ts TTL index without a filter", json: `{"createIndexes": "tsc", "indexes": [{"key": {"t": 1}, "name": "t_ttl", "expireAfterSeconds": 10}]}`, code: document.CodeInvalidOptions, frag: "partialFilterExpression on the metaField"},
		{name: "ts TTL index on another field", json: `{"createIndexes": "tsc", "indexes": [{"key": {"v": 1}, "name": "v_ttl", "expireAfterSeconds": 10, "partialFilterExpression": {"m": "a"}}]}`, code: document.CodeInvalidOptions},
		{name: "ts TTL index filter on a data field", json: `{"createIndexes": "tsc", "indexes": [{"key": {"t": 1}, "name": "t_ttl", "expireAfterSeconds": 10, "partialFilterExpression": {"v": 1}}]}`, code: document.CodeInvalidOptions},
		{name: "ts TTL index compound", json: `{"createIndexes": "tsc", "indexes": [{"key": {"t": 1, "m": 1}, "name": "t_m_ttl", "expireAfterSeconds": 10, "partialFilterExpression": {"m": "a"}}]}`, code: document.CodeCannotCreateIndex},
		{name: "ts TTL index valid", json: `{"createIndexes": "tsc", "indexes": [{"key": {"t": 1}, "name": "t_ttl", "expireAfterSeconds": 10, "partialFilterExpression": {"m": "a"}}]}`, undo: `{"dropIndexes": "tsc", "index": "t_ttl"}`},
		// §7.1 capped create
		{name: "capped without size", json: `{"create": "x", "capped": true}`, code: document.CodeInvalidOptions, frag: "the 'size' field is required when 'capped' is true"},
		{name: "size without capped", json: `{"create": "x", "size": 4096}`, code: document.CodeInvalidOptions, frag: "the 'capped' field needs to be true"},
		{name: "max without capped", json: `{"create": "x", "max": 10}`, code: document.CodeInvalidOptions, frag: "the 'capped' field needs to be true"},
		{name: "size with capped false", json: `{"create": "x", "capped": false, "size": 4096}`, code: document.CodeInvalidOptions},
		{name: "capped size a string", json: `{"create": "x", "capped": true, "size": "4096"}`, code: document.CodeTypeMismatch},
		{name: "capped max a string", json: `{"create": "x", "capped": true, "size": 4096, "max": "10"}`, code: document.CodeTypeMismatch},
		{name: "capped size 0", json: `{"create": "x", "capped": true, "size": 0}`, code: document.CodeBadValue},
		{name: "capped size negative", json: `{"create": "x", "capped": true, "size": -1}`, code: document.CodeBadValue},
		{name: "capped size one past 1 PiB", json: `{"create": "x", "capped": true, "size": {"$numberLong": "1125899906842625"}}`, code: document.CodeBadValue},
		{name: "capped max 2^31", json: `{"create": "x", "capped": true, "size": 4096, "max": {"$numberLong": "2147483648"}}`, code: document.CodeBadValue},
		{name: "capped max 2^31-1 (limit)", json: `{"create": "x", "capped": true, "size": 4096, "max": 2147483647}`, undo: drop},
		{name: "capped size 1 (limit)", json: `{"create": "x", "capped": true, "size": 1}`, undo: drop},
		{name: "capped max 0 (no limit)", json: `{"create": "x", "capped": true, "size": 4096, "max": 0}`, undo: drop},
		// §7.3-7.5 capped writes
		{name: "capped document larger than the collection (accepted alone, as in MongoDB 7.0)", cmd: insertCmdIn("cp", docOfSize(9, 5000)), undo: `{"insert": "cp", "documents": [{"_id": 1, "s": "abc"}, {"_id": 2, "s": "def"}]}`},
		{name: "capped duplicate _id", json: `{"insert": "cp", "documents": [{"_id": 1}]}`, writeErr: document.CodeDuplicateKey},
		{name: "capped delete (allowed, as in MongoDB 5.0+)", json: `{"delete": "cp", "deletes": [{"q": {"_id": 99}, "limit": 1}]}`},
		{name: "capped update grows a document (allowed, as in MongoDB 6.0+)", json: `{"update": "cp", "updates": [{"q": {"_id": 1}, "u": {"$set": {"s": "abcdefgh"}}}]}`, undo: `{"update": "cp", "updates": [{"q": {"_id": 1}, "u": {"$set": {"s": "abc"}}}]}`},
		{name: "capped secondary index (allowed, as in MongoDB)", json: `{"createIndexes": "cp", "indexes": [{"key": {"s": 1}, "name": "s_1"}]}`, undo: `{"dropIndexes": "cp", "index": "s_1"}`},
		{name: "capped TTL index", json: `{"createIndexes": "cp", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`, code: document.CodeCannotCreateIndex},
		{name: "capped sort $natural 2", json: `{"find": "cp", "sort": {"$natural": 2}}`, code: document.CodeBadValue},
		// §7.6 convertToCapped
		{name: "convertToCapped missing collection", json: `{"convertToCapped": "nope", "size": 4096}`, code: document.CodeNamespaceNotFound},
		{name: "convertToCapped time-series", json: `{"convertToCapped": "tsc", "size": 4096}`, code: document.CodeCommandNotSupportedOnView},
		{name: "convertToCapped size 0", json: `{"convertToCapped": "n", "size": 0}`, code: document.CodeBadValue},
		{name: "convertToCapped size a string", json: `{"convertToCapped": "n", "size": "big"}`, code: document.CodeTypeMismatch},
		// §7.8 capped resize (collMod cappedSize / cappedMax)
		{name: "collMod cappedSize on a plain collection", json: `{"collMod": "c", "cappedSize": 8192}`, code: document.CodeInvalidOptions},
		{name: "collMod cappedMax on a time-series collection", json: `{"collMod": "tsc", "cappedMax": 5}`, code: document.CodeInvalidOptions},
		{name: "collMod cappedSize 0", json: `{"collMod": "cp", "cappedSize": 0}`, code: document.CodeInvalidOptions},
		{name: "collMod cappedSize above 1 PiB", json: `{"collMod": "cp", "cappedSize": {"$numberLong": "1125899906842625"}}`, code: document.CodeInvalidOptions},
		{name: "collMod cappedSize a string", json: `{"collMod": "cp", "cappedSize": "big"}`, code: document.CodeTypeMismatch},
		{name: "collMod cappedMax 2^31", json: `{"collMod": "cp", "cappedMax": {"$numberLong": "2147483648"}}`, code: document.CodeInvalidOptions},
		// §6.9 time-series updates (mongod 7.0: multi, on the metaField only)
		{name: "ts update removes the time field", json: `{"update": "tsc", "updates": [{"q": {}, "u": {"$unset": {"t": ""}}, "multi": true}]}`, writeErr: document.CodeInvalidOptions},
		{name: "ts update makes the time a string", json: `{"update": "tsc", "updates": [{"q": {"m": "a"}, "u": {"$set": {"t": "noon"}}, "multi": true}]}`, writeErr: document.CodeInvalidOptions},
		{name: "ts single update", json: `{"update": "tsc", "updates": [{"q": {"m": "a"}, "u": {"$set": {"m": "b"}}}]}`, writeErr: document.CodeInvalidOptions},
		{name: "ts replacement", json: `{"update": "tsc", "updates": [{"q": {"m": "a"}, "u": {"m": "a", "v": 3}}]}`, writeErr: document.CodeInvalidOptions},
		{name: "ts upsert", json: `{"update": "tsc", "updates": [{"q": {"m": "zz"}, "u": {"$set": {"m": "y"}}, "upsert": true, "multi": true}]}`, writeErr: document.CodeInvalidOptions},
		{name: "ts update filtering on a measurement", json: `{"update": "tsc", "updates": [{"q": {"v": 3}, "u": {"$set": {"m": "y"}}, "multi": true}]}`, writeErr: document.CodeInvalidOptions},
		{name: "ts findAndModify update", json: `{"findAndModify": "tsc", "query": {}, "sort": {"$natural": -1}, "update": {"$set": {"v": 3}}}`, code: document.CodeInvalidOptions},
		{name: "ts findAndModify remove sort $natural -1", json: `{"findAndModify": "tsc", "query": {}, "sort": {"$natural": -1}, "remove": true}`, code: document.CodeBadValue},
		// §8.1 tailable cursors
		{name: "tailable on a plain collection", json: `{"find": "c", "tailable": true}`, code: document.CodeBadValue, frag: "tailable cursor requested on non capped collection"},
		{name: "awaitData without tailable", json: `{"find": "cp", "awaitData": true}`, code: document.CodeFailedToParse},
		{name: "tailable with a sort on _id", json: `{"find": "cp", "tailable": true, "sort": {"_id": 1}}`, code: document.CodeBadValue},
		{name: "tailable with $natural -1", json: `{"find": "cp", "tailable": true, "sort": {"$natural": -1}}`, code: document.CodeBadValue},
		{name: "tailable with $natural 1", json: `{"find": "cp", "tailable": true, "sort": {"$natural": 1}}`},
	}
	for i := range cases {
		cases[i].name = "special " + cases[i].name
	}
	return cases
}

// insertCmdIn is insertCmd into collection coll.
func insertCmdIn(coll string, docs ...bson.D) bson.D {
	cmd := insertCmd(docs...)
	cmd[0].Value = coll
	return cmd
}
