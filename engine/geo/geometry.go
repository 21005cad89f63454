// Package geo reads MongoDB's geometries (legacy coordinate pairs and
// GeoJSON) and answers the questions of its geospatial operators about
// them: is a geometry within a region, does it intersect one, how far is
// it from a point. On the sphere it uses S2 (github.com/golang/geo, the
// Go port of the library mongod uses); legacy coordinate pairs also live
// in a flat plane. docs/geo.md gives the rules.
package geo

import (
	"errors"
	"fmt"
	"github.com/ttlkv/ttlkv/document"
	"math"
	"strconv"
	"strings"

	"github.com/golang/geo/s2"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// EarthRadiusMeters is the radius mongod takes for the Earth when it
// turns angles on the sphere into meters.
const EarthRadiusMeters = 6378.1 * 1000

// Geometry is one geometry read from a document: a legacy coordinate
// pair, or GeoJSON made of points, polylines and polygons on the sphere.
type Geometry struct {
	// Legacy is set for a legacy coordinate pair ([x, y] or {x: .., y: ..}),
	// which lives in the flat plane; X and Y are its coordinates.
	Legacy bool
	X, Y   float64
	// OnSphere is set when the geometry has a place on the sphere: every
	// GeoJSON geometry, and a legacy pair that is a longitude and a
	// latitude in range.
	OnSphere bool
	Points   []s2.Point
	Lines    []*s2.Polyline
	Polygons []*s2.Polygon
	// Type is the GeoJSON type name, or "" for a legacy pair.
	Type string
	// edges indexes Polygons' edges for a query's geometry.
	edges edgeIndexes
}

// ErrNotGeometry is returned for a value that is neither a legacy
// coordinate pair nor a GeoJSON object.
var ErrNotGeometry = errors.New("not a geometry")

// Parse reads v as a stored geometry: an array, or a document whose
// first value is a number, is a legacy coordinate pair (values past the
// first two are ignored); another document is GeoJSON. It returns
// ErrNotGeometry (wrapped) for a value that is neither an array nor a
// document, and an error saying what is wrong for a malformed one.
func Parse(v any) (*Geometry, error) {
	if d, ok := v.(bson.D); ok && !(len(d) > 0 && isNumber(d[0].Value)) {
		return parseGeoJSON(d, false)
	}
	x, y, err := legacyPair(v, true)
	if err != nil {
		return nil, err
	}
	return legacyGeometry(x, y), nil
}

// legacyGeometry is the geometry of the legacy pair (x, y).
func legacyGeometry(x, y float64) *Geometry {
	g := &Geometry{Legacy: true, X: x, Y: y}
	if validLngLat(x, y) {
		g.OnSphere = true
		g.Points = []s2.Point{pointOf(x, y)}
	}
	return g
}

// legacyPair reads a legacy coordinate pair: an array or a document
// whose first two values are numbers. extra allows values past those
// two, as a stored pair may have and a query's may not.
func legacyPair(v any, extra bool) (x, y float64, err error) {
	var vals []any
	switch t := v.(type) {
	case bson.A:
		vals = t
	case bson.D:
		vals = make([]any, 0, 2)
		for _, e := range t {
			vals = append(vals, e.Value)
			if len(vals) == 3 {
				break
			}
		}
	default:
		return 0, 0, fmt.Errorf("%w: Point must be an array or object, instead got type %s", ErrNotGeometry, typeName(v))
	}
	var xy [2]float64
	for i := range 2 {
		var e any = missing{}
		if i < len(vals) {
			e = vals[i]
		}
		f, ok := number(e)
		if !ok {
			return 0, 0, geoErr("Point must only contain numeric elements, instead got type %s", typeName(e))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, 0, geoErr("Point coordinates must be finite numbers")
		}
		xy[i] = f
	}
	if !extra && len(vals) > 2 {
		return 0, 0, geoErr("Point must only contain two numeric elements")
	}
	return xy[0], xy[1], nil
}

// missing stands for an absent value in error messages.
type missing struct{}

// typeName is mongod's name of a value's type in its messages
// ("missing" for an absent one).
func typeName(v any) string {
	if _, ok := v.(missing); ok {
		return "missing"
	}
	return document.TypeName(v)
}

func isNumber(v any) bool {
	_, ok := number(v)
	return ok
}

// number reads a BSON number as a float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case bson.Decimal128:
		f, err := decimalFloat(n)
		return f, err == nil
	}
	return 0, false
}

