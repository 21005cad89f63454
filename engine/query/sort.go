package query

import (
	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// SortKey is one field of a sort specification.
type SortKey struct {
	Path string // dotted field path
	Desc bool   // true for -1
}

// Sort is a parsed sort specification. It is immutable and safe for
// concurrent use.
type Sort struct {
	keys    []SortKey
	parts   [][]string
	natural int                 // 0, or ±1 for {$natural: ±1}
	coll    *collation.Collator // nil: simple collation
}

// ParseSort parses a sort document. Each value must be 1 or -1 as an
// int32, int64 or double; anything else is 2 BadValue. {$natural: ±1} is
// accepted only alone and is reported by NaturalOrder; {$meta:
// "textScore"} sorts by a $text query's score, highest first
// (NeedsTextScore), other $meta names are refused. An empty document
// sorts nothing.
func ParseSort(s bson.D) (*Sort, error) {
	out := &Sort{}
	seen := map[string]bool{}
	for _, e := range s {
		if name, isMeta, err := metaArg(e.Value); err != nil {
			return nil, err
		} else if isMeta && name != "textScore" {
			return nil, badValue("$meta %q is not supported by ttlkv in a sort: a $near returns its documents nearest first", name)
		} else if isMeta {
			// {$meta: "textScore"}: by the score, highest first.
			if seen[TextScoreField] {
				return nil, badValue("sort key %q appears twice", e.Key)
			}
			seen[TextScoreField] = true
			out.keys = append(out.keys, SortKey{Path: TextScoreField, Desc: true})
			out.parts = append(out.parts, []string{TextScoreField})
			continue
		}
		if e.Key == "$natural" {
			dir, ok := plusMinusOne(e.Value)
			if !ok {
				return nil, badValue("$sort key ordering must be 1 (for ascending) or -1 (for descending)")
			}
			if len(s) != 1 {
				return nil, badValue("$natural sort cannot be combined with other sort keys")
			}
			out.natural = dir
			return out, nil
		}
		if !document.IsNumber(e.Value) {
			return nil, document.Errorf(document.Code(15974), "Illegal key in $sort specification: %s", elementString(e.Key, e.Value))
		}
		dir, ok := sortDirection(e.Value)
		if !ok {
			return nil, document.Errorf(document.Code(15975), "$sort key ordering must be 1 (for ascending) or -1 (for descending)")
		}
		parts, ok := splitPath(e.Key)
		if !ok {
			return nil, badValue("sort key %q is not a valid field path", e.Key)
		}
		for _, p := range parts {
			if len(p) > 0 && p[0] == '$' {
				return nil, badValue("FieldPath field names may not start with '$'. Consider using $getField or $setField.")
			}
		}
		if seen[e.Key] {
			return nil, badValue("sort key %q appears twice", e.Key)
		}
		seen[e.Key] = true
		out.keys = append(out.keys, SortKey{Path: e.Key, Desc: dir < 0})
		out.parts = append(out.parts, parts)
	}
	return out, nil
}

// plusMinusOne reads a $push $sort direction: 1 or -1 as int32, int64
// or double.
func plusMinusOne(v any) (int, bool) {
	switch t := v.(type) {
	case int32:
		if t == 1 || t == -1 {
			return int(t), true
		}
	case int64:
		if t == 1 || t == -1 {
			return int(t), true
		}
	case float64:
		if t == 1 || t == -1 {
			return int(t), true
		}
	}
	return 0, false
}

// sortDirection reads a sort direction as mongod's sort pattern does: a
// number truncated to an int (BSONElement::numberInt) that must be 1 or
// -1.
func sortDirection(v any) (int, bool) {
	var n int64
	switch t := v.(type) {
	case int32:
		n = int64(t)
	case int64:
		n = t
	case float64, bson.Decimal128:
		n = safeNumberInt(t)
	default:
		return 0, false
	}
	if n == 1 || n == -1 {
		return int(n), true
	}
	return 0, false
}

// NaturalOrder reports {$natural: dir} sorts: ok is true and dir is 1 or
// -1. For any other sort ok is false.
func (s *Sort) NaturalOrder() (dir int, ok bool) {
	if s == nil || s.natural == 0 {
		return 0, false
	}
	return s.natural, true
}

// Keys returns the sort fields in priority order (nil for a natural or
// empty sort). The caller must not modify the slice.
func (s *Sort) Keys() []SortKey {
	if s == nil {
		return nil
	}
	return s.keys
}

// Compare orders documents a and b by the sort keys with MongoDB's
// semantics: a missing field sorts as null; an array field sorts by its
// smallest element ascending and its largest element descending; an empty
// array sorts before null. It returns 0 for ties (the caller keeps its
// own order) and for natural or empty sorts.
func (s *Sort) Compare(a, b bson.D) int {
	if s == nil {
		return 0
	}
	for i, k := range s.keys {
		ka := sortKey(a, s.parts[i], k.Desc, s.coll)
		kb := sortKey(b, s.parts[i], k.Desc, s.coll)
		c := s.coll.CompareValues(ka, kb)
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// emptyArrayKey is the sort key of an empty array: below null. MongoDB
// uses undefined for it.
var emptyArrayKey any = bson.Undefined{}

// sortKey returns the value a document sorts by on one key.
func sortKey(d bson.D, parts []string, desc bool, coll *collation.Collator) any {
	var buf [8]item
	items := sortItems(d, parts, buf[:0])
	var best any
	have := false
	consider := func(v any) {
		if !have {
			best, have = v, true
			return
		}
		c := coll.CompareValues(v, best)
		if (desc && c > 0) || (!desc && c < 0) {
			best = v
		}
	}
	for _, it := range items {
		if !it.present {
			consider(nil)
			continue
		}
		if arr, ok := it.v.(bson.A); ok {
			if len(arr) == 0 {
				consider(emptyArrayKey)
				continue
			}
			for _, e := range arr {
				consider(e)
			}
			continue
		}
		consider(it.v)
	}
	if !have {
		return nil
	}
	return best
}

// sortItems appends the values a sort key's path reaches in v, as
// mongod's sort key generator reads it: a missing field is a missing
// item; an array met before the end of the path is searched element
// by element for documents, except that a numeric component picks the
// element at that position alone ({"a.0.b": 1} sorts by a[0].b).
func sortItems(v any, parts []string, out []item) []item {
	if len(parts) == 0 {
		return append(out, item{v: v, present: true})
	}
	switch t := v.(type) {
	case bson.D:
		fv, ok := getField(t, parts[0])
		if !ok {
			return append(out, item{})
		}
		return sortItems(fv, parts[1:], out)
	case bson.A:
		if idx, ok := arrayIndex(parts[0]); ok {
			if idx < len(t) {
				return sortItems(t[idx], parts[1:], out)
			}
			return append(out, item{})
		}
		n := len(out)
		for _, e := range t {
			if ed, ok := e.(bson.D); ok {
				out = sortItems(ed, parts, out)
			}
		}
		if len(out) == n {
			out = append(out, item{})
		}
		return out
	}
	return append(out, item{})
}
