package benchmarks

import (
	"context"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// textN is how many documents the text search benchmark holds.
var textN = envInt("TTLKV_BENCH_TEXT_N", 50_000)

// BenchmarkTextSearch measures a text index in the same run as the work
// it saves or costs: insert-x-plain is the insert time of documents of
// ten English words into a collection with a text index over the same
// into one without (the index's cost), and search-x-regex the time of a
// $text query for a word one document in a thousand holds over a
// case-insensitive $regex collection scan finding the same documents
// (the index's gain); medians of five rounds.
func BenchmarkTextSearch(b *testing.B) {
	ctx := context.Background()
	words := strings.Fields("apple river stone cloud market garden silver engine window forest music paper " +
		"winter bridge candle ocean letter mirror planet rocket tunnel violet yellow harbor island jungle")
	rng := rand.New(rand.NewPCG(1, 2))
	docs := make([]any, textN)
	for i := range docs {
		var w []string
		for range 10 {
			w = append(w, words[rng.IntN(len(words))])
		}
		if i%1000 == 7 {
			w[3] = "zeppelin"
		}
		docs[i] = bson.D{{Key: "_id", Value: int64(i)}, {Key: "body", Value: strings.Join(w, " ")}}
	}
	load := func(text bool) (*engine.Collection, time.Duration) {
		db, err := engine.Open(b.TempDir(), engine.Options{DisableTTLMonitor: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		c := db.Database("bench").Collection("posts")
		if text {
			if _, err := c.CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "body", Value: "text"}}}); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		for i := 0; i < len(docs); i += 1000 {
			if _, err := c.InsertMany(ctx, docs[i:min(i+1000, len(docs))], true); err != nil {
				b.Fatal(err)
			}
		}
		return c, time.Since(start)
	}
	med := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	want := (textN + 992) / 1000
	count := func(c *engine.Collection, filter bson.D) time.Duration {
		start := time.Now()
		n, err := c.CountDocuments(ctx, filter)
		if err != nil || int(n) != want {
			b.Fatalf("%v: %d, %v; want %d", filter, n, err, want)
		}
		return time.Since(start)
	}
	for it := 0; it < b.N; it++ {
		var withIx, plain, text, regex []time.Duration
		var c *engine.Collection
		for range 5 {
			var d time.Duration
			c, d = load(true)
			withIx = append(withIx, d)
			_, d = load(false)
			plain = append(plain, d)
			text = append(text, count(c, bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: "Zeppelin"}}}}))
			regex = append(regex, count(c, bson.D{{Key: "body", Value: bson.Regex{Pattern: `\bzeppelin\b`, Options: "i"}}}))
		}
		w, p, t, r := med(withIx), med(plain), med(text), med(regex)
		b.ReportMetric(float64(w)/float64(p), "insert-x-plain")
		b.ReportMetric(float64(t)/float64(r), "search-x-regex")
		b.ReportMetric(float64(t.Microseconds()), "search-us")
		b.ReportMetric(float64(r.Microseconds()), "regex-us")
		b.ReportMetric(float64(len(docs))/w.Seconds(), "docs/s-indexed")
	}
}
