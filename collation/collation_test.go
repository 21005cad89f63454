package collation

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestParseErrors checks each malformed collation document gets MongoDB's
// code (collator_factory_icu.cpp, the Collation IDL struct, and
// jstests/core/collation.js's invalid-spec cases).
func TestParseErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   any
		code document.Code
	}{
		{"not a document", "en", document.CodeTypeMismatch},
		{"missing locale", bson.D{{Key: "strength", Value: 2}}, document.CodeIDLFailedToParse},
		{"unknown field", bson.D{{Key: "locale", Value: "en"}, {Key: "foo", Value: 1}}, document.CodeIDLUnknownField},
		{"locale not a string", bson.D{{Key: "locale", Value: 1}}, document.CodeTypeMismatch},
		{"empty locale", bson.D{{Key: "locale", Value: ""}}, document.CodeBadValue},
		{"unknown locale", bson.D{{Key: "locale", Value: "xx_YY_ZZ"}}, document.CodeBadValue},
		{"garbage locale", bson.D{{Key: "locale", Value: "en@blah"}}, document.CodeBadValue},
		{"simple with others", bson.D{{Key: "locale", Value: "simple"}, {Key: "strength", Value: 2}}, document.CodeFailedToParse},
		{"strength 0", bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 0}}, document.CodeFailedToParse},
		{"strength 6", bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 6}}, CodeIDLValidator},
		{"strength -1", bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: -1}}, CodeIDLValidator},
		{"strength string", bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: "2"}}, document.CodeTypeMismatch},
		{"caseLevel not bool", bson.D{{Key: "locale", Value: "en"}, {Key: "caseLevel", Value: 1}}, document.CodeTypeMismatch},
		{"caseFirst bad", bson.D{{Key: "locale", Value: "en"}, {Key: "caseFirst", Value: "middle"}}, document.CodeBadValue},
		{"alternate bad", bson.D{{Key: "locale", Value: "en"}, {Key: "alternate", Value: "blanked"}}, document.CodeBadValue},
		{"maxVariable bad", bson.D{{Key: "locale", Value: "en"}, {Key: "maxVariable", Value: "symbol"}}, document.CodeBadValue},
		{"version other", bson.D{{Key: "locale", Value: "en"}, {Key: "version", Value: "1.0"}}, CodeIncompatibleCollationVersion},
		// What x/text cannot honour exactly is refused, not ignored.
		{"caseFirst upper", bson.D{{Key: "locale", Value: "en"}, {Key: "caseFirst", Value: "upper"}}, document.CodeBadValue},
		{"caseLevel true", bson.D{{Key: "locale", Value: "en"}, {Key: "caseLevel", Value: true}}, document.CodeBadValue},
		{"maxVariable space", bson.D{{Key: "locale", Value: "en"}, {Key: "maxVariable", Value: "space"}}, document.CodeBadValue},
	}
	for _, tc := range cases {
		c, err := Parse(tc.in)
		var de *document.Error
		if !errors.As(err, &de) || de.Code != tc.code {
			t.Errorf("%s: Parse(%v) = %v, %v; want code %d", tc.name, tc.in, c, err, tc.code)
		}
	}
}

// TestParseFillsDefaults checks the full specification reported back, as
// listCollections and listIndexes show it.
func TestParseFillsDefaults(t *testing.T) {
	t.Parallel()
	c, err := Parse(bson.D{{Key: "locale", Value: "en_US"}, {Key: "strength", Value: 2.0}})
	if err != nil {
		t.Fatal(err)
	}
	want := bson.D{
		{Key: "locale", Value: "en_US"}, {Key: "caseLevel", Value: false}, {Key: "caseFirst", Value: "off"},
		{Key: "strength", Value: int32(2)}, {Key: "numericOrdering", Value: false},
		{Key: "alternate", Value: "non-ignorable"}, {Key: "maxVariable", Value: "punct"},
		{Key: "normalization", Value: false}, {Key: "backwards", Value: false}, {Key: "version", Value: "57.1"},
	}
	if got := c.Doc(); document.Compare(got, want) != 0 {
		t.Errorf("Doc() = %v, want %v", got, want)
	}
	// The reported spec parses back to an equal collator.
	c2, err := Parse(c.Doc())
	if err != nil || !Equal(c, c2) {
		t.Errorf("round trip: %v, equal %v", err, Equal(c, c2))
	}
	simple, err := Parse(bson.D{{Key: "locale", Value: "simple"}})
	if err != nil || simple != nil || !simple.IsSimple() || simple.Doc() != nil {
		t.Errorf("simple: %v %v", simple, err)
	}
	for _, loc := range []string{"fr_CA", "de@collation=phonebook", "zh", "root", "sv", "en_US_POSIX"} {
		if _, err := Parse(bson.D{{Key: "locale", Value: loc}}); err != nil {
			t.Errorf("locale %q refused: %v", loc, err)
		}
	}
}

