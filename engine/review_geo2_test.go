package engine

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// geo2IDs returns the _ids of docs in order.
func geo2IDs(ds []bson.D) []int32 {
	out := []int32{}
	for _, d := range ds {
		out = append(out, field(d, "_id").(int32))
	}
	return out
}

// geo2Dups returns the ids that occur more than once.
func geo2Dups(ids []int32) []int32 {
	seen := map[int32]int{}
	var out []int32
	for _, id := range ids {
		seen[id]++
		if seen[id] == 2 {
			out = append(out, id)
		}
	}
	return out
}

type geo2Pt struct {
	id   int32
	x, y float64
}

// geo2FlatOrder returns the ids of pts within [lo, hi] of (x, y), by
// flat distance (ties: any order, so the result is the sorted
// distances too).
func geo2FlatOrder(pts []geo2Pt, x, y, lo, hi float64) ([]int32, []float64) {
	type r struct {
		id int32
		d  float64
	}
	var rs []r
	for _, p := range pts {
		d := math.Hypot(p.x-x, p.y-y)
		if d >= lo && d <= hi {
			rs = append(rs, r{p.id, d})
		}
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].d < rs[j].d })
	ids, ds := []int32{}, []float64{}
	for _, e := range rs {
		ids = append(ids, e.id)
		ds = append(ds, e.d)
	}
	return ids, ds
}

// geo2Same reports whether got and want hold the same ids (as sets) and
// got is ordered by non-decreasing distance per dist.
func geo2CheckOrder(t *testing.T, what string, got, want []int32, dist map[int32]float64) {
	t.Helper()
	if d := geo2Dups(got); len(d) > 0 {
		t.Errorf("%s: duplicates %v in %v", what, d, got)
	}
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Errorf("%s: got %d ids %v, want %d ids %v", what, len(got), got, len(want), want)
		return
	}
	for i := 1; i < len(got); i++ {
		if dist[got[i]] < dist[got[i-1]] {
			t.Errorf("%s: not nearest first at %d: %v (%v) before %v (%v)", what, i, got[i-1], dist[got[i-1]], got[i], dist[got[i]])
			return
		}
	}
}

// A 2d index with bits 32 keys 64-bit cell numbers: its whole-grid cell
// (and any range crossing 2^63) must still be read. A $box over the whole
// grid, and a $near that widens past the grid, through the index, must
// agree with a collection scan.
func TestReviewGeo2Bits32(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "b", "indexes": [{"key": {"p": "2d"}, "name": "p", "bits": 32}]}`)
	pts := []geo2Pt{{1, 0, 0}, {2, 100, 100}, {3, -170, -170}, {4, 170, -170}, {5, -170, 170}, {6, 179.5, 179.5}, {7, 0.001, 0}}
	var docs []string
	for _, p := range pts {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "p": [%v, %v]}`, p.id, p.x, p.y))
	}
	loadCorpus(t, db, "test", "b", docs)
	geoRevAgree(t, db, "b", []geoRevCase{
		{`{"p": {"$geoWithin": {"$box": [[-180, -180], [180, 180]]}}}`, []int32{1, 2, 3, 4, 5, 6, 7}},
		{`{"p": {"$geoWithin": {"$box": [[-1, -1], [1, 1]]}}}`, []int32{1, 7}},
		{`{"p": {"$geoWithin": {"$center": [[0, 0], 1000]}}}`, []int32{1, 2, 3, 4, 5, 6, 7}},
		{`{"p": {"$geoWithin": {"$polygon": [[-200, -200], [200, -200], [200, 200], [-200, 200]]}}}`, []int32{1, 2, 3, 4, 5, 6, 7}},
	})
	// Points 4 and 5 are equally far: either order (geo2CheckOrder).
	want, ds := geo2FlatOrder(pts, 0, 0, 0, math.Inf(1))
	dist := map[int32]float64{}
	for i, id := range want {
		dist[id] = ds[i]
	}
	geo2CheckOrder(t, "bits 32 $near [0, 0]", firstIDs(t, db, `{"find": "b", "filter": {"p": {"$near": [0, 0]}}}`), want, dist)
	geo2CheckOrder(t, "bits 32 $near [0, 0] max 500", firstIDs(t, db, `{"find": "b", "filter": {"p": {"$near": [0, 0], "$maxDistance": 500}}}`), want, dist)
}

// A flat $near from a point outside the 2d index's [min, max). mongod
// caps the search at 1.5 x (max - min) from the query point
// (twoDDistanceBounds in geo_near.cpp), so a point just outside the grid
// must still find every document within that; a point far away finds
// only what lies within that bound, in mongod and here.
func TestReviewGeo2NearFlatPointOutsideGrid(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "o", "indexes": [{"key": {"p": "2d"}, "name": "p", "min": 0, "max": 10}]}`)
	pts := []geo2Pt{{1, 0, 0}, {2, 5, 5}, {3, 9.9, 9.9}, {4, 1, 9}}
	var docs []string
	for _, p := range pts {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "p": [%v, %v]}`, p.id, p.x, p.y))
	}
	loadCorpus(t, db, "test", "o", docs)
	for _, at := range [][2]float64{{10.5, 5}, {-1, -1}, {12, 12}, {100, 100}, {-50, 5}} {
		want, _ := geo2FlatOrder(pts, at[0], at[1], 0, math.Inf(1))
		inReach, _ := geo2FlatOrder(pts, at[0], at[1], 0, 15)
		r, err := run(t, db, "test", fmt.Sprintf(`{"find": "o", "filter": {"p": {"$near": [%v, %v]}}}`, at[0], at[1]))
		if err != nil {
			t.Errorf("$near %v outside the grid refused: %v", at, err)
			continue
		}
		got := geo2IDs(firstBatch(t, r))
		if len(inReach) == len(want) && !slices.Equal(got, want) {
			t.Errorf("$near %v (outside [0, 10), every document within 1.5 x 10): %v, want %v", at, got, want)
		} else if !slices.Equal(got, inReach) {
			// As mongod: no farther than 1.5 x the grid's width.
			t.Errorf("$near %v (far outside [0, 10)): %v; mongod's bound of 1.5 x range gives %v", at, got, inReach)
		}
	}
}

