package engine

// Review 26 of the administrative and diagnostic commands: places where
// ttlkv answers differently from a standalone mongod 7.0 (reply shapes,
// field names and types, codes for bad arguments), fixed since. Each
// test asserts what mongod does; the comment says where mongod's
// behaviour was read. Sources are
// MongoDB's own (github.com/mongodb/mongo) unless said otherwise.

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ra26Code runs a command that must fail and returns its code (0 when
// it succeeded).
func ra26Code(t *testing.T, db *DB, dbName, cmdJSON string) int32 {
	t.Helper()
	_, err := run(t, db, dbName, cmdJSON)
	if err == nil {
		return 0
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v carries no code", cmdJSON, err)
	}
	return int32(e.Code)
}

// ra26Num is a reply number as a float64 (false when v is not a number).
func ra26Num(v any) (float64, bool) {
	switch n := v.(type) {
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// ra26Keys lists the keys of d in order.
func ra26Keys(d bson.D) []string {
	out := make([]string, len(d))
	for i, e := range d {
		out[i] = e.Key
	}
	return out
}

// ra26Seed makes databases a and b with one small collection each.
func ra26Seed(t *testing.T, db *DB) {
	t.Helper()
	mustRun(t, db, "a", `{"insert": "c", "documents": [{"_id": 1, "s": "aaaaaaaaaa"}]}`)
	mustRun(t, db, "b", `{"insert": "c", "documents": [{"_id": 1, "s": "bbbbbbbbbb"}]}`)
}

// listDatabases {nameOnly: true}: each entry is {name} alone and the
// reply has no totalSize. mongod: list_databases_common.h setReplyItems
// sets sizeOnDisk and empty only `if (!nameOnly)`, and
// list_databases.cpp sets totalSize and totalSizeMb only
// `if (!nameOnly)`. mongosh's `show dbs` path and drivers'
// ListDatabaseNames send nameOnly: true.
func TestReviewAdmin26ListDatabasesNameOnly(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ra26Seed(t, db)
	r := mustRun(t, db, "admin", `{"listDatabases": 1, "nameOnly": true}`)
	if _, ok := get(r, "totalSize"); ok {
		t.Errorf("nameOnly reply has totalSize: %v", r)
	}
	dbs, _ := field(r, "databases").(bson.A)
	if len(dbs) == 0 {
		t.Fatalf("no databases: %v", r)
	}
	for _, d := range dbs {
		if keys := ra26Keys(d.(bson.D)); len(keys) != 1 || keys[0] != "name" {
			t.Errorf("nameOnly entry has fields %v, want [name] only", keys)
		}
	}
}

// listDatabases {filter}: only the databases the filter matches are
// listed, and totalSize sums those alone. mongod: list_databases.cpp
// parses the filter (list_databases::getFilter) and setReplyItems keeps
// an item only `if (!filter || matchesBSON(filter, item))`, adding its
// size to totalSize then. jstests/core/list_databases.js checks
// {filter: {name: ...}}.
func TestReviewAdmin26ListDatabasesFilter(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ra26Seed(t, db)
	r := mustRun(t, db, "admin", `{"listDatabases": 1, "filter": {"name": "b"}}`)
	dbs, _ := field(r, "databases").(bson.A)
	var names []string
	for _, d := range dbs {
		n, _ := get(d.(bson.D), "name")
		names = append(names, fmt.Sprint(n))
	}
	if len(names) != 1 || names[0] != "b" {
		t.Errorf("filter {name: 'b'} listed %v, want [b]", names)
	}
	r = mustRun(t, db, "admin", `{"listDatabases": 1, "nameOnly": true, "filter": {"name": {"$regex": "^zz"}}}`)
	if dbs, _ := field(r, "databases").(bson.A); len(dbs) != 0 {
		t.Errorf("filter matching nothing listed %v", dbs)
	}
}

// listDatabases' reply has totalSizeMb beside totalSize (without
// nameOnly). mongod 7.0: list_databases.cpp,
// `reply.setTotalSizeMb(totalSize / (1024 * 1024))`.
func TestReviewAdmin26ListDatabasesTotalSizeMb(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ra26Seed(t, db)
	r := mustRun(t, db, "admin", `{"listDatabases": 1}`)
	if _, ok := get(r, "totalSizeMb"); !ok {
		t.Errorf("listDatabases reply has no totalSizeMb: %v", r)
	}
}

// listDatabases' nameOnly is a safeBool (bool or number) and
// authorizedDatabases a bool: another type is 14 TypeMismatch.
// mongod: src/mongo/db/commands/list_databases.idl (nameOnly: safeBool,
// authorizedDatabases: bool); the IDL parser refuses other types with
// TypeMismatch. ttlkv takes any value.
func TestReviewAdmin26ListDatabasesArgTypes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ra26Seed(t, db)
	for _, c := range []string{
		`{"listDatabases": 1, "nameOnly": "x"}`,
		`{"listDatabases": 1, "authorizedDatabases": "x"}`,
	} {
		if code := ra26Code(t, db, "admin", c); code != 14 {
			t.Errorf("%s: code %d, want 14 TypeMismatch", c, code)
		}
	}
}

// ra26Bulk fills test.c with documents of about 200 bytes, 60 of them
// (some 12 KiB).
func ra26Bulk(t *testing.T, db *DB) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"insert": "c", "documents": [`)
	for i := 0; i < 60; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"_id": %d, "s": "%s"}`, i, strings.Repeat("x", 180))
	}
	b.WriteString(`]}`)
	mustRun(t, db, "test", b.String())
}

