package query

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/collation"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// impliesCases are a query, a partial filter, and whether mongod's
// isSubsetOf says the query implies the filter (the cases of its
// expression_algo_test.cpp and jstests/core/index/index_partial_read_ops.js).
var impliesCases = []struct {
	query, filter string
	want          bool
}{
	// Equalities and ranges on one path.
	{`{"a": 5}`, `{"a": 5}`, true},
	{`{"a": 5}`, `{"a": 5.0}`, true},
	{`{"a": 5}`, `{"a": 6}`, false},
	{`{"a": 5}`, `{"a": {"$gte": 5}}`, true},
	{`{"a": 5}`, `{"a": {"$lte": 5}}`, true},
	{`{"a": 5}`, `{"a": {"$gt": 5}}`, false},
	{`{"a": 5}`, `{"a": {"$lt": 6}}`, true},
	{`{"a": 5}`, `{"b": {"$lt": 6}}`, false},
	{`{"a": {"$gte": 5}}`, `{"a": 5}`, false},
	{`{"a": {"$lt": 3}}`, `{"a": {"$lte": 5}}`, true},
	{`{"a": {"$lte": 5}}`, `{"a": {"$lt": 5}}`, false},
	{`{"a": {"$lt": 5}}`, `{"a": {"$lte": 5}}`, true},
	{`{"a": {"$lt": 5}}`, `{"a": {"$lt": 5}}`, true},
	{`{"a": {"$gt": 7}}`, `{"a": {"$gt": 5}}`, true},
	{`{"a": {"$gte": 5}}`, `{"a": {"$gt": 5}}`, false},
	{`{"a": {"$gt": 5}}`, `{"a": {"$gte": 5}}`, true},
	{`{"a": {"$gt": 5}}`, `{"a": {"$lt": 10}}`, false},
	{`{"a": {"$gt": 5, "$lt": 8}}`, `{"a": {"$lt": 10}}`, true},
	{`{"a": 1}`, `{"a": {"$lte": 1.5}}`, true},
	{`{"a": {"$lte": 1}}`, `{"a": {"$lte": 1.5}}`, true},
	{`{"a": {"$lt": 1.6}}`, `{"a": {"$lte": 1.5}}`, false},
	{`{"a": {"$gt": 0, "$lt": 10}}`, `{"a": {"$gte": 0}}`, true},
	{`{"a": {"$lt": 0}}`, `{"a": {"$gte": 0}}`, false},
	// Type classes: a string range says nothing of numbers.
	{`{"a": "x"}`, `{"a": {"$gt": 5}}`, false},
	{`{"a": {"$lt": "m"}}`, `{"a": {"$lte": "z"}}`, true},
	{`{"a": {"$date": "2024-01-01T00:00:00Z"}}`, `{"a": {"$gt": {"$timestamp": {"t": 1, "i": 1}}}}`, false},
	{`{"a": {"$date": "2024-01-01T00:00:00Z"}}`, `{"a": {"$gt": {"$date": "2023-01-01T00:00:00Z"}}}`, true},
	// NaN is only NaN.
	{`{"a": {"$numberDouble": "NaN"}}`, `{"a": {"$numberDouble": "NaN"}}`, true},
	{`{"a": {"$numberDouble": "NaN"}}`, `{"a": {"$gte": {"$numberDouble": "NaN"}}}`, true},
	{`{"a": {"$numberDouble": "NaN"}}`, `{"a": {"$gt": 5}}`, false},
	{`{"a": {"$gt": 5}}`, `{"a": {"$lt": {"$numberDouble": "NaN"}}}`, false},
	{`{"a": {"$lt": {"$numberDouble": "NaN"}}}`, `{"a": {"$lt": {"$numberDouble": "NaN"}}}`, false},
	// null and $exists.
	{`{"a": null}`, `{"a": {"$lte": null}}`, true},
	{`{"a": null}`, `{"a": {"$exists": true}}`, false},
	{`{"a": 1}`, `{"a": {"$exists": true}}`, true},
	{`{"a": {"$gt": 1}}`, `{"a": {"$exists": true}}`, true},
	{`{"a": {"$gt": {"$minKey": 1}}}`, `{"a": {"$exists": true}}`, false},
	{`{"a": {"$in": [1, 2]}}`, `{"a": {"$exists": true}}`, true},
	{`{"a": {"$in": [1, null]}}`, `{"a": {"$exists": true}}`, false},
	{`{"a": {"$exists": true}}`, `{"a": {"$exists": true}}`, true},
	{`{"a": {"$exists": true}}`, `{"b": {"$exists": true}}`, false},
	{`{"a": {"$type": "string"}}`, `{"a": {"$exists": true}}`, true},
	{`{"a": {"$size": 0}}`, `{"a": {"$exists": true}}`, true},
	{`{"a": {"$mod": [2, 0]}}`, `{"a": {"$exists": true}}`, true},
	{`{"a": {"$regex": "x"}}`, `{"a": {"$exists": true}}`, true},
	{`{"a": {"$elemMatch": {"$gt": 1}}}`, `{"a": {"$exists": true}}`, true},
	{`{"a": {"$ne": null}}`, `{"a": {"$exists": true}}`, true},
	{`{"a": {"$nin": [null, 1]}}`, `{"a": {"$exists": true}}`, true},
	{`{"a": {"$ne": 1}}`, `{"a": {"$exists": true}}`, false},
	{`{"a": {"$exists": false}}`, `{"a": {"$exists": true}}`, false},
	{`{"a.b": 1}`, `{"a": {"$exists": true}}`, false},
	{`{"a.b": {"$ne": null}}`, `{"a.b": {"$exists": true}}`, false},
	// $type.
	{`{"a": {"$type": "string"}}`, `{"a": {"$type": 2}}`, true},
	{`{"a": {"$type": "string"}}`, `{"a": {"$type": "int"}}`, false},
	{`{"a": "x"}`, `{"a": {"$type": "string"}}`, false},
	// $in.
	{`{"a": 3}`, `{"a": {"$in": [3, 5]}}`, true},
	{`{"a": {"$in": [3]}}`, `{"a": {"$in": [3, 5]}}`, true},
	{`{"a": {"$in": [5, 3]}}`, `{"a": {"$in": [3, 5]}}`, true},
	{`{"a": {"$in": [3, 5]}}`, `{"a": {"$in": [3, 5, 7]}}`, false},
	{`{"a": {"$lt": 6}}`, `{"a": {"$in": [3, 5]}}`, false},
	{`{"a": {"$in": [1, 2]}}`, `{"a": {"$lte": 2}}`, true},
	{`{"a": {"$in": [1, 3]}}`, `{"a": {"$lte": 2}}`, false},
	{`{"a": {"$in": [{"$regularExpression": {"pattern": "x", "options": ""}}]}}`, `{"a": {"$lte": 2}}`, false},
	// $and and $or on either side.
	{`{"a": 1, "b": 2}`, `{"a": 1}`, true},
	{`{"a": 1}`, `{"a": 1, "b": 2}`, false},
	{`{"x": 1, "a": {"$lt": 4}, "b": {"$lt": 3}}`, `{"a": {"$lt": 5}, "b": {"$lt": 5}}`, true},
	{`{"x": 7, "a": 7}`, `{"a": {"$lt": 5}, "b": {"$lt": 5}}`, false},
	{`{"$and": [{"b": 2}, {"a": 1}]}`, `{"$and": [{"a": 1}, {"b": 2}]}`, true},
	{`{"x": 4, "a": 3}`, `{"$or": [{"a": 3}, {"$and": [{"a": 5}, {"b": 5}]}]}`, true},
	{`{"x": 5, "a": 5, "b": 5}`, `{"$or": [{"a": 3}, {"$and": [{"a": 5}, {"b": 5}]}]}`, true},
	{`{"x": 2, "a": 5}`, `{"$or": [{"a": 3}, {"$and": [{"a": 5}, {"b": 5}]}]}`, false},
	{`{"$or": [{"a": 1}, {"a": 2}]}`, `{"a": {"$lte": 2}}`, true},
	{`{"$or": [{"a": 1}, {"a": 3}]}`, `{"a": {"$lte": 2}}`, false},
	{`{"$or": [{"a": 1}, {"b": 3}]}`, `{"a": {"$lte": 2}}`, false},
	{`{"a": {"$all": [1, 2]}}`, `{"a": 1}`, true},
	{`{"a": 1}`, `{"a": {"$all": [1, 2]}}`, false},
	// Anything else is not known.
	{`{}`, `{"a": 1}`, false},
	{`{"a": 1}`, `{}`, true},
	{`{"a": {"$not": {"$gt": 5}}}`, `{"a": {"$lte": 5}}`, false},
	{`{"$nor": [{"a": {"$gt": 5}}]}`, `{"a": {"$lte": 5}}`, false},
	{`{"a": {"$elemMatch": {"$gt": 1}}}`, `{"a": {"$gt": 1}}`, false},
	{`{"a": {"$geoWithin": {"$box": [[0, 0], [1, 1]]}}}`, `{"a": {"$geoWithin": {"$box": [[0, 0], [1, 1]]}}}`, false},
}

