package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// geoCorpus is a set of places: legacy pairs (array and document),
// GeoJSON points, a line, a polygon, an array of points, a pair out of
// longitude and latitude range, and documents without a geometry.
var geoCorpus = []string{
	`{"_id": 1, "loc": [0, 0]}`,
	`{"_id": 2, "loc": [10, 10]}`,
	`{"_id": 3, "loc": {"x": 5, "y": 5}}`,
	`{"_id": 4, "loc": {"type": "Point", "coordinates": [5, 10]}}`,
	`{"_id": 5, "loc": {"type": "Point", "coordinates": [10.0001, 5]}}`,
	`{"_id": 6, "loc": {"type": "LineString", "coordinates": [[1, 1], [2, 2]]}}`,
	`{"_id": 7, "loc": {"type": "Polygon", "coordinates": [[[1, 1], [3, 1], [3, 3], [1, 3], [1, 1]]]}}`,
	`{"_id": 8, "loc": [[50, 50], [3, 4]]}`,
	`{"_id": 9, "loc": [200, 5]}`,
	`{"_id": 10, "other": 1}`,
	`{"_id": 11, "loc": null}`,
	`{"_id": 12, "loc": "nowhere"}`,
}

// $geoWithin and $geoIntersects as mongod answers them: flat shapes hold
// legacy pairs and GeoJSON points (boundaries included), regions of the
// sphere hold whatever lies wholly inside, and the answers are the same
// with a 2dsphere index as without.
func TestGeoWithinAndIntersects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		filter string
		want   []int32
	}{
		{`{"loc": {"$geoWithin": {"$box": [[0, 0], [10, 10]]}}}`, []int32{1, 2, 3, 4, 8}},
		{`{"loc": {"$within": {"$box": [[10, 10], [0, 0]]}}}`, []int32{1, 2, 3, 4, 8}},
		{`{"loc": {"$geoWithin": {"$center": [[0, 0], 5]}}}`, []int32{1, 8}}, // [3, 4] at 5 exactly
		{`{"loc": {"$geoWithin": {"$polygon": [[0, 0], [10, 0], [10, 10]]}}}`, []int32{1, 2, 3}},
		{`{"loc": {"$geoWithin": {"$polygon": {"a": [0, 0], "b": [10, 0], "c": [10, 10]}}}}`, []int32{1, 2, 3}},
		// On the sphere: the line and polygon lie inside, the pair out of
		// range is not on the sphere.
		{`{"loc": {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [[[-1, -1], [11, -1], [11, 11], [-1, 11], [-1, -1]]]}}}}`, []int32{1, 2, 3, 4, 5, 6, 7, 8}},
		{`{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.1]}}}`, []int32{1, 6, 7, 8}}, // 5.7 degrees: not (5, 5)
		{`{"loc": {"$geoWithin": {"$centerSphere": [[2, 2], 0.001]}}}`, nil},
		{`{"loc": {"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [2, 2]}}}}`, []int32{6, 7}},
		{`{"loc": {"$geoIntersects": {"$geometry": {"type": "LineString", "coordinates": [[0, 1.5], [4, 1.5]]}}}}`, []int32{6, 7}},
		{`{"loc": {"$geoIntersects": {"$geometry": {"type": "Polygon", "coordinates": [[[2.5, 2.5], [20, 2.5], [20, 20], [2.5, 20], [2.5, 2.5]]]}}}}`, []int32{2, 3, 4, 5, 7, 8}},
		{`{"loc": {"$geoIntersects": {"$geometry": [10, 10]}}}`, []int32{2}},
		// Under $or and $not, as any predicate.
		{`{"$or": [{"loc": {"$geoWithin": {"$box": [[0, 0], [1, 1]]}}}, {"other": 1}]}`, []int32{1, 10}},
		{`{"_id": {"$lt": 10}, "loc": {"$not": {"$geoWithin": {"$box": [[0, 0], [10, 10]]}}}}`, []int32{5, 6, 7, 9}},
	}
	for _, indexed := range []bool{false, true} {
		db, _ := openMem(t)
		if indexed {
			// The index refuses a pair out of range and a value that is
			// no geometry; no geometry at all is not refused.
			mustRun(t, db, "test", `{"createIndexes": "p", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}]}`)
			wantWriteError(t, db, `{"insert": "p", "documents": [`+geoCorpus[8]+`]}`, 16755, "Longitude/latitude is out of bounds")
			wantWriteError(t, db, `{"insert": "p", "documents": [`+geoCorpus[11]+`]}`, 16755, "Can't extract geo keys")
			loadCorpus(t, db, "test", "p", geoCorpus[:8])
			loadCorpus(t, db, "test", "p", geoCorpus[9:11])
		} else {
			loadCorpus(t, db, "test", "p", geoCorpus)
		}
		for _, tc := range cases {
			want := tc.want
			if indexed {
				want = slices.DeleteFunc(slices.Clone(want), func(id int32) bool { return id == 9 || id == 12 })
			}
			got := firstIDs(t, db, `{"find": "p", "filter": `+tc.filter+`, "sort": {"_id": 1}}`)
			if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("indexed %v: %s: got %v, want %v", indexed, tc.filter, got, want)
			}
		}
	}
}

