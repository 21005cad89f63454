package query

import (
	"testing"
)

type matchCase struct {
	filter string
	doc    string
	want   bool
}

func runMatchCases(t *testing.T, cases []matchCase) {
	t.Helper()
	for _, c := range cases {
		f, err := ParseFilter(D(t, c.filter))
		if err != nil {
			t.Errorf("ParseFilter(%s): %v", c.filter, err)
			continue
		}
		if got := f.Match(D(t, c.doc)); got != c.want {
			t.Errorf("filter %s on %s: got %v, want %v", c.filter, c.doc, got, c.want)
		}
	}
}

func TestMatchEquality(t *testing.T) {
	t.Parallel()
	runMatchCases(t, []matchCase{
		{`{}`, `{"a": 1}`, true},
		{`{"a": 5}`, `{"a": 5}`, true},
		{`{"a": 5}`, `{"a": 5.0}`, true},
		{`{"a": 5}`, `{"a": {"$numberLong": "5"}}`, true},
		{`{"a": 5}`, `{"a": {"$numberDecimal": "5.0"}}`, true},
		{`{"a": 5}`, `{"a": "5"}`, false},
		{`{"a": 5}`, `{"b": 5}`, false},
		// implicit equality against arrays
		{`{"a": 5}`, `{"a": [5, 7]}`, true},
		{`{"a": 5}`, `{"a": [4, 7]}`, false},
		{`{"a": 5}`, `{"a": [[5], 7]}`, false},
		{`{"a": [5]}`, `{"a": [5]}`, true},
		{`{"a": [5]}`, `{"a": [[5], 1]}`, true},
		{`{"a": [5]}`, `{"a": [5, 1]}`, false},
		{`{"a": [5]}`, `{"a": 5}`, false},
		{`{"a": []}`, `{"a": []}`, true},
		{`{"a": []}`, `{"a": [[]]}`, true},
		{`{"a": []}`, `{"a": [1]}`, false},
		// documents compare whole and in field order
		{`{"a": {"b": 1, "c": 2}}`, `{"a": {"b": 1, "c": 2}}`, true},
		{`{"a": {"b": 1, "c": 2}}`, `{"a": {"c": 2, "b": 1}}`, false},
		{`{"a": {"b": 1}}`, `{"a": [{"b": 1}]}`, true},
		{`{"a": {"$eq": {"b": 1}}}`, `{"a": {"b": 1}}`, true},
		{`{"a": {"$eq": 5}}`, `{"a": [1, 5]}`, true},
		// dotted paths
		{`{"a.b": 1}`, `{"a": {"b": 1}}`, true},
		{`{"a.b": 1}`, `{"a": [{"b": 1}, {"b": 2}]}`, true},
		{`{"a.b": 2}`, `{"a": [{"b": 1}, {"b": 2}]}`, true},
		{`{"a.b": 3}`, `{"a": [{"b": 1}, {"b": 2}]}`, false},
		{`{"a.b": 1}`, `{"a": [[{"b": 1}]]}`, false},
		{`{"a.b": 1}`, `{"a": [{"b": [0, 1]}]}`, true},
		{`{"a.b.c": 1}`, `{"a": [{"b": [{"c": 1}]}]}`, true},
		{`{"a.b": 1}`, `{"a": 1}`, false},
		// numeric components
		{`{"a.0": 5}`, `{"a": [5, 6]}`, true},
		{`{"a.1": 5}`, `{"a": [5, 6]}`, false},
		{`{"a.0.b": 1}`, `{"a": [{"b": 1}, {"b": 2}]}`, true},
		{`{"a.1.b": 1}`, `{"a": [{"b": 1}, {"b": 2}]}`, false},
		{`{"a.0": 5}`, `{"a": [{"0": 5}]}`, true},
		{`{"a.0": 5}`, `{"a": {"0": 5}}`, true},
		{`{"a.0": 5}`, `{"a": [[5]]}`, true},
		{`{"a.0.0": 5}`, `{"a": [[5]]}`, true},
		{`{"a.00": 5}`, `{"a": [5]}`, false},
		// null and missing, with mongod 7.0's semantics: undefined equals null
		// (8.0 changed that), and a dotted path through an array of
		// scalars or arrays reaches nothing (9.0 changed that)
		{`{"a": null}`, `{}`, true},
		{`{"a": null}`, `{"a": null}`, true},
		{`{"a": null}`, `{"a": {"$undefined": true}}`, true},
		{`{"a": null}`, `{"a": [1, null]}`, true},
		{`{"a": null}`, `{"a": []}`, false},
		{`{"a": null}`, `{"a": [[]]}`, false},
		{`{"a": null}`, `{"a": 0}`, false},
		{`{"a.b": null}`, `{"a": 4}`, true},
		{`{"a.b": null}`, `{"a": {}}`, true},
		{`{"a.b": null}`, `{"a": {"b": "hi"}}`, false},
		{`{"a.b": null}`, `{"a": {"b": {"$undefined": true}}}`, true},
		{`{"a.b": null}`, `{"a": []}`, false},
		{`{"a.b": null}`, `{"a": [[]]}`, false},
		{`{"a.b": null}`, `{"a": [1, "string", 4]}`, false},
		{`{"a.b": null}`, `{"a": [{"b": 1}, {"b": 3}]}`, false},
		{`{"a.b": null}`, `{"a": [{"b": 3}, {}]}`, true},
		{`{"a.b": null}`, `{"a": [{"b": {"$undefined": true}}, {"b": 3}]}`, true},
		{`{"a": {"$in": [null, 4]}}`, `{}`, true},
		{`{"a": {"$in": [null, 4]}}`, `{"a": 4}`, true},
		{`{"a": {"$in": [null, 4]}}`, `{"a": {"$undefined": true}}`, true},
		// NaN
		{`{"a": {"$numberDouble": "NaN"}}`, `{"a": {"$numberDouble": "NaN"}}`, true},
		{`{"a": {"$numberDouble": "NaN"}}`, `{"a": {"$numberDecimal": "NaN"}}`, true},
		{`{"a": {"$numberDouble": "NaN"}}`, `{"a": 1}`, false},
		{`{"a": 1}`, `{"a": {"$numberDouble": "NaN"}}`, false},
		{`{"a": {"$in": [{"$numberDecimal": "NaN"}, 1000]}}`, `{"a": {"$numberDouble": "NaN"}}`, true},
		// regex literal equality
		{`{"a": {"$regularExpression": {"pattern": "^x", "options": ""}}}`, `{"a": "xyz"}`, true},
		{`{"a": {"$regularExpression": {"pattern": "^x", "options": ""}}}`, `{"a": "yx"}`, false},
		{`{"a": {"$regularExpression": {"pattern": "^x", "options": ""}}}`, `{"a": {"$regularExpression": {"pattern": "^x", "options": ""}}}`, true},
		{`{"a": {"$regularExpression": {"pattern": "^x", "options": ""}}}`, `{"a": ["q", "xa"]}`, true},
		{`{"a": {"$eq": {"$regularExpression": {"pattern": "^x", "options": ""}}}}`, `{"a": "xyz"}`, false},
		{`{"a": {"$eq": {"$regularExpression": {"pattern": "^x", "options": ""}}}}`, `{"a": {"$regularExpression": {"pattern": "^x", "options": ""}}}`, true},
		// other types
		{`{"a": true}`, `{"a": true}`, true},
		{`{"a": true}`, `{"a": 1}`, false},
		{`{"a": {"$date": "2024-01-01T00:00:00Z"}}`, `{"a": {"$date": "2024-01-01T00:00:00Z"}}`, true},
		{`{"a": {"$oid": "000000000000000000000001"}}`, `{"a": {"$oid": "000000000000000000000001"}}`, true},
		{`{"": 1}`, `{"": 1}`, true},
	})
}