// The rings (2dsphere caps and 2d boxes) against a brute-force sort by
// distance: random points, bounds, skips and limits, small batches.
func TestReviewGeo2NearRingsAgreeWithSort(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"loc": "2dsphere"}, "name": "s"}]}`)
	mustRun(t, db, "test", `{"createIndexes": "f", "indexes": [{"key": {"p": "2d"}, "name": "f"}]}`)
	rnd := rand.New(rand.NewSource(7))
	var pts []geo2Pt
	var sdocs, fdocs []string
	for i := int32(1); i <= 300; i++ {
		var x, y float64
		switch i % 3 {
		case 0: // a cluster near (1, 1)
			x, y = 1+rnd.NormFloat64()*0.01, 1+rnd.NormFloat64()*0.01
		case 1:
			x, y = 1+rnd.NormFloat64()*0.5, 1+rnd.NormFloat64()*0.5
		default:
			x, y = rnd.Float64()*360-180, rnd.Float64()*180-90
		}
		x, y = math.Round(x*1e6)/1e6, math.Round(y*1e6)/1e6
		pts = append(pts, geo2Pt{i, x, y})
		sdocs = append(sdocs, fmt.Sprintf(`{"_id": %d, "loc": [%v, %v]}`, i, x, y))
		fdocs = append(fdocs, fmt.Sprintf(`{"_id": %d, "p": [%v, %v]}`, i, x, y))
	}
	loadCorpus(t, db, "test", "s", sdocs)
	loadCorpus(t, db, "test", "f", fdocs)
	// Flat.
	fdist := map[int32]float64{}
	for _, p := range pts {
		fdist[p.id] = math.Hypot(p.x-1, p.y-1)
	}
	for _, b := range []struct{ lo, hi float64 }{{0, math.Inf(1)}, {0, 0.02}, {0.01, 0.5}, {0.5, 100}, {3, 3}, {0, 0}} {
		filter := `{"p": {"$near": [1, 1]`
		if b.lo > 0 {
			filter += fmt.Sprintf(`, "$minDistance": %v`, b.lo)
		}
		if !math.IsInf(b.hi, 1) {
			filter += fmt.Sprintf(`, "$maxDistance": %v`, b.hi)
		}
		filter += `}}`
		want, _ := geo2FlatOrder(pts, 1, 1, b.lo, b.hi)
		got := geo2IDs(runFind(t, db, "test", ejson(t, `{"find": "f", "filter": `+filter+`, "batchSize": 7}`)))
		geo2CheckOrder(t, "flat "+filter, got, want, fdist)
		// skip and limit
		got = geo2IDs(runFind(t, db, "test", ejson(t, `{"find": "f", "filter": `+filter+`, "skip": 3, "limit": 20, "batchSize": 4}`)))
		w := want[min(3, len(want)):]
		w = w[:min(20, len(w))]
		if len(got) != len(w) {
			t.Errorf("flat %s skip 3 limit 20: %d results, want %d", filter, len(got), len(w))
		}
	}
	// On the sphere, radians (legacy $nearSphere) compared to a collection
	// scan's $geoWithin $centerSphere and to each document's distance.
	sdist := map[int32]float64{}
	for _, d := range runFind(t, db, "test", ejson(t, `{"find": "s", "filter": {"loc": {"$nearSphere": [1, 1]}}, "projection": {"d": {"$meta": "geoNearDistance"}}, "batchSize": 1000}`)) {
		sdist[field(d, "_id").(int32)] = field(d, "d").(float64)
	}
	if len(sdist) != 300 {
		t.Fatalf("$nearSphere without bounds: %d documents, want 300", len(sdist))
	}
	for _, b := range []struct{ lo, hi float64 }{{0, 0.0002}, {0, 0.01}, {0.0001, 0.05}, {0.05, 3}, {0, math.Pi}, {1, 10}} {
		filter := fmt.Sprintf(`{"loc": {"$nearSphere": [1, 1], "$minDistance": %v, "$maxDistance": %v}}`, b.lo, b.hi)
		var want []int32
		for id, d := range sdist {
			if d >= b.lo && d <= b.hi {
				want = append(want, id)
			}
		}
		got := geo2IDs(runFind(t, db, "test", ejson(t, `{"find": "s", "filter": `+filter+`, "batchSize": 5}`)))
		geo2CheckOrder(t, "sphere "+filter, got, want, sdist)
	}
	// meters: GeoJSON point.
	got := geo2IDs(runFind(t, db, "test", ejson(t, `{"find": "s", "filter": {"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [1, 1]}, "$maxDistance": 5000}}}, "batchSize": 3}`)))
	var want []int32
	for id, d := range sdist {
		if d*6378100 <= 5000 {
			want = append(want, id)
		}
	}
	geo2CheckOrder(t, "sphere 5000 m", got, want, sdist)
}

// Many documents at exactly the same distance, on a ring boundary
// (first cap 1e-4 rad, next 4e-4) and across it: each returned once.
func TestReviewGeo2NearTiesAcrossRings(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "t", "indexes": [{"key": {"loc": "2dsphere"}, "name": "s"}]}`)
	mustRun(t, db, "test", `{"createIndexes": "u", "indexes": [{"key": {"p": "2d"}, "name": "f"}]}`)
	var sdocs, fdocs []string
	id := 0
	for _, r := range []float64{1e-4, 4e-4, 1.6e-3} { // radians (2dsphere) / units (2d scaled)
		for k := 0; k < 40; k++ {
			id++
			a := 2 * math.Pi * float64(k) / 40
			deg := r * 180 / math.Pi
			sdocs = append(sdocs, fmt.Sprintf(`{"_id": %d, "loc": [%v, %v]}`, id, deg*math.Cos(a), deg*math.Sin(a)))
		}
	}
	// 2d: the first box is 16 cells across = 16*360/2^26 units; put points
	// exactly at multiples of it along the axes (same distance).
	cell := 16 * 360 / float64(uint64(1)<<26)
	fid := 0
	for _, r := range []float64{cell, 4 * cell, 16 * cell} {
		for _, p := range [][2]float64{{r, 0}, {-r, 0}, {0, r}, {0, -r}} {
			for k := 0; k < 5; k++ {
				fid++
				fdocs = append(fdocs, fmt.Sprintf(`{"_id": %d, "p": [%v, %v]}`, fid, p[0], p[1]))
			}
		}
	}
	loadCorpus(t, db, "test", "t", sdocs)
	loadCorpus(t, db, "test", "u", fdocs)
	got := geo2IDs(runFind(t, db, "test", ejson(t, `{"find": "t", "filter": {"loc": {"$nearSphere": [0, 0]}}, "batchSize": 3}`)))
	if len(got) != id || len(geo2Dups(got)) > 0 {
		t.Errorf("2dsphere ties: %d results (want %d), duplicates %v", len(got), id, geo2Dups(got))
	}
	got = geo2IDs(runFind(t, db, "test", ejson(t, `{"find": "u", "filter": {"p": {"$near": [0, 0]}}, "batchSize": 3}`)))
	if len(got) != fid || len(geo2Dups(got)) > 0 {
		t.Errorf("2d ties: %d results (want %d), duplicates %v", len(got), fid, geo2Dups(got))
	}
	got = geo2IDs(runFind(t, db, "test", ejson(t, fmt.Sprintf(`{"find": "u", "filter": {"p": {"$near": [0, 0], "$maxDistance": %v}}, "batchSize": 3}`, 4*cell))))
	if len(got) != 40 {
		t.Errorf("2d ties max = 4 cells: %d results, want 40", len(got))
	}
	got = geo2IDs(runFind(t, db, "test", ejson(t, fmt.Sprintf(`{"find": "u", "filter": {"p": {"$near": [0, 0], "$minDistance": %v, "$maxDistance": %v}}, "batchSize": 3}`, 4*cell, 4*cell))))
	if len(got) != 20 {
		t.Errorf("2d ties min = max = 4 cells: %d results, want 20", len(got))
	}
}

// A document returned in an early batch and then moved farther away must
// not come back in a later batch of the same cursor (mongod's near stage
// remembers the record ids it returned).
func TestReviewGeo2NearGetMoreAfterMove(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"2dsphere", "2d"} {
		db, _ := openMem(t)
		mustRun(t, db, "test", `{"createIndexes": "m", "indexes": [{"key": {"loc": "`+kind+`"}, "name": "l"}]}`)
		var docs []string
		for i := 1; i <= 20; i++ {
			docs = append(docs, fmt.Sprintf(`{"_id": %d, "loc": [%v, 0]}`, i, float64(i)))
		}
		loadCorpus(t, db, "test", "m", docs)
		near := `{"loc": {"$nearSphere": [0, 0]}}`
		if kind == "2d" {
			near = `{"loc": {"$near": [0, 0]}}`
		}
		r := mustRun(t, db, "test", `{"find": "m", "filter": `+near+`, "batchSize": 2}`)
		got := geo2IDs(firstBatch(t, r))
		cid := field(r, "cursor.id").(int64)
		// _id 1 (returned) moves to the far end.
		mustRun(t, db, "test", `{"update": "m", "updates": [{"q": {"_id": 1}, "u": {"$set": {"loc": [30, 0]}}}]}`)
		for cid != 0 {
			g := mustRun(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "m", "batchSize": 2}`, cid))
			arr, _ := field(g, "cursor.nextBatch").(bson.A)
			for _, v := range arr {
				got = append(got, field(v.(bson.D), "_id").(int32))
			}
			cid = field(g, "cursor.id").(int64)
		}
		if d := geo2Dups(got); len(d) > 0 {
			t.Errorf("%s: _id %v returned twice by one cursor after it moved: %v", kind, d, got)
		}
	}
}