// dbStats {scale}: the sizes are divided by scale, and the reply says
// scaleFactor. mongod 7.0: DatabaseImpl::getStats
// (src/mongo/db/catalog/database_impl.cpp) sets dataSize, storageSize,
// indexSize and totalSize to the size / scale and setScaleFactor(scale).
// mongosh's db.stats(1024) sends it. ttlkv ignores scale.
func TestReviewAdmin26DBStatsScale(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ra26Bulk(t, db)
	r1 := mustRun(t, db, "test", `{"dbStats": 1}`)
	rk := mustRun(t, db, "test", `{"dbStats": 1, "scale": 1024}`)
	full, _ := ra26Num(field(r1, "dataSize"))
	scaled, ok := ra26Num(field(rk, "dataSize"))
	if !ok || full < 4096 {
		t.Fatalf("dataSize %v (unscaled %v)", field(rk, "dataSize"), full)
	}
	if math.Abs(scaled*1024-full) >= 1024 {
		t.Errorf("dataSize at scale 1024 = %v, unscaled %v: want about %v", scaled, full, full/1024)
	}
	if sf, _ := ra26Num(field(rk, "scaleFactor")); sf != 1024 {
		t.Errorf("scaleFactor = %v, want 1024", field(rk, "scaleFactor"))
	}
}

// dbStats' reply has avgObjSize, totalSize and scaleFactor beside the
// counts and sizes ttlkv gives. mongod 7.0: DatabaseImpl::getStats sets
// avgObjSize (size / objects), totalSize ((storageSize + indexSize) /
// scale) and scaleFactor, and the reply for a database that does not
// exist has the same fields (dbcommands.cpp, CmdDbStats). A mongo:7.0
// container's db.stats() prints them (avgObjSize, totalSize,
// scaleFactor: Long('1'), fsUsedSize, fsTotalSize).
func TestReviewAdmin26DBStatsFields(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ra26Bulk(t, db)
	for _, name := range []string{"test", "nosuchdb"} {
		r := mustRun(t, db, name, `{"dbStats": 1}`)
		for _, f := range []string{"avgObjSize", "totalSize", "scaleFactor"} {
			if _, ok := get(r, f); !ok {
				t.Errorf("dbStats on %s has no %s: %v", name, f, ra26Keys(r))
			}
		}
	}
}