func TestMatchNegations(t *testing.T) {
	t.Parallel()
	runMatchCases(t, []matchCase{
		{`{"a": {"$ne": 5}}`, `{"a": 4}`, true},
		{`{"a": {"$ne": 5}}`, `{"a": 5}`, false},
		{`{"a": {"$ne": 5}}`, `{}`, true},
		{`{"a": {"$ne": 5}}`, `{"a": [4, 5]}`, false},
		{`{"a": {"$ne": 5}}`, `{"a": [4, 6]}`, true},
		{`{"a": {"$ne": null}}`, `{}`, false},
		{`{"a": {"$ne": null}}`, `{"a": {"$undefined": true}}`, false},
		{`{"a": {"$ne": null}}`, `{"a": []}`, true},
		{`{"a": {"$ne": null}}`, `{"a": [1, null]}`, false},
		{`{"a.b": {"$ne": null}}`, `{"a": [{"b": 1}, {"b": 3}]}`, true},
		{`{"a.b": {"$ne": null}}`, `{"a": [{"b": 3}, {}]}`, false},
		{`{"a.b": {"$ne": 1}}`, `{"a": [{"b": 1}, {"b": 2}]}`, false},
		{`{"a": {"$nin": [1, 2]}}`, `{"a": 3}`, true},
		{`{"a": {"$nin": [1, 2]}}`, `{"a": [3, 2]}`, false},
		{`{"a": {"$nin": [1, 2]}}`, `{}`, true},
		{`{"a": {"$nin": [null, []]}}`, `{"a": []}`, false},
		{`{"a": {"$nin": [null, []]}}`, `{"a": [[]]}`, false},
		{`{"a": {"$nin": [null, []]}}`, `{"a": {"$undefined": true}}`, false},
		{`{"a": {"$nin": []}}`, `{"a": 1}`, true},
		{`{"a": {"$in": []}}`, `{"a": 1}`, false},
		{`{"a": {"$not": {"$gt": 5}}}`, `{"a": 3}`, true},
		{`{"a": {"$not": {"$gt": 5}}}`, `{"a": 6}`, false},
		{`{"a": {"$not": {"$gt": 5}}}`, `{"a": "x"}`, true},
		{`{"a": {"$not": {"$gt": 5}}}`, `{}`, true},
		{`{"a": {"$not": {"$gte": null}}}`, `{"a": {"$undefined": true}}`, false},
		{`{"a": {"$not": {"$gte": null}}}`, `{}`, false},
		{`{"a": {"$not": {"$regularExpression": {"pattern": "^x", "options": ""}}}}`, `{"a": "y"}`, true},
		{`{"a": {"$not": {"$regularExpression": {"pattern": "^x", "options": ""}}}}`, `{"a": "xy"}`, false},
		{`{"a": {"$not": {"$regex": "^x"}}}`, `{"a": "xy"}`, false},
		{`{"a": {"$not": {"$gt": 1, "$lt": 5}}}`, `{"a": 3}`, false},
		{`{"a": {"$not": {"$gt": 1, "$lt": 5}}}`, `{"a": 7}`, true},
		{`{"a": {"$ne": {"$numberDouble": "NaN"}}}`, `{"a": {"$numberDouble": "NaN"}}`, false},
		{`{"a": {"$ne": {"$numberDouble": "NaN"}}}`, `{"a": 1}`, true},
	})
}

