package agg

import (
	"context"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestLookupFilter checks the query $lookup sends for each document, as
// mongod builds it: $eq for one value, $in for several, an $or of $eq
// when one is a regular expression, null when there is none.
func TestLookupFilter(t *testing.T) {
	t.Parallel()
	var got []string
	o := Options{Lookup: func(_ context.Context, from string, filter bson.D, fn func(bson.D) error) error {
		got = append(got, from+" "+document.Format(filter))
		return nil
	}}
	docs := `[{"_id": 1, "a": 5}, {"_id": 2, "a": [5, 6, [7]]}, {"_id": 3}, {"_id": 4, "a": []},
		{"_id": 5, "a": [{"$regularExpression": {"pattern": "^x", "options": ""}}, 1]},
		{"_id": 6, "a": {"$regularExpression": {"pattern": "^x", "options": ""}}}]`
	out, err := run(t, docs, `[{"$lookup": {"from": "f", "localField": "a", "foreignField": "b.c", "as": "j"}}]`, o)
	if err != nil || len(out) != 6 {
		t.Fatalf("run: %v, %v", out, err)
	}
	want := []string{
		`f { b.c: { $eq: 5 } }`,
		`f { b.c: { $in: [ 5, 6, [ 7 ] ] } }`,
		`f { b.c: { $eq: null } }`,
		`f { b.c: { $eq: null } }`,
		`f { $or: [ { b.c: { $eq: /^x/ } }, { b.c: { $eq: 1 } } ] }`,
		`f { b.c: { $eq: /^x/ } }`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("filters:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !same(out[:1], val(t, `[{"_id": 1, "a": 5, "j": []}]`)) {
		t.Errorf("no match: %v", out[0])
	}
}

// TestLookupBounds checks that the matches of one document may not
// exceed the largest document (4568, as mongod), that the reader's
// error ends the run, and that a pipeline run without a reader refuses
// the stage.
func TestLookupBounds(t *testing.T) {
	t.Parallel()
	big := bson.D{{Key: "s", Value: strings.Repeat("x", 1<<20)}}
	served := 0
	o := Options{Lookup: func(_ context.Context, _ string, _ bson.D, fn func(bson.D) error) error {
		for range 40 {
			served++
			if err := fn(big); err != nil {
				return err
			}
		}
		return nil
	}}
	pipe := `[{"$lookup": {"from": "f", "localField": "a", "foreignField": "b", "as": "j"}}]`
	if _, err := run(t, `[{"_id": 1}]`, pipe, o); codeOf(err) != 4568 {
		t.Fatalf("40 MiB of matches: %v, want 4568", err)
	}
	if served != 17 {
		t.Errorf("the reader served %d documents, want it stopped at the 17th", served)
	}
	if _, err := run(t, `[{"_id": 1}]`, pipe, Options{}); codeOf(err) != 40324 {
		t.Fatalf("no reader: %v, want 40324", err)
	}
}

// TestSubPipelineDepth checks mongod's limit on nested sub-pipelines:
// twenty $lookup or $unionWith pipelines nest, a twenty-first is 269;
// $facet's pipelines do not count.
func TestSubPipelineDepth(t *testing.T) {
	t.Parallel()
	nest := func(n int, stage func(inner bson.A) bson.D) bson.A {
		p := bson.A{}
		for range n {
			p = bson.A{stage(p)}
		}
		return p
	}
	lookup := func(inner bson.A) bson.D {
		return bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "c"}, {Key: "pipeline", Value: inner}, {Key: "as", Value: "x"}}}}
	}
	union := func(inner bson.A) bson.D {
		return bson.D{{Key: "$unionWith", Value: bson.D{{Key: "coll", Value: "c"}, {Key: "pipeline", Value: inner}}}}
	}
	facet := func(inner bson.A) bson.D {
		return bson.D{{Key: "$facet", Value: bson.D{{Key: "f", Value: bson.A{lookup(inner)}}}}}
	}
	for _, c := range []struct {
		name  string
		p     bson.A
		fails bool
	}{
		{"20 $lookup", nest(20, lookup), false},
		{"21 $lookup", nest(21, lookup), true},
		{"21 $unionWith", nest(21, union), true},
		{"15 $facet around $lookup", nest(15, facet), false},
	} {
		_, err := Parse(c.p)
		if got := codeOf(err); (got == 269) != c.fails || (!c.fails && err != nil) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestForeignDocumentsBound checks that the foreign documents a
// $lookup pipeline or a $unionWith holds stay within the pipeline's
// memory limit (292 past it), and that the reader stops once past it.
func TestForeignDocumentsBound(t *testing.T) {
	t.Parallel()
	for _, pipe := range []string{
		`[{"$lookup": {"from": "f", "pipeline": [], "as": "j"}}]`,
		`[{"$unionWith": "f"}]`,
	} {
		served := 0
		o := Options{MaxMemoryBytes: 1000, Lookup: func(_ context.Context, _ string, _ bson.D, fn func(bson.D) error) error {
			for range 100 {
				served++
				if err := fn(bson.D{{Key: "s", Value: strings.Repeat("x", 100)}}); err != nil {
					return err
				}
			}
			return nil
		}}
		if _, err := run(t, `[{"_id": 1}]`, pipe, o); codeOf(err) != 292 {
			t.Errorf("%s over 1000 bytes: %v, want 292", pipe, err)
		}
		if served >= 100 {
			t.Errorf("%s: the reader served all %d documents past the limit", pipe, served)
		}
		o.MaxMemoryBytes = 1 << 20
		if out, err := run(t, `[{"_id": 1}]`, pipe, o); err != nil || len(out) == 0 {
			t.Errorf("%s within the limit: %v, %v", pipe, len(out), err)
		}
	}
}

// TestLookupPushdown checks what of a $lookup pipeline's leading $match
// goes into the foreign find: its plain predicates, and the equalities of
// its $expr between a field and a let variable or a constant, with the
// variable's value; nothing for a missing value, two fields or another
// operator. The $match still runs, so the results are the pipeline's.
func TestLookupPushdown(t *testing.T) {
	t.Parallel()
	foreign := []bson.D{
		{{Key: "_id", Value: int32(1)}, {Key: "k", Value: int32(1)}, {Key: "s", Value: "A"}},
		{{Key: "_id", Value: int32(2)}, {Key: "k", Value: bson.A{int32(1), int32(2)}}, {Key: "s", Value: "A"}},
		{{Key: "_id", Value: int32(3)}, {Key: "s", Value: "A"}},
		{{Key: "_id", Value: int32(4)}, {Key: "k", Value: nil}, {Key: "s", Value: "A"}},
		{{Key: "_id", Value: int32(5)}, {Key: "k", Value: 1.0}, {Key: "s", Value: "B"}},
	}
	var sent []string
	o := Options{Lookup: func(_ context.Context, _ string, filter bson.D, fn func(bson.D) error) error {
		sent = append(sent, document.Format(filter))
		for _, d := range foreign { // every document: the pipeline's $match must do the filtering
			if err := fn(d); err != nil {
				return err
			}
		}
		return nil
	}}
	pipe := `[{"$lookup": {"from": "f", "let": {"a": "$x"}, "pipeline": [
		{"$match": {"s": "A", "$expr": {"$and": [{"$eq": ["$$a", "$k"]}, {"$eq": ["$k", "$k"]}, {"$gt": ["$_id", 0]}]}}},
		{"$project": {"_id": 1}}], "as": "j"}}, {"$project": {"ids": "$j._id"}}]`
	out, err := run(t, `[{"_id": "one", "x": 1}, {"_id": "null", "x": null}, {"_id": "missing"}]`, pipe, o)
	if err != nil {
		t.Fatal(err)
	}
	if !same(out, val(t, `[{"_id": "one", "ids": [1]}, {"_id": "null", "ids": [4]}, {"_id": "missing", "ids": [3]}]`)) {
		t.Fatalf("results: %v", out)
	}
	want := []string{`{ s: "A", k: { $eq: 1 } }`, `{ s: "A", k: { $eq: null } }`, `{ s: "A" }`}
	if strings.Join(sent, "\n") != strings.Join(want, "\n") {
		t.Fatalf("finds:\n%s\nwant\n%s", strings.Join(sent, "\n"), strings.Join(want, "\n"))
	}
	// With the concise form the equality of localField joins the pushed
	// predicates; a constant side is pushed too.
	sent = nil
	pipe = `[{"$lookup": {"from": "f", "localField": "x", "foreignField": "k", "pipeline": [{"$match": {"$expr": {"$eq": ["$s", {"$concat": ["A", ""]}]}}}], "as": "j"}}]`
	if _, err := run(t, `[{"_id": 1, "x": 1}]`, pipe, o); err != nil {
		t.Fatal(err)
	}
	if len(sent) != 1 || sent[0] != `{ $and: [ { k: { $eq: 1 } }, { s: { $eq: "A" } } ] }` {
		t.Fatalf("concise form: %v", sent)
	}
}
