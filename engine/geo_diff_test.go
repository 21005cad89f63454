package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The 2dsphere index is a covering: reading it by the cells of a query's
// region must find every document the region holds or meets. Random
// points, lines and polygons (some across the antimeridian and near the
// poles) against random caps, polygons and lines, through the index and
// by a collection scan, must give the same documents; so must $near
// with bounds, against distances computed by the scan.
func TestGeoIndexMatchesScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 28))
	lng := func() float64 { return rng.Float64()*360 - 180 }
	lat := func() float64 { return rng.Float64()*170 - 85 }
	box := func(x, y, w, h float64) string {
		x2, y2 := x+w, min(y+h, 89.9)
		return fmt.Sprintf(`[[[%g, %g], [%g, %g], [%g, %g], [%g, %g], [%g, %g]]]`, x, y, x2, y, x2, y2, x, y2, x, y)
	}
	wrap := func(x float64) float64 {
		for x > 180 {
			x -= 360
		}
		for x < -180 {
			x += 360
		}
		return x
	}
	var docs []string
	var anchors [][2]float64 // a place in or on each document's geometry
	for i := 0; i < 600; i++ {
		var g string
		x, y := lng(), lat()
		switch i % 6 {
		case 0, 1, 2:
			g = fmt.Sprintf(`{"type": "Point", "coordinates": [%g, %g]}`, x, y)
		case 3:
			g = fmt.Sprintf(`[%g, %g]`, x, y)
		case 4:
			g = fmt.Sprintf(`{"type": "LineString", "coordinates": [[%g, %g], [%g, %g]]}`, x, y, wrap(x+rng.Float64()*3+0.01), min(y+rng.Float64()*3, 89))
		case 5:
			x, y = rng.Float64()*350-180, rng.Float64()*160-80
			g = fmt.Sprintf(`{"type": "Polygon", "coordinates": %s}`, box(x, y, rng.Float64()*4+0.1, rng.Float64()*4+0.1))
		}
		anchors = append(anchors, [2]float64{x, y})
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "loc": %s}`, i, g))
	}
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "scan", docs)
	loadCorpus(t, db, "test", "ix", docs)
	mustRun(t, db, "test", `{"createIndexes": "ix", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}]}`)
	var filters []string
	for i := 0; i < 60; i++ {
		x, y := lng(), lat()
		switch i % 4 {
		case 0:
			filters = append(filters, fmt.Sprintf(`{"loc": {"$geoWithin": {"$centerSphere": [[%g, %g], %g]}}}`, x, y, rng.Float64()*0.5))
		case 1:
			filters = append(filters, fmt.Sprintf(`{"loc": {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": %s}}}}`, box(min(x, 150), y, rng.Float64()*30+1, rng.Float64()*30+1)))
		case 2:
			filters = append(filters, fmt.Sprintf(`{"loc": {"$geoIntersects": {"$geometry": {"type": "Polygon", "coordinates": %s}}}}`, box(min(x, 160), y, rng.Float64()*20+1, rng.Float64()*20+1)))
		case 3:
			filters = append(filters, fmt.Sprintf(`{"loc": {"$geoIntersects": {"$geometry": {"type": "LineString", "coordinates": [[%g, %g], [%g, %g]]}}}}`, x, y, wrap(x+rng.Float64()*40), min(y+rng.Float64()*40, 89)))
		}
	}
	// Small regions at the documents' own places: their coverings are
	// finer than the cells of the larger geometries they meet.
	for i := 0; i < 80; i++ {
		a := anchors[rng.IntN(len(anchors))]
		x, y := a[0]+rng.Float64()*0.02-0.01, min(a[1]+rng.Float64()*0.02-0.01, 89)
		switch i % 3 {
		case 0:
			filters = append(filters, fmt.Sprintf(`{"loc": {"$geoWithin": {"$centerSphere": [[%g, %g], %g]}}}`, wrap(x), y, rng.Float64()*0.001))
		case 1:
			filters = append(filters, fmt.Sprintf(`{"loc": {"$geoIntersects": {"$geometry": {"type": "Polygon", "coordinates": %s}}}}`, box(min(wrap(x), 179), y, rng.Float64()*0.05+0.0001, rng.Float64()*0.05+0.0001)))
		case 2:
			filters = append(filters, fmt.Sprintf(`{"loc": {"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [%g, %g]}}}}`, a[0], a[1]))
		}
	}
	for _, f := range filters {
		want := firstIDs(t, db, `{"find": "scan", "filter": `+f+`, "sort": {"_id": 1}, "batchSize": 1000}`)
		got := firstIDs(t, db, `{"find": "ix", "filter": `+f+`, "sort": {"_id": 1}, "batchSize": 1000}`)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: index %v, scan %v", f, got, want)
		}
		ex := fmt.Sprint(mustRun(t, db, "test", `{"explain": {"find": "ix", "filter": `+f+`}}`))
		if !strings.Contains(ex, "IXSCAN") {
			t.Fatalf("%s: not read through the index: %s", f, ex)
		}
	}
	// $near with a bound: the index's cap must hold every document the
	// bound admits; the scan's $geoWithin of the same cap says which.
	for i := 0; i < 20; i++ {
		x, y, r := lng(), lat(), rng.Float64()*0.3
		near := firstIDs(t, db, fmt.Sprintf(`{"find": "ix", "filter": {"loc": {"$nearSphere": [%g, %g], "$maxDistance": %g}}, "batchSize": 1000}`, x, y, r))
		slices.Sort(near)
		// A document is within r of the point when some part of it is:
		// points by $centerSphere, the others by intersecting the cap,
		// which the scan approximates by their own distance below.
		pts := firstIDs(t, db, fmt.Sprintf(`{"find": "scan", "filter": {"_id": {"$mod": [6, 0]}, "loc": {"$geoWithin": {"$centerSphere": [[%g, %g], %g]}}}, "batchSize": 1000}`, x, y, r))
		for _, id := range pts {
			if _, ok := slices.BinarySearch(near, id); !ok {
				t.Fatalf("$nearSphere [%g, %g] within %g misses point %d", x, y, r, id)
			}
		}
	}
}

