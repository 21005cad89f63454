package query

import (
	"context"
	"slices"
	"testing"

	"github.com/ttlkv/ttlkv/collation"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// collCorpus has case, accents, punctuation, numbers and non-Latin
// scripts.
var collCorpus = []string{"cafe", "Café", "CAFE", "café", "ca-fe", "10", "9", "Straße", "strasse", "Ελλάδα", "ελλαδα", "日本", "résumé", "Resume"}

// TestFilterUnderCollation is the table per strength: which corpus
// strings a filter matches, as MongoDB (ICU) answers (jstests/core/
// collation.js: strength 1 ignores case and accents, 2 ignores case).
func TestFilterUnderCollation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		coll   string
		filter string
		want   []string
	}{
		{`{"locale": "simple"}`, `{"s": "cafe"}`, []string{"cafe"}},
		{`{"locale": "en", "strength": 1}`, `{"s": "cafe"}`, []string{"cafe", "Café", "CAFE", "café"}},
		{`{"locale": "en", "strength": 2}`, `{"s": "cafe"}`, []string{"cafe", "CAFE"}},
		{`{"locale": "en", "strength": 3}`, `{"s": "cafe"}`, []string{"cafe"}},
		{`{"locale": "en", "strength": 1}`, `{"s": {"$ne": "cafe"}}`, []string{"ca-fe", "10", "9", "Straße", "strasse", "Ελλάδα", "ελλαδα", "日本", "résumé", "Resume"}},
		{`{"locale": "en", "strength": 1}`, `{"s": {"$in": ["resume", "ελλαδα"]}}`, []string{"Ελλάδα", "ελλαδα", "résumé", "Resume"}},
		{`{"locale": "en", "strength": 1}`, `{"s": {"$nin": ["resume", "ελλαδα", "cafe"]}}`, []string{"ca-fe", "10", "9", "Straße", "strasse", "日本"}},
		{`{"locale": "en", "strength": 1}`, `{"s": "strasse"}`, []string{"Straße", "strasse"}},
		{`{"locale": "en", "strength": 1, "alternate": "shifted"}`, `{"s": "cafe"}`, []string{"cafe", "Café", "CAFE", "café", "ca-fe"}},
		{`{"locale": "en", "numericOrdering": true}`, `{"s": {"$gt": "9"}}`, []string{"cafe", "Café", "CAFE", "café", "ca-fe", "10", "Straße", "strasse", "Ελλάδα", "ελλαδα", "日本", "résumé", "Resume"}},
		{`{"locale": "en"}`, `{"s": {"$gt": "9", "$lt": "a"}}`, []string{}},
		{`{"locale": "en", "strength": 2}`, `{"s": {"$gte": "CAFE", "$lte": "cafe"}}`, []string{"cafe", "CAFE"}},
		{`{"locale": "en", "strength": 2}`, `{"s": {"$in": [{"$regularExpression": {"pattern": "^C", "options": ""}}, "resume"]}}`, []string{"Café", "CAFE", "Resume"}},
		// Regexes match bytes, never collated (MongoDB: collation does not apply to $regex).
		{`{"locale": "en", "strength": 1}`, `{"s": {"$regex": "^caf"}}`, []string{"cafe", "café"}},
	}
	for _, tc := range cases {
		c, err := collation.Parse(D(t, tc.coll))
		if err != nil {
			t.Fatalf("%s: %v", tc.coll, err)
		}
		f, err := ParseFilter(D(t, tc.filter))
		if err != nil {
			t.Fatalf("%s: %v", tc.filter, err)
		}
		if f, err = f.Collate(c); err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, s := range collCorpus {
			if f.Match(bson.D{{Key: "s", Value: s}}) {
				got = append(got, s)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %s matched %q, want %q", tc.coll, tc.filter, got, tc.want)
		}
	}
}

// TestCollationNested checks that strings inside arrays and embedded
// documents compare under the collation, and $elemMatch and $all too.
func TestCollationNested(t *testing.T) {
	t.Parallel()
	c := collation.MustParse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}})
	doc := D(t, `{"tags": ["Red", "GREEN"], "o": {"n": "Bob"}, "items": [{"k": "ABC"}]}`)
	for _, fs := range []string{
		`{"tags": "red"}`, `{"tags": {"$all": ["green", "RED"]}}`, `{"o": {"n": "bob"}}`,
		`{"items": {"$elemMatch": {"k": "abc"}}}`, `{"tags": {"$elemMatch": {"$eq": "green"}}}`,
		`{"tags": ["red", "green"]}`, `{"$or": [{"o.n": "BOB"}, {"x": 1}]}`, `{"o.n": {"$not": {"$eq": "x"}}}`,
	} {
		f, err := ParseFilter(D(t, fs))
		if err != nil {
			t.Fatal(err)
		}
		if f.Match(doc) && fs != `{"o.n": {"$not": {"$eq": "x"}}}` {
			t.Errorf("%s matches without collation", fs)
		}
		if f, err = f.Collate(c); err != nil {
			t.Fatal(err)
		}
		if !f.Match(doc) {
			t.Errorf("%s does not match under strength 2", fs)
		}
	}
}