func TestMatchComparisons(t *testing.T) {
	t.Parallel()
	runMatchCases(t, []matchCase{
		{`{"a": {"$gt": 5}}`, `{"a": 6}`, true},
		{`{"a": {"$gt": 5}}`, `{"a": 5}`, false},
		{`{"a": {"$gte": 5}}`, `{"a": 5}`, true},
		{`{"a": {"$gt": 5}}`, `{"a": 5.5}`, true},
		{`{"a": {"$gt": 5}}`, `{"a": {"$numberLong": "6"}}`, true},
		{`{"a": {"$gt": 5}}`, `{"a": {"$numberDecimal": "5.01"}}`, true},
		{`{"a": {"$lt": 5}}`, `{"a": 4}`, true},
		{`{"a": {"$lte": 5}}`, `{"a": 5}`, true},
		{`{"a": {"$lt": 5}}`, `{"a": 5}`, false},
		// type bracketing
		{`{"a": {"$gt": 5}}`, `{"a": "x"}`, false},
		{`{"a": {"$lt": "x"}}`, `{"a": 5}`, false},
		{`{"a": {"$gt": 5}}`, `{"a": {"b": 10}}`, false},
		{`{"a": {"$gt": 5}}`, `{"a": true}`, false},
		{`{"a": {"$lt": 5}}`, `{"a": null}`, false},
		{`{"a": {"$lt": 5}}`, `{}`, false},
		{`{"a": {"$gt": "a"}}`, `{"a": "b"}`, true},
		{`{"a": {"$gt": "b"}}`, `{"a": "a"}`, false},
		{`{"a": {"$gt": {"$date": "2024-01-01T00:00:00Z"}}}`, `{"a": {"$date": "2024-06-01T00:00:00Z"}}`, true},
		{`{"a": {"$gt": {"$date": "2024-01-01T00:00:00Z"}}}`, `{"a": 1e20}`, false},
		// MinKey / MaxKey operands span every type
		{`{"a": {"$gt": {"$minKey": 1}}}`, `{"a": "x"}`, true},
		{`{"a": {"$gt": {"$minKey": 1}}}`, `{"a": {"b": 1}}`, true},
		{`{"a": {"$gt": {"$minKey": 1}}}`, `{}`, true},
		{`{"a": {"$gt": {"$minKey": 1}}}`, `{"a": {"$minKey": 1}}`, false},
		{`{"a": {"$lt": {"$maxKey": 1}}}`, `{"a": 5}`, true},
		{`{"a": {"$lt": {"$maxKey": 1}}}`, `{"a": {"$maxKey": 1}}`, false},
		{`{"a": {"$lte": {"$maxKey": 1}}}`, `{"a": {"$maxKey": 1}}`, true},
		{`{"a": {"$gt": {"$maxKey": 1}}}`, `{"a": 5}`, false},
		// null and missing
		{`{"a": {"$gte": null}}`, `{}`, true},
		{`{"a": {"$lte": null}}`, `{"a": null}`, true},
		{`{"a": {"$gt": null}}`, `{"a": null}`, false},
		{`{"a": {"$gte": null}}`, `{"a": {"$undefined": true}}`, true},
		// arrays: any element, or the array as a whole
		{`{"a": {"$gt": 5}}`, `{"a": [1, 7]}`, true},
		{`{"a": {"$gt": 5}}`, `{"a": [1, 2]}`, false},
		{`{"a": {"$gt": 5, "$lt": 3}}`, `{"a": [1, 7]}`, true},
		{`{"a": {"$gt": [1]}}`, `{"a": [1, 2]}`, true},
		{`{"a": {"$gt": [1]}}`, `{"a": [[2]]}`, true},
		{`{"a": {"$lt": [5]}}`, `{"a": 1}`, false},
		{`{"a.b": {"$gt": 1}}`, `{"a": [{"b": 0}, {"b": 2}]}`, true},
		// NaN
		{`{"a": {"$lt": {"$numberDouble": "NaN"}}}`, `{"a": {"$numberDouble": "NaN"}}`, false},
		{`{"a": {"$lte": {"$numberDouble": "NaN"}}}`, `{"a": {"$numberDouble": "NaN"}}`, true},
		{`{"a": {"$gte": {"$numberDouble": "NaN"}}}`, `{"a": {"$numberDouble": "NaN"}}`, true},
		{`{"a": {"$gt": {"$numberDouble": "NaN"}}}`, `{"a": 5}`, false},
		{`{"a": {"$lt": {"$numberDouble": "NaN"}}}`, `{"a": 5}`, false},
		{`{"a": {"$lt": 1}}`, `{"a": {"$numberDouble": "NaN"}}`, false},
		{`{"a": {"$gt": 1}}`, `{"a": {"$numberDouble": "NaN"}}`, false},
		{`{"a": {"$gt": 1}}`, `{"a": {"$numberDouble": "Infinity"}}`, true},
		{`{"a": {"$lt": 1}}`, `{"a": {"$numberDouble": "-Infinity"}}`, true},
	})
}

