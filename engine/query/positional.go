package query

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// isDynamic reports whether a path component is resolved per document:
// the positional $, $[] or $[identifier].
func isDynamic(p string) bool { return p == "$" || isArrayUpdate(p) }

// countPositional counts a path's positional $ components.
func countPositional(parts []string) int {
	n := 0
	for _, p := range parts {
		if p == "$" {
			n++
		}
	}
	return n
}

// WithQuery returns a copy of u whose positional $ paths are resolved
// against filter, the statement's query: a.$ is the first element of a
// that the query's conditions match.
func (u *Update) WithQuery(filter *Filter) *Update {
	if u == nil || u.isRepl || u.fn != nil {
		return u
	}
	out := *u
	out.query = filter
	return &out
}

// errNoPositionalMatch is mongod's refusal of a positional $ that the
// query did not place.
func errNoPositionalMatch() error {
	return badValue("The positional operator did not find the match needed from the query.")
}

// resolvePositional returns m with its $ replaced by the position the
// query matched in d (matchPosition), as mongod's positional operator:
// an upsert's insert, or a query that matched no array element: 2.
func (u *Update) resolvePositional(m *modifier, d bson.D, o UpdateOptions) (*modifier, error) {
	if u.query == nil || o.IsUpsertInsert {
		return nil, errNoPositionalMatch()
	}
	pos, ok := u.query.matchPosition(d)
	if !ok {
		return nil, errNoPositionalMatch()
	}
	pm := *m
	pm.parts = slices.Clone(m.parts)
	pm.parts[m.positional] = strconv.Itoa(pos)
	pm.positional = -1
	return &pm, nil
}

// matchPosition returns the array position at which d matched f, as
// mongod's matcher records it for the positional operator: a condition
// met by an element of an array on its path (the first array there)
// records that element's position; of the conditions of an $and (and
// the top level) the last one met that records one wins; of an $or, the
// first branch met. ok is false when no condition recorded one.
func (f *Filter) matchPosition(d bson.D) (int, bool) {
	if f == nil {
		return 0, false
	}
	return positionIn(f.root, d)
}

func positionIn(e expr, d bson.D) (pos int, ok bool) {
	switch t := e.(type) {
	case andExpr:
		for _, x := range t {
			if p, found := positionIn(x, d); found {
				pos, ok = p, true
			}
		}
	case orExpr:
		for _, x := range t {
			if x.match(d) {
				return positionIn(x, d)
			}
		}
	case *pathExpr:
		if t.parts == nil || !t.match(d) {
			return 0, false
		}
		return leafPosition(t, d)
	}
	return pos, ok
}

// leafPosition is the position of the first element of the first array
// on t's path (reached through documents) with which d alone still
// meets t.
func leafPosition(t *pathExpr, d bson.D) (int, bool) {
	var cur any = d
	for k := 0; ; k++ {
		if arr, isArr := cur.(bson.A); isArr {
			if k < len(t.parts) {
				// A numeric part is an offset into the array, which
				// records no position (update_array_offset_positional.js).
				if idx, num := arrayIndex(t.parts[k]); num {
					if idx >= len(arr) {
						return 0, false
					}
					cur = arr[idx]
					continue
				}
			}
			for i := range arr {
				if t.match(withPath(d, t.parts[:k], bson.A{arr[i]})) {
					return i, true
				}
			}
			return 0, false
		}
		if k == len(t.parts) {
			return 0, false
		}
		sub, isDoc := cur.(bson.D)
		if !isDoc {
			return 0, false
		}
		v, found := getField(sub, t.parts[k])
		if !found {
			return 0, false
		}
		cur = v
	}
}

// withPath returns a copy of d with the value at parts (through
// documents and array offsets) replaced by v; d is not changed.
func withPath(d bson.D, parts []string, v any) bson.D {
	out, _ := replaceAt(d, parts, v).(bson.D)
	return out
}

func replaceAt(c any, parts []string, v any) any {
	if len(parts) == 0 {
		return v
	}
	switch t := c.(type) {
	case bson.D:
		out := slices.Clone(t)
		if i := fieldIndex(out, parts[0]); i >= 0 {
			out[i].Value = replaceAt(out[i].Value, parts[1:], v)
		}
		return out
	case bson.A:
		out := slices.Clone(t)
		if idx, ok := arrayIndex(parts[0]); ok && idx < len(out) {
			out[idx] = replaceAt(out[idx], parts[1:], v)
		}
		return out
	}
	return c
}

// HasPositional reports whether the projection has a positional path
// (a.$), which needs the query (WithQuery).
func (p *Projection) HasPositional() bool { return p != nil && p.positional != "" }

// WithQuery returns a copy of p whose positional path is placed by
// filter, the find's query (which also tells whether the find has a
// $where its $function may not run beside).
func (p *Projection) WithQuery(filter *Filter) *Projection {
	if p == nil || (p.positional == "" && !(p.js && filter.HasWhere())) {
		return p
	}
	out := *p
	out.query = filter
	return &out
}

// errPositionalProjection is mongod's 51246 for a positional projection
// the query does not place.
func errPositionalProjection() error {
	return document.Errorf(document.Code(51246), "Executor error during find command :: caused by :: positional operator '.$' couldn't find a matching element in the array")
}

// applyPositional is apply for a projection with a positional path:
// the first array on the path (reached through documents) keeps only
// the element at the position the query matched (matchPosition). A
// path without an array is projected as it is; one the query matched
// no position for: 51246, as mongod.
func (p *Projection) applyPositional(d bson.D) (bson.D, error) {
	out := p.apply(d)
	parts := strings.Split(p.positional, ".")
	var cur any = out
	for k := 0; k < len(parts); k++ {
		sub, isDoc := cur.(bson.D)
		if !isDoc {
			return out, nil
		}
		v, found := getField(sub, parts[k])
		if !found {
			return out, nil
		}
		arr, isArr := v.(bson.A)
		if !isArr {
			cur = v
			continue
		}
		pos, ok := p.query.matchPosition(d)
		if !ok || pos >= len(arr) {
			return nil, errPositionalProjection()
		}
		return withPath(out, parts[:k+1], bson.A{arr[pos]}), nil
	}
	return out, nil
}
