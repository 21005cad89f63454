package engine_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Hourly averages of a time-series collection's measurements.
func ExampleCollection_Aggregate() {
	dir, _ := os.MkdirTemp("", "ttlkv-example")
	defer os.RemoveAll(dir)
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()
	app := db.Database("app")
	if err := app.CreateCollection(ctx, "weather", bson.D{{Key: "timeseries", Value: bson.D{
		{Key: "timeField", Value: "ts"}, {Key: "metaField", Value: "sensor"}}}}); err != nil {
		panic(err)
	}
	weather := app.Collection("weather")
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for i := range 6 {
		weather.InsertOne(ctx, bson.D{{Key: "ts", Value: bson.NewDateTimeFromTime(start.Add(time.Duration(i) * 20 * time.Minute))},
			{Key: "sensor", Value: "s1"}, {Key: "temp", Value: float64(10 + i)}})
	}
	cur, err := weather.Aggregate(ctx, bson.A{
		bson.D{{Key: "$group", Value: bson.D{
			{Key: "_id", Value: bson.D{{Key: "$dateTrunc", Value: bson.D{{Key: "date", Value: "$ts"}, {Key: "unit", Value: "hour"}}}}},
			{Key: "avg", Value: bson.D{{Key: "$avg", Value: "$temp"}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	})
	if err != nil {
		panic(err)
	}
	for cur.Next(ctx) {
		hour := cur.Current[0].Value.(bson.DateTime).Time().UTC().Format("15:04")
		fmt.Println(hour, cur.Current[1].Value)
	}
	// Output:
	// 10:00 11
	// 11:00 14
}
