package engine

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkExpireSteadyDesc is a TTL steady state: each op inserts 1000
// documents already expired and runs a TTL pass that deletes them. With
// after > 0 as many passes ran before the timer started, leaving their
// tombstones in the index range (no compaction is asked for), so the
// op's cost against after=0 shows whether a pass still walks them
// (docs/ttl-monitor.md, "Why visits keep a low-water mark").
func BenchmarkExpireSteadyDesc(b *testing.B) {
	for _, dir := range []int32{-1, 1} {
		for _, after := range []int{0, 200} {
			b.Run(fmt.Sprintf("dir=%d/after=%d", dir, after), func(b *testing.B) {
				db, clk := openBenchDB(b)
				ctx := context.Background()
				c := db.Database("bench").Collection("docs")
				if _, err := c.CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: "exp", Value: dir}},
					Options: bson.D{{Key: "expireAfterSeconds", Value: int32(5)}}}); err != nil {
					b.Fatal(err)
				}
				docs := make([]any, 1000)
				next := 0
				op := func() {
					insertExpireOnce(b, db, c, clk, docs, &next, func(n int, exp bson.DateTime) bson.D {
						return bson.D{{Key: "_id", Value: int64(n)}, {Key: "exp", Value: exp}, {Key: "n", Value: int64(n)}}
					})
				}
				for range after {
					op()
				}
				b.ResetTimer()
				for range b.N {
					op()
				}
			})
		}
	}
}
