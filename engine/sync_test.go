package engine

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestSync checks that Sync flushes a store holding an ordinary and a
// capped collection, and reports ErrClosed after Close.
func TestSync(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	ctx := context.Background()
	if err := db.Database("app").CreateCollection(ctx, "ring", bson.D{{Key: "capped", Value: true}, {Key: "size", Value: 4096}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"ring", "plain"} {
		if _, err := db.Database("app").Collection(c).InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	db.Close()
	if err := db.Sync(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Sync after Close: %v, want ErrClosed", err)
	}
}
