package geo

import (
	"slices"

	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
)

// The levels of the S2 cells a 2dsphere index keys a geometry by: a
// point by its cell at FinestLevel (about 1 m across), another geometry
// by a covering of at most maxCells cells between CoarsestLevel and
// FinestLevel.
const (
	FinestLevel   = 23
	CoarsestLevel = 0
	maxCells      = 20
)

// Covering is a set of S2 cells whose union covers a region.
type Covering struct {
	Cells []s2.CellID
}

func coverer() *s2.RegionCoverer {
	return &s2.RegionCoverer{MinLevel: CoarsestLevel, MaxLevel: FinestLevel, LevelMod: 1, MaxCells: maxCells}
}

// Keys returns the 2dsphere index keys of a geometry on the sphere: the
// ids of the cells that cover it, as the signed integers an index
// stores. A geometry not on the sphere has none.
func (g *Geometry) Keys() []int64 {
	if !g.OnSphere {
		return nil
	}
	c := g.Covering()
	out := make([]int64, 0, len(c.Cells))
	for _, id := range c.Cells {
		out = append(out, int64(id))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Covering returns cells covering every point of g.
func (g *Geometry) Covering() Covering {
	var u s2.CellUnion
	for _, p := range g.Points {
		u = append(u, s2.CellFromPoint(p).ID().Parent(FinestLevel))
	}
	rc := coverer()
	for _, l := range g.Lines {
		u = append(u, rc.Covering(l)...)
	}
	for _, p := range g.Polygons {
		u = append(u, rc.Covering(p)...)
	}
	slices.Sort(u)
	return Covering{Cells: slices.Compact(u)}
}

// Covering returns cells covering a region on the sphere, and false for
// a flat one, which a 2dsphere index cannot answer.
func (r *Region) Covering() (Covering, bool) {
	if r.flat != notFlat {
		return Covering{}, false
	}
	rc := coverer()
	var u s2.CellUnion
	if r.cap != nil {
		u = rc.Covering(*r.cap)
	}
	for _, p := range r.polys {
		u = append(u, rc.Covering(p)...)
	}
	slices.Sort(u)
	return Covering{Cells: slices.Compact(u)}, true
}

// CapCovering returns cells covering the points within angle (radians)
// of p.
func CapCovering(p s2.Point, angle float64) Covering {
	c := s2.CapFromCenterAngle(p, s1.Angle(angle))
	return Covering{Cells: coverer().Covering(c)}
}

// KeyRanges returns the ranges of index keys a geometry meeting the
// covered region can have: every cell inside a covering cell (a range
// of ids), and every cell containing one (a single id, from
// CoarsestLevel down), sorted and merged.
func (c Covering) KeyRanges() [][2]int64 {
	var out [][2]int64
	seen := map[s2.CellID]bool{}
	for _, id := range c.Cells {
		out = append(out, [2]int64{int64(id.RangeMin()), int64(id.RangeMax())})
		for l := CoarsestLevel; l < id.Level(); l++ {
			a := id.Parent(l)
			if !seen[a] {
				seen[a] = true
				out = append(out, [2]int64{int64(a), int64(a)})
			}
		}
	}
	slices.SortFunc(out, func(a, b [2]int64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && r[0] <= merged[n-1][1] {
			if r[1] > merged[n-1][1] {
				merged[n-1][1] = r[1]
			}
			continue
		}
		merged = append(merged, r)
	}
	return merged
}
