package indexkey

import (
	"fmt"
	"sync"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/fts"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// IsText reports whether key is a text index's stored key pattern (one
// with _fts: "text").
func IsText(key bson.D) bool {
	for _, e := range key {
		if e.Key == "_fts" {
			return true
		}
	}
	return false
}

// TextFields returns the fields of a text index's key before _fts (its
// prefix) and after _ftsx (its suffix).
func TextFields(key bson.D) (prefix, suffix []Field) {
	seen := false
	for _, f := range Fields(key) {
		switch {
		case f.Path == "_fts":
			seen = true
		case f.Path == "_ftsx":
		case seen:
			suffix = append(suffix, f)
		default:
			prefix = append(prefix, f)
		}
	}
	return prefix, suffix
}

var textSpecs sync.Map // string(spec options) -> *fts.Spec

// TextSpec returns what text index ix indexes: its weights, languages
// and override field, from the options parseTextIndex stored.
func TextSpec(ix *catalog.Index) *fts.Spec {
	cacheKey := fmt.Sprint(ix.Extra)
	if s, ok := textSpecs.Load(cacheKey); ok {
		return s.(*fts.Spec)
	}
	en, _ := fts.LookupLanguage("english")
	s := &fts.Spec{Weights: map[string]float64{}, DefaultLanguage: en, LanguageOverride: "language"}
	for _, e := range ix.Extra {
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
			if l, ok := fts.LookupLanguage(name); ok {
				s.DefaultLanguage = l
			}
		case "language_override":
			s.LanguageOverride, _ = e.Value.(string)
		}
	}
	textSpecs.Store(cacheKey, s)
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

// codeTextPrefixArray is MongoDB's code for an array in a field before
// a text index's text.
const codeTextPrefixArray = document.Code(16675)

// textKeys returns a text index's keys of d: one a term of its indexed
// strings, each the prefix fields' values, the term and the suffix
// fields' values.
func textKeys(ix *catalog.Index, d bson.D) (keys [][]byte, multikey bool, err error) {
	scores, err := TextSpec(ix).TermScores(d)
	if err != nil || len(scores) == 0 {
		return nil, false, err
	}
	prefix, suffix := TextFields(ix.Key)
	var head []byte
	for _, f := range prefix {
		v, _, arr := scalarAt(d, f.Path)
		if arr {
			return nil, false, document.Errorf(codeTextPrefixArray, "cannot have a multi-key as a prefix to a text index")
		}
		head = lsm.AppendKey(head, v, f.Desc)
	}
	var tail []byte
	for _, f := range suffix {
		vals, _ := PathValues(d, f.Path)
		var v any
		if raw, ok := document.Lookup(d, f.Path); ok {
			v = raw
		} else if len(vals) > 0 {
			v = vals[0]
		}
		tail = lsm.AppendKey(tail, v, f.Desc)
	}
	for t := range scores {
		k := lsm.AppendKey(append([]byte(nil), head...), fts.KeyTerm(t), false)
		keys = append(keys, append(k, tail...))
	}
	return keys, len(keys) > 1, nil
}
