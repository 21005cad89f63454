package indexkey

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/geo"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The geospatial index types of a key pattern's field.
const (
	Geo2DSphere = "2dsphere"
	Geo2D       = "2d"
)

// MongoDB's codes for documents a geospatial index cannot key.
const (
	codeCantExtractGeoKeys = document.Code(16755) // 2dsphere: not a geometry
	codeLocationExpected   = document.Code(16804) // 2d: not a coordinate pair
	codePointNotInInterval = document.Code(13027) // 2d: out of [min, max)
)

// IsGeo reports whether key has a 2dsphere or 2d field.
func IsGeo(key bson.D) bool {
	_, kind := GeoField(key)
	return kind != ""
}

// GeoField returns the position and type ("2dsphere" or "2d") of key's
// first geospatial field, and "" when it has none.
func GeoField(key bson.D) (int, string) {
	for i, e := range key {
		if s, ok := e.Value.(string); ok && (s == Geo2DSphere || s == Geo2D) {
			return i, s
		}
	}
	return -1, ""
}

// Geo2DParams are a 2d index's bits and bounds (bits 26, [-180, 180)
// unless its spec says otherwise).
type Geo2DParams struct {
	Bits     int
	Min, Max float64
}

// Geo2DOf returns the parameters of 2d index ix.
func Geo2DOf(ix *catalog.Index) Geo2DParams {
	p := Geo2DParams{Bits: 26, Min: -180, Max: 180}
	for _, e := range ix.Extra {
		f, ok := geo.Number(e.Value)
		if !ok {
			continue
		}
		switch e.Key {
		case "bits":
			p.Bits = int(f)
		case "min":
			p.Min = f
		case "max":
			p.Max = f
		}
	}
	return p
}

// Hash2D is the 2d index key of the point (x, y): its cell in a grid of
// 2^bits by 2^bits over [min, max), the bits of x and y interleaved.
func (p Geo2DParams) Hash2D(x, y float64) int64 {
	xs, ys := p.grid(x), p.grid(y)
	var h uint64
	for i := p.Bits - 1; i >= 0; i-- {
		h = h<<2 | (xs>>i&1)<<1 | ys>>i&1
	}
	return signedKey(h)
}

// signedKey is the index key of 2d hash h: h with its top bit flipped,
// so that the signed keys sort as the unsigned hashes do (a 32-bit grid
// uses all 64 bits).
func signedKey(h uint64) int64 { return int64(h ^ 1<<63) }

// geoValues returns the values at parts of v that a geospatial field
// keys: arrays along the path are traversed; at its end an array is one
// legacy pair when its first two values are numbers, else a list of
// geometries. Missing, null, undefined and empty arrays give nothing.
func geoValues(v any, parts []string, out []any) (vals []any, isArray bool) {
	if len(parts) == 0 {
		switch t := v.(type) {
		case nil, bson.Null, bson.Undefined:
			return out, false
		case bson.A:
			if len(t) >= 2 && isNum(t[0]) && isNum(t[1]) {
				return append(out, t), false
			}
			for _, e := range t {
				switch e.(type) {
				case nil, bson.Null, bson.Undefined:
					continue
				}
				out = append(out, e)
			}
			return out, true
		}
		return append(out, v), false
	}
	switch t := v.(type) {
	case bson.D:
		fv, ok := document.Get(t, parts[0])
		if !ok {
			return out, false
		}
		return geoValues(fv, parts[1:], out)
	case bson.A:
		arr := false
		for _, e := range t {
			if sd, ok := e.(bson.D); ok {
				var a bool
				out, a = geoValues(sd, parts, out)
				arr = arr || a
			}
		}
		return out, true
	}
	return out, false
}

func isNum(v any) bool {
	_, ok := geo.Number(v)
	return ok
}

// geoKeys is Of for an index with a 2dsphere or 2d field: the geometry
// field keys each cell that covers it (2dsphere) or its grid cell (2d);
// the other fields key their values as an ordinary index does. A
// document without a geometry at any geo field is not in the index.
func geoKeys(ix *catalog.Index, d bson.D) (keys [][]byte, multikey bool, err error) {
	fields := Fields(ix.Key)
	comps := make([][]any, len(fields))
	haveGeo := false
	arrays := 0
	for i, f := range fields {
		kind, _ := ix.Key[i].Value.(string)
		if kind != Geo2DSphere && kind != Geo2D {
			vals, isArr := PathValues(d, f.Path)
			if len(vals) == 0 {
				vals = []any{nil}
			}
			if isArr {
				arrays++
				multikey = true
			}
			comps[i] = vals
			continue
		}
		vals, isArr := geoValues(d, strings.Split(f.Path, "."), nil)
		if isArr {
			multikey = true
		}
		var cells []any
		for _, v := range vals {
			ks, err := geoValueKeys(ix, kind, d, v)
			if err != nil {
				return nil, false, err
			}
			for _, k := range ks {
				cells = append(cells, k)
			}
		}
		if len(cells) > 1 {
			multikey = true
		}
		if len(cells) > 0 {
			haveGeo = true
		}
		comps[i] = cells
	}
	if !haveGeo {
		return nil, false, nil
	}
	if arrays > 1 {
		return nil, false, document.Errorf(codeCannotIndexParallelArrays, "cannot index parallel arrays")
	}
	coll := ix.Collator()
	seen := map[string]bool{}
	var build func(i int, prefix []byte)
	build = func(i int, prefix []byte) {
		if i == len(fields) {
			if !seen[string(prefix)] {
				seen[string(prefix)] = true
				keys = append(keys, prefix)
			}
			return
		}
		vals := comps[i]
		if len(vals) == 0 {
			vals = []any{nil} // a geo field without a geometry, beside one with
		}
		for _, v := range vals {
			if coll != nil {
				v = coll.KeyValue(v)
			}
			build(i+1, lsm.AppendKey(append([]byte(nil), prefix...), v, fields[i].Desc))
		}
	}
	build(0, nil)
	return keys, multikey, nil
}