// A $geoWithin on the sphere reads a 2dsphere index by the cells that
// cover its region, and the filter decides each document fetched.
func TestGeoWithinUsesIndex(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs []string
	for i := 0; i < 400; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "loc": {"type": "Point", "coordinates": [%d, %d]}}`, i, i%20-10, i/20-10))
	}
	loadCorpus(t, db, "test", "g", docs)
	mustRun(t, db, "test", `{"createIndexes": "g", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc_2dsphere"}]}`)
	filter := `{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.02]}}}` // about 1.15 degrees
	got := firstIDs(t, db, `{"find": "g", "filter": `+filter+`, "sort": {"_id": 1}}`)
	var want []int32
	for i := 0; i < 400; i++ {
		x, y := float64(i%20-10), float64(i/20-10)
		if x*x+y*y <= 1.3 {
			want = append(want, int32(i))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	ex := mustRun(t, db, "test", `{"explain": {"find": "g", "filter": `+filter+`}, "verbosity": "executionStats"}`)
	if s := fmt.Sprint(ex); !contains(s, "IXSCAN") || !contains(s, "loc_2dsphere") {
		t.Fatalf("explain does not read the index: %v", ex)
	}
	if n, ok := field(ex, "executionStats.totalDocsExamined").(int32); !ok || n > 40 {
		t.Fatalf("examined %v documents for 5", field(ex, "executionStats.totalDocsExamined"))
	}
}

// $near and $nearSphere: documents within the bounds, nearest first,
// in meters for a GeoJSON point and radians for a legacy one on the
// sphere (mongod's geo_operator_crs.js), flat units through a 2d index.
func TestGeoNear(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "n", []string{
		`{"_id": 1, "geo": {"type": "Point", "coordinates": [90, 0]}}`,
		`{"_id": 2, "geo": {"type": "Point", "coordinates": [1, 0]}}`,
		`{"_id": 3, "geo": {"type": "Point", "coordinates": [0, 2]}}`,
		`{"_id": 4, "geo": {"type": "MultiPoint", "coordinates": [[80, 0], [0, 0.5]]}}`,
		`{"_id": 5, "name": "nowhere"}`,
	})
	wantCode(t, db, "test", `{"find": "n", "filter": {"geo": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}}}`, 291, "unable to find index for $geoNear query")
	mustRun(t, db, "test", `{"createIndexes": "n", "indexes": [{"key": {"geo": "2dsphere"}, "name": "geo"}]}`)
	got := firstIDs(t, db, `{"find": "n", "filter": {"geo": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}}}`)
	if !slices.Equal(got, []int32{4, 2, 3, 1}) {
		t.Fatalf("$near order: %v", got)
	}
	meter := math.Pi / 180 * 6378100 // one degree on the equator
	got = firstIDs(t, db, fmt.Sprintf(`{"find": "n", "filter": {"geo": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$minDistance": %g, "$maxDistance": %g}}}}`, 0.9*meter, 2.5*meter))
	if !slices.Equal(got, []int32{2, 3}) {
		t.Fatalf("$near between 0.9 and 2.5 degrees: %v", got)
	}
	got = firstIDs(t, db, `{"find": "n", "filter": {"geo": {"$nearSphere": [0, 0], "$maxDistance": 0.03}}, "skip": 1, "limit": 1}`)
	if !slices.Equal(got, []int32{2}) {
		t.Fatalf("$nearSphere skip 1 limit 1: %v", got)
	}
	got = firstIDs(t, db, `{"find": "n", "filter": {"geo": {"$nearSphere": [0, 0]}}, "sort": {"_id": -1}, "batchSize": 2}`)
	if !slices.Equal(got, []int32{4, 3}) {
		t.Fatalf("$nearSphere sorted by _id: %v", got)
	}
	// The distances, from the $geoNear stage.
	r := mustRun(t, db, "test", `{"aggregate": "n", "pipeline": [{"$geoNear": {"near": [0, 0], "spherical": true, "distanceField": "d", "query": {"_id": 1}}}], "cursor": {}}`)
	if d, _ := field(firstBatch(t, r)[0], "d").(float64); math.Abs(d-math.Pi/2) > 1e-9 {
		t.Fatalf("legacy $geoNear distance: %v, want pi/2 radians", r)
	}
	r = mustRun(t, db, "test", `{"aggregate": "n", "pipeline": [{"$geoNear": {"near": {"type": "Point", "coordinates": [0, 0]}, "distanceField": "d", "query": {"_id": 1}, "includeLocs": "at"}}], "cursor": {}}`)
	if d, _ := field(firstBatch(t, r)[0], "d").(float64); math.Abs(d-math.Pi/2*6378100) > 1e-3 {
		t.Fatalf("GeoJSON $geoNear distance: %v, want pi/2 x 6378100 m", r)
	}
	// The distance and point in a find's projection (geo_operator_crs.js).
	r = mustRun(t, db, "test", `{"find": "n", "filter": {"geo": {"$nearSphere": [0, 0]}, "_id": 1}, "projection": {"_id": 0, "dis": {"$meta": "geoNearDistance"}, "at": {"$meta": "geoNearPoint"}}}`)
	if d, _ := field(firstBatch(t, r)[0], "dis").(float64); math.Abs(d-math.Pi/2) > 1e-9 || fmt.Sprint(field(firstBatch(t, r)[0], "at")) != fmt.Sprint(bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{int32(90), int32(0)}}}) {
		t.Fatalf("projected distance and point: %v", r)
	}
	r = mustRun(t, db, "test", `{"find": "n", "filter": {"geo": {"$nearSphere": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}, "_id": 1}, "projection": {"dis": {"$meta": "geoNearDistance"}}}`)
	if d, _ := field(firstBatch(t, r)[0], "dis").(float64); math.Abs(d-math.Pi/2*6378100) > 1e-3 {
		t.Fatalf("projected distance in meters: %v", r)
	}
	wantCode(t, db, "test", `{"find": "n", "filter": {}, "projection": {"dis": {"$meta": "geoNearDistance"}}}`, 2, "metadata, but it is not available")
	wantCode(t, db, "test", `{"find": "n", "filter": {"geo": {"$nearSphere": [0, 0]}}, "sort": {"dis": {"$meta": "geoNearDistance"}}}`, 2, "not supported by ttlkv in a sort")
	// Where $near may not be.
	wantCode(t, db, "test", `{"count": "n", "query": {"geo": {"$nearSphere": [0, 0]}}}`, 5626500, "not allowed in this context")
	wantCode(t, db, "test", `{"aggregate": "n", "pipeline": [{"$match": {"geo": {"$nearSphere": [0, 0]}}}], "cursor": {}}`, 5626500, "not allowed in this context")
	wantCode(t, db, "test", `{"find": "n", "filter": {"$or": [{"geo": {"$nearSphere": [0, 0]}}, {"_id": 1}]}}`, 2, "geoNear must be top-level expr")
	wantCode(t, db, "test", `{"find": "n", "filter": {"geo": {"$nearSphere": [0, 0]}, "$and": [{"geo": {"$nearSphere": [0, 0]}}]}}`, 2, "Too many geoNear expressions")
	wantCode(t, db, "test", `{"find": "n", "filter": {"geo": {"$nearSphere": [0, 0]}}, "hint": {"$natural": 1}}`, 2, "$natural hint")
	wantCode(t, db, "test", `{"find": "n", "filter": {"geo": {"$near": [0, 0]}}}`, 291, "unable to find index")
	wantCode(t, db, "test", `{"find": "n", "filter": {"geo": {"$near": [0, 0], "$maxDistance": "far"}}}`, 16895, "$maxDistance must be a number")
	wantCode(t, db, "test", `{"find": "n", "filter": {"geo": {"$near": [0, 0], "$minDistance": -1}}}`, 16894, "$minDistance must be non-negative")
	wantCode(t, db, "test", `{"find": "n", "filter": {"geo": {"$near": [0, 0], "$foo": 1}}}`, 34413, "invalid argument in geo near query: $foo")
	wantCode(t, db, "test", `{"find": "n", "filter": {"geo": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}, "$maxDistance": 1}}}`, 2, "Extra field found")
	wantCode(t, db, "test", `{"find": "n", "filter": {"geo": {"$near": {"$geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}}}}`, 2, "Expected geojson geometry with type Point")

	// A 2d index: flat distances between legacy pairs.
	loadCorpus(t, db, "test", "flat", []string{`{"_id": 1, "p": [3, 4]}`, `{"_id": 2, "p": [1, 1]}`, `{"_id": 3, "p": [[9, 9], [0, 2]]}`, `{"_id": 4}`})
	mustRun(t, db, "test", `{"createIndexes": "flat", "indexes": [{"key": {"p": "2d"}, "name": "p_2d"}]}`)
	got = firstIDs(t, db, `{"find": "flat", "filter": {"p": {"$near": [0, 0], "$maxDistance": 5}}}`)
	if !slices.Equal(got, []int32{2, 3, 1}) {
		t.Fatalf("flat $near: %v", got)
	}
	got = firstIDs(t, db, `{"find": "flat", "filter": {"p": {"$near": [0, 0, 2]}}}`)
	if !slices.Equal(got, []int32{2, 3}) {
		t.Fatalf("flat $near with the triple's max distance: %v", got)
	}
	wantCode(t, db, "test", `{"find": "flat", "filter": {"p": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}}}`, 291, "unable to find index")
	ex := mustRun(t, db, "test", `{"explain": {"find": "flat", "filter": {"p": {"$near": [0, 0]}}}}`)
	if !contains(fmt.Sprint(ex), "GEO_NEAR_2D") {
		t.Fatalf("explain of a 2d $near: %v", ex)
	}
}

