package geo

import (
	"errors"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Region is the operand of $geoWithin: a flat shape of legacy
// coordinates ($box, $center, $polygon) or a region of the sphere
// ($centerSphere, or a GeoJSON Polygon or MultiPolygon in $geometry).
type Region struct {
	flat flatKind
	// $box: the corners; $center: the center and radius; $polygon: the
	// vertices.
	minX, minY, maxX, maxY float64
	cx, cy, r              float64
	poly                   [][2]float64

	// On the sphere: a cap ($centerSphere, around capLng, capLat) or
	// polygons ($geometry).
	capLng, capLat float64
	cap            *s2.Cap
	polys          []*s2.Polygon
	edges          edgeIndexes // of polys, built once for the documents a query reads
}

// edgeIndexes are indexes of polygons' edges, built on first use: a
// query's polygon is asked about every document it reads.
type edgeIndexes struct {
	once sync.Once
	idx  []*s2.ShapeIndex
}

// of returns the index of polys[i].
func (e *edgeIndexes) of(polys []*s2.Polygon, i int) *s2.ShapeIndex {
	e.once.Do(func() {
		e.idx = make([]*s2.ShapeIndex, len(polys))
		for j, p := range polys {
			e.idx[j] = s2.NewShapeIndex()
			e.idx[j].Add(p)
		}
	})
	return e.idx[i]
}

type flatKind int

const (
	notFlat flatKind = iota
	flatBox
	flatCenter
	flatPolygon
)

// Flat reports whether the region is a flat shape, which only legacy
// coordinate pairs can be within.
func (r *Region) Flat() bool { return r.flat != notFlat }

// SphereBox returns a longitude and latitude box that holds a
// $centerSphere's cap, and false for other regions.
func (r *Region) SphereBox() (x0, y0, x1, y1 float64, ok bool) {
	if r.cap == nil {
		return 0, 0, 0, 0, false
	}
	x0, y0, x1, y1 = CapBox(r.capLng, r.capLat, float64(r.cap.Radius())*(1+1e-9)+1e-12)
	return x0, y0, x1, y1, true
}

// CapBox returns a longitude and latitude box (degrees) that holds
// every point within r radians of (lng, lat): latitudes r either side,
// and the longitudes the cap spans at its widest latitude, or all of
// them when it reaches a pole or crosses the antimeridian.
func CapBox(lng, lat, r float64) (x0, y0, x1, y1 float64) {
	d := r * 180 / math.Pi
	y0, y1 = lat-d, lat+d
	if y0 <= -90 || y1 >= 90 || r >= math.Pi/2 {
		return -180, max(y0, -90), 180, min(y1, 90)
	}
	widest := max(math.Abs(y0), math.Abs(y1)) * math.Pi / 180
	// The cap's half-width in longitude at latitude phi is at most
	// asin(sin r / cos phi), and phi's cosine is least at the widest.
	s := math.Sin(r) / math.Cos(widest)
	if s >= 1 {
		return -180, y0, 180, y1
	}
	dl := math.Asin(s) * 180 / math.Pi
	x0, x1 = lng-dl, lng+dl
	if x0 < -180 || x1 > 180 {
		return -180, y0, 180, y1
	}
	return x0, y0, x1, y1
}

// FlatBox returns the bounding box of a flat shape, and false for a
// region of the sphere.
func (r *Region) FlatBox() (x0, y0, x1, y1 float64, ok bool) {
	switch r.flat {
	case flatBox:
		return r.minX, r.minY, r.maxX, r.maxY, true
	case flatCenter:
		return r.cx - r.r, r.cy - r.r, r.cx + r.r, r.cy + r.r, true
	case flatPolygon:
		x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, p := range r.poly {
			x0, y0, x1, y1 = min(x0, p[0]), min(y0, p[1]), max(x1, p[0]), max(y1, p[1])
		}
		return x0, y0, x1, y1, true
	}
	return 0, 0, 0, 0, false
}

// ParseWithin reads $geoWithin's operand: one shape.
func ParseWithin(v any) (*Region, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, geoErr("geometry must be an object")
	}
	var shape *bson.E
	for i := range d {
		switch d[i].Key {
		case "$uniqueDocs":
			continue
		case "$box", "$center", "$centerSphere", "$polygon", "$geometry":
			if shape != nil {
				return nil, geoErr("$geoWithin doesn't accept multiple shapes: %s", fmtValue(v))
			}
			shape = &d[i]
		default:
			return nil, geoErr("unknown geo specifier: %s", fmtElem(d[i]))
		}
	}
	if shape == nil {
		return nil, geoErr("geo query doesn't have any geometry")
	}
	switch shape.Key {
	case "$box":
		pts, err := flatPoints(shape.Value)
		if err != nil {
			return nil, err
		}
		if len(pts) < 2 {
			return nil, geoErr("Point must only contain numeric elements, instead got type missing")
		}
		return &Region{flat: flatBox,
			minX: math.Min(pts[0][0], pts[1][0]), maxX: math.Max(pts[0][0], pts[1][0]),
			minY: math.Min(pts[0][1], pts[1][1]), maxY: math.Max(pts[0][1], pts[1][1])}, nil
	case "$center", "$centerSphere":
		arr, ok := shape.Value.(bson.A)
		if !ok {
			return nil, geoErr("Point must be an array or object, instead got type %s", typeName(shape.Value))
		}
		if len(arr) > 2 {
			return nil, geoErr("Only 2 fields allowed for circular region, but more were provided")
		}
		var center, radius any = missing{}, missing{}
		if len(arr) > 0 {
			center = arr[0]
		}
		if len(arr) > 1 {
			radius = arr[1]
		}
		x, y, err := legacyPair(center, false)
		if err != nil {
			return nil, unwrapNotGeometry(err)
		}
		rad, ok := number(radius)
		if !ok || rad < 0 || math.IsNaN(rad) {
			return nil, geoErr("Radius must be a non-negative number: %s", fmtValue(radius))
		}
		if shape.Key == "$center" {
			return &Region{flat: flatCenter, cx: x, cy: y, r: rad}, nil
		}
		if !validLngLat(x, y) {
			return nil, geoErr("Longitude/latitude is out of bounds, lng: %s lat: %s", fmtNum(x), fmtNum(y))
		}
		c := s2.CapFromCenterAngle(pointOf(x, y), s1.Angle(math.Min(rad, math.Pi)))
		return &Region{cap: &c, capLng: x, capLat: y}, nil
	case "$polygon":
		pts, err := flatPoints(shape.Value)
		if err != nil {
			return nil, err
		}
		if len(pts) < 3 {
			return nil, geoErr("Polygon must have at least 3 points, instead got %d vertices", len(pts))
		}
		return &Region{flat: flatPolygon, poly: pts}, nil
	}
	// $geometry
	g, err := ParseGeometry(shape.Value)
	if err != nil {
		return nil, err
	}
	if len(g.Polygons) == 0 || g.Type != "Polygon" && g.Type != "MultiPolygon" && g.Type != "GeometryCollection" {
		return nil, geoErr("$within not supported with provided geometry: %s", fmtElem(*shape))
	}
	return &Region{polys: g.Polygons}, nil
}