// dbStats {scale} below 1 is 2 BadValue. mongod 7.0: CmdDbStats::typedRun
// (src/mongo/db/commands/dbcommands.cpp), uassert(BadValue, "Scale
// factor must be greater than zero", scale > 0). ttlkv takes any scale,
// a string too.
func TestReviewAdmin26DBStatsBadScale(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ra26Bulk(t, db)
	for _, c := range []string{`{"dbStats": 1, "scale": 0}`, `{"dbStats": 1, "scale": -1}`} {
		if code := ra26Code(t, db, "test", c); code != 2 {
			t.Errorf("%s: code %d, want 2 BadValue", c, code)
		}
	}
	if code := ra26Code(t, db, "test", `{"dbStats": 1, "scale": "x"}`); code != 14 {
		t.Errorf(`{dbStats: 1, scale: "x"}: code %d, want 14 TypeMismatch`, code)
	}
}

// dbStats {freeStorage: 1} adds freeStorageSize, indexFreeStorageSize
// and totalFreeStorageSize. mongod 7.0: DatabaseImpl::getStats,
// `if (includeFreeStorage) { setFreeStorageSize(...);
// setIndexFreeStorageSize(...); setTotalFreeStorageSize(...) }`.
func TestReviewAdmin26DBStatsFreeStorage(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ra26Bulk(t, db)
	r := mustRun(t, db, "test", `{"dbStats": 1, "freeStorage": 1}`)
	for _, f := range []string{"freeStorageSize", "indexFreeStorageSize", "totalFreeStorageSize"} {
		if _, ok := get(r, f); !ok {
			t.Errorf("dbStats {freeStorage: 1} has no %s: %v", f, ra26Keys(r))
		}
	}
}

// collStats on a collection that does not exist succeeds with zeros.
// mongod 7.0: CmdCollStats (dbcommands.cpp) calls
// appendCollectionStorageStats and fails only
// `if (!status.isOK() && status.code() != ErrorCodes::NamespaceNotFound)`;
// storage_stats.cpp appends size 0, count 0, storageSize 0, totalSize
// 0, nindexes 0, totalIndexSize 0, indexDetails {}, indexSizes {},
// scaleFactor for a missing collection. (The $collStats stage is the
// one that reports 26.)
func TestReviewAdmin26CollStatsMissingCollection(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	r, err := run(t, db, "test", `{"collStats": "nope"}`)
	if err != nil {
		t.Fatalf("collStats of a missing collection: %v, want ok: 1 with zeros", err)
	}
	if ns, _ := get(r, "ns"); ns != "test.nope" {
		t.Errorf("ns = %v", ns)
	}
	for _, f := range []string{"size", "count", "storageSize", "totalSize", "nindexes", "totalIndexSize"} {
		if n, ok := ra26Num(field(r, f)); !ok || n != 0 {
			t.Errorf("%s = %v, want 0", f, field(r, f))
		}
	}
}