// The rules of geospatial index specs and what they list.
func TestGeoIndexSpecs(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"loc": "2dsphere", "kind": 1}, "name": "loc_kind"}, {"key": {"p": "2d"}, "name": "p", "bits": 20, "min": -1000, "max": 1000}]}`)
	ixs := firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "s"}`))
	if len(ixs) != 3 || field(ixs[1], "2dsphereIndexVersion") != int32(3) || field(ixs[2], "bits") != int32(20) || field(ixs[2], "min") != -1000.0 {
		t.Fatalf("listIndexes: %v", ixs)
	}
	for _, tc := range []struct {
		spec string
		code document.Code
		frag string
	}{
		{`{"key": {"a": "2d", "b": "2d"}, "name": "x"}`, 16800, "can't have 2 geo fields"},
		{`{"key": {"a": 1, "b": "2d"}, "name": "x"}`, 16801, "2d has to be first"},
		{`{"key": {"a": "2d"}, "name": "x", "bits": 33}`, 16803, "bits in geo index must be between 1 and 32"},
		{`{"key": {"a": "2dsphere"}, "name": "x", "2dsphereIndexVersion": 5}`, 17395, "unsupported geo index version"},
		{`{"key": {"a": "2dsphere"}, "name": "x", "finestIndexedLevel": 31}`, 16748, "finestIndexedLevel must be <= 30"},
		{`{"key": {"a": "2dsphere"}, "name": "x", "coarsestIndexedLevel": -1}`, 16747, "coarsestIndexedLevel must be >= 0"},
		{`{"key": {"a": "2dsphere", "b": "2d"}, "name": "x"}`, 67, "more than one index plugin"},
		{`{"key": {"a": "2dsphere", "b": "text"}, "name": "x"}`, 67, ""},
		{`{"key": {"a": "2dsphere"}, "name": "x", "expireAfterSeconds": 5}`, 67, "TTL"},
		{`{"key": {"a": "geoHaystack", "b": 1}, "name": "x"}`, 67, ""},
	} {
		wantCode(t, db, "test", `{"createIndexes": "s", "indexes": [`+tc.spec+`]}`, tc.code, tc.frag)
	}
}