// unwrapNotGeometry turns ErrNotGeometry's wrapping into the plain
// message a query's point gets.
func unwrapNotGeometry(err error) error {
	if errors.Is(err, ErrNotGeometry) {
		return geoErr("%s", strings.TrimPrefix(err.Error(), ErrNotGeometry.Error()+": "))
	}
	return err
}

// fmtElem renders a field as mongod's messages do ({name: value}).
func fmtElem(e bson.E) string { return fmtValue(bson.D{e}) }

// flatPoints reads the points of $box or $polygon: an array (or a
// document) of legacy pairs, two numbers each.
func flatPoints(v any) ([][2]float64, error) {
	var vals []any
	switch t := v.(type) {
	case bson.A:
		vals = t
	case bson.D:
		for _, e := range t {
			vals = append(vals, e.Value)
		}
	default:
		return nil, geoErr("Point must be an array or object, instead got type %s", typeName(v))
	}
	out := make([][2]float64, 0, len(vals))
	for _, e := range vals {
		x, y, err := legacyPair(e, false)
		if err != nil {
			return nil, unwrapNotGeometry(err)
		}
		out = append(out, [2]float64{x, y})
	}
	return out, nil
}

// ParseGeometry reads the $geometry of $geoIntersects (or of $geoWithin):
// any GeoJSON object, and a Polygon in the strict-winding coordinate
// reference system (a "big polygon", larger than a hemisphere if its
// ring says so).
func ParseGeometry(v any) (*Geometry, error) {
	switch t := v.(type) {
	case bson.D:
		return parseQueryGeoJSON(t)
	case bson.A:
		x, y, err := legacyPair(t, false)
		if err != nil {
			return nil, err
		}
		return queryPoint(x, y)
	}
	return nil, geoErr("Point must be an array or object, instead got type %s", typeName(v))
}