// collStats of an empty collection has no avgObjSize. mongod:
// storage_stats.cpp, `if (numRecords) { result->append("avgObjSize",
// ...) }`. ttlkv reports avgObjSize: 0.
func TestReviewAdmin26CollStatsEmptyNoAvgObjSize(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "e"}`)
	r := mustRun(t, db, "test", `{"collStats": "e"}`)
	if v, ok := get(r, "avgObjSize"); ok {
		t.Errorf("collStats of an empty collection has avgObjSize %v; mongod leaves it out", v)
	}
}

// validate's reply has mongod's fields: repaired, indexDetails (one
// {valid} a index), extraIndexEntries, missingIndexEntries and
// corruptRecords. mongod 7.0: ValidateResults::appendToResultObj
// (src/mongo/db/catalog/validate_results.cpp) appends valid, repaired,
// warnings, errors, extraIndexEntries, missingIndexEntries and
// corruptRecords; collection_validation.cpp's report appends nIndexes,
// keysPerIndex and indexDetails ({<index>: {valid: true}}). mongosh's
// db.c.validate() prints them; tools check indexDetails.<name>.valid.
func TestReviewAdmin26ValidateReplyFields(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	r := mustRun(t, db, "test", `{"validate": "c"}`)
	if v, ok := get(r, "repaired"); !ok || v != false {
		t.Errorf("repaired = %v (present %v), want false", v, ok)
	}
	for _, f := range []string{"extraIndexEntries", "missingIndexEntries", "corruptRecords"} {
		if _, ok := field(r, f).(bson.A); !ok {
			t.Errorf("validate has no %s array: %v", f, ra26Keys(r))
		}
	}
	for _, ix := range []string{"_id_", "a_1"} {
		if v := field(r, "indexDetails."+ix+".valid"); v != true {
			t.Errorf("indexDetails.%s.valid = %v, want true", ix, v)
		}
	}
}

// validate refuses options that do not go together with 72
// InvalidOptions. mongod 7.0: validate.cpp, "Running the validate
// command with both { background: true } and { full: true } is not
// supported." (and likewise background with enforceFastCount or repair,
// and metadata with any other option), each
// uasserted(ErrorCodes::InvalidOptions, ...). ttlkv runs them.
func TestReviewAdmin26ValidateOptionConflicts(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}]}`)
	for _, c := range []string{
		`{"validate": "c", "full": true, "background": true}`,
		`{"validate": "c", "enforceFastCount": true, "background": true}`,
		`{"validate": "c", "repair": true, "background": true}`,
		`{"validate": "c", "metadata": true, "full": true}`,
	} {
		if code := ra26Code(t, db, "test", c); code != 72 {
			t.Errorf("%s: code %d, want 72 InvalidOptions", c, code)
		}
	}
}

// getParameter names parameters it does not know beside one it knows:
// it answers the known one. mongod: parameters.cpp CmdGet::run walks
// the registered parameters and appends those the command names
// (`cmdObj.hasElement(name)`); unknown names are never looked at, and
// only when nothing was found is it 72 "no option found to get". ttlkv
// fails the whole command.
func TestReviewAdmin26GetParameterUnknownBesideKnown(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	r, err := run(t, db, "admin", `{"getParameter": 1, "logLevel": 1, "noSuchParameterXYZ": 1}`)
	if err != nil {
		t.Fatalf("getParameter of a known and an unknown parameter: %v", err)
	}
	if _, ok := get(r, "logLevel"); !ok {
		t.Errorf("reply has no logLevel: %v", r)
	}
}

// getParameter {allParameters: true} reads every parameter, as '*'
// does. mongod: parameters.cpp parseGetParameterOptions parses a
// document argument as GetParameterOptions; allParameters drops the
// name match (help: "{ getParameter:'*' } or { getParameter:
// {allParameters: true} } to get everything"); jstests/core
// getparameter tests it.
func TestReviewAdmin26GetParameterAllParameters(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	r, err := run(t, db, "admin", `{"getParameter": {"allParameters": true}}`)
	if err != nil {
		t.Fatalf("{getParameter: {allParameters: true}}: %v", err)
	}
	if _, ok := get(r, "logLevel"); !ok {
		t.Errorf("reply has no logLevel: %v", ra26Keys(r))
	}
}

// getParameter {showDetails: true} gives each parameter as {value,
// settableAtRuntime, settableAtStartup}. mongod: parameters.cpp CmdGet,
// `if (options.getShowDetails()) { detailBob: value,
// settableAtRuntime, settableAtStartup }`. ttlkv gives the bare value.
func TestReviewAdmin26GetParameterShowDetails(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	r := mustRun(t, db, "admin", `{"getParameter": {"showDetails": true}, "logLevel": 1}`)
	d, ok := field(r, "logLevel").(bson.D)
	if !ok {
		t.Fatalf("logLevel = %v (%T), want {value, settableAtRuntime, settableAtStartup}", field(r, "logLevel"), field(r, "logLevel"))
	}
	if v, _ := get(d, "value"); v == nil {
		t.Errorf("logLevel has no value: %v", d)
	}
	if v, _ := get(d, "settableAtRuntime"); v != true {
		t.Errorf("logLevel.settableAtRuntime = %v, want true", v)
	}
	if v, _ := get(d, "settableAtStartup"); v != true {
		t.Errorf("logLevel.settableAtStartup = %v, want true", v)
	}
}

