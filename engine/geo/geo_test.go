package geo

import (
	"math"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func mustD(t *testing.T, js string) any {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(`{"v": `+js+`}`), false, &d); err != nil {
		t.Fatal(err)
	}
	return d[0].Value
}

// How stored values are read: arrays and documents whose first value is
// a number are legacy pairs (extra values ignored), other documents
// GeoJSON (extra members ignored).
func TestParseStored(t *testing.T) {
	for _, tc := range []struct {
		js      string
		legacy  bool
		sphere  bool
		wantErr string
	}{
		{`[1, 2]`, true, true, ""},
		{`[1, 2, 3]`, true, true, ""},
		{`{"x": 1, "y": 2, "type": "Point"}`, true, true, ""},
		{`[200, 0]`, true, false, ""},
		{`{"type": "Point", "coordinates": [1, 2, 3], "extra": true}`, false, true, ""},
		{`{"extra": "x", "type": "Point", "coordinates": [1, 2]}`, false, true, ""},
		// A number first makes a document a legacy pair.
		{`{"extra": 1, "type": "Point", "coordinates": [1, 2]}`, false, false, "Point must only contain numeric elements, instead got type string"},
		{`[1]`, false, false, "Point must only contain numeric elements, instead got type missing"},
		{`["a", 1]`, false, false, "Point must only contain numeric elements, instead got type string"},
		{`"x"`, false, false, "Point must be an array or object, instead got type string"},
		{`{"type": "Point", "coordinates": [181, 0]}`, false, false, "Longitude/latitude is out of bounds, lng: 181 lat: 0"},
		{`{"type": "LineString", "coordinates": [[1, 1], [1, 1]]}`, false, false, "GeoJSON LineString must have at least 2 vertices, instead got 1 vertices"},
		{`{"type": "Polygon", "coordinates": []}`, false, false, "Polygon has no loops."},
		{`{"type": "Polygon", "coordinates": [[]]}`, false, false, "Loop has no vertices"},
		{`{"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[1, 1], [9, 1], [9, 2], [1, 2], [1, 1]]]}`, false, false, "Secondary loops not contained by first exterior loop"},
		{`{"type": "GeometryCollection", "geometries": []}`, false, false, "GeometryCollection geometries must have at least 1 element"},
		{`{"type": "GeometryCollection", "geometries": [{"type": "GeometryCollection", "geometries": []}]}`, false, false, "GeometryCollections cannot be nested"},
		{`{"type": "Point", "coordinates": [0, 0], "crs": {"type": "name", "properties": {"name": "EPSG:9999"}}}`, false, false, "Unknown CRS name: EPSG:9999"},
	} {
		g, err := Parse(mustD(t, tc.js))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err %v, want %q", tc.js, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.js, err)
			continue
		}
		if g.Legacy != tc.legacy || g.OnSphere != tc.sphere {
			t.Errorf("%s: legacy %v sphere %v, want %v %v", tc.js, g.Legacy, g.OnSphere, tc.legacy, tc.sphere)
		}
	}
}

// Flat shapes include their boundaries; a polygon's last vertex joins
// its first.
func TestFlatShapes(t *testing.T) {
	for _, tc := range []struct {
		shape string
		pt    string
		in    bool
	}{
		{`{"$box": [[0, 0], [10, 10]]}`, `[10, 10]`, true},
		{`{"$box": [[0, 0], [10, 10]]}`, `[5, 10]`, true},
		{`{"$box": [[0, 0], [10, 10]]}`, `[10.0001, 5]`, false},
		{`{"$box": [[0, 0], [10, 10]]}`, `{"type": "Point", "coordinates": [5, 5]}`, true},
		{`{"$box": [[0, 0], [10, 10]]}`, `{"type": "LineString", "coordinates": [[1, 1], [2, 2]]}`, false},
		{`{"$center": [[0, 0], 5]}`, `[3, 4]`, true},
		{`{"$center": [[0, 0], 5]}`, `[0, 5]`, true},
		{`{"$center": [[0, 0], 5]}`, `[4, 4]`, false},
		{`{"$polygon": [[0, 0], [10, 0], [10, 10]]}`, `[5, 0]`, true},
		{`{"$polygon": [[0, 0], [10, 0], [10, 10]]}`, `[10, 10]`, true},
		{`{"$polygon": [[0, 0], [10, 0], [10, 10]]}`, `[5, 5]`, true},
		{`{"$polygon": [[0, 0], [10, 0], [10, 10]]}`, `[2, 5]`, false},
		// mongod's pacman (geo_polygon1.js): in the head, in the mouth, above, below.
		{`{"$polygon": [[0, 2], [0, 4], [2, 6], [4, 6], [6, 4], [4, 3], [6, 2], [4, 0], [2, 0]]}`, `[1, 3]`, true},
		{`{"$polygon": [[0, 2], [0, 4], [2, 6], [4, 6], [6, 4], [4, 3], [6, 2], [4, 0], [2, 0]]}`, `[5, 3]`, false},
		{`{"$polygon": [[0, 2], [0, 4], [2, 6], [4, 6], [6, 4], [4, 3], [6, 2], [4, 0], [2, 0]]}`, `[3, 7]`, false},
		{`{"$polygon": [[0, 2], [0, 4], [2, 6], [4, 6], [6, 4], [4, 3], [6, 2], [4, 0], [2, 0]]}`, `[3, -1]`, false},
	} {
		r, err := ParseWithin(mustD(t, tc.shape))
		if err != nil {
			t.Fatalf("%s: %v", tc.shape, err)
		}
		g, err := Parse(mustD(t, tc.pt))
		if err != nil {
			t.Fatalf("%s: %v", tc.pt, err)
		}
		if got := r.Contains(g); got != tc.in {
			t.Errorf("%s in %s: %v, want %v", tc.pt, tc.shape, got, tc.in)
		}
	}
}

