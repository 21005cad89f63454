package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestRenameCollection checks renameCollection: documents, indexes,
// TTL expiry and capped state follow the new name across a reopen, the
// old name is gone, cursors on the source die, and every refusal has
// MongoDB's code with nothing changed.
func TestRenameCollection(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	ctx := context.Background()
	now := bson.NewDateTimeFromTime(clk.Now())
	mustRun(t, db, "test", fmt.Sprintf(`{"insert": "a", "documents": [
		{"_id": 1, "at": {"$date": {"$numberLong": "%d"}}, "u": 1},
		{"_id": 2, "at": {"$date": {"$numberLong": "%d"}}, "u": 2},
		{"_id": 3, "u": 3}]}`, int64(now), int64(now)+int64(time.Hour/time.Millisecond)))
	mustRun(t, db, "test", `{"createIndexes": "a", "indexes": [
		{"key": {"at": 1}, "name": "at_1", "expireAfterSeconds": 60},
		{"key": {"u": 1}, "name": "u_1", "unique": true}]}`)
	mustRun(t, db, "test", `{"insert": "b", "documents": [{"_id": "target"}]}`)
	mustRun(t, db, "test", `{"create": "cap", "capped": true, "size": 4096, "max": 2}`)
	mustRun(t, db, "test", `{"insert": "cap", "documents": [{"_id": 1}, {"_id": 2}, {"_id": 3}]}`)
	r := mustRun(t, db, "test", `{"find": "a", "batchSize": 1}`)
	cursorID, _ := checkCursorShape(t, "open", field(r, "cursor"), "firstBatch")

	// Refusals leave everything in place.
	wantCode(t, db, "test", `{"renameCollection": "test.a", "to": "test.z"}`, codeUnauthorized, "admin database")
	wantCode(t, db, "admin", `{"renameCollection": "test.nosuch", "to": "test.z"}`, document.CodeNamespaceNotFound, "test.nosuch does not exist")
	wantCode(t, db, "admin", `{"renameCollection": "test.a", "to": "test.b"}`, document.CodeNamespaceExists, "target namespace exists")
	wantCode(t, db, "admin", `{"renameCollection": "test.a", "to": "test.a"}`, document.CodeIllegalOperation, "itself")
	wantCode(t, db, "admin", `{"renameCollection": "test.a", "to": "test.system.x"}`, document.CodeInvalidNamespace, "system.")
	wantCode(t, db, "admin", `{"renameCollection": "test.a", "to": "nodot"}`, document.CodeInvalidNamespace, "target")
	wantCode(t, db, "admin", `{"renameCollection": "test.a"}`, document.CodeFailedToParse, "'renameCollection.to' is missing")
	wantCode(t, db, "admin", `{"renameCollection": "test.a", "to": 5}`, document.CodeTypeMismatch, "'renameCollection.to'")
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
	wantCode(t, db, "admin", `{"renameCollection": "test.ts", "to": "test.ts2"}`, document.CodeCommandNotSupportedOnView, "time-series")
	if n := count(t, db, "test", "a"); n != 3 {
		t.Fatalf("after refusals: %d documents in test.a, want 3", n)
	}

	// dropTarget replaces b; a moves across databases too.
	mustRun(t, db, "admin", `{"renameCollection": "test.a", "to": "test.b", "dropTarget": true}`)
	mustRun(t, db, "admin", `{"renameCollection": "test.b", "to": "other.renamed"}`)
	mustRun(t, db, "admin", `{"renameCollection": "test.cap", "to": "test.cap2"}`)
	wantCode(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "a"}`, cursorID), document.CodeQueryPlanKilled, "renamed from 'test.a' to 'test.b'")

	db = reopen(t, db, dir, clk)
	names := map[string]bool{}
	for _, c := range db.collsOf("") {
		names[c.m().NS()] = true
	}
	for _, gone := range []string{"test.a", "test.b", "test.cap"} {
		if names[gone] {
			t.Errorf("%s still listed after rename: %v", gone, names)
		}
	}
	if n := count(t, db, "other", "renamed"); n != 3 {
		t.Fatalf("other.renamed holds %d documents, want 3", n)
	}
	mustValidate(t, db, "other", "renamed")
	// The unique index came along.
	_, err := db.Database("other").Collection("renamed").InsertOne(ctx, bson.D{{Key: "u", Value: int32(1)}})
	checkCode(t, "unique index after rename", err, document.CodeDuplicateKey, "other.renamed index: u_1")
	// So did the TTL index: document 1 expires, 2 (an hour later) and 3 (no date) stay.
	clk.Advance(2 * time.Minute)
	if _, err := db.RunTTLPass(ctx); err != nil {
		t.Fatal(err)
	}
	got := findAll(t, db, "other", "renamed", bson.D{})
	if len(got) != 2 || field(got[0], "_id") != int32(2) || field(got[1], "_id") != int32(3) {
		t.Fatalf("after the TTL pass: %v, want _id 2 and 3", got)
	}
	// The capped collection keeps its ring and its cap.
	if !db.Database("test").Collection("cap2").IsCapped() {
		t.Fatal("test.cap2 is not capped after rename")
	}
	mustRun(t, db, "test", `{"insert": "cap2", "documents": [{"_id": 4}]}`)
	got = findAll(t, db, "test", "cap2", bson.D{})
	if len(got) != 2 || field(got[0], "_id") != int32(3) || field(got[1], "_id") != int32(4) {
		t.Fatalf("capped after rename: %v, want _id 3 and 4", got)
	}
	mustValidate(t, db, "test", "cap2")
}
