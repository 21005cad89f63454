package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// geoRevIDs runs a find on coll with filter (and hint, if not "") and
// returns the _ids, sorted.
func geoRevIDs(t *testing.T, db *DB, coll, filter, hint string) []int32 {
	t.Helper()
	cmd := `{"find": "` + coll + `", "filter": ` + filter + `, "sort": {"_id": 1}, "batchSize": 10000`
	if hint != "" {
		cmd += `, "hint": ` + hint
	}
	return firstIDs(t, db, cmd+`}`)
}

// geoRevAgree checks that each filter finds the same documents through
// the planner's choice (the geo index) as through a collection scan,
// and that the expected set (when given) is what both find.
func geoRevAgree(t *testing.T, db *DB, coll string, cases []geoRevCase) {
	t.Helper()
	for _, tc := range cases {
		idx := geoRevIDs(t, db, coll, tc.filter, "")
		scan := geoRevIDs(t, db, coll, tc.filter, `{"$natural": 1}`)
		if !slices.Equal(idx, scan) {
			t.Errorf("%s: index %v, scan %v", tc.filter, idx, scan)
		}
		if tc.want != nil && !slices.Equal(scan, tc.want) && !(len(scan) == 0 && len(tc.want) == 0) {
			t.Errorf("%s: got %v, want %v", tc.filter, scan, tc.want)
		}
	}
}

type geoRevCase struct {
	filter string
	want   []int32 // nil: only index == scan; []int32{}: empty
}

func geoRevPoint(lng, lat float64) string {
	return fmt.Sprintf(`{"type": "Point", "coordinates": [%v, %v]}`, lng, lat)
}

// mongod's GeoNearExpression::parseLegacyQuery accepts a GeoJSON point
// directly as the value of $near / $nearSphere / $geoNear
// (GeoParser::parseQueryPoint), with distances in meters
// (jstests geo_operator_crs.js: $nearSphere: {type: "Point", ...};
// geo_update_dedup.js: $geoNear: {type: "Point", ...}); $maxDistance is
// then a sibling of the operator.
func TestReviewGeoNearGeoJSONPointDirect(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "n", []string{
		`{"_id": 1, "geo": ` + geoRevPoint(90, 0) + `}`,
		`{"_id": 2, "geo": ` + geoRevPoint(1, 0) + `}`,
		`{"_id": 3, "geo": ` + geoRevPoint(0, 2) + `}`,
	})
	mustRun(t, db, "test", `{"createIndexes": "n", "indexes": [{"key": {"geo": "2dsphere"}, "name": "geo"}]}`)
	for _, op := range []string{"$near", "$nearSphere", "$geoNear"} {
		r, err := run(t, db, "test", `{"find": "n", "filter": {"geo": {"`+op+`": {"type": "Point", "coordinates": [0, 0]}}}}`)
		if err != nil {
			t.Errorf("%s with a GeoJSON point as its value: %v (mongod accepts it)", op, err)
			continue
		}
		var got []int32
		for _, d := range firstBatch(t, r) {
			got = append(got, field(d, "_id").(int32))
		}
		if !slices.Equal(got, []int32{2, 3, 1}) {
			t.Errorf("%s GeoJSON point: got %v, want [2 3 1]", op, got)
		}
	}
	// $maxDistance beside it is in meters: 150 km holds only _id 2 (111 km).
	r, err := run(t, db, "test", `{"find": "n", "filter": {"geo": {"$near": {"type": "Point", "coordinates": [0, 0]}, "$maxDistance": 150000}}}`)
	if err != nil {
		t.Fatalf("$near GeoJSON point with a sibling $maxDistance: %v (mongod accepts it)", err)
	}
	if b := firstBatch(t, r); len(b) != 1 || field(b[0], "_id") != int32(2) {
		t.Fatalf("$near GeoJSON point $maxDistance 150000 m: %v, want [_id 2]", b)
	}
}

// mongod's near stages compute a document's distance as the minimum over
// ALL its geometries (geo_near.cpp computeGeoNearDistance) and throw out
// documents whose distance is below $minDistance (near.cpp advanceNext):
// a document with one point inside $minDistance and one outside is not
// returned. (ttlkv kept it, measured to its nearest point within
// bounds, until this test.)
func TestReviewGeoNearMinDistanceMultiGeometry(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "m", []string{
		`{"_id": 1, "geo": {"type": "MultiPoint", "coordinates": [[0, 0.001], [0, 1]]}}`, // nearest 111 m
		`{"_id": 2, "geo": [` + geoRevPoint(0, 0.001) + `, ` + geoRevPoint(0, 1) + `]}`,
		`{"_id": 3, "geo": ` + geoRevPoint(0, 1) + `}`, // 111 km
	})
	mustRun(t, db, "test", `{"createIndexes": "m", "indexes": [{"key": {"geo": "2dsphere"}, "name": "geo"}]}`)
	got := firstIDs(t, db, `{"find": "m", "filter": {"geo": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$minDistance": 10000}}}}`)
	if !slices.Equal(got, []int32{3}) {
		t.Errorf("$near $minDistance 10 km: got %v, want [3] (docs 1 and 2 are 111 m away)", got)
	}
	r := mustRun(t, db, "test", `{"aggregate": "m", "pipeline": [{"$geoNear": {"near": {"type": "Point", "coordinates": [0, 0]}, "distanceField": "d", "minDistance": 10000}}], "cursor": {}}`)
	var ids []int32
	for _, d := range firstBatch(t, r) {
		ids = append(ids, field(d, "_id").(int32))
	}
	if !slices.Equal(ids, []int32{3}) {
		t.Errorf("$geoNear minDistance 10 km: got %v, want [3]", ids)
	}
	// Flat, through a 2d index: [[0, 0.5], [0, 5]] is at distance 0.5.
	loadCorpus(t, db, "test", "f", []string{`{"_id": 1, "p": [[0, 0.5], [0, 5]]}`, `{"_id": 2, "p": [0, 5]}`})
	mustRun(t, db, "test", `{"createIndexes": "f", "indexes": [{"key": {"p": "2d"}, "name": "p"}]}`)
	got = firstIDs(t, db, `{"find": "f", "filter": {"p": {"$near": [0, 0], "$minDistance": 1}}}`)
	if !slices.Equal(got, []int32{2}) {
		t.Errorf("2d $near $minDistance 1: got %v, want [2]", got)
	}
}

