package query

import (
	"math"

	"github.com/golang/geo/s2"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/geo"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// geoExpr is $geoWithin or $geoIntersects on a path: it matches when a
// geometry at the path (an array's elements each, or the array itself
// as a legacy pair) is within the region, or intersects the geometry.
type geoExpr struct {
	path   string
	parts  []string
	within *geo.Region   // $geoWithin
	inter  *geo.Geometry // $geoIntersects
}

func (g *geoExpr) match(root any) bool {
	var buf [8]item
	for _, it := range collect(root, g.parts, g.parts != nil, buf[:0]) {
		if !it.present {
			continue
		}
		sg, err := geo.Parse(it.v)
		if err != nil {
			continue
		}
		if g.within != nil && g.within.Contains(sg) || g.inter != nil && geo.Intersects(g.inter, sg) {
			return true
		}
	}
	return false
}

// parseGeoWithin parses {$geoWithin: shape} (and its old name $within).
func parseGeoWithin(path string, parts []string, v any) (expr, error) {
	r, err := geo.ParseWithin(v)
	if err != nil {
		return nil, badValue("%v", err)
	}
	return &geoExpr{path: path, parts: parts, within: r}, nil
}

// parseGeoIntersects parses {$geoIntersects: {$geometry: ...}}.
func parseGeoIntersects(path string, parts []string, v any) (expr, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, badValue("geometry must be an object")
	}
	if len(d) != 1 || d[0].Key != "$geometry" {
		if _, err := geo.ParseWithin(v); err != nil {
			return nil, badValue("%v", err)
		}
		return nil, badValue("$geoIntersect not supported with provided geometry: %s", js(v))
	}
	g, err := geo.ParseGeometry(d[0].Value)
	if err != nil {
		return nil, badValue("%v", err)
	}
	return &geoExpr{path: path, parts: parts, inter: g}, nil
}

// ErrNearNotAllowed is mongod's refusal of $near, $nearSphere and
// $geoNear where no sort by distance can happen (a count, a $match, a
// validator).
var ErrNearNotAllowed = document.Errorf(document.Code(5626500), "$geoNear, $near, and $nearSphere are not allowed in this context, as these operators require sorting geospatial data. If you do not need sort, consider using $geoWithin instead. Check out https://dochub.mongodb.org/core/near-sort-operation and https://dochub.mongodb.org/core/nearSphere-sort-operationfor more details.")

// GeoNear is a filter's $near or $nearSphere: the point distances are
// measured from, how, and the bounds on them.
type GeoNear struct {
	Path string
	// Op is "$near" or "$nearSphere".
	Op string
	// Sphere: distances are on the sphere ($nearSphere, or a GeoJSON
	// point); otherwise they are flat, between legacy pairs.
	Sphere bool
	// GeoJSON: the point was GeoJSON, and distances are in meters; a
	// legacy point's are radians on the sphere, or flat units.
	GeoJSON bool
	// X and Y are the point (a longitude and a latitude on the sphere).
	X, Y float64
	// Min and Max bound the distance, inclusive; Max is +Inf without
	// $maxDistance.
	Min, Max float64
	at       s2.Point
	parts    []string
}

// At is the point on the sphere distances are measured from (when
// Sphere is set).
func (n *GeoNear) At() s2.Point { return n.at }

// match keeps the documents within the bounds: a near query returns
// only those.
func (n *GeoNear) match(root any) bool {
	_, ok := n.distanceOf(root)
	return ok
}

// Distance returns the distance of document d from the point (its
// nearest geometry at the path within the bounds), in the query's unit,
// and false when d has none within them.
func (n *GeoNear) Distance(d bson.D) (float64, bool) { return n.distanceOf(d) }

// Location returns the geometry value of d the distance was measured
// to (includeLocs), and false when d has none within the bounds.
func (n *GeoNear) Location(d bson.D) (any, bool) {
	_, v, ok := n.nearest(d)
	return v, ok
}

