package wire

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A collection validator through the official driver: the failing
// insert is a WriteException with code 121 and the errInfo the driver
// exposes as the write error's Details; an unordered InsertMany keeps
// the valid documents; findOneAndUpdate fails with a CommandError
// carrying errInfo; bypassDocumentValidation skips the check.
func TestDriverDocumentValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	c := e.client(t, false)
	ctx := context.Background()
	db := c.Database("v")
	validator := bson.D{{Key: "a", Value: bson.D{{Key: "$type", Value: "string"}}}}
	if err := db.CreateCollection(ctx, "c", options.CreateCollection().SetValidator(validator)); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("c")

	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 5}})
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 {
		t.Fatalf("invalid InsertOne: %v", err)
	}
	w := we.WriteErrors[0]
	if w.Code != 121 || w.Message != "Document failed validation" {
		t.Fatalf("write error %d %q, want 121 Document failed validation", w.Code, w.Message)
	}
	if id := w.Details.Lookup("failingDocumentId"); id.Int32() != 1 {
		t.Fatalf("failingDocumentId %v in %v", id, w.Details)
	}
	if op := w.Details.Lookup("details", "operatorName").StringValue(); op != "$type" {
		t.Fatalf("details.operatorName %q in %v", op, w.Details)
	}

	_, err = coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 2}}, bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: "x"}}},
		options.InsertMany().SetOrdered(false))
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 0 || bwe.WriteErrors[0].Code != 121 {
		t.Fatalf("unordered InsertMany: %v", err)
	}

	err = coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: 3}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 121 {
		t.Fatalf("invalid FindOneAndUpdate: %v", err)
	}
	if id := ce.Raw.Lookup("errInfo", "failingDocumentId"); id.Int32() != 3 {
		t.Fatalf("findAndModify errInfo: %v", ce.Raw)
	}

	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 4}, {Key: "a", Value: 4}}, options.InsertOne().SetBypassDocumentValidation(true)); err != nil {
		t.Fatalf("InsertOne with bypassDocumentValidation: %v", err)
	}
	n, err := coll.CountDocuments(ctx, bson.D{})
	if err != nil || n != 2 {
		t.Fatalf("count %d (%v), want 2 (_id 3 and the bypassed 4)", n, err)
	}
}
