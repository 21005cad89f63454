package engine

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"github.com/ttlkv/ttlkv/engine/geo"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// errNoGeoIndex is mongod's answer to a $near without an index that can
// answer it.
var errNoGeoIndex = document.Errorf(document.CodeNoQueryExecutionPlans, "error processing query: planner returned error :: caused by :: unable to find index for $geoNear query")

// errNearNotAllowed is mongod's refusal of $near, $nearSphere and
// $geoNear where no sort by distance can happen (a count, a $match).
var errNearNotAllowed = query.ErrNearNotAllowed

// refuseNear returns errNearNotAllowed when f has a $near.
func refuseNear(f *query.Filter) error {
	if f.Near() != nil {
		return errNearNotAllowed
	}
	return nil
}

// geoKindOf returns the geo type of field i of ix's key, "" for others.
func geoKindOf(ix *catalog.Index, i int) string {
	if s, ok := ix.Key[i].Value.(string); ok && (s == indexkey.Geo2DSphere || s == indexkey.Geo2D) {
		return s
	}
	return ""
}

// geoIndexesOn returns the visible indexes with a geo field of one of
// kinds on path that hold every document filter matches, in the order
// kinds names them (a 2d index before a 2dsphere one, as mongod
// prefers). A partial index holds them when filter implies its
// partialFilterExpression (partialUsable), as mongod's planner decides.
func geoIndexesOn(m *catalog.Coll, filter *query.Filter, path string, kinds ...string) []*catalog.Index {
	var out []*catalog.Index
	for _, k := range kinds {
		for _, ix := range m.Indexes {
			if ix.Hidden || !partialUsable(ix, filter) {
				continue
			}
			for i, f := range ix.Key {
				if f.Key == path && geoKindOf(ix, i) == k {
					out = append(out, ix)
					break
				}
			}
		}
	}
	return out
}

// nearKinds are the index types that can answer n: a flat $near a 2d
// index, a legacy $nearSphere either, a GeoJSON point a 2dsphere one.
func nearKinds(n *query.GeoNear) []string {
	switch {
	case !n.Sphere:
		return []string{indexkey.Geo2D}
	case n.GeoJSON:
		return []string{indexkey.Geo2DSphere}
	}
	return []string{indexkey.Geo2D, indexkey.Geo2DSphere}
}

// useNear makes p answer a $near through a geo index on its path
// (docs/geo.md, "Near queries"): the index's documents within the
// bounds, which the executor orders by distance.
func (p *plan) useNear(hint any) error {
	n := p.filter.Near()
	if p.sort != nil {
		if _, ok := p.sort.NaturalOrder(); ok {
			return document.Errorf(document.CodeBadValue, "geoNear expression not allowed with $natural sort order")
		}
	}
	cands := geoIndexesOn(p.m, p.filter, n.Path, nearKinds(n)...)
	var ix *catalog.Index
	if hint != nil {
		hx, natural, err := resolveHint(p.m, hint)
		if err != nil {
			return err
		}
		if natural != 0 {
			return document.Errorf(document.CodeBadValue, "geoNear expression not allowed with $natural hint")
		}
		if !slices.Contains(cands, hx) {
			return errNoGeoIndex
		}
		ix = hx
	} else if len(cands) > 0 {
		ix = cands[0]
	}
	if ix == nil {
		return errNoGeoIndex
	}
	p.near = n
	p.useIndex(ix)
	p.sortByIndex, p.reverse = false, false
	return nil
}

// useGeo makes p read a 2dsphere index for a $geoWithin or
// $geoIntersects on the sphere, and reports whether it did: the cells
// that cover the query's region bound the index's geo field.
func (p *plan) useGeo() bool {
	for _, path := range p.filter.GeoPaths() {
		kinds := []string{indexkey.Geo2DSphere}
		if _, _, _, _, flat := p.filter.GeoFlatBox(path, false); flat {
			kinds = []string{indexkey.Geo2D} // a flat shape: a 2d index's grid
		} else if _, ok := p.filter.GeoCells(path); !ok {
			continue
		} else if _, _, _, _, cap := p.filter.GeoFlatBox(path, true); cap {
			// A $centerSphere: a 2d index's grid by the box holding
			// the cap, when there is no 2dsphere index.
			kinds = append(kinds, indexkey.Geo2D)
		}
		for _, ix := range geoIndexesOn(p.m, p.filter, path, kinds...) {
			p.useIndex(ix)
			return true
		}
	}
	return false
}

