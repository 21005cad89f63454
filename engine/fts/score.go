package fts

import (
	"crypto/md5"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Spec is what a text index indexes: the weighted fields (or every
// string, Wildcard), the language of a document that names none, and
// the field by which a document or sub-document names its own.
type Spec struct {
	Weights          map[string]float64
	Wildcard         bool
	DefaultLanguage  *Language
	LanguageOverride string
}

// SpecFromOptions returns the spec of a text index from its stored
// options (weights, default_language, language_override), with mongod's
// defaults for any missing.
func SpecFromOptions(opts bson.D) *Spec {
	en, _ := LookupLanguage("english")
	s := &Spec{Weights: map[string]float64{}, DefaultLanguage: en, LanguageOverride: "language"}
	for _, e := range opts {
		switch e.Key {
		case "weights":
			w, _ := e.Value.(bson.D)
			for _, we := range w {
				if we.Key == "$**" {
					s.Wildcard = true
					continue
				}
				s.Weights[we.Key] = weightOf(we.Value)
			}
		case "default_language":
			name, _ := e.Value.(string)
			if l, ok := LookupLanguage(name); ok {
				s.DefaultLanguage = l
			}
		case "language_override":
			if name, ok := e.Value.(string); ok {
				s.LanguageOverride = name
			}
		}
	}
	return s
}

// weightOf is a stored weight as a number.
func weightOf(v any) float64 {
	switch n := v.(type) {
	case int32:
		return float64(n)
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return 1
}

// MongoDB's codes for a document's language override, and for text
// that is not UTF-8.
const (
	codeInvalidUTF8         = document.Code(28755)
	codeOverrideNotString   = document.Code(17261)
	codeOverrideUnsupported = document.Code(17262)
)

// visit calls fn for each string of d the index holds, with its weight
// and language: strings at a weighted path (every string, for a
// wildcard index), an array's elements at the array's path. A document
// or sub-document naming a language in the override field is read in
// it; one that names none, in its parent's.
func (s *Spec) visit(d bson.D, fn func(str string, weight float64, l *Language)) error {
	return s.visitDoc(d, "", s.DefaultLanguage, fn)
}

func (s *Spec) visitDoc(d bson.D, prefix string, l *Language, fn func(string, float64, *Language)) error {
	if v, ok := document.Get(d, s.LanguageOverride); ok {
		name, isStr := v.(string)
		if !isStr {
			return document.Errorf(codeOverrideNotString, "found language override field in document with non-string type")
		}
		ol, ok := LookupLanguage(name)
		if !ok {
			return document.Errorf(codeOverrideUnsupported, "language override unsupported: %s", name)
		}
		l = ol
	}
	for _, e := range d {
		if s.Wildcard && e.Key == s.LanguageOverride {
			continue
		}
		path := e.Key
		if prefix != "" {
			path = prefix + "." + e.Key
		}
		if err := s.visitValue(e.Value, path, l, false, fn); err != nil {
			return err
		}
	}
	return nil
}

func (s *Spec) visitValue(v any, path string, l *Language, inArray bool, fn func(string, float64, *Language)) error {
	switch t := v.(type) {
	case string:
		_, weighted := s.Weights[path]
		if (weighted || s.Wildcard) && !utf8.ValidString(t) {
			return document.Errorf(codeInvalidUTF8, "text contains invalid UTF-8")
		}
		if w, ok := s.Weights[path]; ok {
			fn(t, w, l)
		} else if s.Wildcard {
			fn(t, s.wildcardWeight(path), l)
		}
	case bson.D:
		if s.Wildcard || s.underWeighted(path) {
			return s.visitDoc(t, path, l, fn)
		}
	case bson.A:
		if inArray && !s.Wildcard {
			return nil
		}
		if _, ok := s.Weights[path]; ok || s.Wildcard || s.underWeighted(path) {
			for _, el := range t {
				if err := s.visitValue(el, path, l, true, fn); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// wildcardWeight is the weight of a string at path, which no weight
// names, in a wildcard index: as in mongod, the weight of the first
// weighted path after path in byte order, or 1 when there is none (so
// with weights {title: 10}, a string at "body" weighs 10 and one at
// "zone" weighs 1).
func (s *Spec) wildcardWeight(path string) float64 {
	w, next := 1.0, ""
	for k, kw := range s.Weights {
		if k > path && (next == "" || k < next) {
			w, next = kw, k
		}
	}
	return w
}

// underWeighted reports whether a weighted path lies below path.
func (s *Spec) underWeighted(path string) bool {
	for k := range s.Weights {
		if len(k) > len(path) && k[len(path)] == '.' && strings.HasPrefix(k, path) {
			return true
		}
	}
	return false
}

// TermScores returns the terms of d's indexed strings, each with its
// score: per string of weight w with N terms (stop words dropped), a
// term met c times scores w x (2 - 2^(1-c)) x (0.5 c/N + 0.5), times 1.1
// when it is the whole string; a term's scores over strings add up.
func (s *Spec) TermScores(d bson.D) (map[string]float64, error) {
	out := map[string]float64{}
	err := s.visit(d, func(str string, w float64, l *Language) {
		scoreString(out, str, w, l)
	})
	return out, err
}

func scoreString(out map[string]float64, str string, w float64, l *Language) {
	terms := l.tokens(str, tokenOptions{stopWords: true})
	if len(terms) == 0 {
		return
	}
	type acc struct{ count, exp, freq float64 }
	seen := map[string]*acc{}
	var order []string
	for _, t := range terms {
		a := seen[t]
		if a == nil {
			a = &acc{}
			seen[t] = a
			order = append(order, t)
		}
		if a.exp == 0 {
			a.exp = 1
		} else {
			a.exp *= 2
		}
		a.count++
		a.freq += 1 / a.exp
	}
	n := float64(len(terms))
	for _, t := range order {
		a := seen[t]
		coeff := 0.5*a.count/n + 0.5
		adj := 1.0
		if len(str) == len(t) && asciiEqualFold(str, t) {
			adj = 1.1
		}
		out[t] += w * a.freq * coeff * adj
	}
}

func asciiEqualFold(a, b string) bool {
	return asciiLower(a) == asciiLower(b)
}

// maxTermBytes is the longest term a key holds as it is; a longer one
// is its first maxTermBytes bytes and the hex MD5 of the whole.
const maxTermBytes = 224

// KeyTerm returns the form of term that index keys hold.
func KeyTerm(term string) string {
	if len(term) <= maxTermBytes {
		return term
	}
	sum := md5.Sum([]byte(term))
	return term[:maxTermBytes] + hex.EncodeToString(sum[:])
}
