package query

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// arrayFilters are an update's arrayFilters by identifier: the filter
// an element of an array must match for a $[identifier] path to reach
// it (matched as the document {identifier: element}).
type arrayFilters map[string]*Filter

// isArrayUpdate reports whether a path component updates array
// elements: $[] (all of them) or $[identifier] (those its filter
// matches).
func isArrayUpdate(p string) bool {
	return strings.HasPrefix(p, "$[") && strings.HasSuffix(p, "]")
}

// positionalClash reports whether two update paths clash at a component
// where one updates array elements and the other names a field or an
// index (a.$[i] and a.0, a.$[] and a.b): the position k of that
// component. Two different array updates ($[i], $[j]) do not clash.
func positionalClash(a, b []string) (int, bool) {
	for k := 0; k < len(a) && k < len(b); k++ {
		pa, pb := isArrayUpdate(a[k]), isArrayUpdate(b[k])
		switch {
		case pa != pb:
			return k, true
		case a[k] != b[k]:
			return 0, false
		}
	}
	return 0, false
}

// ParseUpdateWith is ParseUpdate with the statement's arrayFilters (nil:
// none): each a filter whose top-level fields all begin with one
// identifier, which names the elements a $[identifier] path updates.
// Errors are mongod's: 14 for an entry that is not a document, 9 for a
// filter without one identifier, for two filters of one identifier and
// for a filter no path uses, 2 for a bad identifier and for a path whose
// identifier has no filter.
func ParseUpdateWith(u bson.D, filters bson.A) (*Update, error) {
	up, err := parseUpdate(u)
	if err != nil {
		return nil, err
	}
	af := arrayFilters{}
	for i, fv := range filters {
		fd, ok := fv.(bson.D)
		if !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'arrayFilters.%d' is the wrong type '%s', expected type 'object'", i, typeName(fv))
		}
		f, err := ParseFilter(fd)
		if err != nil {
			return nil, err
		}
		if f.Text() != nil {
			return nil, badValue("$text is not allowed in this context")
		}
		if f.hasExpr {
			return nil, document.Errorf(document.Code(224), "$expr is not allowed in the context of an array filter")
		}
		id, err := filterIdentifier(fd)
		if err != nil {
			return nil, err
		}
		if af[id] != nil {
			return nil, document.Errorf(document.CodeFailedToParse, "Found multiple array filters with the same top-level field name %s", id)
		}
		af[id] = f
	}
	used := map[string]bool{}
	for _, m := range up.mods {
		for _, p := range append(slices.Clone(m.parts), m.toParts...) {
			if !isArrayUpdate(p) || p == allPositional {
				continue
			}
			id := p[2 : len(p)-1]
			if af[id] == nil {
				return nil, badValue("No array filter found for identifier '%s' in path '%s'", id, m.path)
			}
			used[id] = true
			m.filtered = true
		}
		m.af = af
	}
	for _, fv := range filters {
		id, _ := filterIdentifier(fv.(bson.D))
		if !used[id] {
			return nil, document.Errorf(document.CodeFailedToParse, "The array filter for identifier '%s' was not used in the update %s", id, document.Format(u))
		}
	}
	return up, nil
}

// filterIdentifier returns the identifier an array filter's top-level
// fields begin with ($and, $or and $nor branches included).
func filterIdentifier(fd bson.D) (string, error) {
	var ids []string
	var walk func(d bson.D)
	walk = func(d bson.D) {
		for _, e := range d {
			switch e.Key {
			case "$and", "$or", "$nor":
				if arr, ok := e.Value.(bson.A); ok {
					for _, x := range arr {
						if sub, ok := x.(bson.D); ok {
							walk(sub)
						}
					}
				}
				continue
			}
			if strings.HasPrefix(e.Key, "$") {
				continue
			}
			id, _, _ := strings.Cut(e.Key, ".")
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	walk(fd)
	switch {
	case len(ids) == 0:
		return "", document.Errorf(document.CodeFailedToParse, "Cannot use an expression without a top-level field name in arrayFilters")
	case len(ids) > 1:
		return "", document.Errorf(document.CodeFailedToParse, "Error parsing array filter :: caused by :: Expected a single top-level field name, found '%s' and '%s'", ids[0], ids[1])
	}
	id := ids[0]
	valid := id[0] >= 'a' && id[0] <= 'z'
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			valid = false
		}
	}
	if !valid {
		return "", badValue("Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '%s'", id)
	}
	return id, nil
}

