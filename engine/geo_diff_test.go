package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
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
