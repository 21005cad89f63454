package wire_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/ttlkv/ttlkv/engine"
	"github.com/ttlkv/ttlkv/wire"
)

// An application written against the official Go driver uses an
// embedded ttlkv through the in-process dialer; to move to MongoDB it
// changes only its client options (ApplyURI("mongodb://host:27017")
// without SetDialer).
func ExampleServer_Dialer() {
	dir, _ := os.MkdirTemp("", "ttlkv-example")
	defer os.RemoveAll(dir)
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		panic(err)
	}
	defer db.Close()
	srv := wire.NewServer(db, wire.Options{})
	defer srv.Close()

	ctx := context.Background()
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://ttlkv.local").SetDialer(srv.Dialer()))
	if err != nil {
		panic(err)
	}
	defer client.Disconnect(ctx)

	events := client.Database("app").Collection("events")
	_, err = events.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys:    bson.D{{Key: "createdAt", Value: 1}},
		Options: options.Index().SetExpireAfterSeconds(3600),
	})
	if err != nil {
		panic(err)
	}
	events.InsertOne(ctx, bson.D{{Key: "kind", Value: "login"}, {Key: "createdAt", Value: bson.NewDateTimeFromTime(time.Now())}})
	var got struct{ Kind string }
	if err := events.FindOne(ctx, bson.D{{Key: "kind", Value: "login"}}).Decode(&got); err != nil {
		panic(err)
	}
	fmt.Println(got.Kind)
	// Output: login
}
