package fts

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"golang.org/x/text/unicode/norm"
)

// tokenOptions says how a string becomes terms: whether stop words are
// dropped, and whether case and diacritics are kept.
type tokenOptions struct {
	stopWords          bool
	caseSensitive      bool
	diacriticSensitive bool
}

// delimiterTables are the Unicode properties whose code points separate
// words in text index version 3.
var delimiterTables = []*unicode.RangeTable{
	unicode.White_Space, unicode.Dash, unicode.Hyphen, unicode.Quotation_Mark,
	unicode.Terminal_Punctuation, unicode.Pattern_Syntax, unicode.STerm,
}

// isDelimiter reports whether r separates words in language l: an
// apostrophe does, but in English.
func isDelimiter(r rune, l *Language) bool {
	if r == '\'' {
		return !l.english()
	}
	if r < utf8.RuneSelf {
		return asciiDelimiter[r]
	}
	return unicode.IsOneOf(delimiterTables, r)
}

var asciiDelimiter = func() (t [utf8.RuneSelf]bool) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		t[r] = unicode.IsOneOf(delimiterTables, r)
	}
	return
}()

// words splits s into the runs of code points between delimiters.
func words(s string, l *Language) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return isDelimiter(r, l) })
}

// tokens returns the terms of s in language l: its words folded to
// lower case (unless case-sensitive), stop words dropped (when asked),
// stemmed, and stripped of diacritics (unless diacritic-sensitive).
func (l *Language) tokens(s string, o tokenOptions) []string {
	var out []string
	var env *snowballstem.Env
	for _, w := range words(s, l) {
		lower := foldCase(w, l.turkish())
		if o.stopWords && l.stop[lower] {
			continue
		}
		t := lower
		if o.caseSensitive {
			t = w
		}
		if l.stem != nil {
			if env == nil {
				env = snowballstem.NewEnv(t)
			} else {
				env.SetCurrent(t)
			}
			l.stem(env)
			t = env.Current()
		}
		if !o.diacriticSensitive {
			t = stripDiacritics(t)
		}
		out = append(out, t)
	}
	return out
}

// foldCase is Unicode's simple case folding of s (one code point to
// one), with Turkish's dotted and dotless I when turkish.
func foldCase(s string, turkish bool) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			ascii = false
			break
		}
	}
	if ascii && !turkish {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(foldRune(r, turkish))
	}
	return b.String()
}

// foldRune is one code point's simple case folding.
func foldRune(r rune, turkish bool) rune {
	switch r {
	case 'I':
		if turkish {
			return 'ı'
		}
	case 'İ':
		if turkish {
			return 'i'
		}
		return r // no simple folding: its dot goes with the diacritics
	}
	if f, ok := simpleFoldExceptions[r]; ok {
		return f
	}
	return unicode.ToLower(r)
}

// simpleFoldExceptions are the code points whose simple case folding
// is not their lower case.
var simpleFoldExceptions = map[rune]rune{
	'ſ': 's', 'ς': 'σ', 'ϐ': 'β', 'ϑ': 'θ', 'ϕ': 'φ', 'ϖ': 'π', 'ϰ': 'κ', 'ϱ': 'ρ', 'ϵ': 'ε',
	'ẛ': 'ṡ', '\u0345': 'ι', 'ᾈ': 'ᾀ', 'ι': 'ι',
}

// stripDiacritics removes the diacritics of s: each code point that is
// a diacritic goes, and each whose decomposition holds diacritics
// becomes the one code point left without them, when there is one.
func stripDiacritics(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c == '^' || c == '`' {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if unicode.Is(unicode.Diacritic, r) {
			continue
		}
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		b.WriteRune(stripRune(r))
	}
	return b.String()
}

// stripRune is r without the diacritics of its decomposition, when
// that leaves one code point; else r. A code point whose decomposition
// is another one alone (the Ohm and Kelvin signs, CJK compatibility
// ideographs) becomes that one, as in mongod.
func stripRune(r rune) rune {
	d := norm.NFD.String(string(r))
	if d == string(r) {
		return r
	}
	kept := strings.Map(func(c rune) rune {
		if unicode.Is(unicode.Diacritic, c) {
			return -1
		}
		return c
	}, d)
	c := norm.NFC.String(kept)
	if n, size := utf8.DecodeRuneInString(c); size == len(c) && n != utf8.RuneError {
		return n
	}
	return r
}