func TestImplies(t *testing.T) {
	t.Parallel()
	for _, c := range impliesCases {
		q, err := ParseFilter(D(t, c.query))
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		f, err := ParseFilter(D(t, c.filter))
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		if got := q.Implies(f); got != c.want {
			t.Errorf("%s implies %s: %v, want %v", c.query, c.filter, got, c.want)
		}
	}
}

// TestImpliesCollation: a comparison of strings implies another only
// under the same collation, as mongod's collatorsMatch rule; numbers
// compare whatever the collations.
func TestImpliesCollation(t *testing.T) {
	t.Parallel()
	ci := collation.MustParse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}})
	fr := collation.MustParse(bson.D{{Key: "locale", Value: "fr"}})
	parse := func(s string, c *collation.Collator) *Filter {
		f, err := ParseFilter(D(t, s))
		if err != nil {
			t.Fatal(err)
		}
		f, err = f.Collate(c)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, c := range []struct {
		query, filter string
		qc, fc        *collation.Collator
		want          bool
	}{
		{`{"s": "A"}`, `{"s": "a"}`, ci, ci, true},
		{`{"s": "A"}`, `{"s": "a"}`, nil, nil, false},
		{`{"s": "a"}`, `{"s": "a"}`, nil, ci, false},
		{`{"s": "a"}`, `{"s": "a"}`, ci, fr, false},
		{`{"s": "a"}`, `{"s": {"$gte": "a"}}`, ci, nil, false},
		{`{"s": {"x": "a"}}`, `{"s": {"x": "a"}}`, ci, nil, false},
		{`{"s": "a"}`, `{"s": {"$exists": true}}`, ci, nil, true},
		{`{"n": 5}`, `{"n": {"$gt": 1}}`, ci, nil, true},
		{`{"s": {"$in": ["A", "b"]}}`, `{"s": {"$in": ["a", "B"]}}`, ci, ci, true},
		{`{"s": {"$in": ["A", "b"]}}`, `{"s": {"$in": ["a", "B"]}}`, nil, nil, false},
	} {
		if got := parse(c.query, c.qc).Implies(parse(c.filter, c.fc)); got != c.want {
			t.Errorf("%s (%v) implies %s (%v): %v, want %v", c.query, c.qc != nil, c.filter, c.fc != nil, got, c.want)
		}
	}
}

