package engine

import (
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestGraphLookup checks $graphLookup against collections, as mongod's
// documentation runs it: a reporting chain (depthField, maxDepth,
// restrictSearchWithMatch, a missing start), a graph with cycles and
// arrays on both sides, null kept apart from missing, and the refusals.
func TestGraphLookup(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "emp", "documents": [
		{"_id": 1, "name": "Dev"}, {"_id": 2, "name": "Eliot", "reportsTo": "Dev"},
		{"_id": 3, "name": "Ron", "reportsTo": "Eliot"}, {"_id": 4, "name": "Andrew", "reportsTo": "Eliot"},
		{"_id": 5, "name": "Asya", "reportsTo": "Ron"}, {"_id": 6, "name": "Dan", "reportsTo": "Andrew"},
		{"_id": 7, "name": null}, {"_id": 8}]}`)
	chain := func(extra string) []string {
		t.Helper()
		r := mustRun(t, db, "test", `{"aggregate": "emp", "pipeline": [{"$match": {"_id": 5}},
			{"$graphLookup": {"from": "emp", "startWith": "$reportsTo", "connectFromField": "reportsTo", "connectToField": "name", "as": "up", "depthField": "d"`+extra+`}}], "cursor": {}}`)
		var out []string
		for _, u := range field(r, "cursor.firstBatch.0.up").(bson.A) {
			out = append(out, fmt.Sprintf("%v %T(%v)", field(u.(bson.D), "name"), field(u.(bson.D), "d"), field(u.(bson.D), "d")))
		}
		return out
	}
	check := func(what string, got []string, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: %v, want %v", what, got, want)
			}
		}
	}
	check("chain", chain(""), "Ron int64(0)", "Eliot int64(1)", "Dev int64(2)")
	check("maxDepth 1", chain(`, "maxDepth": 1`), "Ron int64(0)", "Eliot int64(1)")
	check("maxDepth 0", chain(`, "maxDepth": 0.0`), "Ron int64(0)")
	check("restricted", chain(`, "restrictSearchWithMatch": {"name": {"$ne": "Eliot"}}`), "Ron int64(0)")

	// restrictSearchWithMatch reads the command's let and a $lookup's.
	r := mustRun(t, db, "test", `{"aggregate": "emp", "let": {"stop": "Eliot"}, "pipeline": [{"$match": {"_id": 5}},
		{"$graphLookup": {"from": "emp", "startWith": "$reportsTo", "connectFromField": "reportsTo", "connectToField": "name", "as": "up",
			"restrictSearchWithMatch": {"$expr": {"$ne": ["$name", "$$stop"]}}}}, {"$project": {"ids": "$up._id"}}], "cursor": {}}`)
	if got := document.Format(field(r, "cursor.firstBatch")); got != `[ { _id: 5, ids: [ 3 ] } ]` {
		t.Fatalf("restrictSearchWithMatch with the command's let: %s", got)
	}
	r = mustRun(t, db, "test", `{"aggregate": "emp", "pipeline": [{"$match": {"_id": {"$in": [2, 3]}}}, {"$sort": {"_id": 1}},
		{"$lookup": {"from": "emp", "let": {"boss": "$name"}, "as": "x", "pipeline": [{"$match": {"_id": 5}},
			{"$graphLookup": {"from": "emp", "startWith": "$reportsTo", "connectFromField": "reportsTo", "connectToField": "name", "as": "up",
				"restrictSearchWithMatch": {"$expr": {"$ne": ["$name", "$$boss"]}}}}, {"$project": {"ids": "$up._id"}}]}},
		{"$project": {"ids": "$x.ids"}}], "cursor": {}}`)
	if got := document.Format(field(r, "cursor.firstBatch")); got != `[ { _id: 2, ids: [ [ 3 ] ] }, { _id: 3, ids: [ [] ] } ]` {
		t.Fatalf("restrictSearchWithMatch with a $lookup's let: %s", got)
	}
	wantCode(t, db, "test", `{"aggregate": "emp", "pipeline": [{"$graphLookup": {"from": "emp", "startWith": "$reportsTo", "connectFromField": "reportsTo", "connectToField": "name", "as": "up",
		"restrictSearchWithMatch": {"$expr": {"$ne": ["$name", "$$nobody"]}}}}], "cursor": {}}`, 17276, "")

	// Dev reports to no one: no start, nothing found. A null start finds
	// the document whose name is null, not the one without a name.
	r = mustRun(t, db, "test", `{"aggregate": "emp", "pipeline": [{"$match": {"_id": {"$in": [1, 7]}}}, {"$sort": {"_id": 1}},
		{"$graphLookup": {"from": "emp", "startWith": "$name", "connectFromField": "reportsTo", "connectToField": "reportsTo", "as": "down"}},
		{"$project": {"ids": "$down._id"}}], "cursor": {}}`)
	if got := document.Format(field(r, "cursor.firstBatch")); got != `[ { _id: 1, ids: [ 2 ] }, { _id: 7, ids: [] } ]` {
		t.Fatalf("direct reports of Dev and of null: %s", got)
	}
	r = mustRun(t, db, "test", `{"aggregate": "emp", "pipeline": [{"$match": {"_id": 1}},
		{"$graphLookup": {"from": "emp", "startWith": null, "connectFromField": "x", "connectToField": "name", "as": "n"}},
		{"$project": {"ids": "$n._id"}}], "cursor": {}}`)
	if got := document.Format(field(r, "cursor.firstBatch")); got != `[ { _id: 1, ids: [ 7 ] } ]` {
		t.Fatalf("a null start: %s", got)
	}

	// Cycles and arrays: each airport once, at its shortest distance.
	mustRun(t, db, "test", `{"insert": "air", "documents": [
		{"_id": 0, "airport": "JFK", "connects": ["BOS", "ORD"]}, {"_id": 1, "airport": "BOS", "connects": ["JFK", "PWM"]},
		{"_id": 2, "airport": "ORD", "connects": ["JFK"]}, {"_id": 3, "airport": "PWM", "connects": ["BOS", "LHR"]},
		{"_id": 4, "airport": "LHR", "connects": ["PWM"]}]}`)
	mustRun(t, db, "test", `{"insert": "people", "documents": [{"_id": 1, "near": ["JFK"]}]}`)
	r = mustRun(t, db, "test", `{"aggregate": "people", "pipeline": [
		{"$graphLookup": {"from": "air", "startWith": "$near", "connectFromField": "connects", "connectToField": "airport", "maxDepth": 2, "depthField": "hops", "as": "dest"}},
		{"$unwind": "$dest"}, {"$sort": {"dest._id": 1}}, {"$project": {"_id": 0, "a": "$dest.airport", "h": {"$toString": "$dest.hops"}, "t": {"$type": "$dest.hops"}}}], "cursor": {}}`)
	if got := document.Format(field(r, "cursor.firstBatch")); got != `[ { a: "JFK", h: "0", t: "long" }, { a: "BOS", h: "1", t: "long" }, { a: "ORD", h: "1", t: "long" }, { a: "PWM", h: "2", t: "long" } ]` {
		t.Fatalf("airports within two hops: %s", got)
	}

	refusals := []struct {
		spec string
		code document.Code
	}{
		{`1`, document.CodeFailedToParse},
		{`{"startWith": 1}`, document.CodeFailedToParse},
		{`{"from": 1}`, document.CodeFailedToParse},
		{`{"from": "emp", "as": "x", "startWith": 1, "connectFromField": "a"}`, 40105},
		{`{"from": "emp", "as": 1, "startWith": 1, "connectFromField": "a", "connectToField": "b"}`, 40103},
		{`{"from": "emp", "as": "x", "startWith": 1, "connectFromField": "a", "connectToField": "b", "bogus": 1}`, 40104},
		{`{"from": "emp", "as": "x", "startWith": 1, "connectFromField": "a", "connectToField": "b", "maxDepth": "1"}`, 40100},
		{`{"from": "emp", "as": "x", "startWith": 1, "connectFromField": "a", "connectToField": "b", "maxDepth": -1}`, 40101},
		{`{"from": "emp", "as": "x", "startWith": 1, "connectFromField": "a", "connectToField": "b", "maxDepth": 1.5}`, 40102},
		{`{"from": "emp", "as": "x", "startWith": 1, "connectFromField": "a", "connectToField": "b", "restrictSearchWithMatch": 1}`, 40185},
		{`{"from": "emp", "as": "x", "startWith": 1, "connectFromField": "a", "connectToField": "b", "restrictSearchWithMatch": {"$bogus": 1}}`, document.CodeBadValue},
		{`{"from": "emp", "as": "x", "startWith": 1, "connectFromField": "a", "connectToField": "b", "depthField": "$d"}`, 16410},
	}
	for _, c := range refusals {
		wantCode(t, db, "test", `{"aggregate": "emp", "pipeline": [{"$graphLookup": `+c.spec+`}], "cursor": {}}`, c.code, "")
	}
}