func TestMatchLogical(t *testing.T) {
	t.Parallel()
	runMatchCases(t, []matchCase{
		{`{"a": 1, "b": 2}`, `{"a": 1, "b": 2}`, true},
		{`{"a": 1, "b": 2}`, `{"a": 1, "b": 3}`, false},
		{`{"$and": [{"a": 1}, {"b": 2}]}`, `{"a": 1, "b": 2}`, true},
		{`{"$and": [{"a": 1}, {"b": 2}]}`, `{"a": 1}`, false},
		{`{"$or": [{"a": 1}, {"b": 2}]}`, `{"b": 2}`, true},
		{`{"$or": [{"a": 1}, {"b": 2}]}`, `{"b": 3}`, false},
		{`{"$nor": [{"a": 1}, {"b": 2}]}`, `{"b": 3}`, true},
		{`{"$nor": [{"a": 1}, {"b": 2}]}`, `{"a": 1}`, false},
		{`{"$or": [{"$and": [{"a": 1}, {"b": 1}]}, {"c": 1}]}`, `{"a": 1, "b": 1}`, true},
		{`{"a": 1, "$comment": "hello"}`, `{"a": 1}`, true},
		{`{"a": {"$eq": 1, "$comment": "x"}}`, `{"a": 1}`, true},
	})
}

