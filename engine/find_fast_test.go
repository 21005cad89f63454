package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// FindOne's _id fast path returns what the planner's path returns, for
// every _id type it takes and for values equal across numeric types.
func TestFindByIDMatchesPlanner(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	c := db.Database("test").Collection("c")
	oid := bson.NewObjectID()
	when := bson.NewDateTimeFromTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	ids := []any{int32(1), int64(2), 3.5, "a", "ab", oid, when, true, bson.D{{Key: "x", Value: 1}}}
	for i, id := range ids {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "i", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		v       any
		want    any // i of the document, nil: none
		handled bool
	}{
		{int32(1), 0, true}, {int64(1), 0, true}, {1.0, 0, true},
		{int32(2), 1, true}, {2.0, 1, true}, {3.5, 2, true}, {3.0, nil, true},
		{"a", 3, true}, {"ab", 4, true}, {"", nil, true},
		{oid, 5, true}, {when, 6, true}, {true, 7, true}, {false, nil, true},
		{math.NaN(), nil, false}, {nil, nil, false},
		{bson.D{{Key: "x", Value: 1}}, 8, false},
		{bson.D{{Key: "$gt", Value: 3}}, 2, false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%T(%v)", tc.v, tc.v), func(t *testing.T) {
			f := bson.D{{Key: "_id", Value: tc.v}}
			_, handled, err := db.findByID("test", "c", f, FindOptions{Limit: 1})
			if err != nil || handled != tc.handled {
				t.Fatalf("fast path handled=%v err=%v, want handled=%v", handled, err, tc.handled)
			}
			d, err := c.FindOne(ctx, f)
			slow := findAll(t, db, "test", "c", f)
			if tc.want == nil {
				if !errors.Is(err, ErrNoDocuments) || len(slow) != 0 {
					t.Fatalf("FindOne = %v, %v; planner found %d", d, err, len(slow))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := field(d, "i"); fmt.Sprint(got) != fmt.Sprint(tc.want) || len(slow) == 0 || fmt.Sprint(field(slow[0], "i")) != fmt.Sprint(got) {
				t.Fatalf("FindOne i=%v, planner %v, want %v", got, slow, tc.want)
			}
		})
	}
	// Options and unknown collections.
	if _, handled, _ := db.findByID("test", "c", bson.D{{Key: "_id", Value: "a"}}, FindOptions{Projection: bson.D{{Key: "i", Value: 1}}}); handled {
		t.Error("fast path took a projection")
	}
	if _, err := db.Database("test").Collection("none").FindOne(ctx, bson.D{{Key: "_id", Value: 1}}); !errors.Is(err, ErrNoDocuments) {
		t.Errorf("missing collection: %v", err)
	}
	if _, err := db.Database("test").Collection("bad$name").FindOne(ctx, bson.D{{Key: "_id", Value: 1}}); err == nil {
		t.Error("invalid collection name accepted")
	}
}