// TestImpliesIsSound runs random queries and filters over random
// documents: wherever Implies says yes, every document the query
// matches, the filter matches too (a wrong yes would make the planner
// read a partial index that lacks some answers). The seed is printed so
// that a failure replays.
func TestImpliesIsSound(t *testing.T) {
	t.Parallel()
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	values := []any{nil, int32(1), int32(2), 2.5, int64(3), math.NaN(), "a", "b", true,
		bson.A{int32(1), int32(3)}, bson.A{}, bson.D{{Key: "x", Value: int32(1)}}, bson.MinKey{}, bson.MaxKey{},
		bson.DateTime(1000), bson.Null{}}
	paths := []string{"a", "b", "a.x"}
	ops := []string{"$eq", "$gt", "$gte", "$lt", "$lte", "$in", "$exists", "$type", "$ne", "$nin", "$size", "$mod", "$elemMatch", "$regex"}
	operand := func(op string) any {
		switch op {
		case "$in", "$nin":
			n := 1 + rng.Intn(3)
			a := bson.A{}
			for i := 0; i < n; i++ {
				a = append(a, values[rng.Intn(len(values))])
			}
			return a
		case "$exists":
			return rng.Intn(2) == 0
		case "$type":
			return []string{"number", "string", "array", "null", "int"}[rng.Intn(5)]
		case "$size":
			return int32(rng.Intn(3))
		case "$mod":
			return bson.A{int32(2), int32(rng.Intn(2))}
		case "$elemMatch":
			return bson.D{{Key: "$gte", Value: values[rng.Intn(len(values))]}}
		case "$regex":
			return []string{"a", "^b", "."}[rng.Intn(3)]
		}
		return values[rng.Intn(len(values))]
	}
	var cond func(depth int) bson.D
	cond = func(depth int) bson.D {
		if depth < 2 && rng.Intn(4) == 0 {
			k := "$and"
			if rng.Intn(2) == 0 {
				k = "$or"
			}
			return bson.D{{Key: k, Value: bson.A{cond(depth + 1), cond(depth + 1)}}}
		}
		op := ops[rng.Intn(len(ops))]
		return bson.D{{Key: paths[rng.Intn(len(paths))], Value: bson.D{{Key: op, Value: operand(op)}}}}
	}
	filter := func() bson.D {
		d := cond(0)
		if rng.Intn(2) == 0 {
			d = append(d, cond(0)...)
		}
		return d
	}
	docs := make([]bson.D, 300)
	for i := range docs {
		d := bson.D{}
		for _, p := range []string{"a", "b"} {
			switch rng.Intn(5) {
			case 0: // missing
			case 1:
				d = append(d, bson.E{Key: p, Value: bson.D{{Key: "x", Value: values[rng.Intn(len(values))]}}})
			case 2:
				d = append(d, bson.E{Key: p, Value: bson.A{values[rng.Intn(len(values))], bson.D{{Key: "x", Value: values[rng.Intn(len(values))]}}}})
			default:
				d = append(d, bson.E{Key: p, Value: values[rng.Intn(len(values))]})
			}
		}
		docs[i] = d
	}
	implied := 0
	for i := 0; i < 4000; i++ {
		qd, fd := filter(), filter()
		if rng.Intn(3) == 0 {
			fd = qd[:1] // often a part of the query itself
		}
		q, err1 := ParseFilter(qd)
		f, err2 := ParseFilter(fd)
		if err1 != nil || err2 != nil || !q.Implies(f) {
			continue
		}
		implied++
		for _, d := range docs {
			if q.Match(d) && !f.Match(d) {
				t.Fatalf("seed %d: %s implies %s, but %s matches only the query", seed, fmt.Sprint(qd), fmt.Sprint(fd), fmt.Sprint(d))
			}
		}
	}
	if implied < 100 {
		t.Fatalf("seed %d: only %d implications tried", seed, implied)
	}
}