func TestMatchExistsType(t *testing.T) {
	t.Parallel()
	runMatchCases(t, []matchCase{
		{`{"a": {"$exists": true}}`, `{"a": null}`, true},
		{`{"a": {"$exists": true}}`, `{}`, false},
		{`{"a": {"$exists": false}}`, `{}`, true},
		{`{"a": {"$exists": false}}`, `{"a": null}`, false},
		{`{"a": {"$exists": 0}}`, `{}`, true},
		{`{"a": {"$exists": 1}}`, `{"a": 1}`, true},
		{`{"a.b": {"$exists": false}}`, `{"a": [1, 2]}`, true},
		{`{"a.b": {"$exists": false}}`, `{"a": [{"b": 1}, {}]}`, false},
		{`{"a.b": {"$exists": true}}`, `{"a": [{"c": 1}, {"b": null}]}`, true},
		{`{"a.b": {"$exists": false}}`, `{"a": 4}`, true},
		{`{"a": {"$type": "string"}}`, `{"a": "x"}`, true},
		{`{"a": {"$type": 2}}`, `{"a": "x"}`, true},
		{`{"a": {"$type": 2.0}}`, `{"a": "x"}`, true},
		{`{"a": {"$type": "string"}}`, `{"a": 1}`, false},
		{`{"a": {"$type": "number"}}`, `{"a": 1}`, true},
		{`{"a": {"$type": "number"}}`, `{"a": {"$numberDecimal": "1"}}`, true},
		{`{"a": {"$type": "int"}}`, `{"a": {"$numberLong": "1"}}`, false},
		{`{"a": {"$type": "long"}}`, `{"a": {"$numberLong": "1"}}`, true},
		{`{"a": {"$type": "double"}}`, `{"a": 1.5}`, true},
		{`{"a": {"$type": ["string", "int"]}}`, `{"a": 1}`, true},
		{`{"a": {"$type": ["string", "bool"]}}`, `{"a": 1}`, false},
		{`{"a": {"$type": "array"}}`, `{"a": []}`, true},
		{`{"a": {"$type": "array"}}`, `{"a": [1]}`, true},
		{`{"a": {"$type": "array"}}`, `{"a": 1}`, false},
		{`{"a": {"$type": "int"}}`, `{"a": ["x", 1]}`, true},
		{`{"a": {"$type": "null"}}`, `{"a": null}`, true},
		{`{"a": {"$type": "null"}}`, `{}`, false},
		{`{"a": {"$type": "undefined"}}`, `{"a": {"$undefined": true}}`, true},
		{`{"a": {"$type": "object"}}`, `{"a": {"b": 1}}`, true},
		{`{"a": {"$type": "minKey"}}`, `{"a": {"$minKey": 1}}`, true},
		{`{"a": {"$type": -1}}`, `{"a": {"$minKey": 1}}`, true},
		{`{"a": {"$type": 127}}`, `{"a": {"$maxKey": 1}}`, true},
		{`{"a.b": {"$type": "int"}}`, `{"a": [{"b": "x"}, {"b": 3}]}`, true},
	})
}