// geoFieldBounds returns the intervals of a geo field of an index: the
// key ranges of the cells covering the filter's region when the field
// is 2dsphere and the filter bounds it, else none.
func geoFieldBounds(ix *catalog.Index, kind, path string, filter *query.Filter) (query.Intervals, bool) {
	if kind == indexkey.Geo2D {
		x0, y0, x1, y1, ok := filter.GeoFlatBox(path, true)
		if !ok {
			return nil, false
		}
		return keyIntervals(indexkey.Geo2DOf(ix).Cover2D(x0, y0, x1, y1)), true
	}
	cov, ok := filter.GeoCells(path)
	if !ok {
		return nil, false
	}
	return keyIntervals(cov.KeyRanges()), true
}

// keyIntervals turns ranges of integer keys into index intervals.
func keyIntervals(ranges [][2]int64) query.Intervals {
	out := make(query.Intervals, 0, len(ranges))
	for _, r := range ranges {
		out = append(out, query.Interval{Lo: query.Bound{Value: r[0], Inclusive: true}, Hi: query.Bound{Value: r[1], Inclusive: true}})
	}
	return out
}

// nearResult is one document of a near query with its distance (and,
// for a write's candidates, its record id and clustered _id key).
type nearResult struct {
	d    bson.D
	dist float64
	rid  uint64
	id   []byte
}

// byDistance orders near results nearest first.
func byDistance(a, b nearResult) int { return cmp.Compare(a.dist, b.dist) }

// nearGen returns q's producer for a near plan: every document the scan
// finds within the bounds, ordered by the query's sort when it has one
// and by distance (nearest first) after it, then skipped, limited,
// annotated (when annotate is not nil) and projected.
func nearGen(q *queryExec, n *query.GeoNear, userSort *query.Sort, annotate func(bson.D) bson.D) func(ctx context.Context, want int) ([]bson.D, error) {
	if userSort == nil && ringable(q.sc.p, n) {
		return nearRings(q, n, annotate)
	}
	var results []nearResult
	pos, loaded := 0, false
	return func(ctx context.Context, want int) ([]bson.D, error) {
		if !loaded {
			for !q.sc.done {
				recs, err := q.sc.next(ctx, 1024)
				if err != nil {
					return nil, err
				}
				for _, r := range recs {
					dist, ok := n.Distance(r.d)
					if !ok {
						continue
					}
					results = append(results, nearResult{d: r.d, dist: dist})
				}
			}
			slices.SortStableFunc(results, func(a, b nearResult) int {
				if c := userSort.Compare(a.d, b.d); c != 0 {
					return c
				}
				return byDistance(a, b)
			})
			loaded = true
			pos = int(min(q.skip, int64(len(results))))
			q.skip = 0
		}
		var out []bson.D
		for len(out) < want && pos < len(results) {
			if q.limit > 0 && q.returned >= q.limit {
				break
			}
			pd, err := emitNear(q, n, annotate, results[pos])
			if err != nil {
				return out, err
			}
			pos++
			out = append(out, pd)
			q.returned++
		}
		if pos >= len(results) || q.limit > 0 && q.returned >= q.limit {
			q.done = true
		}
		q.sc.stats.nReturned = q.returned
		return out, nil
	}
}

// emitNear projects, annotates and hands out r as a near query's next
// document.
func emitNear(q *queryExec, n *query.GeoNear, annotate func(bson.D) bson.D, r nearResult) (bson.D, error) {
	d := r.d
	if annotate != nil {
		d = annotate(d)
	}
	pd, err := q.project(d)
	if err != nil {
		return nil, err
	}
	if q.proj.NeedsGeoMeta() {
		loc, _ := n.Location(r.d)
		pd = q.proj.SetGeoMeta(pd, r.dist, loc)
	}
	return pd, nil
}