// Edge cases of the bounds: $maxDistance 0, $minDistance > $maxDistance,
// skip past the results, limit with batchSize.
func TestReviewGeo2NearBoundsEdges(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"loc": "2dsphere"}, "name": "s"}, {"key": {"p": "2d"}, "name": "f"}]}`)
	var docs []string
	for i := 1; i <= 10; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "loc": [%d, 0], "p": [%d, 0]}`, i, i-1, i-1))
	}
	loadCorpus(t, db, "test", "e", docs)
	cases := []struct {
		cmd  string
		want []int32
	}{
		{`{"find": "e", "filter": {"loc": {"$nearSphere": [0, 0], "$maxDistance": 0}}}`, []int32{1}},
		{`{"find": "e", "filter": {"p": {"$near": [0, 0], "$maxDistance": 0}}}`, []int32{1}},
		{`{"find": "e", "filter": {"p": {"$near": [0, 0, 0]}}}`, []int32{1}},
		{`{"find": "e", "filter": {"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$maxDistance": 0}}}}`, []int32{1}},
		{`{"find": "e", "filter": {"loc": {"$nearSphere": [0, 0], "$minDistance": 1, "$maxDistance": 0.5}}}`, []int32{}},
		{`{"find": "e", "filter": {"p": {"$near": [0, 0], "$minDistance": 5, "$maxDistance": 2}}}`, []int32{}},
		{`{"find": "e", "filter": {"p": {"$near": [0, 0]}}, "skip": 50}`, []int32{}},
		{`{"find": "e", "filter": {"loc": {"$nearSphere": [0, 0]}}, "skip": 50}`, []int32{}},
		{`{"find": "e", "filter": {"p": {"$near": [0, 0]}}, "skip": 8, "limit": 5}`, []int32{9, 10}},
		{`{"find": "e", "filter": {"p": {"$near": [0, 0]}}, "limit": 3, "batchSize": 5}`, []int32{1, 2, 3}},
		{`{"find": "e", "filter": {"p": {"$near": [0, 0], "$minDistance": 2.5}}, "limit": 2}`, []int32{4, 5}},
		{`{"find": "e", "filter": {"loc": {"$nearSphere": [0, 0], "$minDistance": 0.05}}, "limit": 2}`, []int32{4, 5}},
		{`{"find": "e", "filter": {"p": {"$near": [9, 0]}}, "sort": {"_id": 1}, "skip": 7}`, []int32{8, 9, 10}},
	}
	for _, c := range cases {
		got := geo2IDs(runFind(t, db, "test", ejson(t, c.cmd)))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.cmd, got, c.want)
		}
	}
	// limit with a small batchSize through getMore.
	got := geo2IDs(runFind(t, db, "test", ejson(t, `{"find": "e", "filter": {"loc": {"$nearSphere": [0, 0]}}, "limit": 5, "batchSize": 2}`)))
	if !slices.Equal(got, []int32{1, 2, 3, 4, 5}) {
		t.Errorf("limit 5 batchSize 2: %v", got)
	}
}