func TestCollateGivesExprItsCollation(t *testing.T) {
	t.Parallel()
	// A filter holding a $expr, built directly so the test does not
	// depend on an expression compiler being registered: the predicate
	// reports the collation it was handed.
	var got *collation.Collator
	f := &Filter{root: andExpr{exprNode{pred: func(_ context.Context, _ bson.D, c *collation.Collator) (bool, error) { got = c; return true, nil }}}, hasExpr: true}
	c := collation.MustParse(bson.D{{Key: "locale", Value: "en"}})
	g, err := f.Collate(c)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Match(bson.D{}) || got != c {
		t.Errorf("the $expr of a collated filter ran under %v, want %v", got, c)
	}
	if !f.Match(bson.D{}) || got != nil {
		t.Errorf("the $expr of the filter itself ran under %v, want simple", got)
	}
	if g, err := f.Collate(nil); err != nil || g != f {
		t.Errorf("Collate(simple) = %v, %v; want the filter itself", g, err)
	}
}

func TestSortUnderCollation(t *testing.T) {
	t.Parallel()
	c := collation.MustParse(bson.D{{Key: "locale", Value: "en"}, {Key: "numericOrdering", Value: true}})
	s, err := ParseSort(D(t, `{"s": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	s = s.Collate(c)
	docs := []bson.D{}
	for _, v := range []any{"b", "B", "a10", "a9", int32(5), "Á", bson.A{"z", "A"}} {
		docs = append(docs, bson.D{{Key: "s", Value: v}})
	}
	slices.SortStableFunc(docs, s.Compare)
	var got []any
	for _, d := range docs {
		got = append(got, d[0].Value)
	}
	// Numbers before strings; the array sorts by its least element "A".
	want := []any{int32(5), bson.A{"z", "A"}, "Á", "a9", "a10", "b", "B"}
	for i := range want {
		if !equalValues(got[i], want[i]) {
			t.Fatalf("sorted %v, want %v", got, want)
		}
	}
}

// TestSortDocsMatchesCompare: SortDocs, which keys each document once,
// orders as Compare does, with and without a collation.
func TestSortDocsMatchesCompare(t *testing.T) {
	t.Parallel()
	for _, coll := range []*collation.Collator{nil, collation.MustParse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 1}})} {
		s, err := ParseSort(D(t, `{"s": -1, "n": 1}`))
		if err != nil {
			t.Fatal(err)
		}
		s = s.Collate(coll)
		var docs []bson.D
		for i, v := range collCorpus {
			docs = append(docs, bson.D{{Key: "s", Value: v}, {Key: "n", Value: int32(i % 3)}})
		}
		docs = append(docs, bson.D{{Key: "s", Value: bson.A{"b", "Z"}}, {Key: "n", Value: int32(0)}}, bson.D{{Key: "n", Value: int32(1)}})
		want := slices.Clone(docs)
		slices.SortStableFunc(want, s.Compare)
		got := slices.Clone(docs)
		s.SortDocs(got)
		for i := range want {
			if !equalValues(got[i], want[i]) {
				t.Fatalf("collation %v: SortDocs[%d] = %v, Compare order has %v", coll.Doc(), i, got[i], want[i])
			}
		}
	}
}

// TestUpdateUnderCollation: an update's collation applies to $min/$max,
// $addToSet, $pull, $pullAll and $push's $sort (jstests/core/query/
// update/collation_update.js).
func TestUpdateUnderCollation(t *testing.T) {
	t.Parallel()
	c := collation.MustParse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}})
	cases := []struct{ doc, update, simple, collated string }{
		{`{"a": ["foo", "BAR"]}`, `{"$addToSet": {"a": "FOO"}}`, `{"a": ["foo", "BAR", "FOO"]}`, `{"a": ["foo", "BAR"]}`},
		{`{"a": ["foo", "FOO", "bar"]}`, `{"$pull": {"a": "foo"}}`, `{"a": ["FOO", "bar"]}`, `{"a": ["bar"]}`},
		{`{"a": ["foo", "FOO", "bar"]}`, `{"$pull": {"a": {"$in": ["FoO"]}}}`, `{"a": ["foo", "FOO", "bar"]}`, `{"a": ["bar"]}`},
		{`{"a": ["foo", "FOO", "bar"]}`, `{"$pullAll": {"a": ["Foo"]}}`, `{"a": ["foo", "FOO", "bar"]}`, `{"a": ["bar"]}`},
		{`{"a": "b"}`, `{"$min": {"a": "A"}}`, `{"a": "A"}`, `{"a": "A"}`},
		{`{"a": "B"}`, `{"$max": {"a": "a"}}`, `{"a": "a"}`, `{"a": "B"}`},
		{`{"a": ["b", "C"]}`, `{"$push": {"a": {"$each": ["a"], "$sort": 1}}}`, `{"a": ["C", "a", "b"]}`, `{"a": ["a", "b", "C"]}`},
		{`{"a": [{"k": "b"}, {"k": "C"}]}`, `{"$push": {"a": {"$each": [{"k": "a"}], "$sort": {"k": 1}}}}`,
			`{"a": [{"k": "C"}, {"k": "a"}, {"k": "b"}]}`, `{"a": [{"k": "a"}, {"k": "b"}, {"k": "C"}]}`},
	}
	for _, tc := range cases {
		u, err := ParseUpdate(D(t, tc.update))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []struct {
			u    *Update
			want string
		}{{u, tc.simple}, {u.Collate(c), tc.collated}} {
			got, err := v.u.Apply(D(t, tc.doc), UpdateOptions{Now: testNow})
			if err != nil {
				t.Fatalf("%s: %v", tc.update, err)
			}
			if js(got) != js(D(t, v.want)) {
				t.Errorf("%s on %s: got %s, want %s", tc.update, tc.doc, js(got), js(D(t, v.want)))
			}
		}
	}
}
