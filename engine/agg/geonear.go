package agg

import (
	"context"
	"math"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/geo"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// GeoNear is a pipeline's leading $geoNear stage, which the engine runs
// as a find with a $near or $nearSphere (docs/geo.md, "$geoNear").
type GeoNear struct {
	// Near is the point: a legacy pair or a GeoJSON Point.
	Near any
	// DistanceField is where each document's distance goes ("": not
	// written, as mongod allows).
	DistanceField string
	// Spherical: a legacy point's distances are on the sphere, in
	// radians ($nearSphere); otherwise flat ($near). A GeoJSON point's
	// are on the sphere in meters either way.
	Spherical bool
	// MaxDistance and MinDistance bound the distance (nil: not given).
	MaxDistance, MinDistance any
	// Query is a filter the documents must also match.
	Query bson.D
	// IncludeLocs, when set, is where the location the distance was
	// measured to goes.
	IncludeLocs string
	// Multiplier multiplies the distances written (1 unless given).
	Multiplier float64
	// Key is the field whose geo index answers the stage ("": the one
	// geo index the collection has).
	Key string
	// nearExpr, when set, is near as an expression ("$$pt", a $lookup's
	// let variable): constant within one run, evaluated by Resolve.
	nearExpr Expr
}

// GeoNearFunc runs a $geoNear over collection from (the first stage of
// a $lookup's or $unionWith's pipeline), calling fn with each document
// in order.
type GeoNearFunc func(ctx context.Context, from string, g *GeoNear, fn func(bson.D) error) error

// Resolve returns g with near evaluated under env's variables when it
// is an expression (g itself otherwise).
func (g *GeoNear) Resolve(env *Env) (*GeoNear, error) {
	if g.nearExpr == nil {
		return g, nil
	}
	v, err := g.nearExpr.Eval(env)
	if err != nil {
		return nil, err
	}
	switch v.(type) {
	case bson.A, bson.D:
	default:
		return nil, document.Errorf(document.Code(16605), "$geoNear requires a 'near' option as an Array")
	}
	out := *g
	out.Near, out.nearExpr = v, nil
	return &out, nil
}

// GeoNearAt returns the pipeline's leading $geoNear with near evaluated
// under the command's let (nil if it has none).
func (p *Pipeline) GeoNearAt(now bson.DateTime) (*GeoNear, error) {
	if p.geoNear == nil {
		return nil, nil
	}
	var vals *binding
	if p.let != nil {
		vals = p.let.vals
	}
	return p.geoNear.Resolve(&Env{Now: now, vars: vals, noDoc: true})
}

// withQuery returns g with its query and filter both applied.
func (g *GeoNear) withQuery(filter bson.D) *GeoNear {
	if len(filter) == 0 {
		return g
	}
	out := *g
	if len(g.Query) == 0 {
		out.Query = filter
	} else {
		out.Query = bson.D{{Key: "$and", Value: bson.A{filter, g.Query}}}
	}
	return &out
}

// GeoNear returns the pipeline's leading $geoNear, nil if none.
func (p *Pipeline) GeoNear() *GeoNear { return p.geoNear }

// errGeoNearNotFirst is mongod's refusal of a $geoNear after the first
// stage.
var errGeoNearNotFirst = document.Errorf(document.Code(40602), "$geoNear is only valid as the first stage in a pipeline.")

// parseGeoNear reads $geoNear's options with mongod's codes; near may
// be an expression of the variables of sc (mongod 5.1).
func parseGeoNear(arg any, sc pdepth) (*GeoNear, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, document.Errorf(document.CodeFailedToParse, "$geoNear must be an object, found %s", document.TypeName(arg))
	}
	g := &GeoNear{Multiplier: 1}
	hasNear := false
	number := func(name string, v any) (float64, error) {
		f, ok := geo.Number(v)
		if !ok {
			return 0, document.Errorf(document.CodeTypeMismatch, "%s must be a number", name)
		}
		if f < 0 || math.IsNaN(f) {
			return 0, document.Errorf(document.CodeBadValue, "%s must be nonnegative", name)
		}
		return f, nil
	}
	for _, e := range d {
		switch e.Key {
		case "near":
			switch t := e.Value.(type) {
			case bson.A:
			case bson.D:
				if len(t) > 0 && strings.HasPrefix(t[0].Key, "$") {
					x, err := parseExpr(t, sc)
					if err != nil {
						return nil, err
					}
					g.nearExpr = x
				}
			case string:
				if !strings.HasPrefix(t, "$$") {
					return nil, document.Errorf(document.Code(16605), "$geoNear requires a 'near' option as an Array")
				}
				x, err := parseExpr(t, sc)
				if err != nil {
					return nil, err
				}
				g.nearExpr = x
			default:
				return nil, document.Errorf(document.Code(16605), "$geoNear requires a 'near' option as an Array")
			}
			g.Near, hasNear = e.Value, true
		case "distanceField":
			s, ok := e.Value.(string)
			if !ok {
				return nil, document.Errorf(document.Code(16606), "$geoNear requires a 'distanceField' option as a String")
			}
			g.DistanceField = s
		case "includeLocs":
			s, ok := e.Value.(string)
			if !ok {
				return nil, document.Errorf(document.Code(16607), "$geoNear requires that 'includeLocs' option is a String")
			}
			g.IncludeLocs = s
		case "spherical":
			g.Spherical = Truthy(e.Value)
		case "maxDistance", "minDistance":
			if _, err := number(e.Key, e.Value); err != nil {
				return nil, err
			}
			if e.Key == "maxDistance" {
				g.MaxDistance = e.Value
			} else {
				g.MinDistance = e.Value
			}
		case "distanceMultiplier":
			f, err := number(e.Key, e.Value)
			if err != nil {
				return nil, err
			}
			g.Multiplier = f
		case "query":
			q, ok := e.Value.(bson.D)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "query must be an object")
			}
			f, err := query.ParseFilter(q)
			if err != nil {
				return nil, err
			}
			if f.Near() != nil {
				return nil, query.ErrNearNotAllowed
			}
			g.Query = q
		case "key":
			s, ok := e.Value.(string)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "$geoNear parameter 'key' must be of type string but found type: %s", document.TypeName(e.Value))
			}
			if s == "" {
				return nil, document.Errorf(document.CodeBadValue, "$geoNear parameter 'key' cannot be the empty string")
			}
			g.Key = s
		case "limit":
			return nil, document.Errorf(document.Code(50858), "$geoNear no longer supports the 'limit' parameter. Use a $limit stage instead.")
		case "num":
			return nil, document.Errorf(document.Code(50857), "$geoNear no longer supports the 'num' parameter. Use a $limit stage instead.")
		case "start":
			return nil, document.Errorf(document.Code(50856), "$geoNear no longer supports the 'start' argument.")
		case "collation":
			return nil, document.Errorf(document.Code(40227), "$geoNear does not accept the 'collation' parameter. Instead, specify a collation for the entire aggregation command.")
		case "uniqueDocs":
		default:
			return nil, document.Errorf(document.CodeBadValue, "Unknown argument to $geoNear: %s", e.Key)
		}
	}
	if !hasNear {
		return nil, document.Errorf(document.Code(16605), "$geoNear requires a 'near' option as an Array")
	}
	return g, nil
}

