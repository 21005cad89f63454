package query

import (
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine/geo"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// fuzzDocs are documents every fuzzed filter and update is run against.
var fuzzDocs = []string{
	`{}`,
	`{"_id": 1, "a": 1, "b": "x"}`,
	`{"_id": 2, "a": [1, [2], {"b": 3}], "c": {"d": null}}`,
	`{"_id": 3, "a": {"b": [{"c": 1}, 2]}, "x": {"$numberDecimal": "1.5"}}`,
	`{"_id": {"k": 1}, "a": [], "n": {"$numberDouble": "NaN"}, "t": {"$date": "2024-01-01T00:00:00Z"}}`,
	`{"_id": 4, "a": {"type": "Polygon", "coordinates": [[[0, 0], [3, 0], [3, 3], [0, 0]]]}, "b": [[1, 2], {"x": 3, "y": 4}], "c": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}`,
}

var filterSeeds = []string{
	`{"a": 1}`,
	`{"$or": [{"$alwaysTrue": 1}, {"$alwaysFalse": 1.0}], "$sampleRate": 0.5}`,
	`{"$jsonSchema": {"bsonType": "object", "required": ["a"], "properties": {"a": {"bsonType": ["int", "string"], "minimum": 1, "maxLength": 3, "enum": [1, "x"]}}, "additionalProperties": false}}`,
	`{"$jsonSchema": {"properties": {"a": {"items": [{"type": "number"}], "additionalItems": {"uniqueItems": true}, "minItems": 1}}, "patternProperties": {"^b": {"multipleOf": 2}}, "dependencies": {"a": ["b"], "b": {"not": {"required": ["c"]}}}}}`,
	`{"$or": [{"$jsonSchema": {"anyOf": [{"required": ["a"]}, {"oneOf": [{"allOf": [{"pattern": "^x"}]}]}]}}, {"a": 1}]}`,
	`{"a": {"$gt": 1, "$lt": 5}}`,
	`{"a.b": {"$in": [1, null, {"$regularExpression": {"pattern": "^x", "options": "i"}}]}}`,
	`{"$or": [{"a": {"$exists": false}}, {"a": {"$type": ["array", "number"]}}]}`,
	`{"a": {"$elemMatch": {"b": {"$gte": 1}, "$or": [{"c": 1}]}}}`,
	`{"a": {"$all": [{"$elemMatch": {"$gt": 0}}]}, "b": {"$size": 2}}`,
	`{"a": {"$not": {"$regex": "x", "$options": "smx"}}, "b": {"$mod": [3, 1]}}`,
	`{"$nor": [{"a": {"$ne": null}}], "$and": [{"b": {"$nin": [[], 2]}}], "$comment": "c"}`,
	`{"a": {"$bitsAllSet": [1, 70]}, "b": {"$bitsAnyClear": {"$binary": {"base64": "Mg==", "subType": "00"}}}}`,
	`{"$text": {"$search": "a -b \"c d\"", "$language": "fr"}, "a.$": 1, "s": {"$meta": "textScore"}}`,
	`{"$or": [{"$text": {"$search": "x"}}, {"a": 1}]}`,
	`{"a": {"$geoWithin": {"$box": [[0, 0], [5, 5]]}}, "b": {"$within": {"$polygon": [[0, 0], [9, 0], [9, 9]]}}, "c": {"$geoWithin": {"$center": [[0, 0], 2]}}}`,
	`{"a": {"$geoWithin": {"$centerSphere": [[0, 0], 0.1]}}, "b": {"$geoIntersects": {"$geometry": {"type": "MultiPolygon", "coordinates": [[[[0, 0], [2, 0], [2, 2], [0, 0]]]]}}}}`,
	`{"a": {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [[[0, 0], [0, 9], [9, 9], [9, 0], [0, 0]]], "crs": {"type": "name", "properties": {"name": "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}}}}`,
	`{"b": {"$near": [1, 1, 5], "$minDistance": 0.5}, "c": {"$geoIntersects": {"$geometry": {"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinates": [1, 1]}]}}}}`,
	`{"a": {"$nearSphere": {"$geometry": {"type": "Point", "coordinates": [1, 2]}, "$maxDistance": 1000}}}`,
}

var updateSeeds = []string{
	`{"$set": {"a.b": 1}, "$inc": {"n": 2}}`,
	`{"$push": {"a": {"$each": [3, 1], "$sort": 1, "$slice": -1, "$position": 0}}}`,
	`{"$addToSet": {"a": {"$each": [1, 2]}}, "$pull": {"c": {"$gt": 1}}, "$pop": {"d": -1}}`,
	`{"$rename": {"a": "z"}, "$unset": {"b": ""}, "$currentDate": {"t": {"$type": "timestamp"}}}`,
	`{"$min": {"a": 0}, "$max": {"b": "y"}, "$mul": {"x": 2}, "$setOnInsert": {"s": 1}, "$pullAll": {"q": [1]}}`,
	`{"b": 2, "c": [1, {"d": 3}]}`,
	`{"$set": {"a.3.b": [1]}}`,
	`{"$set": {"a.$": 1}, "$bit": {"n": {"and": 5, "xor": 3}}}`,
	`{"$inc": {"a.$[].b.$[]": 1}, "$unset": {"c.$[]": 1}}`,
	`{"$set": {"a.$[i]": 2, "a.$[j].b": 3, "x.$": 1}}`,
}

func addSeeds(f *testing.F, seeds []string) {
	for _, s := range seeds {
		var d bson.D
		if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
			f.Fatalf("seed %s: %v", s, err)
		}
		b, err := bson.Marshal(d)
		if err != nil {
			f.Fatalf("seed %s: %v", s, err)
		}
		f.Add(b)
	}
}