// Updates, deletes and findAndModify with $near: mongod runs them through
// the near stage (jstests geo_update_dedup.js): a multi update matches a
// document with several points once; a single update / delete /
// findAndModify takes the NEAREST document.
func TestReviewGeoNearWrites(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"locs": "2d"}, "name": "locs"}]}`)
	loadCorpus(t, db, "test", "w", []string{`{"_id": 1, "locs": [[49.999, 49.999], [50.0, 50.0], [50.001, 50.001]]}`})
	r := mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {"locs": {"$near": [50.0, 50.0]}}, "u": {"$inc": {"touch": 1}}, "multi": true}]}`)
	if field(r, "n") != int32(1) || field(r, "nModified") != int32(1) {
		t.Fatalf("multi update with $near: %v, want n 1", r)
	}
	if d := findAll(t, db, "test", "w", bson.D{}); len(d) != 1 || field(d[0], "touch") != int32(1) {
		t.Fatalf("after multi update: %v", d)
	}

	// Nearest first for single writes. Insert far ones first and with
	// smaller _ids, at several places, so that neither _id nor insertion
	// order nor cell order gives the nearest by accident.
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}]}`)
	var docs []string
	for i := 1; i <= 30; i++ {
		lng := float64(i%10-5) * 3
		lat := float64(i/10) * 7
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "loc": %s}`, i, geoRevPoint(lng, lat)))
	}
	docs = append(docs, `{"_id": 100, "loc": `+geoRevPoint(40.01, 40.01)+`}`, `{"_id": 101, "loc": `+geoRevPoint(40.5, 40.5)+`}`)
	loadCorpus(t, db, "test", "s", docs)
	near := `{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [40, 40]}}}}`
	r, err := run(t, db, "test", `{"findAndModify": "s", "query": `+near+`, "update": {"$set": {"hit": 1}}}`)
	if err != nil {
		t.Errorf("findAndModify with $near: %v (mongod modifies the nearest document)", err)
	} else if v, _ := field(r, "value").(bson.D); field(v, "_id") != int32(100) {
		t.Errorf("findAndModify with $near: modified %v, want the nearest (_id 100)", field(v, "_id"))
	}
	r = mustRun(t, db, "test", `{"update": "s", "updates": [{"q": `+near+`, "u": {"$set": {"upd": 1}}}]}`)
	if field(r, "n") != int32(1) {
		t.Errorf("updateOne with $near: %v", r)
	}
	if d := findAll(t, db, "test", "s", bson.D{{Key: "upd", Value: 1}}); len(d) != 1 || field(d[0], "_id") != int32(100) {
		t.Errorf("updateOne with $near: updated %v, want the nearest (_id 100)", idsOf(t, d))
	}
	mustRun(t, db, "test", `{"delete": "s", "deletes": [{"q": `+near+`, "limit": 1}]}`)
	if d := findAll(t, db, "test", "s", bson.D{{Key: "_id", Value: 100}}); len(d) != 0 {
		t.Errorf("deleteOne with $near: _id 100 (the nearest) is still there")
	}
	mustValidate(t, db, "test", "s")
}

// A corpus that exercises multikey geo values: arrays of legacy pairs,
// arrays of GeoJSON, arrays of subdocuments, nested paths, plus points at
// the poles and the antimeridian (cells of faces 2, 4 and 5, whose ids
// are large or negative as int64).
var geoRevCorpus = []string{
	`{"_id": 1, "a": 1, "b": "x", "loc": [0, 0]}`,
	`{"_id": 2, "a": 1, "b": "y", "loc": [[1, 1], [60, 60]]}`,
	`{"_id": 3, "a": 2, "b": "x", "loc": [` + geoRevPoint(2, 2) + `, ` + geoRevPoint(-120, -45) + `]}`,
	`{"_id": 4, "a": 2, "b": "y", "loc": {"type": "LineString", "coordinates": [[-1, -1], [1, 1]]}}`,
	`{"_id": 5, "a": 3, "b": "x", "loc": {"type": "Polygon", "coordinates": [[[3, 3], [4, 3], [4, 4], [3, 4], [3, 3]]]}}`,
	`{"_id": 6, "a": 3, "b": "y", "loc": ` + geoRevPoint(180, 10) + `}`,
	`{"_id": 7, "a": 4, "b": "x", "loc": ` + geoRevPoint(-179.5, 10) + `}`,
	`{"_id": 8, "a": 4, "b": "y", "loc": ` + geoRevPoint(0, 90) + `}`,
	`{"_id": 9, "a": 5, "b": "x", "loc": ` + geoRevPoint(45, -90) + `}`,
	`{"_id": 10, "a": 5, "b": "y", "loc": ` + geoRevPoint(100, -89.5) + `}`,
	`{"_id": 11, "a": 6, "b": "x", "loc": {"type": "MultiPoint", "coordinates": [[170, -60], [10, 10]]}}`,
	`{"_id": 12, "a": 6, "b": "y", "loc": {"type": "GeometryCollection", "geometries": [` + geoRevPoint(-100, 40) + `, {"type": "LineString", "coordinates": [[5, 5], [6, 6]]}]}}`,
	`{"_id": 13, "a": 7, "b": "x"}`,
	`{"_id": 14, "a": 7, "b": "y", "loc": null}`,
	`{"_id": 15, "a": 8, "b": "x", "loc": {"x": 10, "y": 10}}`,
	`{"_id": 16, "a": 8, "b": "y", "loc": [[-179, -80], [179, 80]]}`,
	`{"_id": 17, "a": [1, 2], "b": "x", "loc": ` + geoRevPoint(0.5, 0.5) + `}`,
	`{"_id": 18, "a": 9, "b": "z", "loc": {"type": "Polygon", "coordinates": [[[170, -10], [-170, -10], [-170, 10], [170, 10], [170, -10]]]}}`,
	`{"_id": 19, "a": 9, "b": "z", "loc": {"type": "Polygon", "coordinates": [[[0, 80], [120, 80], [-120, 80], [0, 80]]]}}`,
	`{"_id": 20, "a": 10, "b": "z", "loc": {"type": "LineString", "coordinates": [[179, 0], [-179, 0]]}}`,
}