// distanceOf is a document's distance: its nearest geometry's, when
// that is within the bounds (a document with a geometry nearer than
// $minDistance is not returned, as in mongod).
func (n *GeoNear) distanceOf(root any) (float64, bool) {
	dist, _, ok := n.nearest(root)
	return dist, ok
}

// nearest returns the distance to root's nearest geometry at the path
// and that geometry's value, ok when it is within the bounds.
func (n *GeoNear) nearest(root any) (float64, any, bool) {
	var buf [8]item
	best, bestV := math.Inf(1), any(nil)
	for _, it := range collect(root, n.parts, true, buf[:0]) {
		if !it.present {
			continue
		}
		if dist, ok := n.measure(it.v); ok && dist < best {
			best, bestV = dist, it.v
		}
	}
	if bestV == nil || best < n.Min || best > n.Max {
		return 0, nil, false
	}
	return best, bestV, true
}

// measure is the distance from the point to the geometry v, in the
// query's unit, when v is a geometry that has one.
func (n *GeoNear) measure(v any) (float64, bool) {
	g, err := geo.Parse(v)
	if err != nil {
		return 0, false
	}
	var dist float64
	switch {
	case !n.Sphere:
		if !g.Legacy {
			return 0, false
		}
		dist = math.Hypot(g.X-n.X, g.Y-n.Y)
	default:
		if !g.OnSphere {
			return 0, false
		}
		dist = float64(g.SphereDistance(n.at))
		if n.GeoJSON {
			dist *= geo.EarthRadiusMeters
		}
	}
	return dist, true
}

// parseNear parses $near or $nearSphere (or $geoNear, an old name of
// $near) with the $maxDistance and $minDistance beside it (legacy
// points) or in its own document (a $geometry point).
func parseNear(path string, parts []string, ops bson.D) (*GeoNear, error) {
	n := &GeoNear{Path: path, Max: math.Inf(1), parts: parts}
	var arg any
	var rest bson.D
	for _, e := range ops {
		switch e.Key {
		case "$near", "$nearSphere", "$geoNear":
			if arg != nil {
				return nil, badValue("Too many geoNear expressions")
			}
			arg = e.Value
			n.Op = e.Key
			if e.Key == "$geoNear" {
				n.Op = "$near"
			}
		default:
			rest = append(rest, e)
		}
	}
	n.Sphere = n.Op == "$nearSphere"
	if d, ok := arg.(bson.D); ok && !(len(d) > 0 && isNumberValue(d[0].Value)) {
		if _, typed := getField(d, "type"); typed && !hasField(d, "$geometry") {
			// A GeoJSON point given as it is, its bounds beside it:
			// meters on the sphere, the legacy form's rules otherwise.
			g, err := geo.ParseGeometry(d)
			if err != nil {
				return nil, badValue("invalid point in geo near query: %s  %v", js(d), err)
			}
			if g.Type != "Point" {
				return nil, badValue("$near requires geojson point, given %s", js(d))
			}
			n.at, n.X, n.Y = g.Points[0], g.X, g.Y
			n.Sphere, n.GeoJSON = true, true
			return n, n.parseBounds(rest)
		}
		// {$geometry: point, $maxDistance: m, $minDistance: m}.
		if len(rest) > 0 {
			return nil, badValue("geo near accepts just one argument when querying for a GeoJSON point. Extra field found: %s", js(bson.D{rest[0]}))
		}
		return n, n.parseGeoJSONForm(d)
	}
	return n, n.parseLegacyForm(arg, rest)
}

