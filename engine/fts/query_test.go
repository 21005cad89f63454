package fts

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The $search grammar's cases from mongod's unit tests.
func TestParseQuery(t *testing.T) {
	t.Parallel()
	en, _ := LookupLanguage("en")
	for _, tc := range []struct {
		search                          string
		terms, negated, phrases, negPhr []string
	}{
		{"this is -really fun", []string{"fun"}, []string{"realli"}, nil, nil},
		{"- really fun", []string{"realli", "fun"}, nil, nil, nil},
		{"--really fun", []string{"fun"}, []string{"realli"}, nil, nil},
		{"really-fun", []string{"realli", "fun"}, nil, nil, nil},
		{"-really-fun-stuff", nil, []string{"realli", "fun", "stuff"}, nil, nil},
		{`doing a "phrase test" for fun`, []string{"phrase", "test", "fun"}, nil, []string{"phrase test"}, nil},
		{`doing a -"phrase test" for fun`, []string{"fun"}, nil, nil, []string{"phrase test"}},
		{`doing a-"phrase test" for fun`, []string{"phrase", "test", "fun"}, nil, []string{"phrase test"}, nil},
		{`"industry" -Melbourne -Physics`, []string{"industri"}, []string{"melbourn", "physic"}, []string{"industry"}, nil},
		{`foo "-bar"`, []string{"foo", "bar"}, nil, []string{"-bar"}, nil},
	} {
		q := ParseQuery(tc.search, en, false, false)
		sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
		if !slices.Equal(sorted(q.Terms), sorted(tc.terms)) || !slices.Equal(sorted(q.NegatedTerms), sorted(tc.negated)) ||
			!slices.Equal(q.Phrases, tc.phrases) || !slices.Equal(q.NegatedPhrases, tc.negPhr) {
			t.Errorf("%q: terms %q negated %q phrases %q negated phrases %q", tc.search, q.Terms, q.NegatedTerms, q.Phrases, q.NegatedPhrases)
		}
	}
	q := ParseQuery("This is Positively fun", en, true, false)
	if !slices.Equal(q.Terms, []string{"Posit", "fun"}) || !slices.Equal(q.BoundsTerms, []string{"posit", "fun"}) {
		t.Errorf("case-sensitive: terms %q, bounds %q", q.Terms, q.BoundsTerms)
	}
}

// Scores as mongod's jstests give them.
func TestScores(t *testing.T) {
	t.Parallel()
	en, _ := LookupLanguage("english")
	spec := &Spec{Weights: map[string]float64{"x": 1}, DefaultLanguage: en, LanguageOverride: "language"}
	heavy := &Spec{Weights: map[string]float64{"x": 10}, DefaultLanguage: en, LanguageOverride: "language"}
	for _, tc := range []struct {
		spec  *Spec
		x, q  string
		match bool
		score float64
	}{
		{spec, "textual content", "textual content -irrelevant", true, 1.5},
		{spec, "additional content", "textual content -irrelevant", true, 0.75},
		{spec, "irrelevant content", "textual content -irrelevant", false, 0},
		{spec, "test", "test", true, 1.1},
		{spec, "hello", "test", false, 0},
		{spec, "test test", "test", true, 1.5},
		{heavy, "az b x", "az", true, 20.0 / 3},
		{spec, "a phrase test here", `"phrase test"`, true, 1.5}, // a, here: stop words
		{spec, "a test of phrases", `"phrase test"`, false, 0},
	} {
		d := bson.D{{Key: "x", Value: tc.x}}
		q := ParseQuery(tc.q, en, false, false)
		ok, err := q.Match(d, tc.spec)
		if err != nil || ok != tc.match {
			t.Errorf("%q for %q: match %v, %v", tc.q, tc.x, ok, err)
			continue
		}
		if !ok {
			continue
		}
		s, _ := q.Score(d, tc.spec)
		if math.Abs(s-tc.score) > 1e-9 {
			t.Errorf("%q for %q: score %v, want %v", tc.q, tc.x, s, tc.score)
		}
	}
}

// A document names its language, and each sub-document may name its
// own; a bad one is refused with mongod's codes.
func TestLanguageOverride(t *testing.T) {
	t.Parallel()
	en, _ := LookupLanguage("english")
	spec := &Spec{Weights: map[string]float64{"body": 1, "quote.text": 1}, DefaultLanguage: en, LanguageOverride: "language"}
	d := bson.D{{Key: "language", Value: "spanish"}, {Key: "body", Value: "corriendo"},
		{Key: "quote", Value: bson.D{{Key: "language", Value: "english"}, {Key: "text", Value: "running"}}}}
	scores, err := spec.TermScores(d)
	if err != nil || scores["corr"] == 0 || scores["run"] == 0 {
		t.Fatalf("scores %v, %v", scores, err)
	}
	for v, code := range map[any]string{int32(1): "17261", "klingon": "17262"} {
		_, err := spec.TermScores(bson.D{{Key: "language", Value: v}, {Key: "body", Value: "x"}})
		if err == nil || !strings.Contains(fmt.Sprint(err), code) {
			t.Errorf("language %v: %v, want %s", v, err, code)
		}
	}
}
