package query

import (
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

type updateCase struct {
	doc, update string
	want        string // expected document (relaxed Extended JSON), or ""
	code        int    // expected error code, 0 for success
}

var testNow = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

func runUpdateCases(t *testing.T, cases []updateCase) {
	t.Helper()
	for _, c := range cases {
		d := D(t, c.doc)
		before := js(d)
		u, err := ParseUpdate(D(t, c.update))
		var got bson.D
		if err == nil {
			got, err = u.Apply(d, UpdateOptions{Now: testNow})
		}
		if code := codeOf(err); code != c.code {
			t.Errorf("update %s on %s: code %d (%v), want %d", c.update, c.doc, code, err, c.code)
			continue
		}
		if js(d) != before {
			t.Errorf("update %s mutated its input: %s -> %s", c.update, before, js(d))
		}
		if c.code != 0 {
			continue
		}
		if want := js(D(t, c.want)); js(got) != want {
			t.Errorf("update %s on %s:\n got %s\nwant %s", c.update, c.doc, js(got), want)
		}
	}
}

func TestUpdateSetUnset(t *testing.T) {
	t.Parallel()
	runUpdateCases(t, []updateCase{
		{`{"_id": 1, "a": 1}`, `{"$set": {"a": 2}}`, `{"_id": 1, "a": 2}`, 0},
		{`{"_id": 1, "a": 1, "z": 0}`, `{"$set": {"a": 2}}`, `{"_id": 1, "a": 2, "z": 0}`, 0},
		{`{"_id": 1, "z": 0}`, `{"$set": {"b": 2, "a": 1}}`, `{"_id": 1, "z": 0, "a": 1, "b": 2}`, 0},
		{`{"_id": 1}`, `{"$set": {"a.b.c": 1}}`, `{"_id": 1, "a": {"b": {"c": 1}}}`, 0},
		{`{"_id": 1, "a": {"x": 1}}`, `{"$set": {"a.b": 1}}`, `{"_id": 1, "a": {"x": 1, "b": 1}}`, 0},
		{`{"_id": 1, "a": [1, 2, 3]}`, `{"$set": {"a.1": 9}}`, `{"_id": 1, "a": [1, 9, 3]}`, 0},
		{`{"_id": 1, "a": [1]}`, `{"$set": {"a.3": 9}}`, `{"_id": 1, "a": [1, null, null, 9]}`, 0},
		{`{"_id": 1, "a": [{"b": 1}]}`, `{"$set": {"a.0.b": 2}}`, `{"_id": 1, "a": [{"b": 2}]}`, 0},
		{`{"_id": 1, "a": []}`, `{"$set": {"a.1.b": 2}}`, `{"_id": 1, "a": [null, {"b": 2}]}`, 0},
		{`{"_id": 1, "a": 5}`, `{"$set": {"a.b": 1}}`, ``, 28},
		{`{"_id": 1, "a": [1]}`, `{"$set": {"a.b": 1}}`, ``, 28},
		{`{"_id": 1, "a": [null]}`, `{"$set": {"a.0.b": 1}}`, ``, 28},
		{`{"_id": 1}`, `{"$set": {"a": {"b": [1, {"c": 2}]}}}`, `{"_id": 1, "a": {"b": [1, {"c": 2}]}}`, 0},
		{`{"_id": 1, "a": 1}`, `{"$set": {}}`, `{"_id": 1, "a": 1}`, 0},
		{`{"_id": 1, "a": 1}`, `{"$set": {"_id": 1}}`, `{"_id": 1, "a": 1}`, 0},
		{`{"_id": 1, "a": 1}`, `{"$set": {"_id": 2}}`, ``, 66},
		{`{"_id": 1, "a": 1}`, `{"$set": {"_id": 1.0}}`, ``, 66},
		{`{"_id": {"x": 1}}`, `{"$set": {"_id.x": 2}}`, ``, 66},
		{`{"_id": 1, "a": 1}`, `{"$unset": {"_id": ""}}`, ``, 66},
		{`{"_id": 1, "a": 1, "b": 2}`, `{"$unset": {"a": ""}}`, `{"_id": 1, "b": 2}`, 0},
		{`{"_id": 1, "a": 1}`, `{"$unset": {"x": 1, "y.z": 1}}`, `{"_id": 1, "a": 1}`, 0},
		{`{"_id": 1, "a": {"b": 1, "c": 2}}`, `{"$unset": {"a.b": 1}}`, `{"_id": 1, "a": {"c": 2}}`, 0},
		{`{"_id": 1, "a": [1, 2, 3]}`, `{"$unset": {"a.1": 1}}`, `{"_id": 1, "a": [1, null, 3]}`, 0},
		{`{"_id": 1, "a": 5}`, `{"$unset": {"a.b": 1}}`, `{"_id": 1, "a": 5}`, 0},
		{`{"a": 1}`, `{"$set": {"_id": 7}}`, `{"a": 1, "_id": 7}`, 0},
		{`{"_id": 1}`, `{"$setOnInsert": {"a": 1}}`, `{"_id": 1}`, 0},
	})
}

func TestUpdateArithmetic(t *testing.T) {
	t.Parallel()
	runUpdateCases(t, []updateCase{
		{`{"_id": 1, "a": 1}`, `{"$inc": {"a": 2}}`, `{"_id": 1, "a": 3}`, 0},
		{`{"_id": 1, "a": 1}`, `{"$inc": {"a": -2}}`, `{"_id": 1, "a": -1}`, 0},
		{`{"_id": 1, "a": 1}`, `{"$inc": {"a": 0.5}}`, `{"_id": 1, "a": 1.5}`, 0},
		{`{"_id": 1, "a": 1.5}`, `{"$inc": {"a": 1}}`, `{"_id": 1, "a": 2.5}`, 0},
		{`{"_id": 1, "a": {"$numberLong": "1"}}`, `{"$inc": {"a": 1}}`, `{"_id": 1, "a": {"$numberLong": "2"}}`, 0},
		{`{"_id": 1, "a": 2147483647}`, `{"$inc": {"a": 1}}`, `{"_id": 1, "a": {"$numberLong": "2147483648"}}`, 0},
		// An int64 past its range fails, as mongod's SafeNum (an
		// aggregation's $add gives a double instead).
		{`{"_id": 1, "a": {"$numberLong": "9223372036854775807"}}`, `{"$inc": {"a": 1}}`, ``, 2},
		{`{"_id": 1, "a": {"$numberLong": "9223372036854775807"}}`, `{"$inc": {"a": 1.0}}`, `{"_id": 1, "a": 9.223372036854776e18}`, 0},
		{`{"_id": 1, "a": {"$numberDecimal": "1.1"}}`, `{"$inc": {"a": {"$numberDecimal": "2.2"}}}`, `{"_id": 1, "a": {"$numberDecimal": "3.3"}}`, 0},
		{`{"_id": 1, "a": 1}`, `{"$inc": {"a": {"$numberDecimal": "0.5"}}}`, `{"_id": 1, "a": {"$numberDecimal": "1.5"}}`, 0},
		{`{"_id": 1}`, `{"$inc": {"a": 5}}`, `{"_id": 1, "a": 5}`, 0},
		{`{"_id": 1}`, `{"$inc": {"a.b": 5}}`, `{"_id": 1, "a": {"b": 5}}`, 0},
		{`{"_id": 1, "a": "x"}`, `{"$inc": {"a": 1}}`, ``, 14},
		{`{"_id": 1, "a": 1}`, `{"$inc": {"a": "1"}}`, ``, 14},
		{`{"_id": 1, "a": 3}`, `{"$mul": {"a": 2}}`, `{"_id": 1, "a": 6}`, 0},
		{`{"_id": 1, "a": 3}`, `{"$mul": {"a": 2.5}}`, `{"_id": 1, "a": 7.5}`, 0},
		{`{"_id": 1, "a": 65536}`, `{"$mul": {"a": 65536}}`, `{"_id": 1, "a": {"$numberLong": "4294967296"}}`, 0},
		{`{"_id": 1}`, `{"$mul": {"a": 2}}`, `{"_id": 1, "a": 0}`, 0},
		{`{"_id": 1}`, `{"$mul": {"a": {"$numberLong": "2"}}}`, `{"_id": 1, "a": {"$numberLong": "0"}}`, 0},
		{`{"_id": 1}`, `{"$mul": {"a": 2.5}}`, `{"_id": 1, "a": 0.0}`, 0},
		{`{"_id": 1, "a": null}`, `{"$mul": {"a": 2}}`, ``, 14},
		{`{"_id": 1, "a": 5}`, `{"$min": {"a": 3}}`, `{"_id": 1, "a": 3}`, 0},
		{`{"_id": 1, "a": 5}`, `{"$min": {"a": 7}}`, `{"_id": 1, "a": 5}`, 0},
		{`{"_id": 1, "a": 5}`, `{"$max": {"a": 7}}`, `{"_id": 1, "a": 7}`, 0},
		{`{"_id": 1, "a": 5}`, `{"$max": {"a": "x"}}`, `{"_id": 1, "a": "x"}`, 0},
		{`{"_id": 1, "a": 5}`, `{"$min": {"a": null}}`, `{"_id": 1, "a": null}`, 0},
		{`{"_id": 1}`, `{"$max": {"a": 1}}`, `{"_id": 1, "a": 1}`, 0},
		{`{"_id": 1, "a": {"$date": "2020-01-01T00:00:00Z"}}`, `{"$max": {"a": {"$date": "2021-01-01T00:00:00Z"}}}`, `{"_id": 1, "a": {"$date": "2021-01-01T00:00:00Z"}}`, 0},
	})
}

func TestUpdateArrays(t *testing.T) {
	t.Parallel()
	runUpdateCases(t, []updateCase{
		{`{"_id": 1, "a": [1]}`, `{"$push": {"a": 2}}`, `{"_id": 1, "a": [1, 2]}`, 0},
		{`{"_id": 1}`, `{"$push": {"a": 2}}`, `{"_id": 1, "a": [2]}`, 0},
		{`{"_id": 1, "a": [1]}`, `{"$push": {"a": [2, 3]}}`, `{"_id": 1, "a": [1, [2, 3]]}`, 0},
		{`{"_id": 1, "a": [1]}`, `{"$push": {"a": {"b": 1}}}`, `{"_id": 1, "a": [1, {"b": 1}]}`, 0},
		{`{"_id": 1, "a": [1]}`, `{"$push": {"a": {"$each": [2, 3]}}}`, `{"_id": 1, "a": [1, 2, 3]}`, 0},
		{`{"_id": 1, "a": [1, 2]}`, `{"$push": {"a": {"$each": [9], "$position": 0}}}`, `{"_id": 1, "a": [9, 1, 2]}`, 0},
		{`{"_id": 1, "a": [1, 2]}`, `{"$push": {"a": {"$each": [9], "$position": -1}}}`, `{"_id": 1, "a": [1, 9, 2]}`, 0},
		{`{"_id": 1, "a": [1, 2]}`, `{"$push": {"a": {"$each": [9], "$position": 99}}}`, `{"_id": 1, "a": [1, 2, 9]}`, 0},
		{`{"_id": 1, "a": [1, 2]}`, `{"$push": {"a": {"$each": [3, 4], "$slice": 3}}}`, `{"_id": 1, "a": [1, 2, 3]}`, 0},
		{`{"_id": 1, "a": [1, 2]}`, `{"$push": {"a": {"$each": [3, 4], "$slice": -2}}}`, `{"_id": 1, "a": [3, 4]}`, 0},
		{`{"_id": 1, "a": [1, 2]}`, `{"$push": {"a": {"$each": [], "$slice": 0}}}`, `{"_id": 1, "a": []}`, 0},
		{`{"_id": 1, "a": [3, 1]}`, `{"$push": {"a": {"$each": [2], "$sort": 1}}}`, `{"_id": 1, "a": [1, 2, 3]}`, 0},
		{`{"_id": 1, "a": [3, 1]}`, `{"$push": {"a": {"$each": [2], "$sort": -1, "$slice": 2}}}`, `{"_id": 1, "a": [3, 2]}`, 0},
		{`{"_id": 1, "a": [{"s": 3}, {"s": 1}]}`, `{"$push": {"a": {"$each": [{"s": 2}], "$sort": {"s": 1}}}}`, `{"_id": 1, "a": [{"s": 1}, {"s": 2}, {"s": 3}]}`, 0},
		{`{"_id": 1, "a": 1}`, `{"$push": {"a": 2}}`, ``, 2},
		{`{"_id": 1}`, `{"$push": {"a": {"$each": 1}}}`, ``, 2},
		{`{"_id": 1}`, `{"$push": {"a": {"$each": [1], "$slice": "x"}}}`, ``, 2},
		{`{"_id": 1}`, `{"$push": {"a": {"$each": [1], "$foo": 1}}}`, ``, 2},
		{`{"_id": 1}`, `{"$push": {"a": {"$each": [1], "$sort": 2}}}`, ``, 2},
		{`{"_id": 1, "a": [1, 2]}`, `{"$addToSet": {"a": 2}}`, `{"_id": 1, "a": [1, 2]}`, 0},
		{`{"_id": 1, "a": [1, 2]}`, `{"$addToSet": {"a": 2.0}}`, `{"_id": 1, "a": [1, 2]}`, 0},
		{`{"_id": 1, "a": [1, 2]}`, `{"$addToSet": {"a": 3}}`, `{"_id": 1, "a": [1, 2, 3]}`, 0},
		{`{"_id": 1, "a": [1]}`, `{"$addToSet": {"a": {"$each": [1, 2, 2, 3]}}}`, `{"_id": 1, "a": [1, 2, 3]}`, 0},
		{`{"_id": 1}`, `{"$addToSet": {"a": {"$each": [1, 1]}}}`, `{"_id": 1, "a": [1]}`, 0},
		{`{"_id": 1, "a": [{"b": 1}]}`, `{"$addToSet": {"a": {"b": 1}}}`, `{"_id": 1, "a": [{"b": 1}]}`, 0},
		{`{"_id": 1, "a": 5}`, `{"$addToSet": {"a": 1}}`, ``, 2},
		{`{"_id": 1, "a": [1, 2, 3]}`, `{"$pop": {"a": 1}}`, `{"_id": 1, "a": [1, 2]}`, 0},
		{`{"_id": 1, "a": [1, 2, 3]}`, `{"$pop": {"a": -1}}`, `{"_id": 1, "a": [2, 3]}`, 0},
		{`{"_id": 1, "a": []}`, `{"$pop": {"a": 1}}`, `{"_id": 1, "a": []}`, 0},
		{`{"_id": 1}`, `{"$pop": {"a": 1}}`, `{"_id": 1}`, 0},
		{`{"_id": 1, "a": 1}`, `{"$pop": {"a": 1}}`, ``, 14},
		{`{"_id": 1, "a": [1]}`, `{"$pop": {"a": 2}}`, ``, 9},
		{`{"_id": 1, "a": [1, 2, 3, 2]}`, `{"$pull": {"a": 2}}`, `{"_id": 1, "a": [1, 3]}`, 0},
		{`{"_id": 1, "a": [1, 2, 3, 4]}`, `{"$pull": {"a": {"$gte": 3}}}`, `{"_id": 1, "a": [1, 2]}`, 0},
		{`{"_id": 1, "a": [1, 2, 3, 4]}`, `{"$pull": {"a": {"$in": [1, 4]}}}`, `{"_id": 1, "a": [2, 3]}`, 0},
		{`{"_id": 1, "a": [{"b": 1, "c": 1}, {"b": 2}, 5]}`, `{"$pull": {"a": {"b": 1}}}`, `{"_id": 1, "a": [{"b": 2}, 5]}`, 0},
		{`{"_id": 1, "a": [{"b": 1, "c": 1}, {"b": 2}]}`, `{"$pull": {"a": {"b": {"$gt": 0}, "c": 1}}}`, `{"_id": 1, "a": [{"b": 2}]}`, 0},
		{`{"_id": 1, "a": ["apple", "banana"]}`, `{"$pull": {"a": {"$regularExpression": {"pattern": "^a", "options": ""}}}}`, `{"_id": 1, "a": ["banana"]}`, 0},
		{`{"_id": 1, "a": [[1, 2], [3]]}`, `{"$pull": {"a": [3]}}`, `{"_id": 1, "a": [[1, 2]]}`, 0},
		{`{"_id": 1}`, `{"$pull": {"a": 1}}`, `{"_id": 1}`, 0},
		{`{"_id": 1, "a": 1}`, `{"$pull": {"a": 1}}`, ``, 2},
		{`{"_id": 1, "a": [1, 2, 3, 1]}`, `{"$pullAll": {"a": [1, 3]}}`, `{"_id": 1, "a": [2]}`, 0},
		{`{"_id": 1, "a": [1, 2]}`, `{"$pullAll": {"a": 1}}`, ``, 2},
	})
}

func TestUpdateRenameCurrentDate(t *testing.T) {
	t.Parallel()
	runUpdateCases(t, []updateCase{
		{`{"_id": 1, "a": 1, "b": 2}`, `{"$rename": {"a": "c"}}`, `{"_id": 1, "b": 2, "c": 1}`, 0},
		{`{"_id": 1, "a": 1, "b": 2}`, `{"$rename": {"a": "b"}}`, `{"_id": 1, "b": 1}`, 0},
		{`{"_id": 1, "a": {"x": 1}}`, `{"$rename": {"a.x": "b.y"}}`, `{"_id": 1, "a": {}, "b": {"y": 1}}`, 0},
		{`{"_id": 1}`, `{"$rename": {"a": "b"}}`, `{"_id": 1}`, 0},
		// A $rename applies where its destination sorts (mongod's
		// update_object_node.cpp holds only a placeholder at the source),
		// so m is created before z: a's value is appended after it.
		{`{"_id": 1, "a": 1}`, `{"$rename": {"a": "z"}, "$set": {"m": 2}}`, `{"_id": 1, "m": 2, "z": 1}`, 0},
		{`{"_id": 1, "z": 1}`, `{"$rename": {"z": "b"}, "$set": {"m": 2}}`, `{"_id": 1, "b": 1, "m": 2}`, 0},
		{`{"_id": 1, "a": 1}`, `{"$rename": {"a": 1}}`, ``, 2},
		{`{"_id": 1, "a": 1}`, `{"$rename": {"a": "a"}}`, ``, 2},
		{`{"_id": 1, "a": 1}`, `{"$rename": {"a": "a.b"}}`, ``, 2},
		{`{"_id": 1, "a": [{"x": 1}]}`, `{"$rename": {"a.0.x": "b"}}`, ``, 2},
		{`{"_id": 1, "a": 1}`, `{"$rename": {"_id": "b"}}`, ``, 66},
		{`{"_id": 1}`, `{"$currentDate": {"a": true}}`, `{"_id": 1, "a": {"$date": "2024-05-06T07:08:09Z"}}`, 0},
		{`{"_id": 1}`, `{"$currentDate": {"a": {"$type": "date"}}}`, `{"_id": 1, "a": {"$date": "2024-05-06T07:08:09Z"}}`, 0},
		{`{"_id": 1}`, `{"$currentDate": {"a": {"$type": "timestamp"}}}`, `{"_id": 1, "a": {"$timestamp": {"t": 1714979289, "i": 1}}}`, 0},
		{`{"_id": 1}`, `{"$currentDate": {"a": {"$type": "x"}}}`, ``, 2},
		{`{"_id": 1}`, `{"$currentDate": {"a": 1}}`, ``, 2},
	})
}

func TestParseUpdateErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		update string
		code   int
	}{
		{`{"$foo": {"a": 1}}`, 9},
		{`{"$set": {"a": 1}, "b": 2}`, 9},
		{`{"b": 2, "$set": {"a": 1}}`, 52},
		{`{"$set": 1}`, 9},
		{`{"$set": {"a": 1}, "$inc": {"a": 1}}`, 40},
		{`{"$set": {"a": 1}, "$inc": {"a.b": 1}}`, 40},
		{`{"$set": {"a.b": 1}, "$unset": {"a": 1}}`, 40},
		{`{"$set": {"a": 1}, "$rename": {"b": "a"}}`, 40},
		{`{"$set": {"": 1}}`, 56},
		{`{"$set": {"a..b": 1}}`, 56},
		{`{"$set": {"a.$.$": 1}}`, 2},
		{`{"$set": {"$.a": 1}}`, 2},
		{`{"$set": {"a.$[x].b": 1}}`, 2},
		{`{"$rename": {"a.$[]": "b"}}`, 2},
		{`{"$inc": {"a": "x"}}`, 14},
		{`{"$mul": {"a": null}}`, 14},
		{`{"$pullAll": {"a": 1}}`, 2},
		{`{"$pull": {"a": {"$foo": 1}}}`, 2},
		{`{"$pop": {"a": "x"}}`, 9},
		{`{"$addToSet": {"a": {"$each": [1], "$slice": 1}}}`, 2},
	}
	for _, c := range cases {
		_, err := ParseUpdate(D(t, c.update))
		if got := codeOf(err); got != c.code {
			t.Errorf("ParseUpdate(%s): code %d (%v), want %d", c.update, got, err, c.code)
		}
	}
}

