package engine

import (
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// TestPartialFilterOperators: a partialFilterExpression takes what
// mongod's takes (equalities, ranges, $exists: true, $type, $in, $all,
// $geoWithin, $geoIntersects, under $and and $or) and refuses the rest
// with mongod's codes and debug strings (the strings are those mongod
// 8 prints), so that an index built on ttlkv builds on MongoDB too.
func TestPartialFilterOperators(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	build := func(i int, filter string) (string, error) {
		name := "i" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		r, err := run(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"k`+name+`": 1}, "name": "`+name+`", "partialFilterExpression": `+filter+`}]}`)
		return fmtValue(r), err
	}
	for i, f := range []string{
		`{"a": 1}`, `{"a": null}`, `{"a": {"b": 1}}`, `{"a": [1, 2]}`,
		`{"a": {"$eq": 1}}`, `{"a": {"$gt": 1, "$lte": 5}}`, `{"a": {"$lt": 1}}`, `{"a": {"$gte": 1}}`,
		`{"a": {"$exists": true}}`, `{"a": {"$exists": 1}}`, `{"a": {"$type": "string"}}`,
		`{"a": {"$in": [1, 2]}}`, `{"a": {"$all": [1, 2]}}`,
		`{"$and": [{"a": 1}, {"b": {"$gt": 2}}]}`, `{"$or": [{"a": 1}, {"b": {"$gt": 2}}]}`,
		`{"$or": [{"$and": [{"a": 1}, {"b": 2}]}, {"c": {"$in": [1]}}]}`,
		`{"loc": {"$geoWithin": {"$box": [[0, 0], [1, 1]]}}}`,
		`{"a": 1, "$comment": "why"}`,
		// mongod's jstest: a tree four nodes deep is allowed.
		`{"$and": [{"$and": [{"$and": [{"x": 3}]}]}]}`,
		`{"$or": [{"a": 1, "b": {"$gt": 1}}, {"c": 1}]}`,
	} {
		if r, err := build(i, f); err != nil {
			t.Errorf("partialFilterExpression %s refused: %v %s", f, err, r)
		}
	}
	for i, c := range []struct {
		filter string
		code   document.Code
		tree   string
	}{
		{`{"$nor": [{"a": 1}]}`, 67, "$nor\n    a $eq 1\n"},
		{`{"a": {"$exists": false}}`, 67, "$not\n    a exists\n"},
		{`{"a": {"$regex": "x"}}`, 67, "a regex /x/\n"},
		{`{"a": {"$mod": [2, 0]}}`, 67, "a mod 2 % x == 0\n"},
		{`{"a": {"$size": 2}}`, 67, "a $size : 2\n"},
		{`{"a": {"$elemMatch": {"$gt": 1}}}`, 67, "a $elemMatch (value)\n     $gt 1\n"},
		{`{"a": {"$bitsAllSet": 1}}`, 67, "a $bitsAllSet: [0]\n"},
		{`{"$or": [{"a": {"$ne": 1}}]}`, 67, "$not\n    a $eq 1\n"},
		{`{"a": {"$ne": 1}}`, 67, "$not\n    a $eq 1\n"},
		{`{"a": {"$nin": [1]}}`, 67, "$not\n"},
		{`{"a": {"$not": {"$gt": 1}}}`, 67, "$not\n"},
		{`{"a": {"$regularExpression": {"pattern": "x", "options": ""}}}`, 67, "a regex /x/\n"},
		{`{"$alwaysTrue": 1}`, 67, "$alwaysTrue\n"},
		{`{"$sampleRate": 0.5}`, 67, "$sampleRate\n"},
		{`{"$and": [{"a": 1}, {"b": {"$size": 0}}]}`, 67, "b $size : 0\n"},
		{`{"$expr": {"$eq": ["$a", 1]}}`, 224, "$expr is not allowed in this context"},
		{`{"$and": [{"$and": [{"$and": [{"$and": [{"x": 3}]}]}]}]}`, 67, "partialFilterExpression depth may not exceed 4"},
		{`{"$or": [{"$and": [{"a": 1, "b": {"$all": [1, 2]}}]}]}`, 67, "partialFilterExpression depth may not exceed 4"},
		{`{"$jsonSchema": {}}`, 224, "$jsonSchema is not allowed in this context"},
	} {
		_, err := build(100+i, c.filter)
		if document.CodeOf(err) != c.code {
			t.Errorf("partialFilterExpression %s: %v, want code %d", c.filter, err, c.code)
			continue
		}
		msg := err.Error()
		if c.code == 67 && !strings.Contains(c.tree, "depth") {
			want := "caused by :: Expression not supported in partial index: " + c.tree
			if !strings.Contains(msg, want) {
				t.Errorf("partialFilterExpression %s: %q, want it to hold %q", c.filter, msg, want)
			}
		} else if !strings.Contains(msg, c.tree) {
			t.Errorf("partialFilterExpression %s: %q, want %q", c.filter, msg, c.tree)
		}
	}
	// Nothing refused was built.
	r := mustRun(t, db, "test", `{"listIndexes": "c"}`)
	if n := len(firstBatch(t, r)); n != 1+20 {
		t.Errorf("%d indexes listed, want the _id index and 20", n)
	}
}
