package engine

import (
	"context"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestDistinct(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	mustRun(t, db, "test", `{"insert": "c", "documents": [
		{"_id": 1, "a": 2, "s": {"t": [{"u": 5}, {"u": 6}]}},
		{"_id": 2, "a": [1, 2, [3]], "s": {"t": {"u": 5}}},
		{"_id": 3, "a": {"$numberLong": "1"}, "s": [{"t": [{"u": 7}]}]},
		{"_id": 4, "a": 1.0, "s": {"t": [[{"u": 9}]]}},
		{"_id": 5, "a": [], "b": null},
		{"_id": 6, "a": "x", "s": {"t": [10, 11]}}
	]}`)
	cases := []struct {
		key, filter string
		want        bson.A
	}{
		// 1, NumberLong(1) and 1.0 are one value; the nested array is a value.
		{"a", `{}`, bson.A{int32(1), int32(2), "x", bson.A{int32(3)}}},
		{"a", `{"_id": {"$gte": 5}}`, bson.A{"x"}},
		{"a.0", `{}`, bson.A{int32(1)}},
		// Arrays along the path are traversed; arrays of arrays are not.
		{"s.t.u", `{}`, bson.A{int32(5), int32(6), int32(7)}},
		{"s.t", `{"_id": 6}`, bson.A{int32(10), int32(11)}},
		{"b", `{}`, bson.A{nil}},
		{"nosuch", `{}`, bson.A{}},
	}
	for _, tc := range cases {
		r := mustRun(t, db, "test", `{"distinct": "c", "key": "`+tc.key+`", "query": `+tc.filter+`}`)
		got, _ := document.Get(r, "values")
		if document.Compare(got, tc.want) != 0 || len(got.(bson.A)) != len(tc.want) {
			t.Errorf("distinct %s %s = %v, want %v", tc.key, tc.filter, got, tc.want)
		}
	}
	// The Go API returns the same values.
	vals, err := db.Database("test").Collection("c").Distinct(ctx, "a", bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 3}}}})
	if err != nil || document.Compare(bson.A(vals), bson.A{int32(1), int32(2), bson.A{int32(3)}}) != 0 {
		t.Errorf("Collection.Distinct = %v, %v", vals, err)
	}
	r := mustRun(t, db, "test", `{"distinct": "nosuch", "key": "a"}`)
	if v, _ := document.Get(r, "values"); len(v.(bson.A)) != 0 {
		t.Errorf("distinct on a missing collection = %v, want []", v)
	}
	wantCode(t, db, "test", `{"distinct": "c"}`, document.CodeFailedToParse, "'distinct.key' is missing")
	wantCode(t, db, "test", `{"distinct": "c", "key": 1}`, document.CodeTypeMismatch, "expected type 'string'")
	wantCode(t, db, "test", `{"distinct": "c", "key": ""}`, document.CodeBadValue, "empty")
	wantCode(t, db, "test", `{"distinct": "c", "key": "$a"}`, document.CodeBadValue, "'$'")
	wantCode(t, db, "test", `{"distinct": "c", "key": "a", "query": {"a": {"$bad": 1}}}`, document.CodeBadValue, "$bad")
}

// TestDistinctOtherKinds checks distinct over capped collections (ring
// records) and time-series collections (unpacked measurements).
func TestDistinctOtherKinds(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	mustRun(t, db, "test", `{"create": "cap", "capped": true, "size": 4096, "max": 2}`)
	for i := range 4 {
		if _, err := db.Database("test").Collection("cap").InsertOne(ctx, bson.D{{Key: "i", Value: int32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	vals, err := db.Database("test").Collection("cap").Distinct(ctx, "i", nil)
	if err != nil || document.Compare(bson.A(vals), bson.A{int32(2), int32(3)}) != 0 {
		t.Errorf("capped distinct = %v, %v; want the two surviving values", vals, err)
	}
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 6 {
		d := bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(base.Add(time.Duration(i) * time.Minute))},
			{Key: "m", Value: int32(i % 3)}, {Key: "v", Value: int32(i / 2)}}
		if _, err := db.Database("test").Collection("ts").InsertOne(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	vals, err = db.Database("test").Collection("ts").Distinct(ctx, "v", bson.D{{Key: "m", Value: int32(0)}})
	if err != nil || document.Compare(bson.A(vals), bson.A{int32(0), int32(1)}) != 0 {
		t.Errorf("time-series distinct = %v, %v; want [0 1]", vals, err)
	}
}