func TestUpdateReplacement(t *testing.T) {
	t.Parallel()
	runUpdateCases(t, []updateCase{
		{`{"_id": 1, "a": 1}`, `{"b": 2}`, `{"_id": 1, "b": 2}`, 0},
		{`{"_id": 1, "a": 1}`, `{"b": 2, "_id": 1}`, `{"_id": 1, "b": 2}`, 0},
		{`{"_id": 1, "a": 1}`, `{}`, `{"_id": 1}`, 0},
		{`{"_id": 1, "a": 1}`, `{"_id": 2}`, ``, 66},
		{`{"a": 1}`, `{"b": 1}`, `{"b": 1}`, 0},
	})
	u, err := ParseUpdate(D(t, `{"a": 1}`))
	if err != nil || !u.IsReplacement() {
		t.Fatalf("replacement: %v %v", u, err)
	}
	u, err = ParseUpdate(D(t, `{"$set": {"a": 1}}`))
	if err != nil || u.IsReplacement() {
		t.Fatalf("modifier: %v %v", u, err)
	}
}

func TestUpdateDoesNotShareWithInput(t *testing.T) {
	t.Parallel()
	d := D(t, `{"_id": 1, "a": {"b": [1, 2]}, "c": [{"d": 1}]}`)
	u, err := ParseUpdate(D(t, `{"$set": {"x": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := u.Apply(d, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out[1].Value.(bson.D)[0].Value.(bson.A)[0] = int32(99)
	out[2].Value.(bson.A)[0].(bson.D)[0].Value = int32(99)
	if js(d) != js(D(t, `{"_id": 1, "a": {"b": [1, 2]}, "c": [{"d": 1}]}`)) {
		t.Fatalf("result shares memory with input: %s", js(d))
	}
}

func TestUpsert(t *testing.T) {
	t.Parallel()
	cases := []struct {
		filter, update, want string
		code                 int
	}{
		{`{"a": 1}`, `{"$set": {"b": 2}}`, `{"a": 1, "b": 2}`, 0},
		{`{"_id": {"$in": [3]}, "a": {"$in": [1, 2]}}`, `{"$set": {"b": 2}}`, `{"_id": 3, "b": 2}`, 0},
		{`{"_id": 5, "a": 1}`, `{"$set": {"b": 2}}`, `{"_id": 5, "a": 1, "b": 2}`, 0},
		{`{"a": 1, "_id": 5}`, `{"$inc": {"n": 1}}`, `{"_id": 5, "a": 1, "n": 1}`, 0},
		{`{"a.b": 1}`, `{"$set": {"c": 1}}`, `{"a": {"b": 1}, "c": 1}`, 0},
		{`{"a": {"$eq": 1}, "b": {"$gt": 1}}`, `{"$set": {"c": 1}}`, `{"a": 1, "c": 1}`, 0},
		// An $or of one branch is that branch (upsert_fields.js).
		{`{"$and": [{"a": 1}, {"b": 2}], "$or": [{"x": 1}]}`, `{"$set": {"c": 1}}`, `{"a": 1, "b": 2, "x": 1, "c": 1}`, 0},
		{`{"$and": [{"a": 1}, {"b": 2}], "$or": [{"x": 1}, {"x": 2}]}`, `{"$set": {"c": 1}}`, `{"a": 1, "b": 2, "c": 1}`, 0},
		{`{"a": {"$regularExpression": {"pattern": "x", "options": ""}}}`, `{"$set": {"c": 1}}`, `{"c": 1}`, 0},
		{`{"a": 1}`, `{"$setOnInsert": {"s": 1}, "$set": {"b": 1}}`, `{"a": 1, "b": 1, "s": 1}`, 0},
		{`{"a": 1}`, `{"$set": {"a": 2}}`, `{"a": 2}`, 0},
		{`{"_id": 1}`, `{"$set": {"_id": 2}}`, ``, 66},
		{`{"a": 1}`, `{"$set": {"_id": 2}}`, `{"_id": 2, "a": 1}`, 0},
		{`{"_id": 5, "a": 1}`, `{"b": 2}`, `{"_id": 5, "b": 2}`, 0},
		{`{"a": 1}`, `{"b": 2}`, `{"b": 2}`, 0},
		{`{"_id": 5}`, `{"_id": 6, "b": 2}`, ``, 66},
	}
	for _, c := range cases {
		u, err := ParseUpdate(D(t, c.update))
		if err != nil {
			t.Fatalf("ParseUpdate(%s): %v", c.update, err)
		}
		got, err := u.Upsert(D(t, c.filter), UpdateOptions{Now: testNow})
		if code := codeOf(err); code != c.code {
			t.Errorf("upsert %s / %s: code %d (%v), want %d", c.filter, c.update, code, err, c.code)
			continue
		}
		if c.code == 0 && js(got) != js(D(t, c.want)) {
			t.Errorf("upsert %s / %s:\n got %s\nwant %s", c.filter, c.update, js(got), js(D(t, c.want)))
		}
	}
	// $setOnInsert applies only to the upsert insert.
	u, _ := ParseUpdate(D(t, `{"$setOnInsert": {"s": 1}}`))
	got, err := u.Apply(D(t, `{"_id": 1}`), UpdateOptions{IsUpsertInsert: true})
	if err != nil || js(got) != js(D(t, `{"_id": 1, "s": 1}`)) {
		t.Errorf("$setOnInsert with IsUpsertInsert: %s %v", js(got), err)
	}
}

var _ = document.CodeBadValue

func TestUpdateBackfillLimit(t *testing.T) {
	t.Parallel()
	runUpdateCases(t, []updateCase{
		{`{"_id": 1, "a": []}`, `{"$set": {"a.1500001": 1}}`, ``, 34},
		{`{"_id": 1, "a": []}`, `{"$set": {"a.999999999.b": 1}}`, ``, 34},
	})
}

func TestUpdateAllPositional(t *testing.T) {
	t.Parallel()
	runUpdateCases(t, []updateCase{
		{`{"_id": 1, "a": [1, 2, 3]}`, `{"$inc": {"a.$[]": 10}}`, `{"_id": 1, "a": [11, 12, 13]}`, 0},
		{`{"_id": 1, "a": [{"b": 1}, {"c": 2}]}`, `{"$set": {"a.$[].b": 0}}`, `{"_id": 1, "a": [{"b": 0}, {"c": 2, "b": 0}]}`, 0},
		{`{"_id": 1, "a": [{"b": [1, 2]}, {"b": [3]}]}`, `{"$set": {"a.$[].b.$[]": 7}}`, `{"_id": 1, "a": [{"b": [7, 7]}, {"b": [7]}]}`, 0},
		{`{"_id": 1, "a": [{"b": 1, "c": 1}, {"b": 2}]}`, `{"$unset": {"a.$[].b": ""}}`, `{"_id": 1, "a": [{"c": 1}, {}]}`, 0},
		{`{"_id": 1, "a": [[1, 2], [2, 3]]}`, `{"$pull": {"a.$[]": 2}}`, `{"_id": 1, "a": [[1], [3]]}`, 0},
		{`{"_id": 1, "a": []}`, `{"$set": {"a.$[]": 1}}`, `{"_id": 1, "a": []}`, 0},
		{`{"_id": 1, "a": 5}`, `{"$set": {"a.$[]": 1}}`, ``, 2},
		{`{"_id": 1}`, `{"$set": {"a.$[]": 1}}`, ``, 2},
		{`{"_id": 1}`, `{"$unset": {"a.$[]": 1}}`, ``, 2}, // the array must exist, whatever the modifier
		{`{"_id": 1, "a": [1, {"b": 1}]}`, `{"$set": {"a.$[].b": 2}}`, ``, 28},
	})
}

// $bit: and, or, xor in turn, int32 widened by an int64, a missing
// field as 0 of the operand's type; mongod's refusals.
func TestUpdateBit(t *testing.T) {
	t.Parallel()
	runUpdateCases(t, []updateCase{
		{`{"_id": 1, "a": 13}`, `{"$bit": {"a": {"and": 10}}}`, `{"_id": 1, "a": 8}`, 0},
		{`{"_id": 1, "a": 13}`, `{"$bit": {"a": {"or": 2}}}`, `{"_id": 1, "a": 15}`, 0},
		{`{"_id": 1, "a": 13}`, `{"$bit": {"a": {"xor": 5}}}`, `{"_id": 1, "a": 8}`, 0},
		{`{"_id": 1, "a": 13}`, `{"$bit": {"a": {"and": 10, "or": 1}}}`, `{"_id": 1, "a": 9}`, 0},
		{`{"_id": 1, "a": 1}`, `{"$bit": {"a": {"or": {"$numberLong": "4294967296"}}}}`, `{"_id": 1, "a": {"$numberLong": "4294967297"}}`, 0},
		{`{"_id": 1}`, `{"$bit": {"a": {"or": 5}}}`, `{"_id": 1, "a": 5}`, 0},
		{`{"_id": 1, "a": [0, 2]}`, `{"$bit": {"a.$[]": {"or": 10}}}`, `{"_id": 1, "a": [10, 10]}`, 0},
		{`{"_id": 1, "a": 1.5}`, `{"$bit": {"a": {"or": 1}}}`, ``, 2},
		{`{"_id": 1, "a": 1}`, `{"$bit": {"a": {"nand": 1}}}`, ``, 2},
		{`{"_id": 1, "a": 1}`, `{"$bit": {"a": {"or": 1.0}}}`, ``, 2},
		{`{"_id": 1, "a": 1}`, `{"$bit": {"a": 5}}`, ``, 2},
	})
}
