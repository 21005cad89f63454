package query

import (
	"strings"

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

	match   func(bson.D) (bool, error)
	underOr bool // a branch of the top-level $or
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
	case top.inOr && !top.topOr:
		return nil, document.Errorf(document.CodeNoQueryExecutionPlans, "Failed to produce a solution for TEXT under OR - ttlkv plans $text under an $or of the filter's top level only")
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
	t.underOr = top.inOr
	return textNode{t}, nil
}

// TextUnderOr reports whether the filter's $text is a branch of its
// top-level $or rather than a condition of the whole filter.
func (f *Filter) TextUnderOr() bool { return f != nil && f.textOr }

// holdsText reports whether a holds the $text node.
func holdsText(a andExpr) bool {
	for _, e := range a {
		switch t := e.(type) {
		case textNode:
			return true
		case andExpr:
			if holdsText(t) {
				return true
			}
		}
	}
	return false
}

// TextScoreField is the field under which a $text query's documents
// carry their text score between the scan and the projection: a name no
// stored document can have (BSON field names hold no NUL byte).
const TextScoreField = "\x00textScore"

// metaArg returns the name of a {$meta: name} value, and whether v is
// one.
func metaArg(v any) (string, bool, error) {
	m, ok := v.(bson.D)
	if !ok || len(m) == 0 || m[0].Key != "$meta" {
		return "", false, nil
	}
	if len(m) != 1 {
		return "", true, badValue("$meta takes one argument")
	}
	name, ok := m[0].Value.(string)
	if !ok {
		return "", true, document.Errorf(document.Code(17307), "$meta only supports string arguments")
	}
	if name != "textScore" && name != "geoNearDistance" && name != "geoNearPoint" {
		if knownMeta[name] {
			return "", true, badValue("$meta %q is not supported by ttlkv", name)
		}
		return "", true, document.Errorf(document.Code(17308), "Unsupported argument to $meta: %s", name)
	}
	return name, true, nil
}

// knownMeta are mongod's other $meta names, which ttlkv does not keep.
var knownMeta = map[string]bool{"randVal": true, "searchScore": true, "searchHighlights": true, "geoNearDistance": true,
	"geoNearPoint": true, "recordId": true, "indexKey": true, "sortKey": true, "searchScoreDetails": true,
	"searchSequenceToken": true, "score": true, "scoreDetails": true, "vectorSearchScore": true}

// NeedsTextScore reports whether the sort orders by {$meta: "textScore"}.
func (s *Sort) NeedsTextScore() bool {
	if s == nil {
		return false
	}
	for _, k := range s.keys {
		if k.Path == TextScoreField {
			return true
		}
	}
	return false
}

// NeedsTextScore reports whether the projection writes a text score.
func (p *Projection) NeedsTextScore() bool { return p != nil && len(p.textScore) > 0 }

// TextScoreOf returns the text score d carries, and whether it carries
// one (a top-level TextScoreField, anywhere: stages may add fields after
// it).
func TextScoreOf(d bson.D) (any, bool) {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i].Key == TextScoreField {
			return d[i].Value, true
		}
	}
	return nil, false
}

// WithoutTextScore returns d without its top-level TextScoreField (d
// itself when it has none).
func WithoutTextScore(d bson.D) bson.D {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i].Key == TextScoreField {
			out := make(bson.D, 0, len(d)-1)
			out = append(out, d[:i]...)
			return append(out, d[i+1:]...)
		}
	}
	return d
}

// StripTextScore returns d without any TextScoreField, at any depth (a
// document an expression copied whole may hold one).
func StripTextScore(d bson.D) bson.D {
	out, _ := stripDoc(d)
	return out
}

func stripDoc(d bson.D) (bson.D, bool) {
	var out bson.D
	for i, e := range d {
		if e.Key == TextScoreField {
			if out == nil {
				out = append(make(bson.D, 0, len(d)), d[:i]...)
			}
			continue
		}
		v, changed := stripValue(e.Value)
		if changed && out == nil {
			out = append(make(bson.D, 0, len(d)), d[:i]...)
		}
		if out != nil {
			out = append(out, bson.E{Key: e.Key, Value: v})
		}
	}
	if out == nil {
		return d, false
	}
	return out, true
}

func stripValue(v any) (any, bool) {
	switch t := v.(type) {
	case bson.D:
		return stripDoc(t)
	case bson.A:
		var out bson.A
		for i, x := range t {
			nv, changed := stripValue(x)
			if changed && out == nil {
				out = append(bson.A(nil), t...)
			}
			if out != nil {
				out[i] = nv
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// applyWithTextScore is ApplyErr for a document that carries a text
// score: the projection runs on the document without it (so that no
// expression sees it), then the score is written at the projection's
// textScore paths.
func (p *Projection) applyWithTextScore(d bson.D) (bson.D, error) {
	score, _ := TextScoreOf(d)
	out, err := p.applyErr(WithoutTextScore(d))
	if err != nil || p == nil {
		return out, err
	}
	for _, path := range p.textScore {
		out = setScorePath(out, path, score)
	}
	return out, nil
}

// setScorePath sets the value at a dotted path of d, replacing a field there
// or adding it (and the documents on the way) at the end.
func setScorePath(d bson.D, path string, v any) bson.D {
	head, rest, more := strings.Cut(path, ".")
	for i, e := range d {
		if e.Key != head {
			continue
		}
		if !more {
			d[i].Value = v
			return d
		}
		sub, _ := e.Value.(bson.D)
		d[i].Value = setScorePath(append(bson.D(nil), sub...), rest, v)
		return d
	}
	if !more {
		return append(d, bson.E{Key: head, Value: v})
	}
	return append(d, bson.E{Key: head, Value: setScorePath(nil, rest, v)})
}
