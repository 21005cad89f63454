package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $[identifier] with arrayFilters, as mongod's own tests use it: every
// modifier, nested identifiers, logical filters, collation, multi
// updates, findAndModify, and mongod's errors.
func TestArrayFilters(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	upd := func(doc, update, filters string, want string) {
		t.Helper()
		mustRun(t, db, "test", `{"delete": "af", "deletes": [{"q": {}, "limit": 0}]}`)
		loadCorpus(t, db, "test", "af", []string{doc})
		r := mustRun(t, db, "test", `{"update": "af", "updates": [{"q": {}, "u": `+update+`, "arrayFilters": `+filters+`}]}`)
		if we := field(r, "writeErrors"); we != nil {
			t.Fatalf("%s %s: %v", update, filters, we)
		}
		got := firstBatch(t, mustRun(t, db, "test", `{"find": "af", "filter": {}}`))[0]
		var wd bson.D
		if err := bson.UnmarshalExtJSON([]byte(want), false, &wd); err != nil {
			t.Fatal(err)
		}
		if !document.Equal(got, wd) {
			t.Errorf("%s with %s on %s: %v, want %v", update, filters, doc, fmtValue(got), fmtValue(wd))
		}
	}
	upd(`{"_id": 0, "a": [0, 1, 0, 1]}`, `{"$set": {"a.$[i]": 2}}`, `[{"i": 0}]`, `{"_id": 0, "a": [2, 1, 2, 1]}`)
	upd(`{"_id": 0, "a": [0, 1, 0, 1]}`, `{"$unset": {"a.$[i]": true}}`, `[{"i": 0}]`, `{"_id": 0, "a": [null, 1, null, 1]}`)
	upd(`{"_id": 0, "a": [0, 1, 0, 1]}`, `{"$inc": {"a.$[i]": 1}}`, `[{"i": 1}]`, `{"_id": 0, "a": [0, 2, 0, 2]}`)
	upd(`{"_id": 0, "a": [{"b": 0, "c": 1}, {"b": 0, "c": -1}, {"b": 1, "c": 1}]}`, `{"$min": {"a.$[i].c": 0}}`, `[{"i.b": 0}]`,
		`{"_id": 0, "a": [{"b": 0, "c": 0}, {"b": 0, "c": -1}, {"b": 1, "c": 1}]}`)
	upd(`{"_id": 0, "a": [[0], [1]]}`, `{"$addToSet": {"a.$[i]": 2}}`, `[{"i": 0}]`, `{"_id": 0, "a": [[0, 2], [1]]}`)
	upd(`{"_id": 0, "a": [[0, 1], [1, 2]]}`, `{"$pull": {"a.$[i]": 1}}`, `[{"i": 2}]`, `{"_id": 0, "a": [[0, 1], [2]]}`)
	upd(`{"_id": 0, "a": [[0], [1]]}`, `{"$push": {"a.$[i]": 5}}`, `[{"i": 1}]`, `{"_id": 0, "a": [[0], [1, 5]]}`)
	upd(`{"_id": 0, "a": [[0, 1], [0, 1]]}`, `{"$set": {"a.$[].$[j]": 2}}`, `[{"j": 0}]`, `{"_id": 0, "a": [[2, 1], [2, 1]]}`)
	upd(`{"_id": 0, "a": [{"b": 0, "c": [{"d": 0}, {"d": 1}]}, {"b": 1, "c": [{"d": 0}, {"d": 1}]}]}`, `{"$set": {"a.$[i].c.$[j].d": 2}}`, `[{"i.b": 0}, {"j.d": 0}]`,
		`{"_id": 0, "a": [{"b": 0, "c": [{"d": 2}, {"d": 1}]}, {"b": 1, "c": [{"d": 0}, {"d": 1}]}]}`)
	upd(`{"_id": 0, "a": [0, 1, 3]}`, `{"$set": {"a.$[i]": 2}}`, `[{"$or": [{"i": 0}, {"i": 3}]}]`, `{"_id": 0, "a": [2, 1, 2]}`)
	upd(`{"_id": 0, "a": [{"x": 0, "b": [{"y": 0, "c": 0, "d": 0}]}]}`, `{"$set": {"a.$[i].b.$[k].c": 1, "a.$[j].b.$[k].d": 1}}`, `[{"i.x": 0}, {"j.x": 0}, {"k.y": 0}]`,
		`{"_id": 0, "a": [{"x": 0, "b": [{"y": 0, "c": 1, "d": 1}]}]}`)
	upd(`{"_id": 0, "grades": [{"g": 80, "m": 75}, {"g": 85, "m": 90}, {"g": 85, "m": 85}]}`, `{"$set": {"grades.$[e].m": 100}}`, `[{"e.g": {"$gte": 85}}]`,
		`{"_id": 0, "grades": [{"g": 80, "m": 75}, {"g": 85, "m": 100}, {"g": 85, "m": 100}]}`)

	// The operation's collation, and a multi update.
	mustRun(t, db, "test", `{"delete": "af", "deletes": [{"q": {}, "limit": 0}]}`)
	loadCorpus(t, db, "test", "af", []string{`{"_id": 0, "a": ["foo", "FOO", "x"]}`, `{"_id": 1, "a": ["Foo"]}`})
	mustRun(t, db, "test", `{"update": "af", "updates": [{"q": {}, "u": {"$set": {"a.$[i]": "bar"}}, "multi": true, "arrayFilters": [{"i": "foo"}], "collation": {"locale": "en", "strength": 2}}]}`)
	if got := fmtValue(firstBatch(t, mustRun(t, db, "test", `{"find": "af", "filter": {}, "sort": {"_id": 1}}`))); got != `[ { _id: 0, a: [ "bar", "bar", "x" ] }, { _id: 1, a: [ "bar" ] } ]` {
		t.Errorf("collated multi update: %s", got)
	}
	// findAndModify takes them too.
	r := mustRun(t, db, "test", `{"findAndModify": "af", "query": {"_id": 0}, "update": {"$set": {"a.$[i]": "y"}}, "arrayFilters": [{"i": "x"}], "new": true}`)
	if got := fmtValue(field(r, "value")); got != `{ _id: 0, a: [ "bar", "bar", "y" ] }` {
		t.Errorf("findAndModify: %s", got)
	}

	for _, tc := range []struct {
		u, filters string
		code       document.Code
		msg        string
	}{
		{`{"$set": {"a.$[i]": 5}}`, `[{"i": 0, "j": 0}]`, document.CodeFailedToParse, "single top-level field name"},
		{`{"$set": {"a.$[i]": 5, "a.$[j]": 6}}`, `[{"i": 0}, {"j": 0}, {"i": 1}]`, document.CodeFailedToParse, "Found multiple array filters with the same top-level field name"},
		{`{"$set": {"a.$[i]": 5}}`, `[{"i": 0}, {"j": 0}]`, document.CodeFailedToParse, "The array filter for identifier 'j' was not used in the update"},
		{`{"$set": {"a.$[i]": 0}}`, `[]`, document.CodeBadValue, "No array filter found for identifier 'i' in path 'a.$[i]'"},
		{`{"$set": {"a.$[I]": 1}}`, `[{"I": 0}]`, document.CodeBadValue, "must be an alphanumeric string beginning with a lowercase letter, found 'I'"},
		{`{"$set": {"a.$[i]": 0, "a.0": 0}}`, `[{"i": 0}]`, document.CodeConflictingUpdateOperators, "Updating the path 'a.0' would create a conflict at 'a'"},
		{`{"$rename": {"a.$[i]": "b"}}`, `[{"i": 0}]`, document.CodeBadValue, "The source field for $rename may not be dynamic: a.$[i]"},
		{`{"$set": {"a.$[i]": 1}}`, `["bad"]`, document.CodeTypeMismatch, ""},
	} {
		r := mustRun(t, db, "test", `{"update": "af", "updates": [{"q": {"_id": 0}, "u": `+tc.u+`, "arrayFilters": `+tc.filters+`}]}`)
		we, _ := field(r, "writeErrors").(bson.A)
		if len(we) != 1 || field(we[0].(bson.D), "code") != int32(tc.code) {
			t.Errorf("%s %s: %v, want code %d", tc.u, tc.filters, r, tc.code)
			continue
		}
		if msg, _ := field(we[0].(bson.D), "errmsg").(string); !contains(msg, tc.msg) {
			t.Errorf("%s %s: %q, want %q", tc.u, tc.filters, msg, tc.msg)
		}
	}
	// Not an array: mongod's parser fails the command.
	wantCode(t, db, "test", `{"update": "af", "updates": [{"q": {}, "u": {"$set": {"a.$[i]": 1}}, "arrayFilters": {"i": 0}}]}`,
		document.CodeTypeMismatch, "BSON field 'update.updates.arrayFilters' is the wrong type 'object', expected type 'array'")
	r = mustRun(t, db, "test", `{"update": "af", "updates": [{"q": {}, "u": [{"$set": {"z": 1}}], "arrayFilters": [{"i": 0}]}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(we[0].(bson.D), "code") != int32(document.CodeFailedToParse) {
		t.Errorf("pipeline update with arrayFilters: %v", r)
	}
	wantCode(t, db, "test", `{"findAndModify": "af", "query": {}, "remove": true, "arrayFilters": [{"i": 0}]}`, document.CodeFailedToParse, "")
}

// Two filtered paths that meet at one element are 40 when they meet,
// and not when their filters pick different elements (mongod's cases;
// update_arrayFilters.js names the place 'a.0.b.$[k].c': the trees of
// $[i] and $[j] merge at a.0, where both still read $[k]).
func TestArrayFiltersRuntimeConflict(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "afc", []string{`{"_id": 0, "a": [{"x": 0, "b": [{"y": 0, "c": 0}]}, {"x": 1, "b": [{"y": 0, "c": 0}]}]}`})
	r := mustRun(t, db, "test", `{"update": "afc", "updates": [{"q": {"_id": 0}, "u": {"$set": {"a.$[i].b.$[k].c": 1, "a.$[j].b.$[k].c": 2}}, "arrayFilters": [{"i.x": 0}, {"j.x": 0}, {"k.y": 0}]}]}`)
	we, _ := field(r, "writeErrors").(bson.A)
	if len(we) != 1 || field(we[0].(bson.D), "code") != int32(document.CodeConflictingUpdateOperators) || !contains(field(we[0].(bson.D), "errmsg").(string), "Update created a conflict at 'a.0.b.$[k].c'") {
		t.Fatalf("meeting paths: %v", r)
	}
	mustRun(t, db, "test", `{"update": "afc", "updates": [{"q": {"_id": 0}, "u": {"$set": {"a.$[i].b.$[k].c": 1, "a.$[j].b.$[k].c": 2}}, "arrayFilters": [{"i.x": 0}, {"j.x": 1}, {"k.y": 0}]}]}`)
	if got := fmtValue(firstBatch(t, mustRun(t, db, "test", `{"find": "afc", "filter": {}}`))[0]); got != `{ _id: 0, a: [ { x: 0, b: [ { y: 0, c: 1 } ] }, { x: 1, b: [ { y: 0, c: 2 } ] } ] }` {
		t.Errorf("disjoint paths: %s", got)
	}
}