// Huge radii and extreme points must neither hang nor panic; a huge
// $maxDistance on a 2d index is as quick as none.
func TestReviewGeo2NearHugeAndExtreme(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "h", "indexes": [{"key": {"p": "2d"}, "name": "f"}]}`)
	mustRun(t, db, "test", `{"createIndexes": "g", "indexes": [{"key": {"loc": "2dsphere"}, "name": "s"}]}`)
	var docs, sdocs []string
	for i := 1; i <= 100; i++ {
		x, y := float64(i%10)*36-180, float64(i/10)*18-90
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "p": [%v, %v]}`, i, x, y))
		sdocs = append(sdocs, fmt.Sprintf(`{"_id": %d, "loc": [%v, %v]}`, i, x, y))
	}
	docs = append(docs, `{"_id": 1000, "p": [179.99999999, 179.99999999]}`, `{"_id": 1001, "p": [-180, -180]}`)
	sdocs = append(sdocs, `{"_id": 1000, "loc": [180, 90]}`, `{"_id": 1001, "loc": [-180, -90]}`)
	loadCorpus(t, db, "test", "h", docs)
	loadCorpus(t, db, "test", "g", sdocs)
	for _, c := range []struct {
		coll, filter string
		n            int
	}{
		{"h", `{"p": {"$near": [0, 0], "$maxDistance": 1e300}}`, 102},
		{"h", `{"p": {"$near": [0, 0], "$maxDistance": 1.7e308}}`, 102},
		{"h", `{"p": {"$near": [1e300, -1e300], "$maxDistance": 1e308}}`, -1},
		{"h", `{"p": {"$near": [179.99999999, 179.99999999]}}`, 102},
		{"h", `{"p": {"$near": [-180, -180]}}`, 102},
		{"h", `{"p": {"$near": [0, 0], "$minDistance": 1e300}}`, 0},
		{"g", `{"loc": {"$nearSphere": [180, 90]}}`, 102},
		{"g", `{"loc": {"$nearSphere": [-180, 0], "$maxDistance": 100}}`, 102},
		{"g", `{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [180, 0]}, "$maxDistance": 1e300}}}`, 102},
		{"g", `{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, -90]}, "$minDistance": 1e300}}}`, 0},
	} {
		// The cost is counted, not timed: the documents examined.
		r, err := run(t, db, "test", `{"find": "`+c.coll+`", "filter": `+c.filter+`, "batchSize": 1000}`)
		if err == nil {
			ex := mustRun(t, db, "test", `{"explain": {"find": "`+c.coll+`", "filter": `+c.filter+`}, "verbosity": "executionStats"}`)
			if n, _ := field(ex, "executionStats.totalDocsExamined").(int32); n > 4*102 {
				t.Errorf("%s: %d documents examined for a collection of 102; mongod stops at the grid's diagonal", c.filter, n)
			}
		}
		if err != nil {
			if c.n >= 0 {
				t.Errorf("%s: %v", c.filter, err)
			}
			continue
		}
		if got := len(firstBatch(t, r)); c.n >= 0 && got != c.n {
			t.Errorf("%s: %d results, want %d", c.filter, got, c.n)
		}
	}
	// Antimeridian and pole order.
	got := firstIDs(t, db, `{"find": "g", "filter": {"loc": {"$nearSphere": [180, 0]}}, "limit": 3}`)
	if len(got) != 3 || got[0] != 50 { // _id 50 is at (-180, 0), the same point
		t.Errorf("antimeridian: nearest 3 to (180, 0): %v, want 50 first", got)
	}
	// NaN / Inf points are refused (mongod: "Point coordinates must be finite numbers"? BadValue).
	for _, f := range []string{
		`{"p": {"$near": [{"$numberDouble": "NaN"}, 0]}}`,
		`{"p": {"$near": [{"$numberDouble": "Infinity"}, 0]}}`,
	} {
		r, err := run(t, db, "test", `{"find": "h", "filter": `+f+`}`)
		if err == nil {
			t.Errorf("%s: accepted, %d results; mongod refuses a non-finite point (code 2)", f, len(firstBatch(t, r)))
		}
	}
}

