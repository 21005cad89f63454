package engine

import (
	"math"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/geo"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// MongoDB's codes for the rules of geospatial index specs.
const (
	codeTwoGeoFields       = document.Code(16800)
	code2DNotFirst         = document.Code(16801)
	codeGeoBits            = document.Code(16803)
	codeS2Version          = document.Code(17395)
	codeCoarsestLevel      = document.Code(16747)
	codeFinestLevel        = document.Code(16748)
	codeFinestUnderCoarse  = document.Code(16749)
	defaultS2IndexVersion  = int32(3)
	maxS2IndexVersion      = 3
	defaultGeo2DBits       = 26
	defaultGeo2DMin        = -180.0
	defaultGeo2DMax        = 180.0
	geo2DBitsMax           = 32
	finestIndexedLevelMax  = 30
	coarsestIndexedLevelLo = 0
)

// parseGeoIndex checks the geospatial fields of key pattern key (kinds:
// each geo field's type, in order) and spec's geo options, and returns
// the options the index lists (2dsphereIndexVersion 3 unless given).
// mixed says the key also has a text, wildcard or hashed field.
func parseGeoIndex(key, spec bson.D, kinds []string, mixed bool) (bson.D, error) {
	has2D, hasS2 := false, false
	for _, k := range kinds {
		if k == indexkey.Geo2D {
			if has2D {
				return nil, document.Errorf(codeTwoGeoFields, "can't have 2 geo fields")
			}
			has2D = true
		} else {
			hasS2 = true
		}
	}
	if mixed || has2D && hasS2 {
		return nil, document.Errorf(document.CodeCannotCreateIndex, "Can't use more than one index plugin for a single index: %s", fmtValue(key))
	}
	var out bson.D
	if has2D {
		if v, _ := key[0].Value.(string); v != indexkey.Geo2D {
			return nil, document.Errorf(code2DNotFirst, "2d has to be first in index")
		}
		bits, lo, hi := float64(defaultGeo2DBits), defaultGeo2DMin, defaultGeo2DMax
		for _, e := range spec {
			switch e.Key {
			case "bits", "min", "max":
				f, ok := geo.Number(e.Value)
				if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
					return nil, document.Errorf(document.CodeCannotCreateIndex, "%s in a 2d index must be a number, found %s", e.Key, fmtValue(e.Value))
				}
				switch e.Key {
				case "bits":
					bits = f
				case "min":
					lo = f
				case "max":
					hi = f
				}
				out = append(out, e)
			}
		}
		if bits < 1 || bits > geo2DBitsMax || bits != math.Trunc(bits) {
			return nil, document.Errorf(codeGeoBits, "bits in geo index must be between 1 and 32")
		}
		if !(lo < hi) {
			return nil, document.Errorf(document.CodeCannotCreateIndex, "region has to be greater than zero: min %s, max %s", fmtValue(lo), fmtValue(hi))
		}
		return out, nil
	}
	version := defaultS2IndexVersion
	finest, coarsest := float64(geo.FinestLevel), float64(geo.CoarsestLevel)
	for _, e := range spec {
		switch e.Key {
		case "2dsphereIndexVersion":
			f, ok := geo.Number(e.Value)
			if !ok || f != math.Trunc(f) || f < 1 || f > maxS2IndexVersion {
				return nil, document.Errorf(codeS2Version, "unsupported geo index version { 2dsphereIndexVersion : %s }, only support versions: [1,2,3]", fmtValue(e.Value))
			}
			version = int32(f)
		case "finestIndexedLevel", "coarsestIndexedLevel":
			f, ok := geo.Number(e.Value)
			if !ok {
				return nil, document.Errorf(document.CodeCannotCreateIndex, "%s must be a number, found %s", e.Key, fmtValue(e.Value))
			}
			if e.Key == "finestIndexedLevel" {
				finest = f
			} else {
				coarsest = f
			}
			out = append(out, e)
		}
	}
	switch {
	case finest > finestIndexedLevelMax:
		return nil, document.Errorf(codeFinestLevel, "finestIndexedLevel must be <= 30")
	case coarsest < coarsestIndexedLevelLo:
		return nil, document.Errorf(codeCoarsestLevel, "coarsestIndexedLevel must be >= 0")
	case finest < coarsest:
		return nil, document.Errorf(codeFinestUnderCoarse, "finestIndexedLevel must be >= coarsestIndexedLevel")
	}
	return append(bson.D{{Key: "2dsphereIndexVersion", Value: version}}, out...), nil
}
