package engine

import (
	"slices"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A view takes a collation at create, as in mongod: its reads run under
// it (find, count, distinct, aggregate), an operation that names another
// is 167, a view without one is simple whatever its source's default,
// and a view on a view must share its collation.
func TestViewCollation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "s": "a"}, {"_id": 2, "s": "A"}, {"_id": 3, "s": "b"}]}`)
	mustRun(t, db, "test", `{"create": "cc", "collation": {"locale": "en", "strength": 2}}`)
	mustRun(t, db, "test", `{"insert": "cc", "documents": [{"_id": 1, "s": "a"}, {"_id": 2, "s": "A"}, {"_id": 3, "s": "b"}]}`)
	mustRun(t, db, "test", `{"create": "vci", "viewOn": "c", "pipeline": [], "collation": {"locale": "en", "strength": 2}}`)
	mustRun(t, db, "test", `{"create": "vsimple", "viewOn": "cc", "pipeline": [], "collation": {"locale": "simple"}}`)
	mustRun(t, db, "test", `{"create": "vplain", "viewOn": "cc", "pipeline": []}`)

	ids := func(cmd string) []int32 {
		t.Helper()
		r := mustRun(t, db, "test", cmd)
		_, b := checkCursorShape(t, cmd, field(r, "cursor"), "firstBatch")
		var out []int32
		for _, d := range b {
			out = append(out, field(d.(bson.D), "_id").(int32))
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		cmd  string
		want []int32
	}{
		{`{"find": "vci", "filter": {"s": "a"}}`, []int32{1, 2}},
		{`{"find": "vci", "filter": {"s": "a"}, "collation": {"locale": "en", "strength": 2}}`, []int32{1, 2}},
		{`{"aggregate": "vci", "pipeline": [{"$match": {"s": "A"}}], "cursor": {}}`, []int32{1, 2}},
		{`{"find": "cc", "filter": {"s": "a"}}`, []int32{1, 2}},
		{`{"find": "vsimple", "filter": {"s": "a"}}`, []int32{1}},
		{`{"find": "vplain", "filter": {"s": "a"}}`, []int32{1}},
	} {
		if got := ids(c.cmd); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.cmd, got, c.want)
		}
	}
	r := mustRun(t, db, "test", `{"count": "vci", "query": {"s": "b"}}`)
	if field(r, "n") != int32(1) {
		t.Errorf("count b on vci: %v", r)
	}
	r = mustRun(t, db, "test", `{"distinct": "vci", "key": "s"}`)
	if vals, _ := field(r, "values").(bson.A); len(vals) != 2 {
		t.Errorf("distinct s on vci: %v, want 2 values (a and A are one)", r)
	}
	for _, cmd := range []string{
		`{"find": "vci", "filter": {}, "collation": {"locale": "fr"}}`,
		`{"find": "vci", "filter": {}, "collation": {"locale": "simple"}}`,
		`{"find": "vplain", "filter": {}, "collation": {"locale": "en", "strength": 2}}`,
		`{"aggregate": "vci", "pipeline": [], "cursor": {}, "collation": {"locale": "fr"}}`,
		`{"count": "vci", "collation": {"locale": "fr"}}`,
		`{"explain": {"find": "vci", "filter": {}, "collation": {"locale": "fr"}}}`,
	} {
		wantCode(t, db, "test", cmd, document.CodeOptionNotSupportedOnView, "Cannot override a view's default collation")
	}
	// listCollections shows the view's collation complete.
	r = mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "vci"}}`)
	_, b := checkCursorShape(t, "listCollections", field(r, "cursor"), "firstBatch")
	if len(b) != 1 || field(b[0].(bson.D), "options.collation.locale") != "en" || field(b[0].(bson.D), "options.collation.strength") != int32(2) {
		t.Fatalf("listCollections: %v", b)
	}
	r = mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "vsimple"}}`)
	_, b = checkCursorShape(t, "listCollections", field(r, "cursor"), "firstBatch")
	if len(b) != 1 || field(b[0].(bson.D), "options.collation") != nil {
		t.Fatalf("a simple view lists a collation: %v", b)
	}
	// A view on a view shares its collation.
	wantCode(t, db, "test", `{"create": "vv", "viewOn": "vci", "pipeline": []}`, document.CodeOptionNotSupportedOnView,
		"View test.vv has a collation that does not match the collation of view test.vci")
	mustRun(t, db, "test", `{"create": "vv", "viewOn": "vci", "pipeline": [], "collation": {"locale": "en", "strength": 2}}`)
	if got := ids(`{"find": "vv", "filter": {"s": "A"}}`); !slices.Equal(got, []int32{1, 2}) {
		t.Errorf("view on a view: %v", got)
	}
	// collMod keeps the collation.
	mustRun(t, db, "test", `{"collMod": "vci", "pipeline": [{"$match": {"_id": {"$gt": 0}}}]}`)
	if got := ids(`{"find": "vci", "filter": {"s": "a"}}`); !slices.Equal(got, []int32{1, 2}) {
		t.Errorf("after collMod: %v", got)
	}
	wantCode(t, db, "test", `{"create": "bad", "viewOn": "c", "collation": {"locale": "nosuch"}}`, document.CodeBadValue, "")
}

// An aggregation that reads a view through $lookup, $graphLookup or
// $unionWith, at any depth, runs under the view's collation or is
// refused (167), as in mongod: the stages could not otherwise agree on
// how strings compare.
func TestViewCollationInvolvedViews(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "src", "documents": [{"_id": 1, "s": "a"}, {"_id": 2, "s": "A"}, {"_id": 3, "s": "b"}]}`)
	mustRun(t, db, "test", `{"create": "v", "viewOn": "src", "pipeline": [], "collation": {"locale": "en", "strength": 2}}`)
	mustRun(t, db, "test", `{"create": "plain", "viewOn": "src", "pipeline": []}`)
	for _, p := range []string{
		`[{"$lookup": {"from": "v", "localField": "s", "foreignField": "s", "as": "m"}}]`,
		`[{"$unionWith": "v"}]`,
		`[{"$unionWith": {"coll": "v", "pipeline": [{"$match": {"s": "A"}}]}}]`,
		`[{"$graphLookup": {"from": "v", "startWith": "$s", "connectFromField": "s", "connectToField": "s", "as": "g"}}]`,
		`[{"$facet": {"x": [{"$lookup": {"from": "src", "as": "m", "pipeline": [{"$unionWith": "v"}]}}]}}]`,
	} {
		wantCode(t, db, "test", `{"aggregate": "src", "pipeline": `+p+`, "cursor": {}}`, document.CodeOptionNotSupportedOnView, "Cannot override a view's default collation")
	}
	// Under the view's collation the check passes, and the $lookup
	// matches under it: "a" finds "a" and "A".
	r := mustRun(t, db, "test", `{"aggregate": "src", "pipeline": [{"$match": {"_id": 1}}, {"$lookup": {"from": "v", "localField": "s", "foreignField": "s", "as": "m"}}, {"$project": {"n": {"$size": "$m"}}}], "cursor": {}, "collation": {"locale": "en", "strength": 2}}`)
	if got := firstBatch(t, r); len(got) != 1 || got[0][1].Value != int32(2) {
		t.Errorf("$lookup under the view's collation = %v, want n: 2", got)
	}
	// A view without a collation is simple: a simple aggregation reads it.
	mustRun(t, db, "test", `{"aggregate": "src", "pipeline": [{"$unionWith": "plain"}], "cursor": {}}`)
}
