package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestAggregatePercentileTimeseries checks latency percentiles over a
// time-series collection through aggregate: $percentile and $median by
// sensor, each method against the ranks computed here, and a refusal
// with its code in the command's reply.
func TestAggregatePercentileTimeseries(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	mustRun(t, db, "test", `{"create": "lat", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	base := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	bySensor := map[string][]float64{}
	var ms []any
	for i := range 300 {
		s := fmt.Sprintf("s%d", i%3)
		var ms1 any = int32((i * 7919) % 1000) // latency in ms
		if i%50 == 0 {
			ms1 = "timeout" // not a number: ignored
		} else {
			bySensor[s] = append(bySensor[s], float64(ms1.(int32)))
		}
		ms = append(ms, bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(base.Add(time.Duration(i) * time.Second))},
			{Key: "m", Value: bson.D{{Key: "sensor", Value: s}}}, {Key: "ms", Value: ms1}})
	}
	if _, err := db.Database("test").Collection("lat").InsertMany(ctx, ms, true); err != nil {
		t.Fatal(err)
	}
	got := aggregateAll(t, db.Database("test").Collection("lat"), bson.A{
		bson.D{{Key: "$group", Value: bson.D{
			{Key: "_id", Value: "$m.sensor"},
			{Key: "d", Value: bson.D{{Key: "$percentile", Value: bson.D{{Key: "input", Value: "$ms"}, {Key: "p", Value: bson.A{0.5, 0.9, 0.99}}, {Key: "method", Value: "discrete"}}}}},
			{Key: "a", Value: bson.D{{Key: "$percentile", Value: bson.D{{Key: "input", Value: "$ms"}, {Key: "p", Value: bson.A{0.5, 0.9, 0.99}}, {Key: "method", Value: "approximate"}}}}},
			{Key: "med", Value: bson.D{{Key: "$median", Value: bson.D{{Key: "input", Value: "$ms"}, {Key: "method", Value: "continuous"}}}}},
		}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	})
	if len(got) != 3 {
		t.Fatalf("got %d groups, want 3: %v", len(got), got)
	}
	for _, g := range got {
		vs := slices.Sorted(slices.Values(bySensor[field(g, "_id").(string)]))
		n := float64(len(vs))
		var want bson.A
		for _, p := range []float64{0.5, 0.9, 0.99} {
			want = append(want, vs[int(math.Ceil(n*p))-1])
		}
		if document.Compare(field(g, "d"), want) != 0 || document.Compare(field(g, "a"), want) != 0 {
			t.Errorf("%v: discrete %v, approximate %v, want %v", field(g, "_id"), field(g, "d"), field(g, "a"), want)
		}
		r := 0.5 * (n - 1)
		lo, hi := math.Floor(r), math.Ceil(r)
		med := (hi-r)*vs[int(lo)] + (r-lo)*vs[int(hi)]
		if lo == hi {
			med = vs[int(lo)]
		}
		if m, ok := field(g, "med").(float64); !ok || m != med {
			t.Errorf("%v: median %v, want %v", field(g, "_id"), field(g, "med"), med)
		}
	}
	wantCode(t, db, "test", `{"aggregate": "lat", "pipeline": [{"$group": {"_id": null, "p": {"$percentile": {"input": "$ms", "p": [1.5], "method": "discrete"}}}}], "cursor": {}}`, document.Code(7750303), "must be an array of numbers from [0.0, 1.0]")
	wantCode(t, db, "test", `{"aggregate": "lat", "pipeline": [{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"m": {"$median": {"input": "$ms", "method": "exact"}}}}}], "cursor": {}}`, document.CodeBadValue, "percentile 'method'")
}