var geoRevQueries = []geoRevCase{
	// An array matches when any of its elements does.
	{`{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.05]}}}`, []int32{1, 2, 3, 4, 17}},
	{`{"loc": {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [[[-2, -2], [4.5, -2], [4.5, 4.5], [-2, 4.5], [-2, -2]]]}}}}`, []int32{1, 2, 3, 4, 5, 17}},
	{`{"loc": {"$geoIntersects": {"$geometry": {"type": "Polygon", "coordinates": [[[-2, -2], [4.5, -2], [4.5, 4.5], [-2, 4.5], [-2, -2]]]}}}}`, []int32{1, 2, 3, 4, 5, 17}},
	// Across the antimeridian: the smaller region, 20 degrees wide.
	{`{"loc": {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [[[170, -1], [-170, -1], [-170, 20], [170, 20], [170, -1]]]}}}}`, []int32{6, 7, 20}},
	{`{"loc": {"$geoIntersects": {"$geometry": {"type": "Polygon", "coordinates": [[[170, -1], [-170, -1], [-170, 20], [170, 20], [170, -1]]]}}}}`, []int32{6, 7, 18, 20}},
	{`{"loc": {"$geoIntersects": {"$geometry": {"type": "LineString", "coordinates": [[180, -5], [180, 5]]}}}}`, []int32{18, 20}},
	// The poles.
	{`{"loc": {"$geoWithin": {"$centerSphere": [[0, 90], 0.1]}}}`, []int32{8}},
	{`{"loc": {"$geoWithin": {"$centerSphere": [[0, -90], 0.1]}}}`, []int32{9, 10}},
	{`{"loc": {"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [45, -90]}}}}`, []int32{9}},
	{`{"loc": {"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [30, 85]}}}}`, []int32{19}},
	{`{"loc": {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [[[0, 70], [120, 70], [-120, 70], [0, 70]]]}}}}`, []int32{8, 16, 19}},
	{`{"loc": {"$geoIntersects": {"$geometry": {"type": "MultiPoint", "coordinates": [[170, -60], [-179, -80]]}}}}`, []int32{11, 16}},
	// Half the Earth and more.
	{`{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 3.2]}}}`, nil},
	{`{"loc": {"$geoIntersects": {"$geometry": {"type": "Polygon", "coordinates": [[[-1, -1], [1, -1], [1, 1], [-1, 1], [-1, -1]]], "crs": {"type": "name", "properties": {"name": "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}}}}`, nil},
	// Clockwise big polygon: everything but a small square around (0, 0).
	// Doc 4, the square's diagonal (-1, -1)-(1, 1), runs through the
	// excluded square: not within (mongod clips the line to the polygon
	// and nothing is left).
	{`{"loc": {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [[[-1, -1], [-1, 1], [1, 1], [1, -1], [-1, -1]]], "crs": {"type": "name", "properties": {"name": "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}}}}`, []int32{2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 18, 19, 20}},
	// With other predicates.
	{`{"a": 1, "loc": {"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [60, 60]}}}}`, []int32{2}},
	{`{"a": 2, "b": "x", "loc": {"$geoWithin": {"$centerSphere": [[-120, -45], 0.01]}}}`, []int32{3}},
	{`{"a": {"$in": [1, 3, 9]}, "loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.2]}}}`, []int32{1, 2, 5, 17}},
	{`{"a": {"$gte": 4}, "loc": {"$geoIntersects": {"$geometry": {"type": "Polygon", "coordinates": [[[-180, -90], [0, -90], [0, 0], [-180, 0], [-180, -90]]]}}}}`, nil},
	{`{"b": "x", "loc": {"$geoWithin": {"$box": [[-1, -1], [11, 11]]}}}`, []int32{1, 3, 15, 17}},
	{`{"$and": [{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 1]}}}, {"loc": {"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [1, 1]}}}}]}`, []int32{2, 4}},
}

// Index reads agree with collection scans over multikey values, poles and
// the antimeridian, for single and compound 2dsphere indexes.
func TestReviewGeoIndexAgreesWithScan(t *testing.T) {
	t.Parallel()
	for _, key := range []string{
		`{"loc": "2dsphere"}`,
		`{"a": 1, "loc": "2dsphere"}`,
		`{"loc": "2dsphere", "a": 1}`,
		`{"b": 1, "a": -1, "loc": "2dsphere"}`,
		`{"a": 1, "loc": "2dsphere", "b": 1}`,
	} {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			db, _ := openMem(t)
			mustRun(t, db, "test", `{"createIndexes": "g", "indexes": [{"key": `+key+`, "name": "gi"}]}`)
			loadCorpus(t, db, "test", "g", geoRevCorpus)
			geoRevAgree(t, db, "g", geoRevQueries)
			mustValidate(t, db, "test", "g")
		})
	}
}

// The same over a path through an array of subdocuments.
func TestReviewGeoNestedArrayPath(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "n", "indexes": [{"key": {"places.at": "2dsphere"}, "name": "p"}]}`)
	loadCorpus(t, db, "test", "n", []string{
		`{"_id": 1, "places": [{"at": [0, 0]}, {"at": ` + geoRevPoint(50, 50) + `}]}`,
		`{"_id": 2, "places": [{"name": "none"}, {"at": [[10, 10], [20, 20]]}]}`,
		`{"_id": 3, "places": {"at": ` + geoRevPoint(-50, -50) + `}}`,
		`{"_id": 4, "places": [[{"at": [0, 0]}]]}`,
		`{"_id": 5, "places": []}`,
	})
	geoRevAgree(t, db, "n", []geoRevCase{
		{`{"places.at": {"$geoWithin": {"$centerSphere": [[0, 0], 0.01]}}}`, []int32{1}},
		{`{"places.at": {"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [20, 20]}}}}`, []int32{2}},
		{`{"places.at": {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [[[-60, -60], [60, -60], [60, 60], [-60, 60], [-60, -60]]]}}}}`, []int32{1, 2, 3}},
	})
	r := mustRun(t, db, "test", `{"aggregate": "n", "pipeline": [{"$geoNear": {"near": {"type": "Point", "coordinates": [19, 19]}, "distanceField": "d", "includeLocs": "l"}}], "cursor": {}}`)
	b := firstBatch(t, r)
	if len(b) != 3 || field(b[0], "_id") != int32(2) || fmt.Sprint(field(b[0], "l")) != "[20 20]" {
		t.Errorf("$geoNear over places.at: %v", b)
	}
	mustValidate(t, db, "test", "n")
}

