package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The positional $ of an update: the first element of the array the
// query's conditions on it matched, as mongod places it.
func TestPositionalUpdate(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	upd := func(doc, q, u, want string) {
		t.Helper()
		mustRun(t, db, "test", `{"delete": "pos", "deletes": [{"q": {}, "limit": 0}]}`)
		loadCorpus(t, db, "test", "pos", []string{doc})
		r := mustRun(t, db, "test", `{"update": "pos", "updates": [{"q": `+q+`, "u": `+u+`}]}`)
		if we := field(r, "writeErrors"); we != nil {
			t.Fatalf("%s %s: %v", q, u, we)
		}
		got := firstBatch(t, mustRun(t, db, "test", `{"find": "pos", "filter": {}}`))[0]
		var wd bson.D
		if err := bson.UnmarshalExtJSON([]byte(want), false, &wd); err != nil {
			t.Fatal(err)
		}
		if !document.Equal(got, wd) {
			t.Errorf("%s %s on %s: %v, want %v", q, u, doc, fmtValue(got), fmtValue(wd))
		}
	}
	upd(`{"_id": 1, "grades": [85, 80, 80]}`, `{"_id": 1, "grades": 80}`, `{"$set": {"grades.$": 82}}`, `{"_id": 1, "grades": [85, 82, 80]}`)
	upd(`{"_id": 1, "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}]}`, `{"items.sku": "b"}`, `{"$inc": {"items.$.qty": 5}}`,
		`{"_id": 1, "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 7}]}`)
	upd(`{"_id": 1, "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}, {"sku": "b", "qty": 9}]}`, `{"items": {"$elemMatch": {"sku": "b", "qty": {"$gt": 5}}}}`, `{"$set": {"items.$.qty": 0}}`,
		`{"_id": 1, "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}, {"sku": "b", "qty": 0}]}`)
	upd(`{"_id": 1, "a": {"b": [1, 2, 3]}}`, `{"a.b": {"$gt": 1}}`, `{"$unset": {"a.b.$": 1}}`, `{"_id": 1, "a": {"b": [1, null, 3]}}`)
	upd(`{"_id": 1, "s": [{"n": "x", "v": [1]}, {"n": "y", "v": [2]}]}`, `{"s.n": "y"}`, `{"$push": {"s.$.v": 3}}`, `{"_id": 1, "s": [{"n": "x", "v": [1]}, {"n": "y", "v": [2, 3]}]}`)

	// findAndModify too.
	mustRun(t, db, "test", `{"delete": "pos", "deletes": [{"q": {}, "limit": 0}]}`)
	loadCorpus(t, db, "test", "pos", []string{`{"_id": 1, "grades": [85, 80, 80]}`})
	r := mustRun(t, db, "test", `{"findAndModify": "pos", "query": {"grades": 85}, "update": {"$set": {"grades.$": 90}}, "new": true}`)
	if got := fmtValue(field(r, "value.grades")); got != "[ 90, 80, 80 ]" {
		t.Errorf("findAndModify: %s", got)
	}
	for _, tc := range []struct{ q, u, msg string }{
		{`{"_id": 1}`, `{"$set": {"grades.$": 1}}`, "The positional operator did not find the match needed from the query."},
		{`{"grades": 90}`, `{"$set": {"grades.$.$": 1}}`, "Too many positional (i.e. '$') elements found in path 'grades.$.$'"},
		{`{"grades": 90}`, `{"$set": {"$": 1}}`, "Cannot have positional (i.e. '$') element in the first position in path '$'"},
		{`{"grades": 90}`, `{"$rename": {"grades.$": "x"}}`, "The source field for $rename may not be dynamic: grades.$"},
	} {
		r := mustRun(t, db, "test", `{"update": "pos", "updates": [{"q": `+tc.q+`, "u": `+tc.u+`}]}`)
		we, _ := field(r, "writeErrors").(bson.A)
		if len(we) != 1 || field(we[0].(bson.D), "code") != int32(document.CodeBadValue) || !contains(field(we[0].(bson.D), "errmsg").(string), tc.msg) {
			t.Errorf("%s %s: %v, want 2 %q", tc.q, tc.u, r, tc.msg)
		}
	}
	r = mustRun(t, db, "test", `{"update": "pos", "updates": [{"q": {"grades": 90}, "u": {"$set": {"grades.$": 1, "grades.$[i]": 2}}, "arrayFilters": [{"i": 0}]}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(we[0].(bson.D), "code") != int32(document.CodeConflictingUpdateOperators) {
		t.Errorf("$ beside $[i]: %v", r)
	}
	// An upsert that inserts has no element to place $ on.
	r = mustRun(t, db, "test", `{"update": "pos", "updates": [{"q": {"_id": 7, "grades": 5}, "u": {"$set": {"grades.$": 6}}, "upsert": true}]}`)
	if we, _ := field(r, "writeErrors").(bson.A); len(we) != 1 || field(we[0].(bson.D), "code") != int32(document.CodeBadValue) {
		t.Errorf("upsert with $: %v", r)
	}
}

// The positional projection a.$: the array holds the element the query
// placed; mongod's errors otherwise.
func TestPositionalProjection(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "pp", []string{
		`{"_id": 1, "name": "x", "grades": [80, 85, 90], "s": {"items": [{"k": "a", "v": 1}, {"k": "b", "v": 2}]}}`,
		`{"_id": 2, "name": "y", "grades": [95, 88]}`,
	})
	for _, tc := range []struct{ filter, proj, want string }{
		{`{"grades": {"$gte": 85}}`, `{"grades.$": 1}`, `[ { _id: 1, grades: [ 85 ] }, { _id: 2, grades: [ 95 ] } ]`},
		{`{"_id": 1, "grades": 90}`, `{"grades.$": 1, "name": 1}`, `[ { _id: 1, name: "x", grades: [ 90 ] } ]`},
		{`{"s.items.k": "b"}`, `{"s.items.$": 1, "_id": 0}`, `[ { s: { items: [ { k: "b", v: 2 } ] } } ]`},
		{`{"s.items": {"$elemMatch": {"v": {"$gt": 1}}}}`, `{"s.items.$": 1}`, `[ { _id: 1, s: { items: [ { k: "b", v: 2 } ] } } ]`},
	} {
		got := fmtValue(firstBatch(t, mustRun(t, db, "test", `{"find": "pp", "filter": `+tc.filter+`, "projection": `+tc.proj+`, "sort": {"_id": 1}}`)))
		if got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.filter, tc.proj, got, tc.want)
		}
	}
	r := mustRun(t, db, "test", `{"findAndModify": "pp", "query": {"grades": 88}, "update": {"$set": {"seen": true}}, "fields": {"grades.$": 1}}`)
	if got := fmtValue(field(r, "value")); got != `{ _id: 2, grades: [ 88 ] }` {
		t.Errorf("findAndModify fields: %s", got)
	}
	wantCode(t, db, "test", `{"find": "pp", "filter": {}, "projection": {"grades.$": 1}}`, 51246, "couldn't find a matching element in the array")
	wantCode(t, db, "test", `{"find": "pp", "filter": {"grades": 80}, "projection": {"grades.$": 1, "s.items.$": 1}}`, 31276, "more than one positional projection")
	wantCode(t, db, "test", `{"find": "pp", "filter": {"grades": 80}, "projection": {"name": 0, "grades.$": 1}}`, 31253, "Cannot do inclusion on field grades.$ in exclusion projection")
}
