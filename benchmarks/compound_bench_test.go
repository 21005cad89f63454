package benchmarks

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// compoundN is how many documents the compound-index benchmark holds:
// compoundTenants tenants, one document a second each.
var compoundN = envInt("TTLKV_BENCH_COMPOUND_N", 200_000)

const compoundTenants = 200

// BenchmarkCompoundRange times the query a TTL store's readers make most,
// one tenant's recent documents ({tenant: t, at: {$gte: since}}) over an
// index on {tenant: 1, at: 1}, against fetching the same documents by
// _id with $in, interleaved in one run (medians of rounds; x-by-id is
// the first over the second, 1 being as fast as reading those documents
// straight from the _id index). A planner that bounds only the index's
// first field reads all of the tenant's documents; one that bounds both
// reads the ones returned. or-us is the same documents asked as an $or
// (the range, or an _id no document has), which only an index union
// answers without reading the whole collection. count-us counts one
// tenant's documents; skip-us reads every tenant's last document through
// the index with the tenant unbounded, where a scan that seeks past the
// keys out of bounds reads a few of each tenant's keys and one that does
// not reads them all.
func BenchmarkCompoundRange(b *testing.B) {
	ctx := context.Background()
	db, err := engine.Open(b.TempDir(), engine.Options{DisableTTLMonitor: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	c := db.Database("bench").Collection("events")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pad := make([]byte, 100)
	for i := range pad {
		pad[i] = 'p'
	}
	docs := make([]any, 0, 1000)
	for i := range compoundN {
		docs = append(docs, bson.D{{Key: "_id", Value: int64(i)}, {Key: "tenant", Value: int32(i % compoundTenants)},
			{Key: "at", Value: bson.NewDateTimeFromTime(base.Add(time.Duration(i) * time.Second))}, {Key: "pad", Value: string(pad)}})
		if len(docs) == cap(docs) || i == compoundN-1 {
			if _, err := c.InsertMany(ctx, docs, true); err != nil {
				b.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	if _, err := c.CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "tenant", Value: 1}, {Key: "at", Value: 1}}}); err != nil {
		b.Fatal(err)
	}
	// Tenant 7's last 25 documents.
	const want = 25
	since := base.Add(time.Duration(compoundN-want*compoundTenants) * time.Second)
	var idList bson.A
	for i := compoundN - want*compoundTenants; i < compoundN; i++ {
		if i%compoundTenants == 7 {
			idList = append(idList, int64(i))
		}
	}
	var find func(filter bson.D, hint any, want int) time.Duration
	run := func(filter bson.D) time.Duration { return find(filter, nil, want) }
	find = func(filter bson.D, hint any, want int) time.Duration {
		start := time.Now()
		for range 20 {
			var opts []engine.FindOptions
			if hint != nil {
				opts = append(opts, engine.FindOptions{Hint: hint})
			}
			cur, err := c.Find(ctx, filter, opts...)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for cur.Next(ctx) {
				n++
			}
			cur.Close(ctx)
			if n != want {
				b.Fatalf("%v: %d documents, want %d", filter, n, want)
			}
		}
		return time.Since(start) / 20
	}
	ranged := bson.D{{Key: "tenant", Value: int32(7)}, {Key: "at", Value: bson.D{{Key: "$gte", Value: bson.NewDateTimeFromTime(since)}}}}
	byID := bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: idList}}}}
	// The same documents as an $or of the tenant's recent ones and an _id
	// no document has: an index union, or a collection scan without one.
	either := bson.D{{Key: "$or", Value: bson.A{ranged, bson.D{{Key: "_id", Value: int64(-1)}}}}}
	// Counting one tenant's documents (1,000): the index's keys alone
	// answer it, or each document is fetched.
	tenant := bson.D{{Key: "tenant", Value: int32(7)}}
	count := func() time.Duration {
		start := time.Now()
		for range 20 {
			n, err := c.CountDocuments(ctx, tenant)
			if err != nil || n != int64(compoundN/compoundTenants) {
				b.Fatalf("count: %d, %v", n, err)
			}
		}
		return time.Since(start) / 20
	}
	// Every tenant's last document ({at: {$gte: last}} through the index,
	// which bounds no tenant): 200 documents from 200,000 keys, unless the
	// scan seeks past each tenant's older keys.
	last := bson.D{{Key: "at", Value: bson.D{{Key: "$gte", Value: bson.NewDateTimeFromTime(base.Add(time.Duration(compoundN-compoundTenants) * time.Second))}}}}
	hint := bson.D{{Key: "tenant", Value: 1}, {Key: "at", Value: 1}}
	for it := 0; it < b.N; it++ {
		var rs, is, os, cs, ss []time.Duration
		for range 5 {
			rs = append(rs, run(ranged))
			is = append(is, run(byID))
			os = append(os, run(either))
			cs = append(cs, count())
			ss = append(ss, find(last, hint, compoundTenants))
		}
		med := func(d []time.Duration) time.Duration {
			sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
			return d[len(d)/2]
		}
		r, i, o := med(rs), med(is), med(os)
		b.ReportMetric(float64(med(cs).Microseconds()), "count-us")
		b.ReportMetric(float64(med(ss).Microseconds()), "skip-us")
		b.ReportMetric(float64(o.Microseconds()), "or-us")
		b.ReportMetric(float64(o)/float64(i), "or-x-by-id")
		b.ReportMetric(float64(r.Microseconds()), "ranged-us")
		b.ReportMetric(float64(i.Microseconds()), "by-id-us")
		b.ReportMetric(float64(r)/float64(i), "x-by-id")
	}
}

