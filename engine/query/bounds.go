package query

import (
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TypeBracket is an interval end point just before (Upper false) or just
// after (Upper true) every value of the BSON type class of Like, so that
// {$gt: 5} is (5, TypeBracket{Like: 5, Upper: true}].
type TypeBracket struct {
	Like  any
	Upper bool
}

// Bound is one end of an Interval. Value is a BSON value, a TypeBracket,
// bson.MinKey{} or bson.MaxKey{}.
type Bound struct {
	Value     any
	Inclusive bool
}

// Interval is a range of index key values from Lo to Hi.
type Interval struct {
	Lo, Hi Bound
}

// Intervals is a list of intervals sorted ascending and non-overlapping.
type Intervals []Interval

// CompareBound orders bound values: BSON order (document.Compare), with a
// TypeBracket sorting before (Upper false) or after (Upper true) every
// value of its class.
func CompareBound(a, b any) int {
	ca, ra := boundClass(a)
	cb, rb := boundClass(b)
	if ca != cb {
		if ca < cb {
			return -1
		}
		return 1
	}
	if ra != 0 || rb != 0 {
		switch {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	}
	return document.Compare(a, b)
}

// boundClass returns the class and -1/0/+1 for a lower bracket, a value,
// an upper bracket.
func boundClass(v any) (int, int) {
	if tb, ok := v.(TypeBracket); ok {
		if tb.Upper {
			return document.CanonicalType(tb.Like), 1
		}
		return document.CanonicalType(tb.Like), -1
	}
	return document.CanonicalType(v), 0
}

// Contains reports whether key lies inside one of the intervals.
func (is Intervals) Contains(key any) bool {
	for _, iv := range is {
		lo := CompareBound(iv.Lo.Value, key)
		hi := CompareBound(key, iv.Hi.Value)
		if (lo < 0 || lo == 0 && iv.Lo.Inclusive) && (hi < 0 || hi == 0 && iv.Hi.Inclusive) {
			return true
		}
	}
	return false
}

func point(v any) Interval {
	return Interval{Lo: Bound{v, true}, Hi: Bound{v, true}}
}

// allValues is [MinKey, MaxKey].
var allValues = Intervals{{Lo: Bound{bson.MinKey{}, true}, Hi: Bound{bson.MaxKey{}, true}}}

// Bounds returns a superset of the index keys of path that a matching
// document can have, where a document's keys for path are the values the
// path reaches with each array expanded into its elements (a missing
// value keys as null, an empty array as undefined or []; the null bounds
// cover all three). The bounds come from the top-level conjuncts (implicit
// and explicit $and) on exactly path: equality, $gt/$gte/$lt/$lte (type
// bracketed) and $in. ok is false when no such conjunct exists or it is
// one bounds cannot express ($ne, $nin, $not, $regex, $elemMatch, a $in
// with a regex, a range over an array, a path with a numeric component).
// When several conjuncts bound the path they are intersected if intersect
// is true; otherwise the bounds of one conjunct are returned, preferring
// equality, then $in, then a range (as a multikey index needs).
func (f *Filter) Bounds(path string, intersect bool) (Intervals, bool) {
	if f == nil {
		return nil, false
	}
	parts, okPath := splitPath(path)
	if !okPath {
		return nil, false
	}
	for _, p := range parts {
		if _, num := arrayIndex(p); num {
			return nil, false
		}
	}
	type cand struct {
		iv   Intervals
		rank int
	}
	var cands []cand
	var walk func(a andExpr)
	walk = func(a andExpr) {
		for _, e := range a {
			switch t := e.(type) {
			case andExpr:
				walk(t)
			case *pathExpr:
				if t.path == path && t.kind != opOther && t.parts != nil {
					if iv, ok := t.intervals(); ok {
						cands = append(cands, cand{iv, map[opKind]int{opEq: 3, opIn: 2}[t.kind] + 1})
					}
				}
				// {a: {$elemMatch: {b: ...}}} bounds a.b: the element
				// that matches has a key there.
				if sub, ok := t.sub.(andExpr); ok && !t.valueForm && t.parts != nil && strings.HasPrefix(path, t.path+".") {
					if iv, ok := (&Filter{root: sub}).Bounds(path[len(t.path)+1:], intersect); ok {
						cands = append(cands, cand{iv, 1})
					}
				}
			}
		}
	}
	walk(f.root)
	var best Intervals
	bestRank := 0
	have := false
	for _, c := range cands {
		iv := c.iv
		if intersect {
			if !have {
				best, have = iv, true
			} else {
				best = intersectIntervals(best, iv)
			}
			continue
		}
		if c.rank > bestRank {
			best, bestRank, have = iv, c.rank, true
		}
	}
	return best, have
}

// nullKeys are the keys a document matching equality to null can have.
var nullKeys = Intervals{point(bson.Undefined{}), point(nil), point(bson.A{})}

func eqIntervals(v any) (Intervals, bool) {
	switch t := v.(type) {
	case nil, bson.Null:
		return nullKeys, true
	case bson.Regex:
		return nil, false
	case bson.A:
		// The whole array as an element of an outer array, or the array
		// itself whose keys include its first element.
		if len(t) == 0 {
			return normalize(Intervals{point(bson.Undefined{}), point(nil), point(bson.A{})}), true
		}
		return normalize(Intervals{point(t[0]), point(t)}), true
	}
	return Intervals{point(v)}, true
}

func (p *pathExpr) intervals() (Intervals, bool) {
	switch p.kind {
	case opEq:
		return eqIntervals(p.arg)
	case opIn:
		if p.hasRe {
			return nil, false
		}
		var out Intervals
		for _, v := range p.args {
			iv, ok := eqIntervals(v)
			if !ok {
				return nil, false
			}
			out = append(out, iv...)
		}
		return normalize(out), true
	case opGt, opGte, opLt, opLte:
		return rangeIntervals(p.kind, p.arg)
	}
	return nil, false
}

func rangeIntervals(k opKind, v any) (Intervals, bool) {
	switch v.(type) {
	case bson.A:
		return nil, false
	case nil, bson.Null:
		if k == opGte || k == opLte {
			return nullKeys, true
		}
		return Intervals{}, true
	case bson.MinKey:
		if k == opGt || k == opGte {
			return allValues, true
		}
		if k == opLte {
			return Intervals{point(bson.MinKey{})}, true
		}
		return Intervals{}, true
	case bson.MaxKey:
		if k == opLt || k == opLte {
			return allValues, true
		}
		if k == opGte {
			return Intervals{point(bson.MaxKey{})}, true
		}
		return Intervals{}, true
	}
	if isNaN(v) {
		if k == opGte || k == opLte {
			return Intervals{point(v)}, true
		}
		return Intervals{}, true
	}
	switch k {
	case opGt, opGte:
		return Intervals{{Lo: Bound{v, k == opGte}, Hi: Bound{TypeBracket{Like: v, Upper: true}, true}}}, true
	}
	return Intervals{{Lo: Bound{TypeBracket{Like: v}, true}, Hi: Bound{v, k == opLte}}}, true
}

// normalize sorts intervals and merges overlapping or touching ones. Of
// bounds that compare equal (2 and 2.0) the first given is kept, so an
// $in of both is the one point [2, 2], as mongod's deduplicated $in.
func normalize(in Intervals) Intervals {
	in = slices.Clone(in)
	slices.SortStableFunc(in, func(a, b Interval) int {
		if c := CompareBound(a.Lo.Value, b.Lo.Value); c != 0 {
			return c
		}
		switch {
		case a.Lo.Inclusive && !b.Lo.Inclusive:
			return -1
		case !a.Lo.Inclusive && b.Lo.Inclusive:
			return 1
		}
		return 0
	})
	var out Intervals
	for _, iv := range in {
		if len(out) > 0 {
			last := &out[len(out)-1]
			c := CompareBound(iv.Lo.Value, last.Hi.Value)
			if c < 0 || c == 0 && (iv.Lo.Inclusive || last.Hi.Inclusive) {
				hc := CompareBound(iv.Hi.Value, last.Hi.Value)
				if hc > 0 || hc == 0 && iv.Hi.Inclusive && !last.Hi.Inclusive {
					last.Hi = iv.Hi
				}
				continue
			}
		}
		out = append(out, iv)
	}
	return out
}

// intersectIntervals returns the values in both a and b (both normalized).
func intersectIntervals(a, b Intervals) Intervals {
	out := Intervals{}
	for _, x := range a {
		for _, y := range b {
			lo := x.Lo
			if c := CompareBound(y.Lo.Value, x.Lo.Value); c > 0 || c == 0 && !y.Lo.Inclusive {
				lo = y.Lo
			}
			hi := x.Hi
			if c := CompareBound(y.Hi.Value, x.Hi.Value); c < 0 || c == 0 && !y.Hi.Inclusive {
				hi = y.Hi
			}
			c := CompareBound(lo.Value, hi.Value)
			if c < 0 || c == 0 && lo.Inclusive && hi.Inclusive {
				out = append(out, Interval{Lo: lo, Hi: hi})
			}
		}
	}
	return normalize(out)
}

// EqualityPaths returns the paths constrained by equality ($eq or an
// implicit equality, not to a regex) in the top-level conjuncts, in
// filter order without duplicates.
func (f *Filter) EqualityPaths() []string {
	return f.paths(func(p *pathExpr) bool {
		if p.kind != opEq {
			return false
		}
		_, re := p.arg.(bson.Regex)
		return !re
	})
}

// RangePaths returns the paths constrained by $gt, $gte, $lt, $lte or $in
// (without regexes) in the top-level conjuncts, in filter order without
// duplicates.
func (f *Filter) RangePaths() []string {
	return f.paths(func(p *pathExpr) bool {
		switch p.kind {
		case opGt, opGte, opLt, opLte:
			return true
		case opIn:
			return !p.hasRe
		}
		return false
	})
}

func (f *Filter) paths(keep func(*pathExpr) bool) []string {
	if f == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	var walk func(a andExpr)
	walk = func(a andExpr) {
		for _, e := range a {
			switch t := e.(type) {
			case andExpr:
				walk(t)
			case *pathExpr:
				if t.parts != nil && keep(t) && !seen[t.path] {
					seen[t.path] = true
					out = append(out, t.path)
				}
			}
		}
	}
	walk(f.root)
	return out
}

// OrBranches returns the branches of the filter's $or, each as a filter
// of its own under the filter's collation, when its top level holds
// exactly one $or (beside any other conditions); ok is false otherwise.
// A document the filter matches matches one of them at least.
func (f *Filter) OrBranches() (branches []*Filter, ok bool) {
	if f == nil {
		return nil, false
	}
	var or orExpr
	n := 0
	for _, e := range f.root {
		if o, isOr := e.(orExpr); isOr {
			or, n = o, n+1
		}
	}
	if n != 1 || len(or) == 0 {
		return nil, false
	}
	var out []*Filter
	for _, e := range flattenOr(or) {
		a, isAnd := e.(andExpr)
		if !isAnd {
			a = andExpr{e}
		}
		br := &Filter{root: a, hasExpr: f.hasExpr, js: f.js, coll: f.coll}
		if holdsText(a) {
			br.text = f.text
		}
		out = append(out, br)
	}
	return out, true
}

// flattenOr returns the branches of or with each branch that is an $or
// alone replaced by its branches, as mongod's canonical form has them.
func flattenOr(or orExpr) []expr {
	var out []expr
	for _, e := range or {
		if a, isAnd := e.(andExpr); isAnd && len(a) == 1 {
			if inner, isOr := a[0].(orExpr); isOr {
				out = append(out, flattenOr(inner)...)
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// ExactPaths returns the paths of the filter when its index bounds say
// exactly which documents match it: every condition is an equality, an
// $in or a range ($gt, $gte, $lt, $lte) on a path, against scalars other
// than null, undefined, MinKey, MaxKey and NaN (and regular
// expressions), with no other operator, $or or $expr. A document whose
// index key is within the bounds of each of those paths (an index that
// is not multikey, keyed by the values) then matches, and no other does.
// ok is false otherwise.
func (f *Filter) ExactPaths() (paths []string, ok bool) {
	paths, _, ok = f.exactPaths(false)
	return paths, ok
}

// CoveredPaths is ExactPaths for a reader that has, for each document
// its index bounds find, the exact values at the filter's paths and
// runs the filter on them (a covered find, whose index entries give
// back the values): it also takes an equality to null ({a: null},
// {a: {$eq: null}}), whose bounds hold the keys of null, undefined and
// a missing field, and $lt and $lte of a number, whose bounds also hold
// NaN. nulls are the paths of null equalities, which a covered find
// does not project (mongod's rule: its keys cannot tell null from
// missing).
func (f *Filter) CoveredPaths() (paths, nulls []string, ok bool) {
	return f.exactPaths(true)
}

func (f *Filter) exactPaths(withNull bool) (paths, nulls []string, ok bool) {
	if f == nil || f.hasExpr {
		return nil, nil, false
	}
	seen := map[string]bool{}
	var walk func(a andExpr) bool
	walk = func(a andExpr) bool {
		for _, e := range a {
			switch t := e.(type) {
			case andExpr:
				if !walk(t) {
					return false
				}
			case *pathExpr:
				if t.parts == nil || t.sub != nil {
					return false
				}
				switch t.kind {
				case opEq, opGt, opGte:
					if withNull && t.kind == opEq && isNullArg(t.arg) {
						nulls = append(nulls, t.path)
						break
					}
					if !exactScalar(t.arg) {
						return false
					}
				case opLt, opLte:
					// Numbers' bounds start below every number, NaN
					// included, which $lt and $lte do not match (a
					// reader that runs the filter leaves NaN out).
					if !exactScalar(t.arg) || !withNull && document.CanonicalType(t.arg) == document.ClassNumber {
						return false
					}
				case opIn:
					if t.hasRe || len(t.args) == 0 {
						return false
					}
					for _, v := range t.args {
						if !exactScalar(v) {
							return false
						}
					}
				default:
					return false
				}
				if !seen[t.path] {
					seen[t.path] = true
					paths = append(paths, t.path)
				}
			default:
				return false
			}
		}
		return true
	}
	if !walk(f.root) {
		return nil, nil, false
	}
	return paths, nulls, true
}

// isNullArg reports whether an operand is null.
func isNullArg(v any) bool {
	switch v.(type) {
	case nil, bson.Null:
		return true
	}
	return false
}

// exactScalar reports whether an operand's index bounds hold exactly the
// values a condition on it matches.
func exactScalar(v any) bool {
	switch x := v.(type) {
	case nil, bson.Null, bson.Undefined, bson.MinKey, bson.MaxKey, bson.Regex, bson.D, bson.A:
		return false
	case float64:
		return x == x // not NaN
	case bson.Decimal128:
		return !x.IsNaN()
	}
	return true
}

// ElemMatchOn returns the filter of the first object-form $elemMatch
// among f's top-level conditions whose path is a proper prefix of every
// one of paths, and that path: {a: {$elemMatch: {b: 1, c: 2}}} for a.b
// and a.c. Its conditions hold for one element together, so bounds
// taken from it for a.b and a.c can be compounded on an index that keys
// a's elements one at a time.
func (f *Filter) ElemMatchOn(paths ...string) (sub *Filter, prefix string, ok bool) {
	if f == nil {
		return nil, "", false
	}
	var walk func(a andExpr) bool
	walk = func(a andExpr) bool {
		for _, e := range a {
			switch t := e.(type) {
			case andExpr:
				if walk(t) {
					return true
				}
			case *pathExpr:
				s, isAnd := t.sub.(andExpr)
				if !isAnd || t.valueForm || t.parts == nil {
					continue
				}
				all := true
				for _, p := range paths {
					if !strings.HasPrefix(p, t.path+".") {
						all = false
						break
					}
				}
				if all {
					sub, prefix = &Filter{root: s, coll: f.coll}, t.path
					return true
				}
			}
		}
		return false
	}
	ok = walk(f.root)
	return sub, prefix, ok
}