// Regions of the sphere: a polygon's edges count as inside, a big
// polygon (strict winding) holds what lies left of its ring, and
// distances are angles along the sphere.
func TestSphere(t *testing.T) {
	square := `{"$geometry": {"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]}}`
	r, err := ParseWithin(mustD(t, square))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pt string
		in bool
	}{{`[5, 5]`, true}, {`[10, 5]`, true}, {`[0, 0]`, true}, {`[200, 5]`, false}, {`[-1, 5]`, false}} {
		g, err := Parse(mustD(t, tc.pt))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Contains(g); got != tc.in {
			t.Errorf("%s in the square: %v, want %v", tc.pt, got, tc.in)
		}
	}
	// Wound clockwise under the strict-winding CRS, the same ring holds
	// the rest of the Earth.
	big := `{"$geometry": {"type": "Polygon", "coordinates": [[[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]]], "crs": {"type": "name", "properties": {"name": "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}}`
	rb, err := ParseWithin(mustD(t, big))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pt string
		in bool
	}{{`[5, 5]`, false}, {`[100, -40]`, true}, {`[-170, 80]`, true}} {
		g, _ := Parse(mustD(t, tc.pt))
		if got := rb.Contains(g); got != tc.in {
			t.Errorf("%s in the big polygon: %v, want %v", tc.pt, got, tc.in)
		}
	}
	if _, err := ParseWithin(mustD(t, `{"$geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}`)); err == nil || !strings.Contains(err.Error(), "$within not supported with provided geometry") {
		t.Errorf("$geoWithin a line: %v", err)
	}
	g, _ := Parse(mustD(t, `{"type": "Point", "coordinates": [90, 0]}`))
	if d := float64(g.SphereDistance(Point(0, 0))); math.Abs(d-math.Pi/2) > 1e-12 {
		t.Errorf("distance from (0, 0) to (90, 0): %v, want pi/2", d)
	}
	poly, _ := Parse(mustD(t, `{"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]}`))
	if d := poly.SphereDistance(Point(5, 5)); d != 0 {
		t.Errorf("distance to a polygon from inside it: %v", d)
	}
	if d := poly.SphereDistance(Point(-1, 5)).Degrees(); d < 0.99 || d > 1.01 {
		t.Errorf("distance to a polygon from a degree west: %v degrees", d)
	}
}

// The query shapes' errors, with mongod's messages.
func TestWithinErrors(t *testing.T) {
	for _, tc := range []struct{ shape, frag string }{
		{`{"$box": [[0, 0], [1, 1]], "$center": [[0, 0], 1]}`, "$geoWithin doesn't accept multiple shapes"},
		{`{"$circle": 1}`, "unknown geo specifier"},
		{`{}`, "geo query doesn't have any geometry"},
		{`{"$center": [[0, 0], 1, 2]}`, "Only 2 fields allowed for circular region"},
		{`{"$center": [[0, 0], -1]}`, "Radius must be a non-negative number"},
		{`{"$centerSphere": [[190, 0], 1]}`, "Longitude/latitude is out of bounds"},
		{`{"$polygon": [[0, 0], [1, 1]]}`, "Polygon must have at least 3 points, instead got 2 vertices"},
		{`{"$box": [[0, 0, 0], [1, 1]]}`, "Point must only contain two numeric elements"},
		{`{"$geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]], [[0, 0], [1, 0], [1, 1], [0, 0]]], "crs": {"type": "name", "properties": {"name": "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}}`, "Only one simple loop is allowed in a big polygon, instead provided 2"},
	} {
		if _, err := ParseWithin(mustD(t, tc.shape)); err == nil || !strings.Contains(err.Error(), tc.frag) {
			t.Errorf("%s: %v, want %q", tc.shape, err, tc.frag)
		}
	}
}

// Two geometries intersect when they share a point.
func TestIntersects(t *testing.T) {
	for _, tc := range []struct {
		q, g string
		want bool
	}{
		{`{"type": "Point", "coordinates": [1, 1]}`, `[1, 1]`, true},
		{`{"type": "Point", "coordinates": [1, 1]}`, `[1, 1.0001]`, false},
		{`{"type": "LineString", "coordinates": [[0, 0], [2, 2]]}`, `{"type": "LineString", "coordinates": [[0, 2], [2, 0]]}`, true},
		{`{"type": "LineString", "coordinates": [[0, 0], [1, 0]]}`, `{"type": "LineString", "coordinates": [[0, 1], [1, 1]]}`, false},
		{`{"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]]]}`, `{"type": "LineString", "coordinates": [[1, 1], [2, 2]]}`, true},
		{`{"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]]]}`, `{"type": "Polygon", "coordinates": [[[3, 3], [9, 3], [9, 9], [3, 9], [3, 3]]]}`, true},
		{`{"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]]]}`, `{"type": "MultiPoint", "coordinates": [[9, 9], [2, 2]]}`, true},
		{`{"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[1, 1], [3, 1], [3, 3], [1, 3], [1, 1]]]}`, `[2, 2]`, false},
	} {
		q, err := ParseGeometry(mustD(t, tc.q))
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		g, err := Parse(mustD(t, tc.g))
		if err != nil {
			t.Fatalf("%s: %v", tc.g, err)
		}
		if got := Intersects(q, g); got != tc.want {
			t.Errorf("%s meets %s: %v, want %v", tc.q, tc.g, got, tc.want)
		}
	}
}