// parseLegacyForm reads {$near: [x, y] or [x, y, max], $maxDistance,
// $minDistance}, with mongod's numbered codes.
func (n *GeoNear) parseLegacyForm(arg any, rest bson.D) error {
	if arr, ok := arg.(bson.A); ok && len(arr) == 3 {
		for _, e := range arr {
			if !isNumberValue(e) {
				return badValue("Point with max distance must only contain numeric elements, instead got type %s", typeName(e))
			}
		}
		m, _ := geo.Number(arr[2])
		if m < 0 {
			return document.Errorf(document.Code(18522), "max distance must be non-negative")
		}
		n.Max = m
		arg = arr[:2]
	}
	x, y, err := geo.LegacyPair(arg)
	if err != nil {
		return badValue("%v", err)
	}
	n.X, n.Y = x, y
	if err := n.parseBounds(rest); err != nil {
		return err
	}
	if n.Sphere {
		if !geo.ValidLngLat(x, y) {
			return badValue("Legacy point is out of bounds for spherical query")
		}
		n.at = geo.Point(x, y)
	}
	return nil
}

// parseBounds reads the $maxDistance and $minDistance beside a point,
// with mongod's numbered codes (34413 for another field).
func (n *GeoNear) parseBounds(rest bson.D) error {
	for _, e := range rest {
		switch e.Key {
		case "$maxDistance", "$minDistance":
			f, ok := geo.Number(e.Value)
			isMax := e.Key == "$maxDistance"
			switch {
			case !ok && isMax:
				return document.Errorf(document.Code(16895), "$maxDistance must be a number")
			case !ok:
				return document.Errorf(document.Code(16893), "$minDistance must be a number")
			case (f < 0 || math.IsNaN(f)) && isMax:
				return document.Errorf(document.Code(16896), "$maxDistance must be non-negative")
			case f < 0 || math.IsNaN(f):
				return document.Errorf(document.Code(16894), "$minDistance must be non-negative")
			}
			if isMax {
				n.Max = f
			} else {
				n.Min = f
			}
		case "$uniqueDocs":
		default:
			return document.Errorf(document.Code(34413), "invalid argument in geo near query: %s", e.Key)
		}
	}
	return nil
}

// parseGeoJSONForm reads {$geometry: point, $maxDistance, $minDistance}:
// distances on the sphere, in meters.
func (n *GeoNear) parseGeoJSONForm(d bson.D) error {
	if len(d) == 0 {
		return badValue("empty geo near query object")
	}
	hasPoint := false
	for _, e := range d {
		switch e.Key {
		case "$geometry":
			gd, ok := e.Value.(bson.D)
			if !ok || len(gd) > 0 && isNumberValue(gd[0].Value) {
				return badValue("$near requires geojson point, given %s", js(bson.D{e}))
			}
			if t, _ := getField(gd, "type"); t != "Point" {
				return badValue("invalid point in geo near query $geometry argument: %s  Expected geojson geometry with type Point, but got type %s", js(gd), js(t))
			}
			g, err := geo.ParseGeometry(gd)
			if err != nil {
				return badValue("invalid point in geo near query $geometry argument: %s  %v", js(gd), err)
			}
			n.at = g.Points[0]
			n.X, n.Y = g.X, g.Y
			hasPoint = true
		case "$maxDistance", "$minDistance":
			f, ok := geo.Number(e.Value)
			if !ok {
				return badValue("%s must be a number", e.Key)
			}
			if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
				return badValue("%s must be non-negative", e.Key)
			}
			if e.Key == "$maxDistance" {
				n.Max = f
			} else {
				n.Min = f
			}
		default:
			return badValue("invalid argument in geo near query: %s", e.Key)
		}
	}
	if !hasPoint {
		return badValue("$geometry is required for geo near query")
	}
	n.Sphere, n.GeoJSON = true, true
	return nil
}

func isNumberValue(v any) bool {
	_, ok := geo.Number(v)
	return ok
}

func hasField(v any, key string) bool {
	d, ok := v.(bson.D)
	if !ok {
		return false
	}
	for _, e := range d {
		if e.Key == key {
			return true
		}
	}
	return false
}

// isNearOps reports whether an operator document is a $near or
// $nearSphere with its distance bounds.
func isNearOps(ops bson.D) bool {
	for _, e := range ops {
		if e.Key == "$near" || e.Key == "$nearSphere" || e.Key == "$geoNear" {
			return true
		}
	}
	return false
}