// ringable reports whether p's near query can be read ring by ring:
// through a 2dsphere index (on the sphere) or a 2d index (legacy
// pairs) whose fields before the geo field are each fixed by
// equalities, so that a ring's covering, under those values, bounds the
// scan.
func ringable(p *plan, n *query.GeoNear) bool {
	if p.ix == nil {
		return false
	}
	pos, kind := indexkey.GeoField(p.ix.Key)
	if !(kind == indexkey.Geo2DSphere && n.Sphere || kind == indexkey.Geo2D && !n.GeoJSON) {
		return false
	}
	if pos > 0 {
		ivs, bounded := fieldBounds(p.ix, p.filter, p.sort)
		for i := 0; i < pos; i++ {
			if !bounded[i] || !allPoints(ivs[i]) {
				return false
			}
		}
	}
	return true
}

// ringRanges are the index ranges of one ring of near plan p: the
// ring's covering of the geo field under the values its earlier fields
// are fixed to, and the bounds of the fields after it.
func ringRanges(p *plan, cover query.Intervals) []keyRange {
	pos, _ := indexkey.GeoField(p.ix.Key)
	if pos == 0 {
		return rangesFor(p.ixPrefix, cover, false)
	}
	ivs, bounded := fieldBounds(p.ix, p.filter, p.sort)
	ivs[pos], bounded[pos] = cover, true
	ranges, _ := compoundRanges(p.ixPrefix, indexkey.Fields(p.ix.Key), ivs, bounded)
	return ranges
}

// rings is how a near query widens: its first radius, its last, the
// index intervals that hold every document within a radius, and a
// distance in the radius's unit.
type rings struct {
	first, last float64
	cover       func(r float64) query.Intervals
	unit        func(dist float64) float64
}

// ringsOf returns the rings of n through ringable plan p: caps on the
// sphere (radians) for a 2dsphere index, boxes in the plane for a 2d
// index (its grid's cells, the first sixteen across).
func ringsOf(p *plan, n *query.GeoNear) rings {
	if _, kind := indexkey.GeoField(p.ix.Key); kind == indexkey.Geo2D && n.Sphere {
		// $nearSphere of legacy pairs through a 2d index: radians on the
		// sphere, each cap read as the longitude and latitude box that
		// holds it.
		g := indexkey.Geo2DOf(p.ix)
		last := math.Pi
		if !math.IsInf(n.Max, 1) {
			last = min(n.Max, math.Pi)
		}
		return rings{
			first: min(nearFirstRing, last),
			last:  last,
			cover: func(r float64) query.Intervals {
				x0, y0, x1, y1 := geo.CapBox(n.X, n.Y, r*(1+1e-9)+1e-12)
				return keyIntervals(g.Cover2D(x0, y0, x1, y1))
			},
			unit: func(d float64) float64 { return d },
		}
	}
	if _, kind := indexkey.GeoField(p.ix.Key); kind == indexkey.Geo2D {
		g := indexkey.Geo2DOf(p.ix)
		// As mongod's 2d near: no farther than 1.5 times the grid's
		// width, which reaches every corner from any point inside it.
		last := min(n.Max, 1.5*(g.Max-g.Min))
		return rings{
			first: min(16*(g.Max-g.Min)/float64(uint64(1)<<g.Bits), last),
			last:  last,
			cover: func(r float64) query.Intervals {
				r = r*(1+1e-9) + 1e-12
				return keyIntervals(g.Cover2D(n.X-r, n.Y-r, n.X+r, n.Y+r))
			},
			unit: func(d float64) float64 { return d },
		}
	}
	last := math.Pi
	if !math.IsInf(n.Max, 1) {
		last = n.Max
		if n.GeoJSON {
			last /= geo.EarthRadiusMeters
		}
		last = min(last, math.Pi)
	}
	return rings{
		first: min(nearFirstRing, last),
		last:  last,
		// The cap scanned is a hair wider than the ring, so that a
		// document whose computed distance is r is in its covering.
		cover: func(r float64) query.Intervals {
			return keyIntervals(geo.CapCovering(n.At(), r*(1+1e-9)+1e-15).KeyRanges())
		},
		unit: func(d float64) float64 {
			if n.GeoJSON {
				return d / geo.EarthRadiusMeters
			}
			return d
		},
	}
}