// queryPoint is a query's legacy point read on the sphere.
func queryPoint(x, y float64) (*Geometry, error) {
	if !validLngLat(x, y) {
		return nil, geoErr("Longitude/latitude is out of bounds, lng: %s lat: %s", fmtNum(x), fmtNum(y))
	}
	return &Geometry{Legacy: true, X: x, Y: y, OnSphere: true, Points: []s2.Point{pointOf(x, y)}}, nil
}

func parseQueryGeoJSON(d bson.D) (*Geometry, error) {
	if len(d) > 0 && isNumber(d[0].Value) {
		// A legacy pair as the query's geometry: a point on the sphere.
		x, y, err := legacyPair(d, false)
		if err != nil {
			return nil, err
		}
		return queryPoint(x, y)
	}
	if crs, ok := get(d, "crs"); ok {
		strict, err := parseCRS(crs)
		if err != nil {
			return nil, err
		}
		if strict {
			if t, _ := get(d, "type"); t != "Polygon" {
				return nil, geoErr("Strict winding order CRS is only supported by polygon")
			}
			cv := orMissing(d, "coordinates")
			rings, ok := cv.(bson.A)
			if !ok {
				return nil, geoErr("Coordinates of polygon must be an array, instead got type %s", typeName(cv))
			}
			if len(rings) != 1 {
				return nil, geoErr("Only one simple loop is allowed in a big polygon, instead provided %d loops: %s", len(rings), fmtValue(cv))
			}
			l, err := ring(rings[0], true)
			if err != nil {
				return nil, err
			}
			return &Geometry{OnSphere: true, Type: "Polygon", Polygons: []*s2.Polygon{s2.PolygonFromOrientedLoops([]*s2.Loop{l})}}, nil
		}
		stripped := make(bson.D, 0, len(d)-1)
		for _, e := range d {
			if e.Key != "crs" {
				stripped = append(stripped, e)
			}
		}
		d = stripped
	}
	return parseGeoJSON(d, true)
}

