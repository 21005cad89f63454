package engine

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkInsertExpire inserts 1000 documents of the steady-state
// benchmark's shape (benchmarks/, makeDoc) into a collection with one
// TTL index, already expired, and reaps them with a TTL pass: one
// document's whole life in the steady state, per op 1000 of them. Its
// allocations per op say what ttlkv's own code allocates on that path;
// its time is mostly Badger's.
func BenchmarkInsertExpire(b *testing.B) {
	for _, side := range []string{"ordinary", "clustered"} {
		b.Run(side, func(b *testing.B) {
			db, clk := openBenchDB(b)
			ctx := context.Background()
			if side == "clustered" {
				if err := db.Database("bench").CreateCollection(ctx, "docs", bson.D{{Key: "clusteredIndex", Value: bson.D{
					{Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "unique", Value: true}}}}); err != nil {
					b.Fatal(err)
				}
			}
			c := db.Database("bench").Collection("docs")
			if _, err := c.CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: "exp", Value: 1}},
				Options: bson.D{{Key: "expireAfterSeconds", Value: int32(5)}}}); err != nil {
				b.Fatal(err)
			}
			pad := strings.Repeat("x", 100)
			docs := make([]any, 1000)
			next := 0
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				insertExpireOnce(b, db, c, clk, docs, &next, func(n int, exp bson.DateTime) bson.D {
					return bson.D{{Key: "_id", Value: int64(n)}, {Key: "n", Value: int64(n * 7919 % 1000003)},
						{Key: "exp", Value: exp}, {Key: "name", Value: "user-" + strconv.Itoa(n)}, {Key: "pad", Value: pad}}
				})
			}
		})
	}
}

// openBenchDB opens a DB in a temporary directory with the default
// options, the TTL monitor off and a fake clock; it is closed when b
// ends.
func openBenchDB(b *testing.B) (*DB, *fakeClock) {
	clk := newClock()
	db, err := Open(b.TempDir(), Options{Clock: clk.Now, DisableTTLMonitor: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db, clk
}

// insertExpireOnce is one op of the insert-and-expire benchmarks: it
// fills docs with mk's documents numbered from *next, dated an hour
// before clk's time (so already expired), inserts them into c and runs
// one TTL pass, which must delete exactly them; then the clock moves on
// a millisecond.
func insertExpireOnce(b *testing.B, db *DB, c *Collection, clk *fakeClock, docs []any, next *int, mk func(n int, exp bson.DateTime) bson.D) {
	ctx := context.Background()
	exp := bson.NewDateTimeFromTime(clk.Now().Add(-time.Hour))
	for j := range docs {
		docs[j] = mk(*next, exp)
		*next++
	}
	if _, err := c.InsertMany(ctx, docs, true); err != nil {
		b.Fatal(err)
	}
	res, err := db.RunTTLPass(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if res.Deleted != int64(len(docs)) {
		b.Fatalf("deleted %d, want %d", res.Deleted, len(docs))
	}
	clk.Advance(time.Millisecond)
}