// A $near read ring by ring hands out the same documents in the same
// order as sorting every document by its distance: random points and
// lines, random centers, with bounds, skip, limit and small batches
// (each getMore goes on from the ring it stopped in). A limited $near
// reads a few rings, not the whole index.
func TestGeoNearRingsMatchSort(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 9))
	db, _ := openMem(t)
	var docs []string
	n := 3000
	if raceOn {
		n = 1000
	}
	for i := 0; i < n; i++ {
		// Dense around (10, 10), sparse elsewhere.
		x, y := 10+rng.NormFloat64()*0.05, 10+rng.NormFloat64()*0.05
		if i%10 == 0 {
			x, y = rng.Float64()*360-180, rng.Float64()*170-85
		}
		if i%7 == 0 {
			docs = append(docs, fmt.Sprintf(`{"_id": %d, "loc": {"type": "LineString", "coordinates": [[%g, %g], [%g, %g]]}}`, i, x, y, x+0.01, y+0.01))
			continue
		}
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "loc": {"type": "Point", "coordinates": [%g, %g]}}`, i, x, y))
	}
	loadCorpus(t, db, "test", "r", docs)
	mustRun(t, db, "test", `{"createIndexes": "r", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}]}`)
	all := func(near string) []int32 {
		t.Helper()
		// A sort on a field no document has keeps distance order but
		// reads everything first: the reference.
		return firstIDs(t, db, `{"find": "r", "filter": {"loc": `+near+`}, "sort": {"none": 1}, "batchSize": 10000}`)
	}
	ringIDs := func(near string, skip, limit, batch int) []int32 {
		t.Helper()
		r := mustRun(t, db, "test", fmt.Sprintf(`{"find": "r", "filter": {"loc": %s}, "skip": %d, "limit": %d, "batchSize": %d}`, near, skip, limit, batch))
		var ids []int32
		for _, d := range firstBatch(t, r) {
			ids = append(ids, field(d, "_id").(int32))
		}
		for id, _ := field(r, "cursor.id").(int64); id != 0; {
			g := mustRun(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "r", "batchSize": %d}`, id, batch))
			arr, _ := field(g, "cursor.nextBatch").(bson.A)
			for _, d := range arr {
				ids = append(ids, field(d.(bson.D), "_id").(int32))
			}
			id, _ = field(g, "cursor.id").(int64)
		}
		return ids
	}
	for i := 0; i < 12; i++ {
		x, y := 10+rng.NormFloat64()*0.1, 10+rng.NormFloat64()*0.1
		if i%3 == 0 {
			x, y = rng.Float64()*360-180, rng.Float64()*170-85
		}
		nears := []string{
			fmt.Sprintf(`{"$near": {"$geometry": {"type": "Point", "coordinates": [%g, %g]}}}`, x, y),
			fmt.Sprintf(`{"$nearSphere": [%g, %g], "$maxDistance": 0.01}`, x, y),
			fmt.Sprintf(`{"$near": {"$geometry": {"type": "Point", "coordinates": [%g, %g]}, "$minDistance": 2000, "$maxDistance": 900000}}`, x, y),
		}
		for _, near := range nears {
			want := all(near)
			skip, limit, batch := rng.IntN(5), rng.IntN(40), 1+rng.IntN(7)
			got := ringIDs(near, skip, limit, batch)
			w := want[min(skip, len(want)):]
			if limit > 0 && len(w) > limit {
				w = w[:limit]
			}
			if !slices.Equal(got, w) {
				t.Fatalf("%s skip %d limit %d batch %d:\nrings %v\nsort  %v", near, skip, limit, batch, got, w)
			}
		}
	}
	ex := mustRun(t, db, "test", `{"explain": {"find": "r", "filter": {"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [10, 10]}}}}, "limit": 10}, "verbosity": "executionStats"}`)
	if n, _ := field(ex, "executionStats.totalDocsExamined").(int32); n == 0 || n > 600 {
		t.Fatalf("a $near limited to 10 in a dense spot examined %v documents of 3000", field(ex, "executionStats.totalDocsExamined"))
	}
}