func TestMatchArrayOperators(t *testing.T) {
	t.Parallel()
	runMatchCases(t, []matchCase{
		// $size
		{`{"a": {"$size": 2}}`, `{"a": [1, 2]}`, true},
		{`{"a": {"$size": 2}}`, `{"a": [1]}`, false},
		{`{"a": {"$size": 0}}`, `{"a": []}`, true},
		{`{"a": {"$size": 0}}`, `{}`, false},
		{`{"a": {"$size": 1}}`, `{"a": 1}`, false},
		{`{"a": {"$size": 1}}`, `{"a": [[1, 2]]}`, true},
		{`{"a": {"$size": 2}}`, `{"a": [[1, 2]]}`, false},
		{`{"a": {"$size": 2.0}}`, `{"a": [1, 2]}`, true},
		{`{"a.b": {"$size": 2}}`, `{"a": [{"b": [1]}, {"b": [1, 2]}]}`, true},
		// $all
		{`{"a": {"$all": [1, 2]}}`, `{"a": [2, 3, 1]}`, true},
		{`{"a": {"$all": [1, 2]}}`, `{"a": [2, 3]}`, false},
		{`{"a": {"$all": [1]}}`, `{"a": 1}`, true},
		{`{"a": {"$all": []}}`, `{"a": []}`, false},
		{`{"a": {"$all": []}}`, `{"a": [1]}`, false},
		{`{"a": {"$all": [[1, 2]]}}`, `{"a": [1, 2]}`, true},
		{`{"a": {"$all": [[1, 2]]}}`, `{"a": [[1, 2], 3]}`, true},
		{`{"a": {"$all": [{"$regularExpression": {"pattern": "^a", "options": ""}}, "bc"]}}`, `{"a": ["ab", "bc"]}`, true},
		{`{"a": {"$all": [{"$elemMatch": {"$gt": 5}}, {"$elemMatch": {"$lt": 2}}]}}`, `{"a": [1, 6]}`, true},
		{`{"a": {"$all": [{"$elemMatch": {"$gt": 5}}, {"$elemMatch": {"$lt": 2}}]}}`, `{"a": [3, 6]}`, false},
		{`{"a": {"$all": [{"$elemMatch": {"b": 1, "c": 2}}]}}`, `{"a": [{"b": 1, "c": 2}]}`, true},
		// $elemMatch value form
		{`{"a": {"$elemMatch": {"$gt": 5, "$lt": 10}}}`, `{"a": [1, 7]}`, true},
		{`{"a": {"$elemMatch": {"$gt": 5, "$lt": 10}}}`, `{"a": [1, 12]}`, false},
		{`{"a": {"$gt": 5, "$lt": 10}}`, `{"a": [1, 12]}`, true},
		{`{"a": {"$elemMatch": {"$gt": 5}}}`, `{"a": 7}`, false},
		{`{"a": {"$elemMatch": {"$gt": 5}}}`, `{"a": [[7]]}`, false},
		{`{"a": {"$elemMatch": {"$eq": null}}}`, `{"a": [1, null]}`, true},
		{`{"a": {"$elemMatch": {"$eq": null}}}`, `{"a": null}`, false},
		{`{"a": {"$elemMatch": {"$ne": null}}}`, `{"a": [[]]}`, true},
		{`{"a": {"$elemMatch": {"$ne": null}}}`, `{"a": []}`, false},
		{`{"a": {"$elemMatch": {"$regex": "^x"}}}`, `{"a": ["y", "xz"]}`, true},
		{`{"a": {"$elemMatch": {"$elemMatch": {"$gt": 1}}}}`, `{"a": [[0, 2]]}`, true},
		{`{"a": {"$elemMatch": {"$size": 2}}}`, `{"a": [[0, 2]]}`, true},
		// $elemMatch object form
		{`{"a": {"$elemMatch": {"b": 1, "c": 2}}}`, `{"a": [{"b": 1, "c": 2}]}`, true},
		{`{"a": {"$elemMatch": {"b": 1, "c": 2}}}`, `{"a": [{"b": 1}, {"c": 2}]}`, false},
		{`{"a.b": 1, "a.c": 2}`, `{"a": [{"b": 1}, {"c": 2}]}`, true},
		{`{"a": {"$elemMatch": {"b": {"$gte": 80, "$lt": 85}}}}`, `{"a": [{"b": 82}]}`, true},
		{`{"a": {"$elemMatch": {"b": {"$gte": 80, "$lt": 85}}}}`, `{"a": [{"b": 90}, {"b": 70}]}`, false},
		{`{"a": {"$elemMatch": {"b": null}}}`, `{"a": [[]]}`, true},
		{`{"a": {"$elemMatch": {"b": null}}}`, `{"a": [{"b": 3}, {}]}`, true},
		{`{"a": {"$elemMatch": {"b": null}}}`, `{"a": [1, 2]}`, false},
		{`{"a": {"$elemMatch": {"b": 1}}}`, `{"a": {"b": 1}}`, false},
		{`{"a": {"$elemMatch": {"b": 1}}}`, `{"a": [[{"b": 1}]]}`, false},
		{`{"a": {"$elemMatch": {"0": 1}}}`, `{"a": [[1]]}`, true},
		{`{"a": {"$elemMatch": {"$or": [{"b": 1}, {"c": 1}]}}}`, `{"a": [{"c": 1}]}`, true},
		{`{"a.b": {"$elemMatch": {"$gt": 1}}}`, `{"a": [{"b": [0]}, {"b": [2]}]}`, true},
		{`{"a": {"$elemMatch": {}}}`, `{"a": [{}]}`, true},
		{`{"a": {"$elemMatch": {}}}`, `{"a": [1]}`, false},
	})
}