// Near returns the filter's $near or $nearSphere, nil if none.
func (f *Filter) Near() *GeoNear {
	if f == nil {
		return nil
	}
	return f.near
}

// findNear returns the $near of the filter's top-level conjunction and
// how many there are anywhere in it.
func findNear(root andExpr) (top *GeoNear, count int) {
	var walk func(e expr, atTop bool)
	walk = func(e expr, atTop bool) {
		switch t := e.(type) {
		case *GeoNear:
			count++
			if atTop {
				top = t
			}
		case andExpr:
			for _, s := range t {
				walk(s, atTop)
			}
		case orExpr:
			for _, s := range t {
				walk(s, false)
			}
		case norExpr:
			for _, s := range t {
				walk(s, false)
			}
		case notExpr:
			walk(t.e, false)
		case *pathExpr:
			if t.sub != nil {
				walk(t.sub, false)
			}
		}
	}
	walk(root, true)
	return top, count
}

// GeoPaths returns the paths that a $geoWithin or $geoIntersects of the
// filter's top-level conjunction constrains.
func (f *Filter) GeoPaths() []string {
	var out []string
	for _, g := range f.topGeo() {
		out = append(out, g.path)
	}
	return out
}

// topGeo returns the $geoWithin and $geoIntersects of the filter's
// top-level conjunction (its $and's too), in order.
func (f *Filter) topGeo() []*geoExpr {
	var out []*geoExpr
	var walk func(a andExpr)
	walk = func(a andExpr) {
		for _, e := range a {
			switch t := e.(type) {
			case andExpr:
				walk(t)
			case *geoExpr:
				if t.parts != nil {
					out = append(out, t)
				}
			}
		}
	}
	if f != nil {
		walk(f.root)
	}
	return out
}

// GeoCells returns S2 cells whose union covers every document a
// $geoWithin on the sphere, $geoIntersects or spherical $near with a
// $maxDistance of the filter's top-level conjunction can match at path
// (the first one found), and false when none bounds path.
func (f *Filter) GeoCells(path string) (geo.Covering, bool) {
	if f == nil {
		return geo.Covering{}, false
	}
	if n := f.near; n != nil && n.Path == path && n.Sphere && !math.IsInf(n.Max, 1) {
		angle := n.Max
		if n.GeoJSON {
			angle /= geo.EarthRadiusMeters
		}
		return geo.CapCovering(n.at, angle), true
	}
	for _, g := range f.topGeo() {
		switch {
		case g.path != path:
		case g.within != nil:
			if c, ok := g.within.Covering(); ok {
				return c, true
			}
		case g.inter != nil:
			return g.inter.Covering(), true
		}
	}
	return geo.Covering{}, false
}

// GeoFlatBox returns a box that holds every legacy pair a flat
// $geoWithin of the filter's top-level conjunction at path, or a flat
// $near with a $maxDistance on it, can match; false when none bounds
// path so.
//
// With caps set, a $centerSphere's cap counts too, as the longitude and
// latitude box that holds it (a 2d index holds legacy pairs as such).
func (f *Filter) GeoFlatBox(path string, caps bool) (x0, y0, x1, y1 float64, ok bool) {
	if f == nil {
		return 0, 0, 0, 0, false
	}
	if n := f.near; n != nil && n.Path == path && !n.Sphere && !math.IsInf(n.Max, 1) {
		return n.X - n.Max, n.Y - n.Max, n.X + n.Max, n.Y + n.Max, true
	}
	for _, g := range f.topGeo() {
		if g.path != path || g.within == nil {
			continue
		}
		if x0, y0, x1, y1, ok = g.within.FlatBox(); ok {
			return x0, y0, x1, y1, true
		}
		if caps {
			if x0, y0, x1, y1, ok = g.within.SphereBox(); ok {
				return x0, y0, x1, y1, true
			}
		}
	}
	return 0, 0, 0, 0, false
}
