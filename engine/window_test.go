package engine

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestSetWindowFieldsTimeseries runs $setWindowFields over the
// measurements of a time-series collection: per sensor, in time order, a
// running count and a ten-minute moving average, checked against the
// measurements computed here.
func TestSetWindowFieldsTimeseries(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m", "granularity": "minutes"}}`)
	base := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	var ms []any
	for i := range 90 {
		ms = append(ms, bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(base.Add(time.Duration(i) * time.Minute))},
			{Key: "m", Value: fmt.Sprintf("s%d", i%3)}, {Key: "temp", Value: float64(i)}})
	}
	if _, err := db.Database("test").Collection("ts").InsertMany(context.Background(), ms, true); err != nil {
		t.Fatal(err)
	}
	got := aggregateAll(t, db.Database("test").Collection("ts"), bson.A{
		bson.D{{Key: "$setWindowFields", Value: bson.D{
			{Key: "partitionBy", Value: "$m"},
			{Key: "sortBy", Value: bson.D{{Key: "t", Value: 1}}},
			{Key: "output", Value: bson.D{
				{Key: "n", Value: bson.D{{Key: "$count", Value: bson.D{}}, {Key: "window", Value: bson.D{{Key: "documents", Value: bson.A{"unbounded", "current"}}}}}},
				{Key: "avg", Value: bson.D{{Key: "$avg", Value: "$temp"}, {Key: "window", Value: bson.D{{Key: "range", Value: bson.A{-10, 0}}, {Key: "unit", Value: "minute"}}}}},
			}},
		}}},
	})
	if len(got) != 90 {
		t.Fatalf("%d results, want 90", len(got))
	}
	for k, d := range got {
		// Sensor s0 first (minutes 0, 3, 6, ...), then s1, then s2.
		sensor, j := k/30, k%30
		minute := 3*j + sensor
		if field(d, "m") != fmt.Sprintf("s%d", sensor) || field(d, "temp") != float64(minute) {
			t.Fatalf("result %d: %v, want sensor s%d at minute %d", k, d, sensor, minute)
		}
		if n := field(d, "n"); n != int32(j+1) {
			t.Fatalf("result %d: running count %v, want %d", k, n, j+1)
		}
		// Within ten minutes before: this sensor's readings at minute,
		// minute-3, minute-6, minute-9 (those that exist).
		sum, cnt := 0.0, 0
		for m := minute; m >= minute-10 && m >= 0; m -= 3 {
			sum, cnt = sum+float64(m), cnt+1
		}
		if avg := field(d, "avg").(float64); math.Abs(avg-sum/float64(cnt)) > 1e-9 {
			t.Fatalf("result %d: moving average %v, want %v", k, avg, sum/float64(cnt))
		}
	}
	wantCode(t, db, "test", `{"aggregate": "ts", "cursor": {}, "pipeline": [{"$setWindowFields": {"output": {"n": {"$sum": 1, "window": {"documents": [-1, 0]}}}}}]}`,
		document.Code(5339901), "Document-based bounds require a sortBy")
}