func TestMatchRegexMod(t *testing.T) {
	t.Parallel()
	runMatchCases(t, []matchCase{
		{`{"a": {"$regex": "^ab"}}`, `{"a": "abc"}`, true},
		{`{"a": {"$regex": "^ab"}}`, `{"a": "ABC"}`, false},
		{`{"a": {"$regex": "^ab", "$options": "i"}}`, `{"a": "ABC"}`, true},
		{`{"a": {"$options": "i", "$regex": "^ab"}}`, `{"a": "ABC"}`, true},
		{`{"a": {"$regex": {"$regularExpression": {"pattern": "^ab", "options": "i"}}}}`, `{"a": "ABC"}`, true},
		{`{"a": {"$regex": "^b", "$options": "m"}}`, `{"a": "a\nb"}`, true},
		{`{"a": {"$regex": "^b"}}`, `{"a": "a\nb"}`, false},
		{`{"a": {"$regex": "a.b", "$options": "s"}}`, `{"a": "a\nb"}`, true},
		{`{"a": {"$regex": "a.b"}}`, `{"a": "a\nb"}`, false},
		{`{"a": {"$regex": "a b # comment\n c", "$options": "x"}}`, `{"a": "abc"}`, true},
		{`{"a": {"$regex": "a[ ]b", "$options": "x"}}`, `{"a": "a b"}`, true},
		{`{"a": {"$regex": "^1"}}`, `{"a": 1}`, false},
		{`{"a": {"$regex": "^x"}}`, `{"a": ["y", "xy"]}`, true},
		{`{"a": {"$regex": "^x"}}`, `{"a": {"$symbol": "xy"}}`, true},
		{`{"a": {"$regex": "^x"}}`, `{}`, false},
		{`{"a": {"$in": [{"$regularExpression": {"pattern": "^x", "options": ""}}, 5]}}`, `{"a": "xa"}`, true},
		{`{"a": {"$in": [{"$regularExpression": {"pattern": "^x", "options": ""}}, 5]}}`, `{"a": 5}`, true},
		{`{"a": {"$in": [{"$regularExpression": {"pattern": "^x", "options": ""}}, 5]}}`, `{"a": "y"}`, false},
		{`{"a": {"$mod": [4, 0]}}`, `{"a": 8}`, true},
		{`{"a": {"$mod": [4, 0]}}`, `{"a": 9}`, false},
		{`{"a": {"$mod": [4, 1]}}`, `{"a": 9.9}`, true},
		{`{"a": {"$mod": [4, -1]}}`, `{"a": -5}`, true},
		{`{"a": {"$mod": [4.5, 1]}}`, `{"a": 9}`, true},
		{`{"a": {"$mod": [4, 0]}}`, `{"a": "8"}`, false},
		{`{"a": {"$mod": [4, 0]}}`, `{"a": [1, 8]}`, true},
		{`{"a": {"$mod": [4, 0]}}`, `{"a": {"$numberDouble": "NaN"}}`, false},
	})
}

func TestParseFilterErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		filter string
		code   int
	}{
		{`{"$foo": 1}`, 2},
		{`{"a": {"$foo": 1}}`, 2},
		{`{"a": {"$gt": 1, "b": 1}}`, 2},
		{`{"$and": []}`, 2},
		{`{"$or": []}`, 2},
		{`{"$nor": 1}`, 2},
		{`{"$and": [1]}`, 2},
		{`{"a": {"$in": 1}}`, 2},
		{`{"a": {"$nin": {"x": 1}}}`, 2},
		{`{"a": {"$in": [{"$gt": 1}]}}`, 2},
		{`{"a": {"$size": -1}}`, 2},
		{`{"a": {"$size": 1.5}}`, 2},
		{`{"a": {"$size": "1"}}`, 2},
		{`{"a": {"$all": 1}}`, 2},
		{`{"a": {"$all": [{"$elemMatch": {"b": 1}}, 1]}}`, 2},
		{`{"a": {"$elemMatch": 1}}`, 2},
		{`{"a": {"$not": 1}}`, 2},
		{`{"a": {"$not": {}}}`, 2},
		{`{"a": {"$not": {"b": 1}}}`, 2},
		{`{"a": {"$type": "foo"}}`, 2},
		{`{"a": {"$type": 100}}`, 2},
		{`{"a": {"$type": true}}`, 14},
		{`{"a": {"$mod": 1}}`, 2},
		{`{"a": {"$mod": [1]}}`, 2},
		{`{"a": {"$mod": [1, 2, 3]}}`, 2},
		{`{"a": {"$mod": [0, 1]}}`, 2},
		{`{"a": {"$mod": ["x", 1]}}`, 2},
		{`{"a": {"$regex": 1}}`, 2},
		{`{"a": {"$options": "i"}}`, 2},
		{`{"a": {"$regex": "(?<=a)b"}}`, 2},
		{`{"a": {"$regex": "(a)\\1"}}`, 2},
		{`{"a": {"$regex": "a", "$options": "z"}}`, 51108},
		{`{"a": {"$regex": {"$regularExpression": {"pattern": "a", "options": "i"}}, "$options": "i"}}`, 51075},
		{`{"a": {"$ne": {"$regularExpression": {"pattern": "a", "options": ""}}}}`, 2},
		{`{"a": {"$gt": {"$regularExpression": {"pattern": "a", "options": ""}}}}`, 2},
		{`{"$where": "true"}`, 2},
		{`{"$expr": {"$eq": [1, 1]}}`, 2},
		{`{"$text": "x"}`, 2},
		{`{"$text": {"$search": 1}}`, 14},
		{`{"$text": {"$language": "en"}}`, 4},
		{`{"$text": {"$search": "x", "$caseSensitive": 1}}`, 14},
		{`{"$text": {"$search": "x", "other": 1}}`, 2},
		{`{"$and": [{"$text": {"$search": "x"}}, {"$text": {"$search": "y"}}]}`, 2},
		{`{"$nor": [{"$text": {"$search": "x"}}]}`, 2},
		{`{"$or": [{"a": 1}, {"$or": [{"$text": {"$search": "x"}}], "c": 1}]}`, 291},
		{`{"$or": [{"$and": [{"$or": [{"$text": {"$search": "x"}}, {"a": 1}]}, {"c": 1}]}, {"b": 1}]}`, 291},
		{`{"a": {"$elemMatch": {"$text": {"$search": "x"}}}}`, 2},
		{`{"$jsonSchema": {"format": "email"}}`, 9},
		{`{"a": {"$near": "x"}}`, 2},
		{`{"a": {"$geoWithin": {"$box": [[0, 0]]}}}`, 2},
		{`{"a": {"$geoWithin": {"$center": [[0, 0], -1]}}}`, 2},
		{`{"a": {"$geoWithin": {"$box": [[0, 0], [1, 1]]}, "$gt": 1}}`, 2},
		{`{"a": {"$geoWithin": {"$geometry": {"type": "Point", "coordinates": [0, 0]}}}}`, 2},
		{`{"a": {"$geoIntersects": {"$box": [[0, 0], [1, 1]]}}}`, 2},
		{`{"a": {"$elemMatch": {"b": {"$near": [0, 0]}}}}`, 2},
		{`{"$nor": [{"a": {"$near": [0, 0]}}]}`, 2},
		{`{"a": {"$geoWithin": {}}}`, 2},
		{`{"a": {"$bitsAllSet": -1}}`, 9},
		{`{"a": {"$bitsAllSet": [-1]}}`, 2},
		{`{"a": {"$bitsAllSet": [1.5]}}`, 2},
		{`{"a": {"$bitsAllSet": 1.5}}`, 9},
		{`{"a": {"$bitsAnySet": "x"}}`, 2},
		{`{"a..b": 1}`, 2},
		{`{"a.": 1}`, 2},
	}
	for _, c := range cases {
		_, err := ParseFilter(D(t, c.filter))
		if got := codeOf(err); got != c.code {
			t.Errorf("ParseFilter(%s): code %d (%v), want %d", c.filter, got, err, c.code)
		}
	}
}

func TestParseFilterMessages(t *testing.T) {
	t.Parallel()
	cases := []struct{ filter, msg string }{
		{`{"a": {"$foo": 1}}`, "unknown operator: $foo"},
		{`{"$foo": 1}`, "unknown top level operator: $foo"},
		{`{"$and": []}`, "$and/$or/$nor must be a nonempty array"},
		{`{"a": {"$in": 1}}`, "$in needs an array"},
		{`{"$where": "1"}`, "$where is not allowed in this context"},
	}
	for _, c := range cases {
		_, err := ParseFilter(D(t, c.filter))
		if err == nil || !contains(err.Error(), c.msg) {
			t.Errorf("ParseFilter(%s) = %v, want message containing %q", c.filter, err, c.msg)
		}
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestFilterIsEmpty(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{`{}`: true, `{"$comment": "x"}`: true, `{"a": 1}`: false} {
		f, err := ParseFilter(D(t, s))
		if err != nil {
			t.Fatal(err)
		}
		if f.IsEmpty() != want {
			t.Errorf("IsEmpty(%s) = %v", s, !want)
		}
	}
}