func fuzzTargets(t *testing.T) []bson.D {
	out := make([]bson.D, 0, len(fuzzDocs))
	for _, s := range fuzzDocs {
		out = append(out, D(t, s))
	}
	return out
}

// FuzzParseFilter parses arbitrary BSON documents as filters (and as
// projections and sorts) and runs what parses against sample documents;
// nothing may panic.
func FuzzParseFilter(f *testing.F) {
	addSeeds(f, filterSeeds)
	f.Fuzz(func(t *testing.T, data []byte) {
		var d bson.D
		if err := bson.Unmarshal(data, &d); err != nil {
			return
		}
		docs := fuzzTargets(t)
		if flt, err := ParseFilter(d); err == nil {
			for _, x := range docs {
				flt.Match(x)
			}
			flt.Match(d)
			for _, e := range d {
				flt.Bounds(e.Key, true)
				flt.Bounds(e.Key, false)
			}
			flt.EqualityPaths()
			flt.RangePaths()
			for _, path := range flt.GeoPaths() {
				if c, ok := flt.GeoCells(path); ok {
					c.KeyRanges()
				}
			}
			if n := flt.Near(); n != nil {
				if c, ok := flt.GeoCells(n.Path); ok {
					c.KeyRanges()
				}
				for _, x := range docs {
					n.Distance(x)
					n.Location(x)
				}
			}
		}
		for _, e := range d {
			// Each value as a stored geometry, and its index keys.
			if g, err := geo.Parse(e.Value); err == nil {
				g.Keys()
				g.SphereDistance(geo.Point(1, 2))
			}
		}
		if p, err := ParseProjection(d); err == nil {
			for _, x := range docs {
				p.Apply(x)
			}
		}
		if s, err := ParseSort(d); err == nil {
			for _, x := range docs {
				s.Compare(x, d)
			}
		}
	})
}

// FuzzParseUpdate parses arbitrary BSON documents as updates and applies
// what parses to sample documents and as an upsert; nothing may panic,
// and Apply must never modify its input.
func FuzzParseUpdate(f *testing.F) {
	addSeeds(f, updateSeeds)
	f.Fuzz(func(t *testing.T, data []byte) {
		var d bson.D
		if err := bson.Unmarshal(data, &d); err != nil {
			return
		}
		o := UpdateOptions{Now: time.Unix(1700000000, 0)}
		// With array filters and the positional $ placed by a query.
		if uf, err := ParseUpdateWith(d, bson.A{bson.D{{Key: "i", Value: int32(1)}}, bson.D{{Key: "j.b", Value: bson.D{{Key: "$gt", Value: int32(0)}}}}}); err == nil {
			uf = uf.WithQuery(MustParseFilter(bson.D{{Key: "a", Value: int32(1)}}))
			for _, x := range fuzzTargets(t) {
				before := js(x)
				_, _ = uf.Apply(x, o)
				if js(x) != before {
					t.Fatalf("Apply modified its input: %s -> %s", before, js(x))
				}
			}
		}
		u, err := ParseUpdate(d)
		if err != nil {
			return
		}
		for _, x := range fuzzTargets(t) {
			before := js(x)
			_, _ = u.Apply(x, o)
			if js(x) != before {
				t.Fatalf("Apply modified its input: %s -> %s", before, js(x))
			}
			_, _ = u.Upsert(x, o)
		}
	})
}
