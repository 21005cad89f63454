package fts

import (
	"slices"
	"testing"
)

// The tokenizer's cases from mongod's own unit tests and its research
// notes (docs/text.md).
func TestTokens(t *testing.T) {
	t.Parallel()
	en, _ := LookupLanguage("english")
	fr, _ := LookupLanguage("FR")
	tr, _ := LookupLanguage("turkish")
	for _, tc := range []struct {
		l    *Language
		in   string
		o    tokenOptions
		want []string
	}{
		{en, "Do you see Mark's dog running?", tokenOptions{}, []string{"do", "you", "see", "mark", "dog", "run"}},
		{fr, "Voyez-vous «le chien» de Mark courante? C'est bien!", tokenOptions{}, []string{"voi", "vous", "le", "chien", "de", "mark", "cour", "c", "est", "bien"}},
		{fr, "parlâmes parlèrent", tokenOptions{}, []string{"parl", "parl"}},
		{tr, "KAÇ YAŞINDASIN SEN, VE SEN NEREDEN VARDIR?", tokenOptions{}, []string{"kac", "yas", "sen", "ve", "sen", "nere", "var"}},
		{en, "this is -really fun", tokenOptions{stopWords: true}, []string{"realli", "fun"}},
		{en, "This is Positively fun", tokenOptions{stopWords: true, caseSensitive: true}, []string{"Posit", "fun"}},
		{en, "snake_case café", tokenOptions{}, []string{"snake_cas", "cafe"}},
		// French stop words (je, ne, pas; mongod's own case, but for
		// "être", which mongod's list holds and Snowball's does not).
		{fr, "Je ne vais pas etre énervé.", tokenOptions{stopWords: true}, []string{"vais", "etre", "enerv"}},
	} {
		if got := tc.l.tokens(tc.in, tc.o); !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: %q, want %q", tc.l.Name, tc.in, got, tc.want)
		}
	}
}

// Diacritics go as mongod's map takes them: a code point becomes what
// its decomposition leaves without them, when that is one code point,
// singletons included (U+2126 OHM SIGN is Ω, U+F900 is 豈); with
// $diacriticSensitive nothing changes.
func TestStripDiacritics(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"café": "cafe", "Ωmega": "Ωmega", "\u2126mega": "Ωmega", "\u212a": "K", "\uf900": "\u8c48",
		"한국어": "한국어", "ﬁ": "ﬁ", "a^b`c": "abc", "İ": "I", "ǅ": "ǅ",
	} {
		if got := stripDiacritics(in); got != want {
			t.Errorf("stripDiacritics(%q) = %q, want %q", in, got, want)
		}
	}
	none, _ := LookupLanguage("none")
	if got := none.tokens("\u2126 Ω", tokenOptions{}); !slices.Equal(got, []string{"ω", "ω"}) {
		t.Errorf("none: %q", got)
	}
}