// Updates move, replace and remove geometries; deletes drop them. A query
// must no longer find a document at its old place, through the index or
// not, and validate must pass.
func TestReviewGeoUpdatesMoveGeometry(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "u", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}, {"key": {"k": 1, "loc": "2dsphere"}, "name": "kloc"}, {"key": {"p": "2d"}, "name": "p"}]}`)
	loadCorpus(t, db, "test", "u", []string{
		`{"_id": 1, "k": 1, "loc": ` + geoRevPoint(0, 0) + `, "p": [0, 0]}`,
		`{"_id": 2, "k": 1, "loc": [[0, 0], [5, 5]], "p": [[0, 0], [5, 5]]}`,
		`{"_id": 3, "k": 2, "loc": {"type": "Polygon", "coordinates": [[[-1, -1], [1, -1], [1, 1], [-1, 1], [-1, -1]]]}, "p": [1, 1]}`,
	})
	at := func(lng, lat float64) string {
		return fmt.Sprintf(`{"loc": {"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [%v, %v]}}}}`, lng, lat)
	}
	geoRevAgree(t, db, "u", []geoRevCase{{at(0, 0), []int32{1, 2, 3}}})
	mustRun(t, db, "test", `{"update": "u", "updates": [
		{"q": {"_id": 1}, "u": {"$set": {"loc.coordinates": [30, 30]}}},
		{"q": {"_id": 2}, "u": {"$pop": {"loc": -1}, "$set": {"p": [[7, 7]]}}},
		{"q": {"_id": 3}, "u": {"k": 3, "loc": {"type": "LineString", "coordinates": [[10, 10], [11, 11]]}, "p": [2, 2]}}
	]}`)
	geoRevAgree(t, db, "u", []geoRevCase{
		{at(0, 0), []int32{}},
		{at(30, 30), []int32{1}},
		{at(5, 5), []int32{2}},
		{`{"k": 1, "loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.01]}}}`, []int32{}},
		{`{"k": 3, "loc": {"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [10, 10]}}}}`, []int32{3}},
	})
	got := firstIDs(t, db, `{"find": "u", "filter": {"p": {"$near": [0, 0], "$maxDistance": 3}}}`)
	if !slices.Equal(got, []int32{1, 3}) {
		t.Errorf("2d $near after updates: %v, want [1 3]", got)
	}
	mustValidate(t, db, "test", "u")
	// $unset the geometry: out of the geo indexes, still in the collection.
	mustRun(t, db, "test", `{"update": "u", "updates": [{"q": {"_id": 1}, "u": {"$unset": {"loc": 1, "p": 1}}}]}`)
	geoRevAgree(t, db, "u", []geoRevCase{{at(30, 30), []int32{}}})
	if n := count(t, db, "test", "u"); n != 3 {
		t.Errorf("%d documents after $unset, want 3", n)
	}
	mustValidate(t, db, "test", "u")
	mustRun(t, db, "test", `{"delete": "u", "deletes": [{"q": {"loc": {"$geoWithin": {"$centerSphere": [[5, 5], 0.01]}}}, "limit": 0}]}`)
	geoRevAgree(t, db, "u", []geoRevCase{{`{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 1]}}}`, []int32{3}}})
	got = firstIDs(t, db, `{"find": "u", "filter": {"loc": {"$nearSphere": [0, 0]}}}`)
	if !slices.Equal(got, []int32{3}) {
		t.Errorf("$nearSphere after the delete: %v, want [3]", got)
	}
	mustValidate(t, db, "test", "u")
}

// Geo indexes survive a restart: queries, $near and validate.
func TestReviewGeoRestart(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "r", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc", "2dsphereIndexVersion": 2}, {"key": {"p": "2d", "a": 1}, "name": "p", "bits": 20, "min": -500, "max": 500}]}`)
	loadCorpus(t, db, "test", "r", []string{
		`{"_id": 1, "a": 1, "loc": ` + geoRevPoint(0, 0) + `, "p": [0, 0]}`,
		`{"_id": 2, "a": 2, "loc": ` + geoRevPoint(1, 1) + `, "p": [300, 300]}`,
		`{"_id": 3, "a": 3, "loc": ` + geoRevPoint(-100, -80) + `, "p": [-400, 1]}`,
	})
	db = reopen(t, db, dir, clk)
	ixs := firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "r"}`))
	if len(ixs) != 3 || field(ixs[1], "2dsphereIndexVersion") != int32(2) || field(ixs[2], "bits") != int32(20) || field(ixs[2], "max") != 500.0 {
		t.Errorf("listIndexes after restart: %v", ixs)
	}
	geoRevAgree(t, db, "r", []geoRevCase{{`{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.1]}}}`, []int32{1, 2}}})
	got := firstIDs(t, db, `{"find": "r", "filter": {"p": {"$near": [290, 290]}}}`)
	if !slices.Equal(got, []int32{2, 1, 3}) {
		t.Errorf("2d $near after restart: %v", got)
	}
	got = firstIDs(t, db, `{"find": "r", "filter": {"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [-100, -79]}}}}}`)
	if !slices.Equal(got, []int32{3, 1, 2}) {
		t.Errorf("$near after restart: %v", got)
	}
	wantWriteError(t, db, `{"insert": "r", "documents": [{"_id": 4, "p": [500, 0]}]}`, 13027, "point not in interval")
	mustValidate(t, db, "test", "r")
}

// A line whose vertices lie inside or on the boundary of a polygon but
// which runs through a notch outside it is not within the polygon:
// mongod clips the line to the polygon (IntersectWithPolyline) and asks
// for the whole line back. (ttlkv checked only that the vertices were
// contained and that no edge crossed the boundary's interior, so a line
// passing through a vertex-to-vertex gap was taken as within.)
func TestReviewGeoLineAcrossHole(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	// Doc 4 runs corner to corner across the hole of the holed polygon:
	// outside it but for its two end points.
	// A U: the notch x in (3, 7), y in (3, 10] is outside.
	u := `{"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [7, 10], [7, 3], [3, 3], [3, 10], [0, 10], [0, 0]]]}`
	loadCorpus(t, db, "test", "l", []string{
		// From the U's vertex (7, 3) to its vertex (3, 3) and on: the
		// edge (7,3)-(3,3) is the notch's floor, on the boundary; fine.
		`{"_id": 1, "loc": {"type": "LineString", "coordinates": [[1, 1], [9, 1]]}}`,
		// Vertex to vertex straight across the notch's mouth region:
		// (3, 10) -> (7, 10) runs outside the U (through the notch).
		`{"_id": 2, "loc": {"type": "LineString", "coordinates": [[1, 9], [3, 10], [7, 10], [9, 9]]}}`,
		// From the notch's corner (3, 3) through the notch's open interior.
		`{"_id": 3, "loc": {"type": "LineString", "coordinates": [[3, 3], [7, 9]]}}`,
		// Corner to corner of the hole below, across the hole.
		`{"_id": 4, "loc": {"type": "LineString", "coordinates": [[-1, -1], [1, 1]]}}`,
		// Points: in the hole, on the hole's edge, in the shell.
		`{"_id": 5, "loc": [0, 0]}`,
		`{"_id": 6, "loc": [-1, 0]}`,
		`{"_id": 7, "loc": [3, 0]}`,
		// A polygon inside the hole, and one around the hole.
		`{"_id": 8, "loc": {"type": "Polygon", "coordinates": [[[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5], [-0.5, -0.5]]]}}`,
		`{"_id": 9, "loc": {"type": "Polygon", "coordinates": [[[-2, -2], [2, -2], [2, 2], [-2, 2], [-2, -2]]]}}`,
		// Along the shell's edge to a point inside, and a line from the
		// hole's corner outward into the shell.
		`{"_id": 10, "loc": {"type": "LineString", "coordinates": [[1, 1], [4, 4]]}}`,
	})
	mustRun(t, db, "test", `{"createIndexes": "l", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}]}`)
	holed := `{"type": "Polygon", "coordinates": [[[-5, -5], [5, -5], [5, 5], [-5, 5], [-5, -5]], [[-1, -1], [1, -1], [1, 1], [-1, 1], [-1, -1]]]}`
	geoRevAgree(t, db, "l", []geoRevCase{
		{`{"loc": {"$geoWithin": {"$geometry": ` + u + `}}}`, []int32{1, 5, 7}},
		{`{"loc": {"$geoWithin": {"$geometry": ` + holed + `}}}`, []int32{6, 7, 10}},
		{`{"loc": {"$geoIntersects": {"$geometry": ` + holed + `}}}`, []int32{1, 3, 4, 6, 7, 9, 10}},
	})
}

// A $centerSphere larger than a hemisphere: a line whose two vertices are
// inside the cap but whose edge passes through the small region outside
// it is not within (mongod: the shape's distance to the complement's
// centre must be at least the complement's radius). (ttlkv checked the
// vertices only.)
func TestReviewGeoBigCapLine(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{
		// The complement of a 3-radian cap around (0, 0) is a cap of
		// about 8.1 degrees around (180, 0); this line's vertices are 10
		// degrees from (180, 0), its middle is at (180, 0).
		`{"_id": 1, "loc": {"type": "LineString", "coordinates": [[170, 0], [-170, 0]]}}`,
		`{"_id": 2, "loc": {"type": "LineString", "coordinates": [[10, 0], [20, 0]]}}`,
		`{"_id": 3, "loc": {"type": "Polygon", "coordinates": [[[170, -1], [-170, -1], [-170, 1], [170, 1], [170, -1]]]}}`,
	})
	geoRevAgree(t, db, "c", []geoRevCase{{`{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 3]}}}`, []int32{2}}})
}