// A 2d index whose [min, max) is far wider than the data, and tiny bits.
func TestReviewGeo2GridShapes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"p": "2d"}, "name": "f", "min": -1e9, "max": 1e9}]}`)
	mustRun(t, db, "test", `{"createIndexes": "b1", "indexes": [{"key": {"p": "2d"}, "name": "f", "bits": 1}]}`)
	mustRun(t, db, "test", `{"createIndexes": "n", "indexes": [{"key": {"p": "2d"}, "name": "f", "min": 0, "max": 0.001, "bits": 32}]}`)
	var pts []geo2Pt
	var docs, small []string
	for i := int32(1); i <= 50; i++ {
		x, y := float64(i%7)*0.001, float64(i%11)*0.0007
		pts = append(pts, geo2Pt{i, x, y})
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "p": [%v, %v]}`, i, x, y))
		small = append(small, fmt.Sprintf(`{"_id": %d, "p": [%v, %v]}`, i, x/10, y/10))
	}
	loadCorpus(t, db, "test", "w", docs)
	loadCorpus(t, db, "test", "b1", docs)
	loadCorpus(t, db, "test", "n", small)
	dist := map[int32]float64{}
	for _, p := range pts {
		dist[p.id] = math.Hypot(p.x-0.003, p.y-0.002)
	}
	for _, coll := range []string{"w", "b1"} {
		want, _ := geo2FlatOrder(pts, 0.003, 0.002, 0, math.Inf(1))
		got := geo2IDs(runFind(t, db, "test", ejson(t, `{"find": "`+coll+`", "filter": {"p": {"$near": [0.003, 0.002]}}, "batchSize": 9}`)))
		geo2CheckOrder(t, coll+" $near", got, want, dist)
		want, _ = geo2FlatOrder(pts, 0.003, 0.002, 0, 0.002)
		got = geo2IDs(runFind(t, db, "test", ejson(t, `{"find": "`+coll+`", "filter": {"p": {"$near": [0.003, 0.002], "$maxDistance": 0.002}}, "batchSize": 9}`)))
		geo2CheckOrder(t, coll+" $near max", got, want, dist)
		geoRevAgree(t, db, coll, []geoRevCase{
			{`{"p": {"$geoWithin": {"$box": [[0.001, 0.001], [0.004, 0.003]]}}}`, nil},
			{`{"p": {"$geoWithin": {"$center": [[0.003, 0.002], 0.0015]}}}`, nil},
			{`{"p": {"$geoWithin": {"$polygon": [[0, 0], [0.006, 0], [0, 0.007]]}}}`, nil},
			{`{"p": {"$geoWithin": {"$box": [[5, 5], [6, 6]]}}}`, []int32{}},
		})
	}
	sdist := map[int32]float64{}
	var spts []geo2Pt
	for _, p := range pts {
		spts = append(spts, geo2Pt{p.id, p.x / 10, p.y / 10})
		sdist[p.id] = math.Hypot(p.x/10-0.0003, p.y/10-0.0002)
	}
	want, _ := geo2FlatOrder(spts, 0.0003, 0.0002, 0, math.Inf(1))
	got := geo2IDs(runFind(t, db, "test", ejson(t, `{"find": "n", "filter": {"p": {"$near": [0.0003, 0.0002]}}, "batchSize": 9}`)))
	geo2CheckOrder(t, "tiny grid bits 32 $near", got, want, sdist)
	geoRevAgree(t, db, "n", []geoRevCase{
		{`{"p": {"$geoWithin": {"$box": [[0, 0], [0.001, 0.001]]}}}`, nil},
		{`{"p": {"$geoWithin": {"$box": [[0.0001, 0.0001], [0.0004, 0.0003]]}}}`, nil},
	})
}

// $near through compound indexes: {loc: 2dsphere, k: 1} with an equality
// on k, {k: 1, loc: 2dsphere}, and a 2d index with a trailing field.
func TestReviewGeo2NearCompound(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c1", "indexes": [{"key": {"loc": "2dsphere", "k": 1}, "name": "lk"}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c2", "indexes": [{"key": {"k": 1, "loc": "2dsphere"}, "name": "kl"}]}`)
	mustRun(t, db, "test", `{"createIndexes": "c3", "indexes": [{"key": {"loc": "2d", "k": 1}, "name": "lk"}]}`)
	var docs []string
	for i := 1; i <= 60; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "k": %d, "loc": [%v, %v]}`, i, i%3, float64(i%10)*0.01, float64(i)*0.001))
	}
	docs = append(docs, `{"_id": 100, "k": [0, 1], "loc": [0, 0]}`, `{"_id": 101, "k": 0}`)
	for _, c := range []string{"c1", "c2", "c3"} {
		loadCorpus(t, db, "test", c, docs)
	}
	var ref []int32
	for i, c := range []string{"c1", "c2", "c3"} {
		op := "$nearSphere"
		if c == "c3" {
			op = "$near"
		}
		got := geo2IDs(runFind(t, db, "test", ejson(t, `{"find": "`+c+`", "filter": {"k": 0, "loc": {"`+op+`": [0.05, 0.03]}}, "batchSize": 4}`)))
		if len(got) != 21 || len(geo2Dups(got)) > 0 {
			t.Errorf("%s k 0 %s: %d results %v, want 21 once each", c, op, len(got), got)
		}
		if i == 0 {
			ref = got
		}
		g2 := geo2IDs(runFind(t, db, "test", ejson(t, `{"find": "`+c+`", "filter": {"k": {"$in": [1, 2]}, "loc": {"`+op+`": [0.05, 0.03], "$maxDistance": 0.0005}}, "batchSize": 4}`)))
		for _, id := range g2 {
			if id != 100 && id%3 == 0 {
				t.Errorf("%s: k in [1,2] returned %d", c, id)
			}
		}
	}
	_ = ref
}

