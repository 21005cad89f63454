package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestErrorMessagesUseServerValueFormat pins the server's value format
// (BSONObj::toString) in the messages users compare with MongoDB's.
func TestErrorMessagesUseServerValueFormat(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	c := db.Database("test").Collection("c")
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(1)}, {Key: "u", Value: "x"}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(1)}})
	var de *document.Error
	if !errors.As(err, &de) {
		t.Fatalf("duplicate _id: got %v, want a document.Error", err)
	}
	const want = "E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1 }"
	if de.Code != document.CodeDuplicateKey || de.Message != want {
		t.Fatalf("duplicate _id: got %d %q, want 11000 %q", de.Code, de.Message, want)
	}

	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"u": 1}, "name": "u_1", "unique": true}]}`)
	_, err = c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(2)}, {Key: "u", Value: "x"}})
	checkCode(t, "duplicate u", err, document.CodeDuplicateKey, `index: u_1 dup key: { u: "x" }`)
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"d": 1}, "name": "d", "expireAfterSeconds": -1}]}`,
		document.CodeCannotCreateIndex, `. Index spec: { key: { d: 1 }, name: "d", expireAfterSeconds: -1 } :: caused by ::`)
	wantCode(t, db, "test", `{"dropIndexes": "c", "index": {"zz": 1.5}}`, document.CodeIndexNotFound,
		"can't find index with key: { zz: 1.5 }")
}
