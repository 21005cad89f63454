// Package fts is MongoDB's text search for ttlkv: the languages of a
// text index (stemmers, stop words, their names and aliases), the
// tokenizer of text index version 3, a document's term scores, the
// $search string's grammar and a query's match and score.
// docs/text.md says what it does and where it differs from mongod.
package fts

import (
	"strings"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/turkish"
)

// Language is a language of text index version 3: its canonical name,
// its Snowball stemmer (none for "none") and its stop words.
type Language struct {
	Name string
	stem func(*snowballstem.Env) bool
	stop map[string]bool
}

// english keeps an apostrophe inside a word; turkish folds I and İ
// its own way.
func (l *Language) english() bool { return l.Name == "english" }
func (l *Language) turkish() bool { return l.Name == "turkish" }

var languages = map[string]*Language{}

func init() {
	for _, l := range []struct {
		name, alias string
		stem        func(*snowballstem.Env) bool
	}{
		{"danish", "da", danish.Stem}, {"dutch", "nl", dutch.Stem}, {"english", "en", english.Stem},
		{"finnish", "fi", finnish.Stem}, {"french", "fr", french.Stem}, {"german", "de", german.Stem},
		{"hungarian", "hu", hungarian.Stem}, {"italian", "it", italian.Stem}, {"norwegian", "nb", norwegian.Stem},
		{"portuguese", "pt", portuguese.Stem}, {"romanian", "ro", romanian.Stem}, {"russian", "ru", russian.Stem},
		{"spanish", "es", spanish.Stem}, {"swedish", "sv", swedish.Stem}, {"turkish", "tr", turkish.Stem},
		{"none", "", nil},
	} {
		lang := &Language{Name: l.name, stem: l.stem, stop: map[string]bool{}}
		list := stopWordLists[l.name]
		if l.name == "english" {
			list = englishStopWords
		}
		for _, w := range strings.Fields(list) {
			lang.stop[w] = true
		}
		languages[l.name] = lang
		if l.alias != "" {
			languages[l.alias] = lang
		}
	}
}

// LookupLanguage returns the language named name (a canonical name such
// as "english", or its two-letter code such as "en"; any case), and
// whether there is one.
func LookupLanguage(name string) (*Language, bool) {
	l, ok := languages[asciiLower(name)]
	return l, ok
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// englishStopWords are the words an English text index does not keep:
// Snowball's English list, which mongod's is.
const englishStopWords = `a about above after again against all am an and any are aren't as at be because been
before being below between both but by can't cannot could couldn't did didn't do does
doesn't doing don't down during each few for from further had hadn't has hasn't have
haven't having he he'd he'll he's her here here's hers herself him himself his how how's
i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my
myself no nor not of off on once only or other ought our ours ourselves out over own same
shan't she she'd she'll she's should shouldn't so some such than that that's the their
theirs them themselves then there there's these they they'd they'll they're they've this
those through to too under until up very was wasn't we we'd we'll we're we've were weren't
what what's when when's where where's which while who who's whom why why's with won't
would wouldn't you you'd you'll you're you've your yours yourself yourselves`