// geoValueKeys returns the keys of one geometry value of document d.
func geoValueKeys(ix *catalog.Index, kind string, d bson.D, v any) ([]int64, error) {
	if kind == Geo2D {
		x, y, err := geo.StoredPair(v)
		if err != nil {
			return nil, document.Errorf(codeLocationExpected, "location object expected, location array not in correct format")
		}
		p := Geo2DOf(ix)
		if !(x >= p.Min && x < p.Max && y >= p.Min && y < p.Max) {
			return nil, document.Errorf(codePointNotInInterval, "point not in interval of [ %s, %s ) :: caused by :: %s", fmtNum(p.Min), fmtNum(p.Max), document.Format(d))
		}
		return []int64{p.Hash2D(x, y)}, nil
	}
	g, err := geo.Parse(v)
	if err == nil && g.Legacy && !g.OnSphere {
		err = fmt.Errorf("Longitude/latitude is out of bounds, lng: %s lat: %s", fmtNum(g.X), fmtNum(g.Y))
	}
	if err != nil {
		msg := err.Error()
		if errors.Is(err, geo.ErrNotGeometry) {
			msg = strings.TrimPrefix(msg, geo.ErrNotGeometry.Error()+": ")
		}
		return nil, document.Errorf(codeCantExtractGeoKeys, "Can't extract geo keys: %s  %s", document.Format(d), msg)
	}
	return g.Keys(), nil
}

func fmtNum(f float64) string { return fmt.Sprint(f) }

// maxCover2D bounds the cells of a 2d covering.
const maxCover2D = 32

// Cover2D returns the ranges of 2d keys whose grid cells meet the box
// [x0, x1] x [y0, y1]: a quadtree walk from the whole grid down, each
// cell inside the box (or at the finest level, or past the budget of
// cells) taken whole as the range of keys below it, sorted and merged.
func (p Geo2DParams) Cover2D(x0, y0, x1, y1 float64) [][2]int64 {
	if x1 < x0 || y1 < y0 {
		return nil
	}
	gx0, gy0 := p.grid(x0), p.grid(y0)
	gx1, gy1 := p.grid(x1), p.grid(y1)
	type cell struct {
		level  int
		cx, cy uint64
	}
	var out [][2]int64
	emit := func(c cell) {
		shift := uint(p.Bits - c.level)
		var prefix uint64
		for i := c.level - 1; i >= 0; i-- {
			prefix = prefix<<2 | (c.cx>>uint(i)&1)<<1 | c.cy>>uint(i)&1
		}
		var lo, hi uint64
		if 2*shift >= 64 {
			lo, hi = 0, math.MaxUint64 // the whole grid of 32 bits
		} else {
			lo = prefix << (2 * shift)
			hi = lo | (uint64(1)<<(2*shift) - 1)
		}
		out = append(out, [2]int64{signedKey(lo), signedKey(hi)})
	}
	queue := []cell{{}}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		shift := uint(p.Bits - c.level)
		cx0, cy0 := c.cx<<shift, c.cy<<shift
		cx1, cy1 := cx0+(uint64(1)<<shift)-1, cy0+(uint64(1)<<shift)-1
		if cx1 < gx0 || cx0 > gx1 || cy1 < gy0 || cy0 > gy1 {
			continue // disjoint
		}
		inside := cx0 >= gx0 && cx1 <= gx1 && cy0 >= gy0 && cy1 <= gy1
		if inside || c.level == p.Bits || len(out)+len(queue)+4 > maxCover2D {
			emit(c)
			continue
		}
		for _, d := range [4][2]uint64{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
			queue = append(queue, cell{c.level + 1, c.cx<<1 | d[0], c.cy<<1 | d[1]})
		}
	}
	slices.SortFunc(out, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && (r[0] <= merged[n-1][1] || merged[n-1][1] != math.MaxInt64 && r[0] == merged[n-1][1]+1) {
			merged[n-1][1] = max(merged[n-1][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// grid is the grid coordinate of v, clamped to the grid.
func (p Geo2DParams) grid(v float64) uint64 {
	f := (v - p.Min) / (p.Max - p.Min) * float64(uint64(1)<<p.Bits)
	lim := uint64(1)<<p.Bits - 1
	switch {
	case math.IsNaN(f) || f <= 0:
		return 0
	case f >= float64(lim):
		return lim
	}
	return uint64(f)
}