// $geoNear without key reads the collection's only 2dsphere INDEX; an
// index with two 2dsphere fields is one index, and mongod
// (extractGeoNearFieldFromIndexes) takes its first 2dsphere field.
func TestReviewGeoNearKeyOneIndexTwoFields(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "k", []string{
		`{"_id": 1, "a": ` + geoRevPoint(0, 1) + `, "b": ` + geoRevPoint(50, 50) + `}`,
		`{"_id": 2, "a": ` + geoRevPoint(0, 2) + `, "b": ` + geoRevPoint(0, 0) + `}`,
	})
	mustRun(t, db, "test", `{"createIndexes": "k", "indexes": [{"key": {"a": "2dsphere", "b": "2dsphere"}, "name": "ab"}]}`)
	r, err := run(t, db, "test", `{"aggregate": "k", "pipeline": [{"$geoNear": {"near": {"type": "Point", "coordinates": [0, 0]}, "distanceField": "d"}}], "cursor": {}}`)
	if err != nil {
		t.Fatalf("$geoNear over one index with two 2dsphere fields: %v (mongod uses the first, a)", err)
	}
	b := firstBatch(t, r)
	if len(b) != 2 || field(b[0], "_id") != int32(1) {
		t.Fatalf("$geoNear on a: %v, want _id 1 first", b)
	}
	// Two indexes, one hidden: the visible one is used.
	mustRun(t, db, "test", `{"createIndexes": "k", "indexes": [{"key": {"b": "2dsphere"}, "name": "b"}]}`)
	wantCode(t, db, "test", `{"aggregate": "k", "pipeline": [{"$geoNear": {"near": {"type": "Point", "coordinates": [0, 0]}, "distanceField": "d"}}], "cursor": {}}`, 27, "more than one 2dsphere index")
	mustRun(t, db, "test", `{"collMod": "k", "index": {"name": "ab", "hidden": true}}`)
	b = firstBatch(t, mustRun(t, db, "test", `{"aggregate": "k", "pipeline": [{"$geoNear": {"near": {"type": "Point", "coordinates": [0, 0]}, "distanceField": "d"}}], "cursor": {}}`))
	if len(b) != 2 || field(b[0], "_id") != int32(2) {
		t.Fatalf("$geoNear with ab hidden reads b: %v", b)
	}
}