// TestCompareByOption is the table per strength and option over a corpus
// with case, accents, punctuation, numbers and non-Latin scripts. Each
// row says how pairs compare; each result is what MongoDB (ICU) gives.
func TestCompareByOption(t *testing.T) {
	t.Parallel()
	type pair struct {
		a, b string
		want int
	}
	cases := []struct {
		spec  bson.D
		pairs []pair
	}{
		{bson.D{{Key: "strength", Value: 1}}, []pair{
			{"cafe", "Café", 0}, {"resume", "RÉSUMÉ", 0}, {"a", "b", -1},
			{"straße", "STRASSE", 0}, {"Ελλάδα", "ελλαδα", 0}, {"привет", "ПРИВЕТ", 0},
		}},
		{bson.D{{Key: "strength", Value: 2}}, []pair{
			{"cafe", "CAFE", 0}, {"cafe", "café", -1}, {"Ελλάδα", "ελλάδα", 0}, {"é", "e", 1},
		}},
		{bson.D{{Key: "strength", Value: 3}}, []pair{
			{"a", "A", -1}, {"cafe", "café", -1}, {"café", "Cafe", 1}, {"a", "b", -1},
			{"日本", "日本", 0}, {"abc", "abd", -1},
		}},
		{bson.D{{Key: "numericOrdering", Value: true}}, []pair{
			{"2", "10", -1}, {"item9", "item10", -1}, {"007", "7", 0},
		}},
		{bson.D{{Key: "numericOrdering", Value: false}}, []pair{
			{"2", "10", 1}, {"item9", "item10", 1},
		}},
		{bson.D{{Key: "alternate", Value: "shifted"}}, []pair{
			{"black-bird", "blackbird", 0}, {"black bird", "blackbird", 0}, {"de-luge", "delta", 1},
		}},
		{bson.D{{Key: "alternate", Value: "non-ignorable"}}, []pair{
			{"black-bird", "blackbird", -1}, {"black bird", "blackbird", -1},
		}},
		{bson.D{{Key: "alternate", Value: "shifted"}, {Key: "strength", Value: 4}}, []pair{
			{"black-bird", "blackbird", -1}, {"ab", "ab", 0},
		}},
		{bson.D{{Key: "backwards", Value: true}, {Key: "strength", Value: 2}}, []pair{
			// French accent order: the last accent difference decides.
			{"cote", "côte", -1}, {"côte", "coté", -1}, {"coté", "côté", -1},
		}},
		{bson.D{{Key: "backwards", Value: false}, {Key: "strength", Value: 2}}, []pair{
			{"cote", "coté", -1}, {"côte", "coté", 1}, {"côte", "côté", -1},
		}},
		{bson.D{{Key: "strength", Value: 5}}, []pair{
			{"a", "a", 0}, {"a", "A", -1},
		}},
	}
	for _, tc := range cases {
		spec := append(bson.D{{Key: "locale", Value: "fr"}}, tc.spec...)
		c, err := Parse(spec)
		if err != nil {
			t.Fatalf("%v: %v", spec, err)
		}
		for _, p := range tc.pairs {
			if got := c.Compare(p.a, p.b); got != p.want {
				t.Errorf("%v: Compare(%q, %q) = %d, want %d", tc.spec, p.a, p.b, got, p.want)
			}
			// The key's byte order is the comparison's.
			if got := bytes.Compare(c.Key(p.a), c.Key(p.b)); got != p.want {
				t.Errorf("%v: key order of %q, %q = %d, want %d", tc.spec, p.a, p.b, got, p.want)
			}
			if got := c.CompareValues(bson.A{p.a}, bson.A{p.b}); got != p.want {
				t.Errorf("%v: CompareValues([%q], [%q]) = %d, want %d", tc.spec, p.a, p.b, got, p.want)
			}
		}
	}
}

// TestSortCorpus sorts a mixed corpus under en strength 2 and checks
// MongoDB's order: letters before digits are not reordered, case and
// accents are tie-broken only at higher strengths.
func TestSortCorpus(t *testing.T) {
	t.Parallel()
	c := MustParse(bson.D{{Key: "locale", Value: "en"}})
	corpus := []string{"banana", "Apple", "apple", "ápple", "10", "9", "-dash", "Zebra", "éclair", "eclair", "日本", "Ωmega", "alpha"}
	got := slices.Clone(corpus)
	slices.SortStableFunc(got, c.Compare)
	want := []string{"-dash", "10", "9", "alpha", "apple", "Apple", "ápple", "banana", "eclair", "éclair", "Zebra", "Ωmega", "日本"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted = %q\nwant     %q", got, want)
	}
	var simple *Collator
	got = slices.Clone(corpus)
	slices.SortStableFunc(got, simple.Compare)
	if got[0] != "-dash" || got[len(got)-1] != "日本" || slices.Index(got, "Zebra") > slices.Index(got, "apple") {
		t.Errorf("simple order = %q", got)
	}
}

func TestKeyValueLeavesFieldNames(t *testing.T) {
	t.Parallel()
	c := MustParse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 1}})
	a := c.KeyValue(bson.D{{Key: "Name", Value: "ÉCOLE"}, {Key: "n", Value: int32(1)}})
	b := c.KeyValue(bson.D{{Key: "Name", Value: "ecole"}, {Key: "n", Value: 1.0}})
	if document.Compare(a, b) != 0 {
		t.Errorf("collated documents differ: %v vs %v", a, b)
	}
	d := c.KeyValue(bson.D{{Key: "name", Value: "ecole"}, {Key: "n", Value: 1.0}})
	if document.Compare(a, d) == 0 {
		t.Error("field names were collated")
	}
}
