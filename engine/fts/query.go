package fts

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Query is a parsed $text query: the terms it looks for (in the
// sensitivity asked), those an index finds them by (folded and without
// diacritics), the terms and phrases a match must not hold, and the
// phrases it must.
type Query struct {
	Terms              []string
	BoundsTerms        []string
	NegatedTerms       []string
	Phrases            []string
	NegatedPhrases     []string
	Language           *Language
	CaseSensitive      bool
	DiacriticSensitive bool
}

// ParseQuery parses a $search string as mongod does: words, "quoted
// phrases" (whose words are terms too), and -negated words or phrases
// (a minus after whitespace, or at the start).
func ParseQuery(search string, l *Language, caseSensitive, diacriticSensitive bool) *Query {
	q := &Query{Language: l, CaseSensitive: caseSensitive, DiacriticSensitive: diacriticSensitive}
	var pos, neg []string
	inNeg, inPhrase := false, false
	phraseStart := 0
	space := true // whitespace before the current token
	isSpace := func(c byte) bool { return c == ' ' || c == '\n' || c == '\v' || c == '\f' || c == '\r' }
	for i := 0; i < len(search); {
		c := search[i]
		switch {
		case isSpace(c):
			space = true
			i++
			continue
		case c == '-':
			if !inPhrase && space {
				inNeg = true
			}
			i++
		case c == '"':
			if inPhrase {
				phrase := search[phraseStart:i]
				if inNeg {
					q.NegatedPhrases = append(q.NegatedPhrases, phrase)
				} else {
					q.Phrases = append(q.Phrases, phrase)
				}
				inPhrase = false
			} else {
				if space {
					inNeg = false
				}
				inPhrase = true
				phraseStart = i + 1
			}
			i++
		default:
			j := i
			for j < len(search) && !isSpace(search[j]) && search[j] != '-' && search[j] != '"' {
				j++
			}
			text := search[i:j]
			switch {
			case inPhrase && inNeg:
				// a negated phrase's words are not terms
			default:
				if inNeg && space {
					inNeg = false
				}
				if inNeg {
					neg = append(neg, text)
				} else {
					pos = append(pos, text)
				}
			}
			i = j
		}
		space = false
	}
	posS, negS := strings.Join(pos, " "), strings.Join(neg, " ")
	q.BoundsTerms = dedupe(l.tokens(posS, tokenOptions{stopWords: true}))
	o := tokenOptions{stopWords: true, caseSensitive: caseSensitive, diacriticSensitive: diacriticSensitive}
	q.Terms = dedupe(l.tokens(posS, o))
	q.NegatedTerms = dedupe(l.tokens(negS, o))
	return q
}

func dedupe(ts []string) []string {
	var out []string
	for _, t := range ts {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// Match reports whether d, indexed by s, answers q: one of its terms,
// none of its negated terms, each of its phrases and none of its
// negated phrases, each string read in its own language.
func (q *Query) Match(d bson.D, s *Spec) (bool, error) {
	anyTerm, negated := false, false
	phrases := make([]bool, len(q.Phrases))
	negPhrase := false
	o := tokenOptions{caseSensitive: q.CaseSensitive, diacriticSensitive: q.DiacriticSensitive}
	err := s.visit(d, func(str string, _ float64, l *Language) {
		for _, t := range l.tokens(str, o) {
			if slices.Contains(q.Terms, t) {
				anyTerm = true
			}
			if slices.Contains(q.NegatedTerms, t) {
				negated = true
			}
		}
		if len(q.Phrases) == 0 && len(q.NegatedPhrases) == 0 {
			return
		}
		hay := q.normalize(str, l)
		for i, p := range q.Phrases {
			if !phrases[i] && strings.Contains(hay, q.normalize(p, l)) {
				phrases[i] = true
			}
		}
		for _, p := range q.NegatedPhrases {
			if strings.Contains(hay, q.normalize(p, l)) {
				negPhrase = true
			}
		}
	})
	if err != nil {
		return false, err
	}
	return anyTerm && !negated && !negPhrase && !slices.Contains(phrases, false), nil
}

// normalize is s as a phrase is compared in language l: folded (always
// for Turkish) and stripped of diacritics unless q asks otherwise.
func (q *Query) normalize(s string, l *Language) string {
	if !q.CaseSensitive || l.turkish() {
		s = foldCase(s, l.turkish())
	}
	if !q.DiacriticSensitive {
		s = stripDiacritics(s)
	}
	return s
}

// Score returns d's text score for q: the sum of its term scores of q's
// terms.
func (q *Query) Score(d bson.D, s *Spec) (float64, error) {
	scores, err := s.TermScores(d)
	if err != nil {
		return 0, err
	}
	var sum float64
	for _, t := range q.BoundsTerms {
		sum += scores[t]
	}
	return sum, nil
}