// Single writes with $near take the nearest document, with or without a
// sort; findAndModify's sort orders first and distance breaks its ties.
func TestReviewGeo2NearSingleWrites(t *testing.T) {
	t.Parallel()
	setup := func(kind string) *DB {
		db, _ := openMem(t)
		mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"loc": "`+kind+`", "k": 1}, "name": "l"}]}`)
		loadCorpus(t, db, "test", "w", []string{
			`{"_id": 1, "k": "a", "g": 2, "loc": [5, 0]}`,
			`{"_id": 2, "k": "b", "g": 1, "loc": [1, 0]}`,
			`{"_id": 3, "k": "a", "g": 1, "loc": [3, 0]}`,
			`{"_id": 4, "k": "a", "g": 1, "loc": [2, 0]}`,
			`{"_id": 5, "k": "a", "g": 2, "loc": [0.5, 0]}`,
			`{"_id": 6, "k": "a", "g": 0}`,
		})
		return db
	}
	for _, kind := range []string{"2d", "2dsphere"} {
		op := "$near"
		if kind == "2dsphere" {
			op = "$nearSphere"
		}
		q := `{"k": "a", "loc": {"` + op + `": [0, 0]}}`
		db := setup(kind)
		r := mustRun(t, db, "test", `{"findAndModify": "w", "query": `+q+`, "update": {"$set": {"hit": 1}}}`)
		if field(r, "value._id") != int32(5) {
			t.Errorf("%s findAndModify nearest k a: %v, want 5", kind, field(r, "value._id"))
		}
		r = mustRun(t, db, "test", `{"findAndModify": "w", "query": `+q+`, "sort": {"g": 1}, "update": {"$set": {"hit": 2}}}`)
		if field(r, "value._id") != int32(4) {
			t.Errorf("%s findAndModify sort g 1: %v, want 4 (g 1, nearest)", kind, field(r, "value._id"))
		}
		r = mustRun(t, db, "test", `{"findAndModify": "w", "query": `+q+`, "sort": {"g": -1}, "remove": true}`)
		if field(r, "value._id") != int32(5) {
			t.Errorf("%s findAndModify remove sort g -1: %v, want 5", kind, field(r, "value._id"))
		}
		r = mustRun(t, db, "test", `{"delete": "w", "deletes": [{"q": `+q+`, "limit": 1}]}`)
		if field(r, "n") != int32(1) {
			t.Fatalf("%s deleteOne: %v", kind, r)
		}
		if got := firstIDs(t, db, `{"find": "w", "filter": {}, "sort": {"_id": 1}}`); !slices.Equal(got, []int32{1, 2, 3, 6}) {
			t.Errorf("%s after deleteOne nearest k a (4): %v, want [1 2 3 6]", kind, got)
		}
		mustRun(t, db, "test", `{"update": "w", "updates": [{"q": `+q+`, "u": {"$set": {"hit": 9}}}]}`)
		if got := firstIDs(t, db, `{"find": "w", "filter": {"hit": 9}}`); !slices.Equal(got, []int32{3}) {
			t.Errorf("%s updateOne nearest k a: %v, want [3]", kind, got)
		}
		// update with a sort (mongod 8's updateOne sort).
		r, err := run(t, db, "test", `{"update": "w", "updates": [{"q": `+q+`, "u": {"$set": {"hit": 8}}, "sort": {"g": -1}}]}`)
		if err == nil && field(r, "nModified") == int32(1) {
			if got := firstIDs(t, db, `{"find": "w", "filter": {"hit": 8}}`); !slices.Equal(got, []int32{1}) {
				t.Errorf("%s updateOne sort g -1: %v, want [1]", kind, got)
			}
		}
		// Multi with bounds: only those within.
		max := "2.5"
		if kind == "2dsphere" {
			max = "0.0437" // a bit over 2.5 degrees in radians
		}
		mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {"loc": {"`+op+`": [0, 0], "$maxDistance": `+max+`}}, "u": {"$set": {"m": 1}}, "multi": true}]}`)
		if got := firstIDs(t, db, `{"find": "w", "filter": {"m": 1}, "sort": {"_id": 1}}`); !slices.Equal(got, []int32{2}) {
			t.Errorf("%s updateMany within %s: %v, want [2]", kind, max, got)
		}
		// remove nearest with no sort, then the delete-many within bounds.
		r = mustRun(t, db, "test", `{"findAndModify": "w", "query": {"loc": {"`+op+`": [10, 0]}}, "remove": true}`)
		if field(r, "value._id") != int32(1) {
			t.Errorf("%s findAndModify remove nearest to [10, 0]: %v, want 1", kind, field(r, "value._id"))
		}
		mustRun(t, db, "test", `{"delete": "w", "deletes": [{"q": {"loc": {"`+op+`": [0, 0], "$maxDistance": `+max+`}}, "limit": 0}]}`)
		if got := firstIDs(t, db, `{"find": "w", "filter": {}, "sort": {"_id": 1}}`); !slices.Equal(got, []int32{3, 6}) {
			t.Errorf("%s after deleteMany within %s: %v, want [3 6]", kind, max, got)
		}
		// upsert with $near that matches nothing.
		r, err = run(t, db, "test", `{"findAndModify": "w", "query": {"k": "z", "loc": {"`+op+`": [0, 0]}}, "update": {"$set": {"u": 1}}, "upsert": true, "new": true}`)
		if err != nil {
			t.Logf("%s upsert with $near: %v", kind, err)
		} else if v, _ := field(r, "value").(bson.D); v != nil {
			if _, has := get(v, "loc"); has {
				t.Errorf("%s upsert copied the $near into the document: %v", kind, v)
			}
		}
		mustValidate(t, db, "test", "w")
	}
}