// $near results across batches: getMore continues in distance order,
// skip/limit/sort apply as mongod applies them.
func TestReviewGeoNearBatches(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "b", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}]}`)
	var docs []string
	for i := 1; i <= 25; i++ {
		// _id i at i/10 degrees north, in shuffled insertion order.
		j := (i*7)%25 + 1
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "g": %d, "loc": %s}`, j, j%3, geoRevPoint(0, float64(j)/10)))
	}
	loadCorpus(t, db, "test", "b", docs)
	near := `{"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}}`
	ids := func(ds []bson.D) []int32 {
		var out []int32
		for _, d := range ds {
			out = append(out, field(d, "_id").(int32))
		}
		return out
	}
	all := ids(runFind(t, db, "test", ejson(t, `{"find": "b", "filter": `+near+`, "batchSize": 3}`)))
	var want []int32
	for i := int32(1); i <= 25; i++ {
		want = append(want, i)
	}
	if !slices.Equal(all, want) {
		t.Errorf("$near with batchSize 3 and getMores: %v", all)
	}
	got := ids(runFind(t, db, "test", ejson(t, `{"find": "b", "filter": `+near+`, "skip": 5, "limit": 7, "batchSize": 2}`)))
	if !slices.Equal(got, want[5:12]) {
		t.Errorf("$near skip 5 limit 7 batchSize 2: %v", got)
	}
	got = ids(runFind(t, db, "test", ejson(t, `{"find": "b", "filter": `+near+`, "sort": {"g": -1}, "limit": 4, "batchSize": 1}`)))
	if !slices.Equal(got, []int32{2, 5, 8, 11}) {
		t.Errorf("$near sort g desc limit 4: %v, want [2 5 8 11]", got)
	}
	got = ids(runFind(t, db, "test", ejson(t, `{"find": "b", "filter": {"g": 0, "loc": {"$nearSphere": [0, 1.04], "$maxDistance": 0.01}}, "batchSize": 1}`)))
	if !slices.Equal(got, []int32{9, 12, 6, 15}) {
		t.Errorf("$nearSphere with g 0 within 0.01 rad of (0, 1.04): %v, want [9 12 6 15]", got)
	}
	r := mustRun(t, db, "test", `{"find": "b", "filter": `+near+`, "limit": 3, "singleBatch": true}`)
	if got := ids(firstBatch(t, r)); !slices.Equal(got, []int32{1, 2, 3}) || field(r, "cursor.id") != int64(0) {
		t.Errorf("$near limit 3 singleBatch: %v", r)
	}
	n := mustRun(t, db, "test", `{"count": "b", "query": {"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.01]}}}}`)
	if field(n, "n") != int32(5) {
		t.Errorf("count $geoWithin: %v, want 5", n)
	}
}

// $geoNear's options: includeLocs picks the element of an array measured
// to, distanceMultiplier scales, query filters, and later stages see it.
func TestReviewGeoNearStageOptions(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}]}`)
	loadCorpus(t, db, "test", "s", []string{
		`{"_id": 1, "k": "a", "loc": [[10, 10], [0, 1]]}`,
		`{"_id": 2, "k": "b", "loc": [` + geoRevPoint(40, 40) + `, ` + geoRevPoint(0, 2) + `]}`,
		`{"_id": 3, "k": "a", "loc": {"type": "LineString", "coordinates": [[0, 3], [1, 3]]}}`,
	})
	r := mustRun(t, db, "test", `{"aggregate": "s", "pipeline": [{"$geoNear": {"near": [0, 0], "spherical": true, "distanceField": "x.d", "includeLocs": "x.at", "distanceMultiplier": 6378.1}}], "cursor": {}}`)
	b := firstBatch(t, r)
	if len(b) != 3 {
		t.Fatalf("$geoNear: %v", b)
	}
	if fmt.Sprint(field(b[0], "x.at")) != "[0 1]" || fmt.Sprint(field(b[1], "x.at")) != fmt.Sprint(ejson(t, geoRevPoint(0, 2))) {
		t.Errorf("includeLocs: %v / %v", field(b[0], "x.at"), field(b[1], "x.at"))
	}
	if d, _ := field(b[0], "x.d").(float64); math.Abs(d-111.3) > 0.2 {
		t.Errorf("distance x 6378.1 for 1 degree: %v, want ~111.3 km", d)
	}
	r = mustRun(t, db, "test", `{"aggregate": "s", "pipeline": [{"$geoNear": {"near": {"type": "Point", "coordinates": [0, 0]}, "distanceField": "d", "query": {"k": "a"}, "maxDistance": 300000}}, {"$project": {"d": {"$round": ["$d", -3]}}}], "cursor": {}}`)
	b = firstBatch(t, r)
	if len(b) != 1 || field(b[0], "_id") != int32(1) || field(b[0], "d") != 111000.0 {
		t.Errorf("$geoNear with query and maxDistance: %v", b)
	}
	// An empty or missing collection.
	b = firstBatch(t, mustRun(t, db, "test", `{"aggregate": "nothere", "pipeline": [{"$geoNear": {"near": [0, 0], "distanceField": "d"}}], "cursor": {}}`))
	if len(b) != 0 {
		t.Errorf("$geoNear on a missing collection: %v", b)
	}
	wantCode(t, db, "test", `{"aggregate": "s", "pipeline": [{"$geoNear": {"near": [0, 0], "distanceField": "d", "key": "nope"}}], "cursor": {}}`, 291, "unable to find index")
	wantCode(t, db, "test", `{"aggregate": "s", "pipeline": [{"$geoNear": {"near": [0, 0], "distanceField": "d"}}], "cursor": {}}`, 291, "unable to find index")
}

// Dropping a geo index: $near then has none (291); $geoWithin still
// answers from the collection; a new index is built from the documents.
func TestReviewGeoDropIndex(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "d", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}]}`)
	loadCorpus(t, db, "test", "d", []string{`{"_id": 1, "loc": [0, 0]}`, `{"_id": 2, "loc": [1, 1]}`, `{"_id": 3}`})
	mustRun(t, db, "test", `{"dropIndexes": "d", "index": "loc"}`)
	wantCode(t, db, "test", `{"find": "d", "filter": {"loc": {"$nearSphere": [0, 0]}}}`, 291, "unable to find index")
	geoRevAgree(t, db, "d", []geoRevCase{{`{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.1]}}}`, []int32{1, 2}}})
	loadCorpus(t, db, "test", "d", []string{`{"_id": 4, "loc": [400, 0]}`})
	wantCode(t, db, "test", `{"createIndexes": "d", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc2"}]}`, 16755, "out of bounds")
	mustRun(t, db, "test", `{"delete": "d", "deletes": [{"q": {"_id": 4}, "limit": 1}]}`)
	mustRun(t, db, "test", `{"createIndexes": "d", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc2"}]}`)
	got := firstIDs(t, db, `{"find": "d", "filter": {"loc": {"$nearSphere": [1, 1]}}}`)
	if !slices.Equal(got, []int32{2, 1}) {
		t.Errorf("$nearSphere after rebuilding: %v", got)
	}
	mustValidate(t, db, "test", "d")
}

