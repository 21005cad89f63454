package indexkey

import (
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/fts"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// IsText reports whether key is a text index's stored key pattern (one
// with _fts: "text").
func IsText(key bson.D) bool { return catalog.IsTextKey(key) }

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

// TextSpec returns what text index ix indexes: its weights, languages
// and override field (the catalog entry's, parsed once).
func TextSpec(ix *catalog.Index) *fts.Spec {
	if ix.Text != nil {
		return ix.Text
	}
	return fts.SpecFromOptions(ix.Extra)
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