// nearFirstRing is the radius (radians, about 640 m) of the first cap a
// near query reads; each next cap is four times as wide.
const nearFirstRing = 1e-4

// nearRings returns the producer of a near query read ring by ring, as
// mongod's GEO_NEAR_2DSPHERE does: it scans the index by the covering
// of a cap, hands out, nearest first, the documents of the ring between
// the last cap and this one, and widens the cap only when the reader
// wants more. A limit reads as far as its last document, not the whole
// index.
func nearRings(q *queryExec, n *query.GeoNear, annotate func(bson.D) bson.D) func(ctx context.Context, want int) ([]bson.D, error) {
	rg := ringsOf(q.sc.p, n)
	maxR := rg.last
	var queue []nearResult
	qi := 0
	prev, r := -1.0, rg.first
	// taken are the records a ring has taken: one a later ring finds
	// again (moved since, between two getMores) is not handed out twice.
	taken := map[uint64]struct{}{}
	skip := q.skip
	q.skip = 0
	fill := func(ctx context.Context) error {
		for qi >= len(queue) && prev < maxR {
			queue, qi = queue[:0], 0
			pc := *q.sc.p
			pc.ranges = ringRanges(&pc, rg.cover(r))
			sc := newScanner(&pc)
			sc.recordIDs, sc.indexKeys = q.sc.recordIDs, q.sc.indexKeys
			for !sc.done {
				recs, err := sc.next(ctx, 1024)
				if err != nil {
					return err
				}
				for _, rec := range recs {
					dist, ok := n.Distance(rec.d)
					if !ok {
						continue
					}
					if _, dup := taken[rec.rid]; dup {
						continue
					}
					if rad := rg.unit(dist); rad > prev && rad <= r {
						taken[rec.rid] = struct{}{}
						queue = append(queue, nearResult{d: rec.d, dist: dist, rid: rec.rid})
					}
				}
			}
			q.sc.stats.keysExamined += sc.stats.keysExamined
			q.sc.stats.docsExamined += sc.stats.docsExamined
			slices.SortStableFunc(queue, byDistance)
			prev, r = r, min(r*4, maxR)
		}
		return nil
	}
	return func(ctx context.Context, want int) ([]bson.D, error) {
		var out []bson.D
		for len(out) < want && !q.done {
			if q.limit > 0 && q.returned >= q.limit {
				q.done = true
				break
			}
			if err := fill(ctx); err != nil {
				return out, err
			}
			if qi >= len(queue) {
				q.done = true
				break
			}
			res := queue[qi]
			qi++
			if skip > 0 {
				skip--
				continue
			}
			pd, err := emitNear(q, n, annotate, res)
			if err != nil {
				return out, err
			}
			out = append(out, pd)
			q.returned++
		}
		if q.limit > 0 && q.returned >= q.limit {
			q.done = true
		}
		q.sc.stats.nReturned = q.returned
		return out, nil
	}
}

// nearStageName is explain's name of a near plan's stage.
func nearStageName(ix *catalog.Index) string {
	if _, kind := indexkey.GeoField(ix.Key); kind == indexkey.Geo2D {
		return "GEO_NEAR_2D"
	}
	return "GEO_NEAR_2DSPHERE"
}