// A clustered collection and a collection with a default collation take
// geo indexes like any other.
func TestReviewGeoClusteredAndCollation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "cl", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
	mustRun(t, db, "test", `{"createIndexes": "cl", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}]}`)
	loadCorpus(t, db, "test", "cl", []string{`{"_id": 1, "loc": [0, 0]}`, `{"_id": 2, "loc": [2, 2]}`, `{"_id": 3, "loc": [1, 1]}`})
	geoRevAgree(t, db, "cl", []geoRevCase{{`{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.03]}}}`, []int32{1, 3}}})
	if got := firstIDs(t, db, `{"find": "cl", "filter": {"loc": {"$nearSphere": [2, 2]}}}`); !slices.Equal(got, []int32{2, 3, 1}) {
		t.Errorf("clustered $nearSphere: %v", got)
	}
	mustRun(t, db, "test", `{"update": "cl", "updates": [{"q": {"_id": 2}, "u": {"$set": {"loc": [50, 50]}}}]}`)
	if got := firstIDs(t, db, `{"find": "cl", "filter": {"loc": {"$nearSphere": [2, 2], "$maxDistance": 0.1}}}`); !slices.Equal(got, []int32{3, 1}) {
		t.Errorf("clustered $nearSphere after a move: %v", got)
	}
	mustValidate(t, db, "test", "cl")

	mustRun(t, db, "test", `{"create": "co", "collation": {"locale": "en", "strength": 2}}`)
	mustRun(t, db, "test", `{"createIndexes": "co", "indexes": [{"key": {"name": 1, "loc": "2dsphere"}, "name": "nl"}]}`)
	loadCorpus(t, db, "test", "co", []string{
		`{"_id": 1, "name": "Cafe", "loc": [0, 0]}`,
		`{"_id": 2, "name": "cafe", "loc": [1, 1]}`,
		`{"_id": 3, "name": "bar", "loc": [0.5, 0.5]}`,
	})
	geoRevAgree(t, db, "co", []geoRevCase{{`{"name": "CAFE", "loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.1]}}}`, []int32{1, 2}}})
	if got := firstIDs(t, db, `{"find": "co", "filter": {"name": "CAFE", "loc": {"$nearSphere": [1, 1]}}}`); !slices.Equal(got, []int32{2, 1}) {
		t.Errorf("collated $nearSphere with name CAFE: %v", got)
	}
	b := firstBatch(t, mustRun(t, db, "test", `{"aggregate": "co", "pipeline": [{"$geoNear": {"near": [0, 0], "spherical": true, "distanceField": "d", "query": {"name": "CAFE"}}}], "cursor": {}}`))
	if len(b) != 2 {
		t.Errorf("collated $geoNear query: %v", b)
	}
	mustValidate(t, db, "test", "co")
}

// Hostile inputs: no panic, no hang, mongod's codes.
func TestReviewGeoHostileInputs(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "h", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}, {"key": {"p": "2d"}, "name": "p"}]}`)
	loadCorpus(t, db, "test", "h", []string{`{"_id": 1, "loc": [0, 0], "p": [0, 0]}`, `{"_id": 2, "loc": [90, 0], "p": [100, 0]}`})
	wantCode(t, db, "test", `{"find": "h", "filter": {"loc": {"$geoWithin": {"$centerSphere": [[0, 0], {"$numberDouble": "NaN"}]}}}}`, 2, "Radius must be a non-negative number")
	wantCode(t, db, "test", `{"find": "h", "filter": {"loc": {"$geoWithin": {"$center": [[0, 0], -1]}}}}`, 2, "Radius must be a non-negative number")
	wantCode(t, db, "test", `{"find": "h", "filter": {"loc": {"$geoWithin": {"$box": [[0, {"$numberDouble": "NaN"}], [1, 1]]}}}}`, 2, "")
	wantCode(t, db, "test", `{"find": "h", "filter": {"loc": {"$nearSphere": [{"$numberDouble": "NaN"}, 0]}}}`, 2, "")
	wantCode(t, db, "test", `{"find": "h", "filter": {"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$maxDistance": {"$numberDouble": "Infinity"}}}}}`, 2, "$maxDistance must be non-negative")
	wantCode(t, db, "test", `{"find": "h", "filter": {"loc": {"$near": {"$geometry": {"type": "Point", "coordinates": [0, 0]}, "$minDistance": {"$numberDouble": "NaN"}}}}}`, 2, "$minDistance must be non-negative")
	// Legacy form: an infinite $maxDistance is a number, non-negative.
	if got := firstIDs(t, db, `{"find": "h", "filter": {"p": {"$near": [0, 0], "$maxDistance": {"$numberDouble": "Infinity"}}}}`); !slices.Equal(got, []int32{1, 2}) {
		t.Errorf("legacy $near with $maxDistance Infinity: %v", got)
	}
	if got := firstIDs(t, db, `{"find": "h", "filter": {"loc": {"$nearSphere": [0, 0], "$maxDistance": {"$numberDouble": "Infinity"}}}}`); !slices.Equal(got, []int32{1, 2}) {
		t.Errorf("legacy $nearSphere with $maxDistance Infinity: %v", got)
	}
	wantCode(t, db, "test", `{"find": "h", "filter": {"p": {"$near": [0, 0], "$maxDistance": {"$numberDouble": "NaN"}}}}`, 16896, "")
	// Nested collections, and a deep array, are refused, not followed.
	wantWriteError(t, db, `{"insert": "h", "documents": [{"_id": 3, "loc": {"type": "GeometryCollection", "geometries": [{"type": "GeometryCollection", "geometries": [`+geoRevPoint(0, 0)+`]}]}}]}`, 16755, "GeometryCollections cannot be nested")
	deep := "[0, 0]"
	for i := 0; i < 90; i++ {
		deep = "[" + deep + "]"
	}
	wantWriteError(t, db, `{"insert": "h", "documents": [{"_id": 4, "loc": `+deep+`}]}`, 16755, "")
	wantCode(t, db, "test", `{"find": "h", "filter": {"loc": {"$geoIntersects": {"$geometry": {"type": "GeometryCollection", "geometries": [{"type": "GeometryCollection", "geometries": []}]}}}}}`, 2, "")
	// A big line to store, and a big polygon to query with, in time.
	var sb strings.Builder
	for i := 0; i < 20000; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "[%v, %v]", -100+float64(i)*0.01, math.Sin(float64(i)/50))
	}
	mustRun(t, db, "test", `{"insert": "h", "documents": [{"_id": 5, "loc": {"type": "LineString", "coordinates": [`+sb.String()+`]}}]}`)
	sb.Reset()
	n := 4000
	for i := 0; i <= n; i++ {
		a := 2 * math.Pi * float64(i%n) / float64(n)
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "[%v, %v]", 5*math.Cos(a), 5*math.Sin(a))
	}
	geoRevAgree(t, db, "h", []geoRevCase{{`{"loc": {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [[` + sb.String() + `]]}}}}`, []int32{1}}})
	geoRevAgree(t, db, "h", []geoRevCase{{`{"loc": {"$geoIntersects": {"$geometry": {"type": "LineString", "coordinates": [[-50, -5], [-50, 5]]}}}}`, []int32{5}}})
	mustValidate(t, db, "test", "h")
}

// Hints of geo indexes: a hinted 2dsphere index for a flat shape on its
// field answers as a scan does; a geo index hinted for a query without a
// geo predicate on its field is refused (2); a $near with a hint of an
// index that cannot answer it is 291 (no plan).
func TestReviewGeoHints(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "x", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc"}, {"key": {"a": 1}, "name": "a"}]}`)
	loadCorpus(t, db, "test", "x", []string{
		`{"_id": 1, "a": 1, "loc": [0, 0]}`,
		`{"_id": 2, "a": 1, "loc": ` + geoRevPoint(5, 5) + `}`,
		`{"_id": 3, "a": 2, "loc": {"type": "LineString", "coordinates": [[1, 1], [2, 2]]}}`,
		`{"_id": 4, "a": 2}`,
	})
	for _, f := range []string{
		`{"loc": {"$geoWithin": {"$box": [[-1, -1], [6, 6]]}}}`,
		`{"loc": {"$geoWithin": {"$center": [[0, 0], 8]}}}`,
		`{"loc": {"$geoWithin": {"$polygon": [[-1, -1], [6, -1], [6, 6]]}}}`,
		`{"a": 1, "loc": {"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": [5, 5]}}}}`,
	} {
		hinted := geoRevIDs(t, db, "x", f, `"loc"`)
		scan := geoRevIDs(t, db, "x", f, `{"$natural": 1}`)
		if !slices.Equal(hinted, scan) {
			t.Errorf("%s: hinted %v, scan %v", f, hinted, scan)
		}
	}
	wantCode(t, db, "test", `{"find": "x", "filter": {"a": 1}, "hint": "loc"}`, 2, "")
	wantCode(t, db, "test", `{"find": "x", "filter": {"loc": {"$nearSphere": [0, 0]}}, "hint": "a"}`, 291, "unable to find index")
	// An index on another field with the geo predicate under $elemMatch.
	mustRun(t, db, "test", `{"createIndexes": "y", "indexes": [{"key": {"locs.p": "2dsphere"}, "name": "lp"}]}`)
	loadCorpus(t, db, "test", "y", []string{
		`{"_id": 1, "locs": [{"p": [0, 0], "k": 1}, {"p": [9, 9], "k": 2}]}`,
		`{"_id": 2, "locs": [{"p": [0, 0], "k": 2}]}`,
	})
	geoRevAgree(t, db, "y", []geoRevCase{
		{`{"locs": {"$elemMatch": {"k": 2, "p": {"$geoWithin": {"$centerSphere": [[0, 0], 0.01]}}}}}`, []int32{2}},
		{`{"locs.k": 2, "locs.p": {"$geoWithin": {"$centerSphere": [[0, 0], 0.01]}}}`, []int32{1, 2}},
		{`{"locs.p": {"$not": {"$geoWithin": {"$centerSphere": [[0, 0], 0.01]}}}}`, []int32{}},
	})
}

