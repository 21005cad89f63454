package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestAdminSystemVersion: a standalone mongod 7.0 always has admin, its
// system.version holding the feature compatibility version (and the
// auth schema from the first user on); listDatabases lists it, reads
// answer it and writes are refused.
func TestAdminSystemVersion(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	check := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", what, got, want)
		}
	}
	check("listDatabases of a fresh DB", document.Format(mustRun(t, db, "admin", `{"listDatabases": 1}`)),
		`{ databases: [ { name: "admin", sizeOnDisk: 59, empty: false } ], totalSize: 59, totalSizeMb: 0, ok: 1.0 }`)
	check("nameOnly", document.Format(mustRun(t, db, "admin", `{"listDatabases": 1, "nameOnly": true, "filter": {"name": "admin"}}`)),
		`{ databases: [ { name: "admin" } ], ok: 1.0 }`)
	check("find", document.Format(firstBatch(t, mustRun(t, db, "admin", `{"find": "system.version"}`))),
		`[ { _id: "featureCompatibilityVersion", version: "7.0" } ]`)
	// getParameter agrees with the document.
	check("getParameter", document.Format(mustRun(t, db, "admin", `{"getParameter": 1, "featureCompatibilityVersion": 1}`)),
		`{ featureCompatibilityVersion: { version: "7.0" }, ok: 1.0 }`)
	check("listCollections", document.Format(firstBatch(t, mustRun(t, db, "admin", `{"listCollections": 1, "nameOnly": true}`))),
		`[ { name: "system.version", type: "collection" } ]`)
	check("listIndexes", document.Format(firstBatch(t, mustRun(t, db, "admin", `{"listIndexes": "system.version"}`))),
		`[ { v: 2, key: { _id: 1 }, name: "_id_" } ]`)
	check("count", document.Format(mustRun(t, db, "admin", `{"count": "system.version", "query": {"_id": "featureCompatibilityVersion"}}`)),
		`{ n: 1, ok: 1.0 }`)
	check("aggregate", document.Format(firstBatch(t, mustRun(t, db, "admin", `{"aggregate": "system.version", "pipeline": [{"$project": {"_id": 0, "version": 1}}], "cursor": {}}`))),
		`[ { version: "7.0" } ]`)
	check("collStats", document.Format(mustRun(t, db, "admin", `{"collStats": "system.version"}`)),
		`{ ns: "admin.system.version", count: 1, size: 59, avgObjSize: 59, storageSize: 59, nindexes: 1, totalIndexSize: 40, indexSizes: { _id_: 40 }, capped: false, totalSize: 99, scaleFactor: 1, ok: 1.0 }`)
	r := mustRun(t, db, "admin", `{"dbStats": 1}`)
	if field(r, "collections") != int64(1) || field(r, "objects") != int64(1) || field(r, "dataSize") != 59.0 || field(r, "indexes") != int64(1) {
		t.Errorf("dbStats: %s", document.Format(r))
	}
	r = mustRun(t, db, "admin", `{"validate": "system.version"}`)
	if field(r, "valid") != true || field(r, "nrecords") != int32(1) || document.Format(field(r, "keysPerIndex")) != `{ _id_: 1 }` {
		t.Errorf("validate: %s", document.Format(r))
	}
	// The Go API reads it as the commands do.
	ctx := context.Background()
	if names, err := db.Database("admin").ListCollectionNames(ctx); err != nil || fmt.Sprint(names) != "[system.version]" {
		t.Errorf("ListCollectionNames(admin) = %v, %v", names, err)
	}
	if ix, err := db.Database("admin").Collection("system.version").ListIndexes(ctx); err != nil || document.Format(ix) != `[ { v: 2, key: { _id: 1 }, name: "_id_" } ]` {
		t.Errorf("ListIndexes = %v, %v", ix, err)
	}
	cur, err := db.Database("admin").Collection("system.version").Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if docs, err := cur.All(ctx); err != nil || document.Format(docs) != `[ { _id: "featureCompatibilityVersion", version: "7.0" } ]` {
		t.Errorf("Find = %v, %v", docs, err)
	}
	// Writes are refused.
	for _, cmd := range []string{
		`{"update": "system.version", "updates": [{"q": {}, "u": {"$set": {"x": 1}}}]}`,
		`{"delete": "system.version", "deletes": [{"q": {}, "limit": 0}]}`,
		`{"findAndModify": "system.version", "query": {}, "remove": true}`,
		`{"drop": "system.version"}`,
	} {
		wantCode(t, db, "admin", cmd, document.CodeInvalidNamespace, "cannot write to admin.system.version")
	}
	wantCode(t, db, "admin", `{"insert": "system.version", "documents": [{"_id": "x"}]}`, document.CodeInvalidNamespace, "Invalid collection name: 'system.version'")
	wantCode(t, db, "admin", `{"dropDatabase": 1}`, document.CodeIllegalOperation, "")
	// Other databases have no system.version.
	check("test.system.version", document.Format(firstBatch(t, mustRun(t, db, "test", `{"find": "system.version"}`))), `[]`)
	// From the first user on, the auth schema is there too, as createUser
	// writes it.
	mustRun(t, db, "admin", `{"insert": "system.users", "documents": [{"_id": "admin.u", "user": "u", "db": "admin"}]}`)
	check("find after a user", document.Format(firstBatch(t, mustRun(t, db, "admin", `{"find": "system.version"}`))),
		`[ { _id: "featureCompatibilityVersion", version: "7.0" }, { _id: "authSchema", currentVersion: 5 } ]`)
	mustRun(t, db, "app", `{"insert": "c", "documents": [{"_id": 1}]}`)
	check("listDatabases names", document.Format(mustRun(t, db, "admin", `{"listDatabases": 1, "nameOnly": true}`)),
		`{ databases: [ { name: "admin" }, { name: "app" } ], ok: 1.0 }`)
}