// NearFilter returns the find filter the stage reads with: its query
// and a $near ($nearSphere when spherical) on key with its bounds.
func (g *GeoNear) NearFilter(key string) bson.D {
	op := "$near"
	if g.Spherical {
		op = "$nearSphere"
	}
	var cond bson.D
	if d, ok := g.Near.(bson.D); ok && !(len(d) > 0 && isNum(d[0].Value)) {
		inner := bson.D{{Key: "$geometry", Value: d}}
		if g.MaxDistance != nil {
			inner = append(inner, bson.E{Key: "$maxDistance", Value: g.MaxDistance})
		}
		if g.MinDistance != nil {
			inner = append(inner, bson.E{Key: "$minDistance", Value: g.MinDistance})
		}
		cond = bson.D{{Key: op, Value: inner}}
	} else {
		cond = bson.D{{Key: op, Value: g.Near}}
		if g.MaxDistance != nil {
			cond = append(cond, bson.E{Key: "$maxDistance", Value: g.MaxDistance})
		}
		if g.MinDistance != nil {
			cond = append(cond, bson.E{Key: "$minDistance", Value: g.MinDistance})
		}
	}
	near := bson.D{{Key: key, Value: cond}}
	if len(g.Query) == 0 {
		return near
	}
	return bson.D{{Key: "$and", Value: bson.A{g.Query, near}}}
}

// Annotate returns d with the stage's distance field (dist times the
// multiplier) and, when asked, the location measured to.
func (g *GeoNear) Annotate(d bson.D, dist float64, loc any) bson.D {
	out := d
	if g.DistanceField != "" {
		out = setPath(d, strings.Split(g.DistanceField, "."), dist*g.Multiplier)
	}
	if g.IncludeLocs != "" && loc != nil {
		out = setPath(out, strings.Split(g.IncludeLocs, "."), loc)
	}
	return out
}

func isNum(v any) bool {
	_, ok := geo.Number(v)
	return ok
}