// A partial 2dsphere index holds only the documents of its filter; a
// $near whose query does not imply that filter cannot read it (mongod:
// no plan, 291). (ttlkv read it anyway and silently dropped the
// documents outside the filter.)
func TestReviewGeoNearPartialIndex(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "p", "indexes": [{"key": {"loc": "2dsphere"}, "name": "loc", "partialFilterExpression": {"a": {"$gt": 5}}}]}`)
	loadCorpus(t, db, "test", "p", []string{
		`{"_id": 1, "a": 1, "loc": [0, 0]}`,
		`{"_id": 2, "a": 10, "loc": [1, 1]}`,
	})
	r, err := run(t, db, "test", `{"find": "p", "filter": {"loc": {"$nearSphere": [0, 0]}}}`)
	if err == nil {
		var got []int32
		for _, d := range firstBatch(t, r) {
			got = append(got, field(d, "_id").(int32))
		}
		t.Errorf("$nearSphere through a partial index its query does not imply: %v, want error 291 (or both documents)", got)
	}
	// A query that implies the filter reads it, as mongod does
	// (TestReviewTS30GeoPartialIndexes).
	r = mustRun(t, db, "test", `{"find": "p", "filter": {"a": {"$gt": 6}, "loc": {"$nearSphere": [0, 0]}}}`)
	if got := firstBatch(t, r); len(got) != 1 || field(got[0], "_id") != int32(2) {
		t.Errorf("$nearSphere with {a: {$gt: 6}}: %v, want document 2", got)
	}
	// $geoWithin must not lose documents through it either.
	geoRevAgree(t, db, "p", []geoRevCase{{`{"loc": {"$geoWithin": {"$centerSphere": [[0, 0], 0.1]}}}`, []int32{1, 2}}})
}

// A 2d index with a trailing field: $near with an equality on it.
func TestReviewGeo2DTrailingField(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "t", "indexes": [{"key": {"p": "2d", "k": 1}, "name": "pk"}]}`)
	loadCorpus(t, db, "test", "t", []string{
		`{"_id": 1, "k": "a", "p": [0, 0]}`,
		`{"_id": 2, "k": "b", "p": [1, 0]}`,
		`{"_id": 3, "k": "a", "p": [[3, 0], [0, 2]]}`,
		`{"_id": 4, "k": "a", "p": {"lng": -0.5, "lat": 0}}`,
		`{"_id": 5, "k": "a"}`,
	})
	if got := firstIDs(t, db, `{"find": "t", "filter": {"k": "a", "p": {"$near": [0, 0]}}}`); !slices.Equal(got, []int32{1, 4, 3}) {
		t.Errorf("$near with k a: %v, want [1 4 3]", got)
	}
	if got := firstIDs(t, db, `{"find": "t", "filter": {"p": {"$near": [0, 0], "$maxDistance": 1}}, "sort": {"k": -1}}`); !slices.Equal(got, []int32{2, 1, 4}) {
		t.Errorf("$near max 1 sorted by k desc: %v, want [2 1 4]", got)
	}
	geoRevAgree(t, db, "t", []geoRevCase{{`{"p": {"$geoWithin": {"$box": [[-1, -1], [1, 1]]}}}`, []int32{1, 2, 4}}})
	mustValidate(t, db, "test", "t")
}
