package query

import (
	"math"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestBoundsExamples(t *testing.T) {
	t.Parallel()
	br := func(v any, upper bool) TypeBracket { return TypeBracket{Like: v, Upper: upper} }
	cases := []struct {
		filter    string
		path      string
		intersect bool
		want      Intervals
		ok        bool
	}{
		{`{"a": 5}`, "a", true, Intervals{point(int32(5))}, true},
		{`{"a": {"$eq": 5}}`, "a", true, Intervals{point(int32(5))}, true},
		{`{"a": 5}`, "b", true, nil, false},
		{`{"a": {"$gt": 5}}`, "a", true, Intervals{{Bound{int32(5), false}, Bound{br(int32(5), true), true}}}, true},
		{`{"a": {"$lte": "m"}}`, "a", true, Intervals{{Bound{br("m", false), true}, Bound{"m", true}}}, true},
		{`{"a": {"$gt": 1, "$lt": 9}}`, "a", true, Intervals{{Bound{int32(1), false}, Bound{int32(9), false}}}, true},
		{`{"a": {"$gt": 1, "$lt": 9}}`, "a", false, Intervals{{Bound{int32(1), false}, Bound{br(int32(1), true), true}}}, true},
		{`{"a": {"$gt": 1}, "$and": [{"a": {"$lt": 9}}]}`, "a", true, Intervals{{Bound{int32(1), false}, Bound{int32(9), false}}}, true},
		{`{"a": {"$gt": 1}, "$and": [{"a": 4}]}`, "a", false, Intervals{point(int32(4))}, true},
		{`{"a": {"$in": [3, 1, 2, 1]}}`, "a", true, Intervals{point(int32(1)), point(int32(2)), point(int32(3))}, true},
		{`{"a": {"$in": [3, 1]}, "b": 1}`, "a", true, Intervals{point(int32(1)), point(int32(3))}, true},
		{`{"a": {"$in": [1, {"$regularExpression": {"pattern": "x", "options": ""}}]}}`, "a", true, nil, false},
		{`{"a": {"$gt": 5, "$lt": 3}}`, "a", true, Intervals{}, true},
		{`{"a": {"$ne": 5}}`, "a", true, nil, false},
		{`{"a": {"$nin": [5]}}`, "a", true, nil, false},
		{`{"a": {"$not": {"$gt": 5}}}`, "a", true, nil, false},
		{`{"a": {"$exists": true}}`, "a", true, nil, false},
		{`{"a": {"$elemMatch": {"$gt": 5}}}`, "a", true, nil, false},
		{`{"$or": [{"a": 1}, {"a": 2}]}`, "a", true, nil, false},
		{`{"a": {"$gt": [1]}}`, "a", true, nil, false},
		{`{"a.0": 1}`, "a.0", true, nil, false},
		{`{"a.b": 1}`, "a.b", true, Intervals{point(int32(1))}, true},
		{`{"a": {"$gt": {"$minKey": 1}}}`, "a", true, allValues, true},
		{`{"a": {"$gt": {"$numberDouble": "NaN"}}}`, "a", true, Intervals{}, true},
		{`{"a": null}`, "a", true, nullKeys, true},
	}
	for _, c := range cases {
		f := MustParseFilter(D(t, c.filter))
		got, ok := f.Bounds(c.path, c.intersect)
		if ok != c.ok || !sameIntervals(got, c.want) {
			t.Errorf("Bounds(%s, %s, %v) = %v, %v; want %v, %v", c.filter, c.path, c.intersect, got, ok, c.want, c.ok)
		}
	}
}

func sameIntervals(a, b Intervals) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameBound(a[i].Lo, b[i].Lo) || !sameBound(a[i].Hi, b[i].Hi) {
			return false
		}
	}
	return true
}

func sameBound(a, b Bound) bool {
	return a.Inclusive == b.Inclusive && CompareBound(a.Value, b.Value) == 0 && bracketKind(a.Value) == bracketKind(b.Value)
}

func bracketKind(v any) int { _, k := boundClass(v); return k }

func TestEqualityAndRangePaths(t *testing.T) {
	t.Parallel()
	f := MustParseFilter(D(t, `{"a": 1, "b": {"$gt": 1}, "c": {"$in": [1]}, "$and": [{"d": {"$eq": 2}}], "$or": [{"e": 1}], "g": {"$ne": 1}, "a": 2}`))
	if got := f.EqualityPaths(); len(got) != 2 || got[0] != "a" || got[1] != "d" {
		t.Errorf("EqualityPaths = %v", got)
	}
	if got := f.RangePaths(); len(got) != 2 || got[0] != "b" || got[1] != "c" {
		t.Errorf("RangePaths = %v", got)
	}
}

// indexKeys returns the keys a multikey index on parts holds for d: each
// value the path reaches, arrays expanded into their elements, null for a
// missing value and undefined for an empty array.
func indexKeys(d bson.D, parts []string) []any {
	var keys []any
	for _, it := range collect(d, parts, false, nil) {
		if !it.present {
			keys = append(keys, nil)
			continue
		}
		if a, ok := it.v.(bson.A); ok {
			if len(a) == 0 {
				keys = append(keys, bson.Undefined{})
			}
			for _, e := range a {
				keys = append(keys, e)
			}
			continue
		}
		keys = append(keys, it.v)
	}
	return keys
}