// collate returns the filters under collation c.
func (af arrayFilters) collate(c *collation.Collator) (arrayFilters, error) {
	if len(af) == 0 || c == nil {
		return af, nil
	}
	out := arrayFilters{}
	for id, f := range af {
		cf, err := f.Collate(c)
		if err != nil {
			return nil, err
		}
		out[id] = cf
	}
	return out, nil
}

// expandFiltered returns the concrete paths of m's path in the original
// document d: each $[] and $[id] on the way replaced by the position of
// every element (every one, or those id's filter matches). Where d has
// no array to expand, the path is returned as it is, for modifyPath's
// errors.
func expandFiltered(m *modifier, d bson.D) ([][]string, error) {
	var out [][]string
	var walk func(cur any, parts []string, k int) error
	walk = func(cur any, parts []string, k int) error {
		for ; k < len(parts); k++ {
			p := parts[k]
			if isArrayUpdate(p) {
				arr, ok := cur.(bson.A)
				if !ok {
					out = append(out, parts)
					return nil
				}
				id := p[2 : len(p)-1]
				for i, el := range arr {
					if id != "" {
						match, err := m.af[id].MatchErr(bson.D{{Key: id, Value: el}})
						if err != nil {
							return err
						}
						if !match {
							continue
						}
					}
					next := slices.Clone(parts)
					next[k] = strconv.Itoa(i)
					if err := walk(el, next, k+1); err != nil {
						return err
					}
				}
				return nil
			}
			switch t := cur.(type) {
			case bson.D:
				v, found := getField(t, p)
				if !found {
					cur = nil
					continue
				}
				cur = v
			case bson.A:
				if i, ok := arrayIndex(p); ok && i < len(t) {
					cur = t[i]
				} else {
					cur = nil
				}
			default:
				cur = nil
			}
		}
		out = append(out, parts)
		return nil
	}
	err := walk(d, m.parts, 0)
	return out, err
}

// conflictAt names the place two array updates meet as mongod does:
// it merges the two paths' update trees element by element, so the
// place is concrete (positions) up to the last component where the
// written paths pa and pb differ, and as written after it; a and b are
// their concrete paths, the shorter one names the place.
func conflictAt(pa, pb, a, b []string) string {
	if len(b) < len(a) {
		pa, pb, a, b = pb, pa, b, a
	}
	last := 0
	for k := 0; k < len(pa) && k < len(pb); k++ {
		if pa[k] != pb[k] {
			last = k
		}
	}
	if len(pa) != len(a) {
		return strings.Join(a, ".")
	}
	return strings.Join(append(slices.Clone(a[:last+1]), pa[last+1:]...), ".")
}

// expandAll returns, for each of u's modifiers with a $[identifier], its
// concrete paths in d (expandFiltered); nil for the others. Two
// modifiers whose concrete paths meet (a.$[i].c and a.$[j].c where both
// filters match one element) are 40, as mongod.
func (u *Update) expandAll(d bson.D) ([][][]string, error) {
	var out [][][]string
	for i, m := range u.mods {
		if !m.filtered {
			continue
		}
		if out == nil {
			out = make([][][]string, len(u.mods))
		}
		paths, err := expandFiltered(m, d)
		if err != nil {
			return nil, err
		}
		out[i] = paths
	}
	if out == nil {
		return nil, nil
	}
	concrete := func(i int) [][]string {
		if out[i] != nil || u.mods[i].filtered {
			return out[i]
		}
		return [][]string{u.mods[i].parts}
	}
	for i := range u.mods {
		for j := i + 1; j < len(u.mods); j++ {
			if !u.mods[i].filtered && !u.mods[j].filtered {
				continue
			}
			for _, a := range concrete(i) {
				for _, b := range concrete(j) {
					if isPrefix(a, b) || isPrefix(b, a) {
						return nil, document.Errorf(CodeConflictingUpdateOperators, "Update created a conflict at '%s'",
							conflictAt(u.mods[i].parts, u.mods[j].parts, a, b))
					}
				}
			}
		}
	}
	return out, nil
}
