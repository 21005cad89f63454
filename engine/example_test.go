package engine_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A TTL index expires documents an hour after their createdAt date.
func Example() {
	dir, _ := os.MkdirTemp("", "ttlkv-example")
	defer os.RemoveAll(dir)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	db, err := engine.Open(dir, engine.Options{Clock: func() time.Time { return now }})
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()
	events := db.Database("app").Collection("events")
	name, _ := events.CreateIndex(ctx, engine.IndexModel{
		Keys:    bson.D{{Key: "createdAt", Value: 1}},
		Options: bson.D{{Key: "expireAfterSeconds", Value: 3600}},
	})
	fmt.Println("created index", name)
	for i, age := range []time.Duration{2 * time.Hour, 30 * time.Minute} {
		events.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "createdAt", Value: bson.NewDateTimeFromTime(now.Add(-age))}})
	}
	res, _ := db.RunTTLPass(ctx)
	n, _ := events.CountDocuments(ctx, bson.D{})
	fmt.Printf("expired %d, kept %d\n", res.Deleted, n)
	// Output:
	// created index createdAt_1
	// expired 1, kept 1
}
