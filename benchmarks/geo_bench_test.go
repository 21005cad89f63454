package benchmarks

import (
	"context"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// geoN is how many positions BenchmarkGeo loads.
const geoN = 50_000

// BenchmarkGeo loads geoN positions around a city center (GeoJSON
// points, a normal spread of about 5 km) into a collection with a
// 2dsphere index and into one without, in batches of 1,000, then asks,
// from random places, for the ten nearest ($near with a limit, read
// ring by ring) against the same $near forced to read every document
// (a sort on a field no document has), and counts the positions within
// 500 m ($geoWithin $centerSphere) through the index against a
// collection scan. Medians of 15 queries; the loads' median of three.
func BenchmarkGeo(b *testing.B) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	const lng0, lat0 = 2.35, 48.85
	docs := make([]any, geoN)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int64(i)}, {Key: "at", Value: bson.D{{Key: "type", Value: "Point"},
			{Key: "coordinates", Value: bson.A{lng0 + rng.NormFloat64()*0.07, lat0 + rng.NormFloat64()*0.045}}}}}
	}
	load := func(indexed bool) (*engine.Collection, time.Duration) {
		db, err := engine.Open(b.TempDir(), engine.Options{DisableTTLMonitor: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		c := db.Database("bench").Collection("positions")
		if indexed {
			if _, err := c.CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "at", Value: "2dsphere"}}}); err != nil {
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
	point := func() bson.D {
		return bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{lng0 + rng.NormFloat64()*0.05, lat0 + rng.NormFloat64()*0.03}}}
	}
	find := func(c *engine.Collection, filter bson.D, o engine.FindOptions, want int) time.Duration {
		start := time.Now()
		cur, err := c.Find(ctx, filter, o)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for cur.Next(ctx) {
			n++
		}
		if err := cur.Err(); err != nil || want >= 0 && n != want {
			b.Fatalf("%v: %d documents, %v; want %d", filter, n, err, want)
		}
		return time.Since(start)
	}
	for it := 0; it < b.N; it++ {
		var withIx, plain []time.Duration
		var c, p *engine.Collection
		for range 3 {
			var d time.Duration
			c, d = load(true)
			withIx = append(withIx, d)
			p, d = load(false)
			plain = append(plain, d)
		}
		var rings, full, within, scan []time.Duration
		for range 15 {
			near := bson.D{{Key: "at", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point()}}}}}}
			rings = append(rings, find(c, near, engine.FindOptions{Limit: 10}, 10))
			full = append(full, find(c, near, engine.FindOptions{Limit: 10, Sort: bson.D{{Key: "none", Value: 1}}}, 10))
			at := point()[1].Value
			circle := bson.D{{Key: "at", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$centerSphere", Value: bson.A{at, 500 / 6378100.0}}}}}}}
			nIx, err := c.CountDocuments(ctx, circle)
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			c.CountDocuments(ctx, circle)
			within = append(within, time.Since(start))
			start = time.Now()
			nScan, err := p.CountDocuments(ctx, circle)
			scan = append(scan, time.Since(start))
			if err != nil || nScan != nIx {
				b.Fatalf("within 500 m: index %d, scan %d, %v", nIx, nScan, err)
			}
		}
		w, pl, r, f, wi, sc := med(withIx), med(plain), med(rings), med(full), med(within), med(scan)
		b.ReportMetric(float64(w)/float64(pl), "insert-x-plain")
		b.ReportMetric(float64(geoN)/w.Seconds(), "docs/s-indexed")
		b.ReportMetric(float64(r.Microseconds()), "near10-us")
		b.ReportMetric(float64(f.Microseconds()), "nearall-us")
		b.ReportMetric(float64(r)/float64(f), "near10-x-all")
		b.ReportMetric(float64(wi.Microseconds()), "within-us")
		b.ReportMetric(float64(sc.Microseconds()), "scan-us")
		b.ReportMetric(float64(wi)/float64(sc), "within-x-scan")
	}
}