// A 2d index answers flat shapes by the grid cells that cover their
// bounding box, and a flat $near ring by ring; both give the collection
// scan's (and the full sort's) answers: random pairs, arrays of pairs
// and documents as pairs, with bits and bounds of the index's own.
func TestGeo2DMatchesScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	db, _ := openMem(t)
	pt := func() string { return fmt.Sprintf(`[%g, %g]`, rng.Float64()*200-100, rng.Float64()*200-100) }
	var docs []string
	for i := 0; i < 1500; i++ {
		switch i % 5 {
		case 0:
			docs = append(docs, fmt.Sprintf(`{"_id": %d, "p": [%s, %s]}`, i, pt(), pt()))
		case 1:
			docs = append(docs, fmt.Sprintf(`{"_id": %d, "p": {"x": %g, "y": %g}}`, i, rng.NormFloat64()*5, rng.NormFloat64()*5))
		case 2:
			docs = append(docs, fmt.Sprintf(`{"_id": %d}`, i))
		default:
			docs = append(docs, fmt.Sprintf(`{"_id": %d, "p": %s}`, i, pt()))
		}
	}
	loadCorpus(t, db, "test", "scan", docs)
	loadCorpus(t, db, "test", "flat", docs)
	mustRun(t, db, "test", `{"createIndexes": "flat", "indexes": [{"key": {"p": "2d"}, "name": "p", "bits": 20, "min": -150, "max": 150}]}`)
	for i := 0; i < 40; i++ {
		x, y, w := rng.Float64()*200-100, rng.Float64()*200-100, rng.Float64()*30
		var f string
		switch i % 3 {
		case 0:
			f = fmt.Sprintf(`{"p": {"$geoWithin": {"$box": [[%g, %g], [%g, %g]]}}}`, x, y, x+w, y+w/2)
		case 1:
			f = fmt.Sprintf(`{"p": {"$geoWithin": {"$center": [[%g, %g], %g]}}}`, x/10, y/10, w/3)
		case 2:
			f = fmt.Sprintf(`{"p": {"$geoWithin": {"$polygon": [[%g, %g], [%g, %g], [%g, %g]]}}}`, x, y, x+w, y, x, y+w)
		}
		want := firstIDs(t, db, `{"find": "scan", "filter": `+f+`, "sort": {"_id": 1}, "batchSize": 5000}`)
		got := firstIDs(t, db, `{"find": "flat", "filter": `+f+`, "sort": {"_id": 1}, "batchSize": 5000}`)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: index %v, scan %v", f, got, want)
		}
		if ex := fmt.Sprint(mustRun(t, db, "test", `{"explain": {"find": "flat", "filter": `+f+`}}`)); !strings.Contains(ex, "IXSCAN") {
			t.Fatalf("%s: not read through the 2d index: %s", f, ex)
		}
	}
	for i := 0; i < 15; i++ {
		x, y := rng.NormFloat64()*20, rng.NormFloat64()*20
		near := fmt.Sprintf(`{"$near": [%g, %g]}`, x, y)
		if i%2 == 1 {
			near = fmt.Sprintf(`{"$near": [%g, %g], "$maxDistance": %g, "$minDistance": %g}`, x, y, rng.Float64()*60, rng.Float64()*5)
		}
		checkNearPage(t, db, "flat", `{"p": `+near+`}`, rng.IntN(4), 1+rng.IntN(30))
	}
	ex := mustRun(t, db, "test", `{"explain": {"find": "flat", "filter": {"p": {"$near": [1, 1]}}, "limit": 5}, "verbosity": "executionStats"}`)
	if n, _ := field(ex, "executionStats.totalDocsExamined").(int32); n == 0 || n > 200 {
		t.Fatalf("a flat $near limited to 5 examined %v documents of 1500", field(ex, "executionStats.totalDocsExamined"))
	}
	// $centerSphere through the 2d index: the box that holds the cap.
	for i := 0; i < 15; i++ {
		x, y, r := rng.Float64()*360-180, rng.Float64()*170-85, rng.Float64()*0.5
		if i%5 == 0 {
			x, y = -179.8, -88
		}
		f := fmt.Sprintf(`{"p": {"$geoWithin": {"$centerSphere": [[%g, %g], %g]}}}`, x, y, r)
		want := firstIDs(t, db, `{"find": "scan", "filter": `+f+`, "sort": {"_id": 1}, "batchSize": 5000}`)
		got := firstIDs(t, db, `{"find": "flat", "filter": `+f+`, "sort": {"_id": 1}, "batchSize": 5000}`)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: index %v, scan %v", f, got, want)
		}
		if ex := fmt.Sprint(mustRun(t, db, "test", `{"explain": {"find": "flat", "filter": `+f+`}}`)); !strings.Contains(ex, "IXSCAN") {
			t.Fatalf("%s: not read through the 2d index: %s", f, ex)
		}
	}
	// $nearSphere through the 2d index: radians on the sphere, ring by
	// ring as longitude and latitude boxes, near the poles and the
	// antimeridian too.
	for i := 0; i < 15; i++ {
		x, y := rng.Float64()*360-180, rng.Float64()*170-85
		if i%5 == 0 {
			x, y = 179.9, 89.5
		}
		near := fmt.Sprintf(`{"$nearSphere": [%g, %g]}`, x, y)
		if i%2 == 1 {
			near = fmt.Sprintf(`{"$nearSphere": [%g, %g], "$maxDistance": %g}`, x, y, rng.Float64())
		}
		checkNearPage(t, db, "flat", `{"p": `+near+`}`, rng.IntN(4), 1+rng.IntN(30))
	}
	ex = mustRun(t, db, "test", `{"explain": {"find": "flat", "filter": {"p": {"$nearSphere": [1, 1]}}, "limit": 5}, "verbosity": "executionStats"}`)
	if n, _ := field(ex, "executionStats.totalDocsExamined").(int32); n == 0 || n > 200 {
		t.Fatalf("a $nearSphere on a 2d index limited to 5 examined %v documents of 1500", field(ex, "executionStats.totalDocsExamined"))
	}
}

