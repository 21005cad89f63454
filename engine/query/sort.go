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

// sortMeta returns the name of a sort key's {$meta: name}, refused as
// mongod's sort pattern refuses it: a document that is not a $meta is
// 17312, one with more fields 9, a name mongod does not sort by 31138
// (searchScore 31218, searchHighlights 31219).
func sortMeta(d bson.D) (string, error) {
	if len(d) == 0 || d[0].Key != "$meta" {
		return "", document.Errorf(document.Code(17312), "$meta is the only expression supported by $sort right now")
	}
	if len(d) != 1 {
		return "", document.Errorf(document.CodeFailedToParse, "Cannot have additional keys in a $meta sort specification")
	}
	name, _ := d[0].Value.(string)
	switch name {
	case "textScore", "randVal", "geoNearDistance":
		return name, nil
	case "searchScore":
		return "", document.Errorf(document.Code(31218), "$meta sort by 'searchScore' metadata is not supported")
	case "searchHighlights":
		return "", document.Errorf(document.Code(31219), "$meta sort by 'searchHighlights' metadata is not supported")
	}
	return "", document.Errorf(document.Code(31138), "Illegal $meta sort: %s", elementString("$meta", d[0].Value))
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
		if d, isDoc := e.Value.(bson.D); isDoc {
			name, err := sortMeta(d)
			if err != nil {
				return nil, err
			}
			if name != "textScore" {
				return nil, badValue("$meta %q is not supported by ttlkv in a sort: a $near returns its documents nearest first", name)
			}
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
// array sorts before null; keys whose paths meet the same array take
// their values from one element at a time, the document sorting by its
// best such tuple (sortTuple). It returns 0 for ties (the caller keeps
// its own order) and for natural or empty sorts.
func (s *Sort) Compare(a, b bson.D) int {
	if s == nil || len(s.keys) == 0 {
		return 0
	}
	return s.compareTuples(s.sortTuple(a), s.sortTuple(b))
}

// compareTuples orders two sort tuples by the keys' directions.
func (s *Sort) compareTuples(a, b []any) int {
	for i, k := range s.keys {
		c := s.coll.CompareValues(a[i], b[i])
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// CheckParallelArrays is mongod's refusal to sort a document in which
// two keys' paths expand two different arrays (2 "cannot sort with keys
// that are parallel arrays"); nil when d can be sorted.
func (s *Sort) CheckParallelArrays(d bson.D) error {
	if s == nil || len(s.keys) < 2 {
		return nil
	}
	if _, parallel := s.tuples(d); parallel {
		return badValue("cannot sort with keys that are parallel arrays")
	}
	return nil
}

// emptyArrayKey is the sort key of an empty array: below null. MongoDB
// uses undefined for it.
var emptyArrayKey any = bson.Undefined{}

// sortReq is one sort key's path still to follow: the key's position in
// the sort and the components left.
type sortReq struct {
	idx   int
	parts []string
}

// tuples returns d's sort key tuples, as mongod's sort key generator
// (the index key generator's rules) makes them, and whether two keys
// expand different arrays (parallel arrays).
func (s *Sort) tuples(d bson.D) ([][]any, bool) {
	reqs := make([]sortReq, len(s.parts))
	for i, p := range s.parts {
		reqs[i] = sortReq{i, p}
	}
	ts, _, parallel := sortGen(d, reqs, len(reqs), false)
	return ts, parallel
}

// sortTuple is the tuple d sorts by: the best of its tuples under the
// keys' directions (the smallest value of an ascending key, the largest
// of a descending one).
func (s *Sort) sortTuple(d bson.D) []any {
	if len(s.keys) == 1 {
		// One key: its best value, without building tuples.
		var best any
		have := false
		desc := s.keys[0].Desc
		sortValues(d, s.parts[0], false, func(v any) {
			if !have {
				best, have = v, true
				return
			}
			c := s.coll.CompareValues(v, best)
			if (desc && c > 0) || (!desc && c < 0) {
				best = v
			}
		})
		return []any{best}
	}
	ts, _ := s.tuples(d)
	best := ts[0]
	for _, t := range ts[1:] {
		if s.compareTuples(t, best) < 0 {
			best = t
		}
	}
	return best
}

// sortGen returns the key tuples of v for reqs (each tuple n long, with
// only reqs' positions set), whether an array was expanded for them, and
// whether parallel arrays were met. nested is true for a value reached
// as an element of an array: an array there is one value, not expanded.
func sortGen(v any, reqs []sortReq, n int, nested bool) (tuples [][]any, expanded, parallel bool) {
	var done, more []sortReq
	for _, r := range reqs {
		if len(r.parts) == 0 {
			done = append(done, r)
		} else {
			more = append(more, r)
		}
	}
	set := func(t []any, rs []sortReq, val any) {
		for _, r := range rs {
			t[r.idx] = val
		}
	}
	one := func(val any) [][]any {
		t := make([]any, n)
		set(t, done, val)
		set(t, more, nil)
		return [][]any{t}
	}
	switch t := v.(type) {
	case bson.A:
		if nested && len(more) == 0 {
			return one(t), false, false
		}
		return sortGenArray(t, done, more, n)
	case bson.D:
		factors := [][][]any{}
		var expands []bool
		if len(done) > 0 {
			tt := make([]any, n)
			set(tt, done, t)
			factors = append(factors, [][]any{tt})
			expands = append(expands, false)
		}
		// Group the continuing paths by their next field.
		var order []string
		groups := map[string][]sortReq{}
		for _, r := range more {
			if _, ok := groups[r.parts[0]]; !ok {
				order = append(order, r.parts[0])
			}
			groups[r.parts[0]] = append(groups[r.parts[0]], sortReq{r.idx, r.parts[1:]})
		}
		for _, k := range order {
			g := groups[k]
			fv, ok := getField(t, k)
			if !ok {
				tt := make([]any, n)
				set(tt, g, nil)
				factors = append(factors, [][]any{tt})
				expands = append(expands, false)
				continue
			}
			sub, exp, par := sortGen(fv, g, n, false)
			parallel = parallel || par
			expanded = expanded || exp
			factors = append(factors, sub)
			expands = append(expands, exp)
		}
		return sortProduct(factors, n), expanded, parallel || countTrue(expands) > 1
	}
	return one(v), false, false
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// sortGenArray is sortGen for an array that is expanded: done keys take
// each element, continuing paths search each document element (a
// numeric component picks the element at that position instead), one
// element at a time for all of them.
func sortGenArray(a bson.A, done, more []sortReq, n int) (tuples [][]any, expanded, parallel bool) {
	var positional, joint []sortReq
	for _, r := range more {
		if _, ok := arrayIndex(r.parts[0]); ok {
			positional = append(positional, r)
		} else {
			joint = append(joint, r)
		}
	}
	set := func(t []any, rs []sortReq, val any) {
		for _, r := range rs {
			t[r.idx] = val
		}
	}
	var out [][]any
	var expands []bool
	if len(done) > 0 || len(joint) > 0 {
		expanded = true
		if len(a) == 0 {
			t := make([]any, n)
			set(t, done, emptyArrayKey)
			set(t, joint, nil)
			out = append(out, t)
		}
		for _, e := range a {
			base := make([]any, n)
			set(base, done, e)
			if len(joint) == 0 {
				out = append(out, base)
				continue
			}
			ed, isDoc := e.(bson.D)
			if !isDoc {
				if len(done) > 0 {
					set(base, joint, nil)
					out = append(out, base)
				}
				continue
			}
			sub, _, par := sortGen(ed, joint, n, true)
			parallel = parallel || par
			for _, st := range sub {
				t := make([]any, n)
				copy(t, base)
				for _, r := range joint {
					t[r.idx] = st[r.idx]
				}
				out = append(out, t)
			}
		}
		if len(out) == 0 {
			t := make([]any, n)
			set(t, joint, nil)
			out = append(out, t)
		}
	}
	factors := [][][]any{}
	if out != nil {
		factors = append(factors, out)
		expands = append(expands, true)
	}
	for _, r := range positional {
		idx, _ := arrayIndex(r.parts[0])
		rr := []sortReq{{r.idx, r.parts[1:]}}
		if idx >= len(a) {
			t := make([]any, n)
			t[r.idx] = nil
			factors = append(factors, [][]any{t})
			expands = append(expands, false)
			continue
		}
		sub, exp, par := sortGen(a[idx], rr, n, true)
		parallel = parallel || par
		expanded = expanded || exp
		factors = append(factors, sub)
		expands = append(expands, exp)
	}
	return sortProduct(factors, n), expanded, parallel || countTrue(expands) > 1
}

// sortProduct combines the tuples of independent parts of a document
// (each setting its own keys) into every combination.
func sortProduct(factors [][][]any, n int) [][]any {
	out := [][]any{make([]any, n)}
	for _, f := range factors {
		next := make([][]any, 0, len(out)*len(f))
		for _, a := range out {
			for _, b := range f {
				t := make([]any, n)
				copy(t, a)
				for i, v := range b {
					if v != nil || t[i] == nil {
						t[i] = v
					}
				}
				next = append(next, t)
			}
		}
		out = next
	}
	return out
}

// sortValues calls fn with each value one key's path gives in v, as
// sortGen gives them for a single key.
func sortValues(v any, parts []string, nested bool, fn func(any)) {
	if len(parts) == 0 {
		a, isArr := v.(bson.A)
		switch {
		case !isArr || nested:
			fn(v)
		case len(a) == 0:
			fn(emptyArrayKey)
		default:
			for _, e := range a {
				fn(e)
			}
		}
		return
	}
	switch t := v.(type) {
	case bson.D:
		fv, ok := getField(t, parts[0])
		if !ok {
			fn(nil)
			return
		}
		sortValues(fv, parts[1:], false, fn)
	case bson.A:
		if idx, ok := arrayIndex(parts[0]); ok {
			if idx < len(t) {
				sortValues(t[idx], parts[1:], true, fn)
			} else {
				fn(nil)
			}
			return
		}
		found := false
		for _, e := range t {
			if ed, ok := e.(bson.D); ok {
				found = true
				sortValues(ed, parts, true, fn)
			}
		}
		if !found {
			fn(nil)
		}
	default:
		fn(nil)
	}
}
