package query

import (
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Implies reports whether every document f matches is matched by g as
// well, by the rules mongod's planner uses to decide that a query may
// read a partial index whose filter is g (its isSubsetOf): an $and of g
// is implied when each of its conditions is, an $or when one of its
// branches is; f's $and implies g when one of its conditions does, f's
// $or when each of its branches does; on one path, an equality or a
// range implies a looser range or an equal equality of the same type
// class ({a: 5} implies {a: {$gte: 5}}, {a: {$lt: 3}} implies
// {a: {$lte: 5}}), an $in implies what each of its values does, a
// condition implies an $in when it implies one of its values, and
// $exists: true is implied by any condition that only a present value
// meets (a comparison with a value other than null, an $in without
// null, $type, $exists: true, $size, $mod, a regular expression,
// $elemMatch, $ne: null). Strings (and documents and arrays, which may
// hold them) only compare when both filters have the same collation.
// A false answer means "not known": f may still imply g.
func (f *Filter) Implies(g *Filter) bool {
	if g == nil {
		return true
	}
	if f == nil {
		return len(g.root) == 0
	}
	return subsetOf(f.root, f.coll, g.root, g.coll)
}

// subsetOf is Implies on expressions: l under collation lc implies r
// under rc.
func subsetOf(l expr, lc *collation.Collator, r expr, rc *collation.Collator) bool {
	if equivalentLeaves(l, lc, r, rc) {
		return true
	}
	// The right side's logical nodes first: {a: 5, b: 5} implies
	// {$or: [{a: 3}, {$and: [{a: 5}, {b: 5}]}]} only so.
	switch rt := r.(type) {
	case orExpr:
		for _, b := range rt {
			if subsetOf(l, lc, b, rc) {
				return true
			}
		}
		return false
	case andExpr:
		for _, c := range rt {
			if !subsetOf(l, lc, c, rc) {
				return false
			}
		}
		return true
	}
	switch lt := l.(type) {
	case andExpr:
		for _, c := range lt {
			if subsetOf(c, lc, r, rc) {
				return true
			}
		}
		return false
	case orExpr:
		for _, b := range lt {
			if !subsetOf(b, lc, r, rc) {
				return false
			}
		}
		return len(lt) > 0
	}
	rp, ok := r.(*pathExpr)
	if !ok {
		return false
	}
	switch {
	case isComparison(rp.kind):
		return impliesComparison(l, lc, rp, rc)
	case rp.kind == opIn:
		if rp.hasRe {
			return false
		}
		for _, v := range rp.args {
			eq := &pathExpr{path: rp.path, kind: opEq, arg: v}
			if impliesComparison(l, lc, eq, rc) {
				return true
			}
		}
		return false
	case rp.leaf == leafExists:
		return impliesExists(l, rp.path)
	}
	return false
}

// isComparison reports whether k is an equality or a range.
func isComparison(k opKind) bool {
	switch k {
	case opEq, opGt, opGte, opLt, opLte:
		return true
	}
	return false
}

// equivalentLeaves reports whether l and r are the same condition on
// the same path: $exists: true, or $type of the same types, or an $in
// of the same values (the rules below cover equalities and ranges).
func equivalentLeaves(l expr, lc *collation.Collator, r expr, rc *collation.Collator) bool {
	lp, ok1 := l.(*pathExpr)
	rp, ok2 := r.(*pathExpr)
	if !ok1 || !ok2 || lp.path != rp.path || lp.sub != nil || rp.sub != nil {
		return false
	}
	switch {
	case lp.leaf == leafExists && rp.leaf == leafExists:
		return true
	case lp.leaf == leafType && rp.leaf == leafType:
		return sameTypes(lp.types, rp.types)
	case lp.kind == opIn && rp.kind == opIn && !lp.hasRe && !rp.hasRe:
		return sameValues(lp.args, rp.args, lc, rc) && sameValues(rp.args, lp.args, lc, rc)
	}
	return false
}

// sameTypes reports whether two $type operands name the same types.
func sameTypes(a, b *typeSet) bool {
	if a == nil || b == nil || a.number != b.number || len(a.nums) != len(b.nums) {
		return false
	}
	for n := range a.nums {
		if !b.nums[n] {
			return false
		}
	}
	return true
}

// sameValues reports whether each of as equals one of bs.
func sameValues(as, bs []any, ac, bc *collation.Collator) bool {
	for _, a := range as {
		found := false
		for _, b := range bs {
			if comparable(a, ac, b, bc) && compareNaN(a, b) == 0 {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// comparable reports whether operands a (of a filter under collation
// ac) and b (under bc) may be compared for implication: the same type
// class, and, for strings and what may hold them, the same collation.
func comparable(a any, ac *collation.Collator, b any, bc *collation.Collator) bool {
	if document.CanonicalType(a) != document.CanonicalType(b) {
		return false
	}
	if !collation.Equal(ac, bc) {
		switch a.(type) {
		case string, bson.Symbol, bson.D, bson.A:
			return false
		}
	}
	return true
}

// compareNaN is document.Compare with NaN equal only to NaN and apart
// from every other number (-2 when one only is NaN).
func compareNaN(a, b any) int {
	if isNaN(a) || isNaN(b) {
		if isNaN(a) && isNaN(b) {
			return 0
		}
		return -2
	}
	return document.Compare(a, b)
}

// impliesComparison reports whether l implies the equality or range rp:
// l is one on the same path that it implies, or an $in each of whose
// values does.
func impliesComparison(l expr, lc *collation.Collator, rp *pathExpr, rc *collation.Collator) bool {
	lp, ok := l.(*pathExpr)
	if !ok || lp.path != rp.path || lp.sub != nil {
		return false
	}
	if isComparison(lp.kind) {
		return comparisonImplies(lp.kind, lp.arg, lc, rp.kind, rp.arg, rc)
	}
	if lp.kind == opIn && !lp.hasRe {
		for _, v := range lp.args {
			if !comparisonImplies(opEq, v, lc, rp.kind, rp.arg, rc) {
				return false
			}
		}
		return true
	}
	return false
}

// comparisonImplies reports whether the condition lk la (under lc)
// implies rk ra (under rc) on one path: both operands of one type class
// (the only values either matches are of it, or null for a missing
// field), NaN only implying NaN, and la within ra's side.
func comparisonImplies(lk opKind, la any, lc *collation.Collator, rk opKind, ra any, rc *collation.Collator) bool {
	if !comparable(la, lc, ra, rc) {
		return false
	}
	if isNaN(la) || isNaN(ra) {
		eqLike := func(k opKind) bool { return k == opEq || k == opGte || k == opLte }
		return eqLike(lk) && eqLike(rk) && isNaN(la) && isNaN(ra)
	}
	c := document.Compare(la, ra)
	if lk == rk && c == 0 {
		return true
	}
	switch rk {
	case opLt, opLte:
		if lk != opLt && lk != opLte && lk != opEq {
			return false
		}
		if rk == opLte {
			return c <= 0
		}
		return c < 0
	case opGt, opGte:
		if lk != opGt && lk != opGte && lk != opEq {
			return false
		}
		if rk == opGte {
			return c >= 0
		}
		return c > 0
	}
	return false
}

// impliesExists reports whether l implies {path: {$exists: true}}: it
// is a condition on path that no missing field meets.
func impliesExists(l expr, path string) bool {
	switch t := l.(type) {
	case *pathExpr:
		if t.path != path {
			return false
		}
		if t.sub != nil {
			return true // $elemMatch: an array
		}
		switch {
		case isComparison(t.kind):
			// A missing field compares as null; MinKey and MaxKey
			// ranges take every value, a missing one too.
			switch t.arg.(type) {
			case nil, bson.Null, bson.MinKey, bson.MaxKey:
				return false
			}
			return true
		case t.kind == opIn:
			for _, v := range t.args {
				if isNull(v) {
					return false
				}
			}
			return true
		}
		switch t.leaf {
		case leafExists, leafType, leafRegex, leafMod, leafSize:
			return true
		}
	case notExpr:
		// {$ne: null} and {$nin: [null, ...]}: a missing field equals
		// null. (Not through a dotted path: {"a.b": {$ne: null}} holds
		// for {a: [1]}, where a.b is no value.)
		if strings.Contains(path, ".") {
			return false
		}
		inner := t.e
		if a, ok := inner.(andExpr); ok && len(a) == 1 {
			inner = a[0]
		}
		p, ok := inner.(*pathExpr)
		if !ok || p.path != path || p.sub != nil {
			return false
		}
		switch p.kind {
		case opEq:
			return isNull(p.arg)
		case opIn:
			for _, v := range p.args {
				if isNull(v) {
					return true
				}
			}
		}
	}
	return false
}

// Equivalent reports whether f and g are the same filter however they
// are spelled, as mongod's MatchExpression::equivalent tells two
// partialFilterExpressions apart once parsed and normalised: the
// conditions of an $and (a document's fields, nested $and, $all's
// values) and the branches of an $or in any order, numbers of any
// type equal by value ({a: {$gt: 1}} and {a: {$gt: 1.0}}), an $in's
// values in any order. Conditions it cannot compare (geo, $elemMatch
// and the like) are equivalent only when they are the same node.
func (f *Filter) Equivalent(g *Filter) bool {
	if f == nil || g == nil {
		return f == g
	}
	return equivalentExpr(f.root, f.coll, g.root, g.coll)
}

// flatten returns the conditions of e, an $and of them: nested $and
// unwrapped, as mongod's normalisation does.
func flatten(e expr, out []expr) []expr {
	if a, ok := e.(andExpr); ok {
		for _, c := range a {
			out = flatten(c, out)
		}
		return out
	}
	return append(out, e)
}

func equivalentExpr(l expr, lc *collation.Collator, r expr, rc *collation.Collator) bool {
	_, la := l.(andExpr)
	_, ra := r.(andExpr)
	if la || ra {
		ls, rs := flatten(l, nil), flatten(r, nil)
		if len(ls) == 1 && len(rs) == 1 {
			return equivalentExpr(ls[0], lc, rs[0], rc)
		}
		return sameSets(ls, lc, rs, rc)
	}
	switch lt := l.(type) {
	case orExpr:
		rt, ok := r.(orExpr)
		return ok && sameSets(lt, lc, rt, rc)
	case norExpr:
		rt, ok := r.(norExpr)
		return ok && sameSets(lt, lc, rt, rc)
	case notExpr:
		rt, ok := r.(notExpr)
		return ok && equivalentExpr(lt.e, lc, rt.e, rc)
	case *pathExpr:
		rp, ok := r.(*pathExpr)
		if !ok || lt.path != rp.path {
			return false
		}
		if lt == rp {
			return true
		}
		if lt.sub != nil || rp.sub != nil {
			return false
		}
		switch {
		case isComparison(lt.kind) || isComparison(rp.kind):
			return lt.kind == rp.kind && comparable(lt.arg, lc, rp.arg, rc) && compareNaN(lt.arg, rp.arg) == 0
		case lt.kind == opIn || rp.kind == opIn:
			if lt.kind != rp.kind || lt.hasRe || rp.hasRe {
				return false
			}
			return sameValues(lt.args, rp.args, lc, rc) && sameValues(rp.args, lt.args, lc, rc)
		}
		return equivalentLeaves(l, lc, r, rc)
	}
	return false
}

// sameSets reports whether each expression of ls is equivalent to one
// of rs and each of rs to one of ls.
func sameSets(ls []expr, lc *collation.Collator, rs []expr, rc *collation.Collator) bool {
	covers := func(as []expr, ac *collation.Collator, bs []expr, bc *collation.Collator) bool {
		for _, a := range as {
			found := false
			for _, b := range bs {
				if equivalentExpr(a, ac, b, bc) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	return covers(ls, lc, rs, rc) && covers(rs, rc, ls, lc)
}