// BenchmarkMultikeyRange times one tag's recent documents
// ({tags: t, at: {$gte: since}}) over a multikey index on
// {tags: 1, at: 1}, against the same documents by _id with $in
// (x-by-id, medians of rounds, as BenchmarkCompoundRange). An index
// bounded on its first field only reads every document with the tag
// (1,000); one bounded on both reads the 25 returned. window-us is
// the same tag's 25 documents in the middle of the history ({at:
// {$gte: t, $lt: u}}): with at known never to hold an array, both ends
// bound the scan; bounded by one conjunct, it reads half the tag's.
func BenchmarkMultikeyRange(b *testing.B) {
	ctx := context.Background()
	db, err := engine.Open(b.TempDir(), engine.Options{DisableTTLMonitor: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	c := db.Database("bench").Collection("tagged")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := compoundN / 2
	tags := compoundTenants / 2
	docs := make([]any, 0, 1000)
	for i := range n {
		docs = append(docs, bson.D{{Key: "_id", Value: int64(i)},
			{Key: "tags", Value: bson.A{fmt.Sprintf("t%d", i%tags), fmt.Sprintf("g%d", i%7)}},
			{Key: "at", Value: bson.NewDateTimeFromTime(base.Add(time.Duration(i) * time.Second))}})
		if len(docs) == cap(docs) || i == n-1 {
			if _, err := c.InsertMany(ctx, docs, true); err != nil {
				b.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	if _, err := c.CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "tags", Value: 1}, {Key: "at", Value: 1}}}); err != nil {
		b.Fatal(err)
	}
	const want = 25
	since := base.Add(time.Duration(n-want*tags) * time.Second)
	var idList bson.A
	for i := n - want*tags; i < n; i++ {
		if i%tags == 7 {
			idList = append(idList, int64(i))
		}
	}
	run := func(filter bson.D, o ...engine.FindOptions) time.Duration {
		start := time.Now()
		for range 20 {
			cur, err := c.Find(ctx, filter, o...)
			if err != nil {
				b.Fatal(err)
			}
			got := 0
			for cur.Next(ctx) {
				got++
			}
			cur.Close(ctx)
			if got != want {
				b.Fatalf("%v: %d documents, want %d", filter, got, want)
			}
		}
		return time.Since(start) / 20
	}
	ranged := bson.D{{Key: "tags", Value: "t7"}, {Key: "at", Value: bson.D{{Key: "$gte", Value: bson.NewDateTimeFromTime(since)}}}}
	// One tag's documents in a window in the middle of the history:
	// both ends bound at, on whose path no document holds an array.
	mid := base.Add(time.Duration(n/2) * time.Second)
	window := bson.D{{Key: "tags", Value: "t7"}, {Key: "at", Value: bson.D{
		{Key: "$gte", Value: bson.NewDateTimeFromTime(mid)},
		{Key: "$lt", Value: bson.NewDateTimeFromTime(mid.Add(time.Duration(want*tags) * time.Second))}}}}
	byID := bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: idList}}}}
	for it := 0; it < b.N; it++ {
		var rs, ws, ns, is []time.Duration
		for range 5 {
			rs = append(rs, run(ranged))
			ws = append(ws, run(window))
			ns = append(ns, run(bson.D{{Key: "tags", Value: "t7"}}, engine.FindOptions{Sort: bson.D{{Key: "at", Value: -1}}, Limit: want}))
			is = append(is, run(byID))
		}
		med := func(d []time.Duration) time.Duration {
			sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
			return d[len(d)/2]
		}
		r, w, nw, i := med(rs), med(ws), med(ns), med(is)
		b.ReportMetric(float64(r.Microseconds()), "ranged-us")
		b.ReportMetric(float64(w.Microseconds()), "window-us")
		b.ReportMetric(float64(i.Microseconds()), "by-id-us")
		b.ReportMetric(float64(r)/float64(i), "x-by-id")
		b.ReportMetric(float64(w)/float64(i), "window-x-by-id")
		b.ReportMetric(float64(nw.Microseconds()), "newest-us")
		b.ReportMetric(float64(nw)/float64(i), "newest-x-by-id")
	}
}