// Contains reports whether g lies within r: a legacy pair in a flat
// shape; on the sphere, every part of g.
func (r *Region) Contains(g *Geometry) bool {
	if r.flat != notFlat {
		// A legacy pair, or a GeoJSON Point read as one.
		return (g.Legacy || g.Type == "Point") && r.flatContains(g.X, g.Y)
	}
	if !g.OnSphere {
		return false
	}
	if r.cap != nil && r.cap.Radius() > math.Pi/2 {
		return r.bigCapContains(g)
	}
	if r.cap != nil {
		for _, p := range g.Points {
			if !r.cap.ContainsPoint(p) && !r.cap.IntersectsCell(leaf(p)) {
				return false
			}
		}
		for _, l := range g.Lines {
			for _, p := range *l {
				if !r.cap.ContainsPoint(p) {
					return false
				}
			}
		}
		for _, pg := range g.Polygons {
			for _, l := range pg.Loops() {
				for _, p := range l.Vertices() {
					if !r.cap.ContainsPoint(p) {
						return false
					}
				}
			}
		}
		return true
	}
	for _, p := range g.Points {
		if !anyPolygon(r.polys, func(pg *s2.Polygon) bool { return polygonHasPoint(pg, p) }) {
			return false
		}
	}
	for _, l := range g.Lines {
		in := false
		for i, pg := range r.polys {
			if polygonContainsLine(pg, r.edges.of(r.polys, i), l) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	for _, o := range g.Polygons {
		if !anyPolygon(r.polys, func(pg *s2.Polygon) bool { return pg.Contains(o) }) {
			return false
		}
	}
	return true
}

// bigCapContains is Contains for a cap wider than a hemisphere, which
// is not convex: a line or polygon is in it when no point of it lies
// inside the cap's complement (the small cap around the antipode).
func (r *Region) bigCapContains(g *Geometry) bool {
	anti := s2.Point{Vector: r.cap.Center().Mul(-1)}
	away := s1.Angle(math.Pi) - r.cap.Radius()
	if away <= 0 {
		return true // the whole sphere
	}
	for _, p := range g.Points {
		if !r.cap.ContainsPoint(p) && !r.cap.IntersectsCell(leaf(p)) {
			return false
		}
	}
	for _, l := range g.Lines {
		if lineDistance(l, anti) < away {
			return false
		}
	}
	for _, pg := range g.Polygons {
		if pg.ContainsPoint(anti) {
			return false
		}
		for e := 0; e < pg.NumEdges(); e++ {
			ed := pg.Edge(e)
			if s2.DistanceFromSegment(anti, ed.V0, ed.V1) < away {
				return false
			}
		}
	}
	return true
}

func anyPolygon(ps []*s2.Polygon, f func(*s2.Polygon) bool) bool {
	for _, p := range ps {
		if f(p) {
			return true
		}
	}
	return false
}

// leaf is the smallest S2 cell holding p.
func leaf(p s2.Point) s2.Cell { return s2.CellFromPoint(p) }

// polygonHasPoint reports whether p is in pg, its boundary included (a
// point whose leaf cell meets the polygon).
func polygonHasPoint(pg *s2.Polygon, p s2.Point) bool {
	return pg.ContainsPoint(p) || pg.IntersectsCell(leaf(p))
}

// polygonContainsLine reports whether every point of l is in p, its
// boundary included: l's vertices are, and so is the middle of every
// piece l's edges are cut into where they meet p's boundary (an edge
// from one vertex of a hole to another crosses no edge, yet leaves the
// polygon).
func polygonContainsLine(p *s2.Polygon, idx *s2.ShapeIndex, l *s2.Polyline) bool {
	for _, v := range *l {
		if !polygonHasPoint(p, v) {
			return false
		}
	}
	if idx == nil {
		idx = s2.NewShapeIndex()
		idx.Add(p)
	}
	q := s2.NewClosestEdgeQuery(idx, s2.NewClosestEdgeQueryOptions().IncludeInteriors(false).DistanceLimit(s1.ChordAngleFromAngle(onLine)))
	pts := *l
	for i := 0; i+1 < len(pts); i++ {
		a, b := pts[i], pts[i+1]
		cuts := []s2.Point{a, b}
		for _, r := range q.FindEdges(s2.NewMinDistanceToEdgeTarget(s2.Edge{V0: a, V1: b})) {
			if r.EdgeID() < 0 {
				continue
			}
			e := p.Edge(int(r.EdgeID()))
			if s2.CrossingSign(a, b, e.V0, e.V1) == s2.Cross {
				cuts = append(cuts, s2.Intersection(a, b, e.V0, e.V1))
			}
			for _, v := range []s2.Point{e.V0, e.V1} {
				if s2.DistanceFromSegment(v, a, b) <= onLine {
					cuts = append(cuts, v)
				}
			}
		}
		if len(cuts) == 2 {
			continue // the edge meets no boundary: its ends are inside
		}
		slices.SortFunc(cuts, func(x, y s2.Point) int {
			dx, dy := a.Distance(x), a.Distance(y)
			switch {
			case dx < dy:
				return -1
			case dx > dy:
				return 1
			}
			return 0
		})
		for j := 0; j+1 < len(cuts); j++ {
			if cuts[j].Distance(cuts[j+1]) <= onLine {
				continue
			}
			if !polygonHasPoint(p, s2.Interpolate(0.5, cuts[j], cuts[j+1])) {
				return false
			}
		}
	}
	return true
}

// lineCrossesPolygon reports whether an edge of l crosses an edge of p,
// finding the candidates through idx, an index of p's edges (nil: one
// is built).
func lineCrossesPolygon(p *s2.Polygon, idx *s2.ShapeIndex, l *s2.Polyline) bool {
	if idx == nil {
		idx = s2.NewShapeIndex()
		idx.Add(p)
	}
	q := s2.NewCrossingEdgeQuery(idx)
	pts := *l
	for i := 0; i+1 < len(pts); i++ {
		if len(q.Crossings(pts[i], pts[i+1], p, s2.CrossingTypeInterior)) > 0 {
			return true
		}
	}
	return false
}

// flatContains reports whether (x, y) is in a flat shape, its boundary
// included.
func (r *Region) flatContains(x, y float64) bool {
	switch r.flat {
	case flatBox:
		return x >= r.minX && x <= r.maxX && y >= r.minY && y <= r.maxY
	case flatCenter:
		return math.Hypot(x-r.cx, y-r.cy) <= r.r
	case flatPolygon:
		return flatPolygonContains(r.poly, x, y)
	}
	return false
}

// flatPolygonContains is the even-odd test of (x, y) against the
// polygon's edges, a point on an edge counting as inside.
func flatPolygonContains(poly [][2]float64, x, y float64) bool {
	in := false
	n := len(poly)
	for i := 0; i < n; i++ {
		a, b := poly[i], poly[(i+1)%n]
		// On the edge?
		cross := (b[0]-a[0])*(y-a[1]) - (b[1]-a[1])*(x-a[0])
		if cross == 0 && x >= math.Min(a[0], b[0]) && x <= math.Max(a[0], b[0]) && y >= math.Min(a[1], b[1]) && y <= math.Max(a[1], b[1]) {
			return true
		}
		if (a[1] > y) != (b[1] > y) {
			xi := a[0] + (y-a[1])*(b[0]-a[0])/(b[1]-a[1])
			if x < xi {
				in = !in
			}
		}
	}
	return in
}

// Intersects reports whether stored geometry g and query geometry q
// share a point (on the sphere).
func Intersects(q, g *Geometry) bool {
	if !g.OnSphere || !q.OnSphere {
		return false
	}
	for _, a := range q.Points {
		if pointTouches(a, g) {
			return true
		}
	}
	for _, a := range g.Points {
		if pointTouches(a, q) {
			return true
		}
	}
	for _, l := range q.Lines {
		for _, m := range g.Lines {
			if l.Intersects(m) {
				return true
			}
		}
		for _, pg := range g.Polygons {
			if lineMeetsPolygon(l, pg, nil) {
				return true
			}
		}
	}
	for i, pg := range q.Polygons {
		for _, m := range g.Lines {
			if lineMeetsPolygon(m, pg, q.edges.of(q.Polygons, i)) {
				return true
			}
		}
		for _, o := range g.Polygons {
			if pg.Intersects(o) {
				return true
			}
		}
	}
	return false
}

// onLine is how close to a polyline a point may be to lie on it.
const onLine = s1.Angle(1e-12)

// pointTouches reports whether point p is one of g's points, on one of
// its lines or in one of its polygons.
func pointTouches(p s2.Point, g *Geometry) bool {
	for _, o := range g.Points {
		if o == p {
			return true
		}
	}
	for _, l := range g.Lines {
		if lineDistance(l, p) <= onLine {
			return true
		}
	}
	for _, pg := range g.Polygons {
		if polygonHasPoint(pg, p) {
			return true
		}
	}
	return false
}

func lineMeetsPolygon(l *s2.Polyline, p *s2.Polygon, idx *s2.ShapeIndex) bool {
	for _, v := range *l {
		if p.ContainsPoint(v) {
			return true
		}
	}
	return lineCrossesPolygon(p, idx, l)
}

// lineDistance is the angle from p to the nearest point of l.
func lineDistance(l *s2.Polyline, p s2.Point) s1.Angle {
	pts := *l
	best := s1.InfAngle()
	for i := 0; i+1 < len(pts); i++ {
		if d := s2.DistanceFromSegment(p, pts[i], pts[i+1]); d < best {
			best = d
		}
	}
	return best
}

// SphereDistance is the angle from p to the nearest point of g, zero
// when p is in one of its polygons; +Inf for a geometry not on the
// sphere.
func (g *Geometry) SphereDistance(p s2.Point) s1.Angle {
	best := s1.InfAngle()
	if !g.OnSphere {
		return best
	}
	for _, o := range g.Points {
		if d := o.Distance(p); d < best {
			best = d
		}
	}
	for _, l := range g.Lines {
		if d := lineDistance(l, p); d < best {
			best = d
		}
	}
	for _, pg := range g.Polygons {
		if pg.ContainsPoint(p) {
			return 0
		}
		for e := 0; e < pg.NumEdges(); e++ {
			ed := pg.Edge(e)
			if d := s2.DistanceFromSegment(p, ed.V0, ed.V1); d < best {
				best = d
			}
		}
	}
	return best
}

// NearestPoint is the point of g nearest to p, as a GeoJSON point or
// legacy pair would show it, for includeLocs: the geometry's own point
// for a point, and g's first point otherwise.
func (g *Geometry) NearestPoint(p s2.Point) s2.Point {
	best, bd := s2.Point{}, s1.InfAngle()
	for _, o := range g.Points {
		if d := o.Distance(p); d < bd {
			best, bd = o, d
		}
	}
	return best
}

// PointLngLat is a point's longitude and latitude in degrees.
func PointLngLat(p s2.Point) (lng, lat float64) {
	ll := s2.LatLngFromPoint(p)
	return ll.Lng.Degrees(), ll.Lat.Degrees()
}

// Point returns the point on the sphere at longitude lng, latitude lat.
func Point(lng, lat float64) s2.Point { return pointOf(lng, lat) }

// ValidLngLat reports whether (lng, lat) is a longitude and a latitude.
func ValidLngLat(lng, lat float64) bool { return validLngLat(lng, lat) }

// LegacyPair reads a legacy coordinate pair.
func LegacyPair(v any) (x, y float64, err error) { return legacyPair(v, false) }

// Number reads a BSON number as a float64.
func Number(v any) (float64, bool) { return number(v) }
