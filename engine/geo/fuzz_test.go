package geo

import (
	"encoding/binary"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// FuzzShapes builds points, lines, rings and polygons with holes from
// arbitrary coordinates (repeats, antipodes, crossings, poles, the
// antimeridian) and asks every question of them: parsing, keys,
// coverings, containment, intersection and distance. Nothing may
// panic.
func FuzzShapes(f *testing.F) {
	seed := func(xs ...float64) []byte {
		b := make([]byte, 0, 8*len(xs))
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
		return b
	}
	f.Add(seed(0, 0, 10, 0, 10, 10, 0, 10, 0, 0), uint8(5))
	f.Add(seed(0, 0, 2, 2, 2, 0, 0, 2, 0, 0), uint8(5))
	f.Add(seed(-180, 0, 0, 90, 180, 0, 0, -90, -180, 0), uint8(5))
	f.Add(seed(0, 0, 180, 0, 0, 0, 1, 1), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		var pos bson.A
		for i := 0; i+16 <= len(data) && len(pos) < 64; i += 16 {
			x := math.Float64frombits(binary.LittleEndian.Uint64(data[i:]))
			y := math.Float64frombits(binary.LittleEndian.Uint64(data[i+8:]))
			pos = append(pos, bson.A{math.Mod(x, 200), math.Mod(y, 100)})
		}
		if len(pos) == 0 {
			return
		}
		k := int(split) % len(pos)
		ring := append(append(bson.A{}, pos...), pos[0])
		hole := append(append(bson.A{}, pos[k:]...), pos[k])
		values := []any{
			bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: pos[0]}},
			bson.D{{Key: "type", Value: "LineString"}, {Key: "coordinates", Value: pos}},
			bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{ring}}},
			bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{ring, hole}}},
			bson.D{{Key: "type", Value: "MultiPoint"}, {Key: "coordinates", Value: pos}},
			bson.D{{Key: "type", Value: "MultiPolygon"}, {Key: "coordinates", Value: bson.A{bson.A{ring}, bson.A{hole}}}},
			pos[0],
			pos,
		}
		var geoms []*Geometry
		for _, v := range values {
			g, err := Parse(v)
			if err != nil {
				continue
			}
			g.Keys()
			g.SphereDistance(Point(0, 0))
			geoms = append(geoms, g)
		}
		regions := []any{
			bson.D{{Key: "$geometry", Value: values[2]}},
			bson.D{{Key: "$geometry", Value: values[5]}},
			bson.D{{Key: "$geometry", Value: bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{ring}},
				{Key: "crs", Value: bson.D{{Key: "type", Value: "name"}, {Key: "properties", Value: bson.D{{Key: "name", Value: strictCRS}}}}}}}},
			bson.D{{Key: "$polygon", Value: pos}},
			bson.D{{Key: "$centerSphere", Value: bson.A{pos[0], float64(split) / 40}}},
			bson.D{{Key: "$box", Value: bson.A{pos[0], pos[k]}}},
		}
		for _, rv := range regions {
			r, err := ParseWithin(rv)
			if err != nil {
				continue
			}
			if c, ok := r.Covering(); ok {
				c.KeyRanges()
			}
			for _, g := range geoms {
				r.Contains(g)
			}
		}
		for _, v := range values {
			q, err := ParseGeometry(v)
			if err != nil {
				continue
			}
			q.Covering().KeyRanges()
			for _, g := range geoms {
				Intersects(q, g)
			}
		}
	})
}