// A $near through a compound 2dsphere index whose earlier fields an
// equality (or $in) fixes reads ring by ring under those values: the
// same answers as a full sort, and a limited one reads a few documents.
func TestGeoNearRingsCompoundPrefix(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(41, 42))
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 2000; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "cat": "c%d", "loc": {"type": "Point", "coordinates": [%g, %g]}, "n": %d}`,
			i, i%4, 10+rng.NormFloat64()*0.05, 10+rng.NormFloat64()*0.05, i%10))
	}
	loadCorpus(t, db, "test", "cp", docs)
	mustRun(t, db, "test", `{"createIndexes": "cp", "indexes": [{"key": {"cat": 1, "loc": "2dsphere", "n": 1}, "name": "cat_loc_n"}]}`)
	for i := 0; i < 12; i++ {
		x, y := 10+rng.NormFloat64()*0.1, 10+rng.NormFloat64()*0.1
		pre := []string{`"cat": "c1"`, `"cat": {"$in": ["c0", "c3"]}`, `"cat": "c2", "n": {"$lt": 5}`}[i%3]
		f := fmt.Sprintf(`{%s, "loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [%g, %g]}}}}`, pre, x, y)
		checkNearPage(t, db, "cp", f, rng.IntN(4), 1+rng.IntN(20))
	}
	ex := mustRun(t, db, "test", `{"explain": {"find": "cp", "filter": {"cat": "c1", "loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [10, 10]}}}}, "limit": 5}, "verbosity": "executionStats"}`)
	if n, _ := field(ex, "executionStats.totalDocsExamined").(int32); n == 0 || n > 200 {
		t.Fatalf("a $near under cat c1 limited to 5 examined %v documents (500 in c1)", field(ex, "executionStats.totalDocsExamined"))
	}
}

// checkNearPage checks that a near query's page (skip, limit) read ring
// by ring is the same page of the query forced to read everything and
// sort by distance (a sort on a field no document has).
func checkNearPage(t *testing.T, db *DB, coll, filter string, skip, limit int) {
	t.Helper()
	want := firstIDs(t, db, `{"find": "`+coll+`", "filter": `+filter+`, "sort": {"none": 1}, "batchSize": 5000}`)
	got := firstIDs(t, db, fmt.Sprintf(`{"find": %q, "filter": %s, "skip": %d, "limit": %d}`, coll, filter, skip, limit))
	w := want[min(skip, len(want)):]
	w = w[:min(limit, len(w))]
	if !slices.Equal(got, w) {
		t.Fatalf("%s skip %d limit %d: rings %v, sort %v", filter, skip, limit, got, w)
	}
}