func randomScalar(r *rand.Rand) any {
	switch r.Intn(14) {
	case 0:
		return int32(r.Intn(7) - 3)
	case 1:
		return int64(r.Intn(7) - 3)
	case 2:
		return float64(r.Intn(13)-6) / 2
	case 3:
		return math.NaN()
	case 4:
		return []string{"", "a", "b", "ab", "z"}[r.Intn(5)]
	case 5:
		return nil
	case 6:
		return bson.Undefined{}
	case 7:
		return r.Intn(2) == 0
	case 8:
		return bson.DateTime(int64(r.Intn(5)) * 1000)
	case 9:
		return bson.MinKey{}
	case 10:
		return bson.MaxKey{}
	case 11:
		return bson.D{{Key: "x", Value: int32(r.Intn(3))}}
	case 12:
		return math.Inf(r.Intn(2)*2 - 1)
	}
	d, _ := bson.ParseDecimal128(strconv.Itoa(r.Intn(7) - 3))
	return d
}

func randomValue(r *rand.Rand, depth int) any {
	if depth < 2 && r.Intn(3) == 0 {
		n := r.Intn(4)
		a := bson.A{}
		for i := 0; i < n; i++ {
			a = append(a, randomValue(r, depth+1))
		}
		return a
	}
	if depth < 2 && r.Intn(6) == 0 {
		return bson.D{{Key: "b", Value: randomValue(r, depth+1)}}
	}
	return randomScalar(r)
}

func randomDoc(r *rand.Rand) bson.D {
	d := bson.D{}
	if r.Intn(8) != 0 {
		d = append(d, bson.E{Key: "a", Value: randomValue(r, 0)})
	}
	return d
}

func randomPredicate(r *rand.Rand) any {
	ops := []string{"$eq", "$gt", "$gte", "$lt", "$lte", "$in", "$ne"}
	op := ops[r.Intn(len(ops))]
	var v any = randomValue(r, 1)
	if op == "$in" {
		a := bson.A{}
		for i := r.Intn(3); i >= 0; i-- {
			a = append(a, randomValue(r, 1))
		}
		v = a
	}
	if op == "$eq" && r.Intn(2) == 0 {
		return v // implicit equality
	}
	return bson.D{{Key: op, Value: v}}
}

func randomFilter(r *rand.Rand, path string) bson.D {
	f := bson.D{{Key: path, Value: randomPredicate(r)}}
	if r.Intn(2) == 0 {
		f = append(f, bson.E{Key: "$and", Value: bson.A{bson.D{{Key: path, Value: randomPredicate(r)}}}})
	}
	return f
}

// TestBoundsSuperset checks the Bounds contract on random filters and
// documents: every matching document has a key for the path inside the
// bounds (multikey, intersect=false), and with intersect=true every
// matching document whose path holds no array does too.
func TestBoundsSuperset(t *testing.T) {
	t.Parallel()
	seed := time.Now().UnixNano()
	if s := os.Getenv("TTLKV_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (set TTLKV_SEED to replay)", seed)
	r := rand.New(rand.NewSource(seed))
	rounds := 3000
	if os.Getenv("TTLKV_LONG") != "" {
		rounds = 100000
	}
	for i := 0; i < rounds; i++ {
		path := []string{"a", "a.b"}[r.Intn(2)]
		parts, _ := splitPath(path)
		fd := randomFilter(r, path)
		f, err := ParseFilter(fd)
		if err != nil {
			continue
		}
		for _, intersect := range []bool{false, true} {
			iv, ok := f.Bounds(path, intersect)
			if !ok {
				continue
			}
			for j := 0; j < 20; j++ {
				d := randomDoc(r)
				if !f.Match(d) {
					continue
				}
				keys := indexKeys(d, parts)
				if intersect && hasArrayOnPath(d, parts) {
					continue
				}
				found := false
				for _, k := range keys {
					if iv.Contains(k) {
						found = true
						break
					}
				}
				if !found {
					t.Fatalf("seed %d: filter %s (intersect=%v) matches %s with keys %v outside bounds %v",
						seed, js(fd), intersect, js(d), keys, iv)
				}
			}
		}
	}
}

func hasArrayOnPath(d bson.D, parts []string) bool {
	var v any = d
	for _, p := range parts {
		switch t := v.(type) {
		case bson.D:
			fv, ok := getField(t, p)
			if !ok {
				return false
			}
			if _, isArr := fv.(bson.A); isArr {
				return true
			}
			v = fv
		default:
			return false
		}
	}
	return false
}

func TestNormalizeAndIntersect(t *testing.T) {
	t.Parallel()
	iv := normalize(Intervals{point(int32(3)), {Bound{int32(1), true}, Bound{int32(3), false}}, point(int32(1))})
	if len(iv) != 1 || !sameBound(iv[0].Lo, Bound{int32(1), true}) || !sameBound(iv[0].Hi, Bound{int32(3), true}) {
		t.Errorf("normalize: %v", iv)
	}
	x := intersectIntervals(Intervals{{Bound{int32(1), true}, Bound{int32(5), true}}}, Intervals{{Bound{int32(5), true}, Bound{int32(9), true}}})
	if len(x) != 1 || !sameBound(x[0].Lo, Bound{int32(5), true}) || !sameBound(x[0].Hi, Bound{int32(5), true}) {
		t.Errorf("intersect: %v", x)
	}
	if x := intersectIntervals(Intervals{{Bound{int32(1), true}, Bound{int32(5), false}}}, Intervals{{Bound{int32(5), true}, Bound{int32(9), true}}}); len(x) != 0 {
		t.Errorf("intersect disjoint: %v", x)
	}
	if !(Intervals{{Bound{TypeBracket{Like: 0.0}, true}, Bound{TypeBracket{Like: 0.0, Upper: true}, true}}}).Contains(math.Inf(1)) {
		t.Errorf("number bracket does not contain +Inf")
	}
	if (Intervals{{Bound{TypeBracket{Like: 0.0}, true}, Bound{TypeBracket{Like: 0.0, Upper: true}, true}}}).Contains("x") {
		t.Errorf("number bracket contains a string")
	}
}