func get(d bson.D, key string) (any, bool) {
	for _, e := range d {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

// validLngLat reports whether (lng, lat) is a longitude and a latitude.
func validLngLat(lng, lat float64) bool {
	return lng >= -180 && lng <= 180 && lat >= -90 && lat <= 90
}

// pointOf is the point on the sphere at longitude lng and latitude lat,
// in degrees.
func pointOf(lng, lat float64) s2.Point {
	return s2.PointFromLatLng(s2.LatLngFromDegrees(lat, lng))
}

// geoErr is a malformed geometry.
func geoErr(format string, args ...any) error { return fmt.Errorf(format, args...) }

// parseGeoJSON reads a GeoJSON object (other members than type,
// coordinates, geometries and crs are ignored). query allows the
// strict-winding coordinate reference system of a "big polygon", which
// only a query may use (parseQueryGeoJSON reads it).
func parseGeoJSON(d bson.D, query bool) (*Geometry, error) {
	typ, _ := get(d, "type")
	name, _ := typ.(string)
	if !isGeoJSONType(name) && name != "GeometryCollection" {
		return nil, geoErr("unknown GeoJSON type: %s", fmtValue(d))
	}
	if crs, ok := get(d, "crs"); ok {
		strict, err := parseCRS(crs)
		if err != nil {
			return nil, err
		}
		if strict {
			return nil, geoErr("Strict winding order CRS is only supported by polygon")
		}
	}
	if name == "GeometryCollection" {
		gv, _ := get(d, "geometries")
		arr, ok := gv.(bson.A)
		if !ok {
			return nil, geoErr("GeometryCollection geometries must be an array, instead got type %s", typeName(orMissing(d, "geometries")))
		}
		if len(arr) == 0 {
			return nil, geoErr("GeometryCollection geometries must have at least 1 element")
		}
		g := &Geometry{OnSphere: true, Type: name}
		for i, e := range arr {
			sd, ok := e.(bson.D)
			if !ok {
				return nil, geoErr("Element %d of \"geometries\" must be an object, instead got type %s: %s", i, typeName(e), fmtValue(e))
			}
			if t, _ := get(sd, "type"); t == "GeometryCollection" {
				return nil, geoErr("GeometryCollections cannot be nested: %s", fmtValue(sd))
			}
			sub, err := parseGeoJSON(sd, false)
			if err != nil {
				return nil, err
			}
			g.Points = append(g.Points, sub.Points...)
			g.Lines = append(g.Lines, sub.Lines...)
			g.Polygons = append(g.Polygons, sub.Polygons...)
		}
		return g, nil
	}
	cv := orMissing(d, "coordinates")
	g := &Geometry{OnSphere: true, Type: name}
	if name == "Point" {
		p, err := position(cv)
		if err != nil {
			return nil, err
		}
		g.Points = []s2.Point{p}
		// A Point also has a place in the flat plane of legacy pairs.
		g.X, g.Y, _ = legacyPair(cv, true)
		return g, nil
	}
	coords, ok := cv.(bson.A)
	if !ok {
		switch name {
		case "MultiPoint", "LineString":
			return nil, geoErr("GeoJSON coordinates must be an array of coordinates, instead got type %s", typeName(cv))
		}
		return nil, geoErr("%s coordinates must be an array, instead got type %s", name, typeName(cv))
	}
	switch name {
	case "MultiPoint":
		if len(coords) == 0 {
			return nil, geoErr("MultiPoint coordinates must have at least 1 element")
		}
		pts, err := coordinates(coords)
		if err != nil {
			return nil, err
		}
		g.Points = pts
	case "LineString":
		l, err := lineString(coords)
		if err != nil {
			return nil, err
		}
		g.Lines = []*s2.Polyline{l}
	case "MultiLineString":
		if len(coords) == 0 {
			return nil, geoErr("MultiLineString coordinates must have at least 1 element")
		}
		for _, c := range coords {
			arr, ok := c.(bson.A)
			if !ok {
				return nil, geoErr("GeoJSON coordinates must be an array of coordinates, instead got type %s", typeName(c))
			}
			l, err := lineString(arr)
			if err != nil {
				return nil, err
			}
			g.Lines = append(g.Lines, l)
		}
	case "Polygon":
		p, err := polygon(coords)
		if err != nil {
			return nil, err
		}
		g.Polygons = []*s2.Polygon{p}
	case "MultiPolygon":
		if len(coords) == 0 {
			return nil, geoErr("MultiPolygon coordinates must have at least 1 element")
		}
		for _, c := range coords {
			arr, ok := c.(bson.A)
			if !ok {
				return nil, geoErr("Polygon coordinates must be an array, instead got type %s", typeName(c))
			}
			p, err := polygon(arr)
			if err != nil {
				return nil, err
			}
			g.Polygons = append(g.Polygons, p)
		}
	}
	return g, nil
}

// orMissing is d's field key, or missing{} when d has none.
func orMissing(d bson.D, key string) any {
	if v, ok := get(d, key); ok {
		return v
	}
	return missing{}
}

func isGeoJSONType(name string) bool {
	switch name {
	case "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon":
		return true
	}
	return false
}

// strictCRS is the name of the coordinate reference system of a "big
// polygon": its interior is on the left of its ring, however large.
const strictCRS = "urn:x-mongodb:crs:strictwinding:EPSG:4326"

// parseCRS reads a GeoJSON crs member and reports whether it is the
// strict-winding one.
func parseCRS(v any) (strict bool, err error) {
	d, ok := v.(bson.D)
	if !ok {
		return false, geoErr("GeoJSON CRS must be an object, instead got type %s", typeName(v))
	}
	if t, _ := get(d, "type"); t != "name" {
		return false, geoErr("GeoJSON CRS must have field \"type\": \"name\"")
	}
	pv := orMissing(d, "properties")
	props, ok := pv.(bson.D)
	if !ok {
		return false, geoErr("CRS must have field \"properties\" which is an object, instead got type %s", typeName(pv))
	}
	nv := orMissing(props, "name")
	name, ok := nv.(string)
	if !ok {
		return false, geoErr("In CRS, \"properties.name\" must be a string, instead got type %s", typeName(nv))
	}
	switch name {
	case "urn:ogc:def:crs:OGC:1.3:CRS84", "EPSG:4326", "urn:ogc:def:crs:EPSG::4326":
		return false, nil
	case strictCRS:
		return true, nil
	}
	return false, geoErr("Unknown CRS name: %s", name)
}

// position reads a GeoJSON Point's coordinates: a longitude and a
// latitude, then values that are ignored (an altitude).
func position(v any) (s2.Point, error) {
	lng, lat, err := legacyPair(v, true)
	if err != nil {
		if errors.Is(err, ErrNotGeometry) {
			return s2.Point{}, geoErr("Point must be an array or object, instead got type %s", typeName(v))
		}
		return s2.Point{}, err
	}
	if !validLngLat(lng, lat) {
		return s2.Point{}, geoErr("Longitude/latitude is out of bounds, lng: %s lat: %s", fmtNum(lng), fmtNum(lat))
	}
	return pointOf(lng, lat), nil
}

// fmtNum renders a coordinate as mongod's messages do.
func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// coordinates reads a list of positions.
func coordinates(arr bson.A) ([]s2.Point, error) {
	out := make([]s2.Point, 0, len(arr))
	for _, c := range arr {
		if _, ok := c.(bson.A); !ok {
			return nil, geoErr("GeoJSON coordinates must be an array, instead got type %s", typeName(c))
		}
		p, err := position(c)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// lineString reads a GeoJSON LineString's coordinates.
func lineString(arr bson.A) (*s2.Polyline, error) {
	pts, err := coordinates(arr)
	if err != nil {
		return nil, err
	}
	pts = dedupe(pts)
	if len(pts) < 2 {
		return nil, geoErr("GeoJSON LineString must have at least 2 vertices, instead got %d vertices: %s", len(pts), fmtValue(arr))
	}
	l := s2.Polyline(pts)
	if err := l.Validate(); err != nil {
		return nil, geoErr("GeoJSON LineString is not valid: %s %s", err, fmtValue(arr))
	}
	return &l, nil
}

// dedupe drops vertices equal to the one before them.
func dedupe(pts []s2.Point) []s2.Point {
	out := pts[:0:0]
	for i, p := range pts {
		if i > 0 && p == pts[i-1] {
			continue
		}
		out = append(out, p)
	}
	return out
}

// polygon reads a GeoJSON Polygon's rings: the shell, then its holes.
// Each loop is taken as the smaller of the two regions its ring bounds,
// as mongod takes it.
func polygon(rings bson.A) (*s2.Polygon, error) {
	if len(rings) == 0 {
		return nil, geoErr("Polygon has no loops.")
	}
	loops := make([]*s2.Loop, 0, len(rings))
	for i, r := range rings {
		l, err := ring(r, false)
		if err != nil {
			return nil, err
		}
		if i > 0 && !loops[0].Contains(l) {
			return nil, geoErr("Secondary loops not contained by first exterior loop - secondary loops must be holes: %s first loop: %s", fmtValue(r), fmtValue(rings[0]))
		}
		loops = append(loops, l)
	}
	if err := loopsCross(loops); err != nil {
		return nil, geoErr("Polygon isn't valid: %s %s", err, fmtValue(rings))
	}
	p := s2.PolygonFromLoops(loops)
	if err := p.Validate(); err != nil {
		return nil, geoErr("Polygon isn't valid: %s %s", err, fmtValue(rings))
	}
	return p, nil
}

// ring reads one ring of a polygon: at least four positions, the last
// the first again, three of them distinct. strict keeps the ring's
// orientation (its interior on the left); otherwise the loop is the
// smaller region.
func ring(v any, strict bool) (*s2.Loop, error) {
	arr, ok := v.(bson.A)
	if !ok {
		return nil, geoErr("GeoJSON coordinates must be an array, instead got type %s", typeName(v))
	}
	pts, err := coordinates(arr)
	if err != nil {
		return nil, err
	}
	if len(pts) == 0 {
		return nil, geoErr("Loop has no vertices: %s", fmtValue(arr))
	}
	if pts[0] != pts[len(pts)-1] {
		return nil, geoErr("Loop is not closed, first vertex does not equal last vertex: %s", fmtValue(arr))
	}
	pts = dedupe(pts[:len(pts)-1])
	if len(pts) > 1 && pts[0] == pts[len(pts)-1] {
		pts = pts[:len(pts)-1]
	}
	if len(pts) < 3 {
		return nil, geoErr("Loop must have at least 3 different vertices, %d unique vertices were provided: %s", len(pts), fmtValue(arr))
	}
	l := s2.LoopFromPoints(pts)
	if err := l.Validate(); err != nil {
		return nil, geoErr("Loop is not valid: %s %s", fmtValue(arr), err)
	}
	if err := loopCrossing(l); err != nil {
		return nil, geoErr("Loop is not valid: %s %s", fmtValue(arr), err)
	}
	if !strict {
		l.Normalize()
	}
	return l, nil
}

// fmtValue renders a value for an error message as Extended JSON.
func fmtValue(v any) string {
	b, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, false, false)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	s = strings.TrimPrefix(s, `{"v":`)
	return strings.TrimSuffix(s, "}")
}

func decimalFloat(d bson.Decimal128) (float64, error) {
	return strconv.ParseFloat(d.String(), 64)
}

// StoredPair reads a stored legacy coordinate pair (values past the
// first two ignored), as a 2d index keys it.
func StoredPair(v any) (x, y float64, err error) {
	if d, ok := v.(bson.D); ok && !(len(d) > 0 && isNumber(d[0].Value)) {
		return 0, 0, geoErr("not a coordinate pair")
	}
	return legacyPair(v, true)
}

// loopCrossing finds two non-adjacent edges of l that meet, which make
// it invalid (S2's Validate leaves this check out).
func loopCrossing(l *s2.Loop) error {
	n := l.NumEdges()
	if n < 4 {
		return nil
	}
	idx := s2.NewShapeIndex()
	idx.Add(l)
	q := s2.NewCrossingEdgeQuery(idx)
	for i := 0; i < n; i++ {
		e := l.Edge(i)
		for _, j := range q.Crossings(e.V0, e.V1, l, s2.CrossingTypeAll) {
			if j <= i || j == i+1 || i == 0 && j == n-1 {
				continue
			}
			return fmt.Errorf("Edges %d and %d cross", i, j)
		}
	}
	return nil
}

// loopsCross finds edges of two loops of a polygon that cross.
func loopsCross(loops []*s2.Loop) error {
	if len(loops) < 2 {
		return nil
	}
	idx := s2.NewShapeIndex()
	ids := map[s2.Shape]int{}
	for i, l := range loops {
		idx.Add(l)
		ids[l] = i
	}
	q := s2.NewCrossingEdgeQuery(idx)
	for a, l := range loops {
		for i := 0; i < l.NumEdges(); i++ {
			e := l.Edge(i)
			for shape, edges := range q.CrossingsEdgeMap(e.V0, e.V1, s2.CrossingTypeInterior) {
				if b := ids[shape]; b != a && len(edges) > 0 {
					return fmt.Errorf("Loop %d edge %d crosses loop %d edge %d", a, i, b, edges[0])
				}
			}
		}
	}
	return nil
}
