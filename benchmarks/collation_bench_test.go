package benchmarks

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// collationN is the number of documents the collation benchmark queries.
var collationN = envInt("TTLKV_BENCH_COLLATION_N", 20_000)

// BenchmarkCollation times the same find under the simple collation and
// under {locale: "en", strength: 2}, interleaved in one run so both see
// the same machine load, and reports the medians and their ratio
// (x-simple; the target is at most 2). Phases:
//
//   - find: a range filter on a string field, collection scan;
//   - sort: the same with a sort on the string field (an in-memory sort);
//   - ixfind: an equality on a field indexed with the query's collation
//     against the same equality on a simple index.
func BenchmarkCollation(b *testing.B) {
	ctx := context.Background()
	db, err := engine.Open(b.TempDir(), engine.Options{DisableTTLMonitor: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	c := db.Database("bench").Collection("c")
	r := rand.New(rand.NewSource(1))
	words := []string{"apple", "Äpfel", "banana", "Cherry", "éclair", "item10", "item9", "zebra", "Ωmega", "日本"}
	docs := make([]any, 0, 1000)
	for i := 0; i < collationN; i++ {
		w := fmt.Sprintf("%s-%d", words[r.Intn(len(words))], r.Intn(1000))
		if r.Intn(2) == 0 {
			w = strings.ToUpper(w)
		}
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: w}, {Key: "k", Value: w}, {Key: "ks", Value: w}})
		if len(docs) == cap(docs) {
			if _, err := c.InsertMany(ctx, docs, true); err != nil {
				b.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	if len(docs) > 0 {
		if _, err := c.InsertMany(ctx, docs, true); err != nil {
			b.Fatal(err)
		}
	}
	coll := bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}}
	mustCmd := func(cmd bson.D) {
		if _, err := db.RunCommand(ctx, "bench", cmd); err != nil {
			b.Fatal(err)
		}
	}
	mustCmd(bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "k", Value: int32(1)}}}, {Key: "name", Value: "k_coll"}, {Key: "collation", Value: coll}},
		bson.D{{Key: "key", Value: bson.D{{Key: "ks", Value: int32(1)}}}, {Key: "name", Value: "ks_simple"}},
	}}})
	run := func(filter, sort bson.D, collation bson.D) time.Duration {
		start := time.Now()
		cur, err := c.Find(ctx, filter, engine.FindOptions{Sort: sort, Collation: collation})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cur.All(ctx); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	rng := bson.D{{Key: "s", Value: bson.D{{Key: "$gte", Value: "c"}, {Key: "$lt", Value: "j"}}}}
	phases := []struct {
		name                 string
		simpleF, collF, sort bson.D
	}{
		{"find", rng, rng, nil},
		{"sort", rng, rng, bson.D{{Key: "s", Value: int32(1)}}},
		{"ixfind", bson.D{{Key: "ks", Value: "banana-7"}}, bson.D{{Key: "k", Value: "BANANA-7"}}, nil},
	}
	for _, ph := range phases {
		b.Run(ph.name, func(b *testing.B) {
			var simple, collated []time.Duration
			for i := 0; i < b.N; i++ {
				simple = append(simple, run(ph.simpleF, ph.sort, nil))
				collated = append(collated, run(ph.collF, ph.sort, coll))
			}
			ms, mc := medianDur(simple), medianDur(collated)
			b.ReportMetric(float64(ms.Microseconds()), "simple-us")
			b.ReportMetric(float64(mc.Microseconds()), "collated-us")
			b.ReportMetric(mc.Seconds()/ms.Seconds(), "x-simple")
		})
	}
}

func medianDur(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
