package query

import (
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TextSearch is a filter's $text: its arguments as given, and the
// match the engine binds once it has found the collection's text index
// (docs/text.md).
type TextSearch struct {
	Search             string
	Language           string // "": the text index's default_language
	CaseSensitive      bool
	DiacriticSensitive bool

	match func(bson.D) (bool, error)
}

// Bind sets how a document is matched against the $text: the text
// index's reading of the query.
func (t *TextSearch) Bind(match func(bson.D) (bool, error)) { t.match = match }

// Text returns the filter's $text, nil when it has none.
func (f *Filter) Text() *TextSearch {
	if f == nil {
		return nil
	}
	return f.text
}

// textNode is a top-level $text.
type textNode struct{ t *TextSearch }

func (n textNode) match(root any) bool {
	d, ok := root.(bson.D)
	if !ok {
		return false
	}
	if n.t.match == nil {
		panic(exprFailure{document.Errorf(document.CodeIndexNotFound, "text index required for $text query")})
	}
	r, err := n.t.match(d)
	if err != nil {
		panic(exprFailure{err})
	}
	return r
}

// parseText parses $text's operand: {$search, $language,
// $caseSensitive, $diacriticSensitive}.
func parseText(v any, top *topCtx) (expr, error) {
	switch {
	case top == nil:
		return nil, badValue("$text can only be applied to the top-level document")
	case top.text != nil:
		return nil, badValue("Too many text expressions")
	case top.inNor:
		return nil, badValue("text expression not allowed in nor")
	case top.inOr:
		return nil, document.Errorf(document.CodeNoQueryExecutionPlans, "Failed to produce a solution for TEXT under OR - ttlkv does not plan $text under $or")
	}
	d, ok := v.(bson.D)
	if !ok {
		return nil, badValue("$text expects an object")
	}
	t := &TextSearch{}
	hasSearch := false
	for _, e := range d {
		switch e.Key {
		case "$search", "$language":
			s, ok := e.Value.(string)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "\"%s\" had the wrong type. Expected string, found %s", e.Key, document.TypeName(e.Value))
			}
			if e.Key == "$search" {
				t.Search, hasSearch = s, true
			} else {
				t.Language = s
			}
		case "$caseSensitive", "$diacriticSensitive":
			b, ok := e.Value.(bool)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "\"%s\" had the wrong type. Expected bool, found %s", e.Key, document.TypeName(e.Value))
			}
			if e.Key == "$caseSensitive" {
				t.CaseSensitive = b
			} else {
				t.DiacriticSensitive = b
			}
		default:
			return nil, badValue("extra fields in $text")
		}
	}
	if !hasSearch {
		return nil, document.Errorf(document.CodeNoSuchKey, "Missing expected field \"$search\"")
	}
	top.text = t
	return textNode{t}, nil
}