// $meta geoNearDistance / geoNearPoint in find projections, through a 2d
// and a 2dsphere index, with a sort, with an inclusion projection, and a
// document with several locations; $geoNear spherical on a 2d index.
func TestReviewGeo2NearMeta(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "f", "indexes": [{"key": {"p": "2d"}, "name": "f"}]}`)
	loadCorpus(t, db, "test", "f", []string{
		`{"_id": 1, "a": 1, "p": [3, 4]}`,
		`{"_id": 2, "a": 2, "p": [[10, 0], [0, 1]]}`,
		`{"_id": 3, "a": 1, "p": {"x": 6, "y": 8}}`,
	})
	r := mustRun(t, db, "test", `{"find": "f", "filter": {"p": {"$near": [0, 0]}}, "projection": {"a": 1, "d": {"$meta": "geoNearDistance"}, "pt": {"$meta": "geoNearPoint"}}}`)
	docs := firstBatch(t, r)
	if len(docs) != 3 {
		t.Fatalf("meta 2d: %v", docs)
	}
	wantD := []float64{1, 5, 10}
	for i, d := range docs {
		if v, _ := field(d, "d").(float64); math.Abs(v-wantD[i]) > 1e-9 {
			t.Errorf("meta 2d doc %d: d = %v, want %v (%v)", i, field(d, "d"), wantD[i], d)
		}
		if _, has := get(d, "p"); has {
			t.Errorf("meta 2d doc %d: p projected out expected, got %v", i, d)
		}
	}
	if pt, _ := field(docs[0], "pt").(bson.A); len(pt) != 2 || fmt.Sprint(pt) != "[0 1]" {
		t.Errorf("geoNearPoint of the multi-location doc: %v, want [0 1]", field(docs[0], "pt"))
	}
	// With a sort: the distance of each (not of another).
	r = mustRun(t, db, "test", `{"find": "f", "filter": {"p": {"$near": [0, 0]}}, "sort": {"a": -1}, "projection": {"d": {"$meta": "geoNearDistance"}, "_id": 1}}`)
	docs = firstBatch(t, r)
	if got := geo2IDs(docs); !slices.Equal(got, []int32{2, 1, 3}) {
		t.Errorf("meta sort a -1: %v, want [2 1 3]", got)
	}
	for _, d := range docs {
		want := map[int32]float64{1: 5, 2: 1, 3: 10}[field(d, "_id").(int32)]
		if v, _ := field(d, "d").(float64); math.Abs(v-want) > 1e-9 {
			t.Errorf("meta with sort: %v, want d %v", d, want)
		}
	}
	// $nearSphere on the 2d index: radians.
	r = mustRun(t, db, "test", `{"find": "f", "filter": {"p": {"$nearSphere": [0, 0]}}, "projection": {"d": {"$meta": "geoNearDistance"}}, "limit": 1}`)
	docs = firstBatch(t, r)
	if v, _ := field(docs[0], "d").(float64); len(docs) != 1 || math.Abs(v-math.Pi/180) > 1e-9 {
		t.Errorf("$nearSphere on 2d meta: %v, want %v rad", docs, math.Pi/180)
	}
	// $geoNear spherical on a 2d index.
	r = mustRun(t, db, "test", `{"aggregate": "f", "pipeline": [{"$geoNear": {"near": [0, 0], "distanceField": "d", "spherical": true, "includeLocs": "l"}}], "cursor": {}}`)
	docs = firstBatch(t, r)
	if len(docs) != 3 || field(docs[0], "_id") != int32(2) {
		t.Errorf("$geoNear spherical on 2d: %v", docs)
	} else if v, _ := field(docs[0], "d").(float64); math.Abs(v-math.Pi/180) > 1e-9 {
		t.Errorf("$geoNear spherical on 2d distance %v, want %v", v, math.Pi/180)
	}
	// $geoNear GeoJSON near with only a 2d index: 291 (needs 2dsphere).
	_, err := run(t, db, "test", `{"aggregate": "f", "pipeline": [{"$geoNear": {"near": {"type": "Point", "coordinates": [0, 0]}, "distanceField": "d"}}], "cursor": {}}`)
	checkCode(t, "$geoNear GeoJSON on 2d", err, 291, "unable to find index")
	// Meta in a getMore batch.
	all := runFind(t, db, "test", ejson(t, `{"find": "f", "filter": {"p": {"$near": [0, 0]}}, "projection": {"d": {"$meta": "geoNearDistance"}}, "batchSize": 1}`))
	for i, d := range all {
		if v, _ := field(d, "d").(float64); math.Abs(v-wantD[i]) > 1e-9 {
			t.Errorf("meta through getMore doc %d: %v", i, d)
		}
	}
	// Meta on a 2dsphere GeoJSON near: meters, and the GeoJSON point.
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"loc": "2dsphere"}, "name": "s"}]}`)
	loadCorpus(t, db, "test", "s", []string{`{"_id": 1, "loc": {"type": "MultiPoint", "coordinates": [[0, 80], [0, 1]]}}`})
	r = mustRun(t, db, "test", `{"find": "s", "filter": {"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}}, "projection": {"d": {"$meta": "geoNearDistance"}, "pt": {"$meta": "geoNearPoint"}}}`)
	docs = firstBatch(t, r)
	if v, _ := field(docs[0], "d").(float64); len(docs) != 1 || math.Abs(v-6378100*math.Pi/180) > 1e-3 {
		t.Errorf("meta 2dsphere: %v", docs)
	}
	t.Logf("geoNearPoint of a MultiPoint: %v", field(docs[0], "pt"))
}