// geoNearKey returns the field a $geoNear without a key reads: the one
// 2d index's, else the one 2dsphere index's, with mongod's refusals
// (27) when there are none or several.
func geoNearKey(m *catalog.Coll) (string, error) {
	for _, kind := range []string{indexkey.Geo2D, indexkey.Geo2DSphere} {
		var paths []string // each index's first field of the kind
		for _, ix := range m.Indexes {
			if ix.Hidden {
				continue
			}
			for i, f := range ix.Key {
				if geoKindOf(ix, i) == kind {
					paths = append(paths, f.Key)
					break
				}
			}
		}
		switch {
		case len(paths) > 1:
			return "", document.Errorf(document.CodeIndexNotFound, "There is more than one %s index on %s; unsure which to use for $geoNear", kind, m.NS())
		case len(paths) == 1:
			return paths[0], nil
		}
	}
	return "", document.Errorf(document.CodeIndexNotFound, "$geoNear requires a 2d or 2dsphere index, but none were found")
}

// geoNearFind is the find a pipeline's leading $geoNear reads with: its
// near query through the collection's geo index, each document given
// its distance (and location) as the stage asks. A collection that does
// not exist gives no documents.
func (db *DB) geoNearFind(dbName string, s *aggregateSpec, g *agg.GeoNear) (*plan, *queryExec, error) {
	c := db.lookup(dbName, s.name)
	if c == nil {
		return nil, nil, nil
	}
	if c.m().Kind == catalog.KindView {
		// The view's own stages come first.
		return nil, nil, document.Errorf(document.Code(40602), "$geoNear is only valid as the first stage in a pipeline.")
	}
	key := g.Key
	if key == "" {
		var err error
		if key, err = geoNearKey(c.m()); err != nil {
			return nil, nil, err
		}
	}
	_, pl, q, err := db.findPlan(dbName, s.name, g.NearFilter(key), FindOptions{Hint: s.hint, Collation: s.collation, AllowDiskUse: boolPtr(!s.noDisk)})
	if err != nil || q == nil {
		return pl, q, err
	}
	if pl.near == nil {
		return nil, nil, errNoGeoIndex
	}
	n := pl.near
	q.gen = nearGen(q, n, nil, func(d bson.D) bson.D {
		dist, _ := n.Distance(d)
		var loc any
		if g.IncludeLocs != "" {
			loc, _ = n.Location(d)
		}
		return g.Annotate(d, dist, loc)
	})
	return pl, q, nil
}

// hasNear reports whether filter holds a $near or $nearSphere (parsed
// as a query; a filter that does not parse has none).
func hasNear(filter bson.D) bool {
	f, err := query.ParseFilter(filter)
	return err == nil && f.Near() != nil
}

// nearCandidates is candidates for a near plan: the records within the
// bounds, nearest first, up to limit (0: all).
func nearCandidates(ctx context.Context, p *plan, limit int64) ([]uint64, map[uint64][]byte, error) {
	sc := newScanner(p)
	var cs []nearResult
	for !sc.done {
		recs, err := sc.next(ctx, 1024)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range recs {
			if dist, ok := p.near.Distance(r.d); ok {
				cs = append(cs, nearResult{dist: dist, rid: r.rid, id: r.id})
			}
		}
	}
	slices.SortStableFunc(cs, byDistance)
	if limit > 0 && int64(len(cs)) > limit {
		cs = cs[:limit]
	}
	rids := make([]uint64, len(cs))
	var ids map[uint64][]byte
	if p.m.Clustered {
		ids = map[uint64][]byte{}
	}
	for i, c := range cs {
		rids[i] = c.rid
		if ids != nil {
			ids[c.rid] = c.id
		}
	}
	return rids, ids, nil
}

// geoNearFunc is how a pipeline on dbName runs the $geoNear that leads
// a $lookup's or $unionWith's pipeline: the same find as a leading one,
// with the pipeline's collation, each document in distance order.
func (db *DB) geoNearFunc(dbName string, collation bson.D) agg.GeoNearFunc {
	return func(ctx context.Context, from string, g *agg.GeoNear, fn func(bson.D) error) error {
		_, q, err := db.geoNearFind(dbName, &aggregateSpec{name: from, collation: collation}, g)
		if err != nil {
			return err
		}
		return q.each(ctx, fn)
	}
}
