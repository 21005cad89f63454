package wire

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A capped collection through the official driver as a mongod 7.0 user
// meets it (docs/capped.md §7): deletes and size-changing updates work,
// a plain cursor overrun by inserts fails with 136 as mongod words it,
// and tailable on a collection that is not capped is 2 BadValue.
func TestDriverCappedMongod70(t *testing.T) {
	t.Parallel()
	transports(t, func(t *testing.T, inproc bool) {
		e := newEnv(t, Options{})
		ctx := context.Background()
		db := e.client(t, inproc).Database("app")
		if err := db.CreateCollection(ctx, "log", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<16).SetMaxDocuments(5)); err != nil {
			t.Fatal(err)
		}
		lc := db.Collection("log")
		for i := range 5 {
			if _, err := lc.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "s", Value: "abcdef"}}); err != nil {
				t.Fatal(err)
			}
		}
		if res, err := lc.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil || res.DeletedCount != 1 {
			t.Fatalf("DeleteOne: %+v %v", res, err)
		}
		if res, err := lc.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 3}}}}); err != nil || res.DeletedCount != 2 {
			t.Fatalf("DeleteMany: %+v %v", res, err)
		}
		if res, err := lc.UpdateOne(ctx, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: "ab"}}}}); err != nil || res.ModifiedCount != 1 {
			t.Fatalf("shrinking UpdateOne: %+v %v", res, err)
		}
		var got []bson.M
		cur, err := lc.Find(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		if err := cur.All(ctx, &got); err != nil || len(got) != 2 || got[0]["_id"] != int32(0) || got[1]["s"] != "ab" {
			t.Fatalf("after deletes and update: %v %v", got, err)
		}
		if n, err := lc.CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
			t.Fatalf("CountDocuments %d %v", n, err)
		}

		// capped_max1.js: a cursor whose position the inserts overwrite.
		for i := 10; i < 15; i++ {
			lc.InsertOne(ctx, bson.D{{Key: "_id", Value: i}})
		}
		cur, err = lc.Find(ctx, bson.D{}, options.Find().SetBatchSize(2))
		if err != nil {
			t.Fatal(err)
		}
		defer cur.Close(ctx)
		cur.Next(ctx)
		cur.Next(ctx)
		for i := 20; i < 30; i++ {
			lc.InsertOne(ctx, bson.D{{Key: "_id", Value: i}})
		}
		for cur.Next(ctx) {
		}
		var ce mongo.ServerError
		if !errors.As(cur.Err(), &ce) || !ce.HasErrorCode(136) ||
			!strings.Contains(cur.Err().Error(), "Executor error during getMore :: caused by :: CollectionScan died due to position in capped collection being deleted. Last seen record id: RecordId(") {
			t.Fatalf("overrun cursor: %v", cur.Err())
		}

		db.Collection("plain").InsertOne(ctx, bson.D{{Key: "a", Value: 1}})
		_, err = db.Collection("plain").Find(ctx, bson.D{}, options.Find().SetCursorType(options.Tailable))
		if cmdCode(t, err) != 2 || !strings.Contains(err.Error(), "tailable cursor requested on non capped collection") {
			t.Fatalf("tailable on a collection that is not capped: %v", err)
		}
	})
}