// A line inside a polygon, along its boundary, touching it, and leaving
// through a vertex; big caps with lines and polygons.
func TestReviewGeo2LineInPolygonAndBigCap(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	line := func(id int, pts string) string {
		return fmt.Sprintf(`{"_id": %d, "g": {"type": "LineString", "coordinates": %s}}`, id, pts)
	}
	loadCorpus(t, db, "test", "l", []string{
		line(1, `[[1, 1], [9, 9]]`),                         // inside
		line(2, `[[0, 0], [0, 10]]`),                        // along the left edge
		line(3, `[[0, 0], [10, 10]]`),                       // corner to corner
		line(4, `[[5, 5], [10, 5], [15, 5]]`),               // leaves through an edge point (a vertex of the line)
		line(5, `[[1, 5], [5, 12], [9, 5]]`),                // vertices inside/outside
		line(6, `[[2, 2], [8, 2], [8, 8], [2, 8], [2, 2]]`), // closed ring inside
		line(7, `[[0, 5], [10, 5]]`),                        // edge to edge
		line(8, `[[-1, 5], [11, 5]]`),                       // crosses both
		line(9, `[[0, 10], [5, 10], [10, 10]]`),             // along the top edge with a vertex at its middle
		line(10, `[[1, 1], [4, 4]]`),                        // inside the hole's polygon? (no hole here)
	})
	mustRun(t, db, "test", `{"createIndexes": "l", "indexes": [{"key": {"g": "2dsphere"}, "name": "g"}]}`)
	sq := `{"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]}`
	geoRevAgree(t, db, "l", []geoRevCase{
		{`{"g": {"$geoWithin": {"$geometry": ` + sq + `}}}`, []int32{1, 2, 3, 6, 7, 9, 10}},
	})
	// Square with a hole [4,4]-[6,6]: a line across the hole is out; one
	// ending at a hole's vertex from outside is in.
	holed := `{"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], [[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]]]}`
	loadCorpus(t, db, "test", "h", []string{
		line(1, `[[1, 1], [4, 4]]`), // ends at a hole vertex
		line(2, `[[1, 1], [9, 9]]`), // crosses the hole
		line(3, `[[4, 4], [4, 6]]`), // along the hole's edge
		line(4, `[[1, 1], [1, 9]]`), // away from the hole
		line(5, `[[4, 1], [4, 9]]`), // along the hole's edge and beyond
		line(6, `[[4, 4], [6, 4]]`), // along the hole's bottom edge
		line(7, `[[4, 4], [6, 6]]`), // hole diagonal
		line(8, `[[3, 5], [7, 5]]`), // through the hole
	})
	mustRun(t, db, "test", `{"createIndexes": "h", "indexes": [{"key": {"g": "2dsphere"}, "name": "g"}]}`)
	geoRevAgree(t, db, "h", []geoRevCase{
		{`{"g": {"$geoWithin": {"$geometry": ` + holed + `}}}`, []int32{1, 3, 4, 5, 6}},
	})
	// Big caps: radius 2.5 rad around (0, 0): its complement is the cap of
	// 0.64 rad (36.7 deg) around (180, 0).
	loadCorpus(t, db, "test", "c", []string{
		line(1, `[[0, 0], [90, 0]]`),
		line(2, `[[170, 10], [-170, 10]]`), // crosses the antimeridian, near the antipode
		line(3, `[[130, 0], [-130, 0]]`),   // short way through the antipode (vertices outside the small cap)
		line(4, `[[100, 60], [-100, 60]]`), // the long way over the pole? geodesic crosses near the pole, far from antipode
		`{"_id": 5, "g": {"type": "Polygon", "coordinates": [[[130, -10], [-130, -10], [-130, 10], [130, 10], [130, -10]]]}}`,
		`{"_id": 6, "g": {"type": "Polygon", "coordinates": [[[0, -10], [10, -10], [10, 10], [0, 10], [0, -10]]]}}`,
		`{"_id": 7, "g": {"type": "Point", "coordinates": [180, 0]}}`,
		`{"_id": 8, "g": {"type": "Point", "coordinates": [0, 0]}}`,
		`{"_id": 9, "g": {"type": "MultiPoint", "coordinates": [[0, 0], [180, 0]]}}`,
	})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"g": "2dsphere"}, "name": "g"}]}`)
	geoRevAgree(t, db, "c", []geoRevCase{
		{`{"g": {"$geoWithin": {"$centerSphere": [[0, 0], 2.5]}}}`, []int32{1, 4, 6, 8}},
		{`{"g": {"$geoWithin": {"$centerSphere": [[0, 0], 3.14159]}}}`, []int32{1, 2, 4, 6, 8}},
		{`{"g": {"$geoWithin": {"$centerSphere": [[0, 0], 4]}}}`, []int32{1, 2, 3, 4, 5, 6, 7, 8, 9}},
	})
}
