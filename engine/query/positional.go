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

// resolvePositional returns m with its $ replaced by the index of the
// first element of the array before it (reached through documents) for
// which d still matches the query when that array holds the element
// alone: the element the query's conditions on the array matched. An
// upsert's insert, a query that names no condition any single element
// meets, or no array there: 2, as mongod.
func (u *Update) resolvePositional(m *modifier, d bson.D, o UpdateOptions) (*modifier, error) {
	if u.query == nil || o.IsUpsertInsert {
		return nil, errNoPositionalMatch()
	}
	k := m.positional
	arr, ok := docsPath(d, m.parts[:k])
	if !ok || !u.query.reads(strings.Join(m.parts[:k], ".")) {
		return nil, errNoPositionalMatch()
	}
	for i := range arr {
		probe := withPath(d, m.parts[:k], bson.A{arr[i]})
		match, err := u.query.MatchErr(probe)
		if err != nil {
			return nil, err
		}
		if match {
			pm := *m
			pm.parts = slices.Clone(m.parts)
			pm.parts[k] = strconv.Itoa(i)
			pm.positional = -1
			return &pm, nil
		}
	}
	return nil, errNoPositionalMatch()
}

// docsPath returns the array at parts in d, followed through documents
// only.
func docsPath(d bson.D, parts []string) (bson.A, bool) {
	var cur any = d
	for _, p := range parts {
		sub, ok := cur.(bson.D)
		if !ok {
			return nil, false
		}
		v, found := getField(sub, p)
		if !found {
			return nil, false
		}
		cur = v
	}
	arr, ok := cur.(bson.A)
	return arr, ok
}

// withPath returns a copy of d with the value at parts (documents all
// the way) replaced by v; d is not changed.
func withPath(d bson.D, parts []string, v any) bson.D {
	out := slices.Clone(d)
	for i, e := range out {
		if e.Key != parts[0] {
			continue
		}
		if len(parts) == 1 {
			out[i].Value = v
		} else if sub, ok := e.Value.(bson.D); ok {
			out[i].Value = withPath(sub, parts[1:], v)
		}
		break
	}
	return out
}

// reads reports whether a condition of f reads the array at path: a
// condition on the path or below it (positive: the $ of an update
// takes its element; $not and $nor do not place it).
func (f *Filter) reads(path string) bool {
	var walk func(e expr) bool
	walk = func(e expr) bool {
		switch t := e.(type) {
		case andExpr:
			for _, x := range t {
				if walk(x) {
					return true
				}
			}
		case orExpr:
			for _, x := range t {
				if walk(x) {
					return true
				}
			}
		case *pathExpr:
			return t.path == path || strings.HasPrefix(t.path, path+".")
		}
		return false
	}
	return f != nil && walk(f.root)
}

// HasPositional reports whether the projection has a positional path
// (a.$), which needs the query (WithQuery).
func (p *Projection) HasPositional() bool { return p != nil && p.positional != "" }

// WithQuery returns a copy of p whose positional path is placed by
// filter, the find's query.
func (p *Projection) WithQuery(filter *Filter) *Projection {
	if p == nil || p.positional == "" {
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

// applyPositional is apply for a projection with a positional path: the
// array there holds only the element the query placed (as the update's
// $ finds it). A document without the field keeps none; one the query
// does not place, 51246 as mongod.
func (p *Projection) applyPositional(d bson.D) (bson.D, error) {
	out := p.apply(d)
	parts := strings.Split(p.positional, ".")
	arr, ok := docsPath(d, parts)
	if !ok {
		if _, present := lookupDocs(d, parts); !present {
			return out, nil
		}
		return nil, errPositionalProjection()
	}
	if p.query == nil || !p.query.reads(p.positional) {
		return nil, errPositionalProjection()
	}
	for i := range arr {
		match, err := p.query.MatchErr(withPath(d, parts, bson.A{arr[i]}))
		if err != nil {
			return nil, err
		}
		if match {
			return withPath(out, parts, bson.A{cloneValue(arr[i])}), nil
		}
	}
	return nil, errPositionalProjection()
}

// lookupDocs returns the value at parts in d through documents only.
func lookupDocs(d bson.D, parts []string) (any, bool) {
	var cur any = d
	for _, p := range parts {
		sub, ok := cur.(bson.D)
		if !ok {
			return nil, false
		}
		v, found := getField(sub, p)
		if !found {
			return nil, false
		}
		cur = v
	}
	return cur, true
}