// Documents a 2dsphere index cannot key are refused with 16755 and
// mongod's reasons (jstests' geo_parse_err.js); a batch keeps its valid
// documents when unordered.
func TestGeoInsertErrors(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"geo": "2dsphere"}, "name": "geo"}]}`)
	for _, tc := range []struct{ geo, frag string }{
		{`{"type": "Point", "coordinates": "hello"}`, "Point must be an array or object, instead got type string"},
		{`{"type": "Point", "coordinates": ["hello", 5]}`, "Point must only contain numeric elements, instead got type string"},
		{`{"type": "Point", "coordinates": [{"$numberDouble": "Infinity"}, 5]}`, "Point coordinates must be finite numbers"},
		{`{"type": "LineString", "coordinates": [5.0, 5.0]}`, "GeoJSON coordinates must be an array, instead got type double"},
		{`{"type": "LineString", "coordinates": 5.0}`, "GeoJSON coordinates must be an array of coordinates, instead got type double"},
		{`{"type": "Polygon", "coordinates": [[[0, 0], [1, 2], [2, 3]]]}`, "Loop is not closed, first vertex does not equal last vertex:"},
		{`{"type": "Polygon", "coordinates": "hi"}`, "Polygon coordinates must be an array, instead got type string"},
		{`{"type": "Polygon", "coordinates": [[[0, 0], [1, 2], [0, 0]]]}`, "Loop must have at least 3 different vertices, 2 unique vertices were provided:"},
		{`{"type": "Polygon", "coordinates": [[[0, 0], [2, 2], [2, 0], [0, 2], [0, 0]]]}`, "Loop is not valid:"},
		{`{"type": "Polygon", "coordinates": [[[10, 10], [-10, 10], [-10, -10], [10, -10], [10, 10]]], "crs": {"type": "name", "properties": {"name": "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}`, "Strict winding order CRS is only supported by polygon"},
		{`{"type": "Point", "coordinates": [0, 0], "crs": {"type": "name"}}`, `CRS must have field "properties" which is an object, instead got type missing`},
		{`{"type": "Point", "coordinates": [0, 0], "crs": {"type": "name", "properties": {"nam": "x"}}}`, `In CRS, "properties.name" must be a string, instead got type missing`},
		{`{"type": "MultiPolygon", "coordinates": ""}`, "MultiPolygon coordinates must be an array, instead got type string"},
		{`{"type": "GeometryCollection", "geometries": [{"type": "MultiPoint", "coordinates": [[-73.958, 40.8003], [-73.9498, 40.7968]]}, 5.0]}`, `Element 1 of "geometries" must be an object, instead got type double:`},
		{`{"type": "Point", "coordinates": [0, 91]}`, "Longitude/latitude is out of bounds, lng: 0 lat: 91"},
		{`{"type": "Circle", "coordinates": [0, 0]}`, "unknown GeoJSON type"},
		{`{"type": "Point"}`, "Point must be an array or object, instead got type missing"},
	} {
		wantWriteError(t, db, `{"insert": "e", "documents": [{"_id": 1, "geo": `+tc.geo+`}]}`, 16755, tc.frag)
	}
	r := mustRun(t, db, "test", `{"insert": "e", "ordered": false, "documents": [{"_id": 1, "geo": [0, 0]}, {"_id": 2, "geo": [0, 100]}, {"_id": 3}, {"_id": 4, "geo": []}, {"_id": 5, "geo": {"type": "Point", "coordinates": [1, 2, 3], "extra": true}}]}`)
	if field(r, "n") != int32(4) {
		t.Fatalf("unordered insert: %v", r)
	}
	if n := count(t, db, "test", "e"); n != 4 {
		t.Fatalf("%d documents, want 4", n)
	}
	// An update that would make a document unkeyable is refused and
	// leaves it as it was.
	wantWriteError(t, db, `{"update": "e", "updates": [{"q": {"_id": 1}, "u": {"$set": {"geo.1": 95}}}]}`, 16755, "out of bounds")
	if got := findAll(t, db, "test", "e", bson.D{{Key: "_id", Value: 1}}); len(got) != 1 || fmt.Sprint(field(got[0], "geo")) != "[0 0]" {
		t.Fatalf("after a refused update: %v", got)
	}
	if v := mustValidate(t, db, "test", "e"); !v.Valid() {
		t.Fatalf("validate: %+v", v)
	}
}

// Capped and time-series collections take no geo index.
func TestGeoIndexKinds(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "ring", "capped": true, "size": 100000}`)
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	wantCode(t, db, "test", `{"createIndexes": "ring", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}]}`, 67, "geospatial indexes are not supported")
	wantCode(t, db, "test", `{"createIndexes": "ts", "indexes": [{"key": {"m.loc": "2dsphere"}, "name": "loc"}]}`, 67, "")
}

// explain of a pipeline led by $geoNear shows the near plan it runs.
func TestGeoNearExplain(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "x", []string{`{"_id": 1, "loc": [1, 1]}`})
	mustRun(t, db, "test", `{"createIndexes": "x", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}]}`)
	ex := mustRun(t, db, "test", `{"explain": {"aggregate": "x", "pipeline": [{"$geoNear": {"near": [0, 0], "spherical": true, "distanceField": "d"}}], "cursor": {}}}`)
	if s := fmt.Sprint(ex); !contains(s, "GEO_NEAR_2DSPHERE") || !contains(s, "$nearSphere") {
		t.Fatalf("explain: %v", ex)
	}
}

// $geoNear without a distanceField orders the documents by distance and
// adds nothing, through a 2d index (flat) and a 2dsphere one (spherical),
// as mongod's geonear_distancefield_optional test runs it.
func TestGeoNearWithoutDistanceField(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"2d", "2dsphere"} {
		db, _ := openMem(t)
		mustRun(t, db, "test", `{"createIndexes": "o", "indexes": [{"key": {"pt": "`+kind+`"}, "name": "pt"}]}`)
		loadCorpus(t, db, "test", "o", []string{`{"_id": 1, "pt": [0, 0]}`, `{"_id": 2, "pt": [0.23, -0.32]}`, `{"_id": 3, "pt": [5.9, 0.0]}`, `{"_id": 4, "pt": [7.2, -1.4]}`})
		for _, tc := range []struct {
			near string
			want []int32
		}{{`[0, 0]`, []int32{1, 2, 3, 4}}, {`[7.2, -1.4]`, []int32{4, 3, 2, 1}}} {
			r := mustRun(t, db, "test", fmt.Sprintf(`{"aggregate": "o", "pipeline": [{"$geoNear": {"near": %s, "spherical": %v}}], "cursor": {}}`, tc.near, kind == "2dsphere"))
			var got []int32
			for _, d := range firstBatch(t, r) {
				if len(d) != 2 {
					t.Fatalf("%s: a document gained fields: %v", kind, d)
				}
				got = append(got, field(d, "_id").(int32))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s near %s: %v, want %v", kind, tc.near, got, tc.want)
			}
		}
	}
}

// Positions that expire: the TTL monitor's deletes take their geo and
// compound wildcard keys with them (validate finds no stray entry), and
// $near no longer finds them.
func TestGeoTTL(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "pos", "indexes": [{"key": {"at": "2dsphere"}, "name": "at"}, {"key": {"seen": 1}, "name": "seen", "expireAfterSeconds": 60}, {"key": {"fleet": 1, "tags.$**": 1}, "name": "fleet_tags"}]}`)
	now := clk.Now()
	var docs []string
	for i := 0; i < 200; i++ {
		seen := now
		if i%2 == 0 {
			seen = now.Add(-time.Hour)
		}
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "fleet": "f%d", "tags": {"kind": "k%d"}, "at": {"type": "Point", "coordinates": [%g, %g]}, "seen": {"$date": %q}}`,
			i, i%3, i%4, float64(i%20)/10, float64(i/20)/10, seen.Format(time.RFC3339Nano)))
	}
	loadCorpus(t, db, "test", "pos", docs)
	if _, err := db.RunTTLPass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "test", "pos"); n != 100 {
		t.Fatalf("%d documents after the TTL pass, want 100", n)
	}
	got := firstIDs(t, db, `{"find": "pos", "filter": {"at": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}}, "limit": 5}`)
	for _, id := range got {
		if id%2 == 0 {
			t.Fatalf("$near found expired document %d: %v", id, got)
		}
	}
	if len(got) != 5 {
		t.Fatalf("$near after the pass: %v", got)
	}
	// Odd _ids of fleet f1: 1, 7, ..., 199.
	if n := len(firstIDs(t, db, `{"find": "pos", "filter": {"fleet": "f1"}, "batchSize": 1000}`)); n != 34 {
		t.Fatalf("fleet f1 through the compound wildcard index: %d, want 34", n)
	}
	if v := mustValidate(t, db, "test", "pos"); !v.Valid() {
		t.Fatalf("validate: %+v", v)
	}
}

// $geoNear leads a $lookup's or $unionWith's pipeline, its near a let
// variable (mongod 5.1): each store gets its two nearest depots; a
// command's let may give near too.
func TestGeoNearInSubPipelines(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "depots", "indexes": [{"key": {"at": "2dsphere"}, "name": "at"}]}`)
	loadCorpus(t, db, "test", "depots", []string{
		`{"_id": "west", "at": {"type": "Point", "coordinates": [-1, 0]}}`,
		`{"_id": "east", "at": {"type": "Point", "coordinates": [1, 0]}}`,
		`{"_id": "far", "at": {"type": "Point", "coordinates": [30, 30]}}`,
	})
	loadCorpus(t, db, "test", "stores", []string{
		`{"_id": 1, "loc": {"type": "Point", "coordinates": [-0.9, 0]}}`,
		`{"_id": 2, "loc": {"type": "Point", "coordinates": [29, 29]}}`,
	})
	r := mustRun(t, db, "test", `{"aggregate": "stores", "pipeline": [{"$lookup": {"from": "depots", "let": {"pt": "$loc"}, "pipeline": [
		{"$geoNear": {"near": "$$pt", "distanceField": "m"}}, {"$limit": 2}, {"$project": {"_id": 1}}], "as": "nearest"}}, {"$sort": {"_id": 1}}], "cursor": {}}`)
	got := fmt.Sprint(firstBatch(t, r))
	want := `[{"_id":{"$numberInt":"1"},"loc":{"type":"Point","coordinates":[{"$numberDouble":"-0.9"},{"$numberInt":"0"}]},"nearest":[{"_id":"west"},{"_id":"east"}]} {"_id":{"$numberInt":"2"},"loc":{"type":"Point","coordinates":[{"$numberInt":"29"},{"$numberInt":"29"}]},"nearest":[{"_id":"far"},{"_id":"east"}]}]`
	if got != want {
		t.Fatalf("$lookup with $geoNear:\n%s\nwant\n%s", got, want)
	}
	r = mustRun(t, db, "test", `{"aggregate": "stores", "pipeline": [{"$match": {"_id": 1}}, {"$unionWith": {"coll": "depots", "pipeline": [{"$geoNear": {"near": [30, 30], "spherical": true, "distanceField": "d", "maxDistance": 0.1}}]}}], "cursor": {}}`)
	if ids := fmt.Sprint(firstBatch(t, r)); !strings.Contains(ids, `"_id":"far"`) || strings.Contains(ids, `"west"`) {
		t.Fatalf("$unionWith with $geoNear: %s", ids)
	}
	r = mustRun(t, db, "test", `{"aggregate": "depots", "pipeline": [{"$geoNear": {"near": "$$pt", "distanceField": "m"}}, {"$limit": 1}], "let": {"pt": {"type": "Point", "coordinates": [0.9, 0]}}, "cursor": {}}`)
	if id := field(firstBatch(t, r)[0], "_id"); id != "east" {
		t.Fatalf("$geoNear near a command let: %v", r)
	}
	wantCode(t, db, "test", `{"aggregate": "stores", "pipeline": [{"$facet": {"x": [{"$geoNear": {"near": [0, 0], "distanceField": "d"}}]}}], "cursor": {}}`, 40600, "")
	wantCode(t, db, "test", `{"aggregate": "depots", "pipeline": [{"$geoNear": {"near": "$x", "distanceField": "d"}}], "cursor": {}}`, 16605, "")
	wantCode(t, db, "test", `{"aggregate": "stores", "pipeline": [{"$lookup": {"from": "depots", "let": {"pt": "$nothere"}, "pipeline": [{"$geoNear": {"near": "$$pt", "distanceField": "m"}}], "as": "n"}}], "cursor": {}}`, 16605, "")
}