// getParameter featureCompatibilityVersion answers {version: "7.0"} on
// a 7.0 server. mongod: featureCompatibilityVersion is a server
// parameter (FeatureCompatibilityVersionParameter::append appends
// {version: <fcv>}); drivers' test runners, mongosync and Ops tools
// read it with db.adminCommand({getParameter: 1,
// featureCompatibilityVersion: 1}). ttlkv: 72 "no option found to get".
func TestReviewAdmin26GetParameterFCV(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	r, err := run(t, db, "admin", `{"getParameter": 1, "featureCompatibilityVersion": 1}`)
	if err != nil {
		t.Fatalf("getParameter featureCompatibilityVersion: %v", err)
	}
	if v := field(r, "featureCompatibilityVersion.version"); v != "7.0" {
		t.Errorf("featureCompatibilityVersion = %v, want {version: \"7.0\"}", field(r, "featureCompatibilityVersion"))
	}
}

// setParameter of two parameters replies one "was": the old value of the
// first parameter set (in name order). mongod: parameters.cpp CmdSet
// gathers the parameters in a std::map (name order) and appends "was"
// only `if (numSet == 0)`. ttlkv appends a "was" per parameter, a reply
// document with a duplicate key, which drivers decode to either value.
func TestReviewAdmin26SetParameterOneWas(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "admin", `{"setParameter": 1, "logLevel": 1}`)
	r := mustRun(t, db, "admin", `{"setParameter": 1, "ttlMonitorSleepSecs": 30, "logLevel": 0}`)
	n := 0
	for _, e := range r {
		if e.Key == "was" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("reply %v has %d 'was' fields, want 1", r, n)
	}
	if w, _ := ra26Num(field(r, "was")); w != 1 {
		t.Errorf("was = %v, want 1 (logLevel's, the first by name)", field(r, "was"))
	}
}

// {profile: "x"} is 14 TypeMismatch: the command's value is a
// safeInt64. mongod: src/mongo/db/commands/profile.idl (profile: type:
// safeInt64), parsed by ProfileCmdRequest::parse before anything else.
// ttlkv: 2 BadValue "Invalid profiling level".
func TestReviewAdmin26ProfileLevelType(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	if code := ra26Code(t, db, "test", `{"profile": "x"}`); code != 14 {
		t.Errorf(`{profile: "x"}: code %d, want 14 TypeMismatch`, code)
	}
}

// dropDatabase of admin is refused with 20 IllegalOperation, and admin
// keeps its collections. mongod: drop_database.cpp _dropDatabase,
// uassert(IllegalOperation, "Dropping the 'admin' database is
// prohibited.", dbName != kAdmin) (SERVER-32205; drop_database_test.cpp
// DropDatabaseFailsToDropAdmin). ttlkv drops it, users and all.
func TestReviewAdmin26DropAdminDatabase(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "admin", `{"insert": "keep", "documents": [{"_id": 1}]}`)
	if code := ra26Code(t, db, "admin", `{"dropDatabase": 1}`); code != 20 {
		t.Errorf("dropDatabase on admin: code %d, want 20 IllegalOperation", code)
	}
	if n := count(t, db, "admin", "keep"); n != 1 {
		t.Errorf("admin.keep holds %d documents after the refused drop, want 1", n)
	}
}

// getParameter authSchemaVersion answers 5, a 7.0 server's schema
// (SCRAM users); mongorestore asks for it before restoring users and
// stops with 72 when it is missing.
func TestGetParameterAuthSchemaVersion(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	r, err := run(t, db, "admin", `{"getParameter": 1, "authSchemaVersion": 1}`)
	if err != nil {
		t.Fatalf("getParameter authSchemaVersion: %v", err)
	}
	if v := field(r, "authSchemaVersion"); v != int32(5) {
		t.Errorf("authSchemaVersion = %v (%T), want int32 5", v, v)
	}
}