// TestEquivalent: partial filters mongod holds for one (its
// MatchExpression::equivalent after normalising), so that createIndexes
// takes the second spelling as the same index.
func TestEquivalent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`{"a": {"$gt": 1}}`, `{"a": {"$gt": 1.0}}`, true},
		{`{"a": {"$gt": 1}}`, `{"a": {"$gt": {"$numberLong": "1"}}}`, true},
		{`{"a": {"$gt": 1}}`, `{"a": {"$gte": 1}}`, false},
		{`{"a": {"$gt": 1}}`, `{"a": {"$gt": "1"}}`, false},
		{`{"a": {"$gt": 1}}`, `{"b": {"$gt": 1}}`, false},
		{`{"$and": [{"a": 1}, {"b": 2}]}`, `{"$and": [{"b": 2}, {"a": 1}]}`, true},
		{`{"$and": [{"a": 1}, {"b": 2}]}`, `{"b": 2, "a": 1}`, true},
		{`{"a": 1, "b": 2}`, `{"$and": [{"a": 1}, {"$and": [{"b": 2}]}]}`, true},
		{`{"a": 1, "b": 2}`, `{"a": 1}`, false},
		{`{"a": 1, "b": 2}`, `{"a": 1, "b": 2, "c": 3}`, false},
		{`{"$and": [{"a": 1}]}`, `{"a": 1}`, true},
		{`{"$or": [{"a": 1}, {"b": 2}]}`, `{"$or": [{"b": 2}, {"a": 1.0}]}`, true},
		{`{"$or": [{"a": 1}, {"b": 2}]}`, `{"$and": [{"a": 1}, {"b": 2}]}`, false},
		{`{"a": {"$in": [1, 2]}}`, `{"a": {"$in": [2, 1, 1]}}`, true},
		{`{"a": {"$in": [1, 2]}}`, `{"a": {"$in": [1, 3]}}`, false},
		{`{"a": {"$all": [1, 2]}}`, `{"a": 2, "$and": [{"a": 1}]}`, true},
		{`{"a": {"$exists": true}}`, `{"a": {"$exists": 1}}`, true},
		{`{"a": {"$type": "string"}}`, `{"a": {"$type": 2}}`, true},
		{`{"a": {"$type": "string"}}`, `{"a": {"$type": "int"}}`, false},
		{`{"a": {"$exists": true}}`, `{"a": {"$type": "string"}}`, false},
		{`{}`, `{}`, true},
		{`{}`, `{"a": 1}`, false},
	} {
		a, err := ParseFilter(D(t, c.a))
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseFilter(D(t, c.b))
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Equivalent(b); got != c.want {
			t.Errorf("%s equivalent to %s: %v, want %v", c.a, c.b, got, c.want)
		}
		if got := b.Equivalent(a); got != c.want {
			t.Errorf("%s equivalent to %s: %v, want %v", c.b, c.a, got, c.want)
		}
	}
}
